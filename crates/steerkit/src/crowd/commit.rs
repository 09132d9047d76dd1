//! Step phase 3: integrate, keep centres out of walls and solids, confine to the world, face the
//! motion, raise arrived/stuck events, quarantine non-finite results.

use super::advance::Move;
use super::*;
use crate::motor::Controls;

/// A chunk's positions, velocities, orientations and rotations.
type KinematicChunks<'a, V> = (
    &'a mut [V],
    &'a mut [V],
    &'a mut [<V as Vector>::Orientation],
    &'a mut [<V as Vector>::Angular],
);

/// A chunk's own records: status and cold data, then memory (while stored, `memory_on`) and
/// controls (only while some group drives a vehicle, `drive_on`).
type OwnChunks<'a, V> = (
    (&'a mut [u8], &'a mut [Cold]),
    (Option<&'a mut [Memory<V>]>, Option<&'a mut [Option<Controls>]>),
);

impl<V: CrowdVector> Crowd<V> {
    /// Phase 3: integrate, obstacles, bounds, facing, arrived/stuck, quarantine.
    #[inline(never)]
    pub(super) fn commit(
        config: &CrowdConfig<V>,
        agents: &mut Agents<V>,
        world: &World<V>,
        order: &Order,
        work: &mut Work<V>,
        dt: f32,
    ) {
        let (groups, slots, debug, radius) =
            (&world.groups, &agents.slots, &agents.debug, &agents.radius);
        let (obstacles, bounds) = (world.obstacles.as_ref(), config.bounds);
        let (avx2, lanes) =
            (order.avx2, V::MOVES_IN_LANES && order.agent_lanes && obstacles.is_none() && dt > 0.0);
        let body = |ci: usize,
                    (pos, vel, ori, rot): KinematicChunks<'_, V>,
                    ((status, cold), (mut memory, mut controls)): OwnChunks<'_, V>,
                    scratch: &mut ChunkScratch<V>| {
            let base = ci * CHUNK;
            // runs of eight agents of one group move at once in lanes (`MoveSpace::move_eight`,
            // the same bits as one by one): `done` agents are moved, a run is next tried at
            // `next_try`
            let (mut done, mut next_try) = (0, if lanes { 0 } else { usize::MAX });
            for k in 0..pos.len() {
                if k < done || status[k] & QUARANTINED != 0 {
                    continue;
                }
                if k >= next_try {
                    let rt = &groups[cold[k].group as usize];
                    let g = &rt.spec;
                    let run = k..k + 8;
                    match eight(run.clone(), status, cold, &debug[base..]) {
                        Err(failed) => next_try = failed + 1,
                        Ok(()) if g.motor.is_some() || rt.plan.kinematic => next_try = k + 1,
                        Ok(()) => {
                            let mut moved = [0.0; 8];
                            let step = Move {
                                integration: &g.integration,
                                face: g.face_motion && g.fake_rotation.is_none(),
                                bounds: &bounds,
                                radius: &radius[base + k..base + k + 8],
                                dt,
                                avx2,
                            };
                            let (b, e) = (base + k, base + k + 8);
                            if V::move_eight(
                                (&mut pos[run.clone()], &mut vel[run.clone()]),
                                (&mut ori[run.clone()], &mut rot[run.clone()]),
                                &debug[b..e],
                                &cold[run.clone()],
                                &step,
                                &mut moved,
                            ) {
                                for (l, &moved_sq) in moved.iter().enumerate() {
                                    let j = k + l;
                                    scratch.max_move = scratch.max_move.max(moved_sq);
                                    let c = &mut cold[j];
                                    if c.flags & HAS_GOAL != 0 || g.stuck.is_some() {
                                        let m = memory.as_deref_mut().map(|m| &mut m[j]);
                                        settle(
                                            c, m, rt, pos[j], moved_sq, dt, &bounds, slots, scratch,
                                        );
                                    }
                                }
                                done = k + 8;
                                continue;
                            }
                            // a result not finite: the agents take the scalar path
                            next_try = k + 8;
                        }
                    }
                }
                let i = base + k;
                let c = &mut cold[k];
                // handles are looked up only for events (the slot table is cold)
                let slot = c.slot;
                let agent =
                    || AgentHandle { index: slot, generation: slots[slot as usize].generation };
                let rt = &groups[c.group as usize];
                let g = &rt.spec;
                let steering = debug[i].steering;
                let old = pos[k];
                let (orientation, velocity, rotation) = (ori[k], vel[k], rot[k]);
                let mut kin = Kinematic { position: old, orientation, velocity, rotation };
                let field = if steering.is_finite() {
                    let ctl = controls.as_deref_mut();
                    integrate(rt, &mut kin, &steering, &c.limits, dt, ctl, k);
                    if let Some(obstacles) = obstacles {
                        let events = &mut scratch.events;
                        contain(obstacles, old, &mut kin, radius[i], c, agent, events);
                    }
                    bounds.confine(&mut kin.position, &mut kin.velocity, radius[i]);
                    face(g, vel[k], &mut kin, dt);
                    non_finite_field(&kin)
                } else {
                    Some("steering")
                };
                if let Some(field) = field {
                    // frozen with its last finite state, out of every neighbourhood
                    status[k] |= QUARANTINED;
                    scratch.events.push(CrowdEvent::Quarantined { agent: agent(), field });
                    continue;
                }
                let moved_sq = bounds.offset(old, kin.position).length_squared();
                scratch.max_move = scratch.max_move.max(moved_sq);
                store(&kin, k, pos, vel, ori, rot);
                let m = memory.as_deref_mut().map(|m| &mut m[k]);
                settle(c, m, rt, kin.position, moved_sq, dt, &bounds, slots, scratch);
            }
        };
        let n = agents.cold.len().div_ceil(CHUNK);
        let kinematic = (chunks!(agents.position).zip(chunks!(agents.velocity)))
            .zip(chunks!(agents.orientation).zip(chunks!(agents.rotation)));
        let own = (chunks!(agents.status).zip(chunks!(agents.cold)))
            .zip(side_chunks!(agents.memory, n).zip(side_chunks!(agents.controls, n)));
        (kinematic.zip(own).zip(each!(work.chunks))).enumerate().for_each(
            |(ci, ((((pos, vel), (ori, rot)), ((status, cold), (memory, controls))), scratch))| {
                body(ci, (pos, vel, ori, rot), ((status, cold), (memory, controls)), scratch);
            },
        );
    }
}

/// Writes agent `k`'s new kinematic to the chunk's storage.
#[inline(always)]
fn store<V: CrowdVector>(
    kin: &Kinematic<V>,
    k: usize,
    pos: &mut [V],
    vel: &mut [V],
    ori: &mut [V::Orientation],
    rot: &mut [V::Angular],
) {
    pos[k] = kin.position;
    vel[k] = kin.velocity;
    ori[k] = kin.orientation;
    rot[k] = kin.rotation;
}

/// Moves agent `k` of a chunk by its steering: its vehicle's model when its group drives one
/// (`controls`: the chunk's, when stored), the velocity and rotation to set from a kinematic leaf, or the
/// group's integration.
#[inline(always)]
fn integrate<V: CrowdVector>(
    rt: &GroupRt<V>,
    kin: &mut Kinematic<V>,
    steering: &SteeringOutput<V>,
    limits: &Limits,
    dt: f32,
    controls: Option<&mut [Option<Controls>]>,
    k: usize,
) {
    let g = &rt.spec;
    if let (Some(motor), Some(ctl)) = (&g.motor, controls) {
        ctl[k] = V::drive(motor, kin, steering, limits, dt, ctl[k]);
    } else if rt.plan.kinematic {
        // a kinematic leaf's output is the velocity and rotation to set
        let request =
            KinematicSteeringOutput { velocity: steering.linear, rotation: steering.angular };
        kin.apply_kinematic(&request, limits, dt);
    } else {
        kin.integrate_with(steering, limits, &g.integration, dt);
    }
}

/// Keeps a move from `old` out of the static world (see `space::contain`), raising a wall
/// crossing or obstacle collision when a contact starts and keeping the agent's `TOUCHING`
/// flag.
#[inline(always)]
fn contain<V: CrowdVector>(
    obstacles: &V::Obstacles,
    old: V,
    kin: &mut Kinematic<V>,
    radius: f32,
    c: &mut Cold,
    agent: impl Fn() -> AgentHandle,
    events: &mut Vec<CrowdEvent>,
) {
    let touching = c.flags & TOUCHING != 0;
    let contact =
        space::contain(obstacles, old, &mut kin.position, &mut kin.velocity, radius, touching);
    let touching = match contact {
        Contact::None => false,
        Contact::Wall(obstacle) => {
            if c.flags & TOUCHING == 0 {
                events.push(CrowdEvent::WallCrossing { agent: agent(), obstacle });
            }
            true
        }
        Contact::Blocked(obstacle) | Contact::Touch(obstacle) => {
            if c.flags & TOUCHING == 0 {
                events.push(CrowdEvent::ObstacleCollision { agent: agent(), obstacle });
            }
            true
        }
    };
    if touching {
        c.flags |= TOUCHING;
    } else {
        c.flags &= !TOUCHING;
    }
}

/// Faces the motion as the group asks: left to the vehicle's model when it drives one, faked
/// bank and pitch (from the velocity `before` the move), or the velocity's direction.
#[inline(always)]
fn face<V: CrowdVector>(g: &Group<V>, before: V, kin: &mut Kinematic<V>, dt: f32) {
    if g.motor.is_some() {
        // the vehicle's model has set the orientation
    } else if let (true, Some(fake)) = (g.face_motion, &g.fake_rotation) {
        V::fake_facing(fake, before, kin, dt);
    } else if g.face_motion && kin.velocity.length_squared() > 1e-12 {
        kin.orientation = V::facing(kin.orientation, kin.velocity);
    }
}

/// Whether agents `run` (eight) of a chunk can move at once in lanes: all in the chunk, none
/// quarantined, all of one group, every steering finite (`debug` from the chunk's start).
/// `Err` holds the first agent that cannot (or the chunk's end).
fn eight<V: CrowdVector>(
    run: core::ops::Range<usize>,
    status: &[u8],
    cold: &[Cold],
    debug: &[AgentDebug<V>],
) -> Result<(), usize> {
    if run.end > status.len() {
        return Err(status.len());
    }
    let group = cold[run.start].group;
    for j in run {
        if status[j] & QUARANTINED != 0 || cold[j].group != group || !debug[j].steering.is_finite()
        {
            return Err(j);
        }
    }
    Ok(())
}

/// The bookkeeping after an agent's move to `position` (`moved_sq`: the squared displacement):
/// the arrival at its goal and being stuck, with their events.
#[allow(clippy::too_many_arguments)]
#[inline]
fn settle<V: CrowdVector>(
    c: &mut Cold,
    memory: Option<&mut Memory<V>>,
    rt: &GroupRt<V>,
    position: V,
    moved_sq: f32,
    dt: f32,
    bounds: &WorldBounds<V>,
    slots: &[Slot],
    scratch: &mut ChunkScratch<V>,
) {
    let g = &rt.spec;
    let slot = c.slot;
    let agent = || AgentHandle { index: slot, generation: slots[slot as usize].generation };
    let has_goal = c.flags & HAS_GOAL != 0;
    // with a goal or a tree recipe the agent's memory is stored (`Crowd::remember`): without
    // either it stays as spawned (nothing stalled)
    let Some(memory) = memory else {
        return;
    };
    if has_goal && c.flags & ARRIVED == 0 {
        let d = bounds.offset(position, memory.goal);
        if d.length_squared() <= g.arrive_radius * g.arrive_radius {
            c.flags |= ARRIVED;
            scratch.events.push(CrowdEvent::Arrived { agent: agent() });
        }
    }
    if let Some(st) = g.stuck {
        let trying = (has_goal && c.flags & ARRIVED == 0)
            || (rt.plan.follows_path && c.flags & PATH_DONE == 0);
        let slow = st.min_speed * dt;
        if trying && dt > 0.0 && moved_sq < slow * slow {
            memory.state.stalled += dt;
            if memory.state.stalled >= st.time && c.flags & STUCK == 0 {
                c.flags |= STUCK;
                scratch.events.push(CrowdEvent::Stuck { agent: agent() });
            }
        } else if dt > 0.0 {
            memory.state.stalled = 0.0;
            c.flags &= !STUCK;
        }
    }
}
