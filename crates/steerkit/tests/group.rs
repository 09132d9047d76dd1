//! Separation, cohesion, alignment and collision avoidance: errata regressions (E8–E11) and the
//! phenomena of Millington §3.3.13–3.3.14.

mod common;
use common::*;
use steerkit::kinematic::{Integration, Scheme};
use steerkit::math::Rng;
use steerkit::prelude::*;
use steerkit::steering::{closest_approach, ConeCheck, Gather};

fn neighbour(index: usize, k: &Kinematic, radius: f32) -> Neighbour {
    Neighbour { index, position: k.position, velocity: k.velocity, radius, ..Default::default() }
}

/// E8: separation pushes away from a neighbour (the listing attracts) and follows its law.
#[test]
fn separation_pushes_apart() {
    let l = limits(5.0, 10.0);
    let me = at(0.0, 0.0);
    let n = [neighbour(1, &at(2.0, 0.0), 0.5)];
    let inv = Separation::new(5.0, Falloff::InverseSquare(8.0)).unwrap();
    let s = inv.steer(&me, 0.5, &n, &l).unwrap();
    assert!(
        (s.linear - Vec2::new(-2.0, 0.0)).length() < 1e-6,
        "k/d² = 8/4 = 2 away: {:?}",
        s.linear
    );
    let lin = Separation::new(5.0, Falloff::Linear).unwrap();
    let s = lin.steer(&me, 0.5, &n, &l).unwrap();
    assert!((s.linear.x + 10.0 * 3.0 / 5.0).abs() < 1e-5, "max·(t − d)/t = 6");
    let attract = Separation::new(5.0, Falloff::InverseSquare(-8.0)).unwrap();
    assert!(attract.steer(&me, 0.5, &n, &l).unwrap().linear.x > 0.0, "k < 0 attracts");
    // clipped: close neighbours on the same side cannot exceed max_acceleration
    let many: Vec<_> = (0..5).map(|i| neighbour(i, &at(0.1, 0.01 * i as f32), 0.5)).collect();
    assert!(inv.steer(&me, 0.5, &many, &l).unwrap().linear.length() <= 10.0 + 1e-4);
    // nearest-only answers the nearest
    let two = [neighbour(1, &at(2.0, 0.0), 0.5), neighbour(2, &at(0.0, 1.0), 0.5)];
    let s = inv.with_gather(Gather::Nearest).steer(&me, 0.5, &two, &l).unwrap();
    assert!(s.linear.x == 0.0 && s.linear.y < 0.0);
    // radius-aware (Green): the gap between bodies, not the centres, sets the range
    let green = Separation::new(0.5, Falloff::Linear).unwrap().radius_aware(0.2).unwrap();
    assert!(green.steer(&me, 0.5, &[neighbour(1, &at(1.6, 0.0), 0.5)], &l).is_some());
    assert!(green.steer(&me, 0.5, &[neighbour(1, &at(1.8, 0.0), 0.5)], &l).is_none());
    // out of range and coincident: nothing to say
    assert!(inv.steer(&me, 0.5, &[neighbour(1, &at(6.0, 0.0), 0.5)], &l).is_none());
    assert!(inv.steer(&me, 0.5, &[neighbour(1, &at(0.0, 0.0), 0.5)], &l).is_none());
}

/// Separation alone spreads a cluster until nobody is within the threshold, then (with drag)
/// everybody comes to rest.
#[test]
fn separation_spreads_a_cluster_then_rests() {
    let l = limits(3.0, 6.0);
    let sep = Separation::new(2.0, Falloff::Linear).unwrap();
    let integ = Integration::new(Scheme::NewtonEuler1, 2.0, 0.0).unwrap();
    let mut rng = Rng::new(11);
    let mut agents: Vec<Kinematic> =
        (0..20).map(|_| at(rng.clamped() * 1.5, rng.clamped() * 1.5)).collect();
    for _ in 0..60 * 20 {
        let snapshot: Vec<Neighbour> =
            agents.iter().enumerate().map(|(i, k)| neighbour(i, k, 0.3)).collect();
        let out: Vec<_> = agents
            .iter()
            .enumerate()
            .map(|(i, k)| {
                sep.steer(k, 0.3, snapshot.iter().filter(|n| n.index != i), &l).unwrap_or_default()
            })
            .collect();
        for (k, s) in agents.iter_mut().zip(&out) {
            k.integrate_with(s, &l, &integ, 1.0 / 60.0);
        }
    }
    let mut min_gap = f32::INFINITY;
    for i in 0..agents.len() {
        for j in i + 1..agents.len() {
            min_gap = min_gap.min((agents[i].position - agents[j].position).length());
        }
    }
    let fastest = agents.iter().map(|k| k.velocity.length()).fold(0.0, f32::max);
    assert!(min_gap > 1.8, "closest pair {min_gap} m (threshold 2 m)");
    assert!(fastest < 0.05, "still moving at {fastest} m/s");
}

/// The lecture's closest-approach vector, and E9/E10: t = −Δp·Δv/|Δv|², exact separation.
#[test]
fn closest_approach_sign_and_exact_formula() {
    let (t, sep) = closest_approach(Vec2::new(10.0, 0.0), Vec2::new(-1.0, 1.0));
    assert!((t - 5.0).abs() < 1e-6, "t = {t} (the book's sign gives −5)");
    assert!((sep - 50.0f32.sqrt()).abs() < 1e-4, "separation {sep} = 7.0711");
    // the book's approximation distance − speed·t = 10 − √2·5 = 2.93 is far off
    assert!((sep - (10.0 - 2.0f32.sqrt() * 5.0)).abs() > 4.0);
    assert_eq!(closest_approach(Vec2::new(3.0, 4.0), Vec2::ZERO), (0.0, 5.0));
}

/// E11: collision avoidance steers away from the predicted relative position.
#[test]
fn collision_avoidance_evades_the_threat() {
    let l = limits(5.0, 10.0);
    let ca = CollisionAvoidance::new(0.0, 10.0).unwrap();
    // me moving +x, threat coming down from above-ahead: they meet near (5, 0.4)
    let me = moving(0.0, 0.0, 1.0, 0.0);
    let threat = moving(5.0, 5.4, 0.0, -1.0);
    let s = ca.steer(&me, 0.5, &[neighbour(1, &threat, 0.5)], &l).unwrap();
    // closest at t = 5.2 with relative position (−0.2, 0.2): evade toward (+, −)
    assert!((s.linear - Vec2::new(1.0, -1.0).normalize() * 10.0).length() < 1e-3, "{:?}", s.linear);
    // beyond the horizon it is ignored
    let short = CollisionAvoidance::new(0.0, 5.0).unwrap();
    assert!(short.steer(&me, 0.5, &[neighbour(1, &threat, 0.5)], &l).is_none());
    assert!((s.linear.length() - 10.0).abs() < 1e-4);
    // moving apart: nothing to do
    assert!(ca.steer(&me, 0.5, &[neighbour(1, &moving(-5.0, 0.0, -1.0, 0.0), 0.5)], &l).is_none());
}

/// The cone check's false positive and false negative, both right with the predictive form.
#[test]
fn cone_check_errs_where_prediction_does_not() {
    let l = limits(5.0, 10.0);
    let cone = ConeCheck::new(0.5, 10.0).unwrap();
    let ca = CollisionAvoidance::new(0.0, 10.0).unwrap();
    let me = moving(0.0, 0.0, 2.0, 0.0);
    // false positive: ahead in the cone, but running away faster
    let ahead_fleeing = [neighbour(1, &moving(4.0, 0.0, 4.0, 0.0), 0.5)];
    assert!(cone.steer(&me, &ahead_fleeing, &l).is_some());
    assert!(ca.steer(&me, 0.5, &ahead_fleeing, &l).is_none());
    // false negative: out of the cone at the side, on a collision course (both reach (6, 0) at t = 3)
    let from_side = [neighbour(1, &moving(6.0, -6.0, 0.0, 2.0), 0.5)];
    assert!(cone.steer(&me, &from_side, &l).is_none());
    assert!(ca.steer(&me, 0.5, &from_side, &l).is_some());
}

/// Two agents on crossing paths pass without touching when avoidance has priority over arrive.
/// (One starts 1 m further back: the perfectly symmetric crossing is a deadlock that needs a
/// tie-break, which the crowd engine provides.)
#[test]
fn crossing_agents_pass_without_touching() {
    let l = limits(2.0, 4.0);
    let radius = 0.5;
    let ca = CollisionAvoidance::new(0.2, 3.0).unwrap();
    let arrive = Arrive::new(0.2, 2.0, 0.2).unwrap();
    let eps = Epsilon::new(0.01).unwrap();
    let targets = [Vec2::new(10.0, 0.0), Vec2::new(0.0, 10.0)];
    let mut agents = [moving(-10.0, 0.0, 2.0, 0.0), moving(0.0, -11.0, 0.0, 2.0)];
    let mut closest = f32::INFINITY;
    for _ in 0..60 * 25 {
        let snapshot = [neighbour(0, &agents[0], radius), neighbour(1, &agents[1], radius)];
        let out: Vec<SteeringOutput> = (0..2)
            .map(|i| {
                let others = snapshot.iter().filter(|n| n.index != i);
                let avoid = ca.steer(&agents[i], radius, others, &l).unwrap_or_default();
                let go = arrive.steer(&agents[i], targets[i], &l).unwrap_or_default();
                prioritize([avoid, go], eps)
            })
            .collect();
        for (k, s) in agents.iter_mut().zip(&out) {
            k.integrate(s, &l, 1.0 / 60.0);
        }
        closest = closest.min((agents[0].position - agents[1].position).length());
    }
    assert!(closest > 2.0 * radius, "bodies touched: {closest} m apart");
    for (k, t) in agents.iter().zip(targets) {
        assert!((k.position - t).length() < 0.3, "ended {:?} from {t:?}", k.position);
    }
    // without avoidance the same pair collides
    let mut plain = [moving(-10.0, 0.0, 2.0, 0.0), moving(0.0, -11.0, 0.0, 2.0)];
    let mut plain_closest = f32::INFINITY;
    for _ in 0..60 * 25 {
        for (k, t) in plain.iter_mut().zip(targets) {
            let s = arrive.steer(k, t, &l).unwrap_or_default();
            k.integrate(&s, &l, 1.0 / 60.0);
        }
        plain_closest = plain_closest.min((plain[0].position - plain[1].position).length());
    }
    assert!(plain_closest < 2.0 * radius);
}

/// Cohesion heads for the centre of mass; alignment matches the mean velocity or heading.
#[test]
fn cohesion_and_alignment_follow_their_neighbours() {
    let l = limits(4.0, 8.0);
    let ns = [
        neighbour(1, &moving(4.0, 0.0, 0.0, 2.0), 0.5),
        neighbour(2, &moving(0.0, 4.0, 0.0, 2.0), 0.5),
    ];
    assert_eq!(Cohesion::center(&ns), Some(Vec2::new(2.0, 2.0)));
    let c = Cohesion::Seek(Seek::new()).steer(&at(0.0, 0.0), &ns, &l).unwrap();
    assert!((c.linear - Vec2::new(1.0, 1.0).normalize() * 8.0).length() < 1e-5);
    assert!(Cohesion::Seek(Seek::new()).steer(&at(0.0, 0.0), &[], &l).is_none());
    let a = Alignment::Velocity(VelocityMatch::new(0.5).unwrap())
        .steer(&at(0.0, 0.0), &ns, &l)
        .unwrap();
    assert!((a.linear - Vec2::new(0.0, 4.0)).length() < 1e-5, "(2 − 0)/0.5 = 4 along +y");
    let h = Alignment::heading(1.0).unwrap().steer(&moving(0.0, 0.0, 1.0, 0.0), &ns, &l).unwrap();
    assert!(h.linear.x < 0.0 && h.linear.y > 0.0, "turns toward +y");
}
