//! Buckland's wall feelers (§10.2): three rays ahead of the character, steering away from
//! the walls they cross.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{heading_or_facing, RayLayout};
use crate::error::{positive, ParamError};
use crate::geometry::{Collision, CollisionDetector, Ray};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};

/// Buckland's wall feelers (§10.2): a centre feeler `length` m long and two side feelers at
/// `±side_angle` (Buckland: 45°), `side_ratio` of the length (Buckland: ½).
///
/// ```text
/// for each feeler i (tip t_i): nearest hit along it (distance d_i, point h_i, normal n_i)
/// take the feeler whose hit is nearest: overshoot = |t_i − h_i| = len_i − d_i
/// a = n_i · max_acc · overshoot / len_i
/// ```
/// The overshoot is that same feeler's (Buckland's listing pairs one feeler's tip with an
/// earlier feeler's hit: erratum B-E15). Walls are two-sided: the normal faces the character,
/// so a wall met from behind pushes back, not through. A character at rest feels along its
/// orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WallFeelers {
    length: f32,
    side_angle: f32,
    side_ratio: f32,
}

impl WallFeelers {
    /// Buckland's feelers: side feelers at ±45°, half as long.
    ///
    /// # Errors
    /// If `length` is not finite and positive.
    pub fn new(length: f32) -> Result<Self, ParamError> {
        Ok(WallFeelers {
            length: positive("feeler_length", length)?,
            side_angle: core::f32::consts::FRAC_PI_4,
            side_ratio: 0.5,
        })
    }

    /// Side feelers at `±angle` rad (≤ π/2), `ratio` of the centre length (in `(0, 1]`).
    ///
    /// # Errors
    /// If the angle or ratio is out of range.
    pub fn with_sides(mut self, angle: f32, ratio: f32) -> Result<Self, ParamError> {
        if let RayLayout::Whiskers { half_angle, whisker_ratio } =
            (RayLayout::Whiskers { half_angle: angle, whisker_ratio: ratio }).validate()?
        {
            self.side_angle = half_angle;
            self.side_ratio = whisker_ratio;
        }
        Ok(self)
    }

    /// The three feelers (centre, left, right) as rays.
    #[must_use]
    pub fn feelers(&self, character: &Kinematic) -> [Ray; 3] {
        let (h, _) = heading_or_facing(character);
        let s = h.perp();
        let (sin, cos) = self.side_angle.sin_cos();
        let side = self.length * self.side_ratio;
        let p = character.position;
        [
            Ray::new(p, h, self.length),
            Ray::new(p, h * cos + s * sin, side),
            Ray::new(p, h * cos - s * sin, side),
        ]
    }

    /// The push away from the wall the nearest feeler hit, or `None` when all are clear.
    pub fn steer<D: CollisionDetector + ?Sized>(
        &self,
        character: &Kinematic,
        detector: &D,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let mut best: Option<(Collision, f32)> = None;
        for ray in self.feelers(character) {
            if let Some(c) = detector.cast_ray(&ray) {
                if best.is_none_or(|(b, _)| c.distance < b.distance) {
                    best = Some((c, ray.max_distance()));
                }
            }
        }
        let (hit, len) = best?;
        let overshoot = (len - hit.distance).max(0.0);
        let fraction = if len > 0.0 { overshoot / len } else { 1.0 };
        Some(SteeringOutput::linear(hit.normal * (limits.max_acceleration() * fraction)))
    }
}
