//! The crowd's plain public types: handles, ids, settings, agent specs, events, debug records.

use super::*;

/// A 2D crowd.
pub type Crowd2 = Crowd<Vec2>;
/// A 3D crowd.
pub type Crowd3 = Crowd<Vec3>;

/// A stable name for an agent: valid until the agent is removed (the slot's generation then
/// changes, so an old handle never names a newcomer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AgentHandle {
    /// Slot index.
    pub index: u32,
    /// Slot generation.
    pub generation: u32,
}

/// Index of a group registered with [`Crowd::add_group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GroupId(pub u16);

/// Errors at the crowd's boundary.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CrowdError {
    /// A parameter or agent field is invalid (the error names it).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// No such group.
    #[error("unknown group {0:?}")]
    UnknownGroup(GroupId),
    /// The handle names an agent that was removed.
    #[error("stale agent handle {0:?}")]
    StaleHandle(AgentHandle),
    /// More than 65 536 groups.
    #[error("too many groups")]
    TooManyGroups,
    /// No such formation (never added, or disbanded).
    #[error("unknown formation {0:?}")]
    UnknownFormation(super::FormationId),
}

/// Most [`CrowdEvent::AgentCollision`] events one agent reports per step: a pile of `k` bodies
/// on one point would otherwise report `k²/2` events every step (gigabytes for 20 000), while a
/// body in a packed crowd touches 6 others in 2D, 12 in 3D.
pub const MAX_COLLISION_EVENTS_PER_AGENT: usize = 16;

/// Default cap on the non-penetration passes per step: enough for a packed crowd of large
/// bodies to converge (a dense crossing of 1.5 m bodies needed 16, the crush of 250 at the
/// centre of RVO2's Circle more than 32), while a sparse one stops after a pass or two.
pub const DEFAULT_NON_PENETRATION_PASSES: u32 = 64;
/// Default convergence tolerance of the non-penetration relaxation (m).
pub const DEFAULT_NON_PENETRATION_TOLERANCE: f32 = 1e-3;

/// World-wide settings.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(serialize = "V: serde::Serialize", deserialize = "V: serde::Deserialize<'de>"))
)]
pub struct CrowdConfig<V: Vector = Vec2> {
    /// Neighbourhood radius (m) of the group behaviours, and the grid's cell edge.
    pub neighbour_radius: f32,
    /// World shape.
    pub bounds: WorldBounds<V>,
    /// World seed: each agent's generator is seeded from (seed, handle).
    pub seed: u64,
    /// Report agent–agent collisions (costs a neighbour pass when no group uses
    /// non-penetration); at most [`MAX_COLLISION_EVENTS_PER_AGENT`] a step from one agent.
    pub collision_events: bool,
    /// Most relaxation passes of the non-penetration constraint per step (0 disables it for
    /// all); the relaxation stops earlier, once no push of a pass exceeds
    /// `non_penetration_tolerance`.
    pub non_penetration_passes: u32,
    /// The relaxation has converged when no agent is pushed further than this in a pass (m):
    /// the remaining overlaps are then about this deep.
    pub non_penetration_tolerance: f32,
}

impl<V: Vector> CrowdConfig<V> {
    /// An unbounded world with the given neighbour radius, seed 0, no collision events,
    /// non-penetration relaxed until no push exceeds 1 mm (at most 64 passes).
    #[must_use]
    pub fn new(neighbour_radius: f32) -> Self {
        CrowdConfig {
            neighbour_radius,
            bounds: WorldBounds::Unbounded,
            seed: 0,
            collision_events: false,
            non_penetration_passes: DEFAULT_NON_PENETRATION_PASSES,
            non_penetration_tolerance: DEFAULT_NON_PENETRATION_TOLERANCE,
        }
    }

    /// The same settings in another world shape.
    #[must_use]
    pub fn with_bounds(self, bounds: WorldBounds<V>) -> Self {
        CrowdConfig { bounds, ..self }
    }

    /// The same settings with another seed.
    #[must_use]
    pub fn with_seed(self, seed: u64) -> Self {
        CrowdConfig { seed, ..self }
    }
}

/// Stuck detection (Green's pilot metric): an agent that is trying to get somewhere (it has a
/// goal it has not reached, or follows a path it has not finished) and moves slower than
/// `min_speed` for `time` seconds raises one `Stuck` event (again only after it moves).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stuck {
    /// Seconds (s), > 0.
    pub time: f32,
    /// Speed (m/s) below which the agent makes no progress, ≥ 0.
    pub min_speed: f32,
}

/// What a group of agents shares: the recipe and the per-group options.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "V: serde::Serialize, A: serde::Serialize, P: serde::Serialize",
        deserialize = "V: serde::Deserialize<'de>, A: serde::Deserialize<'de>, P: serde::Deserialize<'de>"
    ))
)]
pub struct Group<V: Vector = Vec2, A = AgentHandle, P = PathId> {
    /// The behaviour recipe. A group is added to a crowd with the crowd's own references
    /// (`Group<V>`); one that names agents and paths its own way (an engine's entities) becomes
    /// one with [`Group::map_refs`].
    pub recipe: Recipe<V, A, P>,
    /// Field of view of the neighbour query (half angle, rad, around the heading); `None` sees
    /// all round.
    pub view_half_angle: Option<f32>,
    /// Buckland's non-penetration constraint: after the move, overlapping agents are pushed
    /// apart.
    pub non_penetration: bool,
    /// Heading smoothing window (Buckland/Green: the mean of the last `n` headings, used for
    /// rendering); 0 or 1 is off.
    pub heading_smoothing: u32,
    /// Turn the orientation to the direction of motion after each step (look where you're
    /// going); otherwise the recipe's angular output drives it.
    pub face_motion: bool,
    /// Distance (m) to the goal at which `Arrived` is raised.
    pub arrive_radius: f32,
    /// Stuck detection, if wanted.
    pub stuck: Option<Stuck>,
    /// Integration scheme and drag.
    pub integration: Integration,
    /// Millington's faked rotation axes (§3.9, [`FakeRotation`]) for a 3D group facing its
    /// motion: instead of the shortest turn to the velocity, the orientation is yawed and
    /// pitched to the velocity and banked by the turn rate (the velocity's heading change per
    /// step, smoothed over [`FAKE_TURN_TIME`] s and kept as the agent's rotation), so a ship or
    /// an aircraft leans into its turns: bank ψ = atan(ω / roll_scale) for a turn rate ω
    /// (rad/s), pitch = the velocity's climb angle. At rest the turn rate decays toward 0 and
    /// the heading is kept; `dt = 0` leaves both as they are. Needs `face_motion`; a 2D crowd
    /// refuses it.
    pub fake_rotation: Option<FakeRotation>,
    /// A vehicle model the agents are driven through (Millington §3.8, 2D only): each step the
    /// recipe's request (m/s², rad/s²) is turned into the vehicle's controls by the motor's
    /// [`DriveMethod`](crate::motor::DriveMethod) and the vehicle's own model moves the agent,
    /// orientation included (`face_motion` and the integrator are not used); the agent's limits
    /// cap the request first ([`Motor::drive_within`](crate::motor::Motor::drive_within)). The controls of the last step are [`Crowd::controls`]. The body
    /// radius stays the agent's collision shape around the vehicle's reference point (a car's
    /// rear axle).
    pub motor: Option<crate::motor::Motor>,
    /// A topological neighbourhood: the group behaviours' neighbour sums (separation, cohesion,
    /// alignment, the flocking presets) take only the `k` nearest neighbours within the
    /// neighbour radius (and view cone), nearest first by distance then storage order. Starlings
    /// interact with their 6–7 nearest whatever the density (Ballerini et al. 2008), so a clump
    /// does not pull harder the denser it gets; the scan still tests every candidate in the
    /// radius, the sums only `k`. `None`: every neighbour within the radius (metric). The
    /// neighbour list of collision avoidance and cone checks is not limited.
    pub nearest: Option<u32>,
    /// Reciprocal collision avoidance ([`Orca`](crate::steering::Orca), 2D and 3D): the
    /// recipe's request gives the preferred velocity `v + a·dt` (within `max_speed`), ORCA picks
    /// the collision-free velocity closest to it among the neighbours within the neighbour
    /// radius (their velocities at the start of the step; shares by priority, agents without
    /// ORCA avoided wholly, layers outside the mask ignored) and the crowd's static obstacles
    /// within `obstacle_time_horizon · max_speed`, and the step's request becomes
    /// `(v_new − v) / dt`. The group must integrate semi-implicitly (`Scheme::SemiImplicit`: it
    /// moves with the new velocity); set `max_acceleration` to at least `max_speed / dt` for
    /// the velocity to be reached in one step, as ORCA assumes; non-penetration stays as a
    /// safety net.
    pub orca: Option<crate::steering::Orca>,
    /// Take an agent out of the crowd at the end of the step it arrives in (its `Arrived`
    /// event names the handle, now stale): the setting of crowd experiments that measure
    /// flow, where the arrived would otherwise crowd the goal area for those still coming.
    pub remove_on_arrival: bool,
}

impl<V: Vector, A, P> Group<V, A, P> {
    /// A group running `recipe`: all-round view, no non-penetration, no smoothing, facing its
    /// motion, arrive radius 0.5 m, no stuck detection, Newton–Euler-1 without drag, arrived
    /// agents stay.
    #[must_use]
    pub fn new(recipe: Recipe<V, A, P>) -> Self {
        Group {
            recipe,
            view_half_angle: None,
            non_penetration: false,
            heading_smoothing: 0,
            face_motion: true,
            arrive_radius: 0.5,
            stuck: None,
            integration: Integration::default(),
            fake_rotation: None,
            motor: None,
            nearest: None,
            orca: None,
            remove_on_arrival: false,
        }
    }

    /// The same group with its recipe's agent and path references mapped
    /// ([`Recipe::map_refs`]); every other setting is kept.
    #[must_use]
    pub fn map_refs<A2, P2>(
        &self,
        agent: &impl Fn(&A) -> A2,
        path: &impl Fn(&P) -> P2,
    ) -> Group<V, A2, P2> {
        Group {
            recipe: self.recipe.map_refs(agent, path),
            view_half_angle: self.view_half_angle,
            non_penetration: self.non_penetration,
            heading_smoothing: self.heading_smoothing,
            face_motion: self.face_motion,
            arrive_radius: self.arrive_radius,
            stuck: self.stuck,
            integration: self.integration,
            fake_rotation: self.fake_rotation,
            motor: self.motor,
            nearest: self.nearest,
            orca: self.orca,
            remove_on_arrival: self.remove_on_arrival,
        }
    }
}

impl<V: Vector> Group<V> {
    pub(super) fn validate(&self, paths: usize) -> Result<(), ParamError> {
        self.recipe.validate(paths)?;
        if let Some(h) = self.view_half_angle {
            ViewCone::new(V::ZERO, h)?;
        }
        non_negative("arrive_radius", self.arrive_radius)?;
        if let Some(s) = self.stuck {
            positive("stuck_time", s.time)?;
            non_negative("stuck_min_speed", s.min_speed)?;
        }
        Integration::new(
            self.integration.scheme,
            self.integration.linear_drag,
            self.integration.angular_drag,
        )?;
        if let Some(f) = self.fake_rotation {
            if V::DIM != 3 {
                return Err(ParamError::Invalid { name: "fake_rotation", expected: "a 3D group" });
            }
            if !self.face_motion {
                return Err(ParamError::Invalid {
                    name: "fake_rotation",
                    expected: "a group that faces its motion (face_motion)",
                });
            }
            FakeRotation::new(f.blend_speed(), f.roll_scale())?;
        }
        if self.orca.is_some() {
            if self.integration.scheme != crate::kinematic::Scheme::SemiImplicit {
                // ORCA's velocity is collision-free for this step only if the agent moves with it
                return Err(ParamError::Invalid {
                    name: "orca",
                    expected: "a group integrating semi-implicitly (Scheme::SemiImplicit)",
                });
            }
            if self.recipe.kinematic_kind().is_some() {
                return Err(ParamError::Invalid {
                    name: "orca",
                    expected: "a steering recipe (a kinematic leaf sets the velocity itself)",
                });
            }
        }
        if self.nearest == Some(0) {
            return Err(ParamError::Invalid { name: "nearest", expected: "at least 1 neighbour" });
        }
        if self.motor.is_some() {
            if V::DIM != 2 {
                return Err(ParamError::Invalid { name: "motor", expected: "a 2D group" });
            }
            if self.recipe.kinematic_kind().is_some() {
                return Err(ParamError::Invalid {
                    name: "motor",
                    expected: "a steering recipe (a kinematic leaf sets the velocity itself)",
                });
            }
        }
        Ok(())
    }
}

/// Where a navigating agent heads next on its way to its goal ([`Crowd::set_waypoint`], read
/// by [`Recipe::Navigate`](crate::crowd::Recipe::Navigate)): a steering point on its route (a
/// path corner, or a point past it when the turn is anticipated) and the route's length from
/// that point on to the goal (m), so that the approach speed is ramped by the whole distance
/// left, not the distance to the corner.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Waypoint<V: Vector = Vec2> {
    /// The steering point (m).
    pub point: V,
    /// The route's length from `point` to the goal (m), ≥ 0.
    pub remaining: f32,
    /// A divider the body keeps to one side of while this waypoint holds (a lane of a
    /// two-way passage), under the group's ORCA; ignored without ORCA.
    #[cfg_attr(feature = "serde", serde(default))]
    pub lane: Option<Lane<V>>,
    /// A factor (> 0, finite; 1: unchanged) on the agent's ORCA priority while this waypoint
    /// holds, for an agent with a goal: with priorities `p_a`, `p_b` (group priority × this
    /// factor, × the arrived factor once arrived) agent `a` takes the share
    /// `p_b / (p_a + p_b)` of the pair's avoidance. A navigation layer orders who gives way
    /// at a narrow place with it.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub priority: f32,
}

#[cfg(feature = "serde")]
fn one() -> f32 {
    1.0
}

/// A lane's divider: the line (2D) or plane (3D) through `point` (m) with unit `normal`
/// pointing to the agent's side. Under ORCA the body's velocity `v` keeps
/// `v·n ≥ min((r − d)/τ_o, 0)`, with `d = (p − point)·n` the centre's distance (m) from the
/// divider on its side, `r` the radius and `τ_o` the obstacle horizon (s): a body on its side
/// closes on the divider no faster than it can stop at contact over `τ_o`, and one across it
/// (or straddling it) may stand or come back but not go further.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Lane<V: Vector = Vec2> {
    /// A point on the divider (m).
    pub point: V,
    /// The unit normal toward the permitted side.
    pub normal: V,
}

/// A new agent.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "V: serde::Serialize, V::Orientation: serde::Serialize",
        deserialize = "V: serde::Deserialize<'de>, V::Orientation: serde::Deserialize<'de>"
    ))
)]
pub struct AgentSpec<V: Vector = Vec2> {
    /// Position (m).
    pub position: V,
    /// Velocity (m/s).
    pub velocity: V,
    /// Orientation.
    pub orientation: V::Orientation,
    /// Body radius (m), ≥ 0.
    pub radius: f32,
    /// Limits.
    pub limits: Limits,
    /// Group.
    pub group: GroupId,
    /// Optional goal (see [`Target::Goal`]).
    pub goal: Option<V>,
}

impl<V: Vector> AgentSpec<V> {
    /// An agent at rest at `position`, facing the default orientation, without a goal.
    #[must_use]
    pub fn new(position: V, radius: f32, limits: Limits, group: GroupId) -> Self {
        AgentSpec {
            position,
            velocity: V::ZERO,
            orientation: V::Orientation::default(),
            radius,
            limits,
            group,
            goal: None,
        }
    }
}

/// Something a game needs to know about, returned by [`Crowd::step`]. Within a step, events are
/// ordered by agent handle, then by kind in declaration order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CrowdEvent {
    /// The agent's state became non-finite (the field is named); it is frozen and ignored.
    Quarantined {
        /// The agent.
        agent: AgentHandle,
        /// `position`, `velocity`, `orientation`, `rotation` or `steering`.
        field: &'static str,
    },
    /// The agent came within its group's arrive radius of its goal (once per goal).
    Arrived {
        /// The agent.
        agent: AgentHandle,
    },
    /// The agent reached the end of an open path (once).
    PathFinished {
        /// The agent.
        agent: AgentHandle,
    },
    /// The agent made no progress for its group's stuck time.
    Stuck {
        /// The agent.
        agent: AgentHandle,
    },
    /// Two bodies overlapped after the move (before non-penetration); reported by the one
    /// with the lower handle, at most [`MAX_COLLISION_EVENTS_PER_AGENT`] a step. Only with
    /// [`CrowdConfig::collision_events`].
    AgentCollision {
        /// The agent with the lower handle.
        agent: AgentHandle,
        /// The other.
        other: AgentHandle,
    },
    /// The agent's body started touching a solid obstacle, or its move into one was refused.
    ObstacleCollision {
        /// The agent.
        agent: AgentHandle,
        /// The obstacle.
        obstacle: ObstacleId,
    },
    /// The agent met a wall: its centre's move across it was refused (Green), or its body
    /// reached the wall and was held off it. Raised once per contact.
    WallCrossing {
        /// The agent.
        agent: AgentHandle,
        /// The wall.
        obstacle: ObstacleId,
    },
}

impl CrowdEvent {
    /// The agent the event is about.
    #[must_use]
    pub fn agent(&self) -> AgentHandle {
        match *self {
            CrowdEvent::Quarantined { agent, .. }
            | CrowdEvent::Arrived { agent }
            | CrowdEvent::PathFinished { agent }
            | CrowdEvent::Stuck { agent }
            | CrowdEvent::AgentCollision { agent, .. }
            | CrowdEvent::ObstacleCollision { agent, .. }
            | CrowdEvent::WallCrossing { agent, .. } => agent,
        }
    }

    pub(super) fn order(&self) -> (AgentHandle, u8, u32) {
        match *self {
            CrowdEvent::Quarantined { agent, .. } => (agent, 0, 0),
            CrowdEvent::Arrived { agent } => (agent, 1, 0),
            CrowdEvent::PathFinished { agent } => (agent, 2, 0),
            CrowdEvent::Stuck { agent } => (agent, 3, 0),
            CrowdEvent::AgentCollision { agent, other } => (agent, 4, other.index),
            CrowdEvent::ObstacleCollision { agent, obstacle } => (agent, 5, obstacle.0),
            CrowdEvent::WallCrossing { agent, obstacle } => (agent, 6, obstacle.0),
        }
    }
}

/// A place to get away from this step (a grenade's predicted blast, a fire): the
/// [`Recipe::FleeHazards`](super::Recipe::FleeHazards) leaf flees the centre of one the agent's
/// body is inside. Set by the program each step with [`Crowd::set_hazards`](super::Crowd::set_hazards).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hazard<V: Vector = Vec2> {
    /// Centre (m).
    pub centre: V,
    /// Radius (m), ≥ 0.
    pub radius: f32,
}

/// What an agent's recipe produced in the last step, for debug drawing and replays.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AgentDebug<V: Vector = Vec2> {
    /// The steering output (m/s², rad/s²) before the integrator's clipping.
    pub steering: SteeringOutput<V>,
    /// The last target point a leaf steered for (seek/arrive target, quarry, path rabbit,
    /// wander target), if any.
    pub target: Option<V>,
}
