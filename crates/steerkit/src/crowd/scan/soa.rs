//! The storage by axis (structure of arrays) that the data-parallel scan loads eight
//! candidates at a time from, rebuilt with the grid.

use super::*;
use crate::crowd::CrowdVector;

/// The storage by axis (structure of arrays), in storage order and followed by [`LANES`]
/// padding entries so a four-lane load may start at any agent: what the data-parallel scan
/// reads. Rebuilt with the grid; velocities and unit velocities only when a group sums them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Soa {
    pub(super) position: [Vec<f32>; 3],
    pub(super) velocity: [Vec<f32>; 3],
    pub(super) unit: [Vec<f32>; 3],
    pub(super) radius: Vec<f32>,
}

impl Soa {
    /// Copies the storage by axis, with the unit velocities when `headings` (normalised here,
    /// where each velocity is read anyway) and the velocities when `velocities`; the arrays
    /// not asked for are left empty. One pass over the agents, in parallel pieces.
    pub(crate) fn rebuild<V: CrowdVector>(
        &mut self,
        position: &[V],
        velocity: &[V],
        velocities: bool,
        headings: bool,
        radius: &[f32],
    ) {
        let n = position.len();
        // the arrays in use hold `n` agents (overwritten by the pass, so not cleared first)
        // and `LANES` zeros after them
        fn fit(v: &mut Vec<f32>, n: usize, on: bool) -> &mut [f32] {
            if !on {
                v.clear();
                return &mut [];
            }
            v.resize(n + LANES, 0.0);
            v[n..].fill(0.0);
            &mut v[..n]
        }
        let mut on = [false; 3];
        on[..V::DIM].fill(true);
        let [px, py, pz] = &mut self.position;
        let [vx, vy, vz] = &mut self.velocity;
        let [ux, uy, uz] = &mut self.unit;
        let piece = Piece {
            start: 0,
            len: n,
            position: [fit(px, n, on[0]), fit(py, n, on[1]), fit(pz, n, on[2])],
            velocity: [
                fit(vx, n, on[0] && velocities),
                fit(vy, n, on[1] && velocities),
                fit(vz, n, on[2] && velocities),
            ],
            unit: [
                fit(ux, n, on[0] && headings),
                fit(uy, n, on[1] && headings),
                fit(uz, n, on[2] && headings),
            ],
            radius: fit(&mut self.radius, n, true),
        };
        let fill = |p: Piece<'_>| p.fill(position, velocity, radius);
        #[cfg(feature = "parallel")]
        rayon::iter::split(piece, Piece::halve).for_each(fill);
        #[cfg(not(feature = "parallel"))]
        fill(piece);
    }

    /// The unit velocity of agent `j` (the rebuild had `headings`).
    #[inline(always)]
    pub(super) fn unit<V: CrowdVector>(&self, j: usize) -> V {
        let mut u = [0.0; 3];
        for (ax, u) in u.iter_mut().enumerate().take(V::DIM) {
            *u = self.unit[ax][j];
        }
        V::from_axes(u)
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        let axes = [&self.position, &self.velocity, &self.unit];
        let floats: usize = axes.iter().flat_map(|a| a.iter()).map(Vec::capacity).sum();
        (floats + self.radius.capacity()) * 4
    }
}

/// Agents `start..start + len` of the arrays a [`Soa`] rebuild fills (slices of the arrays
/// not in use are empty): the unit of its parallel pass.
struct Piece<'a> {
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) position: [&'a mut [f32]; 3],
    pub(super) velocity: [&'a mut [f32]; 3],
    pub(super) unit: [&'a mut [f32]; 3],
    pub(super) radius: &'a mut [f32],
}

impl<'a> Piece<'a> {
    /// Agents per piece below which a piece is not split (the result does not depend on it).
    #[cfg(feature = "parallel")]
    const MIN: usize = 4096;

    /// The piece in two halves, or whole when small.
    #[cfg(feature = "parallel")]
    pub(super) fn halve(self) -> (Self, Option<Self>) {
        if self.len < 2 * Self::MIN {
            return (self, None);
        }
        let mid = self.len / 2;
        fn cut(s: &mut [f32], mid: usize) -> (&mut [f32], &mut [f32]) {
            if s.is_empty() {
                (&mut [], &mut [])
            } else {
                s.split_at_mut(mid)
            }
        }
        fn cut3(a: [&mut [f32]; 3], mid: usize) -> ([&mut [f32]; 3], [&mut [f32]; 3]) {
            let [x, y, z] = a;
            let ((x0, x1), (y0, y1), (z0, z1)) = (cut(x, mid), cut(y, mid), cut(z, mid));
            ([x0, y0, z0], [x1, y1, z1])
        }
        let (p0, p1) = cut3(self.position, mid);
        let (v0, v1) = cut3(self.velocity, mid);
        let (u0, u1) = cut3(self.unit, mid);
        let (r0, r1) = cut(self.radius, mid);
        let first =
            Piece { start: self.start, len: mid, position: p0, velocity: v0, unit: u0, radius: r0 };
        let start = self.start + mid;
        let len = self.len - mid;
        (first, Some(Piece { start, len, position: p1, velocity: v1, unit: u1, radius: r1 }))
    }

    /// Fills the piece from the storage.
    pub(super) fn fill<V: CrowdVector>(self, position: &[V], velocity: &[V], radius: &[f32]) {
        let range = self.start..self.start + self.len;
        let (position, velocity, radius) =
            (&position[range.clone()], &velocity[range.clone()], &radius[range]);
        self.radius.copy_from_slice(radius);
        for ax in 0..V::DIM {
            let to = &mut *self.position[ax];
            to.iter_mut().zip(position).for_each(|(t, p)| *t = p.axis(ax));
        }
        if !self.velocity[0].is_empty() {
            for ax in 0..V::DIM {
                let to = &mut *self.velocity[ax];
                to.iter_mut().zip(velocity).for_each(|(t, v)| *t = v.axis(ax));
            }
        }
        if !self.unit[0].is_empty() {
            let [ux, uy, uz] = self.unit;
            for (k, v) in velocity.iter().enumerate() {
                let u = v.normalize_or_zero();
                ux[k] = u.axis(0);
                uy[k] = u.axis(1);
                if V::DIM == 3 {
                    uz[k] = u.axis(2);
                }
            }
        }
    }
}
