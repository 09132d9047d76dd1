//! The truncated velocity obstacle of one neighbour (2D and 3D): its outward normal at the
//! point nearest the relative velocity and the change `u` to that point, the geometry every
//! ORCA constraint is built from, neighbour or static obstacle.

use super::{EPS, HEAD_ON};
use glam::{Vec2, Vec3};

/// The outward normal of the truncated velocity obstacle of a neighbour at `rel_pos` with
/// combined radius `r` at the point nearest `rel_vel`, and `u`, the change of `rel_vel` to that
/// point (2D).
#[inline(always)]
pub(super) fn avoidance(
    rel_pos: Vec2,
    rel_vel: Vec2,
    r: f32,
    inv_tau: f32,
    inv_dt: f32,
) -> (Vec2, Vec2) {
    let dist_sq = rel_pos.length_squared();
    let r_sq = r * r;
    if dist_sq > r_sq {
        let w = rel_vel - rel_pos * inv_tau;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        // closing exactly head on into the cut-off disc: its nearest boundary point is
        // straight back, and a symmetric pair would brake to a standstill face to face; the
        // leg turns both to their right instead
        let head_on = w_len_sq < r_sq * inv_tau * inv_tau
            && rel_vel.dot(rel_pos) > 0.0
            && rel_pos.perp_dot(rel_vel).abs() <= HEAD_ON * rel_pos.length() * rel_vel.length();
        if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq && !head_on {
            // the cut-off disc
            let w_len = w_len_sq.sqrt();
            let unit = w / w_len;
            (unit, unit * (r * inv_tau - w_len))
        } else {
            // a leg; exactly head-on (det = 0) takes the right leg on both sides, so a pair
            // passes each other rather than mirroring
            let leg = (dist_sq - r_sq).sqrt();
            let direction = if rel_pos.perp_dot(w) > 0.0 {
                (rel_pos * leg + rel_pos.perp() * r) / dist_sq
            } else {
                -(rel_pos * leg - rel_pos.perp() * r) / dist_sq
            };
            // the permitted side is the left of the leg's direction
            (direction.perp(), direction * rel_vel.dot(direction) - rel_vel)
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
            Vec2::Y // coincident and at rest relative to each other: a fixed side
        };
        (unit, unit * (r * inv_dt - w_len))
    }
}

/// As [`avoidance`] in 3D: the cone's nearest surface point in the plane of its axis and
/// `rel_vel`.
#[inline(always)]
pub(super) fn avoidance_3d(
    rel_pos: Vec3,
    rel_vel: Vec3,
    r: f32,
    inv_tau: f32,
    inv_dt: f32,
) -> (Vec3, Vec3) {
    let dist_sq = rel_pos.length_squared();
    let r_sq = r * r;
    if dist_sq > r_sq {
        let w = rel_vel - rel_pos * inv_tau;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        let head_on = w_len_sq < r_sq * inv_tau * inv_tau
            && rel_vel.dot(rel_pos) > 0.0
            && rel_pos.cross(rel_vel).length_squared()
                <= HEAD_ON * HEAD_ON * dist_sq * rel_vel.length_squared();
        if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq && !head_on {
            let w_len = w_len_sq.sqrt();
            let unit = w / w_len;
            (unit, unit * (r * inv_tau - w_len))
        } else {
            // the cone of half-angle θ (sin θ = r/|p|) about the axis â: in the plane of â and
            // the radial direction ê of rel_vel, the surface's outward normal is
            // −sin θ·â + cos θ·ê, and rel_vel lies s = n·rel_vel outside it
            let dist = dist_sq.sqrt();
            let axis = rel_pos / dist;
            let radial = rel_vel - axis * rel_vel.dot(axis);
            let radial = radial.try_normalize().unwrap_or_else(|| {
                // exactly head-on: a fixed side about the axis (opposite for the other agent)
                let side = axis.cross(Vec3::Y);
                let side = if side.length_squared() > EPS { side } else { axis.cross(Vec3::X) };
                side.normalize()
            });
            let (sin, cos) = (r / dist, (dist_sq - r_sq).sqrt() / dist);
            let normal = radial * cos - axis * sin;
            (normal, -normal * normal.dot(rel_vel))
        }
    } else {
        let w = rel_vel - rel_pos * inv_dt;
        let w_len = w.length();
        let unit = if w_len > EPS {
            w / w_len
        } else if dist_sq > 0.0 {
            -rel_pos / dist_sq.sqrt()
        } else {
            Vec3::Y
        };
        (unit, unit * (r * inv_dt - w_len))
    }
}
