//! steerkit in Bevy: steering behaviours, crowds and formations as components, stepped in
//! `FixedUpdate` (or a schedule the game chooses) with the schedule's time step as `dt` and
//! interpolated for rendering. Headless apps (`MinimalPlugins`) need nothing more.
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
//!   [`steerkit::crowd::Crowd`] in the [`SteerCrowd`] resource and steps it in `FixedUpdate`
//!   ([`SteerkitPlugin::in_schedule`] picks another schedule).
//! - An entity with a [`SteerAgent`] (radius, limits) and a `Transform` enters the crowd; its
//!   [`SteerBehaviour`] is a crowd [`Group`](steerkit::crowd::Group) whose recipe names other
//!   **entities**, agents or any entity with a `Transform` (pursue an entity, offset-pursue a
//!   leader, interpose between two); [`SteerGoal`] is a point or an entity to arrive at.
//!   Despawning an entity (or removing its `SteerAgent`) takes it out; a behaviour that named
//!   it has nothing to say about it any more.
//! - `Transform` is written in `PostUpdate`, interpolated between the last two fixed steps; a
//!   `Transform` the game changes anywhere (in `Update`, or in `FixedUpdate` before the step)
//!   is a teleport: it is left as written and the next step moves the agent there.
//! - An agent with [`SteerDesiredVelocity`] is moved by the game: the plugin publishes the
//!   velocity it would give it and reads its `Transform` (and [`SteerVelocity`]) back.
//! - [`SteerState`] is there from the step an agent joins the crowd.
//! - [`SteerMessage`]s report arrivals, finished paths, stuck agents, contacts, a goal entity
//!   that went (the agent stops) and components the crowd refused (once per problem).
//! - [`SteerObstacle`] entities are the crowd's static world (placed by their `Transform`);
//!   [`SteerFormation`] runs a formation of entities (2D).
//! - With the feature `navigation` (on by default), a `navigation::SteerNavigation` resource
//!   (the walkable area) sends every agent whose behaviour has a navigate leaf to its
//!   [`SteerGoal`] by a route on the navigation mesh of the area minus the obstacle entities
//!   (2D), re-planned when an obstacle moves.
//! - Paths and the game's own behaviours (`CustomBehaviour`) go straight to the crowd:
//!   [`SteerCrowd::crowd_mut`].
//! - [`debug::draw_crowd`] draws the crowd's debug layers with any pen; with the feature `debug`,
//!   `debug::SteerkitDebugPlugin` draws them with gizmos every frame.
//!
//! 2D worlds use the x–y plane (the heading is a rotation about +z); 3D worlds are y-up with the
//! body looking down its local +x axis, the crowd's convention.

mod components;
mod crowd;
pub mod debug;
mod formation;
mod groups;
#[cfg(feature = "navigation")]
pub mod navigation;
mod obstacles;
#[cfg(feature = "scenario")]
pub mod scenario;
mod space;
mod sync;
mod targets;

pub use components::{
    SteerAgent, SteerBehaviour, SteerDesiredVelocity, SteerFormation, SteerFormationId, SteerGoal,
    SteerMessage, SteerObstacle, SteerState, SteerVelocity,
};
pub use crowd::SteerCrowd;
pub use space::Space;
/// The library the plugin runs (recipes, limits, shapes, the crowd), for games that do not
/// depend on it themselves.
pub use steerkit;

/// The names a game needs: the plugins, components, aliases, messages and sets, and the
/// library's recipe building blocks. Shapes other than [`Obstacle`](steerkit::geometry::Obstacle)
/// are left out (Bevy's prelude has its own `Circle` and `Sphere`): import them from
/// [`steerkit::geometry`].
pub mod prelude {
    pub use crate::{
        SteerAgent, SteerBehaviour, SteerBehaviour2d, SteerBehaviour3d, SteerCrowd, SteerCrowd2d,
        SteerCrowd3d, SteerDesiredVelocity, SteerDesiredVelocity2d, SteerDesiredVelocity3d,
        SteerFormation, SteerFormationId, SteerGoal, SteerGoal2d, SteerGoal3d, SteerMessage,
        SteerObstacle, SteerObstacle2d, SteerObstacle3d, SteerState, SteerState2d, SteerState3d,
        SteerSystems, SteerVelocity, SteerVelocity2d, SteerVelocity3d, SteerkitPlugin,
        SteerkitPlugin2d, SteerkitPlugin3d,
    };
    pub use steerkit::crowd::{CrowdConfig, Group, Recipe, Target, WorldBounds};
    pub use steerkit::geometry::{Obstacle, Obstacle3};
    pub use steerkit::kinematic::Limits;
    pub use steerkit::steering::{
        Align, Alignment, Arrive, Cohesion, Evade, Flee, FollowPath, Hide, Interpose,
        ObstacleAvoidance, OffsetPursuit, Pursue, Seek, Separation, VelocityMatch, Wander,
    };
}

/// [`SteerBehaviour`] in 2D.
pub type SteerBehaviour2d = SteerBehaviour<Vec2>;
/// [`SteerBehaviour`] in 3D.
pub type SteerBehaviour3d = SteerBehaviour<Vec3>;
/// [`SteerGoal`] in 2D.
pub type SteerGoal2d = SteerGoal<Vec2>;
/// [`SteerGoal`] in 3D.
pub type SteerGoal3d = SteerGoal<Vec3>;
/// [`SteerObstacle`] in 2D.
pub type SteerObstacle2d = SteerObstacle<Vec2>;
/// [`SteerObstacle`] in 3D.
pub type SteerObstacle3d = SteerObstacle<Vec3>;
/// [`SteerState`] in 2D.
pub type SteerState2d = SteerState<Vec2>;
/// [`SteerState`] in 3D.
pub type SteerState3d = SteerState<Vec3>;
/// [`SteerDesiredVelocity`] in 2D.
pub type SteerDesiredVelocity2d = SteerDesiredVelocity<Vec2>;
/// [`SteerDesiredVelocity`] in 3D.
pub type SteerDesiredVelocity3d = SteerDesiredVelocity<Vec3>;
/// [`SteerVelocity`] in 2D.
pub type SteerVelocity2d = SteerVelocity<Vec2>;
/// [`SteerVelocity`] in 3D.
pub type SteerVelocity3d = SteerVelocity<Vec3>;
/// [`SteerCrowd`] in 2D.
pub type SteerCrowd2d = SteerCrowd<Vec2>;
/// [`SteerCrowd`] in 3D.
pub type SteerCrowd3d = SteerCrowd<Vec3>;

use bevy_app::{App, FixedUpdate, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy_math::{Vec2, Vec3};
use bevy_transform::TransformSystems;
use steerkit::crowd::{Crowd, CrowdConfig};

/// Runs a steerkit crowd in a Bevy app (see the crate documentation). Needs Bevy's time
/// (`TimePlugin`, part of `MinimalPlugins` and `DefaultPlugins`).
pub struct SteerkitPlugin<V: Space> {
    config: CrowdConfig<V>,
    schedule: InternedScheduleLabel,
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
        SteerkitPlugin { config, schedule: FixedUpdate.intern() }
    }

    /// The same plugin stepping in `schedule` instead of `FixedUpdate`, with that schedule's
    /// `Time` delta as the step's `dt`. In one of Bevy's fixed schedules (`FixedPreUpdate`,
    /// `FixedPostUpdate`, ...: those of `FixedMainScheduleOrder`) the `Transform`s are
    /// interpolated between the last two steps by the fixed clock's overstep, as in
    /// `FixedUpdate`; in any other (`Update`, `PreUpdate`, ...: one step per frame of the
    /// frame's virtual time) they show the latest step. The interpolation stays in
    /// `PostUpdate`, after the step when that is `PostUpdate` too.
    #[must_use]
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

/// The plugin's systems, for ordering a game's own around them. A frame runs `FixedUpdate`
/// (zero or more fixed steps), then `Update`, then `PostUpdate`. `Step` is in the plugin's
/// schedule ([`SteerkitPlugin::in_schedule`]; `FixedUpdate` below stands for it).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SteerSystems {
    /// `FixedUpdate`, chained: obstacles, agents in and out (with their radius and limits),
    /// target stand-ins, behaviours, goals, teleports and game-moved agents read back,
    /// formations (2D), the crowd's step, the states ([`SteerState`]), desired velocities
    /// ([`SteerDesiredVelocity`]) and [`SteerMessage`]s out, formation entities moved to their
    /// anchors. The game writes components and `Transform`s anywhere before it (`Update`, or
    /// `FixedUpdate` `.before(SteerSystems::Step)`); it reads states, desired velocities and
    /// messages after it (`FixedUpdate` `.after(SteerSystems::Step)`, or `Update`), and moves
    /// its game-moved agents there.
    Step,
    /// `PostUpdate`, before transform propagation: each agent's `Transform` interpolated
    /// between its last two states. A `Transform` the game wrote since the plugin last did is
    /// left alone (a teleport, taken at the next step).
    Interpolate,
}

impl<V: Space> Plugin for SteerkitPlugin<V> {
    fn build(&self, app: &mut App) {
        app.insert_resource(SteerCrowd::new(self.config))
            .insert_resource(sync::StepSchedule::<V> {
                label: self.schedule,
                space: std::marker::PhantomData,
            })
            .add_message::<SteerMessage>()
            .add_systems(
                self.schedule,
                (
                    obstacles::sync_obstacles::<V>,
                    sync::sync_agents::<V>,
                    targets::track_targets::<V>,
                    sync::sync_behaviours::<V>,
                    sync::sync_goals::<V>,
                    sync::teleports::<V>,
                    sync::step::<V>,
                )
                    .chain()
                    .in_set(SteerSystems::Step),
            )
            .add_systems(
                PostUpdate,
                sync::interpolate::<V>
                    .in_set(SteerSystems::Interpolate)
                    .after(SteerSystems::Step)
                    .before(TransformSystems::Propagate),
            );
        V::add_space_systems(app, self.schedule);
    }
}
