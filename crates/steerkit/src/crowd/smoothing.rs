//! Heading smoothing (Buckland): a ring of each agent's last unit headings, kept per handle
//! slot so it survives the re-sort.

use super::*;

impl<V: CrowdVector> Crowd<V> {
    pub(super) fn resize_smoothing(&mut self) {
        let w =
            self.world.groups.iter().map(|g| g.spec.heading_smoothing as usize).max().unwrap_or(0);
        let w = if w > 1 { w } else { 0 };
        if w != self.agents.smooth_window {
            self.agents.smooth_window = w;
            self.agents.smooth_ring.clear();
            self.agents.smoothed.clear();
            for slot in 0..self.agents.slots.len() {
                self.seed_smoothing(slot);
            }
        }
        if w > 0 {
            self.agents.smooth_ring.resize(self.agents.slots.len() * w, V::ZERO);
            self.agents.smoothed.resize(self.agents.slots.len(), V::ZERO);
        }
    }

    pub(super) fn seed_smoothing(&mut self, slot: usize) {
        let w = self.agents.smooth_window;
        if w == 0 {
            return;
        }
        self.agents.smooth_ring.resize(self.agents.slots.len() * w, V::ZERO);
        self.agents.smoothed.resize(self.agents.slots.len(), V::ZERO);
        let i = self.agents.slots[slot].index;
        if i == FREE {
            return;
        }
        let h = heading(self.agents.velocity[i as usize], self.agents.orientation[i as usize]);
        self.agents.smooth_ring[slot * w..(slot + 1) * w].fill(h);
        self.agents.smoothed[slot] = h;
    }

    /// Phase 5: heading smoothing (per slot, so the ring survives re-sorting).
    pub(super) fn smooth_headings(agents: &mut Agents<V>, world: &World<V>, work: &Work<V>) {
        let w = agents.smooth_window;
        if w == 0 {
            return;
        }
        let at = (work.steps % w as u64) as usize;
        for (slot, s) in agents.slots.iter().enumerate() {
            if s.index == FREE {
                continue;
            }
            let i = s.index as usize;
            let raw = heading(agents.velocity[i], agents.orientation[i]);
            let ring = &mut agents.smooth_ring[slot * w..(slot + 1) * w];
            ring[at] = raw;
            let n = (world.groups[agents.cold[i].group as usize].spec.heading_smoothing as usize)
                .min(w);
            let mut sum = V::ZERO;
            for back in 0..n.max(1) {
                sum += ring[(at + w - back) % w];
            }
            let mean = sum.normalize_or_zero();
            agents.smoothed[slot] = if sum.length_squared() > 1e-12 { mean } else { raw };
        }
    }
}

/// The unit velocity, or the orientation's forward when (nearly) still.
#[inline]
pub(super) fn heading<V: CrowdVector>(velocity: V, orientation: V::Orientation) -> V {
    let h = velocity.normalize_or_zero();
    if h == V::ZERO {
        V::forward(orientation)
    } else {
        h
    }
}
