//! The pairwise scan of gaps and overlaps between bodies (see [`super`]'s module docs for what
//! is measured), in memory proportional to the crowd whatever its shape.
//!
//! The smallest gap, the deepest overlap and the pair-steps are running numbers. Counting an
//! overlap once per contact needs last step's overlapping pairs: they are kept as a sorted list,
//! at most [`MAX_TRACKED_PAIRS`] per agent (the pairs an agent finds with the agents after it in
//! the scan). A pile deeper than that (the crowd converging on one point, say) would otherwise
//! keep a number of pairs growing with the square of the pile: 20 000 bodies on one point are
//! 2·10⁸ pairs, gigabytes. An agent past the cap is marked, and a pair with a marked agent is
//! not counted as a new contact on the next step (it may have been overlapping all along), so
//! `agent_overlaps` is a lower bound for such piles; `overlap_pair_steps`, `max_overlap` and
//! `min_separation` stay exact.

use crate::Dim;
use steerkit::crowd::{AgentHandle, Crowd};
use steerkit::neighbours::{NeighbourQuery, Neighbours};

/// Overlapping pairs remembered per agent from one step to the next (a body in a hexagonal
/// packing touches 6 others in 2D, 12 in 3D).
pub const MAX_TRACKED_PAIRS: usize = 16;

/// The scan's running numbers and last step's pairs.
pub(crate) struct PairScan {
    pub(crate) neighbour_radius: f32,
    pub(crate) tolerance: f32,
    /// Pairs (storage slot indices, smaller first) overlapping after the last scan, sorted.
    overlapping: Vec<(u32, u32)>,
    /// Scratch for this scan's pairs, swapped with `overlapping`.
    overlapping_now: Vec<(u32, u32)>,
    /// By slot index: the agent had more overlapping pairs than were kept, last scan / now.
    overflowed: Vec<bool>,
    overflowed_now: Vec<bool>,
    /// By slot index: bodies left out of the scan (side-view jumpers, which overlap by design).
    ignored: Vec<bool>,
    pub(crate) overlaps: u64,
    pub(crate) max_overlap: f32,
    /// Pair-steps beyond the tolerance.
    pub(crate) pair_steps: u64,
    pub(crate) min_gap: f32,
}

impl PairScan {
    pub(crate) fn new(neighbour_radius: f32, tolerance: f32) -> Self {
        Self {
            neighbour_radius,
            tolerance,
            overlapping: Vec::new(),
            overlapping_now: Vec::new(),
            overflowed: Vec::new(),
            overflowed_now: Vec::new(),
            ignored: Vec::new(),
            overlaps: 0,
            max_overlap: 0.0,
            pair_steps: 0,
            min_gap: f32::INFINITY,
        }
    }

    /// Leaves `h` out of every scan.
    pub(crate) fn ignore(&mut self, h: AgentHandle) {
        let i = h.index as usize;
        if self.ignored.len() <= i {
            self.ignored.resize(i + 1, false);
        }
        self.ignored[i] = true;
    }

    /// Scans the committed state and returns this step's smallest gap (infinite when no two
    /// agents are within reach).
    pub(crate) fn scan<V: Dim>(&mut self, crowd: &mut Crowd<V>) -> f32 {
        let mut frame_min_gap = f32::INFINITY;
        self.overlapping_now.clear();
        // the grid query re-sorts the storage when agents moved: read everything after it
        let _ = crowd.neighbours();
        let handles: Vec<AgentHandle> = crowd.handles().collect();
        let slots = handles.iter().map(|h| h.index as usize + 1).max().unwrap_or(0);
        self.overflowed.resize(slots, false);
        self.overflowed_now.clear();
        self.overflowed_now.resize(slots, false);
        let ignored = &self.ignored;
        let skip: Vec<bool> = handles
            .iter()
            .map(|&h| crowd.is_quarantined(h) || ignored.get(h.index as usize) == Some(&true))
            .collect();
        let radii = crowd.radii().to_vec();
        let positions = crowd.positions().to_vec();
        let max_r = radii.iter().copied().fold(0.0f32, f32::max);
        let grid = crowd.neighbours();
        for (i, &p) in positions.iter().enumerate() {
            if skip[i] {
                continue;
            }
            let ri = radii[i];
            let q = NeighbourQuery::around(i, p, ri + max_r + self.neighbour_radius);
            let mut kept = 0;
            grid.for_each_within(&q, |nb| {
                if nb.index < i || skip[nb.index] {
                    return; // each pair once; frozen agents are out of the world
                }
                let gap = nb.distance_squared.sqrt() - ri - nb.radius;
                frame_min_gap = frame_min_gap.min(gap);
                self.max_overlap = self.max_overlap.max(-gap);
                if -gap > self.tolerance {
                    self.pair_steps += 1;
                    let (a, b) = (handles[i].index, handles[nb.index].index);
                    if kept < MAX_TRACKED_PAIRS {
                        self.overlapping_now.push((a.min(b), a.max(b)));
                        kept += 1;
                    } else {
                        self.overflowed_now[a as usize] = true;
                        self.overflowed_now[b as usize] = true;
                    }
                }
            });
        }
        self.overlapping_now.sort_unstable();
        for &(a, b) in &self.overlapping_now {
            let known = self.overflowed[a as usize] || self.overflowed[b as usize];
            if !known && self.overlapping.binary_search(&(a, b)).is_err() {
                self.overlaps += 1;
            }
        }
        std::mem::swap(&mut self.overlapping, &mut self.overlapping_now);
        std::mem::swap(&mut self.overflowed, &mut self.overflowed_now);
        self.min_gap = self.min_gap.min(frame_min_gap);
        frame_min_gap
    }
}
