//! `PtspEnv`: a PTSP race stepped one action at a time, in the shape of a `gymnasium`
//! environment (`reset`, `step` returning observation, reward, terminated, truncated, info),
//! for reinforcement-learning code. The race is `steerkit_ptsp::Race`, the loop `race` runs.

use crate::ptsp::{any_map, parse_action, PtspMap, PtspObservation};
use crate::{array, whole_opt};
use numpy::PyArrayDyn;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Arc;
use steerkit_cli::ptsp as cli;
use steerkit_ptsp::{Map, Notes, Race, RaceLimits, Ship};

/// Reward per step: the race is scored by its steps, so every step costs a little.
const STEP_REWARD: f64 = -0.01;

/// A PTSP race as a learning environment. Observation: a float32 vector
/// `[x, y, vx, vy, heading, visited_1 … visited_W]` (px, px/s, rad; 1.0 for a visited
/// waypoint); action: an index into `PTSP_ACTIONS` (0 to 5) or its name; reward: +1 for each
/// waypoint visited in the step, −0.01 a step; `terminated` when every waypoint is visited,
/// `truncated` at the step limit or the time-out. The race is deterministic, so `reset`'s seed
/// changes nothing.
#[pyclass(module = "steerkit")]
pub struct PtspEnv {
    map: Arc<Map>,
    limits: RaceLimits,
    race: Race<Arc<Map>>,
}

impl PtspEnv {
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let view = self.race.view();
        let k = view.state;
        let mut v = vec![k.position.x, k.position.y, k.velocity.x, k.velocity.y, k.orientation];
        v.extend(view.visited.iter().map(|s| if s.is_some() { 1.0 } else { 0.0 }));
        let n = v.len();
        array(py, v, &[n])
    }

    fn info<'py>(&self, py: Python<'py>, collided: bool) -> PyResult<Bound<'py, PyDict>> {
        let view = self.race.view();
        let d = PyDict::new(py);
        d.set_item("step", view.step)?;
        d.set_item("visited", view.visited.to_vec())?;
        d.set_item("collided", collided)?;
        d.set_item("outcome", self.race.outcome().map(|o| o.name()))?;
        Ok(d)
    }
}

#[pymethods]
impl PtspEnv {
    /// An environment on `map` (a `PtspMap`, a shipped map's name or a map file), checked as
    /// `steerkit ptsp` checks it (`MapError` for a start without room or a waypoint the ship
    /// cannot reach); `max_steps` and `timeout` as `steerkit ptsp`'s limits (10 000 and 1 000
    /// steps).
    #[new]
    #[pyo3(signature = (map, *, max_steps = None, timeout = None))]
    fn new(
        map: &Bound<'_, PyAny>,
        max_steps: Option<&Bound<'_, PyAny>>,
        timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let map = any_map(map)?;
        steerkit_ptsp::Planner::new(&map, &Ship::default())
            .map_err(|e| crate::MapError::new_err(e.to_string()))?;
        let d = RaceLimits::default();
        let max = u64::from(u32::MAX);
        let limits = RaceLimits {
            max_steps: whole_opt("max_steps", max_steps, 1, max)?.map_or(d.max_steps, |v| v as u32),
            timeout: whole_opt("timeout", timeout, 1, max)?.map_or(d.timeout, |v| v as u32),
            time: None,
        };
        let race = Race::new(Arc::clone(&map), Ship::default(), limits);
        Ok(Self { map, limits, race })
    }

    /// Starts the race again; returns `(observation, info)`. `seed` and `options` are accepted
    /// for `gymnasium`'s signature and change nothing (the race has no randomness).
    #[pyo3(signature = (*, seed = None, options = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyArrayDyn<f32>>, Bound<'py, PyDict>)> {
        let _ = (seed, options);
        self.race = Race::new(Arc::clone(&self.map), Ship::default(), self.limits);
        Ok((self.observation(py)?, self.info(py, false)?))
    }

    /// One 40 ms step with `action`; returns `(observation, reward, terminated, truncated,
    /// info)`. `ValueError` for a bad action or a race that has ended (call `reset`).
    #[allow(clippy::type_complexity)] // gymnasium's five-tuple
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyArrayDyn<f32>>, f64, bool, bool, Bound<'py, PyDict>)> {
        let action = parse_action(action)?;
        if self.race.outcome().is_some() {
            return Err(PyValueError::new_err("step: the race has ended (call reset())"));
        }
        let visits = self.race.step(action, Notes::default());
        let collided = self.race.last().is_some_and(|s| s.collided);
        let outcome = self.race.outcome();
        let terminated = outcome == Some(steerkit_ptsp::Outcome::Finished);
        let truncated = outcome.is_some() && !terminated;
        let reward = visits as f64 + STEP_REWARD;
        Ok((self.observation(py)?, reward, terminated, truncated, self.info(py, collided)?))
    }

    /// What a controller written for `race` sees now: its `act(observation)` can drive the
    /// environment (`env.step(controller.act(env.observe()))`).
    fn observe(&self) -> PtspObservation {
        let view = self.race.view();
        PtspObservation {
            map: Arc::clone(&self.map),
            state: view.state,
            step: view.step,
            visited: view.visited.to_vec(),
        }
    }

    /// The best action toward the velocity `desired` now (see `PtspObservation.best_action`).
    fn best_action(&self, desired: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.observe().best_action(desired)
    }

    /// The number of actions (6): `action_space = gymnasium.spaces.Discrete(env.action_count)`.
    #[getter]
    fn action_count(&self) -> usize {
        steerkit_ptsp::Action::ALL.len()
    }

    /// The observation's length, 5 + the number of waypoints.
    #[getter]
    fn observation_size(&self) -> usize {
        5 + self.map.waypoints().len()
    }

    /// The map.
    #[getter]
    fn map(&self) -> PtspMap {
        PtspMap::shared(Arc::clone(&self.map))
    }

    /// Writes the race so far as `steerkit ptsp` writes a race (`score.json`,
    /// `trajectory.csv`, `replay.html`, `snapshot.svg`) into `out`, under `name`; returns the
    /// paths.
    #[pyo3(signature = (out, name = "env"))]
    fn write(&self, py: Python<'_>, out: PathBuf, name: &str) -> PyResult<Vec<PathBuf>> {
        let log = self.race.log();
        py.detach(|| cli::write(&out, &self.map, &log, name)).map_err(PyOSError::new_err)
    }

    fn __repr__(&self) -> String {
        format!(
            "PtspEnv({:?}, step {}, {:?})",
            self.map.name(),
            self.race.step_count(),
            self.race.outcome().map(|o| o.name())
        )
    }
}
