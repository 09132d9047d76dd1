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
use steerkit::crowd::{Crowd, CrowdConfig, Group, GroupId, PathId, Recipe, Target};
use steerkit::kinematic::Limits;
use steerkit::steering::{Arrive, Seek};

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
