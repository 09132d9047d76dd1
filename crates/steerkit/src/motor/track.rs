//! Path tracking for vehicles: a speed profile planned from a path's curvature and the vehicle's
//! limits, and pure pursuit with a look-ahead that grows with speed.
//!
//! # Why pure pursuit (and not Stanley)
//!
//! Pure pursuit asks for the arc through a point `ℓ` metres ahead on the path, tangent to the
//! heading: curvature `κ = 2·sin β / ℓ` (β the bearing of the point). It needs nothing but the
//! reference point and the heading, so it drives every model here the same way (a car's rear
//! axle, a tank's or a person's centre), it has no steady-state error on a circle (the chord's
//! bearing is exactly `ℓ / 2R`), and a look-ahead growing with speed, `ℓ = ℓ₀ + t_ℓ·v`, keeps
//! it stable at speed. Stanley control steers the front axle onto the path with a cross-track
//! gain `atan(k·e / v)`; it tracks tighter at low speed but needs the front-axle position and
//! the path's tangent, its gain blows up as `v → 0`, and it has no meaning for a tank or a
//! person. Its one advantage, no corner cutting, matters little once the look-ahead is a few
//! metres and the speed profile keeps the vehicle below its grip: cutting a bend of radius `R`
//! entered from a straight is about `ℓ² / 6R` (0.17 m for `ℓ = 5 m`, `R = 25 m`).
//!
//! # The speed profile
//!
//! From the path's curvature `κ(s)` (1/m, `s` the arc length in m) and the vehicle's
//! [`DrivingLimits`]:
//!
//! ```text
//! corner:    v_c(s) = min(v_top, √(a_lat/|κ|), ω_max/|κ|, v_top/(1 + |κ|·w/2),
//!                         √(α_max/|dκ/ds|))                                      (m/s)
//! backward:  v_b(s) = min(v_c(s), √(v_b(s + Δs)² + 2·b·Δs))                       (braking b, m/s²)
//! forward:   v_f(s) = min(v_b(s), √(v_f(s − Δs)² + 2·a·Δs))                       (throttle a, m/s²)
//! ```
//! The backward pass starts braking early enough to enter each bend at its corner speed; the
//! forward pass is what full throttle gives out of it. [`SpeedProfile`] plans both over a whole
//! path (a lap time, [`SpeedProfile::time`]); [`PathTracker`] asks, each step, for the braking
//! envelope `v_b` at its position, computed over the braking distance ahead (the same
//! recursion, without storing the profile), and lets the vehicle's throttle do the forward pass.

use super::{forward_speed, VehicleModel, REST_SPEED};
use crate::kinematic::{sanitize_dt, Kinematic, Limits, SteeringOutput};
use crate::math::as_vector;
use crate::path::Path;
use glam::Vec2;

/// What a vehicle can do along a path, the limits a speed profile is planned from (m/s, m/s²,
/// rad/s, m). `f32::INFINITY` means "no such limit".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrivingLimits {
    /// Top speed on a straight (m/s).
    pub top_speed: f32,
    /// Grip: the largest centripetal acceleration `v²·|κ|` (m/s²).
    pub lateral: f32,
    /// The fastest turn `v·|κ|` (rad/s).
    pub yaw_rate: f32,
    /// How fast the turn can change (rad/s²): where the curvature changes, the yaw rate changes
    /// at `v²·|dκ/ds|`, so `v ≤ √(α_max / |dκ/ds|)` (a tank's tracks, the discrete car's turn).
    pub yaw_acceleration: f32,
    /// Half the track width `w/2` (m) of a vehicle that turns by running one side faster
    /// (a tank: `v·(1 + |κ|·w/2) ≤ v_top`); 0 for the others.
    pub half_track: f32,
    /// Deceleration available for braking (m/s²).
    pub braking: f32,
    /// Acceleration at full throttle (m/s²).
    pub throttle: f32,
}

impl DrivingLimits {
    /// The limits of a vehicle model:
    ///
    /// | model | top speed | lateral | yaw rate | yaw accel. | half track | braking | throttle |
    /// |---|---|---|---|---|---|---|---|
    /// | car | `max_speed` | `max_lateral_acceleration` | ∞ | ∞ | 0 | `brake` | `acceleration` |
    /// | motorbike | `max_speed` | `g·tan φ_max` | ∞ | ∞ | 0 | `brake` | `acceleration` |
    /// | tank | `max_track_speed` | ∞ | `2·v_track/w` | `2·a_track/w` | `w/2` | `track_acceleration` | `track_acceleration` |
    /// | human | `max_forward_speed` | `max_acceleration` | `max_turn_rate` | ∞ | 0 | `max_acceleration` | `max_acceleration` |
    /// | discrete car | `max_speed` | ∞ | `max_rotation` | turn | 0 | brake pedal | accelerate pedal |
    ///
    /// A car's steering lock (`R ≥ L / tan δ_max`) is not a speed limit: a bend tighter than
    /// that cannot be driven at any speed, and pure pursuit cuts it.
    #[must_use]
    pub fn of(model: &VehicleModel) -> Self {
        let none = f32::INFINITY;
        match model {
            VehicleModel::Car(c) => Self::of_car(c.params()),
            VehicleModel::Motorbike(m) => Self::of_car(m.as_car().params()),
            VehicleModel::Tank(t) => {
                let p = t.params();
                DrivingLimits {
                    top_speed: p.max_track_speed,
                    lateral: none,
                    yaw_rate: t.max_rotation(),
                    yaw_acceleration: t.max_angular_acceleration(),
                    half_track: 0.5 * p.track_width,
                    braking: p.track_acceleration,
                    throttle: p.track_acceleration,
                }
            }
            VehicleModel::Human(h) => {
                let p = h.params();
                DrivingLimits {
                    top_speed: p.max_forward_speed,
                    lateral: p.max_acceleration,
                    yaw_rate: p.max_turn_rate,
                    yaw_acceleration: none,
                    half_track: 0.0,
                    braking: p.max_acceleration,
                    throttle: p.max_acceleration,
                }
            }
            VehicleModel::Discrete(d) => DrivingLimits {
                top_speed: d.max_speed(),
                lateral: none,
                yaw_rate: d.max_rotation(),
                yaw_acceleration: d.turn_acceleration(super::Turn::Left),
                half_track: 0.0,
                braking: -d.pedal_acceleration(super::Pedal::Brake),
                throttle: d.pedal_acceleration(super::Pedal::Accelerate),
            },
        }
    }

    fn of_car(p: &super::CarParams) -> Self {
        DrivingLimits {
            top_speed: p.max_speed,
            lateral: p.max_lateral_acceleration,
            yaw_rate: f32::INFINITY,
            yaw_acceleration: f32::INFINITY,
            half_track: 0.0,
            braking: p.brake,
            throttle: p.acceleration,
        }
    }

    /// The same limits within a character's: the top speed at most `max_speed`, the yaw rate
    /// at most `max_rotation`, braking and throttle at most `max_acceleration` (the group's
    /// cap acts along the heading only; turning is limited by the model, see
    /// [`Motor::drive_within`](super::Motor::drive_within)).
    #[must_use]
    pub fn within(self, limits: &Limits) -> Self {
        DrivingLimits {
            top_speed: self.top_speed.min(limits.max_speed()),
            yaw_rate: self.yaw_rate.min(limits.max_rotation()),
            braking: self.braking.min(limits.max_acceleration()),
            throttle: self.throttle.min(limits.max_acceleration()),
            ..self
        }
    }

    /// [`DrivingLimits::corner_speed`] where the curvature changes at `rate` (1/m²): also
    /// `v ≤ √(α_max / |dκ/ds|)`.
    #[must_use]
    pub fn transition_speed(&self, curvature: f32, rate: f32) -> f32 {
        let v = self.corner_speed(curvature);
        let r = if rate.is_finite() { rate.abs() } else { 0.0 };
        if r > 0.0 {
            let turn = (self.yaw_acceleration / r).sqrt();
            if turn.is_nan() {
                v
            } else {
                v.min(turn)
            }
        } else {
            v
        }
    }

    /// The fastest speed (m/s) at arc length `param` of `path`: [`DrivingLimits::transition_speed`]
    /// with the curvature there ([`path_curvature`] over `window` m) and its rate of change
    /// toward the point two windows on, `(κ(s + 2W) − κ(s)) / 2W` (a step in curvature is spread
    /// over the averaging window and then the look-ahead, so the base is two windows).
    #[must_use]
    pub fn bend_speed<P: Path<Vec2> + ?Sized>(&self, path: &P, param: f32, window: f32) -> f32 {
        self.lane_speed(path, param, window, 0.0)
    }

    /// [`DrivingLimits::bend_speed`] on a lane `offset` metres to the left of the path (negative:
    /// right), whose curvature is `κ / (1 − o·κ)`: tighter on the inside of a bend.
    #[must_use]
    pub fn lane_speed<P: Path<Vec2> + ?Sized>(
        &self,
        path: &P,
        param: f32,
        window: f32,
        offset: f32,
    ) -> f32 {
        let base = window.max(1e-3);
        let lane = |k: f32| {
            let scale = 1.0 - offset * k;
            if scale > 0.05 {
                k / scale
            } else {
                k.signum() * 1e3
            }
        };
        let k0 = lane(path_curvature(path, param, window));
        let k1 = lane(path_curvature(path, param + base, window));
        self.transition_speed(k0, (k1 - k0) / base)
    }

    /// The fastest speed (m/s) through a bend of curvature `curvature` (1/m):
    /// `min(v_top, √(a_lat/|κ|), ω_max/|κ|, v_top/(1 + |κ|·w/2))`; `v_top` on a straight.
    #[must_use]
    pub fn corner_speed(&self, curvature: f32) -> f32 {
        let k = if curvature.is_finite() { curvature.abs() } else { 0.0 };
        let top = self.top_speed.max(0.0);
        if k == 0.0 {
            return top;
        }
        let grip = (self.lateral / k).sqrt();
        let yaw = self.yaw_rate / k;
        let tracks = top / (1.0 + k * self.half_track);
        let v = top.min(grip).min(yaw).min(tracks);
        if v.is_nan() {
            0.0
        } else {
            v.max(0.0)
        }
    }
}

/// The signed curvature (1/m, positive turning left) of `path` around arc length `param`,
/// averaged over `window` metres: the turn between the chords `p(s − h) → p(s)` and
/// `p(s) → p(s + h)` (`h = window/2`) over the mean arc length they span. On a circle of
/// radius `R` it is `1/R` exactly; a polyline's corners are spread over the window. Ends of an
/// open path use what lies within it; a point or a straight gives 0.
#[must_use]
pub fn path_curvature<P: Path<Vec2> + ?Sized>(path: &P, param: f32, window: f32) -> f32 {
    let h = 0.5 * window.max(1e-3);
    let s = path.wrap_param(param);
    let (s0, s2) = if path.is_looping() {
        (s - h, s + h)
    } else {
        ((s - h).max(0.0), (s + h).min(path.length()))
    };
    let (a, b, c) = (path.get_position(s0), path.get_position(s), path.get_position(s2));
    let (u, v) = (b - a, c - b);
    let span = 0.5 * (s2 - s0);
    if u.length_squared() < 1e-12 || v.length_squared() < 1e-12 || span <= 0.0 {
        return 0.0;
    }
    let k = u.perp_dot(v).atan2(u.dot(v)) / span;
    if k.is_finite() {
        k
    } else {
        0.0
    }
}

/// A speed profile planned over a whole path: corner speeds from the curvature, a backward pass
/// with the braking limit and a forward pass with the throttle (see the module page). An open
/// path starts and ends at rest; a looping one is planned round the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedProfile {
    spacing: f32,
    looping: bool,
    /// The braking envelope `v_b` at each sample (m/s).
    envelope: Vec<f32>,
    /// The planned speed `v_f` at each sample (m/s).
    speeds: Vec<f32>,
}

impl SpeedProfile {
    /// Plans the profile of `path` for `limits`, with samples about `spacing` metres apart
    /// (at least 0.05 m, at most 100 000 samples) and curvature averaged over `window` metres
    /// ([`path_curvature`]).
    #[must_use]
    pub fn plan<P: Path<Vec2> + ?Sized>(
        path: &P,
        limits: &DrivingLimits,
        spacing: f32,
        window: f32,
    ) -> Self {
        let length = path.length().max(0.0);
        let looping = path.is_looping() && length > 0.0;
        let spacing = if spacing.is_finite() { spacing.max(0.05) } else { 1.0 };
        let segments = ((length / spacing).ceil() as usize).clamp(1, 100_000);
        let ds = length / segments as f32;
        let n = if looping { segments } else { segments + 1 };
        let mut corner: Vec<f32> =
            (0..n).map(|i| limits.bend_speed(path, i as f32 * ds, window)).collect();
        if !looping {
            corner[0] = 0.0;
            corner[n - 1] = 0.0;
        }
        // a loop's passes start at its slowest sample, which no pass can lower
        let start = (0..n).fold(0, |m, i| if corner[i] < corner[m] { i } else { m });
        let reach = |v: f32, a: f32| (v * v + 2.0 * a.max(0.0) * ds).sqrt();
        let mut envelope = corner.clone();
        let mut speeds = corner;
        // backward: each sample limited by the one after it
        for k in 1..n {
            let i = if looping { (start + n - k) % n } else { n - 1 - k };
            let next = if looping { (i + 1) % n } else { i + 1 };
            envelope[i] = envelope[i].min(reach(envelope[next], limits.braking));
        }
        speeds.copy_from_slice(&envelope);
        for k in 1..n {
            let i = if looping { (start + k) % n } else { k };
            let prev = if looping { (i + n - 1) % n } else { i - 1 };
            speeds[i] = speeds[i].min(reach(speeds[prev], limits.throttle));
        }
        SpeedProfile { spacing: ds, looping, envelope, speeds }
    }

    /// The arc length between samples (m).
    #[must_use]
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// The planned speeds `v_f` (m/s), one per sample from the path's start.
    #[must_use]
    pub fn speeds(&self) -> &[f32] {
        &self.speeds
    }

    /// The braking envelope `v_b` (m/s), one per sample: the fastest a vehicle may be going there
    /// and still make every bend ahead.
    #[must_use]
    pub fn envelope(&self) -> &[f32] {
        &self.envelope
    }

    /// The time (s) to drive the profile once, start to end (a lap on a loop), with constant
    /// acceleration between samples: `Σ 2·Δs / (v_i + v_{i+1})`. Infinite if it stops on the way.
    #[must_use]
    pub fn time(&self) -> f32 {
        let n = self.speeds.len();
        let pairs = if self.looping { n } else { n.saturating_sub(1) };
        (0..pairs)
            .map(|i| {
                let sum = self.speeds[i] + self.speeds[(i + 1) % n];
                if sum > 0.0 {
                    2.0 * self.spacing / sum
                } else {
                    f32::INFINITY
                }
            })
            .sum()
    }
}

/// Where on the road a tracker drives: a lane `offset` metres left of the path (negative:
/// right) and a speed cap (m/s) from the traffic ahead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lane {
    /// Offset from the path (m), positive to the left.
    pub offset: f32,
    /// Speed cap (m/s); `f32::INFINITY` for none.
    pub speed_cap: f32,
}

impl Lane {
    /// On the path, no cap.
    pub const CENTRE: Lane = Lane { offset: 0.0, speed_cap: f32::INFINITY };
}

/// The pursuit point at arc length `param`: on the path, or past an open path's end on the
/// straight line continuing its last metre, so that the point never comes closer than the
/// look-ahead and the curvature `2·sin β / d` stays bounded while the vehicle stops there.
fn goal_point<P: Path<Vec2> + ?Sized>(path: &P, param: f32) -> Vec2 {
    let length = path.length();
    if path.is_looping() || param <= length {
        return path.get_position(param);
    }
    let end = path.get_position(length);
    let tangent = (end - path.get_position(length - 1.0)).normalize_or_zero();
    end + tangent * (param - length)
}

/// Pure pursuit with a speed-dependent look-ahead and the speed profile's braking envelope: a
/// path tracker for the vehicle models, whose output is a steering request (m/s², rad/s²) for
/// [`Motor::drive`](super::Motor::drive).
///
/// Each step, with `s` the vehicle's arc length on the path, `v` its forward speed and `ĥ` its
/// heading (for a person, who may face away from where they walk: the direction of the velocity
/// while moving):
///
/// ```text
/// ℓ        = ℓ₀ + t_ℓ·|v|                                  look-ahead (m)
/// β, d     = bearing (rad) and distance (m) of p(s + ℓ)
/// κ        = 2·sin β / d                                   pure pursuit curvature (1/m)
/// v*       = min over x ∈ [0, D] of √(v_c(s + x)² + 2·f·b·x)   braking envelope at s + v·τ (m/s)
/// a_long   = clamp((v* − v)/τ, −b, a)                      (m/s²)
/// linear   = a_long·ĥ + v²·κ·perp(ĥ)                       centripetal part for the turn
/// angular  = (v·κ − ω)/τ  only for the discrete car, whose yaw rate is its own state
/// ```
/// The corner speeds `v_c` are the model's times `fraction` (0.9 by default: a margin of 19 % of
/// the grip), braking is planned at `fraction·b`, and an open path ends at rest. `D` is the
/// braking distance from a little above the current speed; beyond it no bend can bind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathTracker {
    limits: DrivingLimits,
    yaw_state: bool,
    walks: bool,
    /// Fraction of the corner speeds and of the braking the profile plans with, in (0, 1].
    pub fraction: f32,
    /// Look-ahead at rest `ℓ₀` (m).
    pub look_ahead: f32,
    /// Look-ahead per unit speed `t_ℓ` (s).
    pub look_ahead_time: f32,
    /// Response time of the speed control `τ` (s).
    pub response_time: f32,
    /// Curvature averaging window (m), see [`path_curvature`].
    pub window: f32,
    /// Arc length between the samples of the braking envelope (m).
    pub spacing: f32,
}

impl PathTracker {
    /// A tracker for `model` within a character's `limits` ([`DrivingLimits::within`]), with
    /// the defaults: fraction 0.9, look-ahead 2 m + 0.25 s·v, response 0.1 s, window 4 m,
    /// spacing 0.5 m.
    #[must_use]
    pub fn new(model: &VehicleModel, limits: &Limits) -> Self {
        PathTracker {
            limits: DrivingLimits::of(model).within(limits),
            yaw_state: matches!(model, VehicleModel::Discrete(_)),
            walks: matches!(model, VehicleModel::Human(_)),
            fraction: 0.9,
            look_ahead: 2.0,
            look_ahead_time: 0.25,
            response_time: 0.1,
            window: 4.0,
            spacing: 0.5,
        }
    }

    /// The vehicle's limits the tracker plans with (before `fraction`).
    #[must_use]
    pub fn limits(&self) -> &DrivingLimits {
        &self.limits
    }

    /// The limits scaled by `fraction`: corner speeds (grip by `f²`, yaw rate and top speed
    /// through tracks by `f`) and braking by `f`.
    fn planned(&self) -> DrivingLimits {
        let f = if self.fraction.is_finite() { self.fraction.clamp(1e-3, 1.0) } else { 1.0 };
        DrivingLimits {
            lateral: self.limits.lateral * f * f,
            yaw_rate: self.limits.yaw_rate * f,
            yaw_acceleration: self.limits.yaw_acceleration * f,
            braking: self.limits.braking * f,
            ..self.limits
        }
    }

    /// The braking envelope (m/s) at arc length `param` for a vehicle going `speed`: the
    /// backward pass of the speed profile over the distance ahead in which a bend can bind.
    #[must_use]
    pub fn speed_limit<P: Path<Vec2> + ?Sized>(&self, path: &P, param: f32, speed: f32) -> f32 {
        self.lane_limit(path, param, speed, 0.0)
    }

    /// [`PathTracker::speed_limit`] on a lane `offset` metres left of the path.
    #[must_use]
    pub fn lane_limit<P: Path<Vec2> + ?Sized>(
        &self,
        path: &P,
        param: f32,
        speed: f32,
        offset: f32,
    ) -> f32 {
        let l = self.planned();
        let b = l.braking.max(1e-3);
        let fastest = (speed.abs() + l.throttle * 1.0).min(l.top_speed);
        let reach = fastest * fastest / (2.0 * b) + self.spacing;
        let ds = self.spacing.max(0.05);
        let steps = ((reach / ds).ceil() as usize).min(4000);
        let length = path.length();
        let mut best = (2.0 * b * reach).sqrt();
        for k in 0..=steps {
            let x = k as f32 * ds;
            let s = param + x;
            if !path.is_looping() && s >= length {
                // an open path ends at rest
                best = best.min((2.0 * b * (length - param).max(0.0)).sqrt());
                break;
            }
            let v = l.lane_speed(path, s, self.window, offset);
            best = best.min((v * v + 2.0 * b * x).sqrt());
        }
        best.min(l.top_speed).max(0.0)
    }

    /// The fastest speed (m/s) from which the vehicle stops within `distance` m braking at
    /// `fraction` of its limit: `√(2·f·b·d)` (what arrive is capped at for a vehicle).
    #[must_use]
    pub fn stopping_speed(&self, distance: f32) -> f32 {
        let v = (2.0 * self.planned().braking * distance.max(0.0)).sqrt();
        if v.is_nan() {
            0.0
        } else {
            v
        }
    }

    /// The direction of travel and the speed along it (m/s): the heading and the signed speed
    /// along it, except for a person on foot, who may face away from where they walk (the
    /// velocity's direction while moving).
    fn travel(&self, state: &Kinematic) -> (Vec2, f32) {
        let speed = state.velocity.length();
        if self.walks && speed > REST_SPEED {
            (state.velocity / speed, speed)
        } else {
            (as_vector(state.orientation), forward_speed(state))
        }
    }

    /// The point pure pursuit aims at from arc length `param` for a vehicle in `state` (m),
    /// on the lane `offset` metres left of the path.
    #[must_use]
    pub fn aim<P: Path<Vec2> + ?Sized>(
        &self,
        path: &P,
        param: f32,
        state: &Kinematic,
        offset: f32,
    ) -> Vec2 {
        let ahead = self.look_ahead + self.look_ahead_time * self.travel(state).1.abs();
        let at = param + ahead;
        let on = goal_point(path, at);
        if offset == 0.0 {
            return on;
        }
        let tangent = (goal_point(path, at + 0.5) - goal_point(path, at - 0.5)).normalize_or_zero();
        on + tangent.perp() * offset
    }

    /// The request (m/s², rad/s²) that tracks `path` from `state` over the next `dt` seconds,
    /// and the vehicle's new arc length on the path (found from `last_param` with the path's
    /// coherent [`Path::get_param`]; NaN searches the whole path).
    #[must_use]
    pub fn steer<P: Path<Vec2> + ?Sized>(
        &self,
        state: &Kinematic,
        path: &P,
        last_param: f32,
        dt: f32,
    ) -> (SteeringOutput, f32) {
        let s = path.get_param(state.position, last_param);
        (self.steer_in_lane(state, path, s, dt, &Lane::CENTRE), s)
    }

    /// [`PathTracker::steer`] from the arc length `param` already found, on `lane` (an offset
    /// from the path and a speed cap, see [`Traffic`](super::Traffic)).
    #[must_use]
    pub fn steer_in_lane<P: Path<Vec2> + ?Sized>(
        &self,
        state: &Kinematic,
        path: &P,
        param: f32,
        dt: f32,
        lane: &Lane,
    ) -> SteeringOutput {
        let s = param;
        let (h, v) = self.travel(state);
        let tau = self.response_time.max(sanitize_dt(dt)).max(1e-3);
        // speed: the envelope a response time ahead
        let preview = path.wrap_param(s + v.max(0.0) * tau);
        let target = self.lane_limit(path, preview, v, lane.offset).min(lane.speed_cap.max(0.0));
        let l = &self.limits;
        if target <= 0.0 && v.abs() <= REST_SPEED {
            // at rest at the end: nothing to do (a brake request at rest would read as a
            // request to reverse, or as a stall)
            return SteeringOutput::ZERO;
        }
        // stopping at the end: as hard as a step allows, so coarse pedals come to rest too
        let response = if target <= 0.0 { sanitize_dt(dt).max(1e-3) } else { tau };
        let a_long = ((target - v) / response).clamp(-l.braking, l.throttle);
        // steering: pure pursuit on the point a look-ahead ahead
        let goal = self.aim(path, s, state, lane.offset);
        let to = goal - state.position;
        let d = to.length();
        let kappa = if d > 1e-2 { 2.0 * h.perp_dot(to) / (d * d) } else { 0.0 };
        let kappa = if kappa.is_finite() { kappa } else { 0.0 };
        let linear = h * a_long + h.perp() * (v * v * kappa);
        let angular = if self.yaw_state { (v * kappa - state.rotation) / tau } else { 0.0 };
        crate::kinematic::sanitize(&SteeringOutput { linear, angular })
    }
}
