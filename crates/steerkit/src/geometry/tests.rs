use super::*;
use crate::error::ParamError;
use glam::Vec3;
use proptest::prelude::*;

const EPS: f32 = 1e-5;

fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
    (a - b).length() <= tol
}

fn square() -> Polygon {
    // given clockwise on purpose: stored counter-clockwise
    Polygon::new(vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(0.0, 2.0),
        Vec2::new(2.0, 2.0),
        Vec2::new(2.0, 0.0),
    ])
    .unwrap()
}

#[test]
fn closest_point_on_segment_matches_the_lecture_vector() {
    // segment (2,8)→(18,0): p(t) = (2 + 16t, 8 − 8t)
    let (a, b) = (Vec2::new(2.0, 8.0), Vec2::new(18.0, 0.0));
    let (p, t) = closest_point_on_segment(Vec2::new(10.0, 4.0) + Vec2::new(1.0, 2.0), a, b);
    assert!((t - 0.5).abs() < EPS, "t = {t}");
    assert!(close(p, Vec2::new(10.0, 4.0), EPS));
    // beyond B: clamped to B
    assert_eq!(closest_point_on_segment(Vec2::new(30.0, -2.0), a, b), (b, 1.0));
    // before A: clamped to A
    assert_eq!(closest_point_on_segment(Vec2::new(-5.0, 9.0), a, b), (a, 0.0));
    // zero-length segment
    assert_eq!(closest_point_on_segment(Vec2::ONE, a, a), (a, 0.0));
    // 3D
    let (p3, t3) = closest_point_on_segment(Vec3::new(1.0, 5.0, 1.0), Vec3::ZERO, Vec3::Y * 10.0);
    assert_eq!((p3, t3), (Vec3::new(0.0, 5.0, 0.0), 0.5));
    let s = Segment::new(a, b);
    assert!((s.distance_to_point(Vec2::new(11.0, 6.0)) - 5f32.sqrt()).abs() < EPS);
    assert!((s.distance_squared_to_point(Vec2::new(11.0, 6.0)) - 5.0).abs() < 1e-4);
}

#[test]
fn segment_normal_is_left_hand_and_zero_for_a_point() {
    let s = Segment::new(Vec2::new(5.0, -1.0), Vec2::new(5.0, 1.0));
    assert_eq!(s.normal(), Vec2::new(-1.0, 0.0));
    assert_eq!(s.signed_distance(Vec2::new(2.0, 7.0)), 3.0);
    assert_eq!(s.signed_distance(Vec2::new(6.0, 0.0)), -1.0);
    assert_eq!(Segment::new(Vec2::ONE, Vec2::ONE).normal(), Vec2::ZERO);
    // a tiny segment still has a unit normal
    let tiny = Segment::new(Vec2::ZERO, Vec2::new(1e-30, 0.0));
    assert!((tiny.normal() - Vec2::Y).length() < EPS);
    assert!((tiny.length() - 1e-30).abs() < 1e-35);
}

#[test]
fn circle_ray_hits_front_surface_with_outward_normal() {
    let c = Circle::new(Vec2::new(10.0, 0.0), 2.0);
    let h = c.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X * 3.0, 20.0)).unwrap();
    assert!((h.distance - 8.0).abs() < EPS);
    assert!(close(h.point, Vec2::new(8.0, 0.0), EPS));
    assert!(close(h.normal, -Vec2::X, EPS));
    // off-centre: x = 10 − √3 at y = 1, normal (−√3, 1)/2
    let h = c.cast_ray(&Ray::new(Vec2::Y, Vec2::X, 20.0)).unwrap();
    assert!((h.distance - (10.0 - 3f32.sqrt())).abs() < EPS);
    assert!(close(h.normal, Vec2::new(-(3f32.sqrt()), 1.0) * 0.5, EPS));
    // tangent counts (closed boundary)
    let h = c.cast_ray(&Ray::new(Vec2::new(0.0, 2.0), Vec2::X, 20.0)).unwrap();
    assert!((h.distance - 10.0).abs() < EPS);
    assert!(close(h.normal, Vec2::Y, EPS));
    // misses: too short, pointing away, passing by
    assert!(c.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 7.9)).is_none());
    assert!(c.cast_ray(&Ray::new(Vec2::ZERO, -Vec2::X, 100.0)).is_none());
    assert!(c.cast_ray(&Ray::new(Vec2::new(0.0, 2.01), Vec2::X, 100.0)).is_none());
    // exactly max distance still hits
    assert!(c.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 8.0)).is_some());
}

#[test]
fn ray_starting_inside_a_circle_gets_a_normal_pushing_out() {
    let c = Circle::new(Vec2::new(10.0, 0.0), 2.0);
    // inside, left of centre, moving right (deeper in): hit at 0, normal toward −x
    let h = c.cast_ray(&Ray::new(Vec2::new(9.0, 0.0), Vec2::X, 5.0)).unwrap();
    assert_eq!(h.distance, 0.0);
    assert_eq!(h.point, Vec2::new(9.0, 0.0));
    assert!(close(h.normal, -Vec2::X, EPS));
    // exactly on the boundary
    let h = c.cast_ray(&Ray::new(Vec2::new(10.0, 2.0), Vec2::NEG_Y, 5.0)).unwrap();
    assert_eq!(h.distance, 0.0);
    assert!(close(h.normal, Vec2::Y, EPS));
    // exactly at the centre: back the way it came
    let h = c.cast_ray(&Ray::new(c.center, Vec2::new(0.0, 1.0), 5.0)).unwrap();
    assert_eq!(h.normal, Vec2::NEG_Y);
    // at the centre and not moving: +x
    let h = c.cast_ray(&Ray::new(c.center, Vec2::ZERO, 5.0)).unwrap();
    assert_eq!(h.normal, Vec2::X);
    // zero direction outside: nothing
    assert!(c.cast_ray(&Ray::from_segment(Vec2::ZERO, Vec2::ZERO)).is_none());
}

#[test]
fn circle_ray_is_accurate_far_away() {
    // the textbook b² − c form loses everything here in f32
    let c = Circle::new(Vec2::new(100_000.0, 0.0), 0.5);
    let h = c.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, f32::INFINITY)).unwrap();
    assert!((h.distance - 99_999.5).abs() < 0.01, "{}", h.distance);
    let h = c.cast_ray(&Ray::new(Vec2::new(0.0, 0.3), Vec2::X, f32::INFINITY)).unwrap();
    assert!((h.distance - (100_000.0 - 0.4)).abs() < 0.01, "{}", h.distance);
    assert!(close(h.normal, Vec2::new(-0.8, 0.6), 1e-3));
}

#[test]
fn zero_radius_circle_is_a_point() {
    let c = Circle::new(Vec2::new(3.0, 0.0), 0.0);
    let h = c.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 5.0)).unwrap();
    assert_eq!(h.distance, 3.0);
    assert_eq!(h.normal, -Vec2::X);
    assert!(c.cast_ray(&Ray::new(Vec2::new(0.0, 1e-3), Vec2::X, 5.0)).is_none());
    // negative radius is treated as 0
    assert!(Circle::new(Vec2::ZERO, -1.0).contains_point(Vec2::ZERO));
    assert!(!Circle::new(Vec2::ZERO, -1.0).contains_point(Vec2::new(0.5, 0.0)));
}

#[test]
fn a_ray_through_a_shared_corner_hits_a_wall() {
    // regression: this move from just inside a room's corner slipped between the two walls
    // (u rounded to just above 1 on one, the other hit lies beyond its end)
    let east = Segment::new(Vec2::new(10.0, -10.0), Vec2::new(10.0, 10.0));
    let north = Segment::new(Vec2::new(10.0, 10.0), Vec2::new(-10.0, 10.0));
    let o = Vec2::new(9.999, 9.999);
    let d = Vec2::new(27.34858, 27.332253);
    let ray = Ray::new(o, d.normalize(), d.length());
    let hit = east.cast_ray(&ray).or_else(|| north.cast_ray(&ray)).expect("a wall is hit");
    assert!(hit.distance < 0.002, "{hit:?}");
}

#[test]
fn wall_ray_normal_faces_the_origin_from_either_side() {
    let w = Segment::new(Vec2::new(5.0, -1.0), Vec2::new(5.0, 1.0)); // front is −x
    let h = w.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 10.0)).unwrap();
    assert!((h.distance - 5.0).abs() < EPS);
    assert_eq!(h.normal, Vec2::NEG_X);
    let h = w.cast_ray(&Ray::new(Vec2::new(10.0, 0.5), Vec2::NEG_X, 10.0)).unwrap();
    assert!((h.distance - 5.0).abs() < EPS);
    assert!(close(h.point, Vec2::new(5.0, 0.5), EPS));
    assert_eq!(h.normal, Vec2::X);
    // end point counts; just past it misses
    let h = w.cast_ray(&Ray::new(Vec2::new(0.0, 1.0), Vec2::X, 10.0)).unwrap();
    assert!((h.distance - 5.0).abs() < EPS);
    assert!(w.cast_ray(&Ray::new(Vec2::new(0.0, 1.001), Vec2::X, 10.0)).is_none());
    // too short, behind
    assert!(w.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 4.99)).is_none());
    assert!(w.cast_ray(&Ray::new(Vec2::ZERO, Vec2::NEG_X, 10.0)).is_none());
    // parallel, off the line
    assert!(w.cast_ray(&Ray::new(Vec2::new(4.0, -5.0), Vec2::Y, 10.0)).is_none());
    // diagonal: y = x − 5 + 0.5… hits (5, 0.5) at distance √2·0.5·… check by point
    let r = Ray::new(Vec2::new(4.0, -0.5), Vec2::new(1.0, 1.0), 10.0);
    let h = w.cast_ray(&r).unwrap();
    assert!(close(h.point, Vec2::new(5.0, 0.5), EPS));
    assert!((h.distance - 2f32.sqrt()).abs() < EPS);
}

#[test]
fn wall_degenerate_rays_have_defined_hits() {
    let w = Segment::new(Vec2::new(2.0, 0.0), Vec2::new(4.0, 0.0)); // front is +y
                                                                    // along the wall's own line, from before it: the near end, normal −direction
    let h = w.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 10.0)).unwrap();
    assert_eq!((h.distance, h.normal), (2.0, Vec2::NEG_X));
    // along the line, starting on the wall
    let h = w.cast_ray(&Ray::new(Vec2::new(3.0, 0.0), Vec2::NEG_X, 10.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::X));
    // along the line, past it
    assert!(w.cast_ray(&Ray::new(Vec2::new(5.0, 0.0), Vec2::X, 10.0)).is_none());
    // standing exactly on the wall, moving into its back: pushed back the way it came
    let h = w.cast_ray(&Ray::new(Vec2::new(3.0, 0.0), Vec2::NEG_Y, 1.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::Y));
    let h = w.cast_ray(&Ray::new(Vec2::new(3.0, 0.0), Vec2::Y, 1.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::NEG_Y));
    // standing still on the wall: the front normal
    let h = w.cast_ray(&Ray::from_segment(Vec2::new(3.0, 0.0), Vec2::ZERO)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::Y));
    assert!(w.cast_ray(&Ray::from_segment(Vec2::new(3.0, 0.5), Vec2::ZERO)).is_none());
    // a zero-length wall: only hit dead on
    let p = Segment::new(Vec2::new(3.0, 0.0), Vec2::new(3.0, 0.0));
    let h = p.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 10.0)).unwrap();
    assert_eq!((h.distance, h.normal), (3.0, Vec2::NEG_X));
    assert!(p.cast_ray(&Ray::new(Vec2::new(0.0, 0.1), Vec2::X, 10.0)).is_none());
    let h = p.cast_ray(&Ray::from_segment(Vec2::new(3.0, 0.0), Vec2::ZERO)).unwrap();
    assert_eq!(h.normal, Vec2::X);
    // regression: a point-wall contains only its own point
    assert!(!p.contains_point(Vec2::new(2.0, 0.0)));
    assert!(p.cast_ray(&Ray::from_segment(Vec2::new(2.0, 0.0), Vec2::ZERO)).is_none());
}

#[test]
fn polygon_validation() {
    let sq = square();
    // stored counter-clockwise with outward normals
    assert_eq!(sq.points()[0], Vec2::new(0.0, 0.0));
    assert_eq!(sq.points()[1], Vec2::new(2.0, 0.0));
    assert_eq!(sq.normals()[0], Vec2::NEG_Y);
    assert_eq!(sq.normals()[1], Vec2::X);
    assert!(sq.normals().iter().all(|n| (n.length() - 1.0).abs() < EPS));
    let err = |pts: Vec<Vec2>| Polygon::new(pts).unwrap_err();
    assert!(matches!(
        err(vec![Vec2::ZERO, Vec2::X, Vec2::X, Vec2::ZERO]),
        ParamError::Count { name: "polygon points", .. }
    ));
    assert!(matches!(
        err(vec![Vec2::ZERO, Vec2::X, Vec2::X * 2.0]),
        ParamError::OutOfRange { name: "polygon area", .. }
    ));
    assert!(matches!(
        err(vec![Vec2::ZERO, Vec2::new(f32::NAN, 0.0), Vec2::Y]),
        ParamError::NotFinite { name: "polygon point", .. }
    ));
    // an arrowhead (concave)
    let arrow =
        vec![Vec2::new(0.0, 0.0), Vec2::new(4.0, 2.0), Vec2::new(0.0, 4.0), Vec2::new(1.0, 2.0)];
    assert!(matches!(err(arrow), ParamError::Count { name: "polygon vertex", .. }));
    // a pentagram turns the same way at every vertex but winds twice
    let star: Vec<Vec2> = (0..5)
        .map(|k| Vec2::from_angle(k as f32 * 2.0 * core::f32::consts::TAU / 5.0) * 3.0)
        .collect();
    assert!(matches!(err(star), ParamError::Invalid { name: "polygon vertex", .. }));
    // repeats and a closing duplicate are dropped; collinear points kept
    let p = Polygon::new(vec![
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::X,
        Vec2::X * 2.0,
        Vec2::new(2.0, 2.0),
        Vec2::ZERO,
    ])
    .unwrap();
    assert_eq!(p.points().len(), 4);
    assert_eq!(Polygon::rectangle(Vec2::ZERO, Vec2::new(2.0, 2.0)).unwrap(), square());
}

#[test]
fn polygon_ray_cast_contains_and_distance() {
    let sq = square();
    let h = sq.cast_ray(&Ray::new(Vec2::new(-3.0, 1.0), Vec2::X, 10.0)).unwrap();
    assert_eq!((h.distance, h.point, h.normal), (3.0, Vec2::new(0.0, 1.0), Vec2::NEG_X));
    // from above-right, diagonal into the corner (2,2)
    let h = sq.cast_ray(&Ray::new(Vec2::new(3.0, 3.0), Vec2::new(-1.0, -1.0), 10.0)).unwrap();
    assert!((h.distance - 2f32.sqrt()).abs() < EPS);
    assert!(close(h.point, Vec2::new(2.0, 2.0), EPS));
    // misses: passing by, pointing away, too short, parallel outside
    assert!(sq.cast_ray(&Ray::new(Vec2::new(-3.0, 2.5), Vec2::X, 10.0)).is_none());
    assert!(sq.cast_ray(&Ray::new(Vec2::new(-3.0, 1.0), Vec2::NEG_X, 10.0)).is_none());
    assert!(sq.cast_ray(&Ray::new(Vec2::new(-3.0, 1.0), Vec2::X, 2.9)).is_none());
    assert!(sq.cast_ray(&Ray::new(Vec2::new(-3.0, 3.0), Vec2::X, 10.0)).is_none());
    // grazing along the top edge counts
    let h = sq.cast_ray(&Ray::new(Vec2::new(-3.0, 2.0), Vec2::X, 10.0)).unwrap();
    assert_eq!(h.distance, 3.0);
    // inside: distance 0, nearest edge's outward normal
    let h = sq.cast_ray(&Ray::new(Vec2::new(1.5, 1.0), Vec2::NEG_X, 10.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::X));
    let h = sq.cast_ray(&Ray::from_segment(Vec2::new(0.5, 1.9), Vec2::ZERO)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::Y));
    assert!(sq.contains_point(Vec2::new(2.0, 1.0)));
    assert!(!sq.contains_point(Vec2::new(2.0001, 1.0)));
    assert_eq!(sq.distance_squared_to_point(Vec2::new(1.0, 1.0)), 0.0);
    assert!((sq.distance_squared_to_point(Vec2::new(5.0, 6.0)) - 25.0).abs() < 1e-4);
    assert_eq!(sq.closest_point(Vec2::new(1.0, -4.0)), Vec2::new(1.0, 0.0));
    // rotated by 45°: a diamond with a vertex at (√2, 0) after moving by (−√2/2·…)
    let d = Polygon::rectangle(Vec2::splat(-1.0), Vec2::splat(1.0))
        .unwrap()
        .transformed(core::f32::consts::FRAC_PI_4, Vec2::new(10.0, 0.0))
        .unwrap();
    let h = d.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 20.0)).unwrap();
    assert!((h.distance - (10.0 - 2f32.sqrt())).abs() < 1e-4, "{}", h.distance);
}

#[test]
fn aabb_ray_cast_and_degenerate_boxes() {
    let b = Aabb::from_corners(Vec2::new(4.0, 1.0), Vec2::new(2.0, -1.0));
    assert_eq!(b.min, Vec2::new(2.0, -1.0));
    let h = b.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 10.0)).unwrap();
    assert_eq!((h.distance, h.normal), (2.0, Vec2::NEG_X));
    let h = b.cast_ray(&Ray::new(Vec2::new(3.0, 5.0), Vec2::NEG_Y, 10.0)).unwrap();
    assert_eq!((h.distance, h.point, h.normal), (4.0, Vec2::new(3.0, 1.0), Vec2::Y));
    assert!(b.cast_ray(&Ray::new(Vec2::new(3.0, 5.0), Vec2::NEG_Y, 3.9)).is_none());
    assert!(b.cast_ray(&Ray::new(Vec2::new(0.0, 5.0), Vec2::NEG_Y, 30.0)).is_none());
    // inside: nearest face (x = 4 is 0.5 away)
    let h = b.cast_ray(&Ray::new(Vec2::new(3.5, 0.0), Vec2::NEG_X, 1.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec2::X));
    // a point box
    let p = Aabb::new(Vec2::new(3.0, 0.0), Vec2::new(3.0, 0.0));
    assert_eq!(p.cast_ray(&Ray::new(Vec2::ZERO, Vec2::X, 10.0)).unwrap().distance, 3.0);
    assert!(p.cast_ray(&Ray::new(Vec2::new(0.0, 0.01), Vec2::X, 10.0)).is_none());
    // an inverted box is empty
    let e = Aabb::new(Vec2::ONE, Vec2::ZERO);
    assert!(e.is_empty());
    assert!(e.cast_ray(&Ray::new(Vec2::new(-1.0, 0.5), Vec2::X, 10.0)).is_none());
    assert!(!e.overlaps(&b) && !Circle::new(Vec2::splat(0.5), 5.0).overlaps_aabb(&e));
    assert_eq!(b.center(), Vec2::new(3.0, 0.0));
    assert_eq!(b.half_extents(), Vec2::new(1.0, 1.0));
}

#[test]
fn circle_overlap_tests() {
    let c = Circle::new(Vec2::ZERO, 1.0);
    assert!(c.overlaps_circle(&Circle::new(Vec2::new(3.0, 0.0), 2.0))); // touching
    assert!(!c.overlaps_circle(&Circle::new(Vec2::new(3.01, 0.0), 2.0)));
    assert!(c.overlaps_segment(&Segment::new(Vec2::new(-5.0, 1.0), Vec2::new(5.0, 1.0))));
    assert!(!c.overlaps_segment(&Segment::new(Vec2::new(-5.0, 1.1), Vec2::new(5.0, 1.1))));
    assert!(c.overlaps_aabb(&Aabb::new(Vec2::new(1.0, -3.0), Vec2::new(2.0, 3.0))));
    // box corner at distance √2 from origin
    assert!(!c.overlaps_aabb(&Aabb::new(Vec2::new(1.0, 1.0), Vec2::new(2.0, 2.0))));
    // circle entirely inside a polygon overlaps it
    let sq = square();
    assert!(Circle::new(Vec2::ONE, 0.1).overlaps_polygon(&sq));
    assert!(Circle::new(Vec2::new(3.0, 1.0), 1.0).overlaps_polygon(&sq));
    assert!(!Circle::new(Vec2::new(3.0, 3.0), 1.0).overlaps_polygon(&sq));
    assert!(
        (Circle::new(Vec2::new(3.0, 4.0), 1.0).distance_to_point(Vec2::ZERO) - 4.0).abs() < EPS
    );
}

#[test]
fn point_in_simple_concave_polygon() {
    // an L shape
    let l = [
        Vec2::new(0.0, 0.0),
        Vec2::new(3.0, 0.0),
        Vec2::new(3.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 3.0),
        Vec2::new(0.0, 3.0),
    ];
    assert!(point_in_polygon(&l, Vec2::new(0.5, 2.5)));
    assert!(point_in_polygon(&l, Vec2::new(2.5, 0.5)));
    assert!(!point_in_polygon(&l, Vec2::new(2.0, 2.0)));
    assert!(!point_in_polygon(&l, Vec2::new(-1.0, 0.5)));
    assert!(!point_in_polygon(&l[..2], Vec2::new(1.0, 0.0)));
}

#[test]
fn sphere_and_box_3d() {
    let s = Sphere::new(Vec3::new(0.0, 0.0, -10.0), 1.0);
    let h = s.cast_ray(&Ray3::new(Vec3::ZERO, Vec3::NEG_Z, 20.0)).unwrap();
    assert!((h.distance - 9.0).abs() < EPS);
    assert!((h.normal - Vec3::Z).length() < EPS);
    let h = s.cast_ray(&Ray3::new(Vec3::new(0.0, 0.5, -10.0), Vec3::X, 20.0)).unwrap();
    assert_eq!(h.distance, 0.0);
    assert!((h.normal - Vec3::Y).length() < EPS);
    assert!(s.cast_ray(&Ray3::new(Vec3::new(0.0, 1.5, 0.0), Vec3::NEG_Z, 20.0)).is_none());
    assert!(s.overlaps_sphere(&Sphere::new(Vec3::new(0.0, 2.0, -10.0), 1.0)));
    let b = Aabb::from_corners(Vec3::new(1.0, -1.0, -1.0), Vec3::new(3.0, 1.0, 1.0));
    let h = b.cast_ray(&Ray3::from_segment(Vec3::ZERO, Vec3::X * 5.0)).unwrap();
    assert_eq!((h.distance, h.normal), (1.0, Vec3::NEG_X));
    let h = b.cast_ray(&Ray3::new(Vec3::new(2.0, 0.0, 0.9), Vec3::X, 5.0)).unwrap();
    assert_eq!((h.distance, h.normal), (0.0, Vec3::Z));
    assert!(b.cast_ray(&Ray3::new(Vec3::new(2.0, 3.0, 0.0), Vec3::Z, 5.0)).is_none());
}

// ---- property tests -------------------------------------------------------------------

/// Any finite f32: a mix of small integers (exact coincidences: origins on walls,
/// collinear rays, zero-length segments), moderate values, and the whole finite range.
pub(crate) fn any_finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => (-4i32..=4).prop_map(|i| i as f32),
        3 => -100.0f32..100.0,
        1 => (proptest::num::f32::NORMAL
            | proptest::num::f32::SUBNORMAL
            | proptest::num::f32::ZERO)
            .prop_filter("finite", |x| x.is_finite()),
    ]
}

pub(crate) fn any_vec2() -> impl Strategy<Value = Vec2> {
    (any_finite(), any_finite()).prop_map(|(x, y)| Vec2::new(x, y))
}

pub(crate) fn small_vec2() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        (-4i32..=4, -4i32..=4).prop_map(|(x, y)| Vec2::new(x as f32, y as f32)),
        (-50.0f32..50.0, -50.0f32..50.0).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

fn hit_ok(h: &Option<RayHit>, ray: &Ray) -> Result<(), TestCaseError> {
    if let Some(h) = h {
        prop_assert!(!h.distance.is_nan() && !h.point.is_nan() && !h.normal.is_nan(), "{h:?}");
        prop_assert!(h.distance >= 0.0 && h.distance <= ray.max_distance(), "{h:?}");
        prop_assert!((h.normal.length() - 1.0).abs() < 1e-3, "{h:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_nan_from_any_finite_input(
        o in any_vec2(), d in any_vec2(), max in any_finite(),
        a in any_vec2(), b in any_vec2(), c in any_vec2(), r in any_finite(),
    ) {
        let ray = Ray::new(o, d, max);
        prop_assert!(!ray.direction().is_nan() && !ray.max_distance().is_nan());
        let seg_ray = Ray::from_segment(o, d);
        for ray in [ray, seg_ray] {
            hit_ok(&Circle::new(c, r).cast_ray(&ray), &ray)?;
            hit_ok(&Segment::new(a, b).cast_ray(&ray), &ray)?;
            hit_ok(&Aabb::from_corners(a, b).cast_ray(&ray), &ray)?;
            hit_ok(&Aabb::new(a, b).cast_ray(&ray), &ray)?;
            if let Ok(p) = Polygon::new(vec![a, b, c]) {
                hit_ok(&p.cast_ray(&ray), &ray)?;
                prop_assert!(!p.closest_point(o).is_nan());
            }
        }
        let (p, t) = closest_point_on_segment(c, a, b);
        prop_assert!(!p.is_nan() && (0.0..=1.0).contains(&t));
        let s = Segment::new(a, b);
        prop_assert!(!s.normal().is_nan() && !s.distance_to_point(c).is_nan());
        prop_assert!(!s.signed_distance(c).is_nan() || !(c - a).is_finite());
        let r3 = Ray3::new(o.extend(max), d.extend(r), max);
        if let Some(h) = Sphere::new(c.extend(a.x), r).cast_ray(&r3) {
            prop_assert!(!h.normal.is_nan() && !h.point.is_nan() && !h.distance.is_nan());
        }
        if let Some(h) = Aabb::from_corners(a.extend(c.x), b.extend(c.y)).cast_ray(&r3) {
            prop_assert!(!h.normal.is_nan() && !h.distance.is_nan());
        }
    }

    #[test]
    fn hits_lie_on_the_surface_and_normals_face_the_origin(
        o in small_vec2(), d in small_vec2(), a in small_vec2(), b in small_vec2(),
        c in small_vec2(), r in 0.0f32..20.0,
    ) {
        let ray = Ray::new(o, d, 200.0);
        if let Some(h) = Circle::new(c, r).cast_ray(&ray) {
            if h.distance > 0.0 {
                prop_assert!(((h.point - c).length() - r).abs() < 1e-3, "{h:?}");
                prop_assert!(h.normal.dot(ray.direction()) <= 1e-6);
            }
        }
        if let Some(h) = Segment::new(a, b).cast_ray(&ray) {
            prop_assert!(Segment::new(a, b).distance_to_point(h.point) < 1e-3, "{h:?}");
            prop_assert!(h.normal.dot(ray.direction()) <= 1e-6, "{h:?}");
        }
        if let Ok(p) = Polygon::new(vec![a, b, c]) {
            if let Some(h) = p.cast_ray(&ray) {
                prop_assert!(p.distance_squared_to_point(h.point) < 1e-6, "{h:?}");
                if h.distance > 0.0 {
                    prop_assert!(h.normal.dot(ray.direction()) < 0.0, "{h:?}");
                } else {
                    prop_assert!(p.contains_point(o));
                }
            } else {
                // a miss: no sample point along the ray is inside
                for k in 0..=64 {
                    let q = ray.at(200.0 * k as f32 / 64.0);
                    prop_assert!(p.max_separation(q).0 > -1e-3, "{q:?} inside");
                }
            }
        }
    }

    #[test]
    fn box_and_rectangle_polygon_agree(
        o in small_vec2(), d in small_vec2(), a in small_vec2(), b in small_vec2(),
        max in 0.0f32..150.0,
    ) {
        let bx = Aabb::from_corners(a, b);
        prop_assume!(bx.min.x < bx.max.x && bx.min.y < bx.max.y);
        let poly = Polygon::rectangle(bx.min, bx.max).unwrap();
        let ray = Ray::new(o, d, max);
        let (hb, hp) = (bx.cast_ray(&ray), poly.cast_ray(&ray));
        prop_assert_eq!(hb.is_some(), hp.is_some(), "{:?} {:?}", hb, hp);
        if let (Some(hb), Some(hp)) = (hb, hp) {
            prop_assert!((hb.distance - hp.distance).abs() < 1e-4, "{:?} {:?}", hb, hp);
            // normals agree except at exact corners
            if hb.normal != hp.normal {
                let corner = [bx.min, bx.max, Vec2::new(bx.min.x, bx.max.y), Vec2::new(bx.max.x, bx.min.y)]
                    .iter().any(|&k| (k - hb.point).length() < 1e-3);
                let inside_tie = hb.distance == 0.0;
                prop_assert!(corner || inside_tie, "{:?} {:?}", hb, hp);
            }
        }
        // and the circle test agrees with the closest point
        let circle = Circle::new(o, max * 0.1);
        prop_assert_eq!(circle.overlaps_aabb(&bx), circle.overlaps_polygon(&poly));
    }
}
