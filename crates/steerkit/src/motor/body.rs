//! Actuators for a body whose physics engine owns the motion: forces, impulses, or a desired
//! velocity.

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{sanitize_dt, Kinematic, KinematicSteeringOutput, Limits, SteeringOutput};
use crate::math::Vector;
use glam::Vec2;

/// A force and a torque to apply for one step (2D: torque in N·m about +z, counter-clockwise
/// positive; 3D: a torque vector).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wrench<V: Vector = Vec2> {
    /// Force (N).
    pub force: V,
    /// Torque (N·m).
    pub torque: V::Angular,
}

/// A linear and an angular impulse: the change of momentum to apply once.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Impulse<V: Vector = Vec2> {
    /// Linear impulse (N·s = kg·m/s).
    pub linear: V,
    /// Angular impulse (N·m·s = kg·m²/s).
    pub angular: V::Angular,
}

/// A body with mass, for engines that are driven by forces or impulses (§3.1.3: "force =
/// inertia × acceleration", the simplest actuation).
///
/// ```text
/// force   F = m·(a + k·v)          (N)       k = the engine's linear damping rate (1/s)
/// torque  τ = I·(α + k_ω·ω)        (N·m)     k_ω = its angular damping rate (1/s)
/// impulse J = F·dt,   angular impulse = τ·dt (N·s, N·m·s)
/// ```
/// The damping terms cancel the engine's own linear damping (`dv/dt = F/m − k·v`), so the
/// body's acceleration is the requested one; with zero damping (the default) they vanish.
/// Apply a [`Wrench`] as a force every step, or an [`Impulse`] once per step; never feed an
/// acceleration to an impulse function unscaled (the error is a factor of `m·dt`).
///
/// In 3D the inertia is a scalar moment about the rotation axis (exact for bodies whose inertia
/// tensor is isotropic, such as spheres and cubes; an approximation otherwise).
///
/// The request is used as given: filter or clamp it first if the body has limits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Body {
    mass: f32,
    inertia: f32,
    linear_damping: f32,
    angular_damping: f32,
}

impl Body {
    /// A body of `mass` (kg) and moment of `inertia` (kg·m²), with no damping.
    ///
    /// # Errors
    /// If either is not finite and positive.
    pub fn new(mass: f32, inertia: f32) -> Result<Self, ParamError> {
        Ok(Body {
            mass: positive("mass", mass)?,
            inertia: positive("inertia", inertia)?,
            linear_damping: 0.0,
            angular_damping: 0.0,
        })
    }

    /// The same body with the engine's damping rates (1/s) to compensate.
    ///
    /// # Errors
    /// If a rate is negative or not finite.
    pub fn with_damping(self, linear: f32, angular: f32) -> Result<Self, ParamError> {
        Ok(Body {
            linear_damping: non_negative("linear_damping", linear)?,
            angular_damping: non_negative("angular_damping", angular)?,
            ..self
        })
    }

    /// Mass (kg).
    #[must_use]
    pub fn mass(&self) -> f32 {
        self.mass
    }

    /// Moment of inertia (kg·m²).
    #[must_use]
    pub fn inertia(&self) -> f32 {
        self.inertia
    }

    /// The force and torque that give `character` the requested accelerations:
    /// `F = m·(a + k·v)`, `τ = I·(α + k_ω·ω)`.
    #[must_use]
    pub fn force<V: Vector>(
        &self,
        character: &Kinematic<V>,
        steering: &SteeringOutput<V>,
    ) -> Wrench<V> {
        Wrench {
            force: (steering.linear + character.velocity * self.linear_damping) * self.mass,
            torque: (steering.angular + character.rotation * self.angular_damping) * self.inertia,
        }
    }

    /// The impulses that give `character` the requested accelerations over `dt` seconds:
    /// `J = F·dt`, angular `τ·dt`. `dt ≤ 0` or non-finite gives zero.
    #[must_use]
    pub fn impulse<V: Vector>(
        &self,
        character: &Kinematic<V>,
        steering: &SteeringOutput<V>,
        dt: f32,
    ) -> Impulse<V> {
        let dt = sanitize_dt(dt);
        let w = self.force(character, steering);
        Impulse { linear: w.force * dt, angular: w.torque * dt }
    }
}

/// Advisory mode: the velocity and rotation the character should have after `dt` seconds, for an
/// engine that owns the body and accepts only velocities (a character controller, a crowd or
/// avoidance system):
///
/// ```text
/// velocity = clamp(v + clamp(a, max_acceleration)·dt, max_speed)                 (m/s)
/// rotation = clamp(ω + clamp(α, max_angular_acceleration)·dt, max_rotation)      (rad/s)
/// ```
/// This is exactly the velocity [`Kinematic::integrate`] would produce, so an engine that follows
/// it moves like the library's integrator. `dt ≤ 0` or non-finite returns the current velocity
/// and rotation, clamped.
#[must_use]
pub fn desired_velocity<V: Vector>(
    character: &Kinematic<V>,
    steering: &SteeringOutput<V>,
    limits: &Limits,
    dt: f32,
) -> KinematicSteeringOutput<V> {
    let dt = sanitize_dt(dt);
    let a = steering.linear.clamp_length_max(limits.max_acceleration());
    let alpha = V::clamp_angular(steering.angular, limits.max_angular_acceleration());
    KinematicSteeringOutput {
        velocity: (character.velocity + a * dt).clamp_length_max(limits.max_speed()),
        rotation: V::clamp_angular(character.rotation + alpha * dt, limits.max_rotation()),
    }
}
