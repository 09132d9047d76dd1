//! Green's three path-following techniques (dog on a string, reprojection, grappling hooks) and
//! Buckland's waypoint seek distance, beside Millington's [`FollowPath`](super::FollowPath).

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::{sanitize_dt, Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::path::{Path, Polyline, WaypointCursor};
use crate::steering::{Arrive, Deceleration, Seek};

/// Green's "dog on a string": a leash point runs along the path ahead of the character, which
/// seeks it; the leash slows down as the string pulls tight.
///
/// ```text
/// d = |leash − p|
/// leash speed = max_speed · clamp((2·string − d) / string, 0, 1)   full speed while d ≤ string,
///                                                                   waiting at d ≥ 2·string
///     (or a fixed speed: `with_fixed_speed`)
/// leash param += leash speed · dt;  seek(leash), arrive once it reaches an open path's end
/// ```
/// Green: too slow a leash and the character circles it like a moth; too fast and it drags
/// the character into the scenery: measuring the pull fixes both.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DogOnAString {
    string: f32,
    fixed_speed: Option<f32>,
    /// How the end of an open path is reached.
    pub arrive: Arrive,
    param: f32,
}

path_parameter_state!(DogOnAString, "The state is the leash's path parameter.");

impl DogOnAString {
    /// A leash `string` m long (the pull is measured against it), starting at the path's start.
    ///
    /// # Errors
    /// If `string` is not finite and positive.
    pub fn new(string: f32, arrive: Arrive) -> Result<Self, ParamError> {
        Ok(DogOnAString {
            string: positive("string", string)?,
            fixed_speed: None,
            arrive,
            param: 0.0,
        })
    }

    /// A leash that runs at a constant `speed` m/s whatever the pull (Green's naive form).
    ///
    /// # Errors
    /// If `speed` is negative or not finite.
    pub fn with_fixed_speed(mut self, speed: f32) -> Result<Self, ParamError> {
        self.fixed_speed = Some(non_negative("leash_speed", speed)?);
        Ok(self)
    }

    /// The leash point.
    #[must_use]
    pub fn leash<V: Vector, P: Path<V> + ?Sized>(&self, path: &P) -> V {
        path.get_position(self.param)
    }

    /// Moves the leash on by `dt` s and returns the acceleration toward it.
    pub fn steer<V: Vector, P: Path<V> + ?Sized>(
        &mut self,
        character: &Kinematic<V>,
        path: &P,
        limits: &Limits,
        dt: f32,
    ) -> Option<SteeringOutput<V>> {
        let dt = sanitize_dt(dt);
        let d = (path.get_position(self.param) - character.position).length();
        let speed = self.fixed_speed.unwrap_or_else(|| {
            let pull = ((2.0 * self.string - d) / self.string).clamp(0.0, 1.0);
            limits.max_speed() * if pull.is_nan() { 0.0 } else { pull }
        });
        self.param = path.wrap_param(self.param + speed * dt);
        let leash = path.get_position(self.param);
        if !path.is_looping() && self.param >= path.length() {
            self.arrive.steer(character, leash, limits)
        } else {
            Seek::new().steer(character, leash, limits)
        }
    }
}

/// Green's reprojection: predict where the character will be, project that onto the path, and
/// steer back only when the prediction leaves a band `path_radius` wide.
///
/// ```text
/// future = p + v · predict_time;  s = path.get_param(future, last s)   (coherent)
/// inside = |future − path(s)| ≤ path_radius
/// forward = v · (path(s + ahead) − path(s)) > 0
/// inside and forward → None (no force: a wide-stroke path)
/// else seek path(s + ahead); on an open path arrive at the end once s + ahead reaches it
/// ```
/// The forward test is Green's start-up problem: a character at rest or facing the wrong way is
/// inside the band but must still be set moving along the path. Reprojection only corrects the
/// course: inside the band it leaves the speed alone, so put it first in a priority group with a
/// drive that keeps the character moving (velocity matching along its heading, say).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reprojection {
    predict_time: f32,
    path_radius: f32,
    ahead: f32,
    /// How the end of an open path is reached.
    pub arrive: Arrive,
    param: f32,
}

path_parameter_state!(
    nan_searches Reprojection,
    "The state is the projection's path parameter found by the last call (the coherent search \
     starts there; NaN: search the whole path)."
);

impl Reprojection {
    /// Predict `predict_time` s ahead, keep within `path_radius` m, and when steering back aim
    /// `ahead` m of arc length past the projection.
    ///
    /// # Errors
    /// If a parameter is negative or not finite.
    pub fn new(
        predict_time: f32,
        path_radius: f32,
        ahead: f32,
        arrive: Arrive,
    ) -> Result<Self, ParamError> {
        Ok(Reprojection {
            predict_time: non_negative("predict_time", predict_time)?,
            path_radius: non_negative("path_radius", path_radius)?,
            ahead: non_negative("ahead", ahead)?,
            arrive,
            param: 0.0,
        })
    }

    /// The acceleration back toward the path, or `None` inside the band while moving forward.
    pub fn steer<V: Vector, P: Path<V> + ?Sized>(
        &mut self,
        character: &Kinematic<V>,
        path: &P,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let future = character.position + character.velocity * self.predict_time;
        self.param = path.get_param(future, self.param);
        let here = path.get_position(self.param);
        let raw = self.param + self.ahead;
        let aim = path.get_position(path.wrap_param(raw));
        if !path.is_looping() && raw >= path.length() {
            return self.arrive.steer(character, aim, limits);
        }
        let inside = (future - here).length_squared() <= self.path_radius * self.path_radius;
        let forward = character.velocity.dot(aim - here) > 0.0;
        if inside && forward {
            return None;
        }
        Seek::new().steer(character, aim, limits)
    }
}

/// Green's grappling hooks (DK2), which is also Buckland's waypoint following: seek the current
/// waypoint, move to the next once within `closeness` m, and arrive at the last.
///
/// ```text
/// while |waypoint − p| < closeness and not on the last waypoint: next waypoint
/// last waypoint of an open path → arrive, else seek
/// ```
/// Green uses `closeness = 2 × radius` (big vehicles are sloppier, small ones fussier);
/// Buckland's "waypoint seek distance" is the same threshold (20 units). The follower is
/// sensitive to it and to the max_acceleration / max_speed ratio: too small and a fast
/// character overshoots and circles back; 0 never advances. Waypoints should be visible from
/// one another.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "waypoint seek distance")]
pub struct GrapplingHooks {
    closeness: f32,
    /// How the last waypoint is reached.
    pub arrive: Arrive,
    cursor: WaypointCursor,
}

/// The state is the waypoint cursor (restart from `WaypointCursor::at(index)` after a re-path).
impl super::Stateful for GrapplingHooks {
    type State = WaypointCursor;

    fn state(&self) -> WaypointCursor {
        self.cursor
    }

    fn with_state(mut self, cursor: WaypointCursor) -> Self {
        self.cursor = cursor;
        self
    }
}

impl GrapplingHooks {
    /// Advance within `closeness` m; arrive with `arrive` on the last segment.
    ///
    /// # Errors
    /// If `closeness` is negative or not finite.
    pub fn new(closeness: f32, arrive: Arrive) -> Result<Self, ParamError> {
        Ok(GrapplingHooks {
            closeness: non_negative("closeness", closeness)?,
            arrive,
            cursor: WaypointCursor::default(),
        })
    }

    /// Green's closeness for a character of `radius` m: `2 × radius`.
    ///
    /// # Errors
    /// If `radius` is negative or not finite.
    pub fn for_radius(radius: f32, arrive: Arrive) -> Result<Self, ParamError> {
        Self::new(2.0 * non_negative("radius", radius)?, arrive)
    }

    /// Buckland's follower: advance within `seek_distance`, arrive (normal deceleration) at the
    /// end.
    ///
    /// # Errors
    /// If `seek_distance` is negative or not finite.
    pub fn buckland(seek_distance: f32) -> Result<Self, ParamError> {
        Self::new(seek_distance, Arrive::buckland(Deceleration::Normal))
    }

    /// True on the last waypoint of an open path and within `closeness` of it.
    #[must_use]
    pub fn is_finished<V: Vector>(&self, character: &Kinematic<V>, path: &Polyline<V>) -> bool {
        self.cursor.is_last(path)
            && (self.cursor.target(path) - character.position).length_squared()
                <= self.closeness * self.closeness
    }

    /// Advances past reached waypoints and returns the acceleration toward the current one.
    pub fn steer<V: Vector>(
        &mut self,
        character: &Kinematic<V>,
        path: &Polyline<V>,
        limits: &Limits,
    ) -> Option<SteeringOutput<V>> {
        let c2 = self.closeness * self.closeness;
        // at most one lap, so coincident waypoints on a loop cannot spin for ever
        for _ in 0..path.points().len() {
            let close = (self.cursor.target(path) - character.position).length_squared() < c2;
            if !close || !self.cursor.advance(path) {
                break;
            }
        }
        let target = self.cursor.target(path);
        if self.cursor.is_last(path) {
            self.arrive.steer(character, target, limits)
        } else {
            Seek::new().steer(character, target, limits)
        }
    }
}
