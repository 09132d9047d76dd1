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
        self.count_overtakes(&before, groups);
    }

    /// Overtakes since the last step: `i` was behind `j` (`before[i] < before[j]`) and is now
    /// level or ahead (`along[i] ≥ along[j]`), both on the same path. Counted per path with a
    /// Fenwick tree over the new distances' ranks, O(n log n) per step, not over all pairs.
    fn count_overtakes(&mut self, before: &[f64], groups: &[u32]) {
        let on = |a: usize| self.paths.get(groups[a] as usize).copied().flatten();
        let mut members: Vec<(usize, usize)> = (0..self.along.len())
            .filter_map(|a| on(a).map(|p| (p, a)))
            .filter(|&(_, a)| before[a].is_finite() && self.along[a].is_finite())
            .collect();
        // per path, the members farthest along before first
        members.sort_by(|x, y| x.0.cmp(&y.0).then(before[y.1].total_cmp(&before[x.1])));
        for chunk in members.chunk_by(|x, y| x.0 == y.0) {
            let mut now: Vec<f64> = chunk.iter().map(|&(_, a)| self.along[a]).collect();
            now.sort_by(f64::total_cmp);
            let mut tree = vec![0u32; now.len() + 1];
            // members level before are ahead of none of each other: query them all, then add
            for level in chunk.chunk_by(|x, y| before[x.1] == before[y.1]) {
                for &(_, a) in level {
                    // how many of those ahead before are now at or behind `a`
                    let mut k = now.partition_point(|&v| v <= self.along[a]);
                    while k > 0 {
                        self.overtakes[a] += u64::from(tree[k]);
                        k &= k - 1;
                    }
                }
                for &(_, a) in level {
                    let mut k = now.partition_point(|&v| v < self.along[a]) + 1;
                    while k < tree.len() {
                        tree[k] += 1;
                        k += k & k.wrapping_neg();
                    }
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

#[cfg(test)]
mod tests {
    use super::Laps;

    /// The pairwise rule the counting implements, over every pair.
    fn brute(paths: &[Option<usize>], groups: &[u32], before: &[f64], now: &[f64]) -> Vec<u64> {
        let on = |a: usize| paths[groups[a] as usize];
        (0..now.len())
            .map(|i| {
                (0..now.len())
                    .filter(|&j| {
                        i != j
                            && on(i).is_some()
                            && on(i) == on(j)
                            && before[i] - before[j] < 0.0
                            && now[i] - now[j] >= 0.0
                    })
                    .count() as u64
            })
            .collect()
    }

    #[test]
    fn overtakes_counted_by_ranks_agree_with_every_pair() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        // three groups: two on path 0, one on path 1; one group following no looping path
        let paths = vec![Some(0), Some(0), Some(1), None];
        for _ in 0..300 {
            let n = 1 + next(40) as usize;
            let groups: Vec<u32> = (0..n).map(|_| next(4) as u32).collect();
            // coarse values so that ties before and after are common; now and then a NaN
            let before: Vec<f64> = (0..n)
                .map(|_| if next(20) == 0 { f64::NAN } else { next(12) as f64 * 0.5 })
                .collect();
            let now: Vec<f64> = before.iter().map(|b| b + next(5) as f64 * 0.5).collect();
            let mut laps = Laps {
                paths: paths.clone(),
                param: vec![0.0; n],
                along: now.clone(),
                crossings: vec![Vec::new(); n],
                overtakes: vec![0; n],
            };
            laps.count_overtakes(&before, &groups);
            assert_eq!(laps.overtakes, brute(&paths, &groups, &before, &now));
        }
    }
}
