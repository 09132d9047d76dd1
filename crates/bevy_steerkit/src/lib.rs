//! steerkit in Bevy: steering behaviours, crowds and formations as components, stepped in
//! `FixedUpdate` with the fixed timestep as `dt` and interpolated for rendering.
//!
//! ```
//! use bevy_app::App;
//! use bevy_ecs::prelude::*;
//! use bevy_steerkit::{SteerAgent, SteerBehaviour, SteerGoal, SteerkitPlugin2d};
//! use steerkit::crowd::{CrowdConfig, Group, Recipe, Target};
//! use steerkit::steering::Arrive;
//! use steerkit::kinematic::Limits;
//! use steerkit::Vec2;
//!
//! let mut app = App::new();
//! app.add_plugins((bevy_time::TimePlugin, SteerkitPlugin2d::new(CrowdConfig::new(2.0))));
//! let arrive = Arrive::new(0.2, 2.0, 0.25).unwrap();
//! app.world_mut().spawn((
//!     SteerAgent::new(0.3, Limits::new(2.0, 4.0, 4.0, 20.0).unwrap()),
//!     SteerBehaviour::<Vec2>(Group::new(Recipe::Arrive { target: Target::Goal, arrive })),
//!     SteerGoal::Point(Vec2::new(5.0, 0.0)),
//! ));
//! app.update();
//! ```
//!
//! - [`SteerkitPlugin`] ([`SteerkitPlugin2d`], [`SteerkitPlugin3d`]) owns a
//!   [`steerkit::crowd::Crowd`] in the [`SteerCrowd`] resource and steps it in `FixedUpdate`.
//! - An entity with a [`SteerAgent`] (radius, limits) and a `Transform` enters the crowd; its
//!   [`SteerBehaviour`] is a crowd [`Group`] whose recipe names other **entities** (pursue an
//!   entity, offset-pursue a leader, interpose between two); [`SteerGoal`] is a point or an
//!   entity to arrive at. Despawning an entity (or removing its `SteerAgent`) takes it out; a
//!   behaviour that named it has nothing to say about it any more.
//! - `Transform` is written in `PostUpdate`, interpolated between the last two fixed steps; a
//!   `Transform` changed by the game (a teleport) moves the agent there at the next step.
//! - [`SteerMessage`]s report arrivals, finished paths, stuck agents and contacts.
//! - [`SteerObstacle`] entities are the crowd's static world (placed by their `Transform`);
//!   [`SteerFormation`] runs a formation of entities (2D).
//! - Paths and the game's own behaviours (`CustomBehaviour`) go straight to the crowd:
//!   [`SteerCrowd::crowd_mut`].
//! - [`debug::draw_crowd`] draws the crowd's debug layers with any pen; with the feature `debug`,
//!   `debug::SteerkitDebugPlugin` draws them with gizmos every frame.
//!
//! 2D worlds use the x–y plane (the heading is a rotation about +z); 3D worlds are y-up with the
//! body looking down its local +x axis, the crowd's convention.

pub mod debug;
mod groups;
#[cfg(feature = "scenario")]
pub mod scenario;

use bevy_app::{App, FixedUpdate, Plugin, PostUpdate};
use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec2, Vec3};
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use bevy_transform::TransformSystems;
use steerkit::crowd::{
    AgentHandle, AgentSpec, Crowd, CrowdConfig, CrowdEvent, CrowdVector, Group, GroupId, PathId,
    Recipe, WorldBounds,
};
use steerkit::geometry::{
    Aabb, Circle, Obstacle, Obstacle3, ObstacleSet, ObstacleSet3, Polygon, Segment, Sphere,
};
use steerkit::kinematic::{Kinematic, Limits};

/// A space the plugin runs in: how a crowd state maps to a `Transform` and back.
pub trait Space: CrowdVector {
    /// The position and orientation a `Transform` stands for.
    fn from_transform(t: &Transform) -> (Self, Self::Orientation);
    /// Writes a position and orientation into a `Transform` (2D keeps its `z`).
    fn to_transform(position: Self, orientation: Self::Orientation, t: &mut Transform);
    /// The orientation a fraction `s` of the way from `a` to `b` (the shorter way).
    fn blend(a: Self::Orientation, b: Self::Orientation, s: f32) -> Self::Orientation;
    /// Systems of this space only (2D: formations).
    fn add_space_systems(_app: &mut App) {}
    /// The smallest component of a box's size (m).
    fn narrowest(size: Self) -> f32;
    /// A static obstacle of this space ([`Obstacle`] in 2D, [`Obstacle3`] in 3D).
    type Shape: Clone + PartialEq + Send + Sync + core::fmt::Debug + 'static;
    /// A shape given in an entity's local frame, placed in the world by its `Transform`
    /// (translation and rotation; a scale other than 1 is refused).
    ///
    /// # Errors
    /// A one-line reason the shape cannot be placed.
    fn place(shape: &Self::Shape, t: &Transform) -> Result<Self::Shape, String>;
    /// The shapes of a static world.
    fn shapes(world: &Self::Obstacles) -> Vec<Self::Shape>;
    /// The crowd's static world from placed shapes.
    ///
    /// # Errors
    /// The library's reason a shape is invalid.
    fn world(shapes: Vec<Self::Shape>) -> Result<Self::Obstacles, String>;
}

/// The refusal of a scaled obstacle `Transform`.
fn unscaled(t: &Transform) -> Result<(), String> {
    if t.scale == Vec3::ONE {
        Ok(())
    } else {
        Err(format!(
            "obstacle Transform scale {} is not allowed: give the shape its size, scale must be 1",
            t.scale
        ))
    }
}

impl Space for Vec2 {
    fn from_transform(t: &Transform) -> (Vec2, f32) {
        let x = t.rotation * Vec3::X;
        (t.translation.truncate(), x.y.atan2(x.x))
    }

    fn to_transform(position: Vec2, orientation: f32, t: &mut Transform) {
        t.translation = position.extend(t.translation.z);
        t.rotation = Quat::from_rotation_z(orientation);
    }

    fn blend(a: f32, b: f32, s: f32) -> f32 {
        a + steerkit::math::wrap_angle(b - a) * s
    }

    fn narrowest(size: Vec2) -> f32 {
        size.min_element()
    }

    type Shape = Obstacle;

    fn place(shape: &Obstacle, t: &Transform) -> Result<Obstacle, String> {
        unscaled(t)?;
        let (offset, angle) = Vec2::from_transform(t);
        let turn = Vec2::from_angle(angle);
        let to_world = |p: Vec2| offset + turn.rotate(p);
        let polygon = |p: Result<Polygon, steerkit::ParamError>| {
            p.and_then(|p| p.transformed(angle, offset))
                .map(Obstacle::Polygon)
                .map_err(|e| e.to_string())
        };
        Ok(match shape {
            Obstacle::Circle(c) => Obstacle::Circle(Circle::new(to_world(c.center), c.radius)),
            Obstacle::Wall(w) => Obstacle::Wall(Segment::new(to_world(w.a), to_world(w.b))),
            Obstacle::Polygon(p) => polygon(Ok(p.clone()))?,
            // a turned box is a polygon
            Obstacle::Box(b) if angle != 0.0 => polygon(Polygon::rectangle(b.min, b.max))?,
            Obstacle::Box(b) => Obstacle::Box(Aabb::new(b.min + offset, b.max + offset)),
        })
    }

    fn shapes(world: &ObstacleSet) -> Vec<Obstacle> {
        world.obstacles().to_vec()
    }

    fn world(shapes: Vec<Obstacle>) -> Result<ObstacleSet, String> {
        ObstacleSet::new(shapes).map_err(|e| e.to_string())
    }

    fn add_space_systems(app: &mut App) {
        app.add_systems(
            FixedUpdate,
            (
                form_up.in_set(SteerSystems::Step).before(step::<Vec2>),
                move_anchors.in_set(SteerSystems::Step).after(step::<Vec2>),
            ),
        );
    }
}

impl Space for Vec3 {
    fn from_transform(t: &Transform) -> (Vec3, Quat) {
        (t.translation, t.rotation)
    }

    fn to_transform(position: Vec3, orientation: Quat, t: &mut Transform) {
        t.translation = position;
        t.rotation = orientation;
    }

    fn blend(a: Quat, b: Quat, s: f32) -> Quat {
        a.slerp(b, s)
    }

    fn narrowest(size: Vec3) -> f32 {
        size.min_element()
    }

    type Shape = Obstacle3;

    fn place(shape: &Obstacle3, t: &Transform) -> Result<Obstacle3, String> {
        unscaled(t)?;
        Ok(match shape {
            Obstacle3::Sphere(s) => {
                Obstacle3::Sphere(Sphere::new(t.translation + t.rotation * s.center, s.radius))
            }
            Obstacle3::Box(b) if t.rotation.angle_between(Quat::IDENTITY) > 1e-6 => {
                return Err(format!(
                    "box obstacle rotation {} is not allowed: 3D boxes are axis-aligned, the \
                     rotation must be the identity",
                    t.rotation
                ))
            }
            Obstacle3::Box(b) => {
                Obstacle3::Box(Aabb::new(b.min + t.translation, b.max + t.translation))
            }
        })
    }

    fn shapes(world: &ObstacleSet3) -> Vec<Obstacle3> {
        world.obstacles().to_vec()
    }

    fn world(shapes: Vec<Obstacle3>) -> Result<ObstacleSet3, String> {
        ObstacleSet3::new(shapes).map_err(|e| e.to_string())
    }
}

/// An agent of the crowd: its body radius (m) and limits. Needs a `Transform`.
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

/// What an agent does: a crowd group (recipe and settings) whose recipe names entities. Agents
/// with equal behaviours share one crowd group. Changing the component changes the agent's
/// group at the next step.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct SteerBehaviour<V: Space>(pub Group<V, Entity, PathId>);

/// Where an agent is going: a point, or an entity whose `Transform` is followed (the goal of
/// [`Target::Goal`](steerkit::crowd::Target::Goal) leaves).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub enum SteerGoal<V: Space> {
    /// A fixed point (m).
    Point(V),
    /// Another entity's current position (none while it has no `Transform`).
    Entity(Entity),
}

/// A static obstacle or wall ([`Obstacle`] in 2D, [`Obstacle3`] in 3D) given in the entity's
/// local frame and placed by its `Transform` (translation and rotation; a turned 2D box becomes
/// a polygon; 3D boxes stay axis-aligned). While any exist, these components are the crowd's
/// static world: adding, changing, moving or removing one rebuilds it (O(n log n) in the
/// number of obstacles) before the next step. A shape that cannot be placed is left out and
/// reported in [`SteerCrowd::errors`].
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct SteerObstacle<V: Space>(pub V::Shape);

/// A formation of agent entities (2D): a manager (pattern, anchor, assignment), its members
/// and the recipe that steers its anchor (which may name entities). Put it on an entity of its
/// own: the plugin runs the formation once every member is an agent and moves this entity's
/// `Transform` with the anchor. Members steer to their slots with
/// [`Recipe::Slot`](steerkit::crowd::Recipe::Slot) in their [`SteerBehaviour`]; a despawned
/// member leaves and the slots are reassigned.
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

/// The agent's last two fixed-step states (for interpolation) as the crowd computed them;
/// added by the plugin.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct SteerState<V: Space> {
    /// The state before the last fixed step.
    pub previous: Kinematic<V>,
    /// The state after it.
    pub current: Kinematic<V>,
    /// The `Transform` the plugin wrote last (a different one is a teleport).
    written: Option<Transform>,
    /// The agent in the crowd.
    handle: AgentHandle,
}

impl<V: Space> SteerState<V> {
    /// The entity's agent in [`SteerCrowd::crowd`].
    #[must_use]
    pub fn handle(&self) -> AgentHandle {
        self.handle
    }
}

/// Something that happened to an agent in a fixed step.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
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
}

/// The crowd behind the plugin, with the entity ↔ agent maps.
#[derive(Resource)]
pub struct SteerCrowd<V: Space> {
    crowd: Crowd<V>,
    handles: EntityHashMap<AgentHandle>,
    /// The entity of each crowd slot (`AgentHandle::index`), with the handle it is for.
    entities: Vec<Option<(AgentHandle, Entity)>>,
    /// Groups added for behaviours (agents with equal behaviours share; unused ones reused).
    groups: groups::GroupPool<V>,
    /// The group of agents without a behaviour (they drift and are avoided).
    idle: GroupId,
    /// Errors met while syncing (bad components), the latest last; kept to 64.
    errors: Vec<String>,
}

/// A handle no agent ever has: an entity reference that is not an agent resolves to it, so
/// the behaviour has nothing to say about it.
const NOBODY: AgentHandle = AgentHandle { index: u32::MAX, generation: u32::MAX };

impl<V: Space> SteerCrowd<V> {
    /// A crowd with `config`.
    ///
    /// # Panics
    /// If `config` is invalid (the plugin's constructor checks it first).
    #[must_use]
    pub fn new(config: CrowdConfig<V>) -> Self {
        let mut crowd = Crowd::new(config).expect("a valid crowd configuration");
        let idle = crowd.add_group(Group::new(Recipe::Blend(Vec::new()))).expect("an empty blend");
        SteerCrowd {
            crowd,
            handles: EntityHashMap::default(),
            entities: Vec::new(),
            groups: groups::GroupPool::default(),
            idle,
            errors: Vec::new(),
        }
    }

    /// The crowd.
    #[must_use]
    pub fn crowd(&self) -> &Crowd<V> {
        &self.crowd
    }

    /// The crowd, to add obstacles, walls, paths, formations and the game's own behaviours.
    pub fn crowd_mut(&mut self) -> &mut Crowd<V> {
        &mut self.crowd
    }

    /// The agent of an entity.
    #[must_use]
    pub fn handle(&self, entity: Entity) -> Option<AgentHandle> {
        self.handles.get(&entity).copied()
    }

    /// The entity of an agent.
    #[must_use]
    pub fn entity(&self, agent: AgentHandle) -> Option<Entity> {
        match self.entities.get(agent.index as usize) {
            Some(&Some((h, e))) if h == agent => Some(e),
            _ => None,
        }
    }

    fn link(&mut self, e: Entity, h: AgentHandle) {
        self.handles.insert(e, h);
        let i = h.index as usize;
        if self.entities.len() <= i {
            self.entities.resize(i + 1, None);
        }
        self.entities[i] = Some((h, e));
    }

    fn unlink(&mut self, e: Entity) -> Option<AgentHandle> {
        let h = self.handles.remove(&e)?;
        if let Some(slot) = self.entities.get_mut(h.index as usize) {
            *slot = None;
        }
        Some(h)
    }

    /// Problems met while bringing components into the crowd (a bad radius, a behaviour the
    /// crowd refuses), the latest last.
    #[must_use]
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    fn error(&mut self, message: String) {
        if self.errors.len() == 64 {
            self.errors.remove(0);
        }
        self.errors.push(message);
    }

    /// The number of crowd groups the plugin added for behaviours, in use or free for reuse:
    /// bounded by the most distinct behaviours live at once (about twice that at worst).
    #[must_use]
    pub fn behaviour_groups(&self) -> usize {
        self.groups.len()
    }

    /// Moves an agent into the group for `behaviour` (the idle group for none), releasing the
    /// group it leaves. A refused behaviour leaves the agent where it was.
    fn regroup(
        &mut self,
        h: AgentHandle,
        behaviour: Option<&Group<V, Entity, PathId>>,
    ) -> Result<(), String> {
        let Some(old) = self.crowd.group_of(h) else { return Ok(()) };
        let new = match behaviour {
            Some(b) => {
                let handles = &self.handles;
                let group = b.map_refs(&|e| handles.get(e).copied().unwrap_or(NOBODY), &|p| *p);
                self.groups.acquire(&mut self.crowd, group).map_err(|e| e.to_string())?
            }
            None => self.idle,
        };
        let _ = self.crowd.set_agent_group(h, new);
        // released after the acquire: a refusal must not leave the agent in a group up for reuse
        self.groups.release(old);
        Ok(())
    }

    /// Takes an agent out of the crowd, releasing its group.
    fn despawn(&mut self, h: AgentHandle) {
        if let Some(g) = self.crowd.group_of(h) {
            self.groups.release(g);
        }
        let _ = self.crowd.despawn(h);
    }
}

/// Runs a steerkit crowd in a Bevy app (see the crate documentation). Needs Bevy's time
/// (`TimePlugin`, part of `MinimalPlugins` and `DefaultPlugins`).
pub struct SteerkitPlugin<V: Space> {
    config: CrowdConfig<V>,
}

/// The 2D plugin (x–y plane).
pub type SteerkitPlugin2d = SteerkitPlugin<Vec2>;
/// The 3D plugin (y up).
pub type SteerkitPlugin3d = SteerkitPlugin<Vec3>;

impl<V: Space> SteerkitPlugin<V> {
    /// A plugin whose crowd has `config`.
    ///
    /// # Panics
    /// If `config` is invalid (`Crowd::new` says why).
    #[must_use]
    pub fn new(config: CrowdConfig<V>) -> Self {
        if let Err(e) = Crowd::<V>::new(config) {
            panic!("SteerkitPlugin: {e}");
        }
        SteerkitPlugin { config }
    }
}

/// The plugin's systems, for ordering a game's own around them.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SteerSystems {
    /// `FixedUpdate`: components into the crowd, the step, the states out.
    Step,
    /// `PostUpdate`, before transform propagation: interpolated `Transform`s.
    Interpolate,
}

impl<V: Space> Plugin for SteerkitPlugin<V> {
    fn build(&self, app: &mut App) {
        app.insert_resource(SteerCrowd::new(self.config))
            .add_message::<SteerMessage>()
            .add_systems(
                FixedUpdate,
                (sync_obstacles::<V>, step::<V>).chain().in_set(SteerSystems::Step),
            )
            .add_systems(
                PostUpdate,
                interpolate::<V>
                    .in_set(SteerSystems::Interpolate)
                    .before(TransformSystems::Propagate),
            );
        V::add_space_systems(app);
    }
}

type NewAgent<'a, V> = (Entity, &'a SteerAgent, &'a Transform, Option<&'a SteerBehaviour<V>>);

/// One fixed step: leavers out, newcomers in, behaviours and goals synced, teleports honoured,
/// the crowd stepped, states and messages out.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn step<V: Space>(
    mut commands: Commands,
    time: Res<Time>,
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerAgent>,
    newcomers: Query<NewAgent<V>, Without<SteerState<V>>>,
    behaviours: Query<(Entity, Ref<SteerBehaviour<V>>), With<SteerAgent>>,
    goals: Query<(Entity, &SteerGoal<V>), With<SteerAgent>>,
    transforms: Query<&Transform>,
    mut states: Query<(&Transform, &mut SteerState<V>)>,
    mut messages: MessageWriter<SteerMessage>,
) {
    let steer = &mut *steer;
    let mut changed_agents = false;
    for e in removed.read() {
        if let Some(h) = steer.unlink(e) {
            steer.despawn(h);
            changed_agents = true;
        }
    }
    // newcomers in storage order of their entities, so the crowd is the same run to run
    let mut fresh: Vec<NewAgent<V>> =
        newcomers.iter().filter(|(e, ..)| !steer.handles.contains_key(e)).collect();
    fresh.sort_by_key(|(e, ..)| *e);
    let mut spawned = Vec::with_capacity(fresh.len());
    for &(e, agent, t, _) in &fresh {
        let (position, orientation) = V::from_transform(t);
        let spec = AgentSpec {
            orientation,
            ..AgentSpec::new(position, agent.radius, agent.limits, steer.idle)
        };
        match steer.crowd.spawn(spec) {
            Ok(h) => {
                steer.link(e, h);
                spawned.push((e, h, steer.crowd.kinematic(h).expect("just spawned")));
                changed_agents = true;
            }
            Err(err) => steer.error(format!("entity {e}: {err}")),
        }
    }
    // behaviours: new or changed ones, and every one naming entities when agents came or went
    for (e, b) in &behaviours {
        let Some(h) = steer.handles.get(&e).copied() else { continue };
        let fresh_agent = fresh.iter().any(|(f, ..)| *f == e);
        if !(fresh_agent || b.is_changed() || (changed_agents && names_entities(&b.0))) {
            continue;
        }
        if let Err(err) = steer.regroup(h, Some(&b.0)) {
            steer.error(format!("entity {e}: behaviour refused: {err}"));
        }
    }
    // goals follow their points or entities
    for (e, goal) in &goals {
        let Some(h) = steer.handles.get(&e).copied() else { continue };
        let at = match *goal {
            SteerGoal::Point(p) => Some(p),
            SteerGoal::Entity(t) => transforms.get(t).ok().map(|t| V::from_transform(t).0),
        };
        if steer.crowd.goal(h) != at {
            let _ = steer.crowd.set_goal(h, at);
        }
    }
    // a Transform the game changed since the plugin wrote it is a teleport
    for (t, state) in &states {
        let Some(written) = state.written else { continue };
        if (t.translation, t.rotation) != (written.translation, written.rotation) {
            let (position, orientation) = V::from_transform(t);
            let k = Kinematic { position, orientation, ..state.current };
            let _ = steer.crowd.write_kinematic(state.handle, k);
        }
    }
    let dt = time.delta_secs();
    let events: Vec<CrowdEvent> = match steer.crowd.step(dt) {
        Ok(events) => events.to_vec(),
        Err(err) => {
            steer.error(format!("step: {err}"));
            Vec::new()
        }
    };
    for event in events {
        let of = |h: AgentHandle| steer.entity(h);
        let message = match event {
            CrowdEvent::Arrived { agent } => of(agent).map(SteerMessage::Arrived),
            CrowdEvent::PathFinished { agent } => of(agent).map(SteerMessage::PathFinished),
            CrowdEvent::Stuck { agent } => of(agent).map(SteerMessage::Stuck),
            CrowdEvent::AgentCollision { agent, other } => {
                of(agent).zip(of(other)).map(|(a, b)| SteerMessage::Collision(a, b))
            }
            CrowdEvent::ObstacleCollision { agent, .. } => {
                of(agent).map(SteerMessage::ObstacleContact)
            }
            CrowdEvent::WallCrossing { agent, .. } => of(agent).map(SteerMessage::WallContact),
            CrowdEvent::Quarantined { agent, .. } => of(agent).map(SteerMessage::Quarantined),
        };
        if let Some(m) = message {
            messages.write(m);
        }
    }
    for (_, mut state) in &mut states {
        if let Some(k) = steer.crowd.kinematic(state.handle) {
            state.previous = state.current;
            state.current = k;
        }
    }
    // newcomers get their state now (the insert applies after this system)
    for (e, h, start) in spawned {
        if let Some(k) = steer.crowd.kinematic(h) {
            let state = SteerState { previous: start, current: k, written: None, handle: h };
            commands.entity(e).insert(state);
        }
    }
}

/// An obstacle component that came, changed or moved.
type ObstacleMoved<V> =
    (With<SteerObstacle<V>>, Or<(Changed<SteerObstacle<V>>, Changed<Transform>)>);

/// Rebuilds the crowd's static world when an obstacle component came, changed, moved or went.
fn sync_obstacles<V: Space>(
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerObstacle<V>>,
    changed: Query<(), ObstacleMoved<V>>,
    all: Query<(Entity, &SteerObstacle<V>, &Transform)>,
) {
    let went = removed.read().count() > 0;
    if !went && changed.is_empty() {
        return;
    }
    // in entity order, so obstacle ids are the same run to run
    let mut obstacles: Vec<_> = all.iter().collect();
    obstacles.sort_by_key(|(e, ..)| *e);
    let mut shapes = Vec::with_capacity(obstacles.len());
    for (e, o, t) in obstacles {
        match V::place(&o.0, t) {
            Ok(shape) => shapes.push(shape),
            Err(err) => steer.error(format!("obstacle {e}: {err}")),
        }
    }
    match V::world(shapes) {
        Ok(world) => steer.crowd.set_obstacles(world),
        Err(err) => steer.error(format!("obstacles: {err}")),
    }
}

/// Starts formations whose members are all agents now.
fn form_up(
    mut commands: Commands,
    mut steer: ResMut<SteerCrowd<Vec2>>,
    waiting: Query<(Entity, &SteerFormation), Without<SteerFormationId>>,
) {
    for (e, f) in &waiting {
        let Some(members) =
            f.members.iter().map(|m| steer.handle(*m)).collect::<Option<Vec<AgentHandle>>>()
        else {
            continue; // a member has not entered the crowd yet
        };
        let handles = &steer.handles;
        let anchor = f.anchor.map_refs(&|x| handles.get(x).copied().unwrap_or(NOBODY), &|p| *p);
        match steer.crowd.add_formation(f.manager.clone(), &members, anchor) {
            Ok(id) => {
                commands.entity(e).insert(SteerFormationId(id));
            }
            Err(err) => {
                steer.error(format!("formation {e}: {err}"));
                commands.entity(e).insert(SteerFormationId(steerkit::crowd::FormationId(u32::MAX)));
            }
        }
    }
}

/// Moves each formation entity's `Transform` to its anchor.
fn move_anchors(
    steer: Res<SteerCrowd<Vec2>>,
    mut formations: Query<(&SteerFormationId, &mut Transform)>,
) {
    for (id, mut t) in &mut formations {
        if let Some(m) = steer.crowd.formation(id.0) {
            let a = m.anchor();
            Vec2::to_transform(a.position, a.orientation, &mut t);
        }
    }
}

/// True when a behaviour's recipe names any entity.
fn names_entities<V: Space>(group: &Group<V, Entity, PathId>) -> bool {
    let any = std::cell::Cell::new(false);
    let _ = group.recipe.map_refs(&|_| any.set(true), &|p| *p);
    any.get()
}

/// Writes each agent's `Transform`, interpolated between its last two fixed-step states by
/// the fixed clock's overstep. In a wrap-around world a step that crossed the seam (a jump of
/// more than half the world's narrowest side) is drawn at its end rather than swept across.
fn interpolate<V: Space>(
    time: Res<Time<Fixed>>,
    steer: Res<SteerCrowd<V>>,
    mut agents: Query<(&mut Transform, &mut SteerState<V>)>,
) {
    let s = time.overstep_fraction().clamp(0.0, 1.0);
    let seam = match steer.crowd.config().bounds {
        WorldBounds::Toroidal { min, max } => 0.5 * V::narrowest(max - min),
        _ => f32::INFINITY,
    };
    for (mut t, mut state) in &mut agents {
        let jump = state.current.position - state.previous.position;
        let s = if jump.length() > seam { 1.0 } else { s };
        let position =
            if s < 1.0 { state.previous.position + jump * s } else { state.current.position };
        let orientation = V::blend(state.previous.orientation, state.current.orientation, s);
        let mut next = *t;
        V::to_transform(position, orientation, &mut next);
        if *t != next {
            *t = next;
        }
        state.written = Some(next);
    }
}
