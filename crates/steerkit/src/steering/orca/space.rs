//! What ORCA needs of a space (the plane and 3D), behind one trait.

use super::*;

/// What ORCA needs of a space: its constraint (a half-plane in 2D, a half-space in 3D), the
/// velocity obstacle's nearest boundary point, the linear program with its fallback one
/// dimension up, and the sidestep that `escape` tries.
pub(crate) trait Reciprocal: crate::math::Vector {
    type Constraint: Copy;
    fn parts(s: &mut OrcaScratch) -> Parts<'_, Self::Constraint>;
    /// The permitted side of the boundary through `point` with the inward `normal`.
    fn constraint(point: Self, normal: Self) -> Self::Constraint;
    /// A finite constraint (a non-finite one is dropped).
    fn admissible(c: &Self::Constraint) -> bool;
    /// [`avoidance`] in this space.
    fn avoidance(rel_pos: Self, rel_vel: Self, r: f32, inv_tau: f32, inv_dt: f32) -> (Self, Self);
    /// The program: how many constraints were satisfied in order before one failed.
    fn program(cs: &[Self::Constraint], max_speed: f32, opt: Self, result: &mut Self) -> usize;
    /// The fallback for an infeasible program: least violation of constraints `fixed..`,
    /// those before `fixed` kept hard, from constraint `fail` on.
    fn fallback(
        cs: &[Self::Constraint],
        fixed: usize,
        fail: usize,
        max_speed: f32,
        projected: &mut Vec<Self::Constraint>,
        result: &mut Self,
    );
    /// The preference turned right, for an agent held up.
    fn sidestep(preferred: Self) -> Self;
    /// The preference turned along the boundary of the static obstacle it violates most, at
    /// its speed: the way the agent already moves along it (`velocity`), else the way the
    /// preference leans; `None` when it violates none, or meets it square on and the agent
    /// is not moving along it (no side to prefer).
    fn along_wall(walls: &[Self::Constraint], preferred: Self, velocity: Self) -> Option<Self>;
    /// glam's clamp (the rounding the results were recorded with).
    fn clamp(self, max: f32) -> Self;
}

impl Reciprocal for Vec2 {
    type Constraint = OrcaLine;
    fn parts(s: &mut OrcaScratch) -> Parts<'_, OrcaLine> {
        (&mut s.lines, &mut s.order, &mut s.obstacles)
    }
    #[inline(always)]
    fn constraint(point: Vec2, normal: Vec2) -> OrcaLine {
        OrcaLine::facing(point, normal)
    }
    #[inline(always)]
    fn admissible(c: &OrcaLine) -> bool {
        c.point.is_finite() && c.direction.is_finite()
    }
    #[inline(always)]
    fn avoidance(rel_pos: Vec2, rel_vel: Vec2, r: f32, inv_tau: f32, inv_dt: f32) -> (Vec2, Vec2) {
        avoidance(rel_pos, rel_vel, r, inv_tau, inv_dt)
    }
    #[inline]
    fn program(cs: &[OrcaLine], max_speed: f32, opt: Vec2, result: &mut Vec2) -> usize {
        linear_program2(cs, max_speed, opt, false, result)
    }
    fn fallback(
        cs: &[OrcaLine],
        fixed: usize,
        fail: usize,
        max_speed: f32,
        projected: &mut Vec<OrcaLine>,
        result: &mut Vec2,
    ) {
        linear_program3(cs, fixed, fail, max_speed, projected, result);
    }
    fn sidestep(preferred: Vec2) -> Vec2 {
        Vec2::new(preferred.y, -preferred.x)
    }
    fn along_wall(walls: &[OrcaLine], preferred: Vec2, velocity: Vec2) -> Option<Vec2> {
        // violation: how far the preference lies on the forbidden (right) side
        let violation = |c: &&OrcaLine| c.direction.perp_dot(c.point - preferred);
        let wall = walls
            .iter()
            .filter(|c| violation(c) > 0.0)
            .max_by(|a, b| violation(a).total_cmp(&violation(b)))?;
        let speed = preferred.length();
        let (moving, leaning) = (wall.direction.dot(velocity), wall.direction.dot(preferred));
        let along = if moving.abs() > SQUARE_ON * speed { moving } else { leaning };
        (along.abs() > LEANING * speed).then(|| wall.direction * speed.copysign(along))
    }
    #[inline]
    fn clamp(self, max: f32) -> Vec2 {
        self.clamp_length_max(max)
    }
}

impl Reciprocal for Vec3 {
    type Constraint = OrcaPlane;
    fn parts(s: &mut OrcaScratch) -> Parts<'_, OrcaPlane> {
        (&mut s.planes, &mut s.order, &mut s.obstacles)
    }
    #[inline(always)]
    fn constraint(point: Vec3, normal: Vec3) -> OrcaPlane {
        OrcaPlane { point, normal }
    }
    #[inline(always)]
    fn admissible(c: &OrcaPlane) -> bool {
        c.point.is_finite() && c.normal.is_finite()
    }
    #[inline(always)]
    fn avoidance(rel_pos: Vec3, rel_vel: Vec3, r: f32, inv_tau: f32, inv_dt: f32) -> (Vec3, Vec3) {
        avoidance_3d(rel_pos, rel_vel, r, inv_tau, inv_dt)
    }
    #[inline]
    fn program(cs: &[OrcaPlane], max_speed: f32, opt: Vec3, result: &mut Vec3) -> usize {
        linear_program3_3d(cs, max_speed, opt, false, result)
    }
    fn fallback(
        cs: &[OrcaPlane],
        fixed: usize,
        fail: usize,
        max_speed: f32,
        projected: &mut Vec<OrcaPlane>,
        result: &mut Vec3,
    ) {
        linear_program4_3d(cs, fixed, fail, max_speed, projected, result);
    }
    fn along_wall(walls: &[OrcaPlane], preferred: Vec3, velocity: Vec3) -> Option<Vec3> {
        let violation = |c: &&OrcaPlane| c.normal.dot(c.point - preferred);
        let wall = walls
            .iter()
            .filter(|c| violation(c) > 0.0)
            .max_by(|a, b| violation(a).total_cmp(&violation(b)))?;
        let flat = |v: Vec3| v - wall.normal * wall.normal.dot(v);
        let speed = preferred.length();
        let (moving, leaning) = (flat(velocity), flat(preferred));
        let along = if moving.length() > SQUARE_ON * speed { moving } else { leaning };
        (along.length() > LEANING * speed).then(|| along.normalize() * speed)
    }
    fn sidestep(preferred: Vec3) -> Vec3 {
        let right = preferred.cross(Vec3::Y);
        if right.length_squared() > EPS {
            right
        } else {
            preferred.cross(Vec3::X)
        }
    }
    #[inline]
    fn clamp(self, max: f32) -> Vec3 {
        self.clamp_length_max(max)
    }
}
