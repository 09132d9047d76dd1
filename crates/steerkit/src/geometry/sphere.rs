//! The solid ball.

use super::{at_least_zero, cast_ball, Aabb, Ray3, RayHit3};
use glam::Vec3;

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
        let r = at_least_zero(self.radius);
        (point - self.center).length_squared() <= r * r
    }

    /// True when the spheres touch or intersect.
    #[must_use]
    #[inline]
    pub fn overlaps_sphere(&self, other: &Sphere) -> bool {
        let r = at_least_zero(self.radius) + at_least_zero(other.radius);
        (self.center - other.center).length_squared() <= r * r
    }

    /// True when the ball touches or intersects the box (an empty box overlaps nothing).
    #[must_use]
    #[inline]
    pub fn overlaps_aabb(&self, aabb: &Aabb<Vec3>) -> bool {
        let r = at_least_zero(self.radius);
        !aabb.is_empty() && aabb.distance_squared_to_point(self.center) <= r * r
    }

    /// The bounding box `center ± radius`.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb<Vec3> {
        let r = Vec3::splat(at_least_zero(self.radius));
        Aabb { min: self.center - r, max: self.center + r }
    }

    /// First hit of `ray` (same rules as [`Circle::cast_ray`](super::Circle::cast_ray), including
    /// rays starting inside).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray3) -> Option<RayHit3> {
        cast_ball(self.center, self.radius, ray, Vec3::X)
    }
}
