//! A walking or running person: moves in any direction, slower backwards and sideways, turns on
//! the spot.

use super::{turn_toward, unit, Vehicle, REST_SPEED};
use crate::error::{positive, ParamError};
use crate::kinematic::{sanitize, sanitize_dt};
use crate::kinematic::{Kinematic, SteeringOutput};
use crate::math::{orientation_of, wrap_angle, Vector};
use glam::Vec2;

/// The controls of a [`Human`], each in [−1, 1]: the target velocity in the body frame as
/// fractions of the speed limits, and the turn rate as a fraction of `max_turn_rate`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HumanControls {
    /// Forward (> 0, fraction of `max_forward_speed`) or backward (< 0, fraction of
    /// `max_backward_speed`).
    pub forward: f32,
    /// Sideways, positive to the left, fraction of `max_sideways_speed`.
    pub strafe: f32,
    /// Turn rate, positive counter-clockwise, fraction of `max_turn_rate`.
    pub turn: f32,
}

impl HumanControls {
    /// The controls with all three values.
    #[must_use]
    pub const fn new(forward: f32, strafe: f32, turn: f32) -> Self {
        HumanControls { forward, strafe, turn }
    }
}

/// The parameters of a [`Human`], validated by [`Human::new`]. The default is a jogging adult.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HumanParams {
    /// Top speed forward (m/s), > 0. Default 4 (a jog, §3.8's 2.0–4.0 m/s band).
    pub max_forward_speed: f32,
    /// Top speed backward (m/s), > 0. Default 1.2.
    pub max_backward_speed: f32,
    /// Top speed sideways (m/s), > 0. Default 1.5.
    pub max_sideways_speed: f32,
    /// Largest change of velocity per second (m/s²), > 0; people accelerate sharply in any
    /// direction. Default 8.
    pub max_acceleration: f32,
    /// Fastest turn (rad/s), > 0; a person turns on the spot. Default 2π.
    pub max_turn_rate: f32,
}

impl Default for HumanParams {
    fn default() -> Self {
        HumanParams {
            max_forward_speed: 4.0,
            max_backward_speed: 1.2,
            max_sideways_speed: 1.5,
            max_acceleration: 8.0,
            max_turn_rate: core::f32::consts::TAU,
        }
    }
}

/// A person on foot.
///
/// The body-frame velocity `(x forward, y left)` is limited to the half-ellipses
///
/// ```text
/// (x / f)² + (y / l)² ≤ 1,   f = max_forward_speed if x ≥ 0, else max_backward_speed
///                            l = max_sideways_speed
/// ```
/// so the forward, backward and sideways limits hold exactly and diagonal speeds blend between
/// them (never faster than the faster of the two axes). Each step the turn rate is set to the
/// command (`turn · max_turn_rate`; people turn on the spot), the orientation advances, the
/// velocity moves toward the commanded body-frame velocity by at most `max_acceleration·dt`, and
/// the result is scaled back onto the ellipse of the **new** facing if outside it. The position
/// advances by the mean of the old and new velocities.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Human {
    p: HumanParams,
}

const HUMAN_COMMANDS: [HumanControls; 36] = {
    let forwards = [0.0, 1.0, 0.5, -1.0];
    let strafes = [0.0, 1.0, -1.0];
    let turns = [0.0, 1.0, -1.0];
    let mut out = [HumanControls { forward: 0.0, strafe: 0.0, turn: 0.0 }; 36];
    let mut i = 0;
    while i < 36 {
        out[i] = HumanControls {
            forward: forwards[i / 9],
            strafe: strafes[(i / 3) % 3],
            turn: turns[i % 3],
        };
        i += 1;
    }
    out
};

impl Human {
    /// A validated person.
    ///
    /// # Errors
    /// If a parameter is not finite and positive.
    pub fn new(params: HumanParams) -> Result<Self, ParamError> {
        positive("max_forward_speed", params.max_forward_speed)?;
        positive("max_backward_speed", params.max_backward_speed)?;
        positive("max_sideways_speed", params.max_sideways_speed)?;
        positive("max_acceleration", params.max_acceleration)?;
        positive("max_turn_rate", params.max_turn_rate)?;
        Ok(Human { p: params })
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &HumanParams {
        &self.p
    }

    /// The body-frame velocity `(forward, left)` (m/s) of a state.
    #[must_use]
    pub fn local_velocity(&self, state: &Kinematic) -> Vec2 {
        Vec2::to_local(state.orientation, state.velocity)
    }

    /// The speed limit (m/s) along the body's x axis for motion of the sign of `x`: forward
    /// when `x ≥ 0`, else backward.
    fn speed_limit_along(&self, x: f32) -> f32 {
        if x >= 0.0 {
            self.p.max_forward_speed
        } else {
            self.p.max_backward_speed
        }
    }

    /// `(x/f)² + (y/l)²` of a body-frame velocity: ≤ 1 inside the limits.
    fn ellipse(&self, local: Vec2) -> f32 {
        let f = self.speed_limit_along(local.x);
        let (x, y) = (local.x / f, local.y / self.p.max_sideways_speed);
        x * x + y * y
    }

    /// A body-frame velocity scaled back onto the limit ellipse when outside it.
    fn clip_local(&self, local: Vec2) -> Vec2 {
        let e = self.ellipse(local);
        if e > 1.0 && e.is_finite() {
            local / e.sqrt()
        } else if e.is_finite() {
            local
        } else {
            Vec2::ZERO
        }
    }
}

impl Vehicle for Human {
    type Controls = HumanControls;

    /// forward {0, 1, ½, −1} × strafe {0, 1, −1} × turn {0, 1, −1}: 36 commands, neutral first.
    fn commands(&self) -> &[HumanControls] {
        &HUMAN_COMMANDS
    }

    /// The linear part clipped to `max_acceleration`, minus its outward component when the
    /// velocity is already at its limit for its direction (the person cannot go faster that
    /// way); the angular part unchanged (a person turns as fast as asked, up to `max_turn_rate`,
    /// at any speed).
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        let r = sanitize(request);
        let mut a = r.linear.clamp_length_max(self.p.max_acceleration);
        let local_v = self.local_velocity(state);
        if self.ellipse(local_v) >= 1.0 - 1e-4 {
            // outward normal of the ellipse at the velocity, in the world frame
            let f = self.speed_limit_along(local_v.x);
            let l = self.p.max_sideways_speed;
            let n = Vec2::to_world(
                state.orientation,
                Vec2::new(local_v.x / (f * f), local_v.y / (l * l)),
            )
            .normalize_or_zero();
            let out = a.dot(n);
            if out > 0.0 {
                a -= n * out;
            }
        }
        sanitize(&SteeringOutput { linear: a, angular: r.angular })
    }

    /// Walk toward the desired velocity and face the direction of travel:
    ///
    /// ```text
    /// v* = v + a·dt,  in the body frame (x, y):  forward = x / (f or b),  strafe = y / l
    /// ω* = ω + α·dt                         if the request has an angular part
    ///    = turn toward the direction of v*  (capped at max_turn_rate and |Δθ|/dt) otherwise
    /// turn = ω* / max_turn_rate
    /// ```
    /// A person asked to go backwards or sideways steps that way at once (slowly) while turning
    /// to face it, then runs forward: Millington's "turn on the spot, then move forward".
    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> HumanControls {
        let r = sanitize(request);
        let dt = sanitize_dt(dt);
        let desired = state.velocity + r.linear * dt;
        let local = Vec2::to_local(state.orientation, desired);
        let f = self.speed_limit_along(local.x);
        let omega = if r.angular != 0.0 || r.linear == Vec2::ZERO {
            state.rotation + r.angular * dt
        } else if desired.length_squared() > REST_SPEED * REST_SPEED {
            let error = wrap_angle(orientation_of(desired) - state.orientation);
            turn_toward(error, self.p.max_turn_rate, f32::INFINITY, dt)
        } else {
            0.0
        };
        HumanControls {
            forward: unit(local.x / f),
            strafe: unit(local.y / self.p.max_sideways_speed),
            turn: unit(omega / self.p.max_turn_rate),
        }
    }

    fn step(&self, state: &mut Kinematic, controls: &HumanControls, dt: f32) {
        let dt = sanitize_dt(dt);
        if dt == 0.0 {
            return;
        }
        let forward = unit(controls.forward);
        let target_local = Vec2::new(
            forward * self.speed_limit_along(forward),
            unit(controls.strafe) * self.p.max_sideways_speed,
        );
        let target = Vec2::to_world(state.orientation, target_local);
        let rotation = unit(controls.turn) * self.p.max_turn_rate;
        let orientation = wrap_angle(state.orientation + rotation * dt);
        let v0 = state.velocity;
        let v1 = v0 + (target - v0).clamp_length_max(self.p.max_acceleration * dt);
        let v1 = Vec2::to_world(orientation, self.clip_local(Vec2::to_local(orientation, v1)));
        state.position += (v0 + v1) * (0.5 * dt);
        state.orientation = orientation;
        state.velocity = v1;
        state.rotation = rotation;
    }
}
