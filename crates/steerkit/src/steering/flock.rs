//! Flocking presets (Reynolds' boids as Millington §3.4.2 and Buckland describe them): separation,
//! alignment and cohesion over one neighbourhood, combined with weights.
//!
//! The neighbours come as an iterator of [`Neighbour`]s (from any query; it must not contain the
//! agent itself) and are read in **one pass**: the neighbourhood test (radius, optional view
//! cone) filters them, separation consumes them, and the sums for the centre of mass and the
//! mean velocity or heading are gathered on the way. Nothing allocates.

use super::group::{Alignment, Falloff, Separation};
use super::seek::{Arrive, Seek, VelocityMatch};
use super::wander::WanderJitter;
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{truncated_running_sum, weighted_blend, Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::neighbours::Neighbour;
use glam::Vec2;

/// Which neighbours a flock member answers to: those within `radius` m, and, with a view angle,
/// only those inside the cone of that half angle around the direction of motion (the facing when
/// still): Reynolds' angular cut-off (Millington Fig. 3.32; Buckland's FOV tip).
///
/// A neighbour at offset `Δ` is in when `|Δ|² ≤ radius²` and, with a view, `Δ·f̂ ≥ |Δ|·cos(half)`
/// (a coincident neighbour is always in).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Neighbourhood {
    radius: f32,
    cos_half_angle: Option<f32>,
}

impl Neighbourhood {
    /// All round, within `radius` m.
    ///
    /// # Errors
    /// If `radius` is negative or not finite.
    pub fn new(radius: f32) -> Result<Self, ParamError> {
        Ok(Neighbourhood { radius: non_negative("radius", radius)?, cos_half_angle: None })
    }

    /// The same neighbourhood restricted to a view cone of `half_angle` rad (π sees all round;
    /// Buckland's 270° field of view is `3π/4`).
    ///
    /// # Errors
    /// If `half_angle` is outside [0, π].
    pub fn with_view_angle(self, half_angle: f32) -> Result<Self, ParamError> {
        non_negative("half_angle", half_angle)?;
        if half_angle > core::f32::consts::PI {
            return Err(ParamError::OutOfRange {
                name: "half_angle",
                value: half_angle,
                range: "at most π",
            });
        }
        Ok(Neighbourhood { cos_half_angle: Some(half_angle.cos()), ..self })
    }

    /// The radius (m).
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// True when the neighbour at `offset` (neighbour − character) is in, for a character whose
    /// unit facing is `facing`.
    #[must_use]
    #[inline]
    pub fn contains<V: Vector>(&self, offset: V, facing: V) -> bool {
        let d2 = offset.length_squared();
        if d2 > self.radius * self.radius {
            return false;
        }
        match self.cos_half_angle {
            Some(c) if c > -1.0 => offset.dot(facing) >= c * d2.sqrt(),
            _ => true,
        }
    }
}

/// Weights of the flocking members (free: they need not sum to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FlockWeights {
    /// Separation.
    pub separation: f32,
    /// Alignment (velocity matching or heading alignment).
    pub alignment: f32,
    /// Cohesion.
    pub cohesion: f32,
    /// Wander (Buckland's flock only).
    pub wander: f32,
}

impl FlockWeights {
    /// Millington's simple flocking: equal weights (1, 1, 1); he notes that separation > cohesion
    /// > alignment looks more biological.
    pub const MILLINGTON: FlockWeights =
        FlockWeights { separation: 1.0, alignment: 1.0, cohesion: 1.0, wander: 0.0 };
    /// Buckland's demo weights relative to each other: separation 1, alignment 1, cohesion 2,
    /// wander 1 (his `params.ini`, all × 200 in his force units).
    pub const BUCKLAND: FlockWeights =
        FlockWeights { separation: 1.0, alignment: 1.0, cohesion: 2.0, wander: 1.0 };
}

/// What one pass over the neighbourhood gathers.
struct Gathered<V: Vector> {
    separation: Option<SteeringOutput<V>>,
    count: u32,
    position_sum: V,
    velocity_sum: V,
}

impl<V: Vector> Gathered<V> {
    /// The mean velocity (or heading) and the centre of mass, with at least one neighbour.
    fn means(&self) -> Option<(V, V)> {
        (self.count > 0).then(|| {
            let n = self.count as f32;
            (self.velocity_sum / n, self.position_sum / n)
        })
    }
}

fn gather<'a, V: Vector>(
    neighbourhood: &Neighbourhood,
    separation: &Separation,
    character: &Kinematic<V>,
    own_radius: f32,
    neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
    headings: bool,
    limits: &Limits,
) -> Gathered<V> {
    let moving = character.velocity.normalize_or_zero();
    let facing = if moving == V::ZERO { V::forward(character.orientation) } else { moving };
    let (mut count, mut position_sum, mut velocity_sum) = (0u32, V::ZERO, V::ZERO);
    let inside = neighbours
        .into_iter()
        .filter(|n| neighbourhood.contains(n.position - character.position, facing))
        .inspect(|n| {
            count += 1;
            position_sum += n.position;
            velocity_sum += if headings { n.velocity.normalize_or_zero() } else { n.velocity };
        });
    let separation = separation.steer(character, own_radius, inside, limits);
    Gathered { separation, count, position_sum, velocity_sum }
}

/// Millington's flocking (§3.4.2): a weighted blend of separation, velocity matching to the
/// neighbours' mean velocity, and cohesion as an arrive at their centre of mass, truncated to
/// the limits ([`blend`](crate::combine::blend)).
///
/// ```text
/// a = clip(w_s·separation + w_a·velocity_match(mean v) + w_c·arrive(centre of mass))
/// ```
/// Members with nothing to say (no neighbours) count as zero. Contributions are reported in the
/// order separation (0), alignment (1), cohesion (2). Generic over `Vec2` and `Vec3`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MillingtonFlock {
    /// Who counts as a neighbour.
    pub neighbourhood: Neighbourhood,
    /// Separation (applies its own threshold inside the neighbourhood).
    pub separation: Separation,
    /// Alignment by velocity matching.
    pub velocity_match: VelocityMatch,
    /// Cohesion: arrive at the centre of mass.
    pub cohesion: Arrive,
    /// The blend weights (wander unused).
    pub weights: FlockWeights,
}

impl MillingtonFlock {
    /// A flock with neighbourhood `radius` m and the defaults: separation within `radius / 2`
    /// (linear falloff), velocity matching with the book's `time_to_target` 0.1 s, cohesion
    /// arriving with slow radius `radius` and 0.1 s, equal weights.
    ///
    /// # Errors
    /// If `radius` is not finite and positive.
    pub fn new(radius: f32) -> Result<Self, ParamError> {
        positive("radius", radius)?;
        Ok(MillingtonFlock {
            neighbourhood: Neighbourhood::new(radius)?,
            separation: Separation::new(0.5 * radius, Falloff::Linear)?,
            velocity_match: VelocityMatch::new(0.1)?,
            cohesion: Arrive::new(0.0, radius, 0.1)?,
            weights: FlockWeights::MILLINGTON,
        })
    }

    /// The flocking acceleration (m/s²) for `character` of radius `own_radius` m.
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> SteeringOutput<V> {
        self.steer_observed(character, own_radius, neighbours, limits, |_, _| {})
    }

    /// [`steer`](Self::steer), calling `observe(member, weighted contribution)` for each member
    /// (0 separation, 1 alignment, 2 cohesion).
    pub fn steer_observed<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
        observe: impl FnMut(usize, SteeringOutput<V>),
    ) -> SteeringOutput<V> {
        let g = gather(
            &self.neighbourhood,
            &self.separation,
            character,
            own_radius,
            neighbours,
            false,
            limits,
        );
        self.combine(character, g.separation, g.means(), limits, observe)
    }

    /// The blend of the members from what the neighbours gave: the separation, and with at
    /// least one neighbour their mean velocity (m/s) and centre of mass (m). Shared by
    /// [`steer`](Self::steer) and the crowd engine's single neighbour pass.
    pub(crate) fn combine<V: Vector>(
        &self,
        character: &Kinematic<V>,
        separation: Option<SteeringOutput<V>>,
        means: Option<(V, V)>,
        limits: &Limits,
        observe: impl FnMut(usize, SteeringOutput<V>),
    ) -> SteeringOutput<V> {
        let (alignment, cohesion) = match means {
            Some((velocity, center)) => (
                self.velocity_match.steer(character, velocity, limits),
                self.cohesion.steer(character, center, limits),
            ),
            None => (None, None),
        };
        let w = &self.weights;
        weighted_blend(
            [(w.separation, separation), (w.alignment, alignment), (w.cohesion, cohesion)],
            limits,
            observe,
        )
    }
}

/// Buckland's flocking: separation, heading alignment, cohesion as a seek toward the centre of
/// mass, and an optional wander that keeps a lone agent moving, combined by his weighted
/// truncated running sum in that priority order
/// ([`running_sum`](crate::combine::running_sum)): separation is never diluted by the others.
///
/// Contributions are reported in the order separation (0), alignment (1), cohesion (2),
/// wander (3), for the members evaluated before the budget ran out.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BucklandFlock {
    /// Who counts as a neighbour.
    pub neighbourhood: Neighbourhood,
    /// Separation.
    pub separation: Separation,
    /// Heading alignment.
    pub alignment: Alignment,
    /// Cohesion: seek the centre of mass (full acceleration: Buckland normalises it).
    pub cohesion: Seek,
    /// The wander, if any.
    pub wander: Option<WanderJitter>,
    /// The weights.
    pub weights: FlockWeights,
}

impl BucklandFlock {
    /// A flock with neighbourhood `radius` m (Buckland's view distance) and the defaults:
    /// separation over the whole radius (linear falloff), heading alignment with a 0.5 s
    /// response, seek cohesion, Buckland's weights, and with `wander_seed` a jitter wander of
    /// radius 1.2, distance 2 and jitter 8 (per √s) in units of `radius / 10` (Buckland's circle
    /// proportions; his per-second jitter of 80 would re-randomise the target every frame here).
    ///
    /// # Errors
    /// If `radius` is not finite and positive.
    pub fn new(radius: f32, wander_seed: Option<u64>) -> Result<Self, ParamError> {
        positive("radius", radius)?;
        let unit = radius / 10.0;
        let wander = match wander_seed {
            Some(seed) => Some(WanderJitter::new(1.2 * unit, 2.0 * unit, 8.0 * unit, seed)?),
            None => None,
        };
        Ok(BucklandFlock {
            neighbourhood: Neighbourhood::new(radius)?,
            separation: Separation::new(radius, Falloff::Linear)?,
            alignment: Alignment::heading(0.5)?,
            cohesion: Seek::new(),
            wander,
            weights: FlockWeights::BUCKLAND,
        })
    }

    /// The flocking acceleration (m/s²); `dt` advances the wander.
    pub fn steer<'a>(
        &mut self,
        character: &Kinematic,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<Vec2>>,
        limits: &Limits,
        dt: f32,
    ) -> SteeringOutput {
        self.steer_observed(character, own_radius, neighbours, limits, dt, |_, _| {})
    }

    /// [`steer`](Self::steer), calling `observe(member, what it added)` for each member
    /// evaluated (0 separation, 1 alignment, 2 cohesion, 3 wander).
    pub fn steer_observed<'a>(
        &mut self,
        character: &Kinematic,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<Vec2>>,
        limits: &Limits,
        dt: f32,
        observe: impl FnMut(usize, SteeringOutput),
    ) -> SteeringOutput {
        let g = gather(
            &self.neighbourhood,
            &self.separation,
            character,
            own_radius,
            neighbours,
            true,
            limits,
        );
        // `combine` reads the weights, not the wander: lend the wander to the closure
        let mut wander = self.wander.take();
        let out = self.combine(
            character,
            g.separation,
            g.means(),
            || wander.as_mut().and_then(|wd| wd.steer(character, limits, dt)),
            limits,
            observe,
        );
        self.wander = wander;
        out
    }

    /// The running sum of the members from what the neighbours gave: the separation, and with
    /// at least one neighbour their mean velocity or heading (as the alignment wants) and
    /// centre of mass (m); `wander` is evaluated only if the budget is not yet spent. Shared by
    /// [`steer`](Self::steer) and the crowd engine's single neighbour pass.
    pub(crate) fn combine<V: Vector>(
        &self,
        character: &Kinematic<V>,
        separation: Option<SteeringOutput<V>>,
        means: Option<(V, V)>,
        wander: impl FnOnce() -> Option<SteeringOutput<V>>,
        limits: &Limits,
        observe: impl FnMut(usize, SteeringOutput<V>),
    ) -> SteeringOutput<V> {
        let (alignment, cohesion) = match means {
            Some((mean, center)) => (
                self.alignment.steer_toward_mean(character, mean, limits),
                self.cohesion.steer(character, center, limits),
            ),
            None => (None, None),
        };
        let w = self.weights;
        let members =
            [(w.separation, separation), (w.alignment, alignment), (w.cohesion, cohesion)]
                .into_iter()
                // the wander is evaluated (and its state advanced) only if the budget allows
                .chain(core::iter::once_with(|| (w.wander, wander())));
        truncated_running_sum(members, limits, observe)
    }
}
