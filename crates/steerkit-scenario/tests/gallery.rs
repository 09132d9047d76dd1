//! Every shipped scenario loads, builds and runs; the gallery scenarios show what they say.

use steerkit::crowd::CrowdEvent;
use steerkit::Vec2;
use steerkit_scenario::{Scenario, World};

fn scenarios_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

#[test]
fn every_shipped_scenario_loads_builds_and_runs_briefly() {
    let mut n = 0;
    for entry in std::fs::read_dir(scenarios_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let s = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.description().is_empty(), "{}: describe what to watch for", path.display());
        let quarantined = |events: &[CrowdEvent]| {
            events.iter().any(|e| matches!(e, CrowdEvent::Quarantined { .. }))
        };
        if s.dimensions() == 3 {
            let mut w = s.build_in::<steerkit::Vec3>().unwrap();
            for _ in 0..50 {
                assert!(!quarantined(w.crowd.step(s.dt()).unwrap()));
            }
        } else {
            let mut w = s.build().unwrap();
            for _ in 0..50 {
                assert!(!quarantined(w.crowd.step(s.dt()).unwrap()));
            }
        }
        n += 1;
    }
    assert!(n >= 3, "found {n} scenarios");
}

#[test]
fn arrive_every_walker_arrives_and_rests_without_overlap() {
    let s = Scenario::load(scenarios_dir().join("arrive.toml")).unwrap();
    let (w, arrived, overlaps) = run(&s);
    assert_eq!(arrived, 8);
    assert_eq!(overlaps, 0);
    for (h, plan) in w.groups[0].agents.iter().zip(&s.plan::<Vec2>().unwrap().groups[0].agents) {
        let i = w.crowd.index_of(*h).unwrap();
        let (p, v) = (w.crowd.positions()[i], w.crowd.velocities()[i]);
        assert!(
            (p - plan.goal.unwrap()).length() < 0.05,
            "rests within the 5 cm target radius: {p}"
        );
        assert!(v.length() < 1e-3, "at rest: {v}");
    }
}

/// |mean of unit velocities|: 1 when all move the same way, about 1/√n for random headings.
fn polarisation(velocities: &[Vec2]) -> f32 {
    let sum: Vec2 = velocities.iter().map(|v| v.normalize_or_zero()).sum();
    sum.length() / velocities.len() as f32
}

#[test]
fn flocking_boids_align() {
    let s = Scenario::load(scenarios_dir().join("flocking.toml")).unwrap();
    let mut w = s.build().unwrap();
    let before = polarisation(w.crowd.velocities());
    for _ in 0..s.steps() {
        w.crowd.step(s.dt()).unwrap();
    }
    let after = polarisation(w.crowd.velocities());
    println!("polarisation {before} -> {after}");
    assert!(before < 0.3, "random headings at the start: {before}");
    assert!(after > 0.8, "aligned after 20 s: {after}");
}

/// Runs a scenario to the end: (the world, arrivals, agent–agent contact events).
fn run(s: &Scenario) -> (World, usize, usize) {
    let mut w = s.build().unwrap();
    let (mut arrived, mut contacts) = (0, 0);
    for _ in 0..s.steps() {
        for e in w.crowd.step(s.dt()).unwrap() {
            match e {
                CrowdEvent::Arrived { .. } => arrived += 1,
                CrowdEvent::AgentCollision { .. } => contacts += 1,
                _ => {}
            }
        }
    }
    (w, arrived, contacts)
}

#[test]
fn crossing_both_crowds_get_across_with_fewer_contacts_than_without_avoidance() {
    let path = scenarios_dir().join("crossing.toml");
    let s = Scenario::load(&path).unwrap();
    let (_, arrived, contacts) = run(&s);
    let src = std::fs::read_to_string(&path).unwrap();
    let naive = src.replace(
        "{ kind = \"collision_avoidance\", margin = 0.3, horizon = 2.0 },",
        "{ kind = \"velocity_match\", velocity = [0.0, 0.0], time_to_target = 1000.0 },",
    );
    assert_ne!(naive, src);
    let (_, naive_arrived, naive_contacts) =
        run(&Scenario::from_toml_str(&naive, "naive.toml").unwrap());
    println!("crossing: arrived {arrived}/32, contacts {contacts}; without avoidance {naive_arrived}/32, {naive_contacts}");
    assert_eq!(arrived, 32);
    // measured: 15 contact events against 18 494 without avoidance
    assert!(contacts * 10 < naive_contacts, "{contacts} vs {naive_contacts}");
}
