//! What a page is sent of a session: the draggable handles, the recording it is loaded with
//! and each frame, in the recording's shapes.

use super::*;

impl<V: Space> Sim<V> {
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
    /// and overlays: steering, targets, slots and navigation routes for up to [`OVERLAY_AGENTS`] agents, feelers
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
        let mut routes = Routes::default();
        let navigation = self.world().navigation.as_ref();
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
                            if let Some(r) = navigation.and_then(|n| n.route(h)) {
                                routes.push(id, r.ahead());
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
        let mut layers: Vec<String> = Vec::new();
        if !steer.agent.is_empty() {
            let (a, v) = (&steer.agent, &steer.values);
            layers.push(format!(r#""steering":{{"agent":[{a}],"vector":[{v}]}}"#));
        }
        if !target.agent.is_empty() {
            let (a, v) = (&target.agent, &target.values);
            layers.push(format!(r#""target":{{"agent":[{a}],"point":[{v}]}}"#));
        }
        if !slots.agent.is_empty() {
            let (a, v) = (&slots.agent, &slots.values);
            layers.push(format!(r#""slots":{{"agent":[{a}],"point":[{v}]}}"#));
        }
        if !routes.agent.is_empty() {
            let (a, c, p) = (&routes.agent, &routes.count, &routes.point);
            layers.push(format!(r#""routes":{{"agent":[{a}],"count":[{c}],"point":[{p}]}}"#));
        }
        if !ray_agent.is_empty() {
            layers.push(format!(
                r#""rays":{{"agent":[{ray_agent}],"from":[{ray_from}],"to":[{ray_to}],"hit":[{ray_hit}]}}"#
            ));
        }
        if let Some(s) = self.selected {
            let r = Num(crowd.config().neighbour_radius);
            layers.push(format!(r#""neighbour_radius":{{"agent":[{s}],"radius":[{r}]}}"#));
        }
        out.push_str(r#""overlays":{"#);
        out.push_str(&layers.join(","));
        out.push_str("}}");
        out
    }
}

/// The navigation routes ahead of a frame, as the recording's `routes` layer: agents, their
/// point counts, the points (navigation is planar: two values each).
#[derive(Default)]
struct Routes {
    agent: String,
    count: String,
    point: String,
}

impl Routes {
    fn push(&mut self, id: usize, ahead: &[steerkit::Vec2]) {
        let s = if self.agent.is_empty() { "" } else { "," };
        let _ = write!(self.agent, "{s}{id}");
        let _ = write!(self.count, "{s}{}", ahead.len());
        for c in ahead {
            let s = if self.point.is_empty() { "" } else { "," };
            let _ = write!(self.point, "{s}{},{}", Num(c.x), Num(c.y));
        }
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

/// A shot as a frame carries it: its flight thinned to [`SHOT_SAMPLES`] samples (the first and
/// the last kept), every coordinate rounded to 1 mm.
pub(super) fn rounded(mut s: Shot) -> Shot {
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
