//! Components stay live and nothing grows without bound: changes made by the game after spawn
//! reach the crowd at the next step. Headless, Bevy's minimal plugins, one fixed step per
//! update.

use bevy_app::{App, ScheduleRunnerPlugin, TaskPoolPlugin};
use bevy_diagnostic::FrameCountPlugin;
use bevy_ecs::prelude::*;
use bevy_math::Vec2;
use bevy_steerkit::{
    SteerAgent, SteerBehaviour, SteerCrowd, SteerGoal, SteerState, SteerkitPlugin2d,
};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use steerkit::crowd::{Crowd, CrowdConfig, Group, GroupId, PathId, Recipe, Target};
use steerkit::kinematic::Limits;
use steerkit::steering::{Arrive, Seek, VelocityMatch};

fn app2d() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        FrameCountPlugin,
        TimePlugin,
        ScheduleRunnerPlugin::default(),
        SteerkitPlugin2d::new(CrowdConfig::new(2.0)),
    ));
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

fn steer(app: &App) -> &SteerCrowd<Vec2> {
    app.world().resource::<SteerCrowd<Vec2>>()
}

/// The number of groups registered in a crowd (ids are dense from 0).
fn crowd_groups(crowd: &Crowd<Vec2>) -> usize {
    (0..=u16::MAX).take_while(|&i| crowd.group(GroupId(i)).is_some()).count()
}

fn seek_at(x: f32) -> SteerBehaviour<Vec2> {
    SteerBehaviour(Group::new(Recipe::Seek {
        target: Target::Point(Vec2::new(x, 0.0)),
        seek: Seek::new(),
    }))
}

/// A seek re-aimed at a new point every frame, 100 000 frames (past the crowd's 65 536-group
/// limit that a group per change would hit), beside a second agent with a fixed behaviour:
/// the crowd's group count stays flat at the idle group plus at most two for each live
/// behaviour, the re-aimed agent is never refused and keeps moving.
#[test]
fn re_aiming_a_seek_every_frame_keeps_the_group_count_flat() {
    let mut app = app2d();
    let e = app.world_mut().spawn((SteerAgent::new(0.3, limits()), seek_at(0.0))).id();
    app.world_mut().spawn((
        SteerAgent::new(0.3, limits()),
        SteerBehaviour(Group::new(arrive())),
        SteerGoal::Point(Vec2::new(5.0, 5.0)),
    ));
    let mut counts = Vec::new();
    for frame in 0..100_000u32 {
        // a target that changes every frame, back and forth along x
        let x = 10.0 * ((frame % 400) as f32 / 200.0 - 1.0) + frame as f32 * 1e-6;
        *app.world_mut().get_mut::<SteerBehaviour<Vec2>>(e).unwrap() = seek_at(x);
        app.update();
        if frame % 10_000 == 9_999 {
            let s = steer(&app);
            counts.push((crowd_groups(s.crowd()), s.behaviour_groups()));
        }
    }
    eprintln!("(crowd groups, behaviour groups) every 10 000 frames: {counts:?}");
    assert!(counts.iter().all(|&c| c == counts[0]), "flat: {counts:?}");
    assert!(counts[0].0 <= 1 + 2 * 2, "idle + at most 2 per live behaviour: {counts:?}");
    let s = steer(&app);
    assert!(s.errors().is_empty(), "{:?}", s.errors());
    assert_eq!(s.crowd().len(), 2, "no agent refused");
    assert!(state(&app, e).current.velocity.length() > 0.1, "still steering");
}

fn seeker(x: f32, max_speed: f32) -> (SteerAgent, SteerBehaviour<Vec2>) {
    (SteerAgent::new(0.3, Limits::new(max_speed, 4.0, 4.0, 20.0).unwrap()), seek_at(x))
}

/// A seeker at 2 m/s gets a 0.5 m/s limit and a 0.8 m body at run time: within a second it
/// moves at 0.5 m/s and the crowd's radius is 0.8 m.
#[test]
fn an_agents_limits_and_radius_changed_at_run_time_apply() {
    let mut app = app2d();
    let e = app.world_mut().spawn(seeker(1000.0, 2.0)).id();
    for _ in 0..192 {
        app.update();
    }
    let speed = |app: &App| state(app, e).current.velocity.length();
    assert!((speed(&app) - 2.0).abs() < 1e-3, "{}", speed(&app));
    let slow = SteerAgent::new(0.8, Limits::new(0.5, 4.0, 4.0, 20.0).unwrap());
    *app.world_mut().get_mut::<SteerAgent>(e).unwrap() = slow;
    for _ in 0..64 {
        app.update();
    }
    assert!((speed(&app) - 0.5).abs() < 1e-3, "{}", speed(&app));
    let s = steer(&app);
    let h = s.handle(e).unwrap();
    assert_eq!(s.crowd().radius(h), Some(0.8));
    assert_eq!(s.crowd().limits(h), Some(slow.limits));
}

/// Removing `SteerGoal` clears the agent's goal at the next step, as `SteerGoal::None` does;
/// a goal given again is taken again.
#[test]
fn removing_the_goal_or_setting_none_clears_it() {
    let mut app = app2d();
    let e = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(arrive())),
            SteerGoal::Point(Vec2::new(5.0, 0.0)),
        ))
        .id();
    let goal = |app: &App| steer(app).crowd().goal(steer(app).handle(e).unwrap());
    app.update();
    app.update();
    assert_eq!(goal(&app), Some(Vec2::new(5.0, 0.0)));
    app.world_mut().entity_mut(e).remove::<SteerGoal<Vec2>>();
    app.update();
    assert_eq!(goal(&app), None, "removed");
    app.world_mut().entity_mut(e).insert(SteerGoal::Point(Vec2::new(-5.0, 0.0)));
    app.update();
    assert_eq!(goal(&app), Some(Vec2::new(-5.0, 0.0)), "given again");
    app.world_mut().entity_mut(e).insert(SteerGoal::<Vec2>::None);
    app.update();
    assert_eq!(goal(&app), None, "None");
}

/// Removing `SteerBehaviour` stops the steering: the agent joins the idle group (no drag) and
/// keeps its velocity exactly; its old group is free, and the next new behaviour reuses it.
#[test]
fn removing_the_behaviour_stops_steering() {
    let mut app = app2d();
    let e = app.world_mut().spawn(seeker(1000.0, 2.0)).id();
    for _ in 0..32 {
        app.update();
    }
    app.world_mut().entity_mut(e).remove::<SteerBehaviour<Vec2>>();
    app.update();
    let v = state(&app, e).current.velocity;
    for _ in 0..64 {
        app.update();
    }
    assert_eq!(state(&app, e).current.velocity, v, "no steering");
    let s = steer(&app);
    assert_eq!(s.crowd().group_of(s.handle(e).unwrap()), Some(GroupId(0)), "the idle group");
    let other = app.world_mut().spawn(seeker(-1000.0, 2.0)).id();
    app.update();
    let s = steer(&app);
    assert_eq!(s.behaviour_groups(), 1, "the freed group is reused");
    assert_eq!(s.crowd().group_of(s.handle(other).unwrap()), Some(GroupId(1)));
}

/// A wedge of four members on the march: changing the `SteerFormation` (a wider spacing) forms
/// the squad anew from where its anchor is, with slots 3 m apart instead of 1.5 m; despawning
/// its entity disbands it: no member has a slot and the crowd's formation is gone.
#[test]
fn formation_edits_reform_the_squad_and_despawning_it_disbands_it() {
    use bevy_steerkit::{SteerFormation, SteerFormationId};
    use steerkit::formation::{FormationManager, Pattern, ScalablePattern, Shape, SlotSteering};
    use steerkit::kinematic::Kinematic;
    use steerkit::steering::Align;
    let mut app = app2d();
    let slot = SlotSteering::new(
        Arrive::new(0.02, 2.0, 0.3).unwrap(),
        Align::new(0.01, 0.5, 0.1).unwrap(),
    );
    let members: Vec<Entity> = (0..4)
        .map(|k| {
            let t = Transform::from_xyz(k as f32, 0.0, 0.0);
            let b = SteerBehaviour::<Vec2>(Group::new(Recipe::Slot(slot)));
            app.world_mut().spawn((SteerAgent::new(0.3, limits()), b, t)).id()
        })
        .collect();
    let wedge = |spacing: f32| {
        let pattern = ScalablePattern::new(Shape::Wedge, spacing).unwrap();
        let anchor = Kinematic { velocity: Vec2::new(0.5, 0.0), ..Kinematic::default() };
        FormationManager::new(Pattern::from(pattern), anchor, limits())
    };
    let march = VelocityMatch::new(0.1).unwrap();
    let anchor = Recipe::VelocityMatch { velocity: Vec2::new(0.5, 0.0), matching: march };
    let squad = app
        .world_mut()
        .spawn(SteerFormation { manager: wedge(1.5), members: members.clone(), anchor })
        .id();
    for _ in 0..320 {
        app.update();
    }
    let id = |app: &App| app.world().get::<SteerFormationId>(squad).map(|i| i.0);
    let first = id(&app).expect("formed");
    let spread = |app: &App| {
        let s = steer(app);
        let targets: Vec<Vec2> = members
            .iter()
            .map(|&m| s.crowd().slot_target(s.handle(m).unwrap()).unwrap().position)
            .collect();
        targets.iter().flat_map(|a| targets.iter().map(move |b| a.distance(*b))).fold(0.0, f32::max)
    };
    let narrow = spread(&app);
    let x = steer(&app).crowd().formation(first).unwrap().anchor().position.x;
    assert!(x > 2.0, "marching: anchor at x = {x}");
    app.world_mut().get_mut::<SteerFormation>(squad).unwrap().manager = wedge(3.0);
    for _ in 0..4 {
        app.update();
    }
    let again = id(&app).expect("formed anew");
    let anchor_x = steer(&app).crowd().formation(again).unwrap().anchor().position.x;
    assert!(anchor_x > x, "from where the anchor was: {anchor_x} after {x}");
    let wide = spread(&app);
    assert!((wide / narrow - 2.0).abs() < 1e-3, "slots spread {narrow} m, then {wide} m");
    app.world_mut().despawn(squad);
    app.update();
    let s = steer(&app);
    assert!(s.crowd().formation(again).is_none(), "disbanded");
    for &m in &members {
        assert_eq!(s.crowd().slot_target(s.handle(m).unwrap()), None);
    }
    assert!(s.errors().is_empty(), "{:?}", s.errors());
}

/// Editing an obstacle's shape rebuilds the world with the new shape.
#[test]
fn obstacle_edits_apply() {
    use bevy_steerkit::SteerObstacle;
    use steerkit::geometry::{Circle, Obstacle};
    let mut app = app2d();
    let disc = |r: f32| SteerObstacle::<Vec2>(Obstacle::Circle(Circle::new(Vec2::ZERO, r)));
    let o = app.world_mut().spawn((disc(1.0), Transform::from_xyz(2.0, 0.0, 0.0))).id();
    app.update();
    app.update();
    *app.world_mut().get_mut::<SteerObstacle<Vec2>>(o).unwrap() = disc(2.5);
    app.update();
    let world = steer(&app).crowd().obstacles().unwrap().obstacles().to_vec();
    assert_eq!(world, vec![Obstacle::Circle(Circle::new(Vec2::new(2.0, 0.0), 2.5))]);
}

#[derive(Component)]
struct Leader;

/// The game's own system in `Update`: the leader jumps to x = 50 at frame 20.
fn jump(frame: Res<bevy_diagnostic::FrameCount>, mut leader: Query<&mut Transform, With<Leader>>) {
    if frame.0 == 20 {
        for mut t in &mut leader {
            t.translation.x = 50.0;
        }
    }
}

/// A leader's `Transform` set to x = 50 by a system in `Update` (after the fixed step, before
/// the interpolation) is a teleport: the next step starts from there, and the interpolation
/// neither undoes it nor sweeps the body across from x ≈ 0.
#[test]
fn a_transform_written_in_update_is_a_teleport() {
    let mut app = app2d();
    app.add_systems(bevy_app::Update, jump);
    let e = app.world_mut().spawn((Leader, seeker(1000.0, 2.0))).id();
    let mut drawn = Vec::new();
    for _ in 0..40 {
        app.update();
        drawn.push(app.world().get::<Transform>(e).unwrap().translation.x);
    }
    let x = state(&app, e).current.position.x;
    assert!((50.0..51.0).contains(&x), "the crowd took the jump: x = {x}");
    let (before, after) = drawn.split_at(20);
    assert!(before.iter().all(|x| *x < 2.0), "{drawn:?}");
    assert!(after.iter().all(|x| (50.0..51.0).contains(x)), "drawn from x = 50 on: {drawn:?}");
}

/// Walks a plain entity (no `SteerAgent`) along +x at 1 m/s, as a game moves its player.
fn walk(app: &mut App, player: Entity, frames: u32) {
    for _ in 0..frames {
        app.world_mut().get_mut::<Transform>(player).unwrap().translation.x += 1.0 / 64.0;
        app.update();
    }
}

/// A wedge of four whose anchor arrives at the player, a plain entity walked along +x at
/// 1 m/s: after 15 s the anchor is within 1 m of the player and every member within 0.3 m of
/// its slot. Despawning the player takes its stand-in out of the crowd.
#[test]
fn a_squad_follows_a_non_agent_player_entity() {
    use bevy_steerkit::SteerFormation;
    use steerkit::formation::{FormationManager, Pattern, ScalablePattern, Shape, SlotSteering};
    use steerkit::kinematic::Kinematic;
    use steerkit::steering::Align;
    let mut app = app2d();
    let player = app.world_mut().spawn(Transform::from_xyz(2.0, 0.0, 0.0)).id();
    let slot = SlotSteering::new(
        Arrive::new(0.02, 2.0, 0.3).unwrap(),
        Align::new(0.01, 0.5, 0.1).unwrap(),
    );
    let fast = Limits::new(3.0, 6.0, 4.0, 20.0).unwrap();
    let members: Vec<Entity> = (0..4)
        .map(|k| {
            let t = Transform::from_xyz(-1.0 - k as f32, 0.0, 0.0);
            let b = SteerBehaviour::<Vec2>(Group::new(Recipe::Slot(slot)));
            app.world_mut().spawn((SteerAgent::new(0.3, fast), b, t)).id()
        })
        .collect();
    let pattern = Pattern::from(ScalablePattern::new(Shape::Wedge, 1.5).unwrap());
    let manager = FormationManager::new(pattern, Kinematic::default(), limits());
    let arrive = Arrive::new(0.1, 2.0, 0.5).unwrap();
    let anchor = Recipe::Arrive { target: Target::Agent(player), arrive };
    let squad =
        app.world_mut().spawn(SteerFormation { manager, members: members.clone(), anchor }).id();
    walk(&mut app, player, 15 * 64);
    let s = steer(&app);
    let px = app.world().get::<Transform>(player).unwrap().translation.truncate();
    let id = app.world().get::<bevy_steerkit::SteerFormationId>(squad).unwrap().0;
    let f = s.crowd().formation(id).unwrap();
    let gap = f.anchor().position.distance(px);
    assert!(gap < 1.0, "the anchor is {gap} m from the player at {px:?}");
    for &m in &members {
        let target = s.crowd().slot_target(s.handle(m).unwrap()).unwrap().position;
        let off = state(&app, m).current.position.distance(target);
        assert!(off < 0.3, "a member is {off} m from its slot");
    }
    assert_eq!(s.crowd().len(), 5, "four members and the player's stand-in");
    app.world_mut().despawn(player);
    app.update();
    assert_eq!(steer(&app).crowd().len(), 4, "the stand-in left with the player");
}

/// A pursuer of a plain entity walked at 1 m/s predicts with its estimated velocity and
/// closes to within 0.5 m in 10 s; once no behaviour names the player its stand-in leaves.
#[test]
fn pursuing_a_non_agent_entity_uses_its_estimated_velocity() {
    use steerkit::steering::Pursue;
    let mut app = app2d();
    let player = app.world_mut().spawn(Transform::from_xyz(5.0, 0.0, 0.0)).id();
    let chase: Recipe<Vec2, Entity, PathId> =
        Recipe::Pursue { target: player, pursue: Pursue::new(1.0).unwrap() };
    let hunter = app
        .world_mut()
        .spawn((SteerAgent::new(0.3, limits()), SteerBehaviour(Group::new(chase))))
        .id();
    walk(&mut app, player, 640);
    let px = app.world().get::<Transform>(player).unwrap().translation.truncate();
    let gap = state(&app, hunter).current.position.distance(px);
    assert!(gap < 0.5, "the hunter is {gap} m from the player at {px:?}");
    let s = steer(&app);
    let stand_in = s.crowd().handles().find(|h| Some(*h) != s.handle(hunter)).unwrap();
    let v = s.crowd().kinematic(stand_in).unwrap().velocity;
    assert!((v - Vec2::X).length() < 1e-3, "estimated velocity {v:?}");
    *app.world_mut().get_mut::<SteerBehaviour<Vec2>>(hunter).unwrap() = seek_at(0.0);
    app.update();
    app.update();
    assert_eq!(steer(&app).crowd().len(), 1, "named by nothing: the stand-in left");
}

/// Every message sent in the last update.
fn sent(app: &App) -> Vec<bevy_steerkit::SteerMessage> {
    let messages =
        app.world().resource::<bevy_ecs::message::Messages<bevy_steerkit::SteerMessage>>();
    messages.iter_current_update_messages().cloned().collect()
}

/// A walker arriving at a marker entity 30 m off; the marker is despawned at full speed: one
/// `GoalLost`, its goal becomes the point where it can stop (2 m/s at 4 m/s²: 0.5 m on), and
/// it halts there (under 0.05 m/s 3 s later) instead of coasting.
#[test]
fn a_despawned_goal_entity_stops_the_walker_with_a_message() {
    use bevy_steerkit::SteerMessage;
    let mut app = app2d();
    let marker = app.world_mut().spawn(Transform::from_xyz(30.0, 0.0, 0.0)).id();
    let walker = app
        .world_mut()
        .spawn((
            SteerAgent::new(0.3, limits()),
            SteerBehaviour(Group::new(arrive())),
            SteerGoal::<Vec2>::Entity(marker),
        ))
        .id();
    for _ in 0..192 {
        app.update();
    }
    let k = state(&app, walker).current;
    assert!((k.velocity.length() - 2.0).abs() < 1e-3);
    app.world_mut().despawn(marker);
    let mut lost = 0;
    for _ in 0..192 {
        app.update();
        lost += sent(&app).iter().filter(|m| **m == SteerMessage::GoalLost(walker)).count();
    }
    assert_eq!(lost, 1, "one GoalLost");
    let goal = *app.world().get::<SteerGoal<Vec2>>(walker).unwrap();
    let SteerGoal::Point(stop) = goal else { panic!("{goal:?}") };
    let expected = k.position + k.velocity * (2.0 / 8.0);
    assert!(stop.distance(expected) < 0.1, "stop at {stop:?}, from {k:?}");
    let now = state(&app, walker).current;
    assert!(now.velocity.length() < 0.05, "halted: {now:?}");
    assert!(now.position.distance(stop) < 0.15, "{now:?}");
}

/// An agent with a negative radius is refused with one `Rejected` naming the radius, not
/// re-logged in 100 steps; given a valid radius it joins. An invalid obstacle (a negative
/// disc radius) is reported by its entity once while the valid one beside it makes the world.
#[test]
fn a_rejected_agent_and_a_bad_obstacle_are_reported_once() {
    use bevy_steerkit::{SteerMessage, SteerObstacle};
    use steerkit::geometry::{Circle, Obstacle};
    let mut app = app2d();
    let bad = app.world_mut().spawn((SteerAgent::new(-1.0, limits()), seek_at(5.0))).id();
    let disc = |r: f32| SteerObstacle::<Vec2>(Obstacle::Circle(Circle::new(Vec2::ZERO, r)));
    let wrong = app.world_mut().spawn((disc(-2.0), Transform::from_xyz(9.0, 9.0, 0.0))).id();
    app.world_mut().spawn((disc(1.0), Transform::from_xyz(-9.0, 0.0, 0.0)));
    let mut rejected = Vec::new();
    for _ in 0..100 {
        app.update();
        for m in sent(&app) {
            if let SteerMessage::Rejected { entity, reason } = m {
                rejected.push((entity, reason));
            }
        }
    }
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert!(rejected.iter().any(|(e, r)| *e == bad && r.contains("radius")), "{rejected:?}");
    assert!(rejected.iter().any(|(e, r)| *e == wrong && r.contains("obstacle")), "{rejected:?}");
    let s = steer(&app);
    assert_eq!(s.errors().len(), 2, "{:?}", s.errors());
    assert_eq!(s.crowd().len(), 0);
    let world = s.crowd().obstacles().unwrap().obstacles().to_vec();
    assert_eq!(world, vec![Obstacle::Circle(Circle::new(Vec2::new(-9.0, 0.0), 1.0))]);
    app.world_mut().get_mut::<SteerAgent>(bad).unwrap().radius = 0.3;
    app.update();
    assert!(steer(&app).handle(bad).is_some(), "joined once valid");
}
