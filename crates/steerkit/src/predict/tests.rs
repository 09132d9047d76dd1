use super::targeting::{bisect, closest_on_segment, Bisection};
use super::*;
use core::f32::consts::FRAC_PI_4;
use proptest::prelude::*;

const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

fn assert_vec(a: Vec3, b: Vec3, tol: f32) {
    assert!((a - b).abs().max_element() <= tol, "{a} vs {b} (tol {tol})");
}

// ---- trajectory and landing (§3.5.2) ----

#[test]
fn exercise_3_13_kicked_ball_lands_after_1_631_s_and_9_786_m() {
    // u = (3/5, 4/5), s = 10, ground to ground; tolerance 1e-4 s / 1e-3 m
    let v = Vec3::new(0.6, 0.8, 0.0) * 10.0;
    let l = landing_point(Vec3::ZERO, v, G, 0.0).unwrap();
    assert!(close(l.time, 1.630_99, 1e-4), "{}", l.time);
    assert!(close(l.point.x, 9.7859, 1e-3), "{}", l.point.x);
    assert_eq!(l.point.y, 0.0);
}

#[test]
fn landing_takes_the_later_descending_root() {
    // grenade at height 2 moving (5, 5, 0): roots −0.307338 and 1.326706 → the later one
    let l = landing_point(Vec3::new(0.0, 2.0, 0.0), Vec3::new(5.0, 5.0, 0.0), G, 0.0).unwrap();
    assert!(close(l.time, 1.326_706, 1e-5), "{}", l.time);
    assert!(close(l.point.x, 6.633_53, 1e-4), "{}", l.point.x);
    // the descending crossing: vertical velocity negative there
    assert!(trajectory_velocity(Vec3::new(5.0, 5.0, 0.0), G, l.time).y < 0.0);
}

#[test]
fn heights_never_reached_or_already_passed_give_none() {
    let p = Vec3::new(0.0, 2.0, 0.0);
    // apex = 2 + 25/19.62 = 3.27 m < 10 m: negative discriminant
    assert_eq!(time_to_height(p, Vec3::new(1.0, 5.0, 0.0), G, 10.0), None);
    // below the height and falling: both roots negative
    let below = Vec3::new(0.0, -1.0, 0.0);
    assert_eq!(time_to_height(below, Vec3::new(0.0, -5.0, 0.0), G, 0.0), None);
    // below but rising fast enough: reaches it on the way down
    let t = time_to_height(below, Vec3::new(0.0, 10.0, 0.0), G, 0.0).unwrap();
    assert!(close(trajectory_position(below, Vec3::Y * 10.0, G, t).y, 0.0, 1e-4));
    assert!(10.0 - 9.81 * t < 0.0);
    // apex exactly at the height: the double root
    let t = time_to_height(Vec3::ZERO, Vec3::Y * 9.81, G, 4.905).unwrap();
    assert!(close(t, 1.0, 1e-3), "{t}");
    // no gravity: linear, and only forward in time
    assert_eq!(time_to_height(p, Vec3::Y, Vec3::ZERO, 5.0), Some(3.0));
    assert_eq!(time_to_height(p, Vec3::Y, Vec3::ZERO, 0.0), None);
    assert_eq!(time_to_height(p, Vec3::X, Vec3::ZERO, 0.0), None);
    assert_eq!(time_to_height(p, Vec3::X, Vec3::ZERO, 2.0), Some(0.0));
    // non-finite input
    assert_eq!(time_to_height(p, Vec3::NAN, G, 0.0), None);
}

#[test]
fn catching_height_lands_before_and_short_of_the_floor_point() {
    let (p, v) = (Vec3::new(0.0, 3.0, 0.0), Vec3::new(8.0, 4.0, 0.0));
    let floor = landing_point(p, v, G, 0.0).unwrap();
    let chest = landing_point(p, v, G, 1.3).unwrap();
    assert!(chest.time < floor.time && chest.point.x < floor.point.x);
    assert!(floor.point.x - chest.point.x > 1.0);
}

#[test]
fn terrain_iteration_converges_on_a_slope_and_caps_on_a_pathological_ground() {
    let (p, v) = (Vec3::new(0.0, 10.0, 0.0), Vec3::new(10.0, 2.0, 3.0));
    let slope = |x: f32, z: f32| 0.1 * x - 0.05 * z;
    let opts = LandingOptions::default();
    let l = predict_landing(p, v, G, slope, &opts).unwrap();
    // the point is on the ground within the tolerance
    assert!(close(l.point.y, slope(l.point.x, l.point.z), opts.tolerance), "{l:?}");
    assert!(close(trajectory_position(p, v, G, l.time).x, l.point.x, 1e-3));
    // flat ground: one step
    let flat = predict_landing(p, v, G, |_, _| 0.0, &opts).unwrap();
    assert_eq!(Some(flat), landing_point(p, v, G, 0.0));
    // catch height offset
    let chest = LandingOptions { height_offset: 1.3, ..opts };
    let c = predict_landing(p, v, G, |_, _| 0.0, &chest).unwrap();
    assert!(close(c.point.y, 1.3, 1e-6));
    // a step whose low side sends the shot onto the high side and back: never settles
    // (landing x is 19.05 m at height −4 and 13.29 m at height 4)
    let jagged = |x: f32, _z: f32| if x < 16.0 { -4.0 } else { 4.0 };
    match predict_landing(p, v, G, jagged, &opts) {
        Err(LandingError::NotConverged { last }) => assert!(last.point.is_finite()),
        other => panic!("expected NotConverged, got {other:?}"),
    }
    // ground above the apex ahead
    assert_eq!(
        predict_landing(p, v, G, |x, _| if x > 1.0 { 100.0 } else { 0.0 }, &opts),
        Err(LandingError::NeverReaches)
    );
    // bad inputs
    assert!(matches!(
        predict_landing(p, v, G, |_, _| f32::NAN, &opts),
        Err(LandingError::Invalid(_))
    ));
    let zero = LandingOptions { max_iterations: 0, ..opts };
    assert!(matches!(predict_landing(p, v, G, slope, &zero), Err(LandingError::Invalid(_))));
}

#[test]
fn closest_approach_agrees_with_dense_sampling() {
    let cases = [
        (Vec3::ZERO, Vec3::new(10.0, 10.0, 0.0), Vec3::new(10.0, 1.0, 0.5)),
        (Vec3::ZERO, Vec3::new(3.0, 12.0, -2.0), Vec3::new(2.0, 8.0, -1.0)),
        (Vec3::new(1.0, 5.0, 0.0), Vec3::new(-4.0, 0.0, 2.0), Vec3::new(0.0, 0.0, 0.0)),
        (Vec3::ZERO, Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, -3.0, 0.0)),
    ];
    for (s, v, target) in cases {
        let a = trajectory_closest_approach(s, v, G, target, 5.0).unwrap();
        let mut best = f32::INFINITY;
        for i in 0..=50_000 {
            let t = 5.0 * i as f32 / 50_000.0;
            best = best.min(trajectory_position(s, v, G, t).distance(target));
        }
        assert!(close(a.distance, best, 1e-3), "{a:?} vs {best}");
        assert!(close(a.point.distance(target), a.distance, 1e-3));
    }
    // a trajectory through the point: the crossing time
    let v = Vec3::new(4.0, 6.0, 0.0);
    let p = trajectory_position(Vec3::ZERO, v, G, 0.8);
    let a = trajectory_closest_approach(Vec3::ZERO, v, G, p, 10.0).unwrap();
    assert!(close(a.time, 0.8, 1e-4) && a.distance < 1e-4, "{a:?}");
    // zero gravity and bad input
    let a = trajectory_closest_approach(
        Vec3::ZERO,
        Vec3::X,
        Vec3::ZERO,
        Vec3::new(3.0, 4.0, 0.0),
        10.0,
    );
    assert!(close(a.unwrap().distance, 4.0, 1e-5));
    assert_eq!(trajectory_closest_approach(Vec3::ZERO, Vec3::X, G, Vec3::X, -1.0), None);
}

// ---- firing solution (§3.5.3) ----

#[test]
fn firing_solution_fixtures_from_the_spec() {
    // tolerance 1e-4 on directions and times (fixtures given to 6 digits)
    let cases = [
        (
            Vec3::new(10.0, 0.0, 0.0),
            20.0,
            0.503_862,
            Vec3::new(0.992_336, 0.123_572, 0.0),
            4.046_221,
            Vec3::new(0.123_572, 0.992_336, 0.0),
        ),
        (
            Vec3::new(10.0, 5.0, 0.0),
            20.0,
            0.604_422,
            Vec3::new(0.827_237, 0.561_853, 0.0),
            3.771_169,
            Vec3::new(0.132_585, 0.991_172, 0.0),
        ),
        (Vec3::new(0.0, 10.0, 0.0), 20.0, 0.583_501, Vec3::Y, 3.493_971, Vec3::Y),
    ];
    for (end, s, t_low, u_low, t_high, u_high) in cases {
        let [low, high] = firing_solutions(Vec3::ZERO, end, s, G).unwrap();
        assert!(close(low.time, t_low, 1e-4), "{low:?}");
        assert!(close(high.time, t_high, 1e-4), "{high:?}");
        assert_vec(low.direction, u_low, 1e-4);
        assert_vec(high.direction, u_high, 1e-4);
        assert_eq!(firing_solution(Vec3::ZERO, end, s, G, BallisticArc::Low).unwrap(), low);
        assert_eq!(firing_solution(Vec3::ZERO, end, s, G, BallisticArc::High).unwrap(), high);
    }
    // out of range: (100, 0, 0) at 10 m/s
    assert_eq!(
        firing_solution(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), 10.0, G, BallisticArc::Low),
        Err(AimError::OutOfRange)
    );
    // at the maximum level range s²/|g| = 10.19368 (f32 rounding puts it a hair beyond):
    // the double root t = 1.441604 at 45°, tolerance 1e-3
    let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.19368, 0.0, 0.0), 10.0, G).unwrap();
    for sol in [low, high] {
        assert!(close(sol.time, 1.441_604, 1e-3), "{sol:?}");
        assert_vec(sol.direction, Vec3::new(1.0, 1.0, 0.0).normalize(), 1e-3);
    }
    // a little inside: two arcs either side of 45°
    let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.19, 0.0, 0.0), 10.0, G).unwrap();
    assert!(low.direction.y.asin() < FRAC_PI_4 && high.direction.y.asin() > FRAC_PI_4);
    assert!(low.time < 1.441_604 && high.time > 1.441_604);
}

#[test]
fn firing_solution_lecture_vectors_section_14_item_5() {
    // s = 15: E = (10,0,0) → t = {0.684, 2.981}, u_low = (0.9747, 0.2237, 0);
    // E = (10,5,0) → t = {0.893, 2.553}, u_low = (0.7466, 0.6653, 0); E = (30,0,0) → none.
    // tolerance: half a unit in the last quoted digit
    let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 15.0, G).unwrap();
    assert!(close(low.time, 0.684, 5e-4) && close(high.time, 2.981, 5e-4));
    assert_vec(low.direction, Vec3::new(0.9747, 0.2237, 0.0), 5e-5);
    let [low, high] = firing_solutions(Vec3::ZERO, Vec3::new(10.0, 5.0, 0.0), 15.0, G).unwrap();
    assert!(close(low.time, 0.893, 5e-4) && close(high.time, 2.553, 5e-4));
    assert_vec(low.direction, Vec3::new(0.7466, 0.6653, 0.0), 5e-5);
    assert_eq!(
        firing_solutions(Vec3::ZERO, Vec3::new(30.0, 0.0, 0.0), 15.0, G),
        Err(AimError::OutOfRange)
    );
}

#[test]
fn firing_solution_aims_at_target_not_away() {
    // erratum: the book's listing uses delta = start − end
    let (s, e, speed) = (Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 15.0);
    let sol = firing_solution(s, e, speed, G, BallisticArc::Low).unwrap();
    assert!(sol.direction.x > 0.0);
    let hit = trajectory_position(s, sol.velocity(speed), G, sol.time);
    assert_vec(hit, e, 1e-4);
    // what the listing computes lands on the mirror image of the target
    let wrong = s - e;
    let t = sol.time;
    let u = (wrong * 2.0 - G * t * t) / (2.0 * speed * t);
    assert!(u.x < 0.0);
    assert_vec(trajectory_position(s, u * speed, G, t), -e, 1e-3);
}

#[test]
fn firing_solution_degenerate_inputs_are_errors_not_nan() {
    let e = Vec3::new(3.0, 4.0, 0.0);
    // zero gravity: the straight line, once
    let [low, high] = firing_solutions(Vec3::ZERO, e, 10.0, Vec3::ZERO).unwrap();
    assert_eq!(low, high);
    assert_vec(low.direction, e / 5.0, 1e-6);
    assert!(close(low.time, 0.5, 1e-6));
    // target at the start, zero or negative or NaN speed, NaN vectors
    assert_eq!(firing_solutions(e, e, 10.0, G), Err(AimError::TargetAtStart));
    for speed in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(firing_solutions(Vec3::ZERO, e, speed, G), Err(AimError::Invalid(_))));
    }
    assert!(matches!(firing_solutions(Vec3::ZERO, Vec3::NAN, 10.0, G), Err(AimError::Invalid(_))));
    // very weak gravity: the high arc's time overflows f32, the low arc is the line
    let [low, high] = firing_solutions(Vec3::ZERO, e, 10.0, Vec3::new(0.0, -1e-30, 0.0)).unwrap();
    assert!(low.direction.is_finite() && high.direction.is_finite());
    assert!(high.time.is_finite());
}

// ---- drag (§3.5.4) ----

#[test]
fn linear_drag_closed_form_identities() {
    // lectures §14 item 8: p(0) = p₀ and ṗ(0) = s·u; plus the ODE, the k → 0 limit and g/k
    let m = LinearDrag::new(G, 0.4).unwrap();
    let (p0, v0) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(12.0, 9.0, -4.0));
    assert_vec(m.position_at(p0, v0, 0.0), p0, 1e-6);
    assert_vec(m.velocity_at(v0, 0.0), v0, 1e-6);
    for t in [0.3f32, 1.0, 2.5] {
        let h = 1e-3;
        let acc = (m.velocity_at(v0, t + h) - m.velocity_at(v0, t - h)) / (2.0 * h);
        assert_vec(acc, G - m.velocity_at(v0, t) * 0.4, 2e-2);
        let vel = (m.position_at(p0, v0, t + h) - m.position_at(p0, v0, t - h)) / (2.0 * h);
        assert_vec(vel, m.velocity_at(v0, t), 2e-2);
    }
    assert_vec(m.velocity_at(v0, 60.0), G / 0.4, 1e-3);
    let tiny = LinearDrag::new(G, 1e-7).unwrap();
    let none = LinearDrag::new(G, 0.0).unwrap();
    for t in [0.5f32, 2.0] {
        let free = trajectory_position(p0, v0, G, t);
        assert_vec(tiny.position_at(p0, v0, t), free, 1e-4);
        assert_vec(none.position_at(p0, v0, t), free, 1e-5);
    }
    assert!(LinearDrag::new(G, -1.0).is_err());
}

#[test]
fn linear_drag_constant_b_starts_at_the_firing_point() {
    // Eq. 3.6 p(t) = (g·t − A·e^(−kt))/k + B with A = v₀ − g/k needs B = p₀ + A/k;
    // the B = p₀ − A/k of the write-ups is off by 2A/k at t = 0
    let (k, p0, v0) = (0.5f32, Vec3::new(0.0, 1.0, 0.0), Vec3::new(10.0, 10.0, 0.0));
    let a = v0 - G / k;
    let eq36 = |b: Vec3, t: f32| (G * t - a * (-k * t).exp()) / k + b;
    let m = LinearDrag::new(G, k).unwrap();
    for t in [0.0f32, 0.7, 1.9] {
        assert_vec(eq36(p0 + a / k, t), m.position_at(p0, v0, t), 1e-4);
    }
    assert!((eq36(p0 - a / k, 0.0) - p0).length() > 10.0);
}

#[test]
fn quadratic_drag_integrates_linear_drag_and_falls_at_terminal_speed() {
    let (p0, v0) = (Vec3::ZERO, Vec3::new(20.0, 15.0, 5.0));
    let lin = LinearDrag::new(G, 0.3).unwrap();
    let num = QuadraticDrag::new(G, 0.3, 0.0).unwrap();
    let (mut p, mut v) = (p0, v0);
    for _ in 0..30 {
        (p, v) = num.step(p, v, 0.1);
    }
    assert_vec(p, lin.position_at(p0, v0, 3.0), 1e-3);
    assert_vec(v, lin.velocity_at(v0, 3.0), 1e-4);
    // pure quadratic drag: falling terminal speed √(g/c)
    let c = 0.05;
    let q = QuadraticDrag::new(G, 0.0, c).unwrap();
    let (_, v) = q.step(Vec3::ZERO, Vec3::ZERO, 30.0);
    assert!(close(-v.y, (9.81f32 / c).sqrt(), 1e-3), "{v}");
    // a stiff flight (huge drag, fast shot) stays finite and slows down
    let stiff = QuadraticDrag::new(G, 5.0, 3.0).unwrap();
    let (p, v) = stiff.step(Vec3::ZERO, Vec3::new(500.0, 0.0, 0.0), 1.0);
    assert!(p.is_finite() && v.length() < 10.0, "{p} {v}");
    // drag shortens the range
    let free = landing_point(Vec3::ZERO, v0, G, 0.0).unwrap().point.x;
    let (mut p, mut v) = (Vec3::ZERO, v0);
    while !(p.y < 0.0 && v.y < 0.0) {
        (p, v) = QuadraticDrag::new(G, 0.0, 0.01).unwrap().step(p, v, 0.01);
    }
    assert!(p.x < free);
}

// ---- iterative targeting (§3.5.5) ----

fn fine_miss<M: ForwardModel>(m: &M, start: Vec3, v: Vec3, target: Vec3) -> f32 {
    let (mut p, mut vel) = (start, v);
    let mut best = p.distance(target);
    for _ in 0..20_000 {
        let (p1, v1) = m.step(p, vel, 0.002);
        best = best.min(closest_on_segment(p, p1, target).0.distance(target));
        (p, vel) = (p1, v1);
        if p.y < target.y - 5.0 && vel.y < 0.0 {
            break;
        }
    }
    best
}

#[test]
fn refine_targeting_probes_the_midpoint_of_the_bracket() {
    // erratum: the listing's "midpoint" (max − min)/2 leaves the bracket [0.5, 0.7] at once
    let mut probes = vec![];
    let out = bisect(0.5, 0.7, 1e-4, |a| {
        probes.push(a);
        Some(a - 0.613)
    });
    assert!(matches!(out, Bisection::Hit(a) if close(a, 0.613, 1e-3)), "{out:?}");
    assert!(close(probes[0], 0.6, 1e-7));
    assert!(probes.iter().all(|&a| (0.5..=0.7).contains(&a)), "{probes:?}");
}

#[test]
fn refine_targeting_moves_a_bound_inside_the_loop() {
    // erratum: the bound update sat outside the loop, so the bracket never shrank. Here every
    // probe narrows it: a hit within log₂(0.2 / 1e-4) + 1 probes, and an unattainable margin
    // (a miss that jumps over zero) ends when the bracket collapses, not never.
    let mut n = 0;
    let out = bisect(0.5, 0.7, 1e-4, |a| {
        n += 1;
        Some(a - 0.6666)
    });
    assert!(matches!(out, Bisection::Hit(_)) && n <= 12, "{out:?} after {n}");
    let mut n = 0;
    let out = bisect(-1.5, 1.0, 1e-3, |a| {
        n += 1;
        Some(if a < 0.3 { -1.0 } else { 1.0 })
    });
    assert_eq!(out, Bisection::Collapsed);
    assert!(n <= 20, "{n}");
    // and a refused probe stops it
    assert_eq!(bisect(0.0, 1.0, 1e-3, |_| None), Bisection::Exhausted);
}

/// A projectile with lift: it reports ordinary gravity for the first guess but falls at 60%.
struct Floaty;

impl ForwardModel for Floaty {
    fn gravity(&self) -> Vec3 {
        G
    }
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
        let g = G * 0.6;
        (trajectory_position(position, velocity, g, dt), trajectory_velocity(velocity, g, dt))
    }
}

#[test]
fn refine_targeting_overshoot_is_not_out_of_range() {
    // erratum: the listing's "can't reach it" test also ran after the overshoot branch, where
    // the straight-down probe always falls short. With lift the drag-free guess overshoots.
    let (s, e, speed) = (Vec3::ZERO, Vec3::new(40.0, 0.0, 0.0), 25.0);
    let opts = TargetingOptions::default();
    let guess = firing_solution(s, e, speed, G, BallisticArc::Low).unwrap();
    let first = distance_to_target(&Floaty, s, guess.velocity(speed), e, &opts);
    assert!(first.distance > opts.margin, "{first:?}");
    let sol = refine_targeting(&Floaty, s, e, speed, &opts).unwrap();
    assert!(sol.direction.y < guess.direction.y);
    assert!(fine_miss(&Floaty, s, sol.direction * speed, e) < opts.margin + 0.01);
    // the exact answer under the weaker gravity
    let exact = firing_solution(s, e, speed, G * 0.6, BallisticArc::Low).unwrap();
    assert!(sol.direction.angle_between(exact.direction) < 5e-3);
}

#[test]
fn refine_targeting_searches_above_45_degrees_for_a_high_target() {
    // the book caps the elevation at π/4; a target well above the start needs more
    let model = LinearDrag::new(G, 0.1).unwrap();
    let (s, e, speed) = (Vec3::ZERO, Vec3::new(10.0, 20.0, 0.0), 25.0);
    let opts = TargetingOptions::default();
    let guess = firing_solution(s, e, speed, G, BallisticArc::Low).unwrap();
    let first = distance_to_target(&model, s, guess.velocity(speed), e, &opts);
    let at_45 = distance_to_target(
        &model,
        s,
        direction_from_elevation(Vec3::X, FRAC_PI_4) * speed,
        e,
        &opts,
    );
    assert!(first.distance < 0.0 && at_45.distance < 0.0, "{first:?} {at_45:?}");
    let sol = refine_targeting(&model, s, e, speed, &opts).unwrap();
    assert!(sol.direction.y.asin() > FRAC_PI_4);
    assert!(fine_miss(&model, s, sol.direction * speed, e) < opts.margin + 0.01);
    assert!(sol.miss.abs() < opts.margin && sol.simulations <= opts.max_simulations);
}

#[test]
fn refine_targeting_reports_out_of_range_when_the_best_shot_falls_short() {
    let model = QuadraticDrag::new(G, 0.0, 0.01).unwrap();
    let opts = TargetingOptions::default();
    // drag-free range at 30 m/s is 91.7 m; with drag 80 m is out of reach
    let e = Vec3::new(80.0, 0.0, 0.0);
    assert!(firing_solution(Vec3::ZERO, e, 30.0, G, BallisticArc::Low).is_ok());
    assert_eq!(refine_targeting(&model, Vec3::ZERO, e, 30.0, &opts), Err(AimError::OutOfRange));
    // beyond even the drag-free range: the guess is missing, still a clean answer
    assert_eq!(
        refine_targeting(&model, Vec3::ZERO, e * 3.0, 30.0, &opts),
        Err(AimError::OutOfRange)
    );
    // while a nearer target is hit, with more elevation than the drag-free guess
    let near = Vec3::new(40.0, 0.0, 10.0);
    let sol = refine_targeting(&model, Vec3::ZERO, near, 30.0, &opts).unwrap();
    let guess = firing_solution(Vec3::ZERO, near, 30.0, G, BallisticArc::Low).unwrap();
    assert!(sol.direction.y > guess.direction.y);
    assert!(fine_miss(&model, Vec3::ZERO, sol.direction * 30.0, near) < opts.margin + 0.01);
}

#[test]
fn distance_to_target_with_bad_timing_measures_the_start_only() {
    let model = NoDrag::new(G).unwrap();
    let bad = TargetingOptions { sample_interval: 0.0, ..TargetingOptions::default() };
    let e = Vec3::new(10.0, 0.0, 0.0);
    let m = distance_to_target(&model, Vec3::ZERO, Vec3::new(10.0, 5.0, 0.0), e, &bad);
    assert_eq!((m.distance.abs(), m.time), (10.0, 0.0));
}

#[test]
fn refine_targeting_without_drag_accepts_the_first_guess() {
    let model = NoDrag::new(G).unwrap();
    let e = Vec3::new(12.0, 3.0, -7.0);
    let sol = refine_targeting(&model, Vec3::ZERO, e, 20.0, &TargetingOptions::default()).unwrap();
    assert_eq!(sol.simulations, 1);
    let exact = firing_solution(Vec3::ZERO, e, 20.0, G, BallisticArc::Low).unwrap();
    assert_vec(sol.direction, exact.direction, 1e-5);
}

#[test]
fn refine_targeting_corrects_the_bearing_in_a_crosswind() {
    let model =
        QuadraticDrag::new(G, 0.0, 0.005).unwrap().with_wind(Vec3::new(0.0, 0.0, 8.0)).unwrap();
    let (s, e) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(50.0, 0.0, 0.0));
    let opts = TargetingOptions::default();
    let sol = refine_targeting(&model, s, e, 35.0, &opts).unwrap();
    // aims upwind (−z) to drift onto the target
    assert!(sol.direction.z < -0.01, "{sol:?}");
    assert!(fine_miss(&model, s, sol.direction * 35.0, e) < opts.margin + 0.01);
}

#[test]
fn refine_targeting_straight_up_and_degenerate_requests() {
    let model = LinearDrag::new(G, 0.2).unwrap();
    let opts = TargetingOptions::default();
    let up = refine_targeting(&model, Vec3::ZERO, Vec3::new(0.0, 10.0, 0.0), 20.0, &opts).unwrap();
    assert_eq!(up.direction, Vec3::Y);
    assert_eq!(
        refine_targeting(&model, Vec3::ZERO, Vec3::new(0.0, 100.0, 0.0), 20.0, &opts),
        Err(AimError::OutOfRange)
    );
    assert_eq!(
        refine_targeting(&model, Vec3::ONE, Vec3::ONE, 20.0, &opts),
        Err(AimError::TargetAtStart)
    );
    let bad = TargetingOptions { margin: 0.0, ..opts };
    assert!(matches!(
        refine_targeting(&model, Vec3::ZERO, Vec3::X, 20.0, &bad),
        Err(AimError::Invalid(_))
    ));
    assert!(matches!(
        refine_targeting(&model, Vec3::ZERO, Vec3::X, 0.0, &opts),
        Err(AimError::Invalid(_))
    ));
}

#[test]
fn refine_targeting_stops_at_the_cap_with_its_best_shot() {
    let model = QuadraticDrag::new(G, 0.0, 0.01).unwrap();
    let e = Vec3::new(40.0, 2.0, 0.0);
    let opts =
        TargetingOptions { margin: 1e-7, max_simulations: 40, ..TargetingOptions::default() };
    match refine_targeting(&model, Vec3::ZERO, e, 30.0, &opts) {
        Err(AimError::NotConverged { direction, miss }) => {
            assert!((direction.length() - 1.0).abs() < 1e-5);
            assert!(miss < 0.01, "{miss}");
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }
    let one = TargetingOptions { max_simulations: 1, ..TargetingOptions::default() };
    assert!(matches!(
        refine_targeting(&model, Vec3::ZERO, e, 30.0, &one),
        Err(AimError::NotConverged { .. })
    ));
}

// ---- moving targets and grenades ----

#[test]
fn aim_at_moving_target_meets_the_target() {
    let (s, p, v, speed) =
        (Vec3::new(0.0, 1.5, 0.0), Vec3::new(30.0, 0.0, 10.0), Vec3::new(-2.0, 0.0, 3.0), 25.0);
    let opts = MovingTargetOptions::default();
    for arc in [BallisticArc::Low, BallisticArc::High] {
        let aim = aim_at_moving_target(s, p, v, speed, G, arc, &opts).unwrap();
        let shot = trajectory_position(s, aim.direction * speed, G, aim.time);
        let target = p + v * aim.time;
        assert!(shot.distance(target) <= opts.tolerance + 1e-3, "{arc:?} {aim:?}");
        assert!(shot.distance(aim.point) < 1e-3);
    }
    // a still target: the plain firing solution
    let still = aim_at_moving_target(s, p, Vec3::ZERO, speed, G, BallisticArc::Low, &opts).unwrap();
    assert_eq!(
        still.direction,
        firing_solution(s, p, speed, G, BallisticArc::Low).unwrap().direction
    );
    // running out of range, and a target faster than the shot: clean errors
    assert_eq!(
        aim_at_moving_target(s, p, Vec3::new(50.0, 0.0, 0.0), speed, G, BallisticArc::Low, &opts),
        Err(AimError::OutOfRange)
    );
    let fast =
        aim_at_moving_target(s, p, Vec3::new(-40.0, 0.0, 0.0), speed, G, BallisticArc::Low, &opts);
    assert!(fast.is_err(), "{fast:?}");
}

#[test]
fn grenade_reactions() {
    let grenade = Grenade {
        position: Vec3::new(0.0, 2.0, 0.0),
        velocity: Vec3::new(6.0, 6.0, 0.0),
        gravity: G,
        fuse: Some(4.0),
        blast_radius: 5.0,
    };
    let land = landing_point(grenade.position, grenade.velocity, G, 0.0).unwrap();
    let catcher = Catcher {
        position: land.point + Vec3::new(2.0, 0.0, 0.0),
        max_speed: 5.0,
        catch_height: 1.3,
        throw_back_time: 1.0,
    };
    // close and quick enough, with fuse to spare: catch at chest height
    match react_to_grenade(&grenade, &catcher, 0.0) {
        Reaction::Catch { point, time } => {
            assert!(close(point.y, 1.3, 1e-6) && time < land.time);
        }
        other => panic!("{other:?}"),
    }
    // short fuse: flee; can get out at 5 m/s
    let short = Grenade { fuse: Some(land.time + 0.2), ..grenade };
    assert!(matches!(
        react_to_grenade(&short, &catcher, 0.0),
        Reaction::Flee { escapable: true, from, .. } if from == land.point
    ));
    // a slow character in the middle of the blast cannot escape, but is told to run
    let slow = Catcher { position: land.point, max_speed: 0.5, ..catcher };
    assert!(matches!(
        react_to_grenade(&short, &slow, 0.0),
        Reaction::Flee { escapable: false, .. }
    ));
    // far away: safe
    let far = Catcher { position: Vec3::new(50.0, 0.0, 0.0), ..catcher };
    assert_eq!(react_to_grenade(&grenade, &far, 0.0), Reaction::Safe);
    // airburst: goes off before landing, at its position then
    let air = Grenade { fuse: Some(0.5), ..grenade };
    let expect = trajectory_position(air.position, air.velocity, G, 0.5);
    let near_air = Catcher { position: expect, ..slow };
    assert!(matches!(
        react_to_grenade(&air, &near_air, 0.0),
        Reaction::Flee { from, time, .. } if from == expect && time == 0.5
    ));
}

// ---- properties ----

/// Closest approach of a drag-free shot at `elevation` in the plane of `delta` and gravity.
fn sweep_best_miss(delta: Vec3, speed: f32, g: Vec3, angles: u32) -> f32 {
    // an orthonormal basis of the plane containing Δ and g (any plane through g if Δ ∥ g)
    let down = g.normalize_or_zero();
    let down = if down == Vec3::ZERO { -Vec3::Y } else { down };
    let mut across = delta - down * delta.dot(down);
    if across.length_squared() < 1e-10 {
        across = crate::math::any_perpendicular(down);
    }
    let across = across.normalize();
    let mut best = f32::INFINITY;
    for i in 0..angles {
        let a = core::f32::consts::TAU * i as f32 / angles as f32;
        let u = across * a.cos() - down * a.sin();
        let hit = trajectory_closest_approach(Vec3::ZERO, u * speed, g, delta, 1e3).unwrap();
        best = best.min(hit.distance);
    }
    best
}

fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn gravity() -> impl Strategy<Value = Vec3> {
    (1.0f32..30.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(g, x, z)| Vec3::new(x, -g, z))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        max_global_rejects: 20_000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_firing_solution_lands_on_the_target(
        start in vec3(100.0),
        delta in vec3(60.0),
        speed in 2.0f32..80.0,
        g in gravity(),
    ) {
        let end = start + delta;
        match firing_solutions(start, end, speed, g) {
            Ok(sols) => {
                prop_assert!(sols[0].time <= sols[1].time);
                for sol in sols {
                    prop_assert!((sol.direction.length() - 1.0).abs() < 1e-5);
                    let t = sol.time;
                    let landed = trajectory_position(start, sol.velocity(speed), g, t);
                    // f32 rounding of the start, the path length and the drop
                    let scale = 1.0 + start.length() + speed * t + 0.5 * g.length() * t * t;
                    prop_assert!(
                        landed.distance(end) <= 1e-4 * scale,
                        "{sol:?} lands at {landed}, target {end}"
                    );
                }
            }
            Err(AimError::OutOfRange) | Err(AimError::TargetAtStart) => {}
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
    }

    #[test]
    fn every_out_of_range_answer_is_out_of_range(
        delta in vec3(60.0),
        speed in 2.0f32..40.0,
        g in gravity(),
    ) {
        // skip targets within 2% of the edge of range, where f32 input rounding decides
        let (gd, g2, d2) = (g.dot(delta), g.length_squared(), delta.length_squared());
        let b = gd + speed * speed;
        prop_assume!(b <= 0.0 || (g2 * d2).sqrt() > 1.02 * b);
        prop_assert_eq!(
            firing_solutions(Vec3::ZERO, delta, speed, g),
            Err(AimError::OutOfRange)
        );
        // no direction in the plane of Δ and g (where any hit must lie) comes close
        let best = sweep_best_miss(delta, speed, g, 720);
        prop_assert!(best > 1e-3 * delta.length(), "a shot came within {best} m");
    }

    #[test]
    fn every_point_on_a_trajectory_is_in_range(
        u in vec3(1.0),
        t in 0.05f32..6.0,
        speed in 2.0f32..40.0,
        g in gravity(),
    ) {
        // the converse of the above: fly any shot, and the point it reaches at time t has a
        // firing solution, one of whose arcs is that shot
        let u = u.normalize_or_zero();
        prop_assume!(u != Vec3::ZERO);
        let end = trajectory_position(Vec3::ZERO, u * speed, g, t);
        prop_assume!(end.length() > 1e-2);
        let sols = firing_solutions(Vec3::ZERO, end, speed, g);
        prop_assert!(sols.is_ok(), "{sols:?} for {end}");
        let err = sols
            .unwrap()
            .iter()
            .map(|s| (s.time - t).abs() / t + s.direction.distance(u))
            .fold(f32::INFINITY, f32::min);
        prop_assert!(err < 1e-2, "no arc matches the shot: {err}");
    }

    #[test]
    fn time_to_height_is_a_descending_crossing(
        start in vec3(50.0),
        v in vec3(40.0),
        g in gravity(),
        height in -60.0f32..60.0,
    ) {
        if let Some(t) = time_to_height(start, v, g, height) {
            prop_assert!(t >= 0.0 && t.is_finite());
            let y = trajectory_position(start, v, g, t).y;
            let scale = 1.0 + start.y.abs() + v.y.abs() * t + g.y.abs() * t * t;
            prop_assert!((y - height).abs() <= 1e-5 * scale, "y {y} vs {height}");
            prop_assert!(v.y + g.y * t <= 1e-3 * (1.0 + v.y.abs()));
        } else {
            // never at that height from now on: the apex (or the start) is below it, or
            // it is already below and falling
            let apex_t = (-v.y / g.y).max(0.0);
            let apex = trajectory_position(start, v, g, apex_t).y;
            prop_assert!(apex < height + 1e-3 * (1.0 + apex.abs()));
        }
    }

    #[test]
    fn drag_aware_targeter_hits_whenever_a_sweep_finds_a_hit(
        range in 5.0f32..60.0,
        bearing in 0.0f32..core::f32::consts::TAU,
        rise in -10.0f32..20.0,
        speed in 15.0f32..45.0,
        k in 0.0f32..0.3,
        c in 0.0f32..0.01,
    ) {
        let model = QuadraticDrag::new(G, k, c).unwrap();
        let (s, dir) = (Vec3::ZERO, Vec3::new(bearing.cos(), 0.0, bearing.sin()));
        let e = dir * range + Vec3::Y * rise;
        // brute force: 120 elevations; a hit exists if some shot passes at or above the
        // target's height at the target's horizontal distance (a lower one passes below,
        // so by continuity an elevation in between goes through it)
        let mut found = false;
        for i in 0..120 {
            let a = -1.4 + 2.95 * i as f32 / 119.0;
            let (mut p, mut v) = (s, direction_from_elevation(dir, a) * speed);
            for _ in 0..2000 {
                let (p1, v1) = model.step(p, v, 0.01);
                let (x0, x1) = (p.dot(dir), p1.dot(dir));
                if x0 < range && x1 >= range {
                    let y = p.y + (p1.y - p.y) * (range - x0) / (x1 - x0);
                    found |= y >= rise;
                    break;
                }
                (p, v) = (p1, v1);
                if p.y < rise - 5.0 && v.y < 0.0 {
                    break;
                }
            }
            if found {
                break;
            }
        }
        prop_assume!(found);
        let opts = TargetingOptions::default();
        let sol = refine_targeting(&model, s, e, speed, &opts);
        prop_assert!(sol.is_ok(), "{sol:?}");
        let sol = sol.unwrap();
        let miss = fine_miss(&model, s, sol.direction * speed, e);
        prop_assert!(miss < opts.margin + 0.01, "{sol:?} misses by {miss}");
    }
}

/// Closest approach (m) of a shot flown with `model` to a target moving at constant velocity.
fn miss_moving<M: ForwardModel>(
    model: &M,
    start: Vec3,
    dir: Vec3,
    speed: f32,
    p: Vec3,
    v: Vec3,
) -> f32 {
    let (mut pos, mut vel, mut best) = (start, dir * speed, f32::INFINITY);
    for i in 1..=4000 {
        (pos, vel) = model.step(pos, vel, 0.001);
        best = best.min(pos.distance(p + v * (i as f32 * 0.001)));
    }
    best
}

#[test]
fn leading_through_drag_hits_a_moving_target_the_drag_free_lead_misses() {
    let g = Vec3::new(0.0, -9.81, 0.0);
    let model = LinearDrag::new(g, 0.3).unwrap();
    let (start, p, v, speed) =
        (Vec3::new(0.0, 1.0, 0.0), Vec3::new(40.0, 0.5, -10.0), Vec3::new(0.0, 0.0, 5.0), 40.0);
    let lead = MovingTargetOptions::default();
    let options = TargetingOptions { margin: 0.05, sample_interval: 0.02, ..Default::default() };
    let shot = lead_target(&model, start, p, v, speed, &options, &lead).unwrap();
    let free = aim_at_moving_target(start, p, v, speed, g, BallisticArc::Low, &lead).unwrap();
    let (with, without) = (
        miss_moving(&model, start, shot.direction, speed, p, v),
        miss_moving(&model, start, free.direction, speed, p, v),
    );
    assert!(with < 0.1, "the iterative lead passes {with} m from the target");
    assert!(without > 1.0, "the drag-free lead misses by {without} m");
    // the point predicted is where the target is at the flight time
    assert!(shot.point.distance(p + v * shot.time) < 0.05);
}
