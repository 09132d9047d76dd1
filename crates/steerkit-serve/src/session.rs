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
//! Turrets (`[[turrets]]`, 3D) run with `steerkit run`'s own code
//! ([`steerkit_scenario::ballistics::Ballistics`]), stepped after the crowd as the runner steps
//! them; frames carry the shots in the air and those just ended in the recording's `shots`
//! shape, and each turret's counts as `metrics.json` gives them.
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

/// A numeric parameter of a group's limits or behaviour tree, as a slider shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Param {
    /// Where it lives in the document, e.g. `groups[0].behaviour.members[1].threshold`.
    pub path: String,
    /// The group (or formation anchor) it belongs to.
    pub owner: String,
    /// The behaviour node's kind and the key, e.g. `separation threshold`.
    pub label: String,
    /// Current value.
    pub value: f64,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// Slider step.
    pub step: f64,
    /// Whole numbers only (e.g. `ray_count`).
    pub integer: bool,
}

/// The slider range of a numeric key: (min, max, step, unit-free default upper bound). The
/// upper bound is raised to twice the current value when the scenario starts above it.
fn range_of(key: &str) -> Option<(f64, f64, f64)> {
    Some(match key {
        "max_speed" => (0.0, 20.0, 0.1),
        "max_acceleration" => (0.0, 60.0, 0.1),
        "weight" | "separation_weight" | "alignment_weight" | "cohesion_weight"
        | "wander_weight" | "braking_weight" => (0.0, 10.0, 0.05),
        "epsilon" => (0.0, 2.0, 0.01),
        "target_radius" => (0.0, 5.0, 0.01),
        "slow_radius" => (0.0, 30.0, 0.1),
        "time_to_target" => (0.01, 2.0, 0.01),
        "panic_distance" | "threat_range" => (0.0, 50.0, 0.1),
        "max_prediction" | "predict_time" | "lookahead_time" | "horizon" => (0.0, 5.0, 0.05),
        "radius" | "distance" => (0.0, 20.0, 0.05),
        "jitter" | "rate" => (0.0, 20.0, 0.05),
        "threshold" | "margin" | "avoid_distance" | "buffer" => (0.0, 10.0, 0.05),
        "lookahead" | "length" | "min_length" | "range" => (0.0, 30.0, 0.1),
        "half_angle" | "side_angle" | "max_half_angle" => (0.0, 1.57, 0.01),
        "whisker_ratio" | "side_ratio" | "ratio" | "decay" => (0.0, 1.0, 0.01),
        "half_width" | "path_radius" | "ahead" | "offset" => (0.0, 20.0, 0.05),
        "ray_count" => (1.0, 15.0, 1.0),
        "jump_speed" => (0.0, 20.0, 0.1),
        _ => return None,
    })
}

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

    /// Moves a behaviour's (or a formation anchor's) target point, one of the `target`
    /// handles.
    ///
    /// # Errors
    /// A path that is no target handle; the scenario's error.
    pub fn move_target(&mut self, path: &str, p: Point) -> Result<(), String> {
        let known =
            self.handles().iter().any(|h| matches!(h, Handle::Target { path: p, .. } if p == path));
        if !known {
            return Err(format!(
                "`path` = {path:?} is not a target point; the targets are {}",
                self.target_paths().join(", ")
            ));
        }
        self.edit(
            |doc| {
                if let Some(v) = lookup_mut(doc, path) {
                    *v = point(p, V::DIMS);
                }
                Ok(())
            },
            identity,
        )
    }

    fn target_paths(&self) -> Vec<String> {
        let list: Vec<String> = self
            .handles()
            .into_iter()
            .filter_map(|h| match h {
                Handle::Target { path, .. } => Some(format!("`{path}`")),
                _ => None,
            })
            .collect();
        if list.is_empty() {
            vec!["none in this scenario".into()]
        } else {
            list
        }
    }

    /// Checks that `id` names an entry of the document's list `key` (one `noun` each) and
    /// returns its index.
    fn entry(&self, key: &str, noun: &str, id: u64) -> Result<usize, String> {
        let count = self.doc.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        usize::try_from(id).ok().filter(|&i| i < count).ok_or_else(|| {
            if count == 0 {
                format!("`id` = {id} names no {noun}; the scenario has none")
            } else {
                format!("`id` = {id} names no {noun}; the {key} are 0 to {}", count - 1)
            }
        })
    }

    /// Moves obstacle `id` so that its centre is at `p`.
    ///
    /// # Errors
    /// An unknown obstacle; the scenario's error.
    pub fn move_obstacle(&mut self, id: u64, p: Point) -> Result<(), String> {
        let i = self.entry("obstacles", "obstacle", id)?;
        self.edit(
            |doc| {
                let o = lookup_mut(doc, &format!("obstacles[{i}]")).ok_or("obstacle gone")?;
                let c = obstacle_centre(o).ok_or("the obstacle has no centre")?;
                translate_obstacle(o, [p[0] - c[0], p[1] - c[1], p[2] - c[2]]);
                Ok(())
            },
            identity,
        )
    }

    /// Moves one end of wall `id` (`end` 0: `from`, 1: `to`).
    ///
    /// # Errors
    /// An unknown wall or end; the scenario's error.
    pub fn move_wall_end(&mut self, id: u64, end: u64, p: Point) -> Result<(), String> {
        let i = self.entry("walls", "wall", id)?;
        let key = match end {
            0 => "from",
            1 => "to",
            _ => return Err(format!("`end` = {end} is no wall end; allowed 0 (from) or 1 (to)")),
        };
        self.edit(
            |doc| {
                let w = lookup_mut(doc, &format!("walls[{i}].{key}")).ok_or("wall gone")?;
                *w = point(p, V::DIMS);
                Ok(())
            },
            identity,
        )
    }

    /// Moves turret `id`'s muzzle to `p`; its shells in the air fly on, its next shot leaves
    /// from there.
    ///
    /// # Errors
    /// An unknown turret; the scenario's error.
    pub fn move_turret(&mut self, id: u64, p: Point) -> Result<(), String> {
        let i = self.entry("turrets", "turret", id)?;
        self.edit(
            |doc| {
                let t = lookup_mut(doc, &format!("turrets[{i}].position")).ok_or("turret gone")?;
                *t = point(p, V::DIMS);
                Ok(())
            },
            identity,
        )
    }

    /// Adds an agent to `group` at `p`, heading and goal as the group's last agent's.
    ///
    /// # Errors
    /// An unknown group; [`MAX_AGENTS`] reached; the scenario's error.
    pub fn add_agent(&mut self, group: &str, p: Point) -> Result<(), String> {
        let g = self.group_index(group)?;
        if self.agent_count() >= MAX_AGENTS {
            return Err(format!(
                "the session holds {} agents, its most ({MAX_AGENTS}); remove some first",
                self.agent_count()
            ));
        }
        let last = self.world().groups[g].agents.last().copied();
        let goal = last.and_then(|h| self.sim.crowd().goal(h));
        let old_len = self.world().groups[g].agents.len();
        self.edit(
            |doc| {
                let agents = lookup_mut(doc, &format!("groups[{g}].agents"))
                    .and_then(Value::as_array_mut)
                    .ok_or("the group has no agent list")?;
                let mut o = Map::new();
                o.insert("position".into(), point(p, V::DIMS));
                if let Some(goal) = goal {
                    o.insert("goal".into(), point_of(goal));
                }
                agents.push(Value::Object(o));
                Ok(())
            },
            move |gi, k| (gi != g || k < old_len).then_some(k),
        )
    }

    /// Removes agent `id`.
    ///
    /// # Errors
    /// An unknown agent; the scenario's error (a group left empty, an agent others refer to).
    pub fn remove_agent(&mut self, id: u64) -> Result<(), String> {
        let (g, k) = usize::try_from(id)
            .ok()
            .and_then(|i| self.locate(i))
            .ok_or_else(|| self.agent_error(id))?;
        self.edit(
            |doc| {
                let agents = lookup_mut(doc, &format!("groups[{g}].agents"))
                    .and_then(Value::as_array_mut)
                    .ok_or("the group has no agent list")?;
                agents.remove(k);
                Ok(())
            },
            move |gi, j| Some(if gi == g && j >= k { j + 1 } else { j }),
        )?;
        self.selected = None;
        Ok(())
    }

    /// Sets a slider's parameter: in range, then checked and built by the scenario crate.
    ///
    /// # Errors
    /// An unknown parameter, a value out of its range, or the scenario's error.
    pub fn set_param(&mut self, path: &str, value: f64) -> Result<(), String> {
        let Some(p) = self.params.iter().find(|p| p.path == path).cloned() else {
            let some: Vec<String> =
                self.params.iter().take(6).map(|p| format!("`{}`", p.path)).collect();
            return Err(format!(
                "`path` = {path:?} is no parameter of this scenario; {} (the scenario message \
                 lists them all)",
                if some.is_empty() {
                    "it has none".to_owned()
                } else {
                    format!("e.g. {}", some.join(", "))
                }
            ));
        };
        if !value.is_finite() || value < p.min || value > p.max {
            return Err(format!(
                "`value` = {} for `{path}` is out of range; allowed {} to {}",
                crate::protocol::show(value),
                p.min,
                p.max
            ));
        }
        if p.integer && value.fract() != 0.0 {
            return Err(format!("`value` = {value} for `{path}` must be a whole number"));
        }
        let set = |doc: &mut Value| {
            let v = lookup_mut(doc, path).ok_or("parameter gone")?;
            *v = if p.integer { json!(value as i64) } else { json!(value) };
            Ok(())
        };
        if let Some(g) = behaviour_group(path) {
            if self.replace_recipe(g, set)? {
                return Ok(());
            }
        }
        self.edit(set, identity)
    }

    /// A change to group `g`'s behaviour tree, applied to the running crowd without rebuilding
    /// it: the document is checked and built as always, then only the group's new settings
    /// replace the old ones (`Crowd::set_group`: the agents keep all their state, wander angles
    /// and feeler fans included). `Ok(false)` when that cannot be done safely (the new world
    /// numbers its agents differently), and nothing changed.
    fn replace_recipe(
        &mut self,
        g: usize,
        change: impl FnOnce(&mut Value) -> Result<(), &'static str>,
    ) -> Result<bool, String> {
        let mut doc = self.doc.clone();
        change(&mut doc).map_err(str::to_owned)?;
        let world = build(&doc, &self.name)?;
        // recipes name agents and paths by handle and index: the same only when both worlds
        // hold the same agents in the same order
        let running = self.sim.world();
        let same = world.groups.len() == running.groups.len()
            && world.groups.iter().zip(&running.groups).all(|(a, b)| a.agents == b.agents);
        let (Some(new), Some(old)) = (world.groups.get(g), running.groups.get(g)) else {
            return Ok(false);
        };
        let old = old.id;
        let Some(spec) = world.crowd.group(new.id).cloned() else { return Ok(false) };
        if !same {
            return Ok(false);
        }
        self.sim.crowd_mut().set_group(old, spec).map_err(|e| e.to_string())?;
        self.doc = doc;
        self.refresh();
        Ok(true)
    }

    /// Applies `change` to a copy of the document, builds it, and carries the running agents
    /// over: new agent `k` of group `g` takes the state of old agent `map(g, k)`. On any error
    /// the session is left as it was.
    fn edit(
        &mut self,
        change: impl FnOnce(&mut Value) -> Result<(), &'static str>,
        map: impl Fn(usize, usize) -> Option<usize>,
    ) -> Result<(), String> {
        let mut doc = self.doc.clone();
        self.write_anchors(&mut doc);
        // the running agents' velocities are carried over below; the document's (those of the
        // load) would be checked against limits a slider may just have lowered
        strip_velocities(&mut doc);
        change(&mut doc).map_err(str::to_owned)?;
        let (checked, mut world) = build_scenario::<V>(&doc, &self.name)?;
        let old = self.sim.crowd();
        for (gi, g) in world.groups.iter().enumerate() {
            let Some(og) = self.sim.world().groups.get(gi) else { continue };
            for (k, &h) in g.agents.iter().enumerate() {
                let Some(&oh) = map(gi, k).and_then(|ok| og.agents.get(ok)) else { continue };
                if let Some(kin) = old.kinematic(oh) {
                    let _ = world.crowd.write_kinematic(h, kin);
                }
                let _ = world.crowd.set_goal(h, old.goal(oh));
            }
        }
        // a side view's jumpers are planned again from where they are now; turrets carry on:
        // shells in the air, counts, the time of each one's next shot, and the grenades'
        // predicted blasts as the new crowd's hazards
        let mut sim = Simulation::from_world(&checked, world, Outputs::default()).map_err(err)?;
        sim.carry_over(&self.sim).map_err(err)?;
        self.doc = doc;
        self.sim = sim;
        self.refresh();
        Ok(())
    }

    /// Formation anchors' current positions into the document, so a rebuild keeps them.
    fn write_anchors(&self, doc: &mut Value) {
        for (fi, (fid, _)) in self.world().formations.iter().enumerate() {
            let Some((position, orientation)) = V::anchor(self.sim.crowd(), *fid) else {
                continue;
            };
            if let Some(f) =
                lookup_mut(doc, &format!("formations[{fi}]")).and_then(Value::as_object_mut)
            {
                f.insert("anchor_position".into(), point_of(position));
                f.insert("anchor_orientation".into(), json!(orientation));
            }
        }
    }

    /// The current state as a scenario document: the world and recipes as edited, every agent
    /// at its current position, velocity, heading and goal.
    #[must_use]
    pub fn current_document(&self) -> Value {
        let mut doc = self.doc.clone();
        self.write_anchors(&mut doc);
        let crowd = self.sim.crowd();
        for (gi, g) in self.world().groups.iter().enumerate() {
            let Some(obj) =
                lookup_mut(&mut doc, &format!("groups[{gi}]")).and_then(Value::as_object_mut)
            else {
                continue;
            };
            let ruled = obj.contains_key("goal_rule");
            if !ruled {
                obj.remove("goal");
            }
            // a slider may just have lowered the max speed below an agent's speed: the saved
            // velocity is held to the limit the file's check applies
            let max_speed = obj
                .get("limits")
                .and_then(|l| l.get("max_speed"))
                .and_then(Value::as_f64)
                .map_or(f32::INFINITY, |m| m as f32);
            let agents: Vec<Value> = g
                .agents
                .iter()
                .filter_map(|&h| {
                    let k = crowd.kinematic(h)?;
                    let mut o = Map::new();
                    o.insert("position".into(), point_of(k.position));
                    let speed = k.velocity.length();
                    let velocity = if speed > max_speed {
                        k.velocity * (max_speed / speed * 0.999_999)
                    } else {
                        k.velocity
                    };
                    o.insert("velocity".into(), point_of(velocity));
                    o.insert("orientation".into(), json!(V::heading_of(k.orientation)));
                    if let (false, Some(goal)) = (ruled, crowd.goal(h)) {
                        o.insert("goal".into(), point_of(goal));
                    }
                    Some(Value::Object(o))
                })
                .collect();
            obj.insert("agents".into(), Value::Array(agents));
        }
        doc
    }

    /// The current state as TOML that `steerkit run` loads ([`Sim::current_document`]).
    ///
    /// # Errors
    /// A state the scenario format cannot start from (a side view's jumper in the air: a file
    /// starts jumpers on a platform top), with the format's reason; a document TOML cannot
    /// hold (not expected: it came from TOML).
    pub fn save_toml(&self) -> Result<String, String> {
        let doc = self.current_document();
        // the file must load: a state the format cannot start from (a side view's jumper in
        // the air) is refused with the format's reason
        Scenario::from_json_str(&doc.to_string(), &self.name).map_err(|e| {
            format!("save: the current state is no scenario file yet ({e}); save again later")
        })?;
        toml::to_string(&doc).map_err(|e| format!("save: {e}"))
    }

    /// The draggable points: behaviour and anchor targets, agents' goals (the first
    /// [`GOAL_HANDLES`]), obstacle centres, turrets and wall ends.
    #[must_use]
    pub fn handles(&self) -> Vec<Handle> {
        let mut out = Vec::new();
        let mut targets = Vec::new();
        if let Some(groups) = self.doc.get("groups").and_then(Value::as_array) {
            for (gi, g) in groups.iter().enumerate() {
                if let Some(b) = g.get("behaviour") {
                    find_targets(b, &format!("groups[{gi}].behaviour"), &mut targets);
                }
            }
        }
        if let Some(fs) = self.doc.get("formations").and_then(Value::as_array) {
            for (fi, f) in fs.iter().enumerate() {
                if let Some(b) = f.get("anchor") {
                    find_targets(b, &format!("formations[{fi}].anchor"), &mut targets);
                }
            }
        }
        let dims = V::DIMS;
        out.extend(targets.into_iter().map(|(path, p)| Handle::Target {
            path,
            x: p[0],
            y: p[1],
            z: handle_z(p, dims),
        }));
        let crowd = self.sim.crowd();
        let mut goals = 0;
        let mut id = 0;
        for g in &self.world().groups {
            for &h in &g.agents {
                if goals < GOAL_HANDLES {
                    if let Some(goal) = crowd.goal(h) {
                        let c = V::components(goal);
                        let p = [c[0].into(), c[1].into(), c[2].into()];
                        out.push(Handle::Goal {
                            agent: id,
                            x: p[0],
                            y: p[1],
                            z: handle_z(p, dims),
                        });
                        goals += 1;
                    }
                }
                id += 1;
            }
        }
        if let Some(os) = self.doc.get("obstacles").and_then(Value::as_array) {
            for (i, o) in os.iter().enumerate() {
                if let Some(p) = obstacle_centre(o) {
                    out.push(Handle::Obstacle { id: i, x: p[0], y: p[1], z: handle_z(p, dims) });
                }
            }
        }
        if let Some(ts) = self.doc.get("turrets").and_then(Value::as_array) {
            for (i, t) in ts.iter().enumerate() {
                if let Some(p) = t.get("position").and_then(xyz) {
                    out.push(Handle::Turret { id: i, x: p[0], y: p[1], z: handle_z(p, dims) });
                }
            }
        }
        if let Some(ws) = self.doc.get("walls").and_then(Value::as_array) {
            for (i, w) in ws.iter().enumerate() {
                for (end, key) in [(0u8, "from"), (1, "to")] {
                    if let Some(p) = w.get(key).and_then(xyz) {
                        out.push(Handle::WallEnd { id: i, end, x: p[0], y: p[1], z: None });
                    }
                }
            }
        }
        out
    }

    /// The replay's recording without frames but one: what the page's renderer is loaded
    /// with (see [`steerkit_scenario::recording`] for the schema), with the world's turrets
    /// and the shots a frame would carry ([`Sim::shots`]).
    #[must_use]
    pub fn recording(&self) -> Value {
        let w = self.sim.world();
        let mut world = V::recording_world(w);
        if let Some(sv) = self.sim.side_view() {
            // as `steerkit run` records a side view: platform tops as walls, planned jumps as
            // paths
            for (x0, x1, y) in sv.platforms() {
                world.walls.push(WallShape { a: [x0, y], b: [x1, y] });
            }
            for (name, points) in sv.arcs() {
                if points.len() >= 2 {
                    let points = points.into_iter().map(PathPoint::from).collect();
                    world.add_path(PathShape { name, points, looping: false });
                }
            }
        }
        let crowd = &w.crowd;
        let groups: Vec<Value> = w
            .groups
            .iter()
            .enumerate()
            .map(|(gi, g)| {
                let radius = g.agents.first().and_then(|&h| crowd.radius(h)).unwrap_or(0.5);
                json!({
                    "name": g.name,
                    "colour": g.colour.clone().unwrap_or_else(|| PALETTE[gi % PALETTE.len()].to_owned()),
                    "radius": radius,
                })
            })
            .collect();
        let agent_groups: Vec<usize> = w
            .groups
            .iter()
            .enumerate()
            .flat_map(|(gi, g)| std::iter::repeat_n(gi, g.agents.len()))
            .collect();
        if !self.sim.ballistics().is_empty() {
            // as `steerkit run` records them: a turret without a colour takes the palette's
            // next after the groups'
            let shapes = self
                .sim
                .ballistics()
                .shapes(|i| PALETTE[(w.groups.len() + i) % PALETTE.len()].to_owned());
            world.turrets = shapes;
        }
        let frame: Value = serde_json::from_str(&self.frame_json()).unwrap_or(Value::Null);
        let mut recording = json!({
            "format": "steerkit-replay",
            "version": 1,
            "meta": {
                "scenario": self.name,
                "description": self.description,
                "seed": w.settings.seed,
                "dt": w.settings.dt,
                "steps": 0,
                "every": 1,
                "dims": V::DIMS,
            },
            "world": world,
            "groups": groups,
            "agent_groups": agent_groups,
            "frames": [frame],
        });
        if !self.sim.ballistics().is_empty() {
            recording["shots"] = json!(self.shots());
        }
        recording
    }

    /// The current frame in the recording's per-frame shape (positions, velocities, headings,
    /// and overlays: steering, targets, slots for up to [`OVERLAY_AGENTS`] agents, feelers
    /// for [`RAY_AGENTS`] and the selected agent, the selected agent's neighbour radius).
    /// Numbers are rounded to 1 mm (as recordings are); a missing agent is `null`.
    #[must_use]
    pub fn frame_json(&self) -> String {
        let crowd = self.sim.crowd();
        let n = self.agent_count();
        let mut pos = String::with_capacity(n * 16);
        let mut vel = String::with_capacity(n * 16);
        let mut ori = String::with_capacity(n * 8);
        let mut att = String::new();
        let all_overlays = n <= OVERLAY_AGENTS;
        let mut steer = Layer::<V>::default();
        let mut target = Layer::<V>::default();
        let mut slots = Layer::<V>::default();
        let (mut ray_agent, mut ray_from, mut ray_to, mut ray_hit) =
            (String::new(), String::new(), String::new(), String::new());
        let debug = crowd.debug_info();
        let mut rays_left = RAY_AGENTS;
        let mut id = 0usize;
        for (gi, g) in self.world().groups.iter().enumerate() {
            for &h in &g.agents {
                let sep = if id == 0 { "" } else { "," };
                match (crowd.index_of(h), crowd.kinematic(h)) {
                    (Some(i), Some(k)) => {
                        let _ = write!(pos, "{sep}{}", Nums(k.position));
                        let _ = write!(vel, "{sep}{}", Nums(k.velocity));
                        let _ = write!(ori, "{sep}{}", Num(V::heading_of(k.orientation)));
                        if let Some(q) = V::attitude(k.orientation) {
                            let _ = write!(
                                att,
                                "{sep}{},{},{},{}",
                                Exact(q[0]),
                                Exact(q[1]),
                                Exact(q[2]),
                                Exact(q[3])
                            );
                        }
                        let chosen = self.selected == Some(id);
                        if all_overlays || chosen {
                            if let Some(d) = debug.get(i) {
                                steer.push(id, d.steering.linear);
                                if let Some(t) = d.target {
                                    target.push(id, t);
                                }
                            }
                            if let Some(s) = V::slot(crowd, h) {
                                slots.push(id, s);
                            }
                        }
                        let wants_rays = chosen || rays_left > 0;
                        if wants_rays && self.sim.avoider(gi).is_some() {
                            if !chosen {
                                rays_left -= 1;
                            }
                            self.sim.rays(gi, h, |a, b, hit| {
                                let hit = hit.unwrap_or(-1.0);
                                let s = if ray_agent.is_empty() { "" } else { "," };
                                let _ = write!(ray_agent, "{s}{id}");
                                let _ = write!(ray_from, "{s}{}", Nums(a));
                                let _ = write!(ray_to, "{s}{}", Nums(b));
                                let _ = write!(ray_hit, "{s}{}", Num(hit));
                            });
                        }
                    }
                    _ => {
                        let nulls = if V::DIMS == 3 { "null,null,null" } else { "null,null" };
                        let _ = write!(pos, "{sep}{nulls}");
                        let _ = write!(vel, "{sep}{nulls}");
                        let _ = write!(ori, "{sep}null");
                        if V::DIMS == 3 {
                            let _ = write!(att, "{sep}null,null,null,null");
                        }
                    }
                }
                id += 1;
            }
        }
        let step = u32::try_from(self.step_count()).unwrap_or(u32::MAX);
        let mut out = String::with_capacity(pos.len() * 3 + 256);
        let _ = write!(
            out,
            r#"{{"step":{step},"position":[{pos}],"velocity":[{vel}],"orientation":[{ori}],"#
        );
        if V::DIMS == 3 {
            let _ = write!(out, r#""attitude":[{att}],"#);
        }
        out.push_str(r#""overlays":{"#);
        let mut first = true;
        let mut layer = |out: &mut String, body: String| {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&body);
        };
        if !steer.agent.is_empty() {
            layer(
                &mut out,
                format!(r#""steering":{{"agent":[{}],"vector":[{}]}}"#, steer.agent, steer.values),
            );
        }
        if !target.agent.is_empty() {
            layer(
                &mut out,
                format!(r#""target":{{"agent":[{}],"point":[{}]}}"#, target.agent, target.values),
            );
        }
        if !slots.agent.is_empty() {
            layer(
                &mut out,
                format!(r#""slots":{{"agent":[{}],"point":[{}]}}"#, slots.agent, slots.values),
            );
        }
        if !ray_agent.is_empty() {
            layer(
                &mut out,
                format!(
                    r#""rays":{{"agent":[{ray_agent}],"from":[{ray_from}],"to":[{ray_to}],"hit":[{ray_hit}]}}"#
                ),
            );
        }
        if let Some(s) = self.selected {
            let r = crowd.config().neighbour_radius;
            layer(
                &mut out,
                format!(r#""neighbour_radius":{{"agent":[{s}],"radius":[{}]}}"#, Num(r)),
            );
        }
        out.push_str("}}");
        out
    }
}

/// A live simulation of either space: what a connection holds.
pub enum AnySession {
    /// A 2D scenario.
    Two(Session),
    /// A 3D scenario (`dimensions = 3`, y up).
    Three(Session3),
}

macro_rules! each {
    ($s:expr, $x:ident => $e:expr) => {
        match $s {
            AnySession::Two($x) => $e,
            AnySession::Three($x) => $e,
        }
    };
}

impl AnySession {
    /// Loads TOML text in the scenario's own space.
    ///
    /// # Errors
    /// As [`Sim::from_toml`].
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, String> {
        // the session's cap is checked from the file's counts, before any agent is placed
        let scenario =
            Scenario::from_toml_str_with_max_agents(text, origin, MAX_AGENTS).map_err(err)?;
        if scenario.dimensions() == 3 {
            Sim::from_scenario(&scenario, text, origin).map(AnySession::Three)
        } else {
            Sim::from_scenario(&scenario, text, origin).map(AnySession::Two)
        }
    }

    /// 2 or 3.
    #[must_use]
    pub fn dims(&self) -> usize {
        match self {
            AnySession::Two(_) => 2,
            AnySession::Three(_) => 3,
        }
    }

    /// As [`Sim::name`].
    #[must_use]
    pub fn name(&self) -> &str {
        each!(self, s => s.name())
    }
    /// As [`Sim::step_count`].
    #[must_use]
    pub fn step_count(&self) -> u64 {
        each!(self, s => s.step_count())
    }
    /// As [`Sim::dt`].
    #[must_use]
    pub fn dt(&self) -> f32 {
        each!(self, s => s.dt())
    }
    /// As [`Sim::agent_count`].
    #[must_use]
    pub fn agent_count(&self) -> usize {
        each!(self, s => s.agent_count())
    }
    /// As [`Sim::params`].
    #[must_use]
    pub fn params(&self) -> &[Param] {
        each!(self, s => s.params())
    }
    /// The groups' names, in file order.
    #[must_use]
    pub fn group_names(&self) -> Vec<String> {
        each!(self, s => s.world().groups.iter().map(|g| g.name.clone()).collect())
    }
    /// As [`Sim::step`].
    ///
    /// # Errors
    /// As [`Sim::step`].
    pub fn step(&mut self) -> Result<(), String> {
        each!(self, s => s.step())
    }
    /// As [`Sim::reset`].
    ///
    /// # Errors
    /// As [`Sim::reset`].
    pub fn reset(&mut self) -> Result<(), String> {
        each!(self, s => s.reset())
    }
    /// As [`Sim::select`].
    ///
    /// # Errors
    /// As [`Sim::select`].
    pub fn select(&mut self, id: Option<u64>) -> Result<(), String> {
        each!(self, s => s.select(id))
    }
    /// As [`Sim::selected`].
    #[must_use]
    pub fn selected(&self) -> Option<usize> {
        each!(self, s => s.selected())
    }
    /// As [`Sim::move_goal`].
    ///
    /// # Errors
    /// As [`Sim::move_goal`].
    pub fn move_goal(
        &mut self,
        agent: Option<u64>,
        group: Option<&str>,
        p: Point,
    ) -> Result<(), String> {
        each!(self, s => s.move_goal(agent, group, p))
    }
    /// As [`Sim::move_target`].
    ///
    /// # Errors
    /// As [`Sim::move_target`].
    pub fn move_target(&mut self, path: &str, p: Point) -> Result<(), String> {
        each!(self, s => s.move_target(path, p))
    }
    /// As [`Sim::move_obstacle`].
    ///
    /// # Errors
    /// As [`Sim::move_obstacle`].
    pub fn move_obstacle(&mut self, id: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_obstacle(id, p))
    }
    /// As [`Sim::move_wall_end`].
    ///
    /// # Errors
    /// As [`Sim::move_wall_end`].
    pub fn move_wall_end(&mut self, id: u64, end: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_wall_end(id, end, p))
    }
    /// As [`Sim::move_turret`].
    ///
    /// # Errors
    /// As [`Sim::move_turret`].
    pub fn move_turret(&mut self, id: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_turret(id, p))
    }
    /// As [`Sim::add_agent`].
    ///
    /// # Errors
    /// As [`Sim::add_agent`].
    pub fn add_agent(&mut self, group: &str, p: Point) -> Result<(), String> {
        each!(self, s => s.add_agent(group, p))
    }
    /// As [`Sim::remove_agent`].
    ///
    /// # Errors
    /// As [`Sim::remove_agent`].
    pub fn remove_agent(&mut self, id: u64) -> Result<(), String> {
        each!(self, s => s.remove_agent(id))
    }
    /// As [`Sim::set_param`].
    ///
    /// # Errors
    /// As [`Sim::set_param`].
    pub fn set_param(&mut self, path: &str, value: f64) -> Result<(), String> {
        each!(self, s => s.set_param(path, value))
    }
    /// As [`Sim::save_toml`].
    ///
    /// # Errors
    /// As [`Sim::save_toml`].
    pub fn save_toml(&self) -> Result<String, String> {
        each!(self, s => s.save_toml())
    }
    /// As [`Sim::handles`].
    #[must_use]
    pub fn handles(&self) -> Vec<Handle> {
        each!(self, s => s.handles())
    }
    /// As [`Sim::recording`].
    #[must_use]
    pub fn recording(&self) -> Value {
        each!(self, s => s.recording())
    }
    /// As [`Sim::frame_json`].
    #[must_use]
    pub fn frame_json(&self) -> String {
        each!(self, s => s.frame_json())
    }
    /// True when the scenario has turrets.
    #[must_use]
    pub fn has_turrets(&self) -> bool {
        each!(self, s => !s.sim.ballistics().is_empty())
    }
    /// As [`Sim::shots`].
    #[must_use]
    pub fn shots(&self) -> Vec<Shot> {
        each!(self, s => s.shots())
    }
    /// As [`Sim::turret_metrics`].
    #[must_use]
    pub fn turret_metrics(&self) -> Vec<TurretMetrics> {
        each!(self, s => s.turret_metrics())
    }
}

/// A number as a recording writes it: rounded to 1e-3, `null` when not finite.
struct Num(f32);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_finite() {
            let r = (f64::from(self.0) * 1000.0).round() / 1000.0;
            write!(f, "{}", if r == 0.0 { 0.0 } else { r })
        } else {
            f.write_str("null")
        }
    }
}

/// A vector's components as a recording writes them (2 or 3, rounded to 1e-3).
struct Nums<V: Space>(V);

impl<V: Space> std::fmt::Display for Nums<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = V::components(self.0);
        write!(f, "{},{}", Num(c[0]), Num(c[1]))?;
        if V::DIMS == 3 {
            write!(f, ",{}", Num(c[2]))?;
        }
        Ok(())
    }
}

/// A quaternion component: to 1e-4 (a unit quaternion needs more than 1 mm's rounding),
/// `null` when not finite.
struct Exact(f32);

impl std::fmt::Display for Exact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_finite() {
            let r = (f64::from(self.0) * 10000.0).round() / 10000.0;
            write!(f, "{}", if r == 0.0 { 0.0 } else { r })
        } else {
            f.write_str("null")
        }
    }
}

struct Layer<V> {
    agent: String,
    values: String,
    _space: std::marker::PhantomData<V>,
}

impl<V: Space> Default for Layer<V> {
    fn default() -> Self {
        Layer { agent: String::new(), values: String::new(), _space: std::marker::PhantomData }
    }
}

impl<V: Space> Layer<V> {
    fn push(&mut self, id: usize, v: V) {
        let s = if self.agent.is_empty() { "" } else { "," };
        let _ = write!(self.agent, "{s}{id}");
        let _ = write!(self.values, "{s}{}", Nums(v));
    }
}

/// Removes every written-out agent's `velocity`.
fn strip_velocities(doc: &mut Value) {
    let Some(groups) = doc.get_mut("groups").and_then(Value::as_array_mut) else { return };
    for g in groups {
        let Some(agents) = g.get_mut("agents").and_then(Value::as_array_mut) else { continue };
        for a in agents.iter_mut().filter_map(Value::as_object_mut) {
            a.remove("velocity");
        }
    }
}

/// The group whose behaviour tree a parameter path is in (`groups[3].behaviour…` → 3).
fn behaviour_group(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("groups[")?;
    let (index, tail) = rest.split_once(']')?;
    tail.starts_with(".behaviour").then(|| index.parse().ok()).flatten()
}

fn identity(_: usize, k: usize) -> Option<usize> {
    Some(k)
}

/// A shot as a frame carries it: its flight thinned to [`SHOT_SAMPLES`] samples (the first and
/// the last kept), every coordinate rounded to 1 mm.
fn rounded(mut s: Shot) -> Shot {
    let mm = |v: f32| {
        let r = (v * 1000.0).round() / 1000.0;
        if r.is_finite() {
            r
        } else {
            v
        }
    };
    let n = s.path.len();
    if n > SHOT_SAMPLES {
        s.path = (0..SHOT_SAMPLES).map(|i| s.path[i * (n - 1) / (SHOT_SAMPLES - 1)]).collect();
    }
    for p in &mut s.path {
        for c in &mut p[1..] {
            *c = mm(*c);
        }
    }
    for p in &mut s.predicted {
        for c in p.iter_mut() {
            *c = mm(*c);
        }
    }
    for c in &mut s.impact {
        *c = mm(*c);
    }
    s
}

/// Checks and builds a document with the scenario crate.
fn build<V: Space>(doc: &Value, origin: &str) -> Result<World<V>, String> {
    build_scenario(doc, origin).map(|(_, w)| w)
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

fn obstacle_centre(o: &Value) -> Option<Point> {
    match o.get("shape")?.as_str()? {
        "circle" | "sphere" => xyz(o.get("center")?),
        "box" => {
            let (a, b) = (xyz(o.get("min")?)?, xyz(o.get("max")?)?);
            Some([(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0, (a[2] + b[2]) / 2.0])
        }
        "polygon" => {
            let pts: Vec<Point> = o.get("points")?.as_array()?.iter().filter_map(xyz).collect();
            if pts.is_empty() {
                return None;
            }
            let n = pts.len() as f64;
            Some([
                pts.iter().map(|p| p[0]).sum::<f64>() / n,
                pts.iter().map(|p| p[1]).sum::<f64>() / n,
                0.0,
            ])
        }
        _ => None,
    }
}

fn translate_obstacle(o: &mut Value, d: Point) {
    let shift = |v: &mut Value| {
        let dims = v.as_array().map_or(0, Vec::len);
        if let Some(p) = xyz(v) {
            *v = point([p[0] + d[0], p[1] + d[1], p[2] + d[2]], dims);
        }
    };
    for key in ["center", "min", "max"] {
        if let Some(v) = o.get_mut(key) {
            shift(v);
        }
    }
    if let Some(pts) = o.get_mut("points").and_then(Value::as_array_mut) {
        pts.iter_mut().for_each(shift);
    }
}

/// `[x, y]` (or `[x, y, z]`) values under the key `target` in a behaviour tree.
fn find_targets(node: &Value, path: &str, out: &mut Vec<(String, Point)>) {
    if let Some(p) = node.get("target").and_then(xyz) {
        out.push((format!("{path}.target"), p));
    }
    if let Some(members) = node.get("members").and_then(Value::as_array) {
        for (i, m) in members.iter().enumerate() {
            find_targets(m, &format!("{path}.members[{i}]"), out);
        }
    }
}

/// The sliders of a document: limits and behaviour trees of groups, formation anchors.
fn params_of<V: Space>(doc: &Value, world: &World<V>) -> Vec<Param> {
    let mut out = Vec::new();
    if let Some(groups) = doc.get("groups").and_then(Value::as_array) {
        for (gi, g) in groups.iter().enumerate() {
            let owner =
                world.groups.get(gi).map_or_else(|| format!("group {gi}"), |g| g.name.clone());
            if let Some(l) = g.get("limits") {
                numeric(l, &format!("groups[{gi}].limits"), "limits", &owner, &mut out);
            }
            if let Some(b) = g.get("behaviour") {
                walk(b, &format!("groups[{gi}].behaviour"), &owner, &mut out);
            }
            if let Some(j) = g.get("jump") {
                numeric(j, &format!("groups[{gi}].jump"), "jump", &owner, &mut out);
            }
        }
    }
    if let Some(fs) = doc.get("formations").and_then(Value::as_array) {
        for (fi, f) in fs.iter().enumerate() {
            let owner = format!("formation {fi} anchor");
            if let Some(l) = f.get("anchor_limits") {
                numeric(l, &format!("formations[{fi}].anchor_limits"), "limits", &owner, &mut out);
            }
            if let Some(b) = f.get("anchor") {
                walk(b, &format!("formations[{fi}].anchor"), &owner, &mut out);
            }
        }
    }
    out
}

fn walk(node: &Value, path: &str, owner: &str, out: &mut Vec<Param>) {
    let kind = node.get("kind").and_then(Value::as_str).unwrap_or("behaviour");
    numeric(node, path, kind, owner, out);
    if let Some(members) = node.get("members").and_then(Value::as_array) {
        for (i, m) in members.iter().enumerate() {
            walk(m, &format!("{path}.members[{i}]"), owner, out);
        }
    }
}

fn numeric(node: &Value, path: &str, kind: &str, owner: &str, out: &mut Vec<Param>) {
    let Some(obj) = node.as_object() else { return };
    for (key, v) in obj {
        let (Some(value), Some((min, max, step))) = (v.as_f64(), range_of(key)) else { continue };
        if !value.is_finite() {
            continue;
        }
        let max = if value > max { value * 2.0 } else { max };
        let min = if value < min { value } else { min };
        out.push(Param {
            path: format!("{path}.{key}"),
            owner: owner.to_owned(),
            label: format!("{kind} {}", key.replace('_', " ")),
            value,
            min,
            max,
            step,
            integer: key == "ray_count",
        });
    }
}
