//! From the parsed file to checked library values: every number finite and in range, every
//! field applicable to its kind, every reference resolved, every library value built by its
//! validating constructor.

use crate::dim::Dim;
use crate::model::{
    AgentRef, Bounds, FormationPlan, Geometry, GroupPlan, JumpPlan, Metric, MetricsPlan, NamedPath,
    Placement, Plan,
};
use crate::spec::{
    FormationSpec, GoalRuleSpec, GroupSpec, HeadingSpec, LimitsSpec, ObstacleSpec, ScenarioSpec,
    SpawnSpec, WorldSpec, Xy,
};
use std::collections::HashMap;
use steerkit::formation::{ScalablePattern, Shape};
use steerkit::geometry::{Aabb, Circle, Obstacle, Obstacle3, Polygon, Segment, Sphere};
use steerkit::kinematic::{Integration, Limits, Scheme};
use steerkit::math::Rng;
use steerkit::path::{Path as _, Polyline};
use steerkit::three_d::FakeRotation;
use steerkit::{ParamError, Vec2, Vec3};

/// Most agents a scenario may create (all groups together).
pub const MAX_AGENTS: u64 = 1_000_000;
/// Most turrets in a file: each live shell tests every agent each step.
pub const MAX_TURRETS: usize = 1000;
/// Most simulation steps a scenario may ask for.
pub const MAX_STEPS: u64 = 100_000_000;
/// Deepest behaviour tree: the top node is level 0, so 33 levels in all.
pub const MAX_DEPTH: usize = 32;
/// Largest magnitude of any number in a file (lengths in m, speeds, accelerations, times,
/// weights): well inside `f32`, so sums and squares of a few of them stay finite.
pub const MAX_MAGNITUDE: f32 = 1.0e6;
/// Largest magnitude of a coordinate (m): at 100 km an `f32` position still resolves 7.8 mm,
/// so a step of 1 m/s at 60 Hz (16.7 mm) is not lost to rounding.
pub const MAX_COORDINATE: f32 = 1.0e5;
/// Smallest value of a parameter that must be greater than zero (a time constant, a cell
/// size, `dt`): dividing by anything smaller can overflow.
pub const MIN_POSITIVE: f32 = 1.0e-6;
/// Longest name (scenario, group, path), in characters.
pub const MAX_NAME: usize = 64;
/// Longest time step (s).
pub const MAX_DT: f32 = 1.0;
/// Most body area a spawn region may receive, as a multiple of its own area: a crowd piled
/// deeper cannot spread out, and every neighbour query in it then costs O(n).
pub const MAX_SPAWN_DEPTH: f32 = 10.0;
/// Most agents of similar size (radii within a factor of two) whose centres may share one
/// square (cube in 3D) of side twice their largest diameter, however they are placed (spawn
/// regions, rings, lines, grids, shells, `agents` lists, several groups on one spot): a random
/// spawn at [`MAX_SPAWN_DEPTH`] puts about 51 there (2D; 76 in 3D), a pile on one point
/// more, and every neighbour query in a pile costs its size.
pub const MAX_PILE: u32 = 256;

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
    if !v.is_finite() {
        Err(problem(path, format!("must be a finite number, got {v}")))
    } else if v.abs() > MAX_MAGNITUDE {
        Err(problem(path, format!("must be within ±{MAX_MAGNITUDE}, got {v}")))
    } else {
        Ok(v)
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
    if v < MIN_POSITIVE {
        return Err(problem(path, format!("must be at least {MIN_POSITIVE}, got {v}")));
    }
    Ok(v)
}

/// A point or vector of the scenario's space: exactly its number of components, finite,
/// within ±[`MAX_COORDINATE`].
fn point<V: Dim>(path: &str, v: Xy) -> Result<V> {
    match (v.len(), V::DIMS) {
        (3, 2) => {
            return Err(problem(
                path,
                "a 3D point [x, y, z] in a 2D scenario: put `dimensions = 3` at the top of the \
                 file for a 3D world",
            ))
        }
        (2, 3) => {
            return Err(problem(
                path,
                "a 2D point [x, y] in a 3D scenario (`dimensions = 3`): write [x, y, z], y up",
            ))
        }
        (n, d) if n != d => return Err(problem(path, format!("{d} components expected, got {n}"))),
        _ => {}
    }
    for (i, c) in v.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !c.is_finite() {
            finite(&at, *c)?;
        }
        if c.abs() > MAX_COORDINATE {
            return Err(problem(at, format!("must be within ±{MAX_COORDINATE} m, got {c}")));
        }
    }
    Ok(V::from_components(&v))
}

/// A point of the plane (walls, 2D obstacles, formations, the pipeline's grid).
fn xy(path: &str, v: Xy) -> Result<Vec2> {
    point::<Vec2>(path, v)
}

/// A name: non-empty after trimming, at most [`MAX_NAME`] characters, no control characters.
/// A display colour: `#rrggbb`.
fn colour(path: &str, c: &str) -> Result<()> {
    let ok = c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|c| c.is_ascii_hexdigit());
    if ok {
        Ok(())
    } else {
        Err(problem(path, format!("`{c}` is not a colour; write \"#rrggbb\"")))
    }
}

fn name(path: &str, s: &str) -> Result<()> {
    if s.trim().is_empty() {
        return Err(problem(path, "must not be empty"));
    }
    if s.chars().count() > MAX_NAME {
        return Err(problem(path, format!("at most {MAX_NAME} characters")));
    }
    if s.chars().any(char::is_control) {
        return Err(problem(path, "must not contain control characters (newlines, tabs)"));
    }
    Ok(())
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

mod kinds;
mod side_view;
mod turret;
mod vehicle;
pub(crate) use kinds::{node, KINDS, NOT_IN_FILES};

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
            let field = if p.numbers.len() > 1 {
                format!("{}[{i}]", join(path, p.name))
            } else {
                join(path, p.name)
            };
            finite(&field, *n)?;
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
    pub neighbour_radius: f32,
    pub non_penetration_passes: u32,
    pub non_penetration_tolerance: f32,
    pub metrics: MetricsPlan,
    pub space: Space,
}

/// The checked world, in the scenario's dimensions.
#[derive(Clone, Debug)]
pub(crate) enum Space {
    Two(Plan<Vec2>),
    Three(Plan<Vec3>),
}

pub(crate) fn check(spec: &ScenarioSpec) -> Result<Checked> {
    name("name", &spec.name)?;
    let dt = positive("dt", spec.dt)?;
    if dt > MAX_DT {
        return Err(problem("dt", format!("at most {MAX_DT} s, got {dt}")));
    }
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
    let w = &spec.world;
    let neighbour_radius = positive("world.neighbour_radius", w.neighbour_radius)?;
    let passes =
        w.non_penetration_passes.unwrap_or(steerkit::crowd::DEFAULT_NON_PENETRATION_PASSES);
    if passes > 64 {
        return Err(problem("world.non_penetration_passes", format!("at most 64, got {passes}")));
    }
    let tolerance = match w.non_penetration_tolerance {
        Some(t) => non_negative("world.non_penetration_tolerance", t)?,
        None => steerkit::crowd::DEFAULT_NON_PENETRATION_TOLERANCE,
    };
    let metrics = metrics(spec)?;
    let space = match spec.dimensions {
        None | Some(2) => Space::Two(plan(spec)?),
        Some(3) => Space::Three(plan(spec)?),
        Some(d) => return Err(problem("dimensions", format!("must be 2 or 3, got {d}"))),
    };
    Ok(Checked {
        name: spec.name.clone(),
        description: spec.description.clone(),
        seed: spec.seed,
        dt,
        steps,
        neighbour_radius,
        non_penetration_passes: passes,
        non_penetration_tolerance: tolerance,
        metrics,
        space,
    })
}

/// Refuses more than [`MAX_PILE`] bodies of one size class in one cell, whatever placed them:
/// bodies of radius in `[ρ, 2ρ)` (ρ a power of two; below 1 mm counted as 1 mm) share cells
/// of side 4ρ. Classes are kept apart so that many small bodies beside a large one are no
/// pile.
fn piles<V: Dim>(spec: &ScenarioSpec, groups: &[GroupPlan<V>]) -> Result<()> {
    let total: usize = groups.iter().map(|g| g.agents.len()).sum();
    let mut cells: HashMap<(i32, [i64; 3]), u32> = HashMap::with_capacity(total.min(1 << 20));
    for (gi, g) in groups.iter().enumerate() {
        let class = g.radius.max(1e-3).log2().floor();
        let side = 4.0 * class.exp2();
        for (a, p) in g.agents.iter().enumerate() {
            let mut key = [0i64; 3];
            for (i, k) in key.iter_mut().enumerate().take(V::DIMS) {
                *k = (p.position.axis(i) / side).floor() as i64;
            }
            let count = cells.entry((class as i32, key)).or_insert(0);
            *count += 1;
            if *count > MAX_PILE {
                let listed = spec.groups.get(gi).is_some_and(|s| s.agents.is_some());
                let field = if listed {
                    format!("groups[{gi}].agents[{a}].position")
                } else {
                    format!("groups[{gi}].spawn")
                };
                let (square, unit) = if V::DIMS == 2 { ("square", "m") } else { ("cube", "m") };
                return Err(problem(
                    field,
                    format!(
                        "more than {MAX_PILE} bodies of radius about {} m are placed within one \
                         {square} of side {side} {unit} (near {}); at most {MAX_PILE}: a pile \
                         that deep cannot spread out and costs the square of its size every \
                         step; spread them (a larger ring, line, grid or region) or use fewer",
                        g.radius,
                        fmt_point(p.position),
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn fmt_point<V: Dim>(p: V) -> String {
    let parts: Vec<String> = (0..V::DIMS).map(|i| format!("{}", p.axis(i))).collect();
    format!("[{}]", parts.join(", "))
}

/// The world of the file in `V`'s dimensions: bounds, geometry, paths, groups (with every
/// agent placed) and formations.
fn plan<V: Dim>(spec: &ScenarioSpec) -> Result<Plan<V>> {
    let bounds = bounds::<V>(&spec.world)?;
    if V::DIMS == 3 {
        // the 3D crowd has no static world yet, and formations are planar
        let planar = [("walls", spec.walls.is_empty()), ("formations", spec.formations.is_empty())];
        if let Some((key, _)) = planar.iter().find(|(_, empty)| !empty) {
            return Err(problem(*key, format!("`{key}` exist only in 2D scenarios")));
        }
    }
    let side = side_view::side_view(spec, V::DIMS)?;
    let geometry = geometry::<V>(spec)?;
    let paths = paths::<V>(spec)?;

    // group names first: behaviours refer to any group, earlier or later
    let mut group_index: HashMap<&str, usize> = HashMap::new();
    let mut sizes = Vec::with_capacity(spec.groups.len());
    let mut total = 0u64;
    if spec.groups.is_empty() {
        return Err(problem("groups", "a scenario needs at least one group"));
    }
    for (i, g) in spec.groups.iter().enumerate() {
        let path = format!("groups[{i}]");
        name(&join(&path, "name"), &g.name)?;
        if g.name.contains(':') {
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
    let path_names: Vec<&str> = paths.iter().map(|p| p.name.as_str()).collect();
    let looping: Vec<bool> = paths.iter().map(|p| p.polyline.is_looping()).collect();
    let refs = Refs {
        groups: &group_index,
        sizes: &sizes,
        paths: &path_names,
        looping: &looping,
        dims: V::DIMS,
    };

    let solids = V::solids(&geometry).map_err(|e| problem("obstacles", e.to_string()))?;
    let mut rng = Rng::new(spec.seed);
    let mut groups = Vec::with_capacity(spec.groups.len());
    for (i, g) in spec.groups.iter().enumerate() {
        let path = format!("groups[{i}]");
        let plan = group(&path, g, &bounds, &solids, &refs, &mut rng)?;
        match (&side, plan.jump) {
            (None, Some(_)) => {
                return Err(problem(
                    join(&path, "jump"),
                    "jumpers run on platforms: add `[side_view]` and `[[platforms]]`",
                ))
            }
            (Some(view), Some(_)) => {
                for (a, p) in plan.agents.iter().enumerate() {
                    let (x, y) = (p.position.axis(0), p.position.axis(1));
                    if side_view::platform_under(view, x, y).is_none() {
                        return Err(problem(
                            format!("{path}.agents[{a}].position"),
                            format!(
                                "a jumper starts standing on a platform top; ({x}, {y}) is on none"
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
        groups.push(plan);
    }
    piles(spec, &groups)?;
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
    if spec.turrets.len() > MAX_TURRETS {
        return Err(problem(
            "turrets",
            format!("at most {MAX_TURRETS} turrets, got {}", spec.turrets.len()),
        ));
    }
    let mut turrets: Vec<crate::model::TurretPlan> = Vec::with_capacity(spec.turrets.len());
    for (i, ts) in spec.turrets.iter().enumerate() {
        let path = format!("turrets[{i}]");
        let t = turret::turret(&path, ts, &refs)?;
        if turrets.iter().any(|o| o.name == t.name) {
            return Err(problem(
                join(&path, "name"),
                format!("a second turret named `{}`", t.name),
            ));
        }
        turrets.push(t);
    }
    Ok(Plan { bounds, geometry, paths, groups, formations, turrets, side_view: side })
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
    // `None`: a box, whose row length comes from `columns`
    let shape = one_of(
        &f("shape"),
        &fs.shape,
        &[
            ("line", Some(Shape::Line)),
            ("v", Some(Shape::V)),
            ("wedge", Some(Shape::Wedge)),
            ("column", Some(Shape::Column)),
            ("circle", Some(Shape::DefensiveCircle)),
            ("box", None),
        ],
    )?;
    let shape = match (shape, fs.columns) {
        (None, Some(columns)) => Shape::Box { columns: columns as usize },
        (None, None) => {
            return Err(problem(f("columns"), "shape `box` needs `columns` (slots per row)"))
        }
        (Some(_), Some(_)) => {
            return Err(problem(f("columns"), "field `columns` applies only to shape `box`"))
        }
        (Some(shape), None) => shape,
    };
    let pattern = ScalablePattern::new(shape, finite(&f("spacing"), fs.spacing)?)
        .map_err(|e| lib(path, &["spacing", "columns"], &e))?;
    let anchor_limits = limits(&f("anchor_limits"), &fs.anchor_limits)?;
    let anchor = node(&f("anchor"), &fs.anchor, None, refs, 1)?.map(
        &|a| *a,
        &|p| *p,
        &<Vec2 as Dim>::from_file,
    );
    if anchor.uses_goal() {
        return Err(problem(
            f("anchor"),
            "a formation's anchor has no goal: give its target as `target` or `agent`, not \
             `use_goal = true`",
        ));
    }
    Ok(FormationPlan {
        group,
        pattern,
        anchor_position: xy(&f("anchor_position"), fs.anchor_position)?,
        anchor_orientation: finite(&f("anchor_orientation"), fs.anchor_orientation.unwrap_or(0.0))?,
        anchor_limits,
        anchor,
    })
}

fn bounds<V: Dim>(w: &WorldSpec) -> Result<Bounds<V>> {
    Ok(match (w.min, w.max) {
        (None, None) => {
            if w.wrap {
                return Err(problem("world.wrap", "a wrap-around world needs `min` and `max`"));
            }
            Bounds::Unbounded
        }
        (Some(_), None) => return Err(problem("world.max", "`min` is given, so `max` is needed")),
        (None, Some(_)) => return Err(problem("world.min", "`max` is given, so `min` is needed")),
        (Some(min), Some(max)) => {
            let (min, max): (V, V) = (point("world.min", min)?, point("world.max", max)?);
            for i in 0..V::DIMS {
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
    })
}

fn geometry<V: Dim>(spec: &ScenarioSpec) -> Result<Geometry> {
    if V::DIMS == 3 {
        let mut obstacles3 = Vec::with_capacity(spec.obstacles.len());
        for (i, o) in spec.obstacles.iter().enumerate() {
            obstacles3.push(obstacle3(&format!("obstacles[{i}]"), o)?);
        }
        return Ok(Geometry { obstacles3, ..Geometry::default() });
    }
    let mut obstacles = Vec::with_capacity(spec.obstacles.len());
    for (i, o) in spec.obstacles.iter().enumerate() {
        obstacles.push(obstacle(&format!("obstacles[{i}]"), o)?);
    }
    let mut walls = Vec::with_capacity(spec.walls.len());
    for (i, w) in spec.walls.iter().enumerate() {
        let path = format!("walls[{i}]");
        walls.push(Segment::new(xy(&join(&path, "from"), w.from)?, xy(&join(&path, "to"), w.to)?));
    }
    Ok(Geometry { obstacles, walls, obstacles3: Vec::new() })
}

/// A 3D obstacle: `sphere` (`center`, `radius`) or `box` (`min`, `max`).
fn obstacle3(path: &str, o: &ObstacleSpec) -> Result<Obstacle3> {
    let present = present!(o; nums: radius; xys: center, min, max; others: points = "points");
    let what = "obstacle shape";
    let shape = o.shape.as_str();
    match shape {
        "sphere" => {
            applicable(path, what, shape, &present, &["center", "radius"])?;
            let c = point(&join(path, "center"), required(path, what, shape, "center", o.center)?)?;
            // a sphere of radius 0 is no obstacle, and a replay cannot draw it
            let r =
                positive(&join(path, "radius"), required(path, what, shape, "radius", o.radius)?)?;
            Ok(Obstacle3::Sphere(Sphere::new(c, r)))
        }
        "box" => {
            applicable(path, what, shape, &present, &["min", "max"])?;
            let min: Vec3 = point(&join(path, "min"), required(path, what, shape, "min", o.min)?)?;
            let max: Vec3 = point(&join(path, "max"), required(path, what, shape, "max", o.max)?)?;
            for i in 0..3 {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            Ok(Obstacle3::Box(Aabb::new(min, max)))
        }
        other => Err(problem(
            join(path, "shape"),
            format!(
                "unknown obstacle shape `{other}` in a 3D scenario; expected `sphere` or `box`"
            ),
        )),
    }
}

fn obstacle(path: &str, o: &ObstacleSpec) -> Result<Obstacle> {
    let points =
        o.points.as_ref().map(|p| p.iter().flat_map(|q| q.iter().copied()).collect::<Vec<f32>>());
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

fn paths<V: Dim>(spec: &ScenarioSpec) -> Result<Vec<NamedPath<V>>> {
    let mut out: Vec<NamedPath<V>> = Vec::with_capacity(spec.paths.len());
    for (i, p) in spec.paths.iter().enumerate() {
        let path = format!("paths[{i}]");
        name(&join(&path, "name"), &p.name)?;
        if out.iter().any(|q| q.name == p.name) {
            return Err(problem(join(&path, "name"), format!("a second path named `{}`", p.name)));
        }
        if p.points.len() < 2 {
            return Err(problem(join(&path, "points"), "a path needs at least two points"));
        }
        let mut pts = Vec::with_capacity(p.points.len());
        for (j, q) in p.points.iter().enumerate() {
            pts.push(point::<V>(&format!("{path}.points[{j}]"), *q)?);
        }
        let window = positive(&join(&path, "search_window"), p.search_window.unwrap_or(10.0))?;
        let polyline = Polyline::new(pts, p.looping)
            .map_err(|e| problem(join(&path, "points"), e.to_string()))?
            .with_search_window(Some(window))
            .map_err(|e| problem(join(&path, "search_window"), e.to_string()))?;
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

/// Refuses a file of more than `max` agents from its counts and lists alone, before any agent
/// is placed (a program with a smaller cap than [`MAX_AGENTS`] refuses a huge file cheaply).
pub(crate) fn agent_cap(spec: &ScenarioSpec, max: usize) -> Result<()> {
    let mut total = 0u64;
    for (i, g) in spec.groups.iter().enumerate() {
        let (n, key) = match (&g.agents, g.count) {
            (Some(a), _) => (a.len() as u64, "agents"),
            (None, Some(n)) => (u64::from(n), "count"),
            (None, None) => (0, "count"),
        };
        total = total.saturating_add(n);
        if total > max as u64 {
            return Err(problem(
                format!("groups[{i}].{key}"),
                format!("{total} agents in all is more than allowed here (at most {max})"),
            ));
        }
    }
    Ok(())
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

pub(crate) struct Refs<'a> {
    groups: &'a HashMap<&'a str, usize>,
    sizes: &'a [usize],
    paths: &'a [&'a str],
    /// Whether each path loops (a looping route is never finished).
    looping: &'a [bool],
    /// The scenario's dimensions (2 or 3).
    pub dims: usize,
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

    /// True when path `index` loops.
    pub(crate) fn looping(&self, index: usize) -> bool {
        self.looping.get(index).copied().unwrap_or(false)
    }

    fn path(&self, path: &str, name: &str) -> Result<usize> {
        self.paths.iter().position(|p| *p == name).ok_or_else(|| {
            let list = if self.paths.is_empty() {
                "there are no paths".to_owned()
            } else {
                format!("paths: {}", self.paths.join(", "))
            };
            problem(path, format!("no path named `{name}` ({list})"))
        })
    }
}

/// Tries per spawned agent to find a place outside the solid obstacles.
const SPAWN_TRIES: usize = 64;
/// Tries per spawned agent with a minimum spacing (each test looks at a few grid cells).
const SPACED_TRIES: usize = 1024;

fn group<V: Dim>(
    path: &str,
    g: &GroupSpec,
    bounds: &Bounds<V>,
    solids: &V::Solids,
    refs: &Refs<'_>,
    rng: &mut Rng,
) -> Result<GroupPlan<V>> {
    if let Some(c) = &g.colour {
        colour(&join(path, "colour"), c)?;
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
    let goal: Option<V> = match g.goal {
        Some(p) => Some(point(&join(path, "goal"), p)?),
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
    // ORCA's velocity is collision-free for the step only if the agent moves with it
    let default_scheme = if g.orca.is_some() { "semi_implicit" } else { "newton_euler" };
    let scheme = one_of(
        &join(path, "integration"),
        g.integration.as_deref().unwrap_or(default_scheme),
        &[
            ("newton_euler", Scheme::NewtonEuler1),
            ("exact", Scheme::Exact),
            ("semi_implicit", Scheme::SemiImplicit),
        ],
    )?;
    if g.orca.is_some() && scheme != Scheme::SemiImplicit {
        return Err(problem(
            join(path, "integration"),
            "an ORCA group moves with the velocity ORCA picks: `integration = \"semi_implicit\"` (the default with `orca`)",
        ));
    }
    let linear_drag = non_negative(&join(path, "linear_drag"), g.linear_drag.unwrap_or(0.0))?;
    let angular_drag = non_negative(&join(path, "angular_drag"), g.angular_drag.unwrap_or(0.0))?;
    let integration = Integration::new(scheme, linear_drag, angular_drag)
        .map_err(|e| lib(path, &["linear_drag", "angular_drag"], &e))?;
    let fake_rotation = match g.fake_rotation {
        None => None,
        Some(_) if V::DIMS == 2 => {
            return Err(problem(
                join(path, "fake_rotation"),
                "faked rotation axes bank and pitch a body in 3D: only in 3D scenarios",
            ))
        }
        Some(_) if g.face_motion == Some(false) => return Err(problem(
            join(path, "fake_rotation"),
            "faked rotation axes turn a body that faces its motion: not with `face_motion = false`",
        )),
        Some(f) => {
            let fp = join(path, "fake_rotation");
            let blend = non_negative(&join(&fp, "blend_speed"), f.blend_speed)?;
            let roll = non_negative(&join(&fp, "roll_scale"), f.roll_scale)?;
            let fake = FakeRotation::new(blend, roll)
                .map_err(|e| lib(&fp, &["blend_speed", "roll_scale"], &e))?;
            Some(fake.roll_outward(f.roll_outward).with_pitch(f.pitch.unwrap_or(true)))
        }
    };
    let nearest_neighbours = match g.nearest_neighbours {
        Some(0) => {
            return Err(problem(
                join(path, "nearest_neighbours"),
                "at least 1 (the group sums see that many nearest neighbours)",
            ))
        }
        other => other,
    };
    let orca = match &g.orca {
        None => None,
        Some(o) => Some(orca(&join(path, "orca"), o)?),
    };
    let vehicle = match &g.vehicle {
        Some(v) => Some(vehicle::vehicle(&join(path, "vehicle"), v, V::DIMS)?),
        None => None,
    };
    let jump = match (&g.jump, &g.behaviour) {
        (Some(_), Some(_)) => {
            return Err(problem(
                join(path, "behaviour"),
                "a jumper (`jump`) is moved by its run-up and jump, not by a behaviour: remove one",
            ))
        }
        (None, None) => {
            return Err(problem(path, "a group needs a `behaviour` (or, in a side view, `jump`)"))
        }
        (Some(j), None) => {
            // a jumper's run-up is at max_speed: the jump planner needs it above zero
            positive(&join(&lp, "max_speed"), l.max_speed).map_err(|e| Problem {
                message: format!("{} (a jumper runs at its max_speed)", e.message),
                ..e
            })?;
            Some(JumpPlan { jump_speed: positive(&join(path, "jump.jump_speed"), j.jump_speed)? })
        }
        (None, Some(_)) => None,
    };
    let behaviour = match &g.behaviour {
        Some(b) => {
            node(&join(path, "behaviour"), b, None, refs, 0)?.map(&|a| *a, &|p| *p, &V::from_file)
        }
        // a jumper's recipe is inert: the runner sets its motion every step
        None => steerkit::crowd::Recipe::VelocityMatch {
            velocity: V::ZERO,
            matching: steerkit::steering::VelocityMatch::new(0.1)
                .map_err(|e| problem(path, e.to_string()))?,
        },
    };

    let agents = match (&g.agents, g.count, &g.spawn) {
        (Some(list), _, _) => {
            let mut out = Vec::with_capacity(list.len());
            for (i, a) in list.iter().enumerate() {
                let ap = format!("{path}.agents[{i}]");
                let position: V = point(&join(&ap, "position"), a.position)?;
                if !bounds.contains(position) {
                    return Err(problem(
                        join(&ap, "position"),
                        "the agent starts outside the world's bounds",
                    ));
                }
                if V::inside_solid(solids, position) {
                    return Err(problem(
                        join(&ap, "position"),
                        "the agent starts inside a solid obstacle",
                    ));
                }
                let velocity = match a.velocity {
                    Some(v) => point(&join(&ap, "velocity"), v)?,
                    None => V::ZERO,
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
                let heading = match a.orientation {
                    Some(o) => finite(&join(&ap, "orientation"), o)?,
                    None => 0.0,
                };
                let orientation = V::heading(heading).0;
                let goal = match a.goal {
                    Some(p) => Some(point(&join(&ap, "goal"), p)?),
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
            (radius, limits.max_speed()),
            goal,
            rng,
        )?,
        _ => unreachable_group(path)?,
    };
    let mut agents = agents;
    if let Some(rule) = &g.goal_rule {
        if g.goal.is_some() {
            return Err(problem(
                join(path, "goal_rule"),
                "give either a group `goal` or a `goal_rule`, not both",
            ));
        }
        goal_rule(&join(path, "goal_rule"), rule, g.spawn.as_ref(), &mut agents, rng)?;
    }
    if behaviour.uses_goal() && agents.iter().all(|a| a.goal.is_none()) {
        return Err(problem(
            join(path, "goal"),
            "the behaviour steers for the agents' goal (`use_goal = true`), but no agent of the \
             group has one: give the group a `goal` or its agents goals",
        ));
    }
    if let (Some(_), Some(kind)) = (&vehicle, behaviour.kinematic_kind()) {
        return Err(problem(
            join(path, "vehicle"),
            format!(
                "a vehicle is driven by steering requests; the kinematic `{kind}` sets the \
                 velocity itself"
            ),
        ));
    }
    Ok(GroupPlan {
        name: g.name.clone(),
        colour: g.colour.clone(),
        radius,
        limits,
        agents,
        behaviour,
        arrive_radius,
        remove_on_arrival: one_of(
            &join(path, "on_arrival"),
            g.on_arrival.as_deref().unwrap_or("stay"),
            &[("stay", false), ("remove", true)],
        )?,
        non_penetration: g.non_penetration,
        view_half_angle,
        face_motion: g.face_motion.unwrap_or(true),
        heading_smoothing,
        integration,
        fake_rotation,
        vehicle,
        jump,
        nearest_neighbours,
        orca,
    })
}

/// A group's `orca = { ... }`.
fn orca(op: &str, o: &crate::spec::OrcaSpec) -> Result<steerkit::steering::Orca> {
    use steerkit::steering::Orca;
    let horizon = positive(&join(op, "time_horizon"), o.time_horizon.unwrap_or(10.0))?;
    let k = o.max_neighbours.unwrap_or(10);
    let mut orca =
        Orca::new(horizon, k).map_err(|e| lib(op, &["time_horizon", "max_neighbours"], &e))?;
    if let Some(t) = o.obstacle_time_horizon {
        let t = positive(&join(op, "obstacle_time_horizon"), t)?;
        orca = orca
            .with_obstacle_time_horizon(t)
            .map_err(|e| lib(op, &["obstacle_time_horizon"], &e))?;
    }
    if let Some(p) = o.priority {
        let p = positive(&join(op, "priority"), p)?;
        orca = orca.with_priority(p).map_err(|e| lib(op, &["priority"], &e))?;
    }
    if let Some(f) = o.arrived_priority {
        let f = positive(&join(op, "arrived_priority"), f)?;
        orca = orca.with_arrived_priority(f).map_err(|e| lib(op, &["arrived_priority"], &e))?;
    }
    let bits = |key: &str, list: &Option<Vec<u32>>, default: u32| -> Result<u32> {
        let Some(list) = list else { return Ok(default) };
        let mut bits = 0u32;
        for (i, &layer) in list.iter().enumerate() {
            if layer > 31 {
                return Err(problem(
                    format!("{}[{i}]", join(op, key)),
                    format!("a layer number from 0 to 31, got {layer}"),
                ));
            }
            bits |= 1 << layer;
        }
        Ok(bits)
    };
    let layers = bits("layers", &o.layers, 1)?;
    let mask = bits("avoid_layers", &o.avoid_layers, u32::MAX)?;
    Ok(orca.with_layers(layers, mask).with_escape(o.escape.unwrap_or(false)))
}

/// `group_size` has already rejected every other combination.
fn unreachable_group<V: Dim>(path: &str) -> Result<Vec<Placement<V>>> {
    Err(problem(path, "the group has no agents"))
}

fn spawn_agents<V: Dim>(
    path: &str,
    s: &SpawnSpec,
    n: u32,
    (bounds, solids): (&Bounds<V>, &V::Solids),
    (body, max_speed): (f32, f32),
    goal: Option<V>,
    rng: &mut Rng,
) -> Result<Vec<Placement<V>>> {
    let mut present = present!(s;
        nums: radius, spacing, min_spacing, start_angle;
        xys: min, max, center, speed, from, to;
        others: heading = "heading", columns = "columns");
    if let Some(HeadingSpec::Angle(a)) = s.heading {
        if let Some(p) = present.iter_mut().find(|p| p.name == "heading") {
            p.numbers.push(a);
        }
    }
    let what = "spawn shape";
    let shape = s.shape.as_str();
    let speed = spawn_speed(path, s.speed, max_speed)?;
    if let Some(positions) = pattern::<V>(path, s, n, &present)? {
        // a pattern's places are exact: each must be in the world and outside the solids
        let mut out = Vec::with_capacity(positions.len());
        for (k, position) in positions.into_iter().enumerate() {
            if !bounds.contains(position) || V::inside_solid(solids, position) {
                return Err(problem(
                    path,
                    format!(
                        "agent {k} of the {shape} lies outside the world or inside a solid \
                         obstacle"
                    ),
                ));
            }
            out.push(start(position, s.heading, speed, goal, rng));
        }
        return Ok(out);
    }
    let min_spacing = match s.min_spacing {
        Some(d) => Some(positive(&join(path, "min_spacing"), d)?),
        None => None,
    };
    // the region as a box to draw from, and the disc or ball it must fall in
    let random = ["heading", "speed", "min_spacing"];
    let (mut lo, mut hi, ball): (V, V, _) = if shape == V::BOX {
        applicable(path, what, shape, &present, &[&["min", "max"][..], &random].concat())?;
        let min: V = point(&join(path, "min"), required(path, what, shape, "min", s.min)?)?;
        let max: V = point(&join(path, "max"), required(path, what, shape, "max", s.max)?)?;
        for i in 0..V::DIMS {
            if max[i] < min[i] {
                return Err(problem(
                    format!("{path}.max[{i}]"),
                    format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                ));
            }
        }
        (min, max, None)
    } else if shape == V::BALL {
        applicable(path, what, shape, &present, &[&["center", "radius"][..], &random].concat())?;
        let c: V = point(&join(path, "center"), required(path, what, shape, "center", s.center)?)?;
        let r =
            non_negative(&join(path, "radius"), required(path, what, shape, "radius", s.radius)?)?;
        (c - V::splat(r), c + V::splat(r), Some((c, r)))
    } else {
        let patterns =
            if V::DIMS == 3 { "`ring`, `shell`, `line`, `grid`" } else { "`ring`, `line`, `grid`" };
        return Err(problem(
            join(path, "shape"),
            format!(
                "unknown spawn shape `{shape}`; expected `{}`, `{}` (random) or {patterns}",
                V::BOX,
                V::BALL
            ),
        ));
    };
    // a region larger than the world is fine: draw from the part inside the world
    if let Some((min, max)) = bounds.corners() {
        lo = lo.max(min);
        hi = hi.min(max);
        if (0..V::DIMS).any(|i| lo[i] > hi[i]) && n > 0 {
            return Err(problem(path, "the spawn region lies outside the world"));
        }
    }
    // bodies piled deeper than this can never spread out, and every neighbour query in the
    // pile then costs O(n): refuse them instead of running for ever
    let region = match ball {
        Some((_, r)) => V::ball_measure(r),
        None => (0..V::DIMS).map(|i| hi[i] - lo[i]).product(),
    };
    let bodies = n as f32 * V::ball_measure(body);
    let capacity = MAX_SPAWN_DEPTH * region.max(V::ball_measure(body));
    if bodies > capacity {
        let unit = if V::DIMS == 2 { "m²" } else { "m³" };
        return Err(problem(
            path,
            format!(
                "{n} bodies of radius {body} m cover {bodies:.0} {unit}, more than \
                 {MAX_SPAWN_DEPTH} times the spawn region's {region:.0} {unit} (inside the \
                 world): use a larger region, fewer agents or smaller bodies"
            ),
        ));
    }
    let mut out = Vec::with_capacity(n as usize);
    let mut spaced = min_spacing.map(Spacing::new);
    // near a full region most draws land beside a taken place: try longer before giving up
    let tries = if spaced.is_some() { SPACED_TRIES } else { SPAWN_TRIES };
    for k in 0..n {
        let mut found = None;
        for _ in 0..tries {
            let mut c = [0.0f32; 3];
            for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
                *c = lo[i] + (hi[i] - lo[i]) * rng.uniform();
            }
            let p = V::from_components(&c);
            let in_ball = ball.is_none_or(|(c, r)| (p - c).length_squared() <= r * r);
            let apart = spaced.as_ref().is_none_or(|sp| sp.clear(p));
            if in_ball && apart && bounds.contains(p) && !V::inside_solid(solids, p) {
                found = Some(p);
                break;
            }
        }
        if let (Some(sp), None) = (&spaced, found) {
            return Err(problem(
                join(path, "min_spacing"),
                format!(
                    "placed {k} of {n} agents {} m apart, then no free place in {SPACED_TRIES} \
                     tries: the region cannot hold {n} at that spacing; use a larger region, \
                     fewer agents or a smaller min_spacing",
                    sp.spacing
                ),
            ));
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
        if let Some(sp) = &mut spaced {
            sp.insert(position);
        }
        out.push(start(position, s.heading, speed, goal, rng));
    }
    Ok(out)
}

/// Goals by rule for the agents that have none of their own:
/// - `antipode`: through `center` (default: the spawn's centre), `goal = 2·center − position`;
/// - `mirror`: across the line (3D: plane) where the `axis` coordinate (`"x"`, `"y"`, `"z"`)
///   equals `at` (default 0);
/// - `offset`: `goal = position + offset`;
/// - `scatter`: a point drawn in the box `min`–`max` (from the scenario seed), with
///   `min_spacing` at least that far (m) from every other goal the rule draws;
/// - `rows` (a `grid` spawn): row `r` heads for `points[r]` (cycling), each agent keeping its
///   place in the row (`goal = points[r] + position − row start`).
fn goal_rule<V: Dim>(
    path: &str,
    r: &GoalRuleSpec,
    spawn: Option<&SpawnSpec>,
    agents: &mut [Placement<V>],
    rng: &mut Rng,
) -> Result<()> {
    let present = present!(r; nums: at, min_spacing; xys: center, offset, min, max; others: axis = "axis", points = "points");
    let (what, rule) = ("goal rule", r.rule.as_str());
    let need = |name: &str, v: Option<Xy>| -> Result<V> {
        point(&join(path, name), required(path, what, rule, name, v)?)
    };
    let free = agents.iter_mut().filter(|a| a.goal.is_none());
    match rule {
        "antipode" => {
            applicable(path, what, rule, &present, &["center"])?;
            let center: V = match (r.center, spawn.and_then(|s| s.center)) {
                (Some(c), _) => point(&join(path, "center"), c)?,
                (None, Some(c)) => point(&join(path, "center"), c)?,
                (None, None) => {
                    return Err(problem(
                        join(path, "center"),
                        "goal rule `antipode` needs `center` (the spawn has none)",
                    ))
                }
            };
            for a in free {
                a.goal = Some(center * 2.0f32 - a.position);
            }
        }
        "mirror" => {
            applicable(path, what, rule, &present, &["axis", "at"])?;
            let axes: &[(&str, usize)] =
                if V::DIMS == 3 { &[("x", 0), ("y", 1), ("z", 2)] } else { &[("x", 0), ("y", 1)] };
            let axis = one_of(
                &join(path, "axis"),
                required(path, what, rule, "axis", r.axis.as_deref())?,
                axes,
            )?;
            let at = finite(&join(path, "at"), r.at.unwrap_or(0.0))?;
            for a in free {
                let mut c = [0.0f32; 3];
                for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
                    *c = if i == axis { 2.0 * at - a.position[i] } else { a.position[i] };
                }
                a.goal = Some(V::from_components(&c[..V::DIMS]));
            }
        }
        "offset" => {
            applicable(path, what, rule, &present, &["offset"])?;
            let offset = need("offset", r.offset)?;
            for a in free {
                a.goal = Some(a.position + offset);
            }
        }
        "scatter" => {
            applicable(path, what, rule, &present, &["min", "max", "min_spacing"])?;
            let (min, max) = (need("min", r.min)?, need("max", r.max)?);
            let mut spaced = match r.min_spacing {
                Some(d) => Some(Spacing::<V>::new(positive(&join(path, "min_spacing"), d)?)),
                None => None,
            };
            for i in 0..V::DIMS {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            let mut draw = || {
                let mut c = [0.0f32; 3];
                for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
                    *c = min[i] + (max[i] - min[i]) * rng.uniform();
                }
                V::from_components(&c[..V::DIMS])
            };
            for (k, a) in free.enumerate() {
                let Some(sp) = spaced.as_mut() else {
                    a.goal = Some(draw());
                    continue;
                };
                let Some(goal) = (0..SPACED_TRIES).map(|_| draw()).find(|&g| sp.clear(g)) else {
                    return Err(problem(
                        join(path, "min_spacing"),
                        format!(
                            "placed {k} goals {} m apart, then no free place in {SPACED_TRIES} \
                             tries: the box cannot hold them all at that spacing; use a larger \
                             box or a smaller min_spacing",
                            sp.spacing
                        ),
                    ));
                };
                sp.insert(goal);
                a.goal = Some(goal);
            }
        }
        "rows" => {
            applicable(path, what, rule, &present, &["points"])?;
            let columns = match spawn {
                Some(s) if s.shape == "grid" => s.columns.unwrap_or(1).max(1) as usize,
                _ => {
                    return Err(problem(
                        join(path, "rule"),
                        "goal rule `rows` needs a `grid` spawn (its rows head for the points)",
                    ))
                }
            };
            let points = r.points.as_deref().unwrap_or_default();
            if points.is_empty() {
                return Err(problem(
                    join(path, "points"),
                    "goal rule `rows` needs at least one point",
                ));
            }
            let mut targets = Vec::with_capacity(points.len());
            for (i, q) in points.iter().enumerate() {
                targets.push(point::<V>(&format!("{path}.points[{i}]"), *q)?);
            }
            let starts: Vec<V> = agents.iter().step_by(columns).map(|a| a.position).collect();
            for (k, a) in agents.iter_mut().enumerate() {
                if a.goal.is_none() {
                    let row = k / columns;
                    a.goal = Some(targets[row % targets.len()] + a.position - starts[row]);
                }
            }
        }
        other => {
            return Err(problem(
                join(path, "rule"),
                format!(
                    "unknown goal rule `{other}`; expected `antipode`, `mirror`, `offset`, \
                     `scatter` or `rows`"
                ),
            ))
        }
    }
    Ok(())
}

/// An agent's start at `position`: its heading (drawn when random) and speed (drawn from the
/// range, along the heading).
fn start<V: Dim>(
    position: V,
    heading: Option<HeadingSpec>,
    speed: Option<(f32, f32)>,
    goal: Option<V>,
    rng: &mut Rng,
) -> Placement<V> {
    let heading = match heading {
        Some(HeadingSpec::Angle(a)) => a,
        Some(HeadingSpec::Random) => core::f32::consts::TAU * rng.uniform() - core::f32::consts::PI,
        None => 0.0,
    };
    let (orientation, facing) = V::heading(heading);
    let velocity = match speed {
        Some((lo, hi)) => facing * (lo + (hi - lo) * rng.uniform()),
        None => V::ZERO,
    };
    Placement { position, velocity, orientation, goal }
}

/// The spawn's `speed = [min, max]`, checked against the group's top speed.
fn spawn_speed(path: &str, speed: Option<[f32; 2]>, max_speed: f32) -> Result<Option<(f32, f32)>> {
    let Some([lo, hi]) = speed else { return Ok(None) };
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
    Ok(Some((lo, hi)))
}

/// The places of a patterned spawn, in order, or `None` for a random region:
/// - `ring`: evenly on a circle of `radius` round `center`, from `start_angle` (rad,
///   counter-clockwise from +x; in 3D a ground heading, the ring lying flat at the centre's
///   height);
/// - `shell` (3D): evenly over a sphere's surface (a Fibonacci lattice);
/// - `line`: evenly from `from` to `to`, both ends included (one agent: the midpoint);
/// - `grid`: rows of `columns` agents `spacing` m apart from the corner `min`, along +x, rows
///   along +y (3D: +z).
fn pattern<V: Dim>(
    path: &str,
    s: &SpawnSpec,
    n: u32,
    present: &[Present],
) -> Result<Option<Vec<V>>> {
    let (what, shape) = ("spawn shape", s.shape.as_str());
    let motion = ["heading", "speed"];
    let n_f = n as f32;
    let need = |name: &str, v: Option<Xy>| -> Result<V> {
        point(&join(path, name), required(path, what, shape, name, v)?)
    };
    let positions = match shape {
        "ring" => {
            applicable(
                path,
                what,
                shape,
                present,
                &[&["center", "radius", "start_angle"][..], &motion].concat(),
            )?;
            let c = need("center", s.center)?;
            let r = non_negative(
                &join(path, "radius"),
                required(path, what, shape, "radius", s.radius)?,
            )?;
            let a0 = finite(&join(path, "start_angle"), s.start_angle.unwrap_or(0.0))?;
            (0..n)
                .map(|k| {
                    let a = a0 + core::f32::consts::TAU * k as f32 / n_f;
                    c + V::heading(a).1 * r
                })
                .collect()
        }
        "shell" if V::DIMS == 3 => {
            applicable(path, what, shape, present, &[&["center", "radius"][..], &motion].concat())?;
            let c = need("center", s.center)?;
            let r = non_negative(
                &join(path, "radius"),
                required(path, what, shape, "radius", s.radius)?,
            )?;
            let golden = core::f32::consts::PI * (3.0 - 5f32.sqrt());
            (0..n)
                .map(|k| {
                    let y = if n > 1 { 1.0 - 2.0 * k as f32 / (n_f - 1.0) } else { 0.0 };
                    let ring = (1.0 - y * y).max(0.0).sqrt();
                    let a = golden * k as f32;
                    c + V::from_components(&[ring * a.cos() * r, y * r, ring * a.sin() * r])
                })
                .collect()
        }
        "line" => {
            applicable(path, what, shape, present, &[&["from", "to"][..], &motion].concat())?;
            let (a, b) = (need("from", s.from)?, need("to", s.to)?);
            (0..n)
                .map(|k| {
                    let t = if n > 1 { k as f32 / (n_f - 1.0) } else { 0.5 };
                    a + (b - a) * t
                })
                .collect()
        }
        "grid" => {
            applicable(
                path,
                what,
                shape,
                present,
                &[&["min", "spacing", "columns"][..], &motion].concat(),
            )?;
            let origin = need("min", s.min)?;
            let spacing = positive(
                &join(path, "spacing"),
                required(path, what, shape, "spacing", s.spacing)?,
            )?;
            let columns = required(path, what, shape, "columns", s.columns)?;
            if columns == 0 {
                return Err(problem(join(path, "columns"), "must be at least 1"));
            }
            let row_axis = if V::DIMS == 3 { 2 } else { 1 };
            (0..n)
                .map(|k| {
                    let mut c = [0.0f32; 3];
                    c[0] = (k % columns) as f32 * spacing;
                    c[row_axis] = (k / columns) as f32 * spacing;
                    origin + V::from_components(&c[..V::DIMS])
                })
                .collect()
        }
        _ => return Ok(None),
    };
    Ok(Some(positions))
}

/// Places already taken by a spawn with a minimum spacing, hashed by cells of that size, so
/// each test looks at the 3^d cells around a point.
struct Spacing<V> {
    spacing: f32,
    cells: HashMap<[i64; 3], Vec<V>>,
}

impl<V: Dim> Spacing<V> {
    fn new(spacing: f32) -> Self {
        Spacing { spacing, cells: HashMap::new() }
    }

    fn cell(&self, p: V) -> [i64; 3] {
        let mut c = [0i64; 3];
        for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
            *c = (p[i] / self.spacing).floor() as i64;
        }
        c
    }

    /// True when no place taken lies closer than the spacing.
    fn clear(&self, p: V) -> bool {
        let c = self.cell(p);
        let span = |i: usize| if i < V::DIMS { -1..=1 } else { 0..=0 };
        for dx in span(0) {
            for dy in span(1) {
                for dz in span(2) {
                    let key = [c[0] + dx, c[1] + dy, c[2] + dz];
                    let near = self.cells.get(&key).into_iter().flatten();
                    if near
                        .into_iter()
                        .any(|&q| (q - p).length_squared() < self.spacing * self.spacing)
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn insert(&mut self, p: V) {
        let c = self.cell(p);
        self.cells.entry(c).or_default().push(p);
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
