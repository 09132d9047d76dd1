//! steerkit: the movement layer of game AI.
//!
//! Steering behaviours return [steering outputs](kinematic::SteeringOutput) of
//! **accelerations** (m/s², rad/s²) for a [kinematic](kinematic::Kinematic) character with
//! [limits](kinematic::Limits); the caller integrates them with an explicit `dt`:
//!
//! ```
//! use steerkit::prelude::*;
//! let limits = Limits::new(5.0, 10.0, 4.0, 20.0)?;
//! let arrive = Arrive::new(0.25, 3.0, 0.1)?;
//! let mut agent = Kinematic::at_rest(Vec2::ZERO, 0.0);
//! for _ in 0..600 {
//!     let s = arrive.steer(&agent, Vec2::new(10.0, 4.0), &limits).unwrap_or_default();
//!     agent.integrate(&s, &limits, 1.0 / 60.0);
//! }
//! assert!((agent.position - Vec2::new(10.0, 4.0)).length() < 0.25);
//! # Ok::<(), steerkit::ParamError>(())
//! ```
//!
//! # Modules
//!
//! One module per domain, each named after what it holds, so a name reads in its context
//! (`pipeline::Goal`, `crowd::Target`, `formation::Team`):
//!
//! - [`math`]: conventions, the [`Vector`](math::Vector) trait over `Vec2` and `Vec3`, angle
//!   helpers, the 2½D ground mapping and the seeded [`Rng`](math::Rng).
//! - [`kinematic`]: the movement model: statics, kinematics, steering outputs, limits and
//!   integration (Millington §3.1).
//! - [`steering`]: the behaviours: seek to wander, group behaviours and flocking presets,
//!   path following, obstacle and wall avoidance, hide, Green's path techniques and pilot
//!   (Millington §3.2–3.3, Green, Buckland).
//! - [`three_d`]: align, face, look where you're going and wander with quaternions
//!   (Millington §3.9).
//! - [`combine`]: blending, priority groups, the running sum, dithering and Green's layering
//!   (Millington §3.4, Green, Buckland).
//! - [`pipeline`]: the steering pipeline: targeters, decomposers, constraints, actuator
//!   (Millington §3.4.5).
//! - [`geometry`]: shapes, ray casts, the obstacle set and the collision detector
//!   (Millington §3.3.15).
//! - [`neighbours`]: how group behaviours see other agents.
//! - [`path`]: paths to follow, with coherent parameters.
//! - [`predict`]: ballistics: trajectories, landing spots, firing solutions, drag, grenades
//!   (Millington §3.5).
//! - [`jump`]: jump velocity, jump points, landing pads and the jump behaviour (Millington §3.6).
//! - [`motor`]: from steering requests to what a vehicle or a body can do (Millington §3.8).
//! - [`formation`]: formations, slot assignment, plays and tactical movement (Millington §3.7).
//! - [`crowd`]: the deterministic, parallel crowd engine and its behaviour recipes.
//! - [`prelude`]: the names most programs need, for `use steerkit::prelude::*`.
//!
//! The root holds only [`glam`] and its `Vec2`, `Vec3` and `Quat`, and [`ParamError`], which
//! every constructor returns.
//!
//! Conventions (see `ARCHITECTURE.md`): SI units; 2D in the x–y plane with angles
//! counter-clockwise from +x; 3D y-up with characters looking down local +x; no global random
//! generator or clock.
#![warn(missing_docs)]

pub mod combine;
pub mod crowd;
pub mod formation;
pub mod geometry;
pub mod jump;
pub mod kinematic;
pub mod math;
pub mod motor;
pub mod neighbours;
pub mod path;
pub mod pipeline;
pub mod predict;
pub mod prelude;
pub mod steering;
pub mod three_d;

// Crate-private building blocks: `error` holds the validation behind [`ParamError`] (published
// here at the root); `lanes` is the eight-lane vector of the crowd scan and of separation.
mod error;
mod lanes;

pub use error::ParamError;
pub use glam;
pub use glam::{Quat, Vec2, Vec3};

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
