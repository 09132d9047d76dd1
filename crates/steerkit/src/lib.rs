//! steerkit: the movement layer of game AI.
//!
//! Steering behaviours return [`SteeringOutput`]s of **accelerations** (m/s², rad/s²) for a
//! [`Kinematic`] character with [`Limits`]; the caller integrates them with an explicit `dt`:
//!
//! ```
//! use steerkit::{Arrive, Kinematic, Limits, Vec2};
//! let limits = Limits::new(5.0, 10.0, 4.0, 20.0)?;
//! let arrive = Arrive::new(0.25, 3.0, 0.1)?;
//! let mut agent = Kinematic::at_rest(Vec2::ZERO, 0.0);
//! for _ in 0..600 {
//!     let s = arrive.steer(&agent, Vec2::new(10.0, 4.0), &limits).unwrap_or_default();
//!     agent.integrate(&s, &limits, 1.0 / 60.0);
//! }
//! assert!((agent.position - Vec2::new(10.0, 4.0)).length() < 0.25);
//! # Ok::<(), steerkit::ParamError>(())
//! ```
//!
//! Conventions (see `ARCHITECTURE.md`): SI units; 2D in the x–y plane with angles
//! counter-clockwise from +x; 3D y-up with characters looking down local +x; no global random
//! generator or clock.
#![warn(missing_docs)]

mod combine;
mod error;
mod kinematic;
pub mod math;
mod rng;
mod steering;

pub use combine::{
    blend, blend_observed, dither, prioritize, prioritize_by, prioritize_observed,
    prioritize_variable, running_sum, running_sum_observed, Epsilon,
};
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
    closest_approach, Align, Alignment, Approach, Arrive, Chase, Cohesion, CollisionAvoidance,
    ConeCheck, Deceleration, Estimate, Evade, Face, Falloff, Flee, FollowPath, Gather, Interpose,
    KinematicArrive, KinematicFlee, KinematicSeek, KinematicWander, LookWhereYoureGoing,
    OffsetPursuit, Prediction, Pursue, Seek, SeekMode, Separation, Stateful, Stop, VelocityMatch,
    Wander, WanderJitter, WorldWander,
};

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

mod geometry;
pub use geometry::{
    closest_point_on_segment, point_in_polygon, Aabb, Circle, Polygon, Ray, Ray3, RayHit, RayHit3,
    Segment, Sphere,
};

mod obstacle;
pub use obstacle::{
    ClosestObstacle, Collision, CollisionDetector, Obstacle, ObstacleId, ObstacleSet,
};

mod three_d;
pub use three_d::{
    align_to_vector, fake_orientation, shortest_rotation, Align3, Face3, FakeRotation,
    LookWhereYoureGoing3, Wander3,
};

mod neighbours;
pub use neighbours::{BruteForceNeighbours, Neighbour, NeighbourQuery, Neighbours, ViewCone};

mod path;
pub use path::{Path, Polyline, Polyline3, WaypointCursor};

mod predict;
pub use predict::{
    aim_at_moving_target, direction_from_elevation, distance_to_target, firing_solution,
    firing_solutions, landing_point, predict_landing, react_to_grenade, refine_targeting,
    time_to_height, trajectory_closest_approach, trajectory_position, trajectory_velocity,
    AimError, BallisticArc, Catcher, ClosestApproach, FiringSolution, ForwardModel, Grenade,
    Interception, Landing, LandingError, LandingOptions, LinearDrag, Miss, MovingTargetOptions,
    NoDrag, QuadraticDrag, Reaction, TargetingOptions, TargetingSolution,
};

mod jump;
pub use jump::{
    jump_times, jump_velocity, next_jump_link, pair_landing_pads, HoleFiller, Jump, JumpAction,
    JumpCapability, JumpDetector, JumpError, JumpLink, JumpPair, JumpPoint, JumpSolution,
    JumpState, TakeoffConditions, TakeoffRule,
};

mod motor;
pub use motor::{
    choose_command, command_cost, desired_velocity, rescaled, turn_direction, Body, Car,
    CarActuator, CarControls, CarParams, DiscreteCar, DiscreteCarCommand, Human, HumanControls,
    HumanParams, Impulse, Motorbike, MotorbikeParams, Pedal, Tank, TankControls, TankParams, Turn,
    Vehicle, Wrench, REST_SPEED, STANDARD_GRAVITY,
};

// Behaviours that see the world: obstacle and wall avoidance, hide, Green's path techniques,
// pilot metrics.
mod pilot;
pub use pilot::{is_crowded, Pilot, PilotEvent};
pub use steering::{
    AdaptiveFan, AvoidTarget, AvoidanceState, BoxThreat, DetectionBox, DogOnAString,
    GrapplingHooks, Hide, ObstacleAvoidance, RayLayout, RepelObstacle, Reprojection, WallFeelers,
    MAX_FAN_RAYS,
};

// Coordinated movement: formations, slot assignment, plays, tactical movement
mod formation;
pub use formation::{
    ease_of_assignment, slot_allowed, AnchorMode, AssignmentMethod, AssignmentOutcome,
    BoundingOverwatch, CostMatrix, CoverSlots, EmergentFormation, FixedPattern, Follow,
    FormationManager, FormationPattern, MemberId, Moderation, Pattern, Play, RoleCosts,
    ScalablePattern, Shape, SlotAssigner, SlotRole, SlotSteering, SlotTarget, Team, Transition,
    DRIFT_ORIENTATION_EPSILON,
};

// Combining behaviours: the steering pipeline, flocking presets and Green's layering
mod pipeline;
pub use pipeline::{
    AStar, Actuator, AvoidObstacle, ChaseTargeter, Constraint, Deadlock, Decomposer, FromFn, Goal,
    Graph, GridGraph, HeadFor, PipelineReport, Plan, PlanningDecomposer, SteeringPipeline,
    Targeter, WallConstraint, WaypointGraph,
};
pub use steering::{BucklandFlock, FlockWeights, MillingtonFlock, Neighbourhood};
mod layering;
pub use layering::{clip_to_walls, Layering, WALL_SKIN};

// crowd engine
mod crowd;
pub use crowd::{
    AgentContext, AgentDebug, AgentHandle, AgentSpec, BehaviourId, Crowd, Crowd2, Crowd3,
    CrowdConfig, CrowdError, CrowdEvent, CrowdVector, CustomBehaviour, GridNeighbours, Group,
    GroupId, KindInfo, PathId, Recipe, RecipeKind, Stuck, Target, WorldBounds,
};
// crowd recipes: formations run by the crowd
pub use crowd::FormationId;
