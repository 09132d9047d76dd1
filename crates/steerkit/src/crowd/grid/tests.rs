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
        assert_eq!(g.sparse_cell_holding(first, c.checked_sub(1).map(|c| c as u32)), (cell, at));
        let (x0, x1) = (at[0].saturating_sub(1), (at[0] + 1).min(g.dims[0] - 1));
        let (mut by_row, mut by_rank) = (None, None);
        g.row_run(at[1], x0, x1, |a, b| by_row = Some((a, b)));
        g.own_row_run(c, x0, x1, |a, b| by_rank = Some((a, b)));
        assert_eq!(by_row, by_rank);
    }
    // a point in empty space is in no cell
    assert_eq!(g.cell_and_coordinates(Vec2::ZERO).0, u32::MAX);
    // the same agents packed densely get the ordinary dense grid
    let packed: Vec<Vec2> = (0..n).map(|k| Vec2::new((k % 100) as f32, (k / 100) as f32)).collect();
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
