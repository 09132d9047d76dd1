//! The number formats of the JSON: agent data rounded to 3 decimals (`mm`), metric values at
//! full precision (`full`), non-finite values as `null` both ways.

use serde::{Deserialize, Deserializer, Serializer};

/// Rounds to 3 decimals (mm, mm/s, mrad) for writing; computed in f64 so the decimal printed is
/// the shortest that reads back to the nearest `f32`.
#[inline]
fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

fn write_number<S: serde::ser::SerializeSeq>(seq: &mut S, x: f64) -> Result<(), S::Error> {
    if !x.is_finite() {
        seq.serialize_element(&Option::<f64>::None)
    } else if x == x.trunc() && x.abs() < 1e15 {
        // `3` rather than `3.0`
        seq.serialize_element(&(x as i64))
    } else {
        seq.serialize_element(&x)
    }
}

fn read_numbers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
    let raw: Vec<Option<f32>> = Vec::deserialize(d)?;
    Ok(raw.into_iter().map(|v| v.unwrap_or(f32::NAN)).collect())
}

/// `Vec<f32>` rounded to 3 decimals; non-finite values as `null`.
pub(super) mod mm {
    use super::*;
    use serde::ser::SerializeSeq;

    pub fn serialize<S: Serializer>(values: &[f32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for &v in values {
            write_number(&mut seq, if v.is_finite() { round3(v) } else { f64::NAN })?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        read_numbers(d)
    }
}

/// `Vec<f32>` at full precision; non-finite values as `null`.
pub(super) mod full {
    use super::*;
    use serde::ser::SerializeSeq;

    pub fn serialize<S: Serializer>(values: &[f32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for &v in values {
            if v.is_finite() {
                seq.serialize_element(&v)?;
            } else {
                seq.serialize_element(&Option::<f32>::None)?;
            }
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        read_numbers(d)
    }
}
