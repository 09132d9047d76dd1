//! One live simulation: a scenario kept as a document, the crowd built from it, and the edits a
//! page makes to both.
//!
//! The session holds the scenario as a JSON document ([`serde_json::Value`], the same tree a
//! TOML file parses to). On load, every group's agents are written out explicitly (spawn
//! regions and counts become an `agents` list at the placed positions), so that the document
//! names every agent. Edits that change the *world or the recipes* (a slider, a target point,
//! an obstacle, a wall end, an agent added or removed) change the document, which is checked
//! and built again by `steerkit-scenario` (its validation, its one-line errors naming key, value
//! and what is allowed, and the library's validating constructors); the running agents are then
//! carried over into the new crowd: position, velocity, orientation, angular velocity and goal.
//! Only per-behaviour memory (a wander angle, an avoidance fan's state, path progress) starts
//! afresh after such an edit. A slider in a group's behaviour tree goes further: the checked and
//! built settings of that one group replace the running group's (`Crowd::set_group`), so its
//! agents keep all their state. Moving a goal changes the running crowd directly.
//!
//! The session is generic over the space ([`Sim`]`<V>`, [`Session`] in 2D, [`Session3`] in
//! 3D; [`Space`] holds what differs); a connection holds an [`AnySession`] of the file's
//! `dimensions`. Points are `[x, y, z]` ([`Point`], `z` unused in 2D; y is up in 3D), and 3D
//! frames carry three components per agent and each body's attitude quaternion, as 3D
//! recordings do.
//!
//! The running scenario is a [`Simulation`], the one `steerkit run` steps: crowd, turrets and
//! their shells (3D), side views, in the same order; an edit builds a new one from the edited
//! document and carries the agents, the shells and the turrets' counts over. Frames carry the
//! shots in the air and those just ended in the recording's `shots` shape, and each turret's
//! counts as `metrics.json` gives them.
//!
//! The session is deterministic: no clock and no global random numbers. The same document and
//! the same edits at the same steps give the same states (the crowd's step is deterministic and
//! a rebuild is a pure function of the document).

use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use steerkit::crowd::AgentHandle;
use steerkit::{Vec2, Vec3};
use steerkit_scenario::ballistics::{Shot, TurretMetrics};
use steerkit_scenario::recording::{PathPoint, PathShape, WallShape, PALETTE};
use steerkit_scenario::{Outputs, Scenario, Simulation, World};

/// A point as messages and the document carry it: `[x, y, z]` (m); `z` is 0 in 2D.
pub type Point = [f64; 3];

/// What a live session needs of its space: [`Dim`], the one dimension trait ([`Vec2`] for 2D
/// scenarios, [`Vec3`] for 3D ones, y up).
pub use steerkit_scenario::Dim as Space;

/// Agents one session may hold (a load or an `add_agent` beyond this is refused).
pub const MAX_AGENTS: usize = 2000;
/// Above this many agents, steering and target overlays are sent for the selected agent only.
pub const OVERLAY_AGENTS: usize = 250;
/// Agents (the first of the groups that avoid obstacles) whose feelers every frame carries; the
/// selected agent's are always sent.
pub const RAY_AGENTS: usize = 8;
/// Goal handles sent with a frame, at most (the first agents with a goal).
pub const GOAL_HANDLES: usize = 24;
/// Coordinates a page may send (m): `|x|, |y|` at most this.
pub const MAX_COORDINATE: f64 = 1.0e5;
/// A shot that ended is sent this long after (s): the player draws its impact as long.
pub const SHOT_LINGER: f32 = 1.5;
/// Shots a frame carries at most (the latest fired).
pub const SHOTS_SENT: usize = 48;
/// Samples of a shot's flight a frame carries at most (evenly thinned beyond).
pub const SHOT_SAMPLES: usize = 100;

mod any;
mod edit;
mod goals;
mod params;
mod view;

pub use any::AnySession;
use edit::obstacle_centre;
use params::params_of;
pub use params::Param;
use view::rounded;

/// A point the page can drag.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Handle {
    /// A behaviour's fixed target point (or a formation anchor's), at `path` in the document.
    Target {
        /// Document path of the `[x, y]` value.
        path: String,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
        /// Where it is (m), 3D only.
        #[serde(skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
    /// An agent's goal.
    Goal {
        /// The agent's number.
        agent: usize,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
        /// Where it is (m), 3D only.
        #[serde(skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
    /// An obstacle's centre.
    Obstacle {
        /// Index in `obstacles`.
        id: usize,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
        /// Where it is (m), 3D only.
        #[serde(skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
    /// A turret's muzzle.
    Turret {
        /// Index in `turrets`.
        id: usize,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
        /// Where it is (m), 3D only.
        #[serde(skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
    /// One end of a wall.
    WallEnd {
        /// Index in `walls`.
        id: usize,
        /// 0: `from`, 1: `to`.
        end: u8,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
        /// Where it is (m), 3D only.
        #[serde(skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
}

/// A live 2D simulation.
pub type Session = Sim<Vec2>;
/// A live 3D simulation.
pub type Session3 = Sim<Vec3>;

/// A live simulation in space `V`.
pub struct Sim<V: Space> {
    name: String,
    description: String,
    /// The document as loaded, for `reset`.
    original: Value,
    doc: Value,
    /// The running scenario: stepped as `steerkit run` steps it.
    sim: Simulation<V>,
    /// Shots that ended in the last [`SHOT_LINGER`] seconds, in the order they ended.
    ended: Vec<Shot>,
    params: Vec<Param>,
    selected: Option<usize>,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A document point: `[x, y]` or `[x, y, z]` (`z = 0` for the former).
fn xyz(v: &Value) -> Option<Point> {
    let a = v.as_array()?;
    match a.len() {
        2 => Some([a[0].as_f64()?, a[1].as_f64()?, 0.0]),
        3 => Some([a[0].as_f64()?, a[1].as_f64()?, a[2].as_f64()?]),
        _ => None,
    }
}

/// A point as the document of a `dims`-D scenario writes it.
fn point(p: Point, dims: usize) -> Value {
    if dims == 3 {
        json!(p)
    } else {
        json!([p[0], p[1]])
    }
}

/// A vector's components as a document point.
fn point_of<V: Space>(v: V) -> Value {
    let c = V::components(v);
    point([c[0].into(), c[1].into(), c[2].into()], V::DIMS)
}

/// A message's point in `V` (`z` dropped in 2D).
fn vector<V: Space>(p: Point) -> V {
    let c = [p[0] as f32, p[1] as f32, p[2] as f32];
    V::from_components(&c[..V::DIMS])
}

/// The `z` of a handle: `Some` in 3D.
fn handle_z(p: Point, dims: usize) -> Option<f64> {
    (dims == 3).then_some(p[2])
}

/// The value at a document path like `groups[0].behaviour.members[1].threshold`.
fn lookup_mut<'a>(doc: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut at = doc;
    for part in path.split('.') {
        let (key, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        at = at.get_mut(key)?;
        for index in indices.split('[').skip(1) {
            let i: usize = index.strip_suffix(']')?.parse().ok()?;
            at = at.get_mut(i)?;
        }
    }
    Some(at)
}

impl<V: Space> Sim<V> {
    /// Loads TOML text: parsed and checked by `steerkit-scenario` (its errors, with line and
    /// column), then built.
    ///
    /// # Errors
    /// The scenario's error; a scenario of the other space (see [`AnySession::from_toml`]);
    /// more than [`MAX_AGENTS`] agents.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, String> {
        let scenario = Scenario::from_toml_str(text, origin).map_err(err)?;
        Self::from_scenario(&scenario, text, origin)
    }

    fn from_scenario(scenario: &Scenario, text: &str, origin: &str) -> Result<Self, String> {
        if scenario.dimensions() != V::DIMS {
            return Err(format!(
                "{origin}: dimensions: this session runs {}D scenarios; `{}` is {}D",
                V::DIMS,
                scenario.name(),
                scenario.dimensions()
            ));
        }
        if scenario.agent_count() > MAX_AGENTS {
            return Err(format!(
                "{origin}: groups: {} agents is more than a live session holds (at most {MAX_AGENTS})",
                scenario.agent_count()
            ));
        }
        let mut doc: Value = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
        let Some(plan) = scenario.plan::<V>() else {
            return Err(format!("{origin}: dimensions: not a {}D scenario", V::DIMS));
        };
        // every agent written out, at its placed position
        if let Some(groups) = doc.get_mut("groups").and_then(Value::as_array_mut) {
            for (g, gp) in groups.iter_mut().zip(&plan.groups) {
                let Some(obj) = g.as_object_mut() else { continue };
                obj.remove("count");
                obj.remove("spawn");
                // a goal rule is resolved once, from the start positions: each agent's goal
                // is written out instead (the rule may need the spawn region just removed)
                obj.remove("goal_rule");
                let group_goal = obj.contains_key("goal");
                let agents = gp
                    .agents
                    .iter()
                    .map(|a| {
                        let mut o = Map::new();
                        o.insert("position".into(), point_of(a.position));
                        if V::components(a.velocity) != [0.0; 3] {
                            o.insert("velocity".into(), point_of(a.velocity));
                        }
                        o.insert("orientation".into(), json!(V::heading_of(a.orientation)));
                        if let (Some(goal), false) = (a.goal, group_goal) {
                            o.insert("goal".into(), point_of(goal));
                        }
                        Value::Object(o)
                    })
                    .collect();
                obj.insert("agents".into(), Value::Array(agents));
            }
        }
        let sim = build_simulation::<V>(&doc, origin)?;
        let mut s = Sim {
            name: scenario.name().to_owned(),
            description: scenario.description().trim().to_owned(),
            original: doc.clone(),
            doc,
            sim,
            ended: Vec::new(),
            params: Vec::new(),
            selected: None,
        };
        s.refresh();
        Ok(s)
    }

    /// The scenario's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Steps taken since the load (or the last reset).
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.sim.step_count()
    }

    /// The time step (s).
    #[must_use]
    pub fn dt(&self) -> f32 {
        self.sim.world().settings.dt
    }

    /// Agents in the crowd.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.world().groups.iter().map(|g| g.agents.len()).sum()
    }

    /// The sliders: every numeric parameter of the groups' limits and behaviour trees (and
    /// formation anchors') with its allowed range.
    #[must_use]
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The crowd and its groups.
    #[must_use]
    pub fn world(&self) -> &World<V> {
        self.sim.world()
    }

    /// Agent `id`'s handle (agents numbered groups first to last, as the replay numbers them).
    #[must_use]
    pub fn handle(&self, id: usize) -> Option<AgentHandle> {
        let (g, k) = self.locate(id)?;
        self.world().groups[g].agents.get(k).copied()
    }

    fn locate(&self, id: usize) -> Option<(usize, usize)> {
        let mut first = 0;
        for (g, group) in self.world().groups.iter().enumerate() {
            if id < first + group.agents.len() {
                return Some((g, id - first));
            }
            first += group.agents.len();
        }
        None
    }

    fn group_index(&self, name: &str) -> Result<usize, String> {
        self.world().groups.iter().position(|g| g.name == name).ok_or_else(|| {
            format!(
                "`group` = {name:?} names no group; the groups are {}",
                self.world()
                    .groups
                    .iter()
                    .map(|g| format!("`{}`", g.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    fn agent_error(&self, id: u64) -> String {
        let n = self.agent_count();
        if n == 0 {
            format!("`id` = {id} names no agent; the crowd is empty")
        } else {
            format!("`id` = {id} names no agent; the agents are 0 to {}", n - 1)
        }
    }

    /// Params and the selection after a (re)build.
    fn refresh(&mut self) {
        self.params = params_of(&self.doc, self.sim.world());
        if self.selected.is_some_and(|s| s >= self.agent_count()) {
            self.selected = None;
        }
    }

    /// One step of `dt`: the simulation's step (crowd, shells, side view), and the shots that
    /// ended kept for [`SHOT_LINGER`] seconds.
    ///
    /// # Errors
    /// The crowd's refusal (the session should pause).
    pub fn step(&mut self) -> Result<(), String> {
        self.sim.step().map_err(err)?;
        if !self.sim.ballistics().is_empty() {
            let step = self.sim.step_count();
            let linger = (SHOT_LINGER / self.dt()).ceil() as u64;
            self.ended.extend_from_slice(self.sim.ended_shots());
            self.ended.retain(|s| u64::from(s.end) + linger >= step);
        }
        Ok(())
    }

    /// The shots a frame carries, in the recording's `shots` shape and in firing order: those
    /// that ended in the last [`SHOT_LINGER`] seconds and those in the air (`outcome`
    /// `"flying"`, `end` the current step, `impact` where each is now); the latest
    /// [`SHOTS_SENT`], each flight thinned to [`SHOT_SAMPLES`] samples and rounded to 1 mm.
    #[must_use]
    pub fn shots(&self) -> Vec<Shot> {
        let step = u32::try_from(self.step_count()).unwrap_or(u32::MAX);
        let mut all: Vec<Shot> = self.ended.clone();
        all.extend(self.sim.ballistics().flying(step));
        all.sort_by_key(|s| (s.step, s.turret));
        let skip = all.len().saturating_sub(SHOTS_SENT);
        all.into_iter().skip(skip).map(rounded).collect()
    }

    /// Each turret's counts since the load (or the last reset), as `metrics.json` gives them.
    #[must_use]
    pub fn turret_metrics(&self) -> Vec<TurretMetrics> {
        self.sim.ballistics().metrics()
    }

    /// Back to the scenario as loaded, at step 0.
    ///
    /// # Errors
    /// None in practice (the original document built before).
    pub fn reset(&mut self) -> Result<(), String> {
        self.sim = build_simulation::<V>(&self.original, &self.name)?;
        self.ended.clear();
        self.doc = self.original.clone();
        self.refresh();
        Ok(())
    }

    /// Selects agent `id` (its feelers and neighbour radius are sent) or none.
    ///
    /// # Errors
    /// An unknown agent.
    pub fn select(&mut self, id: Option<u64>) -> Result<(), String> {
        match id {
            None => self.selected = None,
            Some(i) => {
                let k = usize::try_from(i)
                    .ok()
                    .filter(|&k| k < self.agent_count())
                    .ok_or_else(|| self.agent_error(i))?;
                self.selected = Some(k);
            }
        }
        Ok(())
    }

    /// The selected agent.
    #[must_use]
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Sets agent `agent`'s goal, or the goals of every agent of `group`.
    ///
    /// # Errors
    /// An unknown agent or group, or neither given.
    pub fn move_goal(
        &mut self,
        agent: Option<u64>,
        group: Option<&str>,
        p: Point,
    ) -> Result<(), String> {
        let to = Some(vector::<V>(p));
        let handles: Vec<AgentHandle> = match (agent, group) {
            (Some(id), _) => {
                let h = usize::try_from(id)
                    .ok()
                    .and_then(|i| self.handle(i))
                    .ok_or_else(|| self.agent_error(id))?;
                vec![h]
            }
            (None, Some(name)) => self.world().groups[self.group_index(name)?].agents.clone(),
            (None, None) => return Err("needs `agent` (a number) or `group` (a name)".into()),
        };
        for h in handles {
            // an agent the crowd dropped has no goal to move
            let _ = self.sim.crowd_mut().set_goal(h, to);
        }
        Ok(())
    }
}

/// Checks and builds a document with the scenario crate.
fn build<V: Space>(doc: &Value, origin: &str) -> Result<World<V>, String> {
    build_scenario(doc, origin).map(|(_, w)| w)
}

/// A number as an error message shows it: huge and tiny values in exponent form.
#[must_use]
pub fn show(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The simulation of a document, checked and built by the scenario crate.
fn build_simulation<V: Space>(doc: &Value, origin: &str) -> Result<Simulation<V>, String> {
    let (scenario, world) = build_scenario::<V>(doc, origin)?;
    Simulation::from_world(&scenario, world, Outputs::default()).map_err(err)
}

/// The same, with the checked scenario.
fn build_scenario<V: Space>(doc: &Value, origin: &str) -> Result<(Scenario, World<V>), String> {
    let scenario = Scenario::from_json_str(&doc.to_string(), origin).map_err(err)?;
    let world = scenario.build_in::<V>().map_err(err)?;
    Ok((scenario, world))
}
