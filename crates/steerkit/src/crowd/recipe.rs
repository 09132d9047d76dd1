//! Behaviour recipes: a serialisable tree of the library's behaviours and combiners, shared by
//! every agent of a group and evaluated per agent without allocating.
//!
//! Adding a behaviour is one [`Recipe`] variant plus one arm in `evaluate` (and one in
//! `Recipe::validate` if it holds something to check).

use super::space::CrowdVector;
use super::{AgentHandle, AgentView};
use crate::combine::{blend, prioritize, running_sum, Epsilon};
use crate::error::{finite, non_negative, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::neighbours::Neighbour;
use crate::path::{Path, Polyline};
use crate::rng::Rng;
use crate::steering::{
    Alignment, Arrive, Cohesion, CollisionAvoidance, Evade, Flee, FollowPath, Pursue, Seek,
    Separation, SeparationSum, VelocityMatch,
};
use glam::Vec2;

/// Index of a path registered with `Crowd::add_path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PathId(pub u32);

/// Where a seek, flee or arrive points.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Target<V: Vector = Vec2> {
    /// A fixed point (m).
    Point(V),
    /// The agent's own goal (`Crowd::set_goal`); nothing to say without one.
    Goal,
    /// Another agent's current position; nothing to say when it is gone.
    Agent(AgentHandle),
}

/// A behaviour recipe: what every agent of a group does, as data.
///
/// Leaves are the library's behaviours with their parameters; inner nodes are the combiners of
/// `combine` (weighted blend, priority groups, truncated running sum). A leaf that has nothing
/// to say (no neighbours, no goal, target gone) is `None`, which the combiners treat as zero.
///
/// Per-agent state lives outside the recipe, in the crowd: one wander target, one path
/// parameter and one random generator per agent (so every `Wander` node of a recipe shares the
/// agent's wander target, and every `FollowPath` node its path parameter).
///
/// Group leaves (separation, cohesion, alignment, collision avoidance) see the agent's
/// neighbours: the agents within the crowd's neighbour radius (and the group's view cone),
/// gathered once per agent per step from the grid.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(serialize = "V: serde::Serialize", deserialize = "V: serde::Deserialize<'de>"))
)]
pub enum Recipe<V: Vector = Vec2> {
    /// Seek a target ([`Seek`]).
    Seek {
        /// What to seek.
        target: Target<V>,
        /// Parameters.
        seek: Seek,
    },
    /// Flee a target ([`Flee`]).
    Flee {
        /// What to flee.
        target: Target<V>,
        /// Parameters.
        flee: Flee,
    },
    /// Arrive at a target ([`Arrive`]).
    Arrive {
        /// Where to stop.
        target: Target<V>,
        /// Parameters.
        arrive: Arrive,
    },
    /// Pursue another agent ([`Pursue`]).
    Pursue {
        /// The quarry.
        target: AgentHandle,
        /// Parameters.
        pursue: Pursue,
    },
    /// Evade another agent ([`Evade`]).
    Evade {
        /// The pursuer.
        threat: AgentHandle,
        /// Parameters.
        evade: Evade,
    },
    /// Match a fixed velocity ([`VelocityMatch`]).
    VelocityMatch {
        /// Target velocity (m/s).
        velocity: V,
        /// Parameters.
        matching: VelocityMatch,
    },
    /// Buckland's jittered wander in world space (works in 2D and 3D): a target on a sphere of
    /// `radius` m centred `distance` m ahead of the heading, jittered by up to `jitter·√dt` m per
    /// axis each step and pushed back onto the sphere;
    /// `linear = (target − p) · max_acceleration / (distance + radius)` (zero when both are 0).
    Wander {
        /// Circle/sphere radius (m), ≥ 0.
        radius: f32,
        /// Distance of its centre ahead (m), ≥ 0.
        distance: f32,
        /// Jitter (m/√s), ≥ 0.
        jitter: f32,
    },
    /// Separation from the neighbours ([`Separation`]).
    Separation(Separation),
    /// Cohesion with the neighbours ([`Cohesion`]).
    Cohesion(Cohesion),
    /// Alignment with the neighbours ([`Alignment`]).
    Alignment(Alignment),
    /// Predictive collision avoidance against the neighbours ([`CollisionAvoidance`]).
    CollisionAvoidance(CollisionAvoidance),
    /// Follow a registered path ([`FollowPath`]; its start parameter is ignored, each agent
    /// keeps its own). Reaching the end of an open path raises `PathFinished` once.
    FollowPath {
        /// Which path.
        path: PathId,
        /// Parameters.
        follow: FollowPath,
    },
    /// Weighted blend ([`blend`]): `clip(Σ wᵢ·sᵢ, max_acceleration)`.
    Blend(Vec<(f32, Recipe<V>)>),
    /// Priority groups ([`prioritize`]): the first group whose output exceeds `epsilon`.
    Priority {
        /// Groups, highest priority first.
        groups: Vec<Recipe<V>>,
        /// Threshold below which a group is ignored.
        epsilon: Epsilon,
    },
    /// Buckland's weighted truncated running sum with prioritisation ([`running_sum`]).
    RunningSum(Vec<(f32, Recipe<V>)>),
}

impl<V: Vector> Recipe<V> {
    /// Checks what the constructors of the leaves cannot: finite weights, wander parameters,
    /// path ids below `paths`.
    ///
    /// # Errors
    /// [`ParamError`] naming the field (`weight`, `wander_radius`, `path`, ...).
    pub fn validate(&self, paths: usize) -> Result<(), ParamError> {
        match self {
            Recipe::Wander { radius, distance, jitter } => {
                non_negative("wander_radius", *radius)?;
                non_negative("wander_distance", *distance)?;
                non_negative("wander_jitter", *jitter)?;
            }
            Recipe::FollowPath { path, .. } if path.0 as usize >= paths => {
                return Err(ParamError::OutOfRange {
                    name: "path",
                    value: path.0 as f32,
                    range: "the id of a registered path",
                });
            }
            Recipe::VelocityMatch { velocity, .. } if !velocity.is_finite() => {
                return Err(ParamError::NotFinite { name: "velocity", value: f32::NAN });
            }
            Recipe::Seek { target: Target::Point(p), .. }
            | Recipe::Flee { target: Target::Point(p), .. }
            | Recipe::Arrive { target: Target::Point(p), .. }
                if !p.is_finite() =>
            {
                return Err(ParamError::NotFinite { name: "target", value: f32::NAN });
            }
            Recipe::Blend(members) | Recipe::RunningSum(members) => {
                for (w, r) in members {
                    finite("weight", *w)?;
                    r.validate(paths)?;
                }
            }
            Recipe::Priority { groups, .. } => {
                for r in groups {
                    r.validate(paths)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Calls `f` on every leaf, depth first.
    pub(crate) fn for_each_leaf(&self, f: &mut impl FnMut(&Recipe<V>)) {
        match self {
            Recipe::Blend(m) | Recipe::RunningSum(m) => {
                for (_, r) in m {
                    r.for_each_leaf(f);
                }
            }
            Recipe::Priority { groups, .. } => {
                for r in groups {
                    r.for_each_leaf(f);
                }
            }
            leaf => f(leaf),
        }
    }

    /// True when some leaf looks at neighbours (the crowd then scans them for the group).
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        let mut any = false;
        self.for_each_leaf(&mut |r| {
            any |= matches!(
                r,
                Recipe::Separation(_)
                    | Recipe::Cohesion(_)
                    | Recipe::Alignment(_)
                    | Recipe::CollisionAvoidance(_)
            );
        });
        any
    }

    /// True when some leaf follows a path.
    #[must_use]
    pub fn follows_path(&self) -> bool {
        let mut any = false;
        self.for_each_leaf(&mut |r| any |= matches!(r, Recipe::FollowPath { .. }));
        any
    }
}

/// Most distinct separation settings one recipe may hold (each gets a running sum in the
/// single neighbour pass).
pub(crate) const MAX_SEPARATIONS: usize = 2;

/// What the single neighbour pass collects for the group leaves: separation, cohesion and
/// alignment are all sums over the neighbours, so one scan of the grid serves them all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Summary<V: Vector> {
    pub count: u32,
    /// Σ (p_j − p) (m): the minimum-image offsets, so cohesion works across a torus seam.
    pub offset: V,
    /// Σ v_j (m/s).
    pub velocity: V,
    /// Σ v̂_j (only when a heading alignment needs it).
    pub heading: V,
    /// One running sum per distinct separation of the recipe.
    pub separation: [SeparationSum<V>; MAX_SEPARATIONS],
}

/// What the step needs to know about a recipe, worked out once when the group is added.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub needs_neighbours: bool,
    /// A leaf needs the neighbours one by one (collision avoidance), not only their sums.
    pub needs_list: bool,
    pub needs_headings: bool,
    pub follows_path: bool,
    pub separations: Vec<Separation>,
}

impl Plan {
    pub(crate) fn new<V: Vector>(recipe: &Recipe<V>) -> Result<Self, ParamError> {
        let mut plan = Plan {
            needs_neighbours: recipe.needs_neighbours(),
            follows_path: recipe.follows_path(),
            ..Plan::default()
        };
        recipe.for_each_leaf(&mut |r| match r {
            Recipe::CollisionAvoidance(_) => plan.needs_list = true,
            Recipe::Alignment(a) => plan.needs_headings |= a.uses_headings(),
            Recipe::Separation(s) if !plan.separations.contains(s) => plan.separations.push(*s),
            _ => {}
        });
        if plan.separations.len() > MAX_SEPARATIONS {
            return Err(ParamError::OutOfRange {
                name: "separation",
                value: plan.separations.len() as f32,
                range: "at most 2 distinct separation settings per recipe",
            });
        }
        Ok(plan)
    }
}

/// Per-agent behaviour state (the part of a behaviour that is not shared).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BehaviourState<V: Vector> {
    /// Wander target relative to the wander centre (zero until first used).
    pub wander: V,
    /// Path parameter (m of arc length).
    pub path_param: f32,
    /// Seconds without progress (stuck detection).
    pub stalled: f32,
    /// The agent's generator, seeded from (world seed, agent id).
    pub rng: Rng,
}

/// What a recipe sees while evaluating one agent.
pub(crate) struct Context<'a, V: CrowdVector> {
    pub me: Kinematic<V>,
    pub radius: f32,
    pub limits: &'a Limits,
    pub dt: f32,
    pub goal: Option<V>,
    /// The neighbours one by one (only gathered when the plan needs the list).
    pub neighbours: &'a [Neighbour<V>],
    /// Their sums.
    pub summary: &'a Summary<V>,
    pub separations: &'a [Separation],
    pub paths: &'a [Polyline<V>],
    /// Other agents' kinematics by handle.
    pub agents: AgentView<'a, V>,
}

/// What evaluation reports beside the steering.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Notes<V: Vector> {
    /// The last target point a leaf steered for (debug drawing).
    pub target: Option<V>,
    /// An open path's end was reached this step.
    pub path_finished: bool,
}

/// Evaluates `recipe` for one agent. Allocates nothing.
pub(crate) fn evaluate<V: CrowdVector>(
    recipe: &Recipe<V>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let point = |t: &Target<V>, notes: &mut Notes<V>| -> Option<V> {
        let p = match t {
            Target::Point(p) => Some(*p),
            Target::Goal => cx.goal,
            Target::Agent(h) => cx.agents.kinematic(*h).map(|k| k.position),
        }?;
        notes.target = Some(p);
        Some(p)
    };
    match recipe {
        Recipe::Seek { target, seek } => seek.steer(me, point(target, notes)?, limits),
        Recipe::Flee { target, flee } => flee.steer(me, point(target, notes)?, limits),
        Recipe::Arrive { target, arrive } => arrive.steer(me, point(target, notes)?, limits),
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
        Recipe::Wander { radius, distance, jitter } => {
            let (radius, distance) = (*radius, *distance);
            let mut q = state.wander;
            if q == V::ZERO {
                q = V::random_clamped(&mut state.rng).normalize_or_zero() * radius;
            }
            q += V::random_clamped(&mut state.rng) * (jitter * cx.dt.max(0.0).sqrt());
            let unit = q.normalize_or_zero();
            if unit != V::ZERO {
                q = unit * radius;
            }
            state.wander = q;
            let heading = match me.velocity.normalize_or_zero() {
                h if h == V::ZERO => V::forward(me.orientation),
                h => h,
            };
            let reach = distance + radius;
            if reach <= 0.0 {
                return None;
            }
            let to_target = heading * distance + q;
            notes.target = Some(me.position + to_target);
            Some(SteeringOutput::linear(to_target * (limits.max_acceleration() / reach)))
        }
        Recipe::Separation(s) => {
            let k = cx.separations.iter().position(|x| x == s)?;
            s.finish(&cx.summary.separation[k], limits)
        }
        Recipe::Cohesion(c) => {
            let n = cx.summary.count;
            if n == 0 {
                return None;
            }
            let center = me.position + cx.summary.offset / n as f32;
            notes.target = Some(center);
            c.steer_to(me, center, limits)
        }
        Recipe::Alignment(a) => {
            let n = cx.summary.count;
            if n == 0 {
                return None;
            }
            let sum = if a.uses_headings() { cx.summary.heading } else { cx.summary.velocity };
            a.steer_to(me, sum / n as f32, limits)
        }
        Recipe::CollisionAvoidance(c) => c.steer(me, cx.radius, cx.neighbours, limits),
        Recipe::FollowPath { path, follow } => {
            let path = &cx.paths[path.0 as usize];
            let mut f = follow.starting_at(state.path_param);
            let s = f.steer(me, path, limits);
            state.path_param = f.current_param();
            notes.target = Some(f.target(path));
            if !path.is_looping() && f.is_finished(path, 1e-3) {
                notes.path_finished = true;
            }
            s
        }
        Recipe::Blend(members) => {
            Some(blend(members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, notes))), limits))
        }
        Recipe::RunningSum(members) => Some(running_sum(
            members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, notes))),
            limits,
        )),
        Recipe::Priority { groups, epsilon } => Some(prioritize(
            groups.iter().map(|r| evaluate(r, cx, state, notes).unwrap_or_default()),
            *epsilon,
        )),
    }
}
