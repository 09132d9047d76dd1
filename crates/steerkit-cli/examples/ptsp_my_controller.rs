//! Write your own PTSP controller and see it race: this one turns toward the nearest unvisited
//! waypoint and thrusts when it faces it (no planning: walls stop it). The race's score.json,
//! trajectory.csv, replay.html and snapshot.svg go to `out/ptsp-<map>-mine/`, under the name
//! "mine":
//!
//! ```text
//! cargo run --release --example ptsp_my_controller            # the open map
//! cargo run --release --example ptsp_my_controller -- maze    # a shipped map or a map file
//! ```
//!
//! Replace `act` with your own; `notes` is optional and shows in the replay (the point you
//! steer for, your path and your planned tour).

use steerkit::Vec2;
use steerkit_ptsp::{Action, Controller, Notes, RaceLimits, RaceView, Turn};

#[derive(Default)]
struct Mine {
    target: Option<Vec2>,
}

impl Controller for Mine {
    fn act(&mut self, race: &RaceView<'_>) -> Action {
        let ship = race.state;
        // the nearest waypoint not visited yet
        let target = race
            .map
            .waypoints()
            .iter()
            .zip(race.visited)
            .filter(|(_, seen)| seen.is_none())
            .map(|(w, _)| *w)
            .min_by(|a, b| a.distance(ship.position).total_cmp(&b.distance(ship.position)))
            .unwrap_or(ship.position);
        self.target = Some(target);
        // the velocity we would like: toward it, slower when close (arrive), px/s
        let to = target - ship.position;
        let desired = to.normalize_or_zero() * (to.length() * 1.5).min(80.0);
        // thrust pushes along the heading only: face the velocity error, thrust when facing it
        let error = desired - ship.velocity;
        let off = Vec2::from_angle(ship.orientation).angle_to(error);
        let turn = if off > 0.05 {
            Turn::Left
        } else if off < -0.05 {
            Turn::Right
        } else {
            Turn::Straight
        };
        Action { thrust: off.abs() < 0.5 && error.length() > 2.0, turn }
    }

    fn notes(&self) -> Notes {
        Notes { target: self.target, ..Notes::default() }
    }
}

fn main() -> Result<(), String> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "open".into());
    let map = steerkit_cli::ptsp::resolve_map(&name)?;
    let stem = std::path::Path::new(map.name())
        .file_stem()
        .map_or("map".into(), |s| s.to_string_lossy().into_owned());
    let dir = std::path::Path::new("out").join(format!("ptsp-{stem}-mine"));
    let (log, files) = steerkit_cli::ptsp::race_and_write(
        &dir,
        &map,
        &mut Mine::default(),
        "mine",
        RaceLimits::default(),
    )?;
    let s = log.score;
    println!(
        "{}: {} of {} waypoints in {} steps ({}), {} collisions\nreplay: {}",
        map.name(),
        s.visited,
        s.waypoints,
        s.steps,
        s.outcome.name(),
        s.collisions,
        files[2].display()
    );
    Ok(())
}
