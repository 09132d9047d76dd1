//! Sending several agents to one place, as a strategy game does: each gets its own spot on a
//! square lattice round the place clicked, a body and a margin apart, so that they can all
//! stand there at once (one shared goal would leave all but one pressing on the others).

use super::{vector, Point, Sim, Space, MAX_AGENTS};
use steerkit::crowd::AgentHandle;

/// Space between two bodies' edges on the lattice (m).
const MARGIN: f32 = 0.3;

/// `n` lattice offsets `(i, j)·spacing`, nearest the centre first (ties by angle, so the
/// order is a fixed function of `n`).
fn lattice(n: usize, spacing: f32) -> Vec<[f32; 2]> {
    let mut k = 0i64;
    while ((2 * k + 1) * (2 * k + 1)) < n as i64 {
        k += 1;
    }
    let mut cells: Vec<(i64, f32, [f32; 2])> = (-k..=k)
        .flat_map(|i| (-k..=k).map(move |j| (i, j)))
        .map(|(i, j)| {
            let (x, y) = (i as f32, j as f32);
            (i * i + j * j, y.atan2(x), [x * spacing, y * spacing])
        })
        .collect();
    cells.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    cells.into_iter().take(n).map(|c| c.2).collect()
}

impl<V: Space> Sim<V> {
    /// Sends agents `agents` to `p`: the nearest of them to `p` gets the spot at `p`, the next
    /// ones the lattice spots round it in order of distance (spacing: the largest diameter
    /// among them + 0.3 m; on the ground plane in 3D). A navigating agent plans its route to
    /// its new goal (projected onto the walkable area when it falls in a wall).
    ///
    /// # Errors
    /// An unknown agent, or more than [`MAX_AGENTS`].
    pub fn move_goals(&mut self, agents: &[u64], p: Point) -> Result<(), String> {
        if agents.len() > MAX_AGENTS {
            return Err(format!(
                "`agents` has {} numbers; allowed at most {MAX_AGENTS}",
                agents.len()
            ));
        }
        let centre: V = vector(p);
        let crowd = self.sim.crowd();
        let mut chosen: Vec<(AgentHandle, f32)> = Vec::with_capacity(agents.len());
        let mut radius = 0.0f32;
        let mut ids = agents.to_vec();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let h = usize::try_from(id)
                .ok()
                .and_then(|i| self.handle(i))
                .ok_or_else(|| self.agent_error(id))?;
            // an agent the crowd dropped has no goal to move
            let Some(k) = crowd.kinematic(h) else { continue };
            radius = radius.max(crowd.radius(h).unwrap_or(0.0));
            chosen.push((h, (k.position - centre).length()));
        }
        // nearest first; equal distances in number order (the sort is stable)
        chosen.sort_by(|a, b| a.1.total_cmp(&b.1));
        let spots = lattice(chosen.len(), 2.0 * radius + MARGIN);
        for ((h, _), [dx, dy]) in chosen.into_iter().zip(spots) {
            let offset: V = if V::DIMS == 3 {
                vector([dx.into(), 0.0, dy.into()])
            } else {
                vector([dx.into(), dy.into(), 0.0])
            };
            let _ = self.sim.crowd_mut().set_goal(h, Some(centre + offset));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::lattice;

    #[test]
    fn lattice_spots_are_distinct_spaced_and_nearest_first() {
        for n in [0, 1, 2, 9, 10, 50, 200] {
            let l = lattice(n, 1.5);
            assert_eq!(l.len(), n);
            assert!(l.first().is_none_or(|p| *p == [0.0, 0.0]));
            for (i, a) in l.iter().enumerate() {
                for b in &l[i + 1..] {
                    let d = (a[0] - b[0]).hypot(a[1] - b[1]);
                    assert!(d >= 1.5 - 1e-5, "{a:?} and {b:?} are {d} m apart");
                }
            }
            let r: Vec<f32> = l.iter().map(|p| p[0].hypot(p[1])).collect();
            assert!(r.windows(2).all(|w| w[0] <= w[1] + 1e-5), "not nearest first: {r:?}");
        }
    }
}
