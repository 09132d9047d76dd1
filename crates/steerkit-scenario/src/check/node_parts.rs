//! The parts several behaviour kinds build alike: align, arrive, seek modes, prediction,
//! combiner members, sequences, separation, the pipeline and obstacle avoidance.

use super::node::{node, Node};
use super::values::{finite, join, lib, non_negative, one_of, positive, problem, xy};
use super::Result;
use crate::model::FileBehaviour as Behaviour;
use crate::spec::NodeSpec;
use steerkit::crowd::RecipeKind;
use steerkit::geometry::Aabb;
use steerkit::pipeline::HeadFor;
use steerkit::steering::{
    AdaptiveFan, Align, Approach, Arrive, AvoidTarget, Estimate, Falloff, FlockWeights, Gather,
    ObstacleAvoidance, Prediction, RayLayout, SeekMode, Separation, Stop,
};
use steerkit::ParamError;

/// Align's angular radii (rad) and response time: `target_radius` 0.01, `slow_radius` 0.5,
/// `time_to_target` 0.1 by default.
pub(super) fn align(x: &Node<'_>) -> Result<Align> {
    let n = x.n;
    let target = non_negative(&x.f("target_radius"), n.target_radius.unwrap_or(0.01))?;
    let slow = non_negative(&x.f("slow_radius"), n.slow_radius.unwrap_or(0.5))?;
    let time = positive(&x.f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
    x.lib(Align::new(target, slow, time))
}

/// The flocking presets' optional weights.
pub(super) fn flock_weights(x: &Node<'_>, w: &mut FlockWeights) -> Result<()> {
    let n = x.n;
    for (field, given, slot) in [
        ("separation_weight", n.separation_weight, &mut w.separation),
        ("alignment_weight", n.alignment_weight, &mut w.alignment),
        ("cohesion_weight", n.cohesion_weight, &mut w.cohesion),
    ] {
        if let Some(v) = given {
            *slot = finite(&x.f(field), v)?;
        }
    }
    Ok(())
}

/// A combiner's members with their weights (1 by default).
pub(super) fn members(x: &Node<'_>) -> Result<Vec<(f32, Behaviour)>> {
    let name = x.kind.kind.name();
    let members =
        x.n.members
            .as_ref()
            .ok_or_else(|| problem(x.f("members"), format!("kind `{name}` needs `members`")))?;
    if members.is_empty() {
        return Err(problem(x.f("members"), format!("an empty `{name}` has nothing to combine")));
    }
    let mut out = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let mp = format!("{}.members[{i}]", x.path);
        let b = node(&mp, m, Some(x.kind.kind), x.refs, x.depth + 1)?;
        let w = match m.weight {
            Some(w) => finite(&join(&mp, "weight"), w)?,
            None => 1.0,
        };
        out.push((w, b));
    }
    Ok(out)
}

/// `sequence`: `first` (a route: a path leaf on an open path) until the path is finished, then
/// `then` (no path leaf).
pub(super) fn sequence(x: &Node<'_>) -> Result<Behaviour> {
    let stage = |field: &str, n: &Option<Box<NodeSpec>>| -> Result<Behaviour> {
        let n = n
            .as_deref()
            .ok_or_else(|| problem(x.f(field), format!("kind `sequence` needs `{field}`")))?;
        node(&x.f(field), n, Some(RecipeKind::Sequence), x.refs, x.depth + 1)
    };
    let (first, then) = (stage("first", &x.n.first)?, stage("then", &x.n.then)?);
    let mut paths = Vec::new();
    first.for_each_leaf(&mut |leaf| paths.extend(leaf_path(leaf)));
    if paths.is_empty() {
        return Err(problem(
            x.f("first"),
            "the first stage of a `sequence` must follow a path (`follow_path`, \
             `dog_on_a_string`, `reprojection` or `grappling_hooks`): finishing it hands over",
        ));
    }
    if paths.iter().all(|&p| x.refs.looping(p)) {
        return Err(problem(
            x.f("first"),
            "the first stage of a `sequence` follows only looping paths, which are never \
             finished: use an open path",
        ));
    }
    let mut more = false;
    then.for_each_leaf(&mut |leaf| more |= leaf_path(leaf).is_some());
    if more {
        return Err(problem(
            x.f("then"),
            "the second stage of a `sequence` follows a path, but the agent's path is already \
             finished when it starts: nest another behaviour (for example `arrive` with \
             `use_goal = true`)",
        ));
    }
    Ok(Behaviour::Sequence { first: Box::new(first), then: Box::new(then) })
}

/// The path a leaf follows, if it follows one.
pub(super) fn leaf_path(leaf: &Behaviour) -> Option<usize> {
    match leaf {
        Behaviour::FollowPath { path, .. }
        | Behaviour::DogOnAString { path, .. }
        | Behaviour::Reprojection { path, .. }
        | Behaviour::GrapplingHooks { path, .. } => Some(*path),
        _ => None,
    }
}

/// Pursue's and evade's look-ahead: `max_prediction` (required), `estimate`, the head-on
/// shortcut and the turnaround time.
pub(super) fn prediction(x: &Node<'_>, default: &str) -> Result<Prediction> {
    let n = x.n;
    x.req("max_prediction", n.max_prediction.is_some())?;
    let estimate = one_of(
        &x.f("estimate"),
        n.estimate.as_deref().unwrap_or(default),
        &[
            ("current_speed", Estimate::CurrentSpeed),
            ("max_speed", Estimate::MaxSpeed),
            ("closing_speed", Estimate::ClosingSpeed),
        ],
    )?;
    let mut prediction = x.lib(Prediction::new(n.max_prediction.unwrap_or_default(), estimate))?;
    if let Some(on) = n.head_on_shortcut {
        prediction = prediction.with_head_on_shortcut(on);
    }
    if let Some(t) = n.turnaround {
        prediction = x.lib(prediction.with_turnaround(t))?;
    }
    Ok(prediction)
}

/// `kind = "separation"`: the falloff law and its decay, the gather rule, radius awareness.
pub(super) fn separation(x: &Node<'_>) -> Result<Behaviour> {
    let n = x.n;
    x.req("threshold", n.threshold.is_some())?;
    let law = n.falloff.as_deref().unwrap_or("inverse_square");
    let falloff = match one_of(
        &x.f("falloff"),
        law,
        &[("inverse_square", 0), ("linear", 1), ("inverse", 2)],
    )? {
        1 => {
            if n.decay.is_some() {
                return Err(problem(
                    x.f("decay"),
                    "field `decay` does not apply to `falloff = \"linear\"`",
                ));
            }
            Falloff::Linear
        }
        law => {
            x.req("decay", n.decay.is_some())?;
            let k = n.decay.unwrap_or_default();
            if law == 0 {
                Falloff::InverseSquare(k)
            } else {
                Falloff::Inverse(k)
            }
        }
    };
    let mut s = x.lib(Separation::new(n.threshold.unwrap_or_default(), falloff))?;
    if let Some(g) = &n.gather {
        s = s.with_gather(one_of(
            &x.f("gather"),
            g,
            &[("sum", Gather::Sum), ("nearest", Gather::Nearest)],
        )?);
    }
    if let Some(b) = n.buffer {
        s = x.lib(s.radius_aware(b))?;
    }
    Ok(Behaviour::Separation(s))
}

/// `kind = "pipeline"`: the planner's grid, clearance, constraint margin and steps, and the
/// arrive toward each sub-goal.
pub(super) fn pipeline(x: &Node<'_>) -> Result<Behaviour> {
    let n = x.n;
    let goal = x.target()?;
    x.req("grid_min", n.grid_min.is_some())?;
    x.req("grid_max", n.grid_max.is_some())?;
    x.req("clearance", n.clearance.is_some())?;
    let min = xy(&x.f("grid_min"), n.grid_min.unwrap_or_default())?;
    let max = xy(&x.f("grid_max"), n.grid_max.unwrap_or_default())?;
    if max.x <= min.x || max.y <= min.y {
        return Err(problem(
            x.f("grid_max"),
            format!("`grid_max` ({max}) must exceed `grid_min` ({min}) on both axes"),
        ));
    }
    let cell_size = positive(&x.f("cell_size"), n.cell_size.unwrap_or(0.5))?;
    let cells = ((max - min) / cell_size).ceil();
    if cells.x * cells.y > 1.0e6 {
        return Err(problem(
            x.f("cell_size"),
            format!(
                "the grid would have {} cells (at most 1000000): use larger cells",
                cells.x * cells.y
            ),
        ));
    }
    let clearance = non_negative(&x.f("clearance"), n.clearance.unwrap_or_default())?;
    let margin = n.margin.unwrap_or(1.3);
    if margin <= 1.0 {
        return Err(problem(x.f("margin"), format!("`margin` ({margin}) must be above 1")));
    }
    let constraint_steps = n.constraint_steps.unwrap_or(8) as usize;
    let align = x.lib(Align::new(0.02, 0.5, 0.1))?;
    Ok(Behaviour::Pipeline {
        goal,
        bounds: Aabb::new(min, max),
        cell_size,
        clearance,
        margin,
        constraint_steps,
        actuator: HeadFor::new(arrive(x, true)?, align),
    })
}

pub(super) fn seek_mode(x: &Node<'_>) -> Result<SeekMode> {
    let n = x.n;
    let mode = one_of(
        &x.f("mode"),
        n.mode.as_deref().unwrap_or("full_acceleration"),
        &[("full_acceleration", 0), ("desired_velocity", 1)],
    )?;
    if mode == 0 {
        if n.time_to_target.is_some() {
            return Err(problem(
                x.f("time_to_target"),
                "field `time_to_target` applies only with `mode = \"desired_velocity\"`",
            ));
        }
        Ok(SeekMode::FullAcceleration)
    } else {
        let t = positive(&x.f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
        Ok(SeekMode::DesiredVelocity { time_to_target: t })
    }
}

/// Arrive's parameters. `ramp_choice`: the approach may be `deceleration_time` or `braking`
/// (arrive itself); cohesion only takes `slow_radius`.
pub(super) fn arrive(x: &Node<'_>, ramp_choice: bool) -> Result<Arrive> {
    let (path, n) = (x.path, x.n);
    let f = |name: &str| join(path, name);
    let target_radius = non_negative(&f("target_radius"), n.target_radius.unwrap_or(0.0))?;
    let time = positive(&f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
    let braking = n.braking.unwrap_or(false);
    let approach = match (n.slow_radius, n.deceleration_time, braking) {
        (Some(r), None, false) => {
            let r = non_negative(&f("slow_radius"), r)?;
            if r < target_radius {
                return Err(problem(
                    f("slow_radius"),
                    format!(
                        "`slow_radius` ({r}) must be at least `target_radius` ({target_radius})"
                    ),
                ));
            }
            Approach::SlowRadius(r)
        }
        (None, Some(t), false) if ramp_choice => {
            Approach::DecelerationTime(positive(&f("deceleration_time"), t)?)
        }
        (None, None, true) if ramp_choice => Approach::Braking,
        (None, None, false) => {
            let need = if ramp_choice {
                "`slow_radius`, `deceleration_time` or `braking = true`"
            } else {
                "`slow_radius`"
            };
            return Err(problem(f("slow_radius"), format!("arriving needs {need}")));
        }
        _ => {
            let field = if n.slow_radius.is_some() && n.deceleration_time.is_some() {
                "deceleration_time"
            } else {
                "braking"
            };
            return Err(problem(
                f(field),
                "give one approach: `slow_radius`, `deceleration_time` or `braking = true`",
            ));
        }
    };
    let arrive = Arrive::with_approach(target_radius, approach, time).map_err(|e| {
        lib(path, &["target_radius", "slow_radius", "deceleration_time", "time_to_target"], &e)
    })?;
    let stop = match &n.stop {
        Some(s) => one_of(&f("stop"), s, &[("brake", Stop::Brake), ("coast", Stop::Coast)])?,
        None => Stop::Brake,
    };
    Ok(arrive.with_stop(stop))
}

/// `kind = "obstacle_avoidance"`: the ray layout, lengths, the adaptive fan (when
/// `max_half_angle` is given: it widens from `half_angle` at `widen_rate`), the corner
/// commitment and the avoid-target rule.
pub(super) fn obstacle_avoidance(path: &str, n: &NodeSpec) -> Result<ObstacleAvoidance> {
    let f = |name: &str| join(path, name);
    let fields = &["avoid_distance", "lookahead", "half_angle", "whisker_ratio", "half_width"];
    let lib_err = |e: ParamError| lib(path, fields, &e);
    let rays = n.rays.as_deref().unwrap_or("whiskers");
    let kind =
        one_of(&f("rays"), rays, &[("single", 0u8), ("whiskers", 1), ("parallel", 2), ("fan", 3)])?;
    let only = |name: &str, given: bool, layouts: &str| -> Result<()> {
        if given {
            Err(problem(f(name), format!("field `{name}` applies only to `rays = {layouts}`")))
        } else {
            Ok(())
        }
    };
    only("whisker_ratio", kind != 1 && n.whisker_ratio.is_some(), "\"whiskers\"")?;
    only("half_width", kind != 2 && n.half_width.is_some(), "\"parallel\"")?;
    only("ray_count", kind != 3 && n.ray_count.is_some(), "\"fan\"")?;
    only("half_angle", matches!(kind, 0 | 2) && n.half_angle.is_some(), "\"whiskers\" or \"fan\"")?;
    let half_angle = n.half_angle.unwrap_or(0.5);
    let layout = match kind {
        0 => RayLayout::Single,
        1 => RayLayout::Whiskers { half_angle, whisker_ratio: n.whisker_ratio.unwrap_or(0.5) },
        2 => RayLayout::Parallel { half_width: n.half_width.unwrap_or(0.5) },
        _ => RayLayout::Fan { half_angle, rays: n.ray_count.unwrap_or(3) },
    };
    let avoid = n.avoid_distance.ok_or_else(|| {
        problem(f("avoid_distance"), "kind `obstacle_avoidance` needs `avoid_distance`")
    })?;
    let lookahead = n
        .lookahead
        .ok_or_else(|| problem(f("lookahead"), "kind `obstacle_avoidance` needs `lookahead`"))?;
    let mut a = ObstacleAvoidance::new(layout, avoid, lookahead).map_err(lib_err)?;
    if let Some(t) = n.lookahead_time {
        a = a.with_lookahead_time(t).map_err(lib_err)?;
    }
    match (n.max_half_angle, n.widen_rate) {
        (Some(max), rate) => {
            if matches!(kind, 0 | 2) {
                only("max_half_angle", true, "\"whiskers\" or \"fan\"")?;
            }
            let fan = AdaptiveFan {
                min_half_angle: half_angle,
                max_half_angle: max,
                rate: rate.unwrap_or(2.0),
            };
            a = a.adaptive(fan).map_err(|e| lib(path, &["max_half_angle", "widen_rate"], &e))?;
        }
        (None, Some(_)) => {
            return Err(problem(
                f("widen_rate"),
                "`widen_rate` needs `max_half_angle` (the adaptive fan)",
            ))
        }
        (None, None) => {}
    }
    if let Some(h) = n.commitment {
        a = a.with_commitment(h).map_err(|e| lib(path, &["commitment"], &e))?;
    }
    if let Some(t) = &n.avoid_target {
        a = a.with_target(one_of(
            &f("avoid_target"),
            t,
            &[("lateral", AvoidTarget::Lateral), ("normal", AvoidTarget::Normal)],
        )?);
    }
    Ok(a)
}
