//! The static world (Millington §3.3.15; Green and Buckland on obstacles and walls): shapes,
//! exact ray casts, and the obstacles behaviours avoid ([`Obstacle`], the [`CollisionDetector`]
//! interface and the [`ObstacleSet`] that implements it over a bounding-volume hierarchy; in 3D
//! [`Obstacle3`] and [`ObstacleSet3`] on the same hierarchy).
//!
//! Shapes: circles, walls (segments), convex polygons and boxes in 2D; spheres and boxes in 3D;
//! rays cast against each.
//!
//! # Conventions
//! - Units are metres; 2D lives in the x–y plane, 3D is y-up and right-handed.
//! - A [`Ray`] (2D, or 3D as [`Ray3`]) has a **unit** direction (or zero) and a maximum distance, so every
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

mod aabb;
mod circle;
mod obstacle;
mod polygon;
mod ray;
mod segment;
mod sphere;
#[cfg(test)]
pub(crate) mod tests;

pub use aabb::Aabb;
pub use circle::Circle;
pub use polygon::Polygon;
pub use ray::{Ray, Ray3, RayHit, RayHit3};
pub use segment::Segment;
pub use sphere::Sphere;

pub use obstacle::{
    ClosestObstacle, Collision, Collision3, CollisionDetector, Obstacle, Obstacle3, ObstacleId,
    ObstacleSet, ObstacleSet3,
};
pub(crate) use obstacle::{Shape, StaticWorld};

use crate::math::Vector;
use glam::Vec2;

/// Unit vector and length of `v`. Tiny (subnormal-squared) and huge (overflowing-squared)
/// vectors are normalised in f64, so they still come out unit. Zero (or non-finite) gives
/// `(0, 0)`.
#[inline]
fn unit_and_length<V: Vector>(v: V) -> (V, f32) {
    let len_sq = v.length_squared();
    if len_sq.is_finite() && len_sq > f32::MIN_POSITIVE {
        let len = len_sq.sqrt();
        return (v / len, len);
    }
    v.unit_and_length_f64()
}

/// How a radius or a ray length is read: `x` when positive (+∞ included), else 0 (negative or
/// NaN).
#[inline]
fn at_least_zero(x: f32) -> f32 {
    if x > 0.0 {
        x
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
/// use steerkit::geometry::closest_point_on_segment;
/// use steerkit::Vec2;
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

/// The first hit of `ray` on a ball (circle or sphere), with the outward unit normal.
/// `fallback` is the unit +x of the space: the normal at the exact centre for a zero direction.
#[inline]
fn cast_ball<V: Vector>(center: V, radius: f32, ray: &Ray<V>, fallback: V) -> Option<RayHit<V>> {
    let (origin, dir) = (ray.origin(), ray.direction());
    let r = at_least_zero(radius);
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
        return Some(ray.hit(0.0, outward(m)));
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
    if !(t <= ray.max_distance()) {
        return None;
    }
    // The hit relative to the centre, `q − d·h`, is small and accurate even when the ray
    // travelled far (`origin + d·t − center` would carry the rounding of the long distance).
    let n = (q - dir * h).normalize_or_zero();
    Some(ray.hit(t, if n != V::ZERO { n } else { outward(m) }))
}
