//! Optimal reciprocal collision avoidance (ORCA: van den Berg, Guy, Lin and Manocha,
//! "Reciprocal n-body collision avoidance", 2011), in 2D.
//!
//! Each neighbour B of agent A within the time horizon τ defines a half-plane of velocities
//! (the ORCA line) that avoids colliding with B for τ seconds if B does its share: with the
//! relative position `p = p_B − p_A`, relative velocity `v = v_A − v_B` and combined radius
//! `r = r_A + r_B`, the truncated velocity obstacle is the cone of `p` with apex 0 and the disc
//! of radius `r/τ` at `p/τ`; `u` is the smallest change of `v` that leaves it, `n` its outward
//! normal, and A takes half: `ORCA = { v' : (v' − (v_A + u/2)) · n ≥ 0 }`. The new velocity is
//! the one closest to the preferred velocity inside every half-plane and the speed disc, found
//! by an incremental 2D linear program; when the half-planes leave nothing (a dense crowd), a
//! 3D linear program finds the velocity that violates them least (by the largest distance).
//! Already overlapping pairs use the cut-off disc of one time step (`dt`) to separate.

use crate::error::{positive, ParamError};
use crate::kinematic::Kinematic;
use crate::neighbours::Neighbour;
use glam::Vec2;

/// Below this a determinant or length counts as zero.
const EPS: f32 = 1e-5;

/// A half-plane of permitted velocities: the points `q` with `det(direction, point − q) ≤ 0`,
/// i.e. on the left of the directed line through `point` along `direction` (unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrcaLine {
    /// A point on the boundary (m/s).
    pub point: Vec2,
    /// The boundary's unit direction; permitted velocities lie on its left.
    pub direction: Vec2,
}

#[inline]
fn det(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b)
}

/// ORCA's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Orca {
    time_horizon: f32,
    max_neighbours: u32,
}

impl Orca {
    /// ORCA looking `time_horizon` seconds ahead (> 0; RVO2's example uses 10) among at most
    /// `max_neighbours` nearest neighbours (≥ 1; 10).
    ///
    /// # Errors
    /// If the horizon is not finite and positive or no neighbour is allowed.
    pub fn new(time_horizon: f32, max_neighbours: u32) -> Result<Self, ParamError> {
        positive("time_horizon", time_horizon)?;
        if max_neighbours == 0 {
            return Err(ParamError::Invalid { name: "max_neighbours", expected: "at least 1" });
        }
        Ok(Orca { time_horizon, max_neighbours })
    }

    /// The time horizon (s).
    #[must_use]
    pub fn time_horizon(&self) -> f32 {
        self.time_horizon
    }

    /// The most neighbours considered.
    #[must_use]
    pub fn max_neighbours(&self) -> u32 {
        self.max_neighbours
    }

    /// The collision-free velocity (m/s) closest to `preferred` within `max_speed`, against
    /// `neighbours` (their positions, velocities and radii; the `max_neighbours` nearest are
    /// used, nearest first by distance then index), for an agent `me` of `radius` stepping
    /// `dt` seconds. `lines` is scratch space. Finite input gives a finite velocity of at most
    /// `max_speed`.
    #[must_use]
    #[allow(clippy::too_many_arguments)] // the agent, its preference and the scratch, as RVO2
    pub fn velocity(
        &self,
        me: &Kinematic,
        radius: f32,
        preferred: Vec2,
        max_speed: f32,
        neighbours: &[Neighbour],
        dt: f32,
        lines: &mut Vec<OrcaLine>,
    ) -> Vec2 {
        lines.clear();
        let inv_tau = 1.0 / self.time_horizon;
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { inv_tau };
        let mut order: Vec<(f32, usize)> =
            neighbours.iter().enumerate().map(|(k, n)| (n.distance_squared, k)).collect();
        let k = (self.max_neighbours as usize).min(order.len());
        if order.len() > k {
            order.select_nth_unstable_by(k, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order.truncate(k);
        }
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, idx) in &order {
            let other = &neighbours[idx];
            let rel_pos = other.position - me.position;
            let rel_vel = me.velocity - other.velocity;
            let dist_sq = rel_pos.length_squared();
            let r = radius + other.radius;
            let r_sq = r * r;
            let (direction, u);
            if dist_sq > r_sq {
                // no collision yet: the truncated cone
                let w = rel_vel - rel_pos * inv_tau;
                let w_len_sq = w.length_squared();
                let dot1 = w.dot(rel_pos);
                if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq {
                    // the cut-off disc
                    let w_len = w_len_sq.sqrt();
                    let unit = w / w_len;
                    direction = Vec2::new(unit.y, -unit.x);
                    u = unit * (r * inv_tau - w_len);
                } else {
                    // a leg; exactly head-on (det = 0) takes the right leg on both sides, so a
                    // pair passes each other rather than mirroring
                    let leg = (dist_sq - r_sq).sqrt();
                    direction = if det(rel_pos, w) > 0.0 {
                        Vec2::new(rel_pos.x * leg - rel_pos.y * r, rel_pos.x * r + rel_pos.y * leg)
                            / dist_sq
                    } else {
                        -Vec2::new(
                            rel_pos.x * leg + rel_pos.y * r,
                            -rel_pos.x * r + rel_pos.y * leg,
                        ) / dist_sq
                    };
                    u = direction * rel_vel.dot(direction) - rel_vel;
                }
            } else {
                // already overlapping: leave the disc of one time step
                let w = rel_vel - rel_pos * inv_dt;
                let w_len = w.length();
                let unit = if w_len > EPS {
                    w / w_len
                } else if dist_sq > 0.0 {
                    -rel_pos / dist_sq.sqrt()
                } else {
                    // coincident and at rest relative to each other: a fixed side
                    Vec2::Y
                };
                direction = Vec2::new(unit.y, -unit.x);
                u = unit * (r * inv_dt - w_len);
            }
            let line = OrcaLine { point: me.velocity + u * 0.5, direction };
            if line.point.is_finite() && line.direction.is_finite() {
                lines.push(line);
            }
        }
        let max_speed = max_speed.max(0.0);
        let preferred = if preferred.is_finite() { preferred } else { me.velocity };
        let mut result = Vec2::ZERO;
        let fail = linear_program2(lines, max_speed, preferred, false, &mut result);
        if fail < lines.len() {
            linear_program3(lines, 0, fail, max_speed, &mut result);
        }
        if result.is_finite() {
            result.clamp_length_max(max_speed)
        } else {
            Vec2::ZERO
        }
    }
}

/// The optimum on line `i` subject to lines `0..i` and the speed disc; `false` when the
/// constraints leave nothing on the line.
fn linear_program1(
    lines: &[OrcaLine],
    i: usize,
    radius: f32,
    opt: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> bool {
    let line = lines[i];
    let dot = line.point.dot(line.direction);
    let disc = dot * dot + radius * radius - line.point.length_squared();
    if disc < 0.0 {
        return false; // the line misses the speed disc
    }
    let s = disc.sqrt();
    let (mut t_left, mut t_right) = (-dot - s, -dot + s);
    for other in &lines[..i] {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        if denominator.abs() <= EPS {
            // parallel
            if numerator < 0.0 {
                return false;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    *result = if direction_opt {
        if opt.dot(line.direction) > 0.0 {
            line.point + line.direction * t_right
        } else {
            line.point + line.direction * t_left
        }
    } else {
        let t = line.direction.dot(opt - line.point);
        line.point + line.direction * t.clamp(t_left, t_right)
    };
    true
}

/// The point of the speed disc of `radius` closest to `opt` (or farthest along the unit `opt`
/// with `direction_opt`) on the permitted side of every line. Returns `lines.len()` on success,
/// else the index of the first line it could not satisfy (`result` then holds the optimum of
/// the lines before it).
pub(crate) fn linear_program2(
    lines: &[OrcaLine],
    radius: f32,
    opt: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> usize {
    *result = if direction_opt {
        opt * radius
    } else if opt.length_squared() > radius * radius {
        opt.normalize_or_zero() * radius
    } else {
        opt
    };
    for i in 0..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > 0.0 {
            let before = *result;
            if !linear_program1(lines, i, radius, opt, direction_opt, result) {
                *result = before;
                return i;
            }
        }
    }
    lines.len()
}

/// When the lines from `begin` on leave no velocity: the velocity in the speed disc that
/// minimises the largest violation `max_i det(direction_i, point_i − v)` over those lines (the
/// first `fixed` lines stay hard), by the 3D program of projected 2D programs.
pub(crate) fn linear_program3(
    lines: &[OrcaLine],
    fixed: usize,
    begin: usize,
    radius: f32,
    result: &mut Vec2,
) {
    let mut distance = 0.0f32;
    let mut projected: Vec<OrcaLine> = Vec::with_capacity(lines.len());
    for i in begin..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > distance {
            projected.clear();
            projected.extend_from_slice(&lines[..fixed]);
            for j in fixed..i {
                let determinant = det(lines[i].direction, lines[j].direction);
                let point = if determinant.abs() <= EPS {
                    if lines[i].direction.dot(lines[j].direction) > 0.0 {
                        continue; // same direction
                    }
                    (lines[i].point + lines[j].point) * 0.5
                } else {
                    lines[i].point
                        + lines[i].direction
                            * (det(lines[j].direction, lines[i].point - lines[j].point)
                                / determinant)
                };
                let direction = (lines[j].direction - lines[i].direction).normalize_or_zero();
                if direction != Vec2::ZERO {
                    projected.push(OrcaLine { point, direction });
                }
            }
            let before = *result;
            let opt = Vec2::new(-lines[i].direction.y, lines[i].direction.x);
            if linear_program2(&projected, radius, opt, true, result) < projected.len() {
                // only by rounding: the previous optimum is feasible for the 3D program
                *result = before;
            }
            distance = det(lines[i].direction, lines[i].point - *result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rng;

    /// The brute-force answer: the best of a fine grid over the speed disc (feasible points
    /// closest to `opt`; with no feasible point, the least largest violation).
    fn brute(lines: &[OrcaLine], radius: f32, opt: Vec2) -> (bool, f32) {
        let n = 400;
        let (mut best_feasible, mut best_violation) = (f32::INFINITY, f32::INFINITY);
        for i in 0..=n {
            for j in 0..=n {
                let v =
                    Vec2::new(i as f32, j as f32) / n as f32 * 2.0 * radius - Vec2::splat(radius);
                if v.length() > radius {
                    continue;
                }
                let worst = lines
                    .iter()
                    .map(|l| det(l.direction, l.point - v))
                    .fold(f32::NEG_INFINITY, f32::max);
                if worst <= 0.0 {
                    best_feasible = best_feasible.min(v.distance(opt));
                }
                best_violation = best_violation.min(worst.max(0.0));
            }
        }
        if best_feasible.is_finite() {
            (true, best_feasible)
        } else {
            (false, best_violation)
        }
    }

    fn violation(lines: &[OrcaLine], v: Vec2) -> f32 {
        lines.iter().map(|l| det(l.direction, l.point - v)).fold(0.0, f32::max)
    }

    /// The incremental programs against a grid search on random constraint sets, feasible and
    /// not: within the grid's resolution (2·radius/400 = 1 cm for radius 2, doubled).
    #[test]
    fn the_linear_programs_match_brute_force_on_random_constraint_sets() {
        let mut rng = Rng::new(5);
        let radius = 2.0;
        let (mut feasible, mut infeasible) = (0, 0);
        for case in 0..200 {
            let n = 1 + (case % 7);
            let lines: Vec<OrcaLine> = (0..n)
                .map(|_| OrcaLine {
                    point: Vec2::new(rng.clamped(), rng.clamped()) * 2.5,
                    direction: Vec2::from_angle(rng.uniform() * core::f32::consts::TAU),
                })
                .collect();
            let opt = Vec2::new(rng.clamped(), rng.clamped()) * 2.5;
            let mut v = Vec2::ZERO;
            let fail = linear_program2(&lines, radius, opt, false, &mut v);
            let (ok, best) = brute(&lines, radius, opt);
            if fail == lines.len() {
                feasible += 1;
                assert!(ok, "case {case}: the program found {v} where the grid found nothing");
                assert!(violation(&lines, v) < 1e-3 && v.length() <= radius + 1e-4);
                assert!(
                    v.distance(opt) <= best + 0.02,
                    "case {case}: {} vs {best}",
                    v.distance(opt)
                );
            } else {
                infeasible += 1;
                linear_program3(&lines, 0, fail, radius, &mut v);
                let got = violation(&lines, v);
                if ok {
                    // the 2D program gave up on a set the grid finds feasible only at its rim
                    assert!(got < 0.02, "case {case}: violation {got}");
                } else {
                    assert!(got <= best + 0.02, "case {case}: violation {got} vs {best}");
                }
                assert!(v.length() <= radius + 1e-3);
            }
        }
        assert!(feasible > 40 && infeasible > 20, "{feasible} feasible, {infeasible} not");
    }

    fn agent(p: Vec2, v: Vec2) -> Kinematic {
        Kinematic { position: p, velocity: v, ..Kinematic::default() }
    }

    /// Two agents exactly head on, each preferring to go straight through the other: stepped
    /// together, they pass without their bodies touching and both get past.
    #[test]
    fn two_agents_head_on_pass_without_touching() {
        let orca = Orca::new(10.0, 10).unwrap();
        let (r, dt, speed) = (0.5, 0.1, 1.5);
        let mut a = agent(Vec2::new(-5.0, 0.0), Vec2::X * speed);
        let mut b = agent(Vec2::new(5.0, 0.0), -Vec2::X * speed);
        let mut lines = Vec::new();
        let mut closest = f32::INFINITY;
        for _ in 0..200 {
            let na = Neighbour::new(1, b.position, b.velocity, r, a.position);
            let nb = Neighbour::new(0, a.position, a.velocity, r, b.position);
            let prefer_a = (Vec2::new(5.0, 0.0) - a.position).clamp_length_max(speed);
            let prefer_b = (Vec2::new(-5.0, 0.0) - b.position).clamp_length_max(speed);
            let va = orca.velocity(&a, r, prefer_a, speed, &[na], dt, &mut lines);
            let vb = orca.velocity(&b, r, prefer_b, speed, &[nb], dt, &mut lines);
            a.velocity = va;
            b.velocity = vb;
            a.position += va * dt;
            b.position += vb * dt;
            closest = closest.min(a.position.distance(b.position));
        }
        assert!(closest >= 2.0 * r - 1e-3, "bodies touched: centres {closest} m apart");
        assert!(a.position.distance(Vec2::new(5.0, 0.0)) < 0.5, "a got through: {a:?}");
        assert!(b.position.distance(Vec2::new(-5.0, 0.0)) < 0.5, "b got through: {b:?}");
    }
}
