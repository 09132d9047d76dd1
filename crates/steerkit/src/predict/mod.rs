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

mod drag;
mod firing;
mod grenade;
mod targeting;
#[cfg(test)]
mod tests;
mod trajectory;

pub use drag::{ForwardModel, LinearDrag, NoDrag, QuadraticDrag};
pub use firing::{
    aim_at_moving_target, firing_solution, firing_solutions, AimError, BallisticArc,
    FiringSolution, Interception, MovingTargetOptions,
};
pub use grenade::{react_to_grenade, Catcher, Grenade, Reaction};
pub use targeting::{
    direction_from_elevation, distance_to_target, lead_target, refine_targeting, Miss,
    TargetingOptions, TargetingSolution,
};
pub use trajectory::{
    landing_point, predict_landing, time_to_height, trajectory_closest_approach,
    trajectory_position, trajectory_velocity, ClosestApproach, Landing, LandingError,
    LandingOptions,
};

use crate::error::{finite, ParamError};
use glam::{DVec3, Vec3};

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
