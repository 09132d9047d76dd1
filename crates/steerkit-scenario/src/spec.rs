//! The file format as plain data: what a scenario file says, before any validation beyond
//! types and field names. Every struct denies unknown fields, so a misspelt key is an error.
//!
//! Polymorphic parts (behaviour nodes, obstacles, spawn regions) are flat structs with a `kind`
//! or `shape` string and every parameter optional: an internally tagged enum would buffer the
//! table and lose source positions. Which fields apply to which kind is checked in `check`.

use serde::Deserialize;

/// A point or vector: `[x, y]`, or `[x, y, z]` in a 3D scenario (m, or m/s for velocities).
/// Any other length is an error here; whether the length matches the scenario's dimensions
/// is checked with the rest (`check::point`), so a 3D point in a 2D file is never cut short.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Xy {
    c: [f32; 3],
    n: u8,
}

impl core::ops::Deref for Xy {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.c[..usize::from(self.n)]
    }
}

impl<'de> Deserialize<'de> for Xy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<f32>::deserialize(d)?;
        match v.as_slice() {
            [x, y] => Ok(Xy { c: [*x, *y, 0.0], n: 2 }),
            [x, y, z] => Ok(Xy { c: [*x, *y, *z], n: 3 }),
            _ => Err(serde::de::Error::invalid_length(
                v.len(),
                &"a point or vector: [x, y], or [x, y, z] in a 3D scenario",
            )),
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioSpec {
    pub name: String,
    pub dimensions: Option<u8>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub seed: u64,
    pub dt: f32,
    pub steps: Option<u64>,
    pub duration: Option<f32>,
    pub world: WorldSpec,
    #[serde(default)]
    pub obstacles: Vec<ObstacleSpec>,
    #[serde(default)]
    pub walls: Vec<WallSpec>,
    #[serde(default)]
    pub paths: Vec<PathSpec>,
    pub groups: Vec<GroupSpec>,
    #[serde(default)]
    pub formations: Vec<FormationSpec>,
    #[serde(default)]
    pub turrets: Vec<TurretSpec>,
    pub side_view: Option<SideViewSpec>,
    #[serde(default)]
    pub platforms: Vec<PlatformSpec>,
    pub metrics: Option<MetricsSpec>,
    pub navigation: Option<NavigationSpec>,
}

/// `[navigation]`: the walkable outline and how routes are planned and followed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NavigationSpec {
    pub outline: Option<Vec<Xy>>,
    pub clearance: Option<f32>,
    pub replan_interval: Option<f32>,
    pub off_route: Option<f32>,
    pub max_plans_per_step: Option<u32>,
    pub anticipation: Option<f32>,
    pub keep_right: Option<f32>,
    pub passage_width: Option<f32>,
    pub two_way_width: Option<f32>,
    pub single_file_width: Option<f32>,
}

/// `[side_view]`: a 2D world seen from the side (x right, y up) with gravity and platforms.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SideViewSpec {
    pub gravity: Option<f32>,
    pub hole_width: Option<f32>,
}

/// `[[platforms]]`: a horizontal platform top from `from` to `to`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlatformSpec {
    pub from: Xy,
    pub to: Xy,
}

/// `orca = { ... }`: reciprocal collision avoidance for a group.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OrcaSpec {
    pub time_horizon: Option<f32>,
    pub obstacle_time_horizon: Option<f32>,
    pub rest_time_horizon: Option<f32>,
    pub max_neighbours: Option<u32>,
    pub priority: Option<f32>,
    pub arrived_priority: Option<f32>,
    pub layers: Option<Vec<u32>>,
    pub avoid_layers: Option<Vec<u32>>,
    pub escape: Option<bool>,
}

/// `jump = { ... }`: a side-view group's jumping.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JumpSpec {
    pub jump_speed: f32,
}

/// `[[turrets]]` (3D scenarios): a gun or a grenadier aiming at an agent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurretSpec {
    pub name: String,
    pub colour: Option<String>,
    pub position: Xy,
    pub target: String,
    pub muzzle_speed: f32,
    pub gravity: Option<f32>,
    pub drag: Option<String>,
    pub k: Option<f32>,
    pub c: Option<f32>,
    pub wind: Option<Xy>,
    pub aim: Option<String>,
    pub solver: Option<String>,
    pub arc: Option<String>,
    pub interval: Option<f32>,
    pub first_shot: Option<f32>,
    pub hit_radius: Option<f32>,
    pub fuse: Option<f32>,
    pub blast_radius: Option<f32>,
}

/// `[world]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorldSpec {
    pub min: Option<Xy>,
    pub max: Option<Xy>,
    #[serde(default)]
    pub wrap: bool,
    pub neighbour_radius: f32,
    pub non_penetration_passes: Option<u32>,
    pub non_penetration_tolerance: Option<f32>,
}

/// `[[obstacles]]`: `shape = "circle" | "box" | "polygon"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObstacleSpec {
    pub shape: String,
    pub center: Option<Xy>,
    pub radius: Option<f32>,
    pub min: Option<Xy>,
    pub max: Option<Xy>,
    pub points: Option<Vec<Xy>>,
}

/// `[[walls]]`: a segment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WallSpec {
    pub from: Xy,
    pub to: Xy,
}

/// `[[paths]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathSpec {
    pub name: String,
    pub points: Vec<Xy>,
    #[serde(default)]
    pub looping: bool,
    pub search_window: Option<f32>,
}

/// `[[groups]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupSpec {
    pub name: String,
    pub colour: Option<String>,
    pub count: Option<u32>,
    pub spawn: Option<SpawnSpec>,
    pub agents: Option<Vec<AgentSpecFile>>,
    pub radius: f32,
    pub limits: LimitsSpec,
    pub behaviour: Option<NodeSpec>,
    pub jump: Option<JumpSpec>,
    pub nearest_neighbours: Option<u32>,
    pub orca: Option<OrcaSpec>,
    pub goal: Option<Xy>,
    pub arrive_radius: Option<f32>,
    pub on_arrival: Option<String>,
    #[serde(default)]
    pub non_penetration: bool,
    pub view_half_angle: Option<f32>,
    pub face_motion: Option<bool>,
    pub heading_smoothing: Option<u32>,
    pub integration: Option<String>,
    pub linear_drag: Option<f32>,
    pub angular_drag: Option<f32>,
    pub fake_rotation: Option<FakeRotationSpec>,
    pub goal_rule: Option<GoalRuleSpec>,
    pub vehicle: Option<VehicleSpec>,
}

/// `vehicle = { model = "car" | "motorbike" | "tank" | "human" | "discrete_car", ... }` (2D
/// groups): the model's parameters, all optional, checked for the model afterwards.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VehicleSpec {
    pub model: String,
    pub drive: Option<String>,
    pub length: Option<f32>,
    pub width: Option<f32>,
    pub wheelbase: Option<f32>,
    pub max_steer: Option<f32>,
    pub max_speed: Option<f32>,
    pub max_reverse_speed: Option<f32>,
    pub acceleration: Option<f32>,
    pub brake: Option<f32>,
    pub reverse_acceleration: Option<f32>,
    pub max_lateral_acceleration: Option<f32>,
    pub max_lean: Option<f32>,
    pub track_width: Option<f32>,
    pub max_track_speed: Option<f32>,
    pub track_acceleration: Option<f32>,
    pub max_forward_speed: Option<f32>,
    pub max_backward_speed: Option<f32>,
    pub max_sideways_speed: Option<f32>,
    pub max_acceleration: Option<f32>,
    pub max_turn_rate: Option<f32>,
    pub forward_acceleration: Option<f32>,
    pub backward_acceleration: Option<f32>,
    pub angular_acceleration: Option<f32>,
    pub max_rotation: Option<f32>,
    pub passing_lane: Option<f32>,
    pub headway: Option<f32>,
}

/// `goal_rule = { rule = "antipode" | "mirror" | "offset" | "scatter" | "rows", ... }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GoalRuleSpec {
    pub rule: String,
    pub center: Option<Xy>,
    pub axis: Option<String>,
    pub at: Option<f32>,
    pub offset: Option<Xy>,
    pub min: Option<Xy>,
    pub max: Option<Xy>,
    pub points: Option<Vec<Xy>>,
    pub min_spacing: Option<f32>,
}

/// `spawn = { shape = "rect" | "circle", ... }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SpawnSpec {
    pub shape: String,
    pub min: Option<Xy>,
    pub max: Option<Xy>,
    pub center: Option<Xy>,
    pub radius: Option<f32>,
    pub heading: Option<HeadingSpec>,
    pub speed: Option<[f32; 2]>,
    pub min_spacing: Option<f32>,
    pub start_angle: Option<f32>,
    pub from: Option<Xy>,
    pub to: Option<Xy>,
    pub spacing: Option<f32>,
    pub columns: Option<u32>,
}

/// A spawn heading: a fixed angle (rad) or the string `"random"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum HeadingSpec {
    Angle(f32),
    Random,
}

impl<'de> Deserialize<'de> for HeadingSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = HeadingSpec;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an angle in radians or \"random\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<HeadingSpec, E> {
                Ok(HeadingSpec::Angle(v as f32))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<HeadingSpec, E> {
                Ok(HeadingSpec::Angle(v as f32))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<HeadingSpec, E> {
                Ok(HeadingSpec::Angle(v as f32))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HeadingSpec, E> {
                if v == "random" {
                    Ok(HeadingSpec::Random)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// One explicitly placed agent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentSpecFile {
    pub position: Xy,
    pub velocity: Option<Xy>,
    pub orientation: Option<f32>,
    pub goal: Option<Xy>,
}

/// `fake_rotation = { ... }` (3D groups).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FakeRotationSpec {
    pub blend_speed: f32,
    pub roll_scale: f32,
    #[serde(default)]
    pub roll_outward: bool,
    pub pitch: Option<bool>,
}

/// `limits = { ... }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LimitsSpec {
    pub max_speed: f32,
    pub max_acceleration: f32,
    pub max_rotation: f32,
    pub max_angular_acceleration: f32,
}

/// A behaviour node: a leaf behaviour or a combiner, `kind` plus that kind's parameters.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeSpec {
    pub kind: String,
    // combiners
    pub weight: Option<f32>,
    pub members: Option<Vec<NodeSpec>>,
    // sequence
    pub first: Option<Box<NodeSpec>>,
    pub then: Option<Box<NodeSpec>>,
    pub epsilon: Option<f32>,
    // targets
    pub target: Option<Xy>,
    pub agent: Option<String>,
    pub use_goal: Option<bool>,
    // seek / flee
    pub mode: Option<String>,
    pub panic_distance: Option<f32>,
    // arrive (also cohesion)
    pub target_radius: Option<f32>,
    pub slow_radius: Option<f32>,
    pub deceleration_time: Option<f32>,
    pub braking: Option<bool>,
    pub time_to_target: Option<f32>,
    pub stop: Option<String>,
    // pursue / evade
    pub max_prediction: Option<f32>,
    pub estimate: Option<String>,
    pub head_on_shortcut: Option<bool>,
    pub turnaround: Option<f32>,
    // velocity match
    pub velocity: Option<Xy>,
    // wander
    pub radius: Option<f32>,
    pub distance: Option<f32>,
    pub jitter: Option<f32>,
    // kinematic wander
    pub rate: Option<f32>,
    // separation
    pub threshold: Option<f32>,
    pub falloff: Option<String>,
    pub decay: Option<f32>,
    pub gather: Option<String>,
    pub buffer: Option<f32>,
    // alignment
    #[serde(rename = "match")]
    pub match_: Option<String>,
    // collision avoidance
    pub margin: Option<f32>,
    pub horizon: Option<f32>,
    // follow path
    pub path: Option<String>,
    pub offset: Option<f32>,
    pub predict_time: Option<f32>,
    // obstacle avoidance
    pub rays: Option<String>,
    pub half_angle: Option<f32>,
    pub whisker_ratio: Option<f32>,
    pub half_width: Option<f32>,
    pub ray_count: Option<u8>,
    pub avoid_distance: Option<f32>,
    pub lookahead: Option<f32>,
    pub lookahead_time: Option<f32>,
    pub max_half_angle: Option<f32>,
    pub widen_rate: Option<f32>,
    pub commitment: Option<f32>,
    pub avoid_target: Option<String>,
    // wall feelers
    pub length: Option<f32>,
    pub side_angle: Option<f32>,
    pub side_ratio: Option<f32>,
    // hide, interpose, offset pursuit
    pub threat_range: Option<f32>,
    pub other_agent: Option<String>,
    pub ratio: Option<f32>,
    pub local_offset: Option<Xy>,
    // Green's path techniques
    pub string: Option<f32>,
    pub leash_speed: Option<f32>,
    pub path_radius: Option<f32>,
    pub ahead: Option<f32>,
    pub closeness: Option<f32>,
    // cone check, detection box, repel obstacle
    pub range: Option<f32>,
    pub min_length: Option<f32>,
    pub braking_weight: Option<f32>,
    pub contact_gap: Option<f32>,
    // align
    pub orientation: Option<f32>,
    // flocking presets
    pub separation_weight: Option<f32>,
    pub alignment_weight: Option<f32>,
    pub cohesion_weight: Option<f32>,
    pub wander_weight: Option<f32>,
    pub wander: Option<bool>,
    // dither members
    pub probability: Option<f32>,
    // steering pipeline
    pub grid_min: Option<Xy>,
    pub grid_max: Option<Xy>,
    pub cell_size: Option<f32>,
    pub clearance: Option<f32>,
    pub constraint_steps: Option<u32>,
}

/// `[[formations]]`: a group's agents held in a pattern around an anchor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FormationSpec {
    pub group: String,
    pub shape: String,
    pub spacing: f32,
    pub columns: Option<u32>,
    pub anchor_position: Xy,
    pub anchor_orientation: Option<f32>,
    pub anchor_limits: LimitsSpec,
    pub anchor: NodeSpec,
}

/// `[metrics]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MetricsSpec {
    pub collect: Option<Vec<String>>,
    pub overlap_tolerance: Option<f32>,
    pub stuck_time: Option<f32>,
    pub stuck_speed: Option<f32>,
}
