//! Scenario files in a Bevy app (feature `scenario`, on by default): the crowd a file
//! describes (its world, groups and recipes, paths, obstacles and formations, checked with the
//! file's one-line errors) becomes the plugin's crowd, with one entity per agent.
//!
//! ```no_run
//! # use bevy_app::App;
//! # use bevy_steerkit::{scenario, SteerkitPlugin2d};
//! # use steerkit::crowd::CrowdConfig;
//! let mut app = App::new();
//! app.add_plugins((bevy_time::TimePlugin, SteerkitPlugin2d::new(CrowdConfig::new(1.0))));
//! let file = steerkit_scenario::Scenario::load("scenarios/crossing.toml").unwrap();
//! let spawned = scenario::spawn_scenario::<steerkit::Vec2>(app.world_mut(), &file).unwrap();
//! // spawned.groups[g] are group g's agent entities, in file order: give them meshes
//! ```

use crate::crowd::Engine;
use crate::{Space, SteerAgent, SteerCrowd, SteerObstacle, SteerState};
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;
use steerkit::crowd::{Crowd, CrowdEvent};
use steerkit_scenario::{
    Dim, Outputs, Scenario, ScenarioError, Simulation, SimulationError, WorldGroup,
};

/// Which scenario group and agent an entity is (`"name:index"` in the file).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct ScenarioAgent {
    /// The group's name.
    pub group: String,
    /// The agent's index in its group.
    pub index: usize,
}

/// What [`spawn_scenario`] made.
#[derive(Clone, Debug, Default)]
pub struct SpawnedScenario {
    /// Each group's name and colour (`#rrggbb`, if the file gives one) and its agent entities,
    /// in file order.
    pub groups: Vec<(String, Option<String>, Vec<Entity>)>,
    /// The obstacle entities ([`SteerObstacle`]s at the origin: the file's shapes are in world
    /// coordinates).
    pub obstacles: Vec<Entity>,
    /// The scenario's time step (s): set `Time<Fixed>` to it to run the file's own timing.
    pub dt: f32,
}

/// Replaces the plugin's crowd with the one `scenario` describes and spawns an entity for each
/// of its agents ([`SteerAgent`], `Transform`, [`ScenarioAgent`]) and obstacles
/// ([`SteerObstacle`]). The recipes keep naming the file's agents; the agents run from their
/// file's groups (give an entity a `SteerBehaviour` to change its own). The world's bounds,
/// neighbour radius and seed become the file's. From then on the plugin steps the file's
/// [`Simulation`], the one `steerkit run` and the playground step: its turrets fire and its
/// side view's jumpers jump as they do there.
///
/// # Errors
/// The file's error (a scenario of the other dimension, or one the crowd refuses), or a
/// [`ScenarioError`] naming `world` when the plugin's crowd already has agents.
pub fn spawn_scenario<V: Space + Dim>(
    world: &mut World,
    scenario: &Scenario,
) -> Result<SpawnedScenario, ScenarioError> {
    let sim = Simulation::<V>::new(scenario, Outputs::default()).map_err(|e| match e {
        SimulationError::Scenario(e) => e,
        other => refused(scenario, "world", &other.to_string()),
    })?;
    let busy = world.get_resource::<SteerCrowd<V>>().is_none_or(|s| !s.crowd.is_empty());
    if busy {
        let why = "the plugin's crowd must be empty (and the plugin added) to take a scenario";
        return Err(refused(scenario, "world", why));
    }
    let built = sim.world();
    let shapes: Vec<V::Shape> = built.crowd.obstacles().map(V::shapes).unwrap_or_default();
    let groups: Vec<WorldGroup> = built.groups.clone();
    let dt = built.settings.dt;
    let mut steer = SteerCrowd::new(*built.crowd.config());
    steer.crowd = Engine::Scenario(Box::new(sim));
    steer.idle = steer
        .crowd
        .add_group(steerkit::crowd::Group::new(steerkit::crowd::Recipe::Blend(Vec::new())))
        .map_err(|e| refused(scenario, "groups", &e.to_string()))?;
    let mut spawned = SpawnedScenario { dt, ..SpawnedScenario::default() };
    for g in &groups {
        let mut entities = Vec::with_capacity(g.agents.len());
        for (index, &h) in g.agents.iter().enumerate() {
            let (Some(k), Some(radius), Some(limits)) =
                (steer.crowd.kinematic(h), steer.crowd.radius(h), steer.crowd.limits(h))
            else {
                continue;
            };
            let mut t = Transform::default();
            V::to_transform(k.position, k.orientation, &mut t);
            let state = SteerState { previous: k, current: k, written: None, handle: h };
            let agent = ScenarioAgent { group: g.name.clone(), index };
            let e = world.spawn((SteerAgent::new(radius, limits), t, state, agent)).id();
            steer.link(e, h);
            entities.push(e);
        }
        spawned.groups.push((g.name.clone(), g.colour.clone(), entities));
    }
    for shape in shapes {
        spawned.obstacles.push(world.spawn((SteerObstacle::<V>(shape), Transform::default())).id());
    }
    world.insert_resource(steer);
    Ok(spawned)
}

/// A scenario's simulation as the plugin steps it (boxed in its crowd resource).
pub(crate) trait Stepper<V: Space>: Send + Sync {
    fn crowd(&self) -> &Crowd<V>;
    fn crowd_mut(&mut self) -> &mut Crowd<V>;
    /// One step of `dt` (s): the simulation's, and the crowd's events.
    fn step_by(&mut self, dt: f32) -> Result<Vec<CrowdEvent>, String>;
}

impl<V: Space + Dim> Stepper<V> for Simulation<V> {
    fn crowd(&self) -> &Crowd<V> {
        Simulation::crowd(self)
    }
    fn crowd_mut(&mut self) -> &mut Crowd<V> {
        Simulation::crowd_mut(self)
    }
    fn step_by(&mut self, dt: f32) -> Result<Vec<CrowdEvent>, String> {
        let mut events = Vec::new();
        Simulation::step_by(self, dt, |e, _| events.push(*e)).map_err(|e| e.to_string())?;
        Ok(events)
    }
}

fn refused(scenario: &Scenario, field: &str, message: &str) -> ScenarioError {
    ScenarioError::Invalid {
        origin: scenario.origin().to_owned(),
        location: None,
        field: field.to_owned(),
        message: message.to_owned(),
    }
}
