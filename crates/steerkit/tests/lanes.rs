//! A waypoint's lane: under ORCA a body keeps to its side of the divider.

use steerkit::crowd::{Group, Lane, Waypoint};
use steerkit::kinematic::{Integration, Scheme};
use steerkit::prelude::*;
use steerkit::steering::Orca;

/// One navigating agent (radius 0.4 m, 1.5 m/s, ORCA) at (0, −2) heading for a waypoint at
/// (10, 3), across the divider y = 0 that keeps it to y < 0; 300 steps of 1/30 s. Returns the
/// largest y its centre reached and where it ended.
fn walk(lane: Option<Lane<Vec2>>) -> (f32, Vec2) {
    let arrive = Arrive::with_approach(0.2, steerkit::steering::Approach::Braking, 0.25).unwrap();
    let mut group = Group::new(Recipe::Navigate { arrive });
    group.orca = Some(Orca::new(2.0, 10).unwrap().with_obstacle_time_horizon(1.0).unwrap());
    group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).unwrap();
    let mut crowd = Crowd2::new(CrowdConfig::new(4.0)).unwrap();
    let g = crowd.add_group(group).unwrap();
    let limits = Limits::new(1.5, 45.0, 4.0, 20.0).unwrap();
    let goal = Vec2::new(10.0, 3.0);
    let spec =
        AgentSpec { goal: Some(goal), ..AgentSpec::new(Vec2::new(0.0, -2.0), 0.4, limits, g) };
    let h = crowd.spawn(spec).unwrap();
    let mut top = f32::MIN;
    for _ in 0..300 {
        crowd
            .set_waypoint(h, Some(Waypoint { point: goal, remaining: 0.0, lane, priority: 1.0 }))
            .unwrap();
        crowd.step(1.0 / 30.0).unwrap();
        top = top.max(crowd.kinematic(h).unwrap().position.y);
    }
    (top, crowd.kinematic(h).unwrap().position)
}

/// Without a lane the agent reaches its waypoint; with the divider y = 0 (normal −y) its body
/// comes up to the divider and slides along it: its centre never goes past y = −r + 1 cm, and it
/// ends below its waypoint, past x = 8.
#[test]
fn a_body_keeps_to_its_side_of_a_lane_divider() {
    let (_, free) = walk(None);
    assert!(free.distance(Vec2::new(10.0, 3.0)) < 0.3, "without a lane: {free}");
    let lane = Lane { point: Vec2::new(5.0, 0.0), normal: Vec2::new(0.0, -1.0) };
    let (top, end) = walk(Some(lane));
    assert!(top <= -0.4 + 0.01, "the centre reached y = {top}");
    assert!(end.x > 8.0 && end.y < -0.3, "it ended at {end}");
}

/// A body already across the divider may stand or come back, not go further.
#[test]
fn a_body_across_the_divider_goes_no_further() {
    let lane = Lane { point: Vec2::new(0.0, -3.0), normal: Vec2::new(0.0, -1.0) };
    let (top, _) = walk(Some(lane));
    assert!(top <= -2.0 + 1e-3, "it went from y = −2 to {top}");
}

/// A lane with a normal that is not a unit vector, or not finite, and a waypoint priority
/// that is not finite and positive are refused by name.
#[test]
fn a_bad_lane_or_priority_is_refused() {
    let mut crowd = Crowd2::new(CrowdConfig::new(4.0)).unwrap();
    let g = crowd
        .add_group(Group::new(Recipe::Navigate { arrive: Arrive::new(0.2, 1.0, 0.25).unwrap() }))
        .unwrap();
    let limits = Limits::new(1.5, 45.0, 4.0, 20.0).unwrap();
    let h = crowd.spawn(AgentSpec::new(Vec2::ZERO, 0.4, limits, g)).unwrap();
    for normal in [Vec2::new(0.0, 2.0), Vec2::ZERO, Vec2::new(f32::NAN, 1.0)] {
        let lane = Some(Lane { point: Vec2::ZERO, normal });
        let w = Waypoint { point: Vec2::X, remaining: 0.0, lane, priority: 1.0 };
        let e = crowd.set_waypoint(h, Some(w)).unwrap_err().to_string();
        assert!(e.contains("lane normal"), "{e}");
    }
    for priority in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let w = Waypoint { point: Vec2::X, remaining: 0.0, lane: None, priority };
        let e = crowd.set_waypoint(h, Some(w)).unwrap_err().to_string();
        assert!(e.contains("waypoint priority"), "{e}");
    }
}
