//! Graphs for the planning decomposer and an A* search over them (Millington Ch. 4, as used by
//! the pipeline's `PlanningDecomposer`, §3.4.5).

use crate::error::{non_negative, positive, ParamError};
use crate::geometry::ObstacleSet;
use crate::geometry::{Aabb, Circle};
use crate::math::Vector;
use core::cmp::Ordering;
use glam::Vec2;
use std::collections::BinaryHeap;

/// A graph of positions for path planning. Nodes are dense indices `0..node_count()`.
pub trait Graph<V: Vector = Vec2> {
    /// The number of nodes.
    fn node_count(&self) -> usize;

    /// The node a position quantizes to (the book's `getNode`), or `None` outside the graph.
    fn node_at(&self, position: V) -> Option<usize>;

    /// A node's position (m).
    fn position(&self, node: usize) -> V;

    /// Calls `f(neighbour, cost)` for every edge leaving `node`; costs are ≥ 0 (m for the
    /// graphs here).
    fn for_each_edge(&self, node: usize, f: impl FnMut(usize, f32));

    /// A lower bound of the cost from `from` to `to`; the straight-line distance by default,
    /// which is admissible and consistent when edge costs are at least the distances they span.
    fn heuristic(&self, from: usize, to: usize) -> f32 {
        (self.position(to) - self.position(from)).length()
    }
}

impl<V: Vector, G: Graph<V> + ?Sized> Graph<V> for &G {
    fn node_count(&self) -> usize {
        (**self).node_count()
    }
    fn node_at(&self, position: V) -> Option<usize> {
        (**self).node_at(position)
    }
    fn position(&self, node: usize) -> V {
        (**self).position(node)
    }
    fn for_each_edge(&self, node: usize, f: impl FnMut(usize, f32)) {
        (**self).for_each_edge(node, f);
    }
    fn heuristic(&self, from: usize, to: usize) -> f32 {
        (**self).heuristic(from, to)
    }
}

/// An open-list entry: ordered so that the max-heap pops the least `f`, then the greatest `g`
/// (deeper first), then the lowest node: deterministic whatever the insertion order.
#[derive(Clone, Copy, Debug)]
struct Open {
    f: f32,
    g: f32,
    node: u32,
}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then(self.g.total_cmp(&other.g)).then(other.node.cmp(&self.node))
    }
}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Open {}

/// A* search with reusable buffers: after the first search on a graph, searches allocate
/// nothing (per-node arrays are invalidated by a generation stamp, not cleared).
///
/// Costs are `f32` (compared with `total_cmp`); the open list is a binary heap with lazy
/// deletion. With a consistent heuristic the path is a least-cost one; ties are broken
/// deterministically.
#[derive(Clone, Debug, Default)]
pub struct AStar {
    g: Vec<f32>,
    parent: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
    open: BinaryHeap<Open>,
    path: Vec<usize>,
}

impl AStar {
    /// An empty search (buffers grow on first use).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The least-cost path from `start` to `goal` as node indices, both included (`[start]` when
    /// they are equal), or `None` when `goal` cannot be reached or an index is out of range.
    pub fn find<V: Vector, G: Graph<V> + ?Sized>(
        &mut self,
        graph: &G,
        start: usize,
        goal: usize,
    ) -> Option<&[usize]> {
        let n = graph.node_count();
        if start >= n || goal >= n || n > u32::MAX as usize {
            return None;
        }
        if self.stamp.len() < n {
            self.g.resize(n, 0.0);
            self.parent.resize(n, 0);
            self.stamp.resize(n, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        let generation = self.generation;
        self.open.clear();
        self.path.clear();
        self.stamp[start] = generation;
        self.g[start] = 0.0;
        self.parent[start] = start as u32;
        self.open.push(Open { f: graph.heuristic(start, goal), g: 0.0, node: start as u32 });
        let (g_cost, parent, stamp, open) =
            (&mut self.g, &mut self.parent, &mut self.stamp, &mut self.open);
        while let Some(Open { g, node, .. }) = open.pop() {
            let node = node as usize;
            if g > g_cost[node] {
                continue; // a stale entry
            }
            if node == goal {
                let mut at = goal;
                self.path.push(at);
                while at != start {
                    at = parent[at] as usize;
                    self.path.push(at);
                }
                self.path.reverse();
                return Some(&self.path);
            }
            graph.for_each_edge(node, |next, cost| {
                if next >= n || cost.is_nan() || cost < 0.0 {
                    return;
                }
                let candidate = g + cost;
                if stamp[next] != generation || candidate < g_cost[next] {
                    stamp[next] = generation;
                    g_cost[next] = candidate;
                    parent[next] = node as u32;
                    let f = candidate + graph.heuristic(next, goal);
                    open.push(Open { f, g: candidate, node: next as u32 });
                }
            });
        }
        None
    }

    /// The path found by the last successful [`find`](AStar::find).
    #[must_use]
    pub fn path(&self) -> &[usize] {
        &self.path
    }
}

/// An occupancy grid as an 8-connected graph: one node per cell (at its centre), edges to the
/// free neighbours, costing the distance between centres (`cell` or `cell·√2`). A diagonal move
/// needs both orthogonal cells beside it free (no corner cutting). Blocked cells have no edges
/// into them; a blocked start cell still has edges out, so a character standing in one (inside an
/// inflated obstacle margin) can plan its way out.
#[derive(Clone, Debug, PartialEq)]
pub struct GridGraph {
    origin: Vec2,
    cell: f32,
    width: usize,
    height: usize,
    blocked: Vec<bool>,
}

impl GridGraph {
    /// A free grid of `width × height` cells of side `cell_size` m, its minimum corner at
    /// `origin`.
    ///
    /// # Errors
    /// If `cell_size` is not finite and positive, `origin` is not finite, or the grid is empty.
    pub fn new(
        origin: Vec2,
        cell_size: f32,
        width: usize,
        height: usize,
    ) -> Result<Self, ParamError> {
        positive("cell_size", cell_size)?;
        crate::error::finite("origin.x", origin.x)?;
        crate::error::finite("origin.y", origin.y)?;
        if width == 0 || height == 0 {
            return Err(ParamError::Count {
                name: "width × height",
                count: width * height,
                expected: "at least 1 cell",
            });
        }
        Ok(GridGraph {
            origin,
            cell: cell_size,
            width,
            height,
            blocked: vec![false; width * height],
        })
    }

    /// A grid covering `bounds` with cells blocked wherever an obstacle comes within `clearance`
    /// m of the cell's centre (the character's radius plus a margin: the configuration space of
    /// a disc).
    ///
    /// # Errors
    /// As [`GridGraph::new`]; also if `clearance` is negative or `bounds` is empty.
    pub fn from_obstacles(
        bounds: Aabb,
        cell_size: f32,
        obstacles: &ObstacleSet,
        clearance: f32,
    ) -> Result<Self, ParamError> {
        non_negative("clearance", clearance)?;
        positive("cell_size", cell_size)?;
        let size = bounds.max - bounds.min;
        let width = (size.x / cell_size).ceil().max(1.0) as usize;
        let height = (size.y / cell_size).ceil().max(1.0) as usize;
        let mut grid = GridGraph::new(bounds.min, cell_size, width, height)?;
        for y in 0..height {
            for x in 0..width {
                let mut hit = false;
                obstacles.for_each_overlapping(
                    &Circle::new(grid.center(x, y), clearance),
                    |_, _| {
                        hit = true;
                    },
                );
                grid.blocked[y * width + x] = hit;
            }
        }
        Ok(grid)
    }

    /// Cells across.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cells down.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// The centre of cell `(x, y)` (m).
    #[must_use]
    pub fn center(&self, x: usize, y: usize) -> Vec2 {
        self.origin + (Vec2::new(x as f32, y as f32) + 0.5) * self.cell
    }

    /// The cell containing `p`, or `None` outside the grid.
    #[must_use]
    pub fn cell_of(&self, p: Vec2) -> Option<(usize, usize)> {
        let q = (p - self.origin) / self.cell;
        if !(q.x >= 0.0 && q.y >= 0.0) {
            return None;
        }
        let (x, y) = (q.x as usize, q.y as usize);
        (x < self.width && y < self.height).then_some((x, y))
    }

    /// True when cell `(x, y)` is blocked (cells outside count as blocked).
    #[must_use]
    pub fn is_blocked(&self, x: usize, y: usize) -> bool {
        x >= self.width || y >= self.height || self.blocked[y * self.width + x]
    }

    /// Blocks or frees cell `(x, y)` (ignored outside the grid).
    pub fn set_blocked(&mut self, x: usize, y: usize, blocked: bool) {
        if x < self.width && y < self.height {
            self.blocked[y * self.width + x] = blocked;
        }
    }
}

impl Graph<Vec2> for GridGraph {
    fn node_count(&self) -> usize {
        self.width * self.height
    }

    fn node_at(&self, position: Vec2) -> Option<usize> {
        self.cell_of(position).map(|(x, y)| y * self.width + x)
    }

    fn position(&self, node: usize) -> Vec2 {
        self.center(node % self.width, node / self.width)
    }

    fn for_each_edge(&self, node: usize, mut f: impl FnMut(usize, f32)) {
        let (x, y) = ((node % self.width) as isize, (node / self.width) as isize);
        let free = |dx: isize, dy: isize| {
            let (nx, ny) = (x + dx, y + dy);
            nx >= 0 && ny >= 0 && !self.is_blocked(nx as usize, ny as usize)
        };
        let diagonal = self.cell * core::f32::consts::SQRT_2;
        for dy in -1isize..=1 {
            for dx in -1isize..=1 {
                if (dx, dy) == (0, 0) || !free(dx, dy) {
                    continue;
                }
                let cost = if dx != 0 && dy != 0 {
                    if !(free(dx, 0) && free(0, dy)) {
                        continue; // no corner cutting
                    }
                    diagonal
                } else {
                    self.cell
                };
                f(((y + dy) as usize) * self.width + (x + dx) as usize, cost);
            }
        }
    }

    fn heuristic(&self, from: usize, to: usize) -> f32 {
        // octile distance: exact on an empty 8-connected grid, so A* expands fewer nodes
        let d = (self.position(to) - self.position(from)).abs();
        let (lo, hi) = (d.x.min(d.y), d.x.max(d.y));
        (hi - lo) + lo * core::f32::consts::SQRT_2
    }
}

/// A waypoint graph: nodes at given positions and undirected edges costing their length.
/// Quantization picks the nearest node (a linear scan: O(nodes)).
#[derive(Clone, Debug, PartialEq)]
pub struct WaypointGraph<V: Vector = Vec2> {
    nodes: Vec<V>,
    /// Edge list offsets per node (compressed rows): node `i`'s edges are
    /// `edges[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    edges: Vec<(u32, f32)>,
}

impl<V: Vector> WaypointGraph<V> {
    /// A graph with `nodes` and undirected `edges` between node indices.
    ///
    /// # Errors
    /// If a node is not finite or an edge names a node that does not exist.
    pub fn new(
        nodes: impl Into<Vec<V>>,
        edges: impl IntoIterator<Item = (usize, usize)>,
    ) -> Result<Self, ParamError> {
        let nodes = nodes.into();
        if nodes.iter().any(|p| !p.is_finite()) {
            return Err(ParamError::Invalid { name: "node", expected: "a finite point" });
        }
        let mut pairs = Vec::new();
        for (a, b) in edges {
            if a >= nodes.len() || b >= nodes.len() {
                return Err(ParamError::Count {
                    name: "edge node",
                    count: a.max(b),
                    expected: "an index below the node count",
                });
            }
            pairs.push((a, b));
            pairs.push((b, a));
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; nodes.len() + 1];
        for &(a, _) in &pairs {
            offsets[a + 1] += 1;
        }
        for i in 0..nodes.len() {
            offsets[i + 1] += offsets[i];
        }
        let edges =
            pairs.iter().map(|&(a, b)| (b as u32, (nodes[b] - nodes[a]).length())).collect();
        Ok(WaypointGraph { nodes, offsets, edges })
    }

    /// The node positions.
    #[must_use]
    pub fn nodes(&self) -> &[V] {
        &self.nodes
    }
}

impl<V: Vector> Graph<V> for WaypointGraph<V> {
    fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn node_at(&self, position: V) -> Option<usize> {
        let mut best: Option<(usize, f32)> = None;
        for (i, p) in self.nodes.iter().enumerate() {
            let d = (*p - position).length_squared();
            if best.is_none_or(|(_, b)| d < b) {
                best = Some((i, d));
            }
        }
        best.map(|(i, _)| i)
    }

    fn position(&self, node: usize) -> V {
        self.nodes[node]
    }

    fn for_each_edge(&self, node: usize, mut f: impl FnMut(usize, f32)) {
        let range = self.offsets[node] as usize..self.offsets[node + 1] as usize;
        for &(to, cost) in &self.edges[range] {
            f(to as usize, cost);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn astar_finds_the_least_cost_grid_path_around_a_wall() {
        let mut g = GridGraph::new(Vec2::ZERO, 1.0, 5, 5).unwrap();
        for y in 0..4 {
            g.set_blocked(2, y, true);
        }
        let mut a = AStar::new();
        let start = g.node_at(Vec2::new(0.5, 0.5)).unwrap();
        let goal = g.node_at(Vec2::new(4.5, 0.5)).unwrap();
        let path = a.find(&g, start, goal).unwrap().to_vec();
        let cost: f32 =
            path.windows(2).map(|w| (g.position(w[1]) - g.position(w[0])).length()).sum();
        // round the wall's free end (2, 4); no corner cutting forbids (1,3)→(2,4), so the optimum
        // is (0,0)→(1,1)→(1,4)→(3,4)→(3,1)→(4,0): 2·√2 + 8 = 10.828
        assert!((cost - (8.0 + 2.0 * 2f32.sqrt())).abs() < 1e-4, "cost {cost}");
        assert!(path.iter().all(|&n| !g.is_blocked(n % 5, n / 5)));
        // no corner cutting: never a diagonal between two cells beside a blocked one
        for w in path.windows(2) {
            let (ax, ay, bx, by) = (w[0] % 5, w[0] / 5, w[1] % 5, w[1] / 5);
            if ax != bx && ay != by {
                assert!(!g.is_blocked(bx, ay) && !g.is_blocked(ax, by));
            }
        }
        // the buffers are reused: a second search gives the same answer
        assert_eq!(a.find(&g, start, goal).unwrap(), &path[..]);
        // unreachable
        for y in 0..5 {
            g.set_blocked(2, y, true);
        }
        assert!(a.find(&g, start, goal).is_none());
    }

    #[test]
    fn waypoint_graph_prefers_the_shorter_route() {
        let nodes = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(5.0, 5.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(5.0, -1.0),
        ];
        let g = WaypointGraph::new(nodes, [(0, 1), (1, 2), (0, 3), (3, 2)]).unwrap();
        let mut a = AStar::new();
        assert_eq!(a.find(&g, 0, 2).unwrap(), &[0, 3, 2]);
        assert_eq!(g.node_at(Vec2::new(4.0, 4.0)), Some(1));
        assert!(WaypointGraph::new(vec![Vec2::ZERO], [(0, 1)]).is_err());
        assert_eq!(a.find(&g, 1, 1).unwrap(), &[1]);
        assert!(a.find(&g, 0, 9).is_none());
    }
}
