//! The plane (`Vec2`): what the engine does its own way in 2D below the phases, and the fast
//! facing angle.

use super::*;
use crate::geometry::ObstacleSet;
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::steering::ObstacleAvoidance;
use glam::Vec2;

impl Space for Vec2 {
    type Obstacles = ObstacleSet;
    #[inline]
    fn facing(_current: f32, direction: Self) -> f32 {
        facing_angle(direction)
    }
    fn fake_facing(_: &crate::three_d::FakeRotation, _: Self, _: &mut Kinematic<Self>, _: f32) {}
    fn orca(
        orca: &crate::steering::Orca,
        me: &Kinematic<Self>,
        radius: f32,
        request: SteeringOutput<Self>,
        limits: &Limits,
        neighbours: &[crate::neighbours::Neighbour<Self>],
        pair: impl Fn(&crate::neighbours::Neighbour<Self>) -> Option<crate::steering::Pair>,
        obstacles: Option<&Self::Obstacles>,
        dt: f32,
        scratch: &mut crate::steering::OrcaScratch,
    ) -> SteeringOutput<Self> {
        if dt.is_nan() || dt <= 0.0 {
            return request;
        }
        let preferred = orca_preferred(me, &request, limits, dt, Vec2::clamp_length_max);
        if let Some(set) = obstacles {
            use crate::geometry::Obstacle;
            let reach = obstacle_reach(orca, limits, radius);
            set.for_each_overlapping(&crate::geometry::Circle::new(me.position, reach), |_, o| {
                let p = me.position;
                let line = match o {
                    Obstacle::Circle(c) => {
                        orca.obstacle_line(me, radius, &[c.center], c.radius, c.center)
                    }
                    Obstacle::Wall(w) => {
                        orca.obstacle_line(me, radius, &[w.a, w.b], 0.0, w.closest_point(p).0)
                    }
                    Obstacle::Polygon(poly) => {
                        let (points, normals) = (poly.points(), Some(poly.normals()));
                        let closest = poly.closest_point(p);
                        orca.obstacle_line_edges(me, radius, points, 0.0, closest, normals)
                    }
                    Obstacle::Box(b) => {
                        // counter-clockwise, each edge's outward normal with it
                        let corners = [
                            b.min,
                            Vec2::new(b.max.x, b.min.y),
                            b.max,
                            Vec2::new(b.min.x, b.max.y),
                        ];
                        let normals = Some(&BOX_NORMALS[..]);
                        let closest = b.closest_point(p);
                        orca.obstacle_line_edges(me, radius, &corners, 0.0, closest, normals)
                    }
                };
                scratch.add_obstacle(line);
            });
        }
        let v = orca.velocity_pairs(
            me,
            radius,
            preferred,
            limits.max_speed(),
            neighbours,
            pair,
            dt,
            scratch,
        );
        SteeringOutput { linear: (v - me.velocity) / dt, angular: request.angular }
    }
    fn keep_to(scratch: &mut crate::steering::OrcaScratch, point: Self, normal: Self) {
        scratch.add_obstacle(crate::steering::OrcaLine::facing(point, normal));
    }
    #[inline]
    fn orca_clear(
        orca: &crate::steering::Orca,
        me: &Kinematic<Self>,
        radius: f32,
        request: SteeringOutput<Self>,
        limits: &Limits,
        obstacles: Option<&Self::Obstacles>,
        dt: f32,
        all_clear: impl FnOnce(&crate::steering::Reach<Self>) -> bool,
    ) -> Option<SteeringOutput<Self>> {
        let shortcut = |v, preferred, max| orca.clear_velocity_2d(v, preferred, max, all_clear);
        let clamp = Vec2::clamp_length_max;
        orca_clear_with(orca, me, radius, request, limits, obstacles, dt, clamp, shortcut)
    }
    #[inline]
    fn drive(
        motor: &crate::motor::Motor,
        kinematic: &mut Kinematic<Self>,
        steering: &SteeringOutput<Self>,
        limits: &Limits,
        dt: f32,
        previous: Option<crate::motor::Controls>,
    ) -> Option<crate::motor::Controls> {
        Some(motor.drive_within(kinematic, steering, limits, dt, previous))
    }
    fn look_where_going(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        crate::steering::LookWhereYoureGoing::new(*align).steer(me, limits)
    }
    fn face(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        target: Self,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        crate::steering::Face::new(*align).steer(me, target, limits)
    }
    fn align(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        orientation: f32,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        align.steer(me, orientation, limits)
    }
    #[inline]
    fn planar(k: &Kinematic<Self>) -> Option<Kinematic<Vec2>> {
        Some(*k)
    }
    #[inline]
    fn from_planar(s: SteeringOutput<Vec2>) -> SteeringOutput<Self> {
        s
    }
    #[inline]
    fn planar_obstacles(set: &ObstacleSet) -> Option<&ObstacleSet> {
        Some(set)
    }
    #[inline]
    fn planar_path(path: &crate::path::Polyline<Vec2>) -> Option<&crate::path::Polyline<Vec2>> {
        Some(path)
    }
    #[inline]
    fn avoid_obstacles(
        leaf: &mut ObstacleAvoidance,
        me: &Kinematic,
        set: &ObstacleSet,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput> {
        leaf.steer(me, set, limits, dt)
    }
}

/// The outward unit normals of an axis-aligned box's edges, its corners taken
/// counter-clockwise from `min`.
const BOX_NORMALS: [Vec2; 4] = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];

/// `orientation_of(direction)` (the angle of a non-zero direction in (−π, π]) without a libm
/// call: one division and Abramowitz & Stegun's 4.4.49 polynomial for `atan` on [0, 1]
/// (error ≤ 2·10⁻⁸ rad, a few ulps after f32 rounding). The crowd faces every moving agent
/// along its velocity at every step, where libm's `atan2f` was an eighth of the step's time.
/// A zero direction gives 0.
#[inline]
pub(crate) fn facing_angle(direction: Vec2) -> f32 {
    use core::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (direction.x.abs(), direction.y.abs());
    let (num, den) = if ay > ax { (ax, ay) } else { (ay, ax) };
    if den.is_nan() || den <= 0.0 {
        return 0.0;
    }
    let t = num / den;
    let s = t * t;
    let p = -0.016_165_737 + s * 0.002_866_225_7;
    let p = 0.042_909_614 + s * p;
    let p = -0.075_289_64 + s * p;
    let p = 0.106_562_64 + s * p;
    let p = -0.142_089 + s * p;
    let p = 0.199_935_51 + s * p;
    let p = -0.333_331_45 + s * p;
    let mut a = t + t * s * p;
    if ay > ax {
        a = FRAC_PI_2 - a;
    }
    if direction.x < 0.0 {
        a = PI - a;
    }
    if direction.y < 0.0 {
        a = -a;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::orientation_of;

    #[test]
    fn facing_angle_matches_atan2_within_three_tenths_of_a_microradian() {
        let mut worst = 0.0f32;
        for k in 0..100_000 {
            let angle = -core::f32::consts::PI + k as f32 * (core::f32::consts::TAU / 100_000.0);
            for scale in [1e-3f32, 1.0, 37.5, 1e4] {
                let d = Vec2::new(angle.cos(), angle.sin()) * scale;
                let err = crate::math::wrap_angle(facing_angle(d) - orientation_of(d)).abs();
                worst = worst.max(err);
            }
        }
        assert!(worst <= 3e-7, "worst error {worst} rad");
        // axes, diagonals and the seam at ±π land in (−π, π]
        assert_eq!(facing_angle(Vec2::X), 0.0);
        assert_eq!(facing_angle(Vec2::Y), core::f32::consts::FRAC_PI_2);
        assert_eq!(facing_angle(-Vec2::X), core::f32::consts::PI);
        assert_eq!(facing_angle(Vec2::new(-1.0, -0.0)), core::f32::consts::PI);
        assert_eq!(facing_angle(-Vec2::Y), -core::f32::consts::FRAC_PI_2);
        assert!((facing_angle(Vec2::ONE) - core::f32::consts::FRAC_PI_4).abs() <= 1e-7);
        assert_eq!(facing_angle(Vec2::ZERO), 0.0);
        assert_eq!(facing_angle(Vec2::new(f32::NAN, 1.0)), 0.0);
    }
}
