//! The `steerkit` command: run, list, validate, their files and their errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn steerkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_steerkit")).args(args).output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("steerkit-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `steerkit run NAME --out DIR --steps STEPS --seed SEED`, then `more`.
fn run(name: &str, dir: &Path, steps: &str, seed: &str, more: &[&str]) -> Output {
    let out = dir.to_str().unwrap();
    let mut args = vec!["run", name, "--out", out, "--steps", steps, "--seed", seed];
    args.extend_from_slice(more);
    steerkit(&args)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn run_writes_the_four_files_with_the_documented_fields_and_columns() {
    let dir = temp("four");
    let out = run("crossing", &dir, "50", "3", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("replay: "), "{stdout}");
    assert!(stdout.contains("replay.html"), "{stdout}");
    for f in ["metrics.json", "trajectories.csv", "replay.html", "snapshot.svg"] {
        assert!(std::fs::metadata(dir.join(f)).unwrap().len() > 0, "{f} is empty");
    }
    let m = json(&dir.join("metrics.json"));
    for field in [
        "format",
        "version",
        "scenario",
        "description",
        "seed",
        "steps",
        "dt",
        "agents",
        "threads",
        "wall_seconds",
        "updates_per_s",
        "collected",
        "overlap_tolerance",
        "agent_overlaps",
        "max_overlap",
        "obstacle_penetrations",
        "wall_crossings",
        "min_separation",
        "arrived",
        "paths_completed",
        "quarantined",
        "stuck",
        "groups",
    ] {
        assert!(m.get(field).is_some(), "metrics.json lacks {field}");
    }
    assert_eq!(m["scenario"], "crossing");
    assert_eq!(m["steps"], 50);
    assert_eq!(m["seed"], 3);
    assert_eq!(m["agents"], 32);
    assert!((m["dt"].as_f64().unwrap() - 0.02).abs() < 1e-9);
    // not collected by crossing's plan
    assert!(m["wall_crossings"].is_null());
    let g = &m["groups"][0];
    for field in [
        "name",
        "agents",
        "arrived",
        "mean_arrival_time",
        "last_arrival_time",
        "paths_completed",
        "final_mean_speed",
        "final_polarisation",
        "slot_error_mean",
        "slot_error_max",
    ] {
        assert!(g.get(field).is_some(), "groups[0] lacks {field}");
    }
    let csv = std::fs::read_to_string(dir.join("trajectories.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("step,time,agent,group,x,y,vx,vy,orientation"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 32 * 51, "every agent at steps 0..=50");
    assert!(rows.iter().all(|r| r.len() == 9));
    assert_eq!(rows.last().unwrap()[0], "50");
    assert_eq!(rows.last().unwrap()[1], "1");
    assert!(rows.iter().any(|r| r[3] == "north"));
    let html = std::fs::read_to_string(dir.join("replay.html")).unwrap();
    let data = steerkit_cli::replay::embedded_json(&html).unwrap();
    let r = steerkit_cli::recording::Recording::from_json(
        &data.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&"),
    )
    .unwrap();
    assert_eq!(r.meta.scenario, "crossing");
    assert_eq!(r.meta.steps, 50);
    assert_eq!(r.agent_count(), 32);
    assert!(!r.frames.last().unwrap().overlays.steering.is_empty());
    assert!(r.metrics.iter().any(|s| s.name == "mean speed"));
    let svg = std::fs::read_to_string(dir.join("snapshot.svg")).unwrap();
    assert_eq!(svg.matches("class=\"agent\"").count(), 32);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Metrics without the wall-clock fields.
fn comparable(path: &Path) -> serde_json::Value {
    let mut m = json(path);
    let o = m.as_object_mut().unwrap();
    for k in ["wall_seconds", "updates_per_s", "threads"] {
        o.remove(k);
    }
    m
}

#[test]
fn the_same_seed_gives_identical_metrics_and_trajectories_on_one_and_two_threads() {
    let on_threads = |threads: &str| {
        let dir = temp(&format!("threads{threads}"));
        let out = run("doorway", &dir, "400", "99", &["--threads", threads]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        dir
    };
    let (one, two) = (on_threads("1"), on_threads("2"));
    assert_eq!(json(&one.join("metrics.json"))["threads"], 1);
    assert_eq!(json(&two.join("metrics.json"))["threads"], 2);
    assert_eq!(comparable(&one.join("metrics.json")), comparable(&two.join("metrics.json")));
    let csv = |d: &Path| std::fs::read(d.join("trajectories.csv")).unwrap();
    assert!(csv(&one) == csv(&two), "trajectories differ between 1 and 2 threads");
    // and another seed places the crowd elsewhere
    let dir = temp("seed7");
    let out = run("doorway", &dir, "400", "7", &[]);
    assert!(out.status.success());
    assert!(csv(&dir) != csv(&one));
    for d in [one, two, dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn validate_prints_ok_with_counts_or_the_located_error_and_exits_1() {
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/crossing.toml");
    let out = steerkit(&["validate", good.to_str().unwrap()]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("OK "), "{stdout}");
    assert!(stdout.contains("32 agents in 2 groups"), "{stdout}");

    let dir = temp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    let src =
        std::fs::read_to_string(&good).unwrap().replace("slow_radius = 4.0", "slow_radius = 0.1");
    std::fs::write(&bad, src).unwrap();
    let out = steerkit(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("bad.toml:30:80:"), "line and column: {stderr}");
    assert!(
        stderr.contains("groups[0].behaviour.members[1].members[0].slow_radius"),
        "field path: {stderr}"
    );
    assert!(!stderr.contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_shows_every_file_in_scenarios_with_its_agent_count() {
    let out = steerkit(&["list"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(files.len() >= 17);
    assert_eq!(stdout.lines().count(), files.len());
    for f in &files {
        assert!(stdout.lines().any(|l| l.split_whitespace().next() == Some(f)), "{f} not listed");
    }
    assert!(stdout.lines().any(|l| l.starts_with("crossing") && l.contains(" 32 agents")));
}

#[test]
fn bad_input_gives_one_message_and_a_failure_never_a_panic() {
    let dir = temp("errors");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["run".into(), "no_such_scenario".into()], "no scenario file or built-in"),
        (vec!["run".into(), dir.join("missing.toml").display().to_string()], "missing.toml"),
        (vec!["run".into(), dir.join("x.yaml").display().to_string()], "x.yaml"),
        (
            // the output directory is a file
            vec![
                "run".into(),
                "arrive".into(),
                "--steps".into(),
                "2".into(),
                "--out".into(),
                env!("CARGO_BIN_EXE_steerkit").into(),
            ],
            "cannot write",
        ),
        (vec!["validate".into(), dir.join("missing.json").display().to_string()], "missing.json"),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = steerkit(&args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // --threads 0 is refused by the argument parser
    let out = steerkit(&["run", "arrive", "--threads", "0"]);
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard output that cannot be written: a full disk is a one-line error with status 1, a
/// pipe closed early (`steerkit list | head -1`) a quiet success; never a panic.
#[cfg(unix)]
#[test]
fn output_that_cannot_be_written_is_an_error_or_a_quiet_end_never_a_panic() {
    use std::process::Stdio;
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out =
            Command::new(env!("CARGO_BIN_EXE_steerkit")).arg("list").stdout(full).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: cannot write to standard output"), "{err}");
    }
    // a reader that closes the pipe at once
    let mut child = Command::new(env!("CARGO_BIN_EXE_steerkit"))
        .arg("list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn bench_seconds_must_be_a_finite_bounded_number() {
    for bad in ["nan", "inf", "-1", "4000"] {
        let out = steerkit(&["bench", &format!("--seconds={bad}")]);
        assert!(!out.status.success(), "--seconds {bad} was accepted");
        assert!(text(&out.stderr).contains("from 0 to 3600"), "{}", text(&out.stderr));
    }
}

#[test]
fn a_second_run_into_the_same_directory_says_it_replaces_the_first() {
    let dir = temp("again");
    let first = run("arrive", &dir, "5", "1", &[]);
    assert!(first.status.success());
    assert!(!text(&first.stdout).contains("replacing"));
    let second = run("arrive", &dir, "5", "1", &[]);
    assert!(second.status.success());
    assert!(
        text(&second.stdout).contains("(replacing the previous run there)"),
        "{}",
        text(&second.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 3D flock for the command-line tests: 120 boids in a wrap-around box.
const BIRDS: &str = r#"name = "birds"
dimensions = 3
dt = 0.05
duration = 5
[world]
min = [-20, 0, -20]
max = [20, 20, 20]
wrap = true
neighbour_radius = 4
[[groups]]
name = "flock"
count = 120
spawn = { shape = "sphere", center = [0, 10, 0], radius = 8, heading = "random", speed = [1, 3] }
radius = 0.3
limits = { max_speed = 5, max_acceleration = 10, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "blend", members = [
  { kind = "separation", threshold = 1.2, falloff = "linear", weight = 2 },
  { kind = "alignment", match = "velocity", weight = 1 },
  { kind = "cohesion", weight = 0.5 },
  { kind = "wander", radius = 1, distance = 2, jitter = 2, weight = 0.3 },
] }
"#;

/// A 3D scenario runs through the same command: validate says 3D, the CSV has z, vz and the
/// orientation quaternion, the replay is a 3D recording, every value is finite, and the
/// result is the same on one and two threads.
#[test]
fn a_3d_scenario_runs_validates_and_writes_3d_files() {
    let dir = temp("birds");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("birds.toml");
    std::fs::write(&file, BIRDS).unwrap();
    let out = steerkit(&["validate", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("(3D): 120 agents in 1 groups"), "{}", text(&out.stdout));
    let on_threads = |threads: &str| {
        let out_dir = dir.join(format!("t{threads}"));
        let out = run(file.to_str().unwrap(), &out_dir, "100", "4", &["--threads", threads]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out_dir
    };
    let (one, two) = (on_threads("1"), on_threads("2"));
    let csv = std::fs::read_to_string(one.join("trajectories.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("step,time,agent,group,x,y,z,vx,vy,vz,qx,qy,qz,qw"));
    let mut rows = 0;
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 14, "{line}");
        for f in &fields[4..] {
            let v: f32 = f.parse().unwrap_or_else(|_| panic!("{line}"));
            assert!(v.is_finite(), "{line}");
        }
        let q: Vec<f32> = fields[10..].iter().map(|f| f.parse().unwrap()).collect();
        let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "orientation not a unit quaternion: {line}");
        rows += 1;
    }
    assert_eq!(rows, 120 * 101);
    assert!(csv == std::fs::read_to_string(two.join("trajectories.csv")).unwrap());
    let html = std::fs::read_to_string(one.join("replay.html")).unwrap();
    assert!(html.contains("\"dims\":3"), "the replay is a 3D recording");
    let m = json(&one.join("metrics.json"));
    assert_eq!(m["agents"], 120);
    assert!(m["groups"][0]["final_polarisation"].as_f64().unwrap() > 0.5, "{m}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `steerkit ptsp`: the race's four files, a score that matches the trajectory, a replay that
/// reads back and validates with the waypoints and their visit steps; bad maps are one line.
#[test]
fn ptsp_races_a_map_and_writes_score_trajectory_and_replay() {
    let dir = temp("ptsp");
    let out = steerkit(&["ptsp", "open", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("reference controller, 10 of 10 waypoints in "), "{stdout}");
    let score = json(&dir.join("score.json"));
    assert_eq!(score["outcome"], "finished");
    let steps = score["steps"].as_u64().unwrap();
    let csv = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert_eq!(csv.lines().count() as u64, steps + 2, "a header, the start and every step");
    assert!(csv.starts_with("step,time,x,y,vx,vy,heading,action,collided\n"));
    let html = std::fs::read_to_string(dir.join("replay.html")).unwrap();
    let rec = steerkit_cli::recording::Recording::from_json(
        steerkit_cli::replay::embedded_json(&html).unwrap(),
    );
    let rec = rec.expect("the replay validates");
    assert_eq!(rec.world.waypoints.len(), 10);
    let last = rec.world.waypoints.iter().filter_map(|w| w.visited).max().unwrap();
    assert_eq!(u64::from(last), steps, "the last visit ends the race");
    assert_eq!(rec.frames.len() as u64, steps + 1);
    assert_eq!(rec.groups[0].vehicle.as_ref().unwrap().model, "ship");
    let svg = std::fs::read_to_string(dir.join("snapshot.svg")).unwrap();
    assert_eq!(svg.matches(r#"class="waypoint""#).count(), 10);
    // the naive controller and the other tours run too
    for c in ["naive", "nearest-first", "random-order"] {
        let o = steerkit(&["ptsp", "open", "--controller", c, "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{c}: {}", text(&o.stderr));
    }
    // bad maps: one line each, status 1
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "#####\n#S..#\n#####\n").unwrap();
    let o = steerkit(&["ptsp", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!("error: {}: 0 waypoints 'W': allowed 1 to 64\n", bad.display())
    );
    let o = steerkit(&["ptsp", "nowhere"]);
    assert_eq!(
        text(&o.stderr),
        "error: no map file or shipped map named `nowhere` (shipped: open, rooms, maze, spiral, doors)\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `steerkit serve --port 0` prints the URL on its first line and serves the playground page
/// there; an unknown scenario or a bad file is one line on standard error and status 1.
#[test]
fn serve_prints_its_url_and_serves_the_page() {
    use std::io::{BufRead, Read, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_steerkit"))
        .args(["serve", "--port", "0", "arrive"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("steerkit playground: ").expect("the URL line").to_owned();
    let addr = url.strip_prefix("http://").and_then(|a| a.strip_suffix('/')).unwrap().to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())
        .unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(body.starts_with("HTTP/1.1 200"), "{body:.200}");
    assert!(body.contains("steerkit playground") && body.contains("steerkitLive"));

    let out = steerkit(&["serve", "--port", "0", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: no built-in scenario named `nowhere`") && err.lines().count() == 1,
        "{err}"
    );
    let dir = temp("serve-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\n").unwrap();
    let out = steerkit(&["serve", "--port", "0", bad.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("bad.toml"), "{}", text(&out.stderr));
}
