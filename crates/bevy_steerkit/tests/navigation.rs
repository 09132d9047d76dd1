//! Navigation in a Bevy app (feature `navigation`): a `SteerNavigation` resource, obstacle
//! entities and agents whose behaviour navigates. Headless, one fixed step (1/64 s) per update.

use bevy_app::{App, ScheduleRunnerPlugin, TaskPoolPlugin};
use bevy_diagnostic::FrameCountPlugin;
use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use bevy_math::Vec2;
use bevy_steerkit::navigation::SteerNavigation;
use bevy_steerkit::{
    SteerAgent, SteerBehaviour, SteerCrowd, SteerGoal, SteerMessage, SteerObstacle, SteerState,
    SteerkitPlugin2d,
};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use steerkit::crowd::{CrowdConfig, Group, Recipe};
use steerkit::geometry::{Aabb, Obstacle};
use steerkit::kinematic::Limits;
use steerkit::steering::Arrive;

/// A 20 × 20 m room; a wall 1 m thick from `y = −6` up to the top, so the way from the west
/// half to the east half is the 4 m gap at the bottom.
fn app_with_wall() -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        FrameCountPlugin,
        TimePlugin,
        ScheduleRunnerPlugin::default(),
        SteerkitPlugin2d::new(CrowdConfig::new(2.0)),
    ));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.insert_resource(SteerNavigation::rectangle(Vec2::splat(-10.0), Vec2::splat(10.0)));
    let wall = Obstacle::Box(Aabb::new(Vec2::new(-0.5, -6.0), Vec2::new(0.5, 10.0)));
    let wall = app.world_mut().spawn((SteerObstacle::<Vec2>(wall), Transform::default())).id();
    (app, wall)
}

fn walker(app: &mut App, from: Vec2, goal: Vec2) -> Entity {
    let arrive = Arrive::new(0.05, 1.0, 0.25).unwrap();
    app.world_mut()
        .spawn((
            SteerAgent::new(0.3, Limits::new(2.0, 8.0, 4.0, 20.0).unwrap()),
            SteerBehaviour::<Vec2>(Group::new(Recipe::Navigate { arrive })),
            SteerGoal::Point(goal),
            Transform::from_xyz(from.x, from.y, 0.0),
        ))
        .id()
}

fn position(app: &App, e: Entity) -> Vec2 {
    app.world().get::<SteerState<Vec2>>(e).expect("an agent").current.position
}

fn said(app: &App, m: &SteerMessage) -> bool {
    app.world().resource::<Messages<SteerMessage>>().iter_current_update_messages().any(|x| x == m)
}

/// From (−6, 5) to (6, 5), 12 m apart in a straight line through the wall: the route goes
/// down through the gap, about 2·√(6² + 11²) ≈ 25 m. The walker arrives (message and within
/// 0.1 m) between 12 s (25 m at 2 m/s) and 25 s, its body never inside the wall.
#[test]
fn a_walker_goes_round_a_wall_by_its_route_and_arrives() {
    let (mut app, _) = app_with_wall();
    let e = walker(&mut app, Vec2::new(-6.0, 5.0), Vec2::new(6.0, 5.0));
    for _ in 0..3 {
        app.update();
    }
    let corners = {
        let nav = app.world().resource::<SteerNavigation>();
        let steer = app.world().resource::<SteerCrowd<Vec2>>();
        nav.route(steer, e).expect("a route within the first steps").ahead().to_vec()
    };
    assert!(corners.iter().any(|c| c.y < -6.0), "the route passes the gap: {corners:?}");
    let mut arrived = None;
    for step in 1..(30 * 64) {
        app.update();
        let p = position(&app, e);
        let nearest = p.clamp(Vec2::new(-0.5, -6.0), Vec2::new(0.5, 10.0));
        assert!(p.distance(nearest) >= 0.3 - 0.02, "the body is in the wall at {p}");
        if said(&app, &SteerMessage::Arrived(e)) {
            arrived = Some(step as f32 / 64.0);
            break;
        }
    }
    let t = arrived.expect("arrives within 30 s");
    assert!((12.0..25.0).contains(&t), "arrived after {t} s");
    for _ in 0..64 {
        app.update();
    }
    let p = position(&app, e);
    assert!(p.distance(Vec2::new(6.0, 5.0)) < 0.1, "stands at {p}");
}

/// The wall moved down by 4 m (its gap now at the top): the mesh is built again and the route
/// planned again, over the top instead of under the bottom.
#[test]
fn moving_an_obstacle_replans_the_route() {
    let (mut app, wall) = app_with_wall();
    let e = walker(&mut app, Vec2::new(-6.0, 0.0), Vec2::new(6.0, 0.0));
    app.update();
    app.world_mut().get_mut::<Transform>(wall).unwrap().translation.y = -4.0;
    for _ in 0..3 {
        app.update();
    }
    let nav = app.world().resource::<SteerNavigation>();
    let steer = app.world().resource::<SteerCrowd<Vec2>>();
    let corners = nav.route(steer, e).expect("a route").ahead().to_vec();
    assert!(corners.iter().any(|c| c.y > 6.0), "the route goes over the top: {corners:?}");
    assert!(corners.iter().all(|c| c.y > -2.0), "nothing left of the old way: {corners:?}");
}

/// A wall right across the room: the goal is unreachable, said once; the walker stops at the
/// wall (within 1 m of it, never in it).
#[test]
fn an_unreachable_goal_is_said_once_and_the_walker_stops_at_the_wall() {
    let (mut app, wall) = app_with_wall();
    app.world_mut().get_mut::<SteerObstacle<Vec2>>(wall).unwrap().0 =
        Obstacle::Box(Aabb::new(Vec2::new(-0.5, -10.0), Vec2::new(0.5, 10.0)));
    let e = walker(&mut app, Vec2::new(-6.0, 0.0), Vec2::new(6.0, 0.0));
    let mut said_times = 0;
    for _ in 0..(15 * 64) {
        app.update();
        said_times += usize::from(said(&app, &SteerMessage::GoalUnreachable(e)));
    }
    assert_eq!(said_times, 1);
    let p = position(&app, e);
    assert!(p.x <= -0.8 + 0.02 && p.x > -1.8, "stopped at {p}, not at the wall's face x = -0.5");
}

/// The routes layer: a line from the walker through each corner to its goal, the next corner
/// ringed, in the route colour; nothing with the layer off.
#[test]
fn routes_are_drawn_from_the_body_through_the_corners() {
    use bevy_steerkit::debug::{colours, Pen, SteerDebug};
    use bevy_steerkit::navigation::draw_routes;
    #[derive(Default)]
    struct Lines(Vec<(Vec2, Vec2)>, Vec<Vec2>);
    impl Pen<Vec2> for Lines {
        fn line(&mut self, a: Vec2, b: Vec2, colour: bevy_color::Color) {
            assert_eq!(colour, colours::ROUTE);
            self.0.push((a, b));
        }
        fn ring(&mut self, c: Vec2, _: f32, _: bevy_color::Color) {
            self.1.push(c);
        }
    }
    let (mut app, _) = app_with_wall();
    let e = walker(&mut app, Vec2::new(-6.0, 5.0), Vec2::new(6.0, 5.0));
    for _ in 0..3 {
        app.update();
    }
    let (nav, steer) =
        (app.world().resource::<SteerNavigation>(), app.world().resource::<SteerCrowd<Vec2>>());
    let corners = nav.route(steer, e).unwrap().ahead().to_vec();
    let mut pen = Lines::default();
    draw_routes(nav, steer, &SteerDebug::default(), &mut pen);
    assert_eq!(pen.0.len(), corners.len());
    assert_eq!(pen.0[0].0, position(&app, e));
    assert_eq!(pen.0.last().unwrap().1, *corners.last().unwrap());
    assert_eq!(pen.1, [corners[0]]);
    let mut quiet = Lines::default();
    draw_routes(nav, steer, &SteerDebug { routes: false, ..SteerDebug::default() }, &mut quiet);
    assert!(quiet.0.is_empty() && quiet.1.is_empty());
}

/// A walkable outline of two points is refused once, in one line naming it; the walker then
/// arrives straight for its goal (a navigate leaf without a route) instead of hanging.
#[test]
fn a_degenerate_outline_is_reported_once_and_walkers_still_steer() {
    let (mut app, wall) = app_with_wall();
    app.world_mut().despawn(wall);
    app.insert_resource(SteerNavigation::outline(vec![Vec2::ZERO, Vec2::X]));
    let e = walker(&mut app, Vec2::new(-6.0, 0.0), Vec2::new(-2.0, 0.0));
    for _ in 0..(6 * 64) {
        app.update();
    }
    let errors = app.world().resource::<SteerCrowd<Vec2>>().errors().to_vec();
    let about: Vec<_> = errors.iter().filter(|e| e.starts_with("navigation: outline")).collect();
    assert_eq!(about.len(), 1, "{errors:?}");
    assert!(about[0].contains("2 points"), "{}", about[0]);
    assert!(app.world().resource::<SteerNavigation>().navigator().is_none());
    let p = position(&app, e);
    assert!(p.distance(Vec2::new(-2.0, 0.0)) < 0.1, "stands at {p}");
}
