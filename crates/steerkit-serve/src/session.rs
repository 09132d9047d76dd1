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
//! The session is deterministic: no clock and no global random numbers. The same document and
//! the same edits at the same steps give the same states (the crowd's step is deterministic and
//! a rebuild is a pure function of the document).

use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use steerkit::crowd::{AgentHandle, Recipe};
use steerkit::geometry::CollisionDetector;
use steerkit::steering::{ObstacleAvoidance, Stateful};
use steerkit::Vec2;
use steerkit_scenario::{Bounds, Scenario, World};

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

/// The colours of groups that name none (the replay's palette, Okabe–Ito first).
const PALETTE: [&str; 10] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c6d31", "#6a3d9a",
    "#b8b000", "#444444",
];

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
    },
    /// An agent's goal.
    Goal {
        /// The agent's number.
        agent: usize,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
    },
    /// An obstacle's centre.
    Obstacle {
        /// Index in `obstacles`.
        id: usize,
        /// Where it is (m).
        x: f64,
        /// Where it is (m).
        y: f64,
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
    },
}

/// A live simulation.
pub struct Session {
    name: String,
    description: String,
    /// The document as loaded, for `reset`.
    original: Value,
    doc: Value,
    world: World<Vec2>,
    step: u64,
    params: Vec<Param>,
    /// Each group's first obstacle-avoidance leaf, whose rays frames carry.
    avoiders: Vec<Option<ObstacleAvoidance>>,
    selected: Option<usize>,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn xy(v: &Value) -> Option<(f64, f64)> {
    let a = v.as_array()?;
    if a.len() != 2 {
        return None;
    }
    Some((a[0].as_f64()?, a[1].as_f64()?))
}

fn point(x: f64, y: f64) -> Value {
    json!([x, y])
}

/// `true` when the object has a non-empty array or a table at `key`.
fn has(v: &Value, key: &str) -> bool {
    match v.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    }
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

impl Session {
    /// Loads TOML text: parsed and checked by `steerkit-scenario` (its errors, with line and
    /// column), then built.
    ///
    /// # Errors
    /// The scenario's error; a 3D scenario, a side view or turrets (only `steerkit run` plays
    /// those); more than [`MAX_AGENTS`] agents.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, String> {
        let scenario = Scenario::from_toml_str(text, origin).map_err(err)?;
        if scenario.dimensions() != 2 {
            return Err(format!(
                "{origin}: dimensions: the playground runs 2D scenarios; `{}` is {}D (play it \
                 with `steerkit run`)",
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
        for (key, what) in
            [("turrets", "turrets"), ("side_view", "a side view"), ("platforms", "platforms")]
        {
            if has(&doc, key) {
                return Err(format!(
                    "{origin}: {key}: the playground runs crowds on the ground; {what} only \
                     `steerkit run` plays"
                ));
            }
        }
        let Some(plan) = scenario.plan::<Vec2>() else {
            return Err(format!("{origin}: dimensions: not a 2D scenario"));
        };
        // every agent written out, at its placed position
        if let Some(groups) = doc.get_mut("groups").and_then(Value::as_array_mut) {
            for (g, gp) in groups.iter_mut().zip(&plan.groups) {
                let Some(obj) = g.as_object_mut() else { continue };
                obj.remove("count");
                obj.remove("spawn");
                let group_goal = obj.contains_key("goal") || obj.contains_key("goal_rule");
                let agents = gp
                    .agents
                    .iter()
                    .map(|a| {
                        let mut o = Map::new();
                        o.insert(
                            "position".into(),
                            point(a.position.x.into(), a.position.y.into()),
                        );
                        if a.velocity != Vec2::ZERO {
                            o.insert(
                                "velocity".into(),
                                point(a.velocity.x.into(), a.velocity.y.into()),
                            );
                        }
                        o.insert("orientation".into(), json!(a.orientation));
                        if let (Some(goal), false) = (a.goal, group_goal) {
                            o.insert("goal".into(), point(goal.x.into(), goal.y.into()));
                        }
                        Value::Object(o)
                    })
                    .collect();
                obj.insert("agents".into(), Value::Array(agents));
            }
        }
        let world = build(&doc, origin)?;
        let mut s = Session {
            name: scenario.name().to_owned(),
            description: scenario.description().trim().to_owned(),
            original: doc.clone(),
            doc,
            world,
            step: 0,
            params: Vec::new(),
            avoiders: Vec::new(),
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
        self.step
    }

    /// The time step (s).
    #[must_use]
    pub fn dt(&self) -> f32 {
        self.world.settings.dt
    }

    /// Agents in the crowd.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.world.groups.iter().map(|g| g.agents.len()).sum()
    }

    /// The sliders: every numeric parameter of the groups' limits and behaviour trees (and
    /// formation anchors') with its allowed range.
    #[must_use]
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The crowd and its groups.
    #[must_use]
    pub fn world(&self) -> &World<Vec2> {
        &self.world
    }

    /// Agent `id`'s handle (agents numbered groups first to last, as the replay numbers them).
    #[must_use]
    pub fn handle(&self, id: usize) -> Option<AgentHandle> {
        let (g, k) = self.locate(id)?;
        self.world.groups[g].agents.get(k).copied()
    }

    fn locate(&self, id: usize) -> Option<(usize, usize)> {
        let mut first = 0;
        for (g, group) in self.world.groups.iter().enumerate() {
            if id < first + group.agents.len() {
                return Some((g, id - first));
            }
            first += group.agents.len();
        }
        None
    }

    fn group_index(&self, name: &str) -> Result<usize, String> {
        self.world.groups.iter().position(|g| g.name == name).ok_or_else(|| {
            format!(
                "`group` = {name:?} names no group; the groups are {}",
                self.world
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

    /// Params, avoiders and the selection after a (re)build.
    fn refresh(&mut self) {
        self.params = params_of(&self.doc, &self.world);
        let crowd = &self.world.crowd;
        self.avoiders = self
            .world
            .groups
            .iter()
            .map(|g| {
                let mut first = None;
                if let Some(spec) = crowd.group(g.id) {
                    spec.recipe.for_each_leaf(&mut |r| {
                        if let (None, Recipe::ObstacleAvoidance(o)) = (first, r) {
                            first = Some(*o);
                        }
                    });
                }
                first
            })
            .collect();
        if self.selected.is_some_and(|s| s >= self.agent_count()) {
            self.selected = None;
        }
    }

    /// One step of `dt`.
    ///
    /// # Errors
    /// The crowd's refusal (the session should pause).
    pub fn step(&mut self) -> Result<(), String> {
        let dt = self.world.settings.dt;
        self.world.crowd.step(dt).map_err(|e| format!("step {}: {e}", self.step + 1))?;
        self.step += 1;
        Ok(())
    }

    /// Back to the scenario as loaded, at step 0.
    ///
    /// # Errors
    /// None in practice (the original document built before).
    pub fn reset(&mut self) -> Result<(), String> {
        self.world = build(&self.original, &self.name)?;
        self.doc = self.original.clone();
        self.step = 0;
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
        x: f64,
        y: f64,
    ) -> Result<(), String> {
        let to = Some(Vec2::new(x as f32, y as f32));
        let handles: Vec<AgentHandle> = match (agent, group) {
            (Some(id), _) => {
                let h = usize::try_from(id)
                    .ok()
                    .and_then(|i| self.handle(i))
                    .ok_or_else(|| self.agent_error(id))?;
                vec![h]
            }
            (None, Some(name)) => self.world.groups[self.group_index(name)?].agents.clone(),
            (None, None) => return Err("needs `agent` (a number) or `group` (a name)".into()),
        };
        for h in handles {
            // an agent the crowd dropped has no goal to move
            let _ = self.world.crowd.set_goal(h, to);
        }
        Ok(())
    }

    /// Moves a behaviour's (or a formation anchor's) target point, one of the `target`
    /// handles.
    ///
    /// # Errors
    /// A path that is no target handle; the scenario's error.
    pub fn move_target(&mut self, path: &str, x: f64, y: f64) -> Result<(), String> {
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
                    *v = point(x, y);
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

    /// Moves obstacle `id` so that its centre is at `(x, y)`.
    ///
    /// # Errors
    /// An unknown obstacle; the scenario's error.
    pub fn move_obstacle(&mut self, id: u64, x: f64, y: f64) -> Result<(), String> {
        let count = self.doc.get("obstacles").and_then(Value::as_array).map_or(0, Vec::len);
        let i = usize::try_from(id).ok().filter(|&i| i < count).ok_or_else(|| {
            if count == 0 {
                format!("`id` = {id} names no obstacle; the scenario has none")
            } else {
                format!("`id` = {id} names no obstacle; the obstacles are 0 to {}", count - 1)
            }
        })?;
        self.edit(
            |doc| {
                let o = lookup_mut(doc, &format!("obstacles[{i}]")).ok_or("obstacle gone")?;
                let (cx, cy) = obstacle_centre(o).ok_or("the obstacle has no centre")?;
                let (dx, dy) = (x - cx, y - cy);
                translate_obstacle(o, dx, dy);
                Ok(())
            },
            identity,
        )
    }

    /// Moves one end of wall `id` (`end` 0: `from`, 1: `to`).
    ///
    /// # Errors
    /// An unknown wall or end; the scenario's error.
    pub fn move_wall_end(&mut self, id: u64, end: u64, x: f64, y: f64) -> Result<(), String> {
        let count = self.doc.get("walls").and_then(Value::as_array).map_or(0, Vec::len);
        let i = usize::try_from(id).ok().filter(|&i| i < count).ok_or_else(|| {
            if count == 0 {
                format!("`id` = {id} names no wall; the scenario has none")
            } else {
                format!("`id` = {id} names no wall; the walls are 0 to {}", count - 1)
            }
        })?;
        let key = match end {
            0 => "from",
            1 => "to",
            _ => return Err(format!("`end` = {end} is no wall end; allowed 0 (from) or 1 (to)")),
        };
        self.edit(
            |doc| {
                let w = lookup_mut(doc, &format!("walls[{i}].{key}")).ok_or("wall gone")?;
                *w = point(x, y);
                Ok(())
            },
            identity,
        )
    }

    /// Adds an agent to `group` at `(x, y)`, heading and goal as the group's last agent's.
    ///
    /// # Errors
    /// An unknown group; [`MAX_AGENTS`] reached; the scenario's error.
    pub fn add_agent(&mut self, group: &str, x: f64, y: f64) -> Result<(), String> {
        let g = self.group_index(group)?;
        if self.agent_count() >= MAX_AGENTS {
            return Err(format!(
                "the session holds {} agents, its most ({MAX_AGENTS}); remove some first",
                self.agent_count()
            ));
        }
        let last = self.world.groups[g].agents.last().copied();
        let goal = last.and_then(|h| self.world.crowd.goal(h));
        let old_len = self.world.groups[g].agents.len();
        self.edit(
            |doc| {
                let agents = lookup_mut(doc, &format!("groups[{g}].agents"))
                    .and_then(Value::as_array_mut)
                    .ok_or("the group has no agent list")?;
                let mut o = Map::new();
                o.insert("position".into(), point(x, y));
                if let Some(goal) = goal {
                    o.insert("goal".into(), point(goal.x.into(), goal.y.into()));
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
        let same = world.groups.len() == self.world.groups.len()
            && world.groups.iter().zip(&self.world.groups).all(|(a, b)| a.agents == b.agents);
        let (Some(new), Some(old)) = (world.groups.get(g), self.world.groups.get(g)) else {
            return Ok(false);
        };
        let Some(spec) = world.crowd.group(new.id).cloned() else { return Ok(false) };
        if !same {
            return Ok(false);
        }
        self.world.crowd.set_group(old.id, spec).map_err(|e| e.to_string())?;
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
        change(&mut doc).map_err(str::to_owned)?;
        let mut world = build(&doc, &self.name)?;
        let old = &self.world.crowd;
        for (gi, g) in world.groups.iter().enumerate() {
            let Some(og) = self.world.groups.get(gi) else { continue };
            for (k, &h) in g.agents.iter().enumerate() {
                let Some(&oh) = map(gi, k).and_then(|ok| og.agents.get(ok)) else { continue };
                if let Some(kin) = old.kinematic(oh) {
                    let _ = world.crowd.write_kinematic(h, kin);
                }
                let _ = world.crowd.set_goal(h, old.goal(oh));
            }
        }
        self.doc = doc;
        self.world = world;
        self.refresh();
        Ok(())
    }

    /// Formation anchors' current positions into the document, so a rebuild keeps them.
    fn write_anchors(&self, doc: &mut Value) {
        for (fi, (fid, _)) in self.world.formations.iter().enumerate() {
            let Some(m) = self.world.crowd.formation(*fid) else { continue };
            let a = m.anchor();
            if let Some(f) =
                lookup_mut(doc, &format!("formations[{fi}]")).and_then(Value::as_object_mut)
            {
                f.insert("anchor_position".into(), point(a.position.x.into(), a.position.y.into()));
                f.insert("anchor_orientation".into(), json!(a.orientation));
            }
        }
    }

    /// The current state as a scenario document: the world and recipes as edited, every agent
    /// at its current position, velocity, heading and goal.
    #[must_use]
    pub fn current_document(&self) -> Value {
        let mut doc = self.doc.clone();
        self.write_anchors(&mut doc);
        let crowd = &self.world.crowd;
        for (gi, g) in self.world.groups.iter().enumerate() {
            let Some(obj) =
                lookup_mut(&mut doc, &format!("groups[{gi}]")).and_then(Value::as_object_mut)
            else {
                continue;
            };
            let ruled = obj.contains_key("goal_rule");
            if !ruled {
                obj.remove("goal");
            }
            let agents: Vec<Value> = g
                .agents
                .iter()
                .filter_map(|&h| {
                    let k = crowd.kinematic(h)?;
                    let mut o = Map::new();
                    o.insert("position".into(), point(k.position.x.into(), k.position.y.into()));
                    o.insert("velocity".into(), point(k.velocity.x.into(), k.velocity.y.into()));
                    o.insert("orientation".into(), json!(k.orientation));
                    if let (false, Some(goal)) = (ruled, crowd.goal(h)) {
                        o.insert("goal".into(), point(goal.x.into(), goal.y.into()));
                    }
                    Some(Value::Object(o))
                })
                .collect();
            obj.insert("agents".into(), Value::Array(agents));
        }
        doc
    }

    /// The current state as TOML that `steerkit run` loads ([`Session::current_document`]).
    ///
    /// # Errors
    /// A document TOML cannot hold (not expected: it came from TOML).
    pub fn save_toml(&self) -> Result<String, String> {
        toml::to_string(&self.current_document()).map_err(|e| format!("save: {e}"))
    }

    /// The draggable points: behaviour and anchor targets, agents' goals (the first
    /// [`GOAL_HANDLES`]), obstacle centres and wall ends.
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
        out.extend(targets.into_iter().map(|(path, x, y)| Handle::Target { path, x, y }));
        let crowd = &self.world.crowd;
        let mut goals = 0;
        let mut id = 0;
        for g in &self.world.groups {
            for &h in &g.agents {
                if goals < GOAL_HANDLES {
                    if let Some(goal) = crowd.goal(h) {
                        out.push(Handle::Goal { agent: id, x: goal.x.into(), y: goal.y.into() });
                        goals += 1;
                    }
                }
                id += 1;
            }
        }
        if let Some(os) = self.doc.get("obstacles").and_then(Value::as_array) {
            for (i, o) in os.iter().enumerate() {
                if let Some((x, y)) = obstacle_centre(o) {
                    out.push(Handle::Obstacle { id: i, x, y });
                }
            }
        }
        if let Some(ws) = self.doc.get("walls").and_then(Value::as_array) {
            for (i, w) in ws.iter().enumerate() {
                for (end, key) in [(0u8, "from"), (1, "to")] {
                    if let Some((x, y)) = w.get(key).and_then(xy) {
                        out.push(Handle::WallEnd { id: i, end, x, y });
                    }
                }
            }
        }
        out
    }

    /// The replay's recording without frames but one: what the page's renderer is loaded
    /// with (see `crates/steerkit-cli/src/recording.rs` for the schema).
    #[must_use]
    pub fn recording(&self) -> Value {
        let w = &self.world;
        let mut world = Map::new();
        match w.bounds {
            Bounds::Unbounded => {}
            Bounds::Bounded { min, max } | Bounds::Wrapping { min, max } => {
                world
                    .insert("bounds".into(), json!({"min": [min.x, min.y], "max": [max.x, max.y]}));
                world.insert("wrap".into(), json!(matches!(w.bounds, Bounds::Wrapping { .. })));
            }
        }
        let (mut circles, mut polygons, mut boxes, mut walls) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for o in &w.geometry.obstacles {
            match o {
                steerkit::geometry::Obstacle::Circle(c) => {
                    circles.push(json!({"center": [c.center.x, c.center.y], "radius": c.radius}));
                }
                steerkit::geometry::Obstacle::Wall(s) => {
                    walls.push(json!({"a": [s.a.x, s.a.y], "b": [s.b.x, s.b.y]}));
                }
                steerkit::geometry::Obstacle::Polygon(p) => {
                    let pts: Vec<[f32; 2]> = p.points().iter().map(|q| [q.x, q.y]).collect();
                    polygons.push(json!({ "points": pts }));
                }
                steerkit::geometry::Obstacle::Box(b) => {
                    boxes.push(json!({"min": [b.min.x, b.min.y], "max": [b.max.x, b.max.y]}));
                }
            }
        }
        for s in &w.geometry.walls {
            walls.push(json!({"a": [s.a.x, s.a.y], "b": [s.b.x, s.b.y]}));
        }
        world.insert("circles".into(), Value::Array(circles));
        world.insert("polygons".into(), Value::Array(polygons));
        world.insert("boxes".into(), Value::Array(boxes));
        world.insert("walls".into(), Value::Array(walls));
        let paths: Vec<Value> = w
            .paths
            .iter()
            .map(|p| {
                let pts: Vec<[f32; 2]> = p.polyline.points().iter().map(|q| [q.x, q.y]).collect();
                json!({"name": p.name, "points": pts,
                       "looping": steerkit::path::Path::is_looping(&p.polyline)})
            })
            .collect();
        world.insert("paths".into(), Value::Array(paths));
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
        let frame: Value = serde_json::from_str(&self.frame_json()).unwrap_or(Value::Null);
        json!({
            "format": "steerkit-replay",
            "version": 1,
            "meta": {
                "scenario": self.name,
                "description": self.description,
                "seed": w.settings.seed,
                "dt": w.settings.dt,
                "steps": 0,
                "every": 1,
                "dims": 2,
            },
            "world": world,
            "groups": groups,
            "agent_groups": agent_groups,
            "frames": [frame],
        })
    }

    /// The current frame in the recording's per-frame shape (positions, velocities, headings,
    /// and overlays: steering, targets, slots for up to [`OVERLAY_AGENTS`] agents, feelers
    /// for [`RAY_AGENTS`] and the selected agent, the selected agent's neighbour radius).
    /// Numbers are rounded to 1 mm (as recordings are); a missing agent is `null`.
    #[must_use]
    pub fn frame_json(&self) -> String {
        let crowd = &self.world.crowd;
        let n = self.agent_count();
        let mut pos = String::with_capacity(n * 16);
        let mut vel = String::with_capacity(n * 16);
        let mut ori = String::with_capacity(n * 8);
        let all_overlays = n <= OVERLAY_AGENTS;
        let mut steer = Layer::default();
        let mut target = Layer::default();
        let mut slots = Layer::default();
        let (mut ray_agent, mut ray_from, mut ray_to, mut ray_hit) =
            (String::new(), String::new(), String::new(), String::new());
        let debug = crowd.debug_info();
        let mut rays_left = RAY_AGENTS;
        let mut id = 0usize;
        for (gi, g) in self.world.groups.iter().enumerate() {
            for &h in &g.agents {
                let sep = if id == 0 { "" } else { "," };
                match (crowd.index_of(h), crowd.kinematic(h)) {
                    (Some(i), Some(k)) => {
                        let _ = write!(pos, "{sep}{},{}", Num(k.position.x), Num(k.position.y));
                        let _ = write!(vel, "{sep}{},{}", Num(k.velocity.x), Num(k.velocity.y));
                        let _ = write!(ori, "{sep}{}", Num(k.orientation));
                        let chosen = self.selected == Some(id);
                        if all_overlays || chosen {
                            if let Some(d) = debug.get(i) {
                                steer.push(id, d.steering.linear);
                                if let Some(t) = d.target {
                                    target.push(id, t);
                                }
                            }
                            if let Some(s) = crowd.slot_target(h) {
                                slots.push(id, s.position);
                            }
                        }
                        let wants_rays = chosen || rays_left > 0;
                        if let (true, Some(Some(avoid))) = (wants_rays, self.avoiders.get(gi)) {
                            if !chosen {
                                rays_left -= 1;
                            }
                            let leaf = crowd.avoidance(h).map_or(*avoid, |s| avoid.with_state(s));
                            if let Some(obstacles) = crowd.obstacles() {
                                leaf.for_each_ray(&k, |ray, _| {
                                    let hit = obstacles.cast_ray(&ray).map_or(-1.0, |c| {
                                        let l = ray.max_distance();
                                        if l > 0.0 {
                                            c.distance / l
                                        } else {
                                            0.0
                                        }
                                    });
                                    let (a, b) = (ray.origin(), ray.end());
                                    let s = if ray_agent.is_empty() { "" } else { "," };
                                    let _ = write!(ray_agent, "{s}{id}");
                                    let _ = write!(ray_from, "{s}{},{}", Num(a.x), Num(a.y));
                                    let _ = write!(ray_to, "{s}{},{}", Num(b.x), Num(b.y));
                                    let _ = write!(ray_hit, "{s}{}", Num(hit));
                                });
                            }
                        }
                    }
                    _ => {
                        let _ = write!(pos, "{sep}null,null");
                        let _ = write!(vel, "{sep}null,null");
                        let _ = write!(ori, "{sep}null");
                    }
                }
                id += 1;
            }
        }
        let step = u32::try_from(self.step).unwrap_or(u32::MAX);
        let mut out = String::with_capacity(pos.len() * 3 + 256);
        let _ = write!(
            out,
            r#"{{"step":{step},"position":[{pos}],"velocity":[{vel}],"orientation":[{ori}],"overlays":{{"#
        );
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

#[derive(Default)]
struct Layer {
    agent: String,
    values: String,
}

impl Layer {
    fn push(&mut self, id: usize, v: Vec2) {
        let s = if self.agent.is_empty() { "" } else { "," };
        let _ = write!(self.agent, "{s}{id}");
        let _ = write!(self.values, "{s}{},{}", Num(v.x), Num(v.y));
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

/// Checks and builds a document with the scenario crate.
fn build(doc: &Value, origin: &str) -> Result<World<Vec2>, String> {
    let scenario = Scenario::from_json_str(&doc.to_string(), origin).map_err(err)?;
    scenario.build_in::<Vec2>().map_err(err)
}

fn obstacle_centre(o: &Value) -> Option<(f64, f64)> {
    match o.get("shape")?.as_str()? {
        "circle" => xy(o.get("center")?),
        "box" => {
            let (a, b) = (xy(o.get("min")?)?, xy(o.get("max")?)?);
            Some(((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0))
        }
        "polygon" => {
            let pts: Vec<(f64, f64)> = o.get("points")?.as_array()?.iter().filter_map(xy).collect();
            if pts.is_empty() {
                return None;
            }
            let n = pts.len() as f64;
            Some((
                pts.iter().map(|p| p.0).sum::<f64>() / n,
                pts.iter().map(|p| p.1).sum::<f64>() / n,
            ))
        }
        _ => None,
    }
}

fn translate_obstacle(o: &mut Value, dx: f64, dy: f64) {
    let shift = |v: &mut Value| {
        if let Some((x, y)) = xy(v) {
            *v = point(x + dx, y + dy);
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

/// `[x, y]` values under the key `target` in a behaviour tree.
fn find_targets(node: &Value, path: &str, out: &mut Vec<(String, f64, f64)>) {
    if let Some((x, y)) = node.get("target").and_then(xy) {
        out.push((format!("{path}.target"), x, y));
    }
    if let Some(members) = node.get("members").and_then(Value::as_array) {
        for (i, m) in members.iter().enumerate() {
            find_targets(m, &format!("{path}.members[{i}]"), out);
        }
    }
}

/// The sliders of a document: limits and behaviour trees of groups, formation anchors.
fn params_of(doc: &Value, world: &World<Vec2>) -> Vec<Param> {
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
