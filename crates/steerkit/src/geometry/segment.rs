//! The wall: a two-sided segment.

use super::{closest_point_on_segment, unit_and_length, Aabb, Ray, RayHit};
use glam::Vec2;

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
        unit_and_length(self.b - self.a).1
    }

    /// The front-facing unit normal `perp(b − a) / |b − a|`, or `Vec2::ZERO` for a zero-length
    /// segment (a point has no side).
    #[must_use]
    #[inline]
    pub fn normal(&self) -> Vec2 {
        unit_and_length(self.b - self.a).0.perp()
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
        unit_and_length(self.closest_point(point).0 - point).1
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
        let o = ray.origin();
        let d = ray.direction();
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
            if !((0.0..=ray.max_distance()).contains(&t)
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
            return Some(ray.hit(t, normal));
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
        if !(t <= ray.max_distance()) {
            return None;
        }
        Some(ray.hit(t, -d))
    }
}
