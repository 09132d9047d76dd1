//! Reading the crowd by handle or by storage index, its memory use, and its grid as a
//! neighbour source.

use super::*;

impl<V: CrowdVector> Crowd<V> {
    /// Number of agents (quarantined ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.agents.position.len()
    }

    /// True without agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.agents.position.is_empty()
    }

    /// The storage index of an agent (changes at every step: use it only to read the slices
    /// below, e.g. [`positions`](Self::positions)).
    #[must_use]
    pub fn index_of(&self, h: AgentHandle) -> Option<usize> {
        self.agents.index_of(h)
    }

    /// The handle of the agent at storage index `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[must_use]
    pub fn handle_at(&self, i: usize) -> AgentHandle {
        self.agents.handle_at(i)
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
        &self.agents.position
    }

    /// Velocities in storage order.
    #[must_use]
    pub fn velocities(&self) -> &[V] {
        &self.agents.velocity
    }

    /// Orientations in storage order.
    #[must_use]
    pub fn orientations(&self) -> &[V::Orientation] {
        &self.agents.orientation
    }

    /// Radii in storage order.
    #[must_use]
    pub fn radii(&self) -> &[f32] {
        &self.agents.radius
    }

    /// Last step's steering and targets, in storage order.
    #[must_use]
    pub fn debug_info(&self) -> &[AgentDebug<V>] {
        &self.agents.debug
    }

    /// An agent's kinematic.
    #[must_use]
    pub fn kinematic(&self, h: AgentHandle) -> Option<Kinematic<V>> {
        let i = self.index_of(h)?;
        Some(Kinematic {
            position: self.agents.position[i],
            orientation: self.agents.orientation[i],
            velocity: self.agents.velocity[i],
            rotation: self.agents.rotation[i],
        })
    }

    /// An agent's radius (m).
    #[must_use]
    pub fn radius(&self, h: AgentHandle) -> Option<f32> {
        self.index_of(h).map(|i| self.agents.radius[i])
    }

    /// An agent's limits.
    #[must_use]
    pub fn limits(&self, h: AgentHandle) -> Option<Limits> {
        self.index_of(h).map(|i| self.agents.cold[i].limits)
    }

    /// An agent's group.
    #[must_use]
    pub fn group_of(&self, h: AgentHandle) -> Option<GroupId> {
        self.index_of(h).map(|i| GroupId(self.agents.cold[i].group))
    }

    /// An agent's last steering and target.
    #[must_use]
    pub fn debug(&self, h: AgentHandle) -> Option<AgentDebug<V>> {
        self.index_of(h).map(|i| self.agents.debug[i])
    }

    /// The controls an agent's vehicle used in the last step (its group's
    /// [`Group::motor`]); `None` without a motor, before the first step, or for a stale handle.
    #[must_use]
    pub fn controls(&self, h: AgentHandle) -> Option<crate::motor::Controls> {
        self.index_of(h).and_then(|i| self.agents.controls.get(i).copied().flatten())
    }

    /// An agent's obstacle-avoidance state (its adaptive fan's half angle and committed side),
    /// to draw the rays it casts and their hits: `leaf.with_state(state).cast_rays(..)`. `None`
    /// when no group avoids obstacles or the handle is stale.
    #[must_use]
    pub fn avoidance(&self, h: AgentHandle) -> Option<crate::steering::AvoidanceState> {
        self.agents.avoid.get(self.index_of(h)?).copied()
    }

    /// An agent's path parameter (m of arc length along the path it follows); NaN before its
    /// first step on a path.
    #[must_use]
    pub fn path_param(&self, h: AgentHandle) -> Option<f32> {
        let i = self.index_of(h)?;
        Some(self.agents.memory.get(i).map_or(f32::NAN, |m| m.state.path_param))
    }

    /// True when the agent is quarantined.
    #[must_use]
    pub fn is_quarantined(&self, h: AgentHandle) -> bool {
        self.index_of(h).is_some_and(|i| self.agents.status[i] & QUARANTINED != 0)
    }

    /// True when the agent is stuck now: its group detects it ([`Group::stuck`]), it has
    /// raised `Stuck` and has not moved on since.
    #[must_use]
    pub fn is_stuck(&self, h: AgentHandle) -> bool {
        self.index_of(h).is_some_and(|i| self.agents.cold[i].flags & STUCK != 0)
    }

    /// An agent's goal.
    #[must_use]
    pub fn goal(&self, h: AgentHandle) -> Option<V> {
        let i = self.index_of(h)?;
        (self.agents.cold[i].flags & HAS_GOAL != 0).then(|| self.agents.memory[i].goal)
    }

    /// Where a navigating agent heads next ([`Crowd::set_waypoint`]).
    #[must_use]
    pub fn waypoint(&self, h: AgentHandle) -> Option<Waypoint<V>> {
        let i = self.index_of(h)?;
        self.agents.memory.get(i).and_then(|m| m.waypoint)
    }

    /// The smoothed heading of an agent whose group smooths headings (Buckland: the mean of the
    /// last `n` unit headings, normalised; the raw heading when the mean is near zero). Without
    /// smoothing, the raw heading (unit velocity, or the orientation's forward when still).
    #[must_use]
    pub fn smoothed_heading(&self, h: AgentHandle) -> Option<V> {
        let i = self.index_of(h)?;
        let g = &self.world.groups[self.agents.cold[i].group as usize].spec;
        if g.heading_smoothing > 1 {
            Some(self.agents.smoothed[h.index as usize])
        } else {
            Some(heading(self.agents.velocity[i], self.agents.orientation[i]))
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
        let s = &self.work.scratch;
        let mut total = cap(&self.agents.position)
            + cap(&self.agents.velocity)
            + cap(&self.agents.orientation)
            + cap(&self.agents.rotation)
            + cap(&self.agents.radius)
            + self.agents.soa.bytes()
            + cap(&self.agents.status)
            + cap(&self.agents.cold)
            + cap(&self.agents.memory)
            + cap(&self.agents.debug)
            + cap(&self.agents.slots)
            + cap(&self.agents.free)
            + self.order.grid.bytes()
            + cap(&self.order.keys)
            + cap(&self.order.perm)
            + cap(&self.order.swaps)
            + cap(&s.v)
            + cap(&s.w)
            + cap(&s.f)
            + cap(&s.o)
            + cap(&s.a)
            + cap(&s.u)
            + cap(&s.cold)
            + cap(&s.memory)
            + cap(&s.debug)
            + cap(&self.agents.avoid)
            + cap(&s.avoid)
            + cap(&self.agents.controls)
            + cap(&s.controls)
            + cap(&self.work.push)
            + cap(&self.work.dirty)
            + cap(&self.agents.smooth_ring)
            + cap(&self.agents.smoothed)
            + cap(&self.work.events)
            + self.work.near.bytes();
        for c in &self.work.chunks {
            total += cap(&c.neighbours) + cap(&c.events) + c.block.bytes() + cap(&c.listed);
            total += cap(&c.contacts) + cap(&c.contact_at) + cap(&c.near) + cap(&c.near_span);
        }
        total as f64 / self.len().max(1) as f64
    }

    /// The grid over the agents as a [`Neighbours`] source, rebuilt first if agents moved since
    /// the last rebuild (storage indices change then; handles do not).
    pub fn neighbours(&mut self) -> GridNeighbours<'_, V> {
        if !self.order.grid_fresh {
            let Crowd { config, agents, world, order, work } = self;
            Self::quarantine_unchecked(agents, order, &mut work.pending);
            Self::rebuild(config, agents, world, order, &mut work.scratch, true);
        }
        self.view()
    }

    pub(super) fn view(&self) -> GridNeighbours<'_, V> {
        grid_view!(self.agents, self.order, self.config)
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
}
