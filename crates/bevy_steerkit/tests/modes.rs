//! How the game runs the plugin: in a schedule of its choice, with bodies it moves itself
//! (desired velocities), with `SteerState` from the step an agent joins, and with agents that
//! leave the crowd on arrival. Headless, Bevy's minimal plugins.

use bevy_app::{App, FixedPostUpdate, FixedUpdate, ScheduleRunnerPlugin, TaskPoolPlugin, Update};
use bevy_diagnostic::FrameCountPlugin;
use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use bevy_math::Vec2;
use bevy_steerkit::prelude::*;
use bevy_time::{Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use std::time::Duration;
use steerkit::crowd::{AgentSpec, Crowd2, PathId};

const DT: f32 = 1.0 / 64.0;

fn app_with(plugin: SteerkitPlugin2d, strategy: TimeUpdateStrategy) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        FrameCountPlugin,
        TimePlugin,
        ScheduleRunnerPlugin::default(),
        plugin,
    ));
    app.insert_resource(strategy);
    app
}

fn app2d() -> App {
    app_with(SteerkitPlugin2d::new(CrowdConfig::new(2.0)), TimeUpdateStrategy::FixedTimesteps(1))
}

fn limits() -> Limits {
    Limits::new(2.0, 4.0, 4.0, 20.0).unwrap()
}

fn arrive() -> Recipe<Vec2, Entity, PathId> {
    Recipe::Arrive { target: Target::Goal, arrive: Arrive::new(0.1, 2.0, 0.25).unwrap() }
}

fn walker(goal: Vec2) -> (SteerAgent, SteerBehaviour2d, SteerGoal2d) {
    (SteerAgent::new(0.3, limits()), SteerBehaviour2d::new(arrive()), SteerGoal2d::Point(goal))
}

fn state(app: &App, e: Entity) -> SteerState2d {
    *app.world().get::<SteerState2d>(e).expect("an agent")
}

fn steer(app: &App) -> &SteerCrowd2d {
    app.world().resource::<SteerCrowd2d>()
}

/// True when a message is about `e`.
fn names(m: &SteerMessage, e: Entity) -> bool {
    match m {
        SteerMessage::Arrived(x)
        | SteerMessage::PathFinished(x)
        | SteerMessage::Stuck(x)
        | SteerMessage::ObstacleContact(x)
        | SteerMessage::WallContact(x)
        | SteerMessage::Quarantined(x)
        | SteerMessage::GoalLost(x)
        | SteerMessage::GoalUnreachable(x)
        | SteerMessage::Rejected { entity: x, .. } => *x == e,
        SteerMessage::Collision(a, b) => *a == e || *b == e,
    }
}

fn sent(app: &App) -> Vec<SteerMessage> {
    app.world()
        .resource::<Messages<SteerMessage>>()
        .iter_current_update_messages()
        .cloned()
        .collect()
}

/// Three walkers from a ring to the far side, as entities and as a bare crowd stepped by `dt`.
fn starts() -> Vec<(Vec2, Vec2)> {
    (0..3)
        .map(|k| {
            let a = k as f32 * 2.1;
            (Vec2::from_angle(a) * 6.0, Vec2::from_angle(a + 3.0) * 6.0)
        })
        .collect()
}

fn spawn_walkers(app: &mut App) -> Vec<Entity> {
    let spawn = |app: &mut App, (p, g): (Vec2, Vec2)| {
        app.world_mut().spawn((walker(g), Transform::from_translation(p.extend(0.0)))).id()
    };
    starts().into_iter().map(|s| spawn(app, s)).collect()
}

fn bare_walkers() -> (Crowd2, Vec<steerkit::crowd::AgentHandle>) {
    let mut bare = Crowd2::new(CrowdConfig::new(2.0)).unwrap();
    let _idle = bare.add_group(Group::new(Recipe::Blend(Vec::new()))).unwrap();
    let g = bare.add_group(Group::new(arrive()).map_refs(&|_| unreachable!(), &|p| *p)).unwrap();
    let handles = starts()
        .into_iter()
        .map(|(p, goal)| {
            let spec = AgentSpec { goal: Some(goal), ..AgentSpec::new(p, 0.3, limits(), g) };
            bare.spawn(spec).unwrap()
        })
        .collect();
    (bare, handles)
}

fn same_states(
    app: &App,
    entities: &[Entity],
    bare: &Crowd2,
    handles: &[steerkit::crowd::AgentHandle],
) {
    for (e, h) in entities.iter().zip(handles) {
        assert_eq!(state(app, *e).current, bare.kinematic(*h).unwrap());
    }
}

/// `in_schedule(FixedPostUpdate)`: three walkers step there as the bare crowd steps them, bit
/// for bit over 600 fixed steps, and reach their goals; the `Transform`s are still
/// interpolated by the fixed clock (one fixed step per update: drawn at the step's start).
#[test]
fn the_plugin_steps_in_fixed_post_update() {
    let plugin = SteerkitPlugin2d::new(CrowdConfig::new(2.0)).in_schedule(FixedPostUpdate);
    let mut app = app_with(plugin, TimeUpdateStrategy::FixedTimesteps(1));
    app.update(); // Bevy's clock starts: no fixed step
    let entities = spawn_walkers(&mut app);
    let (mut bare, handles) = bare_walkers();
    for _ in 0..600 {
        app.update();
        bare.step(DT).unwrap();
        for &e in &entities {
            let drawn = app.world().get::<Transform>(e).unwrap().translation.truncate();
            assert_eq!(drawn, state(&app, e).previous.position, "interpolated, overstep 0");
        }
    }
    same_states(&app, &entities, &bare, &handles);
    for (e, (_, goal)) in entities.iter().zip(starts()) {
        assert!(state(&app, *e).current.position.distance(goal) < 0.15);
    }
}

/// `in_schedule(Update)` with a frame time of 1/64 s: one step per frame with the frame's
/// time as `dt`, bit for bit the bare crowd's over 600 frames, and each `Transform` shows the
/// latest step (no fixed clock to interpolate by).
#[test]
fn the_plugin_steps_in_update_with_the_frame_time() {
    let plugin = SteerkitPlugin2d::new(CrowdConfig::new(2.0)).in_schedule(Update);
    let strategy = TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(DT));
    let mut app = app_with(plugin, strategy);
    app.update(); // Bevy's clock starts: a frame of 0 s
    let entities = spawn_walkers(&mut app);
    let (mut bare, handles) = bare_walkers();
    for _ in 0..600 {
        app.update();
        assert_eq!(app.world().resource::<Time>().delta_secs(), DT);
        bare.step(DT).unwrap();
        for &e in &entities {
            let drawn = app.world().get::<Transform>(e).unwrap().translation.truncate();
            assert_eq!(drawn, state(&app, e).current.position, "the latest step");
        }
    }
    same_states(&app, &entities, &bare, &handles);
    for (e, (_, goal)) in entities.iter().zip(starts()) {
        assert!(state(&app, *e).current.position.distance(goal) < 0.15);
    }
}

/// The game's own movement rules: at most 1 m/s, and never below y = 0 (a floor).
const GAME_SPEED: f32 = 1.0;

/// What the game wrote to each body's `Transform` last, and the fastest it moved one.
#[derive(Resource, Default)]
struct Physics {
    written: Vec<(Entity, Transform)>,
    fastest: f32,
    fastest_desired: f32,
}

/// The game's physics, after the plugin's step: each game-moved body moves by its desired
/// velocity capped at 1 m/s and kept above the floor; bodies with a `SteerVelocity` get the
/// velocity they moved with reported.
fn physics(
    time: Res<Time>,
    mut log: ResMut<Physics>,
    mut bodies: Query<(
        Entity,
        &SteerDesiredVelocity2d,
        &mut Transform,
        Option<&mut SteerVelocity2d>,
    )>,
) {
    let dt = time.delta_secs();
    for (e, desired, mut t, reported) in &mut bodies {
        let v = desired.0.clamp_length_max(GAME_SPEED);
        let mut p = t.translation.truncate() + v * dt;
        p.y = p.y.max(0.0);
        let moved = (p - t.translation.truncate()) / dt;
        t.translation = p.extend(t.translation.z);
        if let Some(mut r) = reported {
            r.0 = moved;
        }
        log.fastest = log.fastest.max(moved.length());
        log.fastest_desired = log.fastest_desired.max(desired.0.length());
        log.written.retain(|(w, _)| *w != e);
        log.written.push((e, *t));
    }
}

/// Two game-moved walkers (one reporting its velocity, one estimated from its motion) from
/// (0, 1) to (4, -2) under the game's rules (1 m/s, a floor at y = 0): the plugin wants 2 m/s,
/// the game moves at 1 m/s, and both end within 0.15 m of (4, 0), the nearest they may come,
/// within 12 s; every `Transform` is the game's, and the crowd takes the game's motion back.
#[test]
fn game_moved_agents_follow_their_desired_velocity_under_the_games_rules() {
    let mut app = app2d();
    app.init_resource::<Physics>();
    app.add_systems(FixedUpdate, physics.after(SteerSystems::Step));
    let goal = Vec2::new(4.0, -2.0);
    let at = Transform::from_xyz(0.0, 1.0, 3.0);
    let reporting = app
        .world_mut()
        .spawn((walker(goal), at, SteerDesiredVelocity2d::default(), SteerVelocity2d::default()))
        .id();
    let estimated =
        app.world_mut().spawn((walker(goal), at, SteerDesiredVelocity2d::default())).id();
    let mut read_back = Vec::new();
    for frame in 0..(12 * 64) {
        app.update();
        if frame == 1 {
            // published in the step the agents joined
            let desired = app.world().get::<SteerDesiredVelocity2d>(estimated).unwrap().0;
            assert!(desired.length() > 0.0, "{desired:?}");
        }
        for (e, t) in &app.world().resource::<Physics>().written {
            assert_eq!(app.world().get::<Transform>(*e), Some(t), "frame {frame}: the game's");
        }
        if frame == 64 {
            // the state the crowd stepped from is the game's: its velocity, 1 m/s
            read_back = [reporting, estimated].map(|e| state(&app, e).previous.velocity).to_vec();
        }
    }
    let log = app.world().resource::<Physics>();
    assert!(log.fastest <= GAME_SPEED + 1e-4, "the game's cap: {}", log.fastest);
    let wanted = log.fastest_desired;
    assert!(wanted > GAME_SPEED + 0.05, "the plugin wanted more: {wanted}");
    for v in read_back {
        assert!((v.length() - GAME_SPEED).abs() < 1e-3, "read back {v:?}");
    }
    for e in [reporting, estimated] {
        let t = app.world().get::<Transform>(e).unwrap();
        assert!(t.translation.truncate().distance(Vec2::new(4.0, 0.0)) < 0.15, "{t:?}");
        assert_eq!(t.translation.z, 3.0);
    }
    assert!(steer(&app).errors().is_empty(), "{:?}", steer(&app).errors());
}

#[derive(Resource, Default)]
struct Seen {
    spawned: Option<Entity>,
    /// In the fixed step that spawned it, after the plugin's step: its state and the crowd's.
    after_step: Option<(SteerState2d, steerkit::kinematic::Kinematic<Vec2>)>,
    /// In `Update` of that frame.
    in_update: bool,
}

/// The game spawns an agent at (1, 2) in `FixedUpdate` before the plugin's step, on frame 5.
fn spawner(
    frame: Res<bevy_diagnostic::FrameCount>,
    mut seen: ResMut<Seen>,
    mut commands: Commands,
) {
    if frame.0 == 5 {
        let e = commands.spawn((walker(Vec2::new(9.0, 2.0)), Transform::from_xyz(1.0, 2.0, 0.0)));
        seen.spawned = Some(e.id());
    }
}

fn after_step(mut seen: ResMut<Seen>, steer: Res<SteerCrowd2d>, states: Query<&SteerState2d>) {
    let Some(e) = seen.spawned else { return };
    if seen.after_step.is_none() {
        let s = states.get(e).expect("a SteerState in the step the agent joined");
        seen.after_step = Some((*s, steer.crowd().kinematic(s.handle()).unwrap()));
    }
}

fn in_update(mut seen: ResMut<Seen>, states: Query<&SteerState2d>) {
    if let Some(e) = seen.spawned {
        seen.in_update |= states.contains(e);
    }
}

/// `SteerState` from the step an agent joins: an agent spawned by the game in `FixedUpdate`
/// before the plugin's step has it after that step (its `previous` the spawn point, its
/// `current` the crowd's state, setting off from there), and in `Update` of the same frame; one
/// spawned from outside has it after the first update that steps.
#[test]
fn steer_state_is_there_from_the_step_the_agent_joins() {
    let mut app = app2d();
    app.init_resource::<Seen>();
    app.add_systems(
        FixedUpdate,
        (spawner.before(SteerSystems::Step), after_step.after(SteerSystems::Step)),
    );
    app.add_systems(Update, in_update);
    let outside = app.world_mut().spawn((walker(Vec2::new(-9.0, 0.0)), Transform::default())).id();
    app.update(); // no fixed step: nobody joined
    assert!(app.world().get::<SteerState2d>(outside).is_none());
    app.update();
    let s = state(&app, outside);
    assert_eq!(s.previous.position, Vec2::ZERO);
    assert_eq!(s.current, steer(&app).crowd().kinematic(s.handle()).unwrap());
    assert!(s.current.velocity.x < 0.0, "it set off in that step: {s:?}");
    for _ in 0..6 {
        app.update();
    }
    let seen = app.world().resource::<Seen>();
    let (s, crowd) = seen.after_step.expect("spawned and seen");
    assert_eq!(s.previous.position, Vec2::new(1.0, 2.0));
    assert_eq!(s.current, crowd);
    assert!(s.current.velocity.x > 0.0, "set off in its first step: {s:?}");
    assert!(seen.in_update, "and in Update of that frame");
}

/// An arriving walker whose behaviour has `remove_on_arrival`: the step it arrives in sends
/// `Arrived`, and then it is out of the crowd (a second walker stays) while its entity stays,
/// drawn where it arrived, without `SteerAgent` or `SteerState`; its behaviour group is free
/// for the next new behaviour; 100 more steps send nothing about it and refuse nothing. Given
/// a `SteerAgent` and a new goal it joins again.
#[test]
fn an_agent_removed_on_arrival_keeps_its_entity_and_leaves_the_crowd() {
    let mut app = app2d();
    let mut leaving = Group::new(arrive());
    leaving.remove_on_arrival = true;
    let goal = Vec2::new(3.0, 0.0);
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour2d::from(leaving),
            SteerGoal2d::Point(goal),
        ))
        .id();
    let stays = app
        .world_mut()
        .spawn((walker(Vec2::new(0.0, 30.0)), Transform::from_xyz(0.0, -3.0, 0.0)))
        .id();
    let mut arrived = None;
    for frame in 0..(6 * 64) {
        app.update();
        if sent(&app).contains(&SteerMessage::Arrived(e)) {
            arrived = Some(frame);
            break;
        }
    }
    assert!(arrived.is_some(), "an Arrived message");
    let world = app.world();
    assert!(world.get::<SteerAgent>(e).is_none() && world.get::<SteerState2d>(e).is_none());
    assert!(world.get::<SteerBehaviour2d>(e).is_some(), "its other components stay");
    let at = world.get::<Transform>(e).unwrap().translation.truncate();
    assert!(at.distance(goal) < 0.5, "drawn where it arrived: {at:?}");
    assert_eq!(steer(&app).handle(e), None);
    assert_eq!(steer(&app).crowd().len(), 1);
    let seek = Recipe::Seek { target: Target::Point(Vec2::new(-5.0, 0.0)), seek: Seek::new() };
    let other =
        app.world_mut().spawn((SteerAgent::new(0.3, limits()), SteerBehaviour2d::new(seek))).id();
    for _ in 0..100 {
        app.update();
        assert!(!sent(&app).iter().any(|m| names(m, e)), "{:?}", sent(&app));
    }
    let s = steer(&app);
    assert_eq!(s.behaviour_groups(), 2, "the leaver's group was reused");
    assert!(s.handle(other).is_some() && s.handle(stays).is_some());
    assert!(s.errors().is_empty(), "{:?}", s.errors());
    app.world_mut()
        .entity_mut(e)
        .insert((SteerAgent::new(0.3, limits()), SteerGoal2d::Point(Vec2::new(-3.0, 0.0))));
    app.update();
    assert!(steer(&app).handle(e).is_some(), "back in the crowd");
    assert_eq!(state(&app, e).previous.position, at);
}
