//! Slot roles, slot costs and slot assignment (Millington §3.7.7–3.7.8).
//!
//! Costs are "low is good"; a cost that is not finite, or at or above the slot-cost limit, means
//! the member may not take the slot (a hard role). Two solvers share one cost matrix:
//! - [`SlotAssigner::greedy`], the book's heuristic: members in ascending **ease of assignment**
//!   `Σ 1/(1 + c)` over the slots they may take, each taking its cheapest free slot;
//! - [`SlotAssigner::optimal`], the Hungarian algorithm: the minimum total cost among the
//!   assignments that place the most members, in O(k²·n) for k ≤ n (rows ≤ columns; the matrix
//!   is transposed otherwise). Minimum-cost assignment is polynomial; the texts' "NP-complete"
//!   is wrong.
//!
//! The solvers keep their buffers between calls, so re-assigning a formation of the same size
//! does not allocate. The optimal solver can also be spread over frames, a few rows per frame
//! ([`SlotAssigner::begin_optimal`]).

use crate::error::ParamError;
use crate::formation::pattern::SlotRole;

/// Which solver a formation uses when it (re)assigns slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AssignmentMethod {
    /// Member i takes slot i in joining order (the book's trivial `updateSlotAssignments`):
    /// no roles, and members scramble across the formation when one leaves.
    Sequential,
    /// The book's greedy heuristic by ease of assignment (§3.7.8).
    Greedy,
    /// The optimal assignment (Hungarian algorithm).
    #[default]
    Optimal,
}

/// A members × slots cost matrix, row-major (row = member).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CostMatrix {
    members: usize,
    slots: usize,
    costs: Vec<f32>,
}

impl CostMatrix {
    /// A matrix filled by `cost(member, slot)`: the book's slot-cost call, which must receive
    /// the **slot** (the listing's `getSlotCost(character)` drops it, erratum).
    #[must_use]
    pub fn from_fn(members: usize, slots: usize, cost: impl FnMut(usize, usize) -> f32) -> Self {
        let mut m = CostMatrix::default();
        m.fill(members, slots, cost);
        m
    }

    /// Refills in place (reusing the buffer).
    pub fn fill(
        &mut self,
        members: usize,
        slots: usize,
        mut cost: impl FnMut(usize, usize) -> f32,
    ) {
        self.members = members;
        self.slots = slots;
        self.costs.clear();
        for m in 0..members {
            for s in 0..slots {
                self.costs.push(cost(m, s));
            }
        }
    }

    /// Number of members (rows).
    #[must_use]
    pub fn members(&self) -> usize {
        self.members
    }

    /// Number of slots (columns).
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The cost of `member` in `slot`.
    #[must_use]
    #[inline]
    pub fn get(&self, member: usize, slot: usize) -> f32 {
        self.costs[member * self.slots + slot]
    }

    /// A member's row.
    #[must_use]
    pub fn row(&self, member: usize) -> &[f32] {
        &self.costs[member * self.slots..(member + 1) * self.slots]
    }
}

/// True when a cost allows the slot: finite and below `limit`.
#[inline]
#[must_use]
pub fn slot_allowed(cost: f32, limit: f32) -> bool {
    cost.is_finite() && cost < limit
}

/// The book's ease of assignment of one member (§3.7.8): `Σ 1/(1 + c_i)` over the slots with
/// `c_i < limit` (summed over **slots**, not roles). 0 when no slot is allowed. Costs are assumed
/// ≥ 0; a negative cost counts as 0 so the sum stays finite.
#[must_use]
pub fn ease_of_assignment(costs: &[f32], limit: f32) -> f32 {
    costs.iter().filter(|&&c| slot_allowed(c, limit)).map(|&c| 1.0 / (1.0 + c.max(0.0))).sum()
}

/// What an assignment achieved.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AssignmentOutcome {
    /// Sum of the costs of the assigned members (f64 to keep large "soft infinite" costs exact).
    pub total_cost: f64,
    /// Members left without a slot (no allowed free slot, or more members than slots). The book
    /// throws here; a formation keeps them at the anchor and reports them.
    pub unassigned: usize,
}

/// Slot assignment solvers with reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct SlotAssigner {
    order: Vec<(f32, u32)>,
    candidates: Vec<(f32, u32)>,
    starts: Vec<u32>,
    filled: Vec<bool>,
    // Hungarian
    a: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
    p: Vec<usize>,
    way: Vec<usize>,
    minv: Vec<f64>,
    used: Vec<bool>,
    members: usize,
    rows: usize,
    cols: usize,
    next_row: usize,
    transposed: bool,
    penalty: f64,
}

impl SlotAssigner {
    /// An empty solver.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Solves with `method`; `out[m]` receives member m's slot (resized to the member count).
    pub fn assign(
        &mut self,
        method: AssignmentMethod,
        costs: &CostMatrix,
        limit: f32,
        out: &mut Vec<Option<usize>>,
    ) -> AssignmentOutcome {
        match method {
            AssignmentMethod::Sequential => sequential(costs, limit, out),
            AssignmentMethod::Greedy => self.greedy(costs, limit, out),
            AssignmentMethod::Optimal => self.optimal(costs, limit, out),
        }
    }

    /// The book's heuristic (§3.7.8, errata fixed): members sorted by ascending ease of
    /// assignment (ties: lower index first), each member's allowed slots by ascending cost (ties:
    /// lower slot first); each member in turn takes its first free slot, or none. O(k·n·log n).
    pub fn greedy(
        &mut self,
        costs: &CostMatrix,
        limit: f32,
        out: &mut Vec<Option<usize>>,
    ) -> AssignmentOutcome {
        let (k, n) = (costs.members, costs.slots);
        out.clear();
        out.resize(k, None);
        self.order.clear();
        self.candidates.clear();
        self.starts.clear();
        for m in 0..k {
            self.starts.push(self.candidates.len() as u32);
            let row = costs.row(m);
            self.order.push((ease_of_assignment(row, limit), m as u32));
            let begin = self.candidates.len();
            for (s, &c) in row.iter().enumerate() {
                if slot_allowed(c, limit) {
                    self.candidates.push((c, s as u32));
                }
            }
            self.candidates[begin..].sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        }
        self.starts.push(self.candidates.len() as u32);
        self.order.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        self.filled.clear();
        self.filled.resize(n, false);
        let mut outcome = AssignmentOutcome::default();
        for &(_, m) in &self.order {
            let m = m as usize;
            let range = self.starts[m] as usize..self.starts[m + 1] as usize;
            // the first open slot; "none found" is decided after the loop (erratum: the
            // listing's throw sits inside it)
            let found = self.candidates[range].iter().find(|&&(_, s)| !self.filled[s as usize]);
            match found {
                Some(&(c, s)) => {
                    self.filled[s as usize] = true;
                    out[m] = Some(s as usize);
                    outcome.total_cost += f64::from(c);
                }
                None => outcome.unassigned += 1,
            }
        }
        outcome
    }

    /// The optimal assignment by the Hungarian algorithm (shortest augmenting paths with
    /// potentials), O(r²·c) for r = min(k, n) rows and c = max(k, n) columns.
    ///
    /// Forbidden pairs get a penalty larger than any total of allowed costs, so the result first
    /// places as many members as possible, then minimises their total cost; members matched to a
    /// forbidden slot are reported unassigned.
    pub fn optimal(
        &mut self,
        costs: &CostMatrix,
        limit: f32,
        out: &mut Vec<Option<usize>>,
    ) -> AssignmentOutcome {
        self.begin_optimal(costs, limit);
        while !self.step_optimal(usize::MAX) {}
        self.finish_optimal(out)
    }

    /// Starts an optimal assignment to be spread over several frames (§3.7.8: "split it over
    /// several frames"): copies the costs, so the caller's matrix may change afterwards. Follow
    /// with [`step_optimal`](Self::step_optimal) until it returns `true`, then
    /// [`finish_optimal`](Self::finish_optimal). The result equals [`optimal`](Self::optimal).
    pub fn begin_optimal(&mut self, costs: &CostMatrix, limit: f32) {
        let (k, n) = (costs.members, costs.slots);
        self.members = k;
        self.transposed = k > n;
        let (rows, cols) = if self.transposed { (n, k) } else { (k, n) };
        self.rows = if k == 0 || n == 0 { 0 } else { rows };
        self.cols = cols;
        self.next_row = 1;
        let mut max_allowed = 0.0f64;
        let mut min_allowed = 0.0f64;
        for &c in &costs.costs {
            if slot_allowed(c, limit) {
                max_allowed = max_allowed.max(f64::from(c));
                min_allowed = min_allowed.min(f64::from(c));
            }
        }
        // > any difference between two totals of `rows` allowed costs
        self.penalty = (max_allowed - min_allowed + 1.0) * (rows as f64 + 1.0);
        self.a.clear();
        for r in 0..self.rows {
            for c in 0..cols {
                let (m, s) = if self.transposed { (c, r) } else { (r, c) };
                let x = costs.get(m, s);
                self.a.push(if slot_allowed(x, limit) { f64::from(x) } else { self.penalty });
            }
        }
        self.u.clear();
        self.u.resize(self.rows + 1, 0.0);
        self.v.clear();
        self.v.resize(cols + 1, 0.0);
        self.p.clear();
        self.p.resize(cols + 1, 0);
        self.way.clear();
        self.way.resize(cols + 1, 0);
    }

    /// Adds up to `rows` more rows to the matching (each O(r·c)); `true` when all are in.
    pub fn step_optimal(&mut self, rows: usize) -> bool {
        let mut done = 0;
        while self.next_row <= self.rows && done < rows {
            self.augment(self.next_row);
            self.next_row += 1;
            done += 1;
        }
        self.next_row > self.rows
    }

    /// The result of a finished [`begin_optimal`](Self::begin_optimal); rows not yet added are
    /// left unassigned.
    pub fn finish_optimal(&self, out: &mut Vec<Option<usize>>) -> AssignmentOutcome {
        out.clear();
        out.resize(self.members, None);
        let mut outcome = AssignmentOutcome::default();
        if self.rows > 0 {
            // p[j] = row matched to column j (1-based, 0 = none)
            for j in 1..=self.cols {
                let i = self.p[j];
                if i == 0 {
                    continue;
                }
                let c = self.a[(i - 1) * self.cols + (j - 1)];
                if c < self.penalty {
                    let (m, s) = if self.transposed { (j - 1, i - 1) } else { (i - 1, j - 1) };
                    out[m] = Some(s);
                    outcome.total_cost += c;
                }
            }
        }
        outcome.unassigned = out.iter().filter(|s| s.is_none()).count();
        outcome
    }

    /// Adds row `i` (1-based) to the matching along a shortest augmenting path.
    fn augment(&mut self, i: usize) {
        let inf = f64::INFINITY;
        let cols = self.cols;
        self.p[0] = i;
        let mut j0 = 0usize;
        self.minv.clear();
        self.minv.resize(cols + 1, inf);
        self.used.clear();
        self.used.resize(cols + 1, false);
        loop {
            self.used[j0] = true;
            let i0 = self.p[j0];
            let mut delta = inf;
            let mut j1 = 0usize;
            for j in 1..=cols {
                if !self.used[j] {
                    let cur = self.a[(i0 - 1) * cols + (j - 1)] - self.u[i0] - self.v[j];
                    if cur < self.minv[j] {
                        self.minv[j] = cur;
                        self.way[j] = j0;
                    }
                    if self.minv[j] < delta {
                        delta = self.minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=cols {
                if self.used[j] {
                    self.u[self.p[j]] += delta;
                    self.v[j] -= delta;
                } else {
                    self.minv[j] -= delta;
                }
            }
            j0 = j1;
            if self.p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = self.way[j0];
            self.p[j0] = self.p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
}

/// Member i takes slot i when allowed.
fn sequential(costs: &CostMatrix, limit: f32, out: &mut Vec<Option<usize>>) -> AssignmentOutcome {
    out.clear();
    let mut outcome = AssignmentOutcome::default();
    for m in 0..costs.members {
        if m < costs.slots && slot_allowed(costs.get(m, m), limit) {
            out.push(Some(m));
            outcome.total_cost += f64::from(costs.get(m, m));
        } else {
            out.push(None);
            outcome.unassigned += 1;
        }
    }
    outcome
}

/// Slot costs per character type per role (§3.7.7): soft roles are finite costs (0 ideal),
/// hard roles are infinite costs (the member may not take the slot).
///
/// The book's table (roles Magic / Missile / Melee): archer 1000 / 0 / 1500, elf 1000 / 0 / 0,
/// fighter 2000 / 1000 / 0, mage 0 / 500 / 2000.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoleCosts {
    roles: usize,
    costs: Vec<f32>,
}

impl RoleCosts {
    /// A table with one row per character type, each with one cost per role. Use
    /// `f32::INFINITY` for a hard "may not".
    ///
    /// # Errors
    /// If rows differ in length, or a cost is NaN or negative.
    pub fn new(rows: &[&[f32]]) -> Result<Self, ParamError> {
        let roles = rows.first().map_or(0, |r| r.len());
        let mut costs = Vec::with_capacity(rows.len() * roles);
        for r in rows {
            if r.len() != roles {
                return Err(ParamError::Count {
                    name: "role costs",
                    count: r.len(),
                    expected: "the same number of roles in every row",
                });
            }
            for &c in *r {
                if c.is_nan() || c < 0.0 {
                    return Err(ParamError::Negative { name: "slot cost", value: c });
                }
                costs.push(c);
            }
        }
        Ok(RoleCosts { roles, costs })
    }

    /// Hard roles: each character type lists the roles it may fill (cost 0), all others are
    /// infinite.
    #[must_use]
    pub fn hard(roles: usize, allowed: &[&[SlotRole]]) -> Self {
        let mut costs = vec![f32::INFINITY; allowed.len() * roles];
        for (t, list) in allowed.iter().enumerate() {
            for r in *list {
                if usize::from(r.0) < roles {
                    costs[t * roles + usize::from(r.0)] = 0.0;
                }
            }
        }
        RoleCosts { roles, costs }
    }

    /// The cost of a character of type `kind` in a slot of `role`; unknown types or roles are
    /// infinite (impossible).
    #[must_use]
    #[inline]
    pub fn cost(&self, kind: usize, role: SlotRole) -> f32 {
        let r = usize::from(role.0);
        if r >= self.roles {
            return f32::INFINITY;
        }
        self.costs.get(kind * self.roles + r).copied().unwrap_or(f32::INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hungarian_solves_a_known_3x3_and_rectangles() {
        let c = [[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]];
        let m = CostMatrix::from_fn(3, 3, |i, j| c[i][j]);
        let mut s = SlotAssigner::new();
        let mut out = Vec::new();
        let o = s.optimal(&m, f32::INFINITY, &mut out);
        assert_eq!(o.total_cost, 5.0);
        assert_eq!(out, vec![Some(1), Some(0), Some(2)]);
        // more members than slots: the cheapest two take them
        let m = CostMatrix::from_fn(3, 2, |i, j| c[i][j]);
        let o = s.optimal(&m, f32::INFINITY, &mut out);
        assert_eq!((o.total_cost, o.unassigned), (3.0, 1));
        // a member with no allowed slot is unassigned, the rest still optimal
        let m = CostMatrix::from_fn(2, 2, |i, j| if i == 0 { f32::INFINITY } else { j as f32 });
        let o = s.optimal(&m, f32::INFINITY, &mut out);
        assert_eq!(out, vec![None, Some(0)]);
        assert_eq!(o.unassigned, 1);
        let o = s.optimal(&CostMatrix::from_fn(0, 3, |_, _| 0.0), 1.0, &mut out);
        assert_eq!((o.unassigned, out.len()), (0, 0));
    }

    #[test]
    fn limit_forbids_slots() {
        let m = CostMatrix::from_fn(1, 2, |_, j| [1600.0, 10.0][j]);
        let mut out = Vec::new();
        SlotAssigner::new().greedy(&m, 1600.0, &mut out);
        assert_eq!(out, vec![Some(1)]);
        assert!((ease_of_assignment(m.row(0), 1600.0) - 1.0 / 11.0).abs() < 1e-7);
    }
}
