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
    /// Minimum measured seconds per workload (default 1, quick 0.05).
    #[arg(long)]
    seconds: Option<f64>,
}

pub fn run(args: &Args) -> ExitCode {
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
                println!("{}", m.line());
            }
            results.push(m);
        }
    }
    if args.json {
        let body: Vec<String> = results.iter().map(Measurement::json).collect();
        println!("[\n  {}\n]", body.join(",\n  "));
    }
    ExitCode::SUCCESS
}
