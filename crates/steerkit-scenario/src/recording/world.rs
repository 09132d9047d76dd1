//! The static world of a recording: bounds, 2D shapes, walls, paths, 3D volumes, spheres and
//! cuboids, turrets and race waypoints.

use super::{invalid, RecordingError, TurretShape};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use steerkit::geometry::{Aabb, Circle, Obstacle, Polygon, Segment, Sphere};
use steerkit::path::Polyline;
use steerkit::{Vec2, Vec3};

/// An axis-aligned rectangle (m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    /// Lower corner.
    pub min: [f32; 2],
    /// Upper corner.
    pub max: [f32; 2],
}

impl From<Aabb> for Rect {
    fn from(b: Aabb) -> Self {
        Rect { min: b.min.into(), max: b.max.into() }
    }
}

/// A solid disc.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircleShape {
    /// Centre (m).
    pub center: [f32; 2],
    /// Radius (m).
    pub radius: f32,
}

/// A solid polygon (points in order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolygonShape {
    /// Vertices (m).
    pub points: Vec<[f32; 2]>,
}

/// A wall segment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WallShape {
    /// Start (m).
    pub a: [f32; 2],
    /// End (m).
    pub b: [f32; 2],
}

/// A path waypoint (m), written as a JSON array of its components.
///
/// `[x, y]` in a 2D recording; `[x, y, z]` (y up) in a 3D one. A 3D recording may also hold
/// `[x, y]` points, in the ground plane `(x, −z)` (as recordings written before paths kept their
/// height do).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathPoint {
    /// A point in the drawing plane (2D, or the ground plane of a 3D run).
    Plane([f32; 2]),
    /// A point in 3D space.
    Space([f32; 3]),
}

impl PathPoint {
    /// The point in the drawing plane: `(x, y)` as is, a 3D point as `(x, −z)`.
    #[must_use]
    pub fn plane(self) -> Vec2 {
        match self {
            PathPoint::Plane(p) => p.into(),
            PathPoint::Space(p) => steerkit::math::ground::to_2d(p.into()),
        }
    }

    /// The point in 3D: a plane point is lifted to the ground, `(x, y) → (x, 0, −y)`.
    #[must_use]
    pub fn space(self) -> Vec3 {
        match self {
            PathPoint::Plane(p) => steerkit::math::ground::to_3d(p.into(), 0.0),
            PathPoint::Space(p) => p.into(),
        }
    }

    /// The components (2 or 3).
    #[must_use]
    pub fn components(&self) -> &[f32] {
        match self {
            PathPoint::Plane(p) => p,
            PathPoint::Space(p) => p,
        }
    }
}

impl From<Vec2> for PathPoint {
    fn from(p: Vec2) -> Self {
        PathPoint::Plane(p.into())
    }
}

impl From<Vec3> for PathPoint {
    fn from(p: Vec3) -> Self {
        PathPoint::Space(p.into())
    }
}

impl From<PathPoint> for Vec2 {
    /// [`PathPoint::plane`].
    fn from(p: PathPoint) -> Self {
        p.plane()
    }
}

impl Serialize for PathPoint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PathPoint::Plane(p) => p.serialize(s),
            PathPoint::Space(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PathPoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v: Vec<f32> = Vec::deserialize(d)?;
        match v[..] {
            [x, y] => Ok(PathPoint::Plane([x, y])),
            [x, y, z] => Ok(PathPoint::Space([x, y, z])),
            _ => Err(serde::de::Error::custom(format!(
                "a path point has 2 or 3 components, not {}",
                v.len()
            ))),
        }
    }
}

/// A path drawn as a polyline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathShape {
    /// Name (shown in the player).
    pub name: String,
    /// Waypoints (m): 2 components each in a 2D recording, 3 in a 3D one.
    pub points: Vec<PathPoint>,
    /// Whether the last point joins the first.
    pub looping: bool,
}

impl PathShape {
    /// A 2D polyline path.
    #[must_use]
    pub fn from_polyline(name: impl Into<String>, path: &Polyline<Vec2>) -> Self {
        PathShape {
            name: name.into(),
            points: path.points().iter().map(|&p| p.into()).collect(),
            looping: steerkit::path::Path::is_looping(path),
        }
    }

    /// A 3D polyline path; its points keep their three components (the top view draws them
    /// at `(x, −z)`).
    #[must_use]
    pub fn from_polyline3(name: impl Into<String>, path: &Polyline<Vec3>) -> Self {
        PathShape {
            name: name.into(),
            points: path.points().iter().map(|&p| p.into()).collect(),
            looping: steerkit::path::Path::is_looping(path),
        }
    }
}

/// An axis-aligned box in 3D (m): the world volume or a solid box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cuboid {
    /// Lower corner (m).
    pub min: [f32; 3],
    /// Upper corner (m).
    pub max: [f32; 3],
}

impl From<Aabb<Vec3>> for Cuboid {
    fn from(b: Aabb<Vec3>) -> Self {
        Cuboid { min: b.min.into(), max: b.max.into() }
    }
}

/// A solid ball.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereShape {
    /// Centre (m).
    pub center: [f32; 3],
    /// Radius (m).
    pub radius: f32,
}

impl From<Sphere> for SphereShape {
    fn from(s: Sphere) -> Self {
        SphereShape { center: s.center.into(), radius: s.radius }
    }
}

/// The static world: 2D shapes in the drawing plane (the ground plane `(x, −z)` of a 3D run),
/// and, in 3D recordings only, the volume, spheres and cuboids in 3D.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct World {
    /// The world's extent, if bounded or wrapping.
    #[serde(default)]
    pub bounds: Option<Rect>,
    /// Whether agents wrap around at the bounds (the player breaks trails at the seam).
    #[serde(default)]
    pub wrap: bool,
    /// Disc obstacles.
    #[serde(default)]
    pub circles: Vec<CircleShape>,
    /// Polygon obstacles.
    #[serde(default)]
    pub polygons: Vec<PolygonShape>,
    /// Box obstacles.
    #[serde(default)]
    pub boxes: Vec<Rect>,
    /// Wall segments.
    #[serde(default)]
    pub walls: Vec<WallShape>,
    /// Paths.
    #[serde(default)]
    pub paths: Vec<PathShape>,
    /// The 3D world box, if any (3D recordings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<Cuboid>,
    /// Ball obstacles (3D recordings only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spheres: Vec<SphereShape>,
    /// Box obstacles in 3D (3D recordings only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cuboids: Vec<Cuboid>,
    /// Turrets of a 3D world.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turrets: Vec<TurretShape>,
    /// Waypoints to visit (a PTSP race), drawn as rings filled once visited.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waypoints: Vec<WaypointShape>,
    /// The navigation mesh's convex polygons (2D runs whose agents navigate; the mesh of the
    /// first navigating group's radius), drawn under the player's "Navigation mesh" toggle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub navmesh: Vec<PolygonShape>,
}

/// A waypoint of a race: where, how near counts as a visit, and the step it was visited at.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaypointShape {
    /// Centre (m, or px in a PTSP race).
    pub center: [f32; 2],
    /// Visit radius.
    pub radius: f32,
    /// The step it was visited at (`null` if never).
    #[serde(default)]
    pub visited: Option<u32>,
}

impl World {
    /// A world with these bounds (`wrap`: toroidal).
    #[must_use]
    pub fn bounded(min: Vec2, max: Vec2, wrap: bool) -> Self {
        World { bounds: Some(Rect { min: min.into(), max: max.into() }), wrap, ..World::default() }
    }

    /// Adds a library obstacle, each kind to its list.
    pub fn add_obstacle(&mut self, obstacle: &Obstacle) {
        match obstacle {
            Obstacle::Circle(Circle { center, radius }) => {
                self.circles.push(CircleShape { center: (*center).into(), radius: *radius });
            }
            Obstacle::Wall(Segment { a, b }) => {
                self.walls.push(WallShape { a: (*a).into(), b: (*b).into() });
            }
            Obstacle::Polygon(p) => self.add_polygon(p),
            Obstacle::Box(b) => self.boxes.push((*b).into()),
        }
    }

    /// Adds a convex polygon obstacle.
    pub fn add_polygon(&mut self, polygon: &Polygon) {
        self.polygons
            .push(PolygonShape { points: polygon.points().iter().map(|&p| p.into()).collect() });
    }

    /// Adds a path.
    pub fn add_path(&mut self, path: PathShape) {
        self.paths.push(path);
    }

    /// Sets the 3D world box (3D recordings; the 3D view draws its edges and its floor).
    pub fn set_volume(&mut self, min: Vec3, max: Vec3) {
        self.volume = Some(Cuboid { min: min.into(), max: max.into() });
    }

    /// The same world with a 3D world box (see [`set_volume`](Self::set_volume)).
    #[must_use]
    pub fn with_volume(mut self, min: Vec3, max: Vec3) -> Self {
        self.set_volume(min, max);
        self
    }

    /// Adds a ball obstacle (3D recordings).
    pub fn add_sphere(&mut self, center: Vec3, radius: f32) {
        self.spheres.push(SphereShape { center: center.into(), radius });
    }

    /// Adds a solid axis-aligned box (3D recordings).
    pub fn add_cuboid(&mut self, min: Vec3, max: Vec3) {
        self.cuboids.push(Cuboid { min: min.into(), max: max.into() });
    }

    /// True when the world has 3D shapes (a volume, spheres, cuboids or 3D path points).
    #[must_use]
    pub fn has_3d_shapes(&self) -> bool {
        self.volume.is_some()
            || !self.spheres.is_empty()
            || !self.cuboids.is_empty()
            || self.paths.iter().flat_map(|p| &p.points).any(|q| matches!(q, PathPoint::Space(_)))
    }

    /// Checks the 3D shapes: only in 3D recordings (`dims = 3`), finite, radii positive,
    /// `min ≤ max`.
    pub(super) fn validate(&self, dims: usize) -> Result<(), RecordingError> {
        if dims != 3 {
            let named = [
                ("world.volume", self.volume.is_some()),
                ("world.spheres", !self.spheres.is_empty()),
                ("world.cuboids", !self.cuboids.is_empty()),
            ];
            for (field, set) in named {
                if set {
                    return Err(invalid(
                        field,
                        "3D shapes belong to 3D recordings (meta.dims = 3)",
                    ));
                }
            }
        }
        let finite = |field: &str, v: &[f32]| {
            if v.iter().all(|x| x.is_finite()) {
                Ok(())
            } else {
                Err(invalid(field, format!("{v:?} must be finite")))
            }
        };
        let ordered = |field: &str, b: &Cuboid| {
            finite(&format!("{field}.min"), &b.min)?;
            finite(&format!("{field}.max"), &b.max)?;
            if b.min.iter().zip(&b.max).all(|(lo, hi)| lo <= hi) {
                Ok(())
            } else {
                Err(invalid(field, format!("min {:?} must be ≤ max {:?}", b.min, b.max)))
            }
        };
        if let Some(v) = &self.volume {
            ordered("world.volume", v)?;
        }
        for (i, p) in self.navmesh.iter().enumerate() {
            finite(&format!("world.navmesh[{i}]"), p.points.as_flattened())?;
        }
        for (i, sphere) in self.spheres.iter().enumerate() {
            finite(&format!("world.spheres[{i}].center"), &sphere.center)?;
            if !(sphere.radius.is_finite() && sphere.radius > 0.0) {
                return Err(invalid(
                    format!("world.spheres[{i}].radius"),
                    format!("{} must be finite and positive", sphere.radius),
                ));
            }
        }
        for (i, c) in self.cuboids.iter().enumerate() {
            ordered(&format!("world.cuboids[{i}]"), c)?;
        }
        for (i, w) in self.waypoints.iter().enumerate() {
            finite(&format!("world.waypoints[{i}].center"), &w.center)?;
            if !(w.radius.is_finite() && w.radius > 0.0) {
                return Err(invalid(
                    format!("world.waypoints[{i}].radius"),
                    format!("{} must be finite and positive", w.radius),
                ));
            }
        }
        for (i, p) in self.paths.iter().enumerate() {
            for (j, q) in p.points.iter().enumerate() {
                if let PathPoint::Space(v) = q {
                    let field = format!("world.paths[{i}].points[{j}]");
                    if dims != 3 {
                        return Err(invalid(field, "has 3 components in a 2D recording"));
                    }
                    finite(&field, v)?;
                }
            }
        }
        Ok(())
    }
}
