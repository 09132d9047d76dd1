//! Green's layering of the rules of movement (DK2): vehicles **must not** cross walls, **should
//! not** intersect obstacles, and **try not** to intersect each other.
//!
//! - Walls are a hard constraint at integration: [`clip_to_walls`] clips a move so the centre
//!   never crosses a wall (it slides along it instead). Apply it after integrating, or use
//!   [`Layering::integrate`].
//! - Obstacles push out strongly: [`RepelObstacle`], Green's 1/x³ repulsion.
//! - Then neighbours: separation, and last whatever else the agent wants.
//!
//! [`Layering::steer`] combines the last three by the weighted truncated running sum in that
//! order, so a crowd of neighbours can never out-push an obstacle, and nothing can push through a
//! wall. Works for any agent, whatever steers it.

use super::running_sum_observed;
use crate::geometry::{CollisionDetector, ObstacleSet};
use crate::kinematic::{Integration, Kinematic, Limits, SteeringOutput};
use crate::neighbours::Neighbour;
use crate::steering::{RepelObstacle, Separation};
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

/// Green's layering as one recipe: [`RepelObstacle`] first, then neighbour [`Separation`], then
/// the agent's own desire, combined by the truncated running sum in that order; walls are
/// enforced at integration ([`Layering::integrate`] or [`clip_to_walls`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Layering {
    /// Obstacle repulsion (second layer).
    pub repel: RepelObstacle,
    /// Neighbour separation (third layer).
    pub separation: Separation,
}

impl Layering {
    /// The layers.
    #[must_use]
    pub fn new(repel: RepelObstacle, separation: Separation) -> Self {
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
    use crate::geometry::Obstacle;
    use crate::geometry::Segment;

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
}
