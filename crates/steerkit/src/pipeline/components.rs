//! The example components of §3.4.5: a chase targeter, a planning decomposer, an avoid-obstacle
//! constraint and a wall constraint.

use super::graph::{AStar, Graph};
use super::{Constraint, Decomposer, Goal, Plan, Targeter};
use crate::error::{non_negative, ParamError};
use crate::geometry::{closest_point_on_segment, Segment};
use crate::kinematic::Kinematic;
use crate::math::Vector;
use glam::Vec2;

/// Chase targeter (§3.4.5): the position channel a little ahead of a moving character,
/// `chased.position + chased.velocity · lookahead`. Update [`chased`](Self::chased) every frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChaseTargeter<V: Vector = Vec2> {
    /// The character being chased (its latest state).
    pub chased: Kinematic<V>,
    lookahead: f32,
}

impl<V: Vector> ChaseTargeter<V> {
    /// Chase `chased`, aiming `lookahead` seconds ahead of it.
    ///
    /// # Errors
    /// If `lookahead` is negative or not finite.
    pub fn new(chased: Kinematic<V>, lookahead: f32) -> Result<Self, ParamError> {
        Ok(ChaseTargeter { chased, lookahead: non_negative("lookahead", lookahead)? })
    }

    /// The look-ahead time (s).
    #[must_use]
    pub fn lookahead(&self) -> f32 {
        self.lookahead
    }
}

impl<V: Vector> Targeter<V> for ChaseTargeter<V> {
    fn goal(&mut self, _character: &Kinematic<V>) -> Goal<V> {
        Goal::at(self.chased.position + self.chased.velocity * self.lookahead)
    }
}

/// Planning decomposer (§3.4.5): quantizes the character's and the goal's positions to graph
/// nodes and, when they differ, runs A* and replaces the goal's position by the first node of
/// the plan after the start (the end of the first connection). The other channels are kept.
///
/// The goal is returned unchanged when it has no position, when either end lies outside the
/// graph, when both quantize to the same node (no planning needed), or when there is no route
/// (erratum E14: the book's `kinematic.position` / `startNode == endNode` names). The search
/// buffers are kept between frames (no allocation once warm), and the last route is available
/// from [`route`](Self::route) for drawing.
#[derive(Clone, Debug)]
pub struct PlanningDecomposer<G> {
    /// The graph searched.
    pub graph: G,
    astar: AStar,
    found: bool,
}

impl<G> PlanningDecomposer<G> {
    /// A decomposer planning on `graph` (any [`Graph`]: a [`GridGraph`](super::GridGraph), a
    /// [`WaypointGraph`](super::WaypointGraph), or a reference to one).
    #[must_use]
    pub fn new(graph: G) -> Self {
        PlanningDecomposer { graph, astar: AStar::new(), found: false }
    }

    /// The node route of the last frame that planned (start and end included), or `None` when
    /// the last frame did not plan.
    #[must_use]
    pub fn route(&self) -> Option<&[usize]> {
        self.found.then(|| self.astar.path())
    }
}

impl<V: Vector, G: Graph<V>> Decomposer<V> for PlanningDecomposer<G> {
    fn decompose(&mut self, character: &Kinematic<V>, goal: Goal<V>) -> Goal<V> {
        self.found = false;
        let Some(target) = goal.position else { return goal };
        let (Some(start), Some(end)) =
            (self.graph.node_at(character.position), self.graph.node_at(target))
        else {
            return goal;
        };
        if start == end {
            return goal;
        }
        match self.astar.find(&self.graph, start, end) {
            Some(route) if route.len() >= 2 => {
                let next = self.graph.position(route[1]);
                self.found = true;
                Goal { position: Some(next), ..goal }
            }
            _ => goal,
        }
    }
}

/// Avoid-obstacle constraint (§3.4.5, Fig. 3.44): a disc the plan's segments must not enter.
///
/// A plan violates it when a segment passes closer than `radius` to `center` (`radius` is the
/// obstacle's plus the character's). The suggestion projects the segment's point of closest
/// approach out to `radius · margin` from the centre:
/// `position = center + offset · radius·margin / |offset|`, `offset = closest − center`
/// (erratum E15: the book tests and divides by `|closest|`, the distance from the world origin).
/// When the segment passes exactly through the centre (`offset = 0`), the point is taken at
/// right angles to the segment on its **left** (counter-clockwise from the direction of travel),
/// a deterministic choice; a zero-length segment at the centre uses +x. The other channels are
/// copied from the goal.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "AvoidObstacleConstraint")]
pub struct AvoidObstacle {
    center: Vec2,
    radius: f32,
    margin: f32,
}

impl AvoidObstacle {
    /// A disc at `center` with `radius` m (obstacle plus character) and a clearance factor
    /// `margin > 1`.
    ///
    /// # Errors
    /// If `center` is not finite, `radius` is negative or not finite, or `margin` is not above 1.
    pub fn new(center: Vec2, radius: f32, margin: f32) -> Result<Self, ParamError> {
        crate::error::finite("center", center.x)?;
        crate::error::finite("center", center.y)?;
        non_negative("radius", radius)?;
        crate::error::finite("margin", margin)?;
        if margin <= 1.0 {
            return Err(ParamError::OutOfRange { name: "margin", value: margin, range: "above 1" });
        }
        Ok(AvoidObstacle { center, radius, margin })
    }

    /// The centre (m).
    #[must_use]
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// The radius (m).
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The first segment of `plan` entering the disc, with its index.
    #[must_use]
    pub fn first_violation(&self, plan: &Plan) -> Option<(usize, (Vec2, Vec2))> {
        let r2 = self.radius * self.radius;
        plan.segments().enumerate().find(|(_, (a, b))| {
            let (closest, _) = closest_point_on_segment(self.center, *a, *b);
            (closest - self.center).length_squared() < r2
        })
    }

    /// The detour point for a violating segment `a → b`.
    #[must_use]
    pub fn detour(&self, a: Vec2, b: Vec2) -> Vec2 {
        let (closest, _) = closest_point_on_segment(self.center, a, b);
        let offset = closest - self.center;
        // through the centre (E15: the offset, not `closest`, is zero): the left of the direction
        // of travel; a zero-length segment there: +x
        let direction =
            offset.try_normalize().or_else(|| (b - a).perp().try_normalize()).unwrap_or(Vec2::X);
        self.center + direction * (self.radius * self.margin)
    }
}

impl Constraint<Vec2> for AvoidObstacle {
    fn check(&mut self, _character: &Kinematic, plan: &Plan, goal: &Goal) -> Option<Goal> {
        let (_, (a, b)) = self.first_violation(plan)?;
        Some(Goal { position: Some(self.detour(a, b)), ..*goal })
    }
}

/// A wall constraint: the plan's segments must not cross a wall segment (lengthened by
/// `clearance` at both ends, so the character does not clip its end).
///
/// A segment crosses when it meets the lengthened wall coming from one side (its end lying on the
/// other side or on the wall itself); a segment starting exactly on the wall's line does not
/// cross, so a character standing there can leave. The suggestion goes round the end that makes the shorter detour
/// `|a − c| + |c − b|` for the violating segment `a → b` (ties: the wall's first end), through the
/// point `c = end + ê · 2·clearance` on the wall's line beyond that end (`ê` pointing away from the
/// wall): any straight line from `c` across the wall's line crosses it at `c`, outside the wall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallConstraint {
    wall: Segment,
    clearance: f32,
}

impl WallConstraint {
    /// A wall with `clearance` m round its ends (at least the character's radius).
    ///
    /// # Errors
    /// If `clearance` is negative or not finite.
    pub fn new(wall: Segment, clearance: f32) -> Result<Self, ParamError> {
        Ok(WallConstraint { wall, clearance: non_negative("clearance", clearance)? })
    }

    /// The wall.
    #[must_use]
    pub fn wall(&self) -> Segment {
        self.wall
    }

    /// True when `a → b` crosses the lengthened wall.
    #[must_use]
    pub fn crosses(&self, a: Vec2, b: Vec2) -> bool {
        let along = (self.wall.b - self.wall.a).normalize_or_zero();
        let w0 = self.wall.a - along * self.clearance;
        let w1 = self.wall.b + along * self.clearance;
        let wd = w1 - w0;
        let (da, db) = (wd.perp_dot(a - w0), wd.perp_dot(b - w0));
        // a start on the wall's line may leave it; an end on the wall is a collision
        if da == 0.0 || da * db > 0.0 || da.is_nan() || db.is_nan() {
            return false;
        }
        let sd = b - a;
        let (d0, d1) = (sd.perp_dot(w0 - a), sd.perp_dot(w1 - a));
        d0 * d1 <= 0.0
    }

    /// The point beyond the end of the wall that makes the shorter detour from `a` to `b`.
    #[must_use]
    pub fn detour(&self, a: Vec2, b: Vec2) -> Vec2 {
        let along = (self.wall.b - self.wall.a).normalize_or_zero();
        let along = if along == Vec2::ZERO { Vec2::X } else { along };
        let reach = 2.0 * self.clearance;
        let c0 = self.wall.a - along * reach;
        let c1 = self.wall.b + along * reach;
        let cost = |c: Vec2| (c - a).length() + (b - c).length();
        if cost(c1) < cost(c0) {
            c1
        } else {
            c0
        }
    }
}

impl Constraint<Vec2> for WallConstraint {
    fn check(&mut self, _character: &Kinematic, plan: &Plan, goal: &Goal) -> Option<Goal> {
        let (a, b) = plan.segments().find(|(a, b)| self.crosses(*a, *b))?;
        Some(Goal { position: Some(self.detour(a, b)), ..*goal })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(points: &[Vec2]) -> Plan {
        Plan { points: points.to_vec(), goal: Goal::default() }
    }

    #[test]
    fn avoid_obstacle_suggestion_is_at_radius_times_margin_from_the_centre() {
        // erratum E15: away from the origin, dividing by |closest| puts the point elsewhere
        let mut c = AvoidObstacle::new(Vec2::new(100.0, 50.0), 2.0, 1.5).unwrap();
        let p = plan(&[Vec2::new(90.0, 50.5), Vec2::new(110.0, 50.5)]);
        let k = Kinematic::at_rest(Vec2::new(90.0, 50.5), 0.0);
        let g = c.check(&k, &p, &Goal::at(Vec2::new(110.0, 50.5)).with_orientation(0.3)).unwrap();
        let q = g.position.unwrap();
        assert!(((q - c.center()).length() - 3.0).abs() < 1e-4, "{q}");
        assert!((q - Vec2::new(100.0, 53.0)).length() < 1e-4, "pushed out on the path's side");
        assert_eq!(g.orientation, Some(0.3), "other channels copied");
        // a path that misses is accepted
        assert!(c.check(&k, &plan(&[Vec2::new(90.0, 53.0), Vec2::new(110.0, 53.0)]), &g).is_none());
    }

    #[test]
    fn avoid_obstacle_through_the_centre_goes_left_of_travel() {
        let mut c = AvoidObstacle::new(Vec2::new(10.0, 0.0), 1.0, 2.0).unwrap();
        let k = Kinematic::default();
        let east = plan(&[Vec2::ZERO, Vec2::new(20.0, 0.0)]);
        assert_eq!(
            c.check(&k, &east, &Goal::default()).unwrap().position,
            Some(Vec2::new(10.0, 2.0))
        );
        let west = plan(&[Vec2::new(20.0, 0.0), Vec2::ZERO]);
        assert_eq!(
            c.check(&k, &west, &Goal::default()).unwrap().position,
            Some(Vec2::new(10.0, -2.0))
        );
        // a zero-length segment on the centre: +x
        let here = plan(&[Vec2::new(10.0, 0.0), Vec2::new(10.0, 0.0)]);
        assert_eq!(
            c.check(&k, &here, &Goal::default()).unwrap().position,
            Some(Vec2::new(12.0, 0.0))
        );
        assert!(AvoidObstacle::new(Vec2::ZERO, 1.0, 1.0).is_err());
    }

    #[test]
    fn wall_constraint_detours_round_the_nearer_end() {
        let wall = Segment::new(Vec2::new(5.0, -2.0), Vec2::new(5.0, 10.0));
        let mut c = WallConstraint::new(wall, 0.5).unwrap();
        let k = Kinematic::default();
        let across = plan(&[Vec2::ZERO, Vec2::new(10.0, 0.0)]);
        let g = c.check(&k, &across, &Goal::default()).unwrap();
        assert_eq!(g.position, Some(Vec2::new(5.0, -3.0)));
        // past the end (beyond the clearance) is fine; along the wall's side too
        assert!(!c.crosses(Vec2::new(0.0, -3.0), Vec2::new(10.0, -3.0)));
        assert!(c.crosses(Vec2::new(0.0, -2.3), Vec2::new(10.0, -2.3)), "clearance at the end");
        assert!(!c.crosses(Vec2::ZERO, Vec2::new(4.0, 9.0)));
        assert!(c.crosses(Vec2::ZERO, Vec2::new(5.0, 1.0)), "ending on the wall");
        assert!(!c.crosses(Vec2::new(5.0, 1.0), Vec2::ZERO), "leaving it");
    }
}
