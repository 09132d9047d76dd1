//! Combining behaviours (Millington §3.4.2–3.4.3; Green and Buckland): the listing errata, the
//! phenomena the texts describe (equilibria, dilution), flocking, Green's layering, and the
//! no-NaN / bound properties of every combiner.

mod common;
use common::*;
use proptest::prelude::*;
use steerkit::combine::{
    blend_observed, clip_to_walls, dither, prioritize_by, prioritize_observed, prioritize_variable,
    running_sum_observed, Layering,
};
use steerkit::geometry::{Circle, Segment};
use steerkit::kinematic::Integration;
use steerkit::math::{new_orientation, orientation_of};
use steerkit::prelude::*;
use steerkit::steering::{BucklandFlock, MillingtonFlock, Neighbourhood, RepelObstacle, SeekMode};

const DT: f32 = 1.0 / 60.0;

/// A dithering member: weight, probability, behaviour.
type Dithered = (f32, f32, fn() -> Option<SteeringOutput>);

fn out(x: f32, y: f32, a: f32) -> Option<SteeringOutput> {
    Some(SteeringOutput { linear: Vec2::new(x, y), angular: a })
}

fn neighbour(index: usize, k: &Kinematic, radius: f32) -> Neighbour {
    Neighbour {
        index,
        position: k.position,
        velocity: k.velocity,
        radius,
        offset: Vec2::ZERO,
        distance_squared: 0.0,
    }
}

// ---------------------------------------------------------------------------------------------
// Errata of §3.4 (E12) and the properties the issue lists

#[test]
fn blend_truncates_the_sum_to_max_acceleration_rather_than_taking_a_max() {
    // E12: the book writes `max(result.linear, maxAcceleration)`, which would *raise* a small
    // request to the maximum and leave a large one untouched
    let l = limits(10.0, 4.0);
    let small = blend([(1.0, out(1.0, 1.0, 0.0))], &l);
    assert_eq!(small.linear, Vec2::new(1.0, 1.0), "a small sum is left alone");
    let large = blend([(2.0, out(3.0, 4.0, 0.0)), (1.0, out(0.0, 0.0, 0.0))], &l);
    assert!((large.linear.length() - 4.0).abs() < 1e-5, "truncated to 4: {}", large.linear);
    assert!((large.linear - Vec2::new(2.4, 3.2)).length() < 1e-5, "direction kept");
}

#[test]
fn each_channel_is_truncated_to_its_own_maximum() {
    // max_acceleration 4 for the linear channel, max_angular_acceleration 20 for the angular one
    let l = limits(10.0, 4.0);
    let s = blend([(1.0, out(30.0, 0.0, 15.0))], &l);
    assert_eq!(s.linear, Vec2::new(4.0, 0.0));
    assert_eq!(s.angular, 15.0, "15 rad/s² is within its own limit of 20, whatever the linear one");
    let s = blend([(1.0, out(1.0, 0.0, 35.0))], &l);
    assert_eq!((s.linear, s.angular), (Vec2::new(1.0, 0.0), 20.0));
}

#[test]
fn angular_is_clamped_on_both_sides() {
    // gdx-ai's BlendedSteering clamps only the upper side
    let l = limits(10.0, 4.0);
    assert_eq!(blend([(1.0, out(0.0, 0.0, -50.0))], &l).angular, -20.0);
    assert_eq!(blend([(1.0, out(0.0, 0.0, 50.0))], &l).angular, 20.0);
    assert_eq!(running_sum([(1.0, out(0.0, 0.0, -50.0))], &l).angular, -20.0);
}

#[test]
fn none_counts_as_zero_in_every_combiner() {
    let l = limits(10.0, 4.0);
    assert_eq!(blend([(3.0, None), (1.0, out(1.0, 0.0, 0.5))], &l), out(1.0, 0.0, 0.5).unwrap());
    assert_eq!(
        running_sum([(3.0, None), (1.0, out(1.0, 0.0, 0.5))], &l),
        out(1.0, 0.0, 0.5).unwrap()
    );
    let e = Epsilon::new(0.01).unwrap();
    let mut rng = steerkit::math::Rng::new(1);
    let members: [Dithered; 2] = [(1.0, 1.0, || None), (1.0, 1.0, || out(2.0, 0.0, 0.0))];
    let (s, i) = dither(members, e, &l, &mut rng);
    assert_eq!((s.linear, i), (Vec2::new(2.0, 0.0), Some(1)), "a silent member is passed over");
    assert_eq!(blend::<Vec2>([], &l), SteeringOutput::ZERO);
}

#[test]
fn priority_epsilon_in_squared_form_agrees_with_the_plain_form() {
    let plain = Epsilon::new(0.5).unwrap();
    let squared = Epsilon::from_squared(0.25).unwrap();
    assert_eq!(plain, squared);
    // exactly at ε is small; just above is not (strict comparison, no square root)
    let at = SteeringOutput::linear(Vec2::new(0.3, 0.4));
    let above = SteeringOutput::linear(Vec2::new(0.3, 0.4001));
    assert!(!squared.exceeded_by(&at) && squared.exceeded_by(&above));
    assert!(Epsilon::from_squared(-1.0).is_err());
    assert!(Epsilon::new(f32::NAN).is_err());
}

#[test]
fn priority_falls_through_to_the_last_group_when_all_are_small() {
    let e = Epsilon::new(0.1).unwrap();
    let groups =
        [out(0.05, 0.0, 0.0).unwrap(), out(0.0, 0.0, 0.09).unwrap(), out(0.01, 0.02, 0.0).unwrap()];
    assert_eq!(prioritize_observed(groups, e), (groups[2], Some(2)));
    assert_eq!(prioritize_observed(Vec::<SteeringOutput>::new(), e), (SteeringOutput::ZERO, None));
}

#[test]
fn variable_priorities_reorder_the_groups_each_call() {
    // avoidance is low priority until a collision is imminent, then critical
    let e = Epsilon::new(0.1).unwrap();
    let mut order = Vec::new();
    let (avoid, seek) = (out(0.0, 5.0, 0.0).unwrap(), out(5.0, 0.0, 0.0).unwrap());
    let far = [(0.1, avoid), (1.0, seek)];
    assert_eq!(prioritize_variable(&far, e, &mut order), (seek, Some(1)));
    let imminent = [(10.0, avoid), (1.0, seek)];
    assert_eq!(prioritize_variable(&imminent, e, &mut order), (avoid, Some(0)));
    // a silent high-priority group still falls through to the next
    let quiet = [(10.0, SteeringOutput::ZERO), (1.0, seek)];
    assert_eq!(prioritize_variable(&quiet, e, &mut order).1, Some(1));
    // lazily: priorities first, then groups in that order until one speaks
    let mut evaluated = Vec::new();
    let groups = [seek, avoid, seek];
    let (s, i) = prioritize_by(
        &[1.0, 10.0, f32::NAN],
        |i| {
            evaluated.push(i);
            groups[i]
        },
        e,
        &mut order,
    );
    assert_eq!((s, i), (avoid, Some(1)));
    assert_eq!(evaluated, vec![1], "only the winner was computed");
}

#[test]
fn every_combiner_reports_each_members_contribution() {
    let l = limits(10.0, 10.0);
    let members = [(1.0, out(6.0, 0.0, 1.0)), (2.0, out(0.0, 4.0, 0.0)), (1.0, None)];
    let mut seen = Vec::new();
    let s = blend_observed(members, &l, |i, p| seen.push((i, p)));
    let total = seen.iter().fold(SteeringOutput::ZERO, |a, (_, p)| a + *p);
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[1].1.linear, Vec2::new(0.0, 8.0));
    assert_eq!(total.clamped(10.0, 20.0), s, "the reports add up to the (truncated) output");
    seen.clear();
    let s = running_sum_observed(members, &l, |i, p| seen.push((i, p)));
    let total = seen.iter().fold(SteeringOutput::ZERO, |a, (_, p)| a + *p);
    assert!((total.linear - s.linear).length() < 1e-5, "running-sum reports add up exactly");
    assert!((seen[1].1.linear - Vec2::new(0.0, 4.0)).length() < 1e-5, "truncated to the 4 left");
    // flocks report their members too
    let flock = MillingtonFlock::new(5.0).unwrap();
    let me = at(0.0, 0.0);
    let others = [
        neighbour(1, &moving(1.0, 0.0, 1.0, 0.0), 0.2),
        neighbour(2, &moving(0.0, 3.0, 1.0, 0.0), 0.2),
    ];
    let mut parts = [SteeringOutput::ZERO; 3];
    let s = flock.steer_observed(&me, 0.2, &others, &l, |i, p| parts[i] = p);
    assert!(parts.iter().all(|p| *p != SteeringOutput::ZERO), "{parts:?}");
    let total = parts.iter().fold(SteeringOutput::ZERO, |a, p| a + *p);
    assert!((total.linear.clamp_length_max(10.0) - s.linear).length() < 1e-5);
}

#[test]
fn dithering_tests_rand_below_the_probability() {
    // Buckland's listing tests `rand > p` (evaluating with probability 1 − p) yet divides by p
    let l = limits(10.0, 100.0);
    let e = Epsilon::new(0.01).unwrap();
    let mut rng = steerkit::math::Rng::new(9);
    let n = 20_000;
    let mut first = 0;
    for _ in 0..n {
        let members: [Dithered; 2] =
            [(1.0, 0.9, || out(1.0, 0.0, 0.0)), (1.0, 1.0, || out(0.0, 1.0, 0.0))];
        if dither(members, e, &l, &mut rng).1 == Some(0) {
            first += 1;
        }
    }
    let share = first as f32 / n as f32;
    assert!((share - 0.9).abs() < 0.01, "wall avoidance (p = 0.9) used {share} of the time");
}

// ---------------------------------------------------------------------------------------------
// Phenomena of §3.4.2–3.4.3

/// Seek toward (20, 0) blended equally with flee from an enemy at (10, 0) straight on the line.
fn seek_past_enemy(noise: Option<u64>) -> Vec<Kinematic> {
    let l = limits(5.0, 10.0);
    let (target, enemy) = (Vec2::new(20.0, 0.0), Vec2::new(10.0, 0.0));
    let mut rng = noise.map(steerkit::math::Rng::new);
    run(at(0.0, 0.0), &l, DT, 3600, |k, _| {
        // tiny lateral noise (1e-3 m/s², a ten-thousandth of the maximum) when asked for
        let jitter =
            rng.as_mut().map(|r| SteeringOutput::linear(Vec2::new(0.0, r.binomial() * 1e-3)));
        Some(blend(
            [
                (1.0, Seek::new().steer(k, target, &l)),
                (1.0, Flee::new().steer(k, enemy, &l)),
                (1.0, jitter),
            ],
            &l,
        ))
    })
}

#[test]
fn unstable_equilibrium_on_the_line_is_broken_by_small_noise() {
    // without noise the forces cancel exactly and the character never moves
    let still = seek_past_enemy(None);
    assert!(still.iter().all(|k| k.position == Vec2::ZERO), "exact balance: no motion at all");
    // with noise of 1e-3 m/s² the lateral offset grows (flee's lateral push beats seek's pull,
    // 1/10 against 1/20 of the offset) and the character skirts round the enemy
    let escaped = seek_past_enemy(Some(7));
    let max_side = escaped.iter().map(|k| k.position.y.abs()).fold(0.0, f32::max);
    let passed = escaped.iter().position(|k| k.position.x > 10.0).expect("passed the enemy");
    assert!(max_side > 1.0, "skirted round: {max_side} m off the line");
    // e^(t·√0.5) growth from 1e-3 m/s² of noise: past the enemy in about 20-25 s
    assert!(passed > 900 && passed < 1800, "passed after {} s", passed as f32 * DT);
}

/// Seek toward (30, 0) blended with inverse-square separation from two enemies at (10, ±3).
fn between_two_enemies(fallback: Option<&mut Wander>, seed: u64) -> Vec<Kinematic> {
    let l = limits(5.0, 10.0);
    let target = Vec2::new(30.0, 0.0);
    let enemies = [at(10.0, 3.0), at(10.0, -3.0)];
    let others = [neighbour(1, &enemies[0], 0.0), neighbour(2, &enemies[1], 0.0)];
    let seek = Seek::with_mode(SeekMode::DesiredVelocity { time_to_target: 0.5 }).unwrap();
    let repel = Separation::new(50.0, Falloff::InverseSquare(130.0)).unwrap();
    // a group below 2 m/s² counts as stuck
    let e = Epsilon::new(2.0).unwrap();
    let mut rng = steerkit::math::Rng::new(seed);
    let mut fallback = fallback;
    run(at(0.0, 0.0), &l, DT, 3600, |k, _| {
        let jitter = SteeringOutput::linear(Vec2::new(0.0, rng.binomial() * 1e-3));
        let group = blend(
            [
                (1.0, seek.steer(k, target, &l)),
                (1.0, repel.steer(k, 0.0, &others, &l)),
                (1.0, Some(jitter)),
            ],
            &l,
        );
        Some(match fallback.as_deref_mut() {
            None => group,
            Some(w) => prioritize(
                [group]
                    .into_iter()
                    .chain(core::iter::once_with(|| w.steer(k, &l, DT).unwrap_or_default())),
                e,
            ),
        })
    })
}

#[test]
fn stable_equilibrium_traps_blending_while_the_wander_fallback_escapes() {
    let stuck = between_two_enemies(None, 3);
    let last = stuck.last().unwrap();
    // the forward parts cancel at x ≈ 7 (2·k·dx/d³ = max_acceleration) and the lateral parts
    // restore the line: after a minute the character is still there
    assert!((last.position.x - 7.0).abs() < 0.3, "{}", last.position);
    assert!(last.position.y.abs() < 0.05 && last.velocity.length() < 0.05);
    // the same scene with a wander as the lowest-priority group: whenever the blend is below
    // ε = 2 m/s² the wander steers, and it carries the character out of the basin and past the
    // enemies (x > 12) within 30 s, for every seed tried
    for seed in [11, 12, 13] {
        let face = Face::new(Align::new(0.02, 0.5, 0.1).unwrap());
        let mut wander = Wander::new(2.0, 1.0, 4.0, face, seed).unwrap();
        let escaped = between_two_enemies(Some(&mut wander), 3);
        let when = escaped.iter().position(|k| k.position.x > 12.0);
        assert!(when.is_some_and(|i| i < 1800), "seed {seed}: escaped at step {when:?}");
        let best = escaped.iter().map(|k| k.position.x).fold(f32::MIN, f32::max);
        assert!(best > 28.0, "and went on to the target at x = 30: {best}");
    }
}

/// Seek toward (30, 0) with a disc obstacle of radius 2 at (15, 0) in the way, and obstacle
/// repulsion; returns the smallest gap between the body (radius 0.5) and the obstacle.
fn approach_obstacle(priority: bool) -> f32 {
    let l = limits(5.0, 10.0);
    let set = ObstacleSet::new([Obstacle::Circle(Circle::new(Vec2::new(15.0, 0.0), 2.0))]).unwrap();
    let repel = RepelObstacle::new(4.0, 1.26).unwrap();
    let e = Epsilon::new(0.1).unwrap();
    let path = run(moving(0.0, 0.0, 5.0, 0.0), &l, DT, 900, |k, _| {
        let avoid = repel.steer(k, 0.5, &set, &l);
        let seek = Seek::new().steer(k, Vec2::new(30.0, 0.0), &l);
        Some(if priority {
            prioritize([avoid.unwrap_or_default(), seek.unwrap_or_default()], e)
        } else {
            blend([(1.0, avoid), (1.0, seek)], &l)
        })
    });
    path.iter().map(|k| (k.position - Vec2::new(15.0, 0.0)).length() - 2.5).fold(f32::MAX, f32::min)
}

#[test]
fn equal_weight_blending_dilutes_avoidance_into_a_collision_where_priority_avoids_it() {
    // blended with seek (always at full acceleration), the repulsion can at best cancel it: the
    // character never brakes and runs into the obstacle
    let blended = approach_obstacle(false);
    assert!(blended < -0.5, "blending: the body went {} m into the obstacle", -blended);
    // in its own priority group the repulsion brakes at full strength: it stops short
    let prioritised = approach_obstacle(true);
    assert!(prioritised > 0.3, "priority: closest gap {prioritised} m");
}

// ---------------------------------------------------------------------------------------------
// Flocking

fn flock_start(n: usize, seed: u64) -> Vec<Kinematic> {
    let mut rng = steerkit::math::Rng::new(seed);
    (0..n)
        .map(|_| {
            let p = Vec2::new(rng.clamped(), rng.clamped()) * 8.0;
            let v = Vec2::new(rng.clamped(), rng.clamped()) * 3.0;
            Kinematic { position: p, velocity: v, orientation: orientation_of(v), rotation: 0.0 }
        })
        .collect()
}

fn polarisation(agents: &[Kinematic]) -> f32 {
    let sum: Vec2 = agents.iter().map(|k| k.velocity.normalize_or_zero()).sum();
    sum.length() / agents.len() as f32
}

fn nearest_gap(agents: &[Kinematic]) -> f32 {
    let mut best = f32::MAX;
    for (i, a) in agents.iter().enumerate() {
        for b in &agents[i + 1..] {
            best = best.min((a.position - b.position).length());
        }
    }
    best
}

#[test]
fn millington_flock_aligns_and_keeps_its_distance() {
    let l = limits(4.0, 8.0);
    let flock = MillingtonFlock::new(6.0).unwrap();
    let mut agents = flock_start(20, 5);
    let before = polarisation(&agents);
    let mut closest = f32::MAX;
    let mut others: Vec<Neighbour> = Vec::new();
    for step in 0..1200 {
        let snapshot = agents.clone();
        for (i, a) in agents.iter_mut().enumerate() {
            others.clear();
            others.extend(
                snapshot
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(j, k)| neighbour(j, k, 0.3)),
            );
            let s = flock.steer(&snapshot[i], 0.3, &others, &l);
            a.integrate(&s, &l, DT);
        }
        if step > 300 {
            closest = closest.min(nearest_gap(&agents));
        }
    }
    let after = polarisation(&agents);
    assert!(before < 0.5 && after > 0.95, "polarisation {before} → {after}");
    assert!(closest > 0.5, "separation keeps neighbours {closest} m apart or more");
}

#[test]
fn buckland_flock_keeps_a_lone_agent_moving_only_with_wander() {
    let l = limits(4.0, 8.0);
    let mut with = BucklandFlock::new(6.0, Some(21)).unwrap();
    let mut without = BucklandFlock::new(6.0, None).unwrap();
    let (mut a, mut b) = (at(0.0, 0.0), at(0.0, 0.0));
    let mut travelled = 0.0;
    for _ in 0..600 {
        let sa = with.steer(&a, 0.3, &[], &l, DT);
        let before = a.position;
        a.integrate(&sa, &l, DT);
        a.orientation = new_orientation(a.orientation, a.velocity);
        travelled += (a.position - before).length();
        let sb = without.steer(&b, 0.3, &[], &l, DT);
        b.integrate(&sb, &l, DT);
    }
    assert!(travelled > 10.0, "with wander it travelled {travelled} m in 10 s");
    assert_eq!(b.position, Vec2::ZERO, "without neighbours or wander it sits still");
}

#[test]
fn the_view_angle_excludes_neighbours_behind() {
    let l = limits(4.0, 8.0);
    let mut flock = MillingtonFlock::new(6.0).unwrap();
    flock.neighbourhood =
        Neighbourhood::new(6.0).unwrap().with_view_angle(core::f32::consts::FRAC_PI_2).unwrap();
    let me = moving(0.0, 0.0, 1.0, 0.0);
    let behind = [neighbour(1, &moving(-3.0, 0.0, -2.0, 0.0), 0.3)];
    assert_eq!(flock.steer(&me, 0.3, &behind, &l), SteeringOutput::ZERO, "behind: ignored");
    let ahead = [neighbour(1, &moving(3.0, 0.0, 0.0, 2.0), 0.3)];
    let s = flock.steer(&me, 0.3, &ahead, &l);
    assert!(s.linear.y > 1.0, "ahead: matches its velocity (+y) {s:?}");
    assert!(Neighbourhood::new(1.0).unwrap().with_view_angle(4.0).is_err());
}

// ---------------------------------------------------------------------------------------------
// Green's layering

#[test]
fn a_crowd_cannot_push_an_agent_through_a_wall() {
    // a wall along x = 0; neighbours to the right push the agent left, into the wall, and its
    // own desire is to go left too: separation and desire together far exceed any wall force
    let l = limits(6.0, 30.0);
    let walls = [Obstacle::Wall(Segment::new(Vec2::new(0.0, -20.0), Vec2::new(0.0, 20.0)))];
    let layers = Layering::new(
        RepelObstacle::new(1.0, 0.5).unwrap(),
        Separation::new(3.0, Falloff::Linear).unwrap(),
    );
    let none = ObstacleSet::new([]).unwrap();
    let crowd = [at(2.0, 0.0), at(2.0, 0.5), at(2.0, -0.5), at(2.5, 0.2)];
    let others: Vec<Neighbour> =
        crowd.iter().enumerate().map(|(i, k)| neighbour(i + 1, k, 0.3)).collect();
    let mut agent = moving(1.0, 0.0, -6.0, 0.0);
    let integration = Integration::default();
    let mut contacts = 0;
    for _ in 0..600 {
        let desire = Seek::new().steer(&agent, Vec2::new(-10.0, 0.0), &l);
        let s = layers.steer(&agent, 0.3, &none, &others, desire, &l);
        let from = agent.position;
        contacts +=
            usize::from(Layering::integrate(&mut agent, &s, &l, &integration, DT, &walls[..]));
        assert!(agent.position.x > 0.0, "crossed the wall: {} from {}", agent.position, from);
    }
    assert!(contacts > 100, "it was pressed against the wall ({contacts} frames)");
    assert!(agent.position.x < 0.01, "pressed against the wall: {}", agent.position);
}

#[test]
fn obstacles_outrank_neighbours_in_the_layering() {
    // neighbours push toward an obstacle: the repulsion takes the budget first
    let l = limits(6.0, 10.0);
    let set = ObstacleSet::new([Obstacle::Circle(Circle::new(Vec2::new(-1.0, 0.0), 0.5))]).unwrap();
    let layers = Layering::new(
        RepelObstacle::new(1.0, 0.5).unwrap(),
        Separation::new(3.0, Falloff::Linear).unwrap(),
    );
    let others = [neighbour(1, &at(0.5, 0.0), 0.3)];
    let me = at(0.0, 0.0);
    let mut parts = [Vec2::ZERO; 3];
    let s = layers.steer_observed(&me, 0.3, &set, &others, None, &l, |i, p| parts[i] = p.linear);
    // gap 0.2 m, inside the 0.5 m contact gap: full strength, nothing left for the neighbours
    assert_eq!(parts[0], Vec2::new(10.0, 0.0));
    assert_eq!(parts[1], Vec2::ZERO);
    assert_eq!(s.linear, Vec2::new(10.0, 0.0));
}

// ---------------------------------------------------------------------------------------------
// Properties: no NaN and within the limits for every combiner

fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.0f32), -1.0e3f32..1.0e3, -1.0f32..1.0]
}

fn output() -> impl Strategy<Value = Option<SteeringOutput>> {
    prop_oneof![Just(None), (coord(), coord(), coord()).prop_map(|(x, y, a)| out(x, y, a)),]
}

fn limits_any() -> impl Strategy<Value = Limits> {
    (0.0f32..60.0, 0.0f32..60.0, 0.0f32..10.0, 0.0f32..40.0)
        .prop_map(|(a, b, c, d)| Limits::new(a, b, c, d).unwrap())
}

fn within(s: &SteeringOutput, l: &Limits) -> bool {
    s.is_finite()
        && s.linear.length() <= l.max_acceleration() * (1.0 + 1e-4) + 1e-4
        && s.angular.abs() <= l.max_angular_acceleration() * (1.0 + 1e-4) + 1e-4
}

fn kinematic() -> impl Strategy<Value = Kinematic> {
    (coord(), coord(), -10.0f32..10.0, coord(), coord()).prop_map(|(x, y, o, vx, vy)| Kinematic {
        position: Vec2::new(x, y),
        orientation: o,
        velocity: Vec2::new(vx, vy),
        rotation: 0.0,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn combiners_are_finite_and_within_limits(
        members in prop::collection::vec((-5.0f32..5.0, output(), 0.0f32..1.0), 0..6),
        l in limits_any(), eps in 0.0f32..2.0, seed in any::<u64>(), priorities in prop::collection::vec(-3.0f32..3.0, 6),
    ) {
        let pairs: Vec<(f32, Option<SteeringOutput>)> = members.iter().map(|(w, s, _)| (*w, *s)).collect();
        let b = blend(pairs.iter().copied(), &l);
        prop_assert!(within(&b, &l), "blend {b:?}");
        let r = running_sum(pairs.iter().copied(), &l);
        prop_assert!(within(&r, &l), "running sum {r:?}");
        let e = Epsilon::new(eps).unwrap();
        // groups: the blended members one by one
        let groups: Vec<SteeringOutput> = pairs.iter().map(|&(w, s)| blend([(w, s)], &l)).collect();
        let (p, i) = prioritize_observed(groups.iter().copied(), e);
        prop_assert!(within(&p, &l) && i.is_none_or(|i| i < groups.len()));
        let ranked: Vec<(f32, SteeringOutput)> = groups.iter().zip(&priorities).map(|(g, p)| (*p, *g)).collect();
        let mut order = Vec::new();
        let (v, _) = prioritize_variable(&ranked, e, &mut order);
        prop_assert!(within(&v, &l));
        let (lazy, _) = prioritize_by(&priorities[..groups.len()], |i| groups[i], e, &mut order);
        prop_assert_eq!(lazy, v, "lazy and eager variable priorities agree");
        let mut rng = steerkit::math::Rng::new(seed);
        let dithered: Vec<(f32, f32, _)> = members.iter().map(|&(w, s, p)| (w, p, move || s)).collect();
        let (d, _) = dither(dithered, e, &l, &mut rng);
        prop_assert!(within(&d, &l), "dither {d:?}");
    }

    #[test]
    fn flocks_and_layers_are_finite_and_within_limits(
        me in kinematic(), others in prop::collection::vec(kinematic(), 0..6), l in limits_any(),
        radius in 0.0f32..2.0, same in any::<bool>(), dt in 0.0f32..0.1, seed in any::<u64>(),
    ) {
        let mut list: Vec<Neighbour> = others.iter().enumerate().map(|(i, k)| neighbour(i + 1, k, radius)).collect();
        if same {
            list.push(neighbour(99, &me, radius)); // a coincident neighbour
        }
        let m = MillingtonFlock::new(5.0).unwrap();
        prop_assert!(within(&m.steer(&me, radius, &list, &l), &l));
        let mut b = BucklandFlock::new(5.0, Some(seed)).unwrap();
        b.neighbourhood = b.neighbourhood.with_view_angle(2.0).unwrap();
        prop_assert!(within(&b.steer(&me, radius, &list, &l, dt), &l));
        let set = ObstacleSet::new([
            Obstacle::Circle(Circle::new(others.first().map_or(Vec2::ZERO, |k| k.position), 1.0)),
            Obstacle::Wall(Segment::new(me.position, me.position + Vec2::X)),
        ]).unwrap();
        let layers = Layering::new(RepelObstacle::new(2.0, 1.0).unwrap(), Separation::new(3.0, Falloff::Inverse(1.0)).unwrap());
        let s = layers.steer(&me, radius, &set, &list, Some(SteeringOutput::linear(me.velocity)), &l);
        prop_assert!(within(&s, &l), "layers {s:?}");
    }

    #[test]
    fn the_centre_never_leaves_a_walled_room(
        walls in prop::collection::vec((-9.0f32..9.0, -9.0f32..9.0, -9.0f32..9.0, -9.0f32..9.0), 0..6),
        start in (-9.0f32..9.0, -9.0f32..9.0), moves in prop::collection::vec((-30.0f32..30.0, -30.0f32..30.0), 1..20),
    ) {
        // a closed square room of side 20 and random walls inside it
        let corners = [Vec2::new(-10.0, -10.0), Vec2::new(10.0, -10.0), Vec2::new(10.0, 10.0), Vec2::new(-10.0, 10.0)];
        let mut all: Vec<Obstacle> = (0..4).map(|i| Obstacle::Wall(Segment::new(corners[i], corners[(i + 1) % 4]))).collect();
        all.extend(walls.iter().map(|&(a, b, c, d)| Obstacle::Wall(Segment::new(Vec2::new(a, b), Vec2::new(c, d)))));
        let set = ObstacleSet::new(all.clone()).unwrap();
        let mut k = at(start.0, start.1);
        for (dx, dy) in moves {
            let from = k.position;
            k.position += Vec2::new(dx, dy);
            let clipped = clip_to_walls(&set, from, &mut k);
            prop_assert!(k.position.is_finite());
            prop_assert!(k.position.abs().max_element() < 10.0, "left the room: {from} → {}", k.position);
            if !clipped {
                // an unclipped move is a straight line that crosses nothing
                for w in &all {
                    let Obstacle::Wall(s) = w else { continue };
                    prop_assert!(!strictly_crosses(from, k.position, s.a, s.b), "{from} → {} crosses {s:?}", k.position);
                }
            }
        }
    }
}

/// True when segment p→q and a→b cross at a single interior point (the ends strictly on
/// opposite sides of each other's lines).
fn strictly_crosses(p: Vec2, q: Vec2, a: Vec2, b: Vec2) -> bool {
    let d = q - p;
    let e = b - a;
    let (s1, s2) = (e.perp_dot(p - a), e.perp_dot(q - a));
    let (s3, s4) = (d.perp_dot(a - p), d.perp_dot(b - p));
    s1 * s2 < 0.0 && s3 * s4 < 0.0
}
