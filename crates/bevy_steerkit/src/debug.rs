//! Debug drawing: each agent's velocity, steering request, target, wander circle, feelers and
//! rays with their hits, detection box, neighbour radius and formation slot, and the crowd's
//! paths and obstacles, each layer toggled in [`SteerDebug`].
//!
//! The drawing itself is [`draw_crowd`], which speaks to a [`Pen`]; with the feature `debug`,
//! Bevy's `Gizmos` is one and `SteerkitDebugPlugin` draws every frame; a test or another
//! renderer can be another pen. Vectors are drawn from the agent's state at
//! the last fixed step (the rendered body is interpolated up to one step ahead of it).

use crate::Space;
use bevy_color::Color;
use bevy_ecs::prelude::*;
use bevy_math::{Vec2, Vec3};
use steerkit::crowd::{AgentHandle, Crowd, Recipe};
use steerkit::geometry::{CollisionDetector, Obstacle, Obstacle3, ObstacleSet, ObstacleSet3};
use steerkit::kinematic::Kinematic;
use steerkit::steering::{DetectionBox, ObstacleAvoidance, Stateful, WallFeelers, WorldWander};

/// Which layers are drawn (all but the neighbour radius by default).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteerDebug {
    /// Velocity (1 s of motion), blue.
    pub velocity: bool,
    /// The steering request (0.5 s² of it, so 2 m/s² draws 1 m), red.
    pub steering: bool,
    /// A line to the point the behaviour steers for, green.
    pub targets: bool,
    /// Wander circles (2D; spheres in 3D), purple.
    pub wander: bool,
    /// Obstacle-avoidance rays and wall feelers, orange up to the first hit, a cross there.
    pub feelers: bool,
    /// Detection boxes (2D), orange.
    pub boxes: bool,
    /// The crowd's neighbour radius round each agent, grey.
    pub neighbour_radius: bool,
    /// The crowd's paths, teal.
    pub paths: bool,
    /// Formation slots (2D) and a line from each member to its slot, amber.
    pub slots: bool,
    /// The crowd's static obstacles and walls, dark grey.
    pub obstacles: bool,
    /// Navigation routes (2D, feature `navigation`): from each navigating agent through its
    /// corners to its goal, its next corner ringed, green.
    pub routes: bool,
}

impl Default for SteerDebug {
    fn default() -> Self {
        SteerDebug {
            velocity: true,
            steering: true,
            targets: true,
            wander: true,
            feelers: true,
            boxes: true,
            neighbour_radius: false,
            paths: true,
            slots: true,
            obstacles: true,
            routes: true,
        }
    }
}

/// The colours of the layers (the replay player's).
pub mod colours {
    use bevy_color::Color;
    /// Velocity.
    pub const VELOCITY: Color = Color::srgb(0.0, 0.45, 0.7);
    /// Steering request.
    pub const STEERING: Color = Color::srgb(0.84, 0.15, 0.16);
    /// Target line.
    pub const TARGET: Color = Color::srgb(0.0, 0.62, 0.45);
    /// Wander circle.
    pub const WANDER: Color = Color::srgb(0.58, 0.4, 0.74);
    /// Feelers, rays and detection boxes.
    pub const FEELER: Color = Color::srgb(0.9, 0.5, 0.1);
    /// Neighbour radius.
    pub const NEIGHBOURS: Color = Color::srgba(0.5, 0.5, 0.5, 0.5);
    /// Paths.
    pub const PATH: Color = Color::srgb(0.08, 0.63, 0.6);
    /// Formation slots.
    pub const SLOT: Color = Color::srgb(0.9, 0.62, 0.0);
    /// Obstacles and walls.
    pub const OBSTACLE: Color = Color::srgb(0.3, 0.3, 0.3);
    /// Navigation routes.
    pub const ROUTE: Color = Color::srgb(0.18, 0.49, 0.2);
}

/// Something that draws lines and circles (spheres in 3D) in a space.
pub trait Pen<V> {
    /// A segment from `a` to `b` (m).
    fn line(&mut self, a: V, b: V, colour: Color);
    /// A circle (2D, in the plane) or sphere (3D) of `radius` m.
    fn ring(&mut self, centre: V, radius: f32, colour: Color);
}

#[cfg(feature = "debug")]
impl Pen<Vec2> for bevy_gizmos::gizmos::Gizmos<'_, '_> {
    fn line(&mut self, a: Vec2, b: Vec2, colour: Color) {
        self.line_2d(a, b, colour);
    }
    fn ring(&mut self, centre: Vec2, radius: f32, colour: Color) {
        self.circle_2d(bevy_math::Isometry2d::from_translation(centre), radius, colour);
    }
}

#[cfg(feature = "debug")]
impl Pen<Vec3> for bevy_gizmos::gizmos::Gizmos<'_, '_> {
    fn line(&mut self, a: Vec3, b: Vec3, colour: Color) {
        // the buffer's own `line` (this trait's method has the same name)
        (**self).line(a, b, colour);
    }
    fn ring(&mut self, centre: Vec3, radius: f32, colour: Color) {
        self.sphere(bevy_math::Isometry3d::from_translation(centre), radius, colour);
    }
}

/// What a space draws beyond lines and rings: its sensors, slots and obstacles.
pub trait Draw: Space {
    /// An agent's rays (`ObstacleAvoidance`) and feelers (`WallFeelers`) up to their first
    /// hit, and its detection box (`DetectionBox`, 2D), for the leaves of its recipe.
    fn sensors(
        crowd: &Crowd<Self>,
        h: AgentHandle,
        leaf: &Recipe<Self>,
        layers: &SteerDebug,
        pen: &mut dyn Pen<Self>,
    );
    /// The formations' slots and each member's line to its slot (2D; none in 3D).
    fn slots(_crowd: &Crowd<Self>, _pen: &mut dyn Pen<Self>) {}
    /// The static obstacles.
    fn obstacles(crowd: &Crowd<Self>, pen: &mut dyn Pen<Self>);
}

/// A ray from `from` to `to` whose first hit is `hit` m along it: drawn to the hit with a
/// cross there, or whole.
fn ray<V: Space>(pen: &mut dyn Pen<V>, from: V, to: V, hit: Option<f32>, cross: V) {
    let length = (to - from).length();
    match hit {
        Some(d) if length > 0.0 => {
            let at = from + (to - from) * (d / length).clamp(0.0, 1.0);
            pen.line(from, at, colours::FEELER);
            pen.line(at - cross, at + cross, colours::FEELER);
        }
        _ => pen.line(from, to, colours::FEELER),
    }
}

impl Draw for Vec2 {
    fn sensors(
        crowd: &Crowd<Vec2>,
        h: AgentHandle,
        leaf: &Recipe<Vec2>,
        layers: &SteerDebug,
        pen: &mut dyn Pen<Vec2>,
    ) {
        let (Some(k), Some(radius)) = (crowd.kinematic(h), crowd.radius(h)) else { return };
        // without obstacles the rays are drawn whole
        let empty = ObstacleSet::default();
        let obstacles = crowd.obstacles().unwrap_or(&empty);
        match leaf {
            Recipe::ObstacleAvoidance(avoid) if layers.feelers => {
                let avoid: ObstacleAvoidance =
                    crowd.avoidance(h).map_or(*avoid, |s| avoid.with_state(s));
                avoid.cast_rays(&k, obstacles, |r, hit| {
                    let cross = r.direction().perp() * 0.1;
                    ray(pen, r.origin(), r.end(), hit.map(|c| c.distance), cross);
                });
            }
            Recipe::WallFeelers(feelers) if layers.feelers => {
                for r in WallFeelers::feelers(feelers, &k) {
                    let cross = r.direction().perp() * 0.1;
                    let hit = obstacles.cast_ray(&r).map(|c| c.distance);
                    ray(pen, r.origin(), r.end(), hit, cross);
                }
            }
            Recipe::DetectionBox(b) if layers.boxes => {
                let Some(limits) = crowd.limits(h) else { return };
                let speed = k.velocity.length();
                let ahead = if speed > 0.0 {
                    k.velocity / speed
                } else {
                    steerkit::math::as_vector(k.orientation)
                };
                let length = DetectionBox::length(b, speed, &limits);
                let side = ahead.perp() * radius;
                let (p, q) = (k.position, k.position + ahead * length);
                let corners = [p + side, q + side, q - side, p - side];
                for i in 0..4 {
                    pen.line(corners[i], corners[(i + 1) % 4], colours::FEELER);
                }
            }
            _ => {}
        }
    }

    fn slots(crowd: &Crowd<Vec2>, pen: &mut dyn Pen<Vec2>) {
        let ids = (0..).map(steerkit::crowd::FormationId);
        for id in ids.map_while(|id| crowd.formation(id).map(|_| id)) {
            for &h in crowd.formation_members(id).unwrap_or(&[]) {
                if let (Some(t), Some(k)) = (crowd.slot_target(h), crowd.kinematic(h)) {
                    pen.ring(t.position, 0.15, colours::SLOT);
                    pen.line(k.position, t.position, colours::SLOT);
                }
            }
        }
    }

    fn obstacles(crowd: &Crowd<Vec2>, pen: &mut dyn Pen<Vec2>) {
        let Some(set) = crowd.obstacles() else { return };
        let c = colours::OBSTACLE;
        for o in set.obstacles() {
            match o {
                Obstacle::Circle(d) => pen.ring(d.center, d.radius, c),
                Obstacle::Wall(w) => pen.line(w.a, w.b, c),
                Obstacle::Polygon(p) => {
                    let q = p.points();
                    for i in 0..q.len() {
                        pen.line(q[i], q[(i + 1) % q.len()], c);
                    }
                }
                Obstacle::Box(b) => {
                    let (lo, hi) = (b.min, b.max);
                    let q = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
                    for i in 0..4 {
                        pen.line(q[i], q[(i + 1) % 4], c);
                    }
                }
            }
        }
    }
}

impl Draw for Vec3 {
    fn sensors(
        crowd: &Crowd<Vec3>,
        h: AgentHandle,
        leaf: &Recipe<Vec3>,
        layers: &SteerDebug,
        pen: &mut dyn Pen<Vec3>,
    ) {
        let Some(k) = crowd.kinematic(h) else { return };
        if let (Recipe::ObstacleAvoidance(avoid), true) = (leaf, layers.feelers) {
            // without obstacles the rays are drawn whole
            let empty = ObstacleSet3::default();
            let obstacles = crowd.obstacles().unwrap_or(&empty);
            let avoid: ObstacleAvoidance =
                crowd.avoidance(h).map_or(*avoid, |s| avoid.with_state(s));
            avoid.cast_rays(&k, obstacles, |r, hit| {
                let cross = r.direction().any_orthonormal_vector() * 0.1;
                ray(pen, r.origin(), r.end(), hit.map(|c| c.distance), cross);
            });
        }
    }

    fn obstacles(crowd: &Crowd<Vec3>, pen: &mut dyn Pen<Vec3>) {
        let Some(set) = crowd.obstacles() else { return };
        let c = colours::OBSTACLE;
        for o in set.obstacles() {
            match o {
                Obstacle3::Sphere(s) => pen.ring(s.center, s.radius, c),
                Obstacle3::Box(b) => {
                    let corner = |i: usize| {
                        Vec3::new(
                            if i & 1 == 0 { b.min.x } else { b.max.x },
                            if i & 2 == 0 { b.min.y } else { b.max.y },
                            if i & 4 == 0 { b.min.z } else { b.max.z },
                        )
                    };
                    // the 12 edges join corners that differ in one bit
                    for i in 0..8 {
                        for bit in [1, 2, 4] {
                            if i & bit == 0 {
                                pen.line(corner(i), corner(i | bit), c);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Draws the crowd's layers that are on in `layers` with `pen`.
pub fn draw_crowd<V: Draw>(crowd: &Crowd<V>, layers: &SteerDebug, pen: &mut dyn Pen<V>) {
    let neighbour_radius = crowd.config().neighbour_radius;
    for h in crowd.handles() {
        let (Some(k), Some(debug)) = (crowd.kinematic(h), crowd.debug(h)) else { continue };
        draw_agent(crowd, h, &k, &debug, layers, pen);
        if layers.neighbour_radius {
            pen.ring(k.position, neighbour_radius, colours::NEIGHBOURS);
        }
    }
    if layers.paths {
        for path in crowd.paths() {
            for (a, b) in (0..path.segment_count()).filter_map(|i| path.segment(i)) {
                pen.line(a, b, colours::PATH);
            }
        }
    }
    if layers.slots {
        V::slots(crowd, pen);
    }
    if layers.obstacles {
        V::obstacles(crowd, pen);
    }
}

fn draw_agent<V: Draw>(
    crowd: &Crowd<V>,
    h: AgentHandle,
    k: &Kinematic<V>,
    debug: &steerkit::crowd::AgentDebug<V>,
    layers: &SteerDebug,
    pen: &mut dyn Pen<V>,
) {
    if layers.velocity {
        pen.line(k.position, k.position + k.velocity, colours::VELOCITY);
    }
    if layers.steering {
        pen.line(k.position, k.position + debug.steering.linear * 0.5, colours::STEERING);
    }
    if layers.targets {
        if let Some(t) = debug.target {
            pen.line(k.position, t, colours::TARGET);
        }
    }
    let Some(group) = crowd.group_of(h).and_then(|g| crowd.group(g)) else { return };
    group.recipe.for_each_leaf(&mut |leaf| match leaf {
        Recipe::Wander(w) if layers.wander => wander_circle(k, w, pen),
        _ => V::sensors(crowd, h, leaf, layers, pen),
    });
}

/// The wander circle: `distance` m ahead along the velocity (the facing at rest).
fn wander_circle<V: Space>(k: &Kinematic<V>, w: &WorldWander<V>, pen: &mut dyn Pen<V>) {
    let (radius, distance, _) = w.parameters();
    let ahead = match k.velocity.normalize_or_zero() {
        h if h == V::ZERO => V::forward(k.orientation),
        h => h,
    };
    pen.ring(k.position + ahead * distance, radius, colours::WANDER);
}

#[cfg(feature = "debug")]
pub use plugin::SteerkitDebugPlugin;

#[cfg(feature = "debug")]
mod plugin {
    use super::{draw_crowd, Draw, Pen, SteerDebug};
    use crate::{Space, SteerCrowd};
    use bevy_app::{App, Plugin, PostUpdate};
    use bevy_ecs::prelude::*;
    use bevy_gizmos::gizmos::Gizmos;

    /// Draws the crowd of a [`SteerkitPlugin`](crate::SteerkitPlugin) with gizmos. Needs Bevy's
    /// gizmo plugin (part of `DefaultPlugins`).
    pub struct SteerkitDebugPlugin<V: Space>(core::marker::PhantomData<V>);

    impl<V: Space> Default for SteerkitDebugPlugin<V> {
        fn default() -> Self {
            SteerkitDebugPlugin(core::marker::PhantomData)
        }
    }

    impl<V: Draw> Plugin for SteerkitDebugPlugin<V>
    where
        for<'w, 's> Gizmos<'w, 's>: Pen<V>,
    {
        fn build(&self, app: &mut App) {
            app.init_resource::<SteerDebug>().add_systems(PostUpdate, draw::<V>);
        }
    }

    fn draw<V: Draw>(layers: Res<SteerDebug>, steer: Res<SteerCrowd<V>>, mut gizmos: Gizmos)
    where
        for<'w, 's> Gizmos<'w, 's>: Pen<V>,
    {
        draw_crowd(steer.crowd(), &layers, &mut gizmos);
    }
}
