//! Green's pilot metrics (DK2, §19): how far along its path a character is, whether it is
//! stuck, and how crowded its next waypoint is; each a number in [0, 1]. A stuck pilot asks for
//! a new path through the [`PilotEvent`] its update returns.

use crate::error::{positive, ParamError};
use crate::math::Vector;
use crate::neighbours::{NeighbourQuery, Neighbours};
use crate::path::{Path, Polyline};
use core::f32::consts::PI;

/// What a pilot's [`update`](Pilot::update) reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PilotEvent {
    /// Still travelling, not stuck.
    Travelling,
    /// `is_finished_path` reached 1: at the destination.
    Finished,
    /// `is_stuck` reached the threshold: re-path (then call [`Pilot::renav`]).
    Stuck,
}

/// Progress bookkeeping for one character on one path.
///
/// ```text
/// distance_to_go = |p − current waypoint| + arc length from that waypoint to the end
/// is_finished_path = clamp(1 − distance_to_go / total, 0, 1)    total stored at (re)nav;
///                    1 within the arrival tolerance of the end
/// history = (history << 1) | (is_finished_path increased)         a 32-update window
/// is_stuck = 1 − popcount(history) / 32
/// ```
/// A single setback weighs on `is_stuck` for 32 updates ("overall the effect is good", Green).
/// After [`renav`](Self::renav) the history is full (assumed progressing). A zero-length path is
/// finished at once.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pilot {
    stuck_threshold: f32,
    tolerance: f32,
    total: f32,
    finished: f32,
    history: u32,
}

impl Pilot {
    /// Updates in the progress window.
    pub const WINDOW: u32 = 32;

    /// A pilot that reports [`PilotEvent::Stuck`] when `is_stuck ≥ stuck_threshold` (in (0, 1]).
    ///
    /// # Errors
    /// If the threshold is not in (0, 1].
    pub fn new(stuck_threshold: f32) -> Result<Self, ParamError> {
        let t = positive("stuck_threshold", stuck_threshold)?;
        if t > 1.0 {
            return Err(ParamError::OutOfRange {
                name: "stuck_threshold",
                value: t,
                range: "in (0, 1]",
            });
        }
        Ok(Pilot {
            stuck_threshold: t,
            tolerance: 0.0,
            total: 0.0,
            finished: 0.0,
            history: u32::MAX,
        })
    }

    /// Count the path as finished (`is_finished_path = 1`) within `tolerance` m of the end, as
    /// an arrival that stops inside its target radius needs (default 0).
    ///
    /// # Errors
    /// If `tolerance` is negative or not finite.
    pub fn with_arrival_tolerance(mut self, tolerance: f32) -> Result<Self, ParamError> {
        self.tolerance = crate::error::non_negative("arrival_tolerance", tolerance)?;
        Ok(self)
    }

    /// The distance still to travel (m) from `position` heading for waypoint `waypoint`.
    /// An index past the end counts as the last waypoint.
    #[must_use]
    pub fn distance_to_go<V: Vector>(path: &Polyline<V>, position: V, waypoint: usize) -> f32 {
        let last = path.points().len() - 1;
        let i = waypoint.min(last);
        let from = if path.is_looping() && i == 0 && last > 0 {
            // waypoint 0 of a loop as the target closes the lap
            path.length()
        } else {
            path.waypoint_param(i).unwrap_or(0.0)
        };
        (path.points()[i] - position).length() + (path.length() - from).max(0.0)
    }

    /// Starts (or restarts after a re-path) on `path` from `position`, heading for `waypoint`.
    pub fn renav<V: Vector>(&mut self, path: &Polyline<V>, position: V, waypoint: usize) {
        self.total = Self::distance_to_go(path, position, waypoint);
        self.finished = if self.total > 0.0 { 0.0 } else { 1.0 };
        self.history = u32::MAX;
    }

    /// Records one update's progress and reports the pilot's state.
    pub fn update<V: Vector>(
        &mut self,
        path: &Polyline<V>,
        position: V,
        waypoint: usize,
    ) -> PilotEvent {
        let to_go = Self::distance_to_go(path, position, waypoint);
        let finished = if to_go <= self.tolerance {
            1.0
        } else if self.total > 0.0 && to_go.is_finite() {
            (1.0 - to_go / self.total).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let progressed = finished > self.finished;
        self.history = (self.history << 1) | u32::from(progressed);
        self.finished = finished;
        if finished >= 1.0 {
            PilotEvent::Finished
        } else if self.is_stuck() >= self.stuck_threshold {
            PilotEvent::Stuck
        } else {
            PilotEvent::Travelling
        }
    }

    /// Green's `is_finished_path`: the fraction of the path done, in [0, 1].
    #[must_use]
    pub fn is_finished_path(&self) -> f32 {
        self.finished
    }

    /// Green's `is_stuck`: the share of the last 32 updates without progress, in [0, 1].
    #[must_use]
    pub fn is_stuck(&self) -> f32 {
        1.0 - self.history.count_ones() as f32 / Self::WINDOW as f32
    }

    /// The stored total distance of the current path (m).
    #[must_use]
    pub fn total_distance(&self) -> f32 {
        self.total
    }
}

/// Green's `is_crowded`: the summed body areas `Σ π r²` of the neighbours `query` finds (centred
/// on the next waypoint, excluding the asking character) divided by `area_threshold` (m²), at
/// most 1. 0 when nobody is there.
///
/// # Errors
/// If `area_threshold` is not finite and positive.
pub fn is_crowded<V: Vector, N: Neighbours<V> + ?Sized>(
    neighbours: &N,
    query: &NeighbourQuery<V>,
    area_threshold: f32,
) -> Result<f32, ParamError> {
    let threshold = positive("area_threshold", area_threshold)?;
    let mut area = 0.0f32;
    neighbours.for_each_within(query, |n| area += PI * n.radius * n.radius);
    Ok((area / threshold).clamp(0.0, 1.0))
}
