//! steerkit: the movement layer of game AI.
#![warn(missing_docs)]

mod error;
mod kinematic;
pub mod math;
mod rng;
mod steering;

pub use error::ParamError;
pub use glam;
pub use glam::{Quat, Vec2, Vec3};
pub use kinematic::{
    Integration, Kinematic, Kinematic3, KinematicSteeringOutput, Limits, LocalFrame, Scheme,
    Static, Static3, SteeringOutput, SteeringOutput3,
};
pub use math::{as_vector, orientation_of, wrap_angle, Vector};
pub use rng::Rng;
pub use steering::{
    Align, Approach, Arrive, Deceleration, Face, Flee, LookWhereYoureGoing, Seek, SeekMode, Stop,
    VelocityMatch,
};

mod three_d;
pub use three_d::{
    align_to_vector, fake_orientation, shortest_rotation, Align3, Face3, FakeRotation,
    LookWhereYoureGoing3, Wander3,
};
