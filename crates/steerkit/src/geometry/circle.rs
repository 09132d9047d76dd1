//! The solid disc.

use super::{at_least_zero, cast_ball, Aabb, Polygon, Ray, RayHit, Segment};
use glam::Vec2;

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
        at_least_zero(self.radius)
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
        cast_ball(self.center, self.radius, ray, Vec2::X)
    }
}
