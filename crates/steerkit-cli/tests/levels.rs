//! The navigation comparison's levels (`scripts/detour/levels/*.json`, the same files
//! `scripts/nav-compare.sh` and `scripts/detour-compare.sh` run) as scenario files with the
//! defaults of the `navigate` leaf and ORCA, checked for everyone home.

use steerkit_cli::run::{run, RunOptions};
use steerkit_scenario::Scenario;

/// The scenario file `scripts/nav-compare.sh` writes for `level` at `n` agents.
fn scenario(level: &str, n: u64) -> String {
    let path = format!("{}/../../scripts/detour/levels/{level}.json", env!("CARGO_MANIFEST_DIR"));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = d["cases"].as_array().unwrap().iter().find(|c| c["n"] == n).unwrap();
    let w = &d["walkable"];
    let (dt, speed) = (d["dt"].as_f64().unwrap(), d["max_speed"].as_f64().unwrap());
    let mut s = format!(
        "name = \"{level}_{n}\"\ndt = {dt}\nduration = {}\n\n[world]\nmin = [{}, {}]\nmax = [{}, {}]\n\
         neighbour_radius = 4.0\n\n",
        d["time_limit"], w[0], w[1], w[2], w[3]
    );
    for b in d["obstacles"].as_array().unwrap() {
        s += &format!(
            "[[obstacles]]\nshape = \"box\"\nmin = [{}, {}]\nmax = [{}, {}]\n",
            b[0], b[1], b[2], b[3]
        );
    }
    let starts = case["starts"].as_array().unwrap();
    let goals = case["goals"].as_array().unwrap();
    let agents: Vec<String> = starts
        .iter()
        .zip(goals)
        .map(|(p, g)| format!("{{ position = [{}, {}], goal = [{}, {}] }}", p[0], p[1], g[0], g[1]))
        .collect();
    s += &format!(
        "\n[[groups]]\nname = \"agents\"\nagents = [{}]\narrive_radius = {}\nradius = {}\n\
         non_penetration = true\norca = {{ time_horizon = 2.0, obstacle_time_horizon = 1.0, \
         max_neighbours = 10 }}\nlimits = {{ max_speed = {speed}, max_acceleration = {:.1}, \
         max_rotation = 4.0, max_angular_acceleration = 20.0 }}\nbehaviour = {{ kind = \
         \"navigate\", target_radius = 0.05, braking = true, time_to_target = 0.25 }}\n\n\
         [metrics]\ncollect = [\"arrivals\", \"agent_overlaps\", \"min_separation\", \
         \"obstacle_penetrations\"]\noverlap_tolerance = {}\n",
        agents.join(", "),
        d["arrival_distance"],
        d["agent_radius"],
        speed / dt,
        0.01 * d["agent_radius"].as_f64().unwrap()
    );
    s
}

/// The corridor swap at 500 (250 walkers in each 30 × 30 m hall on a 1.5 m grid, each bound
/// for its mirror spot in the other hall through the 40 × 6 m corridor): the corridor is
/// two-way, each direction in its right half, and everyone is home at once within the level's
/// 300 s (measured 146.4 s; with turn-taking 122 arrived; DetourCrowd never gets all home),
/// no body more than 1 % of its radius into another.
#[test]
fn the_corridor_swap_of_500_gets_everyone_home() {
    let s = Scenario::from_toml_str(&scenario("corridor", 500), "corridor_500").unwrap();
    let o = run(&s, &RunOptions::default()).unwrap();
    let m = &o.metrics;
    eprintln!(
        "corridor 500: all home at {:?} s, {:?} home at the end, deepest overlap {:?} m",
        m.all_home_time, m.home_at_end, m.max_overlap
    );
    assert!(m.all_home_time.is_some_and(|t| t <= 300.0), "{:?}", m.all_home_time);
    assert_eq!(m.home_at_end, Some(500));
    assert!(m.max_overlap.unwrap() < 0.004, "{:?}", m.max_overlap);
}

/// The gallery's `corridor_swap` with the corridor narrowed from 6 m to 5 m (still two-way at
/// 6.25 diameters), as a newcomer would change it: all 400 home at once within its 240 s
/// (measured 179.1 s; a walker whose goal lies beside the far mouth across the middle line
/// used to stand at the divider for good), no overlap beyond 1 % of the radius.
#[test]
fn a_narrower_two_way_corridor_gets_everyone_home() {
    let src = steerkit_cli::gallery::source("corridor_swap").unwrap();
    let src = src.replace("min = [-20.0, 3.0]", "min = [-20.0, 2.5]");
    let src = src.replace("max = [20.0, -3.0]", "max = [20.0, -2.5]");
    assert!(src.contains("[-20.0, 2.5]") && src.contains("[20.0, -2.5]"));
    let s = Scenario::from_toml_str(&src, "corridor_5m").unwrap();
    let m = run(&s, &RunOptions::default()).unwrap().metrics;
    eprintln!(
        "5 m corridor: all home at {:?} s, deepest overlap {:?} m",
        m.all_home_time, m.max_overlap
    );
    assert!(m.all_home_time.is_some_and(|t| t <= 240.0), "{:?}", m.all_home_time);
    assert!(m.max_overlap.unwrap() < 0.004, "{:?}", m.max_overlap);
}

/// The pillar level at 1,000 (two crowds of 500 cross a 100 × 100 m hall with 40 pillars 2 m
/// square, goals mirrored in x): everyone home at once within 300 s (measured 158.4 s; the
/// 5.25 m gaps between the outer pillars and the walls, where goals lie, once counted as
/// two-way passages and a walker pushed into one stood at its divider for good), no body
/// more than 1 % of its radius into another.
#[test]
fn the_pillar_level_of_1000_gets_everyone_home() {
    let s = Scenario::from_toml_str(&scenario("pillars", 1000), "pillars_1000").unwrap();
    let m = run(&s, &RunOptions::default()).unwrap().metrics;
    eprintln!(
        "pillars 1000: all home at {:?} s, deepest overlap {:?} m",
        m.all_home_time, m.max_overlap
    );
    assert!(m.all_home_time.is_some_and(|t| t <= 300.0), "{:?}", m.all_home_time);
    assert_eq!(m.home_at_end, Some(1000));
    assert!(m.max_overlap.unwrap() < 0.004, "{:?}", m.max_overlap);
}

/// `steerkit bench --scenario` steps the same simulation as `steerkit run`, navigator
/// included: on the corridor swap of 100 it finds everyone home at the step `run` reports
/// (it once stepped the crowd alone, so navigating agents never got a route).
#[test]
fn the_whole_run_benchmark_navigates_as_the_run_does() {
    let src = scenario("corridor", 100);
    let s = Scenario::from_toml_str(&src, "corridor_100").unwrap();
    let m = run(&s, &RunOptions::default()).unwrap().metrics;
    let home = m.all_home_time.expect("all home");
    let path = std::env::temp_dir().join(format!("steerkit-levels-{}.toml", std::process::id()));
    std::fs::write(&path, &src).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_steerkit"))
        .args(["bench", "--threads", "1", "--max-steps", "9000", "--scenario"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{line} {}", String::from_utf8_lossy(&out.stderr));
    let steps: f64 = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("steps="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no steps in {line}"));
    assert!(line.contains("all_home=yes"), "{line}");
    let dt = 1.0 / 30.0;
    assert!((steps * dt - home).abs() < 0.5 * dt, "bench {steps} steps, run all home at {home} s");
}
