//! `vehicle = { model = ..., ... }`: a group driven through one of the library's vehicle models.

use super::values::{applicable, join, lib, one_of, positive, present, problem, Present};
use super::Result;
use crate::model::VehiclePlan;
use crate::spec::VehicleSpec;
use steerkit::motor::{
    Car, CarParams, DiscreteCar, DriveMethod, Human, HumanParams, Motor, Motorbike,
    MotorbikeParams, Tank, TankParams, Traffic, VehicleModel,
};

/// Each model's own fields besides `model`, `drive`, `length` and `width`.
const CAR: &[&str] = &[
    "wheelbase",
    "max_steer",
    "max_speed",
    "max_reverse_speed",
    "acceleration",
    "brake",
    "reverse_acceleration",
    "max_lateral_acceleration",
];
const MOTORBIKE: &[&str] =
    &["wheelbase", "max_steer", "max_speed", "acceleration", "brake", "max_lean"];
const TANK: &[&str] = &["track_width", "max_track_speed", "track_acceleration"];
const HUMAN: &[&str] = &[
    "max_forward_speed",
    "max_backward_speed",
    "max_sideways_speed",
    "max_acceleration",
    "max_turn_rate",
];
const DISCRETE: &[&str] = &[
    "forward_acceleration",
    "backward_acceleration",
    "angular_acceleration",
    "max_speed",
    "max_reverse_speed",
    "max_rotation",
];

/// Checks a group's `vehicle` table (2D groups only; `dims` is the scenario's).
pub(crate) fn vehicle(path: &str, v: &VehicleSpec, dims: usize) -> Result<VehiclePlan> {
    if dims != 2 {
        return Err(problem(
            path,
            "the vehicle models are planar (x–y): a `vehicle` only in 2D scenarios",
        ));
    }
    let model_path = join(path, "model");
    let own = match v.model.as_str() {
        "car" => CAR,
        "motorbike" => MOTORBIKE,
        "tank" => TANK,
        "human" => HUMAN,
        "discrete_car" => DISCRETE,
        other => {
            return Err(problem(
                model_path,
                format!(
                    "unknown model `{other}`; expected one of `car`, `motorbike`, `tank`, \
                     `human`, `discrete_car`"
                ),
            ))
        }
    };
    let present = present!(v;
        nums: length, width, wheelbase, max_steer, max_speed, max_reverse_speed, acceleration,
            brake, reverse_acceleration, max_lateral_acceleration, max_lean, track_width,
            max_track_speed, track_acceleration, max_forward_speed, max_backward_speed,
            max_sideways_speed, max_acceleration, max_turn_rate, forward_acceleration,
            backward_acceleration, angular_acceleration, max_rotation, passing_lane, headway;
        xys: ;
        others: drive = "drive");
    let mut allowed = vec!["drive", "length", "width"];
    allowed.extend_from_slice(own);
    // a person on foot keeps the rabbit on a path, so no racing rules
    if v.model != "human" {
        allowed.extend_from_slice(&["passing_lane", "headway"]);
    }
    applicable(path, "vehicle model", &v.model, &present, &allowed)?;
    let method = one_of(
        &join(path, "drive"),
        v.drive.as_deref().unwrap_or("filter"),
        &[("filter", DriveMethod::Filter), ("search", DriveMethod::Search)],
    )?;
    let err = |e: &steerkit::ParamError| lib(path, own, e);
    let (model, length, width) = match v.model.as_str() {
        "car" => {
            let d = CarParams::default();
            let p = CarParams {
                wheelbase: v.wheelbase.unwrap_or(d.wheelbase),
                max_steer: v.max_steer.unwrap_or(d.max_steer),
                max_speed: v.max_speed.unwrap_or(d.max_speed),
                max_reverse_speed: v.max_reverse_speed.unwrap_or(d.max_reverse_speed),
                acceleration: v.acceleration.unwrap_or(d.acceleration),
                brake: v.brake.unwrap_or(d.brake),
                reverse_acceleration: v.reverse_acceleration.unwrap_or(d.reverse_acceleration),
                max_lateral_acceleration: v
                    .max_lateral_acceleration
                    .unwrap_or(d.max_lateral_acceleration),
            };
            (VehicleModel::Car(Car::new(p).map_err(|e| err(&e))?), 1.7 * p.wheelbase, 1.8)
        }
        "motorbike" => {
            let d = MotorbikeParams::default();
            let p = MotorbikeParams {
                wheelbase: v.wheelbase.unwrap_or(d.wheelbase),
                max_steer: v.max_steer.unwrap_or(d.max_steer),
                max_speed: v.max_speed.unwrap_or(d.max_speed),
                acceleration: v.acceleration.unwrap_or(d.acceleration),
                brake: v.brake.unwrap_or(d.brake),
                max_lean: v.max_lean.unwrap_or(d.max_lean),
            };
            let bike = Motorbike::new(p).map_err(|e| err(&e))?;
            (VehicleModel::Motorbike(bike), 1.5 * p.wheelbase, 0.8)
        }
        "tank" => {
            let d = TankParams::default();
            let p = TankParams {
                track_width: v.track_width.unwrap_or(d.track_width),
                max_track_speed: v.max_track_speed.unwrap_or(d.max_track_speed),
                track_acceleration: v.track_acceleration.unwrap_or(d.track_acceleration),
            };
            let tank = Tank::new(p).map_err(|e| err(&e))?;
            (VehicleModel::Tank(tank), 2.2 * p.track_width, 1.25 * p.track_width)
        }
        "human" => {
            let d = HumanParams::default();
            let p = HumanParams {
                max_forward_speed: v.max_forward_speed.unwrap_or(d.max_forward_speed),
                max_backward_speed: v.max_backward_speed.unwrap_or(d.max_backward_speed),
                max_sideways_speed: v.max_sideways_speed.unwrap_or(d.max_sideways_speed),
                max_acceleration: v.max_acceleration.unwrap_or(d.max_acceleration),
                max_turn_rate: v.max_turn_rate.unwrap_or(d.max_turn_rate),
            };
            (VehicleModel::Human(Human::new(p).map_err(|e| err(&e))?), 0.3, 0.5)
        }
        _ => {
            // defaults: the lectures' car (`DiscreteCar::lectures`)
            let car = DiscreteCar::new(
                v.forward_acceleration.unwrap_or(5.0),
                v.backward_acceleration.unwrap_or(2.0),
                v.angular_acceleration.unwrap_or(1.0),
            )
            .and_then(|c| {
                c.with_limits(
                    v.max_speed.unwrap_or(50.0),
                    v.max_reverse_speed.unwrap_or(10.0),
                    v.max_rotation.unwrap_or(2.0),
                )
            })
            .map_err(|e| err(&e))?;
            (VehicleModel::Discrete(car), 4.0, 1.8)
        }
    };
    let (length, width) = body(path, v, length, width)?;
    let motor = Motor::new(model, method);
    let motor = traffic(path, v)?.map_or(motor, |t| motor.with_traffic(t));
    Ok(VehiclePlan { motor, length, width })
}

/// The drawn body's `length` and `width` (m), the model's own unless the file gives them.
fn body(path: &str, v: &VehicleSpec, length: f32, width: f32) -> Result<(f32, f32)> {
    let length = match v.length {
        Some(l) => positive(&join(path, "length"), l)?,
        None => length,
    };
    let width = match v.width {
        Some(w) => positive(&join(path, "width"), w)?,
        None => width,
    };
    Ok((length, width))
}

/// `passing_lane` (m) and `headway` (s, default 1): racing in traffic, with 1 m of clearance
/// between bodies; `None` without a passing lane.
fn traffic(path: &str, v: &VehicleSpec) -> Result<Option<Traffic>> {
    match (v.passing_lane, v.headway) {
        (Some(lane), headway) => {
            let lane = positive(&join(path, "passing_lane"), lane)?;
            let headway = positive(&join(path, "headway"), headway.unwrap_or(1.0))?;
            Traffic::new(lane, headway, 1.0)
                .map(Some)
                .map_err(|e| lib(path, &["passing_lane", "headway"], &e))
        }
        (None, Some(_)) => Err(problem(
            join(path, "headway"),
            "`headway` is the following time of racing in traffic; it needs `passing_lane`",
        )),
        (None, None) => Ok(None),
    }
}
