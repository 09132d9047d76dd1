//! Optimal reciprocal collision avoidance (ORCA: van den Berg, Guy, Lin and Manocha,
//! "Reciprocal n-body collision avoidance", 2011), in 2D and 3D, with static obstacles.
//!
//! Each neighbour B of agent A within the time horizon τ defines a half-plane (half-space in
//! 3D) of velocities that avoids colliding with B for τ seconds if B does its share: with the
//! relative position `p = p_B − p_A`, relative velocity `v = v_A − v_B` and combined radius
//! `r = r_A + r_B`, the truncated velocity obstacle is the cone of `p` with apex 0 cut off by
//! the disc (ball) of radius `r/τ` at `p/τ`; `u` is the smallest change of `v` that leaves it,
//! `n` its outward normal, and A takes the share `s` of it (½ between equals):
//! `ORCA = { v' : (v' − (v_A + s·u)) · n ≥ 0 }`. On a collision course (`u·n > 0`) `s` is
//! A's part of the change; when clear (`u·n < 0`) `|u|` is slack, and A may use the part
//! `1 − s` of it, so the agent that keeps its course more (a higher priority) changes less on
//! a collision course and keeps more of its freedom when clear; both parts sum to 1 for the
//! pair, which keeps the pair's guarantee (between equals both are ½, as in the paper). The new
//! velocity is the one closest to the preferred velocity inside every constraint and the speed
//! disc (ball), found by an incremental linear program. When the constraints leave nothing (a
//! dense crowd), the same constraints over one time step `dt` (no contact before the next
//! step) stay hard, as static obstacles do, if they leave something, and a program one
//! dimension up finds the velocity that violates the τ-constraints least. Already overlapping
//! pairs use the cut-off disc of one time step to separate.
//!
//! A static obstacle is avoided wholly by the agent (share 1) over its own horizon τₒ: the
//! velocity obstacle of a convex shape `O` grown by the agent's radius is
//! `K = ⋃_{σ ≥ 1/τₒ} σ·O`, convex, and its constraint is the supporting half-plane of `K` at the
//! point nearest the current velocity (exact for discs, walls, boxes and convex polygons; see
//! [`Orca::obstacle_line`]). Obstacle constraints stay hard when the program falls back.

mod cone;
mod lp;
mod obstacle;
mod reach;
mod space;

use crate::error::{positive, ParamError};
use crate::kinematic::Kinematic;
use crate::neighbours::Neighbour;
use cone::{avoidance, avoidance_3d};
use glam::{Vec2, Vec3};
use lp::{linear_program2, linear_program3, linear_program3_3d, linear_program4_3d};
pub use reach::Reach;
pub(crate) use space::Reciprocal;

/// Below this a length counts as zero.
const EPS: f32 = 1e-5;

/// The sine of the angle between the relative velocity and the line of centres below which a
/// closing pair counts as exactly head on (about 0.6°).
const HEAD_ON: f32 = 1e-2;

/// The default horizon (s) for a pair at rest ([`Orca::with_rest_time_horizon`]).
pub const REST_TIME_HORIZON: f32 = 1.0;

/// A half-plane of permitted velocities: the points `q` with `det(direction, point − q) ≤ 0`,
/// i.e. on the left of the directed line through `point` along `direction` (unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrcaLine {
    /// A point on the boundary (m/s).
    pub point: Vec2,
    /// The boundary's unit direction; permitted velocities lie on its left.
    pub direction: Vec2,
}

/// A half-space of permitted velocities in 3D: the points `q` with `(q − point)·normal ≥ 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrcaPlane {
    /// A point on the boundary (m/s).
    pub point: Vec3,
    /// The boundary's unit normal, pointing into the permitted side.
    pub normal: Vec3,
}

impl OrcaLine {
    /// The half-plane `{ q : (q − point)·normal ≥ 0 }` (`normal` unit).
    #[must_use]
    #[inline]
    pub fn facing(point: Vec2, normal: Vec2) -> Self {
        OrcaLine { point, direction: Vec2::new(normal.y, -normal.x) }
    }
}

/// One space's constraints: those of the last call (obstacles first), the dense fallback's
/// (obstacles, the one-step constraints, then the τ-constraints) and the fallback's projections.
#[derive(Clone, Debug)]
pub(crate) struct Buffers<C> {
    constraints: Vec<C>,
    dense: Vec<C>,
    projected: Vec<C>,
}

impl<C> Default for Buffers<C> {
    fn default() -> Self {
        Buffers { constraints: Vec::new(), dense: Vec::new(), projected: Vec::new() }
    }
}

/// Reusable buffers for [`Orca::velocity`] and [`Orca::velocity_3d`] (one per thread).
#[derive(Clone, Debug, Default)]
pub struct OrcaScratch {
    lines: Buffers<OrcaLine>,
    planes: Buffers<OrcaPlane>,
    order: Vec<(f32, usize)>,
    obstacles: usize,
}

impl OrcaScratch {
    /// Adds a static obstacle's constraint (from [`Orca::obstacle_line`]) for the next 2D
    /// velocity call; a non-finite one is dropped.
    pub fn add_obstacle(&mut self, line: OrcaLine) {
        self.add::<Vec2>(line);
    }
    /// Adds a static obstacle's constraint (from [`Orca::obstacle_plane`]) for the next 3D
    /// velocity call; a non-finite one is dropped.
    pub fn add_obstacle_3d(&mut self, plane: OrcaPlane) {
        self.add::<Vec3>(plane);
    }
    fn add<V: Reciprocal>(&mut self, c: V::Constraint) {
        let (buffers, _, obstacles) = V::parts(self);
        if *obstacles == 0 {
            buffers.constraints.clear();
        }
        if V::admissible(&c) {
            buffers.constraints.truncate(*obstacles);
            buffers.constraints.push(c);
            *obstacles += 1;
        }
    }
    /// The constraints of the last call (2D), obstacles first: for drawing and tests.
    #[must_use]
    pub fn lines(&self) -> &[OrcaLine] {
        &self.lines.constraints
    }
    /// The constraints of the last 3D call, obstacles first.
    #[must_use]
    pub fn planes(&self) -> &[OrcaPlane] {
        &self.planes.constraints
    }
}

/// A space's buffers, the neighbour order and the count of obstacle constraints.
type Parts<'a, C> = (&'a mut Buffers<C>, &'a mut Vec<(f32, usize)>, &'a mut usize);

/// A held-up agent moving along a wall faster than this share of its preferred speed goes on
/// that way (its velocity is the memory of the side it chose, so it does not turn back where
/// the goal passes square behind the wall).
const SQUARE_ON: f32 = 0.25;
/// Otherwise it slides the way its preference leans by more than this share of its speed
/// (about 3°); nearer square on it keeps right.
const LEANING: f32 = 0.05;

/// ORCA's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Orca {
    time_horizon: f32,
    obstacle_time_horizon: f32,
    rest_time_horizon: f32,
    max_neighbours: u32,
    priority: f32,
    arrived_priority: f32,
    layers: u32,
    mask: u32,
    escape: bool,
    /// The agent follows a route round the obstacles (the crowd's navigation): held up at a
    /// wall it keeps right, as among agents, instead of sliding along it.
    #[cfg_attr(feature = "serde", serde(skip))]
    routed: bool,
}

impl Orca {
    /// ORCA looking `time_horizon` seconds ahead (> 0; RVO2's examples use 10) among at most
    /// `max_neighbours` nearest neighbours (≥ 1; 10); obstacles over the same horizon, priority
    /// 1 (arrived agents ½), in layer 1 avoiding every layer, keeping right when blocked
    /// ([`with_escape`](Self::with_escape)).
    ///
    /// # Errors
    /// If the horizon is not finite and positive or no neighbour is allowed.
    pub fn new(time_horizon: f32, max_neighbours: u32) -> Result<Self, ParamError> {
        positive("time_horizon", time_horizon)?;
        if max_neighbours == 0 {
            return Err(ParamError::Invalid { name: "max_neighbours", expected: "at least 1" });
        }
        Ok(Orca {
            time_horizon,
            obstacle_time_horizon: time_horizon,
            rest_time_horizon: REST_TIME_HORIZON,
            max_neighbours,
            priority: 1.0,
            arrived_priority: 0.5,
            layers: 1,
            mask: u32::MAX,
            escape: true,
            routed: false,
        })
    }

    /// Whether a blocked agent keeps right (on by default): when the velocity ORCA finds makes
    /// less than a tenth of the preferred progress (`v·p < 0.1·|p|²`) while the agent wants to
    /// go faster than a quarter of its top speed, and the agent is held up (it moves slower
    /// than half its preferred speed, `|v_A| < ½·|p|`, or a static obstacle is within reach),
    /// ORCA solves again for the velocity nearest the preferred one turned 90° to the right.
    /// This is the right-hand convention of pedestrian traffic, applied only where ORCA alone
    /// stands still: reciprocal avoidance is symmetric, so a crowd pressing on one point (the
    /// centre of the Circle, a four-way crossing) or an agent square across a wall or at a
    /// block's corner has no side to prefer and stays in a deadlock for good; with every agent
    /// keeping right the jam turns like a roundabout and an agent follows a wall to its end.
    /// The choice is deterministic (no random perturbation) and the same for every agent.
    /// Among agents alone the sidestep only starts a standing agent moving; an agent under way
    /// that ORCA turns aside keeps ORCA's own choice. At a wall (its preference crossing the
    /// constraint of a static obstacle) an agent without a route slides along the wall instead,
    /// at its preferred speed, the way it already moves along it (faster than a quarter of
    /// that speed) or else the way its preference leans (by more than 3°), as a wall follower
    /// does: keeping right would take an agent square across a block's face round the block
    /// when its goal lies past the near corner. It keeps right when square on, when the other
    /// agents leave the slide less than a tenth of the preferred progress, and on a route
    /// (navigation leads round the walls; at a wall it is held up by the crowd).
    /// `false` gives plain ORCA, as RVO2.
    #[must_use]
    pub fn with_escape(mut self, escape: bool) -> Self {
        self.escape = escape;
        self
    }

    /// These parameters for an agent on a route round the obstacles: a route already leads
    /// round every wall, so one held up at a wall is held up by the crowd and keeps right.
    pub(crate) fn routed(mut self) -> Self {
        self.routed = true;
        self
    }

    /// Whether blocked agents sidestep (see [`with_escape`](Self::with_escape)).
    #[must_use]
    pub fn escape(&self) -> bool {
        self.escape
    }

    /// The agent made too little progress toward a preference it is keen on and is held up:
    /// slower than half its preferred speed (`speed_sq` its current speed squared), or beside
    /// a static obstacle (`walls`).
    #[inline]
    fn blocked(
        &self,
        preferred_sq: f32,
        progress: f32,
        max_speed: f32,
        speed_sq: f32,
        walls: bool,
    ) -> bool {
        self.escape
            && preferred_sq > 0.0625 * max_speed * max_speed
            && progress < 0.1 * preferred_sq
            && (walls || speed_sq < 0.25 * preferred_sq)
    }

    /// Static obstacles looked at `seconds` ahead (> 0): shorter lets agents pass close to
    /// walls, longer makes them turn away earlier.
    ///
    /// # Errors
    /// If `seconds` is not finite and positive.
    pub fn with_obstacle_time_horizon(mut self, seconds: f32) -> Result<Self, ParamError> {
        self.obstacle_time_horizon = positive("obstacle_time_horizon", seconds)?;
        Ok(self)
    }

    /// The horizon (s, > 0; [`REST_TIME_HORIZON`], 1 s, by default, and never longer than
    /// the time horizon) for a pair at rest, one of the two arrived and standing and the other
    /// walking up to a goal no farther than it (the crowd's rule). Its
    /// constraint only bounds the closing speed, `v·p̂ ≤ part·(|p| − r)/τ_rest`, so the gap to
    /// a standing agent shrinks at most by the fraction `dt/τ_rest` a step and is never
    /// closed: any horizon keeps the bodies apart, and a short one lets an agent walk up to
    /// its spot beside those already home instead of creeping (10 s would allow 0.2 m/s at a
    /// 3 m gap, 1 s allows 2 m/s).
    ///
    /// # Errors
    /// If `seconds` is not finite and positive.
    pub fn with_rest_time_horizon(mut self, seconds: f32) -> Result<Self, ParamError> {
        self.rest_time_horizon = positive("rest_time_horizon", seconds)?;
        Ok(self)
    }

    /// The horizon for a pair at rest (s).
    #[must_use]
    pub fn rest_time_horizon(&self) -> f32 {
        self.rest_time_horizon
    }

    /// How much this agent keeps its course (> 0, 1 by default): between two avoiding agents of
    /// priorities `a` and `b`, the first takes the share `b / (a + b)` of the avoidance on a
    /// collision course and may use the part `a / (a + b)` of the slack when clear. A
    /// neighbour that does not avoid this agent (no ORCA, or its mask leaves out this agent's
    /// layers) is avoided wholly.
    ///
    /// # Errors
    /// If `priority` is not finite and positive.
    pub fn with_priority(mut self, priority: f32) -> Result<Self, ParamError> {
        self.priority = positive("priority", priority)?;
        Ok(self)
    }

    /// The factor (> 0, ½ by default) on the priority of an agent that has arrived at its goal:
    /// below 1 it yields more than its share to agents still under way instead of standing as
    /// a wall in their way.
    ///
    /// # Errors
    /// If `factor` is not finite and positive.
    pub fn with_arrived_priority(mut self, factor: f32) -> Result<Self, ParamError> {
        self.arrived_priority = positive("arrived_priority", factor)?;
        Ok(self)
    }

    /// Avoidance layers: the agent is in `layers` (bits) and avoids the neighbours in any of
    /// the layers of `mask`; the others only meet its body (non-penetration).
    #[must_use]
    pub fn with_layers(mut self, layers: u32, mask: u32) -> Self {
        self.layers = layers;
        self.mask = mask;
        self
    }

    /// The time horizon for other agents (s).
    #[must_use]
    pub fn time_horizon(&self) -> f32 {
        self.time_horizon
    }
    /// The time horizon for static obstacles (s).
    #[must_use]
    pub fn obstacle_time_horizon(&self) -> f32 {
        self.obstacle_time_horizon
    }
    /// The most neighbours considered.
    #[must_use]
    pub fn max_neighbours(&self) -> u32 {
        self.max_neighbours
    }
    /// The priority (see [`with_priority`](Self::with_priority)).
    #[must_use]
    pub fn priority(&self) -> f32 {
        self.priority
    }
    /// The factor on the priority of an arrived agent.
    #[must_use]
    pub fn arrived_priority(&self) -> f32 {
        self.arrived_priority
    }
    /// The layers the agent is in.
    #[must_use]
    pub fn layers(&self) -> u32 {
        self.layers
    }
    /// The layers it avoids.
    #[must_use]
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The collision-free velocity (m/s) closest to `preferred` within `max_speed`, among
    /// `neighbours` that all run ORCA with the same priority (each takes half); see
    /// [`velocity_with`](Self::velocity_with).
    #[must_use]
    #[allow(clippy::too_many_arguments)] // the agent, its preference and the scratch, as RVO2
    pub fn velocity(
        &self,
        me: &Kinematic,
        radius: f32,
        preferred: Vec2,
        max_speed: f32,
        neighbours: &[Neighbour],
        dt: f32,
        scratch: &mut OrcaScratch,
    ) -> Vec2 {
        self.velocity_with(me, radius, preferred, max_speed, neighbours, |_| Some(0.5), dt, scratch)
    }

    /// The collision-free velocity (m/s) closest to `preferred` within `max_speed` for an agent
    /// `me` of `radius` stepping `dt` seconds. The `max_neighbours` nearest of `neighbours`
    /// (nearest first by distance, then index) each give a constraint with the share `share`
    /// returns for it (in (0, 1]: its part of the change on a collision course, `1 − share` of
    /// the slack when clear, all of both at 1; `None` ignores it); the static obstacles added to `scratch`
    /// since the last call ([`OrcaScratch::add_obstacle`]) come first and stay hard in the
    /// fallback.
    /// Finite input gives a finite velocity of at most `max_speed`.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn velocity_with(
        &self,
        me: &Kinematic,
        radius: f32,
        preferred: Vec2,
        max_speed: f32,
        neighbours: &[Neighbour],
        share: impl Fn(&Neighbour) -> Option<f32>,
        dt: f32,
        scratch: &mut OrcaScratch,
    ) -> Vec2 {
        let pair = |n: &Neighbour| share(n).map(|share| Pair { share, rest: false, room: 1.0 });
        self.velocity_pairs(me, radius, preferred, max_speed, neighbours, pair, dt, scratch)
    }

    /// [`velocity_with`](Self::velocity_with) and [`velocity_3d`](Self::velocity_3d) in their
    /// space, with each neighbour's [`Pair`]: the crowd's call, which knows who has arrived.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn velocity_pairs<V: Reciprocal>(
        &self,
        me: &Kinematic<V>,
        radius: f32,
        preferred: V,
        max_speed: f32,
        neighbours: &[Neighbour<V>],
        pair: impl Fn(&Neighbour<V>) -> Option<Pair>,
        dt: f32,
        scratch: &mut OrcaScratch,
    ) -> V {
        let (buffers, order, obstacles) = V::parts(scratch);
        let obstacles = std::mem::take(obstacles).min(buffers.constraints.len());
        buffers.constraints.truncate(obstacles);
        let inv_tau = 1.0 / self.time_horizon;
        let inv_rest = inv_tau.max(1.0 / self.rest_time_horizon);
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { inv_tau };
        let direct = nearest(order, neighbours, self.max_neighbours);
        let order = &*order;
        let picks = || (0..direct).chain(order.iter().map(|&(_, idx)| idx));
        for idx in picks() {
            let other = &neighbours[idx];
            if let Some(p) = pair(other) {
                if let Some(c) = constraint(me, radius, other, p, [inv_tau, inv_rest, inv_dt]) {
                    buffers.constraints.push(c);
                }
                buffers.constraints.extend(make_way::<V>(radius, other, p.room, inv_rest));
            }
        }
        let (max_speed, preferred) = inputs(max_speed, preferred, me.velocity);
        // the dense program's constraints as built (their form, and how many stay hard)
        let mut built: Option<(bool, usize)> = None;
        // what an earlier call found to leave nothing whatever the preference (a program fails
        // at the first prefix of its constraints that leaves nothing, which the preference does
        // not change, up to rounding at a prefix that barely leaves room): the constraints as they are, and the dense program's hard part about
        // the current velocities; a held-up agent's second call skips straight past them
        let mut infeasible = [false; 2];
        let mut solve = |opt: V, buffers: &mut Buffers<V::Constraint>| {
            let mut result = V::ZERO;
            if !infeasible[0] {
                let cs = &buffers.constraints;
                if V::program(cs, max_speed, opt, &mut result) == cs.len() {
                    return result;
                }
                infeasible[0] = true;
            }
            // dense: obstacles, then no contact within the step, both hard if they leave room;
            // no contact about the current velocities (the pair may follow a neighbour that
            // moves away), else about rest (closing on no one faster than the gap allows),
            // which standing still meets while no two bodies overlap.
            let mut fail = 0;
            for rest in [false, true] {
                if !rest && infeasible[1] {
                    continue;
                }
                let hard = match built {
                    Some((form, hard)) if form == rest => hard,
                    _ => {
                        let dense = &mut buffers.dense;
                        dense.clear();
                        dense.extend_from_slice(&buffers.constraints[..obstacles]);
                        for idx in picks() {
                            let other = &neighbours[idx];
                            let step = |p: Pair| {
                                constraint(me, radius, other, Pair { rest, ..p }, [inv_dt; 3])
                            };
                            if let Some(c) = pair(other).and_then(step) {
                                dense.push(c);
                            }
                        }
                        let hard = dense.len();
                        dense.extend_from_slice(&buffers.constraints[obstacles..]);
                        built = Some((rest, hard));
                        hard
                    }
                };
                let cs = &buffers.dense;
                fail = V::program(cs, max_speed, opt, &mut result);
                if fail == cs.len() {
                    return result;
                }
                if fail >= hard {
                    V::fallback(cs, hard, fail, max_speed, &mut buffers.projected, &mut result);
                    return result;
                }
                if !rest {
                    infeasible[1] = true;
                }
            }
            // bodies already in contact: the least violation, only obstacles kept hard
            let cs = &buffers.dense;
            V::fallback(
                cs,
                obstacles.min(fail),
                fail,
                max_speed,
                &mut buffers.projected,
                &mut result,
            );
            result
        };
        let mut result = solve(preferred, buffers);
        let (pref_sq, speed_sq) = (preferred.length_squared(), me.velocity.length_squared());
        if self.blocked(pref_sq, result.dot(preferred), max_speed, speed_sq, obstacles > 0) {
            let walls = &buffers.constraints[..obstacles * usize::from(!self.routed)];
            let along = V::along_wall(walls, preferred, me.velocity);
            result = unblock(preferred, along, |opt| solve(opt, buffers));
        }
        if result.is_finite() {
            result.clamp(max_speed)
        } else {
            V::ZERO
        }
    }

    /// The crowd's shortcut: the answer of [`velocity_with`](Self::velocity_with) for an agent
    /// moving at `velocity` with no static obstacle near, when `all_clear` confirms that every
    /// neighbour passes the [`Reach`] test it is given: the preference within the speed
    /// limit, which no constraint can then move. `None` when some neighbour does not pass or
    /// the agent is held up (then call `velocity_with`).
    pub(crate) fn clear_velocity_2d(
        &self,
        velocity: Vec2,
        preferred: Vec2,
        max_speed: f32,
        all_clear: impl FnOnce(&Reach<Vec2>) -> bool,
    ) -> Option<Vec2> {
        self.clear_velocity(velocity, preferred, max_speed, all_clear)
    }

    /// [`clear_velocity_2d`](Self::clear_velocity_2d) for [`velocity_3d`](Self::velocity_3d).
    pub(crate) fn clear_velocity_3d(
        &self,
        velocity: Vec3,
        preferred: Vec3,
        max_speed: f32,
        all_clear: impl FnOnce(&Reach<Vec3>) -> bool,
    ) -> Option<Vec3> {
        self.clear_velocity(velocity, preferred, max_speed, all_clear)
    }

    fn clear_velocity<V: Reciprocal>(
        &self,
        velocity: V,
        preferred: V,
        max_speed: f32,
        all_clear: impl FnOnce(&Reach<V>) -> bool,
    ) -> Option<V> {
        let (max_speed, preferred) = inputs(max_speed, preferred, velocity);
        // the program's start: its answer when no constraint binds there
        let mut start = V::ZERO;
        V::program(&[], max_speed, preferred, &mut start);
        let reach = Reach {
            v: velocity,
            x: start,
            change: (start - velocity).length(),
            speeds: velocity.length() + start.length(),
            inv_tau: 1.0 / self.time_horizon,
            inv_rest: (1.0 / self.time_horizon).max(1.0 / self.rest_time_horizon),
        };
        let (pref_sq, speed_sq) = (preferred.length_squared(), velocity.length_squared());
        let held = self.blocked(pref_sq, start.dot(preferred), max_speed, speed_sq, false);
        (!held && all_clear(&reach) && start.is_finite()).then(|| start.clamp(max_speed))
    }

    /// The collision-free velocity (m/s) in 3D: as [`velocity_with`](Self::velocity_with) with
    /// half-spaces, the 3D program and its 4D fallback; static obstacles come from
    /// [`obstacle_plane`](Self::obstacle_plane) via [`OrcaScratch::add_obstacle_3d`]. Exactly head-on pairs turn to the sides
    /// given by `p × ŷ` (or `p × x̂` for a vertical `p`), opposite for the two agents.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn velocity_3d(
        &self,
        me: &Kinematic<Vec3>,
        radius: f32,
        preferred: Vec3,
        max_speed: f32,
        neighbours: &[Neighbour<Vec3>],
        share: impl Fn(&Neighbour<Vec3>) -> Option<f32>,
        dt: f32,
        scratch: &mut OrcaScratch,
    ) -> Vec3 {
        let pair =
            |n: &Neighbour<Vec3>| share(n).map(|share| Pair { share, rest: false, room: 1.0 });
        self.velocity_pairs(me, radius, preferred, max_speed, neighbours, pair, dt, scratch)
    }
}

/// The constraint of a neighbour in `pair`, over the horizon 1/inv_tau: about the current
/// velocities, or about rest (over 1/inv_rest) for a pair at rest.
#[inline(always)]
fn constraint<V: Reciprocal>(
    me: &Kinematic<V>,
    radius: f32,
    other: &Neighbour<V>,
    pair: Pair,
    [inv_tau, inv_rest, inv_dt]: [f32; 3],
) -> Option<V::Constraint> {
    let (mine, theirs, inv_tau) = if pair.rest {
        (V::ZERO, V::ZERO, inv_rest)
    } else {
        (me.velocity, other.velocity, inv_tau)
    };
    let (normal, u) =
        V::avoidance(other.offset, mine - theirs, radius + other.radius, inv_tau, inv_dt);
    let c = V::constraint(mine + u * part(pair.share, u.dot(normal)), normal);
    V::admissible(&c).then_some(c)
}

/// A held-up agent's velocity (`solve` gives the one nearest a preference): sliding along the
/// wall (`along`) where the other agents let it make a tenth of its preferred progress that way
/// (a file sliding one way along a face meeting one sliding the other would lock), else the
/// preference turned right.
fn unblock<V: Reciprocal>(preferred: V, along: Option<V>, mut solve: impl FnMut(V) -> V) -> V {
    let pref_sq = preferred.length_squared();
    along
        .map(|side| (side, solve(side)))
        .filter(|(side, v)| v.dot(*side) >= 0.1 * pref_sq)
        .map_or_else(|| solve(V::sidestep(preferred)), |(_, v)| v)
}

/// An arrived agent's way out of the path of a neighbour passing it: while the two are
/// nearer than `room` times their combined radius `r`, it moves away at least at the rate
/// `v·(−p̂) ≥ (room·r − |p|)/τ_rest` (`p` the neighbour's offset, m; τ_rest the rest horizon,
/// s), over and above the pair's own constraint, which stays reciprocal. `None` for a `room`
/// of 1 (no yielding), beyond that distance or on the agent's centre.
#[inline(always)]
fn make_way<V: Reciprocal>(
    radius: f32,
    other: &Neighbour<V>,
    room: f32,
    inv_rest: f32,
) -> Option<V::Constraint> {
    if room <= 1.0 {
        return None;
    }
    let (reach, d_sq) = ((radius + other.radius) * room, other.distance_squared);
    if d_sq >= reach * reach || d_sq == 0.0 {
        return None;
    }
    let d = d_sq.sqrt();
    let away = other.offset * (-1.0 / d);
    let c = V::constraint(away * ((reach - d) * inv_rest), away);
    V::admissible(&c).then_some(c)
}

/// How an agent avoids one neighbour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// Its share of the avoidance, in (0, 1] (see [`part`]).
    pub share: f32,
    /// The pair is at rest (one of the two has arrived and stands, and the other walks up to a
    /// spot no farther than it): its constraint is taken about zero
    /// velocities instead of the current ones (ORCA's `v_opt = 0`, van den Berg et al. §5.2),
    /// `v·p̂ ≤ part·(|p| − r)/τ_rest`: only the closing speed is bounded, so an agent may slip past
    /// or between arrived agents in any direction that does not close on them too fast, and
    /// the constraint does not depend on which way it happened to be moving. Both agents of
    /// the pair take it so, so the reciprocal guarantee holds.
    pub rest: bool,
    /// The factor (≥ 1) on the combined radius within which this agent also moves out of the
    /// other's way (see `make_way`): above 1 for an arrived agent beside one still passing it
    /// ([`YIELD_ROOM`]), 1 otherwise.
    pub room: f32,
}

/// The room an arrived agent makes for one passing it (whose goal lies beyond it), as a
/// factor on their combined radius: it backs away (at most 20 % of that distance a rest
/// horizon) until 20 % of it lies between them beyond contact, so a walker pressed into the
/// gap between two standing agents (goals 1.5 m apart leave 0.7 m for a body 0.8 m wide)
/// opens it as it presses and gets through instead of standing wedged there for good. Only
/// the standing side yields; it walks back once the other has passed.
pub(crate) const YIELD_ROOM: f32 = 1.2;

/// The part of `u` an agent with the share `share` of a pair's avoidance takes: `share` on a
/// collision course (`u·n = along ≥ 0`: the change it must make); when clear (`along < 0`:
/// `|u|` is slack it may use) the rest, `1 − share`, so the agent that avoids less keeps more
/// of its freedom. The two agents' parts sum to 1 either way. A neighbour that does not avoid
/// (`share` 1) leaves the agent all of both.
#[inline]
fn part(share: f32, along: f32) -> f32 {
    let share = share.clamp(0.0, 1.0);
    if along < 0.0 && share < 1.0 {
        1.0 - share
    } else {
        share
    }
}

/// The program's speed limit and preference as [`Orca::velocity_with`] takes them: a negative
/// limit counts as 0, a non-finite preference as the current `velocity`.
#[inline]
fn inputs<V: crate::math::Vector>(max_speed: f32, preferred: V, velocity: V) -> (f32, V) {
    (max_speed.max(0.0), if preferred.is_finite() { preferred } else { velocity })
}

/// The `k` nearest of `neighbours`, nearest first by distance then index: all of them, as
/// they are, when they already are (the crowd's list; `order` is left empty), otherwise ranked
/// in `order` as (squared distance, index). Returns how many to take as they are.
fn nearest<V: crate::math::Vector>(
    order: &mut Vec<(f32, usize)>,
    neighbours: &[Neighbour<V>],
    k: u32,
) -> usize {
    order.clear();
    let by_distance = |a: &Neighbour<V>, b: &Neighbour<V>| {
        a.distance_squared.total_cmp(&b.distance_squared).is_le()
    };
    if neighbours.len() <= k as usize && neighbours.is_sorted_by(by_distance) {
        return neighbours.len();
    }
    order.extend(neighbours.iter().enumerate().map(|(i, n)| (n.distance_squared, i)));
    let cmp = |a: &(f32, usize), b: &(f32, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    let k = (k as usize).min(order.len());
    if order.len() > k {
        order.select_nth_unstable_by(k, cmp);
        order.truncate(k);
    }
    order.sort_unstable_by(cmp);
    0
}

#[cfg(test)]
mod tests;
