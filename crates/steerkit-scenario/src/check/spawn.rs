//! Placing a group's agents: from an `agents` list, or spawned in a random region (box, disc,
//! ball) or a pattern (ring, shell, line, grid), with their start heading and speed.

use super::values::{
    applicable, finite, join, non_negative, point, positive, present, problem, required, Present,
};
use super::{Result, MAX_SPAWN_DEPTH};
use crate::dim::Dim;
use crate::model::{Bounds, Placement};
use crate::spec::{AgentSpecFile, HeadingSpec, SpawnSpec, Xy};
use std::collections::HashMap;
use steerkit::math::Rng;

/// Tries per spawned agent to find a place outside the solid obstacles.
const SPAWN_TRIES: usize = 64;
/// Tries per spawned agent with a minimum spacing (each test looks at a few grid cells).
pub(super) const SPACED_TRIES: usize = 1024;

/// The agents of an `agents` list: each inside the world and outside the solids, no faster
/// than the group's `max_speed`; an agent without a goal of its own takes the group's.
pub(super) fn listed_agents<V: Dim>(
    path: &str,
    list: &[AgentSpecFile],
    (bounds, solids): (&Bounds<V>, &V::Solids),
    max_speed: f32,
    goal: Option<V>,
) -> Result<Vec<Placement<V>>> {
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
            return Err(problem(join(&ap, "position"), "the agent starts inside a solid obstacle"));
        }
        let velocity = match a.velocity {
            Some(v) => point(&join(&ap, "velocity"), v)?,
            None => V::ZERO,
        };
        if velocity.length() > max_speed * (1.0 + 1e-6) {
            return Err(problem(
                join(&ap, "velocity"),
                format!("speed {} is above the group's max_speed {}", velocity.length(), max_speed),
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
    Ok(out)
}

/// A spawned group's agents: at the places of a pattern, or drawn at random in a region (box,
/// disc or ball) inside the world and outside the solids, at least `min_spacing` apart.
pub(super) fn spawn_agents<V: Dim>(
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
    let region = region::<V>(path, s, &present, bounds, n)?;
    depth(path, n, body, &region)?;
    let mut out = Vec::with_capacity(n as usize);
    let mut spaced = min_spacing.map(Spacing::new);
    for k in 0..n {
        let position = draw(path, (k, n), &region, (bounds, solids), spaced.as_ref(), rng)?;
        if let Some(sp) = &mut spaced {
            sp.insert(position);
        }
        out.push(start(position, s.heading, speed, goal, rng));
    }
    Ok(out)
}

/// A random spawn's region: the box to draw from (the part inside the world), and the disc or
/// ball (centre, radius) a drawn place must fall in.
struct Region<V> {
    lo: V,
    hi: V,
    ball: Option<(V, f32)>,
}

/// The region of a random spawn (`V::BOX` or `V::BALL`), cut to the world.
fn region<V: Dim>(
    path: &str,
    s: &SpawnSpec,
    present: &[Present],
    bounds: &Bounds<V>,
    n: u32,
) -> Result<Region<V>> {
    let what = "spawn shape";
    let shape = s.shape.as_str();
    // the region as a box to draw from, and the disc or ball it must fall in
    let random = ["heading", "speed", "min_spacing"];
    let (mut lo, mut hi, ball): (V, V, _) = if shape == V::BOX {
        applicable(path, what, shape, present, &[&["min", "max"][..], &random].concat())?;
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
        applicable(path, what, shape, present, &[&["center", "radius"][..], &random].concat())?;
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
    Ok(Region { lo, hi, ball })
}

/// Refuses `n` bodies of radius `body` piled deeper than [`MAX_SPAWN_DEPTH`] in the region.
fn depth<V: Dim>(path: &str, n: u32, body: f32, r: &Region<V>) -> Result<()> {
    // bodies piled deeper than this can never spread out, and every neighbour query in the
    // pile then costs O(n): refuse them instead of running for ever
    let region = match r.ball {
        Some((_, r)) => V::ball_measure(r),
        None => (0..V::DIMS).map(|i| r.hi[i] - r.lo[i]).product(),
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
    Ok(())
}

/// Agent `k` of `n`'s place, drawn in the region until it falls in the disc or ball, in the
/// world, outside the solids and clear of the places taken (`spaced`).
fn draw<V: Dim>(
    path: &str,
    (k, n): (u32, u32),
    r: &Region<V>,
    (bounds, solids): (&Bounds<V>, &V::Solids),
    spaced: Option<&Spacing<V>>,
    rng: &mut Rng,
) -> Result<V> {
    let (lo, hi) = (r.lo, r.hi);
    // near a full region most draws land beside a taken place: try longer before giving up
    let tries = if spaced.is_some() { SPACED_TRIES } else { SPAWN_TRIES };
    let mut found = None;
    for _ in 0..tries {
        let mut c = [0.0f32; 3];
        for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
            *c = lo[i] + (hi[i] - lo[i]) * rng.uniform();
        }
        let p = V::from_components(&c);
        let in_ball = r.ball.is_none_or(|(c, r)| (p - c).length_squared() <= r * r);
        let apart = spaced.is_none_or(|sp| sp.clear(p));
        if in_ball && apart && bounds.contains(p) && !V::inside_solid(solids, p) {
            found = Some(p);
            break;
        }
    }
    if let (Some(sp), None) = (spaced, found) {
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
    found.ok_or_else(|| {
        problem(
            path,
            format!(
                "no free place for agent {k} in {SPAWN_TRIES} tries: solid obstacles (or the \
                 world's edge) cover the region"
            ),
        )
    })
}

/// An agent's start at `position`: its heading (drawn when random) and speed (drawn from the
/// range, along the heading).
pub(super) fn start<V: Dim>(
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
pub(super) fn spawn_speed(
    path: &str,
    speed: Option<[f32; 2]>,
    max_speed: f32,
) -> Result<Option<(f32, f32)>> {
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
pub(super) fn pattern<V: Dim>(
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
pub(super) struct Spacing<V> {
    pub(super) spacing: f32,
    cells: HashMap<[i64; 3], Vec<V>>,
}

impl<V: Dim> Spacing<V> {
    pub(super) fn new(spacing: f32) -> Self {
        Spacing { spacing, cells: HashMap::new() }
    }

    pub(super) fn cell(&self, p: V) -> [i64; 3] {
        let mut c = [0i64; 3];
        for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
            *c = (p[i] / self.spacing).floor() as i64;
        }
        c
    }

    /// True when no place taken lies closer than the spacing.
    pub(super) fn clear(&self, p: V) -> bool {
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

    pub(super) fn insert(&mut self, p: V) {
        let c = self.cell(p);
        self.cells.entry(c).or_default().push(p);
    }
}
