//! Green's layering of the rules of movement (DK2): vehicles **must not** cross walls, **should
//! not** intersect obstacles, and **try not** to intersect each other.
//!
//! - Walls are a hard constraint at integration: [`clip_to_walls`] clips a move so the centre
//!   never crosses a wall (it slides along it instead). Apply it after integrating, or use
//!   [`Layering::integrate`].
//! - Obstacles push out strongly: [`RepelObstacles`], Green's `RepelObstacle` with a 1/x³ law.
//! - Then neighbours: separation, and last whatever else the agent wants.
//!
//! [`Layering::steer`] combines the last three by the weighted truncated running sum in that
//! order, so a crowd of neighbours can never out-push an obstacle, and nothing can push through a
//! wall. Works for any agent, whatever steers it.

use crate::combine::running_sum_observed;
use crate::error::{non_negative, ParamError};
use crate::geometry::Circle;
use crate::kinematic::{Integration, Kinematic, Limits, SteeringOutput};
use crate::neighbours::Neighbour;
use crate::obstacle::{CollisionDetector, ObstacleSet};
use crate::steering::Separation;
use glam::Vec2;

/// How far (m) a clipped move stops short of the wall it met.
pub const WALL_SKIN: f32 = 1e-3;
/// How many times a clipped move may slide along walls in one step.
const SLIDES: usize = 4;

/// Clips the move `from → character.position` against `walls` so that the centre never crosses
/// one (Green: "the centre point of a vehicle must never cross a wall boundary").
///
/// The move stops [`WALL_SKIN`] short of the first wall it meets, and what is left of it slides
/// along that wall (its component into the wall removed), up to four contacts per step; the
/// velocity loses its component into every wall met, so the agent does not keep pushing. Every
/// part of the move is checked with [`CollisionDetector::first_hit`], so any detector works (an
/// [`ObstacleSet`] of walls, a slice of obstacles, an engine's ray casts); every shape in it
/// counts as a wall. Returns `true` when the move was clipped. A zero move changes nothing.
pub fn clip_to_walls<D: CollisionDetector + ?Sized>(
    walls: &D,
    from: Vec2,
    character: &mut Kinematic,
) -> bool {
    let mut remaining = character.position - from;
    if !remaining.is_finite() || !from.is_finite() {
        character.position = from;
        return true;
    }
    let mut position = from;
    let mut clipped = false;
    for _ in 0..SLIDES {
        if remaining == Vec2::ZERO {
            break;
        }
        let Some(hit) = walls.first_hit(position, remaining) else {
            position += remaining;
            remaining = Vec2::ZERO;
            break;
        };
        clipped = true;
        let length = remaining.length();
        let direction = remaining / length;
        // back off along the path already travelled (known to be clear) ...
        let mut stop = position + direction * (hit.distance - WALL_SKIN).max(0.0);
        // ... and keep at least the skin off the wall's surface
        let gap = (stop - hit.position).dot(hit.normal);
        if gap < WALL_SKIN && hit.distance > 0.0 {
            stop += hit.normal * (WALL_SKIN - gap).min(hit.distance);
        }
        position = stop;
        let rest = direction * (length - hit.distance).max(0.0);
        remaining = rest - hit.normal * rest.dot(hit.normal).min(0.0);
        character.velocity -= hit.normal * character.velocity.dot(hit.normal).min(0.0);
    }
    if remaining != Vec2::ZERO {
        clipped = true; // out of slides: the rest of the move is dropped
    }
    character.position = position;
    clipped
}

/// Green's `RepelObstacle`: push out of (and away from) nearby obstacles with a steep law,
/// `a = min(k / x³, max_acceleration)` away from each obstacle's closest point, where `x` is the
/// gap between the agent's body and the obstacle (`distance − own_radius`, 0 when touching or
/// inside). Obstacles within `range` m of the body count; the sum is clipped to
/// `max_acceleration`. An agent whose centre is inside a solid obstacle is pushed away from the
/// obstacle's box centre (+x if it sits exactly there).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RepelObstacles {
    range: f32,
    strength: f32,
}

impl RepelObstacles {
    /// Repulsion within `range` m of the body, with coefficient `strength` `k` (m⁴/s²: `k / x³`
    /// m/s² at a gap of `x` m).
    ///
    /// # Errors
    /// If either is negative or not finite.
    pub fn new(range: f32, strength: f32) -> Result<Self, ParamError> {
        Ok(RepelObstacles {
            range: non_negative("range", range)?,
            strength: non_negative("strength", strength)?,
        })
    }

    /// The repulsion for `character` of radius `own_radius` m, or `None` with no obstacle in
    /// range.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        own_radius: f32,
        obstacles: &ObstacleSet,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let p = character.position;
        let max = limits.max_acceleration();
        let reach = Circle::new(p, own_radius.max(0.0) + self.range);
        let mut sum = Vec2::ZERO;
        let mut any = false;
        obstacles.for_each_overlapping(&reach, |_, o| {
            let closest = o.closest_point(p);
            let mut away = p - closest;
            let distance = away.length();
            if distance == 0.0 {
                away = (p - o.aabb().center()).normalize_or(Vec2::X);
            } else {
                away /= distance;
            }
            let gap = (distance - own_radius).max(0.0);
            let push = if gap > 0.0 { (self.strength / (gap * gap * gap)).min(max) } else { max };
            sum += away * if push.is_nan() { max } else { push };
            any = true;
        });
        any.then(|| SteeringOutput::linear(sum.clamp_length_max(max)))
    }
}

/// Green's layering as one recipe: [`RepelObstacles`] first, then neighbour [`Separation`], then
/// the agent's own desire, combined by the truncated running sum in that order; walls are
/// enforced at integration ([`Layering::integrate`] or [`clip_to_walls`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Layering {
    /// Obstacle repulsion (second layer).
    pub repel: RepelObstacles,
    /// Neighbour separation (third layer).
    pub separation: Separation,
}

impl Layering {
    /// The layers.
    #[must_use]
    pub fn new(repel: RepelObstacles, separation: Separation) -> Self {
        Layering { repel, separation }
    }

    /// The layered request: obstacles, then neighbours, then `desire`, each taking what is left
    /// of `max_acceleration` (m/s²).
    #[must_use]
    pub fn steer<'a>(
        &self,
        character: &Kinematic,
        own_radius: f32,
        obstacles: &ObstacleSet,
        neighbours: impl IntoIterator<Item = &'a Neighbour<Vec2>>,
        desire: Option<SteeringOutput>,
        limits: &Limits,
    ) -> SteeringOutput {
        self.steer_observed(character, own_radius, obstacles, neighbours, desire, limits, |_, _| {})
    }

    /// [`steer`](Self::steer), calling `observe(layer, what it added)` (0 obstacles,
    /// 1 neighbours, 2 desire) for each layer evaluated.
    #[allow(clippy::too_many_arguments)]
    pub fn steer_observed<'a>(
        &self,
        character: &Kinematic,
        own_radius: f32,
        obstacles: &ObstacleSet,
        neighbours: impl IntoIterator<Item = &'a Neighbour<Vec2>>,
        desire: Option<SteeringOutput>,
        limits: &Limits,
        observe: impl FnMut(usize, SteeringOutput),
    ) -> SteeringOutput {
        let repel = self.repel.steer(character, own_radius, obstacles, limits);
        // the neighbours are read only if obstacles leave some budget
        let separation = core::iter::once_with(|| {
            (1.0, self.separation.steer(character, own_radius, neighbours, limits))
        });
        let members = core::iter::once((1.0, repel)).chain(separation).chain([(1.0, desire)]);
        running_sum_observed(members, limits, observe)
    }

    /// Integrates `steering` for `dt` s, then clips the move against `walls`
    /// ([`clip_to_walls`]). Returns `true` when a wall stopped the move.
    pub fn integrate<D: CollisionDetector + ?Sized>(
        character: &mut Kinematic,
        steering: &SteeringOutput,
        limits: &Limits,
        integration: &Integration,
        dt: f32,
        walls: &D,
    ) -> bool {
        let from = character.position;
        character.integrate_with(steering, limits, integration, dt);
        clip_to_walls(walls, from, character)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Segment;
    use crate::obstacle::Obstacle;

    #[test]
    fn a_move_into_a_wall_stops_short_and_slides() {
        let walls = [Obstacle::Wall(Segment::new(Vec2::new(1.0, -5.0), Vec2::new(1.0, 5.0)))];
        let mut k = Kinematic {
            position: Vec2::new(2.0, 1.0),
            velocity: Vec2::new(3.0, 3.0),
            ..Kinematic::default()
        };
        assert!(clip_to_walls(&walls[..], Vec2::ZERO, &mut k));
        assert!(k.position.x < 1.0 && k.position.x > 1.0 - 2.0 * WALL_SKIN, "{}", k.position);
        assert!((k.position.y - 1.0).abs() < 1e-3, "slid along the wall to y = 1: {}", k.position);
        assert_eq!(k.velocity, Vec2::new(0.0, 3.0), "into-wall velocity removed");
        // a clear move is untouched
        let mut free = Kinematic { position: Vec2::new(0.5, 3.0), ..Kinematic::default() };
        assert!(!clip_to_walls(&walls[..], Vec2::ZERO, &mut free));
        assert_eq!(free.position, Vec2::new(0.5, 3.0));
    }

    #[test]
    fn repulsion_is_steep_and_capped() {
        let set = ObstacleSet::new([Obstacle::Circle(Circle::new(Vec2::ZERO, 1.0))]).unwrap();
        let l = Limits::new(5.0, 10.0, 1.0, 1.0).unwrap();
        let r = RepelObstacles::new(3.0, 1.0).unwrap();
        let at = |x: f32| Kinematic::at_rest(Vec2::new(x, 0.0), 0.0);
        // gap 1.5 → 1/3.375 = 0.296; gap 0.75 → 2.370 (8× for half the gap)
        let far = r.steer(&at(3.0), 0.5, &set, &l).unwrap().linear;
        let near = r.steer(&at(2.25), 0.5, &set, &l).unwrap().linear;
        assert!((far.x - 1.0 / 3.375).abs() < 1e-4 && far.y == 0.0);
        assert!((near.x / far.x - 8.0).abs() < 1e-3);
        assert_eq!(r.steer(&at(1.2), 0.5, &set, &l).unwrap().linear, Vec2::new(10.0, 0.0));
        assert_eq!(r.steer(&at(0.0), 0.5, &set, &l).unwrap().linear, Vec2::new(10.0, 0.0));
        assert!(r.steer(&at(10.0), 0.5, &set, &l).is_none());
    }
}
