//! The steering pipeline (Millington §3.4.5): channel merging, decomposer order, the constraint
//! loop's control flow (erratum E13), deadlock, the example components, and the scenario the
//! pipeline exists for: a goal behind a wall of obstacles that plain steering cannot reach.

mod common;
use common::*;
use core::cell::Cell;
use proptest::prelude::*;
use steerkit::geometry::{Aabb, Circle, Segment};
use steerkit::math::new_orientation;
use steerkit::pipeline::{
    Actuator, AvoidObstacle, ChaseTargeter, Decomposer, FromFn, Goal, GridGraph, HeadFor, Plan,
    PlanningDecomposer, SteeringPipeline, Targeter, WallConstraint, WaypointGraph,
};
use steerkit::prelude::*;
use steerkit::steering::RayLayout;

const DT: f32 = 1.0 / 60.0;

fn l() -> Limits {
    limits(4.0, 10.0)
}

fn head_for() -> HeadFor {
    HeadFor::new(Arrive::new(0.2, 1.5, 0.1).unwrap(), Align::new(0.02, 0.5, 0.1).unwrap())
}

/// An actuator that plans a straight line to the position (or stays) and asks for nothing: for
/// checking what reaches it.
struct Straight;

impl Actuator for Straight {
    fn path_into(&self, character: &Kinematic, goal: &Goal, _limits: &Limits, plan: &mut Plan) {
        plan.points.clear();
        plan.points.push(character.position);
        plan.points.extend(goal.position);
        plan.goal = *goal;
    }
    fn output(&self, _character: &Kinematic, _plan: &Plan, _limits: &Limits) -> SteeringOutput {
        SteeringOutput::linear(Vec2::new(1.0, 0.0))
    }
}

fn no_deadlock(_: &Kinematic, _: &Limits, _: f32) -> Option<SteeringOutput> {
    Some(SteeringOutput::linear(Vec2::new(0.0, -3.0)))
}

#[test]
fn targeter_channels_merge_in_order_and_unset_channels_stay_unset() {
    let first = Goal::at(Vec2::new(1.0, 1.0)).with_orientation(0.5);
    let second = Goal::at(Vec2::new(2.0, 2.0));
    let third = FromFn(|_: &Kinematic| Goal::default().with_velocity(Vec2::new(0.0, 3.0)));
    let mut p = SteeringPipeline::new((first, second, third), (), (), Straight, no_deadlock, 3);
    p.steer(&at(0.0, 0.0), &l(), DT);
    let g = p.report().targeted;
    assert_eq!(g.position, Some(Vec2::new(2.0, 2.0)), "the later targeter wins the position");
    assert_eq!(g.orientation, Some(0.5), "a channel only the first sets is kept");
    assert_eq!(g.velocity, Some(Vec2::new(0.0, 3.0)));
    assert_eq!(g.rotation, None, "nobody set the rotation");
    // the order matters: swapped, the first position wins
    let mut swapped = SteeringPipeline::new((second, first), (), (), Straight, no_deadlock, 3);
    swapped.steer(&at(0.0, 0.0), &l(), DT);
    assert_eq!(swapped.report().targeted.position, Some(Vec2::new(1.0, 1.0)));
}

#[test]
fn decomposers_apply_in_order_each_receiving_the_previous_output() {
    let shift =
        FromFn(|_: &Kinematic, g: Goal| Goal { position: g.position.map(|p| p + Vec2::X), ..g });
    let double =
        FromFn(|_: &Kinematic, g: Goal| Goal { position: g.position.map(|p| p * 2.0), ..g });
    let goal = Goal::at(Vec2::new(3.0, 1.0));
    let mut a = SteeringPipeline::new(goal, (shift, double), (), Straight, no_deadlock, 3);
    a.steer(&at(0.0, 0.0), &l(), DT);
    assert_eq!(a.report().decomposed.position, Some(Vec2::new(8.0, 2.0)), "(p + x̂)·2");
    let mut b = SteeringPipeline::new(goal, (double, shift), (), Straight, no_deadlock, 3);
    b.steer(&at(0.0, 0.0), &l(), DT);
    assert_eq!(b.report().decomposed.position, Some(Vec2::new(7.0, 2.0)), "p·2 + x̂");
    assert_eq!(b.plan().points.last(), Some(&Vec2::new(7.0, 2.0)), "the actuator got the sub-goal");
}

#[test]
fn a_violation_breaks_the_constraint_scan_and_replans() {
    // erratum E13: on a violation the constraint loop stops (later constraints are not asked)
    // and the outer loop plans again from the suggestion; with none violated, the actuator's
    // output is returned
    let (first_calls, second_calls) = (Cell::new(0), Cell::new(0));
    let keep_left = FromFn(|_: &Kinematic, plan: &Plan, goal: &Goal| {
        first_calls.set(first_calls.get() + 1);
        let end = *plan.points.last().unwrap();
        (end.x > 5.0).then(|| Goal { position: Some(Vec2::new(5.0, end.y)), ..*goal })
    });
    let count = FromFn(|_: &Kinematic, _: &Plan, _: &Goal| {
        second_calls.set(second_calls.get() + 1);
        None
    });
    let mut p = SteeringPipeline::new(
        Goal::at(Vec2::new(9.0, 1.0)),
        (),
        (keep_left, count),
        Straight,
        no_deadlock,
        4,
    );
    let out = p.steer(&at(0.0, 0.0), &l(), DT);
    assert_eq!(out, SteeringOutput::linear(Vec2::new(1.0, 0.0)), "the actuator's output");
    assert_eq!(first_calls.get(), 2, "checked on both plans");
    assert_eq!(second_calls.get(), 1, "not asked about the violating plan");
    assert_eq!(p.report().violations, vec![0]);
    assert!(!p.report().deadlocked);
    assert_eq!(p.plan().points, vec![Vec2::ZERO, Vec2::new(5.0, 1.0)], "the accepted plan");
}

#[test]
fn zero_constraint_steps_go_straight_to_deadlock() {
    let mut p =
        SteeringPipeline::new(Goal::at(Vec2::new(9.0, 1.0)), (), (), Straight, no_deadlock, 0);
    assert_eq!(p.steer(&at(0.0, 0.0), &l(), DT), SteeringOutput::linear(Vec2::new(0.0, -3.0)));
    assert!(p.report().deadlocked);
    assert!(p.plan().points.is_empty(), "the actuator was never asked");
}

#[test]
fn mutually_conflicting_constraints_exhaust_the_steps_and_hand_over_to_deadlock() {
    // a wall x = 5 from y = −10 to 0, and a disc just past its top end: the wall sends the route
    // round its end, through (5, 1), which is inside the disc; the disc pushes that point back
    // out to (5, −0.75), which is on the wall
    let wall =
        WallConstraint::new(Segment::new(Vec2::new(5.0, -10.0), Vec2::new(5.0, 0.0)), 0.5).unwrap();
    let disc = AvoidObstacle::new(Vec2::new(5.0, 1.5), 1.5, 1.5).unwrap();
    let mut p = SteeringPipeline::new(
        Goal::at(Vec2::new(10.0, -1.0)),
        (),
        (wall, disc),
        head_for(),
        no_deadlock,
        6,
    );
    let out = p.steer(&at(0.0, -1.0), &l(), DT);
    let report = p.report();
    assert_eq!(report.violations, vec![0, 1, 0, 1, 0, 1], "they take turns");
    assert!(report.deadlocked);
    assert_eq!(out, SteeringOutput::linear(Vec2::new(0.0, -3.0)), "the deadlock behaviour steers");
    // with one of them alone, a compromise is found within two steps
    let mut alone = SteeringPipeline::new(
        Goal::at(Vec2::new(10.0, -1.0)),
        (),
        wall,
        head_for(),
        no_deadlock,
        6,
    );
    alone.steer(&at(0.0, -1.0), &l(), DT);
    assert_eq!(alone.report().violations, vec![0]);
    assert_eq!(alone.plan().points, vec![Vec2::new(0.0, -1.0), Vec2::new(5.0, 1.0)]);
}

#[test]
fn chase_targeter_aims_ahead_of_the_chased() {
    let mut t = ChaseTargeter::new(moving(10.0, 0.0, 0.0, 2.0), 0.5).unwrap();
    assert_eq!(t.goal(&at(0.0, 0.0)), Goal::at(Vec2::new(10.0, 1.0)));
    assert!(ChaseTargeter::new(at(0.0, 0.0), -1.0).is_err());
    // a pipeline chasing a runner catches it
    let mut runner = moving(8.0, 0.0, 0.0, 1.5);
    let mut me = at(0.0, 0.0);
    let mut p = SteeringPipeline::new(t, (), (), head_for(), no_deadlock, 2);
    let mut closest = f32::MAX;
    for _ in 0..900 {
        p.targeters.chased = runner;
        let s = p.steer(&me, &l(), DT);
        me.integrate(&s, &l(), DT);
        runner.position += runner.velocity * DT;
        closest = closest.min(me.position.distance(runner.position));
    }
    assert!(closest < 0.5, "caught up within {closest} m");
}

#[test]
fn planning_decomposer_returns_the_first_step_of_the_route() {
    let nodes =
        vec![Vec2::new(0.0, 0.0), Vec2::new(5.0, 5.0), Vec2::new(10.0, 0.0), Vec2::new(5.0, -8.0)];
    let graph = WaypointGraph::new(nodes, [(0, 1), (1, 2), (0, 3), (3, 2)]).unwrap();
    let mut d = PlanningDecomposer::new(&graph);
    let me = at(0.5, 0.2);
    let g = d.decompose(&me, Goal::at(Vec2::new(9.0, 0.5)).with_orientation(1.0));
    assert_eq!(g.position, Some(Vec2::new(5.0, 5.0)), "first node after the start");
    assert_eq!(g.orientation, Some(1.0), "other channels kept");
    assert_eq!(d.route(), Some(&[0, 1, 2][..]));
    // already in the goal's node, or no position: unchanged
    let near = Goal::at(Vec2::new(0.8, 0.0));
    assert_eq!(d.decompose(&me, near), near);
    assert_eq!(d.route(), None);
    assert_eq!(d.decompose(&me, Goal::facing(2.0)), Goal::facing(2.0));
    // a grid: out of the graph → unchanged
    let grid = GridGraph::new(Vec2::ZERO, 1.0, 4, 4).unwrap();
    let mut d = PlanningDecomposer::new(grid);
    let outside = Goal::at(Vec2::new(50.0, 0.0));
    assert_eq!(d.decompose(&at(0.5, 0.5), outside), outside);
    let g = d.decompose(&at(0.5, 0.5), Goal::at(Vec2::new(3.5, 3.5)));
    assert_eq!(g.position, Some(Vec2::new(1.5, 1.5)), "diagonal first step");
}

// ---------------------------------------------------------------------------------------------
// A goal behind a wall of obstacles

/// A bowl of overlapping discs (radius 1) on an arc of radius 5 about (12, 0), open toward −x;
/// the goal is behind it at (25, 0) and the character starts in front at (0, 0).
fn bowl() -> Vec<Circle> {
    (-7..=7)
        .map(|i| {
            let theta = i as f32 * 15f32.to_radians();
            Circle::new(Vec2::new(12.0 + 5.0 * theta.cos(), 5.0 * theta.sin()), 1.0)
        })
        .collect()
}

const BODY: f32 = 0.4;
const GOAL: Vec2 = Vec2::new(25.0, 0.0);

fn gap_to(discs: &[Circle], p: Vec2) -> f32 {
    discs.iter().map(|c| c.center.distance(p) - c.radius - BODY).fold(f32::MAX, f32::min)
}

#[test]
fn a_pipeline_reaches_a_goal_behind_a_wall_of_obstacles_where_seek_and_avoidance_fail() {
    let discs = bowl();
    let set = ObstacleSet::new(discs.iter().map(|c| Obstacle::Circle(*c))).unwrap();
    let limits = l();

    // plain steering: seek, with ray-based obstacle avoidance taking priority
    let mut avoid = ObstacleAvoidance::new(
        RayLayout::Whiskers { half_angle: 0.5, whisker_ratio: 0.6 },
        1.5,
        4.0,
    )
    .unwrap()
    .with_lookahead_time(0.5)
    .unwrap();
    let eps = Epsilon::new(0.01).unwrap();
    let mut k = at(0.0, 0.0);
    let mut best = f32::MAX;
    for _ in 0..3600 {
        let a = avoid.steer(&k, &set, &limits, DT).unwrap_or_default();
        let s = Seek::new().steer(&k, GOAL, &limits).unwrap_or_default();
        let out = prioritize([a, s], eps);
        k.integrate(&out, &limits, DT);
        k.orientation = new_orientation(k.orientation, k.velocity);
        best = best.min(k.position.distance(GOAL));
    }
    // it enters the bowl and stays trapped there (10.47 m from the goal at best)
    assert!(best > 10.0, "nearsighted: never nearer the goal than {best} m in 60 s");

    // the pipeline: A* on an occupancy grid, a disc constraint per obstacle, head-for actuator
    let bounds = Aabb::new(Vec2::new(-5.0, -15.0), Vec2::new(32.0, 15.0));
    let grid = GridGraph::from_obstacles(bounds, 0.5, &set, BODY + 0.3).unwrap();
    // two more discs behind the bowl that the grid does not know about (parked after it was
    // built): only the constraints keep the character off them
    let unknown = [Circle::new(Vec2::new(20.0, 3.2), 1.0), Circle::new(Vec2::new(20.0, -3.2), 1.0)];
    let constraints: Vec<AvoidObstacle> = discs
        .iter()
        .chain(&unknown)
        .map(|c| AvoidObstacle::new(c.center, c.radius + BODY, 1.3).unwrap())
        .collect();
    let face = Face::new(Align::new(0.02, 0.5, 0.1).unwrap());
    let wander = Wander::new(2.0, 1.0, 2.0, face, 3).unwrap();
    let mut p = SteeringPipeline::new(
        Goal::at(GOAL),
        PlanningDecomposer::new(grid),
        constraints,
        head_for(),
        wander,
        8,
    );
    let mut k = at(0.0, 0.0);
    let (mut arrived, mut closest, mut deadlocks, mut detours) = (None, f32::MAX, 0, 0);
    for step in 0..3600 {
        let s = p.steer(&k, &limits, DT);
        deadlocks += usize::from(p.report().deadlocked);
        detours += usize::from(!p.report().violations.is_empty());
        k.integrate(&s, &limits, DT);
        closest = closest.min(gap_to(&discs, k.position)).min(gap_to(&unknown, k.position));
        if arrived.is_none() && k.position.distance(GOAL) < 0.3 {
            arrived = Some(step);
        }
    }
    let arrived = arrived.expect("the pipeline agent reached the goal");
    // round the bowl on the planner's route (19.3 s), with the constraints detouring round the
    // unknown discs on 18 frames, never touching anything (closest gap 0.15 m)
    assert!((arrived as f32) * DT < 25.0, "arrived after {} s", arrived as f32 * DT);
    assert!(detours > 0, "the constraints had to act");
    assert!(closest > 0.1, "its body never touched a disc (closest gap {closest} m)");
    assert!(k.position.distance(GOAL) < 0.3, "and stayed there");
    assert_eq!(deadlocks, 0);
}

// ---------------------------------------------------------------------------------------------
// Properties

fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.0f32), -50.0f32..50.0, -1.0f32..1.0]
}

fn vec2() -> impl Strategy<Value = Vec2> {
    (coord(), coord()).prop_map(|(x, y)| Vec2::new(x, y))
}

fn limits_any() -> impl Strategy<Value = Limits> {
    (0.0f32..60.0, 0.0f32..60.0, 0.0f32..10.0, 0.0f32..40.0)
        .prop_map(|(a, b, c, d)| Limits::new(a, b, c, d).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_pipeline_is_finite_and_within_limits(
        p in vec2(), v in vec2(), o in -10.0f32..10.0, goal in vec2(), orient in prop::option::of(-4.0f32..4.0),
        discs in prop::collection::vec((vec2(), 0.0f32..5.0), 0..5), wall in (vec2(), vec2()),
        l in limits_any(), steps in 0usize..6, dt in 0.0f32..0.1, on_goal in any::<bool>(),
    ) {
        let me = Kinematic { position: p, velocity: v, orientation: o, rotation: 0.0 };
        let target = if on_goal { p } else { goal };
        let goal = Goal { position: Some(target), orientation: orient, ..Goal::default() };
        let constraints: Vec<AvoidObstacle> = discs.iter().map(|(c, r)| AvoidObstacle::new(*c, *r, 1.5).unwrap()).collect();
        let wall = WallConstraint::new(Segment::new(wall.0, wall.1), 0.5).unwrap();
        let grid = GridGraph::new(Vec2::new(-60.0, -60.0), 4.0, 30, 30).unwrap();
        let face = Face::new(Align::new(0.02, 0.5, 0.1).unwrap());
        let mut pipe = SteeringPipeline::new(goal, PlanningDecomposer::new(grid), (constraints, wall), head_for(),
            Wander::new(2.0, 1.0, 2.0, face, 1).unwrap(), steps);
        let s = pipe.steer(&me, &l, dt);
        prop_assert!(s.is_finite());
        prop_assert!(s.linear.length() <= l.max_acceleration() * (1.0 + 1e-4) + 1e-4);
        prop_assert!(s.angular.abs() <= l.max_angular_acceleration() * (1.0 + 1e-4) + 1e-4);
        prop_assert!(pipe.report().violations.len() <= steps);
        prop_assert!(pipe.plan().points.iter().all(|q| q.is_finite()));
    }
}
