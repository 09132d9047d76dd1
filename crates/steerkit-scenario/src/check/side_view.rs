//! `[side_view]` and `[[platforms]]`: 2D worlds seen from the side, with gravity (Millington
//! §3.6).

use super::values::{finite, join, positive, problem};
use super::Result;
use crate::dim::Dim;
use crate::model::{GroupPlan, SideView};
use crate::spec::ScenarioSpec;

/// The side view of a 2D file, if it has one (`dims` is the scenario's).
pub(crate) fn side_view(spec: &ScenarioSpec, dims: usize) -> Result<Option<SideView>> {
    let Some(sv) = &spec.side_view else {
        if !spec.platforms.is_empty() {
            return Err(problem(
                "platforms",
                "platforms stand in a side view: add `[side_view]` (x right, y up, gravity)",
            ));
        }
        return Ok(None);
    };
    if dims != 2 {
        return Err(problem("side_view", "a side view is a 2D world (x right, y up)"));
    }
    let gravity = positive("side_view.gravity", sv.gravity.unwrap_or(9.81))?;
    let hole_width = match sv.hole_width {
        Some(w) => super::non_negative("side_view.hole_width", w)?,
        None => 0.0,
    };
    if spec.platforms.is_empty() {
        return Err(problem("platforms", "a side view needs at least one `[[platforms]]`"));
    }
    let mut platforms = Vec::with_capacity(spec.platforms.len());
    for (i, p) in spec.platforms.iter().enumerate() {
        let path = format!("platforms[{i}]");
        let (from, to) = (&p.from, &p.to);
        if from.len() != 2 || to.len() != 2 {
            return Err(problem(path, "platform ends are [x, y] points"));
        }
        let (x0, y0) =
            (finite(&join(&path, "from"), from[0])?, finite(&join(&path, "from"), from[1])?);
        let (x1, y1) = (finite(&join(&path, "to"), to[0])?, finite(&join(&path, "to"), to[1])?);
        if y0 != y1 {
            return Err(problem(
                join(&path, "to"),
                format!("a platform is a level top: `to` must be at the height of `from` ({y0}), got {y1}"),
            ));
        }
        if x1 <= x0 {
            return Err(problem(
                join(&path, "to"),
                format!("a platform runs left to right: `to` x ({x1}) must exceed `from` x ({x0})"),
            ));
        }
        platforms.push((x0, x1, y0));
    }
    let mut sorted: Vec<(usize, (f32, f32, f32))> = platforms.iter().copied().enumerate().collect();
    sorted.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
    for w in sorted.windows(2) {
        if w[1].1 .0 < w[0].1 .1 {
            return Err(problem(
                format!("platforms[{}]", w[1].0),
                format!("overlaps platforms[{}] along x: a course is a row of platforms", w[0].0),
            ));
        }
    }
    Ok(Some(SideView {
        gravity,
        hole_width,
        platforms: sorted.into_iter().map(|(_, p)| p).collect(),
    }))
}

/// The index of the platform whose top `(x, y)` stands on (within 1 mm), if any.
pub(crate) fn platform_under(view: &SideView, x: f32, y: f32) -> Option<usize> {
    view.platforms.iter().position(|&(x0, x1, top)| x >= x0 && x <= x1 && (y - top).abs() <= 1e-3)
}

/// Jumpers need a side view, and each starts standing on a platform top.
pub(super) fn jumpers<V: Dim>(
    path: &str,
    side: Option<&SideView>,
    plan: &GroupPlan<V>,
) -> Result<()> {
    match (side, plan.jump) {
        (None, Some(_)) => {
            return Err(problem(
                join(path, "jump"),
                "jumpers run on platforms: add `[side_view]` and `[[platforms]]`",
            ))
        }
        (Some(view), Some(_)) => {
            for (a, p) in plan.agents.iter().enumerate() {
                let (x, y) = (p.position.axis(0), p.position.axis(1));
                if platform_under(view, x, y).is_none() {
                    return Err(problem(
                        format!("{path}.agents[{a}].position"),
                        format!(
                            "a jumper starts standing on a platform top; ({x}, {y}) is on none"
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(())
}
