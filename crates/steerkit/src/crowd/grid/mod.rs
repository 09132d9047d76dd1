//! The uniform grid over agents (Green's bucket grid, Buckland's cell-space partition), rebuilt
//! every step by a counting sort so that each cell's agents are contiguous in the crowd's
//! structure-of-arrays storage.
//!
//! A query turns its search box into at most two runs of cells per axis (two when a toroidal
//! axis wraps); in 2D each row of cells is one contiguous run of agents. A wrapped run carries
//! the shift (±world size) that turns a candidate's position into its nearest image, so the
//! minimum image costs one add per run, not a rounding per candidate.
//!
//! A bounded or unbounded world whose agents fill a small part of their bounding box (a ring,
//! clusters far apart, one straggler far away) would need more cells than the memory budget
//! allows, and a dense grid would grow its cells until each block held far more agents than
//! the neighbour radius does. There the grid is *sparse*: cells keep the neighbour radius and
//! only the occupied ones exist, numbered in the order of their keys (row-major index), each
//! occupied row found through a hash table and its cells by bisection, so a row of cells is
//! still one contiguous run of agents and the cost per agent follows the crowd's density, not
//! the world's extent.

// `!(a <= b)` is deliberate: NaN fails the comparison and is rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::space::WorldBounds;
use super::CrowdVector;
use core::ops::Range;
#[cfg(feature = "parallel")]
use rayon::prelude::*;

mod key_table;
mod neighbours;

use key_table::{KeyTable, EMPTY};
pub use neighbours::GridNeighbours;

/// Upper bound on cells per agent in unbounded/bounded worlds (the cell grows beyond the
/// neighbour radius when agents are spread over a huge area, keeping memory O(n)).
const CELLS_PER_AGENT: usize = 4;

/// Agents per radius-sized cell above which the grid uses half cells (see [`Grid::layout`]).
const DENSE: f64 = 12.0;

/// `⌊x⌋` as an integer without a libm call (the default x86-64 target has no SSE4.1
/// rounding); NaN gives 0 and huge values saturate.
#[inline(always)]
fn floor_i64(x: f32) -> i64 {
    let t = x as i64;
    if (t as f32) > x {
        // below −2⁶³, `t` saturated: stay there rather than wrap to the top
        t.saturating_sub(1)
    } else {
        t
    }
}

/// `⌊extent / cell⌋`, or `usize::MAX` when that is more than `budget` cells (the layout then
/// grows the cell): the conversion never saturates into a wrong count, however wide the world.
#[inline]
fn cells_along(extent: f32, cell: f32, budget: usize) -> usize {
    let d = (extent / cell).floor();
    if d <= budget as f32 {
        d as usize
    } else {
        usize::MAX
    }
}

/// Cell structure of the grid (the positions live in the crowd's arrays).
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    /// Smallest cell edge (m) over the axes, and the inverse edge per axis (a torus tiles each
    /// axis with a whole number of cells, so edges differ slightly between axes).
    pub cell: f32,
    pub inv_cell: [f32; 3],
    pub origin: [f32; 3],
    pub dims: [usize; 3],
    /// Torus size per axis (0 when not toroidal).
    pub size: [f32; 3],
    pub toroidal: bool,
    /// Cells on each side of a cell that hold every agent within the neighbour radius of it
    /// (1, or 2 for half cells).
    pub reach: usize,
    /// `cell_start[c]..cell_start[c + 1]` are the agents of cell `c`; agents after
    /// `cell_start[cells]` (quarantined) are in no cell.
    pub cell_start: Vec<u32>,
    /// Whether only the occupied cells exist (`dims` then counts the cells of the bounding box
    /// the keys index, and `c` above is the rank of an occupied cell's key).
    pub sparse: bool,
    /// Sparse layout: the occupied cells' keys (`x + dx·(y + dy·z)`), ascending.
    keys: Vec<u64>,
    /// Sparse layout: each occupied row (`y + dy·z`) to the ranks of its cells.
    rows: KeyTable<(u32, u32)>,
    /// Sparse layout: each occupied cell to the order it was first met in (while assigning).
    first: KeyTable<u32>,
    /// Sparse layout, kept between steps: the occupied keys with their first-met order, and
    /// each first-met order's rank.
    order: Vec<(u64, u32)>,
    rank_of_first: Vec<u32>,
}

/// One run of cells along an axis: wrapped cell range and the shift (m) that maps positions in
/// it to the query's image.
#[derive(Clone, Copy, Debug)]
struct AxisRun {
    lo: usize,
    hi: usize,
    shift: f32,
}

/// Up to two runs per axis, plus whether the whole axis is scanned with per-candidate minimum
/// image (a torus too small for the query).
#[derive(Clone, Copy, Debug)]
struct AxisRuns {
    runs: [AxisRun; 2],
    n: usize,
    min_image: bool,
}

impl Grid {
    /// Lays out the grid for this step. `lo`/`hi` are the agents' bounding box (ignored for a
    /// torus). `radius` is the neighbour radius: the cell edge, or half of it in a crowd dense
    /// enough ([`DENSE`] agents per radius-sized cell) that a 5×5(×5) block of half cells,
    /// which holds 31 % (42 % in 3D) fewer agents than the 3×3(×3) block of whole ones, pays
    /// for its shorter runs.
    pub fn layout<V: CrowdVector>(
        &mut self,
        bounds: &WorldBounds<V>,
        radius: f32,
        lo: [f32; 3],
        hi: [f32; 3],
        agents: usize,
    ) {
        let radius = radius.max(1e-3);
        let mut volume = 1.0f64;
        for i in 0..V::DIM {
            let extent = match *bounds {
                WorldBounds::Toroidal { min, max } => max.axis(i) - min.axis(i),
                _ => hi[i] - lo[i],
            };
            volume *= f64::from(extent.max(radius));
        }
        let per_cell = agents as f64 * f64::from(radius).powi(V::DIM as i32) / volume;
        let mut cell = if per_cell > DENSE { radius / 2.0 } else { radius };
        self.dims = [1; 3];
        self.size = [0.0; 3];
        match *bounds {
            WorldBounds::Toroidal { min, max } => {
                self.toroidal = true;
                self.sparse = false;
                for i in 0..V::DIM {
                    self.origin[i] = min.axis(i);
                    self.size[i] = max.axis(i) - min.axis(i);
                }
                // cells at least `cell` wide; an integer number of them tiles the torus
                let budget = (agents * CELLS_PER_AGENT).max(64);
                loop {
                    let mut total = 1usize;
                    for i in 0..V::DIM {
                        self.dims[i] = cells_along(self.size[i], cell, budget).max(1);
                        total = total.saturating_mul(self.dims[i]);
                    }
                    if total <= budget {
                        break;
                    }
                    cell *= 2.0;
                }
                // the edge per axis is size/dims ≥ cell
                self.cell = f32::INFINITY;
                for i in 0..V::DIM {
                    let edge = self.size[i] / self.dims[i] as f32;
                    self.cell = self.cell.min(edge);
                    self.inv_cell[i] = self.dims[i] as f32 / self.size[i];
                }
            }
            _ => {
                self.toroidal = false;
                let budget = (agents * CELLS_PER_AGENT).max(64);
                // keys of a sparse grid must fit 63 bits
                let axis_limit = 1usize << (62 / V::DIM);
                self.sparse = false;
                loop {
                    let mut total = 1usize;
                    let mut fits = true;
                    for i in 0..V::DIM {
                        // agents spread over more than f32 can hold still get a finite extent
                        let extent = (hi[i] - lo[i]).clamp(0.0, f32::MAX);
                        self.dims[i] = cells_along(extent, cell, axis_limit).saturating_add(1);
                        fits &= self.dims[i] <= axis_limit;
                        total = total.saturating_mul(self.dims[i]);
                    }
                    if total <= budget {
                        break;
                    }
                    if fits {
                        self.sparse = true;
                        break;
                    }
                    // an extent beyond 2^31 (2^20 in 3D) cells: only then grow the cell
                    cell *= 2.0;
                }
                self.origin[..V::DIM].copy_from_slice(&lo[..V::DIM]);
                self.cell = cell;
                self.inv_cell = [1.0 / cell; 3];
            }
        }
        if !self.sparse {
            self.keys.clear();
            self.rows.clear();
            self.first.clear();
        }
        // cells a block spans on each side of its own to hold the whole radius
        self.reach = if self.cell >= radius { 1 } else { (radius / self.cell).ceil() as usize };
    }

    /// Number of cells (occupied ones in a sparse grid).
    #[inline]
    pub fn cells(&self) -> usize {
        if self.sparse {
            self.keys.len()
        } else {
            self.dims[0] * self.dims[1] * self.dims[2]
        }
    }

    /// The cell of a position (clamped into the grid: exact for any position inside it). In a
    /// sparse grid the position must lie in an occupied cell (an agent's own position).
    #[cfg(test)]
    pub fn cell_of<V: CrowdVector>(&self, p: V) -> u32 {
        self.cell_and_coordinates(p).0
    }

    /// The band (m) along `axis` that holds every agent whose cell has coordinate `c` on it,
    /// a little wider than the cells; unbounded at the grid's ends, whose cells also hold
    /// what lies beyond.
    pub fn band(&self, axis: usize, c: usize) -> (f32, f32) {
        if axis >= 3 || self.dims[axis] <= 1 {
            return (f32::NEG_INFINITY, f32::INFINITY);
        }
        let edge = 1.0 / self.inv_cell[axis];
        // wider by a fiftieth of a cell: a position's cell is rounded
        let slack = 0.02 * edge;
        let at = |k: usize| self.origin[axis] + k as f32 * edge;
        // the edge cells also hold what lies beyond the grid (coordinates are clamped)
        let lo = if c == 0 { f32::NEG_INFINITY } else { at(c) - slack };
        let hi = if c + 1 >= self.dims[axis] { f32::INFINITY } else { at(c + 1) + slack };
        (lo, hi)
    }

    /// The cell of a position (clamped into the grid: exact for any position inside it; in a
    /// sparse grid the position must lie in an occupied cell) and its coordinates (cells along
    /// each axis).
    #[inline]
    pub fn cell_and_coordinates<V: CrowdVector>(&self, p: V) -> (u32, [usize; 3]) {
        let (key, at) = self.key_and_coordinates(p);
        let cell = if self.sparse { self.rank(key).unwrap_or(u32::MAX) } else { key as u32 };
        (cell, at)
    }

    /// The row-major index of a position's cell (its key) and its coordinates: along each axis
    /// `⌊offset / cell⌋` clamped into `0..=dims − 1`, worked out as the offset in cells raised
    /// to 0 (NaN too: `max` ignores it), truncated (the floor from 0 up; infinity saturates)
    /// and capped; no branch and no floor per axis.
    #[inline]
    fn key_and_coordinates<V: CrowdVector>(&self, p: V) -> (u64, [usize; 3]) {
        let mut index = 0u64;
        let mut stride = 1u64;
        let mut at = [0usize; 3];
        for (i, a) in at.iter_mut().enumerate().take(V::DIM) {
            let f = (p.axis(i) - self.origin[i]) * self.inv_cell[i];
            *a = (f.max(0.0) as usize).min(self.dims[i] - 1);
            index += *a as u64 * stride;
            stride *= self.dims[i] as u64;
        }
        (index, at)
    }

    /// The ranks of the occupied cells of row `row` whose keys lie in `lo..=hi` (sparse grid).
    #[inline]
    fn ranks_in_row(&self, row: u64, lo: u64, hi: u64) -> Range<usize> {
        let Some((start, end)) = self.rows.get(row) else { return 0..0 };
        let cells = &self.keys[start as usize..end as usize];
        let a = cells.partition_point(|&k| k < lo);
        let b = a + cells[a..].partition_point(|&k| k <= hi);
        start as usize + a..start as usize + b
    }

    /// The rank of an occupied cell's key in a sparse grid, `None` for an empty cell.
    #[inline]
    fn rank(&self, key: u64) -> Option<u32> {
        let dx = self.dims[0] as u64;
        let r = self.ranks_in_row(key / dx, key, key);
        (!r.is_empty()).then_some(r.start as u32)
    }

    /// The cell of every agent for the counting sort: `cells()` for a quarantined one
    /// (`status[i] & quarantined` set). A sparse grid first collects the occupied cells: keys in the
    /// order they are first met, then ranked in key order so that a row's cells follow each
    /// other in the storage.
    pub fn assign<V: CrowdVector>(
        &mut self,
        position: &[V],
        status: &[u8],
        quarantined: u8,
        cell: &mut Vec<u32>,
    ) {
        cell.resize(position.len(), 0);
        if !self.sparse {
            let cells = self.cells() as u32;
            let grid = &*self;
            // in blocks, so the loop over a block's agents is plain (and fully inlined)
            const BLOCK: usize = 4096;
            #[cfg(feature = "parallel")]
            let it = (cell.par_chunks_mut(BLOCK))
                .zip(position.par_chunks(BLOCK))
                .zip(status.par_chunks(BLOCK));
            #[cfg(not(feature = "parallel"))]
            let it = cell.chunks_mut(BLOCK).zip(position.chunks(BLOCK)).zip(status.chunks(BLOCK));
            it.for_each(|((cell, position), status)| {
                for ((c, &p), &s) in cell.iter_mut().zip(position).zip(status) {
                    *c = if s & quarantined == 0 {
                        grid.key_and_coordinates(p).0 as u32
                    } else {
                        cells
                    };
                }
            });
            return;
        }
        self.assign_sparse(position, status, quarantined, cell);
    }

    /// [`assign`](Self::assign) in a sparse layout (out of line, so the dense loop stays lean).
    #[inline(never)]
    fn assign_sparse<V: CrowdVector>(
        &mut self,
        position: &[V],
        status: &[u8],
        quarantined: u8,
        cell: &mut [u32],
    ) {
        self.first.reset(position.len());
        self.keys.clear();
        // the storage is sorted by last step's cells, so most agents share the previous one's
        let mut last = (EMPTY, 0);
        for ((c, &p), &s) in cell.iter_mut().zip(position).zip(status) {
            *c = if s & quarantined == 0 {
                let key = self.key_and_coordinates(p).0;
                if key != last.0 {
                    let keys = &mut self.keys;
                    let first = self.first.get_or_insert(key, || {
                        keys.push(key);
                        keys.len() as u32 - 1
                    });
                    last = (key, first);
                }
                last.1
            } else {
                u32::MAX
            };
        }
        // rank by key: the storage was sorted by last step's keys, so this is a few long sorted
        // runs, which the run-merging stable sort takes in about linear time (the keys are
        // distinct: stability does not matter)
        let order = &mut self.order;
        order.clear();
        order.extend(self.keys.iter().enumerate().map(|(first, &k)| (k, first as u32)));
        order.sort();
        self.rank_of_first.resize(order.len(), 0);
        for (rank, &(k, first)) in order.iter().enumerate() {
            self.rank_of_first[first as usize] = rank as u32;
            self.keys[rank] = k;
        }
        let cells = self.keys.len() as u32;
        for c in cell.iter_mut() {
            *c = if *c == u32::MAX { cells } else { self.rank_of_first[*c as usize] };
        }
        // each row's cells are consecutive ranks
        let dx = self.dims[0] as u64;
        self.rows.reset(self.keys.len());
        let mut start = 0;
        for rank in 1..=self.keys.len() {
            let row = self.keys[start] / dx;
            if rank == self.keys.len() || self.keys[rank] / dx != row {
                self.rows.get_or_insert(row, || (start as u32, rank as u32));
                start = rank;
            }
        }
    }

    /// Calls `f(start, end)` with the agents of cells `x0..=x1` of row `row` (`y + dy·z`): one
    /// contiguous run in either layout (possibly empty in a dense grid; a sparse grid calls
    /// `f` only when one of the cells is occupied).
    #[inline]
    pub fn row_run(&self, row: usize, x0: usize, x1: usize, mut f: impl FnMut(usize, usize)) {
        let base = row * self.dims[0];
        if !self.sparse {
            f(self.cell_start[base + x0] as usize, self.cell_start[base + x1 + 1] as usize);
            return;
        }
        let r = self.ranks_in_row(row as u64, (base + x0) as u64, (base + x1) as u64);
        if !r.is_empty() {
            f(self.cell_start[r.start] as usize, self.cell_start[r.end] as usize);
        }
    }

    /// [`row_run`](Self::row_run) in a sparse grid for the keys `lo..=hi` of one row, found from
    /// a cursor rather than the row table: walking forward from the rank `*at`, which is then
    /// left at the first key ≥ `lo`. A cursor that keeps pace with keys that only grow (the
    /// rows above and below the cells taken in storage order) moves a step or two per cell; one
    /// past `lo`, or far behind it, is placed by bisection.
    #[inline]
    pub fn sparse_run_from(&self, at: &mut usize, lo: u64, hi: u64, f: impl FnOnce(usize, usize)) {
        let keys = &self.keys[..];
        let mut a = *at;
        if a > keys.len() || (a > 0 && keys[a - 1] >= lo) {
            a = keys.partition_point(|&k| k < lo);
        } else {
            let walk = (a + 8).min(keys.len());
            while a < walk && keys[a] < lo {
                a += 1;
            }
            if a == walk {
                a += keys[a..].partition_point(|&k| k < lo);
            }
        }
        *at = a;
        let mut b = a;
        while b < keys.len() && keys[b] <= hi {
            b += 1;
        }
        if b > a {
            f(self.cell_start[a] as usize, self.cell_start[b] as usize);
        }
    }

    /// [`row_run`](Self::row_run) for the row of the occupied cell of rank `rank` in a sparse
    /// grid: the row's other cells in `x0..=x1` are the ranks next to it.
    #[inline]
    pub fn own_row_run(&self, rank: usize, x0: usize, x1: usize, f: impl FnOnce(usize, usize)) {
        let key = self.keys[rank];
        let base = key - key % self.dims[0] as u64;
        let (lo, hi) = (base + x0 as u64, base + x1 as u64);
        let (mut a, mut b) = (rank, rank + 1);
        while a > 0 && self.keys[a - 1] >= lo {
            a -= 1;
        }
        while b < self.keys.len() && self.keys[b] <= hi {
            b += 1;
        }
        f(self.cell_start[a] as usize, self.cell_start[b] as usize);
    }

    /// The occupied cell of a sparse grid whose agents include storage index `i` (its rank),
    /// with its coordinates: `after + 1` when `i` is the first agent after cell `after`,
    /// otherwise found by bisection. `i` must be an active agent's index.
    pub fn sparse_cell_holding(&self, i: usize, after: Option<u32>) -> (u32, [usize; 3]) {
        let cells = self.keys.len();
        let rank = match after {
            Some(c)
                if (c as usize + 1) < cells && self.cell_start[c as usize + 1] as usize == i =>
            {
                c as usize + 1
            }
            _ => self.cell_start[..=cells].partition_point(|&s| s as usize <= i) - 1,
        };
        let key = self.keys[rank];
        let (dx, dy) = (self.dims[0] as u64, self.dims[1] as u64);
        let at = [(key % dx) as usize, (key / dx % dy) as usize, (key / (dx * dy)) as usize];
        (rank as u32, at)
    }

    /// Bytes held by the cell structure.
    pub fn bytes(&self) -> usize {
        self.cell_start.capacity() * 4
            + self.keys.capacity() * 8
            + self.rows.bytes()
            + self.first.bytes()
            + self.order.capacity() * size_of::<(u64, u32)>()
            + self.rank_of_first.capacity() * 4
    }

    fn axis_runs(&self, axis: usize, center: f32, reach: f32) -> AxisRuns {
        let empty = AxisRun { lo: 0, hi: 0, shift: 0.0 };
        let dims = self.dims[axis];
        // a hair wider than asked, so rounding never drops a candidate the exact test accepts
        let reach = reach * (1.0 + 1e-5) + 1e-6;
        let rel = center - self.origin[axis];
        let lo = floor_i64((rel - reach) * self.inv_cell[axis]);
        let hi = floor_i64((rel + reach) * self.inv_cell[axis]);
        if !self.toroidal {
            if hi < 0 || lo > (dims - 1) as i64 || rel.is_nan() || reach.is_nan() {
                return AxisRuns { runs: [empty; 2], n: 0, min_image: false };
            }
            let lo = lo.max(0) as usize;
            let hi = (hi as usize).min(dims - 1);
            return AxisRuns {
                runs: [AxisRun { lo, hi, shift: 0.0 }, empty],
                n: 1,
                min_image: false,
            };
        }
        let size = self.size[axis];
        if hi.saturating_sub(lo) >= dims as i64 - 1 || !(2.0 * reach < size) || rel.is_nan() {
            let all = AxisRun { lo: 0, hi: dims - 1, shift: 0.0 };
            return AxisRuns { runs: [all, empty], n: 1, min_image: true };
        }
        let d = dims as i64;
        let wrap_lo = lo.div_euclid(d);
        let wrap_hi = hi.div_euclid(d);
        let run = |a: i64, b: i64, w: i64| AxisRun {
            lo: (a - w * d) as usize,
            hi: (b - w * d) as usize,
            shift: w as f32 * size,
        };
        if wrap_lo == wrap_hi {
            AxisRuns { runs: [run(lo, hi, wrap_lo), empty], n: 1, min_image: false }
        } else {
            let split = wrap_hi * d; // first unwrapped cell of the upper period
            AxisRuns {
                runs: [run(lo, split - 1, wrap_lo), run(split, hi, wrap_hi)],
                n: 2,
                min_image: false,
            }
        }
    }

    /// Calls `f(agents, shift, min_image)` for each contiguous run of agents whose cells
    /// intersect the box `center ± reach`. `shift` is added to `position − center`; when
    /// `min_image` is set the caller must apply the minimum image per candidate instead.
    #[inline]
    pub fn for_each_run<V: CrowdVector>(
        &self,
        center: V,
        reach: f32,
        mut f: impl FnMut(Range<usize>, V, bool),
    ) {
        let mut ax =
            [AxisRuns { runs: [AxisRun { lo: 0, hi: 0, shift: 0.0 }; 2], n: 1, min_image: false };
                3];
        for (i, a) in ax.iter_mut().enumerate().take(V::DIM) {
            *a = self.axis_runs(i, center.axis(i), reach);
            if a.n == 0 {
                return;
            }
        }
        let min_image = ax[0].min_image || ax[1].min_image || ax[2].min_image;
        if self.sparse {
            let mut boxed = 1usize;
            for a in &ax[..V::DIM] {
                boxed = boxed.saturating_mul(a.runs[0].hi - a.runs[0].lo + 1);
            }
            // a box of more cells than are occupied: visit the occupied ones instead
            if boxed > 2 * self.keys.len() + 8 {
                self.for_each_occupied_run(&ax, |a, b| f(a..b, V::ZERO, false));
                return;
            }
        }
        let dy = self.dims[1];
        for zr in &ax[2].runs[..ax[2].n] {
            for z in zr.lo..zr.hi + 1 {
                for yr in &ax[1].runs[..ax[1].n] {
                    for y in yr.lo..yr.hi + 1 {
                        for xr in &ax[0].runs[..ax[0].n] {
                            self.row_run(z * dy + y, xr.lo, xr.hi, |a, b| {
                                if a < b {
                                    let shift = V::from_axes([xr.shift, yr.shift, zr.shift]);
                                    f(a..b, shift, min_image);
                                }
                            });
                        }
                    }
                }
            }
        }
    }

    /// Sparse grid: the runs of consecutive occupied cells inside the box `ax` (one run per
    /// axis), in key order.
    fn for_each_occupied_run(&self, ax: &[AxisRuns; 3], mut f: impl FnMut(usize, usize)) {
        let (dx, dy) = (self.dims[0] as u64, self.dims[1] as u64);
        let inside = |c: u64, a: &AxisRuns| {
            let c = c as usize;
            a.runs[0].lo <= c && c <= a.runs[0].hi
        };
        let mut open: Option<(usize, usize)> = None;
        for (rank, &key) in self.keys.iter().enumerate() {
            let hit = inside(key % dx, &ax[0])
                && inside(key / dx % dy, &ax[1])
                && inside(key / dx / dy, &ax[2]);
            let (a, b) = (self.cell_start[rank] as usize, self.cell_start[rank + 1] as usize);
            open = match (open, hit) {
                (Some((s, e)), true) if e == a => Some((s, b)),
                (Some((s, e)), true) => {
                    f(s, e);
                    Some((a, b))
                }
                (None, true) => Some((a, b)),
                (Some((s, e)), false) => {
                    f(s, e);
                    None
                }
                (None, false) => None,
            };
        }
        if let Some((s, e)) = open {
            f(s, e);
        }
    }
}

#[cfg(test)]
mod tests;
