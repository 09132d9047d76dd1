//! Checking a recording read from JSON: header, groups, world, and every frame's, overlay's,
//! metric's, event's and shot's lengths and indices, so a reader can index without checks.

use super::recorder::check_colour;
use super::{invalid, Recording, RecordingError, FORMAT, VERSION};

impl Recording {
    pub(super) fn validate_header(&self) -> Result<(), RecordingError> {
        if self.format != FORMAT {
            return Err(invalid("format", format!("{:?} is not {FORMAT:?}", self.format)));
        }
        if self.version != VERSION {
            return Err(invalid(
                "version",
                format!("{} is not supported (expected {VERSION})", self.version),
            ));
        }
        let m = &self.meta;
        if !(m.dt.is_finite() && m.dt > 0.0) {
            return Err(invalid("meta.dt", format!("{} must be finite and positive", m.dt)));
        }
        if m.every == 0 {
            return Err(invalid("meta.every", "must be at least 1"));
        }
        if m.dims != 2 && m.dims != 3 {
            return Err(invalid("meta.dims", format!("{} must be 2 or 3", m.dims)));
        }
        for (i, g) in self.groups.iter().enumerate() {
            check_colour(&format!("groups[{i}].colour"), &g.colour)?;
            if !(g.radius.is_finite() && g.radius >= 0.0) {
                return Err(invalid(
                    format!("groups[{i}].radius"),
                    format!("{} must be finite and ≥ 0", g.radius),
                ));
            }
        }
        self.world.validate(m.dims as usize)?;
        if let Some(i) = self.agent_groups.iter().position(|&g| g as usize >= self.groups.len()) {
            return Err(invalid(
                format!("agent_groups[{i}]"),
                format!(
                    "group {} does not exist ({} groups)",
                    self.agent_groups[i],
                    self.groups.len()
                ),
            ));
        }
        Ok(())
    }

    /// Checks that every array has the length the schema gives it, steps increase, and agent
    /// indices exist, so a reader can index without checks.
    ///
    /// # Errors
    /// The first inconsistency found, naming the field.
    pub fn validate(&self) -> Result<(), RecordingError> {
        self.validate_header()?;
        let n = self.agent_count();
        let d = self.dims();
        let mut previous: Option<u32> = None;
        for (fi, f) in self.frames.iter().enumerate() {
            let field = |name: &str| format!("frames[{fi}].{name}");
            if previous.is_some_and(|p| f.step <= p) {
                return Err(invalid(field("step"), "steps must increase"));
            }
            previous = Some(f.step);
            let lengths = [
                ("position", f.position.len(), n * d),
                ("velocity", f.velocity.len(), n * d),
                ("orientation", f.orientation.len(), n),
            ];
            for (name, got, want) in lengths {
                if got != want {
                    return Err(invalid(field(name), format!("has {got} values, expected {want}")));
                }
            }
            let attitude = f.attitude.len();
            if d == 2 && attitude != 0 {
                return Err(invalid(
                    field("attitude"),
                    format!("has {attitude} values; 2D frames have no attitude"),
                ));
            }
            if d == 3 && attitude != 0 && attitude != 4 * n {
                return Err(invalid(
                    field("attitude"),
                    format!("has {attitude} values, expected {} (4 per agent) or none", 4 * n),
                ));
            }
            let o = &f.overlays;
            let layers: [Layer<'_>; 8] = [
                ("steering", &o.steering.agent, &[("vector", o.steering.vector.len(), d)]),
                ("target", &o.target.agent, &[("point", o.target.point.len(), d)]),
                (
                    "wander",
                    &o.wander.agent,
                    &[
                        ("center", o.wander.center.len(), d),
                        ("radius", o.wander.radius.len(), 1),
                        ("target", o.wander.target.len(), d),
                    ],
                ),
                (
                    "rays",
                    &o.rays.agent,
                    &[
                        ("from", o.rays.from.len(), d),
                        ("to", o.rays.to.len(), d),
                        ("hit", o.rays.hit.len(), 1),
                    ],
                ),
                ("boxes", &o.boxes.agent, &[("corners", o.boxes.corners.len(), 4 * d)]),
                (
                    "neighbour_radius",
                    &o.neighbour_radius.agent,
                    &[("radius", o.neighbour_radius.radius.len(), 1)],
                ),
                ("slots", &o.slots.agent, &[("point", o.slots.point.len(), d)]),
                ("controls", &o.controls.agent, &[("value", o.controls.value.len(), 3)]),
            ];
            check_routes(&o.routes, d).map_err(|e| invalid(field("overlays.routes"), e))?;
            let routes: Layer<'_> = ("routes", &o.routes.agent, &[]);
            for (layer, agents, arrays) in layers.into_iter().chain([routes]) {
                if let Some(&a) = agents.iter().find(|&&a| a as usize >= n) {
                    return Err(invalid(
                        field(&format!("overlays.{layer}.agent")),
                        format!("agent {a} does not exist"),
                    ));
                }
                for &(name, got, stride) in arrays {
                    if got != agents.len() * stride {
                        return Err(invalid(
                            field(&format!("overlays.{layer}.{name}")),
                            format!("has {got} values, expected {}", agents.len() * stride),
                        ));
                    }
                }
            }
        }
        for (i, m) in self.metrics.iter().enumerate() {
            if m.values.len() != self.frames.len() {
                return Err(invalid(
                    format!("metrics[{i}].values"),
                    format!(
                        "has {} values, expected one per frame ({})",
                        m.values.len(),
                        self.frames.len()
                    ),
                ));
            }
        }
        if let Some(i) = self.events.iter().position(|e| e.agent.is_some_and(|a| a as usize >= n)) {
            return Err(invalid(format!("events[{i}].agent"), "agent does not exist"));
        }
        for (i, s) in self.shots.iter().enumerate() {
            if s.turret as usize >= self.world.turrets.len() {
                return Err(invalid(format!("shots[{i}].turret"), "turret does not exist"));
            }
            if s.target as usize >= n || s.hit.is_some_and(|a| a as usize >= n) {
                return Err(invalid(format!("shots[{i}]"), "agent does not exist"));
            }
            if s.end < s.step {
                return Err(invalid(format!("shots[{i}].end"), "ends before it was fired"));
            }
        }
        Ok(())
    }
}

/// A routes layer's counts and points agree: one count per entry, `dims` values per point.
fn check_routes(r: &super::RouteLayer, d: usize) -> Result<(), String> {
    let points: usize = r.count.iter().map(|&c| c as usize).sum();
    if r.count.len() != r.agent.len() || r.point.len() != points * d {
        return Err(format!(
            "has {} counts and {} values for {} entries, expected one count per entry and {} \
             values",
            r.count.len(),
            r.point.len(),
            r.agent.len(),
            points * d
        ));
    }
    Ok(())
}

/// A layer's name, its agent list, and its arrays as (name, length, values per entry).
type Layer<'a> = (&'a str, &'a [u32], &'a [(&'a str, usize, usize)]);
