//! How group behaviours see other agents (Millington §3.4, Green, Buckland): the [`Neighbours`]
//! trait, the [`NeighbourQuery`] it answers (radius, optional view cone, self-exclusion), and a
//! brute-force implementation. The crowd engine's grid is another
//! ([`GridNeighbours`](crate::crowd::GridNeighbours)).
//!
//! The trait is a **visitor**: an implementation calls a closure once per neighbour, so a
//! spatial grid (the crowd engine's) can answer from its cell arrays with no allocation per
//! query, and the closure is monomorphised and inlined into the behaviour's loop. Every
//! implementation filters with [`NeighbourQuery::accepts`], so all of them agree on exactly
//! which agents are neighbours. Everything is generic over the space (`Vec2` or `Vec3`).

// `!(a <= b)` is deliberate: NaN fails the comparison and is rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::error::{non_negative, ParamError};
use crate::kinematic::Kinematic;
use crate::math::Vector;
use core::f32::consts::PI;
use glam::Vec2;

/// One agent found by a neighbour query.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Neighbour<V: Vector = Vec2> {
    /// The agent's index in the implementation's storage (for a slice, its position in it):
    /// use it to look up anything else (orientation, team, mass).
    pub index: usize,
    /// Position (m).
    pub position: V,
    /// Velocity (m/s).
    pub velocity: V,
    /// Bounding radius (m).
    pub radius: f32,
    /// `position − query.center` (m).
    pub offset: V,
    /// `|offset|²` (m²), already computed by the query.
    pub distance_squared: f32,
}

impl<V: Vector> Neighbour<V> {
    /// A neighbour of a character at `center`, for callers that hand behaviours their own list
    /// (the offset and squared distance are computed here).
    #[must_use]
    pub fn new(index: usize, position: V, velocity: V, radius: f32, center: V) -> Self {
        let offset = position - center;
        Neighbour {
            index,
            position,
            velocity,
            radius,
            offset,
            distance_squared: offset.length_squared(),
        }
    }
}

/// A field of view: offsets within `half_angle` of `facing` (Reynolds' "pie" mask; Buckland's
/// FOV tip). A 270° field of view is `half_angle = 3π/4`.
///
/// The test is `offset·f̂ ≥ |offset|·cos(half_angle)` (the in-front test must be *above* the
/// cosine: Green's prose has it backwards). A coincident agent (zero offset) is always seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewCone<V: Vector = Vec2> {
    facing: V,
    cos_half_angle: f32,
}

impl<V: Vector> ViewCone<V> {
    /// A cone around `facing` (any length: normalised here) with the given half angle in
    /// radians, `0 ≤ half_angle ≤ π` (π sees all round). A zero `facing` has no direction to
    /// be blind in, so its cone sees everything.
    ///
    /// # Errors
    /// [`ParamError`] when `half_angle` is NaN, infinite, negative or above π.
    pub fn new(facing: V, half_angle: f32) -> Result<Self, ParamError> {
        let half_angle = non_negative("half_angle", half_angle)?;
        if half_angle > PI {
            return Err(ParamError::OutOfRange {
                name: "half_angle",
                value: half_angle,
                range: "at most π",
            });
        }
        let facing = facing.normalize_or_zero();
        let cos_half_angle =
            if facing == V::ZERO || half_angle >= PI { -1.0 } else { half_angle.cos() };
        Ok(ViewCone { facing, cos_half_angle })
    }

    /// The unit facing (zero for an all-round cone built from a zero facing).
    #[must_use]
    #[inline]
    pub fn facing(&self) -> V {
        self.facing
    }

    /// `cos(half_angle)`; −1 sees all round.
    #[must_use]
    #[inline]
    pub fn cos_half_angle(&self) -> f32 {
        self.cos_half_angle
    }

    /// True when `offset` (target − viewer) is inside the cone.
    #[must_use]
    #[inline]
    pub fn contains(&self, offset: V) -> bool {
        self.contains_with_length_squared(offset, offset.length_squared())
    }

    #[inline]
    fn contains_with_length_squared(&self, offset: V, length_squared: f32) -> bool {
        self.cos_half_angle <= -1.0
            || offset.dot(self.facing) >= self.cos_half_angle * length_squared.sqrt()
    }
}

/// What a behaviour asks for: agents around `center`.
///
/// An agent with offset `Δ = position − center` and radius `r` is a neighbour when
/// - its index is not `exclude` (the asking agent itself), and
/// - `|Δ| ≤ radius`, or `|Δ| ≤ radius + r` when `include_neighbour_radius` is set (Buckland's
///   `TagNeighbors`: a big neighbour is seen as soon as its edge is in range), and
/// - `view` is `None` or contains `Δ`.
///
/// Boundaries are inclusive. `radius = f32::INFINITY` means everyone; a negative or NaN radius
/// finds no one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NeighbourQuery<V: Vector = Vec2> {
    /// Centre of the neighbourhood (m), usually the asking agent's position.
    pub center: V,
    /// Neighbourhood radius (m).
    pub radius: f32,
    /// Index to skip (the asking agent).
    pub exclude: Option<usize>,
    /// Count the neighbour's own radius toward the range.
    pub include_neighbour_radius: bool,
    /// Optional field of view.
    pub view: Option<ViewCone<V>>,
}

impl<V: Vector> NeighbourQuery<V> {
    /// Every agent within `radius` of `center`.
    #[must_use]
    #[inline]
    pub fn new(center: V, radius: f32) -> Self {
        NeighbourQuery {
            center,
            radius,
            exclude: None,
            include_neighbour_radius: false,
            view: None,
        }
    }

    /// The neighbourhood of agent `index` at `center`: that agent itself is skipped.
    #[must_use]
    #[inline]
    pub fn around(index: usize, center: V, radius: f32) -> Self {
        NeighbourQuery { exclude: Some(index), ..Self::new(center, radius) }
    }

    /// The same query restricted to a field of view.
    #[must_use]
    #[inline]
    pub fn with_view(self, view: ViewCone<V>) -> Self {
        NeighbourQuery { view: Some(view), ..self }
    }

    /// The same query counting each neighbour's radius toward the range.
    #[must_use]
    #[inline]
    pub fn including_neighbour_radius(self) -> Self {
        NeighbourQuery { include_neighbour_radius: true, ..self }
    }

    /// The filter every [`Neighbours`] implementation applies: `Some(|Δ|²)` when the agent at
    /// `index`, `position` with radius `neighbour_radius` is a neighbour, else `None`.
    #[must_use]
    #[inline]
    pub fn accepts(&self, index: usize, position: V, neighbour_radius: f32) -> Option<(V, f32)> {
        if self.exclude == Some(index) {
            return None;
        }
        let offset = position - self.center;
        let d2 = offset.length_squared();
        let reach = self.reach(neighbour_radius);
        if !(reach >= 0.0 && d2 <= reach * reach) {
            return None;
        }
        if let Some(view) = &self.view {
            if !view.contains_with_length_squared(offset, d2) {
                return None;
            }
        }
        Some((offset, d2))
    }

    /// The search reach for a neighbour of the given radius: `radius`, plus `neighbour_radius`
    /// when `include_neighbour_radius` is set. A grid searches the cells within
    /// `reach(largest radius)` of the centre.
    #[must_use]
    #[inline]
    pub fn reach(&self, neighbour_radius: f32) -> f32 {
        if self.include_neighbour_radius {
            self.radius + neighbour_radius.max(0.0)
        } else {
            self.radius
        }
    }
}

/// A source of neighbours: a slice scanned by brute force, a spatial grid, an engine's own
/// index.
///
/// Implementations call the visitor once for each agent that
/// [`NeighbourQuery::accepts`], in any order, and must not allocate per query. The methods are
/// generic (the visitor is inlined); wrap an implementation in your own enum if you need to
/// choose one at run time.
pub trait Neighbours<V: Vector = Vec2> {
    /// Calls `visit` for every neighbour matching `query`.
    fn for_each_within<F: FnMut(&Neighbour<V>)>(&self, query: &NeighbourQuery<V>, visit: F);

    /// The neighbour whose position is nearest to `query.center` (ties: lowest index), or
    /// `None`. Use `radius = f32::INFINITY` for no limit.
    fn nearest(&self, query: &NeighbourQuery<V>) -> Option<Neighbour<V>> {
        let mut best: Option<Neighbour<V>> = None;
        self.for_each_within(query, |n| {
            let better = best.is_none_or(|b| {
                n.distance_squared < b.distance_squared
                    || (n.distance_squared == b.distance_squared && n.index < b.index)
            });
            if better {
                best = Some(*n);
            }
        });
        best
    }

    /// How many neighbours match `query`.
    fn count_within(&self, query: &NeighbourQuery<V>) -> usize {
        let mut n = 0;
        self.for_each_within(query, |_| n += 1);
        n
    }
}

#[derive(Clone, Copy, Debug)]
enum Radii<'a> {
    Uniform(f32),
    PerAgent(&'a [f32]),
}

/// Brute force over a slice of kinematics: every query tests every agent, O(n). Right for small
/// groups (Buckland measured no gain from partitioning below about fifty agents) and as the
/// reference the crowd engine's grid is tested against.
#[derive(Clone, Copy, Debug)]
pub struct BruteForceNeighbours<'a, V: Vector = Vec2> {
    agents: &'a [Kinematic<V>],
    radii: Radii<'a>,
}

impl<'a, V: Vector> BruteForceNeighbours<'a, V> {
    /// Agents that all share one bounding radius (m).
    ///
    /// # Errors
    /// [`ParamError`] when `radius` is negative or not finite.
    pub fn new(agents: &'a [Kinematic<V>], radius: f32) -> Result<Self, ParamError> {
        Ok(BruteForceNeighbours { agents, radii: Radii::Uniform(non_negative("radius", radius)?) })
    }

    /// Agents with one bounding radius each (`radii[i]` for `agents[i]`).
    ///
    /// # Errors
    /// [`ParamError`] when the lengths differ (`"radii"`, the length of `radii`) or a radius is
    /// negative or not finite.
    pub fn with_radii(agents: &'a [Kinematic<V>], radii: &'a [f32]) -> Result<Self, ParamError> {
        if radii.len() != agents.len() {
            return Err(ParamError::Count {
                name: "radii",
                count: radii.len(),
                expected: "one radius per agent",
            });
        }
        for &r in radii {
            non_negative("radius", r)?;
        }
        Ok(BruteForceNeighbours { agents, radii: Radii::PerAgent(radii) })
    }

    /// The agents.
    #[must_use]
    #[inline]
    pub fn agents(&self) -> &'a [Kinematic<V>] {
        self.agents
    }

    /// Bounding radius of agent `index` (0 when out of range).
    #[must_use]
    #[inline]
    pub fn radius(&self, index: usize) -> f32 {
        match self.radii {
            Radii::Uniform(r) => r,
            Radii::PerAgent(r) => r.get(index).copied().unwrap_or(0.0),
        }
    }
}

impl<V: Vector> Neighbours<V> for BruteForceNeighbours<'_, V> {
    fn for_each_within<F: FnMut(&Neighbour<V>)>(&self, query: &NeighbourQuery<V>, mut visit: F) {
        for (index, agent) in self.agents.iter().enumerate() {
            let radius = self.radius(index);
            if let Some((offset, distance_squared)) = query.accepts(index, agent.position, radius) {
                visit(&Neighbour {
                    index,
                    position: agent.position,
                    velocity: agent.velocity,
                    radius,
                    offset,
                    distance_squared,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::FRAC_PI_2;
    use glam::Vec3;
    use proptest::prelude::*;

    fn at(x: f32, y: f32) -> Kinematic {
        Kinematic { position: Vec2::new(x, y), velocity: Vec2::new(x, -y), ..Default::default() }
    }

    fn indices<N: Neighbours<V>, V: Vector>(n: &N, q: &NeighbourQuery<V>) -> Vec<usize> {
        let mut v = Vec::new();
        n.for_each_within(q, |nb| v.push(nb.index));
        v.sort_unstable();
        v
    }

    #[test]
    fn radius_is_inclusive_and_self_is_excluded() {
        let agents = [at(0.0, 0.0), at(3.0, 4.0), at(3.0, 4.01), at(-1.0, 0.0)];
        let n = BruteForceNeighbours::new(&agents, 0.5).unwrap();
        assert_eq!(indices(&n, &NeighbourQuery::around(0, Vec2::ZERO, 5.0)), vec![1, 3]);
        assert_eq!(indices(&n, &NeighbourQuery::new(Vec2::ZERO, 5.0)), vec![0, 1, 3]);
        // Buckland's TagNeighbors: the neighbour's radius counts: 5.01 ≤ 5 + 0.5
        let q = NeighbourQuery::around(0, Vec2::ZERO, 5.0).including_neighbour_radius();
        assert_eq!(indices(&n, &q), vec![1, 2, 3]);
        assert_eq!(q.reach(0.5), 5.5);
        // the visitor gets the precomputed offset and squared distance
        let mut seen = Vec::new();
        n.for_each_within(&NeighbourQuery::around(0, Vec2::ZERO, 4.0), |nb| seen.push(*nb));
        assert_eq!(
            seen,
            vec![Neighbour {
                index: 3,
                position: Vec2::new(-1.0, 0.0),
                velocity: Vec2::new(-1.0, 0.0),
                radius: 0.5,
                offset: Vec2::new(-1.0, 0.0),
                distance_squared: 1.0,
            }]
        );
        // negative, NaN and infinite radii
        assert_eq!(n.count_within(&NeighbourQuery::new(Vec2::ZERO, -1.0)), 0);
        assert_eq!(n.count_within(&NeighbourQuery::new(Vec2::ZERO, f32::NAN)), 0);
        assert_eq!(n.count_within(&NeighbourQuery::around(2, Vec2::ZERO, f32::INFINITY)), 3);
    }

    #[test]
    fn view_cone_excludes_what_is_behind() {
        // viewer at the origin facing +x; agents ahead, abeam left, behind-left (129.8°), behind
        let agents = [at(0.0, 0.0), at(2.0, 0.0), at(0.0, 2.0), at(-1.0, 1.2), at(-2.0, 0.0)];
        let n = BruteForceNeighbours::new(&agents, 0.0).unwrap();
        let q = |half: f32| {
            NeighbourQuery::around(0, Vec2::ZERO, 10.0)
                .with_view(ViewCone::new(Vec2::X * 3.0, half).unwrap())
        };
        // Buckland's 270° field of view: everything but the 90° wedge behind
        assert_eq!(indices(&n, &q(3.0 * core::f32::consts::FRAC_PI_4)), vec![1, 2, 3]);
        // 180°: ahead and exactly abeam (inclusive)
        assert_eq!(indices(&n, &q(FRAC_PI_2)), vec![1, 2]);
        // 0: only dead ahead
        assert_eq!(indices(&n, &q(0.0)), vec![1]);
        // π: all round, including straight behind
        assert_eq!(indices(&n, &q(core::f32::consts::PI)), vec![1, 2, 3, 4]);
        // a coincident agent is always seen; a zero facing sees everything
        let twins = [at(1.0, 1.0), at(1.0, 1.0), at(0.0, 1.0)];
        let t = BruteForceNeighbours::new(&twins, 0.0).unwrap();
        let narrow = ViewCone::new(Vec2::Y, 0.1).unwrap();
        assert_eq!(
            indices(&t, &NeighbourQuery::around(0, Vec2::ONE, 5.0).with_view(narrow)),
            vec![1]
        );
        let blind = ViewCone::new(Vec2::ZERO, 0.1).unwrap();
        assert_eq!(blind.cos_half_angle(), -1.0);
        assert_eq!(
            indices(&t, &NeighbourQuery::around(0, Vec2::ONE, 5.0).with_view(blind)),
            vec![1, 2]
        );
        assert!(ViewCone::new(Vec2::X, -0.1).is_err());
        assert!(ViewCone::new(Vec2::X, 3.2).is_err());
        assert!(ViewCone::new(Vec2::X, f32::NAN).is_err());
        assert!((ViewCone::new(Vec2::X * 5.0, 1.0).unwrap().facing() - Vec2::X).length() < 1e-6);
    }

    #[test]
    fn nearest_breaks_ties_by_index_and_works_in_3d() {
        let agents = [at(0.0, 0.0), at(0.0, 2.0), at(2.0, 0.0), at(0.0, -2.0), at(5.0, 5.0)];
        let n = BruteForceNeighbours::new(&agents, 0.0).unwrap();
        let best = n.nearest(&NeighbourQuery::around(0, Vec2::ZERO, f32::INFINITY)).unwrap();
        assert_eq!((best.index, best.distance_squared), (1, 4.0));
        assert!(n.nearest(&NeighbourQuery::around(0, Vec2::ZERO, 1.9)).is_none());
        let behind_only = NeighbourQuery::around(0, Vec2::ZERO, 9.0)
            .with_view(ViewCone::new(Vec2::new(1.0, 1.0), 0.2).unwrap());
        assert_eq!(n.nearest(&behind_only).unwrap().index, 4);
        // 3D, with one radius per agent
        let a3 = [
            Kinematic::<Vec3>::at_rest(Vec3::ZERO, Default::default()),
            Kinematic::<Vec3>::at_rest(Vec3::new(0.0, 3.0, 0.0), Default::default()),
            Kinematic::<Vec3>::at_rest(Vec3::new(0.0, 0.0, -4.0), Default::default()),
        ];
        let radii = [0.0, 0.0, 1.5];
        let n3 = BruteForceNeighbours::with_radii(&a3, &radii).unwrap();
        let q = NeighbourQuery::around(0, Vec3::ZERO, 3.0);
        assert_eq!(indices(&n3, &q), vec![1]);
        assert_eq!(indices(&n3, &q.including_neighbour_radius()), vec![1, 2]);
        let up = ViewCone::new(Vec3::Y, 0.5).unwrap();
        assert_eq!(indices(&n3, &q.including_neighbour_radius().with_view(up)), vec![1]);
        assert_eq!(n3.nearest(&q.including_neighbour_radius()).unwrap().index, 1);
        assert!(BruteForceNeighbours::with_radii(&a3, &radii[..2]).is_err());
        assert!(BruteForceNeighbours::with_radii(&a3, &[0.0, -1.0, 0.0]).is_err());
        assert!(BruteForceNeighbours::new(&a3, f32::INFINITY).is_err());
        assert_eq!(n3.radius(2), 1.5);
        assert_eq!(n3.agents().len(), 3);
    }

    /// A uniform grid implementing the same trait without allocating per query (counting sort
    /// by cell, contiguous runs): the shape of the crowd engine's index.
    struct Grid<'a> {
        agents: &'a [Kinematic],
        radius: f32,
        cell: f32,
        origin: Vec2,
        dims: (usize, usize),
        starts: Vec<u32>,
        sorted: Vec<u32>,
    }

    impl<'a> Grid<'a> {
        fn new(agents: &'a [Kinematic], radius: f32, cell: f32) -> Self {
            let mut lo = Vec2::splat(f32::INFINITY);
            let mut hi = Vec2::splat(f32::NEG_INFINITY);
            for a in agents {
                lo = lo.min(a.position);
                hi = hi.max(a.position);
            }
            if agents.is_empty() {
                (lo, hi) = (Vec2::ZERO, Vec2::ZERO);
            }
            let dims = (((hi.x - lo.x) / cell) as usize + 1, ((hi.y - lo.y) / cell) as usize + 1);
            let mut g = Grid {
                agents,
                radius,
                cell,
                origin: lo,
                dims,
                starts: vec![0; dims.0 * dims.1 + 1],
                sorted: vec![0; agents.len()],
            };
            for a in agents {
                let c = g.cell_of(a.position);
                g.starts[c + 1] += 1;
            }
            for i in 1..g.starts.len() {
                g.starts[i] += g.starts[i - 1];
            }
            let mut fill = g.starts.clone();
            for (i, a) in agents.iter().enumerate() {
                let c = g.cell_of(a.position);
                g.sorted[fill[c] as usize] = i as u32;
                fill[c] += 1;
            }
            g
        }
        fn coords(&self, p: Vec2) -> (usize, usize) {
            let c = ((p - self.origin) / self.cell).max(Vec2::ZERO);
            ((c.x as usize).min(self.dims.0 - 1), (c.y as usize).min(self.dims.1 - 1))
        }
        fn cell_of(&self, p: Vec2) -> usize {
            let (x, y) = self.coords(p);
            y * self.dims.0 + x
        }
    }

    impl Neighbours for Grid<'_> {
        fn for_each_within<F: FnMut(&Neighbour)>(&self, q: &NeighbourQuery, mut visit: F) {
            let reach = q.reach(self.radius);
            if !(reach >= 0.0) {
                return;
            }
            let (x0, y0) = self.coords(q.center - Vec2::splat(reach));
            let (x1, y1) = self.coords(q.center + Vec2::splat(reach));
            for y in y0..=y1 {
                let row = y * self.dims.0;
                let run = self.starts[row + x0] as usize..self.starts[row + x1 + 1] as usize;
                for &i in &self.sorted[run] {
                    let a = &self.agents[i as usize];
                    if let Some((offset, distance_squared)) =
                        q.accepts(i as usize, a.position, self.radius)
                    {
                        visit(&Neighbour {
                            index: i as usize,
                            position: a.position,
                            velocity: a.velocity,
                            radius: self.radius,
                            offset,
                            distance_squared,
                        });
                    }
                }
            }
        }
    }

    fn agent() -> impl Strategy<Value = Kinematic> {
        prop_oneof![
            (-5i32..5, -5i32..5).prop_map(|(x, y)| at(x as f32, y as f32)),
            (-20.0f32..20.0, -20.0f32..20.0).prop_map(|(x, y)| at(x, y)),
        ]
    }

    proptest! {
        #[test]
        fn a_grid_and_brute_force_find_the_same_neighbours(
            agents in prop::collection::vec(agent(), 0..120),
            center in (-25.0f32..25.0, -25.0f32..25.0),
            radius in prop_oneof![Just(0.0f32), 0.0f32..15.0],
            self_index in 0usize..120,
            body in 0.0f32..2.0,
            add_radius: bool,
            cone in proptest::option::of((-3.2f32..3.2, 0.0f32..core::f32::consts::PI)),
            cell in 0.5f32..6.0,
        ) {
            let brute = BruteForceNeighbours::new(&agents, body).unwrap();
            let grid = Grid::new(&agents, body, cell);
            let mut q = NeighbourQuery::around(self_index, Vec2::new(center.0, center.1), radius);
            q.include_neighbour_radius = add_radius;
            if let Some((angle, half)) = cone {
                q = q.with_view(ViewCone::new(Vec2::from_angle(angle), half).unwrap());
            }
            prop_assert_eq!(indices(&grid, &q), indices(&brute, &q));
            prop_assert_eq!(grid.nearest(&q), brute.nearest(&q));
            // the set is exactly the definition, checked independently
            let want: Vec<usize> = agents.iter().enumerate().filter(|(i, a)| {
                let d = a.position - q.center;
                let reach = if add_radius { radius + body } else { radius };
                *i != self_index && d.length() <= reach * (1.0 + 1e-6)
                    && cone.is_none_or_cone(d)
            }).map(|(i, _)| i).collect();
            let got = indices(&brute, &q);
            // equal up to agents on the boundary (within rounding)
            for i in got.iter().filter(|i| !want.contains(i)) {
                let d = (agents[*i].position - q.center).length();
                prop_assert!((d - q.reach(body)).abs() < 1e-3, "{} extra at {}", i, d);
            }
            for i in want.iter().filter(|i| !got.contains(i)) {
                let d = agents[*i].position - q.center;
                let on_edge = (d.length() - q.reach(body)).abs() < 1e-3;
                let on_cone = q.view.is_some_and(|v| (d.normalize_or_zero().dot(v.facing()) - v.cos_half_angle()).abs() < 1e-4);
                prop_assert!(on_edge || on_cone, "{} missing", i);
            }
        }

        #[test]
        fn no_nan_for_coincident_and_degenerate_agents(
            agents in prop::collection::vec((-2i32..2, -2i32..2).prop_map(|(x, y)| at(x as f32, y as f32)), 0..20),
            facing in (-1i32..=1, -1i32..=1),
            half in 0.0f32..=core::f32::consts::PI,
        ) {
            let n = BruteForceNeighbours::new(&agents, 0.0).unwrap();
            let cone = ViewCone::new(Vec2::new(facing.0 as f32, facing.1 as f32), half).unwrap();
            let q = NeighbourQuery::around(0, Vec2::ZERO, 2.0).with_view(cone).including_neighbour_radius();
            n.for_each_within(&q, |nb| {
                assert!(nb.offset.is_finite() && nb.distance_squared.is_finite());
            });
            if let Some(b) = n.nearest(&q) {
                prop_assert!(b.distance_squared.is_finite());
            }
        }
    }

    trait ConeCheck {
        fn is_none_or_cone(&self, d: Vec2) -> bool;
    }
    impl ConeCheck for Option<(f32, f32)> {
        fn is_none_or_cone(&self, d: Vec2) -> bool {
            match *self {
                None => true,
                Some((angle, half)) => {
                    d == Vec2::ZERO || Vec2::from_angle(angle).angle_to(d).abs() <= half + 1e-6
                }
            }
        }
    }
}
