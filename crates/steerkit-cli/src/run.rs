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
//! After every step the runner reads the events the step returned (arrived, path finished,
//! obstacle contact, refused wall crossing, quarantine, stuck) and, when the plan collects
//! `agent_overlaps` or `min_separation`, scans each agent's neighbours (from the first step on:
//! the spawn layout itself is not measured) within
//! `r_i + r_max + neighbour_radius` on the crowd's grid: the smallest gap between two bodies
//! (`|p_i − p_j| − r_i − r_j`, the minimum image on a torus) and the pairs overlapping by more
//! than the plan's `overlap_tolerance`. An overlap is counted once when a pair starts
//! overlapping beyond the tolerance, and again only after it has separated. The state measured
//! is the committed one (after non-penetration), so a crowd that enforces non-penetration shows
//! only the overlaps the constraint could not remove within its passes.

use crate::ballistics::{Ballistics, TurretMetrics};
use crate::pairs::PairScan;
use crate::platform::{GapMetrics, JumperGroup, SideViewRun};
use crate::recording::{
    stride_for, FrameWriter, Group as RecGroup, Meta, PathShape, RecordOptions, Recorder,
    Recording, RecordingError, VehicleShape, PALETTE,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use steerkit::crowd::{AgentHandle, Crowd, CrowdEvent};
use steerkit::kinematic::Kinematic3;
use steerkit::math::Vector;
use steerkit::steering::{ObstacleAvoidance, Stateful};
use steerkit::{Quat, Vec2, Vec3};
use steerkit_scenario::{Dim, Metric, MetricsPlan, Scenario, ScenarioError};

/// What the runner does differently in 2D and 3D: the CSV's columns, the replay's frames and
/// formation slots (2D only); the replay's world is [`Dim::recording_world`].
pub trait RunSpace: Dim {
    /// `trajectories.csv`'s header.
    const CSV_HEADER: &'static str;
    /// An orientation for an agent no longer in the crowd.
    const LOST: Self::Orientation;
    /// Writes the orientation's CSV fields (each with its leading comma).
    ///
    /// # Errors
    /// The writer's.
    fn write_orientation(w: &mut impl std::io::Write, o: Self::Orientation) -> std::io::Result<()>;
    /// Pushes a replay frame of every agent's position, velocity and orientation.
    ///
    /// # Errors
    /// As [`Recorder::push_frame`].
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Self>,
        step: u32,
        agents: impl Iterator<Item = (Self, Self, Self::Orientation)>,
    ) -> Result<FrameWriter<'r, Self>, RecordingError>;
    /// An agent's formation slot, if it has one.
    fn slot(crowd: &Crowd<Self>, h: AgentHandle) -> Option<Self>;
    /// A point as the 3D world of the turrets sees it (2D has no turrets: `(x, y, 0)`).
    fn lift(v: Self) -> Vec3;
    /// The inverse of [`RunSpace::lift`].
    fn lower(v: Vec3) -> Self;
    /// The crowd as a 2D crowd (side views are 2D), `None` in 3D.
    fn planar_crowd(crowd: &mut Crowd<Self>) -> Option<&mut Crowd<Vec2>>;
}

/// Calls `f(from, to, hit)` for each ray agent `i` casts with `avoid` (its own fan state)
/// against the crowd's obstacles, `hit` the fraction of the ray to the first hit.
fn rays<V: RunSpace>(
    crowd: &Crowd<V>,
    i: usize,
    avoid: &ObstacleAvoidance,
    mut f: impl FnMut(V, V, Option<f32>),
) {
    let (Some(k), Some(obstacles)) = (crowd.kinematic(crowd.handle_at(i)), crowd.obstacles())
    else {
        return;
    };
    avoid.cast_rays(&k, obstacles, |ray, hit| {
        let length = ray.max_distance();
        let hit = hit.map(|c| if length > 0.0 { c.distance / length } else { 0.0 });
        f(ray.origin(), ray.end(), hit);
    });
}

impl RunSpace for Vec2 {
    const CSV_HEADER: &'static str = "step,time,agent,group,x,y,vx,vy,orientation\n";
    const LOST: f32 = f32::NAN;
    fn write_orientation(w: &mut impl std::io::Write, o: f32) -> std::io::Result<()> {
        write!(w, ",{}", num(f64::from(o), 4))
    }
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Vec2>,
        step: u32,
        agents: impl Iterator<Item = (Vec2, Vec2, f32)>,
    ) -> Result<FrameWriter<'r, Vec2>, RecordingError> {
        recorder.push_frame(step, agents)
    }
    fn lift(v: Vec2) -> Vec3 {
        v.extend(0.0)
    }
    fn lower(v: Vec3) -> Vec2 {
        v.truncate()
    }
    fn planar_crowd(crowd: &mut Crowd<Vec2>) -> Option<&mut Crowd<Vec2>> {
        Some(crowd)
    }
    fn slot(crowd: &Crowd<Vec2>, h: AgentHandle) -> Option<Vec2> {
        crowd.slot_target(h).map(|t| t.position)
    }
}

impl RunSpace for Vec3 {
    const CSV_HEADER: &'static str = "step,time,agent,group,x,y,z,vx,vy,vz,qx,qy,qz,qw\n";
    const LOST: Quat = Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN);
    fn write_orientation(w: &mut impl std::io::Write, o: Quat) -> std::io::Result<()> {
        for c in o.to_array() {
            write!(w, ",{}", num(f64::from(c), 4))?;
        }
        Ok(())
    }
    fn push_frame<'r>(
        recorder: &'r mut Recorder<Vec3>,
        step: u32,
        agents: impl Iterator<Item = (Vec3, Vec3, Quat)>,
    ) -> Result<FrameWriter<'r, Vec3>, RecordingError> {
        let kinematics: Vec<Kinematic3> = agents
            .map(|(position, velocity, orientation)| Kinematic3 {
                position,
                velocity,
                orientation,
                ..Kinematic3::default()
            })
            .collect();
        recorder.push_kinematics3(step, &kinematics)
    }
    fn lift(v: Vec3) -> Vec3 {
        v
    }
    fn lower(v: Vec3) -> Vec3 {
        v
    }
    fn planar_crowd(_: &mut Crowd<Vec3>) -> Option<&mut Crowd<Vec2>> {
        None
    }
    fn slot(_: &Crowd<Vec3>, _: AgentHandle) -> Option<Vec3> {
        None
    }
}

/// Agent-frames kept in a replay (about 10 MB of JSON at most).
pub const REPLAY_BUDGET: usize = 300_000;
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

/// The arrivals, paths and final state of one group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupMetrics {
    /// The group's name.
    pub name: String,
    /// Agents in the group.
    pub agents: usize,
    /// Agents that came within the group's arrive radius of their goal (each counted once);
    /// `null` when `arrivals` is not collected.
    pub arrived: Option<usize>,
    /// Mean time (s) of those agents' first arrival; `null` when none arrived.
    pub mean_arrival_time: Option<f64>,
    /// Time (s) of the last of those first arrivals (when every agent of the group was home
    /// once, if `arrived` equals `agents`); `null` when none arrived.
    pub last_arrival_time: Option<f64>,
    /// Time (s) by which half of the group's agents had arrived (first arrivals); `null` when
    /// fewer arrived or `arrivals` is not collected.
    pub t50: Option<f64>,
    /// Time (s) by which 90 % of the group's agents had arrived; `null` as for `t50`.
    pub t90: Option<f64>,
    /// Each agent's first arrival time (s), in file order within the group (`null` for one
    /// that never arrived); `null` when `arrivals` is not collected.
    pub arrival_times: Option<Vec<Option<f64>>>,
    /// Agents stuck when the run ended (no progress for the stuck time and not moved on
    /// since); `null` when `stuck` is not collected.
    pub stuck_at_end: Option<usize>,
    /// Agents that reached the end of an open path; `null` when not collected.
    pub paths_completed: Option<usize>,
    /// Mean speed (m/s) at the end.
    pub final_mean_speed: f64,
    /// Polarisation at the end: `|mean of the unit velocities|` of the moving agents, in
    /// [0, 1] (1: all heading the same way); `null` when no agent moves.
    pub final_polarisation: Option<f64>,
    /// Mean distance (m) between a formation member and its slot, over the second half of the
    /// run; `null` when the group has no agent in a formation.
    pub slot_error_mean: Option<f64>,
    /// Largest distance (m) between a formation member and its slot over the second half of
    /// the run; `null` as above.
    pub slot_error_max: Option<f64>,
    /// Mean time (s) at which the group's agents finished their open path; `null` when none
    /// did or `paths_completed` is not collected.
    pub mean_path_time: Option<f64>,
    /// Largest distance (m) of a follower from the group's path (its first `follow_path`
    /// leaf's), over every step until it finished the path; `null` when the group follows no
    /// path or `path_deviation` is not collected.
    pub path_deviation_max: Option<f64>,
    /// Mean of that distance (m) over the followers and steps; `null` as above.
    pub path_deviation_mean: Option<f64>,
}

/// `metrics.json`: what a run measured.
///
/// Counters that the scenario's `[metrics] collect` list leaves out are `null`. Units: m, s,
/// m/s. Schema version 1:
///
/// | field | type | meaning |
/// |---|---|---|
/// | `format`, `version` | `"steerkit-metrics"`, 1 | |
/// | `scenario` | string | the scenario's name |
/// | `description` | string | what to watch for |
/// | `seed` | integer | world seed of the run |
/// | `steps`, `dt` | integer, s | steps run and time step; the run lasted `steps · dt` s |
/// | `agents` | integer | agents at the start |
/// | `threads` | integer | threads of the pool that ran the step |
/// | `wall_seconds` | s | wall-clock time of the stepping and measuring (not writing) |
/// | `updates_per_s` | 1/s | `agents · steps / wall_seconds` |
/// | `collected` | strings | the metrics collected (the scenario's plan) |
/// | `overlap_tolerance` | m | overlaps shallower than this are not counted |
/// | `agent_overlaps` | integer \| null | pairs that started overlapping by more than the tolerance (once per contact) |
/// | `max_overlap` | m \| null | deepest overlap of two bodies seen after any step, whatever the tolerance |
/// | `overlap_pair_steps` | integer \| null | pair-steps overlapping by more than the tolerance |
/// | `obstacle_penetrations` | integer \| null | a body starting to touch a solid obstacle, or a move into one refused |
/// | `wall_crossings` | integer \| null | moves refused because the centre would have crossed a wall |
/// | `min_separation` | m \| null | smallest gap between two bodies over the run (negative: overlap); `null` when not collected or when no two agents ever came within the neighbour radius |
/// | `arrived` | integer \| null | agents arrived, all groups |
/// | `paths_completed` | integer \| null | agents that finished an open path, all groups |
/// | `quarantined` | integer \| null | agents frozen for a non-finite state |
/// | `stuck` | integer \| null | stuck events (no progress for the stuck time) |
/// | `stuck_at_end` | integer \| null | agents stuck when the run ended, all groups |
/// | `groups` | array of [`GroupMetrics`] | per group, in file order |
/// | `turrets` | array of [`TurretMetrics`] | per turret, in file order (left out when none) |
/// | `jumps` | array of [`GapMetrics`] | per gap of each jumper group's course (side views; left out when none) |
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Always `"steerkit-metrics"`.
    pub format: &'static str,
    /// Schema version, 1.
    pub version: u32,
    /// The scenario's name.
    pub scenario: String,
    /// What to watch for.
    pub description: String,
    /// World seed.
    pub seed: u64,
    /// Steps run.
    pub steps: u64,
    /// Time step (s).
    pub dt: f32,
    /// Agents at the start.
    pub agents: usize,
    /// Threads of the pool that ran the step.
    pub threads: usize,
    /// Wall-clock seconds of stepping and measuring.
    pub wall_seconds: f64,
    /// Agent-updates per second of wall-clock time.
    pub updates_per_s: f64,
    /// The metrics collected.
    pub collected: Vec<&'static str>,
    /// Overlap depth (m) below which an overlap is not counted.
    pub overlap_tolerance: f32,
    /// Overlap onsets beyond the tolerance.
    pub agent_overlaps: Option<u64>,
    /// Deepest overlap seen (m), whatever the tolerance.
    pub max_overlap: Option<f64>,
    /// Pair-steps overlapping by more than the tolerance (a pair overlapping for 10 steps
    /// counts 10).
    pub overlap_pair_steps: Option<u64>,
    /// Obstacle contacts.
    pub obstacle_penetrations: Option<u64>,
    /// Refused wall crossings.
    pub wall_crossings: Option<u64>,
    /// Smallest gap between bodies (m).
    pub min_separation: Option<f64>,
    /// Agents arrived, all groups.
    pub arrived: Option<usize>,
    /// Agents that finished a path, all groups.
    pub paths_completed: Option<usize>,
    /// Agents quarantined.
    pub quarantined: Option<u64>,
    /// Stuck events.
    pub stuck: Option<u64>,
    /// Agents stuck when the run ended, all groups.
    pub stuck_at_end: Option<usize>,
    /// Per group, in file order.
    pub groups: Vec<GroupMetrics>,
    /// Per turret, in file order (3D scenarios with turrets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub turrets: Vec<TurretMetrics>,
    /// Per gap of each jumper group's course (side views).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jumps: Vec<GapMetrics>,
}

impl Metrics {
    /// The group named `name`.
    #[must_use]
    pub fn group(&self, name: &str) -> Option<&GroupMetrics> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("metrics always serialise")
    }

    /// The short table printed after a run.
    #[must_use]
    pub fn summary_table(&self) -> String {
        let mut s = String::new();
        let opt = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
        let m = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.3} m"));
        let _ = writeln!(
            s,
            "{}: {} agents, {} steps of {} s ({:.1} s simulated), seed {}",
            self.scenario,
            self.agents,
            self.steps,
            self.dt,
            self.steps as f64 * f64::from(self.dt),
            self.seed
        );
        let _ = writeln!(
            s,
            "{:.2} s wall, {:.2} M agent-updates/s on {} thread{}",
            self.wall_seconds,
            self.updates_per_s / 1e6,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        );
        let rows = [
            ("agent overlaps", opt(self.agent_overlaps)),
            ("min separation", m(self.min_separation)),
            ("obstacle contacts", opt(self.obstacle_penetrations)),
            ("wall crossings refused", opt(self.wall_crossings)),
            ("quarantined", opt(self.quarantined)),
        ];
        for (k, v) in rows {
            let _ = writeln!(s, "  {k:<24}{v:>12}");
        }
        let _ = writeln!(
            s,
            "  {:<16}{:>7}{:>9}{:>10}{:>10}{:>7}{:>8}{:>7}{:>10}",
            "group", "agents", "arrived", "mean t", "last t", "paths", "speed", "polar", "slot err"
        );
        for g in &self.groups {
            let count = |v: Option<usize>| v.map_or("-".to_owned(), |v| v.to_string());
            let f =
                |v: Option<f64>, unit: &str| v.map_or("-".to_owned(), |v| format!("{v:.2}{unit}"));
            let _ = writeln!(
                s,
                "  {:<16}{:>7}{:>9}{:>10}{:>10}{:>7}{:>8}{:>7}{:>10}",
                truncate(&g.name, 16),
                g.agents,
                count(g.arrived),
                f(g.mean_arrival_time, " s"),
                f(g.last_arrival_time, " s"),
                count(g.paths_completed),
                format!("{:.2}", g.final_mean_speed),
                f(g.final_polarisation, ""),
                f(g.slot_error_mean, " m"),
            );
        }
        s
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
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
        let _ = s.write_all(V::CSV_HEADER.as_bytes());
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
    V::write_orientation(w, r.orientation)?;
    w.write_all(b"\n")
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
    let mut sim = Simulation::new(scenario, options)?;
    let bar = progress_bar(options.progress, sim.steps);
    let start = Instant::now();
    for step in 0..=sim.steps32 {
        sim.advance(step)?;
        if let Some(bar) = &bar {
            if step % 16 == 0 {
                bar.set_position(u64::from(step));
            }
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    sim.finish(scenario, threads, wall_seconds)
}

/// A run in progress: the world, how its agents are numbered, what is kept and what has been
/// measured so far.
struct Simulation<V: RunSpace> {
    world: steerkit_scenario::World<V>,
    steps: u64,
    steps32: u32,
    dt: f32,
    plan: MetricsPlan,
    /// Agents at the start.
    n: usize,
    numbering: Numbering,
    recorder: Recorder<V>,
    traj_every: u32,
    trajectories: TrajectoryLog<V>,
    /// True when the plan wants the pairwise scan (overlaps or the minimum separation).
    pairwise: bool,
    events: EventTally,
    pairs: PairScan,
    slots: SlotErrors,
    deviation: PathDeviation,
    /// The scenario's turrets and their projectiles (3D).
    ballistics: Ballistics,
    /// The side view's jumpers (2D), if the world is seen from the side.
    side_view: Option<SideViewRun>,
    /// Each group's first obstacle-avoidance leaf, whose rays the replay draws.
    avoiders: Vec<Option<ObstacleAvoidance>>,
    /// The agents (by number) whose rays the replay keeps: the first [`RAY_AGENTS`] of the
    /// groups that avoid obstacles.
    ray_agents: Vec<bool>,
}

/// Agents whose obstacle-avoidance rays a replay keeps (rays cost about 60 bytes each per
/// frame: all 150 birds of `flock3d` would triple its replay; eight add a tenth).
pub const RAY_AGENTS: usize = 8;

impl<V: RunSpace> Simulation<V> {
    fn new(scenario: &Scenario, options: &RunOptions) -> Result<Self, RunError> {
        let world = scenario.build_in::<V>()?;
        let steps = world.settings.steps;
        let steps32 = u32::try_from(steps).map_err(|_| RunError::TooManySteps(steps))?;
        let dt = world.settings.dt;
        let plan = world.settings.metrics.clone();
        let n = world.crowd.len();
        let numbering = Numbering::new(&world, n);
        let recorder = recorder(scenario, &world, &numbering, n, steps32)?;
        let traj_every = options
            .trajectory_every
            .unwrap_or_else(|| stride_for(n, steps32, TRAJECTORY_BUDGET))
            .max(1);
        let pairwise = plan.collects(Metric::AgentOverlaps) || plan.collects(Metric::MinSeparation);
        let mut pairs =
            PairScan::new(world.crowd.config().neighbour_radius, plan.overlap_tolerance);
        let groups_n = world.groups.len();
        let avoiders = world
            .groups
            .iter()
            .map(|g| {
                let mut first = None;
                if let Some(spec) = world.crowd.group(g.id) {
                    spec.recipe.for_each_leaf(&mut |r| {
                        if let (None, steerkit::crowd::Recipe::ObstacleAvoidance(o)) = (first, r) {
                            first = Some(*o);
                        }
                    });
                }
                first
            })
            .collect::<Vec<Option<ObstacleAvoidance>>>();
        let mut ray_agents = vec![false; n];
        let avoiding = (0..numbering.agent_groups.len())
            .filter(|&a| avoiders[numbering.agent_groups[a] as usize].is_some());
        for a in avoiding.take(RAY_AGENTS) {
            ray_agents[a] = true;
        }
        let trajectories = match &options.stream_trajectories {
            None => TrajectoryLog::Kept(Vec::new()),
            Some(path) => TrajectoryLog::streamed(path, &world, &numbering, dt)?,
        };
        let deviation = PathDeviation::new(&world, n, plan.collects(Metric::PathDeviation));
        let turrets = scenario.plan::<V>().map(|p| p.turrets.clone()).unwrap_or_default();
        let volume = world.bounds.corners().map(|(lo, hi)| (V::lift(lo), V::lift(hi)));
        let ballistics = Ballistics::new(
            &turrets,
            |t| {
                let h = *world.groups.get(t.target.group)?.agents.get(t.target.index)?;
                Some((h, numbering.number(h)?))
            },
            volume,
        )
        .map_err(|e| RunError::Step { step: 0, message: e.to_string() })?;
        let side_view = match scenario.plan::<V>().and_then(|p| p.side_view.clone()) {
            None => None,
            Some(view) => {
                let plan = scenario.plan::<V>();
                let groups = world
                    .groups
                    .iter()
                    .enumerate()
                    .filter_map(|(gi, g)| {
                        let gp = &plan?.groups[gi];
                        Some(JumperGroup {
                            name: g.name.clone(),
                            agents: g
                                .agents
                                .iter()
                                .filter_map(|&h| Some((h, numbering.number(h)?)))
                                .collect(),
                            radius: gp.radius,
                            limits: gp.limits,
                            jump_speed: gp.jump?.jump_speed,
                        })
                    })
                    .collect::<Vec<JumperGroup>>();
                // side-view figures run through each other by design: not overlaps
                for (h, _) in groups.iter().flat_map(|g| &g.agents) {
                    pairs.ignore(*h);
                }
                let crowd = &world.crowd;
                let start = |h| crowd.kinematic(h).map(|k| V::lift(k.position).truncate());
                Some(
                    SideViewRun::new(&view, groups, dt, start)
                        .map_err(|e| RunError::Step { step: 0, message: e.to_string() })?,
                )
            }
        };
        let mut recorder = recorder;
        if let Some(sv) = &side_view {
            for (x0, x1, y) in sv.platforms() {
                recorder.add_wall(Vec2::new(x0, y), Vec2::new(x1, y));
            }
            for (name, points) in sv.arcs() {
                if let Ok(line) = steerkit::path::Polyline::open(points) {
                    recorder.add_path(PathShape::from_polyline(name, &line));
                }
            }
        }
        if !ballistics.is_empty() {
            recorder.set_turrets(
                ballistics.shapes(|i| PALETTE[(world.groups.len() + i) % PALETTE.len()].to_owned()),
            );
        }
        Ok(Self {
            deviation,
            ballistics,
            side_view,
            steps,
            steps32,
            dt,
            plan,
            n,
            numbering,
            recorder,
            traj_every,
            trajectories,
            pairwise,
            events: EventTally::new(n),
            pairs,
            slots: SlotErrors::new(groups_n),
            avoiders,
            ray_agents,
            world,
        })
    }

    fn collects(&self, m: Metric) -> bool {
        self.plan.collects(m)
    }

    /// One step of the run: moves the crowd and counts its events (from step 1 on; step 0 is
    /// the spawn layout), measures, and keeps trajectory rows and the replay frame when due.
    fn advance(&mut self, step: u32) -> Result<(), RunError> {
        if step > 0 {
            self.step_and_count_events(step)?;
        }
        // the spawn layout itself is not scanned
        let frame_min_gap = if self.pairwise && step > 0 {
            self.pairs.scan(&mut self.world.crowd)
        } else {
            f32::INFINITY
        };
        if step > 0 {
            self.deviation.measure(&self.world.crowd, &self.numbering, &self.events.path_done);
            if !self.ballistics.is_empty() {
                self.fly_projectiles(step)?;
            }
            if let (Some(sv), Some(crowd)) =
                (self.side_view.as_mut(), V::planar_crowd(&mut self.world.crowd))
            {
                let events = sv.step(self.dt, crowd).map_err(|e| RunError::Step {
                    step: u64::from(step),
                    message: e.to_string(),
                })?;
                for (kind, agent) in events {
                    self.recorder.event(step, kind, Some(agent));
                }
            }
        }
        // formation slots, second half of the run
        if u64::from(step) * 2 >= self.steps && !self.world.formations.is_empty() {
            self.slots.add(&self.world.crowd, &self.numbering);
        }
        if step % self.traj_every == 0 || step == self.steps32 {
            self.trajectories.push_step(&self.world.crowd, &self.numbering, step)?;
        }
        if self.recorder.records(step) {
            self.record_frame(step, frame_min_gap)?;
        }
        Ok(())
    }

    /// Keeps the frame at `step`: every agent in file order (NaN for one no longer in the
    /// crowd), its steering, target, neighbour radius and slot, and the frame's metrics.
    fn record_frame(&mut self, step: u32, min_gap: f32) -> Result<(), RunError> {
        let arrived = self.collects(Metric::Arrivals).then_some(self.events.arrived_total);
        let crowd = &self.world.crowd;
        let n = self.recorder.agent_count();
        let (p, v, o) = (crowd.positions(), crowd.velocities(), crowd.orientations());
        // storage order → file order
        let mut order = vec![usize::MAX; n];
        for (i, h) in crowd.handles().enumerate() {
            if let Some(a) = self.numbering.number(h) {
                order[a as usize] = i;
            }
        }
        let agents = order.iter().map(|&i| {
            if i == usize::MAX {
                (V::splat(f32::NAN), V::splat(f32::NAN), V::LOST)
            } else {
                (p[i], v[i], o[i])
            }
        });
        let mut frame = V::push_frame(&mut self.recorder, step, agents)?;
        let debug = crowd.debug_info();
        let mut speed = 0.0f64;
        for (a, &i) in order.iter().enumerate() {
            if i == usize::MAX {
                continue;
            }
            let a32 = a as u32;
            speed += f64::from(v[i].length());
            // a jumper's recipe is inert: its motion comes from the side view, not a steering
            if !self.side_view.as_ref().is_some_and(|s| s.is_jumper(a32)) {
                frame.steering(a32, debug[i].steering.linear);
                if let Some(t) = debug[i].target {
                    frame.target(a32, t);
                }
            }
            frame.neighbour_radius(a32, self.pairs.neighbour_radius);
            if let Some(slot) = V::slot(crowd, crowd.handle_at(i)) {
                frame.slot(a32, slot);
            }
            if let Some(c) = crowd.controls(crowd.handle_at(i)) {
                frame.controls(a32, c.values());
            }
            let group = self.numbering.agent_groups[a] as usize;
            let drawn = self.ray_agents.get(a).copied().unwrap_or(false) && frame.keeps(a32);
            if let (true, Some(avoid)) = (drawn, &self.avoiders[group]) {
                let h = crowd.handle_at(i);
                let leaf = crowd.avoidance(h).map_or(*avoid, |s| avoid.with_state(s));
                rays(crowd, i, &leaf, |from, to, hit| frame.ray(a32, from, to, hit));
            }
        }
        frame.metric("mean speed", "m/s", if n > 0 { (speed / n as f64) as f32 } else { 0.0 });
        if self.pairwise {
            frame.metric(
                "min separation",
                "m",
                if min_gap.is_finite() { min_gap } else { f32::NAN },
            );
        }
        if let Some(arrived) = arrived {
            frame.metric("arrived", "", arrived as f32);
        }
        Ok(())
    }

    /// Moves the turrets' projectiles and fires what is due (after the crowd's step).
    fn fly_projectiles(&mut self, step: u32) -> Result<(), RunError> {
        let crowd = &self.world.crowd;
        let bodies: Vec<(u32, Vec3, f32)> = crowd
            .handles()
            .zip(crowd.positions())
            .filter_map(|(h, &p)| Some((self.numbering.number(h)?, V::lift(p), crowd.radius(h)?)))
            .collect();
        let out = self
            .ballistics
            .step(step, self.dt, &mut self.world.crowd, &bodies, V::lift, V::lower)
            .map_err(|e| RunError::Step { step: u64::from(step), message: e.to_string() })?;
        for (kind, agent) in out.events {
            self.recorder.event(step, kind, agent);
        }
        for shot in out.finished {
            self.recorder.shot(shot);
        }
        Ok(())
    }

    fn step_and_count_events(&mut self, step: u32) -> Result<(), RunError> {
        let events = self
            .world
            .crowd
            .step(self.dt)
            .map_err(|e| RunError::Step { step: u64::from(step), message: e.to_string() })?;
        for e in events {
            let who = self.numbering.number(e.agent());
            self.events.count(e, who, step);
            if let Some(kind) = event_kind(e) {
                self.recorder.event(step, kind, who);
            }
        }
        Ok(())
    }

    fn finish(
        self,
        scenario: &Scenario,
        threads: usize,
        wall_seconds: f64,
    ) -> Result<RunOutcome<V>, RunError> {
        let groups = self.group_metrics();
        let collects = |m: Metric| self.plan.collects(m);
        let (events, pairs) = (&self.events, &self.pairs);
        let agent_updates = self.n as f64 * self.steps as f64;
        let metrics = Metrics {
            format: "steerkit-metrics",
            version: 1,
            scenario: self.world.settings.name.clone(),
            description: scenario.description().trim().to_owned(),
            seed: self.world.settings.seed,
            steps: self.steps,
            dt: self.dt,
            agents: self.n,
            threads,
            wall_seconds,
            updates_per_s: if wall_seconds > 0.0 { agent_updates / wall_seconds } else { 0.0 },
            collected: self.plan.collect.iter().map(|m| m.name()).collect(),
            overlap_tolerance: pairs.tolerance,
            agent_overlaps: collects(Metric::AgentOverlaps).then_some(pairs.overlaps),
            max_overlap: collects(Metric::AgentOverlaps)
                .then_some(round6(f64::from(pairs.max_overlap))),
            overlap_pair_steps: collects(Metric::AgentOverlaps).then_some(pairs.pair_steps),
            obstacle_penetrations: collects(Metric::ObstaclePenetrations)
                .then_some(events.obstacle_contacts),
            wall_crossings: collects(Metric::WallCrossings).then_some(events.wall_crossings),
            min_separation: (collects(Metric::MinSeparation) && pairs.min_gap.is_finite())
                .then(|| round6(f64::from(pairs.min_gap))),
            arrived: collects(Metric::Arrivals).then_some(events.arrived_total),
            paths_completed: collects(Metric::PathsCompleted)
                .then(|| events.path_done.iter().filter(|d| d.is_some()).count()),
            quarantined: collects(Metric::Quarantined).then_some(events.quarantined),
            stuck: collects(Metric::Stuck).then_some(events.stuck),
            stuck_at_end: collects(Metric::Stuck)
                .then(|| groups.iter().filter_map(|g| g.stuck_at_end).sum()),
            groups,
            turrets: self.ballistics.metrics(),
            jumps: self.side_view.as_ref().map(SideViewRun::metrics).unwrap_or_default(),
        };
        let (trajectories, streamed_trajectories) = self.trajectories.finish()?;
        Ok(RunOutcome {
            metrics,
            recording: self.recorder.finish(),
            trajectories,
            streamed_trajectories,
            trajectory_every: self.traj_every,
            output_name: self.world.settings.output_name.clone(),
            world: self.world,
            agent_groups: self.numbering.agent_groups,
        })
    }

    /// Arrivals, paths, final speed and polarisation, and slot errors of each group.
    fn group_metrics(&self) -> Vec<GroupMetrics> {
        let crowd = &self.world.crowd;
        let agent_groups = &self.numbering.agent_groups;
        let arrivals = self.collects(Metric::Arrivals);
        let dt = f64::from(self.dt);
        let velocities_of: Vec<(u32, V)> = crowd
            .handles()
            .zip(crowd.velocities())
            .filter_map(|(h, &v)| self.numbering.number(h).map(|a| (a, v)))
            .collect();
        let mut groups = Vec::with_capacity(self.world.groups.len());
        for (gi, g) in self.world.groups.iter().enumerate() {
            let members =
                || agent_groups.iter().enumerate().filter(move |(_, &x)| x as usize == gi);
            let times: Vec<f64> = members()
                .filter_map(|(a, _)| self.events.arrived_at[a])
                .map(|s| s as f64 * f64::from(self.dt))
                .collect();
            let path_times: Vec<f64> = members()
                .filter_map(|(a, _)| self.events.path_done[a])
                .map(|s| s as f64 * f64::from(self.dt))
                .collect();
            let done = path_times.len();
            let vels: Vec<V> = velocities_of
                .iter()
                .filter(|(a, _)| agent_groups[*a as usize] as usize == gi)
                .map(|(_, v)| *v)
                .collect();
            let speed = if vels.is_empty() {
                0.0
            } else {
                vels.iter().map(|v| f64::from(v.length())).sum::<f64>() / vels.len() as f64
            };
            let moving: Vec<V> =
                vels.iter().filter(|v| v.length() > 1e-3).map(|v| v.normalize_or_zero()).collect();
            let polar = (!moving.is_empty()).then(|| {
                let s = moving.iter().fold(V::ZERO, |s, &v| s + v);
                f64::from(s.length()) / moving.len() as f64
            });
            let (slot_error_mean, slot_error_max) = self.slots.of_group(gi);
            let arrival_times: Vec<Option<f64>> = members()
                .map(|(a, _)| self.events.arrived_at[a].map(|s| round6(s as f64 * dt)))
                .collect();
            let stuck_at_end = g.agents.iter().filter(|&&h| crowd.is_stuck(h)).count();
            groups.push(GroupMetrics {
                name: g.name.clone(),
                agents: g.agents.len(),
                arrived: arrivals.then_some(times.len()),
                mean_arrival_time: (arrivals && !times.is_empty())
                    .then(|| times.iter().sum::<f64>() / times.len() as f64),
                last_arrival_time: (arrivals && !times.is_empty())
                    .then(|| times.iter().copied().fold(0.0, f64::max)),
                t50: arrivals.then(|| arrived_by(&times, g.agents.len(), 0.5)).flatten(),
                t90: arrivals.then(|| arrived_by(&times, g.agents.len(), 0.9)).flatten(),
                arrival_times: arrivals.then_some(arrival_times),
                stuck_at_end: self.collects(Metric::Stuck).then_some(stuck_at_end),
                paths_completed: self.collects(Metric::PathsCompleted).then_some(done),
                final_mean_speed: round6(speed),
                final_polarisation: polar.map(round6),
                slot_error_mean,
                slot_error_max,
                mean_path_time: (self.collects(Metric::PathsCompleted) && done > 0)
                    .then(|| round6(path_times.iter().sum::<f64>() / done as f64)),
                path_deviation_max: self.deviation.max(gi).map(round6),
                path_deviation_mean: self.deviation.mean(gi).map(round6),
            });
        }
        groups
    }
}

/// The time (s) by which `share` of `agents` had arrived, from their first-arrival `times`
/// (any order): the `⌈share · agents⌉`-th smallest; `None` when fewer arrived.
fn arrived_by(times: &[f64], agents: usize, share: f64) -> Option<f64> {
    let k = ((share * agents as f64).ceil() as usize).max(1);
    if times.len() < k {
        return None;
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(round6(sorted[k - 1]))
}

/// Agent numbers in file order (groups first to last) and the group of each.
struct Numbering {
    /// Agent number by handle index; `u32::MAX` for a handle no group names.
    numbers: Vec<u32>,
    /// Group index by agent number.
    agent_groups: Vec<u32>,
}

impl Numbering {
    fn new<V: Dim>(world: &steerkit_scenario::World<V>, n: usize) -> Self {
        let slots = world.groups.iter().flat_map(|g| &g.agents).map(|h| h.index as usize + 1).max();
        let mut numbers = vec![u32::MAX; slots.unwrap_or(0)];
        let mut agent_groups = Vec::with_capacity(n);
        for (gi, g) in world.groups.iter().enumerate() {
            for h in &g.agents {
                numbers[h.index as usize] = agent_groups.len() as u32;
                agent_groups.push(gi as u32);
            }
        }
        Self { numbers, agent_groups }
    }

    fn number(&self, h: AgentHandle) -> Option<u32> {
        self.numbers.get(h.index as usize).copied().filter(|&a| a != u32::MAX)
    }
}

/// What the step events told, by agent number.
#[derive(Default)]
struct EventTally {
    /// Step of each agent's first arrival.
    arrived_at: Vec<Option<u64>>,
    /// Agents arrived at least once.
    arrived_total: usize,
    /// Step at which each agent finished its open path.
    path_done: Vec<Option<u64>>,
    obstacle_contacts: u64,
    wall_crossings: u64,
    quarantined: u64,
    stuck: u64,
}

impl EventTally {
    fn new(n: usize) -> Self {
        Self { arrived_at: vec![None; n], path_done: vec![None; n], ..Self::default() }
    }

    fn count(&mut self, e: &CrowdEvent, who: Option<u32>, step: u32) {
        match *e {
            CrowdEvent::Arrived { .. } => {
                if let Some(a) = who {
                    if self.arrived_at[a as usize].is_none() {
                        self.arrived_at[a as usize] = Some(u64::from(step));
                        self.arrived_total += 1;
                    }
                }
            }
            CrowdEvent::PathFinished { .. } => {
                if let Some(a) = who {
                    self.path_done[a as usize].get_or_insert(u64::from(step));
                }
            }
            CrowdEvent::ObstacleCollision { .. } => self.obstacle_contacts += 1,
            CrowdEvent::WallCrossing { .. } => self.wall_crossings += 1,
            CrowdEvent::Quarantined { .. } => self.quarantined += 1,
            CrowdEvent::Stuck { .. } => self.stuck += 1,
            CrowdEvent::AgentCollision { .. } => {}
        }
    }
}

/// How far each group's path followers stray from the path: the distance from an agent to the
/// nearest point of its group's path, found from its last parameter within the path's search
/// window (so a step costs what the crowd's own path search costs), every step until it finishes
/// the path.
struct PathDeviation {
    /// Each group's path, when it follows one and the metric is collected.
    paths: Vec<Option<usize>>,
    /// Each agent's last path parameter (m), NaN before the first (a whole-path search).
    param: Vec<f32>,
    max: Vec<f64>,
    sum: Vec<f64>,
    count: Vec<u64>,
}

impl PathDeviation {
    fn new<V: RunSpace>(world: &steerkit_scenario::World<V>, n: usize, wanted: bool) -> Self {
        let paths = world
            .groups
            .iter()
            .map(|g| {
                let mut first = None;
                if let (true, Some(spec)) = (wanted, world.crowd.group(g.id)) {
                    spec.recipe.for_each_leaf(&mut |r| {
                        if let (None, steerkit::crowd::Recipe::FollowPath { path, .. }) = (first, r)
                        {
                            first = Some(path.0 as usize);
                        }
                    });
                }
                first
            })
            .collect::<Vec<_>>();
        let groups = paths.len();
        Self {
            paths,
            param: vec![f32::NAN; n],
            max: vec![0.0; groups],
            sum: vec![0.0; groups],
            count: vec![0; groups],
        }
    }

    fn measure<V: RunSpace>(
        &mut self,
        crowd: &Crowd<V>,
        numbering: &Numbering,
        done: &[Option<u64>],
    ) {
        use steerkit::path::Path as _;
        if self.paths.iter().all(Option::is_none) {
            return;
        }
        let paths = crowd.paths();
        for (h, &p) in crowd.handles().zip(crowd.positions()) {
            let Some(a) = numbering.number(h) else { continue };
            let a = a as usize;
            let g = numbering.agent_groups[a] as usize;
            let (Some(Some(path)), None) =
                (self.paths.get(g).map(|p| p.map(|i| &paths[i])), done[a])
            else {
                continue;
            };
            let t = path.get_param(p, self.param[a]);
            self.param[a] = t;
            let d = f64::from((path.get_position(t) - p).length());
            if d.is_finite() {
                self.max[g] = self.max[g].max(d);
                self.sum[g] += d;
                self.count[g] += 1;
            }
        }
    }

    fn max(&self, g: usize) -> Option<f64> {
        (self.paths[g].is_some() && self.count[g] > 0).then(|| self.max[g])
    }

    fn mean(&self, g: usize) -> Option<f64> {
        (self.paths[g].is_some() && self.count[g] > 0).then(|| self.sum[g] / self.count[g] as f64)
    }
}

/// Distances between formation members and their slots, per group.
struct SlotErrors {
    sum: Vec<f64>,
    count: Vec<u64>,
    max: Vec<f32>,
}

impl SlotErrors {
    fn new(groups: usize) -> Self {
        Self { sum: vec![0.0; groups], count: vec![0; groups], max: vec![0.0; groups] }
    }

    fn add<V: RunSpace>(&mut self, crowd: &Crowd<V>, numbering: &Numbering) {
        let positions = crowd.positions();
        for (i, h) in crowd.handles().enumerate() {
            if let (Some(t), Some(a)) = (V::slot(crowd, h), numbering.number(h)) {
                let g = numbering.agent_groups[a as usize] as usize;
                let e = (positions[i] - t).length();
                self.sum[g] += f64::from(e);
                self.count[g] += 1;
                self.max[g] = self.max[g].max(e);
            }
        }
    }

    /// Mean and largest error of group `g`; `None` when it had no agent in a formation.
    fn of_group(&self, g: usize) -> (Option<f64>, Option<f64>) {
        let any = self.count[g] > 0;
        (
            any.then(|| round6(self.sum[g] / self.count[g] as f64)),
            any.then(|| round6(f64::from(self.max[g]))),
        )
    }
}

fn recorder<V: RunSpace>(
    scenario: &Scenario,
    world: &steerkit_scenario::World<V>,
    numbering: &Numbering,
    n: usize,
    steps32: u32,
) -> Result<Recorder<V>, RunError> {
    let rec_groups: Vec<RecGroup> = world
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let plan = scenario.plan::<V>().map(|p| &p.groups[i]);
            let radius = plan.map_or(0.0, |p| p.radius);
            let colour = g.colour.clone().unwrap_or_else(|| PALETTE[i % PALETTE.len()].to_owned());
            let mut group = RecGroup::new(g.name.clone(), colour, radius);
            group.vehicle = plan.and_then(|p| p.vehicle.as_ref()).map(vehicle_shape);
            group
        })
        .collect();
    let meta =
        Meta::new(world.settings.name.clone(), world.settings.seed, world.settings.dt, steps32)
            .with_description(scenario.description().trim());
    Ok(Recorder::<V>::new(
        meta,
        V::recording_world(world),
        rec_groups,
        numbering.agent_groups.clone(),
        RecordOptions::for_size(n, steps32, REPLAY_BUDGET),
    )?)
}

/// The body a replay draws for a group's vehicle.
fn vehicle_shape(v: &steerkit_scenario::VehiclePlan) -> VehicleShape {
    use steerkit::motor::VehicleModel as M;
    let (model, wheelbase, max_steer, track_width) = match &v.motor.model {
        M::Car(c) => ("car", Some(c.params().wheelbase), Some(c.params().max_steer), None),
        M::Motorbike(b) => {
            let c = b.as_car().params();
            ("motorbike", Some(c.wheelbase), Some(c.max_steer), None)
        }
        M::Tank(t) => ("tank", None, None, Some(t.params().track_width)),
        M::Human(_) => ("human", None, None, None),
        M::Discrete(_) => ("discrete_car", None, None, None),
    };
    VehicleShape {
        model: model.to_owned(),
        length: v.length,
        width: v.width,
        wheelbase,
        max_steer,
        track_width,
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The replay's name for an event; `None` for agent contacts, which the replay does not list
/// (a dense crowd has them every step).
fn event_kind(e: &CrowdEvent) -> Option<&'static str> {
    Some(match e {
        CrowdEvent::Arrived { .. } => "arrived",
        CrowdEvent::PathFinished { .. } => "path finished",
        CrowdEvent::Stuck { .. } => "stuck",
        CrowdEvent::Quarantined { .. } => "quarantined",
        CrowdEvent::ObstacleCollision { .. } => "obstacle contact",
        CrowdEvent::WallCrossing { .. } => "wall crossing refused",
        CrowdEvent::AgentCollision { .. } => return None,
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
        file.write_all(V::CSV_HEADER.as_bytes()).map_err(fail)?;
        Ok(Self::Streamed {
            path: path.to_path_buf(),
            file,
            group_names: world.groups.iter().map(|g| csv_field(&g.name)).collect(),
            agent_groups: numbering.agent_groups.clone(),
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
