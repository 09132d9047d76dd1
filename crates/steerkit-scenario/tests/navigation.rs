//! `[navigation]` and the `navigate` leaf: what a file gets refused for (one line naming the
//! key), and a checked file that runs: its agents cross a wall through a door.

use steerkit::Vec2;
use steerkit_scenario::{Scenario, ScenarioError};

const BASE: &str = r#"name = "nav"
dt = 0.1
steps = 400
[world]
min = [-10, -5]
max = [10, 5]
neighbour_radius = 2.0
[[obstacles]]
shape = "box"
min = [-0.25, -5]
max = [0.25, 3]
[[groups]]
name = "a"
agents = [{ position = [-6, -3], goal = [6, -3] }, { position = [-6, 0], goal = [6, 0] }]
radius = 0.4
limits = { max_speed = 1.5, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "navigate", braking = true, time_to_target = 0.25 }
"#;

fn with(from: &str, to: &str) -> String {
    assert_eq!(BASE.matches(from).count(), 1, "`{from}` must occur once");
    BASE.replacen(from, to, 1)
}

fn refused(src: &str) -> ScenarioError {
    let e = Scenario::from_toml_str(src, "bad.toml").expect_err("refused");
    let msg = e.to_string();
    println!("{msg}");
    assert_eq!(msg.lines().count(), 1, "one line: {msg}");
    e
}

#[test]
fn navigators_cross_the_wall_through_its_door_and_stop_on_their_goals() {
    let s = Scenario::from_toml_str(BASE, "nav.toml").unwrap();
    let mut w = s.build().unwrap();
    for _ in 0..s.steps() {
        let crowd = &mut w.crowd;
        w.navigation.as_mut().unwrap().update(crowd, s.dt());
        crowd.step(s.dt()).unwrap();
        // never inside the wall (the box inflated by the radius, 1 cm to spare)
        for p in crowd.positions() {
            let q = p.clamp(Vec2::new(-0.25, -5.0), Vec2::new(0.25, 3.0));
            assert!(q.distance(*p) > 0.39, "a body in the wall at {p}");
        }
    }
    for (h, goal) in w.groups[0].agents.iter().zip([Vec2::new(6.0, -3.0), Vec2::new(6.0, 0.0)]) {
        let p = w.crowd.kinematic(*h).unwrap().position;
        assert!(p.distance(goal) < 0.1, "{p} is not at {goal}");
    }
}

#[test]
fn a_goal_inside_an_obstacle_is_refused() {
    let e = refused(&with("goal = [6, 0]", "goal = [0, 0]"));
    assert_eq!(e.field(), "groups[0].goal");
    assert!(e.to_string().contains("agent 1's goal (0, 0) is inside an obstacle"), "{e}");
}

#[test]
fn a_degenerate_outline_is_refused() {
    let e = refused(&format!("{BASE}[navigation]\noutline = [[0, 0], [1, 1], [2, 2]]\n"));
    assert_eq!(e.field(), "navigation.outline");
    assert!(e.to_string().contains("no area"), "{e}");
}

#[test]
fn a_radius_with_nothing_walkable_is_refused() {
    let e = refused(&with("radius = 0.4", "radius = 6"));
    assert_eq!(e.field(), "groups[0].radius");
    assert!(e.to_string().contains("no walkable area left for radius 6.1 m"), "{e}");
}

#[test]
fn bad_settings_name_their_key() {
    let e = refused(&format!("{BASE}[navigation]\nclearance = -1\n"));
    assert_eq!(e.field(), "navigation.clearance");
    let e = refused(&format!("{BASE}[navigation]\nmax_plans_per_step = 0\n"));
    assert_eq!(e.field(), "navigation.max_plans_per_step");
    let e = refused(&format!("{BASE}[navigation]\nreplan_interval = nan\n"));
    assert_eq!(e.field(), "navigation.replan_interval");
}

#[test]
fn navigation_is_planar() {
    let src = r#"name = "nav3"
dimensions = 3
dt = 0.1
steps = 1
[world]
neighbour_radius = 2.0
[[groups]]
name = "a"
agents = [{ position = [0, 0, 0], goal = [1, 1, 1] }]
radius = 0.4
limits = { max_speed = 1.5, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "navigate", braking = true }
"#;
    let e = refused(src);
    assert!(e.to_string().contains("navigation meshes exist only in 2D scenarios"), "{e}");
}

#[test]
fn an_unbounded_world_navigates_in_the_box_round_its_agents() {
    let src = BASE.replace("min = [-10, -5]\nmax = [10, 5]\n", "");
    let s = Scenario::from_toml_str(&src, "nav.toml").unwrap();
    let w = s.build().unwrap();
    assert!(w.navigation.is_some());
}

/// A wall across the whole level: both goals lie beyond it. Each agent's goal is reported
/// unreachable once (metrics.json's `unreachable`), and each stops at the reachable point
/// nearest its goal: against the wall, never in it.
#[test]
fn unreachable_goals_are_counted_once_and_their_agents_stop_at_the_wall() {
    use steerkit_scenario::simulation::{Outputs, Simulation};
    let src = with("max = [0.25, 3]", "max = [0.25, 5]");
    let s = Scenario::from_toml_str(&src, "nav.toml").unwrap();
    let outputs = Outputs { metrics: true, replay: None };
    let mut sim = Simulation::<Vec2>::new(&s, outputs).unwrap();
    for _ in 0..s.steps() {
        sim.step().unwrap();
    }
    let m = sim.metrics(1, 0.0).unwrap();
    assert_eq!(m.unreachable, Some(2));
    for p in sim.crowd().positions() {
        // the wall's face is x = −0.25; the body keeps its radius and the clearance off it
        assert!(p.x < -0.25 - 0.39 && p.x > -0.25 - 0.8, "{p} is not against the wall");
    }
}
