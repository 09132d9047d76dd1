//! The two spaces the plugin runs in: how a crowd state maps to a `Transform` and back, and
//! how obstacle shapes are placed by an entity's `Transform`.

use bevy_app::App;
use bevy_ecs::schedule::InternedScheduleLabel;
use bevy_math::{Quat, Vec2, Vec3};
use bevy_transform::components::Transform;
use steerkit::crowd::CrowdVector;
use steerkit::geometry::{
    Aabb, Circle, Obstacle, Obstacle3, ObstacleSet, ObstacleSet3, Polygon, Segment, Sphere,
};

/// A space the plugin runs in: how a crowd state maps to a `Transform` and back.
pub trait Space: CrowdVector {
    /// The position and orientation a `Transform` stands for.
    fn from_transform(t: &Transform) -> (Self, Self::Orientation);
    /// Writes a position and orientation into a `Transform` (2D keeps its `z`).
    fn to_transform(position: Self, orientation: Self::Orientation, t: &mut Transform);
    /// The orientation a fraction `s` of the way from `a` to `b` (the shorter way).
    fn blend(a: Self::Orientation, b: Self::Orientation, s: f32) -> Self::Orientation;
    /// Systems of this space only (2D: formations), added to the plugin's step schedule.
    fn add_space_systems(_app: &mut App, _schedule: InternedScheduleLabel) {}
    /// The smallest component of a box's size (m).
    fn narrowest(size: Self) -> f32;
    /// A static obstacle of this space ([`Obstacle`] in 2D, [`Obstacle3`] in 3D).
    type Shape: Clone + PartialEq + Send + Sync + core::fmt::Debug + 'static;
    /// A shape given in an entity's local frame, placed in the world by its `Transform`
    /// (translation and rotation; a scale other than 1 is refused).
    ///
    /// # Errors
    /// A one-line reason the shape cannot be placed.
    fn place(shape: &Self::Shape, t: &Transform) -> Result<Self::Shape, String>;
    /// The shapes of a static world.
    fn shapes(world: &Self::Obstacles) -> Vec<Self::Shape>;
    /// The crowd's static world from placed shapes.
    ///
    /// # Errors
    /// The library's reason a shape is invalid.
    fn world(shapes: Vec<Self::Shape>) -> Result<Self::Obstacles, String>;
}

/// The refusal of a scaled obstacle `Transform`.
fn unscaled(t: &Transform) -> Result<(), String> {
    if t.scale == Vec3::ONE {
        Ok(())
    } else {
        Err(format!(
            "obstacle Transform scale {} is not allowed: give the shape its size, scale must be 1",
            t.scale
        ))
    }
}

impl Space for Vec2 {
    fn from_transform(t: &Transform) -> (Vec2, f32) {
        let x = t.rotation * Vec3::X;
        (t.translation.truncate(), x.y.atan2(x.x))
    }

    fn to_transform(position: Vec2, orientation: f32, t: &mut Transform) {
        t.translation = position.extend(t.translation.z);
        t.rotation = Quat::from_rotation_z(orientation);
    }

    fn blend(a: f32, b: f32, s: f32) -> f32 {
        a + steerkit::math::wrap_angle(b - a) * s
    }

    fn narrowest(size: Vec2) -> f32 {
        size.min_element()
    }

    type Shape = Obstacle;

    fn place(shape: &Obstacle, t: &Transform) -> Result<Obstacle, String> {
        unscaled(t)?;
        let (offset, angle) = Vec2::from_transform(t);
        let turn = Vec2::from_angle(angle);
        let to_world = |p: Vec2| offset + turn.rotate(p);
        let polygon = |p: Result<Polygon, steerkit::ParamError>| {
            p.and_then(|p| p.transformed(angle, offset))
                .map(Obstacle::Polygon)
                .map_err(|e| e.to_string())
        };
        Ok(match shape {
            Obstacle::Circle(c) => Obstacle::Circle(Circle::new(to_world(c.center), c.radius)),
            Obstacle::Wall(w) => Obstacle::Wall(Segment::new(to_world(w.a), to_world(w.b))),
            Obstacle::Polygon(p) => polygon(Ok(p.clone()))?,
            // a turned box is a polygon
            Obstacle::Box(b) if angle != 0.0 => polygon(Polygon::rectangle(b.min, b.max))?,
            Obstacle::Box(b) => Obstacle::Box(Aabb::new(b.min + offset, b.max + offset)),
        })
    }

    fn shapes(world: &ObstacleSet) -> Vec<Obstacle> {
        world.obstacles().to_vec()
    }

    fn world(shapes: Vec<Obstacle>) -> Result<ObstacleSet, String> {
        ObstacleSet::new(shapes).map_err(|e| e.to_string())
    }

    fn add_space_systems(app: &mut App, schedule: InternedScheduleLabel) {
        crate::formation::add_systems(app, schedule);
        #[cfg(feature = "navigation")]
        {
            use crate::navigation::{navigate, SteerNavigation};
            use bevy_ecs::schedule::{common_conditions::resource_exists, IntoScheduleConfigs};
            app.add_systems(
                schedule,
                navigate
                    .run_if(resource_exists::<SteerNavigation>)
                    .after(crate::sync::teleports::<Vec2>)
                    .before(crate::sync::step::<Vec2>)
                    .in_set(crate::SteerSystems::Step),
            );
            #[cfg(feature = "debug")]
            app.add_systems(
                bevy_app::PostUpdate,
                crate::navigation::draw_routes_with_gizmos
                    .run_if(resource_exists::<SteerNavigation>)
                    .run_if(resource_exists::<crate::debug::SteerDebug>)
                    // gizmos exist: SteerDebug alone may serve a pen of the game's
                    .run_if(resource_exists::<bevy_gizmos::config::GizmoConfigStore>),
            );
        }
    }
}

impl Space for Vec3 {
    fn from_transform(t: &Transform) -> (Vec3, Quat) {
        (t.translation, t.rotation)
    }

    fn to_transform(position: Vec3, orientation: Quat, t: &mut Transform) {
        t.translation = position;
        t.rotation = orientation;
    }

    fn blend(a: Quat, b: Quat, s: f32) -> Quat {
        a.slerp(b, s)
    }

    fn narrowest(size: Vec3) -> f32 {
        size.min_element()
    }

    type Shape = Obstacle3;

    fn place(shape: &Obstacle3, t: &Transform) -> Result<Obstacle3, String> {
        unscaled(t)?;
        Ok(match shape {
            Obstacle3::Sphere(s) => {
                Obstacle3::Sphere(Sphere::new(t.translation + t.rotation * s.center, s.radius))
            }
            Obstacle3::Box(b) if t.rotation.angle_between(Quat::IDENTITY) > 1e-6 => {
                return Err(format!(
                    "box obstacle rotation {} is not allowed: 3D boxes are axis-aligned, the \
                     rotation must be the identity",
                    t.rotation
                ))
            }
            Obstacle3::Box(b) => {
                Obstacle3::Box(Aabb::new(b.min + t.translation, b.max + t.translation))
            }
        })
    }

    fn shapes(world: &ObstacleSet3) -> Vec<Obstacle3> {
        world.obstacles().to_vec()
    }

    fn world(shapes: Vec<Obstacle3>) -> Result<ObstacleSet3, String> {
        ObstacleSet3::new(shapes).map_err(|e| e.to_string())
    }
}
