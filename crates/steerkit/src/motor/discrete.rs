//! The lectures' abstract car with a 3×3 command set (accelerate / nothing / brake × turn left /
//! nothing / right).

use super::{advance_arc, choose_command, forward_speed, Vehicle, REST_SPEED};
use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{sanitize, sanitize_dt};
use crate::kinematic::{Kinematic, SteeringOutput};
use crate::math::{as_vector, orientation_of, wrap_angle};
use glam::Vec2;

/// The pedal of a [`DiscreteCar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Pedal {
    /// Accelerate forward at `forward_acceleration`.
    Accelerate,
    /// Nothing: keep the speed.
    Coast,
    /// Accelerate backward at `backward_acceleration` (brakes, then reverses).
    Brake,
}

/// The steering of a [`DiscreteCar`]: an angular acceleration of `±angular_acceleration` or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Turn {
    /// Counter-clockwise (+).
    Left,
    /// No angular acceleration.
    Straight,
    /// Clockwise (−).
    Right,
}

/// One command of a [`DiscreteCar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DiscreteCarCommand {
    /// Pedal.
    pub pedal: Pedal,
    /// Steering.
    pub turn: Turn,
}

const PEDALS: [Pedal; 3] = [Pedal::Coast, Pedal::Accelerate, Pedal::Brake];
const TURNS: [Turn; 3] = [Turn::Straight, Turn::Left, Turn::Right];

const DISCRETE_COMMANDS: [DiscreteCarCommand; 9] = {
    let mut out = [DiscreteCarCommand { pedal: Pedal::Coast, turn: Turn::Straight }; 9];
    let mut i = 0;
    while i < 9 {
        out[i] = DiscreteCarCommand { pedal: PEDALS[i / 3], turn: TURNS[i % 3] };
        i += 1;
    }
    out
};

/// The lectures' car (steering on vehicles, output filtering exercise): a vehicle that moves only
/// along its facing, with three pedal values and three turn values.
///
/// ```text
/// pedal:  a = +forward_acceleration | 0 | −backward_acceleration   (m/s², along the heading)
/// turn:   α = +angular_acceleration | 0 | −angular_acceleration    (rad/s², counter-clockwise +)
/// s' = clamp(s + a·dt, −max_reverse_speed, max_speed)
/// ω' = clamp(ω + α·dt, ±max_rotation)     (ω' = 0 while stationary: a car cannot turn at rest)
/// θ' = θ + ½(ω + ω')·dt,   p' = p + arc of length ½(s + s')·dt,   v' = s'·(cos θ', sin θ')
/// ```
/// The exercise's car is [`DiscreteCar::lectures`]: 5 m/s² forward, 2 m/s² backward,
/// 1 rad/s² either way. Use [`Car`](super::Car) for a steering-wheel model.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DiscreteCar {
    forward_acceleration: f32,
    backward_acceleration: f32,
    angular_acceleration: f32,
    max_speed: f32,
    max_reverse_speed: f32,
    max_rotation: f32,
}

impl DiscreteCar {
    /// A car with the given accelerations (m/s², m/s², rad/s²) and no speed limits.
    ///
    /// # Errors
    /// If an acceleration is negative or not finite.
    pub fn new(
        forward_acceleration: f32,
        backward_acceleration: f32,
        angular_acceleration: f32,
    ) -> Result<Self, ParamError> {
        Ok(DiscreteCar {
            forward_acceleration: non_negative("forward_acceleration", forward_acceleration)?,
            backward_acceleration: non_negative("backward_acceleration", backward_acceleration)?,
            angular_acceleration: non_negative("angular_acceleration", angular_acceleration)?,
            max_speed: f32::MAX,
            max_reverse_speed: f32::MAX,
            max_rotation: f32::MAX,
        })
    }

    /// The exercise's car: forward 5 m/s², backward 2 m/s², turning 1 rad/s²; top speed
    /// 50 m/s, reverse 10 m/s, rotation 2 rad/s.
    #[must_use]
    pub fn lectures() -> Self {
        DiscreteCar {
            forward_acceleration: 5.0,
            backward_acceleration: 2.0,
            angular_acceleration: 1.0,
            max_speed: 50.0,
            max_reverse_speed: 10.0,
            max_rotation: 2.0,
        }
    }

    /// The same car with speed limits (m/s, m/s, rad/s).
    ///
    /// # Errors
    /// If `max_speed` or `max_rotation` is not positive, or `max_reverse_speed` negative, or any
    /// is not finite.
    pub fn with_limits(
        self,
        max_speed: f32,
        max_reverse_speed: f32,
        max_rotation: f32,
    ) -> Result<Self, ParamError> {
        Ok(DiscreteCar {
            max_speed: positive("max_speed", max_speed)?,
            max_reverse_speed: non_negative("max_reverse_speed", max_reverse_speed)?,
            max_rotation: positive("max_rotation", max_rotation)?,
            ..self
        })
    }

    /// Top speed forward (m/s).
    #[must_use]
    pub fn max_speed(&self) -> f32 {
        self.max_speed
    }

    /// Fastest turn (rad/s).
    #[must_use]
    pub fn max_rotation(&self) -> f32 {
        self.max_rotation
    }

    /// The linear acceleration (m/s², along the heading) of a pedal.
    #[must_use]
    pub fn pedal_acceleration(&self, pedal: Pedal) -> f32 {
        match pedal {
            Pedal::Accelerate => self.forward_acceleration,
            Pedal::Coast => 0.0,
            Pedal::Brake => -self.backward_acceleration,
        }
    }

    /// The angular acceleration (rad/s²) of a turn.
    #[must_use]
    pub fn turn_acceleration(&self, turn: Turn) -> f32 {
        match turn {
            Turn::Left => self.angular_acceleration,
            Turn::Straight => 0.0,
            Turn::Right => -self.angular_acceleration,
        }
    }

    /// The pedal whose acceleration is nearest to `a` (m/s²); ties go to coasting, then
    /// accelerating.
    #[must_use]
    pub fn nearest_pedal(&self, a: f32) -> Pedal {
        choose_command(&PEDALS, |p| (self.pedal_acceleration(*p) - a).abs())
            .map_or(Pedal::Coast, |(p, _)| p)
    }
}

impl Vehicle for DiscreteCar {
    type Controls = DiscreteCarCommand;

    /// The 3×3 set, `(Coast, Straight)` first, then pedals Coast, Accelerate, Brake each with
    /// turns Straight, Left, Right.
    fn commands(&self) -> &[DiscreteCarCommand] {
        &DISCRETE_COMMANDS
    }

    /// `linear = clamp(a·ĥ, −backward, forward)·ĥ` (the lateral part dropped);
    /// `angular = clamp(α, ±angular_acceleration)` while moving, 0 at rest.
    fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        let r = sanitize(request);
        let h = as_vector(state.orientation);
        let along = r.linear.dot(h).clamp(-self.backward_acceleration, self.forward_acceleration);
        let angular = if forward_speed(state).abs() > REST_SPEED {
            r.angular.clamp(-self.angular_acceleration, self.angular_acceleration)
        } else {
            0.0
        };
        sanitize(&SteeringOutput { linear: h * along, angular })
    }

    /// The lectures' output filtering, channel by channel:
    ///
    /// - pedal: the one whose acceleration is nearest to the projection `a·ĥ`
    ///   (the exercise: `a·ĥ = −6.364`, choices −2, 0, 5 → brake);
    /// - turn: with an angular request, the nearest of `−α_max, 0, α_max`; otherwise "try every
    ///   turn": the one whose heading after the step is closest to the direction of the linear
    ///   request (a zero request keeps straight).
    fn controls_for(
        &self,
        state: &Kinematic,
        request: &SteeringOutput,
        dt: f32,
    ) -> DiscreteCarCommand {
        let r = sanitize(request);
        let dt = sanitize_dt(dt);
        let h = as_vector(state.orientation);
        let pedal = self.nearest_pedal(r.linear.dot(h));
        let turn = if r.angular != 0.0 {
            choose_command(&TURNS, |t| (self.turn_acceleration(*t) - r.angular).abs())
                .map_or(Turn::Straight, |(t, _)| t)
        } else if r.linear == Vec2::ZERO {
            Turn::Straight
        } else {
            let wanted = orientation_of(r.linear);
            choose_command(&TURNS, |t| {
                let next = self.simulate(state, &DiscreteCarCommand { pedal, turn: *t }, dt);
                wrap_angle(wanted - next.orientation).abs()
            })
            .map_or(Turn::Straight, |(t, _)| t)
        };
        DiscreteCarCommand { pedal, turn }
    }

    fn step(&self, state: &mut Kinematic, controls: &DiscreteCarCommand, dt: f32) {
        let dt = sanitize_dt(dt);
        if dt == 0.0 {
            return;
        }
        let s0 = forward_speed(state).clamp(-self.max_reverse_speed, self.max_speed);
        let s1 = (s0 + self.pedal_acceleration(controls.pedal) * dt)
            .clamp(-self.max_reverse_speed, self.max_speed);
        let moving = s0.abs() > REST_SPEED || s1.abs() > REST_SPEED;
        let (w0, w1) = if moving {
            let w0 = state.rotation.clamp(-self.max_rotation, self.max_rotation);
            let w1 = (w0 + self.turn_acceleration(controls.turn) * dt)
                .clamp(-self.max_rotation, self.max_rotation);
            (w0, w1)
        } else {
            (0.0, 0.0)
        };
        let turn = 0.5 * (w0 + w1) * dt;
        state.position = advance_arc(state.position, state.orientation, 0.5 * (s0 + s1) * dt, turn);
        state.orientation = wrap_angle(state.orientation + turn);
        state.velocity = as_vector(state.orientation) * s1;
        state.rotation = w1;
    }
}
