//! Racing in traffic: two lanes on a path, a passing lane taken to overtake a slower vehicle
//! ahead, and a following distance kept behind one that cannot be passed yet.

use super::{Lane, PathTracker};
use crate::error::{positive, ParamError};
use crate::kinematic::Kinematic;
use crate::path::Path;
use glam::Vec2;

/// Another vehicle as a driver sees it: position (m), velocity (m/s) and body radius (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rival {
    /// Position (m).
    pub position: Vec2,
    /// Velocity (m/s).
    pub velocity: Vec2,
    /// Body radius (m).
    pub radius: f32,
}

/// Lane choice and following distance for a [`PathTracker`] among other vehicles on the same
/// path.
///
/// There are two lanes: the path itself (the racing line) and a passing lane `lane_width`
/// metres to its left. With `s` the arc length, `d` the offset from the path and `g` the gap
/// along the path to a rival (positive ahead), `b = r + r_j + margin` the bodies' clearance
/// (m) and `v` the speed (m/s):
///
/// ```text
/// in a lane        |d_j − lane| < 0.8·w
/// blocked          a rival in my lane with 0 < g < b + v·headway + look, going slower than I could
/// overtake         on the racing line, blocked, and the passing lane clear for −b < g < b + v·headway
/// back in          in the passing lane, the racing line clear for −(b + max(look, v·headway)) < g < b + v·headway
/// speed cap        (g − b) / headway   for each rival ahead in the lane I drive or enter
/// ```
/// The gap `g` takes its sign from the arc lengths and its size from the straight distance
/// (the smaller), so that the inside lane of a bend is not given room it does not have. The cap
/// keeps the time gap: behind a vehicle at `v_j` the follower settles `b + v_j·headway` back.
/// `look` is the tracker's look-ahead at the current speed. The choice is made afresh every
/// step from where the vehicles are, with no memory: the vehicle's own offset says which lane
/// it is in. The passing lane's bends are planned with its own curvature (tighter on the inside).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Traffic {
    lane_width: f32,
    headway: f32,
    margin: f32,
}

impl Traffic {
    /// Traffic rules with a passing lane `lane_width` m to the left, a time `headway` (s) kept
    /// behind a vehicle ahead, and a clearance `margin` (m) between bodies.
    ///
    /// # Errors
    /// If a value is not finite and positive.
    pub fn new(lane_width: f32, headway: f32, margin: f32) -> Result<Self, ParamError> {
        Ok(Traffic {
            lane_width: positive("lane_width", lane_width)?,
            headway: positive("headway", headway)?,
            margin: positive("margin", margin)?,
        })
    }

    /// Passing-lane width (m).
    #[must_use]
    pub fn lane_width(&self) -> f32 {
        self.lane_width
    }

    /// The lane to drive and the speed cap for a vehicle in `me` (body radius `radius`) at arc
    /// length `param` of `path`, among `rivals`.
    #[must_use]
    pub fn lane<P: Path<Vec2> + ?Sized>(
        &self,
        tracker: &PathTracker,
        path: &P,
        me: &Kinematic,
        radius: f32,
        param: f32,
        rivals: &[Rival],
    ) -> Lane {
        let w = self.lane_width;
        let v = me.velocity.length();
        let mine = offset(path, param, me.position);
        let current = if mine > 0.5 * w { w } else { 0.0 };
        let look = tracker.look_ahead + tracker.look_ahead_time * v;
        let seen: Vec<(f32, f32, f32, f32)> = rivals
            .iter()
            .filter_map(|r| {
                let s = path.get_param_within(r.position, param, Some(80.0));
                // along the path for the sign, straight for the size: on the inside lane of a
                // bend the arc length overstates the room between the cars
                let along_path = path.param_difference(param, s);
                let gap =
                    along_path.signum() * along_path.abs().min((r.position - me.position).length());
                let tangent = direction(path, s);
                let along = r.velocity.dot(tangent);
                let clearance = radius + r.radius + self.margin;
                let d = offset(path, s, r.position);
                (gap.abs() < 80.0 && gap.is_finite()).then_some((gap, d, along, clearance))
            })
            .collect();
        let in_lane = |d: f32, lane: f32| (d - lane).abs() < 0.8 * w;
        let clear = |lane: f32, behind: f32, ahead: f32| {
            !seen.iter().any(|&(g, d, _, b)| in_lane(d, lane) && g > -(b + behind) && g < b + ahead)
        };
        let could = tracker.lane_limit(path, param, v, current);
        let reach = v * self.headway;
        let blocked = seen.iter().any(|&(g, d, along, b)| {
            in_lane(d, 0.0) && g > 0.0 && g < b + reach + look && along < could - 0.5
        });
        let offset = if current == 0.0 {
            if blocked && clear(w, 0.0, reach) {
                w
            } else {
                0.0
            }
        } else if clear(0.0, look.max(reach), reach) {
            0.0
        } else {
            w
        };
        let speed_cap = seen
            .iter()
            .filter(|&&(g, d, _, _)| g > 0.0 && (in_lane(d, offset) || in_lane(d, current)))
            .map(|&(g, _, _, b)| ((g - b) / self.headway).max(0.0))
            .fold(f32::INFINITY, f32::min);
        Lane { offset, speed_cap }
    }
}

/// The path's unit direction at arc length `param`.
fn direction<P: Path<Vec2> + ?Sized>(path: &P, param: f32) -> Vec2 {
    (path.get_position(param + 0.5) - path.get_position(param - 0.5)).normalize_or_zero()
}

/// The signed distance (m, positive to the left) of `position` from the path at `param`.
fn offset<P: Path<Vec2> + ?Sized>(path: &P, param: f32, position: Vec2) -> f32 {
    direction(path, param).perp_dot(position - path.get_position(param))
}
