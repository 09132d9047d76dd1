//! The routes of a crowd's navigating agents, planned under a budget and handed to the crowd
//! as waypoints each step.

use crate::lanes::{keep_lane, keep_to_lanes};
use crate::level::{check_radius, Level, NavError};
use crate::mesh::{NavMesh, Path};
use crate::route::Route;
use crate::turns::{crossing, Crossing, Signals, QUEUE_RANGE};
use std::collections::HashMap;
use steerkit::crowd::{AgentHandle, Crowd, Waypoint};
use steerkit::Vec2;

/// How a [`Navigator`] plans and follows routes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavSettings {
    /// Gap (m) kept between a body and the obstacles beyond its radius: the mesh is the level
    /// shrunk by radius + clearance, and turns are anticipated only as far as keeps the cut
    /// inside it.
    pub clearance: f32,
    /// Every route is planned again after this long (s), from where the agent is: a route
    /// planned far away keeps up with an agent that was pushed or took another door. An agent
    /// on its route's last leg within `off_route` of its end keeps its route.
    pub replan_interval: f32,
    /// A route is planned again when the agent is this far (m) off its current leg.
    pub off_route: f32,
    /// The most routes planned in one step; the rest wait for the next (new goals first,
    /// then agents off their route, then the oldest routes). New goals are planned within
    /// [`FIRST_ROUTE_TIME`] all the same: while more wait than this, a step plans as many as
    /// leave the rest an equal share of the steps before the longest-waiting one's second is
    /// up.
    pub max_plans_per_step: usize,
    /// The look-ahead of turn anticipation, as a time (s) at the agent's speed.
    pub anticipation: f32,
    /// Keep right (m): a left turn is taken up to this far out from its corner, within the
    /// free room there, so that two streams meeting in a doorway pass on their right instead
    /// of both hugging the same jamb. 0 turns it off: every corner is rounded tight.
    pub keep_right: f32,
    /// Turn-taking at narrow passages, in body diameters: a door, gap or corridor narrower
    /// than this many diameters (obstacle to obstacle) is a passage ([`NavMesh::passages`]),
    /// crossed by one direction at a time while the other waits clear of its mouth (see
    /// [`Navigator`]). 0 turns it off.
    pub passage_width: f32,
    /// Two-way passages, in body diameters: a passage at least this wide (obstacle to
    /// obstacle) is crossed both ways at once in lanes instead of by turns. Each direction's
    /// routes go through its right half, and from 25 m of route before the mouth to one
    /// width past the far mouth a walker keeps to its side of the middle line ([`Lane`]
    /// under ORCA); one still on the wrong side is held five widths out from the mouth
    /// until it has moved over, so the other stream has an apron to come out onto, and one
    /// pushed over the middle line inside or past steers straight back. Such a gap shorter
    /// than it is wide (a pillar by a wall) is open ground: no lanes, no turns. 0 makes
    /// every passage two-way, `passage_width` or more none.
    pub two_way_width: f32,
    /// Walkers in order, in body diameters: at a passage taken in turns narrower than this
    /// (obstacle to obstacle), the walkers whose turn it is go by their distance `d` (m) to
    /// its mouth, with ORCA priority `e^(−d/ℓ)` ([`Waypoint::priority`]): nearer the mouth,
    /// more say. `ℓ` is the radius `r` where three cannot go abreast (under
    /// [`SINGLE_FILE`] diameters: single file), [`ABREAST_ORDER`]` × r` where they can (a
    /// weaker order, which two or three abreast still pass by). Bodies with equal say wedge
    /// in such a mouth (an arch from jamb to jamb, each pressing into the next, the crowd
    /// packed behind) and none gets through; whether a mouth of three or four diameters
    /// arches is chance (docs/decisions.md). The order costs some flow. 0 turns it off.
    pub single_file_width: f32,
}

impl Default for NavSettings {
    /// Clearance 0.1 m, re-planning every 2 s or 1 m off the route, 256 plans per step, a
    /// 0.5 s look-ahead, left turns taken up to 2 m wide, passages narrower than 8 body
    /// diameters, those of 6 or more two-way, those under 4 in order (under 3 in single file).
    fn default() -> Self {
        NavSettings {
            clearance: 0.1,
            replan_interval: 2.0,
            off_route: 1.0,
            max_plans_per_step: 256,
            anticipation: 0.5,
            keep_right: 2.0,
            passage_width: 8.0,
            two_way_width: 6.0,
            single_file_width: 4.0,
        }
    }
}

/// Something about an agent's route a game needs to know.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NavEvent {
    /// The agent's goal cannot be reached from where it is: its route ends at `stop`, the
    /// reachable point nearest the goal. Raised once per goal.
    Unreachable {
        /// The agent.
        agent: AgentHandle,
        /// Its goal (m).
        goal: Vec2,
        /// Where its route ends instead (m).
        stop: Vec2,
    },
}

/// A route planned this step, before its finish ([`Navigator::finish`]).
struct Plan {
    i: usize,
    start: Vec2,
    goal: Vec2,
    path: Path,
    /// Length plus counterflow (m).
    cost: f32,
    /// The passage with the most counterflow on the path.
    worst: Option<u32>,
    unreachable: bool,
}

/// `f` over `items` in order, on rayon's pool with the `parallel` feature.
fn par_map<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    items.into_iter().map(f).collect()
}

/// Seconds within which an agent given a new goal has its route, however many get one at
/// once ([`NavSettings::max_plans_per_step`]).
pub const FIRST_ROUTE_TIME: f32 = 1.0;

/// Single file (body diameters): at a passage narrower than this, three cannot go abreast,
/// and its walkers go strictly nearest the mouth first ([`NavSettings::single_file_width`]).
pub const SINGLE_FILE: f32 = 3.0;

/// The length of the order at a passage where three fit abreast, in radii (see
/// [`NavSettings::single_file_width`]): long enough that two or three abreast still pass,
/// short enough to break an arch (one radius costs an evacuation's 2.5 m exits nearly a third
/// of their flow; four radii leave arches standing).
pub const ABREAST_ORDER: f32 = 2.0;

/// The largest exponent of the priority `e^(−d/ℓ)` of a walker `d` metres from its
/// passage's mouth (so it never underflows to zero).
const MAX_YIELD: f32 = 40.0;

/// One navigating agent.
#[derive(Clone, Debug)]
struct Entry {
    agent: AgentHandle,
    radius: f32,
    mesh: usize,
    route: Option<Route>,
    /// The goal the route was planned for.
    planned_for: Option<Vec2>,
    /// Seconds since the route was planned.
    age: f32,
    /// Seconds its new goal has waited for a route.
    waiting: f32,
    unreachable: bool,
    /// The passage its route crosses next, this step.
    crossing: Option<Crossing>,
    /// The two-way passage it came out of last, while it is near that mouth
    /// ([`keep_lane`]).
    came_out: Option<Crossing>,
}

/// The routes of a crowd's navigating agents (see the [crate docs](crate)). Call
/// [`update`](Navigator::update) before each [`Crowd::step`]: it plans what needs planning
/// within the step's budget, trims every route to where its agent is, and sets each agent's
/// [`Waypoint`](steerkit::crowd::Waypoint) for the crowd's `navigate` leaf.
///
/// **Turn-taking.** Two streams meeting head on in a narrow place jam: each body's avoidance
/// waits for the other. So each passage of a mesh ([`NavMesh::passages`], narrower than
/// [`NavSettings::passage_width`] diameters) is crossed by one direction at a time. A walker
/// whose route enters a passage within 15 m of route distance queues for its direction; while
/// the other direction has the passage it holds clear of its mouth (back to twice the gap's
/// width, at least 4 m, and to its right of the middle line, so that the stream coming out
/// leaves by the other half; that point put on the mesh), its stuck clock stopped
/// ([`Crowd::reset_stall`]). The turn passes when the flowing direction's queue is empty, or
/// after 15 s + 1 s per metre of passage, but only while the other side waits, and once the
/// last walkers of the closed turn have left the passage (or 10 s + 2 s/m later). With no
/// turn, the longer queue gets it. Counts are integers over every agent each step, so the
/// turn does not depend on the order; O(agents × passages) per step (a distance test skips
/// the far passages before any route is walked).
///
/// Deterministic: the routes planned in a step are chosen in a fixed order and each is a pure
/// function of the mesh, the agent's position and its goal, so the thread count never changes
/// a result.
#[derive(Debug)]
pub struct Navigator {
    level: Level,
    settings: NavSettings,
    /// One mesh per body radius, with that radius.
    meshes: Vec<(f32, NavMesh)>,
    /// Each mesh's passages taken in turns, and their turns.
    signals: Vec<Signals>,
    /// Each mesh's two-way passages.
    lanes: Vec<Vec<crate::Passage>>,
    /// Each mesh with one of its turn-taking passages closed, built when first wanted
    /// (`Some(None)`: closing it left nothing walkable).
    closed: Vec<Vec<Option<Option<NavMesh>>>>,
    entries: Vec<Entry>,
    index: HashMap<AgentHandle, usize>,
    events: Vec<NavEvent>,
}

impl Navigator {
    /// A navigator for `level` with no agents yet.
    ///
    /// # Errors
    /// [`NavError`] for a bad level or settings.
    pub fn new(level: Level, settings: NavSettings) -> Result<Self, NavError> {
        level.check()?;
        check_radius("clearance", settings.clearance)?;
        for (name, v) in [
            ("replan_interval", settings.replan_interval),
            ("off_route", settings.off_route),
            ("anticipation", settings.anticipation),
            ("keep_right", settings.keep_right),
            ("passage_width", settings.passage_width),
            ("two_way_width", settings.two_way_width),
            ("single_file_width", settings.single_file_width),
        ] {
            check_radius(name, v)?;
        }
        Ok(Navigator {
            level,
            settings,
            meshes: Vec::new(),
            signals: Vec::new(),
            lanes: Vec::new(),
            closed: Vec::new(),
            entries: Vec::new(),
            index: HashMap::new(),
            events: Vec::new(),
        })
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &NavSettings {
        &self.settings
    }

    /// The mesh for bodies of `radius` (m), built on first use.
    ///
    /// # Errors
    /// [`NavError`] when the mesh cannot be built (nothing walkable at that radius).
    pub fn mesh_for(&mut self, radius: f32) -> Result<&NavMesh, NavError> {
        let i = self.mesh_index(radius)?;
        Ok(&self.meshes[i].1)
    }

    fn mesh_index(&mut self, radius: f32) -> Result<usize, NavError> {
        if let Some(i) = self.meshes.iter().position(|(r, _)| *r == radius) {
            return Ok(i);
        }
        let mesh = NavMesh::build(&self.level, radius, self.settings.clearance)?;
        let passages = mesh.passages(self.settings.passage_width * 2.0 * radius);
        let two_way = self.settings.two_way_width * 2.0 * radius - 2.0 * mesh.inflation();
        // a wide gap shorter than it is wide is open ground: crossed in a few steps, with
        // goals often beside it (a pillar by a wall), so neither lanes nor turns
        let (lanes, turns) = passages
            .into_iter()
            .filter(|p| p.width < two_way || p.length() >= p.width)
            .partition(|p| p.width >= two_way);
        self.lanes.push(lanes);
        self.closed.push((0..turns.len()).map(|_| None).collect());
        self.signals.push(Signals::new(turns, mesh.inflation()));
        self.meshes.push((radius, mesh));
        Ok(self.meshes.len() - 1)
    }

    /// The passages where turns are taken on the mesh for bodies of `radius` (m), once it is
    /// built (empty with turn-taking off).
    #[must_use]
    pub fn passages(&self, radius: f32) -> &[crate::Passage] {
        self.meshes
            .iter()
            .position(|(r, _)| *r == radius)
            .map_or(&[], |i| &self.signals[i].passages)
    }

    /// The passages crossed both ways at once in lanes on the mesh for bodies of `radius` (m),
    /// once it is built ([`NavSettings::two_way_width`]).
    #[must_use]
    pub fn two_way_passages(&self, radius: f32) -> &[crate::Passage] {
        self.meshes.iter().position(|(r, _)| *r == radius).map_or(&[], |i| &self.lanes[i])
    }

    /// The meshes built so far, with their body radius.
    pub fn meshes(&self) -> impl Iterator<Item = (f32, &NavMesh)> {
        self.meshes.iter().map(|(r, m)| (*r, m))
    }

    /// Navigates `agent`, a body of `radius` (m), from now on: its goal is the crowd's
    /// ([`Crowd::set_goal`]).
    ///
    /// # Errors
    /// As [`mesh_for`](Self::mesh_for).
    pub fn add_agent(&mut self, agent: AgentHandle, radius: f32) -> Result<(), NavError> {
        check_radius("radius", radius)?;
        let mesh = self.mesh_index(radius)?;
        let entry = Entry {
            agent,
            radius,
            mesh,
            route: None,
            planned_for: None,
            age: 0.0,
            waiting: 0.0,
            unreachable: false,
            crossing: None,
            came_out: None,
        };
        match self.index.get(&agent) {
            Some(&i) => self.entries[i] = entry,
            None => {
                self.index.insert(agent, self.entries.len());
                self.entries.push(entry);
            }
        }
        Ok(())
    }

    /// An agent's route, if it has one.
    #[must_use]
    pub fn route(&self, agent: AgentHandle) -> Option<&Route> {
        self.entries[*self.index.get(&agent)?].route.as_ref()
    }

    /// Plans, trims and hands over every route for the coming step of `dt` seconds (see the
    /// type's docs). Agents the crowd no longer has are forgotten. Returns this step's events.
    pub fn update(&mut self, crowd: &mut Crowd<Vec2>, dt: f32) -> &[NavEvent] {
        self.events.clear();
        let before = self.entries.len();
        self.entries.retain(|e| crowd.kinematic(e.agent).is_some());
        if self.entries.len() != before {
            self.index = self.entries.iter().enumerate().map(|(i, e)| (e.agent, i)).collect();
        }
        self.plan(crowd, dt);
        let s = self.settings;
        for signals in &mut self.signals {
            signals.clear_counts();
        }
        for e in &mut self.entries {
            e.crossing = None;
            let (Some(k), Some(route)) = (crowd.kinematic(e.agent), e.route.as_mut()) else {
                continue;
            };
            route.advance(k.position, e.radius.max(0.2));
            let signals = &mut self.signals[e.mesh];
            if !signals.passages.is_empty() {
                e.crossing = crossing(
                    &signals.passages,
                    k.position,
                    route.ahead(),
                    QUEUE_RANGE,
                    signals.margin,
                );
                if let Some(c) = &e.crossing {
                    signals.count(c);
                }
                signals.count_demand(k.position, route.ahead());
            }
        }
        for signals in &mut self.signals {
            signals.switch(dt.max(0.0));
        }
        for e in &mut self.entries {
            let (Some(k), Some(route)) = (crowd.kinematic(e.agent), e.route.as_ref()) else {
                // no goal: nothing to navigate to
                let _ = crowd.set_waypoint(e.agent, None);
                continue;
            };
            let lookahead = k.velocity.length() * s.anticipation;
            let mut w = route.waypoint(k.position, lookahead, s.clearance);
            let lanes = &self.lanes[e.mesh];
            if !lanes.is_empty() {
                let (mesh, margin) = (&self.meshes[e.mesh].1, self.signals[e.mesh].margin);
                let at = (k.position, route.ahead());
                keep_lane(mesh, lanes, margin, &mut e.came_out, at, &mut w);
            }
            if let Some(c) = &e.crossing {
                let signals = &self.signals[e.mesh];
                if signals.goes(c) {
                    // in order: who is nearer the mouth goes first, so that no arch of
                    // equals wedges in it (strictly where only single file fits)
                    let gap = signals.passages[c.passage as usize].width + 2.0 * signals.margin;
                    let r = e.radius.max(1e-3);
                    let diameters = gap / (2.0 * r);
                    if diameters < s.single_file_width {
                        let length = if diameters < SINGLE_FILE { r } else { ABREAST_ORDER * r };
                        w.priority = (-(c.dist / length).min(MAX_YIELD)).exp();
                    }
                } else {
                    // on the mesh: a hold moved back or aside from a mouth may lie in a wall
                    let at = self.meshes[e.mesh].1.nearest(signals.hold(c, k.position));
                    w = Waypoint { point: at, remaining: 0.0, lane: None, priority: 1.0 };
                    let _ = crowd.reset_stall(e.agent);
                }
            }
            // the route only ever holds finite points, so the crowd accepts it
            let _ = crowd.set_waypoint(e.agent, Some(w));
            e.age += dt.max(0.0);
        }
        &self.events
    }

    /// Chooses the routes to plan this step, plans them (in parallel) and installs them.
    fn plan(&mut self, crowd: &Crowd<Vec2>, dt: f32) {
        let s = self.settings;
        // new goals waiting, and the longest wait (s)
        let (mut new_goals, mut longest) = (0usize, 0.0f32);
        // (urgency, age order, entry): new goals, then off the route, then the oldest routes
        let mut due: Vec<(u8, u32, usize)> = Vec::new();
        for (i, e) in self.entries.iter_mut().enumerate() {
            let goal = crowd.goal(e.agent);
            if goal.is_none() {
                e.route = None;
                e.planned_for = None;
                e.waiting = 0.0;
                continue;
            }
            let Some(k) = crowd.kinematic(e.agent) else { continue };
            let urgency = match &e.route {
                _ if e.planned_for != goal => 0,
                Some(r) if r.off_route(k.position) > s.off_route => 1,
                // on its last leg and home: a plan from here gives the same leg again
                Some(r) if e.age >= s.replan_interval && r.home(k.position, s.off_route) => {
                    e.age = 0.0;
                    continue;
                }
                Some(_) if e.age >= s.replan_interval => 2,
                Some(_) => continue,
                None => 0,
            };
            if urgency == 0 {
                new_goals += 1;
                longest = longest.max(e.waiting);
            }
            // older first within an urgency: ages compare as their bits (non-negative floats)
            due.push((urgency, u32::MAX - e.age.to_bits(), i));
        }
        due.sort_unstable();
        let budget = first_route_budget(s.max_plans_per_step, new_goals, longest, dt);
        for &(urgency, _, i) in due.iter().skip(budget) {
            if urgency == 0 {
                self.entries[i].waiting += dt.max(0.0);
            }
        }
        due.truncate(budget);
        let requests: Vec<(usize, Vec2, Vec2)> = due
            .iter()
            .filter_map(|&(_, _, i)| {
                let e = &self.entries[i];
                Some((i, crowd.kinematic(e.agent)?.position, crowd.goal(e.agent)?))
            })
            .collect();
        let plans = par_map(requests, |(i, from, goal)| self.first_plan(i, from, goal));
        // the ways round passages walked against the flow: their meshes first (serial, once)
        for plan in &plans {
            let m = self.entries[plan.i].mesh;
            if let Some(pi) = plan.worst {
                if self.closed[m][pi as usize].is_none() {
                    self.closed[m][pi as usize] = Some(self.close(m, pi as usize));
                }
            }
        }
        let planned = par_map(plans, |plan| self.finish(plan));
        for (i, start, goal, points, unreachable) in planned {
            let e = &mut self.entries[i];
            let fresh_goal = e.planned_for != Some(goal);
            let route = Route::new(start, points);
            if unreachable && (fresh_goal || !e.unreachable) {
                self.events.push(NavEvent::Unreachable { agent: e.agent, goal, stop: route.end() });
            }
            e.unreachable = unreachable;
            e.route = Some(route);
            e.planned_for = Some(goal);
            e.age = 0.0;
            e.waiting = 0.0;
        }
    }

    /// The shortest route for entry `i` from `from` to `goal` (or to the nearest reachable
    /// point), with its cost: length plus the counterflow it meets at passages.
    fn first_plan(&self, i: usize, from: Vec2, goal: Vec2) -> Plan {
        let e = &self.entries[i];
        let mesh = &self.meshes[e.mesh].1;
        let start = mesh.nearest(from);
        let (path, unreachable) = match mesh.path(start, goal) {
            Some(p) => (p, false),
            None => {
                let stop = mesh.nearest_reachable(start, goal);
                let p = mesh.path(start, stop);
                (p.unwrap_or(Path { points: vec![start], length: 0.0 }), true)
            }
        };
        let (delay, worst) = self.signals[e.mesh].counterflow(start, &path.points, e.radius);
        Plan { i, start, goal, cost: path.length + delay, worst, path, unreachable }
    }

    /// A plan's route, the way round the passage it meets the most counterflow at when that
    /// costs less, left turns widened and kept to the lanes.
    fn finish(&self, mut plan: Plan) -> (usize, Vec2, Vec2, Vec<Vec2>, bool) {
        let e = &self.entries[plan.i];
        let closed = plan.worst.and_then(|pi| self.closed[e.mesh][pi as usize].as_ref()?.as_ref());
        if let Some(closed) = closed.filter(|c| c.contains(plan.start)) {
            if let Some(other) = closed.path(plan.start, plan.goal) {
                let signals = &self.signals[e.mesh];
                let (delay, _) = signals.counterflow(plan.start, &other.points, e.radius);
                if other.length + delay < plan.cost {
                    plan.path = other;
                }
            }
        }
        let mesh = &self.meshes[e.mesh].1;
        let mut points = plan.path.points;
        widen_left_turns(mesh, plan.start, &mut points, self.settings.keep_right);
        // after widening: a lane's points stay in the middle of its half
        keep_to_lanes(mesh, &self.lanes[e.mesh], plan.start, &mut points);
        (plan.i, plan.start, plan.goal, points, plan.unreachable)
    }

    /// Mesh `m` with its turn-taking passage `pi` closed by a wall across its middle.
    fn close(&self, m: usize, pi: usize) -> Option<NavMesh> {
        let (radius, mesh) = &self.meshes[m];
        let g = &self.signals[m].passages[pi];
        let (mid, along) = ((g.a + g.b) * 0.5, g.axis() * 0.05);
        // from obstacle to obstacle, a little into each
        let across = g.axis().perp() * (g.width * 0.5 + mesh.inflation() + 0.05);
        let mut level = self.level.clone();
        level.obstacles.push(vec![
            mid - along - across,
            mid + along - across,
            mid + along + across,
            mid - along + across,
        ]);
        NavMesh::build(&level, *radius, self.settings.clearance).ok()
    }
}

/// Routes to plan this step: `cap`, or more while `new_goals` wait for their first route, so
/// that each is planned within [`FIRST_ROUTE_TIME`]: an equal share of them for each step
/// left before the `longest`-waiting one's time is up (steps of `dt` seconds; `cap` for a
/// `dt` that is not positive).
fn first_route_budget(cap: usize, new_goals: usize, longest: f32, dt: f32) -> usize {
    if new_goals <= cap || dt.is_nan() || dt <= 0.0 {
        return cap;
    }
    // steps at which a plan still comes in time, this one included (a thousandth of a step
    // for the rounding of the sum of the waits)
    let left = ((FIRST_ROUTE_TIME - longest) / dt + 1e-3).floor();
    if left >= new_goals as f32 {
        return cap;
    }
    cap.max(new_goals.div_ceil(left.max(1.0) as usize))
}

/// Moves each left-turn corner of a path (start, then `points`) out along the turn's outer
/// bisector `d_in − d_out` by up to `berth` (m), stopping [`FREE_MARGIN`] short of the mesh's
/// boundary: right-hand traffic takes left turns wide. Right turns and the end stay.
fn widen_left_turns(mesh: &NavMesh, start: Vec2, points: &mut [Vec2], berth: f32) {
    if berth <= 0.0 {
        return;
    }
    let mut before = start;
    for i in 0..points.len().saturating_sub(1) {
        let corner = points[i];
        let d_in = (corner - before).normalize_or_zero();
        let d_out = (points[i + 1] - corner).normalize_or_zero();
        before = corner;
        if d_in.perp_dot(d_out) <= 1e-3 {
            continue;
        }
        let out = (d_in - d_out).normalize_or_zero();
        let free = mesh.free_distance(corner, out, berth + FREE_MARGIN) - FREE_MARGIN;
        if free > 0.0 {
            points[i] = corner + out * free.min(berth);
        }
    }
}

/// Room (m) left between a widened corner and the mesh's boundary.
const FREE_MARGIN: f32 = 0.05;
