//! The 3D static world: solid spheres and boxes ([`Obstacle3`]) in an [`ObstacleSet3`], on the
//! same bounding-volume tree as the 2D set.

use super::tree::{cast_every, Tree};
use super::{
    ball_closest_point, validate_box, validated, ClosestObstacle, Collision, CollisionDetector,
    ObstacleId, Shape, StaticWorld,
};
use crate::error::{finite, non_negative, ParamError};
use crate::geometry::{Aabb, Ray3, RayHit3, Sphere};
use glam::Vec3;

/// One static obstacle in 3D. Both shapes are solid: a ray starting inside hits at distance 0
/// with the outward normal of the nearest boundary (see the [`geometry`](crate::geometry)
/// conventions).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Obstacle3 {
    /// A solid ball.
    Sphere(Sphere),
    /// A solid axis-aligned box.
    Box(Aabb<Vec3>),
}

impl From<Sphere> for Obstacle3 {
    fn from(s: Sphere) -> Self {
        Obstacle3::Sphere(s)
    }
}
impl From<Aabb<Vec3>> for Obstacle3 {
    fn from(b: Aabb<Vec3>) -> Self {
        Obstacle3::Box(b)
    }
}

impl Obstacle3 {
    /// The bounding box.
    #[must_use]
    #[inline]
    pub fn aabb(&self) -> Aabb<Vec3> {
        match self {
            Obstacle3::Sphere(s) => s.aabb(),
            Obstacle3::Box(b) => *b,
        }
    }

    /// The shape's own ray cast ([`Sphere::cast_ray`], [`Aabb::cast_ray`]).
    #[must_use]
    #[inline]
    pub fn cast_ray(&self, ray: &Ray3) -> Option<RayHit3> {
        match self {
            Obstacle3::Sphere(s) => s.cast_ray(ray),
            Obstacle3::Box(b) => b.cast_ray(ray),
        }
    }

    /// True when the obstacle touches or intersects the ball.
    #[must_use]
    #[inline]
    pub fn overlaps_sphere(&self, sphere: &Sphere) -> bool {
        match self {
            Obstacle3::Sphere(s) => s.overlaps_sphere(sphere),
            Obstacle3::Box(b) => sphere.overlaps_aabb(b),
        }
    }

    /// The closest point of the (solid) obstacle to `point`: `point` itself when inside.
    #[must_use]
    #[inline]
    pub fn closest_point(&self, point: Vec3) -> Vec3 {
        match self {
            Obstacle3::Sphere(s) => ball_closest_point(s.center, s.radius, point),
            Obstacle3::Box(b) => b.closest_point(point),
        }
    }
}

impl Shape<Vec3> for Obstacle3 {
    #[inline]
    fn aabb(&self) -> Aabb<Vec3> {
        Obstacle3::aabb(self)
    }
    #[inline]
    fn cast_ray(&self, ray: &Ray3) -> Option<RayHit3> {
        Obstacle3::cast_ray(self, ray)
    }
    #[inline]
    fn closest_point(&self, point: Vec3) -> Vec3 {
        Obstacle3::closest_point(self, point)
    }
    #[inline]
    fn overlaps_ball(&self, center: Vec3, radius: f32) -> bool {
        self.overlaps_sphere(&Sphere::new(center, radius))
    }
    #[inline]
    fn is_wall(&self) -> bool {
        false
    }
    fn validate(&self) -> Result<(), ParamError> {
        match self {
            Obstacle3::Sphere(s) => {
                for k in 0..3 {
                    finite("sphere center", s.center[k])?;
                }
                non_negative("sphere radius", s.radius).map(|_| ())
            }
            Obstacle3::Box(b) => validate_box(b),
        }
    }
}

/// Brute force: every obstacle is tested. For small worlds and as a reference.
impl CollisionDetector<Vec3> for [Obstacle3] {
    fn cast_ray(&self, ray: &Ray3) -> Option<Collision<Vec3>> {
        cast_every(self, ray)
    }
}

/// A static set of 3D obstacles (spheres and boxes) with a bounding-volume hierarchy over
/// their boxes: the 3D [`ObstacleSet`](super::ObstacleSet), on the same tree.
///
/// Built once in O(n log n) (median splits along the longest axis of the item centres, at most
/// 4 obstacles per leaf); every query is then roughly logarithmic in the number of obstacles
/// plus the number near the query, and allocates nothing. Answers are identical to a
/// brute-force scan of [`obstacles`](ObstacleSet3::obstacles): the first hit is the least
/// distance, ties to the lowest id; a ray starting inside a solid hits it at distance 0.
///
/// ```
/// use steerkit::geometry::{Aabb, Obstacle3, ObstacleSet3, Ray3, Sphere};
/// use steerkit::prelude::*;
/// let set = ObstacleSet3::new([
///     Obstacle3::Sphere(Sphere::new(Vec3::new(10.0, 0.0, 0.0), 1.0)),
///     Obstacle3::Box(Aabb::new(Vec3::new(4.0, -1.0, -1.0), Vec3::new(5.0, 1.0, 1.0))),
/// ])?;
/// let hit = set.cast_ray(&Ray3::new(Vec3::ZERO, Vec3::X, 20.0)).unwrap();
/// assert_eq!((hit.obstacle.0, hit.distance, hit.normal), (1, 4.0, Vec3::NEG_X));
/// assert!(set.first_hit(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0)).is_none());
/// # Ok::<(), ParamError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ObstacleSet3 {
    obstacles: Vec<Obstacle3>,
    tree: Tree<Vec3>,
}

impl ObstacleSet3 {
    /// Validates the obstacles and builds the index.
    ///
    /// # Errors
    /// [`ParamError`] naming the field: a non-finite sphere centre (`sphere center`) or radius
    /// (`sphere radius`), a negative radius (`sphere radius`), a non-finite box corner
    /// (`box corner`), a box with `min > max` on some axis (`box`, [`ParamError::OutOfRange`]),
    /// or more than `u32::MAX` obstacles. Zero radii and zero-size boxes are accepted.
    pub fn new(obstacles: impl IntoIterator<Item = Obstacle3>) -> Result<Self, ParamError> {
        let obstacles = validated(obstacles)?;
        let tree = Tree::build(&obstacles);
        Ok(ObstacleSet3 { obstacles, tree })
    }

    /// The obstacles, indexed by [`ObstacleId::index`].
    #[must_use]
    #[inline]
    pub fn obstacles(&self) -> &[Obstacle3] {
        &self.obstacles
    }

    /// One obstacle.
    #[must_use]
    #[inline]
    pub fn get(&self, id: ObstacleId) -> Option<&Obstacle3> {
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
    pub fn bounds(&self) -> Option<Aabb<Vec3>> {
        self.tree.bounds()
    }

    /// Ray cast returning the collision and the number of obstacles whose narrow-phase test ran.
    #[cfg(test)]
    fn cast_ray_counting(&self, ray: &Ray3) -> (Option<Collision<Vec3>>, usize) {
        self.tree.cast_ray(&self.obstacles, ray)
    }

    /// Calls `f` for every obstacle that touches or intersects `sphere` (closed test: distance
    /// from the centre to the solid obstacle ≤ radius; an obstacle containing the centre
    /// counts). Visits in a deterministic order that depends on the tree, not on ids.
    #[inline]
    pub fn for_each_overlapping(&self, sphere: &Sphere, f: impl FnMut(ObstacleId, &Obstacle3)) {
        self.tree.for_each_overlapping(&self.obstacles, sphere.center, sphere.radius, f);
    }

    /// The obstacle closest to `point` within `max_distance` (inclusive; `f32::INFINITY` for no
    /// limit): the distance is 0 inside an obstacle. Ties go to the lowest id. `None` when
    /// nothing is that close.
    #[must_use]
    pub fn closest(&self, point: Vec3, max_distance: f32) -> Option<ClosestObstacle<Vec3>> {
        self.tree.closest(&self.obstacles, point, max_distance)
    }
}

impl CollisionDetector<Vec3> for ObstacleSet3 {
    #[inline]
    fn cast_ray(&self, ray: &Ray3) -> Option<Collision<Vec3>> {
        self.tree.cast_ray(&self.obstacles, ray).0
    }
}

impl StaticWorld<Vec3> for ObstacleSet3 {
    type Shape = Obstacle3;
    #[inline]
    fn shape(&self, id: ObstacleId) -> Option<&Obstacle3> {
        self.get(id)
    }
    #[inline]
    fn for_each_near(&self, center: Vec3, radius: f32, f: impl FnMut(ObstacleId, &Obstacle3)) {
        self.tree.for_each_overlapping(&self.obstacles, center, radius, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::obstacle::tree::closest_to;
    use proptest::prelude::*;

    fn world() -> Vec<Obstacle3> {
        vec![
            Sphere::new(Vec3::new(10.0, 0.0, 0.0), 1.0).into(), // 0
            Aabb::new(Vec3::new(4.0, -1.0, -1.0), Vec3::new(5.0, 1.0, 1.0)).into(), // 1
            Sphere::new(Vec3::new(0.0, 6.0, 0.0), 2.0).into(),  // 2
            Aabb::new(Vec3::new(-3.0, -3.0, 2.0), Vec3::new(3.0, 3.0, 2.5)).into(), // 3
        ]
    }

    #[test]
    fn first_hits_inside_starts_and_region_queries() {
        let set = ObstacleSet3::new(world()).unwrap();
        // along +x: the box's −x face at 4 m, not the sphere behind it
        let c = set.first_hit(Vec3::ZERO, Vec3::new(20.0, 0.0, 0.0)).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(1), 4.0, Vec3::NEG_X));
        assert_eq!(c.position, Vec3::new(4.0, 0.0, 0.0));
        assert!(set.first_hit(Vec3::ZERO, Vec3::new(3.9, 0.0, 0.0)).is_none());
        // up: the sphere's bottom at y = 4
        let c = set.first_hit(Vec3::ZERO, Vec3::Y * 10.0).unwrap();
        assert_eq!(c.obstacle, ObstacleId(2));
        assert!((c.distance - 4.0).abs() < 1e-6 && (c.normal - Vec3::NEG_Y).length() < 1e-6);
        // toward +z: the slab's −z face
        let c = set.first_hit(Vec3::ZERO, Vec3::Z * 10.0).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(3), 2.0, Vec3::NEG_Z));
        // from beyond the box: the sphere, 4 m from x = 5 to its surface at x = 9
        let c = set.first_hit(Vec3::new(5.5, 0.0, 0.0), Vec3::X * 10.0).unwrap();
        assert_eq!(c.obstacle, ObstacleId(0));
        assert!((c.distance - 3.5).abs() < 1e-6);
        // starting inside: distance 0 and the outward normal of the nearest boundary
        let c = set.first_hit(Vec3::new(9.5, 0.0, 0.0), Vec3::X).unwrap();
        assert_eq!((c.obstacle, c.distance), (ObstacleId(0), 0.0));
        assert!((c.normal - Vec3::NEG_X).length() < 1e-6);
        let c = set.first_hit(Vec3::new(4.5, 0.9, 0.0), Vec3::ZERO).unwrap();
        assert_eq!((c.obstacle, c.distance, c.normal), (ObstacleId(1), 0.0, Vec3::Y));
        assert!(set.first_hit(Vec3::ZERO, Vec3::ZERO).is_none());
        // the trait object and brute force agree
        let dynamic: &dyn CollisionDetector<Vec3> = &set;
        let r = Ray3::new(Vec3::new(5.5, 0.0, 0.0), Vec3::X, 10.0);
        assert_eq!(dynamic.cast_ray(&r), world()[..].cast_ray(&r));
        // region queries
        let mut found = Vec::new();
        set.for_each_overlapping(&Sphere::new(Vec3::new(3.0, 0.0, 0.0), 1.0), |id, _| {
            found.push(id)
        });
        assert_eq!(found, vec![ObstacleId(1)]); // the box's face is exactly 1 m away: closed
        found.clear();
        set.for_each_overlapping(&Sphere::new(Vec3::new(0.0, 6.0, 0.0), 0.1), |id, _| {
            found.push(id)
        });
        assert_eq!(found, vec![ObstacleId(2)]); // inside the sphere
        let k = set.closest(Vec3::new(0.0, 0.0, 1.0), f32::INFINITY).unwrap();
        assert_eq!(
            (k.obstacle, k.point, k.distance),
            (ObstacleId(3), Vec3::new(0.0, 0.0, 2.0), 1.0)
        );
        assert!(set.closest(Vec3::new(0.0, 0.0, 1.0), 0.99).is_none());
        assert_eq!(
            set.obstacles()[2].closest_point(Vec3::new(0.0, 10.0, 0.0)),
            Vec3::new(0.0, 8.0, 0.0)
        );
        assert!(set.bounds().unwrap().contains_point(Vec3::new(10.9, 0.0, 0.0)));
        let empty = ObstacleSet3::new([]).unwrap();
        assert!(empty.is_empty() && empty.bounds().is_none());
        assert!(empty.first_hit(Vec3::ZERO, Vec3::X).is_none());
    }

    #[test]
    fn construction_rejects_bad_shapes() {
        let bad = |o: Obstacle3| ObstacleSet3::new([o]).unwrap_err();
        assert!(matches!(
            bad(Sphere::new(Vec3::new(0.0, f32::NAN, 0.0), 1.0).into()),
            ParamError::NotFinite { name: "sphere center", .. }
        ));
        assert!(matches!(
            bad(Sphere::new(Vec3::ZERO, -1.0).into()),
            ParamError::Negative { name: "sphere radius", .. }
        ));
        assert!(matches!(
            bad(Sphere::new(Vec3::ZERO, f32::INFINITY).into()),
            ParamError::NotFinite { name: "sphere radius", .. }
        ));
        assert!(matches!(
            bad(Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0)).into()),
            ParamError::NotFinite { name: "box corner", .. }
        ));
        assert!(matches!(
            bad(Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, -2.0)).into()),
            ParamError::OutOfRange { name: "box", value: 2.0, range: "min.z ≤ max.z" }
        ));
        let msg = bad(Aabb::new(Vec3::ZERO, Vec3::new(1.0, -1.0, 1.0)).into()).to_string();
        assert!(msg.contains("`box`") && msg.contains("min.y ≤ max.y"), "{msg}");
        // degenerate but valid
        let ok = ObstacleSet3::new([
            Obstacle3::from(Sphere::new(Vec3::ONE, 0.0)),
            Aabb::new(Vec3::ONE, Vec3::ONE).into(),
        ])
        .unwrap();
        let c = ok.first_hit(Vec3::ONE, Vec3::ZERO).unwrap();
        assert_eq!((c.obstacle, c.distance), (ObstacleId(0), 0.0));
    }

    #[test]
    fn the_index_prunes_instead_of_scanning() {
        // 8000 small spheres on a 20 × 20 × 20 lattice, 2 m apart
        let obstacles: Vec<Obstacle3> = (0..8000)
            .map(|i| {
                let (x, y, z) = (i % 20, (i / 20) % 20, i / 400);
                Sphere::new(Vec3::new(x as f32, y as f32, z as f32) * 2.0, 0.4).into()
            })
            .collect();
        let set = ObstacleSet3::new(obstacles.clone()).unwrap();
        // a 5 m ray between rows hits nothing and looks at a few obstacles only
        let ray = Ray3::new(Vec3::new(11.0, 11.0, 11.0), Vec3::X, 5.0);
        let (hit, tested) = set.cast_ray_counting(&ray);
        assert!(hit.is_none());
        assert!(tested <= 24, "tested {tested} obstacles");
        // a long ray along a row stops at the first sphere, and so does the search
        let ray = Ray3::new(Vec3::new(-5.0, 20.0, 20.0), Vec3::X, f32::INFINITY);
        let (hit, tested) = set.cast_ray_counting(&ray);
        let hit = hit.unwrap();
        assert_eq!(hit.obstacle, ObstacleId(10 * 400 + 10 * 20));
        assert!((hit.distance - 4.6).abs() < 1e-5);
        assert!(tested <= 24, "tested {tested} obstacles");
        assert_eq!(obstacles[..].cast_ray(&ray), Some(hit));
        let mut n = 0;
        set.for_each_overlapping(&Sphere::new(Vec3::splat(11.0), 1.8), |_, _| n += 1);
        assert_eq!(n, 8);
    }

    fn small() -> impl Strategy<Value = f32> {
        prop_oneof![(-4i32..=4).prop_map(|i| i as f32), -30.0f32..30.0]
    }

    fn small_vec3() -> impl Strategy<Value = Vec3> {
        (small(), small(), small()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn any_obstacle() -> impl Strategy<Value = Obstacle3> {
        prop_oneof![
            (small_vec3(), prop_oneof![Just(0.0f32), 0.0f32..6.0])
                .prop_map(|(c, r)| Sphere::new(c, r).into()),
            (small_vec3(), prop_oneof![Just(Vec3::ZERO), small_vec3()])
                .prop_map(|(a, d)| Aabb::from_corners(a, a + d * 0.2).into()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn every_query_matches_brute_force(
            obstacles in prop::collection::vec(any_obstacle(), 0..150),
            rays in prop::collection::vec(
                (small_vec3(), prop_oneof![Just(Vec3::ZERO), small_vec3()],
                 prop_oneof![Just(f32::INFINITY), Just(0.0f32), 0.0f32..80.0]),
                16,
            ),
            balls in prop::collection::vec((small_vec3(), 0.0f32..12.0), 6),
        ) {
            let set = ObstacleSet3::new(obstacles.clone()).unwrap();
            let brute = &obstacles[..];
            for &(o, d, m) in &rays {
                let ray = Ray3::new(o, d, m);
                prop_assert_eq!(set.cast_ray(&ray), brute.cast_ray(&ray), "{:?}", ray);
                let step = ray.direction() * ray.max_distance().min(1e3);
                prop_assert_eq!(set.first_hit(o, step), brute.first_hit(o, step));
            }
            for &(c, r) in &balls {
                let ball = Sphere::new(c, r);
                let mut got = Vec::new();
                set.for_each_overlapping(&ball, |id, o| {
                    assert_eq!(o, &obstacles[id.index()]);
                    got.push(id);
                });
                got.sort();
                let want: Vec<ObstacleId> = obstacles
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.overlaps_sphere(&ball))
                    .map(|(i, _)| ObstacleId(i as u32))
                    .collect();
                prop_assert_eq!(&got, &want);
                for limit in [r, f32::INFINITY] {
                    let want = obstacles
                        .iter()
                        .enumerate()
                        .map(|(i, o)| closest_to(o, c, i as u32))
                        .filter(|k| k.distance <= limit)
                        .min_by(|x, y| x.distance.total_cmp(&y.distance).then(x.obstacle.cmp(&y.obstacle)));
                    prop_assert_eq!(set.closest(c, limit), want);
                }
            }
        }
    }
}
