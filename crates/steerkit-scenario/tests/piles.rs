//! However agents are placed (spawn regions, patterns, `agents` lists, several groups on one
//! spot), a pile deeper than `MAX_PILE` is refused at load with one line naming the key; and
//! what `run` would refuse (a sphere of radius 0, a jumper that cannot run) is refused too.

use steerkit_scenario::{Scenario, MAX_PILE};

const HEAD: &str = r#"name = "pile"
dt = 0.05
steps = 5
[world]
min = [-50, -50]
max = [50, 50]
neighbour_radius = 2
"#;

fn group(name: &str, placement: &str) -> String {
    format!(
        "[[groups]]\nname = \"{name}\"\n{placement}\nradius = 0.5\nlimits = {{ max_speed = 2, \
         max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }}\nbehaviour = \
         {{ kind = \"seek\", target = [0, 0] }}\n"
    )
}

fn load(text: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(text, "pile.toml").map_err(|e| e.to_string())
}

/// 20 000 listed agents on one point (the 460 KB file of the report): refused, naming the
/// first agent past the limit.
#[test]
fn twenty_thousand_listed_agents_on_one_point_are_refused() {
    let list = vec!["{ position = [1, 1] }"; 20_000].join(", ");
    let text = format!("{HEAD}{}", group("heap", &format!("agents = [{list}]")));
    let e = load(&text).unwrap_err();
    println!("{e}");
    assert!(e.contains(&format!("groups[0].agents[{MAX_PILE}].position")), "{e}");
    assert!(e.contains("at most 256") && !e.contains('\n'), "{e}");
}

/// A million agents on a 1 m ring, and ten thousand: refused from the pattern.
#[test]
fn crowded_rings_are_refused() {
    for n in [1_000_000, 10_000] {
        let ring =
            format!("count = {n}\nspawn = {{ shape = \"ring\", center = [0, 0], radius = 1 }}");
        let e = load(&format!("{HEAD}{}", group("ring", &ring))).unwrap_err();
        assert!(e.contains("groups[0].spawn") && e.contains("at most 256"), "{n}: {e}");
    }
    // a ring that holds its bodies side by side loads
    let ring = "count = 300\nspawn = { shape = \"ring\", center = [0, 0], radius = 48 }";
    load(&format!("{HEAD}{}", group("ring", ring))).unwrap();
}

/// A line and a grid with no spacing pile their agents too.
#[test]
fn lines_and_grids_on_one_point_are_refused() {
    for shape in [
        "count = 1000\nspawn = { shape = \"line\", from = [0, 0], to = [0.1, 0] }",
        "count = 1000\nspawn = { shape = \"grid\", min = [0, 0], columns = 40, spacing = 0.01 }",
    ] {
        match load(&format!("{HEAD}{}", group("g", shape))) {
            Err(e) => assert!(e.contains("groups[0].spawn") && e.contains("at most 256"), "{e}"),
            Ok(_) => panic!("{shape} loaded"),
        }
    }
}

/// Piles split across groups add up: two groups of 200 on one point.
#[test]
fn piles_split_across_groups_are_refused() {
    let list = vec!["{ position = [3, 3] }"; 200].join(", ");
    let mut text = HEAD.to_owned();
    for g in 0..2 {
        text.push_str(&group(&format!("g{g}"), &format!("agents = [{list}]")));
    }
    let e = load(&text).unwrap_err();
    assert!(e.contains("groups[1].agents[56].position"), "{e}");
}

/// Small bodies beside a large one are no pile: size classes are counted apart.
#[test]
fn a_dense_crowd_of_small_bodies_beside_a_large_one_loads() {
    let small = "count = 3000\nspawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }";
    let text = format!(
        "{HEAD}{}{}",
        group("small", small).replace("radius = 0.5", "radius = 0.05"),
        group("big", "agents = [{ position = [0, 0] }]").replace("radius = 0.5", "radius = 3")
    );
    load(&text).unwrap();
}

/// A 3D sphere of radius 0 is refused at load (the replay cannot hold it).
#[test]
fn a_sphere_of_radius_zero_is_refused() {
    let text = r#"name = "s"
dimensions = 3
dt = 0.05
steps = 5
[world]
min = [-10, -10, -10]
max = [10, 10, 10]
neighbour_radius = 2
[[obstacles]]
shape = "sphere"
center = [0, 0, 0]
radius = 0
[[groups]]
name = "a"
agents = [{ position = [5, 0, 0] }]
radius = 0.5
limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "seek", target = [0, 0, 0] }
"#;
    let e = load(text).unwrap_err();
    assert!(e.contains("obstacles[0].radius") && e.contains("greater than zero, got 0"), "{e}");
    load(&text.replace("radius = 0\n", "radius = 1e-6\n")).unwrap();
}

/// A jumper with `max_speed = 0` is refused at load, naming the key.
#[test]
fn a_jumper_that_cannot_run_is_refused() {
    let text = r#"name = "course"
dt = 0.02
steps = 10
[world]
min = [-2, -5]
max = [30, 5]
neighbour_radius = 1
[side_view]
gravity = 9.81
[[platforms]]
from = [0, 0]
to = [10, 0]
[[groups]]
name = "runner"
radius = 0.3
limits = { max_speed = 0, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }
jump = { jump_speed = 5 }
agents = [{ position = [1, 0] }]
"#;
    let e = load(text).unwrap_err();
    assert!(e.contains("groups[0].limits.max_speed") && e.contains("jumper"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

/// A pile formed while running (here placed through the library, which has no load check):
/// the crowd reports at most `MAX_COLLISION_EVENTS_PER_AGENT` collisions per agent a step, not
/// the pile's square.
#[test]
fn collision_events_per_agent_are_capped() {
    use steerkit::crowd::{
        AgentSpec, Crowd2, CrowdConfig, CrowdEvent, Group, Recipe, MAX_COLLISION_EVENTS_PER_AGENT,
    };
    use steerkit::kinematic::Limits;
    use steerkit::Vec2;
    let mut config = CrowdConfig::new(1.0);
    config.collision_events = true;
    let mut crowd = Crowd2::new(config).unwrap();
    let matching = steerkit::steering::VelocityMatch::new(0.1).unwrap();
    let g = crowd.add_group(Group::new(Recipe::VelocityMatch { velocity: Vec2::ZERO, matching }));
    let g = g.unwrap();
    let limits = Limits::new(1.0, 1.0, 1.0, 1.0).unwrap();
    let n = 1000;
    for i in 0..n {
        let p = Vec2::new(i as f32 * 1e-4, 0.0);
        crowd.spawn(AgentSpec::new(p, 0.5, limits, g)).unwrap();
    }
    let events = crowd.step(0.02).unwrap();
    let collisions =
        events.iter().filter(|e| matches!(e, CrowdEvent::AgentCollision { .. })).count();
    println!("{n} bodies on a 0.1 m segment: {collisions} collision events in a step");
    // each of the first n − 16 agents reports its cap; the pile has n²/2 ≈ 500 000 pairs
    assert!(collisions <= n * MAX_COLLISION_EVENTS_PER_AGENT, "{collisions}");
    assert!(collisions >= (n - MAX_COLLISION_EVENTS_PER_AGENT) * MAX_COLLISION_EVENTS_PER_AGENT);
}
