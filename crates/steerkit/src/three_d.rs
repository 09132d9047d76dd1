//! Movement in 3D (Millington §3.9): align, face, look where you're going and wander with
//! quaternion orientations, the align-to-vector construction, and faked rotation axes for display.
//!
//! Conventions (see [`crate::math`]): y-up and right-handed; an orientation is a unit [`Quat`]
//! acting as `v' = q·v·q*` (glam's `q * v`, which uses the conjugate); a character looks down its
//! local **+x** axis ([`FORWARD_3D`]), with local +y up ([`UP_3D`]) and local +z to its right.
//! Angular velocities and accelerations are **world-frame** rotation vectors `axis·ω` (rad/s,
//! rad/s²), the form [`Kinematic::integrate`](crate::Kinematic::integrate) consumes.
//!
//! The ten purely linear behaviours (seek, flee, arrive, velocity matching, ...) are generic over
//! [`Vector`](crate::Vector) and already work in 3D; only the four with an angular part need the
//! types here.

use crate::error::{finite, non_negative, ParamError};
use crate::kinematic::{Kinematic3, Limits, SteeringOutput3};
use crate::math::{ground, FORWARD_3D, UP_3D};
use crate::rng::Rng;
use crate::steering::{Align, Stop};
use core::f32::consts::PI;
use glam::{Quat, Vec2, Vec3, Vec4};

/// Below this rotation speed (rad/s) an aligned character counts as not turning (as in 2D).
const REST_ROTATION: f32 = 1e-4;

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
        Face3 {
            align: Align3::new(align),
            base: Quat::IDENTITY,
        }
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
        LookWhereYoureGoing3 {
            face: Face3::new(align),
        }
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
        let jitter = Vec3::new(
            self.rng.binomial(),
            self.rng.binomial(),
            self.rng.binomial(),
        ) * (self.rate * dt.sqrt());
        if let Some(t) = unit_vec(self.target + jitter) {
            self.target = t;
        }
        let q = unit_quat(character.orientation);
        let on_sphere = q * self.target;
        let radii = Vec3::new(self.radius_xz, self.radius_y, self.radius_xz);
        // Scaled by 1/8 (exact): only the direction matters, and it keeps the sum finite for any
        // finite offset and radii.
        let direction = q * (self.offset * 0.125) + on_sphere * (radii * 0.125);
        let angular = self
            .face
            .steer_along(character, direction, limits)
            .map_or(Vec3::ZERO, |s| s.angular);
        SteeringOutput3 {
            linear: (q * FORWARD_3D) * limits.max_acceleration(),
            angular,
        }
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
        let blend = if speed >= self.blend_speed {
            1.0
        } else {
            speed / self.blend_speed
        };
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
