//! The data-parallel scan: eight candidates at a time in lanes, the range test and view cone
//! as masks, one instance per separation law.

use super::*;
use crate::crowd::recipe::{Plan, Summary};
use crate::crowd::CrowdVector;
use crate::kinematic::Limits;
use crate::lanes::F32s;
use crate::neighbours::ViewCone;
use crate::steering::{LawVisitor, PushLaw, SeparationSum};

/// No separation in the recipe.
#[derive(Clone, Copy)]
struct NoPush;

impl PushLaw for NoPush {
    const RADII: bool = false;
    #[inline(always)]
    fn near<F: F32s>(&self, _: F, _: F) -> F {
        F::ZERO
    }
    #[inline(always)]
    fn push<F: F32s>(&self, _: F, _: F) -> (F, F) {
        (F::ZERO, F::ZERO)
    }
    #[inline(always)]
    fn for_agent(self, _: f32, _: &Limits) -> Self {
        self
    }
}

/// Whether [`summarise_run`] takes a group's agents: its plan sums at most one separation and
/// no topological neighbourhood, and it has no view cone (the agents' sums all come from the
/// data-parallel scan, in one form for the whole group).
pub(crate) fn runs_in_lanes(plan: &Plan, view_half_angle: Option<f32>) -> bool {
    plan.needs_neighbours
        && !plan.needs_list
        && plan.nearest.is_none()
        && view_half_angle.is_none()
        && match plan.separations.as_slice() {
            [] => true,
            [sep] => sep.sums(),
            _ => false,
        }
}

/// [`summarise`] for the consecutive agents `first..first + sums.len()` of one group that
/// [`runs_in_lanes`] (`limits[k]`: agent `first + k`'s): the separation's law and the scan's
/// form are chosen once for the run rather than per agent; the same sums, bit for bit.
#[inline]
pub(crate) fn summarise_run<V: CrowdVector>(
    s: &Storage<'_, V>,
    block: &mut Block<V>,
    first: usize,
    radius: f32,
    plan: &Plan,
    limits: &[Limits],
    sums: &mut [Summary<V>],
) {
    let taken = (Run { s, block, first, radius, cone: None, plan, limits, sums }).scan();
    debug_assert!(taken, "a group that runs in lanes takes the data-parallel scan");
}

/// The agents `first..first + sums.len()` of one group, for the data-parallel scan: the
/// separation's law and the scan's form are chosen once for them (`LawVisitor`).
pub(super) struct Run<'r, V: CrowdVector> {
    pub(super) s: &'r Storage<'r, V>,
    pub(super) block: &'r mut Block<V>,
    pub(super) first: usize,
    pub(super) radius: f32,
    /// The view cone, if narrower than all round (a run of one agent).
    pub(super) cone: Option<&'r ViewCone<V>>,
    pub(super) plan: &'r Plan,
    /// Each agent's limits, as many as `sums`.
    pub(super) limits: &'r [Limits],
    pub(super) sums: &'r mut [Summary<V>],
}

impl<V: CrowdVector> LawVisitor<()> for &mut Run<'_, V> {
    #[inline]
    fn visit<L: PushLaw>(self, law: L) {
        let s = self.s;
        let head = self.plan.needs_headings && !s.soa.unit[0].is_empty();
        let vel = self.plan.needs_velocities && !s.soa.velocity[0].is_empty();
        match (head, vel) {
            (false, false) => self.dispatch::<L, false, false>(law),
            (true, false) => self.dispatch::<L, true, false>(law),
            (false, true) => self.dispatch::<L, false, true>(law),
            (true, true) => self.dispatch::<L, true, true>(law),
        }
    }
}

impl<V: CrowdVector> Run<'_, V> {
    /// The data-parallel scan for the run's agents, `false` (nothing done) when the plan has
    /// more than one separation or one that keeps the nearest only.
    #[inline]
    pub(super) fn scan(mut self) -> bool {
        let (own, limits) = (self.s.radius[self.first], &self.limits[0]);
        match self.plan.separations.as_slice() {
            [] => {
                (&mut self).visit(NoPush);
                true
            }
            [sep] => sep.with_law(own, limits, &mut self).is_some(),
            _ => false,
        }
    }

    #[inline(always)]
    fn dispatch<L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        #[cfg(target_arch = "x86_64")]
        if self.s.avx2 {
            // SAFETY: `Storage::avx2` is true only where the CPU has AVX2
            unsafe { self.each_avx2::<L, HEAD, VEL>(law) };
            return;
        }
        self.each::<wide::f32x4, L, HEAD, VEL>(law);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn each_avx2<L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        self.each::<crate::lanes::Avx2, L, HEAD, VEL>(law);
    }

    /// Each agent's scan as [`summarise`] takes it, with the law made for the agent.
    #[inline(always)]
    fn each<F: F32s, L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        let (s, plan, radius) = (self.s, self.plan, self.radius);
        let r2 = radius * radius;
        for (k, sum) in self.sums.iter_mut().enumerate() {
            let i = self.first + k;
            let (centre, limits) = (s.position[i], &self.limits[k]);
            self.block.prepare(s, i, centre);
            if self.block.min_image {
                summarise(s, self.block, i, centre, radius, None, plan, limits, sum);
                continue;
            }
            let law = law.for_agent(s.radius[i], limits);
            let runs = &self.block.runs;
            let mut lanes = Lanes { s, runs, i, centre, r2, cone: self.cone, plan, sum };
            lanes.run::<F, L, HEAD, VEL>(law);
        }
    }
}

/// The data-parallel scan of a block: every sum of [`Summary`] over the agents of its runs
/// within `r2` of `centre` (agent `i` excluded), a lane's worth of agents at a time straight
/// from the storage's arrays, [`LANES`] running sums per quantity (added in lane order at the
/// end); the range test and the run's end are masks, not branches.
struct Lanes<'a, V: CrowdVector> {
    s: &'a Storage<'a, V>,
    runs: &'a [(u32, u32, [f32; 3])],
    i: usize,
    centre: V,
    r2: f32,
    /// The agent's view cone, if it has one narrower than all round.
    cone: Option<&'a ViewCone<V>>,
    plan: &'a Plan,
    sum: &'a mut Summary<V>,
}

impl<V: CrowdVector> Lanes<'_, V> {
    /// The scan with lanes of `F`: [`LANES`] running sums per quantity, whose lane `l` takes
    /// the candidates `a + l`, `a + l + LANES`, … of each run `a..b`. Narrower lanes take the
    /// sums in parts (lanes 0–3, then 4–7), each over every run: the same additions in the
    /// same order per lane, so the same bits.
    #[inline(always)]
    fn run<F: F32s, L: PushLaw, const HEAD: bool, const VEL: bool>(&mut self, law: L) {
        let (s, runs, i, centre, r2) = (self.s, self.runs, self.i, self.centre, self.r2);
        let cone = self.cone;
        let Columns { p, v, u, radii } = Columns::of::<L, HEAD, VEL>(s.soa, V::DIM);
        // no closures here: a closure is a function of its own, without the AVX2 target
        // feature of `run_avx2`, and the lane operations would stay calls
        #[inline(always)]
        fn lane<F: F32s>(v: &[f32], k: usize) -> F {
            F::load(&v[k..k + F::WIDTH])
        }
        let (zero, r2, ramp) = (F::ZERO, F::splat(r2), F::ramp());
        let (facing, cos) = cone_lanes::<F, V>(cone);
        // per lane, the candidates within and whether some neighbour pushed; and the sums by
        // row, one per quantity and axis the scan sums (see `RowAt`)
        let (mut counts, mut pushed) = ([0i32; LANES], false);
        let mut rows = [[[0.0f32; LANES]; 8]; 2];
        let at = RowAt::of::<HEAD, VEL>(V::DIM);
        for part in (0..LANES).step_by(F::WIDTH) {
            let (mut count, mut acting) = (zero, zero);
            let (mut offset, mut velocity, mut heading, mut push) =
                ([zero; 3], [zero; 3], [zero; 3], [zero; 3]);
            for &(a, b, shift) in runs {
                // o = p + shift − centre, as p − (centre − shift)
                let mut c = [zero; 3];
                for (ax, c) in c.iter_mut().enumerate().take(V::DIM) {
                    *c = F::splat(centre.axis(ax) - shift[ax]);
                }
                let (mut k, b) = (a as usize + part, b as usize);
                while k < b {
                    let mut o = [zero; 3];
                    let mut d2 = zero;
                    for ax in 0..V::DIM {
                        o[ax] = lane::<F>(p[ax], k) - c[ax];
                        d2 = d2 + o[ax] * o[ax];
                    }
                    let mut within = d2.le(r2);
                    if cone.is_some() {
                        // in `Vector::dot`'s order
                        let mut along = o[0] * facing[0];
                        for ax in 1..V::DIM {
                            along = along + o[ax] * facing[ax];
                        }
                        within = within & (cos * d2.sqrt()).le(along);
                    }
                    let own = i.wrapping_sub(k);
                    if k + F::WIDTH > b || own < F::WIDTH {
                        // lanes past the run's end and agent i's own lane are masked off
                        // (lane numbers are small whole numbers, exact in f32)
                        let own = if own < F::WIDTH { own as f32 } else { -1.0 };
                        within =
                            within & ramp.lt(F::splat((b - k) as f32)) & ramp.ne(F::splat(own));
                    }
                    count = count.tally(within);
                    let radius = if L::RADII { lane::<F>(radii, k) } else { zero };
                    // most candidates are beyond separation's reach: skip its square root
                    // and divisions for a whole lane's worth of them at once
                    if (law.near(d2, radius) & within).any() {
                        let (acts, factor) = law.push(d2, radius);
                        let acts = acts & within;
                        acting = acting | acts;
                        for ax in 0..V::DIM {
                            push[ax] = push[ax] + (acts & (-o[ax] * factor));
                        }
                    }
                    for ax in 0..V::DIM {
                        offset[ax] = offset[ax] + (within & o[ax]);
                        if VEL {
                            velocity[ax] = velocity[ax] + (within & lane::<F>(v[ax], k));
                        }
                        if HEAD {
                            heading[ax] = heading[ax] + (within & lane::<F>(u[ax], k));
                        }
                    }
                    k += LANES;
                }
            }
            count.store_counts(&mut counts[part..]);
            pushed |= acting.any();
            let part_sums = [offset, velocity, heading, push];
            at.store::<F, HEAD, VEL>(&mut rows, part, V::DIM, &part_sums);
        }
        self.finish::<F, HEAD, VEL>(&counts, pushed, &rows, &at);
    }

    /// Writes the scan's totals to the agent's summary: each row's lanes added in lane order,
    /// eight rows at a time.
    #[inline(always)]
    fn finish<F: F32s, const HEAD: bool, const VEL: bool>(
        &mut self,
        counts: &[i32; LANES],
        pushed: bool,
        rows: &[[[f32; LANES]; 8]; 2],
        at: &RowAt,
    ) {
        let (dim, plan, sum) = (V::DIM, self.plan, &mut *self.sum);
        let mut t = [0.0; 16];
        t[..8].copy_from_slice(&F::totals(&rows[0]));
        if at.push + dim > 8 {
            t[8..].copy_from_slice(&F::totals(&rows[1]));
        }
        let vector = |at: usize| V::from_axes([t[at], t[at + 1], t[at + 2]]);
        sum.count = counts.iter().sum::<i32>() as u32;
        sum.offset = vector(0);
        if VEL {
            sum.velocity = vector(at.velocity);
        }
        if HEAD {
            sum.heading = vector(at.heading);
        }
        if !plan.separations.is_empty() {
            sum.separation[0] = SeparationSum::from_sum(vector(at.push), pushed);
        }
    }
}

/// The storage's columns the scan reads, every array cut to the same length once: the chunk
/// loop's bounds checks become one test per chunk (the same for every array) on a length held
/// in a register. Columns the scan does not sum are empty.
struct Columns<'a> {
    p: [&'a [f32]; 3],
    v: [&'a [f32]; 3],
    u: [&'a [f32]; 3],
    radii: &'a [f32],
}

impl<'a> Columns<'a> {
    #[inline(always)]
    fn of<L: PushLaw, const HEAD: bool, const VEL: bool>(soa: &'a Soa, dim: usize) -> Self {
        let len = soa.position[0].len();
        #[inline(always)]
        fn cut(v: &[f32], len: usize, on: bool) -> &[f32] {
            if on {
                &v[..len]
            } else {
                &[]
            }
        }
        let (mut p, mut v, mut u) = ([&[][..]; 3], [&[][..]; 3], [&[][..]; 3]);
        for ax in 0..dim {
            p[ax] = cut(&soa.position[ax], len, true);
            v[ax] = cut(&soa.velocity[ax], len, VEL);
            u[ax] = cut(&soa.unit[ax], len, HEAD);
        }
        let radii = cut(&soa.radius, len, L::RADII);
        Columns { p, v, u, radii }
    }
}

/// The view cone in lanes, as `ViewCone::contains` tests it (`o · facing ≥ cos(half angle) ·
/// |o|`): the facing by axis and the cosine; zeros without a cone.
#[inline(always)]
fn cone_lanes<F: F32s, V: CrowdVector>(cone: Option<&ViewCone<V>>) -> ([F; 3], F) {
    let (mut facing, mut cos) = ([F::ZERO; 3], F::ZERO);
    if let Some(c) = cone {
        for (ax, f) in facing.iter_mut().enumerate().take(V::DIM) {
            *f = F::splat(c.facing().axis(ax));
        }
        cos = F::splat(c.cos_half_angle());
    }
    (facing, cos)
}

/// Where each quantity's rows start among the scan's sums by row: offset, then velocity,
/// heading and push as the recipe asks, packed so that a 2D scan's rows are added in one
/// `F32s::totals` (the second eight are used in 3D only).
struct RowAt {
    velocity: usize,
    heading: usize,
    push: usize,
}

impl RowAt {
    #[inline(always)]
    fn of<const HEAD: bool, const VEL: bool>(dim: usize) -> Self {
        let velocity = dim;
        let heading = velocity + if VEL { dim } else { 0 };
        let push = heading + if HEAD { dim } else { 0 };
        RowAt { velocity, heading, push }
    }

    /// Stores one part's lane sums (offset, velocity, heading, push by axis) in their rows.
    #[inline(always)]
    fn store<F: F32s, const HEAD: bool, const VEL: bool>(
        &self,
        rows: &mut [[[f32; LANES]; 8]; 2],
        part: usize,
        dim: usize,
        sums: &[[F; 3]; 4],
    ) {
        #[inline(always)]
        fn row<F: F32s>(rows: &mut [[[f32; LANES]; 8]; 2], q: usize, part: usize, x: F) {
            x.store(&mut rows[q / 8][q % 8][part..]);
        }
        let [offset, velocity, heading, push] = sums;
        for ax in 0..dim {
            row(rows, ax, part, offset[ax]);
            if VEL {
                row(rows, self.velocity + ax, part, velocity[ax]);
            }
            if HEAD {
                row(rows, self.heading + ax, part, heading[ax]);
            }
            row(rows, self.push + ax, part, push[ax]);
        }
    }
}
