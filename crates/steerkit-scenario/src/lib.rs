//! steerkit scenario files: a whole run described in TOML (or JSON, with the same structure),
//! checked field by field, and built into a crowd.
//!
//! ```
//! use steerkit_scenario::Scenario;
//! let src = r#"
//! name = "arrive"
//! dt = 0.02
//! steps = 200
//! [world]
//! min = [-10, -10]
//! max = [10, 10]
//! neighbour_radius = 2.0
//! [[groups]]
//! name = "walkers"
//! count = 5
//! spawn = { shape = "circle", center = [-5, 0], radius = 2 }
//! radius = 0.3
//! limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }
//! behaviour = { kind = "arrive", target = [5, 0], target_radius = 0.2, slow_radius = 2 }
//! "#;
//! let scenario = Scenario::from_toml_str(src, "arrive.toml")?;
//! assert_eq!(scenario.agent_count(), 5);
//! let bad = Scenario::from_toml_str(&src.replace("slow_radius = 2", "slow_radius = 0.1"), "bad.toml");
//! assert_eq!(
//!     bad.unwrap_err().to_string(),
//!     "bad.toml:15:84: groups[0].behaviour.slow_radius: `slow_radius` (0.1) must be at least `target_radius` (0.2)"
//! );
//! # Ok::<(), steerkit_scenario::ScenarioError>(())
//! ```
//!
//! The format is documented in `docs/scenario-format.md`. It is a user-facing description,
//! decoupled from the library's Rust types: every value is built with the library's validating
//! constructors, so a file cannot produce a behaviour the library would reject. Files are 2D
//! (3D scenarios are future work). Nothing in a file can make the program read or write another
//! file: there are no includes and no output paths, and [`Scenario::output_name`] is sanitised
//! to `[a-z0-9_-]`.
//!
//! [`recording`] is the replay format of a run (its JSON schema, and the recorder that fills
//! it), here so that `steerkit run`'s replays and the live playground's frames share it;
//! [`Dim::recording_world`] gives a built world's part of it.
#![warn(missing_docs)]

pub mod ballistics;
mod check;
mod dim;
mod error;
mod model;
pub mod platform;
pub mod recording;
pub mod simulation;
mod spec;
mod world;

pub use check::{
    sanitise_name, MAX_AGENTS, MAX_COORDINATE, MAX_DEPTH, MAX_DT, MAX_MAGNITUDE, MAX_NAME,
    MAX_PILE, MAX_SPAWN_DEPTH, MAX_STEPS, MAX_TURRETS, MIN_POSITIVE,
};
pub use dim::Dim;
pub use error::{Location, ScenarioError};
pub use model::{
    AgentRef, Aim, Behaviour, Bounds, Drag, FormationPlan, Geometry, GroupPlan, JumpPlan, Metric,
    MetricsPlan, NamedPath, Placement, Plan, SideView, Solver, TargetRef, TurretPlan, VehiclePlan,
};
pub use simulation::{Outputs, Simulation, SimulationError};
pub use world::{RunSettings, World, WorldGroup};

use check::{Checked, Problem, Space};
use spec::ScenarioSpec;
use std::path::Path;

/// Largest scenario file read (bytes): 4 MiB.
pub const MAX_FILE_SIZE: u64 = 4 * 1024 * 1024;

/// The behaviour kinds a scenario can use, in the order of the format reference.
pub fn behaviour_kinds() -> impl Iterator<Item = &'static str> {
    check::KINDS.iter().map(|k| k.kind.name())
}

/// The library's behaviour kinds a file cannot name, each with the reason a file that tries is
/// given (not mapped yet, or code of a program's own).
pub fn kinds_not_in_files() -> impl Iterator<Item = (&'static str, &'static str)> {
    check::NOT_IN_FILES.iter().map(|(k, why)| (k.name(), *why))
}

/// The fields each behaviour kind takes (besides `kind`, and `weight` inside `blend` and
/// `running_sum`).
#[must_use]
pub fn behaviour_fields(kind: &str) -> Option<&'static [&'static str]> {
    check::KINDS.iter().find(|k| k.kind.name() == kind).map(|k| k.fields)
}

/// File syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML (`.toml`).
    Toml,
    /// JSON (`.json`), the same structure.
    Json,
}

/// A checked scenario: every field valid, every reference resolved, every agent placed.
#[derive(Clone, Debug)]
pub struct Scenario {
    origin: String,
    /// TOML source, kept to locate errors found when building.
    source: Option<std::sync::Arc<str>>,
    spec: ScenarioSpec,
    checked: std::sync::Arc<Checked>,
}

impl Scenario {
    /// Parses and checks TOML text. `origin` names the source in error messages (a file name).
    ///
    /// # Errors
    /// [`ScenarioError::TooLarge`] above [`MAX_FILE_SIZE`]; [`ScenarioError::Invalid`] with the
    /// line, column and field path of the first problem.
    pub fn from_toml_str(source: &str, origin: &str) -> Result<Self, ScenarioError> {
        size_ok(source.len() as u64, origin)?;
        let spec = parse_toml(source, origin)?;
        let mut s = Self::checked(spec, origin, |p| locate_toml(source, origin, p))?;
        s.source = Some(source.into());
        Ok(s)
    }

    /// As [`from_toml_str`](Self::from_toml_str), refusing more than `max_agents` agents from
    /// the file's counts and lists before any agent is placed (so a count of a million costs
    /// nothing to refuse).
    ///
    /// # Errors
    /// As [`from_toml_str`](Self::from_toml_str); more than `max_agents` agents, located at the
    /// group's `count` or `agents`.
    pub fn from_toml_str_with_max_agents(
        source: &str,
        origin: &str,
        max_agents: usize,
    ) -> Result<Self, ScenarioError> {
        size_ok(source.len() as u64, origin)?;
        let spec = parse_toml(source, origin)?;
        check::agent_cap(&spec, max_agents).map_err(|p| locate_toml(source, origin, p))?;
        let mut s = Self::checked(spec, origin, |p| locate_toml(source, origin, p))?;
        s.source = Some(source.into());
        Ok(s)
    }

    /// Parses and checks JSON text with the same structure as the TOML format.
    ///
    /// # Errors
    /// As [`from_toml_str`](Self::from_toml_str); problems found after parsing carry the field
    /// path but no line and column.
    pub fn from_json_str(source: &str, origin: &str) -> Result<Self, ScenarioError> {
        size_ok(source.len() as u64, origin)?;
        let spec = parse_json(source, origin)?;
        Self::checked(spec, origin, |p| invalid(origin, None, p.field, p.message))
    }

    /// Parses and checks text in the given format.
    ///
    /// # Errors
    /// As [`from_toml_str`](Self::from_toml_str).
    pub fn from_str_as(source: &str, format: Format, origin: &str) -> Result<Self, ScenarioError> {
        match format {
            Format::Toml => Self::from_toml_str(source, origin),
            Format::Json => Self::from_json_str(source, origin),
        }
    }

    /// Reads a scenario file: `.toml` or `.json` (by extension), at most [`MAX_FILE_SIZE`]
    /// bytes (never reading more than that), UTF-8.
    ///
    /// # Errors
    /// [`ScenarioError::UnknownFormat`], [`ScenarioError::Io`], [`ScenarioError::TooLarge`],
    /// [`ScenarioError::NotUtf8`], or any error of [`from_toml_str`](Self::from_toml_str).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let format = format_of(path)
            .ok_or_else(|| ScenarioError::UnknownFormat { origin: origin.clone() })?;
        let bytes = read_limited(path, &origin)?;
        let text = text_of(&bytes, &origin)?;
        Self::from_str_as(text, format, &origin)
    }

    fn checked(
        spec: ScenarioSpec,
        origin: &str,
        locate: impl Fn(Problem) -> ScenarioError,
    ) -> Result<Self, ScenarioError> {
        let checked = check::check(&spec).map_err(locate)?;
        Ok(Scenario {
            origin: origin.to_owned(),
            source: None,
            spec,
            checked: std::sync::Arc::new(checked),
        })
    }

    /// An error at `field`, located in the TOML source when there is one.
    fn error(&self, field: String, message: String) -> ScenarioError {
        let location = self.source.as_deref().and_then(|s| error::locate(s, &field));
        invalid(&self.origin, location, field, message)
    }

    /// The same scenario with another seed (agents in spawn regions are placed again).
    ///
    /// # Errors
    /// None in practice (the file was already checked); kept for symmetry with loading.
    pub fn with_seed(&self, seed: u64) -> Result<Self, ScenarioError> {
        let mut spec = self.spec.clone();
        spec.seed = seed;
        let origin = self.origin.clone();
        let mut s = Self::checked(spec, &origin, |p| self.error(p.field, p.message))?;
        s.source.clone_from(&self.source);
        Ok(s)
    }

    /// The same scenario run for `steps` steps.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] (`steps`) above [`MAX_STEPS`].
    pub fn with_steps(&self, steps: u64) -> Result<Self, ScenarioError> {
        if steps > MAX_STEPS {
            return Err(self.error(
                "steps".into(),
                format!("{steps} steps is more than the limit of {MAX_STEPS}"),
            ));
        }
        let mut checked = (*self.checked).clone();
        checked.steps = steps;
        Ok(Scenario { checked: std::sync::Arc::new(checked), ..self.clone() })
    }

    /// The same scenario collecting `collect` instead of its own metrics (the other settings
    /// of its `[metrics]` table kept). What is collected never changes the run: only what is
    /// measured and reported.
    #[must_use]
    pub fn with_metrics(&self, collect: Vec<Metric>) -> Self {
        let mut checked = (*self.checked).clone();
        checked.metrics.collect = collect;
        Scenario { checked: std::sync::Arc::new(checked), ..self.clone() }
    }

    /// Where the scenario came from (the `origin` given, or the file path).
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }
    /// The `name` field as written.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.checked.name
    }
    /// The name made safe for a directory name: `[a-z0-9_-]`, at most 64 characters.
    #[must_use]
    pub fn output_name(&self) -> String {
        sanitise_name(&self.checked.name)
    }
    /// The `description` field (empty when absent).
    #[must_use]
    pub fn description(&self) -> &str {
        &self.checked.description
    }
    /// The world seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.checked.seed
    }
    /// Time step (s).
    #[must_use]
    pub fn dt(&self) -> f32 {
        self.checked.dt
    }
    /// Number of steps (from `steps`, or `duration / dt` rounded).
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.checked.steps
    }
    /// 2 or 3 (`dimensions` in the file; 2 when absent).
    #[must_use]
    pub fn dimensions(&self) -> usize {
        match self.checked.space {
            Space::Two(_) => 2,
            Space::Three(_) => 3,
        }
    }
    /// The checked world in the scenario's space: `plan::<Vec2>()` for a 2D scenario,
    /// `plan::<Vec3>()` for a 3D one; `None` in the other space.
    #[must_use]
    pub fn plan<V: Dim>(&self) -> Option<&Plan<V>> {
        let any: &dyn std::any::Any = match &self.checked.space {
            Space::Two(p) => p,
            Space::Three(p) => p,
        };
        any.downcast_ref()
    }
    /// Neighbourhood radius (m) of the group behaviours.
    #[must_use]
    pub fn neighbour_radius(&self) -> f32 {
        self.checked.neighbour_radius
    }
    /// Relaxation passes of the non-penetration constraint per step.
    #[must_use]
    pub fn non_penetration_passes(&self) -> u32 {
        self.checked.non_penetration_passes
    }
    /// What to measure.
    #[must_use]
    pub fn metrics(&self) -> &MetricsPlan {
        &self.checked.metrics
    }
    /// Number of agents in all groups.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        match &self.checked.space {
            Space::Two(p) => p.groups.iter().map(|g| g.agents.len()).sum(),
            Space::Three(p) => p.groups.iter().map(|g| g.agents.len()).sum(),
        }
    }
}

/// The format a path's extension names.
#[must_use]
pub fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "toml" => Some(Format::Toml),
        "json" => Some(Format::Json),
        _ => None,
    }
}

fn size_ok(len: u64, origin: &str) -> Result<(), ScenarioError> {
    if len > MAX_FILE_SIZE {
        Err(ScenarioError::TooLarge { origin: origin.to_owned(), limit: MAX_FILE_SIZE })
    } else {
        Ok(())
    }
}

/// Reads a regular file of at most [`MAX_FILE_SIZE`] bytes (the guards of
/// [`steerkit_files::read_limited`]: a FIFO, device or directory is refused before it is
/// opened, a larger file before a byte is read).
fn read_limited(path: &Path, origin: &str) -> Result<Vec<u8>, ScenarioError> {
    steerkit_files::read_limited(path, MAX_FILE_SIZE).map_err(|e| match e {
        steerkit_files::ReadError::Io(source) => {
            ScenarioError::Io { origin: origin.to_owned(), source }
        }
        steerkit_files::ReadError::TooLarge { limit } => {
            ScenarioError::TooLarge { origin: origin.to_owned(), limit }
        }
    })
}

fn text_of<'a>(bytes: &'a [u8], origin: &str) -> Result<&'a str, ScenarioError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
        ScenarioError::NotUtf8 {
            origin: origin.to_owned(),
            location: Location::of_offset(valid, valid.len()),
        }
    })
}

fn invalid(
    origin: &str,
    location: Option<Location>,
    field: String,
    message: String,
) -> ScenarioError {
    ScenarioError::Invalid { origin: origin.to_owned(), location, field, message }
}

fn locate_toml(source: &str, origin: &str, p: Problem) -> ScenarioError {
    let location = error::locate(source, &p.field);
    invalid(origin, location, p.field, p.message)
}

/// The field path as the format writes it: serde_path_to_error writes the root as `.` and a
/// segment it could not name (a key that failed to parse) as `?`; both are dropped.
fn path_string(path: &serde_path_to_error::Path) -> String {
    let mut s = String::new();
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => s.push_str(&format!("[{index}]")),
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(key);
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    s
}

fn parse_toml(source: &str, origin: &str) -> Result<ScenarioSpec, ScenarioError> {
    let de = toml::Deserializer::parse(source).map_err(|e| {
        let location = e.span().map(|s| Location::of_offset(source, s.start));
        invalid(origin, location, String::new(), e.message().trim_end().to_owned())
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = path_string(e.path());
        let inner = e.into_inner();
        let location = inner
            .span()
            .map(|s| Location::of_offset(source, s.start))
            .or_else(|| error::locate(source, &field));
        invalid(origin, location, field, friendly(inner.message().trim_end()))
    })
}

/// serde's "unknown field `x`, expected one of `a`, `b`, ..." with a suggestion when a
/// candidate is within two edits, and without the list when it is long (a behaviour node's
/// fields are shared by every kind, so the whole list would mislead).
fn friendly(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_owned();
    };
    let Some((name, list)) = rest.split_once('`') else {
        return message.to_owned();
    };
    let candidates: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    let best = candidates
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d);
    match best {
        Some((_, c)) => format!("unknown field `{name}` (did you mean `{c}`?)"),
        None if candidates.len() > 16 => format!("unknown field `{name}`"),
        None => message.to_owned(),
    }
}

/// Levenshtein distance (short strings only).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn parse_json(source: &str, origin: &str) -> Result<ScenarioSpec, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(source);
    let json = |field: String, e: serde_json::Error| {
        let location = (e.line() > 0).then(|| Location { line: e.line(), column: e.column() });
        let message = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = message.strip_suffix(&suffix).unwrap_or(&message);
        invalid(origin, location, field, friendly(message))
    };
    let spec: ScenarioSpec = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = path_string(e.path());
        json(field, e.into_inner())
    })?;
    de.end().map_err(|e| json(String::new(), e))?;
    Ok(spec)
}
