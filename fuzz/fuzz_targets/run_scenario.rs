//! Any TOML text loaded, built and run for a few steps through the runner and every writer:
//! a one-line error, or a run whose agents, overlays, metrics, trajectories and snapshot are
//! all finite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerkit_cli::run::{run, run_in, RunError, RunOptions, RunOutcome, RunSpace};
use steerkit_cli::snapshot::render_svg;
use steerkit_scenario::Scenario;

fuzz_target!(|text: &str| {
    let s = match Scenario::from_toml_str(text, "fuzz.toml") {
        Ok(s) => s,
        Err(e) => {
            assert_eq!(e.to_string().lines().count(), 1, "{e}");
            return;
        }
    };
    // keep each execution short: the loader's own caps allow a million agents
    if s.agent_count() > 2_000 {
        return;
    }
    let options = RunOptions { steps: Some(20), threads: Some(1), ..RunOptions::default() };
    if s.dimensions() == 3 {
        check(run_in::<steerkit::Vec3>(&s, &options));
    } else {
        check(run(&s, &options));
    }
});

/// One-line errors; or finite agents, overlays, metrics, trajectories and snapshot.
fn check<V: RunSpace>(outcome: Result<RunOutcome<V>, RunError>) {
    let o = match outcome {
        Ok(o) => o,
        Err(e) => {
            assert_eq!(e.to_string().lines().count(), 1, "{e}");
            return;
        }
    };
    for f in &o.recording.frames {
        let state = f.position.iter().chain(&f.velocity).chain(&f.orientation).chain(&f.attitude);
        let overlays = f.overlays.steering.vector.iter().chain(&f.overlays.target.point);
        assert!(state.chain(overlays).all(|v| v.is_finite()), "step {}", f.step);
    }
    assert!(o.metrics.groups.iter().all(|g| g.final_mean_speed.is_finite()));
    assert!(o.trajectories.iter().all(|r| r.position.is_finite() && r.velocity.is_finite()));
    let svg = render_svg(&o.recording);
    // a non-finite number is written as the token `NaN` or `inf` (names may contain "inf")
    let bad = svg.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t == "NaN" || t == "inf");
    assert!(!bad, "non-finite number in the snapshot");
}
