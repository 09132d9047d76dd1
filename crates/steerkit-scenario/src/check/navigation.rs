//! `[navigation]` and the `navigate` leaf: the level the navigation meshes are built from,
//! checked by building them, and every navigating agent's goal on walkable ground.

use super::values::{join, non_negative, positive, problem, xy};
use super::Result;
use crate::dim::Dim;
use crate::model::{Bounds, Geometry, GroupPlan, NavigationPlan};
use crate::spec::ScenarioSpec;
use steerkit::crowd::Recipe;
use steerkit::geometry::Obstacle;
use steerkit::Vec2;
use steerkit_nav::{Level, NavError, NavMesh, NavSettings};

/// The most routes a step may plan (`max_plans_per_step`).
const MAX_PLANS: u32 = 1_000_000;

/// The navigation plan, when a group navigates or the file has a `[navigation]` table.
pub(super) fn navigation<V: Dim>(
    spec: &ScenarioSpec,
    bounds: &Bounds<V>,
    geometry: &Geometry,
    groups: &[GroupPlan<V>],
) -> Result<Option<NavigationPlan>> {
    let navigating: Vec<usize> = (0..groups.len())
        .filter(|&g| {
            let mut any = false;
            groups[g].behaviour.for_each_leaf(&mut |r| any |= matches!(r, Recipe::Navigate { .. }));
            any
        })
        .collect();
    if navigating.is_empty() && spec.navigation.is_none() {
        return Ok(None);
    }
    let key = if spec.navigation.is_some() {
        "navigation".to_string()
    } else {
        join(&format!("groups[{}]", navigating[0]), "behaviour")
    };
    if V::DIMS != 2 {
        return Err(problem(key, "navigation meshes exist only in 2D scenarios"));
    }
    let plane = |v: V| Vec2::new(v.axis(0), v.axis(1));
    let n = spec.navigation.as_ref();
    let outline = match (n.and_then(|n| n.outline.as_ref()), bounds.corners()) {
        (Some(points), _) => points
            .iter()
            .enumerate()
            .map(|(i, p)| xy(&format!("navigation.outline[{i}]"), *p))
            .collect::<Result<Vec<_>>>()?,
        (None, Some((min, max))) => {
            let (min, max) = (plane(min), plane(max));
            vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
        }
        (None, None) => around(groups, geometry, plane),
    };
    let settings = settings(spec)?;
    let mut level = Level { outline, obstacles: Vec::new() };
    let walls = geometry.walls.iter().map(|w| Obstacle::Wall(*w));
    let solids: Vec<Obstacle> = geometry.obstacles.iter().cloned().chain(walls).collect();
    level.add_obstacles(&solids);
    level.check().map_err(|e| located(&e, geometry.obstacles.len()))?;
    // one mesh per radius: built here so that `validate` refuses what `run` could not build
    let mut meshes: Vec<(f32, NavMesh)> = Vec::new();
    for &g in &navigating {
        let group = &groups[g];
        let path = format!("groups[{g}]");
        if !meshes.iter().any(|(r, _)| *r == group.radius) {
            let mesh = NavMesh::build(&level, group.radius, settings.clearance)
                .map_err(|e| problem(join(&path, "radius"), e.to_string()))?;
            meshes.push((group.radius, mesh));
        }
        let mesh = &meshes.iter().find(|(r, _)| *r == group.radius).expect("built above").1;
        for (i, a) in group.agents.iter().enumerate() {
            let Some(goal) = a.goal.map(plane) else { continue };
            // a goal within radius + clearance of a wall is moved onto the mesh; one inside a
            // solid or outside the outline is a mistake
            if mesh.nearest(goal).distance(goal) > mesh.inflation() + 1e-2 {
                return Err(problem(
                    join(&path, "goal"),
                    format!(
                        "agent {i}'s goal ({}, {}) is inside an obstacle or outside the walkable \
                         outline",
                        goal.x, goal.y
                    ),
                ));
            }
        }
    }
    Ok(Some(NavigationPlan { level, settings, groups: navigating }))
}

/// Margin (m) round everything when an unbounded world's outline is not given.
const UNBOUNDED_MARGIN: f32 = 10.0;

/// The walkable outline of an unbounded world without one: the box round every agent, goal,
/// obstacle and wall, grown by [`UNBOUNDED_MARGIN`].
fn around<V: Dim>(
    groups: &[GroupPlan<V>],
    geometry: &Geometry,
    plane: impl Fn(V) -> Vec2,
) -> Vec<Vec2> {
    let mut points: Vec<Vec2> = Vec::new();
    for g in groups {
        for a in &g.agents {
            points.push(plane(a.position));
            points.extend(a.goal.map(&plane));
        }
    }
    for o in &geometry.obstacles {
        let b = o.aabb();
        points.extend([b.min, b.max]);
    }
    for w in &geometry.walls {
        points.extend([w.a, w.b]);
    }
    let (min, max) =
        points.iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let (min, max) = if min.x <= max.x {
        (min - UNBOUNDED_MARGIN, max + UNBOUNDED_MARGIN)
    } else {
        (Vec2::splat(-UNBOUNDED_MARGIN), Vec2::splat(UNBOUNDED_MARGIN))
    };
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

fn settings(spec: &ScenarioSpec) -> Result<NavSettings> {
    let d = NavSettings::default();
    let Some(n) = spec.navigation.as_ref() else { return Ok(d) };
    let plans = n.max_plans_per_step.unwrap_or(d.max_plans_per_step as u32);
    if plans == 0 || plans > MAX_PLANS {
        return Err(problem(
            "navigation.max_plans_per_step",
            format!("must be from 1 to {MAX_PLANS}, got {plans}"),
        ));
    }
    Ok(NavSettings {
        clearance: n
            .clearance
            .map_or(Ok(d.clearance), |v| non_negative("navigation.clearance", v))?,
        replan_interval: n
            .replan_interval
            .map_or(Ok(d.replan_interval), |v| positive("navigation.replan_interval", v))?,
        off_route: n.off_route.map_or(Ok(d.off_route), |v| positive("navigation.off_route", v))?,
        max_plans_per_step: plans as usize,
        anticipation: n
            .anticipation
            .map_or(Ok(d.anticipation), |v| non_negative("navigation.anticipation", v))?,
        keep_right: n
            .keep_right
            .map_or(Ok(d.keep_right), |v| non_negative("navigation.keep_right", v))?,
        passage_width: n
            .passage_width
            .map_or(Ok(d.passage_width), |v| non_negative("navigation.passage_width", v))?,
        two_way_width: n
            .two_way_width
            .map_or(Ok(d.two_way_width), |v| non_negative("navigation.two_way_width", v))?,
        single_file_width: n
            .single_file_width
            .map_or(Ok(d.single_file_width), |v| non_negative("navigation.single_file_width", v))?,
    })
}

/// The level's error at the file's key: the outline, an obstacle or a wall.
fn located(e: &NavError, obstacles: usize) -> super::Problem {
    let NavError::Degenerate { what, reason } = e else {
        return problem("navigation", e.to_string());
    };
    let field = match what.strip_prefix("obstacles[").and_then(|r| r.strip_suffix(']')) {
        Some(i) => match i.parse::<usize>() {
            Ok(i) if i >= obstacles => format!("walls[{}]", i - obstacles),
            _ => what.clone(),
        },
        None => format!("navigation.{what}"),
    };
    problem(field, reason.clone())
}
