//! steerkit in a 2D Bevy game: a flock of 300 boids, 24 walkers crossing a field of pillars
//! back and forth, and a red pursuer chasing a white marker that follows the mouse cursor.
//!
//! ```sh
//! cargo run --release -p bevy_steerkit --example steering2d --features examples
//! ```
//!
//! Keys toggle the debug layers (gizmos): `V` velocity, `S` steering, `T` targets, `F` rays
//! and feelers (off at first: 300 boids' fans fill the screen), `N` neighbour radius, `O` obstacles; `Space` pauses.
//!
//! The world is a 128 m × 72 m torus shown at 10 px per metre; every agent is a steerkit crowd
//! agent stepped in `FixedUpdate` (64 Hz) and drawn interpolated.

mod common;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steerkit::debug::{SteerDebug, SteerkitDebugPlugin};
use bevy_steerkit::{
    SteerAgent, SteerBehaviour, SteerGoal, SteerMessage, SteerObstacle, SteerkitPlugin2d,
};
use steerkit::combine::Epsilon;
use steerkit::crowd::{CrowdConfig, Group, PathId, Recipe, Target, WorldBounds};
use steerkit::geometry::{Circle as Disc, Obstacle};
use steerkit::kinematic::Limits;
use steerkit::math::Rng;
use steerkit::steering::{
    Alignment, Arrive, Cohesion, Falloff, ObstacleAvoidance, Pursue, RayLayout, Seek, Separation,
};

/// Half the world's size (m).
const HALF: Vec2 = Vec2::new(64.0, 36.0);

type Steer = Recipe<Vec2, Entity, PathId>;

/// Marks a walker (it turns round at each end) and the cursor marker.
#[derive(Component)]
struct Walker;
#[derive(Component)]
struct CursorMarker;

fn main() {
    let bounds = WorldBounds::Toroidal { min: -HALF, max: HALF };
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "steerkit: flock, pillars, pursuit".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            SteerkitPlugin2d::new(CrowdConfig::new(3.0).with_bounds(bounds).with_seed(1)),
            SteerkitDebugPlugin::<Vec2>::default(),
        ))
        .insert_resource(ClearColor(Color::srgb(0.96, 0.96, 0.94)))
        .insert_resource(SteerDebug {
            velocity: false,
            steering: false,
            targets: false,
            feelers: false,
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                follow_cursor,
                turn_walkers_round,
                common::keys([
                    (KeyCode::KeyV, |d| &mut d.velocity),
                    (KeyCode::KeyS, |d| &mut d.steering),
                    (KeyCode::KeyT, |d| &mut d.targets),
                    (KeyCode::KeyF, |d| &mut d.feelers),
                    (KeyCode::KeyN, |d| &mut d.neighbour_radius),
                    (KeyCode::KeyO, |d| &mut d.obstacles),
                ]),
            ),
        )
        .run();
}

/// Rays for the pillars: a fan of 5 looking 4 m plus 1 s of motion ahead, keeping 1.5 m off.
fn avoid() -> Steer {
    let rays = ObstacleAvoidance::new(RayLayout::Fan { half_angle: 0.6, rays: 5 }, 1.5, 4.0)
        .and_then(|a| a.with_lookahead_time(1.0))
        .expect("valid avoidance");
    Recipe::ObstacleAvoidance(rays)
}

/// Avoid first; otherwise the rest, blended.
fn first_avoid(rest: Vec<(f32, Steer)>) -> Steer {
    Recipe::Priority {
        groups: vec![avoid(), Recipe::Blend(rest)],
        epsilon: Epsilon::new(0.01).expect("valid epsilon"),
    }
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 0.1,
            ..OrthographicProjection::default_2d()
        }),
    ));
    let mut rng = Rng::new(7);
    let mut colour = |c: Color| materials.add(ColorMaterial::from_color(c));

    // pillars: obstacle entities, placed by their Transforms
    let pillar = colour(Color::srgb(0.45, 0.45, 0.5));
    let mut pillars = Vec::new();
    for i in 0..5 {
        for j in 0..4 {
            let at = Vec2::new(-20.0 + 10.0 * i as f32, -15.0 + 10.0 * j as f32)
                + Vec2::new(rng.clamped(), rng.clamped()) * 2.0;
            let r = 1.5 + rng.uniform();
            pillars.push((at, r));
            commands.spawn((
                SteerObstacle::<Vec2>(Obstacle::Circle(Disc::new(Vec2::ZERO, r))),
                Transform::from_translation(at.extend(0.0)),
                Mesh2d(meshes.add(Circle::new(r))),
                MeshMaterial2d(pillar.clone()),
            ));
        }
    }

    // the flock: separation, cohesion and alignment among the 7 nearest, rays for the pillars
    let boid = meshes.add(Triangle2d::new(
        Vec2::new(0.6, 0.0),
        Vec2::new(-0.4, 0.3),
        Vec2::new(-0.4, -0.3),
    ));
    let blue = colour(Color::srgb(0.0, 0.45, 0.7));
    let mut flock = Group::new(first_avoid(vec![
        (2.0, Recipe::Separation(Separation::new(1.2, Falloff::Linear).expect("valid"))),
        (0.6, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
        (1.0, Recipe::Alignment(Alignment::heading(0.5).expect("valid"))),
    ]));
    flock.nearest = Some(7);
    flock.face_motion = true;
    let fast = Limits::new(8.0, 10.0, 6.0, 30.0).expect("valid limits");
    for _ in 0..300 {
        // not inside a pillar: a body that starts in a solid cannot leave it
        let mut at = Vec2::new(rng.clamped(), rng.clamped()) * HALF;
        while pillars.iter().any(|&(c, r)| at.distance(c) < r + 1.0) {
            at = Vec2::new(rng.clamped(), rng.clamped()) * HALF;
        }
        commands.spawn((
            SteerAgent::new(0.4, fast),
            SteerBehaviour(flock.clone()),
            Transform::from_translation(at.extend(1.0))
                .with_rotation(Quat::from_rotation_z(rng.uniform() * std::f32::consts::TAU)),
            Mesh2d(boid.clone()),
            MeshMaterial2d(blue.clone()),
        ));
    }

    // walkers: arrive at the far side of the pillar field, then turn round
    let body = meshes.add(Circle::new(0.5));
    let green = colour(Color::srgb(0.0, 0.62, 0.45));
    let arrive = Arrive::new(0.5, 4.0, 0.5).expect("valid arrive");
    let mut walk = Group::new(first_avoid(vec![
        (1.5, Recipe::Separation(Separation::new(1.5, Falloff::Linear).expect("valid"))),
        (1.0, Recipe::Arrive { target: Target::Goal, arrive }),
    ]));
    walk.arrive_radius = 1.0;
    walk.non_penetration = true;
    walk.face_motion = true;
    let walking = Limits::new(3.0, 6.0, 6.0, 30.0).expect("valid limits");
    for k in 0..24 {
        let y = -22.0 + 44.0 * k as f32 / 23.0;
        let side = if k % 2 == 0 { -1.0 } else { 1.0 };
        commands.spawn((
            Walker,
            SteerAgent::new(0.5, walking),
            SteerBehaviour(walk.clone()),
            SteerGoal::Point(Vec2::new(-side * 34.0, y)),
            Transform::from_xyz(side * 34.0, y, 2.0),
            Mesh2d(body.clone()),
            MeshMaterial2d(green.clone()),
        ));
    }

    // the cursor marker arrives wherever the mouse is; the pursuer pursues it
    let marker = commands
        .spawn((
            CursorMarker,
            SteerAgent::new(0.5, Limits::new(30.0, 120.0, 10.0, 50.0).expect("valid")),
            SteerBehaviour(Group::<Vec2, Entity, PathId>::new(Recipe::Arrive {
                target: Target::Goal,
                arrive: Arrive::new(0.1, 3.0, 0.1).expect("valid"),
            })),
            SteerGoal::Point(Vec2::ZERO),
            Transform::from_xyz(0.0, 0.0, 3.0),
            Mesh2d(meshes.add(Annulus::new(0.4, 0.7))),
            MeshMaterial2d(colour(Color::WHITE.darker(0.3))),
        ))
        .id();
    let pursue = Pursue::new(1.5).expect("valid pursue");
    let mut chase = Group::new(first_avoid(vec![(1.0, Recipe::Pursue { target: marker, pursue })]));
    chase.face_motion = true;
    commands.spawn((
        SteerAgent::new(0.8, Limits::new(12.0, 14.0, 8.0, 40.0).expect("valid")),
        SteerBehaviour(chase),
        Transform::from_xyz(-40.0, 25.0, 3.0),
        Mesh2d(meshes.add(Triangle2d::new(
            Vec2::new(1.2, 0.0),
            Vec2::new(-0.8, 0.6),
            Vec2::new(-0.8, -0.6),
        ))),
        MeshMaterial2d(colour(Color::srgb(0.84, 0.15, 0.16))),
    ));
}

/// The marker's goal is the cursor, in world coordinates.
fn follow_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut marker: Single<&mut SteerGoal<Vec2>, With<CursorMarker>>,
) {
    let (camera, at) = *camera;
    let Some(p) = window.cursor_position().and_then(|c| camera.viewport_to_world_2d(at, c).ok())
    else {
        return;
    };
    **marker = SteerGoal::Point(p.clamp(-HALF, HALF));
}

/// A walker that arrived heads back to the other side.
fn turn_walkers_round(
    mut messages: MessageReader<SteerMessage>,
    mut walkers: Query<(&mut SteerGoal<Vec2>, &Transform), With<Walker>>,
) {
    for m in messages.read() {
        if let SteerMessage::Arrived(e) = *m {
            if let Ok((mut goal, t)) = walkers.get_mut(e) {
                let here = t.translation.truncate();
                *goal = SteerGoal::Point(Vec2::new(-here.x.signum() * 34.0, here.y));
            }
        }
    }
}
