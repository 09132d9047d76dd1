//! The settings of crowd studies: a route handed over to each agent's own goal (`sequence`),
//! arrived agents removed (`on_arrival`), scattered goals kept apart (`min_spacing`).

use steerkit::crowd::{CrowdEvent, Recipe};
use steerkit::Vec2;
use steerkit_scenario::Scenario;

fn scenario(group_extra: &str, behaviour: &str) -> String {
    format!(
        r#"name = "study"
dt = 0.05
steps = 600
[world]
min = [-20, -20]
max = [20, 20]
neighbour_radius = 2
[[paths]]
name = "route"
points = [[-10, 0], [0, 0], [5, 5]]
[[paths]]
name = "loop"
points = [[0, 0], [5, 0], [5, 5]]
looping = true
[[groups]]
name = "g"
count = 30
spawn = {{ shape = "rect", min = [-18, -5], max = [-12, 5], min_spacing = 0.8 }}
radius = 0.3
limits = {{ max_speed = 2, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }}
{group_extra}
behaviour = {behaviour}
"#
    )
}

const ROUTE_THEN_GOAL: &str = r#"{ kind = "sequence", first = { kind = "follow_path", path = "route", offset = 1 }, then = { kind = "arrive", use_goal = true, slow_radius = 1 } }"#;

fn load(text: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(text, "study.toml").map_err(|e| e.to_string())
}

/// Scattered goals with `min_spacing` are that far apart (all 435 pairs of 30); a box that
/// cannot hold them is refused naming `min_spacing`, in one line.
#[test]
fn scattered_goals_keep_their_spacing() {
    let rule =
        r#"goal_rule = { rule = "scatter", min = [8, -8], max = [18, 8], min_spacing = 1.5 }"#;
    let s = load(&scenario(rule, ROUTE_THEN_GOAL)).unwrap();
    let w = s.build().unwrap();
    let goals: Vec<Vec2> = w.groups[0].agents.iter().map(|&h| w.crowd.goal(h).unwrap()).collect();
    assert_eq!(goals.len(), 30);
    for (i, a) in goals.iter().enumerate() {
        assert!((8.0..=18.0).contains(&a.x) && (-8.0..=8.0).contains(&a.y), "{a}");
        for b in &goals[i + 1..] {
            assert!(a.distance(*b) >= 1.5, "{a} and {b} are {} m apart", a.distance(*b));
        }
    }
    let tight =
        r#"goal_rule = { rule = "scatter", min = [8, -1], max = [10, 1], min_spacing = 1.5 }"#;
    let e = load(&scenario(tight, ROUTE_THEN_GOAL)).unwrap_err();
    assert!(e.contains("goal_rule.min_spacing") && !e.contains('\n'), "{e}");
    let zero = r#"goal_rule = { rule = "scatter", min = [8, -8], max = [18, 8], min_spacing = 0 }"#;
    let e = load(&scenario(zero, ROUTE_THEN_GOAL)).unwrap_err();
    assert!(e.contains("goal_rule.min_spacing"), "{e}");
}

/// A sequence whose first stage follows no path, or only a looping one, never hands over:
/// refused; so is a second stage that follows a path. Each error names the stage.
#[test]
fn sequences_that_cannot_hand_over_are_refused() {
    let goal = r#"goal = [10, 10]"#;
    let cases = [
        (
            r#"{ kind = "sequence", first = { kind = "seek", target = [0, 0] }, then = { kind = "arrive", use_goal = true, slow_radius = 1 } }"#,
            "behaviour.first",
            "must follow a path",
        ),
        (
            r#"{ kind = "sequence", first = { kind = "follow_path", path = "loop", offset = 1 }, then = { kind = "arrive", use_goal = true, slow_radius = 1 } }"#,
            "behaviour.first",
            "looping",
        ),
        (
            r#"{ kind = "sequence", first = { kind = "follow_path", path = "route", offset = 1 }, then = { kind = "follow_path", path = "route", offset = 1 } }"#,
            "behaviour.then",
            "already finished",
        ),
        (
            r#"{ kind = "sequence", first = { kind = "follow_path", path = "route", offset = 1 } }"#,
            "behaviour.then",
            "needs `then`",
        ),
    ];
    for (behaviour, field, why) in cases {
        let e = load(&scenario(goal, behaviour)).unwrap_err();
        assert!(e.contains(field) && e.contains(why) && !e.contains('\n'), "{behaviour}: {e}");
    }
}

/// The route then the goal: every agent finishes the route, then arrives at the goal the route
/// does not lead to; with `on_arrival = "remove"` each leaves the world in the step of its
/// `Arrived` event.
#[test]
fn a_route_hands_over_and_arrived_agents_leave() {
    for remove in [false, true] {
        let extra = format!(
            "goal = [10, -10]\narrive_radius = 0.5\non_arrival = \"{}\"",
            if remove { "remove" } else { "stay" }
        );
        let s = load(&scenario(&extra, ROUTE_THEN_GOAL)).unwrap();
        let mut w = s.build().unwrap();
        let recipe = &w.crowd.group(w.groups[0].id).unwrap().recipe;
        assert!(matches!(recipe, Recipe::Sequence { .. }));
        let (mut finished, mut arrived) = (0, 0);
        for _ in 0..1200 {
            let events = w.crowd.step(0.05).unwrap().to_vec();
            for e in events {
                match e {
                    CrowdEvent::PathFinished { .. } => finished += 1,
                    CrowdEvent::Arrived { agent } => {
                        arrived += 1;
                        assert_eq!(w.crowd.contains(agent), !remove, "removed: {remove}");
                    }
                    _ => {}
                }
            }
        }
        assert_eq!((finished, arrived), (30, 30), "remove = {remove}");
        assert_eq!(w.crowd.len(), if remove { 0 } else { 30 });
    }
    let e = load(&scenario("goal = [1, 1]\non_arrival = \"vanish\"", ROUTE_THEN_GOAL)).unwrap_err();
    assert!(e.contains("on_arrival") && e.contains("`remove`"), "{e}");
}
