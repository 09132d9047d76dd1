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

use super::space::{CrowdVector, WorldBounds};
use crate::neighbours::{Neighbour, NeighbourQuery, Neighbours};
use core::ops::Range;
#[cfg(feature = "parallel")]
use rayon::prelude::*;

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

/// An open-addressing hash table from a 63-bit key to a small value, cleared every step; at
/// most half full, so probes stay short.
#[derive(Clone, Debug, Default)]
struct KeyTable<T: Copy + Default> {
    slots: Vec<(u64, T)>,
    /// `64 − log2(slots.len())`: a key's home slot is the top bits of its Fibonacci hash.
    shift: u32,
}

/// A free slot (no key is this large: keys stay below 2⁶³).
const EMPTY: u64 = u64::MAX;

impl<T: Copy + Default> KeyTable<T> {
    /// Empties the table, sized for up to `keys` keys.
    fn reset(&mut self, keys: usize) {
        let len = (2 * keys).next_power_of_two().max(16);
        self.slots.clear();
        self.slots.resize(len, (EMPTY, T::default()));
        self.shift = 64 - len.trailing_zeros();
    }

    /// The slot holding `key`, or the free slot where it belongs.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        while self.slots[at].0 != key && self.slots[at].0 != EMPTY {
            at = (at + 1) & mask;
        }
        at
    }

    #[inline]
    fn get(&self, key: u64) -> Option<T> {
        if self.slots.is_empty() {
            return None;
        }
        let (k, v) = self.slots[self.find(key)];
        (k == key).then_some(v)
    }

    /// The value of `key`, inserting `make()` first if it is absent.
    #[inline]
    fn get_or_insert(&mut self, key: u64, make: impl FnOnce() -> T) -> T {
        let at = self.find(key);
        if self.slots[at].0 == EMPTY {
            self.slots[at] = (key, make());
        }
        self.slots[at].1
    }

    fn clear(&mut self) {
        self.slots.clear();
    }

    fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u64, T)>()
    }
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

/// The crowd's agents as a [`Neighbours`] source: the grid plus the cell-sorted positions,
/// velocities and radii. Indices in the [`Neighbour`]s it reports are storage indices (see
/// `Crowd::handle_at`); quarantined agents are never reported.
#[derive(Clone, Copy, Debug)]
pub struct GridNeighbours<'a, V: CrowdVector> {
    pub(crate) grid: &'a Grid,
    pub(crate) bounds: &'a WorldBounds<V>,
    pub(crate) position: &'a [V],
    pub(crate) velocity: &'a [V],
    pub(crate) radius: &'a [f32],
    pub(crate) max_radius: f32,
}

impl<V: CrowdVector> GridNeighbours<'_, V> {
    /// The offset `position[j] − center` of candidate `j` in a run (minimum image in a torus).
    #[inline]
    fn offset(&self, center: V, j: usize, shift: V, min_image: bool) -> V {
        if min_image {
            self.bounds.offset(center, self.position[j])
        } else {
            (self.position[j] - center) + shift
        }
    }

    #[inline]
    fn neighbour(&self, center: V, j: usize, offset: V, d2: f32) -> Neighbour<V> {
        Neighbour {
            index: j,
            position: if self.grid.toroidal { center + offset } else { self.position[j] },
            velocity: self.velocity[j],
            radius: self.radius[j],
            offset,
            distance_squared: d2,
        }
    }

    /// The `k` neighbours nearest to `query.center` (among those the query accepts), nearest
    /// first (ties: lowest index), written into `out` (cleared first; reuse it to avoid
    /// allocating). Cells are visited in rings of growing distance and the search stops as soon
    /// as no unvisited cell can hold anything nearer than the k-th found (DetourCrowd's
    /// arbitrary-subset problem does not arise).
    pub fn k_nearest(&self, query: &NeighbourQuery<V>, k: usize, out: &mut Vec<Neighbour<V>>) {
        out.clear();
        if k > 0 {
            self.ring_search(query, &mut KBest { k, out });
        }
    }

    /// The ring search behind [`k_nearest`](Self::k_nearest) and `nearest`.
    fn ring_search(&self, query: &NeighbourQuery<V>, best: &mut impl Best<V>) {
        let reach = query.reach(self.max_radius);
        if !(reach >= 0.0) {
            return;
        }
        let g = self.grid;
        // rings up to the whole grid (the ring search ends early when it can)
        let mut max_ring = 0usize;
        for i in 0..V::DIM {
            max_ring = max_ring.max(g.dims[i]);
        }
        let center = query.center;
        // In a torus whose rings would overlap themselves, scan everything once instead.
        let ring_limit = if g.toroidal {
            let mut m = usize::MAX;
            for i in 0..V::DIM {
                m = m.min((g.dims[i].saturating_sub(1)) / 2);
            }
            m
        } else if g.sparse {
            // rings of more cells than are occupied: the whole query is cheaper
            let cells = (2 * g.cells() + 8) as f32;
            ((cells.powf(1.0 / V::DIM as f32) - 1.0) / 2.0) as usize
        } else {
            max_ring
        };
        let mut ring = 0usize;
        loop {
            if ring > ring_limit {
                // remaining space: the full query, filtered by what is already found
                if ring_limit < max_ring || g.toroidal {
                    best.reset();
                    self.for_each_within(query, |n| best.offer(*n));
                }
                return;
            }
            // nothing in ring r is nearer than (r − 1)·cell
            let bound = (ring.saturating_sub(1)) as f32 * g.cell;
            if bound > reach || best.worst().is_some_and(|d2| bound * bound > d2) {
                return;
            }
            self.for_each_in_ring(center, ring, |n_index, offset| {
                if let Some(d2) = accept(query, n_index, offset, self.radius[n_index]) {
                    best.offer(self.neighbour(center, n_index, offset, d2));
                }
            });
            if ring >= max_ring {
                return;
            }
            ring += 1;
        }
    }

    /// Visits every agent in the cells at Chebyshev ring distance `ring` from the centre's cell.
    fn for_each_in_ring(&self, center: V, ring: usize, mut f: impl FnMut(usize, V)) {
        let g = self.grid;
        let mut c = [0i64; 3];
        for (i, ci) in c.iter_mut().enumerate().take(V::DIM) {
            let x = ((center.axis(i) - g.origin[i]) * g.inv_cell[i]).floor();
            // clamping a centre outside the grid only shortens per-axis gaps, so the ring
            // bound (r − 1)·cell stays a lower bound
            *ci = if x.is_nan() { 0 } else { (x as i64).clamp(0, g.dims[i] as i64 - 1) };
        }
        let r = ring as i64;
        let zr = if V::DIM == 3 { -r..=r } else { 0..=0 };
        for dz in zr {
            for dy in -r..=r {
                for dx in -r..=r {
                    if dx.abs().max(dy.abs()).max(dz.abs()) != r {
                        continue;
                    }
                    let d = [dx, dy, dz];
                    let mut key = 0u64;
                    let mut stride = 1u64;
                    let mut inside = true;
                    for i in 0..V::DIM {
                        let dims = g.dims[i] as i64;
                        let mut x = c[i] + d[i];
                        if g.toroidal {
                            x = x.rem_euclid(dims);
                        } else if x < 0 || x >= dims {
                            inside = false;
                            break;
                        }
                        key += x as u64 * stride;
                        stride *= g.dims[i] as u64;
                    }
                    let cell = if !inside {
                        continue;
                    } else if g.sparse {
                        match g.rank(key) {
                            Some(rank) => rank as usize,
                            None => continue,
                        }
                    } else {
                        key as usize
                    };
                    // ring ≤ (dims − 1)/2 visits each cell once; the minimum image of a
                    // cell at ring r is never nearer than ring r, so the bound still holds
                    let (a, b) = (g.cell_start[cell] as usize, g.cell_start[cell + 1] as usize);
                    for j in a..b {
                        f(j, self.bounds.offset(center, self.position[j]));
                    }
                }
            }
        }
    }
}

/// [`NeighbourQuery::accepts`] on an offset that is already known (minimum image).
#[inline]
fn accept<V: CrowdVector>(
    query: &NeighbourQuery<V>,
    index: usize,
    offset: V,
    neighbour_radius: f32,
) -> Option<f32> {
    if query.exclude == Some(index) {
        return None;
    }
    let d2 = offset.length_squared();
    let reach = query.reach(neighbour_radius);
    if !(reach >= 0.0 && d2 <= reach * reach) {
        return None;
    }
    if let Some(view) = &query.view {
        if !view.contains(offset) {
            return None;
        }
    }
    Some(d2)
}

impl<V: CrowdVector> Neighbours<V> for GridNeighbours<'_, V> {
    fn for_each_within<F: FnMut(&Neighbour<V>)>(&self, query: &NeighbourQuery<V>, mut visit: F) {
        let reach = query.reach(self.max_radius);
        if !(reach >= 0.0) {
            return;
        }
        let center = query.center;
        // an infinite reach scans every cell (the runs clamp to the grid)
        self.grid.for_each_run(center, reach.min(f32::MAX), |run, shift, min_image| {
            for j in run {
                let offset = self.offset(center, j, shift, min_image);
                if let Some(d2) = accept(query, j, offset, self.radius[j]) {
                    visit(&self.neighbour(center, j, offset, d2));
                }
            }
        });
    }

    fn nearest(&self, query: &NeighbourQuery<V>) -> Option<Neighbour<V>> {
        let mut best = None;
        self.ring_search(query, &mut best);
        best
    }
}

/// The best candidates so far of a ring search, ordered by (distance², index).
trait Best<V: CrowdVector> {
    fn offer(&mut self, n: Neighbour<V>);
    /// The squared distance of the worst kept candidate once the set is full.
    fn worst(&self) -> Option<f32>;
    fn reset(&mut self);
}

struct KBest<'a, V: CrowdVector> {
    k: usize,
    out: &'a mut Vec<Neighbour<V>>,
}

impl<V: CrowdVector> Best<V> for KBest<'_, V> {
    fn offer(&mut self, n: Neighbour<V>) {
        let key = (n.distance_squared, n.index);
        if self.out.len() == self.k {
            let last = self.out[self.k - 1];
            if (last.distance_squared, last.index) <= key {
                return;
            }
            self.out.pop();
        }
        let at = self.out.partition_point(|m| (m.distance_squared, m.index) < key);
        self.out.insert(at, n);
    }
    fn worst(&self) -> Option<f32> {
        (self.out.len() == self.k).then(|| self.out[self.k - 1].distance_squared)
    }
    fn reset(&mut self) {
        self.out.clear();
    }
}

impl<V: CrowdVector> Best<V> for Option<Neighbour<V>> {
    fn offer(&mut self, n: Neighbour<V>) {
        if self.is_none_or(|b| (n.distance_squared, n.index) < (b.distance_squared, b.index)) {
            *self = Some(n);
        }
    }
    fn worst(&self) -> Option<f32> {
        self.map(|b| b.distance_squared)
    }
    fn reset(&mut self) {
        *self = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    /// Lays out and fills a grid over `points` (no agent quarantined).
    fn grid_over(points: &[Vec2], radius: f32) -> Grid {
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for p in points {
            for i in 0..2 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        }
        let mut g = Grid::default();
        g.layout(&WorldBounds::<Vec2>::Unbounded, radius, lo, hi, points.len());
        let mut cell = Vec::new();
        g.assign(points, &vec![0; points.len()], 1, &mut cell);
        g.cell_start = vec![0; g.cells() + 2];
        for &c in &cell {
            g.cell_start[c as usize + 1] += 1;
        }
        for c in 1..g.cell_start.len() {
            g.cell_start[c] += g.cell_start[c - 1];
        }
        g
    }

    /// RVO2's Circle at 10 000 agents: a ring of 8 km radius fills a thin band of its bounding
    /// box, which would need 1.1 M radius-sized cells; the grid keeps the radius as its cell and
    /// holds only the occupied ones, and a row of cells is one run.
    #[test]
    fn a_ring_gets_a_sparse_grid_of_radius_sized_cells() {
        let n = 10_000;
        let ring: Vec<Vec2> = (0..n)
            .map(|k| Vec2::from_angle(k as f32 / n as f32 * core::f32::consts::TAU) * 8000.0)
            .collect();
        let g = grid_over(&ring, 15.0);
        assert!(g.sparse);
        assert_eq!(g.cell, 15.0);
        assert!(g.cells() > 3000 && g.cells() < n, "{} occupied cells", g.cells());
        // ranks follow keys, and every agent's cell is found again
        assert!(g.keys.windows(2).all(|w| w[0] < w[1]));
        for p in &ring {
            assert!((g.cell_of(*p) as usize) < g.cells());
        }
        // a row's three cells around an agent: one run holding the agent's own cell
        let (cell, at) = g.cell_and_coordinates(ring[0]);
        let mut runs = Vec::new();
        g.row_run(at[1], at[0] - 1, at[0] + 1, |a, b| runs.push((a, b)));
        let own = g.cell_start[cell as usize] as usize..g.cell_start[cell as usize + 1] as usize;
        assert_eq!(runs.len(), 1);
        assert!(runs[0].0 <= own.start && own.end <= runs[0].1);
        // the cell holding a storage index (by bisection, or as the next after its
        // predecessor) and a row's run walked from a rank agree with the key lookups
        for p in ring.iter().step_by(7) {
            let (cell, at) = g.cell_and_coordinates(*p);
            let c = cell as usize;
            for i in g.cell_start[c] as usize..g.cell_start[c + 1] as usize {
                assert_eq!(g.sparse_cell_holding(i, None), (cell, at));
            }
            let first = g.cell_start[c] as usize;
            assert_eq!(
                g.sparse_cell_holding(first, c.checked_sub(1).map(|c| c as u32)),
                (cell, at)
            );
            let (x0, x1) = (at[0].saturating_sub(1), (at[0] + 1).min(g.dims[0] - 1));
            let (mut by_row, mut by_rank) = (None, None);
            g.row_run(at[1], x0, x1, |a, b| by_row = Some((a, b)));
            g.own_row_run(c, x0, x1, |a, b| by_rank = Some((a, b)));
            assert_eq!(by_row, by_rank);
        }
        // a point in empty space is in no cell
        assert_eq!(g.cell_and_coordinates(Vec2::ZERO).0, u32::MAX);
        // the same agents packed densely get the ordinary dense grid
        let packed: Vec<Vec2> =
            (0..n).map(|k| Vec2::new((k % 100) as f32, (k / 100) as f32)).collect();
        assert!(!grid_over(&packed, 15.0).sparse);
    }

    /// A dense grid's assignment (`key_and_coordinates`: truncation after a clamp) gives every
    /// position the cell of the definition (the floor of the offset in cells, clamped into
    /// the grid, NaN to 0): inside, on cell edges, outside on either side, at ±0, infinities
    /// and NaN, in 2D and 3D; and quarantined agents the bucket after the last cell.
    #[test]
    fn dense_assignment_gives_the_cell_of_each_position() {
        fn check<V: CrowdVector>(bounds: WorldBounds<V>, lo: [f32; 3], hi: [f32; 3]) {
            let mut rng = crate::math::Rng::new(9);
            let special =
                [0.0, -0.0, -0.3, 1e-30, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e30];
            let mut points = Vec::new();
            for k in 0..4000 {
                let axis = |rng: &mut crate::math::Rng, ax: usize| match k % 4 {
                    0 => special[(rng.next_u32() % special.len() as u32) as usize],
                    // on a cell edge (whole metres, cells of 1 m)
                    1 => lo[ax] + (rng.next_u32() % 40) as f32 - 5.0,
                    _ => lo[ax] + (rng.uniform() * 1.4 - 0.2) * (hi[ax] - lo[ax]),
                };
                let a = [axis(&mut rng, 0), axis(&mut rng, 1), axis(&mut rng, 2)];
                points.push(V::from_axes(a));
            }
            let mut g = Grid::default();
            g.layout(&bounds, 1.0, lo, hi, points.len());
            assert!(!g.sparse);
            let status: Vec<u8> = (0..points.len()).map(|k| u8::from(k % 97 == 0)).collect();
            let mut cell = Vec::new();
            g.assign(&points, &status, 1, &mut cell);
            let definition = |p: V| {
                let (mut key, mut stride) = (0, 1);
                for ax in 0..V::DIM {
                    let f = ((p.axis(ax) - g.origin[ax]) * g.inv_cell[ax]).floor();
                    let top = g.dims[ax] as f32 - 1.0;
                    let c = if f.is_nan() || f < 0.0 { 0.0 } else { f.min(top) };
                    key += c as usize * stride;
                    stride *= g.dims[ax];
                }
                key as u32
            };
            for (k, p) in points.iter().enumerate() {
                let expected = if status[k] == 0 { definition(*p) } else { g.cells() as u32 };
                assert_eq!(
                    cell[k],
                    expected,
                    "{:?}",
                    (0..V::DIM).map(|a| p.axis(a)).collect::<Vec<_>>()
                );
            }
        }
        let (lo, hi) = ([-3.0, 2.0, 0.5], [27.0, 21.0, 9.5]);
        check::<Vec2>(WorldBounds::Unbounded, lo, hi);
        check::<glam::Vec3>(WorldBounds::Unbounded, lo, hi);
        let torus = WorldBounds::Toroidal { min: Vec2::new(-3.0, 2.0), max: Vec2::new(27.0, 21.0) };
        check::<Vec2>(torus, lo, hi);
    }
}
