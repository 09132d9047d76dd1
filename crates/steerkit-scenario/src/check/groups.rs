//! `[[groups]]`: a group's size, body, limits, integration, options and behaviour, with its
//! agents placed (listed or spawned) and their goals.

use super::goal_rule::goal_rule;
use super::node;
use super::spawn::{listed_agents, spawn_agents};
use super::values::name;
use super::values::{colour, join, lib, non_negative, one_of, point, positive, problem};
use super::{vehicle, Problem, Refs, Result, MAX_AGENTS};
use crate::dim::Dim;
use crate::model::{Behaviour, Bounds, GroupPlan, JumpPlan, Placement};
use crate::spec::{GroupSpec, ScenarioSpec};
use std::collections::HashMap;
use steerkit::kinematic::{Integration, Limits, Scheme};
use steerkit::math::Rng;
use steerkit::three_d::FakeRotation;

/// Refuses a file of more than `max` agents from its counts and lists alone, before any agent
/// is placed (a program with a smaller cap than [`MAX_AGENTS`] refuses a huge file cheaply).
pub(crate) fn agent_cap(spec: &ScenarioSpec, max: usize) -> Result<()> {
    let mut total = 0u64;
    for (i, g) in spec.groups.iter().enumerate() {
        let (n, key) = match (&g.agents, g.count) {
            (Some(a), _) => (a.len() as u64, "agents"),
            (None, Some(n)) => (u64::from(n), "count"),
            (None, None) => (0, "count"),
        };
        total = total.saturating_add(n);
        if total > max as u64 {
            return Err(problem(
                format!("groups[{i}].{key}"),
                format!("{total} agents in all is more than allowed here (at most {max})"),
            ));
        }
    }
    Ok(())
}

/// The number of agents in a group: `count` (with or without a spawn region) or the length of
/// `agents`.
pub(super) fn group_size(path: &str, g: &GroupSpec) -> Result<usize> {
    match (&g.agents, g.count, &g.spawn) {
        (Some(_), Some(_), _) => Err(problem(
            join(path, "count"),
            "give either `count` with a `spawn` region or an `agents` list, not both",
        )),
        (Some(_), None, Some(_)) => Err(problem(
            join(path, "spawn"),
            "`spawn` applies to `count`; agents in an `agents` list have their own positions",
        )),
        (Some(a), None, None) if a.is_empty() => {
            Err(problem(join(path, "agents"), "the group has no agents: the list is empty"))
        }
        (Some(a), None, None) => Ok(a.len()),
        (None, Some(0), _) => Err(problem(
            join(path, "count"),
            "the group has no agents: `count` is 0 and there is no `agents` list",
        )),
        (None, Some(_), None) => {
            Err(problem(join(path, "spawn"), "`count` needs a `spawn` region"))
        }
        (None, Some(n), Some(_)) => Ok(n as usize),
        (None, None, _) => Err(problem(
            path,
            "the group has no agents: give `count` with a `spawn` region, or an `agents` list",
        )),
    }
}

/// Checks one group and places its agents, in the order of its fields' checks: body and
/// limits, goal and sight, motion options, behaviour, then the agents and their goals.
pub(super) fn group<V: Dim>(
    path: &str,
    g: &GroupSpec,
    bounds: &Bounds<V>,
    solids: &V::Solids,
    refs: &Refs<'_>,
    rng: &mut Rng,
) -> Result<GroupPlan<V>> {
    if let Some(c) = &g.colour {
        colour(&join(path, "colour"), c)?;
    }
    let radius = non_negative(&join(path, "radius"), g.radius)?;
    let limits = group_limits(path, g)?;
    let goal: Option<V> = match g.goal {
        Some(p) => Some(point(&join(path, "goal"), p)?),
        None => None,
    };
    let arrive_radius = match g.arrive_radius {
        Some(r) => non_negative(&join(path, "arrive_radius"), r)?,
        None => 0.5,
    };
    let view_half_angle = view_half_angle(path, g)?;
    let heading_smoothing = g.heading_smoothing.unwrap_or(0);
    if heading_smoothing > 64 {
        return Err(problem(
            join(path, "heading_smoothing"),
            format!("at most 64 steps, got {heading_smoothing}"),
        ));
    }
    let integration = integration(path, g)?;
    let fake_rotation = fake_rotation::<V>(path, g)?;
    let nearest_neighbours = match g.nearest_neighbours {
        Some(0) => {
            return Err(problem(
                join(path, "nearest_neighbours"),
                "at least 1 (the group sums see that many nearest neighbours)",
            ))
        }
        other => other,
    };
    let orca = match &g.orca {
        None => None,
        Some(o) => Some(orca(&join(path, "orca"), o)?),
    };
    let vehicle = match &g.vehicle {
        Some(v) => Some(vehicle::vehicle(&join(path, "vehicle"), v, V::DIMS)?),
        None => None,
    };
    let jump = jump(path, g)?;
    let behaviour = behaviour::<V>(path, g, refs)?;
    let agents = placements(path, g, (bounds, solids), (radius, limits.max_speed()), goal, rng)?;
    drive(path, &behaviour, &agents, vehicle.is_some())?;
    Ok(GroupPlan {
        name: g.name.clone(),
        colour: g.colour.clone(),
        radius,
        limits,
        agents,
        behaviour,
        arrive_radius,
        remove_on_arrival: one_of(
            &join(path, "on_arrival"),
            g.on_arrival.as_deref().unwrap_or("stay"),
            &[("stay", false), ("remove", true)],
        )?,
        non_penetration: g.non_penetration,
        view_half_angle,
        face_motion: g.face_motion.unwrap_or(true),
        heading_smoothing,
        integration,
        fake_rotation,
        vehicle,
        jump,
        nearest_neighbours,
        orca,
    })
}

/// The group's `limits`: each one finite and not negative, then the library's own check.
fn group_limits(path: &str, g: &GroupSpec) -> Result<Limits> {
    let lp = join(path, "limits");
    let l = &g.limits;
    Limits::new(
        non_negative(&join(&lp, "max_speed"), l.max_speed)?,
        non_negative(&join(&lp, "max_acceleration"), l.max_acceleration)?,
        non_negative(&join(&lp, "max_rotation"), l.max_rotation)?,
        non_negative(&join(&lp, "max_angular_acceleration"), l.max_angular_acceleration)?,
    )
    .map_err(|e| {
        lib(&lp, &["max_speed", "max_acceleration", "max_rotation", "max_angular_acceleration"], &e)
    })
}

/// The group's `view_half_angle` (rad), at most π.
fn view_half_angle(path: &str, g: &GroupSpec) -> Result<Option<f32>> {
    match g.view_half_angle {
        Some(a) => {
            let p = join(path, "view_half_angle");
            let a = non_negative(&p, a)?;
            if a > core::f32::consts::PI {
                return Err(problem(p, format!("must be at most π, got {a}")));
            }
            Ok(Some(a))
        }
        None => Ok(None),
    }
}

/// The group's integration scheme (semi-implicit with ORCA, which it needs) and drags.
fn integration(path: &str, g: &GroupSpec) -> Result<Integration> {
    // ORCA's velocity is collision-free for the step only if the agent moves with it
    let default_scheme = if g.orca.is_some() { "semi_implicit" } else { "newton_euler" };
    let scheme = one_of(
        &join(path, "integration"),
        g.integration.as_deref().unwrap_or(default_scheme),
        &[
            ("newton_euler", Scheme::NewtonEuler1),
            ("exact", Scheme::Exact),
            ("semi_implicit", Scheme::SemiImplicit),
        ],
    )?;
    if g.orca.is_some() && scheme != Scheme::SemiImplicit {
        return Err(problem(
            join(path, "integration"),
            "an ORCA group moves with the velocity ORCA picks: `integration = \"semi_implicit\"` (the default with `orca`)",
        ));
    }
    let linear_drag = non_negative(&join(path, "linear_drag"), g.linear_drag.unwrap_or(0.0))?;
    let angular_drag = non_negative(&join(path, "angular_drag"), g.angular_drag.unwrap_or(0.0))?;
    Integration::new(scheme, linear_drag, angular_drag)
        .map_err(|e| lib(path, &["linear_drag", "angular_drag"], &e))
}

/// The group's `fake_rotation` (3D bodies that face their motion only).
fn fake_rotation<V: Dim>(path: &str, g: &GroupSpec) -> Result<Option<FakeRotation>> {
    Ok(match g.fake_rotation {
        None => None,
        Some(_) if V::DIMS == 2 => {
            return Err(problem(
                join(path, "fake_rotation"),
                "faked rotation axes bank and pitch a body in 3D: only in 3D scenarios",
            ))
        }
        Some(_) if g.face_motion == Some(false) => return Err(problem(
            join(path, "fake_rotation"),
            "faked rotation axes turn a body that faces its motion: not with `face_motion = false`",
        )),
        Some(f) => {
            let fp = join(path, "fake_rotation");
            let blend = non_negative(&join(&fp, "blend_speed"), f.blend_speed)?;
            let roll = non_negative(&join(&fp, "roll_scale"), f.roll_scale)?;
            let fake = FakeRotation::new(blend, roll)
                .map_err(|e| lib(&fp, &["blend_speed", "roll_scale"], &e))?;
            Some(fake.roll_outward(f.roll_outward).with_pitch(f.pitch.unwrap_or(true)))
        }
    })
}

/// The group's `jump`: a jumper has no behaviour, and runs at a `max_speed` above zero.
fn jump(path: &str, g: &GroupSpec) -> Result<Option<JumpPlan>> {
    Ok(match (&g.jump, &g.behaviour) {
        (Some(_), Some(_)) => {
            return Err(problem(
                join(path, "behaviour"),
                "a jumper (`jump`) is moved by its run-up and jump, not by a behaviour: remove one",
            ))
        }
        (None, None) => {
            return Err(problem(path, "a group needs a `behaviour` (or, in a side view, `jump`)"))
        }
        (Some(j), None) => {
            // a jumper's run-up is at max_speed: the jump planner needs it above zero
            let lp = join(path, "limits");
            positive(&join(&lp, "max_speed"), g.limits.max_speed).map_err(|e| Problem {
                message: format!("{} (a jumper runs at its max_speed)", e.message),
                ..e
            })?;
            Some(JumpPlan { jump_speed: positive(&join(path, "jump.jump_speed"), j.jump_speed)? })
        }
        (None, Some(_)) => None,
    })
}

/// The group's behaviour in `V`'s dimensions; a jumper's is inert.
fn behaviour<V: Dim>(path: &str, g: &GroupSpec, refs: &Refs<'_>) -> Result<Behaviour<V>> {
    Ok(match &g.behaviour {
        Some(b) => {
            node(&join(path, "behaviour"), b, None, refs, 0)?.map(&|a| *a, &|p| *p, &V::from_file)
        }
        // a jumper's recipe is inert: the runner sets its motion every step
        None => steerkit::crowd::Recipe::VelocityMatch {
            velocity: V::ZERO,
            matching: steerkit::steering::VelocityMatch::new(0.1)
                .map_err(|e| problem(path, e.to_string()))?,
        },
    })
}

/// The group's agents, listed or spawned, with the goals of its `goal_rule`.
fn placements<V: Dim>(
    path: &str,
    g: &GroupSpec,
    (bounds, solids): (&Bounds<V>, &V::Solids),
    (radius, max_speed): (f32, f32),
    goal: Option<V>,
    rng: &mut Rng,
) -> Result<Vec<Placement<V>>> {
    let mut agents = match (&g.agents, g.count, &g.spawn) {
        (Some(list), _, _) => listed_agents(path, list, (bounds, solids), max_speed, goal)?,
        (None, Some(n), Some(spawn)) => spawn_agents(
            &join(path, "spawn"),
            spawn,
            n,
            (bounds, solids),
            (radius, max_speed),
            goal,
            rng,
        )?,
        _ => unreachable_group(path)?,
    };
    if let Some(rule) = &g.goal_rule {
        if g.goal.is_some() {
            return Err(problem(
                join(path, "goal_rule"),
                "give either a group `goal` or a `goal_rule`, not both",
            ));
        }
        goal_rule(&join(path, "goal_rule"), rule, g.spawn.as_ref(), &mut agents, rng)?;
    }
    Ok(agents)
}

/// A behaviour that steers for the goal needs agents with goals; a vehicle needs a behaviour
/// that asks for steering, not a kinematic one.
fn drive<V: Dim>(
    path: &str,
    behaviour: &Behaviour<V>,
    agents: &[Placement<V>],
    vehicle: bool,
) -> Result<()> {
    if behaviour.uses_goal() && agents.iter().all(|a| a.goal.is_none()) {
        return Err(problem(
            join(path, "goal"),
            "the behaviour steers for the agents' goal (`use_goal = true`), but no agent of the \
             group has one: give the group a `goal` or its agents goals",
        ));
    }
    if let (true, Some(kind)) = (vehicle, behaviour.kinematic_kind()) {
        return Err(problem(
            join(path, "vehicle"),
            format!(
                "a vehicle is driven by steering requests; the kinematic `{kind}` sets the \
                 velocity itself"
            ),
        ));
    }
    Ok(())
}

/// A group's `orca = { ... }`.
pub(super) fn orca(op: &str, o: &crate::spec::OrcaSpec) -> Result<steerkit::steering::Orca> {
    use steerkit::steering::Orca;
    let horizon = positive(&join(op, "time_horizon"), o.time_horizon.unwrap_or(10.0))?;
    let k = o.max_neighbours.unwrap_or(10);
    let mut orca =
        Orca::new(horizon, k).map_err(|e| lib(op, &["time_horizon", "max_neighbours"], &e))?;
    if let Some(t) = o.obstacle_time_horizon {
        let t = positive(&join(op, "obstacle_time_horizon"), t)?;
        orca = orca
            .with_obstacle_time_horizon(t)
            .map_err(|e| lib(op, &["obstacle_time_horizon"], &e))?;
    }
    if let Some(t) = o.rest_time_horizon {
        let path = join(op, "rest_time_horizon");
        let t = positive(&path, t)?;
        if t > horizon {
            return Err(problem(
                &path,
                format!("must be at most the time_horizon ({horizon} s), got {t}"),
            ));
        }
        orca = orca.with_rest_time_horizon(t).map_err(|e| lib(op, &["rest_time_horizon"], &e))?;
    }
    if let Some(p) = o.priority {
        let p = positive(&join(op, "priority"), p)?;
        orca = orca.with_priority(p).map_err(|e| lib(op, &["priority"], &e))?;
    }
    if let Some(f) = o.arrived_priority {
        let f = positive(&join(op, "arrived_priority"), f)?;
        orca = orca.with_arrived_priority(f).map_err(|e| lib(op, &["arrived_priority"], &e))?;
    }
    let bits = |key: &str, list: &Option<Vec<u32>>, default: u32| -> Result<u32> {
        let Some(list) = list else { return Ok(default) };
        let mut bits = 0u32;
        for (i, &layer) in list.iter().enumerate() {
            if layer > 31 {
                return Err(problem(
                    format!("{}[{i}]", join(op, key)),
                    format!("a layer number from 0 to 31, got {layer}"),
                ));
            }
            bits |= 1 << layer;
        }
        Ok(bits)
    };
    let layers = bits("layers", &o.layers, 1)?;
    let mask = bits("avoid_layers", &o.avoid_layers, u32::MAX)?;
    Ok(orca.with_layers(layers, mask).with_escape(o.escape.unwrap_or(true)))
}

/// `group_size` has already rejected every other combination.
pub(super) fn unreachable_group<V: Dim>(path: &str) -> Result<Vec<Placement<V>>> {
    Err(problem(path, "the group has no agents"))
}

/// The group names (each once, no `:`) with their indices, and every group's size, at most
/// [`MAX_AGENTS`] agents in all.
pub(super) fn group_names(spec: &ScenarioSpec) -> Result<(HashMap<&str, usize>, Vec<usize>)> {
    let mut group_index: HashMap<&str, usize> = HashMap::new();
    let mut sizes = Vec::with_capacity(spec.groups.len());
    let mut total = 0u64;
    if spec.groups.is_empty() {
        return Err(problem("groups", "a scenario needs at least one group"));
    }
    for (i, g) in spec.groups.iter().enumerate() {
        let path = format!("groups[{i}]");
        name(&join(&path, "name"), &g.name)?;
        if g.name.contains(':') {
            return Err(problem(
                join(&path, "name"),
                "a group name must be non-empty and contain no `:`",
            ));
        }
        if group_index.insert(g.name.as_str(), i).is_some() {
            return Err(problem(join(&path, "name"), format!("a second group named `{}`", g.name)));
        }
        let n = group_size(&path, g)?;
        total += n as u64;
        if total > MAX_AGENTS {
            return Err(problem(
                join(&path, "count"),
                format!("more than {MAX_AGENTS} agents in all"),
            ));
        }
        sizes.push(n);
    }
    Ok((group_index, sizes))
}
