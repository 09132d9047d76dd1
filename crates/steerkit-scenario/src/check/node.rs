//! A behaviour node being checked: its place, its fields and its kind, the field helpers the
//! kinds' builders share, and [`node`], which finds the kind and runs its builder.

use super::kinds::{Kind, KINDS, NOT_IN_FILES};
use super::values::{applicable, join, lib, point, present, problem, required, Present};
use super::{Refs, Result, MAX_DEPTH};
use crate::model::{FileBehaviour as Behaviour, TargetRef};
use crate::spec::{NodeSpec, Xy};
use steerkit::crowd::RecipeKind;
use steerkit::ParamError;
use steerkit::{Vec2, Vec3};

/// A behaviour node being checked: where it is, what it says, and its kind's fields.
pub(super) struct Node<'a> {
    pub(super) path: &'a str,
    pub(super) n: &'a NodeSpec,
    pub(super) refs: &'a Refs<'a>,
    pub(super) depth: usize,
    pub(super) kind: &'static Kind,
}

impl Node<'_> {
    /// The path of one of the node's fields.
    pub(super) fn f(&self, name: &str) -> String {
        join(self.path, name)
    }

    /// A point field in the scenario's dimensions, as a 3D vector (`z = 0` in 2D).
    pub(super) fn point(&self, name: &str, v: Xy) -> Result<Vec3> {
        let at = self.f(name);
        Ok(if self.refs.dims == 3 { point(&at, v)? } else { point::<Vec2>(&at, v)?.extend(0.0) })
    }

    /// An error when a required field is absent.
    pub(super) fn req(&self, name: &str, present: bool) -> Result<()> {
        required(self.path, "kind", self.kind.kind.name(), name, present.then_some(()))
    }

    /// A library constructor's result, its error pointed at the field it names.
    pub(super) fn lib<T>(&self, r: core::result::Result<T, ParamError>) -> Result<T> {
        r.map_err(|e| lib(self.path, self.kind.fields, &e))
    }

    /// The required agent reference in `field` (`agent` or `other_agent`).
    pub(super) fn agent(&self, field: &str) -> Result<crate::model::AgentRef> {
        let v = if field == "agent" { &self.n.agent } else { &self.n.other_agent };
        self.req(field, v.is_some())?;
        self.refs.agent(&self.f(field), v.as_deref().unwrap_or_default())
    }

    /// The required `path`, as an index into the scenario's paths.
    pub(super) fn path(&self) -> Result<usize> {
        self.req("path", self.n.path.is_some())?;
        self.refs.path(&self.f("path"), self.n.path.as_deref().unwrap_or_default())
    }

    /// Exactly one of `target`, `agent`, `use_goal`.
    pub(super) fn target(&self) -> Result<TargetRef<Vec3>> {
        let (n, path) = (self.n, self.path);
        let use_goal = n.use_goal.unwrap_or(false);
        match (n.target, &n.agent, use_goal) {
            (Some(p), None, false) => Ok(TargetRef::Point(self.point("target", p)?)),
            (None, Some(a), false) => {
                Ok(TargetRef::Agent(self.refs.agent(&join(path, "agent"), a)?))
            }
            (None, None, true) => Ok(TargetRef::Goal),
            (None, None, false) => Err(problem(
                join(path, "target"),
                format!("kind `{}` needs a target: `target = [x, y]`, `agent = \"group:index\"` or `use_goal = true`", n.kind),
            )),
            _ => Err(problem(
                join(path, if n.target.is_some() { "target" } else { "agent" }),
                "give one target: `target`, `agent` or `use_goal = true`",
            )),
        }
    }
}

/// The fields a node gives, with their numbers (checked finite by `applicable`).
fn node_present(n: &NodeSpec) -> Vec<Present> {
    present!(n;
        nums: weight, epsilon, panic_distance, target_radius, slow_radius, deceleration_time,
              time_to_target, max_prediction, turnaround, radius, distance, jitter, threshold,
              decay, buffer, margin, horizon, offset, predict_time, half_angle, whisker_ratio,
              half_width, avoid_distance, lookahead, lookahead_time, max_half_angle, widen_rate,
              commitment, length, side_angle, side_ratio, threat_range, ratio, string,
              leash_speed, path_radius, ahead, closeness, rate, cell_size, clearance, range,
              min_length, braking_weight, contact_gap, orientation, separation_weight,
              alignment_weight, cohesion_weight, wander_weight, probability;
        xys: target, velocity, local_offset, grid_min, grid_max;
        others: members = "members", first = "first", then = "then", agent = "agent", use_goal = "use_goal", mode = "mode",
                braking = "braking", stop = "stop", estimate = "estimate",
                head_on_shortcut = "head_on_shortcut", falloff = "falloff", gather = "gather",
                match_ = "match", path = "path", rays = "rays", ray_count = "ray_count",
                avoid_target = "avoid_target", other_agent = "other_agent",
                constraint_steps = "constraint_steps", wander = "wander")
}

/// Checks a behaviour node. `parent` is the kind of the combiner holding it (for `weight`).
pub(crate) fn node(
    path: &str,
    n: &NodeSpec,
    parent: Option<RecipeKind>,
    refs: &Refs<'_>,
    depth: usize,
) -> Result<Behaviour> {
    if depth > MAX_DEPTH {
        return Err(problem(path, format!("behaviours nested more than {MAX_DEPTH} deep")));
    }
    let name = n.kind.as_str();
    let Some(kind) = KINDS.iter().find(|k| k.kind.name() == name) else {
        let msg = match NOT_IN_FILES.iter().find(|(k, _)| k.name() == name) {
            Some((_, why)) => format!("behaviour kind `{name}` {why}"),
            None => {
                let names: Vec<&str> = KINDS.iter().map(|k| k.kind.name()).collect();
                format!("unknown behaviour kind `{name}`; expected one of {}", names.join(", "))
            }
        };
        return Err(problem(join(path, "kind"), msg));
    };
    let weighted =
        matches!(parent, Some(RecipeKind::Blend | RecipeKind::RunningSum | RecipeKind::Dither));
    let mut allowed: Vec<&str> = kind.fields.to_vec();
    if weighted {
        allowed.push("weight");
    }
    if parent == Some(RecipeKind::Dither) {
        allowed.push("probability");
    } else if n.probability.is_some() {
        return Err(problem(
            join(path, "probability"),
            "only members of `dither` take a probability",
        ));
    }
    if !weighted && n.weight.is_some() {
        let why = match parent {
            Some(p) => format!(
                "members of `{}` take no weight (only members of `blend`, `running_sum` and \
                 `dither` do)",
                p.name()
            ),
            None => "only members of `blend`, `running_sum` and `dither` take a weight".to_owned(),
        };
        return Err(problem(join(path, "weight"), why));
    }
    if refs.dims == 3 && kind.kind.info().planar {
        return Err(problem(
            join(path, "kind"),
            format!("kind `{name}` works in 2D scenarios only, not in a 3D one"),
        ));
    }
    applicable(path, "kind", name, &node_present(n), &allowed)?;
    if let (Some(p), true) = (parent, kind.kind.info().kinematic) {
        return Err(problem(
            join(path, "kind"),
            format!(
                "kind `{name}` sets the velocity and must be the whole behaviour, not a member of `{}`",
                p.name()
            ),
        ));
    }
    (kind.build)(&Node { path, n, refs, depth, kind })
}
