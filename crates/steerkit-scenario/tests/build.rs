//! Scenarios build into running crowds: agents, groups, paths and references as the file says.

use steerkit::crowd::{CrowdEvent, Recipe, Target};
use steerkit::path::Path;
use steerkit::Vec2;
use steerkit_scenario::Scenario;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/example.toml");

fn as_json(toml_src: &str) -> String {
    let table: toml::Table = toml::from_str(toml_src).unwrap();
    serde_json::to_string(&table).unwrap()
}

#[test]
fn the_example_builds_from_toml_and_json() {
    let src = std::fs::read_to_string(EXAMPLE).unwrap();
    for s in [
        Scenario::from_toml_str(&src, "example.toml").unwrap(),
        Scenario::from_json_str(&as_json(&src), "example.json").unwrap(),
    ] {
        let w = s.build().unwrap();
        assert_eq!(w.crowd.len(), 45);
        assert_eq!(w.groups.len(), 4);
        let sizes: Vec<usize> = w.groups.iter().map(|g| g.agents.len()).collect();
        assert_eq!(sizes, vec![12, 2, 30, 1]);
        assert_eq!(w.crowd.paths().len(), 1);
        assert!(w.crowd.paths()[0].is_looping());
        assert_eq!(w.crowd.obstacles().map(|o| o.len()), Some(4)); // 3 solids + 1 wall
        assert_eq!(w.settings.steps, 1000);
        assert_eq!(w.settings.output_name, "example");
        // the hunter pursues walker 0's handle
        let hunter = &w.groups[3];
        match &w.crowd.group(hunter.id).unwrap().recipe {
            Recipe::Pursue { target, .. } => assert_eq!(*target, w.groups[0].agents[0]),
            r => panic!("{r:?}"),
        }
        // walkers arrive at their own goal
        match &w.crowd.group(w.groups[0].id).unwrap().recipe {
            Recipe::Priority { groups, .. } => match &groups[1] {
                Recipe::Blend(m) => {
                    assert!(matches!(m[0].1, Recipe::Arrive { target: Target::Goal, .. }))
                }
                r => panic!("{r:?}"),
            },
            r => panic!("{r:?}"),
        }
        // agents start where the plan put them
        let plan = &s.plan::<Vec2>().unwrap().groups[1].agents[1];
        let i = w.crowd.index_of(w.groups[1].agents[1]).unwrap();
        assert_eq!(w.crowd.positions()[i], plan.position);
    }
}

#[test]
fn the_example_runs_without_quarantine() {
    let s = Scenario::load(EXAMPLE).unwrap().with_steps(200).unwrap();
    let mut w = s.build().unwrap();
    let mut quarantined = 0;
    for _ in 0..s.steps() {
        let events = w.crowd.step(s.dt()).unwrap();
        quarantined +=
            events.iter().filter(|e| matches!(e, CrowdEvent::Quarantined { .. })).count();
    }
    assert_eq!(quarantined, 0);
    for p in w.crowd.positions() {
        assert!(p.is_finite());
        assert!(p.x >= -30.0 && p.x <= 30.0 && p.y >= -20.0 && p.y <= 20.0, "{p}");
    }
}

#[test]
fn an_arrive_scenario_arrives() {
    let src = r#"
name = "arrive"
dt = 0.02
duration = 10
[world]
min = [-10, -10]
max = [10, 10]
neighbour_radius = 2
[[groups]]
name = "walkers"
agents = [{ position = [-8, 0] }, { position = [-8, 3], goal = [5, 3] }]
goal = [5, 0]
arrive_radius = 0.3
radius = 0.3
limits = { max_speed = 3, max_acceleration = 6, max_rotation = 4, max_angular_acceleration = 20 }
behaviour = { kind = "arrive", use_goal = true, target_radius = 0.1, slow_radius = 2 }
"#;
    let s = Scenario::from_toml_str(src, "arrive.toml").unwrap();
    assert_eq!(s.steps(), 500);
    let mut w = s.build().unwrap();
    let mut arrived = 0;
    for _ in 0..s.steps() {
        arrived += w
            .crowd
            .step(s.dt())
            .unwrap()
            .iter()
            .filter(|e| matches!(e, CrowdEvent::Arrived { .. }))
            .count();
    }
    assert_eq!(arrived, 2);
    for (h, goal) in w.groups[0].agents.iter().zip([Vec2::new(5.0, 0.0), Vec2::new(5.0, 3.0)]) {
        let p = w.crowd.positions()[w.crowd.index_of(*h).unwrap()];
        assert!((p - goal).length() < 0.1, "{p} vs {goal}");
    }
}

#[test]
fn group_options_reach_the_crowd() {
    let src = r#"
name = "options"
dt = 0.05
steps = 10
[world]
neighbour_radius = 2
[[groups]]
name = "g"
agents = [{ position = [0, 0] }]
radius = 0.3
limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "seek", target = [5, 0] }
heading_smoothing = 5
integration = "exact"
linear_drag = 0.5
angular_drag = 1.5
view_half_angle = 1.0
non_penetration = true
face_motion = false
arrive_radius = 0.25
"#;
    let s = Scenario::from_toml_str(src, "options.toml").unwrap();
    let w = s.build().unwrap();
    let g = w.crowd.group(w.groups[0].id).unwrap();
    assert_eq!(g.heading_smoothing, 5);
    assert_eq!(g.integration.scheme, steerkit::kinematic::Scheme::Exact);
    assert_eq!((g.integration.linear_drag, g.integration.angular_drag), (0.5, 1.5));
    assert_eq!(g.view_half_angle, Some(1.0));
    assert!(g.non_penetration && !g.face_motion);
    assert_eq!(g.arrive_radius, 0.25);
    // and a bad choice is named
    let e =
        Scenario::from_toml_str(&src.replace("\"exact\"", "\"rk4\""), "options.toml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "options.toml:14:15: groups[0].integration: unknown value `rk4`; expected one of `newton_euler`, `exact`, `semi_implicit`"
    );
}

/// `follow_path` on an open path arrives at its end and stays there (it used to orbit or push at
/// it), and the crowd reports the path finished.
#[test]
fn follow_path_arrives_at_the_end_of_an_open_path_and_stays() {
    let src = r#"name = "end"
dt = 0.02
steps = 1500
[world]
neighbour_radius = 2
[[paths]]
name = "route"
points = [[0, 0], [10, 0], [10, 6]]
[[groups]]
name = "walker"
radius = 0.3
limits = { max_speed = 3, max_acceleration = 6, max_rotation = 4, max_angular_acceleration = 20 }
behaviour = { kind = "follow_path", path = "route", offset = 1.5 }
agents = [{ position = [0, 0] }]
"#;
    let s = Scenario::from_toml_str(src, "end.toml").unwrap();
    let mut w = s.build().unwrap();
    let mut finished_at = None;
    let mut last = Vec2::ZERO;
    for step in 0..s.steps() {
        for e in w.crowd.step(s.dt()).unwrap() {
            if matches!(e, CrowdEvent::PathFinished { .. }) && finished_at.is_none() {
                finished_at = Some(step);
            }
        }
        let p = w.crowd.positions()[0];
        if step >= 1000 {
            assert!((p - last).length() < 1e-4, "still moving at step {step}: {p}");
        }
        last = p;
    }
    let end = Vec2::new(10.0, 6.0);
    // the default end arrival brakes inside a 5 cm target radius
    assert!((last - end).length() < 0.1, "ends {} m from the end", (last - end).length());
    assert!(finished_at.is_some_and(|s| s < 600), "finished at {finished_at:?}");
}
