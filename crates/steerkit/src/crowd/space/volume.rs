//! Space (`Vec3`): what the engine does its own way in 3D below the phases (quaternion
//! facing, fake rotation, no planar leaves).

use super::*;
use crate::geometry::{ObstacleSet, ObstacleSet3};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::steering::ObstacleAvoidance;
use glam::{Quat, Vec2, Vec3};

/// Time constant (s) of the turn-rate smoothing behind
/// [`Group::fake_rotation`](crate::crowd::Group::fake_rotation): the bank follows the turn
/// within a few tenths of a second without shaking at every steering change.
pub const FAKE_TURN_TIME: f32 = 0.2;

impl Space for Vec3 {
    type Obstacles = ObstacleSet3;
    #[inline]
    fn facing(current: Quat, direction: Self) -> Quat {
        crate::three_d::align_to_vector(direction, current).unwrap_or(current)
    }
    fn look_where_going(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        crate::three_d::LookWhereYoureGoing3::new(*align).steer(me, limits)
    }
    fn face(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        target: Self,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        crate::three_d::Face3::new(*align).steer(me, target, limits)
    }
    fn align(
        align: &crate::steering::Align,
        me: &Kinematic<Self>,
        orientation: f32,
        limits: &crate::kinematic::Limits,
    ) -> Option<SteeringOutput<Self>> {
        let target = crate::math::ground::heading_to_quat(orientation);
        crate::three_d::Align3::new(*align).steer(me, target, limits)
    }
    fn fake_facing(
        fake: &crate::three_d::FakeRotation,
        before: Self,
        kinematic: &mut Kinematic<Self>,
        dt: f32,
    ) {
        use crate::math::ground::{heading_to_quat, quat_to_heading};
        let ground = |v: Vec3| Vec2::new(v.x, -v.z);
        let (a, b) = (ground(before), ground(kinematic.velocity));
        // the turn of the ground track this step (rad/s), smoothed with FAKE_TURN_TIME
        let turn = if dt > 0.0 && a.length_squared() > 1e-12 && b.length_squared() > 1e-12 {
            a.angle_to(b) / dt
        } else {
            0.0
        };
        let yaw_rate = kinematic.rotation.y;
        let yaw_rate = yaw_rate + (turn - yaw_rate) * (dt / FAKE_TURN_TIME).min(1.0);
        kinematic.rotation = Vec3::new(0.0, yaw_rate, 0.0);
        // yaw from the velocity (kept when at rest), then pitch and bank
        let heading = if b.length_squared() > 1e-12 {
            facing_angle(b)
        } else {
            quat_to_heading(kinematic.orientation)
        };
        let track = Kinematic { orientation: heading_to_quat(heading), ..*kinematic };
        kinematic.orientation = fake.orientation(&track);
    }
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
        let preferred = orca_preferred(me, &request, limits, dt, Vec3::clamp_length_max);
        if let Some(set) = obstacles {
            use crate::geometry::Obstacle3;
            let reach = obstacle_reach(orca, limits, radius);
            set.for_each_overlapping(&crate::geometry::Sphere::new(me.position, reach), |_, o| {
                let plane = match o {
                    Obstacle3::Sphere(s) => orca.obstacle_plane(me, radius, s.center, s.radius),
                    Obstacle3::Box(b) => {
                        orca.obstacle_plane(me, radius, b.closest_point(me.position), 0.0)
                    }
                };
                scratch.add_obstacle_3d(plane);
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
        scratch.add_obstacle_3d(crate::steering::OrcaPlane { point, normal });
    }
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
        let shortcut = |v, preferred, max| orca.clear_velocity_3d(v, preferred, max, all_clear);
        let clamp = Vec3::clamp_length_max;
        orca_clear_with(orca, me, radius, request, limits, obstacles, dt, clamp, shortcut)
    }
    fn drive(
        _: &crate::motor::Motor,
        _: &mut Kinematic<Self>,
        _: &SteeringOutput<Self>,
        _: &Limits,
        _: f32,
        _: Option<crate::motor::Controls>,
    ) -> Option<crate::motor::Controls> {
        None
    }
    #[inline]
    fn planar(_: &Kinematic<Self>) -> Option<Kinematic<Vec2>> {
        None
    }
    #[inline]
    fn from_planar(_: SteeringOutput<Vec2>) -> SteeringOutput<Self> {
        SteeringOutput::ZERO
    }
    #[inline]
    fn planar_obstacles(_: &ObstacleSet3) -> Option<&ObstacleSet> {
        None
    }
    #[inline]
    fn planar_path(_: &crate::path::Polyline<Vec3>) -> Option<&crate::path::Polyline<Vec2>> {
        None
    }
    #[inline]
    fn avoid_obstacles(
        leaf: &mut ObstacleAvoidance,
        me: &Kinematic<Vec3>,
        set: &ObstacleSet3,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<Vec3>> {
        leaf.steer_3d(me, set, limits, dt)
    }
}
