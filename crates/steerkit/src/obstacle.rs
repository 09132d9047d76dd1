//! Static obstacles and the collision detector that obstacle and wall avoidance query
//! (Millington §3.3.15, Green/Buckland §9–10, §24).
//!
//! - [`CollisionDetector`] is the book's interface: the first [`Collision`] along a move. Engines
//!   can implement it over their own ray casts.
//! - [`ObstacleSet`] is a ready implementation over circles, walls, convex polygons and boxes,
//!   backed by a bounding-volume hierarchy built once (static geometry), so a query visits only
//!   the obstacles near it. It also answers region queries: obstacles overlapping a circle
//!   (detection boxes, hide spots), walls near a point, and the closest obstacle.
//! - A plain slice `[Obstacle]` is a brute-force detector for small worlds and tests; it gives
//!   exactly the same answers as an [`ObstacleSet`] over the same obstacles.
//!
//! Queries allocate nothing. When several obstacles are hit at the same distance, the lowest
//! [`ObstacleId`] wins, so the answer never depends on the tree's layout.

use crate::error::{non_negative, ParamError};
use crate::geometry::{Aabb, Circle, Polygon, Ray, RayHit, Segment};
use glam::Vec2;

/// The index of an obstacle in the order it was given to [`ObstacleSet::new`] (or its index in
/// a slice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObstacleId(pub u32);

impl ObstacleId {
    /// The index as a `usize`.
    #[must_use]
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The first contact along a move (Millington's `Collision`, with the distance and the obstacle).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collision {
    /// The contact point (m).
    pub position: Vec2,
    /// Unit surface normal at the contact, facing the side the move came from; for a move that
    /// starts inside a solid obstacle, the outward normal of its nearest boundary (see
    /// the [`geometry`](crate::geometry) conventions).
    pub normal: Vec2,
    /// Distance from the start of the move to the contact (m).
    pub distance: f32,
    /// Which obstacle was hit.
    pub obstacle: ObstacleId,
}

/// What obstacle and wall avoidance ask the world (Millington's `CollisionDetector`).
///
/// Implement [`cast_ray`](CollisionDetector::cast_ray); [`first_hit`](CollisionDetector::first_hit)
/// follows. The trait is object safe.
pub trait CollisionDetector {
    /// The first collision along `ray` (least distance; ties to the lowest obstacle id), or
    /// `None` when nothing lies within `ray.max_distance()`.
    fn cast_ray(&self, ray: &Ray) -> Option<Collision>;

    /// The first collision when moving from `position` to `position + move_amount`; hits beyond
    /// the move are ignored. A zero move reports an obstacle containing `position` (at distance
    /// 0), if any.
    fn first_hit(&self, position: Vec2, move_amount: Vec2) -> Option<Collision> {
        self.cast_ray(&Ray::from_segment(position, move_amount))
    }
}

/// One static obstacle.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Obstacle {
    /// A solid disc.
    Circle(Circle),
    /// A wall, two-sided for ray casts (see [`Segment`]).
    Wall(Segment),
    /// A solid convex polygon.
    Polygon(Polygon),
    /// A solid axis-aligned box.
    Box(Aabb),
}

impl From<Circle> for Obstacle {
    fn from(c: Circle) -> Self {
        Obstacle::Circle(c)
    }
}
impl From<Segment> for Obstacle {
    fn from(s: Segment) -> Self {
        Obstacle::Wall(s)
    }
}
impl From<Polygon> for Obstacle {
    fn from(p: Polygon) -> Self {
        Obstacle::Polygon(p)
    }
}
impl From<Aabb> for Obstacle {
    fn from(b: Aabb) -> Self {
        Obstacle::Box(b)
    }
}

impl Obstacle {
    /// The bounding box.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb {
        match self {
            Obstacle::Circle(c) => c.aabb(),
            Obstacle::Wall(s) => s.aabb(),
            Obstacle::Polygon(p) => p.aabb(),
            Obstacle::Box(b) => *b,
        }
    }

    /// The shape's own ray cast (see each shape's `cast_ray`).
    #[must_use]
    #[inline]
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        match self {
            Obstacle::Circle(c) => c.cast_ray(ray),
            Obstacle::Wall(s) => s.cast_ray(ray),
            Obstacle::Polygon(p) => p.cast_ray(ray),
            Obstacle::Box(b) => b.cast_ray(ray),
        }
    }

    /// True when the obstacle touches or intersects the disc.
    #[must_use]
    #[inline]
    pub fn overlaps_circle(&self, circle: &Circle) -> bool {
        match self {
            Obstacle::Circle(c) => c.overlaps_circle(circle),
            Obstacle::Wall(s) => circle.overlaps_segment(s),
            Obstacle::Polygon(p) => circle.overlaps_polygon(p),
            Obstacle::Box(b) => circle.overlaps_aabb(b),
        }
    }

    /// The closest point of the (solid) obstacle to `point`: `point` itself when inside.
    #[must_use]
    #[inline]
    pub fn closest_point(&self, point: Vec2) -> Vec2 {
        match self {
            Obstacle::Circle(c) => {
                let d = point - c.center;
                let r = c.radius.max(0.0);
                if d.length_squared() <= r * r {
                    point
                } else {
                    c.center + d.normalize_or_zero() * r
                }
            }
            Obstacle::Wall(s) => s.closest_point(point).0,
            Obstacle::Polygon(p) => p.closest_point(point),
            Obstacle::Box(b) => b.closest_point(point),
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        let finite2 = |name: &'static str, v: Vec2| -> Result<(), ParamError> {
            crate::error::finite(name, v.x)?;
            crate::error::finite(name, v.y).map(|_| ())
        };
        match self {
            Obstacle::Circle(c) => {
                finite2("circle center", c.center)?;
                non_negative("circle radius", c.radius).map(|_| ())
            }
            Obstacle::Wall(s) => {
                finite2("wall end", s.a)?;
                finite2("wall end", s.b)
            }
            Obstacle::Polygon(_) => Ok(()), // validated by its constructor
            Obstacle::Box(b) => {
                finite2("box corner", b.min)?;
                finite2("box corner", b.max)?;
                if b.is_empty() {
                    let (value, range) = if b.min.x > b.max.x {
                        (b.min.x - b.max.x, "min.x ≤ max.x")
                    } else {
                        (b.min.y - b.max.y, "min.y ≤ max.y")
                    };
                    return Err(ParamError::OutOfRange { name: "box", value, range });
                }
                Ok(())
            }
        }
    }
}

/// The closest obstacle to a point: see [`ObstacleSet::closest`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestObstacle {
    /// Which obstacle.
    pub obstacle: ObstacleId,
    /// Its closest point to the query point (the query point itself when inside).
    pub point: Vec2,
    /// Distance from the query point to `point` (m); 0 inside a solid or on a wall.
    pub distance: f32,
}

/// Brute force: every obstacle is tested. For small worlds and as a reference.
impl CollisionDetector for [Obstacle] {
    fn cast_ray(&self, ray: &Ray) -> Option<Collision> {
        let mut best: Option<Collision> = None;
        for (i, o) in self.iter().enumerate() {
            if let Some(h) = o.cast_ray(ray) {
                if best.is_none_or(|b| h.distance < b.distance) {
                    best = Some(collision(h, i as u32));
                }
            }
        }
        best
    }
}

#[inline]
fn collision(h: RayHit, id: u32) -> Collision {
    Collision {
        position: h.point,
        normal: h.normal,
        distance: h.distance,
        obstacle: ObstacleId(id),
    }
}

// ---------------------------------------------------------------------------------------------
// The bounding-volume hierarchy
// ---------------------------------------------------------------------------------------------

/// Items per leaf.
const LEAF_SIZE: usize = 4;
/// Traversal stack size. The tree is split at the median, so its depth is at most
/// ⌈log₂(n / LEAF_SIZE)⌉ + 1 ≤ 32 for any `n < 2³²`, and a depth-first traversal holds at most
/// depth + 1 entries.
const STACK: usize = 64;

/// A node: `count > 0` is a leaf holding items `first .. first + count`; `count == 0` is an
/// internal node whose left child is the next node and whose right child is `first`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    aabb: Aabb,
    first: u32,
    count: u32,
}

/// Grows a box by a margin relative to its coordinates, so that rounding in the narrow-phase
/// tests can never place a hit or an overlap just outside the box that culls it.
#[inline]
fn padded(b: Aabb) -> Aabb {
    let m = b.min.abs().max(b.max.abs()).max_element();
    let pad = 1e-5 * (1.0 + m);
    Aabb { min: b.min - Vec2::splat(pad), max: b.max + Vec2::splat(pad) }
}

/// Relative slack for comparing traversal distances (conservative: may visit a little more).
#[inline]
fn slack(t: f32) -> f32 {
    1e-5 * (1.0 + t.abs())
}

/// Conservative ray–box entry: `Some(t_entry)` unless the ray certainly misses `b` within
/// `limit`. `inv` is `1/direction` per component (unused where the direction is 0).
#[inline]
fn ray_enters(b: &Aabb, o: Vec2, d: Vec2, inv: Vec2, limit: f32) -> Option<f32> {
    let mut t0 = 0.0f32;
    let mut t1 = limit;
    for k in 0..2 {
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

/// A static set of obstacles with a bounding-volume hierarchy over their boxes.
///
/// Built once in O(n log n) (median splits along the longest axis of the item centres, at most
/// 4 obstacles per leaf); every query is then roughly logarithmic in the number of obstacles
/// plus the number near the query, and allocates nothing. Answers are identical to a
/// brute-force scan of [`obstacles`](ObstacleSet::obstacles) (ties go to the lowest id).
#[derive(Clone, Debug, Default)]
pub struct ObstacleSet {
    obstacles: Vec<Obstacle>,
    nodes: Vec<Node>,
    /// Obstacle ids in leaf order.
    order: Vec<u32>,
    /// Padded obstacle boxes in leaf order.
    boxes: Vec<Aabb>,
}

struct BuildItem {
    aabb: Aabb,
    center: Vec2,
    id: u32,
}

impl ObstacleSet {
    /// Validates the obstacles and builds the index.
    ///
    /// # Errors
    /// [`ParamError`] for a non-finite coordinate, a negative or non-finite circle radius, a box
    /// with `min > max`, or more than `u32::MAX` obstacles. Zero radii, zero-length walls and
    /// zero-size boxes are accepted.
    pub fn new(obstacles: impl IntoIterator<Item = Obstacle>) -> Result<Self, ParamError> {
        let obstacles: Vec<Obstacle> = obstacles.into_iter().collect();
        if obstacles.len() > u32::MAX as usize {
            return Err(ParamError::Count {
                name: "obstacle count",
                count: obstacles.len(),
                expected: "at most 2³² − 1",
            });
        }
        for o in &obstacles {
            o.validate()?;
        }
        let mut items: Vec<BuildItem> = obstacles
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
        Ok(ObstacleSet { obstacles, nodes, order, boxes })
    }

    /// The obstacles, indexed by [`ObstacleId::index`].
    #[must_use]
    #[inline]
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// One obstacle.
    #[must_use]
    #[inline]
    pub fn get(&self, id: ObstacleId) -> Option<&Obstacle> {
        self.obstacles.get(id.index())
    }

    /// Number of obstacles.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.obstacles.len()
    }

    /// True when there are no obstacles.
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.obstacles.is_empty()
    }

    /// The box around every obstacle (slightly padded), or `None` when empty.
    #[must_use]
    #[inline]
    pub fn bounds(&self) -> Option<Aabb> {
        self.nodes.first().map(|n| n.aabb)
    }

    /// Ray cast returning the collision and the number of obstacles whose narrow-phase test ran.
    fn cast_ray_counting(&self, ray: &Ray) -> (Option<Collision>, usize) {
        let mut tested = 0;
        let Some(root) = self.nodes.first() else { return (None, 0) };
        let (o, d) = (ray.origin(), ray.direction());
        let inv = Vec2::ONE / d; // ±∞ where d is 0; those components are not used
        let mut best_t = ray.max_distance();
        let mut best: Option<Collision> = None;
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
                    if let Some(h) = self.obstacles[id as usize].cast_ray(ray) {
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
    fn visit(&self, node_test: impl Fn(&Aabb) -> bool, mut item: impl FnMut(u32)) {
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

    /// Calls `f` for every obstacle that touches or intersects `circle` (closed test: distance
    /// from the centre to the solid obstacle ≤ radius; an obstacle containing the centre
    /// counts). Visits in a deterministic order that depends on the tree, not on ids.
    pub fn for_each_overlapping(&self, circle: &Circle, mut f: impl FnMut(ObstacleId, &Obstacle)) {
        let r = circle.radius.max(0.0);
        let reach = r + slack(r);
        let reach_sq = reach * reach;
        self.visit(
            |b| b.distance_squared_to_point(circle.center) <= reach_sq,
            |id| {
                let o = &self.obstacles[id as usize];
                if o.overlaps_circle(circle) {
                    f(ObstacleId(id), o);
                }
            },
        );
    }

    /// Calls `f` for every wall ([`Obstacle::Wall`]) within `radius` of `point` (distance from
    /// the point to the segment ≤ radius). Solid shapes are not walls and are skipped; use
    /// [`for_each_overlapping`](Self::for_each_overlapping) for them.
    pub fn for_each_wall_near(
        &self,
        point: Vec2,
        radius: f32,
        mut f: impl FnMut(ObstacleId, &Segment),
    ) {
        let circle = Circle::new(point, radius);
        self.for_each_overlapping(&circle, |id, o| {
            if let Obstacle::Wall(s) = o {
                f(id, s);
            }
        });
    }

    /// The obstacle closest to `point` within `max_distance` (inclusive; `f32::INFINITY` for no
    /// limit): the distance is 0 inside a solid obstacle or on a wall. Ties go to the lowest
    /// id. `None` when nothing is that close.
    #[must_use]
    pub fn closest(&self, point: Vec2, max_distance: f32) -> Option<ClosestObstacle> {
        let mut best_d = if max_distance >= 0.0 { max_distance } else { 0.0 };
        let mut best: Option<ClosestObstacle> = None;
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
                    let c = closest_to(&self.obstacles[id as usize], point, id);
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

#[inline]
fn closest_to(o: &Obstacle, point: Vec2, id: u32) -> ClosestObstacle {
    let p = o.closest_point(point);
    ClosestObstacle { obstacle: ObstacleId(id), point: p, distance: (p - point).length() }
}

impl CollisionDetector for ObstacleSet {
    fn cast_ray(&self, ray: &Ray) -> Option<Collision> {
        self.cast_ray_counting(ray).0
    }
}

fn build(nodes: &mut Vec<Node>, items: &mut [BuildItem], first: usize) {
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
    let extent = cmax - cmin;
    let axis = usize::from(extent.y > extent.x);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::tests::{any_vec2, small_vec2};
    use proptest::prelude::*;

    fn world() -> Vec<Obstacle> {
        vec![
            Circle::new(Vec2::new(10.0, 0.0), 1.0).into(), // 0
            Segment::new(Vec2::new(5.0, -1.0), Vec2::new(5.0, 1.0)).into(), // 1
            Aabb::new(Vec2::new(2.0, 3.0), Vec2::new(4.0, 5.0)).into(), // 2
            Polygon::rectangle(Vec2::new(-4.0, -1.0), Vec2::new(-2.0, 1.0)).unwrap().into(), // 3
            Segment::new(Vec2::new(0.0, -10.0), Vec2::new(20.0, -10.0)).into(), // 4
        ]
    }

    #[test]
    fn first_hit_reports_the_nearest_obstacle_and_ignores_hits_beyond_the_move() {
        let set = ObstacleSet::new(world()).unwrap();
        let c = set.first_hit(Vec2::ZERO, Vec2::new(20.0, 0.0)).unwrap();
        assert_eq!(c.obstacle, ObstacleId(1));
        assert!((c.distance - 5.0).abs() < 1e-5);
        assert_eq!(c.position, Vec2::new(5.0, 0.0));
        assert_eq!(c.normal, Vec2::NEG_X);
        assert!(set.first_hit(Vec2::ZERO, Vec2::new(4.9, 0.0)).is_none());
        // going up: the box's bottom face at y = 3
        let c = set.first_hit(Vec2::new(3.0, 0.0), Vec2::new(0.0, 10.0)).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(2), 3.0, Vec2::NEG_Y));
        // going left: the polygon's right edge at x = −2
        let c = set.first_hit(Vec2::ZERO, Vec2::new(-10.0, 0.0)).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(3), 2.0, Vec2::X));
        // from beyond the wall, moving right: the circle
        let c = set.first_hit(Vec2::new(6.0, 0.5), Vec2::new(10.0, 0.0)).unwrap();
        assert_eq!(c.obstacle, ObstacleId(0));
        assert!((c.distance - (4.0 - 0.75f32.sqrt())).abs() < 1e-5);
        // the same through the trait object and the brute-force slice
        let dynamic: &dyn CollisionDetector = &set;
        let brute = world();
        let r = Ray::new(Vec2::new(6.0, 0.5), Vec2::X, 10.0);
        assert_eq!(dynamic.cast_ray(&r), brute[..].cast_ray(&r));
    }

    #[test]
    fn a_character_inside_an_obstacle_is_pushed_out() {
        let set = ObstacleSet::new(world()).unwrap();
        // inside the circle, left of centre, moving right into it
        let c = set.first_hit(Vec2::new(9.5, 0.0), Vec2::new(2.0, 0.0)).unwrap();
        assert_eq!((c.obstacle, c.distance), (ObstacleId(0), 0.0));
        assert!((c.normal - Vec2::NEG_X).length() < 1e-6);
        // standing still inside the box, near its top
        let c = set.first_hit(Vec2::new(3.0, 4.9), Vec2::ZERO).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(2), 0.0, Vec2::Y));
        // standing still in the open: nothing
        assert!(set.first_hit(Vec2::ZERO, Vec2::ZERO).is_none());
        // standing exactly on a wall, walking into it
        let c = set.first_hit(Vec2::new(5.0, 0.0), Vec2::new(1.0, 0.0)).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(1), 0.0, Vec2::NEG_X));
    }

    #[test]
    fn ties_go_to_the_lowest_id() {
        let c = Circle::new(Vec2::new(5.0, 0.0), 1.0);
        let mut obstacles: Vec<Obstacle> =
            (0..20).map(|i| Circle::new(Vec2::new(50.0 + i as f32, 30.0), 0.5).into()).collect();
        obstacles[7] = c.into();
        obstacles[13] = c.into();
        obstacles[3] = Aabb::new(Vec2::new(4.0, -2.0), Vec2::new(6.0, -1.0)).into(); // not hit
        let set = ObstacleSet::new(obstacles.clone()).unwrap();
        let hit = set.first_hit(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
        assert_eq!((hit.obstacle, hit.distance), (ObstacleId(7), 4.0));
        assert_eq!(obstacles[..].first_hit(Vec2::ZERO, Vec2::new(10.0, 0.0)), Some(hit));
        let closest = set.closest(Vec2::new(5.0, 3.0), f32::INFINITY).unwrap();
        assert_eq!((closest.obstacle, closest.distance), (ObstacleId(7), 2.0));
    }

    #[test]
    fn region_queries() {
        let set = ObstacleSet::new(world()).unwrap();
        let mut found = Vec::new();
        set.for_each_overlapping(&Circle::new(Vec2::new(4.0, 0.0), 1.0), |id, _| found.push(id));
        assert_eq!(found, vec![ObstacleId(1)]); // the wall is exactly 1 m away: closed test
        found.clear();
        set.for_each_overlapping(&Circle::new(Vec2::new(4.0, 0.0), 5.5), |id, _| found.push(id));
        found.sort();
        assert_eq!(found, vec![ObstacleId(0), ObstacleId(1), ObstacleId(2)]);
        // a circle entirely inside the box overlaps it
        found.clear();
        set.for_each_overlapping(&Circle::new(Vec2::new(3.0, 4.0), 0.1), |id, _| found.push(id));
        assert_eq!(found, vec![ObstacleId(2)]);
        // walls only
        let mut walls = Vec::new();
        set.for_each_wall_near(Vec2::new(5.0, -6.0), 5.0, |id, s| walls.push((id, s.a)));
        walls.sort_by_key(|w| w.0);
        assert_eq!(
            walls,
            vec![(ObstacleId(1), Vec2::new(5.0, -1.0)), (ObstacleId(4), Vec2::new(0.0, -10.0))]
        );
        // closest obstacle
        let c = set.closest(Vec2::new(3.0, 1.5), 10.0).unwrap();
        assert_eq!((c.obstacle, c.point, c.distance), (ObstacleId(2), Vec2::new(3.0, 3.0), 1.5));
        assert!(set.closest(Vec2::new(3.0, 1.5), 1.49).is_none());
        let c = set.closest(Vec2::new(-3.0, 0.5), 10.0).unwrap();
        assert_eq!((c.obstacle, c.distance), (ObstacleId(3), 0.0));
        let empty = ObstacleSet::new([]).unwrap();
        assert!(empty.closest(Vec2::ZERO, f32::INFINITY).is_none());
        assert!(empty.first_hit(Vec2::ZERO, Vec2::X).is_none());
        assert!(empty.bounds().is_none() && empty.is_empty());
    }

    #[test]
    fn construction_rejects_bad_shapes() {
        let bad = |o: Obstacle| ObstacleSet::new([o]).unwrap_err();
        assert!(matches!(
            bad(Circle::new(Vec2::new(f32::NAN, 0.0), 1.0).into()),
            ParamError::NotFinite { name: "circle center", .. }
        ));
        assert!(matches!(
            bad(Circle::new(Vec2::ZERO, -1.0).into()),
            ParamError::Negative { name: "circle radius", .. }
        ));
        assert!(matches!(
            bad(Segment::new(Vec2::ZERO, Vec2::splat(f32::INFINITY)).into()),
            ParamError::NotFinite { name: "wall end", .. }
        ));
        assert!(matches!(
            bad(Aabb::new(Vec2::ONE, Vec2::ZERO).into()),
            ParamError::OutOfRange { name: "box", .. }
        ));
        // degenerate but valid
        let ok = ObstacleSet::new([
            Obstacle::from(Circle::new(Vec2::ONE, 0.0)),
            Segment::new(Vec2::ONE, Vec2::ONE).into(),
            Aabb::new(Vec2::ONE, Vec2::ONE).into(),
        ])
        .unwrap();
        assert_eq!(ok.len(), 3);
        // all three are the point (1, 1): whichever rounds nearest, the distance is √2
        let c = ok.first_hit(Vec2::ZERO, Vec2::new(2.0, 2.0)).unwrap();
        assert!((c.distance - 2f32.sqrt()).abs() < 1e-5);
        assert_eq!(Some(c), ok.obstacles().first_hit(Vec2::ZERO, Vec2::new(2.0, 2.0)));
        // a point probe on the point hits all three at 0: the lowest id wins
        let c = ok.first_hit(Vec2::ONE, Vec2::ZERO).unwrap();
        assert_eq!((c.obstacle, c.distance), (ObstacleId(0), 0.0));
    }

    #[test]
    fn the_index_prunes_instead_of_scanning() {
        // 10 000 small circles on a 100 × 100 grid, 2 m apart
        let obstacles: Vec<Obstacle> = (0..10_000)
            .map(|i| {
                Circle::new(Vec2::new((i % 100) as f32 * 2.0, (i / 100) as f32 * 2.0), 0.4).into()
            })
            .collect();
        let set = ObstacleSet::new(obstacles.clone()).unwrap();
        // a 5 m ray between rows hits nothing and must not look at more than a few dozen
        let ray = Ray::new(Vec2::new(51.0, 101.0), Vec2::X, 5.0);
        let (hit, tested) = set.cast_ray_counting(&ray);
        assert!(hit.is_none());
        assert!(tested <= 24, "tested {tested} obstacles");
        // a long ray along a row stops at the first circle; the search stops there too
        let ray = Ray::new(Vec2::new(-5.0, 100.0), Vec2::X, f32::INFINITY);
        let (hit, tested) = set.cast_ray_counting(&ray);
        let hit = hit.unwrap();
        assert_eq!(hit.obstacle, ObstacleId(5000));
        assert!((hit.distance - 4.6).abs() < 1e-5);
        assert!(tested <= 24, "tested {tested} obstacles");
        assert_eq!(obstacles[..].cast_ray(&ray), Some(hit));
        // a region query returns exactly the nearby circles
        let mut n = 0;
        set.for_each_overlapping(&Circle::new(Vec2::new(101.0, 101.0), 1.5), |_, _| n += 1);
        assert_eq!(n, 4);
    }

    // ---- property tests: the index answers exactly as brute force ---------------------------

    fn any_obstacle() -> impl Strategy<Value = Obstacle> {
        prop_oneof![
            (small_vec2(), prop_oneof![Just(0.0f32), 0.0f32..8.0])
                .prop_map(|(c, r)| Circle::new(c, r).into()),
            (small_vec2(), prop_oneof![Just(Vec2::ZERO), small_vec2()])
                .prop_map(|(a, d)| Segment::new(a, a + d * 0.3).into()),
            (small_vec2(), prop_oneof![Just(Vec2::ZERO), small_vec2()])
                .prop_map(|(a, d)| Aabb::from_corners(a, a + d * 0.2).into()),
            (small_vec2(), 3usize..8, 0.1f32..6.0, -3.0f32..3.0).prop_map(|(c, n, r, phase)| {
                let pts: Vec<Vec2> = (0..n)
                    .map(|k| {
                        c + Vec2::from_angle(phase + k as f32 * core::f32::consts::TAU / n as f32)
                            * r
                    })
                    .collect();
                Polygon::new(pts).map_or_else(|_| Circle::new(c, r).into(), Obstacle::from)
            }),
            (small_vec2(), small_vec2(), small_vec2()).prop_map(|(a, b, c)| {
                Polygon::new(vec![a, b, c])
                    .map_or_else(|_| Segment::new(a, b).into(), Obstacle::from)
            }),
        ]
    }

    fn any_ray() -> impl Strategy<Value = Ray> {
        (
            small_vec2(),
            prop_oneof![Just(Vec2::ZERO), small_vec2()],
            prop_oneof![Just(f32::INFINITY), Just(0.0f32), 0.0f32..120.0],
        )
            .prop_map(|(o, d, m)| Ray::new(o, d, m))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn every_query_matches_brute_force(
            obstacles in prop::collection::vec(any_obstacle(), 0..200),
            rays in prop::collection::vec(any_ray(), 24),
            centers in prop::collection::vec((small_vec2(), 0.0f32..20.0), 8),
        ) {
            let set = ObstacleSet::new(obstacles.clone()).unwrap();
            let brute = &obstacles[..];
            for ray in &rays {
                let (a, b) = (set.cast_ray(ray), brute.cast_ray(ray));
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) => {
                        prop_assert_eq!(a.obstacle, b.obstacle, "{:?} {:?} {:?}", ray, a, b);
                        prop_assert!((a.distance - b.distance).abs() <= 1e-5);
                        prop_assert_eq!(a, b);
                    }
                    _ => prop_assert!(false, "{:?}: index {:?} vs brute force {:?}", ray, a, b),
                }
                let m = set.first_hit(ray.origin(), ray.direction() * ray.max_distance().min(1e3));
                let n = brute.first_hit(ray.origin(), ray.direction() * ray.max_distance().min(1e3));
                prop_assert_eq!(m, n);
            }
            for &(c, r) in &centers {
                let circle = Circle::new(c, r);
                let mut got = Vec::new();
                set.for_each_overlapping(&circle, |id, o| {
                    assert!(core::ptr::eq(o, &set.obstacles()[id.index()]));
                    assert_eq!(o, &obstacles[id.index()]);
                    got.push(id);
                });
                got.sort();
                let want: Vec<ObstacleId> = obstacles
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.overlaps_circle(&circle))
                    .map(|(i, _)| ObstacleId(i as u32))
                    .collect();
                prop_assert_eq!(&got, &want);
                let mut walls = Vec::new();
                set.for_each_wall_near(c, r, |id, _| walls.push(id));
                walls.sort();
                let want_walls: Vec<ObstacleId> = want
                    .iter()
                    .copied()
                    .filter(|id| matches!(obstacles[id.index()], Obstacle::Wall(_)))
                    .collect();
                prop_assert_eq!(walls, want_walls);
                // closest, with and without a limit
                for limit in [r, f32::INFINITY] {
                    let got = set.closest(c, limit);
                    let want = obstacles
                        .iter()
                        .enumerate()
                        .map(|(i, o)| closest_to(o, c, i as u32))
                        .filter(|k| k.distance <= limit)
                        .min_by(|x, y| x.distance.total_cmp(&y.distance).then(x.obstacle.cmp(&y.obstacle)));
                    prop_assert_eq!(got, want);
                }
            }
        }

        #[test]
        fn no_nan_and_no_panic_for_any_finite_query(
            obstacles in prop::collection::vec(any_obstacle(), 0..60),
            o in any_vec2(), d in any_vec2(), c in any_vec2(),
        ) {
            let set = ObstacleSet::new(obstacles).unwrap();
            for hit in [set.first_hit(o, d), set.cast_ray(&Ray::new(o, d, f32::INFINITY))].into_iter().flatten() {
                prop_assert!(!hit.position.is_nan() && !hit.normal.is_nan() && !hit.distance.is_nan());
                prop_assert!((hit.normal.length() - 1.0).abs() < 1e-3);
            }
            if let Some(k) = set.closest(c, f32::INFINITY) {
                prop_assert!(!k.point.is_nan() && !k.distance.is_nan());
            }
            set.for_each_overlapping(&Circle::new(c, d.x.abs()), |_, _| {});
        }
    }
}
