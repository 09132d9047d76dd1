//! The live session without sockets: loading every demo and 2D gallery scenario, edits, the
//! parameters, determinism and saving.

use serde_json::Value;
use steerkit_scenario::Scenario;
use steerkit_serve::session::{AnySession, Handle, Session, MAX_AGENTS};
use steerkit_serve::DEMOS;

fn demo(name: &str) -> Session {
    let text = DEMOS.iter().find(|(n, _)| *n == name).expect("a demo").1;
    Session::from_toml(text, &format!("{name}.toml")).expect("the demo loads")
}

fn frame(s: &Session) -> Value {
    serde_json::from_str(&s.frame_json()).expect("frames are JSON")
}

fn xy(v: &Value, key: &str, k: usize) -> (f64, f64) {
    let a = v[key].as_array().expect("array");
    (a[2 * k].as_f64().unwrap(), a[2 * k + 1].as_f64().unwrap())
}

/// Every demo loads, runs 2 s and carries positions for every agent.
#[test]
fn every_demo_loads_and_runs() {
    assert_eq!(DEMOS.len(), 15);
    for (name, _) in DEMOS {
        let mut s = demo(name);
        for _ in 0..100 {
            s.step().unwrap();
        }
        let f = frame(&s);
        let n = s.agent_count();
        assert!(n >= 1, "{name}");
        assert_eq!(f["position"].as_array().unwrap().len(), 2 * n, "{name}");
        assert!(!s.params().is_empty(), "{name} has sliders");
    }
    assert_eq!(demo("flocking").agent_count(), 400, "the big crowd");
}

/// Every 2D gallery scenario loads, and its saved state parses,
/// builds and keeps every agent where it was (to 1 mm).
#[test]
fn gallery_scenarios_load_and_save_round_trips() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut loaded = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let origin = path.file_name().unwrap().to_string_lossy().into_owned();
        // every 2D crowd loads (circle and orca_circle's `antipode` goal rule included)
        let mut s = match Session::from_toml(&text, &origin) {
            Ok(s) => s,
            Err(e) if e.contains("is 3D") => continue,
            Err(e) => panic!("{origin}: {e}"),
        };
        for _ in 0..25 {
            s.step().unwrap();
        }
        let saved = s.save_toml().unwrap();
        let back = Scenario::from_toml_str(&saved, "saved.toml")
            .unwrap_or_else(|e| panic!("{origin}: saved file does not load: {e}\n{saved}"));
        let world = back.build().unwrap();
        assert_eq!(world.crowd.len(), s.world().crowd.len(), "{origin}");
        for (g, h) in world.groups.iter().zip(&s.world().groups) {
            for (&a, &b) in g.agents.iter().zip(&h.agents) {
                let (p, q) =
                    (world.crowd.kinematic(a).unwrap(), s.world().crowd.kinematic(b).unwrap());
                assert!((p.position - q.position).length() < 1e-3, "{origin}: {p:?} vs {q:?}");
            }
        }
        loaded += 1;
    }
    assert!(loaded >= 36, "only {loaded} gallery scenarios loaded");
}

/// A 2D session refuses a 3D file (the connection's `AnySession` picks the space, turrets
/// included); a 3D session refuses a 2D file; a crowd above the cap is refused.
#[test]
fn scenarios_the_playground_cannot_run_are_refused_clearly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let text = std::fs::read_to_string(format!("{dir}/flock3d.toml")).unwrap();
    let e = Session::from_toml(&text, "flock3d.toml").err().expect("refused");
    assert!(e.contains("runs 2D scenarios") && e.contains("3D"), "{e}");
    let text = std::fs::read_to_string(format!("{dir}/turret_lead.toml")).unwrap();
    let e = Session::from_toml(&text, "turret_lead.toml").err().expect("refused");
    assert!(e.contains("runs 2D scenarios") && e.contains("3D"), "{e}");
    let any = AnySession::from_toml(&text, "turret_lead.toml").expect("turrets run live");
    assert_eq!(any.dims(), 3);
    let text = std::fs::read_to_string(format!("{dir}/seek_arrive.toml")).unwrap();
    let e = steerkit_serve::session::Session3::from_toml(&text, "seek_arrive.toml")
        .err()
        .expect("refused");
    assert!(e.contains("runs 3D scenarios") && e.contains("2D"), "{e}");
}

/// A bad file gets the scenario crate's own error: file, line, key and what is allowed.
#[test]
fn a_bad_file_gets_the_scenario_error() {
    let text = DEMOS[0].1.replace("max_speed = 3.0", "max_speed = -3.0");
    let e = Session::from_toml(&text, "bad.toml").err().unwrap();
    assert!(e.contains("bad.toml") && e.contains("max_speed"), "{e}");
    let e = Session::from_toml("name = [", "broken.toml").err().unwrap();
    assert!(e.contains("broken.toml"), "{e}");
}

/// Moving the seeker's goal behind it turns it round: its heading is within 10° of the goal's
/// bearing 2.5 s later.
#[test]
fn moving_the_goal_turns_the_seeker() {
    let mut s = demo("seek");
    for _ in 0..100 {
        s.step().unwrap();
    }
    s.move_goal(Some(0), None, [-10.0, -8.0, 0.0]).unwrap();
    // a goal behind: seek brakes (6 m/s² against 3 m/s) and comes round within 2.5 s
    for _ in 0..125 {
        s.step().unwrap();
    }
    let f = frame(&s);
    let (x, y) = xy(&f, "position", 0);
    let (vx, vy) = xy(&f, "velocity", 0);
    let bearing = (-8.0 - y).atan2(-10.0 - x);
    let heading = vy.atan2(vx);
    let diff = (heading - bearing + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
        - std::f64::consts::PI;
    assert!(diff.abs() < 10f64.to_radians(), "heading {heading} bearing {bearing}");
    assert!(
        matches!(s.handles()[0], Handle::Goal { agent: 0, x, y, .. } if x == -10.0 && y == -8.0)
    );
}

/// The max speed slider changes the running crowd: after the change the seeker's speed
/// settles at the new limit (±2 %), and it keeps its position across the rebuild.
#[test]
fn the_max_speed_slider_takes_effect_and_keeps_the_agents() {
    let mut s = demo("seek");
    s.move_goal(Some(0), None, [1000.0, 0.0, 0.0]).unwrap();
    for _ in 0..150 {
        s.step().unwrap();
    }
    let before = frame(&s);
    let path = "groups[0].limits.max_speed";
    let p = s.params().iter().find(|p| p.path == path).expect("a max speed slider").clone();
    assert_eq!((p.value, p.min), (3.0, 0.0));
    s.set_param(path, 1.5).unwrap();
    let after = frame(&s);
    assert_eq!(xy(&before, "position", 0), xy(&after, "position", 0), "the agent stays put");
    for _ in 0..100 {
        s.step().unwrap();
    }
    let (vx, vy) = xy(&frame(&s), "velocity", 0);
    let speed = vx.hypot(vy);
    assert!((speed - 1.5).abs() < 0.03, "speed {speed}");
    assert_eq!(s.params().iter().find(|p| p.path == path).unwrap().value, 1.5);
}

/// Out-of-range, unknown and library-refused parameters are errors naming the key and the
/// range; the session is unchanged after each.
#[test]
fn bad_parameters_are_refused_and_change_nothing() {
    let mut s = demo("arrive");
    let before = s.save_toml().unwrap();
    let e = s.set_param("groups[0].limits.max_speed", 1e9).unwrap_err();
    assert!(e.contains("out of range") && e.contains("max_speed") && e.contains("0 to 20"), "{e}");
    let e = s.set_param("groups[0].limits.max_speed", f64::NAN).unwrap_err();
    assert!(e.contains("out of range"), "{e}");
    let e = s.set_param("groups[9].nothing", 1.0).unwrap_err();
    assert!(e.contains("no parameter"), "{e}");
    // in the slider's range, refused by the scenario crate: a zero time to target
    let e = s.set_param("groups[0].behaviour.time_to_target", 0.0).unwrap_err();
    assert!(e.contains("time_to_target"), "{e}");
    assert_eq!(s.save_toml().unwrap(), before);
}

/// Obstacles, wall ends, agents: edits change the world; unknown ids are errors.
#[test]
fn world_edits_and_their_errors() {
    let mut s = demo("obstacle_avoidance");
    s.move_obstacle(0, [0.0, 6.0, 0.0]).unwrap();
    let rec = s.recording();
    assert_eq!(rec["world"]["circles"][0]["center"], serde_json::json!([0.0, 6.0]));
    s.move_obstacle(3, [0.0, 0.0, 0.0]).unwrap();
    assert_eq!(rec["world"]["boxes"].as_array().unwrap().len(), 1);
    assert!(s.move_obstacle(4, [0.0, 0.0, 0.0]).unwrap_err().contains("0 to 3"));
    s.add_agent("walkers", [-12.0, 6.0, 0.0]).unwrap();
    assert_eq!(s.agent_count(), 4);
    s.remove_agent(0).unwrap();
    assert_eq!(s.agent_count(), 3);
    assert!(s.remove_agent(3).unwrap_err().contains("0 to 2"));
    assert!(s.add_agent("nobody", [0.0, 0.0, 0.0]).unwrap_err().contains("`walkers`"));

    let mut w = demo("wall_avoidance");
    w.move_wall_end(0, 1, [-2.0, 6.0, 0.0]).unwrap();
    assert_eq!(w.recording()["world"]["walls"][0]["b"], serde_json::json!([-2.0, 6.0]));
    assert!(w
        .move_wall_end(0, 2, [0.0, 0.0, 0.0])
        .unwrap_err()
        .contains("allowed 0 (from) or 1 (to)"));
    assert!(w.move_wall_end(7, 0, [0.0, 0.0, 0.0]).unwrap_err().contains("0 to 2"));

    let mut f = demo("formation");
    let path = "formations[0].anchor.target";
    assert!(f.handles().iter().any(|h| matches!(h, Handle::Target { path: p, .. } if p == path)));
    f.move_target(path, [-8.0, 8.0, 0.0]).unwrap();
    assert!(f
        .move_target("groups[0].behaviour.target", [0.0, 0.0, 0.0])
        .unwrap_err()
        .contains(path));
}

/// Adding agents stops at the session's cap (spread over the world: one point holds at most
/// `MAX_PILE` bodies, the format's own limit, refused with its reason).
#[test]
fn the_agent_cap_holds() {
    let mut s = demo("flocking");
    let refused = (0..300)
        .find_map(|_| s.add_agent("birds", [0.0, 20.0, 0.0]).err())
        .expect("a pile on one point is refused");
    assert!(refused.contains("at most 256") && !refused.contains('\n'), "{refused}");
    let mut added = 0;
    let e = loop {
        let p = [(added % 60) as f64 - 30.0, (added / 60) as f64 - 20.0, 0.0];
        match s.add_agent("birds", p) {
            Ok(()) => added += 1,
            Err(e) => break e,
        }
        assert!(added <= MAX_AGENTS);
    };
    assert_eq!(s.agent_count(), MAX_AGENTS);
    assert!(e.contains("2000"), "{e}");
    let big = DEMOS[12].1.replace("count = 400", "count = 5000");
    assert!(Session::from_toml(&big, "big.toml").err().unwrap().contains("at most 2000"));
}

/// Same scenario and the same edits at the same steps give the same states, bit for bit.
#[test]
fn sessions_are_deterministic() {
    let run = || {
        let mut s = demo("obstacle_avoidance");
        let mut frames = Vec::new();
        for step in 0..300 {
            match step {
                50 => s.move_obstacle(1, [2.0, 0.0, 0.0]).unwrap(),
                100 => s.set_param("groups[0].limits.max_speed", 2.0).unwrap(),
                150 => s.move_goal(None, Some("walkers"), [0.0, 8.0, 0.0]).unwrap(),
                200 => s.add_agent("walkers", [-12.0, 0.0, 0.0]).unwrap(),
                _ => {}
            }
            s.step().unwrap();
            frames.push(s.frame_json());
        }
        frames
    };
    assert!(run() == run());
}

/// A saved state runs with `steerkit run`'s loader and reproduces the live run: stepping the
/// saved file's world matches stepping the session (positions within 1 mm after 1 s).
#[test]
fn a_saved_state_reproduces_the_run() {
    let mut s = demo("seek");
    for _ in 0..60 {
        s.step().unwrap();
    }
    s.move_goal(Some(0), None, [0.0, -6.0, 0.0]).unwrap();
    s.set_param("groups[0].limits.max_acceleration", 3.0).unwrap();
    let saved = s.save_toml().unwrap();
    let mut world = Scenario::from_toml_str(&saved, "saved.toml").unwrap().build().unwrap();
    for _ in 0..50 {
        s.step().unwrap();
        world.crowd.step(0.02).unwrap();
    }
    let (a, b) = (world.groups[0].agents[0], s.world().groups[0].agents[0]);
    let (p, q) = (
        world.crowd.kinematic(a).unwrap().position,
        s.world().crowd.kinematic(b).unwrap().position,
    );
    assert!((p - q).length() < 1e-3, "{p} vs {q}");
}

/// The page is the replay player with the live script added: one more script element and no
/// other, the recording placeholder filled, nothing loaded from the network.
#[test]
fn the_page_is_the_replay_player_with_the_live_script() {
    const REPLAY: &str = steerkit_scenario::recording::PLAYER;
    const LIVE: &str = include_str!("../../../web/live.js");
    assert!(!LIVE.to_ascii_lowercase().contains("</script"), "live.js must not end its element");
    let page = steerkit_serve::page();
    assert!(!page.contains("__STEERKIT_RECORDING__"));
    assert!(page.contains("window.steerkitReplay") && page.contains("window.steerkitLive"));
    assert_eq!(page.matches("</script>").count(), REPLAY.matches("</script>").count() + 1);
    for scheme in ["http://", "https://", "//fonts.", "@import", "src=\""] {
        assert!(!page.contains(scheme), "the page contains {scheme}");
    }
}

/// A behaviour slider replaces the running group's recipe and nothing else: set to the value it
/// already has, the wanderers' next 200 frames are bit-identical to a session left alone (their
/// wander angles kept), and a new value changes their motion.
#[test]
fn a_behaviour_slider_keeps_every_agent_state() {
    let path = "groups[0].behaviour.jitter";
    let mut a = demo("wander");
    let mut b = demo("wander");
    for _ in 0..100 {
        a.step().unwrap();
        b.step().unwrap();
    }
    a.set_param(path, 3.0).unwrap();
    for _ in 0..200 {
        a.step().unwrap();
        b.step().unwrap();
        assert_eq!(a.frame_json(), b.frame_json());
    }
    a.set_param("groups[0].behaviour.radius", 0.0).unwrap();
    for _ in 0..200 {
        a.step().unwrap();
        b.step().unwrap();
    }
    assert_ne!(a.frame_json(), b.frame_json());
}

/// Side views run live through `steerkit run`'s own side-view code (`SideViewRun`): the
/// session's jumpers follow, bit for bit over 8 s, a world built from the file and stepped the
/// way the runner steps it; the page gets the platforms (as walls) and planned jumps (as paths);
/// the jump speed is a slider; a saved side view loads again.
#[test]
fn side_views_run_live_as_steerkit_run_runs_them() {
    use steerkit_scenario::platform::{JumperGroup, SideViewRun};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    for name in ["platforms", "run_up"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}.toml")).unwrap();
        let mut s = Session::from_toml(&text, name).unwrap();
        // the runner's way: build, plan the jumpers with their numbers, step crowd then jumpers
        let scenario = Scenario::from_toml_str(&text, name).unwrap();
        let plan = scenario.plan::<steerkit::Vec2>().unwrap();
        let mut world = scenario.build().unwrap();
        let mut number = 0u32;
        let mut groups = Vec::new();
        for (g, gp) in world.groups.iter().zip(&plan.groups) {
            let first = number;
            number += g.agents.len() as u32;
            if let Some(j) = gp.jump {
                groups.push(JumperGroup {
                    name: g.name.clone(),
                    agents: g
                        .agents
                        .iter()
                        .enumerate()
                        .map(|(k, &h)| (h, first + k as u32))
                        .collect(),
                    radius: gp.radius,
                    limits: gp.limits,
                    jump_speed: j.jump_speed,
                });
            }
        }
        let crowd = &world.crowd;
        let mut sv =
            SideViewRun::new(plan.side_view.as_ref().unwrap(), groups, world.settings.dt, |h| {
                crowd.kinematic(h).map(|k| k.position)
            })
            .unwrap();
        let dt = world.settings.dt;
        let steps = (8.0 / dt).round() as usize;
        for _ in 0..steps {
            s.step().unwrap();
            world.crowd.step(dt).unwrap();
            sv.step(dt, &mut world.crowd).unwrap();
        }
        let mut moved = 0.0f32;
        for (g, h) in world.groups.iter().zip(&s.world().groups) {
            for (&a, &b) in g.agents.iter().zip(&h.agents) {
                let (p, q) =
                    (world.crowd.kinematic(a).unwrap(), s.world().crowd.kinematic(b).unwrap());
                assert_eq!(p.position, q.position, "{name}");
                moved = moved.max(p.position.x);
            }
        }
        assert!(moved > 10.0, "{name}: the jumpers ran ({moved} m)");
        let rec = s.recording();
        let platforms = text.matches("[[platforms]]").count();
        assert_eq!(rec["world"]["walls"].as_array().unwrap().len(), platforms, "{name}");
        assert!(!rec["world"]["paths"].as_array().unwrap().is_empty(), "{name}: planned jumps");
        assert!(s.params().iter().any(|p| p.path.ends_with("jump.jump_speed")), "{name}");
        // a jumper in the air cannot be written as a file's start: Save says so; on the
        // ground (here: the start) the saved file loads
        match s.save_toml() {
            Ok(saved) => assert!(Scenario::from_toml_str(&saved, "saved.toml").is_ok(), "{name}"),
            Err(e) => assert!(e.starts_with("save: ") && e.contains("platform"), "{name}: {e}"),
        }
        s.reset().unwrap();
        let saved = s.save_toml().unwrap();
        Scenario::from_toml_str(&saved, "saved.toml")
            .unwrap_or_else(|e| panic!("{name}: the saved side view does not load: {e}"));
    }
    // a slower jump speed replans the course: the athletes can no longer clear the second gap
    let text = std::fs::read_to_string(format!("{dir}/platforms.toml")).unwrap();
    let mut s = Session::from_toml(&text, "platforms").unwrap();
    let arcs = |s: &Session| s.recording()["world"]["paths"].clone();
    let before = arcs(&s);
    s.set_param("groups[0].jump.jump_speed", 4.0).unwrap();
    assert_ne!(arcs(&s), before, "the planned jumps change with the jump speed");
    // edits at any moment (jumpers on the ground, in the air, stopped, fallen) replan from
    // where they are and the run carries on
    let mut s = Session::from_toml(&text, "platforms").unwrap();
    for k in 0..70 {
        for _ in 0..10 {
            s.step().unwrap();
        }
        let v = if k % 2 == 0 { 6.0 } else { 7.0 };
        s.set_param("groups[0].limits.max_speed", v).unwrap();
    }
    let e = s.add_agent("athletes", [5.0, 4.0, 0.0]).unwrap_err();
    assert!(e.contains("platform top"), "{e}");
}
