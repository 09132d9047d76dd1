//! Combining behaviours (Millington §3.4.2–3.4.3; Green and Buckland's combination methods):
//! weighted blending, priority groups, the weighted truncated running sum and prioritised
//! dithering; and Green's layering of the rules of movement ([`Layering`], [`clip_to_walls`]).
//!
//! The combiners take the members' outputs as iterators, so members are evaluated lazily: a
//! priority group or a running sum that stops early never computes the behaviours after it.
//! `None` from a member counts as zero. Each combiner has an `_observed` form that reports what
//! every member actually contributed (after weighting and truncation), for debugging and replays.

mod layering;

use crate::error::{non_negative, ParamError};
use crate::kinematic::{truncated_running_sum, weighted_blend, Limits, SteeringOutput};
use crate::math::Rng;
use crate::math::Vector;

pub use layering::{clip_to_walls, Layering, WALL_SKIN};

/// Weighted blending (§3.4.2): `Σ wᵢ·sᵢ`, then the linear part truncated to `max_acceleration`
/// (its length, not component-wise: erratum E12) and the angular part clamped symmetrically to
/// `±max_angular_acceleration` (gdx-ai clamps one side only). Weights are free (they need not sum
/// to 1); a `None` member adds nothing.
#[must_use]
pub fn blend<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
) -> SteeringOutput<V> {
    blend_observed(members, limits, |_, _| {})
}

/// [`blend`], calling `observe(index, weighted output)` for every member.
pub fn blend_observed<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
    observe: impl FnMut(usize, SteeringOutput<V>),
) -> SteeringOutput<V> {
    weighted_blend(members, limits, observe)
}

/// The threshold below which a priority group counts as having nothing to say.
///
/// Compared in squared form (the book's optional speed-up): `|linear|² > ε²` or
/// `|angular| > ε`, with no square root. Build it from `ε` ([`Epsilon::new`]) or from `ε²`
/// ([`Epsilon::from_squared`]); both compare identically.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Epsilon {
    epsilon: f32,
    squared: f32,
}

impl Epsilon {
    /// A threshold on `|linear|` and `|angular|` (m/s², rad/s²).
    ///
    /// # Errors
    /// If it is negative or not finite.
    pub fn new(epsilon: f32) -> Result<Self, ParamError> {
        let epsilon = non_negative("epsilon", epsilon)?;
        Ok(Epsilon { epsilon, squared: epsilon * epsilon })
    }

    /// A threshold given as a squared magnitude `ε²` ((m/s²)²), for callers that think in
    /// squared lengths.
    ///
    /// # Errors
    /// If it is negative or not finite.
    pub fn from_squared(squared: f32) -> Result<Self, ParamError> {
        let squared = non_negative("epsilon_squared", squared)?;
        Ok(Epsilon { epsilon: squared.sqrt(), squared })
    }

    /// The threshold `ε`.
    #[must_use]
    pub fn get(self) -> f32 {
        self.epsilon
    }

    /// The squared threshold `ε²`.
    #[must_use]
    pub fn squared(self) -> f32 {
        self.squared
    }

    /// True when either channel exceeds the threshold (strictly: a group exactly at `ε` is
    /// small). The linear test is `|linear|² > ε²`, without a square root.
    #[must_use]
    #[inline]
    pub fn exceeded_by<V: Vector>(self, s: &SteeringOutput<V>) -> bool {
        s.linear.length_squared() > self.squared || V::angular_magnitude(s.angular) > self.epsilon
    }
}

/// Priority arbitration (§3.4.3): the first group whose output exceeds `epsilon` wins; when none
/// does, the **last** group's output is returned (the book's fall-through, usually a wander that
/// breaks equilibria). Groups are usually [`blend`]s; they are evaluated lazily, in order. An
/// empty iterator gives zero.
#[must_use]
pub fn prioritize<V: Vector>(
    groups: impl IntoIterator<Item = SteeringOutput<V>>,
    epsilon: Epsilon,
) -> SteeringOutput<V> {
    prioritize_observed(groups, epsilon).0
}

/// [`prioritize`], also returning the index of the group that was used (`None` when empty): that
/// group contributed the whole output and every other group nothing. Inside a group,
/// [`blend_observed`] reports each member.
#[must_use]
pub fn prioritize_observed<V: Vector>(
    groups: impl IntoIterator<Item = SteeringOutput<V>>,
    epsilon: Epsilon,
) -> (SteeringOutput<V>, Option<usize>) {
    let mut last = (SteeringOutput::ZERO, None);
    for (i, g) in groups.into_iter().enumerate() {
        if epsilon.exceeded_by(&g) {
            return (g, Some(i));
        }
        last = (g, Some(i));
    }
    last
}

/// Variable priorities (§3.4.3): each group reports a priority with its output this call; groups
/// are taken in decreasing priority (ties keep their order) and then arbitrated as
/// [`prioritize`]. `order` is scratch space reused between calls (no allocation once grown).
pub fn prioritize_variable<V: Vector>(
    groups: &[(f32, SteeringOutput<V>)],
    epsilon: Epsilon,
    order: &mut Vec<usize>,
) -> (SteeringOutput<V>, Option<usize>) {
    order.clear();
    order.extend(0..groups.len());
    sort_by_priority(order, |i| groups[i].0);
    let (s, k) = prioritize_observed(order.iter().map(|&i| groups[i].1), epsilon);
    (s, k.map(|k| order[k]))
}

/// Variable priorities with lazy groups: the priorities are requested first
/// (`priorities[i]` for group `i`), the groups sorted by decreasing priority (ties keep their
/// order; a NaN priority counts as the lowest), and only then are groups evaluated, by
/// `group(i)`, until one exceeds `epsilon`: the book's order of work, so groups after the winner
/// cost nothing. Returns the output and the index of the group used.
pub fn prioritize_by<V: Vector>(
    priorities: &[f32],
    mut group: impl FnMut(usize) -> SteeringOutput<V>,
    epsilon: Epsilon,
    order: &mut Vec<usize>,
) -> (SteeringOutput<V>, Option<usize>) {
    order.clear();
    order.extend(0..priorities.len());
    sort_by_priority(order, |i| priorities[i]);
    let (s, k) = prioritize_observed(order.iter().map(|&i| group(i)), epsilon);
    (s, k.map(|k| order[k]))
}

/// Decreasing priority, ties by index (an unstable sort with a total key: no allocation).
fn sort_by_priority(order: &mut [usize], priority: impl Fn(usize) -> f32) {
    let key = |i: usize| {
        let p = priority(i);
        if p.is_nan() {
            f32::NEG_INFINITY
        } else {
            p
        }
    };
    order.sort_unstable_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
}

/// Buckland's weighted truncated running sum with prioritisation: members in priority order
/// spend a budget of `max_acceleration` (and `max_angular_acceleration` for the angular part);
/// each adds `wᵢ·sᵢ` truncated to what is left, and evaluation stops when the budget is spent.
/// High-priority members are never diluted by low-priority ones, and the result is within the
/// limits by construction.
#[must_use]
pub fn running_sum<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
) -> SteeringOutput<V> {
    running_sum_observed(members, limits, |_, _| {})
}

/// [`running_sum`], calling `observe(index, what it added)` for every member evaluated.
pub fn running_sum_observed<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
    observe: impl FnMut(usize, SteeringOutput<V>),
) -> SteeringOutput<V> {
    truncated_running_sum(members, limits, observe)
}

/// Prioritised dithering (Green; Buckland): members in priority order, each considered with its
/// probability `pᵢ`; the first considered member with a non-negligible output wins, scaled by
/// `wᵢ / pᵢ` so its average influence matches its weight, then truncated to the limits. Buckland's
/// listing tests `rand > p` (erratum B-E18); the member is considered when `rand < p`. Members are
/// evaluated lazily: only the considered ones are computed. Returns zero when none speaks, and
/// the index of the member that contributed the output (every other member contributed nothing).
pub fn dither<V: Vector, F>(
    members: impl IntoIterator<Item = (f32, f32, F)>,
    epsilon: Epsilon,
    limits: &Limits,
    rng: &mut Rng,
) -> (SteeringOutput<V>, Option<usize>)
where
    F: FnOnce() -> Option<SteeringOutput<V>>,
{
    for (i, (weight, probability, member)) in members.into_iter().enumerate() {
        if !dither_considers(probability, rng) {
            continue;
        }
        if let Some(s) = dither_output(member(), weight, probability, epsilon, limits) {
            return (s, Some(i));
        }
    }
    (SteeringOutput::ZERO, None)
}

/// Dithering's draw: a member of probability `p` is considered when `uniform < p` (one draw per
/// member with `p > 0`).
#[inline]
pub(crate) fn dither_considers(probability: f32, rng: &mut Rng) -> bool {
    probability > 0.0 && rng.uniform() < probability
}

/// Dithering's output of a considered member: `s · w / min(p, 1)` truncated to the limits, or
/// `None` when `s` does not exceed `epsilon` (the next member is then considered).
#[inline]
pub(crate) fn dither_output<V: Vector>(
    s: Option<SteeringOutput<V>>,
    weight: f32,
    probability: f32,
    epsilon: Epsilon,
    limits: &Limits,
) -> Option<SteeringOutput<V>> {
    let s = s.filter(|s| epsilon.exceeded_by(s))?;
    let scaled = s * (weight / probability.min(1.0));
    Some(scaled.clamped(limits.max_acceleration(), limits.max_angular_acceleration()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn l() -> Limits {
        Limits::new(10.0, 10.0, 5.0, 2.0).unwrap()
    }

    fn out(x: f32, y: f32, a: f32) -> Option<SteeringOutput> {
        Some(SteeringOutput { linear: Vec2::new(x, y), angular: a })
    }

    #[test]
    fn blend_truncates_length_not_components() {
        // erratum E12: the book writes max(linear, maxAcceleration)
        let s = blend([(1.0, out(8.0, 8.0, 0.0)), (1.0, None)], &l());
        assert!((s.linear.length() - 10.0).abs() < 1e-5);
        assert!((s.linear.x - s.linear.y).abs() < 1e-6, "direction kept");
    }

    #[test]
    fn blend_clamps_angular_on_both_sides() {
        assert_eq!(blend([(1.0, out(0.0, 0.0, -7.0))], &l()).angular, -2.0);
        assert_eq!(blend([(1.0, out(0.0, 0.0, 7.0))], &l()).angular, 2.0);
    }

    #[test]
    fn blend_weights_and_observes() {
        let mut seen = vec![];
        let s =
            blend_observed([(0.5, out(2.0, 0.0, 0.0)), (2.0, out(0.0, 1.0, 0.5))], &l(), |i, p| {
                seen.push((i, p))
            });
        assert_eq!(s.linear, Vec2::new(1.0, 2.0));
        assert_eq!(s.angular, 1.0);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].1.linear, Vec2::new(0.0, 2.0));
    }

    #[test]
    fn priority_skips_small_groups_and_falls_through_to_last() {
        let e = Epsilon::new(0.1).unwrap();
        let groups = [
            out(0.05, 0.0, 0.0).unwrap(),
            out(3.0, 0.0, 0.0).unwrap(),
            out(9.0, 0.0, 0.0).unwrap(),
        ];
        assert_eq!(prioritize_observed(groups, e), (groups[1], Some(1)));
        let quiet = [out(0.01, 0.0, 0.0).unwrap(), out(0.0, 0.02, 0.0).unwrap()];
        assert_eq!(
            prioritize_observed(quiet, e),
            (quiet[1], Some(1)),
            "last group when all are small"
        );
        // an angular request counts too
        let turning = [out(0.0, 0.0, 0.5).unwrap(), out(5.0, 0.0, 0.0).unwrap()];
        assert_eq!(prioritize_observed(turning, e).1, Some(0));
        // lazy: groups after the winner are never evaluated
        let mut evaluated = 0;
        let _ = prioritize(
            (0..5).map(|i| {
                evaluated += 1;
                out(i as f32, 0.0, 0.0).unwrap()
            }),
            e,
        );
        assert_eq!(evaluated, 2);
    }

    #[test]
    fn variable_priorities_sort_each_call() {
        let e = Epsilon::new(0.1).unwrap();
        let mut order = vec![];
        let groups = [(1.0, out(1.0, 0.0, 0.0).unwrap()), (5.0, out(0.0, 1.0, 0.0).unwrap())];
        assert_eq!(prioritize_variable(&groups, e, &mut order).1, Some(1));
        let groups = [(6.0, out(1.0, 0.0, 0.0).unwrap()), (5.0, out(0.0, 1.0, 0.0).unwrap())];
        assert_eq!(prioritize_variable(&groups, e, &mut order).1, Some(0));
    }

    #[test]
    fn running_sum_spends_budget_in_priority_order() {
        let mut added = vec![];
        let s = running_sum_observed(
            [(1.0, out(6.0, 0.0, 0.0)), (1.0, out(0.0, 6.0, 0.0)), (1.0, out(-100.0, 0.0, 0.0))],
            &l(),
            |i, p| added.push((i, p.linear)),
        );
        // first member in full (6); the second truncated to the 4 left of the budget; the sum is
        // then (6, 4), |·| = 7.211, so the third gets the 2.789 that remain
        assert_eq!(added[0].1, Vec2::new(6.0, 0.0));
        assert!((added[1].1 - Vec2::new(0.0, 4.0)).length() < 1e-6);
        assert!((added[2].1 - Vec2::new(-(10.0 - 52.0f32.sqrt()), 0.0)).length() < 1e-5);
        assert!(s.linear.length() <= 10.0 + 1e-5);
        // once both budgets are spent, later members are not evaluated
        let mut evaluated = 0;
        let spent = running_sum(
            (0..4).map(|_| {
                evaluated += 1;
                (1.0, out(10.0, 0.0, 2.0))
            }),
            &l(),
        );
        assert_eq!(evaluated, 1, "the first spends both budgets");
        assert_eq!(spent.linear, Vec2::new(10.0, 0.0));
    }

    #[test]
    fn dithering_uses_probability_below_threshold_and_compensates() {
        // erratum B-E18: the member is considered when rand < p
        let e = Epsilon::new(0.01).unwrap();
        let mut rng = Rng::new(5);
        let (mut first, n) = (0, 20_000);
        let mut mean = Vec2::ZERO;
        for _ in 0..n {
            let members = [
                (
                    1.0,
                    0.2,
                    Box::new(|| out(1.0, 0.0, 0.0)) as Box<dyn FnOnce() -> Option<SteeringOutput>>,
                ),
                (1.0, 1.0, Box::new(|| out(0.0, 1.0, 0.0))),
            ];
            let (s, i) = dither(members, e, &Limits::new(10.0, 100.0, 1.0, 1.0).unwrap(), &mut rng);
            if i == Some(0) {
                first += 1;
                assert_eq!(s.linear, Vec2::new(5.0, 0.0), "w/p compensation");
            }
            mean += s.linear;
        }
        let share = first as f32 / n as f32;
        assert!((share - 0.2).abs() < 0.01, "considered {share} of the time");
        // on average the first member contributes its weight (1.0 · 0.2 · 5 = 1)
        assert!((mean.x / n as f32 - 1.0).abs() < 0.05);
    }
}
