//! Step phase 1: quarantine agents written non-finite, rebuild the grid and re-sort the storage by cell.

use super::*;

impl<V: CrowdVector> Crowd<V> {
    /// Quarantines agents made non-finite by [`write_kinematic`](Self::write_kinematic).
    pub(super) fn quarantine_unchecked(&mut self) {
        if !self.unchecked_writes {
            return;
        }
        self.unchecked_writes = false;
        for i in 0..self.len() {
            if self.status[i] & QUARANTINED != 0 {
                continue;
            }
            let k = Kinematic {
                position: self.position[i],
                orientation: self.orientation[i],
                velocity: self.velocity[i],
                rotation: self.rotation[i],
            };
            if let Some(field) = non_finite_field(&k) {
                self.status[i] |= QUARANTINED;
                let agent = self.handle_at(i);
                self.pending.push(CrowdEvent::Quarantined { agent, field });
            }
        }
    }

    /// Lays out the grid and re-sorts the storage by cell (stable counting sort). `keep_debug`
    /// re-sorts the debug records too (not needed when the step rewrites them all).
    // the step's phases stay out of line (called once per step): profiles then show each one
    #[inline(never)]
    pub(super) fn rebuild(&mut self, keep_debug: bool) {
        let n = self.len();
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut active = 0usize;
        let torus = self.config.bounds.is_toroidal();
        for (p, &s) in self.position.iter().zip(&self.status) {
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
        self.grid.layout(&self.config.bounds, self.config.neighbour_radius, lo, hi, active);
        // keys (quarantined agents go to the bucket after the last cell)
        self.grid.assign(&self.position, &self.status, QUARANTINED, &mut self.keys);
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
        let mut identity = true;
        for (i, &k) in self.keys.iter().enumerate() {
            let at = &mut start[k as usize];
            self.perm[*at as usize] = i as u32;
            identity &= *at as usize == i;
            *at += 1;
        }
        for c in (1..start.len()).rev() {
            start[c] = start[c - 1];
        }
        start[0] = 0;
        if !identity {
            let (s, p) = (&mut self.scratch, &self.perm);
            permute(&mut self.position, &mut s.v, p);
            permute(&mut self.velocity, &mut s.v, p);
            permute(&mut self.orientation, &mut s.o, p);
            permute(&mut self.rotation, &mut s.a, p);
            permute(&mut self.radius, &mut s.f, p);
            permute(&mut self.status, &mut s.u, p);
            permute(&mut self.cold, &mut s.cold, p);
            if keep_debug {
                permute(&mut self.debug, &mut s.debug, p);
            }
            if self.avoid_on {
                permute(&mut self.avoid, &mut s.avoid, p);
            }
            if self.drive_on {
                permute(&mut self.controls, &mut s.controls, p);
            }
            for (i, c) in self.cold.iter().enumerate() {
                self.slots[c.slot as usize].index = i as u32;
            }
        }
        let headings = self.groups.iter().any(|g| g.plan.needs_headings);
        if headings {
            self.unit.resize(n, V::ZERO);
            #[cfg(feature = "parallel")]
            let it = self.unit.par_iter_mut().zip(self.velocity.par_iter());
            #[cfg(not(feature = "parallel"))]
            let it = self.unit.iter_mut().zip(self.velocity.iter());
            it.for_each(|(u, v)| *u = v.normalize_or_zero());
        }
        if self.groups.iter().any(|g| g.plan.needs_neighbours) {
            let velocities = self.groups.iter().any(|g| g.plan.needs_velocities);
            let unit = if headings { &self.unit[..] } else { &[] };
            self.soa.rebuild(&self.position, &self.velocity, velocities, unit, &self.radius);
        }
        self.grid_fresh = true;
    }
}
