//! The single neighbour pass of the compute phase: one scan of the grid runs around an agent
//! collects every sum the group leaves need (see `recipe::Summary`).
//!
//! The common recipes take the data-parallel scan (`Lanes`): eight candidates at a time
//! straight from the storage's structure-of-arrays copy (`Soa`), the range test a mask, in
//! 256-bit registers where the CPU has AVX2 (see `crate::lanes`; the same bits either way), a
//! view cone one more mask. The others (the k nearest, several separations) gather the
//! block's candidates and take the scalar scan, split in two loops so the hot one stays
//! tight: a branch-free append of the accepted candidates, then the fold. A torus too small for distinct images scans the
//! grid runs with the per-candidate minimum image instead, in on-stack batches.

use super::grid::Grid;
use super::recipe::{Plan, Summary};
use super::space::{CrowdVector, WorldBounds};
use crate::kinematic::Limits;
use crate::lanes::F32s;
use crate::neighbours::ViewCone;
use crate::steering::{LawVisitor, PushLaw, SeparationSum};
#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// Running sums per quantity in the data-parallel scan (candidates taken at a time with AVX2;
/// the portable lanes take them in parts). Fixed, not the machine's vector width, so the
/// sums' order, and with it every result, is the same on every CPU.
const LANES: usize = 8;

/// Accepted candidates buffered before folding (minimum-image scan).
const BATCH: usize = 32;

/// The storage the scan reads (cell-sorted).
pub(crate) struct Storage<'a, V: CrowdVector> {
    pub grid: &'a Grid,
    pub bounds: &'a WorldBounds<V>,
    pub position: &'a [V],
    pub velocity: &'a [V],
    pub radius: &'a [f32],
    /// The same by axis, for the data-parallel scan.
    pub soa: &'a Soa,
    /// The data-parallel scan may use AVX2 (`crate::lanes::avx2()` said so).
    pub avx2: bool,
}

/// The block of one cell (3×3(×3) cells, or 5×5(×5) half cells), worked out once and shared
/// by every agent of the cell (agents are sorted by cell, so consecutive agents reuse it): its
/// runs of storage, and for the scalar scans its candidates gathered with their positions
/// moved to the image nearest the cell, so the per-agent scan is one subtraction each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block<V: CrowdVector> {
    cell: Option<u32>,
    /// Storage indices of the cell's own agents: an agent in this range is in the cell
    /// (storage is sorted by cell), so its cell need not be computed again.
    members: core::ops::Range<usize>,
    /// Where the first member sits in the block (the block holds the cell's own agents as one
    /// contiguous stretch), so an agent skips itself by position, not by a test per candidate.
    first_member: usize,
    /// The block needs the per-candidate minimum image (a torus too small for it): scan the
    /// runs instead.
    min_image: bool,
    /// The block's runs of storage (`start..end`) with the shift (m) that moves them to the
    /// image nearest the cell: all the data-parallel scan needs.
    runs: Vec<(u32, u32, [f32; 3])>,
    /// `position` and `index` hold the block (gathered only for the scalar scans).
    gathered: bool,
    position: Vec<V>,
    index: Vec<u32>,
    /// The accepted candidates of the current agent (block positions); as long as the block.
    accepted: Vec<u32>,
    /// Accepted candidates ranked by squared distance, for a topological neighbourhood.
    ranked: Vec<(f32, u32, V)>,
    /// The nearest accepted candidates so far (key, offset), for ORCA's nearest neighbours.
    best: Vec<(u64, V)>,
    /// Sparse grid: a cursor into the occupied cells per row of the block (by its offset from
    /// the cell's row), kept from cell to cell.
    cursors: [usize; 25],
}

/// The cells of a block along one axis: up to two runs `lo..=hi` of cells with the shift (m)
/// that moves them to the image nearest the block's cell.
#[derive(Clone, Copy)]
struct BlockAxis {
    runs: [(usize, usize, f32); 2],
    n: usize,
}

impl BlockAxis {
    /// Cell `c` and the `reach` cells on each side on an axis of `dims` cells, `None` when a
    /// torus axis is too short for distinct images (fewer than `2·reach + 2` cells).
    #[inline]
    fn new(c: usize, reach: usize, dims: usize, size: f32, toroidal: bool) -> Option<Self> {
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
    fn fill(&mut self, s: &Storage<'_, V>, cell: u32, at: [usize; 3]) {
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
    fn interior_runs(&mut self, g: &Grid, start: usize, at: [usize; 3]) -> bool {
        let r = g.reach;
        let wide = |d: usize| !g.toroidal || d >= 2 * r + 2;
        let (x, y) = (at[0], at[1]);
        if V::DIM == 2
            && !g.sparse
            && (x >= r && x + r < g.dims[0] && wide(g.dims[0]))
            && (y >= r && y + r < g.dims[1] && wide(g.dims[1]))
        {
            self.runs.clear();
            (self.min_image, self.first_member) = (false, 0);
            let mut len = 0;
            for row in y - r..=y + r {
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
    fn any_runs(&mut self, g: &Grid, cell: u32, start: usize, at: [usize; 3]) {
        self.runs.clear();
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
                            let push = |a: usize, b: usize| {
                                if a <= start && start < b {
                                    self.first_member = len + (start - a);
                                }
                                len += b - a;
                                self.runs.push((a as u32, b as u32, [sx, sy, sz]));
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
    fn gather(&mut self, s: &Storage<'_, V>) {
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
    fn prepare(&mut self, s: &Storage<'_, V>, i: usize, centre: V) {
        if self.cell.is_none() || !self.members.contains(&i) {
            self.enter(s, i, centre);
        }
    }

    /// The first agent of another cell: find the cell (once per cell, so out of line). A
    /// sparse grid's cell is the one whose storage holds `i` (the next after this block's, for
    /// agents taken in storage order), which needs no lookup of the position's key.
    #[inline(never)]
    fn enter(&mut self, s: &Storage<'_, V>, i: usize, centre: V) {
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

/// Writes the positions (offset by `base`) of the candidates within `r2` (squared, inclusive)
/// of `centre` to the front of `out` and returns how many: a branch-free append, so the loop
/// is a handful of instructions per candidate.
#[inline(always)]
fn select<V: CrowdVector>(
    candidates: &[V],
    centre: V,
    r2: f32,
    base: usize,
    out: &mut [u32],
) -> usize {
    let mut m = 0usize;
    for (k, &p) in candidates.iter().enumerate() {
        let o = p - centre;
        out[m] = (base + k) as u32;
        m += usize::from(o.length_squared() <= r2);
    }
    m
}

/// Sums over the neighbours of agent `i` at `centre` within `radius` (inclusive, as
/// `NeighbourQuery::accepts`) and inside `cone` if any. `radius` must not exceed the grid's
/// cell edge (the crowd's neighbour radius is the edge).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn summarise<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    i: usize,
    centre: V,
    radius: f32,
    cone: Option<&ViewCone<V>>,
    plan: &Plan,
    limits: &Limits,
    sum: &mut Summary<V>,
) {
    let r2 = radius * radius;
    let own_radius = s.radius[i];
    block.prepare(s, i, centre);
    if !block.min_image {
        // the common recipes (no topological neighbourhood, at most one summed separation)
        // take the data-parallel scan
        if plan.nearest.is_none() {
            // a cone that sees all round is no cone
            let cone = cone.filter(|c| c.cos_half_angle() > -1.0);
            let (limits, sums) = (core::slice::from_ref(limits), core::slice::from_mut(sum));
            if (Run { s, block, first: i, radius, cone, plan, limits, sums }).scan() {
                return;
            }
        }
        if let Some(k) = plan.nearest {
            if nearest_close(s, block, i, centre, radius, cone, k as usize, plan, limits, sum) {
                return;
            }
        }
        block.gather(s);
        // the agent itself sits at `me` in the block: select around it
        let me = block.first_member + (i - block.members.start);
        let (before, rest) = block.position.split_at(me);
        let out = &mut block.accepted;
        let m = select(before, centre, r2, 0, &mut out[..me]);
        let m = m + select(&rest[1..], centre, r2, me + 1, &mut out[m..m + rest.len() - 1]);
        let accepted = &block.accepted[..m];
        let (position, index) = (&block.position[..], &block.index[..]);
        let offsets = accepted.iter().map(|&k| (position[k as usize] - centre, index[k as usize]));
        match plan.nearest {
            Some(k) if m > k as usize => {
                let ranked = nearest(&mut block.ranked, offsets, cone, k as usize);
                let kept = ranked.iter().map(|&(_, j, o)| (o, j));
                fold(s, kept, own_radius, None, plan, limits, sum);
            }
            _ => fold(s, offsets, own_radius, cone, plan, limits, sum),
        }
        return;
    }
    if let Some(k) = plan.nearest {
        // small torus: gather every accepted candidate, then keep the k nearest
        let mut all = core::mem::take(&mut block.ranked);
        all.clear();
        s.grid.for_each_run(centre, radius, |run, _, _| {
            for j in run {
                let o = s.bounds.offset(centre, s.position[j]);
                if o.length_squared() <= r2 && j != i {
                    all.push((0.0, j as u32, o));
                }
            }
        });
        let offsets: Vec<(V, u32)> = all.iter().map(|&(_, j, o)| (o, j)).collect();
        let ranked = nearest(&mut all, offsets.into_iter(), cone, k as usize);
        fold(s, ranked.iter().map(|&(_, j, o)| (o, j)), own_radius, None, plan, limits, sum);
        block.ranked = all;
        return;
    }
    let mut off = [V::ZERO; BATCH];
    let mut idx = [0u32; BATCH];
    let mut m = 0usize;
    let mut fold_batch = |off: &[V], idx: &[u32]| {
        fold(s, off.iter().copied().zip(idx.iter().copied()), own_radius, cone, plan, limits, sum);
    };
    s.grid.for_each_run(centre, radius, |run, _, _| {
        for j in run {
            let o = s.bounds.offset(centre, s.position[j]);
            off[m] = o;
            idx[m] = j as u32;
            m += usize::from((o.length_squared() <= r2) & (j != i));
            if m == BATCH {
                fold_batch(&off, &idx);
                m = 0;
            }
        }
    });
    fold_batch(&off[..m], &idx[..m]);
}

/// Whether `clear(j, offset)` holds for every neighbour `j` of agent `i` at `centre` within
/// `radius` (inclusive), taken from the block's runs in storage order and stopping at the
/// first that fails. `false` when the block needs each candidate's nearest image (a torus too
/// small for distinct images), which this does not scan.
#[inline]
pub(crate) fn all_within<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    i: usize,
    centre: V,
    radius: f32,
    mut clear: impl FnMut(usize, V) -> bool,
) -> bool {
    let r2 = radius * radius;
    block.prepare(s, i, centre);
    if block.min_image {
        return false;
    }
    block.runs.iter().all(|&(a, b, shift)| {
        let (a, b, shift) = (a as usize, b as usize, V::from_axes(shift));
        (a..b).zip(&s.position[a..b]).all(|(j, &p)| {
            // the offset as `nearest_list` takes it
            let o = if shift == V::ZERO { p - centre } else { (p + shift) - centre };
            o.length_squared() > r2 || j == i || clear(j, o)
        })
    })
}

/// The `k` nearest neighbours of agent `i` at `centre` within `radius` (inclusive), nearest
/// first by squared distance then storage index, written to `out` with their state (ORCA's
/// neighbour list: the block's runs scanned as in [`summarise`], the nearest kept in order as
/// they come, so only `k` neighbours are ever copied out).
#[inline]
pub(crate) fn nearest_list<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    i: usize,
    centre: V,
    radius: f32,
    k: usize,
    out: &mut Vec<crate::neighbours::Neighbour<V>>,
) {
    let r2 = radius * radius;
    block.prepare(s, i, centre);
    out.clear();
    let neighbour = |j: usize, o: V, d2: f32| crate::neighbours::Neighbour {
        index: j,
        position: s.position[j],
        velocity: s.velocity[j],
        radius: s.radius[j],
        offset: o,
        distance_squared: d2,
    };
    // keeping the `k` nearest sorted as they come (by one integer key: squared distance, whose
    // bits order as the non-negative float, then storage index); a bounded insertion beats
    // collecting and sorting the few a sparse block holds
    let best = &mut block.best;
    best.clear();
    // past a few dozen, insertion would cost O(k) per candidate: collect, then select
    let bounded = k <= 32;
    let mut offer = |key: u64, o: V| {
        if !bounded {
            best.push((key, o));
            return;
        }
        if best.len() == k {
            match best.last() {
                Some(&(worst, _)) if key < worst => {
                    best.pop();
                }
                _ => return,
            }
        }
        let at = best.partition_point(|&(b, _)| b < key);
        best.insert(at, (key, o));
    };
    let key = |d2: f32, j: usize| (u64::from(d2.to_bits()) << 32) | j as u64;
    if block.min_image {
        // a torus too small for distinct images: each candidate's nearest image
        s.grid.for_each_run(centre, radius, |run, _, _| {
            for j in run {
                let o = s.bounds.offset(centre, s.position[j]);
                let d2 = o.length_squared();
                if d2 <= r2 && j != i {
                    offer(key(d2, j), o);
                }
            }
        });
    } else {
        // straight from the storage's runs, as the gathered block computed it: the image
        // first, then the offset
        for &(a, b, shift) in &block.runs {
            let (a, b, shift) = (a as usize, b as usize, V::from_axes(shift));
            let run = (a..b).zip(&s.position[a..b]);
            let mut test = |j: usize, o: V| {
                let d2 = o.length_squared();
                if d2 <= r2 && j != i {
                    offer(key(d2, j), o);
                }
            };
            if shift == V::ZERO {
                run.for_each(|(j, &p)| test(j, p - centre));
            } else {
                run.for_each(|(j, &p)| test(j, (p + shift) - centre));
            }
        }
    }
    if !bounded {
        if best.len() > k {
            best.select_nth_unstable_by_key(k, |e| e.0);
            best.truncate(k);
        }
        best.sort_unstable_by_key(|e| e.0);
    }
    out.extend(
        best.iter()
            .map(|&(key, o)| neighbour(key as u32 as usize, o, f32::from_bits((key >> 32) as u32))),
    );
}

/// The topological neighbourhood without the whole radius: in a dense crowd the `k` nearest lie
/// well inside the neighbour radius, so look first within the radius `ρ` that holds about `2k`
/// agents at the density of the agent's own cell (a ball of `ρ` holds `density·π·ρ²` agents,
/// `density·4/3·π·ρ³` in 3D). When `k` agents (inside the cone) are within `ρ`, they are the
/// `k` nearest within the radius, and the sums are folded from them: `true`. Otherwise nothing
/// is summed and the caller scans the block (`false`).
#[allow(clippy::too_many_arguments)]
fn nearest_close<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    i: usize,
    centre: V,
    radius: f32,
    cone: Option<&ViewCone<V>>,
    k: usize,
    plan: &Plan,
    limits: &Limits,
    sum: &mut Summary<V>,
) -> bool {
    let members = block.members.len() as f32;
    let density = members / s.grid.cell.powi(V::DIM as i32);
    let ball = if V::DIM == 2 { core::f32::consts::PI } else { 4.0 / 3.0 * core::f32::consts::PI };
    let rho = (2.0 * k as f32 / (density * ball)).powf(1.0 / V::DIM as f32);
    // worth it only well inside the radius (NaN or ∞ from an empty cell fail the test)
    let worth = rho < 0.5 * radius;
    if !worth {
        return false;
    }
    let r2 = rho * rho;
    let mut ranked = core::mem::take(&mut block.ranked);
    ranked.clear();
    let mut whole = true;
    s.grid.for_each_run(centre, rho, |run, shift, min_image| {
        whole &= !min_image;
        for j in run {
            let o = (s.position[j] - centre) + shift;
            let d2 = o.length_squared();
            if j != i && d2 <= r2 && cone.is_none_or(|c| c.contains(o)) {
                ranked.push((d2, j as u32, o));
            }
        }
    });
    let found = whole && ranked.len() >= k;
    if found {
        keep_nearest(&mut ranked, k);
        let kept = ranked.iter().map(|&(_, j, o)| (o, j));
        fold(s, kept, s.radius[i], None, plan, limits, sum);
    }
    block.ranked = ranked;
    found
}

/// The `k` nearest of `candidates` (offset, storage index) inside `cone`, nearest first by
/// squared distance then storage index (a total order: the same at any thread count), written
/// to `ranked` and returned.
fn nearest<'r, V: CrowdVector>(
    ranked: &'r mut Vec<(f32, u32, V)>,
    candidates: impl Iterator<Item = (V, u32)>,
    cone: Option<&ViewCone<V>>,
    k: usize,
) -> &'r [(f32, u32, V)] {
    ranked.clear();
    ranked.extend(
        candidates
            .filter(|(o, _)| cone.is_none_or(|c| c.contains(*o)))
            .map(|(o, j)| (o.length_squared(), j, o)),
    );
    keep_nearest(ranked, k);
    ranked
}

/// Keeps the `k` nearest of `ranked` (squared distance, storage index, offset), nearest first
/// by squared distance then storage index.
fn keep_nearest<V: CrowdVector>(ranked: &mut Vec<(f32, u32, V)>, k: usize) {
    let order = |a: &(f32, u32, V), b: &(f32, u32, V)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if ranked.len() > k {
        if k == 0 {
            ranked.clear();
            return;
        }
        ranked.select_nth_unstable_by(k - 1, order);
        ranked.truncate(k);
    }
    ranked.sort_unstable_by(order);
}

/// Folds accepted candidates (offset, storage index) into the sums.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fold<V: CrowdVector>(
    s: &Storage<'_, V>,
    accepted: impl Iterator<Item = (V, u32)>,
    own_radius: f32,
    cone: Option<&ViewCone<V>>,
    plan: &Plan,
    limits: &Limits,
    sum: &mut Summary<V>,
) {
    // the common recipes hold one separation: keep its loop free of the inner iteration
    match plan.separations.as_slice() {
        [sep] => {
            for (o, j) in accepted {
                let j = j as usize;
                if cone.is_some_and(|c| !c.contains(o)) {
                    continue;
                }
                add(s, sum, plan, o, j);
                sep.accumulate(&mut sum.separation[0], -o, own_radius, s.radius[j], limits);
            }
        }
        seps => {
            for (o, j) in accepted {
                let j = j as usize;
                if cone.is_some_and(|c| !c.contains(o)) {
                    continue;
                }
                add(s, sum, plan, o, j);
                for (sep, acc) in seps.iter().zip(sum.separation.iter_mut()) {
                    sep.accumulate(acc, -o, own_radius, s.radius[j], limits);
                }
            }
        }
    }
}

/// The sums of cohesion and alignment.
#[inline(always)]
fn add<V: CrowdVector>(s: &Storage<'_, V>, sum: &mut Summary<V>, plan: &Plan, o: V, j: usize) {
    sum.count += 1;
    sum.offset += o;
    sum.velocity += s.velocity[j];
    if plan.needs_headings {
        sum.heading += s.soa.unit(j);
    }
}

/// The storage by axis (structure of arrays), in storage order and followed by [`LANES`]
/// padding entries so a four-lane load may start at any agent: what the data-parallel scan
/// reads. Rebuilt with the grid; velocities and unit velocities only when a group sums them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Soa {
    position: [Vec<f32>; 3],
    velocity: [Vec<f32>; 3],
    unit: [Vec<f32>; 3],
    radius: Vec<f32>,
}

impl Soa {
    /// Copies the storage by axis, with the unit velocities when `headings` (normalised here,
    /// where each velocity is read anyway) and the velocities when `velocities`; the arrays
    /// not asked for are left empty. One pass over the agents, in parallel pieces.
    pub(crate) fn rebuild<V: CrowdVector>(
        &mut self,
        position: &[V],
        velocity: &[V],
        velocities: bool,
        headings: bool,
        radius: &[f32],
    ) {
        let n = position.len();
        // the arrays in use hold `n` agents (overwritten by the pass, so not cleared first)
        // and `LANES` zeros after them
        fn fit(v: &mut Vec<f32>, n: usize, on: bool) -> &mut [f32] {
            if !on {
                v.clear();
                return &mut [];
            }
            v.resize(n + LANES, 0.0);
            v[n..].fill(0.0);
            &mut v[..n]
        }
        let mut on = [false; 3];
        on[..V::DIM].fill(true);
        let [px, py, pz] = &mut self.position;
        let [vx, vy, vz] = &mut self.velocity;
        let [ux, uy, uz] = &mut self.unit;
        let piece = Piece {
            start: 0,
            len: n,
            position: [fit(px, n, on[0]), fit(py, n, on[1]), fit(pz, n, on[2])],
            velocity: [
                fit(vx, n, on[0] && velocities),
                fit(vy, n, on[1] && velocities),
                fit(vz, n, on[2] && velocities),
            ],
            unit: [
                fit(ux, n, on[0] && headings),
                fit(uy, n, on[1] && headings),
                fit(uz, n, on[2] && headings),
            ],
            radius: fit(&mut self.radius, n, true),
        };
        let fill = |p: Piece<'_>| p.fill(position, velocity, radius);
        #[cfg(feature = "parallel")]
        rayon::iter::split(piece, Piece::halve).for_each(fill);
        #[cfg(not(feature = "parallel"))]
        fill(piece);
    }

    /// The unit velocity of agent `j` (the rebuild had `headings`).
    #[inline(always)]
    fn unit<V: CrowdVector>(&self, j: usize) -> V {
        let mut u = [0.0; 3];
        for (ax, u) in u.iter_mut().enumerate().take(V::DIM) {
            *u = self.unit[ax][j];
        }
        V::from_axes(u)
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        let axes = [&self.position, &self.velocity, &self.unit];
        let floats: usize = axes.iter().flat_map(|a| a.iter()).map(Vec::capacity).sum();
        (floats + self.radius.capacity()) * 4
    }
}

/// Agents `start..start + len` of the arrays a [`Soa`] rebuild fills (slices of the arrays
/// not in use are empty): the unit of its parallel pass.
struct Piece<'a> {
    start: usize,
    len: usize,
    position: [&'a mut [f32]; 3],
    velocity: [&'a mut [f32]; 3],
    unit: [&'a mut [f32]; 3],
    radius: &'a mut [f32],
}

impl<'a> Piece<'a> {
    /// Agents per piece below which a piece is not split (the result does not depend on it).
    #[cfg(feature = "parallel")]
    const MIN: usize = 4096;

    /// The piece in two halves, or whole when small.
    #[cfg(feature = "parallel")]
    fn halve(self) -> (Self, Option<Self>) {
        if self.len < 2 * Self::MIN {
            return (self, None);
        }
        let mid = self.len / 2;
        fn cut(s: &mut [f32], mid: usize) -> (&mut [f32], &mut [f32]) {
            if s.is_empty() {
                (&mut [], &mut [])
            } else {
                s.split_at_mut(mid)
            }
        }
        fn cut3(a: [&mut [f32]; 3], mid: usize) -> ([&mut [f32]; 3], [&mut [f32]; 3]) {
            let [x, y, z] = a;
            let ((x0, x1), (y0, y1), (z0, z1)) = (cut(x, mid), cut(y, mid), cut(z, mid));
            ([x0, y0, z0], [x1, y1, z1])
        }
        let (p0, p1) = cut3(self.position, mid);
        let (v0, v1) = cut3(self.velocity, mid);
        let (u0, u1) = cut3(self.unit, mid);
        let (r0, r1) = cut(self.radius, mid);
        let first =
            Piece { start: self.start, len: mid, position: p0, velocity: v0, unit: u0, radius: r0 };
        let start = self.start + mid;
        let len = self.len - mid;
        (first, Some(Piece { start, len, position: p1, velocity: v1, unit: u1, radius: r1 }))
    }

    /// Fills the piece from the storage.
    fn fill<V: CrowdVector>(self, position: &[V], velocity: &[V], radius: &[f32]) {
        let range = self.start..self.start + self.len;
        let (position, velocity, radius) =
            (&position[range.clone()], &velocity[range.clone()], &radius[range]);
        self.radius.copy_from_slice(radius);
        for ax in 0..V::DIM {
            let to = &mut *self.position[ax];
            to.iter_mut().zip(position).for_each(|(t, p)| *t = p.axis(ax));
        }
        if !self.velocity[0].is_empty() {
            for ax in 0..V::DIM {
                let to = &mut *self.velocity[ax];
                to.iter_mut().zip(velocity).for_each(|(t, v)| *t = v.axis(ax));
            }
        }
        if !self.unit[0].is_empty() {
            let [ux, uy, uz] = self.unit;
            for (k, v) in velocity.iter().enumerate() {
                let u = v.normalize_or_zero();
                ux[k] = u.axis(0);
                uy[k] = u.axis(1);
                if V::DIM == 3 {
                    uz[k] = u.axis(2);
                }
            }
        }
    }
}

/// No separation in the recipe.
#[derive(Clone, Copy)]
struct NoPush;

impl PushLaw for NoPush {
    const RADII: bool = false;
    #[inline(always)]
    fn near<F: F32s>(&self, _: F, _: F) -> F {
        F::ZERO
    }
    #[inline(always)]
    fn push<F: F32s>(&self, _: F, _: F) -> (F, F) {
        (F::ZERO, F::ZERO)
    }
    #[inline(always)]
    fn for_agent(self, _: f32, _: &Limits) -> Self {
        self
    }
}

/// Whether [`summarise_run`] takes a group's agents: its plan sums at most one separation and
/// no topological neighbourhood, and it has no view cone (the agents' sums all come from the
/// data-parallel scan, in one form for the whole group).
pub(crate) fn runs_in_lanes(plan: &Plan, view_half_angle: Option<f32>) -> bool {
    plan.needs_neighbours
        && !plan.needs_list
        && plan.nearest.is_none()
        && view_half_angle.is_none()
        && match plan.separations.as_slice() {
            [] => true,
            [sep] => sep.sums(),
            _ => false,
        }
}

/// [`summarise`] for the consecutive agents `first..first + sums.len()` of one group that
/// [`runs_in_lanes`] (`limits[k]`: agent `first + k`'s): the separation's law and the scan's
/// form are chosen once for the run rather than per agent; the same sums, bit for bit.
#[inline]
pub(crate) fn summarise_run<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    first: usize,
    radius: f32,
    plan: &Plan,
    limits: &[Limits],
    sums: &mut [Summary<V>],
) {
    let taken = (Run { s, block, first, radius, cone: None, plan, limits, sums }).scan();
    debug_assert!(taken, "a group that runs in lanes takes the data-parallel scan");
}

/// The agents `first..first + sums.len()` of one group, for the data-parallel scan: the
/// separation's law and the scan's form are chosen once for them (`LawVisitor`).
struct Run<'r, V: CrowdVector> {
    s: &'r Storage<'r, V>,
    block: &'r mut Block<V>,
    first: usize,
    radius: f32,
    /// The view cone, if narrower than all round (a run of one agent).
    cone: Option<&'r ViewCone<V>>,
    plan: &'r Plan,
    /// Each agent's limits, as many as `sums`.
    limits: &'r [Limits],
    sums: &'r mut [Summary<V>],
}

impl<V: CrowdVector> LawVisitor<()> for &mut Run<'_, V> {
    #[inline]
    fn visit<L: PushLaw>(self, law: L) {
        let s = self.s;
        let head = self.plan.needs_headings && !s.soa.unit[0].is_empty();
        let vel = self.plan.needs_velocities && !s.soa.velocity[0].is_empty();
        match (head, vel) {
            (false, false) => self.dispatch::<L, false, false>(law),
            (true, false) => self.dispatch::<L, true, false>(law),
            (false, true) => self.dispatch::<L, false, true>(law),
            (true, true) => self.dispatch::<L, true, true>(law),
        }
    }
}

impl<V: CrowdVector> Run<'_, V> {
    /// The data-parallel scan for the run's agents, `false` (nothing done) when the plan has
    /// more than one separation or one that keeps the nearest only.
    #[inline]
    fn scan(mut self) -> bool {
        let (own, limits) = (self.s.radius[self.first], &self.limits[0]);
        match self.plan.separations.as_slice() {
            [] => {
                (&mut self).visit(NoPush);
                true
            }
            [sep] => sep.with_law(own, limits, &mut self).is_some(),
            _ => false,
        }
    }

    #[inline(always)]
    fn dispatch<L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        #[cfg(target_arch = "x86_64")]
        if self.s.avx2 {
            // SAFETY: `Storage::avx2` is true only where the CPU has AVX2
            unsafe { self.each_avx2::<L, HEAD, VEL>(law) };
            return;
        }
        self.each::<wide::f32x4, L, HEAD, VEL>(law);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn each_avx2<L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        self.each::<crate::lanes::Avx2, L, HEAD, VEL>(law);
    }

    /// Each agent's scan as [`summarise`] takes it, with the law made for the agent.
    #[inline(always)]
    fn each<F: F32s, L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        let (s, plan, radius) = (self.s, self.plan, self.radius);
        let r2 = radius * radius;
        for (k, sum) in self.sums.iter_mut().enumerate() {
            let i = self.first + k;
            let (centre, limits) = (s.position[i], &self.limits[k]);
            self.block.prepare(s, i, centre);
            if self.block.min_image {
                summarise(s, self.block, i, centre, radius, None, plan, limits, sum);
                continue;
            }
            let law = law.for_agent(s.radius[i], limits);
            let runs = &self.block.runs;
            let mut lanes = Lanes { s, runs, i, centre, r2, cone: self.cone, plan, sum };
            lanes.run::<F, L, HEAD, VEL>(law);
        }
    }
}

/// The data-parallel scan of a block: every sum of [`Summary`] over the agents of its runs
/// within `r2` of `centre` (agent `i` excluded), a lane's worth of agents at a time straight
/// from the storage's arrays, [`LANES`] running sums per quantity (added in lane order at the
/// end); the range test and the run's end are masks, not branches.
struct Lanes<'a, V: CrowdVector> {
    s: &'a Storage<'a, V>,
    runs: &'a [(u32, u32, [f32; 3])],
    i: usize,
    centre: V,
    r2: f32,
    /// The agent's view cone, if it has one narrower than all round.
    cone: Option<&'a ViewCone<V>>,
    plan: &'a Plan,
    sum: &'a mut Summary<V>,
}

impl<V: CrowdVector> Lanes<'_, V> {
    /// The scan with lanes of `F`: [`LANES`] running sums per quantity, whose lane `l` takes
    /// the candidates `a + l`, `a + l + LANES`, … of each run `a..b`. Narrower lanes take the
    /// sums in parts (lanes 0–3, then 4–7), each over every run: the same additions in the
    /// same order per lane, so the same bits.
    #[inline(always)]
    fn run<F: F32s, L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        let (s, runs, i, centre, r2) = (self.s, self.runs, self.i, self.centre, self.r2);
        let (cone, plan, sum) = (self.cone, self.plan, &mut *self.sum);
        let soa = s.soa;
        // every array cut to the same length once: the chunk loop's bounds checks become
        // one test per chunk (the same for every array) on a length held in a register
        let len = soa.position[0].len();
        #[inline(always)]
        fn cut(v: &[f32], len: usize, on: bool) -> &[f32] {
            if on {
                &v[..len]
            } else {
                &[]
            }
        }
        let (mut p, mut v, mut u) = ([&[][..]; 3], [&[][..]; 3], [&[][..]; 3]);
        for ax in 0..V::DIM {
            p[ax] = cut(&soa.position[ax], len, true);
            v[ax] = cut(&soa.velocity[ax], len, VEL);
            u[ax] = cut(&soa.unit[ax], len, HEAD);
        }
        let radii = cut(&soa.radius, len, L::RADII);
        // no closures here: a closure is a function of its own, without the AVX2 target
        // feature of `run_avx2`, and the lane operations would stay calls
        #[inline(always)]
        fn lane<F: F32s>(v: &[f32], k: usize) -> F {
            F::load(&v[k..k + F::WIDTH])
        }
        let (zero, r2, ramp) = (F::ZERO, F::splat(r2), F::ramp());
        // the cone as `ViewCone::contains` tests it: `o · facing ≥ cos(half angle) · |o|`
        let (mut facing, mut cos) = ([zero; 3], zero);
        if let Some(c) = cone {
            for (ax, f) in facing.iter_mut().enumerate().take(V::DIM) {
                *f = F::splat(c.facing().axis(ax));
            }
            cos = F::splat(c.cos_half_angle());
        }
        // per lane, the candidates within and whether some neighbour pushed; and the sums by
        // row, one per quantity and axis the scan sums (offset, then velocity, heading and
        // push as the recipe asks), packed so that a 2D scan's rows are added in one
        // `F32s::totals` (the second eight are used in 3D only)
        let (mut counts, mut pushed) = ([0i32; LANES], false);
        let mut rows = [[[0.0f32; LANES]; 8]; 2];
        let dim = V::DIM;
        let vel_row = dim;
        let head_row = vel_row + if VEL { dim } else { 0 };
        let push_row = head_row + if HEAD { dim } else { 0 };
        for part in (0..LANES).step_by(F::WIDTH) {
            let (mut count, mut acting) = (zero, zero);
            let (mut offset, mut velocity, mut heading, mut push) =
                ([zero; 3], [zero; 3], [zero; 3], [zero; 3]);
            for &(a, b, shift) in runs {
                // o = p + shift − centre, as p − (centre − shift)
                let mut c = [zero; 3];
                for (ax, c) in c.iter_mut().enumerate().take(V::DIM) {
                    *c = F::splat(centre.axis(ax) - shift[ax]);
                }
                let (mut k, b) = (a as usize + part, b as usize);
                while k < b {
                    let mut o = [zero; 3];
                    let mut d2 = zero;
                    for ax in 0..V::DIM {
                        o[ax] = lane::<F>(p[ax], k) - c[ax];
                        d2 = d2 + o[ax] * o[ax];
                    }
                    let mut within = d2.le(r2);
                    if cone.is_some() {
                        // in `Vector::dot`'s order
                        let mut along = o[0] * facing[0];
                        for ax in 1..V::DIM {
                            along = along + o[ax] * facing[ax];
                        }
                        within = within & (cos * d2.sqrt()).le(along);
                    }
                    let own = i.wrapping_sub(k);
                    if k + F::WIDTH > b || own < F::WIDTH {
                        // lanes past the run's end and agent i's own lane are masked off
                        // (lane numbers are small whole numbers, exact in f32)
                        let own = if own < F::WIDTH { own as f32 } else { -1.0 };
                        within =
                            within & ramp.lt(F::splat((b - k) as f32)) & ramp.ne(F::splat(own));
                    }
                    count = count.tally(within);
                    let radius = if L::RADII { lane::<F>(radii, k) } else { zero };
                    // most candidates are beyond separation's reach: skip its square root
                    // and divisions for a whole lane's worth of them at once
                    if (law.near(d2, radius) & within).any() {
                        let (acts, factor) = law.push(d2, radius);
                        let acts = acts & within;
                        acting = acting | acts;
                        for ax in 0..V::DIM {
                            push[ax] = push[ax] + (acts & (-o[ax] * factor));
                        }
                    }
                    for ax in 0..V::DIM {
                        offset[ax] = offset[ax] + (within & o[ax]);
                        if VEL {
                            velocity[ax] = velocity[ax] + (within & lane::<F>(v[ax], k));
                        }
                        if HEAD {
                            heading[ax] = heading[ax] + (within & lane::<F>(u[ax], k));
                        }
                    }
                    k += LANES;
                }
            }
            count.store_counts(&mut counts[part..]);
            pushed |= acting.any();
            #[inline(always)]
            fn row<F: F32s>(rows: &mut [[[f32; LANES]; 8]; 2], q: usize, part: usize, x: F) {
                x.store(&mut rows[q / 8][q % 8][part..]);
            }
            for ax in 0..V::DIM {
                row(&mut rows, ax, part, offset[ax]);
                if VEL {
                    row(&mut rows, vel_row + ax, part, velocity[ax]);
                }
                if HEAD {
                    row(&mut rows, head_row + ax, part, heading[ax]);
                }
                row(&mut rows, push_row + ax, part, push[ax]);
            }
        }
        // each row's lanes added in lane order, eight rows at a time
        let mut t = [0.0; 16];
        t[..8].copy_from_slice(&F::totals(&rows[0]));
        if push_row + dim > 8 {
            t[8..].copy_from_slice(&F::totals(&rows[1]));
        }
        let vector = |at: usize| V::from_axes([t[at], t[at + 1], t[at + 2]]);
        sum.count = counts.iter().sum::<i32>() as u32;
        sum.offset = vector(0);
        if VEL {
            sum.velocity = vector(vel_row);
        }
        if HEAD {
            sum.heading = vector(head_row);
        }
        if !plan.separations.is_empty() {
            sum.separation[0] = SeparationSum::from_sum(vector(push_row), pushed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AgentSpec, Crowd, CrowdConfig, CrowdVector, Group, Recipe, WorldBounds};
    use crate::kinematic::Limits;
    use crate::math::Rng;
    use crate::steering::{Alignment, Cohesion, Falloff, Seek, Separation, VelocityMatch};
    use glam::{Vec2, Vec3};

    /// Dense flocks (about 60 neighbours each) of every scan form: heading or velocity sums,
    /// no separation or each of its laws, radius-aware or not (each with and without a view
    /// cone).
    fn recipes<V: CrowdVector>() -> Vec<Recipe<V>> {
        let linear = Separation::new(0.5, Falloff::Linear).unwrap();
        let divided = Separation::new(0.6, Falloff::Linear).unwrap();
        let square = Separation::new(0.7, Falloff::InverseSquare(0.4)).unwrap();
        let inverse = Separation::new(0.7, Falloff::Inverse(0.5)).unwrap().radius_aware(0.05);
        let heading = Recipe::Alignment(Alignment::heading(0.5).unwrap());
        let velocity = Recipe::Alignment(Alignment::Velocity(VelocityMatch::new(0.3).unwrap()));
        let cohesion = || (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new())));
        let mut all = vec![Recipe::Blend(vec![cohesion(), (1.0, heading.clone())])];
        for (sep, align) in [
            (linear, &heading),
            (divided, &velocity),
            (square, &heading),
            (inverse.unwrap(), &velocity),
            (linear.radius_aware(0.0).unwrap(), &heading),
        ] {
            all.push(Recipe::Blend(vec![
                (2.0, Recipe::Separation(sep)),
                cohesion(),
                (1.0, align.clone()),
                (0.5, heading.clone()),
            ]));
        }
        all
    }

    fn crowd<V: CrowdVector>(
        recipe: Recipe<V>,
        cone: Option<f32>,
        n: usize,
        side: f32,
        rng: &mut Rng,
    ) -> Crowd<V> {
        let bounds = WorldBounds::Toroidal { min: V::ZERO, max: V::from_axes([side; 3]) };
        let mut crowd = Crowd::new(CrowdConfig::new(1.0).with_bounds(bounds)).unwrap();
        let mut group = Group::new(recipe);
        group.view_half_angle = cone;
        let g = crowd.add_group(group).unwrap();
        let limits = Limits::new(2.0, 4.0, 4.0, 20.0).unwrap();
        for _ in 0..n {
            let p = V::from_axes([rng.uniform(), rng.uniform(), rng.uniform()]) * side;
            let v = V::from_axes([rng.clamped(), rng.clamped(), rng.clamped()]);
            let r = 0.05 + 0.2 * rng.uniform();
            crowd.spawn(AgentSpec { velocity: v, ..AgentSpec::new(p, r, limits, g) }).unwrap();
        }
        crowd
    }

    fn same_bits<V: CrowdVector>(n: usize, side: f32) {
        let mut rng = Rng::new(5);
        let with_cones =
            recipes::<V>().into_iter().flat_map(|r| [(r.clone(), None), (r, Some(1.5))]);
        for (recipe, cone) in with_cones {
            let mut avx2 = crowd(recipe, cone, n, side, &mut rng);
            let mut portable = avx2.clone();
            portable.avx2 = false;
            for step in 0..20 {
                avx2.step(1.0 / 30.0).unwrap();
                portable.step(1.0 / 30.0).unwrap();
                for i in 0..n {
                    for (a, b) in [
                        (avx2.position[i], portable.position[i]),
                        (avx2.velocity[i], portable.velocity[i]),
                    ] {
                        let bits =
                            |v: V| (0..V::DIM).map(|ax| v.axis(ax).to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(a), bits(b), "agent {i} at step {step}");
                    }
                }
            }
        }
    }

    /// A dense 2D cell clear of the grid's edges gets from the short path the runs, the own
    /// agents' place and the image flag that the general path gives it: tori of several
    /// widths (down to too narrow for distinct images) and a bounded world, with whole cells
    /// and with half cells.
    #[test]
    fn interior_blocks_have_the_general_runs() {
        use super::super::grid::Grid;
        use super::Block;
        let mut rng = Rng::new(11);
        let mut interior = 0;
        for (side, agents, torus) in [
            (3.0, 40, true),
            (4.0, 300, true),
            (9.5, 400, true),
            (9.5, 3000, true),
            (12.0, 900, false),
        ] {
            let bounds = if torus {
                WorldBounds::Toroidal { min: Vec2::ZERO, max: Vec2::splat(side) }
            } else {
                WorldBounds::Unbounded
            };
            let points: Vec<Vec2> =
                (0..agents).map(|_| Vec2::new(rng.uniform(), rng.uniform()) * side).collect();
            let mut g = Grid::default();
            g.layout(&bounds, 1.0, [0.0; 3], [side, side, 0.0], agents);
            let mut keys = Vec::new();
            g.assign(&points, &vec![0; agents], 1, &mut keys);
            g.cell_start = vec![0; g.cells() + 2];
            for &k in &keys {
                g.cell_start[k as usize + 1] += 1;
            }
            for c in 1..g.cell_start.len() {
                g.cell_start[c] += g.cell_start[c - 1];
            }
            for y in 0..g.dims[1] {
                for x in 0..g.dims[0] {
                    let cell = (y * g.dims[0] + x) as u32;
                    let start = g.cell_start[cell as usize] as usize;
                    let (mut short, mut general) =
                        (Block::<Vec2>::default(), Block::<Vec2>::default());
                    general.any_runs(&g, cell, start, [x, y, 0]);
                    if short.interior_runs(&g, start, [x, y, 0]) {
                        interior += 1;
                        assert_eq!(short.runs, general.runs, "cell {x}, {y} of {:?}", g.dims);
                        assert_eq!(short.first_member, general.first_member);
                        assert_eq!(short.min_image, general.min_image);
                    }
                }
            }
        }
        assert!(interior > 100, "{interior} interior cells");
    }

    /// The scan in AVX2 registers and the portable one give the same crowd, bit for bit.
    #[test]
    fn the_avx2_scan_and_the_portable_one_agree_bit_for_bit() {
        if !crate::lanes::avx2() {
            return;
        }
        same_bits::<Vec2>(1000, 7.0);
        same_bits::<Vec3>(1000, 3.2);
    }
}
