//! `steerkit bench --scenario`: a scenario run from start to every agent home, no outputs, its
//! CPU per agent-update split into the sparse and the dense phase. `scripts/rvo2/compare.cpp`
//! (`whole`) measures RVO2 the same way.
//!
//! Two passes over the same deterministic run. The first steps until every agent with a goal is
//! within its group's arrive radius at once (the gallery's `all_home_time`), or `max_steps`
//! (the scenario's own duration when not given),
//! and measures the crowding after each step: the mean over agents of the number of other
//! agents within 15 m (the neighbour distance of RVO2's Circle and Blocks). A step is dense
//! when that is at least 10, more than the 10 neighbours ORCA takes in; the dense phase runs
//! from the first dense step to the last, the rest is sparse. The second pass rebuilds the
//! world and reruns exactly those steps with nothing but the simulation's step (the crowd's
//! and, in a navigating scenario, the navigator's; no measures, no replay) between the CPU
//! readings at the phase boundaries, as often as it takes to fill 2 s of CPU time (the process
//! clock counts in 10 ms ticks), and reports the mean.

use std::collections::HashMap;
use steerkit::Vec2;
use steerkit_scenario::simulation::{Outputs, Simulation};
use steerkit_scenario::{Scenario, World};

/// Radius of the crowding count (m).
const CROWDING_RADIUS: f32 = 15.0;
/// Mean crowding from which a step is dense.
const DENSE: f32 = 10.0;

/// What the first pass found and the second measured.
pub struct WholeRun {
    pub agents: usize,
    pub steps: u64,
    pub all_home: bool,
    pub peak_crowding: f32,
    /// The dense phase: steps `from..to` (0-based, `to` exclusive); empty if none.
    pub dense: (u64, u64),
    /// Process CPU seconds of the sparse start, the dense phase and the sparse end.
    pub cpu: [f64; 3],
}

impl WholeRun {
    /// CPU nanoseconds per agent-update over `seconds` and `steps`.
    fn per(&self, seconds: f64, steps: u64) -> f64 {
        if steps == 0 {
            return 0.0;
        }
        seconds * 1e9 / (steps as f64 * self.agents as f64)
    }

    /// One line in the form of `compare whole`'s.
    pub fn line(&self, name: &str) -> String {
        let (from, to) = self.dense;
        format!(
            "whole steerkit {name} n={} steps={} all_home={} peak_crowding={:.2} dense={from}..{to} \
             cpu_ns_sparse={:.1} cpu_ns_dense={:.1} cpu_ns_all={:.1}",
            self.agents,
            self.steps,
            if self.all_home { "yes" } else { "no" },
            self.peak_crowding,
            self.per(self.cpu[0] + self.cpu[2], self.steps - (to - from)),
            self.per(self.cpu[1], to - from),
            self.per(self.cpu.iter().sum(), self.steps),
        )
    }
}

/// Whether every agent with a goal is within its group's arrive radius of it.
fn all_home(world: &World<Vec2>) -> bool {
    let crowd = &world.crowd;
    world.groups.iter().all(|g| {
        let radius = crowd.group(g.id).map_or(0.0, |s| s.arrive_radius);
        g.agents.iter().all(|&h| match (crowd.kinematic(h), crowd.goal(h)) {
            (Some(k), Some(goal)) => {
                crowd.config().bounds.offset(k.position, goal).length_squared() <= radius * radius
            }
            _ => true,
        })
    })
}

/// Mean number of other agents within [`CROWDING_RADIUS`] (a hash grid of that cell size).
fn crowding(positions: &[Vec2]) -> f32 {
    let r = CROWDING_RADIUS;
    let cell = |p: Vec2| ((p.x / r).floor() as i64, (p.y / r).floor() as i64);
    let mut cells: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate() {
        cells.entry(cell(p)).or_default().push(i);
    }
    let mut total = 0u64;
    for (i, &p) in positions.iter().enumerate() {
        let (cx, cy) = cell(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(list) = cells.get(&(cx + dx, cy + dy)) else { continue };
                let near = list
                    .iter()
                    .filter(|&&j| j != i && (positions[j] - p).length_squared() <= r * r);
                total += near.count() as u64;
            }
        }
    }
    total as f32 / positions.len().max(1) as f32
}

/// Runs `scenario` as the [module docs](self) say, on the current thread pool.
///
/// # Errors
/// The scenario's build error, a 3D scenario, or the crowd's refusal of a step.
pub fn whole_run(scenario: &Scenario, max_steps: Option<u64>) -> Result<WholeRun, String> {
    if scenario.dimensions() != 2 {
        return Err("--scenario measures 2D scenarios".into());
    }
    let build = || Simulation::<Vec2>::new(scenario, Outputs::default()).map_err(|e| e.to_string());
    let mut sim = build()?;
    let max_steps = max_steps.unwrap_or(sim.world().settings.steps);
    let (mut steps, mut home, mut peak) = (0u64, false, 0.0f32);
    let mut dense: Option<(u64, u64)> = None;
    while steps < max_steps {
        if all_home(sim.world()) {
            home = true;
            break;
        }
        sim.step().map_err(|e| e.to_string())?;
        let c = crowding(sim.crowd().positions());
        peak = peak.max(c);
        if c >= DENSE {
            dense = Some((dense.map_or(steps, |d| d.0), steps + 1));
        }
        steps += 1;
    }
    let (from, to) = dense.unwrap_or((steps, steps));
    // process CPU time counts in 10 ms ticks: a short run is rerun until it has taken 2 s
    let (mut cpu, mut runs, mut agents) = ([0.0; 3], 0u32, 0);
    while runs == 0 || cpu.iter().sum::<f64>() < 2.0 {
        let mut sim = build()?;
        agents = sim.crowd().len();
        let mut k = 0;
        let mut c0 = steerkit_bench::process_cpu_seconds().unwrap_or(0.0);
        for (phase, end) in [from, to, steps].into_iter().enumerate() {
            while k < end {
                sim.step().map_err(|e| e.to_string())?;
                k += 1;
            }
            let c1 = steerkit_bench::process_cpu_seconds().unwrap_or(0.0);
            cpu[phase] += c1 - c0;
            c0 = c1;
        }
        runs += 1;
    }
    let cpu = cpu.map(|c| c / f64::from(runs));
    Ok(WholeRun { agents, steps, all_home: home, peak_crowding: peak, dense: (from, to), cpu })
}
