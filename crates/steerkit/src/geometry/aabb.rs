//! Axis-aligned boxes, 2D and 3D.

use super::{nearest_box_face, slab_cast, Ray, Ray3, RayHit, RayHit3};
use glam::{Vec2, Vec3};

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
        let o = ray.origin().to_array();
        if self.contains_point(ray.origin()) {
            let face = nearest_box_face(min, max, o);
            return Some(RayHit {
                distance: 0.0,
                point: ray.origin(),
                normal: FACE_NORMALS_2D[face],
            });
        }
        let (t, face) = slab_cast(min, max, o, ray.direction().to_array(), ray.max_distance())?;
        if face == usize::MAX {
            return None; // unreachable from outside; kept as a guard
        }
        Some(RayHit { distance: t, point: ray.at(t), normal: FACE_NORMALS_2D[face] })
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
        let o = ray.origin().to_array();
        if self.contains_point(ray.origin()) {
            let face = nearest_box_face(min, max, o);
            return Some(RayHit3 {
                distance: 0.0,
                point: ray.origin(),
                normal: FACE_NORMALS_3D[face],
            });
        }
        let (t, face) = slab_cast(min, max, o, ray.direction().to_array(), ray.max_distance())?;
        if face == usize::MAX {
            return None;
        }
        Some(RayHit3 { distance: t, point: ray.at(t), normal: FACE_NORMALS_3D[face] })
    }
}
