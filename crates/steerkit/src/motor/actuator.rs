//! The car's actuator for the steering pipeline (Millington §3.4.5, §3.8): routes a car can
//! drive, with run-ups and dropped channels.

use super::{Car, PathTracker, VehicleModel};
use crate::error::{positive, ParamError};
use crate::kinematic::{sanitize, Kinematic, Limits, SteeringOutput};
use crate::math::{as_vector, orientation_of, wrap_angle};
use crate::path::Polyline;
use crate::pipeline::{Actuator, Goal, Plan};
use crate::steering::VelocityMatch;
use glam::Vec2;

/// The car's actuator for the steering pipeline: plans routes a car can drive and drops the
/// channels it cannot meet (§3.4.5, Fig. 3.43).
///
/// Channel rules ([`Actuator::path`]):
///
/// - **rotation** is always dropped: a car's yaw rate follows from its speed and steering.
/// - **velocity and orientation** that disagree by more than `heading_tolerance` (the car moves
///   only along its facing): the orientation is dropped, the velocity wins.
/// - **position with an approach heading** (from the velocity or the orientation): if the car is
///   not yet inside the 30° approach cone behind the goal, the route takes a **run-up** through
///   the point `run_up` metres behind the goal along that heading: `[p, goal − ĥ·run_up, goal]`.
/// - **position inside a turning circle** (a point the car cannot reach without first moving
///   away, e.g. just beside a stationary car): the route starts straight ahead,
///   `[p, p + ĥ·2R, goal]` with `R = R_min(cruise_speed)`.
/// - **orientation only**: a stationary car cannot turn on the spot, so it **drives a loop**: the
///   route is the arc of radius `R_min(0)` that turns it to the goal orientation (sampled every
///   0.2 rad). Within `heading_tolerance` the plan is `[p]`.
/// - **velocity only**: `[p, p + v·1 s]`.
///
/// [`Actuator::output`] follows the route toward its next point at
/// `speed = min(cruise_speed, √(v_end² + 2·(brake/2)·remaining))` (braking at half the car's
/// braking power so as to stop on the last point, or reach it at the goal's speed `v_end`),
/// and, stopping at the end, no faster than the route's speed profile allows
/// ([`PathTracker::speed_limit`]: each corner of the route at 0.9 of the grip-limited speed,
/// braking begun in time).
/// Moving forward with the point ahead it steers by pure pursuit: the arc through the point
/// tangent to the heading has curvature `κ = 2·sin β / ℓ` (β the bearing, ℓ the distance), asked
/// for as `linear = ĥ·(speed − s)/time_to_target + side·s²·κ`; otherwise it asks for the velocity
/// `d̂·speed`: `(desired − v) / time_to_target`. `max_acceleration` caps the first along the
/// heading only (the turn is limited by the car's grip) and the second as a whole. Within
/// `arrival_radius` of the last point (and with no end speed), or with no route, it brakes to rest
/// and then returns zero; intermediate points within `arrival_radius` count as passed. A
/// velocity-only goal is matched directly. The request is meant for the car's
/// [`Vehicle::controls_for`](super::Vehicle::controls_for), which filters it and has the stall
/// fallback; it is not pre-filtered, so that a sideways request from rest still reaches that
/// fallback.
///
/// Limitation: the route is re-planned from the current state on every call, with no memory, so
/// a goal whose approach heading points back at the car (a U-turn) is met by driving through the
/// run-up point and then, for a car that can reverse, backing in; this is not a full manoeuvre
/// planner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarActuator {
    car: Car,
    cruise_speed: f32,
    arrival_radius: f32,
    time_to_target: f32,
    run_up: f32,
    heading_tolerance: f32,
}

/// Half-angle of the approach cone behind a goal with a heading.
const APPROACH_CONE: f32 = core::f32::consts::FRAC_PI_6; // 30°
/// Arc sampling step for loops (rad).
const ARC_STEP: f32 = 0.2;
/// Above this forward speed (m/s) the car actuator steers by pure pursuit.
const PURSUIT_SPEED: f32 = 0.5;

impl CarActuator {
    /// An actuator for `car` driving at `cruise_speed` (m/s) and stopping within
    /// `arrival_radius` (m) of its goal. Defaults: `time_to_target` 0.25 s, `run_up`
    /// `2·R_min(cruise_speed)`, `heading_tolerance` 0.1 rad.
    ///
    /// # Errors
    /// If `cruise_speed` or `arrival_radius` is not finite and positive.
    pub fn new(car: Car, cruise_speed: f32, arrival_radius: f32) -> Result<Self, ParamError> {
        positive("cruise_speed", cruise_speed)?;
        positive("arrival_radius", arrival_radius)?;
        Ok(CarActuator {
            car,
            cruise_speed,
            arrival_radius,
            time_to_target: 0.25,
            run_up: 2.0 * car.min_turn_radius(cruise_speed),
            heading_tolerance: 0.1,
        })
    }

    /// The same actuator with another run-up length (m).
    ///
    /// # Errors
    /// If it is not finite and positive.
    pub fn with_run_up(self, run_up: f32) -> Result<Self, ParamError> {
        Ok(CarActuator { run_up: positive("run_up", run_up)?, ..self })
    }

    /// The same actuator with another response time (s).
    ///
    /// # Errors
    /// If it is not finite and positive.
    pub fn with_time_to_target(self, time_to_target: f32) -> Result<Self, ParamError> {
        Ok(CarActuator { time_to_target: positive("time_to_target", time_to_target)?, ..self })
    }

    /// The same actuator with another heading tolerance (rad).
    ///
    /// # Errors
    /// If it is not finite and positive.
    pub fn with_heading_tolerance(self, tolerance: f32) -> Result<Self, ParamError> {
        Ok(CarActuator { heading_tolerance: positive("heading_tolerance", tolerance)?, ..self })
    }

    /// The car.
    #[must_use]
    pub fn car(&self) -> &Car {
        &self.car
    }

    /// Run-up length (m).
    #[must_use]
    pub fn run_up(&self) -> f32 {
        self.run_up
    }

    /// The channels the car can honour (see the type's rules).
    fn adopt(&self, goal: &Goal) -> Goal {
        let mut g = Goal { rotation: None, ..*goal };
        if let (Some(v), Some(o)) = (g.velocity, g.orientation) {
            if v != Vec2::ZERO && wrap_angle(orientation_of(v) - o).abs() > self.heading_tolerance {
                g.orientation = None;
            }
        }
        g
    }

    /// Appends the arc of radius `R_min(0)` that turns the car by `delta` (rad).
    fn arc(&self, character: &Kinematic, delta: f32, points: &mut Vec<Vec2>) {
        let r = self.car.min_turn_radius(0.0);
        let theta = character.orientation;
        let side = as_vector(theta).perp() * delta.signum();
        let centre = character.position + side * r;
        let steps = (delta.abs() / ARC_STEP).ceil().max(1.0) as usize;
        points.extend((0..=steps).map(|i| {
            let phi = delta * (i as f32 / steps as f32);
            // rotate the radius vector (p − c) by φ about the centre
            centre + Vec2::from_angle(phi).rotate(character.position - centre)
        }));
    }
}

impl Actuator<Vec2> for CarActuator {
    fn path_into(&self, character: &Kinematic, goal: &Goal, _limits: &Limits, plan: &mut Plan) {
        let g = self.adopt(goal);
        plan.goal = g;
        plan.points.clear();
        let points = &mut plan.points;
        let p = character.position;
        let h = as_vector(character.orientation);
        let approach =
            g.velocity.filter(|v| *v != Vec2::ZERO).map(orientation_of).or(g.orientation);
        match (g.position, approach, g.velocity) {
            (Some(target), Some(psi), _) => {
                let dir = as_vector(psi);
                let to_goal = target - p;
                let along = to_goal.dot(dir);
                let lateral = to_goal.perp_dot(dir).abs();
                let in_cone = along > 0.0 && lateral <= along * APPROACH_CONE.tan();
                if in_cone || to_goal.length() <= self.arrival_radius {
                    points.extend([p, target]);
                } else {
                    points.extend([p, target - dir * self.run_up, target]);
                }
            }
            (Some(target), None, _) => {
                let r = self.car.min_turn_radius(self.cruise_speed);
                let left = p + h.perp() * r;
                let right = p - h.perp() * r;
                let inside = (target - left).length() < r || (target - right).length() < r;
                if inside && (target - p).length() > self.arrival_radius {
                    points.extend([p, p + h * (2.0 * r), target]);
                } else {
                    points.extend([p, target]);
                }
            }
            (None, _, Some(v)) => points.extend([p, p + v]),
            (None, Some(psi), None) => {
                let delta = wrap_angle(psi - character.orientation);
                if delta.abs() <= self.heading_tolerance {
                    points.push(p);
                } else {
                    self.arc(character, delta, points);
                }
            }
            (None, None, None) => points.push(p),
        }
    }

    fn output(&self, character: &Kinematic, plan: &Plan, limits: &Limits) -> SteeringOutput {
        let p = character.position;
        let v = character.velocity;
        let h = as_vector(character.orientation);
        let s = v.dot(h);
        let max_a = limits.max_acceleration();
        let goal = &plan.goal;
        if goal.position.is_none() {
            if let Some(gv) = goal.velocity {
                let linear = VelocityMatch::acceleration(v, gv, self.time_to_target, limits);
                return sanitize(&SteeringOutput::linear(linear));
            }
        }
        let end_speed = match (goal.position, goal.velocity) {
            (Some(_), Some(gv)) => gv.length(),
            _ => 0.0,
        };
        // skip intermediate points already reached
        let mut i = 1;
        while i + 1 < plan.points.len() && (plan.points[i] - p).length() <= self.arrival_radius {
            i += 1;
        }
        let stop_here = match plan.points.get(i) {
            None => true,
            Some(&last) => {
                i + 1 == plan.points.len()
                    && goal.position.is_some()
                    && end_speed == 0.0
                    && (last - p).length() <= self.arrival_radius
            }
        };
        if stop_here {
            // nothing left to drive: brake to rest, then say nothing
            if v.length_squared() < 1e-8 {
                return SteeringOutput::ZERO;
            }
            let linear = (-v / self.time_to_target).clamp_length_max(max_a);
            return sanitize(&SteeringOutput::linear(linear));
        }
        let next = plan.points[i];
        let remaining = (next - p).length()
            + plan.points[i..].windows(2).map(|w| (w[1] - w[0]).length()).sum::<f32>();
        let brake = 0.5 * self.car.params().brake;
        let mut speed =
            self.cruise_speed.min((end_speed * end_speed + 2.0 * brake * remaining).sqrt());
        if end_speed == 0.0 {
            // the route's speed profile: its corners at the tracker's share of the grip
            let mut route = Vec::with_capacity(plan.points.len() - i + 1);
            route.push(p);
            route.extend_from_slice(&plan.points[i..]);
            if let Ok(route) = Polyline::open(route) {
                let tracker = PathTracker::new(&VehicleModel::Car(self.car), limits);
                speed = speed.min(tracker.speed_limit(&route, 0.0, s));
            }
        }
        let to_next = next - p;
        let beta = wrap_angle(orientation_of(to_next) - character.orientation);
        let linear = if s > PURSUIT_SPEED && beta.abs() < core::f32::consts::FRAC_PI_2 {
            // pure pursuit: the arc through `next` tangent to the heading has curvature
            // κ = 2·sin β / ℓ; a car follows it with lateral acceleration s²·κ
            // (the cap acts along the heading; the turn is limited by the car's grip)
            let kappa = 2.0 * beta.sin() / to_next.length();
            let a_long = ((speed - s) / self.time_to_target).clamp(-max_a, max_a);
            h * a_long + h.perp() * (s * s * kappa)
        } else {
            ((to_next.normalize_or_zero() * speed - v) / self.time_to_target)
                .clamp_length_max(max_a)
        };
        sanitize(&SteeringOutput::linear(linear))
    }
}
