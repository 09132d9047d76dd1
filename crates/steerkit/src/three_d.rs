//! Movement in 3D (Millington §3.9): align, face, look where you're going and wander with
//! quaternion orientations, the align-to-vector construction, and faked rotation axes for display.
//!
//! Conventions (see [`crate::math`]): y-up and right-handed; an orientation is a unit [`Quat`]
//! acting as `v' = q·v·q*` (glam's `q * v`, which uses the conjugate); a character looks down its
//! local **+x** axis ([`FORWARD_3D`]), with local +y up ([`UP_3D`]) and local +z to its right.
//! Angular velocities and accelerations are **world-frame** rotation vectors `axis·ω` (rad/s,
//! rad/s²), the form [`Kinematic::integrate`](crate::kinematic::Kinematic::integrate) consumes.
//!
//! The ten purely linear behaviours (seek, flee, arrive, velocity matching, ...) are generic over
//! [`Vector`](crate::math::Vector) and already work in 3D; only the four with an angular part
//! need the types here.

use crate::error::{finite, non_negative, ParamError};
use crate::kinematic::{Kinematic3, Limits, SteeringOutput3};
use crate::math::Rng;
use crate::math::{ground, FORWARD_3D, UP_3D};
use crate::steering::{Align, Stop};
use core::f32::consts::PI;
use glam::{Quat, Vec2, Vec3, Vec4};

/// Below this rotation speed (rad/s) an aligned character counts as not turning: far below any
/// visible drift (a cut-off like 10⁻⁴ rad/s leaves a creeping turn), above the subnormal range
/// where braking by a fraction of the speed stops making progress (as arrive's rest speed).
const REST_ROTATION: f32 = 1e-12;

/// Below this `sin(θ/2)` a rotation counts as none: θ < 2·10⁻⁶ rad is rounding noise in the
/// product of two f32 unit quaternions, and its axis is meaningless.
const MIN_SIN_HALF_ANGLE: f32 = 1e-6;

/// Below this `|a × b|` two unit directions count as parallel or opposite (about 10⁻⁶ rad).
const MIN_SIN_ANGLE: f32 = 1e-6;

/// The unit quaternion of `q`, computed without overflow or underflow for any finite `q`; the
/// identity for a zero or non-finite `q` (no orientation to speak of).
#[inline]
fn unit_quat(q: Quat) -> Quat {
    let v = Vec4::from(q);
    if !v.is_finite() {
        return Quat::IDENTITY;
    }
    let m = v.abs().max_element();
    if m <= 0.0 {
        return Quat::IDENTITY;
    }
    let u = v / m; // largest component ±1, so 1 ≤ |u| ≤ 2
    Quat::from_vec4(u / u.length())
}

/// The unit vector along `v`, computed without overflow or underflow for any finite `v`; `None`
/// for a zero or non-finite `v`.
#[inline]
fn unit_vec(v: Vec3) -> Option<Vec3> {
    if !v.is_finite() {
        return None;
    }
    let m = v.abs().max_element();
    if m <= 0.0 {
        return None;
    }
    let u = v / m;
    Some(u / u.length())
}

/// `(desired − current) / time`, limited in magnitude to `max`, evaluated in f64 so that no
/// finite input can overflow into an infinite or NaN request. `time > 0`.
#[inline]
fn response(desired: Vec3, current: Vec3, time: f32, max: f32) -> Vec3 {
    let a = (desired.as_dvec3() - current.as_dvec3()) / f64::from(time);
    let len = a.length();
    let max = f64::from(max.max(0.0));
    let a = if len > max { a * (max / len) } else { a };
    a.as_vec3()
}

/// The shortest rotation that turns orientation `from` onto `to`, as a world-frame unit axis and
/// an angle θ ∈ [0, π] (rad).
///
/// ```text
/// q = to · from⁻¹          (world frame: q · from = to; from⁻¹ = from* for unit quaternions)
/// q_w < 0 → q = −q          (double cover: q and −q are the same rotation; keep θ ≤ π)
/// θ = 2·atan2(|q_xyz|, q_w),  axis = q_xyz / |q_xyz|
/// ```
/// `2·atan2(|q_xyz|, q_w)` equals the book's `2·acos(q_w)` for a unit `q`, but it is defined for
/// every input (no clamp of `q_w` into [−1, 1] is needed when rounding pushes it past 1) and
/// keeps full precision near θ = 0, where `acos` loses half the digits.
///
/// The world-frame choice matters: the book's `from⁻¹·to` is the same rotation expressed in the
/// character's local frame, and feeding its axis to a world-frame rotation vector turns about the
/// wrong axis whenever the character is not at the identity.
///
/// Degenerate cases: inputs are normalised first (a zero or non-finite quaternion counts as the
/// identity); when θ < 2·10⁻⁶ rad the axis is undefined and the result is `(Vec3::ZERO, 0.0)`.
/// Opposite quaternions (`to = −from`) are the same orientation and give θ = 0.
#[must_use]
pub fn shortest_rotation(from: Quat, to: Quat) -> (Vec3, f32) {
    let mut q = unit_quat(to) * unit_quat(from).conjugate();
    if q.w < 0.0 {
        q = -q;
    }
    let v = q.xyz();
    let sin_half = v.length();
    if sin_half <= MIN_SIN_HALF_ANGLE {
        return (Vec3::ZERO, 0.0);
    }
    (v / sin_half, 2.0 * sin_half.atan2(q.w))
}

/// Align to vector (§3.9.4): the orientation that looks along `direction` (its forward, local +x,
/// on the direction) and is otherwise as close as possible to `base`.
///
/// ```text
/// d = direction / |direction|,  f = base · x̂            (both unit)
/// θ = atan2(|f × d|, f · d) ∈ [0, π]                      (not asin|f × d|)
/// a = unit(f × d), with its component along f removed     (rotation axis, world frame)
/// result = q(θ, a) · base                                  (world rotation after the base)
/// ```
/// so `result · x̂ = d`, and the result differs from `base` by the minimum angle θ. The base sets
/// the free roll about the look direction: the identity keeps the character upright for targets
/// in the ground plane; a tilted base gives, e.g., leaning into turns.
///
/// Book errata fixed here: the angle uses `atan2`, because `asin|f × d|` gives π − θ and
/// under-rotates for targets more than 90° away; the input is normalised first (the book passes
/// the raw `target − position`, so `|f × d|` can exceed 1 and `asin` returns NaN); a target
/// directly behind is a half turn about the base's up axis (the book's `−base` is the *same*
/// orientation as `base`, so it never turns round); the composition is `q(θ, a) · base` (the
/// book's code drops the base, its prose's `base⁻¹ · q(θ, a)` is wrong for any non-identity base);
/// parallel and opposite are angle tests, not exact float equality.
///
/// Degenerate cases: a zero or non-finite direction gives `None`. A direction within about
/// 10⁻⁶ rad of the base forward gives the base; within about 10⁻⁶ rad of directly behind it gives
/// `q(π, base · ŷ) · base`. Just off directly behind, the minimal rotation is a turn of nearly π
/// about an axis set by the small sideways part of the direction, so it may pitch the character
/// over onto its back: that is the minimal rotation. A non-unit `base` is normalised (zero or
/// non-finite counts as the identity). The result is always a unit quaternion.
#[must_use]
#[doc(alias = "orientation_facing")]
#[doc(alias = "calculate_orientation")]
pub fn align_to_vector(direction: Vec3, base: Quat) -> Option<Quat> {
    let d = unit_vec(direction)?;
    let base = unit_quat(base);
    let f = base * FORWARD_3D;
    let cross = f.cross(d);
    let cos = f.dot(d);
    let sin = cross.length();
    if sin < MIN_SIN_ANGLE {
        return Some(if cos > 0.0 {
            base
        } else {
            (Quat::from_axis_angle(base * UP_3D, PI) * base).normalize()
        });
    }
    // Remove the rounding error along f so that the axis is square to the forward axis: with a
    // nearly opposite target a tilt of the axis toward f would otherwise swing the result's
    // forward by up to 2·tilt.
    let axis = (cross - f * cross.dot(f)).normalize();
    let angle = sin.atan2(cos);
    Some((Quat::from_axis_angle(axis, angle) * base).normalize())
}

/// Align in 3D (§3.9.3): match a target orientation, the 2D [`Align`]'s speed profile applied to
/// the angle of the shortest rotation.
///
/// ```text
/// (â, θ) = shortest_rotation(orientation, target)     world frame, θ ∈ [0, π]
/// θ < target_radius (or θ ≈ 0) → brake: angular = −rotation / time_to_target (Stop::Brake,
///                                  None once |rotation| < 10⁻⁴ rad/s), or None (Stop::Coast)
/// ω* = align.rotation_speed(θ, max_rotation)           rad/s, as in 2D
/// angular = (â·ω* − rotation) / time_to_target, limited in magnitude to max_angular_acceleration
/// ```
/// Radii are angles (rad); the output is a world-frame angular acceleration vector (rad/s²) with
/// zero linear part. The character always turns the short way (θ ≤ π), and the current rotation
/// is corrected in every direction, so a sideways spin is damped while turning.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "Align3D")]
pub struct Align3 {
    /// The 2D align whose radii, response time and stop policy this uses.
    pub align: Align,
}

impl Align3 {
    /// 3D align with the parameters of a 2D [`Align`].
    #[must_use]
    pub fn new(align: Align) -> Self {
        Align3 { align }
    }

    /// The angular acceleration that turns the character to `target` (a quaternion; normalised
    /// first, zero or non-finite counts as the identity).
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic3,
        target: Quat,
        limits: &Limits,
    ) -> Option<SteeringOutput3> {
        let (axis, angle) = shortest_rotation(character.orientation, target);
        let target_rotation = match self.align.rotation_speed(angle, limits.max_rotation()) {
            // `min`: the 2D profile computes `max_rotation·θ/slow_radius`, which can round to
            // +∞ for absurdly large limits, and `0·∞` would put a NaN in the vector.
            Some(speed) => axis * speed.min(limits.max_rotation()),
            None => {
                if self.align.stop() == Stop::Coast || character.rotation.length() < REST_ROTATION {
                    return None;
                }
                Vec3::ZERO
            }
        };
        Some(SteeringOutput3::angular(response(
            target_rotation,
            character.rotation,
            self.align.time_to_target(),
            limits.max_angular_acceleration(),
        )))
    }
}

/// Face in 3D (§3.9.5): turn to look at a position.
///
/// ```text
/// direction = target − position
/// angular   = Align3 toward align_to_vector(direction, base)
/// ```
/// The target orientation is the minimal rotation of `base` that puts its forward (+x) on the
/// direction (see [`align_to_vector`]), so `base` also fixes the roll the character settles at;
/// the default identity keeps it upright for targets at its own height. Returns `None` when the
/// character is on the target (no direction), and whenever [`Align3`] returns `None`. Output in
/// rad/s², world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "Face3D")]
pub struct Face3 {
    /// The align this delegates to.
    pub align: Align3,
    /// The base orientation the target orientation is built from (normalised on use; a zero or
    /// non-finite base counts as the identity).
    pub base: Quat,
}

impl Face3 {
    /// Face with the identity as base orientation.
    #[must_use]
    pub fn new(align: Align) -> Self {
        Face3 { align: Align3::new(align), base: Quat::IDENTITY }
    }

    /// The same face with another base orientation.
    #[must_use]
    pub fn with_base(mut self, base: Quat) -> Self {
        self.base = base;
        self
    }

    /// The angular acceleration that turns the character toward the position `target`.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic3,
        target: Vec3,
        limits: &Limits,
    ) -> Option<SteeringOutput3> {
        // Halved first: the difference of any two finite positions is then finite.
        let direction = target * 0.5 - character.position * 0.5;
        self.steer_along(character, direction, limits)
    }

    /// The angular acceleration that turns the character to look along `direction` (any length;
    /// zero gives `None`).
    #[must_use]
    pub fn steer_along(
        &self,
        character: &Kinematic3,
        direction: Vec3,
        limits: &Limits,
    ) -> Option<SteeringOutput3> {
        let target = align_to_vector(direction, self.base)?;
        self.align.steer(character, target, limits)
    }
}

/// Look where you're going in 3D (§3.9.6): face along the character's own velocity.
///
/// `angular = Face3 along velocity` (rad/s², world frame). Returns `None` when the velocity is zero
/// (no preferred facing, as in 2D) and whenever the align does.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "LookWhereYoureGoing3D")]
pub struct LookWhereYoureGoing3 {
    /// The face this delegates to (its base sets the roll).
    pub face: Face3,
}

impl LookWhereYoureGoing3 {
    /// Look where you're going with the identity as base orientation.
    #[must_use]
    pub fn new(align: Align) -> Self {
        LookWhereYoureGoing3 { face: Face3::new(align) }
    }

    /// The same behaviour with another base orientation.
    #[must_use]
    pub fn with_base(mut self, base: Quat) -> Self {
        self.face.base = base;
        self
    }

    /// The angular acceleration that turns the character toward its velocity.
    #[must_use]
    pub fn steer(&self, character: &Kinematic3, limits: &Limits) -> Option<SteeringOutput3> {
        self.face.steer_along(character, character.velocity, limits)
    }
}

/// Wander in 3D (§3.9.7): face a target that drifts at random over an ellipsoid in front of the
/// character, while accelerating flat out along the current facing.
///
/// ```text
/// w ← normalize(w + rate·√dt′·(b₁, b₂, b₃))    bᵢ = Rng::binomial() ∈ (−1, 1), dt′ = min(dt, 1 s)
/// s = orientation · w                            (unit, world frame)
/// direction = orientation · offset + (radius_xz·s_x, radius_y·s_y, radius_xz·s_z)
/// angular = Face3 along direction   (zero when Face3 has nothing to say)
/// linear  = (orientation · x̂) · max_acceleration
/// ```
/// `w` is the persistent **unit** wander target in the character's frame (it starts at +x, dead
/// ahead); `offset` (m) is in the character's frame, typically `(d, 0, 0)` in front; the radii (m)
/// scale the world horizontal and vertical parts, so `radius_y < radius_xz` makes the wander turn
/// more readily left and right than up and down (with an upright base: bees, birds, aircraft).
///
/// **Frame-rate awareness.** The book adds `rate·(b₁, b₂, b₃)` once per call, so the wander speeds
/// up with the frame rate. Here each call is a random-walk step scaled by `√dt`: `rate` is in
/// units of 1/√s and the spread of `w` after a time `t` (per component variance `rate²·t/6`
/// before normalisation) does not depend on how `t` is cut into frames. To reproduce a per-frame
/// rate `r` of the book at a fixed frame time `Δ`, use `rate = r / √Δ`. Steps longer than 1 s
/// count as 1 s; `dt = 0` (or a negative or NaN `dt`) leaves `w` where it is. Every call draws
/// exactly three numbers from the generator, so the same seed and the same calls give the same
/// trajectory.
///
/// **Why `rate < 1/√3`.** The step has norm `< √3·rate·√dt′ < 1 = |w|`, so `w` plus the step can
/// never be zero and always normalises.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "Wander3D")]
pub struct Wander3 {
    face: Face3,
    offset: Vec3,
    radius_xz: f32,
    radius_y: f32,
    rate: f32,
    target: Vec3,
    rng: Rng,
}

impl Wander3 {
    /// The exclusive upper bound of `rate`: `1/√3` (rounded down in f32 so the bound holds).
    pub const MAX_RATE: f32 = 0.577_350_26;

    /// Wander with a face (its align and base), a local `offset` (m), the ellipsoid radii (m), a
    /// `rate` (1/√s) and the seed of its own generator.
    ///
    /// # Errors
    /// A non-finite `offset` component, negative or non-finite radii, or a `rate` outside
    /// `[0, 1/√3)`.
    pub fn new(
        face: Face3,
        offset: Vec3,
        radius_xz: f32,
        radius_y: f32,
        rate: f32,
        seed: u64,
    ) -> Result<Self, ParamError> {
        finite("offset.x", offset.x)?;
        finite("offset.y", offset.y)?;
        finite("offset.z", offset.z)?;
        non_negative("radius_xz", radius_xz)?;
        non_negative("radius_y", radius_y)?;
        non_negative("rate", rate)?;
        if rate >= Self::MAX_RATE {
            return Err(ParamError::OutOfRange {
                name: "rate",
                value: rate,
                range: "below 1/√3 ≈ 0.577",
            });
        }
        Ok(Wander3 {
            face,
            offset,
            radius_xz,
            radius_y,
            rate,
            target: FORWARD_3D,
            rng: Rng::new(seed),
        })
    }

    /// The face used for the angular part.
    #[must_use]
    pub fn face(&self) -> &Face3 {
        &self.face
    }
    /// The centre of the wander ellipsoid in the character's frame (m).
    #[must_use]
    pub fn offset(&self) -> Vec3 {
        self.offset
    }
    /// Horizontal radius (m).
    #[must_use]
    pub fn radius_xz(&self) -> f32 {
        self.radius_xz
    }
    /// Vertical radius (m).
    #[must_use]
    pub fn radius_y(&self) -> f32 {
        self.radius_y
    }
    /// Random-walk rate (1/√s).
    #[must_use]
    pub fn rate(&self) -> f32 {
        self.rate
    }
    /// The current unit wander target, in the character's frame.
    #[must_use]
    pub fn wander_target(&self) -> Vec3 {
        self.target
    }

    /// Advances the wander target by `dt` seconds and returns the steering: full forward
    /// acceleration and the angular acceleration that faces the wander target (zero angular when
    /// the face has nothing to say, e.g. aligned under `Stop::Coast` or a zero ellipsoid).
    pub fn steer(&mut self, character: &Kinematic3, limits: &Limits, dt: f32) -> SteeringOutput3 {
        let dt = if dt > 0.0 { dt.min(1.0) } else { 0.0 };
        let jitter = Vec3::new(self.rng.binomial(), self.rng.binomial(), self.rng.binomial())
            * (self.rate * dt.sqrt());
        if let Some(t) = unit_vec(self.target + jitter) {
            self.target = t;
        }
        let q = unit_quat(character.orientation);
        let on_sphere = q * self.target;
        let radii = Vec3::new(self.radius_xz, self.radius_y, self.radius_xz);
        // Scaled by 1/8 (exact): only the direction matters, and it keeps the sum finite for any
        // finite offset and radii.
        let direction = q * (self.offset * 0.125) + on_sphere * (radii * 0.125);
        let angular =
            self.face.steer_along(character, direction, limits).map_or(Vec3::ZERO, |s| s.angular);
        SteeringOutput3 { linear: (q * FORWARD_3D) * limits.max_acceleration(), angular }
    }
}

/// Faked rotation axes (§3.9.8): a display-only orientation that banks and pitches a 2½D
/// character like an aircraft, computed from its kinematic each frame at no steering cost.
///
/// ```text
/// speed = |v|;  speed = 0 → the kinematic orientation (normalised)
/// θ (yaw)   = heading of the kinematic orientation about +y        (ground::quat_to_heading)
/// φ (pitch) = atan2(v_y, |v_xz|) = asin(v·ŷ / |v|)                  (0 with pitch off)
/// ψ (roll)  = atan2(rotation·ŷ, roll_scale)  ∈ (−π/2, π/2)          (negated with roll outward)
/// faked = q(θ, ŷ) · q(φ, ẑ) · q(−ψ, x̂)                              (body frame: yaw, pitch, roll)
/// blend = min(speed / blend_speed, 1)
/// result = nlerp(kinematic, faked, blend)                           (same hemisphere, unit)
/// ```
/// Signs in this crate's frame (forward +x, up +y, right +z): a positive turn about +z lifts the
/// nose, so a climbing velocity (φ > 0) pitches up; a positive yaw rate turns left, and the bank
/// `q(−ψ, x̂)` then lowers the left wing, leaning into the turn. With yaw equal to the velocity's
/// heading, the displayed forward is exactly the velocity direction.
///
/// `roll_scale` `k` (rad/s) is the yaw rate that gives a 45° bank: ψ(k) = π/4, and ψ → ±π/2 only
/// asymptotically. Bigger `k` means less lean; `k = 0` banks a full π/2 at any turn (a pure
/// pitch turn, in which pitching about the displayed right axis yaws the craft). `blend_speed`
/// (m/s) is the speed from which the faked orientation is used in full; below it the display eases
/// toward the kinematic orientation, so a stopping craft levels out instead of snapping.
///
/// Variants: [`FakeRotation::roll_outward`] negates ψ so a vehicle leans out of its turns; with
/// [`FakeRotation::with_pitch`]`(false)` as well, a car (no controllable vertical speed) gets a
/// "soggy suspension" body roll, which wants a high `roll_scale`.
///
/// Book errata fixed: the listing's `q_roll·q_pitch·q_yaw` applies pitch and roll about world axes
/// after the yaw, wrong whenever yaw ≠ 0 (here body-frame `q_yaw·q_pitch·q_roll`); the pitch sign is
/// chosen and tested so a climbing craft noses up; roll uses the rotation's component about up;
/// `atan(1)` is π/4, not π/2; the weighted sum of quaternions is put in one hemisphere and
/// normalised (glam's [`Quat::lerp`]), so the result is always unit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "get_fake_orientation")]
pub struct FakeRotation {
    blend_speed: f32,
    roll_scale: f32,
    roll_outward: bool,
    pitch: bool,
}

impl FakeRotation {
    /// Faked axes rolling into turns, with pitch, from a blend speed (m/s) and a roll scale
    /// (rad/s).
    ///
    /// # Errors
    /// A negative or non-finite `blend_speed` or `roll_scale`.
    pub fn new(blend_speed: f32, roll_scale: f32) -> Result<Self, ParamError> {
        Ok(FakeRotation {
            blend_speed: non_negative("blend_speed", blend_speed)?,
            roll_scale: non_negative("roll_scale", roll_scale)?,
            roll_outward: false,
            pitch: true,
        })
    }

    /// The same faking with the roll reversed (`true`: lean out of turns, as a car body does).
    #[must_use]
    pub fn roll_outward(mut self, outward: bool) -> Self {
        self.roll_outward = outward;
        self
    }

    /// The same faking with pitch from the velocity on or off (off for ground vehicles).
    #[must_use]
    pub fn with_pitch(mut self, pitch: bool) -> Self {
        self.pitch = pitch;
        self
    }

    /// Blend speed (m/s).
    #[must_use]
    pub fn blend_speed(&self) -> f32 {
        self.blend_speed
    }
    /// Roll scale (rad/s).
    #[must_use]
    pub fn roll_scale(&self) -> f32 {
        self.roll_scale
    }
    /// True when the roll is reversed.
    #[must_use]
    pub fn is_roll_outward(&self) -> bool {
        self.roll_outward
    }
    /// True when the pitch follows the velocity.
    #[must_use]
    pub fn has_pitch(&self) -> bool {
        self.pitch
    }

    /// The three faked angles `(yaw θ, pitch φ, roll ψ)` in radians, before blending: θ ∈ (−π, π],
    /// φ ∈ [−π/2, π/2] (0 at zero velocity or with pitch off), ψ ∈ (−π/2, π/2) with ψ > 0 a bank
    /// into a left turn (sign reversed with roll outward).
    #[must_use]
    pub fn angles(&self, kinematic: &Kinematic3) -> (f32, f32, f32) {
        let yaw = ground::quat_to_heading(unit_quat(kinematic.orientation));
        let v = kinematic.velocity;
        let pitch = match unit_vec(v) {
            Some(u) if self.pitch => u.y.atan2(Vec2::new(u.x, u.z).length()),
            _ => 0.0,
        };
        let yaw_rate = kinematic.rotation.dot(UP_3D);
        let roll = yaw_rate.atan2(self.roll_scale);
        let roll = if roll.is_nan() { 0.0 } else { roll };
        (yaw, pitch, if self.roll_outward { -roll } else { roll })
    }

    /// The display orientation of `kinematic` (always a unit quaternion).
    #[must_use]
    pub fn orientation(&self, kinematic: &Kinematic3) -> Quat {
        let current = unit_quat(kinematic.orientation);
        let v = kinematic.velocity;
        if !v.is_finite() {
            return current;
        }
        let m = v.abs().max_element();
        if m <= 0.0 {
            return current;
        }
        let speed = m * (v / m).length(); // may round to +∞ for huge finite v: blend 1
        let blend = if speed >= self.blend_speed { 1.0 } else { speed / self.blend_speed };
        let (yaw, pitch, roll) = self.angles(kinematic);
        let faked = Quat::from_rotation_y(yaw)
            * Quat::from_rotation_z(pitch)
            * Quat::from_rotation_x(-roll);
        // glam's lerp flips `faked` into the hemisphere of `current` and normalises (nlerp).
        current.lerp(faked, blend)
    }
}

/// The book's `getFakeOrientation(kinematic, maxSpeed, rollScale)`: [`FakeRotation`] rolling into
/// turns, with pitch, blended in full from `blend_speed` (m/s), with roll scale `roll_scale`
/// (rad/s). Negative or NaN parameters act as 0 (no blending; a full π/2 bank whenever turning);
/// an infinite `roll_scale` gives no roll. Always a unit quaternion.
#[must_use]
pub fn fake_orientation(kinematic: &Kinematic3, blend_speed: f32, roll_scale: f32) -> Quat {
    FakeRotation {
        blend_speed: blend_speed.max(0.0),
        roll_scale: roll_scale.max(0.0),
        roll_outward: false,
        pitch: true,
    }
    .orientation(kinematic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4};

    const DT: f32 = 1.0 / 60.0;

    fn limits() -> Limits {
        Limits::new(10.0, 5.0, 2.0, 10.0).unwrap()
    }

    /// Target radius 0.005 rad (0.29°), slow radius 0.6 rad, 0.1 s response.
    fn align() -> Align {
        Align::new(0.005, 0.6, 0.1).unwrap()
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    fn forward(q: Quat) -> Vec3 {
        q * FORWARD_3D
    }

    /// Angle (rad) between two directions, accurate near 0 and π.
    fn angle(a: Vec3, b: Vec3) -> f32 {
        a.cross(b).length().atan2(a.dot(b))
    }

    /// Angle (rad) between two orientations.
    fn q_angle(a: Quat, b: Quat) -> f32 {
        shortest_rotation(a, b).1
    }

    fn unit(q: Quat) -> bool {
        q.is_finite() && (q.length() - 1.0).abs() < 1e-5
    }

    // ---- §3.9.5 erratum: the vector transform uses the conjugate, not the negation ----

    #[test]
    fn vector_transform_uses_the_conjugate_not_the_negation() {
        let q = Quat::from_rotation_y(FRAC_PI_2); // a quarter turn left
        let v = Quat::from_xyzw(1.0, 0.0, 0.0, 0.0); // x̂ as a pure quaternion
        let conj = q * v * q.conjugate();
        // the listing's `orientation * v * (-orientation)`
        let neg = q * v * (-q);
        // q·x̂·q* is the rotated vector: forward +x turns to −z (left)
        assert!((conj.xyz() - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
        assert!(conj.w.abs() < 1e-6);
        // and is what the crate's transforms (glam's `q * v`) compute
        assert!((forward(q) - conj.xyz()).length() < 1e-6);
        assert!((<Vec3 as crate::math::Vector>::to_world(q, Vec3::X) - conj.xyz()).length() < 1e-6);
        // negating all four components gives −(q·v·q) = −x̂ here: not a rotation of x̂ at all
        assert!((neg.xyz() - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-6);
        assert!((neg.xyz() - conj.xyz()).length() > 1.0);
    }

    #[test]
    fn quaternion_products_do_not_commute() {
        let a = Quat::from_rotation_x(FRAC_PI_2);
        let b = Quat::from_rotation_y(FRAC_PI_2);
        assert!(q_angle(a * b, b * a) > 1.0);
        // a·b applies b first: ŷ-turn takes x̂ to −ẑ, then the x̂-turn takes −ẑ to +ŷ
        assert!(((a * b) * Vec3::X - Vec3::Y).length() < 1e-6);
        assert!(((b * a) * Vec3::X - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
    }

    // ---- §3.9.3: rotation needed, world frame, double cover, q_w past 1, θ ≈ 0 ----

    #[test]
    fn shortest_rotation_is_in_the_world_frame() {
        // a character yawed 90° whose target is pitched 0.5 rad about the *world* x axis
        let s = Quat::from_rotation_y(FRAC_PI_2);
        let t = Quat::from_rotation_x(0.5) * s;
        let (axis, theta) = shortest_rotation(s, t);
        assert!((axis - Vec3::X).length() < 1e-5, "{axis}");
        assert!((theta - 0.5).abs() < 1e-5);
        // the book's s⁻¹·t is the same turn expressed in the character's frame (about +z
        // here): used as a world rotation vector it would turn about the wrong axis
        let local = (s.conjugate() * t).to_scaled_axis();
        assert!((local.normalize() - Vec3::X).length() > 1.0);
        // integrating the world-frame vector reaches the target
        let reached = <Vec3 as crate::math::Vector>::rotate_orientation(s, axis * theta, 1.0);
        assert!(q_angle(reached, t) < 1e-5);
    }

    #[test]
    fn shortest_rotation_takes_the_short_way_across_the_double_cover() {
        let a = Vec3::new(1.0, 2.0, 2.0) / 3.0;
        let t = Quat::from_axis_angle(a, deg(350.0));
        for target in [t, -t] {
            let (axis, theta) = shortest_rotation(Quat::IDENTITY, target);
            assert!((theta - deg(10.0)).abs() < 1e-5, "θ = {theta}");
            assert!((axis + a).length() < 1e-4, "{axis}");
        }
    }

    #[test]
    fn shortest_rotation_degenerate_inputs() {
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -1.2, 2.0);
        // identical and opposite quaternions are the same orientation
        assert_eq!(shortest_rotation(q, q), (Vec3::ZERO, 0.0));
        assert_eq!(shortest_rotation(q, -q), (Vec3::ZERO, 0.0));
        // w rounded past 1 (acos would be NaN without a clamp)
        let over = Quat::from_xyzw(0.0, 0.0, 0.0, 1.000_000_1);
        assert_eq!(shortest_rotation(Quat::IDENTITY, over), (Vec3::ZERO, 0.0));
        // zero and non-unit quaternions
        assert_eq!(
            shortest_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), Quat::IDENTITY),
            (Vec3::ZERO, 0.0)
        );
        let (axis, theta) =
            shortest_rotation(Quat::IDENTITY * 7.0, Quat::from_rotation_z(1.0) * 0.01);
        assert!((axis - Vec3::Z).length() < 1e-5 && (theta - 1.0).abs() < 1e-5);
        // a half turn is π, never more
        let (_, half) = shortest_rotation(Quat::IDENTITY, Quat::from_rotation_y(PI));
        assert!((half - PI).abs() < 1e-5);
        // precise for tiny angles (acos of w loses them)
        let (_, tiny) = shortest_rotation(Quat::IDENTITY, Quat::from_rotation_x(1e-4));
        assert!((tiny - 1e-4).abs() < 1e-8, "{tiny}");
    }

    // ---- §3.9.4 errata: align to vector ----

    #[test]
    fn align_to_vector_turns_more_than_90_degrees_where_asin_under_rotates() {
        let dir = Vec3::new(-1.0, 0.0, 0.1); // nearly behind, a little to the right
        let q = align_to_vector(dir, Quat::IDENTITY).unwrap();
        assert!((forward(q) - dir.normalize()).length() < 1e-6);
        let theta = q_angle(Quat::IDENTITY, q);
        assert!((theta - (PI - 0.1f32.atan())).abs() < 1e-5, "θ = {theta}");
        assert!((q * UP_3D - UP_3D).length() < 1e-6, "a level target keeps it upright");
        // the book's asin|x̂ × d̂| gives π − θ ≈ 5.7°, leaving the forward ≈ 169° off the target
        let cross = FORWARD_3D.cross(dir.normalize());
        let book = Quat::from_axis_angle(cross.normalize(), cross.length().asin());
        assert!(angle(forward(book), dir) > deg(160.0));
        // every angle from 0 to 180° in a vertical plane lands exactly
        for k in 0..=36 {
            let a = deg(5.0 * k as f32);
            let d = Vec3::new(a.cos(), a.sin() * 0.6, a.sin() * 0.8);
            let q = align_to_vector(d, Quat::IDENTITY).unwrap();
            assert!((forward(q) - d).length() < 1e-5, "{k}: {}", forward(q));
            assert!((q_angle(Quat::IDENTITY, q) - a).abs() < 1e-4);
        }
    }

    #[test]
    fn align_to_vector_faces_directly_behind_by_a_half_turn_about_up_not_minus_base() {
        for base in [
            Quat::IDENTITY,
            Quat::from_rotation_x(deg(30.0)),
            Quat::from_euler(glam::EulerRot::YXZ, 1.0, 0.4, -0.7),
        ] {
            let behind = -forward(base);
            let q = align_to_vector(behind * 3.0, base).unwrap();
            assert!((forward(q) - behind).length() < 1e-5, "{}", forward(q));
            // a yaw about the base's own up: the up (and so any roll) is unchanged
            assert!((q * UP_3D - base * UP_3D).length() < 1e-5);
            assert!((q_angle(base, q) - PI).abs() < 1e-4);
            // the book's −base is the same orientation as the base and still looks forward
            assert!((forward(-base) - forward(base)).length() < 1e-6);
        }
        // nearly behind (axis from a tiny cross product): still lands on the direction
        for d in [
            Vec3::new(-1.0, 0.0, 1e-5),
            Vec3::new(-1.0, 3e-6, -2e-6),
            Vec3::new(-1.0, 1e-7, 0.0),
            Vec3::new(-1.0, -2e-4, 1e-4),
            Vec3::new(-1.0, 2e-3, 0.0),
        ] {
            let q = align_to_vector(d, Quat::IDENTITY).unwrap();
            assert!(unit(q));
            assert!((forward(q) - d.normalize()).length() < 2e-6, "{d}: {}", forward(q));
        }
    }

    #[test]
    fn align_to_vector_composes_rotation_then_base_and_keeps_the_base_roll() {
        let base = Quat::from_rotation_x(deg(30.0)); // rolled 30° about its forward axis
        let yaw = Quat::from_rotation_y(deg(20.0));
        let d = forward(yaw); // 20° to the left, level
        let q = align_to_vector(d, base).unwrap();
        assert!((forward(q) - d).length() < 1e-6);
        // r·b: the yaw applied after the base
        assert!(q_angle(q, yaw * base) < 1e-5);
        // so the 30° roll about the new forward is kept
        let level_up = yaw * UP_3D;
        assert!((angle(q * UP_3D, level_up) - deg(30.0)).abs() < 1e-5);
        // the book: its code returns r alone (roll lost), its prose b⁻¹·r misses the target
        assert!((q_angle(yaw, q) - deg(30.0)).abs() < 1e-5);
        assert!(angle(forward(base.conjugate() * yaw), d) > deg(5.0));
        // general base: the result is the *minimal* rotation of the base onto the direction
        let base = Quat::from_euler(glam::EulerRot::YXZ, 0.3, 0.4, 0.5);
        let d = Vec3::new(0.2, -0.5, 0.9).normalize();
        let q = align_to_vector(d, base).unwrap();
        assert!((forward(q) - d).length() < 1e-6);
        assert!((q_angle(base, q) - angle(forward(base), d)).abs() < 1e-5);
    }

    #[test]
    fn align_to_vector_normalises_its_input() {
        let d = Vec3::new(2.0, 1.0, -3.0);
        let reference = align_to_vector(d.normalize(), Quat::IDENTITY).unwrap();
        for s in [1e-30, 1e-3, 1.0, 1e3, 1e30, 1e37] {
            let q = align_to_vector(d * s, Quat::IDENTITY).unwrap();
            assert!(unit(q), "{s}");
            assert!(q_angle(reference, q) < 1e-5, "{s}");
        }
        // unnormalised, the book's asin(|x̂ × v|) is NaN
        assert!(FORWARD_3D.cross(d * 1e3).length().asin().is_nan());
        // a non-unit base counts as its unit quaternion
        let b = Quat::from_rotation_z(0.3);
        let q = align_to_vector(d, b * 5.0).unwrap();
        assert!(q_angle(q, align_to_vector(d, b).unwrap()) < 1e-6);
        // no direction, no orientation; parallel returns the base itself
        assert_eq!(align_to_vector(Vec3::ZERO, Quat::IDENTITY), None);
        assert_eq!(align_to_vector(Vec3::new(f32::NAN, 0.0, 0.0), b), None);
        assert!(q_angle(align_to_vector(forward(b) * 4.0, b).unwrap(), b) < 1e-6);
    }

    // ---- Align3 ----

    fn run_align(
        k: &mut Kinematic3,
        steps: usize,
        mut steer: impl FnMut(&Kinematic3) -> Option<SteeringOutput3>,
    ) -> f32 {
        let l = limits();
        let mut travelled = 0.0;
        for _ in 0..steps {
            let s = steer(k).unwrap_or(SteeringOutput3::ZERO);
            travelled += k.rotation.length() * DT;
            k.integrate(&s, &l, DT);
        }
        travelled
    }

    #[test]
    fn align3_takes_the_short_way_across_the_double_cover() {
        let a = Vec3::new(1.0, 2.0, 2.0) / 3.0;
        let target = Quat::from_axis_angle(a, deg(350.0));
        let align = Align3::new(align());
        let mut k = Kinematic3::default();
        let first = align.steer(&k, target, &limits()).unwrap();
        assert!(first.angular.normalize().dot(a) < -0.9999, "turns about −a");
        let travelled = run_align(&mut k, 300, |k| align.steer(k, target, &limits()));
        assert!(q_angle(k.orientation, target) < deg(0.5));
        let turned = travelled.to_degrees();
        assert!((9.0..11.0).contains(&turned), "turned {turned}°, not the 350° way round");
        assert!(unit(k.orientation));
    }

    #[test]
    fn align3_brakes_inside_the_target_radius_and_clamps_its_output() {
        let l = limits();
        let q = Quat::from_rotation_z(0.4);
        let spinning =
            Kinematic3 { orientation: q, rotation: Vec3::new(0.0, 0.5, 0.0), ..Default::default() };
        // on target: brake at −rotation / time_to_target = −5 rad/s² about y
        let out = Align3::new(align()).steer(&spinning, q, &l).unwrap();
        assert!((out.angular - Vec3::new(0.0, -5.0, 0.0)).length() < 1e-5);
        assert_eq!(out.linear, Vec3::ZERO);
        // at rest on target, or coasting: nothing to say
        let at_rest = Kinematic3::at_rest(Vec3::ZERO, q);
        assert_eq!(Align3::new(align()).steer(&at_rest, q, &l), None);
        let coast = Align3::new(align().with_stop(Stop::Coast));
        assert_eq!(coast.steer(&spinning, q, &l), None);
        // far off and spinning the wrong way: the request is limited to max_angular_acceleration
        let wrong = Kinematic3 { rotation: Vec3::new(0.0, 0.0, -2.0), ..Default::default() };
        let out = Align3::new(align()).steer(&wrong, Quat::from_rotation_z(2.0), &l).unwrap();
        assert!((out.angular.length() - 10.0).abs() < 1e-4);
        assert!((out.angular.normalize() - Vec3::Z).length() < 1e-5);
        // inside the slow radius the target speed ramps: θ = 0.3 → ω* = 2·0.3/0.6 = 1 rad/s
        let out = Align3::new(align())
            .steer(&Kinematic3::default(), Quat::from_rotation_x(0.3), &l)
            .unwrap();
        assert!((out.angular - Vec3::new(10.0, 0.0, 0.0)).length() < 1e-4);
    }

    // ---- Face3 and LookWhereYoureGoing3 ----

    #[test]
    fn face3_turns_through_more_than_90_degrees_and_stops_turning() {
        let face = Face3::new(align());
        let l = limits();
        for dir in [
            forward(Quat::from_rotation_y(deg(150.0))), // 150° to the left, level
            forward(Quat::from_rotation_y(deg(-150.0))),
            Vec3::new(-0.8, 0.5, -0.3).normalize(), // behind and above
            Vec3::new(-1.0, 0.0, 0.0),              // directly behind
            Vec3::new(0.1, -0.99, 0.0).normalize(), // nearly straight down
        ] {
            let start = Vec3::new(3.0, -1.0, 2.0);
            let target = start + dir * 10.0;
            let mut k = Kinematic3::at_rest(start, Quat::IDENTITY);
            run_align(&mut k, 540, |k| face.steer(k, target, &l));
            let mut worst = 0.0f32;
            for _ in 0..60 {
                let s = face.steer(&k, target, &l).unwrap_or(SteeringOutput3::ZERO);
                k.integrate(&s, &l, DT);
                worst = worst.max(angle(forward(k.orientation), dir));
            }
            assert!(worst < deg(1.0), "{dir}: {}°", worst.to_degrees());
            assert!(k.rotation.length() < 1e-3, "still turning {}", k.rotation);
            assert_eq!(face.steer(&k, target, &l), None, "{dir}");
            assert!(unit(k.orientation));
        }
        // on the target: no direction
        let k = Kinematic3::at_rest(Vec3::ONE, Quat::IDENTITY);
        assert_eq!(face.steer(&k, Vec3::ONE, &l), None);
    }

    #[test]
    fn face3_settles_at_the_roll_of_its_base() {
        let base = Quat::from_rotation_x(deg(-25.0));
        let face = Face3::new(align()).with_base(base);
        let l = limits();
        let dir = Vec3::new(0.3, 0.2, 1.0).normalize();
        let mut k = Kinematic3::default();
        run_align(&mut k, 600, |k| face.steer(k, dir * 5.0, &l));
        let expected = align_to_vector(dir, base).unwrap();
        assert!(q_angle(k.orientation, expected) < deg(0.5));
    }

    #[test]
    fn look_where_youre_going3_converges_to_the_velocity_heading() {
        let lwyg = LookWhereYoureGoing3::new(align());
        let l = limits();
        let v = Vec3::new(-1.0, 0.5, 2.0);
        let mut k = Kinematic3 {
            velocity: v,
            orientation: Quat::from_rotation_z(0.3),
            ..Default::default()
        };
        run_align(&mut k, 600, |k| lwyg.steer(k, &l));
        assert!(angle(forward(k.orientation), v) < deg(1.0));
        assert!(k.rotation.length() < 1e-3);
        assert_eq!(k.velocity, v, "purely angular");
        // no velocity, no heading
        let still = Kinematic3::at_rest(Vec3::ONE, Quat::IDENTITY);
        assert_eq!(lwyg.steer(&still, &l), None);
        // a base sets the roll it settles at
        let rolled = lwyg.with_base(Quat::from_rotation_x(0.2));
        assert_eq!(rolled.face.base, Quat::from_rotation_x(0.2));
    }

    // ---- Wander3 ----

    fn wander(seed: u64) -> Wander3 {
        Wander3::new(Face3::new(align()), Vec3::new(4.0, 0.0, 0.0), 2.0, 0.5, 0.5, seed).unwrap()
    }

    #[test]
    fn wander3_rate_must_stay_below_one_over_root_three() {
        let f = Face3::new(align());
        let make = |rate| Wander3::new(f, Vec3::X, 1.0, 1.0, rate, 1);
        assert!(make(0.0).is_ok());
        assert!(make(0.577).is_ok());
        assert!(Wander3::MAX_RATE < 1.0 / 3.0f32.sqrt() + 1e-7);
        for bad in [Wander3::MAX_RATE, 0.6, -0.1, f32::NAN] {
            assert!(make(bad).is_err(), "{bad}");
        }
        let e = make(0.6).unwrap_err();
        assert!(e.to_string().contains("rate"), "{e}");
        assert!(Wander3::new(f, Vec3::X, -1.0, 1.0, 0.1, 1).is_err());
        assert!(Wander3::new(f, Vec3::new(0.0, f32::INFINITY, 0.0), 1.0, 1.0, 0.1, 1).is_err());
    }

    #[test]
    fn wander3_target_stays_unit_over_ten_thousand_steps() {
        let l = limits();
        let mut w = Wander3::new(
            Face3::new(align()),
            Vec3::new(2.0, 0.0, 0.0),
            1.5,
            0.7,
            Wander3::MAX_RATE - 1e-6,
            7,
        )
        .unwrap();
        let mut k = Kinematic3::default();
        let mut moved = 0.0f32;
        for step in 0..10_000 {
            let before = w.wander_target();
            // a frame time of up to 1 s puts the step size close to its bound
            let dt = if step % 100 == 0 { 1.0 } else { DT };
            let s = w.steer(&k, &l, dt);
            moved = moved.max((w.wander_target() - before).length());
            assert!((w.wander_target().length() - 1.0).abs() < 1e-5, "step {step}");
            assert!(s.is_finite());
            assert!(s.angular.length() <= l.max_angular_acceleration() * (1.0 + 1e-4));
            assert!((s.linear - forward(k.orientation) * 5.0).length() < 1e-4);
            k.integrate(&s, &l, DT);
        }
        assert!(moved > 0.3, "the target does wander ({moved})");
        assert!(unit(k.orientation), "|q| = {}", k.orientation.length());
        assert!(k.is_finite());
    }

    #[test]
    fn wander3_same_seed_same_trajectory() {
        let l = limits();
        let trajectory = |seed| {
            let mut w = wander(seed);
            let mut k = Kinematic3::default();
            let mut out = Vec::new();
            for _ in 0..2000 {
                let s = w.steer(&k, &l, DT);
                k.integrate(&s, &l, DT);
                out.push(k);
            }
            out
        };
        let a = trajectory(42);
        assert_eq!(a, trajectory(42));
        let b = trajectory(43);
        assert_ne!(a.last(), b.last());
        // and it goes somewhere: full forward acceleration, turning as it goes
        let end = a.last().unwrap();
        assert!(end.velocity.length() > 9.0);
        assert!(q_angle(Quat::IDENTITY, end.orientation) > 0.1);
    }

    #[test]
    fn wander3_spread_is_set_per_root_second_not_per_frame() {
        // mean squared displacement of the unit target after 1 s, from +x, over many seeds:
        // the same at 30 Hz and 120 Hz (a per-frame rate would give 4× more at 120 Hz)
        let l = limits();
        let msd = |hz: usize| {
            let mut sum = 0.0f64;
            let trials = 600;
            for seed in 0..trials {
                let mut w = wander(seed);
                let k = Kinematic3::default();
                for _ in 0..hz {
                    let _ = w.steer(&k, &l, 1.0 / hz as f32);
                }
                sum += f64::from((w.wander_target() - Vec3::X).length_squared());
            }
            sum / trials as f64
        };
        let (slow, fast) = (msd(30), msd(120));
        assert!((fast / slow - 1.0).abs() < 0.2, "{slow} vs {fast}");
        // rate 0.5/√s: about 2·rate²/6 ≈ 0.083 (two tangential components of variance rate²/6)
        for m in [slow, fast] {
            assert!((0.06..0.1).contains(&m), "{m}");
        }
        // dt = 0 does not move it (but still draws, so later steps stay reproducible)
        let mut w = wander(3);
        let before = w.wander_target();
        let _ = w.steer(&Kinematic3::default(), &l, 0.0);
        assert_eq!(w.wander_target(), before);
    }

    #[test]
    fn wander3_accelerates_even_when_face_has_nothing_to_say() {
        let l = limits();
        // zero ellipsoid: no direction to face
        let mut w = Wander3::new(Face3::new(align()), Vec3::ZERO, 0.0, 0.0, 0.3, 5).unwrap();
        let q = Quat::from_rotation_y(0.8);
        let k = Kinematic3::at_rest(Vec3::ONE, q);
        let s = w.steer(&k, &l, DT);
        assert_eq!(s.angular, Vec3::ZERO);
        assert!((s.linear - forward(q) * 5.0).length() < 1e-6);
        // a dead-ahead target with Stop::Coast: aligned, face says None, linear stays
        let mut w = Wander3::new(
            Face3::new(Align::new(0.5, 1.0, 0.1).unwrap().with_stop(Stop::Coast)),
            Vec3::new(10.0, 0.0, 0.0),
            0.1,
            0.1,
            0.0,
            5,
        )
        .unwrap();
        let s = w.steer(&Kinematic3::default(), &l, DT);
        assert_eq!(s.angular, Vec3::ZERO);
        assert_eq!(s.linear, Vec3::X * 5.0);
    }

    // ---- §3.9.8 faked rotation axes ----

    #[test]
    fn fake_orientation_forward_follows_a_climbing_velocity_at_any_yaw() {
        // guards the multiplication order (body-frame yaw·pitch·roll) and the pitch sign
        let fake = FakeRotation::new(1.0, 2.0).unwrap();
        for yaw in [0.0, 90.0, 180.0, -90.0, 37.0, -135.0] {
            for pitch in [25.0, -40.0, 80.0, 0.0] {
                let (th, ph) = (deg(yaw), deg(pitch));
                let dir = Quat::from_rotation_y(th) * Vec3::new(ph.cos(), ph.sin(), 0.0);
                let k = Kinematic3 {
                    orientation: Quat::from_rotation_y(th),
                    velocity: dir * 5.0,
                    ..Default::default()
                };
                let q = fake.orientation(&k);
                assert!(unit(q));
                assert!((forward(q) - dir).length() < 1e-5, "{yaw}/{pitch}");
                let (_, p, _) = fake.angles(&k);
                assert!((p - ph).abs() < 1e-5, "climbing is a positive pitch, nose up");
            }
        }
        // the listing's roll·pitch·yaw pitches about the world axis: at yaw 90° it stays level
        let (th, ph) = (FRAC_PI_2, deg(25.0));
        let dir = Quat::from_rotation_y(th) * Vec3::new(ph.cos(), ph.sin(), 0.0);
        let book =
            Quat::from_rotation_x(0.0) * Quat::from_rotation_z(ph) * Quat::from_rotation_y(th);
        assert!((forward(book) - dir).length() > 0.3);
        // and the opposite pitch sign dives when climbing
        let flipped = Quat::from_rotation_y(th) * Quat::from_rotation_z(-ph);
        assert!(forward(flipped).y < 0.0);
    }

    #[test]
    fn fake_orientation_banks_about_the_displayed_forward() {
        let k_scale = 1.5;
        let fake = FakeRotation::new(1.0, k_scale).unwrap();
        let (th, ph) = (FRAC_PI_2, deg(25.0));
        let dir = Quat::from_rotation_y(th) * Vec3::new(ph.cos(), ph.sin(), 0.0);
        let k = Kinematic3 {
            orientation: Quat::from_rotation_y(th),
            velocity: dir * 3.0,
            rotation: Vec3::Y * k_scale, // turning left at the roll scale
            ..Default::default()
        };
        let q = fake.orientation(&k);
        assert!((forward(q) - dir).length() < 1e-5);
        let unbanked = Quat::from_rotation_y(th) * Quat::from_rotation_z(ph);
        let (axis, bank) = shortest_rotation(unbanked, q);
        assert!((axis.dot(dir).abs() - 1.0).abs() < 1e-4, "banks about forward: {axis}");
        assert!((bank - FRAC_PI_4).abs() < 1e-5);
        // into the turn: the up axis leans toward the centre (to the left)
        let left = UP_3D.cross(dir).normalize();
        assert!((q * UP_3D).dot(left) > 0.5);
        // roll outward leans the other way; without pitch the nose stays level
        let out = fake.roll_outward(true).with_pitch(false);
        assert!(out.is_roll_outward() && !out.has_pitch());
        let q = out.orientation(&k);
        assert!((q * UP_3D).dot(left) < -0.5);
        assert!(forward(q).y.abs() < 1e-6);
        assert!((forward(q) - forward(Quat::from_rotation_y(th))).length() < 1e-5);
    }

    #[test]
    fn fake_roll_is_a_quarter_pi_when_the_yaw_rate_equals_the_roll_scale() {
        let k_scale = 1.5;
        let fake = FakeRotation::new(1.0, k_scale).unwrap();
        let mut k = Kinematic3 {
            velocity: Vec3::X * 3.0,
            rotation: Vec3::new(0.7, k_scale, -0.4), // only the part about up counts
            ..Default::default()
        };
        let (_, _, roll) = fake.angles(&k);
        assert!((roll - FRAC_PI_4).abs() < 1e-6, "ψ(r = k) = atan 1 = π/4, not π/2");
        let q = fake.orientation(&k);
        assert!((angle(q * UP_3D, UP_3D) - FRAC_PI_4).abs() < 1e-5);
        assert!((q * UP_3D).z < 0.0, "left turn, up leans left (−z)");
        // rates about other axes give no roll
        k.rotation = Vec3::new(0.7, 0.0, -0.4);
        assert_eq!(fake.angles(&k).2, 0.0);
        // ±π/2 only asymptotically
        k.rotation = Vec3::Y * (k_scale * 1e6);
        let (_, _, roll) = fake.angles(&k);
        assert!(roll < FRAC_PI_2 && roll > FRAC_PI_2 - 1e-5, "{roll}");
        k.rotation = -k.rotation;
        assert!(fake.angles(&k).2 > -FRAC_PI_2);
        // the text's bank examples in radians: 15° = π/12, 45° = π/4, 75° = 5π/12
        for bank in [PI / 12.0, FRAC_PI_4, 5.0 * PI / 12.0] {
            k.rotation = Vec3::Y * (k_scale * bank.tan());
            assert!((fake.angles(&k).2 - bank).abs() < 1e-5);
        }
        // a pitch-only turn needs a bank of π/2 (not π): then the right axis is world up, so
        // pitching about it yaws the craft
        let pitch_turn = FakeRotation::new(1.0, 0.0).unwrap();
        k.rotation = Vec3::Y * 0.3;
        assert!((pitch_turn.angles(&k).2 - FRAC_PI_2).abs() < 1e-6);
        let q = pitch_turn.orientation(&k);
        assert!((q * Vec3::Z - UP_3D).length() < 1e-6);
    }

    #[test]
    fn fake_blend_is_hemisphere_aware_and_unit() {
        let fake = FakeRotation::new(2.0, 1.0).unwrap();
        let faked = Quat::from_rotation_y(deg(30.0));
        // the kinematic orientation is the same rotation in the other hemisphere
        let k = Kinematic3 {
            orientation: -faked,
            velocity: forward(faked), // speed 1 = half the blend speed, level
            ..Default::default()
        };
        let naive = k.orientation * 0.5 + faked * 0.5;
        assert!(naive.length() < 1e-6, "the book's weighted sum collapses to zero");
        let q = fake.orientation(&k);
        assert!(unit(q));
        assert!(q_angle(q, faked) < 1e-5);
        // a climb of 60° at half the blend speed shows half the pitch (nlerp midpoint = slerp's)
        let level = Quat::from_rotation_y(deg(-50.0));
        let climb = Quat::from_rotation_y(deg(-50.0)) * Vec3::new(0.5, 0.75f32.sqrt(), 0.0);
        for sign in [1.0, -1.0] {
            let k = Kinematic3 { orientation: level * sign, velocity: climb, ..Default::default() };
            let q = fake.orientation(&k);
            assert!(unit(q));
            assert!((q_angle(level, q) - deg(30.0)).abs() < 1e-4);
        }
        // every blend weight, both hemispheres: unit; zero speed: the kinematic orientation
        for i in 0..=20 {
            for sign in [1.0, -1.0] {
                let k = Kinematic3 {
                    orientation: Quat::from_rotation_z(2.5) * sign,
                    velocity: Vec3::new(-1.0, 0.3, 0.2).normalize() * (i as f32 * 0.1),
                    rotation: Vec3::Y * 0.8,
                    ..Default::default()
                };
                assert!(unit(fake.orientation(&k)), "{i}");
            }
        }
        let still = Kinematic3::at_rest(Vec3::ZERO, Quat::from_rotation_z(2.5));
        assert!(q_angle(fake.orientation(&still), still.orientation) < 1e-6);
    }

    #[test]
    fn fake_orientation_function_matches_the_struct_and_tolerates_bad_parameters() {
        let k = Kinematic3 {
            orientation: Quat::from_rotation_y(1.0),
            velocity: Vec3::new(0.5, 0.2, -0.8),
            rotation: Vec3::new(0.1, 0.6, 0.0),
            ..Default::default()
        };
        let s = FakeRotation::new(3.0, 0.8).unwrap();
        assert_eq!(fake_orientation(&k, 3.0, 0.8), s.orientation(&k));
        for (b, r) in [(-1.0, -1.0), (f32::NAN, f32::NAN), (f32::INFINITY, f32::INFINITY)] {
            assert!(unit(fake_orientation(&k, b, r)), "{b} {r}");
        }
        assert!(FakeRotation::new(-1.0, 1.0).is_err());
        assert!(FakeRotation::new(1.0, f32::NAN).is_err());
    }

    // ---- properties: finite input → finite, bounded output; unit orientations ----

    mod props {
        use super::*;
        use proptest::num::f32 as pf;
        use proptest::prelude::*;

        /// Any finite f32, weighted toward ordinary magnitudes and the special values.
        fn any_f32() -> impl Strategy<Value = f32> {
            prop_oneof![
                6 => -100.0f32..100.0,
                1 => Just(0.0f32),
                1 => Just(1.0f32),
                1 => Just(-1.0f32),
                3 => pf::POSITIVE | pf::NEGATIVE | pf::NORMAL | pf::SUBNORMAL | pf::ZERO,
            ]
        }

        /// Any finite f32 ≥ 0.
        fn non_negative_f32() -> impl Strategy<Value = f32> {
            prop_oneof![
                6 => 0.0f32..100.0,
                1 => Just(0.0f32),
                2 => pf::POSITIVE | pf::NORMAL | pf::SUBNORMAL | pf::ZERO,
            ]
        }

        fn vec3() -> impl Strategy<Value = Vec3> {
            prop_oneof![
                1 => Just(Vec3::ZERO),
                8 => (any_f32(), any_f32(), any_f32()).prop_map(|(x, y, z)| Vec3::new(x, y, z)),
            ]
        }

        /// Unit rotations, raw (non-unit, zero, huge) quaternions and the special cases.
        fn quat() -> impl Strategy<Value = Quat> {
            prop_oneof![
                1 => Just(Quat::IDENTITY),
                1 => Just(-Quat::IDENTITY),
                1 => Just(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
                1 => Just(Quat::from_rotation_y(PI)),
                6 => (vec3(), -10.0f32..10.0)
                    .prop_map(|(v, a)| Quat::from_scaled_axis(v.normalize_or(Vec3::X) * a)),
                4 => (any_f32(), any_f32(), any_f32(), any_f32())
                    .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w)),
            ]
        }

        fn unit_quat_strategy() -> impl Strategy<Value = Quat> {
            quat().prop_map(unit_quat)
        }

        fn kinematic() -> impl Strategy<Value = Kinematic3> {
            (vec3(), quat(), vec3(), vec3()).prop_map(
                |(position, orientation, velocity, rotation)| Kinematic3 {
                    position,
                    orientation,
                    velocity,
                    rotation,
                },
            )
        }

        fn limits() -> impl Strategy<Value = Limits> {
            (non_negative_f32(), non_negative_f32(), non_negative_f32(), non_negative_f32())
                .prop_map(|(s, a, r, aa)| Limits::new(s, a, r, aa).unwrap())
        }

        fn align() -> impl Strategy<Value = Align> {
            (
                0.0f32..PI,
                prop_oneof![0.0f32..3.0, non_negative_f32()],
                prop_oneof![1e-3f32..1.0, pf::POSITIVE | pf::NORMAL | pf::SUBNORMAL],
                any::<bool>(),
            )
                .prop_map(|(target, extra, time, coast)| {
                    let slow = (target + extra).max(target);
                    let a = Align::new(target, slow, time).unwrap();
                    a.with_stop(if coast { Stop::Coast } else { Stop::Brake })
                })
        }

        fn dt() -> impl Strategy<Value = f32> {
            prop_oneof![
                2 => Just(0.0f32),
                6 => 0.0f32..0.1,
                1 => non_negative_f32(),
            ]
        }

        /// Finite, and an angular part within `max` (1e-4 relative; an absolute slack of the
        /// smallest normal f32 covers rounding of subnormal limits).
        fn bounded(out: &SteeringOutput3, limits: &Limits) -> Result<(), TestCaseError> {
            prop_assert!(out.is_finite(), "{out:?}");
            within(out.angular, limits.max_angular_acceleration())
        }

        /// `|v| ≤ max` up to 1e-4 relative (plus the smallest normal f32 for subnormal limits),
        /// the length taken in f64 so that a huge but finite `v` is measured, not overflowed.
        fn within(v: Vec3, max: f32) -> Result<(), TestCaseError> {
            let len = v.as_dvec3().length();
            let max = f64::from(max);
            prop_assert!(
                len <= max * (1.0 + 1e-4) + f64::from(f32::MIN_POSITIVE),
                "|{v}| = {len} > {max}"
            );
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn align3_face3_lwyg3_are_finite_and_clamped(
                k in kinematic(),
                target in quat(),
                point in vec3(),
                mode in 0u8..3,
                l in limits(),
                a in align(),
                base in quat(),
            ) {
                // mode 1: target is the character's own orientation (and position);
                // mode 2: the opposite quaternion (same orientation), and the opposite point
                let (target, point) = match mode {
                    1 => (k.orientation, k.position),
                    2 => (-k.orientation, -k.position),
                    _ => (target, point),
                };
                if let Some(out) = Align3::new(a).steer(&k, target, &l) {
                    bounded(&out, &l)?;
                    prop_assert_eq!(out.linear, Vec3::ZERO);
                }
                let face = Face3::new(a).with_base(base);
                if let Some(out) = face.steer(&k, point, &l) {
                    bounded(&out, &l)?;
                }
                let look = LookWhereYoureGoing3 { face };
                if let Some(out) = look.steer(&k, &l) {
                    bounded(&out, &l)?;
                }
            }

            #[test]
            fn shortest_rotation_is_finite_with_angle_in_zero_to_pi(a in quat(), b in quat()) {
                let (axis, theta) = shortest_rotation(a, b);
                prop_assert!(axis.is_finite() && theta.is_finite());
                prop_assert!((0.0..=PI + 1e-6).contains(&theta));
                prop_assert!(axis == Vec3::ZERO || (axis.length() - 1.0).abs() < 1e-5);
            }

            #[test]
            fn align_to_vector_lands_on_the_direction_by_the_minimal_turn(
                d in vec3(),
                base in quat(),
            ) {
                match align_to_vector(d, base) {
                    None => prop_assert!(d == Vec3::ZERO),
                    Some(q) => {
                        prop_assert!(unit(q), "{q}");
                        let d = unit_vec(d).unwrap();
                        prop_assert!((forward(q) - d).length() < 1e-5, "{} vs {d}", forward(q));
                        let b = unit_quat(base);
                        let minimal = angle(forward(b), d);
                        prop_assert!((q_angle(b, q) - minimal).abs() < 1e-3);
                    }
                }
            }

            #[test]
            fn wander3_is_finite_bounded_and_unit(
                k in kinematic(),
                l in limits(),
                a in align(),
                offset in vec3(),
                rxz in non_negative_f32(),
                ry in non_negative_f32(),
                rate in 0.0f32..Wander3::MAX_RATE,
                seed in any::<u64>(),
                dts in prop::collection::vec(dt(), 1..8),
            ) {
                let mut w = Wander3::new(Face3::new(a), offset, rxz, ry, rate, seed).unwrap();
                for dt in dts {
                    let out = w.steer(&k, &l, dt);
                    bounded(&out, &l)?;
                    within(out.linear, l.max_acceleration())?;
                    prop_assert!((w.wander_target().length() - 1.0).abs() < 1e-5);
                }
            }

            #[test]
            fn fake_orientation_is_always_unit(
                k in kinematic(),
                blend in non_negative_f32(),
                roll in non_negative_f32(),
                outward in any::<bool>(),
                pitch in any::<bool>(),
                raw_blend in any_f32(),
                raw_roll in any_f32(),
            ) {
                let fake = FakeRotation::new(blend, roll)
                    .unwrap()
                    .roll_outward(outward)
                    .with_pitch(pitch);
                prop_assert!(unit(fake.orientation(&k)));
                let (yaw, p, r) = fake.angles(&k);
                prop_assert!(yaw.is_finite() && p.abs() <= FRAC_PI_2 + 1e-6);
                prop_assert!(r.abs() <= FRAC_PI_2 + 1e-6);
                prop_assert!(unit(fake_orientation(&k, raw_blend, raw_roll)));
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn orientation_stays_unit_under_integration(
                orientation in unit_quat_strategy(),
                rotation in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
                velocity in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
                point in (-50.0f32..50.0, -50.0f32..50.0, -50.0f32..50.0),
                a in align(),
                seed in any::<u64>(),
                dts in prop::collection::vec(dt().prop_map(|d| d.min(0.1)), 1..200),
            ) {
                let l = Limits::new(10.0, 5.0, 3.0, 8.0).unwrap();
                let point = Vec3::from(point);
                let mut k = Kinematic3 {
                    orientation,
                    rotation: Vec3::from(rotation),
                    velocity: Vec3::from(velocity),
                    ..Default::default()
                };
                let mut lw = k;
                let mut wk = k;
                let face = Face3::new(a);
                let look = LookWhereYoureGoing3::new(a);
                let mut w = Wander3::new(face, Vec3::X * 3.0, 1.0, 0.5, 0.4, seed).unwrap();
                for dt in dts {
                    let s = face.steer(&k, point, &l).unwrap_or(SteeringOutput3::ZERO);
                    k.integrate(&s, &l, dt);
                    let s = look.steer(&lw, &l).unwrap_or(SteeringOutput3::ZERO);
                    lw.integrate(&s, &l, dt);
                    let s = w.steer(&wk, &l, dt);
                    wk.integrate(&s, &l, dt);
                }
                for k in [k, lw, wk] {
                    prop_assert!(k.is_finite());
                    prop_assert!(unit(k.orientation), "|q| = {}", k.orientation.length());
                }
            }
        }
    }
}
