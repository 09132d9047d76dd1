//! References between parts of a file: agents by `"group:index"`, paths by name.

use super::values::problem;
use super::Result;
use crate::model::AgentRef;
use std::collections::HashMap;

/// What a file's references resolve against: the group names and sizes, the path names.
pub(crate) struct Refs<'a> {
    pub(super) groups: &'a HashMap<&'a str, usize>,
    pub(super) sizes: &'a [usize],
    pub(super) paths: &'a [&'a str],
    /// Whether each path loops (a looping route is never finished).
    pub(super) looping: &'a [bool],
    /// The scenario's dimensions (2 or 3).
    pub dims: usize,
}

impl Refs<'_> {
    pub(super) fn agent(&self, path: &str, s: &str) -> Result<AgentRef> {
        let Some((g, i)) = s.rsplit_once(':') else {
            return Err(problem(
                path,
                format!("`{s}` is not an agent reference; write \"group_name:index\""),
            ));
        };
        let Some(&group) = self.groups.get(g) else {
            let mut names: Vec<&str> = self.groups.keys().copied().collect();
            names.sort_unstable();
            return Err(problem(
                path,
                format!("no group named `{g}` (groups: {})", names.join(", ")),
            ));
        };
        let index: usize = i.parse().map_err(|_| {
            problem(path, format!("`{i}` in `{s}` is not an agent index (0, 1, 2, ...)"))
        })?;
        if index >= self.sizes[group] {
            return Err(problem(
                path,
                format!(
                    "group `{g}` has {} agents, so there is no agent {index}",
                    self.sizes[group]
                ),
            ));
        }
        Ok(AgentRef { group, index })
    }

    /// True when path `index` loops.
    pub(crate) fn looping(&self, index: usize) -> bool {
        self.looping.get(index).copied().unwrap_or(false)
    }

    pub(super) fn path(&self, path: &str, name: &str) -> Result<usize> {
        self.paths.iter().position(|p| *p == name).ok_or_else(|| {
            let list = if self.paths.is_empty() {
                "there are no paths".to_owned()
            } else {
                format!("paths: {}", self.paths.join(", "))
            };
            problem(path, format!("no path named `{name}` ({list})"))
        })
    }
}
