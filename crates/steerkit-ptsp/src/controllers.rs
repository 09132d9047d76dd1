//! Controllers: the naive baseline and the reference controller built from steerkit's parts.

use crate::plan::{tour, Planner, TourMethod};
use crate::{Action, Controller, Map, MapError, Notes, RaceView, Ship, STEP};
use steerkit::kinematic::Kinematic;
use steerkit::motor::choose_command;
use steerkit::Vec2;

/// Chooses the action whose one-step outcome is quickest to turn into `desired` (px/s): of the
/// six, the one minimising the estimated time still needed after it,
/// `|angle(heading', e')| / turn_rate + |e'| / acceleration` with `e' = desired − v'` (the ship
/// must face the error before thrust can remove it), plus a second for a step into a wall.
/// The lectures' "try every command" with a cost that sees one turn ahead.
#[must_use]
pub fn best_action(map: &Map, ship: &Ship, state: &Kinematic, desired: Vec2) -> Action {
    let scale = ship.acceleration * STEP; // the speed change of one thrust step (px/s)
    choose_command(&Action::ALL, |&a| {
        let (next, hit) = ship.step_in(map, state, a);
        let e = desired - next.velocity;
        let facing = Vec2::from_angle(next.orientation).angle_to(e).abs();
        // an error smaller than one thrust step needs no facing
        let weight = (e.length() / scale).min(1.0);
        weight * facing / ship.turn_rate()
            + e.length() / ship.acceleration
            + f32::from(u8::from(hit))
    })
    .map_or(Action::COAST, |(a, _)| a)
}

/// The baseline: heads straight for the nearest unvisited waypoint at top speed, with
/// [`best_action`]. No planning: walls stop it.
#[derive(Clone, Debug, Default)]
pub struct Naive {
    notes: Notes,
}

impl Naive {
    /// A naive controller.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Controller for Naive {
    fn act(&mut self, race: &RaceView<'_>) -> Action {
        let p = race.state.position;
        let target = race
            .map
            .waypoints()
            .iter()
            .zip(race.visited)
            .filter(|(_, v)| v.is_none())
            .map(|(w, _)| *w)
            .min_by(|a, b| a.distance(p).total_cmp(&b.distance(p)));
        let Some(target) = target else { return Action::COAST };
        self.notes.target = Some(target);
        let desired = (target - p).normalize_or_zero() * race.ship.top_speed();
        best_action(race.map, race.ship, &race.state, desired)
    }

    fn notes(&self) -> Notes {
        self.notes.clone()
    }
}

/// Settings of the [`Reference`] controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReferenceSettings {
    /// How the waypoint order is chosen.
    pub tour: TourMethod,
    /// Turning cost of the tour (px per radian).
    pub turn_cost: f32,
    /// Follow the path toward the farthest point in sight at most this far along it (px): the
    /// lectures' "a point n steps ahead on the A* path".
    pub lookahead: f32,
    /// Cruising speed (px/s).
    pub cruise: f32,
    /// Deceleration planned for before corners (px/s²).
    pub braking: f32,
    /// Probe distances ahead (px): the lectures' 10–30 px.
    pub probes: [f32; 3],
    /// Escape point distances from the probe's hit (px): the lectures' 5–10 px.
    pub escape: [f32; 3],
    /// Steps between re-plans of the path.
    pub replan: u32,
}

impl Default for ReferenceSettings {
    fn default() -> Self {
        ReferenceSettings {
            tour: TourMethod::TwoOpt,
            turn_cost: 40.0,
            lookahead: 60.0,
            cruise: 110.0,
            braking: 30.0,
            probes: [10.0, 20.0, 30.0],
            escape: [5.0, 7.5, 10.0],
            replan: 8,
        }
    }
}

/// The reference controller, from the lectures' hints with steerkit's parts:
///
/// 1. **Tour**: path lengths between all waypoints by A* ([`Planner::legs`]), nearest first,
///    then 2-opt and or-opt on length plus a turning cost ([`tour`]).
/// 2. **Path following**: A* from the ship to the next waypoint every few steps; steer for the
///    farthest path point in line of sight within `lookahead` px, at a speed that can stop in the
///    distance to it, `min(cruise, √(2·braking·d))` (no stop at the waypoint itself: it only
///    has to be passed).
/// 3. **Wall avoidance** (the pixel probes): points 10, 20 and 30 px ahead along the velocity;
///    if one is closer to a wall than the ship's radius, an escape point 5–10 px from it in one
///    of 8 directions, clear of walls and nearest the path's target, is sought instead.
/// 4. **Command**: [`best_action`], trying the six actions one step ahead.
#[derive(Clone, Debug)]
pub struct Reference {
    settings: ReferenceSettings,
    planner: Planner,
    order: Vec<usize>,
    path: Vec<Vec2>,
    current: Option<usize>,
    planned_at: u32,
    notes: Notes,
}

impl Reference {
    /// Plans the tour of `map` for `ship`.
    ///
    /// # Errors
    /// A waypoint the ship cannot reach ([`Planner::new`]).
    pub fn new(map: &Map, ship: &Ship, settings: ReferenceSettings) -> Result<Self, MapError> {
        let mut planner = Planner::new(map, ship)?;
        let legs = planner.legs(map);
        let order = tour(&legs, settings.tour, settings.turn_cost);
        Ok(Reference {
            settings,
            planner,
            order,
            path: Vec::new(),
            current: None,
            planned_at: 0,
            notes: Notes::default(),
        })
    }

    /// The waypoint order (0-based).
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }
}

impl Controller for Reference {
    fn act(&mut self, race: &RaceView<'_>) -> Action {
        let s = self.settings;
        let p = race.state.position;
        let Some(&next) = self.order.iter().find(|&&w| race.visited[w].is_none()) else {
            return Action::COAST;
        };
        if self.current != Some(next)
            || race.step >= self.planned_at + s.replan
            || self.path.is_empty()
        {
            self.path = self.planner.path_to(p, next).unwrap_or_default();
            self.current = Some(next);
            self.planned_at = race.step;
        }
        let waypoint = race.map.waypoints()[next];
        // the farthest point in sight within the lookahead, along the path from the ship
        let mut target = waypoint;
        let mut along = 0.0;
        let mut cut = false;
        let mut prev = p;
        for &q in self.path.iter().skip(1) {
            along += prev.distance(q);
            prev = q;
            if along > s.lookahead {
                break;
            }
            if !self.planner.line_of_sight(p, q, 0.5) {
                cut = true;
                break;
            }
            target = q;
        }
        if self.path.len() < 2 {
            target = waypoint;
        }
        let d = p.distance(target);
        let reaches_waypoint = target.distance(waypoint) < 1e-3 || self.path.len() < 2;
        // brake for a corner in sight; the waypoint itself is only passed
        let room = if reaches_waypoint {
            d + 40.0
        } else if cut {
            d
        } else {
            d + s.lookahead
        };
        let speed = s.cruise.min((2.0 * s.braking * room).sqrt());
        let mut desired = (target - p).normalize_or_zero() * speed;
        // pixel probes along the motion (a ship at rest cannot hit anything)
        let v = race.state.velocity;
        let ahead = v.normalize_or_zero();
        let mut probes = Vec::with_capacity(3);
        let mut hit = None;
        for &k in s.probes.iter().filter(|_| v.length() > 5.0) {
            let q = p + ahead * k;
            let blocked = self.planner.clearance(q) < race.ship.radius;
            probes.push((p, q, blocked.then_some(1.0)));
            if blocked && hit.is_none() {
                hit = Some(q);
            }
        }
        let mut escape = None;
        if let Some(c) = hit {
            let mut best: Option<(f32, Vec2)> = None;
            for k in 0..8 {
                let u = Vec2::from_angle(k as f32 * core::f32::consts::FRAC_PI_4);
                for &r in &s.escape {
                    let e = c + u * r;
                    if self.planner.clearance(e) >= race.ship.radius + 1.0
                        && self.planner.line_of_sight(p, e, 0.0)
                    {
                        let score = e.distance(target);
                        if best.is_none_or(|(b, _)| score < b) {
                            best = Some((score, e));
                        }
                    }
                }
            }
            if let Some((_, e)) = best {
                escape = Some(e);
                // no faster than now: the escape is a detour, not a sprint
                desired = (e - p).normalize_or_zero() * v.length().min(speed);
            }
        }
        self.notes = Notes {
            target: Some(escape.unwrap_or(target)),
            probes,
            escape,
            path: self.path.clone(),
            tour: self.order.clone(),
        };
        best_action(race.map, race.ship, &race.state, desired)
    }

    fn notes(&self) -> Notes {
        self.notes.clone()
    }
}
