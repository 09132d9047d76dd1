//! A race: one ship, one map, a controller choosing an action every 40 ms, and the score.

use crate::{Action, Map, Ship};
use std::borrow::Borrow;
use std::time::{Duration, Instant};
use steerkit::kinematic::Kinematic;
use steerkit::Vec2;

/// When a race ends without visiting every waypoint, and the real-time rules if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceLimits {
    /// Steps in all.
    pub max_steps: u32,
    /// Steps without visiting a new waypoint (the competition's time-out).
    pub timeout: u32,
    /// The competition's real-time budgets, measured on the wall clock; `None` (the default)
    /// measures nothing, so that a race depends only on its inputs.
    pub time: Option<TimeRules>,
}

impl Default for RaceLimits {
    /// 10 000 steps (400 s) in all, 1 000 steps (40 s) between waypoints, no time rules.
    fn default() -> Self {
        RaceLimits { max_steps: 10_000, timeout: 1_000, time: None }
    }
}

/// The competition's real-time rules: how long a controller may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRules {
    /// Real time allowed for one [`Controller::act`] call.
    pub step: Duration,
    /// Real time allowed for [`Controller::setup`].
    pub setup: Duration,
    /// Strict rules: an action decided over the step budget is replaced by
    /// [`Action::COAST`] (no action), as the competition's engine did when no answer came in
    /// time. Otherwise the step is only flagged.
    pub strict: bool,
}

impl Default for TimeRules {
    /// The competition's: 40 ms a step, 1 s to set up; flag, do not replace.
    fn default() -> Self {
        TimeRules { step: Duration::from_millis(40), setup: Duration::from_secs(1), strict: false }
    }
}

/// What the time rules measured in a race.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// The rules applied.
    pub rules: TimeRules,
    /// Real time [`Controller::setup`] took.
    pub setup: Duration,
    /// The longest [`Controller::act`] call.
    pub slowest_step: Duration,
    /// The steps (1-based, as in [`StepLog::step`]) whose decision took longer than the step
    /// budget.
    pub over_budget: Vec<u32>,
}

impl Timing {
    /// True when setup took longer than its budget.
    #[must_use]
    pub fn setup_over_budget(&self) -> bool {
        self.setup > self.rules.setup
    }
}

/// How a race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every waypoint visited.
    Finished,
    /// [`RaceLimits::timeout`] steps without a new waypoint.
    TimedOut,
    /// [`RaceLimits::max_steps`] reached.
    StepLimit,
}

impl Outcome {
    /// `finished`, `timed_out` or `step_limit`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::TimedOut => "timed_out",
            Outcome::StepLimit => "step_limit",
        }
    }
}

/// The score of a race: the competition ranks by waypoints visited, then fewer steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// How it ended.
    pub outcome: Outcome,
    /// Steps taken (the score when finished: fewer is better).
    pub steps: u32,
    /// Waypoints visited.
    pub visited: usize,
    /// Waypoints on the map.
    pub waypoints: usize,
    /// Steps in which the ship hit a wall.
    pub collisions: u32,
}

impl Score {
    /// True when every waypoint was visited.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.outcome == Outcome::Finished
    }
}

/// What a controller sees each step.
#[derive(Clone, Copy, Debug)]
pub struct RaceView<'a> {
    /// The map.
    pub map: &'a Map,
    /// The ship's constants.
    pub ship: &'a Ship,
    /// The ship now: position (px), heading (rad), velocity (px/s).
    pub state: Kinematic,
    /// For each waypoint, the step it was visited at, if it was.
    pub visited: &'a [Option<u32>],
    /// Steps taken so far.
    pub step: u32,
}

/// What a controller may show in a replay about its last decision (all optional).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Notes {
    /// The point it steers for (px).
    pub target: Option<Vec2>,
    /// Probes: `(from, to, first wall hit as a fraction of the way or None)`.
    pub probes: Vec<(Vec2, Vec2, Option<f32>)>,
    /// An escape point chosen because a probe found a wall (px).
    pub escape: Option<Vec2>,
    /// The path it follows now (px), for the current waypoint.
    pub path: Vec<Vec2>,
    /// The waypoints in the order it means to visit them.
    pub tour: Vec<usize>,
}

/// A PTSP controller: given the race, return the next action. Implement this to race your own.
///
/// ```
/// use steerkit_ptsp::{Action, Controller, RaceView, Turn};
///
/// /// Turns toward the first unvisited waypoint and thrusts when facing it.
/// struct Greedy;
///
/// impl Controller for Greedy {
///     fn act(&mut self, race: &RaceView<'_>) -> Action {
///         let next = race.visited.iter().position(Option::is_none).unwrap_or(0);
///         let to = race.map.waypoints()[next] - race.state.position;
///         let off = steerkit::Vec2::from_angle(race.state.orientation).angle_to(to);
///         let turn = if off > 0.05 { Turn::Left } else if off < -0.05 { Turn::Right } else { Turn::Straight };
///         Action { thrust: off.abs() < 0.3, turn }
///     }
/// }
/// let map = steerkit_ptsp::builtin_map("open").unwrap();
/// let log = steerkit_ptsp::race(&map, &steerkit_ptsp::Ship::default(), &mut Greedy, Default::default());
/// assert!(log.score.visited > 0);
/// ```
pub trait Controller {
    /// The action for this step.
    fn act(&mut self, race: &RaceView<'_>) -> Action;

    /// What to show about the last decision in a replay.
    fn notes(&self) -> Notes {
        Notes::default()
    }

    /// Called once by [`race`] before the first step: do the planning here that the
    /// competition allowed a second for ([`TimeRules::setup`]). The default does nothing.
    fn setup(&mut self, map: &Map, ship: &Ship) {
        let _ = (map, ship);
    }
}

/// One step of a race as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct StepLog {
    /// The step (the state is after it).
    pub step: u32,
    /// The action taken.
    pub action: Action,
    /// The ship after the step.
    pub state: Kinematic,
    /// Whether it hit a wall in this step.
    pub collided: bool,
    /// The controller's notes for this step's decision.
    pub notes: Notes,
}

/// A whole race: the score, every step and when each waypoint was visited.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceLog {
    /// The score.
    pub score: Score,
    /// The start state.
    pub start: Kinematic,
    /// Every step.
    pub steps: Vec<StepLog>,
    /// For each waypoint, the step it was visited at.
    pub visited: Vec<Option<u32>>,
    /// What the time rules measured (`None` without [`RaceLimits::time`]).
    pub timing: Option<Timing>,
}

/// Runs `controller` on `map` with `ship` until every waypoint is visited or a limit is hit:
/// [`Controller::setup`] once, then each step [`Controller::act`] and [`Ship::step_in`]. The
/// ship starts at rest at the map's start, facing +x. A waypoint is visited in a step when the
/// straight path of the ship's centre during the step passes within [`Ship::visit_radius`]
/// (5 px) of the waypoint's centre: a fast ship cannot skip over one between two steps.
/// Deterministic without time rules: the same map, ship, controller and limits give the same
/// log (with [`RaceLimits::time`] the wall clock is read around each call, and under strict
/// rules a slow step changes the race). Check a map with [`Planner::new`](crate::Planner::new)
/// first: it refuses a start where the ship does not fit and waypoints it cannot reach (a race
/// on such a map only times out).
pub fn race(
    map: &Map,
    ship: &Ship,
    controller: &mut dyn Controller,
    limits: RaceLimits,
) -> RaceLog {
    let mut run = Race::new(map, *ship, limits);
    let mut timing = limits.time.map(|rules| Timing { rules, ..Timing::default() });
    let clock = || limits.time.map(|_| Instant::now());
    let began = clock();
    controller.setup(map, ship);
    if let (Some(t), Some(began)) = (timing.as_mut(), began) {
        t.setup = began.elapsed();
    }
    while run.outcome().is_none() {
        let began = clock();
        let mut action = controller.act(&run.view());
        if let (Some(t), Some(began)) = (timing.as_mut(), began) {
            let took = began.elapsed();
            t.slowest_step = t.slowest_step.max(took);
            if took > t.rules.step {
                t.over_budget.push(run.step_count() + 1);
                if t.rules.strict {
                    action = Action::COAST;
                }
            }
        }
        run.step(action, controller.notes());
    }
    let mut log = run.into_log();
    log.timing = timing;
    log
}

/// A race stepped by its caller: [`race`]'s loop one step at a time, for a driver that is not
/// a [`Controller`] (a game loop, a learning environment). The map is held by anything that
/// borrows as one (`&Map`, `Arc<Map>`). The same actions give the same race as [`race`].
#[derive(Clone, Debug)]
pub struct Race<M: Borrow<Map>> {
    map: M,
    ship: Ship,
    limits: RaceLimits,
    state: Kinematic,
    visited: Vec<Option<u32>>,
    steps: Vec<StepLog>,
    collisions: u32,
    last_visit: u32,
    step: u32,
}

impl<M: Borrow<Map>> Race<M> {
    /// A race at its start: the ship at rest at the map's start, facing +x. Only
    /// `max_steps` and `timeout` of `limits` apply (the time rules are [`race`]'s).
    pub fn new(map: M, ship: Ship, limits: RaceLimits) -> Self {
        let start = Kinematic { position: map.borrow().start(), ..Kinematic::default() };
        let visited = vec![None; map.borrow().waypoints().len()];
        Race {
            map,
            ship,
            limits,
            state: start,
            visited,
            steps: Vec::new(),
            collisions: 0,
            last_visit: 0,
            step: 0,
        }
    }

    /// What a controller would see now.
    #[must_use]
    pub fn view(&self) -> RaceView<'_> {
        RaceView {
            map: self.map.borrow(),
            ship: &self.ship,
            state: self.state,
            visited: &self.visited,
            step: self.step,
        }
    }

    /// Steps taken.
    #[must_use]
    pub fn step_count(&self) -> u32 {
        self.step
    }

    /// How the race ended, or `None` while it goes on: every waypoint visited, then the step
    /// limit, then the time-out, in that order.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        if self.visited.iter().all(Option::is_some) {
            Some(Outcome::Finished)
        } else if self.step >= self.limits.max_steps {
            Some(Outcome::StepLimit)
        } else if self.step - self.last_visit >= self.limits.timeout {
            Some(Outcome::TimedOut)
        } else {
            None
        }
    }

    /// Takes one 40 ms step with `action` ([`Ship::step_in`]) and records it with `notes`;
    /// returns how many waypoints it visited. A race that has ended ([`Race::outcome`]) takes
    /// no more steps: the call does nothing and returns 0.
    pub fn step(&mut self, action: Action, notes: Notes) -> usize {
        if self.outcome().is_some() {
            return 0;
        }
        let map = self.map.borrow();
        let (next, collided) = self.ship.step_in(map, &self.state, action);
        self.step += 1;
        self.collisions += u32::from(collided);
        let mut new = 0;
        for (w, seen) in map.waypoints().iter().zip(self.visited.iter_mut()) {
            if seen.is_none()
                && segment_distance(self.state.position, next.position, *w)
                    <= self.ship.visit_radius
            {
                *seen = Some(self.step);
                self.last_visit = self.step;
                new += 1;
            }
        }
        self.state = next;
        self.steps.push(StepLog { step: self.step, action, state: next, collided, notes });
        new
    }

    /// The last step taken, if any.
    #[must_use]
    pub fn last(&self) -> Option<&StepLog> {
        self.steps.last()
    }

    /// The race so far as a log (its outcome `TimedOut` if it has not ended), no timing.
    #[must_use]
    pub fn log(&self) -> RaceLog {
        RaceLog { steps: self.steps.clone(), ..self.log_without_steps() }
    }

    /// The race as a log, ending it.
    #[must_use]
    pub fn into_log(mut self) -> RaceLog {
        let steps = std::mem::take(&mut self.steps);
        RaceLog { steps, ..self.log_without_steps() }
    }

    fn log_without_steps(&self) -> RaceLog {
        let score = Score {
            outcome: self.outcome().unwrap_or(Outcome::TimedOut),
            steps: self.step,
            visited: self.visited.iter().filter(|v| v.is_some()).count(),
            waypoints: self.visited.len(),
            collisions: self.collisions,
        };
        let start = Kinematic { position: self.map.borrow().start(), ..Kinematic::default() };
        RaceLog { score, start, steps: Vec::new(), visited: self.visited.clone(), timing: None }
    }
}

/// Distance from `p` to the segment `a`–`b`: a fast ship passes a waypoint between two steps.
fn segment_distance(a: Vec2, b: Vec2, p: Vec2) -> f32 {
    steerkit::geometry::closest_point_on_segment(p, a, b).0.distance(p)
}
