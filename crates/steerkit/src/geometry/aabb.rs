//! Axis-aligned boxes, in 2D and 3D.

use super::{Ray, RayHit};
use crate::math::Vector;
use glam::Vec2;

/// An axis-aligned box `[min, max]`; 2D by default, `Aabb<Vec3>` in 3D.
///
/// `min ≤ max` componentwise is expected ([`Aabb::from_corners`] guarantees it); a box with
/// `min > max` on some axis (or NaN) is **empty**: it contains nothing and no ray hits it. A box
/// with `min == max` is a point or a segment and is valid.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb<V: Vector = Vec2> {
    /// Lower corner (m).
    pub min: V,
    /// Upper corner (m).
    pub max: V,
}

impl<V: Vector> Aabb<V> {
    /// A box from its corners as given (see the type docs for `min > max`).
    #[must_use]
    #[inline]
    pub const fn new(min: V, max: V) -> Self {
        Aabb { min, max }
    }

    /// Centre `(min + max)/2`.
    #[must_use]
    #[inline]
    pub fn center(&self) -> V {
        self.min * 0.5 + self.max * 0.5
    }

    /// Half extents `(max − min)/2`.
    #[must_use]
    #[inline]
    pub fn half_extents(&self) -> V {
        self.max * 0.5 - self.min * 0.5
    }
}

impl<V: Vector> Aabb<V> {
    /// The box spanned by two opposite corners in any order.
    #[must_use]
    #[inline]
    pub fn from_corners(a: V, b: V) -> Self {
        Aabb { min: a.min(b), max: a.max(b) }
    }

    /// The box `center ± half_extents` (negative half extents are taken as their absolute value).
    #[must_use]
    #[inline]
    pub fn from_center_half_extents(center: V, half_extents: V) -> Self {
        let h = half_extents.abs();
        Aabb { min: center - h, max: center + h }
    }

    /// True when `min > max` on some axis (or a bound is NaN).
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(0..V::DIM).all(|k| self.min[k] <= self.max[k])
    }

    /// The smallest box containing both.
    #[must_use]
    #[inline]
    pub fn union(&self, other: &Self) -> Self {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// True when `point` is inside or on the boundary.
    #[must_use]
    #[inline]
    pub fn contains_point(&self, point: V) -> bool {
        (0..V::DIM).all(|k| point[k] >= self.min[k] && point[k] <= self.max[k])
    }

    /// True when the boxes touch or overlap (empty boxes overlap nothing).
    #[must_use]
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        (0..V::DIM).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
            && !self.is_empty()
            && !other.is_empty()
    }

    /// The closest point of the box to `point` (`point` clamped into the box; the point itself
    /// when inside). For an empty box, the result is `point`, unchanged.
    #[must_use]
    #[inline]
    pub fn closest_point(&self, point: V) -> V {
        if self.is_empty() {
            return point;
        }
        point.max(self.min).min(self.max)
    }

    /// Squared distance from `point` to the solid box: 0 inside; +∞ for an empty box.
    #[must_use]
    #[inline]
    pub fn distance_squared_to_point(&self, point: V) -> f32 {
        if self.is_empty() {
            return f32::INFINITY;
        }
        (self.closest_point(point) - point).length_squared()
    }

    /// First hit of `ray` on the solid box (slab method). A ray starting inside or on the
    /// boundary hits at distance 0 with the outward normal of the nearest face (ties: −x, +x,
    /// −y, +y, then −z, +z in 3D, in that order).
    #[must_use]
    pub fn cast_ray(&self, ray: &Ray<V>) -> Option<RayHit<V>> {
        if self.is_empty() {
            return None;
        }
        if self.contains_point(ray.origin()) {
            let face = nearest_box_face(self.min, self.max, ray.origin());
            return Some(RayHit {
                distance: 0.0,
                point: ray.origin(),
                normal: V::FACE_NORMALS[face],
            });
        }
        let (t, face) =
            slab_cast(self.min, self.max, ray.origin(), ray.direction(), ray.max_distance())?;
        if face == usize::MAX {
            return None; // unreachable from outside; kept as a guard
        }
        Some(ray.hit(t, V::FACE_NORMALS[face]))
    }
}

/// Slab test of a ray against the box `[min, max]`: the entry distance and the index of the
/// entry face (`axis * 2 + (0 for the min face, 1 for the max face)`), or `None` for a miss.
#[inline]
fn slab_cast<V: Vector>(
    min: V,
    max: V,
    origin: V,
    dir: V,
    max_distance: f32,
) -> Option<(f32, usize)> {
    let mut t_enter = 0.0f32;
    let mut t_exit = max_distance;
    let mut face = usize::MAX;
    for k in 0..V::DIM {
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
fn nearest_box_face<V: Vector>(min: V, max: V, p: V) -> usize {
    let mut best = f32::INFINITY;
    let mut face = 0;
    for k in 0..V::DIM {
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
