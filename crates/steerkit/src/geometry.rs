//! Shapes and the exact geometric queries the world-query layer is built on: circles, walls
//! (segments), convex polygons and boxes in 2D; spheres and boxes in 3D; rays cast against each.
//!
//! # Conventions
//! - Units are metres; 2D lives in the x–y plane, 3D is y-up and right-handed.
//! - A [`Ray`] (and [`Ray3`]) has a **unit** direction (or zero) and a maximum distance, so every
//!   hit distance is in metres along the ray. The constructors normalise the direction.
//! - A [`RayHit`] normal is a **unit vector facing the side the ray came from**: for a wall
//!   that is whichever face the ray approached, so steering `hit.point + hit.normal · d` never
//!   pushes a character through a wall it approaches from behind.
//! - **A ray that starts inside (or on the boundary of) a solid shape** (circle, polygon, box,
//!   sphere) hits it at distance 0, at the origin, with the outward normal of the nearest
//!   boundary: the shortest way out. Obstacle avoidance therefore always gets a normal that
//!   pushes a character already inside an obstacle back out. At the exact centre of a circle
//!   or sphere every way out is equally short: the normal is then `−direction` (back the way
//!   the ray came), or +x for a zero direction.
//! - A ray with a zero direction (a character standing still) is a point probe: it hits only
//!   shapes that contain its origin, at distance 0.
//! - Boundaries are closed: touching counts as a hit or an overlap.
//!
//! # Degenerate and extreme input
//! Zero radii, zero-length segments and zero-size boxes are valid shapes (a point). No
//! function here panics or returns NaN for finite input. Results are exact to a few ulps for
//! coordinates up to about 10⁶ m from the origin; far beyond that (squares above ~10³⁸)
//! intermediate products overflow and a query may miss, but it still returns no NaN.

// Negated comparisons such as `!(t <= max)` are deliberate throughout: NaN fails them and so
// takes the "no hit" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::error::ParamError;
use crate::math::Vector;
use glam::{DVec2, Vec2, Vec3};

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/// Unit vector and length of `v`, computed in f64 so that tiny (subnormal-squared) and huge
/// (overflowing-squared) vectors still normalise. Zero (or non-finite) gives `(0, 0)`.
#[inline]
fn unit_and_length2(v: Vec2) -> (Vec2, f32) {
    let len_sq = v.length_squared();
    if len_sq.is_finite() && len_sq > f32::MIN_POSITIVE {
        let len = len_sq.sqrt();
        return (v / len, len);
    }
    let d = v.as_dvec2();
    let len = d.length();
    if len > 0.0 && len.is_finite() {
        ((d / len).as_vec2(), len as f32)
    } else {
        (Vec2::ZERO, 0.0)
    }
}

/// 3D twin of [`unit_and_length2`].
#[inline]
fn unit_and_length3(v: Vec3) -> (Vec3, f32) {
    let len_sq = v.length_squared();
    if len_sq.is_finite() && len_sq > f32::MIN_POSITIVE {
        let len = len_sq.sqrt();
        return (v / len, len);
    }
    let d = v.as_dvec3();
    let len = d.length();
    if len > 0.0 && len.is_finite() {
        ((d / len).as_vec3(), len as f32)
    } else {
        (Vec3::ZERO, 0.0)
    }
}

/// A ray length: negative or NaN becomes 0, +∞ is kept (an unbounded ray).
#[inline]
fn sanitize_max_distance(max_distance: f32) -> f32 {
    if max_distance > 0.0 {
        max_distance
    } else {
        0.0
    }
}

/// The point of segment `a→b` closest to `point`, and its parameter `t ∈ [0, 1]`
/// (`closest = a + t·(b − a)`).
///
/// `t = clamp((point − a)·(b − a) / |b − a|², 0, 1)` (the lecture notes' formula, with their
/// `|ÂB|` slip fixed). A zero-length segment returns `(a, 0)`. Works in 2D and 3D.
///
/// ```
/// use steerkit::{closest_point_on_segment, Vec2};
/// let (p, t) = closest_point_on_segment(Vec2::new(5.0, 3.0), Vec2::ZERO, Vec2::new(10.0, 0.0));
/// assert_eq!((p, t), (Vec2::new(5.0, 0.0), 0.5));
/// ```
#[must_use]
#[inline]
pub fn closest_point_on_segment<V: Vector>(point: V, a: V, b: V) -> (V, f32) {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if !(len_sq > 0.0) {
        return (a, 0.0);
    }
    let t = (point - a).dot(ab) / len_sq;
    // Written so that NaN (from overflowing products) falls to the `a` end.
    if t > 0.0 {
        if t < 1.0 {
            (a + ab * t, t)
        } else {
            (b, 1.0)
        }
    } else {
        (a, 0.0)
    }
}

/// Point in a **simple** (possibly concave) polygon given by its vertices in order, either
/// winding, by the even–odd crossing rule.
///
/// Use it for areas such as rooms or zones; [`Polygon`] is the convex obstacle shape.
/// Points exactly on an edge may be reported either way. Fewer than 3 vertices: always false.
#[must_use]
pub fn point_in_polygon(vertices: &[Vec2], point: Vec2) -> bool {
    if vertices.len() < 3 {
        return false;
    }
    let mut inside = false;
    let mut j = vertices.len() - 1;
    for (i, &vi) in vertices.iter().enumerate() {
        let vj = vertices[j];
        if (vi.y > point.y) != (vj.y > point.y) {
            // x of the edge at height point.y; the division is safe since vi.y != vj.y.
            let x = vi.x + (point.y - vi.y) * (vj.x - vi.x) / (vj.y - vi.y);
            if point.x < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// Result of a generic slab test on an axis-aligned box: the entry distance and the index of
/// the entry face (`axis * 2 + (0 for the min face, 1 for the max face)`), or `None` for a miss.
/// Also used by the spatial index, with `inclusive_tolerance` > 0 to stay conservative.
#[inline]
pub(crate) fn slab_cast<const N: usize>(
    min: [f32; N],
    max: [f32; N],
    origin: [f32; N],
    dir: [f32; N],
    max_distance: f32,
) -> Option<(f32, usize)> {
    let mut t_enter = 0.0f32;
    let mut t_exit = max_distance;
    let mut face = usize::MAX;
    for k in 0..N {
        if !(min[k] <= max[k]) {
            return None; // an empty (inverted or NaN) box
        }
        if dir[k] == 0.0 {
            if !(origin[k] >= min[k] && origin[k] <= max[k]) {
                return None;
            }
            continue;
        }
        let t_min = (min[k] - origin[k]) / dir[k];
        let t_max = (max[k] - origin[k]) / dir[k];
        let (near, far, f) =
            if dir[k] > 0.0 { (t_min, t_max, 2 * k) } else { (t_max, t_min, 2 * k + 1) };
        if near > t_enter {
            t_enter = near;
            face = f;
        }
        if far < t_exit {
            t_exit = far;
        }
        if !(t_enter <= t_exit) {
            return None;
        }
    }
    Some((t_enter, face))
}

/// For a point inside a box: the face nearest to it (`axis * 2 + side`), ties to the lowest.
#[inline]
fn nearest_box_face<const N: usize>(min: [f32; N], max: [f32; N], p: [f32; N]) -> usize {
    let mut best = f32::INFINITY;
    let mut face = 0;
    for k in 0..N {
        let lo = p[k] - min[k];
        let hi = max[k] - p[k];
        if lo < best {
            best = lo;
            face = 2 * k;
        }
        if hi < best {
            best = hi;
            face = 2 * k + 1;
        }
    }
    face
}

/// Ray against a ball (circle or sphere) with a unit or zero `dir`. Returns the distance and
/// outward unit normal. `fallback` is the unit +x of the space (normal at the exact centre with
/// a zero direction).
#[inline]
fn cast_ball<V: Vector>(
    center: V,
    radius: f32,
    origin: V,
    dir: V,
    max_distance: f32,
    fallback: V,
) -> Option<(f32, V)> {
    let r = if radius > 0.0 { radius } else { 0.0 };
    let r_sq = r * r;
    let m = origin - center;
    let m_sq = m.length_squared();
    let outward = |v: V| {
        // scale tiny offsets up first: their squared length is subnormal and normalises badly
        let v = if v.length_squared() < 1e-20 { v * 1e20 } else { v };
        let n = v.normalize_or_zero();
        if n != V::ZERO {
            n
        } else if dir != V::ZERO {
            -dir
        } else {
            fallback
        }
    };
    if m_sq <= r_sq {
        return Some((0.0, outward(m)));
    }
    let b = m.dot(dir);
    if !(b < 0.0) {
        return None; // moving away, zero direction, or overflow
    }
    // Closest approach, computed directly from the perpendicular offset: this avoids the
    // cancellation of the textbook `b² − c` discriminant for distant or small balls.
    let t_closest = -b;
    let q = m + dir * t_closest;
    let h_sq = r_sq - q.length_squared();
    if !(h_sq >= 0.0) {
        return None;
    }
    let h = h_sq.sqrt();
    let t = (t_closest - h).max(0.0);
    if !(t <= max_distance) {
        return None;
    }
    // The hit relative to the centre, `q − d·h`, is small and accurate even when the ray
    // travelled far (`origin + d·t − center` would carry the rounding of the long distance).
    let n = (q - dir * h).normalize_or_zero();
    Some((t, if n != V::ZERO { n } else { outward(m) }))
}

// ---------------------------------------------------------------------------------------------
// 2D shapes
// ---------------------------------------------------------------------------------------------

/// A solid disc: the classic steering obstacle (Green/Buckland obstacles, hide spots).
///
/// A negative or NaN radius is treated as 0 (a point) by every query.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Circle {
    /// Centre (m).
    pub center: Vec2,
    /// Radius (m), ≥ 0.
    pub radius: f32,
}

impl Circle {
    /// A circle.
    #[must_use]
    #[inline]
    pub const fn new(center: Vec2, radius: f32) -> Self {
        Circle { center, radius }
    }

    #[inline]
    fn r(&self) -> f32 {
        if self.radius > 0.0 {
            self.radius
        } else {
            0.0
        }
    }

    /// True when `|point − center| ≤ radius` (boundary included).
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec2) -> bool {
        (point - self.center).length_squared() <= self.r() * self.r()
    }

    /// Distance from `point` to the disc: `max(0, |point − center| − radius)`; 0 inside.
    #[must_use]
    #[inline]
    pub fn distance_to_point(&self, point: Vec2) -> f32 {
        ((point - self.center).length() - self.r()).max(0.0)
    }

    /// True when the discs touch or intersect: `|c₁ − c₂| ≤ r₁ + r₂`.
    #[must_use]
    #[inline]
    pub fn overlaps_circle(&self, other: &Circle) -> bool {
        let r = self.r() + other.r();
        (self.center - other.center).length_squared() <= r * r
    }

    /// True when the disc touches or intersects the segment.
    #[must_use]
    #[inline]
    pub fn overlaps_segment(&self, segment: &Segment) -> bool {
        segment.distance_squared_to_point(self.center) <= self.r() * self.r()
    }

    /// True when the disc touches or intersects the box (an empty box overlaps nothing).
    #[must_use]
    #[inline]
    pub fn overlaps_aabb(&self, aabb: &Aabb) -> bool {
        !aabb.is_empty() && aabb.distance_squared_to_point(self.center) <= self.r() * self.r()
    }

    /// True when the disc touches or intersects the polygon (including lying inside it).
    #[must_use]
    #[inline]
    pub fn overlaps_polygon(&self, polygon: &Polygon) -> bool {
        polygon.distance_squared_to_point(self.center) <= self.r() * self.r()
    }

    /// The bounding box `center ± radius`.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb {
        let r = Vec2::splat(self.r());
        Aabb { min: self.center - r, max: self.center + r }
    }

    /// First hit of `ray` on the disc; see the module docs for rays starting inside.
    ///
    /// Solves `|o + t·d − c| = r` for the least `t ≥ 0` via the closest-approach point
    /// (stable for distant circles). The normal is `(hit − c)/r`.
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        let (distance, normal) = cast_ball(
            self.center,
            self.radius,
            ray.origin,
            ray.direction,
            ray.max_distance,
            Vec2::X,
        )?;
        Some(RayHit { distance, point: ray.at(distance), normal })
    }
}

/// A wall: the segment from `a` to `b`.
///
/// Its [`normal`](Segment::normal) is the **left-hand** unit normal of `b − a` (`perp`, a
/// counter-clockwise quarter turn), and that side is the wall's **front**. So the walls of a room
/// listed counter-clockwise (seen from +z) face into the room, and the edges of a solid listed
/// clockwise face out of it. Ray casts treat walls as two-sided: a [`RayHit`] normal always faces
/// the ray's origin (Buckland's one-sided walls push a character through a wall it approaches
/// from behind). A zero-length segment is a point and has a zero `normal()`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Segment {
    /// Start point (m).
    pub a: Vec2,
    /// End point (m).
    pub b: Vec2,
}

/// Slack on the segment parameter `u` in [`Segment::cast_ray`]: 1e-5 of the segment's length
/// (0.2 mm on a 20 m wall), far above f32 rounding (≈ 1e-7), far below any body size.
pub(crate) const SEGMENT_END_SLACK: f32 = 1e-5;

impl Segment {
    /// The segment `a → b`.
    #[must_use]
    #[inline]
    pub const fn new(a: Vec2, b: Vec2) -> Self {
        Segment { a, b }
    }

    /// `b − a`.
    #[must_use]
    #[inline]
    pub fn direction(&self) -> Vec2 {
        self.b - self.a
    }

    /// Length `|b − a|` (m).
    #[must_use]
    #[inline]
    pub fn length(&self) -> f32 {
        unit_and_length2(self.b - self.a).1
    }

    /// The front-facing unit normal `perp(b − a) / |b − a|`, or `Vec2::ZERO` for a zero-length
    /// segment (a point has no side).
    #[must_use]
    #[inline]
    pub fn normal(&self) -> Vec2 {
        unit_and_length2(self.b - self.a).0.perp()
    }

    /// Signed distance of `point` from the wall's supporting line, positive in front
    /// (`(point − a)·normal`). 0 for a zero-length segment.
    #[must_use]
    #[inline]
    pub fn signed_distance(&self, point: Vec2) -> f32 {
        (point - self.a).dot(self.normal())
    }

    /// The closest point of the segment to `point` and its parameter `t ∈ [0, 1]`; see
    /// [`closest_point_on_segment`].
    #[must_use]
    #[inline]
    pub fn closest_point(&self, point: Vec2) -> (Vec2, f32) {
        closest_point_on_segment(point, self.a, self.b)
    }

    /// Squared distance from `point` to the segment (m²).
    #[must_use]
    #[inline]
    pub fn distance_squared_to_point(&self, point: Vec2) -> f32 {
        (self.closest_point(point).0 - point).length_squared()
    }

    /// Distance from `point` to the segment (m).
    #[must_use]
    #[inline]
    pub fn distance_to_point(&self, point: Vec2) -> f32 {
        unit_and_length2(self.closest_point(point).0 - point).1
    }

    /// True when `point` lies exactly on the segment (`(p − a) × (b − a) = 0` and
    /// `0 ≤ (p − a)·(b − a) ≤ |b − a|²`, no tolerance).
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec2) -> bool {
        let ab = self.b - self.a;
        let ap = point - self.a;
        if ab == Vec2::ZERO {
            return ap == Vec2::ZERO;
        }
        if ap.perp_dot(ab) != 0.0 {
            return false;
        }
        let d = ap.dot(ab);
        d >= 0.0 && d <= ab.length_squared()
    }

    /// The bounding box of the two end points.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::from_corners(self.a, self.b)
    }

    /// First hit of `ray` on the segment, end points included, with a slack of 1e-5 of the
    /// length past each end so a ray through a corner shared by two walls cannot slip between
    /// them by rounding.
    ///
    /// With `s = b − a`: `t = ((a − o) × s) / (d × s)`, `u = ((a − o) × d) / (d × s)`, a hit when
    /// `0 ≤ t ≤ max_distance` and `0 ≤ u ≤ 1`. The normal is the wall normal turned to face the
    /// ray origin (two-sided walls). Special cases:
    /// - a ray along the wall's own line hits the nearest point of the overlap (distance 0 if the
    ///   origin is on the wall) with normal `−direction`;
    /// - a ray starting exactly on the wall and crossing it hits at distance 0 with the normal
    ///   opposing its direction;
    /// - a zero-direction ray hits only when its origin is on the segment, with the front normal
    ///   (`+x` for a zero-length segment);
    /// - a zero-length segment is hit only by a ray passing exactly through it, normal `−direction`.
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        let o = ray.origin;
        let d = ray.direction;
        let wall_normal = self.normal();
        if d == Vec2::ZERO {
            if !self.contains_point(o) {
                return None;
            }
            let normal = if wall_normal != Vec2::ZERO { wall_normal } else { Vec2::X };
            return Some(RayHit { distance: 0.0, point: o, normal });
        }
        let s = self.b - self.a;
        let qp = self.a - o;
        let denom = d.perp_dot(s);
        if denom != 0.0 {
            let t = qp.perp_dot(s) / denom;
            let u = qp.perp_dot(d) / denom;
            // `u` is allowed a few ulps past the ends: a ray through the shared corner of two
            // walls must hit one of them, whichever way the rounding of `u` goes.
            if !((0.0..=ray.max_distance).contains(&t)
                && (-SEGMENT_END_SLACK..=1.0 + SEGMENT_END_SLACK).contains(&u))
            {
                return None;
            }
            let normal = if wall_normal == Vec2::ZERO {
                -d
            } else if d.dot(wall_normal) < 0.0 {
                wall_normal
            } else {
                -wall_normal
            };
            return Some(RayHit { distance: t, point: ray.at(t), normal });
        }
        // Parallel: only a ray on the wall's own line (or through a point-wall) can hit.
        if qp.perp_dot(d) != 0.0 {
            return None;
        }
        let ta = qp.dot(d);
        let tb = (self.b - o).dot(d);
        let (t0, t1) = if ta <= tb { (ta, tb) } else { (tb, ta) };
        if !(t1 >= 0.0) {
            return None;
        }
        let t = t0.max(0.0);
        if !(t <= ray.max_distance) {
            return None;
        }
        Some(RayHit { distance: t, point: ray.at(t), normal: -d })
    }
}

/// A convex polygon obstacle, stored counter-clockwise from its lowest (then leftmost) vertex,
/// with its outward edge normals.
///
/// Convex because the queries are then exact and cheap (a point is inside when it is behind
/// every edge; a ray is clipped against each edge's half-plane, Cyrus–Beck). Build a concave
/// obstacle from several convex pieces, or from walls. The constructor validates the input:
/// at least 3 distinct points, all finite, non-zero area, convex (turns of up to 10⁻⁶ rad the
/// wrong way are tolerated as rounding), in order (a self-intersecting star is rejected). Either
/// winding is accepted; collinear points and repeated consecutive points are allowed (repeats
/// are dropped).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "Vec<Vec2>", into = "Vec<Vec2>")
)]
pub struct Polygon {
    points: Box<[Vec2]>,
    normals: Box<[Vec2]>,
    aabb: Aabb,
}

impl Polygon {
    /// A validated convex polygon.
    ///
    /// # Errors
    /// [`ParamError::NotFinite`] (`"polygon point"`) for a NaN or infinite coordinate;
    /// [`ParamError::OutOfRange`] for fewer than 3 distinct points (`"polygon points"`, the
    /// count), all points collinear (`"polygon area"`), or a non-convex or self-intersecting
    /// outline (`"polygon vertex"`, the index of the first offending vertex).
    pub fn new(points: impl Into<Vec<Vec2>>) -> Result<Self, ParamError> {
        let mut pts: Vec<Vec2> = points.into();
        for p in &pts {
            for c in p.to_array() {
                crate::error::finite("polygon point", c)?;
            }
        }
        pts.dedup();
        while pts.len() > 1 && pts.first() == pts.last() {
            pts.pop();
        }
        let n = pts.len();
        if n < 3 {
            return Err(ParamError::OutOfRange {
                name: "polygon points",
                value: n as f32,
                range: "at least 3 distinct points",
            });
        }
        let area2: f64 = (0..n)
            .map(|i| {
                let p = pts[i].as_dvec2();
                let q = pts[(i + 1) % n].as_dvec2();
                p.perp_dot(q)
            })
            .sum();
        if area2 == 0.0 || !area2.is_finite() {
            return Err(ParamError::OutOfRange {
                name: "polygon area",
                value: 0.0,
                range: "non-zero (the points must not all be collinear)",
            });
        }
        if area2 < 0.0 {
            pts.reverse();
        }
        // canonical start: the lowest vertex (then leftmost), so equal shapes compare equal
        let start = (0..n)
            .min_by(|&i, &j| {
                let (p, q) = (pts[i], pts[j]);
                p.y.total_cmp(&q.y).then(p.x.total_cmp(&q.x))
            })
            .unwrap_or(0);
        pts.rotate_left(start);
        let edge = |i: usize| -> DVec2 { pts[(i + 1) % n].as_dvec2() - pts[i].as_dvec2() };
        let mut turning = 0.0f64;
        for i in 0..n {
            let e0 = edge(i);
            let e1 = edge((i + 1) % n);
            let cross = e0.perp_dot(e1);
            if cross < -1e-6 * e0.length() * e1.length() {
                return Err(ParamError::OutOfRange {
                    name: "polygon vertex",
                    value: ((i + 1) % n) as f32,
                    range: "a convex outline (no turn the other way)",
                });
            }
            turning += cross.atan2(e0.dot(e1));
        }
        if turning > 3.0 * core::f64::consts::PI {
            return Err(ParamError::OutOfRange {
                name: "polygon vertex",
                value: 0.0,
                range: "a simple outline (it winds round more than once)",
            });
        }
        let normals: Vec<Vec2> = (0..n)
            .map(|i| {
                let e = edge(i);
                // outward of a counter-clockwise outline: the right-hand normal (e.y, −e.x)
                (DVec2::new(e.y, -e.x) / e.length()).as_vec2()
            })
            .collect();
        let mut aabb = Aabb { min: pts[0], max: pts[0] };
        for &p in &pts[1..] {
            aabb.min = aabb.min.min(p);
            aabb.max = aabb.max.max(p);
        }
        Ok(Polygon { points: pts.into_boxed_slice(), normals: normals.into_boxed_slice(), aabb })
    }

    /// An axis-aligned rectangle as a polygon (a box that can be rotated with
    /// [`Polygon::transformed`]), or an error for a zero-area box.
    ///
    /// # Errors
    /// As [`Polygon::new`].
    pub fn rectangle(min: Vec2, max: Vec2) -> Result<Self, ParamError> {
        Polygon::new(vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)])
    }

    /// The polygon rotated by `angle` radians (counter-clockwise) about the origin, then moved by
    /// `translation`.
    ///
    /// # Errors
    /// If the result is not finite (or rounding collapses it), as [`Polygon::new`].
    pub fn transformed(&self, angle: f32, translation: Vec2) -> Result<Self, ParamError> {
        let rot = Vec2::from_angle(angle);
        Polygon::new(self.points.iter().map(|&p| rot.rotate(p) + translation).collect::<Vec<_>>())
    }

    /// The vertices, counter-clockwise.
    #[must_use]
    #[inline]
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The outward unit normal of each edge `points[i] → points[i + 1]` (wrapping).
    #[must_use]
    #[inline]
    pub fn normals(&self) -> &[Vec2] {
        &self.normals
    }

    /// Edge `i` (`points[i] → points[(i + 1) % n]`), `i < n`. Its `Segment::normal()` points
    /// **into** the polygon (left of a counter-clockwise edge); `normals()[i]` points out.
    #[must_use]
    #[inline]
    pub fn edge(&self, i: usize) -> Segment {
        let n = self.points.len();
        Segment::new(self.points[i % n], self.points[(i + 1) % n])
    }

    /// The bounding box.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// Largest signed edge distance `max_i nᵢ·(p − vᵢ)` and its edge: ≤ 0 inside, where its
    /// magnitude is the distance to the nearest edge's line.
    #[inline]
    fn max_separation(&self, p: Vec2) -> (f32, usize) {
        let mut best = f32::NEG_INFINITY;
        let mut edge = 0;
        for (i, (&v, &n)) in self.points.iter().zip(self.normals.iter()).enumerate() {
            let s = n.dot(p - v);
            if s > best {
                best = s;
                edge = i;
            }
        }
        (best, edge)
    }

    /// True when `point` is inside or on the boundary (behind or on every edge's line).
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec2) -> bool {
        self.points.iter().zip(self.normals.iter()).all(|(&v, &n)| n.dot(point - v) <= 0.0)
    }

    /// The closest point of the solid polygon to `point` (the point itself when inside).
    #[must_use]
    pub fn closest_point(&self, point: Vec2) -> Vec2 {
        if self.contains_point(point) {
            return point;
        }
        let mut best = (f32::INFINITY, self.points[0]);
        for i in 0..self.points.len() {
            let (c, _) = self.edge(i).closest_point(point);
            let d = (c - point).length_squared();
            if d < best.0 {
                best = (d, c);
            }
        }
        best.1
    }

    /// Squared distance from `point` to the solid polygon: 0 inside.
    #[must_use]
    #[inline]
    pub fn distance_squared_to_point(&self, point: Vec2) -> f32 {
        (self.closest_point(point) - point).length_squared()
    }

    /// First hit of `ray` on the solid polygon (Cyrus–Beck clipping against each edge's
    /// half-plane). A ray starting inside or on the boundary hits at distance 0 with the outward
    /// normal of the nearest edge (lowest index on ties).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        let o = ray.origin;
        let d = ray.direction;
        let (sep, nearest) = self.max_separation(o);
        if sep <= 0.0 {
            return Some(RayHit { distance: 0.0, point: o, normal: self.normals[nearest] });
        }
        let mut t_enter = 0.0f32;
        let mut t_exit = ray.max_distance;
        let mut enter_edge = usize::MAX;
        for (i, (&v, &n)) in self.points.iter().zip(self.normals.iter()).enumerate() {
            let num = n.dot(v - o); // < 0: origin outside this edge
            let den = n.dot(d);
            if den == 0.0 {
                if num < 0.0 {
                    return None;
                }
                continue;
            }
            let t = num / den;
            if den < 0.0 {
                if t > t_enter {
                    t_enter = t;
                    enter_edge = i;
                }
            } else if t < t_exit {
                t_exit = t;
            }
            if !(t_enter <= t_exit) {
                return None;
            }
        }
        if enter_edge == usize::MAX {
            return None;
        }
        Some(RayHit { distance: t_enter, point: ray.at(t_enter), normal: self.normals[enter_edge] })
    }
}

impl TryFrom<Vec<Vec2>> for Polygon {
    type Error = ParamError;
    fn try_from(points: Vec<Vec2>) -> Result<Self, ParamError> {
        Polygon::new(points)
    }
}

impl From<Polygon> for Vec<Vec2> {
    fn from(p: Polygon) -> Self {
        p.points.into_vec()
    }
}

/// An axis-aligned box `[min, max]`.
///
/// `min ≤ max` componentwise is expected ([`Aabb::from_corners`] guarantees it); a box with
/// `min > max` on some axis (or NaN) is **empty**: it contains nothing and no ray hits it. A box
/// with `min == max` is a point or a segment and is valid.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb {
    /// Lower corner (m).
    pub min: Vec2,
    /// Upper corner (m).
    pub max: Vec2,
}

const FACE_NORMALS_2D: [Vec2; 4] = [Vec2::NEG_X, Vec2::X, Vec2::NEG_Y, Vec2::Y];

impl Aabb {
    /// A box from its corners as given (see the type docs for `min > max`).
    #[must_use]
    #[inline]
    pub const fn new(min: Vec2, max: Vec2) -> Self {
        Aabb { min, max }
    }

    /// The box spanned by two opposite corners in any order.
    #[must_use]
    #[inline]
    pub fn from_corners(a: Vec2, b: Vec2) -> Self {
        Aabb { min: a.min(b), max: a.max(b) }
    }

    /// The box `center ± half_extents` (negative half extents are taken as their absolute value).
    #[must_use]
    #[inline]
    pub fn from_center_half_extents(center: Vec2, half_extents: Vec2) -> Self {
        let h = half_extents.abs();
        Aabb { min: center - h, max: center + h }
    }

    /// True when `min > max` on some axis (or a bound is NaN).
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }

    /// Centre `(min + max)/2`.
    #[must_use]
    #[inline]
    pub fn center(&self) -> Vec2 {
        self.min * 0.5 + self.max * 0.5
    }

    /// Half extents `(max − min)/2`.
    #[must_use]
    #[inline]
    pub fn half_extents(&self) -> Vec2 {
        self.max * 0.5 - self.min * 0.5
    }

    /// The smallest box containing both.
    #[must_use]
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// True when `point` is inside or on the boundary.
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec2) -> bool {
        point.x >= self.min.x
            && point.x <= self.max.x
            && point.y >= self.min.y
            && point.y <= self.max.y
    }

    /// True when the boxes touch or overlap (empty boxes overlap nothing).
    #[must_use]
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && !self.is_empty()
            && !other.is_empty()
    }

    /// The closest point of the box to `point` (`point` clamped into the box; the point itself
    /// when inside). For an empty box, the result is `point`, unchanged.
    #[must_use]
    #[inline]
    pub fn closest_point(&self, point: Vec2) -> Vec2 {
        if self.is_empty() {
            return point;
        }
        point.max(self.min).min(self.max)
    }

    /// Squared distance from `point` to the solid box: 0 inside; +∞ for an empty box.
    #[must_use]
    #[inline]
    pub fn distance_squared_to_point(&self, point: Vec2) -> f32 {
        if self.is_empty() {
            return f32::INFINITY;
        }
        (self.closest_point(point) - point).length_squared()
    }

    /// First hit of `ray` on the solid box (slab method). A ray starting inside or on the
    /// boundary hits at distance 0 with the outward normal of the nearest face (ties: −x, +x,
    /// −y, +y in that order).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        if self.is_empty() {
            return None;
        }
        let (min, max) = (self.min.to_array(), self.max.to_array());
        let o = ray.origin.to_array();
        if self.contains_point(ray.origin) {
            let face = nearest_box_face(min, max, o);
            return Some(RayHit {
                distance: 0.0,
                point: ray.origin,
                normal: FACE_NORMALS_2D[face],
            });
        }
        let (t, face) = slab_cast(min, max, o, ray.direction.to_array(), ray.max_distance)?;
        if face == usize::MAX {
            return None; // unreachable from outside; kept as a guard
        }
        Some(RayHit { distance: t, point: ray.at(t), normal: FACE_NORMALS_2D[face] })
    }
}

// ---------------------------------------------------------------------------------------------
// Rays
// ---------------------------------------------------------------------------------------------

/// A 2D ray: `origin + t·direction` for `0 ≤ t ≤ max_distance`, with a unit (or zero) direction
/// so `t` is a distance in metres.
///
/// The constructors normalise the direction; a zero direction gives a point probe (see the
/// module docs). `max_distance` may be `f32::INFINITY`; negative or NaN becomes 0.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ray {
    origin: Vec2,
    direction: Vec2,
    max_distance: f32,
}

impl Ray {
    /// A ray from `origin` along `direction` (any length; normalised here) for `max_distance` m.
    #[must_use]
    #[inline]
    pub fn new(origin: Vec2, direction: Vec2, max_distance: f32) -> Self {
        Ray {
            origin,
            direction: unit_and_length2(direction).0,
            max_distance: sanitize_max_distance(max_distance),
        }
    }

    /// The ray covering the move from `start` to `start + move_amount` (Millington's
    /// `getCollision(position, moveAmount)`): direction `move_amount/|move_amount|`, length
    /// `|move_amount|`. A zero move gives a point probe at `start`.
    #[must_use]
    #[inline]
    pub fn from_segment(start: Vec2, move_amount: Vec2) -> Self {
        let (direction, len) = unit_and_length2(move_amount);
        Ray { origin: start, direction, max_distance: len }
    }

    /// Origin (m).
    #[must_use]
    #[inline]
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// Unit direction, or zero for a point probe.
    #[must_use]
    #[inline]
    pub fn direction(&self) -> Vec2 {
        self.direction
    }

    /// Maximum distance (m), ≥ 0, possibly +∞.
    #[must_use]
    #[inline]
    pub fn max_distance(&self) -> f32 {
        self.max_distance
    }

    /// The point `origin + t·direction`.
    #[must_use]
    #[inline]
    pub fn at(&self, t: f32) -> Vec2 {
        self.origin + self.direction * t
    }

    /// The end point `at(max_distance)` (the origin itself when the ray is unbounded and has a
    /// zero direction; for an unbounded ray with a direction this is infinite).
    #[must_use]
    #[inline]
    pub fn end(&self) -> Vec2 {
        if self.direction == Vec2::ZERO {
            self.origin
        } else {
            self.at(self.max_distance)
        }
    }
}

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit {
    /// Distance along the ray (m), `0 ≤ distance ≤ max_distance`.
    pub distance: f32,
    /// The hit point, `origin + distance·direction`.
    pub point: Vec2,
    /// Unit surface normal facing the side the ray came from (outward for solids; toward the
    /// origin for walls).
    pub normal: Vec2,
}

// ---------------------------------------------------------------------------------------------
// 3D
// ---------------------------------------------------------------------------------------------

/// A solid ball. A negative or NaN radius is treated as 0.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sphere {
    /// Centre (m).
    pub center: Vec3,
    /// Radius (m), ≥ 0.
    pub radius: f32,
}

impl Sphere {
    /// A sphere.
    #[must_use]
    #[inline]
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Sphere { center, radius }
    }

    /// True when `|point − center| ≤ radius`.
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec3) -> bool {
        let r = self.radius.max(0.0);
        (point - self.center).length_squared() <= r * r
    }

    /// True when the spheres touch or intersect.
    #[must_use]
    #[inline]
    pub fn overlaps_sphere(&self, other: &Sphere) -> bool {
        let r = self.radius.max(0.0) + other.radius.max(0.0);
        (self.center - other.center).length_squared() <= r * r
    }

    /// First hit of `ray` (same rules as [`Circle::cast_ray`], including rays starting inside).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray3) -> Option<RayHit3> {
        let (distance, normal) = cast_ball(
            self.center,
            self.radius,
            ray.origin,
            ray.direction,
            ray.max_distance,
            Vec3::X,
        )?;
        Some(RayHit3 { distance, point: ray.at(distance), normal })
    }
}

/// A 3D axis-aligned box; same conventions as [`Aabb`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb3 {
    /// Lower corner (m).
    pub min: Vec3,
    /// Upper corner (m).
    pub max: Vec3,
}

const FACE_NORMALS_3D: [Vec3; 6] =
    [Vec3::NEG_X, Vec3::X, Vec3::NEG_Y, Vec3::Y, Vec3::NEG_Z, Vec3::Z];

impl Aabb3 {
    /// The box spanned by two opposite corners in any order.
    #[must_use]
    #[inline]
    pub fn from_corners(a: Vec3, b: Vec3) -> Self {
        Aabb3 { min: a.min(b), max: a.max(b) }
    }

    /// True when `min > max` on some axis (or a bound is NaN).
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// True when `point` is inside or on the boundary.
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: Vec3) -> bool {
        point.cmpge(self.min).all() && point.cmple(self.max).all()
    }

    /// First hit of `ray` on the solid box (slab method); a ray starting inside hits at 0 with
    /// the nearest face's outward normal (ties: −x, +x, −y, +y, −z, +z).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray3) -> Option<RayHit3> {
        if self.is_empty() {
            return None;
        }
        let (min, max) = (self.min.to_array(), self.max.to_array());
        let o = ray.origin.to_array();
        if self.contains_point(ray.origin) {
            let face = nearest_box_face(min, max, o);
            return Some(RayHit3 {
                distance: 0.0,
                point: ray.origin,
                normal: FACE_NORMALS_3D[face],
            });
        }
        let (t, face) = slab_cast(min, max, o, ray.direction.to_array(), ray.max_distance)?;
        if face == usize::MAX {
            return None;
        }
        Some(RayHit3 { distance: t, point: ray.at(t), normal: FACE_NORMALS_3D[face] })
    }
}

/// A 3D ray with a unit (or zero) direction; same conventions as [`Ray`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ray3 {
    origin: Vec3,
    direction: Vec3,
    max_distance: f32,
}

impl Ray3 {
    /// A ray from `origin` along `direction` (normalised here) for `max_distance` m.
    #[must_use]
    #[inline]
    pub fn new(origin: Vec3, direction: Vec3, max_distance: f32) -> Self {
        Ray3 {
            origin,
            direction: unit_and_length3(direction).0,
            max_distance: sanitize_max_distance(max_distance),
        }
    }

    /// The ray covering the move `start → start + move_amount`.
    #[must_use]
    #[inline]
    pub fn from_segment(start: Vec3, move_amount: Vec3) -> Self {
        let (direction, len) = unit_and_length3(move_amount);
        Ray3 { origin: start, direction, max_distance: len }
    }

    /// Origin (m).
    #[must_use]
    #[inline]
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Unit direction, or zero.
    #[must_use]
    #[inline]
    pub fn direction(&self) -> Vec3 {
        self.direction
    }

    /// Maximum distance (m).
    #[must_use]
    #[inline]
    pub fn max_distance(&self) -> f32 {
        self.max_distance
    }

    /// The point `origin + t·direction`.
    #[must_use]
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// Where a 3D ray first meets a shape; same conventions as [`RayHit`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit3 {
    /// Distance along the ray (m).
    pub distance: f32,
    /// The hit point.
    pub point: Vec3,
    /// Unit outward normal at the hit.
    pub normal: Vec3,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
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
        let (p3, t3) =
            closest_point_on_segment(Vec3::new(1.0, 5.0, 1.0), Vec3::ZERO, Vec3::Y * 10.0);
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
            ParamError::OutOfRange { name: "polygon points", .. }
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
        let arrow = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(4.0, 2.0),
            Vec2::new(0.0, 4.0),
            Vec2::new(1.0, 2.0),
        ];
        assert!(matches!(err(arrow), ParamError::OutOfRange { name: "polygon vertex", .. }));
        // a pentagram turns the same way at every vertex but winds twice
        let star: Vec<Vec2> = (0..5)
            .map(|k| Vec2::from_angle(k as f32 * 2.0 * core::f32::consts::TAU / 5.0) * 3.0)
            .collect();
        assert!(matches!(err(star), ParamError::OutOfRange { name: "polygon vertex", .. }));
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
        let b = Aabb3::from_corners(Vec3::new(1.0, -1.0, -1.0), Vec3::new(3.0, 1.0, 1.0));
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
            if let Some(h) = Aabb3::from_corners(a.extend(c.x), b.extend(c.y)).cast_ray(&r3) {
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
}
