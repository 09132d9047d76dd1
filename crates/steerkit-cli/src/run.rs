//! `steerkit run`: runs a scenario and writes what it did.
//!
//! [`run`] builds a [`Scenario`] into a crowd, steps it (in a rayon pool of the requested size:
//! the crowd's step is bit-identical for any thread count), measures it every step from the
//! crowd's events and state, and keeps a [`Recording`] and the trajectories. [`RunOutcome::write`]
//! then writes, into one directory:
//!
//! - `metrics.json`: [`Metrics`] (the schema is documented on that type and in
//!   `docs/metrics.md`);
//! - `trajectories.csv`: one row per agent per kept step,
//!   `step,time,agent,group,x,y,vx,vy,orientation` (m, m/s, rad; in 3D
//!   `x,y,z,vx,vy,vz,qx,qy,qz,qw`, the orientation a unit quaternion; `agent` numbers the agents in
//!   file order, groups first to last; `group` is the group's name, quoted when it needs to be);
//! - `replay.html` ([`crate::replay`]) and `snapshot.svg` ([`crate::snapshot`]).
//!
//! # Measuring
//! The stepping, measuring and recording are the one [`Simulation`] of `steerkit-scenario`
//! (its module docs say what is measured and in which order); this module runs it to the end,
//! in a thread pool of the requested size, keeps the trajectory rows and writes the files.

use crate::recording::{stride_for, Recording, RecordingError};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use steerkit::crowd::Crowd;
use steerkit::math::Vector;
use steerkit::Vec2;
use steerkit_scenario::simulation::Numbering;
use steerkit_scenario::{Outputs, Scenario, ScenarioError, Simulation, SimulationError};

pub use steerkit_scenario::simulation::{GroupMetrics, Metrics, RAY_AGENTS, REPLAY_BUDGET};
/// The runner's name for a scenario's space: [`Dim`], the one dimension trait.
pub use steerkit_scenario::Dim as RunSpace;

/// Rows kept in `trajectories.csv` when no stride is given: the stride is chosen so that
/// `agents × kept steps` stays under this.
pub const TRAJECTORY_BUDGET: usize = 2_000_000;

/// What a run failed on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scenario could not be loaded, overridden or built.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// The crowd refused a step (a non-finite time step).
    #[error("step {step}: {message}")]
    Step {
        /// The step that failed.
        step: u64,
        /// The engine's message.
        message: String,
    },
    /// The thread pool could not be built.
    #[error("--threads {threads}: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why not.
        message: String,
    },
    /// The recording could not be made.
    #[error("recording: {0}")]
    Recording(#[from] RecordingError),
    /// An output file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// More steps than a recording can number (2³² − 1).
    #[error("steps: {0} is more than a recorded run can hold (4294967295)")]
    TooManySteps(u64),
}

impl From<SimulationError> for RunError {
    fn from(e: SimulationError) -> Self {
        match e {
            SimulationError::Scenario(e) => Self::Scenario(e),
            SimulationError::Step { step, message } => Self::Step { step, message },
            SimulationError::Recording(e) => Self::Recording(e),
            SimulationError::TooManySteps(steps) => Self::TooManySteps(steps),
        }
    }
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Steps to run instead of the scenario's.
    pub steps: Option<u64>,
    /// Seed instead of the scenario's (agents in spawn regions are placed again).
    pub seed: Option<u64>,
    /// Threads of the pool that runs the step; `None`: rayon's default (one per core).
    pub threads: Option<usize>,
    /// Keep every `k`-th step in `trajectories.csv` (and the last); `None`: chosen from
    /// [`TRAJECTORY_BUDGET`].
    pub trajectory_every: Option<u32>,
    /// Show a progress bar on standard error (only drawn when it is a terminal).
    pub progress: bool,
    /// Write the trajectory rows into this file as the run goes, so memory stays flat however
    /// long the run ([`RunOutcome::write`] moves it to `trajectories.csv`); `None`: keep them
    /// in [`RunOutcome::trajectories`]. Whatever is at that name first is removed (a link is
    /// not followed) and the file created exclusively; a caller whose run fails removes it
    /// (`steerkit run` does, and a run killed half-way leaves it for the next run into the
    /// same directory to remove).
    pub stream_trajectories: Option<PathBuf>,
}

/// One trajectory row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrajectoryRow<V: Vector = Vec2> {
    /// Step.
    pub step: u32,
    /// Agent number (file order).
    pub agent: u32,
    /// Position (m).
    pub position: V,
    /// Velocity (m/s).
    pub velocity: V,
    /// Orientation (rad in 2D, a unit quaternion in 3D).
    pub orientation: V::Orientation,
}

/// A finished run.
#[derive(Debug)]
pub struct RunOutcome<V: RunSpace = Vec2> {
    /// What was measured.
    pub metrics: Metrics,
    /// The replay data.
    pub recording: Recording,
    /// The kept trajectory rows, by step then agent number (empty when they were streamed).
    pub trajectories: Vec<TrajectoryRow<V>>,
    /// The file the rows were streamed into, if [`RunOptions::stream_trajectories`] asked.
    pub streamed_trajectories: Option<PathBuf>,
    /// Steps between kept trajectory rows.
    pub trajectory_every: u32,
    /// The built world after the last step (for callers that want to look further).
    pub world: steerkit_scenario::World<V>,
    /// Group index of each agent number.
    pub agent_groups: Vec<u32>,
    /// The scenario's output name (`[a-z0-9_-]`).
    pub output_name: String,
}

/// The four files a run writes.
pub const OUTPUT_FILES: [&str; 4] =
    ["metrics.json", "trajectories.csv", "replay.html", "snapshot.svg"];

impl<V: RunSpace> RunOutcome<V> {
    /// `trajectories.csv` as text (the header only when the rows were streamed).
    #[must_use]
    pub fn trajectories_csv(&self) -> String {
        let names: Vec<String> = self.metrics.groups.iter().map(|g| csv_field(&g.name)).collect();
        let mut s = Vec::with_capacity(self.trajectories.len() * 56 + 64);
        let _ = s.write_all(csv_header::<V>().as_bytes());
        for r in &self.trajectories {
            let _ = write_csv_row(&mut s, r, &names, &self.agent_groups, self.metrics.dt);
        }
        String::from_utf8(s).unwrap_or_default()
    }

    /// Writes the four files into `dir` (created if needed) and returns their paths in the
    /// order of [`OUTPUT_FILES`].
    ///
    /// # Errors
    /// [`RunError::Write`] naming the file or directory that could not be written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, RunError> {
        let fail = |path: &Path| {
            let path = path.to_path_buf();
            move |source| RunError::Write { path, source }
        };
        std::fs::create_dir_all(dir).map_err(fail(dir))?;
        let paths: Vec<PathBuf> = OUTPUT_FILES.iter().map(|f| dir.join(f)).collect();
        let mut metrics = self.metrics.to_json();
        metrics.push('\n');
        // every file goes through a temporary name and a rename: a link planted at an
        // output's name is replaced, never followed
        steerkit_files::write_atomic(&paths[0], metrics.as_bytes()).map_err(fail(&paths[0]))?;
        match &self.streamed_trajectories {
            Some(streamed) => std::fs::rename(streamed, &paths[1]).map_err(fail(&paths[1]))?,
            None => steerkit_files::write_atomic(&paths[1], self.trajectories_csv().as_bytes())
                .map_err(fail(&paths[1]))?,
        }
        crate::replay::write_html(&self.recording, &paths[2]).map_err(fail(&paths[2]))?;
        crate::snapshot::write_svg(&self.recording, &paths[3]).map_err(fail(&paths[3]))?;
        Ok(paths)
    }
}

/// One row of `trajectories.csv`: positions and velocities to 0.1 mm, time to 1 µs.
fn write_csv_row<V: RunSpace>(
    w: &mut impl std::io::Write,
    r: &TrajectoryRow<V>,
    group_names: &[String],
    agent_groups: &[u32],
    dt: f32,
) -> std::io::Result<()> {
    write!(
        w,
        "{},{},{},{}",
        r.step,
        num(f64::from(r.step) * f64::from(dt), 6),
        r.agent,
        group_names[agent_groups[r.agent as usize] as usize],
    )?;
    for v in [r.position, r.velocity] {
        for i in 0..V::DIMS {
            write!(w, ",{}", num(f64::from(v[i]), 4))?;
        }
    }
    match V::attitude(r.orientation) {
        Some(q) => {
            for c in q {
                write!(w, ",{}", num(f64::from(c), 4))?;
            }
        }
        None => write!(w, ",{}", num(f64::from(V::heading_of(r.orientation)), 4))?,
    }
    w.write_all(b"\n")
}

/// `trajectories.csv`'s header: the orientation is a heading (rad) in 2D, a unit quaternion
/// in 3D.
fn csv_header<V: RunSpace>() -> &'static str {
    if V::DIMS == 3 {
        "step,time,agent,group,x,y,z,vx,vy,vz,qx,qy,qz,qw\n"
    } else {
        "step,time,agent,group,x,y,vx,vy,orientation\n"
    }
}

/// A CSV field, quoted (RFC 4180) when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// A number with at most `decimals` decimals and no trailing zeros; non-finite as empty.
fn num(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return String::new();
    }
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

/// Runs a scenario with the options' overrides.
///
/// # Errors
/// A bad override ([`RunError::Scenario`]: steps above the limit), a world the engine refuses,
/// a thread pool that cannot be built, or a step the engine refuses.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Result<RunOutcome, RunError> {
    run_in(scenario, options)
}

/// [`run`] in `V`, the scenario's space ([`Scenario::dimensions`]): `run_in::<Vec3>` runs a
/// 3D scenario.
///
/// # Errors
/// As [`run`]; [`RunError::Scenario`] (`dimensions`) when `V` is not the scenario's space.
pub fn run_in<V: RunSpace>(
    scenario: &Scenario,
    options: &RunOptions,
) -> Result<RunOutcome<V>, RunError> {
    let mut scenario = scenario.clone();
    if let Some(seed) = options.seed {
        scenario = scenario.with_seed(seed)?;
    }
    if let Some(steps) = options.steps {
        scenario = scenario.with_steps(steps)?;
    }
    match options.threads {
        Some(threads) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| RunError::Threads { threads, message: e.to_string() })?;
            pool.install(|| simulate(&scenario, options, threads))
        }
        None => simulate(&scenario, options, rayon::current_num_threads()),
    }
}

fn simulate<V: RunSpace>(
    scenario: &Scenario,
    options: &RunOptions,
    threads: usize,
) -> Result<RunOutcome<V>, RunError> {
    let outputs = Outputs { metrics: true, replay: Some(REPLAY_BUDGET) };
    let mut sim = Simulation::<V>::new(scenario, outputs)?;
    let steps = sim.world().settings.steps;
    let steps32 = u32::try_from(steps).map_err(|_| RunError::TooManySteps(steps))?;
    let dt = sim.world().settings.dt;
    let n = sim.crowd().len();
    let every = options
        .trajectory_every
        .unwrap_or_else(|| stride_for(n, steps32, TRAJECTORY_BUDGET))
        .max(1);
    let mut trajectories = match &options.stream_trajectories {
        None => TrajectoryLog::Kept(Vec::new()),
        Some(path) => TrajectoryLog::streamed(path, sim.world(), sim.numbering(), dt)?,
    };
    let bar = progress_bar(options.progress, steps);
    let start = Instant::now();
    for step in 0..=steps32 {
        if step > 0 {
            sim.step()?;
        }
        if step % every == 0 || step == steps32 {
            trajectories.push_step(sim.crowd(), sim.numbering(), step)?;
        }
        if let (Some(bar), 0) = (&bar, step % 16) {
            bar.set_position(u64::from(step));
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let metrics = sim
        .metrics(threads, wall_seconds)
        .ok_or(RunError::Step { step: steps, message: "the run kept no measures".to_owned() })?;
    let (trajectories, streamed_trajectories) = trajectories.finish()?;
    let (world, numbering, recording) = sim.into_parts();
    let recording = recording
        .ok_or(RunError::Step { step: steps, message: "the run kept no replay".to_owned() })?;
    Ok(RunOutcome {
        metrics,
        recording,
        trajectories,
        streamed_trajectories,
        trajectory_every: every,
        output_name: world.settings.output_name.clone(),
        world,
        agent_groups: numbering.agent_groups().to_vec(),
    })
}

fn progress_bar(wanted: bool, steps: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal as _;
    if !wanted || steps < 500 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(steps);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {eta} left")
    {
        bar.set_style(style);
    }
    Some(bar)
}

/// The trajectory rows: kept in memory, or written to a file step by step.
enum TrajectoryLog<V: RunSpace> {
    Kept(Vec<TrajectoryRow<V>>),
    Streamed {
        path: PathBuf,
        file: std::io::BufWriter<std::fs::File>,
        group_names: Vec<String>,
        agent_groups: Vec<u32>,
        dt: f32,
        /// One step's rows, sorted into agent order before they are written.
        step_rows: Vec<TrajectoryRow<V>>,
    },
}

impl<V: RunSpace> TrajectoryLog<V> {
    fn streamed(
        path: &Path,
        world: &steerkit_scenario::World<V>,
        numbering: &Numbering,
        dt: f32,
    ) -> Result<Self, RunError> {
        let fail = |source| RunError::Write { path: path.to_path_buf(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| RunError::Write { path: dir.to_path_buf(), source })?;
        }
        // whatever is at the name goes (a partial file an aborted run left, or a planted link:
        // removed, not followed), and the file is created exclusively
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
            _ => {}
        }
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path);
        let mut file = std::io::BufWriter::new(file.map_err(fail)?);
        file.write_all(csv_header::<V>().as_bytes()).map_err(fail)?;
        Ok(Self::Streamed {
            path: path.to_path_buf(),
            file,
            group_names: world.groups.iter().map(|g| csv_field(&g.name)).collect(),
            agent_groups: numbering.agent_groups().to_vec(),
            dt,
            step_rows: Vec::new(),
        })
    }

    /// Keeps (or writes) every numbered agent's row at `step`.
    fn push_step(
        &mut self,
        crowd: &Crowd<V>,
        numbering: &Numbering,
        step: u32,
    ) -> Result<(), RunError> {
        let (p, v, o) = (crowd.positions(), crowd.velocities(), crowd.orientations());
        let rows = crowd.handles().enumerate().filter_map(|(i, h)| {
            let agent = numbering.number(h)?;
            Some(TrajectoryRow { step, agent, position: p[i], velocity: v[i], orientation: o[i] })
        });
        match self {
            Self::Kept(kept) => kept.extend(rows),
            Self::Streamed { path, file, group_names, agent_groups, dt, step_rows } => {
                step_rows.clear();
                step_rows.extend(rows);
                step_rows.sort_unstable_by_key(|r| r.agent);
                for r in step_rows.iter() {
                    write_csv_row(file, r, group_names, agent_groups, *dt)
                        .map_err(|source| RunError::Write { path: path.clone(), source })?;
                }
            }
        }
        Ok(())
    }

    /// The kept rows by step then agent, or the flushed file.
    fn finish(self) -> Result<(Vec<TrajectoryRow<V>>, Option<PathBuf>), RunError> {
        match self {
            Self::Kept(mut rows) => {
                rows.sort_by_key(|r| (r.step, r.agent));
                Ok((rows, None))
            }
            Self::Streamed { path, mut file, .. } => match file.flush() {
                Ok(()) => Ok((Vec::new(), Some(path))),
                Err(source) => Err(RunError::Write { path, source }),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(num(1.5, 4), "1.5");
        assert_eq!(num(2.0, 4), "2");
        assert_eq!(num(-0.00001, 4), "0");
        assert_eq!(num(-1.23456, 4), "-1.2346");
        assert_eq!(num(f64::NAN, 4), "");
    }

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("east"), "east");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
