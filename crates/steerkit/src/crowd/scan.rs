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

/// Sums over the neighbours of agent `i` at `centre` within `radius` (inclusive, as
/// `NeighbourQuery::accepts`) and inside `cone` if any.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn summarise<V: CrowdVector>(
    s: &Storage<'_, V>,
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
    s.grid.for_each_run(centre, radius, |run, shift, min_image| {
        if min_image {
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
        } else {
            for j in run {
                let o = (s.position[j] - centre) + shift;
                off[m] = o;
                idx[m] = j as u32;
                m += usize::from((o.length_squared() <= r2) & (j != i));
                if m == BATCH {
                    fold(&off, &idx);
                    m = 0;
                }
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
    for (&o, &j) in off.iter().zip(idx) {
        let j = j as usize;
        if let Some(cone) = cone {
            if !cone.contains(o) {
                continue;
            }
        }
        sum.count += 1;
        sum.offset += o;
        sum.velocity += s.velocity[j];
        if plan.needs_headings {
            sum.heading += s.unit[j];
        }
        for (sep, acc) in plan.separations.iter().zip(sum.separation.iter_mut()) {
            sep.accumulate(acc, -o, own_radius, s.radius[j], limits);
        }
    }
}
