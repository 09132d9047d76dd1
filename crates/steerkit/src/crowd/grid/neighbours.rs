//! The grid as the crowd's public neighbour source ([`GridNeighbours`]): radius queries and
//! the k nearest by rings of cells around the query.

use super::*;
use crate::crowd::space::WorldBounds;
use crate::crowd::CrowdVector;
use crate::neighbours::{Neighbour, NeighbourQuery, Neighbours};

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
