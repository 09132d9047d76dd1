//! Step phase 2: every agent's steering from the state at the start of the step (the single
//! neighbour pass, the direct recipes' fast path, the recipe tree).

use super::*;
use crate::steering::Reach;

impl<V: CrowdVector> Crowd<V> {
    /// Phase 2: steering of every agent from the current state.
    #[inline(never)]
    pub(super) fn compute(&mut self, dt: f32) {
        self.orca_tags.clear();
        if self.groups.iter().any(|g| g.spec.orca.is_some()) {
            let groups = &self.groups;
            let tag = |c: &Cold| match &groups[c.group as usize].spec.orca {
                Some(o) => OrcaTag {
                    layers: o.layers(),
                    mask: o.mask(),
                    priority: o.priority()
                        * if c.flags & ARRIVED != 0 { o.arrived_priority() } else { 1.0 },
                },
                None => OrcaTag { layers: u32::MAX, mask: 0, priority: 1.0 },
            };
            #[cfg(feature = "parallel")]
            self.orca_tags.par_extend(self.cold.par_iter().map(tag));
            #[cfg(not(feature = "parallel"))]
            self.orca_tags.extend(self.cold.iter().map(tag));
        }
        let orca_tags = &self.orca_tags[..];
        let view = grid_view!(self);
        let agents = agent_view!(self);
        let (groups, paths, slots) = (&self.groups, &self.paths, &self.slots);
        let storage = scan::Storage {
            grid: &self.grid,
            bounds: &self.config.bounds,
            position: &self.position,
            velocity: &self.velocity,
            radius: &self.radius,
            soa: &self.soa,
            avx2: self.avx2,
        };
        let (orientation, rotation, radius, status) =
            (&self.orientation, &self.rotation, &self.radius, &self.status);
        let obstacles = self.obstacles.as_ref();
        let slot_targets = &self.slot_targets;
        let customs = &self.customs[..];
        let hazards = &self.hazards[..];
        let nr = self.config.neighbour_radius;
        let steps = self.steps;
        let (avx2, lanes) = (self.avx2, V::BLENDS_IN_LANES && self.agent_lanes);
        // a group whose flat blend has a lane form and no ORCA after it: its agents keep their
        // sums, and the blend takes them eight at a time after the chunk's scans
        let blend_later = |g: &GroupRt<V>| -> bool {
            lanes
                && g.spec.orca.is_none()
                && matches!(&g.direct, Some(Direct::Blend(flat)) if flat.lanes().is_some())
        };
        let body = |ci: usize,
                    cold: &mut [Cold],
                    debug: &mut [AgentDebug<V>],
                    scratch: &mut ChunkScratch<V>,
                    mut avoid: Option<&mut [AvoidState]>,
                    mut memory: Option<&mut [Memory<V>]>| {
            let base = ci * CHUNK;
            // agents of recipes without obstacle avoidance have no avoidance state
            let mut spare = AvoidState::default();
            // nor memory before something reads it (`memory_on`: a goal or a tree recipe
            // allocates it first, so this stand-in is never read)
            let mut spare_memory = None;
            // consecutive agents of one group whose flat blend waits to be taken eight at a
            // time in lanes (`flush`), with their sums
            let mut held = Held::<V>::default();
            // the held agents' blends: eight at once in lanes, fewer one by one
            let flush = |held: &mut Held<V>, cold: &[Cold], debug: &mut [AgentDebug<V>]| {
                let (a, n) = (held.first, core::mem::take(&mut held.len));
                if n == 0 {
                    return;
                }
                let g = &groups[held.group as usize];
                let Some(direct @ Direct::Blend(flat)) = &g.direct else {
                    unreachable!("only flat blends are held")
                };
                let me = |j: usize| {
                    let i = base + j;
                    Kinematic {
                        position: view.position[i],
                        orientation: orientation[i],
                        velocity: view.velocity[i],
                        rotation: rotation[i],
                    }
                };
                if n == LANE_AGENTS {
                    let kin = core::array::from_fn(|l| me(a + l));
                    let limits = core::array::from_fn(|l| cold[a + l].limits);
                    let leaves = flat.lanes().unwrap_or_default();
                    if let Some(out) = V::steer_eight(leaves, &kin, &limits, &held.sums, avx2) {
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
            };
            // agents before `next` had their sums taken in a run (`summarise_run`)
            let mut next = 0;
            for k in 0..cold.len() {
                if k < next {
                    continue;
                }
                let i = base + k;
                let later =
                    status[i] & QUARANTINED == 0 && blend_later(&groups[cold[k].group as usize]);
                if held.len > 0 && !(later && cold[k].group == held.group) {
                    flush(&mut held, cold, debug);
                }
                let (group, g) = (cold[k].group, &groups[cold[k].group as usize]);
                if later && scan::runs_in_lanes(&g.plan, g.spec.view_half_angle) {
                    // this agent and the next ones of its group, up to the held batch's free
                    // places, take the scan as one run
                    if held.len == 0 {
                        (held.first, held.group) = (k, group);
                    }
                    let room = (LANE_AGENTS - held.len).min(cold.len() - k);
                    let same =
                        |d: &usize| status[i + d] & QUARANTINED == 0 && cold[k + d].group == group;
                    let m = 1 + (1..room).take_while(same).count();
                    let sums = &mut held.sums[held.len..held.len + m];
                    sums.fill(Summary::default());
                    let mut limits = [cold[k].limits; LANE_AGENTS];
                    for (l, c) in limits.iter_mut().zip(&cold[k..k + m]) {
                        *l = c.limits;
                    }
                    let (block, limits) = (&mut scratch.block, &limits[..m]);
                    scan::summarise_run(&storage, block, i, nr, &g.plan, limits, sums);
                    (held.len, next) = (held.len + m, k + m);
                    if held.len == LANE_AGENTS {
                        flush(&mut held, cold, debug);
                    }
                    continue;
                }
                let (c, d) = (&mut cold[k], &mut debug[k]);
                if status[i] & QUARANTINED != 0 {
                    *d = AgentDebug::default();
                    continue;
                }
                let g = &groups[c.group as usize];
                let me = Kinematic {
                    position: view.position[i],
                    orientation: orientation[i],
                    velocity: view.velocity[i],
                    rotation: rotation[i],
                };
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
                scratch.neighbours.clear();
                if g.plan.needs_neighbours {
                    let cone = g.spec.view_half_angle.and_then(|half| {
                        ViewCone::new(heading(me.velocity, me.orientation), half).ok()
                    });
                    // the single pass: every group leaf is a sum over the neighbours
                    scan::summarise(
                        &storage,
                        &mut scratch.block,
                        i,
                        me.position,
                        nr,
                        cone.as_ref(),
                        &g.plan,
                        &c.limits,
                        summary,
                    );
                    if g.plan.needs_list {
                        let mut q = NeighbourQuery::around(i, me.position, nr);
                        if let Some(cone) = cone {
                            q = q.with_view(cone);
                        }
                        let buf = &mut scratch.neighbours;
                        view.for_each_within(&q, |n| buf.push(*n));
                    }
                }
                if later {
                    held.len += 1;
                    if held.len == LANE_AGENTS {
                        flush(&mut held, cold, debug);
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
                        let cx = Context {
                            me,
                            radius: radius[i],
                            limits: &c.limits,
                            dt,
                            goal,
                            neighbours: &scratch.neighbours,
                            summary,
                            separations: &g.plan.separations,
                            paths,
                            obstacles,
                            grid: g.plan.grid.as_ref(),
                            finish: g.spec.arrive_radius,
                            path_done: c.flags & PATH_DONE != 0,
                            slot_target: slot_targets.get(c.slot as usize).copied().flatten(),
                            agents,
                            customs,
                            hazards,
                        };
                        let avoid = match avoid.as_deref_mut() {
                            Some(a) => &mut a[k],
                            None => &mut spare,
                        };
                        evaluate(&g.spec.recipe, &cx, &mut memory.state, avoid, &mut notes)
                            .unwrap_or_default()
                    }
                };
                let steering = match &g.spec.orca {
                    Some(orca) => {
                        let share = |j: usize| orca_tags[i].share(orca_tags[j]);
                        // an agent clear of every neighbour needs neither the nearest list
                        // nor a constraint
                        let clear = |reach: &Reach<V>| {
                            scan::all_within(
                                &storage,
                                &mut scratch.block,
                                i,
                                me.position,
                                nr,
                                |j, o| {
                                    let r = radius[i] + radius[j];
                                    share(j).is_none_or(|s| reach.clear(o, view.velocity[j], r, s))
                                },
                            )
                        };
                        // retried in turns (by slot), so no one step takes every retry
                        let turn = (steps + u64::from(c.slot)) % RETRY == 0;
                        let retry = c.flags & HELD == 0 || turn;
                        let quick = if retry {
                            let quick = V::orca_clear(
                                orca, &me, radius[i], steering, &c.limits, obstacles, dt, clear,
                            );
                            c.flags =
                                if quick.is_some() { c.flags & !HELD } else { c.flags | HELD };
                            quick
                        } else {
                            None
                        };
                        quick.unwrap_or_else(|| {
                            let k = orca.max_neighbours() as usize;
                            let list = &mut scratch.orca_neighbours;
                            scan::nearest_list(
                                &storage,
                                &mut scratch.block,
                                i,
                                me.position,
                                nr,
                                k,
                                list,
                            );
                            V::orca(
                                orca,
                                &me,
                                radius[i],
                                steering,
                                &c.limits,
                                &scratch.orca_neighbours,
                                |n| share(n.index),
                                obstacles,
                                dt,
                                &mut scratch.orca,
                            )
                        })
                    }
                    None => steering,
                };
                d.steering = steering;
                d.target = notes.target;
                if notes.path_finished && c.flags & PATH_DONE == 0 {
                    c.flags |= PATH_DONE;
                    let agent = AgentHandle {
                        index: c.slot,
                        generation: slots[c.slot as usize].generation,
                    };
                    scratch.events.push(CrowdEvent::PathFinished { agent });
                }
            }
            flush(&mut held, cold, debug);
        };
        let n = self.cold.len().div_ceil(CHUNK);
        (chunks!(self.cold).zip(chunks!(self.debug)).zip(each!(self.chunks)))
            .zip(side_chunks!(self.avoid, n).zip(side_chunks!(self.memory, n)))
            .enumerate()
            .for_each(|(ci, (((cold, debug), scratch), (avoid, memory)))| {
                body(ci, cold, debug, scratch, avoid, memory)
            });
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
