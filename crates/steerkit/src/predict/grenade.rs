//! Reacting to an incoming grenade: carry on, catch it or flee.

use super::{landing_point, trajectory_position};
use crate::math::horizontal;
use glam::Vec3;

/// What a character should do about an incoming grenade; see [`react_to_grenade`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reaction {
    /// The character is outside the blast: carry on.
    Safe,
    /// Run to `point` (at catch height) and catch it at `time` (s from now); there is time left
    /// on the fuse to throw it back.
    Catch {
        /// Catch point (m).
        point: Vec3,
        /// When the grenade gets there (s).
        time: f32,
    },
    /// Flee from the blast centre, which goes off in `time` seconds. `escapable` is false when
    /// the way out of the blast radius is longer than `max_speed · time`; the character should
    /// run anyway, as it looks better than standing still.
    Flee {
        /// Blast centre (m).
        from: Vec3,
        /// Time until the blast (s).
        time: f32,
        /// Whether running at full speed gets the character out in time.
        escapable: bool,
    },
}

/// An incoming grenade.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Grenade {
    /// Current position (m).
    pub position: Vec3,
    /// Current velocity (m/s).
    pub velocity: Vec3,
    /// Gravity acting on it (m/s²).
    pub gravity: Vec3,
    /// Time left on the fuse (s), or `None` for an impact fuse (it goes off on landing).
    pub fuse: Option<f32>,
    /// Blast radius (m).
    pub blast_radius: f32,
}

impl Grenade {
    /// Where and when it goes off over flat ground at `ground_height` (m): at the fuse time
    /// (s from now) where it is then, or on landing if it lands first (the landing point; with
    /// an impact fuse, always there). `None` for a grenade without a fuse that never comes down,
    /// or for non-finite input.
    #[must_use]
    pub fn blast(&self, ground_height: f32) -> Option<(Vec3, f32)> {
        let land = landing_point(self.position, self.velocity, self.gravity, ground_height);
        let time = match (self.fuse, land) {
            (Some(f), _) if f.is_finite() => f.max(0.0),
            (_, Some(l)) => l.time,
            _ => return None,
        };
        let centre = match land {
            Some(l) if time >= l.time => l.point,
            _ => trajectory_position(self.position, self.velocity, self.gravity, time),
        };
        centre.is_finite().then_some((centre, time))
    }
}

/// A character that may catch or flee.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Catcher {
    /// Position (m).
    pub position: Vec3,
    /// Running speed (m/s).
    pub max_speed: f32,
    /// Height above the ground at which it catches (m), about chest height.
    pub catch_height: f32,
    /// Time it needs after catching to throw the grenade back (s).
    pub throw_back_time: f32,
}

/// Decides between catching a grenade and running from its blast (§3.5.2, with the lectures'
/// blast-radius test), over flat ground at `ground_height` (m).
///
/// ```text
/// t_land = time_to_height(ground);   t_blast = fuse (or t_land for an impact fuse)
/// blast  = landing point if t_blast ≥ t_land, else the grenade's position at t_blast
/// Safe   if |character − blast| > blast_radius
/// Catch  if the grenade comes down to ground + catch_height at t_c ≤ t_blast − throw_back_time
///        and the character can run there in time: |Δ horizontal| ≤ max_speed · t_c
/// Flee   otherwise; escapable iff blast_radius − |character − blast| ≤ max_speed · t_blast
/// ```
/// A grenade that never comes down and has no fuse is `Safe`. Invalid (non-finite) input also
/// gives `Safe`, with nothing to react to.
#[must_use]
pub fn react_to_grenade(grenade: &Grenade, catcher: &Catcher, ground_height: f32) -> Reaction {
    let g = grenade;
    let Some((centre, blast_time)) = g.blast(ground_height) else {
        return Reaction::Safe;
    };
    let distance = catcher.position.distance(centre);
    if !(distance.is_finite() && g.blast_radius.is_finite()) || distance > g.blast_radius {
        return Reaction::Safe;
    }
    if let Some(c) =
        landing_point(g.position, g.velocity, g.gravity, ground_height + catcher.catch_height)
    {
        let run = horizontal(c.point - catcher.position).length();
        if c.time + catcher.throw_back_time <= blast_time && run <= catcher.max_speed * c.time {
            return Reaction::Catch { point: c.point, time: c.time };
        }
    }
    Reaction::Flee {
        from: centre,
        time: blast_time,
        escapable: g.blast_radius - distance <= catcher.max_speed * blast_time,
    }
}
