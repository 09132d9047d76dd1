//! One recorded frame (every agent's position, velocity, heading and attitude), its debug
//! overlay layers, and the run's events and metric series.

use super::numbers::{full, mm};
use serde::{Deserialize, Serialize};

/// One recorded frame: the state of every agent after `step` steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// The step (time = step · dt).
    pub step: u32,
    /// Positions, `dims` values per agent (m).
    #[serde(with = "mm")]
    pub position: Vec<f32>,
    /// Velocities, `dims` values per agent (m/s).
    #[serde(with = "mm")]
    pub velocity: Vec<f32>,
    /// Headings, one per agent (rad).
    #[serde(with = "mm")]
    pub orientation: Vec<f32>,
    /// Body orientations of a 3D frame, 4 values per agent: the unit quaternion `(x, y, z, w)`
    /// (NaN for an agent gone). Empty in 2D frames and when not recorded.
    #[serde(default, with = "mm", skip_serializing_if = "Vec::is_empty")]
    pub attitude: Vec<f32>,
    /// Debug overlays (empty when not captured).
    #[serde(default, skip_serializing_if = "Overlays::is_empty")]
    pub overlays: Overlays,
}

/// A sparse per-agent vector or point layer: entry `k` is agent `agent[k]` with `dims` values at
/// `values[k·dims..]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// `dims` values per entry.
    #[serde(with = "mm")]
    pub point: Vec<f32>,
}

/// Steering vectors: like [`PointLayer`] with the values named `vector`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// `dims` values per entry (m/s²).
    #[serde(with = "mm")]
    pub vector: Vec<f32>,
}

/// Wander circles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WanderLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Circle centres, `dims` each.
    #[serde(with = "mm")]
    pub center: Vec<f32>,
    /// Radii (m), one each.
    #[serde(with = "mm")]
    pub radius: Vec<f32>,
    /// Wander targets on the circle, `dims` each.
    #[serde(with = "mm")]
    pub target: Vec<f32>,
}

/// Feelers / rays with their first hit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RayLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Start points, `dims` each.
    #[serde(with = "mm")]
    pub from: Vec<f32>,
    /// End points, `dims` each.
    #[serde(with = "mm")]
    pub to: Vec<f32>,
    /// Fraction of the segment at the first hit, or −1 when nothing was hit.
    #[serde(with = "mm")]
    pub hit: Vec<f32>,
}

/// Detection boxes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Four corners in order, `dims` values each (4·dims per entry).
    #[serde(with = "mm")]
    pub corners: Vec<f32>,
}

/// Neighbour search radii.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// One value per entry (m).
    #[serde(with = "mm")]
    pub radius: Vec<f32>,
}

/// Vehicle controls, three values per entry in [−1, 1] (see the module's schema).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Three values per entry.
    #[serde(with = "mm")]
    pub value: Vec<f32>,
}

/// Navigation routes: entry `k` is agent `agent[k]`'s route ahead, `count[k]` points of `dims`
/// values each, in order from its next corner to its goal, stored one entry after another in
/// `point`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteLayer {
    /// Agent of each entry.
    pub agent: Vec<u32>,
    /// Points of each entry.
    pub count: Vec<u32>,
    /// `dims` values per point (m).
    #[serde(with = "mm")]
    pub point: Vec<f32>,
}

/// The debug overlays of one frame; see the module's schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlays {
    /// Steering (acceleration) vectors.
    #[serde(default, skip_serializing_if = "VectorLayer::is_empty")]
    pub steering: VectorLayer,
    /// Current target points.
    #[serde(default, skip_serializing_if = "PointLayer::is_empty")]
    pub target: PointLayer,
    /// Wander circles.
    #[serde(default, skip_serializing_if = "WanderLayer::is_empty")]
    pub wander: WanderLayer,
    /// Feelers and rays.
    #[serde(default, skip_serializing_if = "RayLayer::is_empty")]
    pub rays: RayLayer,
    /// Detection boxes.
    #[serde(default, skip_serializing_if = "BoxLayer::is_empty")]
    pub boxes: BoxLayer,
    /// Neighbour radii.
    #[serde(default, skip_serializing_if = "ScalarLayer::is_empty")]
    pub neighbour_radius: ScalarLayer,
    /// Formation slot points.
    #[serde(default, skip_serializing_if = "PointLayer::is_empty")]
    pub slots: PointLayer,
    /// Vehicle controls.
    #[serde(default, skip_serializing_if = "ControlLayer::is_empty")]
    pub controls: ControlLayer,
    /// Navigation routes.
    #[serde(default, skip_serializing_if = "RouteLayer::is_empty")]
    pub routes: RouteLayer,
}

macro_rules! layer_is_empty {
    ($($t:ty),*) => {$(
        impl $t {
            /// True when the layer has no entry.
            #[must_use]
            pub fn is_empty(&self) -> bool {
                self.agent.is_empty()
            }
        }
    )*};
}
layer_is_empty!(
    PointLayer,
    VectorLayer,
    WanderLayer,
    RayLayer,
    BoxLayer,
    ScalarLayer,
    ControlLayer,
    RouteLayer
);

impl Overlays {
    /// True when no layer has an entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.steering.is_empty()
            && self.target.is_empty()
            && self.wander.is_empty()
            && self.rays.is_empty()
            && self.boxes.is_empty()
            && self.neighbour_radius.is_empty()
            && self.slots.is_empty()
            && self.controls.is_empty()
            && self.routes.is_empty()
    }
}

/// A discrete event (arrival, overlap, quarantine, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The step it happened at.
    pub step: u32,
    /// What happened, e.g. `"arrived"`, `"overlap"`, `"quarantined"`.
    pub kind: String,
    /// The agent concerned, if any.
    #[serde(default)]
    pub agent: Option<u32>,
}

/// A metric over time: one value per frame (`null`/NaN where it was not given).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSeries {
    /// Name.
    pub name: String,
    /// Unit, e.g. `"m"`, `"m/s"`, or empty.
    #[serde(default)]
    pub unit: String,
    /// One value per frame.
    #[serde(with = "full")]
    pub values: Vec<f32>,
}
