//! Cars and motorbikes: the kinematic bicycle model with throttle, brake and steering.

use super::{advance_arc, forward_speed, ratio, unit, Vehicle, REST_SPEED};
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{sanitize, sanitize_dt};
use crate::kinematic::{Kinematic, SteeringOutput};
use crate::math::{as_vector, wrap_angle};
use core::f32::consts::FRAC_PI_2;
use glam::Vec2;

/// Standard gravity (m/s²), used for a motorbike's lean.
pub const STANDARD_GRAVITY: f32 = 9.806_65;

/// At rest, when the drivable part of the request is under this fraction of the request, the
/// stall fallback "drive forward and turn hard" engages.
const STALL_FRACTION: f32 = 0.25;

/// A request behind a car whose sideways part is under this fraction of it reads as a stop
/// rather than a target to turn round to (see [`Car::controls_after`]).
const STOP_LATERAL: f32 = 0.01;
/// Response time (s) of the manoeuvring-speed rule.
const MANOEUVRE_TIME: f32 = 0.5;

/// `value` if it is an angle in (0, π/2) (rad), else the error naming `name`.
fn acute(name: &'static str, value: f32) -> Result<f32, ParamError> {
    positive(name, value)?;
    if value >= FRAC_PI_2 {
        return Err(ParamError::OutOfRange { name, value, range: "in (0, π/2)" });
    }
    Ok(value)
}

/// The controls of a [`Car`] or [`Motorbike`], each in [−1, 1].
///
/// - `throttle > 0`: accelerate forward at `throttle · acceleration`; while reversing, brake at
///   `throttle · brake`.
/// - `throttle < 0`: brake at `|throttle| · brake` while moving forward; at rest or reversing,
///   accelerate backward at `|throttle| · reverse_acceleration` (nothing if the vehicle cannot
///   reverse). Braking stops at zero speed within a step; it never reverses the car by itself.
/// - `steer`: the front-wheel angle as a fraction of the largest angle allowed at the current
///   speed, positive to the left (counter-clockwise).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CarControls {
    /// Throttle (> 0) or brake / reverse (< 0).
    pub throttle: f32,
    /// Steering, positive to the left.
    pub steer: f32,
}

impl CarControls {
    /// The controls with both values.
    #[must_use]
    pub const fn new(throttle: f32, steer: f32) -> Self {
        CarControls { throttle, steer }
    }
}

/// The parameters of a [`Car`], validated by [`Car::new`]. The default is a family car.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CarParams {
    /// Distance between the axles `L` (m), > 0. Default 2.6.
    pub wheelbase: f32,
    /// Largest front-wheel angle `δ_max` (rad), in (0, π/2). Default 0.6 (34°).
    pub max_steer: f32,
    /// Top speed forward (m/s), > 0. Default 30.
    pub max_speed: f32,
    /// Top speed in reverse (m/s), ≥ 0; 0 means the vehicle cannot reverse. Default 5.
    pub max_reverse_speed: f32,
    /// Forward acceleration at full throttle (m/s²), > 0. Default 4.
    pub acceleration: f32,
    /// Deceleration at full brake (m/s²), > 0; cars brake faster than they accelerate.
    /// Default 8.
    pub brake: f32,
    /// Backward acceleration at full reverse throttle (m/s²), ≥ 0. Default 2.
    pub reverse_acceleration: f32,
    /// Grip: the largest lateral (centripetal) acceleration `v²/R` (m/s²), > 0. It makes the
    /// turning radius grow with speed. Default 8.
    pub max_lateral_acceleration: f32,
}

impl Default for CarParams {
    fn default() -> Self {
        CarParams {
            wheelbase: 2.6,
            max_steer: 0.6,
            max_speed: 30.0,
            max_reverse_speed: 5.0,
            acceleration: 4.0,
            brake: 8.0,
            reverse_acceleration: 2.0,
            max_lateral_acceleration: 8.0,
        }
    }
}

/// A car: the kinematic bicycle model, no lateral slip.
///
/// The state's position is the midpoint of the rear axle and its orientation the heading `θ`.
/// With signed speed `s` along the heading and front-wheel angle `δ`:
///
/// ```text
/// ẋ = s·cos θ,   ẏ = s·sin θ,   θ̇ = s·tan δ / L
/// |δ| ≤ δ_max(s) = min(δ_max, atan(L·a_lat / s²))        (grip: s²·tan δ / L ≤ a_lat)
/// R_min(s) = max(L / tan δ_max, s² / a_lat)               (turning radius grows with speed)
/// ```
/// Each step the speed changes by the throttle or brake (see [`CarControls`]) and is clamped to
/// `[−max_reverse_speed, max_speed]`; the car then travels along the arc of constant curvature at
/// the mean speed of the step (exact for a constant acceleration). The velocity is set to
/// `s·(cos θ, sin θ)`, so the lateral speed is zero up to rounding (any lateral velocity in the
/// state is removed by the tyres), and the rotation to the yaw rate `s·tan δ / L`.
///
/// Degenerate cases: at `s = 0` the yaw rate is zero whatever the steering (a car cannot turn
/// while stationary); braking stops at zero within a step.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Car {
    p: CarParams,
}

const CAR_COMMANDS: [CarControls; 15] = {
    let throttles = [0.0, 1.0, -1.0];
    let steers = [0.0, -0.5, 0.5, -1.0, 1.0];
    let mut out = [CarControls { throttle: 0.0, steer: 0.0 }; 15];
    let mut i = 0;
    while i < 15 {
        out[i] = CarControls { throttle: throttles[i / 5], steer: steers[i % 5] };
        i += 1;
    }
    out
};

impl Car {
    /// A validated car.
    ///
    /// # Errors
    /// [`ParamError`] naming the first parameter that is not finite, not positive where it must
    /// be (`wheelbase`, `max_speed`, `acceleration`, `brake`, `max_lateral_acceleration`),
    /// negative (`max_reverse_speed`, `reverse_acceleration`), or a `max_steer` outside (0, π/2).
    pub fn new(params: CarParams) -> Result<Self, ParamError> {
        positive("wheelbase", params.wheelbase)?;
        acute("max_steer", params.max_steer)?;
        positive("max_speed", params.max_speed)?;
        non_negative("max_reverse_speed", params.max_reverse_speed)?;
        positive("acceleration", params.acceleration)?;
        positive("brake", params.brake)?;
        non_negative("reverse_acceleration", params.reverse_acceleration)?;
        positive("max_lateral_acceleration", params.max_lateral_acceleration)?;
        Ok(Car { p: params })
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &CarParams {
        &self.p
    }

    /// True when the car can drive backwards (`max_reverse_speed > 0` and
    /// `reverse_acceleration > 0`).
    #[must_use]
    pub fn can_reverse(&self) -> bool {
        self.p.max_reverse_speed > 0.0 && self.p.reverse_acceleration > 0.0
    }

    /// The largest front-wheel angle (rad) at `speed` (m/s): `min(δ_max, atan(L·a_lat / s²))`;
    /// `δ_max` at rest.
    #[must_use]
    pub fn max_steer_at(&self, speed: f32) -> f32 {
        let s2 = speed * speed;
        if s2 > 0.0 && s2.is_finite() {
            self.p.max_steer.min((self.p.wheelbase * self.p.max_lateral_acceleration / s2).atan())
        } else {
            self.p.max_steer
        }
    }

    /// The tightest turning radius (m) at `speed` (m/s): `max(L / tan δ_max, s² / a_lat)`.
    #[must_use]
    pub fn min_turn_radius(&self, speed: f32) -> f32 {
        (self.p.wheelbase / self.p.max_steer.tan())
            .max(speed * speed / self.p.max_lateral_acceleration)
    }

    /// The largest lateral acceleration (m/s²) the car can produce at `speed` (m/s):
    /// `s² / R_min(s)`, zero at rest.
    #[must_use]
    pub fn max_lateral_at(&self, speed: f32) -> f32 {
        speed * speed / self.min_turn_radius(speed)
    }

    /// The full-control rate (m/s²) behind a longitudinal push of the sign of `push` at signed
    /// speed `s`: the brake against the motion, else the acceleration forward or in reverse;
    /// `None` for no push or a reverse the car cannot make.
    fn longitudinal_rate(&self, s: f32, push: f32) -> Option<f32> {
        if push > 0.0 {
            Some(if s < 0.0 { self.p.brake } else { self.p.acceleration })
        } else if push < 0.0 {
            if s > 0.0 {
                Some(self.p.brake)
            } else if self.can_reverse() {
                Some(self.p.reverse_acceleration)
            } else {
                None
            }
        } else {
            None
        }
    }

    /// [`Vehicle::controls_for`] knowing the controls of the previous step, which turns a car
    /// that cannot reverse round to a target behind it.
    ///
    /// Without a reverse gear, a request behind the car is ambiguous: it reads as braking, and
    /// once the car stands still the stall fallback drives it off on full lock, after which the
    /// request reads as braking again, a stop-start cycle that never comes round. Here, when
    /// the previous step was on full lock without braking (`|steer| = 1`, `throttle ≥ 0`, as the
    /// fallback leaves it) and the request still points behind (`a·ĥ < 0`) with a sideways part
    /// of at least 1 % of it (straight back is a stop: braking to rest, as an arrive asks for
    /// on its target), the car keeps turning that way at the manoeuvring speed `√(|a|·R_min(0))` of the whole request, until
    /// the request comes round ahead. A car that can reverse, or a first step, is
    /// [`Vehicle::controls_for`].
    #[must_use]
    pub fn controls_after(
        &self,
        state: &Kinematic,
        request: &SteeringOutput,
        dt: f32,
        previous: Option<CarControls>,
    ) -> CarControls {
        let r = sanitize(request);
        let s = forward_speed(state);
        let h = as_vector(state.orientation);
        // behind, and not a pure brake (a stop asks for exactly −v, straight back along ĥ)
        let behind =
            r.linear.dot(h) < 0.0 && r.linear.perp_dot(h).abs() >= STOP_LATERAL * r.linear.length();
        if let (false, true, Some(p)) = (self.can_reverse(), behind && s > REST_SPEED, previous) {
            if p.steer.abs() >= 1.0 && p.throttle >= 0.0 {
                let wanted = r.linear.length();
                let needed = (wanted * self.min_turn_radius(0.0)).sqrt().min(self.p.max_speed);
                let throttle =
                    ((needed - s) / (MANOEUVRE_TIME * self.p.acceleration)).clamp(0.0, 1.0);
                return CarControls { throttle, steer: p.steer.signum() };
            }
        }
        self.controls_for(state, request, dt)
    }

    /// The longitudinal acceleration (m/s²) of a throttle value at signed speed `s`.
    fn longitudinal(&self, s: f32, throttle: f32) -> f32 {
        self.longitudinal_rate(s, throttle).map_or(0.0, |rate| throttle * rate)
    }

    /// The range of longitudinal accelerations (m/s²) available at signed speed `s`.
    fn longitudinal_range(&self, s: f32) -> (f32, f32) {
        let upper = if s < 0.0 {
            self.p.brake
        } else if s < self.p.max_speed {
            self.p.acceleration
        } else {
            0.0
        };
        let lower = if s > 0.0 {
            -self.p.brake
        } else if self.can_reverse() && s > -self.p.max_reverse_speed {
            -self.p.reverse_acceleration
        } else {
            0.0
        };
        (lower, upper)
    }

    /// The throttle that asks for longitudinal acceleration `a` at speed `s`.
    fn throttle_for(&self, s: f32, a: f32) -> f32 {
        unit(self.longitudinal_rate(s, a).map_or(0.0, |rate| a / rate))
    }
}

impl Vehicle for Car {
    type Controls = CarControls;

    /// Throttle {0, 1, −1} × steer {0, −½, ½, −1, 1}: 15 commands, neutral first.
    fn commands(&self) -> &[CarControls] {
        &CAR_COMMANDS
    }

    /// The book's car filter with the car's limits:
    ///
    /// ```text
    /// a_long = a·ĥ clipped to the throttle/brake/reverse range at the current speed
    /// a_lat  = a·side clipped to ±s²/R_min(s)        (0 at rest: nothing sideways)
    /// angular kept while moving, 0 at rest           (a car cannot turn while stationary)
    /// linear = a_long·ĥ + a_lat·side
    /// ```
    /// where `ĥ = (cos θ, sin θ)` and `side = perp(ĥ)` (left). A stationary car asked to move
    /// purely sideways gets zero (the §3.8.1 deadlock; [`Car::controls_for`] has the fallback).
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        let r = sanitize(request);
        let h = as_vector(state.orientation);
        let side = h.perp();
        let s = forward_speed(state);
        let (lo, hi) = self.longitudinal_range(s);
        let a_long = r.linear.dot(h).clamp(lo, hi);
        let moving = s.abs() > REST_SPEED;
        let (a_lat, angular) = if moving {
            let m = self.max_lateral_at(s);
            (r.linear.dot(side).clamp(-m, m), r.angular)
        } else {
            (0.0, 0.0)
        };
        sanitize(&SteeringOutput { linear: h * a_long + side * a_lat, angular })
    }

    /// Throttle from the longitudinal part, steering from the lateral part:
    ///
    /// ```text
    /// throttle = a_long / (acceleration | brake | reverse_acceleration), clamped to [−1, 1]
    /// ω* = a_lat / s + α·dt          (a_lat = s·ω is the centripetal relation; if the request
    ///                                  has no linear part, ω* = ω + α·dt)
    /// steer = atan(ω*·L / s) / δ_max(s), clamped to [−1, 1]
    /// ```
    /// At rest the wheels are pre-steered toward the request (`atan2(a_lat, |a_long|) / δ_max`),
    /// and when the part of the request along a direction the car can drive off in (forward, or
    /// backward if it can reverse) is under a quarter of the request (e.g. a purely sideways
    /// request, or a target behind a vehicle that cannot reverse) the stall fallback
    /// engages: full throttle forward and full steer toward the request's side (left if it is
    /// dead behind). The car then drives off in a curve instead of standing still.
    ///
    /// Moving forward, a turn needs speed: when the request is not mainly braking
    /// (`a_long ≥ −|a_lat|`), or for a vehicle that cannot reverse when a quarter or more of it is
    /// sideways, the throttle is raised to reach the manoeuvring speed `√(|a_lat|·R_min(0))`, at
    /// which full lock produces the lateral acceleration. A request exactly opposite to the
    /// motion reads as braking (see [`Car::controls_after`] for a car that cannot reverse).
    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> CarControls {
        let r = sanitize(request);
        let dt = sanitize_dt(dt);
        let h = as_vector(state.orientation);
        let s = forward_speed(state);
        let a_long = r.linear.dot(h);
        let a_lat = r.linear.dot(h.perp());
        if s.abs() <= REST_SPEED {
            // the part of the request along a direction the car can drive off in
            let achievable = if a_long > 0.0 || self.can_reverse() { a_long.abs() } else { 0.0 };
            let wanted = r.linear.length();
            if wanted > 0.0 && achievable < STALL_FRACTION * wanted {
                let side = if a_lat < 0.0 { -1.0 } else { 1.0 };
                return CarControls { throttle: 1.0, steer: side };
            }
            let steer = unit(a_lat.atan2(a_long.abs()) / self.p.max_steer);
            return CarControls { throttle: self.throttle_for(s, a_long), steer };
        }
        let omega = if r.linear == Vec2::ZERO {
            state.rotation + r.angular * dt
        } else {
            a_lat / s + r.angular * dt
        };
        let delta = (omega * self.p.wheelbase / s).atan();
        let steer = unit(ratio(delta, self.max_steer_at(s)));
        let mut throttle = self.throttle_for(s, a_long);
        // Manoeuvring speed: a turn needs speed. Moving forward too slowly for the lateral part
        // (or, for a vehicle that cannot reverse, with the request behind and to one side), keep
        // the speed `√(|a_lat|·R_min(0))` at which full lock gives the lateral acceleration.
        let wanted = r.linear.length();
        let sideways = a_lat.abs() >= STALL_FRACTION * wanted && wanted > 0.0;
        if s > 0.0 && (a_long >= -a_lat.abs() || (!self.can_reverse() && sideways)) {
            let needed = (a_lat.abs() * self.min_turn_radius(0.0)).sqrt().min(self.p.max_speed);
            if s < needed {
                let boost = ((needed - s) / (MANOEUVRE_TIME * self.p.acceleration)).min(1.0);
                throttle = throttle.max(boost);
            }
        }
        CarControls { throttle, steer }
    }

    fn step(&self, state: &mut Kinematic, controls: &CarControls, dt: f32) {
        let dt = sanitize_dt(dt);
        if dt == 0.0 {
            return;
        }
        let throttle = unit(controls.throttle);
        let steer = unit(controls.steer);
        let s0 = forward_speed(state).clamp(-self.p.max_reverse_speed, self.p.max_speed);
        let a = self.longitudinal(s0, throttle);
        let mut s1 = s0 + a * dt;
        if (s0 > 0.0 && s1 < 0.0 && throttle < 0.0) || (s0 < 0.0 && s1 > 0.0 && throttle > 0.0) {
            s1 = 0.0; // brakes stop the car; they do not reverse it
        }
        let s1 = s1.clamp(-self.p.max_reverse_speed, self.p.max_speed);
        let s_mid = 0.5 * (s0 + s1);
        let delta = steer * self.max_steer_at(s0.abs().max(s1.abs()));
        let curvature = delta.tan() / self.p.wheelbase;
        let turn = s_mid * curvature * dt;
        state.position = advance_arc(state.position, state.orientation, s_mid * dt, turn);
        state.orientation = wrap_angle(state.orientation + turn);
        state.velocity = as_vector(state.orientation) * s1;
        state.rotation = s1 * curvature;
    }
}

/// The parameters of a [`Motorbike`], validated by [`Motorbike::new`]. The default is a road
/// bike.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MotorbikeParams {
    /// Distance between the wheel contact points `L` (m), > 0. Default 1.45.
    pub wheelbase: f32,
    /// Largest handlebar (front-wheel) angle (rad), in (0, π/2); it sets the tightest radius at
    /// walking pace. Default 0.5.
    pub max_steer: f32,
    /// Top speed (m/s), > 0. Default 40.
    pub max_speed: f32,
    /// Acceleration at full throttle (m/s²), > 0. Default 6.
    pub acceleration: f32,
    /// Deceleration at full brake (m/s²), > 0. Default 9.
    pub brake: f32,
    /// Largest lean angle from vertical `φ_max` (rad), in (0, π/2). Default 0.7 (40°).
    pub max_lean: f32,
}

impl Default for MotorbikeParams {
    fn default() -> Self {
        MotorbikeParams {
            wheelbase: 1.45,
            max_steer: 0.5,
            max_speed: 40.0,
            acceleration: 6.0,
            brake: 9.0,
            max_lean: 0.7,
        }
    }
}

impl MotorbikeParams {
    /// The equivalent car's parameters: no reverse, grip `g·tan φ_max`.
    fn as_car(&self) -> CarParams {
        CarParams {
            wheelbase: self.wheelbase,
            max_steer: self.max_steer,
            max_speed: self.max_speed,
            max_reverse_speed: 0.0,
            acceleration: self.acceleration,
            brake: self.brake,
            reverse_acceleration: 0.0,
            max_lateral_acceleration: STANDARD_GRAVITY * self.max_lean.tan(),
        }
    }
}

/// A motorbike: a [`Car`] that cannot reverse and whose grip comes from leaning.
///
/// In a steady turn a bike leans by `φ = atan(v²/(g·R)) = atan(s·ω / g)`, so the lean limit
/// bounds the lateral acceleration by `g·tan φ_max` and the turning radius by
/// `R_min(s) = max(L / tan δ_max, s² / (g·tan φ_max))`. A negative throttle only brakes (the rear
/// arc of §3.8.3 is empty); at rest with a target behind it the stall fallback drives forward
/// and turns hard.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Motorbike {
    car: Car,
    max_lean: f32,
}

impl Motorbike {
    /// A validated motorbike.
    ///
    /// # Errors
    /// As [`Car::new`] for the shared parameters; `max_lean` must be in (0, π/2).
    pub fn new(params: MotorbikeParams) -> Result<Self, ParamError> {
        acute("max_lean", params.max_lean)?;
        let car = Car::new(params.as_car())?;
        Ok(Motorbike { car, max_lean: params.max_lean })
    }

    /// The equivalent car (no reverse, grip `g·tan φ_max`).
    #[must_use]
    pub fn as_car(&self) -> &Car {
        &self.car
    }

    /// Largest lean angle (rad).
    #[must_use]
    pub fn max_lean(&self) -> f32 {
        self.max_lean
    }

    /// The tightest turning radius (m) at `speed` (m/s).
    #[must_use]
    pub fn min_turn_radius(&self, speed: f32) -> f32 {
        self.car.min_turn_radius(speed)
    }

    /// The lean angle (rad, positive leaning left into a counter-clockwise turn) of a state:
    /// `atan(s·ω / g)`, zero when upright or stationary.
    #[must_use]
    pub fn lean(&self, state: &Kinematic) -> f32 {
        let l = (forward_speed(state) * state.rotation / STANDARD_GRAVITY).atan();
        if l.is_finite() {
            l
        } else {
            0.0
        }
    }
}

impl Default for Motorbike {
    fn default() -> Self {
        let p = MotorbikeParams::default();
        Motorbike { car: Car { p: p.as_car() }, max_lean: p.max_lean }
    }
}

impl Vehicle for Motorbike {
    type Controls = CarControls;

    fn commands(&self) -> &[CarControls] {
        self.car.commands()
    }
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        self.car.filter(state, request)
    }
    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, dt: f32) -> CarControls {
        self.car.controls_for(state, request, dt)
    }
    fn step(&self, state: &mut Kinematic, controls: &CarControls, dt: f32) {
        self.car.step(state, controls, dt);
    }
}
