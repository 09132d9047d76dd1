//! The `steerkit` command's library: running scenarios, recordings of runs and what is made
//! from them.
//!
//! - [`run`]: runs a scenario, measures it ([`run::Metrics`], `metrics.json`) and writes
//!   `trajectories.csv`, `replay.html` and `snapshot.svg`.
//! - [`gallery`]: the built-in scenarios (the files of `scenarios/`).
//! - [`recording`]: the data model of a run (metadata, world, groups, frames, debug overlays,
//!   events, metrics) with its JSON schema, and the [`recording::Recorder`] that fills it
//!   (`steerkit_scenario::recording`, which the live playground shares).
//! - [`replay`]: `replay.html`, one self-contained file with a canvas player.
//! - [`snapshot`]: `snapshot.svg`, the final frame with trails.
//! - [`ptsp`]: `steerkit ptsp`, the course project's race (score, trajectory, replay).
#![warn(missing_docs)]

pub use steerkit_scenario::ballistics;
pub mod gallery;
pub use steerkit_scenario::platform;
pub mod ptsp;
pub use steerkit_scenario::recording;
pub mod replay;
pub mod run;
pub mod snapshot;
