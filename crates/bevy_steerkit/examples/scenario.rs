//! Any steerkit scenario file in a Bevy window: the file's crowd runs in the plugin at the
//! file's time step, each agent drawn in its group's colour (a disc in 2D, a ball in 3D) with
//! the debug layers over it.
//!
//! ```sh
//! cargo run --release -p bevy_steerkit --example scenario --features examples -- scenarios/crossing.toml
//! ```
//!
//! Keys: `V` velocity, `S` steering, `T` targets, `F` rays and feelers, `N` neighbour radius,
//! `P` paths, `Space` pause.

mod common;

use bevy::color::Srgba;
use bevy::prelude::*;
use bevy_steerkit::debug::{SteerDebug, SteerkitDebugPlugin};
use bevy_steerkit::scenario::spawn_scenario;
use bevy_steerkit::{SteerkitPlugin2d, SteerkitPlugin3d};
use std::time::Duration;
use steerkit::crowd::CrowdConfig;
use steerkit_scenario::Scenario;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "scenarios/crossing.toml".into());
    let file = match Scenario::load(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: format!("steerkit: {}", file.name()),
            resolution: (1280, 720).into(),
            ..default()
        }),
        ..default()
    }))
    .insert_resource(ClearColor(Color::srgb(0.96, 0.96, 0.94)))
    .insert_resource(SteerDebug { velocity: false, steering: false, targets: false, ..default() })
    .add_systems(
        Update,
        common::keys([
            (KeyCode::KeyV, |d| &mut d.velocity),
            (KeyCode::KeyS, |d| &mut d.steering),
            (KeyCode::KeyT, |d| &mut d.targets),
            (KeyCode::KeyF, |d| &mut d.feelers),
            (KeyCode::KeyN, |d| &mut d.neighbour_radius),
            (KeyCode::KeyP, |d| &mut d.paths),
        ]),
    );
    let three_d = file.dimensions() == 3;
    let spawned = if three_d {
        app.add_plugins((
            SteerkitPlugin3d::new(CrowdConfig::new(file.neighbour_radius())),
            SteerkitDebugPlugin::<Vec3>::default(),
        ));
        spawn_scenario::<Vec3>(app.world_mut(), &file)
    } else {
        app.add_plugins((
            SteerkitPlugin2d::new(CrowdConfig::new(file.neighbour_radius())),
            SteerkitDebugPlugin::<Vec2>::default(),
        ));
        spawn_scenario::<Vec2>(app.world_mut(), &file)
    };
    let spawned = match spawned {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    app.insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f64(spawned.dt.into())));

    // bodies in their groups' colours, and a camera that sees them all
    let world = app.world_mut();
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (_, colour, entities) in &spawned.groups {
        let colour = colour
            .as_deref()
            .and_then(|c| Srgba::hex(c).ok())
            .map_or(Color::srgb(0.0, 0.45, 0.7), Color::from);
        for &e in entities {
            let radius = world.get::<bevy_steerkit::SteerAgent>(e).map_or(0.5, |a| a.radius);
            let at = world.get::<Transform>(e).map_or(Vec3::ZERO, |t| t.translation);
            lo = lo.min(at - radius);
            hi = hi.max(at + radius);
            if three_d {
                let mesh = world.resource_mut::<Assets<Mesh>>().add(Sphere::new(radius));
                let paint = world
                    .resource_mut::<Assets<StandardMaterial>>()
                    .add(StandardMaterial::from_color(colour));
                world.entity_mut(e).insert((Mesh3d(mesh), MeshMaterial3d(paint)));
            } else {
                let mesh = world.resource_mut::<Assets<Mesh>>().add(Circle::new(radius));
                let paint = world
                    .resource_mut::<Assets<ColorMaterial>>()
                    .add(ColorMaterial::from_color(colour));
                world.entity_mut(e).insert((Mesh2d(mesh), MeshMaterial2d(paint)));
            }
        }
    }
    let centre = if lo.is_finite() { (lo + hi) / 2.0 } else { Vec3::ZERO };
    let size = if lo.is_finite() { (hi - lo).max(Vec3::splat(10.0)) } else { Vec3::splat(40.0) };
    if three_d {
        let eye =
            centre + Vec3::new(0.0, size.y + size.max_element() * 0.6, size.max_element() * 1.2);
        world.spawn((
            Camera3d::default(),
            Transform::from_translation(eye).looking_at(centre, Vec3::Y),
        ));
        world.spawn((
            DirectionalLight { illuminance: 8_000.0, ..default() },
            Transform::from_xyz(1.0, 3.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y),
        ));
    } else {
        // fit the agents' extent with a margin in a 1280 × 720 window
        let scale = (size.x / 1180.0).max(size.y / 620.0);
        world.spawn((
            Camera2d,
            Projection::Orthographic(OrthographicProjection {
                scale,
                ..OrthographicProjection::default_2d()
            }),
            Transform::from_translation(centre.with_z(0.0)),
        ));
    }
    app.run();
}
