//! `[[formations]]`: a group's agents in a scalable pattern behind an anchor.

use super::node;
use super::values::{finite, join, lib, limits, one_of, problem, xy};
use super::{Refs, Result};
use crate::dim::Dim;
use crate::model::FormationPlan;
use crate::spec::{FormationSpec, ScenarioSpec};
use steerkit::formation::{ScalablePattern, Shape};
use steerkit::Vec2;

/// `[[formations]]`: the group's agents are the members; the anchor behaviour takes no
/// agent-relative leaves that need neighbours (it sees none).
pub(super) fn formation(path: &str, fs: &FormationSpec, refs: &Refs<'_>) -> Result<FormationPlan> {
    let f = |name: &str| join(path, name);
    let Some(&group) = refs.groups.get(fs.group.as_str()) else {
        let mut names: Vec<&str> = refs.groups.keys().copied().collect();
        names.sort_unstable();
        return Err(problem(
            f("group"),
            format!("no group named `{}` (groups: {})", fs.group, names.join(", ")),
        ));
    };
    // `None`: a box, whose row length comes from `columns`
    let shape = one_of(
        &f("shape"),
        &fs.shape,
        &[
            ("line", Some(Shape::Line)),
            ("v", Some(Shape::V)),
            ("wedge", Some(Shape::Wedge)),
            ("column", Some(Shape::Column)),
            ("circle", Some(Shape::DefensiveCircle)),
            ("box", None),
        ],
    )?;
    let shape = match (shape, fs.columns) {
        (None, Some(columns)) => Shape::Box { columns: columns as usize },
        (None, None) => {
            return Err(problem(f("columns"), "shape `box` needs `columns` (slots per row)"))
        }
        (Some(_), Some(_)) => {
            return Err(problem(f("columns"), "field `columns` applies only to shape `box`"))
        }
        (Some(shape), None) => shape,
    };
    let pattern = ScalablePattern::new(shape, finite(&f("spacing"), fs.spacing)?)
        .map_err(|e| lib(path, &["spacing", "columns"], &e))?;
    let anchor_limits = limits(&f("anchor_limits"), &fs.anchor_limits)?;
    let anchor = node(&f("anchor"), &fs.anchor, None, refs, 1)?.map(
        &|a| *a,
        &|p| *p,
        &<Vec2 as Dim>::from_file,
    );
    if anchor.uses_goal() {
        return Err(problem(
            f("anchor"),
            "a formation's anchor has no goal: give its target as `target` or `agent`, not \
             `use_goal = true`",
        ));
    }
    Ok(FormationPlan {
        group,
        pattern,
        anchor_position: xy(&f("anchor_position"), fs.anchor_position)?,
        anchor_orientation: finite(&f("anchor_orientation"), fs.anchor_orientation.unwrap_or(0.0))?,
        anchor_limits,
        anchor,
    })
}

/// Every `[[formations]]`, each of a group in no other formation (of `groups` groups).
pub(super) fn formations(
    spec: &ScenarioSpec,
    refs: &Refs<'_>,
    groups: usize,
) -> Result<Vec<FormationPlan>> {
    let mut formations = Vec::with_capacity(spec.formations.len());
    let mut in_formation = vec![false; groups];
    for (i, fs) in spec.formations.iter().enumerate() {
        let plan = formation(&format!("formations[{i}]"), fs, refs)?;
        if std::mem::replace(&mut in_formation[plan.group], true) {
            return Err(problem(
                format!("formations[{i}].group"),
                format!("group `{}` is already in a formation", fs.group),
            ));
        }
        formations.push(plan);
    }
    Ok(formations)
}
