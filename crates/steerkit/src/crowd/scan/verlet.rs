//! Verlet lists (neighbour lists with a skin) for ORCA's `k` nearest: each agent keeps the
//! [`LISTED`] agents nearest to it when its list was made, and how far the nearest of the rest
//! were (`reach`). Until something moved enough, its `k` nearest are among them: an agent not
//! listed was at least `reach` away then, and since then the agent moved `own` and every other
//! agent at most `drift` (the sum over the steps of the longest move any agent made in each),
//! so it is at least `reach − own − drift` away now. When the `k`-th nearest of the listed
//! ones is nearer than that, they are the `k` nearest, the same list as the block's scan
//! gives, bit for bit (the same offsets, distances and keys); otherwise the scan runs and
//! makes the list again. In a dense crowd the scan walks a whole block (about 180 candidates
//! in RVO2's Circle at the centre) where a list holds 32.
//!
//! Off a torus only (a torus's images come from the block's shifts). Lists are kept by slot,
//! so the storage's re-sort leaves them valid; adding or removing an agent, or a quarantine,
//! voids them all (`epoch`), and an agent written between steps adds its move to the drift.

use super::*;

/// Agents a list holds: the nearest within the neighbour radius, at most this many.
pub(crate) const LISTED: usize = KEPT;

/// Room for the rounding of positions and distances (m, and per metre of position).
const ROUNDING: f32 = 1e-3;
const ROUNDING_PER_M: f32 = 1e-5;

/// One agent's list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NearList<V> {
    /// Where the agent stood when the list was made (m).
    at: V,
    /// Every agent not listed was at least this far from `at` then (m); 0: no list.
    reach: f32,
    /// The crowd's drift when the list was made (m).
    drift: f64,
    epoch: u32,
    len: u32,
    /// The listed agents' slots.
    slots: [u32; LISTED],
}

impl<V: CrowdVector> Default for NearList<V> {
    fn default() -> Self {
        NearList { at: V::ZERO, reach: 0.0, drift: 0.0, epoch: 0, len: 0, slots: [0; LISTED] }
    }
}

/// Every agent's list by slot, and what tells whether one still holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct NearLists<V> {
    lists: Vec<NearList<V>>,
    /// Each stored agent's slot, this step (filled while lists are kept).
    pub slot_of: Vec<u32>,
    /// The sum over the steps of the longest move any agent made in each, and of the moves
    /// written between steps (m).
    pub drift: f64,
    /// Lists of another epoch are void: the crowd's count of agents added, removed or
    /// quarantined, set before each step's compute phase.
    pub epoch: u32,
    /// Lists made so far.
    pub made: u64,
}

impl<V: CrowdVector> NearLists<V> {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.lists.capacity() * size_of::<NearList<V>>() + self.slot_of.capacity() * 4
    }

    /// Keeps `list` as the list of the agent in `slot`.
    pub(crate) fn store(&mut self, slot: u32, list: NearList<V>) {
        let s = slot as usize;
        if self.lists.len() <= s {
            self.lists.resize(s + 1, NearList::default());
        }
        self.lists[s] = list;
        self.made += 1;
    }

    /// The list of agent `i` (slot `slot`) just made from its `LISTED` nearest, `nearest`,
    /// within the neighbour radius `radius`, standing at `at`.
    pub(crate) fn make(
        &self,
        at: V,
        radius: f32,
        nearest: &[crate::neighbours::Neighbour<V>],
    ) -> NearList<V> {
        let mut slots = [0; LISTED];
        for (s, n) in slots.iter_mut().zip(nearest) {
            *s = self.slot_of[n.index];
        }
        // full: the rest are no nearer than the last; else every agent within the radius is in
        let reach = match nearest.last() {
            Some(n) if nearest.len() == LISTED => n.distance_squared.sqrt(),
            _ => radius,
        };
        let len = nearest.len().min(LISTED) as u32;
        NearList { at, reach, drift: self.drift, epoch: self.epoch, len, slots }
    }

    /// Agent `i`'s `k` nearest within `radius` of `centre` into `out`, as
    /// [`nearest_list`](super::nearest_list) finds them, from the list of the agent in `slot`
    /// when it provably holds them (`true`); `false` (and `out` to be filled by the scan)
    /// otherwise. `index` gives a slot's storage index.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn nearest(
        &self,
        s: &Storage<'_, V>,
        slot: u32,
        centre: V,
        radius: f32,
        k: usize,
        index: impl Fn(u32) -> usize,
        out: &mut Vec<crate::neighbours::Neighbour<V>>,
    ) -> bool {
        let Some(list) = self.lists.get(slot as usize) else {
            return false;
        };
        if list.epoch != self.epoch || list.reach <= 0.0 || k == 0 || k > LISTED {
            return false;
        }
        let own = (centre - list.at).length();
        let moved = (self.drift - list.drift) as f32;
        let rounding = ROUNDING + ROUNDING_PER_M * centre.length();
        // every agent not listed is farther than this now
        let sure = list.reach - own - moved - rounding;
        if sure.is_nan() || sure <= 0.0 {
            return false;
        }
        let mut kept = Kept::new(k, radius);
        for &slot in &list.slots[..list.len as usize] {
            let j = index(slot);
            let o = s.position[j] - centre;
            let key = key(o.length_squared(), j);
            if key < kept.bound() {
                kept.offer(key, o);
            }
        }
        // fewer than k within the radius: some not listed may be within it
        if kept.len < k {
            return false;
        }
        let farthest = f32::from_bits((kept.keys[k - 1] >> 32) as u32);
        if farthest.is_nan() || farthest >= sure * sure {
            return false;
        }
        out.clear();
        out.extend(kept.keys[..k].iter().copied().zip(kept.offsets).map(|e| neighbour(s, e)));
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::crowd::{AgentSpec, Crowd, CrowdConfig, Group, Recipe, Target, WorldBounds};
    use crate::geometry::{Aabb, ObstacleSet};
    use crate::kinematic::{Integration, Limits, Scheme};
    use crate::math::Rng;
    use crate::steering::{Approach, Arrive, Orca};
    use glam::Vec2;

    /// Crowds under ORCA step to the same bits with the Verlet lists as with a scan every
    /// step, the events included: a dense swap of two squads around a block in an open and a
    /// bounded world, with body radii and limits of several sizes, a group that leaves on
    /// arrival, and between the steps agents added, removed, moved (one written non-finite, so
    /// quarantined); the lists must have served most of the nearest lists asked for.
    #[test]
    fn verlet_lists_step_crowds_as_the_scan_does() {
        let worlds = [
            WorldBounds::Unbounded,
            WorldBounds::Bounded { min: Vec2::splat(-40.0), max: Vec2::splat(40.0) },
        ];
        for (w, bounds) in worlds.into_iter().enumerate() {
            let config = CrowdConfig::new(8.0).with_bounds(bounds).with_seed(w as u64);
            let mut crowd = Crowd::<Vec2>::new(config).unwrap();
            let block = Aabb::new(Vec2::new(-3.0, -3.0), Vec2::new(3.0, 3.0));
            crowd.set_obstacles(ObstacleSet::new([block.into()]).unwrap());
            let arrive = Arrive::with_approach(0.2, Approach::Braking, 0.25).unwrap();
            let mut groups = Vec::new();
            for leaves in [false, true] {
                let mut group = Group::new(Recipe::Arrive { target: Target::Goal, arrive });
                group.orca = Some(Orca::new(5.0, 10).unwrap());
                group.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).unwrap();
                group.non_penetration = true;
                group.arrive_radius = 0.5;
                group.remove_on_arrival = leaves;
                groups.push(crowd.add_group(group).unwrap());
            }
            let mut rng = Rng::new(5 + w as u64);
            let spawn = |crowd: &mut Crowd<Vec2>, rng: &mut Rng, a: usize| {
                let side = if a % 2 == 0 { -1.0 } else { 1.0 };
                let p = Vec2::new(side * (6.0 + 10.0 * rng.uniform()), 14.0 * rng.clamped());
                let goal = Some(Vec2::new(-p.x, p.y + 4.0 * rng.clamped()));
                let limits = Limits::new(1.0 + rng.uniform(), 8.0, 4.0, 20.0).unwrap();
                let (r, g) = (0.3 + 0.3 * rng.uniform(), groups[usize::from(a % 7 == 0)]);
                crowd.spawn(AgentSpec { goal, ..AgentSpec::new(p, r, limits, g) }).ok()
            };
            let mut handles: Vec<_> =
                (0..400).filter_map(|a| spawn(&mut crowd, &mut rng, a)).collect();
            let mut scan = crowd.clone();
            scan.order.verlet = false;
            let mut asked = 0u64;
            for step in 0..240 {
                // between steps: one added and one removed; later one moved into the thick of
                // the crowd, beside another agent; one nudged; once one written non-finite
                // (quarantined)
                let at = step as usize;
                for c in [&mut crowd, &mut scan] {
                    if step % 40 == 20 {
                        spawn(c, &mut Rng::new(step), 1);
                        let _ = c.despawn(handles[at]);
                    }
                    if step % 40 == 30 {
                        let beside = c.kinematic(handles[at + 9]);
                        if let (Some(mut k), Some(b)) = (c.kinematic(handles[at + 1]), beside) {
                            k.position = b.position + Vec2::new(0.05, 0.0);
                            c.write_kinematic(handles[at + 1], k).unwrap();
                        }
                    }
                    // a game nudging one agent a little every other step
                    if step % 2 == 1 {
                        if let Some(mut k) = c.kinematic(handles[5]) {
                            k.position += Vec2::new(0.05, -0.03);
                            c.write_kinematic(handles[5], k).unwrap();
                        }
                    }
                    if step == 70 {
                        if let Some(mut k) = c.kinematic(handles[at + 2]) {
                            k.velocity.x = f32::NAN;
                            c.write_kinematic(handles[at + 2], k).unwrap();
                        }
                    }
                }
                handles.retain(|&h| crowd.kinematic(h).is_some());
                let a = crowd.step(0.1).unwrap().to_vec();
                let b = scan.step(0.1).unwrap().to_vec();
                assert_eq!(a, b, "events, world {w}, step {step}");
                assert_eq!(crowd.len(), scan.len());
                for i in 0..crowd.len() {
                    let bits = |c: &Crowd<Vec2>| {
                        let (p, v) = (c.agents.position[i], c.agents.velocity[i]);
                        [p.x, p.y, v.x, v.y].map(f32::to_bits)
                    };
                    assert_eq!(bits(&crowd), bits(&scan), "agent {i}, world {w}, step {step}");
                }
                asked += crowd.len() as u64;
            }
            let made = crowd.work.near.made;
            assert!(
                made > 1000 && made * 3 < asked,
                "world {w}: {made} lists made, {asked} updates"
            );
        }
    }
}
