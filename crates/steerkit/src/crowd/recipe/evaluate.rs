//! Evaluating a recipe tree for one agent: one arm per leaf, the combiners, and the pipeline
//! leaf wired to the crowd's planner and actuator.

use super::custom::AgentContext;
use super::*;
use crate::combine::{blend, dither_considers, dither_output, prioritize, running_sum};
use crate::crowd::CrowdVector;
use crate::geometry::Obstacle;
use crate::geometry::{closest_point_on_segment, Circle};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::{as_vector, Vector};
use crate::motor::{Lane, PathTracker, Rival};
use crate::path::{Path, Polyline, WaypointCursor};
use crate::pipeline::{
    Actuator, AvoidObstacle, FromFn, Goal, HeadFor, Plan as PipelinePlan, PlanningDecomposer,
    SteeringPipeline,
};
use crate::steering::{Alignment, Cohesion, KinematicSeek, Stateful, VelocityMatch, WorldWander};
use glam::Vec2;

/// The crowd's actuator: [`HeadFor`] at the final goal; toward a planner's sub-goal (a cell on
/// the way) it heads for the sub-goal at the arrive's approach speed for the distance left to
/// the *final* goal, so a slow radius brakes only near the end, not at every cell.
struct PassThrough<'a> {
    head: &'a HeadFor,
    goal: Vec2,
}

impl Actuator<Vec2> for PassThrough<'_> {
    fn path_into(
        &self,
        character: &Kinematic,
        goal: &Goal,
        limits: &Limits,
        plan: &mut PipelinePlan,
    ) {
        self.head.path_into(character, goal, limits, plan);
    }

    fn output(
        &self,
        character: &Kinematic,
        plan: &PipelinePlan,
        limits: &Limits,
    ) -> SteeringOutput {
        let mut out = self.head.output(character, plan, limits);
        if let Some(sub) = plan.goal.position.filter(|p| (*p - self.goal).length_squared() > 1e-6) {
            let p = character.position;
            let (direction, distance) = (sub - p).unit_and_length_f64();
            if distance > 0.0 {
                let arrive = &self.head.arrive;
                let speed = arrive.approach_speed((self.goal - p).length(), limits);
                out.linear = VelocityMatch::acceleration(
                    character.velocity,
                    direction * speed,
                    arrive.time_to_target(),
                    limits,
                );
            }
        }
        out
    }
}

/// The pipeline leaf for one 2D agent (see [`Recipe::Pipeline`]).
fn pipeline<V: CrowdVector>(
    k: &Kinematic,
    target: Vec2,
    cx: &Context<'_, V>,
    margin: f32,
    constraint_steps: usize,
    actuator: &HeadFor,
) -> Option<SteeringOutput> {
    let grid = cx.grid?;
    let (obstacles, body, limits) =
        (cx.obstacles.and_then(V::planar_obstacles), cx.radius, cx.limits);
    // one disc constraint per circle obstacle near a segment of the plan, found through the
    // set's BVH instead of a list built per agent
    let discs = FromFn(|_: &Kinematic, plan: &PipelinePlan, g: &Goal| -> Option<Goal> {
        let set = obstacles?;
        plan.segments().find_map(|(a, b)| {
            let reach = Circle::new((a + b) * 0.5, (b - a).length() * 0.5 + body);
            let mut hit: Option<Vec2> = None;
            set.for_each_overlapping(&reach, |_, o| {
                if hit.is_some() {
                    return;
                }
                if let Obstacle::Circle(c) = o {
                    let Ok(disc) = AvoidObstacle::new(c.center, c.radius + body, margin) else {
                        return;
                    };
                    let (closest, _) = closest_point_on_segment(c.center, a, b);
                    let r = disc.radius();
                    if (closest - c.center).length_squared() < r * r {
                        hit = Some(disc.detour(a, b));
                    }
                }
            });
            hit.map(|q| Goal { position: Some(q), ..*g })
        })
    });
    // deadlock: nothing here; the fallback below heads for the sub-goal
    let none = |_: &Kinematic, _: &Limits, _: f32| -> Option<SteeringOutput> { None };
    let actuator = PassThrough { head: actuator, goal: target };
    let mut p = SteeringPipeline::new(
        Goal::at(target),
        PlanningDecomposer::new(grid),
        discs,
        &actuator,
        none,
        constraint_steps,
    );
    let out = p.steer(k, limits, cx.dt);
    if !p.report().deadlocked {
        return Some(out);
    }
    // the planner's sub-goal is a free cell's centre: head straight for it
    let mut plan = PipelinePlan::default();
    actuator.path_into(k, &p.report().decomposed, limits, &mut plan);
    Some(actuator.output(k, &plan, limits))
}

/// [`Recipe::Navigate`]: toward the waypoint at the approach speed for the whole distance
/// left; plain arrive at the goal without one.
#[inline]
fn navigate<V: CrowdVector>(
    arrive: &crate::steering::Arrive,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let goal = cx.goal?;
    let (me, limits) = (&cx.me, cx.limits);
    let Some(w) = cx.waypoint else {
        notes.target = Some(goal);
        return arrive.steer(me, goal, limits);
    };
    notes.target = Some(w.point);
    let (direction, distance) = (w.point - me.position).unit_and_length_f64();
    if distance <= 0.0 {
        return arrive.steer(me, goal, limits);
    }
    let speed = arrive.approach_speed(distance + w.remaining, limits);
    let linear = VelocityMatch::acceleration(
        me.velocity,
        direction * speed,
        arrive.time_to_target(),
        limits,
    );
    Some(SteeringOutput { linear, ..SteeringOutput::default() })
}

/// Where `t` points for this agent (noted as its target), if it exists.
#[inline]
fn target_point<V: CrowdVector>(
    t: &Target<V>,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) -> Option<V> {
    let p = match t {
        Target::Point(p) => Some(*p),
        Target::Goal => cx.goal,
        Target::Agent(h) => cx.agents.kinematic(*h).map(|k| k.position),
    }?;
    notes.target = Some(p);
    Some(p)
}

/// Evaluates `recipe` for one agent. Allocates nothing (except the pipeline leaf).
pub(crate) fn evaluate<V: CrowdVector>(
    recipe: &Recipe<V>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    avoid: &mut AvoidState,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let point = |t: &Target<V>, notes: &mut Notes<V>| target_point(t, cx, notes);
    match recipe {
        Recipe::Seek { target, seek } => seek.steer(me, point(target, notes)?, limits),
        Recipe::Flee { target, flee } => flee.steer(me, point(target, notes)?, limits),
        Recipe::FleeHazards { flee, margin } => flee_hazards(flee, *margin, cx, notes),
        Recipe::Arrive { target, arrive } => arrive_at(arrive, point(target, notes)?, cx),
        Recipe::Navigate { arrive } => navigate(arrive, cx, notes),
        Recipe::Pursue { target, pursue } => {
            let quarry = cx.agents.kinematic(*target)?;
            notes.target = Some(quarry.position);
            pursue.steer(me, &quarry, limits)
        }
        Recipe::Evade { threat, evade } => {
            let pursuer = cx.agents.kinematic(*threat)?;
            notes.target = Some(pursuer.position);
            evade.steer(me, &pursuer, limits)
        }
        Recipe::VelocityMatch { velocity, matching } => matching.steer(me, *velocity, limits),
        Recipe::Wander(w) => wander(*w, cx, state, notes),
        Recipe::Separation(s) => {
            let k = cx.separations.iter().position(|x| x == s)?;
            s.finish(&cx.summary.separation[k], limits)
        }
        Recipe::Cohesion(c) => cohesion(c, me, limits, cx.summary, notes),
        Recipe::Alignment(a) => alignment(a, me, limits, cx.summary),
        Recipe::CollisionAvoidance(c) => c.steer(me, cx.radius, cx.neighbours, limits),
        Recipe::FollowPath { path, follow } => follow_path(*path, follow, cx, state, notes),
        Recipe::Blend(members) => Some(blend(
            members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, avoid, notes))),
            limits,
        )),
        Recipe::RunningSum(members) => Some(running_sum(
            members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, avoid, notes))),
            limits,
        )),
        Recipe::Sequence { first, then } => {
            let stage = if cx.path_done { then } else { first };
            evaluate(stage, cx, state, avoid, notes)
        }
        Recipe::Priority { groups, epsilon } => Some(prioritize(
            groups.iter().map(|r| evaluate(r, cx, state, avoid, notes).unwrap_or_default()),
            *epsilon,
        )),
        Recipe::ObstacleAvoidance(leaf) => avoid_obstacles(leaf, cx, avoid),
        Recipe::WallFeelers(feelers) => {
            let set = V::planar_obstacles(cx.obstacles?)?;
            feelers.steer(&V::planar(me)?, set, limits).map(V::from_planar)
        }
        Recipe::DetectionBox(b) => {
            let set = V::planar_obstacles(cx.obstacles?)?;
            b.steer_in(&V::planar(me)?, cx.radius, set, limits).map(V::from_planar)
        }
        Recipe::RepelObstacle(r) => r.steer_in(me, cx.radius, cx.obstacles?, limits),
        Recipe::Hide { hunter, hide } => hide_from(*hunter, hide, cx, notes),
        Recipe::Interpose { a, b, interpose } => {
            let (a, b) = (cx.agents.kinematic(*a)?, cx.agents.kinematic(*b)?);
            notes.target = Some(interpose.aim(me, &a, &b, limits));
            interpose.steer(me, &a, &b, limits)
        }
        Recipe::OffsetPursuit { leader, pursuit } => {
            let leader = cx.agents.kinematic(*leader)?;
            notes.target = Some(pursuit.slot(&leader));
            pursuit.steer(me, &leader, limits)
        }
        Recipe::ConeCheck(cone) => cone.steer(me, cx.neighbours, limits),
        Recipe::DogOnAString { path, dog } => dog_on_a_string(*path, dog, cx, state, notes),
        Recipe::Reprojection { path, reprojection } => {
            reproject(*path, reprojection, cx, state, notes)
        }
        Recipe::GrapplingHooks { path, hooks } => grappling_hooks(*path, hooks, cx, state, notes),
        Recipe::MillingtonFlock(f) => millington_flock(f, cx, notes),
        Recipe::BucklandFlock(f) => buckland_flock(f, cx, state, notes),
        Recipe::Dither { members, epsilon } => dither(members, epsilon, cx, state, avoid, notes),
        Recipe::LookWhereYoureGoing(look) => V::look_where_going(&look.align, me, limits),
        Recipe::Face { target, face } => {
            let p = point(target, notes)?;
            V::face(&face.align, me, p, limits)
        }
        Recipe::Align { orientation, align } => V::align(align, me, *orientation, limits),
        Recipe::KinematicSeek { target } => {
            let k = KinematicSeek.steer(&me.to_static(), point(target, notes)?, limits);
            Some(SteeringOutput { linear: k.velocity, angular: k.rotation })
        }
        Recipe::KinematicArrive { target, arrive } => {
            let k = arrive.steer(&me.to_static(), point(target, notes)?, limits);
            Some(SteeringOutput { linear: k.velocity, angular: k.rotation })
        }
        Recipe::KinematicWander { rate } => kinematic_wander(*rate, cx, state),
        Recipe::Pipeline { goal, margin, constraint_steps, actuator, .. } => {
            let k = V::planar(me)?;
            let p = point(goal, notes)?;
            let target = Vec2::new(p.axis(0), p.axis(1));
            pipeline(&k, target, cx, *margin, *constraint_steps, actuator).map(V::from_planar)
        }
        Recipe::Custom(id) => {
            let custom = cx.customs.get(id.0 as usize)?;
            custom.0.steer(&mut AgentContext { cx, rng: &mut state.rng, notes })
        }
        Recipe::Slot(steering) => {
            let t = cx.slot_target?;
            notes.target = Some(V::from_axes([t.position.x, t.position.y, 0.0]));
            steering.steer(&V::planar(me)?, &t, limits).map(V::from_planar)
        }
    }
}

/// The flee from the hazard the agent is deepest in (within `margin` m of its edge).
#[inline]
fn flee_hazards<V: CrowdVector>(
    flee: &Flee,
    margin: f32,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let inside = |h: &&crate::crowd::Hazard<V>| {
        let d = (me.position - h.centre).length();
        (d < h.radius + cx.radius + margin).then_some(d - h.radius)
    };
    let (mut best, mut depth) = (None, f32::INFINITY);
    for h in cx.hazards {
        if let Some(d) = inside(&h) {
            if d < depth {
                (best, depth) = (Some(h.centre), d);
            }
        }
    }
    let centre = best?;
    notes.target = Some(centre);
    flee.steer(me, centre, limits)
}

/// Arrive; a vehicle approaches no faster than it can stop there, `√(2·f·b·d)` (its braking
/// `b` at the tracker's fraction `f`, `d` the distance left).
#[inline]
fn arrive_at<V: CrowdVector>(
    arrive: &Arrive,
    p: V,
    cx: &Context<'_, V>,
) -> Option<SteeringOutput<V>> {
    let (me, limits) = (&cx.me, cx.limits);
    let Some(m) = cx.motor else { return arrive.steer(me, p, limits) };
    let stop = PathTracker::new(&m.model, limits).stopping_speed((p - me.position).length());
    let capped = Limits::new(
        limits.max_speed().min(stop),
        limits.max_acceleration(),
        limits.max_rotation(),
        limits.max_angular_acceleration(),
    )
    .unwrap_or(*limits);
    arrive.steer(me, p, &capped)
}

/// Path following with the agent's path parameter; notes when the path is finished.
#[inline]
fn follow_path<V: CrowdVector>(
    path: PathId,
    follow: &FollowPath,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let path = &cx.paths[path.0 as usize];
    // a vehicle tracks the path; a person on foot may face away from where they walk (a blend
    // with face), which pure pursuit on the heading cannot follow, so they chase the rabbit
    let vehicle = cx.motor.filter(|m| !matches!(m.model, crate::motor::VehicleModel::Human(_)));
    if let (Some(m), Some(k), Some(planar)) = (vehicle, V::planar(me), V::planar_path(path)) {
        return Some(V::from_planar(track_path(m, &k, planar, cx, state, notes)));
    }
    let mut f = follow.with_state(state.path_param);
    let s = f.steer(me, path, limits);
    state.path_param = f.state();
    notes.target = Some(f.target(path));
    // finished at the end of an open path, or within the group's arrive radius of it
    // (a follower arriving there stops just short of the last parameter)
    let near = cx.finish.max(1e-3);
    // the end point is looked up only for a follower already near it
    let at_end = || {
        let end = path.get_position(path.length());
        (end - cx.me.position).length_squared() <= near * near
    };
    if !path.is_looping() && (f.is_finished(path, 1e-3) || (f.is_finished(path, near) && at_end()))
    {
        notes.path_finished = true;
    }
    s
}

/// Path following for an agent driven through a vehicle: the [`PathTracker`] (pure pursuit and
/// the speed profile's braking envelope) with the agent's path parameter; finished at an open
/// path's end as [`follow_path`] is.
fn track_path<V: CrowdVector>(
    motor: &crate::motor::Motor,
    me: &Kinematic,
    path: &Polyline<Vec2>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> SteeringOutput {
    let tracker = PathTracker::new(&motor.model, cx.limits);
    let s = path.get_param(me.position, state.path_param);
    state.path_param = s;
    let lane = match motor.traffic {
        Some(traffic) => {
            let rivals: Vec<Rival> = cx
                .neighbours
                .iter()
                .map(|n| Rival {
                    position: Vec2::new(n.position.axis(0), n.position.axis(1)),
                    velocity: Vec2::new(n.velocity.axis(0), n.velocity.axis(1)),
                    radius: n.radius,
                })
                .collect();
            traffic.lane(&tracker, path, me, cx.radius, s, &rivals)
        }
        None => Lane::CENTRE,
    };
    let out = tracker.steer_in_lane(me, path, s, cx.dt, &lane);
    let aim = tracker.aim(path, s, me, lane.offset);
    notes.target = Some(V::from_axes([aim.x, aim.y, 0.0]));
    let length = path.length();
    let near = cx.finish.max(1e-3);
    let end = path.get_position(length);
    let stopped = me.velocity.length_squared() < 1e-4;
    if !path.is_looping()
        && length - s <= near
        && ((end - me.position).length_squared() <= near * near || stopped)
    {
        notes.path_finished = true;
    }
    out
}

/// Obstacle avoidance with the agent's avoidance state.
#[inline]
fn avoid_obstacles<V: CrowdVector>(
    leaf: &ObstacleAvoidance,
    cx: &Context<'_, V>,
    avoid: &mut AvoidState,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let set = cx.obstacles?;
    let mut leaf = leaf.with_state(*avoid);
    let s = V::avoid_obstacles(&mut leaf, me, set, limits, cx.dt);
    *avoid = leaf.state();
    s
}

/// Hiding from `hunter` behind the static world's obstacles (planar).
#[inline]
fn hide_from<V: CrowdVector>(
    hunter: AgentHandle,
    hide: &Hide,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let threat = cx.agents.kinematic(hunter)?;
    notes.target = Some(threat.position);
    let (k, threat) = (V::planar(me)?, V::planar(&threat)?);
    match cx.obstacles.and_then(V::planar_obstacles) {
        Some(set) => hide.steer_in(&k, &threat, set, limits),
        None => hide.steer(&k, &threat, core::iter::empty(), limits),
    }
    .map(V::from_planar)
}

/// Dog on a string with the agent's path parameter (the leash starts at the path's start).
#[inline]
fn dog_on_a_string<V: CrowdVector>(
    path: PathId,
    dog: &DogOnAString,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let path = &cx.paths[path.0 as usize];
    // the leash starts at the path's start
    let mut d = dog.with_state(if state.path_param.is_nan() { 0.0 } else { state.path_param });
    let s = d.steer(me, path, limits, cx.dt);
    state.path_param = d.state();
    let leash = d.leash(path);
    notes.target = Some(leash);
    finished(path, d.state(), leash, cx, notes);
    s
}

/// Reprojection with the agent's path parameter.
#[inline]
fn reproject<V: CrowdVector>(
    path: PathId,
    reprojection: &Reprojection,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let path = &cx.paths[path.0 as usize];
    let mut r = reprojection.with_state(state.path_param);
    let s = r.steer(me, path, limits);
    state.path_param = r.state();
    let end = path.get_position(path.length());
    finished(path, r.state(), end, cx, notes);
    s
}

/// Grappling hooks with the agent's waypoint index (kept in the path parameter).
#[inline]
fn grappling_hooks<V: CrowdVector>(
    path: PathId,
    hooks: &GrapplingHooks,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let path = &cx.paths[path.0 as usize];
    // the waypoint index, kept exactly in the path parameter (below 2²⁴)
    let mut h = hooks.with_state(WaypointCursor::at(state.path_param as usize));
    let s = h.steer(me, path, limits);
    let cursor = h.state();
    state.path_param = cursor.index(path) as f32;
    notes.target = Some(cursor.target(path));
    if !path.is_looping() && h.is_finished(me, path) {
        notes.path_finished = true;
    }
    s
}

/// Millington's flock from the neighbour summary.
#[inline]
fn millington_flock<V: CrowdVector>(
    f: &MillingtonFlock,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let sum = cx.summary;
    let k = cx.separations.iter().position(|x| *x == f.separation)?;
    let separation = f.separation.finish(&sum.separation[k], limits);
    let means = (sum.count > 0).then(|| {
        let n = sum.count as f32;
        let center = me.position + sum.offset / n;
        notes.target = Some(center);
        (sum.velocity / n, center)
    });
    Some(f.combine(me, separation, means, limits, |_, _| {}))
}

/// Buckland's flock from the neighbour summary, its wander with the agent's state.
#[inline]
fn buckland_flock<V: CrowdVector>(
    f: &BucklandFlock,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let sum = cx.summary;
    let k = cx.separations.iter().position(|x| *x == f.separation)?;
    let separation = f.separation.finish(&sum.separation[k], limits);
    let means = (sum.count > 0).then(|| {
        let n = sum.count as f32;
        let mean = if f.alignment.uses_headings() { sum.heading } else { sum.velocity };
        (mean / n, me.position + sum.offset / n)
    });
    let wander = || f.wander.as_ref().and_then(|j| self::wander(j.world(), cx, state, notes));
    Some(f.combine(me, separation, means, wander, limits, |_, _| {}))
}

/// Prioritised dithering: each member considered with its probability, drawn from the agent's
/// generator, in order.
#[inline]
fn dither<V: CrowdVector>(
    members: &[(f32, f32, Recipe<V>)],
    epsilon: &Epsilon,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    avoid: &mut AvoidState,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let limits = cx.limits;
    for (w, p, r) in members {
        if !dither_considers(*p, &mut state.rng) {
            continue;
        }
        let s = evaluate(r, cx, state, avoid, notes);
        if let Some(s) = dither_output(s, *w, *p, *epsilon, limits) {
            return Some(s);
        }
    }
    Some(SteeringOutput::ZERO)
}

/// Kinematic wander with the agent's generator (planar).
#[inline]
fn kinematic_wander<V: CrowdVector>(
    rate: f32,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let planar = V::planar(me)?;
    // the library's KinematicWander owns its generator; the crowd's is per agent
    let kick = state.rng.binomial() * rate;
    let rotation = if cx.dt > 0.0 { kick / cx.dt.sqrt() } else { 0.0 };
    Some(V::from_planar(SteeringOutput {
        linear: as_vector(planar.orientation) * limits.max_speed(),
        angular: rotation,
    }))
}

/// The world wander with the agent's wander target and generator (see [`Recipe::Wander`]).
fn wander<V: CrowdVector>(
    w: WorldWander<V>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let mut w = w.with_state(state.wander);
    let out = w.steer(&cx.me, cx.limits, &mut state.rng, cx.dt);
    state.wander = w.state();
    let (steering, target) = out?;
    notes.target = Some(target);
    Some(steering)
}

/// Raises `path_finished` when `param` has reached an open path's end and `point` (the agent's
/// leash or the end itself) is within the finish distance of the agent.
fn finished<V: CrowdVector>(
    path: &Polyline<V>,
    param: f32,
    point: V,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) {
    let end = path.length();
    if !path.is_looping()
        && param >= end - 1e-3
        && (point - cx.me.position).length_squared() <= cx.finish * cx.finish
    {
        notes.path_finished = true;
    }
}

/// The cohesion leaf: steer for the neighbours' centre of mass (none without neighbours).
#[inline(always)]
pub(super) fn cohesion<V: CrowdVector>(
    c: &Cohesion,
    me: &Kinematic<V>,
    limits: &Limits,
    summary: &Summary<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let n = summary.count;
    if n == 0 {
        return None;
    }
    let center = me.position + summary.offset / n as f32;
    notes.target = Some(center);
    c.steer_to(me, center, limits)
}

/// The alignment leaf: steer toward the neighbours' mean velocity or heading.
#[inline(always)]
pub(super) fn alignment<V: CrowdVector>(
    a: &Alignment,
    me: &Kinematic<V>,
    limits: &Limits,
    summary: &Summary<V>,
) -> Option<SteeringOutput<V>> {
    let n = summary.count;
    if n == 0 {
        return None;
    }
    let sum = if a.uses_headings() { summary.heading } else { summary.velocity };
    a.steer_toward_mean(me, sum / n as f32, limits)
}
