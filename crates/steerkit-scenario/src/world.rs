//! Building a checked scenario into a running crowd.

use crate::model::{AgentRef, Behaviour, Bounds, Geometry, Metric, MetricsPlan, NamedPath};
use crate::{Scenario, ScenarioError};
use steerkit::crowd::{
    AgentHandle, AgentSpec, Crowd, CrowdConfig, CrowdError, FormationId, Group, GroupId, PathId,
    Recipe, Stuck, WorldBounds,
};
use steerkit::formation::{FormationManager, Pattern};
use steerkit::geometry::{Obstacle, ObstacleSet};
use steerkit::kinematic::Kinematic;
use steerkit::Vec2;

/// One group of a built world.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldGroup {
    /// The group's name in the file.
    pub name: String,
    /// Display colour (`#rrggbb`), if given.
    pub colour: Option<String>,
    /// The crowd's id for the group.
    pub id: GroupId,
    /// Its agents' handles, in file order (`"name:i"` is `agents[i]`).
    pub agents: Vec<AgentHandle>,
}

/// How to run a built world.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// The scenario's name as written.
    pub name: String,
    /// The name made safe for a directory name (`[a-z0-9_-]`).
    pub output_name: String,
    /// The world seed.
    pub seed: u64,
    /// Time step (s).
    pub dt: f32,
    /// Number of steps.
    pub steps: u64,
    /// What to measure.
    pub metrics: MetricsPlan,
}

/// A scenario ready to run: the crowd with every agent spawned, the handles per group, the
/// static geometry (for drawing) and the run settings.
#[derive(Debug)]
pub struct World {
    /// The crowd (2D).
    pub crowd: Crowd<Vec2>,
    /// The groups, in file order.
    pub groups: Vec<WorldGroup>,
    /// Obstacles and walls (also installed in the crowd).
    pub geometry: Geometry,
    /// The named paths (registered in the crowd in this order: `PathId(i)` is `paths[i]`).
    pub paths: Vec<NamedPath>,
    /// The world's shape.
    pub bounds: Bounds,
    /// The formations, in file order, with the index of the group that forms each.
    pub formations: Vec<(FormationId, usize)>,
    /// How to run it.
    pub settings: RunSettings,
}

impl World {
    /// The group an agent belongs to, by handle (a linear search over the groups).
    #[must_use]
    pub fn group_of(&self, h: AgentHandle) -> Option<&WorldGroup> {
        self.groups.iter().find(|g| g.agents.contains(&h))
    }
}

impl Scenario {
    /// Builds the crowd: groups, obstacles and walls, paths, every agent, and each group's
    /// recipe with its references resolved to handles.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] when the crowd engine rejects a value the format's checks let
    /// through (the message is the engine's, the field names the group or agent).
    pub fn build(&self) -> Result<World, ScenarioError> {
        let c = &self.checked;
        let bounds = match c.bounds {
            Bounds::Unbounded => WorldBounds::Unbounded,
            Bounds::Bounded { min, max } => WorldBounds::Bounded { min, max },
            Bounds::Wrapping { min, max } => WorldBounds::Toroidal { min, max },
        };
        let mut config = CrowdConfig::new(c.neighbour_radius).with_bounds(bounds).with_seed(c.seed);
        config.collision_events = c.metrics.collects(Metric::AgentOverlaps);
        config.non_penetration_passes = c.non_penetration_passes;
        let fail = |field: String, e: CrowdError| self.error(field, e.to_string());
        let mut crowd = Crowd::new(config).map_err(|e| fail("world".into(), e))?;

        let solids = c.geometry.obstacles.iter().cloned();
        let walls = c.geometry.walls.iter().map(|w| Obstacle::Wall(*w));
        let all: Vec<Obstacle> = solids.chain(walls).collect();
        if !all.is_empty() {
            let set =
                ObstacleSet::new(all).map_err(|e| self.error("obstacles".into(), e.to_string()))?;
            crowd.set_obstacles(set);
        }
        for p in &c.paths {
            crowd.add_path(p.polyline.clone());
        }

        // groups first with an empty recipe, so that every agent exists (and has a handle)
        // before the recipes that name agents are resolved
        let stuck = c
            .metrics
            .collects(Metric::Stuck)
            .then_some(Stuck { time: c.metrics.stuck_time, min_speed: c.metrics.stuck_speed });
        let mut groups = Vec::with_capacity(c.groups.len());
        for (gi, g) in c.groups.iter().enumerate() {
            let mut spec = Group::new(Recipe::Blend(Vec::new()));
            spec.view_half_angle = g.view_half_angle;
            spec.non_penetration = g.non_penetration;
            spec.face_motion = g.face_motion;
            spec.arrive_radius = g.arrive_radius;
            spec.heading_smoothing = g.heading_smoothing;
            spec.integration = g.integration;
            spec.stuck = stuck;
            let id = crowd.add_group(spec).map_err(|e| fail(format!("groups[{gi}]"), e))?;
            let mut agents = Vec::with_capacity(g.agents.len());
            for (ai, a) in g.agents.iter().enumerate() {
                let spec = AgentSpec {
                    velocity: a.velocity,
                    orientation: a.orientation,
                    goal: a.goal,
                    ..AgentSpec::new(a.position, g.radius, g.limits, id)
                };
                let h =
                    crowd.spawn(spec).map_err(|e| fail(format!("groups[{gi}].agents[{ai}]"), e))?;
                agents.push(h);
            }
            groups.push(WorldGroup { name: g.name.clone(), colour: g.colour.clone(), id, agents });
        }
        for (gi, g) in c.groups.iter().enumerate() {
            let recipe = recipe(&g.behaviour, &groups);
            let mut spec = crowd
                .group(groups[gi].id)
                .cloned()
                .unwrap_or_else(|| Group::new(Recipe::Blend(Vec::new())));
            spec.recipe = recipe;
            crowd
                .set_group(groups[gi].id, spec)
                .map_err(|e| fail(format!("groups[{gi}].behaviour"), e))?;
        }
        let mut formations = Vec::with_capacity(c.formations.len());
        for (fi, f) in c.formations.iter().enumerate() {
            let anchor = Kinematic {
                position: f.anchor_position,
                orientation: f.anchor_orientation,
                velocity: Vec2::ZERO,
                rotation: 0.0,
            };
            let manager = FormationManager::new(Pattern::from(f.pattern), anchor, f.anchor_limits);
            let id = crowd
                .add_formation(manager, &groups[f.group].agents, recipe(&f.anchor, &groups))
                .map_err(|e| fail(format!("formations[{fi}]"), e))?;
            formations.push((id, f.group));
        }
        Ok(World {
            crowd,
            groups,
            formations,
            geometry: c.geometry.clone(),
            paths: c.paths.clone(),
            bounds: c.bounds,
            settings: RunSettings {
                name: c.name.clone(),
                output_name: self.output_name(),
                seed: c.seed,
                dt: c.dt,
                steps: c.steps,
                metrics: c.metrics.clone(),
            },
        })
    }
}

fn handle(r: AgentRef, groups: &[WorldGroup]) -> AgentHandle {
    // references were checked against the group sizes, and every agent was spawned
    groups[r.group].agents[r.index]
}

/// The crowd recipe of a checked behaviour.
fn recipe(b: &Behaviour, groups: &[WorldGroup]) -> Recipe<Vec2> {
    b.map_refs(&|r| handle(*r, groups), &|p| PathId(*p as u32))
}
