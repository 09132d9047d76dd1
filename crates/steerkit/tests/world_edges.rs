//! A bounded world keeps whole bodies inside (radius-aware, like walls and solids); a
//! wrap-around world is unchanged; arrived agents leave when their group says so.

use steerkit::crowd::{CrowdEvent, Group, Target, WorldBounds};
use steerkit::kinematic::{Integration, Scheme};
use steerkit::math::Rng;
use steerkit::prelude::*;
use steerkit::steering::Orca;

fn limits() -> Limits {
    Limits::new(3.0, 60.0, 4.0, 20.0).unwrap()
}

/// Agents of radii 0.2–0.8 m driven into the faces of a 20 m box (seeking points far outside
/// it), plain, with non-penetration and with ORCA: after 20 s of pressing, every body is inside
/// the box to float precision (1e-5 m), and those at a face touch it.
#[test]
fn pressed_bodies_stay_inside_a_bounded_2d_world() {
    let (min, max) = (Vec2::splat(-10.0), Vec2::splat(10.0));
    let config = CrowdConfig::new(2.0).with_bounds(WorldBounds::Bounded { min, max });
    let mut crowd = Crowd::<Vec2>::new(config).unwrap();
    let mut rng = Rng::new(3);
    let corners = [Vec2::new(100.0, 30.0), Vec2::new(-100.0, -70.0), Vec2::new(20.0, 100.0)];
    for (k, &target) in corners.iter().enumerate() {
        let mut group =
            Group::new(Recipe::Seek { target: Target::Point(target), seek: Seek::new() });
        group.non_penetration = k >= 1;
        if k == 2 {
            group.orca = Some(Orca::new(2.0, 10).unwrap());
            group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).unwrap();
        }
        let g = crowd.add_group(group).unwrap();
        for _ in 0..120 {
            let p = Vec2::new(rng.clamped(), rng.clamped()) * 9.0;
            let r = 0.2 + 0.6 * rng.uniform();
            crowd.spawn(AgentSpec::new(p, r, limits(), g)).unwrap();
        }
    }
    let mut touching = 0;
    for step in 0..400 {
        crowd.step(0.05).unwrap();
        for (i, (&p, &r)) in crowd.positions().iter().zip(crowd.radii()).enumerate() {
            for a in 0..2 {
                let (lo, hi) = (p[a] - r, p[a] + r);
                assert!(
                    lo >= min[a] - 1e-5 && hi <= max[a] + 1e-5,
                    "step {step}, agent {i}: body [{lo}, {hi}] leaves [{}, {}] on axis {a}",
                    min[a],
                    max[a]
                );
                if step == 399 && ((lo - min[a]).abs() < 1e-4 || (hi - max[a]).abs() < 1e-4) {
                    touching += 1;
                }
            }
        }
    }
    assert!(touching > 100, "only {touching} bodies pressed against a face at the end");
}

/// The same in 3D: balls in a box.
#[test]
fn pressed_bodies_stay_inside_a_bounded_3d_world() {
    let (min, max) = (Vec3::splat(-5.0), Vec3::splat(5.0));
    let config = CrowdConfig::new(2.0).with_bounds(WorldBounds::Bounded { min, max });
    let mut crowd = Crowd::<Vec3>::new(config).unwrap();
    let mut group = Group::new(Recipe::Seek {
        target: Target::Point(Vec3::new(50.0, -40.0, 60.0)),
        seek: Seek::new(),
    });
    group.non_penetration = true;
    let g = crowd.add_group(group).unwrap();
    let mut rng = Rng::new(9);
    for _ in 0..100 {
        let p = Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()) * 4.0;
        crowd.spawn(AgentSpec::new(p, 0.3 + 0.3 * rng.uniform(), limits(), g)).unwrap();
    }
    for _ in 0..300 {
        crowd.step(0.05).unwrap();
    }
    for (&p, &r) in crowd.positions().iter().zip(crowd.radii()) {
        for a in 0..3 {
            assert!(p[a] - r >= min[a] - 1e-5 && p[a] + r <= max[a] + 1e-5, "{p} radius {r}");
        }
    }
}

/// A centre spawned closer to a face than its radius is moved in until the body touches the
/// face; an axis narrower than the body holds the centre in its middle; a torus moves nothing.
#[test]
fn spawns_and_narrow_worlds() {
    let bounds = WorldBounds::Bounded { min: Vec2::new(0.0, 0.0), max: Vec2::new(10.0, 0.4) };
    let mut crowd = Crowd::<Vec2>::new(CrowdConfig::new(1.0).with_bounds(bounds)).unwrap();
    let g = crowd.add_group(Group::new(Recipe::Blend(Vec::new()))).unwrap();
    let h = crowd.spawn(AgentSpec::new(Vec2::new(0.1, 0.1), 0.5, limits(), g)).unwrap();
    let p = crowd.kinematic(h).unwrap().position;
    assert_eq!(p, Vec2::new(0.5, 0.2), "x moved in to the radius, y at the middle of 0.4 m");

    let (mut p, mut v) = (Vec2::new(9.9, 5.0), Vec2::new(2.0, -1.0));
    let box10 = WorldBounds::Bounded { min: Vec2::ZERO, max: Vec2::splat(10.0) };
    assert!(box10.confine(&mut p, &mut v, 0.25));
    assert_eq!(
        (p, v),
        (Vec2::new(9.75, 5.0), Vec2::new(0.0, -1.0)),
        "the outward speed is removed"
    );

    let torus = WorldBounds::Toroidal { min: Vec2::ZERO, max: Vec2::splat(10.0) };
    let (mut p, mut v) = (Vec2::new(9.9, 0.05), Vec2::new(2.0, -1.0));
    assert!(!torus.confine(&mut p, &mut v, 0.25));
    assert_eq!((p, v), (Vec2::new(9.9, 0.05), Vec2::new(2.0, -1.0)), "a torus ignores radii");
}

/// A group with `remove_on_arrival` loses each agent at the end of the step it arrives in (its
/// `Arrived` event still names it); a group without keeps them.
#[test]
fn arrived_agents_leave_when_their_group_says_so() {
    let mut crowd = Crowd::<Vec2>::new(CrowdConfig::new(1.0)).unwrap();
    let recipe =
        || Recipe::Arrive { target: Target::Goal, arrive: Arrive::new(0.05, 1.0, 0.1).unwrap() };
    let mut leaving = Group::new(recipe());
    leaving.remove_on_arrival = true;
    let leaving = crowd.add_group(leaving).unwrap();
    let staying = crowd.add_group(Group::new(recipe())).unwrap();
    let mut handles = Vec::new();
    for (k, g) in [leaving, staying, leaving, staying].into_iter().enumerate() {
        let p = Vec2::new(0.0, 3.0 * k as f32);
        let spec = AgentSpec {
            goal: Some(p + Vec2::new(4.0 + k as f32, 0.0)),
            ..AgentSpec::new(p, 0.3, limits(), g)
        };
        handles.push(crowd.spawn(spec).unwrap());
    }
    let mut arrived = Vec::new();
    for _ in 0..200 {
        let events = crowd.step(0.05).unwrap().to_vec();
        for e in events {
            if let CrowdEvent::Arrived { agent } = e {
                arrived.push(agent);
                let removed = crowd.group_of(agent).is_none();
                let in_leaving = handles[0] == agent || handles[2] == agent;
                assert_eq!(removed, in_leaving, "{agent:?} removed: {removed}");
            }
        }
    }
    assert_eq!(arrived.len(), 4, "every agent arrived once");
    assert_eq!(crowd.len(), 2, "the two of the staying group are left");
    assert!(crowd.contains(handles[1]) && crowd.contains(handles[3]));
}
