//! Step phase 4: Buckland's non-penetration constraint (order-independent Jacobi relaxation) and
//! agent–agent collision events.

use super::*;

/// The margin of the candidate lists the non-penetration passes keep, per largest radius: a
/// pair farther apart than the sum of their radii and this when the list is made cannot touch
/// until some agent has been pushed half of it.
const CONTACT_MARGIN: f32 = 0.5;

/// Every agent that may lie within `reach` (m) of agent `i`'s position `p` in a pass that
/// takes the candidates from where agents stood at the start of the step, no agent having moved
/// more than `max_move` (m) since, in storage order (the grid's order off a torus, so the
/// pushes add up in the same order either way). `near` is ORCA's view of the agent then: its
/// neighbours, and the squared distance within which they were all the agents there. They hold
/// every candidate when that reaches `reach + max_move` from where the agent stood, with room
/// for the rounding of the positions; otherwise the grid's cells around `p` give them.
#[inline(always)]
fn candidates<V: CrowdVector>(
    grid: &super::grid::Grid,
    near: Option<(&[u32], f32)>,
    i: usize,
    p: V,
    reach: f32,
    max_move: f32,
    mut f: impl FnMut(usize),
) {
    let from = reach + max_move + 1e-3 + 1e-5 * p.length();
    match near {
        Some((near, d_sq)) if from * from < d_sq => near.iter().for_each(|&j| f(j as usize)),
        _ => grid.for_each_run(p, reach, |run, _, _| run.filter(|&j| j != i).for_each(&mut f)),
    }
}

/// Where a non-penetration pass takes each agent's candidates.
#[derive(Clone, Copy)]
enum Listed {
    /// From the grid (a torus).
    No,
    /// From the grid, keeping those within the sum of the radii and this margin (m).
    Keep(f32),
    /// From the kept lists.
    Read,
}

impl<V: CrowdVector> Crowd<V> {
    /// Phase 4: Buckland's non-penetration constraint, as Jacobi relaxation so that the result
    /// does not depend on the order of agents: each overlapping pair is pushed apart along
    /// the line of centres by its overlap, half each when both enforce the constraint, all
    /// of it on the enforcing one otherwise; an agent's total push is clipped to its deepest
    /// overlap. Coincident centres separate along ±x, decided by handle. Passes repeat until no
    /// push exceeds `non_penetration_tolerance` or `non_penetration_passes` is reached. Also
    /// reports agent–agent collisions.
    pub(super) fn non_penetration(
        config: &CrowdConfig<V>,
        agents: &mut Agents<V>,
        world: &World<V>,
        order: &Order,
        work: &mut Work<V>,
    ) {
        let any = world.groups.iter().any(|g| g.spec.non_penetration);
        let push_passes = if any { config.non_penetration_passes as usize } else { 0 };
        // collision events are observed in a first pass that pushes exactly as it would
        // without them, so reporting never changes the trajectory
        let passes = if config.collision_events { push_passes.max(1) } else { push_passes };
        if passes == 0 {
            return;
        }
        let n = agents.len();
        work.push.resize(n, (V::ZERO, V::ZERO));
        work.dirty.resize(n, false);
        let mut max_move = work
            .chunks
            .iter()
            .take(n.div_ceil(CHUNK))
            .fold(0.0f32, |m, c| m.max(c.max_move))
            .sqrt();
        // the later passes read each agent's candidates from a list the first pass kept, while
        // no agent can have come from beyond it (a torus's images come out of storage order:
        // it scans the grid every pass)
        let listed = !matches!(config.bounds, WorldBounds::Toroidal { .. });
        let margin = CONTACT_MARGIN * order.max_radius;
        let mut drift = f32::INFINITY;
        let mut taken = 0;
        for pass in 0..passes {
            let report = pass == 0 && config.collision_events;
            // a crowd that settled in one pass last step likely does again: no list then
            let list = if !listed || (pass == 0 && work.passes <= 1) {
                Listed::No
            } else if 2.0 * drift <= margin {
                Listed::Read
            } else {
                drift = 0.0;
                Listed::Keep(margin)
            };
            Self::pushes(config, agents, world, order, work, report, push_passes, max_move, list);
            let (pass_move, moved) = Self::apply_pushes(config, agents, world, work);
            if !matches!(list, Listed::No) {
                Self::mark_dirty(work);
            }
            drift += moved;
            work.pushed += moved;
            max_move += pass_move;
            taken = pass + 1;
            // converged: the overlaps left are about the tolerance deep (Jacobi relaxation
            // halves a pair's overlap per pass at worst, so a dense pile needs several); the
            // test does not depend on `report`: observing must not add a pass
            if pass_move <= config.non_penetration_tolerance {
                break;
            }
        }
        work.passes = taken;
    }

    /// One pass's push (and velocity change) of every agent out of the agents it overlaps
    /// (`enforce`: its group keeps bodies apart while `push_passes > 0`), into `work.push`;
    /// `report` raises the collision events. Candidates come from their cells before the move,
    /// so the search widens by `max_move` (m).
    #[allow(clippy::too_many_arguments)]
    fn pushes(
        config: &CrowdConfig<V>,
        agents: &Agents<V>,
        world: &World<V>,
        order: &Order,
        work: &mut Work<V>,
        report: bool,
        push_passes: usize,
        max_move: f32,
        list: Listed,
    ) {
        let (grid, bounds, groups) = (&order.grid, &config.bounds, &world.groups);
        // ORCA's neighbours carry no torus image
        let near_ok = !matches!(bounds, WorldBounds::Toroidal { .. });
        let (position, velocity, radius) = (&agents.position, &agents.velocity, &agents.radius);
        let (status, cold, slots) = (&agents.status, &agents.cold, &agents.slots);
        let max_radius = order.max_radius;
        let dirty = &work.dirty;
        chunks!(work.push).zip(each!(work.chunks)).enumerate().for_each(|(ci, (push, scratch))| {
            let base = ci * CHUNK;
            let (contacts, contact_at) = (&mut scratch.contacts, &mut scratch.contact_at);
            if let Listed::Keep(_) = list {
                contacts.clear();
                contact_at.clear();
            }
            for (k, out) in push.iter_mut().enumerate() {
                *out = (V::ZERO, V::ZERO);
                if let Listed::Keep(_) = list {
                    contact_at.push(contacts.len() as u32);
                }
                let i = base + k;
                // a read pass: an agent that neither moved nor has a candidate that moved in
                // the last pass has the same inputs, so again no push (`mark_dirty`)
                if status[i] & QUARANTINED != 0 || (matches!(list, Listed::Read) && !dirty[i]) {
                    continue;
                }
                let enforce =
                    push_passes > 0 && groups[cold[i].group as usize].spec.non_penetration;
                if !enforce && !report {
                    continue;
                }
                let p = position[i];
                let ri = radius[i];
                let mut sum = V::ZERO;
                let mut dv = V::ZERO;
                let mut deepest = 0.0f32;
                let mut reported = 0usize;
                let mut touching = |j: usize| {
                    let away = bounds.offset(position[j], p);
                    let touch = ri + radius[j];
                    let d2 = away.length_squared();
                    if d2 >= touch * touch {
                        return;
                    }
                    let (si, sj) = (cold[i].slot, cold[j].slot);
                    if report && si < sj && reported < MAX_COLLISION_EVENTS_PER_AGENT {
                        reported += 1;
                        let agent =
                            AgentHandle { index: si, generation: slots[si as usize].generation };
                        let other =
                            AgentHandle { index: sj, generation: slots[sj as usize].generation };
                        scratch.events.push(CrowdEvent::AgentCollision { agent, other });
                    }
                    if !enforce {
                        return;
                    }
                    let d = d2.sqrt();
                    let overlap = touch - d;
                    let dir = if d > 0.0 {
                        away / d
                    } else {
                        let s = if si < sj { -1.0 } else { 1.0 };
                        V::from_axes([s, 0.0, 0.0])
                    };
                    let share =
                        if groups[cold[j].group as usize].spec.non_penetration { 0.5 } else { 1.0 };
                    sum += dir * (overlap * share);
                    deepest = deepest.max(overlap);
                    // inelastic contact: cancel the approach speed along the normal
                    let closing = (velocity[i] - velocity[j]).dot(dir);
                    if closing < 0.0 {
                        dv -= dir * (closing * share);
                    }
                };
                match list {
                    // the kept candidates, in the storage order the grid gives them
                    Listed::Read => {
                        let (a, b) = (contact_at[k] as usize, contact_at[k + 1] as usize);
                        contacts[a..b].iter().for_each(|&j| touching(j as usize));
                    }
                    _ => {
                        // candidates by their cells before the move: widen by the largest
                        // move, and by the margin of the list kept
                        let extra = if let Listed::Keep(m) = list { m } else { 0.0 };
                        let reach = ri + max_radius + max_move + extra;
                        let near = scratch
                            .near_span
                            .get(k)
                            .filter(|_| near_ok)
                            .map(|&(a, b, d_sq)| (&scratch.near[a as usize..b as usize], d_sq));
                        candidates(grid, near, i, p, reach, max_move, |j| {
                            if let Listed::Keep(m) = list {
                                let near = ri + radius[j] + m;
                                if bounds.offset(position[j], p).length_squared() < near * near {
                                    contacts.push(j as u32);
                                }
                            }
                            touching(j);
                        });
                    }
                }
                *out = (sum.clamp_length_max(deepest), dv);
            }
            if let Listed::Keep(_) = list {
                contact_at.push(contacts.len() as u32);
            }
        });
    }

    /// Marks the agents whose push the next pass, reading the same lists, must work out again:
    /// those the pass moved (or changed the velocity of) and the candidates in their lists,
    /// which are symmetric (each pair is kept by the same distance test from both sides).
    /// Every other agent had no push and has the same inputs, so it has none again.
    fn mark_dirty(work: &mut Work<V>) {
        let Work { push, dirty, chunks, .. } = work;
        dirty.fill(false);
        for (i, (dp, dv)) in push.iter().enumerate() {
            if *dp != V::ZERO || *dv != V::ZERO {
                dirty[i] = true;
                let (c, k) = (&chunks[i / CHUNK], i % CHUNK);
                let (a, b) = (c.contact_at[k] as usize, c.contact_at[k + 1] as usize);
                for &j in &c.contacts[a..b] {
                    dirty[j as usize] = true;
                }
            }
        }
    }

    /// Applies the pass's pushes (kept out of the static world and inside the world) and
    /// returns the longest push and the longest move it made (m).
    fn apply_pushes(
        config: &CrowdConfig<V>,
        agents: &mut Agents<V>,
        world: &World<V>,
        work: &Work<V>,
    ) -> (f32, f32) {
        let push = &work.push;
        let (mut pass_move, mut moved) = (0.0f32, 0.0f32);
        let cold = &agents.cold;
        let obstacles = world.obstacles.as_ref();
        for ((((p, v), (dp, dv)), c), &r) in agents
            .position
            .iter_mut()
            .zip(agents.velocity.iter_mut())
            .zip(push)
            .zip(cold)
            .zip(&agents.radius)
        {
            if *dp != V::ZERO || *dv != V::ZERO {
                let old = *p;
                *p += *dp;
                // the contact may hand over speed: keep within the agent's limit
                *v = (*v + *dv).clamp_length_max(c.limits.max_speed());
                // a push is a move like any other: it never carries a centre across a
                // wall or into a solid, nor a body into one (the crowd pressing on a
                // doorway's jambs)
                if let Some(obstacles) = obstacles {
                    let _ = space::contain(obstacles, old, p, v, r, false);
                }
                config.bounds.confine(p, v, r);
                pass_move = pass_move.max(dp.length());
                moved = moved.max((*p - old).length());
            }
        }
        (pass_move, moved)
    }
}
