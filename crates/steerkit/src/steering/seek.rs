//! Position and velocity matching: seek, flee, arrive, velocity matching (Millington §3.3.3–3.3.6;
//! Green and Buckland's seek, flee with panic distance, and arrive with a deceleration time).

use crate::error::{at_least, non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;

/// Below this squared speed (m²/s², 1 pm/s) an arrived character counts as at rest: far below
/// any visible drift, and above the subnormal range where braking by a fraction of the speed
/// stops making progress.
const REST_SPEED_SQ: f32 = 1e-24;

/// How seek and flee turn a direction into an acceleration.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SeekMode {
    /// Millington: full acceleration along the direction, `a = d̂ · max_acceleration`.
    #[default]
    FullAcceleration,
    /// Reynolds, Green and Buckland: steer the velocity toward the desired velocity,
    /// `a = (d̂ · max_speed − v) / time_to_target`, clipped to `max_acceleration`. The vehicle
    /// stops accelerating once it moves at full speed toward the target.
    DesiredVelocity {
        /// Response time (s), > 0.
        time_to_target: f32,
    },
}

impl SeekMode {
    fn validate(self) -> Result<Self, ParamError> {
        if let SeekMode::DesiredVelocity { time_to_target } = self {
            positive("time_to_target", time_to_target)?;
        }
        Ok(self)
    }

    #[inline]
    fn accelerate<V: Vector>(self, dir: V, character: &Kinematic<V>, limits: &Limits) -> V {
        match self {
            SeekMode::FullAcceleration => dir * limits.max_acceleration(),
            SeekMode::DesiredVelocity { time_to_target } => VelocityMatch::acceleration(
                character.velocity,
                dir * limits.max_speed(),
                time_to_target,
                limits,
            ),
        }
    }
}

/// Seek: accelerate toward a target position (§3.3.3).
///
/// `linear = normalize(target − position) · max_acceleration` (m/s²) in the default mode; see
/// [`SeekMode`] for the desired-velocity form. Returns `None` when the character is exactly on the
/// target in the default mode (no direction); the desired-velocity form then brakes (`−v/T`).
/// Seek never arrives: around a fixed target it overshoots and orbits. Use [`Arrive`] to stop.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Seek {
    mode: SeekMode,
}

impl Seek {
    /// Full acceleration toward the target ([`SeekMode::FullAcceleration`]).
    pub(crate) fn full_acceleration(&self) -> bool {
        self.mode == SeekMode::FullAcceleration
    }

    /// Millington's seek: full acceleration toward the target.
    #[must_use]
    pub const fn new() -> Self {
        Seek { mode: SeekMode::FullAcceleration }
    }

    /// Seek with a chosen mode.
    ///
    /// # Errors
    /// If the mode's `time_to_target` is not finite and positive.
    pub fn with_mode(mode: SeekMode) -> Result<Self, ParamError> {
        Ok(Seek { mode: mode.validate()? })
    }

    /// The mode.
    #[must_use]
    pub fn mode(&self) -> SeekMode {
        self.mode
    }

    /// The acceleration toward `target`.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let dir = (target - character.position).normalize_or_zero();
        if dir == V::ZERO && self.mode == SeekMode::FullAcceleration {
            return None;
        }
        Some(SteeringOutput::linear(self.mode.accelerate(dir, character, limits)))
    }
}

/// Flee: accelerate directly away from a position (§3.3.3), optionally only within a panic
/// distance (Buckland).
///
/// `linear = normalize(position − target) · max_acceleration` (m/s²), or the desired-velocity
/// form of [`SeekMode`]. Returns `None` outside the panic distance and when the character is
/// exactly on the threat (there is no "away" direction; combine with wander to break the tie).
///
/// Flee is also the practical opposite of arrive: Millington's "leave" (a ramp that starts near
/// zero acceleration) is deliberately not provided, since a character leaving wants full
/// acceleration at once.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[doc(alias = "leave")]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Flee {
    mode: SeekMode,
    panic_distance: Option<f32>,
}

impl Flee {
    /// Millington's flee: full acceleration away, at any distance.
    #[must_use]
    pub const fn new() -> Self {
        Flee { mode: SeekMode::FullAcceleration, panic_distance: None }
    }

    /// Flee with a mode and an optional panic distance (m; Buckland's example is 100).
    ///
    /// # Errors
    /// If `time_to_target` is not positive or `panic_distance` is negative or not finite.
    pub fn with(mode: SeekMode, panic_distance: Option<f32>) -> Result<Self, ParamError> {
        if let Some(d) = panic_distance {
            non_negative("panic_distance", d)?;
        }
        Ok(Flee { mode: mode.validate()?, panic_distance })
    }

    /// The acceleration away from `threat`.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        threat: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let away = character.position - threat;
        if let Some(d) = self.panic_distance {
            if away.length_squared() > d * d {
                return None;
            }
        }
        let dir = away.normalize_or_zero();
        if dir == V::ZERO {
            return None;
        }
        Some(SteeringOutput::linear(self.mode.accelerate(dir, character, limits)))
    }
}

/// Buckland's deceleration settings for arrive: the time (s) the approach speed ramp spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Deceleration {
    /// 0.9 s (Buckland's `slow = 3` × 0.3).
    Slow,
    /// 0.6 s.
    #[default]
    Normal,
    /// 0.3 s.
    Fast,
}

impl Deceleration {
    /// The ramp time in seconds.
    #[must_use]
    pub fn seconds(self) -> f32 {
        match self {
            Deceleration::Slow => 0.9,
            Deceleration::Normal => 0.6,
            Deceleration::Fast => 0.3,
        }
    }
}

/// How arrive chooses its approach speed at distance `d` from the target.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Approach {
    /// Millington: full speed outside `slow_radius`, then `max_speed · d / slow_radius`.
    SlowRadius(f32),
    /// Green and Buckland: `min(d / t, max_speed)`, a linear ramp that starts at
    /// `max_speed · t` (the same ramp as `SlowRadius(max_speed · t)`, stated as a time).
    DecelerationTime(f32),
    /// Braking distance: `min(max_speed, √(a · d), d / (4 · time_to_target))` with `a` the
    /// maximum acceleration. No radius to tune. `√(a · d)` is the speed from which braking at
    /// `a / 2` stops on the spot: the other half is left to the velocity controller, which lags
    /// the ramp by `time_to_target`. The last stretch is a linear ramp that a first-order
    /// controller follows without overshoot (critically damped at 4 × `time_to_target`), so
    /// the character never passes through its target radius (for `time_to_target ≥ dt`; a
    /// faster response than the step over-corrects). `√(2 · a · d)` with the full acceleration
    /// overshoots by many radii once the controller lags.
    Braking,
}

/// What arrive does once inside its target radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Stop {
    /// Brake to rest (`a = −v / time_to_target`, clipped), then return `None` once the speed is
    /// below 10⁻¹² m/s. The default: the character comes to rest inside the radius instead of
    /// drifting out and oscillating.
    #[default]
    Brake,
    /// The book's literal form: return `None` at once, leaving any residual velocity to drift.
    Coast,
}

/// Arrive: reach a position and stop there (§3.3.4).
///
/// ```text
/// d = |target − p|
/// d < target_radius  → brake to rest (Stop::Brake) or None (Stop::Coast)
/// speed  = approach speed at d (see Approach), ≤ max_speed
/// linear = (normalize(target − p) · speed − v) / time_to_target, clipped to max_acceleration
/// ```
/// Outputs are accelerations (m/s²). On the target (`d = 0`) the result is the braking branch,
/// never NaN. The Green/Buckland "deceleration tweak" is [`Approach::DecelerationTime`] with
/// [`Deceleration`]. Their response is the bare `desired − v` (a 1 s time constant at unit mass);
/// note that the approach is under-damped unless the ramp time is at least 4 × `time_to_target`
/// (damping ratio `½·√(ramp / time_to_target)`), which is why `time_to_target` stays a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "approach")]
#[doc(alias = "arrival")]
pub struct Arrive {
    target_radius: f32,
    approach: Approach,
    time_to_target: f32,
    stop: Stop,
}

impl Arrive {
    /// Millington's arrive. The book suggests `time_to_target = 0.1` s.
    ///
    /// # Errors
    /// If a radius is negative or not finite, `slow_radius < target_radius`, or
    /// `time_to_target ≤ 0`.
    pub fn new(
        target_radius: f32,
        slow_radius: f32,
        time_to_target: f32,
    ) -> Result<Self, ParamError> {
        Self::with_approach(target_radius, Approach::SlowRadius(slow_radius), time_to_target)
    }

    /// Arrive with any approach ramp.
    ///
    /// # Errors
    /// As [`Arrive::new`]; a deceleration time must be positive.
    pub fn with_approach(
        target_radius: f32,
        approach: Approach,
        time_to_target: f32,
    ) -> Result<Self, ParamError> {
        non_negative("target_radius", target_radius)?;
        match approach {
            Approach::SlowRadius(r) => {
                non_negative("slow_radius", r)?;
                at_least("slow_radius", r, "target_radius", target_radius)?;
            }
            Approach::DecelerationTime(t) => {
                positive("deceleration_time", t)?;
            }
            Approach::Braking => {}
        }
        positive("time_to_target", time_to_target)?;
        Ok(Arrive { target_radius, approach, time_to_target, stop: Stop::Brake })
    }

    /// Buckland's arrive with a [`Deceleration`] ramp, no target radius, `time_to_target` 0.1 s.
    #[must_use]
    pub fn buckland(deceleration: Deceleration) -> Self {
        Arrive {
            target_radius: 0.0,
            approach: Approach::DecelerationTime(deceleration.seconds()),
            time_to_target: 0.1,
            stop: Stop::Brake,
        }
    }

    /// The same arrive with another stop policy.
    #[must_use]
    pub fn with_stop(mut self, stop: Stop) -> Self {
        self.stop = stop;
        self
    }

    /// Target (arrival) radius (m).
    #[must_use]
    pub fn target_radius(&self) -> f32 {
        self.target_radius
    }

    /// The approach ramp.
    #[must_use]
    pub fn approach(&self) -> Approach {
        self.approach
    }

    /// Response time (s).
    #[must_use]
    pub fn time_to_target(&self) -> f32 {
        self.time_to_target
    }

    /// True when `position` is inside the target radius of `target`.
    #[must_use]
    pub fn is_inside<V: Vector>(&self, position: V, target: V) -> bool {
        (target - position).length_squared() < self.target_radius * self.target_radius
    }

    /// The approach speed (m/s) at `distance` from the target.
    #[must_use]
    pub fn approach_speed(&self, distance: f32, limits: &Limits) -> f32 {
        let max = limits.max_speed();
        match self.approach {
            Approach::SlowRadius(r) => {
                if distance > r || r <= 0.0 {
                    max
                } else {
                    max * distance / r
                }
            }
            Approach::DecelerationTime(t) => (distance / t).min(max),
            Approach::Braking => (limits.max_acceleration() * distance)
                .sqrt()
                .min(distance / (4.0 * self.time_to_target))
                .min(max),
        }
    }

    /// The acceleration that brings the character to rest on `target`.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        self.steer_moving(character, target, V::ZERO, limits)
    }

    /// Arrive at a target that moves with `target_velocity`: the approach ramp is applied in the
    /// target's moving frame, `desired = target_velocity + d̂ · speed(d)` (clipped to
    /// `max_speed`), so the character ends on the target at its velocity with no steady lag.
    /// Inside the target radius it matches the target's velocity (or coasts, with
    /// [`Stop::Coast`]). With a zero velocity this is [`Arrive::steer`].
    #[must_use]
    pub fn steer_moving<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: V,
        target_velocity: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let offset = target - character.position;
        let distance = offset.length();
        let desired = if distance < self.target_radius || distance == 0.0 {
            let relative = character.velocity - target_velocity;
            // the book's coast says nothing strictly inside a radius; exactly on a zero-radius
            // target its direction is zero, so its desired velocity is 0 and it brakes
            let coasting = self.stop == Stop::Coast && distance < self.target_radius;
            // brake until the speed is negligible (a picometre per second): a cut-off that
            // leaves a visible speed lets the character creep for ever, out of the radius
            if coasting || relative.length_squared() < REST_SPEED_SQ {
                return None;
            }
            target_velocity
        } else {
            offset * (self.approach_speed(distance, limits) / distance) + target_velocity
        };
        let desired = desired.clamp_length_max(limits.max_speed());
        Some(SteeringOutput::linear(VelocityMatch::acceleration(
            character.velocity,
            desired,
            self.time_to_target,
            limits,
        )))
    }
}

/// Velocity matching (§3.3.6): `linear = (target_velocity − v) / time_to_target`, clipped to
/// `max_acceleration` (m/s²). Never returns `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VelocityMatch {
    time_to_target: f32,
}

impl VelocityMatch {
    /// Velocity matching with a response time (s); the book suggests 0.1.
    ///
    /// # Errors
    /// If `time_to_target` is not finite and positive.
    pub fn new(time_to_target: f32) -> Result<Self, ParamError> {
        Ok(VelocityMatch { time_to_target: positive("time_to_target", time_to_target)? })
    }

    /// Response time (s).
    #[must_use]
    pub fn time_to_target(&self) -> f32 {
        self.time_to_target
    }

    /// The acceleration toward `target_velocity`.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target_velocity: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        Some(SteeringOutput::linear(Self::acceleration(
            character.velocity,
            target_velocity,
            self.time_to_target,
            limits,
        )))
    }

    /// The acceleration for any response time: `(target_velocity − velocity) / time_to_target`,
    /// clipped to `max_acceleration`. Arrive, the desired-velocity seek and the pipeline's
    /// actuators end in it.
    #[inline]
    pub(crate) fn acceleration<V: Vector>(
        velocity: V,
        target_velocity: V,
        time_to_target: f32,
        limits: &Limits,
    ) -> V {
        ((target_velocity - velocity) / time_to_target).clamp_length_max(limits.max_acceleration())
    }
}
