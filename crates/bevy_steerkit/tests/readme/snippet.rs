use bevy::prelude::*;
use bevy_steerkit::prelude::*;
use bevy_steerkit::steerkit::geometry::Circle; // Bevy's prelude has a Circle of its own

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, SteerkitPlugin2d::new(CrowdConfig::new(3.0))))
        .add_systems(Startup, spawn)
        .run();
}

fn spawn(mut commands: Commands) {
    let limits = Limits::new(2.0, 4.0, 4.0, 20.0).unwrap(); // m/s, m/s², rad/s, rad/s²
    let arrive = Arrive::new(0.2, 2.0, 0.25).unwrap(); // target radius, slow radius, time (s)
    let leader = commands
        .spawn((
            SteerAgent::new(0.3, limits), // radius (m), limits
            SteerBehaviour2d::new(Recipe::Arrive { target: Target::Goal, arrive }),
            SteerGoal2d::Point(Vec2::new(5.0, 0.0)), // or ::Entity(e), or ::None
            Transform::default(),
        ))
        .id();
    // a recipe names entities: agents, or anything with a Transform (the player)
    let pursue = Pursue::new(1.0).unwrap();
    commands.spawn((
        SteerAgent::new(0.3, limits),
        SteerBehaviour2d::new(Recipe::Pursue { target: leader, pursue }),
        Transform::from_xyz(-4.0, 0.0, 0.0),
    ));
    // the static world, placed by its Transform
    commands.spawn((
        SteerObstacle2d::new(Obstacle::Circle(Circle::new(Vec2::ZERO, 1.5))),
        Transform::from_xyz(3.0, 1.0, 0.0),
    ));
}
