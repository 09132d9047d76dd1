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
    let with_cones = recipes::<V>().into_iter().flat_map(|r| [(r.clone(), None), (r, Some(1.5))]);
    for (recipe, cone) in with_cones {
        let mut avx2 = crowd(recipe, cone, n, side, &mut rng);
        let mut portable = avx2.clone();
        portable.order.avx2 = false;
        for step in 0..20 {
            avx2.step(1.0 / 30.0).unwrap();
            portable.step(1.0 / 30.0).unwrap();
            for i in 0..n {
                for (a, b) in [
                    (avx2.agents.position[i], portable.agents.position[i]),
                    (avx2.agents.velocity[i], portable.agents.velocity[i]),
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
    for (side, agents, torus) in
        [(3.0, 40, true), (4.0, 300, true), (9.5, 400, true), (9.5, 3000, true), (12.0, 900, false)]
    {
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
                let (mut short, mut general) = (Block::<Vec2>::default(), Block::<Vec2>::default());
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

/// ORCA's neighbour list ([`super::nearest_list`]) is the brute-force `k` nearest within the
/// radius, nearest first by squared distance then storage index, both for a bounded list
/// (`k ≤ 32`, kept sorted as it fills) and a collected one (`k > 32`, whose rows are never
/// skipped on its unsorted last entry).
#[test]
fn the_neighbour_list_is_the_brute_force_k_nearest() {
    use super::{nearest_list, Block, Storage};
    let mut rng = Rng::new(21);
    let bounds = WorldBounds::Bounded { min: Vec2::ZERO, max: Vec2::new(12.0, 8.0) };
    let mut crowd = Crowd::new(CrowdConfig::new(1.0).with_bounds(bounds)).unwrap();
    let g = crowd.add_group(Group::new(Recipe::Blend(Vec::new()))).unwrap();
    let limits = Limits::new(1.0, 1.0, 1.0, 1.0).unwrap();
    for _ in 0..2500 {
        // denser toward the low corner: some agents have more than 40 neighbours, some few
        let p = Vec2::new(rng.uniform().powi(2) * 11.9, rng.uniform().powi(2) * 7.9);
        crowd.spawn(AgentSpec::new(p, 0.05, limits, g)).unwrap();
    }
    crowd.step(0.0).unwrap();
    let s = Storage {
        grid: &crowd.order.grid,
        bounds: &crowd.config.bounds,
        position: &crowd.agents.position,
        velocity: &crowd.agents.velocity,
        radius: &crowd.agents.radius,
        soa: &crowd.agents.soa,
        avx2: crowd.order.avx2,
    };
    let p = &crowd.agents.position;
    let mut block = Block::default();
    let mut list = Vec::new();
    for k in [7, 40, 64] {
        for i in 0..p.len() {
            let mut near: Vec<(f32, usize)> = (0..p.len())
                .filter(|&j| j != i)
                .map(|j| ((p[j] - p[i]).length_squared(), j))
                .filter(|x| x.0 <= 1.0)
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            near.truncate(k);
            nearest_list(&s, &mut block, i, p[i], 1.0, k, &mut list);
            let got: Vec<usize> = list.iter().map(|n| n.index).collect();
            let want: Vec<usize> = near.iter().map(|x| x.1).collect();
            assert_eq!(got, want, "agent {i}, k = {k}");
        }
    }
}
