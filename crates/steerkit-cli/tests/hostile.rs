//! Generated scenario text through the loader, the runner and every output writer: whatever the
//! numbers, the file is refused with one line, or it runs and everything it writes is finite.

use proptest::prelude::*;
use steerkit_cli::run::{run, RunOptions};
use steerkit_cli::snapshot::render_svg;
use steerkit_scenario::Scenario;

/// A number for a field whose ordinary values lie in `lo..hi`: mostly ordinary, sometimes as
/// a hostile file would write it (the edges of the stated ranges, just outside them, the
/// extremes of `f32`).
fn number(lo: f32, hi: f32) -> impl Strategy<Value = String> {
    prop_oneof![
        9 => (lo..hi).prop_map(|v| format!("{v}")),
        1 => prop::sample::select(vec![
            "0", "-0.0", "1e-6", "1e-7", "1e-40", "1e5", "-1e5", "1.1e5", "1e6", "-1e6",
            "1.5e6", "3.4e38", "-3.4e38", "1e-45", "-1",
        ])
        .prop_map(str::to_owned),
    ]
}

/// The ordinary range of each of the scenario's 16 numbers, in order.
const FIELDS: [(f32, f32); 16] = [
    (0.005, 0.2),   // dt
    (-40.0, -20.0), // world min x
    (20.0, 40.0),   // world max y
    (0.5, 5.0),     // neighbour radius
    (-15.0, 15.0),  // obstacle x
    (0.1, 4.0),     // obstacle radius
    (0.05, 1.0),    // body radius
    (0.5, 8.0),     // max speed
    (0.5, 20.0),    // max acceleration
    (-15.0, 15.0),  // goal x
    (0.5, 5.0),     // slow radius
    (0.05, 1.0),    // time to target
    (0.0, 3.0),     // weight 1
    (0.2, 3.0),     // separation threshold
    (0.0, 3.0),     // weight 2
    (0.0, 10.0),    // jitter and lookahead
];

fn numbers() -> impl Strategy<Value = Vec<String>> {
    FIELDS.iter().map(|&(lo, hi)| number(lo, hi)).collect::<Vec<_>>()
}

/// A scenario exercising arrive, separation, wander, obstacle avoidance and a formation-free
/// flock, with 16 numbers drawn from [`number`].
fn scenario(n: &[String]) -> String {
    format!(
        r#"name = "hostile"
dt = {dt}
steps = 30
[world]
min = [{wmin}, -20]
max = [20, {wmax}]
neighbour_radius = {nr}
[[obstacles]]
shape = "circle"
center = [{ox}, 0]
radius = {or}
[[groups]]
name = "a"
count = 12
spawn = {{ shape = "rect", min = [-10, -10], max = [10, 10], heading = "random", speed = [0, 1] }}
radius = {r}
limits = {{ max_speed = {ms}, max_acceleration = {ma}, max_rotation = 3, max_angular_acceleration = 10 }}
goal = [{gx}, 2]
behaviour = {{ kind = "blend", members = [
  {{ kind = "arrive", use_goal = true, target_radius = 0.2, slow_radius = {sr}, time_to_target = {tt}, weight = {w1} }},
  {{ kind = "separation", threshold = {th}, falloff = "linear", weight = {w2} }},
  {{ kind = "wander", radius = 1, distance = 2, jitter = {j} }},
  {{ kind = "obstacle_avoidance", avoid_distance = 1, lookahead = {la} }},
] }}
"#,
        dt = n[0],
        wmin = n[1],
        wmax = n[2],
        nr = n[3],
        ox = n[4],
        or = n[5],
        r = n[6],
        ms = n[7],
        ma = n[8],
        gx = n[9],
        sr = n[10],
        tt = n[11],
        w1 = n[12],
        th = n[13],
        w2 = n[14],
        j = n[15],
        la = n[15],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn any_numbers_give_a_one_line_error_or_a_finite_run(n in numbers()) {
        let text = scenario(&n);
        let loaded = Scenario::from_toml_str(&text, "hostile.toml");
        let s = match loaded {
            Err(e) => {
                let line = e.to_string();
                prop_assert_eq!(line.lines().count(), 1, "{}", line);
                return Ok(());
            }
            Ok(s) => s,
        };
        let o = match run(&s, &RunOptions { threads: Some(1), ..RunOptions::default() }) {
            Err(e) => {
                prop_assert_eq!(e.to_string().lines().count(), 1, "{}", e);
                return Ok(());
            }
            Ok(o) => o,
        };
        for f in &o.recording.frames {
            let all = f.position.iter().chain(&f.velocity).chain(&f.orientation);
            let overlays = f.overlays.steering.vector.iter().chain(&f.overlays.target.point);
            prop_assert!(all.chain(overlays).all(|v| v.is_finite()), "step {}: {}", f.step, text);
        }
        for g in &o.metrics.groups {
            prop_assert!(g.final_mean_speed.is_finite(), "{}", text);
        }
        for r in &o.trajectories {
            prop_assert!(r.position.is_finite() && r.velocity.is_finite() && r.orientation.is_finite());
        }
        let svg = render_svg(&o.recording);
        // a non-finite number is written as the token `NaN` or `inf` (names may contain "inf")
        let bad = svg.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t == "NaN" || t == "inf");
        prop_assert!(!bad, "{}", text);
    }
}

/// A path of 140,000 points (a sine wave along x, 1 cm apart): after each follower's first
/// step, which searches the whole path, the coherent search (`search_window`) looks only near
/// the last parameter, so a step costs the same as on a short path. The followers keep to the
/// wave and move along it at close to their top speed.
#[test]
fn a_path_of_140_000_points_is_followed_along_its_length() {
    let wave = |x: f32| (x * 0.5).sin() * 3.0;
    let points: String = (0..140_000)
        .map(|i| {
            let x = i as f32 * 0.01;
            format!("[{x:.2},{:.3}],", wave(x))
        })
        .collect();
    let src = format!(
        r#"name = "long_path"
dt = 0.05
steps = 200
[world]
min = [-10, -10]
max = [1410, 10]
neighbour_radius = 2
[[paths]]
name = "wave"
points = [{points}]
[[groups]]
name = "walkers"
radius = 0.3
limits = {{ max_speed = 2, max_acceleration = 8, max_rotation = 4, max_angular_acceleration = 20 }}
behaviour = {{ kind = "follow_path", path = "wave", offset = 1.0, predict_time = 0.2 }}
agents = [{{ position = [0, 0] }}, {{ position = [500, 0] }}, {{ position = [1000, -3] }}]
"#
    );
    assert!(src.len() < 4 << 20, "the file must stay under the 4 MiB limit");
    let s = Scenario::from_toml_str(&src, "long_path.toml").unwrap();
    let o = run(&s, &RunOptions { threads: Some(1), ..RunOptions::default() }).unwrap();
    for start in [0.0f32, 500.0, 1000.0] {
        let first = o.trajectories.iter().find(|r| r.step == 0 && r.position.x == start).unwrap();
        let last = o.trajectories.iter().find(|r| r.step == 200 && r.agent == first.agent).unwrap();
        let p = last.position;
        // 10 s at up to 2 m/s along a wave whose arc is about 1.7× its run in x
        assert!(p.x - start > 5.0 && p.x - start < 20.0, "agent from x = {start} ended at {p}");
        assert!((p.y - wave(p.x)).abs() < 1.0, "agent from x = {start} left the wave: {p}");
    }
}

/// Turrets (3D), vehicles and side views with numbers from [`number`]: refused with one line, or
/// a run whose frames, shots, jumps and counts are all finite.
fn hostile_runs(text: &str) -> Result<(), TestCaseError> {
    let s = match Scenario::from_toml_str(text, "hostile.toml") {
        Err(e) => {
            prop_assert_eq!(e.to_string().lines().count(), 1, "{}", e);
            return Ok(());
        }
        Ok(s) => s,
    };
    let options = RunOptions { threads: Some(1), ..RunOptions::default() };
    let (frames, shots, jumps, turrets) = if s.dimensions() == 3 {
        match steerkit_cli::run::run_in::<steerkit::Vec3>(&s, &options) {
            Err(e) => {
                prop_assert_eq!(e.to_string().lines().count(), 1, "{}", e);
                return Ok(());
            }
            Ok(o) => (o.recording.frames, o.recording.shots, o.metrics.jumps, o.metrics.turrets),
        }
    } else {
        match run(&s, &options) {
            Err(e) => {
                prop_assert_eq!(e.to_string().lines().count(), 1, "{}", e);
                return Ok(());
            }
            Ok(o) => (o.recording.frames, o.recording.shots, o.metrics.jumps, o.metrics.turrets),
        }
    };
    for f in &frames {
        let all = f.position.iter().chain(&f.velocity).chain(&f.orientation);
        prop_assert!(all.chain(&f.overlays.controls.value).all(|v| v.is_finite()), "{}", text);
    }
    for sh in &shots {
        let pts = sh.predicted.iter().flatten().chain(sh.path.iter().flatten());
        prop_assert!(pts.chain(&sh.impact).all(|v| v.is_finite()), "{}", text);
    }
    for t in &turrets {
        prop_assert!(t.hit_rate.is_finite() && t.shots >= t.hits, "{}", text);
    }
    for j in &jumps {
        let nums = j.from.iter().chain(&j.to).chain([&j.width, &j.rise]);
        prop_assert!(nums.chain(j.run_up_speed.iter()).all(|v| v.is_finite()), "{}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn hostile_turrets_refuse_or_run_finite(
        speed in number(5.0, 60.0), gravity in number(1.0, 20.0), k in number(0.0, 2.0),
        c in number(0.0, 0.5), wind in number(-20.0, 20.0), interval in number(0.05, 2.0),
        blast in number(0.5, 5.0), drag in 0usize..3, solver in 0usize..2, grenade in any::<bool>(),
    ) {
        let drag = ["none", "linear", "quadratic"][drag];
        let keys = match drag {
            "none" => String::new(),
            "linear" => format!("k = {k}\n"),
            _ => format!("k = {k}\nc = {c}\nwind = [{wind}, 0, 0]\n"),
        };
        let shell = if grenade { format!("blast_radius = {blast}\n") } else { String::new() };
        let text = format!(
            r#"name = "guns"
dimensions = 3
dt = 0.05
steps = 40
[world]
min = [-30, 0, -30]
max = [30, 20, 30]
neighbour_radius = 2
[[groups]]
name = "runner"
radius = 0.4
limits = {{ max_speed = 4, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }}
behaviour = {{ kind = "priority", members = [{{ kind = "flee_hazards" }}, {{ kind = "seek", target = [20, 0, 10] }}] }}
agents = [{{ position = [-10, 0, 10] }}]
[[turrets]]
name = "gun"
position = [0, 1, -20]
target = "runner:0"
muzzle_speed = {speed}
gravity = {gravity}
drag = "{drag}"
{keys}solver = "{solver}"
interval = {interval}
{shell}"#,
            solver = ["closed_form", "iterative"][solver],
        );
        hostile_runs(&text)?;
    }

    #[test]
    fn hostile_vehicles_and_side_views_refuse_or_run_finite(
        a in number(0.5, 10.0), b in number(0.5, 40.0), speed in number(1.0, 30.0),
        model in 0usize..5, drive in 0usize..2, jump in number(0.5, 15.0), gap in number(0.1, 8.0),
        rise in number(-3.0, 3.0), g in number(1.0, 20.0), hole in number(0.0, 3.0),
    ) {
        let (model, keys) = [
            ("car", format!("wheelbase = {a}, max_speed = {b}, brake = {a}")),
            ("motorbike", format!("wheelbase = {a}, max_speed = {b}")),
            ("tank", format!("track_width = {a}, max_track_speed = {b}")),
            ("human", format!("max_forward_speed = {b}, max_sideways_speed = {a}")),
            ("discrete_car", format!("forward_acceleration = {a}, max_speed = {b}")),
        ][model].clone();
        let cars = format!(
            r#"name = "cars"
dt = 0.05
steps = 40
[world]
min = [-50, -50]
max = [50, 50]
neighbour_radius = 2
[[groups]]
name = "car"
radius = 1
limits = {{ max_speed = {speed}, max_acceleration = 6, max_rotation = 2, max_angular_acceleration = 8 }}
vehicle = {{ model = "{model}", drive = "{drive}", {keys} }}
behaviour = {{ kind = "arrive", target = [-20, 5], target_radius = 0.5, braking = true }}
agents = [{{ position = [0, 0] }}]
"#,
            drive = ["filter", "search"][drive],
        );
        hostile_runs(&cars)?;
        let x1 = format!("{}", 10.0 + gap.parse::<f32>().unwrap_or(1.0).clamp(-1e5, 1e5));
        let course = format!(
            r#"name = "course"
dt = 0.02
steps = 60
[world]
min = [-5, -30]
max = [60, 30]
neighbour_radius = 1
[side_view]
gravity = {g}
hole_width = {hole}
[[platforms]]
from = [0, 0]
to = [10, 0]
[[platforms]]
from = [{x1}, {rise}]
to = [50, {rise}]
[[groups]]
name = "jumper"
radius = 0.3
limits = {{ max_speed = {speed}, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }}
jump = {{ jump_speed = {jump} }}
agents = [{{ position = [1, 0] }}]
"#
        );
        hostile_runs(&course)?;
    }
}
