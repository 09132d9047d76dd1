//! The sliders: every numeric parameter of a document's limits and behaviour trees (and
//! formation anchors') with the range it may take.

use super::*;

/// A numeric parameter of a group's limits or behaviour tree, as a slider shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Param {
    /// Where it lives in the document, e.g. `groups[0].behaviour.members[1].threshold`.
    pub path: String,
    /// The group (or formation anchor) it belongs to.
    pub owner: String,
    /// The behaviour node's kind and the key, e.g. `separation threshold`.
    pub label: String,
    /// Current value.
    pub value: f64,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// Slider step.
    pub step: f64,
    /// Whole numbers only (e.g. `ray_count`).
    pub integer: bool,
}

/// The slider range of a numeric key: (min, max, step, unit-free default upper bound). The
/// upper bound is raised to twice the current value when the scenario starts above it.
fn range_of(key: &str) -> Option<(f64, f64, f64)> {
    Some(match key {
        "max_speed" => (0.0, 20.0, 0.1),
        "max_acceleration" => (0.0, 60.0, 0.1),
        "weight" | "separation_weight" | "alignment_weight" | "cohesion_weight"
        | "wander_weight" | "braking_weight" => (0.0, 10.0, 0.05),
        "epsilon" => (0.0, 2.0, 0.01),
        "target_radius" => (0.0, 5.0, 0.01),
        "slow_radius" => (0.0, 30.0, 0.1),
        "time_to_target" => (0.01, 2.0, 0.01),
        "panic_distance" | "threat_range" => (0.0, 50.0, 0.1),
        "max_prediction" | "predict_time" | "lookahead_time" | "horizon" => (0.0, 5.0, 0.05),
        "radius" | "distance" => (0.0, 20.0, 0.05),
        "jitter" | "rate" => (0.0, 20.0, 0.05),
        "threshold" | "margin" | "avoid_distance" | "buffer" => (0.0, 10.0, 0.05),
        "lookahead" | "length" | "min_length" | "range" => (0.0, 30.0, 0.1),
        "half_angle" | "side_angle" | "max_half_angle" => (0.0, 1.57, 0.01),
        "whisker_ratio" | "side_ratio" | "ratio" | "decay" => (0.0, 1.0, 0.01),
        "half_width" | "path_radius" | "ahead" | "offset" => (0.0, 20.0, 0.05),
        "ray_count" => (1.0, 15.0, 1.0),
        "jump_speed" => (0.0, 20.0, 0.1),
        _ => return None,
    })
}

/// The sliders of a document: limits and behaviour trees of groups, formation anchors.
pub(super) fn params_of<V: Space>(doc: &Value, world: &World<V>) -> Vec<Param> {
    let mut out = Vec::new();
    if let Some(groups) = doc.get("groups").and_then(Value::as_array) {
        for (gi, g) in groups.iter().enumerate() {
            let owner =
                world.groups.get(gi).map_or_else(|| format!("group {gi}"), |g| g.name.clone());
            if let Some(l) = g.get("limits") {
                numeric(l, &format!("groups[{gi}].limits"), "limits", &owner, &mut out);
            }
            if let Some(b) = g.get("behaviour") {
                walk(b, &format!("groups[{gi}].behaviour"), &owner, &mut out);
            }
            if let Some(j) = g.get("jump") {
                numeric(j, &format!("groups[{gi}].jump"), "jump", &owner, &mut out);
            }
        }
    }
    if let Some(fs) = doc.get("formations").and_then(Value::as_array) {
        for (fi, f) in fs.iter().enumerate() {
            let owner = format!("formation {fi} anchor");
            if let Some(l) = f.get("anchor_limits") {
                numeric(l, &format!("formations[{fi}].anchor_limits"), "limits", &owner, &mut out);
            }
            if let Some(b) = f.get("anchor") {
                walk(b, &format!("formations[{fi}].anchor"), &owner, &mut out);
            }
        }
    }
    out
}

fn walk(node: &Value, path: &str, owner: &str, out: &mut Vec<Param>) {
    let kind = node.get("kind").and_then(Value::as_str).unwrap_or("behaviour");
    numeric(node, path, kind, owner, out);
    if let Some(members) = node.get("members").and_then(Value::as_array) {
        for (i, m) in members.iter().enumerate() {
            walk(m, &format!("{path}.members[{i}]"), owner, out);
        }
    }
}

fn numeric(node: &Value, path: &str, kind: &str, owner: &str, out: &mut Vec<Param>) {
    let Some(obj) = node.as_object() else { return };
    for (key, v) in obj {
        let (Some(value), Some((min, max, step))) = (v.as_f64(), range_of(key)) else { continue };
        if !value.is_finite() {
            continue;
        }
        let max = if value > max { value * 2.0 } else { max };
        let min = if value < min { value } else { min };
        out.push(Param {
            path: format!("{path}.{key}"),
            owner: owner.to_owned(),
            label: format!("{kind} {}", key.replace('_', " ")),
            value,
            min,
            max,
            step,
            integer: key == "ray_count",
        });
    }
}
