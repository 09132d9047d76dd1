//! Registering the crowd's shared parts: groups and their recipes, the user's own behaviours,
//! paths, and the static world and hazards every group's recipe reads.

use super::*;

impl<V: CrowdVector> Crowd<V> {
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
        self.world.customs.push(CustomEntry(std::sync::Arc::new(behaviour)));
        BehaviourId(self.world.customs.len() as u32 - 1)
    }

    /// Registers a group.
    ///
    /// # Errors
    /// [`CrowdError::Param`] naming an invalid field of the group or its recipe;
    /// [`CrowdError::TooManyGroups`].
    pub fn add_group(&mut self, group: Group<V>) -> Result<GroupId, CrowdError> {
        group.validate(self.world.paths.len())?;
        Self::check_space(&group.recipe)?;
        let id = u16::try_from(self.world.groups.len()).map_err(|_| CrowdError::TooManyGroups)?;
        let planar = self.world.obstacles.as_ref().and_then(V::planar_obstacles);
        self.world.groups.push(GroupRt::new(group, planar, &self.world.customs)?);
        self.resize_smoothing();
        self.resize_side_arrays();
        Ok(GroupId(id))
    }

    /// Replaces a group's settings (its agents keep their state).
    ///
    /// # Errors
    /// As [`add_group`](Self::add_group), or [`CrowdError::UnknownGroup`].
    pub fn set_group(&mut self, id: GroupId, group: Group<V>) -> Result<(), CrowdError> {
        group.validate(self.world.paths.len())?;
        Self::check_space(&group.recipe)?;
        let planar = self.world.obstacles.as_ref().and_then(V::planar_obstacles);
        let rt = GroupRt::new(group, planar, &self.world.customs)?;
        let g = self.world.groups.get_mut(id.0 as usize).ok_or(CrowdError::UnknownGroup(id))?;
        *g = rt;
        self.resize_smoothing();
        self.resize_side_arrays();
        Ok(())
    }

    /// A 3D crowd refuses the planar leaves (wall feelers, detection box, hiding, orientation,
    /// slots, the pipeline), naming the kind.
    pub(super) fn check_space(recipe: &Recipe<V>) -> Result<(), ParamError> {
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
        self.world.groups.get(id.0 as usize).map(|g| &g.spec)
    }

    /// Registers a path for [`Recipe::FollowPath`].
    pub fn add_path(&mut self, path: Polyline<V>) -> PathId {
        self.world.paths.push(path);
        PathId(self.world.paths.len() as u32 - 1)
    }

    /// The registered paths.
    #[must_use]
    pub fn paths(&self) -> &[Polyline<V>] {
        &self.world.paths
    }

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
        self.world.obstacles = Some(obstacles);
        let planar = self.world.obstacles.as_ref().and_then(V::planar_obstacles);
        for g in &mut self.world.groups {
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
        self.world.obstacles.as_ref()
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
        self.world.hazards.clear();
        self.world.hazards.extend_from_slice(hazards);
        Ok(())
    }

    /// The hazards set last.
    #[must_use]
    pub fn hazards(&self) -> &[Hazard<V>] {
        &self.world.hazards
    }
}
