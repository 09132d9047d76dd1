//! Obstacle avoidance in 3D (see [In 3D](super::ObstacleAvoidance#in-3d)): the frame the side
//! rays are laid out in, the rays round the heading, and the steering. The 2D form and the
//! state both share are in the parent.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{heading_of, lateral_target, AvoidTarget, ObstacleAvoidance};
use crate::geometry::{Collision3, CollisionDetector, Ray3};
use crate::kinematic::{sanitize_dt, Kinematic3, Limits, SteeringOutput3};
use crate::math::{FORWARD_3D, UP_3D};
use glam::Vec3;

/// The frame 3D avoidance lays its side rays out in, for a unit heading `h`: `left =
/// normalize(UP × h)` and `up = h × left` (for `h = +x`: left −z, up +y, the character's own
/// frame). Within about 0.06° of vertical (`|UP × h|² < 10⁻⁶`) the reference is −x when
/// climbing and +x when descending instead of UP: the frame of a character that pitched
/// straight up or down from facing +x (left −z).
#[inline]
fn frame_3d(h: Vec3) -> (Vec3, Vec3) {
    let mut left = UP_3D.cross(h);
    if !(left.length_squared() >= 1e-6) {
        let reference = if h.y > 0.0 { -FORWARD_3D } else { FORWARD_3D };
        left = reference.cross(h);
    }
    let left = left.normalize_or_zero();
    (left, h.cross(left))
}

impl ObstacleAvoidance {
    /// The 3D rays (see [In 3D](Self#in-3d)): calls `f` with each ray the character would
    /// cast now and its lean, the unit direction it leans to (`left`, `−left`, `up`, `−up`;
    /// zero for a central ray), for drawing and custom detectors. Nothing at rest.
    ///
    /// The frame: `left = normalize(UP × ĥ)`, `up = ĥ × left`; when `|UP × ĥ|² < 10⁻⁶`
    /// (within about 0.06° of vertical), `left = normalize(r × ĥ)` with `r = −x` climbing and
    /// `+x` descending (a character that pitched straight up or down from facing +x). Rays in
    /// the order of the 2D layout, first in the (ĥ, left) plane, then in the (ĥ, up) plane
    /// without the central rays.
    pub fn for_each_ray_3d(&self, character: &Kinematic3, mut f: impl FnMut(Ray3, Vec3)) {
        let Some((h, speed)) = heading_of(character) else { return };
        let (left, up) = frame_3d(h);
        let length = self.lookahead + speed * self.lookahead_time;
        for (plane, s) in [left, up].into_iter().enumerate() {
            for i in 0..self.layout.count() {
                let (offset, angle, fraction, side) = self.layout.ray(i, self.angle);
                if plane == 1 && side == 0.0 {
                    continue; // a central ray, already cast
                }
                let (sin, cos) = angle.sin_cos();
                let dir = h * cos + s * sin;
                f(Ray3::new(character.position + s * offset, dir, length * fraction), s * side);
            }
        }
    }

    /// 3D obstacle avoidance (see [In 3D](Self#in-3d)): casts the rays of
    /// [`for_each_ray_3d`](Self::for_each_ray_3d), updates the adaptive fan, and returns the
    /// acceleration toward the avoid target, or `None` when nothing is hit (or the character
    /// is at rest). The corner commitment is not used in 3D.
    pub fn steer_3d<D: CollisionDetector<Vec3> + ?Sized>(
        &mut self,
        character: &Kinematic3,
        detector: &D,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput3> {
        let dt = sanitize_dt(dt);
        let mut nearest: Option<Collision3> = None;
        let mut lean = Vec3::ZERO;
        self.for_each_ray_3d(character, |ray, side| {
            if let Some(c) = detector.cast_ray(&ray) {
                let reach = ray.max_distance();
                let weight = if reach > 0.0 { 1.0 - (c.distance / reach).min(1.0) } else { 1.0 };
                // a touching hit still counts on its side
                lean += side * weight.max(1e-3);
                if nearest.is_none_or(|b| c.distance < b.distance) {
                    nearest = Some(c);
                }
            }
        });
        let Some(hit) = nearest else {
            self.clear(dt);
            return None;
        };
        self.widen(dt);
        let (h, _) = heading_of(character)?;
        let n = hit.normal;
        let target = match self.target_rule {
            AvoidTarget::Normal => hit.position + n * self.avoid_distance,
            AvoidTarget::Lateral => {
                let sideways = n - h * n.dot(h);
                let s = if lean.length_squared() > 1e-12 {
                    -lean.normalize()
                } else if sideways.length_squared() > 1e-6 {
                    sideways.normalize()
                } else {
                    frame_3d(h).0
                };
                lateral_target(hit.position, hit.distance, n, h, s, 1.0, self.avoid_distance)
            }
        };
        self.seek_or_back_off(character, target, n, limits)
    }
}
