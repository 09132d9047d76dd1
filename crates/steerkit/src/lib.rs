//! steerkit: the movement layer of game AI.
#![warn(missing_docs)]

mod error;
mod kinematic;
pub mod math;
mod rng;

pub use error::ParamError;
pub use glam;
pub use glam::{Quat, Vec2, Vec3};
pub use kinematic::{
    Integration, Kinematic, Kinematic3, KinematicSteeringOutput, Limits, LocalFrame, Scheme,
    Static, Static3, SteeringOutput, SteeringOutput3,
};
pub use math::{as_vector, orientation_of, wrap_angle, Vector};
pub use rng::Rng;

mod geometry;
pub use geometry::{
    closest_point_on_segment, point_in_polygon, Aabb, Aabb3, Circle, Polygon, Ray, Ray3, RayHit,
    RayHit3, Segment, Sphere,
};

mod obstacle;
pub use obstacle::{
    ClosestObstacle, Collision, CollisionDetector, Obstacle, ObstacleId, ObstacleSet,
};

mod neighbours;
pub use neighbours::{BruteForceNeighbours, Neighbour, NeighbourQuery, Neighbours, ViewCone};

mod path;
pub use path::{Path, Polyline, Polyline3, WaypointCursor};
