//! One regression test per erratum of Millington §3.1–3.3, Green and Buckland that concerns the
//! movement model and single-agent behaviours (spec tables "Errata"), named for what it guards.
//! Errata of the math layer (E1 newOrientation, E2 handedness, E4 wrap interval) are unit tests
//! in `src/math.rs`; Green's local-frame guard (G-E2, G-E3) is in `src/kinematic.rs`.

mod common;
use common::*;
use steerkit::*;

/// M-E3: flee (kinematic and dynamic) moves away from the threat.
#[test]
fn flee_moves_away_from_threat() {
    let l = limits(3.0, 5.0);
    let me = at(1.0, 1.0);
    let kin = KinematicFlee.steer(&me.to_static(), Vec2::ZERO, &l);
    assert!((kin.velocity - Vec2::new(1.0, 1.0).normalize() * 3.0).length() < 1e-5);
    let dynamic = Flee::new().steer(&me, Vec2::ZERO, &l).unwrap();
    assert!((dynamic.linear - Vec2::new(1.0, 1.0).normalize() * 5.0).length() < 1e-5);
}

/// M-E5: pursue rebuilds its surrogate target from the pursued character on every call; nothing
/// accumulates between calls.
#[test]
fn pursue_surrogate_is_rebuilt_each_call() {
    let l = limits(4.0, 8.0);
    let p = Pursue::new(1.0).unwrap();
    let me = moving(0.0, 0.0, 2.0, 0.0);
    let prey = moving(10.0, 0.0, 0.0, 1.0);
    let first = p.steer(&me, &prey, &l).unwrap();
    let second = p.steer(&me, &prey, &l).unwrap();
    assert_eq!(first, second);
    // t = min(max_prediction, d / |v|) = min(1, 10/2) = 1 s ⇒ aim (10, 1)
    assert!((p.prediction.predict(&me, &prey, &l) - Vec2::new(10.0, 1.0)).length() < 1e-6);
    assert!((first.linear - Vec2::new(10.0, 1.0).normalize() * 8.0).length() < 1e-5);
}

/// M-E6: face on the target itself has nothing to say (the book returns the target).
#[test]
fn face_on_target_returns_none() {
    let face = Face::new(Align::new(0.0, 0.5, 0.1).unwrap());
    assert!(face.steer(&at(2.0, 3.0), Vec2::new(2.0, 3.0), &limits(1.0, 1.0)).is_none());
}

/// M-E16: wander still accelerates forward when face has nothing to say.
#[test]
fn wander_accelerates_when_face_returns_none() {
    let face = Face::new(Align::new(0.0, 0.5, 0.1).unwrap());
    // zero offset and radius: the wander target is the character's own position
    let mut w = Wander::new(0.0, 0.0, 1.0, face, 3).unwrap();
    let me = Kinematic { orientation: 1.0, ..at(0.0, 0.0) };
    let s = w.steer(&me, &limits(2.0, 5.0), 1.0 / 60.0).unwrap();
    assert!((s.linear - as_vector(1.0) * 5.0).length() < 1e-5);
    assert_eq!(s.angular, 0.0);
}

/// M-E18: Millington's pursue estimates the look-ahead from the character's current speed (its
/// code), not its maximum speed (its prose); the max-speed form is a separate estimate.
#[test]
fn pursue_prediction_uses_current_speed_by_default() {
    let l = limits(10.0, 1.0);
    let prey = moving(6.0, 0.0, 0.0, 1.0);
    let slow = moving(0.0, 0.0, 2.0, 0.0);
    let current = Prediction::new(100.0, Estimate::CurrentSpeed).unwrap();
    let max = Prediction::new(100.0, Estimate::MaxSpeed).unwrap();
    assert!((current.time(&slow, &prey, &l) - 3.0).abs() < 1e-6); // 6 m / 2 m/s
    assert!((max.time(&slow, &prey, &l) - 0.6).abs() < 1e-6); // 6 m / 10 m/s
                                                              // a standing pursuer takes the cap, without dividing by zero
    assert_eq!(current.time(&at(0.0, 0.0), &prey, &l), 100.0);
}

/// G-E1: the constrained update adds the acceleration once (Green's first listing adds the
/// velocity twice and never uses the acceleration).
#[test]
fn integration_adds_velocity_once() {
    let l = limits(100.0, 10.0);
    let mut k = moving(0.0, 0.0, 3.0, 0.0);
    k.integrate(&SteeringOutput::linear(Vec2::new(0.0, 2.0)), &l, 0.5);
    assert_eq!(k.velocity, Vec2::new(3.0, 1.0));
    assert_eq!(k.position, Vec2::new(1.5, 0.0));
}

/// G-E4: arrive exactly on its target (distance 0) is defined: it brakes, never divides by zero.
#[test]
fn arrive_at_zero_distance_is_finite() {
    let l = limits(5.0, 10.0);
    for arrive in [Arrive::new(0.0, 2.0, 0.1).unwrap(), Arrive::buckland(Deceleration::Fast)] {
        let s = arrive.steer(&moving(1.0, 1.0, 0.5, 0.0), Vec2::ONE, &l).unwrap();
        assert!(s.is_finite());
        assert!((s.linear - Vec2::new(-5.0, 0.0)).length() < 1e-5, "brakes at −v/T = (−5, 0)");
        assert!(
            arrive.steer(&at(1.0, 1.0), Vec2::ONE, &l).is_none(),
            "at rest on target: nothing to say"
        );
    }
}

/// Green §3: seek in the desired-velocity form returns −v/T on the target (stopping the vehicle),
/// relying on normalize(0) = 0.
#[test]
fn reynolds_seek_on_target_brakes() {
    let seek = Seek::with_mode(SeekMode::DesiredVelocity { time_to_target: 0.5 }).unwrap();
    let s =
        seek.steer(&moving(2.0, 2.0, 1.0, -1.0), Vec2::new(2.0, 2.0), &limits(5.0, 100.0)).unwrap();
    assert!((s.linear - Vec2::new(-2.0, 2.0)).length() < 1e-6);
}

/// B-E11: flee's panic distance is measured to the threat's position.
#[test]
fn flee_panic_distance_measures_to_threat() {
    let flee = Flee::with(SeekMode::FullAcceleration, Some(100.0)).unwrap();
    let l = limits(1.0, 1.0);
    assert!(flee.steer(&at(0.0, 0.0), Vec2::new(100.1, 0.0), &l).is_none());
    assert!(flee.steer(&at(0.0, 0.0), Vec2::new(99.9, 0.0), &l).is_some());
}

/// B-E12: the turnaround time is 0 for a target dead ahead and 2·coefficient = 1 s dead behind.
#[test]
fn turnaround_time_is_zero_ahead_and_one_second_behind() {
    let l = limits(1.0, 1.0);
    let plain = Prediction::new(50.0, Estimate::MaxSpeed).unwrap();
    let with = plain.with_turnaround(0.5).unwrap();
    let me = at(0.0, 0.0); // faces +x
    let ahead = at(10.0, 0.0);
    let behind = at(-10.0, 0.0);
    assert!((with.time(&me, &ahead, &l) - plain.time(&me, &ahead, &l)).abs() < 1e-6);
    assert!((with.time(&me, &behind, &l) - plain.time(&me, &behind, &l) - 1.0).abs() < 1e-6);
}

/// Buckland's head-on shortcut fires exactly when the evader is ahead and faces us within ≈18°.
#[test]
fn head_on_shortcut_needs_ahead_and_facing() {
    let l = limits(1.0, 1.0);
    let p = Prediction::new(5.0, Estimate::MaxSpeed).unwrap().with_head_on_shortcut(true);
    let me = at(0.0, 0.0);
    let facing_us = Kinematic {
        orientation: std::f32::consts::PI,
        velocity: Vec2::new(-1.0, 0.0),
        ..at(10.0, 0.0)
    };
    assert_eq!(p.time(&me, &facing_us, &l), 0.0);
    let askew = Kinematic { orientation: std::f32::consts::PI - 0.4, ..facing_us }; // 23°
    assert!(p.time(&me, &askew, &l) > 0.0);
    let behind_us = Kinematic { position: Vec2::new(-10.0, 0.0), ..facing_us };
    assert!(p.time(&me, &behind_us, &l) > 0.0);
}

/// B-E13: Buckland's wander jitter is per second: the target's drift after one second is the same
/// whatever the frame rate (the listing applies the per-second jitter every frame).
#[test]
fn wander_jitter_spread_is_frame_rate_independent() {
    let l = limits(1.0, 1.0);
    let spread = |dt: f32| {
        let steps = (1.0 / dt).round() as usize;
        let mut total = 0.0f64;
        let runs = 400;
        for seed in 0..runs {
            let mut w = WanderJitter::new(1.0, 2.0, 1.0, seed).unwrap();
            let start = orientation_of(w.local_target());
            for _ in 0..steps {
                let _ = w.steer(&at(0.0, 0.0), &l, dt);
            }
            let moved = wrap_angle(orientation_of(w.local_target()) - start);
            total += (moved * moved) as f64;
        }
        (total / runs as f64).sqrt()
    };
    let (coarse, fine) = (spread(1.0 / 30.0), spread(1.0 / 240.0));
    assert!(
        (coarse - fine).abs() < 0.15 * coarse,
        "rms drift {coarse} at 30 Hz vs {fine} at 240 Hz"
    );
    // and the target stays on the circle
    let mut w = WanderJitter::new(1.2, 2.0, 80.0, 9).unwrap();
    for _ in 0..1000 {
        let s = w.steer(&at(0.0, 0.0), &l, 1.0 / 60.0).unwrap();
        assert!((w.local_target().length() - 1.2).abs() < 1e-4);
        assert!(s.linear.length() <= 1.0 + 1e-5);
    }
}
