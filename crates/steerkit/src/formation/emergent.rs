//! Emergent formations (Millington §3.7.3): no global geometry; each member follows a spot
//! behind and to the side of a member in front of it.

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::Kinematic;
use crate::math::as_vector;
use glam::Vec2;

/// A member's choice: follow `target` at `offset` in the target's local frame (x forward, y
/// left), e.g. with [`OffsetPursuit`](crate::steering::OffsetPursuit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Follow {
    /// Index of the member followed.
    pub target: usize,
    /// The spot in the target's local frame (m).
    pub offset: Vec2,
}

/// The emergent V (§3.7.3): each member picks the nearest member **in front** of it (along its
/// own heading) whose spot `(−back, ±lateral)` is free, i.e. no other member's spot lies within
/// `near` m of it, preferring the side nearer to itself; it keeps that choice while the target
/// exists, the spot stays reachable and unshared, and re-selects otherwise. Choices never form a
/// cycle, and a member that finds nothing leads. The designated leader never follows.
///
/// Meant for squads (tens of members): a member that has to choose scans every candidate and
/// checks each candidate spot against the chosen ones, O(n²); keeping a choice costs O(n). A
/// crowd-sized group should use a [`FormationManager`](super::FormationManager) instead.
#[derive(Clone, Debug, PartialEq)]
pub struct EmergentFormation {
    back: f32,
    lateral: f32,
    near: f32,
    choices: Vec<Option<Follow>>,
}

impl EmergentFormation {
    /// Spots `back` m behind and `lateral` m beside the member followed; spots closer than
    /// `near` m count as taken.
    ///
    /// # Errors
    /// If `back` or `lateral` is not finite and positive, or `near` is negative or not finite.
    pub fn new(back: f32, lateral: f32, near: f32) -> Result<Self, ParamError> {
        Ok(EmergentFormation {
            back: positive("back", back)?,
            lateral: positive("lateral", lateral)?,
            near: non_negative("near", near)?,
            choices: Vec::new(),
        })
    }

    /// Member `i`'s current choice.
    #[must_use]
    pub fn choice(&self, i: usize) -> Option<Follow> {
        self.choices.get(i).copied().flatten()
    }

    /// The world position of member `i`'s spot.
    #[must_use]
    pub fn spot(&self, i: usize, members: &[Kinematic]) -> Option<Vec2> {
        let f = self.choice(i)?;
        let t = members.get(f.target)?;
        Some(t.position + Vec2::from_angle(t.orientation).rotate(f.offset))
    }

    fn spot_of(members: &[Kinematic], f: Follow) -> Vec2 {
        let t = &members[f.target];
        t.position + Vec2::from_angle(t.orientation).rotate(f.offset)
    }

    /// True when following `target` from `i` would close a cycle.
    fn cycles(&self, i: usize, target: usize) -> bool {
        let mut j = target;
        for _ in 0..=self.choices.len() {
            if j == i {
                return true;
            }
            match self.choices.get(j).copied().flatten() {
                Some(f) => j = f.target,
                None => return false,
            }
        }
        true
    }

    fn taken(&self, i: usize, members: &[Kinematic], spot: Vec2) -> bool {
        let near_sq = self.near * self.near;
        self.choices.iter().enumerate().any(|(j, c)| {
            j != i
                && c.is_some_and(|f| (Self::spot_of(members, f) - spot).length_squared() < near_sq)
        })
    }

    /// Updates every member's choice. `leader` never follows; `reachable(spot)` rejects spots
    /// inside walls (return `true` to accept all).
    pub fn update(
        &mut self,
        members: &[Kinematic],
        leader: Option<usize>,
        reachable: impl Fn(Vec2) -> bool,
    ) {
        self.choices.resize(members.len(), None);
        for i in 0..members.len() {
            if Some(i) == leader {
                self.choices[i] = None;
                continue;
            }
            // keep a valid choice (rule 5), re-select when lost or unreachable (rule 6)
            if let Some(f) = self.choices[i] {
                let valid = f.target < members.len() && f.target != i && {
                    let s = Self::spot_of(members, f);
                    reachable(s) && !self.taken(i, members, s)
                };
                if valid {
                    continue;
                }
                self.choices[i] = None;
            }
            let me = &members[i];
            let forward = as_vector(me.orientation);
            let mut best: Option<(f32, Follow)> = None;
            for (j, other) in members.iter().enumerate() {
                let to = other.position - me.position;
                if j == i || to.dot(forward) <= 0.0 || self.cycles(i, j) {
                    continue;
                }
                let d_sq = to.length_squared();
                if best.is_some_and(|(b, _)| b <= d_sq) {
                    continue;
                }
                let rot = Vec2::from_angle(other.orientation);
                let left = Vec2::new(-self.back, self.lateral);
                let right = Vec2::new(-self.back, -self.lateral);
                let (pl, pr) =
                    (other.position + rot.rotate(left), other.position + rot.rotate(right));
                let sides =
                    if (pl - me.position).length_squared() <= (pr - me.position).length_squared() {
                        [(left, pl), (right, pr)]
                    } else {
                        [(right, pr), (left, pl)]
                    };
                for (offset, spot) in sides {
                    if reachable(spot) && !self.taken(i, members, spot) {
                        best = Some((d_sq, Follow { target: j, offset }));
                        break;
                    }
                }
            }
            self.choices[i] = best.map(|(_, f)| f);
        }
    }
}
