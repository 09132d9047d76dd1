//! The course project from Python: `PtspMap`, `PtspObservation` and `race`, which runs a
//! controller written in Python through `steerkit ptsp`'s own race and scoring.

use crate::{array, vector, MapError};
use numpy::PyArrayDyn;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use steerkit::kinematic::Kinematic;
use steerkit::Vec2;
use steerkit_cli::ptsp::{self as cli, Racer};
use steerkit_ptsp::{
    best_action, Action, Controller, Map, Planner, RaceLimits, RaceLog, RaceView, Ship, TimeRules,
    STEP,
};

/// A PTSP map: walls, the start and the waypoints, in pixels (`y` up from the bottom row).
#[pyclass(module = "steerkit", frozen)]
pub struct PtspMap {
    map: Arc<Map>,
    /// The reference's planner for the default ship, built at the first `path` call (its
    /// error, a waypoint the ship cannot reach, kept as the message).
    planner: OnceLock<Result<Mutex<Planner>, String>>,
}

impl PtspMap {
    /// The map shared with the object.
    pub(crate) fn arc(&self) -> Arc<Map> {
        Arc::clone(&self.map)
    }

    fn of(map: Map) -> Self {
        Self::shared(Arc::new(map))
    }

    pub(crate) fn shared(map: Arc<Map>) -> Self {
        Self { map, planner: OnceLock::new() }
    }
}

#[pymethods]
impl PtspMap {
    /// A shipped map (`open`, `rooms`, `maze`, `spiral`, `doors`) or a map file; `MapError` with the one-line
    /// message if not.
    #[new]
    fn new(source: PathBuf) -> PyResult<Self> {
        let arg = source.to_str().ok_or_else(|| {
            MapError::new_err(format!("source: {} is not valid UTF-8", source.display()))
        })?;
        cli::resolve_map(arg).map(Self::of).map_err(MapError::new_err)
    }

    /// A map from the text of a map file; `name` is shown in errors and replays.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<text>"))]
    fn from_text(text: &str, name: &str) -> PyResult<Self> {
        Map::parse(text, name).map(Self::of).map_err(|e| MapError::new_err(e.to_string()))
    }

    /// The map's name (a shipped name or the file's path).
    #[getter]
    fn name(&self) -> &str {
        self.map.name()
    }

    /// Width (px).
    #[getter]
    fn width(&self) -> usize {
        self.map.width()
    }

    /// Height (px).
    #[getter]
    fn height(&self) -> usize {
        self.map.height()
    }

    /// The ship's start `(x, y)` (px).
    #[getter]
    fn start(&self) -> (f32, f32) {
        let s = self.map.start();
        (s.x, s.y)
    }

    /// The waypoints' centres, `(W, 2)` float32 (px), in the map's order.
    #[getter]
    fn waypoints<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let w = self.map.waypoints();
        array(py, w.iter().flat_map(|p| [p.x, p.y]).collect(), &[w.len(), 2])
    }

    /// The walls, `(height, width)` bool, row `y` from the bottom (`walls[y, x]`).
    #[getter]
    fn walls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<bool>>> {
        let (w, h) = (self.map.width(), self.map.height());
        let cells = (0..h as i64).flat_map(|y| (0..w as i64).map(move |x| (x, y)));
        array(py, cells.map(|(x, y)| self.map.is_wall(x, y)).collect(), &[h, w])
    }

    /// True when pixel `(x, y)` is a wall (outside the map counts as wall).
    fn is_wall(&self, x: i64, y: i64) -> bool {
        self.map.is_wall(x, y)
    }

    /// Distance (px) from `origin` `(x, y)` along `direction` `(dx, dy)` to the first wall
    /// pixel, or `max` (px, 0 to 8192) if there is none that near: the lectures' probe ray,
    /// exact (every pixel the ray crosses is looked at). 0 from inside a wall; `max` for a zero
    /// direction.
    #[pyo3(signature = (origin, direction, max = 256.0))]
    fn ray(
        &self,
        origin: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
        max: f64,
    ) -> PyResult<f32> {
        let o = vector("origin", origin, 2)?;
        let d = vector("direction", direction, 2)?;
        if !(0.0..=8192.0).contains(&max) {
            return Err(crate::bad("max", max, "0 to 8192 px"));
        }
        Ok(self.map.ray(Vec2::new(o[0], o[1]), Vec2::new(d[0], d[1]), max as f32))
    }

    /// Distance (px) from `point` `(x, y)` to the nearest wall pixel, or `max` (px, 0 to 64) if
    /// none is nearer: the ship's disc (radius 3 px) at `point` touches a wall exactly when this
    /// is below 3.
    #[pyo3(signature = (point, max = 16.0))]
    fn clearance(&self, point: &Bound<'_, PyAny>, max: f64) -> PyResult<f32> {
        let p = vector("point", point, 2)?;
        if !(0.0..=64.0).contains(&max) {
            return Err(crate::bad("max", max, "0 to 64 px"));
        }
        Ok(self.map.clearance_at(Vec2::new(p[0], p[1]), max as f32))
    }

    /// The reference controller's A* path (px) from `origin` `(x, y)` to waypoint `waypoint`
    /// (0-based), `(N, 2)` float32, starting at `origin` and ending at the free 2 × 2 px cell
    /// nearest the waypoint (within the ship's visit radius of it); paths keep off walls (a
    /// cost that grows near them). `None` when there is no way there. `MapError` when the map
    /// has a waypoint the ship cannot reach at all.
    fn path<'py>(
        &self,
        py: Python<'py>,
        origin: &Bound<'py, PyAny>,
        waypoint: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyArrayDyn<f32>>>> {
        let o = vector("origin", origin, 2)?;
        let n = self.map.waypoints().len() as u64;
        let w = crate::whole("waypoint", waypoint, 0, n - 1)? as usize;
        let planner = self
            .planner
            .get_or_init(|| {
                Planner::new(&self.map, &Ship::default()).map(Mutex::new).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| MapError::new_err(e.clone()))?;
        let mut planner = planner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(path) = planner.path_to(Vec2::new(o[0], o[1]), w) else { return Ok(None) };
        let k = path.len();
        array(py, path.into_iter().flat_map(|p| [p.x, p.y]).collect(), &[k, 2]).map(Some)
    }

    fn __repr__(&self) -> String {
        let m = &self.map;
        format!(
            "PtspMap({:?}: {} × {} px, {} waypoints)",
            m.name(),
            m.width(),
            m.height(),
            m.waypoints().len()
        )
    }
}

/// What a controller sees each step (px, s, rad).
#[pyclass(module = "steerkit", frozen)]
pub struct PtspObservation {
    pub(crate) map: Arc<Map>,
    pub(crate) state: Kinematic,
    /// Steps taken so far.
    #[pyo3(get)]
    pub(crate) step: u32,
    /// For each waypoint, the step it was visited at, or None.
    #[pyo3(get)]
    pub(crate) visited: Vec<Option<u32>>,
}

#[pymethods]
impl PtspObservation {
    /// The ship's position `(x, y)` (px).
    #[getter]
    fn position(&self) -> (f32, f32) {
        (self.state.position.x, self.state.position.y)
    }

    /// The ship's velocity `(vx, vy)` (px/s).
    #[getter]
    fn velocity(&self) -> (f32, f32) {
        (self.state.velocity.x, self.state.velocity.y)
    }

    /// The ship's heading (rad, from +x toward +y).
    #[getter]
    fn heading(&self) -> f32 {
        self.state.orientation
    }

    /// The ship's top speed under full thrust (px/s).
    #[getter]
    fn top_speed(&self) -> f32 {
        Ship::default().top_speed()
    }

    /// The waypoints' centres as `(x, y)` tuples (px).
    #[getter]
    fn waypoints(&self) -> Vec<(f32, f32)> {
        self.map.waypoints().iter().map(|p| (p.x, p.y)).collect()
    }

    /// The action (an index into `PTSP_ACTIONS`) whose one-step outcome is quickest to turn into
    /// the velocity `desired` `(vx, vy)` (px/s): the choice the shipped controllers make.
    pub(crate) fn best_action(&self, desired: &Bound<'_, PyAny>) -> PyResult<usize> {
        let d = vector("desired", desired, 2)?;
        let a = best_action(&self.map, &Ship::default(), &self.state, Vec2::new(d[0], d[1]));
        Ok(action_index(a))
    }

    fn __repr__(&self) -> String {
        let (p, v) = (self.state.position, self.state.velocity);
        format!(
            "PtspObservation(step {}, position ({}, {}), velocity ({}, {}), heading {})",
            self.step, p.x, p.y, v.x, v.y, self.state.orientation
        )
    }
}

pub(crate) fn action_index(a: Action) -> usize {
    Action::ALL.iter().position(|&b| b == a).unwrap_or(0)
}

/// A Python object with `act(observation) -> action` as a race's controller. The first error
/// (an exception in `act`, a bad action) is kept and the race coasts to its end without calling
/// Python again; `race` then raises it.
struct PyController<'py> {
    object: Bound<'py, PyAny>,
    map: Arc<Map>,
    error: Option<PyErr>,
}

impl PyController<'_> {
    fn decide(&self, race: &RaceView<'_>) -> PyResult<Action> {
        let py = self.object.py();
        let obs = PtspObservation {
            map: Arc::clone(&self.map),
            state: race.state,
            step: race.step,
            visited: race.visited.to_vec(),
        };
        let out = self.object.call_method1("act", (Py::new(py, obs)?,))?;
        parse_action(&out).map_err(|e| {
            PyValueError::new_err(format!("step {}: act returned {}", race.step + 1, e.value(py)))
        })
    }
}

impl Controller for PyController<'_> {
    fn setup(&mut self, _: &Map, _: &Ship) {
        let object = &self.object;
        let called = (|| -> PyResult<()> {
            if object.hasattr("setup")? {
                let map = Py::new(object.py(), PtspMap::shared(Arc::clone(&self.map)))?;
                object.call_method1("setup", (map,))?;
            }
            Ok(())
        })();
        if let Err(e) = called {
            self.error = Some(e);
        }
    }

    fn act(&mut self, race: &RaceView<'_>) -> Action {
        if self.error.is_some() {
            return Action::COAST;
        }
        match self.decide(race) {
            Ok(a) => a,
            Err(e) => {
                self.error = Some(e);
                Action::COAST
            }
        }
    }
}

/// An action: an index into `PTSP_ACTIONS` (0 to 5) or its name.
pub(crate) fn parse_action(obj: &Bound<'_, PyAny>) -> PyResult<Action> {
    let allowed = "an index from 0 to 5 or a name in PTSP_ACTIONS";
    if let Ok(name) = obj.cast::<PyString>() {
        let name = name.to_cow()?;
        return Action::ALL
            .iter()
            .find(|a| a.name() == name)
            .copied()
            .ok_or_else(|| crate::bad("action", format!("{name:?}"), allowed));
    }
    let i = crate::whole("action", obj, 0, 5)?;
    Ok(Action::ALL[i as usize])
}

/// The shipped controllers by name.
fn builtin_racer(name: &str) -> Option<Racer> {
    match name {
        "reference" => Some(Racer::Reference),
        "nearest-first" => Some(Racer::NearestFirst),
        "naive" => Some(Racer::Naive),
        _ => None,
    }
}

/// The score and trajectory of a race as a dict.
fn result<'py>(
    py: Python<'py>,
    log: &RaceLog,
    files: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = log.score;
    let d = PyDict::new(py);
    d.set_item("outcome", s.outcome.name())?;
    d.set_item("steps", s.steps)?;
    d.set_item("time", f64::from(s.steps) * f64::from(STEP))?;
    d.set_item("visited", s.visited)?;
    d.set_item("waypoints", s.waypoints)?;
    d.set_item("collisions", s.collisions)?;
    d.set_item("visit_steps", log.visited.clone())?;
    let states = std::iter::once(&log.start).chain(log.steps.iter().map(|s| &s.state));
    let rows: Vec<f32> = states
        .flat_map(|k| [k.position.x, k.position.y, k.velocity.x, k.velocity.y, k.orientation])
        .collect();
    let n = rows.len() / 5;
    d.set_item("trajectory", array(py, rows, &[n, 5])?)?;
    let actions: Vec<u8> = log.steps.iter().map(|s| action_index(s.action) as u8).collect();
    let k = actions.len();
    d.set_item("actions", array(py, actions, &[k])?)?;
    d.set_item("files", files)?;
    if let Some(t) = &log.timing {
        d.set_item("setup_seconds", t.setup.as_secs_f64())?;
        d.set_item("slowest_step_seconds", t.slowest_step.as_secs_f64())?;
        d.set_item("over_budget", t.over_budget.clone())?;
    }
    Ok(d)
}

/// Races `controller` on `map` exactly as `steerkit ptsp` does (default ship and limits) and
/// returns the score; with `out`, also writes `score.json`, `trajectory.csv`, `replay.html`
/// and `snapshot.svg` there. `controller`: an object with `act(observation) -> action` (and
/// optionally `setup(map)`, called once before the first step) or a shipped controller's name
/// (`reference`, `nearest-first`, `naive`). `time_rules`: the competition's real-time budgets
/// (40 ms a step, 1 s for `setup`), over-budget steps listed in the result; `strict` also
/// replaces a late action by coasting.
#[pyfunction]
#[pyo3(signature = (map, controller, *, out = None, name = None, time_rules = false, strict = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
fn race<'py>(
    py: Python<'py>,
    map: &Bound<'py, PyAny>,
    controller: &Bound<'py, PyAny>,
    out: Option<PathBuf>,
    name: Option<String>,
    time_rules: bool,
    strict: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if strict && !time_rules {
        return Err(crate::bad("strict", "True", "only with time_rules=True"));
    }
    let limits = RaceLimits {
        time: time_rules.then_some(TimeRules { strict, ..TimeRules::default() }),
        ..RaceLimits::default()
    };
    let map = any_map(map)?;
    let map_error = |e: steerkit_ptsp::MapError| MapError::new_err(e.to_string());
    let (log, racer) = if let Ok(s) = controller.cast::<PyString>() {
        let s = s.to_cow()?;
        let racer = builtin_racer(&s).ok_or_else(|| {
            crate::bad(
                "controller",
                format!("{s:?}"),
                "an object with act() or reference, nearest-first, naive",
            )
        })?;
        let log = py.detach(|| cli::race_on(&map, racer, limits));
        (log.map_err(map_error)?, racer.name())
    } else {
        if !controller.hasattr("act")? {
            return Err(PyTypeError::new_err("controller: expected an object with an act(observation) method or a shipped controller's name"));
        }
        let label = match name {
            Some(n) => n,
            None => controller.get_type().name()?.to_string(),
        };
        if label.is_empty() || label.len() > 64 || label.chars().any(char::is_control) {
            return Err(crate::bad("name", format!("{label:?}"), "1 to 64 printable characters"));
        }
        let mut c = PyController { object: controller.clone(), map: Arc::clone(&map), error: None };
        // the same reachability check as `steerkit ptsp`: a race that cannot finish is refused
        steerkit_ptsp::Planner::new(&map, &Ship::default()).map_err(map_error)?;
        let log = steerkit_ptsp::race(&map, &Ship::default(), &mut c, limits);
        if let Some(e) = c.error {
            return Err(e);
        }
        (log, label)
    };
    let files = match out {
        Some(dir) => {
            py.detach(|| cli::write(&dir, &map, &log, &racer)).map_err(PyOSError::new_err)?
        }
        None => Vec::new(),
    };
    result(py, &log, files)
}

/// A `PtspMap`, a shipped map's name or a map file.
pub(crate) fn any_map(map: &Bound<'_, PyAny>) -> PyResult<Arc<Map>> {
    match map.cast::<PtspMap>() {
        Ok(m) => Ok(m.get().arc()),
        Err(_) => Ok(PtspMap::new(map.extract().map_err(|_| {
            PyTypeError::new_err("map: expected a PtspMap, a shipped map name or a map file")
        })?)?
        .map),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PtspMap>()?;
    m.add_class::<PtspObservation>()?;
    m.add_class::<crate::ptsp_env::PtspEnv>()?;
    m.add_function(wrap_pyfunction!(race, m)?)?;
    let names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
    m.add("PTSP_ACTIONS", names)?;
    let maps: Vec<&str> = steerkit_ptsp::map::BUILTIN.iter().map(|(n, _)| *n).collect();
    m.add("PTSP_MAPS", maps)?;
    Ok(())
}
