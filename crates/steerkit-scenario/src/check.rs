//! From the parsed file to checked library values: every number finite and in range, every
//! field applicable to its kind, every reference resolved, every library value built by its
//! validating constructor.

use crate::dim::Dim;
use crate::model::{MetricsPlan, Plan};
use crate::spec::ScenarioSpec;
use steerkit::math::Rng;
use steerkit::path::Path as _;
use steerkit::{Vec2, Vec3};

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

mod formation;
mod geometry;
mod goal_rule;
mod groups;
mod kinds;
mod navigation;
mod node;
mod node_parts;
mod piles;
mod refs;
mod settings;
mod side_view;
mod spawn;
mod turret;
mod values;
mod vehicle;

pub(crate) use groups::agent_cap;
pub(crate) use kinds::{KINDS, NOT_IN_FILES};
pub(crate) use node::node;
pub(crate) use refs::Refs;
use values::{name, non_negative, positive, problem};

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
    let metrics = settings::metrics(spec)?;
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

/// The world of the file in `V`'s dimensions: bounds, geometry, paths, groups (with every
/// agent placed) and formations.
fn plan<V: Dim>(spec: &ScenarioSpec) -> Result<Plan<V>> {
    let bounds = geometry::bounds::<V>(&spec.world)?;
    if V::DIMS == 3 {
        // the 3D crowd has no static world yet, and formations are planar
        let planar = [("walls", spec.walls.is_empty()), ("formations", spec.formations.is_empty())];
        if let Some((key, _)) = planar.iter().find(|(_, empty)| !empty) {
            return Err(problem(*key, format!("`{key}` exist only in 2D scenarios")));
        }
    }
    let side = side_view::side_view(spec, V::DIMS)?;
    let geometry = geometry::geometry::<V>(spec)?;
    let paths = geometry::paths::<V>(spec)?;

    // group names first: behaviours refer to any group, earlier or later
    let (group_index, sizes) = groups::group_names(spec)?;
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
        let plan = groups::group(&path, g, &bounds, &solids, &refs, &mut rng)?;
        side_view::jumpers(&path, side.as_ref(), &plan)?;
        groups.push(plan);
    }
    piles::piles(spec, &groups)?;
    let formations = formation::formations(spec, &refs, groups.len())?;
    let turrets = turret::turrets(spec, &refs)?;
    let navigation = navigation::navigation(spec, &bounds, &geometry, &groups)?;
    Ok(Plan { bounds, geometry, paths, groups, formations, turrets, side_view: side, navigation })
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
