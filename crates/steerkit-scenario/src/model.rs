//! The checked scenario: library values built by the library's validating constructors, with
//! references (paths, agents) resolved to indices.

use steerkit::crowd::{Recipe, Target};
use steerkit::formation::ScalablePattern;
use steerkit::geometry::{Obstacle, Segment};
use steerkit::kinematic::{Integration, Limits};
use steerkit::math::Vector;
use steerkit::path::Polyline;
use steerkit::{Vec2, Vec3};

/// The shape of the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds<V = Vec2> {
    /// No bounds (no `min`/`max` in `[world]`).
    Unbounded,
    /// A box whose faces stop agents (m).
    Bounded {
        /// Lower corner (m).
        min: V,
        /// Upper corner (m).
        max: V,
    },
    /// A wrap-around box (torus), `wrap = true` (m).
    Wrapping {
        /// Lower corner (m).
        min: V,
        /// Upper corner (m), exclusive.
        max: V,
    },
}

impl<V: Vector> Bounds<V> {
    /// The box, when there is one.
    #[must_use]
    pub fn corners(&self) -> Option<(V, V)> {
        match *self {
            Bounds::Unbounded => None,
            Bounds::Bounded { min, max } | Bounds::Wrapping { min, max } => Some((min, max)),
        }
    }

    /// True when `p` is inside the world: always when unbounded; boundary included for a
    /// bounded box; for a wrap-around box the upper faces are outside (they are the lower ones).
    #[must_use]
    pub fn contains(&self, p: V) -> bool {
        let axes = 0..V::DIM;
        match *self {
            Bounds::Unbounded => true,
            Bounds::Bounded { min, max } => {
                axes.into_iter().all(|i| p[i] >= min[i] && p[i] <= max[i])
            }
            Bounds::Wrapping { min, max } => {
                axes.into_iter().all(|i| p[i] >= min[i] && p[i] < max[i])
            }
        }
    }
}

/// A checked world in the scenario's space: `Plan<Vec2>` for a 2D file (`dimensions = 2`,
/// the default), `Plan<Vec3>` for a 3D one (`dimensions = 3`, y up).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan<V: Vector = Vec2> {
    /// The world's shape.
    pub bounds: Bounds<V>,
    /// Obstacles and walls (2D only: empty in a 3D scenario).
    pub geometry: Geometry,
    /// The named paths, in file order.
    pub paths: Vec<NamedPath<V>>,
    /// The groups, in file order, every agent placed.
    pub groups: Vec<GroupPlan<V>>,
    /// The formations, in file order (2D only).
    pub formations: Vec<FormationPlan>,
    /// The turrets, in file order (3D only).
    pub turrets: Vec<TurretPlan>,
    /// The side view's gravity and platforms, if the world is seen from the side (2D).
    pub side_view: Option<SideView>,
    /// The navigation mesh's level and settings, when a group navigates (2D).
    pub navigation: Option<NavigationPlan>,
}

/// Navigation across the level ([`steerkit_nav`]): the level the meshes are built from (the
/// outline, the obstacles and walls), the settings, and the groups whose agents navigate.
#[derive(Clone, Debug, PartialEq)]
pub struct NavigationPlan {
    /// The walkable outline and the solid obstacles (walls as thin rectangles).
    pub level: steerkit_nav::Level,
    /// How routes are planned and followed.
    pub settings: steerkit_nav::NavSettings,
    /// The groups (file order) with a `navigate` leaf.
    pub groups: Vec<usize>,
}

/// A 2D world seen from the side: x right, y up, gravity pulling down, platforms to run on
/// (Millington §3.6).
#[derive(Clone, Debug, PartialEq)]
pub struct SideView {
    /// Gravity (m/s², down).
    pub gravity: f32,
    /// Level gaps at most this wide (m) are hole fillers: crossed at full speed with a jump at
    /// the lip; wider or uneven gaps get a planned jump point.
    pub hole_width: f32,
    /// Platform tops `(x_start, x_end, y)` (m), left to right, not overlapping.
    pub platforms: Vec<(f32, f32, f32)>,
}

/// A side-view group's jumping: its agents run along the platforms (at most `max_speed`,
/// accelerating at most `max_acceleration`) toward the course's right end and jump the gaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JumpPlan {
    /// Vertical take-off speed (m/s).
    pub jump_speed: f32,
}

/// How a turret's projectiles fly: the forward model ([`steerkit::predict::ForwardModel`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drag {
    /// Gravity only.
    None,
    /// Linear drag `−k·v` (k in 1/s), in closed form.
    Linear {
        /// Coefficient (1/s).
        k: f32,
    },
    /// `−(k + c·|v − w|)·(v − w)` (k in 1/s, c in 1/m) in a steady wind `w` (m/s), integrated.
    Quadratic {
        /// Linear coefficient (1/s).
        k: f32,
        /// Quadratic coefficient (1/m).
        c: f32,
        /// Wind (m/s).
        wind: Vec3,
    },
}

/// How a turret aims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aim {
    /// At the target's position when firing.
    Direct,
    /// At where the target will be when the shot arrives (the target's velocity held).
    Lead,
}

/// How a turret computes its firing direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// The drag-free firing solution (Millington §3.5.3), whatever the projectile's drag.
    ClosedForm,
    /// Iterative targeting with the projectile's own forward model (§3.5.5; low arc).
    Iterative,
}

/// A turret of a 3D scenario: what it fires at and how.
#[derive(Clone, Debug, PartialEq)]
pub struct TurretPlan {
    /// Name (replay, metrics).
    pub name: String,
    /// Display colour, if given.
    pub colour: Option<String>,
    /// Muzzle position (m).
    pub position: Vec3,
    /// The agent it aims at.
    pub target: AgentRef,
    /// Muzzle speed (m/s).
    pub muzzle_speed: f32,
    /// Gravity (m/s², pointing down −y).
    pub gravity: Vec3,
    /// The projectile's forward model.
    pub drag: Drag,
    /// Direct or leading.
    pub aim: Aim,
    /// Closed form or iterative.
    pub solver: Solver,
    /// Low or high arc (closed form only).
    pub arc: steerkit::predict::BallisticArc,
    /// Seconds between shots.
    pub interval: f32,
    /// Time of the first shot (s).
    pub first_shot: f32,
    /// A shell hits an agent whose centre it passes within this plus the body radius (m).
    pub hit_radius: f32,
    /// Grenades: the fuse (s after firing; `None`: goes off on landing) and the blast radius (m).
    /// `None` for shells.
    pub grenade: Option<(Option<f32>, f32)>,
}

/// A named path.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedPath<V: Vector = Vec2> {
    /// Its name in the file.
    pub name: String,
    /// The validated polyline.
    pub polyline: Polyline<V>,
}

/// Another group's agent, by group index and index within that group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AgentRef {
    /// Index into [`Scenario::groups`](crate::Scenario::groups).
    pub group: usize,
    /// Index into that group's agents.
    pub index: usize,
}

/// Where a seek, flee or arrive points: `target = [x, y]` ([`Target::Point`]),
/// `use_goal = true` ([`Target::Goal`]) or `agent = "group:index"` ([`Target::Agent`]).
pub type TargetRef<V = Vec2> = Target<V, AgentRef>;

/// A checked behaviour tree (the file's `behaviour` node): the crowd engine's own [`Recipe`]
/// with agents named by [`AgentRef`] and paths by their index into
/// [`Scenario::paths`](crate::Scenario::paths), mapped onto the built crowd with
/// [`Recipe::map_refs`]. A file never holds [`Recipe::Custom`].
pub type Behaviour<V = Vec2> = Recipe<V, AgentRef, usize>;

/// A behaviour as read from a file, in 3D (`z = 0` in a 2D file) whatever the scenario's
/// dimensions; [`Dim::from_file`](crate::Dim::from_file) carries it into the scenario's space.
pub(crate) type FileBehaviour = Behaviour<steerkit::Vec3>;

/// A checked formation: a group's agents in a pattern, the anchor steered by a behaviour.
#[derive(Clone, Debug, PartialEq)]
pub struct FormationPlan {
    /// Index into [`Scenario::groups`](crate::Scenario::groups): every agent of it is a member.
    pub group: usize,
    /// The slot pattern.
    pub pattern: ScalablePattern,
    /// The anchor's start (m) and orientation (rad).
    pub anchor_position: Vec2,
    /// The anchor's start orientation (rad).
    pub anchor_orientation: f32,
    /// The anchor's limits.
    pub anchor_limits: Limits,
    /// What steers the anchor (seen as an agent of radius 0 without neighbours).
    pub anchor: Behaviour,
}

/// How an agent starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement<V: Vector = Vec2> {
    /// Position (m).
    pub position: V,
    /// Velocity (m/s).
    pub velocity: V,
    /// Orientation (rad in 2D, a unit quaternion in 3D).
    pub orientation: V::Orientation,
    /// Goal (m), if any.
    pub goal: Option<V>,
}

/// A checked group.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPlan<V: Vector = Vec2> {
    /// Name (unique in the scenario).
    pub name: String,
    /// Display colour (`#rrggbb`), if given.
    pub colour: Option<String>,
    /// Body radius (m).
    pub radius: f32,
    /// Limits.
    pub limits: Limits,
    /// Every agent's start, in order (index `i` is `"name:i"`).
    pub agents: Vec<Placement<V>>,
    /// The behaviour.
    pub behaviour: Behaviour<V>,
    /// Distance (m) to its goal at which an agent counts as arrived.
    pub arrive_radius: f32,
    /// Arrived agents leave the crowd (`on_arrival = "remove"`).
    pub remove_on_arrival: bool,
    /// Buckland's non-penetration constraint.
    pub non_penetration: bool,
    /// Field of view (half angle, rad) of the neighbour query; `None` sees all round.
    pub view_half_angle: Option<f32>,
    /// Orientation follows the direction of motion.
    pub face_motion: bool,
    /// Heading smoothing window (steps; 0 or 1 is off), for rendering.
    pub heading_smoothing: u32,
    /// Integration scheme and drag.
    pub integration: Integration,
    /// Faked rotation axes (3D only).
    pub fake_rotation: Option<steerkit::three_d::FakeRotation>,
    /// The vehicle the agents are driven through, if any (2D).
    pub vehicle: Option<VehiclePlan>,
    /// Side-view jumpers: the runner moves them (their behaviour is inert), if any.
    pub jump: Option<JumpPlan>,
    /// A topological neighbourhood: the group sums see only this many nearest neighbours.
    pub nearest_neighbours: Option<u32>,
    /// Reciprocal collision avoidance (2D).
    pub orca: Option<steerkit::steering::Orca>,
}

/// A group's vehicle: the motor the crowd drives it through and the body a replay draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VehiclePlan {
    /// The model and its drive method.
    pub motor: steerkit::motor::Motor,
    /// Body length (m) along the heading, for drawing.
    pub length: f32,
    /// Body width (m), for drawing.
    pub width: f32,
}

/// A metric the run collects (see `docs/scenario-format.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Metric {
    /// Agent–agent overlap events deeper than the overlap tolerance.
    AgentOverlaps,
    /// Agents touching or entering solid obstacles.
    ObstaclePenetrations,
    /// Refused wall crossings.
    WallCrossings,
    /// The smallest gap between two agents' bodies (m).
    MinSeparation,
    /// Per-group arrivals and mean arrival time.
    Arrivals,
    /// Agents that reached the end of an open path.
    PathsCompleted,
    /// Agents frozen for a non-finite state.
    Quarantined,
    /// Agents that made no progress for the stuck time.
    Stuck,
    /// How far path followers stray from their path (m), per group.
    PathDeviation,
    /// Lap times and overtakes of the followers of looping paths, per group.
    Laps,
}

impl Metric {
    /// Every metric, with its name in files.
    pub const ALL: [(&'static str, Metric); 10] = [
        ("agent_overlaps", Metric::AgentOverlaps),
        ("obstacle_penetrations", Metric::ObstaclePenetrations),
        ("wall_crossings", Metric::WallCrossings),
        ("min_separation", Metric::MinSeparation),
        ("arrivals", Metric::Arrivals),
        ("paths_completed", Metric::PathsCompleted),
        ("quarantined", Metric::Quarantined),
        ("stuck", Metric::Stuck),
        ("path_deviation", Metric::PathDeviation),
        ("laps", Metric::Laps),
    ];

    /// The metric's name in files.
    #[must_use]
    pub fn name(self) -> &'static str {
        Metric::ALL.iter().find(|(_, m)| *m == self).map_or("", |(n, _)| n)
    }
}

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsPlan {
    /// The metrics to collect (all of them by default).
    pub collect: Vec<Metric>,
    /// Overlap depth (m) below which two touching agents do not count as overlapping.
    pub overlap_tolerance: f32,
    /// Seconds without progress before an agent counts as stuck.
    pub stuck_time: f32,
    /// Speed (m/s) below which an agent makes no progress.
    pub stuck_speed: f32,
}

impl MetricsPlan {
    /// True when `m` is collected.
    #[must_use]
    pub fn collects(&self, m: Metric) -> bool {
        self.collect.contains(&m)
    }
}

/// The static geometry: solid obstacles and walls, in file order (obstacles first).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Geometry {
    /// Circles, boxes and convex polygons (2D).
    pub obstacles: Vec<Obstacle>,
    /// Wall segments (2D).
    pub walls: Vec<Segment>,
    /// Spheres and boxes (3D).
    pub obstacles3: Vec<steerkit::geometry::Obstacle3>,
}
