//! The components a game puts on its entities, and the messages the plugin sends. Every
//! component is live: a change made by the game reaches the crowd at the next fixed step.

use crate::Space;
use bevy_ecs::prelude::*;
use bevy_math::Vec2;
use bevy_transform::components::Transform;
use steerkit::crowd::{AgentHandle, Group, PathId, Recipe};
use steerkit::kinematic::{Kinematic, Limits};

/// An agent of the crowd: its body radius (m) and limits. Needs a `Transform`. Changing either
/// applies at the next step; removing the component (or despawning) takes the agent out. An
/// agent whose behaviour has `remove_on_arrival` set leaves the crowd at the end of the step it
/// arrives in: the plugin sends its [`SteerMessage::Arrived`], sets its `Transform` to where it
/// arrived and removes this component and its [`SteerState`]; the entity and its other
/// components stay (inserting a `SteerAgent` again brings it back as a new agent).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct SteerAgent {
    /// Body radius (m).
    pub radius: f32,
    /// Speed and acceleration limits.
    pub limits: Limits,
}

impl SteerAgent {
    /// An agent of `radius` m with `limits`.
    #[must_use]
    pub fn new(radius: f32, limits: Limits) -> Self {
        SteerAgent { radius, limits }
    }
}

/// What an agent does: a crowd group (recipe and settings) whose recipe names entities: agents,
/// or any entity with a `Transform` (tracked by it, its velocity estimated from its motion). Agents
/// with equal behaviours share one crowd group. Changing the component changes the agent's
/// group at the next step; removing it stops the steering (the agent drifts under its own
/// inertia and is still avoided).
#[derive(Component, Clone, Debug, PartialEq)]
pub struct SteerBehaviour<V: Space>(pub Group<V, Entity, PathId>);

impl<V: Space> SteerBehaviour<V> {
    /// A behaviour running `recipe` with the group's default settings (a constructor that
    /// works through the aliases, e.g. `SteerBehaviour2d::new(..)`).
    #[must_use]
    pub fn new(recipe: Recipe<V, Entity, PathId>) -> Self {
        SteerBehaviour(Group::new(recipe))
    }
}

impl<V: Space> From<Group<V, Entity, PathId>> for SteerBehaviour<V> {
    fn from(group: Group<V, Entity, PathId>) -> Self {
        SteerBehaviour(group)
    }
}

/// Where an agent is going: a point, or an entity whose `Transform` is followed (the goal of
/// [`Target::Goal`](steerkit::crowd::Target::Goal) leaves). `None`, or removing the component,
/// clears the agent's goal at the next step (its goal leaves then have nothing to say).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub enum SteerGoal<V: Space> {
    /// No goal.
    None,
    /// A fixed point (m).
    Point(V),
    /// Another entity's current position. When the entity goes (or loses its `Transform`) the
    /// goal becomes the point where the agent can stop, with [`SteerMessage::GoalLost`].
    Entity(Entity),
}

/// A static obstacle or wall ([`Obstacle`](steerkit::geometry::Obstacle) in 2D,
/// [`Obstacle3`](steerkit::geometry::Obstacle3) in 3D) given in the entity's
/// local frame and placed by its `Transform` (translation and rotation; a turned 2D box becomes
/// a polygon; 3D boxes stay axis-aligned). While any exist, these components are the crowd's
/// static world: adding, changing, moving or removing one rebuilds it (O(n log n) in the
/// number of obstacles) before the next step. A shape that cannot be placed or is invalid is
/// left out, reported once by its entity ([`SteerMessage::Rejected`]), and the others apply.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct SteerObstacle<V: Space>(pub V::Shape);

impl<V: Space> SteerObstacle<V> {
    /// An obstacle of `shape`, in the entity's local frame (works through the aliases).
    #[must_use]
    pub fn new(shape: V::Shape) -> Self {
        SteerObstacle(shape)
    }
}

/// A formation of agent entities (2D): a manager (pattern, anchor, assignment), its members
/// and the recipe that steers its anchor (which may name entities). Put it on an entity of its
/// own: the plugin runs the formation once every member is an agent and moves this entity's
/// `Transform` with the anchor. Members steer to their slots with
/// [`Recipe::Slot`](steerkit::crowd::Recipe::Slot) in their [`SteerBehaviour`]; a despawned
/// member leaves and the slots are reassigned. Changing the component forms the squad anew
/// (from the anchor's current state); removing it or despawning its entity disbands the squad
/// (the members keep their state and have no slot any more).
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct SteerFormation {
    /// The manager (empty: the plugin adds the members).
    pub manager: steerkit::formation::FormationManager,
    /// The member entities.
    pub members: Vec<Entity>,
    /// What steers the anchor.
    pub anchor: Recipe<Vec2, Entity, PathId>,
}

/// The crowd formation a [`SteerFormation`] runs as (added by the plugin).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteerFormationId(pub steerkit::crowd::FormationId);

/// The agent's last two states as the crowd computed them (for interpolation, and the game's
/// read-out); added by the plugin in the step the agent joins the crowd (before that step's
/// crowd step, which then updates it: `previous` is the state it joined with), removed when it
/// leaves.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct SteerState<V: Space> {
    /// The state before the last fixed step.
    pub previous: Kinematic<V>,
    /// The state after it.
    pub current: Kinematic<V>,
    /// The `Transform` the plugin wrote last (a different one is a teleport).
    pub(crate) written: Option<Transform>,
    /// The agent in the crowd.
    pub(crate) handle: AgentHandle,
}

impl<V: Space> SteerState<V> {
    /// The entity's agent in [`SteerCrowd::crowd`](crate::SteerCrowd::crowd).
    #[must_use]
    pub fn handle(&self) -> AgentHandle {
        self.handle
    }
}

/// Makes an agent **game-moved**: the plugin computes its steering as for any agent and
/// publishes the velocity it would give it here after every step (within the agent's limits;
/// the heading is in [`SteerState::current`]), but never writes its `Transform`. The game
/// moves the body itself (its own physics, character controller or speed rules), and before
/// every step the plugin reads the `Transform` back into the crowd with the body's velocity:
/// its [`SteerVelocity`] if it has one, else estimated from its motion between steps (so move
/// the body after `SteerSystems::Step` in the plugin's schedule, or report its velocity). Put
/// it on the agents the game moves (any mix with plugin-moved ones); remove it to hand the body
/// back.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct SteerDesiredVelocity<V: Space>(pub V);

/// The velocity (m/s) of a game-moved agent's body as the game's physics reports it, read
/// into the crowd before every step (without it the velocity is estimated from the body's
/// motion). Ignored on agents the plugin moves.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct SteerVelocity<V: Space>(pub V);

/// Something that happened to an agent in a step.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub enum SteerMessage {
    /// Came within its group's arrive radius of its goal (once per goal).
    Arrived(Entity),
    /// Reached the end of an open path.
    PathFinished(Entity),
    /// Made no progress for its group's stuck time.
    Stuck(Entity),
    /// Two bodies overlapped (with `CrowdConfig::collision_events`).
    Collision(Entity, Entity),
    /// Touched a solid obstacle.
    ObstacleContact(Entity),
    /// Met a wall.
    WallContact(Entity),
    /// Its state became non-finite; it is frozen.
    Quarantined(Entity),
    /// Its goal entity went (despawned, or lost its `Transform`): its [`SteerGoal`] became the
    /// point where it can stop from its speed at its acceleration limit, so it slows to a halt
    /// there instead of coasting.
    GoalLost(Entity),
    /// Its goal cannot be reached on the navigation mesh (once per goal): it stops at the
    /// reachable point nearest the goal (feature `navigation`).
    GoalUnreachable(Entity),
    /// A component the crowd could not take, reported once per problem: an agent refused (a
    /// negative radius, a non-finite position: left out until its `SteerAgent` or `Transform`
    /// changes), a behaviour refused, an obstacle that cannot be placed (the others still
    /// apply), a formation refused.
    Rejected {
        /// The entity whose component was refused.
        entity: Entity,
        /// Why, in one line.
        reason: String,
    },
}
