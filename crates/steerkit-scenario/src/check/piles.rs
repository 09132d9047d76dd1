//! Piles: at most [`MAX_PILE`] bodies of one size class in one cell, however the spawns, lists
//! and groups placed them.

use super::values::problem;
use super::{Result, MAX_PILE};
use crate::dim::Dim;
use crate::model::GroupPlan;
use crate::spec::ScenarioSpec;
use std::collections::HashMap;

/// Refuses more than [`MAX_PILE`] bodies of one size class in one cell, whatever placed them:
/// bodies of radius in `[ρ, 2ρ)` (ρ a power of two; below 1 mm counted as 1 mm) share cells
/// of side 4ρ. Classes are kept apart so that many small bodies beside a large one are no
/// pile.
pub(super) fn piles<V: Dim>(spec: &ScenarioSpec, groups: &[GroupPlan<V>]) -> Result<()> {
    let total: usize = groups.iter().map(|g| g.agents.len()).sum();
    let mut cells: HashMap<(i32, [i64; 3]), u32> = HashMap::with_capacity(total.min(1 << 20));
    for (gi, g) in groups.iter().enumerate() {
        let class = g.radius.max(1e-3).log2().floor();
        let side = 4.0 * class.exp2();
        for (a, p) in g.agents.iter().enumerate() {
            let mut key = [0i64; 3];
            for (i, k) in key.iter_mut().enumerate().take(V::DIMS) {
                *k = (p.position.axis(i) / side).floor() as i64;
            }
            let count = cells.entry((class as i32, key)).or_insert(0);
            *count += 1;
            if *count > MAX_PILE {
                let listed = spec.groups.get(gi).is_some_and(|s| s.agents.is_some());
                let field = if listed {
                    format!("groups[{gi}].agents[{a}].position")
                } else {
                    format!("groups[{gi}].spawn")
                };
                let (square, unit) = if V::DIMS == 2 { ("square", "m") } else { ("cube", "m") };
                return Err(problem(
                    field,
                    format!(
                        "more than {MAX_PILE} bodies of radius about {} m are placed within one \
                         {square} of side {side} {unit} (near {}); at most {MAX_PILE}: a pile \
                         that deep cannot spread out and costs the square of its size every \
                         step; spread them (a larger ring, line, grid or region) or use fewer",
                        g.radius,
                        fmt_point(p.position),
                    ),
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn fmt_point<V: Dim>(p: V) -> String {
    let parts: Vec<String> = (0..V::DIMS).map(|i| format!("{}", p.axis(i))).collect();
    format!("[{}]", parts.join(", "))
}
