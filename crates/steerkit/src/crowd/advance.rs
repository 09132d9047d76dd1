//! Step phase 3 for eight 2D agents of one group at once, in lanes (`crate::lanes`): the
//! integration ([`Kinematic::integrate_with`]), the world's bounds, the facing of the new
//! velocity and the squared displacement. Each lane does the scalar phase's operations in
//! their order (IEEE operations are exact lane by lane, branches become selects), so the
//! results are the same bits; the rare branches (the torus seam, a bounded face, a wrapped
//! orientation, a result not finite) go back to the scalar code for the agents that take them.
//! Commit uses it where the world has no obstacles; arrivals and stuck agents stay per agent.

use super::space::{body_range, facing_angle, WorldBounds};
use super::{AgentDebug, Cold};
use crate::kinematic::{drag_weights, Integration, Kinematic, Limits, Scheme};
use crate::lanes::{clamp, clamp_len, finite, not, F32s};
use crate::math::{wrap_angle, Vector};
use core::f32::consts::{FRAC_PI_2, PI};
use glam::{Vec2, Vec3};

/// Agents advanced at once.
pub(crate) const EIGHT: usize = 8;

/// The lane form of phase 3's move, per space (a supertrait of `CrowdVector`, reachable only
/// inside the crate): 2D has one, 3D moves agent by agent.
pub trait MoveSpace: Vector {
    /// The space has a lane form of the move ([`move_eight`](Self::move_eight)).
    const MOVES_IN_LANES: bool = false;
    /// The move of eight agents of one group at once, in lanes, bit for bit as the scalar
    /// phase ([`move_eight`]; `moved` gets the squared displacements), where
    /// [`MOVES_IN_LANES`](Self::MOVES_IN_LANES). `false`, with nothing written, when a result
    /// is not finite.
    // sealed (the module is private), so its crate-private types stay so
    #[allow(private_interfaces)]
    fn move_eight(
        _linear: (&mut [Self], &mut [Self]),
        _angular: (&mut [Self::Orientation], &mut [Self::Angular]),
        _debug: &[AgentDebug<Self>],
        _cold: &[Cold],
        _step: &Move<'_, Self>,
        _moved: &mut [f32; EIGHT],
    ) -> bool {
        false
    }
}

impl MoveSpace for Vec2 {
    const MOVES_IN_LANES: bool = true;
    #[inline]
    #[allow(private_interfaces)]
    fn move_eight(
        (position, velocity): (&mut [Self], &mut [Self]),
        (orientation, rotation): (&mut [f32], &mut [f32]),
        debug: &[AgentDebug<Self>],
        cold: &[Cold],
        step: &Move<'_, Self>,
        moved: &mut [f32; EIGHT],
    ) -> bool {
        move_eight(position, velocity, orientation, rotation, debug, cold, step, moved)
    }
}

impl MoveSpace for Vec3 {}

/// Eight agents' state and requests (agent `l` at index `l`). The lanes take them from
/// here value by value (`F32s::from_fn`): a lane array filled by scalar stores and loaded
/// whole would wait for those stores.
struct In8<'a> {
    position: &'a [Vec2],
    velocity: &'a [Vec2],
    orientation: &'a [f32],
    rotation: &'a [f32],
    debug: &'a [AgentDebug<Vec2>],
    limits: &'a [Limits; EIGHT],
    /// Body radii (m): a bounded world keeps the whole body in.
    radius: &'a [f32],
}

/// Eight agents' results, one array per quantity (lane `l` is agent `l`).
#[derive(Clone, Copy, Default)]
struct Lanes8 {
    /// Position (m): the integrated one (before a fix).
    px: [f32; EIGHT],
    py: [f32; EIGHT],
    /// Velocity (m/s), likewise.
    vx: [f32; EIGHT],
    vy: [f32; EIGHT],
    /// Orientation (rad): the new one (faced, or wrapped where that needs no fix).
    o: [f32; EIGHT],
    /// The integrated orientation before wrapping.
    raw: [f32; EIGHT],
    /// Rotation (rad/s).
    w: [f32; EIGHT],
    /// The facing of the new velocity (tests read it).
    face: [f32; EIGHT],
    /// The squared displacement (m²).
    moved: [f32; EIGHT],
    /// A mask, set where the agent needs the scalar step after the integration (it crossed
    /// the torus seam or met a bounded face, its orientation left (−π, π], or a result is
    /// not finite).
    fix: [f32; EIGHT],
}

/// The world's bounds as the lanes test them (`WorldBounds::confine` and `offset` per axis).
#[derive(Clone, Copy)]
enum Box2 {
    Open,
    /// A torus: `[lo, hi)` per axis (`hi = lo + size`, as `confine` rounds it).
    Wrap {
        lo: [f32; 2],
        hi: [f32; 2],
        size: [f32; 2],
    },
    /// A box whose faces stop agents' bodies: `[min, max]` per axis, each centre within
    /// `body_range` of its radius.
    Stop {
        min: [f32; 2],
        max: [f32; 2],
    },
}

/// The group's weights for the step (`drag_weights` of each drag, and the exact scheme's `φ/dt`
/// and `ψ/dt` for the rotation), its facing and the world's bounds.
#[derive(Clone, Copy)]
struct Weights {
    scheme: Scheme,
    dt: f32,
    linear: (f32, f32, f32),
    angular: (f32, f32, f32),
    mean: (f32, f32),
    face: bool,
    bounds: Box2,
}

impl Weights {
    fn new(integration: &Integration, dt: f32, face: bool, bounds: &WorldBounds<Vec2>) -> Self {
        let angular = drag_weights(integration.angular_drag, dt);
        let bounds = match *bounds {
            WorldBounds::Unbounded => Box2::Open,
            WorldBounds::Toroidal { min, max } => {
                let size = (max - min).to_array();
                let lo = min.to_array();
                Box2::Wrap { lo, hi: [lo[0] + size[0], lo[1] + size[1]], size }
            }
            WorldBounds::Bounded { min, max } => {
                Box2::Stop { min: min.to_array(), max: max.to_array() }
            }
        };
        Weights {
            scheme: integration.scheme,
            dt,
            linear: drag_weights(integration.linear_drag, dt),
            angular,
            mean: (angular.1 / dt, angular.2 / dt),
            face,
            bounds,
        }
    }
}

/// What phase 3 needs of the step and the group for eight agents of one group.
pub(crate) struct Move<'a, V: Vector> {
    pub integration: &'a Integration,
    /// The group faces the motion (`face_motion` without a fake rotation).
    pub face: bool,
    pub bounds: &'a WorldBounds<V>,
    /// The eight agents' body radii (m).
    pub radius: &'a [f32],
    /// Positive and finite.
    pub dt: f32,
    /// The CPU has AVX2 (`crate::lanes::avx2`).
    pub avx2: bool,
}

/// Phase 3's move of eight agents (`position` … `cold` hold exactly them) as commit makes it
/// one by one: integrated ([`Kinematic::integrate_with`]), put back into the world
/// ([`WorldBounds::confine`]), faced along the new velocity, written back; `moved` gets each
/// squared displacement. The arithmetic runs in lanes, the rare branches (a wrap across the
/// torus seam, a bounded face, an orientation leaving (−π, π]) per agent, so the results are
/// the scalar phase's bits. `false`, with nothing written, when a result is not finite: the
/// scalar phase then quarantines the agent.
#[allow(clippy::too_many_arguments)]
pub(crate) fn move_eight(
    position: &mut [Vec2],
    velocity: &mut [Vec2],
    orientation: &mut [f32],
    rotation: &mut [f32],
    debug: &[AgentDebug<Vec2>],
    cold: &[Cold],
    m: &Move<'_, Vec2>,
    moved: &mut [f32; EIGHT],
) -> bool {
    let dt = m.dt;
    debug_assert!(dt > 0.0 && dt.is_finite());
    let (position, velocity) = (&mut position[..EIGHT], &mut velocity[..EIGHT]);
    let (orientation, rotation) = (&mut orientation[..EIGHT], &mut rotation[..EIGHT]);
    let mut x = Lanes8::default();
    let limits = core::array::from_fn(|l| cold[l].limits);
    let inputs =
        In8 { position, velocity, orientation, rotation, debug, limits: &limits, radius: m.radius };
    let w = Weights::new(m.integration, dt, m.face, m.bounds);
    if !run(&inputs, &mut x, &w, m.avx2) {
        for (l, &old) in position.iter().enumerate() {
            if x.fix[l].to_bits() == 0 {
                continue;
            }
            // the scalar step after the integration
            let (mut p, mut v) = (Vec2::new(x.px[l], x.py[l]), Vec2::new(x.vx[l], x.vy[l]));
            m.bounds.confine(&mut p, &mut v, m.radius[l]);
            // `rotate_orientation`'s wrap, then the facing
            let mut o = wrap_angle(x.raw[l]);
            if m.face && v.length_squared() > 1e-12 {
                o = facing_angle(v);
            }
            let k = Kinematic { position: p, orientation: o, velocity: v, rotation: x.w[l] };
            if !k.is_finite() {
                return false;
            }
            (x.px[l], x.py[l], x.vx[l], x.vy[l], x.o[l]) = (p.x, p.y, v.x, v.y, o);
            x.moved[l] = m.bounds.offset(old, p).length_squared();
        }
    }
    for l in 0..EIGHT {
        (position[l], velocity[l]) = (Vec2::new(x.px[l], x.py[l]), Vec2::new(x.vx[l], x.vy[l]));
    }
    orientation.copy_from_slice(&x.o);
    rotation.copy_from_slice(&x.w);
    *moved = x.moved;
    true
}

/// The lanes on `x` (AVX2 where `avx2`): `true` when no agent needs a fix.
#[inline]
fn run(i: &In8<'_>, x: &mut Lanes8, w: &Weights, avx2: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller says the CPU has AVX2
        return unsafe { lanes_avx2(i, x, w) };
    }
    let _ = avx2;
    lanes::<wide::f32x4>(i, x, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn lanes_avx2(i: &In8<'_>, x: &mut Lanes8, w: &Weights) -> bool {
    lanes::<crate::lanes::Avx2>(i, x, w)
}

/// The arithmetic, `F::WIDTH` agents at a time; `true` when no agent needs a fix. No
/// closures around lane operations: they would lose `lanes_avx2`'s target feature (the ones
/// that read a value for `from_fn` hold none).
#[inline(always)]
fn lanes<F: F32s>(i: &In8<'_>, x: &mut Lanes8, w: &Weights) -> bool {
    let (decay, phi, psi) = (F::splat(w.linear.0), F::splat(w.linear.1), F::splat(w.linear.2));
    let (adecay, aphi) = (F::splat(w.angular.0), F::splat(w.angular.1));
    let (mphi, mpsi) = (F::splat(w.mean.0), F::splat(w.mean.1));
    let (dt, pi) = (F::splat(w.dt), F::splat(PI));
    let mut fixes = F::ZERO;
    for h in (0..EIGHT).step_by(F::WIDTH) {
        let (p, v, s, m) = (&i.position[h..], &i.velocity[h..], &i.debug[h..], &i.limits[h..]);
        let (px, py) = (F::from_fn(|l| p[l].x), F::from_fn(|l| p[l].y));
        let (vx, vy) = (F::from_fn(|l| v[l].x), F::from_fn(|l| v[l].y));
        let (o, w0) = (F::load(&i.orientation[h..]), F::load(&i.rotation[h..]));
        // the linear limits after `max(0)`, as `clamp_len` takes them
        let accel = F::from_fn(|l| m[l].max_acceleration().max(0.0));
        let speed = F::from_fn(|l| m[l].max_speed().max(0.0));
        let (ax, ay) =
            (F::from_fn(|l| s[l].steering.linear.x), F::from_fn(|l| s[l].steering.linear.y));
        let (ax, ay) = clamp_len(ax, ay, accel);
        let alpha = clamp(
            F::from_fn(|l| s[l].steering.angular),
            F::from_fn(|l| m[l].max_angular_acceleration()),
        );
        let (v1x, v1y) = clamp_len(vx * decay + ax * phi, vy * decay + ay * phi, speed);
        let (dx, dy) = match w.scheme {
            Scheme::Exact => (vx * phi + ax * psi, vy * phi + ay * psi),
            Scheme::NewtonEuler1 => (vx * dt, vy * dt),
            Scheme::SemiImplicit => (v1x * dt, v1y * dt),
        };
        let w1 = clamp(w0 * adecay + alpha * aphi, F::from_fn(|l| m[l].max_rotation()));
        let mean = match w.scheme {
            Scheme::Exact => w0 * mphi + alpha * mpsi,
            Scheme::NewtonEuler1 => w0,
            Scheme::SemiImplicit => w1,
        };
        let (nx, ny, raw) = (px + dx, py + dy, o + mean * dt);
        // `wrap_angle` keeps an angle in (−π, π] as it is
        let mut fix = raw.le(-pi) | pi.lt(raw) | raw.is_nan();
        // the world: inside it nothing changes; the displacement across it
        let (mut mx, mut my) = (nx - px, ny - py);
        match w.bounds {
            Box2::Open => {}
            Box2::Wrap { lo, hi, size } => {
                for (a, (n, d)) in [(nx, &mut mx), (ny, &mut my)].into_iter().enumerate() {
                    let inside = F::splat(lo[a]).le(n) & n.lt(F::splat(hi[a]));
                    fix = fix | not(inside);
                    let (half, size) = (F::splat(0.5 * size[a]), F::splat(size[a]));
                    let e = *d;
                    *d = half.lt(e).select(e - size, e.lt(-half).select(e + size, e));
                }
            }
            Box2::Stop { min, max } => {
                let r = &i.radius[h..];
                for (a, n) in [nx, ny].into_iter().enumerate() {
                    let lo = F::from_fn(|l| body_range(min[a], max[a], r[l]).0);
                    let hi = F::from_fn(|l| body_range(min[a], max[a], r[l]).1);
                    fix = fix | n.lt(lo) | hi.lt(n);
                }
            }
        }
        let faced = if w.face { F::splat(1e-12).lt(v1x * v1x + v1y * v1y) } else { F::ZERO };
        let face = facing::<F>(v1x, v1y);
        let o1 = faced.select(face, raw);
        let ok = finite(nx) & finite(ny) & finite(v1x) & finite(v1y) & finite(o1) & finite(w1);
        fix = fix | not(ok);
        fixes = fixes | fix;
        nx.store(&mut x.px[h..]);
        ny.store(&mut x.py[h..]);
        v1x.store(&mut x.vx[h..]);
        v1y.store(&mut x.vy[h..]);
        o1.store(&mut x.o[h..]);
        raw.store(&mut x.raw[h..]);
        w1.store(&mut x.w[h..]);
        face.store(&mut x.face[h..]);
        (mx * mx + my * my).store(&mut x.moved[h..]);
        fix.store(&mut x.fix[h..]);
    }
    !fixes.any()
}

/// `space::facing_angle` lane by lane: its branches as selects, its polynomial in its order.
#[inline(always)]
fn facing<F: F32s>(x: F, y: F) -> F {
    let zero = F::ZERO;
    let (ax, ay) = (x.abs(), y.abs());
    let steep = ax.lt(ay);
    let (num, den) = (steep.select(ax, ay), steep.select(ay, ax));
    let none = den.is_nan() | den.le(zero);
    let t = num / den;
    let s = t * t;
    let p = F::splat(-0.016_165_737) + s * F::splat(0.002_866_225_7);
    let p = F::splat(0.042_909_614) + s * p;
    let p = F::splat(-0.075_289_64) + s * p;
    let p = F::splat(0.106_562_64) + s * p;
    let p = F::splat(-0.142_089) + s * p;
    let p = F::splat(0.199_935_51) + s * p;
    let p = F::splat(-0.333_331_45) + s * p;
    let a = t + t * s * p;
    let a = steep.select(F::splat(FRAC_PI_2) - a, a);
    let a = x.lt(zero).select(F::splat(PI) - a, a);
    let a = y.lt(zero).select(-a, a);
    none.select(zero, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinematic::{Limits, SteeringOutput};
    use crate::math::Rng;

    fn random_case(rng: &mut Rng) -> (Kinematic<Vec2>, SteeringOutput<Vec2>, Limits) {
        // values from the edges too: zeros of either sign, still agents, requests far over
        // the limits, orientations that leave (−π, π], zero limits
        let specials = [0.0, -0.0, 1e-7, -1e-7, 3.0, -3.0, 1e6, -1e6];
        let mut pick = |scale: f32| match rng.next_u32() % 4 {
            0 => specials[(rng.next_u32() % specials.len() as u32) as usize],
            _ => (rng.uniform() - 0.5) * scale,
        };
        let kin = Kinematic {
            position: Vec2::new(pick(200.0), pick(200.0)),
            orientation: pick(8.0),
            velocity: Vec2::new(pick(6.0), pick(6.0)),
            rotation: pick(6.0),
        };
        let steering =
            SteeringOutput { linear: Vec2::new(pick(20.0), pick(20.0)), angular: pick(30.0) };
        let limits =
            Limits::new(pick(8.0).abs(), pick(8.0).abs(), pick(8.0).abs(), pick(30.0).abs())
                .expect("non-negative limits");
        (kin, steering, limits)
    }

    /// The lane arithmetic on eight cases: the integrated kinematics (orientation wrapped) and
    /// the facings of the new velocities.
    fn integrate(
        cases: &[(Kinematic<Vec2>, SteeringOutput<Vec2>, Limits); EIGHT],
        integration: &Integration,
        dt: f32,
        avx2: bool,
    ) -> ([Kinematic<Vec2>; EIGHT], [f32; EIGHT]) {
        let position = cases.map(|c| c.0.position);
        let velocity = cases.map(|c| c.0.velocity);
        let orientation = cases.map(|c| c.0.orientation);
        let rotation = cases.map(|c| c.0.rotation);
        let debug = cases.map(|c| AgentDebug { steering: c.1, target: None });
        let limits = cases.map(|c| c.2);
        let inputs = In8 {
            position: &position,
            velocity: &velocity,
            orientation: &orientation,
            rotation: &rotation,
            debug: &debug,
            limits: &limits,
            radius: &[0.0; EIGHT],
        };
        let mut x = Lanes8::default();
        let w = Weights::new(integration, dt, false, &WorldBounds::Unbounded);
        run(&inputs, &mut x, &w, avx2);
        let kin = core::array::from_fn(|l| Kinematic {
            position: Vec2::new(x.px[l], x.py[l]),
            orientation: wrap_angle(x.raw[l]),
            velocity: Vec2::new(x.vx[l], x.vy[l]),
            rotation: x.w[l],
        });
        (kin, x.face)
    }

    /// Eight agents in lanes against `integrate_with` and `facing_angle` on each: every
    /// scheme, with and without drag, both lane forms, bit for bit.
    #[test]
    fn lanes_integrate_and_face_as_the_scalar_forms() {
        let mut rng = Rng::new(11);
        let forms = [false, crate::lanes::avx2()];
        for scheme in [Scheme::NewtonEuler1, Scheme::Exact, Scheme::SemiImplicit] {
            for (linear, angular) in [(0.0, 0.0), (0.5, 2.0), (1e-6, 0.0)] {
                let integration = Integration::new(scheme, linear, angular).unwrap();
                for round in 0..400 {
                    let dt = [1.0 / 30.0, 0.1, 1e-3][round % 3];
                    let cases: [_; EIGHT] = core::array::from_fn(|_| random_case(&mut rng));
                    let mut expected = cases.map(|c| c.0);
                    let mut faced = [0.0f32; EIGHT];
                    for l in 0..EIGHT {
                        expected[l].integrate_with(&cases[l].1, &cases[l].2, &integration, dt);
                        faced[l] = facing_angle(expected[l].velocity);
                    }
                    for avx2 in forms {
                        let (kin, face) = integrate(&cases, &integration, dt, avx2);
                        for l in 0..EIGHT {
                            let (a, b) = (&kin[l], &expected[l]);
                            let bits = |k: &Kinematic<Vec2>| {
                                [k.position.x, k.position.y, k.velocity.x, k.velocity.y]
                                    .map(f32::to_bits)
                                    .into_iter()
                                    .chain([k.orientation.to_bits(), k.rotation.to_bits()])
                                    .collect::<Vec<_>>()
                            };
                            assert_eq!(bits(a), bits(b), "{scheme:?} avx2={avx2}: {:?}", cases[l]);
                            assert_eq!(face[l].to_bits(), faced[l].to_bits(), "facing {b:?}");
                        }
                    }
                }
            }
        }
    }

    /// The facing of directions on and near the axes and diagonals, in every quadrant, and of
    /// zero and NaN directions, as `facing_angle` gives them.
    #[test]
    fn lane_facing_matches_on_the_edges() {
        let values = [0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 2.5, -2.5, f32::NAN, f32::INFINITY];
        for &x in &values {
            for &y in &values {
                let mut out = [0.0f32; 4];
                let lanes = facing(wide::f32x4::splat(x), wide::f32x4::splat(y));
                lanes.store(&mut out);
                assert_eq!(out[0].to_bits(), facing_angle(Vec2::new(x, y)).to_bits(), "({x}, {y})");
            }
        }
    }

    /// Whole 2D crowds stepped with the agents in lanes (the flat blends of `blend` and the
    /// moves) and with the scalar phases alone give the same bits and the same events: open, bounded and wrap-around worlds small enough that
    /// agents meet the faces and cross the seam every few steps, every integration scheme with
    /// and without drag, facing the motion or turning by their own steering (look where you
    /// are going), goals with arrival and stuck detection, groups interleaved in storage so
    /// that runs of eight break, agents of several radii and limits (each with its own
    /// separation law: radius-aware in one group), and quarantined agents among them.
    #[test]
    fn agent_lanes_step_crowds_as_the_scalar_phases() {
        use super::super::{AgentSpec, Crowd, CrowdConfig, Group, Recipe, Stuck, Target};
        use crate::steering::{
            Align, Alignment, Cohesion, Falloff, LookWhereYoureGoing, Seek, Separation,
        };
        let side = 12.0;
        let worlds = [
            WorldBounds::Unbounded,
            WorldBounds::Bounded { min: Vec2::ZERO, max: Vec2::splat(side) },
            WorldBounds::Toroidal {
                min: Vec2::new(-3.0, 1.0),
                max: Vec2::new(side - 3.0, side + 1.0),
            },
            // a torus narrower than two steps' move: displacements across it are wrapped
            // without leaving it
            WorldBounds::Toroidal { min: Vec2::ZERO, max: Vec2::splat(0.3) },
            // too narrow for distinct images of the neighbourhood even in half cells: each
            // candidate's nearest image is taken
            WorldBounds::Toroidal { min: Vec2::ZERO, max: Vec2::splat(0.25) },
        ];
        let flock = || {
            Recipe::Blend(vec![
                (2.0, Recipe::Separation(Separation::new(0.5, Falloff::Linear).unwrap())),
                (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
                (1.0, Recipe::Alignment(Alignment::heading(0.5).unwrap())),
            ])
        };
        let aware = || {
            let separation = Separation::new(0.6, Falloff::Inverse(0.5)).unwrap();
            Recipe::Blend(vec![
                (2.0, Recipe::Separation(separation.radius_aware(0.05).unwrap())),
                (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
                (1.0, Recipe::Alignment(Alignment::heading(0.5).unwrap())),
            ])
        };
        let look = LookWhereYoureGoing::new(Align::new(0.01, 0.5, 0.1).unwrap());
        let mut rng = Rng::new(17);
        let mut runs = 0;
        for (w, bounds) in worlds.into_iter().enumerate() {
            for scheme in [Scheme::NewtonEuler1, Scheme::Exact, Scheme::SemiImplicit] {
                let radius = if w >= 3 { 0.1 } else { 2.0 };
                let config = CrowdConfig::new(radius).with_bounds(bounds).with_seed(w as u64);
                let mut crowd = Crowd::<Vec2>::new(config).unwrap();
                let drag = Integration::new(scheme, 0.4, 1.5).unwrap();
                let mut groups = Vec::new();
                for (k, recipe) in [
                    flock(),
                    Recipe::Seek { target: Target::Goal, seek: Seek::new() },
                    Recipe::Blend(vec![(1.0, flock()), (1.0, Recipe::LookWhereYoureGoing(look))]),
                    aware(),
                ]
                .into_iter()
                .enumerate()
                {
                    let mut group = Group::new(recipe);
                    group.integration =
                        if k == 1 { drag } else { Integration::new(scheme, 0.0, 0.0).unwrap() };
                    group.face_motion = k != 2;
                    group.arrive_radius = 1.0;
                    group.stuck = (k == 1).then_some(Stuck { time: 0.2, min_speed: 0.5 });
                    groups.push(crowd.add_group(group).unwrap());
                }
                for a in 0..400 {
                    let limits = Limits::new(6.0, 10.0 + 20.0 * rng.uniform(), 4.0, 30.0).unwrap();
                    let mut p = Vec2::new(rng.uniform(), rng.uniform()) * side;
                    bounds.confine(&mut p, &mut { Vec2::ZERO }, 0.0);
                    let v = Vec2::new(rng.clamped(), rng.clamped()) * 4.0;
                    // a third of the world each, with a few of another group between
                    let third = ((p.x / side * 3.0) as usize).min(2);
                    let g = match a {
                        _ if a % 13 == 0 => groups[(third + 1) % 3],
                        _ if a % 5 == 0 => groups[3],
                        _ => groups[third],
                    };
                    let goal = Some(Vec2::new(rng.uniform(), rng.uniform()) * side);
                    let r = 0.1 + 0.2 * rng.uniform();
                    let spec = AgentSpec { velocity: v, goal, ..AgentSpec::new(p, r, limits, g) };
                    let h = crowd.spawn(spec).unwrap();
                    if a % 97 == 0 {
                        let mut k = crowd.kinematic(h).unwrap();
                        k.velocity.x = f32::NAN;
                        crowd.write_kinematic(h, k).unwrap();
                    }
                }
                let mut scalar = crowd.clone();
                scalar.order.agent_lanes = false;
                for step in 0..90 {
                    // runs of eight agents of one group in storage, taken as commit takes them
                    let mut k = 0;
                    while k + EIGHT <= crowd.len() {
                        let group = crowd.agents.cold[k].group;
                        match (k..k + EIGHT).find(|&j| crowd.agents.cold[j].group != group) {
                            Some(j) => k = j,
                            None => (runs, k) = (runs + 1, k + EIGHT),
                        }
                    }
                    let dt = if step % 30 == 29 { 0.0 } else { 1.0 / 30.0 };
                    let a = crowd.step(dt).unwrap().to_vec();
                    let b = scalar.step(dt).unwrap().to_vec();
                    assert_eq!(a, b, "events, world {w}, {scheme:?}, step {step}");
                    // the largest move, which bounds the non-penetration's search
                    let largest = |c: &Crowd<Vec2>| {
                        c.work.chunks.iter().map(|s| s.max_move.to_bits()).collect::<Vec<_>>()
                    };
                    assert_eq!(largest(&crowd), largest(&scalar), "world {w}, step {step}");
                    for i in 0..crowd.len() {
                        let bits = |c: &Crowd<Vec2>| {
                            let (p, v) = (c.agents.position[i], c.agents.velocity[i]);
                            [p.x, p.y, v.x, v.y, c.agents.orientation[i], c.agents.rotation[i]]
                                .map(f32::to_bits)
                        };
                        assert_eq!(
                            bits(&crowd),
                            bits(&scalar),
                            "agent {i}, world {w}, {scheme:?}, step {step}"
                        );
                    }
                }
            }
        }
        assert!(runs > 2000, "{runs} runs of eight moved in lanes");
    }
}
