//! Vehicles as a newcomer writes them from the format reference: a stadium loop (100 m
//! straights joined by 25 m-radius bends) as a looping path of points 2 m apart, a group capped
//! at 10 m/s whose `vehicle` gives only its model, a `follow_path` with only its path. Each
//! model keeps within 0.5 m of the centre line everywhere (a 3.5 m lane needs ≤ 0.85 m), and a
//! flying lap takes within 10 % of the fastest the 10 m/s cap allows, (200 + 50π) m / 10 m/s =
//! 35.7 s (the bends' grip-limited speed, √(8 · 25) = 14 m/s for a car, is above the cap).

use steerkit::Vec2;
use steerkit_scenario::simulation::{Outputs, Simulation};
use steerkit_scenario::Scenario;

/// The stadium's centre line, counter-clockwise from (0, −25).
fn stadium() -> String {
    let (r, l, step) = (25.0_f64, 100.0_f64, 2.0_f64);
    let mut points = Vec::new();
    let n = (l / step) as usize;
    let m = (std::f64::consts::PI * r / step) as usize;
    for (from, dir, centre) in [(0.0, 1.0, l), (l, -1.0, 0.0)] {
        points.extend((0..n).map(|i| (from + dir * i as f64 * step, -r * dir)));
        let start = -dir * std::f64::consts::FRAC_PI_2;
        points.extend((0..m).map(|i| {
            let a = start + std::f64::consts::PI * i as f64 / m as f64;
            (centre + r * a.cos(), r * a.sin())
        }));
    }
    points.iter().map(|(x, y)| format!("[{x:.3}, {y:.3}]")).collect::<Vec<_>>().join(", ")
}

fn scenario(model: &str) -> String {
    format!(
        r#"name = "stadium"
dt = 0.02
duration = 90.0
[world]
min = [-60.0, -60.0]
max = [160.0, 60.0]
neighbour_radius = 4.0
[[paths]]
name = "loop"
looping = true
points = [{}]
[[groups]]
name = "driver"
radius = 1.0
limits = {{ max_speed = 10.0, max_acceleration = 8.0, max_rotation = 3.0, max_angular_acceleration = 10.0 }}
vehicle = {{ model = "{model}" }}
behaviour = {{ kind = "follow_path", path = "loop" }}
agents = [{{ position = [0.0, -25.0], orientation = 0.0 }}]
[metrics]
collect = ["path_deviation", "laps"]
"#,
        stadium()
    )
}

#[test]
fn every_model_laps_a_stadium_in_its_lane_with_default_settings() {
    let fastest = (200.0 + 50.0 * std::f64::consts::PI) / 10.0;
    let mut failures = Vec::new();
    // measured: car and motorbike 0.09 m and 35.70 s, tank 0.09 m and 36.56 s, discrete car
    // 0.07 m and 36.44 s
    for model in ["car", "motorbike", "tank", "discrete_car"] {
        let s = Scenario::from_toml_str(&scenario(model), "stadium.toml").unwrap();
        let mut sim = Simulation::<Vec2>::new(&s, Outputs { metrics: true, replay: None }).unwrap();
        for _ in 0..s.steps() {
            sim.step().unwrap();
        }
        let g = &sim.metrics(1, 0.0).unwrap().groups[0];
        let worst = g.path_deviation_max.unwrap_or(f64::NAN);
        let laps = g.lap_times.clone().unwrap_or_default();
        eprintln!("{model}: worst {worst} m, laps {laps:?} s");
        let within = |x: f64, most: f64| x <= most; // false for NaN
        if !within(worst, 0.5) {
            failures.push(format!("{model}: {worst} m off the centre line"));
        }
        if laps.is_empty() || laps.iter().any(|&t| !within(t, 1.1 * fastest)) {
            failures.push(format!("{model}: laps {laps:?} s, the fastest {fastest:.1} s"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A person on foot (`human`, 4 m/s forward at most) keeps the same line at its own pace.
#[test]
fn a_person_on_foot_keeps_to_the_stadium_line() {
    let s = Scenario::from_toml_str(&scenario("human"), "stadium.toml").unwrap();
    let mut sim = Simulation::<Vec2>::new(&s, Outputs { metrics: true, replay: None }).unwrap();
    for _ in 0..s.steps() {
        sim.step().unwrap();
    }
    let g = &sim.metrics(1, 0.0).unwrap().groups[0];
    // measured 0.10 m
    let worst = g.path_deviation_max.unwrap();
    assert!(worst <= 0.5, "{worst} m off the centre line");
}
