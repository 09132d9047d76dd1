//! The small value checkers every part of the check shares: finite, non-negative and positive
//! numbers, points, names and colours, choices from a list, and fields applicable to a kind.

use super::{Problem, Result, MAX_COORDINATE, MAX_MAGNITUDE, MAX_NAME, MIN_POSITIVE};
use crate::dim::Dim;
use crate::spec::{LimitsSpec, Xy};
use steerkit::kinematic::Limits;
use steerkit::{ParamError, Vec2};

pub(super) fn problem(field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem { field: field.into(), message: message.into() }
}

pub(super) fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

pub(super) fn finite(path: &str, v: f32) -> Result<f32> {
    if !v.is_finite() {
        Err(problem(path, format!("must be a finite number, got {v}")))
    } else if v.abs() > MAX_MAGNITUDE {
        Err(problem(path, format!("must be within ±{MAX_MAGNITUDE}, got {v}")))
    } else {
        Ok(v)
    }
}

pub(super) fn non_negative(path: &str, v: f32) -> Result<f32> {
    finite(path, v)?;
    if v < 0.0 {
        return Err(problem(path, format!("must not be negative, got {v}")));
    }
    Ok(v)
}

pub(super) fn positive(path: &str, v: f32) -> Result<f32> {
    finite(path, v)?;
    if v <= 0.0 {
        return Err(problem(path, format!("must be greater than zero, got {v}")));
    }
    if v < MIN_POSITIVE {
        return Err(problem(path, format!("must be at least {MIN_POSITIVE}, got {v}")));
    }
    Ok(v)
}

/// A point or vector of the scenario's space: exactly its number of components, finite,
/// within ±[`MAX_COORDINATE`].
pub(super) fn point<V: Dim>(path: &str, v: Xy) -> Result<V> {
    match (v.len(), V::DIMS) {
        (3, 2) => {
            return Err(problem(
                path,
                "a 3D point [x, y, z] in a 2D scenario: put `dimensions = 3` at the top of the \
                 file for a 3D world",
            ))
        }
        (2, 3) => {
            return Err(problem(
                path,
                "a 2D point [x, y] in a 3D scenario (`dimensions = 3`): write [x, y, z], y up",
            ))
        }
        (n, d) if n != d => return Err(problem(path, format!("{d} components expected, got {n}"))),
        _ => {}
    }
    for (i, c) in v.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !c.is_finite() {
            finite(&at, *c)?;
        }
        if c.abs() > MAX_COORDINATE {
            return Err(problem(at, format!("must be within ±{MAX_COORDINATE} m, got {c}")));
        }
    }
    Ok(V::from_components(&v))
}

/// A point of the plane (walls, 2D obstacles, formations, the pipeline's grid).
pub(super) fn xy(path: &str, v: Xy) -> Result<Vec2> {
    point::<Vec2>(path, v)
}

/// A display colour: `#rrggbb`.
pub(super) fn colour(path: &str, c: &str) -> Result<()> {
    let ok = c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|c| c.is_ascii_hexdigit());
    if ok {
        Ok(())
    } else {
        Err(problem(path, format!("`{c}` is not a colour; write \"#rrggbb\"")))
    }
}

/// A name: non-empty after trimming, at most [`MAX_NAME`] characters, no control characters.
pub(super) fn name(path: &str, s: &str) -> Result<()> {
    if s.trim().is_empty() {
        return Err(problem(path, "must not be empty"));
    }
    if s.chars().count() > MAX_NAME {
        return Err(problem(path, format!("at most {MAX_NAME} characters")));
    }
    if s.chars().any(char::is_control) {
        return Err(problem(path, "must not contain control characters (newlines, tabs)"));
    }
    Ok(())
}

/// A library constructor's error, pointed at the field it names when the node has that field
/// (the library's names are the format's, except where mapped here), else at the node.
pub(super) fn lib(path: &str, fields: &[&str], e: &ParamError) -> Problem {
    let name = match e {
        ParamError::NotFinite { name, .. }
        | ParamError::Negative { name, .. }
        | ParamError::NotPositive { name, .. }
        | ParamError::Contradictory { name, .. }
        | ParamError::OutOfRange { name, .. }
        | ParamError::Invalid { name, .. }
        | ParamError::Count { name, .. } => Some(*name),
        _ => None,
    };
    let name = match name {
        Some("decay_coefficient") => Some("decay"),
        Some("path_offset") => Some("offset"),
        Some("turnaround_coefficient") => Some("turnaround"),
        Some("distance_from_boundary") => Some("distance"),
        Some("feeler_length") => Some("length"),
        other => other,
    };
    match name {
        Some(n) if fields.contains(&n) => problem(join(path, n), e.to_string()),
        _ => problem(path, e.to_string()),
    }
}

pub(super) fn one_of<T: Copy>(path: &str, value: &str, choices: &[(&str, T)]) -> Result<T> {
    choices.iter().find(|(n, _)| *n == value).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
        problem(path, format!("unknown value `{value}`; expected one of {}", names.join(", ")))
    })
}

/// A field of a flat struct as present in the file: its name and its numbers (for the
/// finiteness check).
pub(super) struct Present {
    pub(super) name: &'static str,
    pub(super) numbers: Vec<f32>,
}

macro_rules! present {
    ($s:expr; nums: $($n:ident),*; xys: $($x:ident),*; others: $($o:ident = $on:literal),*) => {{
        let s = $s;
        let mut v: Vec<Present> = Vec::new();
        $( if let Some(n) = s.$n { v.push(Present { name: stringify!($n), numbers: vec![n] }); } )*
        $( if let Some(x) = s.$x { v.push(Present { name: stringify!($x), numbers: x.to_vec() }); } )*
        $( if s.$o.is_some() { v.push(Present { name: $on, numbers: Vec::new() }); } )*
        v
    }};
}
pub(super) use present;

/// Checks that every present field applies (`allowed`) and every number is finite.
pub(super) fn applicable(
    path: &str,
    what: &str,
    kind: &str,
    present: &[Present],
    allowed: &[&str],
) -> Result<()> {
    for p in present {
        if !allowed.contains(&p.name) {
            let list = if allowed.is_empty() {
                "it takes no parameters".to_owned()
            } else {
                format!("its fields are {}", allowed.join(", "))
            };
            return Err(problem(
                join(path, p.name),
                format!("field `{}` does not apply to {what} `{kind}` ({list})", p.name),
            ));
        }
        for (i, n) in p.numbers.iter().enumerate() {
            let field = if p.numbers.len() > 1 {
                format!("{}[{i}]", join(path, p.name))
            } else {
                join(path, p.name)
            };
            finite(&field, *n)?;
        }
    }
    Ok(())
}

pub(super) fn required<T: Copy>(
    path: &str,
    what: &str,
    kind: &str,
    name: &str,
    v: Option<T>,
) -> Result<T> {
    v.ok_or_else(|| problem(join(path, name), format!("{what} `{kind}` needs `{name}`")))
}

pub(super) fn limits(path: &str, l: &LimitsSpec) -> Result<Limits> {
    Limits::new(l.max_speed, l.max_acceleration, l.max_rotation, l.max_angular_acceleration)
        .map_err(|e| {
            lib(
                path,
                &["max_speed", "max_acceleration", "max_rotation", "max_angular_acceleration"],
                &e,
            )
        })
}
