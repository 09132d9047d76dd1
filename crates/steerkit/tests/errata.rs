//! One regression test per erratum of Millington §3.1–3.3, Green and Buckland that concerns the
//! movement model and single-agent behaviours (spec tables "Errata"), named for what it guards.
//! Errata of the math layer (E1 newOrientation, E2 handedness, E4 wrap interval) are unit tests
//! in `src/math/mod.rs`; Green's local-frame guard (G-E2, G-E3) is in `src/kinematic.rs`.

mod common;
use common::*;
use steerkit::geometry::{Circle, Segment};
use steerkit::math::{as_vector, orientation_of, wrap_angle};
use steerkit::prelude::*;
use steerkit::steering::{
    Deceleration, DetectionBox, Estimate, KinematicFlee, Prediction, RayLayout, SeekMode, Stop,
};

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

/// B-E14 (lateral sign): Buckland's lateral term `(r_ob − y)·m` pushes toward the obstacle's
/// side when its centre is 0 < y < r_ob to the left; the detection box always pushes away, with
/// the same magnitude on both sides.
#[test]
fn detection_box_lateral_force_points_away_on_both_sides() {
    let l = Limits::new(4.0, 10.0, 4.0, 20.0).unwrap();
    let b = DetectionBox::new(10.0).unwrap();
    let me = Kinematic::at_rest(Vec2::ZERO, 0.0); // at rest: heading from the orientation, +x
    let left = Circle::new(Vec2::new(5.0, 0.5), 1.0);
    let right = Circle::new(Vec2::new(5.0, -0.5), 1.0);
    // L = 10, closeness (10 − 5)/10 = ½, R = 1.5, depth (1.5 − 0.5)/1.5 = ⅔:
    // lateral = 10 · ⅔ · ½ · (1 + ½) = 5, braking = 0.2 · 10 · ½ = 1
    let a = b.steer(&me, 0.5, [left], &l).unwrap().linear;
    assert!((a - Vec2::new(-1.0, -5.0)).length() < 1e-5, "away to the right: {a:?}");
    let buckland_lateral = (left.radius - 0.5) * (1.0 + 0.5);
    assert!(buckland_lateral > 0.0, "the listing would push left, toward the obstacle");
    let a = b.steer(&me, 0.5, [right], &l).unwrap().linear;
    assert!((a - Vec2::new(-1.0, 5.0)).length() < 1e-5, "mirror image: {a:?}");
}

/// G-E5 (dead ahead): Green's `(0, −y)` is zero for an obstacle straight ahead; the detection
/// box chooses the left and pushes with the full lateral strength.
#[test]
fn detection_box_turns_for_an_obstacle_dead_ahead() {
    let l = Limits::new(4.0, 10.0, 4.0, 20.0).unwrap();
    let b = DetectionBox::new(10.0).unwrap();
    let me = Kinematic { velocity: Vec2::new(2.0, 0.0), ..Kinematic::at_rest(Vec2::ZERO, 0.0) };
    let ahead = Circle::new(Vec2::new(5.0, 0.0), 1.0);
    // speed 2 of 4: L = 15; closeness (15 − 5)/15 = ⅔; depth 1; lateral 10 · ½ · (1 + ⅔)
    let a = b.steer(&me, 0.5, [ahead], &l).unwrap().linear;
    let lateral = 10.0 * 0.5 * (1.0 + 2.0 / 3.0);
    let braking = 0.2 * 10.0 * 2.0 / 3.0;
    assert!((a - Vec2::new(-braking, lateral)).length() < 1e-4, "{a:?}");
    // Green's form for comparison: −y = 0
    assert_eq!(-(ahead.center - me.position).y, 0.0);
    // the ray form's dead-ahead, square-on hit also turns (left), never straight back
    let wall =
        ObstacleSet::new([Segment::new(Vec2::new(5.0, -3.0), Vec2::new(5.0, 3.0)).into()]).unwrap();
    let mut av = ObstacleAvoidance::new(RayLayout::Single, 1.0, 8.0).unwrap();
    assert!(av.steer(&me, &wall, &l, 0.0).unwrap().linear.y > 5.0);
}

/// B-E15 (feeler pairing): the push uses the overshoot of the feeler whose hit is nearest. The
/// listing recomputes the force for each later feeler from its own tip and the kept hit point,
/// so a clear side feeler after a hit centre feeler sets the wrong magnitude.
#[test]
fn wall_feelers_pair_the_hit_with_its_own_feeler() {
    let l = Limits::new(4.0, 10.0, 4.0, 20.0).unwrap();
    let f = WallFeelers::new(4.0).unwrap();
    let me = Kinematic { velocity: Vec2::new(2.0, 0.0), ..Kinematic::at_rest(Vec2::ZERO, 0.0) };
    let wall =
        ObstacleSet::new([Segment::new(Vec2::new(3.0, -1.0), Vec2::new(3.0, 1.0)).into()]).unwrap();
    let [centre, _, right] = f.feelers(&me);
    assert!(wall.cast_ray(&right).is_none(), "the side feelers (2 m at 45°) are clear");
    let hit = wall.cast_ray(&centre).unwrap();
    // the centre feeler overshoots by 4 − 3 = 1 m of its 4 m: a = 10 · ¼ along the normal
    let a = f.steer(&me, &wall, &l).unwrap().linear;
    assert!((a - Vec2::new(-2.5, 0.0)).length() < 1e-5, "{a:?}");
    // the listing's last recomputation: |right tip − centre hit| ≈ 2.125 m instead of 1 m
    let listing = (right.end() - hit.position).length();
    assert!((listing - 2.1249).abs() < 1e-3 && (listing - 1.0).abs() > 1.0);
}

/// B-E15 (one-sided walls): Buckland's force is along the wall's own normal, which pushes a
/// vehicle approaching from behind through the wall. Walls are two-sided here: the push always
/// faces the character.
#[test]
fn wall_feelers_push_back_from_a_wall_met_from_behind() {
    let l = Limits::new(4.0, 10.0, 4.0, 20.0).unwrap();
    let f = WallFeelers::new(4.0).unwrap();
    // the wall's front (left-hand normal of b − a) faces +x; the character comes from −x
    let seg = Segment::new(Vec2::new(3.0, 5.0), Vec2::new(3.0, -5.0));
    assert_eq!(seg.normal(), Vec2::X);
    let wall = ObstacleSet::new([seg.into()]).unwrap();
    let me = Kinematic { velocity: Vec2::new(2.0, 0.0), ..Kinematic::at_rest(Vec2::ZERO, 0.0) };
    let a = f.steer(&me, &wall, &l).unwrap().linear;
    assert!(a.x < 0.0, "pushed back, not through: {a:?}");
}

/// B-E17: hide falls back to evading when there is nothing to hide behind (the released source
/// never does and arrives at the origin).
#[test]
fn hide_without_cover_evades() {
    let l = Limits::new(4.0, 10.0, 4.0, 20.0).unwrap();
    let hide = Hide::new(1.0).unwrap();
    let me = Kinematic::at_rest(Vec2::new(3.0, 4.0), 0.0);
    let hunter = Kinematic::at_rest(Vec2::new(6.0, 8.0), 0.0);
    let a = hide.steer(&me, &hunter, [], &l).unwrap().linear;
    assert!(
        (a - Vec2::new(-6.0, -8.0)).length() < 1e-4,
        "straight away at full acceleration: {a:?}"
    );
}

/// Collision avoidance with two neighbours already overlapping the character: the one moving
/// away (A) and the one moving in (B) both collide "now"; the book never targets A (its time of
/// closest approach is negative) and evades B, in either list order.
#[test]
fn collision_avoidance_evades_the_overlapping_neighbour_moving_in_whatever_the_list_order() {
    let me = Kinematic::at_rest(Vec2::ZERO, 0.0);
    let limits = Limits::new(5.0, 10.0, 4.0, 20.0).unwrap();
    let a = Neighbour::new(0, Vec2::new(1.0, 0.0), Vec2::new(1.0, 0.0), 1.0, me.position);
    let b = Neighbour::new(1, Vec2::new(0.0, -1.2), Vec2::new(0.0, 1.0), 1.0, me.position);
    let avoid = CollisionAvoidance::new(0.0, 5.0).unwrap();
    for list in [[a, b], [b, a]] {
        let s = avoid.steer(&me, 1.0, &list, &limits).unwrap();
        assert!((s.linear - Vec2::new(0.0, 10.0)).length() < 1e-5, "{list:?}: {:?}", s.linear);
    }
}

/// The book's arrive (coasting) with a zero target radius, exactly on the target while moving:
/// its direction is zero, so its desired velocity is 0 and it brakes, −v / time_to_target
/// clipped; only strictly inside a positive radius does it say nothing.
#[test]
fn coasting_arrive_with_a_zero_radius_brakes_on_the_target_like_the_book() {
    let limits = Limits::new(5.0, 10.0, 4.0, 20.0).unwrap();
    let coast = Arrive::new(0.0, 3.0, 0.1).unwrap().with_stop(Stop::Coast);
    let mut me = Kinematic::at_rest(Vec2::new(4.0, 1.0), 0.0);
    me.velocity = Vec2::new(0.5, 0.0);
    let s = coast.steer(&me, me.position, &limits).expect("brakes");
    assert!((s.linear - Vec2::new(-5.0, 0.0)).length() < 1e-6, "{:?}", s.linear);
    me.velocity = Vec2::new(2.0, 0.0);
    let s = coast.steer(&me, me.position, &limits).expect("brakes");
    assert!((s.linear - Vec2::new(-10.0, 0.0)).length() < 1e-6, "clipped: {:?}", s.linear);
    // strictly inside a positive radius the book's coast says nothing
    let wide = Arrive::new(0.5, 3.0, 0.1).unwrap().with_stop(Stop::Coast);
    assert!(wide.steer(&me, me.position + Vec2::new(0.2, 0.0), &limits).is_none());
}
