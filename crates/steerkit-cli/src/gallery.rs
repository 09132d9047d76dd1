//! The built-in scenarios: the files of `scenarios/`, compiled into the binary.

use steerkit_scenario::{Scenario, ScenarioError};

/// Every built-in scenario: its name (the file's stem) and its TOML text. `showcase` first,
/// then the gallery in the order docs/gallery.md lists it; the format reference `example` last.
pub const BUILTIN: &[(&str, &str)] = &[
    ("showcase", include_str!("../../../scenarios/showcase.toml")),
    ("seek_arrive", include_str!("../../../scenarios/seek_arrive.toml")),
    ("arrive", include_str!("../../../scenarios/arrive.toml")),
    ("kinematic", include_str!("../../../scenarios/kinematic.toml")),
    ("orientation", include_str!("../../../scenarios/orientation.toml")),
    ("pursue_evade", include_str!("../../../scenarios/pursue_evade.toml")),
    ("wander", include_str!("../../../scenarios/wander.toml")),
    ("separation", include_str!("../../../scenarios/separation.toml")),
    ("flocking", include_str!("../../../scenarios/flocking.toml")),
    ("crossing", include_str!("../../../scenarios/crossing.toml")),
    ("orca_crossing", include_str!("../../../scenarios/orca_crossing.toml")),
    ("circle", include_str!("../../../scenarios/circle.toml")),
    ("orca_circle", include_str!("../../../scenarios/orca_circle.toml")),
    ("orca_circle_250", include_str!("../../../scenarios/orca_circle_250.toml")),
    ("orca_circle_1000", include_str!("../../../scenarios/orca_circle_1000.toml")),
    ("orca_blocks", include_str!("../../../scenarios/orca_blocks.toml")),
    ("orca_blocks_mixed", include_str!("../../../scenarios/orca_blocks_mixed.toml")),
    ("rooms", include_str!("../../../scenarios/rooms.toml")),
    ("evacuation", include_str!("../../../scenarios/evacuation.toml")),
    ("pillars", include_str!("../../../scenarios/pillars.toml")),
    ("corridor_swap", include_str!("../../../scenarios/corridor_swap.toml")),
    ("swap", include_str!("../../../scenarios/swap.toml")),
    ("obstacle_field", include_str!("../../../scenarios/obstacle_field.toml")),
    ("obstacle_kinds", include_str!("../../../scenarios/obstacle_kinds.toml")),
    ("corridor", include_str!("../../../scenarios/corridor.toml")),
    ("corner_trap", include_str!("../../../scenarios/corner_trap.toml")),
    ("dither", include_str!("../../../scenarios/dither.toml")),
    ("pipeline", include_str!("../../../scenarios/pipeline.toml")),
    ("doorway", include_str!("../../../scenarios/doorway.toml")),
    ("orca_doorway", include_str!("../../../scenarios/orca_doorway.toml")),
    ("shared_route", include_str!("../../../scenarios/shared_route.toml")),
    ("hide", include_str!("../../../scenarios/hide.toml")),
    ("interpose", include_str!("../../../scenarios/interpose.toml")),
    ("offset_pursuit", include_str!("../../../scenarios/offset_pursuit.toml")),
    ("path_following", include_str!("../../../scenarios/path_following.toml")),
    ("formation", include_str!("../../../scenarios/formation.toml")),
    ("car_lap", include_str!("../../../scenarios/car_lap.toml")),
    ("race", include_str!("../../../scenarios/race.toml")),
    ("car_reverse", include_str!("../../../scenarios/car_reverse.toml")),
    ("tank_pivot", include_str!("../../../scenarios/tank_pivot.toml")),
    ("discrete_car", include_str!("../../../scenarios/discrete_car.toml")),
    ("human_walk", include_str!("../../../scenarios/human_walk.toml")),
    ("platforms", include_str!("../../../scenarios/platforms.toml")),
    ("run_up", include_str!("../../../scenarios/run_up.toml")),
    ("flock3d", include_str!("../../../scenarios/flock3d.toml")),
    ("pursuit3d", include_str!("../../../scenarios/pursuit3d.toml")),
    ("orca_sphere", include_str!("../../../scenarios/orca_sphere.toml")),
    ("ring_course", include_str!("../../../scenarios/ring_course.toml")),
    ("turret_lead", include_str!("../../../scenarios/turret_lead.toml")),
    ("turret_drag", include_str!("../../../scenarios/turret_drag.toml")),
    ("grenade_dodge", include_str!("../../../scenarios/grenade_dodge.toml")),
    ("example", include_str!("../../../scenarios/example.toml")),
];

/// The TOML text of a built-in scenario.
#[must_use]
pub fn source(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Loads a built-in scenario (`None` when there is none of that name).
///
/// # Errors
/// A built-in that does not load (a bug caught by the gallery tests).
pub fn load(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    source(name).map(|s| Scenario::from_toml_str(s, &format!("scenarios/{name}.toml")))
}

/// A scenario by file or built-in name, as `steerkit run` takes it: a file when the argument
/// names one (or looks like a path: an extension or a `/`), else a built-in.
///
/// # Errors
/// The file's one-line [`ScenarioError`], or an unknown name (listing the built-ins).
pub fn resolve(arg: &str) -> Result<Scenario, String> {
    let path = std::path::Path::new(arg);
    let looks_like_file = path.exists()
        || path.extension().is_some()
        || arg.contains(std::path::MAIN_SEPARATOR)
        || arg.contains('/');
    if looks_like_file {
        return Scenario::load(path).map_err(|e| e.to_string());
    }
    match load(arg) {
        Some(result) => result.map_err(|e| e.to_string()),
        None => Err(format!(
            "no scenario file or built-in scenario named `{arg}` (built-ins: {})",
            names().collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The names of the built-in scenarios.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

/// The opening of a description for one-line listings: whole sentences until there are at
/// least 40 characters, cut to at most `max` characters (with `…`).
#[must_use]
pub fn summary(description: &str, max: usize) -> String {
    let flat: String = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut end = 0;
    while end < flat.len() {
        end = match flat[end..].find(". ") {
            Some(i) => end + i + 1,
            None => flat.len(),
        };
        if end >= 40 {
            break;
        }
    }
    let first = &flat[..end.min(flat.len())];
    if first.chars().count() <= max {
        first.to_owned()
    } else {
        let cut: String = first.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}
