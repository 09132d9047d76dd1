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

use crate::error::{non_negative, ParamError};
use crate::geometry::{Circle, Collision, CollisionDetector, Obstacle, Ray};
use crate::kinematic::{sanitize_dt, Kinematic, Limits, SteeringOutput};
use crate::math::{as_vector, Vector};
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

mod detection_box;
mod feelers;
mod layout;
mod repel;
mod space3;

pub use detection_box::{BoxThreat, DetectionBox};
pub use feelers::WallFeelers;
pub use layout::{AdaptiveFan, AvoidTarget, RayLayout};
pub use repel::RepelObstacle;

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
/// `CollisionDetector<Vec3>` (such as an [`ObstacleSet3`](crate::geometry::ObstacleSet3)).
/// With the unit heading `ĥ` (the
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Obstacle3, ObstacleSet, ObstacleSet3, Sphere};
    use crate::kinematic::Kinematic3;
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
