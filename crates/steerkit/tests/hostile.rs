//! Finite but extreme input never panics the crowd (regressions from hostile scenario files).

use steerkit::crowd::{Group, WorldBounds};
use steerkit::prelude::*;

fn spread(crowd: &mut Crowd2, xs: &[f32]) {
    let limits = Limits::new(2.0, 4.0, 3.0, 10.0).unwrap();
    let sep = Separation::new(1.0, Falloff::Linear).unwrap();
    let g = crowd.add_group(Group::new(Recipe::Separation(sep))).unwrap();
    for &x in xs {
        crowd.spawn(AgentSpec::new(Vec2::new(x, 0.0), 0.2, limits, g)).unwrap();
    }
}

#[test]
fn agents_spread_wider_than_the_grid_can_count_step_without_panic() {
    // a 2e19 m spread with a 1 m neighbour radius: more cells than a usize holds
    let bounds = WorldBounds::Bounded { min: Vec2::new(-1e19, -1.0), max: Vec2::new(1e19, 1.0) };
    let mut crowd = Crowd2::new(CrowdConfig::new(1.0).with_bounds(bounds)).unwrap();
    spread(&mut crowd, &[-1e19, -3e18, 0.0, 0.5, 7e17, 1e19]);
    for _ in 0..5 {
        crowd.step(0.05).unwrap();
    }
    assert!(crowd.positions().iter().all(|p| p.is_finite()));
    // the two agents 0.5 m apart still see each other and separate
    let near: Vec<f32> =
        crowd.positions().iter().filter(|p| p.x.abs() < 10.0).map(|p| p.x).collect();
    assert_eq!(near.len(), 2);
    assert!((near[0] - near[1]).abs() > 0.5, "{near:?}");
}

#[test]
fn unbounded_agents_at_the_ends_of_f32_step_without_panic() {
    // the spread itself (6.8e38 m) overflows f32; a tiny neighbour radius asks for ~1e44 cells
    let mut crowd = Crowd2::new(CrowdConfig::new(1e-6)).unwrap();
    spread(&mut crowd, &[-f32::MAX, -1.0, 0.0, 1.0, f32::MAX]);
    for _ in 0..5 {
        crowd.step(0.05).unwrap();
    }
    assert_eq!(crowd.len(), 5);
}

#[test]
fn a_world_whose_size_overflows_f32_is_refused_by_name() {
    let bounds = WorldBounds::Toroidal { min: Vec2::splat(-3e38), max: Vec2::splat(3e38) };
    let e = Crowd2::new(CrowdConfig::new(1.0).with_bounds(bounds)).unwrap_err();
    assert!(
        matches!(e, CrowdError::Param(ParamError::Invalid { name: "bounds_max", .. })),
        "{e:?}"
    );
}

/// One agent driven to overflow beside a flock: it is quarantined, and every other agent's
/// trajectory is the same, bit for bit, as in the world without the fault.
#[test]
fn an_overflowing_agent_leaves_the_others_bit_for_bit_unchanged() {
    use steerkit::steering::WorldWander;
    let run = |fault: bool| {
        let config = CrowdConfig::new(2.0).with_seed(5);
        let mut crowd = Crowd2::new(config).unwrap();
        let flock = Recipe::Blend(vec![
            (2.0, Recipe::Separation(Separation::new(1.0, Falloff::Linear).unwrap())),
            (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
            (1.0, Recipe::Alignment(Alignment::heading(0.5).unwrap())),
            (0.5, Recipe::Wander(WorldWander::new(1.0, 2.0, 3.0).unwrap())),
        ]);
        let g = crowd.add_group(Group::new(flock)).unwrap();
        let limits = Limits::new(3.0, 6.0, 4.0, 20.0).unwrap();
        let mut handles = Vec::new();
        for i in 0..200 {
            let p = Vec2::new((i % 20) as f32 * 0.8, (i / 20) as f32 * 0.8);
            handles.push(crowd.spawn(AgentSpec::new(p, 0.2, limits, g)).unwrap());
        }
        let mut quarantined = 0;
        if fault {
            // far from the flock (beyond every neighbourhood), its state then overflowed by a
            // game writing it (the integrator itself clips speeds, so it cannot overflow)
            let h = crowd.spawn(AgentSpec::new(Vec2::new(1e4, 1e4), 0.2, limits, g)).unwrap();
            let mut k = crowd.kinematic(h).unwrap();
            k.position.x = f32::INFINITY;
            crowd.write_kinematic(h, k).unwrap();
        }
        let mut track = Vec::new();
        for _ in 0..300 {
            let events = crowd.step(1.0 / 30.0).unwrap();
            quarantined +=
                events.iter().filter(|e| matches!(e, CrowdEvent::Quarantined { .. })).count();
            for &h in &handles {
                let k = crowd.kinematic(h).unwrap();
                track.push((k.position.to_array(), k.velocity.to_array(), k.orientation));
            }
        }
        (track, quarantined)
    };
    let (clean, none) = run(false);
    let (faulty, one) = run(true);
    assert_eq!((none, one), (0, 1), "exactly the faulty agent is quarantined");
    assert!(clean == faulty, "the flock's trajectories changed");
}
