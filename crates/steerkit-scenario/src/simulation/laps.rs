//! Laps of looping paths: each follower's lap times (between crossings of the path's start)
//! and who overtakes whom (one follower's distance along the path passing another's).

use super::numbering::Numbering;
use crate::{Dim, World};
use steerkit::crowd::Crowd;
use steerkit::path::Path as _;

/// The running lap measure.
pub(super) struct Laps {
    /// Each group's looping path (its first `follow_path` leaf's), when laps are collected.
    paths: Vec<Option<usize>>,
    /// Each agent's last path parameter (m), NaN before the first.
    param: Vec<f32>,
    /// Each agent's distance along its path from the path's start, unwrapped (m): laps count.
    along: Vec<f64>,
    /// Each agent's steps at which it crossed the path's start going forward.
    crossings: Vec<Vec<u64>>,
    /// Each agent's overtakes.
    pub(super) overtakes: Vec<u64>,
}

impl Laps {
    pub(super) fn new<V: Dim>(world: &World<V>, n: usize, wanted: bool) -> Self {
        let looping: Vec<bool> = world.crowd.paths().iter().map(|p| p.is_looping()).collect();
        let paths = super::measure::followed_paths(world, wanted)
            .into_iter()
            .map(|first| first.filter(|&p| looping[p]))
            .collect();
        Self {
            paths,
            param: vec![f32::NAN; n],
            along: vec![f64::NAN; n],
            crossings: vec![Vec::new(); n],
            overtakes: vec![0; n],
        }
    }

    /// After step `step`: each follower's new distance along its path, its crossings of the
    /// start, and the overtakes among followers of the same path.
    pub(super) fn measure<V: Dim>(&mut self, crowd: &Crowd<V>, numbering: &Numbering, step: u64) {
        if self.paths.iter().all(Option::is_none) {
            return;
        }
        let paths = crowd.paths();
        let groups = numbering.agent_groups();
        let before = self.along.clone();
        for (h, &p) in crowd.handles().zip(crowd.positions()) {
            let Some(a) = numbering.number(h).map(|a| a as usize) else { continue };
            let Some(Some(i)) = self.paths.get(groups[a] as usize) else { continue };
            let path = &paths[*i];
            let last = self.param[a];
            let t = path.get_param(p, last);
            self.param[a] = t;
            if last.is_nan() {
                self.along[a] = f64::from(t);
                continue;
            }
            let d = path.param_difference(last, t);
            self.along[a] += f64::from(d);
            if d > 0.0 && t < last {
                self.crossings[a].push(step);
            }
        }
        // overtakes: i was behind j and is now level or ahead, on the same path
        let on = |a: usize| self.paths.get(groups[a] as usize).copied().flatten();
        for i in 0..self.along.len() {
            for j in 0..self.along.len() {
                let (was, now) = (before[i] - before[j], self.along[i] - self.along[j]);
                if i != j && on(i).is_some() && on(i) == on(j) && was < 0.0 && now >= 0.0 {
                    self.overtakes[i] += 1;
                }
            }
        }
    }

    /// True when group `g` laps a looping path and laps are collected.
    pub(super) fn measured(&self, g: usize) -> bool {
        self.paths.get(g).is_some_and(Option::is_some)
    }

    /// Agent `a`'s complete laps (s): the times between its consecutive crossings of the start.
    pub(super) fn lap_times(&self, a: usize, dt: f64) -> Vec<f64> {
        self.crossings[a].windows(2).map(|w| (w[1] - w[0]) as f64 * dt).collect()
    }
}
