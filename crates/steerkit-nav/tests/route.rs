//! Routes: corners dropped as they are passed, the remaining length, and turn anticipation
//! that never cuts a corner by more than the clearance.

use proptest::prelude::*;
use steerkit::Vec2;
use steerkit_nav::Route;

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

#[test]
fn corners_are_dropped_once_passed() {
    let points = vec![Vec2::new(5.0, 0.0), Vec2::new(5.0, 5.0), Vec2::new(10.0, 5.0)];
    let mut r = Route::new(Vec2::ZERO, points);
    r.advance(Vec2::new(2.0, 0.0), 0.3);
    assert_eq!(r.ahead().len(), 3);
    // short of the corner, pushed 1 m out to the side: still heading for it
    r.advance(Vec2::new(4.0, -1.0), 0.3);
    assert_eq!(r.ahead().len(), 3);
    // across the bisector of the left turn at (5, 0)
    r.advance(Vec2::new(5.1, 0.2), 0.3);
    assert_eq!(r.ahead(), &[Vec2::new(5.0, 5.0), Vec2::new(10.0, 5.0)]);
    // within reach of the next corner
    r.advance(Vec2::new(4.9, 4.8), 0.3);
    assert_eq!(r.ahead(), &[Vec2::new(10.0, 5.0)]);
    // the end is never dropped
    r.advance(Vec2::new(10.0, 5.0), 0.3);
    assert_eq!(r.ahead(), &[Vec2::new(10.0, 5.0)]);
}

#[test]
fn far_from_a_corner_the_waypoint_is_the_corner_with_the_rest_of_the_route() {
    let points = vec![Vec2::new(5.0, 0.0), Vec2::new(5.0, 5.0), Vec2::new(10.0, 5.0)];
    let r = Route::new(Vec2::ZERO, points);
    let w = r.waypoint(Vec2::new(1.0, 0.0), 0.75, 0.1);
    assert_eq!(w.point, Vec2::new(5.0, 0.0));
    assert!((w.remaining - 10.0).abs() < 1e-6, "{}", w.remaining);
    // on the last leg: the end, nothing after it
    let r = Route::new(Vec2::ZERO, vec![Vec2::new(3.0, 4.0)]);
    let w = r.waypoint(Vec2::ZERO, 1.0, 0.1);
    assert_eq!((w.point, w.remaining), (Vec2::new(3.0, 4.0), 0.0));
}

proptest! {
    /// Anywhere on the leg into a corner, steering straight at the waypoint passes the corner
    /// no more than the clearance away on its inside, and the waypoint's remaining length is
    /// the route's from it to the end.
    #[test]
    fn anticipation_cuts_no_more_than_the_clearance(
        turn in -3.0f32..3.0,
        d in 0.0f32..3.0,
        lookahead in 0.0f32..4.0,
        clearance in 0.0f32..0.5,
    ) {
        let c = Vec2::new(10.0, 0.0);
        let after = c + Vec2::from_angle(turn) * 6.0;
        let end = after + Vec2::new(0.0, 3.0);
        let r = Route::new(Vec2::ZERO, vec![c, after, end]);
        let p = c - Vec2::new(d, 0.0);
        let w = r.waypoint(p, lookahead, clearance);
        let cut = distance_to_segment(c, p, w.point);
        prop_assert!(cut <= clearance + 1e-4, "cut {cut} > clearance {clearance}");
        let rest = if w.point == c {
            c.distance(after) + after.distance(end)
        } else {
            w.point.distance(after) + after.distance(end)
        };
        prop_assert!((w.remaining - rest).abs() < 1e-3, "{} vs {rest}", w.remaining);
    }
}
