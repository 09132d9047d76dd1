//! Write your own PTSP controller: this one turns toward the nearest unvisited waypoint and
//! thrusts when it faces it, braking by turning round when it is fast and close. Race it on
//! the shipped maps beside the reference controller:
//!
//! ```text
//! cargo run --release -p steerkit-ptsp --example my_controller
//! ```

use steerkit::Vec2;
use steerkit_ptsp::{race, Action, Controller, RaceView, Reference, Ship, Turn};

struct MyController;

impl Controller for MyController {
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
        // the velocity we would like: toward it, slower when close (arrive)
        let to = target - ship.position;
        let desired = to.normalize_or_zero() * (to.length() * 1.5).min(80.0);
        // push along the heading only: face the velocity error, thrust when facing it
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
}

fn main() {
    let ship = Ship::default();
    for (name, _) in steerkit_ptsp::map::BUILTIN {
        let map = steerkit_ptsp::builtin_map(name).expect("shipped");
        let mine = race(&map, &ship, &mut MyController, Default::default()).score;
        let mut reference = Reference::new(&map, &ship, Default::default()).expect("reachable");
        let best = race(&map, &ship, &mut reference, Default::default()).score;
        println!(
            "{name:6}  mine: {}/{} waypoints in {} steps ({}), {} collisions   reference: {} steps",
            mine.visited,
            mine.waypoints,
            mine.steps,
            mine.outcome.name(),
            mine.collisions,
            best.steps
        );
    }
}
