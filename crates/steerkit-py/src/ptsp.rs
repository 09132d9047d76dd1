//! The course project from Python: `PtspMap`, `PtspObservation` and `race`, which runs a
//! controller written in Python through `steerkit ptsp`'s own race and scoring.

use crate::{array, vector, MapError};
use numpy::PyArrayDyn;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::Arc;
use steerkit::kinematic::Kinematic;
use steerkit::Vec2;
use steerkit_cli::ptsp::{self as cli, Racer};
use steerkit_ptsp::{
    best_action, Action, Controller, Map, RaceLimits, RaceLog, RaceView, Ship, STEP,
};

/// A PTSP map: walls, the start and the waypoints, in pixels (`y` up from the bottom row).
#[pyclass(module = "steerkit", frozen)]
pub struct PtspMap {
    map: Arc<Map>,
}

#[pymethods]
impl PtspMap {
    /// A shipped map (`open`, `rooms`, `maze`) or a map file; `MapError` with the one-line
    /// message if not.
    #[new]
    fn new(source: PathBuf) -> PyResult<Self> {
        let arg = source.to_str().ok_or_else(|| {
            MapError::new_err(format!("source: {} is not valid UTF-8", source.display()))
        })?;
        cli::resolve_map(arg).map(|m| Self { map: Arc::new(m) }).map_err(MapError::new_err)
    }

    /// A map from the text of a map file; `name` is shown in errors and replays.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<text>"))]
    fn from_text(text: &str, name: &str) -> PyResult<Self> {
        Map::parse(text, name)
            .map(|m| Self { map: Arc::new(m) })
            .map_err(|e| MapError::new_err(e.to_string()))
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
    map: Arc<Map>,
    state: Kinematic,
    /// Steps taken so far.
    #[pyo3(get)]
    step: u32,
    /// For each waypoint, the step it was visited at, or None.
    #[pyo3(get)]
    visited: Vec<Option<u32>>,
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
    fn best_action(&self, desired: &Bound<'_, PyAny>) -> PyResult<usize> {
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

fn action_index(a: Action) -> usize {
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
fn parse_action(obj: &Bound<'_, PyAny>) -> PyResult<Action> {
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
    Ok(d)
}

/// Races `controller` on `map` exactly as `steerkit ptsp` does (default ship and limits) and
/// returns the score; with `out`, also writes `score.json`, `trajectory.csv`, `replay.html`
/// and `snapshot.svg` there. `controller`: an object with `act(observation) -> action` or a
/// shipped controller's name (`reference`, `nearest-first`, `naive`).
#[pyfunction]
#[pyo3(signature = (map, controller, *, out = None, name = None))]
fn race<'py>(
    py: Python<'py>,
    map: &Bound<'py, PyAny>,
    controller: &Bound<'py, PyAny>,
    out: Option<PathBuf>,
    name: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let map = match map.cast::<PtspMap>() {
        Ok(m) => Arc::clone(&m.get().map),
        Err(_) => {
            PtspMap::new(map.extract().map_err(|_| {
                PyTypeError::new_err("map: expected a PtspMap, a shipped map name or a map file")
            })?)?
            .map
        }
    };
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
        let log = py.detach(|| cli::race_on(&map, racer, RaceLimits::default()));
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
        let log = steerkit_ptsp::race(&map, &Ship::default(), &mut c, RaceLimits::default());
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PtspMap>()?;
    m.add_class::<PtspObservation>()?;
    m.add_function(wrap_pyfunction!(race, m)?)?;
    let names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
    m.add("PTSP_ACTIONS", names)?;
    let maps: Vec<&str> = steerkit_ptsp::map::BUILTIN.iter().map(|(n, _)| *n).collect();
    m.add("PTSP_MAPS", maps)?;
    Ok(())
}
