//! `goal_rule`: goals for a group's agents by rule (antipode, mirror, offset, scatter, rows).

use super::spawn::{Spacing, SPACED_TRIES};
use super::values::{
    applicable, finite, join, one_of, point, positive, present, problem, required, Present,
};
use super::Result;
use crate::dim::Dim;
use crate::model::Placement;
use crate::spec::{GoalRuleSpec, SpawnSpec, Xy};
use steerkit::math::Rng;

/// Goals by rule for the agents that have none of their own:
/// - `antipode`: through `center` (default: the spawn's centre), `goal = 2·center − position`;
/// - `mirror`: across the line (3D: plane) where the `axis` coordinate (`"x"`, `"y"`, `"z"`)
///   equals `at` (default 0);
/// - `offset`: `goal = position + offset`;
/// - `scatter`: a point drawn in the box `min`–`max` (from the scenario seed), with
///   `min_spacing` at least that far (m) from every other goal the rule draws;
/// - `rows` (a `grid` spawn): row `r` heads for `points[r]` (cycling), each agent keeping its
///   place in the row (`goal = points[r] + position − row start`).
pub(super) fn goal_rule<V: Dim>(
    path: &str,
    r: &GoalRuleSpec,
    spawn: Option<&SpawnSpec>,
    agents: &mut [Placement<V>],
    rng: &mut Rng,
) -> Result<()> {
    let present = present!(r; nums: at, min_spacing; xys: center, offset, min, max; others: axis = "axis", points = "points");
    let (what, rule) = ("goal rule", r.rule.as_str());
    match rule {
        "antipode" => {
            applicable(path, what, rule, &present, &["center"])?;
            antipode(path, r, spawn, agents)
        }
        "mirror" => {
            applicable(path, what, rule, &present, &["axis", "at"])?;
            mirror(path, r, agents)
        }
        "offset" => {
            applicable(path, what, rule, &present, &["offset"])?;
            let offset: V = need(path, rule, "offset", r.offset)?;
            for a in free(agents) {
                a.goal = Some(a.position + offset);
            }
            Ok(())
        }
        "scatter" => {
            applicable(path, what, rule, &present, &["min", "max", "min_spacing"])?;
            scatter(path, r, agents, rng)
        }
        "rows" => {
            applicable(path, what, rule, &present, &["points"])?;
            rows(path, r, spawn, agents)
        }
        other => Err(problem(
            join(path, "rule"),
            format!(
                "unknown goal rule `{other}`; expected `antipode`, `mirror`, `offset`, \
                 `scatter` or `rows`"
            ),
        )),
    }
}

/// The required point field `name` of the rule.
fn need<V: Dim>(path: &str, rule: &str, name: &str, v: Option<Xy>) -> Result<V> {
    point(&join(path, name), required(path, "goal rule", rule, name, v)?)
}

/// The agents that have no goal of their own.
fn free<V: Dim>(agents: &mut [Placement<V>]) -> impl Iterator<Item = &mut Placement<V>> {
    agents.iter_mut().filter(|a| a.goal.is_none())
}

/// `antipode`: `goal = 2·center − position`.
fn antipode<V: Dim>(
    path: &str,
    r: &GoalRuleSpec,
    spawn: Option<&SpawnSpec>,
    agents: &mut [Placement<V>],
) -> Result<()> {
    let center: V = match (r.center, spawn.and_then(|s| s.center)) {
        (Some(c), _) => point(&join(path, "center"), c)?,
        (None, Some(c)) => point(&join(path, "center"), c)?,
        (None, None) => {
            return Err(problem(
                join(path, "center"),
                "goal rule `antipode` needs `center` (the spawn has none)",
            ))
        }
    };
    for a in free(agents) {
        a.goal = Some(center * 2.0f32 - a.position);
    }
    Ok(())
}

/// `mirror`: across the line (3D: plane) where the `axis` coordinate equals `at`.
fn mirror<V: Dim>(path: &str, r: &GoalRuleSpec, agents: &mut [Placement<V>]) -> Result<()> {
    let axes: &[(&str, usize)] =
        if V::DIMS == 3 { &[("x", 0), ("y", 1), ("z", 2)] } else { &[("x", 0), ("y", 1)] };
    let axis = one_of(
        &join(path, "axis"),
        required(path, "goal rule", "mirror", "axis", r.axis.as_deref())?,
        axes,
    )?;
    let at = finite(&join(path, "at"), r.at.unwrap_or(0.0))?;
    for a in free(agents) {
        let mut c = [0.0f32; 3];
        for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
            *c = if i == axis { 2.0 * at - a.position[i] } else { a.position[i] };
        }
        a.goal = Some(V::from_components(&c[..V::DIMS]));
    }
    Ok(())
}

/// `scatter`: goals drawn in the box `min`–`max`, at least `min_spacing` apart when given.
fn scatter<V: Dim>(
    path: &str,
    r: &GoalRuleSpec,
    agents: &mut [Placement<V>],
    rng: &mut Rng,
) -> Result<()> {
    let (min, max): (V, V) =
        (need(path, "scatter", "min", r.min)?, need(path, "scatter", "max", r.max)?);
    let mut spaced = match r.min_spacing {
        Some(d) => Some(Spacing::<V>::new(positive(&join(path, "min_spacing"), d)?)),
        None => None,
    };
    for i in 0..V::DIMS {
        if max[i] < min[i] {
            return Err(problem(
                format!("{path}.max[{i}]"),
                format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
            ));
        }
    }
    let mut draw = || {
        let mut c = [0.0f32; 3];
        for (i, c) in c.iter_mut().enumerate().take(V::DIMS) {
            *c = min[i] + (max[i] - min[i]) * rng.uniform();
        }
        V::from_components(&c[..V::DIMS])
    };
    for (k, a) in free(agents).enumerate() {
        let Some(sp) = spaced.as_mut() else {
            a.goal = Some(draw());
            continue;
        };
        let Some(goal) = (0..SPACED_TRIES).map(|_| draw()).find(|&g| sp.clear(g)) else {
            return Err(problem(
                join(path, "min_spacing"),
                format!(
                    "placed {k} goals {} m apart, then no free place in {SPACED_TRIES} \
                     tries: the box cannot hold them all at that spacing; use a larger \
                     box or a smaller min_spacing",
                    sp.spacing
                ),
            ));
        };
        sp.insert(goal);
        a.goal = Some(goal);
    }
    Ok(())
}

/// `rows` (a `grid` spawn): row `r` heads for `points[r]` (cycling), keeping its shape.
fn rows<V: Dim>(
    path: &str,
    r: &GoalRuleSpec,
    spawn: Option<&SpawnSpec>,
    agents: &mut [Placement<V>],
) -> Result<()> {
    let columns = match spawn {
        Some(s) if s.shape == "grid" => s.columns.unwrap_or(1).max(1) as usize,
        _ => {
            return Err(problem(
                join(path, "rule"),
                "goal rule `rows` needs a `grid` spawn (its rows head for the points)",
            ))
        }
    };
    let points = r.points.as_deref().unwrap_or_default();
    if points.is_empty() {
        return Err(problem(join(path, "points"), "goal rule `rows` needs at least one point"));
    }
    let mut targets = Vec::with_capacity(points.len());
    for (i, q) in points.iter().enumerate() {
        targets.push(point::<V>(&format!("{path}.points[{i}]"), *q)?);
    }
    let starts: Vec<V> = agents.iter().step_by(columns).map(|a| a.position).collect();
    for (k, a) in agents.iter_mut().enumerate() {
        if a.goal.is_none() {
            let row = k / columns;
            a.goal = Some(targets[row % targets.len()] + a.position - starts[row]);
        }
    }
    Ok(())
}
