//! The course project of the lectures, run on steerkit: the **Physical Travelling Salesman
//! Problem** (PTSP). A ship with inertia and friction must visit every waypoint of a 2D maze in
//! as few 40 ms steps as it can, choosing one of six actions each step (thrust on or off × turn
//! left, none or right); walls are the pixels of a map.
//!
//! - [`Map`]: the maze, read from a plain text file ([`map`] documents the format), and the
//!   shipped maps ([`builtin_map`], [`map::BUILTIN`]).
//! - [`Ship`] and [`Action`]: the dynamics, stated with their constants; the ship is a steerkit
//!   [`Vehicle`](steerkit::motor::Vehicle).
//! - [`race`] runs a [`Controller`] and returns a [`RaceLog`]: its [`Score`] and every step;
//!   optionally under the competition's real-time budgets ([`TimeRules`]).
//! - [`Reference`]: a strong controller from steerkit's parts (A* tour and path following,
//!   pixel-probe wall avoidance, try-every-action command choice); [`Naive`]: the baseline.
//!
//! Write your own by implementing [`Controller`] (one method) and pass it to [`race`].

pub mod controllers;
pub mod map;
pub mod plan;
mod race;
mod ship;

pub use controllers::{best_action, Naive, Reference, ReferenceSettings};
pub use map::{Map, MapError};
pub use plan::{Leg, Planner, TourMethod};
pub use race::{
    race, Controller, Notes, Outcome, Race, RaceLimits, RaceLog, RaceView, Score, StepLog,
    TimeRules, Timing,
};
pub use ship::{Action, Ship, Turn, STEP};

/// A shipped map by name: `open`, `rooms`, `maze`, `spiral` or `doors`.
#[must_use]
pub fn builtin_map(name: &str) -> Option<Map> {
    map::builtin(name)
}
