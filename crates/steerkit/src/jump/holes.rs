//! Gaps in the floor: the hole filler a character must clear, and the detector that runs at it
//! and jumps at the lip.

use super::{jump_times, JumpAction};
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits};
use crate::math::horizontal;
use crate::predict::finite_vec;
use crate::steering::VelocityMatch;
use glam::Vec3;

/// A hole filler (§3.6.3): an invisible "jumpable gap" object across a chasm, so characters
/// choose their own take-off point anywhere along it.
///
/// The gap is described by its near lip, the segment `lip_start`–`lip_end` on the take-off side,
/// the horizontal direction `across` in which it may be jumped (one-directional: from the far
/// side it is not a jump), and its `width` (m) along `across`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HoleFiller {
    lip_start: Vec3,
    lip_end: Vec3,
    across: Vec3,
    width: f32,
}

impl HoleFiller {
    /// A gap whose near lip runs from `lip_start` to `lip_end` (m), jumped in the horizontal
    /// direction `across` (normalised here), `width` (m, > 0) wide.
    ///
    /// # Errors
    /// If a value is not finite, the width is not positive, `across` has no horizontal part, or
    /// the lip has no horizontal length or runs along `across`.
    pub fn new(
        lip_start: Vec3,
        lip_end: Vec3,
        across: Vec3,
        width: f32,
    ) -> Result<Self, ParamError> {
        finite_vec("lip_start", lip_start)?;
        finite_vec("lip_end", lip_end)?;
        finite_vec("across", across)?;
        positive("width", width)?;
        let across_h = horizontal(across).normalize_or_zero();
        let lip = horizontal(lip_end - lip_start);
        let lip_len = lip.length();
        let cross = if lip_len > 0.0 { lip.cross(across_h).length() / lip_len } else { 0.0 };
        if across_h == Vec3::ZERO || cross < 1e-3 {
            return Err(ParamError::OutOfRange {
                name: "across",
                value: cross,
                range: "horizontal and not along the lip",
            });
        }
        Ok(HoleFiller { lip_start, lip_end, across: across_h, width })
    }

    /// The unit horizontal direction the gap is jumped in.
    #[must_use]
    pub fn across(&self) -> Vec3 {
        self.across
    }

    /// Gap width (m).
    #[must_use]
    pub fn width(&self) -> f32 {
        self.width
    }

    /// How far `point` is past the lip along `across` (m): negative on the take-off side.
    #[must_use]
    pub fn signed_distance(&self, point: Vec3) -> f32 {
        horizontal(point - self.lip_start).dot(self.across)
    }

    /// True when a horizontal line from `point` along `across` crosses the lip segment (the
    /// point is in front of the gap, not beside it).
    fn in_front(&self, point: Vec3) -> bool {
        // solve p + s·across = a + λ·(b − a) for λ in the horizontal plane
        let lip = horizontal(self.lip_end - self.lip_start);
        let side = Vec3::Y.cross(self.across);
        let denom = lip.dot(side);
        if denom == 0.0 {
            return false;
        }
        let lambda = horizontal(point - self.lip_start).dot(side) / denom;
        (0.0..=1.0).contains(&lambda)
    }

    /// Whether a jump straight across at `run_speed` (m/s) with vertical speed `jump_speed`
    /// (m/s) under vertical gravity `gravity_y` (< 0) clears the gap onto a far side
    /// `landing_rise` (m) above the lip: the flight until it comes back down to that height,
    /// `t_long` of [`jump_times`], covers `run_speed · t_long ≥ width`.
    #[must_use]
    pub fn clears(
        &self,
        run_speed: f32,
        jump_speed: f32,
        gravity_y: f32,
        landing_rise: f32,
    ) -> bool {
        jump_times(landing_rise, jump_speed, gravity_y)
            .is_some_and(|(_, t)| t > 0.0 && run_speed * t >= self.width)
    }
}

/// The hole-filler jump detector (§3.6.3): a variant of obstacle avoidance that, instead of
/// steering away from a jumpable gap, runs at it at full speed and jumps at the last moment on
/// the ledge.
///
/// ```text
/// s = signed distance past the lip, c = v_h · across (closing speed)
/// not engaged (None) if c ≤ 0 (not heading across: also how the gap is one-directional),
///   s > width (already across), or the path does not cross the lip segment
/// TakeOff  if s ≥ −edge_tolerance, with velocity v_h + ŷ·jump_speed
/// RunUp    if the lip is within `lookahead` seconds (−s/c ≤ lookahead): velocity-match to
///          full speed along the current heading
/// ```
/// There is no target velocity and no landing spot: a narrow landing is easily overshot.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpDetector {
    lookahead: f32,
    edge_tolerance: f32,
    jump_speed: f32,
    velocity_match: VelocityMatch,
}

impl JumpDetector {
    /// A detector looking `lookahead` seconds ahead (> 0), jumping within `edge_tolerance` (m,
    /// ≥ 0; more than a frame's travel) of the lip, at vertical speed `jump_speed` (m/s, ≥ 0).
    ///
    /// # Errors
    /// If a value is out of range or not finite.
    pub fn new(
        lookahead: f32,
        edge_tolerance: f32,
        jump_speed: f32,
        velocity_match: VelocityMatch,
    ) -> Result<Self, ParamError> {
        Ok(JumpDetector {
            lookahead: positive("lookahead", lookahead)?,
            edge_tolerance: non_negative("edge_tolerance", edge_tolerance)?,
            jump_speed: non_negative("jump_speed", jump_speed)?,
            velocity_match,
        })
    }

    /// This frame's action for `gap`, or `None` when the gap does not concern the character.
    #[must_use]
    pub fn steer(
        &self,
        gap: &HoleFiller,
        character: &Kinematic<Vec3>,
        limits: &Limits,
    ) -> Option<JumpAction> {
        let v = horizontal(character.velocity);
        let closing = v.dot(gap.across);
        let s = gap.signed_distance(character.position);
        if !(closing > 0.0 && closing.is_finite() && s.is_finite()) || s > gap.width {
            return None;
        }
        let crossing =
            if s < 0.0 { character.position + v * (-s / closing) } else { character.position };
        if !gap.in_front(crossing) {
            return None;
        }
        if s >= -self.edge_tolerance {
            return Some(JumpAction::TakeOff {
                velocity: v + Vec3::Y * self.jump_speed,
                vertical_speed: self.jump_speed,
            });
        }
        if -s / closing > self.lookahead {
            return None;
        }
        let desired = v.normalize_or_zero() * limits.max_speed();
        let steering = self.velocity_match.steer(character, desired, limits)?;
        Some(JumpAction::RunUp(steering))
    }
}
