//! Navigation across a level in a Bevy app (2D, feature `navigation`): insert a
//! [`SteerNavigation`] resource with the walkable area, and every agent whose behaviour holds a
//! [`Recipe::Navigate`] leaf reaches its [`SteerGoal`](crate::SteerGoal) by a route on the
//! navigation mesh of that area minus the [`SteerObstacle`](crate::SteerObstacle) entities
//! (any-angle paths, corners anticipated, narrow passages crossed in turns; the crowd's ORCA or
//! steering avoidance on top). The mesh is built again when an obstacle comes, moves or goes,
//! and every route is planned again on it; a goal that cannot be reached gives
//! [`SteerMessage::GoalUnreachable`] once and the agent stops at the nearest point it can
//! reach. The navigator is the one `steerkit run` uses ([`steerkit_nav::Navigator`]).
//!
//! ```
//! use bevy_app::App;
//! use bevy_steerkit::navigation::SteerNavigation;
//! use bevy_steerkit::{SteerAgent, SteerBehaviour, SteerGoal, SteerObstacle, SteerkitPlugin2d};
//! use bevy_transform::components::Transform;
//! use steerkit::crowd::{CrowdConfig, Group, Recipe};
//! use steerkit::geometry::{Aabb, Obstacle};
//! use steerkit::kinematic::Limits;
//! use steerkit::steering::Arrive;
//! use steerkit::Vec2;
//!
//! let mut app = App::new();
//! app.add_plugins((bevy_time::TimePlugin, SteerkitPlugin2d::new(CrowdConfig::new(2.0))))
//!     .insert_resource(SteerNavigation::rectangle(Vec2::splat(-10.0), Vec2::splat(10.0)));
//! // a wall between the agent and its goal
//! let wall = Obstacle::Box(Aabb::new(Vec2::new(-0.5, -6.0), Vec2::new(0.5, 10.0)));
//! app.world_mut().spawn((SteerObstacle::<Vec2>(wall), Transform::default()));
//! let arrive = Arrive::new(0.05, 1.0, 0.25).unwrap();
//! app.world_mut().spawn((
//!     SteerAgent::new(0.3, Limits::new(2.0, 8.0, 4.0, 20.0).unwrap()),
//!     SteerBehaviour::<Vec2>(Group::new(Recipe::Navigate { arrive })),
//!     SteerGoal::Point(Vec2::new(6.0, 5.0)),
//!     Transform::from_xyz(-6.0, 5.0, 0.0),
//! ));
//! app.update();
//! ```

use crate::crowd::Engine;
use crate::{SteerCrowd, SteerMessage};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use std::collections::HashSet;
use steerkit::crowd::{AgentHandle, Recipe};
use steerkit::Vec2;
use steerkit_nav::{Level, NavEvent, NavSettings, Navigator, Route};

/// The walkable area and the navigator of a 2D crowd's navigating agents (see the module).
#[derive(Resource)]
pub struct SteerNavigation {
    outline: Vec<Vec2>,
    settings: NavSettings,
    navigator: Option<Navigator>,
    /// The obstacle set the navigator was built for ([`SteerCrowd`]'s count of rebuilds).
    built_for: Option<u64>,
    /// The agents the navigator steers.
    added: HashSet<AgentHandle>,
}

impl SteerNavigation {
    /// The walkable area is the rectangle `min`–`max` (m), minus the obstacles.
    #[must_use]
    pub fn rectangle(min: Vec2, max: Vec2) -> Self {
        Self::outline(Level::rectangle(min, max).outline)
    }

    /// The walkable area is the simple polygon `points` (m, either winding), minus the
    /// obstacles.
    #[must_use]
    pub fn outline(points: Vec<Vec2>) -> Self {
        SteerNavigation {
            outline: points,
            settings: NavSettings::default(),
            navigator: None,
            built_for: None,
            added: HashSet::new(),
        }
    }

    /// How routes are planned and followed ([`NavSettings`]; its defaults are the scenario
    /// format's).
    #[must_use]
    pub fn with_settings(mut self, settings: NavSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The navigator, once the first step built it (`None` while the level is refused: the
    /// reason is in [`SteerCrowd::errors`], once per change of the obstacles or of this
    /// resource, and navigating agents arrive straight for their goals, as a navigate leaf
    /// without a route does).
    #[must_use]
    pub fn navigator(&self) -> Option<&Navigator> {
        self.navigator.as_ref()
    }

    /// The route of the agent `entity` stands for: its corners ahead and its end.
    #[must_use]
    pub fn route(&self, steer: &SteerCrowd<Vec2>, entity: Entity) -> Option<&Route> {
        self.navigator.as_ref()?.route(steer.handle(entity)?)
    }

    /// Builds the navigator for the crowd's obstacles as they are now.
    fn build(&mut self, steer: &mut SteerCrowd<Vec2>, generation: u64) {
        let mut level = Level { outline: self.outline.clone(), obstacles: Vec::new() };
        if let Some(set) = steer.crowd.obstacles() {
            level.add_obstacles(set.obstacles());
        }
        self.added.clear();
        self.built_for = Some(generation);
        self.navigator = match Navigator::new(level, self.settings) {
            Ok(n) => Some(n),
            Err(e) => {
                steer.error(format!("navigation: {e}"));
                None
            }
        };
    }
}

/// Draws every navigating agent's route ahead with `pen`: from the body through its corners to
/// its goal, the next corner ringed ([`SteerDebug::routes`](crate::debug::SteerDebug)); with
/// the feature `debug`, `SteerkitDebugPlugin` draws it every frame with gizmos.
pub fn draw_routes(
    nav: &SteerNavigation,
    steer: &SteerCrowd<Vec2>,
    layers: &crate::debug::SteerDebug,
    pen: &mut dyn crate::debug::Pen<Vec2>,
) {
    let Some(navigator) = nav.navigator.as_ref().filter(|_| layers.routes) else { return };
    let crowd = steer.crowd();
    for &h in &nav.added {
        let (Some(route), Some(k)) = (navigator.route(h), crowd.kinematic(h)) else { continue };
        let colour = crate::debug::colours::ROUTE;
        let mut from = k.position;
        for &c in route.ahead() {
            pen.line(from, c, colour);
            from = c;
        }
        if let Some(&next) = route.ahead().first() {
            pen.ring(next, 0.15, colour);
        }
    }
}

/// [`draw_routes`] with Bevy's gizmos, each frame (with `SteerkitDebugPlugin`).
#[cfg(feature = "debug")]
pub(crate) fn draw_routes_with_gizmos(
    nav: Res<SteerNavigation>,
    steer: Res<SteerCrowd<Vec2>>,
    layers: Res<crate::debug::SteerDebug>,
    mut gizmos: bevy_gizmos::gizmos::Gizmos,
) {
    draw_routes(&nav, &steer, &layers, &mut gizmos);
}

/// True when the recipe has a navigate leaf.
fn navigates<V: steerkit::math::Vector, A, P>(recipe: &Recipe<V, A, P>) -> bool {
    let mut any = false;
    recipe.for_each_leaf(&mut |r| any |= matches!(r, Recipe::Navigate { .. }));
    any
}

/// Before each step: the navigator built again when the obstacles or the resource changed,
/// the navigating agents that joined added, and every route planned, trimmed and handed to
/// the crowd as its agent's waypoint. A scenario file's simulation navigates by itself.
pub(crate) fn navigate(
    mut nav: ResMut<SteerNavigation>,
    mut steer: ResMut<SteerCrowd<Vec2>>,
    time: Res<Time>,
    mut messages: MessageWriter<SteerMessage>,
) {
    if !matches!(steer.crowd, Engine::Bare(_)) {
        return;
    }
    let replaced = nav.is_changed();
    // the plugin's own bookkeeping is no change of the game's
    let nav = nav.bypass_change_detection();
    let steer = &mut *steer;
    let generation = steer.obstacles_generation;
    if replaced || nav.built_for != Some(generation) {
        nav.build(steer, generation);
    }
    let Some(navigator) = nav.navigator.as_mut() else { return };
    let crowd = &mut *steer.crowd;
    nav.added.retain(|&h| crowd.kinematic(h).is_some());
    let mut joined: Vec<(Entity, AgentHandle)> = steer
        .handles
        .iter()
        .map(|(&e, &h)| (e, h))
        .filter(|(_, h)| !nav.added.contains(h))
        .filter(|&(_, h)| {
            let group = crowd.group_of(h).and_then(|g| crowd.group(g));
            group.is_some_and(|g| navigates(&g.recipe))
        })
        .collect();
    // in entity order, so the navigator's own order is the same run to run
    joined.sort_by_key(|(e, _)| *e);
    for (e, h) in joined {
        let radius = crowd.radius(h).unwrap_or(0.0);
        match navigator.add_agent(h, radius) {
            Ok(()) => {
                nav.added.insert(h);
            }
            Err(err) => steer
                .pending
                .push(SteerMessage::Rejected { entity: e, reason: format!("navigation: {err}") }),
        }
    }
    let events = navigator.update(&mut steer.crowd, time.delta_secs());
    messages.write_batch(events.iter().filter_map(|ev| match *ev {
        NavEvent::Unreachable { agent, .. } => {
            steer.entity(agent).map(SteerMessage::GoalUnreachable)
        }
    }));
}
