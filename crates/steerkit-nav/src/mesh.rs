//! The navigation mesh: a level's walkable area shrunk by a body radius, and paths across it.

use crate::edges::EdgeGrid;
use crate::level::{check_radius, signed_area2, Level, NavError};
use std::collections::HashMap;
use steerkit::Vec2;

/// How far (m) a point projected onto the mesh's boundary is moved inside, so that it lies in
/// a polygon and not on its edge.
const INSIDE: f32 = 1e-3;

/// Corner segments of the inflated obstacles' rounded corners (per quarter turn).
const CORNER_SEGMENTS: u8 = 5;

fn to33(v: Vec2) -> glam33::Vec2 {
    glam33::Vec2::new(v.x, v.y)
}

fn from33(v: glam33::Vec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// A path across the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// The corners after the start, then the end (m).
    pub points: Vec<Vec2>,
    /// Length from the start (m).
    pub length: f32,
}

/// A boundary edge of the walkable area.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    a: Vec2,
    b: Vec2,
    /// The centroid of the (convex) polygon it bounds: every point strictly between the edge
    /// and it lies inside that polygon.
    centroid: Vec2,
    /// The connected part of the mesh it borders.
    component: u32,
}

impl Edge {
    /// How far along the ray from `from` in direction `dir` it meets the edge (`t ≥ 0`, in
    /// units of `dir`), if it does (an edge along the ray is not met).
    pub(crate) fn meets(&self, from: Vec2, dir: Vec2) -> Option<f32> {
        let ab = self.b - self.a;
        let denom = dir.perp_dot(ab);
        if denom.abs() < 1e-12 {
            return None;
        }
        let ao = self.a - from;
        let t = ao.perp_dot(ab) / denom;
        let u = ao.perp_dot(dir) / denom;
        (t >= 0.0 && (0.0..=1.0).contains(&u)).then_some(t)
    }
}

/// The walkable area of a [`Level`] for bodies of one radius: the outline minus the obstacles,
/// every boundary moved in by `radius + clearance` (obstacle corners rounded), triangulated
/// (constrained Delaunay) and merged into convex polygons. A body whose centre stays on the mesh
/// keeps `clearance` from every obstacle and wall.
///
/// Built with Polyanya's triangulation (the `polyanya` crate, which also inflates the
/// obstacles and merges the triangles); paths are Polyanya's any-angle optimum.
pub struct NavMesh {
    mesh: polyanya::Mesh,
    inflation: f32,
    polygons: Vec<Vec<Vec2>>,
    /// The connected part each polygon belongs to.
    component: Vec<u32>,
    pub(crate) boundary: Vec<Edge>,
    /// The boundary edges by cell, for ray casts.
    pub(crate) grid: EdgeGrid,
    /// The interior edges shared by two polygons whose both ends lie on the boundary: where
    /// the walkable area may pinch (see [`NavMesh::passages`]).
    pub(crate) spans: Vec<(Vec2, Vec2)>,
}

impl std::fmt::Debug for NavMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavMesh")
            .field("inflation", &self.inflation)
            .field("polygons", &self.polygons.len())
            .finish_non_exhaustive()
    }
}

impl NavMesh {
    /// Builds the mesh of `level` for bodies of `radius` (m) keeping `clearance` (m) from the
    /// obstacles and the outline.
    ///
    /// # Errors
    /// [`NavError::Degenerate`] for a bad polygon, [`NavError::Param`] for a negative or
    /// non-finite radius or clearance, [`NavError::Empty`] when nothing walkable is left.
    pub fn build(level: &Level, radius: f32, clearance: f32) -> Result<Self, NavError> {
        level.check()?;
        check_radius("radius", radius)?;
        check_radius("clearance", clearance)?;
        let inflation = radius + clearance;
        if !room_inside(&level.outline, inflation) {
            return Err(NavError::Empty { radius: inflation });
        }
        let outline: Vec<_> = level.outline.iter().copied().map(to33).collect();
        let mut t = polyanya::Triangulation::from_outer_edges(&outline);
        t.add_obstacles(
            level.obstacles.iter().map(|o| o.iter().copied().map(to33).collect::<Vec<_>>()),
        );
        t.set_agent_radius(inflation);
        t.set_agent_radius_segments(CORNER_SEGMENTS);
        t.agent_radius_on_outer_edge(true);
        let mut mesh = t.as_navmesh();
        mesh.merge_polygons();
        mesh.bake();
        // exact point location: a point off the mesh is projected by `nearest`, not snapped
        mesh.set_search_delta(INSIDE * 0.5).set_search_steps(2);
        let layer = &mesh.layers[0];
        let polygons: Vec<Vec<Vec2>> = layer
            .polygons
            .iter()
            .map(|p| {
                p.vertices.iter().map(|&v| from33(layer.vertices[v as usize].coords)).collect()
            })
            .collect();
        if polygons.is_empty() || polygons.iter().all(|p| signed_area2(p).abs() < 1e-9) {
            return Err(NavError::Empty { radius: inflation });
        }
        let (component, boundary, spans) = topology(&polygons);
        let grid = EdgeGrid::new(&boundary.iter().map(|e| (e.a, e.b)).collect::<Vec<_>>());
        Ok(NavMesh { mesh, inflation, polygons, component, boundary, grid, spans })
    }

    /// How far (m) the walkable area was moved in from every obstacle: radius + clearance.
    #[must_use]
    pub fn inflation(&self) -> f32 {
        self.inflation
    }

    /// The mesh's convex polygons (m), for drawing.
    #[must_use]
    pub fn polygons(&self) -> &[Vec<Vec2>] {
        &self.polygons
    }

    /// True when `p` is on the mesh.
    #[must_use]
    pub fn contains(&self, p: Vec2) -> bool {
        p.is_finite() && self.locate(p).is_some()
    }

    /// The polygon holding `p` (Polyanya's point location).
    fn locate(&self, p: Vec2) -> Option<usize> {
        let c = self.mesh.get_closest_point(to33(p))?;
        (from33(c.position()).distance_squared(p) <= INSIDE * INSIDE)
            .then(|| (c.polygon() & 0x00ff_ffff) as usize)
            .filter(|&i| i < self.polygons.len())
    }

    /// The walkable point nearest `p`: `p` itself on the mesh, else its projection onto the
    /// mesh's boundary moved [`INSIDE`] toward the centre of the polygon it bounds.
    #[must_use]
    pub fn nearest(&self, p: Vec2) -> Vec2 {
        if self.contains(p) {
            return p;
        }
        self.nearest_edge(p, None).map_or(p, |(q, _)| q)
    }

    /// The nearest point on the boundary (moved inside) among the edges of `component` (all
    /// when `None`), with the edge's index.
    fn nearest_edge(&self, p: Vec2, component: Option<u32>) -> Option<(Vec2, usize)> {
        let mut best: Option<(f32, Vec2, usize)> = None;
        for (i, e) in self.boundary.iter().enumerate() {
            if component.is_some_and(|c| c != e.component) {
                continue;
            }
            let q = closest_on_segment(p, e.a, e.b);
            let d = q.distance_squared(p);
            if best.is_none_or(|(bd, ..)| d < bd) {
                let (toward, room) = (e.centroid - q).normalize_and_length();
                best = Some((d, q + toward * INSIDE.min(room * 0.5), i));
            }
        }
        best.map(|(_, q, i)| (q, i))
    }

    /// Distance (m) from `from` along the unit direction `dir` to the mesh's boundary, at most
    /// `max`: the free room in that direction (the boundary edges of the cells the ray
    /// crosses).
    #[must_use]
    pub fn free_distance(&self, from: Vec2, dir: Vec2, max: f32) -> f32 {
        let mut best = max;
        self.grid.walk(from, dir, max, |edges| {
            for &i in edges {
                if let Some(t) = self.boundary[i as usize].meets(from, dir) {
                    best = best.min(t);
                }
            }
            best
        });
        best
    }

    /// True when the segment from `a` to `b` crosses no boundary of the mesh (`b` is in
    /// sight of `a`; within 1 mm of the boundary counts as clear).
    #[must_use]
    pub fn sees(&self, a: Vec2, b: Vec2) -> bool {
        let d = b.distance(a);
        d <= 1e-4 || self.free_distance(a, (b - a) / d, d + 1e-3) >= d
    }

    /// The shortest path from `from` to `to` (each first moved to the nearest walkable point),
    /// or `None` when they lie on parts of the mesh that do not connect.
    #[must_use]
    pub fn path(&self, from: Vec2, to: Vec2) -> Option<Path> {
        let (from, to) = (self.nearest(from), self.nearest(to));
        if from.distance_squared(to) < 1e-12 {
            return Some(Path { points: vec![to], length: 0.0 });
        }
        let p = self.mesh.path(to33(from), to33(to))?;
        let mut points: Vec<Vec2> = p.path.into_iter().map(from33).collect();
        if points.last().is_none_or(|l| l.distance_squared(to) > 1e-8) {
            points.push(to);
        }
        Some(Path { points, length: p.length })
    }

    /// The point nearest `to` that can be reached from `from`: `to` (projected onto the mesh)
    /// when its part of the mesh is `from`'s, else the nearest boundary point of `from`'s part.
    #[must_use]
    pub fn nearest_reachable(&self, from: Vec2, to: Vec2) -> Vec2 {
        let from = self.nearest(from);
        let part = |p: Vec2| self.locate(p).map(|i| self.component[i]);
        let to = self.nearest(to);
        match (part(from), part(to)) {
            (Some(a), Some(b)) if a == b => to,
            (Some(a), _) => self.nearest_edge(to, Some(a)).map_or(from, |(q, _)| q),
            _ => from,
        }
    }
}

/// Whether some point of the outline lies `inflation` (m) or more from its boundary, on a
/// 96 × 96 grid over its bounding box with 2 % to spare: Polyanya's deflation of the outline
/// fails when nothing is left, so this is asked first.
fn room_inside(outline: &[Vec2], inflation: f32) -> bool {
    let (min, max) =
        outline.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    const N: usize = 96;
    let need = inflation * 1.02;
    (0..N * N).any(|k| {
        let t = Vec2::new((k % N) as f32 + 0.5, (k / N) as f32 + 0.5) / N as f32;
        let p = min + (max - min) * t;
        inside_polygon(outline, p)
            && (0..outline.len()).all(|i| {
                let (a, b) = (outline[i], outline[(i + 1) % outline.len()]);
                closest_on_segment(p, a, b).distance(p) >= need
            })
    })
}

/// Even–odd test of `p` against a simple polygon.
fn inside_polygon(poly: &[Vec2], p: Vec2) -> bool {
    let mut inside = false;
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// A point's coordinates as bits: mesh vertices shared by two polygons are the same floats.
type PointKey = (u32, u32);

/// Connected parts of the polygons (over shared edges), the boundary edges (used once) and the
/// shared edges between two boundary vertices, in polygon order.
fn topology(polygons: &[Vec<Vec2>]) -> (Vec<u32>, Vec<Edge>, Vec<(Vec2, Vec2)>) {
    let key = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
    let mut edges: HashMap<(PointKey, PointKey), Vec<usize>> = HashMap::new();
    for (pi, poly) in polygons.iter().enumerate() {
        for i in 0..poly.len() {
            let (a, b) = (key(poly[i]), key(poly[(i + 1) % poly.len()]));
            edges.entry(if a < b { (a, b) } else { (b, a) }).or_default().push(pi);
        }
    }
    let mut parent: Vec<usize> = (0..polygons.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for users in edges.values().filter(|u| u.len() > 1) {
        for w in users.windows(2) {
            let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
            parent[a.max(b)] = a.min(b);
        }
    }
    let component: Vec<u32> = (0..polygons.len()).map(|i| root(&mut parent, i) as u32).collect();
    // boundary edges in polygon order, so the projection's ties resolve the same every run
    let mut boundary = Vec::new();
    for (pi, poly) in polygons.iter().enumerate() {
        let centroid = poly.iter().copied().sum::<Vec2>() / poly.len() as f32;
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let (ka, kb) = (key(a), key(b));
            if edges[&if ka < kb { (ka, kb) } else { (kb, ka) }].len() == 1 {
                boundary.push(Edge { a, b, centroid, component: component[pi] });
            }
        }
    }
    let on_boundary: std::collections::HashSet<PointKey> =
        boundary.iter().flat_map(|e| [key(e.a), key(e.b)]).collect();
    let mut spans = Vec::new();
    for (pi, poly) in polygons.iter().enumerate() {
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let (ka, kb) = (key(a), key(b));
            let users = &edges[&if ka < kb { (ka, kb) } else { (kb, ka) }];
            // each shared edge once: from its first polygon
            if users.len() > 1
                && users[0] == pi
                && on_boundary.contains(&ka)
                && on_boundary.contains(&kb)
            {
                spans.push((a, b));
            }
        }
    }
    (component, boundary, spans)
}

fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0)
}
