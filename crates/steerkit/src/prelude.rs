//! The names most programs need, across domains: `use steerkit::prelude::*;`.
//!
//! The core types, the common behaviours, the combiners, the world types the avoidances query
//! and the crowd's main types. Every name here reads unambiguously beside the others; names
//! that need their module to make sense (`crowd::Group`, `crowd::Target`, `pipeline::Goal`,
//! `formation::Pattern`, ...), `math::Rng` (the `rand` and `proptest` preludes export an `Rng`
//! trait) and the specialised domains (`predict`, `jump`, `motor`, `formation`, `pipeline`,
//! `three_d`) stay in their modules.
//!
//! ```
//! use steerkit::geometry::Segment;
//! use steerkit::prelude::*;
//!
//! let limits = Limits::new(3.0, 6.0, 4.0, 20.0)?;
//! let agent = Kinematic::at_rest(Vec2::ZERO, 0.0);
//! let seek = Seek::new().steer(&agent, Vec2::new(5.0, 0.0), &limits);
//! let flee = Flee::new().steer(&agent, Vec2::new(-1.0, 0.0), &limits);
//! assert!(blend([(1.0, seek), (0.5, flee)], &limits).linear.x > 0.0);
//!
//! let wall = Segment::new(Vec2::new(2.0, -1.0), Vec2::new(2.0, 1.0));
//! let world = ObstacleSet::new([Obstacle::Wall(wall)])?;
//! assert!(world.first_hit(agent.position, Vec2::new(5.0, 0.0)).is_some());
//! # Ok::<(), ParamError>(())
//! ```

pub use crate::{ParamError, Quat, Vec2, Vec3};

pub use crate::math::Vector;

pub use crate::kinematic::{
    Kinematic, Kinematic3, Limits, Static, SteeringOutput, SteeringOutput3,
};

pub use crate::steering::{
    Align, Alignment, Arrive, Cohesion, CollisionAvoidance, Evade, Face, Falloff, Flee, FollowPath,
    Hide, Interpose, LookWhereYoureGoing, ObstacleAvoidance, OffsetPursuit, Pursue, Seek,
    Separation, Stateful, VelocityMatch, WallFeelers, Wander, WanderJitter,
};

pub use crate::combine::{blend, prioritize, running_sum, Epsilon};

pub use crate::geometry::{CollisionDetector, Obstacle, Obstacle3, ObstacleSet, ObstacleSet3};
pub use crate::neighbours::{Neighbour, Neighbours};
// In scope for its methods only: `Path` alone would read as `std::path::Path`.
pub use crate::path::Path as _;
pub use crate::path::Polyline;

pub use crate::crowd::{
    AgentHandle, AgentSpec, Crowd, Crowd2, Crowd3, CrowdConfig, CrowdError, CrowdEvent, Recipe,
};
