//! Buckland's detection box (§9.2): a box ahead of the character, in its local space, against
//! circular obstacles.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{bounding_circle, heading_or_facing};
use crate::error::{non_negative, positive, ParamError};
use crate::geometry::{Circle, ObstacleSet};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use glam::Vec2;

/// Buckland's detection box (§9.2) against circular obstacles, in the character's local space
/// (x along the heading, y to the left).
///
/// ```text
/// L = min_length · (1 + speed / max_speed)                       box length (m)
/// for each obstacle (centre c, radius r_ob): local (x, y); R = r_ob + own_radius
///     skip unless |y| < R; near/far roots x ∓ √(R² − y²); skip if far ≤ 0 or near > L
///     key = max(near, 0)      (inside the expanded circle: 0, the most urgent)
/// nearest obstacle by key:  x' = clamp(x, 0, L), closeness = (L − x') / L ∈ [0, 1]
/// lateral = −σ · max_acc · (R − |y|)/R · (1 + closeness)/2     σ = sign(y), or +1 (go left)
///                                                                when y = 0 exactly
/// braking = −braking_weight · max_acc · closeness
/// a = to_world(braking, lateral), clipped to max_acc
/// ```
/// Two errata fixed (regression tests in `tests/avoid.rs`): Buckland's lateral term
/// `(r_ob − y)·multiplier` pushes toward the obstacle's centre for `0 < y < r_ob` (here it is
/// symmetric, always away); Green's `(0, −y)` is zero for an obstacle dead ahead (here a
/// deterministic side is chosen). Buckland's braking `(r_ob − x)·0.2` grows with distance;
/// here it grows as the obstacle gets closer.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DetectionBox {
    min_length: f32,
    braking_weight: f32,
}

/// What a [`DetectionBox`] found: the nearest obstacle in the box, in local space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxThreat {
    /// The obstacle.
    pub circle: Circle,
    /// Its centre in the character's local space (x ahead, y left), m.
    pub local: Vec2,
    /// Distance ahead where the box first meets it (m; 0 when already overlapping).
    pub distance: f32,
}

impl DetectionBox {
    /// A box at least `min_length` m long (Buckland: 40 units), braking weight 0.2.
    ///
    /// # Errors
    /// If `min_length` is not finite and positive.
    pub fn new(min_length: f32) -> Result<Self, ParamError> {
        Ok(DetectionBox { min_length: positive("min_length", min_length)?, braking_weight: 0.2 })
    }

    /// The braking share of `max_acceleration` at contact (Buckland: 0.2).
    ///
    /// # Errors
    /// If `weight` is negative or not finite.
    pub fn with_braking(mut self, weight: f32) -> Result<Self, ParamError> {
        self.braking_weight = non_negative("braking_weight", weight)?;
        Ok(self)
    }

    /// The box length for a speed: `min_length · (1 + speed / max_speed)` (m); `min_length`
    /// when `max_speed` is 0.
    #[must_use]
    pub fn length(&self, speed: f32, limits: &Limits) -> f32 {
        let max = limits.max_speed();
        let k = if max > 0.0 { (speed / max).clamp(0.0, 1.0) } else { 0.0 };
        self.min_length * (1.0 + k)
    }

    /// The nearest obstacle in the box, or `None`.
    #[must_use]
    pub fn threat(
        &self,
        character: &Kinematic,
        own_radius: f32,
        obstacles: impl IntoIterator<Item = Circle>,
        limits: &Limits,
    ) -> Option<BoxThreat> {
        let (h, speed) = heading_or_facing(character);
        let s = h.perp();
        let length = self.length(speed, limits);
        let mut best: Option<BoxThreat> = None;
        for circle in obstacles {
            let d = circle.center - character.position;
            let (x, y) = (d.dot(h), d.dot(s));
            let big_r = circle.radius.max(0.0) + own_radius.max(0.0);
            if !(y.abs() < big_r) {
                continue;
            }
            let root = (big_r * big_r - y * y).max(0.0).sqrt();
            let (near, far) = (x - root, x + root);
            if !(far > 0.0) || near > length {
                continue;
            }
            let key = near.max(0.0);
            if best.is_none_or(|b| key < b.distance) {
                best = Some(BoxThreat { circle, local: Vec2::new(x, y), distance: key });
            }
        }
        best
    }

    /// The avoiding acceleration, or `None` when the box is clear. `own_radius` (m) is the
    /// box's half width. A character at rest uses its orientation as heading.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        own_radius: f32,
        obstacles: impl IntoIterator<Item = Circle>,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let threat = self.threat(character, own_radius, obstacles, limits)?;
        let (h, speed) = heading_or_facing(character);
        let length = self.length(speed, limits);
        let max = limits.max_acceleration();
        let big_r = threat.circle.radius.max(0.0) + own_radius.max(0.0);
        let closeness = (length - threat.local.x.clamp(0.0, length)) / length;
        let y = threat.local.y;
        // the side the obstacle is on; dead ahead counts as the right, so the push goes left
        let sigma = if y > 0.0 { 1.0 } else { -1.0 };
        let depth = if big_r > 0.0 { ((big_r - y.abs()) / big_r).clamp(0.0, 1.0) } else { 1.0 };
        let lateral = -sigma * max * depth * 0.5 * (1.0 + closeness);
        let braking = -self.braking_weight * max * closeness;
        let local = Vec2::new(braking, lateral);
        let world = h * local.x + h.perp() * local.y;
        Some(SteeringOutput::linear(world.clamp_length_max(max)))
    }

    /// [`steer`](Self::steer) against the solid obstacles of an [`ObstacleSet`] near the
    /// character (each seen as its bounding circle; walls are skipped: use
    /// [`WallFeelers`](super::WallFeelers)).
    #[must_use]
    pub fn steer_in(
        &self,
        character: &Kinematic,
        own_radius: f32,
        set: &ObstacleSet,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let (_, speed) = heading_or_facing(character);
        let reach = self.length(speed, limits) + own_radius.max(0.0);
        let mut best: Option<(f32, Circle)> = None;
        let probe = Circle::new(character.position, reach);
        // keep only the nearest threat's circle so nothing is collected
        set.for_each_overlapping(&probe, |_, o| {
            if let Some(c) = bounding_circle(o) {
                if let Some(t) = self.threat(character, own_radius, [c], limits) {
                    if best.is_none_or(|(d, _)| t.distance < d) {
                        best = Some((t.distance, c));
                    }
                }
            }
        });
        self.steer(character, own_radius, best.map(|(_, c)| c), limits)
    }
}
