//! `steerkit`: run scenarios (`run`, the default: the built-in showcase), list the built-in
//! gallery, check scenario files, and measure the crowd engine (`bench`).

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use steerkit_cli::gallery;
use steerkit_cli::run::{run, run_in, RunOptions};
use steerkit_scenario::Scenario;

mod bench;
mod whole;

#[derive(Parser)]
#[command(name = "steerkit", version, about = "Steering behaviours and crowds for game AI")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Args, Default)]
struct RunArgs {
    /// A scenario file (.toml or .json) or a built-in name (`steerkit list`); default: showcase.
    scenario: Option<String>,
    /// Output directory (default: out/<scenario name>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Steps to run instead of the scenario's.
    #[arg(long)]
    steps: Option<u64>,
    /// World seed instead of the scenario's.
    #[arg(long)]
    seed: Option<u64>,
    /// Threads that run the step (default: one per core); results are identical for any count.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Keep every k-th step in trajectories.csv (default: chosen to keep at most 2 million rows).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    trajectory_every: Option<u32>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and write metrics.json, trajectories.csv, replay.html and snapshot.svg.
    Run(RunArgs),
    /// List the built-in scenarios.
    List,
    /// Check a scenario file: load it, build the world, print OK with counts or the error.
    Validate {
        /// The file (.toml or .json).
        file: PathBuf,
    },
    /// Measure the crowd engine: agent-updates per second, ns and bytes per agent.
    Bench(bench::Args),
    /// Start the live playground: a local web page where a running simulation can be paused,
    /// stepped, dragged, tuned with sliders and saved (prints the URL).
    Serve(ServeArgs),
    /// Race a controller on a PTSP map (the course project) and write score.json,
    /// trajectory.csv, replay.html and snapshot.svg.
    Ptsp(PtspArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// The scenario the page opens: a demo or gallery name, or a .toml file (default: seek).
    scenario: Option<String>,
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
}

#[derive(clap::Args)]
struct PtspArgs {
    /// A map file or a shipped map: open, rooms, maze, spiral, doors.
    ///
    /// A map file is text, one character per square: '#' wall, '.' or ' ' free, 'S' the start
    /// (exactly one), 'W' a waypoint (1 to 64); every row as long as the first; the top row is
    /// the top of the map. Lines starting with ';' are comments. An optional line 'scale N'
    /// before the grid makes each character N × N px (N from 1 to 16; at most 4096 px a side).
    #[arg(default_value = "maze")]
    map: String,
    /// The controller.
    #[arg(long, value_enum, default_value_t = RacerArg::Reference)]
    controller: RacerArg,
    /// Seed of the random-order tour.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (default: out/ptsp-<map>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Measure the competition's real-time budgets (40 ms a step, 1 s to set up) and flag
    /// over-budget steps in score.json (scores then depend on the machine's speed).
    #[arg(long)]
    time_rules: bool,
    /// Print two races' score.json side by side instead of racing: each waypoint's visit
    /// step in both, in the first race's order, and the difference.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    compare: Option<Vec<PathBuf>>,
    /// With --time-rules: replace an over-budget step's action by no action (coast).
    #[arg(long, requires = "time_rules")]
    strict: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RacerArg {
    /// A* tour with 2-opt, path following, pixel probes, try-every-action.
    Reference,
    /// The reference with the nearest-first tour.
    NearestFirst,
    /// The reference with a random tour (--seed).
    RandomOrder,
    /// Straight for the nearest waypoint.
    Naive,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        None => run_command(&RunArgs::default()),
        Some(Command::Run(args)) => run_command(&args),
        Some(Command::List) => list(),
        Some(Command::Validate { file }) => validate(&file),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Ptsp(args)) => ptsp_command(&args),
        Some(Command::Serve(args)) => serve_command(&args),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Writes `text` to standard output. A closed pipe (`steerkit list | head -1`) ends the
/// command quietly with success, as Unix tools do; any other write error (a full disk) is a
/// one-line error with status 1.
fn say(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => Err(fail(format!("cannot write to standard output: {e}"))),
    }
}

fn run_command(args: &RunArgs) -> ExitCode {
    let scenario = match gallery::resolve(args.scenario.as_deref().unwrap_or("showcase")) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let dir = args.out.clone().unwrap_or_else(|| Path::new("out").join(scenario.output_name()));
    // a second run into the same directory replaces the files; the summary says so
    let replaced = dir.join("metrics.json").exists();
    // the rows go to disk as the run goes, and become trajectories.csv when it succeeds
    let partial = dir.join("trajectories.csv.partial");
    let options = RunOptions {
        steps: args.steps,
        seed: args.seed,
        threads: args.threads.map(|t| t as usize),
        trajectory_every: args.trajectory_every,
        progress: true,
        stream_trajectories: Some(partial.clone()),
    };
    // the summary and the files written, in the scenario's space
    let done = if scenario.dimensions() == 3 {
        run_in::<steerkit::Vec3>(&scenario, &options)
            .and_then(|o| o.write(&dir).map(|files| (o.metrics, files)))
    } else {
        run(&scenario, &options).and_then(|o| o.write(&dir).map(|files| (o.metrics, files)))
    };
    let (metrics, files) = match done {
        Ok(d) => d,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return fail(e);
        }
    };
    let wrote = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ");
    let text = format!(
        "{}wrote {wrote}{}\nreplay: {}\n",
        metrics.summary_table(),
        if replaced { " (replacing the previous run there)" } else { "" },
        files[2].display()
    );
    say(&text).err().unwrap_or(ExitCode::SUCCESS)
}

fn serve_command(args: &ServeArgs) -> ExitCode {
    let arg = args.scenario.as_deref().unwrap_or("seek");
    let mut builtins: Vec<(String, String)> =
        gallery::BUILTIN.iter().map(|(n, s)| ((*n).to_owned(), (*s).to_owned())).collect();
    // a file is checked here (the same one-line error as `validate`) and offered under its stem
    let path = Path::new(arg);
    let initial = if path.extension().is_some() || arg.contains('/') || path.exists() {
        if let Err(e) = Scenario::load(path) {
            return fail(e);
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return fail(format!("cannot read {arg}: {e}")),
        };
        let stem = path.file_stem().map_or("file".into(), |s| s.to_string_lossy().into_owned());
        let name = format!("file/{stem}");
        builtins.push((name.clone(), text));
        name
    } else {
        arg.to_owned()
    };
    let gallery: Vec<(&str, &str)> =
        builtins.iter().map(|(n, s)| (n.as_str(), s.as_str())).collect();
    match steerkit_serve::run(args.port, &initial, &gallery) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn ptsp_command(args: &PtspArgs) -> ExitCode {
    use steerkit_cli::ptsp::{self, Racer};
    if let Some(files) = &args.compare {
        let mut texts = Vec::new();
        for f in files {
            match steerkit_files::read_limited(f, 64 * 1024 * 1024) {
                Ok(bytes) => texts
                    .push((f.display().to_string(), String::from_utf8_lossy(&bytes).into_owned())),
                Err(e) => return fail(format!("{}: {e}", f.display())),
            }
        }
        return match ptsp::compare((&texts[0].0, &texts[0].1), (&texts[1].0, &texts[1].1)) {
            Ok(table) => say(&table).err().unwrap_or(ExitCode::SUCCESS),
            Err(e) => fail(e),
        };
    }
    let map = match ptsp::resolve_map(&args.map) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let racer = match args.controller {
        RacerArg::Reference => Racer::Reference,
        RacerArg::NearestFirst => Racer::NearestFirst,
        RacerArg::RandomOrder => Racer::RandomOrder(args.seed),
        RacerArg::Naive => Racer::Naive,
    };
    let limits = steerkit_ptsp::RaceLimits {
        time: args.time_rules.then_some(steerkit_ptsp::TimeRules {
            strict: args.strict,
            ..steerkit_ptsp::TimeRules::default()
        }),
        ..steerkit_ptsp::RaceLimits::default()
    };
    let log = match ptsp::race_on(&map, racer, limits) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let stem: String = Path::new(map.name())
        .file_stem()
        .map_or("map".into(), |s| s.to_string_lossy().into_owned());
    let dir = args.out.clone().unwrap_or_else(|| Path::new("out").join(format!("ptsp-{stem}")));
    let files = match ptsp::write(&dir, &map, &log, &racer.name()) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let s = log.score;
    let text = format!(
        "ptsp {}: {} controller, {} of {} waypoints in {} steps ({:.2} s, {}), {} collisions\nwrote {}\nreplay: {}\n",
        map.name(),
        racer.name(),
        s.visited,
        s.waypoints,
        s.steps,
        s.steps as f32 * steerkit_ptsp::STEP,
        s.outcome.name(),
        s.collisions,
        files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "),
        files[2].display()
    );
    say(&text).err().unwrap_or(ExitCode::SUCCESS)
}

fn list() -> ExitCode {
    for name in gallery::names() {
        match gallery::load(name) {
            Some(Ok(s)) => {
                let line = format!(
                    "{name:<16} {:>5} agents  {}\n",
                    s.agent_count(),
                    gallery::summary(s.description(), 90)
                );
                if let Err(code) = say(&line) {
                    return code;
                }
            }
            Some(Err(e)) => return fail(e),
            None => {}
        }
    }
    ExitCode::SUCCESS
}

fn validate(file: &Path) -> ExitCode {
    let scenario = match Scenario::load(file) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // agents, groups, obstacles, walls and paths of the built world
    let built = if scenario.dimensions() == 3 {
        scenario
            .build_in::<steerkit::Vec3>()
            .map(|w| (w.crowd.len(), w.groups.len(), w.geometry.obstacles3.len(), 0, w.paths.len()))
    } else {
        scenario.build().map(|w| {
            let g = &w.geometry;
            (w.crowd.len(), w.groups.len(), g.obstacles.len(), g.walls.len(), w.paths.len())
        })
    };
    match built {
        Ok((agents, groups, obstacles, walls, paths)) => {
            let line = format!(
                "OK {} ({}D): {agents} agents in {groups} groups, {obstacles} obstacles, {walls} \
                 walls, {paths} paths, {} steps of {} s\n",
                file.display(),
                scenario.dimensions(),
                scenario.steps(),
                scenario.dt()
            );
            say(&line).err().unwrap_or(ExitCode::SUCCESS)
        }
        Err(e) => fail(e),
    }
}
