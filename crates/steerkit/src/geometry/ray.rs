//! Rays and their hits, 2D and 3D.

use super::{sanitize_max_distance, unit_and_length2, unit_and_length3};
use glam::{Vec2, Vec3};

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
