//! Behaviours that react to other agents: separation, cohesion, alignment (Millington §3.3.13,
//! §3.4.2; Green; Buckland) and collision avoidance (§3.3.14: the naive cone check and the
//! predictive closest-approach form).
//!
//! Each takes the neighbours as an iterator of [`Neighbour`]s, however they were found (a
//! [`Neighbours`](crate::neighbours::Neighbours) query, a grid, a list). Separation and the
//! avoidances apply their own range tests, so extra candidates are harmless to them; cohesion
//! and alignment average every neighbour they are given, so for them the query defines the
//! neighbourhood.
//! None of them allocates.

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::lanes::F32s;
use crate::math::Vector;
use crate::neighbours::Neighbour;
use crate::steering::{Arrive, Seek, VelocityMatch};

/// How separation's repulsion falls off with distance `d` (m) inside the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Falloff {
    /// Millington's inverse-square law: `clamp(k / d², −max_acceleration, max_acceleration)`;
    /// `k` in m³/s². A negative `k` attracts (the clamp keeps its pull as bounded as the push).
    InverseSquare(f32),
    /// Millington's linear law: `max_acceleration · (threshold − d) / threshold`.
    Linear,
    /// Buckland's `1/d`: `clamp(k / d, −max_acceleration, max_acceleration)`; `k` in m²/s².
    Inverse(f32),
}

/// Which neighbours separation answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Gather {
    /// Sum every neighbour's repulsion, then clip the sum to `max_acceleration`.
    #[default]
    Sum,
    /// Only the nearest neighbour.
    Nearest,
}

/// Separation (§3.3.13): accelerate away from neighbours closer than `threshold`.
///
/// ```text
/// for each neighbour at distance d < threshold (d measured between centres, or between
/// surfaces with `radius_aware`: d = |Δ| − r_self − r_other − buffer, Green's form):
///     a += strength(d) · (p − p_other) / |p − p_other|        (away: erratum E8)
/// a = clip(a, max_acceleration)
/// ```
/// A neighbour exactly on the character has no "away" direction and is skipped (non-penetration
/// in the crowd engine separates exact overlaps deterministically).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Separation {
    threshold: f32,
    falloff: Falloff,
    gather: Gather,
    radius_aware: Option<f32>,
}

impl Separation {
    /// Separation within `threshold` m with a falloff law.
    ///
    /// # Errors
    /// If the threshold is negative or a coefficient is not finite.
    pub fn new(threshold: f32, falloff: Falloff) -> Result<Self, ParamError> {
        non_negative("threshold", threshold)?;
        match falloff {
            Falloff::InverseSquare(k) | Falloff::Inverse(k) => {
                crate::error::finite("decay_coefficient", k)?;
            }
            Falloff::Linear => {}
        }
        Ok(Separation { threshold, falloff, gather: Gather::Sum, radius_aware: None })
    }

    /// Answer every neighbour or only the nearest.
    #[must_use]
    pub fn with_gather(mut self, gather: Gather) -> Self {
        self.gather = gather;
        self
    }

    /// Measure gaps between bodies (Green): `d = |Δ| − own_radius − neighbour.radius − buffer`.
    ///
    /// # Errors
    /// If `buffer` is negative or not finite.
    pub fn radius_aware(mut self, buffer: f32) -> Result<Self, ParamError> {
        self.radius_aware = Some(non_negative("buffer", buffer)?);
        Ok(self)
    }

    /// The repulsion from neighbours; `own_radius` is used only when radius-aware.
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let mut sum = SeparationSum::default();
        for n in neighbours {
            self.accumulate(
                &mut sum,
                character.position - n.position,
                own_radius,
                n.radius,
                limits,
            );
        }
        self.finish(&sum, limits)
    }

    /// Adds one neighbour at `away = p − p_other` (m) with radius `other_radius` to a running
    /// sum (the crowd engine's single neighbour pass uses this and [`finish`](Self::finish)).
    #[inline(always)]
    pub(crate) fn accumulate<V: Vector>(
        &self,
        sum: &mut SeparationSum<V>,
        away: V,
        own_radius: f32,
        other_radius: f32,
        limits: &Limits,
    ) {
        let centre_sq = away.length_squared();
        // cheap reject before the square root (centres are never closer than gaps)
        if centre_sq == 0.0
            || (self.radius_aware.is_none() && centre_sq >= self.threshold * self.threshold)
        {
            return;
        }
        let max = limits.max_acceleration();
        let (acts, d, factor) = push(
            self.radius_aware,
            self.falloff,
            self.threshold,
            centre_sq,
            own_radius,
            other_radius,
            max,
        );
        if !acts {
            return;
        }
        let push = away * factor;
        sum.any = 1;
        match self.gather {
            Gather::Sum => sum.sum += push,
            Gather::Nearest => {
                if d < sum.nearest_d {
                    (sum.nearest, sum.nearest_d) = (push, d);
                }
            }
        }
    }

    /// The law for the crowd's data-parallel scan (`None` for [`Gather::Nearest`], which keeps
    /// one neighbour, not a sum): `visit` is called with a [`PushLaw`] whose radius-awareness
    /// and falloff are part of its type, so the scan compiles one branch-free loop per law.
    #[inline]
    pub(crate) fn with_law<R>(
        &self,
        own_radius: f32,
        limits: &Limits,
        visit: impl LawVisitor<R>,
    ) -> Option<R> {
        if self.gather != Gather::Sum {
            return None;
        }
        let (buffer, k) = (self.radius_aware.unwrap_or(0.0), self.falloff.coefficient());
        let (threshold, max) = (self.threshold, limits.max_acceleration());
        let exact_inverse = exact_inverse(threshold);
        let base = Law { threshold, buffer, k, max, own: own_radius, exact_inverse };
        Some(match (self.radius_aware.is_some(), self.falloff) {
            (false, Falloff::Linear) if exact_inverse != 0.0 => {
                visit.visit(base.as_law::<false, LINEAR_EXACT>())
            }
            (false, Falloff::Linear) => visit.visit(base.as_law::<false, LINEAR>()),
            (false, Falloff::InverseSquare(_)) => visit.visit(base.as_law::<false, INV_SQ>()),
            (false, Falloff::Inverse(_)) => visit.visit(base.as_law::<false, INV>()),
            (true, Falloff::Linear) if exact_inverse != 0.0 => {
                visit.visit(base.as_law::<true, LINEAR_EXACT>())
            }
            (true, Falloff::Linear) => visit.visit(base.as_law::<true, LINEAR>()),
            (true, Falloff::InverseSquare(_)) => visit.visit(base.as_law::<true, INV_SQ>()),
            (true, Falloff::Inverse(_)) => visit.visit(base.as_law::<true, INV>()),
        })
    }

    /// The separation sums its pushes ([`Gather::Sum`]) rather than keeping the nearest.
    pub(crate) fn sums(&self) -> bool {
        self.gather == Gather::Sum
    }

    /// The steering of a running sum: `None` when no neighbour was in range.
    #[inline]
    pub(crate) fn finish<V: Vector>(
        &self,
        sum: &SeparationSum<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        if sum.any == 0 {
            return None;
        }
        let linear = match self.gather {
            Gather::Sum => sum.sum,
            Gather::Nearest => sum.nearest,
        };
        Some(SteeringOutput::linear(linear.clamp_length_max(limits.max_acceleration())))
    }
}

/// Separation's running state over a neighbour scan. Plain numbers, no `Option` or `bool`:
/// a per-agent value written field by field and copied whole, whose padding and tags would
/// make the copies wait on stores (store-to-load forwarding fails on mismatched widths).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeparationSum<V: Vector> {
    sum: V,
    /// The nearest push so far (m/s²) and its distance or gap (m), `∞` before the first.
    nearest: V,
    nearest_d: f32,
    /// Non-zero once a neighbour pushed.
    any: u32,
}

impl<V: Vector> Default for SeparationSum<V> {
    fn default() -> Self {
        SeparationSum { sum: V::ZERO, nearest: V::ZERO, nearest_d: f32::INFINITY, any: 0 }
    }
}

impl<V: Vector> SeparationSum<V> {
    /// The summed pushes (m/s²) and whether any neighbour was in range (a summing
    /// separation's result before its clamp).
    pub(crate) fn summed(&self) -> (V, bool) {
        (self.sum, self.any != 0)
    }

    /// A sum gathered elsewhere (the crowd's data-parallel scan): the summed pushes (m/s²) and
    /// whether any neighbour was in range.
    pub(crate) fn from_sum(sum: V, any: bool) -> Self {
        SeparationSum { sum, any: u32::from(any), ..Self::default() }
    }
}

/// `x` limited to `±max`; a zero distance (∞ or NaN strength) gives the full `±max`.
#[inline(always)]
fn clamp_signed(x: f32, max: f32) -> f32 {
    // max/min rather than clamp: the same value for max ≥ 0, as the four-lane law computes it
    if x.is_nan() {
        max
    } else {
        x.max(-max).min(max)
    }
}

/// Separation's push on one neighbour whose centre is `√centre_sq` m away (the one formula
/// of the scalar and the data-parallel scans): whether it acts (not exactly on the character,
/// inside the threshold), the distance or gap `d` (m) and the factor (1/s²) that turns the
/// away vector (m) into the acceleration (m/s²): `strength(d) / |away|`.
#[inline(always)]
fn push(
    radius_aware: Option<f32>,
    falloff: Falloff,
    threshold: f32,
    centre_sq: f32,
    own_radius: f32,
    other_radius: f32,
    max: f32,
) -> (bool, f32, f32) {
    let centre = centre_sq.sqrt();
    let d = match radius_aware {
        Some(buffer) => (centre - own_radius - other_radius - buffer).max(0.0),
        None => centre,
    };
    let strength = match falloff {
        Falloff::InverseSquare(k) => clamp_signed(k / (d * d), max),
        Falloff::Inverse(k) => clamp_signed(k / d, max),
        Falloff::Linear => max * (threshold - d) / threshold,
    };
    let near = radius_aware.is_some() || centre_sq < threshold * threshold;
    (centre_sq != 0.0 && near && d < threshold, d, strength / centre)
}

const LINEAR: u8 = 0;
const INV_SQ: u8 = 1;
const INV: u8 = 2;
/// Linear with a power-of-two threshold (see [`exact_inverse`]).
const LINEAR_EXACT: u8 = 3;

impl Falloff {
    fn coefficient(self) -> f32 {
        match self {
            Falloff::InverseSquare(k) | Falloff::Inverse(k) => k,
            Falloff::Linear => 0.0,
        }
    }
}

/// One separation's law with one agent's radius and limit, four neighbours at a time: the
/// crowd's data-parallel scan.
pub(crate) trait PushLaw: Copy {
    /// The law reads the neighbours' radii (radius-aware).
    const RADII: bool;
    /// A cheap test before [`push`](Self::push): a mask that holds every neighbour the law
    /// may push (centres close enough for the threshold), so a scan can skip the square root
    /// and divisions when no lane holds one.
    fn near<F: F32s>(&self, centre_sq: F, other_radius: F) -> F;
    /// For a lane's worth of neighbours at squared centre distances `centre_sq` (m²) with radii
    /// `other_radius` (m): a mask (all ones where the neighbour is pushed away) and the factor
    /// (1/s²) of each away vector, lane for lane the value of [`push`].
    fn push<F: F32s>(&self, centre_sq: F, other_radius: F) -> (F, F);
    /// The same law for another agent of the group: its radius (m) and limits, as
    /// [`Separation::with_law`] makes it for that agent.
    fn for_agent(self, own_radius: f32, limits: &Limits) -> Self;
}

/// What [`Separation::with_law`] calls with the law.
pub(crate) trait LawVisitor<R> {
    fn visit<L: PushLaw>(self, law: L) -> R;
}

/// A separation law; `RA` (radius-aware) and `F` (the falloff) are constants, so its
/// [`PushLaw::push`] is one branch-free formula.
#[derive(Clone, Copy)]
struct Law<const RA: bool = false, const F: u8 = LINEAR> {
    threshold: f32,
    buffer: f32,
    k: f32,
    max: f32,
    own: f32,
    /// `1 / threshold` when that is exact (a power-of-two threshold), else 0.
    exact_inverse: f32,
}

impl Law {
    fn as_law<const RA: bool, const F: u8>(self) -> Law<RA, F> {
        let Law { threshold, buffer, k, max, own, exact_inverse } = self;
        Law { threshold, buffer, k, max, own, exact_inverse }
    }
}

/// `1 / x` when it is exact (`x` a power of two whose reciprocal is normal), else 0: then
/// `y / x == y · (1 / x)` for every `y`, bit for bit.
fn exact_inverse(x: f32) -> f32 {
    let inverse = 1.0 / x;
    let power_of_two = |v: f32| v.is_normal() && v.to_bits() & 0x007f_ffff == 0;
    if power_of_two(x) && power_of_two(inverse) {
        inverse
    } else {
        0.0
    }
}

impl<const RA: bool, const F: u8> PushLaw for Law<RA, F> {
    const RADII: bool = RA;

    #[inline(always)]
    fn near<X: F32s>(&self, centre_sq: X, other_radius: X) -> X {
        let s = X::splat;
        if RA {
            // d < threshold needs |Δ| < threshold + own + other + buffer (a hair wider, so
            // rounding never drops a lane the exact test keeps)
            let reach = (s(self.threshold + self.own + self.buffer) + other_radius) * s(1.0001);
            centre_sq.lt(reach * reach)
        } else {
            centre_sq.lt(s(self.threshold * self.threshold))
        }
    }

    /// [`push`] on lanes, operation for operation (IEEE square root and division, the
    /// same order), so each lane equals the scalar value.
    #[inline(always)]
    fn push<X: F32s>(&self, centre_sq: X, other_radius: X) -> (X, X) {
        let s = X::splat;
        let (threshold, max) = (s(self.threshold), s(self.max));
        let centre = centre_sq.sqrt();
        let d = if RA {
            (centre - s(self.own) - other_radius - s(self.buffer)).fast_max(X::ZERO)
        } else {
            centre
        };
        // the non-NaN lanes as `x.max(-max).min(max)`; NaN lanes get `max` (see clamp_signed)
        let clamp = |x: X| x.is_nan().select(max, x.fast_max(-max).fast_min(max));
        let strength = match F {
            LINEAR => max * (threshold - d) / threshold,
            // ÷ a power of two is × its reciprocal exactly: one division fewer per lane
            LINEAR_EXACT => max * (threshold - d) * s(self.exact_inverse),
            INV_SQ => clamp(s(self.k) / (d * d)),
            _ => clamp(s(self.k) / d),
        };
        let mut acts = centre_sq.ne(X::ZERO) & d.lt(threshold);
        if !RA {
            acts = acts & centre_sq.lt(s(self.threshold * self.threshold));
        }
        (acts, strength / centre)
    }

    #[inline(always)]
    fn for_agent(self, own_radius: f32, limits: &Limits) -> Self {
        Law { own: own_radius, max: limits.max_acceleration(), ..self }
    }
}

/// How cohesion approaches the neighbours' centre of mass.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Cohesion {
    /// Millington: arrive at the centre of mass.
    Arrive(Arrive),
    /// Buckland: seek the centre of mass.
    Seek(Seek),
}

impl Cohesion {
    /// The neighbours' centre of mass, or `None` without neighbours.
    #[must_use]
    pub fn center<'a, V: Vector>(
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
    ) -> Option<V> {
        mean(neighbours.into_iter().map(|x| x.position))
    }

    /// The acceleration toward the centre of mass; `None` without neighbours (Buckland's zero;
    /// flocking adds wander so a lone agent keeps moving).
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        self.steer_to(character, Self::center(neighbours)?, limits)
    }

    /// The acceleration toward a known centre of mass.
    #[inline]
    pub(crate) fn steer_to<V: Vector>(
        &self,
        character: &Kinematic<V>,
        center: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        match self {
            Cohesion::Arrive(a) => a.steer(character, center, limits),
            Cohesion::Seek(s) => s.steer(character, center, limits),
        }
    }
}

/// Alignment: match the neighbours' motion.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Alignment {
    /// Millington: velocity matching to the neighbours' mean velocity.
    Velocity(VelocityMatch),
    /// Buckland and Green: steer the heading toward the neighbours' mean heading,
    /// `a = (mean(v̂ᵢ) − v̂) · max_speed / time_to_target`, clipped; speed is left alone.
    Heading {
        /// Response time (s), > 0.
        time_to_target: f32,
    },
}

impl Alignment {
    /// Buckland's heading alignment.
    ///
    /// # Errors
    /// If `time_to_target` is not finite and positive.
    pub fn heading(time_to_target: f32) -> Result<Self, ParamError> {
        Ok(Alignment::Heading { time_to_target: positive("time_to_target", time_to_target)? })
    }

    /// The acceleration that aligns with the neighbours; `None` without neighbours.
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let heading = self.uses_headings();
        let each =
            |x: &Neighbour<V>| if heading { x.velocity.normalize_or_zero() } else { x.velocity };
        let average = mean(neighbours.into_iter().map(each))?;
        self.steer_toward_mean(character, average, limits)
    }

    /// True for the heading form (it averages unit velocities).
    #[inline]
    pub(crate) fn uses_headings(&self) -> bool {
        matches!(self, Alignment::Heading { .. })
    }

    /// The alignment toward a mean already computed (by a caller that gathers its neighbours in
    /// one pass): the mean velocity for [`Alignment::Velocity`], the mean unit heading
    /// `mean(v̂ᵢ)` for [`Alignment::Heading`].
    #[must_use]
    #[inline]
    pub fn steer_toward_mean<V: Vector>(
        &self,
        character: &Kinematic<V>,
        mean: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        match self {
            Alignment::Velocity(vm) => vm.steer(character, mean, limits),
            Alignment::Heading { time_to_target } => {
                let own = character.velocity.normalize_or_zero();
                let a = (mean - own) * (limits.max_speed() / time_to_target);
                Some(SteeringOutput::linear(a.clamp_length_max(limits.max_acceleration())))
            }
        }
    }
}

/// The closest approach of two constant-velocity points: `Δp = p_other − p`, `Δv = v_other − v`,
/// `t = −(Δp·Δv) / |Δv|²` (erratum E9: the book drops the minus), separation at that time
/// `|Δp + Δv·t|` (exact; erratum E10's `distance − speed·t` is not). Returns `(t, separation)`;
/// with no relative motion, `(0, |Δp|)`.
#[must_use]
#[inline]
pub fn closest_approach<V: Vector>(dp: V, dv: V) -> (f32, f32) {
    let speed2 = dv.length_squared();
    if speed2 == 0.0 {
        return (0.0, dp.length());
    }
    let t = -dp.dot(dv) / speed2;
    (t, (dp + dv * t).length())
}

/// Predictive collision avoidance (§3.3.14).
///
/// For each neighbour, find the time of closest approach `t` (s) and the separation then
/// ([`closest_approach`]); with `reach` = the two radii plus `margin` (m), a neighbour is
/// *overlapping* when its distance `|Δp| < reach` now, and a *future collision* when it is not
/// but `0 < t ≤ horizon` and the separation at `t` is below `reach`. React to one neighbour only,
/// evading its predicted relative position `Δp + Δv·t`, or the current `Δp` when it is
/// overlapping or on an exact hit (separation 0):
/// `linear = −normalize(relative) · max_acceleration` (erratum E11: the book steers toward it).
///
/// Which one:
/// 1. Overlapping neighbours come before every future collision, whatever `horizon` says of
///    them. Among them the one whose closest approach comes soonest, the smallest `t > 0` (s),
///    wins; those with no positive `t` (receding, or without relative motion) come after all
///    that have one.
/// 2. Without an overlapping neighbour, the future collision with the smallest `t` wins.
/// 3. Equal keys (including all the overlapping neighbours with no positive `t`) go to the one
///    closing fastest, `−(Δp·Δv)/|Δp|` (m/s; `|Δv|` when `Δp = 0`), then to the first listed.
///
/// When every neighbour listed overlaps and at least one of them approaches, this is the book's
/// choice: its pseudo-code evades the smallest positive time of closest approach and skips the
/// others (an exact tie in `t` it gives to the first listed). It departs from the book in two
/// places: when every overlapping neighbour recedes the book does nothing about them while this
/// still evades the one receding slowest, and a future collision whose `t` is sooner than an
/// overlapping neighbour's is not preferred to it here, where the book would take it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CollisionAvoidance {
    margin: f32,
    horizon: f32,
}

impl CollisionAvoidance {
    /// Avoid approaches closer than the sum of radii plus `margin` (m) within `horizon` s.
    ///
    /// # Errors
    /// If `margin` is negative or `horizon` is not positive (or either is not finite).
    pub fn new(margin: f32, horizon: f32) -> Result<Self, ParamError> {
        Ok(CollisionAvoidance {
            margin: non_negative("margin", margin)?,
            horizon: positive("horizon", horizon)?,
        })
    }

    /// The acceleration away from the earliest predicted collision, or `None` when there is none.
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        // (future, time, closing speed, relative position) of the neighbour to evade: overlapping
        // ones (`future` false) first, then by time, then by closing speed
        let mut first: Option<(bool, f32, f32, V)> = None;
        for n in neighbours {
            let dp = n.position - character.position;
            let dv = n.velocity - character.velocity;
            let reach = own_radius + n.radius + self.margin;
            let now = dp.length();
            let (t, separation) = closest_approach(dp, dv);
            let (future, time, relative) = if now < reach {
                // already too close: evade the present position; the soonest closest approach
                // first, those with none ahead last
                (false, if t > 0.0 { t } else { f32::INFINITY }, dp)
            } else if t > 0.0 && t <= self.horizon && separation < reach {
                (true, t, if separation > 0.0 { dp + dv * t } else { dp })
            } else {
                continue;
            };
            let closing = if now > 0.0 { -dp.dot(dv) / now } else { dv.length() };
            if first.is_none_or(|(later, best, fastest, _)| {
                if future == later {
                    time < best || (time == best && closing > fastest)
                } else {
                    later
                }
            }) {
                first = Some((future, time, closing, relative));
            }
        }
        let (_, _, _, relative) = first?;
        full_acceleration(-relative.normalize_or_zero(), limits)
    }
}

/// The naive cone check (§3.3.14, Fig 3.20): flee the neighbours inside a cone ahead of the
/// character's motion, whether or not they will really collide. Kept to show its false
/// positives (a neighbour ahead moving away) and false negatives (one from the side on a
/// collision course); use [`CollisionAvoidance`] instead.
///
/// A neighbour within `range` is in the cone when `cos∠(v, Δp) > cos_half_angle`; the character
/// flees the average position of those in the cone at full acceleration.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConeCheck {
    cos_half_angle: f32,
    range: f32,
}

impl ConeCheck {
    /// A cone of `half_angle` rad ahead, `range` m deep.
    ///
    /// # Errors
    /// If `half_angle` is outside [0, π] or `range` is negative or not finite.
    pub fn new(half_angle: f32, range: f32) -> Result<Self, ParamError> {
        crate::error::finite("half_angle", half_angle)?;
        if !(0.0..=core::f32::consts::PI).contains(&half_angle) {
            return Err(ParamError::OutOfRange {
                name: "half_angle",
                value: half_angle,
                range: "in [0, π]",
            });
        }
        Ok(ConeCheck { cos_half_angle: half_angle.cos(), range: non_negative("range", range)? })
    }

    /// Flee from the neighbours in the cone, or `None` when it is empty or the character is still.
    #[must_use]
    pub fn steer<'a, V: Vector>(
        &self,
        character: &Kinematic<V>,
        neighbours: impl IntoIterator<Item = &'a Neighbour<V>>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let heading = character.velocity.normalize_or_zero();
        if heading == V::ZERO {
            return None;
        }
        let in_cone = |n: &&Neighbour<V>| {
            let dp = n.position - character.position;
            let d = dp.length();
            d > 0.0 && d <= self.range && dp.dot(heading) > self.cos_half_angle * d
        };
        let centre = mean(neighbours.into_iter().filter(in_cone).map(|n| n.position))?;
        full_acceleration((character.position - centre).normalize_or_zero(), limits)
    }
}

/// The mean of `values`, summed in order; `None` when there are none.
fn mean<V: Vector>(values: impl IntoIterator<Item = V>) -> Option<V> {
    let (sum, n) = values.into_iter().fold((V::ZERO, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f32)
}

/// Full acceleration along the unit vector `direction`; `None` when it is zero (no direction).
fn full_acceleration<V: Vector>(direction: V, limits: &Limits) -> Option<SteeringOutput<V>> {
    (direction != V::ZERO).then(|| SteeringOutput::linear(direction * limits.max_acceleration()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rng;

    struct Check {
        radius_aware: Option<f32>,
        falloff: Falloff,
        threshold: f32,
        own: f32,
        max: f32,
    }

    impl LawVisitor<()> for &Check {
        fn visit<L: PushLaw>(self, law: L) {
            self.lanes::<L, wide::f32x4>(law);
            #[cfg(target_arch = "x86_64")]
            if crate::lanes::Avx2::available() {
                self.lanes::<L, crate::lanes::Avx2>(law);
            }
        }
    }

    impl Check {
        /// The law on the lanes of `F`, lane for lane against the scalar [`push`].
        fn lanes<L: PushLaw, F: F32s>(&self, law: L) {
            let mut rng = Rng::new(7);
            for _ in 0..1000 {
                // distances from 0 to past the reach, exact zeros and touching bodies included
                let mut c2 = [0.0f32; 8];
                let mut other = [0.0f32; 8];
                for l in 0..8 {
                    let d = match rng.next_u32() % 5 {
                        0 => 0.0,
                        1 => self.own + 0.3,
                        _ => rng.uniform() * 2.5 * self.threshold,
                    };
                    c2[l] = d * d;
                    other[l] = rng.uniform() * 0.5;
                }
                let (mut mask, mut factor, mut near) = ([0.0f32; 8], [0.0f32; 8], [0.0f32; 8]);
                for h in (0..8).step_by(F::WIDTH) {
                    let (c2, other) = (F::load(&c2[h..]), F::load(&other[h..]));
                    let (m, f) = law.push(c2, other);
                    m.store(&mut mask[h..]);
                    f.store(&mut factor[h..]);
                    law.near(c2, other).store(&mut near[h..]);
                }
                for l in 0..8 {
                    let (acts, _, f) = push(
                        self.radius_aware,
                        self.falloff,
                        self.threshold,
                        c2[l],
                        self.own,
                        other[l],
                        self.max,
                    );
                    assert_eq!(mask[l].to_bits() != 0, acts, "lane mask at {}", c2[l]);
                    if acts {
                        assert_eq!(factor[l].to_bits(), f.to_bits(), "factor at {}", c2[l]);
                        assert!(near[l].to_bits() != 0, "near drops a pushed lane");
                    }
                }
            }
        }
    }

    #[test]
    fn only_powers_of_two_have_an_exact_inverse() {
        for (x, inverse) in [(0.5, 2.0), (1.0, 1.0), (4.0, 0.25), (0.8, 0.0), (3.0, 0.0)] {
            assert_eq!(exact_inverse(x), inverse, "{x}");
        }
        // a reciprocal that would be subnormal or infinite is not taken
        assert_eq!(exact_inverse(2.0f32.powi(127)), 0.0);
        assert_eq!(exact_inverse(f32::MIN_POSITIVE / 2.0), 0.0);
        assert_eq!(exact_inverse(0.0), 0.0);
    }

    /// The four-lane law of the crowd's scan gives, lane for lane, exactly the scalar law's
    /// mask and factor, and its cheap `near` test never drops a lane the law pushes.
    #[test]
    fn the_four_lane_law_equals_the_scalar_law_bit_for_bit() {
        let limits = Limits::new(2.0, 3.0, 4.0, 20.0).unwrap();
        // 0.5 and 2 take the linear law's exact reciprocal, 0.8 its division
        let falloffs = [Falloff::Linear, Falloff::InverseSquare(0.4), Falloff::Inverse(-0.7)];
        for (threshold, falloff) in
            [0.8, 0.5, 2.0].into_iter().flat_map(|t| falloffs.map(|f| (t, f)))
        {
            for aware in [None, Some(0.1)] {
                let mut sep = Separation::new(threshold, falloff).unwrap();
                if let Some(b) = aware {
                    sep = sep.radius_aware(b).unwrap();
                }
                let check = Check { radius_aware: aware, falloff, threshold, own: 0.25, max: 3.0 };
                assert!(sep.with_law(0.25, &limits, &check).is_some());
            }
        }
        let nearest = Separation::new(1.0, Falloff::Linear).unwrap().with_gather(Gather::Nearest);
        let check = Check {
            radius_aware: None,
            falloff: Falloff::Linear,
            threshold: 1.0,
            own: 0.0,
            max: 3.0,
        };
        assert!(nearest.with_law(0.0, &limits, &check).is_none(), "nearest keeps one, no sum");
    }
}
