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
    ($crowd:expr) => {
        GridNeighbours {
            grid: &$crowd.grid,
            bounds: &$crowd.config.bounds,
            position: &$crowd.position,
            velocity: &$crowd.velocity,
            radius: &$crowd.radius,
            max_radius: $crowd.max_radius,
        }
    };
}

/// Every agent's kinematic by handle, borrowing only the storage fields it reads.
macro_rules! agent_view {
    ($crowd:expr) => {
        AgentView {
            slots: &$crowd.slots,
            position: &$crowd.position,
            velocity: &$crowd.velocity,
            orientation: &$crowd.orientation,
            rotation: &$crowd.rotation,
            status: &$crowd.status,
        }
    };
}

mod advance;
mod blend;
mod commit;
mod compute;
mod contact;
mod custom;
mod formation;
mod grid;
mod rebuild;
mod recipe;
mod scan;
mod space;
mod types;

use custom::CustomEntry;
pub use custom::{AgentContext, BehaviourId, CustomBehaviour};
pub use formation::FormationId;
pub use grid::GridNeighbours;
pub use recipe::{KindInfo, PathId, Recipe, RecipeKind, Target};
use space::Contact;
pub use space::{CrowdVector, WorldBounds};
pub use types::{
    AgentDebug, AgentHandle, AgentSpec, Crowd2, Crowd3, CrowdConfig, CrowdError, CrowdEvent, Group,
    GroupId, Hazard, Stuck, DEFAULT_NON_PENETRATION_PASSES, DEFAULT_NON_PENETRATION_TOLERANCE,
    FAKE_TURN_TIME, MAX_COLLISION_EVENTS_PER_AGENT,
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
use recipe::{evaluate, AvoidState, BehaviourState, Context, Direct, Notes, Plan, Summary};

#[cfg(feature = "parallel")]
use rayon::prelude::*;

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
    state: BehaviourState<V>,
}

impl<V: Vector> Memory<V> {
    /// The memory of a newly spawned agent: its generator seeded from the world seed and the
    /// agent's handle.
    fn new(seed: u64, h: AgentHandle, goal: Option<V>) -> Self {
        let id = u64::from(h.index) | (u64::from(h.generation) << 32);
        Memory {
            goal: goal.unwrap_or(V::ZERO),
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
        custom::check_ids(&spec.recipe, customs.len())?;
        let mut plan = Plan::new(&spec.recipe, customs)?;
        plan.nearest = spec.nearest;
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
}

impl OrcaTag {
    /// The share of the avoidance between `self` and `other` that `self` takes, `None` when it
    /// does not avoid `other` at all.
    #[inline]
    pub(crate) fn share(self, other: OrcaTag) -> Option<f32> {
        if self.mask & other.layers == 0 {
            None
        } else if other.mask & self.layers == 0 {
            Some(1.0)
        } else {
            Some(other.priority / (self.priority + other.priority))
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
    groups: Vec<GroupRt<V>>,
    paths: Vec<Polyline<V>>,
    /// The static world (`set_obstacles`): an `ObstacleSet` in 2D, an `ObstacleSet3` in 3D.
    obstacles: Option<V::Obstacles>,
    // storage, sorted by cell at each rebuild
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
    /// Places to get away from this step (`set_hazards`).
    hazards: Vec<Hazard<V>>,
    /// Each agent's avoidance role this step, in storage order, while some group runs ORCA.
    orca_tags: Vec<OrcaTag>,
    // handles
    slots: Vec<Slot>,
    free: Vec<u32>,
    // grid
    grid: Grid,
    grid_fresh: bool,
    /// The lane code (neighbour scan, moves) runs in AVX2 registers (the CPU has them); the
    /// portable lanes give the same bits, and tests switch this off to show it.
    avx2: bool,
    /// Phases 2 and 3 take runs of eight agents at once in lanes where the space can (the flat
    /// blend, `Space::steer_eight`; the move, `Space::move_eight`): the same bits as one by
    /// one, which tests show by switching this off.
    agent_lanes: bool,
    /// Each agent's cell while the storage is re-sorted, then its new place (the inverse of
    /// `perm`).
    keys: Vec<u32>,
    /// The re-sort: the new storage's agent `k` was agent `perm[k]`.
    perm: Vec<u32>,
    /// The swaps that re-sort the storage when few agents changed cell.
    swaps: Vec<(u32, u32)>,
    scratch: Scratch<V>,
    chunks: Vec<ChunkScratch<V>>,
    push: Vec<(V, V)>,
    max_radius: f32,
    unchecked_writes: bool,
    // heading smoothing, indexed by slot
    smooth_window: usize,
    smooth_ring: Vec<V>,
    smoothed: Vec<V>,
    steps: u64,
    events: Vec<CrowdEvent>,
    pending: Vec<CrowdEvent>,
    // formations (2D), and each member's slot target indexed by handle slot
    formations: Vec<formation::FormationRt>,
    slot_targets: Vec<Option<SlotTarget>>,
    /// Behaviours of the user's own (`Recipe::Custom`), by `BehaviourId`.
    customs: Vec<CustomEntry<V>>,
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
            groups: Vec::new(),
            paths: Vec::new(),
            obstacles: None,
            position: Vec::new(),
            velocity: Vec::new(),
            orientation: Vec::new(),
            rotation: Vec::new(),
            radius: Vec::new(),
            soa: scan::Soa::default(),
            status: Vec::new(),
            cold: Vec::new(),
            memory: Vec::new(),
            memory_on: false,
            debug: Vec::new(),
            avoid: Vec::new(),
            controls: Vec::new(),
            avoid_on: false,
            drive_on: false,
            hazards: Vec::new(),
            orca_tags: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            grid: Grid::default(),
            grid_fresh: false,
            avx2: crate::lanes::avx2(),
            agent_lanes: true,
            keys: Vec::new(),
            perm: Vec::new(),
            swaps: Vec::new(),
            scratch: Scratch::default(),
            chunks: Vec::new(),
            push: Vec::new(),
            max_radius: 0.0,
            unchecked_writes: false,
            smooth_window: 0,
            smooth_ring: Vec::new(),
            smoothed: Vec::new(),
            steps: 0,
            events: Vec::new(),
            pending: Vec::new(),
            formations: Vec::new(),
            slot_targets: Vec::new(),
            customs: Vec::new(),
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

    /// Registers a behaviour of the user's own; recipes name it as
    /// [`Recipe::Custom`]`(id)` in this crowd.
    ///
    /// ```
    /// use steerkit::crowd::{AgentContext, Crowd, CrowdConfig, CustomBehaviour, Group, Recipe};
    /// use steerkit::kinematic::SteeringOutput;
    /// use steerkit::Vec2;
    ///
    /// struct Drift;
    /// impl CustomBehaviour for Drift {
    ///     fn steer(&self, _: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
    ///         Some(SteeringOutput::linear(Vec2::X))
    ///     }
    /// }
    /// let mut crowd = Crowd::new(CrowdConfig::new(2.0))?;
    /// let drift = crowd.add_behaviour(Drift);
    /// crowd.add_group(Group::new(Recipe::Custom(drift)))?;
    /// # Ok::<(), steerkit::crowd::CrowdError>(())
    /// ```
    pub fn add_behaviour(&mut self, behaviour: impl CustomBehaviour<V> + 'static) -> BehaviourId {
        self.customs.push(CustomEntry(std::sync::Arc::new(behaviour)));
        BehaviourId(self.customs.len() as u32 - 1)
    }

    /// Registers a group.
    ///
    /// # Errors
    /// [`CrowdError::Param`] naming an invalid field of the group or its recipe;
    /// [`CrowdError::TooManyGroups`].
    pub fn add_group(&mut self, group: Group<V>) -> Result<GroupId, CrowdError> {
        group.validate(self.paths.len())?;
        Self::check_space(&group.recipe)?;
        let id = u16::try_from(self.groups.len()).map_err(|_| CrowdError::TooManyGroups)?;
        let planar = self.obstacles.as_ref().and_then(V::planar_obstacles);
        self.groups.push(GroupRt::new(group, planar, &self.customs)?);
        self.resize_smoothing();
        self.resize_side_arrays();
        Ok(GroupId(id))
    }

    /// Replaces a group's settings (its agents keep their state).
    ///
    /// # Errors
    /// As [`add_group`](Self::add_group), or [`CrowdError::UnknownGroup`].
    pub fn set_group(&mut self, id: GroupId, group: Group<V>) -> Result<(), CrowdError> {
        group.validate(self.paths.len())?;
        Self::check_space(&group.recipe)?;
        let planar = self.obstacles.as_ref().and_then(V::planar_obstacles);
        let rt = GroupRt::new(group, planar, &self.customs)?;
        let g = self.groups.get_mut(id.0 as usize).ok_or(CrowdError::UnknownGroup(id))?;
        *g = rt;
        self.resize_smoothing();
        self.resize_side_arrays();
        Ok(())
    }

    /// A 3D crowd refuses the planar leaves (wall feelers, detection box, hiding, orientation,
    /// slots, the pipeline), naming the kind.
    fn check_space(recipe: &Recipe<V>) -> Result<(), ParamError> {
        match recipe.planar_leaf() {
            Some(kind) if V::DIM != 2 => Err(ParamError::Invalid {
                name: kind,
                expected: "in a 2D crowd (the leaf is planar)",
            }),
            _ => Ok(()),
        }
    }

    /// A group's settings.
    #[must_use]
    pub fn group(&self, id: GroupId) -> Option<&Group<V>> {
        self.groups.get(id.0 as usize).map(|g| &g.spec)
    }

    /// Registers a path for [`Recipe::FollowPath`].
    pub fn add_path(&mut self, path: Polyline<V>) -> PathId {
        self.paths.push(path);
        PathId(self.paths.len() as u32 - 1)
    }

    /// The registered paths.
    #[must_use]
    pub fn paths(&self) -> &[Polyline<V>] {
        &self.paths
    }

    /// Adds an agent. In a bounded world a centre closer to a face than the radius is moved
    /// in until the body touches the face (the world keeps whole bodies inside).
    ///
    /// # Errors
    /// [`CrowdError::Param`] naming the first bad field (`position`, `velocity`,
    /// `orientation`, `radius`, `goal`) — non-finite values, a negative radius, a velocity above
    /// the agent's `max_speed`, or a position outside a bounded world; [`CrowdError::UnknownGroup`].
    pub fn spawn(&mut self, spec: AgentSpec<V>) -> Result<AgentHandle, CrowdError> {
        let vector = |name: &'static str, v: V| -> Result<(), ParamError> {
            for i in 0..V::DIM {
                crate::error::finite(name, v.axis(i))?;
            }
            Ok(())
        };
        vector("position", spec.position)?;
        vector("velocity", spec.velocity)?;
        if !V::orientation_is_finite(spec.orientation) {
            return Err(ParamError::Invalid { name: "orientation", expected: "finite" }.into());
        }
        non_negative("radius", spec.radius)?;
        if let Some(g) = spec.goal {
            vector("goal", g)?;
        }
        let speed = spec.velocity.length();
        if speed > spec.limits.max_speed() * (1.0 + 1e-6) {
            return Err(ParamError::OutOfRange {
                name: "velocity",
                value: speed,
                range: "at most the agent's max_speed",
            }
            .into());
        }
        if let WorldBounds::Bounded { min, max } = self.config.bounds {
            for i in 0..V::DIM {
                let x = spec.position.axis(i);
                if x < min.axis(i) || x > max.axis(i) {
                    return Err(ParamError::OutOfRange {
                        name: "position",
                        value: x,
                        range: "inside the world bounds",
                    }
                    .into());
                }
            }
        }
        if spec.group.0 as usize >= self.groups.len() {
            return Err(CrowdError::UnknownGroup(spec.group));
        }
        let mut position = spec.position;
        let mut velocity = spec.velocity;
        self.config.bounds.confine(&mut position, &mut velocity, spec.radius);

        if spec.goal.is_some() {
            self.remember();
        }
        let index = self.position.len() as u32;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize].index = index;
                s
            }
            None => {
                self.slots.push(Slot { generation: 0, index });
                self.slots.len() as u32 - 1
            }
        };
        let handle = AgentHandle { index: slot, generation: self.slots[slot as usize].generation };
        self.position.push(position);
        self.velocity.push(velocity);
        self.orientation.push(spec.orientation);
        self.rotation.push(V::ANGULAR_ZERO);
        self.radius.push(spec.radius);
        self.status.push(0);
        self.cold.push(Cold {
            limits: spec.limits,
            slot,
            group: spec.group.0,
            flags: if spec.goal.is_some() { HAS_GOAL } else { 0 },
        });
        if self.memory_on {
            self.memory.push(Memory::new(self.config.seed, handle, spec.goal));
        }
        self.debug.push(AgentDebug::default());
        if self.avoid_on {
            self.avoid.push(AvoidState::default());
        }
        if self.drive_on {
            self.controls.push(None);
        }
        self.max_radius = self.max_radius.max(spec.radius);
        self.grid_fresh = false;
        self.resize_smoothing();
        self.seed_smoothing(slot as usize);
        Ok(handle)
    }

    /// Removes an agent; its handle goes stale.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`] if it was already removed.
    pub fn despawn(&mut self, h: AgentHandle) -> Result<(), CrowdError> {
        self.remove(h)?;
        self.max_radius = self.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        Ok(())
    }

    /// [`Crowd::despawn`] without refreshing the largest radius (the caller does, once).
    fn remove(&mut self, h: AgentHandle) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        self.leave_formations(h);
        self.position.swap_remove(i);
        self.velocity.swap_remove(i);
        self.orientation.swap_remove(i);
        self.rotation.swap_remove(i);
        self.radius.swap_remove(i);
        self.status.swap_remove(i);
        self.cold.swap_remove(i);
        if self.memory_on {
            self.memory.swap_remove(i);
        }
        self.debug.swap_remove(i);
        if self.avoid_on {
            self.avoid.swap_remove(i);
        }
        if self.drive_on {
            self.controls.swap_remove(i);
        }
        if i < self.cold.len() {
            let moved = self.cold[i].slot as usize;
            self.slots[moved].index = i as u32;
        }
        let s = &mut self.slots[h.index as usize];
        s.index = FREE;
        s.generation = s.generation.wrapping_add(1);
        self.free.push(h.index);
        self.grid_fresh = false;
        Ok(())
    }

    /// Takes out the agents that arrived this step in a group that removes them
    /// ([`Group::remove_on_arrival`]).
    fn remove_arrived(&mut self) {
        if !self.groups.iter().any(|g| g.spec.remove_on_arrival) {
            return;
        }
        let mut any = false;
        for k in 0..self.events.len() {
            let CrowdEvent::Arrived { agent } = self.events[k] else {
                continue;
            };
            let leaves = self
                .index_of(agent)
                .is_some_and(|i| self.groups[self.cold[i].group as usize].spec.remove_on_arrival);
            if leaves && self.remove(agent).is_ok() {
                any = true;
            }
        }
        if any {
            self.max_radius = self.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        }
    }

    /// Number of agents (quarantined ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True without agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// The storage index of an agent (changes at every step: use it only to read the slices
    /// below, e.g. [`positions`](Self::positions)).
    #[must_use]
    pub fn index_of(&self, h: AgentHandle) -> Option<usize> {
        let s = self.slots.get(h.index as usize)?;
        (s.generation == h.generation && s.index != FREE).then_some(s.index as usize)
    }

    /// The handle of the agent at storage index `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[must_use]
    pub fn handle_at(&self, i: usize) -> AgentHandle {
        let slot = self.cold[i].slot;
        AgentHandle { index: slot, generation: self.slots[slot as usize].generation }
    }

    /// Every agent's handle, in storage order.
    pub fn handles(&self) -> impl ExactSizeIterator<Item = AgentHandle> + '_ {
        (0..self.len()).map(|i| self.handle_at(i))
    }

    /// True when the handle names a live agent.
    #[must_use]
    pub fn contains(&self, h: AgentHandle) -> bool {
        self.index_of(h).is_some()
    }

    /// Positions in storage order.
    #[must_use]
    pub fn positions(&self) -> &[V] {
        &self.position
    }
    /// Velocities in storage order.
    #[must_use]
    pub fn velocities(&self) -> &[V] {
        &self.velocity
    }
    /// Orientations in storage order.
    #[must_use]
    pub fn orientations(&self) -> &[V::Orientation] {
        &self.orientation
    }
    /// Radii in storage order.
    #[must_use]
    pub fn radii(&self) -> &[f32] {
        &self.radius
    }
    /// Last step's steering and targets, in storage order.
    #[must_use]
    pub fn debug_info(&self) -> &[AgentDebug<V>] {
        &self.debug
    }

    /// An agent's kinematic.
    #[must_use]
    pub fn kinematic(&self, h: AgentHandle) -> Option<Kinematic<V>> {
        let i = self.index_of(h)?;
        Some(Kinematic {
            position: self.position[i],
            orientation: self.orientation[i],
            velocity: self.velocity[i],
            rotation: self.rotation[i],
        })
    }

    /// An agent's radius (m).
    #[must_use]
    pub fn radius(&self, h: AgentHandle) -> Option<f32> {
        self.index_of(h).map(|i| self.radius[i])
    }

    /// An agent's limits.
    #[must_use]
    pub fn limits(&self, h: AgentHandle) -> Option<Limits> {
        self.index_of(h).map(|i| self.cold[i].limits)
    }

    /// An agent's group.
    #[must_use]
    pub fn group_of(&self, h: AgentHandle) -> Option<GroupId> {
        self.index_of(h).map(|i| GroupId(self.cold[i].group))
    }

    /// An agent's last steering and target.
    #[must_use]
    pub fn debug(&self, h: AgentHandle) -> Option<AgentDebug<V>> {
        self.index_of(h).map(|i| self.debug[i])
    }

    /// The controls an agent's vehicle used in the last step (its group's
    /// [`Group::motor`]); `None` without a motor, before the first step, or for a stale handle.
    #[must_use]
    pub fn controls(&self, h: AgentHandle) -> Option<crate::motor::Controls> {
        self.index_of(h).and_then(|i| self.controls.get(i).copied().flatten())
    }

    /// An agent's obstacle-avoidance state (its adaptive fan's half angle and committed side),
    /// to draw the rays it casts and their hits: `leaf.with_state(state).cast_rays(..)`. `None`
    /// when no group avoids obstacles or the handle is stale.
    #[must_use]
    pub fn avoidance(&self, h: AgentHandle) -> Option<crate::steering::AvoidanceState> {
        self.avoid.get(self.index_of(h)?).copied()
    }

    /// An agent's path parameter (m of arc length along the path it follows); NaN before its
    /// first step on a path.
    #[must_use]
    pub fn path_param(&self, h: AgentHandle) -> Option<f32> {
        let i = self.index_of(h)?;
        Some(self.memory.get(i).map_or(f32::NAN, |m| m.state.path_param))
    }

    /// True when the agent is quarantined.
    #[must_use]
    pub fn is_quarantined(&self, h: AgentHandle) -> bool {
        self.index_of(h).is_some_and(|i| self.status[i] & QUARANTINED != 0)
    }

    /// True when the agent is stuck now: its group detects it ([`Group::stuck`]), it has
    /// raised `Stuck` and has not moved on since.
    #[must_use]
    pub fn is_stuck(&self, h: AgentHandle) -> bool {
        self.index_of(h).is_some_and(|i| self.cold[i].flags & STUCK != 0)
    }

    /// Moves an agent into another group: from the next step it runs that group's recipe and
    /// settings. Its kinematic, goal and per-agent behaviour state (wander target, path
    /// parameter, avoidance state) are kept.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::UnknownGroup`].
    pub fn set_agent_group(&mut self, h: AgentHandle, group: GroupId) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        if group.0 as usize >= self.groups.len() {
            return Err(CrowdError::UnknownGroup(group));
        }
        self.cold[i].group = group.0;
        Ok(())
    }

    /// Changes an agent's body radius (m) from the next step.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::Param`] for a negative or non-finite radius.
    pub fn set_radius(&mut self, h: AgentHandle, radius: f32) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        non_negative("radius", radius)?;
        self.radius[i] = radius;
        // the neighbour reach is the largest radius: recomputed so a shrink narrows it again
        self.max_radius = self.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        self.grid_fresh = false;
        Ok(())
    }

    /// Changes an agent's limits from the next step (a speed above the new `max_speed` is
    /// clamped by the step as any request is).
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`].
    pub fn set_limits(&mut self, h: AgentHandle, limits: Limits) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        self.cold[i].limits = limits;
        Ok(())
    }

    /// Sets or clears an agent's goal (clears its `Arrived` state).
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::Param`] for a non-finite goal.
    pub fn set_goal(&mut self, h: AgentHandle, goal: Option<V>) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        if let Some(g) = goal {
            for a in 0..V::DIM {
                crate::error::finite("goal", g.axis(a))?;
            }
        }
        if goal.is_some() {
            self.remember();
        }
        let c = &mut self.cold[i];
        c.flags &= !(ARRIVED | HAS_GOAL | STUCK);
        if goal.is_some() {
            c.flags |= HAS_GOAL;
        }
        if let Some(m) = self.memory.get_mut(i) {
            m.goal = goal.unwrap_or(V::ZERO);
            m.state.stalled = 0.0;
        }
        Ok(())
    }

    /// An agent's goal.
    #[must_use]
    pub fn goal(&self, h: AgentHandle) -> Option<V> {
        let i = self.index_of(h)?;
        (self.cold[i].flags & HAS_GOAL != 0).then(|| self.memory[i].goal)
    }

    /// Overwrites an agent's kinematic **without validation**, as an engine does when its
    /// physics owns the bodies. A non-finite value quarantines the agent at the next step.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`].
    pub fn write_kinematic(&mut self, h: AgentHandle, k: Kinematic<V>) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        self.position[i] = k.position;
        self.velocity[i] = k.velocity;
        self.orientation[i] = k.orientation;
        self.rotation[i] = k.rotation;
        self.unchecked_writes = true;
        self.grid_fresh = false;
        Ok(())
    }

    /// The smoothed heading of an agent whose group smooths headings (Buckland: the mean of the
    /// last `n` unit headings, normalised; the raw heading when the mean is near zero). Without
    /// smoothing, the raw heading (unit velocity, or the orientation's forward when still).
    #[must_use]
    pub fn smoothed_heading(&self, h: AgentHandle) -> Option<V> {
        let i = self.index_of(h)?;
        let g = &self.groups[self.cold[i].group as usize].spec;
        if g.heading_smoothing > 1 {
            Some(self.smoothed[h.index as usize])
        } else {
            Some(heading(self.velocity[i], self.orientation[i]))
        }
    }

    /// Bytes of persistent per-agent state the step reads and writes (the storage arrays), per
    /// agent. The side arrays stored only once something needs them (goals and behaviour state,
    /// obstacle-avoidance state, vehicle controls), the neighbour scan's by-axis copy (rebuilt
    /// every step, unit velocities included), sort keys, the permutation and the re-sort
    /// buffers come on top: see [`bytes_per_agent`](Self::bytes_per_agent).
    #[must_use]
    pub fn hot_bytes_per_agent() -> usize {
        2 * size_of::<V>()
            + size_of::<V::Orientation>()
            + size_of::<V::Angular>()
            + size_of::<f32>()
            + size_of::<u8>()
            + size_of::<Cold>()
            + size_of::<AgentDebug<V>>()
    }

    /// Everything the crowd has allocated (storage, re-sorting buffers, grid cells, handles,
    /// neighbour and event buffers), divided by the number of agents.
    #[must_use]
    pub fn bytes_per_agent(&self) -> f64 {
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * size_of::<T>()
        }
        let s = &self.scratch;
        let mut total = cap(&self.position)
            + cap(&self.velocity)
            + cap(&self.orientation)
            + cap(&self.rotation)
            + cap(&self.radius)
            + self.soa.bytes()
            + cap(&self.status)
            + cap(&self.cold)
            + cap(&self.memory)
            + cap(&self.debug)
            + cap(&self.slots)
            + cap(&self.free)
            + self.grid.bytes()
            + cap(&self.keys)
            + cap(&self.perm)
            + cap(&self.swaps)
            + cap(&s.v)
            + cap(&s.w)
            + cap(&s.f)
            + cap(&s.o)
            + cap(&s.a)
            + cap(&s.u)
            + cap(&s.cold)
            + cap(&s.memory)
            + cap(&s.debug)
            + cap(&self.avoid)
            + cap(&s.avoid)
            + cap(&self.controls)
            + cap(&s.controls)
            + cap(&self.push)
            + cap(&self.smooth_ring)
            + cap(&self.smoothed)
            + cap(&self.events);
        for c in &self.chunks {
            total += cap(&c.neighbours) + cap(&c.events) + c.block.bytes();
        }
        total as f64 / self.len().max(1) as f64
    }

    /// Allocates the side arrays once some group needs them: memory for a recipe evaluated as a
    /// tree, obstacle-avoidance state, vehicle controls.
    fn resize_side_arrays(&mut self) {
        if self.groups.iter().any(|g| g.direct.is_none()) {
            self.remember();
        }
        self.avoid_on |= self.groups.iter().any(|g| g.plan.avoids_obstacles);
        if self.avoid_on {
            self.avoid.resize(self.len(), AvoidState::default());
        }
        self.drive_on |= self.groups.iter().any(|g| g.spec.motor.is_some());
        if self.drive_on {
            self.controls.resize(self.len(), None);
        }
    }

    /// Stores every agent's memory from now on (see [`Memory`]): until now none was read, so
    /// each is the one its agent was spawned with.
    fn remember(&mut self) {
        if !self.memory_on {
            self.memory_on = true;
            let seed = self.config.seed;
            self.memory =
                (0..self.len()).map(|i| Memory::new(seed, self.handle_at(i), None)).collect();
        }
    }

    fn resize_smoothing(&mut self) {
        let w = self.groups.iter().map(|g| g.spec.heading_smoothing as usize).max().unwrap_or(0);
        let w = if w > 1 { w } else { 0 };
        if w != self.smooth_window {
            self.smooth_window = w;
            self.smooth_ring.clear();
            self.smoothed.clear();
            for slot in 0..self.slots.len() {
                self.seed_smoothing(slot);
            }
        }
        if w > 0 {
            self.smooth_ring.resize(self.slots.len() * w, V::ZERO);
            self.smoothed.resize(self.slots.len(), V::ZERO);
        }
    }

    fn seed_smoothing(&mut self, slot: usize) {
        let w = self.smooth_window;
        if w == 0 {
            return;
        }
        self.smooth_ring.resize(self.slots.len() * w, V::ZERO);
        self.smoothed.resize(self.slots.len(), V::ZERO);
        let i = self.slots[slot].index;
        if i == FREE {
            return;
        }
        let h = heading(self.velocity[i as usize], self.orientation[i as usize]);
        self.smooth_ring[slot * w..(slot + 1) * w].fill(h);
        self.smoothed[slot] = h;
    }

    /// The grid over the agents as a [`Neighbours`] source, rebuilt first if agents moved since
    /// the last rebuild (storage indices change then; handles do not).
    pub fn neighbours(&mut self) -> GridNeighbours<'_, V> {
        if !self.grid_fresh {
            self.quarantine_unchecked();
            self.rebuild(true);
        }
        self.view()
    }

    fn view(&self) -> GridNeighbours<'_, V> {
        grid_view!(self)
    }

    /// Green's crowd density around `point`: agents whose centres lie within `radius` m,
    /// divided by the area `π·radius²` (2D) or the volume `4/3·π·radius³` (3D): agents per m²
    /// (per m³ in 3D). A non-positive or non-finite radius gives 0.
    pub fn density(&mut self, point: V, radius: f32) -> f32 {
        if !(radius > 0.0 && radius.is_finite()) {
            return 0.0;
        }
        let n = self.neighbours().count_within(&NeighbourQuery::new(point, radius));
        let measure = if V::DIM == 2 {
            core::f32::consts::PI * radius * radius
        } else {
            4.0 / 3.0 * core::f32::consts::PI * radius * radius * radius
        };
        n as f32 / measure
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
        self.events.clear();
        self.quarantine_unchecked();
        self.events.append(&mut self.pending);
        self.rebuild(false);
        let n = self.len();
        let n_chunks = n.div_ceil(CHUNK);
        if self.chunks.len() < n_chunks {
            self.chunks.resize_with(n_chunks, ChunkScratch::default);
        }
        for c in &mut self.chunks {
            c.events.clear();
            c.max_move = 0.0;
            c.block.clear();
        }
        V::update_formations(self, dt);
        self.compute(dt);
        self.commit(dt);
        if dt > 0.0 {
            self.non_penetration();
        }
        self.smooth_headings();
        self.grid_fresh = false;
        self.steps += 1;
        for c in &self.chunks[..n_chunks.min(self.chunks.len())] {
            self.events.extend_from_slice(&c.events);
        }
        self.events.sort_unstable_by_key(CrowdEvent::order);
        self.remove_arrived();
        Ok(&self.events)
    }

    /// Phase 5: heading smoothing (per slot, so the ring survives re-sorting).
    fn smooth_headings(&mut self) {
        let w = self.smooth_window;
        if w == 0 {
            return;
        }
        let at = (self.steps % w as u64) as usize;
        for (slot, s) in self.slots.iter().enumerate() {
            if s.index == FREE {
                continue;
            }
            let i = s.index as usize;
            let raw = heading(self.velocity[i], self.orientation[i]);
            let ring = &mut self.smooth_ring[slot * w..(slot + 1) * w];
            ring[at] = raw;
            let n =
                (self.groups[self.cold[i].group as usize].spec.heading_smoothing as usize).min(w);
            let mut sum = V::ZERO;
            for back in 0..n.max(1) {
                sum += ring[(at + w - back) % w];
            }
            let mean = sum.normalize_or_zero();
            self.smoothed[slot] = if sum.length_squared() > 1e-12 { mean } else { raw };
        }
    }
}

/// The unit velocity, or the orientation's forward when (nearly) still.
#[inline]
fn heading<V: CrowdVector>(velocity: V, orientation: V::Orientation) -> V {
    let h = velocity.normalize_or_zero();
    if h == V::ZERO {
        V::forward(orientation)
    } else {
        h
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

impl<V: CrowdVector> Crowd<V> {
    /// Sets the static world: an [`ObstacleSet`] (circles, walls, polygons, boxes) for a
    /// `Crowd2`, an [`ObstacleSet3`](crate::geometry::ObstacleSet3) (spheres, boxes) for a
    /// `Crowd3`. From the next step on, an agent's centre never crosses a wall or enters a
    /// solid (the move is refused and the velocity loses its component into the surface), its
    /// body (disc or ball) is pushed back out of whatever it overlaps, and touching a wall or
    /// a solid raises an event once per contact (the same containment in 2D and 3D). A body
    /// in a gap narrower than itself fits nowhere: it is held between the two surfaces, the
    /// push-out passes sharing the overlap. The static-world leaves see the set:
    /// `ObstacleAvoidance` and `RepelObstacle` in 2D and 3D, the other static-world leaves in
    /// 2D.
    ///
    /// Rebuilds the planning grid of every group with a pipeline leaf.
    ///
    /// ```
    /// use steerkit::crowd::{Group, Target};
    /// use steerkit::geometry::{Obstacle3, ObstacleSet3, Sphere};
    /// use steerkit::prelude::*;
    /// use steerkit::steering::RayLayout;
    /// let mut crowd = Crowd3::new(CrowdConfig::new(2.0))?;
    /// let ball = Sphere::new(Vec3::new(8.0, 0.0, 0.0), 2.0);
    /// crowd.set_obstacles(ObstacleSet3::new([Obstacle3::Sphere(ball)])?);
    /// let fan = RayLayout::Fan { half_angle: 0.5, rays: 5 };
    /// let avoid = ObstacleAvoidance::new(fan, 2.0, 3.0)?.with_lookahead_time(1.0)?;
    /// let seek = Recipe::Seek { target: Target::Goal, seek: Seek::new() };
    /// let groups = vec![Recipe::ObstacleAvoidance(avoid), seek];
    /// let recipe = Recipe::Priority { groups, epsilon: Epsilon::new(0.01)? };
    /// let group = crowd.add_group(Group::new(recipe))?;
    /// let limits = Limits::new(3.0, 6.0, 4.0, 20.0)?;
    /// let start = AgentSpec::new(Vec3::ZERO, 0.5, limits, group);
    /// crowd.spawn(AgentSpec { velocity: Vec3::X, goal: Some(Vec3::X * 16.0), ..start })?;
    /// let mut arrived = false;
    /// for _ in 0..300 {
    ///     for e in crowd.step(1.0 / 30.0)? {
    ///         assert!(!matches!(e, CrowdEvent::ObstacleCollision { .. }), "round, not into");
    ///         arrived |= matches!(e, CrowdEvent::Arrived { .. });
    ///     }
    /// }
    /// assert!(arrived);
    /// # Ok::<(), steerkit::crowd::CrowdError>(())
    /// ```
    pub fn set_obstacles(&mut self, obstacles: V::Obstacles) {
        self.obstacles = Some(obstacles);
        let planar = self.obstacles.as_ref().and_then(V::planar_obstacles);
        for g in &mut self.groups {
            // the bounds and cell size were validated when the group was added, so the build
            // cannot fail; a failure would leave the group without a grid (its leaf does nothing)
            if g.plan.build_grid(&g.spec.recipe, planar).is_err() {
                g.plan.grid = None;
            }
        }
    }

    /// The static world, if set.
    #[must_use]
    pub fn obstacles(&self) -> Option<&V::Obstacles> {
        self.obstacles.as_ref()
    }

    /// Replaces the hazards the [`Recipe::FleeHazards`] leaves flee (a program sets them each
    /// step, e.g. the predicted blasts of the grenades in the air). Cost: each such leaf looks
    /// at every hazard, so keep them few.
    ///
    /// # Errors
    /// [`CrowdError::Param`] for a centre that is not finite or a radius that is negative or
    /// not finite; the hazards are then left as they were.
    pub fn set_hazards(&mut self, hazards: &[Hazard<V>]) -> Result<(), CrowdError> {
        for h in hazards {
            if !h.centre.is_finite() {
                return Err(
                    ParamError::Invalid { name: "hazard.centre", expected: "finite" }.into()
                );
            }
            crate::error::non_negative("hazard.radius", h.radius)?;
        }
        self.hazards.clear();
        self.hazards.extend_from_slice(hazards);
        Ok(())
    }

    /// The hazards set last.
    #[must_use]
    pub fn hazards(&self) -> &[Hazard<V>] {
        &self.hazards
    }
}
