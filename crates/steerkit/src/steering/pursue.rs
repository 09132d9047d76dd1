//! Prediction-based behaviours: pursue and evade (Millington §3.3.8, Green, Buckland), offset
//! pursuit and leader following (Buckland), interpose (Green, Buckland).

use crate::error::{positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::steering::{Arrive, Deceleration, Flee, Seek};

/// How far ahead to predict a moving target: the look-ahead time `t` (s), never above
/// `max_prediction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Estimate {
    /// Millington's code: `t = d / |v_self|`, capped (a stationary pursuer uses the cap). The
    /// book's prose says "at maximum speed" but its code uses the current speed (erratum E18).
    #[default]
    CurrentSpeed,
    /// Green and the lecture notes: `t = d / max_speed`, capped.
    MaxSpeed,
    /// Buckland: `t = d / (max_speed + |v_target|)`, capped.
    ClosingSpeed,
}

/// The look-ahead used by pursue, evade, offset pursuit and interpose.
///
/// `predicted = target.position + target.velocity · t`, with `t` from [`Estimate`] plus the
/// optional Buckland refinements: the head-on shortcut (`t = 0` when the target is ahead,
/// `(target − p)·h > 0`, and facing us, `h·h_target < −0.95`, i.e. within ≈18°) and the
/// turnaround time `t += (1 − h·normalize(target − p)) · coefficient` (0 dead ahead,
/// `2·coefficient` dead behind; Buckland uses 0.5). Headings `h` come from the orientations.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Prediction {
    max_prediction: f32,
    estimate: Estimate,
    head_on_shortcut: bool,
    turnaround_coefficient: f32,
}

impl Prediction {
    /// Buckland's head-on test threshold on `h · h_target`.
    pub const HEAD_ON_DOT: f32 = -0.95;

    /// A prediction capped at `max_prediction` seconds, with no refinements.
    ///
    /// # Errors
    /// If `max_prediction` is not finite and positive.
    pub fn new(max_prediction: f32, estimate: Estimate) -> Result<Self, ParamError> {
        Ok(Prediction {
            max_prediction: positive("max_prediction", max_prediction)?,
            estimate,
            head_on_shortcut: false,
            turnaround_coefficient: 0.0,
        })
    }

    /// Buckland's pursuit prediction: closing speed, head-on shortcut, turnaround coefficient 0.5.
    ///
    /// # Errors
    /// If `max_prediction` is not finite and positive.
    pub fn buckland(max_prediction: f32) -> Result<Self, ParamError> {
        Ok(Prediction {
            head_on_shortcut: true,
            turnaround_coefficient: 0.5,
            ..Self::new(max_prediction, Estimate::ClosingSpeed)?
        })
    }

    /// With or without the head-on shortcut.
    #[must_use]
    pub fn with_head_on_shortcut(mut self, on: bool) -> Self {
        self.head_on_shortcut = on;
        self
    }

    /// With a turnaround coefficient (s per unit of `1 − cos`); 0 disables it.
    ///
    /// # Errors
    /// If the coefficient is negative or not finite.
    pub fn with_turnaround(mut self, coefficient: f32) -> Result<Self, ParamError> {
        self.turnaround_coefficient =
            crate::error::non_negative("turnaround_coefficient", coefficient)?;
        Ok(self)
    }

    /// The cap on the look-ahead (s).
    #[must_use]
    pub fn max_prediction(&self) -> f32 {
        self.max_prediction
    }

    /// The look-ahead time (s) for `character` chasing (or fleeing) `target`.
    #[must_use]
    pub fn time<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: &Kinematic<V>,
        limits: &Limits,
    ) -> f32 {
        let to = target.position - character.position;
        let distance = to.length();
        let heading = V::forward(character.orientation);
        if self.head_on_shortcut
            && to.dot(heading) > 0.0
            && heading.dot(V::forward(target.orientation)) < Self::HEAD_ON_DOT
        {
            return 0.0;
        }
        let speed = match self.estimate {
            Estimate::CurrentSpeed => character.velocity.length(),
            Estimate::MaxSpeed => limits.max_speed(),
            Estimate::ClosingSpeed => limits.max_speed() + target.velocity.length(),
        };
        let mut t = capped_time(distance, speed, self.max_prediction);
        if self.turnaround_coefficient > 0.0 {
            t += (1.0 - heading.dot(to.normalize_or_zero())) * self.turnaround_coefficient;
        }
        t
    }

    /// Where `target` will be after the look-ahead.
    #[must_use]
    pub fn predict<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: &Kinematic<V>,
        limits: &Limits,
    ) -> V {
        target.position + target.velocity * self.time(character, target, limits)
    }
}

/// The time (s) to cover `distance` at `speed`, at most `max_prediction`.
fn capped_time(distance: f32, speed: f32, max_prediction: f32) -> f32 {
    // speed ≤ d / max_prediction ⇔ d / speed ≥ max_prediction, written without dividing by 0
    if speed * max_prediction <= distance {
        max_prediction
    } else {
        distance / speed
    }
}

/// What a pursuer does with the predicted position.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Chase {
    /// Seek it (Millington's pursue): overshoots a slower target and oscillates.
    Seek(Seek),
    /// Arrive at it, in the target's moving frame ([`Arrive::steer_moving`]): the remedy for
    /// overshooting; settles on a slow or stationary target and then matches its velocity.
    /// Pair it with [`Estimate::MaxSpeed`] or [`Estimate::ClosingSpeed`] (see
    /// [`Pursue::arriving`]): with the current-speed estimate, flying alongside at the target's
    /// speed a distance `d` ahead predicts exactly `d` ahead, so any such point is an equilibrium.
    Arrive(Arrive),
}

/// Pursue: seek (or arrive at) where a moving target will be (§3.3.8).
///
/// The surrogate target is rebuilt from the pursued character on every call (erratum E5); see
/// [`Prediction`] for the look-ahead. Intercepts a straight-moving target sooner than seek.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "pursuit")]
pub struct Pursue {
    /// The look-ahead.
    pub prediction: Prediction,
    /// Seek or arrive at the prediction.
    pub chase: Chase,
}

impl Pursue {
    /// Millington's pursue: current-speed estimate capped at `max_prediction`, delegating to seek.
    ///
    /// # Errors
    /// If `max_prediction` is not finite and positive.
    pub fn new(max_prediction: f32) -> Result<Self, ParamError> {
        Ok(Pursue {
            prediction: Prediction::new(max_prediction, Estimate::CurrentSpeed)?,
            chase: Chase::Seek(Seek::new()),
        })
    }

    /// Pursue that arrives on the prediction (no overshoot), with the max-speed estimate
    /// `t = d / max_speed` capped at `max_prediction`, which shrinks to zero as the gap closes.
    ///
    /// # Errors
    /// If `max_prediction` is not finite and positive.
    pub fn arriving(max_prediction: f32, arrive: Arrive) -> Result<Self, ParamError> {
        Ok(Pursue {
            prediction: Prediction::new(max_prediction, Estimate::MaxSpeed)?,
            chase: Chase::Arrive(arrive),
        })
    }

    /// The acceleration toward the target's predicted position.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        target: &Kinematic<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let aim = self.prediction.predict(character, target, limits);
        match &self.chase {
            Chase::Seek(seek) => seek.steer(character, aim, limits),
            Chase::Arrive(arrive) => arrive.steer_moving(character, aim, target.velocity, limits),
        }
    }
}

/// Evade: flee from where a pursuer will be (§3.3.8), using a [`Prediction`] like [`Pursue`].
/// Keeps a larger distance than flee from a pursuer that cuts across its path.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Evade {
    /// The look-ahead.
    pub prediction: Prediction,
    /// The flee it delegates to (its panic distance is Buckland's threat range).
    pub flee: Flee,
}

impl Evade {
    /// Evade with Buckland's closing-speed look-ahead (`d / (max_speed + |v_pursuer|)`), capped at
    /// `max_prediction`, delegating to flee.
    ///
    /// Millington's evade reuses pursue's estimate from the evader's *own* current speed; a
    /// standing evader then looks the full `max_prediction` ahead, which can place the predicted
    /// pursuer beyond the evader so it flees *into* a pursuer that comes straight at it. Build
    /// `Evade { prediction: Prediction::new(t, Estimate::CurrentSpeed)?, .. }` for the book's form.
    ///
    /// # Errors
    /// If `max_prediction` is not finite and positive.
    pub fn new(max_prediction: f32) -> Result<Self, ParamError> {
        Ok(Evade {
            prediction: Prediction::new(max_prediction, Estimate::ClosingSpeed)?,
            flee: Flee::new(),
        })
    }

    /// The acceleration away from the pursuer's predicted position.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        pursuer: &Kinematic<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let threat = self.prediction.predict(character, pursuer, limits);
        self.flee.steer(character, threat, limits)
    }
}

/// Offset pursuit (Buckland): hold a position given in the **leader's local space** (x forward,
/// y left in 2D; x forward, y up, z right in 3D).
///
/// ```text
/// slot = leader.position + rotate(leader.orientation, offset)
/// t    = |slot − p| / (max_speed + |leader.v|), capped at max_prediction
/// arrive at slot + leader.v · t
/// ```
/// Arrive rather than seek gives smooth formations. With `feed_forward` (the default) the arrive
/// runs in the leader's moving frame ([`Arrive::steer_moving`]), which removes the steady lag that
/// Buckland's form keeps behind a moving leader; set it to `false` for his literal form.
/// Leader following in single file is offset
/// pursuit of the character in front with an offset behind it, e.g. `(−2, 0)`, plus separation.
/// The leader's orientation should face its motion (look where you're going, or
/// `Kinematic::face_motion`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OffsetPursuit<V: Vector> {
    /// The slot in the leader's local space (m).
    pub offset: V,
    /// The look-ahead (Buckland: closing speed).
    pub prediction: Prediction,
    /// The arrive used to reach the predicted slot (Buckland: fast deceleration).
    pub arrive: Arrive,
    /// Add the leader's velocity to the desired velocity (no lag behind a moving leader).
    pub feed_forward: bool,
}

impl<V: Vector> OffsetPursuit<V> {
    /// Buckland's offset pursuit: closing-speed look-ahead (capped at `max_prediction`), arrive
    /// with fast deceleration.
    ///
    /// # Errors
    /// If the offset is not finite or `max_prediction` is not finite and positive.
    pub fn new(offset: V, max_prediction: f32) -> Result<Self, ParamError> {
        if !offset.is_finite() {
            return Err(ParamError::Invalid { name: "offset", expected: "a finite vector" });
        }
        Ok(OffsetPursuit {
            offset,
            prediction: Prediction::new(max_prediction, Estimate::ClosingSpeed)?,
            arrive: Arrive::buckland(Deceleration::Fast),
            feed_forward: true,
        })
    }

    /// The slot's current world position.
    #[must_use]
    pub fn slot(&self, leader: &Kinematic<V>) -> V {
        leader.position + V::to_world(leader.orientation, self.offset)
    }

    /// The acceleration toward the predicted slot.
    #[must_use]
    pub fn steer(
        &self,
        character: &Kinematic<V>,
        leader: &Kinematic<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let slot = Kinematic { position: self.slot(leader), ..*leader };
        if self.feed_forward {
            return self.arrive.steer_moving(character, slot.position, leader.velocity, limits);
        }
        let aim = self.prediction.predict(character, &slot, limits);
        self.arrive.steer(character, aim, limits)
    }
}

/// Interpose (Green, Buckland): get between two moving characters, at `ratio` of the way from
/// `a` to `b` (0.5 = halfway; Green's bias).
///
/// ```text
/// point = lerp(a.p, b.p, ratio);  t = |point − p| / max_speed, capped at max_prediction
/// arrive at lerp(a.p + a.v·t, b.p + b.v·t, ratio)
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Interpose {
    ratio: f32,
    max_prediction: f32,
    /// The arrive used to reach the point (Buckland: fast deceleration).
    pub arrive: Arrive,
}

impl Interpose {
    /// Interpose at `ratio ∈ [0, 1]` with a capped look-ahead.
    ///
    /// # Errors
    /// If `ratio` is outside [0, 1] or `max_prediction` is not finite and positive.
    pub fn new(ratio: f32, max_prediction: f32) -> Result<Self, ParamError> {
        crate::error::finite("ratio", ratio)?;
        if !(0.0..=1.0).contains(&ratio) {
            return Err(ParamError::OutOfRange { name: "ratio", value: ratio, range: "in [0, 1]" });
        }
        Ok(Interpose {
            ratio,
            max_prediction: positive("max_prediction", max_prediction)?,
            arrive: Arrive::buckland(Deceleration::Fast),
        })
    }

    /// The point the character heads for.
    #[must_use]
    pub fn aim<V: Vector>(
        &self,
        character: &Kinematic<V>,
        a: &Kinematic<V>,
        b: &Kinematic<V>,
        limits: &Limits,
    ) -> V {
        let lerp = |x: V, y: V| x + (y - x) * self.ratio;
        let now = lerp(a.position, b.position);
        let d = (now - character.position).length();
        let t = capped_time(d, limits.max_speed(), self.max_prediction);
        lerp(a.position + a.velocity * t, b.position + b.velocity * t)
    }

    /// The acceleration toward the interposition point.
    #[must_use]
    pub fn steer<V: Vector>(
        &self,
        character: &Kinematic<V>,
        a: &Kinematic<V>,
        b: &Kinematic<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        self.arrive.steer(character, self.aim(character, a, b, limits), limits)
    }
}
