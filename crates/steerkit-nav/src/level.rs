//! A level as the navigation mesh sees it: a walkable outline and solid obstacles, polygons.

use steerkit::geometry::Obstacle;
use steerkit::Vec2;

/// Half the thickness (m) given to a wall segment: a wall is a thin solid rectangle to the
/// mesh, which the agent radius then inflates like any other obstacle.
pub const WALL_HALF_THICKNESS: f32 = 0.01;

/// Sides of the polygon that stands for a disc: circumscribed, so it contains the disc (its
/// corners stick out by `r (1/cos(π/n) − 1)`, 2 % of the radius at 16 sides).
pub const DISC_SIDES: usize = 16;

/// What a level or a mesh built from it was refused for.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NavError {
    /// A polygon with fewer than three points, a non-finite point or no area.
    #[error("{what}: {reason}")]
    Degenerate {
        /// Which polygon (`outline`, `obstacles[3]`).
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Nothing walkable is left once the obstacles are inflated.
    #[error("no walkable area left for radius {radius} m (outline minus obstacles inflated by radius + clearance)")]
    Empty {
        /// The inflation radius (m).
        radius: f32,
    },
    /// A radius or clearance that is negative or not finite.
    #[error("{name}: {value} is not a finite number ≥ 0")]
    Param {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: f32,
    },
}

/// A level: the walkable outline (a simple polygon, either winding) and the solid obstacles
/// inside it (simple polygons, either winding; they may touch or overlap each other and the
/// outline).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Level {
    /// The walkable area's boundary (m).
    pub outline: Vec<Vec2>,
    /// Solid polygons (m).
    pub obstacles: Vec<Vec<Vec2>>,
}

impl Level {
    /// A level whose walkable area is the rectangle `min`–`max`.
    #[must_use]
    pub fn rectangle(min: Vec2, max: Vec2) -> Self {
        Level { outline: rectangle(min, max), obstacles: Vec::new() }
    }

    /// Adds the crowd's static obstacles: boxes and convex polygons as they are, discs as
    /// circumscribed [`DISC_SIDES`]-gons, walls as rectangles [`WALL_HALF_THICKNESS`] thick on
    /// each side.
    pub fn add_obstacles<'a>(&mut self, obstacles: impl IntoIterator<Item = &'a Obstacle>) {
        for o in obstacles {
            self.obstacles.push(match o {
                Obstacle::Box(b) => rectangle(b.min, b.max),
                Obstacle::Polygon(p) => p.points().to_vec(),
                Obstacle::Circle(c) => {
                    let step = std::f32::consts::TAU / DISC_SIDES as f32;
                    let r = c.radius / (step * 0.5).cos();
                    (0..DISC_SIDES)
                        .map(|i| c.center + r * Vec2::from_angle(step * i as f32))
                        .collect()
                }
                Obstacle::Wall(s) => {
                    let along = (s.b - s.a).normalize_or(Vec2::X) * WALL_HALF_THICKNESS;
                    let side = along.perp();
                    vec![
                        s.a - along - side,
                        s.b + along - side,
                        s.b + along + side,
                        s.a - along + side,
                    ]
                }
            });
        }
    }

    /// Checks every polygon: at least three finite points and a non-zero area.
    ///
    /// # Errors
    /// [`NavError::Degenerate`] naming the first bad polygon.
    pub fn check(&self) -> Result<(), NavError> {
        check_polygon("outline", &self.outline)?;
        for (i, o) in self.obstacles.iter().enumerate() {
            check_polygon(&format!("obstacles[{i}]"), o)?;
        }
        Ok(())
    }
}

/// The rectangle `min`–`max`, counter-clockwise.
pub(crate) fn rectangle(min: Vec2, max: Vec2) -> Vec<Vec2> {
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// Twice the signed area (m²), positive counter-clockwise.
pub(crate) fn signed_area2(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i].as_dvec2(), points[(i + 1) % n].as_dvec2());
            a.x * b.y - a.y * b.x
        })
        .sum()
}

fn check_polygon(what: &str, points: &[Vec2]) -> Result<(), NavError> {
    let fail = |reason: String| Err(NavError::Degenerate { what: what.to_string(), reason });
    if points.len() < 3 {
        return fail(format!("{} points; a polygon needs at least 3", points.len()));
    }
    if let Some(p) = points.iter().find(|p| !p.is_finite()) {
        return fail(format!("point {p} is not finite"));
    }
    if signed_area2(points).abs() < 1e-6 {
        return fail("the polygon has no area (its points are on one line)".into());
    }
    Ok(())
}

/// A radius or clearance: finite and ≥ 0.
pub(crate) fn check_radius(name: &'static str, value: f32) -> Result<(), NavError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(NavError::Param { name, value })
    }
}
