//! The steering pipeline (Millington §3.4.5, after Marcin Chady): cooperative arbitration in four
//! stages.
//!
//! 1. **Targeters** fill the channels of a [`Goal`] (position, orientation, velocity, rotation);
//!    their goals merge in order, a later targeter winning on every channel it sets.
//! 2. **Decomposers** replace the goal by a nearer sub-goal, in order (a coarse planner first,
//!    finer ones after it): [`PlanningDecomposer`] runs A* on a [`Graph`].
//! 3. **Constraints** review the route the actuator predicts ([`Plan`]) and, when it violates
//!    them, suggest a new goal; the actuator re-plans, up to `constraint_steps` times.
//! 4. The **actuator** returns the plan, and once no constraint objects, the steering output.
//!    When the steps run out, the **deadlock** behaviour takes over for the frame.
//!
//! Components are generic (no `dyn`, no allocation per frame): a tuple of targeters is a
//! targeter (merged in order), a tuple of decomposers a decomposer (applied in order), a tuple or
//! `Vec` of constraints a constraint (the first violated one, in order, suggests). The pipeline
//! keeps its plan buffer between frames.

mod components;
mod graph;

pub use components::{AvoidObstacle, ChaseTargeter, PlanningDecomposer, WallConstraint};
pub use graph::{AStar, Graph, GridGraph, WaypointGraph};

use crate::kinematic::{sanitize, Kinematic, Limits, SteeringOutput};
use crate::math::{orientation_of, Vector};
use crate::steering::{Align, Arrive, VelocityMatch, Wander, WanderJitter};
use glam::Vec2;

/// What a character should achieve (§3.4.5): four channels, each optional ("don't care").
///
/// Targeters fill channels, decomposers and constraints replace them, and the actuator decides
/// which it can honour. [`Goal::update_channels`] merges two goals, the other one winning on every
/// channel it sets (the book's `updateChannels`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Goal<V: Vector = Vec2> {
    /// Where to be (m).
    pub position: Option<V>,
    /// Which way to face (rad in 2D).
    pub orientation: Option<V::Orientation>,
    /// How fast to be moving (m/s), at the position if there is one.
    pub velocity: Option<V>,
    /// How fast to be turning (rad/s).
    pub rotation: Option<V::Angular>,
}

impl<V: Vector> Goal<V> {
    /// A goal with only a position.
    #[must_use]
    pub fn at(position: V) -> Self {
        Goal { position: Some(position), orientation: None, velocity: None, rotation: None }
    }

    /// A goal with only an orientation.
    #[must_use]
    pub fn facing(orientation: V::Orientation) -> Self {
        Goal { position: None, orientation: Some(orientation), velocity: None, rotation: None }
    }

    /// The same goal with a position.
    #[must_use]
    pub fn with_position(mut self, position: V) -> Self {
        self.position = Some(position);
        self
    }

    /// The same goal with an orientation.
    #[must_use]
    pub fn with_orientation(mut self, orientation: V::Orientation) -> Self {
        self.orientation = Some(orientation);
        self
    }

    /// The same goal with a velocity.
    #[must_use]
    pub fn with_velocity(mut self, velocity: V) -> Self {
        self.velocity = Some(velocity);
        self
    }

    /// The same goal with a rotation.
    #[must_use]
    pub fn with_rotation(mut self, rotation: V::Angular) -> Self {
        self.rotation = Some(rotation);
        self
    }

    /// Copies every channel `other` sets into `self` (the other goal wins).
    #[doc(alias = "updateChannels")]
    pub fn update_channels(&mut self, other: &Goal<V>) {
        self.position = other.position.or(self.position);
        self.orientation = other.orientation.or(self.orientation);
        self.velocity = other.velocity.or(self.velocity);
        self.rotation = other.rotation.or(self.rotation);
    }

    /// True when no channel is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.position.is_none()
            && self.orientation.is_none()
            && self.velocity.is_none()
            && self.rotation.is_none()
    }
}

/// What an actuator intends: a polyline of points and the goal it adopted (the book's opaque
/// pipeline path, as point-to-point line segments).
///
/// `points[0]` is the character's position; the segments `points[i] → points[i+1]` are the
/// straight-line approximation of the route (a constraint checks them, e.g. against obstacles),
/// and the last point is where the goal is met. A plan with one point means "stay here" (only
/// non-positional channels, or nothing, to meet). `goal` is the input goal minus the channels the
/// actuator dropped because it cannot meet them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Plan<V: Vector = Vec2> {
    /// The route, starting at the character's position.
    pub points: Vec<V>,
    /// The channels the actuator will honour.
    pub goal: Goal<V>,
}

impl<V: Vector> Plan<V> {
    /// The route's segments, in order.
    pub fn segments(&self) -> impl Iterator<Item = (V, V)> + '_ {
        self.points.windows(2).map(|w| (w[0], w[1]))
    }

    /// The route's length (m).
    #[must_use]
    pub fn length(&self) -> f32 {
        self.segments().map(|(a, b)| (b - a).length()).sum()
    }
}

/// The last stage of a steering pipeline (§3.4.5): given a goal, say how the character will
/// move ([`Actuator::path_into`]), and once the constraints accept that, the request that
/// follows it ([`Actuator::output`]).
///
/// The pipeline calls `path_into` every frame from the current state, possibly several times
/// with goals amended by constraints, into a buffer it reuses, then `output` on the accepted
/// plan. Actuators are stateless (`&self`): everything they need is in the character, the plan
/// and the limits.
pub trait Actuator<V: Vector = Vec2> {
    /// Writes into `plan` the route the character would take to `goal` and the channels it will
    /// honour (replacing what `plan` held; its allocation is reused).
    fn path_into(
        &self,
        character: &Kinematic<V>,
        goal: &Goal<V>,
        limits: &Limits,
        plan: &mut Plan<V>,
    );

    /// [`path_into`](Actuator::path_into) into a new plan (allocates; for one-off use).
    fn path(&self, character: &Kinematic<V>, goal: &Goal<V>, limits: &Limits) -> Plan<V> {
        let mut plan = Plan { points: Vec::new(), goal: Goal::default() };
        self.path_into(character, goal, limits, &mut plan);
        plan
    }

    /// The steering request (m/s², rad/s²) that follows `plan`.
    fn output(
        &self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        limits: &Limits,
    ) -> SteeringOutput<V>;
}

impl<V: Vector, A: Actuator<V> + ?Sized> Actuator<V> for &A {
    fn path_into(
        &self,
        character: &Kinematic<V>,
        goal: &Goal<V>,
        limits: &Limits,
        plan: &mut Plan<V>,
    ) {
        (**self).path_into(character, goal, limits, plan);
    }
    fn output(
        &self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        limits: &Limits,
    ) -> SteeringOutput<V> {
        (**self).output(character, plan, limits)
    }
}

/// The simple actuator of §3.4.5 for characters that move in any direction (a sentry, a ghost,
/// a person with [`Human`](crate::motor::Human) behind it): head straight for the position and
/// face it.
///
/// - With a position: the plan is `[p, position]`; the output arrives there
///   ([`Arrive`]) while facing the position ([`Align`] toward `position − p`), then aligns to the
///   goal's orientation if it has one. Velocity and rotation are dropped.
/// - Without a position but with a velocity: matches it (`(v* − v) / time_to_target`) and faces
///   along it; the plan is `[p, p + v*·1 s]`.
/// - With only an orientation: turns to it; the plan is `[p]`.
/// - An empty goal: brakes to rest (arrive at the current position).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "BasicActuator")]
pub struct HeadFor {
    /// The positional behaviour.
    pub arrive: Arrive,
    /// The facing behaviour.
    pub align: Align,
}

impl HeadFor {
    /// An actuator from an arrive and an align.
    #[must_use]
    pub fn new(arrive: Arrive, align: Align) -> Self {
        HeadFor { arrive, align }
    }
}

impl Actuator<Vec2> for HeadFor {
    fn path_into(&self, character: &Kinematic, goal: &Goal, _limits: &Limits, plan: &mut Plan) {
        let p = character.position;
        plan.points.clear();
        plan.points.push(p);
        plan.goal = Goal { orientation: goal.orientation, ..Goal::default() };
        if let Some(target) = goal.position {
            plan.goal.position = Some(target);
            plan.points.push(target);
        } else if let Some(v) = goal.velocity {
            plan.goal.velocity = Some(v);
            plan.points.push(p + v);
        }
    }

    fn output(&self, character: &Kinematic, plan: &Plan, limits: &Limits) -> SteeringOutput {
        let goal = &plan.goal;
        let p = character.position;
        let linear = if let Some(target) = goal.position {
            self.arrive.steer(character, target, limits).map_or(Vec2::ZERO, |s| s.linear)
        } else if let Some(v) = goal.velocity {
            VelocityMatch::acceleration(character.velocity, v, self.arrive.time_to_target(), limits)
        } else {
            self.arrive.steer(character, p, limits).map_or(Vec2::ZERO, |s| s.linear)
        };
        let facing = match (goal.position, goal.velocity) {
            (Some(target), _) if !self.arrive.is_inside(p, target) && target != p => {
                Some(orientation_of(target - p))
            }
            (None, Some(v)) if goal.orientation.is_none() && v != Vec2::ZERO => {
                Some(orientation_of(v))
            }
            _ => goal.orientation,
        };
        let angular =
            facing.and_then(|o| self.align.steer(character, o, limits)).map_or(0.0, |s| s.angular);
        sanitize(&SteeringOutput { linear, angular })
    }
}

/// The first stage: a source of goal channels (§3.4.5). A tuple of targeters is a targeter whose
/// goals merge in order (the later one winning on each channel it sets).
pub trait Targeter<V: Vector = Vec2> {
    /// The channels this targeter wants for `character` (unset channels: "don't care").
    fn goal(&mut self, character: &Kinematic<V>) -> Goal<V>;
}

/// The second stage: turns a goal into a nearer sub-goal (§3.4.5), or returns it unchanged when
/// it cannot. A tuple of decomposers applies them in order, each receiving the previous output.
pub trait Decomposer<V: Vector = Vec2> {
    /// The sub-goal for `character` toward `goal`.
    fn decompose(&mut self, character: &Kinematic<V>, goal: Goal<V>) -> Goal<V>;
}

/// The third stage: reviews a plan and, when it is violated, suggests a new goal (§3.4.5).
///
/// The book's `willViolate` + `suggest` pair is one call here: `check` returns the suggestion
/// when the plan violates the constraint and `None` otherwise, so nothing has to be cached
/// between two calls. A suggestion copies the channels the constraint does not need from `goal`.
/// A tuple or `Vec` of constraints is a constraint: members are checked in order and the first
/// violated one suggests ([`Constraint::check_indexed`] also says which, counting members flat).
pub trait Constraint<V: Vector = Vec2> {
    /// `Some(new goal)` when `plan` violates the constraint.
    fn check(
        &mut self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        goal: &Goal<V>,
    ) -> Option<Goal<V>>;

    /// [`check`](Constraint::check), with the index of the violated member (0 for a single
    /// constraint).
    fn check_indexed(
        &mut self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        goal: &Goal<V>,
    ) -> Option<(usize, Goal<V>)> {
        self.check(character, plan, goal).map(|g| (0, g))
    }

    /// How many constraints this is (1; the sum of the members for a list).
    fn count(&self) -> usize {
        1
    }
}

/// What takes exclusive control when the constraints cannot be satisfied within
/// `constraint_steps` (§3.4.5): any steering behaviour, often a wander. Implemented for
/// [`Wander`], [`WanderJitter`] and for closures
/// `FnMut(&Kinematic, &Limits, dt) -> Option<SteeringOutput>`.
pub trait Deadlock<V: Vector = Vec2> {
    /// The request for this frame (`None`: nothing, i.e. zero).
    fn steer(
        &mut self,
        character: &Kinematic<V>,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<V>>;
}

impl<V: Vector, F> Deadlock<V> for F
where
    F: FnMut(&Kinematic<V>, &Limits, f32) -> Option<SteeringOutput<V>>,
{
    fn steer(
        &mut self,
        character: &Kinematic<V>,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<V>> {
        self(character, limits, dt)
    }
}

impl Deadlock<Vec2> for Wander {
    fn steer(&mut self, character: &Kinematic, limits: &Limits, dt: f32) -> Option<SteeringOutput> {
        Wander::steer(self, character, limits, dt)
    }
}

impl Deadlock<Vec2> for WanderJitter {
    fn steer(&mut self, character: &Kinematic, limits: &Limits, dt: f32) -> Option<SteeringOutput> {
        WanderJitter::steer(self, character, limits, dt)
    }
}

/// A closure as a pipeline component: `FnMut(&Kinematic) -> Goal` is a [`Targeter`],
/// `FnMut(&Kinematic, Goal) -> Goal` a [`Decomposer`] and
/// `FnMut(&Kinematic, &Plan, &Goal) -> Option<Goal>` a [`Constraint`].
#[derive(Clone, Copy, Debug)]
pub struct FromFn<F>(pub F);

impl<V: Vector, F: FnMut(&Kinematic<V>) -> Goal<V>> Targeter<V> for FromFn<F> {
    fn goal(&mut self, character: &Kinematic<V>) -> Goal<V> {
        (self.0)(character)
    }
}

impl<V: Vector, F: FnMut(&Kinematic<V>, Goal<V>) -> Goal<V>> Decomposer<V> for FromFn<F> {
    fn decompose(&mut self, character: &Kinematic<V>, goal: Goal<V>) -> Goal<V> {
        (self.0)(character, goal)
    }
}

impl<V: Vector, F> Constraint<V> for FromFn<F>
where
    F: FnMut(&Kinematic<V>, &Plan<V>, &Goal<V>) -> Option<Goal<V>>,
{
    fn check(
        &mut self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        goal: &Goal<V>,
    ) -> Option<Goal<V>> {
        (self.0)(character, plan, goal)
    }
}

/// A fixed goal as a targeter.
impl<V: Vector> Targeter<V> for Goal<V> {
    fn goal(&mut self, _character: &Kinematic<V>) -> Goal<V> {
        *self
    }
}

// No component at all: an empty goal, the goal unchanged, never violated.
impl<V: Vector> Targeter<V> for () {
    fn goal(&mut self, _character: &Kinematic<V>) -> Goal<V> {
        Goal::default()
    }
}
impl<V: Vector> Decomposer<V> for () {
    fn decompose(&mut self, _character: &Kinematic<V>, goal: Goal<V>) -> Goal<V> {
        goal
    }
}
impl<V: Vector> Constraint<V> for () {
    fn check(&mut self, _: &Kinematic<V>, _: &Plan<V>, _: &Goal<V>) -> Option<Goal<V>> {
        None
    }
    fn count(&self) -> usize {
        0
    }
}

macro_rules! tuple_components {
    ($($name:ident $idx:tt),+) => {
        impl<V: Vector, $($name: Targeter<V>),+> Targeter<V> for ($($name,)+) {
            fn goal(&mut self, character: &Kinematic<V>) -> Goal<V> {
                let mut goal = Goal::default();
                $(goal.update_channels(&self.$idx.goal(character));)+
                goal
            }
        }
        impl<V: Vector, $($name: Decomposer<V>),+> Decomposer<V> for ($($name,)+) {
            fn decompose(&mut self, character: &Kinematic<V>, goal: Goal<V>) -> Goal<V> {
                $(let goal = self.$idx.decompose(character, goal);)+
                goal
            }
        }
        impl<V: Vector, $($name: Constraint<V>),+> Constraint<V> for ($($name,)+) {
            fn check(&mut self, character: &Kinematic<V>, plan: &Plan<V>, goal: &Goal<V>)
                -> Option<Goal<V>> {
                self.check_indexed(character, plan, goal).map(|(_, g)| g)
            }
            fn check_indexed(&mut self, character: &Kinematic<V>, plan: &Plan<V>, goal: &Goal<V>)
                -> Option<(usize, Goal<V>)> {
                let mut offset = 0;
                $(
                    if let Some((i, g)) = self.$idx.check_indexed(character, plan, goal) {
                        return Some((offset + i, g));
                    }
                    offset += self.$idx.count();
                )+
                let _ = offset;
                None
            }
            fn count(&self) -> usize {
                0 $(+ self.$idx.count())+
            }
        }
    };
}

tuple_components!(A 0);
tuple_components!(A 0, B 1);
tuple_components!(A 0, B 1, C 2);
tuple_components!(A 0, B 1, C 2, D 3);
tuple_components!(A 0, B 1, C 2, D 3, E 4);
tuple_components!(A 0, B 1, C 2, D 3, E 4, F 5);

impl<V: Vector, C: Constraint<V>> Constraint<V> for Vec<C> {
    fn check(
        &mut self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        goal: &Goal<V>,
    ) -> Option<Goal<V>> {
        self.check_indexed(character, plan, goal).map(|(_, g)| g)
    }
    fn check_indexed(
        &mut self,
        character: &Kinematic<V>,
        plan: &Plan<V>,
        goal: &Goal<V>,
    ) -> Option<(usize, Goal<V>)> {
        let mut offset = 0;
        for c in self.iter_mut() {
            if let Some((i, g)) = c.check_indexed(character, plan, goal) {
                return Some((offset + i, g));
            }
            offset += c.count();
        }
        None
    }
    fn count(&self) -> usize {
        self.iter().map(Constraint::count).sum()
    }
}

impl<V: Vector, T: Targeter<V>> Targeter<V> for Vec<T> {
    fn goal(&mut self, character: &Kinematic<V>) -> Goal<V> {
        let mut goal = Goal::default();
        for t in self.iter_mut() {
            goal.update_channels(&t.goal(character));
        }
        goal
    }
}

impl<V: Vector, D: Decomposer<V>> Decomposer<V> for Vec<D> {
    fn decompose(&mut self, character: &Kinematic<V>, goal: Goal<V>) -> Goal<V> {
        self.iter_mut().fold(goal, |g, d| d.decompose(character, g))
    }
}

/// What the pipeline did in its last frame (for debugging and replays).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PipelineReport<V: Vector = Vec2> {
    /// The merged goal of the targeters.
    pub targeted: Goal<V>,
    /// The goal after the decomposers.
    pub decomposed: Goal<V>,
    /// The goal the actuator last planned for (the accepted one unless deadlocked).
    pub planned: Goal<V>,
    /// The flat index of the violated constraint at each step, in order.
    pub violations: Vec<usize>,
    /// True when the steps ran out and the deadlock behaviour steered.
    pub deadlocked: bool,
}

/// The steering pipeline (§3.4.5): targeters → decomposers → (actuator plan ⇄ constraints, at
/// most `constraint_steps` times) → actuator output, or the deadlock behaviour.
///
/// ```text
/// goal = merge(targeters)                       (later targeters win per channel)
/// goal = decomposers applied in order
/// repeat constraint_steps times:
///     plan = actuator.path(character, goal)
///     if the first violated constraint suggests g: goal = g; next step   (erratum E13)
///     else: return actuator.output(character, plan)
/// return deadlock.steer(character)
/// ```
/// With `constraint_steps = 0` the deadlock behaviour always steers; with no constraints the
/// first plan is accepted. Outputs are clipped to the limits and a non-finite request becomes
/// zero. Cost per frame: `O(constraint_steps · constraints)` checks plus the decomposers.
///
/// Type parameters: targeters `T`, decomposers `D`, constraints `C`, actuator `A`, deadlock `X`
/// (tuples, `Vec`s or `()` for an empty stage).
#[derive(Clone, Debug)]
pub struct SteeringPipeline<T, D, C, A, X, V: Vector = Vec2> {
    /// The targeters.
    pub targeters: T,
    /// The decomposers.
    pub decomposers: D,
    /// The constraints.
    pub constraints: C,
    /// The actuator.
    pub actuator: A,
    /// The deadlock behaviour.
    pub deadlock: X,
    constraint_steps: usize,
    plan: Plan<V>,
    report: PipelineReport<V>,
}

impl<T, D, C, A, X, V> SteeringPipeline<T, D, C, A, X, V>
where
    V: Vector,
    T: Targeter<V>,
    D: Decomposer<V>,
    C: Constraint<V>,
    A: Actuator<V>,
    X: Deadlock<V>,
{
    /// A pipeline allowing `constraint_steps` plans per frame before handing over to `deadlock`.
    #[must_use]
    pub fn new(
        targeters: T,
        decomposers: D,
        constraints: C,
        actuator: A,
        deadlock: X,
        constraint_steps: usize,
    ) -> Self {
        SteeringPipeline {
            targeters,
            decomposers,
            constraints,
            actuator,
            deadlock,
            constraint_steps,
            plan: Plan::default(),
            report: PipelineReport::default(),
        }
    }

    /// The most plans tried per frame.
    #[must_use]
    pub fn constraint_steps(&self) -> usize {
        self.constraint_steps
    }

    /// The last plan the actuator made (the accepted one unless the frame deadlocked).
    #[must_use]
    pub fn plan(&self) -> &Plan<V> {
        &self.plan
    }

    /// What happened in the last frame.
    #[must_use]
    pub fn report(&self) -> &PipelineReport<V> {
        &self.report
    }

    /// The steering request for `character` this frame (m/s², rad/s²), within `limits`.
    pub fn steer(
        &mut self,
        character: &Kinematic<V>,
        limits: &Limits,
        dt: f32,
    ) -> SteeringOutput<V> {
        let goal = self.targeters.goal(character);
        self.report.targeted = goal;
        let mut goal = self.decomposers.decompose(character, goal);
        self.report.decomposed = goal;
        self.report.violations.clear();
        self.report.deadlocked = false;
        for _ in 0..self.constraint_steps {
            self.actuator.path_into(character, &goal, limits, &mut self.plan);
            self.report.planned = goal;
            match self.constraints.check_indexed(character, &self.plan, &goal) {
                Some((index, suggestion)) => {
                    self.report.violations.push(index);
                    goal = suggestion;
                }
                None => {
                    let out = self.actuator.output(character, &self.plan, limits);
                    return bounded(out, limits);
                }
            }
        }
        self.report.deadlocked = true;
        let out = self.deadlock.steer(character, limits, dt).unwrap_or_default();
        bounded(out, limits)
    }
}

/// Clipped to the limits; a non-finite request becomes zero.
fn bounded<V: Vector>(s: SteeringOutput<V>, limits: &Limits) -> SteeringOutput<V> {
    if s.is_finite() {
        s.clamped(limits.max_acceleration(), limits.max_angular_acceleration())
    } else {
        SteeringOutput::ZERO
    }
}
