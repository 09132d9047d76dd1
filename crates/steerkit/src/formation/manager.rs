//! Two-level formation steering (Millington §3.7.4–3.7.6): the formation manager.

use crate::error::{non_negative, ParamError};
use crate::formation::assign::{
    AssignmentMethod, AssignmentOutcome, CostMatrix, RoleCosts, SlotAssigner,
};
use crate::formation::pattern::{FormationPattern, Pattern};
use crate::kinematic::{sanitize_dt, Kinematic, Limits, Static, SteeringOutput};
use crate::math::wrap_angle;
use crate::steering::{Align, Arrive};
use glam::Vec2;

/// A member's handle: any number the caller chooses (e.g. its index in a crowd).
pub type MemberId = u32;

/// Where a member should be: its slot's world position (m), orientation (rad) and velocity
/// (m/s, the velocity of the slot point, including the anchor's turn and a play's slot motion).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlotTarget {
    /// The member.
    pub member: MemberId,
    /// Its slot, or `None` when it could not be placed (its target is then the anchor).
    pub slot: Option<usize>,
    /// Slot position (m).
    pub position: Vec2,
    /// Slot orientation (rad).
    pub orientation: f32,
    /// Slot velocity (m/s).
    pub velocity: Vec2,
}

impl SlotTarget {
    /// The target as a kinematic (no rotation), e.g. to feed a pursue or to draw.
    #[must_use]
    pub fn kinematic(&self) -> Kinematic {
        Kinematic {
            position: self.position,
            orientation: self.orientation,
            velocity: self.velocity,
            rotation: 0.0,
        }
    }
}

/// The second level of two-level steering (§3.7.4): arrive at the moving slot (in the slot's
/// moving frame, so there is no steady lag) and align to its orientation.
///
/// Characters and sub-formation anchors both use it, which is what lets formations nest
/// (§3.7.6): a lower formation's anchor is steered to its slot in the upper formation exactly as
/// a character is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlotSteering {
    /// Reaches the slot position (`steer_moving` with the slot velocity).
    pub arrive: Arrive,
    /// Turns to the slot orientation.
    pub align: Align,
}

impl SlotSteering {
    /// Slot steering from an arrive and an align.
    #[must_use]
    pub fn new(arrive: Arrive, align: Align) -> Self {
        SlotSteering { arrive, align }
    }

    /// The acceleration toward `target`: arrive's linear part and align's angular part, or
    /// `None` when the character rests on its slot, facing its way (never NaN).
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        target: &SlotTarget,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let linear = self.arrive.steer_moving(character, target.position, target.velocity, limits);
        let angular = self.align.steer(character, target.orientation, limits);
        if linear.is_none() && angular.is_none() {
            return None;
        }
        Some(SteeringOutput {
            linear: linear.map_or(Vec2::ZERO, |s| s.linear),
            angular: angular.map_or(0.0, |s| s.angular),
        })
    }
}

/// Keeping the anchor on a leash (§3.7.4, Eq. 3.8): before the anchor is steered, it is pulled
/// back to within `max_lead` m of the leash point `p_c + k_offset·v_c`, where `p_c` and `v_c` are
/// the centre of mass and mean velocity of the placed members.
///
/// `max_lead = 0` is the book's reset (the anchor's position and velocity become the leash
/// point and `v_c` every update); a positive `max_lead` lets the anchor lead freely while the
/// members keep up and holds it back when one is blocked, without slowing an unobstructed march.
/// With `max_lead = 0` the formation's speed is set by its members rather than by the anchor's
/// limits: a positive `k_offset` keeps pulling the anchor ahead of them (the book gives the anchor
/// very high limits for this reason), and `k_offset = 0` lets arrive slow them down.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Moderation {
    k_offset: f32,
    max_lead: f32,
}

impl Moderation {
    /// A leash with the look-ahead `k_offset` (s) and slack `max_lead` (m).
    ///
    /// # Errors
    /// If either is negative or not finite.
    pub fn new(k_offset: f32, max_lead: f32) -> Result<Self, ParamError> {
        Ok(Moderation {
            k_offset: non_negative("k_offset", k_offset)?,
            max_lead: non_negative("max_lead", max_lead)?,
        })
    }
}

/// What the formation's anchor is (§3.7.5 `getAnchorPoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AnchorMode {
    /// An invisible anchor steered by the caller (a path follower, an arrive), optionally
    /// moderated: the leaderless formation.
    #[default]
    Steered,
    /// A leader member: it always holds slot 0, the anchor is its kinematic each update, and the
    /// pattern is placed so that slot 0 sits on it (§3.7.1). No drift correction.
    Leader(MemberId),
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Member {
    id: MemberId,
    kind: usize,
    slot: Option<usize>,
}

/// A formation manager (§3.7.5): members, their slots, the anchor and the drift offset.
///
/// Each step the caller passes the members' states and (for a steered anchor) the anchor's
/// steering, and reads one [`SlotTarget`] per member:
///
/// ```text
/// moderation:  anchor.p ← leash(anchor.p, p_c + k·v_c, max_lead)          (if enabled)
/// anchor step: integrate(anchor, steering, anchor_limits, dt)
/// slot world:  local = slot.p − drift.p                    (drift rotated with the slot: erratum)
///              p = anchor.p + R(anchor.o)·local
///              o = anchor.o + slot.o − drift.o
///              v = anchor.v + anchor.ω·perp(R·local) + R·slot.v
/// ```
/// The drift offset is cached and recomputed only when the occupied set changes (every update
/// for a dynamic pattern). Slots are (re)assigned on the next update after a member joins or
/// leaves or the pattern changes, with the chosen [`AssignmentMethod`] and the cost
/// `role_cost(kind, slot role) + distance_weight·|member − slot|`.
///
/// After the first update at a given size, updates allocate nothing.
#[derive(Clone, Debug)]
pub struct FormationManager<P: FormationPattern = Pattern> {
    pattern: P,
    members: Vec<Member>,
    targets: Vec<SlotTarget>,
    anchor: Kinematic,
    anchor_limits: Limits,
    mode: AnchorMode,
    drift: Static,
    drift_correction: bool,
    drift_valid: bool,
    moderation: Option<Moderation>,
    method: AssignmentMethod,
    roles: Option<RoleCosts>,
    distance_weight: f32,
    cost_limit: f32,
    needs_assignment: bool,
    time: f32,
    last_outcome: AssignmentOutcome,
    costs: CostMatrix,
    assigner: SlotAssigner,
    slots_buf: Vec<Option<usize>>,
}

impl<P: FormationPattern> FormationManager<P> {
    /// A manager for `pattern` with an invisible anchor at `anchor`, moved within
    /// `anchor_limits`. Optimal assignment, drift correction on, no moderation, no roles, no
    /// distance cost.
    #[must_use]
    pub fn new(pattern: P, anchor: Kinematic, anchor_limits: Limits) -> Self {
        FormationManager {
            pattern,
            members: Vec::new(),
            targets: Vec::new(),
            anchor,
            anchor_limits,
            mode: AnchorMode::Steered,
            drift: Static::default(),
            drift_correction: true,
            drift_valid: false,
            moderation: None,
            method: AssignmentMethod::Optimal,
            roles: None,
            distance_weight: 0.0,
            cost_limit: f32::INFINITY,
            needs_assignment: true,
            time: 0.0,
            last_outcome: AssignmentOutcome::default(),
            costs: CostMatrix::default(),
            assigner: SlotAssigner::new(),
            slots_buf: Vec::new(),
        }
    }

    /// Use this slot-assignment method.
    #[must_use]
    pub fn with_assignment(mut self, method: AssignmentMethod) -> Self {
        self.method = method;
        self.needs_assignment = true;
        self
    }

    /// Slot costs from roles (each member's `kind` indexes the table's rows).
    #[must_use]
    pub fn with_roles(mut self, roles: RoleCosts) -> Self {
        self.roles = Some(roles);
        self.needs_assignment = true;
        self
    }

    /// Add `weight · distance` (per metre) from a member to a slot to its cost, so members take
    /// nearby slots and do not cross the formation.
    ///
    /// # Errors
    /// If `weight` is negative or not finite.
    pub fn with_distance_cost(mut self, weight: f32) -> Result<Self, ParamError> {
        self.distance_weight = non_negative("distance_weight", weight)?;
        Ok(self)
    }

    /// Costs at or above `limit` forbid the slot (the book's slot-cost limit `k`).
    ///
    /// # Errors
    /// If `limit` is NaN or not positive.
    pub fn with_cost_limit(mut self, limit: f32) -> Result<Self, ParamError> {
        if limit.is_nan() || limit <= 0.0 {
            return Err(ParamError::NotPositive { name: "cost_limit", value: limit });
        }
        self.cost_limit = limit;
        Ok(self)
    }

    /// Keep the anchor on a leash.
    #[must_use]
    pub fn with_moderation(mut self, moderation: Moderation) -> Self {
        self.moderation = Some(moderation);
        self
    }

    /// Turn drift correction on or off (off for plays anchored to the field, §3.7.9).
    #[must_use]
    pub fn with_drift_correction(mut self, on: bool) -> Self {
        self.drift_correction = on;
        self.drift_valid = false;
        self
    }

    /// Anchor the formation on a leader member (it must be added as a member). The leader is
    /// forced into slot 0 through the costs (infinite elsewhere), so use the greedy or optimal
    /// method, or add the leader first with the sequential one.
    #[must_use]
    pub fn with_leader(mut self, leader: MemberId) -> Self {
        self.mode = AnchorMode::Leader(leader);
        self.needs_assignment = true;
        self.drift_valid = false;
        self
    }

    /// Adds a member of character type `kind` (a row of the role table; 0 without roles).
    /// Returns `false` when it is already a member or the pattern cannot take one more
    /// (`supports_slots(n + 1)`). Slots are reassigned on the next update.
    pub fn add_member(&mut self, id: MemberId, kind: usize) -> bool {
        if self.members.iter().any(|m| m.id == id)
            || !self.pattern.supports_slots(self.members.len() + 1)
        {
            return false;
        }
        self.members.push(Member { id, kind, slot: None });
        self.targets.push(SlotTarget { member: id, ..SlotTarget::default() });
        self.needs_assignment = true;
        true
    }

    /// Removes a member; `false` when it is not one. Slots are reassigned on the next update.
    pub fn remove_member(&mut self, id: MemberId) -> bool {
        let Some(i) = self.members.iter().position(|m| m.id == id) else {
            return false;
        };
        self.members.remove(i);
        self.targets.remove(i);
        self.needs_assignment = true;
        true
    }

    /// Replaces the pattern (e.g. a play starts); the play clock restarts and slots are
    /// reassigned on the next update.
    pub fn set_pattern(&mut self, pattern: P) {
        self.pattern = pattern;
        self.time = 0.0;
        self.needs_assignment = true;
        self.drift_valid = false;
    }

    /// The pattern.
    #[must_use]
    pub fn pattern(&self) -> &P {
        &self.pattern
    }

    /// Member ids in joining order (the order of [`targets`](Self::targets)).
    pub fn members(&self) -> impl ExactSizeIterator<Item = MemberId> + '_ {
        self.members.iter().map(|m| m.id)
    }

    /// Number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True without members.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// A member's slot (after the last assignment).
    #[must_use]
    pub fn slot_of(&self, id: MemberId) -> Option<usize> {
        self.members.iter().find(|m| m.id == id).and_then(|m| m.slot)
    }

    /// One target per member, in [`members`](Self::members) order, from the last update.
    #[must_use]
    pub fn targets(&self) -> &[SlotTarget] {
        &self.targets
    }

    /// A member's target from the last update.
    #[must_use]
    pub fn target_of(&self, id: MemberId) -> Option<&SlotTarget> {
        self.targets.iter().find(|t| t.member == id)
    }

    /// The anchor.
    #[must_use]
    pub fn anchor(&self) -> &Kinematic {
        &self.anchor
    }

    /// Places the anchor (a fixed anchor for plays, a teleport).
    pub fn set_anchor(&mut self, anchor: Kinematic) {
        self.anchor = anchor;
    }

    /// The anchor's limits.
    #[must_use]
    pub fn anchor_limits(&self) -> &Limits {
        &self.anchor_limits
    }

    /// The current drift offset (pattern-local).
    #[must_use]
    pub fn drift_offset(&self) -> Static {
        self.drift
    }

    /// Seconds since the pattern was set (the play clock).
    #[must_use]
    pub fn time(&self) -> f32 {
        self.time
    }

    /// What the last assignment achieved (cost, unplaced members).
    #[must_use]
    pub fn last_assignment(&self) -> AssignmentOutcome {
        self.last_outcome
    }

    /// Assigns slots now, with member positions from `state` (for distance costs).
    pub fn assign(&mut self, state: impl Fn(MemberId) -> Kinematic) -> AssignmentOutcome {
        let k = self.members.len();
        let n = self.pattern.slot_count(k);
        let leader = match self.mode {
            AnchorMode::Leader(id) => Some(id),
            AnchorMode::Steered => None,
        };
        // world slot positions for the distance term, with the drift of a full formation
        let full = if leader.is_some() {
            self.pattern.slot_location(0, n, self.time)
        } else {
            self.pattern.drift_offset(0..n.min(k), n, self.time)
        };
        let (anchor, pattern, members) = (self.anchor, &self.pattern, &self.members);
        let (roles, w, time) = (&self.roles, self.distance_weight, self.time);
        self.costs.fill(k, n, |m, s| {
            let member = members[m];
            if let Some(l) = leader {
                if (member.id == l) != (s == 0) {
                    return f32::INFINITY;
                }
            }
            let mut c = match roles {
                Some(r) => r.cost(member.kind, pattern.slot_role(s, n)),
                None => 0.0,
            };
            if w > 0.0 {
                let loc = pattern.slot_location(s, n, time);
                let p = anchor.position
                    + Vec2::from_angle(anchor.orientation).rotate(loc.position - full.position);
                c += w * (state(member.id).position - p).length();
            }
            c
        });
        let outcome =
            self.assigner.assign(self.method, &self.costs, self.cost_limit, &mut self.slots_buf);
        for (m, s) in self.members.iter_mut().zip(&self.slots_buf) {
            m.slot = *s;
        }
        self.needs_assignment = false;
        self.drift_valid = false;
        self.last_outcome = outcome;
        outcome
    }

    /// One step: assigns slots if needed, moves the anchor (`anchor_steering` is ignored for a
    /// leader anchor) and computes every member's [`SlotTarget`].
    ///
    /// `state(id)` gives a member's current kinematic. `dt = 0` moves nothing but still
    /// computes targets. With no members the anchor still moves and the targets are empty.
    pub fn update(
        &mut self,
        dt: f32,
        anchor_steering: &SteeringOutput,
        state: impl Fn(MemberId) -> Kinematic,
    ) -> &[SlotTarget] {
        if self.needs_assignment {
            self.assign(&state);
        }
        match self.mode {
            AnchorMode::Leader(id) => {
                if self.members.iter().any(|m| m.id == id) {
                    self.anchor = state(id);
                }
            }
            AnchorMode::Steered => {
                if let Some(m) = self.moderation {
                    self.moderate(m, &state);
                }
                self.anchor.integrate(anchor_steering, &self.anchor_limits, dt);
            }
        }
        if sanitize_dt(dt) > 0.0 {
            self.time += dt;
        }
        self.update_drift();
        self.compute_targets();
        &self.targets
    }

    fn moderate(&mut self, m: Moderation, state: &impl Fn(MemberId) -> Kinematic) {
        let mut n = 0u32;
        let mut p = Vec2::ZERO;
        let mut v = Vec2::ZERO;
        for member in self.members.iter().filter(|m| m.slot.is_some()) {
            let k = state(member.id);
            p += k.position;
            v += k.velocity;
            n += 1;
        }
        if n == 0 {
            return;
        }
        let (pc, vc) = (p / n as f32, v / n as f32);
        let leash = pc + vc * m.k_offset;
        let away = self.anchor.position - leash;
        let d_sq = away.length_squared();
        if d_sq <= m.max_lead * m.max_lead {
            return;
        }
        if m.max_lead == 0.0 {
            self.anchor.position = leash;
            self.anchor.velocity = vc;
            return;
        }
        let d = d_sq.sqrt();
        let dir = away / d;
        self.anchor.position = leash + dir * m.max_lead;
        // stop pulling further away along the leash
        let outward = self.anchor.velocity.dot(dir);
        if outward > 0.0 {
            self.anchor.velocity -= dir * outward;
        }
    }

    fn update_drift(&mut self) {
        if self.drift_valid && !self.pattern.is_dynamic() {
            return;
        }
        let n = self.pattern.slot_count(self.members.len());
        self.drift = match self.mode {
            AnchorMode::Leader(_) => self.pattern.slot_location(0, n, self.time),
            AnchorMode::Steered if self.drift_correction => {
                self.pattern.drift_offset(self.members.iter().filter_map(|m| m.slot), n, self.time)
            }
            AnchorMode::Steered => Static::default(),
        };
        self.drift_valid = true;
    }

    fn compute_targets(&mut self) {
        let n = self.pattern.slot_count(self.members.len());
        let a = self.anchor;
        let rot = Vec2::from_angle(a.orientation);
        for (t, m) in self.targets.iter_mut().zip(&self.members) {
            t.member = m.id;
            t.slot = m.slot;
            let Some(s) = m.slot else {
                t.position = a.position;
                t.orientation = a.orientation;
                t.velocity = a.velocity;
                continue;
            };
            let loc = self.pattern.slot_location(s, n, self.time);
            let local = rot.rotate(loc.position - self.drift.position);
            t.position = a.position + local;
            t.orientation = wrap_angle(a.orientation + loc.orientation - self.drift.orientation);
            t.velocity = a.velocity
                + local.perp() * a.rotation
                + rot.rotate(self.pattern.slot_velocity(s, n, self.time));
        }
    }
}
