//! The phenomena the texts describe, shown with numbers (Millington §3.2–3.3, "demonstrable
//! phenomena"; Green; Buckland).

mod common;
use common::*;
use std::f32::consts::{FRAC_PI_4, PI, TAU};
use steerkit::kinematic::{Integration, Scheme};
use steerkit::math::{new_orientation, wrap_angle, Rng};
use steerkit::prelude::*;
use steerkit::steering::{
    Approach, Chase, Deceleration, Estimate, KinematicArrive, KinematicSeek, KinematicWander,
    Prediction, Stop,
};

/// Kinematic seek overshoots a fixed target and wiggles round it; kinematic arrive stops.
#[test]
fn kinematic_seek_wiggles_while_kinematic_arrive_stops() {
    let l = limits(2.0, 10.0);
    let target = Vec2::new(10.05, 0.0);
    let dt = 0.1;
    let simulate = |arrive: bool| {
        let mut k = at(0.0, 0.0);
        let mut xs = Vec::new();
        for _ in 0..200 {
            let request = if arrive {
                KinematicArrive::new(0.25, 0.25).unwrap().steer(&k.to_static(), target, &l)
            } else {
                KinematicSeek.steer(&k.to_static(), target, &l)
            };
            k.apply_kinematic(&request, &l, dt);
            k.orientation = new_orientation(k.orientation, k.velocity);
            xs.push(k.position.x - target.x);
        }
        xs
    };
    let seek = simulate(false);
    let tail = &seek[150..];
    let crossings = tail.windows(2).filter(|w| w[0].signum() != w[1].signum()).count();
    assert!(crossings >= 40, "seek should keep crossing the target, crossed {crossings} times");
    assert!(tail.iter().all(|e| e.abs() > 0.04), "seek never settles on the target");
    // it wiggles by about one step (max_speed·dt = 0.2 m)
    assert!(tail.iter().all(|e| e.abs() < 0.2 + 1e-4));

    let arrive = simulate(true);
    let tail = &arrive[150..];
    assert!(tail.iter().all(|e| e.abs() < 0.25), "arrive stays inside its radius");
    assert!(tail.windows(2).all(|w| w[0] == w[1]), "arrive stands still");
}

/// The lecture's kinematic arrive table and the book's worked speeds.
#[test]
fn kinematic_arrive_matches_worked_examples() {
    let l = Limits::new(16.0, 1.0, 1.0, 1.0).unwrap();
    let arrive = KinematicArrive::new(0.0, 2.0).unwrap();
    let mut k = at(0.0, 0.0);
    let target = Vec2::new(64.0, 0.0);
    let mut distances = vec![];
    let mut speeds = vec![];
    for _ in 0..6 {
        distances.push(target.x - k.position.x);
        let r = arrive.steer(&k.to_static(), target, &l);
        speeds.push(r.velocity.length());
        k.apply_kinematic(&r, &l, 1.0);
    }
    assert_eq!(distances, vec![64.0, 48.0, 32.0, 16.0, 8.0, 4.0]);
    assert_eq!(speeds, vec![16.0, 16.0, 16.0, 8.0, 4.0, 2.0]);

    let book = KinematicArrive::new(0.0, 0.25).unwrap();
    let fast = Limits::new(100.0, 1.0, 1.0, 1.0).unwrap();
    let s = |d: f32| book.steer(&at(0.0, 0.0).to_static(), Vec2::new(d, 0.0), &fast).velocity.x;
    assert!((s(1.0) - 4.0).abs() < 1e-6 && (s(0.25) - 1.0).abs() < 1e-6);
}

/// Dynamic arrive comes to rest inside its target radius without oscillating, from 100 random
/// starts, for each approach ramp.
#[test]
fn arrive_rests_inside_radius_from_random_starts() {
    let l = limits(5.0, 10.0);
    let arrivals = [
        ("millington", Arrive::new(0.5, 5.0, 0.1).unwrap()),
        ("braking", Arrive::with_approach(0.5, Approach::Braking, 0.1).unwrap()),
        (
            "buckland-normal",
            Arrive::with_approach(
                0.5,
                Approach::DecelerationTime(Deceleration::Normal.seconds()),
                0.1,
            )
            .unwrap(),
        ),
    ];
    let mut rng = Rng::new(2024);
    for (name, arrive) in arrivals {
        for start in 0..100 {
            let p = Vec2::new(rng.clamped(), rng.clamped()) * 50.0;
            let v = Vec2::new(rng.clamped(), rng.clamped()) * 3.5;
            let target = Vec2::new(rng.clamped(), rng.clamped()) * 5.0;
            let traj = run(moving(p.x, p.y, v.x, v.y), &l, 1.0 / 60.0, 60 * 30, |k, _| {
                arrive.steer(k, target, &l)
            });
            let inside = |k: &Kinematic| (k.position - target).length() < 0.5;
            let first = traj
                .iter()
                .position(inside)
                .unwrap_or_else(|| panic!("{name} start {start} never arrived"));
            assert!(
                traj[first..].iter().all(inside),
                "{name} start {start}: left the radius after arriving"
            );
            let last = traj.last().unwrap();
            assert!(
                last.velocity.length() < 1e-3,
                "{name} start {start}: still moving {}",
                last.velocity.length()
            );
        }
    }
}

/// The book's literal arrive (no braking inside the radius) lets residual speed carry it out.
#[test]
fn coasting_arrive_drifts_where_braking_arrive_rests() {
    let l = limits(8.0, 4.0); // high speed, low acceleration: the book's warning case
    let coast = Arrive::new(0.3, 2.0, 0.1).unwrap().with_stop(Stop::Coast);
    let brake = Arrive::new(0.3, 2.0, 0.1).unwrap();
    let target = Vec2::new(30.0, 0.0);
    let final_speed = |a: &Arrive| {
        let t = run(moving(0.0, 0.0, 8.0, 0.0), &l, 1.0 / 30.0, 600, |k, _| a.steer(k, target, &l));
        t.last().unwrap().velocity.length()
    };
    assert!(final_speed(&brake) < 1e-3);
    assert!(final_speed(&coast) > 1e-3, "coasting keeps a residual velocity");
}

fn capture_time(pursuer: impl Fn(&Kinematic, &Kinematic) -> Option<SteeringOutput>) -> f32 {
    let l = limits(5.0, 10.0);
    let dt = 1.0 / 60.0;
    let mut me = at(0.0, 0.0);
    let mut prey = moving(20.0, 0.0, 0.0, 3.0);
    for i in 0..60 * 60 {
        if (prey.position - me.position).length() < 0.5 {
            return i as f32 * dt;
        }
        let s = pursuer(&me, &prey).unwrap_or_default();
        me.integrate(&s, &l, dt);
        prey.integrate(&SteeringOutput::default(), &limits(3.0, 0.0), dt);
    }
    f32::INFINITY
}

/// Pursue intercepts a straight-moving target sooner than seek (Fig 3.12).
#[test]
fn pursue_intercepts_sooner_than_seek() {
    let l = limits(5.0, 10.0);
    let seek = capture_time(|me, prey| Seek::new().steer(me, prey.position, &l));
    let pursue = Pursue::new(3.0).unwrap();
    let pursued = capture_time(|me, prey| pursue.steer(me, prey, &l));
    let buckland =
        Pursue { prediction: Prediction::buckland(10.0).unwrap(), chase: Chase::Seek(Seek::new()) };
    let bucklanded = capture_time(|me, prey| buckland.steer(me, prey, &l));
    assert!(seek.is_finite() && pursued.is_finite() && bucklanded.is_finite());
    assert!(pursued < 0.9 * seek, "pursue {pursued} s vs seek {seek} s");
    assert!(bucklanded < 0.9 * seek, "buckland pursue {bucklanded} s vs seek {seek} s");
}

/// Plain pursue overshoots a slower target; pursue delegating to arrive settles on it.
#[test]
fn pursue_with_arrive_does_not_overshoot_a_slow_target() {
    let l = limits(6.0, 6.0);
    let dt = 1.0 / 60.0;
    let overshoot = |chase: Chase| {
        let p = Pursue { prediction: Prediction::new(1.0, Estimate::CurrentSpeed).unwrap(), chase };
        let mut me = at(0.0, 0.0);
        let mut prey = moving(10.0, 0.0, 0.5, 0.0);
        let mut worst_ahead: f32 = 0.0;
        for _ in 0..60 * 20 {
            let s = p.steer(&me, &prey, &l).unwrap_or_default();
            me.integrate(&s, &l, dt);
            prey.position += prey.velocity * dt;
            worst_ahead = worst_ahead.max(me.position.x - prey.position.x);
        }
        worst_ahead
    };
    let seek = overshoot(Chase::Seek(Seek::new()));
    let arrive = overshoot(Chase::Arrive(Arrive::new(0.2, 3.0, 0.1).unwrap()));
    assert!(seek > 1.0, "seek-based pursue overshoots by {seek} m");
    assert!(arrive < 0.6, "arrive-based pursue stays within {arrive} m of the prediction");
}

/// Evade keeps a larger distance than flee from a predicting pursuer that cuts across its path,
/// and is no worse than flee against one that comes straight at it.
#[test]
fn evade_keeps_more_distance_than_flee() {
    let dt = 1.0 / 60.0;
    let hunter_l = limits(6.0, 6.0);
    let prey_l = limits(4.0, 20.0);
    let pursue = Pursue::new(2.0).unwrap();
    let closest = |hunter: Kinematic, evade: Option<Evade>| {
        let mut hunter = hunter;
        let mut prey = at(0.0, 0.0);
        let mut closest = f32::INFINITY;
        for _ in 0..60 * 10 {
            let sp = match &evade {
                Some(e) => e.steer(&prey, &hunter, &prey_l),
                None => Flee::new().steer(&prey, hunter.position, &prey_l),
            };
            let sh = pursue.steer(&hunter, &prey, &hunter_l);
            prey.integrate(&sp.unwrap_or_default(), &prey_l, dt);
            hunter.integrate(&sh.unwrap_or_default(), &hunter_l, dt);
            closest = closest.min((prey.position - hunter.position).length());
        }
        closest
    };
    let book = Evade {
        prediction: Prediction::new(2.0, Estimate::CurrentSpeed).unwrap(),
        flee: Flee::new(),
    };
    for hunter in [moving(0.0, -8.0, 5.0, 0.0), moving(-6.0, -6.0, 5.0, 0.0)] {
        let fled = closest(hunter, None);
        let evaded = closest(hunter, Some(Evade::new(2.0).unwrap()));
        assert!(evaded > fled + 1.0, "evade closest {evaded} m vs flee closest {fled} m");
        assert!(closest(hunter, Some(book)) > fled + 1.0);
    }
    // head-on: the closing-speed estimate never predicts past the evader
    let head_on = moving(-8.0, 0.0, 5.0, 0.0);
    let fled = closest(head_on, None);
    assert!(closest(head_on, Some(Evade::new(2.0).unwrap())) >= fled - 1e-3);
    assert!(closest(head_on, Some(book)) < 0.1, "the book's estimate runs into a head-on pursuer");
}

/// Align turns the short way across the ±π seam (Fig 3.10) and stops inside its radius.
#[test]
fn align_takes_the_short_way_across_pi() {
    let l = Limits::new(1.0, 1.0, 2.0, 8.0).unwrap();
    let align = Align::new(0.01, 0.5, 0.1).unwrap();
    let start = 0.9 * TAU;
    let target = 0.1 * TAU;
    let mut k = Kinematic { orientation: wrap_angle(start), ..Default::default() };
    let mut travelled = 0.0;
    for _ in 0..600 {
        let s = align.steer(&k, target, &l).unwrap_or_default();
        let before = k.orientation;
        k.integrate(&s, &l, 1.0 / 60.0);
        travelled += wrap_angle(k.orientation - before);
    }
    // short way: +0.2·2π ≈ 1.2566 rad counter-clockwise, not −0.8·2π
    assert!((travelled - 0.2 * TAU).abs() < 0.02, "travelled {travelled}");
    assert!(wrap_angle(k.orientation - target).abs() < 0.02);
    assert!(k.rotation.abs() < 1e-3);
    // "look away": align to target + π
    let away =
        align.steer(&Kinematic { orientation: 0.0, ..Default::default() }, PI + 0.3, &l).unwrap();
    assert!(away.angular < 0.0, "π + 0.3 is reached fastest clockwise");
}

/// Look where you're going converges to the heading of motion and then stops turning.
#[test]
fn look_where_youre_going_converges_to_motion_heading() {
    let l = Limits::new(5.0, 5.0, 3.0, 10.0).unwrap();
    let lwyg = LookWhereYoureGoing::new(Align::new(0.005, 0.4, 0.1).unwrap());
    let mut k =
        Kinematic { velocity: Vec2::new(1.0, 1.0), orientation: -2.0, ..Default::default() };
    for _ in 0..240 {
        let s = lwyg.steer(&k, &l).unwrap_or_default();
        k.integrate(&SteeringOutput { linear: Vec2::ZERO, ..s }, &l, 1.0 / 60.0);
    }
    assert!(wrap_angle(k.orientation - FRAC_PI_4).abs() < 0.01, "orientation {}", k.orientation);
    assert!(k.rotation.abs() < 0.01);
    assert!(lwyg.steer(&at(0.0, 0.0), &l).is_none(), "no velocity, no preference");
}

fn heading_jerk(headings: &[f32]) -> f32 {
    let d: Vec<f32> = headings.windows(2).map(|w| wrap_angle(w[1] - w[0])).collect();
    d.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f32>() / (d.len() - 1) as f32
}

/// Dynamic wander turns more smoothly than kinematic wander with the same seed and rate.
#[test]
fn dynamic_wander_is_smoother_than_kinematic_wander() {
    let l = Limits::new(3.0, 6.0, 3.0, 12.0).unwrap();
    let dt = 1.0 / 60.0;
    let (seed, rate) = (99, 3.0);
    let mut kw = KinematicWander::new(rate, seed).unwrap();
    let mut k = at(0.0, 0.0);
    let mut kinematic = vec![];
    for _ in 0..3000 {
        let r = kw.steer(&k.to_static(), &l, dt);
        k.apply_kinematic(&r, &Limits::new(3.0, 6.0, 1e6, 12.0).unwrap(), dt);
        kinematic.push(k.orientation);
    }
    let face = Face::new(Align::new(0.01, 0.6, 0.1).unwrap());
    let mut w = Wander::new(4.0, 1.5, rate, face, seed).unwrap();
    let mut d = at(0.0, 0.0);
    let mut dynamic = vec![];
    for _ in 0..3000 {
        let s = w.steer(&d, &l, dt).unwrap();
        d.integrate(&s, &l, dt);
        dynamic.push(d.orientation);
    }
    let (jk, jd) = (heading_jerk(&kinematic), heading_jerk(&dynamic));
    assert!(jd < 0.1 * jk, "angular jerk dynamic {jd} vs kinematic {jk}");
    // and dynamic wander does wander: the heading visits a wide range
    let spread = dynamic.iter().fold(0.0f32, |m, h| m.max(wrap_angle(h - dynamic[0]).abs()));
    assert!(spread > 1.0, "heading spread {spread}");
}

/// Offset pursuit: a follower holds its slot in the leader's frame, and the slot turns with the
/// leader.
#[test]
fn offset_pursuit_holds_slot_in_leader_frame() {
    let l = limits(6.0, 12.0);
    let op = OffsetPursuit::new(Vec2::new(-2.0, 1.5), 1.0).unwrap();
    let dt = 1.0 / 60.0;
    let mut leader =
        Kinematic { velocity: Vec2::new(0.0, 2.0), orientation: PI / 2.0, ..at(0.0, 0.0) };
    let mut follower = at(5.0, -5.0);
    for _ in 0..60 * 15 {
        let s = op.steer(&follower, &leader, &l).unwrap_or_default();
        follower.integrate(&s, &l, dt);
        leader.position += leader.velocity * dt;
    }
    // leader faces +y: local (−2, 1.5) = 2 m behind (−y), 1.5 m to its left (−x)
    let slot = leader.position + Vec2::new(-1.5, -2.0);
    assert!((op.slot(&leader) - slot).length() < 1e-4);
    assert!(
        (follower.position - slot).length() < 0.05,
        "error {}",
        (follower.position - slot).length()
    );
    assert!((follower.velocity - leader.velocity).length() < 0.05);
    // Buckland's literal form lags behind a moving leader
    let literal = OffsetPursuit { feed_forward: false, ..op };
    let mut f2 = at(5.0, -5.0);
    let mut leader =
        Kinematic { velocity: Vec2::new(0.0, 2.0), orientation: PI / 2.0, ..at(0.0, 0.0) };
    for _ in 0..60 * 15 {
        let s = literal.steer(&f2, &leader, &l).unwrap_or_default();
        f2.integrate(&s, &l, dt);
        leader.position += leader.velocity * dt;
    }
    let lag = (f2.position - literal.slot(&leader)).length();
    assert!(lag > 0.3 && lag < 0.6, "literal lag {lag}");
}

/// Interpose settles at the (biased) point between two static characters and tracks moving ones.
#[test]
fn interpose_gets_between() {
    let l = limits(6.0, 12.0);
    let a = at(0.0, 0.0);
    let b = at(10.0, 4.0);
    let mid = Interpose::new(0.5, 1.0).unwrap();
    let biased = Interpose::new(0.25, 1.0).unwrap();
    for (ip, expect) in [(mid, Vec2::new(5.0, 2.0)), (biased, Vec2::new(2.5, 1.0))] {
        let t = run(at(-3.0, 8.0), &l, 1.0 / 60.0, 600, |k, _| ip.steer(k, &a, &b, &l));
        assert!((t.last().unwrap().position - expect).length() < 0.05);
    }
    // moving pair: the bodyguard stays near the segment between them
    let mut a = moving(0.0, 0.0, 1.0, 0.5);
    let mut b = moving(10.0, 0.0, 1.0, -0.5);
    let mut k = at(5.0, 5.0);
    let dt = 1.0 / 60.0;
    for _ in 0..600 {
        let s = mid.steer(&k, &a, &b, &l).unwrap_or_default();
        k.integrate(&s, &l, dt);
        a.position += a.velocity * dt;
        b.position += b.velocity * dt;
    }
    let midpoint = (a.position + b.position) / 2.0;
    assert!((k.position - midpoint).length() < 0.5, "off by {}", (k.position - midpoint).length());
}

/// Seek orbits a moving target; with drag the orbit spirals in (Millington §3.3.3).
#[test]
fn seek_orbits_and_drag_spirals_in() {
    let l = limits(4.0, 4.0);
    let dt = 1.0 / 60.0;
    let late_distance = |drag: f32| {
        let integ = Integration::new(Scheme::NewtonEuler1, drag, 0.0).unwrap();
        let mut k = moving(0.0, -3.0, 4.0, 0.0);
        let mut worst: f32 = 0.0;
        for i in 0..60 * 30 {
            let s = Seek::new().steer(&k, Vec2::ZERO, &l).unwrap_or_default();
            k.integrate_with(&s, &l, &integ, dt);
            if i > 60 * 25 {
                worst = worst.max(k.position.length());
            }
        }
        worst
    };
    let plain = late_distance(0.0);
    let dragged = late_distance(1.5);
    assert!(plain > 1.0, "plain seek keeps orbiting at {plain} m");
    assert!(dragged < 0.5 * plain, "drag spirals in: {dragged} m vs {plain} m");
}

/// Pursue delegating to arrive (max-speed estimate) closes on a moving prey and then rides with
/// it at its velocity; with the current-speed estimate it can settle flying alongside, ahead.
#[test]
fn pursue_arriving_catches_and_matches_velocity() {
    let l = limits(5.0, 10.0);
    let arrive = Arrive::new(0.3, 3.0, 0.1).unwrap();
    let chase = |pursue: Pursue| {
        let mut me = at(5.0, 0.0);
        let mut prey = moving(0.0, 0.0, 1.5, 1.0);
        for _ in 0..60 * 10 {
            me.integrate(&pursue.steer(&me, &prey, &l).unwrap_or_default(), &l, 1.0 / 60.0);
            prey.position += prey.velocity * (1.0 / 60.0);
        }
        ((me.position - prey.position).length(), (me.velocity - prey.velocity).length())
    };
    let (gap, dv) = chase(Pursue::arriving(2.0, arrive).unwrap());
    // it stops closing inside the 0.3 m target radius of the aim point, which leads the prey by
    // |v|·d / max_speed
    assert!(gap < 0.5 && dv < 0.01, "gap {gap} m, velocity error {dv} m/s");
    let (gap, _) = chase(Pursue { chase: Chase::Arrive(arrive), ..Pursue::new(2.0).unwrap() });
    assert!(gap > 2.0, "current-speed estimate parks {gap} m ahead");
}
