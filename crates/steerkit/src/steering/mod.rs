//! Steering behaviours (Millington §3.2–3.3, Green, Buckland): each returns accelerations in an
//! optional [`SteeringOutput`](crate::kinematic::SteeringOutput) (kinematic movement returns
//! velocities). Linear behaviours are generic over `Vec2` and `Vec3`; the 3D forms of the
//! angular ones are in [`three_d`](crate::three_d), the combiners in
//! [`combine`](crate::combine).
//!
//! - **Seek and arrive** (§3.3.3–3.3.6): [`Seek`], [`Flee`] (both shaped by [`SeekMode`]),
//!   [`Arrive`] (its ramp [`Approach`], Buckland's [`Deceleration`], what it does inside its
//!   radius [`Stop`]), [`VelocityMatch`].
//! - **Kinematic movement** (§3.2), which sets velocities: [`KinematicSeek`], [`KinematicFlee`],
//!   [`KinematicArrive`], [`KinematicWander`].
//! - **Facing** (§3.3.5, §3.3.9–3.3.10): [`Align`], [`Face`], [`LookWhereYoureGoing`].
//! - **Moving targets** (§3.3.8): [`Pursue`] and [`Evade`] with a look-ahead [`Prediction`]
//!   ([`Estimate`]) and what the pursuer does with it ([`Chase`]); [`OffsetPursuit`],
//!   [`Interpose`].
//! - **Wander** (§3.3.11): [`Wander`], Buckland's [`WanderJitter`], [`WorldWander`].
//! - **Groups** (§3.3.13–3.3.14): [`Separation`] ([`Falloff`], [`Gather`]), [`Cohesion`],
//!   [`Alignment`], [`CollisionAvoidance`] with the exact [`closest_approach`], and the naive
//!   [`ConeCheck`]. Flocking presets (§3.4.2, Buckland): [`MillingtonFlock`], [`BucklandFlock`],
//!   with [`FlockWeights`] and a [`Neighbourhood`].
//! - **Obstacles and walls** (§3.3.15, Buckland, Green): [`ObstacleAvoidance`] (its rays
//!   [`RayLayout`], [`AdaptiveFan`], [`AvoidTarget`], per-character [`AvoidanceState`]),
//!   Buckland's [`DetectionBox`] ([`BoxThreat`]) and [`WallFeelers`], Green's
//!   [`RepelObstacle`]; [`Hide`] behind obstacles.
//! - **Paths** (§3.3.12, Green): [`FollowPath`]; Green's [`DogOnAString`], [`Reprojection`] and
//!   [`GrapplingHooks`]; his [`Pilot`] metrics ([`PilotEvent`], [`is_crowded`]).
//! - **Per-character state**: [`Stateful`], the one convention for behaviours with memory.

/// [`Stateful`] for a path behaviour whose state is its path parameter (m of arc length) in a
/// field `param`; a non-finite parameter restarts at 0. With `nan_searches`, NaN is kept: the
/// next call searches the whole path for the nearest point (a follower not yet placed on it).
macro_rules! path_parameter_state {
    ($behaviour:ty, $doc:literal) => {
        path_parameter_state!($behaviour, $doc, |p: f32| if p.is_finite() { p } else { 0.0 });
    };
    (nan_searches $behaviour:ty, $doc:literal) => {
        path_parameter_state!($behaviour, $doc, |p: f32| if p.is_infinite() { 0.0 } else { p });
    };
    ($behaviour:ty, $doc:literal, $accept:expr) => {
        #[doc = $doc]
        impl $crate::steering::Stateful for $behaviour {
            type State = f32;

            fn state(&self) -> f32 {
                self.param
            }

            fn with_state(mut self, param: f32) -> Self {
                self.param = ($accept)(param);
                self
            }
        }
    };
}

mod align;
mod avoid;
mod flock;
mod follow;
mod group;
mod hide;
mod kinematic_movement;
mod orca;
mod path_techniques;
mod pilot;
mod pursue;
mod seek;
mod wander;

pub use align::{Align, Face, LookWhereYoureGoing};
pub use avoid::{
    AdaptiveFan, AvoidTarget, AvoidanceState, AvoidanceVector, BoxThreat, DetectionBox,
    ObstacleAvoidance, RayLayout, RepelObstacle, WallFeelers, MAX_FAN_RAYS,
};
pub use flock::{BucklandFlock, FlockWeights, MillingtonFlock, Neighbourhood};
pub use follow::FollowPath;
pub use group::{
    closest_approach, Alignment, Cohesion, CollisionAvoidance, ConeCheck, Falloff, Gather,
    Separation,
};
pub(crate) use group::{LawVisitor, PushLaw, SeparationSum};
pub use hide::Hide;
pub use kinematic_movement::{KinematicArrive, KinematicFlee, KinematicSeek, KinematicWander};
pub use orca::{Orca, OrcaLine, OrcaPlane, OrcaScratch, REST_TIME_HORIZON};
pub(crate) use orca::{Pair, Reach, YIELD_ROOM};
pub use path_techniques::{DogOnAString, GrapplingHooks, Reprojection};
pub use pursue::{Chase, Estimate, Evade, Interpose, OffsetPursuit, Prediction, Pursue};
pub use seek::{Approach, Arrive, Deceleration, Flee, Seek, SeekMode, Stop, VelocityMatch};
pub use wander::{Wander, WanderJitter, WorldWander};

pub use pilot::{is_crowded, Pilot, PilotEvent};

/// A behaviour with memory per character (a path parameter, a waypoint, the fan's angle and
/// committed side): the one convention for it. One value of the behaviour can serve many
/// characters when the caller keeps each character's state and swaps it in — `with_state`
/// before `steer`, `state` after — as the crowd engine does.
pub trait Stateful: Sized {
    /// The per-character state; `Default` is a fresh start.
    type State: Copy + Default + PartialEq + core::fmt::Debug;

    /// The state after the last `steer`.
    fn state(&self) -> Self::State;

    /// The same behaviour continuing from `state` (after a re-path, or for another character).
    #[must_use]
    fn with_state(self, state: Self::State) -> Self;
}
