//! Orientation matching in 2D: align, face, look where you're going (Millington §3.3.5, §3.3.9,
//! §3.3.10). The 3D versions live in `three_d` and share [`Align::rotation_speed`].

use crate::error::{at_least, non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::{orientation_of, wrap_angle};
use crate::steering::Stop;
use glam::Vec2;

/// Below this rotation speed (rad/s) an aligned character counts as not turning: far below any
/// visible drift (a cut-off like 10⁻⁴ rad/s leaves a creeping turn), above the subnormal range
/// where braking by a fraction of the speed stops making progress (as arrive's rest speed).
const REST_ROTATION: f32 = 1e-12;

/// Align: match a target orientation (§3.3.5), arrive's angular twin.
///
/// ```text
/// Δ = wrap(target − orientation) ∈ (−π, π]      (always the short way round)
/// |Δ| < target_radius → stop turning (Stop::Brake) or None (Stop::Coast)
/// ω* = max_rotation                         if |Δ| > slow_radius
///    = max_rotation · |Δ| / slow_radius     otherwise, with the sign of Δ
/// angular = (ω* − rotation) / time_to_target, clipped to ±max_angular_acceleration
/// ```
/// Radii are angles (rad); the output is an angular acceleration (rad/s²) with zero linear part.
/// To face away from an orientation ("look away"), align to `target + π`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Align {
    target_radius: f32,
    slow_radius: f32,
    time_to_target: f32,
    stop: Stop,
}

impl Align {
    /// Align with angular radii (rad) and a response time (s); the book suggests 0.1 s.
    ///
    /// # Errors
    /// Negative or non-finite radii, `slow_radius < target_radius`, `time_to_target ≤ 0`.
    pub fn new(
        target_radius: f32,
        slow_radius: f32,
        time_to_target: f32,
    ) -> Result<Self, ParamError> {
        non_negative("target_radius", target_radius)?;
        non_negative("slow_radius", slow_radius)?;
        at_least("slow_radius", slow_radius, "target_radius", target_radius)?;
        positive("time_to_target", time_to_target)?;
        Ok(Align { target_radius, slow_radius, time_to_target, stop: Stop::Brake })
    }

    /// The same align with another stop policy.
    #[must_use]
    pub fn with_stop(mut self, stop: Stop) -> Self {
        self.stop = stop;
        self
    }

    /// Target radius (rad).
    #[must_use]
    pub fn target_radius(&self) -> f32 {
        self.target_radius
    }
    /// Slow radius (rad).
    #[must_use]
    pub fn slow_radius(&self) -> f32 {
        self.slow_radius
    }
    /// Response time (s).
    #[must_use]
    pub fn time_to_target(&self) -> f32 {
        self.time_to_target
    }
    /// Stop policy inside the target radius.
    #[must_use]
    pub fn stop(&self) -> Stop {
        self.stop
    }

    /// The target turn speed (rad/s, ≥ 0) for a remaining angle `angle ≥ 0`, or `None` inside the
    /// target radius. Shared by the 2D and 3D aligns.
    #[must_use]
    #[inline]
    pub fn rotation_speed(&self, angle: f32, max_rotation: f32) -> Option<f32> {
        if angle < self.target_radius || angle == 0.0 {
            None
        } else if angle > self.slow_radius {
            Some(max_rotation)
        } else {
            Some(max_rotation * (angle / self.slow_radius))
        }
    }

    /// The angular acceleration that turns the character to `target_orientation` (rad).
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic<Vec2>,
        target_orientation: f32,
        limits: &Limits,
    ) -> Option<SteeringOutput<Vec2>> {
        let delta = wrap_angle(target_orientation - character.orientation);
        let max_alpha = limits.max_angular_acceleration();
        let target_rotation = match self.rotation_speed(delta.abs(), limits.max_rotation()) {
            Some(speed) => speed.copysign(delta),
            None => {
                if self.stop == Stop::Coast || character.rotation.abs() < REST_ROTATION {
                    return None;
                }
                0.0
            }
        };
        let angular = ((target_rotation - character.rotation) / self.time_to_target)
            .clamp(-max_alpha, max_alpha);
        Some(SteeringOutput::angular(angular))
    }
}

/// Face: turn to look at a position (§3.3.9): align to `orientation_of(target − position)`.
/// Returns `None` when the character is on the target (erratum E6: the book returns the target).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Face {
    /// The align this delegates to.
    pub align: Align,
}

impl Face {
    /// Face delegating to `align`.
    #[must_use]
    pub fn new(align: Align) -> Self {
        Face { align }
    }

    /// The angular acceleration that turns the character toward `target`.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic<Vec2>,
        target: Vec2,
        limits: &Limits,
    ) -> Option<SteeringOutput<Vec2>> {
        let direction = target - character.position;
        if direction.length_squared() == 0.0 {
            return None;
        }
        self.align.steer(character, orientation_of(direction), limits)
    }
}

/// Look where you're going (§3.3.10): align to the direction of the character's own velocity.
/// Returns `None` when the velocity is zero (no preferred facing).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "face_heading")]
pub struct LookWhereYoureGoing {
    /// The align this delegates to.
    pub align: Align,
}

impl LookWhereYoureGoing {
    /// Look where you're going, delegating to `align`.
    #[must_use]
    pub fn new(align: Align) -> Self {
        LookWhereYoureGoing { align }
    }

    /// The angular acceleration that turns the character toward its velocity.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic<Vec2>,
        limits: &Limits,
    ) -> Option<SteeringOutput<Vec2>> {
        if character.velocity.length_squared() == 0.0 {
            return None;
        }
        self.align.steer(character, orientation_of(character.velocity), limits)
    }
}
