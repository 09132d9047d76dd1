//! The single neighbour pass of the compute phase: one scan of the grid runs around an agent
//! collects every sum the group leaves need (see `recipe::Summary`).
//!
//! The scan is split in two loops so the hot one stays tight: the first computes offsets and
//! squared distances for every candidate of a run and keeps the accepted ones in a small
//! on-stack batch (a branch-free append); the second folds the batch into the sums.

use super::grid::Grid;
use super::recipe::{Plan, Summary};
use super::space::{CrowdVector, WorldBounds};
use crate::kinematic::Limits;
use crate::neighbours::ViewCone;

/// Accepted candidates buffered before folding.
const BATCH: usize = 32;

/// The storage the scan reads (cell-sorted).
pub(crate) struct Storage<'a, V: CrowdVector> {
    pub grid: &'a Grid,
    pub bounds: &'a WorldBounds<V>,
    pub position: &'a [V],
    pub velocity: &'a [V],
    /// Unit velocities (empty when no group aligns headings).
    pub unit: &'a [V],
    pub radius: &'a [f32],
}

/// The candidates of one cell's 3×3(×3) block, gathered once and shared by every agent of the
/// cell (agents are sorted by cell, so consecutive agents reuse it): positions already moved
/// to the image nearest the cell, so the per-agent scan is one subtraction per candidate.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block<V: CrowdVector> {
    cell: Option<u32>,
    /// The block needs the per-candidate minimum image (a torus too small for it): scan the
    /// runs instead.
    min_image: bool,
    position: Vec<V>,
    index: Vec<u32>,
}

impl<V: CrowdVector> Block<V> {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.position.capacity() * size_of::<V>() + self.index.capacity() * 4
    }

    /// Forgets the block (the storage was re-sorted).
    pub(crate) fn clear(&mut self) {
        self.cell = None;
    }

    fn fill(&mut self, s: &Storage<'_, V>, cell: u32) {
        self.cell = Some(cell);
        self.min_image = false;
        self.position.clear();
        self.index.clear();
        let g = s.grid;
        let mut c = [0.0f32; 3];
        let mut rest = cell as usize;
        let mut reach = 0.0f32;
        for (a, ca) in c.iter_mut().enumerate().take(V::DIM) {
            let edge = 1.0 / g.inv_cell[a];
            let k = rest % g.dims[a];
            rest /= g.dims[a];
            *ca = g.origin[a] + (k as f32 + 0.5) * edge;
            reach = reach.max(edge);
        }
        // the cell's centre ± one edge: the cell and its neighbours, which hold every agent
        // within one neighbour radius (≤ the edge) of any point of the cell
        let centre = V::from_axes(c);
        let (position, index) = (&mut self.position, &mut self.index);
        let mut min_image = false;
        g.for_each_run(centre, reach, |run, shift, needs_min_image| {
            min_image |= needs_min_image;
            for j in run {
                position.push(s.position[j] + shift);
                index.push(j as u32);
            }
        });
        self.min_image = min_image;
    }
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
    let mut off = [V::ZERO; BATCH];
    let mut idx = [0u32; BATCH];
    let mut m = 0usize;
    let own_radius = s.radius[i];
    let mut fold = |off: &[V], idx: &[u32]| fold(s, off, idx, own_radius, cone, plan, limits, sum);
    let cell = s.grid.cell_of(centre);
    if block.cell != Some(cell) {
        block.fill(s, cell);
    }
    if !block.min_image {
        for (&p, &j) in block.position.iter().zip(&block.index) {
            let o = p - centre;
            off[m] = o;
            idx[m] = j;
            m += usize::from((o.length_squared() <= r2) & (j as usize != i));
            if m == BATCH {
                fold(&off, &idx);
                m = 0;
            }
        }
        fold(&off[..m], &idx[..m]);
        return;
    }
    s.grid.for_each_run(centre, radius, |run, _, _| {
        for j in run {
            let o = s.bounds.offset(centre, s.position[j]);
            off[m] = o;
            idx[m] = j as u32;
            m += usize::from((o.length_squared() <= r2) & (j != i));
            if m == BATCH {
                fold(&off, &idx);
                m = 0;
            }
        }
    });
    fold(&off[..m], &idx[..m]);
}

/// Folds a batch of accepted candidates into the sums.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fold<V: CrowdVector>(
    s: &Storage<'_, V>,
    off: &[V],
    idx: &[u32],
    own_radius: f32,
    cone: Option<&ViewCone<V>>,
    plan: &Plan,
    limits: &Limits,
    sum: &mut Summary<V>,
) {
    // the common recipes hold one separation: keep its loop free of the inner iteration
    match plan.separations.as_slice() {
        [sep] => {
            for (&o, &j) in off.iter().zip(idx) {
                let j = j as usize;
                if cone.is_some_and(|c| !c.contains(o)) {
                    continue;
                }
                add(s, sum, plan, o, j);
                sep.accumulate(&mut sum.separation[0], -o, own_radius, s.radius[j], limits);
            }
        }
        seps => {
            for (&o, &j) in off.iter().zip(idx) {
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
        sum.heading += s.unit[j];
    }
}
