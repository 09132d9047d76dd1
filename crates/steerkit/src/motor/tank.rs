//! Tracked vehicles: two track speeds, turning on the spot.

use super::{advance_arc, forward_speed, ratio, turn_toward, unit, Vehicle, REST_SPEED};
use crate::error::{positive, ParamError};
use crate::kinematic::{sanitize, sanitize_dt};
use crate::kinematic::{Kinematic, SteeringOutput};
use crate::math::{as_vector, orientation_of, wrap_angle};
use core::f32::consts::FRAC_PI_4;
use glam::Vec2;

/// The controls of a [`Tank`]: the target speed of each track as a fraction of
/// `max_track_speed`, in [−1, 1] (positive drives that track forward).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TankControls {
    /// Left track.
    pub left: f32,
    /// Right track.
    pub right: f32,
}

impl TankControls {
    /// The controls with both values.
    #[must_use]
    pub const fn new(left: f32, right: f32) -> Self {
        TankControls { left, right }
    }
}

/// The parameters of a [`Tank`], validated by [`Tank::new`]. The default is a light tank.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TankParams {
    /// Distance between the track centre lines `w` (m), > 0. Default 2.8.
    pub track_width: f32,
    /// Top speed of a track (m/s), > 0; also the tank's top speed. Default 12.
    pub max_track_speed: f32,
    /// How fast a track's speed can change (m/s²), > 0. Default 3.
    pub track_acceleration: f32,
}

impl Default for TankParams {
    fn default() -> Self {
        TankParams { track_width: 2.8, max_track_speed: 12.0, track_acceleration: 3.0 }
    }
}

/// Above this forward speed (m/s) the sideways part of a request is a turn at the centripetal
/// rate; below it `a_lat / s` is no guide (it grows without bound as `s → 0`) and the heading
/// error alone sets the turn.
const CENTRIPETAL_SPEED: f32 = 0.5;

/// A tracked vehicle (differential drive).
///
/// ```text
/// v_l = s − ω·w/2,   v_r = s + ω·w/2           (track speeds from the state)
/// each track moves toward its target (control · max_track_speed) by at most track_acceleration·dt
/// s' = (v_l' + v_r')/2,   ω' = (v_r' − v_l')/w
/// ```
/// The tank travels along the arc of the step's mean speed and mean yaw rate; its velocity is
/// `s'·(cos θ', sin θ')` (no sideways motion) and its rotation `ω'`. With opposite track speeds it
/// turns on the spot (`s' = 0`, exactly), at up to `2·max_track_speed / w` rad/s. It can turn at
/// any speed, but turning uses track speed, so it must slow for sharp corners: `|s| + |ω|·w/2 ≤
/// max_track_speed`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tank {
    p: TankParams,
}

const TANK_COMMANDS: [TankControls; 25] = {
    let levels = [0.0, 1.0, 0.5, -0.5, -1.0];
    let mut out = [TankControls { left: 0.0, right: 0.0 }; 25];
    let mut i = 0;
    while i < 25 {
        out[i] = TankControls { left: levels[i / 5], right: levels[i % 5] };
        i += 1;
    }
    out
};

impl Tank {
    /// A validated tank.
    ///
    /// # Errors
    /// If a parameter is not finite and positive.
    pub fn new(params: TankParams) -> Result<Self, ParamError> {
        positive("track_width", params.track_width)?;
        positive("max_track_speed", params.max_track_speed)?;
        positive("track_acceleration", params.track_acceleration)?;
        Ok(Tank { p: params })
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &TankParams {
        &self.p
    }

    /// The fastest turn on the spot (rad/s): `2·max_track_speed / w`.
    #[must_use]
    pub fn max_rotation(&self) -> f32 {
        2.0 * self.p.max_track_speed / self.p.track_width
    }

    /// The largest yaw acceleration (rad/s²): `2·track_acceleration / w`.
    #[must_use]
    pub fn max_angular_acceleration(&self) -> f32 {
        2.0 * self.p.track_acceleration / self.p.track_width
    }

    /// The track speeds `(v_l, v_r)` (m/s) of a state.
    #[must_use]
    pub fn track_speeds(&self, state: &Kinematic) -> (f32, f32) {
        let s = forward_speed(state);
        let half = 0.5 * state.rotation * self.p.track_width;
        (s - half, s + half)
    }
}

fn approach(current: f32, target: f32, max_change: f32) -> f32 {
    current + (target - current).clamp(-max_change, max_change)
}

impl Vehicle for Tank {
    type Controls = TankControls;

    /// Each track in {0, 1, ½, −½, −1}: 25 commands, neutral first.
    fn commands(&self) -> &[TankControls] {
        &TANK_COMMANDS
    }

    /// `linear = clamp(a·ĥ, ±track_acceleration)·ĥ` (no sideways part; the tank turns instead);
    /// `angular = clamp(α, ±2·track_acceleration / w)` at any speed, including at rest.
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        let r = sanitize(request);
        let h = as_vector(state.orientation);
        let a = self.p.track_acceleration;
        let alpha = self.max_angular_acceleration();
        sanitize(&SteeringOutput {
            linear: h * r.linear.dot(h).clamp(-a, a),
            angular: r.angular.clamp(-alpha, alpha),
        })
    }

    /// The tank faces where the request wants it to go and drives along its facing:
    ///
    /// ```text
    /// v* = v + a·dt                     (desired velocity)
    /// ω_c = a_lat / s, within ±min(max_rotation, |Δθ|/dt)   (above 0.5 m/s with v* within 45°
    ///                                                    of the heading; 0 otherwise)
    /// ω* = ω_c + turn toward the direction of v* what ω_c leaves, Δθ − ω_c·dt (braking profile
    ///      √(2·α_max·|Δθ'|), capped at max_rotation and |Δθ'|/dt) + α·dt;
    ///      ω* = ω + α·dt when the request has no linear part
    /// s* = v*·ĥ                         (slows, or reverses, while the nose is off the target)
    /// |s*| ≤ max_track_speed − |ω*|·w/2 (turning has priority over speed)
    /// left, right = (s* ∓ ω*·w/2) / max_track_speed
    /// ```
    /// At rest with a request to the side it turns on the spot first, then drives.
    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> TankControls {
        let r = sanitize(request);
        let dt = sanitize_dt(dt);
        let h = as_vector(state.orientation);
        let s = forward_speed(state);
        let max_w = self.max_rotation();
        let (speed, omega) = if r.linear == Vec2::ZERO {
            (s, state.rotation + r.angular * dt)
        } else {
            let desired = state.velocity + r.linear * dt.max(f32::EPSILON);
            let error = if desired.length_squared() > REST_SPEED * REST_SPEED {
                wrap_angle(orientation_of(desired) - state.orientation)
            } else {
                0.0
            };
            // moving forward, the sideways part is a turn at the centripetal rate a_lat / s (as
            // for a car), so a steady turn is followed without lag; only the heading error left
            // after it goes through the braking profile
            let centripetal = if s > CENTRIPETAL_SPEED && error.abs() < FRAC_PI_4 {
                let cap = max_w.min(ratio(error.abs(), dt));
                (r.linear.dot(h.perp()) / s).clamp(-cap, cap)
            } else {
                0.0
            };
            let left = wrap_angle(error - centripetal * dt);
            let w = centripetal + turn_toward(left, max_w, self.max_angular_acceleration(), dt);
            (desired.dot(h), w + r.angular * dt)
        };
        let omega = omega.clamp(-max_w, max_w);
        let half = 0.5 * omega * self.p.track_width;
        let room = (self.p.max_track_speed - half.abs()).max(0.0);
        let speed = speed.clamp(-room, room);
        TankControls {
            left: unit((speed - half) / self.p.max_track_speed),
            right: unit((speed + half) / self.p.max_track_speed),
        }
    }

    fn step(&self, state: &mut Kinematic, controls: &TankControls, dt: f32) {
        let dt = sanitize_dt(dt);
        if dt == 0.0 {
            return;
        }
        let vmax = self.p.max_track_speed;
        let (l0, r0) = self.track_speeds(state);
        let (l0, r0) = (l0.clamp(-vmax, vmax), r0.clamp(-vmax, vmax));
        let dv = self.p.track_acceleration * dt;
        let l1 = approach(l0, unit(controls.left) * vmax, dv);
        let r1 = approach(r0, unit(controls.right) * vmax, dv);
        let w = self.p.track_width;
        let (s0, w0) = (0.5 * (l0 + r0), (r0 - l0) / w);
        let (s1, w1) = (0.5 * (l1 + r1), (r1 - l1) / w);
        let turn = 0.5 * (w0 + w1) * dt;
        state.position = advance_arc(state.position, state.orientation, 0.5 * (s0 + s1) * dt, turn);
        state.orientation = wrap_angle(state.orientation + turn);
        state.velocity = as_vector(state.orientation) * s1;
        state.rotation = w1;
    }
}
