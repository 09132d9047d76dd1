//! The step's systems, in order: agents in and out, behaviours, goals, teleports and the
//! game-moved agents read back, the crowd's step with its states, desired velocities and
//! messages out (and agents that leave on arrival taken out); and the interpolation in
//! `PostUpdate`.

use crate::targets::named;
use crate::{
    Space, SteerAgent, SteerBehaviour, SteerCrowd, SteerDesiredVelocity, SteerGoal, SteerMessage,
    SteerState, SteerVelocity,
};
use bevy_app::FixedMainScheduleOrder;
use bevy_ecs::entity::EntityHashSet;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::InternedScheduleLabel;
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use steerkit::crowd::{AgentHandle, AgentSpec, CrowdEvent, WorldBounds};
use steerkit::kinematic::Kinematic;

type Newcomer<'a> = (Entity, Ref<'a, SteerAgent>, Ref<'a, Transform>);
/// An agent whose `SteerAgent` the game changed.
type AgentEdited<V> = (With<SteerState<V>>, Changed<SteerAgent>);

/// The schedule the plugin steps in (the interpolation depends on whether it is a fixed one).
#[derive(Resource)]
pub(crate) struct StepSchedule<V> {
    pub(crate) label: InternedScheduleLabel,
    pub(crate) space: std::marker::PhantomData<fn() -> V>,
}

/// Leavers out, newcomers in (in entity order, so the crowd is the same run to run) with their
/// `SteerState` (applied before the rest of the step's systems run), and changed radii and
/// limits applied.
pub(crate) fn sync_agents<V: Space>(
    mut commands: Commands,
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerAgent>,
    newcomers: Query<Newcomer, Without<SteerState<V>>>,
    changed: Query<(Entity, &SteerAgent), AgentEdited<V>>,
) {
    let steer = &mut *steer;
    for e in removed.read() {
        steer.rejected.remove(&e);
        if let Some(h) = steer.unlink(e) {
            steer.despawn(h);
            steer.agents_changed = true;
        }
    }
    // a refused entity is tried again only when the game changed what was refused
    let retry = |(e, a, t): &Newcomer| {
        !steer.handles.contains_key(e)
            && (!steer.rejected.contains(e) || a.is_changed() || t.is_changed())
    };
    let mut fresh: Vec<Newcomer> = newcomers.iter().filter(retry).collect();
    fresh.sort_by_key(|(e, ..)| *e);
    for (e, agent, t) in fresh {
        let (position, orientation) = V::from_transform(&t);
        let spec = AgentSpec {
            orientation,
            ..AgentSpec::new(position, agent.radius, agent.limits, steer.idle)
        };
        match steer.crowd.spawn(spec) {
            Ok(h) => {
                steer.rejected.remove(&e);
                steer.link(e, h);
                let start = steer.crowd.kinematic(h).expect("just spawned");
                // present from the step the agent joins, updated by that step
                let state =
                    SteerState { previous: start, current: start, written: None, handle: h };
                commands.entity(e).try_insert(state);
                steer.fresh.push(e);
                steer.agents_changed = true;
            }
            Err(err) => {
                steer.rejected.insert(e);
                steer.reject(e, format!("agent refused: {err}"));
            }
        }
    }
    for (e, agent) in &changed {
        if let Err(err) = update_agent(steer, e, agent) {
            steer.reject(e, format!("agent change refused: {err}"));
        }
    }
}

/// Applies a changed `SteerAgent` to its agent.
fn update_agent<V: Space>(
    steer: &mut SteerCrowd<V>,
    e: Entity,
    agent: &SteerAgent,
) -> Result<(), steerkit::crowd::CrowdError> {
    let Some(h) = steer.handle(e) else { return Ok(()) };
    if steer.crowd.radius(h) != Some(agent.radius) {
        steer.crowd.set_radius(h, agent.radius)?;
    }
    if steer.crowd.limits(h) != Some(agent.limits) {
        steer.crowd.set_limits(h, agent.limits)?;
    }
    Ok(())
}

/// Behaviours into groups: new or changed ones, every one naming entities when agents came or
/// went, and the idle group for agents whose behaviour was removed.
pub(crate) fn sync_behaviours<V: Space>(
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerBehaviour<V>>,
    behaviours: Query<(Entity, Ref<SteerBehaviour<V>>), With<SteerAgent>>,
    transforms: Query<&Transform>,
) {
    let steer = &mut *steer;
    for e in removed.read() {
        match steer.handle(e) {
            Some(h) if !behaviours.contains(e) => {
                let _ = steer.regroup(h, None);
            }
            _ => {}
        }
    }
    let fresh: EntityHashSet = std::mem::take(&mut steer.fresh).into_iter().collect();
    let agents_changed = std::mem::take(&mut steer.agents_changed);
    for (e, b) in &behaviours {
        let Some(h) = steer.handle(e) else { continue };
        if !(b.is_changed() || agents_changed || fresh.contains(&e)) {
            continue;
        }
        let refs = named(&b.0.recipe);
        if !(b.is_changed() || fresh.contains(&e) || !refs.is_empty()) {
            continue; // agents came or went, but this behaviour names none
        }
        steer.track(&refs, &transforms);
        match steer.regroup(h, Some(&b.0)) {
            // reported when the game set it, not again at each re-mapping
            Err(err) if b.is_changed() || fresh.contains(&e) => {
                steer.reject(e, format!("behaviour refused: {err}"));
            }
            _ => {}
        }
    }
}

/// Goals follow their points or entities; a removed goal clears the agent's; a goal entity
/// that went becomes the point where the agent can stop (`SteerMessage::GoalLost`).
pub(crate) fn sync_goals<V: Space>(
    mut commands: Commands,
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerGoal<V>>,
    goals: Query<(Entity, &SteerGoal<V>), With<SteerAgent>>,
    transforms: Query<&Transform>,
) {
    for e in removed.read() {
        match steer.handle(e) {
            Some(h) if !goals.contains(e) => {
                let _ = steer.crowd.set_goal(h, None);
            }
            _ => {}
        }
    }
    for (e, goal) in &goals {
        let Some(h) = steer.handle(e) else { continue };
        let at = match *goal {
            SteerGoal::None => None,
            SteerGoal::Point(p) => Some(p),
            SteerGoal::Entity(t) => match transforms.get(t) {
                Ok(t) => Some(V::from_transform(t).0),
                Err(_) => {
                    let stop = stopping_point(&steer, h);
                    commands.entity(e).insert(SteerGoal::Point(stop));
                    steer.pending.push(SteerMessage::GoalLost(e));
                    Some(stop)
                }
            },
        };
        if steer.crowd.goal(h) != at {
            let _ = steer.crowd.set_goal(h, at);
        }
    }
}

/// Where an agent braking at its acceleration limit from its velocity comes to rest.
fn stopping_point<V: Space>(steer: &SteerCrowd<V>, h: AgentHandle) -> V {
    let Some(k) = steer.crowd.kinematic(h) else { return V::ZERO };
    let a = steer.crowd.limits(h).map_or(0.0, |l| l.max_acceleration());
    let speed = k.velocity.length();
    if a > 0.0 {
        k.position + k.velocity * (speed / (2.0 * a))
    } else {
        k.position
    }
}

/// The `Transform`s the game owns, into the crowd. A `Transform` the game changed since the
/// plugin wrote it is a teleport, wherever the game wrote it (`Update`, or the step's schedule
/// before the step): the agent moves there keeping its velocity, and is drawn from there (no
/// sweep from where it was). A game-moved agent ([`SteerDesiredVelocity`]) is read back every
/// step: its position and heading from its `Transform`, its velocity from its
/// [`SteerVelocity`], else from its motion since the last step.
pub(crate) fn teleports<V: Space>(
    time: Res<Time>,
    mut steer: ResMut<SteerCrowd<V>>,
    mut states: Query<ReadBack<V>>,
) {
    let dt = time.delta_secs();
    for (t, mut state, reported, game_moved) in &mut states {
        let (position, orientation) = V::from_transform(t);
        let velocity = if !game_moved {
            match state.written {
                Some(written) if moved(t, &written) => state.current.velocity,
                _ => continue,
            }
        } else if let Some(v) = reported {
            v.0
        } else if dt > 0.0 {
            // `previous` is where the game had it at the last step
            (position - state.previous.position) * (1.0 / dt)
        } else {
            state.current.velocity
        };
        let k = Kinematic { position, orientation, velocity, ..state.current };
        if steer.crowd.write_kinematic(state.handle, k).is_ok() {
            state.current = k;
        }
    }
}

/// What the read-back needs of an agent: its `Transform`, state, reported velocity and whether
/// the game moves it.
type ReadBack<'a, V> = (
    &'a Transform,
    &'a mut SteerState<V>,
    Option<&'a SteerVelocity<V>>,
    Has<SteerDesiredVelocity<V>>,
);

/// True when `t` is not the `Transform` the plugin wrote (its scale is the game's own).
fn moved(t: &Transform, written: &Transform) -> bool {
    (t.translation, t.rotation) != (written.translation, written.rotation)
}

/// The crowd's step with the schedule's time step as `dt`; its events as messages; the states
/// and desired velocities out; agents that left on arrival taken out of the ECS side too.
pub(crate) fn step<V: Space>(
    mut commands: Commands,
    time: Res<Time>,
    mut steer: ResMut<SteerCrowd<V>>,
    mut states: Query<(&mut SteerState<V>, Option<&mut SteerDesiredVelocity<V>>)>,
    mut transforms: Query<&mut Transform, Without<SteerDesiredVelocity<V>>>,
    mut messages: MessageWriter<SteerMessage>,
) {
    let steer = &mut *steer;
    let events: Vec<CrowdEvent> = match steer.crowd.advance(time.delta_secs()) {
        Ok(events) => events,
        Err(err) => {
            steer.error(format!("step: {err}"));
            Vec::new()
        }
    };
    messages.write_batch(std::mem::take(&mut steer.pending));
    messages.write_batch(events.iter().filter_map(|event| message(steer, *event)));
    let last_seen = |e: Entity| states.get(e).ok().map(|(s, _)| s.current);
    for (e, k) in steer.take_out_arrived(&events, last_seen) {
        // the entity stays, drawn where the agent arrived; a new SteerAgent brings it back
        if let (Some(k), Ok(mut t)) = (k, transforms.get_mut(e)) {
            V::to_transform(k.position, k.orientation, &mut t);
        }
        commands.entity(e).try_remove::<(SteerAgent, SteerState<V>)>();
    }
    for (mut state, desired) in &mut states {
        if let Some(k) = steer.crowd.kinematic(state.handle) {
            state.previous = state.current;
            state.current = k;
            if let Some(mut desired) = desired {
                desired.set_if_neq(SteerDesiredVelocity(k.velocity));
            }
        }
    }
}

/// A crowd event as a message about entities (none for an agent no entity stands for).
fn message<V: Space>(steer: &SteerCrowd<V>, event: CrowdEvent) -> Option<SteerMessage> {
    let of = |h: AgentHandle| steer.entity(h);
    match event {
        CrowdEvent::Arrived { agent } => of(agent).map(SteerMessage::Arrived),
        CrowdEvent::PathFinished { agent } => of(agent).map(SteerMessage::PathFinished),
        CrowdEvent::Stuck { agent } => of(agent).map(SteerMessage::Stuck),
        CrowdEvent::AgentCollision { agent, other } => {
            of(agent).zip(of(other)).map(|(a, b)| SteerMessage::Collision(a, b))
        }
        CrowdEvent::ObstacleCollision { agent, .. } => of(agent).map(SteerMessage::ObstacleContact),
        CrowdEvent::WallCrossing { agent, .. } => of(agent).map(SteerMessage::WallContact),
        CrowdEvent::Quarantined { agent, .. } => of(agent).map(SteerMessage::Quarantined),
    }
}

/// Writes each agent's `Transform` (but a game-moved one's), interpolated between its last
/// two states by the fixed clock's overstep when the plugin steps in one of Bevy's fixed
/// schedules, its latest state otherwise (one step per frame: nothing to interpolate). In a
/// wrap-around world a step that crossed the seam (a jump of more than half the world's
/// narrowest side) is drawn at its end rather than swept across.
pub(crate) fn interpolate<V: Space>(
    time: Res<Time<Fixed>>,
    schedule: Res<StepSchedule<V>>,
    fixed: Option<Res<FixedMainScheduleOrder>>,
    steer: Res<SteerCrowd<V>>,
    mut agents: Query<(&mut Transform, &mut SteerState<V>), Without<SteerDesiredVelocity<V>>>,
) {
    let in_fixed = fixed.is_some_and(|o| o.labels.contains(&schedule.label));
    let s = if in_fixed { time.overstep_fraction().clamp(0.0, 1.0) } else { 1.0 };
    let seam = match steer.crowd.config().bounds {
        WorldBounds::Toroidal { min, max } => 0.5 * V::narrowest(max - min),
        _ => f32::INFINITY,
    };
    for (mut t, mut state) in &mut agents {
        if state.written.is_some_and(|w| moved(&t, &w)) {
            // the game wrote it (in `Update`): left as written, the next step takes it
            continue;
        }
        let jump = state.current.position - state.previous.position;
        let s = if jump.length() > seam { 1.0 } else { s };
        let position =
            if s < 1.0 { state.previous.position + jump * s } else { state.current.position };
        let orientation = V::blend(state.previous.orientation, state.current.orientation, s);
        let mut next = *t;
        V::to_transform(position, orientation, &mut next);
        if *t != next {
            *t = next;
        }
        state.written = Some(next);
    }
}
