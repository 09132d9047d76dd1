//! `steerkit bench`: the crowd workloads of `steerkit-bench`, one line (or JSON object) each.

use std::process::ExitCode;
use steerkit_bench::{measure, workloads, Measurement};

#[derive(clap::Args)]
pub struct Args {
    /// Thread counts to run each workload with, e.g. `1,2` (default: 1 and all cores).
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Small sizes and few steps: finishes in seconds.
    #[arg(long)]
    quick: bool,
    /// Print a JSON array instead of one line per workload.
    #[arg(long)]
    json: bool,
    /// Only workloads whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// Minimum measured seconds per workload, 0 to 3600 (default 1, quick 0.05).
    #[arg(long, value_parser = seconds)]
    seconds: Option<f64>,
    /// Instead of the workloads: run this 2D scenario (file or built-in name) until every agent
    /// is home, no outputs, and print its steps and CPU per agent-update in the sparse and dense
    /// phases (on the first of `--threads`, default 1).
    #[arg(long)]
    scenario: Option<String>,
    /// With `--scenario`: stop after this many steps if not every agent is home by then
    /// (default: the scenario's own duration)
    #[arg(long)]
    max_steps: Option<u64>,
}

/// `--seconds`: a finite number of seconds in [0, 3600].
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=3600.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("must be a number of seconds from 0 to 3600, got {s}"))
    }
}

pub fn run(args: &Args) -> ExitCode {
    if let Some(name) = &args.scenario {
        return whole(args, name);
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut threads = args.threads.clone();
    if threads.is_empty() {
        threads.push(1);
        if cores > 1 {
            threads.push(cores);
        }
    }
    if threads.contains(&0) {
        eprintln!("error: --threads takes counts of at least 1");
        return ExitCode::FAILURE;
    }
    let seconds = args.seconds.unwrap_or(if args.quick { 0.05 } else { 1.0 });
    let steps = if args.quick { 2 } else { 5 };
    let mut results: Vec<Measurement> = Vec::new();
    for w in workloads(args.quick) {
        if args.only.as_ref().is_some_and(|o| !w.name.contains(o.as_str())) {
            continue;
        }
        for &t in &threads {
            let m = measure(&w, t, steps, seconds);
            if !args.json {
                if let Err(code) = crate::say(&format!("{}\n", m.line())) {
                    return code;
                }
            }
            results.push(m);
        }
    }
    if args.json {
        let body: Vec<String> = results.iter().map(Measurement::json).collect();
        if let Err(code) = crate::say(&format!("[\n  {}\n]\n", body.join(",\n  "))) {
            return code;
        }
    }
    ExitCode::SUCCESS
}

/// `--scenario`: one whole run ([`crate::whole`]).
fn whole(args: &Args, name: &str) -> ExitCode {
    let threads = args.threads.first().copied().unwrap_or(1);
    if threads == 0 {
        eprintln!("error: --threads takes counts of at least 1");
        return ExitCode::FAILURE;
    }
    let scenario = match steerkit_cli::gallery::resolve(name) {
        Ok(s) => s,
        Err(e) => return crate::fail(e),
    };
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => return crate::fail(e),
    };
    match pool.install(|| crate::whole::whole_run(&scenario, args.max_steps)) {
        Ok(r) => match crate::say(&format!("{}\n", r.line(scenario.name()))) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(e) => crate::fail(e),
    }
}
