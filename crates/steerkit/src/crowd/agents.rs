//! Adding, removing and changing agents by handle, and the side arrays stored only once
//! something needs them.

use super::*;

impl<V: CrowdVector> Crowd<V> {
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
        if spec.group.0 as usize >= self.world.groups.len() {
            return Err(CrowdError::UnknownGroup(spec.group));
        }
        let mut position = spec.position;
        let mut velocity = spec.velocity;
        self.config.bounds.confine(&mut position, &mut velocity, spec.radius);

        if spec.goal.is_some() {
            self.remember();
        }
        let index = self.agents.position.len() as u32;
        let slot = match self.agents.free.pop() {
            Some(s) => {
                self.agents.slots[s as usize].index = index;
                s
            }
            None => {
                self.agents.slots.push(Slot { generation: 0, index });
                self.agents.slots.len() as u32 - 1
            }
        };
        let handle =
            AgentHandle { index: slot, generation: self.agents.slots[slot as usize].generation };
        self.agents.position.push(position);
        self.agents.velocity.push(velocity);
        self.agents.orientation.push(spec.orientation);
        self.agents.rotation.push(V::ANGULAR_ZERO);
        self.agents.radius.push(spec.radius);
        self.agents.status.push(0);
        self.agents.cold.push(Cold {
            limits: spec.limits,
            slot,
            group: spec.group.0,
            flags: if spec.goal.is_some() { HAS_GOAL } else { 0 },
        });
        if self.agents.memory_on {
            self.agents.memory.push(Memory::new(self.config.seed, handle, spec.goal));
        }
        self.agents.debug.push(AgentDebug::default());
        if self.agents.avoid_on {
            self.agents.avoid.push(AvoidState::default());
        }
        if self.agents.drive_on {
            self.agents.controls.push(None);
        }
        self.order.max_radius = self.order.max_radius.max(spec.radius);
        self.order.grid_fresh = false;
        self.order.changes = self.order.changes.wrapping_add(1);
        self.resize_smoothing();
        self.seed_smoothing(slot as usize);
        Ok(handle)
    }

    /// Removes an agent; its handle goes stale.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`] if it was already removed.
    pub fn despawn(&mut self, h: AgentHandle) -> Result<(), CrowdError> {
        Self::remove(&mut self.agents, &mut self.world, &mut self.order, h)?;
        self.order.max_radius = self.agents.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        Ok(())
    }

    /// [`Crowd::despawn`] without refreshing the largest radius (the caller does, once).
    fn remove(
        agents: &mut Agents<V>,
        world: &mut World<V>,
        order: &mut Order,
        h: AgentHandle,
    ) -> Result<(), CrowdError> {
        let i = agents.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        world.leave_formations(h);
        agents.position.swap_remove(i);
        agents.velocity.swap_remove(i);
        agents.orientation.swap_remove(i);
        agents.rotation.swap_remove(i);
        agents.radius.swap_remove(i);
        agents.status.swap_remove(i);
        agents.cold.swap_remove(i);
        if agents.memory_on {
            agents.memory.swap_remove(i);
        }
        agents.debug.swap_remove(i);
        if agents.avoid_on {
            agents.avoid.swap_remove(i);
        }
        if agents.drive_on {
            agents.controls.swap_remove(i);
        }
        if i < agents.cold.len() {
            let moved = agents.cold[i].slot as usize;
            agents.slots[moved].index = i as u32;
        }
        let s = &mut agents.slots[h.index as usize];
        s.index = FREE;
        s.generation = s.generation.wrapping_add(1);
        agents.free.push(h.index);
        order.grid_fresh = false;
        order.changes = order.changes.wrapping_add(1);
        Ok(())
    }

    /// Phase 6: takes out the agents that arrived this step (`events`) in a group that removes
    /// them ([`Group::remove_on_arrival`]).
    pub(super) fn remove_arrived(
        agents: &mut Agents<V>,
        world: &mut World<V>,
        order: &mut Order,
        events: &[CrowdEvent],
    ) {
        if !world.groups.iter().any(|g| g.spec.remove_on_arrival) {
            return;
        }
        let mut any = false;
        for e in events {
            let CrowdEvent::Arrived { agent } = *e else {
                continue;
            };
            let leaves = agents.index_of(agent).is_some_and(|i| {
                world.groups[agents.cold[i].group as usize].spec.remove_on_arrival
            });
            if leaves && Self::remove(agents, world, order, agent).is_ok() {
                any = true;
            }
        }
        if any {
            order.max_radius = agents.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        }
    }

    /// Moves an agent into another group: from the next step it runs that group's recipe and
    /// settings. Its kinematic, goal and per-agent behaviour state (wander target, path
    /// parameter, avoidance state) are kept.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::UnknownGroup`].
    pub fn set_agent_group(&mut self, h: AgentHandle, group: GroupId) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        if group.0 as usize >= self.world.groups.len() {
            return Err(CrowdError::UnknownGroup(group));
        }
        self.agents.cold[i].group = group.0;
        Ok(())
    }

    /// Changes an agent's body radius (m) from the next step.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::Param`] for a negative or non-finite radius.
    pub fn set_radius(&mut self, h: AgentHandle, radius: f32) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        non_negative("radius", radius)?;
        self.agents.radius[i] = radius;
        // the neighbour reach is the largest radius: recomputed so a shrink narrows it again
        self.order.max_radius = self.agents.radius.iter().fold(0.0, |m: f32, &r| m.max(r));
        self.order.grid_fresh = false;
        Ok(())
    }

    /// Changes an agent's limits from the next step (a speed above the new `max_speed` is
    /// clamped by the step as any request is).
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`].
    pub fn set_limits(&mut self, h: AgentHandle, limits: Limits) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        self.agents.cold[i].limits = limits;
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
        let c = &mut self.agents.cold[i];
        c.flags &= !(ARRIVED | HAS_GOAL | STUCK);
        if goal.is_some() {
            c.flags |= HAS_GOAL;
        }
        if let Some(m) = self.agents.memory.get_mut(i) {
            m.goal = goal.unwrap_or(V::ZERO);
            m.waypoint = None;
            m.state.stalled = 0.0;
        }
        Ok(())
    }

    /// Restarts an agent's stuck clock ([`Group::stuck`](crate::crowd::Group::stuck)): a
    /// navigation layer that holds an agent on purpose (waiting for its turn at a narrow
    /// passage) calls it each step it holds it, so the wait is not counted as being stuck.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`].
    pub fn reset_stall(&mut self, h: AgentHandle) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        if let Some(m) = self.agents.memory.get_mut(i) {
            m.state.stalled = 0.0;
        }
        Ok(())
    }

    /// Sets or clears where a navigating agent heads next on the way to its goal (read by
    /// [`Recipe::Navigate`]; a navigation layer sets it each step from the agent's route).
    /// Cleared by [`set_goal`](Self::set_goal). Without a goal it is kept but not used. A
    /// waypoint with `remaining` 0 farther than the group's `arrive_radius` from the goal is a
    /// stop (the agent waits there): under ORCA such an agent yields as an arrived one does,
    /// at half priority and backing away from a walker pressing past it.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`]; [`CrowdError::Param`] for a non-finite point or a negative or
    /// non-finite `remaining`.
    pub fn set_waypoint(
        &mut self,
        h: AgentHandle,
        waypoint: Option<Waypoint<V>>,
    ) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        if let Some(w) = waypoint {
            for a in 0..V::DIM {
                crate::error::finite("waypoint", w.point.axis(a))?;
            }
            crate::error::non_negative("waypoint remaining", w.remaining)?;
            crate::error::positive("waypoint priority", w.priority)?;
            if let Some(lane) = w.lane {
                for a in 0..V::DIM {
                    crate::error::finite("lane point", lane.point.axis(a))?;
                    crate::error::finite("lane normal", lane.normal.axis(a))?;
                }
                if (lane.normal.length() - 1.0).abs() > 1e-3 {
                    let expected = "a unit vector";
                    return Err(ParamError::Invalid { name: "lane normal", expected }.into());
                }
            }
        }
        self.remember();
        self.agents.waypoints_on |= waypoint.is_some();
        if let Some(m) = self.agents.memory.get_mut(i) {
            m.waypoint = waypoint;
        }
        Ok(())
    }

    /// Overwrites an agent's kinematic **without validation**, as an engine does when its
    /// physics owns the bodies. A non-finite value quarantines the agent at the next step.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`].
    pub fn write_kinematic(&mut self, h: AgentHandle, k: Kinematic<V>) -> Result<(), CrowdError> {
        let i = self.index_of(h).ok_or(CrowdError::StaleHandle(h))?;
        // the move counts as the crowd's drift (a game moving its agents a little each frame
        // keeps the Verlet lists); a non-finite one voids them
        let moved = (k.position - self.agents.position[i]).length();
        if moved.is_finite() {
            self.work.near.drift += f64::from(moved);
        } else {
            self.order.changes = self.order.changes.wrapping_add(1);
        }
        self.agents.position[i] = k.position;
        self.agents.velocity[i] = k.velocity;
        self.agents.orientation[i] = k.orientation;
        self.agents.rotation[i] = k.rotation;
        self.agents.unchecked_writes = true;
        self.order.grid_fresh = false;
        Ok(())
    }

    /// Allocates the side arrays once some group needs them: memory for a recipe evaluated as a
    /// tree, obstacle-avoidance state, vehicle controls.
    pub(super) fn resize_side_arrays(&mut self) {
        if self.world.groups.iter().any(|g| g.direct.is_none()) {
            self.remember();
        }
        self.agents.avoid_on |= self.world.groups.iter().any(|g| g.plan.avoids_obstacles);
        if self.agents.avoid_on {
            self.agents.avoid.resize(self.len(), AvoidState::default());
        }
        self.agents.drive_on |= self.world.groups.iter().any(|g| g.spec.motor.is_some());
        if self.agents.drive_on {
            self.agents.controls.resize(self.len(), None);
        }
    }

    /// Stores every agent's memory from now on (see [`Memory`]): until now none was read, so
    /// each is the one its agent was spawned with.
    pub(super) fn remember(&mut self) {
        if !self.agents.memory_on {
            self.agents.memory_on = true;
            let seed = self.config.seed;
            self.agents.memory =
                (0..self.len()).map(|i| Memory::new(seed, self.handle_at(i), None)).collect();
        }
    }
}
