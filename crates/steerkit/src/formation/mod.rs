//! Coordinated movement (Millington §3.7; Green and Buckland on offset pursuit and formations):
//! formation patterns, the two-level formation manager, slot roles and assignment, emergent
//! formations, plays and tactical movement.
//!
//! Formations work in 2D (x–y plane, headings counter-clockwise from +x); a 2½D game maps its
//! ground plane with [`math::ground`](crate::math::ground).

mod assign;
mod emergent;
mod manager;
mod pattern;
mod tactical;

pub use assign::{
    ease_of_assignment, slot_allowed, AssignmentMethod, AssignmentOutcome, CostMatrix, RoleCosts,
    SlotAssigner,
};
pub use emergent::{EmergentFormation, Follow};
pub use manager::{AnchorMode, FormationManager, MemberId, Moderation, SlotSteering, SlotTarget};
pub use pattern::{
    FixedPattern, FormationPattern, Pattern, Play, ScalablePattern, Shape, SlotRole, Transition,
    DRIFT_ORIENTATION_EPSILON,
};
pub use tactical::{BoundingOverwatch, CoverSlots, Team};
