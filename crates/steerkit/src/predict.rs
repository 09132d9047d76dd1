//! Predicting physics (Millington §3.5): projectile trajectories, landing spots, firing solutions,
//! drag models, iterative targeting, aiming at a moving target and reacting to a grenade.
//!
//! Everything here is 3D, y-up, in SI units (m, s, rad). Gravity is always an argument (a
//! `Vec3` such as `(0, −9.81, 0)` m/s²), never a global: different objects may fall differently.
//! Closed forms are evaluated in `f64` internally and returned as `f32`, so that the cancellation
//! near the edge of range does not cost accuracy.
//!
//! Failure policy: a question with no answer ("when does it reach this height?" for a projectile
//! that never gets there) returns `None`; a request that cannot be met (a target out of range, a
//! target on the firing point, a zero muzzle speed) returns an [`AimError`] or [`LandingError`]
//! that says why. Nothing here panics or returns NaN for finite input.

use crate::error::{finite, non_negative, positive, ParamError};
use core::f32::consts::FRAC_PI_2;
use glam::{DVec3, Vec3};

/// Which of the two ballistic arcs to use when a target can be reached two ways.
///
/// For a firing solution the low arc has the shorter flight time (less time for the target to
/// react, less likely to hit a ceiling); the high arc lobs over walls. For a jump the low arc is
/// the shorter root of the jump equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Arc {
    /// The shorter flight time (the default).
    #[default]
    Low,
    /// The longer flight time.
    High,
}

/// Why an aiming request has no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AimError {
    /// No direction at this muzzle speed reaches the target: with no drag,
    /// `(g·Δ + s²)² < |g|²·|Δ|²`; for iterative targeting, no elevation comes within the margin.
    #[error("the target is out of range at this muzzle speed")]
    OutOfRange,
    /// The target is the firing point itself (`Δ = 0`): there is no direction and no flight time.
    #[error("the target is at the firing point")]
    TargetAtStart,
    /// An iterative method stopped at its iteration cap (or could not refine further) without
    /// getting within its tolerance. The best direction found and its miss distance (m) are kept.
    #[error("no solution within tolerance after the iteration cap (best miss {miss} m)")]
    NotConverged {
        /// The best unit firing direction found.
        direction: Vec3,
        /// Its miss distance (m).
        miss: f32,
    },
    /// A parameter is not finite or out of its range (e.g. a muzzle speed ≤ 0).
    #[error(transparent)]
    Invalid(#[from] ParamError),
}

/// Why a landing prediction over terrain failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LandingError {
    /// The projectile never comes down to the ground height being tried (the ground there is
    /// above its apex, or it has already passed below it).
    #[error("the projectile never reaches the ground height")]
    NeverReaches,
    /// The terrain iteration did not settle within the iteration cap; `last` is the last estimate.
    #[error("the landing estimate did not settle within the iteration cap")]
    NotConverged {
        /// The last estimate.
        last: Landing,
    },
    /// A parameter (or a ground height returned by the terrain function) is invalid.
    #[error(transparent)]
    Invalid(#[from] ParamError),
}

pub(crate) fn finite_vec(name: &'static str, v: Vec3) -> Result<Vec3, ParamError> {
    for c in v.to_array() {
        finite(name, c)?;
    }
    Ok(v)
}

#[inline]
fn d(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

/// Real roots of `a·x² + b·x + c = 0`, ascending (a double root is returned twice; a linear
/// equation's single root too). `None` when there is no real root or no unique one (`a = b = 0`).
/// Uses the cancellation-free form `q = −(b + sign(b)·√D)/2`, roots `q/a` and `c/q`.
pub(crate) fn quadratic_roots(a: f64, b: f64, c: f64) -> Option<(f64, f64)> {
    if a == 0.0 {
        if b == 0.0 {
            return None;
        }
        let r = -c / b;
        return r.is_finite().then_some((r, r));
    }
    let disc = b * b - 4.0 * a * c;
    if !disc.is_finite() || disc < 0.0 {
        return None;
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    if q == 0.0 {
        // b = 0 and D = 0, hence c = 0: a double root at zero
        return Some((0.0, 0.0));
    }
    let (r1, r2) = (q / a, c / q);
    let (lo, hi) = if r1 <= r2 { (r1, r2) } else { (r2, r1) };
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// Equation 3.1: the position `t` seconds after launch, `p(t) = p₀ + v₀·t + ½·g·t²` (m).
///
/// `velocity` is the launch velocity `v₀ = u·s_m` (m/s): a unit direction times the muzzle speed.
#[must_use]
#[inline]
pub fn trajectory_position(start: Vec3, velocity: Vec3, gravity: Vec3, time: f32) -> Vec3 {
    start + velocity * time + gravity * (0.5 * time * time)
}

/// The velocity `t` seconds after launch with no drag: `v(t) = v₀ + g·t` (m/s).
#[must_use]
#[inline]
pub fn trajectory_velocity(velocity: Vec3, gravity: Vec3, time: f32) -> Vec3 {
    velocity + gravity * time
}

/// Equation 3.2: when a projectile at `start` moving at `velocity` comes down to `height` (m).
///
/// Solves `½·g_y·t² + v_y·t + (p_y − h) = 0` and returns the **later** root, the descending
/// crossing when `g_y < 0`:
/// ```text
/// t = (−v_y − √(v_y² − 2·g_y·(p_y − h))) / g_y     (g_y < 0)
/// ```
/// Returns `None` when the projectile never reaches the height (negative discriminant: it stays
/// below it), when the later root is negative (it has already passed the height for good), or for
/// non-finite input. With `g_y = 0` the motion is linear: `t = (h − p_y)/v_y` if that is ≥ 0
/// (`Some(0)` if `v_y = 0` and it is already at the height). A projectile exactly at the height
/// and on its way down gives `Some(0)`.
#[must_use]
#[doc(alias = "landing_time")]
pub fn time_to_height(start: Vec3, velocity: Vec3, gravity: Vec3, height: f32) -> Option<f32> {
    if !(start.is_finite() && velocity.is_finite() && gravity.is_finite() && height.is_finite()) {
        return None;
    }
    let a = 0.5 * f64::from(gravity.y);
    let b = f64::from(velocity.y);
    let c = f64::from(start.y) - f64::from(height);
    if a == 0.0 && b == 0.0 {
        return (c == 0.0).then_some(0.0);
    }
    let (_, late) = quadratic_roots(a, b, c)?;
    let t = late as f32;
    (late >= 0.0 && t.is_finite()).then_some(t)
}

/// Where and when a projectile reaches a height.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Landing {
    /// Time from now (s).
    pub time: f32,
    /// Impact point (m); its `y` is the height asked for.
    pub point: Vec3,
}

/// Equations 3.2–3.4: the time and point at which a projectile comes down to `height`.
///
/// `t_i` from [`time_to_height`], then `p_i = p₀ + v·t_i + ½·g·t_i²` with `p_i.y = height`
/// exactly (Eq. 3.3; with vertical gravity the ½·g terms in x and z vanish, Eq. 3.4). `None` under
/// the same conditions as [`time_to_height`]. For a character catching the projectile, ask for
/// chest height rather than floor height, or it drops at the character's feet.
#[must_use]
pub fn landing_point(start: Vec3, velocity: Vec3, gravity: Vec3, height: f32) -> Option<Landing> {
    let time = time_to_height(start, velocity, gravity, height)?;
    let mut point = trajectory_position(start, velocity, gravity, time);
    point.y = height;
    point.is_finite().then_some(Landing { time, point })
}

/// Settings of [`predict_landing`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LandingOptions {
    /// Added to the ground height (m): 0 for the impact point, about chest height (≈ 1.2–1.4 m
    /// for a human) for the point where a character can catch the projectile.
    pub height_offset: f32,
    /// The iteration stops when successive heights differ by at most this (m), > 0.
    pub tolerance: f32,
    /// Iteration cap, ≥ 1. Convergence is usual but not guaranteed.
    pub max_iterations: u32,
}

impl Default for LandingOptions {
    /// Impact point (offset 0), 1 cm tolerance, 16 iterations.
    fn default() -> Self {
        LandingOptions { height_offset: 0.0, tolerance: 0.01, max_iterations: 16 }
    }
}

/// Predicts where a projectile lands on uneven terrain (§3.5.2, "fluctuating outdoor terrain").
///
/// `ground_height(x, z)` returns the terrain height (m) under a point. Starting from the ground
/// under the projectile, it repeats: landing point at height `h` ([`landing_point`]), read the
/// ground there, `h ← ground(x, z) + height_offset`, until `|Δh| ≤ tolerance`.
///
/// # Errors
/// [`LandingError::NeverReaches`] when some height tried is never reached (e.g. the ground ahead
/// is above the apex); [`LandingError::NotConverged`] with the last estimate after
/// `max_iterations`; [`LandingError::Invalid`] for bad options or a non-finite ground height.
/// The estimate is only as good as the terrain is smooth: a ledge or walkway can make the
/// projectile miss the height and sail on, so a caller with such geometry should check that the
/// ground at the returned point really is there.
pub fn predict_landing<F: FnMut(f32, f32) -> f32>(
    start: Vec3,
    velocity: Vec3,
    gravity: Vec3,
    mut ground_height: F,
    options: &LandingOptions,
) -> Result<Landing, LandingError> {
    finite_vec("start", start)?;
    finite_vec("velocity", velocity)?;
    finite_vec("gravity", gravity)?;
    finite("height_offset", options.height_offset)?;
    positive("tolerance", options.tolerance)?;
    if options.max_iterations == 0 {
        return Err(ParamError::OutOfRange {
            name: "max_iterations",
            value: 0.0,
            range: "at least 1",
        }
        .into());
    }
    let mut ground = |x: f32, z: f32| -> Result<f32, ParamError> {
        finite("ground_height", ground_height(x, z) + options.height_offset)
    };
    let mut h = ground(start.x, start.z)?;
    let mut last = None;
    for _ in 0..options.max_iterations {
        let landing =
            landing_point(start, velocity, gravity, h).ok_or(LandingError::NeverReaches)?;
        let next = ground(landing.point.x, landing.point.z)?;
        if (next - h).abs() <= options.tolerance {
            return Ok(landing);
        }
        last = Some(landing);
        h = next;
    }
    // max_iterations ≥ 1, so `last` is set
    Err(last.map_or(LandingError::NeverReaches, |last| LandingError::NotConverged { last }))
}

/// The closest a trajectory comes to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosestApproach {
    /// Time of closest approach (s).
    pub time: f32,
    /// Where the projectile is then (m).
    pub point: Vec3,
    /// Its distance to the point (m).
    pub distance: f32,
}

/// When a drag-free trajectory passes closest to `point`, within `[0, max_time]` seconds: the
/// time at which it crosses the point if the distance is (nearly) zero, and the test for "is this
/// bullet going to hit me" (hit if the distance is below the character's radius).
///
/// With `r(t) = p₀ − P + v·t + ½·g·t²`, the stationary points of `|r|²` are the real roots of the
/// cubic `r·r′ = (Δ·v) + (|v|² + Δ·g)·t + (3/2)(v·g)·t² + ½|g|²·t³`, found by bisection between
/// the cubic's own turning points; the minimum over those roots and the interval ends is
/// returned. `None` for non-finite input or a negative `max_time`.
#[must_use]
#[doc(alias = "time_at_point")]
pub fn trajectory_closest_approach(
    start: Vec3,
    velocity: Vec3,
    gravity: Vec3,
    point: Vec3,
    max_time: f32,
) -> Option<ClosestApproach> {
    if !(start.is_finite()
        && velocity.is_finite()
        && gravity.is_finite()
        && point.is_finite()
        && max_time.is_finite()
        && max_time >= 0.0)
    {
        return None;
    }
    let (delta, v, g) = (d(start) - d(point), d(velocity), d(gravity));
    let tmax = f64::from(max_time);
    let c0 = delta.dot(v);
    let c1 = v.length_squared() + delta.dot(g);
    let c2 = 1.5 * v.dot(g);
    let c3 = 0.5 * g.length_squared();
    let f = |t: f64| ((c3 * t + c2) * t + c1) * t + c0;
    let dist_sq = |t: f64| (delta + v * t + g * (0.5 * t * t)).length_squared();

    // split [0, tmax] at the turning points of the cubic: f is monotonic on each piece
    let mut knots = [0.0, tmax, tmax, tmax];
    if let Some((a, b)) = quadratic_roots(3.0 * c3, 2.0 * c2, c1) {
        knots[1] = a.clamp(0.0, tmax);
        knots[2] = b.clamp(0.0, tmax);
    }
    let mut best_t = 0.0;
    let mut best = dist_sq(0.0);
    let mut consider = |t: f64| {
        let q = dist_sq(t);
        if q < best {
            best = q;
            best_t = t;
        }
    };
    consider(tmax);
    for w in knots.windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        let (flo, fhi) = (f(lo), f(hi));
        if hi <= lo || flo.signum() == fhi.signum() && flo != 0.0 && fhi != 0.0 {
            consider(hi);
            continue;
        }
        let rising = flo < fhi;
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if (f(mid) < 0.0) == rising {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        consider(0.5 * (lo + hi));
    }
    let time = best_t as f32;
    let p = d(start) + v * best_t + g * (0.5 * best_t * best_t);
    Some(ClosestApproach { time, point: p.as_vec3(), distance: best.sqrt() as f32 })
}

/// A drag-free firing solution: the unit direction to fire in and the flight time.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FiringSolution {
    /// Unit firing direction `u`.
    pub direction: Vec3,
    /// Flight time to the target (s).
    pub time: f32,
}

impl FiringSolution {
    /// The launch velocity `u·s_m` (m/s) for a muzzle speed (m/s).
    #[must_use]
    #[inline]
    pub fn velocity(&self, muzzle_speed: f32) -> Vec3 {
        self.direction * muzzle_speed
    }
}

fn validate_shot(
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    gravity: Vec3,
) -> Result<(), ParamError> {
    finite_vec("start", start)?;
    finite_vec("end", end)?;
    finite_vec("gravity", gravity)?;
    positive("muzzle_speed", muzzle_speed)?;
    Ok(())
}

/// Relative discriminant below which a target counts as exactly at the edge of range: a target
/// beyond the edge by a few `f32` ulps (relative 5e-7) of its distance gets the grazing solution.
const EDGE_OF_RANGE: f64 = 1e-6;

/// Both drag-free firing solutions, `[low, high]` (§3.5.3).
///
/// With `Δ = end − start` (**not** `start − end` as the book's listing has it) and muzzle speed
/// `s`, the flight time solves the quartic `|g|²·t⁴ − 4·(g·Δ + s²)·t² + 4·|Δ|² = 0`, quadratic in
/// `t²`:
/// ```text
/// b = g·Δ + s²,   D = b² − |g|²·|Δ|²   (D < 0: out of range)
/// t_high² = 2·(b + √D) / |g|²
/// t_low²  = 2·|Δ|² / (b + √D)          (= 2·(b − √D)/|g|², without the cancellation)
/// u = (2·Δ − g·t²) / (2·s·t) = Δ/(s·t) − g·t/(2·s)
/// ```
/// At the edge of range (`D = 0`) both solutions coincide; a target beyond it by no more than
/// `f32` rounding (`−D ≤ 10⁻⁶·b²`) is treated as on it. With zero gravity there is one
/// solution, the straight line `u = Δ/|Δ|`, `t = |Δ|/s`, returned twice; when gravity is so weak
/// that the high arc's time overflows `f32`, the high solution is also the low one. The
/// directions are unit length.
///
/// # Errors
/// [`AimError::OutOfRange`] when `D < 0`; [`AimError::TargetAtStart`] when `Δ = 0`;
/// [`AimError::Invalid`] for a non-finite vector or a muzzle speed that is not > 0.
pub fn firing_solutions(
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    gravity: Vec3,
) -> Result<[FiringSolution; 2], AimError> {
    validate_shot(start, end, muzzle_speed, gravity)?;
    let delta = d(end) - d(start);
    let dist_sq = delta.length_squared();
    if dist_sq == 0.0 {
        return Err(AimError::TargetAtStart);
    }
    let s = f64::from(muzzle_speed);
    let g = d(gravity);
    let g_sq = g.length_squared();
    let solve = |t_sq: f64| -> Option<FiringSolution> {
        let t = t_sq.sqrt();
        let u = delta / (s * t) - g * (t / (2.0 * s));
        let u = u.try_normalize()?.as_vec3();
        let time = t as f32;
        (time.is_finite() && time > 0.0 && u.is_finite())
            .then_some(FiringSolution { direction: u, time })
    };
    if g_sq == 0.0 {
        let line = solve(dist_sq / (s * s)).ok_or(AimError::TargetAtStart)?;
        return Ok([line, line]);
    }
    let b = g.dot(delta) + s * s;
    let mut disc = b * b - g_sq * dist_sq;
    if disc < 0.0 && disc >= -EDGE_OF_RANGE * b * b {
        // within f32 rounding of the edge of range: the single grazing solution
        disc = 0.0;
    }
    if disc < 0.0 || b <= 0.0 {
        return Err(AimError::OutOfRange);
    }
    let big = b + disc.sqrt();
    let low = solve(2.0 * dist_sq / big).ok_or(AimError::OutOfRange)?;
    let high = solve(2.0 * big / g_sq).unwrap_or(low);
    Ok([low, high])
}

/// The drag-free firing solution on the chosen arc (§3.5.3): a unit direction `u` such that a
/// projectile fired from `start` at `u·muzzle_speed` under `gravity` passes through `end`, and
/// its flight time. [`Arc::Low`] (the default choice) is the shorter flight, [`Arc::High`] the
/// lob. See [`firing_solutions`] for the formula and the degenerate cases.
///
/// # Errors
/// As [`firing_solutions`]: out of range, target at the start, or an invalid parameter.
pub fn firing_solution(
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    gravity: Vec3,
    arc: Arc,
) -> Result<FiringSolution, AimError> {
    let [low, high] = firing_solutions(start, end, muzzle_speed, gravity)?;
    Ok(match arc {
        Arc::Low => low,
        Arc::High => high,
    })
}

/// Settings of [`aim_at_moving_target`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MovingTargetOptions {
    /// Stop when the predicted intercept moves by at most this between iterations (m), > 0.
    pub tolerance: f32,
    /// Iteration cap, ≥ 1.
    pub max_iterations: u32,
}

impl Default for MovingTargetOptions {
    /// 1 cm, 32 iterations.
    fn default() -> Self {
        MovingTargetOptions { tolerance: 0.01, max_iterations: 32 }
    }
}

/// A shot at a moving target.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Interception {
    /// Unit firing direction.
    pub direction: Vec3,
    /// Flight time (s).
    pub time: f32,
    /// Where projectile and target meet (m).
    pub point: Vec3,
}

/// Leads a target moving at constant velocity: iterates the drag-free firing solution with the
/// target's predicted position.
///
/// ```text
/// t₀ = 0;   aim_k = P + V·t_k;   t_{k+1} = flight time of firing_solution(start, aim_k)
/// stop when |V|·|t_{k+1} − t_k| ≤ tolerance   (the target's drift between guesses, m)
/// ```
/// The returned direction hits `aim_k` at `t_{k+1}`, where the target is within `tolerance` of
/// it. The fixed point converges when the flight time changes more slowly than the target's
/// arrival time, roughly when the target is slower than the projectile; a fast target, or a long
/// high arc, may not converge.
///
/// # Errors
/// [`AimError::OutOfRange`] when a predicted position is out of range;
/// [`AimError::TargetAtStart`] when a predicted position is the firing point;
/// [`AimError::NotConverged`] at the iteration cap (with the last direction and drift);
/// [`AimError::Invalid`] for invalid input.
pub fn aim_at_moving_target(
    start: Vec3,
    target_position: Vec3,
    target_velocity: Vec3,
    muzzle_speed: f32,
    gravity: Vec3,
    arc: Arc,
    options: &MovingTargetOptions,
) -> Result<Interception, AimError> {
    finite_vec("target_position", target_position)?;
    finite_vec("target_velocity", target_velocity)?;
    positive("tolerance", options.tolerance)?;
    let speed = target_velocity.length();
    let mut t = 0.0f32;
    let mut last = None;
    for _ in 0..options.max_iterations.max(1) {
        let aim = target_position + target_velocity * t;
        let solution = firing_solution(start, aim, muzzle_speed, gravity, arc)?;
        let drift = speed * (solution.time - t).abs();
        if drift <= options.tolerance {
            return Ok(Interception {
                direction: solution.direction,
                time: solution.time,
                point: aim,
            });
        }
        last = Some((solution.direction, drift));
        t = solution.time;
    }
    let (direction, miss) = last.unwrap_or((Vec3::ZERO, f32::INFINITY));
    Err(AimError::NotConverged { direction, miss })
}

/// A projectile's motion, for iterative targeting and simulation-based prediction
/// (§3.5.4–3.5.5).
///
/// `step` advances a projectile's position (m) and velocity (m/s) by `dt` seconds. Closed-form
/// models ([`NoDrag`], [`LinearDrag`]) step exactly; [`QuadraticDrag`] integrates numerically; a
/// game can implement it over its own physics engine (a coarse isolated mini-simulation).
///
/// **Rotation and lift.** A spinning projectile (a golf ball, a curving free kick) feels a lift
/// `c_L·(ω × v)` across its velocity, and wind changes along the way. Neither has a closed form.
/// A model with constant spin `ω` and wind can be written against this trait as it stands
/// (`ω` and the wind are parameters of the model); spin that decays in flight, or lift that depends
/// on orientation, needs the spin and orientation in the state, which this trait does not carry:
/// such a model keeps them in its own state and should be re-created per shot, or the game runs
/// its physics engine instead. The targeter only needs positions at successive times.
pub trait ForwardModel {
    /// The gravity (m/s²) used for the drag-free first guess.
    fn gravity(&self) -> Vec3;
    /// `(position, velocity)` after `dt` seconds from `(position, velocity)`; `dt ≥ 0`.
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3);
}

/// Gravity only, Equation 3.1.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoDrag {
    gravity: Vec3,
}

impl NoDrag {
    /// Free flight under `gravity` (m/s²).
    ///
    /// # Errors
    /// If `gravity` is not finite.
    pub fn new(gravity: Vec3) -> Result<Self, ParamError> {
        Ok(NoDrag { gravity: finite_vec("gravity", gravity)? })
    }
}

impl ForwardModel for NoDrag {
    fn gravity(&self) -> Vec3 {
        self.gravity
    }
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
        (
            trajectory_position(position, velocity, self.gravity, dt),
            trajectory_velocity(velocity, self.gravity, dt),
        )
    }
}

/// `(e^(−kt), φ, ψ)` with `φ = (1 − e^(−kt))/k` (→ t) and `ψ = (t − φ)/k` (→ t²/2), by series for
/// small `kt` to avoid the cancellation.
fn drag_weights(k: f64, t: f64) -> (f64, f64, f64) {
    let kt = k * t;
    let decay = (-kt).exp();
    if kt.abs() < 1e-3 {
        let phi = t * (1.0 - kt / 2.0 + kt * kt / 6.0 - kt * kt * kt / 24.0);
        let psi = t * t * (0.5 - kt / 6.0 + kt * kt / 24.0 - kt * kt * kt / 120.0);
        (decay, phi, psi)
    } else {
        let phi = -(-kt).exp_m1() / k;
        (decay, phi, (t - phi) / k)
    }
}

/// Linear ("viscous") drag, Equations 3.5–3.6: `p̈ = g − k·ṗ`, in closed form.
///
/// ```text
/// p(t) = (g·t − A·e^(−kt))/k + B,   A = v₀ − g/k,   B = p₀ + A/k
/// ṗ(t) = g/k + A·e^(−kt)            (terminal velocity g/k)
/// ```
/// Evaluated as `p₀ + v₀·φ + g·ψ` with `φ = (1 − e^(−kt))/k`, `ψ = (t − φ)/k` (series for small
/// `kt`), which is the same function and reduces to Equation 3.1 as `k → 0` (and at `k = 0`).
/// Note `B = p₀ + A/k`: the `B = p₀ − A/k` found in some write-ups does not start at `p₀`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LinearDrag {
    gravity: Vec3,
    k: f32,
}

impl LinearDrag {
    /// Linear drag with coefficient `k` (1/s, ≥ 0) under `gravity` (m/s²).
    ///
    /// # Errors
    /// If `gravity` is not finite or `k` is negative or not finite.
    pub fn new(gravity: Vec3, k: f32) -> Result<Self, ParamError> {
        Ok(LinearDrag { gravity: finite_vec("gravity", gravity)?, k: non_negative("k", k)? })
    }

    /// The drag coefficient `k` (1/s).
    #[must_use]
    pub fn k(&self) -> f32 {
        self.k
    }

    /// Position `t` seconds after launch from `start` at `velocity` (Eq. 3.6, m).
    #[must_use]
    pub fn position_at(&self, start: Vec3, velocity: Vec3, t: f32) -> Vec3 {
        let (_, phi, psi) = drag_weights(f64::from(self.k), f64::from(t));
        (d(start) + d(velocity) * phi + d(self.gravity) * psi).as_vec3()
    }

    /// Velocity `t` seconds after launch at `velocity` (m/s): `v₀·e^(−kt) + g·φ`.
    #[must_use]
    pub fn velocity_at(&self, velocity: Vec3, t: f32) -> Vec3 {
        let (decay, phi, _) = drag_weights(f64::from(self.k), f64::from(t));
        (d(velocity) * decay + d(self.gravity) * phi).as_vec3()
    }
}

impl ForwardModel for LinearDrag {
    fn gravity(&self) -> Vec3 {
        self.gravity
    }
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
        (self.position_at(position, velocity, dt), self.velocity_at(velocity, dt))
    }
}

/// General drag, `p̈ = g − k·(ṗ − w) − c·(ṗ − w)·|ṗ − w|` with wind `w`, integrated numerically.
///
/// The quadratic ("aerodynamic") term couples the axes and has no closed-form firing solution, so
/// this model is for simulation and [`refine_targeting`]. Each `step` is split into classical
/// fourth-order Runge–Kutta sub-steps no longer than `max_step` (default 1/120 s) nor
/// `0.5 / (k + c·|ṗ − w|)` (which keeps a stiff, high-drag flight stable).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QuadraticDrag {
    gravity: Vec3,
    k: f32,
    c: f32,
    wind: Vec3,
    max_step: f32,
}

impl QuadraticDrag {
    /// Drag with linear coefficient `k` (1/s, ≥ 0) and quadratic coefficient `c` (1/m, ≥ 0), no
    /// wind.
    ///
    /// # Errors
    /// If `gravity` is not finite or a coefficient is negative or not finite.
    pub fn new(gravity: Vec3, k: f32, c: f32) -> Result<Self, ParamError> {
        Ok(QuadraticDrag {
            gravity: finite_vec("gravity", gravity)?,
            k: non_negative("k", k)?,
            c: non_negative("c", c)?,
            wind: Vec3::ZERO,
            max_step: 1.0 / 120.0,
        })
    }

    /// The same model in a steady wind (m/s): drag acts on the velocity relative to the air.
    ///
    /// # Errors
    /// If `wind` is not finite.
    pub fn with_wind(mut self, wind: Vec3) -> Result<Self, ParamError> {
        self.wind = finite_vec("wind", wind)?;
        Ok(self)
    }

    /// The same model with another longest integration sub-step (s, > 0).
    ///
    /// # Errors
    /// If `max_step` is not finite and positive.
    pub fn with_max_step(mut self, max_step: f32) -> Result<Self, ParamError> {
        self.max_step = positive("max_step", max_step)?;
        Ok(self)
    }

    /// The acceleration at a velocity (m/s²).
    #[must_use]
    pub fn acceleration(&self, velocity: Vec3) -> Vec3 {
        let rel = velocity - self.wind;
        self.gravity - rel * (self.k + self.c * rel.length())
    }
}

impl ForwardModel for QuadraticDrag {
    fn gravity(&self) -> Vec3 {
        self.gravity
    }
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
        const MAX_SUBSTEPS: u32 = 100_000;
        if !dt.is_finite() || dt <= 0.0 {
            return (position, velocity);
        }
        let (mut p, mut v) = (position, velocity);
        let mut left = dt;
        let mut n = 0;
        while left > 0.0 {
            let stiff = self.k + self.c * (v - self.wind).length();
            let mut h = self.max_step.min(if stiff > 0.0 { 0.5 / stiff } else { left });
            n += 1;
            if h >= left || n >= MAX_SUBSTEPS {
                h = left;
            }
            let a1 = self.acceleration(v);
            let v2 = v + a1 * (0.5 * h);
            let a2 = self.acceleration(v2);
            let v3 = v + a2 * (0.5 * h);
            let a3 = self.acceleration(v3);
            let v4 = v + a3 * h;
            let a4 = self.acceleration(v4);
            p += (v + v2 * 2.0 + v3 * 2.0 + v4) * (h / 6.0);
            v += (a1 + a2 * 2.0 + a3 * 2.0 + a4) * (h / 6.0);
            left -= h;
            if !(p.is_finite() && v.is_finite()) {
                break;
            }
        }
        (p, v)
    }
}

/// Settings of [`refine_targeting`] and [`distance_to_target`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetingOptions {
    /// A shot hits when its closest approach is below this (m), > 0: small for a small target,
    /// large for a big one or an area-damage weapon.
    pub margin: f32,
    /// Time between trajectory samples (s), > 0: about 0.5 for slow simple projectiles, 0.1 for
    /// fast ones or ones with wind and lift. The sampled curve is refined 16-fold around its
    /// closest point, so the chord error `|g|·dt²/8` shrinks by 256.
    pub sample_interval: f32,
    /// Longest flight simulated (s), > 0.
    pub max_flight_time: f32,
    /// A flight stops once it is descending and this far below the target (m), ≥ 0: it will not
    /// come back up (this assumes no lift).
    pub drop_limit: f32,
    /// Cap on the number of simulated shots, ≥ 1.
    pub max_simulations: u32,
    /// Rounds of bearing correction for crosswind, alternating with the elevation search.
    pub bearing_rounds: u32,
}

impl Default for TargetingOptions {
    /// 0.1 m margin, 0.1 s samples, 30 s flights, stop 5 m below the target, 160 shots, 4
    /// bearing rounds.
    fn default() -> Self {
        TargetingOptions {
            margin: 0.1,
            sample_interval: 0.1,
            max_flight_time: 30.0,
            drop_limit: 5.0,
            max_simulations: 160,
            bearing_rounds: 4,
        }
    }
}

impl TargetingOptions {
    fn validate(&self) -> Result<(), ParamError> {
        positive("margin", self.margin)?;
        positive("sample_interval", self.sample_interval)?;
        positive("max_flight_time", self.max_flight_time)?;
        non_negative("drop_limit", self.drop_limit)?;
        if self.max_simulations == 0 {
            return Err(ParamError::OutOfRange {
                name: "max_simulations",
                value: 0.0,
                range: "at least 1",
            });
        }
        Ok(())
    }
}

/// A simulated shot's closest approach to the target, signed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Miss {
    /// Closest distance (m), **positive for an overshoot** (the flight passes above or beyond the
    /// target) and **negative for an undershoot** (it passes below or falls short).
    pub distance: f32,
    /// When the closest approach happens (s).
    pub time: f32,
    /// Where the projectile is then (m).
    pub point: Vec3,
}

impl Miss {
    /// True when `|distance| < margin`.
    #[must_use]
    pub fn hits(&self, margin: f32) -> bool {
        self.distance.abs() < margin
    }
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

fn closest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> (Vec3, f32) {
    let ab = b - a;
    let len_sq = ab.length_squared();
    let s = if len_sq > 0.0 { ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * s, s)
}

/// Flies a shot with `model` and measures its signed closest approach to `target` (the book's
/// `distanceToTarget`, §3.5.5).
///
/// The flight is sampled every `sample_interval` seconds until `max_flight_time`, or until it is
/// descending and `drop_limit` below the target; the samples form a piecewise-linear curve whose
/// nearest point to the target is found, then the two samples around it are re-flown at a
/// sixteenth of the interval and searched again. The sign says which side the miss is on: the
/// offset from the target to the closest point, taken along the upward normal of the flight
/// direction there (positive: the shot passes above, i.e. over or beyond; negative: below or
/// short); for a vertical flight direction, along the horizontal bearing from `start` to `target`.
/// Options are not validated here: a non-positive interval measures the start point only, and a
/// flight is cut at 10⁶ samples.
#[must_use]
pub fn distance_to_target<M: ForwardModel + ?Sized>(
    model: &M,
    start: Vec3,
    velocity: Vec3,
    target: Vec3,
    options: &TargetingOptions,
) -> Miss {
    const REFINE: u32 = 16;
    let dt = options.sample_interval;
    // invalid timing options fly nothing: only the start point is measured
    let steps = if dt > 0.0 && options.max_flight_time.is_finite() {
        (options.max_flight_time / dt).ceil().clamp(0.0, 1e6) as u32
    } else {
        0
    };
    let (mut p, mut v) = (start, velocity);
    // (distance, state at the start of the sample before the best segment)
    let mut best = (start.distance(target), (start, velocity, 0.0f32));
    let mut prev = (start, velocity, 0.0f32);
    let mut t = 0.0f32;
    for i in 0..steps {
        let (p1, v1) = model.step(p, v, dt);
        if !(p1.is_finite() && v1.is_finite()) {
            break;
        }
        let (q, _) = closest_on_segment(p, p1, target);
        let dist = q.distance(target);
        if dist < best.0 {
            best = (dist, if i == 0 { (p, v, t) } else { prev });
        }
        prev = (p, v, t);
        p = p1;
        v = v1;
        t = (i + 1) as f32 * dt;
        if p.y < target.y - options.drop_limit && v.y < 0.0 {
            break;
        }
    }
    // re-fly the neighbourhood of the best segment at a finer interval
    let (mut fp, mut fv, mut ft) = best.1;
    let h = dt / REFINE as f32;
    let mut closest = (fp.distance(target), fp, fv, ft);
    for _ in 0..3 * REFINE {
        let (p1, v1) = model.step(fp, fv, h);
        if !(p1.is_finite() && v1.is_finite()) {
            break;
        }
        let (q, s) = closest_on_segment(fp, p1, target);
        let dist = q.distance(target);
        if dist < closest.0 {
            closest = (dist, q, fv.lerp(v1, s), ft + s * h);
        }
        fp = p1;
        fv = v1;
        ft += h;
    }
    let (dist, point, vel, time) = closest;
    let offset = point - target;
    let dir = vel.normalize_or_zero();
    let up = Vec3::Y - dir * dir.y;
    let bearing = {
        let b = horizontal(target - start).normalize_or_zero();
        if b == Vec3::ZERO {
            horizontal(velocity).normalize_or_zero()
        } else {
            b
        }
    };
    let side = if up.length_squared() > 1e-6 { offset.dot(up) } else { offset.dot(bearing) };
    Miss { distance: if side < 0.0 { -dist } else { dist }, time, point }
}

/// The result of [`refine_targeting`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetingSolution {
    /// Unit firing direction.
    pub direction: Vec3,
    /// Time of closest approach to the target (s).
    pub time: f32,
    /// Signed miss distance (m), `|miss| < margin`.
    pub miss: f32,
    /// Shots simulated to find it.
    pub simulations: u32,
}

/// The direction at a horizontal unit `bearing` and an `elevation` (rad): the book's
/// `convertToDirection`, `bearing·cos(elevation) + ŷ·sin(elevation)`.
#[must_use]
#[inline]
pub fn direction_from_elevation(bearing: Vec3, elevation: f32) -> Vec3 {
    let (s, c) = elevation.sin_cos();
    bearing * c + Vec3::Y * s
}

/// The outcome of a bisection on elevation.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bisection {
    /// A probe within the margin, at this angle.
    Hit(f32),
    /// The bracket shrank below the angular resolution without a hit.
    Collapsed,
    /// The probe function refused (budget spent).
    Exhausted,
}

/// Smallest bracket (rad) bisection keeps halving.
const ANGLE_RESOLUTION: f32 = 1e-5;

/// Bisects `[lo, hi]`, an undershoot (`miss < 0`) at `lo` and an overshoot at `hi`, probing the
/// midpoint `(lo + hi)/2` (not the book's `(hi − lo)/2`) and moving a bound **inside** the loop,
/// until a probe is within `margin` or the bracket is narrower than [`ANGLE_RESOLUTION`].
/// `miss(angle)` returns the signed miss or `None` to stop (budget).
fn bisect(
    mut lo: f32,
    mut hi: f32,
    margin: f32,
    mut miss: impl FnMut(f32) -> Option<f32>,
) -> Bisection {
    while hi - lo > ANGLE_RESOLUTION {
        let mid = 0.5 * (lo + hi);
        let Some(m) = miss(mid) else {
            return Bisection::Exhausted;
        };
        if m.abs() < margin {
            return Bisection::Hit(mid);
        }
        if m < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Bisection::Collapsed
}

struct Targeter<'a, M: ?Sized> {
    model: &'a M,
    start: Vec3,
    end: Vec3,
    speed: f32,
    options: &'a TargetingOptions,
    simulations: u32,
    best: Option<(Vec3, Miss)>,
}

enum Elevation {
    Hit(f32, Miss),
    OutOfRange,
    /// No hit on this bearing: the best elevation found.
    Stuck(f32),
    Exhausted,
}

impl<M: ForwardModel + ?Sized> Targeter<'_, M> {
    fn shoot(&mut self, direction: Vec3) -> Option<Miss> {
        if self.simulations >= self.options.max_simulations {
            return None;
        }
        self.simulations += 1;
        let miss = distance_to_target(
            self.model,
            self.start,
            direction * self.speed,
            self.end,
            self.options,
        );
        let better = match self.best {
            None => true,
            Some((_, b)) => miss.distance.abs() < b.distance.abs(),
        };
        if better {
            self.best = Some((direction, miss));
        }
        Some(miss)
    }

    fn done(&self, direction: Vec3, miss: Miss) -> TargetingSolution {
        TargetingSolution {
            direction,
            time: miss.time,
            miss: miss.distance,
            simulations: self.simulations,
        }
    }

    fn at(&mut self, bearing: Vec3, elevation: f32) -> Option<Miss> {
        self.shoot(direction_from_elevation(bearing, elevation))
    }

    /// Elevation search on one bearing from the first guess `a0` (§3.5.5 with the errata fixed).
    fn search(&mut self, bearing: Vec3, a0: f32) -> Elevation {
        const TOP: f32 = FRAC_PI_2 - 1e-3;
        const SCAN: u32 = 8;
        let margin = self.options.margin;
        let Some(m0) = self.at(bearing, a0) else {
            return Elevation::Exhausted;
        };
        if m0.hits(margin) {
            return Elevation::Hit(a0, m0);
        }
        let (lo, hi) = if m0.distance > 0.0 {
            // overshoot: the answer is below; straight down always falls short
            let lo = -TOP;
            let Some(m) = self.at(bearing, lo) else {
                return Elevation::Exhausted;
            };
            if m.hits(margin) {
                return Elevation::Hit(lo, m);
            }
            if m.distance > 0.0 {
                return Elevation::Stuck(a0);
            }
            (lo, a0)
        } else {
            // undershoot: find an overshooting elevation above a0. The book tries only π/4, which
            // is the best angle only without drag and for a target level with the start; scan up
            // to vertical instead, then look around the best scanned angle.
            let mut bracket = None;
            let mut scanned = [(a0, m0.distance); SCAN as usize + 1];
            for i in 1..=SCAN {
                let a = a0 + (TOP - a0) * i as f32 / SCAN as f32;
                let Some(m) = self.at(bearing, a) else {
                    return Elevation::Exhausted;
                };
                if m.hits(margin) {
                    return Elevation::Hit(a, m);
                }
                scanned[i as usize] = (a, m.distance);
                if m.distance > 0.0 {
                    bracket = Some((scanned[i as usize - 1].0, a));
                    break;
                }
            }
            match bracket {
                Some(b) => b,
                None => {
                    // every scanned shot undershoots: golden-section search for the least
                    // undershoot between the neighbours of the best scanned elevation
                    let j = (0..scanned.len())
                        .max_by(|&x, &y| scanned[x].1.total_cmp(&scanned[y].1))
                        .unwrap_or(0);
                    let l = scanned[j.saturating_sub(1)].0;
                    let r = scanned[(j + 1).min(SCAN as usize)].0;
                    match self.golden(bearing, l, r) {
                        Golden::Hit(a, m) => return Elevation::Hit(a, m),
                        Golden::Over(a) => (l, a),
                        Golden::Under => {
                            return if self.simulations < self.options.max_simulations {
                                // the highest-reaching shot still falls short: out of range
                                // (this check belongs to the undershoot branch only)
                                Elevation::OutOfRange
                            } else {
                                Elevation::Exhausted
                            };
                        }
                        Golden::Exhausted => return Elevation::Exhausted,
                    }
                }
            }
        };
        let mut last_hit = None;
        let outcome = bisect(lo, hi, margin, |a| {
            let m = self.at(bearing, a)?;
            last_hit = Some((a, m));
            Some(m.distance)
        });
        match (outcome, last_hit) {
            (Bisection::Hit(a), Some((_, m))) => Elevation::Hit(a, m),
            (Bisection::Exhausted, _) => Elevation::Exhausted,
            (_, Some((a, _))) => Elevation::Stuck(a),
            (_, None) => Elevation::Stuck(0.5 * (lo + hi)),
        }
    }

    /// Golden-section search for the elevation in `[l, r]` with the largest signed miss, stopping
    /// early at a hit or an overshoot.
    fn golden(&mut self, bearing: Vec3, mut l: f32, mut r: f32) -> Golden {
        const INV_PHI: f32 = 0.618_034;
        let margin = self.options.margin;
        let probe = |this: &mut Self, a: f32| -> Result<f32, Golden> {
            let m = this.at(bearing, a).ok_or(Golden::Exhausted)?;
            if m.hits(margin) {
                Err(Golden::Hit(a, m))
            } else if m.distance > 0.0 {
                Err(Golden::Over(a))
            } else {
                Ok(m.distance)
            }
        };
        let mut c = r - INV_PHI * (r - l);
        let mut e = l + INV_PHI * (r - l);
        let mut mc = match probe(self, c) {
            Ok(m) => m,
            Err(g) => return g,
        };
        let mut me = match probe(self, e) {
            Ok(m) => m,
            Err(g) => return g,
        };
        while r - l > ANGLE_RESOLUTION {
            if mc > me {
                r = e;
                e = c;
                me = mc;
                c = r - INV_PHI * (r - l);
                mc = match probe(self, c) {
                    Ok(m) => m,
                    Err(g) => return g,
                };
            } else {
                l = c;
                c = e;
                mc = me;
                e = l + INV_PHI * (r - l);
                me = match probe(self, e) {
                    Ok(m) => m,
                    Err(g) => return g,
                };
            }
        }
        Golden::Under
    }
}

enum Golden {
    Hit(f32, Miss),
    Over(f32),
    Under,
    Exhausted,
}

/// Iterative targeting (§3.5.5): a firing direction for any [`ForwardModel`], found by simulation.
///
/// 1. Guess: the drag-free [`firing_solution`] (low arc) under the model's gravity; if that is out
///    of range, the direction of the target, treated as an undershoot.
/// 2. Fly it ([`distance_to_target`]); a hit is `|miss| < margin`.
/// 3. Overshoot: bisect elevation between straight down (which falls short) and the guess.
///    Undershoot: scan elevations above the guess up to vertical for an overshoot, then bisect;
///    if none overshoots, a golden-section search finds the highest-reaching elevation, and if
///    even that falls short the target is **out of range**. (The book checks only π/4 and only
///    after both branches: π/4 is the best angle only without drag and for a level target, and
///    the check wrongly fails every overshoot.)
/// 4. Bisection probes the midpoint `(lo + hi)/2` and updates a bound on every pass, until a hit or
///    the bracket is narrower than 1e-5 rad.
/// 5. Crosswind: if the closest approach is off to the side, the bearing is turned against the
///    lateral miss and the elevation searched again, up to `bearing_rounds` times.
///
/// A purely vertical target is tried straight up (or down) only. Elevation is searched on the
/// low arc: the result has the shorter of the flight times that hit. Cost is
/// `O(flight time / sample_interval)` per shot, and the number of shots is capped by
/// `max_simulations`; memory is `O(1)`.
///
/// # Errors
/// [`AimError::OutOfRange`], [`AimError::TargetAtStart`], [`AimError::Invalid`];
/// [`AimError::NotConverged`] with the best shot when the cap is reached, or when the margin is
/// finer than the sampling can resolve.
pub fn refine_targeting<M: ForwardModel + ?Sized>(
    model: &M,
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    options: &TargetingOptions,
) -> Result<TargetingSolution, AimError> {
    validate_shot(start, end, muzzle_speed, model.gravity())?;
    options.validate()?;
    let delta = end - start;
    if delta == Vec3::ZERO {
        return Err(AimError::TargetAtStart);
    }
    let mut targeter =
        Targeter { model, start, end, speed: muzzle_speed, options, simulations: 0, best: None };
    let not_converged = |t: &Targeter<'_, M>| {
        t.best.map_or(AimError::OutOfRange, |(direction, m)| AimError::NotConverged {
            direction,
            miss: m.distance.abs(),
        })
    };
    let range = horizontal(delta).length();
    if range <= 1e-5 * delta.length() {
        let dir = if delta.y > 0.0 { Vec3::Y } else { -Vec3::Y };
        let m = targeter.shoot(dir).ok_or(AimError::OutOfRange)?;
        return if m.hits(options.margin) {
            Ok(targeter.done(dir, m))
        } else {
            Err(AimError::OutOfRange)
        };
    }
    let mut bearing = horizontal(delta) / range;
    let mut elevation = match firing_solution(start, end, muzzle_speed, model.gravity(), Arc::Low) {
        Ok(s) => s.direction.y.atan2(horizontal(s.direction).length()),
        Err(AimError::OutOfRange) => delta.y.atan2(range),
        Err(e) => return Err(e),
    };
    for round in 0..=options.bearing_rounds {
        match targeter.search(bearing, elevation) {
            Elevation::Hit(a, m) => {
                return Ok(targeter.done(direction_from_elevation(bearing, a), m));
            }
            Elevation::OutOfRange if round == 0 => return Err(AimError::OutOfRange),
            Elevation::OutOfRange | Elevation::Exhausted => break,
            Elevation::Stuck(a) => {
                elevation = a;
                let Some((dir, m)) = targeter.best else { break };
                let side = Vec3::Y.cross(bearing);
                let lateral = (m.point - end).dot(side);
                if lateral.abs() < 0.5 * options.margin {
                    break;
                }
                let aim = horizontal(dir).normalize_or_zero() * range - side * lateral;
                let next = horizontal(aim).normalize_or_zero();
                if next == Vec3::ZERO {
                    break;
                }
                bearing = next;
            }
        }
    }
    Err(not_converged(&targeter))
}

/// What a character should do about an incoming grenade; see [`react_to_grenade`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reaction {
    /// The character is outside the blast: carry on.
    Safe,
    /// Run to `point` (at catch height) and catch it at `time` (s from now); there is time left
    /// on the fuse to throw it back.
    Catch {
        /// Catch point (m).
        point: Vec3,
        /// When the grenade gets there (s).
        time: f32,
    },
    /// Flee from the blast centre, which goes off in `time` seconds. `escapable` is false when
    /// the way out of the blast radius is longer than `max_speed · time`; the character should
    /// run anyway, as it looks better than standing still.
    Flee {
        /// Blast centre (m).
        from: Vec3,
        /// Time until the blast (s).
        time: f32,
        /// Whether running at full speed gets the character out in time.
        escapable: bool,
    },
}

/// An incoming grenade.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Grenade {
    /// Current position (m).
    pub position: Vec3,
    /// Current velocity (m/s).
    pub velocity: Vec3,
    /// Gravity acting on it (m/s²).
    pub gravity: Vec3,
    /// Time left on the fuse (s), or `None` for an impact fuse (it goes off on landing).
    pub fuse: Option<f32>,
    /// Blast radius (m).
    pub blast_radius: f32,
}

/// A character that may catch or flee.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Catcher {
    /// Position (m).
    pub position: Vec3,
    /// Running speed (m/s).
    pub max_speed: f32,
    /// Height above the ground at which it catches (m), about chest height.
    pub catch_height: f32,
    /// Time it needs after catching to throw the grenade back (s).
    pub throw_back_time: f32,
}

/// Decides between catching a grenade and running from its blast (§3.5.2, with the lectures'
/// blast-radius test), over flat ground at `ground_height` (m).
///
/// ```text
/// t_land = time_to_height(ground);   t_blast = fuse (or t_land for an impact fuse)
/// blast  = landing point if t_blast ≥ t_land, else the grenade's position at t_blast
/// Safe   if |character − blast| > blast_radius
/// Catch  if the grenade comes down to ground + catch_height at t_c ≤ t_blast − throw_back_time
///        and the character can run there in time: |Δ horizontal| ≤ max_speed · t_c
/// Flee   otherwise; escapable iff blast_radius − |character − blast| ≤ max_speed · t_blast
/// ```
/// A grenade that never comes down and has no fuse is `Safe`. Invalid (non-finite) input also
/// gives `Safe`, with nothing to react to.
#[must_use]
pub fn react_to_grenade(grenade: &Grenade, catcher: &Catcher, ground_height: f32) -> Reaction {
    let g = grenade;
    let land = landing_point(g.position, g.velocity, g.gravity, ground_height);
    let blast_time = match (g.fuse, land) {
        (Some(f), _) if f.is_finite() => f.max(0.0),
        (_, Some(l)) => l.time,
        _ => return Reaction::Safe,
    };
    let centre = match land {
        Some(l) if blast_time >= l.time => l.point,
        _ => trajectory_position(g.position, g.velocity, g.gravity, blast_time),
    };
    let distance = catcher.position.distance(centre);
    if !(distance.is_finite() && g.blast_radius.is_finite()) || distance > g.blast_radius {
        return Reaction::Safe;
    }
    if let Some(c) =
        landing_point(g.position, g.velocity, g.gravity, ground_height + catcher.catch_height)
    {
        let run = horizontal(c.point - catcher.position).length();
        if c.time + catcher.throw_back_time <= blast_time && run <= catcher.max_speed * c.time {
            return Reaction::Catch { point: c.point, time: c.time };
        }
    }
    Reaction::Flee {
        from: centre,
        time: blast_time,
        escapable: g.blast_radius - distance <= catcher.max_speed * blast_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::FRAC_PI_4;
    use proptest::prelude::*;

    const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    fn assert_vec(a: Vec3, b: Vec3, tol: f32) {
        assert!((a - b).abs().max_element() <= tol, "{a} vs {b} (tol {tol})");
    }

    // ---- trajectory and landing (§3.5.2) ----

    #[test]
    fn exercise_3_13_kicked_ball_lands_after_1_631_s_and_9_786_m() {
        // u = (3/5, 4/5), s = 10, ground to ground; tolerance 1e-4 s / 1e-3 m
        let v = Vec3::new(0.6, 0.8, 0.0) * 10.0;
        let l = landing_point(Vec3::ZERO, v, G, 0.0).unwrap();
        assert!(close(l.time, 1.630_99, 1e-4), "{}", l.time);
        assert!(close(l.point.x, 9.7859, 1e-3), "{}", l.point.x);
        assert_eq!(l.point.y, 0.0);
    }

    #[test]
    fn landing_takes_the_later_descending_root() {
        // grenade at height 2 moving (5, 5, 0): roots −0.307338 and 1.326706 → the later one
        let l = landing_point(Vec3::new(0.0, 2.0, 0.0), Vec3::new(5.0, 5.0, 0.0), G, 0.0).unwrap();
        assert!(close(l.time, 1.326_706, 1e-5), "{}", l.time);
        assert!(close(l.point.x, 6.633_53, 1e-4), "{}", l.point.x);
        // the descending crossing: vertical velocity negative there
        assert!(trajectory_velocity(Vec3::new(5.0, 5.0, 0.0), G, l.time).y < 0.0);
    }

    #[test]
    fn heights_never_reached_or_already_passed_give_none() {
        let p = Vec3::new(0.0, 2.0, 0.0);
        // apex = 2 + 25/19.62 = 3.27 m < 10 m: negative discriminant
        assert_eq!(time_to_height(p, Vec3::new(1.0, 5.0, 0.0), G, 10.0), None);
        // below the height and falling: both roots negative
        let below = Vec3::new(0.0, -1.0, 0.0);
        assert_eq!(time_to_height(below, Vec3::new(0.0, -5.0, 0.0), G, 0.0), None);
        // below but rising fast enough: reaches it on the way down
        let t = time_to_height(below, Vec3::new(0.0, 10.0, 0.0), G, 0.0).unwrap();
        assert!(close(trajectory_position(below, Vec3::Y * 10.0, G, t).y, 0.0, 1e-4));
        assert!(10.0 - 9.81 * t < 0.0);
        // apex exactly at the height: the double root
        let t = time_to_height(Vec3::ZERO, Vec3::Y * 9.81, G, 4.905).unwrap();
        assert!(close(t, 1.0, 1e-3), "{t}");
        // no gravity: linear, and only forward in time
        assert_eq!(time_to_height(p, Vec3::Y, Vec3::ZERO, 5.0), Some(3.0));
        assert_eq!(time_to_height(p, Vec3::Y, Vec3::ZERO, 0.0), None);
        assert_eq!(time_to_height(p, Vec3::X, Vec3::ZERO, 0.0), None);
        assert_eq!(time_to_height(p, Vec3::X, Vec3::ZERO, 2.0), Some(0.0));
        // non-finite input
        assert_eq!(time_to_height(p, Vec3::NAN, G, 0.0), None);
    }

    #[test]
    fn catching_height_lands_before_and_short_of_the_floor_point() {
        let (p, v) = (Vec3::new(0.0, 3.0, 0.0), Vec3::new(8.0, 4.0, 0.0));
        let floor = landing_point(p, v, G, 0.0).unwrap();
        let chest = landing_point(p, v, G, 1.3).unwrap();
        assert!(chest.time < floor.time && chest.point.x < floor.point.x);
        assert!(floor.point.x - chest.point.x > 1.0);
    }

    #[test]
    fn terrain_iteration_converges_on_a_slope_and_caps_on_a_pathological_ground() {
        let (p, v) = (Vec3::new(0.0, 10.0, 0.0), Vec3::new(10.0, 2.0, 3.0));
        let slope = |x: f32, z: f32| 0.1 * x - 0.05 * z;
        let opts = LandingOptions::default();
        let l = predict_landing(p, v, G, slope, &opts).unwrap();
        // the point is on the ground within the tolerance
        assert!(close(l.point.y, slope(l.point.x, l.point.z), opts.tolerance), "{l:?}");
        assert!(close(trajectory_position(p, v, G, l.time).x, l.point.x, 1e-3));
        // flat ground: one step
        let flat = predict_landing(p, v, G, |_, _| 0.0, &opts).unwrap();
        assert_eq!(Some(flat), landing_point(p, v, G, 0.0));
        // catch height offset
        let chest = LandingOptions { height_offset: 1.3, ..opts };
        let c = predict_landing(p, v, G, |_, _| 0.0, &chest).unwrap();
        assert!(close(c.point.y, 1.3, 1e-6));
        // a step whose low side sends the shot onto the high side and back: never settles
        // (landing x is 19.05 m at height −4 and 13.29 m at height 4)
        let jagged = |x: f32, _z: f32| if x < 16.0 { -4.0 } else { 4.0 };
        match predict_landing(p, v, G, jagged, &opts) {
            Err(LandingError::NotConverged { last }) => assert!(last.point.is_finite()),
            other => panic!("expected NotConverged, got {other:?}"),
        }
        // ground above the apex ahead
        assert_eq!(
            predict_landing(p, v, G, |x, _| if x > 1.0 { 100.0 } else { 0.0 }, &opts),
            Err(LandingError::NeverReaches)
        );
        // bad inputs
        assert!(matches!(
            predict_landing(p, v, G, |_, _| f32::NAN, &opts),
            Err(LandingError::Invalid(_))
        ));
        let zero = LandingOptions { max_iterations: 0, ..opts };
        assert!(matches!(predict_landing(p, v, G, slope, &zero), Err(LandingError::Invalid(_))));
    }

    #[test]
    fn closest_approach_agrees_with_dense_sampling() {
        let cases = [
            (Vec3::ZERO, Vec3::new(10.0, 10.0, 0.0), Vec3::new(10.0, 1.0, 0.5)),
            (Vec3::ZERO, Vec3::new(3.0, 12.0, -2.0), Vec3::new(2.0, 8.0, -1.0)),
            (Vec3::new(1.0, 5.0, 0.0), Vec3::new(-4.0, 0.0, 2.0), Vec3::new(0.0, 0.0, 0.0)),
            (Vec3::ZERO, Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, -3.0, 0.0)),
        ];
        for (s, v, target) in cases {
            let a = trajectory_closest_approach(s, v, G, target, 5.0).unwrap();
            let mut best = f32::INFINITY;
            for i in 0..=50_000 {
                let t = 5.0 * i as f32 / 50_000.0;
                best = best.min(trajectory_position(s, v, G, t).distance(target));
            }
            assert!(close(a.distance, best, 1e-3), "{a:?} vs {best}");
            assert!(close(a.point.distance(target), a.distance, 1e-3));
        }
        // a trajectory through the point: the crossing time
        let v = Vec3::new(4.0, 6.0, 0.0);
        let p = trajectory_position(Vec3::ZERO, v, G, 0.8);
        let a = trajectory_closest_approach(Vec3::ZERO, v, G, p, 10.0).unwrap();
        assert!(close(a.time, 0.8, 1e-4) && a.distance < 1e-4, "{a:?}");
        // zero gravity and bad input
        let a = trajectory_closest_approach(
            Vec3::ZERO,
            Vec3::X,
            Vec3::ZERO,
            Vec3::new(3.0, 4.0, 0.0),
            10.0,
        );
        assert!(close(a.unwrap().distance, 4.0, 1e-5));
        assert_eq!(trajectory_closest_approach(Vec3::ZERO, Vec3::X, G, Vec3::X, -1.0), None);
    }

    // ---- firing solution (§3.5.3) ----

    #[test]
    fn firing_solution_fixtures_from_the_spec() {
        // tolerance 1e-4 on directions and times (fixtures given to 6 digits)
        let cases = [
            (
                Vec3::new(10.0, 0.0, 0.0),
                20.0,
                0.503_862,
                Vec3::new(0.992_336, 0.123_572, 0.0),
                4.046_221,
                Vec3::new(0.123_572, 0.992_336, 0.0),
            ),
            (
                Vec3::new(10.0, 5.0, 0.0),
                20.0,
                0.604_422,
                Vec3::new(0.827_237, 0.561_853, 0.0),
                3.771_169,
                Vec3::new(0.132_585, 0.991_172, 0.0),
            ),
            (Vec3::new(0.0, 10.0, 0.0), 20.0, 0.583_501, Vec3::Y, 3.493_971, Vec3::Y),
        ];
        for (end, s, t_low, u_low, t_high, u_high) in cases {
            let [low, high] = firing_solutions(Vec3::ZERO, end, s, G).unwrap();
            assert!(close(low.time, t_low, 1e-4), "{low:?}");
            assert!(close(high.time, t_high, 1e-4), "{high:?}");
            assert_vec(low.direction, u_low, 1e-4);
            assert_vec(high.direction, u_high, 1e-4);
            assert_eq!(firing_solution(Vec3::ZERO, end, s, G, Arc::Low).unwrap(), low);
            assert_eq!(firing_solution(Vec3::ZERO, end, s, G, Arc::High).unwrap(), high);
        }
        // out of range: (100, 0, 0) at 10 m/s
        assert_eq!(
            firing_solution(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), 10.0, G, Arc::Low),
            Err(AimError::OutOfRange)
        );
        // at the maximum level range s²/|g| = 10.19368 (f32 rounding puts it a hair beyond):
        // the double root t = 1.441604 at 45°, tolerance 1e-3
        let [low, high] =
            firing_solutions(Vec3::ZERO, Vec3::new(10.19368, 0.0, 0.0), 10.0, G).unwrap();
        for sol in [low, high] {
            assert!(close(sol.time, 1.441_604, 1e-3), "{sol:?}");
            assert_vec(sol.direction, Vec3::new(1.0, 1.0, 0.0).normalize(), 1e-3);
        }
        // a little inside: two arcs either side of 45°
        let [low, high] =
            firing_solutions(Vec3::ZERO, Vec3::new(10.19, 0.0, 0.0), 10.0, G).unwrap();
        assert!(low.direction.y.asin() < FRAC_PI_4 && high.direction.y.asin() > FRAC_PI_4);
        assert!(low.time < 1.441_604 && high.time > 1.441_604);
    }

    #[test]
    fn firing_solution_lecture_vectors_section_14_item_5() {
        // s = 15: E = (10,0,0) → t = {0.684, 2.981}, u_low = (0.9747, 0.2237, 0);
        // E = (10,5,0) → t = {0.893, 2.553}, u_low = (0.7466, 0.6653, 0); E = (30,0,0) → none.
        // tolerance: half a unit in the last quoted digit
        let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 15.0, G).unwrap();
        assert!(close(low.time, 0.684, 5e-4) && close(high.time, 2.981, 5e-4));
        assert_vec(low.direction, Vec3::new(0.9747, 0.2237, 0.0), 5e-5);
        let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.0, 5.0, 0.0), 15.0, G).unwrap();
        assert!(close(low.time, 0.893, 5e-4) && close(high.time, 2.553, 5e-4));
        assert_vec(low.direction, Vec3::new(0.7466, 0.6653, 0.0), 5e-5);
        assert_eq!(
            firing_solutions(Vec3::ZERO, Vec3::new(30.0, 0.0, 0.0), 15.0, G),
            Err(AimError::OutOfRange)
        );
    }

    #[test]
    fn firing_solution_aims_at_target_not_away() {
        // erratum: the book's listing uses delta = start − end
        let (s, e, speed) = (Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 15.0);
        let sol = firing_solution(s, e, speed, G, Arc::Low).unwrap();
        assert!(sol.direction.x > 0.0);
        let hit = trajectory_position(s, sol.velocity(speed), G, sol.time);
        assert_vec(hit, e, 1e-4);
        // what the listing computes lands on the mirror image of the target
        let wrong = s - e;
        let t = sol.time;
        let u = (wrong * 2.0 - G * t * t) / (2.0 * speed * t);
        assert!(u.x < 0.0);
        assert_vec(trajectory_position(s, u * speed, G, t), -e, 1e-3);
    }

    #[test]
    fn firing_solution_degenerate_inputs_are_errors_not_nan() {
        let e = Vec3::new(3.0, 4.0, 0.0);
        // zero gravity: the straight line, once
        let [low, high] = firing_solutions(Vec3::ZERO, e, 10.0, Vec3::ZERO).unwrap();
        assert_eq!(low, high);
        assert_vec(low.direction, e / 5.0, 1e-6);
        assert!(close(low.time, 0.5, 1e-6));
        // target at the start, zero or negative or NaN speed, NaN vectors
        assert_eq!(firing_solutions(e, e, 10.0, G), Err(AimError::TargetAtStart));
        for speed in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(firing_solutions(Vec3::ZERO, e, speed, G), Err(AimError::Invalid(_))));
        }
        assert!(matches!(
            firing_solutions(Vec3::ZERO, Vec3::NAN, 10.0, G),
            Err(AimError::Invalid(_))
        ));
        // very weak gravity: the high arc's time overflows f32, the low arc is the line
        let [low, high] =
            firing_solutions(Vec3::ZERO, e, 10.0, Vec3::new(0.0, -1e-30, 0.0)).unwrap();
        assert!(low.direction.is_finite() && high.direction.is_finite());
        assert!(high.time.is_finite());
    }

    // ---- drag (§3.5.4) ----

    #[test]
    fn linear_drag_closed_form_identities() {
        // lectures §14 item 8: p(0) = p₀ and ṗ(0) = s·u; plus the ODE, the k → 0 limit and g/k
        let m = LinearDrag::new(G, 0.4).unwrap();
        let (p0, v0) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(12.0, 9.0, -4.0));
        assert_vec(m.position_at(p0, v0, 0.0), p0, 1e-6);
        assert_vec(m.velocity_at(v0, 0.0), v0, 1e-6);
        for t in [0.3f32, 1.0, 2.5] {
            let h = 1e-3;
            let acc = (m.velocity_at(v0, t + h) - m.velocity_at(v0, t - h)) / (2.0 * h);
            assert_vec(acc, G - m.velocity_at(v0, t) * 0.4, 2e-2);
            let vel = (m.position_at(p0, v0, t + h) - m.position_at(p0, v0, t - h)) / (2.0 * h);
            assert_vec(vel, m.velocity_at(v0, t), 2e-2);
        }
        assert_vec(m.velocity_at(v0, 60.0), G / 0.4, 1e-3);
        let tiny = LinearDrag::new(G, 1e-7).unwrap();
        let none = LinearDrag::new(G, 0.0).unwrap();
        for t in [0.5f32, 2.0] {
            let free = trajectory_position(p0, v0, G, t);
            assert_vec(tiny.position_at(p0, v0, t), free, 1e-4);
            assert_vec(none.position_at(p0, v0, t), free, 1e-5);
        }
        assert!(LinearDrag::new(G, -1.0).is_err());
    }

    #[test]
    fn linear_drag_constant_b_starts_at_the_firing_point() {
        // Eq. 3.6 p(t) = (g·t − A·e^(−kt))/k + B with A = v₀ − g/k needs B = p₀ + A/k;
        // the B = p₀ − A/k of the write-ups is off by 2A/k at t = 0
        let (k, p0, v0) = (0.5f32, Vec3::new(0.0, 1.0, 0.0), Vec3::new(10.0, 10.0, 0.0));
        let a = v0 - G / k;
        let eq36 = |b: Vec3, t: f32| (G * t - a * (-k * t).exp()) / k + b;
        let m = LinearDrag::new(G, k).unwrap();
        for t in [0.0f32, 0.7, 1.9] {
            assert_vec(eq36(p0 + a / k, t), m.position_at(p0, v0, t), 1e-4);
        }
        assert!((eq36(p0 - a / k, 0.0) - p0).length() > 10.0);
    }

    #[test]
    fn quadratic_drag_integrates_linear_drag_and_falls_at_terminal_speed() {
        let (p0, v0) = (Vec3::ZERO, Vec3::new(20.0, 15.0, 5.0));
        let lin = LinearDrag::new(G, 0.3).unwrap();
        let num = QuadraticDrag::new(G, 0.3, 0.0).unwrap();
        let (mut p, mut v) = (p0, v0);
        for _ in 0..30 {
            (p, v) = num.step(p, v, 0.1);
        }
        assert_vec(p, lin.position_at(p0, v0, 3.0), 1e-3);
        assert_vec(v, lin.velocity_at(v0, 3.0), 1e-4);
        // pure quadratic drag: falling terminal speed √(g/c)
        let c = 0.05;
        let q = QuadraticDrag::new(G, 0.0, c).unwrap();
        let (_, v) = q.step(Vec3::ZERO, Vec3::ZERO, 30.0);
        assert!(close(-v.y, (9.81f32 / c).sqrt(), 1e-3), "{v}");
        // a stiff flight (huge drag, fast shot) stays finite and slows down
        let stiff = QuadraticDrag::new(G, 5.0, 3.0).unwrap();
        let (p, v) = stiff.step(Vec3::ZERO, Vec3::new(500.0, 0.0, 0.0), 1.0);
        assert!(p.is_finite() && v.length() < 10.0, "{p} {v}");
        // drag shortens the range
        let free = landing_point(Vec3::ZERO, v0, G, 0.0).unwrap().point.x;
        let (mut p, mut v) = (Vec3::ZERO, v0);
        while !(p.y < 0.0 && v.y < 0.0) {
            (p, v) = QuadraticDrag::new(G, 0.0, 0.01).unwrap().step(p, v, 0.01);
        }
        assert!(p.x < free);
    }

    // ---- iterative targeting (§3.5.5) ----

    fn fine_miss<M: ForwardModel>(m: &M, start: Vec3, v: Vec3, target: Vec3) -> f32 {
        let (mut p, mut vel) = (start, v);
        let mut best = p.distance(target);
        for _ in 0..20_000 {
            let (p1, v1) = m.step(p, vel, 0.002);
            best = best.min(closest_on_segment(p, p1, target).0.distance(target));
            (p, vel) = (p1, v1);
            if p.y < target.y - 5.0 && vel.y < 0.0 {
                break;
            }
        }
        best
    }

    #[test]
    fn refine_targeting_probes_the_midpoint_of_the_bracket() {
        // erratum: the listing's "midpoint" (max − min)/2 leaves the bracket [0.5, 0.7] at once
        let mut probes = vec![];
        let out = bisect(0.5, 0.7, 1e-4, |a| {
            probes.push(a);
            Some(a - 0.613)
        });
        assert!(matches!(out, Bisection::Hit(a) if close(a, 0.613, 1e-3)), "{out:?}");
        assert!(close(probes[0], 0.6, 1e-7));
        assert!(probes.iter().all(|&a| (0.5..=0.7).contains(&a)), "{probes:?}");
    }

    #[test]
    fn refine_targeting_moves_a_bound_inside_the_loop() {
        // erratum: the bound update sat outside the loop, so the bracket never shrank. Here every
        // probe narrows it: a hit within log₂(0.2 / 1e-4) + 1 probes, and an unattainable margin
        // (a miss that jumps over zero) ends when the bracket collapses, not never.
        let mut n = 0;
        let out = bisect(0.5, 0.7, 1e-4, |a| {
            n += 1;
            Some(a - 0.6666)
        });
        assert!(matches!(out, Bisection::Hit(_)) && n <= 12, "{out:?} after {n}");
        let mut n = 0;
        let out = bisect(-1.5, 1.0, 1e-3, |a| {
            n += 1;
            Some(if a < 0.3 { -1.0 } else { 1.0 })
        });
        assert_eq!(out, Bisection::Collapsed);
        assert!(n <= 20, "{n}");
        // and a refused probe stops it
        assert_eq!(bisect(0.0, 1.0, 1e-3, |_| None), Bisection::Exhausted);
    }

    /// A projectile with lift: it reports ordinary gravity for the first guess but falls at 60%.
    struct Floaty;

    impl ForwardModel for Floaty {
        fn gravity(&self) -> Vec3 {
            G
        }
        fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
            let g = G * 0.6;
            (trajectory_position(position, velocity, g, dt), trajectory_velocity(velocity, g, dt))
        }
    }

    #[test]
    fn refine_targeting_overshoot_is_not_out_of_range() {
        // erratum: the listing's "can't reach it" test also ran after the overshoot branch, where
        // the straight-down probe always falls short. With lift the drag-free guess overshoots.
        let (s, e, speed) = (Vec3::ZERO, Vec3::new(40.0, 0.0, 0.0), 25.0);
        let opts = TargetingOptions::default();
        let guess = firing_solution(s, e, speed, G, Arc::Low).unwrap();
        let first = distance_to_target(&Floaty, s, guess.velocity(speed), e, &opts);
        assert!(first.distance > opts.margin, "{first:?}");
        let sol = refine_targeting(&Floaty, s, e, speed, &opts).unwrap();
        assert!(sol.direction.y < guess.direction.y);
        assert!(fine_miss(&Floaty, s, sol.direction * speed, e) < opts.margin + 0.01);
        // the exact answer under the weaker gravity
        let exact = firing_solution(s, e, speed, G * 0.6, Arc::Low).unwrap();
        assert!(sol.direction.angle_between(exact.direction) < 5e-3);
    }

    #[test]
    fn refine_targeting_searches_above_45_degrees_for_a_high_target() {
        // the book caps the elevation at π/4; a target well above the start needs more
        let model = LinearDrag::new(G, 0.1).unwrap();
        let (s, e, speed) = (Vec3::ZERO, Vec3::new(10.0, 20.0, 0.0), 25.0);
        let opts = TargetingOptions::default();
        let guess = firing_solution(s, e, speed, G, Arc::Low).unwrap();
        let first = distance_to_target(&model, s, guess.velocity(speed), e, &opts);
        let at_45 = distance_to_target(
            &model,
            s,
            direction_from_elevation(Vec3::X, FRAC_PI_4) * speed,
            e,
            &opts,
        );
        assert!(first.distance < 0.0 && at_45.distance < 0.0, "{first:?} {at_45:?}");
        let sol = refine_targeting(&model, s, e, speed, &opts).unwrap();
        assert!(sol.direction.y.asin() > FRAC_PI_4);
        assert!(fine_miss(&model, s, sol.direction * speed, e) < opts.margin + 0.01);
        assert!(sol.miss.abs() < opts.margin && sol.simulations <= opts.max_simulations);
    }

    #[test]
    fn refine_targeting_reports_out_of_range_when_the_best_shot_falls_short() {
        let model = QuadraticDrag::new(G, 0.0, 0.01).unwrap();
        let opts = TargetingOptions::default();
        // drag-free range at 30 m/s is 91.7 m; with drag 80 m is out of reach
        let e = Vec3::new(80.0, 0.0, 0.0);
        assert!(firing_solution(Vec3::ZERO, e, 30.0, G, Arc::Low).is_ok());
        assert_eq!(refine_targeting(&model, Vec3::ZERO, e, 30.0, &opts), Err(AimError::OutOfRange));
        // beyond even the drag-free range: the guess is missing, still a clean answer
        assert_eq!(
            refine_targeting(&model, Vec3::ZERO, e * 3.0, 30.0, &opts),
            Err(AimError::OutOfRange)
        );
        // while a nearer target is hit, with more elevation than the drag-free guess
        let near = Vec3::new(40.0, 0.0, 10.0);
        let sol = refine_targeting(&model, Vec3::ZERO, near, 30.0, &opts).unwrap();
        let guess = firing_solution(Vec3::ZERO, near, 30.0, G, Arc::Low).unwrap();
        assert!(sol.direction.y > guess.direction.y);
        assert!(fine_miss(&model, Vec3::ZERO, sol.direction * 30.0, near) < opts.margin + 0.01);
    }

    #[test]
    fn distance_to_target_with_bad_timing_measures_the_start_only() {
        let model = NoDrag::new(G).unwrap();
        let bad = TargetingOptions { sample_interval: 0.0, ..TargetingOptions::default() };
        let e = Vec3::new(10.0, 0.0, 0.0);
        let m = distance_to_target(&model, Vec3::ZERO, Vec3::new(10.0, 5.0, 0.0), e, &bad);
        assert_eq!((m.distance.abs(), m.time), (10.0, 0.0));
    }

    #[test]
    fn refine_targeting_without_drag_accepts_the_first_guess() {
        let model = NoDrag::new(G).unwrap();
        let e = Vec3::new(12.0, 3.0, -7.0);
        let sol =
            refine_targeting(&model, Vec3::ZERO, e, 20.0, &TargetingOptions::default()).unwrap();
        assert_eq!(sol.simulations, 1);
        let exact = firing_solution(Vec3::ZERO, e, 20.0, G, Arc::Low).unwrap();
        assert_vec(sol.direction, exact.direction, 1e-5);
    }

    #[test]
    fn refine_targeting_corrects_the_bearing_in_a_crosswind() {
        let model =
            QuadraticDrag::new(G, 0.0, 0.005).unwrap().with_wind(Vec3::new(0.0, 0.0, 8.0)).unwrap();
        let (s, e) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(50.0, 0.0, 0.0));
        let opts = TargetingOptions::default();
        let sol = refine_targeting(&model, s, e, 35.0, &opts).unwrap();
        // aims upwind (−z) to drift onto the target
        assert!(sol.direction.z < -0.01, "{sol:?}");
        assert!(fine_miss(&model, s, sol.direction * 35.0, e) < opts.margin + 0.01);
    }

    #[test]
    fn refine_targeting_straight_up_and_degenerate_requests() {
        let model = LinearDrag::new(G, 0.2).unwrap();
        let opts = TargetingOptions::default();
        let up =
            refine_targeting(&model, Vec3::ZERO, Vec3::new(0.0, 10.0, 0.0), 20.0, &opts).unwrap();
        assert_eq!(up.direction, Vec3::Y);
        assert_eq!(
            refine_targeting(&model, Vec3::ZERO, Vec3::new(0.0, 100.0, 0.0), 20.0, &opts),
            Err(AimError::OutOfRange)
        );
        assert_eq!(
            refine_targeting(&model, Vec3::ONE, Vec3::ONE, 20.0, &opts),
            Err(AimError::TargetAtStart)
        );
        let bad = TargetingOptions { margin: 0.0, ..opts };
        assert!(matches!(
            refine_targeting(&model, Vec3::ZERO, Vec3::X, 20.0, &bad),
            Err(AimError::Invalid(_))
        ));
        assert!(matches!(
            refine_targeting(&model, Vec3::ZERO, Vec3::X, 0.0, &opts),
            Err(AimError::Invalid(_))
        ));
    }

    #[test]
    fn refine_targeting_stops_at_the_cap_with_its_best_shot() {
        let model = QuadraticDrag::new(G, 0.0, 0.01).unwrap();
        let e = Vec3::new(40.0, 2.0, 0.0);
        let opts =
            TargetingOptions { margin: 1e-7, max_simulations: 40, ..TargetingOptions::default() };
        match refine_targeting(&model, Vec3::ZERO, e, 30.0, &opts) {
            Err(AimError::NotConverged { direction, miss }) => {
                assert!((direction.length() - 1.0).abs() < 1e-5);
                assert!(miss < 0.01, "{miss}");
            }
            other => panic!("expected NotConverged, got {other:?}"),
        }
        let one = TargetingOptions { max_simulations: 1, ..TargetingOptions::default() };
        assert!(matches!(
            refine_targeting(&model, Vec3::ZERO, e, 30.0, &one),
            Err(AimError::NotConverged { .. })
        ));
    }

    // ---- moving targets and grenades ----

    #[test]
    fn aim_at_moving_target_meets_the_target() {
        let (s, p, v, speed) =
            (Vec3::new(0.0, 1.5, 0.0), Vec3::new(30.0, 0.0, 10.0), Vec3::new(-2.0, 0.0, 3.0), 25.0);
        let opts = MovingTargetOptions::default();
        for arc in [Arc::Low, Arc::High] {
            let aim = aim_at_moving_target(s, p, v, speed, G, arc, &opts).unwrap();
            let shot = trajectory_position(s, aim.direction * speed, G, aim.time);
            let target = p + v * aim.time;
            assert!(shot.distance(target) <= opts.tolerance + 1e-3, "{arc:?} {aim:?}");
            assert!(shot.distance(aim.point) < 1e-3);
        }
        // a still target: the plain firing solution
        let still = aim_at_moving_target(s, p, Vec3::ZERO, speed, G, Arc::Low, &opts).unwrap();
        assert_eq!(still.direction, firing_solution(s, p, speed, G, Arc::Low).unwrap().direction);
        // running out of range, and a target faster than the shot: clean errors
        assert_eq!(
            aim_at_moving_target(s, p, Vec3::new(50.0, 0.0, 0.0), speed, G, Arc::Low, &opts),
            Err(AimError::OutOfRange)
        );
        let fast =
            aim_at_moving_target(s, p, Vec3::new(-40.0, 0.0, 0.0), speed, G, Arc::Low, &opts);
        assert!(fast.is_err(), "{fast:?}");
    }

    #[test]
    fn grenade_reactions() {
        let grenade = Grenade {
            position: Vec3::new(0.0, 2.0, 0.0),
            velocity: Vec3::new(6.0, 6.0, 0.0),
            gravity: G,
            fuse: Some(4.0),
            blast_radius: 5.0,
        };
        let land = landing_point(grenade.position, grenade.velocity, G, 0.0).unwrap();
        let catcher = Catcher {
            position: land.point + Vec3::new(2.0, 0.0, 0.0),
            max_speed: 5.0,
            catch_height: 1.3,
            throw_back_time: 1.0,
        };
        // close and quick enough, with fuse to spare: catch at chest height
        match react_to_grenade(&grenade, &catcher, 0.0) {
            Reaction::Catch { point, time } => {
                assert!(close(point.y, 1.3, 1e-6) && time < land.time);
            }
            other => panic!("{other:?}"),
        }
        // short fuse: flee; can get out at 5 m/s
        let short = Grenade { fuse: Some(land.time + 0.2), ..grenade };
        assert!(matches!(
            react_to_grenade(&short, &catcher, 0.0),
            Reaction::Flee { escapable: true, from, .. } if from == land.point
        ));
        // a slow character in the middle of the blast cannot escape, but is told to run
        let slow = Catcher { position: land.point, max_speed: 0.5, ..catcher };
        assert!(matches!(
            react_to_grenade(&short, &slow, 0.0),
            Reaction::Flee { escapable: false, .. }
        ));
        // far away: safe
        let far = Catcher { position: Vec3::new(50.0, 0.0, 0.0), ..catcher };
        assert_eq!(react_to_grenade(&grenade, &far, 0.0), Reaction::Safe);
        // airburst: goes off before landing, at its position then
        let air = Grenade { fuse: Some(0.5), ..grenade };
        let expect = trajectory_position(air.position, air.velocity, G, 0.5);
        let near_air = Catcher { position: expect, ..slow };
        assert!(matches!(
            react_to_grenade(&air, &near_air, 0.0),
            Reaction::Flee { from, time, .. } if from == expect && time == 0.5
        ));
    }

    // ---- properties ----

    /// Closest approach of a drag-free shot at `elevation` in the plane of `delta` and gravity.
    fn sweep_best_miss(delta: Vec3, speed: f32, g: Vec3, angles: u32) -> f32 {
        // an orthonormal basis of the plane containing Δ and g (any plane through g if Δ ∥ g)
        let down = g.normalize_or_zero();
        let down = if down == Vec3::ZERO { -Vec3::Y } else { down };
        let mut across = delta - down * delta.dot(down);
        if across.length_squared() < 1e-10 {
            across = crate::math::any_perpendicular(down);
        }
        let across = across.normalize();
        let mut best = f32::INFINITY;
        for i in 0..angles {
            let a = core::f32::consts::TAU * i as f32 / angles as f32;
            let u = across * a.cos() - down * a.sin();
            let hit = trajectory_closest_approach(Vec3::ZERO, u * speed, g, delta, 1e3).unwrap();
            best = best.min(hit.distance);
        }
        best
    }

    fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
        (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn gravity() -> impl Strategy<Value = Vec3> {
        (1.0f32..30.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(g, x, z)| Vec3::new(x, -g, z))
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            max_global_rejects: 20_000,
            ..ProptestConfig::default()
        })]

        #[test]
        fn every_firing_solution_lands_on_the_target(
            start in vec3(100.0),
            delta in vec3(60.0),
            speed in 2.0f32..80.0,
            g in gravity(),
        ) {
            let end = start + delta;
            match firing_solutions(start, end, speed, g) {
                Ok(sols) => {
                    prop_assert!(sols[0].time <= sols[1].time);
                    for sol in sols {
                        prop_assert!((sol.direction.length() - 1.0).abs() < 1e-5);
                        let t = sol.time;
                        let landed = trajectory_position(start, sol.velocity(speed), g, t);
                        // f32 rounding of the start, the path length and the drop
                        let scale = 1.0 + start.length() + speed * t + 0.5 * g.length() * t * t;
                        prop_assert!(
                            landed.distance(end) <= 1e-4 * scale,
                            "{sol:?} lands at {landed}, target {end}"
                        );
                    }
                }
                Err(AimError::OutOfRange) | Err(AimError::TargetAtStart) => {}
                Err(e) => prop_assert!(false, "unexpected {e:?}"),
            }
        }

        #[test]
        fn every_out_of_range_answer_is_out_of_range(
            delta in vec3(60.0),
            speed in 2.0f32..40.0,
            g in gravity(),
        ) {
            // skip targets within 2% of the edge of range, where f32 input rounding decides
            let (gd, g2, d2) = (g.dot(delta), g.length_squared(), delta.length_squared());
            let b = gd + speed * speed;
            prop_assume!(b <= 0.0 || (g2 * d2).sqrt() > 1.02 * b);
            prop_assert_eq!(
                firing_solutions(Vec3::ZERO, delta, speed, g),
                Err(AimError::OutOfRange)
            );
            // no direction in the plane of Δ and g (where any hit must lie) comes close
            let best = sweep_best_miss(delta, speed, g, 720);
            prop_assert!(best > 1e-3 * delta.length(), "a shot came within {best} m");
        }

        #[test]
        fn every_point_on_a_trajectory_is_in_range(
            u in vec3(1.0),
            t in 0.05f32..6.0,
            speed in 2.0f32..40.0,
            g in gravity(),
        ) {
            // the converse of the above: fly any shot, and the point it reaches at time t has a
            // firing solution, one of whose arcs is that shot
            let u = u.normalize_or_zero();
            prop_assume!(u != Vec3::ZERO);
            let end = trajectory_position(Vec3::ZERO, u * speed, g, t);
            prop_assume!(end.length() > 1e-2);
            let sols = firing_solutions(Vec3::ZERO, end, speed, g);
            prop_assert!(sols.is_ok(), "{sols:?} for {end}");
            let err = sols
                .unwrap()
                .iter()
                .map(|s| (s.time - t).abs() / t + s.direction.distance(u))
                .fold(f32::INFINITY, f32::min);
            prop_assert!(err < 1e-2, "no arc matches the shot: {err}");
        }

        #[test]
        fn time_to_height_is_a_descending_crossing(
            start in vec3(50.0),
            v in vec3(40.0),
            g in gravity(),
            height in -60.0f32..60.0,
        ) {
            if let Some(t) = time_to_height(start, v, g, height) {
                prop_assert!(t >= 0.0 && t.is_finite());
                let y = trajectory_position(start, v, g, t).y;
                let scale = 1.0 + start.y.abs() + v.y.abs() * t + g.y.abs() * t * t;
                prop_assert!((y - height).abs() <= 1e-5 * scale, "y {y} vs {height}");
                prop_assert!(v.y + g.y * t <= 1e-3 * (1.0 + v.y.abs()));
            } else {
                // never at that height from now on: the apex (or the start) is below it, or
                // it is already below and falling
                let apex_t = (-v.y / g.y).max(0.0);
                let apex = trajectory_position(start, v, g, apex_t).y;
                prop_assert!(apex < height + 1e-3 * (1.0 + apex.abs()));
            }
        }

        #[test]
        fn drag_aware_targeter_hits_whenever_a_sweep_finds_a_hit(
            range in 5.0f32..60.0,
            bearing in 0.0f32..core::f32::consts::TAU,
            rise in -10.0f32..20.0,
            speed in 15.0f32..45.0,
            k in 0.0f32..0.3,
            c in 0.0f32..0.01,
        ) {
            let model = QuadraticDrag::new(G, k, c).unwrap();
            let (s, dir) = (Vec3::ZERO, Vec3::new(bearing.cos(), 0.0, bearing.sin()));
            let e = dir * range + Vec3::Y * rise;
            // brute force: 120 elevations; a hit exists if some shot passes at or above the
            // target's height at the target's horizontal distance (a lower one passes below,
            // so by continuity an elevation in between goes through it)
            let mut found = false;
            for i in 0..120 {
                let a = -1.4 + 2.95 * i as f32 / 119.0;
                let (mut p, mut v) = (s, direction_from_elevation(dir, a) * speed);
                for _ in 0..2000 {
                    let (p1, v1) = model.step(p, v, 0.01);
                    let (x0, x1) = (p.dot(dir), p1.dot(dir));
                    if x0 < range && x1 >= range {
                        let y = p.y + (p1.y - p.y) * (range - x0) / (x1 - x0);
                        found |= y >= rise;
                        break;
                    }
                    (p, v) = (p1, v1);
                    if p.y < rise - 5.0 && v.y < 0.0 {
                        break;
                    }
                }
                if found {
                    break;
                }
            }
            prop_assume!(found);
            let opts = TargetingOptions::default();
            let sol = refine_targeting(&model, s, e, speed, &opts);
            prop_assert!(sol.is_ok(), "{sol:?}");
            let sol = sol.unwrap();
            let miss = fine_miss(&model, s, sol.direction * speed, e);
            prop_assert!(miss < opts.margin + 0.01, "{sol:?} misses by {miss}");
        }
    }
}
