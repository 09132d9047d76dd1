//! The crowd's test of whether a neighbour's constraint could bind, without building it.

use super::{part, Pair};

/// An agent's velocity `v` and the velocity `x` it would take, for the test of whether a
/// neighbour's constraint could bind at `x`.
pub struct Reach<V> {
    pub(super) v: V,
    /// The velocity it would take (m/s).
    pub(super) x: V,
    /// `|x − v|` (m/s).
    pub(super) change: f32,
    /// `|v| + |x|` (m/s), the scale of the rounding.
    pub(super) speeds: f32,
    /// `1/τ` (1/s).
    pub(super) inv_tau: f32,
    /// `1/τ_rest` (1/s), for pairs at rest.
    pub(super) inv_rest: f32,
}

impl<V: crate::math::Vector> Reach<V> {
    /// Whether the constraint of a neighbour at `offset` moving at `velocity` (combined radius
    /// `r`, the agent taking `share` of the avoidance) admits `x`, by a margin far beyond its
    /// rounding, without building it. A relative velocity that reaches the disc of radius `r`
    /// about the offset `p` within the horizon τ closes at least `|p| − r` in at most τ, so the
    /// truncated velocity obstacle lies in `{ w : w·p̂ ≥ (|p| − r)/τ }`: the relative velocity
    /// `v − v_b` clears it by at least `L = (|p| − r)/τ − (v − v_b)·p̂`, which the
    /// constraint's `u` measures exactly (to the obstacle's nearest point), and the constraint
    /// `(x − v)·n ≥ −part·|u|` (`part` the slack's share, `1 − share`) holds for every `x`
    /// within `part·L` of `v`. The margin, 10⁻⁴ of the speeds involved, is some hundred times
    /// the rounding of the constraint and of the program's test. Units: `offset` and `r` in m,
    /// `velocity` in m/s, the pair's share in (0, 1] (clamped as the constraint clamps it).
    /// A pair at rest has the constraint `x·p̂ ≤ part·(|p| − r)/τ_rest` itself, tested with the
    /// same margin. `false`, so the constraints are built, for a neighbour in contact or on
    /// the agent's centre (`|p| ≤ r`) and for any non-finite input.
    #[inline(always)]
    pub(crate) fn clear(&self, offset: V, velocity: V, r: f32, pair: Pair) -> bool {
        let d = offset.length_squared().sqrt();
        let r = r * pair.room;
        let slack = part(pair.share, -1.0);
        if pair.rest {
            let lead = slack * (d - r) * self.inv_rest * d - self.x.dot(offset);
            let need = 1e-4 * (self.speeds + (d + r) * self.inv_rest) * d;
            return d > r && lead > need && lead.is_finite();
        }
        let w = self.v - velocity;
        // L·|p| and the admitted change times |p|
        let lead = (d - r) * self.inv_tau * d - w.dot(offset);
        let scale = self.speeds + w.length() + (d + r) * self.inv_tau;
        let need = (self.change + 1e-4 * scale) * d;
        d > r && slack * lead > need && lead.is_finite()
    }
}
