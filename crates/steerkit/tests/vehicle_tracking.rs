//! Path tracking for every vehicle model ([`PathTracker`]): a stadium loop (100 m straights
//! joined by 25 m-radius bends) and a hairpin course (60 m straights joined by a 10 m-radius
//! half turn), each driven with the tracker's corner speeds at 0.9 of the model's limit.
//!
//! What is checked, with the tolerances stated:
//! - lateral deviation from the centre line ≤ 0.5 m at every step;
//! - lap time (a flying lap of the loop; start at rest to stop on the hairpin course) within
//!   10 % of the minimum time the test computes itself from the track's curvature (0 on the
//!   straights, 1/R in the bends) and the model's limits at full grip;
//! - at the end of the open course the vehicle stops, at most 0.05 m past the end.

use steerkit::kinematic::{Kinematic, Limits};
use steerkit::motor::{Car, DiscreteCar, Human, Motor, Motorbike, PathTracker, Tank, VehicleModel};
use steerkit::motor::{DriveMethod, DrivingLimits, SpeedProfile};
use steerkit::path::{Path, Polyline};
use steerkit::Vec2;

const DT: f32 = 0.02;
const BEND: f32 = 25.0;
const STRAIGHT: f32 = 100.0;
const HAIRPIN: f32 = 10.0;
const HAIRPIN_STRAIGHT: f32 = 60.0;

/// A track as pieces: (length m, curvature 1/m), driven from (0, 0) heading +x.
type Pieces = Vec<(f32, f32)>;

fn stadium() -> Pieces {
    let half = core::f32::consts::PI * BEND;
    vec![(STRAIGHT, 0.0), (half, 1.0 / BEND), (STRAIGHT, 0.0), (half, 1.0 / BEND)]
}

fn hairpin() -> Pieces {
    let half = core::f32::consts::PI * HAIRPIN;
    vec![(HAIRPIN_STRAIGHT, 0.0), (half, 1.0 / HAIRPIN), (HAIRPIN_STRAIGHT, 0.0)]
}

/// The centre line sampled every 0.5 m or less.
fn polyline(pieces: &Pieces, looping: bool) -> Polyline {
    let (mut p, mut heading) = (Vec2::ZERO, 0.0_f32);
    let mut points = vec![p];
    for &(length, k) in pieces {
        let n = (length / 0.5).ceil() as usize;
        let ds = length / n as f32;
        for _ in 0..n {
            let turn = k * ds;
            let chord = if k == 0.0 { ds } else { 2.0 * (0.5 * turn).sin() / k };
            p += Vec2::from_angle(heading + 0.5 * turn) * chord;
            heading += turn;
            points.push(p);
        }
    }
    if looping {
        points.pop();
        Polyline::looping(points).unwrap()
    } else {
        Polyline::open(points).unwrap()
    }
}

/// What the test knows of each model: its corner speed at curvature `k` (full grip), braking
/// and throttle (m/s, m/s²), written from the models' documented parameters.
struct Model {
    name: &'static str,
    model: VehicleModel,
    corner: fn(f32) -> f32,
    braking: f32,
    throttle: f32,
}

fn models() -> Vec<Model> {
    fn car(k: f32) -> f32 {
        if k == 0.0 {
            30.0
        } else {
            (8.0 / k).sqrt().min(30.0)
        }
    }
    fn bike(k: f32) -> f32 {
        let grip = 9.806_65 * 0.7_f32.tan();
        if k == 0.0 {
            40.0
        } else {
            (grip / k).sqrt().min(40.0)
        }
    }
    fn tank(k: f32) -> f32 {
        12.0 / (1.0 + k * 1.4)
    }
    fn human(k: f32) -> f32 {
        if k == 0.0 {
            4.0
        } else {
            (8.0 / k).sqrt().min(core::f32::consts::TAU / k).min(4.0)
        }
    }
    fn discrete(k: f32) -> f32 {
        if k == 0.0 {
            20.0
        } else {
            (0.6 / k).min(20.0)
        }
    }
    vec![
        Model {
            name: "car",
            model: VehicleModel::Car(Car::default()),
            corner: car,
            braking: 8.0,
            throttle: 4.0,
        },
        Model {
            name: "motorbike",
            model: VehicleModel::Motorbike(Motorbike::default()),
            corner: bike,
            braking: 9.0,
            throttle: 6.0,
        },
        Model {
            name: "tank",
            model: VehicleModel::Tank(Tank::default()),
            corner: tank,
            braking: 3.0,
            throttle: 3.0,
        },
        Model {
            name: "human",
            model: VehicleModel::Human(Human::default()),
            corner: human,
            braking: 8.0,
            throttle: 8.0,
        },
        Model {
            name: "discrete car",
            model: VehicleModel::Discrete(
                DiscreteCar::new(5.0, 2.0, 2.0).unwrap().with_limits(20.0, 0.0, 0.6).unwrap(),
            ),
            corner: discrete,
            braking: 2.0,
            throttle: 5.0,
        },
    ]
}

/// The minimum time (s) over `pieces` from the test's own passes: corner speeds sampled every
/// 0.1 m, backward with the braking, forward with the throttle; a loop round twice so both
/// passes wrap; an open course from rest to rest.
fn minimum_time(pieces: &Pieces, m: &Model, looping: bool) -> f32 {
    let ds = 0.1_f64;
    let mut v: Vec<f64> = Vec::new();
    for &(length, k) in pieces {
        let n = (f64::from(length) / ds).round() as usize;
        v.extend((0..n).map(|_| f64::from((m.corner)(k))));
    }
    let n = v.len();
    if !looping {
        v[0] = 0.0;
        v.push(0.0);
    }
    let (b, a) = (f64::from(m.braking), f64::from(m.throttle));
    let len = v.len();
    for _ in 0..if looping { 2 } else { 1 } {
        for i in (0..len).rev() {
            let next = if i + 1 < len {
                v[i + 1]
            } else if looping {
                v[0]
            } else {
                continue;
            };
            v[i] = v[i].min((next * next + 2.0 * b * ds).sqrt());
        }
    }
    for _ in 0..if looping { 2 } else { 1 } {
        for i in 0..len {
            let prev = if i > 0 {
                v[i - 1]
            } else if looping {
                v[len - 1]
            } else {
                continue;
            };
            v[i] = v[i].min((prev * prev + 2.0 * a * ds).sqrt());
        }
    }
    let pairs = if looping { n } else { len - 1 };
    (0..pairs).map(|i| 2.0 * ds / (v[i] + v[(i + 1) % len])).sum::<f64>() as f32
}

fn limits() -> Limits {
    Limits::new(100.0, 100.0, 100.0, 100.0).unwrap()
}

/// Drives `m` on `path` for up to `seconds`, calling `each(t, state, param)` after every step;
/// stops early when `each` returns false.
fn drive(
    m: &Model,
    path: &Polyline,
    seconds: f32,
    mut each: impl FnMut(f32, &Kinematic, f32) -> bool,
) -> Kinematic {
    let motor = Motor::new(m.model, DriveMethod::Filter);
    let tracker = PathTracker::new(&m.model, &limits());
    let mut state = Kinematic::default();
    let (mut param, mut last) = (f32::NAN, None);
    let steps = (seconds / DT) as usize;
    for i in 0..steps {
        let (request, s) = tracker.steer(&state, path, param, DT);
        param = s;
        last = Some(motor.drive_within(&mut state, &request, &limits(), DT, last));
        let t = (i + 1) as f32 * DT;
        if !each(t, &state, path.get_param(state.position, param)) {
            break;
        }
    }
    state
}

fn deviation(path: &Polyline, state: &Kinematic, param: f32) -> f32 {
    (path.get_position(param) - state.position).length()
}

/// Notes `what` when `ok` is false (NaN comparisons are false, so they fail too).
fn expect(failures: &mut Vec<String>, ok: bool, what: impl FnOnce() -> String) {
    if !ok {
        failures.push(what());
    }
}

#[test]
fn stadium_loop_within_half_a_metre_and_ten_percent_of_the_fastest_lap() {
    let pieces = stadium();
    let path = polyline(&pieces, true);
    let mut failures = Vec::new();
    for m in models() {
        let best = minimum_time(&pieces, &m, true);
        // the library's own plan of the same lap at full grip agrees with the test's
        let planned = SpeedProfile::plan(&path, &DrivingLimits::of(&m.model), 0.5, 4.0).time();
        println!("stadium {}: planned {planned:.2} s", m.name);
        expect(&mut failures, (planned - best).abs() <= 0.03 * best, || {
            format!("{}: planned {planned} s vs {best} s", m.name)
        });
        let (mut worst, mut crossings, mut prev) = (0.0_f32, Vec::new(), 0.0_f32);
        drive(&m, &path, 3.0 * best + 60.0, |t, state, s| {
            worst = worst.max(deviation(&path, state, s));
            if s < prev - 0.5 * path.length() {
                crossings.push(t);
            }
            prev = s;
            crossings.len() < 3
        });
        if crossings.len() < 3 {
            failures.push(format!("{}: {} laps", m.name, crossings.len()));
            continue;
        }
        let lap = crossings[2] - crossings[1];
        println!("stadium {}: deviation {worst:.3} m, lap {lap:.2} s, minimum {best:.2} s", m.name);
        expect(&mut failures, worst <= 0.5, || format!("{}: {worst} m off the line", m.name));
        expect(&mut failures, lap <= 1.1 * best, || format!("{}: lap {lap} s vs {best} s", m.name));
        expect(&mut failures, lap >= best - 0.1, || {
            format!("{}: lap {lap} s faster than the limit {best} s", m.name)
        });
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn hairpin_course_within_half_a_metre_and_stops_at_the_end() {
    let pieces = hairpin();
    let path = polyline(&pieces, false);
    let end = path.get_position(path.length());
    let outward = Vec2::new(-1.0, 0.0);
    let mut failures = Vec::new();
    for m in models() {
        let best = minimum_time(&pieces, &m, false);
        let (mut worst, mut arrived, mut overshoot) = (0.0_f32, None, f32::NEG_INFINITY);
        let state = drive(&m, &path, 2.0 * best + 30.0, |t, state, s| {
            worst = worst.max(deviation(&path, state, s));
            overshoot = overshoot.max((state.position - end).dot(outward));
            let stopped = state.velocity.length() < 0.05 && (state.position - end).length() < 0.25;
            if stopped && arrived.is_none() {
                arrived = Some(t);
            }
            true
        });
        let t = arrived.unwrap_or(f32::INFINITY);
        println!(
            "hairpin {}: deviation {worst:.3} m, time {t:.2} s, minimum {best:.2} s, overshoot {overshoot:.3} m, final speed {:.4}",
            m.name,
            state.velocity.length()
        );
        expect(&mut failures, worst <= 0.5, || format!("{}: {worst} m off the line", m.name));
        expect(&mut failures, overshoot <= 0.05, || {
            format!("{}: {overshoot} m past the end", m.name)
        });
        expect(&mut failures, state.velocity.length() < 1e-3, || {
            format!("{}: still moving", m.name)
        });
        expect(&mut failures, t <= 1.1 * best, || format!("{}: {t} s vs {best} s", m.name));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Degenerate input gives finite requests and speeds, never NaN: a one-point path, repeated
/// points, `dt = 0`, a NaN last parameter, a vehicle at rest or going backwards, a rival on the
/// same spot.
#[test]
fn degenerate_input_gives_finite_output() {
    use steerkit::motor::{DrivingLimits, Rival, SpeedProfile, Traffic};
    let paths = [
        Polyline::open(vec![Vec2::new(1.0, 1.0)]).unwrap(),
        Polyline::open(vec![Vec2::ZERO, Vec2::ZERO, Vec2::new(5.0, 0.0)]).unwrap(),
        Polyline::looping(vec![Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)]).unwrap(),
    ];
    let states = [
        Kinematic::default(),
        Kinematic { velocity: Vec2::new(-3.0, 0.0), ..Kinematic::default() },
        Kinematic {
            position: Vec2::new(1.0, 1.0),
            velocity: Vec2::new(0.0, 40.0),
            orientation: 1.0,
            rotation: 3.0,
        },
    ];
    let traffic = Traffic::new(3.5, 1.0, 1.0).unwrap();
    for m in models() {
        let tracker = PathTracker::new(&m.model, &limits());
        let profile_limits = DrivingLimits::of(&m.model);
        for path in &paths {
            let p = SpeedProfile::plan(path, &profile_limits, 0.5, 4.0);
            assert!(p.speeds().iter().chain(p.envelope()).all(|v| v.is_finite() && *v >= 0.0));
            assert!(!p.time().is_nan());
            for state in &states {
                for (param, dt) in [(f32::NAN, DT), (0.0, 0.0), (1e6, DT)] {
                    let (out, s) = tracker.steer(state, path, param, dt);
                    assert!(out.is_finite() && s.is_finite(), "{}: {out:?} {s}", m.name);
                    let rival =
                        Rival { position: state.position, velocity: state.velocity, radius: 1.0 };
                    let lane = traffic.lane(&tracker, path, state, 1.0, s, &[rival, rival]);
                    assert!(lane.offset.is_finite() && !lane.speed_cap.is_nan(), "{lane:?}");
                    let out = tracker.steer_in_lane(state, path, s, dt, &lane);
                    assert!(out.is_finite(), "{}: {out:?}", m.name);
                }
            }
        }
    }
}
