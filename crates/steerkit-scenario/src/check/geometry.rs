//! The static world: bounds, obstacles (2D shapes, 3D spheres and boxes), walls and named
//! paths.

use super::values::{
    applicable, join, name, non_negative, point, positive, present, problem, required, xy, Present,
};
use super::Result;
use crate::dim::Dim;
use crate::model::{Bounds, Geometry, NamedPath};
use crate::spec::{ObstacleSpec, ScenarioSpec, WorldSpec};
use steerkit::geometry::{Aabb, Circle, Obstacle, Obstacle3, Polygon, Segment, Sphere};
use steerkit::path::Polyline;
use steerkit::{Vec2, Vec3};

pub(super) fn bounds<V: Dim>(w: &WorldSpec) -> Result<Bounds<V>> {
    Ok(match (w.min, w.max) {
        (None, None) => {
            if w.wrap {
                return Err(problem("world.wrap", "a wrap-around world needs `min` and `max`"));
            }
            Bounds::Unbounded
        }
        (Some(_), None) => return Err(problem("world.max", "`min` is given, so `max` is needed")),
        (None, Some(_)) => return Err(problem("world.min", "`max` is given, so `min` is needed")),
        (Some(min), Some(max)) => {
            let (min, max): (V, V) = (point("world.min", min)?, point("world.max", max)?);
            for i in 0..V::DIMS {
                if max[i] <= min[i] {
                    return Err(problem(
                        format!("world.max[{i}]"),
                        format!("must be greater than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            if w.wrap {
                Bounds::Wrapping { min, max }
            } else {
                Bounds::Bounded { min, max }
            }
        }
    })
}

pub(super) fn geometry<V: Dim>(spec: &ScenarioSpec) -> Result<Geometry> {
    if V::DIMS == 3 {
        let mut obstacles3 = Vec::with_capacity(spec.obstacles.len());
        for (i, o) in spec.obstacles.iter().enumerate() {
            obstacles3.push(obstacle3(&format!("obstacles[{i}]"), o)?);
        }
        return Ok(Geometry { obstacles3, ..Geometry::default() });
    }
    let mut obstacles = Vec::with_capacity(spec.obstacles.len());
    for (i, o) in spec.obstacles.iter().enumerate() {
        obstacles.push(obstacle(&format!("obstacles[{i}]"), o)?);
    }
    let mut walls = Vec::with_capacity(spec.walls.len());
    for (i, w) in spec.walls.iter().enumerate() {
        let path = format!("walls[{i}]");
        walls.push(Segment::new(xy(&join(&path, "from"), w.from)?, xy(&join(&path, "to"), w.to)?));
    }
    Ok(Geometry { obstacles, walls, obstacles3: Vec::new() })
}

/// A 3D obstacle: `sphere` (`center`, `radius`) or `box` (`min`, `max`).
pub(super) fn obstacle3(path: &str, o: &ObstacleSpec) -> Result<Obstacle3> {
    let present = present!(o; nums: radius; xys: center, min, max; others: points = "points");
    let what = "obstacle shape";
    let shape = o.shape.as_str();
    match shape {
        "sphere" => {
            applicable(path, what, shape, &present, &["center", "radius"])?;
            let c = point(&join(path, "center"), required(path, what, shape, "center", o.center)?)?;
            // a sphere of radius 0 is no obstacle, and a replay cannot draw it
            let r =
                positive(&join(path, "radius"), required(path, what, shape, "radius", o.radius)?)?;
            Ok(Obstacle3::Sphere(Sphere::new(c, r)))
        }
        "box" => {
            applicable(path, what, shape, &present, &["min", "max"])?;
            let min: Vec3 = point(&join(path, "min"), required(path, what, shape, "min", o.min)?)?;
            let max: Vec3 = point(&join(path, "max"), required(path, what, shape, "max", o.max)?)?;
            for i in 0..3 {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            Ok(Obstacle3::Box(Aabb::new(min, max)))
        }
        other => Err(problem(
            join(path, "shape"),
            format!(
                "unknown obstacle shape `{other}` in a 3D scenario; expected `sphere` or `box`"
            ),
        )),
    }
}

pub(super) fn obstacle(path: &str, o: &ObstacleSpec) -> Result<Obstacle> {
    let points =
        o.points.as_ref().map(|p| p.iter().flat_map(|q| q.iter().copied()).collect::<Vec<f32>>());
    let mut present = present!(o; nums: radius; xys: center, min, max; others:);
    if let Some(p) = points {
        present.push(Present { name: "points", numbers: p });
    }
    let what = "obstacle shape";
    let shape = o.shape.as_str();
    match shape {
        "circle" => {
            applicable(path, what, shape, &present, &["center", "radius"])?;
            let c = xy(&join(path, "center"), required(path, what, shape, "center", o.center)?)?;
            let r = non_negative(
                &join(path, "radius"),
                required(path, what, shape, "radius", o.radius)?,
            )?;
            Ok(Obstacle::Circle(Circle::new(c, r)))
        }
        "box" => {
            applicable(path, what, shape, &present, &["min", "max"])?;
            let min = xy(&join(path, "min"), required(path, what, shape, "min", o.min)?)?;
            let max = xy(&join(path, "max"), required(path, what, shape, "max", o.max)?)?;
            for i in 0..2 {
                if max[i] < min[i] {
                    return Err(problem(
                        format!("{path}.max[{i}]"),
                        format!("must not be less than `min[{i}]` ({}), got {}", min[i], max[i]),
                    ));
                }
            }
            Ok(Obstacle::Box(Aabb::new(min, max)))
        }
        "polygon" => {
            applicable(path, what, shape, &present, &["points"])?;
            let pts = o.points.as_ref().ok_or_else(|| {
                problem(join(path, "points"), "obstacle shape `polygon` needs `points`")
            })?;
            let pts: Vec<Vec2> = pts.iter().map(|p| Vec2::new(p[0], p[1])).collect();
            let poly =
                Polygon::new(pts).map_err(|e| problem(join(path, "points"), e.to_string()))?;
            Ok(Obstacle::Polygon(poly))
        }
        other => Err(problem(
            join(path, "shape"),
            format!("unknown obstacle shape `{other}`; expected `circle`, `box` or `polygon`"),
        )),
    }
}

pub(super) fn paths<V: Dim>(spec: &ScenarioSpec) -> Result<Vec<NamedPath<V>>> {
    let mut out: Vec<NamedPath<V>> = Vec::with_capacity(spec.paths.len());
    for (i, p) in spec.paths.iter().enumerate() {
        let path = format!("paths[{i}]");
        name(&join(&path, "name"), &p.name)?;
        if out.iter().any(|q| q.name == p.name) {
            return Err(problem(join(&path, "name"), format!("a second path named `{}`", p.name)));
        }
        if p.points.len() < 2 {
            return Err(problem(join(&path, "points"), "a path needs at least two points"));
        }
        let mut pts = Vec::with_capacity(p.points.len());
        for (j, q) in p.points.iter().enumerate() {
            pts.push(point::<V>(&format!("{path}.points[{j}]"), *q)?);
        }
        let window = positive(&join(&path, "search_window"), p.search_window.unwrap_or(10.0))?;
        let polyline = Polyline::new(pts, p.looping)
            .map_err(|e| problem(join(&path, "points"), e.to_string()))?
            .with_search_window(Some(window))
            .map_err(|e| problem(join(&path, "search_window"), e.to_string()))?;
        out.push(NamedPath { name: p.name.clone(), polyline });
    }
    Ok(out)
}
