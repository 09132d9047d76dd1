//! The shape of obstacle avoidance's rays (Millington Fig 3.26), the adaptive fan that widens
//! them while they hit, and the rule that places the avoid target: the configuration of
//! [`ObstacleAvoidance`](super::ObstacleAvoidance), apart from the steering that uses it.

// `!(a < b)` is deliberate: NaN fails the comparison and takes the "nothing" branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::MAX_FAN_RAYS;
use crate::error::{non_negative, positive, ParamError};

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
    pub(super) fn validate(self) -> Result<Self, ParamError> {
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

    pub(super) fn count(self) -> usize {
        match self {
            RayLayout::Single => 1,
            RayLayout::Whiskers { .. } => 3,
            RayLayout::Parallel { .. } => 2,
            RayLayout::Fan { rays, .. } => usize::from(rays),
        }
    }

    /// Ray `i` as (origin offset along the side vector (m), angle from the heading (rad), length
    /// fraction, side: −1 right, 0 centre, +1 left). `angle` overrides the layout's half angle.
    pub(super) fn ray(self, i: usize, angle: f32) -> (f32, f32, f32, f32) {
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

    pub(super) fn half_angle(self) -> f32 {
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

/// Which way [`ObstacleAvoidance`](super::ObstacleAvoidance) turns the avoid target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AvoidTarget {
    /// Steer away from the side the hits are on (see
    /// [`ObstacleAvoidance`](super::ObstacleAvoidance)); the default.
    #[default]
    Lateral,
    /// Millington's literal `hit + normal · avoid_distance`. A face hit square-on has a normal
    /// pointing straight back, so this target gives no turn at all: the character brakes or
    /// drives into the wall. Kept for comparison.
    Normal,
}
