//! `[metrics]`: which measures a run collects and their thresholds.

use super::values::{non_negative, one_of, positive};
use super::Result;
use crate::model::{Metric, MetricsPlan};
use crate::spec::ScenarioSpec;

pub(super) fn metrics(spec: &ScenarioSpec) -> Result<MetricsPlan> {
    let m = spec.metrics.as_ref();
    let collect = match m.and_then(|m| m.collect.as_ref()) {
        None => Metric::ALL.iter().map(|(_, m)| *m).collect(),
        Some(names) => {
            let mut out = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let metric = one_of(&format!("metrics.collect[{i}]"), n, &Metric::ALL)?;
                if !out.contains(&metric) {
                    out.push(metric);
                }
            }
            out
        }
    };
    let overlap_tolerance = match m.and_then(|m| m.overlap_tolerance) {
        Some(t) => non_negative("metrics.overlap_tolerance", t)?,
        None => 0.01,
    };
    let stuck_time = match m.and_then(|m| m.stuck_time) {
        Some(t) => positive("metrics.stuck_time", t)?,
        None => 2.0,
    };
    let stuck_speed = match m.and_then(|m| m.stuck_speed) {
        Some(t) => non_negative("metrics.stuck_speed", t)?,
        None => 0.05,
    };
    Ok(MetricsPlan { collect, overlap_tolerance, stuck_time, stuck_speed })
}
