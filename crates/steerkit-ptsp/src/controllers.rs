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

/// Settings of the [`Reference`] controller. Units: px, px/s, px/s² and 40 ms steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReferenceSettings {
    /// How the waypoint order is chosen.
    pub tour: TourMethod,
    /// Turning cost of the 2-opt tour (px per radian): a reversal (π rad) costs as much as
    /// 126 px of path, about 1.3 s at cruise.
    pub turn_cost: f32,
    /// Follow the path toward the farthest point in sight at most this far along it (px): the
    /// lectures' "a point n steps ahead on the A* path".
    pub lookahead: f32,
    /// Clearance beyond the ship's radius (px) a straight line to a path point must keep all
    /// along to count as in sight: shortcuts keep half a pixel off wall corners.
    pub sight_margin: f32,
    /// Cruising speed (px/s): 70 % of the top speed (158 px/s), at which a full reversal
    /// (31 steps of turning) still fits in the maps' corridors.
    pub cruise: f32,
    /// Deceleration planned for before corners (px/s²): the speed toward a point `d` px away
    /// is at most `√(2·braking·d)`.
    pub braking: f32,
    /// Room (px) counted beyond the target when it is the waypoint itself: a waypoint only has
    /// to be passed within 5 px, not stopped at, so the ship arrives at up to
    /// `√(2·braking·pass_room)` (49 px/s with the defaults).
    pub pass_room: f32,
    /// Probe distances ahead (px): the lectures' 10–30 px.
    pub probes: [f32; 3],
    /// Probes run only above this speed (px/s): slower, the ship moves less than 0.2 px a step
    /// and cannot reach a wall the probes would warn of.
    pub probe_speed: f32,
    /// Probes reach no farther than the ship goes in this time (s), the nearest probe always:
    /// at 20 px/s only the 10 px probe is cast, from 40 px/s all three.
    pub probe_time: f32,
    /// Escape point distances from the probe's hit (px): the lectures' 5–10 px.
    pub escape: [f32; 3],
    /// Steps between re-plans of the path (8 steps, 0.32 s): the ship drifts off a path it
    /// cannot follow exactly, and a fresh A* path starts where it is.
    pub replan: u32,
    /// Steps without progress (the path left to the waypoint no shorter by `progress` px than
    /// its best) after which the ship slows down: 3 s. A ship that shuttles past a narrow door
    /// it cannot turn into at speed gets there at half the speed, then a quarter.
    pub stall: u32,
    /// The least shortening of the path left (px) that counts as progress.
    pub progress: f32,
    /// The slowest the ship is made by stalls, as a fraction of its planned speed.
    pub min_caution: f32,
}

impl Default for ReferenceSettings {
    fn default() -> Self {
        ReferenceSettings {
            tour: TourMethod::TwoOpt,
            turn_cost: 40.0,
            lookahead: 60.0,
            sight_margin: 0.5,
            cruise: 110.0,
            braking: 30.0,
            pass_room: 40.0,
            probes: [10.0, 20.0, 30.0],
            probe_speed: 5.0,
            probe_time: 0.75,
            escape: [5.0, 7.5, 10.0],
            replan: 8,
            stall: 75,
            progress: 5.0,
            min_caution: 0.25,
        }
    }
}

/// Where path following aims this step.
#[derive(Clone, Copy, Debug)]
struct Aim {
    /// The point steered for (px).
    target: Vec2,
    /// The speed wanted toward it (px/s).
    speed: f32,
    /// The nearest free cell, when the ship is closer to a wall than the grid allows (px).
    unstick: Option<Vec2>,
}

/// The reference controller, from the lectures' four ideas with steerkit's parts, one method
/// each:
///
/// 1. **Tour** ([`Reference::next_waypoint`]): path lengths between all waypoints by A*
///    ([`Planner::legs`]), nearest first, then 2-opt and or-opt on length plus a turning cost
///    ([`tour`]); the next waypoint is the first of the order not yet visited.
/// 2. **Path following** ([`Reference::follow_path`]): A* from the ship to the next waypoint
///    every few steps; steer for the farthest path point in line of sight within `lookahead`
///    px, at a speed that can stop in the distance to it, `min(cruise, √(2·braking·d))` (no
///    stop at the waypoint itself: it only has to be passed). When no path point is in sight
///    (the ship is pressed against a wall or round a corner), the first path point is the
///    target; when the ship is closer to a wall than the navigation grid allows, that first
///    point is the nearest free cell, so the ship always has a way off the wall.
/// 3. **Wall avoidance** ([`Reference::avoid_walls`], the pixel probes): points 10, 20 and
///    30 px ahead along the velocity; if one is closer to a wall than the ship's radius, an
///    escape point 5–10 px from it in one of 8 directions, clear of walls and nearest the
///    path's target, is sought instead.
/// 4. **Command** ([`best_action`]): the six actions tried one step ahead.
///
/// A stall watch slows the ship when the path left stops shortening (it keeps overshooting a
/// turn into a narrow door, say): half the speed after 3 s, a quarter after 6 s.
#[derive(Clone, Debug)]
pub struct Reference {
    settings: ReferenceSettings,
    planner: Planner,
    order: Vec<usize>,
    path: Vec<Vec2>,
    current: Option<usize>,
    planned_at: u32,
    /// The shortest path left to the current waypoint so far (px) and the step it was reached.
    best_left: (f32, u32),
    /// The fraction of the planned speed used, halved at each stall.
    caution: f32,
    notes: Notes,
}

impl Reference {
    /// The reference controller for `map` and `ship`: builds the planner (checking that every
    /// waypoint can be reached); the tour is planned in [`Controller::setup`], which [`race`]
    /// calls and times under the competition's rules (or at the first step without it).
    ///
    /// # Errors
    /// A waypoint the ship cannot reach ([`Planner::new`]).
    ///
    /// [`race`]: crate::race
    pub fn new(map: &Map, ship: &Ship, settings: ReferenceSettings) -> Result<Self, MapError> {
        let planner = Planner::new(map, ship)?;
        Ok(Reference {
            settings,
            planner,
            order: Vec::new(),
            path: Vec::new(),
            current: None,
            planned_at: 0,
            best_left: (f32::INFINITY, 0),
            caution: 1.0,
            notes: Notes::default(),
        })
    }

    /// The waypoint order (0-based); empty until the tour is planned.
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Idea 1, the tour: A* path lengths between all waypoints, then the order.
    fn plan_tour(&mut self, map: &Map) {
        let legs = self.planner.legs(map);
        self.order = tour(&legs, self.settings.tour, self.settings.turn_cost);
    }

    /// Idea 1, the tour: the first waypoint of the planned order not visited yet (`None` when
    /// all are).
    #[must_use]
    pub fn next_waypoint(&self, race: &RaceView<'_>) -> Option<usize> {
        self.order.iter().copied().find(|&w| race.visited.get(w).is_some_and(Option::is_none))
    }

    /// Idea 2, path following toward waypoint `next`: re-plans the A* path when the waypoint
    /// changes, every `replan` steps and when the path is used up; returns the point to steer
    /// for and the speed wanted toward it.
    fn follow_path(&mut self, race: &RaceView<'_>, next: usize) -> Aim {
        let s = self.settings;
        let p = race.state.position;
        if self.current != Some(next) {
            self.best_left = (f32::INFINITY, race.step);
            self.caution = 1.0;
        }
        if self.current != Some(next)
            || race.step >= self.planned_at + s.replan
            || self.path.len() < 2
        {
            self.path = self.planner.path_to(p, next).unwrap_or_default();
            self.current = Some(next);
            self.planned_at = race.step;
            self.watch_progress(race.step);
        }
        let waypoint = race.map.waypoints()[next];
        let Some(&first) = self.path.get(1) else {
            // no path (the ship's cell has no way there): straight for the waypoint
            let speed = s.cruise.min((2.0 * s.braking * s.pass_room).sqrt());
            return Aim { target: waypoint, speed, unstick: None };
        };
        // the farthest point in sight within the lookahead, along the path from the ship
        let mut target = None;
        let mut along = 0.0;
        let mut cut = false;
        let mut prev = p;
        for (i, &q) in self.path.iter().enumerate().skip(1) {
            along += prev.distance(q);
            prev = q;
            if along > s.lookahead {
                break;
            }
            if !self.planner.line_of_sight(p, q, s.sight_margin) {
                cut = true;
                break;
            }
            // the path's last point is the goal cell: aim at the waypoint's centre beyond it
            target = Some(if i + 1 == self.path.len() { waypoint } else { q });
        }
        // nothing in sight: the first path point, one cell away (or the nearest free cell)
        let target = target.unwrap_or(first);
        let unstick = (self.planner.clearance(p) < race.ship.radius + 1.0 && target == first)
            .then_some(first);
        let d = p.distance(target);
        // brake for a corner in sight; the waypoint itself is only passed
        let room = if target == waypoint {
            d + s.pass_room
        } else if cut || unstick.is_some() {
            d
        } else {
            d + s.lookahead
        };
        let speed = s.cruise.min((2.0 * s.braking * room).sqrt()) * self.caution;
        Aim { target, speed, unstick }
    }

    /// The stall watch of idea 2: when the path left has not shortened by `progress` px for
    /// `stall` steps, the speed is halved (down to `min_caution`), so a ship that keeps
    /// overshooting a turn it cannot make at speed makes it slower.
    fn watch_progress(&mut self, step: u32) {
        let s = self.settings;
        let left: f32 = self.path.windows(2).map(|w| w[0].distance(w[1])).sum();
        if self.path.len() >= 2 && left < self.best_left.0 - s.progress {
            self.best_left = (left, step);
        } else if step >= self.best_left.1 + s.stall {
            self.caution = (self.caution * 0.5).max(s.min_caution);
            self.best_left = (left, step);
        }
    }

    /// Idea 3, wall avoidance by pixel probes along the velocity: the desired velocity (px/s)
    /// toward the aim, or toward an escape point when a probe finds a wall; the probes and the
    /// escape point go into the notes.
    fn avoid_walls(&mut self, race: &RaceView<'_>, aim: Aim) -> Vec2 {
        let s = self.settings;
        let p = race.state.position;
        let mut desired = (aim.target - p).normalize_or_zero() * aim.speed;
        let v = race.state.velocity;
        let ahead = v.normalize_or_zero();
        let mut probes = Vec::with_capacity(3);
        let mut hit = None;
        // probes only while moving toward the target: a ship moving away (after a bounce or an
        // overshoot) is being turned round by the command choice, and an escape point ahead of
        // it would lead it farther the wrong way; and only as far as the ship goes in
        // `probe_time` (the nearest always), since a wall it cannot reach soon is no threat
        let toward = v.dot(aim.target - p) > 0.0;
        if v.length() > s.probe_speed && toward {
            let reach = v.length() * s.probe_time;
            let nearest = s.probes.iter().copied().fold(f32::INFINITY, f32::min);
            for &k in s.probes.iter().filter(|&&k| k <= reach.max(nearest)) {
                let q = p + ahead * k;
                let blocked = self.planner.clearance(q) < race.ship.radius;
                probes.push((p, q, blocked.then_some(1.0)));
                if blocked && hit.is_none() {
                    hit = Some(q);
                }
            }
        }
        let mut escape = aim.unstick;
        if let Some(c) = hit.filter(|_| aim.unstick.is_none()) {
            if let Some(e) = self.escape_point(race, c, aim.target) {
                escape = Some(e);
                // the escape is a detour, not a sprint: no faster than can stop short of the
                // wall the probe found (a cap at the present speed would ratchet down to a
                // crawl in a narrow corridor, where a slow ship's velocity wavers and its far
                // probes keep finding the side walls)
                let stop = (2.0 * s.braking * p.distance(c)).sqrt();
                desired = (e - p).normalize_or_zero() * aim.speed.min(stop);
            }
        }
        self.notes = Notes {
            target: Some(escape.unwrap_or(aim.target)),
            probes,
            escape,
            path: self.path.clone(),
            tour: self.order.clone(),
        };
        desired
    }

    /// The point 5–10 px from a probe's hit `c`, in one of 8 directions, clear of walls, in
    /// sight of the ship and nearest `target`.
    fn escape_point(&self, race: &RaceView<'_>, c: Vec2, target: Vec2) -> Option<Vec2> {
        let p = race.state.position;
        let mut best: Option<(f32, Vec2)> = None;
        for k in 0..8 {
            let u = Vec2::from_angle(k as f32 * core::f32::consts::FRAC_PI_4);
            for &r in &self.settings.escape {
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
        best.map(|(_, e)| e)
    }
}

impl Controller for Reference {
    fn setup(&mut self, map: &Map, _: &Ship) {
        if self.order.is_empty() {
            self.plan_tour(map);
        }
    }

    fn act(&mut self, race: &RaceView<'_>) -> Action {
        if self.order.is_empty() {
            self.plan_tour(race.map);
        }
        let Some(next) = self.next_waypoint(race) else { return Action::COAST };
        let aim = self.follow_path(race, next);
        let desired = self.avoid_walls(race, aim);
        best_action(race.map, race.ship, &race.state, desired)
    }

    fn notes(&self) -> Notes {
        self.notes.clone()
    }
}
