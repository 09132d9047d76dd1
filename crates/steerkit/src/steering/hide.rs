//! Hide (Buckland §17, Green): put an obstacle between the character and a hunter.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::error::{non_negative, positive, ParamError};
use crate::geometry::Circle;
use crate::geometry::ObstacleSet;
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::steering::avoid::bounding_circle;
use crate::steering::{Arrive, Deceleration, Evade};
use glam::Vec2;

/// Hide behind the nearest obstacle from a hunter; evade the hunter when there is nothing to
/// hide behind.
///
/// ```text
/// spot(obstacle c, r) = c + normalize(c − hunter) · (r + distance_from_boundary)
/// best = the spot nearest the character (squared distances)
/// arrive at best (Buckland: fast deceleration); no spot → evade(hunter)
/// ```
/// An obstacle whose centre is exactly at the hunter has no "behind" and gives no spot. With a
/// threat range, a hunter farther away than that is ignored (`None`: Buckland's early-out).
/// Green's several-hiders variant is several `Hide`s with different distances.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hide {
    distance_from_boundary: f32,
    threat_range: Option<f32>,
    /// How the spot is reached (Buckland: fast deceleration).
    pub arrive: Arrive,
    /// The fallback when there is no obstacle.
    pub evade: Evade,
}

impl Hide {
    /// Hide `distance_from_boundary` m behind obstacles (Buckland: 30 units; more than the
    /// character's radius), evading with a 1 s look-ahead when there is no cover.
    ///
    /// # Errors
    /// If the distance is negative or not finite.
    pub fn new(distance_from_boundary: f32) -> Result<Self, ParamError> {
        Ok(Hide {
            distance_from_boundary: non_negative("distance_from_boundary", distance_from_boundary)?,
            threat_range: None,
            arrive: Arrive::buckland(Deceleration::Fast),
            evade: Evade::new(1.0)?,
        })
    }

    /// Only hide from a hunter within `range` m.
    ///
    /// # Errors
    /// If `range` is not finite and positive.
    pub fn with_threat_range(mut self, range: f32) -> Result<Self, ParamError> {
        self.threat_range = Some(positive("threat_range", range)?);
        Ok(self)
    }

    /// The hiding spot behind one obstacle, or `None` when the hunter is at its centre.
    #[must_use]
    pub fn hiding_spot(&self, obstacle: Circle, hunter: Vec2) -> Option<Vec2> {
        let dir = (obstacle.center - hunter).normalize_or_zero();
        (dir != Vec2::ZERO).then(|| {
            obstacle.center + dir * (obstacle.radius.max(0.0) + self.distance_from_boundary)
        })
    }

    /// The hiding spot nearest `position`, or `None`.
    #[must_use]
    pub fn best_spot(
        &self,
        position: Vec2,
        hunter: Vec2,
        obstacles: impl IntoIterator<Item = Circle>,
    ) -> Option<Vec2> {
        let mut best: Option<(f32, Vec2)> = None;
        for o in obstacles {
            if let Some(spot) = self.hiding_spot(o, hunter) {
                let d2 = (spot - position).length_squared();
                if best.is_none_or(|(b, _)| d2 < b) {
                    best = Some((d2, spot));
                }
            }
        }
        best.map(|(_, s)| s)
    }

    /// The acceleration toward the best hiding spot among `obstacles`, else away from the
    /// hunter.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        hunter: &Kinematic,
        obstacles: impl IntoIterator<Item = Circle>,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        if let Some(range) = self.threat_range {
            if !((hunter.position - character.position).length_squared() <= range * range) {
                return None;
            }
        }
        match self.best_spot(character.position, hunter.position, obstacles) {
            Some(spot) => self.arrive.steer(character, spot, limits),
            None => self.evade.steer(character, hunter, limits),
        }
    }

    /// [`steer`](Self::steer) with every solid obstacle of an [`ObstacleSet`] as cover (each
    /// as its bounding circle; walls give no cover). Scans the whole set: O(n).
    #[must_use]
    pub fn steer_in(
        &self,
        character: &Kinematic,
        hunter: &Kinematic,
        set: &ObstacleSet,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        self.steer(character, hunter, set.obstacles().iter().filter_map(bounding_circle), limits)
    }
}
