//! Step phase 1: quarantine agents written non-finite, rebuild the grid and re-sort the storage by cell.

use super::*;

impl<V: CrowdVector> Crowd<V> {
    /// Quarantines agents made non-finite by [`write_kinematic`](Self::write_kinematic),
    /// reporting each in `pending` and counting it in `order.changes`.
    pub(super) fn quarantine_unchecked(
        agents: &mut Agents<V>,
        order: &mut Order,
        pending: &mut Vec<CrowdEvent>,
    ) {
        if !agents.unchecked_writes {
            return;
        }
        agents.unchecked_writes = false;
        for i in 0..agents.len() {
            if agents.status[i] & QUARANTINED != 0 {
                continue;
            }
            let k = Kinematic {
                position: agents.position[i],
                orientation: agents.orientation[i],
                velocity: agents.velocity[i],
                rotation: agents.rotation[i],
            };
            if let Some(field) = non_finite_field(&k) {
                agents.status[i] |= QUARANTINED;
                order.changes = order.changes.wrapping_add(1);
                let agent = agents.handle_at(i);
                pending.push(CrowdEvent::Quarantined { agent, field });
            }
        }
    }

    /// Lays out the grid and re-sorts the storage by cell (stable counting sort). `keep_debug`
    /// re-sorts the debug records too (not needed when the step rewrites them all).
    // the step's phases stay out of line (called once per step): profiles then show each one
    #[inline(never)]
    pub(super) fn rebuild(
        config: &CrowdConfig<V>,
        agents: &mut Agents<V>,
        world: &World<V>,
        order: &mut Order,
        scratch: &mut Scratch<V>,
        keep_debug: bool,
    ) {
        let n = agents.len();
        let (lo, hi, active) = Self::occupied_box(config, agents);
        order.grid.layout(&config.bounds, config.neighbour_radius, lo, hi, active);
        // keys (quarantined agents go to the bucket after the last cell)
        order.grid.assign(&agents.position, &agents.status, QUARANTINED, &mut order.keys);
        let moved = order.sort_by_cell(n);
        if moved == 0 {
            // every agent kept its place: nothing to re-sort
        } else if moved * SWAP_BELOW <= n {
            Self::swap_moved(agents, order, keep_debug);
        } else {
            Self::permute_all(agents, order, scratch, keep_debug);
        }
        if world.groups.iter().any(|g| g.plan.needs_neighbours) {
            let velocities = world.groups.iter().any(|g| g.plan.needs_velocities);
            let headings = world.groups.iter().any(|g| g.plan.needs_headings);
            let (p, v, r) = (&agents.position, &agents.velocity, &agents.radius);
            agents.soa.rebuild(p, v, velocities, headings, r);
        }
        order.grid_fresh = true;
    }

    /// The box around the active agents' centres (the whole torus: left empty) and how many
    /// agents are active (not quarantined).
    fn occupied_box(config: &CrowdConfig<V>, agents: &Agents<V>) -> ([f32; 3], [f32; 3], usize) {
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut active = 0usize;
        let torus = config.bounds.is_toroidal();
        for (p, &s) in agents.position.iter().zip(&agents.status) {
            if s & QUARANTINED != 0 {
                continue;
            }
            active += 1;
            if torus {
                continue; // the torus is the grid's extent
            }
            for i in 0..V::DIM {
                lo[i] = lo[i].min(p.axis(i));
                hi[i] = hi[i].max(p.axis(i));
            }
        }
        if active == 0 {
            lo = [0.0; 3];
            hi = [0.0; 3];
        }
        (lo, hi, active)
    }

    /// The re-sort when few agents changed cell: swaps along the permutation's cycles.
    fn swap_moved(agents: &mut Agents<V>, order: &mut Order, keep_debug: bool) {
        // a few agents changed cell: swap along the permutation's cycles, touching only
        // the agents that move (the storage is otherwise in place already)
        cycle_swaps(&mut order.perm, &mut order.swaps);
        let w = &order.swaps;
        swap_along(&mut agents.position, w);
        swap_along(&mut agents.velocity, w);
        swap_along(&mut agents.orientation, w);
        swap_along(&mut agents.rotation, w);
        swap_along(&mut agents.radius, w);
        swap_along(&mut agents.status, w);
        swap_along(&mut agents.cold, w);
        if agents.memory_on {
            swap_along(&mut agents.memory, w);
        }
        if keep_debug {
            swap_along(&mut agents.debug, w);
        }
        if agents.avoid_on {
            swap_along(&mut agents.avoid, w);
        }
        if agents.drive_on {
            swap_along(&mut agents.controls, w);
        }
        for &(a, b) in w {
            for i in [a as usize, b as usize] {
                agents.slots[agents.cold[i].slot as usize].index = i as u32;
            }
        }
    }

    /// The re-sort when many agents changed cell: every array gathered through the
    /// permutation, every slot renumbered.
    fn permute_all(
        agents: &mut Agents<V>,
        order: &Order,
        scratch: &mut Scratch<V>,
        keep_debug: bool,
    ) {
        Self::gather_hot(agents, &order.perm, scratch);
        let (s, p) = (scratch, &order.perm);
        if agents.memory_on {
            permute(&mut agents.memory, &mut s.memory, p);
        }
        if keep_debug {
            permute(&mut agents.debug, &mut s.debug, p);
        }
        if agents.avoid_on {
            permute(&mut agents.avoid, &mut s.avoid, p);
        }
        if agents.drive_on {
            permute(&mut agents.controls, &mut s.controls, p);
        }
        // every slot's agent to its new place, gathered per slot (so in parallel) from the
        // inverse permutation rather than scattered from the storage
        let inverse = &order.keys;
        let renumber = |s: &mut Slot| {
            if s.index != FREE {
                s.index = inverse[s.index as usize];
            }
        };
        #[cfg(feature = "parallel")]
        agents.slots.par_iter_mut().with_min_len(4096).for_each(renumber);
        #[cfg(not(feature = "parallel"))]
        agents.slots.iter_mut().for_each(renumber);
        debug_assert!(agents
            .cold
            .iter()
            .enumerate()
            .all(|(i, c)| { agents.slots[c.slot as usize].index as usize == i }));
    }
}

impl<V: CrowdVector> Crowd<V> {
    /// The re-sort's gather `new[k] = old[perm[k]]` of the arrays every step reads, in one pass
    /// over the permutation (one per array cost as much again in loop and collection overhead).
    fn gather_hot(agents: &mut Agents<V>, perm: &[u32], s: &mut Scratch<V>) {
        /// Agents per parallel piece (the gather's result does not depend on it).
        const PIECE: usize = 4096;
        // the scratch arrays hold last step's storage, so they are the right length already
        // unless agents came or went
        fn fit<T: Clone>(scratch: &mut Vec<T>, like: &[T]) {
            if scratch.len() != like.len() {
                scratch.clear();
                scratch.extend_from_slice(like);
            }
        }
        fit(&mut s.v, &agents.position);
        fit(&mut s.w, &agents.velocity);
        fit(&mut s.o, &agents.orientation);
        fit(&mut s.a, &agents.rotation);
        fit(&mut s.f, &agents.radius);
        fit(&mut s.u, &agents.status);
        fit(&mut s.cold, &agents.cold);
        let (position, velocity, orientation, rotation) =
            (&agents.position, &agents.velocity, &agents.orientation, &agents.rotation);
        let (radius, status, cold) = (&agents.radius, &agents.status, &agents.cold);
        #[cfg(feature = "parallel")]
        let pieces = (s.v.par_chunks_mut(PIECE).zip(s.w.par_chunks_mut(PIECE)))
            .zip(s.o.par_chunks_mut(PIECE).zip(s.a.par_chunks_mut(PIECE)))
            .zip(s.f.par_chunks_mut(PIECE).zip(s.u.par_chunks_mut(PIECE)))
            .zip(s.cold.par_chunks_mut(PIECE).zip(perm.par_chunks(PIECE)));
        #[cfg(not(feature = "parallel"))]
        let pieces = (s.v.chunks_mut(PIECE).zip(s.w.chunks_mut(PIECE)))
            .zip(s.o.chunks_mut(PIECE).zip(s.a.chunks_mut(PIECE)))
            .zip(s.f.chunks_mut(PIECE).zip(s.u.chunks_mut(PIECE)))
            .zip(s.cold.chunks_mut(PIECE).zip(perm.chunks(PIECE)));
        pieces.for_each(|((((p, v), (o, a)), (f, u)), (c, perm))| {
            let out = (p.iter_mut().zip(v)).zip(o.iter_mut().zip(a)).zip(f.iter_mut().zip(u));
            for ((((p, v), (o, a)), (f, u)), (c, &j)) in out.zip(c.iter_mut().zip(perm)) {
                let j = j as usize;
                (*p, *v, *o, *a) = (position[j], velocity[j], orientation[j], rotation[j]);
                (*f, *u) = (radius[j], status[j]);
                *c = cold[j];
            }
        });
        core::mem::swap(&mut agents.position, &mut s.v);
        core::mem::swap(&mut agents.velocity, &mut s.w);
        core::mem::swap(&mut agents.orientation, &mut s.o);
        core::mem::swap(&mut agents.rotation, &mut s.a);
        core::mem::swap(&mut agents.radius, &mut s.f);
        core::mem::swap(&mut agents.status, &mut s.u);
        core::mem::swap(&mut agents.cold, &mut s.cold);
    }
}

impl Order {
    /// The stable counting sort of the `n` agents' cell keys: the cells' starts, the
    /// permutation, and the keys turned into its inverse. Returns how many agents change place.
    fn sort_by_cell(&mut self, n: usize) -> usize {
        let cells = self.grid.cells();
        // counting sort
        let start = &mut self.grid.cell_start;
        start.clear();
        start.resize(cells + 2, 0);
        for &k in &self.keys {
            start[k as usize + 1] += 1;
        }
        for c in 1..start.len() {
            start[c] += start[c - 1];
        }
        self.perm.resize(n, 0);
        let mut moved = 0usize;
        // each key is read once, then overwritten with where its agent goes: the keys become
        // the inverse permutation, which the slot table needs
        for (i, k) in self.keys.iter_mut().enumerate() {
            let at = &mut start[*k as usize];
            self.perm[*at as usize] = i as u32;
            moved += usize::from(*at as usize != i);
            *k = *at;
            *at += 1;
        }
        for c in (1..start.len()).rev() {
            start[c] = start[c - 1];
        }
        start[0] = 0;
        moved
    }
}

/// The re-sort swaps in place when fewer than `1/SWAP_BELOW` of the agents are out of place
/// (a crowd whose agents seldom change cell, such as RVO2's Circle); otherwise every array is
/// gathered through the permutation in parallel. On the 10 000-agent Circle under callgrind,
/// 16 kept slightly fewer instructions than 4; flock2d, where most agents shift, gathers at both.
const SWAP_BELOW: usize = 16;

/// The swaps that apply the gather `new[k] = old[perm[k]]` in place: along each cycle
/// `k₀ → perm[k₀] → …`, swapping neighbours in turn moves every element one step back
/// (`perm` is left as it was).
fn cycle_swaps(perm: &mut [u32], swaps: &mut Vec<(u32, u32)>) {
    const SEEN: u32 = 1 << 31;
    swaps.clear();
    for s in 0..perm.len() {
        if perm[s] & SEEN != 0 || perm[s] as usize == s {
            continue;
        }
        let mut k = s;
        loop {
            let next = perm[k] & !SEEN;
            perm[k] |= SEEN;
            if next as usize == s {
                break;
            }
            swaps.push((k as u32, next));
            k = next as usize;
        }
    }
    for p in perm.iter_mut() {
        *p &= !SEEN;
    }
}

fn swap_along<T>(data: &mut [T], swaps: &[(u32, u32)]) {
    for &(a, b) in swaps {
        data.swap(a as usize, b as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The in-place swaps give exactly the gather `new[k] = old[perm[k]]`.
    fn check(perm: &[u32]) {
        let old: Vec<u32> = (0..perm.len() as u32).map(|k| k * 7 + 1).collect();
        let gathered: Vec<u32> = perm.iter().map(|&k| old[k as usize]).collect();
        let (mut p, mut swaps, mut data) = (perm.to_vec(), Vec::new(), old.clone());
        cycle_swaps(&mut p, &mut swaps);
        swap_along(&mut data, &swaps);
        assert_eq!(data, gathered);
        assert_eq!(p, perm, "the permutation is left as it was");
        // a cycle of length m takes m − 1 swaps: at most one per agent out of place
        let moved = perm.iter().enumerate().filter(|&(k, &j)| j as usize != k).count();
        assert!(swaps.len() < moved.max(1));
    }

    #[test]
    fn swaps_apply_small_permutations() {
        check(&[]);
        check(&[0, 1, 2]);
        check(&[1, 2, 0]);
        check(&[2, 0, 1, 3]);
        check(&[1, 0, 3, 2, 4]);
    }

    proptest! {
        /// Random permutations, and nearly sorted ones (a few agents shifted along the
        /// storage, as a step's re-sort makes them).
        #[test]
        fn swaps_apply_any_permutation(
            n in 1usize..200,
            seed in any::<u64>(),
            shifts in proptest::collection::vec((0usize..200, 0usize..200), 0..6),
        ) {
            let mut rng = crate::math::Rng::new(seed);
            let mut perm: Vec<u32> = (0..n as u32).collect();
            for k in (1..n).rev() {
                let j = (rng.uniform() * (k + 1) as f32) as usize;
                perm.swap(k, j.min(k));
            }
            check(&perm);
            let mut near: Vec<u32> = (0..n as u32).collect();
            for (a, b) in shifts {
                let (a, b) = (a % n, b % n);
                let x = near.remove(a);
                near.insert(b, x);
            }
            check(&near);
        }
    }
}
