//! Forward models of a projectile's flight: no drag, linear drag in closed form, quadratic drag
//! (with wind) by integration.

use super::{d, finite_vec, trajectory_position, trajectory_velocity};
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::sanitize_dt;
use glam::Vec3;

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
/// this model is for simulation and [`refine_targeting`](super::refine_targeting). Each `step` is
/// split into classical fourth-order Runge–Kutta sub-steps no longer than `max_step` (default
/// 1/120 s) nor `0.5 / (k + c·|ṗ − w|)` (which keeps a stiff, high-drag flight stable).
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
        if sanitize_dt(dt) == 0.0 {
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
