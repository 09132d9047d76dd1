//! `[[turrets]]`: guns and grenadiers of 3D scenarios (Millington §3.5).

use super::values::{colour, join, name, non_negative, one_of, point, positive, problem};
use super::{Refs, Result, MAX_TURRETS};
use crate::model::{Aim, Drag, Solver, TurretPlan};
use crate::spec::{ScenarioSpec, TurretSpec};
use steerkit::predict::BallisticArc;
use steerkit::Vec3;

/// Checks one turret (`dims` is the scenario's; turrets fly in 3D, y up).
pub(crate) fn turret(path: &str, t: &TurretSpec, refs: &Refs<'_>) -> Result<TurretPlan> {
    if refs.dims != 3 {
        return Err(problem(
            path,
            "turrets fly their projectiles in 3D (y up, gravity down): put `dimensions = 3` at \
             the top of the file",
        ));
    }
    name(&join(path, "name"), &t.name)?;
    if let Some(c) = &t.colour {
        colour(&join(path, "colour"), c)?;
    }
    let position: Vec3 = point(&join(path, "position"), t.position)?;
    let target = refs.agent(&join(path, "target"), &t.target)?;
    let muzzle_speed = positive(&join(path, "muzzle_speed"), t.muzzle_speed)?;
    let g = positive(&join(path, "gravity"), t.gravity.unwrap_or(9.81))?;
    let drag = drag(path, t)?;
    let aim = one_of(
        &join(path, "aim"),
        t.aim.as_deref().unwrap_or("lead"),
        &[("direct", Aim::Direct), ("lead", Aim::Lead)],
    )?;
    let solver = one_of(
        &join(path, "solver"),
        t.solver.as_deref().unwrap_or("closed_form"),
        &[("closed_form", Solver::ClosedForm), ("iterative", Solver::Iterative)],
    )?;
    let arc = one_of(
        &join(path, "arc"),
        t.arc.as_deref().unwrap_or("low"),
        &[("low", BallisticArc::Low), ("high", BallisticArc::High)],
    )?;
    if solver == Solver::Iterative && arc == BallisticArc::High {
        return Err(problem(
            join(path, "arc"),
            "iterative targeting searches the low arc only: `arc = \"high\"` needs `solver = \
             \"closed_form\"`",
        ));
    }
    let interval = positive(&join(path, "interval"), t.interval.unwrap_or(1.0))?;
    if interval < 0.05 {
        return Err(problem(
            join(path, "interval"),
            format!("at least 0.05 s between shots, got {interval}"),
        ));
    }
    let first_shot = non_negative(&join(path, "first_shot"), t.first_shot.unwrap_or(interval))?;
    let hit_radius = non_negative(&join(path, "hit_radius"), t.hit_radius.unwrap_or(0.2))?;
    let grenade = grenade(path, t)?;
    if grenade.is_some() && t.hit_radius.is_some() {
        return Err(problem(
            join(path, "hit_radius"),
            "a grenade does not hit on contact: it goes off (`blast_radius`), so no `hit_radius`",
        ));
    }
    Ok(TurretPlan {
        name: t.name.clone(),
        colour: t.colour.clone(),
        position,
        target,
        muzzle_speed,
        gravity: Vec3::new(0.0, -g, 0.0),
        drag,
        aim,
        solver,
        arc,
        interval,
        first_shot,
        hit_radius,
        grenade,
    })
}

/// The turret's `drag`: none, linear (`k`) or quadratic (`k`, `c`, `wind`).
fn drag(path: &str, t: &TurretSpec) -> Result<Drag> {
    let drag_name = t.drag.as_deref().unwrap_or("none");
    Ok(
        match one_of(
            &join(path, "drag"),
            drag_name,
            &[("none", 0), ("linear", 1), ("quadratic", 2)],
        )? {
            0 => {
                for (key, present) in
                    [("k", t.k.is_some()), ("c", t.c.is_some()), ("wind", t.wind.is_some())]
                {
                    if present {
                        return Err(problem(
                            join(path, key),
                            format!(
                            "`{key}` is a drag parameter: set `drag = \"linear\"` or \"quadratic\""
                        ),
                        ));
                    }
                }
                Drag::None
            }
            1 => {
                for (key, present) in [("c", t.c.is_some()), ("wind", t.wind.is_some())] {
                    if present {
                        return Err(problem(
                            join(path, key),
                            format!("`{key}` applies to `drag = \"quadratic\"` only"),
                        ));
                    }
                }
                let k =
                    t.k.ok_or_else(|| problem(join(path, "k"), "linear drag needs `k` (1/s)"))?;
                Drag::Linear { k: positive(&join(path, "k"), k)? }
            }
            _ => {
                let k = non_negative(&join(path, "k"), t.k.unwrap_or(0.0))?;
                let c = non_negative(&join(path, "c"), t.c.unwrap_or(0.0))?;
                let wind: Vec3 = match t.wind {
                    Some(w) => point(&join(path, "wind"), w)?,
                    None => Vec3::ZERO,
                };
                Drag::Quadratic { k, c, wind }
            }
        },
    )
}

/// A grenadier's `fuse` (s, optional) and `blast_radius` (m), or `None` for a gun.
fn grenade(path: &str, t: &TurretSpec) -> Result<Option<(Option<f32>, f32)>> {
    Ok(match (t.fuse, t.blast_radius) {
        (None, None) => None,
        (fuse, Some(r)) => {
            let fuse = match fuse {
                Some(f) => Some(positive(&join(path, "fuse"), f)?),
                None => None,
            };
            Some((fuse, positive(&join(path, "blast_radius"), r)?))
        }
        (Some(_), None) => {
            return Err(problem(
                join(path, "blast_radius"),
                "a grenade (`fuse`) needs `blast_radius` (m)",
            ))
        }
    })
}

/// Every `[[turrets]]` (at most [`MAX_TURRETS`]), each named once.
pub(super) fn turrets(spec: &ScenarioSpec, refs: &Refs<'_>) -> Result<Vec<TurretPlan>> {
    if spec.turrets.len() > MAX_TURRETS {
        return Err(problem(
            "turrets",
            format!("at most {MAX_TURRETS} turrets, got {}", spec.turrets.len()),
        ));
    }
    let mut turrets: Vec<TurretPlan> = Vec::with_capacity(spec.turrets.len());
    for (i, ts) in spec.turrets.iter().enumerate() {
        let path = format!("turrets[{i}]");
        let t = turret(&path, ts, refs)?;
        if turrets.iter().any(|o| o.name == t.name) {
            return Err(problem(
                join(&path, "name"),
                format!("a second turret named `{}`", t.name),
            ));
        }
        turrets.push(t);
    }
    Ok(turrets)
}
