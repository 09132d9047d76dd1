//! Behaviour recipes: a serialisable tree of the library's behaviours and combiners, shared by
//! every agent of a group and evaluated per agent without allocating.
//!
//! Adding a behaviour is one [`Recipe`] variant plus one arm in `evaluate` (and one in
//! `Recipe::validate` if it holds something to check).

use super::custom::{AgentContext, BehaviourId, CustomEntry};
use super::space::CrowdVector;
use super::{AgentHandle, AgentView};
use crate::combine::{blend, dither_considers, dither_output, prioritize, running_sum, Epsilon};
use crate::error::{finite, non_negative, ParamError};
use crate::formation::{SlotSteering, SlotTarget};
use crate::geometry::{closest_point_on_segment, Aabb, Circle};
use crate::geometry::{Obstacle, ObstacleSet};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Rng;
use crate::math::{as_vector, Vector};
use crate::neighbours::Neighbour;
use crate::path::{Path, Polyline, WaypointCursor};
use crate::pipeline::{
    Actuator, AvoidObstacle, FromFn, Goal, GridGraph, HeadFor, Plan as PipelinePlan,
    PlanningDecomposer, SteeringPipeline,
};
use crate::steering::{
    Align, Alignment, Arrive, BucklandFlock, Cohesion, CollisionAvoidance, ConeCheck, DetectionBox,
    DogOnAString, Evade, Face, Flee, FollowPath, GrapplingHooks, Hide, Interpose, KinematicArrive,
    KinematicSeek, LookWhereYoureGoing, MillingtonFlock, ObstacleAvoidance, OffsetPursuit, Pursue,
    RepelObstacle, Reprojection, Seek, Separation, SeparationSum, Stateful, VelocityMatch,
    WallFeelers, WorldWander,
};
use glam::Vec2;

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
    Blend(Vec<(f32, Recipe<V, A, P>)>),
    /// Priority groups ([`prioritize`]): the first group whose output exceeds `epsilon`.
    Priority {
        /// Groups, highest priority first.
        groups: Vec<Recipe<V, A, P>>,
        /// Threshold below which a group is ignored.
        epsilon: Epsilon,
    },
    /// Buckland's weighted truncated running sum with prioritisation ([`running_sum`]).
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
    Custom(BehaviourId),
}

/// What the crowd must know about a kind of recipe node. [`RecipeKind::info`] is the one
/// exhaustive table: a new kind does not compile until it answers every field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KindInfo {
    /// A combiner (blend, priority, running sum, dither) rather than a leaf.
    pub combiner: bool,
    /// Planar: a 3D crowd refuses a recipe holding it.
    pub planar: bool,
    /// Outputs a velocity and a rotation (set at commit), not accelerations: the whole recipe
    /// only.
    pub kinematic: bool,
    /// Reads the neighbours (the sums of the single neighbour pass).
    pub neighbours: bool,
    /// Reads the neighbours one by one (gathered into a list).
    pub neighbour_list: bool,
    /// Reads the crowd's static obstacles and walls.
    pub obstacles: bool,
    /// Keeps the agent's path parameter (follows a registered path).
    pub path: bool,
    /// Keeps the agent's wander target.
    pub wander: bool,
    /// Keeps the agent's obstacle-avoidance state (fan angle, committed side).
    pub avoidance: bool,
    /// Draws from the agent's generator.
    pub random: bool,
    /// Reads the agent's formation slot.
    pub slot: bool,
    /// Runs user code registered with the crowd; what it reads is the behaviour's own answer
    /// ([`CustomBehaviour::needs_neighbours`](super::CustomBehaviour::needs_neighbours)).
    pub custom: bool,
}

impl KindInfo {
    /// A leaf that reads only the agent itself and other agents by handle.
    const LEAF: KindInfo = KindInfo {
        combiner: false,
        planar: false,
        kinematic: false,
        neighbours: false,
        neighbour_list: false,
        obstacles: false,
        path: false,
        wander: false,
        avoidance: false,
        random: false,
        slot: false,
        custom: false,
    };
    const COMBINER: KindInfo = KindInfo { combiner: true, ..Self::LEAF };
    const GROUP: KindInfo = KindInfo { neighbours: true, ..Self::LEAF };
    const GROUP_LIST: KindInfo = KindInfo { neighbour_list: true, ..Self::GROUP };
    const PATH: KindInfo = KindInfo { path: true, ..Self::LEAF };
    /// Reads the static world in 2D and 3D.
    const WORLD: KindInfo = KindInfo { obstacles: true, ..Self::LEAF };
    /// Reads the static world, 2D only.
    const PLANAR_WORLD: KindInfo = KindInfo { planar: true, ..Self::WORLD };
    const ORIENTATION: KindInfo = Self::LEAF;
    const KINEMATIC: KindInfo = KindInfo { kinematic: true, ..Self::LEAF };
}

impl RecipeKind {
    /// The kind's name in scenario files and error messages (`seek`, `obstacle_avoidance`).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Every kind, in declaration order.
    pub fn all() -> impl Iterator<Item = RecipeKind> {
        <RecipeKind as strum::IntoEnumIterator>::iter()
    }

    /// What the crowd must know about this kind: the one place every classification comes
    /// from.
    #[must_use]
    pub const fn info(self) -> KindInfo {
        use RecipeKind as K;
        match self {
            K::Seek | K::Flee | K::Arrive | K::Pursue | K::Evade | K::VelocityMatch => {
                KindInfo::LEAF
            }
            K::FleeHazards => KindInfo::LEAF,
            K::Interpose | K::OffsetPursuit => KindInfo::LEAF,
            K::Wander => KindInfo { wander: true, random: true, ..KindInfo::LEAF },
            K::Separation | K::Cohesion | K::Alignment | K::MillingtonFlock => KindInfo::GROUP,
            K::BucklandFlock => KindInfo { wander: true, random: true, ..KindInfo::GROUP },
            K::CollisionAvoidance | K::ConeCheck => KindInfo::GROUP_LIST,
            K::FollowPath | K::DogOnAString | K::Reprojection | K::GrapplingHooks => KindInfo::PATH,
            K::Blend | K::Priority | K::RunningSum | K::Sequence => KindInfo::COMBINER,
            K::Dither => KindInfo { random: true, ..KindInfo::COMBINER },
            K::ObstacleAvoidance => KindInfo { avoidance: true, ..KindInfo::WORLD },
            K::RepelObstacle => KindInfo::WORLD,
            K::WallFeelers | K::DetectionBox | K::Hide => KindInfo::PLANAR_WORLD,
            K::LookWhereYoureGoing | K::Face | K::Align => KindInfo::ORIENTATION,
            K::Slot => KindInfo { slot: true, planar: true, ..KindInfo::ORIENTATION },
            K::KinematicSeek | K::KinematicArrive => KindInfo::KINEMATIC,
            K::KinematicWander => KindInfo { planar: true, random: true, ..KindInfo::KINEMATIC },
            K::Pipeline => KindInfo::PLANAR_WORLD,
            K::Custom => KindInfo { custom: true, ..KindInfo::LEAF },
        }
    }
}

impl<V: Vector, A, P> Recipe<V, A, P> {
    /// The node's kind.
    #[must_use]
    pub fn kind(&self) -> RecipeKind {
        self.into()
    }

    /// Calls `f` on every leaf, depth first.
    pub fn for_each_leaf(&self, f: &mut impl FnMut(&Self)) {
        match self {
            Recipe::Dither { members, .. } => {
                for (_, _, r) in members {
                    r.for_each_leaf(f);
                }
            }
            Recipe::Blend(m) | Recipe::RunningSum(m) => {
                for (_, r) in m {
                    r.for_each_leaf(f);
                }
            }
            Recipe::Priority { groups, .. } => {
                for r in groups {
                    r.for_each_leaf(f);
                }
            }
            Recipe::Sequence { first, then } => {
                first.for_each_leaf(f);
                then.for_each_leaf(f);
            }
            leaf => {
                debug_assert!(!leaf.kind().info().combiner, "a combiner without a walk");
                f(leaf);
            }
        }
    }

    /// True when some leaf's kind has `property`.
    fn any_leaf(&self, property: impl Fn(KindInfo) -> bool) -> bool {
        let mut any = false;
        self.for_each_leaf(&mut |r| any |= property(r.kind().info()));
        any
    }

    /// The kind of the first kinematic leaf (sets the velocity) if the node is one.
    #[must_use]
    pub fn kinematic_kind(&self) -> Option<&'static str> {
        let kind = self.kind();
        kind.info().kinematic.then(|| kind.name())
    }

    /// The kind of the first leaf that exists only in 2D (wall feelers, detection box, hiding,
    /// orientation, slots, kinematic wander, the pipeline), if any: a 3D crowd refuses such a
    /// recipe, naming it.
    #[must_use]
    pub fn planar_leaf(&self) -> Option<&'static str> {
        let mut kind = None;
        self.for_each_leaf(&mut |r| {
            let k = r.kind();
            if k.info().planar {
                kind = kind.or(Some(k.name()));
            }
        });
        kind
    }

    /// True when some leaf looks at the crowd's static obstacles and walls.
    #[must_use]
    pub fn needs_obstacles(&self) -> bool {
        self.any_leaf(|i| i.obstacles)
    }

    /// True when some built-in leaf looks at neighbours (the crowd then scans them for the
    /// group; a custom leaf says so itself).
    #[must_use]
    pub fn needs_neighbours(&self) -> bool {
        self.any_leaf(|i| i.neighbours)
    }

    /// True when some leaf follows a path.
    #[must_use]
    pub fn follows_path(&self) -> bool {
        self.any_leaf(|i| i.path)
    }

    /// A leaf's point target: seek, flee, arrive, face, the kinematic seek and arrive, and the
    /// pipeline's goal; `None` for other kinds and for combiners.
    #[must_use]
    pub fn target(&self) -> Option<&Target<V, A>> {
        match self {
            Recipe::Seek { target, .. }
            | Recipe::Flee { target, .. }
            | Recipe::Arrive { target, .. }
            | Recipe::Face { target, .. }
            | Recipe::KinematicSeek { target }
            | Recipe::KinematicArrive { target, .. }
            | Recipe::Pipeline { goal: target, .. } => Some(target),
            _ => None,
        }
    }

    /// True when some leaf steers for the agent's own goal ([`Target::Goal`]).
    #[must_use]
    pub fn uses_goal(&self) -> bool {
        let mut any = false;
        self.for_each_leaf(&mut |r| any |= matches!(r.target(), Some(Target::Goal)));
        any
    }

    /// The same recipe with every agent reference mapped by `agent` and every path reference
    /// by `path`: how a description that names agents and paths its own way (a scenario
    /// file's `"group:index"` and path names) becomes the crowd's recipe.
    #[must_use]
    pub fn map_refs<A2, P2>(
        &self,
        agent: &impl Fn(&A) -> A2,
        path: &impl Fn(&P) -> P2,
    ) -> Recipe<V, A2, P2> {
        self.map(agent, path, &|v| v)
    }

    /// [`map_refs`](Self::map_refs) that also carries every point and vector of the recipe
    /// (targets, target velocities, offsets, the wander state) into another space by
    /// `vector`: how one description serves 2D and 3D.
    #[must_use]
    pub fn map<W: Vector, A2, P2>(
        &self,
        agent: &impl Fn(&A) -> A2,
        path: &impl Fn(&P) -> P2,
        vector: &impl Fn(V) -> W,
    ) -> Recipe<W, A2, P2> {
        let target = |t: &Target<V, A>| match t {
            Target::Point(p) => Target::Point(vector(*p)),
            Target::Goal => Target::Goal,
            Target::Agent(a) => Target::Agent(agent(a)),
        };
        let weighted = |m: &Vec<(f32, Recipe<V, A, P>)>| {
            m.iter().map(|(w, r)| (*w, r.map(agent, path, vector))).collect()
        };
        match self {
            Recipe::Seek { target: t, seek } => Recipe::Seek { target: target(t), seek: *seek },
            Recipe::Flee { target: t, flee } => Recipe::Flee { target: target(t), flee: *flee },
            Recipe::FleeHazards { flee, margin } => {
                Recipe::FleeHazards { flee: *flee, margin: *margin }
            }
            Recipe::Arrive { target: t, arrive } => {
                Recipe::Arrive { target: target(t), arrive: *arrive }
            }
            Recipe::Pursue { target, pursue } => {
                Recipe::Pursue { target: agent(target), pursue: *pursue }
            }
            Recipe::Evade { threat, evade } => {
                Recipe::Evade { threat: agent(threat), evade: *evade }
            }
            Recipe::VelocityMatch { velocity, matching } => {
                Recipe::VelocityMatch { velocity: vector(*velocity), matching: *matching }
            }
            Recipe::Wander(w) => Recipe::Wander(w.map(vector)),
            Recipe::Separation(s) => Recipe::Separation(*s),
            Recipe::Cohesion(c) => Recipe::Cohesion(*c),
            Recipe::Alignment(a) => Recipe::Alignment(*a),
            Recipe::CollisionAvoidance(c) => Recipe::CollisionAvoidance(*c),
            Recipe::FollowPath { path: p, follow } => {
                Recipe::FollowPath { path: path(p), follow: *follow }
            }
            Recipe::Blend(m) => Recipe::Blend(weighted(m)),
            Recipe::Priority { groups, epsilon } => Recipe::Priority {
                groups: groups.iter().map(|r| r.map(agent, path, vector)).collect(),
                epsilon: *epsilon,
            },
            Recipe::RunningSum(m) => Recipe::RunningSum(weighted(m)),
            Recipe::Sequence { first, then } => Recipe::Sequence {
                first: Box::new(first.map(agent, path, vector)),
                then: Box::new(then.map(agent, path, vector)),
            },
            Recipe::ObstacleAvoidance(o) => Recipe::ObstacleAvoidance(*o),
            Recipe::WallFeelers(w) => Recipe::WallFeelers(*w),
            Recipe::DetectionBox(d) => Recipe::DetectionBox(*d),
            Recipe::RepelObstacle(r) => Recipe::RepelObstacle(*r),
            Recipe::Hide { hunter, hide } => Recipe::Hide { hunter: agent(hunter), hide: *hide },
            Recipe::Interpose { a, b, interpose } => {
                Recipe::Interpose { a: agent(a), b: agent(b), interpose: *interpose }
            }
            Recipe::OffsetPursuit { leader, pursuit } => Recipe::OffsetPursuit {
                leader: agent(leader),
                pursuit: OffsetPursuit {
                    offset: vector(pursuit.offset),
                    prediction: pursuit.prediction,
                    arrive: pursuit.arrive,
                    feed_forward: pursuit.feed_forward,
                },
            },
            Recipe::ConeCheck(c) => Recipe::ConeCheck(*c),
            Recipe::DogOnAString { path: p, dog } => {
                Recipe::DogOnAString { path: path(p), dog: *dog }
            }
            Recipe::Reprojection { path: p, reprojection } => {
                Recipe::Reprojection { path: path(p), reprojection: *reprojection }
            }
            Recipe::GrapplingHooks { path: p, hooks } => {
                Recipe::GrapplingHooks { path: path(p), hooks: *hooks }
            }
            Recipe::MillingtonFlock(f) => Recipe::MillingtonFlock(*f),
            Recipe::BucklandFlock(f) => Recipe::BucklandFlock(f.clone()),
            Recipe::Dither { members, epsilon } => Recipe::Dither {
                members: members
                    .iter()
                    .map(|(w, p, r)| (*w, *p, r.map(agent, path, vector)))
                    .collect(),
                epsilon: *epsilon,
            },
            Recipe::LookWhereYoureGoing(l) => Recipe::LookWhereYoureGoing(*l),
            Recipe::Face { target: t, face } => Recipe::Face { target: target(t), face: *face },
            Recipe::Align { orientation, align } => {
                Recipe::Align { orientation: *orientation, align: *align }
            }
            Recipe::Slot(s) => Recipe::Slot(*s),
            Recipe::KinematicSeek { target: t } => Recipe::KinematicSeek { target: target(t) },
            Recipe::KinematicArrive { target: t, arrive } => {
                Recipe::KinematicArrive { target: target(t), arrive: *arrive }
            }
            Recipe::KinematicWander { rate } => Recipe::KinematicWander { rate: *rate },
            Recipe::Pipeline {
                goal,
                bounds,
                cell_size,
                clearance,
                margin,
                constraint_steps,
                actuator,
            } => Recipe::Pipeline {
                goal: target(goal),
                bounds: *bounds,
                cell_size: *cell_size,
                clearance: *clearance,
                margin: *margin,
                constraint_steps: *constraint_steps,
                actuator: *actuator,
            },
            Recipe::Custom(id) => Recipe::Custom(*id),
        }
    }
}

impl<V: Vector> Recipe<V> {
    /// A kinematic leaf inside a combiner: its output is a velocity, which cannot be summed
    /// with accelerations.
    fn nested_kinematic(&self) -> Result<(), ParamError> {
        let mut kind = None;
        self.for_each_leaf(&mut |r| kind = kind.or(r.kinematic_kind()));
        match kind {
            Some(kind) => Err(ParamError::Invalid {
                name: kind,
                expected:
                    "the whole recipe (a kinematic leaf sets the velocity; it cannot be combined)",
            }),
            None => Ok(()),
        }
    }

    /// Checks what the constructors of the leaves cannot: finite weights, wander parameters,
    /// path ids below `paths`, finite offsets, orientations and targets, flock weights, dither
    /// probabilities in [0, 1]. (Whether the space supports a leaf is checked by the crowd:
    /// see [`planar_leaf`](Self::planar_leaf).)
    ///
    /// # Errors
    /// [`ParamError`] naming the field, prefixed by the leaf's kind for the newer leaves
    /// (`weight`, `wander_radius`, `path`, `grappling_hooks.path`, `dither.probability`,
    /// `offset_pursuit.offset`, `align.orientation`, `millington_flock.weights.cohesion`, ...).
    pub fn validate(&self, paths: usize) -> Result<(), ParamError> {
        match self {
            Recipe::KinematicWander { rate } => {
                non_negative("kinematic_wander.rate", *rate)?;
            }
            Recipe::FleeHazards { margin, .. } => {
                non_negative("flee_hazards.margin", *margin)?;
            }
            Recipe::Pipeline { goal, bounds, cell_size, clearance, margin, .. } => {
                if let Target::Point(p) = goal {
                    if !p.is_finite() {
                        return Err(ParamError::Invalid {
                            name: "pipeline.goal",
                            expected: "a finite point",
                        });
                    }
                }
                crate::error::positive("pipeline.cell_size", *cell_size)?;
                non_negative("pipeline.clearance", *clearance)?;
                finite("pipeline.margin", *margin)?;
                if *margin <= 1.0 {
                    return Err(ParamError::OutOfRange {
                        name: "pipeline.margin",
                        value: *margin,
                        range: "above 1",
                    });
                }
                if !(bounds.min.is_finite() && bounds.max.is_finite())
                    || bounds.max.x <= bounds.min.x
                    || bounds.max.y <= bounds.min.y
                {
                    return Err(ParamError::OutOfRange {
                        name: "pipeline.bounds",
                        value: bounds.max.x - bounds.min.x,
                        range: "finite, max above min on both axes",
                    });
                }
                let cells = ((bounds.max - bounds.min) / *cell_size).ceil();
                if cells.x * cells.y > 4.0e6 {
                    return Err(ParamError::OutOfRange {
                        name: "pipeline.cell_size",
                        value: *cell_size,
                        range: "at most 4 million cells over the bounds",
                    });
                }
            }
            Recipe::KinematicSeek { target: Target::Point(p) }
            | Recipe::KinematicArrive { target: Target::Point(p), .. }
                if !p.is_finite() =>
            {
                return Err(ParamError::Invalid { name: "target", expected: "a finite point" });
            }
            Recipe::FollowPath { path, .. }
            | Recipe::DogOnAString { path, .. }
            | Recipe::Reprojection { path, .. }
            | Recipe::GrapplingHooks { path, .. }
                if path.0 as usize >= paths =>
            {
                return Err(ParamError::Count {
                    name: self.path_field(),
                    count: path.0 as usize,
                    expected: "the id of a registered path",
                });
            }
            Recipe::OffsetPursuit { pursuit, .. } if !pursuit.offset.is_finite() => {
                return Err(ParamError::Invalid {
                    name: "offset_pursuit.offset",
                    expected: "a finite vector",
                });
            }
            Recipe::Align { orientation, .. } => {
                finite("align.orientation", *orientation)?;
            }
            Recipe::Face { target: Target::Point(p), .. } if !p.is_finite() => {
                return Err(ParamError::Invalid {
                    name: "face.target",
                    expected: "a finite point",
                });
            }
            Recipe::MillingtonFlock(f) => {
                finite("millington_flock.weights.separation", f.weights.separation)?;
                finite("millington_flock.weights.alignment", f.weights.alignment)?;
                finite("millington_flock.weights.cohesion", f.weights.cohesion)?;
            }
            Recipe::BucklandFlock(f) => {
                finite("buckland_flock.weights.separation", f.weights.separation)?;
                finite("buckland_flock.weights.alignment", f.weights.alignment)?;
                finite("buckland_flock.weights.cohesion", f.weights.cohesion)?;
                finite("buckland_flock.weights.wander", f.weights.wander)?;
            }
            Recipe::Dither { members, .. } => {
                self.nested_kinematic()?;
                for (w, p, r) in members {
                    finite("dither.weight", *w)?;
                    non_negative("dither.probability", *p)?;
                    if *p > 1.0 {
                        return Err(ParamError::OutOfRange {
                            name: "dither.probability",
                            value: *p,
                            range: "in [0, 1]",
                        });
                    }
                    r.validate(paths)?;
                }
            }
            Recipe::VelocityMatch { velocity, .. } if !velocity.is_finite() => {
                return Err(ParamError::Invalid { name: "velocity", expected: "a finite vector" });
            }
            Recipe::Seek { target: Target::Point(p), .. }
            | Recipe::Flee { target: Target::Point(p), .. }
            | Recipe::Arrive { target: Target::Point(p), .. }
                if !p.is_finite() =>
            {
                return Err(ParamError::Invalid { name: "target", expected: "a finite point" });
            }
            Recipe::Blend(members) | Recipe::RunningSum(members) => {
                self.nested_kinematic()?;
                for (w, r) in members {
                    finite("weight", *w)?;
                    r.validate(paths)?;
                }
            }
            Recipe::Priority { groups, .. } => {
                self.nested_kinematic()?;
                for r in groups {
                    r.validate(paths)?;
                }
            }
            Recipe::Sequence { first, then } => {
                self.nested_kinematic()?;
                first.validate(paths)?;
                then.validate(paths)?;
                if !first.any_leaf(|i| i.path) {
                    return Err(ParamError::Invalid {
                        name: "sequence.first",
                        expected: "a recipe holding a path leaf (the route the stage finishes)",
                    });
                }
                if then.any_leaf(|i| i.path) {
                    return Err(ParamError::Invalid {
                        name: "sequence.then",
                        expected: "a recipe without a path leaf (the agent's path is finished \
                                   by the time it runs)",
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The field an out-of-range path id is reported under, naming the leaf's kind.
    fn path_field(&self) -> &'static str {
        match self {
            Recipe::DogOnAString { .. } => "dog_on_a_string.path",
            Recipe::Reprojection { .. } => "reprojection.path",
            Recipe::GrapplingHooks { .. } => "grappling_hooks.path",
            _ => "path",
        }
    }
}

/// Most distinct separation settings one recipe may hold (each gets a running sum in the
/// single neighbour pass).
pub(crate) const MAX_SEPARATIONS: usize = 2;

/// What the single neighbour pass collects for the group leaves: separation, cohesion and
/// alignment are all sums over the neighbours, so one scan of the grid serves them all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Summary<V: Vector> {
    pub count: u32,
    /// Σ (p_j − p) (m): the minimum-image offsets, so cohesion works across a torus seam.
    pub offset: V,
    /// Σ v_j (m/s).
    pub velocity: V,
    /// Σ v̂_j (only when a heading alignment needs it).
    pub heading: V,
    /// One running sum per distinct separation of the recipe.
    pub separation: [SeparationSum<V>; MAX_SEPARATIONS],
}

/// What the step needs to know about a recipe, worked out once when the group is added.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub needs_neighbours: bool,
    /// A leaf needs the neighbours one by one (collision avoidance), not only their sums.
    pub needs_list: bool,
    pub needs_headings: bool,
    /// A leaf averages the neighbours' velocities (`Summary::velocity`).
    pub needs_velocities: bool,
    pub follows_path: bool,
    /// Some leaf avoids obstacles: its agents need the avoidance state (a side array).
    pub avoids_obstacles: bool,
    pub separations: Vec<Separation>,
    /// The recipe is a kinematic leaf: its output's linear part is a velocity (m/s) and its
    /// angular part a rotation (rad/s), applied by commit instead of being integrated.
    pub kinematic: bool,
    /// The pipeline leaf's planning grid (built from the crowd's obstacles; see
    /// [`Plan::build_grid`]).
    pub grid: Option<GridGraph>,
    /// The group behaviours' sums see only this many nearest neighbours
    /// ([`Group::nearest`](super::Group::nearest)).
    pub nearest: Option<u32>,
}

impl Plan {
    pub(crate) fn new<V: CrowdVector>(
        recipe: &Recipe<V>,
        customs: &[CustomEntry<V>],
    ) -> Result<Self, ParamError> {
        let mut plan = Plan {
            follows_path: recipe.follows_path(),
            kinematic: recipe.kinematic_kind().is_some(),
            ..Plan::default()
        };
        let separation = |s: &Separation, plan: &mut Plan| {
            if !plan.separations.contains(s) {
                plan.separations.push(*s);
            }
        };
        recipe.for_each_leaf(&mut |r| {
            let info = r.kind().info();
            plan.needs_neighbours |= info.neighbours;
            plan.needs_list |= info.neighbour_list;
            plan.avoids_obstacles |= info.avoidance;
            // what depends on a leaf's parameters, not only its kind
            match r {
                Recipe::Alignment(a) => {
                    plan.needs_headings |= a.uses_headings();
                    plan.needs_velocities |= !a.uses_headings();
                }
                Recipe::Separation(s) => separation(s, &mut plan),
                Recipe::MillingtonFlock(f) => {
                    separation(&f.separation, &mut plan);
                    plan.needs_velocities = true;
                }
                Recipe::BucklandFlock(f) => {
                    separation(&f.separation, &mut plan);
                    plan.needs_headings |= f.alignment.uses_headings();
                    plan.needs_velocities |= !f.alignment.uses_headings();
                }
                Recipe::Custom(id)
                    if customs.get(id.0 as usize).is_some_and(|c| c.0.needs_neighbours()) =>
                {
                    plan.needs_neighbours = true;
                    plan.needs_list = true;
                }
                _ => {}
            }
        });
        let mut pipelines = 0;
        recipe
            .for_each_leaf(&mut |r| pipelines += usize::from(matches!(r, Recipe::Pipeline { .. })));
        if pipelines > 1 {
            return Err(ParamError::Count {
                name: "pipeline",
                count: pipelines,
                expected: "at most 1 pipeline leaf per recipe (its grid is the group's)",
            });
        }
        if plan.separations.len() > MAX_SEPARATIONS {
            return Err(ParamError::Count {
                name: "separation",
                count: plan.separations.len(),
                expected: "at most 2 distinct separation settings per recipe",
            });
        }
        Ok(plan)
    }

    /// (Re)builds the pipeline leaf's grid from `obstacles` (a free grid without them). Called
    /// when the group is added or replaced and when the obstacles change.
    pub(crate) fn build_grid<V: Vector>(
        &mut self,
        recipe: &Recipe<V>,
        obstacles: Option<&ObstacleSet>,
    ) -> Result<(), ParamError> {
        let mut leaf = None;
        recipe.for_each_leaf(&mut |r| {
            if let Recipe::Pipeline { bounds, cell_size, clearance, .. } = r {
                leaf = Some((*bounds, *cell_size, *clearance));
            }
        });
        self.grid = match leaf {
            Some((bounds, cell, clearance)) => Some(match obstacles {
                Some(set) => GridGraph::from_obstacles(bounds, cell, set, clearance)?,
                None => GridGraph::from_obstacles(
                    bounds,
                    cell,
                    &ObstacleSet::new(std::iter::empty())?,
                    clearance,
                )?,
            }),
            None => None,
        };
        Ok(())
    }
}

/// Per-agent behaviour state (the part of a behaviour that is not shared).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BehaviourState<V: Vector> {
    /// Wander target relative to the wander centre (zero until first used).
    pub wander: V,
    /// Path parameter (m of arc length); NaN until a path leaf first places the agent (the
    /// nearest point of the whole path, then a coherent search).
    pub path_param: f32,
    /// Seconds without progress (stuck detection).
    pub stalled: f32,
    /// The agent's generator, seeded from (world seed, agent id).
    pub rng: Rng,
}

/// What a recipe sees while evaluating one agent.
pub(crate) struct Context<'a, V: CrowdVector> {
    pub me: Kinematic<V>,
    pub radius: f32,
    pub limits: &'a Limits,
    pub dt: f32,
    pub goal: Option<V>,
    /// The neighbours one by one (only gathered when the plan needs the list).
    pub neighbours: &'a [Neighbour<V>],
    /// Their sums.
    pub summary: &'a Summary<V>,
    pub separations: &'a [Separation],
    pub paths: &'a [Polyline<V>],
    /// The static world (`ObstacleSet` in 2D, `ObstacleSet3` in 3D).
    pub obstacles: Option<&'a V::Obstacles>,
    /// The group's pipeline grid, if its recipe has a pipeline leaf.
    pub grid: Option<&'a GridGraph>,
    /// The agent's formation slot, if it is in a formation (2D).
    pub slot_target: Option<SlotTarget>,
    /// Distance (m) to an open path's end at which a path technique is finished (the group's
    /// arrive radius).
    pub finish: f32,
    /// The agent has finished its path ([`Recipe::Sequence`] hands over).
    pub path_done: bool,
    /// Other agents' kinematics by handle.
    pub agents: AgentView<'a, V>,
    /// The behaviours registered with the crowd (`Recipe::Custom`).
    pub customs: &'a [CustomEntry<V>],
    /// Places to get away from this step ([`Recipe::FleeHazards`]).
    pub hazards: &'a [super::Hazard<V>],
}

/// What evaluation reports beside the steering.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Notes<V: Vector> {
    /// The last target point a leaf steered for (debug drawing).
    pub target: Option<V>,
    /// An open path's end was reached this step.
    pub path_finished: bool,
}

/// Obstacle avoidance's per-agent state ([`Stateful`]); zero until first used. Kept in a side
/// array that exists only while some group avoids obstacles.
pub(crate) type AvoidState = <ObstacleAvoidance as Stateful>::State;

/// The crowd's actuator: [`HeadFor`] at the final goal; toward a planner's sub-goal (a cell on
/// the way) it heads for the sub-goal at the arrive's approach speed for the distance left to
/// the *final* goal, so a slow radius brakes only near the end, not at every cell.
struct PassThrough<'a> {
    head: &'a HeadFor,
    goal: Vec2,
}

impl Actuator<Vec2> for PassThrough<'_> {
    fn path_into(
        &self,
        character: &Kinematic,
        goal: &Goal,
        limits: &Limits,
        plan: &mut PipelinePlan,
    ) {
        self.head.path_into(character, goal, limits, plan);
    }

    fn output(
        &self,
        character: &Kinematic,
        plan: &PipelinePlan,
        limits: &Limits,
    ) -> SteeringOutput {
        let mut out = self.head.output(character, plan, limits);
        if let Some(sub) = plan.goal.position.filter(|p| (*p - self.goal).length_squared() > 1e-6) {
            let p = character.position;
            let (direction, distance) = (sub - p).unit_and_length_f64();
            if distance > 0.0 {
                let arrive = &self.head.arrive;
                let speed = arrive.approach_speed((self.goal - p).length(), limits);
                out.linear = VelocityMatch::acceleration(
                    character.velocity,
                    direction * speed,
                    arrive.time_to_target(),
                    limits,
                );
            }
        }
        out
    }
}

/// The pipeline leaf for one 2D agent (see [`Recipe::Pipeline`]).
fn pipeline<V: CrowdVector>(
    k: &Kinematic,
    target: Vec2,
    cx: &Context<'_, V>,
    margin: f32,
    constraint_steps: usize,
    actuator: &HeadFor,
) -> Option<SteeringOutput> {
    let grid = cx.grid?;
    let (obstacles, body, limits) =
        (cx.obstacles.and_then(V::planar_obstacles), cx.radius, cx.limits);
    // one disc constraint per circle obstacle near a segment of the plan, found through the
    // set's BVH instead of a list built per agent
    let discs = FromFn(|_: &Kinematic, plan: &PipelinePlan, g: &Goal| -> Option<Goal> {
        let set = obstacles?;
        plan.segments().find_map(|(a, b)| {
            let reach = Circle::new((a + b) * 0.5, (b - a).length() * 0.5 + body);
            let mut hit: Option<Vec2> = None;
            set.for_each_overlapping(&reach, |_, o| {
                if hit.is_some() {
                    return;
                }
                if let Obstacle::Circle(c) = o {
                    let Ok(disc) = AvoidObstacle::new(c.center, c.radius + body, margin) else {
                        return;
                    };
                    let (closest, _) = closest_point_on_segment(c.center, a, b);
                    let r = disc.radius();
                    if (closest - c.center).length_squared() < r * r {
                        hit = Some(disc.detour(a, b));
                    }
                }
            });
            hit.map(|q| Goal { position: Some(q), ..*g })
        })
    });
    // deadlock: nothing here; the fallback below heads for the sub-goal
    let none = |_: &Kinematic, _: &Limits, _: f32| -> Option<SteeringOutput> { None };
    let actuator = PassThrough { head: actuator, goal: target };
    let mut p = SteeringPipeline::new(
        Goal::at(target),
        PlanningDecomposer::new(grid),
        discs,
        &actuator,
        none,
        constraint_steps,
    );
    let out = p.steer(k, limits, cx.dt);
    if !p.report().deadlocked {
        return Some(out);
    }
    // the planner's sub-goal is a free cell's centre: head straight for it
    let mut plan = PipelinePlan::default();
    actuator.path_into(k, &p.report().decomposed, limits, &mut plan);
    Some(actuator.output(k, &plan, limits))
}

/// Evaluates `recipe` for one agent. Allocates nothing (except the pipeline leaf).
pub(crate) fn evaluate<V: CrowdVector>(
    recipe: &Recipe<V>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    avoid: &mut AvoidState,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let me = &cx.me;
    let limits = cx.limits;
    let point = |t: &Target<V>, notes: &mut Notes<V>| -> Option<V> {
        let p = match t {
            Target::Point(p) => Some(*p),
            Target::Goal => cx.goal,
            Target::Agent(h) => cx.agents.kinematic(*h).map(|k| k.position),
        }?;
        notes.target = Some(p);
        Some(p)
    };
    match recipe {
        Recipe::Seek { target, seek } => seek.steer(me, point(target, notes)?, limits),
        Recipe::Flee { target, flee } => flee.steer(me, point(target, notes)?, limits),
        Recipe::FleeHazards { flee, margin } => {
            let inside = |h: &&super::Hazard<V>| {
                let d = (me.position - h.centre).length();
                (d < h.radius + cx.radius + margin).then_some(d - h.radius)
            };
            let (mut best, mut depth) = (None, f32::INFINITY);
            for h in cx.hazards {
                if let Some(d) = inside(&h) {
                    if d < depth {
                        (best, depth) = (Some(h.centre), d);
                    }
                }
            }
            let centre = best?;
            notes.target = Some(centre);
            flee.steer(me, centre, limits)
        }
        Recipe::Arrive { target, arrive } => arrive.steer(me, point(target, notes)?, limits),
        Recipe::Pursue { target, pursue } => {
            let quarry = cx.agents.kinematic(*target)?;
            notes.target = Some(quarry.position);
            pursue.steer(me, &quarry, limits)
        }
        Recipe::Evade { threat, evade } => {
            let pursuer = cx.agents.kinematic(*threat)?;
            notes.target = Some(pursuer.position);
            evade.steer(me, &pursuer, limits)
        }
        Recipe::VelocityMatch { velocity, matching } => matching.steer(me, *velocity, limits),
        Recipe::Wander(w) => wander(*w, cx, state, notes),
        Recipe::Separation(s) => {
            let k = cx.separations.iter().position(|x| x == s)?;
            s.finish(&cx.summary.separation[k], limits)
        }
        Recipe::Cohesion(c) => cohesion(c, me, limits, cx.summary, notes),
        Recipe::Alignment(a) => alignment(a, me, limits, cx.summary),
        Recipe::CollisionAvoidance(c) => c.steer(me, cx.radius, cx.neighbours, limits),
        Recipe::FollowPath { path, follow } => {
            let path = &cx.paths[path.0 as usize];
            let mut f = follow.with_state(state.path_param);
            let s = f.steer(me, path, limits);
            state.path_param = f.state();
            notes.target = Some(f.target(path));
            // finished at the end of an open path, or within the group's arrive radius of it
            // (a follower arriving there stops just short of the last parameter)
            let near = cx.finish.max(1e-3);
            // the end point is looked up only for a follower already near it
            let at_end = || {
                let end = path.get_position(path.length());
                (end - cx.me.position).length_squared() <= near * near
            };
            if !path.is_looping()
                && (f.is_finished(path, 1e-3) || (f.is_finished(path, near) && at_end()))
            {
                notes.path_finished = true;
            }
            s
        }
        Recipe::Blend(members) => Some(blend(
            members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, avoid, notes))),
            limits,
        )),
        Recipe::RunningSum(members) => Some(running_sum(
            members.iter().map(|(w, r)| (*w, evaluate(r, cx, state, avoid, notes))),
            limits,
        )),
        Recipe::Sequence { first, then } => {
            let stage = if cx.path_done { then } else { first };
            evaluate(stage, cx, state, avoid, notes)
        }
        Recipe::Priority { groups, epsilon } => Some(prioritize(
            groups.iter().map(|r| evaluate(r, cx, state, avoid, notes).unwrap_or_default()),
            *epsilon,
        )),
        Recipe::ObstacleAvoidance(leaf) => {
            let set = cx.obstacles?;
            let mut leaf = leaf.with_state(*avoid);
            let s = V::avoid_obstacles(&mut leaf, me, set, limits, cx.dt);
            *avoid = leaf.state();
            s
        }
        Recipe::WallFeelers(feelers) => {
            let set = V::planar_obstacles(cx.obstacles?)?;
            feelers.steer(&V::planar(me)?, set, limits).map(V::from_planar)
        }
        Recipe::DetectionBox(b) => {
            let set = V::planar_obstacles(cx.obstacles?)?;
            b.steer_in(&V::planar(me)?, cx.radius, set, limits).map(V::from_planar)
        }
        Recipe::RepelObstacle(r) => r.steer_in(me, cx.radius, cx.obstacles?, limits),
        Recipe::Hide { hunter, hide } => {
            let threat = cx.agents.kinematic(*hunter)?;
            notes.target = Some(threat.position);
            let (k, threat) = (V::planar(me)?, V::planar(&threat)?);
            match cx.obstacles.and_then(V::planar_obstacles) {
                Some(set) => hide.steer_in(&k, &threat, set, limits),
                None => hide.steer(&k, &threat, core::iter::empty(), limits),
            }
            .map(V::from_planar)
        }
        Recipe::Interpose { a, b, interpose } => {
            let (a, b) = (cx.agents.kinematic(*a)?, cx.agents.kinematic(*b)?);
            notes.target = Some(interpose.aim(me, &a, &b, limits));
            interpose.steer(me, &a, &b, limits)
        }
        Recipe::OffsetPursuit { leader, pursuit } => {
            let leader = cx.agents.kinematic(*leader)?;
            notes.target = Some(pursuit.slot(&leader));
            pursuit.steer(me, &leader, limits)
        }
        Recipe::ConeCheck(cone) => cone.steer(me, cx.neighbours, limits),
        Recipe::DogOnAString { path, dog } => {
            let path = &cx.paths[path.0 as usize];
            // the leash starts at the path's start
            let mut d =
                dog.with_state(if state.path_param.is_nan() { 0.0 } else { state.path_param });
            let s = d.steer(me, path, limits, cx.dt);
            state.path_param = d.state();
            let leash = d.leash(path);
            notes.target = Some(leash);
            finished(path, d.state(), leash, cx, notes);
            s
        }
        Recipe::Reprojection { path, reprojection } => {
            let path = &cx.paths[path.0 as usize];
            let mut r = reprojection.with_state(state.path_param);
            let s = r.steer(me, path, limits);
            state.path_param = r.state();
            let end = path.get_position(path.length());
            finished(path, r.state(), end, cx, notes);
            s
        }
        Recipe::GrapplingHooks { path, hooks } => {
            let path = &cx.paths[path.0 as usize];
            // the waypoint index, kept exactly in the path parameter (below 2²⁴)
            let mut h = hooks.with_state(WaypointCursor::at(state.path_param as usize));
            let s = h.steer(me, path, limits);
            let cursor = h.state();
            state.path_param = cursor.index(path) as f32;
            notes.target = Some(cursor.target(path));
            if !path.is_looping() && h.is_finished(me, path) {
                notes.path_finished = true;
            }
            s
        }
        Recipe::MillingtonFlock(f) => {
            let sum = cx.summary;
            let k = cx.separations.iter().position(|x| *x == f.separation)?;
            let separation = f.separation.finish(&sum.separation[k], limits);
            let means = (sum.count > 0).then(|| {
                let n = sum.count as f32;
                let center = me.position + sum.offset / n;
                notes.target = Some(center);
                (sum.velocity / n, center)
            });
            Some(f.combine(me, separation, means, limits, |_, _| {}))
        }
        Recipe::BucklandFlock(f) => {
            let sum = cx.summary;
            let k = cx.separations.iter().position(|x| *x == f.separation)?;
            let separation = f.separation.finish(&sum.separation[k], limits);
            let means = (sum.count > 0).then(|| {
                let n = sum.count as f32;
                let mean = if f.alignment.uses_headings() { sum.heading } else { sum.velocity };
                (mean / n, me.position + sum.offset / n)
            });
            let wander =
                || f.wander.as_ref().and_then(|j| self::wander(j.world(), cx, state, notes));
            Some(f.combine(me, separation, means, wander, limits, |_, _| {}))
        }
        Recipe::Dither { members, epsilon } => {
            for (w, p, r) in members {
                if !dither_considers(*p, &mut state.rng) {
                    continue;
                }
                let s = evaluate(r, cx, state, avoid, notes);
                if let Some(s) = dither_output(s, *w, *p, *epsilon, limits) {
                    return Some(s);
                }
            }
            Some(SteeringOutput::ZERO)
        }
        Recipe::LookWhereYoureGoing(look) => V::look_where_going(&look.align, me, limits),
        Recipe::Face { target, face } => {
            let p = point(target, notes)?;
            V::face(&face.align, me, p, limits)
        }
        Recipe::Align { orientation, align } => V::align(align, me, *orientation, limits),
        Recipe::KinematicSeek { target } => {
            let k = KinematicSeek.steer(&me.to_static(), point(target, notes)?, limits);
            Some(SteeringOutput { linear: k.velocity, angular: k.rotation })
        }
        Recipe::KinematicArrive { target, arrive } => {
            let k = arrive.steer(&me.to_static(), point(target, notes)?, limits);
            Some(SteeringOutput { linear: k.velocity, angular: k.rotation })
        }
        Recipe::KinematicWander { rate } => {
            let planar = V::planar(me)?;
            // the library's KinematicWander owns its generator; the crowd's is per agent
            let kick = state.rng.binomial() * rate;
            let rotation = if cx.dt > 0.0 { kick / cx.dt.sqrt() } else { 0.0 };
            Some(V::from_planar(SteeringOutput {
                linear: as_vector(planar.orientation) * limits.max_speed(),
                angular: rotation,
            }))
        }
        Recipe::Pipeline { goal, margin, constraint_steps, actuator, .. } => {
            let k = V::planar(me)?;
            let p = point(goal, notes)?;
            let target = Vec2::new(p.axis(0), p.axis(1));
            pipeline(&k, target, cx, *margin, *constraint_steps, actuator).map(V::from_planar)
        }
        Recipe::Custom(id) => {
            let custom = cx.customs.get(id.0 as usize)?;
            custom.0.steer(&mut AgentContext { cx, rng: &mut state.rng, notes })
        }
        Recipe::Slot(steering) => {
            let t = cx.slot_target?;
            notes.target = Some(V::from_axes([t.position.x, t.position.y, 0.0]));
            steering.steer(&V::planar(me)?, &t, limits).map(V::from_planar)
        }
    }
}

/// The world wander with the agent's wander target and generator (see [`Recipe::Wander`]).
fn wander<V: CrowdVector>(
    w: WorldWander<V>,
    cx: &Context<'_, V>,
    state: &mut BehaviourState<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let mut w = w.with_state(state.wander);
    let out = w.steer(&cx.me, cx.limits, &mut state.rng, cx.dt);
    state.wander = w.state();
    let (steering, target) = out?;
    notes.target = Some(target);
    Some(steering)
}

/// Raises `path_finished` when `param` has reached an open path's end and `point` (the agent's
/// leash or the end itself) is within the finish distance of the agent.
fn finished<V: CrowdVector>(
    path: &Polyline<V>,
    param: f32,
    point: V,
    cx: &Context<'_, V>,
    notes: &mut Notes<V>,
) {
    let end = path.length();
    if !path.is_looping()
        && param >= end - 1e-3
        && (point - cx.me.position).length_squared() <= cx.finish * cx.finish
    {
        notes.path_finished = true;
    }
}

/// The cohesion leaf: steer for the neighbours' centre of mass (none without neighbours).
#[inline(always)]
fn cohesion<V: CrowdVector>(
    c: &Cohesion,
    me: &Kinematic<V>,
    limits: &Limits,
    summary: &Summary<V>,
    notes: &mut Notes<V>,
) -> Option<SteeringOutput<V>> {
    let n = summary.count;
    if n == 0 {
        return None;
    }
    let center = me.position + summary.offset / n as f32;
    notes.target = Some(center);
    c.steer_to(me, center, limits)
}

/// The alignment leaf: steer toward the neighbours' mean velocity or heading.
#[inline(always)]
fn alignment<V: CrowdVector>(
    a: &Alignment,
    me: &Kinematic<V>,
    limits: &Limits,
    summary: &Summary<V>,
) -> Option<SteeringOutput<V>> {
    let n = summary.count;
    if n == 0 {
        return None;
    }
    let sum = if a.uses_headings() { summary.heading } else { summary.velocity };
    a.steer_toward_mean(me, sum / n as f32, limits)
}

/// A leaf of a [`FlatBlend`], with its separation sum resolved once per group.
#[derive(Clone, Copy, Debug)]
enum FlatLeaf {
    /// The separation and the index of its running sum in `Summary::separation`.
    Separation(Separation, usize),
    Cohesion(Cohesion),
    Alignment(Alignment),
}

/// The common flocking shape, `Blend` of separation, cohesion and alignment leaves, flattened
/// when the group is added: evaluated straight from the neighbour sums, without walking the
/// recipe tree or searching the separation sums per agent. The arithmetic and its order are
/// those of [`evaluate`] and [`blend`], so the result is bit-identical.
#[derive(Clone, Debug)]
pub(crate) struct FlatBlend {
    members: Vec<(f32, FlatLeaf)>,
    /// The members in the lane form (`blend::steer_eight`), when every leaf has one.
    lanes: Option<Vec<(f32, LaneLeaf)>>,
}

/// A flat blend's leaf that eight agents evaluate at once in lanes (`blend::steer_eight`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum LaneLeaf {
    /// A summing separation and the index of its running sum.
    Separation(usize),
    /// Cohesion by full-acceleration seek.
    Cohesion,
    /// Heading alignment with its response time (s).
    Alignment(f32),
}

impl FlatBlend {
    /// The flat form of `recipe`, when it has the shape.
    pub(crate) fn of<V: Vector>(recipe: &Recipe<V>, plan: &Plan) -> Option<Self> {
        let Recipe::Blend(members) = recipe else {
            return None;
        };
        let mut flat = FlatBlend { members: Vec::with_capacity(members.len()), lanes: None };
        for (w, r) in members {
            let leaf = match r {
                Recipe::Separation(s) => {
                    FlatLeaf::Separation(*s, plan.separations.iter().position(|x| x == s)?)
                }
                Recipe::Cohesion(c) => FlatLeaf::Cohesion(*c),
                Recipe::Alignment(a) => FlatLeaf::Alignment(*a),
                _ => return None,
            };
            flat.members.push((*w, leaf));
        }
        let lane = |leaf: &FlatLeaf| match *leaf {
            FlatLeaf::Separation(s, k) => s.sums().then_some(LaneLeaf::Separation(k)),
            FlatLeaf::Cohesion(Cohesion::Seek(seek)) => {
                seek.full_acceleration().then_some(LaneLeaf::Cohesion)
            }
            FlatLeaf::Alignment(Alignment::Heading { time_to_target }) => {
                Some(LaneLeaf::Alignment(time_to_target))
            }
            _ => None,
        };
        flat.lanes = flat.members.iter().map(|(w, leaf)| Some((*w, lane(leaf)?))).collect();
        Some(flat)
    }

    /// The members in the lane form, when every leaf has one.
    pub(crate) fn lanes(&self) -> Option<&[(f32, LaneLeaf)]> {
        self.lanes.as_deref()
    }

    /// The blended steering (what [`evaluate`] returns for the recipe, never `None`).
    #[inline]
    fn evaluate<V: CrowdVector>(
        &self,
        me: &Kinematic<V>,
        limits: &Limits,
        summary: &Summary<V>,
        notes: &mut Notes<V>,
    ) -> SteeringOutput<V> {
        let mut sum = SteeringOutput::<V>::ZERO;
        for (w, leaf) in &self.members {
            let s = match leaf {
                FlatLeaf::Separation(s, k) => s.finish(&summary.separation[*k], limits),
                FlatLeaf::Cohesion(c) => cohesion(c, me, limits, summary, notes),
                FlatLeaf::Alignment(a) => alignment(a, me, limits, summary),
            };
            sum = sum + s.unwrap_or_default() * *w;
        }
        sum.clamped(limits.max_acceleration(), limits.max_angular_acceleration())
    }
}

/// Seek, flee or arrive: the leaves a [`Direct`] recipe may be alone.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Toward {
    Seek(Seek),
    Flee(Flee),
    Arrive(Arrive),
}

/// A recipe the step evaluates from the agent, its limits, its goal and its neighbour sums
/// alone, without building the whole context or walking the tree: a [`FlatBlend`], or a single
/// seek, flee or arrive for a fixed point (`Some`) or the agent's goal (`None`), the usual
/// preferred velocity under ORCA. Same arithmetic as [`evaluate`], so bit-identical results.
#[derive(Clone, Debug)]
pub(crate) enum Direct<V: Vector> {
    Blend(FlatBlend),
    Toward(Toward, Option<V>),
}

impl<V: CrowdVector> Direct<V> {
    /// The direct form of `recipe`, when it has one.
    pub(crate) fn of(recipe: &Recipe<V>, plan: &Plan) -> Option<Self> {
        let point = |t: &Target<V>| match t {
            Target::Point(p) => Some(Some(*p)),
            Target::Goal => Some(None),
            Target::Agent(_) => None,
        };
        Some(match recipe {
            Recipe::Seek { target, seek } => Direct::Toward(Toward::Seek(*seek), point(target)?),
            Recipe::Flee { target, flee } => Direct::Toward(Toward::Flee(*flee), point(target)?),
            Recipe::Arrive { target, arrive } => {
                Direct::Toward(Toward::Arrive(*arrive), point(target)?)
            }
            _ => Direct::Blend(FlatBlend::of(recipe, plan)?),
        })
    }

    /// The steering (what [`evaluate`] returns for the recipe, zero for `None`).
    #[inline]
    pub(crate) fn evaluate(
        &self,
        me: &Kinematic<V>,
        limits: &Limits,
        goal: Option<V>,
        summary: &Summary<V>,
        notes: &mut Notes<V>,
    ) -> SteeringOutput<V> {
        match self {
            Direct::Blend(flat) => flat.evaluate(me, limits, summary, notes),
            Direct::Toward(leaf, point) => {
                let Some(p) = point.or(goal) else {
                    return SteeringOutput::default();
                };
                notes.target = Some(p);
                match leaf {
                    Toward::Seek(seek) => seek.steer(me, p, limits),
                    Toward::Flee(flee) => flee.steer(me, p, limits),
                    Toward::Arrive(arrive) => arrive.steer(me, p, limits),
                }
                .unwrap_or_default()
            }
        }
    }
}
