//! Behaviour recipes: a serialisable tree of the library's behaviours and combiners, shared by
//! every agent of a group and evaluated per agent without allocating.
//!
//! Adding a behaviour is one [`Recipe`] variant plus one arm in `evaluate` (and one in
//! `Recipe::validate` if it holds something to check).

use super::AgentHandle;
use crate::combine::Epsilon;
use crate::formation::SlotSteering;
use crate::geometry::Aabb;
use crate::math::Vector;
use crate::pipeline::HeadFor;
use crate::steering::{
    Align, Alignment, Arrive, BucklandFlock, Cohesion, CollisionAvoidance, ConeCheck, DetectionBox,
    DogOnAString, Evade, Face, Flee, FollowPath, GrapplingHooks, Hide, Interpose, KinematicArrive,
    LookWhereYoureGoing, MillingtonFlock, ObstacleAvoidance, OffsetPursuit, Pursue, RepelObstacle,
    Reprojection, Seek, Separation, VelocityMatch, WallFeelers, WorldWander,
};
use glam::Vec2;

mod custom;
mod direct;
mod evaluate;
mod kind;
mod plan;
mod tree;
mod validate;

pub(crate) use custom::{check_ids, CustomEntry};
pub use custom::{AgentContext, BehaviourId, CustomBehaviour};
#[cfg(test)]
pub(crate) use direct::FlatBlend;
pub(crate) use direct::{Direct, LaneLeaf};
pub(crate) use evaluate::evaluate;
pub use kind::KindInfo;
pub(crate) use plan::{AvoidState, BehaviourState, Context, Notes, Plan, Summary};

/// Index of a path registered with `Crowd::add_path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PathId(pub u32);

/// Where a seek, flee or arrive points.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "V: serde::Serialize, A: serde::Serialize",
        deserialize = "V: serde::Deserialize<'de>, A: serde::Deserialize<'de>"
    ))
)]
pub enum Target<V: Vector = Vec2, A = AgentHandle> {
    /// A fixed point (m).
    Point(V),
    /// The agent's own goal (`Crowd::set_goal`); nothing to say without one.
    Goal,
    /// Another agent's current position; nothing to say when it is gone.
    Agent(A),
}

/// A behaviour recipe: what every agent of a group does, as data.
///
/// Leaves are the library's behaviours with their parameters; inner nodes are the combiners of
/// `combine` (weighted blend, priority groups, truncated running sum). A leaf that has nothing
/// to say (no neighbours, no goal, target gone) is `None`, which the combiners treat as zero.
///
/// Per-agent state lives outside the recipe, in the crowd: one wander target, one path
/// parameter, one obstacle-avoidance state (fan half angle, committed side and hold timer) and
/// one random generator per agent. So every `Wander` node of a recipe (and the wander of
/// `BucklandFlock`) shares the agent's wander target, every path leaf (`FollowPath`,
/// `DogOnAString`, `Reprojection`, `GrapplingHooks`, whose waypoint index is kept there) its
/// path parameter, and every `ObstacleAvoidance` node its avoidance state: a recipe should
/// hold one path leaf and one obstacle avoidance.
///
/// Group leaves (separation, cohesion, alignment, collision avoidance, cone check, the flocking
/// presets) see the agent's neighbours: the agents within the crowd's neighbour radius (and the
/// group's view cone), gathered once per agent per step from the grid.
///
/// Static-world leaves (obstacle avoidance, wall feelers, detection box, repel obstacle, hide)
/// see the crowd's static world (`Crowd::set_obstacles`: an `ObstacleSet` in 2D, an
/// `ObstacleSet3` in 3D) and say nothing without one (hide then evades). Obstacle avoidance
/// and repel obstacle work in 2D and 3D; wall feelers, the detection box and hide are planar: a
/// 3D crowd refuses a recipe holding one. The orientation leaves (look where you're going,
/// face, align) work in both: in 3D they turn a quaternion (`three_d`'s
/// `LookWhereYoureGoing3`, `Face3`, `Align3`, with `Align`'s orientation read as a ground
/// heading). They drive the angular channel, so their group wants `face_motion: false` (which
/// would overwrite it).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "V: serde::Serialize, A: serde::Serialize, P: serde::Serialize",
        deserialize = "V: serde::Deserialize<'de>, A: serde::Deserialize<'de>, \
                       P: serde::Deserialize<'de>"
    ))
)]
#[derive(strum::EnumDiscriminants)]
#[strum_discriminants(
    name(RecipeKind),
    derive(Hash, PartialOrd, Ord, strum::EnumIter, strum::IntoStaticStr),
    strum(serialize_all = "snake_case"),
    doc = "The kind of a [`Recipe`] node, named as in scenario files (`RecipeKind::name`); \
           [`RecipeKind::info`] says what the crowd must know about it."
)]
pub enum Recipe<V: Vector = Vec2, A = AgentHandle, P = PathId> {
    /// Seek a target ([`Seek`]).
    Seek {
        /// What to seek.
        target: Target<V, A>,
        /// Parameters.
        seek: Seek,
    },
    /// Flee the centre of the nearest hazard ([`Crowd::set_hazards`](super::Crowd::set_hazards))
    /// whose radius, widened by `margin`, reaches the agent's body:
    /// `‖p − c‖ < r_hazard + r_body + margin` (Millington §3.5.2's reaction to a grenade: run
    /// from the blast); nothing outside every hazard, so it leads a `priority`. Nearest means
    /// smallest `‖p − c‖ − r_hazard` (deepest inside). The margin (m) keeps an agent whose
    /// other behaviours pull it back from hovering on the blast's edge.
    FleeHazards {
        /// How to flee.
        flee: Flee,
        /// Extra clearance (m), ≥ 0.
        margin: f32,
    },
    /// Flee a target ([`Flee`]).
    Flee {
        /// What to flee.
        target: Target<V, A>,
        /// Parameters.
        flee: Flee,
    },
    /// Arrive at a target ([`Arrive`]).
    Arrive {
        /// Where to stop.
        target: Target<V, A>,
        /// Parameters.
        arrive: Arrive,
    },
    /// Arrive at the agent's own goal by way of its waypoint ([`Crowd::set_waypoint`], set by
    /// a navigation layer from the agent's route across the level): while it has one, the
    /// agent heads for the waypoint's point at the arrive's approach speed for the whole
    /// distance left, `|point − p| + remaining` (m), so the slow radius brakes only near the
    /// goal and never at a corner; the acceleration is `(v_desired − v) / time_to_target`,
    /// capped at `max_acceleration` (m/s²). Without a waypoint, or standing exactly on it, it
    /// is [`Arrive`] at the goal; without a goal it has nothing to say. `dt` does not enter:
    /// the output is an acceleration.
    ///
    /// [`Crowd::set_waypoint`]: crate::crowd::Crowd::set_waypoint
    Navigate {
        /// Parameters of the approach.
        arrive: Arrive,
    },
    /// Pursue another agent ([`Pursue`]).
    Pursue {
        /// The quarry.
        target: A,
        /// Parameters.
        pursue: Pursue,
    },
    /// Evade another agent ([`Evade`]).
    Evade {
        /// The pursuer.
        threat: A,
        /// Parameters.
        evade: Evade,
    },
    /// Match a fixed velocity ([`VelocityMatch`]).
    VelocityMatch {
        /// Target velocity (m/s).
        velocity: V,
        /// Parameters.
        matching: VelocityMatch,
    },
    /// Buckland's jittered wander in world space, 2D and 3D ([`WorldWander`]), with the
    /// agent's wander target and generator.
    Wander(WorldWander<V>),
    /// Separation from the neighbours ([`Separation`]).
    Separation(Separation),
    /// Cohesion with the neighbours ([`Cohesion`]).
    Cohesion(Cohesion),
    /// Alignment with the neighbours ([`Alignment`]).
    Alignment(Alignment),
    /// Predictive collision avoidance against the neighbours ([`CollisionAvoidance`]).
    CollisionAvoidance(CollisionAvoidance),
    /// Follow a registered path ([`FollowPath`]; its start parameter is ignored, each agent
    /// keeps its own). Reaching the end of an open path raises `PathFinished` once.
    FollowPath {
        /// Which path.
        path: P,
        /// Parameters.
        follow: FollowPath,
    },
    /// Weighted blend ([`blend`]): `clip(Σ wᵢ·sᵢ, max_acceleration)`.
    ///
    /// [`blend`]: crate::combine::blend
    Blend(Vec<(f32, Recipe<V, A, P>)>),
    /// Priority groups ([`prioritize`]): the first group whose output exceeds `epsilon`.
    ///
    /// [`prioritize`]: crate::combine::prioritize
    Priority {
        /// Groups, highest priority first.
        groups: Vec<Recipe<V, A, P>>,
        /// Threshold below which a group is ignored.
        epsilon: Epsilon,
    },
    /// Buckland's weighted truncated running sum with prioritisation ([`running_sum`]).
    ///
    /// [`running_sum`]: crate::combine::running_sum
    RunningSum(Vec<(f32, Recipe<V, A, P>)>),
    /// Two stages: `first` until the agent has finished its path (an open path's end
    /// reached by a path leaf in `first`: `PathFinished`), then `then` for good. A crowd on a
    /// shared route that hands over to each agent's own goal is one group:
    /// `first` follows the route, `then` arrives at `Target::Goal`. In a formation's anchor
    /// (which has no path state of its own) `first` runs throughout.
    Sequence {
        /// The route: holds a path leaf.
        first: Box<Recipe<V, A, P>>,
        /// What the agent does once the route is finished.
        then: Box<Recipe<V, A, P>>,
    },
    /// Ray-cast obstacle and wall avoidance against the crowd's obstacles
    /// ([`ObstacleAvoidance`]: ray layout, lengths, adaptive fan, corner commitment). The fan's
    /// half angle and the committed side live in the agent's state. 2D and 3D: in a `Crowd3`
    /// the layout is cast round the heading at four azimuths (left, right, up, down) against
    /// the `ObstacleSet3` ([`ObstacleAvoidance::steer_3d`]); the adaptive fan works there too,
    /// the corner commitment is not used.
    ObstacleAvoidance(ObstacleAvoidance),
    /// Buckland's wall feelers against the crowd's obstacles and walls ([`WallFeelers`]). 2D.
    WallFeelers(WallFeelers),
    /// Buckland's detection box against the crowd's solid obstacles (bounding circles;
    /// [`DetectionBox`]). 2D.
    DetectionBox(DetectionBox),
    /// Green's 1/x³ repulsion from the crowd's obstacles and walls ([`RepelObstacle`]). 2D and
    /// 3D (from the spheres and boxes of the `ObstacleSet3`, [`RepelObstacle::steer_3d`]).
    RepelObstacle(RepelObstacle),
    /// Hide from another agent behind the crowd's solid obstacles ([`Hide`]; evades it when
    /// there is no cover or no obstacle set). Nothing when the hunter is gone. 2D.
    Hide {
        /// The hunter.
        hunter: A,
        /// Parameters.
        hide: Hide,
    },
    /// Get between two agents ([`Interpose`]). Nothing when either is gone.
    Interpose {
        /// First agent.
        a: A,
        /// Second agent.
        b: A,
        /// Parameters.
        interpose: Interpose,
    },
    /// Hold an offset in a leader's local frame ([`OffsetPursuit`]). Nothing when the leader
    /// is gone.
    OffsetPursuit {
        /// The leader.
        leader: A,
        /// Offset (leader-local, m) and parameters.
        pursuit: OffsetPursuit<V>,
    },
    /// Flee the neighbours in a cone ahead ([`ConeCheck`]).
    ConeCheck(ConeCheck),
    /// Green's dog on a string along a registered path ([`DogOnAString`]); the leash parameter
    /// is the agent's path parameter.
    DogOnAString {
        /// Which path.
        path: P,
        /// Parameters.
        dog: DogOnAString,
    },
    /// Green's reprojection onto a registered path ([`Reprojection`]); the projected parameter
    /// is the agent's path parameter.
    Reprojection {
        /// Which path.
        path: P,
        /// Parameters.
        reprojection: Reprojection,
    },
    /// Green's grappling hooks (Buckland's seek distance) over a registered path's waypoints
    /// ([`GrapplingHooks`]); the waypoint index is kept in the agent's path parameter.
    GrapplingHooks {
        /// Which path.
        path: P,
        /// Parameters.
        hooks: GrapplingHooks,
    },
    /// Millington's flocking preset ([`MillingtonFlock`]) evaluated from the crowd's single
    /// neighbour pass: the neighbourhood is the crowd's neighbour radius and the group's view
    /// cone (the preset's own `neighbourhood` is not used).
    MillingtonFlock(MillingtonFlock),
    /// Buckland's flocking preset ([`BucklandFlock`]) from the single neighbour pass (its
    /// `neighbourhood` is not used); its wander uses the agent's wander target and generator
    /// with the preset's radius, distance and jitter (the preset's seed is not used).
    BucklandFlock(BucklandFlock),
    /// Prioritised dithering ([`dither`](crate::combine::dither)) with the agent's generator: members
    /// `(weight, probability, recipe)` in priority order; one draw per member with a positive
    /// probability until one speaks above `epsilon`.
    Dither {
        /// Members, highest priority first.
        members: Vec<(f32, f32, Recipe<V, A, P>)>,
        /// Threshold below which a member is passed over.
        epsilon: Epsilon,
    },
    /// Turn to face the direction of motion ([`LookWhereYoureGoing`]; angular). 2D.
    LookWhereYoureGoing(LookWhereYoureGoing),
    /// Turn to face a target ([`Face`]; angular). 2D.
    Face {
        /// What to face.
        target: Target<V, A>,
        /// Parameters.
        face: Face,
    },
    /// Turn to a fixed orientation ([`Align`]; angular). 2D.
    Align {
        /// Orientation (rad).
        orientation: f32,
        /// Parameters.
        align: Align,
    },
    /// Steer to the agent's slot in its formation (`Crowd::add_formation`): arrive at the
    /// moving slot with its velocity fed forward, align to its orientation ([`SlotSteering`]).
    /// Nothing outside a formation. The slot's position is recorded as the debug target. 2D.
    Slot(SlotSteering),
    /// Millington's kinematic seek ([`KinematicSeek`]): the agent's velocity is *set* to
    /// `normalize(target − p) · max_speed` (no acceleration; standing still on the target), so
    /// it overshoots a fixed target and jitters round it. With the group's `face_motion` its
    /// facing snaps to the velocity (the book's `newOrientation`).
    /// A kinematic leaf must be the whole recipe (a combiner holding one is refused).
    ///
    /// [`KinematicSeek`]: crate::steering::KinematicSeek
    KinematicSeek {
        /// What to seek.
        target: Target<V, A>,
    },
    /// Millington's kinematic arrive ([`KinematicArrive`]): the velocity is set to
    /// `(target − p) / time_to_target` clipped to `max_speed`, and to zero inside the
    /// satisfaction radius (it stops dead); facing as for `KinematicSeek`. Whole recipe
    /// only.
    KinematicArrive {
        /// Where to stop.
        target: Target<V, A>,
        /// Radius and time to target.
        arrive: KinematicArrive,
    },
    /// Millington's kinematic wander ([`KinematicWander`]) with the agent's generator: the
    /// velocity is set to `max_speed · ô` and the rotation to `binomial() · rate / √dt`
    /// (`rate` in rad/√s, ≥ 0; none at `dt = 0`), so the heading random-walks by
    /// `binomial() · rate · √dt` per step. The group wants `face_motion: false` (which would
    /// overwrite the turning). Whole recipe only. 2D.
    ///
    /// [`KinematicWander`]: crate::steering::KinematicWander
    KinematicWander {
        /// Random-walk rate (rad/√s), ≥ 0.
        rate: f32,
    },
    /// Millington's steering pipeline (§3.4.5, [`SteeringPipeline`]) run for each agent: the
    /// goal from `goal`; a [`PlanningDecomposer`] running A* on a [`GridGraph`] covering
    /// `bounds` in cells of `cell_size` m, blocked within `clearance` m of the crowd's
    /// obstacles; one [`AvoidObstacle`] constraint per circle obstacle near the plan's segments
    /// (violated within the disc's radius plus the agent's; the detour point at that times
    /// `margin`); the `actuator` (its arrive ramps by the distance to the final goal: the
    /// planner's sub-goals on the way are headed for at that speed, so a slow radius does not
    /// brake at every cell); at most
    /// `constraint_steps` plans per step; when they run out (deadlock), the actuator heads
    /// straight for the planner's sub-goal, which lies in a free cell.
    ///
    /// The grid is built **once per group**, when the group is added or replaced and when the
    /// obstacles change, and shared read-only by all its agents (at most one pipeline leaf per
    /// recipe). 2D only.
    ///
    /// Cost per agent per step: one A* search over the grid from the agent's cell to the goal's
    /// (`O(c log c)` for the `c` cells it expands; none once the agent is in the goal's cell),
    /// plus at most `constraint_steps` plan checks against the discs near the plan. The
    /// pipeline's search buffers are private to it and the pipeline is built per evaluation, so
    /// each evaluation allocates them anew (unavoidable without restructuring the pipeline):
    /// three arrays of 4 bytes per grid cell, the open heap, the route and the plan's points.
    /// Measured on a 74 × 60 grid of 0.5 m cells round a bowl of 15 discs (release build, one
    /// thread, a loaded 2-core machine): 15–22 µs per agent per step (3 agents: 21.5 µs; 200
    /// agents: 15.2 µs), against well under 1 µs for a seek. Meant for tens of agents that
    /// need a route, not thousands.
    ///
    /// [`SteeringPipeline`]: crate::pipeline::SteeringPipeline
    /// [`PlanningDecomposer`]: crate::pipeline::PlanningDecomposer
    /// [`GridGraph`]: crate::pipeline::GridGraph
    /// [`AvoidObstacle`]: crate::pipeline::AvoidObstacle
    Pipeline {
        /// Where to go.
        goal: Target<V, A>,
        /// The area the planner's grid covers (m).
        bounds: Aabb,
        /// The grid's cell side (m), > 0.
        cell_size: f32,
        /// Cells whose centre lies within this distance (m) of an obstacle are blocked: the
        /// agent's radius plus a margin, ≥ 0.
        clearance: f32,
        /// The constraints' clearance factor (> 1).
        margin: f32,
        /// Most plans per step before the deadlock fallback.
        constraint_steps: usize,
        /// Heads for each sub-goal.
        actuator: HeadFor,
    },
    /// A behaviour of the user's own, registered with the crowd
    /// ([`Crowd::add_behaviour`](super::Crowd::add_behaviour)), run like any leaf with the
    /// agent's view ([`AgentContext`]). A scenario file cannot name one: the id is meaningful
    /// only for the crowd it was registered with.
    ///
    /// [`AgentContext`]: crate::crowd::AgentContext
    Custom(BehaviourId),
}
