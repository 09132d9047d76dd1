//! A vehicle model chosen at run time, with the way it turns requests into controls: what a
//! crowd group or a scenario file drives its agents through.

use super::{
    Car, CarControls, DiscreteCar, DiscreteCarCommand, Human, HumanControls, Motorbike, Pedal,
    Tank, TankControls, Traffic, Turn, Vehicle,
};
use crate::kinematic::{sanitize, sanitize_dt, Kinematic, Limits, SteeringOutput};
use crate::math::as_vector;

/// One of the vehicle models.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum VehicleModel {
    /// A [`Car`] (kinematic bicycle).
    Car(Car),
    /// A [`Motorbike`] (a car that leans).
    Motorbike(Motorbike),
    /// A [`Tank`] (differential drive).
    Tank(Tank),
    /// A [`Human`] (slower backwards and sideways, turns on the spot).
    Human(Human),
    /// The lectures' [`DiscreteCar`] (3 pedals × 3 turns).
    Discrete(DiscreteCar),
}

/// How a [`Motor`] turns a steering request into its vehicle's controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DriveMethod {
    /// Output filtering (§3.8.1): [`Vehicle::controls_for`], the controls carrying out the part
    /// of the request the vehicle can perform, with the stall fallback.
    #[default]
    Filter,
    /// Capability-sensitive steering (§3.8.2): [`Vehicle::best_command`], every command of the
    /// vehicle's discrete set simulated for one step, the closest outcome kept.
    Search,
}

/// The controls a [`Motor`] used in a step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Controls {
    /// A car's or a motorbike's throttle and steering.
    Car(CarControls),
    /// A tank's track speeds.
    Tank(TankControls),
    /// A person's walking command.
    Human(HumanControls),
    /// The discrete car's pedal and turn.
    Discrete(DiscreteCarCommand),
}

impl Controls {
    /// The values as three numbers in [−1, 1], in the order a replay labels them: car
    /// (throttle, steer, 0), tank (left, right, 0), human (forward, strafe, turn), discrete car
    /// (pedal: +1 accelerate, 0 coast, −1 brake; turn: +1 left, 0 straight, −1 right; 0).
    #[must_use]
    pub fn values(&self) -> [f32; 3] {
        match *self {
            Controls::Car(c) => [c.throttle, c.steer, 0.0],
            Controls::Tank(c) => [c.left, c.right, 0.0],
            Controls::Human(c) => [c.forward, c.strafe, c.turn],
            Controls::Discrete(c) => {
                let pedal = match c.pedal {
                    Pedal::Accelerate => 1.0,
                    Pedal::Coast => 0.0,
                    Pedal::Brake => -1.0,
                };
                let turn = match c.turn {
                    Turn::Left => 1.0,
                    Turn::Straight => 0.0,
                    Turn::Right => -1.0,
                };
                [pedal, turn, 0.0]
            }
        }
    }
}

/// A vehicle model and how it is driven: the motor layer between a behaviour's request
/// (m/s², rad/s²) and the vehicle's own model, for one character per call.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Motor {
    /// The vehicle.
    pub model: VehicleModel,
    /// How requests become controls.
    pub method: DriveMethod,
    /// Racing in traffic: a passing lane and a following distance when the vehicle follows a
    /// path among others ([`Traffic`]); `None` keeps to the path whatever is ahead.
    pub traffic: Option<Traffic>,
}

impl Motor {
    /// A motor driving `model` with `method`.
    #[must_use]
    pub const fn new(model: VehicleModel, method: DriveMethod) -> Self {
        Motor { model, method, traffic: None }
    }

    /// The same motor with traffic rules for path following among other vehicles.
    #[must_use]
    pub const fn with_traffic(self, traffic: Traffic) -> Self {
        Motor { traffic: Some(traffic), ..self }
    }

    /// Chooses the controls for `request` over `dt` seconds and advances `state` under them with
    /// the vehicle's own model; returns the controls. The vehicle sets the orientation and
    /// rotation as well as the position and velocity (a car faces along its velocity, a person
    /// may face away from it). Total on finite input as [`Vehicle`] is: `dt = 0` leaves `state`
    /// unchanged.
    ///
    /// `previous` are the controls of this character's previous step, if any: a car or
    /// motorbike that cannot reverse, driven by filtering, uses them to turn round to a target
    /// behind it ([`Car::controls_after`]).
    pub fn drive(
        &self,
        state: &mut Kinematic,
        request: &SteeringOutput,
        dt: f32,
        previous: Option<Controls>,
    ) -> Controls {
        fn run<W: Vehicle>(
            w: &W,
            method: DriveMethod,
            state: &mut Kinematic,
            request: &SteeringOutput,
            dt: f32,
        ) -> W::Controls {
            let c = match method {
                DriveMethod::Filter => w.controls_for(state, request, dt),
                DriveMethod::Search => w.best_command(state, request, dt),
            };
            w.step(state, &c, dt);
            c
        }
        let m = self.method;
        let car = |c: &Car, state: &mut Kinematic| {
            let before = match previous {
                Some(Controls::Car(p)) => Some(p),
                _ => None,
            };
            let controls = c.controls_after(state, request, dt, before);
            c.step(state, &controls, dt);
            Controls::Car(controls)
        };
        match &self.model {
            VehicleModel::Car(w) if m == DriveMethod::Filter => car(w, state),
            VehicleModel::Motorbike(w) if m == DriveMethod::Filter => car(w.as_car(), state),
            VehicleModel::Car(w) => Controls::Car(run(w, m, state, request, dt)),
            VehicleModel::Motorbike(w) => Controls::Car(run(w, m, state, request, dt)),
            VehicleModel::Tank(w) => Controls::Tank(run(w, m, state, request, dt)),
            VehicleModel::Human(w) => Controls::Human(run(w, m, state, request, dt)),
            VehicleModel::Discrete(w) => Controls::Discrete(run(w, m, state, request, dt)),
        }
    }

    /// [`Motor::drive`] with a character's `limits` applied to the request first, as a crowd
    /// does. `max_acceleration` caps the part of the request **along the heading** (throttle
    /// and brake); the sideways part, which is how a vehicle turns (`a_lat = v²/R`), is left
    /// to the model's own limits (a car's grip and steering lock, a tank's tracks), so a group
    /// cap below the grip never makes a vehicle run wide. The angular part is clipped to
    /// `max_angular_acceleration`; then the request is reduced so the velocity asked for stays
    /// within the limits' speeds:
    ///
    /// ```text
    /// a_h = clamp(a·ĥ, ±max_acceleration),   a₁ = a_h·ĥ + (a·perp ĥ)·perp ĥ
    /// a' = (clip(v + a₁·dt, max_speed) − v) / dt,   α' = (clamp(ω + α·dt, ±max_rotation) − ω) / dt
    /// ```
    /// (m/s², rad/s²; α' = 0 when α = 0: a purely linear request stays linear). A behaviour such
    /// as seek always asks for full acceleration; without the cap a vehicle would run up to its
    /// own top speed whatever the character's limits say.
    pub fn drive_within(
        &self,
        state: &mut Kinematic,
        request: &SteeringOutput,
        limits: &Limits,
        dt: f32,
        previous: Option<Controls>,
    ) -> Controls {
        let a = sanitize(request).clamped(f32::INFINITY, limits.max_angular_acceleration());
        let h = as_vector(state.orientation);
        let along = a.linear.dot(h).clamp(-limits.max_acceleration(), limits.max_acceleration());
        let a = SteeringOutput { linear: h * along + h.perp() * a.linear.dot(h.perp()), ..a };
        let capped = if sanitize_dt(dt) > 0.0 {
            let v = (state.velocity + a.linear * dt).clamp_length_max(limits.max_speed());
            let max_w = limits.max_rotation();
            let w = (state.rotation + a.angular * dt).clamp(-max_w, max_w);
            // a purely linear request stays purely linear (how the vehicle turns is its own)
            let angular = if a.angular == 0.0 { 0.0 } else { (w - state.rotation) / dt };
            SteeringOutput { linear: (v - state.velocity) / dt, angular }
        } else {
            a
        };
        self.drive(state, &capped, dt, previous)
    }

    /// Output filtering only (§3.8.1): the part of `request` the vehicle can perform now.
    #[must_use]
    pub fn filter(&self, state: &Kinematic, request: &SteeringOutput) -> SteeringOutput {
        match &self.model {
            VehicleModel::Car(w) => w.filter(state, request),
            VehicleModel::Motorbike(w) => w.filter(state, request),
            VehicleModel::Tank(w) => w.filter(state, request),
            VehicleModel::Human(w) => w.filter(state, request),
            VehicleModel::Discrete(w) => w.filter(state, request),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinematic::Kinematic;
    use glam::Vec2;

    /// A request straight ahead drives every model forward; the controls say how. (The request
    /// is the full 6 m/s²: a one-step search compares a command's outcome with `v + a·dt`, and a
    /// request half a full-throttle step ties with doing nothing.)
    #[test]
    fn every_model_drives_forward_on_a_forward_request() {
        let models = [
            VehicleModel::Car(Car::default()),
            VehicleModel::Motorbike(Motorbike::default()),
            VehicleModel::Tank(Tank::default()),
            VehicleModel::Human(Human::default()),
            VehicleModel::Discrete(DiscreteCar::lectures()),
        ];
        for method in [DriveMethod::Filter, DriveMethod::Search] {
            for model in models {
                let motor = Motor::new(model, method);
                let mut s = Kinematic::default();
                let request = SteeringOutput { linear: Vec2::new(6.0, 0.0), angular: 0.0 };
                let mut last = None;
                for _ in 0..20 {
                    last = Some(motor.drive(&mut s, &request, 0.05, last));
                }
                assert!(s.position.x > 0.2, "{model:?} {method:?}: {:?}", s.position);
                assert!(s.position.y.abs() < 0.01, "{model:?} {method:?}: {:?}", s.position);
                let v = last.unwrap().values();
                assert!(v[0] > 0.0, "{model:?} {method:?}: forward control {v:?}");
                assert!(v.iter().all(|x| (-1.0..=1.0).contains(x)));
            }
        }
    }

    /// A car cannot move sideways: asked to at rest, its filtered request has no lateral part,
    /// while a person's keeps what a sidestep can do.
    #[test]
    fn filtering_keeps_what_the_model_can_do() {
        let side = SteeringOutput { linear: Vec2::new(0.0, 5.0), angular: 0.0 };
        let rest = Kinematic::default();
        let car = Motor::new(VehicleModel::Car(Car::default()), DriveMethod::Filter);
        assert!(car.filter(&rest, &side).linear.y.abs() < 1e-6);
        let human = Motor::new(VehicleModel::Human(Human::default()), DriveMethod::Filter);
        assert!(human.filter(&rest, &side).linear.y > 1.0);
    }
}
