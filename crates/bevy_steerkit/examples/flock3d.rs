//! steerkit in a 3D Bevy game: a flock of 400 boids streaming round a ring that threads six
//! spheres (each boid follows the looping path while flocking, and its rays steer it round the
//! spheres); the camera circles slowly.
//!
//! ```sh
//! cargo run --release -p bevy_steerkit --example flock3d --features examples
//! ```
//!
//! Keys toggle the debug layers (gizmos): `V` velocity, `F` rays with their hits, `O`
//! obstacles; `Space` pauses.
//!
//! y is up; each boid looks down its local +x axis (the crowd's convention), so its cone mesh
//! is a child turned to point along +x.

mod common;

use bevy::prelude::*;
use bevy_steerkit::debug::{SteerDebug, SteerkitDebugPlugin};
use bevy_steerkit::{SteerAgent, SteerBehaviour, SteerCrowd, SteerObstacle, SteerkitPlugin3d};
use steerkit::combine::Epsilon;
use steerkit::crowd::{CrowdConfig, Group, PathId, Recipe};
use steerkit::geometry::{Obstacle3, Sphere as Ball};
use steerkit::kinematic::Limits;
use steerkit::math::Rng;
use steerkit::path::Polyline;
use steerkit::steering::{
    Alignment, Cohesion, Falloff, FollowPath, ObstacleAvoidance, RayLayout, Seek, Separation,
};

type Steer = Recipe<Vec3, Entity, PathId>;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "steerkit: a 3D flock round spheres".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            SteerkitPlugin3d::new(CrowdConfig::new(4.0).with_seed(3)),
            SteerkitDebugPlugin::<Vec3>::default(),
        ))
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
                orbit_camera,
                common::keys([
                    (KeyCode::KeyV, |d| &mut d.velocity),
                    (KeyCode::KeyF, |d| &mut d.feelers),
                    (KeyCode::KeyO, |d| &mut d.obstacles),
                ]),
            ),
        )
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut steer: ResMut<SteerCrowd<Vec3>>,
) {
    commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 25.0, 80.0)));
    commands.spawn((
        DirectionalLight { illuminance: 8_000.0, shadow_maps_enabled: false, ..default() },
        Transform::from_xyz(30.0, 60.0, 20.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight { brightness: 400.0, ..default() });

    // six spheres round the centre: obstacle entities placed by their Transforms
    let stone = materials.add(StandardMaterial {
        base_color: Color::srgb(0.55, 0.55, 0.6),
        perceptual_roughness: 0.9,
        ..default()
    });
    for k in 0..6 {
        let a = k as f32 / 6.0 * std::f32::consts::TAU;
        let at = Vec3::new(18.0 * a.cos(), if k % 2 == 0 { -4.0 } else { 5.0 }, 18.0 * a.sin());
        let r = 4.0 + (k % 3) as f32;
        commands.spawn((
            SteerObstacle::<Vec3>(Obstacle3::Sphere(Ball::new(Vec3::ZERO, r))),
            Transform::from_translation(at),
            Mesh3d(meshes.add(Sphere::new(r))),
            MeshMaterial3d(stone.clone()),
        ));
    }

    // a ring 18 m round the centre, rising and falling through the spheres' heights
    let ring: Vec<Vec3> = (0..48)
        .map(|i| {
            let a = i as f32 / 48.0 * std::f32::consts::TAU;
            Vec3::new(18.0 * a.cos(), 3.0 * (3.0 * a).sin(), 18.0 * a.sin())
        })
        .collect();
    let ring = steer.crowd_mut().add_path(Polyline::looping(ring).expect("a valid ring"));
    // the flock: avoid the spheres first; otherwise separation, cohesion and alignment among
    // the 7 nearest and following the ring
    let rays = ObstacleAvoidance::new(RayLayout::Fan { half_angle: 0.5, rays: 5 }, 2.0, 5.0)
        .and_then(|a| a.with_lookahead_time(1.0))
        .expect("valid avoidance");
    let flocking: Vec<(f32, Steer)> = vec![
        (2.0, Recipe::Separation(Separation::new(1.5, Falloff::Linear).expect("valid"))),
        (0.6, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
        (1.0, Recipe::Alignment(Alignment::heading(0.5).expect("valid"))),
        (0.8, Recipe::FollowPath { path: ring, follow: FollowPath::new(4.0).expect("valid") }),
    ];
    let mut flock = Group::new(Recipe::Priority {
        groups: vec![Recipe::ObstacleAvoidance(rays), Recipe::Blend(flocking)],
        epsilon: Epsilon::new(0.01).expect("valid epsilon"),
    });
    flock.nearest = Some(7);
    flock.face_motion = true;
    let limits = Limits::new(9.0, 10.0, 6.0, 30.0).expect("valid limits");
    let cone = meshes.add(Cone { radius: 0.3, height: 1.2 });
    let colours = [Color::srgb(0.0, 0.45, 0.7), Color::srgb(0.9, 0.62, 0.0)];
    let paint = colours.map(|c| materials.add(StandardMaterial::from_color(c)));
    let mut rng = Rng::new(11);
    for i in 0..400 {
        let at =
            Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()) * Vec3::new(40.0, 12.0, 40.0);
        if at.length() < 12.0 {
            continue;
        }
        commands
            .spawn((
                SteerAgent::new(0.5, limits),
                SteerBehaviour(flock.clone()),
                Transform::from_translation(at),
                Visibility::default(),
            ))
            .with_child((
                Mesh3d(cone.clone()),
                MeshMaterial3d(paint[i % 2].clone()),
                // the cone's tip is +y: point it down the body's +x
                Transform::from_rotation(Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2)),
            ));
    }
}

fn orbit_camera(time: Res<Time>, mut camera: Single<&mut Transform, With<Camera3d>>) {
    let a = time.elapsed_secs() * 0.08;
    **camera =
        Transform::from_xyz(80.0 * a.sin(), 25.0, 80.0 * a.cos()).looking_at(Vec3::ZERO, Vec3::Y);
}
