//! Step time while a seek is re-aimed every frame: 100 000 `App::update`s of a headless app
//! (Bevy's time only, one fixed step per update) holding two agents, one of which gets a new
//! `SteerBehaviour` (a seek at a new point) before every update. Prints the mean and median
//! `App::update` time over frames 1–1 000 and 99 001–100 000, and the crowd's group count:
//! equal times mean the behaviour groups are reused rather than piling up.
//!
//! ```sh
//! cargo run --release -p bevy_steerkit --example reaim
//! ```

use bevy_app::App;
use bevy_steerkit::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use std::time::{Duration, Instant};
use steerkit::crowd::GroupId;
use steerkit::Vec2;

const FRAMES: u32 = 100_000;
const WINDOW: u32 = 1_000;

fn seek_at(x: f32) -> SteerBehaviour2d {
    SteerBehaviour2d::new(Recipe::Seek {
        target: Target::Point(Vec2::new(x, 0.0)),
        seek: Seek::new(),
    })
}

fn main() {
    let limits = Limits::new(2.0, 4.0, 4.0, 20.0).expect("valid limits");
    let mut app = App::new();
    app.add_plugins((TimePlugin, SteerkitPlugin2d::new(CrowdConfig::new(2.0))));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let e = app.world_mut().spawn((SteerAgent::new(0.3, limits), seek_at(0.0))).id();
    let arrive = Arrive::new(0.1, 2.0, 0.25).expect("valid arrive");
    app.world_mut().spawn((
        SteerAgent::new(0.3, limits),
        SteerBehaviour2d::new(Recipe::Arrive { target: Target::Goal, arrive }),
        SteerGoal2d::Point(Vec2::new(5.0, 5.0)),
    ));
    let (mut first, mut last) = (Vec::new(), Vec::new());
    for frame in 1..=FRAMES {
        // the same target sequence as the group-count test
        let x = 10.0 * ((frame % 400) as f32 / 200.0 - 1.0) + frame as f32 * 1e-6;
        *app.world_mut().get_mut::<SteerBehaviour2d>(e).expect("the seeker") = seek_at(x);
        let t = Instant::now();
        app.update();
        let took = t.elapsed();
        if frame <= WINDOW {
            first.push(took);
        } else if frame > FRAMES - WINDOW {
            last.push(took);
        }
    }
    let steer = app.world().resource::<SteerCrowd2d>();
    let groups = (0..=u16::MAX).take_while(|&i| steer.crowd().group(GroupId(i)).is_some()).count();
    let report = |name: &str, mut times: Vec<Duration>| {
        times.sort_unstable();
        let mean = times.iter().sum::<Duration>().as_secs_f64() * 1e6 / times.len() as f64;
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
        let (median, p99, max) = (at(0.5), at(0.99), at(1.0));
        println!(
            "App::update, frames {name}: mean {mean:.2} µs, median {median:.2} µs, \
             99th percentile {p99:.2} µs, max {max:.2} µs"
        );
    };
    report(&format!("1-{WINDOW}"), first);
    report(&format!("{}-{FRAMES}", FRAMES - WINDOW + 1), last);
    println!(
        "crowd groups after {FRAMES} frames: {groups} (behaviour groups {})",
        steer.behaviour_groups()
    );
}
