//! The spaces the crowd engine runs in (`CrowdVector`: `Vec2`, `Vec3`), the world's bounds,
//! and what differs between the two spaces inside the engine (facing the motion, the static
//! world, planar leaves, formations), kept on a crate-private supertrait.

use crate::error::{finite, ParamError};
use crate::geometry::{ObstacleId, ObstacleSet, ObstacleSet3, Shape, StaticWorld};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::steering::ObstacleAvoidance;
use glam::{Quat, Vec2, Vec3};

/// A space the crowd engine runs in: `Vec2` or `Vec3`. Sealed: what differs between the two
/// spaces inside the engine (facing the motion, the static world, planar leaves, formations)
/// lives on a crate-private supertrait, so it is no part of the public API.
///
/// The static world of a space (`Crowd::set_obstacles`) is an
/// [`ObstacleSet`](crate::geometry::ObstacleSet) in 2D and an
/// [`ObstacleSet3`](crate::geometry::ObstacleSet3) in 3D.
pub trait CrowdVector: Vector + Space + crate::steering::AvoidanceVector {}

impl CrowdVector for Vec2 {}
impl CrowdVector for Vec3 {}

pub(crate) use sealed::{Contact, Space};

/// ORCA's preferred velocity: where the steering request, clipped to the limits, takes the
/// velocity in `dt`, within the top speed by `clamp` (glam's, the rounding the results were
/// recorded with).
#[inline]
fn orca_preferred<V: Vector>(
    me: &Kinematic<V>,
    request: &SteeringOutput<V>,
    limits: &Limits,
    dt: f32,
    clamp: fn(V, f32) -> V,
) -> V {
    let a = request.clamped(limits.max_acceleration(), limits.max_angular_acceleration());
    clamp(me.velocity + a.linear * dt, limits.max_speed())
}

/// [`Space::orca_clear`] in either space: `None` when `dt` is not positive or a static
/// obstacle lies within ORCA's reach (its constraint would come first); `clamp` is glam's and
/// `shortcut` the space's `Orca::clear_velocity_2d` or `_3d`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn orca_clear_with<V: Vector, O: StaticWorld<V>>(
    orca: &crate::steering::Orca,
    me: &Kinematic<V>,
    radius: f32,
    request: SteeringOutput<V>,
    limits: &Limits,
    obstacles: Option<&O>,
    dt: f32,
    clamp: fn(V, f32) -> V,
    shortcut: impl FnOnce(V, V, f32) -> Option<V>,
) -> Option<SteeringOutput<V>> {
    if dt.is_nan() || dt <= 0.0 {
        return None;
    }
    if let Some(set) = obstacles {
        let mut near = false;
        set.for_each_near(me.position, obstacle_reach(orca, limits, radius), |_, _| near = true);
        if near {
            return None;
        }
    }
    let preferred = orca_preferred(me, &request, limits, dt, clamp);
    let v = shortcut(me.velocity, preferred, limits.max_speed())?;
    Some(SteeringOutput { linear: (v - me.velocity) / dt, angular: request.angular })
}

/// How far (m) ORCA looks for static obstacles: the obstacle horizon at top speed, plus the
/// body.
#[inline]
fn obstacle_reach(orca: &crate::steering::Orca, limits: &Limits, radius: f32) -> f32 {
    let reach = orca.obstacle_time_horizon() * limits.max_speed() + radius;
    if reach.is_finite() {
        reach
    } else {
        0.0
    }
}

mod sealed {
    use super::{Kinematic, Limits, ObstacleAvoidance, ObstacleId, ObstacleSet, SteeringOutput};
    use super::{StaticWorld, Vec2};
    use crate::math::Vector;

    /// What the static world did to one agent's move.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Contact {
        /// Nothing touched.
        None,
        /// The body met this wall: the centre's move across it was refused (Green), or the
        /// body reached it and was held off it.
        Wall(ObstacleId),
        /// The centre would have entered this solid obstacle: the move was refused.
        Blocked(ObstacleId),
        /// The body reached this solid obstacle (and was pushed back out of it).
        Touch(ObstacleId),
    }

    /// The engine's per-space operations (reachable only inside the crate).
    pub trait Space: Vector {
        /// The static world of this space: [`ObstacleSet`] in 2D,
        /// [`ObstacleSet3`](crate::geometry::ObstacleSet3) in 3D.
        type Obstacles: StaticWorld<Self>;
        /// The orientation that looks along `direction` (not zero), starting from `current`
        /// (3D keeps the roll by taking the shortest arc).
        fn facing(current: Self::Orientation, direction: Self) -> Self::Orientation;
        /// The space has a lane form of phase 2's flat blend ([`steer_eight`](Self::steer_eight)).
        const BLENDS_IN_LANES: bool = false;
        /// Phase 2's flat blend of eight agents of one group at once, in lanes, bit for bit as
        /// `FlatBlend::evaluate` (`crowd::blend::steer_eight`): each agent's steering and
        /// target, from `me`, `limits` and the neighbour sums (the first eight of `sums`).
        /// `None` where the space has no lane form.
        #[allow(private_interfaces)]
        fn steer_eight(
            _leaves: &[(f32, crate::crowd::recipe::LaneLeaf)],
            _me: &[Kinematic<Self>; 8],
            _limits: &[Limits; 8],
            _sums: &[crate::crowd::recipe::Summary<Self>],
            _avx2: bool,
        ) -> Option<[(SteeringOutput<Self>, Option<Self>); 8]> {
            None
        }
        /// The space has a lane form of phase 3's move ([`move_eight`](Self::move_eight)).
        const MOVES_IN_LANES: bool = false;
        /// Phase 3's move of eight agents of one group at once, in lanes, bit for bit as the
        /// scalar phase (`crowd::advance::move_eight`; `moved` gets the squared
        /// displacements), where [`MOVES_IN_LANES`](Self::MOVES_IN_LANES). `false`, with
        /// nothing written, when a result is not finite.
        // the trait is sealed (this module is private), so its crate-private types stay so
        #[allow(private_interfaces)]
        fn move_eight(
            _linear: (&mut [Self], &mut [Self]),
            _angular: (&mut [Self::Orientation], &mut [Self::Angular]),
            _debug: &[crate::crowd::AgentDebug<Self>],
            _cold: &[crate::crowd::Cold],
            _step: &crate::crowd::advance::Move<'_, Self>,
            _moved: &mut [f32; 8],
        ) -> bool {
            false
        }
        /// Look where you're going with `align` (3D: `LookWhereYoureGoing3`).
        fn look_where_going(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Face `target` with `align` (3D: `Face3`).
        fn face(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            target: Self,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Align to the heading `orientation` (rad; 3D: the ground heading's quaternion, `Align3`).
        fn align(
            align: &crate::steering::Align,
            me: &Kinematic<Self>,
            orientation: f32,
            limits: &crate::kinematic::Limits,
        ) -> Option<SteeringOutput<Self>>;
        /// Faked rotation axes after a step from velocity `before` (3D only; groups in 2D
        /// cannot have them): the turn rate is smoothed into `kinematic.rotation` and the
        /// orientation set from it and the velocity.
        fn fake_facing(
            fake: &crate::three_d::FakeRotation,
            before: Self,
            kinematic: &mut Kinematic<Self>,
            dt: f32,
        );
        /// Drives `kinematic` through `motor` for `dt` seconds on `steering` (2D only: the
        /// vehicle models are planar, and a 3D group cannot have one); returns the controls.
        fn drive(
            motor: &crate::motor::Motor,
            kinematic: &mut Kinematic<Self>,
            steering: &SteeringOutput<Self>,
            limits: &Limits,
            dt: f32,
            previous: Option<crate::motor::Controls>,
        ) -> Option<crate::motor::Controls>;
        /// The velocity ORCA picks for the agent `me` among its neighbours (each with the
        /// share `share` gives) and the static obstacles within reach, as the request that
        /// reaches it in `dt`.
        #[allow(clippy::too_many_arguments)]
        fn orca(
            orca: &crate::steering::Orca,
            me: &Kinematic<Self>,
            radius: f32,
            request: SteeringOutput<Self>,
            limits: &Limits,
            neighbours: &[crate::neighbours::Neighbour<Self>],
            share: impl Fn(&crate::neighbours::Neighbour<Self>) -> Option<f32>,
            obstacles: Option<&Self::Obstacles>,
            dt: f32,
            scratch: &mut crate::steering::OrcaScratch,
        ) -> SteeringOutput<Self>;
        /// [`orca`](Self::orca)'s answer, without building a constraint, for an agent whose
        /// preference keeps clear of every neighbour: `all_clear` runs the test it is given on
        /// each one. `None` when that cannot be told (a static obstacle in reach, a neighbour
        /// not clear, the agent held up): then `orca` answers.
        #[allow(clippy::too_many_arguments)]
        fn orca_clear(
            orca: &crate::steering::Orca,
            me: &Kinematic<Self>,
            radius: f32,
            request: SteeringOutput<Self>,
            limits: &Limits,
            obstacles: Option<&Self::Obstacles>,
            dt: f32,
            all_clear: impl FnOnce(&crate::steering::Reach<Self>) -> bool,
        ) -> Option<SteeringOutput<Self>>;
        /// The planar (2D) view of a kinematic, for the recipe leaves that only exist in 2D
        /// (walls, detection boxes, hiding, orientation behaviours); `None` in 3D.
        fn planar(k: &Kinematic<Self>) -> Option<Kinematic<Vec2>>;
        /// A planar steering output in this space (3D: zero; never reached, since 2D-only
        /// leaves are refused by 3D crowds).
        fn from_planar(s: SteeringOutput<Vec2>) -> SteeringOutput<Self>;
        /// The planar obstacle set, for the 2D-only leaves (the same set in 2D; `None` in 3D).
        fn planar_obstacles(set: &Self::Obstacles) -> Option<&ObstacleSet>;
        /// Steps the crowd's formations (2D only: formations are planar).
        fn update_formations(crowd: &mut crate::crowd::Crowd<Self>, dt: f32)
        where
            Self: super::CrowdVector;
        /// Obstacle avoidance in this space: [`ObstacleAvoidance::steer`] in 2D,
        /// [`ObstacleAvoidance::steer_3d`] in 3D.
        fn avoid_obstacles(
            leaf: &mut ObstacleAvoidance,
            me: &Kinematic<Self>,
            set: &Self::Obstacles,
            limits: &Limits,
            dt: f32,
        ) -> Option<SteeringOutput<Self>>;
        /// Calls `f` with each ray obstacle avoidance would cast now:
        /// [`ObstacleAvoidance::for_each_ray`] in 2D, [`ObstacleAvoidance::for_each_ray_3d`]
        /// in 3D.
        fn avoidance_rays(
            leaf: &ObstacleAvoidance,
            me: &Kinematic<Self>,
            f: impl FnMut(crate::geometry::Ray<Self>),
        );
    }
}

impl Space for Vec2 {
    type Obstacles = ObstacleSet;
    #[inline]
    fn facing(_current: f32, direction: Self) -> f32 {
        facing_angle(direction)
    }
    const BLENDS_IN_LANES: bool = true;
    #[inline]
    #[allow(private_interfaces)]
    fn steer_eight(
        leaves: &[(f32, super::recipe::LaneLeaf)],
        me: &[Kinematic<Self>; 8],
        limits: &[Limits; 8],
        sums: &[super::recipe::Summary<Self>],
        avx2: bool,
    ) -> Option<[(SteeringOutput<Self>, Option<Self>); 8]> {
        Some(super::blend::steer_eight(leaves, me, limits, sums, avx2))
    }
    const MOVES_IN_LANES: bool = true;
    #[inline]
    #[allow(private_interfaces)]
    fn move_eight(
        (position, velocity): (&mut [Self], &mut [Self]),
        (orientation, rotation): (&mut [f32], &mut [f32]),
        debug: &[super::AgentDebug<Self>],
        cold: &[super::Cold],
        step: &super::advance::Move<'_, Self>,
        moved: &mut [f32; 8],
    ) -> bool {
        super::advance::move_eight(
            position,
            velocity,
            orientation,
            rotation,
            debug,
            cold,
            step,
            moved,
        )
    }
    fn fake_facing(_: &crate::three_d::FakeRotation, _: Self, _: &mut Kinematic<Self>, _: f32) {}
    fn orca(
        orca: &crate::steering::Orca,
        me: &Kinematic<Self>,
        radius: f32,
        request: SteeringOutput<Self>,
        limits: &Limits,
        neighbours: &[crate::neighbours::Neighbour<Self>],
        share: impl Fn(&crate::neighbours::Neighbour<Self>) -> Option<f32>,
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
                        orca.obstacle_line(me, radius, poly.points(), 0.0, poly.closest_point(p))
                    }
                    Obstacle::Box(b) => {
                        let corners = [
                            b.min,
                            Vec2::new(b.max.x, b.min.y),
                            b.max,
                            Vec2::new(b.min.x, b.max.y),
                        ];
                        orca.obstacle_line(me, radius, &corners, 0.0, b.closest_point(p))
                    }
                };
                scratch.add_obstacle(line);
            });
        }
        let v = orca.velocity_with(
            me,
            radius,
            preferred,
            limits.max_speed(),
            neighbours,
            share,
            dt,
            scratch,
        );
        SteeringOutput { linear: (v - me.velocity) / dt, angular: request.angular }
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
    fn update_formations(crowd: &mut super::Crowd<Self>, dt: f32) {
        super::formation::update_formations(crowd, dt);
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
    fn avoidance_rays(
        leaf: &ObstacleAvoidance,
        me: &Kinematic,
        mut f: impl FnMut(crate::geometry::Ray),
    ) {
        leaf.for_each_ray(me, |ray, _| f(ray));
    }
}

/// Applies the static world to a move from `old` to `position`, in 2D and 3D: a centre never
/// crosses a wall or enters a solid (the move is refused and the velocity loses its component
/// into the surface), then the body (the disc or ball of `radius`) is pushed out of every wall
/// and solid it overlaps, and a body touching a solid is reported.
pub(crate) fn contain<V: Vector, W: StaticWorld<V>>(
    obstacles: &W,
    old: V,
    position: &mut V,
    velocity: &mut V,
    radius: f32,
    touching: bool,
) -> Contact {
    let step = *position - old;
    let mut blocked = Contact::None;
    if step != V::ZERO {
        if let Some(hit) = obstacles.first_hit(old, step) {
            *position = old;
            let into = velocity.dot(hit.normal);
            if into < 0.0 {
                *velocity -= hit.normal * into;
            }
            blocked = if obstacles.shape(hit.obstacle).is_some_and(|o| o.is_wall()) {
                Contact::Wall(hit.obstacle)
            } else {
                Contact::Blocked(hit.obstacle)
            };
        }
    }
    // The body: the centre moves out of every obstacle (wall or solid) the body overlaps, by
    // the overlap, along the line from the obstacle's nearest point, unless that would carry
    // it through another obstacle (a gap narrower than the body). A few passes settle a body
    // wedged in a corner; the set's fixed visiting order keeps the result independent of the
    // agents' order. Contact is reported within a slightly larger body while it lasts, so a
    // body sliding along a surface is one contact, not many.
    let report = if touching { radius * (1.0 + CONTACT_HYSTERESIS) } else { radius };
    let mut touch: Option<(ObstacleId, bool)> = None;
    for pass in 0..PUSH_PASSES {
        let mut pushed = false;
        let reach = if pass == 0 { report } else { radius };
        obstacles.for_each_near(*position, reach, |id, o| {
            let nearest = o.closest_point(*position);
            let (mut normal, distance) = (*position - nearest).unit_and_length_f64();
            if distance == 0.0 {
                // the centre on the surface: out toward where it came from
                normal = (old - nearest).normalize_or_zero();
            }
            let depth = radius - distance;
            if depth > 0.0 && normal != V::ZERO {
                let push = normal * depth;
                if obstacles.first_hit(*position, push).is_none() {
                    *position += push;
                    pushed = true;
                    let into = velocity.dot(normal);
                    if into < 0.0 {
                        *velocity -= normal * into;
                    }
                }
            }
            if pass == 0 && touch.is_none_or(|(t, _)| id.0 < t.0) {
                touch = Some((id, o.is_wall()));
            }
        });
        if !pushed {
            break;
        }
    }
    match (blocked, touch) {
        (Contact::None, Some((id, true))) => Contact::Wall(id),
        (Contact::None, Some((id, false))) => Contact::Touch(id),
        _ => blocked,
    }
}

/// Passes of the body's push-out from the static world (one suffices away from corners).
const PUSH_PASSES: usize = 4;

/// A contact with the static world lasts while the gap stays under this fraction of the radius.
const CONTACT_HYSTERESIS: f32 = 0.1;

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
        let yaw_rate = yaw_rate + (turn - yaw_rate) * (dt / super::FAKE_TURN_TIME).min(1.0);
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
        share: impl Fn(&crate::neighbours::Neighbour<Self>) -> Option<f32>,
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
        let v = orca.velocity_3d(
            me,
            radius,
            preferred,
            limits.max_speed(),
            neighbours,
            share,
            dt,
            scratch,
        );
        SteeringOutput { linear: (v - me.velocity) / dt, angular: request.angular }
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
    fn update_formations(_: &mut super::Crowd<Self>, _: f32) {}
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
    fn avoidance_rays(
        leaf: &ObstacleAvoidance,
        me: &Kinematic<Vec3>,
        mut f: impl FnMut(crate::geometry::Ray3),
    ) {
        leaf.for_each_ray_3d(me, |ray, _| f(ray));
    }
}

/// Where a centre may be along one axis of a bounded world `[min, max]` for a body of
/// `radius` (m) to stay inside: `[min + r, max − r]`, or the middle when the axis is narrower
/// than the body. The lanes of the move (`advance.rs`) test the same two numbers.
#[inline]
pub(crate) fn body_range(min: f32, max: f32, radius: f32) -> (f32, f32) {
    let (lo, hi) = (min + radius, max - radius);
    if lo <= hi {
        (lo, hi)
    } else {
        let mid = 0.5 * (min + max);
        (mid, mid)
    }
}

/// The shape of the world agents live in.
///
/// - `Unbounded`: anywhere.
/// - `Bounded`: bodies are kept inside `[min, max]` (per axis: an agent whose body reaches a
///   face is put back touching it and its velocity component into the face is removed; radius
///   aware, like walls and solids).
/// - `Toroidal`: wrap-around on every axis; positions live in `[min, max)` and the offset
///   between two agents is the **minimum image** (per axis, `d ∓ size` when `|d| > size/2`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WorldBounds<V: Vector> {
    /// No bounds.
    Unbounded,
    /// A box whose faces stop agents' bodies.
    Bounded {
        /// Lower corner (m).
        min: V,
        /// Upper corner (m).
        max: V,
    },
    /// A wrap-around box (torus).
    Toroidal {
        /// Lower corner (m).
        min: V,
        /// Upper corner (m), exclusive.
        max: V,
    },
}

impl<V: CrowdVector> WorldBounds<V> {
    /// Checks the corners: finite, and `max > min` on every axis.
    ///
    /// # Errors
    /// [`ParamError`] naming `bounds_min` / `bounds_max`.
    pub fn validate(&self) -> Result<(), ParamError> {
        if let WorldBounds::Bounded { min, max } | WorldBounds::Toroidal { min, max } = *self {
            for i in 0..V::DIM {
                finite("bounds_min", min.axis(i))?;
                finite("bounds_max", max.axis(i))?;
                crate::error::at_least("bounds_max", max.axis(i), "bounds_min", min.axis(i))?;
                if !(max.axis(i) - min.axis(i)).is_finite() {
                    return Err(ParamError::Invalid {
                        name: "bounds_max",
                        expected: "within f32 range of `bounds_min` (max − min finite)",
                    });
                }
                if max.axis(i) == min.axis(i) {
                    return Err(ParamError::Contradictory {
                        name: "bounds_max",
                        value: max.axis(i),
                        other: "bounds_min",
                        other_value: min.axis(i),
                    });
                }
            }
        }
        Ok(())
    }

    /// True for a wrap-around world.
    #[must_use]
    pub fn is_toroidal(&self) -> bool {
        matches!(self, WorldBounds::Toroidal { .. })
    }

    /// `to − from`, by the minimum image in a toroidal world (both points inside the box).
    #[must_use]
    #[inline]
    pub fn offset(&self, from: V, to: V) -> V {
        let d = to - from;
        match *self {
            WorldBounds::Toroidal { min, max } => {
                let mut a = [0.0; 3];
                for (i, ai) in a.iter_mut().enumerate().take(V::DIM) {
                    let size = max.axis(i) - min.axis(i);
                    let x = d.axis(i);
                    *ai = if x > 0.5 * size {
                        x - size
                    } else if x < -0.5 * size {
                        x + size
                    } else {
                        x
                    };
                }
                V::from_axes(a)
            }
            _ => d,
        }
    }

    /// Puts a body back into the world: wraps its centre into `[min, max)` (toroidal; the
    /// radius plays no part) or keeps the whole body of `radius` (m) inside the box, its
    /// centre within `[min + r, max − r]` per axis (bounded; the middle of an axis narrower
    /// than the body), removing the velocity component that points out of a face. Returns
    /// true when a bounded face was touched.
    #[inline]
    pub fn confine(&self, position: &mut V, velocity: &mut V, radius: f32) -> bool {
        match *self {
            WorldBounds::Unbounded => false,
            WorldBounds::Bounded { min, max } => {
                let (mut p, mut v) = ([0.0; 3], [0.0; 3]);
                let mut touched = false;
                for i in 0..V::DIM {
                    p[i] = position.axis(i);
                    v[i] = velocity.axis(i);
                    let (lo, hi) = body_range(min.axis(i), max.axis(i), radius);
                    if p[i] < lo {
                        p[i] = lo;
                        v[i] = v[i].max(0.0);
                        touched = true;
                    } else if p[i] > hi {
                        p[i] = hi;
                        v[i] = v[i].min(0.0);
                        touched = true;
                    }
                }
                if touched {
                    *position = V::from_axes(p);
                    *velocity = V::from_axes(v);
                }
                touched
            }
            WorldBounds::Toroidal { min, max } => {
                let mut p = [0.0; 3];
                for (i, pi) in p.iter_mut().enumerate().take(V::DIM) {
                    let (lo, size) = (min.axis(i), max.axis(i) - min.axis(i));
                    let mut x = position.axis(i);
                    if !(lo..lo + size).contains(&x) {
                        x = lo + (x - lo).rem_euclid(size);
                        // rem_euclid can round up to `size`
                        if x >= lo + size {
                            x = lo;
                        }
                    }
                    *pi = x;
                }
                *position = V::from_axes(p);
                false
            }
        }
    }
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
