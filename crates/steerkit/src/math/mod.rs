//! Conventions and the arithmetic under everything (Millington §3.1): the [`Vector`] trait that
//! lets one behaviour serve 2D and 3D, angle helpers ([`wrap_angle`], [`as_vector`],
//! [`orientation_of`]), the 2½D ground-plane mapping ([`ground`]) and the seedable [`Rng`] that
//! every stochastic behaviour owns (there is no global generator).
//!
//! Conventions (see `ARCHITECTURE.md`):
//! - 2D lives in the x–y plane; an orientation is an angle in radians, counter-clockwise from +x,
//!   so `as_vector(θ) = (cos θ, sin θ)` and `orientation_of(v) = atan2(v.y, v.x)` are exact inverses.
//! - 3D is y-up and right-handed; an orientation is a unit [`Quat`]; a character looks down its local
//!   **+x** axis (its [`FORWARD_3D`]), with local +y up and local +z to its right. This makes a 2D
//!   heading θ the same thing as a yaw of θ about +y (see [`ground`]).

use core::f32::consts::{PI, TAU};
use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, Index, Mul, MulAssign, Neg, Sub, SubAssign};
use glam::{Quat, Vec2, Vec3};

mod rng;

pub use rng::Rng;

/// A character's local forward axis in 3D.
pub const FORWARD_3D: Vec3 = Vec3::X;
/// A character's local up axis in 3D (also the world up).
pub const UP_3D: Vec3 = Vec3::Y;

mod sealed {
    pub trait Sealed {}
    impl Sealed for glam::Vec2 {}
    impl Sealed for glam::Vec3 {}
}

/// The vector type of a space: [`Vec2`] for 2D or [`Vec3`] for 3D.
///
/// Linear behaviours (seek, arrive, pursue, ...) are written once against this trait and work in
/// both dimensions. Each space also names its orientation type (an angle in 2D, a quaternion in
/// 3D) and its angular-velocity type (rad/s as a scalar in 2D, a rotation vector `axis·ω` in 3D).
/// The trait is sealed: it is implemented for `Vec2` and `Vec3` only.
pub trait Vector:
    sealed::Sealed
    + Copy
    + Default
    + PartialEq
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f32, Output = Self>
    + Div<f32, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign<f32>
    + Index<usize, Output = f32>
{
    /// Orientation: `f32` radians in 2D, unit `Quat` in 3D.
    type Orientation: Copy + Debug + PartialEq + Default + Send + Sync + 'static;
    /// Angular velocity or acceleration: `f32` (rad/s, rad/s²) in 2D, `Vec3` (axis × magnitude) in 3D.
    type Angular: Copy
        + Debug
        + PartialEq
        + Default
        + Send
        + Sync
        + 'static
        + Add<Output = Self::Angular>
        + Sub<Output = Self::Angular>
        + Mul<f32, Output = Self::Angular>
        + Neg<Output = Self::Angular>;
    /// Number of axes (2 or 3).
    const DIM: usize;
    /// The zero vector.
    const ZERO: Self;
    /// The zero angular quantity.
    const ANGULAR_ZERO: Self::Angular;

    /// Dot product.
    fn dot(self, other: Self) -> f32;
    /// Euclidean length.
    fn length(self) -> f32;
    /// Squared length (no square root).
    fn length_squared(self) -> f32;
    /// Unit vector, or zero for a zero (or non-finite) vector: never NaN.
    fn normalize_or_zero(self) -> Self;
    /// The same vector with its length limited to `max` (`max ≥ 0`).
    fn clamp_length_max(self, max: f32) -> Self;
    /// True when every component is finite.
    fn is_finite(self) -> bool;
    /// The unit forward direction of an orientation (`(cos θ, sin θ)` in 2D, `q·x̂` in 3D).
    fn forward(orientation: Self::Orientation) -> Self;
    /// Maps a vector from an orientation's local frame to the world (rotation only).
    fn to_world(orientation: Self::Orientation, local: Self) -> Self;
    /// Maps a world vector into an orientation's local frame (rotation only).
    fn to_local(orientation: Self::Orientation, world: Self) -> Self;
    /// Magnitude of an angular quantity.
    fn angular_magnitude(angular: Self::Angular) -> f32;
    /// An angular quantity with its magnitude limited to `max`, symmetrically in every direction.
    fn clamp_angular(angular: Self::Angular, max: f32) -> Self::Angular;
    /// Advances an orientation by `rotation` (rad/s) for `dt` seconds, exactly for a constant
    /// rotation. 2D results are wrapped into (−π, π]; 3D results are unit quaternions.
    fn rotate_orientation(
        orientation: Self::Orientation,
        rotation: Self::Angular,
        dt: f32,
    ) -> Self::Orientation;
    /// True when every component of the orientation is finite.
    fn orientation_is_finite(orientation: Self::Orientation) -> bool;
    /// True when every component of the angular quantity is finite.
    fn angular_is_finite(angular: Self::Angular) -> bool;
    /// Component `i` (`i < DIM`).
    #[inline]
    fn axis(self, i: usize) -> f32 {
        self[i]
    }
    /// A vector from the first `DIM` components of `a`.
    fn from_axes(a: [f32; 3]) -> Self;
    /// A random vector with every component uniform on [−1, 1) (Buckland's `RandomClamped` per
    /// axis), drawn in axis order.
    fn random_clamped(rng: &mut Rng) -> Self;
    /// The outward unit normals of a box's faces, indexed `axis·2 + side` (side 0 is the min
    /// face): −x, +x, −y, +y, then −z, +z in 3D.
    const FACE_NORMALS: &'static [Self];
    /// Componentwise minimum.
    fn min(self, other: Self) -> Self;
    /// Componentwise maximum.
    fn max(self, other: Self) -> Self;
    /// Componentwise absolute value.
    fn abs(self) -> Self;
    /// Unit vector and length evaluated in f64, for vectors whose squared length under- or
    /// overflows f32. Zero (or non-finite) gives `(0, 0)`.
    fn unit_and_length_f64(self) -> (Self, f32);
}

impl Vector for Vec2 {
    type Orientation = f32;
    type Angular = f32;
    const DIM: usize = 2;
    const ZERO: Self = Vec2::ZERO;
    const ANGULAR_ZERO: f32 = 0.0;

    const FACE_NORMALS: &'static [Vec2] = &[Vec2::NEG_X, Vec2::X, Vec2::NEG_Y, Vec2::Y];
    #[inline]
    fn from_axes(a: [f32; 3]) -> Self {
        Vec2::new(a[0], a[1])
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec2::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec2::max(self, other)
    }
    #[inline]
    fn abs(self) -> Self {
        Vec2::abs(self)
    }
    #[inline]
    fn unit_and_length_f64(self) -> (Self, f32) {
        let d = self.as_dvec2();
        let len = d.length();
        if len > 0.0 && len.is_finite() {
            ((d / len).as_vec2(), len as f32)
        } else {
            (Vec2::ZERO, 0.0)
        }
    }
    #[inline]
    fn random_clamped(rng: &mut Rng) -> Self {
        let x = rng.clamped();
        Vec2::new(x, rng.clamped())
    }

    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec2::dot(self, other)
    }
    #[inline]
    fn length(self) -> f32 {
        Vec2::length(self)
    }
    #[inline]
    fn length_squared(self) -> f32 {
        Vec2::length_squared(self)
    }
    #[inline]
    fn normalize_or_zero(self) -> Self {
        Vec2::normalize_or_zero(self)
    }
    #[inline]
    fn clamp_length_max(self, max: f32) -> Self {
        clamp_len(self, self.length_squared(), max)
    }
    #[inline]
    fn is_finite(self) -> bool {
        Vec2::is_finite(self)
    }
    #[inline]
    fn forward(orientation: f32) -> Self {
        as_vector(orientation)
    }
    #[inline]
    fn to_world(orientation: f32, local: Self) -> Self {
        Vec2::from_angle(orientation).rotate(local)
    }
    #[inline]
    fn to_local(orientation: f32, world: Self) -> Self {
        Vec2::from_angle(-orientation).rotate(world)
    }
    #[inline]
    fn angular_magnitude(angular: f32) -> f32 {
        angular.abs()
    }
    #[inline]
    fn clamp_angular(angular: f32, max: f32) -> f32 {
        angular.clamp(-max, max)
    }
    #[inline]
    fn rotate_orientation(orientation: f32, rotation: f32, dt: f32) -> f32 {
        wrap_angle(orientation + rotation * dt)
    }
    #[inline]
    fn orientation_is_finite(orientation: f32) -> bool {
        orientation.is_finite()
    }
    #[inline]
    fn angular_is_finite(angular: f32) -> bool {
        angular.is_finite()
    }
}

impl Vector for Vec3 {
    type Orientation = Quat;
    type Angular = Vec3;
    const DIM: usize = 3;
    const ZERO: Self = Vec3::ZERO;
    const ANGULAR_ZERO: Vec3 = Vec3::ZERO;

    const FACE_NORMALS: &'static [Vec3] =
        &[Vec3::NEG_X, Vec3::X, Vec3::NEG_Y, Vec3::Y, Vec3::NEG_Z, Vec3::Z];
    #[inline]
    fn from_axes(a: [f32; 3]) -> Self {
        Vec3::from_array(a)
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec3::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec3::max(self, other)
    }
    #[inline]
    fn abs(self) -> Self {
        Vec3::abs(self)
    }
    #[inline]
    fn unit_and_length_f64(self) -> (Self, f32) {
        let d = self.as_dvec3();
        let len = d.length();
        if len > 0.0 && len.is_finite() {
            ((d / len).as_vec3(), len as f32)
        } else {
            (Vec3::ZERO, 0.0)
        }
    }
    #[inline]
    fn random_clamped(rng: &mut Rng) -> Self {
        let x = rng.clamped();
        let y = rng.clamped();
        Vec3::new(x, y, rng.clamped())
    }

    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec3::dot(self, other)
    }
    #[inline]
    fn length(self) -> f32 {
        Vec3::length(self)
    }
    #[inline]
    fn length_squared(self) -> f32 {
        Vec3::length_squared(self)
    }
    #[inline]
    fn normalize_or_zero(self) -> Self {
        Vec3::normalize_or_zero(self)
    }
    #[inline]
    fn clamp_length_max(self, max: f32) -> Self {
        clamp_len(self, self.length_squared(), max)
    }
    #[inline]
    fn is_finite(self) -> bool {
        Vec3::is_finite(self)
    }
    #[inline]
    fn forward(orientation: Quat) -> Self {
        orientation * FORWARD_3D
    }
    #[inline]
    fn to_world(orientation: Quat, local: Self) -> Self {
        orientation * local
    }
    #[inline]
    fn to_local(orientation: Quat, world: Self) -> Self {
        orientation.conjugate() * world
    }
    #[inline]
    fn angular_magnitude(angular: Vec3) -> f32 {
        angular.length()
    }
    #[inline]
    fn clamp_angular(angular: Vec3, max: f32) -> Vec3 {
        angular.clamp_length_max(max.max(0.0))
    }
    #[inline]
    fn rotate_orientation(orientation: Quat, rotation: Vec3, dt: f32) -> Quat {
        // Exact for a constant world-frame angular velocity; renormalised against drift.
        (Quat::from_scaled_axis(rotation * dt) * orientation).normalize()
    }
    #[inline]
    fn orientation_is_finite(orientation: Quat) -> bool {
        orientation.is_finite()
    }
    #[inline]
    fn angular_is_finite(angular: Vec3) -> bool {
        angular.is_finite()
    }
}

#[inline]
fn clamp_len<V: Copy + Mul<f32, Output = V>>(v: V, len_sq: f32, max: f32) -> V {
    let max = max.max(0.0);
    if len_sq > max * max {
        v * (max / len_sq.sqrt())
    } else {
        v
    }
}

/// Wraps an angle into the half-open interval (−π, π].
///
/// Works for any finite angle, however large (a full modulo, not a single ±2π step), so
/// `wrap_angle(target − current)` is always the short way round. Non-finite input gives NaN.
#[must_use]
#[inline]
#[doc(alias = "map_to_range")]
#[doc(alias = "delta_angle")]
pub fn wrap_angle(angle: f32) -> f32 {
    // already wrapped: returned exactly (and without the costly remainder)
    if angle > -PI && angle <= PI {
        return angle;
    }
    let r = angle.rem_euclid(TAU); // [0, 2π]; rounding can give exactly 2π
    if r > PI {
        r - TAU
    } else {
        r
    }
}

/// The unit vector of a 2D orientation: `(cos θ, sin θ)`.
#[must_use]
#[inline]
pub fn as_vector(orientation: f32) -> Vec2 {
    Vec2::from_angle(orientation)
}

/// A 2D orientation from the book's convention (Millington: orientation 0 faces +z and
/// `orientation → (sin o, cos o)` in the (x, z) plane), for book data whose (x, z) are used as
/// steerkit's (x, y): `θ = wrap(π/2 − o)`, so `as_vector(θ) = (sin o, cos o)`. Its own inverse
/// ([`to_book_orientation`]).
#[must_use]
#[inline]
pub fn from_book_orientation(book: f32) -> f32 {
    wrap_angle(core::f32::consts::FRAC_PI_2 - book)
}

/// The book's orientation of a steerkit 2D orientation: `o = wrap(π/2 − θ)` (see
/// [`from_book_orientation`]).
#[must_use]
#[inline]
pub fn to_book_orientation(orientation: f32) -> f32 {
    wrap_angle(core::f32::consts::FRAC_PI_2 - orientation)
}

/// The orientation of a 2D direction: `atan2(y, x)`, in (−π, π]; the exact inverse of
/// [`as_vector`]. A zero vector gives 0; prefer [`new_orientation`] to keep a current facing.
#[must_use]
#[inline]
pub fn orientation_of(direction: Vec2) -> f32 {
    wrap_angle(direction.y.atan2(direction.x))
}

/// Millington's `newOrientation`: the orientation of `velocity`, or `current` when the velocity
/// is zero (so a stationary character keeps its facing).
#[must_use]
#[inline]
pub fn new_orientation(current: f32, velocity: Vec2) -> f32 {
    if velocity.length_squared() > 0.0 {
        orientation_of(velocity)
    } else {
        current
    }
}

/// The left-hand perpendicular of a 2D vector, `(−y, x)`: a counter-clockwise quarter turn.
#[must_use]
#[inline]
pub fn perp(v: Vec2) -> Vec2 {
    v.perp()
}

/// Any unit vector at right angles to `v` (the book's `anyVectorAtRightAngles`).
///
/// `cross(cross(v, ref), v)` with `ref = +y`, falling back to `+x` when `v` is parallel to +y.
/// Returns zero only for a zero `v`.
#[must_use]
pub fn any_perpendicular(v: Vec3) -> Vec3 {
    let n = v.normalize_or_zero();
    if n == Vec3::ZERO {
        return Vec3::ZERO;
    }
    let reference = if n.y.abs() < 0.9 { Vec3::Y } else { Vec3::X };
    n.cross(reference).cross(n).normalize_or_zero()
}

/// 2½D: mapping between a y-up 3D ground plane and the 2D x–y plane.
///
/// Looking down from +y, 3D `(x, _, z)` maps to 2D `(x, −z)`, which keeps counter-clockwise
/// turns counter-clockwise, and a 2D heading θ equals a yaw of θ about +y
/// (`Quat::from_rotation_y(θ)` turns [`FORWARD_3D`] onto `to_3d(as_vector(θ), 0)`).
pub mod ground {
    use glam::{Quat, Vec2, Vec3};

    /// The ground-plane part of a 3D vector, as 2D `(x, −z)`.
    #[must_use]
    #[inline]
    pub fn to_2d(v: Vec3) -> Vec2 {
        Vec2::new(v.x, -v.z)
    }

    /// A 2D ground vector lifted to 3D at height `y`: `(x, y, −y₂)`.
    #[must_use]
    #[inline]
    pub fn to_3d(v: Vec2, y: f32) -> Vec3 {
        Vec3::new(v.x, y, -v.y)
    }

    /// The 3D orientation of a 2½D heading: a yaw of `heading` radians about +y.
    #[must_use]
    #[inline]
    pub fn heading_to_quat(heading: f32) -> Quat {
        Quat::from_rotation_y(heading)
    }

    /// The 2½D heading of a 3D orientation: the yaw of its forward axis projected on the ground.
    /// A forward axis pointing straight up or down has no yaw and gives 0.
    #[must_use]
    #[inline]
    pub fn quat_to_heading(orientation: Quat) -> f32 {
        let f = to_2d(orientation * super::FORWARD_3D);
        if f.length_squared() > 0.0 {
            super::orientation_of(f)
        } else {
            0.0
        }
    }
}

/// The horizontal (x–z) part of a y-up 3D vector: `(x, 0, z)`.
#[inline]
pub(crate) fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_orientations_map_the_books_facing_vector_onto_ours() {
        for o in [0.0f32, 0.3, 1.0, -2.0, 3.0] {
            let theta = from_book_orientation(o);
            let book_vector = Vec2::new(o.sin(), o.cos()); // the book's (x, z)
            assert!((as_vector(theta) - book_vector).length() < 1e-6, "{o}");
            assert!((wrap_angle(to_book_orientation(theta) - o)).abs() < 1e-6, "{o}");
        }
        // the book's 0 faces +z, ours +y once (x, z) is (x, y)
        assert!((as_vector(from_book_orientation(0.0)) - Vec2::Y).length() < 1e-6);
    }

    #[test]
    fn wrap_angle_is_half_open_minus_pi_to_pi() {
        assert_eq!(wrap_angle(PI), PI);
        assert_eq!(wrap_angle(-PI), PI);
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-5);
        assert!(wrap_angle(TAU).abs() < 1e-6);
        assert!(wrap_angle(-1e-9).abs() < 1e-6);
        // very large angles still land in range (full modulo, not one 2π step)
        let w = wrap_angle(1000.0);
        assert!(w > -PI && w <= PI);
        let expect = (1000.0f64).rem_euclid(std::f64::consts::TAU) as f32; // 0.97353
        assert!((w - expect).abs() < 1e-3, "{w} vs {expect}");
    }

    #[test]
    fn orientation_and_vector_are_exact_inverses_in_all_quadrants() {
        // erratum E2: one handedness, both directions
        for k in 0..16 {
            let theta = wrap_angle(-PI + 0.1 + k as f32 * TAU / 16.0);
            let back = orientation_of(as_vector(theta));
            assert!(wrap_angle(back - theta).abs() < 1e-6, "θ={theta} back={back}");
        }
        for v in
            [Vec2::new(3.0, 4.0), Vec2::new(-2.0, 1.0), Vec2::new(-1.0, -5.0), Vec2::new(0.5, -0.1)]
        {
            assert!((as_vector(orientation_of(v)) - v.normalize()).length() < 1e-6);
        }
    }

    #[test]
    fn new_orientation_uses_the_velocity_not_the_position() {
        // erratum E1: the book reads `static.x, static.z`
        assert!((new_orientation(1.0, Vec2::new(0.0, 2.0)) - PI / 2.0).abs() < 1e-6);
        assert_eq!(new_orientation(1.0, Vec2::ZERO), 1.0);
    }

    #[test]
    fn ground_mapping_round_trips_and_matches_yaw() {
        let v = Vec3::new(1.5, 2.0, -3.0);
        assert_eq!(ground::to_3d(ground::to_2d(v), 2.0), v);
        for k in 0..8 {
            let h = wrap_angle(k as f32 * 0.9 - 3.0);
            let q = ground::heading_to_quat(h);
            assert!((q * FORWARD_3D - ground::to_3d(as_vector(h), 0.0)).length() < 1e-5);
            assert!(wrap_angle(ground::quat_to_heading(q) - h).abs() < 1e-5);
        }
    }

    #[test]
    fn any_perpendicular_handles_the_reference_axis() {
        for v in [Vec3::Y, -Vec3::Y, Vec3::X, Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.0, 5.0, 0.01)] {
            let p = any_perpendicular(v);
            assert!((p.length() - 1.0).abs() < 1e-5);
            assert!(p.dot(v).abs() < 1e-5 * v.length());
        }
        assert_eq!(any_perpendicular(Vec3::ZERO), Vec3::ZERO);
    }

    #[test]
    fn local_world_round_trip() {
        let o = 0.7;
        let v = Vec2::new(2.0, -1.0);
        assert!((Vec2::to_local(o, Vec2::to_world(o, v)) - v).length() < 1e-6);
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.3, 0.4, 0.5);
        let w = Vec3::new(1.0, 2.0, 3.0);
        assert!((Vec3::to_local(q, Vec3::to_world(q, w)) - w).length() < 1e-5);
        // 2D forward of orientation equals to_world(x̂)
        assert!((Vec2::forward(o) - Vec2::to_world(o, Vec2::X)).length() < 1e-6);
    }
}
