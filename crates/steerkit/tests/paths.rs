//! Path following (Millington §3.3.12): erratum E7, the predictive follower cutting a hairpin,
//! reversed following, looping paths and arrival at the end.

mod common;
use common::*;
use steerkit::geometry::closest_point_on_segment;
use steerkit::prelude::*;

fn hairpin() -> Polyline {
    Polyline::open(vec![Vec2::new(0.0, 0.0), Vec2::new(20.0, 0.0), Vec2::new(0.0, 3.0)])
        .unwrap()
        .with_search_window(Some(4.0))
        .unwrap()
}

fn follow(
    mut f: FollowPath,
    path: &Polyline,
    start: Kinematic,
    seconds: f32,
) -> (Vec<Kinematic>, FollowPath) {
    let l = limits(4.0, 6.0);
    let mut k = start;
    let mut track = vec![k];
    for _ in 0..(seconds * 60.0) as usize {
        let s = f.steer(&k, path, &l).unwrap_or_default();
        k.integrate(&s, &l, 1.0 / 60.0);
        track.push(k);
    }
    (track, f)
}

/// E7: the follower keeps the parameter it found and passes it back (coherence), so it advances
/// along the path instead of being re-searched from the position alone.
#[test]
fn follow_path_stores_and_reuses_its_parameter() {
    let path = hairpin();
    let (track, f) = follow(FollowPath::new(2.0).unwrap(), &path, at(0.0, 0.0), 3.0);
    let last = track.last().unwrap();
    let expect = path.get_param(last.position, f.state());
    assert!((f.state() - expect).abs() < 0.5, "stored {} vs {}", f.state(), expect);
    assert!(f.state() > 5.0, "advanced to {}", f.state());
}

/// The predictive follower turns early and cuts the hairpin; the plain one runs on to the apex.
/// Both finish the path with arrival at the end.
#[test]
fn predictive_follower_cuts_the_hairpin_corner() {
    let path = hairpin();
    let arrive = Arrive::new(0.2, 3.0, 0.1).unwrap();
    let apex = Vec2::new(20.0, 0.0);
    let run_with = |f: FollowPath| {
        let (track, f) = follow(f.arriving_at_end(arrive), &path, at(0.0, 0.0), 25.0);
        let closest =
            track.iter().map(|k| (k.position - apex).length()).fold(f32::INFINITY, f32::min);
        (closest, track.last().copied().unwrap(), f)
    };
    let (plain_apex, plain_end, plain) = run_with(FollowPath::new(1.0).unwrap());
    let (pred_apex, pred_end, pred) =
        run_with(FollowPath::new(1.0).unwrap().predictive(1.0).unwrap());
    assert!(
        plain_apex < 0.1 && pred_apex > 0.3,
        "predictive stays {pred_apex} m from the apex, plain {plain_apex} m"
    );
    for (end, f) in [(plain_end, plain), (pred_end, pred)] {
        assert!((end.position - Vec2::new(0.0, 3.0)).length() < 0.3, "ended at {:?}", end.position);
        assert!(end.velocity.length() < 0.05);
        assert!(f.is_finished(&path, 0.5));
    }
}

/// A negative offset follows the path backwards.
#[test]
fn negative_offset_reverses_direction() {
    let path = Polyline::open(vec![Vec2::ZERO, Vec2::new(30.0, 0.0)]).unwrap();
    let (track, f) =
        follow(FollowPath::new(-2.0).unwrap().with_state(20.0), &path, at(20.0, 0.5), 3.0);
    assert!(track.last().unwrap().position.x < 12.0);
    assert!(f.state() < 12.0);
}

/// On a looping path the follower laps it; on a path that folds back, the windowed search keeps
/// the follower on its own leg.
#[test]
fn looping_path_is_followed_round() {
    let square = Polyline::looping(vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(10.0, 0.0),
        Vec2::new(10.0, 10.0),
        Vec2::new(0.0, 10.0),
    ])
    .unwrap()
    .with_search_window(Some(5.0))
    .unwrap();
    let (track, _) =
        follow(FollowPath::new(1.5).unwrap().predictive(0.1).unwrap(), &square, at(0.0, 0.0), 30.0);
    // visits every side: each corner region is passed within 2 m
    for corner in [Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0), Vec2::new(0.0, 10.0)] {
        let near =
            track.iter().map(|k| (k.position - corner).length()).fold(f32::INFINITY, f32::min);
        assert!(near < 2.0, "corner {corner:?} missed by {near} m");
    }
    // never strays far from the square
    let worst = track
        .iter()
        .map(|k| {
            (0..4)
                .map(|i| {
                    let (a, b) = square.segment(i).unwrap();
                    closest_point_on_segment(k.position, a, b).0.distance(k.position)
                })
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max);
    // corners overshoot by about the turning radius at full speed, v²/a = 16/6 ≈ 2.7 m
    assert!(worst < 16.0 / 6.0, "strayed {worst} m from the path");
}
