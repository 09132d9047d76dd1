//! The debug layers, drawn headless with a pen that records.

use bevy_app::App;
use bevy_color::Color;
use bevy_ecs::entity::Entity;
use bevy_math::Vec2;
use bevy_steerkit::debug::{colours, draw_crowd, Pen, SteerDebug};
use bevy_steerkit::{
    SteerAgent, SteerBehaviour, SteerCrowd, SteerGoal, SteerObstacle, SteerkitPlugin2d,
};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use steerkit::crowd::{CrowdConfig, Group, PathId, Recipe, Target};
use steerkit::geometry::{Circle, Obstacle};
use steerkit::kinematic::Limits;
use steerkit::steering::{Arrive, ObstacleAvoidance, RayLayout, WorldWander};

#[derive(Default)]
struct Recorder {
    lines: Vec<(Vec2, Vec2, Color)>,
    rings: Vec<(Vec2, f32, Color)>,
}

impl Pen<Vec2> for Recorder {
    fn line(&mut self, a: Vec2, b: Vec2, colour: Color) {
        self.lines.push((a, b, colour));
    }
    fn ring(&mut self, centre: Vec2, radius: f32, colour: Color) {
        self.rings.push((centre, radius, colour));
    }
}

/// One agent arriving with a fan of 5 rays toward a disc straight ahead, one wanderer: its
/// velocity line is one second of motion, its steering line half a second squared of the
/// request, its target line ends at the goal, the rays that meet the disc stop on its surface
/// with a cross, the wanderer's circle sits `distance` ahead, and the disc is drawn. Turning a
/// layer off removes exactly its lines.
#[test]
fn the_layers_draw_what_the_crowd_did() {
    let mut app = App::new();
    app.add_plugins((TimePlugin, SteerkitPlugin2d::new(CrowdConfig::new(2.0))));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let limits = Limits::new(2.0, 4.0, 4.0, 20.0).unwrap();
    let avoid =
        ObstacleAvoidance::new(RayLayout::Fan { half_angle: 0.4, rays: 5 }, 3.0, 6.0).unwrap();
    let arrive: Recipe<Vec2, Entity, PathId> =
        Recipe::Arrive { target: Target::Goal, arrive: Arrive::new(0.1, 2.0, 0.25).unwrap() };
    let recipe = Recipe::Priority {
        groups: vec![Recipe::ObstacleAvoidance(avoid), arrive],
        epsilon: steerkit::combine::Epsilon::new(0.01).unwrap(),
    };
    app.world_mut().spawn((
        SteerObstacle::<Vec2>(Obstacle::Circle(Circle::new(Vec2::new(5.0, 0.0), 1.0))),
        Transform::default(),
    ));
    let walker = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits),
            SteerBehaviour(Group::new(recipe)),
            SteerGoal::Point(Vec2::new(20.0, 0.0)),
        ))
        .id();
    let wander = WorldWander::<Vec2>::new(1.5, 3.0, 1.0).unwrap();
    app.world_mut().spawn((
        SteerAgent::new(0.3, limits),
        SteerBehaviour(Group::new(Recipe::Wander(wander))),
        Transform::from_xyz(0.0, 20.0, 0.0),
    ));
    for _ in 0..10 {
        app.update();
    }
    let steer = app.world().resource::<SteerCrowd<Vec2>>();
    let crowd = steer.crowd();
    let h = steer.handle(walker).unwrap();
    let k = crowd.kinematic(h).unwrap();
    let mut pen = Recorder::default();
    draw_crowd(crowd, &SteerDebug::default(), &mut pen);
    let of = |c: Color| pen.lines.iter().filter(move |l| l.2 == c).collect::<Vec<_>>();
    let velocity = of(colours::VELOCITY);
    assert_eq!(velocity.len(), 2);
    assert!(velocity.iter().any(|l| l.0 == k.position && l.1 == k.position + k.velocity));
    let steering = crowd.debug(h).unwrap().steering.linear;
    assert!(of(colours::STEERING)
        .iter()
        .any(|l| l.0 == k.position && (l.1 - (k.position + steering * 0.5)).length() < 1e-6));
    assert!(of(colours::TARGET).iter().any(|l| l.0 == k.position && l.1 == Vec2::new(20.0, 0.0)));
    // 5 rays of 6 m toward the disc (centre (5, 0), radius 1): a ray that hits stops on its
    // surface and has a cross there; one that misses is whole
    let feelers = of(colours::FEELER);
    let rays: Vec<_> = feelers.iter().filter(|l| l.0 == k.position).collect();
    assert_eq!(rays.len(), 5);
    let centre = Vec2::new(5.0, 0.0);
    let mut hits = 0;
    for r in &rays {
        let length = r.0.distance(r.1);
        if length < 6.0 - 1e-3 {
            hits += 1;
            assert!((r.1.distance(centre) - 1.0).abs() < 1e-3, "a cut ray ends on the disc: {r:?}");
        } else {
            assert!((length - 6.0).abs() < 1e-3, "a whole ray is 6 m: {r:?}");
        }
    }
    assert!(hits >= 1, "the disc is straight ahead: {rays:?}");
    assert_eq!(feelers.len(), 5 + hits, "a cross for each hit: {feelers:?}");
    // the disc and the wanderer's circle
    assert!(pen.rings.contains(&(Vec2::new(5.0, 0.0), 1.0, colours::OBSTACLE)));
    let w = pen.rings.iter().find(|r| r.2 == colours::WANDER).expect("a wander circle");
    assert_eq!(w.1, 1.5);
    let wanderer = crowd.handles().find(|&x| x != h).unwrap();
    let kw = crowd.kinematic(wanderer).unwrap();
    assert!(
        (w.0.distance(kw.position) - 3.0).abs() < 1e-4,
        "3 m ahead: {:?} from {:?}",
        w.0,
        kw.position
    );
    // layers off
    let mut quiet = Recorder::default();
    let off =
        SteerDebug { feelers: false, velocity: false, obstacles: false, ..SteerDebug::default() };
    draw_crowd(crowd, &off, &mut quiet);
    assert!(quiet.lines.iter().all(|l| l.2 != colours::FEELER && l.2 != colours::VELOCITY));
    assert!(quiet.rings.iter().all(|r| r.2 != colours::OBSTACLE));
    assert_eq!(quiet.lines.len() + 5 + hits + 2, pen.lines.len());
}
