//! An agent's route: the corners of its path, trimmed as it passes them, and the point it
//! steers for.

use steerkit::crowd::Waypoint;
use steerkit::Vec2;

/// An agent's path across the mesh as corners, then its end. The route moves with the agent:
/// [`advance`](Route::advance) drops the corners it has passed, so a step costs a few
/// dot products, not a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// Where the path was planned from: the first leg starts here.
    start: Vec2,
    /// The corners, then the end.
    points: Vec<Vec2>,
    /// `after[i]`: the path's length from `points[i]` to the end (m).
    after: Vec<f32>,
    /// The corner the agent heads for.
    next: usize,
}

impl Route {
    /// The route from `start` through `points` (its corners, then its end; at least one).
    ///
    /// # Panics
    /// Never for a non-empty `points`; an empty one is a route that ends at `start`.
    #[must_use]
    pub fn new(start: Vec2, points: Vec<Vec2>) -> Self {
        let points = if points.is_empty() { vec![start] } else { points };
        let mut after = vec![0.0; points.len()];
        for i in (0..points.len().saturating_sub(1)).rev() {
            after[i] = after[i + 1] + points[i].distance(points[i + 1]);
        }
        Route { start, points, after, next: 0 }
    }

    /// The corners not yet passed, then the end.
    #[must_use]
    pub fn ahead(&self) -> &[Vec2] {
        &self.points[self.next..]
    }

    /// The route's end.
    #[must_use]
    pub fn end(&self) -> Vec2 {
        self.points[self.points.len() - 1]
    }

    /// The start of the current leg: the last corner passed, or where the path began.
    fn leg_start(&self) -> Vec2 {
        if self.next == 0 {
            self.start
        } else {
            self.points[self.next - 1]
        }
    }

    /// Drops the corners an agent at `p` has passed: a corner within `reach` (m), or one whose
    /// bisector the agent has crossed (`(p − c)·(d_in + d_out) > 0`, with `d_in`, `d_out` the
    /// unit directions of the legs into and out of corner `c`), which holds however far out
    /// the crowd has pushed it.
    pub fn advance(&mut self, p: Vec2, reach: f32) {
        while self.next + 1 < self.points.len() {
            let c = self.points[self.next];
            let to_c = p - c;
            if to_c.length_squared() <= reach * reach {
                self.next += 1;
                continue;
            }
            let d_in = (c - self.leg_start()).normalize_or_zero();
            let d_out = (self.points[self.next + 1] - c).normalize_or_zero();
            let bisector = d_in + d_out;
            if bisector.length_squared() > 1e-6 && to_c.dot(bisector) > 0.0 {
                self.next += 1;
                continue;
            }
            break;
        }
    }

    /// True when the agent at `p` is on the last leg, within `near` (m) of the end.
    #[must_use]
    pub fn home(&self, p: Vec2, near: f32) -> bool {
        self.next + 1 == self.points.len() && p.distance_squared(self.end()) <= near * near
    }

    /// Distance (m) from `p` to the current leg (the segment from the leg's start to the
    /// corner ahead): how far the crowd has pushed the agent off its route.
    #[must_use]
    pub fn off_route(&self, p: Vec2) -> f32 {
        let (a, b) = (self.leg_start(), self.points[self.next]);
        let ab = b - a;
        let t = if ab.length_squared() > 0.0 {
            ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        p.distance(a + ab * t)
    }

    /// Where an agent at `p` steers: the corner ahead, or, within `lookahead` (m) of it, a point
    /// on the next leg `lookahead − d` past it (pure pursuit along the path, `d` the distance to
    /// the corner), so it turns before the corner and keeps its speed through it. The
    /// look-ahead is capped so that the cut stays inside `clearance` (m): steering from `d`
    /// before a corner turning by θ to a point `L − d` after it passes the corner at most
    /// `(L/2)·sin(θ/2)` away, hence `L ≤ 2·clearance / sin(θ/2)`. The remaining length is the
    /// route's from that point to its end.
    #[must_use]
    pub fn waypoint(&self, p: Vec2, lookahead: f32, clearance: f32) -> Waypoint<Vec2> {
        let c = self.points[self.next];
        let last = self.points.len() - 1;
        if self.next == last {
            return Waypoint { point: c, remaining: 0.0, lane: None, priority: 1.0 };
        }
        let corner =
            Waypoint { point: c, remaining: self.after[self.next], lane: None, priority: 1.0 };
        let d = p.distance(c);
        let following = self.points[self.next + 1];
        let leg = c.distance(following);
        let d_in = (c - self.leg_start()).normalize_or_zero();
        let d_out = (following - c).normalize_or_zero();
        let sin_half = (d_in - d_out).length() * 0.5;
        let cap = if sin_half > 1e-3 { 2.0 * clearance / sin_half } else { f32::INFINITY };
        let l = lookahead.min(cap);
        if d >= l || leg <= 0.0 {
            return corner;
        }
        let s = (l - d).min(leg);
        Waypoint {
            point: c + d_out * s,
            remaining: self.after[self.next + 1] + (leg - s),
            lane: None,
            priority: 1.0,
        }
    }
}
