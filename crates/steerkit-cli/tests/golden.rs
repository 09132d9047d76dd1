//! Every gallery scenario gives the same trajectories as the recorded ones, bit for bit.
//!
//! Each scenario is built with its own seed and stepped for its full duration; after every step
//! the kinematics (position, velocity, orientation), the debug steering and target and the
//! events of every agent are hashed in file order. `tests/golden/trajectories.txt` holds one
//! hash per scenario. A change meant to alter behaviour records the new hashes with
//! `STEERKIT_BLESS=1 cargo test -p steerkit-cli --test golden` and says why in its commit; a
//! refactor must leave them alone.
//!
//! Observing never changes a run: each scenario stepped with no metrics collected and with
//! every metric gives the same kinematics and steering at every step, bit for bit.

use std::fmt::Write as _;
use steerkit_cli::gallery;

/// FNV-1a, 64 bits: a stable hash with no dependency (std's `Hasher` may change between
/// releases).
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }
}

/// The `f32`s of a vector, an orientation or an angular quantity, in component order.
trait Bits {
    fn bits(&self) -> Vec<f32>;
}

impl Bits for f32 {
    fn bits(&self) -> Vec<f32> {
        vec![*self]
    }
}

impl Bits for steerkit::Vec2 {
    fn bits(&self) -> Vec<f32> {
        self.to_array().to_vec()
    }
}

impl Bits for steerkit::Vec3 {
    fn bits(&self) -> Vec<f32> {
        self.to_array().to_vec()
    }
}

impl Bits for steerkit::Quat {
    fn bits(&self) -> Vec<f32> {
        self.to_array().to_vec()
    }
}

fn trajectory_hash(name: &str) -> u64 {
    let scenario = gallery::load(name).expect("a built-in").expect("loads");
    if scenario.dimensions() == 3 {
        hash_run(scenario.build_in::<steerkit::Vec3>().expect("builds"))
    } else {
        hash_run(scenario.build().expect("builds"))
    }
}

fn hash_run<V>(mut world: steerkit_scenario::World<V>) -> u64
where
    V: steerkit_scenario::Dim + Bits,
    V::Orientation: Bits,
    V::Angular: Bits,
{
    let handles: Vec<_> = world.groups.iter().flat_map(|g| g.agents.iter().copied()).collect();
    let number = |h| handles.iter().position(|x| *x == h).map_or(u32::MAX, |i| i as u32);
    let dt = world.settings.dt;
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for _ in 0..world.settings.steps {
        // the navigator sets each navigating agent's waypoint before the step, as the
        // simulation does
        if let (Some(nav), Some(crowd)) =
            (world.navigation.as_mut(), V::planar_crowd(&mut world.crowd))
        {
            nav.update(crowd, dt);
        }
        let events = world.crowd.step(dt).expect("steps");
        let mut kinds: Vec<(u32, String)> =
            events.iter().map(|e| (number(e.agent()), format!("{e:?}"))).collect();
        kinds.sort();
        for (a, e) in &kinds {
            h.bytes(&a.to_le_bytes());
            // handles inside the text are storage handles, stable across refactors
            h.bytes(e.as_bytes());
        }
        for &a in &handles {
            // an agent taken out on arrival (`on_arrival = "remove"`) hashes as a marker
            let Some(k) = world.crowd.kinematic(a) else {
                h.bytes(b"gone");
                continue;
            };
            for part in
                [k.position.bits(), k.velocity.bits(), k.orientation.bits(), k.rotation.bits()]
            {
                h.f32s(&part);
            }
            let d = world.crowd.debug(a).expect("alive");
            h.f32s(&d.steering.linear.bits());
            h.f32s(&d.steering.angular.bits());
            h.f32s(&d.target.unwrap_or(V::splat(f32::INFINITY)).bits());
        }
    }
    h.0
}

#[test]
fn every_gallery_scenario_gives_the_recorded_trajectories_bit_for_bit() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/trajectories.txt");
    let mut names: Vec<&str> = gallery::names().collect();
    names.sort_unstable();
    let mut now = String::new();
    for name in &names {
        let _ = writeln!(now, "{name} {:016x}", trajectory_hash(name));
    }
    if std::env::var_os("STEERKIT_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &now).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&file).expect("tests/golden/trajectories.txt");
    let differ: Vec<&str> = now
        .lines()
        .filter(|l| !recorded.lines().any(|r| r == *l))
        .map(|l| l.split(' ').next().unwrap_or(l))
        .collect();
    assert!(
        differ.is_empty(),
        "trajectories changed: {differ:?}\nnow:\n{now}\nrecorded:\n{recorded}"
    );
}

/// The first step (1-based) at which the run collecting no metrics and the run collecting all
/// of them differ in any agent's kinematics or steering, if any.
fn first_difference<V>(
    quiet: steerkit_scenario::World<V>,
    watched: steerkit_scenario::World<V>,
) -> Option<u64>
where
    V: steerkit_scenario::Dim + Bits,
    V::Orientation: Bits,
    V::Angular: Bits,
{
    let mut worlds = [quiet, watched];
    let handles: Vec<_> = worlds[0].groups.iter().flat_map(|g| g.agents.iter().copied()).collect();
    let dt = worlds[0].settings.dt;
    for step in 1..=worlds[0].settings.steps {
        let mut states = [Vec::new(), Vec::new()];
        for (w, state) in worlds.iter_mut().zip(&mut states) {
            w.crowd.step(dt).expect("steps");
            for &a in &handles {
                // an agent removed on arrival is gone from both or the runs differ
                let (Some(k), Some(d)) = (w.crowd.kinematic(a), w.crowd.debug(a)) else {
                    state.push(f32::NAN.to_bits());
                    continue;
                };
                for part in [
                    k.position.bits(),
                    k.velocity.bits(),
                    k.orientation.bits(),
                    k.rotation.bits(),
                    d.steering.linear.bits(),
                    d.steering.angular.bits(),
                ] {
                    state.extend(part.iter().map(|x| x.to_bits()));
                }
            }
        }
        if states[0] != states[1] {
            return Some(step);
        }
    }
    None
}

#[test]
fn collecting_metrics_never_changes_a_gallery_run() {
    let all: Vec<steerkit_scenario::Metric> =
        steerkit_scenario::Metric::ALL.iter().map(|(_, m)| *m).collect();
    let mut differ = Vec::new();
    for name in gallery::names() {
        let scenario = gallery::load(name).expect("a built-in").expect("loads");
        let (quiet, watched) =
            (scenario.with_metrics(Vec::new()), scenario.with_metrics(all.clone()));
        let first = if scenario.dimensions() == 3 {
            first_difference(
                quiet.build_in::<steerkit::Vec3>().expect("builds"),
                watched.build_in::<steerkit::Vec3>().expect("builds"),
            )
        } else {
            first_difference(quiet.build().expect("builds"), watched.build().expect("builds"))
        };
        if let Some(step) = first {
            differ.push(format!("{name} (step {step})"));
        }
    }
    assert!(differ.is_empty(), "metrics changed the run of {differ:?}");
}
