//! The bounding-volume hierarchy under both obstacle sets ([`ObstacleSet`](super::ObstacleSet)
//! in 2D, [`ObstacleSet3`](super::ObstacleSet3) in 3D): written once over [`Vector`], built
//! once over the obstacles' boxes, queried without allocating. The shapes' own tests (ray
//! cast, overlap, closest point) come through [`Shape`].

use super::{ClosestObstacle, Collision, ObstacleId, Shape};
use crate::geometry::{Aabb, Ray};
use crate::math::Vector;

/// Items per leaf.
const LEAF_SIZE: usize = 4;
/// Traversal stack size. The tree is split at the median, so its depth is at most
/// ⌈log₂(n / LEAF_SIZE)⌉ + 1 ≤ 32 for any `n < 2³²`, and a depth-first traversal holds at most
/// depth + 1 entries.
const STACK: usize = 64;

/// A node: `count > 0` is a leaf holding items `first .. first + count`; `count == 0` is an
/// internal node whose left child is the next node and whose right child is `first`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node<V: Vector> {
    aabb: Aabb<V>,
    first: u32,
    count: u32,
}

/// Grows a box by a margin relative to its coordinates, so that rounding in the narrow-phase
/// tests can never place a hit or an overlap just outside the box that culls it.
#[inline]
fn padded<V: Vector>(b: Aabb<V>) -> Aabb<V> {
    let a = b.min.abs().max(b.max.abs());
    let mut m = a[0];
    for k in 1..V::DIM {
        m = m.max(a[k]);
    }
    let pad = V::from_axes([1e-5 * (1.0 + m); 3]);
    Aabb { min: b.min - pad, max: b.max + pad }
}

/// Relative slack for comparing traversal distances (conservative: may visit a little more).
#[inline]
fn slack(t: f32) -> f32 {
    1e-5 * (1.0 + t.abs())
}

/// Conservative ray–box entry: `Some(t_entry)` unless the ray certainly misses `b` within
/// `limit`. `inv` is `1/direction` per component (unused where the direction is 0).
#[inline]
fn ray_enters<V: Vector>(b: &Aabb<V>, o: V, d: V, inv: V, limit: f32) -> Option<f32> {
    let mut t0 = 0.0f32;
    let mut t1 = limit;
    for k in 0..V::DIM {
        let (lo, hi, ok, dk, ik) = (b.min[k], b.max[k], o[k], d[k], inv[k]);
        if dk == 0.0 {
            if ok < lo || ok > hi {
                return None;
            }
        } else {
            let ta = (lo - ok) * ik;
            let tb = (hi - ok) * ik;
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
    }
    if t0 <= t1 + slack(t1.max(t0)) {
        Some(t0)
    } else {
        None
    }
}

/// The collision of a hit on obstacle `id`.
#[inline]
pub(super) fn collision<V: Vector>(h: crate::geometry::RayHit<V>, id: u32) -> Collision<V> {
    Collision {
        position: h.point,
        normal: h.normal,
        distance: h.distance,
        obstacle: ObstacleId(id),
    }
}

/// The closest point of obstacle `id` to `point`.
#[inline]
pub(super) fn closest_to<V: Vector, O: Shape<V>>(o: &O, point: V, id: u32) -> ClosestObstacle<V> {
    let p = o.closest_point(point);
    ClosestObstacle { obstacle: ObstacleId(id), point: p, distance: (p - point).length() }
}

/// Brute force over a slice: every obstacle is tested (least distance, ties to the lowest id).
pub(super) fn cast_every<V: Vector, O: Shape<V>>(
    obstacles: &[O],
    ray: &Ray<V>,
) -> Option<Collision<V>> {
    let mut best: Option<Collision<V>> = None;
    for (i, o) in obstacles.iter().enumerate() {
        if let Some(h) = o.cast_ray(ray) {
            if best.is_none_or(|b| h.distance < b.distance) {
                best = Some(collision(h, i as u32));
            }
        }
    }
    best
}

/// A median-split bounding-volume hierarchy over a static list of obstacles (held by the set
/// that owns the tree and passed to every query).
#[derive(Clone, Debug, Default)]
pub(super) struct Tree<V: Vector> {
    nodes: Vec<Node<V>>,
    /// Obstacle ids in leaf order.
    order: Vec<u32>,
    /// Padded obstacle boxes in leaf order.
    boxes: Vec<Aabb<V>>,
}

struct BuildItem<V: Vector> {
    aabb: Aabb<V>,
    center: V,
    id: u32,
}

impl<V: Vector> Tree<V> {
    /// Builds the tree over `obstacles` (at most `u32::MAX`, checked by the caller) in
    /// O(n log n): median splits along the longest axis of the item centres, at most 4
    /// obstacles per leaf.
    pub(super) fn build<O: Shape<V>>(obstacles: &[O]) -> Self {
        let mut items: Vec<BuildItem<V>> = obstacles
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let aabb = padded(o.aabb());
                BuildItem { aabb, center: aabb.center(), id: i as u32 }
            })
            .collect();
        let mut nodes = Vec::with_capacity(2 * obstacles.len() / LEAF_SIZE + 1);
        if !items.is_empty() {
            build(&mut nodes, &mut items, 0);
        }
        let order = items.iter().map(|it| it.id).collect();
        let boxes = items.iter().map(|it| it.aabb).collect();
        Tree { nodes, order, boxes }
    }

    /// The box around every obstacle (slightly padded), or `None` when empty.
    #[inline]
    pub(super) fn bounds(&self) -> Option<Aabb<V>> {
        self.nodes.first().map(|n| n.aabb)
    }

    /// Ray cast returning the collision and the number of obstacles whose narrow-phase test ran.
    pub(super) fn cast_ray<O: Shape<V>>(
        &self,
        obstacles: &[O],
        ray: &Ray<V>,
    ) -> (Option<Collision<V>>, usize) {
        let mut tested = 0;
        let Some(root) = self.nodes.first() else { return (None, 0) };
        let (o, d) = (ray.origin(), ray.direction());
        // ±∞ where d is 0; those components are not used
        let z = if V::DIM > 2 { 1.0 / d[2] } else { 0.0 };
        let inv = V::from_axes([1.0 / d[0], 1.0 / d[1], z]);
        let mut best_t = ray.max_distance();
        let mut best: Option<Collision<V>> = None;
        let mut stack = [(0u32, 0.0f32); STACK];
        let mut sp = 0;
        if let Some(t) = ray_enters(&root.aabb, o, d, inv, best_t) {
            stack[0] = (0, t);
            sp = 1;
        }
        while sp > 0 {
            sp -= 1;
            let (ni, t_entry) = stack[sp];
            if t_entry > best_t + slack(best_t) {
                continue;
            }
            let node = self.nodes[ni as usize];
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for (&id, b) in self.order[range.clone()].iter().zip(&self.boxes[range]) {
                    if ray_enters(b, o, d, inv, best_t).is_none() {
                        continue;
                    }
                    tested += 1;
                    if let Some(h) = obstacles[id as usize].cast_ray(ray) {
                        let better = match best {
                            None => true,
                            Some(b) => {
                                h.distance < b.distance
                                    || (h.distance == b.distance && id < b.obstacle.0)
                            }
                        };
                        if better {
                            best_t = h.distance;
                            best = Some(collision(h, id));
                        }
                    }
                }
            } else {
                let (l, r) = (ni + 1, node.first);
                let tl = ray_enters(&self.nodes[l as usize].aabb, o, d, inv, best_t);
                let tr = ray_enters(&self.nodes[r as usize].aabb, o, d, inv, best_t);
                // push the farther child first so the nearer one is popped next
                let mut push = |n: u32, t: f32| {
                    debug_assert!(sp < STACK);
                    if sp < STACK {
                        stack[sp] = (n, t);
                        sp += 1;
                    }
                };
                match (tl, tr) {
                    (Some(a), Some(b)) if a <= b => {
                        push(r, b);
                        push(l, a);
                    }
                    (Some(a), Some(b)) => {
                        push(l, a);
                        push(r, b);
                    }
                    (Some(a), None) => push(l, a),
                    (None, Some(b)) => push(r, b),
                    (None, None) => {}
                }
            }
        }
        (best, tested)
    }

    /// Depth-first visit of every leaf item whose padded box passes `node_test`.
    #[inline]
    fn visit(&self, node_test: impl Fn(&Aabb<V>) -> bool, mut item: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = [0u32; STACK];
        let mut sp = 1;
        while sp > 0 {
            sp -= 1;
            let ni = stack[sp];
            let node = &self.nodes[ni as usize];
            if !node_test(&node.aabb) {
                continue;
            }
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for (&id, b) in self.order[range.clone()].iter().zip(&self.boxes[range]) {
                    if node_test(b) {
                        item(id);
                    }
                }
            } else if sp + 2 <= STACK {
                stack[sp] = node.first;
                stack[sp + 1] = ni + 1;
                sp += 2;
            }
        }
    }

    /// Calls `f` for every obstacle within `radius` of `center` (closed test: distance from the
    /// centre to the solid obstacle ≤ radius; an obstacle containing the centre counts), in a
    /// deterministic order that depends on the tree, not on ids.
    #[inline]
    pub(super) fn for_each_overlapping<'a, O: Shape<V>>(
        &self,
        obstacles: &'a [O],
        center: V,
        radius: f32,
        mut f: impl FnMut(ObstacleId, &'a O),
    ) {
        let r = radius.max(0.0);
        let reach = r + slack(r);
        let reach_sq = reach * reach;
        self.visit(
            |b| b.distance_squared_to_point(center) <= reach_sq,
            |id| {
                let o = &obstacles[id as usize];
                if o.overlaps_ball(center, radius) {
                    f(ObstacleId(id), o);
                }
            },
        );
    }

    /// The obstacle closest to `point` within `max_distance` (inclusive); ties to the lowest id.
    pub(super) fn closest<O: Shape<V>>(
        &self,
        obstacles: &[O],
        point: V,
        max_distance: f32,
    ) -> Option<ClosestObstacle<V>> {
        let mut best_d = if max_distance >= 0.0 { max_distance } else { 0.0 };
        let mut best: Option<ClosestObstacle<V>> = None;
        let root = self.nodes.first()?;
        let mut stack = [(0u32, 0.0f32); STACK];
        stack[0] = (0, root.aabb.distance_squared_to_point(point).sqrt());
        let mut sp = 1;
        while sp > 0 {
            sp -= 1;
            let (ni, lower_bound) = stack[sp];
            if lower_bound > best_d + slack(best_d) {
                continue;
            }
            let node = self.nodes[ni as usize];
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for (&id, b) in self.order[range.clone()].iter().zip(&self.boxes[range]) {
                    if b.distance_squared_to_point(point).sqrt() > best_d + slack(best_d) {
                        continue;
                    }
                    let c = closest_to(&obstacles[id as usize], point, id);
                    if c.distance <= best_d
                        && best.is_none_or(|b| {
                            c.distance < b.distance
                                || (c.distance == b.distance && id < b.obstacle.0)
                        })
                    {
                        best_d = c.distance;
                        best = Some(c);
                    }
                }
            } else {
                let l = ni + 1;
                let r = node.first;
                let dl = self.nodes[l as usize].aabb.distance_squared_to_point(point).sqrt();
                let dr = self.nodes[r as usize].aabb.distance_squared_to_point(point).sqrt();
                if sp + 2 <= STACK {
                    let (near, far) =
                        if dl <= dr { ((l, dl), (r, dr)) } else { ((r, dr), (l, dl)) };
                    stack[sp] = far;
                    stack[sp + 1] = near;
                    sp += 2;
                }
            }
        }
        best
    }
}

fn build<V: Vector>(nodes: &mut Vec<Node<V>>, items: &mut [BuildItem<V>], first: usize) {
    let index = nodes.len();
    let mut aabb = items[0].aabb;
    let mut cmin = items[0].center;
    let mut cmax = items[0].center;
    for it in &items[1..] {
        aabb = aabb.union(&it.aabb);
        cmin = cmin.min(it.center);
        cmax = cmax.max(it.center);
    }
    if items.len() <= LEAF_SIZE {
        nodes.push(Node { aabb, first: first as u32, count: items.len() as u32 });
        return;
    }
    nodes.push(Node { aabb, first: 0, count: 0 });
    // the longest axis of the centres (ties to the lower axis)
    let extent = cmax - cmin;
    let mut axis = 0;
    for k in 1..V::DIM {
        if extent[k] > extent[axis] {
            axis = k;
        }
    }
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |a, b| {
        a.center[axis].total_cmp(&b.center[axis]).then(a.id.cmp(&b.id))
    });
    let (left, right) = items.split_at_mut(mid);
    build(nodes, left, first);
    let right_index = nodes.len() as u32;
    build(nodes, right, first + mid);
    nodes[index].first = right_index;
}
