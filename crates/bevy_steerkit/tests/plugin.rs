//! The plugin in a headless app (no window, no GPU): Bevy's minimal plugins with one fixed step
//! per update.

use bevy_app::{App, ScheduleRunnerPlugin, TaskPoolPlugin};
use bevy_diagnostic::FrameCountPlugin;
use bevy_ecs::prelude::*;
use bevy_math::{Vec2, Vec3};
use bevy_steerkit::{
    SteerAgent, SteerBehaviour, SteerCrowd, SteerGoal, SteerMessage, SteerState, SteerkitPlugin2d,
    SteerkitPlugin3d,
};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use steerkit::crowd::{AgentSpec, Crowd2, CrowdConfig, Group, PathId, Recipe, Target};
use steerkit::kinematic::Limits;
use steerkit::steering::{Arrive, Pursue};

/// Bevy's default fixed step, 64 Hz (exact in `f32`).
const DT: f32 = 1.0 / 64.0;

/// Bevy's `MinimalPlugins`, from its sub-crates: task pools, the frame count, time and the
/// headless runner (the updates below are driven by hand).
fn minimal() -> (TaskPoolPlugin, FrameCountPlugin, TimePlugin, ScheduleRunnerPlugin) {
    (TaskPoolPlugin::default(), FrameCountPlugin, TimePlugin, ScheduleRunnerPlugin::default())
}

fn app2d(config: CrowdConfig) -> App {
    let mut app = App::new();
    app.add_plugins((minimal(), SteerkitPlugin2d::new(config)));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

fn limits() -> Limits {
    Limits::new(2.0, 4.0, 4.0, 20.0).unwrap()
}

fn arrive() -> Recipe<Vec2, Entity, PathId> {
    Recipe::Arrive { target: Target::Goal, arrive: Arrive::new(0.1, 2.0, 0.25).unwrap() }
}

fn state(app: &App, e: Entity) -> SteerState<Vec2> {
    *app.world().get::<SteerState<Vec2>>(e).expect("an agent")
}

/// Arrive from rest over 10 m at up to 2 m/s with 4 m/s² and a 2 m slow radius: accelerating
/// takes 0.5 s (0.5 m), cruising 3.5 s (7 m) and the slowing 2 m about 1 s and more, so it is
/// there (within 0.1 m) after 4.5–8 s and not before 4.5 s; the arrival message comes then.
#[test]
fn an_arriving_entity_reaches_its_goal_in_the_expected_time_and_says_so() {
    let mut app = app2d(CrowdConfig::new(2.0));
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(arrive())),
            SteerGoal::Point(Vec2::new(10.0, 0.0)),
            Transform::default(),
        ))
        .id();
    let mut arrived_at = None;
    for step in 1..=640 {
        app.update();
        let messages = app.world().resource::<bevy_ecs::message::Messages<SteerMessage>>();
        if messages.iter_current_update_messages().any(|m| *m == SteerMessage::Arrived(e)) {
            arrived_at.get_or_insert(step);
        }
    }
    let p = state(&app, e).current.position;
    assert!(p.distance(Vec2::new(10.0, 0.0)) < 0.1, "{p:?}");
    let t = arrived_at.expect("an Arrived message") as f32 * DT;
    assert!((4.5..8.0).contains(&t), "arrived after {t} s");
    // the Transform shows it, interpolated
    let tr = app.world().get::<Transform>(e).unwrap();
    assert!(tr.translation.truncate().distance(Vec2::new(10.0, 0.0)) < 0.1);
}

/// The plugin's crowd against the bare crowd: 40 agents arriving at goals across each other,
/// with separation, over 1000 fixed steps: every state bit for bit the same.
#[test]
fn the_plugin_gives_the_bare_crowds_states_bit_for_bit_over_1000_steps() {
    let config = CrowdConfig::new(2.0).with_seed(7);
    let recipe = |r: Recipe<Vec2, Entity, PathId>| {
        Recipe::Blend(vec![
            (1.0, r),
            (
                1.5,
                Recipe::Separation(
                    steerkit::steering::Separation::new(1.0, steerkit::steering::Falloff::Linear)
                        .unwrap(),
                ),
            ),
        ])
    };
    let starts: Vec<(Vec2, Vec2)> = (0..40)
        .map(|k| {
            let a = k as f32 / 40.0 * std::f32::consts::TAU;
            (Vec2::from_angle(a) * 8.0, Vec2::from_angle(a + 3.0) * 8.0)
        })
        .collect();
    let mut app = app2d(config);
    let entities: Vec<Entity> = starts
        .iter()
        .map(|&(p, g)| {
            app.world_mut()
                .spawn((
                    SteerAgent::new(0.3, limits()),
                    SteerBehaviour(Group::new(recipe(arrive()))),
                    SteerGoal::Point(g),
                    Transform::from_translation(p.extend(0.0)),
                ))
                .id()
        })
        .collect();
    let mut bare = Crowd2::new(config).unwrap();
    let _idle = bare.add_group(Group::new(Recipe::Blend(Vec::new()))).unwrap();
    let g = bare
        .add_group(Group::new(recipe(arrive())).map_refs(&|_| unreachable!(), &|p| *p))
        .unwrap();
    let handles: Vec<_> = starts
        .iter()
        .map(|&(p, goal)| {
            bare.spawn(AgentSpec { goal: Some(goal), ..AgentSpec::new(p, 0.3, limits(), g) })
                .unwrap()
        })
        .collect();
    app.update(); // Bevy's clock starts: no fixed step in the first update
    for _ in 0..1000 {
        app.update();
        bare.step(DT).unwrap();
    }
    for (e, h) in entities.iter().zip(&handles) {
        let mine = state(&app, *e).current;
        let theirs = bare.kinematic(*h).unwrap();
        assert_eq!(
            mine.position.to_array().map(f32::to_bits),
            theirs.position.to_array().map(f32::to_bits)
        );
        assert_eq!(
            mine.velocity.to_array().map(f32::to_bits),
            theirs.velocity.to_array().map(f32::to_bits)
        );
        assert_eq!(mine.orientation.to_bits(), theirs.orientation.to_bits());
    }
}

/// A pursuer of another entity closes on it; when the prey is despawned its agent leaves the
/// crowd and the pursuer has nothing more to say: it coasts to a stop, no error.
#[test]
fn pursuing_an_entity_and_falling_back_when_it_is_despawned() {
    let mut app = app2d(CrowdConfig::new(2.0));
    let prey = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, Limits::new(1.0, 4.0, 4.0, 20.0).unwrap()),
            SteerBehaviour(Group::new(arrive())),
            SteerGoal::Point(Vec2::new(30.0, 0.0)),
            Transform::from_xyz(3.0, 0.0, 0.0),
        ))
        .id();
    let mut chase: Group<Vec2, Entity, PathId> =
        Group::new(Recipe::Pursue { target: prey, pursue: Pursue::new(1.0).unwrap() });
    chase.integration =
        steerkit::kinematic::Integration::new(steerkit::kinematic::Scheme::SemiImplicit, 1.0, 0.0)
            .unwrap();
    let hunter = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(chase),
            Transform::from_xyz(-3.0, 0.0, 0.0),
        ))
        .id();
    let gap =
        |app: &App| state(app, hunter).current.position.distance(state(app, prey).current.position);
    let start = 6.0;
    for _ in 0..512 {
        app.update();
    }
    let closed = gap(&app);
    assert!(closed < 1.0, "the hunter is {closed} m from its prey after 8 s (from {start})");
    app.world_mut().despawn(prey);
    for _ in 0..640 {
        app.update();
    }
    let steer = app.world().resource::<SteerCrowd<Vec2>>();
    assert_eq!(steer.crowd().len(), 1, "the prey left the crowd");
    assert!(steer.errors().is_empty(), "{:?}", steer.errors());
    let v = state(&app, hunter).current.velocity.length();
    assert!(v < 0.05, "the hunter drifts to a stop (drag 1/s): {v} m/s");
}

/// A goal that is an entity is followed as it moves; a Transform the game sets is a teleport.
#[test]
fn goals_follow_entities_and_teleports_are_honoured() {
    let mut app = app2d(CrowdConfig::new(2.0));
    let marker = app.world_mut().spawn(Transform::from_xyz(4.0, 0.0, 0.0)).id();
    let walker = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(arrive())),
            SteerGoal::<Vec2>::Entity(marker),
        ))
        .id();
    for _ in 0..400 {
        app.update();
    }
    assert!(state(&app, walker).current.position.distance(Vec2::new(4.0, 0.0)) < 0.1);
    app.world_mut().get_mut::<Transform>(marker).unwrap().translation = Vec3::new(4.0, 5.0, 0.0);
    for _ in 0..400 {
        app.update();
    }
    assert!(state(&app, walker).current.position.distance(Vec2::new(4.0, 5.0)) < 0.1);
    // teleport: the game moves the walker; the crowd takes it from there
    app.world_mut().get_mut::<Transform>(walker).unwrap().translation = Vec3::new(-20.0, 0.0, 0.0);
    app.update();
    let p = state(&app, walker).current.position;
    assert!(p.distance(Vec2::new(-20.0, 0.0)) < 0.1, "{p:?}");
}

/// A 3D agent arrives in 3D; the Transform carries the body's orientation.
#[test]
fn the_3d_plugin_moves_agents_in_space() {
    let mut app = App::new();
    app.add_plugins((minimal(), SteerkitPlugin3d::new(CrowdConfig::new(2.0))));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let goal = Vec3::new(3.0, 4.0, -2.0);
    let arrive3 =
        Recipe::Arrive { target: Target::Goal, arrive: Arrive::new(0.1, 2.0, 0.25).unwrap() };
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour::<Vec3>(Group::new(arrive3)),
            SteerGoal::Point(goal),
        ))
        .id();
    for _ in 0..640 {
        app.update();
    }
    let t = app.world().get::<Transform>(e).unwrap();
    assert!(t.translation.distance(goal) < 0.1, "{:?}", t.translation);
    assert!((t.rotation.length() - 1.0).abs() < 1e-4);
}

/// A wedge of six member entities follows its anchor along a line: within 0.1 m of their slots
/// while marching; a despawned member leaves and the five others take slots 0–4; the formation
/// entity's Transform moves with the anchor.
#[test]
fn formations_of_entities_hold_their_slots() {
    use bevy_steerkit::{SteerFormation, SteerFormationId};
    use steerkit::formation::{FormationManager, Pattern, ScalablePattern, Shape, SlotSteering};
    use steerkit::kinematic::Kinematic;
    use steerkit::steering::{Align, FollowPath};
    let mut app = app2d(CrowdConfig::new(2.0));
    let path = {
        let mut steer = app.world_mut().resource_mut::<SteerCrowd<Vec2>>();
        steer.crowd_mut().add_path(
            steerkit::path::Polyline::open(vec![Vec2::ZERO, Vec2::new(30.0, 0.0)]).unwrap(),
        )
    };
    let slot = SlotSteering::new(
        Arrive::new(0.02, 2.0, 0.3).unwrap(),
        Align::new(0.01, 0.5, 0.1).unwrap(),
    );
    let mut group: Group<Vec2, Entity, PathId> = Group::new(Recipe::Slot(slot));
    group.face_motion = false;
    let members: Vec<Entity> = (0..6)
        .map(|k| {
            app.world_mut()
                .spawn((
                    SteerAgent::new(0.3, Limits::new(3.0, 6.0, 4.0, 20.0).unwrap()),
                    SteerBehaviour(group.clone()),
                    Transform::from_xyz(-2.0 + k as f32 * 0.8, (k % 2) as f32 * 1.5, 0.0),
                ))
                .id()
        })
        .collect();
    let pattern = ScalablePattern::new(Shape::Wedge, 2.0).unwrap();
    let anchor =
        Kinematic { position: Vec2::ZERO, orientation: 0.0, velocity: Vec2::ZERO, rotation: 0.0 };
    let manager = FormationManager::new(
        Pattern::from(pattern),
        anchor,
        Limits::new(1.0, 1.0, 4.0, 20.0).unwrap(),
    );
    let follow =
        FollowPath::new(1.0).unwrap().arriving_at_end(Arrive::new(0.05, 3.0, 0.5).unwrap());
    let squad = app
        .world_mut()
        .spawn(SteerFormation {
            manager,
            members: members.clone(),
            anchor: Recipe::FollowPath { path, follow },
        })
        .id();
    let worst = |app: &App, ms: &[Entity]| {
        let steer = app.world().resource::<SteerCrowd<Vec2>>();
        ms.iter()
            .map(|&m| {
                let h = steer.handle(m).unwrap();
                let t = steer.crowd().slot_target(h).unwrap();
                state(app, m).current.position.distance(t.position)
            })
            .fold(0.0, f32::max)
    };
    for _ in 0..(15 * 64) {
        app.update();
    }
    let marching = worst(&app, &members);
    assert!(marching < 0.1, "while marching: {marching} m from the slot");
    let anchor_x = app.world().get::<Transform>(squad).unwrap().translation.x;
    assert!(anchor_x > 10.0, "the formation entity moves with the anchor: x = {anchor_x}");
    assert!(app.world().get::<SteerFormationId>(squad).is_some());
    app.world_mut().despawn(members[0]);
    for _ in 0..(25 * 64) {
        app.update();
    }
    let rest = &members[1..];
    let steer = app.world().resource::<SteerCrowd<Vec2>>();
    let id = app.world().get::<SteerFormationId>(squad).unwrap().0;
    let mut slots: Vec<usize> = rest
        .iter()
        .map(|&m| {
            steer.crowd().formation(id).unwrap().slot_of(steer.handle(m).unwrap().index).unwrap()
        })
        .collect();
    slots.sort_unstable();
    assert_eq!(slots, vec![0, 1, 2, 3, 4]);
    assert!(worst(&app, rest) < 0.1);
    assert!(steer.errors().is_empty(), "{:?}", steer.errors());
}

fn avoiding_arrive() -> Recipe<Vec2, Entity, PathId> {
    use steerkit::steering::{ObstacleAvoidance, RayLayout};
    let avoid = ObstacleAvoidance::new(RayLayout::Fan { half_angle: 0.5, rays: 7 }, 2.5, 3.0)
        .unwrap()
        .with_lookahead_time(1.0)
        .unwrap();
    Recipe::Priority {
        groups: vec![Recipe::ObstacleAvoidance(avoid), arrive()],
        epsilon: steerkit::combine::Epsilon::new(0.01).unwrap(),
    }
}

/// A disc given at the origin of an obstacle entity placed at (5, 0.2) by its `Transform`
/// stands in the way of an agent arriving at (10, 0): it steers round it (its centre keeps
/// more than the 1 m disc plus its 0.3 m body from the disc's centre, measured 1.6 m) and
/// arrives. Moving the obstacle entity onto the goal moves the disc; despawning it clears the
/// world.
#[test]
fn obstacle_entities_are_the_crowds_world_placed_by_their_transforms() {
    use bevy_steerkit::SteerObstacle;
    use steerkit::geometry::{Circle, Obstacle};
    let mut app = app2d(CrowdConfig::new(2.0));
    let disc = app
        .world_mut()
        .spawn((
            SteerObstacle::<Vec2>(Obstacle::Circle(Circle::new(Vec2::ZERO, 1.0))),
            Transform::from_xyz(5.0, 0.2, 0.0),
        ))
        .id();
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(avoiding_arrive())),
            SteerGoal::Point(Vec2::new(10.0, 0.0)),
        ))
        .id();
    let centre = Vec2::new(5.0, 0.2);
    let mut clearance = f32::INFINITY;
    app.update(); // the first update has no fixed step
    for _ in 0..640 {
        app.update();
        clearance = clearance.min(state(&app, e).current.position.distance(centre));
    }
    eprintln!("closest approach to the disc's centre {clearance}");
    assert!(clearance > 1.3, "the body touched the disc: {clearance}");
    assert!(state(&app, e).current.position.distance(Vec2::new(10.0, 0.0)) < 0.1);
    let world = |app: &App| {
        app.world()
            .resource::<SteerCrowd<Vec2>>()
            .crowd()
            .obstacles()
            .map(|o| o.obstacles().to_vec())
    };
    assert_eq!(world(&app), Some(vec![Obstacle::Circle(Circle::new(centre, 1.0))]));
    // moved: the disc follows its entity
    app.world_mut().get_mut::<Transform>(disc).unwrap().translation =
        bevy_math::Vec3::new(-3.0, 1.0, 0.0);
    app.update();
    assert_eq!(world(&app), Some(vec![Obstacle::Circle(Circle::new(Vec2::new(-3.0, 1.0), 1.0))]));
    // gone: an empty world
    app.world_mut().despawn(disc);
    app.update();
    assert_eq!(world(&app), Some(vec![]));
    assert!(app.world().resource::<SteerCrowd<Vec2>>().errors().is_empty());
}

/// A wall entity turned a quarter turn lies along y; a turned box becomes a polygon; a scaled
/// obstacle is refused with the reason, and the rest of the world stands.
#[test]
fn obstacle_transforms_turn_walls_and_boxes_and_refuse_scale() {
    use bevy_steerkit::SteerObstacle;
    use steerkit::geometry::{Aabb, Obstacle, Segment};
    let mut app = app2d(CrowdConfig::new(2.0));
    let quarter = Transform::from_xyz(1.0, 2.0, 0.0)
        .with_rotation(bevy_math::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
    let wall = Obstacle::Wall(Segment::new(Vec2::ZERO, Vec2::new(4.0, 0.0)));
    app.world_mut().spawn((SteerObstacle::<Vec2>(wall), quarter));
    let bx = Obstacle::Box(Aabb::new(Vec2::new(-1.0, -0.5), Vec2::new(1.0, 0.5)));
    app.world_mut().spawn((SteerObstacle::<Vec2>(bx.clone()), quarter));
    app.world_mut()
        .spawn((SteerObstacle::<Vec2>(bx), Transform::from_scale(bevy_math::Vec3::splat(2.0))));
    app.update();
    app.update(); // the first update has no fixed step
    let steer = app.world().resource::<SteerCrowd<Vec2>>();
    let obstacles = steer.crowd().obstacles().unwrap().obstacles();
    assert_eq!(obstacles.len(), 2, "the scaled one is left out");
    let w = obstacles.iter().find_map(|o| if let Obstacle::Wall(w) = o { Some(*w) } else { None });
    let w = w.expect("a wall");
    assert!(w.a.distance(Vec2::new(1.0, 2.0)) < 1e-6 && w.b.distance(Vec2::new(1.0, 6.0)) < 1e-5);
    let p =
        obstacles.iter().find_map(|o| if let Obstacle::Polygon(p) = o { Some(p) } else { None });
    let p = p.expect("a polygon");
    // the 2 × 1 box turned upright round (1, 2): x in [0.5, 1.5], y in [1, 3]
    let b = p.aabb();
    assert!(
        b.min.distance(Vec2::new(0.5, 1.0)) < 1e-5 && b.max.distance(Vec2::new(1.5, 3.0)) < 1e-5,
        "{b:?}"
    );
    assert_eq!(steer.errors().len(), 1);
    assert!(steer.errors()[0].contains("scale"), "{}", steer.errors()[0]);
}

/// In a wrap-around world the drawn body is interpolated between the last two steps, but a
/// step across the seam is drawn at its end: the Transform never sweeps across the world.
/// (With one fixed step per update the overstep is 0, so a normal step is drawn at its start.)
#[test]
fn crossing_the_seam_of_a_wrap_around_world_is_not_swept_across() {
    use steerkit::crowd::WorldBounds;
    let bounds = WorldBounds::Toroidal { min: Vec2::splat(-10.0), max: Vec2::splat(10.0) };
    let mut app = app2d(CrowdConfig::new(2.0).with_bounds(bounds));
    let matching = steerkit::steering::VelocityMatch::new(0.1).unwrap();
    let recipe = Recipe::VelocityMatch { velocity: Vec2::new(2.0, 0.0), matching };
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(recipe)),
            Transform::from_xyz(9.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    let mut seen = Vec::new();
    for _ in 0..200 {
        app.update();
        let s = state(&app, e);
        let drawn = app.world().get::<Transform>(e).unwrap().translation.x;
        seen.push((s.previous.position.x, s.current.position.x, drawn));
    }
    let crossings: Vec<_> = seen.iter().filter(|(p, c, _)| (c - p).abs() > 10.0).collect();
    assert!(!crossings.is_empty(), "it crosses x = 10 and wraps: {seen:?}");
    for (p, c, drawn) in &seen {
        let expected = if (c - p).abs() > 10.0 { c } else { p };
        assert_eq!(drawn, expected);
    }
}

/// A behaviour of the game's own, in plain Rust: registered on the crowd and named by
/// `Recipe::Custom` in an entity's behaviour, blended with a built-in leaf. "Keep 3 m above
/// the ground line y = 0": from rest at y = 0 it rises and settles at 3 m (within 0.1 m after
/// 10 s) while seeking along x.
#[test]
fn a_games_own_behaviour_runs_in_the_plugin() {
    use steerkit::crowd::{AgentContext, CustomBehaviour};
    use steerkit::kinematic::SteeringOutput;
    struct Hover;
    impl CustomBehaviour for Hover {
        fn steer(&self, agent: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
            let k = agent.kinematic();
            // a critically damped spring toward y = 3 (ω = 2 /s), m/s²
            let ay = 4.0 * (3.0 - k.position.y) - 4.0 * k.velocity.y;
            Some(SteeringOutput::linear(Vec2::new(0.0, ay)))
        }
    }
    let mut app = app2d(CrowdConfig::new(2.0));
    let hover = app.world_mut().resource_mut::<SteerCrowd<Vec2>>().crowd_mut().add_behaviour(Hover);
    let seek = steerkit::steering::Seek::new();
    let recipe = Recipe::Blend(vec![
        (1.0, Recipe::Custom(hover)),
        (0.1, Recipe::Seek { target: Target::Point(Vec2::new(100.0, 0.0)), seek }),
    ]);
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(recipe)),
            Transform::default(),
        ))
        .id();
    app.update();
    for _ in 0..640 {
        app.update();
    }
    let p = state(&app, e).current.position;
    assert!((p.y - 3.0).abs() < 0.1, "hovering at {p:?}");
    assert!(p.x > 5.0, "and moving along x: {p:?}");
}

/// A scenario file in the plugin: `obstacle_field` (2D, with its discs) and `flock3d` (3D) run
/// through `spawn_scenario` give the states of the file's own crowd stepped bare, bit for bit,
/// over 300 fixed steps of the file's time step; the obstacles are entities.
#[test]
fn scenario_files_run_in_the_plugin_as_in_the_bare_crowd() {
    use bevy_steerkit::scenario::{spawn_scenario, ScenarioAgent};
    use bevy_time::{Fixed, Time};
    use std::time::Duration;
    use steerkit_scenario::Scenario;

    fn check<V: bevy_steerkit::Space + steerkit_scenario::Dim>(name: &str, app: &mut App) {
        let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let file = Scenario::load(&path).unwrap();
        let spawned = spawn_scenario::<V>(app.world_mut(), &file).unwrap();
        let step = Duration::from_secs_f64(f64::from(spawned.dt));
        app.insert_resource(Time::<Fixed>::from_duration(step));
        let mut bare = file.build_in::<V>().unwrap().crowd;
        app.update();
        for _ in 0..300 {
            app.update();
            bare.step(step.as_secs_f32()).unwrap();
        }
        let steer = app.world().resource::<SteerCrowd<V>>();
        let mut n = 0;
        for (g, (_, _, entities)) in spawned.groups.iter().enumerate() {
            for (i, &e) in entities.iter().enumerate() {
                let h = steer.handle(e).unwrap();
                assert_eq!(
                    steer.crowd().kinematic(h),
                    bare.kinematic(h),
                    "{name}: group {g} agent {i}"
                );
                let tag = app.world().get::<ScenarioAgent>(e).unwrap();
                assert_eq!(tag.index, i);
                n += 1;
            }
        }
        assert_eq!(n, bare.len(), "{name}: every agent is an entity");
        let count = |c: &steerkit::crowd::Crowd<V>| c.obstacles().map_or(0, |o| V::shapes(o).len());
        assert!(count(&bare) > 0, "{name} has obstacles");
        assert_eq!(spawned.obstacles.len(), count(&bare), "{name}: one entity per obstacle");
        assert_eq!(count(steer.crowd()), count(&bare), "{name}: the world rebuilt from them");
    }
    let mut app = app2d(CrowdConfig::new(1.0));
    check::<Vec2>("obstacle_field", &mut app);
    let mut app3 = App::new();
    app3.add_plugins((minimal(), SteerkitPlugin3d::new(CrowdConfig::new(1.0))));
    app3.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    check::<Vec3>("flock3d", &mut app3);
}

/// The plugin steps a scenario's one simulation, not only its crowd: `platforms` (a side view
/// whose jumpers run, jump and land) and `grenade_dodge` (3D turrets whose grenades' predicted
/// blasts the walkers dodge) give, over 300 fixed steps, the states `Simulation::step_by` gives
/// with the same time step, bit for bit, and `grenade_dodge` differs from its bare crowd (the
/// turrets act).
#[test]
fn scenario_files_run_in_the_plugin_as_their_simulation_steps_them() {
    use bevy_steerkit::scenario::spawn_scenario;
    use bevy_time::{Fixed, Time};
    use std::time::Duration;
    use steerkit_scenario::{Outputs, Scenario, Simulation};

    fn check<V: bevy_steerkit::Space + steerkit_scenario::Dim>(name: &str, app: &mut App) -> bool {
        let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let file = Scenario::load(&path).unwrap();
        let spawned = spawn_scenario::<V>(app.world_mut(), &file).unwrap();
        let step = Duration::from_secs_f64(f64::from(spawned.dt));
        app.insert_resource(Time::<Fixed>::from_duration(step));
        let mut sim = Simulation::<V>::new(&file, Outputs::default()).unwrap();
        let mut bare = file.build_in::<V>().unwrap().crowd;
        app.update();
        for _ in 0..300 {
            app.update();
            sim.step_by(step.as_secs_f32(), |_, _| {}).unwrap();
            bare.step(step.as_secs_f32()).unwrap();
        }
        let steer = app.world().resource::<SteerCrowd<V>>();
        let mut differs = false;
        for (g, (_, _, entities)) in spawned.groups.iter().enumerate() {
            for (i, &e) in entities.iter().enumerate() {
                let h = steer.handle(e).unwrap();
                let k = steer.crowd().kinematic(h);
                assert_eq!(k, sim.crowd().kinematic(h), "{name}: group {g} agent {i}");
                differs |= k != bare.kinematic(h);
            }
        }
        differs
    }
    let mut app = app2d(CrowdConfig::new(1.0));
    check::<Vec2>("platforms", &mut app);
    let mut app3 = App::new();
    app3.add_plugins((minimal(), SteerkitPlugin3d::new(CrowdConfig::new(1.0))));
    app3.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    assert!(check::<Vec3>("grenade_dodge", &mut app3), "the turrets change the run");
}

/// A 3D file for a 2D plugin, and a file for a crowd that already has agents: one-line errors
/// naming the field, and nothing spawned.
#[test]
fn a_scenario_that_cannot_be_taken_is_refused_with_the_reason() {
    use bevy_steerkit::scenario::spawn_scenario;
    use steerkit_scenario::Scenario;
    let dir = format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut app = app2d(CrowdConfig::new(1.0));
    let flock3d = Scenario::load(format!("{dir}/flock3d.toml")).unwrap();
    let e = spawn_scenario::<Vec2>(app.world_mut(), &flock3d).unwrap_err().to_string();
    assert!(e.contains("dimensions") && e.contains("3D, not 2D") && !e.contains('\n'), "{e}");
    app.world_mut().spawn((SteerAgent::new(0.3, limits()), Transform::default()));
    app.update();
    app.update();
    let crossing = Scenario::load(format!("{dir}/crossing.toml")).unwrap();
    let e = spawn_scenario::<Vec2>(app.world_mut(), &crossing).unwrap_err().to_string();
    assert!(e.contains("world") && e.contains("must be empty"), "{e}");
    assert_eq!(app.world().resource::<SteerCrowd<Vec2>>().crowd().len(), 1);
}
