//! `f32` lanes for the crowd's data-parallel code (the neighbour scan, the moves of eight
//! agents at once), in two forms with the same lane semantics:
//! [`wide::f32x4`] (portable: SSE2, NEON or plain code) and, on an x86-64 that has AVX2
//! (checked at run time), [`Avx2`], eight lanes in one 256-bit register. Every operation is the
//! IEEE one lane by lane (no fused multiply-add, no approximate reciprocal), so a scan that
//! keeps the same running sum per lane gives the same bits with either form, and a lane that
//! does a scalar formula's operations in its order gives that formula's bits.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};

/// `WIDTH` `f32` lanes. Comparisons return masks (a set lane is all ones).
pub(crate) trait F32s:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
{
    const WIDTH: usize;
    const ZERO: Self;
    fn splat(x: f32) -> Self;
    /// The first `WIDTH` floats of `x` (which must hold that many).
    fn load(x: &[f32]) -> Self;
    /// Lane `l` holds `f(l)`: built in registers from scalars, so a lane filled by scalar
    /// stores just before is not loaded whole (the load would wait for the stores).
    fn from_fn(f: impl FnMut(usize) -> f32) -> Self;
    /// Writes the lanes to the first `WIDTH` floats of `out`.
    fn store(self, out: &mut [f32]);
    /// Lane `l` holds `l` (0.0, 1.0, …).
    fn ramp() -> Self;
    fn lt(self, rhs: Self) -> Self;
    fn le(self, rhs: Self) -> Self;
    /// Unordered not-equal: NaN lanes compare unequal.
    fn ne(self, rhs: Self) -> Self;
    fn is_nan(self) -> Self;
    /// The magnitude: the sign bit cleared (so `+0.0` from `−0.0`, NaN stays NaN).
    fn abs(self) -> Self;
    /// `max(self, rhs)` that returns `rhs` when either lane is NaN (x86's `maxps`).
    fn fast_max(self, rhs: Self) -> Self;
    /// `min(self, rhs)` that returns `rhs` when either lane is NaN (x86's `minps`).
    fn fast_min(self, rhs: Self) -> Self;
    fn sqrt(self) -> Self;
    /// Per lane: `if_true` where the mask `self` is set, else `if_false`.
    fn select(self, if_true: Self, if_false: Self) -> Self;
    /// Some lane of the mask is set.
    fn any(self) -> bool;
    /// Counts per lane: `self` holds `i32` counts in its lanes' bits, one is added where the
    /// mask is set (a set lane is −1 as an integer, so this is an integer subtraction).
    fn tally(self, mask: Self) -> Self;
    /// The lanes' `i32` counts (see [`tally`](Self::tally)) into the first `WIDTH` of `out`.
    fn store_counts(self, out: &mut [i32]);
    /// Each row's eight floats added in order from zero, `((0 + r[0]) + r[1]) + … + r[7]`,
    /// row `q` into lane `q` of the result: the same bits in either form (the AVX2 one
    /// transposes the rows and adds eight whole registers).
    #[inline(always)]
    fn totals(rows: &[[f32; 8]; 8]) -> [f32; 8] {
        rows.map(|r| r.iter().fold(0.0, |t, &v| t + v))
    }
}

/// Lane masks: all ones where `mask` is clear, clear where it is set.
#[inline(always)]
pub(crate) fn not<F: F32s>(mask: F) -> F {
    mask.select(F::ZERO, F::splat(f32::from_bits(u32::MAX)))
}

/// Set where the lane is finite (neither infinite nor NaN).
#[inline(always)]
pub(crate) fn finite<F: F32s>(v: F) -> F {
    v.abs().lt(F::splat(f32::INFINITY))
}

/// `f32::clamp(v, −max, max)` lane by lane (`max ≥ 0`).
#[inline(always)]
pub(crate) fn clamp<F: F32s>(v: F, max: F) -> F {
    let v = v.lt(-max).select(-max, v);
    max.lt(v).select(max, v)
}

/// 2D vectors `(x, y)` in lanes with their length limited to `max` as `Vector::clamp_length_max`
/// does it: `v·(max/|v|)` where `|v|² > max²`, the squared length in glam's order (`max` is
/// the limit after `max(0)`).
#[inline(always)]
pub(crate) fn clamp_len<F: F32s>(x: F, y: F, max: F) -> (F, F) {
    let len_sq = x * x + y * y;
    let over = (max * max).lt(len_sq);
    let s = max / len_sq.sqrt();
    (over.select(x * s, x), over.select(y * s, y))
}

/// 2D vectors in lanes normalised as glam's `normalize_or_zero`: `v·(1/|v|)` where that
/// reciprocal is finite and positive, else zero.
#[inline(always)]
pub(crate) fn normalize_or_zero<F: F32s>(x: F, y: F) -> (F, F) {
    let rcp = F::splat(1.0) / (x * x + y * y).sqrt();
    let ok = finite(rcp) & F::ZERO.lt(rcp);
    (ok.select(x * rcp, F::ZERO), ok.select(y * rcp, F::ZERO))
}

impl F32s for wide::f32x4 {
    const WIDTH: usize = 4;
    const ZERO: Self = wide::f32x4::ZERO;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        wide::f32x4::splat(x)
    }
    #[inline(always)]
    fn load(x: &[f32]) -> Self {
        wide::f32x4::new(x[..4].try_into().expect("four lanes"))
    }
    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> f32) -> Self {
        wide::f32x4::new(core::array::from_fn(f))
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        out[..4].copy_from_slice(&self.to_array());
    }
    #[inline(always)]
    fn ramp() -> Self {
        wide::f32x4::new([0.0, 1.0, 2.0, 3.0])
    }
    #[inline(always)]
    fn lt(self, rhs: Self) -> Self {
        wide::f32x4::simd_lt(self, rhs)
    }
    #[inline(always)]
    fn le(self, rhs: Self) -> Self {
        wide::f32x4::simd_le(self, rhs)
    }
    #[inline(always)]
    fn ne(self, rhs: Self) -> Self {
        wide::f32x4::simd_ne(self, rhs)
    }
    #[inline(always)]
    fn is_nan(self) -> Self {
        wide::f32x4::is_nan(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        wide::f32x4::abs(self)
    }
    #[inline(always)]
    fn fast_max(self, rhs: Self) -> Self {
        wide::f32x4::fast_max(self, rhs)
    }
    #[inline(always)]
    fn fast_min(self, rhs: Self) -> Self {
        wide::f32x4::fast_min(self, rhs)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        wide::f32x4::sqrt(self)
    }
    #[inline(always)]
    fn select(self, if_true: Self, if_false: Self) -> Self {
        wide::f32x4::select(self, if_true, if_false)
    }
    #[inline(always)]
    fn any(self) -> bool {
        wide::f32x4::any(self)
    }
    #[inline(always)]
    fn tally(self, mask: Self) -> Self {
        let ints = |x: Self| -> wide::i32x4 { wide::bytemuck::cast(x) };
        wide::bytemuck::cast(ints(self) - ints(mask))
    }
    #[inline(always)]
    fn store_counts(self, out: &mut [i32]) {
        let ints: wide::i32x4 = wide::bytemuck::cast(self);
        out[..4].copy_from_slice(&ints.to_array());
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;

/// The CPU has AVX2, so the scan may take [`Avx2`] lanes (detected once, then a cached load).
pub(crate) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return Avx2::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The AVX2 form. Its operations are the `core::arch` intrinsics, which need the CPU
    //! feature. The rule that makes each `unsafe` block below sound: `Avx2` is used only in
    //! code reached after [`Avx2::available`] said yes (the scan's `run_avx2` behind
    //! `Storage::avx2`, the moves' and the blends' `lanes_avx2` behind `Move::avx2` and the
    //! `avx2` argument of `blend::steer_eight`, all set from `Crowd::avx2`, and tests that ask
    //! first); it is crate-private, so the rule is this crate's to keep. Those entry points carry
    //! `#[target_feature(enable = "avx2")]`, so these inline into 256-bit code.

    use super::F32s;
    use core::arch::x86_64::*;
    use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};

    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(__m256);

    impl Avx2 {
        /// The CPU has AVX2 (detected once, then a cached load).
        #[inline]
        pub(crate) fn available() -> bool {
            std::arch::is_x86_feature_detected!("avx2")
        }
    }

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl $trait for Avx2 {
                type Output = Self;
                #[inline(always)]
                fn $method(self, rhs: Self) -> Self {
                    // SAFETY: `Avx2` is used only where the CPU has AVX2 (module docs)
                    Avx2(unsafe { $intrinsic(self.0, rhs.0) })
                }
            }
        };
    }
    binary!(Add, add, _mm256_add_ps);
    binary!(Sub, sub, _mm256_sub_ps);
    binary!(Mul, mul, _mm256_mul_ps);
    binary!(Div, div, _mm256_div_ps);
    binary!(BitAnd, bitand, _mm256_and_ps);
    binary!(BitOr, bitor, _mm256_or_ps);

    impl Neg for Avx2 {
        type Output = Self;
        #[inline(always)]
        fn neg(self) -> Self {
            // flips the sign bit, as `wide` does (so −0.0 from +0.0)
            // SAFETY: as above
            Avx2(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
    }

    // SAFETY (every block of this impl): `Avx2` is used only where the CPU has AVX2 (module
    // docs); `load` and `store` check that the slice holds the eight floats they touch
    impl F32s for Avx2 {
        const WIDTH: usize = 8;
        const ZERO: Self = Avx2(unsafe { core::mem::transmute::<[f32; 8], __m256>([0.0; 8]) });
        #[inline(always)]
        fn splat(x: f32) -> Self {
            Avx2(unsafe { _mm256_set1_ps(x) })
        }
        #[inline(always)]
        fn load(x: &[f32]) -> Self {
            // the slice is checked to hold the eight floats read
            let x: &[f32; 8] = x[..8].try_into().expect("eight lanes");
            Avx2(unsafe { _mm256_loadu_ps(x.as_ptr()) })
        }
        #[inline(always)]
        fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
            let (a, b, c, d) = (f(0), f(1), f(2), f(3));
            let (e, g, h, i) = (f(4), f(5), f(6), f(7));
            Avx2(unsafe { _mm256_setr_ps(a, b, c, d, e, g, h, i) })
        }
        #[inline(always)]
        fn store(self, out: &mut [f32]) {
            let out: &mut [f32; 8] = (&mut out[..8]).try_into().expect("eight lanes");
            unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) };
        }
        #[inline(always)]
        fn ramp() -> Self {
            Avx2(unsafe { _mm256_setr_ps(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0) })
        }
        #[inline(always)]
        fn lt(self, rhs: Self) -> Self {
            Avx2(unsafe { _mm256_cmp_ps::<_CMP_LT_OS>(self.0, rhs.0) })
        }
        #[inline(always)]
        fn le(self, rhs: Self) -> Self {
            Avx2(unsafe { _mm256_cmp_ps::<_CMP_LE_OS>(self.0, rhs.0) })
        }
        #[inline(always)]
        fn ne(self, rhs: Self) -> Self {
            Avx2(unsafe { _mm256_cmp_ps::<_CMP_NEQ_UQ>(self.0, rhs.0) })
        }
        #[inline(always)]
        fn is_nan(self) -> Self {
            Avx2(unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) })
        }
        #[inline(always)]
        fn abs(self) -> Self {
            Avx2(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }
        #[inline(always)]
        fn fast_max(self, rhs: Self) -> Self {
            Avx2(unsafe { _mm256_max_ps(self.0, rhs.0) })
        }
        #[inline(always)]
        fn fast_min(self, rhs: Self) -> Self {
            Avx2(unsafe { _mm256_min_ps(self.0, rhs.0) })
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            Avx2(unsafe { _mm256_sqrt_ps(self.0) })
        }
        #[inline(always)]
        fn select(self, if_true: Self, if_false: Self) -> Self {
            Avx2(unsafe { _mm256_blendv_ps(if_false.0, if_true.0, self.0) })
        }
        #[inline(always)]
        fn any(self) -> bool {
            unsafe { _mm256_movemask_ps(self.0) != 0 }
        }
        #[inline(always)]
        fn tally(self, mask: Self) -> Self {
            Avx2(unsafe {
                _mm256_castsi256_ps(_mm256_sub_epi32(
                    _mm256_castps_si256(self.0),
                    _mm256_castps_si256(mask.0),
                ))
            })
        }
        #[inline(always)]
        fn store_counts(self, out: &mut [i32]) {
            let out: &mut [i32; 8] = (&mut out[..8]).try_into().expect("eight lanes");
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm256_castps_si256(self.0)) };
        }
        #[inline(always)]
        fn totals(rows: &[[f32; 8]; 8]) -> [f32; 8] {
            // no closures: a closure is a function of its own, without the caller's AVX2
            unsafe {
                let row = |q: usize| rows[q].as_ptr();
                let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
                let (r4, r5, r6, r7) = (row(4), row(5), row(6), row(7));
                let (r0, r1) = (_mm256_loadu_ps(r0), _mm256_loadu_ps(r1));
                let (r2, r3) = (_mm256_loadu_ps(r2), _mm256_loadu_ps(r3));
                let (r4, r5) = (_mm256_loadu_ps(r4), _mm256_loadu_ps(r5));
                let (r6, r7) = (_mm256_loadu_ps(r6), _mm256_loadu_ps(r7));
                // the 8×8 transpose: lane l of every row into register c_l
                let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
                let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
                let (s0, s1) =
                    (_mm256_shuffle_ps::<0x44>(t0, t2), _mm256_shuffle_ps::<0xEE>(t0, t2));
                let (s2, s3) =
                    (_mm256_shuffle_ps::<0x44>(t1, t3), _mm256_shuffle_ps::<0xEE>(t1, t3));
                let (s4, s5) =
                    (_mm256_shuffle_ps::<0x44>(t4, t6), _mm256_shuffle_ps::<0xEE>(t4, t6));
                let (s6, s7) =
                    (_mm256_shuffle_ps::<0x44>(t5, t7), _mm256_shuffle_ps::<0xEE>(t5, t7));
                let c0 = _mm256_permute2f128_ps::<0x20>(s0, s4);
                let c1 = _mm256_permute2f128_ps::<0x20>(s1, s5);
                let c2 = _mm256_permute2f128_ps::<0x20>(s2, s6);
                let c3 = _mm256_permute2f128_ps::<0x20>(s3, s7);
                let c4 = _mm256_permute2f128_ps::<0x31>(s0, s4);
                let c5 = _mm256_permute2f128_ps::<0x31>(s1, s5);
                let c6 = _mm256_permute2f128_ps::<0x31>(s2, s6);
                let c7 = _mm256_permute2f128_ps::<0x31>(s3, s7);
                // every row's sum in lane order at once
                let mut t = _mm256_add_ps(_mm256_setzero_ps(), c0);
                t = _mm256_add_ps(t, c1);
                t = _mm256_add_ps(t, c2);
                t = _mm256_add_ps(t, c3);
                t = _mm256_add_ps(t, c4);
                t = _mm256_add_ps(t, c5);
                t = _mm256_add_ps(t, c6);
                t = _mm256_add_ps(t, c7);
                let mut out = [0.0; 8];
                _mm256_storeu_ps(out.as_mut_ptr(), t);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rng;

    /// Every operation of the two forms, lane for lane the same bits (AVX2 machines only).
    #[test]
    fn both_forms_give_the_same_bits() {
        #[cfg(target_arch = "x86_64")]
        {
            if !Avx2::available() {
                return;
            }
            fn ops<F: F32s>(a: &[f32; 8], b: &[f32; 8]) -> Vec<[u32; 8]> {
                let mut out = vec![[0u32; 8]; 17];
                let src = *b;
                for h in (0..8).step_by(F::WIDTH) {
                    let (a, b) = (F::load(&a[h..]), F::load(&b[h..]));
                    let results = [
                        a + b,
                        a - b,
                        a * b,
                        a / b,
                        -a,
                        a.lt(b),
                        a.le(b),
                        a.ne(b),
                        a.is_nan(),
                        a.abs(),
                        a.fast_max(b),
                        a.fast_min(b),
                        a.sqrt(),
                        a.lt(b).select(a, b),
                        a.lt(b) & a | b,
                        F::ramp() + F::splat(h as f32) + F::ZERO,
                        F::from_fn(|l| src[h + l]),
                    ];
                    for (r, o) in results.into_iter().zip(out.iter_mut()) {
                        let mut lanes = [0.0f32; 8];
                        r.store(&mut lanes);
                        for l in 0..F::WIDTH {
                            o[h + l] = lanes[l].to_bits();
                        }
                    }
                }
                out
            }
            fn any<F: F32s>(a: &[f32; 8], b: &[f32; 8]) -> bool {
                (0..8).step_by(F::WIDTH).any(|h| F::load(&a[h..]).lt(F::load(&b[h..])).any())
            }
            let mut rng = Rng::new(3);
            let specials = [0.0, -0.0, 1.0, -1.0, f32::NAN, f32::INFINITY, f32::MIN_POSITIVE];
            let pick = |rng: &mut Rng| -> [f32; 8] {
                core::array::from_fn(|_| match rng.next_u32() % 4 {
                    0 => specials[(rng.next_u32() % specials.len() as u32) as usize],
                    _ => (rng.uniform() - 0.5) * 10.0,
                })
            };
            for _ in 0..2000 {
                let (a, b) = (pick(&mut rng), pick(&mut rng));
                assert_eq!(ops::<wide::f32x4>(&a, &b), ops::<Avx2>(&a, &b), "on {a:?}, {b:?}");
                assert_eq!(any::<wide::f32x4>(&a, &b), any::<Avx2>(&a, &b));
            }
            // the transposed totals add each row in lane order (rows of −0.0 stay +0.0)
            let bits = |t: [f32; 8]| t.map(f32::to_bits);
            for _ in 0..500 {
                let rows: [[f32; 8]; 8] = core::array::from_fn(|_| pick(&mut rng));
                let expected = rows.map(|r| r.iter().fold(0.0f32, |t, &v| t + v));
                assert_eq!(bits(Avx2::totals(&rows)), bits(expected), "on {rows:?}");
                assert_eq!(bits(wide::f32x4::totals(&rows)), bits(expected));
            }
            assert_eq!(bits(Avx2::totals(&[[-0.0; 8]; 8])), [0; 8]);
        }
    }
}
