//! Static obstacles in ORCA: the constraint of a convex shape (2D) or a rounded point (3D),
//! avoided wholly by the agent over the obstacle horizon.

use super::cone::avoidance_3d;
use super::{Orca, OrcaLine, OrcaPlane, EPS, HEAD_ON};
use crate::kinematic::Kinematic;
use glam::{Vec2, Vec3};

impl Orca {
    /// The constraint of a static convex obstacle for an agent `me` of `radius`: the obstacle
    /// is the convex hull of discs of radius `rounding` (m) at `vertices` (a disc: its centre
    /// and radius; a wall: its two ends and 0; a box or convex polygon: its corners and 0), and
    /// `closest` is the point of the vertices' hull nearest the agent's centre (the centre
    /// itself when inside; a disc's centre).
    ///
    /// With `ρ = radius + rounding` and the vertices `pᵢ` relative to the agent, the velocity
    /// obstacle over the horizon τₒ is `K = ⋃_{σ ≥ 1/τₒ} σ·O_ρ`, whose support function is
    /// `h(n) = (maxᵢ pᵢ·n + ρ)/τₒ` for the normals `n` facing away from its two tangent legs
    /// (infinite otherwise). The constraint is `n*·v' ≥ h(n*)` for the `n*` maximising
    /// `n·v − h(n)` (the signed distance of the current velocity `v` from `K`), found exactly
    /// among the legs' normals, the edge normals and each vertex's direction. An agent already
    /// overlapping the obstacle may not move further into it (`v'·n ≥ 0` away from `closest`).
    #[must_use]
    pub fn obstacle_line(
        &self,
        me: &Kinematic,
        radius: f32,
        vertices: &[Vec2],
        rounding: f32,
        closest: Vec2,
    ) -> OrcaLine {
        self.obstacle_line_edges(me, radius, vertices, rounding, closest, None)
    }

    /// [`obstacle_line`](Self::obstacle_line) for a convex polygon whose vertices run
    /// counter-clockwise and whose edge `i → i + 1` (wrapping) has the outward unit normal
    /// `normals[i]` (`Some`): the velocity obstacle's faces are those edges, scaled, so only
    /// their outward normals are candidates, where `None` tries both normals of the line
    /// through every pair of vertices (the order unknown). The extra candidates only ever
    /// bound the signed distance from below, so both find the same constraint (up to rounding).
    pub(crate) fn obstacle_line_edges(
        &self,
        me: &Kinematic,
        radius: f32,
        vertices: &[Vec2],
        rounding: f32,
        closest: Vec2,
        normals: Option<&[Vec2]>,
    ) -> OrcaLine {
        let rho = radius + rounding.max(0.0);
        let c = closest - me.position;
        let d = c.length();
        if d < rho || vertices.is_empty() {
            let away = if d > EPS {
                -c / d
            } else {
                let centroid =
                    vertices.iter().copied().sum::<Vec2>() / vertices.len().max(1) as f32;
                (me.position - centroid).try_normalize().unwrap_or(Vec2::Y)
            };
            return OrcaLine::facing(Vec2::ZERO, away);
        }
        let rel = |p: Vec2| p - me.position;
        // the cone's legs: the outermost tangents of the vertex discs, seen from the agent
        let tangent = |p: Vec2, side: f32| {
            let dist_sq = p.length_squared();
            let leg = (dist_sq - rho * rho).max(0.0).sqrt();
            (p * leg + p.perp() * (rho * side)) / dist_sq
        };
        let (mut left, mut right) =
            (tangent(rel(vertices[0]), 1.0), tangent(rel(vertices[0]), -1.0));
        for &p in &vertices[1..] {
            let (l, r) = (tangent(rel(p), 1.0), tangent(rel(p), -1.0));
            if left.perp_dot(l) > 0.0 {
                left = l;
            }
            if right.perp_dot(r) < 0.0 {
                right = r;
            }
        }
        let (n_left, n_right) = (left.perp(), -right.perp());
        let inv_tau = 1.0 / self.obstacle_time_horizon;
        let v = me.velocity;
        let support = |n: Vec2| {
            vertices.iter().map(|&p| rel(p).dot(n)).fold(f32::NEG_INFINITY, f32::max) * inv_tau
                + rho * inv_tau
        };
        let admissible = |n: Vec2| n_left.perp_dot(n) >= -EPS && n.perp_dot(n_right) >= -EPS;
        // (signed distance, normal, whether it is a vertex's round part)
        let mut best = (f32::NEG_INFINITY, n_left, false);
        let mut consider = |n: Vec2, round: bool| {
            let g = n.dot(v) - support(n);
            if g > best.0 {
                best = (g, n, round);
            }
        };
        consider(n_left, false);
        consider(n_right, false);
        for (i, &p) in vertices.iter().enumerate() {
            if let Some(n) = (v - rel(p) * inv_tau).try_normalize() {
                if admissible(n) {
                    consider(n, true);
                }
            }
            if let Some(normals) = normals {
                if let Some(&n) = normals.get(i) {
                    if admissible(n) {
                        consider(n, false);
                    }
                }
                continue;
            }
            for &q in &vertices[i + 1..] {
                if let Some(e) = (q - p).try_normalize() {
                    for n in [e.perp(), -e.perp()] {
                        if admissible(n) {
                            consider(n, false);
                        }
                    }
                }
            }
        }
        let (g, n, round) = best;
        if round && g < 0.0 && v.dot(c) > 0.0 && c.perp_dot(v).abs() <= HEAD_ON * d * v.length() {
            // heading straight at a round part: its nearest boundary point is straight back,
            // and the agent would brake to a standstill in front; the right leg turns it aside
            return OrcaLine::facing(Vec2::ZERO, n_right);
        }
        OrcaLine::facing(n * support(n), n)
    }

    /// The constraint of a static obstacle in 3D for an agent `me` of `radius`: the ball of
    /// `rounding` (m) about `closest`, the obstacle's point nearest the agent's centre — exact
    /// for a sphere (its centre and radius); for a box its nearest point with rounding 0, whose
    /// cone widens to the whole face's half-space as the agent comes within its radius. Avoided
    /// wholly over the obstacle horizon; an agent already overlapping may not move further in.
    #[must_use]
    pub fn obstacle_plane(
        &self,
        me: &Kinematic<Vec3>,
        radius: f32,
        closest: Vec3,
        rounding: f32,
    ) -> OrcaPlane {
        let rel = closest - me.position;
        let r = radius + rounding.max(0.0);
        if rel.length_squared() < r * r {
            let away = (-rel).try_normalize().unwrap_or(Vec3::Y);
            return OrcaPlane { point: Vec3::ZERO, normal: away };
        }
        let inv_tau = 1.0 / self.obstacle_time_horizon;
        let (normal, u) = avoidance_3d(rel, me.velocity, r, inv_tau, inv_tau);
        OrcaPlane { point: me.velocity + u, normal }
    }
}
