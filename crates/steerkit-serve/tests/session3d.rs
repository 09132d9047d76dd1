//! The live session in 3D: every 3D gallery scenario loads and steps (turrets as `steerkit run`
//! runs them), frames carry three components and attitudes, saving round-trips, sliders and goal
//! drags take effect, bad 3D messages are answered with errors, and the session is
//! deterministic.

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

/// The 3D scenarios of the gallery (all of them run live).
const LIVE_3D: [&str; 7] = [
    "flock3d",
    "pursuit3d",
    "ring_course",
    "orca_sphere",
    "turret_lead",
    "turret_drag",
    "grenade_dodge",
];

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

/// The turret scenarios run live with `steerkit run`'s own turret code (`Ballistics`, stepped
/// after the crowd as the runner steps it): over 12 s the session's agents, its turrets' counts
/// and the shots that ended are, bit for bit, those of a world built from the file and stepped
/// the runner's way; shots are fired and hit (or blasts go off); frames and the recording carry
/// the turrets, the shots in the air and those just ended in the recording's shape.
#[test]
fn turret_scenarios_run_live_as_steerkit_run_runs_them() {
    use steerkit_scenario::ballistics::Ballistics;
    for name in ["turret_lead", "turret_drag", "grenade_dodge"] {
        let text = gallery(name);
        let mut s = Session3::from_toml(&text, name).unwrap();
        assert!(AnySession::from_toml(&text, name).unwrap().has_turrets(), "{name}");
        // the runner's way: build, number the agents, turrets stepped after the crowd
        let scenario = Scenario::from_toml_str(&text, name).unwrap();
        let plan = scenario.plan::<Vec3>().unwrap();
        let mut world = scenario.build_in::<Vec3>().unwrap();
        let handles: Vec<_> = world.groups.iter().flat_map(|g| g.agents.clone()).collect();
        let number = |h| handles.iter().position(|x| *x == h).map(|i| i as u32);
        let volume = world.bounds.corners();
        let groups = world.groups.clone();
        let mut b = Ballistics::new(
            &plan.turrets,
            |t| {
                let h = groups[t.target.group].agents[t.target.index];
                Some((h, number(h)?))
            },
            volume,
        )
        .unwrap();
        let dt = world.settings.dt;
        let steps = (12.0 / dt).round() as u32;
        let mut finished = Vec::new();
        let mut drawn_in_flight = 0;
        for step in 1..=steps {
            s.step().unwrap();
            world.crowd.step(dt).unwrap();
            let crowd = &world.crowd;
            let bodies: Vec<(u32, Vec3, f32)> = crowd
                .handles()
                .zip(crowd.positions())
                .filter_map(|(h, &p)| Some((number(h)?, p, crowd.radius(h)?)))
                .collect();
            let out = b.step(step, dt, &mut world.crowd, &bodies, |v| v, |v| v).unwrap();
            finished.extend(out.finished);
            let shots = s.shots();
            drawn_in_flight += shots.iter().filter(|sh| sh.outcome == "flying").count();
            // a shot just ended is the runner's, rounded to 1 mm
            for sh in shots.iter().filter(|sh| sh.outcome != "flying") {
                let r = finished
                    .iter()
                    .find(|f| f.step == sh.step && f.turret == sh.turret)
                    .unwrap_or_else(|| panic!("{name}: a shot the runner did not end"));
                assert_eq!((r.end, &r.outcome, r.hit), (sh.end, &sh.outcome, sh.hit), "{name}");
                for (a, c) in r.impact.iter().zip(&sh.impact) {
                    assert!((a - c).abs() <= 6e-4, "{name}: {:?} vs {:?}", r.impact, sh.impact);
                }
            }
        }
        for (&a, g) in handles.iter().zip(s.world().groups.iter().flat_map(|g| &g.agents)) {
            let (p, q) =
                (world.crowd.kinematic(a).unwrap(), s.world().crowd.kinematic(*g).unwrap());
            assert_eq!((p.position, p.velocity), (q.position, q.velocity), "{name}");
        }
        let (live, run) = (s.turret_metrics(), b.metrics());
        assert_eq!(live, run, "{name}");
        let fired: u64 = live.iter().map(|t| t.shots).sum();
        let ended: u64 = live.iter().map(|t| t.hits + t.misses + t.blasts).sum();
        assert!(fired >= 6 && ended >= 4, "{name}: {live:?}");
        assert!(drawn_in_flight > 0, "{name}: shots in the air are sent");
        if name == "grenade_dodge" {
            assert!(live[1].target_caught >= 2, "the walker is caught: {live:?}");
            assert_eq!(live[0].target_caught, 0, "the dodger flees the predicted blast");
        } else {
            assert!(live[1].target_hits >= 4, "{name}: the leading gun hits: {live:?}");
        }
        // the page's view: turrets in the recording, shots and counts in the frame message
        let rec = s.recording();
        let turrets = rec["world"]["turrets"].as_array().unwrap();
        assert_eq!(turrets.len(), 2, "{name}");
        assert_eq!(turrets[0]["position"].as_array().unwrap().len(), 3, "{name}");
        assert!(rec["shots"].is_array(), "{name}");
        let cat = steerkit_serve::catalogue(&[(name, text.as_str())]);
        let mut l = Live::default();
        l.handle(&format!(r#"{{"type":"load","name":"{name}"}}"#), &cat);
        for _ in 0..200 {
            l.handle(r#"{"type":"step"}"#, &cat);
        }
        let f: Value = serde_json::from_str(&l.frame_message().unwrap()).unwrap();
        assert_eq!(f["turrets"].as_array().unwrap().len(), 2, "{name}");
        assert!(f["turrets"][0]["shots"].as_u64().unwrap() >= 1, "{name}");
        let shots = f["shots"].as_array().unwrap();
        assert!(!shots.is_empty(), "{name}: a shot in the air or just ended at 4 s");
        for sh in shots {
            assert!(sh["predicted"].as_array().unwrap().len() >= 2, "{name}");
            assert!(sh["path"][0].as_array().unwrap().len() == 4, "{name}");
            assert!(sh["step"].as_u64().unwrap() <= sh["end"].as_u64().unwrap(), "{name}");
        }
    }
    // a scenario without turrets sends neither
    let cat = catalogue();
    let mut l = Live::default();
    l.handle(r#"{"type":"load","name":"flock3d"}"#, &cat);
    let f: Value = serde_json::from_str(&l.frame_message().unwrap()).unwrap();
    assert!(f.get("shots").is_none() && f.get("turrets").is_none());
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
        (r#"{"type":"move_turret","id":0,"x":1,"y":2,"z":3}"#, "no turret; the scenario has none"),
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

/// Edits while shells fly: a dragged turret keeps its shells in the air and its counts, and its
/// next shell leaves from where it now stands; a slider and an added agent keep them too; a
/// grenade's predicted blast stays the crowd's hazard across a rebuild; bad `move_turret`
/// messages get one-line errors and change nothing; a turret's only target cannot be removed.
#[test]
fn turret_edits_keep_the_shells_in_the_air_and_the_counts() {
    let mut s = load("turret_lead");
    // the first shells leave at 1 s and are in the air at 1.6 s
    for _ in 0..80 {
        s.step().unwrap();
    }
    let (counts, shots) = (s.turret_metrics(), s.shots());
    assert!(shots.iter().filter(|sh| sh.outcome == "flying").count() == 2, "{shots:?}");
    s.move_turret(0, [5.0, 1.5, 36.0]).unwrap();
    assert_eq!((s.turret_metrics(), s.shots()), (counts.clone(), shots.clone()));
    let at = s.handles().into_iter().find_map(|h| match h {
        Handle::Turret { id: 0, x, y, z } => Some([x, y, z.unwrap()]),
        _ => None,
    });
    assert_eq!(at, Some([5.0, 1.5, 36.0]));
    assert_eq!(s.recording()["world"]["turrets"][0]["position"], json!([5.0, 1.5, 36.0]));
    s.set_param("groups[0].limits.max_speed", 4.0).unwrap();
    s.add_agent("runners", [0.0, 0.0, 0.0]).unwrap();
    assert_eq!((s.turret_metrics(), s.shots()), (counts, shots));
    // the next shell of the moved turret leaves from there
    while s.turret_metrics()[0].shots < 2 {
        s.step().unwrap();
    }
    let last = s.shots().into_iter().filter(|sh| sh.turret == 0).max_by_key(|sh| sh.step).unwrap();
    assert_eq!(&last.path[0][1..], &[5.0, 1.5, 36.0]);
    assert_eq!(last.predicted[0], [5.0, 1.5, 36.0]);
    // bad messages
    let text = gallery("turret_lead");
    let cat = steerkit_serve::catalogue(&[("turret_lead", text.as_str())]);
    let mut live = Live::default();
    live.handle(r#"{"type":"load","name":"turret_lead"}"#, &cat);
    let m = error_of(&mut live, &cat, r#"{"type":"move_turret","id":2,"x":0,"y":1,"z":0}"#);
    assert!(m.starts_with("move_turret: `id` = 2 names no turret; the turrets are 0 to 1"), "{m}");
    let m = error_of(&mut live, &cat, r#"{"type":"move_turret","id":0,"x":0,"y":1}"#);
    assert!(m.contains("`z` is missing"), "{m}");
    let m = error_of(&mut live, &cat, r#"{"type":"move_turret","id":0,"x":0,"y":1,"z":1e9}"#);
    assert!(m.contains("`z` = 1e9 is out of range"), "{m}");
    let m = error_of(&mut live, &cat, r#"{"type":"remove_agent","id":0}"#);
    assert!(m.contains("groups[0].agents") && m.contains("no agents"), "{m}");
    assert_eq!(live.session.as_ref().unwrap().agent_count(), 2);
    // a grenade in the air: its predicted blast is the crowd's hazard before and after an edit
    let mut s = load("grenade_dodge");
    for _ in 0..170 {
        s.step().unwrap();
    }
    let hazards = s.world().crowd.hazards().to_vec();
    assert_eq!(hazards.len(), 2, "two grenades in the air");
    s.move_turret(1, [3.0, 1.5, -30.0]).unwrap();
    assert_eq!(s.world().crowd.hazards(), &hazards[..]);
}

/// The same turret scenario and the same messages at the same steps give the same frames,
/// shots and counts included.
#[test]
fn turret_sessions_are_deterministic() {
    let text = gallery("grenade_dodge");
    let run = || {
        let cat = steerkit_serve::catalogue(&[("grenade_dodge", text.as_str())]);
        let mut live = Live::default();
        live.handle(r#"{"type":"load","name":"grenade_dodge"}"#, &cat);
        let mut frames = Vec::new();
        for step in 0..400 {
            let msg = match step {
                160 => r#"{"type":"move_turret","id":1,"x":4,"y":1.5,"z":-30}"#,
                200 => r#"{"type":"set_param","path":"groups[0].limits.max_speed","value":3.5}"#,
                240 => r#"{"type":"add_agent","group":"walkers","x":-20,"y":0,"z":-10}"#,
                _ => r#"{"type":"step"}"#,
            };
            let (replies, _) = live.handle(msg, &cat);
            assert!(replies.is_empty(), "{msg}: {replies:?}");
            frames.push(live.frame_message().unwrap());
        }
        frames
    };
    let (a, b) = (run(), run());
    assert!(a.iter().any(|f| f.contains(r#""outcome":"blast""#)), "a grenade went off");
    assert!(a == b);
}
