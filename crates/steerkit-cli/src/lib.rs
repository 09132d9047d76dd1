//! The `steerkit` command's library: recordings of runs and what is made from them.
//!
//! - [`recording`]: the data model of a run (metadata, world, groups, frames, debug overlays,
//!   events, metrics) with its JSON schema, and the [`recording::Recorder`] that fills it.
//! - [`replay`]: `replay.html`, one self-contained file with a canvas player.
//! - [`snapshot`]: `snapshot.svg`, the final frame with trails.
#![warn(missing_docs)]

pub mod recording;
pub mod replay;
pub mod snapshot;
