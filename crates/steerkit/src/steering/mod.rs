//! Steering behaviours (Millington §3.3, Green, Buckland): each returns an optional
//! [`SteeringOutput`](crate::SteeringOutput) of accelerations.

mod align;
mod seek;

pub use align::{Align, Face, LookWhereYoureGoing};
pub use seek::{Approach, Arrive, Deceleration, Flee, Seek, SeekMode, Stop, VelocityMatch};
