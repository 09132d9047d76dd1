//! The block of one cell: its runs of storage and its gathered candidates, worked out once
//! and shared by the cell's agents.

use super::*;
use crate::crowd::grid::Grid;
use crate::crowd::CrowdVector;

/// The block of one cell (3×3(×3) cells, or 5×5(×5) half cells), worked out once and shared
/// by every agent of the cell (agents are sorted by cell, so consecutive agents reuse it): its
/// runs of storage, and for the scalar scans its candidates gathered with their positions
/// moved to the image nearest the cell, so the per-agent scan is one subtraction each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block<V: CrowdVector> {
    pub(super) cell: Option<u32>,
    /// Storage indices of the cell's own agents: an agent in this range is in the cell
    /// (storage is sorted by cell), so its cell need not be computed again.
    pub(super) members: core::ops::Range<usize>,
    /// Where the first member sits in the block (the block holds the cell's own agents as one
    /// contiguous stretch), so an agent skips itself by position, not by a test per candidate.
    pub(super) first_member: usize,
    /// The block needs the per-candidate minimum image (a torus too small for it): scan the
    /// runs instead.
    pub(super) min_image: bool,
    /// The block's runs of storage (`start..end`) with the shift (m) that moves them to the
    /// image nearest the cell: all the data-parallel scan needs.
    pub(super) runs: Vec<(u32, u32, [f32; 3])>,
    /// Each run's band of rows, shifted as the run (`[y_lo, y_hi, z_lo, z_hi]`, m, a little
    /// wider than the cells): no agent of the run lies outside it, so a search for the nearest
    /// skips a run whose band is farther than the farthest it keeps.
    pub(super) bands: Vec<[f32; 4]>,
    /// `position` and `index` hold the block (gathered only for the scalar scans).
    pub(super) gathered: bool,
    pub(super) position: Vec<V>,
    pub(super) index: Vec<u32>,
    /// The accepted candidates of the current agent (block positions); as long as the block.
    pub(super) accepted: Vec<u32>,
    /// Accepted candidates ranked by squared distance, for a topological neighbourhood.
    pub(super) ranked: Vec<(f32, u32, V)>,
    /// The nearest accepted candidates so far (key, offset), for ORCA's nearest neighbours.
    pub(super) best: Vec<(u64, V)>,
    /// Sparse grid: a cursor into the occupied cells per row of the block (by its offset from
    /// the cell's row), kept from cell to cell.
    pub(super) cursors: [usize; 25],
}

/// The cells of a block along one axis: up to two runs `lo..=hi` of cells with the shift (m)
/// that moves them to the image nearest the block's cell.
#[derive(Clone, Copy)]
struct BlockAxis {
    pub(super) runs: [(usize, usize, f32); 2],
    pub(super) n: usize,
}

impl BlockAxis {
    /// Cell `c` and the `reach` cells on each side on an axis of `dims` cells, `None` when a
    /// torus axis is too short for distinct images (fewer than `2·reach + 2` cells).
    #[inline]
    pub(super) fn new(
        c: usize,
        reach: usize,
        dims: usize,
        size: f32,
        toroidal: bool,
    ) -> Option<Self> {
        let one = |lo, hi| BlockAxis { runs: [(lo, hi, 0.0), (0, 0, 0.0)], n: 1 };
        if !toroidal {
            return Some(one(c.saturating_sub(reach), (c + reach).min(dims - 1)));
        }
        if dims < 2 * reach + 2 {
            return None;
        }
        Some(if c < reach {
            // the low end wraps to the top of the axis, one period down
            BlockAxis { runs: [(dims + c - reach, dims - 1, -size), (0, c + reach, 0.0)], n: 2 }
        } else if c + reach >= dims {
            BlockAxis { runs: [(c - reach, dims - 1, 0.0), (0, c + reach - dims, size)], n: 2 }
        } else {
            one(c - reach, c + reach)
        })
    }
}

impl<V: CrowdVector> Block<V> {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.position.capacity() * size_of::<V>()
            + self.runs.capacity() * size_of::<(u32, u32, [f32; 3])>()
            + self.bands.capacity() * size_of::<[f32; 4]>()
            + self.index.capacity() * 4
            + self.accepted.capacity() * 4
            + self.best.capacity() * size_of::<(u64, V)>()
    }

    /// Forgets the block (the storage was re-sorted).
    pub(crate) fn clear(&mut self) {
        self.cell = None;
    }

    /// Gathers the block of the cell at grid coordinates `at`: the cell and its neighbours,
    /// which hold every agent within one neighbour radius (≤ the cell edge) of any point of
    /// the cell. Runs come in the order of `Grid::for_each_run` (z, y, then x; a wrapped run
    /// first), so the sums keep their order.
    pub(super) fn fill(&mut self, s: &Storage<'_, V>, cell: u32, at: [usize; 3]) {
        let g = s.grid;
        let start = g.cell_start[cell as usize] as usize;
        self.cell = Some(cell);
        self.members = start..g.cell_start[cell as usize + 1] as usize;
        self.gathered = false;
        if !self.interior_runs(g, start, at) {
            self.any_runs(g, cell, start, at);
        }
    }

    /// The common case, a cell of a dense 2D grid clear of its edges (and of a torus wide
    /// enough for distinct images): one run per row of the block, none shifted, as
    /// [`any_runs`](Self::any_runs) would find them. `false` (nothing done) for other cells.
    #[inline]
    pub(super) fn interior_runs(&mut self, g: &Grid, start: usize, at: [usize; 3]) -> bool {
        let r = g.reach;
        let wide = |d: usize| !g.toroidal || d >= 2 * r + 2;
        let (x, y) = (at[0], at[1]);
        if V::DIM == 2
            && !g.sparse
            && (x >= r && x + r < g.dims[0] && wide(g.dims[0]))
            && (y >= r && y + r < g.dims[1] && wide(g.dims[1]))
        {
            self.runs.clear();
            self.bands.clear();
            (self.min_image, self.first_member) = (false, 0);
            let mut len = 0;
            for row in y - r..=y + r {
                let (lo, hi) = g.band(1, row);
                self.bands.push([lo, hi, f32::NEG_INFINITY, f32::INFINITY]);
                let base = row * g.dims[0];
                let a = g.cell_start[base + x - r] as usize;
                let b = g.cell_start[base + x + r + 1] as usize;
                if a <= start && start < b {
                    self.first_member = len + (start - a);
                }
                len += b - a;
                self.runs.push((a as u32, b as u32, [0.0; 3]));
            }
            return true;
        }
        false
    }

    /// The block's runs for any cell (`start`: the storage index of its first agent).
    pub(super) fn any_runs(&mut self, g: &Grid, cell: u32, start: usize, at: [usize; 3]) {
        self.runs.clear();
        self.bands.clear();
        self.first_member = 0;
        let mut axes = [BlockAxis { runs: [(0, 0, 0.0); 2], n: 1 }; 3];
        for a in 0..V::DIM {
            match BlockAxis::new(at[a], g.reach, g.dims[a], g.size[a], g.toroidal) {
                Some(axis) => axes[a] = axis,
                None => {
                    self.min_image = true;
                    return;
                }
            }
        }
        self.min_image = false;
        let dy = g.dims[1];
        let mut len = 0;
        for &(z0, z1, sz) in &axes[2].runs[..axes[2].n] {
            for z in z0..z1 + 1 {
                for &(y0, y1, sy) in &axes[1].runs[..axes[1].n] {
                    for y in y0..y1 + 1 {
                        for &(x0, x1, sx) in &axes[0].runs[..axes[0].n] {
                            let ((y_lo, y_hi), (z_lo, z_hi)) = (g.band(1, y), g.band(2, z));
                            let band = [y_lo + sy, y_hi + sy, z_lo + sz, z_hi + sz];
                            let push = |a: usize, b: usize| {
                                if a <= start && start < b {
                                    self.first_member = len + (start - a);
                                }
                                len += b - a;
                                self.runs.push((a as u32, b as u32, [sx, sy, sz]));
                                self.bands.push(band);
                            };
                            if g.sparse && y == at[1] && z == at[2] {
                                // the cell's own row: its neighbours are the adjacent ranks
                                g.own_row_run(cell as usize, x0, x1, push);
                            } else if g.sparse && g.reach <= 2 {
                                // the row's cursor, by its offset from the cell's row (a sparse
                                // grid is never a torus, so the offsets lie in −2..=2)
                                let row = (z + 2 - at[2]) * 5 + (y + 2 - at[1]);
                                let base = ((z * dy + y) * g.dims[0]) as u64;
                                let lo = base + x0 as u64;
                                g.sparse_run_from(
                                    &mut self.cursors[row],
                                    lo,
                                    base + x1 as u64,
                                    push,
                                );
                            } else {
                                g.row_run(z * dy + y, x0, x1, push);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Copies the block's candidates (positions moved to their image, storage indices) for
    /// the scalar scans.
    pub(super) fn gather(&mut self, s: &Storage<'_, V>) {
        if self.gathered {
            return;
        }
        self.gathered = true;
        self.position.clear();
        self.index.clear();
        for &(a, b, shift) in &self.runs {
            let (a, b, shift) = (a as usize, b as usize, V::from_axes(shift));
            // slice extends: one capacity check per run, not per candidate
            self.index.extend(a as u32..b as u32);
            self.position.extend(s.position[a..b].iter().map(|&p| p + shift));
        }
        self.accepted.resize(self.position.len(), 0);
    }

    /// Makes the block the one of agent `i`'s cell (`centre` is its position).
    #[inline(always)]
    pub(super) fn prepare(&mut self, s: &Storage<'_, V>, i: usize, centre: V) {
        if self.cell.is_none() || !self.members.contains(&i) {
            self.enter(s, i, centre);
        }
    }

    /// The first agent of another cell: find the cell (once per cell, so out of line). A
    /// sparse grid's cell is the one whose storage holds `i` (the next after this block's, for
    /// agents taken in storage order), which needs no lookup of the position's key.
    #[inline(never)]
    pub(super) fn enter(&mut self, s: &Storage<'_, V>, i: usize, centre: V) {
        let (cell, at) = if s.grid.sparse {
            s.grid.sparse_cell_holding(i, self.cell)
        } else {
            s.grid.cell_and_coordinates(centre)
        };
        if self.cell != Some(cell) {
            self.fill(s, cell, at);
        }
    }
}
