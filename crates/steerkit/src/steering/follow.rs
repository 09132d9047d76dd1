//! Path following (Millington §3.3.12): "chase the rabbit" along a [`Path`].

use crate::error::{finite, positive, ParamError};
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::path::Path;
use crate::steering::{Arrive, Seek};

/// Follow a path by seeking a point `offset` metres of arc length ahead of the character's
/// nearest point on it (§3.3.12).
///
/// ```text
/// current = path.get_param(position, last_param)        (coherent: searched near the last one)
///     predictive: get_param(position + velocity · predict_time, last_param), never behind last
/// target  = path.get_position(current + offset)          (a negative offset runs backwards)
/// seek(target); on an open path, arrive at the end once the target reaches it
/// ```
/// The parameter found is stored and passed back next call (erratum E7: the listing passes the
/// current position and drops the result). It starts at 0; start it at NaN
/// ([`with_state`](crate::steering::Stateful::with_state)) to search the whole path once and
/// then stay coherent. The predictive form cuts corners: it looks for the
/// path point nearest to where the character will be, so it turns early.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FollowPath {
    offset: f32,
    predict_time: Option<f32>,
    seek: Seek,
    arrive_at_end: Option<Arrive>,
    param: f32,
}

impl FollowPath {
    /// Chase a rabbit `offset` m ahead (negative: behind, i.e. follow the path backwards).
    ///
    /// # Errors
    /// If `offset` is not finite.
    pub fn new(offset: f32) -> Result<Self, ParamError> {
        Ok(FollowPath {
            offset: finite("path_offset", offset)?,
            predict_time: None,
            seek: Seek::new(),
            arrive_at_end: None,
            param: 0.0,
        })
    }

    /// The predictive form: search from where the character will be in `predict_time` s (the book
    /// suggests 0.1), and never let the parameter move backwards.
    ///
    /// # Errors
    /// If `predict_time` is not finite and positive.
    pub fn predictive(mut self, predict_time: f32) -> Result<Self, ParamError> {
        self.predict_time = Some(positive("predict_time", predict_time)?);
        Ok(self)
    }

    /// Arrive at the end of an open path instead of seeking (and orbiting) it.
    #[must_use]
    pub fn arriving_at_end(mut self, arrive: Arrive) -> Self {
        self.arrive_at_end = Some(arrive);
        self
    }

    /// The point the character chases, for drawing.
    #[must_use]
    pub fn target<V: Vector, P: Path<V> + ?Sized>(&self, path: &P) -> V {
        path.get_position(path.wrap_param(self.param + self.offset))
    }

    /// True when an open path's end has been reached (within `tolerance` m of arc length).
    #[must_use]
    pub fn is_finished<V: Vector, P: Path<V> + ?Sized>(&self, path: &P, tolerance: f32) -> bool {
        !path.is_looping() && self.param >= path.length() - tolerance
    }

    /// Updates the path parameter and returns the acceleration toward the rabbit.
    pub fn steer<V: Vector, P: Path<V> + ?Sized>(
        &mut self,
        character: &Kinematic<V>,
        path: &P,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let found = match self.predict_time {
            None => path.get_param(character.position, self.param),
            Some(t) => {
                let ahead = path.get_param(character.position + character.velocity * t, self.param);
                // never backwards (for a reversed follower, never forwards)
                let step = path.param_difference(self.param, ahead);
                if self.param.is_nan() || step * self.offset.signum() >= 0.0 {
                    ahead
                } else {
                    self.param
                }
            }
        };
        self.param = found;
        let raw = found + self.offset;
        let target = path.get_position(path.wrap_param(raw));
        let at_end = !path.is_looping() && (raw >= path.length() || raw <= 0.0);
        match (self.arrive_at_end, at_end) {
            (Some(arrive), true) => arrive.steer(character, target, limits),
            _ => self.seek.steer(character, target, limits),
        }
    }
}

path_parameter_state!(
    nan_searches FollowPath,
    "The state is the path parameter found by the last call; start from another after a re-path \
     (NaN: search the whole path)."
);
