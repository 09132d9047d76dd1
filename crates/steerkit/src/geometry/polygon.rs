//! The convex polygon obstacle.

use super::{Aabb, Ray, RayHit, Segment};
use crate::error::ParamError;
use glam::{DVec2, Vec2};

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
    /// [`ParamError::Count`] for fewer than 3 distinct points (`"polygon points"`, the count) or
    /// a non-convex outline (`"polygon vertex"`, the index of the first offending vertex);
    /// [`ParamError::OutOfRange`] (`"polygon area"`) when all points are collinear;
    /// [`ParamError::Invalid`] (`"polygon vertex"`) for an outline that winds round more than
    /// once.
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
            return Err(ParamError::Count {
                name: "polygon points",
                count: n,
                expected: "at least 3 distinct points",
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
                return Err(ParamError::Count {
                    name: "polygon vertex",
                    count: (i + 1) % n,
                    expected: "a convex outline (no turn the other way)",
                });
            }
            turning += cross.atan2(e0.dot(e1));
        }
        if turning > 3.0 * core::f64::consts::PI {
            return Err(ParamError::Invalid {
                name: "polygon vertex",
                expected: "a simple outline (it winds round more than once)",
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
    pub(super) fn max_separation(&self, p: Vec2) -> (f32, usize) {
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
        let o = ray.origin();
        let d = ray.direction();
        let (sep, nearest) = self.max_separation(o);
        if sep <= 0.0 {
            return Some(RayHit { distance: 0.0, point: o, normal: self.normals[nearest] });
        }
        let mut t_enter = 0.0f32;
        let mut t_exit = ray.max_distance();
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
        Some(ray.hit(t_enter, self.normals[enter_edge]))
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
