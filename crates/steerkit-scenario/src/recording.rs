//! A recording of a run: what the replay player and the snapshot draw. `steerkit run`
//! (`steerkit-cli`, which re-exports this module as `steerkit_cli::recording`) writes it, and
//! the live playground (`steerkit-serve`) sends its world and frames in the same shape; a built
//! world's part is [`Dim::recording_world`](crate::Dim::recording_world).
//!
//! A [`Recorder`] collects frames while a simulation runs and [`Recorder::finish`] returns a
//! [`Recording`], which serialises to JSON ([`Recording::to_json`]) and back
//! ([`Recording::from_json`], which also [validates](Recording::validate) it).
//!
//! # Schema (format `"steerkit-replay"`, version 1)
//!
//! Units are SI (m, s, rad). 2D runs use the x–y plane, angles counter-clockwise from +x. In a 3D
//! run (`meta.dims = 3`; y up, right-handed, a character looks down its local +x axis with local
//! +y up and local +z to its right) every *agent* point and vector has three components, headings
//! are ground headings (`steerkit::math::ground::quat_to_heading`), and each frame may also give
//! every body's full orientation (`attitude`). The player draws 3D runs in perspective, or as the
//! ground plane seen from above, `(x, z) → (x, −z)`. The 2D shapes of the `world` section
//! (`bounds`, `circles`, `polygons`, `boxes`, `walls`) are always in that ground plane; `volume`,
//! `spheres` and `cuboids` are 3D (only in 3D recordings) and path points in a 3D recording have
//! three components, `[x, y, z]` (older 3D recordings hold `[x, −z]` ground points; they still
//! read).
//!
//! ```text
//! {
//!   "format": "steerkit-replay", "version": 1,
//!   "meta":   { "scenario", "description", "seed", "dt" (s per step),
//!               "steps" (steps simulated), "every" (a frame is kept every k steps, and the
//!               last), "dims" (2 or 3) },
//!   "world":  { "bounds": {"min":[x,y],"max":[x,y]} | null, "wrap": bool,
//!               "circles": [{"center":[x,y],"radius":r}], "polygons": [{"points":[[x,y],…]}],
//!               "boxes": [{"min":[x,y],"max":[x,y]}], "walls": [{"a":[x,y],"b":[x,y]}],
//!               "paths": [{"name", "points":[[x,y],…] (2D) | [[x,y,z],…] (3D), "looping": bool}],
//!               3D recordings only (each written only when set or not empty):
//!               "volume":  {"min":[x,y,z],"max":[x,y,z]} | null   world box (m), min ≤ max
//!               "spheres": [{"center":[x,y,z],"radius":r}]        solid balls (m), r > 0
//!               "cuboids": [{"min":[x,y,z],"max":[x,y,z]}]        solid boxes (m), min ≤ max
//!               "turrets": [{"name","colour":"#rrggbb","position":[x,y,z]}]  guns (m),
//!               "waypoints": [{"center":[x,y],"radius":r,"visited":step|null}]  a race's
//!                            waypoints (PTSP: px), each filled from the step it was visited },
//!   "groups": [{ "name", "colour": "#rrggbb", "radius" (m),
//!                "vehicle": {"model": "car" | "motorbike" | "tank" | "human" | "discrete_car" | "ship",
//!                            "length", "width" (m, the body drawn), "wheelbase" (m, cars and
//!                            motorbikes: front axle ahead of the reference point),
//!                            "max_steer" (rad), "track_width" (m, tanks)}  (optional) }],
//!   "agent_groups": [g₀, g₁, …]          (group index of each agent; n = its length)
//!   "frames": [{
//!       "step": s                          (time = s · dt; frame steps strictly increase)
//!       "position":    [x₀,y₀, x₁,y₁, …]   (dims values per agent, m)
//!       "velocity":    [vx₀,vy₀, …]        (dims values per agent, m/s)
//!       "orientation": [θ₀, θ₁, …]         (one heading per agent, rad)
//!       "attitude":    [qx₀,qy₀,qz₀,qw₀, …] (3D frames only, optional: 4 values per agent, the
//!                                          body's unit orientation quaternion, dimensionless;
//!                                          `q * v` turns body axes into world axes; null for
//!                                          an agent gone; absent in 2D frames)
//!       "overlays": {                      (optional; each layer optional; `agent` lists the
//!                                          agents it has an entry for, repeats allowed)
//!         "steering": {"agent":[…], "vector":[…]}        acceleration asked for (m/s²), dims each
//!         "target":   {"agent":[…], "point":[…]}         current target point, dims each
//!         "wander":   {"agent":[…], "center":[…], "radius":[…], "target":[…]}
//!         "rays":     {"agent":[…], "from":[…], "to":[…], "hit":[…]}
//!                     feelers: segments from → to (dims each); hit = fraction t ∈ [0, 1] of
//!                     the first hit along the segment (hit point = from + t·(to − from)), −1 none
//!         "boxes":    {"agent":[…], "corners":[…]}       detection box, 4 corners × dims each
//!         "neighbour_radius": {"agent":[…], "radius":[…]}
//!         "slots":    {"agent":[…], "point":[…]}         formation slot assigned, dims each
//!         "controls": {"agent":[…], "value":[…]}         a vehicle's controls this step, 3 each
//!                     in [−1, 1]: car/motorbike (throttle, steer, 0), tank (left, right, 0),
//!                     human (forward, strafe, turn), discrete_car (pedal, turn, 0),
//!                     ship (thrust 0 or 1, turn −1/0/+1, 0)
//!       } }],
//!   "events":  [{"step", "kind", "agent": i | null}],  "events_dropped": k,
//!   "shots":   [{ "turret" (index into world.turrets), "step" (fired), "end" (step it ended),
//!                 "target" (agent aimed at), "arc": "low" | "high",
//!                 "predicted": [[x,y,z],…] (the flight the aim assumed, m),
//!                 "path": [[step,x,y,z],…] (the actual flight, sampled),
//!                 "outcome": "hit" | "miss" | "blast", "impact": [x,y,z],
//!                 "hit": agent | null, "blast_radius": m | null }]
//!              (3D recordings with turrets only; "shots_dropped": k beyond the cap),
//!   "metrics": [{"name", "unit", "values": [one per frame]}]
//! }
//! ```
//!
//! Agent data (positions, velocities, headings, attitudes and overlays) is stored as `f32` in flat
//! arrays and written rounded to 3 decimals (mm, mm/s, mrad; a quaternion component to 0.001,
//! about a milliradian, so a reader renormalises it): about 33 bytes per agent per frame of 2D
//! JSON. A non-finite value (an agent that left the simulation) is written as `null` and read
//! back as NaN; the player skips it. Metric values keep full `f32` precision. Keeping one frame in
//! `every` steps, recording overlays only for chosen agents ([`OverlayCapture`]) and capping the
//! events ([`RecordOptions::max_events`]) keep long crowd runs small.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use steerkit::geometry::{Aabb, Circle, Obstacle, Polygon, Segment, Sphere};
use steerkit::kinematic::{Kinematic, Kinematic3};
use steerkit::math::Vector;
use steerkit::path::Polyline;
use steerkit::{Quat, Vec2, Vec3};

/// The `format` string of a recording.
pub const FORMAT: &str = "steerkit-replay";
/// The schema version written by this crate.
pub const VERSION: u32 = 1;

/// What went wrong building, recording or reading a recording.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordingError {
    /// A value is out of its allowed range (the field is named).
    #[error("{field}: {reason}")]
    Invalid {
        /// The field (a dotted path for nested data, e.g. `frames[3].position`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The JSON could not be read.
    #[error("recording JSON: {0}")]
    Json(String),
}

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> RecordingError {
    RecordingError::Invalid { field: field.into(), reason: reason.into() }
}

/// Appends a point's or vector's components to `out` (2 or 3 values, as the recording's
/// `dims`).
#[inline]
fn push<V: Vector>(v: V, out: &mut Vec<f32>) {
    for i in 0..V::DIM {
        out.push(v[i]);
    }
}

/// A whole run: metadata, the static world, agent groups, frames, events and metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// Always [`FORMAT`].
    pub format: String,
    /// Schema version ([`VERSION`]).
    pub version: u32,
    /// What was run.
    pub meta: Meta,
    /// The static world.
    pub world: World,
    /// Agent groups (name, colour, radius).
    pub groups: Vec<Group>,
    /// The group index of each agent; its length is the agent count.
    pub agent_groups: Vec<u32>,
    /// Recorded frames, in increasing step order.
    pub frames: Vec<Frame>,
    /// Discrete events, in the order recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// Events not kept because [`RecordOptions::max_events`] was reached.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub events_dropped: u64,
    /// Metric time series, one value per frame.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSeries>,
    /// Projectiles fired by the world's turrets, in firing order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shots: Vec<Shot>,
    /// Shots not kept beyond [`MAX_SHOTS`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shots_dropped: u64,
}

/// Shots a recording keeps (each holds its predicted and actual flight).
pub const MAX_SHOTS: usize = 4000;

// The turret and shot shapes are written by the turrets' runner, which `steerkit serve` runs too:
// they live beside it, in `crate::ballistics`.
pub use crate::ballistics::{Shot, TurretShape};

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// What was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Scenario name (shown as the title).
    pub scenario: String,
    /// One paragraph: what to watch for.
    #[serde(default)]
    pub description: String,
    /// The run's seed (shown as is; above 2⁵³ a browser displays it rounded).
    pub seed: u64,
    /// Time step (s).
    pub dt: f32,
    /// Steps simulated; the last frame is at this step.
    pub steps: u32,
    /// A frame is kept every `every` steps (and at the last step); ≥ 1.
    pub every: u32,
    /// 2 or 3.
    pub dims: u8,
}

impl Meta {
    /// 2D metadata with one frame kept per step.
    #[must_use]
    pub fn new(scenario: impl Into<String>, seed: u64, dt: f32, steps: u32) -> Self {
        Meta {
            scenario: scenario.into(),
            description: String::new(),
            seed,
            dt,
            steps,
            every: 1,
            dims: 2,
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
}

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
    fn validate(&self, dims: usize) -> Result<(), RecordingError> {
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

/// A group of agents drawn alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Name (legend).
    pub name: String,
    /// `#rrggbb`.
    pub colour: String,
    /// Body radius (m).
    pub radius: f32,
    /// The vehicle the agents are, when they are driven through one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vehicle: Option<VehicleShape>,
}

impl Group {
    /// A group; the colour is checked by [`Recorder::new`].
    #[must_use]
    pub fn new(name: impl Into<String>, colour: impl Into<String>, radius: f32) -> Self {
        Group { name: name.into(), colour: colour.into(), radius, vehicle: None }
    }
}

/// The body a group's vehicle model implies, as the player draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleShape {
    /// `car`, `motorbike`, `tank`, `human` or `discrete_car`.
    pub model: String,
    /// Body length along the heading (m).
    pub length: f32,
    /// Body width (m).
    pub width: f32,
    /// Cars and motorbikes: distance from the reference point (rear axle) to the front axle (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wheelbase: Option<f32>,
    /// Cars and motorbikes: the largest front-wheel angle (rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steer: Option<f32>,
    /// Tanks: distance between the track centre lines (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_width: Option<f32>,
}

/// The colours given to groups in order when a caller has no preference: distinct, readable on
/// white and for the common colour-vision deficiencies (Okabe–Ito, then a few more).
pub const PALETTE: [&str; 10] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c6d31", "#6a3d9a",
    "#b8b000", "#444444",
];

/// One recorded frame: the state of every agent after `step` steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// The step (time = step · dt).
    pub step: u32,
    /// Positions, `dims` values per agent (m).
    #[serde(with = "mm")]
    pub position: Vec<f32>,
    /// Velocities, `dims` values per agent (m/s).
    #[serde(with = "mm")]
    pub velocity: Vec<f32>,
    /// Headings, one per agent (rad).
    #[serde(with = "mm")]
    pub orientation: Vec<f32>,
    /// Body orientations of a 3D frame, 4 values per agent: the unit quaternion `(x, y, z, w)`
    /// (NaN for an agent gone). Empty in 2D frames and when not recorded.
    #[serde(default, with = "mm", skip_serializing_if = "Vec::is_empty")]
    pub attitude: Vec<f32>,
    /// Debug overlays (empty when not captured).
    #[serde(default, skip_serializing_if = "Overlays::is_empty")]
    pub overlays: Overlays,
}

/// A sparse per-agent vector or point layer: entry `k` is agent `agent[k]` with `dims` values at
/// `values[k·dims..]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// `dims` values per entry.
    #[serde(with = "mm")]
    pub point: Vec<f32>,
}

/// Steering vectors: like [`PointLayer`] with the values named `vector`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// `dims` values per entry (m/s²).
    #[serde(with = "mm")]
    pub vector: Vec<f32>,
}

/// Wander circles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WanderLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Circle centres, `dims` each.
    #[serde(with = "mm")]
    pub center: Vec<f32>,
    /// Radii (m), one each.
    #[serde(with = "mm")]
    pub radius: Vec<f32>,
    /// Wander targets on the circle, `dims` each.
    #[serde(with = "mm")]
    pub target: Vec<f32>,
}

/// Feelers / rays with their first hit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RayLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Start points, `dims` each.
    #[serde(with = "mm")]
    pub from: Vec<f32>,
    /// End points, `dims` each.
    #[serde(with = "mm")]
    pub to: Vec<f32>,
    /// Fraction of the segment at the first hit, or −1 when nothing was hit.
    #[serde(with = "mm")]
    pub hit: Vec<f32>,
}

/// Detection boxes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Four corners in order, `dims` values each (4·dims per entry).
    #[serde(with = "mm")]
    pub corners: Vec<f32>,
}

/// Neighbour search radii.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// One value per entry (m).
    #[serde(with = "mm")]
    pub radius: Vec<f32>,
}

/// Vehicle controls, three values per entry in [−1, 1] (see the module's schema).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Three values per entry.
    #[serde(with = "mm")]
    pub value: Vec<f32>,
}

/// The debug overlays of one frame; see the module's schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlays {
    /// Steering (acceleration) vectors.
    #[serde(default, skip_serializing_if = "VectorLayer::is_empty")]
    pub steering: VectorLayer,
    /// Current target points.
    #[serde(default, skip_serializing_if = "PointLayer::is_empty")]
    pub target: PointLayer,
    /// Wander circles.
    #[serde(default, skip_serializing_if = "WanderLayer::is_empty")]
    pub wander: WanderLayer,
    /// Feelers and rays.
    #[serde(default, skip_serializing_if = "RayLayer::is_empty")]
    pub rays: RayLayer,
    /// Detection boxes.
    #[serde(default, skip_serializing_if = "BoxLayer::is_empty")]
    pub boxes: BoxLayer,
    /// Neighbour radii.
    #[serde(default, skip_serializing_if = "ScalarLayer::is_empty")]
    pub neighbour_radius: ScalarLayer,
    /// Formation slot points.
    #[serde(default, skip_serializing_if = "PointLayer::is_empty")]
    pub slots: PointLayer,
    /// Vehicle controls.
    #[serde(default, skip_serializing_if = "ControlLayer::is_empty")]
    pub controls: ControlLayer,
}

macro_rules! layer_is_empty {
    ($($t:ty),*) => {$(
        impl $t {
            /// True when the layer has no entry.
            #[must_use]
            pub fn is_empty(&self) -> bool {
                self.agent.is_empty()
            }
        }
    )*};
}
layer_is_empty!(
    PointLayer,
    VectorLayer,
    WanderLayer,
    RayLayer,
    BoxLayer,
    ScalarLayer,
    ControlLayer
);

impl Overlays {
    /// True when no layer has an entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.steering.is_empty()
            && self.target.is_empty()
            && self.wander.is_empty()
            && self.rays.is_empty()
            && self.boxes.is_empty()
            && self.neighbour_radius.is_empty()
            && self.slots.is_empty()
            && self.controls.is_empty()
    }
}

/// A discrete event (arrival, overlap, quarantine, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The step it happened at.
    pub step: u32,
    /// What happened, e.g. `"arrived"`, `"overlap"`, `"quarantined"`.
    pub kind: String,
    /// The agent concerned, if any.
    #[serde(default)]
    pub agent: Option<u32>,
}

/// A metric over time: one value per frame (`null`/NaN where it was not given).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSeries {
    /// Name.
    pub name: String,
    /// Unit, e.g. `"m"`, `"m/s"`, or empty.
    #[serde(default)]
    pub unit: String,
    /// One value per frame.
    #[serde(with = "full")]
    pub values: Vec<f32>,
}

/// Which agents' debug overlays are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OverlayCapture {
    /// None: overlay calls are ignored.
    Off,
    /// Every agent's.
    #[default]
    All,
    /// Only these agents'.
    Only(Vec<u32>),
}

/// How much a [`Recorder`] keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordOptions {
    /// Keep a frame every `every` steps (and the last); ≥ 1.
    pub every: u32,
    /// Whose overlays to keep.
    pub overlays: OverlayCapture,
    /// Keep at most this many events; later ones are counted in `events_dropped`.
    pub max_events: usize,
}

impl Default for RecordOptions {
    /// Every step, all overlays, up to 100 000 events.
    fn default() -> Self {
        RecordOptions { every: 1, overlays: OverlayCapture::All, max_events: 100_000 }
    }
}

impl RecordOptions {
    /// Options that keep a recording of `agents` × `steps` to about `budget` agent-frames: one
    /// frame in `ceil(agents · (steps + 1) / budget)`, and overlays for all agents only when
    /// there are at most 200 of them (otherwise the first 50).
    #[must_use]
    pub fn for_size(agents: usize, steps: u32, budget: usize) -> Self {
        let every = stride_for(agents, steps, budget);
        let overlays = if agents <= 200 {
            OverlayCapture::All
        } else {
            OverlayCapture::Only((0..50).collect())
        };
        RecordOptions { every, overlays, ..RecordOptions::default() }
    }
}

/// Steps between kept frames so that `agents × kept frames` of a run of `steps` steps (frames
/// `0..=steps`) stays within about `budget`: `ceil(agents · (steps + 1) / budget)`, at least 1.
#[must_use]
pub fn stride_for(agents: usize, steps: u32, budget: usize) -> u32 {
    let total = agents.saturating_mul(steps as usize + 1);
    total.div_ceil(budget.max(1)).clamp(1, u32::MAX as usize) as u32
}

/// Collects a [`Recording`] while a simulation runs.
///
/// ```
/// use steerkit::kinematic::Kinematic;
/// use steerkit::Vec2;
/// use steerkit_scenario::recording::{Group, Meta, RecordOptions, Recorder, World};
/// let meta = Meta::new("demo", 7, 1.0 / 60.0, 2);
/// let groups = vec![Group::new("walkers", "#0072b2", 0.3)];
/// let mut rec =
///     Recorder::<Vec2>::new(meta, World::default(), groups, vec![0; 2], RecordOptions::default())?;
/// let mut agents = [Kinematic::at_rest(Vec2::ZERO, 0.0), Kinematic::at_rest(Vec2::X, 0.0)];
/// for step in 0..=2 {
///     if rec.records(step) {
///         let mut frame = rec.push_kinematics(step, &agents)?;
///         frame.target(0, Vec2::new(5.0, 0.0));
///         frame.metric("mean speed", "m/s", 0.0);
///     }
///     agents[0].position.x += 0.1;
/// }
/// let recording = rec.finish();
/// assert_eq!(recording.frames.len(), 3);
/// # Ok::<(), steerkit_scenario::recording::RecordingError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorder<V: Vector = Vec2> {
    recording: Recording,
    overlay_mask: Vec<bool>,
    max_events: usize,
    _space: core::marker::PhantomData<V>,
}

fn check_colour(field: &str, colour: &str) -> Result<(), RecordingError> {
    let hex = colour.strip_prefix('#').unwrap_or("");
    if (hex.len() == 6 || hex.len() == 3) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(invalid(field, format!("{colour:?} is not a #rrggbb colour")))
    }
}

impl<V: Vector> Recorder<V> {
    /// Starts a recording of `agent_groups.len()` agents; `meta.dims` and `meta.every` are set
    /// from `V` and the options.
    ///
    /// # Errors
    /// If `dt` is not finite and positive, `every` is 0, a group's colour is not `#rrggbb` or its
    /// radius is negative or not finite, or an agent names a group that does not exist.
    pub fn new(
        mut meta: Meta,
        world: World,
        groups: Vec<Group>,
        agent_groups: Vec<u32>,
        options: RecordOptions,
    ) -> Result<Self, RecordingError> {
        if options.every == 0 {
            return Err(invalid("every", "must be at least 1"));
        }
        meta.dims = V::DIM as u8;
        meta.every = options.every;
        let n = agent_groups.len();
        let mut overlay_mask = vec![false; n];
        match &options.overlays {
            OverlayCapture::Off => {}
            OverlayCapture::All => overlay_mask.fill(true),
            OverlayCapture::Only(list) => {
                for &a in list {
                    if let Some(m) = overlay_mask.get_mut(a as usize) {
                        *m = true;
                    }
                }
            }
        }
        let recording = Recording {
            format: FORMAT.to_owned(),
            version: VERSION,
            meta,
            world,
            groups,
            agent_groups,
            frames: Vec::new(),
            events: Vec::new(),
            events_dropped: 0,
            metrics: Vec::new(),
            shots: Vec::new(),
            shots_dropped: 0,
        };
        recording.validate_header()?;
        Ok(Recorder {
            recording,
            overlay_mask,
            max_events: options.max_events,
            _space: Default::default(),
        })
    }

    /// The number of agents.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.recording.agent_groups.len()
    }

    /// True when a frame should be kept at `step`: every `every` steps from 0, and the last.
    #[must_use]
    pub fn records(&self, step: u32) -> bool {
        step % self.recording.meta.every == 0 || step == self.recording.meta.steps
    }

    /// Adds the frame at `step` from `(position, velocity, heading)` per agent, in agent order,
    /// and returns a writer for its overlays and metrics.
    ///
    /// # Errors
    /// If `step` is not after the previous frame's, or the number of agents differs from
    /// [`agent_count`](Self::agent_count).
    pub fn push_frame(
        &mut self,
        step: u32,
        agents: impl IntoIterator<Item = (V, V, f32)>,
    ) -> Result<FrameWriter<'_, V>, RecordingError> {
        if let Some(last) = self.recording.frames.last() {
            if step <= last.step {
                return Err(invalid(
                    "step",
                    format!("{step} is not after the previous frame's step {}", last.step),
                ));
            }
        }
        let n = self.agent_count();
        let d = V::DIM;
        let mut frame = Frame {
            step,
            position: Vec::with_capacity(n * d),
            velocity: Vec::with_capacity(n * d),
            orientation: Vec::with_capacity(n),
            attitude: Vec::new(),
            overlays: Overlays::default(),
        };
        for (p, v, heading) in agents {
            push(p, &mut frame.position);
            push(v, &mut frame.velocity);
            frame.orientation.push(heading);
        }
        if frame.orientation.len() != n {
            return Err(invalid(
                "agents",
                format!(
                    "frame at step {step} has {} agents, expected {n}",
                    frame.orientation.len()
                ),
            ));
        }
        self.recording.frames.push(frame);
        for series in &mut self.recording.metrics {
            series.values.push(f32::NAN);
        }
        Ok(self.writer())
    }

    fn writer(&mut self) -> FrameWriter<'_, V> {
        let Recording { frames, metrics, .. } = &mut self.recording;
        let frame_count = frames.len();
        FrameWriter {
            frame: frames.last_mut().expect("a frame was just pushed"),
            metrics,
            frame_count,
            mask: &self.overlay_mask,
            _space: Default::default(),
        }
    }

    /// Records an event (at any step, recorded or not).
    pub fn event(&mut self, step: u32, kind: impl Into<String>, agent: Option<u32>) {
        if self.recording.events.len() < self.max_events {
            self.recording.events.push(Event { step, kind: kind.into(), agent });
        } else {
            self.recording.events_dropped += 1;
        }
    }

    /// The recording so far.
    #[must_use]
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Adds a wall segment to the world (a side view's platform tops).
    pub fn add_wall(&mut self, a: Vec2, b: Vec2) {
        self.recording.world.walls.push(WallShape { a: a.into(), b: b.into() });
    }

    /// Adds a path to the world (drawn like the scenario's paths).
    pub fn add_path(&mut self, path: PathShape) {
        self.recording.world.add_path(path);
    }

    /// Sets the world's turrets.
    pub fn set_turrets(&mut self, turrets: Vec<TurretShape>) {
        self.recording.world.turrets = turrets;
    }

    /// Keeps a finished shot (up to [`MAX_SHOTS`]; the others are counted in `shots_dropped`).
    pub fn shot(&mut self, shot: Shot) {
        if self.recording.shots.len() < MAX_SHOTS {
            self.recording.shots.push(shot);
        } else {
            self.recording.shots_dropped += 1;
        }
    }

    /// Ends the recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        self.recording
    }
}

impl Recorder<Vec2> {
    /// [`push_frame`](Self::push_frame) from 2D kinematics.
    ///
    /// # Errors
    /// As [`push_frame`](Self::push_frame).
    pub fn push_kinematics(
        &mut self,
        step: u32,
        agents: &[Kinematic],
    ) -> Result<FrameWriter<'_, Vec2>, RecordingError> {
        self.push_frame(step, agents.iter().map(|k| (k.position, k.velocity, k.orientation)))
    }
}

impl Recorder<Vec3> {
    /// [`push_frame`](Self::push_frame) from 3D kinematics; headings are ground headings, and
    /// the frame's `attitude` holds each body's orientation quaternion (NaN for an agent whose
    /// position or orientation is not finite: one that left the simulation).
    ///
    /// # Errors
    /// As [`push_frame`](Self::push_frame).
    pub fn push_kinematics3(
        &mut self,
        step: u32,
        agents: &[Kinematic3],
    ) -> Result<FrameWriter<'_, Vec3>, RecordingError> {
        self.push_frame(
            step,
            agents.iter().map(|k| {
                (k.position, k.velocity, steerkit::math::ground::quat_to_heading(k.orientation))
            }),
        )?;
        let frame = self.recording.frames.last_mut().expect("a frame was just pushed");
        frame.attitude.reserve_exact(4 * agents.len());
        for k in agents {
            let q = if k.position.is_finite() && k.orientation.is_finite() {
                k.orientation
            } else {
                Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN)
            };
            frame.attitude.extend_from_slice(&q.to_array());
        }
        Ok(self.writer())
    }
}

/// Adds overlays and metric values to the frame just pushed. Overlays of agents not chosen by
/// [`OverlayCapture`] (or out of range) are ignored.
pub struct FrameWriter<'a, V: Vector> {
    frame: &'a mut Frame,
    metrics: &'a mut Vec<MetricSeries>,
    frame_count: usize,
    mask: &'a [bool],
    _space: core::marker::PhantomData<V>,
}

impl<V: Vector> FrameWriter<'_, V> {
    /// True when the frame keeps `agent`'s overlays (chosen by [`OverlayCapture`]): a caller
    /// can skip computing the others.
    #[inline]
    #[must_use]
    pub fn keeps(&self, agent: u32) -> bool {
        self.mask.get(agent as usize).copied().unwrap_or(false)
    }

    /// The steering (acceleration, m/s²) asked for by `agent`.
    pub fn steering(&mut self, agent: u32, acceleration: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.steering;
            l.agent.push(agent);
            push(acceleration, &mut l.vector);
        }
    }

    /// The point `agent` is heading for (seek/arrive target, path rabbit).
    pub fn target(&mut self, agent: u32, point: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.target;
            l.agent.push(agent);
            push(point, &mut l.point);
        }
    }

    /// A wander circle and its target.
    pub fn wander(&mut self, agent: u32, center: V, radius: f32, target: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.wander;
            l.agent.push(agent);
            push(center, &mut l.center);
            l.radius.push(radius);
            push(target, &mut l.target);
        }
    }

    /// A feeler or ray `from → to`; `hit` is the fraction along it of the first hit, if any.
    pub fn ray(&mut self, agent: u32, from: V, to: V, hit: Option<f32>) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.rays;
            l.agent.push(agent);
            push(from, &mut l.from);
            push(to, &mut l.to);
            l.hit.push(hit.map_or(-1.0, |t| t.clamp(0.0, 1.0)));
        }
    }

    /// A detection box given by its four corners in order.
    pub fn detection_box(&mut self, agent: u32, corners: [V; 4]) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.boxes;
            l.agent.push(agent);
            for c in corners {
                push(c, &mut l.corners);
            }
        }
    }

    /// The radius within which `agent` looks for neighbours.
    pub fn neighbour_radius(&mut self, agent: u32, radius: f32) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.neighbour_radius;
            l.agent.push(agent);
            l.radius.push(radius);
        }
    }

    /// The controls `agent`'s vehicle used this step (three values, see [`ControlLayer`]).
    pub fn controls(&mut self, agent: u32, values: [f32; 3]) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.controls;
            l.agent.push(agent);
            l.value.extend_from_slice(&values);
        }
    }

    /// The formation slot assigned to `agent`.
    pub fn slot(&mut self, agent: u32, point: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.slots;
            l.agent.push(agent);
            push(point, &mut l.point);
        }
    }

    /// This frame's value of a metric; a new series is filled with NaN for earlier frames.
    pub fn metric(&mut self, name: &str, unit: &str, value: f32) {
        let series = match self.metrics.iter().position(|m| m.name == name) {
            Some(i) => &mut self.metrics[i],
            None => {
                self.metrics.push(MetricSeries {
                    name: name.to_owned(),
                    unit: unit.to_owned(),
                    values: vec![f32::NAN; self.frame_count],
                });
                self.metrics.last_mut().expect("just pushed")
            }
        };
        if let Some(last) = series.values.last_mut() {
            *last = value;
        }
    }
}

impl Recording {
    /// The number of agents.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.agent_groups.len()
    }

    /// Values per point (2 or 3).
    #[must_use]
    pub fn dims(&self) -> usize {
        self.meta.dims as usize
    }

    /// The time of a frame (s).
    #[must_use]
    pub fn frame_time(&self, frame: &Frame) -> f32 {
        frame.step as f32 * self.meta.dt
    }

    /// An agent's position in a frame projected on the drawing plane (`(x, −z)` in 3D).
    #[must_use]
    pub fn plane_position(&self, frame: &Frame, agent: usize) -> Vec2 {
        let d = self.dims();
        let p = &frame.position[agent * d..agent * d + d];
        if d == 3 {
            Vec2::new(p[0], -p[2])
        } else {
            Vec2::new(p[0], p[1])
        }
    }

    /// Compact JSON (agent data rounded to 3 decimals).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a recording always serialises")
    }

    /// Reads and [validates](Self::validate) a recording.
    ///
    /// # Errors
    /// Malformed JSON, an unknown field, or an inconsistent recording.
    pub fn from_json(json: &str) -> Result<Self, RecordingError> {
        let r: Recording =
            serde_json::from_str(json).map_err(|e| RecordingError::Json(e.to_string()))?;
        r.validate()?;
        Ok(r)
    }

    fn validate_header(&self) -> Result<(), RecordingError> {
        if self.format != FORMAT {
            return Err(invalid("format", format!("{:?} is not {FORMAT:?}", self.format)));
        }
        if self.version != VERSION {
            return Err(invalid(
                "version",
                format!("{} is not supported (expected {VERSION})", self.version),
            ));
        }
        let m = &self.meta;
        if !(m.dt.is_finite() && m.dt > 0.0) {
            return Err(invalid("meta.dt", format!("{} must be finite and positive", m.dt)));
        }
        if m.every == 0 {
            return Err(invalid("meta.every", "must be at least 1"));
        }
        if m.dims != 2 && m.dims != 3 {
            return Err(invalid("meta.dims", format!("{} must be 2 or 3", m.dims)));
        }
        for (i, g) in self.groups.iter().enumerate() {
            check_colour(&format!("groups[{i}].colour"), &g.colour)?;
            if !(g.radius.is_finite() && g.radius >= 0.0) {
                return Err(invalid(
                    format!("groups[{i}].radius"),
                    format!("{} must be finite and ≥ 0", g.radius),
                ));
            }
        }
        self.world.validate(m.dims as usize)?;
        if let Some(i) = self.agent_groups.iter().position(|&g| g as usize >= self.groups.len()) {
            return Err(invalid(
                format!("agent_groups[{i}]"),
                format!(
                    "group {} does not exist ({} groups)",
                    self.agent_groups[i],
                    self.groups.len()
                ),
            ));
        }
        Ok(())
    }

    /// Checks that every array has the length the schema gives it, steps increase, and agent
    /// indices exist, so a reader can index without checks.
    ///
    /// # Errors
    /// The first inconsistency found, naming the field.
    pub fn validate(&self) -> Result<(), RecordingError> {
        self.validate_header()?;
        let n = self.agent_count();
        let d = self.dims();
        let mut previous: Option<u32> = None;
        for (fi, f) in self.frames.iter().enumerate() {
            let field = |name: &str| format!("frames[{fi}].{name}");
            if previous.is_some_and(|p| f.step <= p) {
                return Err(invalid(field("step"), "steps must increase"));
            }
            previous = Some(f.step);
            let lengths = [
                ("position", f.position.len(), n * d),
                ("velocity", f.velocity.len(), n * d),
                ("orientation", f.orientation.len(), n),
            ];
            for (name, got, want) in lengths {
                if got != want {
                    return Err(invalid(field(name), format!("has {got} values, expected {want}")));
                }
            }
            let attitude = f.attitude.len();
            if d == 2 && attitude != 0 {
                return Err(invalid(
                    field("attitude"),
                    format!("has {attitude} values; 2D frames have no attitude"),
                ));
            }
            if d == 3 && attitude != 0 && attitude != 4 * n {
                return Err(invalid(
                    field("attitude"),
                    format!("has {attitude} values, expected {} (4 per agent) or none", 4 * n),
                ));
            }
            let o = &f.overlays;
            let layers: [Layer<'_>; 8] = [
                ("steering", &o.steering.agent, &[("vector", o.steering.vector.len(), d)]),
                ("target", &o.target.agent, &[("point", o.target.point.len(), d)]),
                (
                    "wander",
                    &o.wander.agent,
                    &[
                        ("center", o.wander.center.len(), d),
                        ("radius", o.wander.radius.len(), 1),
                        ("target", o.wander.target.len(), d),
                    ],
                ),
                (
                    "rays",
                    &o.rays.agent,
                    &[
                        ("from", o.rays.from.len(), d),
                        ("to", o.rays.to.len(), d),
                        ("hit", o.rays.hit.len(), 1),
                    ],
                ),
                ("boxes", &o.boxes.agent, &[("corners", o.boxes.corners.len(), 4 * d)]),
                (
                    "neighbour_radius",
                    &o.neighbour_radius.agent,
                    &[("radius", o.neighbour_radius.radius.len(), 1)],
                ),
                ("slots", &o.slots.agent, &[("point", o.slots.point.len(), d)]),
                ("controls", &o.controls.agent, &[("value", o.controls.value.len(), 3)]),
            ];
            for (layer, agents, arrays) in layers {
                if let Some(&a) = agents.iter().find(|&&a| a as usize >= n) {
                    return Err(invalid(
                        field(&format!("overlays.{layer}.agent")),
                        format!("agent {a} does not exist"),
                    ));
                }
                for &(name, got, stride) in arrays {
                    if got != agents.len() * stride {
                        return Err(invalid(
                            field(&format!("overlays.{layer}.{name}")),
                            format!("has {got} values, expected {}", agents.len() * stride),
                        ));
                    }
                }
            }
        }
        for (i, m) in self.metrics.iter().enumerate() {
            if m.values.len() != self.frames.len() {
                return Err(invalid(
                    format!("metrics[{i}].values"),
                    format!(
                        "has {} values, expected one per frame ({})",
                        m.values.len(),
                        self.frames.len()
                    ),
                ));
            }
        }
        if let Some(i) = self.events.iter().position(|e| e.agent.is_some_and(|a| a as usize >= n)) {
            return Err(invalid(format!("events[{i}].agent"), "agent does not exist"));
        }
        for (i, s) in self.shots.iter().enumerate() {
            if s.turret as usize >= self.world.turrets.len() {
                return Err(invalid(format!("shots[{i}].turret"), "turret does not exist"));
            }
            if s.target as usize >= n || s.hit.is_some_and(|a| a as usize >= n) {
                return Err(invalid(format!("shots[{i}]"), "agent does not exist"));
            }
            if s.end < s.step {
                return Err(invalid(format!("shots[{i}].end"), "ends before it was fired"));
            }
        }
        Ok(())
    }
}

/// A layer's name, its agent list, and its arrays as (name, length, values per entry).
type Layer<'a> = (&'a str, &'a [u32], &'a [(&'a str, usize, usize)]);

/// Rounds to 3 decimals (mm, mm/s, mrad) for writing; computed in f64 so the decimal printed is
/// the shortest that reads back to the nearest `f32`.
#[inline]
fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

fn write_number<S: serde::ser::SerializeSeq>(seq: &mut S, x: f64) -> Result<(), S::Error> {
    if !x.is_finite() {
        seq.serialize_element(&Option::<f64>::None)
    } else if x == x.trunc() && x.abs() < 1e15 {
        // `3` rather than `3.0`
        seq.serialize_element(&(x as i64))
    } else {
        seq.serialize_element(&x)
    }
}

fn read_numbers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
    let raw: Vec<Option<f32>> = Vec::deserialize(d)?;
    Ok(raw.into_iter().map(|v| v.unwrap_or(f32::NAN)).collect())
}

/// `Vec<f32>` rounded to 3 decimals; non-finite values as `null`.
mod mm {
    use super::*;
    use serde::ser::SerializeSeq;

    pub fn serialize<S: Serializer>(values: &[f32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for &v in values {
            write_number(&mut seq, if v.is_finite() { round3(v) } else { f64::NAN })?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        read_numbers(d)
    }
}

/// `Vec<f32>` at full precision; non-finite values as `null`.
mod full {
    use super::*;
    use serde::ser::SerializeSeq;

    pub fn serialize<S: Serializer>(values: &[f32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for &v in values {
            if v.is_finite() {
                seq.serialize_element(&v)?;
            } else {
                seq.serialize_element(&Option::<f32>::None)?;
            }
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        read_numbers(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_agents() -> Recorder<Vec2> {
        let meta = Meta::new("t", 1, 0.1, 10);
        let groups = vec![Group::new("a", "#112233", 0.5), Group::new("b", "#abc", 0.25)];
        Recorder::new(meta, World::default(), groups, vec![0, 1], RecordOptions::default()).unwrap()
    }

    #[test]
    fn values_are_written_to_the_millimetre_and_read_back_within_half_a_millimetre() {
        let mut rec = two_agents();
        let p = [Vec2::new(1.23456, -7.0), Vec2::new(1e-4, 123.4567)];
        rec.push_frame(0, p.iter().map(|&p| (p, Vec2::new(0.5, 2.0), 1.23456))).unwrap();
        let r = rec.finish();
        let json = r.to_json();
        assert!(json.contains("\"position\":[1.235,-7,0,123.457]"), "{json}");
        assert!(json.contains("\"orientation\":[1.235,1.235]"), "{json}");
        let back = Recording::from_json(&json).unwrap();
        for (a, b) in back.frames[0].position.iter().zip(&r.frames[0].position) {
            assert!((a - b).abs() <= 0.0005 + 1e-6, "{a} vs {b}");
        }
        // writing what was read gives the same text
        assert_eq!(back.to_json(), json);
    }

    #[test]
    fn non_finite_values_are_null_and_read_back_as_nan() {
        let mut rec = two_agents();
        let p = [Vec2::new(f32::NAN, 0.0), Vec2::new(1.0, f32::INFINITY)];
        rec.push_frame(0, p.iter().map(|&p| (p, Vec2::ZERO, 0.0))).unwrap();
        let json = rec.finish().to_json();
        assert!(json.contains("\"position\":[null,0,1,null]"), "{json}");
        let back = Recording::from_json(&json).unwrap();
        assert!(back.frames[0].position[0].is_nan() && back.frames[0].position[3].is_nan());
    }

    #[test]
    fn frames_must_advance_and_have_every_agent() {
        let mut rec = two_agents();
        let one = [(Vec2::ZERO, Vec2::ZERO, 0.0)];
        let err = rec.push_frame(0, one).err().unwrap();
        assert_eq!(err, invalid("agents", "frame at step 0 has 1 agents, expected 2"));
        rec.push_frame(3, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
        let err = rec.push_frame(3, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).err().unwrap();
        assert!(matches!(err, RecordingError::Invalid { ref field, .. } if field == "step"));
    }

    #[test]
    fn bad_groups_and_options_are_named() {
        let meta = Meta::new("t", 1, 0.1, 10);
        let bad = |groups: Vec<Group>, agents: Vec<u32>, every: u32| {
            let o = RecordOptions { every, ..RecordOptions::default() };
            match Recorder::<Vec2>::new(meta.clone(), World::default(), groups, agents, o) {
                Err(RecordingError::Invalid { field, .. }) => field,
                other => panic!("expected an error, got {other:?}"),
            }
        };
        assert_eq!(bad(vec![Group::new("a", "red", 1.0)], vec![0], 1), "groups[0].colour");
        assert_eq!(bad(vec![Group::new("a", "#12345g", 1.0)], vec![0], 1), "groups[0].colour");
        assert_eq!(bad(vec![Group::new("a", "#123456", -1.0)], vec![0], 1), "groups[0].radius");
        assert_eq!(bad(vec![Group::new("a", "#123456", 1.0)], vec![0, 1], 1), "agent_groups[1]");
        assert_eq!(bad(vec![], vec![], 0), "every");
    }

    #[test]
    fn every_kth_step_and_the_last_are_recorded() {
        let meta = Meta::new("t", 1, 0.1, 10);
        let o = RecordOptions { every: 4, ..RecordOptions::default() };
        let rec = Recorder::<Vec2>::new(meta, World::default(), vec![], vec![], o).unwrap();
        let kept: Vec<u32> = (0..=10).filter(|&s| rec.records(s)).collect();
        assert_eq!(kept, [0, 4, 8, 10]);
    }

    #[test]
    fn overlays_are_kept_only_for_chosen_agents_and_metrics_align_with_frames() {
        let meta = Meta::new("t", 1, 0.1, 10);
        let groups = vec![Group::new("a", "#112233", 0.5)];
        let o = RecordOptions {
            overlays: OverlayCapture::Only(vec![1, 99]),
            ..RecordOptions::default()
        };
        let mut rec = Recorder::<Vec2>::new(meta, World::default(), groups, vec![0; 3], o).unwrap();
        let agents = [(Vec2::ZERO, Vec2::ZERO, 0.0); 3];
        {
            let mut f = rec.push_frame(0, agents).unwrap();
            f.steering(0, Vec2::X);
            f.steering(1, Vec2::Y);
            f.ray(1, Vec2::ZERO, Vec2::X, Some(1.5));
            f.ray(1, Vec2::ZERO, Vec2::Y, None);
            f.metric("speed", "m/s", 1.0);
        }
        rec.push_frame(1, agents).unwrap().metric("later", "", 2.0);
        rec.event(1, "arrived", Some(2));
        let r = rec.finish();
        let ov = &r.frames[0].overlays;
        assert_eq!(ov.steering.agent, [1]);
        assert_eq!(ov.steering.vector, [0.0, 1.0]);
        assert_eq!(ov.rays.hit, [1.0, -1.0]);
        assert_eq!(r.metrics[0].values[0], 1.0);
        assert!(r.metrics[0].values[1].is_nan());
        assert!(r.metrics[1].values[0].is_nan());
        assert_eq!(r.metrics[1].values[1], 2.0);
        let back = Recording::from_json(&r.to_json()).unwrap();
        assert_eq!(back.frames[0].overlays, r.frames[0].overlays);
        assert_eq!(back.events, r.events);
    }

    #[test]
    fn inconsistent_json_is_rejected_naming_the_field() {
        let mut rec = two_agents();
        rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
        let json = rec.finish().to_json();
        let short = json.replace("\"orientation\":[0,0]", "\"orientation\":[0]");
        match Recording::from_json(&short) {
            Err(RecordingError::Invalid { field, .. }) => {
                assert_eq!(field, "frames[0].orientation")
            }
            other => panic!("{other:?}"),
        }
        let unknown = json.replace("\"wrap\":false", "\"wrap\":false,\"wrapp\":true");
        assert!(
            matches!(Recording::from_json(&unknown), Err(RecordingError::Json(m)) if m.contains("wrapp"))
        );
    }

    /// Three fliers in a 3D world with every 3D shape; the second banks, the third is gone.
    fn fliers() -> Recording {
        let mut world =
            World::default().with_volume(Vec3::new(-10.0, 0.0, -8.0), Vec3::splat(10.0));
        world.add_sphere(Vec3::new(1.0, 4.0, -2.0), 1.5);
        world.add_cuboid(Vec3::new(3.0, 0.0, 3.0), Vec3::new(5.0, 2.5, 4.0));
        let route =
            vec![Vec3::new(0.0, 2.0, 0.0), Vec3::new(6.0, 5.5, -1.0), Vec3::new(2.0, 3.0, 4.0)];
        world.add_path(PathShape::from_polyline3("loop", &Polyline::looping(route).unwrap()));
        let meta = Meta::new("fliers", 1, 0.1, 1);
        let groups = vec![Group::new("birds", "#0072b2", 0.3)];
        let o = RecordOptions::default();
        let mut rec = Recorder::<Vec3>::new(meta, world, groups, vec![0; 3], o).unwrap();
        let bank = Quat::from_rotation_y(0.5) * Quat::from_rotation_x(-0.6);
        let ks = [
            Kinematic3 { position: Vec3::new(1.0, 2.0, 3.0), ..Kinematic3::default() },
            Kinematic3 { orientation: bank, velocity: Vec3::X, ..Kinematic3::default() },
            Kinematic3 { position: Vec3::NAN, ..Kinematic3::default() },
        ];
        rec.push_kinematics3(0, &ks).unwrap().target(1, Vec3::new(0.0, 1.0, -4.0));
        rec.push_kinematics3(1, &ks).unwrap();
        rec.finish()
    }

    #[test]
    fn attitudes_and_3d_shapes_round_trip() {
        let r = fliers();
        let f = &r.frames[0];
        assert_eq!(f.attitude.len(), 12);
        assert_eq!(f.attitude[..4], [0.0, 0.0, 0.0, 1.0]);
        assert!(f.attitude[8..].iter().all(|q| q.is_nan()), "the agent gone has no attitude");
        let json = r.to_json();
        assert!(json.contains("\"attitude\":[0,0,0,1,"), "{json}");
        assert!(json.contains(",null,null,null,null]"), "{json}");
        assert!(
            json.contains("\"volume\":{\"min\":[-10.0,0.0,-8.0],\"max\":[10.0,10.0,10.0]}"),
            "{json}"
        );
        assert!(
            json.contains("\"spheres\":[{\"center\":[1.0,4.0,-2.0],\"radius\":1.5}]"),
            "{json}"
        );
        assert!(
            json.contains("\"cuboids\":[{\"min\":[3.0,0.0,3.0],\"max\":[5.0,2.5,4.0]}]"),
            "{json}"
        );
        assert!(json.contains("\"points\":[[0.0,2.0,0.0],[6.0,5.5,-1.0],[2.0,3.0,4.0]]"), "{json}");
        let back = Recording::from_json(&json).unwrap();
        assert_eq!(back.world, r.world);
        let q = Quat::from_slice(&back.frames[0].attitude[4..8]);
        let want = Quat::from_slice(&f.attitude[4..8]);
        assert!(q.angle_between(want) < 2e-3, "{q} vs {want}");
        assert!((q.length() - 1.0).abs() < 2e-3);
        assert_eq!(back.to_json(), json);
        // the top view and the snapshot see a 3D path point at (x, −z)
        assert_eq!(back.world.paths[0].points[1].plane(), Vec2::new(6.0, 1.0));
        assert_eq!(back.world.paths[0].points[1].space(), Vec3::new(6.0, 5.5, -1.0));
    }

    #[test]
    fn two_d_recordings_are_written_as_before() {
        let mut world = World::bounded(Vec2::ZERO, Vec2::splat(4.0), false);
        let path = Polyline::open(vec![Vec2::new(1.0, 2.0), Vec2::new(3.5, 2.0)]).unwrap();
        world.add_path(PathShape::from_polyline("p", &path));
        let json = serde_json::to_string(&world).unwrap();
        assert_eq!(
            json,
            "{\"bounds\":{\"min\":[0.0,0.0],\"max\":[4.0,4.0]},\"wrap\":false,\"circles\":[],\
             \"polygons\":[],\"boxes\":[],\"walls\":[],\"paths\":[{\"name\":\"p\",\
             \"points\":[[1.0,2.0],[3.5,2.0]],\"looping\":false}]}"
        );
        let mut rec = two_agents();
        rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
        let json = rec.finish().to_json();
        assert!(!json.contains("attitude") && !json.contains("volume"), "{json}");
        assert!(!json.contains("spheres") && !json.contains("cuboids"), "{json}");
    }

    #[test]
    fn recordings_without_the_3d_additions_still_read() {
        let r = fliers();
        let mut old = r.to_json();
        // an older 3D recording: no attitude, no 3D shapes, paths in the ground plane
        while let Some(start) = old.find(",\"attitude\"") {
            let end = start + old[start..].find(']').unwrap() + 1;
            old.replace_range(start..end, "");
        }
        let start = old.find(",\"volume\"").unwrap();
        let end = old.find(",\"groups\"").unwrap() - 1;
        old.replace_range(start..end, "");
        old = old.replace("[[0.0,2.0,0.0],[6.0,5.5,-1.0],[2.0,3.0,4.0]]", "[[0,0],[6,1],[2,-4]]");
        let back = Recording::from_json(&old).unwrap_or_else(|e| panic!("{e}: {old}"));
        assert!(back.frames.iter().all(|f| f.attitude.is_empty()));
        assert!(!back.world.has_3d_shapes());
        assert_eq!(back.world.paths[0].points[1], PathPoint::Plane([6.0, 1.0]));
        assert_eq!(back.world.paths[0].points[1].space(), Vec3::new(6.0, 0.0, -1.0));
    }

    #[test]
    fn bad_attitudes_and_3d_shapes_are_named() {
        let field_of = |r: Recording| match r.validate() {
            Err(RecordingError::Invalid { field, reason }) => {
                assert!(!reason.is_empty());
                field
            }
            other => panic!("expected an error, got {other:?}"),
        };
        let edit = |f: &dyn Fn(&mut Recording)| {
            let mut r = fliers();
            f(&mut r);
            field_of(r)
        };
        assert_eq!(edit(&|r| r.frames[1].attitude.truncate(11)), "frames[1].attitude");
        assert_eq!(edit(&|r| r.world.spheres[0].radius = 0.0), "world.spheres[0].radius");
        assert_eq!(edit(&|r| r.world.spheres[0].radius = f32::NAN), "world.spheres[0].radius");
        assert_eq!(
            edit(&|r| r.world.spheres[0].center[2] = f32::INFINITY),
            "world.spheres[0].center"
        );
        assert_eq!(edit(&|r| r.world.cuboids[0].min[1] = 3.0), "world.cuboids[0]");
        assert_eq!(
            edit(&|r| r.world.volume.as_mut().unwrap().max[0] = f32::NAN),
            "world.volume.max"
        );
        assert_eq!(
            edit(&|r| r.world.paths[0].points[2] = PathPoint::Space([0.0, f32::NAN, 0.0])),
            "world.paths[0].points[2]"
        );
        // a 2D recording has no attitude and no 3D shapes
        let mut rec = two_agents();
        rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
        let flat = rec.finish();
        let edit2 = |f: &dyn Fn(&mut Recording)| {
            let mut r = flat.clone();
            f(&mut r);
            field_of(r)
        };
        assert_eq!(
            edit2(&|r| r.frames[0].attitude = vec![0.0, 0.0, 0.0, 1.0]),
            "frames[0].attitude"
        );
        assert_eq!(edit2(&|r| r.world.add_sphere(Vec3::ZERO, 1.0)), "world.spheres");
        assert_eq!(edit2(&|r| r.world.add_cuboid(Vec3::ZERO, Vec3::ONE)), "world.cuboids");
        assert_eq!(edit2(&|r| r.world.set_volume(Vec3::ZERO, Vec3::ONE)), "world.volume");
        let path3 = PathShape {
            name: "up".into(),
            points: vec![Vec3::ZERO.into(), Vec3::ONE.into()],
            looping: false,
        };
        assert_eq!(edit2(&|r| r.world.add_path(path3.clone())), "world.paths[0].points[0]");
        // a recorder checks the world it is given
        let mut world = World::default();
        world.add_sphere(Vec3::ZERO, -1.0);
        let o = RecordOptions::default();
        let err = Recorder::<Vec3>::new(Meta::new("t", 1, 0.1, 1), world, vec![], vec![], o);
        assert!(
            matches!(err, Err(RecordingError::Invalid { field, .. }) if field == "world.spheres[0].radius")
        );
        // a path point has 2 or 3 components
        let json = fliers().to_json().replace("[6.0,5.5,-1.0]", "[6.0,5.5,-1.0,2.0]");
        match Recording::from_json(&json) {
            Err(RecordingError::Json(m)) => assert!(m.contains("2 or 3 components"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn for_size_keeps_about_the_budget() {
        let o = RecordOptions::for_size(1000, 999, 300_000);
        assert_eq!(o.every, 4);
        assert_eq!(o.overlays, OverlayCapture::Only((0..50).collect()));
        assert_eq!(RecordOptions::for_size(30, 600, 300_000).every, 1);
    }
}
