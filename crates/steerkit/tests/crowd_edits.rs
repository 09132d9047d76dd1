//! Agents and formations edited after they were added: radius, limits, disbanding.

use steerkit::crowd::{CrowdError, FormationId, Group, Target};
use steerkit::formation::{FormationManager, Pattern, ScalablePattern, Shape, SlotSteering};
use steerkit::prelude::*;
use steerkit::steering::{Align, Seek};

fn limits(max_speed: f32) -> Limits {
    Limits::new(max_speed, 4.0, 4.0, 20.0).unwrap()
}

/// A seeker at 2 m/s limited to 0.5 m/s moves at 0.5 m/s a second later; a larger radius
/// widens the body (with non-penetration the other agent, 1.5 m off, is pushed out), a
/// negative one is refused naming the field, and a stale handle is refused.
#[test]
fn radius_and_limits_change_from_the_next_step() {
    let mut c = Crowd2::new(CrowdConfig::new(2.0)).unwrap();
    let seek = Recipe::Seek { target: Target::Point(Vec2::new(1000.0, 0.0)), seek: Seek::new() };
    let g = c.add_group(Group { non_penetration: true, ..Group::new(seek) }).unwrap();
    let a = c.spawn(AgentSpec::new(Vec2::ZERO, 0.3, limits(2.0), g)).unwrap();
    for _ in 0..120 {
        c.step(1.0 / 60.0).unwrap();
    }
    assert!((c.kinematic(a).unwrap().velocity.length() - 2.0).abs() < 1e-3);
    c.set_limits(a, limits(0.5)).unwrap();
    for _ in 0..60 {
        c.step(1.0 / 60.0).unwrap();
    }
    assert!((c.kinematic(a).unwrap().velocity.length() - 0.5).abs() < 1e-3);
    assert_eq!(c.limits(a), Some(limits(0.5)));
    let idle = Group { non_penetration: true, ..Group::new(Recipe::Blend(Vec::new())) };
    let idle = c.add_group(idle).unwrap();
    let p = c.kinematic(a).unwrap().position;
    let b = c.spawn(AgentSpec::new(p + Vec2::new(0.0, 1.5), 0.3, limits(2.0), idle)).unwrap();
    c.set_radius(b, 1.5).unwrap();
    c.step(1.0 / 60.0).unwrap();
    let gap = c.kinematic(a).unwrap().position.distance(c.kinematic(b).unwrap().position);
    assert!(gap >= 1.8 - 1e-2, "pushed apart to the new radii: {gap}");
    assert!(matches!(c.set_radius(b, -1.0), Err(CrowdError::Param(_))));
    c.despawn(b).unwrap();
    assert_eq!(c.set_radius(b, 1.0), Err(CrowdError::StaleHandle(b)));
}

/// A disbanded formation is gone (its members have no slot), disbanding it again is refused,
/// and the next formation takes its id.
#[test]
fn a_disbanded_formation_frees_its_members_and_its_id() {
    let mut c = Crowd2::new(CrowdConfig::new(2.0)).unwrap();
    let align = Align::new(0.01, 0.5, 0.1).unwrap();
    let slot = SlotSteering::new(steerkit::steering::Arrive::new(0.02, 2.0, 0.3).unwrap(), align);
    let g = c.add_group(Group::new(Recipe::Slot(slot))).unwrap();
    let hs: Vec<_> = (0..3)
        .map(|k| c.spawn(AgentSpec::new(Vec2::new(k as f32, 0.0), 0.3, limits(2.0), g)).unwrap())
        .collect();
    let manager = || {
        let pattern = Pattern::from(ScalablePattern::new(Shape::Line, 1.0).unwrap());
        FormationManager::new(pattern, Kinematic::default(), limits(1.0))
    };
    let still = Recipe::Blend(Vec::new());
    let f = c.add_formation(manager(), &hs, still.clone()).unwrap();
    c.step(1.0 / 60.0).unwrap();
    assert!(c.slot_target(hs[0]).is_some());
    c.disband_formation(f).unwrap();
    assert!(c.formation(f).is_none() && c.formation_members(f).is_none());
    assert!(hs.iter().all(|h| c.slot_target(*h).is_none()));
    c.step(1.0 / 60.0).unwrap();
    assert!(hs.iter().all(|h| c.slot_target(*h).is_none()), "no slot after a step either");
    assert_eq!(c.disband_formation(f), Err(CrowdError::UnknownFormation(f)));
    assert_eq!(c.add_formation(manager(), &hs[..2], still).unwrap(), FormationId(f.0));
}
