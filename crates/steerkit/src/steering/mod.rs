//! Steering behaviours (Millington §3.2–3.3, Green, Buckland): each returns accelerations in an
//! optional [`SteeringOutput`](crate::SteeringOutput) (kinematic movement returns velocities).

mod align;
mod avoid;
mod follow;
mod group;
mod hide;
mod kinematic_movement;
mod path_techniques;
mod pursue;
mod seek;
mod wander;

pub use align::{Align, Face, LookWhereYoureGoing};
pub use avoid::{
    AdaptiveFan, AvoidTarget, BoxThreat, DetectionBox, ObstacleAvoidance, RayLayout, RepelObstacle,
    WallFeelers, MAX_FAN_RAYS,
};
pub use follow::FollowPath;
pub(crate) use group::SeparationSum;
pub use group::{
    closest_approach, Alignment, Cohesion, CollisionAvoidance, ConeCheck, Falloff, Gather,
    Separation,
};
pub use hide::Hide;
pub use kinematic_movement::{KinematicArrive, KinematicFlee, KinematicSeek, KinematicWander};
pub use path_techniques::{DogOnAString, GrapplingHooks, Reprojection};
pub use pursue::{Chase, Estimate, Evade, Interpose, OffsetPursuit, Prediction, Pursue};
pub use seek::{Approach, Arrive, Deceleration, Flee, Seek, SeekMode, Stop, VelocityMatch};
pub use wander::{Wander, WanderJitter};
