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
pub use math::{as_vector, new_orientation, orientation_of, wrap_angle, Vector};
pub use rng::Rng;
pub use steering::{
    Align, Approach, Arrive, Chase, Deceleration, Estimate, Evade, Face, Flee, Interpose,
    KinematicArrive, KinematicFlee, KinematicSeek, KinematicWander, LookWhereYoureGoing,
    OffsetPursuit, Prediction, Pursue, Seek, SeekMode, Stop, VelocityMatch, Wander, WanderJitter,
};
