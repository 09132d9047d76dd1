//! Side-view worlds (Millington §3.6): jumpers run along platforms, velocity-match the run-up of
//! each gap's jump point, take off with the computed jump velocity, fly under gravity and land.
//!
//! The world is 2D seen from the side (x right, y up); the library's jumping works in 3D with y
//! up, so a point `(x, y)` is `(x, y, 0)` there. Each jumper group's course is planned once: for
//! every gap between consecutive platforms, a level gap at most `hole_width` wide is a **hole
//! filler** (run at it at full speed and jump on the lip, [`JumpDetector`]), any other gets a
//! **jump point** from its take-off (the near platform's end) to a landing pad just past the far
//! platform's start, solved with the group's [`JumpCapability`]; a gap the capability cannot
//! make is **refused** with the reason (too high: the landing is above the jump's apex; too far:
//! it needs a run-up faster than the jumper can run), and the jumpers stop at its edge.
//!
//! Each step, after the crowd's own (inert) step, every jumper's motion is set here: on a
//! platform it runs toward the course's end at full speed, and within the distance it needs to
//! change to the run-up speed it velocity-matches the run-up ([`Jump`]); at the take-off it
//! leaves with the planned velocity; in the air it falls under gravity (exactly: constant
//! acceleration) and lands on the first platform top it crosses from above, or falls out of the
//! world ("fell", a failed jump). A jumper that passes the take-off point without the run-up
//! speed has missed ("jump_missed") and runs off the edge.

use crate::SideView;
use serde::Serialize;
use steerkit::crowd::{AgentHandle, Crowd};
use steerkit::jump::{
    HoleFiller, Jump, JumpAction, JumpCapability, JumpDetector, JumpError, TakeoffConditions,
    TakeoffRule,
};
use steerkit::kinematic::{Kinematic, Limits};
use steerkit::predict::BallisticArc;
use steerkit::steering::{Approach, Arrive, VelocityMatch};
use steerkit::{Vec2, Vec3};

/// A jumper falling this far below the lowest platform has fallen out of the world (m).
const FALL_DEPTH: f32 = 20.0;
/// Response time of the run's velocity matching (s).
const RESPONSE: f32 = 0.1;

/// One gap of a group's course, as planned, with what happened at it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapMetrics {
    /// The jumper group.
    pub group: String,
    /// The gap after platform `gap` (platforms left to right, from 0).
    pub gap: usize,
    /// Take-off and landing points (m).
    pub from: [f32; 2],
    /// Landing pad (m).
    pub to: [f32; 2],
    /// Horizontal width of the gap between the platforms (m).
    pub width: f32,
    /// Height of the far platform above the near one (m).
    pub rise: f32,
    /// `hole` (a hole filler: full speed, jump on the lip), `jump` (a jump point) or `refused`.
    pub kind: &'static str,
    /// Why it was refused: `too high` or `too far`, with the figures.
    pub refused: Option<String>,
    /// The planned run-up speed (m/s) of a jump point.
    pub run_up_speed: Option<f32>,
    /// Jumpers that took off at it.
    pub taken: u64,
    /// Jumpers that landed on the far side.
    pub landed: u64,
    /// Jumpers that missed the take-off or fell.
    pub failed: u64,
}

enum Gap {
    Hole(HoleFiller),
    Jump(Jump),
    Refused,
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Run(usize),
    /// In the air, after taking off at the gap following this platform (if it jumped).
    Air(Option<usize>),
    Fell,
}

struct Jumper {
    handle: AgentHandle,
    number: u32,
    course: usize,
    kin: Kinematic<Vec3>,
    phase: Phase,
    /// This platform's jump, re-armed on landing.
    jump: Option<Jump>,
}

struct Course {
    group: String,
    limits: Limits,
    radius: f32,
    capability: JumpCapability,
    detector: JumpDetector,
    gaps: Vec<Gap>,
    metrics: Vec<GapMetrics>,
}

/// The side view of a run: the platforms, each jumper group's planned course, the jumpers.
pub struct SideViewRun {
    view: SideView,
    gravity: Vec3,
    courses: Vec<Course>,
    jumpers: Vec<Jumper>,
    /// The jumpers' agent numbers, sorted: asked once per agent per recorded frame, so a
    /// linear search would make a frame of many jumpers cost their number squared.
    numbers: Vec<u32>,
    bottom: f32,
}

/// A jumper group: its name, handles with their numbers, radius, limits and jump speed.
pub struct JumperGroup {
    /// Name.
    pub name: String,
    /// `(handle, agent number)` of each agent.
    pub agents: Vec<(AgentHandle, u32)>,
    /// Body radius (m).
    pub radius: f32,
    /// Run speed and acceleration.
    pub limits: Limits,
    /// Vertical take-off speed (m/s).
    pub jump_speed: f32,
}

fn lift(p: Vec2) -> Vec3 {
    p.extend(0.0)
}

/// Gap `i` of group `g`'s course, from platform `near` to platform `far`: a hole it runs over,
/// a jump it takes (planned to land past the far lip), or one it refuses, with its metrics.
fn plan_gap(
    view: &SideView,
    g: &JumperGroup,
    i: usize,
    (near, far): ((f32, f32, f32), (f32, f32, f32)),
    (capability, conditions): (&JumpCapability, TakeoffConditions),
    gravity: Vec3,
) -> Result<(Gap, GapMetrics), steerkit::ParamError> {
    let run = g.limits.max_speed();
    let width = far.0 - near.1;
    let rise = far.2 - near.2;
    let takeoff = Vec2::new(near.1 - 0.5 * g.radius, near.2);
    let landing = Vec2::new(far.0 + g.radius.max(0.3), far.2);
    let mut m = GapMetrics {
        group: g.name.clone(),
        gap: i,
        from: takeoff.to_array(),
        to: landing.to_array(),
        width,
        rise,
        kind: "jump",
        refused: None,
        run_up_speed: None,
        taken: 0,
        landed: 0,
        failed: 0,
    };
    let level = rise.abs() <= 1e-3;
    let gap = if level && width <= view.hole_width {
        let lip = Vec3::new(near.1, near.2, 0.0);
        let hole =
            HoleFiller::new(lip - Vec3::Z, lip + Vec3::Z, Vec3::X, width.max(1e-3) + g.radius)?;
        m.kind = "hole";
        if hole.clears(run, g.jump_speed, gravity.y, 0.0) {
            Gap::Hole(hole)
        } else {
            m.kind = "refused";
            m.refused = Some(format!("too far at full speed ({width:.2} m)"));
            Gap::Refused
        }
    } else {
        match Jump::to_landing(
            lift(takeoff),
            lift(landing),
            capability,
            conditions,
            VelocityMatch::new(RESPONSE)?,
        ) {
            Ok(j) => {
                m.run_up_speed = Some(j.point().run_up_velocity().length());
                Gap::Jump(j)
            }
            Err(e) => {
                m.kind = "refused";
                m.refused = Some(match e {
                    JumpError::TooHigh { max_rise } => {
                        format!("too high: {rise:.2} m up, the jump rises {max_rise:.2} m")
                    }
                    JumpError::TooFast { required } => format!(
                        "too far: {width:.2} m needs a {required:.2} m/s run-up, the jumper runs {run:.2}"
                    ),
                    other => other.to_string(),
                });
                Gap::Refused
            }
        }
    };
    Ok((gap, m))
}

impl SideViewRun {
    /// Plans every group's course and places its jumpers (`start(h)` is an agent's position).
    ///
    /// # Errors
    /// A capability the library refuses (never for a checked plan).
    pub fn new(
        view: &SideView,
        groups: Vec<JumperGroup>,
        dt: f32,
        start: impl Fn(AgentHandle) -> Option<Vec2>,
    ) -> Result<Self, steerkit::ParamError> {
        let gravity = Vec3::new(0.0, -view.gravity, 0.0);
        let p = &view.platforms;
        let bottom = p.iter().map(|q| q.2).fold(f32::INFINITY, f32::min) - FALL_DEPTH;
        let mut courses = Vec::with_capacity(groups.len());
        let mut jumpers = Vec::new();
        for g in groups {
            let run = g.limits.max_speed();
            let capability = JumpCapability::new(g.jump_speed, run * (1.0 + 1e-4), gravity)?;
            let detector = JumpDetector::new(
                1.0,
                (run * dt).max(0.02),
                g.jump_speed,
                VelocityMatch::new(RESPONSE)?,
            )?;
            let conditions = TakeoffConditions::new(
                (0.6 * run * dt).max(0.02),
                TakeoffRule::MatchVelocity { tolerance: 0.05 * run + 0.05 },
            )?;
            let mut gaps = Vec::new();
            let mut metrics = Vec::new();
            for (i, w) in p.windows(2).enumerate() {
                let (gap, m) =
                    plan_gap(view, &g, i, (w[0], w[1]), (&capability, conditions), gravity)?;
                gaps.push(gap);
                metrics.push(m);
            }
            let course = courses.len();
            for (h, number) in g.agents {
                let Some(at) = start(h) else { continue };
                let platform = p
                    .iter()
                    .position(|q| at.x >= q.0 && at.x <= q.1 && (at.y - q.2).abs() <= 1e-3)
                    .unwrap_or(0);
                jumpers.push(Jumper {
                    handle: h,
                    number,
                    course,
                    kin: Kinematic { position: lift(at), ..Kinematic::default() },
                    phase: Phase::Run(platform),
                    jump: None,
                });
            }
            courses.push(Course {
                group: g.name,
                limits: g.limits,
                radius: g.radius,
                capability,
                detector,
                gaps,
                metrics,
            });
        }
        let mut numbers: Vec<u32> = jumpers.iter().map(|j| j.number).collect();
        numbers.sort_unstable();
        let mut run =
            SideViewRun { view: view.clone(), gravity, courses, jumpers, numbers, bottom };
        for j in 0..run.jumpers.len() {
            run.arm(j);
        }
        Ok(run)
    }

    /// True when agent `number` is a jumper (its motion is set here, not steered).
    #[must_use]
    pub fn is_jumper(&self, number: u32) -> bool {
        self.numbers.binary_search(&number).is_ok()
    }

    /// The platform tops `(x_start, x_end, y)` (m), left to right.
    #[must_use]
    pub fn platforms(&self) -> Vec<(f32, f32, f32)> {
        self.view.platforms.clone()
    }

    /// Each gap's plan and counts.
    #[must_use]
    pub fn metrics(&self) -> Vec<GapMetrics> {
        self.courses.iter().flat_map(|c| c.metrics.iter().cloned()).collect()
    }

    /// The planned jump arcs (m, sampled) of the jump-point gaps, and the straight take-off to
    /// landing line of each refused gap, with a name saying which.
    #[must_use]
    pub fn arcs(&self) -> Vec<(String, Vec<Vec2>)> {
        let mut out = Vec::new();
        for c in &self.courses {
            for (g, m) in c.gaps.iter().zip(&c.metrics) {
                let (from, to) = (Vec2::from_array(m.from), Vec2::from_array(m.to));
                match g {
                    Gap::Jump(j) => {
                        let p = j.point();
                        let sol = c.capability.jump(lift(from), lift(to), BallisticArc::Low);
                        let t = sol.map_or(0.0, |s| s.time);
                        let v = p.launch_velocity();
                        let pts = (0..=24)
                            .map(|k| {
                                let s = t * k as f32 / 24.0;
                                let q = lift(from) + v * s + 0.5 * self.gravity * s * s;
                                q.truncate()
                            })
                            .collect();
                        out.push((format!("{} jump {}", c.group, m.gap), pts));
                    }
                    Gap::Refused => {
                        out.push((format!("{} refused {}", c.group, m.gap), vec![from, to]));
                    }
                    Gap::Hole(_) => {}
                }
            }
        }
        out
    }

    /// Arms jumper `j`'s jump for the gap after its platform, if that is a jump point.
    fn arm(&mut self, j: usize) {
        let jumper = &mut self.jumpers[j];
        jumper.jump = match jumper.phase {
            Phase::Run(p) => match self.courses[jumper.course].gaps.get(p) {
                Some(Gap::Jump(jump)) => {
                    let mut jump = *jump;
                    jump.reset();
                    Some(jump)
                }
                _ => None,
            },
            _ => None,
        };
    }

    /// Moves every jumper one step and writes its motion into the crowd; returns the step's
    /// events `(kind, agent)`: `jump`, `landed`, `jump_missed`, `fell`.
    ///
    /// # Errors
    /// A stale handle (never: jumpers are not despawned).
    pub fn step(
        &mut self,
        dt: f32,
        crowd: &mut Crowd<Vec2>,
    ) -> Result<Vec<(&'static str, u32)>, steerkit::crowd::CrowdError> {
        let mut events = Vec::new();
        for j in 0..self.jumpers.len() {
            let before = self.jumpers[j].phase;
            self.advance(j, dt, &mut events);
            if matches!((before, self.jumpers[j].phase), (Phase::Air(_), Phase::Run(_))) {
                self.arm(j);
            }
            let jumper = &self.jumpers[j];
            let k = jumper.kin;
            let heading = if k.velocity.x < -1e-3 { core::f32::consts::PI } else { 0.0 };
            let planar = Kinematic {
                position: k.position.truncate(),
                velocity: k.velocity.truncate(),
                orientation: heading,
                rotation: 0.0,
            };
            crowd.write_kinematic(jumper.handle, planar)?;
        }
        Ok(events)
    }

    fn advance(&mut self, j: usize, dt: f32, events: &mut Vec<(&'static str, u32)>) {
        let platforms = &self.view.platforms;
        let jumper = &mut self.jumpers[j];
        let course = &mut self.courses[jumper.course];
        let limits = course.limits;
        match jumper.phase {
            Phase::Fell => {}
            Phase::Run(p) => {
                let (x0, x1, top) = platforms[p];
                let last = p + 1 == platforms.len();
                let speed = limits.max_speed();
                // where to run: the course's end, or the edge of a refused gap
                let stop_at = match course.gaps.get(p) {
                    None => Some(x1 - course.radius),
                    Some(Gap::Refused) => Some(x1 - course.radius),
                    _ => None,
                };
                let mut accel = 0.0f32;
                let mut take_off = None;
                match (course.gaps.get(p), jumper.jump.as_mut()) {
                    (Some(Gap::Jump(_)), Some(jump)) => {
                        let want = jump.point().run_up_velocity().x;
                        let to_go = jump.point().takeoff().x - jumper.kin.position.x;
                        let s = jumper.kin.velocity.x;
                        let needed = (s * s - want * want).abs()
                            / (2.0 * limits.max_acceleration())
                            + 0.5 * s.abs();
                        if to_go <= needed
                            || matches!(jump.state(), steerkit::jump::JumpState::Missed)
                        {
                            match jump.steer(&jumper.kin, &limits) {
                                JumpAction::RunUp(st) => accel = st.linear.x,
                                JumpAction::TakeOff { velocity, .. } => take_off = Some(velocity),
                                JumpAction::Missed => accel = run_at(&jumper.kin, speed, &limits),
                                JumpAction::Airborne => {}
                            }
                        } else {
                            accel = run_at(&jumper.kin, speed, &limits);
                        }
                    }
                    (Some(Gap::Hole(hole)), _) => {
                        match course.detector.steer(hole, &jumper.kin, &limits) {
                            Some(JumpAction::TakeOff { velocity, .. }) => take_off = Some(velocity),
                            Some(JumpAction::RunUp(st)) => accel = st.linear.x,
                            _ => accel = run_at(&jumper.kin, speed, &limits),
                        }
                    }
                    _ => {
                        let target = stop_at.unwrap_or(x1);
                        let arrive = Arrive::with_approach(0.05, Approach::Braking, RESPONSE).ok();
                        accel = arrive
                            .and_then(|a| {
                                a.steer(&jumper.kin, Vec3::new(target, top, 0.0), &limits)
                            })
                            .map_or(0.0, |s| s.linear.x);
                    }
                }
                if let Some(v) = take_off {
                    jumper.kin.velocity = v;
                    jumper.phase = Phase::Air(Some(p));
                    course.metrics[p].taken += 1;
                    events.push(("jump", jumper.number));
                    fly(&mut jumper.kin, self.gravity, dt);
                } else {
                    let missed_now = jumper
                        .jump
                        .as_ref()
                        .is_some_and(|jm| matches!(jm.state(), steerkit::jump::JumpState::Missed));
                    let a = accel.clamp(-limits.max_acceleration(), limits.max_acceleration());
                    let v0 = jumper.kin.velocity.x;
                    let v1 = (v0 + a * dt).clamp(-speed, speed);
                    jumper.kin.position.x += 0.5 * (v0 + v1) * dt;
                    jumper.kin.position.y = top;
                    jumper.kin.velocity = Vec3::new(v1, 0.0, 0.0);
                    if jumper.kin.position.x > x1 || jumper.kin.position.x < x0 {
                        // ran off the edge without taking off
                        jumper.phase = Phase::Air(None);
                        if missed_now && !last {
                            course.metrics[p].failed += 1;
                            events.push(("jump_missed", jumper.number));
                        }
                    }
                }
            }
            Phase::Air(from) => {
                let before = jumper.kin.position;
                fly(&mut jumper.kin, self.gravity, dt);
                let after = jumper.kin.position;
                let landing = platforms.iter().position(|&(x0, x1, top)| {
                    before.y >= top && after.y <= top && after.x >= x0 && after.x <= x1
                });
                if let Some(q) = landing {
                    jumper.kin.position.y = platforms[q].2;
                    jumper.kin.velocity.y = 0.0;
                    jumper.phase = Phase::Run(q);
                    if let Some(p) = from {
                        if q > p {
                            course.metrics[p].landed += 1;
                            events.push(("landed", jumper.number));
                        } else {
                            course.metrics[p].failed += 1;
                            events.push(("fell", jumper.number));
                        }
                    }
                } else if after.y < self.bottom {
                    jumper.phase = Phase::Fell;
                    jumper.kin.velocity = Vec3::ZERO;
                    if let Some(p) = from {
                        course.metrics[p].failed += 1;
                    }
                    events.push(("fell", jumper.number));
                }
            }
        }
    }
}

/// The acceleration (m/s², along x) that velocity-matches running right at `speed`.
fn run_at(k: &Kinematic<Vec3>, speed: f32, limits: &Limits) -> f32 {
    VelocityMatch::new(RESPONSE)
        .ok()
        .and_then(|m| m.steer(k, Vec3::new(speed, 0.0, 0.0), limits))
        .map_or(0.0, |s| s.linear.x)
}

/// Free flight for `dt` under constant gravity (exact).
fn fly(k: &mut Kinematic<Vec3>, gravity: Vec3, dt: f32) {
    k.position += k.velocity * dt + 0.5 * gravity * dt * dt;
    k.velocity += gravity * dt;
}
