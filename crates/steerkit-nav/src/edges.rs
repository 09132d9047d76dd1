//! A uniform grid over the mesh's boundary edges, so that a ray cast tests the edges of the
//! cells it crosses (Amanatides and Woo's traversal) instead of every edge: the passage search
//! casts some hundred thousand rays on a level with pillars, each against ~1,000 edges.

use steerkit::Vec2;

/// Edges are listed in every cell their box, grown by this (m), touches: a ray that meets an
/// edge meets it in a cell that lists it, whatever the rounding of the traversal.
const PAD: f32 = 1e-3;
/// Cells per axis at most.
const MAX_CELLS: usize = 1024;

/// The grid: cell `(x, y)` lists `items[start[c]..start[c + 1]]` for `c = y·dims[0] + x`.
#[derive(Clone, Debug, Default)]
pub(crate) struct EdgeGrid {
    pub(crate) origin: Vec2,
    pub(crate) cell: f32,
    dims: [usize; 2],
    start: Vec<u32>,
    items: Vec<u32>,
}

impl EdgeGrid {
    /// The grid over `edges` (about two edges per cell of a uniform spread).
    pub(crate) fn new(edges: &[(Vec2, Vec2)]) -> Self {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &(a, b) in edges {
            (lo, hi) = (lo.min(a.min(b)), hi.max(a.max(b)));
        }
        if edges.is_empty() || !lo.is_finite() || !hi.is_finite() {
            return EdgeGrid::default();
        }
        let (lo, hi) = (lo - Vec2::splat(2.0 * PAD), hi + Vec2::splat(2.0 * PAD));
        let size = hi - lo;
        let cell = (2.0 * size.x * size.y / edges.len() as f32)
            .sqrt()
            .max(size.max_element() / MAX_CELLS as f32)
            .max(1e-3);
        let dims = [
            ((size.x / cell).ceil() as usize).clamp(1, MAX_CELLS),
            ((size.y / cell).ceil() as usize).clamp(1, MAX_CELLS),
        ];
        let mut grid = EdgeGrid { origin: lo, cell, dims, start: Vec::new(), items: Vec::new() };
        let ranges: Vec<_> = edges.iter().map(|&(a, b)| grid.cells(a.min(b), a.max(b))).collect();
        let mut count = vec![0u32; dims[0] * dims[1] + 1];
        for &([x0, y0], [x1, y1]) in &ranges {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    count[y * dims[0] + x + 1] += 1;
                }
            }
        }
        for c in 1..count.len() {
            count[c] += count[c - 1];
        }
        let mut fill = count.clone();
        grid.items = vec![0; count[dims[0] * dims[1]] as usize];
        for (i, &([x0, y0], [x1, y1])) in ranges.iter().enumerate() {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = y * dims[0] + x;
                    grid.items[fill[c] as usize] = i as u32;
                    fill[c] += 1;
                }
            }
        }
        grid.start = count;
        grid
    }

    /// The cells (inclusive corners) touched by the box `lo..hi` grown by [`PAD`].
    fn cells(&self, lo: Vec2, hi: Vec2) -> ([usize; 2], [usize; 2]) {
        let at = |p: Vec2, axis: usize| {
            let c = ((p[axis] - self.origin[axis]) / self.cell).floor();
            (c.max(0.0) as usize).min(self.dims[axis] - 1)
        };
        let (lo, hi) = (lo - Vec2::splat(PAD), hi + Vec2::splat(PAD));
        ([at(lo, 0), at(lo, 1)], [at(hi, 0), at(hi, 1)])
    }

    /// Walks the cells the ray from `from` along the unit `dir` crosses up to `max` (m), in
    /// order, handing `visit` each cell's edge indices; `visit` returns the nearest hit so far,
    /// and the walk stops once no edge of a later cell can be nearer.
    pub(crate) fn walk(
        &self,
        from: Vec2,
        dir: Vec2,
        max: f32,
        mut visit: impl FnMut(&[u32]) -> f32,
    ) {
        if self.start.is_empty() || !from.is_finite() || !dir.is_finite() || max.is_nan() {
            return;
        }
        // the part of the ray inside the grid's box
        let size = Vec2::new(self.dims[0] as f32, self.dims[1] as f32) * self.cell;
        let (mut t0, mut t1) = (0.0f32, max);
        for axis in 0..2 {
            let (o, d) = (from[axis] - self.origin[axis], dir[axis]);
            if d == 0.0 {
                if o < 0.0 || o > size[axis] {
                    return;
                }
                continue;
            }
            let (a, b) = ((0.0 - o) / d, (size[axis] - o) / d);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
        if t0 > t1 {
            return;
        }
        let p = from + dir * t0;
        let mut cell = [0usize; 2];
        let mut next = [f32::INFINITY; 2];
        let mut delta = [f32::INFINITY; 2];
        let mut step = [0isize; 2];
        for axis in 0..2 {
            let c = ((p[axis] - self.origin[axis]) / self.cell).floor();
            cell[axis] = (c.max(0.0) as usize).min(self.dims[axis] - 1);
            let d = dir[axis];
            if d != 0.0 {
                let edge = self.origin[axis]
                    + self.cell * (cell[axis] as f32 + if d > 0.0 { 1.0 } else { 0.0 });
                next[axis] = (edge - from[axis]) / d;
                delta[axis] = self.cell / d.abs();
                step[axis] = if d > 0.0 { 1 } else { -1 };
            }
        }
        loop {
            let c = cell[1] * self.dims[0] + cell[0];
            let best = visit(&self.items[self.start[c] as usize..self.start[c + 1] as usize]);
            let axis = usize::from(next[1] < next[0]);
            let exit = next[axis];
            // an edge listed only later meets the ray after this cell (less the rounding)
            if best <= exit - 1e-4 || exit > t1 {
                return;
            }
            let moved = cell[axis] as isize + step[axis];
            if moved < 0 || moved >= self.dims[axis] as isize {
                return;
            }
            cell[axis] = moved as usize;
            next[axis] += delta[axis];
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Level, NavMesh};
    use steerkit::Vec2;

    /// The grid's ray casts give every ray the distance a scan of all the boundary edges
    /// gives, bit for bit: rays from points on and off the mesh of a level with 40 pillars
    /// (the comparison level), in every direction, along the axes and through the cell
    /// corners, short and long.
    #[test]
    fn ray_casts_through_the_grid_meet_the_boundary_as_a_scan_of_every_edge() {
        let mut level = Level::rectangle(Vec2::new(-50.0, -50.0), Vec2::new(50.0, 50.0));
        for i in 0..8 {
            for j in 0..5 {
                let c = Vec2::new(-42.0 + 12.0 * i as f32, -36.0 + 18.0 * j as f32);
                let (lo, hi) = (c - Vec2::splat(1.0), c + Vec2::splat(1.0));
                level.obstacles.push(vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]);
            }
        }
        let mesh = NavMesh::build(&level, 0.4, 0.1).unwrap();
        let scan = |from: Vec2, dir: Vec2, max: f32| {
            mesh.boundary.iter().filter_map(|e| e.meets(from, dir)).fold(max, f32::min)
        };
        let mut rng = steerkit::math::Rng::new(3);
        let mut hits = 0;
        for k in 0..20_000 {
            let from = Vec2::new(rng.clamped(), rng.clamped()) * 60.0;
            let dir = match k % 4 {
                0 => Vec2::X,
                1 => -Vec2::Y,
                2 => (mesh.grid.origin + Vec2::splat(mesh.grid.cell * 7.0) - from).normalize(),
                _ => Vec2::from_angle(rng.uniform() * core::f32::consts::TAU),
            };
            let max = if k % 3 == 0 { 1.0e4 } else { 5.0 * rng.uniform() };
            let (a, b) = (mesh.free_distance(from, dir, max), scan(from, dir, max));
            assert_eq!(a.to_bits(), b.to_bits(), "from {from} along {dir} up to {max}");
            hits += usize::from(a < max);
        }
        assert!(hits > 5_000, "{hits} rays met the boundary");
    }
}
