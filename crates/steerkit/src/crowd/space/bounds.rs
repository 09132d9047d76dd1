//! The shape of the world agents live in and how bodies are kept inside it.

use crate::crowd::CrowdVector;
use crate::error::{finite, ParamError};
use crate::math::Vector;

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

// for the crowd's spaces only, as the public API has it: the bound is all `space/` takes from
// above
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
