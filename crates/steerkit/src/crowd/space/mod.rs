//! What differs between the crowd engine's two spaces (`Vec2`, `Vec3`) below the step's
//! phases: facing the motion, the static world and the containment in it, ORCA, the planar
//! leaves (the crate-private `Space`), and the world's bounds. Nothing here knows a phase; a
//! phase with a per-space form of its own (the lane blend, the lane move, formations) keeps
//! its trait beside it, and `CrowdVector` (the crowd's root) requires them all.

use crate::geometry::{ObstacleId, ObstacleSet, Shape, StaticWorld};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::steering::ObstacleAvoidance;
use glam::Vec2;

mod bounds;
mod plane;
mod volume;

pub(crate) use bounds::body_range;
pub use bounds::WorldBounds;
pub(crate) use plane::facing_angle;
pub use volume::FAKE_TURN_TIME;

pub(crate) use sealed::{Contact, Space};

/// ORCA's preferred velocity: where the steering request, clipped to the limits, takes the
/// velocity in `dt`, within the top speed by `clamp` (glam's, the rounding the results were
/// recorded with).
#[inline]
fn orca_preferred<V: Vector>(
    me: &Kinematic<V>,
    request: &SteeringOutput<V>,
    limits: &Limits,
    dt: f32,
    clamp: fn(V, f32) -> V,
) -> V {
    let a = request.clamped(limits.max_acceleration(), limits.max_angular_acceleration());
    clamp(me.velocity + a.linear * dt, limits.max_speed())
}

/// [`Space::orca_clear`] in either space: `None` when `dt` is not positive or a static
/// obstacle lies within ORCA's reach (its constraint would come first); `clamp` is glam's and
/// `shortcut` the space's `Orca::clear_velocity_2d` or `_3d`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn orca_clear_with<V: Vector, O: StaticWorld<V>>(
    orca: &crate::steering::Orca,
    me: &Kinematic<V>,
    radius: f32,
    request: SteeringOutput<V>,
    limits: &Limits,
    obstacles: Option<&O>,
    dt: f32,
    clamp: fn(V, f32) -> V,
    shortcut: impl FnOnce(V, V, f32) -> Option<V>,
) -> Option<SteeringOutput<V>> {
    if dt.is_nan() || dt <= 0.0 {
        return None;
    }
    if let Some(set) = obstacles {
        let mut near = false;
        set.for_each_near(me.position, obstacle_reach(orca, limits, radius), |_, _| near = true);
        if near {
            return None;
        }
    }
    let preferred = orca_preferred(me, &request, limits, dt, clamp);
    let v = shortcut(me.velocity, preferred, limits.max_speed())?;
    Some(SteeringOutput { linear: (v - me.velocity) / dt, angular: request.angular })
}

/// How far (m) ORCA looks for static obstacles: the obstacle horizon at top speed, plus the
/// body.
#[inline]
fn obstacle_reach(orca: &crate::steering::Orca, limits: &Limits, radius: f32) -> f32 {
    let reach = orca.obstacle_time_horizon() * limits.max_speed() + radius;
    if reach.is_finite() {
        reach
    } else {
        0.0
    }
}

mod sealed {
    use super::{Kinematic, Limits, ObstacleAvoidance, ObstacleId, ObstacleSet, SteeringOutput};
    use super::{StaticWorld, Vec2};
    use crate::math::Vector;

    /// What the static world did to one agent's move.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Contact {
        /// Nothing touched.
        None,
        /// The body met this wall: the centre's move across it was refused (Green), or the
        /// body reached it and was held off it.
        Wall(ObstacleId),
        /// The centre would have entered this solid obstacle: the move was refused.
        Blocked(ObstacleId),
        /// The body reached this solid obstacle (and was pushed back out of it).
        Touch(ObstacleId),
    }

    /// The engine's per-space operations below the phases (reachable only inside the crate).
    pub trait Space: Vector {
        /// The static world of this space: [`ObstacleSet`] in 2D,
        /// [`ObstacleSet3`](crate::geometry::ObstacleSet3) in 3D.
        type Obstacles: StaticWorld<Self>;
        /// The orientation that looks along `direction` (not zero), starting from `current`
        /// (3D keeps the roll by taking the shortest arc).
        fn facing(current: Self::Orientation, direction: Self) -> Self::Orientation;
        /// Look where you're going with `align` (3D: `LookWhereYoureGoing3`).
        fn look_where_going(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Face `target` with `align` (3D: `Face3`).
        fn face(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            target: Self,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Align to the heading `orientation` (rad; 3D: the ground heading's quaternion, `Align3`).
        fn align(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            orientation: f32,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Faked rotation axes after a step from velocity `before` (3D only; groups in 2D
        /// cannot have them): the turn rate is smoothed into `kinematic.rotation` and the
        /// orientation set from it and the velocity.
        fn fake_facing(
            fake: &crate::three_d::FakeRotation,
            before: Self,
            kinematic: &mut Kinematic<Self>,
            dt: f32,
        );
        /// Drives `kinematic` through `motor` for `dt` seconds on `steering` (2D only: the
        /// vehicle models are planar, and a 3D group cannot have one); returns the controls.
        fn drive(
            motor: &crate::motor::Motor,
            kinematic: &mut Kinematic<Self>,
            steering: &SteeringOutput<Self>,
            limits: &Limits,
            dt: f32,
            previous: Option<crate::motor::Controls>,
        ) -> Option<crate::motor::Controls>;
        /// The velocity ORCA picks for the agent `me` among its neighbours (each with the
        /// [`Pair`](crate::steering::Pair) `pair` gives) and the static obstacles within reach, as the request that
        /// reaches it in `dt`.
        #[allow(clippy::too_many_arguments)]
        fn orca(
            orca: &crate::steering::Orca,
            me: &Kinematic<Self>,
            radius: f32,
            request: SteeringOutput<Self>,
            limits: &Limits,
            neighbours: &[crate::neighbours::Neighbour<Self>],
            pair: impl Fn(&crate::neighbours::Neighbour<Self>) -> Option<crate::steering::Pair>,
            obstacles: Option<&Self::Obstacles>,
            dt: f32,
            scratch: &mut crate::steering::OrcaScratch,
        ) -> SteeringOutput<Self>;
        /// Adds the half-space `{ v : (v − point)·normal ≥ 0 }` (`normal` unit) to the
        /// constraints of the next [`orca`](Self::orca) call, as a static obstacle's.
        fn keep_to(scratch: &mut crate::steering::OrcaScratch, point: Self, normal: Self);
        /// [`orca`](Self::orca)'s answer, without building a constraint, for an agent whose
        /// preference keeps clear of every neighbour: `all_clear` runs the test it is given on
        /// each one. `None` when that cannot be told (a static obstacle in reach, a neighbour
        /// not clear, the agent held up): then `orca` answers.
        #[allow(clippy::too_many_arguments)]
        fn orca_clear(
            orca: &crate::steering::Orca,
            me: &Kinematic<Self>,
            radius: f32,
            request: SteeringOutput<Self>,
            limits: &Limits,
            obstacles: Option<&Self::Obstacles>,
            dt: f32,
            all_clear: impl FnOnce(&crate::steering::Reach<Self>) -> bool,
        ) -> Option<SteeringOutput<Self>>;
        /// The planar (2D) view of a kinematic, for the recipe leaves that only exist in 2D
        /// (walls, detection boxes, hiding, orientation behaviours); `None` in 3D.
        fn planar(k: &Kinematic<Self>) -> Option<Kinematic<Vec2>>;
        /// A planar steering output in this space (3D: zero; never reached, since 2D-only
        /// leaves are refused by 3D crowds).
        fn from_planar(s: SteeringOutput<Vec2>) -> SteeringOutput<Self>;
        /// The planar obstacle set, for the 2D-only leaves (the same set in 2D; `None` in 3D).
        fn planar_obstacles(set: &Self::Obstacles) -> Option<&ObstacleSet>;
        /// The planar path, for vehicles (the same path in 2D; `None` in 3D).
        fn planar_path(path: &crate::path::Polyline<Self>) -> Option<&crate::path::Polyline<Vec2>>;
        /// Obstacle avoidance in this space: [`ObstacleAvoidance::steer`] in 2D,
        /// [`ObstacleAvoidance::steer_3d`] in 3D.
        fn avoid_obstacles(
            leaf: &mut ObstacleAvoidance,
            me: &Kinematic<Self>,
            set: &Self::Obstacles,
            limits: &Limits,
            dt: f32,
        ) -> Option<SteeringOutput<Self>>;
    }
}

/// Applies the static world to a move from `old` to `position`, in 2D and 3D: a centre never
/// crosses a wall or enters a solid (the move is refused and the velocity loses its component
/// into the surface), then the body (the disc or ball of `radius`) is pushed out of every wall
/// and solid it overlaps, and a body touching a solid is reported.
pub(crate) fn contain<V: Vector, W: StaticWorld<V>>(
    obstacles: &W,
    old: V,
    position: &mut V,
    velocity: &mut V,
    radius: f32,
    touching: bool,
) -> Contact {
    let step = *position - old;
    let mut blocked = Contact::None;
    if step != V::ZERO {
        if let Some(hit) = obstacles.first_hit(old, step) {
            *position = old;
            let into = velocity.dot(hit.normal);
            if into < 0.0 {
                *velocity -= hit.normal * into;
            }
            blocked = if obstacles.shape(hit.obstacle).is_some_and(|o| o.is_wall()) {
                Contact::Wall(hit.obstacle)
            } else {
                Contact::Blocked(hit.obstacle)
            };
        }
    }
    // The body: the centre moves out of every obstacle (wall or solid) the body overlaps, by
    // the overlap, along the line from the obstacle's nearest point, unless that would carry
    // it through another obstacle (a gap narrower than the body). A few passes settle a body
    // wedged in a corner; the set's fixed visiting order keeps the result independent of the
    // agents' order. Contact is reported within a slightly larger body while it lasts, so a
    // body sliding along a surface is one contact, not many.
    let report = if touching { radius * (1.0 + CONTACT_HYSTERESIS) } else { radius };
    let mut touch: Option<(ObstacleId, bool)> = None;
    for pass in 0..PUSH_PASSES {
        let mut pushed = false;
        let reach = if pass == 0 { report } else { radius };
        obstacles.for_each_near(*position, reach, |id, o| {
            let nearest = o.closest_point(*position);
            let (mut normal, distance) = (*position - nearest).unit_and_length_f64();
            if distance == 0.0 {
                // the centre on the surface: out toward where it came from
                normal = (old - nearest).normalize_or_zero();
            }
            let depth = radius - distance;
            if depth > 0.0 && normal != V::ZERO {
                let push = normal * depth;
                if obstacles.first_hit(*position, push).is_none() {
                    *position += push;
                    pushed = true;
                    let into = velocity.dot(normal);
                    if into < 0.0 {
                        *velocity -= normal * into;
                    }
                }
            }
            if pass == 0 && touch.is_none_or(|(t, _)| id.0 < t.0) {
                touch = Some((id, o.is_wall()));
            }
        });
        if !pushed {
            break;
        }
    }
    match (blocked, touch) {
        (Contact::None, Some((id, true))) => Contact::Wall(id),
        (Contact::None, Some((id, false))) => Contact::Touch(id),
        _ => blocked,
    }
}

/// Passes of the body's push-out from the static world (one suffices away from corners).
const PUSH_PASSES: usize = 4;

/// A contact with the static world lasts while the gap stays under this fraction of the radius.
const CONTACT_HYSTERESIS: f32 = 0.1;
