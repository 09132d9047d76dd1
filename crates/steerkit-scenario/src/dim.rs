//! What differs between a 2D and a 3D scenario: the vector type, the spawn regions' names and
//! measures, headings, the parts of the static world that exist only in 2D so far, the static
//! world a replay draws, and what the one simulation and its front ends need of a space (the
//! 3D world of the turrets, formation slots, a side view's planar crowd, a frame's
//! orientations). The one dimension trait of the scenario layer and of every front end.

use crate::model::{Bounds, FormationPlan, Geometry};
use crate::recording::{self, FrameWriter, PathShape, Recorder, RecordingError};
use crate::World;
use steerkit::crowd::{AgentHandle, Crowd, CrowdError, CrowdVector, FormationId, Recipe};
use steerkit::formation::{FormationManager, Pattern};
use steerkit::geometry::{Circle, Obstacle, Obstacle3, ObstacleSet, ObstacleSet3, Sphere};
use steerkit::kinematic::{Kinematic, Kinematic3};
use steerkit::{ParamError, Quat, Vec2, Vec3};

/// A space a scenario is built in: [`Vec2`] (`dimensions = 2`, the default) or [`Vec3`]
/// (`dimensions = 3`, y up). Sealed: implemented for those two only.
pub trait Dim: CrowdVector + sealed::Sealed {
    /// 2 or 3.
    const DIMS: usize;
    /// The box spawn region's `shape`: `rect` in 2D, `box` in 3D.
    const BOX: &'static str;
    /// The round spawn region's `shape`: `circle` in 2D, `sphere` in 3D.
    const BALL: &'static str;
    /// Area (m²) or volume (m³) of a disc or ball of radius `r` (m).
    fn ball_measure(r: f32) -> f32;
    /// The orientation of a heading (rad, counter-clockwise from +x; in 3D on the ground,
    /// `steerkit::math::ground`) and the unit direction it faces.
    fn heading(angle: f32) -> (Self::Orientation, Self);
    /// A point from exactly [`DIMS`](Self::DIMS) components.
    fn from_components(c: &[f32]) -> Self;
    /// Every component `v`.
    fn splat(v: f32) -> Self;
    /// A behaviour's vector as read from the file (`z = 0` in a 2D file) in this space.
    fn from_file(v: Vec3) -> Self;
    /// The solid obstacles indexed for "is this point inside one?" while spawning.
    type Solids;
    /// The solids of the geometry.
    ///
    /// # Errors
    /// The obstacle set's own error.
    fn solids(geometry: &Geometry) -> Result<Self::Solids, ParamError>;
    /// True when `p` is inside (or on) a solid obstacle: a logarithmic query of the obstacle
    /// tree, so many agents and many obstacles stay cheap.
    fn inside_solid(solids: &Self::Solids, p: Self) -> bool;
    /// Installs the obstacles and walls (2D) or the spheres and boxes (3D).
    ///
    /// # Errors
    /// The obstacle set's own error.
    fn set_geometry(crowd: &mut Crowd<Self>, geometry: &Geometry) -> Result<(), ParamError>;
    /// Adds a formation (2D only: a 3D file has none).
    ///
    /// # Errors
    /// The crowd's error.
    fn add_formation(
        crowd: &mut Crowd<Self>,
        plan: &FormationPlan,
        members: &[AgentHandle],
        anchor: Recipe<Vec2>,
    ) -> Result<FormationId, CrowdError>;
    /// The static world a replay of `world` draws ([`recording::World`]): the bounds (in 3D
    /// also the volume; the 2D bounds are then the ground plane seen from above,
    /// `(x, z) → (x, −z)`), the obstacles and walls (2D) or spheres and cuboids (3D), and the
    /// paths.
    fn recording_world(world: &World<Self>) -> recording::World;

    /// The orientation recorded for an agent no longer in the crowd (NaN).
    const LOST: Self::Orientation;
    /// The components `[x, y, z]`, `z = 0` in 2D.
    fn components(v: Self) -> [f32; 3];
    /// A point as the 3D world of the turrets sees it: `(x, y, 0)` in 2D.
    fn lift(v: Self) -> Vec3;
    /// The inverse of [`Dim::lift`].
    fn lower(v: Vec3) -> Self;
    /// The heading a recording's `orientation` carries (rad; in 3D the yaw on the ground).
    fn heading_of(o: Self::Orientation) -> f32;
    /// The full attitude `(x, y, z, w)` a 3D frame carries; `None` in 2D.
    fn attitude(o: Self::Orientation) -> Option<[f32; 4]>;
    /// Agent `h`'s formation slot, if it has one (formations are 2D).
    fn slot(crowd: &Crowd<Self>, h: AgentHandle) -> Option<Self>;
    /// A formation anchor's position and heading (2D only).
    fn anchor(crowd: &Crowd<Self>, id: FormationId) -> Option<(Vec2, f32)>;
    /// The crowd as a 2D crowd (side views are 2D), `None` in 3D.
    fn planar_crowd(crowd: &mut Crowd<Self>) -> Option<&mut Crowd<Vec2>>;
    /// Pushes a replay frame of every agent's position, velocity and orientation.
    ///
    /// # Errors
    /// As [`Recorder::push_frame`].
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Self>,
        step: u32,
        agents: impl Iterator<Item = (Self, Self, Self::Orientation)>,
    ) -> Result<FrameWriter<'r, Self>, RecordingError>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for steerkit::Vec2 {}
    impl Sealed for steerkit::Vec3 {}
}

impl Dim for Vec2 {
    const DIMS: usize = 2;
    const BOX: &'static str = "rect";
    const BALL: &'static str = "circle";
    fn ball_measure(r: f32) -> f32 {
        core::f32::consts::PI * r * r
    }
    fn heading(angle: f32) -> (f32, Vec2) {
        (angle, Vec2::from_angle(angle))
    }
    fn from_components(c: &[f32]) -> Vec2 {
        Vec2::new(c[0], c[1])
    }
    fn splat(v: f32) -> Vec2 {
        Vec2::splat(v)
    }
    fn from_file(v: Vec3) -> Vec2 {
        v.truncate()
    }
    type Solids = ObstacleSet;
    fn solids(geometry: &Geometry) -> Result<ObstacleSet, ParamError> {
        ObstacleSet::new(geometry.obstacles.iter().cloned())
    }
    fn inside_solid(solids: &ObstacleSet, p: Vec2) -> bool {
        let mut inside = false;
        solids.for_each_overlapping(&Circle::new(p, 0.0), |_, o| {
            inside |= !matches!(o, Obstacle::Wall(_));
        });
        inside
    }
    fn set_geometry(crowd: &mut Crowd<Vec2>, geometry: &Geometry) -> Result<(), ParamError> {
        let solids = geometry.obstacles.iter().cloned();
        let walls = geometry.walls.iter().map(|w| Obstacle::Wall(*w));
        let all: Vec<Obstacle> = solids.chain(walls).collect();
        if !all.is_empty() {
            crowd.set_obstacles(ObstacleSet::new(all)?);
        }
        Ok(())
    }
    fn add_formation(
        crowd: &mut Crowd<Vec2>,
        plan: &FormationPlan,
        members: &[AgentHandle],
        anchor: Recipe<Vec2>,
    ) -> Result<FormationId, CrowdError> {
        let start = Kinematic {
            position: plan.anchor_position,
            orientation: plan.anchor_orientation,
            velocity: Vec2::ZERO,
            rotation: 0.0,
        };
        let manager = FormationManager::new(Pattern::from(plan.pattern), start, plan.anchor_limits);
        crowd.add_formation(manager, members, anchor)
    }
    fn recording_world(world: &World) -> recording::World {
        let mut out = match world.bounds {
            Bounds::Unbounded => recording::World::default(),
            Bounds::Bounded { min, max } => recording::World::bounded(min, max, false),
            Bounds::Wrapping { min, max } => recording::World::bounded(min, max, true),
        };
        for o in &world.geometry.obstacles {
            out.add_obstacle(o);
        }
        for w in &world.geometry.walls {
            out.add_obstacle(&Obstacle::Wall(*w));
        }
        for p in &world.paths {
            out.add_path(PathShape::from_polyline(p.name.clone(), &p.polyline));
        }
        if let Some((_, mesh)) = world.navigation.as_ref().and_then(|n| n.meshes().next()) {
            out.navmesh = mesh
                .polygons()
                .iter()
                .map(|p| recording::PolygonShape {
                    points: p.iter().map(|q| q.to_array()).collect(),
                })
                .collect();
        }
        out
    }
    const LOST: f32 = f32::NAN;
    fn components(v: Vec2) -> [f32; 3] {
        [v.x, v.y, 0.0]
    }
    fn lift(v: Vec2) -> Vec3 {
        v.extend(0.0)
    }
    fn lower(v: Vec3) -> Vec2 {
        v.truncate()
    }
    fn heading_of(o: f32) -> f32 {
        o
    }
    fn attitude(_: f32) -> Option<[f32; 4]> {
        None
    }
    fn slot(crowd: &Crowd<Vec2>, h: AgentHandle) -> Option<Vec2> {
        crowd.slot_target(h).map(|s| s.position)
    }
    fn anchor(crowd: &Crowd<Vec2>, id: FormationId) -> Option<(Vec2, f32)> {
        crowd.formation(id).map(|m| (m.anchor().position, m.anchor().orientation))
    }
    fn planar_crowd(crowd: &mut Crowd<Vec2>) -> Option<&mut Crowd<Vec2>> {
        Some(crowd)
    }
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Vec2>,
        step: u32,
        agents: impl Iterator<Item = (Vec2, Vec2, f32)>,
    ) -> Result<FrameWriter<'r, Vec2>, RecordingError> {
        recorder.push_frame(step, agents)
    }
}

impl Dim for Vec3 {
    const DIMS: usize = 3;
    const BOX: &'static str = "box";
    const BALL: &'static str = "sphere";
    fn ball_measure(r: f32) -> f32 {
        4.0 / 3.0 * core::f32::consts::PI * r * r * r
    }
    fn heading(angle: f32) -> (steerkit::Quat, Vec3) {
        let q = steerkit::math::ground::heading_to_quat(angle);
        (q, <Vec3 as steerkit::math::Vector>::forward(q))
    }
    fn from_components(c: &[f32]) -> Vec3 {
        Vec3::new(c[0], c[1], c[2])
    }
    fn splat(v: f32) -> Vec3 {
        Vec3::splat(v)
    }
    fn from_file(v: Vec3) -> Vec3 {
        v
    }
    type Solids = ObstacleSet3;
    fn solids(geometry: &Geometry) -> Result<ObstacleSet3, ParamError> {
        ObstacleSet3::new(geometry.obstacles3.iter().copied())
    }
    fn inside_solid(solids: &ObstacleSet3, p: Vec3) -> bool {
        let mut inside = false;
        solids.for_each_overlapping(&Sphere::new(p, 0.0), |_, _| inside = true);
        inside
    }
    fn set_geometry(crowd: &mut Crowd<Vec3>, geometry: &Geometry) -> Result<(), ParamError> {
        if !geometry.obstacles3.is_empty() {
            crowd.set_obstacles(Self::solids(geometry)?);
        }
        Ok(())
    }
    fn add_formation(
        _: &mut Crowd<Vec3>,
        _: &FormationPlan,
        _: &[AgentHandle],
        _: Recipe<Vec2>,
    ) -> Result<FormationId, CrowdError> {
        // the check refuses formations in 3D files
        Err(CrowdError::Param(ParamError::Invalid {
            name: "formation",
            expected: "a 2D scenario (formations are planar)",
        }))
    }
    fn recording_world(world: &World<Vec3>) -> recording::World {
        // the 2D world section is the ground plane seen from above: (x, z) → (x, −z)
        let ground = |v: Vec3| Vec2::new(v.x, -v.z);
        let (wrap, corners) = match world.bounds {
            Bounds::Unbounded => (false, None),
            Bounds::Bounded { min, max } => (false, Some((min, max))),
            Bounds::Wrapping { min, max } => (true, Some((min, max))),
        };
        let mut out = match corners {
            None => recording::World::default(),
            Some((min, max)) => recording::World::bounded(
                ground(min).min(ground(max)),
                ground(min).max(ground(max)),
                wrap,
            )
            .with_volume(min, max),
        };
        for o in &world.geometry.obstacles3 {
            match o {
                Obstacle3::Sphere(s) => out.add_sphere(s.center, s.radius),
                Obstacle3::Box(b) => out.add_cuboid(b.min, b.max),
            }
        }
        for p in &world.paths {
            out.add_path(PathShape::from_polyline3(p.name.clone(), &p.polyline));
        }
        out
    }

    const LOST: Quat = Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN);
    fn components(v: Vec3) -> [f32; 3] {
        [v.x, v.y, v.z]
    }
    fn lift(v: Vec3) -> Vec3 {
        v
    }
    fn lower(v: Vec3) -> Vec3 {
        v
    }
    fn heading_of(o: Quat) -> f32 {
        steerkit::math::ground::quat_to_heading(o)
    }
    fn attitude(o: Quat) -> Option<[f32; 4]> {
        Some(o.to_array())
    }
    fn slot(_: &Crowd<Vec3>, _: AgentHandle) -> Option<Vec3> {
        None
    }
    fn anchor(_: &Crowd<Vec3>, _: FormationId) -> Option<(Vec2, f32)> {
        None
    }
    fn planar_crowd(_: &mut Crowd<Vec3>) -> Option<&mut Crowd<Vec2>> {
        None
    }
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Vec3>,
        step: u32,
        agents: impl Iterator<Item = (Vec3, Vec3, Quat)>,
    ) -> Result<FrameWriter<'r, Vec3>, RecordingError> {
        let kinematics: Vec<Kinematic3> = agents
            .map(|(position, velocity, orientation)| Kinematic3 {
                position,
                velocity,
                orientation,
                ..Kinematic3::default()
            })
            .collect();
        recorder.push_kinematics3(step, &kinematics)
    }
}
