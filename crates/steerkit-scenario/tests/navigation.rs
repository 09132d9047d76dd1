//! `[navigation]` and the `navigate` leaf: what a file gets refused for (one line naming the
//! key), and a checked file that runs: its agents cross a wall through a door.

use steerkit::Vec2;
use steerkit_scenario::{Scenario, ScenarioError};

const BASE: &str = r#"name = "nav"
dt = 0.1
steps = 400
[world]
min = [-10, -5]
max = [10, 5]
neighbour_radius = 2.0
[[obstacles]]
shape = "box"
min = [-0.25, -5]
max = [0.25, 3]
[[groups]]
name = "a"
agents = [{ position = [-6, -3], goal = [6, -3] }, { position = [-6, 0], goal = [6, 0] }]
radius = 0.4
limits = { max_speed = 1.5, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "navigate", braking = true, time_to_target = 0.25 }
"#;

fn with(from: &str, to: &str) -> String {
    assert_eq!(BASE.matches(from).count(), 1, "`{from}` must occur once");
    BASE.replacen(from, to, 1)
}

fn refused(src: &str) -> ScenarioError {
    let e = Scenario::from_toml_str(src, "bad.toml").expect_err("refused");
    let msg = e.to_string();
    println!("{msg}");
    assert_eq!(msg.lines().count(), 1, "one line: {msg}");
    e
}

#[test]
fn navigators_cross_the_wall_through_its_door_and_stop_on_their_goals() {
    let s = Scenario::from_toml_str(BASE, "nav.toml").unwrap();
    let mut w = s.build().unwrap();
    for _ in 0..s.steps() {
        let crowd = &mut w.crowd;
        w.navigation.as_mut().unwrap().update(crowd, s.dt());
        crowd.step(s.dt()).unwrap();
        // never inside the wall (the box inflated by the radius, 1 cm to spare)
        for p in crowd.positions() {
            let q = p.clamp(Vec2::new(-0.25, -5.0), Vec2::new(0.25, 3.0));
            assert!(q.distance(*p) > 0.39, "a body in the wall at {p}");
        }
    }
    for (h, goal) in w.groups[0].agents.iter().zip([Vec2::new(6.0, -3.0), Vec2::new(6.0, 0.0)]) {
        let p = w.crowd.kinematic(*h).unwrap().position;
        assert!(p.distance(goal) < 0.1, "{p} is not at {goal}");
    }
}

#[test]
fn a_goal_inside_an_obstacle_is_refused() {
    let e = refused(&with("goal = [6, 0]", "goal = [0, 0]"));
    assert_eq!(e.field(), "groups[0].goal");
    assert!(e.to_string().contains("agent 1's goal (0, 0) is inside an obstacle"), "{e}");
}

#[test]
fn a_degenerate_outline_is_refused() {
    let e = refused(&format!("{BASE}[navigation]\noutline = [[0, 0], [1, 1], [2, 2]]\n"));
    assert_eq!(e.field(), "navigation.outline");
    assert!(e.to_string().contains("no area"), "{e}");
}

#[test]
fn a_radius_with_nothing_walkable_is_refused() {
    let e = refused(&with("radius = 0.4", "radius = 6"));
    assert_eq!(e.field(), "groups[0].radius");
    assert!(e.to_string().contains("no walkable area left for radius 6.1 m"), "{e}");
}

#[test]
fn bad_settings_name_their_key() {
    let e = refused(&format!("{BASE}[navigation]\nclearance = -1\n"));
    assert_eq!(e.field(), "navigation.clearance");
    let e = refused(&format!("{BASE}[navigation]\nmax_plans_per_step = 0\n"));
    assert_eq!(e.field(), "navigation.max_plans_per_step");
    let e = refused(&format!("{BASE}[navigation]\nreplan_interval = nan\n"));
    assert_eq!(e.field(), "navigation.replan_interval");
    for bad in ["-1", "inf", "nan"] {
        for key in ["passage_width", "two_way_width", "single_file_width"] {
            let e = refused(&format!("{BASE}[navigation]\n{key} = {bad}\n"));
            assert_eq!(e.field(), format!("navigation.{key}"), "{bad}");
        }
    }
}

#[test]
fn navigation_is_planar() {
    let src = r#"name = "nav3"
dimensions = 3
dt = 0.1
steps = 1
[world]
neighbour_radius = 2.0
[[groups]]
name = "a"
agents = [{ position = [0, 0, 0], goal = [1, 1, 1] }]
radius = 0.4
limits = { max_speed = 1.5, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "navigate", braking = true }
"#;
    let e = refused(src);
    assert!(e.to_string().contains("navigation meshes exist only in 2D scenarios"), "{e}");
}

#[test]
fn an_unbounded_world_navigates_in_the_box_round_its_agents() {
    let src = BASE.replace("min = [-10, -5]\nmax = [10, 5]\n", "");
    let s = Scenario::from_toml_str(&src, "nav.toml").unwrap();
    let w = s.build().unwrap();
    assert!(w.navigation.is_some());
}

/// A wall across the whole level: both goals lie beyond it. Each agent's goal is reported
/// unreachable once (metrics.json's `unreachable`), and each stops at the reachable point
/// nearest its goal: against the wall, never in it.
#[test]
fn unreachable_goals_are_counted_once_and_their_agents_stop_at_the_wall() {
    use steerkit_scenario::simulation::{Outputs, Simulation};
    let src = with("max = [0.25, 3]", "max = [0.25, 5]");
    let s = Scenario::from_toml_str(&src, "nav.toml").unwrap();
    let outputs = Outputs { metrics: true, replay: None };
    let mut sim = Simulation::<Vec2>::new(&s, outputs).unwrap();
    for _ in 0..s.steps() {
        sim.step().unwrap();
    }
    let m = sim.metrics(1, 0.0).unwrap();
    assert_eq!(m.unreachable, Some(2));
    for p in sim.crowd().positions() {
        // the wall's face is x = −0.25; the body keeps its radius and the clearance off it
        assert!(p.x < -0.25 - 0.39 && p.x > -0.25 - 0.8, "{p} is not against the wall");
    }
}

/// The scenario file `scripts/nav-compare.sh` writes for `level` (a level of the DetourCrowd
/// comparison, scripts/detour/levels) at `n` agents, with the agents' goals: the walkable box,
/// the obstacle boxes, radius 0.4 m, 1.5 m/s, dt 1/30 s, home within 1 m, `navigate` with ORCA,
/// every navigation setting the default.
fn level_file(level: &str, n: u64) -> (String, Vec<Vec2>) {
    let path = format!("{}/../../scripts/detour/levels/{level}.json", env!("CARGO_MANIFEST_DIR"));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = d["cases"].as_array().unwrap().iter().find(|c| c["n"] == n).unwrap();
    let xy = |v: &serde_json::Value| {
        Vec2::new(v[0].as_f64().unwrap() as f32, v[1].as_f64().unwrap() as f32)
    };
    let starts: Vec<Vec2> = case["starts"].as_array().unwrap().iter().map(xy).collect();
    let goals: Vec<Vec2> = case["goals"].as_array().unwrap().iter().map(xy).collect();
    let agents: Vec<String> = starts
        .iter()
        .zip(&goals)
        .map(|(s, g)| format!("{{ position = [{}, {}], goal = [{}, {}] }}", s.x, s.y, g.x, g.y))
        .collect();
    let w = |i: usize| d["walkable"][i].as_f64().unwrap();
    let obstacles: String = d["obstacles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            format!(
                "[[obstacles]]\nshape = \"box\"\nmin = [{}, {}]\nmax = [{}, {}]\n",
                b[0], b[1], b[2], b[3]
            )
        })
        .collect();
    let src = format!(
        r#"name = "{level}_{n}"
dt = 0.03333333333333333
duration = 300
[world]
min = [{}, {}]
max = [{}, {}]
neighbour_radius = 4.0
{obstacles}[[groups]]
name = "agents"
agents = [{}]
arrive_radius = 1.0
radius = 0.4
non_penetration = true
orca = {{ time_horizon = 2.0, obstacle_time_horizon = 1.0, max_neighbours = 10 }}
limits = {{ max_speed = 1.5, max_acceleration = 45.0, max_rotation = 4.0, max_angular_acceleration = 20.0 }}
behaviour = {{ kind = "navigate", target_radius = 0.05, braking = true, time_to_target = 0.25 }}
"#,
        w(0),
        w(1),
        w(2),
        w(3),
        agents.join(", ")
    );
    (src, goals)
}

/// Runs a level file until every agent is within 1 m of its goal at once (s), or `None` by
/// `limit` (s); also returns the navigator's counts of passages taken in turns and two-way.
fn all_home(src: &str, goals: &[Vec2], limit: f32) -> (Option<f32>, [usize; 2]) {
    let s = Scenario::from_toml_str(src, "level.toml").unwrap();
    let mut w = s.build().unwrap();
    let handles = w.groups[0].agents.clone();
    let nav = w.navigation.as_ref().unwrap();
    let passages = [nav.passages(0.4).len(), nav.two_way_passages(0.4).len()];
    for step in 1..=(limit / s.dt()) as usize {
        let crowd = &mut w.crowd;
        w.navigation.as_mut().unwrap().update(crowd, s.dt());
        crowd.step(s.dt()).unwrap();
        let home = handles
            .iter()
            .zip(goals)
            .all(|(h, g)| crowd.kinematic(*h).unwrap().position.distance(*g) <= 1.0);
        if home {
            return (Some(step as f32 * s.dt()), passages);
        }
    }
    (None, passages)
}

/// The corridor swap of the DetourCrowd comparison at N = 100 (`level_file`): 50 walkers at
/// each end of a 40 × 6 m corridor, each bound for the mirror of its start across it. The
/// corridor is narrower than 8 diameters but wider than 6, so it is a two-way passage, each
/// stream in its right half: everyone is home (within 1 m) at once within 240 s (measured
/// 66.1 s; taking turns 115.6 s; with neither nobody arrives in 300 s).
#[test]
fn a_corridor_swap_of_100_passes_in_lanes_and_everyone_gets_home() {
    let (src, goals) = level_file("corridor", 100);
    let (t, passages) = all_home(&src, &goals, 240.0);
    assert_eq!(passages, [0, 1], "the corridor is a two-way passage");
    let t = t.expect("every walker home at once within 240 s");
    println!("all home at {t:.1} s");
}

/// The rooms level of the DetourCrowd comparison at N = 500 (`level_file`): four 60 × 60 m
/// rooms joined by 2 m doors, 125 walkers in each bound for points in the diagonally opposite
/// room, two doors away; each door is crossed in turns. Everyone is home at once within the
/// comparison's 300 s (measured 233.6 s; 278.2 s before routes went round doors taken the
/// other way). Before arrived and waiting agents made way for walkers bound past them, 480
/// arrived and never all at once; DetourCrowd has none all home.
#[test]
fn five_hundred_walkers_cross_the_rooms_and_everyone_gets_home() {
    let (src, goals) = level_file("rooms", 500);
    let (t, passages) = all_home(&src, &goals, 300.0);
    assert_eq!(passages, [4, 0], "each door is a passage taken in turns");
    let t = t.expect("every walker home at once within 300 s");
    println!("all home at {t:.1} s");
}

/// The same at N = 1,000: each 2 m door carries ~500 crossings. Routes that go round a door
/// taken the other way turn the four doors one way round the level, and at each door the
/// walkers nearest the mouth go first (single file), so none wedges in it: everyone is home at
/// once within 600 s (measured 391.1 s). Before, the doors jammed for good (56 arrived by
/// 300 s); DetourCrowd has none all home.
#[test]
fn a_thousand_walkers_cross_the_rooms_and_everyone_gets_home() {
    let (src, goals) = level_file("rooms", 1000);
    let (t, _) = all_home(&src, &goals, 600.0);
    let t = t.expect("every walker home at once within 600 s");
    println!("all home at {t:.1} s");
}
