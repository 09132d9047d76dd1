//! Behaviours of the user's own, run by the crowd as recipe leaves ([`Recipe::Custom`]).
//!
//! A game registers an implementation of [`CustomBehaviour`] with
//! [`Crowd::add_behaviour`](crate::crowd::Crowd::add_behaviour) and names the returned
//! [`BehaviourId`] in any recipe, where it composes inside blends, priority groups, running sums
//! and dithering like a built-in leaf. It sees what built-in leaves see ([`AgentContext`]) and
//! draws randomness only from the agent's own generator, so the step stays deterministic and
//! bit-identical for any thread count.

use std::fmt;
use std::sync::Arc;

use super::{Context, Notes, Recipe};
use crate::crowd::{AgentHandle, CrowdVector};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Rng;
use crate::math::Vector;
use crate::neighbours::Neighbour;

/// Index of a behaviour registered with a crowd (`Crowd::add_behaviour`); meaningful only for
/// that crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BehaviourId(pub u32);

/// A behaviour of the user's own for crowd agents ("flee the fire", "stay in the light").
///
/// `steer` is called once per agent per step from the crowd's compute phase, possibly on
/// several threads at once (hence `Send + Sync` and `&self`): keep per-agent memory out of
/// the behaviour, or in the agent's generator's draws. Its output is accelerations (m/s²,
/// rad/s²) like any leaf's; `None` means nothing to say.
///
/// ```
/// use steerkit::crowd::{AgentContext, CustomBehaviour};
/// use steerkit::kinematic::SteeringOutput;
/// use steerkit::Vec2;
///
/// /// Flee a fire at a fixed place while within 6 m of it.
/// struct FleeFire(Vec2);
///
/// impl CustomBehaviour for FleeFire {
///     fn steer(&self, agent: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
///         let away = agent.kinematic().position - self.0;
///         (away.length() < 6.0).then(|| {
///             SteeringOutput::linear(away.normalize_or_zero() * agent.limits().max_acceleration())
///         })
///     }
/// }
/// ```
pub trait CustomBehaviour<V: CrowdVector = glam::Vec2>: Send + Sync {
    /// The steering for the agent `agent` describes, from the state at the start of the step.
    fn steer(&self, agent: &mut AgentContext<'_, '_, V>) -> Option<SteeringOutput<V>>;

    /// True when the behaviour reads [`AgentContext::neighbours`]; the crowd gathers them only
    /// for recipes that need them. Default: false (the list is then empty).
    fn needs_neighbours(&self) -> bool {
        false
    }
}

/// A registered behaviour, shared by clones of the crowd.
#[derive(Clone)]
pub(crate) struct CustomEntry<V: CrowdVector>(pub Arc<dyn CustomBehaviour<V>>);

impl<V: CrowdVector> fmt::Debug for CustomEntry<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomBehaviour")
    }
}

/// What a custom behaviour sees of one agent during the step: the same view the built-in
/// leaves get.
pub struct AgentContext<'c, 'a, V: CrowdVector = glam::Vec2> {
    pub(crate) cx: &'c Context<'a, V>,
    pub(crate) rng: &'c mut Rng,
    pub(crate) notes: &'c mut Notes<V>,
}

impl<V: CrowdVector> AgentContext<'_, '_, V> {
    /// The agent's position, orientation, velocity and rotation.
    #[must_use]
    pub fn kinematic(&self) -> &Kinematic<V> {
        &self.cx.me
    }

    /// The agent's limits.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        self.cx.limits
    }

    /// The agent's body radius (m).
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.cx.radius
    }

    /// The step's duration (s).
    #[must_use]
    pub fn dt(&self) -> f32 {
        self.cx.dt
    }

    /// The agent's goal (`Crowd::set_goal`), if any.
    #[must_use]
    pub fn goal(&self) -> Option<V> {
        self.cx.goal
    }

    /// The neighbours within the crowd's neighbour radius (and the group's view cone), when
    /// [`CustomBehaviour::needs_neighbours`] says so; empty otherwise.
    #[must_use]
    pub fn neighbours(&self) -> &[Neighbour<V>] {
        self.cx.neighbours
    }

    /// The crowd's static world, if set: an [`ObstacleSet`](crate::geometry::ObstacleSet)
    /// (obstacles and walls) in 2D, an [`ObstacleSet3`](crate::geometry::ObstacleSet3) in 3D.
    #[must_use]
    pub fn obstacles(&self) -> Option<&V::Obstacles> {
        self.cx.obstacles
    }

    /// Another agent's kinematic at the start of the step; `None` when it is gone or
    /// quarantined.
    #[must_use]
    pub fn agent(&self, handle: AgentHandle) -> Option<Kinematic<V>> {
        self.cx.agents.kinematic(handle)
    }

    /// The agent's own generator (seeded from the world seed and the agent): the only
    /// randomness that keeps the step deterministic.
    pub fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    /// Records the point the behaviour steers for, drawn by replays as the agent's target.
    pub fn set_target(&mut self, point: V) {
        self.notes.target = Some(point);
    }
}

/// Checks that every custom leaf of `recipe` names a registered behaviour.
pub(crate) fn check_ids<V: Vector>(
    recipe: &Recipe<V>,
    registered: usize,
) -> Result<(), crate::error::ParamError> {
    let mut bad = None;
    recipe.for_each_leaf(&mut |r| {
        if let Recipe::Custom(id) = r {
            if id.0 as usize >= registered {
                bad = Some(id.0);
            }
        }
    });
    match bad {
        Some(_) => Err(crate::error::ParamError::Invalid {
            name: "custom",
            expected: "the id of a behaviour registered with this crowd (`Crowd::add_behaviour`)",
        }),
        None => Ok(()),
    }
}
