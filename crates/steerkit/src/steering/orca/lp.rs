//! The incremental linear programs behind ORCA: the velocity closest to the preferred one
//! inside a speed disc (ball in 3D) and a set of half-planes (half-spaces), in expected linear
//! time by Seidel's randomised-incremental scheme taken in the given order; and, when the
//! constraints leave nothing, the velocity that violates them least, by a program one
//! dimension up solved as a sequence of projected programs.

use super::{OrcaLine, OrcaPlane};
use glam::{Vec2, Vec3};

/// Below this a determinant or length counts as zero.
const EPS: f32 = 1e-5;

#[inline]
fn det(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b)
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
        line.point + line.direction * t.max(t_left).min(t_right)
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
    projected: &mut Vec<OrcaLine>,
    result: &mut Vec2,
) {
    let mut distance = 0.0f32;
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
            if linear_program2(projected, radius, opt, true, result) < projected.len() {
                // only by rounding: the previous optimum is feasible for the 3D program
                *result = before;
            }
            distance = det(lines[i].direction, lines[i].point - *result);
        }
    }
}

/// The optimum on the line `point + t·direction` (unit direction) inside the speed ball of
/// `radius` and the half-spaces `planes[..limit]`; `false` when they leave nothing on it.
fn linear_program1_3d(
    planes: &[OrcaPlane],
    limit: usize,
    (point, direction): (Vec3, Vec3),
    radius: f32,
    opt: Vec3,
    direction_opt: bool,
    result: &mut Vec3,
) -> bool {
    let dot = point.dot(direction);
    let disc = dot * dot + radius * radius - point.length_squared();
    if disc < 0.0 {
        return false; // the line misses the speed ball
    }
    let s = disc.sqrt();
    let (mut t_left, mut t_right) = (-dot - s, -dot + s);
    for plane in &planes[..limit] {
        // permitted: (point + t·direction − plane.point)·normal ≥ 0
        let numerator = (plane.point - point).dot(plane.normal);
        let denominator = direction.dot(plane.normal);
        if denominator * denominator <= EPS {
            if numerator > 0.0 {
                return false; // parallel and outside
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator > 0.0 {
            t_left = t_left.max(t);
        } else {
            t_right = t_right.min(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    *result = if direction_opt {
        if opt.dot(direction) > 0.0 {
            point + direction * t_right
        } else {
            point + direction * t_left
        }
    } else {
        point + direction * direction.dot(opt - point).max(t_left).min(t_right)
    };
    true
}

/// The optimum on the boundary plane of `planes[i]` inside the speed ball and the half-spaces
/// `planes[..i]`; `false` when they leave nothing on it.
fn linear_program2_3d(
    planes: &[OrcaPlane],
    i: usize,
    radius: f32,
    opt: Vec3,
    direction_opt: bool,
    result: &mut Vec3,
) -> bool {
    let plane = planes[i];
    let plane_dist = plane.point.dot(plane.normal);
    let plane_radius_sq = radius * radius - plane_dist * plane_dist;
    if plane_radius_sq < 0.0 {
        return false; // the plane misses the speed ball
    }
    let center = plane.normal * plane_dist;
    let plane_radius = plane_radius_sq.sqrt();
    *result = if direction_opt {
        let along = opt - plane.normal * opt.dot(plane.normal);
        if along.length_squared() <= EPS * EPS {
            center
        } else {
            center + along.normalize() * plane_radius
        }
    } else {
        let projected = opt + plane.normal * (plane.point - opt).dot(plane.normal);
        if projected.length_squared() > radius * radius {
            center + (projected - center).normalize_or_zero() * plane_radius
        } else {
            projected
        }
    };
    for j in 0..i {
        let other = planes[j];
        if other.normal.dot(other.point - *result) > 0.0 {
            // the optimum moves onto the line where the two boundaries meet
            let cross = other.normal.cross(plane.normal);
            if cross.length_squared() <= EPS {
                return false; // parallel: `other` excludes the whole plane
            }
            let direction = cross.normalize();
            let in_plane = direction.cross(plane.normal);
            let point = plane.point
                + in_plane
                    * ((other.point - plane.point).dot(other.normal) / in_plane.dot(other.normal));
            if !linear_program1_3d(
                planes,
                j,
                (point, direction),
                radius,
                opt,
                direction_opt,
                result,
            ) {
                return false;
            }
        }
    }
    true
}

/// The point of the speed ball of `radius` closest to `opt` (or farthest along the unit `opt`
/// with `direction_opt`) in every half-space. Returns `planes.len()` on success, else the index
/// of the first half-space it could not satisfy (`result` then holds the optimum before it).
pub(crate) fn linear_program3_3d(
    planes: &[OrcaPlane],
    radius: f32,
    opt: Vec3,
    direction_opt: bool,
    result: &mut Vec3,
) -> usize {
    *result = if direction_opt {
        opt * radius
    } else if opt.length_squared() > radius * radius {
        opt.normalize_or_zero() * radius
    } else {
        opt
    };
    for i in 0..planes.len() {
        if planes[i].normal.dot(planes[i].point - *result) > 0.0 {
            let before = *result;
            if !linear_program2_3d(planes, i, radius, opt, direction_opt, result) {
                *result = before;
                return i;
            }
        }
    }
    planes.len()
}

/// When the half-spaces from `begin` on leave no velocity: the velocity in the speed ball that
/// minimises the largest violation `max_i normal_i·(point_i − v)` over them (the first `fixed`
/// stay hard), by the 4D program of projected 3D programs: between half-spaces `i` and `j` the
/// velocities violating `j` no more than `i` form the half-space
/// `(n_j − n_i)·v ≥ n_j·p_j − n_i·p_i`.
pub(crate) fn linear_program4_3d(
    planes: &[OrcaPlane],
    fixed: usize,
    begin: usize,
    radius: f32,
    projected: &mut Vec<OrcaPlane>,
    result: &mut Vec3,
) {
    let mut distance = 0.0f32;
    for i in begin..planes.len() {
        let (pi, ni) = (planes[i].point, planes[i].normal);
        if ni.dot(pi - *result) > distance {
            projected.clear();
            projected.extend_from_slice(&planes[..fixed]);
            for plane in &planes[fixed..i] {
                let difference = plane.normal - ni;
                let length = difference.length();
                if length <= EPS {
                    continue; // the same half-space direction: `i` is the binding one
                }
                let normal = difference / length;
                let offset = (plane.normal.dot(plane.point) - ni.dot(pi)) / length;
                projected.push(OrcaPlane { point: normal * offset, normal });
            }
            let before = *result;
            if linear_program3_3d(projected, radius, ni, true, result) < projected.len() {
                // only by rounding: the previous optimum is feasible for the 4D program
                *result = before;
            }
            distance = ni.dot(pi - *result);
        }
    }
}
