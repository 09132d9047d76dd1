//! The uniform grid over agents (Green's bucket grid, Buckland's cell-space partition), rebuilt
//! every step by a counting sort so that each cell's agents are contiguous in the crowd's
//! structure-of-arrays storage.
//!
//! A query turns its search box into at most two runs of cells per axis (two when a toroidal
//! axis wraps); in 2D each row of cells is one contiguous run of agents. A wrapped run carries
//! the shift (±world size) that turns a candidate's position into its nearest image, so the
//! minimum image costs one add per run, not a rounding per candidate.

// `!(a <= b)` is deliberate: NaN fails the comparison and is rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::space::{CrowdVector, WorldBounds};
use crate::neighbours::{Neighbour, NeighbourQuery, Neighbours};
use core::ops::Range;

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
        t - 1
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
                loop {
                    let mut total = 1usize;
                    for i in 0..V::DIM {
                        // agents spread over more than f32 can hold still get a finite extent
                        let extent = (hi[i] - lo[i]).clamp(0.0, f32::MAX);
                        self.dims[i] = cells_along(extent, cell, budget).saturating_add(1);
                        total = total.saturating_mul(self.dims[i]);
                    }
                    if total <= budget {
                        break;
                    }
                    cell *= 2.0;
                }
                self.origin[..V::DIM].copy_from_slice(&lo[..V::DIM]);
                self.cell = cell;
                self.inv_cell = [1.0 / cell; 3];
            }
        }
        // cells a block spans on each side of its own to hold the whole radius
        self.reach = if self.cell >= radius { 1 } else { (radius / self.cell).ceil() as usize };
    }

    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// The cell of a position (clamped into the grid: exact for any position inside it).
    #[inline]
    pub fn cell_of<V: CrowdVector>(&self, p: V) -> u32 {
        self.cell_and_coordinates(p).0
    }

    /// The cell of a position and its coordinates (cells along each axis).
    #[inline]
    pub fn cell_and_coordinates<V: CrowdVector>(&self, p: V) -> (u32, [usize; 3]) {
        let mut index = 0usize;
        let mut stride = 1usize;
        let mut at = [0usize; 3];
        for (i, a) in at.iter_mut().enumerate().take(V::DIM) {
            let c = floor_i64((p.axis(i) - self.origin[i]) * self.inv_cell[i]);
            *a = if c >= 0 { (c as usize).min(self.dims[i] - 1) } else { 0 };
            index += *a * stride;
            stride *= self.dims[i];
        }
        (index as u32, at)
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
        let (dx, dy) = (self.dims[0], self.dims[1]);
        for zr in &ax[2].runs[..ax[2].n] {
            for z in zr.lo..=zr.hi {
                for yr in &ax[1].runs[..ax[1].n] {
                    for y in yr.lo..=yr.hi {
                        let row = (z * dy + y) * dx;
                        for xr in &ax[0].runs[..ax[0].n] {
                            let a = self.cell_start[row + xr.lo] as usize;
                            let b = self.cell_start[row + xr.hi + 1] as usize;
                            if a < b {
                                f(a..b, V::from_axes([xr.shift, yr.shift, zr.shift]), min_image);
                            }
                        }
                    }
                }
            }
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
                    let mut index = 0usize;
                    let mut stride = 1usize;
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
                        index += x as usize * stride;
                        stride *= g.dims[i];
                    }
                    if !inside {
                        continue;
                    }
                    // ring ≤ (dims − 1)/2 visits each cell once; the minimum image of a
                    // cell at ring r is never nearer than ring r, so the bound still holds
                    let (a, b) = (g.cell_start[index] as usize, g.cell_start[index + 1] as usize);
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
