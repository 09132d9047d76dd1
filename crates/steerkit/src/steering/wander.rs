//! Wandering: Millington's dynamic wander (§3.3.11; circle ahead + face) and Buckland's jittered
//! target on a circle.
//!
//! Randomness and frame rate: the random change per step is scaled by `√dt`, so the wander state
//! performs the same random walk (spread ∝ rate·√t) whatever the frame rate. A per-call change (the
//! book) or a change ∝ dt (Buckland's source) would make the motion depend on the frame rate; the
//! latter even vanishes as dt → 0.

use crate::error::{non_negative, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Rng;
use crate::math::{as_vector, Vector};
use crate::steering::Face;
use glam::Vec2;

/// Millington's wander: a target on a circle of `radius` placed `offset` ahead of the character
/// moves randomly round the circle; the character faces it and always accelerates forward.
///
/// ```text
/// θ_w    += binomial() · rate · √dt            (θ_w relative to the character's orientation)
/// target  = p + offset·ô + radius·(θ_w + o)^
/// angular = Face(target).angular   (0 when Face has nothing to say: erratum E16)
/// linear  = max_acceleration · ô
/// ```
/// `rate` is in rad/√s. Turning is smooth because the random numbers act on the target, two
/// integrations away from the orientation. The generator is owned and seeded: same seed, same
/// trajectory.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Wander {
    offset: f32,
    radius: f32,
    rate: f32,
    /// The face behaviour producing the angular part.
    pub face: Face,
    wander_orientation: f32,
    rng: Rng,
    target: Vec2,
}

impl Wander {
    /// A wander circle `offset` m ahead with `radius` m, a random-walk `rate` (rad/√s), and a seed.
    ///
    /// # Errors
    /// If a value is negative or not finite.
    pub fn new(
        offset: f32,
        radius: f32,
        rate: f32,
        face: Face,
        seed: u64,
    ) -> Result<Self, ParamError> {
        Ok(Wander {
            offset: non_negative("wander_offset", offset)?,
            radius: non_negative("wander_radius", radius)?,
            rate: non_negative("wander_rate", rate)?,
            face,
            wander_orientation: 0.0,
            rng: Rng::new(seed),
            target: Vec2::ZERO,
        })
    }

    /// The wander target chosen by the last call (world position), for debugging and drawing.
    #[must_use]
    pub fn target(&self) -> Vec2 {
        self.target
    }

    /// The circle's centre for a character, for drawing.
    #[must_use]
    pub fn circle_center(&self, character: &Kinematic<Vec2>) -> Vec2 {
        character.position + as_vector(character.orientation) * self.offset
    }

    /// Circle radius (m).
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Advances the wander state by `dt` seconds and returns the steering.
    pub fn steer(
        &mut self,
        character: &Kinematic<Vec2>,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<Vec2>> {
        let dt = dt.max(0.0);
        self.wander_orientation = crate::math::wrap_angle(
            self.wander_orientation + self.rng.binomial() * self.rate * dt.sqrt(),
        );
        let forward = as_vector(character.orientation);
        self.target = self.circle_center(character)
            + as_vector(self.wander_orientation + character.orientation) * self.radius;
        let angular = self.face.steer(character, self.target, limits).map_or(0.0, |s| s.angular);
        Some(SteeringOutput { linear: forward * limits.max_acceleration(), angular })
    }
}

/// Buckland's wander: a target on a circle of `radius` centred `distance` ahead, jittered by a
/// random displacement each step and pushed back onto the circle.
///
/// ```text
/// q      += (clamped(), clamped()) · jitter · √dt ;  q = normalize(q) · radius   (local space)
/// world   = p + rotate(o, q + (distance, 0))
/// linear  = (world − p) · max_acceleration / (distance + radius)
/// ```
/// Buckland returns the displacement `world − p` itself as a force (length ≤ distance + radius);
/// here it is scaled so the farthest possible target asks for exactly `max_acceleration`. `jitter`
/// is in m/√s. A far, small circle gives gentle undulation; a near, large one gives pirouettes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WanderJitter {
    radius: f32,
    distance: f32,
    jitter: f32,
    local_target: Vec2,
    rng: Rng,
}

impl WanderJitter {
    /// A circle of `radius` m, `distance` m ahead, with `jitter` m/√s and a seed. Buckland's
    /// defaults (in his units) are radius 1.2, distance 2, jitter 80 per second.
    ///
    /// # Errors
    /// If a value is negative or not finite.
    pub fn new(radius: f32, distance: f32, jitter: f32, seed: u64) -> Result<Self, ParamError> {
        let mut rng = Rng::new(seed);
        let start = as_vector(rng.uniform() * core::f32::consts::TAU);
        Ok(WanderJitter {
            radius: non_negative("wander_radius", radius)?,
            distance: non_negative("wander_distance", distance)?,
            jitter: non_negative("wander_jitter", jitter)?,
            local_target: start * radius,
            rng,
        })
    }

    /// The same circle as a world-space wander with its target and generator kept by the
    /// caller (how the crowd engine runs Buckland's flock): `WorldWander` in `V`'s space.
    #[must_use]
    pub fn world<V: Vector>(&self) -> WorldWander<V> {
        WorldWander {
            radius: self.radius,
            distance: self.distance,
            jitter: self.jitter,
            target: V::ZERO,
        }
    }

    /// The target on the circle in the circle's local frame (length = radius).
    #[must_use]
    pub fn local_target(&self) -> Vec2 {
        self.local_target
    }

    /// The target's world position for a character.
    #[must_use]
    pub fn world_target(&self, character: &Kinematic<Vec2>) -> Vec2 {
        character.position
            + Vec2::to_world(
                character.orientation,
                self.local_target + Vec2::new(self.distance, 0.0),
            )
    }

    /// Advances the jitter by `dt` seconds and returns the steering.
    pub fn steer(
        &mut self,
        character: &Kinematic<Vec2>,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<Vec2>> {
        let step = self.jitter * dt.max(0.0).sqrt();
        let jittered = self.local_target + Vec2::new(self.rng.clamped(), self.rng.clamped()) * step;
        // A jitter that lands exactly on the centre keeps the old direction.
        self.local_target =
            jittered.try_normalize().unwrap_or(self.local_target.normalize_or(Vec2::X))
                * self.radius;
        let reach = self.distance + self.radius;
        if reach == 0.0 {
            return None;
        }
        let displacement = self.world_target(character) - character.position;
        Some(SteeringOutput::linear(displacement * (limits.max_acceleration() / reach)))
    }
}

/// Buckland's jittered wander in world space, for 2D and 3D, with the generator supplied by
/// the caller (the crowd engine's per-agent one): a target `q` on a sphere of `radius` m
/// centred `distance` m ahead along the heading (the velocity's direction, else the facing),
/// jittered by up to `jitter·√dt` m per axis each step and pushed back onto the sphere.
///
/// ```text
/// q       = random_clamped()^ · radius            (first use: q = 0)
/// q      += random_clamped() · jitter · √dt ;  q = q̂ · radius   (q kept when it lands on 0)
/// target  = p + ĥ · distance + q
/// linear  = (target − p) · max_acceleration / (distance + radius)   (none when both are 0)
/// ```
/// Unlike [`WanderJitter`], the target lives in the world, not in the character's frame, so
/// it works the same in 3D; the per-character state is `q` ([`Stateful`](super::Stateful)).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldWander<V: Vector = Vec2> {
    radius: f32,
    distance: f32,
    jitter: f32,
    target: V,
}

impl<V: Vector> WorldWander<V> {
    /// A sphere of `radius` m, `distance` m ahead, jittered by `jitter` m/√s.
    ///
    /// # Errors
    /// If a value is negative or not finite (`wander_radius`, `wander_distance`,
    /// `wander_jitter`).
    pub fn new(radius: f32, distance: f32, jitter: f32) -> Result<Self, ParamError> {
        Ok(WorldWander {
            radius: non_negative("wander_radius", radius)?,
            distance: non_negative("wander_distance", distance)?,
            jitter: non_negative("wander_jitter", jitter)?,
            target: V::ZERO,
        })
    }

    /// The same wander in another space, its current target carried by `f`.
    pub(crate) fn map<W: Vector>(&self, f: impl Fn(V) -> W) -> WorldWander<W> {
        let WorldWander { radius, distance, jitter, target } = *self;
        WorldWander { radius, distance, jitter, target: f(target) }
    }

    /// (radius (m), distance (m), jitter (m/√s)).
    #[must_use]
    pub fn parameters(&self) -> (f32, f32, f32) {
        (self.radius, self.distance, self.jitter)
    }

    /// Jitters the target by `dt` seconds with `rng` and returns the acceleration toward it
    /// with the target point (m), or `None` when `distance + radius` is 0.
    pub fn steer(
        &mut self,
        character: &Kinematic<V>,
        limits: &Limits,
        rng: &mut Rng,
        dt: f32,
    ) -> Option<(SteeringOutput<V>, V)> {
        let mut q = self.target;
        if q == V::ZERO {
            q = V::random_clamped(rng).normalize_or_zero() * self.radius;
        }
        q += V::random_clamped(rng) * (self.jitter * dt.max(0.0).sqrt());
        let unit = q.normalize_or_zero();
        if unit != V::ZERO {
            q = unit * self.radius;
        }
        self.target = q;
        let heading = match character.velocity.normalize_or_zero() {
            h if h == V::ZERO => V::forward(character.orientation),
            h => h,
        };
        let reach = self.distance + self.radius;
        if reach <= 0.0 {
            return None;
        }
        let to_target = heading * self.distance + q;
        let linear = to_target * (limits.max_acceleration() / reach);
        Some((SteeringOutput::linear(linear), character.position + to_target))
    }
}

impl<V: Vector> super::Stateful for WorldWander<V> {
    type State = V;

    fn state(&self) -> V {
        self.target
    }

    fn with_state(mut self, target: V) -> Self {
        self.target = target;
        self
    }
}
