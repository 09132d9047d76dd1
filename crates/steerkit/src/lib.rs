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

mod predict;
pub use predict::{
    aim_at_moving_target, closest_approach, direction_from_elevation, distance_to_target,
    firing_solution, firing_solutions, landing_point, predict_landing, react_to_grenade,
    refine_targeting, time_to_height, trajectory_position, trajectory_velocity, AimError, Arc,
    Catcher, ClosestApproach, FiringSolution, ForwardModel, Grenade, Interception, Landing,
    LandingError, LandingOptions, LinearDrag, Miss, MovingTargetOptions, NoDrag, QuadraticDrag,
    Reaction, TargetingOptions, TargetingSolution,
};

mod jump;
pub use jump::{
    jump_times, jump_velocity, next_jump_link, pair_landing_pads, HoleFiller, Jump, JumpAction,
    JumpCapability, JumpDetector, JumpError, JumpLink, JumpPair, JumpPoint, JumpSolution,
    JumpState, TakeoffConditions, TakeoffRule,
};
