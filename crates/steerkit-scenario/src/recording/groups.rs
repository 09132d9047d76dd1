//! A recording's agent groups: name, colour, body radius and vehicle body, and the default
//! palette of group colours.

use serde::{Deserialize, Serialize};

/// A group of agents drawn alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Name (legend).
    pub name: String,
    /// `#rrggbb`.
    pub colour: String,
    /// Body radius (m).
    pub radius: f32,
    /// The vehicle the agents are, when they are driven through one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vehicle: Option<VehicleShape>,
}

impl Group {
    /// A group; the colour is checked by [`Recorder::new`](super::Recorder::new).
    #[must_use]
    pub fn new(name: impl Into<String>, colour: impl Into<String>, radius: f32) -> Self {
        Group { name: name.into(), colour: colour.into(), radius, vehicle: None }
    }
}

/// The body a group's vehicle model implies, as the player draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleShape {
    /// `car`, `motorbike`, `tank`, `human` or `discrete_car`.
    pub model: String,
    /// Body length along the heading (m).
    pub length: f32,
    /// Body width (m).
    pub width: f32,
    /// Cars and motorbikes: distance from the reference point (rear axle) to the front axle (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wheelbase: Option<f32>,
    /// Cars and motorbikes: the largest front-wheel angle (rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steer: Option<f32>,
    /// Tanks: distance between the track centre lines (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_width: Option<f32>,
}

/// The colours given to groups in order when a caller has no preference: distinct, readable on
/// white and for the common colour-vision deficiencies (Okabe–Ito, then a few more).
pub const PALETTE: [&str; 10] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c6d31", "#6a3d9a",
    "#b8b000", "#444444",
];
