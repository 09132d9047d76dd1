//! A waypoint's priority: under ORCA it scales the agent's say in each pair it is in.

use steerkit::crowd::{Group, Waypoint};
use steerkit::kinematic::{Integration, Scheme};
use steerkit::prelude::*;
use steerkit::steering::Orca;

/// Two agents (radius 0.4 m, 1.5 m/s, ORCA) 10 m apart head on along y = 0 (B 0.1 m above),
/// each with a waypoint 5 m past the other's start, A's at priority `a`, B's at 1; 240 steps
/// of 1/30 s. Returns the largest sideways moves of A and of B (m).
fn pass(a: f32) -> (f32, f32) {
    let arrive = Arrive::with_approach(0.2, steerkit::steering::Approach::Braking, 0.25).unwrap();
    let mut group = Group::new(Recipe::Navigate { arrive });
    group.orca = Some(Orca::new(2.0, 10).unwrap());
    group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).unwrap();
    let mut crowd = Crowd2::new(CrowdConfig::new(4.0)).unwrap();
    let g = crowd.add_group(group).unwrap();
    let limits = Limits::new(1.5, 45.0, 4.0, 20.0).unwrap();
    let (sa, sb) = (Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.1));
    let (ga, gb) = (Vec2::new(10.0, 0.0), Vec2::new(-10.0, 0.1));
    let ha = crowd.spawn(AgentSpec { goal: Some(ga), ..AgentSpec::new(sa, 0.4, limits, g) });
    let hb = crowd.spawn(AgentSpec { goal: Some(gb), ..AgentSpec::new(sb, 0.4, limits, g) });
    let (ha, hb) = (ha.unwrap(), hb.unwrap());
    let (mut da, mut db) = (0.0f32, 0.0f32);
    for _ in 0..240 {
        let w = |point, priority| Some(Waypoint { point, remaining: 0.0, lane: None, priority });
        crowd.set_waypoint(ha, w(ga, a)).unwrap();
        crowd.set_waypoint(hb, w(gb, 1.0)).unwrap();
        crowd.step(1.0 / 30.0).unwrap();
        da = da.max((crowd.kinematic(ha).unwrap().position.y - sa.y).abs());
        db = db.max((crowd.kinematic(hb).unwrap().position.y - sb.y).abs());
    }
    (da, db)
}

/// At equal priority the two share the swerve (within 10 %); with A's waypoint at priority
/// 0.01 A makes nearly all of it: B moves less than a tenth of A's sideways move.
#[test]
fn the_waypoint_priority_sets_who_gives_way() {
    let (a, b) = pass(1.0);
    eprintln!("equal: A {a} m, B {b} m");
    assert!((a - b).abs() <= 0.1 * a.max(b), "equal say: A {a} m, B {b} m");
    let (a, b) = pass(0.01);
    eprintln!("A at 0.01: A {a} m, B {b} m");
    assert!(a > 0.6 && b < 0.1 * a, "A gives way: A {a} m, B {b} m");
}
