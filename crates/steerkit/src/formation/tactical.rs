//! Tactical movement (Millington §3.7.10): cover-point slots with stable ids, and bounding
//! overwatch (two teams moving in turns between cover points).

use crate::error::{non_negative, positive, ParamError};
use crate::kinematic::Kinematic;
use glam::Vec2;

/// The overwatch pattern's slots (§3.7.10): the `N` cover points nearest the anchor, one per
/// slot, with **stable slot ids**: a cover point still in the set keeps its slot, and a cover
/// point entering the set takes the slot of one that left. As the anchor advances, the rearmost
/// member's slot jumps to the front and it leapfrogs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CoverSlots {
    slot_cover: Vec<Option<usize>>,
    ranked: Vec<(f32, u32)>,
    keep: Vec<bool>,
}

impl CoverSlots {
    /// `slots` slots, none placed yet.
    #[must_use]
    pub fn new(slots: usize) -> Self {
        CoverSlots { slot_cover: vec![None; slots], ranked: Vec::new(), keep: Vec::new() }
    }

    /// The cover point index of each slot.
    #[must_use]
    pub fn covers(&self) -> &[Option<usize>] {
        &self.slot_cover
    }

    /// Re-selects the cover points nearest `anchor` (ties: lower index), skipping those within
    /// `exclude_radius` m of `exclude` (the leader's own cover when a leader is the anchor).
    /// Returns how many slots changed cover point.
    pub fn update(&mut self, anchor: Vec2, covers: &[Vec2], exclude: Option<(Vec2, f32)>) -> usize {
        self.ranked.clear();
        for (i, c) in covers.iter().enumerate() {
            if let Some((p, r)) = exclude {
                if (*c - p).length_squared() < r * r {
                    continue;
                }
            }
            self.ranked.push(((*c - anchor).length_squared(), i as u32));
        }
        let n = self.slot_cover.len().min(self.ranked.len());
        let cmp = |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if n < self.ranked.len() && n > 0 {
            self.ranked.select_nth_unstable_by(n - 1, cmp);
        }
        self.ranked.truncate(n);
        self.ranked.sort_by(cmp);
        // which of the new set is already held
        self.keep.clear();
        self.keep.resize(n, false);
        for s in self.slot_cover.iter_mut() {
            match s.and_then(|c| self.ranked.iter().position(|&(_, i)| i as usize == c)) {
                Some(k) => self.keep[k] = true,
                None => *s = None,
            }
        }
        let mut changed = 0;
        let mut next = 0;
        for s in self.slot_cover.iter_mut().filter(|s| s.is_none()) {
            while next < n && self.keep[next] {
                next += 1;
            }
            if next >= n {
                break;
            }
            *s = Some(self.ranked[next].1 as usize);
            self.keep[next] = true;
            changed += 1;
        }
        changed
    }
}

/// One of the two teams of a bounding overwatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Team {
    /// Team A (moves first).
    A,
    /// Team B.
    B,
}

impl Team {
    /// The other team.
    #[must_use]
    pub fn other(self) -> Team {
        match self {
            Team::A => Team::B,
            Team::B => Team::A,
        }
    }
}

/// Bounding overwatch (§3.7.10): two teams move in turns from cover to cover toward a goal. One
/// team holds (overwatches) while the other bounds to the free cover points nearest the point
/// `bound` m past the holding team's centre toward the goal; the bound ends when every mover is
/// within `settle_radius` of its cover and slower than `settle_speed`, and the other team goes.
///
/// Members are indexed as in the slice passed to [`update`](Self::update); each has a team and a
/// cover point. No member ever receives a new cover point while the other team is bounding.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundingOverwatch {
    teams: Vec<Team>,
    cover: Vec<usize>,
    covers: Vec<Vec2>,
    goal: Vec2,
    bound: f32,
    settle_radius: f32,
    settle_speed: f32,
    moving: Option<Team>,
    next: Team,
    bounds: usize,
}

impl BoundingOverwatch {
    /// Overwatch over `covers` toward `goal`. `teams[i]` is member i's team; members start in
    /// the free cover nearest their `start` position (in member order).
    ///
    /// # Errors
    /// If `bound` or `settle_radius` is not finite and positive, `settle_speed` negative, there
    /// are fewer cover points than members, or the lengths of `teams` and `start` differ.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        teams: Vec<Team>,
        start: &[Vec2],
        covers: Vec<Vec2>,
        goal: Vec2,
        bound: f32,
        settle_radius: f32,
        settle_speed: f32,
    ) -> Result<Self, ParamError> {
        positive("bound", bound)?;
        positive("settle_radius", settle_radius)?;
        non_negative("settle_speed", settle_speed)?;
        if covers.len() < teams.len() || start.len() != teams.len() {
            return Err(ParamError::Count {
                name: "covers",
                count: covers.len(),
                expected: "at least one cover point per member, one start per member",
            });
        }
        let mut o = BoundingOverwatch {
            cover: Vec::with_capacity(teams.len()),
            teams,
            covers,
            goal,
            bound,
            settle_radius,
            settle_speed,
            moving: None,
            next: Team::A,
            bounds: 0,
        };
        for &p in start {
            let c = o.nearest_free(p).unwrap_or(0);
            o.cover.push(c);
        }
        Ok(o)
    }

    fn nearest_free(&self, p: Vec2) -> Option<usize> {
        let mut best: Option<(f32, usize)> = None;
        for (i, c) in self.covers.iter().enumerate() {
            if self.cover.contains(&i) {
                continue;
            }
            let d = (*c - p).length_squared();
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// The team bounding now, if any.
    #[must_use]
    pub fn moving(&self) -> Option<Team> {
        self.moving
    }

    /// Completed bounds.
    #[must_use]
    pub fn bounds(&self) -> usize {
        self.bounds
    }

    /// Member i's cover point (its target position).
    #[must_use]
    pub fn target(&self, member: usize) -> Option<Vec2> {
        self.cover.get(member).map(|&c| self.covers[c])
    }

    /// Member i's team.
    #[must_use]
    pub fn team(&self, member: usize) -> Option<Team> {
        self.teams.get(member).copied()
    }

    fn centre(&self, team: Team, of: impl Fn(usize) -> Vec2) -> Vec2 {
        let mut sum = Vec2::ZERO;
        let mut n = 0;
        for (i, _) in self.teams.iter().enumerate().filter(|(_, t)| **t == team) {
            sum += of(i);
            n += 1;
        }
        if n == 0 {
            Vec2::ZERO
        } else {
            sum / n as f32
        }
    }

    /// Advances the state machine with the members' current states; returns the team bounding
    /// after the update. Extra or missing members are ignored.
    pub fn update(&mut self, members: &[Kinematic]) -> Option<Team> {
        if members.len() < self.teams.len() {
            return self.moving;
        }
        if let Some(team) = self.moving {
            let settled =
                self.teams.iter().enumerate().filter(|(_, t)| **t == team).all(|(i, _)| {
                    let k = &members[i];
                    (k.position - self.covers[self.cover[i]]).length_squared()
                        <= self.settle_radius * self.settle_radius
                        && k.velocity.length_squared() <= self.settle_speed * self.settle_speed
                });
            if !settled {
                return self.moving;
            }
            self.moving = None;
            self.next = team.other();
            self.bounds += 1;
        }
        let team = self.next;
        let holding = self.centre(team.other(), |i| self.covers[self.cover[i]]);
        let to_goal = self.goal - holding;
        let step = to_goal.length().min(self.bound);
        let aim = holding + to_goal.normalize_or_zero() * step;
        for i in 0..self.teams.len() {
            if self.teams[i] != team {
                continue;
            }
            // release this member's cover, then take the free one nearest the aim point
            let old = self.cover[i];
            self.cover[i] = usize::MAX;
            self.cover[i] = self.nearest_free(aim).unwrap_or(old);
        }
        self.moving = Some(team);
        self.moving
    }
}
