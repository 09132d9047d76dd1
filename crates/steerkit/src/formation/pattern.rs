//! Formation patterns (Millington §3.7.1–3.7.2, §3.7.5, §3.7.9): where each slot sits relative
//! to the anchor, as a function of the slot count and (for plays) of time.
//!
//! Slot locations are in the **anchor's local frame**: +x forward, +y to the anchor's left, the
//! slot orientation relative to the anchor's (0 = facing the anchor's heading). This is the frame
//! of [`OffsetPursuit`](crate::steering::OffsetPursuit) and Green's "leader space".

use crate::error::{at_least_one, non_negative, positive, ParamError};
use crate::kinematic::Static;
use crate::math::{as_vector, orientation_of, wrap_angle};
use core::f32::consts::{FRAC_1_SQRT_2, PI, TAU};
use glam::Vec2;

/// A slot's role (§3.7.7): an index into a [`RoleCosts`](super::RoleCosts) table's columns.
/// Patterns without roles give every slot role 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlotRole(pub u8);

/// Below this length the mean of the occupied slots' facing vectors has no direction (an
/// outward-facing circle) and the drift orientation is 0.
pub const DRIFT_ORIENTATION_EPSILON: f32 = 1e-4;

/// A formation pattern (§3.7.5): slot locations relative to the anchor.
///
/// Unlike the book's interface, the slot count (and the play time) are explicit arguments, so
/// nothing depends on calling `getDriftOffset` first (hidden state, erratum of the listing).
pub trait FormationPattern {
    /// How many slots the pattern lays out for `members` members: the pattern's own count for a
    /// fixed pattern, `members` for a scalable one.
    fn slot_count(&self, members: usize) -> usize;

    /// Whether `members` members fit (the book's `supportsSlots`).
    fn supports_slots(&self, members: usize) -> bool;

    /// Slot `slot`'s location relative to the anchor when the pattern has `slot_count` slots,
    /// `time` seconds after the pattern started (ignored by static patterns). Out-of-range slots
    /// give the anchor's own location (zero offset).
    fn slot_location(&self, slot: usize, slot_count: usize, time: f32) -> Static;

    /// The slot's velocity relative to the anchor frame (m/s): non-zero only for dynamic slots.
    fn slot_velocity(&self, _slot: usize, _slot_count: usize, _time: f32) -> Vec2 {
        Vec2::ZERO
    }

    /// The slot's role; 0 unless the pattern carries roles.
    fn slot_role(&self, _slot: usize, _slot_count: usize) -> SlotRole {
        SlotRole(0)
    }

    /// True when slots move with time (plays): the manager then recomputes the drift offset every
    /// update instead of caching it.
    fn is_dynamic(&self) -> bool {
        false
    }

    /// The drift offset (§3.7.4): the centre of mass of the **occupied** slots and their mean
    /// orientation, both pattern-local.
    ///
    /// ```text
    /// p_c = (1/n)·Σ p_s          over the n occupied slots
    /// v_c = (1/n)·Σ as_vector(ω_s);  ω_c = orientation_of(v_c), or 0 when |v_c| < 1e-4
    /// ```
    /// Orientations are averaged as **vectors** (the circle listing averages scalars, which gives
    /// ≈ π for an outward-facing circle). No occupied slot gives the zero offset.
    fn drift_offset(
        &self,
        occupied: impl IntoIterator<Item = usize>,
        slot_count: usize,
        time: f32,
    ) -> Static {
        let mut n = 0usize;
        let mut p = Vec2::ZERO;
        let mut v = Vec2::ZERO;
        for s in occupied {
            let loc = self.slot_location(s, slot_count, time);
            p += loc.position;
            v += as_vector(loc.orientation);
            n += 1;
        }
        if n == 0 {
            return Static::default();
        }
        let inv = 1.0 / n as f32;
        let v = v * inv;
        let orientation =
            if v.length_squared() < DRIFT_ORIENTATION_EPSILON * DRIFT_ORIENTATION_EPSILON {
                0.0
            } else {
                orientation_of(v)
            };
        Static { position: p * inv, orientation }
    }
}

/// The classic shapes (§3.7.1–3.7.2). `spacing` is the distance between neighbouring slots (m);
/// for the defensive circle it is the character radius.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Shape {
    /// Abreast, across the heading, centred on the anchor, slot 0 on the left.
    Line,
    /// The flying V: slot 0 at the apex in front, then alternately left and right down two arms
    /// trailing back at 45°, neighbours on an arm `spacing` apart.
    V,
    /// A filled wedge (triangle, apex forward): row r has r + 1 slots, rows `spacing·√3/2` apart.
    Wedge,
    /// Single file behind slot 0.
    Column,
    /// Rows of `columns` abreast (the last row centred on its own count).
    Box {
        /// Slots per row (≥ 1).
        columns: usize,
    },
    /// Backs to the centre, facing **outward**, shoulders touching:
    /// `radius = character_radius / sin(π/n)` so adjacent slots are `2·character_radius` apart;
    /// one slot sits on the anchor.
    DefensiveCircle,
    /// A defensive circle in concentric rings for large groups (§3.7.2, Fig. 3.55): ring r
    /// (from 0, innermost) holds up to `per_ring·(r + 1)` members, filled from the inside; each
    /// ring is sized like the defensive circle for the members it holds and at least
    /// `2·character_radius` outside the previous one. With no more than `per_ring` members it
    /// is exactly [`Shape::DefensiveCircle`].
    Rings {
        /// Capacity of the innermost ring (≥ 1).
        per_ring: usize,
    },
}

/// Radius at which `m` characters of `character_radius` stand shoulder to shoulder.
#[inline]
fn circle_radius(m: usize, character_radius: f32) -> f32 {
    if m <= 1 {
        0.0
    } else {
        character_radius / (PI / m as f32).sin()
    }
}

/// A slot facing outward at `angle` on a circle of `radius`.
#[inline]
fn outward(angle: f32, radius: f32) -> Static {
    // Facing out: in this library's convention (angles counter-clockwise from +x,
    // as_vector(θ) = (cos θ, sin θ)) the outward direction of (cos a, sin a) is a.
    Static { position: as_vector(angle) * radius, orientation: wrap_angle(angle) }
}

impl Shape {
    /// Slot `i` of `n` for this shape with the given spacing (see [`Shape`]).
    #[must_use]
    pub fn slot(&self, i: usize, n: usize, spacing: f32) -> Static {
        if i >= n {
            return Static::default();
        }
        let at = |x: f32, y: f32| Static { position: Vec2::new(x, y), orientation: 0.0 };
        match *self {
            Shape::Line => at(0.0, ((n - 1) as f32 * 0.5 - i as f32) * spacing),
            Shape::Column => at(-(i as f32) * spacing, 0.0),
            Shape::V => {
                let k = i.div_ceil(2) as f32;
                let side = if i % 2 == 1 { 1.0 } else { -1.0 };
                at(-k * spacing * FRAC_1_SQRT_2, side * k * spacing * FRAC_1_SQRT_2)
            }
            Shape::Wedge => {
                // row r holds slots r(r+1)/2 .. (r+1)(r+2)/2
                let mut r = 0usize;
                while (r + 1) * (r + 2) / 2 <= i {
                    r += 1;
                }
                let col = i - r * (r + 1) / 2;
                let row_x = -(r as f32) * spacing * 0.866_025_4;
                at(row_x, (r as f32 * 0.5 - col as f32) * spacing)
            }
            Shape::Box { columns } => {
                let c = columns.max(1);
                let row = i / c;
                let col = i % c;
                let in_row = c.min(n - row * c);
                at(-(row as f32) * spacing, ((in_row - 1) as f32 * 0.5 - col as f32) * spacing)
            }
            Shape::DefensiveCircle => {
                if n == 1 {
                    return Static::default();
                }
                outward(i as f32 / n as f32 * TAU, circle_radius(n, spacing))
            }
            Shape::Rings { per_ring } => {
                let per_ring = per_ring.max(1);
                let (mut first, mut radius, mut r) = (0usize, 0.0f32, 0usize);
                loop {
                    let in_ring = (per_ring * (r + 1)).min(n - first);
                    let min = if r == 0 { 0.0 } else { radius + 2.0 * spacing };
                    radius = circle_radius(in_ring, spacing).max(min);
                    if i < first + in_ring {
                        if in_ring == 1 && r == 0 {
                            return Static::default();
                        }
                        return outward((i - first) as f32 / in_ring as f32 * TAU, radius);
                    }
                    first += in_ring;
                    r += 1;
                }
            }
        }
    }
}

/// A scalable pattern (§3.7.2): as many slots as members, laid out by a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScalablePattern {
    shape: Shape,
    spacing: f32,
    max_slots: usize,
}

impl ScalablePattern {
    /// A scalable `shape` with `spacing` m between neighbours (the character radius for the
    /// defensive circle), for any number of members.
    ///
    /// # Errors
    /// If `spacing` is not finite and positive, or a box has zero columns.
    pub fn new(shape: Shape, spacing: f32) -> Result<Self, ParamError> {
        positive("spacing", spacing)?;
        match shape {
            Shape::Box { columns } => {
                at_least_one("columns", columns, "≥ 1")?;
            }
            Shape::Rings { per_ring } => {
                at_least_one("per_ring", per_ring, "≥ 1")?;
            }
            _ => {}
        }
        Ok(ScalablePattern { shape, spacing, max_slots: usize::MAX })
    }

    /// The defensive circle for characters of `character_radius` m (§3.7.5).
    ///
    /// # Errors
    /// If `character_radius` is not finite and positive.
    pub fn defensive_circle(character_radius: f32) -> Result<Self, ParamError> {
        Self::new(Shape::DefensiveCircle, character_radius)
    }

    /// At most `max` members.
    #[must_use]
    pub fn with_max_slots(mut self, max: usize) -> Self {
        self.max_slots = max;
        self
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The spacing (m).
    #[must_use]
    pub fn spacing(&self) -> f32 {
        self.spacing
    }
}

impl FormationPattern for ScalablePattern {
    fn slot_count(&self, members: usize) -> usize {
        members.min(self.max_slots)
    }
    fn supports_slots(&self, members: usize) -> bool {
        members <= self.max_slots
    }
    fn slot_location(&self, slot: usize, slot_count: usize, _time: f32) -> Static {
        self.shape.slot(slot, slot_count, self.spacing)
    }
}

/// A slot location as stored by the pattern types (a serialisable [`Static`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Loc {
    position: Vec2,
    orientation: f32,
}

impl From<Static> for Loc {
    fn from(s: Static) -> Self {
        Loc { position: s.position, orientation: s.orientation }
    }
}

impl From<Loc> for Static {
    fn from(l: Loc) -> Self {
        Static { position: l.position, orientation: l.orientation }
    }
}

/// A fixed pattern (§3.7.1): an explicit list of slots with roles, e.g. designed by hand or
/// sampled from a [`Shape`] for a given size.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FixedPattern {
    slots: Vec<Loc>,
    roles: Vec<SlotRole>,
}

impl FixedPattern {
    /// A pattern from slot locations (anchor-local), every slot role 0.
    ///
    /// # Errors
    /// If a position or orientation is not finite.
    pub fn new(slots: impl Into<Vec<Static>>) -> Result<Self, ParamError> {
        let slots = slots.into();
        for s in &slots {
            if !s.position.is_finite() {
                return Err(ParamError::Invalid {
                    name: "slot.position",
                    expected: "a finite point",
                });
            }
            crate::error::finite("slot.orientation", s.orientation)?;
        }
        let roles = vec![SlotRole(0); slots.len()];
        Ok(FixedPattern { slots: slots.into_iter().map(Loc::from).collect(), roles })
    }

    /// `n` slots of `shape` with `spacing` m (the character radius for the circle).
    ///
    /// # Errors
    /// As [`ScalablePattern::new`].
    pub fn from_shape(shape: Shape, spacing: f32, n: usize) -> Result<Self, ParamError> {
        let s = ScalablePattern::new(shape, spacing)?;
        Self::new((0..n).map(|i| s.shape.slot(i, n, spacing)).collect::<Vec<_>>())
    }

    /// The same slots with roles, one per slot.
    ///
    /// # Errors
    /// If the number of roles differs from the number of slots.
    pub fn with_roles(mut self, roles: impl Into<Vec<SlotRole>>) -> Result<Self, ParamError> {
        self.roles = one_role_per_slot(roles.into(), self.slots.len())?;
        Ok(self)
    }

    /// Number of slots.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True without slots.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slots.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = Static> + '_ {
        self.slots.iter().map(|&l| l.into())
    }
}

/// `roles` when it holds one role for each of `slots` slots.
fn one_role_per_slot(roles: Vec<SlotRole>, slots: usize) -> Result<Vec<SlotRole>, ParamError> {
    if roles.len() != slots {
        return Err(ParamError::Count {
            name: "roles",
            count: roles.len(),
            expected: "one role per slot",
        });
    }
    Ok(roles)
}

impl FormationPattern for FixedPattern {
    fn slot_count(&self, _members: usize) -> usize {
        self.slots.len()
    }
    fn supports_slots(&self, members: usize) -> bool {
        members <= self.slots.len()
    }
    fn slot_location(&self, slot: usize, _slot_count: usize, _time: f32) -> Static {
        self.slots.get(slot).map_or_else(Static::default, |&l| l.into())
    }
    fn slot_role(&self, slot: usize, _slot_count: usize) -> SlotRole {
        self.roles.get(slot).copied().unwrap_or_default()
    }
}

/// How a [`Play`]'s slots get from one layout to the next (§3.7.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Transition {
    /// Slots jump to the next layout at its time; characters arrive there.
    Jump,
    /// Slots move at constant velocity between layouts (piecewise-linear paths), so a character
    /// tracking its slot runs a route rather than a straight dash.
    #[default]
    Linear,
}

/// A set play (§3.7.9): a timed script of slot layouts, e.g. a double play or a corner kick.
/// Before the first key the first layout holds, after the last key the last one holds.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Play {
    slots: usize,
    times: Vec<f32>,
    layouts: Vec<Loc>,
    transition: Transition,
    roles: Vec<SlotRole>,
}

impl Play {
    /// A play of `slots` slots from `(time, layout)` keys; each layout lists every slot. Times
    /// (s since the play began) must be finite and strictly increasing.
    ///
    /// # Errors
    /// No key, a layout with the wrong number of slots, a non-finite value, or times out of order.
    pub fn new(
        slots: usize,
        keys: impl IntoIterator<Item = (f32, Vec<Static>)>,
        transition: Transition,
    ) -> Result<Self, ParamError> {
        let mut times = Vec::new();
        let mut layouts = Vec::new();
        for (t, layout) in keys {
            non_negative("key time", t)?;
            if let Some(&last) = times.last() {
                if t <= last {
                    return Err(ParamError::Contradictory {
                        name: "key time",
                        value: t,
                        other: "previous key time",
                        other_value: last,
                    });
                }
            }
            if layout.len() != slots {
                return Err(ParamError::Count {
                    name: "layout",
                    count: layout.len(),
                    expected: "one location per slot",
                });
            }
            let fixed = FixedPattern::new(layout)?;
            times.push(t);
            layouts.extend_from_slice(&fixed.slots);
        }
        at_least_one("keys", times.len(), "at least one")?;
        Ok(Play { slots, times, layouts, transition, roles: vec![SlotRole(0); slots] })
    }

    /// The same play with slot roles.
    ///
    /// # Errors
    /// If the number of roles differs from the number of slots.
    pub fn with_roles(mut self, roles: impl Into<Vec<SlotRole>>) -> Result<Self, ParamError> {
        self.roles = one_role_per_slot(roles.into(), self.slots)?;
        Ok(self)
    }

    /// The time of the last key (s): the play's duration.
    #[must_use]
    pub fn duration(&self) -> f32 {
        *self.times.last().unwrap_or(&0.0)
    }

    /// (key index, fraction toward the next key) at `time`.
    fn locate(&self, time: f32) -> (usize, f32) {
        let k = self.times.partition_point(|&t| t <= time);
        if k == 0 {
            return (0, 0.0);
        }
        let i = k - 1;
        if i + 1 >= self.times.len() {
            return (i, 0.0);
        }
        let (t0, t1) = (self.times[i], self.times[i + 1]);
        (i, ((time - t0) / (t1 - t0)).clamp(0.0, 1.0))
    }

    fn key(&self, key: usize, slot: usize) -> Static {
        self.layouts[key * self.slots + slot].into()
    }
}

impl FormationPattern for Play {
    fn slot_count(&self, _members: usize) -> usize {
        self.slots
    }
    fn supports_slots(&self, members: usize) -> bool {
        members <= self.slots
    }
    fn slot_location(&self, slot: usize, _slot_count: usize, time: f32) -> Static {
        if slot >= self.slots {
            return Static::default();
        }
        let time = if time.is_nan() { 0.0 } else { time };
        let (i, f) = self.locate(time);
        let a = self.key(i, slot);
        if self.transition == Transition::Jump || f == 0.0 {
            return a;
        }
        let b = self.key(i + 1, slot);
        Static {
            position: a.position.lerp(b.position, f),
            orientation: wrap_angle(a.orientation + wrap_angle(b.orientation - a.orientation) * f),
        }
    }
    fn slot_velocity(&self, slot: usize, _slot_count: usize, time: f32) -> Vec2 {
        if slot >= self.slots || self.transition == Transition::Jump || time.is_nan() {
            return Vec2::ZERO;
        }
        let k = self.times.partition_point(|&t| t <= time);
        if k == 0 || k >= self.times.len() {
            return Vec2::ZERO;
        }
        let i = k - 1;
        let dt = self.times[i + 1] - self.times[i];
        (self.key(i + 1, slot).position - self.key(i, slot).position) / dt
    }
    fn slot_role(&self, slot: usize, _slot_count: usize) -> SlotRole {
        self.roles.get(slot).copied().unwrap_or_default()
    }
    fn is_dynamic(&self) -> bool {
        true
    }
}

/// Any built-in pattern, so a manager can switch pattern at run time (§3.7.9: from the fielding
/// formation to a play) without dynamic dispatch.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Pattern {
    /// A scalable shape.
    Scalable(ScalablePattern),
    /// A fixed slot list.
    Fixed(FixedPattern),
    /// A timed play.
    Play(Play),
}

impl From<ScalablePattern> for Pattern {
    fn from(p: ScalablePattern) -> Self {
        Pattern::Scalable(p)
    }
}
impl From<FixedPattern> for Pattern {
    fn from(p: FixedPattern) -> Self {
        Pattern::Fixed(p)
    }
}
impl From<Play> for Pattern {
    fn from(p: Play) -> Self {
        Pattern::Play(p)
    }
}

macro_rules! each {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Pattern::Scalable($p) => $e,
            Pattern::Fixed($p) => $e,
            Pattern::Play($p) => $e,
        }
    };
}

impl FormationPattern for Pattern {
    fn slot_count(&self, members: usize) -> usize {
        each!(self, p => p.slot_count(members))
    }
    fn supports_slots(&self, members: usize) -> bool {
        each!(self, p => p.supports_slots(members))
    }
    fn slot_location(&self, slot: usize, slot_count: usize, time: f32) -> Static {
        each!(self, p => p.slot_location(slot, slot_count, time))
    }
    fn slot_velocity(&self, slot: usize, slot_count: usize, time: f32) -> Vec2 {
        each!(self, p => p.slot_velocity(slot, slot_count, time))
    }
    fn slot_role(&self, slot: usize, slot_count: usize) -> SlotRole {
        each!(self, p => p.slot_role(slot, slot_count))
    }
    fn is_dynamic(&self) -> bool {
        each!(self, p => p.is_dynamic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defensive_circle_radius_matches_the_derived_fixtures() {
        // spec fixtures: character radius 1, n = 2, 3, 4, 6 → 1, 1.154701, 1.414214, 2
        for (n, r) in
            [(2, 1.0), (3, 1.154_701), (4, core::f32::consts::SQRT_2), (6, 2.0), (8, 2.613_126)]
        {
            let s = Shape::DefensiveCircle.slot(0, n, 1.0);
            assert!((s.position.length() - r).abs() < 1e-5, "n = {n}: {}", s.position.length());
            let next = Shape::DefensiveCircle.slot(1, n, 1.0);
            assert!(((next.position - s.position).length() - 2.0).abs() < 1e-5);
        }
        assert_eq!(Shape::DefensiveCircle.slot(0, 1, 1.0), Static::default());
        assert_eq!(Shape::DefensiveCircle.slot(0, 0, 1.0), Static::default());
    }

    #[test]
    fn shapes_space_neighbours_by_spacing() {
        let d = |a: Static, b: Static| (a.position - b.position).length();
        let v = |i| Shape::V.slot(i, 7, 2.0);
        assert!((d(v(0), v(1)) - 2.0).abs() < 1e-5 && (d(v(1), v(3)) - 2.0).abs() < 1e-5);
        assert!(v(1).position.y > 0.0 && v(2).position.y < 0.0 && v(1).position.x < 0.0);
        let l = |i| Shape::Line.slot(i, 4, 1.5);
        assert!((l(0).position.y - 2.25).abs() < 1e-6 && (d(l(1), l(2)) - 1.5).abs() < 1e-6);
        let w = |i| Shape::Wedge.slot(i, 6, 1.0);
        assert!((d(w(1), w(2)) - 1.0).abs() < 1e-5 && (d(w(0), w(1)) - 1.0).abs() < 1e-5);
        assert!((w(3).position.x - w(5).position.x).abs() < 1e-6);
        let b = |i| Shape::Box { columns: 3 }.slot(i, 5, 1.0);
        assert_eq!(b(3).position, Vec2::new(-1.0, 0.5));
        assert_eq!(Shape::Column.slot(2, 3, 1.0).position, Vec2::new(-2.0, 0.0));
    }

    #[test]
    fn rings_reduce_to_the_circle_and_never_overlap() {
        for i in 0..5 {
            let a = Shape::Rings { per_ring: 8 }.slot(i, 5, 0.5);
            let b = Shape::DefensiveCircle.slot(i, 5, 0.5);
            assert!((a.position - b.position).length() < 1e-6 && a.orientation == b.orientation);
        }
        // 40 members in rings of 6, 12, 18 and 4: shoulders never closer than 2 radii
        let slots: Vec<Static> =
            (0..40).map(|i| Shape::Rings { per_ring: 6 }.slot(i, 40, 0.5)).collect();
        for (a, p) in slots.iter().enumerate() {
            assert!(as_vector(p.orientation).dot(p.position.normalize()) > 1.0 - 1e-5);
            for q in &slots[a + 1..] {
                assert!((p.position - q.position).length() > 1.0 - 1e-4);
            }
        }
        let radii: Vec<f32> = [0, 6, 18, 36].iter().map(|&i| slots[i].position.length()).collect();
        assert!((radii[0] - 1.0).abs() < 1e-5, "6 of radius 0.5 stand on a circle of 1 m");
        assert!(radii.windows(2).all(|w| w[1] >= w[0] + 1.0 - 1e-5), "{radii:?}");
        assert_eq!(Shape::Rings { per_ring: 3 }.slot(0, 1, 0.5), Static::default());
        assert!(ScalablePattern::new(Shape::Rings { per_ring: 0 }, 1.0).is_err());
    }

    #[test]
    fn play_interpolates_and_jumps() {
        let at = |x: f32, y: f32| Static { position: Vec2::new(x, y), orientation: 0.0 };
        let keys = || vec![(0.0, vec![at(0.0, 0.0)]), (2.0, vec![at(4.0, 0.0)])];
        let lin = Play::new(1, keys(), Transition::Linear).unwrap();
        assert_eq!(lin.slot_location(0, 1, 1.0).position, Vec2::new(2.0, 0.0));
        assert_eq!(lin.slot_velocity(0, 1, 1.0), Vec2::new(2.0, 0.0));
        assert_eq!(lin.slot_location(0, 1, 9.0).position, Vec2::new(4.0, 0.0));
        assert_eq!(lin.slot_velocity(0, 1, 9.0), Vec2::ZERO);
        let jump = Play::new(1, keys(), Transition::Jump).unwrap();
        assert_eq!(jump.slot_location(0, 1, 1.9).position, Vec2::ZERO);
        assert_eq!(jump.slot_location(0, 1, 2.0).position, Vec2::new(4.0, 0.0));
        assert!(Play::new(
            1,
            vec![(1.0, vec![at(0.0, 0.0)]), (1.0, vec![at(0.0, 0.0)])],
            Transition::Jump
        )
        .is_err());
        assert!(Play::new(2, vec![(0.0, vec![at(0.0, 0.0)])], Transition::Jump).is_err());
    }
}
