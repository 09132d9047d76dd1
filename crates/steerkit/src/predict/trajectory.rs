//! Drag-free trajectories: position, velocity, time to a height, landing points (also over
//! terrain) and the closest approach to a point.

use super::{d, finite_vec, quadratic_roots};
use crate::error::{at_least_one, finite, positive, ParamError};
use glam::Vec3;

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
    at_least_one("max_iterations", options.max_iterations as usize, "at least 1")?;
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
