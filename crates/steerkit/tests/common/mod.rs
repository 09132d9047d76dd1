//! Shared helpers for the integration tests.
#![allow(dead_code)]

use steerkit::kinematic::{Kinematic, Limits, SteeringOutput};
use steerkit::Vec2;

pub fn limits(max_speed: f32, max_acc: f32) -> Limits {
    Limits::new(max_speed, max_acc, 4.0, 20.0).unwrap()
}

pub fn at(x: f32, y: f32) -> Kinematic {
    Kinematic::at_rest(Vec2::new(x, y), 0.0)
}

pub fn moving(x: f32, y: f32, vx: f32, vy: f32) -> Kinematic {
    Kinematic { velocity: Vec2::new(vx, vy), ..at(x, y) }
}

/// Steps `k` with `f` for `steps` steps, returning the trajectory (including the start).
pub fn run(
    mut k: Kinematic,
    limits: &Limits,
    dt: f32,
    steps: usize,
    mut f: impl FnMut(&Kinematic, usize) -> Option<SteeringOutput>,
) -> Vec<Kinematic> {
    let mut out = vec![k];
    for i in 0..steps {
        let s = f(&k, i).unwrap_or_default();
        k.integrate(&s, limits, dt);
        out.push(k);
    }
    out
}
