//! The shipped example scenario loads, in TOML and in the same structure as JSON.

use steerkit::path::Path;
use steerkit::Vec2;
use steerkit_scenario::{Behaviour, Bounds, Scenario, TargetRef};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/example.toml");

fn as_json(toml_src: &str) -> String {
    let table: toml::Table = toml::from_str(toml_src).unwrap();
    serde_json::to_string_pretty(&table).unwrap()
}

fn check_example(s: &Scenario) {
    assert_eq!(s.name(), "example");
    assert_eq!(s.seed(), 7);
    assert!((s.dt() - 0.02).abs() < 1e-9);
    assert_eq!(s.steps(), 1000); // 20 s at 0.02 s
    assert_eq!(s.plan::<Vec2>().unwrap().groups.len(), 4);
    let counts: Vec<usize> =
        s.plan::<Vec2>().unwrap().groups.iter().map(|g| g.agents.len()).collect();
    assert_eq!(counts, vec![12, 2, 30, 1]);
    assert_eq!(s.agent_count(), 45);
    assert_eq!(s.plan::<Vec2>().unwrap().paths.len(), 1);
    assert_eq!(s.plan::<Vec2>().unwrap().paths[0].name, "perimeter");
    assert!(s.plan::<Vec2>().unwrap().paths[0].polyline.is_looping());
    assert_eq!(s.plan::<Vec2>().unwrap().geometry.obstacles.len(), 3);
    assert_eq!(s.plan::<Vec2>().unwrap().geometry.walls.len(), 1);
    assert!(matches!(s.plan::<Vec2>().unwrap().bounds, Bounds::Bounded { .. }));
    // every spawned agent is inside its region and the world
    for p in &s.plan::<Vec2>().unwrap().groups[0].agents {
        assert!(p.position.x >= -26.0 && p.position.x <= -20.0, "{p:?}");
        assert!(p.position.y >= -8.0 && p.position.y <= 0.0, "{p:?}");
        assert_eq!(p.goal, Some(steerkit::Vec2::new(22.0, -4.0)));
    }
    for p in &s.plan::<Vec2>().unwrap().groups[2].agents {
        assert!((p.position - steerkit::Vec2::new(15.0, 10.0)).length() <= 4.0 + 1e-4);
        let speed = p.velocity.length();
        assert!((0.5 - 1e-4..=1.5 + 1e-4).contains(&speed), "speed {speed}");
    }
    // the hunter pursues walkers:0
    match &s.plan::<Vec2>().unwrap().groups[3].behaviour {
        Behaviour::Pursue { target, .. } => assert_eq!((target.group, target.index), (0, 0)),
        b => panic!("hunter behaviour {b:?}"),
    }
    match &s.plan::<Vec2>().unwrap().groups[0].behaviour {
        Behaviour::Priority { groups, .. } => match &groups[1] {
            Behaviour::Blend(m) => {
                assert_eq!(m.len(), 2);
                assert!(matches!(m[0].1, Behaviour::Arrive { target: TargetRef::Goal, .. }));
                assert!((m[1].0 - 1.5).abs() < 1e-6);
            }
            b => panic!("{b:?}"),
        },
        b => panic!("{b:?}"),
    }
    assert_eq!(s.output_name(), "example");
}

#[test]
fn the_example_loads_from_toml() {
    let s = Scenario::load(EXAMPLE).unwrap();
    check_example(&s);
}

#[test]
fn the_example_loads_from_json_with_the_same_structure() {
    let src = std::fs::read_to_string(EXAMPLE).unwrap();
    let json = as_json(&src);
    let s = Scenario::from_json_str(&json, "example.json").unwrap();
    check_example(&s);
    let t = Scenario::from_toml_str(&src, "example.toml").unwrap();
    // the same seed places the same agents
    assert_eq!(s.plan::<Vec2>().unwrap().groups, t.plan::<Vec2>().unwrap().groups);
}

#[test]
fn another_seed_places_agents_elsewhere_and_the_same_seed_again_identically() {
    let s = Scenario::load(EXAMPLE).unwrap();
    let again = s.with_seed(7).unwrap();
    assert_eq!(s.plan::<Vec2>().unwrap().groups, again.plan::<Vec2>().unwrap().groups);
    let other = s.with_seed(8).unwrap();
    assert_ne!(
        s.plan::<Vec2>().unwrap().groups[0].agents[0].position,
        other.plan::<Vec2>().unwrap().groups[0].agents[0].position
    );
    // explicit agents do not move
    assert_eq!(
        s.plan::<Vec2>().unwrap().groups[1].agents,
        other.plan::<Vec2>().unwrap().groups[1].agents
    );
}
