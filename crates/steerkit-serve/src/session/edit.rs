//! The edits a page makes: targets, obstacles, wall ends, turrets, agents added and removed,
//! sliders; each checked and built again by the scenario crate, the running agents carried
//! over. And the current state saved as a scenario file.

use super::*;

impl<V: Space> Sim<V> {
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
                show(value),
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

pub(super) fn obstacle_centre(o: &Value) -> Option<Point> {
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
