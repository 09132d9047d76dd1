//! Drag-free firing solutions, on either arc, and leading a moving target.

use super::{d, finite_vec};
use crate::error::{positive, ParamError};
use glam::Vec3;

/// Which of the two ballistic arcs to use when a target can be reached two ways.
///
/// For a firing solution the low arc has the shorter flight time (less time for the target to
/// react, less likely to hit a ceiling); the high arc lobs over walls. For a jump the low arc is
/// the shorter root of the jump equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BallisticArc {
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

pub(super) fn validate_shot(
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
/// its flight time. [`BallisticArc::Low`] (the default choice) is the shorter flight, [`BallisticArc::High`] the
/// lob. See [`firing_solutions`] for the formula and the degenerate cases.
///
/// # Errors
/// As [`firing_solutions`]: out of range, target at the start, or an invalid parameter.
pub fn firing_solution(
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    gravity: Vec3,
    arc: BallisticArc,
) -> Result<FiringSolution, AimError> {
    let [low, high] = firing_solutions(start, end, muzzle_speed, gravity)?;
    Ok(match arc {
        BallisticArc::Low => low,
        BallisticArc::High => high,
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
    arc: BallisticArc,
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
