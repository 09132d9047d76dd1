//! The protocol over a real socket: round trips, every kind of bad message, the session cap.

mod common;
use common::{connect, next_of, send, start};
use futures_util::SinkExt;

/// hello, scenario, frames; pause, step, speed, load, move, select, save.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trips() {
    let addr = start().await;
    // the page itself
    let body = http_get(addr, "/").await;
    assert!(body.contains("steerkit playground") && body.contains("steerkitReplay"));
    assert!(body.contains("/ws"), "the page opens the socket");

    let mut ws = connect(addr).await;
    let hello = next_of(&mut ws, "hello", 5).await;
    let names: Vec<&str> = hello["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 15);
    assert!(names.contains(&"formation") && names.contains(&"wall_avoidance"));
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(sc["name"], "seek");
    assert_eq!(sc["recording"]["format"], "steerkit-replay");
    assert!(sc["params"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["path"] == "groups[0].limits.max_speed"));

    // frames arrive while running, with time advancing
    let f1 = next_of(&mut ws, "frame", 5).await;
    let f2 = next_of(&mut ws, "frame", 5).await;
    assert!(f2["step"].as_u64() > f1["step"].as_u64());

    send(&mut ws, r#"{"type":"pause"}"#).await;
    let paused = next_of(&mut ws, "frame", 5).await;
    assert_eq!(paused["paused"], true);
    send(&mut ws, r#"{"type":"step"}"#).await;
    let stepped = next_of(&mut ws, "frame", 5).await;
    assert_eq!(stepped["step"].as_u64().unwrap(), paused["step"].as_u64().unwrap() + 1);

    send(&mut ws, r#"{"type":"move_goal","agent":0,"x":-5,"y":5}"#).await;
    let moved = next_of(&mut ws, "frame", 5).await;
    assert_eq!(moved["handles"][0], serde_json::json!({"kind":"goal","agent":0,"x":-5.0,"y":5.0}));

    send(&mut ws, r#"{"type":"select","id":0}"#).await;
    let sel = next_of(&mut ws, "frame", 5).await;
    assert_eq!(sel["selected"], 0);
    assert!(sel["frame"]["overlays"]["neighbour_radius"]["agent"][0] == 0);

    send(&mut ws, r#"{"type":"set_param","path":"groups[0].limits.max_speed","value":1.25}"#).await;
    let sc = next_of(&mut ws, "params", 5).await;
    let p = sc["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == "groups[0].limits.max_speed")
        .unwrap()
        .clone();
    assert_eq!(p["value"], 1.25);

    send(&mut ws, r#"{"type":"save"}"#).await;
    let saved = next_of(&mut ws, "saved", 5).await;
    let toml = saved["toml"].as_str().unwrap();
    let s = steerkit_scenario::Scenario::from_toml_str(toml, "saved.toml").expect("saved loads");
    assert_eq!(s.agent_count(), 1);
    assert!(toml.contains("max_speed = 1.25"), "{toml}");

    send(&mut ws, r#"{"type":"load","name":"obstacle_avoidance"}"#).await;
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(sc["name"], "obstacle_avoidance");
    assert_eq!(sc["recording"]["world"]["circles"].as_array().unwrap().len(), 3);
    send(&mut ws, r#"{"type":"move_obstacle","id":0,"x":1,"y":1}"#).await;
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(sc["recording"]["world"]["circles"][0]["center"], serde_json::json!([1.0, 1.0]));
    send(&mut ws, r#"{"type":"speed","factor":4}"#).await;
    send(&mut ws, r#"{"type":"play"}"#).await;
    let a = next_of(&mut ws, "frame", 5).await;
    let t0 = std::time::Instant::now();
    let mut b = a.clone();
    while t0.elapsed() < std::time::Duration::from_millis(1000) {
        b = next_of(&mut ws, "frame", 5).await;
    }
    // 4× speed: about 4 simulated seconds in 1 s of wall time (at least 2 on a busy machine)
    let dt = b["time"].as_f64().unwrap() - a["time"].as_f64().unwrap();
    assert!(dt > 2.0 && dt < 4.5, "{dt}");
    send(&mut ws, r#"{"type":"reset"}"#).await;
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(sc["recording"]["world"]["circles"][0]["center"], serde_json::json!([-4.0, 2.0]));
}

/// Each kind of bad message gets one `error` naming the problem, and the session still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_errors_and_the_session_carries_on() {
    let addr = start().await;
    let mut ws = connect(addr).await;
    next_of(&mut ws, "scenario", 5).await;
    send(&mut ws, r#"{"type":"pause"}"#).await;
    let huge = format!(r#"{{"type":"load","toml":"{}"}}"#, "#".repeat(600 * 1024));
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "not JSON"),
        ("[1,2]".into(), "no `type`"),
        (r#"{"type":7}"#.into(), "not a string"),
        (r#"{"type":"explode"}"#.into(), "is unknown; allowed: load"),
        (r#"{"type":"move_goal","agent":0,"x":1}"#.into(), "missing field `y`"),
        (r#"{"type":"move_goal","agent":0,"x":"a","y":1}"#.into(), "invalid type"),
        (r#"{"type":"pause","extra":1}"#.into(), "unknown field `extra`"),
        (r#"{"type":"move_goal","agent":0,"x":1e300,"y":0}"#.into(), "`x` = 1e300 is out of range"),
        (r#"{"type":"move_goal","agent":0,"x":1e999,"y":0}"#.into(), "not JSON"),
        (r#"{"type":"move_goal","agent":99,"x":0,"y":0}"#.into(), "`id` = 99 names no agent"),
        (r#"{"type":"move_goal","group":"ghosts","x":0,"y":0}"#.into(), "names no group"),
        (r#"{"type":"remove_agent","id":-1}"#.into(), "invalid value"),
        (r#"{"type":"select","id":5}"#.into(), "names no agent"),
        (r#"{"type":"speed","factor":1000}"#.into(), "allowed 0.05 to 8"),
        (
            r#"{"type":"set_param","path":"groups[0].limits.max_speed","value":-1}"#.into(),
            "out of range",
        ),
        (r#"{"type":"set_param","path":"world.min","value":1}"#.into(), "no parameter"),
        (r#"{"type":"move_obstacle","id":0,"x":0,"y":0}"#.into(), "the scenario has none"),
        (
            r#"{"type":"move_target","path":"groups[0].behaviour.target","x":0,"y":0}"#.into(),
            "not a target point",
        ),
        (r#"{"type":"load","name":"nowhere"}"#.into(), "no built-in scenario"),
        (r#"{"type":"load"}"#.into(), "exactly one of"),
        (
            r#"{"type":"load","toml":"name = \"x\"\ndt = 0.02","file":"bad.toml"}"#.into(),
            "bad.toml",
        ),
        (
            format!(
                r#"{{"type":"load","toml":{}}}"#,
                serde_json::to_string(
                    &steerkit_serve::DEMOS[12].1.replace("count = 400", "count = 100000")
                )
                .unwrap()
            ),
            "at most 2000",
        ),
        (huge, "more than a message may have"),
    ];
    for (text, expected) in &cases {
        println!("case {text:.80}");
        send(&mut ws, text).await;
        let e = next_of(&mut ws, "error", 5).await;
        let m = e["message"].as_str().unwrap();
        assert!(m.contains(expected), "{text:.80}: {m}");
        assert!(!m.contains('\n') || m.contains("bad.toml"), "one line: {m}");
        // still alive: a step is answered with a frame
        send(&mut ws, r#"{"type":"step"}"#).await;
        next_of(&mut ws, "frame", 5).await;
    }
    // a binary message too
    ws.send(tokio_tungstenite::tungstenite::Message::Binary(vec![1u8, 2, 3].into())).await.unwrap();
    let e = next_of(&mut ws, "error", 5).await;
    assert!(e["message"].as_str().unwrap().contains("binary"));
    // the seek scenario is still the one loaded (bad loads changed nothing)
    send(&mut ws, r#"{"type":"save"}"#).await;
    let saved = next_of(&mut ws, "saved", 5).await;
    assert_eq!(saved["name"], "seek");
}

/// The 17th simultaneous tab gets an error and is closed; the first 16 keep running, and a
/// slot frees when a tab closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped() {
    let addr = start().await;
    let mut open = Vec::new();
    for _ in 0..steerkit_serve::server::MAX_SESSIONS {
        let mut ws = connect(addr).await;
        next_of(&mut ws, "scenario", 10).await;
        open.push(ws);
    }
    let mut extra = connect(addr).await;
    let e = next_of(&mut extra, "error", 5).await;
    assert!(e["message"].as_str().unwrap().contains("16 simulations at once"));
    next_of(&mut open[3], "frame", 5).await;
    let mut closing = open.pop().unwrap();
    closing.close(None).await.unwrap();
    drop(closing);
    let mut again = None;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let mut ws = connect(addr).await;
        let first = common::next_any(&mut ws, 5).await;
        if first["type"] == "hello" {
            again = Some(ws);
            break;
        }
    }
    let mut ws = again.expect("a slot frees when a tab closes");
    next_of(&mut ws, "scenario", 5).await;
}

async fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// A 3D file uploaded over the socket runs live: the recording is 3D (volume, spheres), frames
/// carry three coordinates and a quaternion per agent, a sphere moves with `z`, and a point
/// without `z` is an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_3d_upload_runs_live() {
    let addr = start().await;
    let mut ws = connect(addr).await;
    next_of(&mut ws, "scenario", 5).await;
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/flock3d.toml"
    ))
    .unwrap();
    let load = serde_json::json!({"type": "load", "toml": text, "file": "flock3d.toml"});
    send(&mut ws, &load.to_string()).await;
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(sc["name"], "flock3d");
    assert_eq!(sc["recording"]["meta"]["dims"], 3);
    assert_eq!(sc["recording"]["world"]["spheres"].as_array().unwrap().len(), 5);
    assert_eq!(sc["recording"]["world"]["volume"]["max"], serde_json::json!([40.0, 30.0, 40.0]));
    let f1 = next_of(&mut ws, "frame", 5).await;
    let f2 = next_of(&mut ws, "frame", 5).await;
    assert!(f2["step"].as_u64() > f1["step"].as_u64());
    assert_eq!(f2["frame"]["position"].as_array().unwrap().len(), 450);
    assert_eq!(f2["frame"]["attitude"].as_array().unwrap().len(), 600);
    send(&mut ws, r#"{"type":"move_obstacle","id":2,"x":26,"y":18,"z":-13}"#).await;
    let sc = next_of(&mut ws, "scenario", 5).await;
    assert_eq!(
        sc["recording"]["world"]["spheres"][2]["center"],
        serde_json::json!([26.0, 18.0, -13.0])
    );
    send(&mut ws, r#"{"type":"move_obstacle","id":2,"x":26,"y":18}"#).await;
    let e = next_of(&mut ws, "error", 5).await;
    assert!(e["message"].as_str().unwrap().contains("`z` is missing"), "{e}");
}
