//! `steerkit`: the showcase (`run`, the default) and the crowd benchmarks (`bench`).

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod showcase;

#[derive(Parser)]
#[command(name = "steerkit", version, about = "Steering behaviours and crowds for game AI")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the built-in showcase and write out/showcase/snapshot.svg (the default).
    Run,
    /// Measure the crowd engine: agent-updates per second, ns and bytes per agent.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        None | Some(Command::Run) => showcase::run(),
        Some(Command::Bench(args)) => bench::run(&args),
    }
}
