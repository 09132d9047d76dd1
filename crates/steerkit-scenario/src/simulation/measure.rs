//! What a simulation measures as it goes: the crowd's events by agent, the pairwise gaps and
//! overlaps, the path followers' deviation and the formation members' slot errors.

use super::numbering::Numbering;
use super::pairs::PairScan;
use crate::{Dim, Metric, MetricsPlan, World};
use steerkit::crowd::{AgentHandle, Crowd, CrowdEvent, Recipe};

/// The running measures of a simulation.
pub(super) struct Measures {
    pub(super) plan: MetricsPlan,
    pub(super) events: EventTally,
    /// The pairwise scan, when the plan wants it (overlaps or the minimum separation).
    pub(super) pairs: PairScan,
    pub(super) pairwise: bool,
    pub(super) deviation: PathDeviation,
    pub(super) laps: super::laps::Laps,
    pub(super) slots: SlotErrors,
    /// Who is home now, when arrivals are collected.
    pub(super) homes: Option<Homes>,
}

impl Measures {
    /// Measures of `world` as its plan asks; `ignored` bodies are left out of the pairwise
    /// scan (a side view's jumpers, which run through each other by design).
    pub(super) fn new<V: Dim>(
        world: &World<V>,
        numbering: &Numbering,
        ignored: &[AgentHandle],
    ) -> Self {
        let plan = world.settings.metrics.clone();
        let n = numbering.len();
        let pairwise = plan.collects(Metric::AgentOverlaps) || plan.collects(Metric::MinSeparation);
        let mut pairs =
            PairScan::new(world.crowd.config().neighbour_radius, plan.overlap_tolerance);
        for &h in ignored {
            pairs.ignore(h);
        }
        let deviation = PathDeviation::new(world, n, plan.collects(Metric::PathDeviation));
        Self {
            events: EventTally::new(n),
            pairs,
            pairwise,
            deviation,
            laps: super::laps::Laps::new(world, n, plan.collects(Metric::Laps)),
            slots: SlotErrors::new(world.groups.len()),
            homes: plan.collects(Metric::Arrivals).then(|| Homes::new(world)),
            plan,
        }
    }

    /// The measures taken after the crowd's step; returns the step's smallest gap (infinite
    /// when not scanned or no two agents are within reach).
    pub(super) fn after_step<V: Dim>(
        &mut self,
        crowd: &mut Crowd<V>,
        numbering: &Numbering,
        step: u64,
    ) -> f32 {
        let min_gap = if self.pairwise { self.pairs.scan(crowd) } else { f32::INFINITY };
        self.deviation.measure(crowd, numbering, &self.events.path_done);
        self.laps.measure(crowd, numbering, step);
        if let Some(h) = self.homes.as_mut() {
            h.measure(crowd);
        }
        min_gap
    }
}

/// Who is home at each step: within the group's arrive radius of the goal now (minimum image
/// on a torus), not just once. An agent taken out on arrival counts as home; agents without a
/// goal are left out, and so is a group with none. O(n) per step.
pub(super) struct Homes {
    /// Each group's agents and arrive radius (m).
    groups: Vec<(Vec<AgentHandle>, f32)>,
    /// The step count so far.
    step: u64,
    /// Each group's first step with every agent home at once.
    pub(super) group_all: Vec<Option<u64>>,
    /// Each group's agents home after the last step.
    pub(super) group_now: Vec<usize>,
    /// The first step with every agent of every group home at once.
    pub(super) all: Option<u64>,
}

impl Homes {
    fn new<V: Dim>(world: &World<V>) -> Self {
        let crowd = &world.crowd;
        let groups: Vec<_> = (world.groups.iter())
            .map(|g| {
                let radius = crowd.group(g.id).map_or(0.0, |s| s.arrive_radius);
                (g.agents.clone(), radius)
            })
            .collect();
        let n = groups.len();
        Self { groups, step: 0, group_all: vec![None; n], group_now: vec![0; n], all: None }
    }

    fn measure<V: Dim>(&mut self, crowd: &Crowd<V>) {
        self.step += 1;
        let bounds = &crowd.config().bounds;
        let (mut everyone, mut any) = (true, false);
        for (gi, (agents, radius)) in self.groups.iter().enumerate() {
            let (mut home, mut counted) = (0, 0);
            for &h in agents {
                let Some(k) = crowd.kinematic(h) else {
                    // taken out (on arrival)
                    home += 1;
                    counted += 1;
                    continue;
                };
                if let Some(goal) = crowd.goal(h) {
                    counted += 1;
                    let d = bounds.offset(k.position, goal).length_squared();
                    home += usize::from(d <= radius * radius);
                }
            }
            self.group_now[gi] = home;
            if counted > 0 {
                any = true;
                everyone &= home == counted;
                if home == counted {
                    self.group_all[gi].get_or_insert(self.step);
                }
            }
        }
        if any && everyone {
            self.all.get_or_insert(self.step);
        }
    }
}

/// What the step events told, by agent number.
#[derive(Default)]
pub(super) struct EventTally {
    /// Step of each agent's first arrival.
    pub(super) arrived_at: Vec<Option<u64>>,
    /// Agents arrived at least once.
    pub(super) arrived_total: usize,
    /// Step at which each agent finished its open path.
    pub(super) path_done: Vec<Option<u64>>,
    pub(super) obstacle_contacts: u64,
    pub(super) wall_crossings: u64,
    pub(super) quarantined: u64,
    pub(super) stuck: u64,
}

impl EventTally {
    fn new(n: usize) -> Self {
        Self { arrived_at: vec![None; n], path_done: vec![None; n], ..Self::default() }
    }

    pub(super) fn count(&mut self, e: &CrowdEvent, who: Option<u32>, step: u64) {
        match *e {
            CrowdEvent::Arrived { .. } => {
                if let Some(a) = who {
                    if self.arrived_at[a as usize].is_none() {
                        self.arrived_at[a as usize] = Some(step);
                        self.arrived_total += 1;
                    }
                }
            }
            CrowdEvent::PathFinished { .. } => {
                if let Some(a) = who {
                    self.path_done[a as usize].get_or_insert(step);
                }
            }
            CrowdEvent::ObstacleCollision { .. } => self.obstacle_contacts += 1,
            CrowdEvent::WallCrossing { .. } => self.wall_crossings += 1,
            CrowdEvent::Quarantined { .. } => self.quarantined += 1,
            CrowdEvent::Stuck { .. } => self.stuck += 1,
            CrowdEvent::AgentCollision { .. } => {}
        }
    }
}

/// How far each group's path followers stray from the path: the distance from an agent to the
/// nearest point of its group's path, found from its last parameter within the path's search
/// window (so a step costs what the crowd's own path search costs), every step until it
/// finishes the path.
pub(super) struct PathDeviation {
    /// Each group's path, when it follows one and the metric is collected.
    paths: Vec<Option<usize>>,
    /// Each agent's last path parameter (m), NaN before the first (a whole-path search).
    param: Vec<f32>,
    max: Vec<f64>,
    sum: Vec<f64>,
    count: Vec<u64>,
}

/// Each group's first `follow_path` leaf's path, in group order (all `None` unless `wanted`):
/// what the path deviation and the laps measure against.
pub(super) fn followed_paths<V: Dim>(world: &World<V>, wanted: bool) -> Vec<Option<usize>> {
    let first = |g: &crate::WorldGroup| {
        let mut first = None;
        if let (true, Some(spec)) = (wanted, world.crowd.group(g.id)) {
            spec.recipe.for_each_leaf(&mut |r| {
                if let (None, Recipe::FollowPath { path, .. }) = (first, r) {
                    first = Some(path.0 as usize);
                }
            });
        }
        first
    };
    world.groups.iter().map(first).collect()
}

impl PathDeviation {
    fn new<V: Dim>(world: &World<V>, n: usize, wanted: bool) -> Self {
        let paths = followed_paths(world, wanted);
        let groups = paths.len();
        Self {
            paths,
            param: vec![f32::NAN; n],
            max: vec![0.0; groups],
            sum: vec![0.0; groups],
            count: vec![0; groups],
        }
    }

    fn measure<V: Dim>(&mut self, crowd: &Crowd<V>, numbering: &Numbering, done: &[Option<u64>]) {
        use steerkit::path::Path as _;
        if self.paths.iter().all(Option::is_none) {
            return;
        }
        let paths = crowd.paths();
        let agent_groups = numbering.agent_groups();
        for (h, &p) in crowd.handles().zip(crowd.positions()) {
            let Some(a) = numbering.number(h) else { continue };
            let a = a as usize;
            let g = agent_groups[a] as usize;
            let (Some(Some(path)), None) =
                (self.paths.get(g).map(|p| p.map(|i| &paths[i])), done[a])
            else {
                continue;
            };
            let t = path.get_param(p, self.param[a]);
            self.param[a] = t;
            let d = f64::from((path.get_position(t) - p).length());
            if d.is_finite() {
                self.max[g] = self.max[g].max(d);
                self.sum[g] += d;
                self.count[g] += 1;
            }
        }
    }

    pub(super) fn max(&self, g: usize) -> Option<f64> {
        (self.paths[g].is_some() && self.count[g] > 0).then(|| self.max[g])
    }

    pub(super) fn mean(&self, g: usize) -> Option<f64> {
        (self.paths[g].is_some() && self.count[g] > 0).then(|| self.sum[g] / self.count[g] as f64)
    }
}

/// Distances between formation members and their slots, per group.
pub(super) struct SlotErrors {
    sum: Vec<f64>,
    count: Vec<u64>,
    max: Vec<f32>,
}

impl SlotErrors {
    fn new(groups: usize) -> Self {
        Self { sum: vec![0.0; groups], count: vec![0; groups], max: vec![0.0; groups] }
    }

    pub(super) fn add<V: Dim>(&mut self, crowd: &Crowd<V>, numbering: &Numbering) {
        let positions = crowd.positions();
        for (i, h) in crowd.handles().enumerate() {
            if let (Some(t), Some(a)) = (V::slot(crowd, h), numbering.number(h)) {
                let g = numbering.agent_groups()[a as usize] as usize;
                let e = (positions[i] - t).length();
                self.sum[g] += f64::from(e);
                self.count[g] += 1;
                self.max[g] = self.max[g].max(e);
            }
        }
    }

    /// Mean and largest error of group `g`; `None` when it had no agent in a formation.
    pub(super) fn of_group(&self, g: usize) -> (Option<f64>, Option<f64>) {
        let any = self.count[g] > 0;
        (
            any.then(|| super::metrics::round6(self.sum[g] / self.count[g] as f64)),
            any.then(|| super::metrics::round6(f64::from(self.max[g]))),
        )
    }
}
