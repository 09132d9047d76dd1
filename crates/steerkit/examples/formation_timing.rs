//! Timing of slot assignment and of the formation manager's per-step update.
//!
//! `cargo run --release -p steerkit --example formation_timing`

use std::hint::black_box;
use std::time::Instant;
use steerkit::formation::{
    AssignmentMethod, CostMatrix, FormationManager, Moderation, Pattern, ScalablePattern, Shape,
    SlotAssigner, SlotSteering,
};
use steerkit::math::Rng;
use steerkit::prelude::*;

fn main() {
    let mut rng = Rng::new(7);
    println!("slot assignment, random costs in [0, 100):");
    for n in [8usize, 32, 100, 300] {
        let costs = CostMatrix::from_fn(n, n, |_, _| rng.uniform() * 100.0);
        let mut solver = SlotAssigner::new();
        let mut out = Vec::new();
        let reps = (2_000_000 / (n * n * n)).max(3);
        let t = Instant::now();
        let mut opt = 0.0;
        for _ in 0..reps {
            opt = solver.optimal(black_box(&costs), f32::INFINITY, &mut out).total_cost;
        }
        let t_opt = t.elapsed().as_secs_f64() / reps as f64;
        let t = Instant::now();
        let mut greedy = 0.0;
        for _ in 0..reps {
            greedy = solver.greedy(black_box(&costs), f32::INFINITY, &mut out).total_cost;
        }
        let t_greedy = t.elapsed().as_secs_f64() / reps as f64;
        println!(
            "  {n:>3}×{n:<3} Hungarian {:>10.1} µs (cost {opt:.1})   greedy {:>9.1} µs (cost {greedy:.1})",
            t_opt * 1e6,
            t_greedy * 1e6
        );
    }

    let limits = Limits::new(3.0, 6.0, 4.0, 20.0).unwrap();
    let steer = SlotSteering::new(
        Arrive::new(0.05, 2.0, 0.25).unwrap(),
        Align::new(0.01, 0.5, 0.1).unwrap(),
    );
    println!("formation manager update (moderated, box of 16 columns), per step:");
    for n in [16usize, 256, 4096] {
        let mut m = FormationManager::<Pattern>::new(
            ScalablePattern::new(Shape::Box { columns: 16 }, 1.5).unwrap().into(),
            Kinematic::at_rest(Vec2::ZERO, 0.0),
            limits,
        )
        .with_moderation(Moderation::new(0.5, 1.0).unwrap())
        .with_assignment(AssignmentMethod::Sequential);
        let mut agents: Vec<Kinematic> = (0..n)
            .map(|i| Kinematic::at_rest(Vec2::new(-(i as f32 * 0.1), (i % 16) as f32), 0.0))
            .collect();
        for id in 0..n as u32 {
            m.add_member(id, 0);
        }
        let push = SteeringOutput::linear(Vec2::new(1.0, 0.0));
        m.update(1.0 / 60.0, &push, |id| agents[id as usize]);
        let steps = 300;
        let mut t_update = 0.0;
        let t_all = Instant::now();
        for _ in 0..steps {
            let t = Instant::now();
            m.update(1.0 / 60.0, &push, |id| agents[id as usize]);
            t_update += t.elapsed().as_secs_f64();
            for tg in m.targets() {
                let k = &mut agents[tg.member as usize];
                let out = steer.steer(k, tg, &limits).unwrap_or_default();
                k.integrate(&out, &limits, 1.0 / 60.0);
            }
        }
        let total = t_all.elapsed().as_secs_f64();
        println!(
            "  {n:>5} members: update {:>8.2} µs ({:.1} ns/member); update + slot steering + integrate {:.1} ns/member",
            t_update / steps as f64 * 1e6,
            t_update / steps as f64 / n as f64 * 1e9,
            total / steps as f64 / n as f64 * 1e9
        );
    }
}
