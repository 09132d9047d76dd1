//! Static obstacles and the collision detector that obstacle and wall avoidance query
//! (Millington §3.3.15, Green/Buckland §9–10, §24).
//!
//! - [`CollisionDetector`] is the book's interface: the first [`Collision`] along a move. Engines
//!   can implement it over their own ray casts. It is generic over the space (2D by default,
//!   `CollisionDetector<Vec3>` in 3D).
//! - [`ObstacleSet`] is a ready implementation over circles, walls, convex polygons and boxes,
//!   backed by a bounding-volume hierarchy built once (static geometry), so a query visits only
//!   the obstacles near it. It also answers region queries: obstacles overlapping a circle
//!   (detection boxes, hide spots), walls near a point, and the closest obstacle.
//! - [`ObstacleSet3`] is the same in 3D over spheres and boxes ([`Obstacle3`]), on the same
//!   tree (one implementation over [`Vector`](crate::math::Vector)).
//! - A plain slice `[Obstacle]` (`[Obstacle3]`) is a brute-force detector for small worlds and
//!   tests; it gives exactly the same answers as a set over the same obstacles.
//!
//! Queries allocate nothing. When several obstacles are hit at the same distance, the lowest
//! [`ObstacleId`] wins, so the answer never depends on the tree's layout.

mod set3;
mod tree;

pub(crate) use sealed::{Shape, StaticWorld};
pub use set3::{Obstacle3, ObstacleSet3};

use crate::error::{non_negative, ParamError};
use crate::geometry::{Aabb, Circle, Polygon, Ray, RayHit, Segment};
use crate::math::Vector;
use glam::Vec2;
use tree::Tree;

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

/// The first contact along a move (Millington's `Collision`, with the distance and the
/// obstacle). 2D by default; [`Collision3`] in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collision<V: Vector = Vec2> {
    /// The contact point (m).
    pub position: V,
    /// Unit surface normal at the contact, facing the side the move came from; for a move that
    /// starts inside a solid obstacle, the outward normal of its nearest boundary (see
    /// the [`geometry`](crate::geometry) conventions).
    pub normal: V,
    /// Distance from the start of the move to the contact (m).
    pub distance: f32,
    /// Which obstacle was hit.
    pub obstacle: ObstacleId,
}

/// The first contact along a 3D move.
pub type Collision3 = Collision<glam::Vec3>;

/// What obstacle and wall avoidance ask the world (Millington's `CollisionDetector`), in 2D by
/// default or in 3D as `CollisionDetector<Vec3>`.
///
/// Implement [`cast_ray`](CollisionDetector::cast_ray); [`first_hit`](CollisionDetector::first_hit)
/// follows. The trait is object safe.
pub trait CollisionDetector<V: Vector = Vec2> {
    /// The first collision along `ray` (least distance; ties to the lowest obstacle id), or
    /// `None` when nothing lies within `ray.max_distance()`.
    fn cast_ray(&self, ray: &Ray<V>) -> Option<Collision<V>>;

    /// The first collision when moving from `position` to `position + move_amount`; hits beyond
    /// the move are ignored. A zero move reports an obstacle containing `position` (at distance
    /// 0), if any.
    fn first_hit(&self, position: V, move_amount: V) -> Option<Collision<V>> {
        self.cast_ray(&Ray::from_segment(position, move_amount))
    }
}

mod sealed {
    use super::{CollisionDetector, ObstacleId};
    use crate::error::ParamError;
    use crate::geometry::{Aabb, Ray, RayHit};
    use crate::math::Vector;

    /// One obstacle shape of a space ([`Obstacle`](super::Obstacle) in 2D,
    /// [`Obstacle3`](super::Obstacle3) in 3D): what the tree and the generic queries (the
    /// crowd's containment, repulsion) ask of it. Crate-private.
    pub trait Shape<V: Vector>:
        Clone + core::fmt::Debug + PartialEq + Send + Sync + 'static
    {
        /// The bounding box.
        fn aabb(&self) -> Aabb<V>;
        /// The shape's own ray cast.
        fn cast_ray(&self, ray: &Ray<V>) -> Option<RayHit<V>>;
        /// The closest point of the (solid) obstacle to `point`: `point` itself when inside.
        fn closest_point(&self, point: V) -> V;
        /// True when the obstacle touches or intersects the ball `center ± radius` (a negative
        /// or NaN radius is a point).
        fn overlaps_ball(&self, center: V, radius: f32) -> bool;
        /// A wall (two-sided, not solid) rather than a solid.
        fn is_wall(&self) -> bool;
        /// Finite coordinates, a non-negative radius, a box with `min ≤ max`.
        fn validate(&self) -> Result<(), ParamError>;
    }

    /// A static world the crowd runs in ([`ObstacleSet`](super::ObstacleSet) in 2D,
    /// [`ObstacleSet3`](super::ObstacleSet3) in 3D): ray casts plus a region query, so the
    /// containment and repulsion are written once over the space. Crate-private.
    pub trait StaticWorld<V: Vector>:
        CollisionDetector<V> + Clone + core::fmt::Debug + Send + Sync + 'static
    {
        /// The obstacle shape.
        type Shape: Shape<V>;
        /// One obstacle.
        fn shape(&self, id: ObstacleId) -> Option<&Self::Shape>;
        /// Calls `f` for every obstacle that touches or intersects the ball `center ± radius`.
        fn for_each_near(&self, center: V, radius: f32, f: impl FnMut(ObstacleId, &Self::Shape));
    }
}

/// Checks the obstacles of a new set: each shape, and at most `u32::MAX` of them.
fn validated<V: Vector, O: Shape<V>>(
    obstacles: impl IntoIterator<Item = O>,
) -> Result<Vec<O>, ParamError> {
    let obstacles: Vec<O> = obstacles.into_iter().collect();
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
    Ok(obstacles)
}

/// A box obstacle's check, in 2D and 3D: finite corners (`box corner`), `min ≤ max` on every
/// axis (`box`, the first axis that fails).
fn validate_box<V: Vector>(b: &Aabb<V>) -> Result<(), ParamError> {
    for k in 0..V::DIM {
        crate::error::finite("box corner", b.min[k])?;
    }
    for k in 0..V::DIM {
        crate::error::finite("box corner", b.max[k])?;
    }
    const RANGES: [&str; 3] = ["min.x ≤ max.x", "min.y ≤ max.y", "min.z ≤ max.z"];
    for (k, range) in RANGES.into_iter().enumerate().take(V::DIM) {
        if b.min[k] > b.max[k] {
            return Err(ParamError::OutOfRange { name: "box", value: b.min[k] - b.max[k], range });
        }
    }
    Ok(())
}

/// The closest point of the solid ball `center ± radius` to `point` (`point` itself inside;
/// a negative or NaN radius is 0).
#[inline]
fn ball_closest_point<V: Vector>(center: V, radius: f32, point: V) -> V {
    let d = point - center;
    let r = radius.max(0.0);
    if d.length_squared() <= r * r {
        point
    } else {
        center + d.normalize_or_zero() * r
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
            Obstacle::Circle(c) => ball_closest_point(c.center, c.radius, point),
            Obstacle::Wall(s) => s.closest_point(point).0,
            Obstacle::Polygon(p) => p.closest_point(point),
            Obstacle::Box(b) => b.closest_point(point),
        }
    }
}

impl Shape<Vec2> for Obstacle {
    #[inline]
    fn aabb(&self) -> Aabb {
        Obstacle::aabb(self)
    }
    #[inline]
    fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        Obstacle::cast_ray(self, ray)
    }
    #[inline]
    fn closest_point(&self, point: Vec2) -> Vec2 {
        Obstacle::closest_point(self, point)
    }
    #[inline]
    fn overlaps_ball(&self, center: Vec2, radius: f32) -> bool {
        self.overlaps_circle(&Circle::new(center, radius))
    }
    #[inline]
    fn is_wall(&self) -> bool {
        matches!(self, Obstacle::Wall(_))
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
            Obstacle::Box(b) => validate_box(b),
        }
    }
}

/// The closest obstacle to a point: see [`ObstacleSet::closest`]. 2D by default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestObstacle<V: Vector = Vec2> {
    /// Which obstacle.
    pub obstacle: ObstacleId,
    /// Its closest point to the query point (the query point itself when inside).
    pub point: V,
    /// Distance from the query point to `point` (m); 0 inside a solid or on a wall.
    pub distance: f32,
}

/// Brute force: every obstacle is tested. For small worlds and as a reference.
impl CollisionDetector for [Obstacle] {
    fn cast_ray(&self, ray: &Ray) -> Option<Collision> {
        tree::cast_every(self, ray)
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
    tree: Tree<Vec2>,
}

impl ObstacleSet {
    /// Validates the obstacles and builds the index.
    ///
    /// # Errors
    /// [`ParamError`] for a non-finite coordinate, a negative or non-finite circle radius, a box
    /// with `min > max`, or more than `u32::MAX` obstacles. Zero radii, zero-length walls and
    /// zero-size boxes are accepted.
    pub fn new(obstacles: impl IntoIterator<Item = Obstacle>) -> Result<Self, ParamError> {
        let obstacles = validated(obstacles)?;
        let tree = Tree::build(&obstacles);
        Ok(ObstacleSet { obstacles, tree })
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
        self.tree.bounds()
    }

    /// Ray cast returning the collision and the number of obstacles whose narrow-phase test ran.
    #[cfg(test)]
    fn cast_ray_counting(&self, ray: &Ray) -> (Option<Collision>, usize) {
        self.tree.cast_ray(&self.obstacles, ray)
    }

    /// Calls `f` for every obstacle that touches or intersects `circle` (closed test: distance
    /// from the centre to the solid obstacle ≤ radius; an obstacle containing the centre
    /// counts). Visits in a deterministic order that depends on the tree, not on ids.
    #[inline]
    pub fn for_each_overlapping(&self, circle: &Circle, f: impl FnMut(ObstacleId, &Obstacle)) {
        self.tree.for_each_overlapping(&self.obstacles, circle.center, circle.radius, f);
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
        self.tree.closest(&self.obstacles, point, max_distance)
    }
}

impl CollisionDetector for ObstacleSet {
    #[inline]
    fn cast_ray(&self, ray: &Ray) -> Option<Collision> {
        self.tree.cast_ray(&self.obstacles, ray).0
    }
}

impl StaticWorld<Vec2> for ObstacleSet {
    type Shape = Obstacle;
    #[inline]
    fn shape(&self, id: ObstacleId) -> Option<&Obstacle> {
        self.get(id)
    }
    #[inline]
    fn for_each_near(&self, center: Vec2, radius: f32, f: impl FnMut(ObstacleId, &Obstacle)) {
        self.tree.for_each_overlapping(&self.obstacles, center, radius, f);
    }
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
                        .map(|(i, o)| tree::closest_to(o, c, i as u32))
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
