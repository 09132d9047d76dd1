//! Step phase 2's flat blend (`recipe::FlatBlend`: summing separations, cohesion by
//! full-acceleration seek, heading alignment) for eight 2D agents of one group at once, in
//! lanes (`crate::lanes`), from their neighbour sums. Each lane does the scalar leaves' and
//! blend's operations in their order, a leaf's `None` a mask, so the steering and the target
//! are the scalar evaluation's bits.

use super::recipe::{LaneLeaf, Summary};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::lanes::{clamp_len, normalize_or_zero, F32s};
use crate::math::Vector;
use glam::{Vec2, Vec3};

/// Agents blended at once.
const EIGHT: usize = 8;

/// The lane form of phase 2's flat blend, per space (a supertrait of `CrowdVector`, reachable
/// only inside the crate): 2D has one, 3D evaluates agent by agent.
pub trait BlendSpace: Vector {
    /// The space has a lane form of the flat blend ([`steer_eight`](Self::steer_eight)).
    const BLENDS_IN_LANES: bool = false;
    /// The flat blend of eight agents of one group at once, in lanes, bit for bit as
    /// `FlatBlend::evaluate` ([`steer_eight`]): each agent's steering and target, from `me`,
    /// `limits` and the neighbour sums (the first eight of `sums`). `None` where the space has
    /// no lane form.
    // sealed (the module is private), so its crate-private types stay so
    #[allow(private_interfaces)]
    fn steer_eight(
        _leaves: &[(f32, LaneLeaf)],
        _me: &[Kinematic<Self>; EIGHT],
        _limits: &[Limits; EIGHT],
        _sums: &[Summary<Self>],
        _avx2: bool,
    ) -> Option<[(SteeringOutput<Self>, Option<Self>); EIGHT]> {
        None
    }
}

impl BlendSpace for Vec2 {
    const BLENDS_IN_LANES: bool = true;
    #[inline]
    #[allow(private_interfaces)]
    fn steer_eight(
        leaves: &[(f32, LaneLeaf)],
        me: &[Kinematic<Self>; EIGHT],
        limits: &[Limits; EIGHT],
        sums: &[Summary<Self>],
        avx2: bool,
    ) -> Option<[(SteeringOutput<Self>, Option<Self>); EIGHT]> {
        Some(steer_eight(leaves, me, limits, sums, avx2))
    }
}

impl BlendSpace for Vec3 {}

/// Eight agents' state, limits and neighbour sums (agent `l` at index `l`). The lanes take
/// them from here value by value (`F32s::from_fn`): a lane array filled by scalar stores and
/// loaded whole would wait for those stores.
struct In8<'a> {
    me: &'a [Kinematic<Vec2>; EIGHT],
    limits: &'a [Limits; EIGHT],
    sums: &'a [Summary<Vec2>],
}

/// Eight agents' results, one array per quantity (lane `l` is agent `l`): the blended
/// acceleration and cohesion's target (the neighbours' centre).
#[derive(Clone, Copy, Default)]
struct Out8 {
    ax: [f32; EIGHT],
    ay: [f32; EIGHT],
    tx: [f32; EIGHT],
    ty: [f32; EIGHT],
}

/// The blend `leaves` (weight, leaf) of eight agents from their sums (the first eight of
/// `sums`), each as `FlatBlend::evaluate` gives it: the steering and the target (cohesion's
/// centre where some neighbour was summed). `avx2`: the CPU has AVX2 (`crate::lanes::avx2`).
pub(crate) fn steer_eight(
    leaves: &[(f32, LaneLeaf)],
    me: &[Kinematic<Vec2>; EIGHT],
    limits: &[Limits; EIGHT],
    sums: &[Summary<Vec2>],
    avx2: bool,
) -> [(SteeringOutput<Vec2>, Option<Vec2>); EIGHT] {
    let sums = &sums[..EIGHT];
    let inputs = In8 { me, limits, sums };
    let mut x = Out8::default();
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller says the CPU has AVX2
        unsafe { lanes_avx2(&inputs, &mut x, leaves) };
    } else {
        lanes::<wide::f32x4>(&inputs, &mut x, leaves);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = avx2;
        lanes::<wide::f32x4>(&inputs, &mut x, leaves);
    }
    let centre = leaves.iter().any(|(_, leaf)| matches!(leaf, LaneLeaf::Cohesion));
    core::array::from_fn(|l| {
        let steering = SteeringOutput { linear: Vec2::new(x.ax[l], x.ay[l]), angular: 0.0 };
        (steering, (centre && sums[l].count > 0).then(|| Vec2::new(x.tx[l], x.ty[l])))
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn lanes_avx2(i: &In8<'_>, x: &mut Out8, leaves: &[(f32, LaneLeaf)]) {
    lanes::<crate::lanes::Avx2>(i, x, leaves);
}

/// The arithmetic, `F::WIDTH` agents at a time (no closures around lane operations: they
/// would lose `lanes_avx2`'s target feature; the ones that read a value for `from_fn` hold
/// none).
#[inline(always)]
fn lanes<F: F32s>(i: &In8<'_>, x: &mut Out8, leaves: &[(f32, LaneLeaf)]) {
    let zero = F::ZERO;
    let set = f32::from_bits(u32::MAX);
    for h in (0..EIGHT).step_by(F::WIDTH) {
        let (k, m, s) = (&i.me[h..], &i.limits[h..], &i.sums[h..]);
        let (px, py) = (F::from_fn(|l| k[l].position.x), F::from_fn(|l| k[l].position.y));
        let n = F::from_fn(|l| s[l].count as f32);
        let some = zero.lt(n);
        // `max_acceleration` as seek takes it, and after `max(0)` as the clamps take it
        let accel = F::from_fn(|l| m[l].max_acceleration());
        let clamp = F::from_fn(|l| m[l].max_acceleration().max(0.0));
        // the neighbours' centre, `me.position + Σ offsets / n`
        let cx = px + F::from_fn(|l| s[l].offset.x) / n;
        let cy = py + F::from_fn(|l| s[l].offset.y) / n;
        // the blend: Σ leaf·weight from zero, in member order, a `None` leaf adding 0·weight
        let (mut ax, mut ay) = (zero, zero);
        for &(w, leaf) in leaves {
            let (on, lx, ly) = match leaf {
                LaneLeaf::Separation(j) => {
                    let sx = F::from_fn(|l| s[l].separation[j].summed().0.x);
                    let sy = F::from_fn(|l| s[l].separation[j].summed().0.y);
                    let (lx, ly) = clamp_len(sx, sy, clamp);
                    let pushed =
                        F::from_fn(|l| if s[l].separation[j].summed().1 { set } else { 0.0 });
                    (pushed, lx, ly)
                }
                LaneLeaf::Cohesion => {
                    // seek the centre: no direction, no steering
                    let (dx, dy) = normalize_or_zero(cx - px, cy - py);
                    (some & (dx.ne(zero) | dy.ne(zero)), dx * accel, dy * accel)
                }
                LaneLeaf::Alignment(time_to_target) => {
                    let mx = F::from_fn(|l| s[l].heading.x) / n;
                    let my = F::from_fn(|l| s[l].heading.y) / n;
                    let vx = F::from_fn(|l| k[l].velocity.x);
                    let vy = F::from_fn(|l| k[l].velocity.y);
                    let (ux, uy) = normalize_or_zero(vx, vy);
                    let speed = F::from_fn(|l| m[l].max_speed());
                    let k = speed / F::splat(time_to_target);
                    let (lx, ly) = clamp_len((mx - ux) * k, (my - uy) * k, clamp);
                    (some, lx, ly)
                }
            };
            let w = F::splat(w);
            ax = ax + on.select(lx, zero) * w;
            ay = ay + on.select(ly, zero) * w;
        }
        let (ax, ay) = clamp_len(ax, ay, clamp);
        ax.store(&mut x.ax[h..]);
        ay.store(&mut x.ay[h..]);
        cx.store(&mut x.tx[h..]);
        cy.store(&mut x.ty[h..]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::recipe::{Direct, FlatBlend, Notes, Plan, Recipe};
    use super::*;
    use crate::math::Rng;
    use crate::steering::{Alignment, Cohesion, Falloff, Seek, Separation, SeparationSum};

    /// Eight agents' flat blends in lanes against `Direct::evaluate` on each, for blends of
    /// every lane leaf (two separations, weights of either sign), with neighbour sums from the
    /// edges (no neighbour, the agent on its neighbours' centre, no push, still agents,
    /// accelerations far over the limits, zero limits), in both lane forms, bit for bit.
    #[test]
    fn lane_blends_steer_as_the_scalar_blend() {
        let near = Separation::new(0.5, Falloff::Linear).unwrap();
        let far = Separation::new(2.0, Falloff::InverseSquare(0.3)).unwrap();
        let blends: Vec<Recipe<Vec2>> = vec![
            Recipe::Blend(vec![
                (2.0, Recipe::Separation(near)),
                (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
                (1.0, Recipe::Alignment(Alignment::heading(0.5).unwrap())),
            ]),
            Recipe::Blend(vec![
                (1.0, Recipe::Alignment(Alignment::heading(0.2).unwrap())),
                (-0.7, Recipe::Separation(far)),
                (3.0, Recipe::Separation(near)),
                (0.0, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
            ]),
            Recipe::Blend(vec![(1.5, Recipe::Separation(far))]),
        ];
        let mut rng = Rng::new(23);
        let specials = [0.0, -0.0, 1e-20, 3.0, -3.0, 1e6];
        let pick = |rng: &mut Rng, scale: f32| match rng.next_u32() % 5 {
            0 => specials[(rng.next_u32() % specials.len() as u32) as usize],
            _ => (rng.uniform() - 0.5) * scale,
        };
        for recipe in &blends {
            let plan = Plan::new(recipe, &[]).unwrap();
            let direct = Direct::of(recipe, &plan).expect("a direct recipe");
            let Direct::Blend(flat) = &direct else { panic!("a flat blend") };
            let leaves = FlatBlend::lanes(flat).expect("a lane form").to_vec();
            for _ in 0..500 {
                let me: [Kinematic<Vec2>; EIGHT] = core::array::from_fn(|_| Kinematic {
                    position: Vec2::new(pick(&mut rng, 100.0), pick(&mut rng, 100.0)),
                    orientation: 0.0,
                    velocity: Vec2::new(pick(&mut rng, 4.0), pick(&mut rng, 4.0)),
                    rotation: 0.0,
                });
                let limits: [Limits; EIGHT] = core::array::from_fn(|_| {
                    let (s, a) = (pick(&mut rng, 8.0).abs(), pick(&mut rng, 8.0).abs());
                    Limits::new(s, a, 1.0, 1.0).unwrap()
                });
                let sums: Vec<Summary<Vec2>> = (0..EIGHT)
                    .map(|l| {
                        let count = rng.next_u32() % 4;
                        let mut s = Summary {
                            count,
                            offset: Vec2::new(pick(&mut rng, 30.0), pick(&mut rng, 30.0)),
                            heading: Vec2::new(pick(&mut rng, 5.0), pick(&mut rng, 5.0)),
                            ..Summary::default()
                        };
                        if l == 3 {
                            // on its neighbours' centre: cohesion has no direction
                            s.offset = Vec2::ZERO;
                        }
                        for sep in &mut s.separation {
                            let push = Vec2::new(pick(&mut rng, 20.0), pick(&mut rng, 20.0));
                            *sep = SeparationSum::from_sum(push, rng.next_u32() % 3 != 0);
                        }
                        s
                    })
                    .collect();
                for avx2 in [false, crate::lanes::avx2()] {
                    let out = steer_eight(&leaves, &me, &limits, &sums, avx2);
                    for l in 0..EIGHT {
                        let mut notes = Notes::default();
                        let want = direct.evaluate(&me[l], &limits[l], None, &sums[l], &mut notes);
                        let bits = |s: &SteeringOutput<Vec2>| {
                            [s.linear.x, s.linear.y, s.angular].map(f32::to_bits)
                        };
                        assert_eq!(bits(&out[l].0), bits(&want), "{recipe:?}: {:?}", sums[l]);
                        let target = |t: Option<Vec2>| t.map(|t| t.to_array().map(f32::to_bits));
                        assert_eq!(target(out[l].1), target(notes.target));
                    }
                }
            }
        }
    }
}
