//! `Simulation`: the one simulation of `steerkit-scenario`, stepped from Python.
//!
//! The crowd keeps its agents in a storage order that it re-sorts for locality, so an array in
//! agent order (file order, the numbers of replays, trajectories and events) cannot be a view of
//! its storage: each read gathers the state into one new array (one copy, no other) that the
//! array then owns.

use crate::scenario::{Scenario, MAX_THREADS};
use crate::{array, bad, vector, whole, whole_opt, SimulationError};
use numpy::PyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::time::Instant;
use steerkit::crowd::{AgentHandle, CrowdEvent};
use steerkit::{Vec2, Vec3};
use steerkit_scenario::{Dim, Outputs, Simulation as Inner, SimulationError as SimError};

/// A simulation in its space.
enum AnySim {
    D2(Box<Inner<Vec2>>),
    D3(Box<Inner<Vec3>>),
}

/// Runs `$body` with `$s` bound to the simulation of either space.
macro_rules! with_sim {
    ($sim:expr, $s:ident => $body:expr) => {
        match $sim {
            AnySim::D2($s) => $body,
            AnySim::D3($s) => $body,
        }
    };
}

/// One event of a step: `(step, kind, agent, other)`.
type Event = (u64, &'static str, Option<u32>, Option<u32>);

/// The event's kind and the other agent it names (collisions between agents).
fn event_kind(e: &CrowdEvent) -> (&'static str, Option<AgentHandle>) {
    match *e {
        CrowdEvent::Quarantined { .. } => ("quarantined", None),
        CrowdEvent::Arrived { .. } => ("arrived", None),
        CrowdEvent::PathFinished { .. } => ("path_finished", None),
        CrowdEvent::Stuck { .. } => ("stuck", None),
        CrowdEvent::AgentCollision { other, .. } => ("agent_collision", Some(other)),
        CrowdEvent::ObstacleCollision { .. } => ("obstacle_collision", None),
        CrowdEvent::WallCrossing { .. } => ("wall_crossing", None),
    }
}

fn sim_error(e: SimError) -> PyErr {
    match e {
        SimError::Scenario(e) => crate::ScenarioError::new_err(e.to_string()),
        e => SimulationError::new_err(e.to_string()),
    }
}

/// Steps `sim` `n` times, collecting its events (agents by number).
fn step_n<V: Dim>(sim: &mut Inner<V>, n: u64) -> Result<Vec<Event>, SimError> {
    let dt = sim.world().settings.dt;
    let mut events = Vec::new();
    for _ in 0..n {
        let step = sim.step_count() + 1;
        // the handles of collisions are numbered after the step (numbers never change)
        let mut raw: Vec<(&'static str, Option<u32>, Option<AgentHandle>)> = Vec::new();
        sim.step_by(dt, |e, who| {
            let (kind, other) = event_kind(e);
            raw.push((kind, who, other));
        })?;
        let numbering = sim.numbering();
        events.extend(
            raw.into_iter().map(|(kind, who, other)| {
                (step, kind, who, other.and_then(|h| numbering.number(h)))
            }),
        );
    }
    Ok(events)
}

/// Gathers `field` of each numbered agent into agent order (`width` floats each, NaN for an
/// agent no longer in the crowd).
fn gather<V: Dim, T: Copy>(
    sim: &Inner<V>,
    values: &[T],
    width: usize,
    mut put: impl FnMut(&mut [f32], T),
) -> Vec<f32> {
    let n = sim.numbering().len();
    let mut out = vec![f32::NAN; n * width];
    let numbering = sim.numbering();
    for (h, &x) in sim.crowd().handles().zip(values) {
        if let Some(a) = numbering.number(h) {
            let a = a as usize;
            put(&mut out[a * width..a * width + width], x);
        }
    }
    out
}

/// A scenario's simulation stepped from Python: `step(n)`, the agents' state as read-only NumPy
/// arrays in agent order (file order), goals set per agent, events as a list.
#[pyclass(module = "steerkit")]
pub struct Simulation {
    sim: AnySim,
    /// Each agent number's handle.
    handles: Vec<AgentHandle>,
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

fn build_pool(threads: Option<u64>) -> PyResult<Option<rayon::ThreadPool>> {
    threads
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t as usize)
                .build()
                .map_err(|e| PyValueError::new_err(format!("threads: {t}: {e}")))
        })
        .transpose()
}

impl Simulation {
    fn install<R: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut AnySim) -> R + Send) -> R {
        let (sim, pool) = (&mut self.sim, &self.pool);
        py.detach(move || match pool {
            Some(pool) => pool.install(|| f(sim)),
            None => f(sim),
        })
    }

    fn dims(&self) -> usize {
        match self.sim {
            AnySim::D2(_) => 2,
            AnySim::D3(_) => 3,
        }
    }
}

#[pymethods]
impl Simulation {
    /// Builds `scenario` (a `Scenario`, a file path or a built-in name) ready to step: no
    /// metrics, no replay. `threads` sizes the pool that runs each step (default: one per core;
    /// results are identical for any count); `seed` overrides the file's.
    #[new]
    #[pyo3(signature = (scenario, *, threads = None, seed = None))]
    fn new(
        py: Python<'_>,
        scenario: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut sc = Scenario::from_any(scenario)?.inner;
        if let Some(seed) = whole_opt("seed", seed, 0, u64::MAX)? {
            sc = sc.with_seed(seed).map_err(|e| crate::ScenarioError::new_err(e.to_string()))?;
        }
        let threads_n = whole_opt("threads", threads, 1, MAX_THREADS)?;
        let pool = build_pool(threads_n)?;
        let built = py.detach(|| {
            if sc.dimensions() == 3 {
                Inner::<Vec3>::new(&sc, Outputs::default()).map(|s| AnySim::D3(Box::new(s)))
            } else {
                Inner::<Vec2>::new(&sc, Outputs::default()).map(|s| AnySim::D2(Box::new(s)))
            }
        });
        let sim = built.map_err(sim_error)?;
        let handles = with_sim!(&sim, s => s.world().groups.iter().flat_map(|g| g.agents.iter().copied()).collect());
        let threads = threads_n.map_or_else(rayon::current_num_threads, |t| t as usize);
        Ok(Self { sim, handles, pool, threads })
    }

    /// Steps `n` times (the scenario's `dt` each, the GIL released) and returns the events of
    /// those steps as `(step, kind, agent, other)` tuples: `kind` one of `arrived`,
    /// `path_finished`, `stuck`, `quarantined`, `agent_collision` (`other` the second agent),
    /// `obstacle_collision`, `wall_crossing`; agents by number, `None` for one no group names.
    #[pyo3(signature = (n = None))]
    fn step(&mut self, py: Python<'_>, n: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Event>> {
        let n = whole_opt("n", n, 0, u64::from(u32::MAX))?.unwrap_or(1);
        self.install(py, |sim| with_sim!(sim, s => step_n(s, n))).map_err(sim_error)
    }

    /// Steps taken.
    #[getter]
    fn step_count(&self) -> u64 {
        with_sim!(&self.sim, s => s.step_count())
    }

    /// Simulated time (s): steps × `dt`.
    #[getter]
    fn time(&self) -> f64 {
        with_sim!(&self.sim, s => s.step_count() as f64 * f64::from(s.world().settings.dt))
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f32 {
        with_sim!(&self.sim, s => s.world().settings.dt)
    }

    /// The scenario's steps (a run's length; stepping further is allowed).
    #[getter]
    fn steps(&self) -> u64 {
        with_sim!(&self.sim, s => s.world().settings.steps)
    }

    /// 2 or 3.
    #[getter]
    fn dimensions(&self) -> usize {
        self.dims()
    }

    /// Threads of the pool that runs each step.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// Agents numbered at the start (the length of every per-agent array).
    fn __len__(&self) -> usize {
        self.handles.len()
    }

    /// Positions `(N, D)` float32 (m), agents in file order; NaN for an agent no longer in the
    /// crowd. A new read-only array each read (one copy out of the crowd's storage order).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let d = self.dims();
        let data = with_sim!(&self.sim, s => gather(&**s, s.crowd().positions(), d, |o, v| o.copy_from_slice(&Dim::components(v)[..d])));
        array(py, data, &[self.handles.len(), d])
    }

    /// Velocities `(N, D)` float32 (m/s), as `positions`.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let d = self.dims();
        let data = with_sim!(&self.sim, s => gather(&**s, s.crowd().velocities(), d, |o, v| o.copy_from_slice(&Dim::components(v)[..d])));
        array(py, data, &[self.handles.len(), d])
    }

    /// Headings `(N,)` float32 (rad, from +x toward +y) in 2D; in 3D the orientations as unit
    /// quaternions `(N, 4)` `(x, y, z, w)`.
    #[getter]
    fn headings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let n = self.handles.len();
        match &self.sim {
            AnySim::D2(s) => {
                let data = gather(&**s, s.crowd().orientations(), 1, |o, a| o[0] = a);
                array(py, data, &[n])
            }
            AnySim::D3(s) => {
                let data = gather(&**s, s.crowd().orientations(), 4, |o, q| {
                    o.copy_from_slice(&<Vec3 as Dim>::attitude(q).unwrap_or([f32::NAN; 4]));
                });
                array(py, data, &[n, 4])
            }
        }
    }

    /// The group index of each agent, `(N,)` uint32 (`group_names` names them).
    #[getter]
    fn group_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<u32>>> {
        let ids = with_sim!(&self.sim, s => s.numbering().agent_groups().to_vec());
        array(py, ids, &[self.handles.len()])
    }

    /// The group names, by group index.
    #[getter]
    fn group_names(&self) -> Vec<String> {
        with_sim!(&self.sim, s => s.world().groups.iter().map(|g| g.name.clone()).collect())
    }

    /// Agent `agent`'s goal (a tuple of D floats, m), or None.
    fn goal(&self, agent: &Bound<'_, PyAny>) -> PyResult<Option<Vec<f32>>> {
        let h = self.handle(agent)?;
        let d = self.dims();
        Ok(with_sim!(&self.sim, s => s.crowd().goal(h).map(|g| Dim::components(g)[..d].to_vec())))
    }

    /// Sets agent `agent`'s goal to `goal` (D finite numbers, m) or clears it (`None`); the
    /// agent arrives there as its group's recipe steers it.
    fn set_goal(&mut self, agent: &Bound<'_, PyAny>, goal: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.handle(agent)?;
        let d = self.dims();
        let goal = if goal.is_none() { None } else { Some(vector("goal", goal, d)?) };
        let refused = |e: steerkit::crowd::CrowdError| PyValueError::new_err(format!("goal: {e}"));
        match &mut self.sim {
            AnySim::D2(s) => s
                .crowd_mut()
                .set_goal(h, goal.map(|g| <Vec2 as Dim>::from_components(&g)))
                .map_err(refused),
            AnySim::D3(s) => s
                .crowd_mut()
                .set_goal(h, goal.map(|g| <Vec3 as Dim>::from_components(&g)))
                .map_err(refused),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation({}D, {} agents, step {})",
            self.dims(),
            self.handles.len(),
            self.step_count()
        )
    }
}

impl Simulation {
    /// The handle of agent number `agent`, refused when out of range or gone.
    fn handle(&self, agent: &Bound<'_, PyAny>) -> PyResult<AgentHandle> {
        let n = self.handles.len() as u64;
        if n == 0 {
            return Err(bad("agent", agent.to_string(), "the simulation has no agents"));
        }
        let a = whole("agent", agent, 0, n - 1)? as usize;
        let h = self.handles[a];
        let alive = with_sim!(&self.sim, s => s.crowd().contains(h));
        if alive {
            Ok(h)
        } else {
            Err(bad("agent", a, "an agent still in the crowd"))
        }
    }
}

/// Seconds to step `scenario` (built first, not timed) `steps` times in Rust alone (no Python in the loop,
/// no metrics, no replay), in a pool of `threads` (default: one per core): the reference that
/// `Simulation.step` is measured against.
#[pyfunction]
#[pyo3(signature = (scenario, steps, *, threads = None))]
fn bench_steps(
    py: Python<'_>,
    scenario: &Bound<'_, Scenario>,
    steps: &Bound<'_, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let steps = whole("steps", steps, 0, u64::from(u32::MAX))?;
    let pool = build_pool(whole_opt("threads", threads, 1, MAX_THREADS)?)?;
    let sc = scenario.get().inner.clone();
    let work = move || -> Result<f64, SimError> {
        fn go<V: Dim>(sc: &steerkit_scenario::Scenario, steps: u64) -> Result<f64, SimError> {
            let mut sim = Inner::<V>::new(sc, Outputs::default())?;
            let start = Instant::now();
            for _ in 0..steps {
                sim.step()?;
            }
            Ok(start.elapsed().as_secs_f64())
        }
        if sc.dimensions() == 3 {
            go::<Vec3>(&sc, steps)
        } else {
            go::<Vec2>(&sc, steps)
        }
    };
    py.detach(move || match &pool {
        Some(pool) => pool.install(work),
        None => work(),
    })
    .map_err(sim_error)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(bench_steps, m)?)?;
    Ok(())
}
