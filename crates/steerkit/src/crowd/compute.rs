//! Step phase 2: every agent's steering from the state at the start of the step (the single
//! neighbour pass, the direct recipes' fast path, the recipe tree).

use super::*;
use crate::steering::{Orca, Reach};

impl<V: CrowdVector> Crowd<V> {
    /// Phase 2: steering of every agent from the current state.
    #[inline(never)]
    pub(super) fn compute(
        config: &CrowdConfig<V>,
        agents: &mut Agents<V>,
        world: &World<V>,
        order: &Order,
        work: &mut Work<V>,
        dt: f32,
    ) {
        Self::tag_orca(agents, world, &config.bounds);
        // ORCA's nearest kept in Verlet lists, off a torus (see `scan::NearLists`)
        let listed = order.verlet
            && !config.bounds.is_toroidal()
            && world.groups.iter().any(|g| {
                g.spec.orca.as_ref().is_some_and(|o| o.max_neighbours() as usize <= scan::LISTED)
            });
        if listed {
            work.near.epoch = order.changes;
            work.near.slot_of.clear();
            work.near.slot_of.extend(agents.cold.iter().map(|c| c.slot));
        }
        let phase = Steer {
            view: grid_view!(agents, order, config),
            agents: agent_view!(agents),
            groups: &world.groups,
            paths: &world.paths,
            slots: &agents.slots,
            storage: scan::Storage {
                grid: &order.grid,
                bounds: &config.bounds,
                position: &agents.position,
                velocity: &agents.velocity,
                radius: &agents.radius,
                soa: &agents.soa,
                avx2: order.avx2,
            },
            orientation: &agents.orientation,
            rotation: &agents.rotation,
            radius: &agents.radius,
            status: &agents.status,
            obstacles: world.obstacles.as_ref(),
            slot_targets: &world.slot_targets,
            customs: &world.customs,
            hazards: &world.hazards,
            orca_tags: &agents.orca_tags,
            nr: config.neighbour_radius,
            steps: work.steps,
            avx2: order.avx2,
            lanes: V::BLENDS_IN_LANES && order.agent_lanes,
            near: listed.then_some(&work.near),
            dt,
        };
        let n = agents.cold.len().div_ceil(CHUNK);
        (chunks!(agents.cold).zip(chunks!(agents.debug)).zip(each!(work.chunks)))
            .zip(side_chunks!(agents.avoid, n).zip(side_chunks!(agents.memory, n)))
            .enumerate()
            .for_each(|(ci, (((cold, debug), scratch), (avoid, memory)))| {
                phase.chunk(ci, cold, debug, scratch, avoid, memory)
            });
        for c in &mut work.chunks {
            for (slot, list) in c.listed.drain(..) {
                work.near.store(slot, list);
            }
        }
    }

    /// Every agent's avoidance role this step (`orca_tags`), while some group runs ORCA.
    fn tag_orca(agents: &mut Agents<V>, world: &World<V>, bounds: &WorldBounds<V>) {
        agents.orca_tags.clear();
        if world.groups.iter().any(|g| g.spec.orca.is_some()) {
            let (groups, cold, velocity) = (&world.groups, &agents.cold, &agents.velocity);
            let (position, memory) = (&agents.position, &agents.memory);
            let tag = |i: usize| {
                let c = &cold[i];
                let Some(o) = &groups[c.group as usize].spec.orca else {
                    return OrcaTag::NONE;
                };
                let arrived = c.flags & ARRIVED != 0;
                // standing: slower than the quarter of its top speed that `escape` calls keen
                let slow = 0.25 * c.limits.max_speed();
                OrcaTag {
                    layers: o.layers(),
                    mask: o.mask(),
                    priority: o.priority() * if arrived { o.arrived_priority() } else { 1.0 },
                    resting: arrived && velocity[i].length_squared() < slow * slow,
                    arrived,
                    waiting: false,
                    goal_sq: f32::INFINITY,
                }
            };
            #[cfg(feature = "parallel")]
            agents.orca_tags.par_extend((0..cold.len()).into_par_iter().map(tag));
            #[cfg(not(feature = "parallel"))]
            agents.orca_tags.extend((0..cold.len()).map(tag));
            // the distance to the goal only decides pairs with an arrived or waiting agent:
            // read the goals (a separate array) only once someone has arrived or a navigation
            // layer sets stops
            if agents.waypoints_on || agents.orca_tags.iter().any(|t| t.arrived) {
                let goal_sq = |(i, t): (usize, &mut OrcaTag)| {
                    let c = &cold[i];
                    let Some(m) = memory.get(i).filter(|_| c.flags & HAS_GOAL != 0) else {
                        return;
                    };
                    t.goal_sq = bounds.offset(position[i], m.goal).length_squared();
                    if let Some(w) = &m.waypoint {
                        t.priority *= w.priority;
                    }
                    // a stop short of the goal: it waits there, and yields as if arrived
                    let far = groups[c.group as usize].spec.arrive_radius;
                    let stop = |w: &crate::crowd::Waypoint<V>| {
                        w.remaining == 0.0
                            && bounds.offset(w.point, m.goal).length_squared() > far * far
                    };
                    if !t.arrived && t.mask != 0 && m.waypoint.as_ref().is_some_and(stop) {
                        t.waiting = true;
                        if let Some(o) = &groups[c.group as usize].spec.orca {
                            t.priority *= o.arrived_priority();
                        }
                    }
                };
                #[cfg(feature = "parallel")]
                agents.orca_tags.par_iter_mut().enumerate().for_each(goal_sq);
                #[cfg(not(feature = "parallel"))]
                agents.orca_tags.iter_mut().enumerate().for_each(goal_sq);
            }
        }
    }
}

/// What the compute phase reads, shared by every chunk: the crowd's fields it needs, borrowed
/// one by one so that the chunks can write the others.
struct Steer<'a, V: CrowdVector> {
    view: GridNeighbours<'a, V>,
    agents: AgentView<'a, V>,
    groups: &'a [GroupRt<V>],
    paths: &'a [Polyline<V>],
    slots: &'a [Slot],
    storage: scan::Storage<'a, V>,
    orientation: &'a [V::Orientation],
    rotation: &'a [V::Angular],
    radius: &'a [f32],
    status: &'a [u8],
    obstacles: Option<&'a V::Obstacles>,
    slot_targets: &'a [Option<SlotTarget>],
    customs: &'a [CustomEntry<V>],
    hazards: &'a [Hazard<V>],
    orca_tags: &'a [OrcaTag],
    /// The neighbour radius (m).
    nr: f32,
    steps: u64,
    avx2: bool,
    /// The space takes flat blends eight agents at a time in lanes (and the crowd lets it).
    lanes: bool,
    /// ORCA's Verlet lists, while kept.
    near: Option<&'a scan::NearLists<V>>,
    dt: f32,
}

impl<V: CrowdVector> Steer<'_, V> {
    /// Agent `i`'s kinematic.
    #[inline(always)]
    fn me(&self, i: usize) -> Kinematic<V> {
        Kinematic {
            position: self.view.position[i],
            orientation: self.orientation[i],
            velocity: self.view.velocity[i],
            rotation: self.rotation[i],
        }
    }

    /// A group whose flat blend has a lane form and no ORCA after it: its agents keep their
    /// sums, and the blend takes them eight at a time after the chunk's scans.
    #[inline(always)]
    fn blend_later(&self, g: &GroupRt<V>) -> bool {
        self.lanes
            && g.spec.orca.is_none()
            && matches!(&g.direct, Some(Direct::Blend(flat)) if flat.lanes().is_some())
    }

    /// The steering of chunk `ci`'s agents (`cold`, `debug` and the side arrays are the
    /// chunk's; `avoid` and `memory` only while stored).
    #[inline(always)]
    fn chunk(
        &self,
        ci: usize,
        cold: &mut [Cold],
        debug: &mut [AgentDebug<V>],
        scratch: &mut ChunkScratch<V>,
        mut avoid: Option<&mut [AvoidState]>,
        mut memory: Option<&mut [Memory<V>]>,
    ) {
        let (groups, status) = (self.groups, self.status);
        let base = ci * CHUNK;
        // agents of recipes without obstacle avoidance have no avoidance state
        let mut spare = AvoidState::default();
        // nor memory before something reads it (`memory_on`: a goal or a tree recipe
        // allocates it first, so this stand-in is never read)
        let mut spare_memory = None;
        // consecutive agents of one group whose flat blend waits to be taken eight at a
        // time in lanes (`flush`), with their sums
        let mut held = Held::<V>::default();
        // agents before `next` had their sums taken in a run (`summarise_run`)
        let mut next = 0;
        scratch.near.clear();
        scratch.near_span.clear();
        scratch.near_span.resize(cold.len(), (0, 0, 0.0));
        for k in 0..cold.len() {
            if k < next {
                continue;
            }
            let i = base + k;
            let later =
                status[i] & QUARANTINED == 0 && self.blend_later(&groups[cold[k].group as usize]);
            if held.len > 0 && !(later && cold[k].group == held.group) {
                self.flush(base, &mut held, cold, debug);
            }
            let g = &groups[cold[k].group as usize];
            if later && scan::runs_in_lanes(&g.plan, g.spec.view_half_angle) {
                next = k + self.scan_run(base, k, &mut held, cold, &mut scratch.block);
                if held.len == LANE_AGENTS {
                    self.flush(base, &mut held, cold, debug);
                }
                continue;
            }
            let (c, d) = (&mut cold[k], &mut debug[k]);
            if status[i] & QUARANTINED != 0 {
                *d = AgentDebug::default();
                continue;
            }
            let g = &groups[c.group as usize];
            let me = self.me(i);
            let mut local = Summary::<V>::default();
            let summary = if later {
                // the scan writes the held agent's sums in place
                if held.len == 0 {
                    (held.first, held.group) = (k, c.group);
                }
                let kept = &mut held.sums[held.len];
                *kept = Summary::default();
                kept
            } else {
                &mut local
            };
            self.neighbours(i, &me, g, &c.limits, scratch, summary);
            if later {
                held.len += 1;
                if held.len == LANE_AGENTS {
                    self.flush(base, &mut held, cold, debug);
                }
                continue;
            }
            let summary = &*summary;
            let memory = match memory.as_deref_mut() {
                Some(m) => &mut m[k],
                None => spare_memory.get_or_insert_with(|| {
                    Memory::new(0, AgentHandle { index: 0, generation: 0 }, None)
                }),
            };
            let goal = (c.flags & HAS_GOAL != 0).then_some(memory.goal);
            let mut notes = Notes::default();
            let steering = match &g.direct {
                Some(direct) => direct.evaluate(&me, &c.limits, goal, summary, &mut notes),
                None => {
                    let waypoint = goal.and(memory.waypoint);
                    let cx =
                        self.context(i, me, c, g, (goal, waypoint), summary, &scratch.neighbours);
                    let avoid = match avoid.as_deref_mut() {
                        Some(a) => &mut a[k],
                        None => &mut spare,
                    };
                    evaluate(&g.spec.recipe, &cx, &mut memory.state, avoid, &mut notes)
                        .unwrap_or_default()
                }
            };
            let steering = match &g.spec.orca {
                // an agent on a route does not slide along walls
                Some(orca) if memory.waypoint.is_some() => {
                    let lane = memory.waypoint.and_then(|w| w.lane);
                    self.orca(&orca.routed(), i, &me, c, (steering, lane), scratch)
                }
                Some(orca) => self.orca(orca, i, &me, c, (steering, None), scratch),
                None => steering,
            };
            d.steering = steering;
            d.target = notes.target;
            if notes.path_finished && c.flags & PATH_DONE == 0 {
                c.flags |= PATH_DONE;
                let agent = AgentHandle {
                    index: c.slot,
                    generation: self.slots[c.slot as usize].generation,
                };
                scratch.events.push(CrowdEvent::PathFinished { agent });
            }
        }
        self.flush(base, &mut held, cold, debug);
    }

    /// The held agents' blends: eight at once in lanes, fewer one by one.
    #[inline]
    fn flush(&self, base: usize, held: &mut Held<V>, cold: &[Cold], debug: &mut [AgentDebug<V>]) {
        let (a, n) = (held.first, core::mem::take(&mut held.len));
        if n == 0 {
            return;
        }
        let g = &self.groups[held.group as usize];
        let Some(direct @ Direct::Blend(flat)) = &g.direct else {
            unreachable!("only flat blends are held")
        };
        let me = |j: usize| self.me(base + j);
        if n == LANE_AGENTS {
            let kin = core::array::from_fn(|l| me(a + l));
            let limits = core::array::from_fn(|l| cold[a + l].limits);
            let leaves = flat.lanes().unwrap_or_default();
            if let Some(out) = V::steer_eight(leaves, &kin, &limits, &held.sums, self.avx2) {
                for (d, (steering, target)) in debug[a..a + 8].iter_mut().zip(out) {
                    *d = AgentDebug { steering, target };
                }
                return;
            }
        }
        for (l, sums) in held.sums[..n].iter().enumerate() {
            let mut notes = Notes::default();
            let j = a + l;
            let steering = direct.evaluate(&me(j), &cold[j].limits, None, sums, &mut notes);
            debug[j] = AgentDebug { steering, target: notes.target };
        }
    }

    /// Agent `k` of the chunk and the next ones of its group, up to the held batch's free
    /// places, take the scan as one run, their sums held for the blend in lanes. Returns how
    /// many agents the run took.
    #[inline(always)]
    fn scan_run(
        &self,
        base: usize,
        k: usize,
        held: &mut Held<V>,
        cold: &[Cold],
        block: &mut scan::Block<V>,
    ) -> usize {
        let (i, group, status) = (base + k, cold[k].group, self.status);
        let g = &self.groups[group as usize];
        if held.len == 0 {
            (held.first, held.group) = (k, group);
        }
        let room = (LANE_AGENTS - held.len).min(cold.len() - k);
        let same = |d: &usize| status[i + d] & QUARANTINED == 0 && cold[k + d].group == group;
        let m = 1 + (1..room).take_while(same).count();
        let sums = &mut held.sums[held.len..held.len + m];
        sums.fill(Summary::default());
        let mut limits = [cold[k].limits; LANE_AGENTS];
        for (l, c) in limits.iter_mut().zip(&cold[k..k + m]) {
            *l = c.limits;
        }
        let limits = &limits[..m];
        scan::summarise_run(&self.storage, block, i, self.nr, &g.plan, limits, sums);
        held.len += m;
        m
    }

    /// The single neighbour pass of agent `i` into `summary` (every group leaf is a sum over
    /// the neighbours), and the neighbours one by one into the chunk's list when a leaf needs
    /// them.
    #[inline(always)]
    fn neighbours(
        &self,
        i: usize,
        me: &Kinematic<V>,
        g: &GroupRt<V>,
        limits: &Limits,
        scratch: &mut ChunkScratch<V>,
        summary: &mut Summary<V>,
    ) {
        scratch.neighbours.clear();
        if g.plan.needs_neighbours {
            let cone = g
                .spec
                .view_half_angle
                .and_then(|half| ViewCone::new(heading(me.velocity, me.orientation), half).ok());
            // the single pass: every group leaf is a sum over the neighbours
            scan::summarise(
                &self.storage,
                &mut scratch.block,
                i,
                me.position,
                self.nr,
                cone.as_ref(),
                &g.plan,
                limits,
                summary,
            );
            if g.plan.needs_list {
                let mut q = NeighbourQuery::around(i, me.position, self.nr);
                if let Some(cone) = cone {
                    q = q.with_view(cone);
                }
                let buf = &mut scratch.neighbours;
                self.view.for_each_within(&q, |n| buf.push(*n));
            }
        }
    }

    /// What a recipe tree reads for agent `i`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn context<'b>(
        &'b self,
        i: usize,
        me: Kinematic<V>,
        c: &'b Cold,
        g: &'b GroupRt<V>,
        (goal, waypoint): (Option<V>, Option<Waypoint<V>>),
        summary: &'b Summary<V>,
        neighbours: &'b [Neighbour<V>],
    ) -> Context<'b, V> {
        Context {
            me,
            radius: self.radius[i],
            limits: &c.limits,
            dt: self.dt,
            goal,
            waypoint,
            neighbours,
            summary,
            separations: &g.plan.separations,
            paths: self.paths,
            obstacles: self.obstacles,
            grid: g.plan.grid.as_ref(),
            finish: g.spec.arrive_radius,
            path_done: c.flags & PATH_DONE != 0,
            slot_target: self.slot_targets.get(c.slot as usize).copied().flatten(),
            agents: self.agents,
            customs: self.customs,
            hazards: self.hazards,
            motor: g.spec.motor.as_ref(),
        }
    }

    /// Reciprocal avoidance of agent `i`'s `steering`: the shortcut for an agent clear of
    /// every neighbour (retried in turns while it fails), else the constraints of its nearest
    /// neighbours.
    #[inline(always)]
    fn orca(
        &self,
        orca: &Orca,
        i: usize,
        me: &Kinematic<V>,
        c: &mut Cold,
        (steering, lane): (SteeringOutput<V>, Option<Lane<V>>),
        scratch: &mut ChunkScratch<V>,
    ) -> SteeringOutput<V> {
        let (orca_tags, radius, obstacles, dt) =
            (self.orca_tags, self.radius, self.obstacles, self.dt);
        let (storage, nr) = (&self.storage, self.nr);
        let pair = |j: usize, d_sq: f32| orca_tags[i].pair(orca_tags[j], d_sq);
        // the nearest neighbour's squared distance when the shortcut saw every neighbour
        let mut seen = None;
        // an agent clear of every neighbour needs neither the nearest list
        // nor a constraint
        let clear = |reach: &Reach<V>| {
            let mut nearest = nr * nr;
            let all = scan::all_within(storage, &mut scratch.block, i, me.position, nr, |j, o| {
                let r = radius[i] + radius[j];
                let d_sq = o.length_squared();
                nearest = nearest.min(d_sq);
                pair(j, d_sq).is_none_or(|p| reach.clear(o, self.view.velocity[j], r, p))
            });
            seen = all.then_some(nearest);
            all
        };
        // retried in turns (by slot), so no one step takes every retry
        let turn = (self.steps + u64::from(c.slot)) % RETRY == 0;
        let retry = c.flags & HELD == 0 || turn;
        let quick = if let Some(lane) = lane {
            // the divider as a static obstacle's constraint (see `Lane`)
            let d = (me.position - lane.point).dot(lane.normal);
            let closing = ((radius[i] - d) / orca.obstacle_time_horizon()).min(0.0);
            V::keep_to(&mut scratch.orca, lane.normal * closing, lane.normal);
            None
        } else if retry {
            let quick =
                V::orca_clear(orca, me, radius[i], steering, &c.limits, obstacles, dt, clear);
            c.flags = if quick.is_some() { c.flags & !HELD } else { c.flags | HELD };
            quick
        } else {
            None
        };
        let at = scratch.near.len() as u32;
        if let Some(quick) = quick {
            // no neighbour within the nearest's distance
            if let Some(d_sq) = seen {
                scratch.near_span[i % CHUNK] = (at, at, d_sq);
            }
            return quick;
        }
        let k = orca.max_neighbours() as usize;
        let list = &mut scratch.orca_neighbours;
        let slots = self.slots;
        let index = |s: u32| slots[s as usize].index as usize;
        match self.near {
            Some(near) if k <= scan::LISTED => {
                if !near.nearest(storage, c.slot, me.position, nr, k, index, list) {
                    // the scan, for a new list (its first k are the k nearest); with fewer
                    // than k in the radius a list could never answer (see `NearLists`)
                    let p = me.position;
                    scan::nearest_list(storage, &mut scratch.block, i, p, nr, scan::LISTED, list);
                    if list.len() >= k {
                        scratch.listed.push((c.slot, near.make(p, nr, list)));
                    }
                    list.truncate(k);
                }
            }
            _ => scan::nearest_list(storage, &mut scratch.block, i, me.position, nr, k, list),
        }
        // the k nearest: no other agent is nearer than the last of them (all within the
        // radius when fewer)
        let beyond = match list.last() {
            Some(n) if list.len() == k => n.distance_squared,
            _ if list.len() < k => nr * nr,
            _ => 0.0,
        };
        let first = scratch.near.len();
        scratch.near.extend(list.iter().map(|n| n.index as u32));
        scratch.near[first..].sort_unstable();
        scratch.near_span[i % CHUNK] = (at, scratch.near.len() as u32, beyond);
        V::orca(
            orca,
            me,
            radius[i],
            steering,
            &c.limits,
            &scratch.orca_neighbours,
            |n| pair(n.index, n.distance_squared),
            obstacles,
            dt,
            &mut scratch.orca,
        )
    }
}

/// Agents whose flat blend is taken at once in lanes.
const LANE_AGENTS: usize = 8;

/// Up to eight consecutive agents of one group, from `first` on, whose flat blend waits to be
/// taken in lanes, and their neighbour sums.
#[derive(Default)]
struct Held<V: Vector> {
    first: usize,
    len: usize,
    group: u16,
    sums: [Summary<V>; LANE_AGENTS],
}
