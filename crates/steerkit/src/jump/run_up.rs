//! The [`Jump`] behaviour: the run-up to a jump point, the conditions for taking off, and the
//! action that tells the caller when to jump.

use super::{JumpCapability, JumpError, JumpPair, JumpPoint};
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::horizontal;
use crate::predict::BallisticArc;
use crate::steering::VelocityMatch;
use glam::Vec3;

/// When the character's velocity is good enough to take off (§3.6.1).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TakeoffRule {
    /// Match the run-up velocity: `|v_h − v_req| ≤ tolerance` (m/s). Right for landing pads and
    /// narrow landings, where both speed and direction matter.
    MatchVelocity {
        /// Velocity tolerance (m/s), ≥ 0.
        tolerance: f32,
    },
    /// Enough speed in the jump direction: `v_h · d̂ ≥ |v_req|`, whatever the sideways velocity.
    /// Right for wide landings; a run-up at an angle may then miss a narrow one.
    MinimumAlongDirection,
}

/// Take-off conditions: the character within `position_tolerance` of the take-off point, and its
/// horizontal velocity passing the [`TakeoffRule`].
///
/// The tolerance must exceed half the distance the character covers in a frame
/// (`run-up speed · dt / 2`), or it can step over the point between two frames. Faster or
/// larger characters need larger tolerances.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TakeoffConditions {
    position_tolerance: f32,
    rule: TakeoffRule,
}

impl TakeoffConditions {
    /// Validated conditions.
    ///
    /// # Errors
    /// If a tolerance is negative or not finite.
    pub fn new(position_tolerance: f32, rule: TakeoffRule) -> Result<Self, ParamError> {
        non_negative("position_tolerance", position_tolerance)?;
        if let TakeoffRule::MatchVelocity { tolerance } = rule {
            non_negative("velocity_tolerance", tolerance)?;
        }
        Ok(TakeoffConditions { position_tolerance, rule })
    }

    /// Position tolerance (m).
    #[must_use]
    pub fn position_tolerance(&self) -> f32 {
        self.position_tolerance
    }

    /// The velocity rule.
    #[must_use]
    pub fn rule(&self) -> TakeoffRule {
        self.rule
    }

    /// True when the character may take off from `point` now.
    #[must_use]
    pub fn hold(&self, point: &JumpPoint, character: &Kinematic<Vec3>) -> bool {
        if character.position.distance(point.takeoff) > self.position_tolerance {
            return false;
        }
        let v = horizontal(character.velocity);
        match self.rule {
            TakeoffRule::MatchVelocity { tolerance } => {
                v.distance(point.run_up_velocity) <= tolerance
            }
            TakeoffRule::MinimumAlongDirection => {
                v.dot(point.direction()) >= point.run_up_velocity.length()
            }
        }
    }
}

/// Where a [`Jump`] is in its run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JumpState {
    /// Running up to the take-off point.
    #[default]
    RunUp,
    /// Took off; the behaviour has nothing more to say until reset.
    Airborne,
    /// Passed the take-off point without meeting the conditions; reset or re-plan.
    Missed,
}

/// What a [`Jump`] (or a [`JumpDetector`](super::JumpDetector)) asks for this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JumpAction {
    /// Keep running up: apply this steering (accelerations, m/s²).
    RunUp(SteeringOutput<Vec3>),
    /// Jump now. `velocity` is the planned take-off velocity (run-up + vertical, m/s): set the
    /// character's velocity to it for a jump that lands where planned, or add `vertical_speed`
    /// (m/s) to the current velocity to keep the actual run-up. The caller applies it, directly
    /// or through an action queue and a jump animation.
    TakeOff {
        /// Planned take-off velocity (m/s).
        velocity: Vec3,
        /// Vertical take-off speed (m/s).
        vertical_speed: f32,
    },
    /// Already jumped: no steering (the character is in the air).
    Airborne,
    /// The take-off point was passed without meeting the conditions.
    Missed,
}

/// The jump behaviour (§3.6.1–3.6.2): velocity matching toward the take-off point at the
/// required run-up velocity, then the jump.
///
/// A state machine: [`JumpState::RunUp`] → [`JumpState::Airborne`] when the
/// [`TakeoffConditions`] hold (it returns [`JumpAction::TakeOff`] once), or
/// [`JumpState::Missed`] when the character passes the take-off point (by more than the position
/// tolerance along the jump direction) without them. While running up it velocity-matches
/// ([`VelocityMatch`]) to
/// ```text
/// desired = v_req − l / correction_time,   clipped to max_speed
/// ```
/// where `l` is the character's horizontal offset from the run-up line (the line through the
/// take-off point along `v_req`), so it converges onto the line and reaches the point at `v_req`.
/// For a jump with no run-up (`v_req = 0`) `l` is the whole offset to the take-off point.
///
/// The behaviour needs complete control of the character: blended with another behaviour (say,
/// avoiding an enemy at a tangent), it either never meets the take-off conditions or takes off
/// with the wrong velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Jump {
    point: JumpPoint,
    conditions: TakeoffConditions,
    velocity_match: VelocityMatch,
    correction_time: f32,
    state: JumpState,
}

impl Jump {
    /// A jump to `point`, taking off when `conditions` hold, running up with `velocity_match`
    /// (the book suggests a 0.1 s response). The run-up line correction time is 0.5 s.
    #[must_use]
    pub fn new(
        point: JumpPoint,
        conditions: TakeoffConditions,
        velocity_match: VelocityMatch,
    ) -> Self {
        Jump { point, conditions, velocity_match, correction_time: 0.5, state: JumpState::RunUp }
    }

    /// The book's `Jump` for a take-off/landing pair: solves the jump for `capability`.
    ///
    /// # Errors
    /// As [`jump_velocity`](super::jump_velocity) (the book's `canAchieve = false`).
    pub fn to_landing(
        takeoff: Vec3,
        landing: Vec3,
        capability: &JumpCapability,
        conditions: TakeoffConditions,
        velocity_match: VelocityMatch,
    ) -> Result<Self, JumpError> {
        let pair = JumpPair::new(takeoff, landing, capability, BallisticArc::Low)?;
        Ok(Jump::new(pair.jump_point(), conditions, velocity_match))
    }

    /// The same jump with another run-up line correction time (s, > 0): how quickly a sideways
    /// offset from the line is removed. Keep it several times the velocity-match time.
    ///
    /// # Errors
    /// If `correction_time` is not finite and positive.
    pub fn with_correction_time(mut self, correction_time: f32) -> Result<Self, ParamError> {
        self.correction_time = positive("correction_time", correction_time)?;
        Ok(self)
    }

    /// The jump point.
    #[must_use]
    pub fn point(&self) -> &JumpPoint {
        &self.point
    }

    /// The take-off conditions.
    #[must_use]
    pub fn conditions(&self) -> &TakeoffConditions {
        &self.conditions
    }

    /// The current state.
    #[must_use]
    pub fn state(&self) -> JumpState {
        self.state
    }

    /// Aims at another jump point and starts a new run-up (the cached target is replaced).
    pub fn set_jump_point(&mut self, point: JumpPoint) {
        self.point = point;
        self.state = JumpState::RunUp;
    }

    /// Starts a new run-up at the same jump point.
    pub fn reset(&mut self) {
        self.state = JumpState::RunUp;
    }

    /// True when the take-off conditions hold for `character` now.
    #[must_use]
    pub fn takeoff_ready(&self, character: &Kinematic<Vec3>) -> bool {
        self.conditions.hold(&self.point, character)
    }

    /// The velocity the run-up steers toward (m/s), before the speed clip.
    #[must_use]
    pub fn desired_velocity(&self, character: &Kinematic<Vec3>) -> Vec3 {
        let offset = horizontal(character.position - self.point.takeoff);
        let dir = self.point.direction();
        let lateral = offset - dir * offset.dot(dir);
        self.point.run_up_velocity - lateral / self.correction_time
    }

    /// This frame's action; see [`Jump`].
    pub fn steer(&mut self, character: &Kinematic<Vec3>, limits: &Limits) -> JumpAction {
        match self.state {
            JumpState::Airborne => return JumpAction::Airborne,
            JumpState::Missed => return JumpAction::Missed,
            JumpState::RunUp => {}
        }
        if self.takeoff_ready(character) {
            self.state = JumpState::Airborne;
            return JumpAction::TakeOff {
                velocity: self.point.launch_velocity(),
                vertical_speed: self.point.jump_speed,
            };
        }
        let dir = self.point.direction();
        let along = horizontal(character.position - self.point.takeoff).dot(dir);
        if dir != Vec3::ZERO && along > self.conditions.position_tolerance {
            self.state = JumpState::Missed;
            return JumpAction::Missed;
        }
        let desired = self.desired_velocity(character).clamp_length_max(limits.max_speed());
        JumpAction::RunUp(self.velocity_match.steer(character, desired, limits).unwrap_or_default())
    }
}
