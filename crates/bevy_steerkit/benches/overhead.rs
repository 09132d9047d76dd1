//! The plugin's cost per fixed step over the bare crowd: the `flock2d` workload of
//! `steerkit bench` (a flock on a torus, about 10 neighbours within 1 m) at 10 000 agents,
//! stepped by `Crowd::step` and by one `App::update` of a headless app with the plugin (one
//! fixed step per update). The difference is what the plugin adds: syncing components in,
//! states and messages out, and the interpolated `Transform`s.
//!
//! `cargo bench -p bevy_steerkit --bench overhead`

use bevy_app::App;
use bevy_ecs::entity::Entity;
use bevy_steerkit::{SteerAgent, SteerBehaviour, SteerCrowd, SteerkitPlugin2d};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;
use steerkit::crowd::{Crowd2, Group, PathId, Recipe};

const N: usize = 10_000;
const DT: f32 = 1.0 / 64.0;

/// The bare crowd and a plugin app holding the same agents in the same states.
fn worlds() -> (Crowd2, App) {
    let bare = steerkit_bench::flock2d_crowd(N);
    let mut app = App::new();
    app.add_plugins((TimePlugin, SteerkitPlugin2d::new(*bare.config())));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let recipe: Recipe<steerkit::Vec2, Entity, PathId> =
        steerkit_bench::flocking().map_refs(&|_| Entity::PLACEHOLDER, &|p| *p);
    let mut entities = Vec::with_capacity(N);
    for h in bare.handles() {
        let k = bare.kinematic(h).expect("an agent");
        let agent = SteerAgent::new(bare.radius(h).unwrap(), bare.limits(h).unwrap());
        let at = Transform::from_translation(k.position.extend(0.0));
        entities.push(
            app.world_mut().spawn((agent, SteerBehaviour(Group::new(recipe.clone())), at)).id(),
        );
    }
    app.update(); // the first update has no fixed step
    app.update(); // the agents enter the crowd
                  // the same states as the bare crowd, velocities included
    let mut steer = app.world_mut().resource_mut::<SteerCrowd<steerkit::Vec2>>();
    for (h, e) in bare.handles().zip(&entities) {
        let mine = steer.handle(*e).expect("an agent");
        let k = bare.kinematic(h).unwrap();
        steer.crowd_mut().write_kinematic(mine, k).unwrap();
    }
    (bare, app)
}

fn overhead(c: &mut Criterion) {
    let (mut bare, mut app) = worlds();
    let mut g = c.benchmark_group("plugin_overhead_10k");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("bare_crowd_step", |b| b.iter(|| bare.step(DT).map(<[_]>::len)));
    g.bench_function("plugin_update", |b| b.iter(|| app.update()));
    g.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
