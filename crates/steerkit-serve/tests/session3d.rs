//! The live session in 3D: every 3D gallery scenario without turrets loads and steps, frames
//! carry three components and attitudes, saving round-trips, sliders and goal drags take effect,
//! bad 3D messages are answered with errors, and the session is deterministic.

use serde_json::{json, Value};
use steerkit::Vec3;
use steerkit_scenario::Scenario;
use steerkit_serve::protocol::{Entry, Live};
use steerkit_serve::session::{AnySession, Handle, Session3};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");

fn gallery(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}.toml")).expect("a gallery scenario")
}

fn load(name: &str) -> Session3 {
    Session3::from_toml(&gallery(name), &format!("{name}.toml")).expect("the scenario loads")
}

fn frame(s: &Session3) -> Value {
    serde_json::from_str(&s.frame_json()).expect("frames are JSON")
}

fn xyz(v: &Value, key: &str, k: usize) -> [f64; 3] {
    let a = v[key].as_array().expect("array");
    [a[3 * k].as_f64().unwrap(), a[3 * k + 1].as_f64().unwrap(), a[3 * k + 2].as_f64().unwrap()]
}

fn length(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The 3D scenarios of the gallery the playground runs live.
const LIVE_3D: [&str; 4] = ["flock3d", "pursuit3d", "ring_course", "orca_sphere"];

/// Each loads in the 3D session, steps 2 s, and its frames and recording have the 3D shape:
/// three components per agent, a unit attitude quaternion per agent, the world's volume and
/// spheres.
#[test]
fn every_3d_gallery_scenario_loads_live_and_steps() {
    for name in LIVE_3D {
        let any = AnySession::from_toml(&gallery(name), name).expect("loads");
        assert_eq!(any.dims(), 3, "{name}");
        let mut s = load(name);
        let start = frame(&s);
        for _ in 0..50 {
            s.step().unwrap();
        }
        let n = s.agent_count();
        let f = frame(&s);
        assert_eq!(f["position"].as_array().unwrap().len(), 3 * n, "{name}");
        assert_eq!(f["velocity"].as_array().unwrap().len(), 3 * n, "{name}");
        assert_eq!(f["orientation"].as_array().unwrap().len(), n, "{name}");
        let att = f["attitude"].as_array().unwrap();
        assert_eq!(att.len(), 4 * n, "{name}");
        for q in att.chunks(4) {
            let l: f64 = q.iter().map(|c| c.as_f64().unwrap().powi(2)).sum::<f64>().sqrt();
            assert!((l - 1.0).abs() < 1e-3, "{name}: |q| = {l}");
        }
        let moved = (0..n).any(|k| {
            let (a, b) = (xyz(&start, "position", k), xyz(&f, "position", k));
            length([a[0] - b[0], a[1] - b[1], a[2] - b[2]]) > 0.1
        });
        assert!(moved, "{name}: the agents move");
        let rec = s.recording();
        assert_eq!(rec["meta"]["dims"], 3, "{name}");
        assert_eq!(rec["agent_groups"].as_array().unwrap().len(), n, "{name}");
        assert!(rec["world"]["volume"]["min"].as_array().is_some_and(|a| a.len() == 3), "{name}");
        assert!(!s.params().is_empty(), "{name} has sliders");
    }
    let rec = load("flock3d").recording();
    assert_eq!(rec["world"]["spheres"].as_array().unwrap().len(), 5);
    assert_eq!(rec["world"]["spheres"][0]["center"], json!([0.0, 15.0, 0.0]));
    assert_eq!(rec["world"]["bounds"], json!({"min": [-40.0, -40.0], "max": [40.0, 40.0]}));
    assert!(frame(&load("flock3d"))["overlays"]["rays"]["from"].as_array().is_some());
}

/// The turret scenarios still need `steerkit run`, and say so.
#[test]
fn turret_scenarios_are_refused_clearly() {
    for name in ["turret_lead", "turret_drag", "grenade_dodge"] {
        let e = AnySession::from_toml(&gallery(name), &format!("{name}.toml")).err().unwrap();
        assert!(e.contains("turrets") && e.contains("steerkit run"), "{name}: {e}");
    }
}

/// A 3D save parses, builds in 3D and holds every agent where it was (1 mm) with its
/// velocity (1 mm/s); the saved world then runs on like the session (1 mm after 1 s) for a
/// scenario whose behaviour does not read the body's attitude.
#[test]
fn a_3d_save_reloads_with_agents_within_a_millimetre() {
    for name in LIVE_3D {
        let mut s = load(name);
        for _ in 0..40 {
            s.step().unwrap();
        }
        let saved = s.save_toml().unwrap();
        let back = Scenario::from_toml_str(&saved, "saved.toml")
            .unwrap_or_else(|e| panic!("{name}: saved file does not load: {e}\n{saved}"));
        assert_eq!(back.dimensions(), 3, "{name}");
        let world = back.build_in::<Vec3>().unwrap();
        for (g, h) in world.groups.iter().zip(&s.world().groups) {
            for (&a, &b) in g.agents.iter().zip(&h.agents) {
                let (p, q) =
                    (world.crowd.kinematic(a).unwrap(), s.world().crowd.kinematic(b).unwrap());
                assert!((p.position - q.position).length() < 1e-3, "{name}");
                assert!((p.velocity - q.velocity).length() < 1e-3, "{name}");
            }
        }
    }
    let mut s = load("pursuit3d");
    for _ in 0..60 {
        s.step().unwrap();
    }
    let saved = s.save_toml().unwrap();
    let mut world =
        Scenario::from_toml_str(&saved, "saved.toml").unwrap().build_in::<Vec3>().unwrap();
    for _ in 0..50 {
        s.step().unwrap();
        world.crowd.step(s.dt()).unwrap();
    }
    for (g, h) in world.groups.iter().zip(&s.world().groups) {
        let (a, b) = (g.agents[0], h.agents[0]);
        let (p, q) = (
            world.crowd.kinematic(a).unwrap().position,
            s.world().crowd.kinematic(b).unwrap().position,
        );
        assert!((p - q).length() < 1e-3, "{p} vs {q}");
    }
}

/// The pursuer's max speed slider (a 3D recipe's limit) changes its measured speed: it flies at
/// 3 m/s after its prey, then at 1.5 m/s (±2 %) once the slider says so.
#[test]
fn a_3d_max_speed_slider_takes_effect() {
    let mut s = load("pursuit3d");
    let path = "groups[1].limits.max_speed";
    assert!(s.params().iter().any(|p| p.path == path && p.value == 3.0));
    for _ in 0..150 {
        s.step().unwrap();
    }
    let speed = |s: &Session3| length(xyz(&frame(s), "velocity", 2));
    assert!((speed(&s) - 3.0).abs() < 0.06, "before: {}", speed(&s));
    let before = xyz(&frame(&s), "position", 2);
    s.set_param(path, 1.5).unwrap();
    let after = xyz(&frame(&s), "position", 2);
    assert_eq!(before, after, "the slider keeps the agents where they are");
    for _ in 0..100 {
        s.step().unwrap();
    }
    assert!((speed(&s) - 1.5).abs() < 0.03, "after: {}", speed(&s));
    // every 3D recipe's numeric keys are sliders: whisker lookahead, separation, wander
    let f = load("flock3d");
    for key in ["lookahead", "threshold", "jitter", "max_speed"] {
        assert!(f.params().iter().any(|p| p.path.ends_with(key)), "flock3d has `{key}`");
    }
}

const ONE_SEEKER: &str = r#"
name = "seeker3d"
dimensions = 3
seed = 1
dt = 0.02
duration = 10.0
[world]
min = [-50.0, 0.0, -50.0]
max = [50.0, 30.0, 50.0]
neighbour_radius = 2.0
[[obstacles]]
shape = "sphere"
center = [0.0, 15.0, 30.0]
radius = 3.0
[[groups]]
name = "seekers"
radius = 0.5
limits = { max_speed = 4.0, max_acceleration = 8.0, max_rotation = 4.0, max_angular_acceleration = 20.0 }
behaviour = { kind = "seek", use_goal = true }
agents = [{ position = [0.0, 5.0, 0.0], goal = [30.0, 5.0, 0.0] }]
"#;

/// Dragging a goal in 3D moves it (x, y, z) and the agent turns toward it: 2.5 s later its
/// velocity points within 10° of the new goal.
#[test]
fn a_3d_goal_drag_moves_the_goal_and_the_agent_turns() {
    let mut s = Session3::from_toml(ONE_SEEKER, "seeker3d.toml").unwrap();
    for _ in 0..100 {
        s.step().unwrap();
    }
    let goal = [-20.0, 12.0, -15.0];
    s.move_goal(Some(0), None, goal).unwrap();
    assert!(matches!(
        s.handles().iter().find(|h| matches!(h, Handle::Goal { .. })),
        Some(Handle::Goal { agent: 0, x, y, z: Some(z) }) if *x == -20.0 && *y == 12.0 && *z == -15.0
    ));
    for _ in 0..125 {
        s.step().unwrap();
    }
    let f = frame(&s);
    let (p, v) = (xyz(&f, "position", 0), xyz(&f, "velocity", 0));
    let to = [goal[0] - p[0], goal[1] - p[1], goal[2] - p[2]];
    let cos = (to[0] * v[0] + to[1] * v[1] + to[2] * v[2]) / (length(to) * length(v));
    assert!(cos > 10f64.to_radians().cos(), "angle {}°", cos.acos().to_degrees());
    // the sphere moves to where it is dragged (its y kept by the page, given here)
    s.move_obstacle(0, [10.0, 15.0, 30.0]).unwrap();
    assert_eq!(s.recording()["world"]["spheres"][0]["center"], json!([10.0, 15.0, 30.0]));
    assert!(s.handles().iter().any(
        |h| matches!(h, Handle::Obstacle { id: 0, x, z: Some(z), .. } if *x == 10.0 && *z == 30.0)
    ));
    // an agent added in 3D lands where asked and takes the group's goal
    s.add_agent("seekers", [5.0, 8.0, 5.0]).unwrap();
    assert_eq!(s.agent_count(), 2);
    assert_eq!(xyz(&frame(&s), "position", 1), [5.0, 8.0, 5.0]);
    s.remove_agent(1).unwrap();
    assert_eq!(s.agent_count(), 1);
}

fn catalogue() -> Vec<Entry> {
    steerkit_serve::catalogue(&[("flock3d", Box::leak(gallery("flock3d").into_boxed_str()))])
}

fn error_of(live: &mut Live, cat: &[Entry], text: &str) -> String {
    let (replies, _) = live.handle(text, cat);
    let v: Value = serde_json::from_str(&replies[0]).unwrap();
    assert_eq!(v["type"], "error", "{text}");
    v["message"].as_str().unwrap().to_owned()
}

/// Bad 3D messages are one-line errors naming the key, the value and what is allowed, and
/// change nothing; a 2D scenario refuses a `z`.
#[test]
fn bad_3d_messages_get_errors() {
    let cat = catalogue();
    let mut live = Live::default();
    let (_, e) = live.handle(r#"{"type":"load","name":"flock3d"}"#, &cat);
    assert!(e.scenario);
    let before = live.session.as_ref().unwrap().frame_json();
    for (msg, words) in [
        (r#"{"type":"move_obstacle","id":0,"x":1,"y":2}"#, "`z` is missing"),
        (r#"{"type":"move_obstacle","id":0,"x":1,"y":2,"z":1e9}"#, "`z` = 1e9 is out of range"),
        (r#"{"type":"move_obstacle","id":9,"x":1,"y":2,"z":3}"#, "the obstacles are 0 to 4"),
        (r#"{"type":"move_wall_end","id":0,"end":0,"x":1,"y":2,"z":3}"#, "the scenario has none"),
        (r#"{"type":"add_agent","group":"fish","x":1,"y":2,"z":3}"#, "`birds`"),
        (r#"{"type":"add_agent","group":"birds","x":0,"y":15,"z":0}"#, "inside a solid"),
        (r#"{"type":"move_goal","agent":0,"x":1,"y":2,"z":"up"}"#, "move_goal"),
        (r#"{"type":"set_param","path":"groups[0].limits.max_speed","value":-1}"#, "allowed 0 to"),
    ] {
        let m = error_of(&mut live, &cat, msg);
        assert!(m.contains(words) && !m.contains('\n'), "{msg}: {m}");
    }
    assert_eq!(live.session.as_ref().unwrap().frame_json(), before, "nothing changed");
    let (_, e) = live.handle(r#"{"type":"load","name":"seek"}"#, &cat);
    assert!(e.scenario);
    let m = error_of(&mut live, &cat, r#"{"type":"move_goal","agent":0,"x":1,"y":2,"z":3}"#);
    assert!(m.contains("`z` = 3 is for 3D scenarios"), "{m}");
}

/// The same 3D scenario and the same messages at the same steps give the same frames.
#[test]
fn sessions_in_3d_are_deterministic() {
    let run = || {
        let cat = catalogue();
        let mut live = Live::default();
        live.handle(r#"{"type":"load","name":"flock3d"}"#, &cat);
        let mut frames = Vec::new();
        for step in 0..200 {
            let msg = match step {
                30 => r#"{"type":"set_param","path":"groups[0].limits.max_speed","value":3.5}"#,
                60 => r#"{"type":"move_obstacle","id":2,"x":24,"y":19,"z":-14}"#,
                90 => r#"{"type":"select","id":7}"#,
                120 => r#"{"type":"add_agent","group":"birds","x":-30,"y":5,"z":30}"#,
                150 => r#"{"type":"remove_agent","id":3}"#,
                _ => r#"{"type":"step"}"#,
            };
            let (replies, _) = live.handle(msg, &cat);
            assert!(replies.is_empty(), "{msg}: {replies:?}");
            frames.push(live.frame_message().unwrap());
        }
        frames
    };
    let (a, b) = (run(), run());
    assert_eq!(a.len(), 200);
    assert!(a == b);
}
