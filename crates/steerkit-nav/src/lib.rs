//! Navigation across a level for steerkit crowds.
//!
//! A crowd steers an agent to a goal it can see; across a level with rooms, doors and pillars
//! it needs a route. This crate supplies that layer, and nothing else:
//!
//! - [`NavMesh`]: the walkable area of a [`Level`] (its outline minus its obstacles) shrunk by
//!   an agent radius plus a clearance, triangulated (constrained Delaunay) and merged into
//!   convex polygons. One mesh per body radius.
//! - Paths: the shortest any-angle path between two points of the mesh (Polyanya, Cui,
//!   Harabor & Grastien 2017: optimal, string-pulled by construction), from and to the nearest
//!   walkable points; a goal that cannot be reached gives the nearest reachable point instead.
//! - [`Route`]: an agent's path as corners, trimmed as the agent passes them (not re-planned
//!   each step), with the turn anticipated: the steering point slides onto the next leg before
//!   the corner, no further than keeps the cut inside the clearance.
//! - [`Navigator`]: the routes of a crowd's navigating agents, re-planned when the goal moves,
//!   when an agent is pushed off its route and every `replan_interval`, under a per-step
//!   budget, in parallel, deterministically. Each step it hands every agent its
//!   [`Waypoint`](steerkit::crowd::Waypoint), which the crowd's
//!   [`Recipe::Navigate`](steerkit::crowd::Recipe::Navigate) leaf steers for, with ORCA or
//!   steering avoidance on top.
//!
//! Coordinates are the crowd's plane (m); the mesh is 2D.

mod edges;
mod lanes;
mod level;
mod mesh;
mod navigator;
mod passage;
mod route;
mod turns;

pub use level::{Level, NavError};
pub use mesh::{NavMesh, Path};
pub use navigator::{
    NavEvent, NavSettings, Navigator, ABREAST_ORDER, FIRST_ROUTE_TIME, SINGLE_FILE,
};
pub use passage::Passage;
pub use route::Route;
