//! Step phase 2's flat blend (`recipe::FlatBlend`: summing separations, cohesion by
//! full-acceleration seek, heading alignment) for eight 2D agents of one group at once, in
//! lanes (`crate::lanes`), from their neighbour sums. Each lane does the scalar leaves' and
//! blend's operations in their order, a leaf's `None` a mask, so the steering and the target
//! are the scalar evaluation's bits.

use super::recipe::{LaneLeaf, Summary, MAX_SEPARATIONS};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::lanes::{clamp_len, normalize_or_zero, F32s};
use glam::Vec2;

/// Agents blended at once.
const EIGHT: usize = 8;

/// Eight agents' inputs and results, one array per quantity (lane `l` is agent `l`).
#[derive(Clone, Copy, Default)]
struct Blend8 {
    px: [f32; EIGHT],
    py: [f32; EIGHT],
    vx: [f32; EIGHT],
    vy: [f32; EIGHT],
    /// Neighbours summed.
    n: [f32; EIGHT],
    /// Σ offsets, Σ unit velocities.
    ox: [f32; EIGHT],
    oy: [f32; EIGHT],
    hx: [f32; EIGHT],
    hy: [f32; EIGHT],
    /// Each separation's summed pushes, and a mask set where some neighbour pushed.
    sx: [[f32; EIGHT]; MAX_SEPARATIONS],
    sy: [[f32; EIGHT]; MAX_SEPARATIONS],
    pushed: [[f32; EIGHT]; MAX_SEPARATIONS],
    /// `max_acceleration` as seek takes it, and after `max(0)` as the clamps take it.
    accel: [f32; EIGHT],
    clamp: [f32; EIGHT],
    speed: [f32; EIGHT],
    /// On return: the blended acceleration and cohesion's target (the neighbours' centre).
    ax: [f32; EIGHT],
    ay: [f32; EIGHT],
    tx: [f32; EIGHT],
    ty: [f32; EIGHT],
}

/// The blend `leaves` (weight, leaf) of eight agents from their sums, each as
/// `FlatBlend::evaluate` gives it: the steering and the target (cohesion's centre where some
/// neighbour was summed). `avx2`: the CPU has AVX2 (`crate::lanes::avx2`).
pub(crate) fn steer_eight(
    leaves: &[(f32, LaneLeaf)],
    me: &[Kinematic<Vec2>; EIGHT],
    limits: &[Limits; EIGHT],
    sums: &[Summary<Vec2>],
    avx2: bool,
) -> [(SteeringOutput<Vec2>, Option<Vec2>); EIGHT] {
    let mut x = Blend8::default();
    let mask = |on: bool| if on { f32::from_bits(u32::MAX) } else { 0.0 };
    for (l, ((k, m), s)) in me.iter().zip(limits).zip(&sums[..EIGHT]).enumerate() {
        (x.px[l], x.py[l], x.vx[l], x.vy[l]) =
            (k.position.x, k.position.y, k.velocity.x, k.velocity.y);
        x.n[l] = s.count as f32;
        (x.ox[l], x.oy[l], x.hx[l], x.hy[l]) = (s.offset.x, s.offset.y, s.heading.x, s.heading.y);
        for (j, sep) in s.separation.iter().enumerate() {
            let (sum, any) = sep.summed();
            (x.sx[j][l], x.sy[j][l], x.pushed[j][l]) = (sum.x, sum.y, mask(any));
        }
        x.accel[l] = m.max_acceleration();
        x.clamp[l] = m.max_acceleration().max(0.0);
        x.speed[l] = m.max_speed();
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller says the CPU has AVX2
        unsafe { lanes_avx2(&mut x, leaves) };
    } else {
        lanes::<wide::f32x4>(&mut x, leaves);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = avx2;
        lanes::<wide::f32x4>(&mut x, leaves);
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
fn lanes_avx2(x: &mut Blend8, leaves: &[(f32, LaneLeaf)]) {
    lanes::<crate::lanes::Avx2>(x, leaves);
}

/// The arithmetic, `F::WIDTH` agents at a time (no closures: they would lose `lanes_avx2`'s
/// target feature).
#[inline(always)]
fn lanes<F: F32s>(x: &mut Blend8, leaves: &[(f32, LaneLeaf)]) {
    let zero = F::ZERO;
    for h in (0..EIGHT).step_by(F::WIDTH) {
        let (px, py) = (F::load(&x.px[h..]), F::load(&x.py[h..]));
        let n = F::load(&x.n[h..]);
        let some = zero.lt(n);
        let (accel, clamp) = (F::load(&x.accel[h..]), F::load(&x.clamp[h..]));
        // the neighbours' centre, `me.position + Σ offsets / n`
        let cx = px + F::load(&x.ox[h..]) / n;
        let cy = py + F::load(&x.oy[h..]) / n;
        // the blend: Σ leaf·weight from zero, in member order, a `None` leaf adding 0·weight
        let (mut ax, mut ay) = (zero, zero);
        for &(w, leaf) in leaves {
            let (on, lx, ly) = match leaf {
                LaneLeaf::Separation(j) => {
                    let (lx, ly) = clamp_len(F::load(&x.sx[j][h..]), F::load(&x.sy[j][h..]), clamp);
                    (F::load(&x.pushed[j][h..]), lx, ly)
                }
                LaneLeaf::Cohesion => {
                    // seek the centre: no direction, no steering
                    let (dx, dy) = normalize_or_zero(cx - px, cy - py);
                    (some & (dx.ne(zero) | dy.ne(zero)), dx * accel, dy * accel)
                }
                LaneLeaf::Alignment(time_to_target) => {
                    let (mx, my) = (F::load(&x.hx[h..]) / n, F::load(&x.hy[h..]) / n);
                    let (ux, uy) = normalize_or_zero(F::load(&x.vx[h..]), F::load(&x.vy[h..]));
                    let k = F::load(&x.speed[h..]) / F::splat(time_to_target);
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
