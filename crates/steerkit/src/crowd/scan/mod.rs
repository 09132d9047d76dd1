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
use super::space::WorldBounds;
use super::CrowdVector;
use crate::kinematic::Limits;
use crate::neighbours::ViewCone;
#[cfg(feature = "parallel")]
use rayon::prelude::*;

mod block;
mod lanes;
mod soa;
mod verlet;

pub(crate) use block::Block;
use lanes::Run;
pub(crate) use lanes::{runs_in_lanes, summarise_run};
pub(crate) use soa::Soa;
pub(crate) use verlet::{NearList, NearLists, LISTED};

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
    block.prepare(s, i, centre);
    out.clear();
    let neighbour = |e| neighbour(s, e);
    if k <= KEPT {
        // a bounded insertion on the stack beats collecting and sorting the few a block holds
        let mut kept = Kept::new(k, radius);
        scan_nearest(s, block, i, centre, radius, &mut kept);
        out.extend(kept.keys[..kept.len].iter().copied().zip(kept.offsets).map(neighbour));
    } else {
        // past a few dozen, insertion would cost O(k) per candidate: collect, then select
        let (within, r2) = within(radius);
        let mut all = Collected { best: core::mem::take(&mut block.best), within, r2 };
        all.best.clear();
        scan_nearest(s, block, i, centre, radius, &mut all);
        let best = &mut all.best;
        if best.len() > k {
            best.select_nth_unstable_by_key(k, |e| e.0);
            best.truncate(k);
        }
        best.sort_unstable_by_key(|e| e.0);
        out.extend(best.iter().copied().map(neighbour));
        block.best = all.best;
    }
}

/// The neighbour of a kept candidate: its key (squared distance's bits, storage index) and
/// offset.
#[inline(always)]
fn neighbour<V: CrowdVector>(
    s: &Storage<'_, V>,
    (key, o): (u64, V),
) -> crate::neighbours::Neighbour<V> {
    let j = key as u32 as usize;
    crate::neighbours::Neighbour {
        index: j,
        position: s.position[j],
        velocity: s.velocity[j],
        radius: s.radius[j],
        offset: o,
        distance_squared: f32::from_bits((key >> 32) as u32),
    }
}

/// The longest neighbour list kept sorted on the stack as it fills.
const KEPT: usize = 32;

/// Where [`scan_nearest`] puts the candidates below its bound.
trait Keep<V> {
    /// Keys at or above this are not kept (beyond the radius, or the farthest kept when full).
    fn bound(&self) -> u64;
    /// A band of rows farther than this (squared) holds nothing to keep: the farthest kept
    /// when full (only a sorted list knows it), else the radius.
    fn limit(&self) -> f32;
    fn offer(&mut self, key: u64, o: V);
}

/// The `k ≤ KEPT` nearest so far, sorted.
struct Kept<V> {
    keys: [u64; KEPT],
    offsets: [V; KEPT],
    len: usize,
    k: usize,
    within: u64,
    r2: f32,
}

/// A candidate's rank: its squared distance `d2` (m²), whose bits order as the non-negative
/// float, then its storage index `j` (a total order: the same at any thread count).
#[inline(always)]
fn key(d2: f32, j: usize) -> u64 {
    (u64::from(d2.to_bits()) << 32) | j as u64
}

/// Candidates are ranked by one integer key: squared distance, whose bits order as the
/// non-negative float, then storage index; a key below the first of `(bits(r²) + 1) << 32,
/// r²)` is within `radius`.
#[inline(always)]
fn within(radius: f32) -> (u64, f32) {
    let r2 = radius * radius;
    (if r2 >= 0.0 { (u64::from(r2.to_bits()) + 1) << 32 } else { 0 }, r2)
}

impl<V: CrowdVector> Kept<V> {
    /// None kept yet, of the `k ≤ KEPT` nearest within `radius`.
    #[inline(always)]
    fn new(k: usize, radius: f32) -> Self {
        let (within, r2) = within(radius);
        let within = if k == 0 { 0 } else { within };
        Kept { keys: [0; KEPT], offsets: [V::ZERO; KEPT], len: 0, k, within, r2 }
    }
}

impl<V: Copy> Keep<V> for Kept<V> {
    #[inline(always)]
    fn bound(&self) -> u64 {
        self.within
    }
    #[inline(always)]
    fn limit(&self) -> f32 {
        if self.len == self.k && self.k > 0 {
            f32::from_bits((self.within >> 32) as u32)
        } else {
            self.r2
        }
    }
    #[inline(always)]
    fn offer(&mut self, key: u64, o: V) {
        // insertion from the back, over the last when full: the few a candidate passes cost
        // less than a search and a moved tail
        let mut at = self.len;
        if at < self.k {
            self.len += 1;
        } else {
            at -= 1;
        }
        while at > 0 && self.keys[at - 1] > key {
            self.keys[at] = self.keys[at - 1];
            self.offsets[at] = self.offsets[at - 1];
            at -= 1;
        }
        self.keys[at] = key;
        self.offsets[at] = o;
        if self.len == self.k {
            self.within = self.keys[self.k - 1];
        }
    }
}

/// Every candidate within the radius, unsorted.
struct Collected<V> {
    best: Vec<(u64, V)>,
    within: u64,
    r2: f32,
}

impl<V> Keep<V> for Collected<V> {
    #[inline(always)]
    fn bound(&self) -> u64 {
        self.within
    }
    #[inline(always)]
    fn limit(&self) -> f32 {
        self.r2
    }
    #[inline(always)]
    fn offer(&mut self, key: u64, o: V) {
        self.best.push((key, o));
    }
}

/// Offers `keep` each candidate of the block's runs below its bound but agent `i` itself.
#[inline(always)]
fn scan_nearest<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &Block<V>,
    i: usize,
    centre: V,
    radius: f32,
    keep: &mut impl Keep<V>,
) {
    if block.min_image {
        // a torus too small for distinct images: each candidate's nearest image
        s.grid.for_each_run(centre, radius, |run, _, _| {
            for j in run {
                let o = s.bounds.offset(centre, s.position[j]);
                let key = key(o.length_squared(), j);
                if key < keep.bound() && j != i {
                    keep.offer(key, o);
                }
            }
        });
        return;
    }
    // straight from the storage's runs, as the gathered block computed it: the image first,
    // then the offset; the agent's own run first: its nearest fill the list early, so fewer
    // of the rest are inserted (the list is the same in any order: the keys are distinct)
    let own = block.runs.iter().position(|&(a, b, _)| (a as usize..b as usize).contains(&i));
    let runs = own.into_iter().chain((0..block.runs.len()).filter(|&r| Some(r) != own));
    for r in runs {
        // a band of rows farther than the farthest kept (or the radius) holds none of them
        let limit = keep.limit();
        let [y_lo, y_hi, z_lo, z_hi] = block.bands[r];
        let gap = |c: f32, lo: f32, hi: f32| (lo - c).max(c - hi).max(0.0);
        let dy = gap(centre.axis(1), y_lo, y_hi);
        let dz = if V::DIM > 2 { gap(centre.axis(2), z_lo, z_hi) } else { 0.0 };
        if dy * dy + dz * dz > limit {
            continue;
        }
        let (a, b, shift) = block.runs[r];
        let (a, b, shift) = (a as usize, b as usize, V::from_axes(shift));
        let run = &s.position[a..b];
        if shift == V::ZERO {
            offer_run(keep, run, a, i, |p| p - centre);
        } else {
            offer_run(keep, run, a, i, |p| (p + shift) - centre);
        }
    }
}

/// Offers `keep` each of `run` (the positions of agents `a..`) but agent `i`, at the offset
/// `offset` gives, below its bound.
#[inline(always)]
fn offer_run<V: CrowdVector>(
    keep: &mut impl Keep<V>,
    run: &[V],
    a: usize,
    i: usize,
    offset: impl Fn(V) -> V,
) {
    for (j, &p) in (a..).zip(run) {
        let o = offset(p);
        let key = key(o.length_squared(), j);
        if key < keep.bound() && j != i {
            keep.offer(key, o);
        }
    }
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

#[cfg(test)]
mod tests;
