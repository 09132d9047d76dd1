//! From the parsed file to checked library values: every number finite and in range, every
//! field applicable to its kind, every reference resolved, every library value built by its
//! validating constructor.

use crate::model::{
    AgentRef, Behaviour, Bounds, FormationPlan, Geometry, GroupPlan, Metric, MetricsPlan,
    NamedPath, Placement, TargetRef,
};
use crate::spec::{
    FormationSpec, GroupSpec, HeadingSpec, LimitsSpec, NodeSpec, ObstacleSpec, ScenarioSpec,
    SpawnSpec, WorldSpec, Xy,
};
use std::collections::HashMap;
use steerkit::{
    Aabb, AdaptiveFan, Align, Alignment, Approach, Arrive, AvoidTarget, Circle, Cohesion,
    CollisionAvoidance, DogOnAString, Epsilon, Estimate, Evade, Falloff, Flee, FollowPath, Gather,
    GrapplingHooks, HeadFor, Hide, Integration, Interpose, KinematicArrive, Limits, Obstacle,
    ObstacleAvoidance, ObstacleSet, OffsetPursuit, ParamError, Polygon, Polyline, Prediction,
    Pursue, RayLayout, Reprojection, Rng, ScalablePattern, Scheme, Seek, SeekMode, Segment,
    Separation, Shape, SlotSteering, Stop, Vec2, VelocityMatch, WallFeelers,
};

/// Most agents a scenario may create (all groups together).
pub const MAX_AGENTS: u64 = 1_000_000;
/// Most simulation steps a scenario may ask for.
pub const MAX_STEPS: u64 = 100_000_000;
/// Deepest behaviour tree.
pub const MAX_DEPTH: usize = 32;

/// A problem at a field path, before it is located in the source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub field: String,
    pub message: String,
}

pub(crate) type Result<T> = core::result::Result<T, Problem>;

fn problem(field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem { field: field.into(), message: message.into() }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

fn finite(path: &str, v: f32) -> Result<f32> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(problem(path, format!("must be a finite number, got {v}")))
    }
}

fn non_negative(path: &str, v: f32) -> Result<f32> {
    finite(path, v)?;
    if v < 0.0 {
        return Err(problem(path, format!("must not be negative, got {v}")));
    }
    Ok(v)
}

fn positive(path: &str, v: f32) -> Result<f32> {
    finite(path, v)?;
    if v <= 0.0 {
        return Err(problem(path, format!("must be greater than zero, got {v}")));
    }
    Ok(v)
}

fn xy(path: &str, v: Xy) -> Result<Vec2> {
    for (i, c) in v.iter().enumerate() {
        finite(&format!("{path}[{i}]"), *c)?;
    }
    Ok(Vec2::new(v[0], v[1]))
}

/// A library constructor's error, pointed at the field it names when the node has that field
/// (the library's names are the format's, except where mapped here), else at the node.
fn lib(path: &str, fields: &[&str], e: &ParamError) -> Problem {
    let name = match e {
        ParamError::NotFinite { name, .. }
        | ParamError::Negative { name, .. }
        | ParamError::NotPositive { name, .. }
        | ParamError::Contradictory { name, .. }
        | ParamError::OutOfRange { name, .. }
        | ParamError::Invalid { name, .. }
        | ParamError::Count { name, .. } => Some(*name),
        _ => None,
    };
    let name = match name {
        Some("decay_coefficient") => Some("decay"),
        Some("path_offset") => Some("offset"),
        Some("turnaround_coefficient") => Some("turnaround"),
        Some("distance_from_boundary") => Some("distance"),
        Some("feeler_length") => Some("length"),
        other => other,
    };
    match name {
        Some(n) if fields.contains(&n) => problem(join(path, n), e.to_string()),
        _ => problem(path, e.to_string()),
    }
}

fn one_of<T: Copy>(path: &str, value: &str, choices: &[(&str, T)]) -> Result<T> {
    choices.iter().find(|(n, _)| *n == value).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
        problem(path, format!("unknown value `{value}`; expected one of {}", names.join(", ")))
    })
}

/// Names used for output directories: `[a-z0-9_-]`, anything else becomes `_`; never empty,
/// never `.` or `..`.
#[must_use]
pub fn sanitise_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() {
        s.push_str("scenario");
    }
    s
}

/// A field of a flat struct as present in the file: its name and its numbers (for the
/// finiteness check).
struct Present {
    name: &'static str,
    numbers: Vec<f32>,
}

macro_rules! present {
    ($s:expr; nums: $($n:ident),*; xys: $($x:ident),*; others: $($o:ident = $on:literal),*) => {{
        let s = $s;
        let mut v: Vec<Present> = Vec::new();
        $( if let Some(n) = s.$n { v.push(Present { name: stringify!($n), numbers: vec![n] }); } )*
        $( if let Some(x) = s.$x { v.push(Present { name: stringify!($x), numbers: x.to_vec() }); } )*
        $( if s.$o.is_some() { v.push(Present { name: $on, numbers: Vec::new() }); } )*
        v
    }};
}

/// Checks that every present field applies (`allowed`) and every number is finite.
fn applicable(
    path: &str,
    what: &str,
    kind: &str,
    present: &[Present],
    allowed: &[&str],
) -> Result<()> {
    for p in present {
        if !allowed.contains(&p.name) {
            let list = if allowed.is_empty() {
                "it takes no parameters".to_owned()
            } else {
                format!("its fields are {}", allowed.join(", "))
            };
            return Err(problem(
                join(path, p.name),
                format!("field `{}` does not apply to {what} `{kind}` ({list})", p.name),
            ));
        }
        for (i, n) in p.numbers.iter().enumerate() {
            if !n.is_finite() {
                let field = if p.numbers.len() > 1 {
                    format!("{}[{i}]", join(path, p.name))
                } else {
                    join(path, p.name)
                };
                return Err(problem(field, format!("must be a finite number, got {n}")));
            }
        }
    }
    Ok(())
}

fn required<T: Copy>(path: &str, what: &str, kind: &str, name: &str, v: Option<T>) -> Result<T> {
    v.ok_or_else(|| problem(join(path, name), format!("{what} `{kind}` needs `{name}`")))
}

/// The checked scenario parts (see [`crate::Scenario`]).
#[derive(Clone, Debug)]
pub(crate) struct Checked {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub dt: f32,
    pub steps: u64,
    pub bounds: Bounds,
    pub neighbour_radius: f32,
    pub non_penetration_passes: u32,
    pub geometry: Geometry,
    pub paths: Vec<NamedPath>,
    pub groups: Vec<GroupPlan>,
    pub formations: Vec<FormationPlan>,
    pub metrics: MetricsPlan,
}

pub(crate) fn check(spec: &ScenarioSpec) -> Result<Checked> {
    if spec.name.trim().is_empty() {
        return Err(problem("name", "must not be empty"));
    }
    let dt = positive("dt", spec.dt)?;
    let steps = match (spec.steps, spec.duration) {
        (Some(_), Some(_)) => {
            return Err(problem("duration", "give either `steps` or `duration`, not both"))
        }
        (None, None) => return Err(problem("", "missing field `steps` (or `duration`)")),
        (Some(n), None) => n,
        (None, Some(d)) => {
            let d = non_negative("duration", d)?;
            (f64::from(d) / f64::from(dt)).round() as u64
        }
    };
    if steps > MAX_STEPS {
        let field = if spec.steps.is_some() { "steps" } else { "duration" };
        return Err(problem(field, format!("{steps} steps is more than the limit of {MAX_STEPS}")));
    }
    let (bounds, neighbour_radius, passes) = world(&spec.world)?;
    let geometry = geometry(spec)?;
    let paths = paths(spec)?;
    let metrics = metrics(spec)?;

    // group names first: behaviours refer to any group, earlier or later
    let mut group_index: HashMap<&str, usize> = HashMap::new();
    let mut sizes = Vec::with_capacity(spec.groups.len());
    let mut total = 0u64;
    if spec.groups.is_empty() {
        return Err(problem("groups", "a scenario needs at least one group"));
    }
    for (i, g) in spec.groups.iter().enumerate() {
        let path = format!("groups[{i}]");
        if g.name.is_empty() || g.name.contains(':') {
            return Err(problem(
                join(&path, "name"),
                "a group name must be non-empty and contain no `:`",
            ));
        }
        if group_index.insert(g.name.as_str(), i).is_some() {
            return Err(problem(join(&path, "name"), format!("a second group named `{}`", g.name)));
        }
        let n = group_size(&path, g)?;
        total += n as u64;
        if total > MAX_AGENTS {
            return Err(problem(
                join(&path, "count"),
                format!("more than {MAX_AGENTS} agents in all"),
            ));
        }
        sizes.push(n);
    }
    let refs = Refs { groups: &group_index, sizes: &sizes, paths: &paths };

    let solids = ObstacleSet::new(geometry.obstacles.iter().cloned())
        .map_err(|e| problem("obstacles", e.to_string()))?;
    let mut rng = Rng::new(spec.seed);
    let mut groups = Vec::with_capacity(spec.groups.len());
    for (i, g) in spec.groups.iter().enumerate() {
        groups.push(group(&format!("groups[{i}]"), g, &bounds, &solids, &refs, &mut rng)?);
    }
    let mut formations = Vec::with_capacity(spec.formations.len());
    let mut in_formation = vec![false; groups.len()];
    for (i, fs) in spec.formations.iter().enumerate() {
        let plan = formation(&format!("formations[{i}]"), fs, &refs)?;
        if std::mem::replace(&mut in_formation[plan.group], true) {
            return Err(problem(
                format!("formations[{i}].group"),
                format!("group `{}` is already in a formation", fs.group),
            ));
        }
        formations.push(plan);
    }
    Ok(Checked {
        name: spec.name.clone(),
        description: spec.description.clone(),
        seed: spec.seed,
        dt,
        steps,
        bounds,
        neighbour_radius,
        non_penetration_passes: passes,
        geometry,
        paths,
        groups,
        formations,
        metrics,
    })
}

fn limits(path: &str, l: &LimitsSpec) -> Result<Limits> {
    Limits::new(l.max_speed, l.max_acceleration, l.max_rotation, l.max_angular_acceleration)
        .map_err(|e| {
            lib(
                path,
                &["max_speed", "max_acceleration", "max_rotation", "max_angular_acceleration"],
                &e,
            )
        })
}

/// `[[formations]]`: the group's agents are the members; the anchor behaviour takes no
/// agent-relative leaves that need neighbours (it sees none).
fn formation(path: &str, fs: &FormationSpec, refs: &Refs<'_>) -> Result<FormationPlan> {
    let f = |name: &str| join(path, name);
    let Some(&group) = refs.groups.get(fs.group.as_str()) else {
        let mut names: Vec<&str> = refs.groups.keys().copied().collect();
        names.sort_unstable();
        return Err(problem(
            f("group"),
            format!("no group named `{}` (groups: {})", fs.group, names.join(", ")),
        ));
    };
    let shape = match fs.shape.as_str() {
        "box" => {
            let columns = fs.columns.ok_or_else(|| {
                problem(f("columns"), "shape `box` needs `columns` (slots per row)")
            })?;
            Shape::Box { columns: columns as usize }
        }
        other => {
            if fs.columns.is_some() {
                return Err(problem(f("columns"), "field `columns` applies only to shape `box`"));
            }
            one_of(
                &f("shape"),
                other,
                &[
                    ("line", Shape::Line),
                    ("v", Shape::V),
                    ("wedge", Shape::Wedge),
                    ("column", Shape::Column),
                    ("circle", Shape::DefensiveCircle),
                ],
            )?
        }
    };
    let pattern = ScalablePattern::new(shape, finite(&f("spacing"), fs.spacing)?)
        .map_err(|e| lib(path, &["spacing", "columns"], &e))?;
    let anchor_limits = limits(&f("anchor_limits"), &fs.anchor_limits)?;
    let anchor = node(&f("anchor"), &fs.anchor, None, refs, 1)?;
    Ok(FormationPlan {
        group,
        pattern,
        anchor_position: xy(&f("anchor_position"), fs.anchor_position)?,
        anchor_orientation: finite(&f("anchor_orientation"), fs.anchor_orientation.unwrap_or(0.0))?,
        anchor_limits,
        anchor,
    })
}

fn world(w: &WorldSpec) -> Result<(Bounds, f32, u32)> {
    let r = positive("world.neighbour_radius", w.neighbour_radius)?;
    let bounds = match (w.min, w.max) {
        (None, None) => {
            if w.wrap {
                return Err(problem("world.wrap", "a wrap-around world needs `min` and `max`"));
            }
            Bounds::Unbounded
        }
        (Some(_), None) => return Err(problem("world.max", "`min` is given, so `max` is needed")),
        (None, Some(_)) => return Err(problem("world.min", "`max` is given, so `min` is needed")),
        (Some(min), Some(max)) => {
            let (min, max) = (xy("world.min", min)?, xy("world.max", max)?);
            for i in 0..2 {
                if max[i] <= min[i] {
                    return Err(problem(
                        format!("world.max[{i}]"),
                        format!("must be greater than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            if w.wrap {
                Bounds::Wrapping { min, max }
            } else {
                Bounds::Bounded { min, max }
            }
        }
    };
    let passes = w.non_penetration_passes.unwrap_or(4);
    if passes > 64 {
        return Err(problem("world.non_penetration_passes", format!("at most 64, got {passes}")));
    }
    Ok((bounds, r, passes))
}

fn geometry(spec: &ScenarioSpec) -> Result<Geometry> {
    let mut obstacles = Vec::with_capacity(spec.obstacles.len());
    for (i, o) in spec.obstacles.iter().enumerate() {
        obstacles.push(obstacle(&format!("obstacles[{i}]"), o)?);
    }
    let mut walls = Vec::with_capacity(spec.walls.len());
    for (i, w) in spec.walls.iter().enumerate() {
        let path = format!("walls[{i}]");
        walls.push(Segment::new(xy(&join(&path, "from"), w.from)?, xy(&join(&path, "to"), w.to)?));
    }
    Ok(Geometry { obstacles, walls })
}

fn obstacle(path: &str, o: &ObstacleSpec) -> Result<Obstacle> {
    let points = o.points.as_ref().map(|p| p.iter().flatten().copied().collect::<Vec<f32>>());
    let mut present = present!(o; nums: radius; xys: center, min, max; others:);
    if let Some(p) = points {
        present.push(Present { name: "points", numbers: p });
    }
    let what = "obstacle shape";
    let shape = o.shape.as_str();
    match shape {
        "circle" => {
            applicable(path, what, shape, &present, &["center", "radius"])?;
            let c = xy(&join(path, "center"), required(path, what, shape, "center", o.center)?)?;
            let r = non_negative(
                &join(path, "radius"),
                required(path, what, shape, "radius", o.radius)?,
            )?;
            Ok(Obstacle::Circle(Circle::new(c, r)))
        }
        "box" => {
            applicable(path, what, shape, &present, &["min", "max"])?;
            let min = xy(&join(path, "min"), required(path, what, shape, "min", o.min)?)?;
            let max = xy(&join(path, "max"), required(path, what, shape, "max", o.max)?)?;
            for i in 0..2 {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            Ok(Obstacle::Box(Aabb::new(min, max)))
        }
        "polygon" => {
            applicable(path, what, shape, &present, &["points"])?;
            let pts = o.points.as_ref().ok_or_else(|| {
                problem(join(path, "points"), "obstacle shape `polygon` needs `points`")
            })?;
            let pts: Vec<Vec2> = pts.iter().map(|p| Vec2::new(p[0], p[1])).collect();
            let poly =
                Polygon::new(pts).map_err(|e| problem(join(path, "points"), e.to_string()))?;
            Ok(Obstacle::Polygon(poly))
        }
        other => Err(problem(
            join(path, "shape"),
            format!("unknown obstacle shape `{other}`; expected `circle`, `box` or `polygon`"),
        )),
    }
}

fn paths(spec: &ScenarioSpec) -> Result<Vec<NamedPath>> {
    let mut out: Vec<NamedPath> = Vec::with_capacity(spec.paths.len());
    for (i, p) in spec.paths.iter().enumerate() {
        let path = format!("paths[{i}]");
        if p.name.is_empty() {
            return Err(problem(join(&path, "name"), "must not be empty"));
        }
        if out.iter().any(|q| q.name == p.name) {
            return Err(problem(join(&path, "name"), format!("a second path named `{}`", p.name)));
        }
        if p.points.len() < 2 {
            return Err(problem(join(&path, "points"), "a path needs at least two points"));
        }
        let mut pts = Vec::with_capacity(p.points.len());
        for (j, q) in p.points.iter().enumerate() {
            pts.push(xy(&format!("{path}.points[{j}]"), *q)?);
        }
        let polyline = Polyline::new(pts, p.looping)
            .map_err(|e| problem(join(&path, "points"), e.to_string()))?;
        out.push(NamedPath { name: p.name.clone(), polyline });
    }
    Ok(out)
}

fn metrics(spec: &ScenarioSpec) -> Result<MetricsPlan> {
    let m = spec.metrics.as_ref();
    let collect = match m.and_then(|m| m.collect.as_ref()) {
        None => Metric::ALL.iter().map(|(_, m)| *m).collect(),
        Some(names) => {
            let mut out = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let metric = one_of(&format!("metrics.collect[{i}]"), n, &Metric::ALL)?;
                if !out.contains(&metric) {
                    out.push(metric);
                }
            }
            out
        }
    };
    let overlap_tolerance = match m.and_then(|m| m.overlap_tolerance) {
        Some(t) => non_negative("metrics.overlap_tolerance", t)?,
        None => 0.01,
    };
    let stuck_time = match m.and_then(|m| m.stuck_time) {
        Some(t) => positive("metrics.stuck_time", t)?,
        None => 2.0,
    };
    let stuck_speed = match m.and_then(|m| m.stuck_speed) {
        Some(t) => non_negative("metrics.stuck_speed", t)?,
        None => 0.05,
    };
    Ok(MetricsPlan { collect, overlap_tolerance, stuck_time, stuck_speed })
}

/// The number of agents in a group: `count` (with or without a spawn region) or the length of
/// `agents`.
fn group_size(path: &str, g: &GroupSpec) -> Result<usize> {
    match (&g.agents, g.count, &g.spawn) {
        (Some(_), Some(_), _) => Err(problem(
            join(path, "count"),
            "give either `count` with a `spawn` region or an `agents` list, not both",
        )),
        (Some(_), None, Some(_)) => Err(problem(
            join(path, "spawn"),
            "`spawn` applies to `count`; agents in an `agents` list have their own positions",
        )),
        (Some(a), None, None) if a.is_empty() => {
            Err(problem(join(path, "agents"), "the group has no agents: the list is empty"))
        }
        (Some(a), None, None) => Ok(a.len()),
        (None, Some(0), _) => Err(problem(
            join(path, "count"),
            "the group has no agents: `count` is 0 and there is no `agents` list",
        )),
        (None, Some(_), None) => {
            Err(problem(join(path, "spawn"), "`count` needs a `spawn` region"))
        }
        (None, Some(n), Some(_)) => Ok(n as usize),
        (None, None, _) => Err(problem(
            path,
            "the group has no agents: give `count` with a `spawn` region, or an `agents` list",
        )),
    }
}

struct Refs<'a> {
    groups: &'a HashMap<&'a str, usize>,
    sizes: &'a [usize],
    paths: &'a [NamedPath],
}

impl Refs<'_> {
    fn agent(&self, path: &str, s: &str) -> Result<AgentRef> {
        let Some((g, i)) = s.rsplit_once(':') else {
            return Err(problem(
                path,
                format!("`{s}` is not an agent reference; write \"group_name:index\""),
            ));
        };
        let Some(&group) = self.groups.get(g) else {
            let mut names: Vec<&str> = self.groups.keys().copied().collect();
            names.sort_unstable();
            return Err(problem(
                path,
                format!("no group named `{g}` (groups: {})", names.join(", ")),
            ));
        };
        let index: usize = i.parse().map_err(|_| {
            problem(path, format!("`{i}` in `{s}` is not an agent index (0, 1, 2, ...)"))
        })?;
        if index >= self.sizes[group] {
            return Err(problem(
                path,
                format!(
                    "group `{g}` has {} agents, so there is no agent {index}",
                    self.sizes[group]
                ),
            ));
        }
        Ok(AgentRef { group, index })
    }

    fn path(&self, path: &str, name: &str) -> Result<usize> {
        self.paths.iter().position(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.paths.iter().map(|p| p.name.as_str()).collect();
            let list = if names.is_empty() {
                "there are no paths".to_owned()
            } else {
                format!("paths: {}", names.join(", "))
            };
            problem(path, format!("no path named `{name}` ({list})"))
        })
    }
}

/// True when `p` is inside (or on) a solid obstacle: a logarithmic query of the obstacle tree,
/// so many agents and many obstacles stay cheap.
fn inside_solid(solids: &ObstacleSet, p: Vec2) -> bool {
    let mut inside = false;
    solids.for_each_overlapping(&Circle::new(p, 0.0), |_, o| {
        inside |= !matches!(o, Obstacle::Wall(_));
    });
    inside
}

/// Tries per spawned agent to find a place outside the solid obstacles.
const SPAWN_TRIES: usize = 64;

fn group(
    path: &str,
    g: &GroupSpec,
    bounds: &Bounds,
    solids: &ObstacleSet,
    refs: &Refs<'_>,
    rng: &mut Rng,
) -> Result<GroupPlan> {
    if let Some(c) = &g.colour {
        let ok =
            c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|c| c.is_ascii_hexdigit());
        if !ok {
            return Err(problem(
                join(path, "colour"),
                format!("`{c}` is not a colour; write \"#rrggbb\""),
            ));
        }
    }
    let radius = non_negative(&join(path, "radius"), g.radius)?;
    let lp = join(path, "limits");
    let l = &g.limits;
    let limits = Limits::new(
        non_negative(&join(&lp, "max_speed"), l.max_speed)?,
        non_negative(&join(&lp, "max_acceleration"), l.max_acceleration)?,
        non_negative(&join(&lp, "max_rotation"), l.max_rotation)?,
        non_negative(&join(&lp, "max_angular_acceleration"), l.max_angular_acceleration)?,
    )
    .map_err(|e| {
        lib(&lp, &["max_speed", "max_acceleration", "max_rotation", "max_angular_acceleration"], &e)
    })?;
    let goal = match g.goal {
        Some(p) => Some(xy(&join(path, "goal"), p)?),
        None => None,
    };
    let arrive_radius = match g.arrive_radius {
        Some(r) => non_negative(&join(path, "arrive_radius"), r)?,
        None => 0.5,
    };
    let view_half_angle = match g.view_half_angle {
        Some(a) => {
            let p = join(path, "view_half_angle");
            let a = non_negative(&p, a)?;
            if a > core::f32::consts::PI {
                return Err(problem(p, format!("must be at most π, got {a}")));
            }
            Some(a)
        }
        None => None,
    };
    let heading_smoothing = g.heading_smoothing.unwrap_or(0);
    if heading_smoothing > 64 {
        return Err(problem(
            join(path, "heading_smoothing"),
            format!("at most 64 steps, got {heading_smoothing}"),
        ));
    }
    let scheme = one_of(
        &join(path, "integration"),
        g.integration.as_deref().unwrap_or("newton_euler"),
        &[("newton_euler", Scheme::NewtonEuler1), ("exact", Scheme::Exact)],
    )?;
    let linear_drag = non_negative(&join(path, "linear_drag"), g.linear_drag.unwrap_or(0.0))?;
    let angular_drag = non_negative(&join(path, "angular_drag"), g.angular_drag.unwrap_or(0.0))?;
    let integration = Integration::new(scheme, linear_drag, angular_drag)
        .map_err(|e| lib(path, &["linear_drag", "angular_drag"], &e))?;
    let behaviour = node(&join(path, "behaviour"), &g.behaviour, None, refs, 0)?;

    let agents = match (&g.agents, g.count, &g.spawn) {
        (Some(list), _, _) => {
            let mut out = Vec::with_capacity(list.len());
            for (i, a) in list.iter().enumerate() {
                let ap = format!("{path}.agents[{i}]");
                let position = xy(&join(&ap, "position"), a.position)?;
                if !bounds.contains(position) {
                    return Err(problem(
                        join(&ap, "position"),
                        "the agent starts outside the world's bounds",
                    ));
                }
                if inside_solid(solids, position) {
                    return Err(problem(
                        join(&ap, "position"),
                        "the agent starts inside a solid obstacle",
                    ));
                }
                let velocity = match a.velocity {
                    Some(v) => xy(&join(&ap, "velocity"), v)?,
                    None => Vec2::ZERO,
                };
                if velocity.length() > limits.max_speed() * (1.0 + 1e-6) {
                    return Err(problem(
                        join(&ap, "velocity"),
                        format!(
                            "speed {} is above the group's max_speed {}",
                            velocity.length(),
                            limits.max_speed()
                        ),
                    ));
                }
                let orientation = match a.orientation {
                    Some(o) => finite(&join(&ap, "orientation"), o)?,
                    None => 0.0,
                };
                let goal = match a.goal {
                    Some(p) => Some(xy(&join(&ap, "goal"), p)?),
                    None => goal,
                };
                out.push(Placement { position, velocity, orientation, goal });
            }
            out
        }
        (None, Some(n), Some(spawn)) => spawn_agents(
            &join(path, "spawn"),
            spawn,
            n,
            (bounds, solids),
            limits.max_speed(),
            goal,
            rng,
        )?,
        _ => unreachable_group(path)?,
    };
    Ok(GroupPlan {
        name: g.name.clone(),
        colour: g.colour.clone(),
        radius,
        limits,
        agents,
        behaviour,
        arrive_radius,
        non_penetration: g.non_penetration,
        view_half_angle,
        face_motion: g.face_motion.unwrap_or(true),
        heading_smoothing,
        integration,
    })
}

/// `group_size` has already rejected every other combination.
fn unreachable_group(path: &str) -> Result<Vec<Placement>> {
    Err(problem(path, "the group has no agents"))
}

fn spawn_agents(
    path: &str,
    s: &SpawnSpec,
    n: u32,
    (bounds, solids): (&Bounds, &ObstacleSet),
    max_speed: f32,
    goal: Option<Vec2>,
    rng: &mut Rng,
) -> Result<Vec<Placement>> {
    let mut present =
        present!(s; nums: radius; xys: min, max, center, speed; others: heading = "heading");
    if let Some(HeadingSpec::Angle(a)) = s.heading {
        if let Some(p) = present.iter_mut().find(|p| p.name == "heading") {
            p.numbers.push(a);
        }
    }
    let what = "spawn shape";
    let shape = s.shape.as_str();
    // the region as a box to draw from, and the disc it must fall in (circle)
    let (mut lo, mut hi, disc) = match shape {
        "rect" => {
            applicable(path, what, shape, &present, &["min", "max", "heading", "speed"])?;
            let min = xy(&join(path, "min"), required(path, what, shape, "min", s.min)?)?;
            let max = xy(&join(path, "max"), required(path, what, shape, "max", s.max)?)?;
            for i in 0..2 {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            (min, max, None)
        }
        "circle" => {
            applicable(path, what, shape, &present, &["center", "radius", "heading", "speed"])?;
            let c = xy(&join(path, "center"), required(path, what, shape, "center", s.center)?)?;
            let r = non_negative(
                &join(path, "radius"),
                required(path, what, shape, "radius", s.radius)?,
            )?;
            (c - Vec2::splat(r), c + Vec2::splat(r), Some((c, r)))
        }
        other => {
            return Err(problem(
                join(path, "shape"),
                format!("unknown spawn shape `{other}`; expected `rect` or `circle`"),
            ))
        }
    };
    // a region larger than the world is fine: draw from the part inside the world
    if let Some((min, max)) = bounds.corners() {
        lo = lo.max(min);
        hi = hi.min(max);
        if (lo.x > hi.x || lo.y > hi.y) && n > 0 {
            return Err(problem(path, "the spawn region lies outside the world"));
        }
    }
    let speed = match s.speed {
        Some([lo, hi]) => {
            let sp = join(path, "speed");
            let lo = non_negative(&format!("{sp}[0]"), lo)?;
            let hi = non_negative(&format!("{sp}[1]"), hi)?;
            if hi < lo {
                return Err(problem(
                    format!("{sp}[1]"),
                    format!("must not be less than speed[0] ({lo}), got {hi}"),
                ));
            }
            if hi > max_speed {
                return Err(problem(
                    format!("{sp}[1]"),
                    format!("{hi} is above the group's max_speed {max_speed}"),
                ));
            }
            Some((lo, hi))
        }
        None => None,
    };
    let mut out = Vec::with_capacity(n as usize);
    for k in 0..n {
        let mut found = None;
        for _ in 0..SPAWN_TRIES {
            let x = lo.x + (hi.x - lo.x) * rng.uniform();
            let p = Vec2::new(x, lo.y + (hi.y - lo.y) * rng.uniform());
            let in_disc = disc.is_none_or(|(c, r)| (p - c).length_squared() <= r * r);
            if in_disc && bounds.contains(p) && !inside_solid(solids, p) {
                found = Some(p);
                break;
            }
        }
        let Some(position) = found else {
            return Err(problem(
                path,
                format!(
                    "no free place for agent {k} in {SPAWN_TRIES} tries: solid obstacles (or the \
                     world's edge) cover the region"
                ),
            ));
        };
        let orientation = match s.heading {
            Some(HeadingSpec::Angle(a)) => a,
            Some(HeadingSpec::Random) => {
                core::f32::consts::TAU * rng.uniform() - core::f32::consts::PI
            }
            None => 0.0,
        };
        let velocity = match speed {
            Some((lo, hi)) => Vec2::from_angle(orientation) * (lo + (hi - lo) * rng.uniform()),
            None => Vec2::ZERO,
        };
        out.push(Placement { position, velocity, orientation, goal });
    }
    Ok(out)
}

/// Every behaviour kind the format runs, with its fields.
pub(crate) const KINDS: &[(&str, &[&str])] = &[
    ("seek", &["target", "agent", "use_goal", "mode", "time_to_target"]),
    ("flee", &["target", "agent", "use_goal", "mode", "time_to_target", "panic_distance"]),
    (
        "arrive",
        &[
            "target",
            "agent",
            "use_goal",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
            "stop",
        ],
    ),
    ("pursue", &["agent", "max_prediction", "estimate", "head_on_shortcut", "turnaround"]),
    (
        "evade",
        &[
            "agent",
            "max_prediction",
            "estimate",
            "head_on_shortcut",
            "turnaround",
            "panic_distance",
        ],
    ),
    ("velocity_match", &["velocity", "time_to_target"]),
    ("wander", &["radius", "distance", "jitter"]),
    ("kinematic_seek", &["target", "agent", "use_goal"]),
    ("kinematic_arrive", &["target", "agent", "use_goal", "radius", "time_to_target"]),
    ("kinematic_wander", &["rate"]),
    ("separation", &["threshold", "falloff", "decay", "gather", "buffer"]),
    ("cohesion", &["target_radius", "slow_radius", "time_to_target"]),
    ("alignment", &["match", "time_to_target"]),
    ("collision_avoidance", &["margin", "horizon"]),
    ("follow_path", &["path", "offset", "predict_time"]),
    ("blend", &["members"]),
    ("priority", &["members", "epsilon"]),
    ("running_sum", &["members"]),
    (
        "obstacle_avoidance",
        &[
            "rays",
            "half_angle",
            "whisker_ratio",
            "half_width",
            "ray_count",
            "avoid_distance",
            "lookahead",
            "lookahead_time",
            "max_half_angle",
            "widen_rate",
            "commitment",
            "avoid_target",
        ],
    ),
    ("wall_feelers", &["length", "side_angle", "side_ratio"]),
    ("hide", &["agent", "distance", "threat_range"]),
    ("interpose", &["agent", "other_agent", "ratio", "max_prediction"]),
    ("offset_pursuit", &["agent", "local_offset", "max_prediction"]),
    (
        "dog_on_a_string",
        &[
            "path",
            "string",
            "leash_speed",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
    ),
    (
        "reprojection",
        &[
            "path",
            "predict_time",
            "path_radius",
            "ahead",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
    ),
    (
        "grappling_hooks",
        &[
            "path",
            "closeness",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
    ),
    ("slot", &["target_radius", "slow_radius", "deceleration_time", "braking", "time_to_target"]),
    (
        "pipeline",
        &[
            "target",
            "agent",
            "use_goal",
            "grid_min",
            "grid_max",
            "cell_size",
            "clearance",
            "margin",
            "constraint_steps",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
    ),
];

/// Behaviours the library has that scenarios cannot run yet (the crowd engine's recipe does not
/// express them).
pub(crate) const NOT_YET: &[&str] =
    &["dither", "detection_box", "repel_obstacle", "align", "face", "look_where_you_are_going"];

fn node_present(n: &NodeSpec) -> Vec<Present> {
    present!(n;
        nums: weight, epsilon, panic_distance, target_radius, slow_radius, deceleration_time,
              time_to_target, max_prediction, turnaround, radius, distance, jitter, threshold,
              decay, buffer, margin, horizon, offset, predict_time, half_angle, whisker_ratio,
              half_width, avoid_distance, lookahead, lookahead_time, max_half_angle, widen_rate,
              commitment, length, side_angle, side_ratio, threat_range, ratio, string,
              leash_speed, path_radius, ahead, closeness, rate, cell_size, clearance;
        xys: target, velocity, local_offset, grid_min, grid_max;
        others: members = "members", agent = "agent", use_goal = "use_goal", mode = "mode",
                braking = "braking", stop = "stop", estimate = "estimate",
                head_on_shortcut = "head_on_shortcut", falloff = "falloff", gather = "gather",
                match_ = "match", path = "path", rays = "rays", ray_count = "ray_count",
                avoid_target = "avoid_target", other_agent = "other_agent",
                constraint_steps = "constraint_steps")
}

/// Checks a behaviour node. `parent` is the kind of the combiner holding it (for `weight`).
fn node(
    path: &str,
    n: &NodeSpec,
    parent: Option<&str>,
    refs: &Refs<'_>,
    depth: usize,
) -> Result<Behaviour> {
    if depth > MAX_DEPTH {
        return Err(problem(path, format!("behaviours nested more than {MAX_DEPTH} deep")));
    }
    let kind = n.kind.as_str();
    let Some((_, fields)) = KINDS.iter().find(|(k, _)| *k == kind) else {
        let msg = if NOT_YET.contains(&kind) {
            format!("behaviour kind `{kind}` is not available in scenarios yet (the crowd engine cannot run it)")
        } else {
            let names: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
            format!("unknown behaviour kind `{kind}`; expected one of {}", names.join(", "))
        };
        return Err(problem(join(path, "kind"), msg));
    };
    let weighted = matches!(parent, Some("blend" | "running_sum"));
    let mut allowed: Vec<&str> = fields.to_vec();
    if weighted {
        allowed.push("weight");
    }
    let present = node_present(n);
    if !weighted && n.weight.is_some() {
        let why = match parent {
            Some(p) => format!(
                "members of `{p}` take no weight (only members of `blend` and `running_sum` do)"
            ),
            None => "only members of `blend` and `running_sum` take a weight".to_owned(),
        };
        return Err(problem(join(path, "weight"), why));
    }
    applicable(path, "kind", kind, &present, &allowed)?;
    if let (Some(p), true) = (parent, kind.starts_with("kinematic_")) {
        return Err(problem(
            join(path, "kind"),
            format!("kind `{kind}` sets the velocity and must be the whole behaviour, not a member of `{p}`"),
        ));
    }
    let req = |name: &str, present: bool| -> Result<()> {
        if present {
            Ok(())
        } else {
            Err(problem(join(path, name), format!("kind `{kind}` needs `{name}`")))
        }
    };
    let f = |name: &str| join(path, name);
    let lib_err = |e: ParamError| lib(path, fields, &e);

    let b = match kind {
        "seek" | "flee" => {
            let target = target(path, n, refs)?;
            let mode = seek_mode(path, n)?;
            if kind == "seek" {
                Behaviour::Seek { target, seek: Seek::with_mode(mode).map_err(lib_err)? }
            } else {
                let flee = Flee::with(mode, n.panic_distance).map_err(lib_err)?;
                Behaviour::Flee { target, flee }
            }
        }
        "arrive" => {
            let target = target(path, n, refs)?;
            Behaviour::Arrive { target, arrive: arrive(path, n, true)? }
        }
        "pursue" | "evade" => {
            req("agent", n.agent.is_some())?;
            let agent = refs.agent(&f("agent"), n.agent.as_deref().unwrap_or_default())?;
            req("max_prediction", n.max_prediction.is_some())?;
            let default = if kind == "pursue" { "current_speed" } else { "closing_speed" };
            let estimate = one_of(
                &f("estimate"),
                n.estimate.as_deref().unwrap_or(default),
                &[
                    ("current_speed", Estimate::CurrentSpeed),
                    ("max_speed", Estimate::MaxSpeed),
                    ("closing_speed", Estimate::ClosingSpeed),
                ],
            )?;
            let mut prediction =
                Prediction::new(n.max_prediction.unwrap_or_default(), estimate).map_err(lib_err)?;
            if let Some(on) = n.head_on_shortcut {
                prediction = prediction.with_head_on_shortcut(on);
            }
            if let Some(t) = n.turnaround {
                prediction = prediction.with_turnaround(t).map_err(lib_err)?;
            }
            if kind == "pursue" {
                let mut pursue =
                    Pursue::new(n.max_prediction.unwrap_or_default()).map_err(lib_err)?;
                pursue.prediction = prediction;
                Behaviour::Pursue { agent, pursue }
            } else {
                let mut evade =
                    Evade::new(n.max_prediction.unwrap_or_default()).map_err(lib_err)?;
                evade.prediction = prediction;
                evade.flee =
                    Flee::with(SeekMode::FullAcceleration, n.panic_distance).map_err(lib_err)?;
                Behaviour::Evade { agent, evade }
            }
        }
        "velocity_match" => {
            req("velocity", n.velocity.is_some())?;
            let velocity = xy(&f("velocity"), n.velocity.unwrap_or_default())?;
            let matching = VelocityMatch::new(n.time_to_target.unwrap_or(0.1)).map_err(lib_err)?;
            Behaviour::VelocityMatch { velocity, matching }
        }
        "wander" => {
            req("radius", n.radius.is_some())?;
            req("distance", n.distance.is_some())?;
            req("jitter", n.jitter.is_some())?;
            Behaviour::Wander {
                radius: non_negative(&f("radius"), n.radius.unwrap_or_default())?,
                distance: non_negative(&f("distance"), n.distance.unwrap_or_default())?,
                jitter: non_negative(&f("jitter"), n.jitter.unwrap_or_default())?,
            }
        }
        "kinematic_seek" => Behaviour::KinematicSeek { target: target(path, n, refs)? },
        "kinematic_arrive" => {
            let target = target(path, n, refs)?;
            req("radius", n.radius.is_some())?;
            let radius = non_negative(&f("radius"), n.radius.unwrap_or_default())?;
            let time = positive(&f("time_to_target"), n.time_to_target.unwrap_or(0.25))?;
            let arrive = KinematicArrive::new(radius, time).map_err(lib_err)?;
            Behaviour::KinematicArrive { target, arrive }
        }
        "kinematic_wander" => {
            req("rate", n.rate.is_some())?;
            Behaviour::KinematicWander {
                rate: non_negative(&f("rate"), n.rate.unwrap_or_default())?,
            }
        }
        "separation" => {
            req("threshold", n.threshold.is_some())?;
            let law = n.falloff.as_deref().unwrap_or("inverse_square");
            let falloff = match one_of(
                &f("falloff"),
                law,
                &[("inverse_square", 0), ("linear", 1), ("inverse", 2)],
            )? {
                1 => {
                    if n.decay.is_some() {
                        return Err(problem(
                            f("decay"),
                            "field `decay` does not apply to `falloff = \"linear\"`",
                        ));
                    }
                    Falloff::Linear
                }
                law => {
                    req("decay", n.decay.is_some())?;
                    let k = n.decay.unwrap_or_default();
                    if law == 0 {
                        Falloff::InverseSquare(k)
                    } else {
                        Falloff::Inverse(k)
                    }
                }
            };
            let mut s =
                Separation::new(n.threshold.unwrap_or_default(), falloff).map_err(lib_err)?;
            if let Some(g) = &n.gather {
                s = s.with_gather(one_of(
                    &f("gather"),
                    g,
                    &[("sum", Gather::Sum), ("nearest", Gather::Nearest)],
                )?);
            }
            if let Some(b) = n.buffer {
                s = s.radius_aware(b).map_err(lib_err)?;
            }
            Behaviour::Separation(s)
        }
        "cohesion" => {
            if n.slow_radius.is_some() || n.target_radius.is_some() || n.time_to_target.is_some() {
                Behaviour::Cohesion(Cohesion::Arrive(arrive(path, n, false)?))
            } else {
                Behaviour::Cohesion(Cohesion::Seek(Seek::new()))
            }
        }
        "alignment" => {
            let t = n.time_to_target.unwrap_or(0.1);
            let m = one_of(
                &f("match"),
                n.match_.as_deref().unwrap_or("heading"),
                &[("heading", 0), ("velocity", 1)],
            )?;
            let a = if m == 0 {
                Alignment::heading(t).map_err(lib_err)?
            } else {
                Alignment::Velocity(VelocityMatch::new(t).map_err(lib_err)?)
            };
            Behaviour::Alignment(a)
        }
        "collision_avoidance" => {
            req("margin", n.margin.is_some())?;
            req("horizon", n.horizon.is_some())?;
            let c = CollisionAvoidance::new(
                n.margin.unwrap_or_default(),
                n.horizon.unwrap_or_default(),
            )
            .map_err(lib_err)?;
            Behaviour::CollisionAvoidance(c)
        }
        "follow_path" => {
            req("path", n.path.is_some())?;
            let path_index = refs.path(&f("path"), n.path.as_deref().unwrap_or_default())?;
            req("offset", n.offset.is_some())?;
            let mut follow = FollowPath::new(n.offset.unwrap_or_default()).map_err(lib_err)?;
            if let Some(t) = n.predict_time {
                follow = follow.predictive(t).map_err(lib_err)?;
            }
            Behaviour::FollowPath { path: path_index, follow }
        }
        "blend" | "priority" | "running_sum" => {
            let members = n
                .members
                .as_ref()
                .ok_or_else(|| problem(f("members"), format!("kind `{kind}` needs `members`")))?;
            if members.is_empty() {
                return Err(problem(
                    f("members"),
                    format!("an empty `{kind}` has nothing to combine"),
                ));
            }
            let mut out = Vec::with_capacity(members.len());
            for (i, m) in members.iter().enumerate() {
                let mp = format!("{path}.members[{i}]");
                let b = node(&mp, m, Some(kind), refs, depth + 1)?;
                let w = match m.weight {
                    Some(w) => finite(&join(&mp, "weight"), w)?,
                    None => 1.0,
                };
                out.push((w, b));
            }
            match kind {
                "blend" => Behaviour::Blend(out),
                "running_sum" => Behaviour::RunningSum(out),
                _ => {
                    let epsilon = Epsilon::new(n.epsilon.unwrap_or(1e-3)).map_err(lib_err)?;
                    Behaviour::Priority {
                        groups: out.into_iter().map(|(_, b)| b).collect(),
                        epsilon,
                    }
                }
            }
        }
        "obstacle_avoidance" => Behaviour::ObstacleAvoidance(obstacle_avoidance(path, n)?),
        "wall_feelers" => {
            req("length", n.length.is_some())?;
            let mut w = WallFeelers::new(n.length.unwrap_or_default()).map_err(lib_err)?;
            if n.side_angle.is_some() || n.side_ratio.is_some() {
                w = w
                    .with_sides(
                        n.side_angle.unwrap_or(core::f32::consts::FRAC_PI_4),
                        n.side_ratio.unwrap_or(0.5),
                    )
                    .map_err(lib_err)?;
            }
            Behaviour::WallFeelers(w)
        }
        "hide" => {
            req("agent", n.agent.is_some())?;
            let agent = refs.agent(&f("agent"), n.agent.as_deref().unwrap_or_default())?;
            req("distance", n.distance.is_some())?;
            let mut hide = Hide::new(n.distance.unwrap_or_default()).map_err(lib_err)?;
            if let Some(r) = n.threat_range {
                hide = hide.with_threat_range(r).map_err(lib_err)?;
            }
            Behaviour::Hide { agent, hide }
        }
        "interpose" => {
            req("agent", n.agent.is_some())?;
            req("other_agent", n.other_agent.is_some())?;
            let a = refs.agent(&f("agent"), n.agent.as_deref().unwrap_or_default())?;
            let b = refs.agent(&f("other_agent"), n.other_agent.as_deref().unwrap_or_default())?;
            let interpose = Interpose::new(n.ratio.unwrap_or(0.5), n.max_prediction.unwrap_or(1.0))
                .map_err(lib_err)?;
            Behaviour::Interpose { a, b, interpose }
        }
        "offset_pursuit" => {
            req("agent", n.agent.is_some())?;
            let agent = refs.agent(&f("agent"), n.agent.as_deref().unwrap_or_default())?;
            req("local_offset", n.local_offset.is_some())?;
            let offset = xy(&f("local_offset"), n.local_offset.unwrap_or_default())?;
            let pursuit =
                OffsetPursuit::new(offset, n.max_prediction.unwrap_or(1.0)).map_err(lib_err)?;
            Behaviour::OffsetPursuit { agent, pursuit }
        }
        "dog_on_a_string" | "reprojection" | "grappling_hooks" => {
            req("path", n.path.is_some())?;
            let path_index = refs.path(&f("path"), n.path.as_deref().unwrap_or_default())?;
            let arrive = arrive(path, n, true)?;
            match kind {
                "dog_on_a_string" => {
                    req("string", n.string.is_some())?;
                    let mut dog =
                        DogOnAString::new(n.string.unwrap_or_default(), arrive).map_err(lib_err)?;
                    if let Some(v) = n.leash_speed {
                        dog = dog.with_fixed_speed(v).map_err(lib_err)?;
                    }
                    Behaviour::DogOnAString { path: path_index, dog }
                }
                "reprojection" => {
                    req("path_radius", n.path_radius.is_some())?;
                    let reprojection = Reprojection::new(
                        n.predict_time.unwrap_or(0.5),
                        n.path_radius.unwrap_or_default(),
                        n.ahead.unwrap_or(2.0),
                        arrive,
                    )
                    .map_err(lib_err)?;
                    Behaviour::Reprojection { path: path_index, reprojection }
                }
                _ => {
                    req("closeness", n.closeness.is_some())?;
                    let hooks = GrapplingHooks::new(n.closeness.unwrap_or_default(), arrive)
                        .map_err(lib_err)?;
                    Behaviour::GrapplingHooks { path: path_index, hooks }
                }
            }
        }
        "slot" => {
            let align = Align::new(0.01, 0.5, 0.1).map_err(lib_err)?;
            Behaviour::Slot(SlotSteering::new(arrive(path, n, true)?, align))
        }
        "pipeline" => {
            let goal = target(path, n, refs)?;
            req("grid_min", n.grid_min.is_some())?;
            req("grid_max", n.grid_max.is_some())?;
            req("clearance", n.clearance.is_some())?;
            let min = xy(&f("grid_min"), n.grid_min.unwrap_or_default())?;
            let max = xy(&f("grid_max"), n.grid_max.unwrap_or_default())?;
            if max.x <= min.x || max.y <= min.y {
                return Err(problem(
                    f("grid_max"),
                    format!("`grid_max` ({max}) must exceed `grid_min` ({min}) on both axes"),
                ));
            }
            let cell_size = positive(&f("cell_size"), n.cell_size.unwrap_or(0.5))?;
            let cells = ((max - min) / cell_size).ceil();
            if cells.x * cells.y > 1.0e6 {
                return Err(problem(
                    f("cell_size"),
                    format!(
                        "the grid would have {} cells (at most 1000000): use larger cells",
                        cells.x * cells.y
                    ),
                ));
            }
            let clearance = non_negative(&f("clearance"), n.clearance.unwrap_or_default())?;
            let margin = n.margin.unwrap_or(1.3);
            if margin <= 1.0 {
                return Err(problem(f("margin"), format!("`margin` ({margin}) must be above 1")));
            }
            let constraint_steps = n.constraint_steps.unwrap_or(8) as usize;
            let align = Align::new(0.02, 0.5, 0.1).map_err(lib_err)?;
            Behaviour::Pipeline {
                goal,
                bounds: Aabb::new(min, max),
                cell_size,
                clearance,
                margin,
                constraint_steps,
                actuator: HeadFor::new(arrive(path, n, true)?, align),
            }
        }
        _ => return Err(problem(join(path, "kind"), format!("unknown behaviour kind `{kind}`"))),
    };
    Ok(b)
}

/// `kind = "obstacle_avoidance"`: the ray layout, lengths, the adaptive fan (when
/// `max_half_angle` is given: it widens from `half_angle` at `widen_rate`), the corner
/// commitment and the avoid-target rule.
fn obstacle_avoidance(path: &str, n: &NodeSpec) -> Result<ObstacleAvoidance> {
    let f = |name: &str| join(path, name);
    let fields = &["avoid_distance", "lookahead", "half_angle", "whisker_ratio", "half_width"];
    let lib_err = |e: ParamError| lib(path, fields, &e);
    let rays = n.rays.as_deref().unwrap_or("whiskers");
    let kind =
        one_of(&f("rays"), rays, &[("single", 0u8), ("whiskers", 1), ("parallel", 2), ("fan", 3)])?;
    let only = |name: &str, given: bool, layouts: &str| -> Result<()> {
        if given {
            Err(problem(f(name), format!("field `{name}` applies only to `rays = {layouts}`")))
        } else {
            Ok(())
        }
    };
    only("whisker_ratio", kind != 1 && n.whisker_ratio.is_some(), "\"whiskers\"")?;
    only("half_width", kind != 2 && n.half_width.is_some(), "\"parallel\"")?;
    only("ray_count", kind != 3 && n.ray_count.is_some(), "\"fan\"")?;
    only("half_angle", matches!(kind, 0 | 2) && n.half_angle.is_some(), "\"whiskers\" or \"fan\"")?;
    let half_angle = n.half_angle.unwrap_or(0.5);
    let layout = match kind {
        0 => RayLayout::Single,
        1 => RayLayout::Whiskers { half_angle, whisker_ratio: n.whisker_ratio.unwrap_or(0.5) },
        2 => RayLayout::Parallel { half_width: n.half_width.unwrap_or(0.5) },
        _ => RayLayout::Fan { half_angle, rays: n.ray_count.unwrap_or(3) },
    };
    let avoid = n.avoid_distance.ok_or_else(|| {
        problem(f("avoid_distance"), "kind `obstacle_avoidance` needs `avoid_distance`")
    })?;
    let lookahead = n
        .lookahead
        .ok_or_else(|| problem(f("lookahead"), "kind `obstacle_avoidance` needs `lookahead`"))?;
    let mut a = ObstacleAvoidance::new(layout, avoid, lookahead).map_err(lib_err)?;
    if let Some(t) = n.lookahead_time {
        a = a.with_lookahead_time(t).map_err(lib_err)?;
    }
    match (n.max_half_angle, n.widen_rate) {
        (Some(max), rate) => {
            if matches!(kind, 0 | 2) {
                only("max_half_angle", true, "\"whiskers\" or \"fan\"")?;
            }
            let fan = AdaptiveFan {
                min_half_angle: half_angle,
                max_half_angle: max,
                rate: rate.unwrap_or(2.0),
            };
            a = a.adaptive(fan).map_err(|e| lib(path, &["max_half_angle", "widen_rate"], &e))?;
        }
        (None, Some(_)) => {
            return Err(problem(
                f("widen_rate"),
                "`widen_rate` needs `max_half_angle` (the adaptive fan)",
            ))
        }
        (None, None) => {}
    }
    if let Some(h) = n.commitment {
        a = a.with_commitment(h).map_err(|e| lib(path, &["commitment"], &e))?;
    }
    if let Some(t) = &n.avoid_target {
        a = a.with_target(one_of(
            &f("avoid_target"),
            t,
            &[("lateral", AvoidTarget::Lateral), ("normal", AvoidTarget::Normal)],
        )?);
    }
    Ok(a)
}

fn seek_mode(path: &str, n: &NodeSpec) -> Result<SeekMode> {
    let mode = one_of(
        &join(path, "mode"),
        n.mode.as_deref().unwrap_or("full_acceleration"),
        &[("full_acceleration", 0), ("desired_velocity", 1)],
    )?;
    if mode == 0 {
        if n.time_to_target.is_some() {
            return Err(problem(
                join(path, "time_to_target"),
                "field `time_to_target` applies only with `mode = \"desired_velocity\"`",
            ));
        }
        Ok(SeekMode::FullAcceleration)
    } else {
        let t = positive(&join(path, "time_to_target"), n.time_to_target.unwrap_or(0.1))?;
        Ok(SeekMode::DesiredVelocity { time_to_target: t })
    }
}

/// Arrive's parameters. `ramp_choice`: the approach may be `deceleration_time` or `braking`
/// (arrive itself); cohesion only takes `slow_radius`.
fn arrive(path: &str, n: &NodeSpec, ramp_choice: bool) -> Result<Arrive> {
    let f = |name: &str| join(path, name);
    let target_radius = non_negative(&f("target_radius"), n.target_radius.unwrap_or(0.0))?;
    let time = positive(&f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
    let braking = n.braking.unwrap_or(false);
    let approach = match (n.slow_radius, n.deceleration_time, braking) {
        (Some(r), None, false) => {
            let r = non_negative(&f("slow_radius"), r)?;
            if r < target_radius {
                return Err(problem(
                    f("slow_radius"),
                    format!(
                        "`slow_radius` ({r}) must be at least `target_radius` ({target_radius})"
                    ),
                ));
            }
            Approach::SlowRadius(r)
        }
        (None, Some(t), false) if ramp_choice => {
            Approach::DecelerationTime(positive(&f("deceleration_time"), t)?)
        }
        (None, None, true) if ramp_choice => Approach::Braking,
        (None, None, false) => {
            let need = if ramp_choice {
                "`slow_radius`, `deceleration_time` or `braking = true`"
            } else {
                "`slow_radius`"
            };
            return Err(problem(f("slow_radius"), format!("arriving needs {need}")));
        }
        _ => {
            let field = if n.slow_radius.is_some() && n.deceleration_time.is_some() {
                "deceleration_time"
            } else {
                "braking"
            };
            return Err(problem(
                f(field),
                "give one approach: `slow_radius`, `deceleration_time` or `braking = true`",
            ));
        }
    };
    let arrive = Arrive::with_approach(target_radius, approach, time).map_err(|e| {
        lib(path, &["target_radius", "slow_radius", "deceleration_time", "time_to_target"], &e)
    })?;
    let stop = match &n.stop {
        Some(s) => one_of(&f("stop"), s, &[("brake", Stop::Brake), ("coast", Stop::Coast)])?,
        None => Stop::Brake,
    };
    Ok(arrive.with_stop(stop))
}

fn target(path: &str, n: &NodeSpec, refs: &Refs<'_>) -> Result<TargetRef> {
    let use_goal = n.use_goal.unwrap_or(false);
    match (n.target, &n.agent, use_goal) {
        (Some(p), None, false) => Ok(TargetRef::Point(xy(&join(path, "target"), p)?)),
        (None, Some(a), false) => Ok(TargetRef::Agent(refs.agent(&join(path, "agent"), a)?)),
        (None, None, true) => Ok(TargetRef::Goal),
        (None, None, false) => Err(problem(
            join(path, "target"),
            format!("kind `{}` needs a target: `target = [x, y]`, `agent = \"group:index\"` or `use_goal = true`", n.kind),
        )),
        _ => Err(problem(
            join(path, if n.target.is_some() { "target" } else { "agent" }),
            "give one target: `target`, `agent` or `use_goal = true`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised() {
        assert_eq!(sanitise_name("Crossing Crowds!"), "crossing_crowds_");
        assert_eq!(sanitise_name("../../etc/passwd"), "______etc_passwd");
        assert_eq!(sanitise_name(""), "scenario");
        assert_eq!(sanitise_name("a-b_c9"), "a-b_c9");
    }
}
