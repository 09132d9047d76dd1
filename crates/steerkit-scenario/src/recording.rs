//! A recording of a run: what the replay player and the snapshot draw. `steerkit run`
//! (`steerkit-cli`, which re-exports this module as `steerkit_cli::recording`) writes it, and
//! the live playground (`steerkit-serve`) sends its world and frames in the same shape; a built
//! world's part is [`Dim::recording_world`](crate::Dim::recording_world).
//!
//! A [`Recorder`] collects frames while a simulation runs and [`Recorder::finish`] returns a
//! [`Recording`], which serialises to JSON ([`Recording::to_json`]) and back
//! ([`Recording::from_json`], which also [validates](Recording::validate) it).
//!
//! # Schema (format `"steerkit-replay"`, version 1)
//!
//! Units are SI (m, s, rad). 2D runs use the x–y plane, angles counter-clockwise from +x. In a 3D
//! run (`meta.dims = 3`; y up, right-handed, a character looks down its local +x axis with local
//! +y up and local +z to its right) every *agent* point and vector has three components, headings
//! are ground headings (`steerkit::math::ground::quat_to_heading`), and each frame may also give
//! every body's full orientation (`attitude`). The player draws 3D runs in perspective, or as the
//! ground plane seen from above, `(x, z) → (x, −z)`. The 2D shapes of the `world` section
//! (`bounds`, `circles`, `polygons`, `boxes`, `walls`) are always in that ground plane; `volume`,
//! `spheres` and `cuboids` are 3D (only in 3D recordings) and path points in a 3D recording have
//! three components, `[x, y, z]` (older 3D recordings hold `[x, −z]` ground points; they still
//! read).
//!
//! ```text
//! {
//!   "format": "steerkit-replay", "version": 1,
//!   "meta":   { "scenario", "description", "seed", "dt" (s per step),
//!               "steps" (steps simulated), "every" (a frame is kept every k steps, and the
//!               last), "dims" (2 or 3), "unit" (optional length unit, e.g. "px";
//!               absent: metres) },
//!   "world":  { "bounds": {"min":[x,y],"max":[x,y]} | null, "wrap": bool,
//!               "circles": [{"center":[x,y],"radius":r}], "polygons": [{"points":[[x,y],…]}],
//!               "boxes": [{"min":[x,y],"max":[x,y]}], "walls": [{"a":[x,y],"b":[x,y]}],
//!               "paths": [{"name", "points":[[x,y],…] (2D) | [[x,y,z],…] (3D), "looping": bool}],
//!               3D recordings only (each written only when set or not empty):
//!               "volume":  {"min":[x,y,z],"max":[x,y,z]} | null   world box (m), min ≤ max
//!               "spheres": [{"center":[x,y,z],"radius":r}]        solid balls (m), r > 0
//!               "cuboids": [{"min":[x,y,z],"max":[x,y,z]}]        solid boxes (m), min ≤ max
//!               "turrets": [{"name","colour":"#rrggbb","position":[x,y,z]}]  guns (m),
//!               "waypoints": [{"center":[x,y],"radius":r,"visited":step|null}]  a race's
//!                            waypoints (PTSP: px), each filled from the step it was visited },
//!   "groups": [{ "name", "colour": "#rrggbb", "radius" (m),
//!                "vehicle": {"model": "car" | "motorbike" | "tank" | "human" | "discrete_car" | "ship",
//!                            "length", "width" (m, the body drawn), "wheelbase" (m, cars and
//!                            motorbikes: front axle ahead of the reference point),
//!                            "max_steer" (rad), "track_width" (m, tanks)}  (optional) }],
//!   "agent_groups": [g₀, g₁, …]          (group index of each agent; n = its length)
//!   "frames": [{
//!       "step": s                          (time = s · dt; frame steps strictly increase)
//!       "position":    [x₀,y₀, x₁,y₁, …]   (dims values per agent, m)
//!       "velocity":    [vx₀,vy₀, …]        (dims values per agent, m/s)
//!       "orientation": [θ₀, θ₁, …]         (one heading per agent, rad)
//!       "attitude":    [qx₀,qy₀,qz₀,qw₀, …] (3D frames only, optional: 4 values per agent, the
//!                                          body's unit orientation quaternion, dimensionless;
//!                                          `q * v` turns body axes into world axes; null for
//!                                          an agent gone; absent in 2D frames)
//!       "overlays": {                      (optional; each layer optional; `agent` lists the
//!                                          agents it has an entry for, repeats allowed)
//!         "steering": {"agent":[…], "vector":[…]}        acceleration asked for (m/s²), dims each
//!         "target":   {"agent":[…], "point":[…]}         current target point, dims each
//!         "wander":   {"agent":[…], "center":[…], "radius":[…], "target":[…]}
//!         "rays":     {"agent":[…], "from":[…], "to":[…], "hit":[…]}
//!                     feelers: segments from → to (dims each); hit = fraction t ∈ [0, 1] of
//!                     the first hit along the segment (hit point = from + t·(to − from)), −1 none
//!         "boxes":    {"agent":[…], "corners":[…]}       detection box, 4 corners × dims each
//!         "neighbour_radius": {"agent":[…], "radius":[…]}
//!         "slots":    {"agent":[…], "point":[…]}         formation slot assigned, dims each
//!         "controls": {"agent":[…], "value":[…]}         a vehicle's controls this step, 3 each
//!         "routes":   {"agent":[…], "count":[…], "point":[…]}  a navigating agent's route ahead:
//!                     count[k] points (dims each) from its next corner to its goal
//!                     in [−1, 1]: car/motorbike (throttle, steer, 0), tank (left, right, 0),
//!                     human (forward, strafe, turn), discrete_car (pedal, turn, 0),
//!                     ship (thrust 0 or 1, turn −1/0/+1, 0)
//!       } }],
//!   "events":  [{"step", "kind", "agent": i | null}],  "events_dropped": k,
//!   "shots":   [{ "turret" (index into world.turrets), "step" (fired), "end" (step it ended),
//!                 "target" (agent aimed at), "arc": "low" | "high",
//!                 "predicted": [[x,y,z],…] (the flight the aim assumed, m),
//!                 "path": [[step,x,y,z],…] (the actual flight, sampled),
//!                 "outcome": "hit" | "miss" | "blast", "impact": [x,y,z],
//!                 "hit": agent | null, "blast_radius": m | null }]
//!              (3D recordings with turrets only; "shots_dropped": k beyond the cap),
//!   "metrics": [{"name", "unit", "values": [one per frame]}]
//! }
//! ```
//!
//! Agent data (positions, velocities, headings, attitudes and overlays) is stored as `f32` in flat
//! arrays and written rounded to 3 decimals (mm, mm/s, mrad; a quaternion component to 0.001,
//! about a milliradian, so a reader renormalises it): about 33 bytes per agent per frame of 2D
//! JSON. A non-finite value (an agent that left the simulation) is written as `null` and read
//! back as NaN; the player skips it. Metric values keep full `f32` precision. Keeping one frame in
//! `every` steps, recording overlays only for chosen agents ([`OverlayCapture`]) and capping the
//! events ([`RecordOptions::max_events`]) keep long crowd runs small.

use serde::{Deserialize, Serialize};
use steerkit::Vec2;

mod frame;
mod groups;
mod numbers;
mod recorder;
mod validate;
mod world;

/// The replay player: one self-contained HTML page (styles, markup and the player's script,
/// `web/replay/`: the head, the script's seven parts in order, the tail) that plays the
/// recording JSON put in place of `__STEERKIT_RECORDING__`. `steerkit run` writes it as
/// `replay.html`; the playground serves it with its own script added.
pub const PLAYER: &str = concat!(
    include_str!("../../../web/replay/head.html"),
    include_str!("../../../web/replay/1-core.js"),
    include_str!("../../../web/replay/2-scene.js"),
    include_str!("../../../web/replay/3-shots.js"),
    include_str!("../../../web/replay/4-view3d.js"),
    include_str!("../../../web/replay/5-draw3d.js"),
    include_str!("../../../web/replay/6-panels.js"),
    include_str!("../../../web/replay/7-input.js"),
    include_str!("../../../web/replay/tail.html"),
);

pub use frame::{
    BoxLayer, ControlLayer, Event, Frame, MetricSeries, Overlays, PointLayer, RayLayer, RouteLayer,
    ScalarLayer, VectorLayer, WanderLayer,
};
pub use groups::{Group, VehicleShape, PALETTE};
pub use recorder::{stride_for, FrameWriter, OverlayCapture, RecordOptions, Recorder};
pub use world::{
    CircleShape, Cuboid, PathPoint, PathShape, PolygonShape, Rect, SphereShape, WallShape,
    WaypointShape, World,
};

/// The `format` string of a recording.
pub const FORMAT: &str = "steerkit-replay";
/// The schema version written by this crate.
pub const VERSION: u32 = 1;

/// What went wrong building, recording or reading a recording.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordingError {
    /// A value is out of its allowed range (the field is named).
    #[error("{field}: {reason}")]
    Invalid {
        /// The field (a dotted path for nested data, e.g. `frames[3].position`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The JSON could not be read.
    #[error("recording JSON: {0}")]
    Json(String),
}

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> RecordingError {
    RecordingError::Invalid { field: field.into(), reason: reason.into() }
}

/// A whole run: metadata, the static world, agent groups, frames, events and metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// Always [`FORMAT`].
    pub format: String,
    /// Schema version ([`VERSION`]).
    pub version: u32,
    /// What was run.
    pub meta: Meta,
    /// The static world.
    pub world: World,
    /// Agent groups (name, colour, radius).
    pub groups: Vec<Group>,
    /// The group index of each agent; its length is the agent count.
    pub agent_groups: Vec<u32>,
    /// Recorded frames, in increasing step order.
    pub frames: Vec<Frame>,
    /// Discrete events, in the order recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// Events not kept because [`RecordOptions::max_events`] was reached.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub events_dropped: u64,
    /// Metric time series, one value per frame.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSeries>,
    /// Projectiles fired by the world's turrets, in firing order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shots: Vec<Shot>,
    /// Shots not kept beyond [`MAX_SHOTS`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shots_dropped: u64,
}

/// Shots a recording keeps (each holds its predicted and actual flight).
pub const MAX_SHOTS: usize = 4000;

// The turret and shot shapes are written by the turrets' runner, which `steerkit serve` runs too:
// they live beside it, in `crate::ballistics`.
pub use crate::ballistics::{Shot, TurretShape};

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// What was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Scenario name (shown as the title).
    pub scenario: String,
    /// One paragraph: what to watch for.
    #[serde(default)]
    pub description: String,
    /// The run's seed (shown as is; above 2⁵³ a browser displays it rounded).
    pub seed: u64,
    /// Time step (s).
    pub dt: f32,
    /// Steps simulated; the last frame is at this step.
    pub steps: u32,
    /// A frame is kept every `every` steps (and at the last step); ≥ 1.
    pub every: u32,
    /// 2 or 3.
    pub dims: u8,
    /// The length unit shown by the player (scale bar, grid, speeds) when not metres: `px` for
    /// a PTSP race, whose player then leaves out the layers such a race cannot have. Empty
    /// (the default, and not written): metres.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
}

impl Meta {
    /// 2D metadata with one frame kept per step.
    #[must_use]
    pub fn new(scenario: impl Into<String>, seed: u64, dt: f32, steps: u32) -> Self {
        Meta {
            scenario: scenario.into(),
            description: String::new(),
            seed,
            dt,
            steps,
            every: 1,
            dims: 2,
            unit: String::new(),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
}

impl Recording {
    /// The number of agents.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.agent_groups.len()
    }

    /// Values per point (2 or 3).
    #[must_use]
    pub fn dims(&self) -> usize {
        self.meta.dims as usize
    }

    /// The time of a frame (s).
    #[must_use]
    pub fn frame_time(&self, frame: &Frame) -> f32 {
        frame.step as f32 * self.meta.dt
    }

    /// An agent's position in a frame projected on the drawing plane (`(x, −z)` in 3D).
    #[must_use]
    pub fn plane_position(&self, frame: &Frame, agent: usize) -> Vec2 {
        let d = self.dims();
        let p = &frame.position[agent * d..agent * d + d];
        if d == 3 {
            Vec2::new(p[0], -p[2])
        } else {
            Vec2::new(p[0], p[1])
        }
    }

    /// Compact JSON (agent data rounded to 3 decimals).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a recording always serialises")
    }

    /// Reads and [validates](Self::validate) a recording.
    ///
    /// # Errors
    /// Malformed JSON, an unknown field, or an inconsistent recording.
    pub fn from_json(json: &str) -> Result<Self, RecordingError> {
        let r: Recording =
            serde_json::from_str(json).map_err(|e| RecordingError::Json(e.to_string()))?;
        r.validate()?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests;
