//! `metrics.json`: what a run measured, per run and per group, from a simulation's measures.

use super::Simulation;
use crate::ballistics::TurretMetrics;
use crate::platform::{GapMetrics, SideViewRun};
use crate::{Dim, Metric};
use serde::Serialize;
use std::fmt::Write as _;
use steerkit::math::Vector;

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
    /// Agents within the arrive radius of their goal when the run ended (one taken out on
    /// arrival counts); `null` when `arrivals` is not collected.
    pub home_at_end: Option<usize>,
    /// The first time (s) every agent of the group with a goal was within its arrive radius
    /// at once, not just each at some moment; `null` if never, or not collected.
    pub all_home_time: Option<f64>,
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
    /// The complete laps (s) of the group's agents on its looping path, each agent's in order,
    /// agents in file order (a lap runs from one crossing of the path's start to the next; the
    /// standing start's part lap is not one); `null` when the group laps no looping path or
    /// `laps` is not collected.
    pub lap_times: Option<Vec<f64>>,
    /// The fastest of those laps (s); `null` when there is none.
    pub best_lap: Option<f64>,
    /// Times an agent of the group drew level with or passed another follower of the same
    /// looping path (any group) from behind; `null` as for `lap_times`.
    pub overtakes: Option<u64>,
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
/// | `home_at_end` | integer \| null | agents within their arrive radius of their goal when the run ended, all groups |
/// | `all_home_time` | s \| null | the first time every agent with a goal, all groups, was home at once |
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
    /// Agents home when the run ended, all groups.
    pub home_at_end: Option<usize>,
    /// The first time (s) every agent with a goal was home at once.
    pub all_home_time: Option<f64>,
    /// Goals the navigation found unreachable (each agent's goal counted once; the agent stops
    /// at the reachable point nearest it). Only with a `[navigation]` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<u64>,
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

impl<V: Dim> Simulation<V> {
    /// What the run measured so far ([`Outputs::metrics`](super::Outputs::metrics); `None`
    /// when it was not asked for), `threads` and `wall_seconds` as the caller ran it.
    #[must_use]
    pub fn metrics(&self, threads: usize, wall_seconds: f64) -> Option<Metrics> {
        let m = self.measures.as_ref()?;
        let groups = self.group_metrics();
        let collects = |x: Metric| m.plan.collects(x);
        let (events, pairs) = (&m.events, &m.pairs);
        let settings = &self.world.settings;
        let agent_updates = self.agents as f64 * self.step as f64;
        Some(Metrics {
            format: "steerkit-metrics",
            version: 1,
            scenario: settings.name.clone(),
            description: self.description.clone(),
            seed: settings.seed,
            steps: self.step,
            dt: settings.dt,
            agents: self.agents,
            threads,
            wall_seconds,
            updates_per_s: if wall_seconds > 0.0 { agent_updates / wall_seconds } else { 0.0 },
            collected: m.plan.collect.iter().map(|x| x.name()).collect(),
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
            home_at_end: m.homes.as_ref().map(|h| h.group_now.iter().sum()),
            all_home_time: (m.homes.as_ref().and_then(|h| h.all))
                .map(|s| round6(s as f64 * f64::from(settings.dt))),
            unreachable: self.world.navigation.is_some().then_some(self.unreachable),
            groups,
            turrets: self.ballistics.metrics(),
            jumps: self.side_view.as_ref().map(SideViewRun::metrics).unwrap_or_default(),
        })
    }

    /// Arrivals, paths, final speed and polarisation, and slot errors of each group.
    fn group_metrics(&self) -> Vec<GroupMetrics> {
        let Some(m) = self.measures.as_ref() else { return Vec::new() };
        let crowd = &self.world.crowd;
        let agent_groups = self.numbering.agent_groups();
        let collects = |x: Metric| m.plan.collects(x);
        let arrivals = collects(Metric::Arrivals);
        let dt = f64::from(self.world.settings.dt);
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
                .filter_map(|(a, _)| m.events.arrived_at[a])
                .map(|s| s as f64 * dt)
                .collect();
            let path_times: Vec<f64> = members()
                .filter_map(|(a, _)| m.events.path_done[a])
                .map(|s| s as f64 * dt)
                .collect();
            let done = path_times.len();
            let vels: Vec<V> = velocities_of
                .iter()
                .filter(|(a, _)| agent_groups[*a as usize] as usize == gi)
                .map(|(_, v)| *v)
                .collect();
            let (speed, polar) = speed_and_polarisation(&vels);
            let (slot_error_mean, slot_error_max) = m.slots.of_group(gi);
            let arrival_times: Vec<Option<f64>> = members()
                .map(|(a, _)| m.events.arrived_at[a].map(|s| round6(s as f64 * dt)))
                .collect();
            let stuck_at_end = g.agents.iter().filter(|&&h| crowd.is_stuck(h)).count();
            let laps = m.laps.measured(gi);
            let lap_times: Vec<f64> =
                members().flat_map(|(a, _)| m.laps.lap_times(a, dt)).map(round6).collect();
            let overtakes: u64 = members().map(|(a, _)| m.laps.overtakes[a]).sum();
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
                home_at_end: m.homes.as_ref().map(|h| h.group_now[gi]),
                all_home_time: (m.homes.as_ref())
                    .and_then(|h| h.group_all[gi])
                    .map(|s| round6(s as f64 * dt)),
                stuck_at_end: collects(Metric::Stuck).then_some(stuck_at_end),
                paths_completed: collects(Metric::PathsCompleted).then_some(done),
                final_mean_speed: round6(speed),
                final_polarisation: polar.map(round6),
                slot_error_mean,
                slot_error_max,
                mean_path_time: (collects(Metric::PathsCompleted) && done > 0)
                    .then(|| round6(path_times.iter().sum::<f64>() / done as f64)),
                path_deviation_max: m.deviation.max(gi).map(round6),
                path_deviation_mean: m.deviation.mean(gi).map(round6),
                best_lap: lap_times.iter().copied().reduce(f64::min).filter(|_| laps),
                lap_times: laps.then_some(lap_times),
                overtakes: laps.then_some(overtakes),
            });
        }
        groups
    }
}

/// Mean speed (m/s) of `vels`, and the polarisation of the moving ones: `|mean of the unit
/// velocities|` (`None` when none moves).
fn speed_and_polarisation<V: Vector>(vels: &[V]) -> (f64, Option<f64>) {
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
    (speed, polar)
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

/// `x` rounded to 6 decimals (1 µm, 1 µs) for the file.
pub(super) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
