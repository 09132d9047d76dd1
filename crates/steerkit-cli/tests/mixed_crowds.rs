//! ORCA's whole-run scenes with a mixed crowd, default settings: a quarter of the walkers at
//! priority 2 and agents standing on their spots where the others cross. Everyone must still
//! be home at once, with no body overlapping another by 1 % of its radius.

use steerkit::Vec2;
use steerkit_cli::gallery;
use steerkit_cli::run::{run, RunOptions, RunOutcome};
use steerkit_scenario::Scenario;

/// Runs a scenario source, checking that nobody was quarantined.
fn outcome(src: &str, name: &str) -> RunOutcome {
    let s = Scenario::from_toml_str(src, name).expect("loads");
    let o = run(&s, &RunOptions::default()).expect("runs");
    assert_eq!(o.metrics.quarantined.unwrap_or(0), 0, "{name}: an agent was quarantined");
    o
}

/// A group of ORCA agents of `radius` standing on `spots` (their goals), with the scene's
/// `orca` and `limits` lines.
fn standing(spots: &[Vec2], radius: f32, orca: &str, limits: &str) -> String {
    let agents: Vec<String> = spots
        .iter()
        .map(|p| format!("{{ position = [{}, {}], goal = [{}, {}] }}", p.x, p.y, p.x, p.y))
        .collect();
    format!(
        "[[groups]]\nname = \"standing\"\nagents = [{}]\narrive_radius = 1.0\nradius = {radius}\n\
         non_penetration = true\n{orca}\n{limits}\nbehaviour = {{ kind = \"arrive\", use_goal = \
         true, target_radius = 0.5, braking = true, time_to_target = 0.25 }}\n\n",
        agents.join(", ")
    )
}

/// The first line of `src` that starts with `key` and sets no priority.
fn line<'a>(src: &'a str, key: &str) -> &'a str {
    src.lines().find(|l| l.starts_with(key) && !l.contains("priority")).expect("the key")
}

/// Prints and checks the run: all home at once by `by` (s), all home at the end, no overlap
/// beyond 1 % of `radius`.
fn all_home(o: &RunOutcome, label: &str, by: f64, radius: f64) {
    let m = &o.metrics;
    eprintln!(
        "{label}: all home at once at {:?} s, {:?} of {} home at the end, deepest overlap {:?} m",
        m.all_home_time, m.home_at_end, m.agents, m.max_overlap
    );
    let all = m.all_home_time.unwrap_or_else(|| panic!("{label}: never all home at once"));
    assert!(all <= by, "{label}: all home at {all} s, later than {by} s");
    assert_eq!(m.home_at_end, Some(m.agents), "{label}: all home at the end");
    assert!(m.max_overlap.unwrap() < 0.01 * radius, "{label}: {:?}", m.max_overlap);
}

/// RVO2's Circle of 250 (the gallery's `orca_circle_250`) split into four interleaved rings,
/// every fourth agent at priority 2, with eight agents standing on a ring of 8 m round the
/// centre, where every walker's straight line passes: all 258 home at once before RVO2 has
/// the plain Circle within 1.5 m (412.5 s; measured 286.5 s, the plain Circle 287.0 s).
#[test]
fn a_circle_with_a_heavy_quarter_and_agents_standing_in_the_middle_all_get_home() {
    let src = gallery::source("orca_circle_250").unwrap();
    let (head, rest) = src.split_once("[[groups]]").unwrap();
    let (group, metrics) = rest.split_once("[metrics]").unwrap();
    let group = format!("[[groups]]{group}");
    let ring = "radius = 200.0 }";
    assert!(group.contains("count = 250") && group.contains(ring));
    let mut file = head.to_owned();
    for k in 0..4 {
        let angle = std::f32::consts::TAU * k as f32 / 250.0;
        let mut g = group
            .replace("name = \"ring\"", &format!("name = \"ring{k}\""))
            .replace("count = 250", "count = 62")
            .replace(ring, &format!("radius = 200.0, start_angle = {angle} }}"));
        if k == 0 {
            g = g.replace("max_neighbours = 10 }", "max_neighbours = 10, priority = 2.0 }");
        }
        file += &g;
    }
    let spots: Vec<Vec2> =
        (0..8).map(|i| Vec2::from_angle(std::f32::consts::TAU * i as f32 / 8.0) * 8.0).collect();
    file += &standing(&spots, 1.5, line(&group, "orca ="), line(&group, "limits ="));
    file += &format!("[metrics]{metrics}");
    let o = outcome(&file, "orca_circle_250_mixed");
    assert_eq!(o.metrics.agents, 256);
    all_home(&o, "mixed circle", 412.5, 1.5);
}

/// The gallery's mixed Blocks (`orca_blocks_mixed`: the north-east squad at priority 2, four
/// agents standing in the middle) and the same crowd with its four standing elsewhere in the
/// crossing, or one: in every layout all are home at once within the run (600 s; measured
/// 302.8–463.8 s, where before walls were followed to the right one layout in six finished,
/// an agent pushed against a block's far face going round the block), no body 2 cm into
/// another or into a block.
#[test]
fn mixed_blocks_get_everyone_home_wherever_the_standing_agents_are() {
    let src = gallery::source("orca_blocks_mixed").unwrap();
    let (head, rest) = src.split_once("[[groups]]\nname = \"standing\"").unwrap();
    let (_, metrics) = rest.split_once("[metrics]").unwrap();
    let layouts: [&[[f32; 2]]; 6] = [
        &[[4.0, 0.0], [-4.0, 0.0], [0.0, 4.0], [0.0, -4.0]],
        &[[0.0, 0.0]],
        &[[6.0, 6.0], [-6.0, 6.0], [6.0, -6.0], [-6.0, -6.0]],
        &[[2.0, 2.0], [-2.0, 2.0], [2.0, -2.0], [-2.0, -2.0]],
        &[[5.0, 0.0], [-5.0, 0.0], [0.0, 5.0], [0.0, -5.0]],
        &[[4.0, 4.0], [-4.0, 4.0], [4.0, -4.0], [-4.0, -4.0]],
    ];
    let blocks = [
        (Vec2::new(-40.0, 10.0), Vec2::new(-10.0, 40.0)),
        (Vec2::new(10.0, 10.0), Vec2::new(40.0, 40.0)),
        (Vec2::new(10.0, -40.0), Vec2::new(40.0, -10.0)),
        (Vec2::new(-40.0, -40.0), Vec2::new(-10.0, -10.0)),
    ];
    for layout in layouts {
        let spots: Vec<Vec2> = layout.iter().map(|&p| Vec2::from(p)).collect();
        let file = format!(
            "{head}{}[metrics]{metrics}",
            standing(&spots, 2.0, line(src, "orca ="), line(src, "limits ="))
        );
        let o = outcome(&file, "orca_blocks_mixed");
        let label = format!("mixed blocks, standing at {layout:?}");
        all_home(&o, &label, 600.0, 2.0);
        let deepest = o
            .trajectories
            .iter()
            .flat_map(|r| {
                blocks
                    .iter()
                    .map(move |(lo, hi)| 2.0 - r.position.clamp(*lo, *hi).distance(r.position))
            })
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(deepest < 0.02, "{label}: a body {deepest} m into a block");
    }
}
