//! The take-off and flight maths: the flight times of a vertical jump, the jump velocity that
//! lands on a spot (and the run-up it needs), and a character's jumping capability.

use super::{check_gravity, JumpError};
use crate::error::{non_negative, positive, ParamError};
use crate::math::horizontal;
use crate::predict::{finite_vec, quadratic_roots, BallisticArc};
use glam::Vec3;

/// Both flight times of a jump that rises by `rise` (m, landing height minus take-off height)
/// with vertical take-off speed `jump_speed` (m/s) under vertical gravity `gravity_y` (m/s², < 0).
///
/// From `Δy = v_y·t + ½·g_y·t²`, with `G = −g_y > 0` (Equation 3.7 with the signs right):
/// ```text
/// t_short = (v_y − √(v_y² − 2·G·Δy)) / G,    t_long = (v_y + √(v_y² − 2·G·Δy)) / G
/// ```
/// Returned as `(t_short, t_long)`. `t_short` is computed as `2·Δy / (v_y + √…)`, so it is exactly
/// 0 for a level jump and negative for a jump down; only positive times are flights. `None` when
/// the landing is above the apex (negative radicand), gravity does not pull down, or an input is
/// not finite.
#[must_use]
pub fn jump_times(rise: f32, jump_speed: f32, gravity_y: f32) -> Option<(f32, f32)> {
    if !(rise.is_finite() && jump_speed.is_finite() && gravity_y.is_finite()) || gravity_y >= 0.0 {
        return None;
    }
    let big_g = -f64::from(gravity_y);
    let (a, b) = quadratic_roots(0.5 * big_g, -f64::from(jump_speed), f64::from(rise))?;
    let (a, b) = (a as f32, b as f32);
    (a.is_finite() && b.is_finite()).then_some((a, b))
}

/// A solved jump: how long it flies and the take-off velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpSolution {
    /// Flight time (s).
    pub time: f32,
    /// Horizontal velocity at take-off (m/s, `y = 0`): what the run-up must reach.
    pub run_up_velocity: Vec3,
    /// Vertical take-off speed (m/s).
    pub jump_speed: f32,
}

impl JumpSolution {
    /// The full take-off velocity `run_up_velocity + ŷ·jump_speed` (m/s).
    #[must_use]
    pub fn launch_velocity(&self) -> Vec3 {
        self.run_up_velocity + Vec3::Y * self.jump_speed
    }

    /// Planar (run-up) speed (m/s).
    #[must_use]
    pub fn run_up_speed(&self) -> f32 {
        self.run_up_velocity.length()
    }
}

/// The jump velocity calculation (§3.6.2): the run-up velocity that carries a jump from `takeoff`
/// to `landing` when the character leaves the ground at vertical speed `jump_speed` (m/s, ≥ 0).
///
/// The vertical motion fixes the flight time ([`jump_times`]); then, per horizontal axis,
/// `v_h = (Δ_h − ½·g_h·t²) / t` (just `Δ_h / t` for vertical gravity). [`BallisticArc::Low`] prefers the
/// shorter flight (the book's choice) and falls back to the longer one when the shorter needs a
/// run-up of `max_run_speed` (m/s, > 0) or more; [`BallisticArc::High`] uses only the longer, which lands
/// on the way down. Flight times ≤ 0 are skipped: a level jump's `t_short = 0` (it would divide
/// by zero) and a downward jump's negative `t_short`.
///
/// # Errors
/// [`JumpError::TooHigh`] (landing above the apex), [`JumpError::TooFast`] (every usable time
/// needs a run-up ≥ `max_run_speed`), [`JumpError::NoFlightTime`], [`JumpError::Invalid`]
/// (non-finite input, negative jump speed, `max_run_speed ≤ 0`, or `gravity.y ≥ 0`).
pub fn jump_velocity(
    takeoff: Vec3,
    landing: Vec3,
    jump_speed: f32,
    gravity: Vec3,
    max_run_speed: f32,
    arc: BallisticArc,
) -> Result<JumpSolution, JumpError> {
    finite_vec("takeoff", takeoff)?;
    finite_vec("landing", landing)?;
    non_negative("jump_speed", jump_speed)?;
    positive("max_run_speed", max_run_speed)?;
    let gravity = check_gravity(gravity)?;
    let delta = landing - takeoff;
    let (short, long) = jump_times(delta.y, jump_speed, gravity.y).ok_or_else(|| {
        JumpError::TooHigh { max_rise: jump_speed * jump_speed / (-2.0 * gravity.y) }
    })?;
    let candidates: &[f32] = match arc {
        BallisticArc::Low => &[short, long],
        BallisticArc::High => &[long],
    };
    let (dh, gh) = (horizontal(delta), horizontal(gravity));
    let mut slowest: Option<f32> = None;
    for &t in candidates {
        if !(t > 0.0 && t.is_finite()) {
            continue;
        }
        let v = (dh - gh * (0.5 * t * t)) / t;
        let speed = v.length();
        if !speed.is_finite() {
            continue;
        }
        if speed < max_run_speed {
            return Ok(JumpSolution { time: t, run_up_velocity: v, jump_speed });
        }
        slowest = Some(slowest.map_or(speed, |s: f32| s.min(speed)));
    }
    Err(slowest.map_or(JumpError::NoFlightTime, |required| JumpError::TooFast { required }))
}

/// What a character can do when jumping: its vertical take-off speed, its fastest run-up and the
/// gravity it falls under (a heavily laden character jumps lower and needs a faster run-up).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpCapability {
    jump_speed: f32,
    max_run_speed: f32,
    pub(super) gravity: Vec3,
}

impl JumpCapability {
    /// A validated capability: `jump_speed` (m/s, ≥ 0, the book's `maxTakeoffYSpeed`),
    /// `max_run_speed` (m/s, > 0) and `gravity` (m/s², `y < 0`).
    ///
    /// # Errors
    /// [`ParamError`] naming the offending value.
    pub fn new(jump_speed: f32, max_run_speed: f32, gravity: Vec3) -> Result<Self, ParamError> {
        Ok(JumpCapability {
            jump_speed: non_negative("jump_speed", jump_speed)?,
            max_run_speed: positive("max_run_speed", max_run_speed)?,
            gravity: check_gravity(gravity)?,
        })
    }

    /// Vertical take-off speed (m/s).
    #[must_use]
    pub fn jump_speed(&self) -> f32 {
        self.jump_speed
    }

    /// Fastest run-up (m/s).
    #[must_use]
    pub fn max_run_speed(&self) -> f32 {
        self.max_run_speed
    }

    /// Gravity (m/s²).
    #[must_use]
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// The highest rise above the take-off the jump reaches: `v_y² / (2·G)` (m).
    #[must_use]
    pub fn max_rise(&self) -> f32 {
        self.jump_speed * self.jump_speed / (-2.0 * self.gravity.y)
    }

    /// [`jump_velocity`] with this capability.
    ///
    /// # Errors
    /// As [`jump_velocity`].
    pub fn jump(
        &self,
        takeoff: Vec3,
        landing: Vec3,
        arc: BallisticArc,
    ) -> Result<JumpSolution, JumpError> {
        jump_velocity(takeoff, landing, self.jump_speed, self.gravity, self.max_run_speed, arc)
    }
}
