//! Jumping (Millington §3.6): the jump velocity, jump points, jump/landing-pad pairs, jump links
//! for paths, hole fillers, and the [`Jump`] steering behaviour.
//!
//! 3D, y-up, SI units. A jump is a one-time, failure-sensitive decision: the character must reach
//! the take-off point with the right velocity and leave at the right moment. The behaviour here
//! runs the character up to the take-off point and tells the caller when to jump and with which
//! velocity ([`JumpAction::TakeOff`]); it does not move the character itself, so the game can
//! schedule a jump animation. The jump impulse is vertical and gravity must pull down
//! (`gravity.y < 0`); a horizontal gravity component is allowed and compensated for.
//!
//! Failure policy: an impossible jump (landing too high, run-up too fast for the character, no
//! flight time) is a [`JumpError`]; never NaN, never a panic.

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::horizontal;
use crate::predict::{finite_vec, quadratic_roots, trajectory_position, BallisticArc};
use crate::steering::VelocityMatch;
use glam::Vec3;

/// Why a jump cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JumpError {
    /// The landing is higher than the jump's apex: `v_y² − 2·G·Δy < 0`. `max_rise` (m) is the
    /// highest the jump reaches, `v_y²/(2G)`.
    #[error("the landing is too high: this jump rises at most {max_rise} m")]
    TooHigh {
        /// Apex height above the take-off (m).
        max_rise: f32,
    },
    /// Every usable flight time needs a run-up faster than the character can run; `required` is
    /// the slowest run-up that would do (m/s).
    #[error("the jump needs a run-up of {required} m/s, faster than the character can run")]
    TooFast {
        /// The slowest sufficient run-up speed (m/s).
        required: f32,
    },
    /// No positive flight time: e.g. a landing level with the take-off and no jump speed.
    #[error("the jump has no positive flight time")]
    NoFlightTime,
    /// A parameter is invalid (not finite, negative, or gravity not pulling down).
    #[error(transparent)]
    Invalid(#[from] ParamError),
}

fn check_gravity(gravity: Vec3) -> Result<Vec3, ParamError> {
    finite_vec("gravity", gravity)?;
    if gravity.y < 0.0 {
        Ok(gravity)
    } else {
        Err(ParamError::OutOfRange {
            name: "gravity.y",
            value: gravity.y,
            range: "below zero (gravity must pull down)",
        })
    }
}

/// Both flight times of a jump that rises by `rise` (m, landing height minus take-off height)
/// with vertical take-off speed `jump_speed` (m/s) under vertical gravity `gravity_y` (m/s², < 0).
///
/// From `Δy = v_y·t + ½·g_y·t²`, with `G = −g_y > 0` (Equation 3.7 with the signs right):
/// ```text
/// t_short = (v_y − √(v_y² − 2·G·Δy)) / G,    t_long = (v_y + √(v_y² − 2·G·Δy)) / G
/// ```
/// Returned as `(t_short, t_long)`. `t_short` is computed as `2·Δy / (v_y + √…)`, so it is exactly
/// 0 for a level jump and negative for a jump down; only positive times are flights. `None` when
/// the landing is above the apex (negative radicand), gravity does not pull down, or an input is
/// not finite.
#[must_use]
pub fn jump_times(rise: f32, jump_speed: f32, gravity_y: f32) -> Option<(f32, f32)> {
    if !(rise.is_finite() && jump_speed.is_finite() && gravity_y.is_finite()) || gravity_y >= 0.0 {
        return None;
    }
    let big_g = -f64::from(gravity_y);
    let (a, b) = quadratic_roots(0.5 * big_g, -f64::from(jump_speed), f64::from(rise))?;
    let (a, b) = (a as f32, b as f32);
    (a.is_finite() && b.is_finite()).then_some((a, b))
}

/// A solved jump: how long it flies and the take-off velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpSolution {
    /// Flight time (s).
    pub time: f32,
    /// Horizontal velocity at take-off (m/s, `y = 0`): what the run-up must reach.
    pub run_up_velocity: Vec3,
    /// Vertical take-off speed (m/s).
    pub jump_speed: f32,
}

impl JumpSolution {
    /// The full take-off velocity `run_up_velocity + ŷ·jump_speed` (m/s).
    #[must_use]
    pub fn launch_velocity(&self) -> Vec3 {
        self.run_up_velocity + Vec3::Y * self.jump_speed
    }

    /// Planar (run-up) speed (m/s).
    #[must_use]
    pub fn run_up_speed(&self) -> f32 {
        self.run_up_velocity.length()
    }
}

/// The jump velocity calculation (§3.6.2): the run-up velocity that carries a jump from `takeoff`
/// to `landing` when the character leaves the ground at vertical speed `jump_speed` (m/s, ≥ 0).
///
/// The vertical motion fixes the flight time ([`jump_times`]); then, per horizontal axis,
/// `v_h = (Δ_h − ½·g_h·t²) / t` (just `Δ_h / t` for vertical gravity). [`BallisticArc::Low`] prefers the
/// shorter flight (the book's choice) and falls back to the longer one when the shorter needs a
/// run-up of `max_run_speed` (m/s, > 0) or more; [`BallisticArc::High`] uses only the longer, which lands
/// on the way down. Flight times ≤ 0 are skipped: a level jump's `t_short = 0` (it would divide
/// by zero) and a downward jump's negative `t_short`.
///
/// # Errors
/// [`JumpError::TooHigh`] (landing above the apex), [`JumpError::TooFast`] (every usable time
/// needs a run-up ≥ `max_run_speed`), [`JumpError::NoFlightTime`], [`JumpError::Invalid`]
/// (non-finite input, negative jump speed, `max_run_speed ≤ 0`, or `gravity.y ≥ 0`).
pub fn jump_velocity(
    takeoff: Vec3,
    landing: Vec3,
    jump_speed: f32,
    gravity: Vec3,
    max_run_speed: f32,
    arc: BallisticArc,
) -> Result<JumpSolution, JumpError> {
    finite_vec("takeoff", takeoff)?;
    finite_vec("landing", landing)?;
    non_negative("jump_speed", jump_speed)?;
    positive("max_run_speed", max_run_speed)?;
    let gravity = check_gravity(gravity)?;
    let delta = landing - takeoff;
    let (short, long) = jump_times(delta.y, jump_speed, gravity.y).ok_or_else(|| {
        JumpError::TooHigh { max_rise: jump_speed * jump_speed / (-2.0 * gravity.y) }
    })?;
    let candidates: &[f32] = match arc {
        BallisticArc::Low => &[short, long],
        BallisticArc::High => &[long],
    };
    let (dh, gh) = (horizontal(delta), horizontal(gravity));
    let mut slowest: Option<f32> = None;
    for &t in candidates {
        if !(t > 0.0 && t.is_finite()) {
            continue;
        }
        let v = (dh - gh * (0.5 * t * t)) / t;
        let speed = v.length();
        if !speed.is_finite() {
            continue;
        }
        if speed < max_run_speed {
            return Ok(JumpSolution { time: t, run_up_velocity: v, jump_speed });
        }
        slowest = Some(slowest.map_or(speed, |s: f32| s.min(speed)));
    }
    Err(slowest.map_or(JumpError::NoFlightTime, |required| JumpError::TooFast { required }))
}

/// What a character can do when jumping: its vertical take-off speed, its fastest run-up and the
/// gravity it falls under (a heavily laden character jumps lower and needs a faster run-up).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpCapability {
    jump_speed: f32,
    max_run_speed: f32,
    gravity: Vec3,
}

impl JumpCapability {
    /// A validated capability: `jump_speed` (m/s, ≥ 0, the book's `maxTakeoffYSpeed`),
    /// `max_run_speed` (m/s, > 0) and `gravity` (m/s², `y < 0`).
    ///
    /// # Errors
    /// [`ParamError`] naming the offending value.
    pub fn new(jump_speed: f32, max_run_speed: f32, gravity: Vec3) -> Result<Self, ParamError> {
        Ok(JumpCapability {
            jump_speed: non_negative("jump_speed", jump_speed)?,
            max_run_speed: positive("max_run_speed", max_run_speed)?,
            gravity: check_gravity(gravity)?,
        })
    }

    /// Vertical take-off speed (m/s).
    #[must_use]
    pub fn jump_speed(&self) -> f32 {
        self.jump_speed
    }

    /// Fastest run-up (m/s).
    #[must_use]
    pub fn max_run_speed(&self) -> f32 {
        self.max_run_speed
    }

    /// Gravity (m/s²).
    #[must_use]
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// The highest rise above the take-off the jump reaches: `v_y² / (2·G)` (m).
    #[must_use]
    pub fn max_rise(&self) -> f32 {
        self.jump_speed * self.jump_speed / (-2.0 * self.gravity.y)
    }

    /// [`jump_velocity`] with this capability.
    ///
    /// # Errors
    /// As [`jump_velocity`].
    pub fn jump(
        &self,
        takeoff: Vec3,
        landing: Vec3,
        arc: BallisticArc,
    ) -> Result<JumpSolution, JumpError> {
        jump_velocity(takeoff, landing, self.jump_speed, self.gravity, self.max_run_speed, arc)
    }
}

/// A jump point (§3.6.1): where to leave the ground and how fast to be running.
///
/// Designer-placed, with the run-up velocity set by hand, or derived from a take-off/landing pair
/// ([`JumpPair::jump_point`]). The run-up velocity is horizontal (its `y` is dropped).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpPoint {
    takeoff: Vec3,
    run_up_velocity: Vec3,
    jump_speed: f32,
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
    /// Solves the jump from `takeoff` to `landing` for `capability` (see [`jump_velocity`]).
    ///
    /// # Errors
    /// As [`jump_velocity`].
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

    /// The jump point the [`Jump`] behaviour runs up to.
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
    /// As [`jump_velocity`]: the character cannot make this jump.
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
/// path follower needs to hand over to [`Jump`] early enough to run up.
#[must_use]
pub fn next_jump_link<'a>(path: &[usize], links: &'a [JumpLink]) -> Option<(usize, &'a JumpLink)> {
    path.windows(2)
        .enumerate()
        .find_map(|(i, w)| links.iter().find(|l| l.from == w[0] && l.to == w[1]).map(|l| (i, l)))
}

/// When the character's velocity is good enough to take off (§3.6.1).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TakeoffRule {
    /// Match the run-up velocity: `|v_h − v_req| ≤ tolerance` (m/s). Right for landing pads and
    /// narrow landings, where both speed and direction matter.
    MatchVelocity {
        /// Velocity tolerance (m/s), ≥ 0.
        tolerance: f32,
    },
    /// Enough speed in the jump direction: `v_h · d̂ ≥ |v_req|`, whatever the sideways velocity.
    /// Right for wide landings; a run-up at an angle may then miss a narrow one.
    MinimumAlongDirection,
}

/// Take-off conditions: the character within `position_tolerance` of the take-off point, and its
/// horizontal velocity passing the [`TakeoffRule`].
///
/// The tolerance must exceed half the distance the character covers in a frame
/// (`run-up speed · dt / 2`), or it can step over the point between two frames. Faster or
/// larger characters need larger tolerances.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TakeoffConditions {
    position_tolerance: f32,
    rule: TakeoffRule,
}

impl TakeoffConditions {
    /// Validated conditions.
    ///
    /// # Errors
    /// If a tolerance is negative or not finite.
    pub fn new(position_tolerance: f32, rule: TakeoffRule) -> Result<Self, ParamError> {
        non_negative("position_tolerance", position_tolerance)?;
        if let TakeoffRule::MatchVelocity { tolerance } = rule {
            non_negative("velocity_tolerance", tolerance)?;
        }
        Ok(TakeoffConditions { position_tolerance, rule })
    }

    /// Position tolerance (m).
    #[must_use]
    pub fn position_tolerance(&self) -> f32 {
        self.position_tolerance
    }

    /// The velocity rule.
    #[must_use]
    pub fn rule(&self) -> TakeoffRule {
        self.rule
    }

    /// True when the character may take off from `point` now.
    #[must_use]
    pub fn hold(&self, point: &JumpPoint, character: &Kinematic<Vec3>) -> bool {
        if character.position.distance(point.takeoff) > self.position_tolerance {
            return false;
        }
        let v = horizontal(character.velocity);
        match self.rule {
            TakeoffRule::MatchVelocity { tolerance } => {
                v.distance(point.run_up_velocity) <= tolerance
            }
            TakeoffRule::MinimumAlongDirection => {
                v.dot(point.direction()) >= point.run_up_velocity.length()
            }
        }
    }
}

/// Where a [`Jump`] is in its run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JumpState {
    /// Running up to the take-off point.
    #[default]
    RunUp,
    /// Took off; the behaviour has nothing more to say until reset.
    Airborne,
    /// Passed the take-off point without meeting the conditions; reset or re-plan.
    Missed,
}

/// What a [`Jump`] (or a [`JumpDetector`]) asks for this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JumpAction {
    /// Keep running up: apply this steering (accelerations, m/s²).
    RunUp(SteeringOutput<Vec3>),
    /// Jump now. `velocity` is the planned take-off velocity (run-up + vertical, m/s): set the
    /// character's velocity to it for a jump that lands where planned, or add `vertical_speed`
    /// (m/s) to the current velocity to keep the actual run-up. The caller applies it, directly
    /// or through an action queue and a jump animation.
    TakeOff {
        /// Planned take-off velocity (m/s).
        velocity: Vec3,
        /// Vertical take-off speed (m/s).
        vertical_speed: f32,
    },
    /// Already jumped: no steering (the character is in the air).
    Airborne,
    /// The take-off point was passed without meeting the conditions.
    Missed,
}

/// The jump behaviour (§3.6.1–3.6.2): velocity matching toward the take-off point at the
/// required run-up velocity, then the jump.
///
/// A state machine: [`JumpState::RunUp`] → [`JumpState::Airborne`] when the
/// [`TakeoffConditions`] hold (it returns [`JumpAction::TakeOff`] once), or
/// [`JumpState::Missed`] when the character passes the take-off point (by more than the position
/// tolerance along the jump direction) without them. While running up it velocity-matches
/// ([`VelocityMatch`]) to
/// ```text
/// desired = v_req − l / correction_time,   clipped to max_speed
/// ```
/// where `l` is the character's horizontal offset from the run-up line (the line through the
/// take-off point along `v_req`), so it converges onto the line and reaches the point at `v_req`.
/// For a jump with no run-up (`v_req = 0`) `l` is the whole offset to the take-off point.
///
/// The behaviour needs complete control of the character: blended with another behaviour (say,
/// avoiding an enemy at a tangent), it either never meets the take-off conditions or takes off
/// with the wrong velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Jump {
    point: JumpPoint,
    conditions: TakeoffConditions,
    velocity_match: VelocityMatch,
    correction_time: f32,
    state: JumpState,
}

impl Jump {
    /// A jump to `point`, taking off when `conditions` hold, running up with `velocity_match`
    /// (the book suggests a 0.1 s response). The run-up line correction time is 0.5 s.
    #[must_use]
    pub fn new(
        point: JumpPoint,
        conditions: TakeoffConditions,
        velocity_match: VelocityMatch,
    ) -> Self {
        Jump { point, conditions, velocity_match, correction_time: 0.5, state: JumpState::RunUp }
    }

    /// The book's `Jump` for a take-off/landing pair: solves the jump for `capability`.
    ///
    /// # Errors
    /// As [`jump_velocity`] (the book's `canAchieve = false`).
    pub fn to_landing(
        takeoff: Vec3,
        landing: Vec3,
        capability: &JumpCapability,
        conditions: TakeoffConditions,
        velocity_match: VelocityMatch,
    ) -> Result<Self, JumpError> {
        let pair = JumpPair::new(takeoff, landing, capability, BallisticArc::Low)?;
        Ok(Jump::new(pair.jump_point(), conditions, velocity_match))
    }

    /// The same jump with another run-up line correction time (s, > 0): how quickly a sideways
    /// offset from the line is removed. Keep it several times the velocity-match time.
    ///
    /// # Errors
    /// If `correction_time` is not finite and positive.
    pub fn with_correction_time(mut self, correction_time: f32) -> Result<Self, ParamError> {
        self.correction_time = positive("correction_time", correction_time)?;
        Ok(self)
    }

    /// The jump point.
    #[must_use]
    pub fn point(&self) -> &JumpPoint {
        &self.point
    }

    /// The take-off conditions.
    #[must_use]
    pub fn conditions(&self) -> &TakeoffConditions {
        &self.conditions
    }

    /// The current state.
    #[must_use]
    pub fn state(&self) -> JumpState {
        self.state
    }

    /// Aims at another jump point and starts a new run-up (the cached target is replaced).
    pub fn set_jump_point(&mut self, point: JumpPoint) {
        self.point = point;
        self.state = JumpState::RunUp;
    }

    /// Starts a new run-up at the same jump point.
    pub fn reset(&mut self) {
        self.state = JumpState::RunUp;
    }

    /// True when the take-off conditions hold for `character` now.
    #[must_use]
    pub fn takeoff_ready(&self, character: &Kinematic<Vec3>) -> bool {
        self.conditions.hold(&self.point, character)
    }

    /// The velocity the run-up steers toward (m/s), before the speed clip.
    #[must_use]
    pub fn desired_velocity(&self, character: &Kinematic<Vec3>) -> Vec3 {
        let offset = horizontal(character.position - self.point.takeoff);
        let dir = self.point.direction();
        let lateral = offset - dir * offset.dot(dir);
        self.point.run_up_velocity - lateral / self.correction_time
    }

    /// This frame's action; see [`Jump`].
    pub fn steer(&mut self, character: &Kinematic<Vec3>, limits: &Limits) -> JumpAction {
        match self.state {
            JumpState::Airborne => return JumpAction::Airborne,
            JumpState::Missed => return JumpAction::Missed,
            JumpState::RunUp => {}
        }
        if self.takeoff_ready(character) {
            self.state = JumpState::Airborne;
            return JumpAction::TakeOff {
                velocity: self.point.launch_velocity(),
                vertical_speed: self.point.jump_speed,
            };
        }
        let dir = self.point.direction();
        let along = horizontal(character.position - self.point.takeoff).dot(dir);
        if dir != Vec3::ZERO && along > self.conditions.position_tolerance {
            self.state = JumpState::Missed;
            return JumpAction::Missed;
        }
        let desired = self.desired_velocity(character).clamp_length_max(limits.max_speed());
        JumpAction::RunUp(self.velocity_match.steer(character, desired, limits).unwrap_or_default())
    }
}

/// A hole filler (§3.6.3): an invisible "jumpable gap" object across a chasm, so characters
/// choose their own take-off point anywhere along it.
///
/// The gap is described by its near lip, the segment `lip_start`–`lip_end` on the take-off side,
/// the horizontal direction `across` in which it may be jumped (one-directional: from the far
/// side it is not a jump), and its `width` (m) along `across`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HoleFiller {
    lip_start: Vec3,
    lip_end: Vec3,
    across: Vec3,
    width: f32,
}

impl HoleFiller {
    /// A gap whose near lip runs from `lip_start` to `lip_end` (m), jumped in the horizontal
    /// direction `across` (normalised here), `width` (m, > 0) wide.
    ///
    /// # Errors
    /// If a value is not finite, the width is not positive, `across` has no horizontal part, or
    /// the lip has no horizontal length or runs along `across`.
    pub fn new(
        lip_start: Vec3,
        lip_end: Vec3,
        across: Vec3,
        width: f32,
    ) -> Result<Self, ParamError> {
        finite_vec("lip_start", lip_start)?;
        finite_vec("lip_end", lip_end)?;
        finite_vec("across", across)?;
        positive("width", width)?;
        let across_h = horizontal(across).normalize_or_zero();
        let lip = horizontal(lip_end - lip_start);
        let lip_len = lip.length();
        let cross = if lip_len > 0.0 { lip.cross(across_h).length() / lip_len } else { 0.0 };
        if across_h == Vec3::ZERO || cross < 1e-3 {
            return Err(ParamError::OutOfRange {
                name: "across",
                value: cross,
                range: "horizontal and not along the lip",
            });
        }
        Ok(HoleFiller { lip_start, lip_end, across: across_h, width })
    }

    /// The unit horizontal direction the gap is jumped in.
    #[must_use]
    pub fn across(&self) -> Vec3 {
        self.across
    }

    /// Gap width (m).
    #[must_use]
    pub fn width(&self) -> f32 {
        self.width
    }

    /// How far `point` is past the lip along `across` (m): negative on the take-off side.
    #[must_use]
    pub fn signed_distance(&self, point: Vec3) -> f32 {
        horizontal(point - self.lip_start).dot(self.across)
    }

    /// True when a horizontal line from `point` along `across` crosses the lip segment (the
    /// point is in front of the gap, not beside it).
    fn in_front(&self, point: Vec3) -> bool {
        // solve p + s·across = a + λ·(b − a) for λ in the horizontal plane
        let lip = horizontal(self.lip_end - self.lip_start);
        let side = Vec3::Y.cross(self.across);
        let denom = lip.dot(side);
        if denom == 0.0 {
            return false;
        }
        let lambda = horizontal(point - self.lip_start).dot(side) / denom;
        (0.0..=1.0).contains(&lambda)
    }

    /// Whether a jump straight across at `run_speed` (m/s) with vertical speed `jump_speed`
    /// (m/s) under vertical gravity `gravity_y` (< 0) clears the gap onto a far side
    /// `landing_rise` (m) above the lip: the flight until it comes back down to that height,
    /// `t_long` of [`jump_times`], covers `run_speed · t_long ≥ width`.
    #[must_use]
    pub fn clears(
        &self,
        run_speed: f32,
        jump_speed: f32,
        gravity_y: f32,
        landing_rise: f32,
    ) -> bool {
        jump_times(landing_rise, jump_speed, gravity_y)
            .is_some_and(|(_, t)| t > 0.0 && run_speed * t >= self.width)
    }
}

/// The hole-filler jump detector (§3.6.3): a variant of obstacle avoidance that, instead of
/// steering away from a jumpable gap, runs at it at full speed and jumps at the last moment on
/// the ledge.
///
/// ```text
/// s = signed distance past the lip, c = v_h · across (closing speed)
/// not engaged (None) if c ≤ 0 (not heading across: also how the gap is one-directional),
///   s > width (already across), or the path does not cross the lip segment
/// TakeOff  if s ≥ −edge_tolerance, with velocity v_h + ŷ·jump_speed
/// RunUp    if the lip is within `lookahead` seconds (−s/c ≤ lookahead): velocity-match to
///          full speed along the current heading
/// ```
/// There is no target velocity and no landing spot: a narrow landing is easily overshot.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JumpDetector {
    lookahead: f32,
    edge_tolerance: f32,
    jump_speed: f32,
    velocity_match: VelocityMatch,
}

impl JumpDetector {
    /// A detector looking `lookahead` seconds ahead (> 0), jumping within `edge_tolerance` (m,
    /// ≥ 0; more than a frame's travel) of the lip, at vertical speed `jump_speed` (m/s, ≥ 0).
    ///
    /// # Errors
    /// If a value is out of range or not finite.
    pub fn new(
        lookahead: f32,
        edge_tolerance: f32,
        jump_speed: f32,
        velocity_match: VelocityMatch,
    ) -> Result<Self, ParamError> {
        Ok(JumpDetector {
            lookahead: positive("lookahead", lookahead)?,
            edge_tolerance: non_negative("edge_tolerance", edge_tolerance)?,
            jump_speed: non_negative("jump_speed", jump_speed)?,
            velocity_match,
        })
    }

    /// This frame's action for `gap`, or `None` when the gap does not concern the character.
    #[must_use]
    pub fn steer(
        &self,
        gap: &HoleFiller,
        character: &Kinematic<Vec3>,
        limits: &Limits,
    ) -> Option<JumpAction> {
        let v = horizontal(character.velocity);
        let closing = v.dot(gap.across);
        let s = gap.signed_distance(character.position);
        if !(closing > 0.0 && closing.is_finite() && s.is_finite()) || s > gap.width {
            return None;
        }
        let crossing =
            if s < 0.0 { character.position + v * (-s / closing) } else { character.position };
        if !gap.in_front(crossing) {
            return None;
        }
        if s >= -self.edge_tolerance {
            return Some(JumpAction::TakeOff {
                velocity: v + Vec3::Y * self.jump_speed,
                vertical_speed: self.jump_speed,
            });
        }
        if -s / closing > self.lookahead {
            return None;
        }
        let desired = v.normalize_or_zero() * limits.max_speed();
        let steering = self.velocity_match.steer(character, desired, limits)?;
        Some(JumpAction::RunUp(steering))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinematic::Kinematic3;
    use crate::predict::{landing_point, trajectory_velocity};
    use proptest::prelude::*;

    const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    fn limits(max_speed: f32, max_acceleration: f32) -> Limits {
        Limits::new(max_speed, max_acceleration, 1.0, 1.0).unwrap()
    }

    fn vm() -> VelocityMatch {
        VelocityMatch::new(0.1).unwrap()
    }

    // ---- the jump velocity (§3.6.2) ----

    #[test]
    fn jump_times_lecture_vectors_section_14_item_6() {
        // g = −9.81, v_y = 5; tolerance 1e-4 s
        let (a, b) = jump_times(1.0, 5.0, -9.81).unwrap();
        assert!(close(a, 0.2732, 1e-4) && close(b, 0.7461, 1e-4), "{a} {b}");
        let (a, b) = jump_times(0.0, 5.0, -9.81).unwrap();
        assert_eq!(a, 0.0);
        assert!(close(b, 1.0194, 1e-4), "{b}");
        let (a, b) = jump_times(-2.0, 5.0, -9.81).unwrap();
        assert!(a < 0.0 && close(b, 1.3267, 1e-4), "{a} {b}");
        // spec fixture: Δy = 0.5 → 0.112392 / 0.906976
        let (a, b) = jump_times(0.5, 5.0, -9.81).unwrap();
        assert!(close(a, 0.112_392, 1e-5) && close(b, 0.906_976, 1e-5), "{a} {b}");
    }

    #[test]
    fn jump_roots_are_positive_with_negative_gravity() {
        // erratum: the listing's (v_y ∓ √)/g_y negates both roots when g_y < 0
        let (v, dy, gy) = (5.0f32, 1.0f32, -9.81f32);
        let sqrt_term = (2.0 * gy * dy + v * v).sqrt();
        let listing = (v - sqrt_term) / gy;
        assert!(listing < 0.0);
        let sol = jump_velocity(Vec3::ZERO, Vec3::new(2.0, dy, 0.0), v, G, 10.0, BallisticArc::Low)
            .unwrap();
        assert!(close(sol.time, -listing, 1e-5));
        // the run-up points at the landing, not away from it
        assert!(sol.run_up_velocity.x > 0.0);
        let landed = trajectory_position(Vec3::ZERO, sol.launch_velocity(), G, sol.time);
        assert!(landed.distance(Vec3::new(2.0, dy, 0.0)) < 1e-5);
    }

    #[test]
    fn jump_equal_heights_skips_zero_time_root() {
        // erratum: for a level jump t_short = 0 and Δx/t divides by zero. Exercise 3.17:
        // (10, 3, 12) → (12, 3, 20), v_y = 2: t = 0.40775 s, v = (4.905, 0, 19.62), speed 20.224
        let (s, e) = (Vec3::new(10.0, 3.0, 12.0), Vec3::new(12.0, 3.0, 20.0));
        let sol = jump_velocity(s, e, 2.0, G, 25.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, 0.407_75, 1e-5), "{sol:?}");
        // the velocity's z is set (not its y, as one listing has it); tolerance 1e-3 m/s
        let v = sol.run_up_velocity;
        assert!(close(v.x, 4.905, 1e-3) && v.y == 0.0 && close(v.z, 19.62, 1e-3), "{v}");
        assert!(close(sol.run_up_speed(), 20.224, 1e-3));
        // a character slower than that cannot make it (strict, as the book: < max speed)
        assert_eq!(
            jump_velocity(s, e, 2.0, G, 20.0, BallisticArc::Low),
            Err(JumpError::TooFast { required: sol.run_up_speed() })
        );
    }

    #[test]
    fn exercise_3_16_level_jump_time_is_2_vy_over_g() {
        for vy in [1.0f32, 3.0, 7.5] {
            let sol = jump_velocity(Vec3::ZERO, Vec3::X, vy, G, 100.0, BallisticArc::Low).unwrap();
            assert!(close(sol.time, 0.2039 * vy, 1e-3 * vy), "{sol:?}");
        }
    }

    #[test]
    fn jump_down_uses_the_only_positive_root() {
        // erratum: for a jump down t_short < 0; only t_long is a flight
        let e = Vec3::new(4.0, -2.0, 0.0);
        let sol = jump_velocity(Vec3::ZERO, e, 5.0, G, 10.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, 1.3267, 1e-4), "{sol:?}");
        // walking off a ledge: no jump speed at all
        let sol = jump_velocity(Vec3::ZERO, e, 0.0, G, 10.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, (4.0f32 / 9.81).sqrt(), 1e-5));
    }

    #[test]
    fn jump_to_an_unreachable_height_is_an_error_not_nan() {
        // erratum: v_y² − 2·G·Δy < 0 was fed to sqrt
        let r =
            jump_velocity(Vec3::ZERO, Vec3::new(1.0, 2.0, 0.0), 5.0, G, 10.0, BallisticArc::Low);
        match r {
            Err(JumpError::TooHigh { max_rise }) => assert!(close(max_rise, 25.0 / 19.62, 1e-5)),
            other => panic!("{other:?}"),
        }
        assert_eq!(jump_times(2.0, 5.0, -9.81), None);
        // level with no jump speed: no flight at all
        assert_eq!(
            jump_velocity(Vec3::ZERO, Vec3::X, 0.0, G, 10.0, BallisticArc::Low),
            Err(JumpError::NoFlightTime)
        );
        // invalid input
        for bad in [
            jump_velocity(Vec3::ZERO, Vec3::X, 5.0, Vec3::Y * 9.81, 10.0, BallisticArc::Low),
            jump_velocity(Vec3::ZERO, Vec3::X, -1.0, G, 10.0, BallisticArc::Low),
            jump_velocity(Vec3::ZERO, Vec3::X, 5.0, G, 0.0, BallisticArc::Low),
            jump_velocity(Vec3::NAN, Vec3::X, 5.0, G, 10.0, BallisticArc::Low),
        ] {
            assert!(matches!(bad, Err(JumpError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn jump_falls_back_to_the_long_root_and_high_arc_uses_it() {
        // up 1 m and 3 m across at v_y = 5: the short flight (0.2732 s) needs 10.98 m/s, the
        // long (0.7461 s) 4.02 m/s
        let e = Vec3::new(3.0, 1.0, 0.0);
        let fast = jump_velocity(Vec3::ZERO, e, 5.0, G, 12.0, BallisticArc::Low).unwrap();
        assert!(close(fast.time, 0.2732, 1e-4));
        let slow = jump_velocity(Vec3::ZERO, e, 5.0, G, 8.0, BallisticArc::Low).unwrap();
        assert!(close(slow.time, 0.7461, 1e-4));
        let high = jump_velocity(Vec3::ZERO, e, 5.0, G, 12.0, BallisticArc::High).unwrap();
        assert_eq!(high, slow);
        // the descending landing: vertical velocity negative on arrival
        assert!(trajectory_velocity(slow.launch_velocity(), G, slow.time).y < 0.0);
        assert!(matches!(
            jump_velocity(Vec3::ZERO, e, 5.0, G, 3.0, BallisticArc::Low),
            Err(JumpError::TooFast { required }) if close(required, 3.0 / 0.7461, 1e-3)
        ));
    }

    #[test]
    fn sideways_gravity_is_compensated() {
        let g = Vec3::new(1.5, -9.81, -0.5);
        let e = Vec3::new(3.0, 0.5, 2.0);
        let sol = jump_velocity(Vec3::ZERO, e, 6.0, g, 20.0, BallisticArc::Low).unwrap();
        let landed = trajectory_position(Vec3::ZERO, sol.launch_velocity(), g, sol.time);
        assert!(landed.distance(e) < 1e-4, "{landed}");
        assert_eq!(sol.run_up_velocity.y, 0.0);
    }

    // ---- pairs, links, pads ----

    #[test]
    fn jump_pair_trajectory_lands_on_the_pad_and_adapts_to_the_character() {
        let light = JumpCapability::new(6.0, 8.0, G).unwrap();
        let laden = JumpCapability::new(4.5, 8.0, G).unwrap();
        let (s, e) = (Vec3::ZERO, Vec3::new(4.0, 0.5, 0.0));
        let a = JumpPair::new(s, e, &light, BallisticArc::Low).unwrap();
        let b = JumpPair::new(s, e, &laden, BallisticArc::Low).unwrap();
        assert!(a.position_at(a.flight_time()).distance(e) < 1e-4);
        assert!(b.position_at(b.flight_time()).distance(e) < 1e-4);
        // the laden character jumps lower and needs... the shorter root here is slower
        assert!(a.jump_point().jump_speed() > b.jump_point().jump_speed());
        assert_eq!(a.jump_point().takeoff(), s);
        assert!(close(light.max_rise(), 36.0 / 19.62, 1e-5));
        assert!(JumpCapability::new(1.0, 1.0, Vec3::ZERO).is_err());
    }

    #[test]
    fn offline_pad_pairing_keeps_close_feasible_pairs() {
        let cap = JumpCapability::new(5.0, 7.0, G).unwrap();
        let takeoffs = [Vec3::ZERO, Vec3::new(20.0, 0.0, 0.0)];
        let pads = [
            Vec3::new(3.0, 0.5, 0.0),  // close, reachable
            Vec3::new(3.0, 4.0, 0.0),  // close, too high
            Vec3::new(60.0, 0.0, 0.0), // far
        ];
        let pairs = pair_landing_pads(&takeoffs, &pads, &cap, 10.0);
        let idx: Vec<_> = pairs.iter().map(|(i, j, _)| (*i, *j)).collect();
        assert_eq!(idx, vec![(0, 0)]);
        assert!(pairs[0].2.position_at(pairs[0].2.flight_time()).distance(pads[0]) < 1e-4);
    }

    #[test]
    fn jump_links_along_a_path() {
        let links = [
            JumpLink {
                from: 4,
                to: 5,
                takeoff: Vec3::new(10.0, 0.0, 0.0),
                landing: Vec3::new(13.0, 0.0, 0.0),
            },
            JumpLink {
                from: 2,
                to: 3,
                takeoff: Vec3::new(2.0, 0.0, 0.0),
                landing: Vec3::new(4.0, 1.0, 0.0),
            },
        ];
        let (i, link) = next_jump_link(&[1, 2, 3, 4, 5], &links).unwrap();
        assert_eq!((i, link.from, link.to), (1, 2, 3));
        assert_eq!(next_jump_link(&[3, 2, 1], &links), None);
        let cap = JumpCapability::new(5.0, 7.0, G).unwrap();
        let pair = link.plan(&cap, BallisticArc::Low).unwrap();
        assert!(pair.position_at(pair.flight_time()).distance(link.landing) < 1e-4);
    }

    // ---- the Jump behaviour ----

    /// Runs the behaviour at 60 Hz; returns the character at take-off (if any) and the last action.
    fn run(
        jump: &mut Jump,
        mut k: Kinematic3,
        l: &Limits,
        lateral: Vec3,
    ) -> (Option<Kinematic3>, JumpAction) {
        let dt = 1.0 / 60.0;
        for _ in 0..2000 {
            match jump.steer(&k, l) {
                JumpAction::RunUp(s) => {
                    // equal-weight blend with another behaviour's request (zero: no blend)
                    let blended = if lateral == Vec3::ZERO {
                        s
                    } else {
                        SteeringOutput::linear((s.linear + lateral) * 0.5)
                    };
                    k.integrate(&blended, l, dt);
                }
                a @ JumpAction::TakeOff { .. } => return (Some(k), a),
                a => return (None, a),
            }
        }
        (None, JumpAction::Missed)
    }

    fn scenario() -> (JumpPair, Kinematic3, Limits) {
        let cap = JumpCapability::new(5.0, 8.0, G).unwrap();
        let pair =
            JumpPair::new(Vec3::ZERO, Vec3::new(5.0, 0.5, 2.0), &cap, BallisticArc::Low).unwrap();
        let d = pair.jump_point().direction();
        let side = Vec3::Y.cross(d);
        let start = Kinematic3 { position: -d * 15.0 + side * 2.0, ..Default::default() };
        (pair, start, limits(8.0, 20.0))
    }

    #[test]
    fn jump_runs_up_matches_velocity_and_lands() {
        let (pair, start, l) = scenario();
        for rule in
            [TakeoffRule::MatchVelocity { tolerance: 0.3 }, TakeoffRule::MinimumAlongDirection]
        {
            let cond = TakeoffConditions::new(0.3, rule).unwrap();
            let mut jump = Jump::new(pair.jump_point(), cond, vm());
            let (at, action) = run(&mut jump, start, &l, Vec3::ZERO);
            let at = at.unwrap_or_else(|| panic!("{rule:?}: {action:?}"));
            assert_eq!(jump.state(), JumpState::Airborne);
            assert_eq!(jump.steer(&at, &l), JumpAction::Airborne);
            let JumpAction::TakeOff { velocity, vertical_speed } = action else { unreachable!() };
            assert_eq!(velocity, pair.solution().launch_velocity());
            assert_eq!(vertical_speed, 5.0);
            assert!(at.position.distance(Vec3::ZERO) <= 0.3);
            // flying the character's own run-up plus the jump lands near the pad (it converged
            // onto the line, so much closer than the tolerances allow)
            let own = horizontal(at.velocity) + Vec3::Y * vertical_speed;
            let landed = landing_point(at.position, own, G, 0.5).unwrap();
            assert!(landed.point.distance(pair.landing()) < 0.5, "{rule:?} {landed:?}");
        }
    }

    #[test]
    fn exercise_3_15_run_up_acceleration() {
        // minimum jump velocity (0, 7), current (0, 5), time to target 0.1 → (0, 20) before the
        // clamp; 2D (x, z) here is the ground plane
        let point = JumpPoint::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 7.0), 3.0).unwrap();
        let cond = TakeoffConditions::new(0.2, TakeoffRule::MinimumAlongDirection).unwrap();
        let mut jump = Jump::new(point, cond, vm());
        let k = Kinematic3 {
            position: Vec3::new(0.0, 0.0, -10.0),
            velocity: Vec3::new(0.0, 0.0, 5.0),
            ..Default::default()
        };
        let JumpAction::RunUp(s) = jump.steer(&k, &limits(10.0, 100.0)) else { panic!() };
        assert!((s.linear - Vec3::new(0.0, 0.0, 20.0)).length() < 1e-4, "{}", s.linear);
        let JumpAction::RunUp(s) = jump.steer(&k, &limits(10.0, 8.0)) else { panic!() };
        assert!((s.linear - Vec3::new(0.0, 0.0, 8.0)).length() < 1e-4);
        // run-up length from rest at 8 m/s²: 49/16
        assert!(close(point.run_up_distance(8.0), 49.0 / 16.0, 1e-6));
    }

    #[test]
    fn minimum_component_rule_accepts_an_angled_run_up_that_matching_rejects() {
        let point = JumpPoint::new(Vec3::ZERO, Vec3::new(6.0, 0.0, 0.0), 4.0).unwrap();
        let angled = Kinematic3 { velocity: Vec3::new(7.0, 0.0, 3.0), ..Default::default() };
        let loose = TakeoffConditions::new(0.3, TakeoffRule::MinimumAlongDirection).unwrap();
        let strict =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.5 }).unwrap();
        assert!(loose.hold(&point, &angled));
        assert!(!strict.hold(&point, &angled));
        // the angled jump lands well off a narrow target 4 m ahead, though far enough
        let flight = jump_times(0.0, 4.0, -9.81).unwrap().1;
        let landed = angled.velocity * flight;
        assert!(landed.x >= 4.0 && landed.z.abs() > 2.0, "{landed}");
        // too slow along the direction fails both
        let slow = Kinematic3 { velocity: Vec3::new(5.0, 0.0, 0.0), ..Default::default() };
        assert!(!loose.hold(&point, &slow) && !strict.hold(&point, &slow));
        // and far from the point, neither
        let far = Kinematic3 { position: Vec3::new(-1.0, 0.0, 0.0), ..angled };
        assert!(!loose.hold(&point, &far));
    }

    #[test]
    fn blending_jump_with_a_sideways_force_breaks_it() {
        // an equal-weight blend with "avoid an enemy at a tangent" (a sideways request of 8 or
        // 16 m/s²): the character drifts off the run-up line and passes the take-off point
        // without the conditions ever holding, under either rule. (The other failure, taking
        // off with the wrong velocity, is the angled run-up of the component rule above.)
        let (pair, start, l) = scenario();
        let side = Vec3::Y.cross(pair.jump_point().direction());
        for magnitude in [8.0, 16.0] {
            for (tolerance, rule) in [
                (0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }),
                (1.0, TakeoffRule::MinimumAlongDirection),
            ] {
                let cond = TakeoffConditions::new(tolerance, rule).unwrap();
                let mut jump = Jump::new(pair.jump_point(), cond, vm());
                let (at, action) = run(&mut jump, start, &l, side * magnitude);
                assert!(at.is_none(), "{magnitude} {rule:?}: {action:?}");
                assert_eq!(action, JumpAction::Missed);
                assert_eq!(jump.state(), JumpState::Missed);
                assert_eq!(jump.steer(&start, &l), JumpAction::Missed);
            }
        }
        // the same run-up without the blend takes off
        let cond =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        assert!(run(&mut jump, start, &l, Vec3::ZERO).0.is_some());
    }

    #[test]
    fn jump_point_change_resets_the_cached_target() {
        // erratum: the listing computes its target once and never again
        let (pair, start, l) = scenario();
        let cond =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        let (at, _) = run(&mut jump, start, &l, Vec3::ZERO);
        assert_eq!(jump.state(), JumpState::Airborne);
        let next =
            JumpPoint::new(Vec3::new(0.0, 0.0, -20.0), Vec3::new(0.0, 0.0, -3.0), 4.0).unwrap();
        jump.set_jump_point(next);
        assert_eq!(jump.state(), JumpState::RunUp);
        assert_eq!(jump.point(), &next);
        let at = at.unwrap();
        assert!(matches!(jump.steer(&at, &l), JumpAction::RunUp(_)));
        assert!(jump.desired_velocity(&at).z < 0.0);
        jump.reset();
        assert_eq!(jump.state(), JumpState::RunUp);
    }

    #[test]
    fn starting_past_the_take_off_point_is_a_miss_and_infeasible_jumps_do_not_build() {
        let (pair, _, l) = scenario();
        let cond = TakeoffConditions::new(0.3, TakeoffRule::MinimumAlongDirection).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        let past =
            Kinematic3 { position: pair.jump_point().direction() * 2.0, ..Default::default() };
        assert_eq!(jump.steer(&past, &l), JumpAction::Missed);
        // the book's canAchieve = false is an error at construction
        let cap = JumpCapability::new(3.0, 8.0, G).unwrap();
        assert!(matches!(
            Jump::to_landing(Vec3::ZERO, Vec3::new(1.0, 3.0, 0.0), &cap, cond, vm()),
            Err(JumpError::TooHigh { .. })
        ));
        let ok = Jump::to_landing(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), &cap, cond, vm()).unwrap();
        assert!(ok.with_correction_time(0.0).is_err());
        assert!(TakeoffConditions::new(-1.0, TakeoffRule::MinimumAlongDirection).is_err());
        assert!(TakeoffConditions::new(1.0, TakeoffRule::MatchVelocity { tolerance: f32::NAN })
            .is_err());
    }

    #[test]
    fn straight_up_jump_point_arrives_and_jumps() {
        let point = JumpPoint::new(Vec3::new(2.0, 0.0, 1.0), Vec3::ZERO, 6.0).unwrap();
        let cond =
            TakeoffConditions::new(0.1, TakeoffRule::MatchVelocity { tolerance: 0.2 }).unwrap();
        let mut jump = Jump::new(point, cond, vm()).with_correction_time(0.4).unwrap();
        let (at, action) = run(&mut jump, Kinematic3::default(), &limits(5.0, 20.0), Vec3::ZERO);
        assert!(at.is_some(), "{action:?}");
        assert_eq!(action, JumpAction::TakeOff { velocity: Vec3::Y * 6.0, vertical_speed: 6.0 });
    }

    // ---- hole fillers (§3.6.3) ----

    fn gap() -> HoleFiller {
        HoleFiller::new(Vec3::new(0.0, 0.0, -5.0), Vec3::new(0.0, 0.0, 5.0), Vec3::X, 3.0).unwrap()
    }

    #[test]
    fn jump_detector_runs_at_the_gap_and_jumps_at_the_lip() {
        let (g, l) = (gap(), limits(8.0, 20.0));
        let det = JumpDetector::new(1.0, 0.15, 4.0, vm()).unwrap();
        let at = |x: f32, z: f32, v: Vec3| Kinematic3 {
            position: Vec3::new(x, 0.0, z),
            velocity: v,
            ..Default::default()
        };
        let run = Vec3::new(5.0, 0.0, 0.0);
        assert_eq!(det.steer(&g, &at(-6.0, 0.0, run), &l), None); // 1.2 s away
        match det.steer(&g, &at(-4.0, 0.0, run), &l) {
            Some(JumpAction::RunUp(s)) => assert!(s.linear.x > 0.0),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            det.steer(&g, &at(-0.1, 0.0, run), &l),
            Some(JumpAction::TakeOff { velocity: Vec3::new(5.0, 4.0, 0.0), vertical_speed: 4.0 })
        );
        // one-directional: from the far side, or moving away, it is not a jump
        assert_eq!(det.steer(&g, &at(4.0, 0.0, -run), &l), None);
        assert_eq!(det.steer(&g, &at(-0.1, 0.0, -run), &l), None);
        // beside the gap, heading past its end
        assert_eq!(det.steer(&g, &at(-1.0, 8.0, run), &l), None);
        // bad gaps
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::Z, 1.0).is_err());
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::Y, 1.0).is_err());
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::X, 0.0).is_err());
    }

    #[test]
    fn hole_filler_wide_landing_succeeds_narrow_one_is_overshot() {
        let (g, l) = (gap(), limits(8.0, 20.0));
        let det = JumpDetector::new(1.0, 0.15, 4.0, vm()).unwrap();
        let mut k = Kinematic3 {
            position: Vec3::new(-12.0, 0.0, 1.0),
            velocity: Vec3::new(6.0, 0.0, 0.0),
            ..Default::default()
        };
        let mut launch = None;
        for _ in 0..600 {
            match det.steer(&g, &k, &l) {
                Some(JumpAction::RunUp(s)) => k.integrate(&s, &l, 1.0 / 60.0),
                Some(JumpAction::TakeOff { velocity, .. }) => {
                    launch = Some(velocity);
                    break;
                }
                _ => k.integrate(&SteeringOutput::ZERO, &l, 1.0 / 60.0),
            }
        }
        let launch = launch.expect("never jumped");
        assert!(horizontal(launch).length() > 7.5, "ran at full speed: {launch}");
        let x = landing_point(k.position, launch, G, 0.0).unwrap().point.x;
        // far side starts at x = 3: a wide platform [3, 20] catches it, a pillar [3, 4.5] does not
        assert!((3.0..=20.0).contains(&x), "{x}");
        assert!(!(3.0..=4.5).contains(&x), "{x}");
        assert!(g.clears(8.0, 4.0, -9.81, 0.0));
        assert!(!g.clears(2.0, 4.0, -9.81, 0.0));
        assert!(!g.clears(8.0, 4.0, -9.81, 1.0)); // far side higher than the apex
    }

    // ---- properties ----

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn jump_solutions_land_and_failures_are_truthful(
            takeoff in (-50.0f32..50.0, -10.0f32..10.0, -50.0f32..50.0),
            delta in (-12.0f32..12.0, -6.0f32..4.0, -12.0f32..12.0),
            jump_speed in 0.0f32..10.0,
            max_run in 0.5f32..15.0,
            g in (1.0f32..25.0, -1.0f32..1.0, -1.0f32..1.0),
            high in any::<bool>(),
        ) {
            let s = Vec3::from(takeoff);
            let e = s + Vec3::from(delta);
            let gravity = Vec3::new(g.1, -g.0, g.2);
            let arc = if high { BallisticArc::High } else { BallisticArc::Low };
            match jump_velocity(s, e, jump_speed, gravity, max_run, arc) {
                Ok(sol) => {
                    prop_assert!(sol.time > 0.0 && sol.time.is_finite());
                    prop_assert!(sol.run_up_speed() < max_run);
                    prop_assert_eq!(sol.run_up_velocity.y, 0.0);
                    let landed = trajectory_position(s, sol.launch_velocity(), gravity, sol.time);
                    let t = sol.time;
                    let scale = 1.0 + s.length() + (max_run + jump_speed) * t + g.0 * t * t;
                    prop_assert!(landed.distance(e) <= 2e-5 * scale, "{sol:?} → {landed}");
                }
                Err(JumpError::TooHigh { max_rise }) => {
                    prop_assert!(delta.1 > max_rise * (1.0 - 1e-5));
                }
                Err(JumpError::TooFast { required }) => {
                    prop_assert!(required >= max_run);
                    // every positive flight time on the allowed arc(s) is too fast
                    let (a, b) = jump_times(delta.1, jump_speed, gravity.y).unwrap();
                    let times: &[f32] = if high { &[b] } else { &[a, b] };
                    for &t in times.iter().filter(|&&t| t > 0.0) {
                        let v = (horizontal(e - s) - horizontal(gravity) * (0.5 * t * t)) / t;
                        prop_assert!(v.length() >= max_run * (1.0 - 1e-5));
                    }
                }
                Err(JumpError::NoFlightTime) => {
                    prop_assert!(jump_times(delta.1, jump_speed, gravity.y)
                        .is_some_and(|(_, b)| b <= 0.0));
                }
                Err(e) => prop_assert!(false, "unexpected {e:?}"),
            }
        }
    }
}
