//! The movement model (Millington §3.1): statics, kinematics, steering outputs, limits and
//! integration with an explicit time step.
//!
//! Units: metres, seconds, radians. Positions in m, velocities in m/s, **steering outputs are
//! accelerations** (m/s² and rad/s²), never forces; see `motor` for turning them into forces.

use crate::error::{non_negative, ParamError};
use crate::math::{orientation_of, wrap_angle, Vector};
use glam::{Vec2, Vec3};

/// Position and orientation only: the input of kinematic movement (§3.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Static<V: Vector = Vec2> {
    /// Position (m).
    pub position: V,
    /// Orientation: radians counter-clockwise from +x in 2D, a unit quaternion in 3D.
    pub orientation: V::Orientation,
}

/// Position, orientation and their rates of change (§3.1.3).
///
/// `Kinematic` is 2D; [`Kinematic3`] is 3D (orientation a `Quat`, rotation a world-frame
/// rotation vector `axis · ω`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Kinematic<V: Vector = Vec2> {
    /// Position (m).
    pub position: V,
    /// Orientation (rad in 2D, unit quaternion in 3D).
    pub orientation: V::Orientation,
    /// Linear velocity (m/s).
    pub velocity: V,
    /// Angular velocity (rad/s; a rotation vector in 3D).
    pub rotation: V::Angular,
}

/// A 3D kinematic.
pub type Kinematic3 = Kinematic<Vec3>;
/// A 3D static.
pub type Static3 = Static<Vec3>;
/// A 3D steering output.
pub type SteeringOutput3 = SteeringOutput<Vec3>;

/// What a steering behaviour requests: a linear acceleration (m/s²) and an angular acceleration
/// (rad/s²; a vector in 3D). Behaviours return `Option<SteeringOutput>`, `None` meaning "nothing
/// to say", which combiners treat as zero.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SteeringOutput<V: Vector = Vec2> {
    /// Linear acceleration (m/s²).
    pub linear: V,
    /// Angular acceleration (rad/s²).
    pub angular: V::Angular,
}

/// What a kinematic movement algorithm requests (§3.2): a velocity (m/s) and a rotation (rad/s).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct KinematicSteeringOutput<V: Vector = Vec2> {
    /// Desired velocity (m/s).
    pub velocity: V,
    /// Desired rotation (rad/s).
    pub rotation: V::Angular,
}

impl<V: Vector> SteeringOutput<V> {
    /// No acceleration.
    pub const ZERO: Self = SteeringOutput { linear: V::ZERO, angular: V::ANGULAR_ZERO };

    /// A purely linear request.
    #[must_use]
    #[inline]
    pub fn linear(linear: V) -> Self {
        SteeringOutput { linear, angular: V::Angular::default() }
    }

    /// A purely angular request.
    #[must_use]
    #[inline]
    pub fn angular(angular: V::Angular) -> Self {
        SteeringOutput { linear: V::ZERO, angular }
    }

    /// Both channels limited to the given maxima (vector length and angular magnitude,
    /// symmetrically).
    #[must_use]
    #[inline]
    pub fn clamped(self, max_linear: f32, max_angular: f32) -> Self {
        SteeringOutput {
            linear: self.linear.clamp_length_max(max_linear),
            angular: V::clamp_angular(self.angular, max_angular),
        }
    }

    /// True when both channels are finite.
    #[must_use]
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.linear.is_finite() && V::angular_is_finite(self.angular)
    }
}

impl<V: Vector> core::ops::Add for SteeringOutput<V> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        SteeringOutput { linear: self.linear + o.linear, angular: self.angular + o.angular }
    }
}

impl<V: Vector> core::ops::Mul<f32> for SteeringOutput<V> {
    type Output = Self;
    #[inline]
    fn mul(self, k: f32) -> Self {
        SteeringOutput { linear: self.linear * k, angular: self.angular * k }
    }
}

/// The physical limits of a character, validated at construction.
///
/// - `max_speed` (m/s): the integrator clips speed to it.
/// - `max_acceleration` (m/s²): behaviours never request more; the integrator clips to it.
/// - `max_rotation` (rad/s): Align's target turn rate; the integrator clips to it.
/// - `max_angular_acceleration` (rad/s²).
///
/// Every value must be finite and not negative.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Limits {
    max_speed: f32,
    max_acceleration: f32,
    max_rotation: f32,
    max_angular_acceleration: f32,
}

impl Limits {
    /// Validated limits.
    ///
    /// # Errors
    /// [`ParamError`] naming the first value that is negative, NaN or infinite.
    pub fn new(
        max_speed: f32,
        max_acceleration: f32,
        max_rotation: f32,
        max_angular_acceleration: f32,
    ) -> Result<Self, ParamError> {
        Ok(Limits {
            max_speed: non_negative("max_speed", max_speed)?,
            max_acceleration: non_negative("max_acceleration", max_acceleration)?,
            max_rotation: non_negative("max_rotation", max_rotation)?,
            max_angular_acceleration: non_negative(
                "max_angular_acceleration",
                max_angular_acceleration,
            )?,
        })
    }

    /// Maximum speed (m/s).
    #[must_use]
    #[inline]
    pub fn max_speed(&self) -> f32 {
        self.max_speed
    }
    /// Maximum linear acceleration (m/s²).
    #[must_use]
    #[inline]
    pub fn max_acceleration(&self) -> f32 {
        self.max_acceleration
    }
    /// Maximum rotation speed (rad/s).
    #[must_use]
    #[inline]
    pub fn max_rotation(&self) -> f32 {
        self.max_rotation
    }
    /// Maximum angular acceleration (rad/s²).
    #[must_use]
    #[inline]
    pub fn max_angular_acceleration(&self) -> f32 {
        self.max_angular_acceleration
    }
}

/// The integration scheme (§3.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Scheme {
    /// Newton–Euler-1: position from the **old** velocity, then velocity from the acceleration
    /// (`p += v·dt; v += a·dt`). The usual game update.
    #[default]
    NewtonEuler1,
    /// The exact form for a constant acceleration over the step: `p += v·dt + ½·a·dt²`.
    Exact,
    /// Semi-implicit (symplectic) Euler: velocity first, then position from the **new**
    /// velocity (`v += a·dt; p += v·dt`), so a velocity chosen for this step (ORCA's) is the
    /// one the character moves with.
    SemiImplicit,
}

/// How [`Kinematic::integrate_with`] advances a character: the scheme and optional drag.
///
/// Drag is a rate `k` (1/s): with no acceleration, speed decays as `e^(−k·t)`, and under a
/// constant acceleration `a` the speed tends to `a/k`. It is integrated exactly over each step, so
/// the result does not depend on the frame rate (unlike `v *= 1 − k·dt`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Integration {
    /// Integration scheme.
    pub scheme: Scheme,
    /// Linear drag rate (1/s), ≥ 0.
    pub linear_drag: f32,
    /// Angular drag rate (1/s), ≥ 0.
    pub angular_drag: f32,
}

impl Integration {
    /// Validated integration settings.
    ///
    /// # Errors
    /// If a drag rate is negative or not finite.
    pub fn new(scheme: Scheme, linear_drag: f32, angular_drag: f32) -> Result<Self, ParamError> {
        Ok(Integration {
            scheme,
            linear_drag: non_negative("linear_drag", linear_drag)?,
            angular_drag: non_negative("angular_drag", angular_drag)?,
        })
    }
}

/// `(1 − e^(−k·dt)) / k` (→ `dt` as k → 0) and `(dt − that) / k` (→ `dt²/2`): the exact
/// velocity and position weights of a constant acceleration under linear drag.
#[inline]
pub(crate) fn drag_weights(k: f32, dt: f32) -> (f32, f32, f32) {
    let kdt = k * dt;
    if kdt == 0.0 {
        // no drag: the series below with kdt = 0, without the exp call
        return (1.0, dt, dt * dt * 0.5);
    }
    if kdt < 1e-4 {
        // series: avoids 0/0 and cancellation
        let phi = dt * (1.0 - 0.5 * kdt);
        let psi = dt * dt * (0.5 - kdt / 6.0);
        ((-kdt).exp(), phi, psi)
    } else {
        let decay = (-kdt).exp();
        let phi = -(-kdt).exp_m1() / k;
        (decay, phi, (dt - phi) / k)
    }
}

/// Weighted blending, [`combine::blend_observed`](crate::combine::blend_observed): here beside
/// the outputs and limits it sums, so that behaviours built from others (the flocking presets)
/// combine them without depending on `combine`, which builds on the behaviours.
pub(crate) fn weighted_blend<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
    mut observe: impl FnMut(usize, SteeringOutput<V>),
) -> SteeringOutput<V> {
    let mut sum = SteeringOutput::<V>::ZERO;
    for (i, (w, s)) in members.into_iter().enumerate() {
        let part = s.unwrap_or_default() * w;
        observe(i, part);
        sum = sum + part;
    }
    sum.clamped(limits.max_acceleration(), limits.max_angular_acceleration())
}

/// The weighted truncated running sum,
/// [`combine::running_sum_observed`](crate::combine::running_sum_observed); here for the same
/// reason as [`weighted_blend`].
pub(crate) fn truncated_running_sum<V: Vector>(
    members: impl IntoIterator<Item = (f32, Option<SteeringOutput<V>>)>,
    limits: &Limits,
    mut observe: impl FnMut(usize, SteeringOutput<V>),
) -> SteeringOutput<V> {
    let (max_lin, max_ang) = (limits.max_acceleration(), limits.max_angular_acceleration());
    let mut sum = SteeringOutput::<V>::ZERO;
    let (mut lin_used, mut ang_used) = (0.0f32, 0.0f32);
    for (i, (w, s)) in members.into_iter().enumerate() {
        let lin_left = (max_lin - lin_used).max(0.0);
        let ang_left = (max_ang - ang_used).max(0.0);
        let part = s.unwrap_or_default() * w;
        let added = SteeringOutput {
            linear: part.linear.clamp_length_max(lin_left),
            angular: V::clamp_angular(part.angular, ang_left),
        };
        observe(i, added);
        sum = sum + added;
        // "remaining" is measured from |running sum| (Buckland): opposing members free budget
        lin_used = sum.linear.length();
        ang_used = V::angular_magnitude(sum.angular);
        // stop before pulling (and so evaluating) the next member once the budget is spent
        if lin_used >= max_lin && ang_used >= max_ang {
            break;
        }
    }
    sum.clamped(max_lin, max_ang)
}

/// A 2D request with non-finite channels replaced by zero: what a motor or an actuator acts on,
/// so a NaN request cannot reach the state.
pub(crate) fn sanitize(request: &SteeringOutput) -> SteeringOutput {
    SteeringOutput {
        linear: if request.linear.is_finite() { request.linear } else { Vec2::ZERO },
        angular: if request.angular.is_finite() { request.angular } else { 0.0 },
    }
}

/// `dt` if finite and positive, else 0: the one guard on a time step. A step it turns into 0
/// advances nothing.
pub(crate) fn sanitize_dt(dt: f32) -> f32 {
    if dt.is_finite() && dt > 0.0 {
        dt
    } else {
        0.0
    }
}

impl<V: Vector> Kinematic<V> {
    /// A kinematic at rest at `position` with `orientation`.
    #[must_use]
    pub fn at_rest(position: V, orientation: V::Orientation) -> Self {
        Kinematic { position, orientation, velocity: V::ZERO, rotation: V::Angular::default() }
    }

    /// Position and orientation only.
    #[must_use]
    #[inline]
    pub fn to_static(&self) -> Static<V> {
        Static { position: self.position, orientation: self.orientation }
    }

    /// True when every field is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && V::orientation_is_finite(self.orientation)
            && V::angular_is_finite(self.rotation)
    }

    /// Advances by `dt` seconds with Newton–Euler-1 and no drag, clipping the request to the
    /// acceleration limits and the result to `max_speed` and `max_rotation` (§3.3.3: clipping is
    /// a post-process of the update, not the behaviour's job).
    ///
    /// ```text
    /// a = clamp(steering.linear, max_acceleration)
    /// p += v·dt;  v = clamp(v + a·dt, max_speed)
    /// ```
    /// `dt = 0` leaves the state unchanged. `dt` must be finite and ≥ 0: a negative or non-finite
    /// `dt` is a programmer error and leaves the state unchanged (checked in debug builds).
    #[inline]
    pub fn integrate(&mut self, steering: &SteeringOutput<V>, limits: &Limits, dt: f32) {
        self.integrate_with(steering, limits, &Integration::default(), dt);
    }

    /// Advances by `dt` seconds with the given scheme and drag; see [`Integration`] and
    /// [`Kinematic::integrate`].
    pub fn integrate_with(
        &mut self,
        steering: &SteeringOutput<V>,
        limits: &Limits,
        integration: &Integration,
        dt: f32,
    ) {
        debug_assert!(dt.is_finite() && dt >= 0.0, "dt must be finite and >= 0, got {dt}");
        if sanitize_dt(dt) == 0.0 {
            return;
        }
        let a = steering.linear.clamp_length_max(limits.max_acceleration);
        let alpha = V::clamp_angular(steering.angular, limits.max_angular_acceleration);

        // Linear: v' = a − k·v, solved exactly over the step (k = 0 reduces to the book's forms).
        let (decay, phi, psi) = drag_weights(integration.linear_drag, dt);
        let v0 = self.velocity;
        let v1 = (v0 * decay + a * phi).clamp_length_max(limits.max_speed);
        self.position += match integration.scheme {
            Scheme::Exact => v0 * phi + a * psi,
            Scheme::NewtonEuler1 => v0 * dt,
            Scheme::SemiImplicit => v1 * dt,
        };
        self.velocity = v1;

        let (decay, phi, psi) = drag_weights(integration.angular_drag, dt);
        let w0 = self.rotation;
        // Orientation advances by the mean rotation over the step in the exact scheme.
        let w1 = V::clamp_angular(w0 * decay + alpha * phi, limits.max_rotation);
        let mean_w = match integration.scheme {
            Scheme::Exact => w0 * (phi / dt) + alpha * (psi / dt),
            Scheme::NewtonEuler1 => w0,
            Scheme::SemiImplicit => w1,
        };
        self.orientation = V::rotate_orientation(self.orientation, mean_w, dt);
        self.rotation = w1;
    }

    /// Applies a kinematic (velocity-level) request for `dt` seconds (§3.2): the velocity and
    /// rotation are set to the request clipped to `max_speed` and `max_rotation`, then
    /// `p += v·dt`, orientation advanced by `rotation·dt`.
    pub fn apply_kinematic(
        &mut self,
        request: &KinematicSteeringOutput<V>,
        limits: &Limits,
        dt: f32,
    ) {
        debug_assert!(dt.is_finite() && dt >= 0.0, "dt must be finite and >= 0, got {dt}");
        self.velocity = request.velocity.clamp_length_max(limits.max_speed);
        self.rotation = V::clamp_angular(request.rotation, limits.max_rotation);
        if sanitize_dt(dt) == 0.0 {
            return;
        }
        self.position += self.velocity * dt;
        self.orientation = V::rotate_orientation(self.orientation, self.rotation, dt);
    }
}

impl Kinematic<Vec2> {
    /// Smoothed independent facing (§3.1.3, Fig 3.6): eases the orientation toward the direction
    /// of motion, covering half the remaining angle every `half_life` seconds
    /// (`o += wrap(heading − o)·(1 − 2^(−dt/half_life))`), which is frame-rate independent.
    /// `half_life = 0` snaps. Nothing changes while the speed is at or below `min_speed` (Green's
    /// epsilon test: a nearly stopped character must not flip round on a tiny velocity).
    pub fn face_motion(&mut self, dt: f32, half_life: f32, min_speed: f32) {
        let speed_sq = self.velocity.length_squared();
        if speed_sq <= min_speed * min_speed || speed_sq == 0.0 {
            return;
        }
        let heading = orientation_of(self.velocity);
        let delta = wrap_angle(heading - self.orientation);
        let k = if half_life > 0.0 { 1.0 - (-dt / half_life).exp2() } else { 1.0 };
        self.orientation = wrap_angle(self.orientation + delta * k);
    }
}

/// Green's local frame: a unit heading and its left-hand side vector, updated from the velocity
/// only when `|v|² ≥ min_speed_sq` (default 0.001 m²/s²) so a decelerating vehicle does not flip
/// round on a vanishing velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LocalFrame {
    /// Unit heading (local +x).
    pub heading: Vec2,
    /// Unit side vector, `perp(heading)`: local +y, to the left.
    pub side: Vec2,
}

impl LocalFrame {
    /// Green's `minimum_velocity_sq`.
    pub const MIN_SPEED_SQ: f32 = 0.001;

    /// The frame of an orientation.
    #[must_use]
    pub fn from_orientation(orientation: f32) -> Self {
        let heading = crate::math::as_vector(orientation);
        LocalFrame { heading, side: heading.perp() }
    }

    /// Re-aims the frame along `velocity` when `|velocity|² ≥ min_speed_sq`; returns whether it
    /// changed.
    pub fn update(&mut self, velocity: Vec2, min_speed_sq: f32) -> bool {
        let sq = velocity.length_squared();
        if sq >= min_speed_sq && sq > 0.0 {
            self.heading = velocity / sq.sqrt();
            self.side = self.heading.perp();
            true
        } else {
            false
        }
    }

    /// A world point in this frame placed at `origin`: `((P−o)·h, (P−o)·s)`.
    #[must_use]
    #[inline]
    pub fn point_to_local(&self, origin: Vec2, point: Vec2) -> Vec2 {
        let d = point - origin;
        Vec2::new(d.dot(self.heading), d.dot(self.side))
    }

    /// A local point back to the world: `o + q.x·h + q.y·s`.
    #[must_use]
    #[inline]
    pub fn point_to_world(&self, origin: Vec2, local: Vec2) -> Vec2 {
        origin + self.heading * local.x + self.side * local.y
    }

    /// A world vector in this frame.
    #[must_use]
    #[inline]
    pub fn vector_to_local(&self, v: Vec2) -> Vec2 {
        Vec2::new(v.dot(self.heading), v.dot(self.side))
    }

    /// A local vector back to the world.
    #[must_use]
    #[inline]
    pub fn vector_to_world(&self, local: Vec2) -> Vec2 {
        self.heading * local.x + self.side * local.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn limits() -> Limits {
        Limits::new(10.0, 5.0, 3.0, 6.0).unwrap()
    }

    #[test]
    fn limits_reject_bad_values_by_name() {
        let e = Limits::new(-1.0, 1.0, 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("max_speed"), "{e}");
        let e = Limits::new(1.0, f32::NAN, 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("max_acceleration"), "{e}");
        let e = Limits::new(1.0, 1.0, f32::INFINITY, 1.0).unwrap_err();
        assert!(matches!(e, ParamError::NotFinite { name: "max_rotation", .. }));
        assert!(Integration::new(Scheme::Exact, -0.1, 0.0).is_err());
    }

    #[test]
    fn newton_euler_uses_old_velocity_and_exact_adds_half_a_t_squared() {
        let s = SteeringOutput::linear(Vec2::new(2.0, 0.0));
        let mut k = Kinematic::<Vec2>::default();
        k.integrate(&s, &limits(), 0.5);
        assert_eq!(k.position, Vec2::ZERO);
        assert_eq!(k.velocity, Vec2::new(1.0, 0.0));
        let mut e = Kinematic::<Vec2>::default();
        e.integrate_with(
            &s,
            &limits(),
            &Integration { scheme: Scheme::Exact, ..Default::default() },
            0.5,
        );
        assert!((e.position.x - 0.25).abs() < 1e-6); // ½·2·0.5²
        assert_eq!(e.velocity, Vec2::new(1.0, 0.0));
    }

    #[test]
    fn speed_and_rotation_are_clipped_and_requests_truncated() {
        let mut k =
            Kinematic { velocity: Vec2::new(9.9, 0.0), rotation: 2.9, ..Default::default() };
        k.integrate(
            &SteeringOutput { linear: Vec2::new(100.0, 0.0), angular: 100.0 },
            &limits(),
            0.1,
        );
        assert!((k.velocity.length() - 10.0).abs() < 1e-5);
        assert!((k.rotation - 3.0).abs() < 1e-6);
        // request truncated to max_acceleration: from rest one step gives a·dt = 5·0.1
        let mut r = Kinematic::<Vec2>::default();
        r.integrate(&SteeringOutput::linear(Vec2::new(0.0, 100.0)), &limits(), 0.1);
        assert!((r.velocity.length() - 0.5).abs() < 1e-6);
    }

    #[test]
    fn dt_zero_changes_nothing() {
        let mut k =
            Kinematic { position: Vec2::ONE, velocity: Vec2::X, rotation: 1.0, orientation: 0.3 };
        let before = k;
        k.integrate(&SteeringOutput { linear: Vec2::Y, angular: 1.0 }, &limits(), 0.0);
        assert_eq!(k, before);
    }

    #[test]
    fn drag_is_frame_rate_independent() {
        let l = Limits::new(100.0, 5.0, 3.0, 6.0).unwrap();
        let integ = Integration::new(Scheme::Exact, 0.8, 0.0).unwrap();
        let run = |dt: f32| {
            let mut k = Kinematic { velocity: Vec2::new(0.0, 3.0), ..Default::default() };
            let steps = (2.0 / dt).round() as usize;
            for _ in 0..steps {
                k.integrate_with(&SteeringOutput::linear(Vec2::new(4.0, 0.0)), &l, &integ, dt);
            }
            k
        };
        let a = run(1.0 / 30.0);
        let b = run(1.0 / 120.0);
        assert!((a.velocity - b.velocity).length() < 1e-4, "{:?} {:?}", a.velocity, b.velocity);
        assert!((a.position - b.position).length() < 1e-4);
        // analytic: vx(2) = a/k·(1 − e^(−1.6)), vy(2) = 3·e^(−1.6)
        assert!((a.velocity.x - 5.0 * (1.0 - (-1.6f32).exp())).abs() < 1e-4);
        assert!((a.velocity.y - 3.0 * (-1.6f32).exp()).abs() < 1e-4);
        // terminal speed a/k with Newton-Euler velocity too
        let mut k = Kinematic::<Vec2>::default();
        let ne = Integration::new(Scheme::NewtonEuler1, 0.8, 0.0).unwrap();
        for _ in 0..2000 {
            k.integrate_with(&SteeringOutput::linear(Vec2::X * 4.0), &l, &ne, 1.0 / 60.0);
        }
        assert!((k.velocity.x - 5.0).abs() < 1e-3);
    }

    #[test]
    fn quaternion_integration_stays_unit_and_turns_exactly() {
        let l = Limits::new(10.0, 10.0, 10.0, 10.0).unwrap();
        let mut k =
            Kinematic3 { rotation: Vec3::Y * core::f32::consts::FRAC_PI_2, ..Default::default() };
        for _ in 0..60 {
            k.integrate(&SteeringOutput3::ZERO, &l, 1.0 / 60.0);
        }
        assert!((k.orientation.length() - 1.0).abs() < 1e-5);
        let expect = Quat::from_rotation_y(core::f32::consts::FRAC_PI_2);
        assert!(k.orientation.angle_between(expect) < 1e-3);
    }

    #[test]
    fn face_motion_eases_and_ignores_tiny_velocity() {
        let mut k = Kinematic { velocity: Vec2::Y, ..Default::default() };
        k.face_motion(0.1, 0.1, 0.01);
        assert!((k.orientation - core::f32::consts::FRAC_PI_4).abs() < 1e-5);
        let mut still =
            Kinematic { velocity: Vec2::new(-1e-4, 0.0), orientation: 0.5, ..Default::default() };
        still.face_motion(0.1, 0.0, 0.01);
        assert_eq!(still.orientation, 0.5);
    }

    #[test]
    fn local_frame_epsilon_guard_and_round_trip() {
        let mut f = LocalFrame::from_orientation(0.0);
        assert!(!f.update(Vec2::new(-0.01, 0.0), LocalFrame::MIN_SPEED_SQ));
        assert_eq!(f.heading, Vec2::X);
        assert!(f.update(Vec2::new(0.0, 2.0), LocalFrame::MIN_SPEED_SQ));
        assert!((f.side - Vec2::new(-1.0, 0.0)).length() < 1e-6); // left of +y is −x
        let o = Vec2::new(3.0, 1.0);
        let p = Vec2::new(-2.0, 7.0);
        assert!((f.point_to_world(o, f.point_to_local(o, p)) - p).length() < 1e-5);
    }
}
