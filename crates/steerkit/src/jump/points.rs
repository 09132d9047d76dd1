//! Where jumps are made: jump points, jump/landing-pad pairs and their offline pairing, and the
//! jump links a path follower meets.

use super::{JumpCapability, JumpError, JumpSolution};
use crate::error::{non_negative, ParamError};
use crate::math::horizontal;
use crate::predict::{finite_vec, trajectory_position, BallisticArc};
use glam::Vec3;

/// A jump point (§3.6.1): where to leave the ground and how fast to be running.
///
/// Designer-placed, with the run-up velocity set by hand, or derived from a take-off/landing pair
/// ([`JumpPair::jump_point`]). The run-up velocity is horizontal (its `y` is dropped).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpPoint {
    pub(super) takeoff: Vec3,
    pub(super) run_up_velocity: Vec3,
    pub(super) jump_speed: f32,
}

impl JumpPoint {
    /// A jump point at `takeoff` (m) needing `run_up_velocity` (m/s, horizontal; for the
    /// minimum-component rule its length is the minimum speed along its direction) and taking
    /// off at vertical speed `jump_speed` (m/s, ≥ 0).
    ///
    /// # Errors
    /// If a value is not finite or `jump_speed < 0`.
    pub fn new(takeoff: Vec3, run_up_velocity: Vec3, jump_speed: f32) -> Result<Self, ParamError> {
        Ok(JumpPoint {
            takeoff: finite_vec("takeoff", takeoff)?,
            run_up_velocity: horizontal(finite_vec("run_up_velocity", run_up_velocity)?),
            jump_speed: non_negative("jump_speed", jump_speed)?,
        })
    }

    /// Take-off position (m).
    #[must_use]
    pub fn takeoff(&self) -> Vec3 {
        self.takeoff
    }

    /// Required horizontal velocity at take-off (m/s).
    #[must_use]
    pub fn run_up_velocity(&self) -> Vec3 {
        self.run_up_velocity
    }

    /// Vertical take-off speed (m/s).
    #[must_use]
    pub fn jump_speed(&self) -> f32 {
        self.jump_speed
    }

    /// The unit horizontal jump direction, or zero for a jump straight up.
    #[must_use]
    pub fn direction(&self) -> Vec3 {
        self.run_up_velocity.normalize_or_zero()
    }

    /// The take-off velocity `run_up_velocity + ŷ·jump_speed` (m/s).
    #[must_use]
    pub fn launch_velocity(&self) -> Vec3 {
        self.run_up_velocity + Vec3::Y * self.jump_speed
    }

    /// The shortest straight run-up that reaches the run-up speed from rest at
    /// `max_acceleration` (m/s²): `|v|² / (2·a)` (m); infinite for `a ≤ 0` and a moving run-up.
    /// A character that decides to jump closer than this will arrive too slow: look ahead.
    #[must_use]
    pub fn run_up_distance(&self, max_acceleration: f32) -> f32 {
        let v2 = self.run_up_velocity.length_squared();
        if v2 == 0.0 {
            0.0
        } else if max_acceleration > 0.0 {
            v2 / (2.0 * max_acceleration)
        } else {
            f32::INFINITY
        }
    }
}

/// A jump point paired with a landing pad, with the trajectory chosen for the pair (§3.6.2).
///
/// The character computes its own run-up velocity from the pair and its [`JumpCapability`],
/// rather than a designer setting it, which is less error-prone and adapts to the character.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "LandingPad")]
pub struct JumpPair {
    takeoff: Vec3,
    landing: Vec3,
    gravity: Vec3,
    solution: JumpSolution,
}

impl JumpPair {
    /// Solves the jump from `takeoff` to `landing` for `capability` (see
    /// [`jump_velocity`](super::jump_velocity)).
    ///
    /// # Errors
    /// As [`jump_velocity`](super::jump_velocity).
    pub fn new(
        takeoff: Vec3,
        landing: Vec3,
        capability: &JumpCapability,
        arc: BallisticArc,
    ) -> Result<Self, JumpError> {
        let solution = capability.jump(takeoff, landing, arc)?;
        Ok(JumpPair { takeoff, landing, gravity: capability.gravity, solution })
    }

    /// Take-off position (m).
    #[must_use]
    pub fn takeoff(&self) -> Vec3 {
        self.takeoff
    }

    /// Landing position (m).
    #[must_use]
    pub fn landing(&self) -> Vec3 {
        self.landing
    }

    /// The solved jump.
    #[must_use]
    pub fn solution(&self) -> JumpSolution {
        self.solution
    }

    /// Flight time (s).
    #[must_use]
    pub fn flight_time(&self) -> f32 {
        self.solution.time
    }

    /// The jump point the [`Jump`](super::Jump) behaviour runs up to.
    #[must_use]
    pub fn jump_point(&self) -> JumpPoint {
        JumpPoint {
            takeoff: self.takeoff,
            run_up_velocity: self.solution.run_up_velocity,
            jump_speed: self.solution.jump_speed,
        }
    }

    /// Where the jumper is `t` seconds after take-off (m), by Equation 3.1.
    #[must_use]
    pub fn position_at(&self, t: f32) -> Vec3 {
        trajectory_position(self.takeoff, self.solution.launch_velocity(), self.gravity, t)
    }
}

/// The offline pass over a level's jump points and landing pads: every (take-off, pad) pair
/// within `max_distance` (m, horizontal) that `capability` can jump, as
/// `(takeoff index, pad index, pair)`. Pairs that cannot be jumped are left out. `O(n·m)`.
#[must_use]
pub fn pair_landing_pads(
    takeoffs: &[Vec3],
    pads: &[Vec3],
    capability: &JumpCapability,
    max_distance: f32,
) -> Vec<(usize, usize, JumpPair)> {
    let mut out = Vec::new();
    for (i, &t) in takeoffs.iter().enumerate() {
        for (j, &p) in pads.iter().enumerate() {
            if horizontal(p - t).length() > max_distance {
                continue;
            }
            if let Ok(pair) = JumpPair::new(t, p, capability, BallisticArc::Low) {
                out.push((i, j, pair));
            }
        }
    }
    out
}

/// A pathfinding-graph edge that needs a jump (§3.6.2, "jump links"): from node `from` to node
/// `to`, leaving at `takeoff` and landing at `landing`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpLink {
    /// Graph node the jump leaves from.
    pub from: usize,
    /// Graph node the jump lands on.
    pub to: usize,
    /// Take-off position (m).
    pub takeoff: Vec3,
    /// Landing position (m).
    pub landing: Vec3,
}

impl JumpLink {
    /// The jump/landing-pad pair of this link for a character.
    ///
    /// # Errors
    /// As [`jump_velocity`](super::jump_velocity): the character cannot make this jump.
    pub fn plan(
        &self,
        capability: &JumpCapability,
        arc: BallisticArc,
    ) -> Result<JumpPair, JumpError> {
        JumpPair::new(self.takeoff, self.landing, capability, arc)
    }
}

/// The first jump along a path of graph nodes: the index `i` of the path step
/// `path[i] → path[i + 1]` that one of `links` covers, and that link. This is the look-ahead a
/// path follower needs to hand over to [`Jump`](super::Jump) early enough to run up.
#[must_use]
pub fn next_jump_link<'a>(path: &[usize], links: &'a [JumpLink]) -> Option<(usize, &'a JumpLink)> {
    path.windows(2)
        .enumerate()
        .find_map(|(i, w)| links.iter().find(|l| l.from == w[0] && l.to == w[1]).map(|l| (i, l)))
}
