//! Obstacle and wall avoidance (Millington §3.3.15; Green and Buckland §9, §10, §22):
//!
//! - [`ObstacleAvoidance`]: rays cast through a [`CollisionDetector`] in one of Millington's
//!   [`RayLayout`]s (single, long ray with whiskers, parallel, fan), optionally an adaptive fan
//!   and a committed turning side (the corner-trap remedies);
//! - [`DetectionBox`]: Buckland's box in local space against circular obstacles;
//! - [`WallFeelers`]: Buckland's three feelers for walls;
//! - [`RepelObstacle`]: Green's layered 1/x³ repulsion that pushes a character out of obstacles
//!   it touches.
//!
//! All output accelerations (m/s²) within `max_acceleration` and never NaN. They work in 2D
//! (use [`crate::math::ground`] for 2½D); obstacle avoidance
//! ([`ObstacleAvoidance::steer_3d`]) and the repulsion ([`RepelObstacle::steer_3d`]) also
//! work in 3D, against any `CollisionDetector<Vec3>` and an
//! [`ObstacleSet3`](crate::geometry::ObstacleSet3).

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::error::{non_negative, positive, ParamError};
use crate::geometry::{Circle, Ray, Ray3};
use crate::geometry::{
    Collision, Collision3, CollisionDetector, Obstacle, ObstacleSet, ObstacleSet3, Shape,
    StaticWorld,
};
use crate::kinematic::{
    sanitize_dt, Kinematic, Kinematic3, Limits, SteeringOutput, SteeringOutput3,
};
use crate::math::{as_vector, Vector, FORWARD_3D, UP_3D};
use crate::steering::Seek;
use core::f32::consts::FRAC_1_SQRT_2;
use glam::{Vec2, Vec3};

/// A space obstacle avoidance casts its rays in: `Vec2` or `Vec3`, so that
/// [`ObstacleAvoidance::cast_rays`] serves both. Sealed: the rays of each space
/// ([`for_each_ray`](ObstacleAvoidance::for_each_ray) in 2D,
/// [`for_each_ray_3d`](ObstacleAvoidance::for_each_ray_3d) in 3D) are chosen on a private
/// supertrait. The crowd's spaces ([`CrowdVector`](crate::crowd::CrowdVector)) extend it.
pub trait AvoidanceVector: Vector + sealed::Rays {}

impl AvoidanceVector for Vec2 {}
impl AvoidanceVector for Vec3 {}

mod sealed {
    use super::ObstacleAvoidance;
    use crate::geometry::{Ray, Ray3};
    use crate::kinematic::Kinematic;
    use crate::math::Vector;
    use glam::{Vec2, Vec3};

    /// The rays of each space.
    pub trait Rays: Vector {
        /// Calls `f` with each ray `avoid` would cast now for `character`.
        fn rays(avoid: &ObstacleAvoidance, character: &Kinematic<Self>, f: impl FnMut(Ray<Self>));
    }

    impl Rays for Vec2 {
        fn rays(avoid: &ObstacleAvoidance, character: &Kinematic, mut f: impl FnMut(Ray)) {
            avoid.for_each_ray(character, |ray, _| f(ray));
        }
    }

    impl Rays for Vec3 {
        fn rays(avoid: &ObstacleAvoidance, character: &Kinematic<Vec3>, mut f: impl FnMut(Ray3)) {
            avoid.for_each_ray_3d(character, |ray, _| f(ray));
        }
    }
}

/// Most rays a [`RayLayout::Fan`] may cast.
pub const MAX_FAN_RAYS: u8 = 16;

/// Which way a character is heading (unit) and its speed, from its velocity; `None` at rest.
#[inline]
fn heading_of<V: Vector>(character: &Kinematic<V>) -> Option<(V, f32)> {
    let speed_sq = character.velocity.length_squared();
    if !(speed_sq > 0.0) || !speed_sq.is_finite() {
        return None;
    }
    let speed = speed_sq.sqrt();
    Some((character.velocity / speed, speed))
}

/// The heading from the velocity, or from the orientation for a character at rest.
#[inline]
fn heading_or_facing(character: &Kinematic) -> (Vec2, f32) {
    heading_of(character).unwrap_or_else(|| {
        let f = as_vector(character.orientation);
        (if f.is_finite() { f } else { Vec2::X }, 0.0)
    })
}

/// The frame 3D avoidance lays its side rays out in, for a unit heading `h`: `left =
/// normalize(UP × h)` and `up = h × left` (for `h = +x`: left −z, up +y, the character's own
/// frame). Within about 0.06° of vertical (`|UP × h|² < 10⁻⁶`) the reference is −x when
/// climbing and +x when descending instead of UP: the frame of a character that pitched
/// straight up or down from facing +x (left −z).
#[inline]
fn frame_3d(h: Vec3) -> (Vec3, Vec3) {
    let mut left = UP_3D.cross(h);
    if !(left.length_squared() >= 1e-6) {
        let reference = if h.y > 0.0 { -FORWARD_3D } else { FORWARD_3D };
        left = reference.cross(h);
    }
    let left = left.normalize_or_zero();
    (left, h.cross(left))
}

/// The lateral avoid target, in 2D and 3D (see [`ObstacleAvoidance`]): back off a facing
/// surface by `min(n·ĥ, 0)·avoid` and go round by `avoid + d·(1 − |n·ŝ|)` along `sign·ŝ`, so
/// the turn beside a square-on hit is at least 45° whatever its distance `d`, and beside a
/// glancing one the book's offset.
#[inline]
fn lateral_target<V: Vector>(hit: V, distance: f32, n: V, h: V, s: V, sign: f32, avoid: f32) -> V {
    let lateral = avoid + distance * (1.0 - n.dot(s).abs());
    hit + h * (n.dot(h).min(0.0) * avoid) + s * (sign * lateral)
}

/// `v` with its length limited to `max`, rounded as glam's `clamp_length_max`.
#[inline]
fn truncate<V: Vector>(v: V, max: f32) -> V {
    let len_sq = v.length_squared();
    if len_sq > max * max {
        v / len_sq.sqrt() * max
    } else {
        v
    }
}

/// The bounding circle of a solid obstacle (walls have none: they are not solid).
#[inline]
pub(crate) fn bounding_circle(o: &Obstacle) -> Option<Circle> {
    match o {
        Obstacle::Circle(c) => Some(Circle::new(c.center, c.radius.max(0.0))),
        Obstacle::Wall(_) => None,
        Obstacle::Polygon(p) => {
            let b = p.aabb();
            Some(Circle::new(b.center(), b.half_extents().length()))
        }
        Obstacle::Box(b) => Some(Circle::new(b.center(), b.half_extents().length())),
    }
}

/// The ray configurations of Millington Fig 3.26. Angles in radians from the heading, lengths
/// as fractions of the lookahead.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RayLayout {
    /// One ray along the velocity. Cheap and good in concave places, but it grazes convex
    /// corners beside the path (the body is wider than a ray).
    Single,
    /// A long central ray and two short whiskers at `±half_angle`, `whisker_ratio` of its length:
    /// "often the best initial configuration" (Millington).
    Whiskers {
        /// Angle of each whisker from the heading (rad), in `[0, π/2]`.
        half_angle: f32,
        /// Whisker length / central ray length, in `(0, 1]`.
        whisker_ratio: f32,
    },
    /// Two rays parallel to the heading from `±half_width` beside the centre (m): good for very
    /// obtuse corners, very prone to the corner trap.
    Parallel {
        /// Lateral offset of each ray (m), usually the character's radius.
        half_width: f32,
    },
    /// `rays` rays of equal length spread evenly over `[−half_angle, half_angle]`.
    Fan {
        /// Half the fan's spread (rad), in `[0, π/2]`.
        half_angle: f32,
        /// Number of rays, 2 ..= [`MAX_FAN_RAYS`] (1 is [`RayLayout::Single`]).
        rays: u8,
    },
}

impl RayLayout {
    fn validate(self) -> Result<Self, ParamError> {
        let angle = |a: f32| -> Result<(), ParamError> {
            non_negative("half_angle", a)?;
            if a > core::f32::consts::FRAC_PI_2 {
                return Err(ParamError::OutOfRange {
                    name: "half_angle",
                    value: a,
                    range: "at most π/2",
                });
            }
            Ok(())
        };
        match self {
            RayLayout::Single => {}
            RayLayout::Whiskers { half_angle, whisker_ratio } => {
                angle(half_angle)?;
                positive("whisker_ratio", whisker_ratio)?;
                if whisker_ratio > 1.0 {
                    return Err(ParamError::OutOfRange {
                        name: "whisker_ratio",
                        value: whisker_ratio,
                        range: "in (0, 1]",
                    });
                }
            }
            RayLayout::Parallel { half_width } => {
                non_negative("half_width", half_width)?;
            }
            RayLayout::Fan { half_angle, rays } => {
                angle(half_angle)?;
                if !(1..=MAX_FAN_RAYS).contains(&rays) {
                    return Err(ParamError::OutOfRange {
                        name: "rays",
                        value: f32::from(rays),
                        range: "1 ..= 16",
                    });
                }
            }
        }
        Ok(self)
    }

    fn count(self) -> usize {
        match self {
            RayLayout::Single => 1,
            RayLayout::Whiskers { .. } => 3,
            RayLayout::Parallel { .. } => 2,
            RayLayout::Fan { rays, .. } => usize::from(rays),
        }
    }

    /// Ray `i` as (origin offset along the side vector (m), angle from the heading (rad), length
    /// fraction, side: −1 right, 0 centre, +1 left). `angle` overrides the layout's half angle.
    fn ray(self, i: usize, angle: f32) -> (f32, f32, f32, f32) {
        match self {
            RayLayout::Single => (0.0, 0.0, 1.0, 0.0),
            RayLayout::Whiskers { whisker_ratio, .. } => match i {
                0 => (0.0, 0.0, 1.0, 0.0),
                1 => (0.0, angle, whisker_ratio, 1.0),
                _ => (0.0, -angle, whisker_ratio, -1.0),
            },
            RayLayout::Parallel { half_width } => {
                let side = if i == 0 { 1.0 } else { -1.0 };
                (side * half_width, 0.0, 1.0, side)
            }
            RayLayout::Fan { rays, .. } => {
                if rays <= 1 {
                    return (0.0, 0.0, 1.0, 0.0);
                }
                let t = i as f32 / f32::from(rays - 1); // 0 ..= 1, right to left
                let a = angle * (2.0 * t - 1.0);
                let side = if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else {
                    0.0
                };
                (0.0, a, 1.0, side)
            }
        }
    }

    fn half_angle(self) -> f32 {
        match self {
            RayLayout::Whiskers { half_angle, .. } | RayLayout::Fan { half_angle, .. } => {
                half_angle
            }
            RayLayout::Single | RayLayout::Parallel { .. } => 0.0,
        }
    }
}

/// Millington's adaptive fan: the angle between the side rays widens at `rate` rad/s while the
/// rays hit something ("the greater the successive hits, the greater the angle") and narrows at
/// the same rate back to `min_half_angle` when they are clear.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AdaptiveFan {
    /// Half angle while clear (rad).
    pub min_half_angle: f32,
    /// Widest half angle (rad), at most π/2.
    pub max_half_angle: f32,
    /// Widening and narrowing rate (rad/s).
    pub rate: f32,
}

/// Which way [`ObstacleAvoidance`] turns the avoid target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AvoidTarget {
    /// Steer away from the side the hits are on (see [`ObstacleAvoidance`]); the default.
    #[default]
    Lateral,
    /// Millington's literal `hit + normal · avoid_distance`. A face hit square-on has a normal
    /// pointing straight back, so this target gives no turn at all: the character brakes or
    /// drives into the wall. Kept for comparison.
    Normal,
}

/// Ray-cast obstacle and wall avoidance (§3.3.15) over any [`CollisionDetector`].
///
/// Each call casts the layout's rays from the character along its velocity (`None` at rest, as
/// in the book: a zero ray hits nothing). The rays are `lookahead + speed · lookahead_time` m
/// long. On the nearest hit (position `h`, normal `n`), with unit heading `ĥ` and left side `ŝ`:
/// ```text
/// σ = −sign(Σ_hits side_i · (1 − d_i / L_i))   away from the side the hits are on (closer
///                                               hits weigh more; side_i = ±1 left/right ray)
///   else sign(n·ŝ)                             a central hit: the normal's sideways part
///   else the committed side, else +1 (left)    dead ahead, square-on: a fixed choice
/// lateral = avoid_distance + d · (1 − |n·ŝ|)    d = hit distance: beside a glancing hit this is
///                                               the book's offset, beside a square-on one the
///                                               turn is at least 45° however far the hit
/// target = h + ĥ · min(n·ĥ, 0) · avoid_distance + σ ŝ · lateral
///          (while a corner commitment holds: h + avoid_distance · (σ ŝ − ĥ)/√2, turn and brake)
/// a      = seek(target) with max_acceleration
/// ```
/// The book's `h + n · avoid_distance` ([`AvoidTarget::Normal`]) puts the target straight in
/// front of a wall hit square-on, so the character never turns away; the lateral rule always
/// turns.
///
/// Corner-trap remedies (Millington): an [`AdaptiveFan`] widens the side rays' angle while
/// they hit; with [`with_commitment`](Self::with_commitment), a corner (rays on the left and on
/// the right both hit, and the two normals converge ahead: `(n_l + n_r)·ĥ < −0.2`) fixes the
/// turning side, which then wins (braking as it turns) while the nearest hit faces the
/// character (`n·ĥ < 0`), and is remembered for `hold` s after the last such hit
/// ("one ray wins, the others are ignored for a while"), so a character in an acute corner
/// turns one way out instead of flipping between the walls into the apex.
///
/// # In 3D
/// [`steer_3d`](Self::steer_3d) casts the same layout in 3D against any
/// `CollisionDetector<Vec3>` (such as an [`ObstacleSet3`]). With the unit heading `ĥ` (the
/// velocity's direction; nothing at rest), `left = normalize(UP × ĥ)` and `up = ĥ × left` (a
/// character flying along +x has left −z and up +y; within 0.06° of vertical the reference is
/// ∓x instead of UP: see [`for_each_ray_3d`](Self::for_each_ray_3d)), the rays are the 2D
/// layout's twice, round the heading at four azimuths: once in the (ĥ, left) plane exactly
/// as in 2D (its left rays lean left, its right rays right) and once in the (ĥ, up) plane
/// (the left rays lean up, the right rays down); a central ray (angle and offset 0) is cast
/// once. So whiskers cast 5 rays (centre, left, right, up, down), a fan of 7 cast 13, the
/// parallel layout 4 (offset left, right, up, down). Each side ray has a lean `λᵢ` (±left,
/// ±up); on the nearest hit (h, n, distance d):
/// ```text
/// ŝ = −normalize(Σ_hits λᵢ · (1 − dᵢ / Lᵢ))     away from where the hits are
///   else normalize(n − ĥ(n·ĥ))                   a central hit: the normal's sideways part
///   else left                                    dead ahead, square-on
/// target = h + ĥ · min(n·ĥ, 0) · avoid_distance + ŝ · (avoid_distance + d · (1 − |n·ŝ|))
///          (AvoidTarget::Normal: h + n · avoid_distance, Millington's)
/// a      = seek(target) with max_acceleration
/// ```
/// The adaptive fan widens and narrows as in 2D (its half angle applies to both planes). The
/// corner commitment is **not used** in 3D: a committed side is a sign in the plane, and a
/// trap between surfaces converging from several directions has no such one-bit answer, so
/// `with_commitment` has no effect there.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObstacleAvoidance {
    layout: RayLayout,
    avoid_distance: f32,
    lookahead: f32,
    lookahead_time: f32,
    adaptive: Option<AdaptiveFan>,
    hold: f32,
    target_rule: AvoidTarget,
    // state
    angle: f32,
    side: f32,
    hold_left: f32,
}

/// Hits on the left and on the right make a corner when their normals converge ahead:
/// `(n_left + n_right)·ĥ < −0.2` (two walls closing in at more than about 6° each; parallel
/// corridor walls give 0).
const CONVERGING: f32 = -0.2;

/// Obstacle avoidance's memory for one character ([`Stateful`](super::Stateful)): the fan's
/// current half angle (0: the configured start) and the committed side times the hold time
/// left (the side is non-zero exactly while time is held, so one signed number carries both).
/// 8 bytes, so a crowd can keep one per agent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AvoidanceState {
    half_angle: f32,
    side_hold: f32,
}

/// Lets many characters share one configured avoidance.
impl super::Stateful for ObstacleAvoidance {
    type State = AvoidanceState;

    fn state(&self) -> AvoidanceState {
        AvoidanceState { half_angle: self.angle, side_hold: self.side * self.hold_left }
    }

    fn with_state(mut self, state: AvoidanceState) -> Self {
        if state.half_angle > 0.0 {
            self.angle = state.half_angle;
        }
        self.side = if state.side_hold > 0.0 {
            1.0
        } else if state.side_hold < 0.0 {
            -1.0
        } else {
            0.0
        };
        self.hold_left = state.side_hold.abs();
        self
    }
}

impl ObstacleAvoidance {
    /// Avoidance that keeps `avoid_distance` m from what the rays hit (more than the character's
    /// radius), looking `lookahead` m ahead.
    ///
    /// # Errors
    /// If a length is negative or not finite, or the layout's angles, ratio or ray count are out
    /// of range.
    pub fn new(layout: RayLayout, avoid_distance: f32, lookahead: f32) -> Result<Self, ParamError> {
        let layout = layout.validate()?;
        Ok(ObstacleAvoidance {
            layout,
            avoid_distance: non_negative("avoid_distance", avoid_distance)?,
            lookahead: non_negative("lookahead", lookahead)?,
            lookahead_time: 0.0,
            adaptive: None,
            hold: 0.0,
            target_rule: AvoidTarget::Lateral,
            angle: layout.half_angle(),
            side: 0.0,
            hold_left: 0.0,
        })
    }

    /// Rays lengthen with speed: `lookahead + speed · time` m.
    ///
    /// # Errors
    /// If `time` is negative or not finite.
    pub fn with_lookahead_time(mut self, time: f32) -> Result<Self, ParamError> {
        self.lookahead_time = non_negative("lookahead_time", time)?;
        Ok(self)
    }

    /// An adaptive fan (for [`RayLayout::Whiskers`] and [`RayLayout::Fan`]; other layouts have
    /// no angle to adapt). Starts at `min_half_angle`.
    ///
    /// # Errors
    /// If an angle is negative, above π/2 or not finite, `max < min`, or `rate` is negative.
    pub fn adaptive(mut self, fan: AdaptiveFan) -> Result<Self, ParamError> {
        RayLayout::Fan { half_angle: fan.min_half_angle, rays: 2 }.validate()?;
        RayLayout::Fan { half_angle: fan.max_half_angle, rays: 2 }.validate()?;
        crate::error::at_least(
            "max_half_angle",
            fan.max_half_angle,
            "min_half_angle",
            fan.min_half_angle,
        )?;
        non_negative("rate", fan.rate)?;
        self.adaptive = Some(fan);
        self.angle = fan.min_half_angle;
        Ok(self)
    }

    /// The corner-trap remedy "one ray wins": once a corner is detected the side chosen is kept
    /// while hits continue and for `hold` s after the last hit.
    ///
    /// # Errors
    /// If `hold` is negative or not finite.
    pub fn with_commitment(mut self, hold: f32) -> Result<Self, ParamError> {
        self.hold = non_negative("hold", hold)?;
        Ok(self)
    }

    /// Choose the avoid-target rule.
    #[must_use]
    pub fn with_target(mut self, rule: AvoidTarget) -> Self {
        self.target_rule = rule;
        self
    }

    /// The current half angle of the side rays (rad).
    #[must_use]
    pub fn half_angle(&self) -> f32 {
        self.angle
    }

    /// The committed side: +1 left, −1 right, 0 none.
    #[must_use]
    pub fn committed_side(&self) -> f32 {
        self.side
    }

    /// Calls `f` with each ray the character would cast now and its side (−1 right, 0 centre,
    /// +1 left), for drawing and custom detectors. Nothing at rest.
    pub fn for_each_ray(&self, character: &Kinematic, mut f: impl FnMut(Ray, f32)) {
        let Some((h, speed)) = heading_of(character) else { return };
        let s = h.perp();
        let length = self.lookahead + speed * self.lookahead_time;
        for i in 0..self.layout.count() {
            let (offset, angle, fraction, side) = self.layout.ray(i, self.angle);
            let (sin, cos) = angle.sin_cos();
            let dir = h * cos + s * sin;
            f(Ray::new(character.position + s * offset, dir, length * fraction), side);
        }
    }

    /// Casts the rays, updates the fan and the committed side, and returns the acceleration
    /// toward the avoid target, or `None` when nothing is hit (or the character is at rest).
    /// `dt` (s) drives the adaptive fan and the commitment timer; `dt = 0` leaves them as they are.
    pub fn steer<D: CollisionDetector + ?Sized>(
        &mut self,
        character: &Kinematic,
        detector: &D,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput> {
        let dt = sanitize_dt(dt);
        let mut nearest: Option<Collision> = None;
        let mut score = 0.0f32;
        // nearest hit on each side (left, right), for the corner test
        let mut sides: [Option<Collision>; 2] = [None, None];
        self.for_each_ray(character, |ray, side| {
            if let Some(c) = detector.cast_ray(&ray) {
                let reach = ray.max_distance();
                let weight = if reach > 0.0 { 1.0 - (c.distance / reach).min(1.0) } else { 1.0 };
                // a touching hit still counts on its side
                score += side * weight.max(1e-3);
                if side != 0.0 {
                    let slot = &mut sides[usize::from(side < 0.0)];
                    if slot.is_none_or(|b| c.distance < b.distance) {
                        *slot = Some(c);
                    }
                }
                if nearest.is_none_or(|b| c.distance < b.distance) {
                    nearest = Some(c);
                }
            }
        });
        let Some(hit) = nearest else {
            self.clear(dt);
            return None;
        };
        self.widen(dt);
        let (h, _) = heading_of(character)?;
        let s = h.perp();
        let n = hit.normal;
        let target = match self.target_rule {
            AvoidTarget::Normal => hit.position + n * self.avoid_distance,
            AvoidTarget::Lateral => {
                let natural = if score.abs() > 1e-6 {
                    -score.signum()
                } else if n.dot(s).abs() > 1e-3 {
                    n.dot(s).signum()
                } else if self.side != 0.0 {
                    self.side
                } else {
                    1.0
                };
                if self.hold > 0.0 && self.side == 0.0 {
                    // a corner: walls hit on both sides whose normals converge ahead
                    if let [Some(l), Some(r)] = sides {
                        if (l.normal + r.normal).dot(h) < CONVERGING {
                            self.side = natural;
                        }
                    }
                }
                // the commitment acts while the nearest hit still faces the character; once it
                // has turned so the walls open out ahead, the ordinary rule takes over and the
                // commitment runs out after `hold` s
                let trapped = self.side != 0.0 && n.dot(h) < 0.0;
                if trapped {
                    self.hold_left = self.hold;
                } else {
                    self.hold_left = (self.hold_left - dt).max(0.0);
                    if self.hold_left == 0.0 {
                        self.side = 0.0;
                    }
                }
                if trapped {
                    // brake and turn the committed way (a tighter turn than at speed)
                    hit.position + (s * self.side - h) * (self.avoid_distance * FRAC_1_SQRT_2)
                } else {
                    // back off a facing wall; go round by `avoid_distance` beside a glancing hit
                    // (|n·ŝ| = 1, the book's target) and by `avoid_distance + d` beside a
                    // square-on one, so the turn is at least 45° whatever the distance
                    let (p, d) = (hit.position, hit.distance);
                    lateral_target(p, d, n, h, s, natural, self.avoid_distance)
                }
            }
        };
        self.seek_or_back_off(character, target, n, limits)
    }

    /// The 3D rays (see [In 3D](Self#in-3d)): calls `f` with each ray the character would
    /// cast now and its lean, the unit direction it leans to (`left`, `−left`, `up`, `−up`;
    /// zero for a central ray), for drawing and custom detectors. Nothing at rest.
    ///
    /// The frame: `left = normalize(UP × ĥ)`, `up = ĥ × left`; when `|UP × ĥ|² < 10⁻⁶`
    /// (within about 0.06° of vertical), `left = normalize(r × ĥ)` with `r = −x` climbing and
    /// `+x` descending (a character that pitched straight up or down from facing +x). Rays in
    /// the order of the 2D layout, first in the (ĥ, left) plane, then in the (ĥ, up) plane
    /// without the central rays.
    pub fn for_each_ray_3d(&self, character: &Kinematic3, mut f: impl FnMut(Ray3, Vec3)) {
        let Some((h, speed)) = heading_of(character) else { return };
        let (left, up) = frame_3d(h);
        let length = self.lookahead + speed * self.lookahead_time;
        for (plane, s) in [left, up].into_iter().enumerate() {
            for i in 0..self.layout.count() {
                let (offset, angle, fraction, side) = self.layout.ray(i, self.angle);
                if plane == 1 && side == 0.0 {
                    continue; // a central ray, already cast
                }
                let (sin, cos) = angle.sin_cos();
                let dir = h * cos + s * sin;
                f(Ray3::new(character.position + s * offset, dir, length * fraction), s * side);
            }
        }
    }

    /// Casts the rays the character would cast now against `detector` and calls `f` with each
    /// ray and its first hit, for drawing the rays and what they meet, in 2D (`V = Vec2`) or 3D
    /// (`V = Vec3`). The rays are those of [`for_each_ray`](Self::for_each_ray) in 2D and
    /// [`for_each_ray_3d`](Self::for_each_ray_3d) in 3D, in the same order, and the hit is the
    /// detector's [`cast_ray`](CollisionDetector::cast_ray): the nearest [`Collision`] within
    /// the ray's length, its `distance` in metres from the ray's origin (so
    /// `distance / ray.max_distance()` is the fraction of the ray up to the hit), or `None`
    /// when the ray meets nothing. Nothing at rest. The state is not changed.
    ///
    /// ```
    /// use steerkit::geometry::{Circle, ObstacleSet};
    /// use steerkit::kinematic::Kinematic;
    /// use steerkit::steering::{ObstacleAvoidance, RayLayout};
    /// use steerkit::Vec2;
    /// // one 10 m ray along +x, and a disc of radius 1 m whose near edge is 4 m ahead
    /// let avoid = ObstacleAvoidance::new(RayLayout::Single, 1.0, 10.0)?;
    /// let set = ObstacleSet::new([Circle::new(Vec2::new(5.0, 0.0), 1.0).into()])?;
    /// let me = Kinematic { velocity: Vec2::new(2.0, 0.0), ..Kinematic::default() };
    /// let mut seen = Vec::new();
    /// avoid.cast_rays(&me, &set, |ray, hit| {
    ///     seen.push((ray.max_distance(), hit.map(|c| c.distance)));
    /// });
    /// assert_eq!(seen, [(10.0, Some(4.0))]);
    /// # Ok::<(), steerkit::ParamError>(())
    /// ```
    pub fn cast_rays<V: AvoidanceVector, D: CollisionDetector<V> + ?Sized>(
        &self,
        character: &Kinematic<V>,
        detector: &D,
        mut f: impl FnMut(Ray<V>, Option<Collision<V>>),
    ) {
        V::rays(self, character, |ray| f(ray, detector.cast_ray(&ray)));
    }

    /// 3D obstacle avoidance (see [In 3D](Self#in-3d)): casts the rays of
    /// [`for_each_ray_3d`](Self::for_each_ray_3d), updates the adaptive fan, and returns the
    /// acceleration toward the avoid target, or `None` when nothing is hit (or the character
    /// is at rest). The corner commitment is not used in 3D.
    pub fn steer_3d<D: CollisionDetector<Vec3> + ?Sized>(
        &mut self,
        character: &Kinematic3,
        detector: &D,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput3> {
        let dt = sanitize_dt(dt);
        let mut nearest: Option<Collision3> = None;
        let mut lean = Vec3::ZERO;
        self.for_each_ray_3d(character, |ray, side| {
            if let Some(c) = detector.cast_ray(&ray) {
                let reach = ray.max_distance();
                let weight = if reach > 0.0 { 1.0 - (c.distance / reach).min(1.0) } else { 1.0 };
                // a touching hit still counts on its side
                lean += side * weight.max(1e-3);
                if nearest.is_none_or(|b| c.distance < b.distance) {
                    nearest = Some(c);
                }
            }
        });
        let Some(hit) = nearest else {
            self.clear(dt);
            return None;
        };
        self.widen(dt);
        let (h, _) = heading_of(character)?;
        let n = hit.normal;
        let target = match self.target_rule {
            AvoidTarget::Normal => hit.position + n * self.avoid_distance,
            AvoidTarget::Lateral => {
                let sideways = n - h * n.dot(h);
                let s = if lean.length_squared() > 1e-12 {
                    -lean.normalize()
                } else if sideways.length_squared() > 1e-6 {
                    sideways.normalize()
                } else {
                    frame_3d(h).0
                };
                lateral_target(hit.position, hit.distance, n, h, s, 1.0, self.avoid_distance)
            }
        };
        self.seek_or_back_off(character, target, n, limits)
    }

    /// Nothing hit: the commitment runs out after `hold` s and the adaptive fan narrows.
    #[inline]
    fn clear(&mut self, dt: f32) {
        self.hold_left = (self.hold_left - dt).max(0.0);
        if self.hold_left == 0.0 {
            self.side = 0.0;
        }
        if let Some(fan) = self.adaptive {
            self.angle = (self.angle - fan.rate * dt).max(fan.min_half_angle);
        }
    }

    /// Something hit: the adaptive fan widens.
    #[inline]
    fn widen(&mut self, dt: f32) {
        if let Some(fan) = self.adaptive {
            self.angle = (self.angle + fan.rate * dt).min(fan.max_half_angle);
        }
    }

    #[inline]
    fn seek_or_back_off<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: V,
        normal: V,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        Seek::new().steer(character, target, limits).or_else(|| {
            // standing exactly on the target: back away along the normal
            Some(SteeringOutput::linear(normal * limits.max_acceleration()))
        })
    }
}

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
    /// character (each seen as its bounding circle; walls are skipped: use [`WallFeelers`]).
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

/// Buckland's wall feelers (§10.2): a centre feeler `length` m long and two side feelers at
/// `±side_angle` (Buckland: 45°), `side_ratio` of the length (Buckland: ½).
///
/// ```text
/// for each feeler i (tip t_i): nearest hit along it (distance d_i, point h_i, normal n_i)
/// take the feeler whose hit is nearest: overshoot = |t_i − h_i| = len_i − d_i
/// a = n_i · max_acc · overshoot / len_i
/// ```
/// The overshoot is that same feeler's (Buckland's listing pairs one feeler's tip with an
/// earlier feeler's hit: erratum B-E15). Walls are two-sided: the normal faces the character,
/// so a wall met from behind pushes back, not through. A character at rest feels along its
/// orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WallFeelers {
    length: f32,
    side_angle: f32,
    side_ratio: f32,
}

impl WallFeelers {
    /// Buckland's feelers: side feelers at ±45°, half as long.
    ///
    /// # Errors
    /// If `length` is not finite and positive.
    pub fn new(length: f32) -> Result<Self, ParamError> {
        Ok(WallFeelers {
            length: positive("feeler_length", length)?,
            side_angle: core::f32::consts::FRAC_PI_4,
            side_ratio: 0.5,
        })
    }

    /// Side feelers at `±angle` rad (≤ π/2), `ratio` of the centre length (in `(0, 1]`).
    ///
    /// # Errors
    /// If the angle or ratio is out of range.
    pub fn with_sides(mut self, angle: f32, ratio: f32) -> Result<Self, ParamError> {
        if let RayLayout::Whiskers { half_angle, whisker_ratio } =
            (RayLayout::Whiskers { half_angle: angle, whisker_ratio: ratio }).validate()?
        {
            self.side_angle = half_angle;
            self.side_ratio = whisker_ratio;
        }
        Ok(self)
    }

    /// The three feelers (centre, left, right) as rays.
    #[must_use]
    pub fn feelers(&self, character: &Kinematic) -> [Ray; 3] {
        let (h, _) = heading_or_facing(character);
        let s = h.perp();
        let (sin, cos) = self.side_angle.sin_cos();
        let side = self.length * self.side_ratio;
        let p = character.position;
        [
            Ray::new(p, h, self.length),
            Ray::new(p, h * cos + s * sin, side),
            Ray::new(p, h * cos - s * sin, side),
        ]
    }

    /// The push away from the wall the nearest feeler hit, or `None` when all are clear.
    pub fn steer<D: CollisionDetector + ?Sized>(
        &self,
        character: &Kinematic,
        detector: &D,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        let mut best: Option<(Collision, f32)> = None;
        for ray in self.feelers(character) {
            if let Some(c) = detector.cast_ray(&ray) {
                if best.is_none_or(|(b, _)| c.distance < b.distance) {
                    best = Some((c, ray.max_distance()));
                }
            }
        }
        let (hit, len) = best?;
        let overshoot = (len - hit.distance).max(0.0);
        let fraction = if len > 0.0 { overshoot / len } else { 1.0 };
        Some(SteeringOutput::linear(hit.normal * (limits.max_acceleration() * fraction)))
    }
}

/// Green's `RepelObstacle` (§22): a penalty that pushes a character out of the obstacles (and
/// walls) it touches or nearly touches, falling off with the cube of the gap.
///
/// ```text
/// for each obstacle within `range` of the character's surface:
///     gap x = |p − closest point| − own_radius          (≤ 0 when touching or inside)
///     strength = max_acc · min(1, (contact_gap / x)³)   (max_acc for x ≤ contact_gap)
///     a += strength · away                               away = (p − closest)/|p − closest|,
///                                                        or the outward normal when inside
/// a clipped to max_acc
/// ```
/// Green layers the forces: walls are never crossed (a hard constraint), obstacles repel at
/// 1/x³ ("not a force to be trifled with"), and only then do characters separate (1/x²); give
/// this behaviour priority over [`Separation`](crate::steering::Separation) when combining.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RepelObstacle {
    range: f32,
    contact_gap: f32,
}

impl RepelObstacle {
    /// Repulsion from obstacles within `range` m of the character's surface, at full strength
    /// below a gap of `contact_gap` m.
    ///
    /// # Errors
    /// If `range` is negative or `contact_gap` is not positive, or `contact_gap > range`.
    pub fn new(range: f32, contact_gap: f32) -> Result<Self, ParamError> {
        let range = non_negative("range", range)?;
        let contact_gap = positive("contact_gap", contact_gap)?;
        crate::error::at_least("range", range, "contact_gap", contact_gap)?;
        Ok(RepelObstacle { range, contact_gap })
    }

    /// The strength (m/s²) at a surface gap `x` (m): `max_acc · min(1, (contact_gap / x)³)`, 0
    /// beyond the range.
    #[must_use]
    pub fn strength(&self, gap: f32, max_acceleration: f32) -> f32 {
        if gap > self.range {
            0.0
        } else if gap <= self.contact_gap {
            max_acceleration
        } else {
            let r = self.contact_gap / gap;
            max_acceleration * r * r * r
        }
    }

    /// The summed repulsion, or `None` when nothing is within range.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic,
        own_radius: f32,
        set: &ObstacleSet,
        limits: &Limits,
    ) -> Option<SteeringOutput> {
        self.steer_in(character, own_radius, set, limits)
    }

    /// The summed repulsion in 3D from the spheres and boxes of an [`ObstacleSet3`] (the same
    /// formula, with the ball of `own_radius` as the body), or `None` when nothing is within
    /// range.
    #[must_use]
    pub fn steer_3d(
        &self,
        character: &Kinematic3,
        own_radius: f32,
        set: &ObstacleSet3,
        limits: &Limits,
    ) -> Option<SteeringOutput3> {
        self.steer_in(character, own_radius, set, limits)
    }

    /// The repulsion in either space (what [`steer`](Self::steer) and
    /// [`steer_3d`](Self::steer_3d) run, and the crowd's leaf).
    pub(crate) fn steer_in<V: Vector, W: StaticWorld<V>>(
        &self,
        character: &Kinematic<V>,
        own_radius: f32,
        set: &W,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let p = character.position;
        let own = own_radius.max(0.0);
        let max = limits.max_acceleration();
        let mut sum = V::ZERO;
        let mut any = false;
        set.for_each_near(p, own + self.range, |_, o| {
            let q = o.closest_point(p);
            let (away, dist) = {
                let d = p - q;
                let len = d.length();
                if len > 0.0 && len.is_finite() {
                    (d / len, len)
                } else {
                    // inside a solid or exactly on a wall: the shortest way out
                    let probe = o.cast_ray(&Ray::new(p, V::ZERO, 0.0));
                    let n = probe.map_or(V::ZERO, |h| h.normal);
                    // +x when there is none
                    (if n == V::ZERO { V::FACE_NORMALS[1] } else { n }, 0.0)
                }
            };
            let gap = dist - own;
            let strength = self.strength(gap, max);
            if strength > 0.0 {
                any = true;
                sum += away * strength;
            }
        });
        any.then(|| SteeringOutput::linear(truncate(sum, max)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Obstacle3;
    use crate::geometry::Sphere;
    use core::f32::consts::FRAC_PI_4;

    /// Whiskers: a 10 m central ray and two 5 m whiskers at ±45°.
    fn whiskers() -> ObstacleAvoidance {
        let layout = RayLayout::Whiskers { half_angle: FRAC_PI_4, whisker_ratio: 0.5 };
        ObstacleAvoidance::new(layout, 1.0, 10.0).unwrap()
    }

    #[test]
    fn cast_rays_reports_each_ray_with_its_first_hit() {
        // a disc of radius 1 m centred 5 m ahead: its near edge is 4 m along the central ray,
        // and the whiskers (along y = ±x) pass it 3.5 m from its centre
        let set = ObstacleSet::new([Circle::new(Vec2::new(5.0, 0.0), 1.0).into()]).unwrap();
        let me = Kinematic { velocity: Vec2::new(2.0, 0.0), ..Kinematic::default() };
        let mut seen = Vec::new();
        whiskers().cast_rays(&me, &set, |ray, hit| seen.push((ray, hit)));
        let mut rays = Vec::new();
        whiskers().for_each_ray(&me, |ray, _| rays.push(ray));
        assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), rays, "for_each_ray's rays");
        assert_eq!(seen.len(), 3);
        let (centre, hit) = seen[0];
        assert_eq!(centre.max_distance(), 10.0);
        let hit = hit.expect("the central ray meets the disc");
        assert!((hit.distance - 4.0).abs() < 1e-5, "4 m: {hit:?}");
        assert!((hit.distance / centre.max_distance() - 0.4).abs() < 1e-6, "0.4 of the ray");
        assert!(hit.position.distance(Vec2::new(4.0, 0.0)) < 1e-5);
        assert_eq!(hit.normal, Vec2::NEG_X);
        assert!(seen[1].1.is_none() && seen[2].1.is_none(), "the whiskers miss: {seen:?}");
        // at rest: no rays
        let mut none = 0;
        whiskers().cast_rays(&Kinematic::default(), &set, |_, _| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn cast_rays_in_3d_casts_for_each_ray_3d() {
        // a ball of radius 1 m centred 5 m ahead along +x: the central ray hits it at 4 m; the
        // four whiskers (left, right, up, down at 45°) pass it
        let set =
            ObstacleSet3::new([Obstacle3::Sphere(Sphere::new(Vec3::new(5.0, 0.0, 0.0), 1.0))])
                .unwrap();
        let me = Kinematic3 { velocity: Vec3::new(2.0, 0.0, 0.0), ..Kinematic3::default() };
        let mut seen = Vec::new();
        whiskers().cast_rays(&me, &set, |ray, hit| seen.push((ray, hit.map(|c| c.distance))));
        let mut rays = Vec::new();
        whiskers().for_each_ray_3d(&me, |ray, _| rays.push(ray));
        assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), rays, "for_each_ray_3d's rays");
        assert_eq!(seen.len(), 5);
        let d = seen[0].1.expect("the central ray meets the ball");
        assert!((d - 4.0).abs() < 1e-5, "4 m: {d}");
        assert!(seen[1..].iter().all(|s| s.1.is_none()), "the whiskers miss: {seen:?}");
    }
}
