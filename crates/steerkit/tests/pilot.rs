//! Green's path-following techniques (dog on a string, reprojection, grappling hooks),
//! Buckland's waypoint seek distance, and Green's pilot metrics (§18–19).

mod common;
use common::*;
use steerkit::geometry::closest_point_on_segment;
use steerkit::neighbours::{BruteForceNeighbours, NeighbourQuery};
use steerkit::path::WaypointCursor;
use steerkit::prelude::*;
use steerkit::steering::{
    is_crowded, DogOnAString, GrapplingHooks, Pilot, PilotEvent, Reprojection,
};

const DT: f32 = 1.0 / 60.0;

/// An L: 20 m along +x, then 20 m along +y.
fn ell() -> Polyline {
    Polyline::open(vec![Vec2::ZERO, Vec2::new(20.0, 0.0), Vec2::new(20.0, 20.0)])
        .unwrap()
        .with_search_window(Some(5.0))
        .unwrap()
}

fn arrive() -> Arrive {
    Arrive::new(0.1, 3.0, 0.2).unwrap()
}

fn off_path(path: &Polyline, p: Vec2) -> f32 {
    (0..path.segment_count())
        .map(|i| {
            let (a, b) = path.segment(i).unwrap();
            closest_point_on_segment(p, a, b).0.distance(p)
        })
        .fold(f32::INFINITY, f32::min)
}

/// Each technique takes a character from the start of the L to rest at its end.
#[test]
fn each_technique_follows_the_path_to_its_end() {
    let path = ell();
    let l = limits(4.0, 8.0);
    let end = Vec2::new(20.0, 20.0);
    let mut dog = DogOnAString::new(2.0, arrive()).unwrap();
    let mut repro = Reprojection::new(0.5, 0.5, 2.0, arrive()).unwrap();
    let mut hooks = GrapplingHooks::for_radius(0.5, arrive()).unwrap();
    let tracks = [
        run(at(0.0, 0.0), &l, DT, 1200, |k, _| dog.steer(k, &path, &l, DT)),
        // reprojection only corrects the course: a cruise drive keeps it moving inside the band
        run(at(0.0, 0.0), &l, DT, 1200, |k, _| {
            repro.steer(k, &path, &l).or_else(|| {
                Some(SteeringOutput::linear(k.velocity.normalize_or_zero() * l.max_acceleration()))
            })
        }),
        run(at(0.0, 0.0), &l, DT, 1200, |k, _| hooks.steer(k, &path, &l)),
    ];
    for (name, track) in ["dog", "reprojection", "hooks"].iter().zip(&tracks) {
        let last = track.last().unwrap();
        assert!(last.position.distance(end) < 0.15, "{name} ended at {:?}", last.position);
        assert!(last.velocity.length() < 0.05, "{name} still moving {:?}", last.velocity);
        let worst = track.iter().map(|k| off_path(&path, k.position)).fold(0.0, f32::max);
        // corner overshoot bounded by the turning radius at full speed, v²/a = 2 m
        assert!(worst < 2.0, "{name} strayed {worst} m");
    }
    assert!(hooks.is_finished(tracks[2].last().unwrap(), &path));
}

/// Reprojection applies no force while the predicted position stays inside the path radius and
/// the character moves forward; outside it, or at rest, it steers.
#[test]
fn reprojection_applies_no_force_inside_the_path_radius() {
    let path = ell();
    let l = limits(4.0, 8.0);
    let mut r = Reprojection::new(0.5, 0.5, 2.0, arrive()).unwrap().with_state(5.0);
    // future (6.5, 0.3): 0.3 m off, inside 0.5
    assert!(r.steer(&moving(5.0, 0.3, 3.0, 0.0), &path, &l).is_none());
    assert!((r.state() - 6.5).abs() < 1e-4);
    // future (6.5, 0.7): outside: seek the point 2 m past the projection, (8.5, 0)
    let s = r.steer(&moving(5.0, 0.7, 3.0, 0.0), &path, &l).unwrap().linear;
    let expect = (Vec2::new(8.5, 0.0) - Vec2::new(5.0, 0.7)).normalize() * 8.0;
    assert!((s - expect).length() < 1e-4, "{s:?}");
    // on the path but at rest or going backwards: still set going forward
    assert!(r.steer(&at(5.0, 0.0), &path, &l).unwrap().linear.x > 7.9);
    assert!(r.steer(&moving(5.0, 0.0, -1.0, 0.0), &path, &l).unwrap().linear.x > 7.9);
    // the book's chase-the-rabbit follower by contrast always steers
    let mut f = FollowPath::new(2.0).unwrap();
    assert!(f.steer(&moving(5.0, 0.3, 3.0, 0.0), &path, &l).is_some());
}

/// Waypoints advance in order within the seek distance; a seek distance of 0 never advances
/// (Buckland's sensitivity); the last waypoint is arrived at.
#[test]
fn grappling_hooks_advance_within_the_seek_distance() {
    let path = ell();
    let l = limits(4.0, 8.0);
    let mut hooks = GrapplingHooks::buckland(1.0).unwrap();
    let mut order = vec![];
    run(at(0.0, 0.0), &l, DT, 900, |k, _| {
        let s = hooks.steer(k, &path, &l);
        let i = hooks.state().index(&path);
        if order.last() != Some(&i) {
            order.push(i);
        }
        s
    });
    assert_eq!(order, vec![1, 2], "0 is passed at once (we start on it), then 1, then 2");
    let mut never = GrapplingHooks::buckland(0.0).unwrap();
    let track = run(at(0.0, 0.0), &l, DT, 300, |k, _| never.steer(k, &path, &l));
    assert_eq!(never.state().index(&path), 0);
    assert!(track.iter().all(|k| k.position.length() < 1e-3), "sits on waypoint 0 for ever");
    // Green's closeness is 2 × radius
    let green = GrapplingHooks::for_radius(0.75, arrive()).unwrap();
    let mut probe = green.with_state(WaypointCursor::at(1));
    probe.steer(&at(18.6, 0.0), &path, &l);
    assert_eq!(probe.state().index(&path), 2, "1.4 m < 1.5 m from waypoint 1: advanced");
}

/// The dog's leash waits for a character held back: it stops at twice the string length; a
/// fixed-speed leash runs away.
#[test]
fn dog_on_a_string_leash_waits_when_the_string_pulls() {
    let path = Polyline::open(vec![Vec2::ZERO, Vec2::new(100.0, 0.0)]).unwrap();
    let l = limits(4.0, 8.0);
    let held = at(0.0, 0.0);
    let mut dog = DogOnAString::new(2.0, arrive()).unwrap();
    for _ in 0..600 {
        dog.steer(&held, &path, &l, DT);
    }
    assert!(dog.state() > 3.9 && dog.state() <= 4.0, "leash at {} m (2 × 2 m)", dog.state());
    let mut fixed = DogOnAString::new(2.0, arrive()).unwrap().with_fixed_speed(4.0).unwrap();
    for _ in 0..600 {
        fixed.steer(&held, &path, &l, DT);
    }
    assert!((fixed.state() - 40.0).abs() < 0.01, "runs on: {}", fixed.state());
}

/// is_finished_path rises monotonically to 1 on free travel, where is_stuck stays 0; pushed
/// back every tick, is_stuck rises to 1 and the pilot asks for a re-path; re-nav resets it.
#[test]
fn pilot_metrics_track_progress_and_report_when_stuck() {
    let path = ell();
    let l = limits(4.0, 8.0);
    let mut hooks = GrapplingHooks::for_radius(0.5, arrive()).unwrap();
    let mut pilot = Pilot::new(0.75).unwrap().with_arrival_tolerance(0.15).unwrap();
    pilot.renav(&path, Vec2::ZERO, 0);
    assert_eq!(pilot.total_distance(), 40.0);
    let mut last = 0.0;
    let mut event = PilotEvent::Travelling;
    let mut max_stuck = 0.0f32;
    let mut k = at(0.0, 0.0);
    for _ in 0..1200 {
        let s = hooks.steer(&k, &path, &l).unwrap_or_default();
        k.integrate(&s, &l, DT);
        event = pilot.update(&path, k.position, hooks.state().index(&path));
        assert!(pilot.is_finished_path() >= last, "monotonic");
        last = pilot.is_finished_path();
        if event == PilotEvent::Finished {
            break;
        }
        max_stuck = max_stuck.max(pilot.is_stuck());
    }
    assert_eq!(event, PilotEvent::Finished);
    assert_eq!(pilot.is_finished_path(), 1.0);
    // progress every update except the few where the target switches waypoint (at rest, the
    // first step moves 0.002 m, and at the corner the remaining distance is momentarily equal)
    assert!(max_stuck <= 3.0 / 32.0, "free travel: is_stuck at most {max_stuck}");

    // pushed 0.1 m back along the path every update
    let mut pilot = Pilot::new(0.75).unwrap();
    pilot.renav(&path, Vec2::new(10.0, 0.0), 1);
    let mut x = 10.0;
    let mut first_stuck = None;
    for i in 0..40 {
        x -= 0.1;
        if pilot.update(&path, Vec2::new(x, 0.0), 1) == PilotEvent::Stuck && first_stuck.is_none() {
            first_stuck = Some(i + 1);
        }
    }
    assert_eq!(first_stuck, Some(24), "0.75 × 32 = 24 updates without progress");
    assert_eq!(pilot.is_stuck(), 1.0);
    assert_eq!(pilot.is_finished_path(), 0.0, "clamped at 0 after the push-back");
    pilot.renav(&path, Vec2::new(x, 0.0), 1);
    assert_eq!((pilot.is_stuck(), pilot.is_finished_path()), (0.0, 0.0));
}

/// is_crowded: summed body areas near the next waypoint over a threshold area, saturating at 1.
#[test]
fn is_crowded_measures_density_at_the_next_waypoint() {
    let waypoint = Vec2::new(20.0, 0.0);
    let agents: Vec<Kinematic> = (0..10).map(|i| at(19.0 + 0.2 * i as f32, 0.5)).collect();
    let brute = BruteForceNeighbours::new(&agents, 0.5).unwrap();
    let q = NeighbourQuery::new(waypoint, 1.5);
    let area = core::f32::consts::PI * 0.25;
    let n = brute.count_within(&q);
    assert_eq!(n, 10);
    let c = is_crowded(&brute, &q, 20.0 * area).unwrap();
    assert!((c - 0.5).abs() < 1e-5, "10 bodies of 20: {c}");
    assert_eq!(is_crowded(&brute, &q, 5.0 * area).unwrap(), 1.0, "saturates");
    let empty = NeighbourQuery::new(Vec2::new(50.0, 50.0), 1.5);
    assert_eq!(is_crowded(&brute, &empty, 1.0).unwrap(), 0.0);
    // coincident neighbours are fine
    let same = vec![at(20.0, 0.0); 4];
    let brute = BruteForceNeighbours::new(&same, 0.5).unwrap();
    assert!((is_crowded(&brute, &q, 8.0 * area).unwrap() - 0.5).abs() < 1e-5);
    assert!(is_crowded(&brute, &q, 0.0).is_err());
}
