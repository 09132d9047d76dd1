//! steerkit in Python: the `steerkit` extension module (PyO3, the stable ABI of Python 3.9 and
//! later).
//!
//! - [`scenario`]: `Scenario` (a file or a built-in, checked) and `Run` (a whole run through
//!   `steerkit run`'s own runner: the same files, bit for bit).
//! - [`sim`]: `Simulation`, the one simulation of `steerkit-scenario`, stepped from Python with
//!   its state as NumPy arrays.
//! - [`ptsp`]: the course project: `PtspMap`, `race` with a controller written in Python.
//!
//! Nothing here panics across the boundary: every failure is a Python exception with a one-line
//! message, and every argument is checked (type, range, finiteness) before it reaches the
//! library. The names and their documentation for Python are in `steerkit.pyi`.

use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{Element, PyArray, PyArrayDyn};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

mod ptsp;
mod ptsp_env;
mod scenario;
mod sim;

create_exception!(
    steerkit,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be loaded, checked or built; the message is the one line `steerkit validate` prints."
);
create_exception!(
    steerkit,
    MapError,
    PyValueError,
    "A PTSP map that cannot be read or raced on (the one-line message of `steerkit ptsp`)."
);
create_exception!(
    steerkit,
    SimulationError,
    pyo3::exceptions::PyRuntimeError,
    "A step the engine refused, or a run that could not be recorded or written."
);

/// A `ValueError` naming the argument, the value and what is allowed.
pub(crate) fn bad(name: &str, value: impl std::fmt::Display, allowed: &str) -> PyErr {
    PyValueError::new_err(format!("{name}: {value} is not allowed ({allowed})"))
}

/// A whole number argument in `min..=max` (a bool is refused: `True` is not a count).
pub(crate) fn whole(name: &str, obj: &Bound<'_, PyAny>, min: u64, max: u64) -> PyResult<u64> {
    let allowed = format!("a whole number from {min} to {max}");
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{name}: expected {allowed}, got a bool")));
    }
    let v: i128 = obj.extract().map_err(|_| {
        let ty = obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("{name}: expected {allowed}, got {ty}"))
    })?;
    match u64::try_from(v) {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(bad(name, v, &allowed)),
    }
}

/// [`whole`] for an optional argument (`None` passes through).
pub(crate) fn whole_opt(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
    min: u64,
    max: u64,
) -> PyResult<Option<u64>> {
    match obj {
        Some(o) if !o.is_none() => whole(name, o, min, max).map(Some),
        _ => Ok(None),
    }
}

/// A finite number that fits an `f32`.
pub(crate) fn finite(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f32> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{name}: expected a finite number, got a bool")));
    }
    let v: f64 = obj.extract().map_err(|_| {
        let ty = obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("{name}: expected a finite number, got {ty}"))
    })?;
    if v.is_finite() && v.abs() <= f64::from(f32::MAX) {
        Ok(v as f32)
    } else {
        Err(bad(name, v, "a finite number"))
    }
}

/// A sequence of exactly `n` finite numbers (a tuple, list or NumPy array).
pub(crate) fn vector(name: &str, obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f32>> {
    let wrong = || PyTypeError::new_err(format!("{name}: expected a sequence of {n} numbers"));
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(wrong());
    }
    let len = obj.len().map_err(|_| wrong())?;
    if len != n {
        return Err(bad(name, format!("a sequence of {len}"), &format!("{n} numbers")));
    }
    (0..n)
        .map(|i| finite(&format!("{name}[{i}]"), &obj.get_item(i).map_err(|_| wrong())?))
        .collect()
}

/// A read-only NumPy array of `shape` that owns `data` (no copy: the vector becomes the array).
pub(crate) fn array<'py, T: Element>(
    py: Python<'py>,
    data: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let a = ArrayD::from_shape_vec(IxDyn(shape), data)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("array: {e}")))?;
    let a = PyArray::from_owned_array(py, a);
    a.getattr("flags")?.setattr("writeable", false)?;
    Ok(a)
}

/// The names of the built-in scenarios, `showcase` first (what `steerkit list` lists).
#[pyfunction]
fn gallery() -> Vec<&'static str> {
    steerkit_cli::gallery::names().collect()
}

/// steerkit: steering behaviours and crowds for game AI. `Scenario` and `Run` (scenario files and
/// built-ins run as `steerkit run` runs them), `Simulation` (stepped, its state as NumPy arrays),
/// `PtspMap` and `race` (PTSP controllers written in Python). Units: m, s, rad; PTSP in pixels.
#[pymodule]
#[pyo3(name = "steerkit")]
fn steerkit_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("MapError", py.get_type::<MapError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(gallery, m)?)?;
    scenario::register(m)?;
    sim::register(m)?;
    ptsp::register(m)?;
    Ok(())
}
