//! The one simulation: a built scenario and everything that moves in it, stepped in one place.
//!
//! [`Simulation`] owns a [`World`] (the crowd with its groups, static world, paths, formations
//! and settings), the agents' numbers in file order, a side view's jumpers, the turrets and
//! their shells, and, when asked ([`Outputs`]), the run's measures (what `metrics.json` reports,
//! [`Metrics`]) and a replay [`Recorder`]. `steerkit run`, every `steerkit serve` session (edits
//! included: an edit builds a new world and [`Simulation::carry_over`] keeps the shells and
//! counts) and bevy_steerkit's scenario route drive it; none of them steps a scenario another
//! way.
//!
//! One step ([`Simulation::step`]) is, in this order: the navigator's update (routes planned
//! and trimmed, each navigating agent's waypoint set), the crowd's step, its events numbered and
//! counted; the pairwise scan of gaps and overlaps; the path deviation; the turrets' shells
//! (moved and fired after the crowd); the side view's jumpers; the formation-slot errors (over
//! the second half of the run); and the replay frame when one is due.
//!
//! # Measuring
//! When the plan collects `agent_overlaps` or `min_separation`, each step scans each agent's
//! neighbours (from the first step on: the spawn layout itself is not measured) within
//! `r_i + r_max + neighbour_radius` on the crowd's grid: the smallest gap between two bodies
//! (`|p_i − p_j| − r_i − r_j`, the minimum image on a torus) and the pairs overlapping by more
//! than the plan's `overlap_tolerance`. An overlap is counted once when a pair starts
//! overlapping beyond the tolerance, and again only after it has separated. The state measured
//! is the committed one (after non-penetration), so a crowd that enforces non-penetration shows
//! only the overlaps the constraint could not remove within its passes. Measuring never changes
//! the run: the crowd's state after each step is the same with or without it.

mod laps;
mod measure;
mod metrics;
mod numbering;
mod pairs;
mod record;

pub use metrics::{GroupMetrics, Metrics};
pub use numbering::Numbering;
pub use pairs::MAX_TRACKED_PAIRS;
pub use record::{RAY_AGENTS, REPLAY_BUDGET};

use crate::ballistics::{Ballistics, Shot};
use crate::platform::{JumperGroup, SideViewRun};
use crate::recording::{Recording, RecordingError};
use crate::{Dim, Scenario, ScenarioError, World};
use measure::Measures;
use steerkit::crowd::{AgentHandle, Crowd, CrowdEvent, Recipe};
use steerkit::steering::{ObstacleAvoidance, Stateful};
use steerkit::Vec3;
use steerkit_nav::NavEvent;

/// What a simulation failed on.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// The scenario could not be built.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// The engine refused a step (or, at step 0, the turrets or side view of the world).
    #[error("step {step}: {message}")]
    Step {
        /// The step that failed.
        step: u64,
        /// The engine's message.
        message: String,
    },
    /// The replay could not be recorded.
    #[error("recording: {0}")]
    Recording(#[from] RecordingError),
    /// More steps than a recorded run can number (2³² − 1).
    #[error("steps: {0} is more than a recorded run can hold (4294967295)")]
    TooManySteps(u64),
}

/// What a simulation keeps besides its state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    /// Measure the run as the scenario's `[metrics]` plan asks ([`Simulation::metrics`]).
    pub metrics: bool,
    /// Record a replay keeping about this many agent-frames ([`REPLAY_BUDGET`] for
    /// `steerkit run`); `None`: no replay.
    pub replay: Option<usize>,
}

/// A built scenario in motion (see the [module docs](self)).
pub struct Simulation<V: Dim> {
    world: World<V>,
    description: String,
    numbering: Numbering,
    /// The side view's jumpers (2D side views only), moved after each crowd step.
    side_view: Option<SideViewRun>,
    /// The turrets and their shells in the air (none without `[[turrets]]`).
    ballistics: Ballistics,
    /// Shots that ended in the last step.
    ended: Vec<Shot>,
    /// Each group's first obstacle-avoidance leaf, whose rays frames carry.
    avoiders: Vec<Option<ObstacleAvoidance>>,
    step: u64,
    /// Navigating agents told their goal cannot be reached (once per goal).
    unreachable: u64,
    /// Agents in the crowd at the start.
    agents: usize,
    measures: Option<Measures>,
    replay: Option<record::Replay<V>>,
}

impl<V: Dim> Simulation<V> {
    /// Builds `scenario` and makes it ready to step, keeping `outputs`.
    ///
    /// # Errors
    /// The scenario's build error; a world whose turrets or side view the library refuses
    /// (never for a checked plan); [`SimulationError::TooManySteps`] for a replay of more than
    /// 2³² − 1 steps.
    pub fn new(scenario: &Scenario, outputs: Outputs) -> Result<Self, SimulationError> {
        let world = scenario.build_in::<V>()?;
        Self::from_world(scenario, world, outputs)
    }

    /// A simulation of `world`, built from `scenario` (or from an edited copy of it, whose
    /// agents the caller may have moved): the side view's jumps are planned from where the
    /// agents are now.
    ///
    /// # Errors
    /// As [`Simulation::new`].
    pub fn from_world(
        scenario: &Scenario,
        world: World<V>,
        outputs: Outputs,
    ) -> Result<Self, SimulationError> {
        let setup = |e: String| SimulationError::Step { step: 0, message: e };
        let numbering = Numbering::new(&world);
        let turrets = scenario.plan::<V>().map(|p| p.turrets.as_slice()).unwrap_or_default();
        let volume = world.bounds.corners().map(|(lo, hi)| (V::lift(lo), V::lift(hi)));
        let ballistics = Ballistics::new(
            turrets,
            |t| {
                let h = *world.groups.get(t.target.group)?.agents.get(t.target.index)?;
                Some((h, numbering.number(h)?))
            },
            volume,
        )
        .map_err(|e| setup(e.to_string()))?;
        let (side_view, jumpers) = side_view(scenario, &world, &numbering).map_err(setup)?;
        let avoiders = avoiders(&world);
        let mut sim = Self {
            description: scenario.description().trim().to_owned(),
            numbering,
            side_view,
            ballistics,
            ended: Vec::new(),
            avoiders,
            step: 0,
            unreachable: 0,
            agents: world.crowd.len(),
            measures: None,
            replay: None,
            world,
        };
        if outputs.metrics {
            let mut m = Measures::new(&sim.world, &sim.numbering, &jumpers);
            // a run of no steps measures its formation slots at the start
            if sim.world.settings.steps == 0 && !sim.world.formations.is_empty() {
                m.slots.add(&sim.world.crowd, &sim.numbering);
            }
            sim.measures = Some(m);
        }
        if let Some(budget) = outputs.replay {
            sim.replay = Some(sim.replay(scenario, budget)?);
            sim.record_frame(f32::INFINITY)?;
        }
        Ok(sim)
    }

    /// Keeps what an edited copy of the run must not lose: the step count, the shells in the
    /// air, each turret's counts and the time of its next shot, and the grenades' predicted
    /// blasts as the crowd's hazards.
    ///
    /// # Errors
    /// The crowd's refusal of a hazard (never for a checked plan).
    pub fn carry_over(&mut self, old: &Self) -> Result<(), SimulationError> {
        self.step = old.step;
        self.ballistics.carry_over(&old.ballistics);
        self.ballistics
            .apply_hazards(&mut self.world.crowd, V::lower)
            .map_err(|e| SimulationError::Step { step: self.step, message: e.to_string() })
    }

    /// One step of the scenario's `dt` (see the [module docs](self) for its order).
    ///
    /// # Errors
    /// [`SimulationError::Step`] naming the step: the crowd's refusal, a stale handle.
    pub fn step(&mut self) -> Result<(), SimulationError> {
        self.step_by(self.world.settings.dt, |_, _| {})
    }

    /// One step of `dt` (s), `on_event` called with each of the crowd's events and the number
    /// of the agent it is about (a front end that steps on its own clock, such as a game's
    /// fixed update).
    ///
    /// # Errors
    /// As [`Simulation::step`].
    pub fn step_by(
        &mut self,
        dt: f32,
        mut on_event: impl FnMut(&CrowdEvent, Option<u32>),
    ) -> Result<(), SimulationError> {
        let step = self.step + 1;
        let fail = |e: String| SimulationError::Step { step, message: e };
        let step32 = u32::try_from(step).unwrap_or(u32::MAX);
        if let (Some(nav), Some(crowd)) =
            (self.world.navigation.as_mut(), V::planar_crowd(&mut self.world.crowd))
        {
            let events = nav.update(crowd, dt);
            let unreachable = |e: &&NavEvent| matches!(e, NavEvent::Unreachable { .. });
            self.unreachable += events.iter().filter(unreachable).count() as u64;
        }
        let events = self.world.crowd.step(dt).map_err(|e| fail(e.to_string()))?;
        for e in events {
            let who = self.numbering.number(e.agent());
            if let Some(m) = self.measures.as_mut() {
                m.events.count(e, who, step);
            }
            if let (Some(r), Some(kind)) = (self.replay.as_mut(), record::event_kind(e)) {
                r.recorder.event(step32, kind, who);
            }
            on_event(e, who);
        }
        self.step = step;
        let min_gap = match self.measures.as_mut() {
            Some(m) => m.after_step(&mut self.world.crowd, &self.numbering, step),
            None => f32::INFINITY,
        };
        self.ended.clear();
        if !self.ballistics.is_empty() {
            self.fly_shells(step32, dt).map_err(fail)?;
        }
        if let (Some(sv), Some(crowd)) =
            (self.side_view.as_mut(), V::planar_crowd(&mut self.world.crowd))
        {
            let events = sv.step(dt, crowd).map_err(|e| fail(e.to_string()))?;
            if let Some(r) = self.replay.as_mut() {
                for (kind, agent) in events {
                    r.recorder.event(step32, kind, Some(agent));
                }
            }
        }
        // formation slots, second half of the run
        let half = self.step * 2 >= self.world.settings.steps;
        if let (Some(m), true) = (self.measures.as_mut(), half && !self.world.formations.is_empty())
        {
            m.slots.add(&self.world.crowd, &self.numbering);
        }
        if self.replay.as_ref().is_some_and(|r| r.recorder.records(step32)) {
            self.record_frame(min_gap)?;
        }
        Ok(())
    }

    /// Moves the turrets' shells and fires what is due (after the crowd's step).
    fn fly_shells(&mut self, step: u32, dt: f32) -> Result<(), String> {
        let crowd = &self.world.crowd;
        // storage order, each agent with its number
        let bodies: Vec<(u32, Vec3, f32)> = crowd
            .handles()
            .zip(crowd.positions())
            .filter_map(|(h, &p)| Some((self.numbering.number(h)?, V::lift(p), crowd.radius(h)?)))
            .collect();
        let out = self
            .ballistics
            .step(step, dt, &mut self.world.crowd, &bodies, V::lift, V::lower)
            .map_err(|e| e.to_string())?;
        if let Some(r) = self.replay.as_mut() {
            for (kind, agent) in out.events {
                r.recorder.event(step, kind, agent);
            }
            for shot in &out.finished {
                r.recorder.shot(shot.clone());
            }
        }
        self.ended = out.finished;
        Ok(())
    }

    /// Steps taken.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The world: crowd, groups, static world, paths, formations, settings.
    #[must_use]
    pub fn world(&self) -> &World<V> {
        &self.world
    }

    /// The crowd.
    #[must_use]
    pub fn crowd(&self) -> &Crowd<V> {
        &self.world.crowd
    }

    /// The crowd, to move goals and agents between steps.
    pub fn crowd_mut(&mut self) -> &mut Crowd<V> {
        &mut self.world.crowd
    }

    /// The agents' numbers in file order.
    #[must_use]
    pub fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// The scenario's description, trimmed.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The side view's jumpers, if the world is seen from the side.
    #[must_use]
    pub fn side_view(&self) -> Option<&SideViewRun> {
        self.side_view.as_ref()
    }

    /// The turrets and their shells.
    #[must_use]
    pub fn ballistics(&self) -> &Ballistics {
        &self.ballistics
    }

    /// The shots that ended (hit, landed, left the world) in the last step.
    #[must_use]
    pub fn ended_shots(&self) -> &[Shot] {
        &self.ended
    }

    /// Group `g`'s first obstacle-avoidance leaf, the one whose rays frames draw.
    #[must_use]
    pub fn avoider(&self, g: usize) -> Option<&ObstacleAvoidance> {
        self.avoiders.get(g).and_then(Option::as_ref)
    }

    /// Calls `f(from, to, hit)` for each ray agent `h` casts with group `g`'s avoider (in its
    /// own fan state) against the crowd's obstacles, `hit` the fraction of the ray to the first
    /// hit.
    pub fn rays(&self, g: usize, h: AgentHandle, mut f: impl FnMut(V, V, Option<f32>)) {
        let crowd = &self.world.crowd;
        let (Some(avoid), Some(k), Some(obstacles)) =
            (self.avoider(g), crowd.kinematic(h), crowd.obstacles())
        else {
            return;
        };
        let leaf = crowd.avoidance(h).map_or(*avoid, |s| avoid.with_state(s));
        leaf.cast_rays(&k, obstacles, |ray, hit| {
            let length = ray.max_distance();
            let hit = hit.map(|c| if length > 0.0 { c.distance / length } else { 0.0 });
            f(ray.origin(), ray.end(), hit);
        });
    }

    /// The world and the replay (if one was recorded), at the end of a run.
    #[must_use]
    pub fn into_parts(self) -> (World<V>, Numbering, Option<Recording>) {
        (self.world, self.numbering, self.replay.map(|r| r.recorder.finish()))
    }
}

/// The side view's jumpers, planned from where the crowd's agents are now, and their handles;
/// none unless the scenario is 2D with a `[side_view]`.
fn side_view<V: Dim>(
    scenario: &Scenario,
    world: &World<V>,
    numbering: &Numbering,
) -> Result<(Option<SideViewRun>, Vec<AgentHandle>), String> {
    let Some(plan) = scenario.plan::<V>() else { return Ok((None, Vec::new())) };
    let Some(view) = plan.side_view.as_ref() else { return Ok((None, Vec::new())) };
    let groups: Vec<JumperGroup> = world
        .groups
        .iter()
        .zip(&plan.groups)
        .filter_map(|(g, gp)| {
            Some(JumperGroup {
                name: g.name.clone(),
                agents: g.agents.iter().filter_map(|&h| Some((h, numbering.number(h)?))).collect(),
                radius: gp.radius,
                limits: gp.limits,
                jump_speed: gp.jump?.jump_speed,
            })
        })
        .collect();
    let jumpers = groups.iter().flat_map(|g| g.agents.iter().map(|&(h, _)| h)).collect();
    let crowd = &world.crowd;
    let start = |h| crowd.kinematic(h).map(|k| V::lift(k.position).truncate());
    let run =
        SideViewRun::new(view, groups, world.settings.dt, start).map_err(|e| e.to_string())?;
    Ok((Some(run), jumpers))
}

/// Each group's first obstacle-avoidance leaf.
fn avoiders<V: Dim>(world: &World<V>) -> Vec<Option<ObstacleAvoidance>> {
    world
        .groups
        .iter()
        .map(|g| {
            let mut first = None;
            if let Some(spec) = world.crowd.group(g.id) {
                spec.recipe.for_each_leaf(&mut |r| {
                    if let (None, Recipe::ObstacleAvoidance(o)) = (first, r) {
                        first = Some(*o);
                    }
                });
            }
            first
        })
        .collect()
}
