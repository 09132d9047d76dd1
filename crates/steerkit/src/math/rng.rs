//! The small seedable generator that every stochastic behaviour owns.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;

/// A small, fast, seedable random generator (PCG-32, 16 bytes).
///
/// There is no global generator anywhere in steerkit: each stochastic behaviour owns one, so the
/// same seed always gives the same sequence, whatever the thread count. The stream is stable
/// across platforms.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rng(Pcg32);

impl Rng {
    /// A generator seeded from a `u64`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Rng(Pcg32::seed_from_u64(seed))
    }

    /// Uniform on [0, 1), with 24 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f32 {
        (self.0.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// Uniform on [−1, 1) (Buckland's `RandomClamped`).
    #[inline]
    pub fn clamped(&mut self) -> f32 {
        self.uniform() * 2.0 - 1.0
    }

    /// Millington's `randomBinomial`: `uniform() − uniform()`, a triangular distribution on
    /// (−1, 1) peaked at 0 (mean 0, variance 1/6), so small changes are likelier than large ones.
    #[inline]
    #[doc(alias = "random_binomial")]
    pub fn binomial(&mut self) -> f32 {
        self.uniform() - self.uniform()
    }

    /// A raw 32-bit value.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_binomial_statistics() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
        let mut r = Rng::new(1);
        let n = 200_000;
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for _ in 0..n {
            let x = r.binomial();
            assert!(x > -1.0 && x < 1.0);
            sum += x as f64;
            sum_sq += (x * x) as f64;
        }
        let mean = sum / n as f64;
        let var = sum_sq / n as f64 - mean * mean;
        assert!(mean.abs() < 0.005, "mean {mean}");
        assert!((var - 1.0 / 6.0).abs() < 0.005, "variance {var}");
    }
}
