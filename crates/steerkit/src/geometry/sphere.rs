//! The solid ball.

use super::{cast_ball, Ray3, RayHit3};
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
            ray.origin(),
            ray.direction(),
            ray.max_distance(),
            Vec3::X,
        )?;
        Some(RayHit3 { distance, point: ray.at(distance), normal })
    }
}
