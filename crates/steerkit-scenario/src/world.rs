//! Building a checked scenario into a running crowd.

use crate::model::{
    AgentRef, Behaviour, Bounds, Geometry, Metric, MetricsPlan, NamedPath, NavigationPlan, Plan,
};
use crate::{Dim, Scenario, ScenarioError};
use steerkit::crowd::{
    AgentHandle, AgentSpec, Crowd, CrowdConfig, CrowdError, FormationId, Group, GroupId, PathId,
    Recipe, Stuck, WorldBounds,
};
use steerkit::math::Vector;
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
pub struct World<V: Dim = Vec2> {
    /// The crowd.
    pub crowd: Crowd<V>,
    /// The groups, in file order.
    pub groups: Vec<WorldGroup>,
    /// Obstacles and walls (also installed in the crowd; 2D only).
    pub geometry: Geometry,
    /// The named paths (registered in the crowd in this order: `PathId(i)` is `paths[i]`).
    pub paths: Vec<NamedPath<V>>,
    /// The world's shape.
    pub bounds: Bounds<V>,
    /// The formations, in file order, with the index of the group that forms each.
    pub formations: Vec<(FormationId, usize)>,
    /// How to run it.
    pub settings: RunSettings,
    /// The routes of the navigating agents (2D, when a group has a `navigate` leaf): the
    /// simulation updates it before each crowd step.
    pub navigation: Option<steerkit_nav::Navigator>,
}

impl<V: Dim> World<V> {
    /// The group an agent belongs to, by handle (a linear search over the groups).
    #[must_use]
    pub fn group_of(&self, h: AgentHandle) -> Option<&WorldGroup> {
        self.groups.iter().find(|g| g.agents.contains(&h))
    }
}

impl Scenario {
    /// Builds a 2D scenario's crowd: [`build_in`](Self::build_in) in [`Vec2`].
    ///
    /// # Errors
    /// As [`build_in`](Self::build_in).
    pub fn build(&self) -> Result<World, ScenarioError> {
        self.build_in()
    }

    /// Builds the crowd in `V` (the scenario's [`dimensions`](Self::dimensions)): groups,
    /// obstacles and walls, paths, every agent, and each group's recipe with its references
    /// resolved to handles.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] (`dimensions`) when `V` is not the scenario's space, or when
    /// the crowd engine rejects a value the format's checks let through (the message is the
    /// engine's, the field names the group or agent).
    pub fn build_in<V: Dim>(&self) -> Result<World<V>, ScenarioError> {
        let Some(plan) = self.plan::<V>() else {
            return Err(self.error(
                "dimensions".into(),
                format!("the scenario is {}D, not {}D", self.dimensions(), V::DIMS),
            ));
        };
        build(self, plan)
    }
}

fn build<V: Dim>(s: &Scenario, p: &Plan<V>) -> Result<World<V>, ScenarioError> {
    let c = &s.checked;
    let bounds = match p.bounds {
        Bounds::Unbounded => WorldBounds::Unbounded,
        Bounds::Bounded { min, max } => WorldBounds::Bounded { min, max },
        Bounds::Wrapping { min, max } => WorldBounds::Toroidal { min, max },
    };
    let mut config = CrowdConfig::new(c.neighbour_radius).with_bounds(bounds).with_seed(c.seed);
    config.collision_events = c.metrics.collects(Metric::AgentOverlaps);
    config.non_penetration_passes = c.non_penetration_passes;
    config.non_penetration_tolerance = c.non_penetration_tolerance;
    let fail = |field: String, e: CrowdError| s.error(field, e.to_string());
    let mut crowd = Crowd::new(config).map_err(|e| fail("world".into(), e))?;
    V::set_geometry(&mut crowd, &p.geometry)
        .map_err(|e| s.error("obstacles".into(), e.to_string()))?;
    for path in &p.paths {
        crowd.add_path(path.polyline.clone());
    }

    // groups first with an empty recipe, so that every agent exists (and has a handle)
    // before the recipes that name agents are resolved
    let stuck = c
        .metrics
        .collects(Metric::Stuck)
        .then_some(Stuck { time: c.metrics.stuck_time, min_speed: c.metrics.stuck_speed });
    let mut groups = Vec::with_capacity(p.groups.len());
    for (gi, g) in p.groups.iter().enumerate() {
        let mut spec = Group::new(Recipe::Blend(Vec::new()));
        spec.view_half_angle = g.view_half_angle;
        spec.non_penetration = g.non_penetration;
        spec.face_motion = g.face_motion;
        spec.arrive_radius = g.arrive_radius;
        spec.remove_on_arrival = g.remove_on_arrival;
        spec.heading_smoothing = g.heading_smoothing;
        spec.integration = g.integration;
        spec.fake_rotation = g.fake_rotation;
        spec.motor = g.vehicle.map(|v| v.motor);
        spec.nearest = g.nearest_neighbours;
        spec.orca = g.orca;
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
            let h = crowd.spawn(spec).map_err(|e| fail(format!("groups[{gi}].agents[{ai}]"), e))?;
            agents.push(h);
        }
        groups.push(WorldGroup { name: g.name.clone(), colour: g.colour.clone(), id, agents });
    }
    for (gi, g) in p.groups.iter().enumerate() {
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
    let mut formations = Vec::with_capacity(p.formations.len());
    for (fi, f) in p.formations.iter().enumerate() {
        let anchor = recipe(&f.anchor, &groups);
        let id = V::add_formation(&mut crowd, f, &groups[f.group].agents, anchor)
            .map_err(|e| fail(format!("formations[{fi}]"), e))?;
        formations.push((id, f.group));
    }
    let navigation = match &p.navigation {
        Some(n) => Some(navigator(s, n, p, &groups)?),
        None => None,
    };
    Ok(World {
        navigation,
        crowd,
        groups,
        formations,
        geometry: p.geometry.clone(),
        paths: p.paths.clone(),
        bounds: p.bounds,
        settings: RunSettings {
            name: c.name.clone(),
            output_name: s.output_name(),
            seed: c.seed,
            dt: c.dt,
            steps: c.steps,
            metrics: c.metrics.clone(),
        },
    })
}

/// The navigator of a checked plan, every agent of the navigating groups added.
fn navigator<V: Dim>(
    s: &Scenario,
    n: &NavigationPlan,
    p: &Plan<V>,
    groups: &[WorldGroup],
) -> Result<steerkit_nav::Navigator, ScenarioError> {
    let fail = |field: String, e: steerkit_nav::NavError| s.error(field, e.to_string());
    let mut nav = steerkit_nav::Navigator::new(n.level.clone(), n.settings)
        .map_err(|e| fail("navigation".into(), e))?;
    for &g in &n.groups {
        for &h in &groups[g].agents {
            nav.add_agent(h, p.groups[g].radius)
                .map_err(|e| fail(format!("groups[{g}].radius"), e))?;
        }
    }
    Ok(nav)
}

fn handle(r: AgentRef, groups: &[WorldGroup]) -> AgentHandle {
    // references were checked against the group sizes, and every agent was spawned
    groups[r.group].agents[r.index]
}

/// The crowd recipe of a checked behaviour.
fn recipe<V: Vector>(b: &Behaviour<V>, groups: &[WorldGroup]) -> Recipe<V> {
    b.map_refs(&|r| handle(*r, groups), &|p| PathId(*p as u32))
}
