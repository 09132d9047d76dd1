//! Walking a recipe tree: its kind, its leaves, what they need, and mapping its handles and
//! paths.

use super::*;
use crate::math::Vector;
use crate::steering::OffsetPursuit;

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
    pub(super) fn any_leaf(&self, property: impl Fn(KindInfo) -> bool) -> bool {
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
        self.for_each_leaf(&mut |r| {
            any |= matches!(r.target(), Some(Target::Goal)) || matches!(r, Recipe::Navigate { .. });
        });
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
            Recipe::Navigate { arrive } => Recipe::Navigate { arrive: *arrive },
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
