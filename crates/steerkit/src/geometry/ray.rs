//! Rays and their hits, in 2D and 3D.

use super::{at_least_zero, unit_and_length};
use crate::math::Vector;
use glam::{Vec2, Vec3};

/// A ray: `origin + t·direction` for `0 ≤ t ≤ max_distance`, with a unit (or zero) direction
/// so `t` is a distance in metres. 2D by default; [`Ray3`] is the 3D ray.
///
/// The constructors normalise the direction; a zero direction gives a point probe (see the
/// module docs). `max_distance` may be `f32::INFINITY`; negative or NaN becomes 0.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ray<V: Vector = Vec2> {
    origin: V,
    direction: V,
    max_distance: f32,
}

/// A 3D ray.
pub type Ray3 = Ray<Vec3>;

impl<V: Vector> Ray<V> {
    /// A ray from `origin` along `direction` (any length; normalised here) for `max_distance` m.
    #[must_use]
    #[inline]
    pub fn new(origin: V, direction: V, max_distance: f32) -> Self {
        Ray {
            origin,
            direction: unit_and_length(direction).0,
            max_distance: at_least_zero(max_distance),
        }
    }

    /// The ray covering the move from `start` to `start + move_amount` (Millington's
    /// `getCollision(position, moveAmount)`): direction `move_amount/|move_amount|`, length
    /// `|move_amount|`. A zero move gives a point probe at `start`.
    #[must_use]
    #[inline]
    pub fn from_segment(start: V, move_amount: V) -> Self {
        let (direction, len) = unit_and_length(move_amount);
        Ray { origin: start, direction, max_distance: len }
    }
}

impl<V: Vector> Ray<V> {
    /// Origin (m).
    #[must_use]
    #[inline]
    pub fn origin(&self) -> V {
        self.origin
    }

    /// Unit direction, or zero for a point probe.
    #[must_use]
    #[inline]
    pub fn direction(&self) -> V {
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
    pub fn at(&self, t: f32) -> V {
        self.origin + self.direction * t
    }

    /// The end point `at(max_distance)` (the origin itself when the ray is unbounded and has a
    /// zero direction; for an unbounded ray with a direction this is infinite).
    #[must_use]
    #[inline]
    pub fn end(&self) -> V {
        if self.direction == V::ZERO {
            self.origin
        } else {
            self.at(self.max_distance)
        }
    }

    /// The hit at `distance` along the ray, at `at(distance)`.
    #[inline]
    pub(super) fn hit(&self, distance: f32, normal: V) -> RayHit<V> {
        RayHit { distance, point: self.at(distance), normal }
    }
}

/// Where a ray first meets a shape. 2D by default; [`RayHit3`] is the 3D hit.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit<V: Vector = Vec2> {
    /// Distance along the ray (m), `0 ≤ distance ≤ max_distance`.
    pub distance: f32,
    /// The hit point, `origin + distance·direction`.
    pub point: V,
    /// Unit surface normal facing the side the ray came from (outward for solids; toward the
    /// origin for walls).
    pub normal: V,
}

/// Where a 3D ray first meets a shape.
pub type RayHit3 = RayHit<Vec3>;
