//! Motor control (Millington §3.8): turning steering requests into what a vehicle can do.
//!
//! Steering behaviours output **accelerations** (m/s², rad/s²) as if the character could push
//! itself in any direction. Vehicles cannot: a car cannot move sideways or turn while stationary,
//! a person walks backwards and sideways slowly, a tank turns on the spot. This layer sits after
//! the combiners (the book's advice: actuate once, on the final combined request) and offers:
//!
//! - **Output filtering** (§3.8.1): [`Vehicle::filter`] keeps the part of a request the vehicle
//!   can perform; [`rescaled`] restores the original magnitude.
//! - **Controls**: [`Vehicle::controls_for`] converts a request into the vehicle's own controls
//!   (throttle and steering, track speeds, walking commands), with the stall fallback of §3.8.1
//!   ("drive forward and turn hard" when nothing of the request is achievable), and
//!   [`Vehicle::step`] integrates the vehicle's own model.
//! - **Capability-sensitive steering** (§3.8.2, the lectures' "try every command"):
//!   [`Vehicle::best_command`] simulates every command of the vehicle's discrete set for one step
//!   and keeps the one whose outcome is closest to the request ([`command_cost`]);
//!   [`choose_command`] is the same search with any scoring closure.
//! - **Vehicle models**: [`Human`], [`Car`] (kinematic bicycle), [`Motorbike`], [`Tank`] and the
//!   lectures' abstract [`DiscreteCar`] with its 3×3 command set.
//! - **A model chosen at run time** ([`Motor`]): one of the models above with its
//!   [`DriveMethod`] (filtering or search), as a crowd group or a scenario file drives it.
//! - **Bodies with mass** ([`Body`]): forces, torques and impulses for a physics engine that owns
//!   the body, and [`desired_velocity`] for an engine that only takes velocities.
//! - **The steering pipeline's car actuator** (§3.4.5): [`CarActuator`] implements the
//!   pipeline's [`Actuator`](crate::pipeline::Actuator) for a [`Car`] (run-ups, dropped channels).
//!
//! # Units
//!
//! | quantity | unit | where |
//! |---|---|---|
//! | steering request, filtered request | m/s², rad/s² | [`SteeringOutput`] |
//! | force `F = m·a` | N = kg·m/s² | [`Body::force`] |
//! | torque `τ = I·α` | N·m = kg·m²/s² | [`Body::force`] |
//! | impulse `J = m·a·dt` | N·s = kg·m/s | [`Body::impulse`] |
//! | angular impulse `I·α·dt` | N·m·s = kg·m²/s | [`Body::impulse`] |
//! | desired velocity `v + a·dt` | m/s, rad/s | [`desired_velocity`] |
//! | controls | dimensionless, in [−1, 1] | [`CarControls`], [`TankControls`], [`HumanControls`] |
//!
//! All vehicles are 2D (x–y plane, angles counter-clockwise from +x) and keep their state in a
//! [`Kinematic`]: position (m), orientation (rad), velocity (m/s, world frame) and rotation
//! (rad/s). "Left" is counter-clockwise: a positive perp-dot `heading × desired` (see
//! [`turn_direction`]).
//!
//! Every function here is total on finite input: a zero request, `dt = 0` or a stationary
//! vehicle give finite results, never NaN, never a panic. A non-finite request counts as zero and
//! a non-finite or negative `dt` as zero.

mod actuator;
mod body;
mod car;
mod discrete;
mod drive;
mod human;
mod tank;
mod track;
mod traffic;

pub use actuator::CarActuator;
pub use body::{desired_velocity, Body, Impulse, Wrench};
pub use car::{Car, CarControls, CarParams, Motorbike, MotorbikeParams, STANDARD_GRAVITY};
pub use discrete::{DiscreteCar, DiscreteCarCommand, Pedal, Turn};
pub use drive::{Controls, DriveMethod, Motor, VehicleModel};
pub use human::{Human, HumanControls, HumanParams};
pub use tank::{Tank, TankControls, TankParams};
pub use track::{path_curvature, DrivingLimits, Lane, PathTracker, SpeedProfile};
pub use traffic::{Rival, Traffic};

use crate::kinematic::{sanitize, sanitize_dt, Kinematic, SteeringOutput};
use crate::math::{as_vector, wrap_angle};
use core::fmt::Debug;
use glam::Vec2;

/// Below this speed (m/s) a vehicle counts as stationary: a car cannot turn, filtering drops the
/// lateral and angular parts, and the stall fallback may engage.
pub const REST_SPEED: f32 = 1e-3;

/// A 2D vehicle with its own controls, limits and model.
///
/// The state is a [`Kinematic`]; implementations keep it consistent with their model (a car's
/// velocity lies along its heading, a tank's rotation is its track-speed difference over the
/// track width). The command set returned by [`Vehicle::commands`] starts with the neutral
/// command, so ties in [`Vehicle::best_command`] (including `dt = 0`) choose "do nothing".
pub trait Vehicle {
    /// The vehicle's control inputs.
    type Controls: Copy + Debug + PartialEq;

    /// A small discrete set of controls for capability-sensitive steering, neutral first.
    fn commands(&self) -> &[Self::Controls];

    /// Output filtering (§3.8.1): the part of `request` (m/s², rad/s²) the vehicle can perform in
    /// its current state, as a request of the same kind. Components it cannot produce (a car's
    /// lateral acceleration when stationary) are dropped, the rest clipped to its limits.
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput;

    /// The controls that best carry out `request` over the next `dt` seconds, including the stall
    /// fallback where the vehicle has one.
    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> Self::Controls;

    /// Advances `state` by `dt` seconds under `controls` with the vehicle's own model. `dt = 0`
    /// (or negative, or non-finite) leaves the state unchanged. Control values outside [−1, 1]
    /// are clamped, NaN controls count as 0.
    fn step(&self, state: &mut Kinematic, controls: &Self::Controls, dt: f32);

    /// The state after `dt` seconds under `controls`, leaving `state` alone.
    #[must_use]
    fn simulate(&self, state: &Kinematic, controls: &Self::Controls, dt: f32) -> Kinematic {
        let mut next = *state;
        self.step(&mut next, controls, dt);
        next
    }

    /// Capability-sensitive steering (§3.8.2, the lectures' "try every command"): simulates each
    /// of [`Vehicle::commands`] for one step of `dt` and returns the one with the lowest
    /// [`command_cost`] against `request`; ties go to the earliest command (the neutral one
    /// first). An empty command set cannot happen for the vehicles here; implementations of
    /// this trait must return at least one command.
    ///
    /// A one-step search has no foresight: a stationary car asked to move sideways scores every
    /// command no better than standing still and stays put (the §3.8.1 deadlock); use
    /// [`Vehicle::controls_for`], which has the stall fallback, or a longer-horizon cost with
    /// [`choose_command`].
    #[must_use]
    fn best_command(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> Self::Controls {
        let request = sanitize(request);
        let dt = sanitize_dt(dt);
        let commands = self.commands();
        choose_command(commands, |c| {
            command_cost(state, &self.simulate(state, c, dt), &request, dt)
        })
        .map_or_else(|| commands[0], |(c, _)| c)
    }

    /// Convenience: [`Vehicle::controls_for`] then [`Vehicle::step`]; returns the controls used.
    fn drive(&self, state: &mut Kinematic, request: &SteeringOutput, dt: f32) -> Self::Controls {
        let controls = self.controls_for(state, request, dt);
        self.step(state, &controls, dt);
        controls
    }
}

/// The cost [`Vehicle::best_command`] minimises: how far the simulated outcome `after` is from
/// what `request` asked of `before` over `dt` (m²/s²):
///
/// ```text
/// cost = |v' − (v + a·dt)|² + [α ≠ 0] · (1 m)² · (ω' − (ω + α·dt))²
/// ```
/// The angular term counts only when the request has an angular part: a behaviour that outputs a
/// purely linear request (seek, arrive) does not care how the vehicle turns, and for a car the
/// turn is how a lateral request is met. The 1 m radius makes the units agree (a rotation error
/// of 1 rad/s weighs like a 1 m/s error at 1 m from the centre). Non-finite states give
/// `f32::INFINITY` (never chosen over a finite cost).
#[must_use]
pub fn command_cost(
    before: &Kinematic,
    after: &Kinematic,
    request: &SteeringOutput,
    dt: f32,
) -> f32 {
    let linear = (after.velocity - (before.velocity + request.linear * dt)).length_squared();
    let angular = if request.angular != 0.0 {
        let e = after.rotation - (before.rotation + request.angular * dt);
        e * e
    } else {
        0.0
    };
    let cost = linear + angular;
    if cost.is_finite() {
        cost
    } else {
        f32::INFINITY
    }
}

/// Chooses the candidate with the lowest cost (the book's "simulate each manoeuvre, evaluate the
/// result, pick the best"). Returns the candidate and its cost; ties go to the earliest
/// candidate; NaN costs are skipped; `None` when there is no candidate with a non-NaN cost.
pub fn choose_command<C: Copy>(
    candidates: &[C],
    mut cost: impl FnMut(&C) -> f32,
) -> Option<(C, f32)> {
    let mut best: Option<(C, f32)> = None;
    for c in candidates {
        let k = cost(c);
        if k.is_nan() {
            continue;
        }
        match best {
            Some((_, b)) if k >= b => {}
            _ => best = Some((*c, k)),
        }
    }
    best
}

/// Rescales a filtered request to the magnitude of the original (the remedy of §3.8.1 for a
/// filtered acceleration much smaller than requested): the linear part gets the length of
/// `original.linear`, the angular part the magnitude of `original.angular`, each keeping its own
/// direction. A zero filtered channel stays zero (there is no direction to rescale).
#[must_use]
pub fn rescaled(filtered: &SteeringOutput, original: &SteeringOutput) -> SteeringOutput {
    let linear = filtered.linear.normalize_or_zero() * original.linear.length();
    let angular = if filtered.angular != 0.0 {
        original.angular.abs().copysign(filtered.angular)
    } else {
        0.0
    };
    sanitize(&SteeringOutput { linear, angular })
}

/// Which way to turn from `heading` to face `desired`: `+1` left (counter-clockwise), `−1` right
/// (clockwise), `0` when they are parallel or either is zero. Computed as the sign of the perp-dot
/// `heading.x·desired.y − heading.y·desired.x` (the z component of the 3D cross product), so it
/// follows the crate's counter-clockwise convention. Dead ahead and dead behind both give 0.
#[must_use]
pub fn turn_direction(heading: Vec2, desired: Vec2) -> f32 {
    let cross = heading.perp_dot(desired);
    if cross > 0.0 {
        1.0
    } else if cross < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A control value clamped to [−1, 1], NaN as 0.
pub(crate) fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-1.0, 1.0)
    }
}

/// `x / d` for `d > 0`, with `±∞` when `d = 0` and `x ≠ 0`, and 0 for `0 / 0`.
pub(crate) fn ratio(x: f32, d: f32) -> f32 {
    if d > 0.0 {
        x / d
    } else if x == 0.0 {
        0.0
    } else {
        f32::INFINITY.copysign(x)
    }
}

/// Signed speed along the heading (m/s).
pub(crate) fn forward_speed(state: &Kinematic) -> f32 {
    state.velocity.dot(as_vector(state.orientation))
}

/// `sin(x)/x`, exact near 0.
fn sinc(x: f32) -> f32 {
    if x.abs() < 1e-3 {
        1.0 - x * x / 6.0
    } else {
        x.sin() / x
    }
}

/// The end point of travelling `distance` (m, signed along the heading) while the heading turns
/// by `turn` (rad) at a constant rate: a circular arc, exact for constant speed and yaw rate. The
/// chord has length `distance · sinc(turn/2)` in the direction `heading + turn/2`.
pub(crate) fn advance_arc(position: Vec2, heading: f32, distance: f32, turn: f32) -> Vec2 {
    position + as_vector(heading + 0.5 * turn) * (distance * sinc(0.5 * turn))
}

/// The turn rate (rad/s) that closes a heading error `error` (rad) without overshoot: the error's
/// sign times `min(max_rate, √(2·max_accel·|error|), |error|/dt)` (the braking profile of arrive,
/// applied to angles). `max_accel = ∞` removes the braking term; `dt = 0` removes the last one.
pub(crate) fn turn_toward(error: f32, max_rate: f32, max_accel: f32, dt: f32) -> f32 {
    let e = wrap_angle(error);
    if e == 0.0 || !e.is_finite() {
        return 0.0;
    }
    let braking = (2.0 * max_accel * e.abs()).sqrt();
    let one_step = ratio(e.abs(), dt);
    max_rate.min(braking).min(one_step).max(0.0).copysign(e)
}

#[cfg(test)]
mod tests;
