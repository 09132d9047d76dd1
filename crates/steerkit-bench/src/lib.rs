//! Crowd benchmark workloads, shared by `steerkit bench` and the criterion benches.
//!
//! Every workload is a world built from a seed and stepped at 30 Hz. The figures are
//! agent-updates per second (one agent advanced one step, neighbour search included), wall
//! nanoseconds per agent-update, and the bytes the crowd has allocated per agent.

use std::time::Instant;
use steerkit::crowd::{CrowdVector, Group, Target, WorldBounds};
use steerkit::geometry::{Circle, Segment};
use steerkit::math::Rng;
use steerkit::neighbours::{BruteForceNeighbours, NeighbourQuery};
use steerkit::prelude::*;
use steerkit::steering::WorldWander;

/// Step length of every workload (s).
pub const DT: f32 = 1.0 / 30.0;

/// Neighbour radius of the flocking workloads (m).
const RADIUS: f32 = 1.0;
/// Expected neighbours per agent in the flocking workloads.
const K: f32 = 10.0;

/// What a workload steps.
pub enum World {
    /// A 2D crowd.
    Crowd2(Box<Crowd2>),
    /// A 3D crowd.
    Crowd3(Box<Crowd3>),
    /// The all-pairs baseline: the same flocking, neighbours found by scanning everyone.
    AllPairs(Box<AllPairs>),
    /// Only the grid rebuild of a 2D crowd (the crowd is stepped outside the timing).
    Rebuild(Box<Crowd2>),
}

impl World {
    /// Number of agents.
    #[must_use]
    pub fn agents(&self) -> usize {
        match self {
            World::Crowd2(c) | World::Rebuild(c) => c.len(),
            World::Crowd3(c) => c.len(),
            World::AllPairs(a) => a.agents.len(),
        }
    }

    /// Bytes allocated per agent.
    #[must_use]
    pub fn bytes_per_agent(&self) -> f64 {
        match self {
            World::Crowd2(c) | World::Rebuild(c) => c.bytes_per_agent(),
            World::Crowd3(c) => c.bytes_per_agent(),
            World::AllPairs(a) => {
                (size_of::<Kinematic>() * 2
                    + size_of::<Neighbour>() * a.scratch.capacity() / a.agents.len().max(1))
                    as f64
            }
        }
    }

    /// One step; returns the seconds spent in the measured part.
    pub fn step(&mut self) -> f64 {
        match self {
            World::Crowd2(c) => {
                let t = Instant::now();
                c.step(DT).expect("valid dt");
                t.elapsed().as_secs_f64()
            }
            World::Crowd3(c) => {
                let t = Instant::now();
                c.step(DT).expect("valid dt");
                t.elapsed().as_secs_f64()
            }
            World::AllPairs(a) => {
                let t = Instant::now();
                a.step(DT);
                t.elapsed().as_secs_f64()
            }
            World::Rebuild(c) => {
                c.step(DT).expect("valid dt");
                let t = Instant::now();
                let _ = c.neighbours();
                t.elapsed().as_secs_f64()
            }
        }
    }
}

/// A named world recipe.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// Name printed in the report.
    pub name: &'static str,
    /// Number of agents.
    pub agents: usize,
    build: fn(usize) -> World,
}

impl Workload {
    /// Builds the world (deterministic: seeded).
    #[must_use]
    pub fn build(&self) -> World {
        (self.build)(self.agents)
    }
}

/// The workloads; `quick` keeps those that run in well under a second each.
#[must_use]
pub fn workloads(quick: bool) -> Vec<Workload> {
    let w = |name, agents, build| Workload { name, agents, build };
    let mut v = vec![
        w("flock2d", 1_000, flock2d as fn(usize) -> World),
        w("flock2d", 10_000, flock2d),
        w("flock2d", 100_000, flock2d),
    ];
    if !quick {
        v.push(w("flock2d", 1_000_000, flock2d));
    }
    v.push(w("dense2d", 10_000, dense2d));
    v.push(w("dense2d_k7", 10_000, dense2d_k7));
    v.push(w("cone2d", 10_000, cone2d));
    if !quick {
        v.push(w("cone2d", 100_000, cone2d));
    }
    if !quick {
        v.push(w("dense2d", 100_000, dense2d));
    }
    v.push(w("orca_circle2d", 1_000, orca_circle2d));
    if !quick {
        v.push(w("orca_circle2d", 10_000, orca_circle2d));
        v.push(w("orca_circle2d", 100_000, orca_circle2d));
    }
    v.push(w("orca3d", if quick { 1_000 } else { 10_000 }, orca3d));
    v.push(w("rebuild2d", 100_000, rebuild2d));
    v.push(w("flock3d", if quick { 20_000 } else { 100_000 }, flock3d));
    v.push(w("mixed2d", 10_000, mixed2d));
    v.push(w("allpairs2d", 1_000, all_pairs));
    if !quick {
        v.push(w("allpairs2d", 10_000, all_pairs));
    }
    v
}

/// One measured result.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Workload name.
    pub name: &'static str,
    /// Agents.
    pub agents: usize,
    /// Threads of the pool it ran on.
    pub threads: usize,
    /// Agent-updates per second.
    pub updates_per_s: f64,
    /// Wall nanoseconds per agent-update.
    pub ns_per_agent: f64,
    /// Bytes allocated per agent.
    pub bytes_per_agent: f64,
    /// Process CPU nanoseconds per agent-update over the whole measured loop (Linux only;
    /// on a machine shared with other work, divide by this instead of the wall time).
    pub cpu_ns_per_agent: Option<f64>,
}

/// CPU time of this process (s), from `/proc/self/stat` (Linux; 10 ms ticks).
#[must_use]
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

impl Measurement {
    /// `bench NAME agents=N threads=T updates_per_s=X ns_per_agent=Y bytes_per_agent=Z`.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "bench {} agents={} threads={} updates_per_s={:.0} ns_per_agent={:.1} bytes_per_agent={:.0}",
            self.name,
            self.agents,
            self.threads,
            self.updates_per_s,
            self.ns_per_agent,
            self.bytes_per_agent
        )
    }

    /// The same fields as a JSON object.
    #[must_use]
    pub fn json(&self) -> String {
        format!(
            "{{\"name\":\"{}\",\"agents\":{},\"threads\":{},\"updates_per_s\":{:.0},\"ns_per_agent\":{:.2},\"bytes_per_agent\":{:.1},\"cpu_ns_per_agent\":{}}}",
            self.name,
            self.agents,
            self.threads,
            self.updates_per_s,
            self.ns_per_agent,
            self.bytes_per_agent,
            self.cpu_ns_per_agent.map_or("null".to_string(), |c| format!("{c:.2}"))
        )
    }
}

/// Builds `workload`, warms it up, then steps it until `min_seconds` of measured time and at
/// least `min_steps` steps, on a pool of `threads` threads.
///
/// # Panics
/// If the thread pool cannot be built.
#[must_use]
pub fn measure(
    workload: &Workload,
    threads: usize,
    min_steps: usize,
    min_seconds: f64,
) -> Measurement {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    pool.install(|| {
        let mut world = workload.build();
        for _ in 0..3 {
            world.step();
        }
        let (mut steps, mut seconds) = (0usize, 0.0f64);
        let (cpu0, wall0) = (process_cpu_seconds(), Instant::now());
        while steps < min_steps || seconds < min_seconds {
            seconds += world.step();
            steps += 1;
        }
        let updates = (world.agents() * steps) as f64;
        // CPU time covers the whole loop; scale it by the measured share of the wall time
        let share = seconds / wall0.elapsed().as_secs_f64().max(1e-9);
        let cpu = match (cpu0, process_cpu_seconds()) {
            (Some(a), Some(b)) if b > a => Some((b - a) * share * 1e9 / updates),
            _ => None,
        };
        Measurement {
            name: workload.name,
            agents: world.agents(),
            threads,
            updates_per_s: updates / seconds,
            ns_per_agent: seconds * 1e9 / updates,
            bytes_per_agent: world.bytes_per_agent(),
            cpu_ns_per_agent: cpu,
        }
    })
}

/// The flocking recipe of every flocking workload: separation, cohesion, heading alignment.
#[must_use]
pub fn flocking<V: CrowdVector>() -> Recipe<V> {
    Recipe::Blend(vec![
        (2.0, Recipe::Separation(Separation::new(0.5, Falloff::Linear).expect("valid"))),
        (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
        (1.0, Recipe::Alignment(Alignment::heading(0.5).expect("valid"))),
    ])
}

fn limits() -> Limits {
    Limits::new(2.0, 4.0, 4.0, 20.0).expect("valid")
}

/// 2D flocking on a torus whose density gives about `K` neighbours within `RADIUS`.
#[must_use]
pub fn flock2d_crowd(n: usize) -> Crowd2 {
    flock2d_crowd_with(n, K)
}

/// Neighbours within `RADIUS` in the dense workload: a clumped flock, as flocks make
/// themselves (a clump of the `flocking` scenario at 5 000 boids had about 213 within 5 m).
const DENSE_K: f32 = 100.0;

/// The dense workload's crowd: [`flock2d_crowd`] packed to about 100 neighbours each.
#[must_use]
pub fn dense2d_crowd(n: usize) -> Crowd2 {
    flock2d_crowd_with(n, DENSE_K)
}

/// 2D flocking on a torus whose density gives about `k` neighbours within `RADIUS`.
fn flock2d_crowd_with(n: usize, k: f32) -> Crowd2 {
    let side = (n as f32 * core::f32::consts::PI * RADIUS * RADIUS / k).sqrt();
    let bounds = WorldBounds::Toroidal { min: Vec2::ZERO, max: Vec2::splat(side) };
    let mut crowd = Crowd2::new(CrowdConfig::new(RADIUS).with_bounds(bounds).with_seed(1))
        .expect("valid world");
    let g = crowd.add_group(Group::new(flocking())).expect("valid group");
    let mut rng = Rng::new(42);
    for _ in 0..n {
        let p = Vec2::new(rng.uniform(), rng.uniform()) * side;
        let v = Vec2::from_angle(rng.uniform() * core::f32::consts::TAU) * 1.5;
        crowd
            .spawn(AgentSpec { velocity: v, ..AgentSpec::new(p, 0.1, limits(), g) })
            .expect("valid agent");
    }
    crowd
}

fn flock2d(n: usize) -> World {
    World::Crowd2(Box::new(flock2d_crowd(n)))
}

fn dense2d(n: usize) -> World {
    World::Crowd2(Box::new(dense2d_crowd(n)))
}

/// RVO2's Circle with ORCA: `n` agents of radius 1.5 evenly on a circle of radius
/// `200·n/250` m, each heading for its antipode at up to 2 m/s, neighbours within 15 m (the 10
/// nearest), time horizon 10 s; stepped at this crate's 30 Hz rather than RVO2's 4 Hz.
#[must_use]
pub fn orca_circle2d_crowd(n: usize) -> Crowd2 {
    use steerkit::kinematic::{Integration, Scheme};
    let mut crowd = Crowd2::new(CrowdConfig::new(15.0).with_seed(1)).expect("valid world");
    let arrive = Arrive::with_approach(0.2, steerkit::steering::Approach::Braking, 0.25)
        .expect("valid arrive");
    let mut group = Group::new(Recipe::Arrive { target: Target::Goal, arrive });
    group.orca = Some(steerkit::steering::Orca::new(10.0, 10).expect("valid ORCA"));
    group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).expect("valid");
    let g = crowd.add_group(group).expect("valid group");
    let limits = Limits::new(2.0, 60.0, 4.0, 20.0).expect("valid");
    let radius = 200.0 * n as f32 / 250.0;
    for k in 0..n {
        let p = Vec2::from_angle(k as f32 / n as f32 * core::f32::consts::TAU) * radius;
        crowd
            .spawn(AgentSpec { goal: Some(-p), ..AgentSpec::new(p, 1.5, limits, g) })
            .expect("valid agent");
    }
    crowd
}

fn orca_circle2d(n: usize) -> World {
    World::Crowd2(Box::new(orca_circle2d_crowd(n)))
}

/// The circle in 3D with ORCA: `n` agents of radius 1.5 evenly over a sphere (a Fibonacci
/// lattice) with 25 m² each, every one heading for the opposite point at up to 2 m/s, RVO2's
/// Circle parameters otherwise (15 m, the 10 nearest, horizon 10 s); at 30 Hz.
#[must_use]
pub fn orca3d_crowd(n: usize) -> Crowd3 {
    use steerkit::kinematic::{Integration, Scheme};
    let mut crowd = Crowd3::new(CrowdConfig::new(15.0).with_seed(1)).expect("valid world");
    let arrive = Arrive::with_approach(0.2, steerkit::steering::Approach::Braking, 0.25)
        .expect("valid arrive");
    let mut group = Group::new(Recipe::Arrive { target: Target::Goal, arrive });
    group.orca = Some(steerkit::steering::Orca::new(10.0, 10).expect("valid ORCA"));
    group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).expect("valid");
    let g = crowd.add_group(group).expect("valid group");
    let limits = Limits::new(2.0, 60.0, 4.0, 20.0).expect("valid");
    let radius = (25.0 * n as f32 / (4.0 * core::f32::consts::PI)).sqrt();
    let golden = core::f32::consts::PI * (3.0 - 5.0f32.sqrt());
    for k in 0..n {
        let y = 1.0 - 2.0 * (k as f32 + 0.5) / n as f32;
        let ring = (1.0 - y * y).max(0.0).sqrt();
        let a = golden * k as f32;
        let p = Vec3::new(ring * a.cos(), y, ring * a.sin()) * radius;
        crowd
            .spawn(AgentSpec { goal: Some(-p), ..AgentSpec::new(p, 1.5, limits, g) })
            .expect("valid agent");
    }
    crowd
}

fn orca3d(n: usize) -> World {
    World::Crowd3(Box::new(orca3d_crowd(n)))
}

/// The dense flock with a topological neighbourhood: the sums see the 7 nearest.
fn dense2d_k7(n: usize) -> World {
    let mut crowd = dense2d_crowd(n);
    let group = Group { nearest: Some(7), ..Group::new(flocking()) };
    crowd.set_group(steerkit::crowd::GroupId(0), group).expect("valid group");
    World::Crowd2(Box::new(crowd))
}

/// [`flock2d_crowd`] with Millington's view cone: the group's sums see only the neighbours
/// within 2 rad (about 115°) either side of the heading (`Group::view_half_angle`).
fn cone2d(n: usize) -> World {
    let mut crowd = flock2d_crowd(n);
    let group = Group { view_half_angle: Some(2.0), ..Group::new(flocking()) };
    crowd.set_group(steerkit::crowd::GroupId(0), group).expect("valid group");
    World::Crowd2(Box::new(crowd))
}

fn rebuild2d(n: usize) -> World {
    World::Rebuild(Box::new(flock2d_crowd(n)))
}

/// 3D flocking on a torus with about `K` neighbours within `RADIUS`.
#[must_use]
pub fn flock3d_crowd(n: usize) -> Crowd3 {
    let side = (n as f32 * 4.0 / 3.0 * core::f32::consts::PI / K).cbrt() * RADIUS;
    let bounds = WorldBounds::Toroidal { min: Vec3::ZERO, max: Vec3::splat(side) };
    let mut crowd = Crowd3::new(CrowdConfig::new(RADIUS).with_bounds(bounds).with_seed(1))
        .expect("valid world");
    let g = crowd.add_group(Group::new(flocking())).expect("valid group");
    let mut rng = Rng::new(43);
    for _ in 0..n {
        let p = Vec3::new(rng.uniform(), rng.uniform(), rng.uniform()) * side;
        let v = Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()).normalize_or_zero() * 1.5;
        crowd
            .spawn(AgentSpec { velocity: v, ..AgentSpec::new(p, 0.1, limits(), g) })
            .expect("valid agent");
    }
    crowd
}

fn flock3d(n: usize) -> World {
    World::Crowd3(Box::new(flock3d_crowd(n)))
}

/// Flocking along looping paths in a walled, bounded world strewn with obstacles: half the
/// agents follow a path while flocking, half flock and wander; non-penetration and collision
/// events on; centres never cross walls or enter obstacles.
#[must_use]
pub fn mixed2d_crowd(n: usize) -> Crowd2 {
    let side = (n as f32 * core::f32::consts::PI / K).sqrt() * 1.2;
    let bounds = WorldBounds::Bounded { min: Vec2::ZERO, max: Vec2::splat(side) };
    let mut config = CrowdConfig::new(RADIUS).with_bounds(bounds).with_seed(2);
    config.collision_events = true;
    config.non_penetration_passes = 2;
    let mut crowd = Crowd2::new(config).expect("valid world");
    let mut rng = Rng::new(44);
    let mut obstacles = Vec::new();
    for _ in 0..(n / 100).max(4) {
        let c = Vec2::new(rng.uniform(), rng.uniform()) * side;
        obstacles.push(Obstacle::Circle(Circle::new(c, 0.5 + rng.uniform())));
    }
    for _ in 0..(n / 200).max(2) {
        let a = Vec2::new(rng.uniform(), rng.uniform()) * side;
        let b = a + Vec2::from_angle(rng.uniform() * core::f32::consts::TAU) * 4.0;
        obstacles.push(Obstacle::Wall(Segment::new(a, b)));
    }
    crowd.set_obstacles(ObstacleSet::new(obstacles).expect("valid obstacles"));
    let (lo, hi) = (side * 0.2, side * 0.8);
    let path = crowd.add_path(
        Polyline::looping(vec![
            Vec2::new(lo, lo),
            Vec2::new(hi, lo),
            Vec2::new(hi, hi),
            Vec2::new(lo, hi),
        ])
        .expect("valid path"),
    );
    let follow = FollowPath::new(2.0).expect("valid").predictive(0.1).expect("valid");
    let mut along = Group::new(Recipe::RunningSum(vec![
        (2.0, Recipe::Separation(Separation::new(0.5, Falloff::Linear).expect("valid"))),
        (1.0, Recipe::FollowPath { path, follow }),
        (0.5, Recipe::Alignment(Alignment::heading(0.5).expect("valid"))),
        (0.3, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
    ]));
    along.non_penetration = true;
    let mut wander = Group::new(Recipe::Blend(vec![
        (1.0, flocking()),
        (0.5, Recipe::Wander(WorldWander::new(1.0, 2.0, 2.0).unwrap())),
    ]));
    wander.non_penetration = true;
    let along = crowd.add_group(along).expect("valid group");
    let wander = crowd.add_group(wander).expect("valid group");
    for i in 0..n {
        let p = Vec2::new(rng.uniform(), rng.uniform()) * side;
        let g = if i % 2 == 0 { along } else { wander };
        crowd.spawn(AgentSpec::new(p, 0.15, limits(), g)).expect("valid agent");
    }
    crowd
}

fn mixed2d(n: usize) -> World {
    World::Crowd2(Box::new(mixed2d_crowd(n)))
}

/// The all-pairs baseline: the flocking of `flock2d` with neighbours found by
/// [`BruteForceNeighbours`] (every agent tests every other) and a plain two-phase step.
pub struct AllPairs {
    agents: Vec<Kinematic>,
    next: Vec<Kinematic>,
    scratch: Vec<Neighbour>,
    side: f32,
    limits: Limits,
    recipe: (Separation, Cohesion, Alignment),
}

impl AllPairs {
    /// The same world as `flock2d_crowd(n)`, without a torus (the baseline scans in the plane).
    #[must_use]
    pub fn new(n: usize) -> Self {
        let side = (n as f32 * core::f32::consts::PI * RADIUS * RADIUS / K).sqrt();
        let mut rng = Rng::new(42);
        let agents: Vec<Kinematic> = (0..n)
            .map(|_| {
                let p = Vec2::new(rng.uniform(), rng.uniform()) * side;
                let v = Vec2::from_angle(rng.uniform() * core::f32::consts::TAU) * 1.5;
                Kinematic { velocity: v, ..Kinematic::at_rest(p, 0.0) }
            })
            .collect();
        AllPairs {
            next: agents.clone(),
            agents,
            scratch: Vec::new(),
            side,
            limits: limits(),
            recipe: (
                Separation::new(0.5, Falloff::Linear).expect("valid"),
                Cohesion::Seek(Seek::new()),
                Alignment::heading(0.5).expect("valid"),
            ),
        }
    }

    /// One step: every agent's flocking from the previous state, then integrate.
    pub fn step(&mut self, dt: f32) {
        let all = BruteForceNeighbours::new(&self.agents, 0.1).expect("valid");
        let (sep, coh, ali) = &self.recipe;
        for (i, me) in self.agents.iter().enumerate() {
            self.scratch.clear();
            let buf = &mut self.scratch;
            all.for_each_within(&NeighbourQuery::around(i, me.position, RADIUS), |n| buf.push(*n));
            let s = blend(
                [
                    (2.0, sep.steer(me, 0.1, &self.scratch, &self.limits)),
                    (0.5, coh.steer(me, &self.scratch, &self.limits)),
                    (1.0, ali.steer(me, &self.scratch, &self.limits)),
                ],
                &self.limits,
            );
            let mut k = *me;
            k.integrate(&s, &self.limits, dt);
            k.position = k.position.rem_euclid(Vec2::splat(self.side));
            self.next[i] = k;
        }
        core::mem::swap(&mut self.agents, &mut self.next);
    }
}

fn all_pairs(n: usize) -> World {
    World::AllPairs(Box::new(AllPairs::new(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flocking_workloads_have_about_ten_neighbours_each() {
        let mut crowd = flock2d_crowd(5_000);
        let r = crowd.config().neighbour_radius;
        let positions = crowd.positions().to_vec();
        let nb = crowd.neighbours();
        let total: usize = positions
            .iter()
            .take(500)
            .enumerate()
            .map(|(i, &p)| nb.count_within(&NeighbourQuery::around(i, p, r)))
            .sum();
        let k = total as f32 / 500.0;
        assert!((k - 10.0).abs() < 1.0, "k = {k}");
    }

    #[test]
    fn the_dense_workload_has_about_a_hundred_neighbours_each() {
        let mut crowd = dense2d_crowd(10_000);
        let r = crowd.config().neighbour_radius;
        let positions = crowd.positions().to_vec();
        let nb = crowd.neighbours();
        let total: usize = positions
            .iter()
            .take(500)
            .enumerate()
            .map(|(i, &p)| nb.count_within(&NeighbourQuery::around(i, p, r)))
            .sum();
        let k = total as f32 / 500.0;
        assert!((k - 100.0).abs() < 8.0, "k = {k}");
    }

    #[test]
    fn every_quick_workload_runs_and_reports() {
        for w in workloads(true).iter().filter(|w| w.agents <= 10_000) {
            let m = measure(w, 1, 1, 0.0);
            assert_eq!(m.agents, w.agents);
            assert!(m.updates_per_s > 0.0 && m.bytes_per_agent > 0.0, "{m:?}");
            assert!(m.line().starts_with(&format!("bench {} agents=", w.name)));
            assert!(m.json().starts_with('{') && m.json().contains("\"threads\":1"));
        }
    }
}
