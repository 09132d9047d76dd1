//! The built-in scenarios: the files of `scenarios/`, compiled into the binary.

use steerkit_scenario::{Scenario, ScenarioError};

/// Every built-in scenario: its name (the file's stem) and its TOML text. `showcase` first,
/// then the gallery in the order the README lists it; the format reference `example` last.
pub const BUILTIN: &[(&str, &str)] = &[
    ("showcase", include_str!("../../../scenarios/showcase.toml")),
    ("arrive", include_str!("../../../scenarios/arrive.toml")),
    ("flocking", include_str!("../../../scenarios/flocking.toml")),
    ("crossing", include_str!("../../../scenarios/crossing.toml")),
    ("example", include_str!("../../../scenarios/example.toml")),
];

/// The TOML text of a built-in scenario.
#[must_use]
pub fn source(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Loads a built-in scenario (`None` when there is none of that name).
///
/// # Errors
/// A built-in that does not load (a bug caught by the gallery tests).
pub fn load(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    source(name).map(|s| Scenario::from_toml_str(s, &format!("scenarios/{name}.toml")))
}

/// The names of the built-in scenarios.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

/// The first sentence of a description, for one-line listings (at most `max` characters).
#[must_use]
pub fn summary(description: &str, max: usize) -> String {
    let flat: String = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match flat.find(". ") {
        Some(i) => &flat[..=i],
        None => flat.as_str(),
    };
    if first.chars().count() <= max {
        first.to_owned()
    } else {
        let cut: String = first.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}
