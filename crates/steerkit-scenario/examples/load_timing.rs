//! How long loading, checking and building take: the shipped example, and the same file with a
//! group of nearly a million agents (the `MAX_AGENTS` cap).
//!
//! `cargo run --release -p steerkit-scenario --example load_timing` (from the workspace root)

use std::time::Instant;
use steerkit_scenario::Scenario;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let src = std::fs::read_to_string("scenarios/example.toml")?;
    let runs = 100;
    let t = Instant::now();
    for _ in 0..runs {
        Scenario::from_toml_str(&src, "example.toml")?;
    }
    let per = t.elapsed().as_secs_f64() / f64::from(runs);
    println!("example.toml: parse + check {:.1} µs", per * 1e6);
    let s = Scenario::from_toml_str(&src, "example.toml")?;
    let t = Instant::now();
    for _ in 0..runs {
        s.build()?;
    }
    let per = t.elapsed().as_secs_f64() / f64::from(runs);
    println!("example.toml: build {:.1} µs ({} agents)", per * 1e6, s.agent_count());

    let big = src.replace("count = 30", "count = 999955");
    let t = Instant::now();
    let s = Scenario::from_toml_str(&big, "big.toml")?;
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let w = s.build()?;
    let build = t.elapsed().as_secs_f64();
    println!("{} agents: parse + check + spawn {:.3} s, build {:.3} s", w.crowd.len(), load, build);
    Ok(())
}
