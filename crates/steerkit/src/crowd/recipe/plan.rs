//! What the step works out about a recipe once per group (its plan, the neighbour summary it
//! needs) and what it hands the evaluation per agent (context, state, notes).

use super::custom::CustomEntry;
use super::*;
use crate::crowd::AgentView;
use crate::crowd::CrowdVector;
use crate::error::ParamError;
use crate::formation::SlotTarget;
use crate::geometry::ObstacleSet;
use crate::kinematic::{Kinematic, Limits};
use crate::math::Rng;
use crate::math::Vector;
use crate::neighbours::Neighbour;
use crate::path::Polyline;
use crate::pipeline::GridGraph;
use crate::steering::{ObstacleAvoidance, Separation, SeparationSum, Stateful};

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
    /// A leaf averages the neighbours' velocities (`Summary::velocity`).
    pub needs_velocities: bool,
    pub follows_path: bool,
    /// Some leaf avoids obstacles: its agents need the avoidance state (a side array).
    pub avoids_obstacles: bool,
    pub separations: Vec<Separation>,
    /// The recipe is a kinematic leaf: its output's linear part is a velocity (m/s) and its
    /// angular part a rotation (rad/s), applied by commit instead of being integrated.
    pub kinematic: bool,
    /// The pipeline leaf's planning grid (built from the crowd's obstacles; see
    /// [`Plan::build_grid`]).
    pub grid: Option<GridGraph>,
    /// The group behaviours' sums see only this many nearest neighbours
    /// ([`Group::nearest`](crate::crowd::Group::nearest)).
    pub nearest: Option<u32>,
}

impl Plan {
    pub(crate) fn new<V: CrowdVector>(
        recipe: &Recipe<V>,
        customs: &[CustomEntry<V>],
    ) -> Result<Self, ParamError> {
        let mut plan = Plan {
            follows_path: recipe.follows_path(),
            kinematic: recipe.kinematic_kind().is_some(),
            ..Plan::default()
        };
        let separation = |s: &Separation, plan: &mut Plan| {
            if !plan.separations.contains(s) {
                plan.separations.push(*s);
            }
        };
        recipe.for_each_leaf(&mut |r| {
            let info = r.kind().info();
            plan.needs_neighbours |= info.neighbours;
            plan.needs_list |= info.neighbour_list;
            plan.avoids_obstacles |= info.avoidance;
            // what depends on a leaf's parameters, not only its kind
            match r {
                Recipe::Alignment(a) => {
                    plan.needs_headings |= a.uses_headings();
                    plan.needs_velocities |= !a.uses_headings();
                }
                Recipe::Separation(s) => separation(s, &mut plan),
                Recipe::MillingtonFlock(f) => {
                    separation(&f.separation, &mut plan);
                    plan.needs_velocities = true;
                }
                Recipe::BucklandFlock(f) => {
                    separation(&f.separation, &mut plan);
                    plan.needs_headings |= f.alignment.uses_headings();
                    plan.needs_velocities |= !f.alignment.uses_headings();
                }
                Recipe::Custom(id)
                    if customs.get(id.0 as usize).is_some_and(|c| c.0.needs_neighbours()) =>
                {
                    plan.needs_neighbours = true;
                    plan.needs_list = true;
                }
                _ => {}
            }
        });
        let mut pipelines = 0;
        recipe
            .for_each_leaf(&mut |r| pipelines += usize::from(matches!(r, Recipe::Pipeline { .. })));
        if pipelines > 1 {
            return Err(ParamError::Count {
                name: "pipeline",
                count: pipelines,
                expected: "at most 1 pipeline leaf per recipe (its grid is the group's)",
            });
        }
        if plan.separations.len() > MAX_SEPARATIONS {
            return Err(ParamError::Count {
                name: "separation",
                count: plan.separations.len(),
                expected: "at most 2 distinct separation settings per recipe",
            });
        }
        Ok(plan)
    }

    /// (Re)builds the pipeline leaf's grid from `obstacles` (a free grid without them). Called
    /// when the group is added or replaced and when the obstacles change.
    pub(crate) fn build_grid<V: Vector>(
        &mut self,
        recipe: &Recipe<V>,
        obstacles: Option<&ObstacleSet>,
    ) -> Result<(), ParamError> {
        let mut leaf = None;
        recipe.for_each_leaf(&mut |r| {
            if let Recipe::Pipeline { bounds, cell_size, clearance, .. } = r {
                leaf = Some((*bounds, *cell_size, *clearance));
            }
        });
        self.grid = match leaf {
            Some((bounds, cell, clearance)) => Some(match obstacles {
                Some(set) => GridGraph::from_obstacles(bounds, cell, set, clearance)?,
                None => GridGraph::from_obstacles(
                    bounds,
                    cell,
                    &ObstacleSet::new(std::iter::empty())?,
                    clearance,
                )?,
            }),
            None => None,
        };
        Ok(())
    }
}

/// Per-agent behaviour state (the part of a behaviour that is not shared).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BehaviourState<V: Vector> {
    /// Wander target relative to the wander centre (zero until first used).
    pub wander: V,
    /// Path parameter (m of arc length); NaN until a path leaf first places the agent (the
    /// nearest point of the whole path, then a coherent search).
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
    /// Where a navigating agent heads next (with a goal only).
    pub waypoint: Option<crate::crowd::Waypoint<V>>,
    /// The neighbours one by one (only gathered when the plan needs the list).
    pub neighbours: &'a [Neighbour<V>],
    /// Their sums.
    pub summary: &'a Summary<V>,
    pub separations: &'a [Separation],
    pub paths: &'a [Polyline<V>],
    /// The static world (`ObstacleSet` in 2D, `ObstacleSet3` in 3D).
    pub obstacles: Option<&'a V::Obstacles>,
    /// The group's pipeline grid, if its recipe has a pipeline leaf.
    pub grid: Option<&'a GridGraph>,
    /// The agent's formation slot, if it is in a formation (2D).
    pub slot_target: Option<SlotTarget>,
    /// Distance (m) to an open path's end at which a path technique is finished (the group's
    /// arrive radius).
    pub finish: f32,
    /// The agent has finished its path ([`Recipe::Sequence`] hands over).
    pub path_done: bool,
    /// Other agents' kinematics by handle.
    pub agents: AgentView<'a, V>,
    /// The behaviours registered with the crowd (`Recipe::Custom`).
    pub customs: &'a [CustomEntry<V>],
    /// Places to get away from this step ([`Recipe::FleeHazards`]).
    pub hazards: &'a [crate::crowd::Hazard<V>],
    /// The vehicle the agent is driven through, if any: path following and arrive then plan
    /// their speed from its limits ([`PathTracker`](crate::motor::PathTracker)).
    pub motor: Option<&'a crate::motor::Motor>,
}

/// What evaluation reports beside the steering.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Notes<V: Vector> {
    /// The last target point a leaf steered for (debug drawing).
    pub target: Option<V>,
    /// An open path's end was reached this step.
    pub path_finished: bool,
}

/// Obstacle avoidance's per-agent state ([`Stateful`]); zero until first used. Kept in a side
/// array that exists only while some group avoids obstacles.
pub(crate) type AvoidState = <ObstacleAvoidance as Stateful>::State;
