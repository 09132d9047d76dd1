//! The PTSP ship: inertia, friction, thrust along its heading only and six discrete actions.

use steerkit::kinematic::{Kinematic, SteeringOutput};
use steerkit::motor::Vehicle;
use steerkit::Vec2;

/// The competition's fixed time step (s): one action every 40 ms.
pub const STEP: f32 = 0.04;

/// The turn part of an [`Action`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// Counter-clockwise by one turn step.
    Left,
    /// Keep the heading.
    Straight,
    /// Clockwise by one turn step.
    Right,
}

impl Turn {
    /// `+1` left, `0` straight, `−1` right.
    #[must_use]
    pub fn sign(self) -> f32 {
        match self {
            Turn::Left => 1.0,
            Turn::Straight => 0.0,
            Turn::Right => -1.0,
        }
    }
}

/// One of the six actions: thrust on or off × turn left, straight or right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    /// Engine on.
    pub thrust: bool,
    /// Turn.
    pub turn: Turn,
}

impl Action {
    /// Drift straight on: no thrust, no turn.
    pub const COAST: Action = Action { thrust: false, turn: Turn::Straight };

    /// The six actions, [`Action::COAST`] first.
    pub const ALL: [Action; 6] = [
        Action::COAST,
        Action { thrust: false, turn: Turn::Left },
        Action { thrust: false, turn: Turn::Right },
        Action { thrust: true, turn: Turn::Straight },
        Action { thrust: true, turn: Turn::Left },
        Action { thrust: true, turn: Turn::Right },
    ];

    /// A short name: `coast`, `left`, `right`, `thrust`, `thrust+left`, `thrust+right`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match (self.thrust, self.turn) {
            (false, Turn::Straight) => "coast",
            (false, Turn::Left) => "left",
            (false, Turn::Right) => "right",
            (true, Turn::Straight) => "thrust",
            (true, Turn::Left) => "thrust+left",
            (true, Turn::Right) => "thrust+right",
        }
    }
}

/// The ship's constants. Units: map pixels (px) and seconds.
///
/// Each 40 ms step, in this order:
/// ```text
/// θ' = θ + turn · turn_step                              (turn ∈ {−1, 0, +1}, rad)
/// v' = (v + thrust · acceleration · STEP · (cos θ', sin θ')) · friction     (px/s)
/// p' = p + v' · STEP                                     (px)
/// ```
/// then walls: if the disc of `radius` at `p'` overlaps a wall pixel the move is split by axis;
/// an axis whose move would overlap is not moved and its velocity becomes `−bounce` times
/// itself (a step with any such axis counts as one collision). With friction `f` per step the
/// top speed is `acceleration·STEP·f/(1 − f)` and the speed decays by `1 − f` per step when
/// drifting.
///
/// The defaults are this crate's choices, in the spirit of the 2012 competition's ship (thrust
/// along the heading, multiplicative friction each step, a fixed turn per step): 40 px/s²,
/// 0.1 rad per step (2.5 rad/s), friction 0.99 per step (top speed 158 px/s), radius 3 px,
/// bounce 0.25, waypoints visited within 5 px of their centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ship {
    /// Thrust acceleration along the heading (px/s²).
    pub acceleration: f32,
    /// Heading change of one turning step (rad).
    pub turn_step: f32,
    /// Velocity factor applied every step, in (0, 1].
    pub friction: f32,
    /// Body radius (px).
    pub radius: f32,
    /// Fraction of an axis's speed kept (reversed) when it hits a wall, in [0, 1].
    pub bounce: f32,
    /// A waypoint is visited when the ship's centre comes within this distance (px) of its
    /// centre, anywhere along the straight path of a step (see [`race`](crate::race)).
    pub visit_radius: f32,
}

impl Default for Ship {
    fn default() -> Self {
        Ship {
            acceleration: 40.0,
            turn_step: 0.1,
            friction: 0.99,
            radius: 3.0,
            bounce: 0.25,
            visit_radius: 5.0,
        }
    }
}

impl Ship {
    /// Top speed under full thrust (px/s).
    #[must_use]
    pub fn top_speed(&self) -> f32 {
        self.acceleration * STEP * self.friction / (1.0 - self.friction).max(1e-6)
    }

    /// Turn rate while turning (rad/s).
    #[must_use]
    pub fn turn_rate(&self) -> f32 {
        self.turn_step / STEP
    }

    /// One 40 ms step in open space (no walls): the heading, then the velocity, then the
    /// position.
    #[must_use]
    pub fn advance(&self, state: &Kinematic, action: Action) -> Kinematic {
        let orientation =
            steerkit::math::wrap_angle(state.orientation + action.turn.sign() * self.turn_step);
        let thrust = if action.thrust { self.acceleration * STEP } else { 0.0 };
        let velocity = (state.velocity + Vec2::from_angle(orientation) * thrust) * self.friction;
        Kinematic {
            position: state.position + velocity * STEP,
            orientation,
            velocity,
            rotation: action.turn.sign() * self.turn_rate(),
        }
    }

    /// One 40 ms step with the walls of `map`: [`Ship::advance`], then the collision response
    /// described on [`Ship`]. Returns the state and whether the ship hit a wall.
    #[must_use]
    pub fn step_in(
        &self,
        map: &crate::Map,
        state: &Kinematic,
        action: Action,
    ) -> (Kinematic, bool) {
        let mut next = self.advance(state, action);
        if !map.disc_hits_wall(next.position, self.radius) {
            return (next, false);
        }
        let mut at = state.position;
        let mut v = next.velocity;
        let moved_x = at + Vec2::new(v.x * STEP, 0.0);
        if map.disc_hits_wall(moved_x, self.radius) {
            v.x *= -self.bounce;
        } else {
            at = moved_x;
        }
        let moved_y = at + Vec2::new(0.0, v.y * STEP);
        if map.disc_hits_wall(moved_y, self.radius) {
            v.y *= -self.bounce;
        } else {
            at = moved_y;
        }
        next.position = at;
        next.velocity = v;
        (next, true)
    }
}

/// The ship as a steerkit [`Vehicle`]: its commands are the six actions, its filter keeps the
/// forward part of a request (it can only push along its heading) and its controls turn toward
/// the request and thrust when roughly facing it. The model steps in open space; walls are the
/// race's.
impl Vehicle for Ship {
    type Controls = Action;

    fn commands(&self) -> &[Action] {
        &Action::ALL
    }

    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        let heading = Vec2::from_angle(state.orientation);
        let forward = request.linear.dot(heading).clamp(0.0, self.acceleration);
        let turn = self.turn_rate() / STEP;
        SteeringOutput {
            linear: if forward.is_finite() { heading * forward } else { Vec2::ZERO },
            angular: if request.angular.is_finite() {
                request.angular.clamp(-turn, turn)
            } else {
                0.0
            },
        }
    }

    fn controls_for(&self, state: &Kinematic, request: &SteeringOutput, _dt: f32) -> Action {
        let heading = Vec2::from_angle(state.orientation);
        let a = request.linear;
        if !a.is_finite() || a.length_squared() < 1e-12 {
            return Action::COAST;
        }
        let off = heading.angle_to(a);
        let turn = if off > 0.5 * self.turn_step {
            Turn::Left
        } else if off < -0.5 * self.turn_step {
            Turn::Right
        } else {
            Turn::Straight
        };
        Action { thrust: off.abs() < core::f32::consts::FRAC_PI_4, turn }
    }

    /// Advances by `dt` rounded to whole 40 ms steps (at most 25 000, ten minutes); `dt` that
    /// is not finite and positive leaves the state alone.
    fn step(&self, state: &mut Kinematic, controls: &Action, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let steps = (dt / STEP).round().min(25_000.0) as u32;
        for _ in 0..steps {
            *state = self.advance(state, *controls);
        }
    }
}
