//! Your own PTSP controller, first class: one call races it and writes its four files under
//! its name; the time rules show in its score.

use std::path::PathBuf;
use steerkit_ptsp::{Action, Controller, RaceLimits, RaceView, TimeRules, Turn};

/// Thrusts straight on, thinking 60 ms in its first step.
struct Slowpoke;

impl Controller for Slowpoke {
    fn act(&mut self, race: &RaceView<'_>) -> Action {
        if race.step == 0 {
            std::thread::sleep(std::time::Duration::from_millis(60));
        }
        Action { thrust: true, turn: Turn::Straight }
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("steerkit-ptsp-own-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_custom_controller_writes_all_four_files_under_its_name() {
    let dir = temp("files");
    let map = steerkit_cli::ptsp::resolve_map("open").unwrap();
    let limits =
        RaceLimits { max_steps: 5, time: Some(TimeRules::default()), ..RaceLimits::default() };
    let (log, files) =
        steerkit_cli::ptsp::race_and_write(&dir, &map, &mut Slowpoke, "slowpoke", limits).unwrap();
    assert_eq!(log.score.steps, 5);
    let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_str().unwrap()).collect();
    assert_eq!(names, ["score.json", "trajectory.csv", "replay.html", "snapshot.svg"]);
    for f in &files {
        assert!(std::fs::metadata(f).unwrap().len() > 0, "{}", f.display());
    }
    let score: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(score["controller"], "slowpoke");
    // the 60 ms first step is over the 40 ms budget, and only it
    assert_eq!(score["time_rules"]["over_budget_steps"], serde_json::json!([1]));
    assert_eq!(score["time_rules"]["step_budget_ms"], 40.0);
    assert!(score["time_rules"]["slowest_step_ms"].as_f64().unwrap() >= 60.0);
    let html = std::fs::read_to_string(&files[2]).unwrap();
    let rec = steerkit_cli::recording::Recording::from_json(
        steerkit_cli::replay::embedded_json(&html).unwrap(),
    )
    .unwrap();
    assert!(
        rec.meta.description.contains("with the slowpoke controller"),
        "{}",
        rec.meta.description
    );
    assert_eq!(rec.frames.len(), 6, "the start and five steps");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without time rules score.json has no timing, and the reference's replay draws its planned
/// tour through every waypoint.
#[test]
fn the_replay_draws_the_planned_tour() {
    let map = steerkit_cli::ptsp::resolve_map("open").unwrap();
    let log = steerkit_cli::ptsp::race_on(
        &map,
        steerkit_cli::ptsp::Racer::Reference,
        RaceLimits::default(),
    )
    .unwrap();
    assert!(!steerkit_cli::ptsp::score_json(&map, &log, "reference").contains("time_rules"));
    let rec = steerkit_cli::ptsp::recording(&map, &log, "reference");
    let tour = rec.world.paths.iter().find(|p| p.name == "planned tour").unwrap();
    assert_eq!(tour.points.len(), 1 + map.waypoints().len(), "the start and every waypoint");
}

/// `--compare`: two races' visits side by side with B − A per waypoint and in all; a file that
/// is no score is one line naming it.
#[test]
fn two_scores_compare_waypoint_by_waypoint() {
    let map = steerkit_cli::ptsp::resolve_map("open").unwrap();
    let run = |racer| steerkit_cli::ptsp::race_on(&map, racer, RaceLimits::default()).unwrap();
    let (a, b) =
        (run(steerkit_cli::ptsp::Racer::Reference), run(steerkit_cli::ptsp::Racer::NearestFirst));
    let ja = steerkit_cli::ptsp::score_json(&map, &a, "reference");
    let jb = steerkit_cli::ptsp::score_json(&map, &b, "nearest-first");
    let table = steerkit_cli::ptsp::compare(("a.json", &ja), ("b.json", &jb)).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 1 + 10 + 1, "{table}");
    let last = lines.last().unwrap().split_whitespace().collect::<Vec<_>>();
    assert_eq!(last[1].parse::<u32>().unwrap(), a.score.steps);
    assert_eq!(
        last[3].parse::<i64>().unwrap(),
        i64::from(b.score.steps) - i64::from(a.score.steps)
    );
    // the first row is A's first visit
    let first = a.visited.iter().map(|v| v.unwrap()).min().unwrap();
    assert_eq!(lines[1].split_whitespace().nth(1).unwrap(), first.to_string());
    assert_eq!(
        steerkit_cli::ptsp::compare(("a.json", "{}"), ("b.json", &jb)).unwrap_err(),
        "a.json: format = null: allowed \"steerkit-ptsp-score\""
    );
}
