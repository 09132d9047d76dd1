//! `Scenario` and `Run`: a scenario loaded and checked, run through `steerkit run`'s runner.

use crate::{array, whole_opt, ScenarioError, SimulationError};
use numpy::PyArrayDyn;
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use steerkit::{Vec2, Vec3};
use steerkit_cli::run::{run_in, RunError, RunOptions, RunOutcome, RunSpace};
use steerkit_scenario::Scenario as Inner;

/// Largest step count or seed accepted from Python (what a file may hold).
const MAX_U64: u64 = u64::MAX;
/// Most threads a pool may have (as `steerkit run --threads`).
pub(crate) const MAX_THREADS: u64 = 1024;

/// The one-line exception for a run's failure.
pub(crate) fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Scenario(e) => ScenarioError::new_err(e.to_string()),
        RunError::Threads { .. } => pyo3::exceptions::PyValueError::new_err(e.to_string()),
        RunError::Write { .. } => PyOSError::new_err(e.to_string()),
        e => SimulationError::new_err(e.to_string()),
    }
}

/// A checked scenario: a file (`.toml`, `.json`) or a built-in name, as `steerkit run` takes it.
#[pyclass(module = "steerkit", frozen)]
#[derive(Clone)]
pub struct Scenario {
    pub(crate) inner: Inner,
}

impl Scenario {
    /// A `Scenario` as given, or one loaded from a path or built-in name.
    pub(crate) fn from_any(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(s) = source.cast::<Scenario>() {
            return Ok(s.get().clone());
        }
        let arg: PathBuf = source.extract().map_err(|_| {
            PyTypeError::new_err(
                "source: expected a Scenario, a file path or a built-in scenario name",
            )
        })?;
        let arg = arg.to_str().ok_or_else(|| {
            ScenarioError::new_err(format!("source: {} is not valid UTF-8", arg.display()))
        })?;
        steerkit_cli::gallery::resolve(arg)
            .map(|inner| Self { inner })
            .map_err(ScenarioError::new_err)
    }
}

#[pymethods]
impl Scenario {
    /// Loads a file or a built-in scenario; `ScenarioError` with the one-line message if not.
    #[new]
    fn new(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::from_any(source)
    }

    /// A scenario from text in `format` (`toml` or `json`); `origin` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, format = "toml", origin = "<text>"))]
    fn from_text(text: &str, format: &str, origin: &str) -> PyResult<Self> {
        let parsed = match format {
            "toml" => Inner::from_toml_str(text, origin),
            "json" => Inner::from_json_str(text, origin),
            other => {
                return Err(crate::bad("format", format!("{other:?}"), "\"toml\" or \"json\""))
            }
        };
        parsed.map(|inner| Self { inner }).map_err(|e| ScenarioError::new_err(e.to_string()))
    }

    /// The scenario's name (`name` in the file, else the file's stem).
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The name of its output folder (`[a-z0-9_-]`).
    #[getter]
    fn output_name(&self) -> String {
        self.inner.output_name()
    }

    /// The description, trimmed.
    #[getter]
    fn description(&self) -> &str {
        self.inner.description().trim()
    }

    /// 2 or 3.
    #[getter]
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    /// Agents the file places.
    #[getter]
    fn agent_count(&self) -> usize {
        self.inner.agent_count()
    }

    /// Steps of a run.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps()
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f32 {
        self.inner.dt()
    }

    /// The world's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// A copy with another seed (agents in spawn regions placed again).
    fn with_seed(&self, seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        let seed = crate::whole("seed", seed, 0, MAX_U64)?;
        self.inner.with_seed(seed).map(|inner| Self { inner }).map_err(scenario_error)
    }

    /// A copy that runs `steps` steps.
    fn with_steps(&self, steps: &Bound<'_, PyAny>) -> PyResult<Self> {
        let steps = crate::whole("steps", steps, 0, MAX_U64)?;
        self.inner.with_steps(steps).map(|inner| Self { inner }).map_err(scenario_error)
    }

    /// Builds the world as `steerkit validate` does and returns its counts (`agents`, `groups`,
    /// `obstacles`, `walls`, `paths`); `ScenarioError` if it cannot be built.
    fn validate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = if self.inner.dimensions() == 3 {
            self.inner.build_in::<Vec3>().map(|w| {
                (w.crowd.len(), w.groups.len(), w.geometry.obstacles3.len(), 0, w.paths.len())
            })
        } else {
            self.inner.build().map(|w| {
                let g = &w.geometry;
                (w.crowd.len(), w.groups.len(), g.obstacles.len(), g.walls.len(), w.paths.len())
            })
        }
        .map_err(scenario_error)?;
        let d = PyDict::new(py);
        d.set_item("agents", counts.0)?;
        d.set_item("groups", counts.1)?;
        d.set_item("obstacles", counts.2)?;
        d.set_item("walls", counts.3)?;
        d.set_item("paths", counts.4)?;
        Ok(d)
    }

    /// Runs it to the end with `steerkit run`'s runner (the GIL released while it runs) and
    /// returns the `Run`: `steps` and `seed` override the file's, `threads` sizes the pool
    /// (results are identical for any count), `trajectory_every` keeps every k-th step.
    #[pyo3(signature = (*, steps = None, seed = None, threads = None, trajectory_every = None))]
    fn run(
        &self,
        py: Python<'_>,
        steps: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        trajectory_every: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Run> {
        let options = RunOptions {
            steps: whole_opt("steps", steps, 0, MAX_U64)?,
            seed: whole_opt("seed", seed, 0, MAX_U64)?,
            threads: whole_opt("threads", threads, 1, MAX_THREADS)?.map(|t| t as usize),
            trajectory_every: whole_opt("trajectory_every", trajectory_every, 1, u32::MAX.into())?
                .map(|k| k as u32),
            progress: false,
            stream_trajectories: None,
        };
        let scenario = &self.inner;
        if scenario.dimensions() == 3 {
            let out = py.detach(|| run_in::<Vec3>(scenario, &options)).map_err(run_error)?;
            Run::new(py, AnyOutcome::D3(Box::new(out)))
        } else {
            let out = py.detach(|| run_in::<Vec2>(scenario, &options)).map_err(run_error)?;
            Run::new(py, AnyOutcome::D2(Box::new(out)))
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario({:?}: {}D, {} agents, {} steps of {} s)",
            self.inner.name(),
            self.inner.dimensions(),
            self.inner.agent_count(),
            self.inner.steps(),
            self.inner.dt()
        )
    }
}

fn scenario_error(e: steerkit_scenario::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A finished run in its space.
enum AnyOutcome {
    D2(Box<RunOutcome<Vec2>>),
    D3(Box<RunOutcome<Vec3>>),
}

/// A finished run: its metrics, its trajectories as arrays, and its files on request.
#[pyclass(module = "steerkit", frozen)]
pub struct Run {
    outcome: AnyOutcome,
    metrics: Py<PyAny>,
    steps: Py<PyArrayDyn<u32>>,
    positions: Py<PyArrayDyn<f32>>,
    velocities: Py<PyArrayDyn<f32>>,
    orientations: Py<PyArrayDyn<f32>>,
    group_ids: Py<PyArrayDyn<u32>>,
    group_names: Vec<String>,
}

/// The kept trajectory rows as arrays: steps `(K,)`, positions and velocities `(K, N, D)`,
/// orientations `(K, N)` (rad) in 2D or `(K, N, 4)` (a unit quaternion `x, y, z, w`) in 3D; an
/// agent no longer in the crowd at a kept step is NaN there.
type Trajectories = (Vec<u32>, Vec<f32>, Vec<f32>, Vec<f32>, usize);

fn trajectories<V: RunSpace>(o: &RunOutcome<V>) -> Trajectories {
    let n = o.agent_groups.len();
    let d = V::DIMS;
    let q = if d == 3 { 4 } else { 1 };
    let mut steps: Vec<u32> = o.trajectories.iter().map(|r| r.step).collect();
    steps.dedup();
    let k = steps.len();
    let mut p = vec![f32::NAN; k * n * d];
    let mut v = vec![f32::NAN; k * n * d];
    let mut a = vec![f32::NAN; k * n * q];
    let mut row = 0;
    for r in &o.trajectories {
        while steps[row] != r.step {
            row += 1;
        }
        let at = row * n + r.agent as usize;
        let (pc, vc) = (V::components(r.position), V::components(r.velocity));
        p[at * d..at * d + d].copy_from_slice(&pc[..d]);
        v[at * d..at * d + d].copy_from_slice(&vc[..d]);
        match V::attitude(r.orientation) {
            Some(quat) => a[at * 4..at * 4 + 4].copy_from_slice(&quat),
            None => a[at] = V::heading_of(r.orientation),
        }
    }
    (steps, p, v, a, n)
}

impl Run {
    fn new(py: Python<'_>, outcome: AnyOutcome) -> PyResult<Self> {
        let (metrics_json, traj, groups, names, d) = match &outcome {
            AnyOutcome::D2(o) => (
                o.metrics.to_json(),
                trajectories(&**o),
                &o.agent_groups,
                o.metrics.groups.iter().map(|g| g.name.clone()).collect(),
                2,
            ),
            AnyOutcome::D3(o) => (
                o.metrics.to_json(),
                trajectories(&**o),
                &o.agent_groups,
                o.metrics.groups.iter().map(|g| g.name.clone()).collect(),
                3,
            ),
        };
        let (steps, p, v, a, n) = traj;
        let k = steps.len();
        let json = py.import("json")?;
        let metrics = json.call_method1("loads", (metrics_json,))?.unbind();
        let oshape: Vec<usize> = if d == 3 { vec![k, n, 4] } else { vec![k, n] };
        Ok(Self {
            metrics,
            steps: array(py, steps, &[k])?.unbind(),
            positions: array(py, p, &[k, n, d])?.unbind(),
            velocities: array(py, v, &[k, n, d])?.unbind(),
            orientations: array(py, a, &oshape)?.unbind(),
            group_ids: array(py, groups.clone(), &[n])?.unbind(),
            group_names: names,
            outcome,
        })
    }
}

#[pymethods]
impl Run {
    /// What `metrics.json` holds, as a dict (a new copy each time).
    #[getter]
    fn metrics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let copy = py.import("copy")?;
        Ok(copy.call_method1("deepcopy", (self.metrics.bind(py),))?.unbind())
    }

    /// `metrics.json` as text, exactly as written.
    #[getter]
    fn metrics_json(&self) -> String {
        let mut s = match &self.outcome {
            AnyOutcome::D2(o) => o.metrics.to_json(),
            AnyOutcome::D3(o) => o.metrics.to_json(),
        };
        s.push('\n');
        s
    }

    /// The kept steps, `(K,)` uint32 (every `trajectory_every`-th and the last).
    #[getter]
    fn steps(&self, py: Python<'_>) -> Py<PyArrayDyn<u32>> {
        self.steps.clone_ref(py)
    }

    /// Positions at the kept steps, `(K, N, D)` float32 (m), agents in file order.
    #[getter]
    fn positions(&self, py: Python<'_>) -> Py<PyArrayDyn<f32>> {
        self.positions.clone_ref(py)
    }

    /// Velocities at the kept steps, `(K, N, D)` float32 (m/s).
    #[getter]
    fn velocities(&self, py: Python<'_>) -> Py<PyArrayDyn<f32>> {
        self.velocities.clone_ref(py)
    }

    /// Orientations at the kept steps: `(K, N)` float32 headings (rad) in 2D, `(K, N, 4)` unit
    /// quaternions `(x, y, z, w)` in 3D.
    #[getter]
    fn orientations(&self, py: Python<'_>) -> Py<PyArrayDyn<f32>> {
        self.orientations.clone_ref(py)
    }

    /// The group index of each agent, `(N,)` uint32.
    #[getter]
    fn group_ids(&self, py: Python<'_>) -> Py<PyArrayDyn<u32>> {
        self.group_ids.clone_ref(py)
    }

    /// The group names, by group index.
    #[getter]
    fn group_names(&self) -> Vec<String> {
        self.group_names.clone()
    }

    /// `trajectories.csv` as text, exactly as written.
    fn trajectories_csv(&self) -> String {
        match &self.outcome {
            AnyOutcome::D2(o) => o.trajectories_csv(),
            AnyOutcome::D3(o) => o.trajectories_csv(),
        }
    }

    /// Writes `metrics.json`, `trajectories.csv`, `replay.html` and `snapshot.svg` into `folder`
    /// (created if needed), the same bytes `steerkit run` writes; returns their paths.
    fn write(&self, py: Python<'_>, folder: PathBuf) -> PyResult<Vec<PathBuf>> {
        let outcome = &self.outcome;
        py.detach(|| match outcome {
            AnyOutcome::D2(o) => o.write(&folder),
            AnyOutcome::D3(o) => o.write(&folder),
        })
        .map_err(run_error)
    }

    fn __repr__(&self) -> String {
        let (name, steps, n) = match &self.outcome {
            AnyOutcome::D2(o) => (&o.metrics.scenario, o.metrics.steps, o.agent_groups.len()),
            AnyOutcome::D3(o) => (&o.metrics.scenario, o.metrics.steps, o.agent_groups.len()),
        };
        format!("Run({name:?}: {n} agents, {steps} steps)")
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scenario>()?;
    m.add_class::<Run>()?;
    Ok(())
}
