//! The crowd engine: many agents stepped together, deterministic and (with the `parallel`
//! feature) multi-threaded.
//!
//! - **Storage**: structure-of-arrays, re-sorted by grid cell every step (a stable counting
//!   sort), so an agent's neighbours sit next to it in memory. Agents are named by generational
//!   [`AgentHandle`]s that survive the re-sorting and go stale when the agent is removed.
//! - **Groups**: every agent belongs to a [`Group`] whose [`Recipe`] (a serialisable tree of
//!   behaviours and combiners) it shares; per-agent behaviour state (wander target, path
//!   parameter, random generator seeded from the world seed and the agent's handle) is a
//!   compact side record.
//! - **Parts**: a crowd's state is four owned parts besides its config, `Agents` (the storage,
//!   the side arrays and the handles), `World` (groups, paths, custom behaviours, formations,
//!   hazards, obstacles), `Order` (the grid and the re-sort) and `Work` (scratch, events, the
//!   step count); each step phase is a function of the parts it reads and writes.
//! - **Step** (`Crowd::step`): rebuild the grid; compute every agent's steering from the
//!   previous state; commit (integrate with the agent's limits, keep centres out of walls and
//!   obstacles and push bodies back out of them, confine to the world); optional
//!   non-penetration; heading smoothing; events.
//! - **Static world** (`Crowd::set_obstacles`): an [`ObstacleSet`](crate::geometry::ObstacleSet)
//!   of circles, walls, polygons and boxes for a [`Crowd2`], an
//!   [`ObstacleSet3`](crate::geometry::ObstacleSet3) of spheres and boxes for a [`Crowd3`],
//!   kept out of by the same containment in both (one generic implementation). The recipe
//!   leaves [`Recipe::ObstacleAvoidance`] and [`Recipe::RepelObstacle`] see it in 2D and 3D;
//!   wall feelers, detection boxes, hiding and the pipeline are 2D only.
//!   Each agent writes only its own slot and chunks are fixed (independent of the thread
//!   count), so 1, 2 or 8 threads give bit-identical results.
//! - **Formations** (2D): `Crowd::add_formation` runs a formation manager over agents, its
//!   anchor steered by a recipe; updated each step before steering, read by
//!   [`Recipe::Slot`].
//! - **Quarantine**: an agent whose state turns non-finite is frozen, reported once and taken
//!   out of every neighbourhood, so it cannot poison anyone.

/// Agents per work chunk. Fixed, so the split never depends on the thread count.
const CHUNK: usize = 512;

// `chunks_mut`/`iter_mut` that run on rayon's pool with the `parallel` feature.
#[cfg(feature = "parallel")]
macro_rules! chunks {
    ($v:expr) => {
        $v.par_chunks_mut(CHUNK)
    };
}
#[cfg(not(feature = "parallel"))]
macro_rules! chunks {
    ($v:expr) => {
        $v.chunks_mut(CHUNK)
    };
}
#[cfg(feature = "parallel")]
macro_rules! each {
    ($v:expr) => {
        $v.par_iter_mut()
    };
}
#[cfg(not(feature = "parallel"))]
macro_rules! each {
    ($v:expr) => {
        $v.iter_mut()
    };
}

/// `chunks!` of a side array that is allocated only when needed: `Some` chunk for each of the
/// storage's `$n` chunks, or `None` for each while the array is empty.
#[cfg(feature = "parallel")]
macro_rules! side_chunks {
    ($v:expr, $n:expr) => {{
        let missing = if $v.is_empty() { $n } else { 0 };
        $v.par_chunks_mut(CHUNK).map(Some).chain((0..missing).into_par_iter().map(|_| None))
    }};
}
#[cfg(not(feature = "parallel"))]
macro_rules! side_chunks {
    ($v:expr, $n:expr) => {{
        let missing = if $v.is_empty() { $n } else { 0 };
        $v.chunks_mut(CHUNK).map(Some).chain((0..missing).map(|_| None))
    }};
}

/// The grid's neighbour queries over the crowd's storage, borrowing only the fields it reads
/// (so the compute phase can hold it while writing other fields).
macro_rules! grid_view {
    ($agents:expr, $order:expr, $config:expr) => {
        GridNeighbours {
            grid: &$order.grid,
            bounds: &$config.bounds,
            position: &$agents.position,
            velocity: &$agents.velocity,
            radius: &$agents.radius,
            max_radius: $order.max_radius,
        }
    };
}

/// Every agent's kinematic by handle, borrowing only the storage fields it reads.
macro_rules! agent_view {
    ($agents:expr) => {
        AgentView {
            slots: &$agents.slots,
            position: &$agents.position,
            velocity: &$agents.velocity,
            orientation: &$agents.orientation,
            rotation: &$agents.rotation,
            status: &$agents.status,
        }
    };
}

mod advance;
mod agents;
mod blend;
mod commit;
mod compute;
mod contact;
mod formation;
mod grid;
mod groups;
mod queries;
mod rebuild;
mod recipe;
mod scan;
mod smoothing;
mod space;
mod types;

pub use formation::FormationId;
pub use grid::GridNeighbours;
pub use recipe::{
    AgentContext, BehaviourId, CustomBehaviour, KindInfo, PathId, Recipe, RecipeKind, Target,
};
use space::{Contact, Space};
pub use space::{WorldBounds, FAKE_TURN_TIME};
pub use types::{
    AgentDebug, AgentHandle, AgentSpec, Crowd2, Crowd3, CrowdConfig, CrowdError, CrowdEvent, Group,
    GroupId, Hazard, Lane, Stuck, Waypoint, DEFAULT_NON_PENETRATION_PASSES,
    DEFAULT_NON_PENETRATION_TOLERANCE, MAX_COLLISION_EVENTS_PER_AGENT,
};

use crate::error::{non_negative, positive, ParamError};
use crate::formation::SlotTarget;
use crate::geometry::{ObstacleId, ObstacleSet};
use crate::kinematic::{Integration, Kinematic, KinematicSteeringOutput, Limits, SteeringOutput};
use crate::math::Rng;
use crate::math::Vector;
use crate::neighbours::{Neighbour, NeighbourQuery, Neighbours, ViewCone};
use crate::path::Polyline;
use crate::three_d::FakeRotation;
use glam::{Vec2, Vec3};
use grid::Grid;
use recipe::{
    evaluate, AvoidState, BehaviourState, Context, CustomEntry, Direct, Notes, Plan, Summary,
};
use smoothing::heading;

#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// A space the crowd engine runs in: `Vec2` or `Vec3`. Sealed: what differs between the two
/// spaces inside the engine lives on crate-private supertraits, so it is no part of the public
/// API: one below the step's phases (facing the motion, the static world, ORCA, planar
/// leaves) and one beside each phase with a per-space form of its own (the lane blend, the
/// lane move, formations).
///
/// The static world of a space (`Crowd::set_obstacles`) is an
/// [`ObstacleSet`](crate::geometry::ObstacleSet) in 2D and an
/// [`ObstacleSet3`](crate::geometry::ObstacleSet3) in 3D.
pub trait CrowdVector:
    Vector
    + Space
    + blend::BlendSpace
    + advance::MoveSpace
    + formation::FormationSpace
    + crate::steering::AvoidanceVector
{
}

impl CrowdVector for Vec2 {}
impl CrowdVector for Vec3 {}

// status bits (read by others during the compute phase)
const QUARANTINED: u8 = 1;
// own flags
const HAS_GOAL: u8 = 1;
const ARRIVED: u8 = 2;
const PATH_DONE: u8 = 4;
const STUCK: u8 = 8;
const TOUCHING: u8 = 16;
/// ORCA's shortcut for a clear agent failed on its last try: in a dense crowd it is tried only
/// every [`RETRY`]th step (in turns by slot), so that scanning for it costs little where it
/// seldom succeeds.
const HELD: u8 = 32;
const RETRY: u64 = 4;

/// Per-agent data that only the agent itself touches during a step, and every step reads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cold {
    limits: Limits,
    slot: u32,
    group: u16,
    flags: u8,
}

/// What an agent remembers from step to step besides its kinematic: its goal and behaviour
/// state. Stored (in storage order) only once something reads it (`memory_on`: an agent has a
/// goal, or a group's recipe is evaluated as a tree, which keeps state). Until then every
/// agent's memory is the one it was spawned with, which follows from its handle, so a crowd of
/// direct recipes neither stores it nor moves it at each re-sort.
#[derive(Clone, Debug, PartialEq)]
struct Memory<V: Vector> {
    goal: V,
    /// Where a navigating agent heads next ([`Crowd::set_waypoint`]).
    waypoint: Option<Waypoint<V>>,
    state: BehaviourState<V>,
}

impl<V: Vector> Memory<V> {
    /// The memory of a newly spawned agent: its generator seeded from the world seed and the
    /// agent's handle.
    fn new(seed: u64, h: AgentHandle, goal: Option<V>) -> Self {
        let id = u64::from(h.index) | (u64::from(h.generation) << 32);
        Memory {
            goal: goal.unwrap_or(V::ZERO),
            waypoint: None,
            state: BehaviourState {
                wander: V::ZERO,
                path_param: f32::NAN,
                stalled: 0.0,
                rng: Rng::new(mix(seed ^ mix(id))),
            },
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Storage index, or `FREE`.
    index: u32,
}
const FREE: u32 = u32::MAX;

/// A group with what the step needs to know about its recipe.
#[derive(Clone, Debug)]
struct GroupRt<V: Vector> {
    spec: Group<V>,
    plan: Plan,
    /// The recipe's direct form, when it has one (the fast path).
    direct: Option<Direct<V>>,
}

impl<V: CrowdVector> GroupRt<V> {
    fn new(
        spec: Group<V>,
        obstacles: Option<&ObstacleSet>,
        customs: &[CustomEntry<V>],
    ) -> Result<Self, ParamError> {
        recipe::check_ids(&spec.recipe, customs.len())?;
        let mut plan = Plan::new(&spec.recipe, customs)?;
        plan.nearest = spec.nearest;
        // a vehicle racing in traffic reads the vehicles around it
        if plan.follows_path && spec.motor.is_some_and(|m| m.traffic.is_some()) {
            plan.needs_neighbours = true;
            plan.needs_list = true;
        }
        plan.build_grid(&spec.recipe, obstacles)?;
        let direct = Direct::of(&spec.recipe, &plan);
        Ok(GroupRt { spec, plan, direct })
    }
}

/// An agent's part in reciprocal avoidance, read by its ORCA neighbours: its layers, the
/// layers it avoids (none for an agent without ORCA) and its priority (arrival included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OrcaTag {
    layers: u32,
    mask: u32,
    priority: f32,
    /// It has arrived at its goal and stands there (and runs ORCA).
    resting: bool,
    /// It has arrived at its goal (and runs ORCA).
    arrived: bool,
    /// It has not arrived and stands by a stop short of its goal (a waypoint with nothing
    /// left after it, farther than the arrival radius from the goal): a navigation layer
    /// holds it there, waiting for its turn at a passage, or its goal is out of reach.
    waiting: bool,
    /// The squared distance to its goal (m²), infinite without one.
    goal_sq: f32,
}

impl OrcaTag {
    /// An agent without ORCA: in every layer, avoiding none.
    pub(crate) const NONE: OrcaTag = OrcaTag {
        layers: u32::MAX,
        mask: 0,
        priority: 1.0,
        resting: false,
        arrived: false,
        waiting: false,
        goal_sq: f32::INFINITY,
    };

    /// How `self` avoids `other` at the squared distance `d_sq` (m²), `None` when it does not
    /// avoid it at all: its share of the avoidance, and whether the pair is at rest. It is
    /// when one of two reciprocal avoiders has arrived and stands, and the other's goal is no
    /// farther than the standing one: it is walking up to its spot beside it, not through it
    /// (an agent whose way leads past a standing one keeps the constraint about the current
    /// velocities, which has the standing one step aside). An arrived agent also keeps
    /// [room](crate::steering::Pair::room) from one whose goal is farther than both
    /// their distance and its own goal (one under way, or one pushed farther off its spot),
    /// which opens a gap too narrow to pass; so does an agent waiting at a stop for one under
    /// way whose goal is farther than their distance. Both agents of a pair read the same tags and
    /// distance, so they agree.
    #[inline]
    pub(crate) fn pair(self, other: OrcaTag, d_sq: f32) -> Option<crate::steering::Pair> {
        use crate::steering::Pair;
        if self.mask & other.layers == 0 {
            None
        } else if other.mask & self.layers == 0 {
            Some(Pair { share: 1.0, rest: false, room: 1.0 })
        } else {
            let share = other.priority / (self.priority + other.priority);
            let rest =
                (self.resting && other.goal_sq <= d_sq) || (other.resting && self.goal_sq <= d_sq);
            // an arrived agent makes room for one whose way leads past it: one under way, or
            // one pushed off its spot farther than this one (arrival is never taken back); a
            // waiting agent for one under way
            let passing = (self.arrived && other.goal_sq > d_sq.max(self.goal_sq))
                || (self.waiting && !other.waiting && !other.arrived && other.goal_sq > d_sq);
            let room = if passing { crate::steering::YIELD_ROOM } else { 1.0 };
            Some(Pair { share, rest, room })
        }
    }
}

#[derive(Clone, Debug, Default)]
struct ChunkScratch<V: CrowdVector> {
    neighbours: Vec<Neighbour<V>>,
    /// ORCA's constraints of the agent being evaluated.
    orca: crate::steering::OrcaScratch,
    /// ORCA's nearest neighbours of the agent being evaluated.
    orca_neighbours: Vec<Neighbour<V>>,
    block: scan::Block<V>,
    events: Vec<CrowdEvent>,
    /// Largest squared move of the chunk's agents this step (m²).
    max_move: f32,
    /// The non-penetration passes' candidates of the chunk's agents, agent `k`'s at
    /// `contacts[contact_at[k]..contact_at[k + 1]]`.
    contacts: Vec<u32>,
    contact_at: Vec<u32>,
    /// ORCA's view of the chunk's agents at the start of the step, for the non-penetration
    /// passes: agent `k`'s neighbours `near[a..b]` (storage order) for `near_span[k] =
    /// (a, b, d²)`, every other agent being at least `√d²` (m) away.
    near: Vec<u32>,
    near_span: Vec<(u32, u32, f32)>,
    /// ORCA's nearest-neighbour lists the chunk made this step, by slot (kept after the phase).
    listed: Vec<(u32, scan::NearList<V>)>,
}

/// Read-only view of every agent's kinematic, for behaviours that name another agent.
#[derive(Clone, Copy)]
pub(crate) struct AgentView<'a, V: Vector> {
    slots: &'a [Slot],
    position: &'a [V],
    velocity: &'a [V],
    orientation: &'a [V::Orientation],
    rotation: &'a [V::Angular],
    status: &'a [u8],
}

impl<V: Vector> AgentView<'_, V> {
    /// The agent's kinematic; `None` when removed or quarantined.
    #[inline]
    pub(crate) fn kinematic(&self, h: AgentHandle) -> Option<Kinematic<V>> {
        let s = self.slots.get(h.index as usize)?;
        if s.generation != h.generation || s.index == FREE {
            return None;
        }
        let i = s.index as usize;
        if self.status[i] & QUARANTINED != 0 {
            return None;
        }
        Some(Kinematic {
            position: self.position[i],
            orientation: self.orientation[i],
            velocity: self.velocity[i],
            rotation: self.rotation[i],
        })
    }
}

/// Reusable buffers for re-sorting the storage.
#[derive(Clone, Debug, Default)]
struct Scratch<V: Vector> {
    v: Vec<V>,
    w: Vec<V>,
    f: Vec<f32>,
    o: Vec<V::Orientation>,
    a: Vec<V::Angular>,
    u: Vec<u8>,
    cold: Vec<Cold>,
    memory: Vec<Memory<V>>,
    debug: Vec<AgentDebug<V>>,
    avoid: Vec<AvoidState>,
    controls: Vec<Option<crate::motor::Controls>>,
}

/// Many agents stepped together. See the module documentation of `crowd` for the step's
/// phases.
///
/// ```
/// use steerkit::crowd::Group;
/// use steerkit::prelude::*;
/// let mut crowd = Crowd2::new(CrowdConfig::new(2.0))?;
/// let flock = crowd.add_group(Group::new(Recipe::Blend(vec![
///     (1.0, Recipe::Separation(Separation::new(1.0, Falloff::Linear)?)),
///     (1.0, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
///     (1.0, Recipe::Alignment(Alignment::heading(0.5)?)),
/// ])))?;
/// let limits = Limits::new(3.0, 6.0, 4.0, 20.0)?;
/// for i in 0..100 {
///     let p = Vec2::new((i % 10) as f32, (i / 10) as f32);
///     crowd.spawn(AgentSpec { velocity: Vec2::X, ..AgentSpec::new(p, 0.2, limits, flock) })?;
/// }
/// for _ in 0..60 {
///     let events = crowd.step(1.0 / 60.0)?;
///     assert!(events.is_empty());
/// }
/// # Ok::<(), steerkit::crowd::CrowdError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Crowd<V: CrowdVector = Vec2> {
    config: CrowdConfig<V>,
    agents: Agents<V>,
    world: World<V>,
    order: Order,
    work: Work<V>,
}

/// The agents' state: the per-agent arrays in storage order (sorted by cell at each rebuild),
/// the side arrays allocated only once something reads them, and the handles.
#[derive(Clone, Debug, Default)]
struct Agents<V: CrowdVector> {
    position: Vec<V>,
    velocity: Vec<V>,
    orientation: Vec<V::Orientation>,
    rotation: Vec<V::Angular>,
    radius: Vec<f32>,
    /// The storage by axis for the data-parallel neighbour scan (rebuilt with the grid).
    soa: scan::Soa,
    status: Vec<u8>,
    cold: Vec<Cold>,
    /// Goals and behaviour state, in storage order; allocated (and re-sorted) only once
    /// something reads them (`memory_on`, see [`Memory`]).
    memory: Vec<Memory<V>>,
    memory_on: bool,
    debug: Vec<AgentDebug<V>>,
    /// Obstacle-avoidance state, in storage order; allocated (and re-sorted) only once some
    /// group's recipe avoids obstacles (`avoid_on`).
    avoid: Vec<AvoidState>,
    avoid_on: bool,
    /// The controls each agent's vehicle used in its last step, in storage order; allocated
    /// (and re-sorted) only once some group drives a vehicle (`drive_on`).
    controls: Vec<Option<crate::motor::Controls>>,
    drive_on: bool,
    /// Each agent's avoidance role this step, in storage order, while some group runs ORCA.
    orca_tags: Vec<OrcaTag>,
    /// Some agent was given a waypoint ([`Crowd::set_waypoint`]): ORCA's tags then read who
    /// waits at a stop short of its goal.
    waypoints_on: bool,
    /// Kinematics were written from outside since the last step (checked for non-finite
    /// values at the next).
    unchecked_writes: bool,
    // handles
    slots: Vec<Slot>,
    free: Vec<u32>,
    // heading smoothing, indexed by slot
    smooth_window: usize,
    smooth_ring: Vec<V>,
    smoothed: Vec<V>,
}

/// What the agents act in and by: groups and their recipes, paths, custom behaviours,
/// formations, hazards and the static obstacles.
#[derive(Clone, Debug)]
struct World<V: CrowdVector> {
    groups: Vec<GroupRt<V>>,
    paths: Vec<Polyline<V>>,
    /// The static world (`set_obstacles`): an `ObstacleSet` in 2D, an `ObstacleSet3` in 3D.
    obstacles: Option<V::Obstacles>,
    /// Places to get away from this step (`set_hazards`).
    hazards: Vec<Hazard<V>>,
    // formations (2D), and each member's slot target indexed by handle slot
    formations: Vec<formation::FormationRt>,
    slot_targets: Vec<Option<SlotTarget>>,
    /// Behaviours of the user's own (`Recipe::Custom`), by `BehaviourId`.
    customs: Vec<CustomEntry<V>>,
}

impl<V: CrowdVector> Default for World<V> {
    fn default() -> Self {
        World {
            groups: Vec::new(),
            paths: Vec::new(),
            obstacles: None,
            hazards: Vec::new(),
            formations: Vec::new(),
            slot_targets: Vec::new(),
            customs: Vec::new(),
        }
    }
}

/// The grid over the storage and the re-sort that keeps the storage in cell order.
#[derive(Clone, Debug, Default)]
struct Order {
    grid: Grid,
    grid_fresh: bool,
    /// The lane code (neighbour scan, moves) runs in AVX2 registers (the CPU has them); the
    /// portable lanes give the same bits, and tests switch this off to show it.
    avx2: bool,
    /// Phases 2 and 3 take runs of eight agents at once in lanes where the space can (the flat
    /// blend, `BlendSpace::steer_eight`; the move, `MoveSpace::move_eight`): the same bits as
    /// one by one, which tests show by switching this off.
    agent_lanes: bool,
    /// ORCA keeps each agent's nearest in a Verlet list off a torus (`scan::NearLists`): the
    /// same bits as a scan every step, which tests show by switching this off.
    verlet: bool,
    /// Each agent's cell while the storage is re-sorted, then its new place (the inverse of
    /// `perm`).
    keys: Vec<u32>,
    /// The re-sort: the new storage's agent `k` was agent `perm[k]`.
    perm: Vec<u32>,
    /// The swaps that re-sort the storage when few agents changed cell.
    swaps: Vec<(u32, u32)>,
    max_radius: f32,
    /// Agents added, removed or quarantined (or written non-finite) so far: the Verlet lists
    /// made before the last such change are void (a finite write between steps counts as
    /// drift instead).
    changes: u32,
}

impl<V: CrowdVector> Agents<V> {
    /// How many agents are stored (quarantined ones included).
    fn len(&self) -> usize {
        self.position.len()
    }

    /// The storage index of a live agent.
    #[inline]
    fn index_of(&self, h: AgentHandle) -> Option<usize> {
        let s = self.slots.get(h.index as usize)?;
        (s.generation == h.generation && s.index != FREE).then_some(s.index as usize)
    }

    /// The handle of the agent at storage index `i` (panics past the end).
    #[inline]
    fn handle_at(&self, i: usize) -> AgentHandle {
        let slot = self.cold[i].slot;
        AgentHandle { index: slot, generation: self.slots[slot as usize].generation }
    }
}

/// The step's reusable buffers, its events and its count.
#[derive(Clone, Debug, Default)]
struct Work<V: CrowdVector> {
    scratch: Scratch<V>,
    chunks: Vec<ChunkScratch<V>>,
    push: Vec<(V, V)>,
    /// Agents whose push the next non-penetration pass works out again.
    dirty: Vec<bool>,
    /// Non-penetration passes of the last step.
    passes: usize,
    /// The longest move of any agent in the non-penetration passes of this step, summed over
    /// the passes (m).
    pushed: f32,
    /// ORCA's nearest neighbours kept from step to step.
    near: scan::NearLists<V>,
    steps: u64,
    events: Vec<CrowdEvent>,
    /// Events raised between steps, reported by the next.
    pending: Vec<CrowdEvent>,
}

/// SplitMix64 finaliser: a well-mixed seed from (world seed, agent id).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn permute<T: Clone + Send + Sync>(data: &mut Vec<T>, scratch: &mut Vec<T>, perm: &[u32]) {
    scratch.clear();
    #[cfg(feature = "parallel")]
    scratch.par_extend(perm.par_iter().map(|&i| data[i as usize].clone()));
    #[cfg(not(feature = "parallel"))]
    scratch.extend(perm.iter().map(|&i| data[i as usize].clone()));
    core::mem::swap(data, scratch);
}

impl<V: CrowdVector> Crowd<V> {
    /// An empty crowd.
    ///
    /// # Errors
    /// [`CrowdError::Param`] when `neighbour_radius` is not finite and positive or the bounds
    /// are invalid.
    pub fn new(config: CrowdConfig<V>) -> Result<Self, CrowdError> {
        positive("neighbour_radius", config.neighbour_radius)?;
        crate::error::non_negative("non_penetration_tolerance", config.non_penetration_tolerance)?;
        config.bounds.validate()?;
        if let WorldBounds::Toroidal { min, max } = config.bounds {
            for i in 0..V::DIM {
                // the minimum image is unique only below half the world
                let half = 0.5 * (max.axis(i) - min.axis(i));
                if config.neighbour_radius >= half {
                    return Err(ParamError::Contradictory {
                        name: "half_world_size",
                        value: half,
                        other: "neighbour_radius",
                        other_value: config.neighbour_radius,
                    }
                    .into());
                }
            }
        }
        Ok(Crowd {
            config,
            agents: Agents::default(),
            world: World::default(),
            order: Order {
                avx2: crate::lanes::avx2(),
                agent_lanes: true,
                verlet: true,
                ..Order::default()
            },
            work: Work::default(),
        })
    }

    /// True when built with the `parallel` feature (steps run on rayon's current pool).
    #[must_use]
    pub const fn is_parallel() -> bool {
        cfg!(feature = "parallel")
    }

    /// The world settings.
    #[must_use]
    pub fn config(&self) -> &CrowdConfig<V> {
        &self.config
    }

    /// Advances every agent by `dt` seconds and returns the step's events (a buffer reused by
    /// the next step).
    ///
    /// Phases: (1) quarantine agents written non-finite, rebuild the grid and re-sort;
    /// (2) compute every agent's steering from this state (neighbours gathered once per agent
    /// from the grid, the group's recipe evaluated); (3) commit: integrate with the agent's
    /// limits and its group's integration, refuse moves whose centre would cross a wall or
    /// enter an obstacle, confine to the world, face the motion, raise arrived/stuck events,
    /// quarantine non-finite results (the previous state is kept); (4) non-penetration
    /// passes; (5) heading smoothing; (6) agents that arrived in a group with
    /// [`Group::remove_on_arrival`] are taken out. `dt = 0` computes steering but moves
    /// nothing.
    ///
    /// # Errors
    /// [`CrowdError::Param`] when `dt` is negative or not finite.
    pub fn step(&mut self, dt: f32) -> Result<&[CrowdEvent], CrowdError> {
        non_negative("dt", dt)?;
        let Crowd { config, agents, world, order, work } = self;
        work.events.clear();
        Self::quarantine_unchecked(agents, order, &mut work.pending);
        work.events.append(&mut work.pending);
        Self::rebuild(config, agents, world, order, &mut work.scratch, false);
        let n_chunks = work.begin(agents.len());
        V::update_formations(agents, world, dt);
        Self::compute(config, agents, world, order, work, dt);
        Self::commit(config, agents, world, order, work, dt);
        work.pushed = 0.0;
        if dt > 0.0 {
            Self::non_penetration(config, agents, world, order, work);
        }
        Self::smooth_headings(agents, world, work);
        order.grid_fresh = false;
        work.end(n_chunks);
        if work.events.iter().any(|e| matches!(e, CrowdEvent::Quarantined { .. })) {
            order.changes = order.changes.wrapping_add(1);
        }
        Self::remove_arrived(agents, world, order, &work.events);
        Ok(&work.events)
    }
}

impl<V: CrowdVector> Work<V> {
    /// Readies one scratch per chunk of `n` agents for the step; returns the chunk count.
    fn begin(&mut self, n: usize) -> usize {
        let n_chunks = n.div_ceil(CHUNK);
        if self.chunks.len() < n_chunks {
            self.chunks.resize_with(n_chunks, ChunkScratch::default);
        }
        for c in &mut self.chunks {
            c.events.clear();
            c.max_move = 0.0;
            c.block.clear();
        }
        n_chunks
    }

    /// Counts the step and gathers the chunks' events after the step's own, in report order.
    fn end(&mut self, n_chunks: usize) {
        self.steps += 1;
        // no agent moved farther this step than its longest move and the longest of each
        // non-penetration pass together
        let moved = self.chunks[..n_chunks.min(self.chunks.len())]
            .iter()
            .fold(0.0f32, |m, c| m.max(c.max_move))
            .sqrt();
        self.near.drift += f64::from(moved) + f64::from(self.pushed);
        for c in &self.chunks[..n_chunks.min(self.chunks.len())] {
            self.events.extend_from_slice(&c.events);
        }
        self.events.sort_unstable_by_key(CrowdEvent::order);
    }
}

fn non_finite_field<V: Vector>(k: &Kinematic<V>) -> Option<&'static str> {
    if !k.position.is_finite() {
        Some("position")
    } else if !k.velocity.is_finite() {
        Some("velocity")
    } else if !V::orientation_is_finite(k.orientation) {
        Some("orientation")
    } else if !V::angular_is_finite(k.rotation) {
        Some("rotation")
    } else {
        None
    }
}
