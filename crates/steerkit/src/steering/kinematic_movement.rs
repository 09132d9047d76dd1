//! Kinematic movement (Millington §3.2): outputs are velocities (m/s) and rotations (rad/s), with no
//! acceleration. Apply them with
//! [`Kinematic::apply_kinematic`](crate::kinematic::Kinematic::apply_kinematic) and set the
//! facing with [`new_orientation`](crate::math::new_orientation) (the book's side effect, made
//! explicit).

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{KinematicSteeringOutput, Limits, Static};
use crate::math::Rng;
use crate::math::{as_vector, Vector};
use glam::Vec2;

/// Kinematic seek: full speed toward the target, `v = normalize(target − p) · max_speed`.
/// On the target it requests standing still. It overshoots a fixed target and wiggles round it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KinematicSeek;

impl KinematicSeek {
    /// The velocity toward `target`.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Static<V>,
        target: V,
        limits: &Limits,
    ) -> KinematicSteeringOutput<V> {
        full_speed(target - character.position, limits)
    }
}

/// Kinematic flee: full speed directly away, `v = normalize(p − threat) · max_speed`; standing
/// still when exactly on the threat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KinematicFlee;

impl KinematicFlee {
    /// The velocity away from `threat` (erratum E3: the result, not a stray variable).
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Static<V>,
        threat: V,
        limits: &Limits,
    ) -> KinematicSteeringOutput<V> {
        full_speed(character.position - threat, limits)
    }
}

/// Full speed along `direction` with no rotation; standing still for a zero direction.
fn full_speed<V: Vector>(direction: V, limits: &Limits) -> KinematicSteeringOutput<V> {
    KinematicSteeringOutput {
        velocity: direction.normalize_or_zero() * limits.max_speed(),
        rotation: V::ANGULAR_ZERO,
    }
}

/// Kinematic arrive: `v = (target − p) / time_to_target`, clipped to `max_speed`; standing still
/// inside the satisfaction `radius` (strict `<`). With `time_to_target = 0.25` s, 1 m away gives
/// 4 m/s and 0.25 m away gives 1 m/s.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KinematicArrive {
    radius: f32,
    time_to_target: f32,
}

impl KinematicArrive {
    /// Arrive with a satisfaction radius (m) and a time to target (s; the book uses 0.25).
    ///
    /// # Errors
    /// If the radius is negative or the time is not positive (or either is not finite).
    pub fn new(radius: f32, time_to_target: f32) -> Result<Self, ParamError> {
        Ok(KinematicArrive {
            radius: non_negative("radius", radius)?,
            time_to_target: positive("time_to_target", time_to_target)?,
        })
    }

    /// True when `position` is within the satisfaction radius of `target`.
    #[must_use]
    pub fn is_inside<V: Vector>(&self, position: V, target: V) -> bool {
        (target - position).length_squared() < self.radius * self.radius
    }

    /// The velocity toward `target`, or standing still inside the radius.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Static<V>,
        target: V,
        limits: &Limits,
    ) -> KinematicSteeringOutput<V> {
        let velocity = if self.is_inside(character.position, target) {
            V::ZERO
        } else {
            ((target - character.position) / self.time_to_target)
                .clamp_length_max(limits.max_speed())
        };
        KinematicSteeringOutput { velocity, rotation: V::ANGULAR_ZERO }
    }
}

/// Kinematic wander: full speed along the current orientation while the orientation is kicked by
/// a random rotation: `v = max_speed · ô`, `rotation = binomial() · rate / √dt`, so the heading
/// changes by `binomial() · rate · √dt` per step (a random walk independent of the frame rate;
/// `rate` in rad/√s). The turning is jerky: compare [`Wander`](crate::steering::Wander).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KinematicWander {
    rate: f32,
    rng: Rng,
}

impl KinematicWander {
    /// Wander with a random-walk `rate` (rad/√s) and a seed.
    ///
    /// # Errors
    /// If `rate` is negative or not finite.
    pub fn new(rate: f32, seed: u64) -> Result<Self, ParamError> {
        Ok(KinematicWander { rate: non_negative("wander_rate", rate)?, rng: Rng::new(seed) })
    }

    /// The velocity and rotation for the next `dt` seconds. `dt = 0` requests no rotation.
    pub fn steer(
        &mut self,
        character: &Static<Vec2>,
        limits: &Limits,
        dt: f32,
    ) -> KinematicSteeringOutput<Vec2> {
        let kick = self.rng.binomial() * self.rate;
        KinematicSteeringOutput {
            velocity: as_vector(character.orientation) * limits.max_speed(),
            rotation: if dt > 0.0 { kick / dt.sqrt() } else { 0.0 },
        }
    }
}
