//! Green's layered repulsion (§22): a 1/x³ push out of the obstacles a character touches, in
//! 2D and 3D.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::truncate;
use crate::error::{non_negative, positive, ParamError};
use crate::geometry::{ObstacleSet, ObstacleSet3, Ray, Shape, StaticWorld};
use crate::kinematic::{Kinematic, Kinematic3, Limits, SteeringOutput, SteeringOutput3};
use crate::math::Vector;

/// Green's `RepelObstacle` (§22): a penalty that pushes a character out of the obstacles (and
/// walls) it touches or nearly touches, falling off with the cube of the gap.
///
/// ```text
/// for each obstacle within `range` of the character's surface:
///     gap x = |p − closest point| − own_radius          (≤ 0 when touching or inside)
///     strength = max_acc · min(1, (contact_gap / x)³)   (max_acc for x ≤ contact_gap)
///     a += strength · away                               away = (p − closest)/|p − closest|,
///                                                        or the outward normal when inside
/// a clipped to max_acc
/// ```
/// Green layers the forces: walls are never crossed (a hard constraint), obstacles repel at
/// 1/x³ ("not a force to be trifled with"), and only then do characters separate (1/x²); give
/// this behaviour priority over [`Separation`](crate::steering::Separation) when combining.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RepelObstacle {
    range: f32,
    contact_gap: f32,
}

impl RepelObstacle {
    /// Repulsion from obstacles within `range` m of the character's surface, at full strength
    /// below a gap of `contact_gap` m.
    ///
    /// # Errors
    /// If `range` is negative or `contact_gap` is not positive, or `contact_gap > range`.
    pub fn new(range: f32, contact_gap: f32) -> Result<Self, ParamError> {
        let range = non_negative("range", range)?;
        let contact_gap = positive("contact_gap", contact_gap)?;
        crate::error::at_least("range", range, "contact_gap", contact_gap)?;
        Ok(RepelObstacle { range, contact_gap })
    }

    /// The strength (m/s²) at a surface gap `x` (m): `max_acc · min(1, (contact_gap / x)³)`, 0
    /// beyond the range.
    #[must_use]
    pub fn strength(&self, gap: f32, max_acceleration: f32) -> f32 {
        if gap > self.range {
            0.0
        } else if gap <= self.contact_gap {
            max_acceleration
        } else {
            let r = self.contact_gap / gap;
            max_acceleration * r * r * r
        }
    }

    /// The summed repulsion, or `None` when nothing is within range.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        own_radius: f32,
        set: &ObstacleSet,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        self.steer_in(character, own_radius, set, limits)
    }

    /// The summed repulsion in 3D from the spheres and boxes of an [`ObstacleSet3`] (the same
    /// formula, with the ball of `own_radius` as the body), or `None` when nothing is within
    /// range.
    #[must_use]
    pub fn steer_3d(
        &self,
        character: &Kinematic3,
        own_radius: f32,
        set: &ObstacleSet3,
        limits: &Limits,
    ) -> Option<SteeringOutput3> {
        self.steer_in(character, own_radius, set, limits)
    }

    /// The repulsion in either space (what [`steer`](Self::steer) and
    /// [`steer_3d`](Self::steer_3d) run, and the crowd's leaf).
    pub(crate) fn steer_in<V: Vector, W: StaticWorld<V>>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        set: &W,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let p = character.position;
        let own = own_radius.max(0.0);
        let max = limits.max_acceleration();
        let mut sum = V::ZERO;
        let mut any = false;
        set.for_each_near(p, own + self.range, |_, o| {
            let q = o.closest_point(p);
            let (away, dist) = {
                let d = p - q;
                let len = d.length();
                if len > 0.0 && len.is_finite() {
                    (d / len, len)
                } else {
                    // inside a solid or exactly on a wall: the shortest way out
                    let probe = o.cast_ray(&Ray::new(p, V::ZERO, 0.0));
                    let n = probe.map_or(V::ZERO, |h| h.normal);
                    // +x when there is none
                    (if n == V::ZERO { V::FACE_NORMALS[1] } else { n }, 0.0)
                }
            };
            let gap = dist - own;
            let strength = self.strength(gap, max);
            if strength > 0.0 {
                any = true;
                sum += away * strength;
            }
        });
        any.then(|| SteeringOutput::linear(truncate(sum, max)))
    }
}
