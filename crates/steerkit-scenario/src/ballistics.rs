//! Turrets and their projectiles in a run (Millington §3.5): aiming with the library's firing
//! solutions and iterative targeting, flying each projectile with its forward model, counting
//! hits and misses, and setting the crowd's hazards from the grenades in the air.
//!
//! The world is 3D, y up; the ground is the plane y = 0. Each step, after the crowd has moved:
//! live projectiles advance by `dt`; a shell hits the first agent whose body its step's segment
//! passes within `hit_radius` of (the segment's closest point to the agent's centre is within
//! `hit_radius + r`), and misses when it reaches the ground, leaves the world box or flies
//! [`MAX_FLIGHT`] seconds; a grenade goes off at its fuse or on landing and catches every agent
//! whose body the blast radius reaches. Then every turret whose time has come fires at its
//! target's current position and velocity. Last, each grenade's predicted blast
//! ([`Grenade::blast`]) becomes a [`Hazard`] for the crowd's `flee_hazards` leaves. Cost: a live
//! shell tests every agent each step (a turret scenario has tens of agents, not thousands).
//!
//! `steerkit run` (re-exported as `steerkit_cli::ballistics`) and the live playground
//! (`steerkit serve`) both step turrets with this code, so a turret scenario plays the same in
//! both. [`Shot`] and [`TurretShape`] are the replay recording's shapes; the playground streams
//! shots still in the air ([`Ballistics::flying`]) in the same shape, and carries shots, counts
//! and firing times across an edit that rebuilds the world ([`Ballistics::carry_over`]).

use crate::{Aim, Drag, Solver, TurretPlan};
use serde::{Deserialize, Serialize};
use steerkit::crowd::{AgentHandle, Crowd, CrowdVector, Hazard};
use steerkit::predict::{
    aim_at_moving_target, firing_solution, lead_target, refine_targeting, AimError, BallisticArc,
    ForwardModel, Grenade, LinearDrag, MovingTargetOptions, NoDrag, QuadraticDrag,
    TargetingOptions,
};
use steerkit::Vec3;

/// Longest flight (s) before a projectile counts as a miss.
pub const MAX_FLIGHT: f32 = 30.0;
/// Points of a shot's predicted flight kept for the replay.
const PREDICTED_POINTS: usize = 32;
/// Samples of a shot's actual flight kept for the replay.
const PATH_POINTS: usize = 400;

/// A turret of a 3D world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurretShape {
    /// Name.
    pub name: String,
    /// `#rrggbb`.
    pub colour: String,
    /// Muzzle position (m).
    pub position: [f32; 3],
}

/// One projectile's flight: what was aimed, what happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shot {
    /// Index of the turret in `world.turrets`.
    pub turret: u32,
    /// Step it was fired at.
    pub step: u32,
    /// Step its flight ended (hit, landing, blast).
    pub end: u32,
    /// The agent aimed at.
    pub target: u32,
    /// `low` or `high`.
    pub arc: String,
    /// The flight the aim assumed (m).
    pub predicted: Vec<[f32; 3]>,
    /// The actual flight: `[step, x, y, z]` samples (m).
    pub path: Vec<[f32; 4]>,
    /// `hit`, `miss` or `blast`.
    pub outcome: String,
    /// Where it ended (m).
    pub impact: [f32; 3],
    /// The agent hit, if any.
    #[serde(default)]
    pub hit: Option<u32>,
    /// A grenade's blast radius (m).
    #[serde(default)]
    pub blast_radius: Option<f32>,
}

/// A turret's counts in `metrics.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurretMetrics {
    /// The turret's name.
    pub name: String,
    /// Projectiles fired.
    pub shots: u64,
    /// Shells that hit an agent (any agent; `target_hits` of them its target).
    pub hits: u64,
    /// Shells that hit the agent they were aimed at.
    pub target_hits: u64,
    /// Shells that reached the ground, left the world or flew too long.
    pub misses: u64,
    /// `target_hits / shots` (0 when nothing was fired).
    pub hit_rate: f64,
    /// Times the turret could not aim (target out of range, no solution, target gone).
    pub no_solution: u64,
    /// Grenades gone off.
    pub blasts: u64,
    /// Agents caught in those blasts (an agent caught by two blasts counts twice).
    pub caught: u64,
    /// Of those, the agent the grenade was aimed at.
    pub target_caught: u64,
}

/// A turret's projectile model.
#[derive(Clone, Copy, Debug)]
enum Model {
    None(NoDrag),
    Linear(LinearDrag),
    Quadratic(QuadraticDrag),
}

impl ForwardModel for Model {
    fn gravity(&self) -> Vec3 {
        match self {
            Model::None(m) => m.gravity(),
            Model::Linear(m) => m.gravity(),
            Model::Quadratic(m) => m.gravity(),
        }
    }
    fn step(&self, position: Vec3, velocity: Vec3, dt: f32) -> (Vec3, Vec3) {
        match self {
            Model::None(m) => m.step(position, velocity, dt),
            Model::Linear(m) => m.step(position, velocity, dt),
            Model::Quadratic(m) => m.step(position, velocity, dt),
        }
    }
}

struct Turret {
    plan: TurretPlan,
    target: AgentHandle,
    target_number: u32,
    model: Model,
    /// The model the aim assumes: the drag-free one for the closed form.
    aim_model: Model,
    next_shot: f64,
    metrics: TurretMetrics,
}

#[derive(Clone)]
struct Live {
    turret: usize,
    position: Vec3,
    velocity: Vec3,
    age: f32,
    record: Shot,
}

/// The turrets of a run and their projectiles in the air.
pub struct Ballistics {
    turrets: Vec<Turret>,
    live: Vec<Live>,
    /// The world box's lower and upper corners, if bounded (a projectile leaving it misses).
    volume: Option<(Vec3, Vec3)>,
    hazards: Vec<Hazard<Vec3>>,
}

/// What a step of the ballistics reports: finished shots and events for the replay.
#[derive(Default)]
pub struct Outcomes {
    /// Shots that ended this step.
    pub finished: Vec<Shot>,
    /// `(kind, agent)` events: `shot`, `hit`, `miss`, `blast`, `caught`, `no_solution`.
    pub events: Vec<(&'static str, Option<u32>)>,
}

impl Ballistics {
    /// The turrets of a plan; `agent(t)` is the handle and number of a turret's target.
    ///
    /// # Errors
    /// A drag model the library refuses (never for a checked plan).
    pub fn new(
        turrets: &[TurretPlan],
        agent: impl Fn(&TurretPlan) -> Option<(AgentHandle, u32)>,
        volume: Option<(Vec3, Vec3)>,
    ) -> Result<Self, steerkit::ParamError> {
        let mut out = Vec::with_capacity(turrets.len());
        for plan in turrets {
            let Some((target, target_number)) = agent(plan) else { continue };
            let model = match plan.drag {
                Drag::None => Model::None(NoDrag::new(plan.gravity)?),
                Drag::Linear { k } => Model::Linear(LinearDrag::new(plan.gravity, k)?),
                Drag::Quadratic { k, c, wind } => {
                    Model::Quadratic(QuadraticDrag::new(plan.gravity, k, c)?.with_wind(wind)?)
                }
            };
            let aim_model = match plan.solver {
                Solver::ClosedForm => Model::None(NoDrag::new(plan.gravity)?),
                Solver::Iterative => model,
            };
            out.push(Turret {
                metrics: TurretMetrics {
                    name: plan.name.clone(),
                    shots: 0,
                    hits: 0,
                    target_hits: 0,
                    misses: 0,
                    hit_rate: 0.0,
                    no_solution: 0,
                    blasts: 0,
                    caught: 0,
                    target_caught: 0,
                },
                next_shot: f64::from(plan.first_shot),
                plan: plan.clone(),
                target,
                target_number,
                model,
                aim_model,
            });
        }
        Ok(Ballistics { turrets: out, live: Vec::new(), volume, hazards: Vec::new() })
    }

    /// True when there is no turret.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.turrets.is_empty()
    }

    /// The turrets as the replay draws them (`colour(i)` gives turret `i`'s colour).
    #[must_use]
    pub fn shapes(&self, colour: impl Fn(usize) -> String) -> Vec<TurretShape> {
        self.turrets
            .iter()
            .enumerate()
            .map(|(i, t)| TurretShape {
                name: t.plan.name.clone(),
                colour: t.plan.colour.clone().unwrap_or_else(|| colour(i)),
                position: t.plan.position.to_array(),
            })
            .collect()
    }

    /// Each turret's counts.
    #[must_use]
    pub fn metrics(&self) -> Vec<TurretMetrics> {
        self.turrets
            .iter()
            .map(|t| {
                let mut m = t.metrics.clone();
                m.hit_rate = if m.shots > 0 { m.target_hits as f64 / m.shots as f64 } else { 0.0 };
                m
            })
            .collect()
    }

    /// Advances the projectiles, fires what is due and sets the crowd's hazards, after step
    /// `step` (time `step·dt`). `bodies` are the agents: (number, position, radius).
    ///
    /// # Errors
    /// A hazard the crowd refuses (never: blasts are finite).
    pub fn step<V: CrowdVector>(
        &mut self,
        step: u32,
        dt: f32,
        crowd: &mut Crowd<V>,
        bodies: &[(u32, Vec3, f32)],
        lift: impl Fn(V) -> Vec3,
        lower: impl Fn(Vec3) -> V,
    ) -> Result<Outcomes, steerkit::crowd::CrowdError> {
        let mut out = Outcomes::default();
        self.fly(step, dt, bodies, &mut out);
        self.fire(step, dt, crowd, &lift, &mut out);
        self.predict_blasts();
        self.apply_hazards(crowd, lower)?;
        Ok(out)
    }

    /// Each grenade in the air's predicted blast, as a hazard.
    fn predict_blasts(&mut self) {
        self.hazards.clear();
        for l in &self.live {
            let t = &self.turrets[l.turret];
            if let Some((fuse, radius)) = t.plan.grenade {
                let g = Grenade {
                    position: l.position,
                    velocity: l.velocity,
                    gravity: t.plan.gravity,
                    fuse: fuse.map(|f| (f - l.age).max(0.0)),
                    blast_radius: radius,
                };
                if let Some((centre, _)) = g.blast(0.0) {
                    self.hazards.push(Hazard { centre, radius });
                }
            }
        }
    }

    /// Hands the predicted blasts of the grenades in the air to `crowd` as its hazards (done by
    /// [`Ballistics::step`]; a crowd built afresh needs it once, after
    /// [`Ballistics::carry_over`]).
    ///
    /// # Errors
    /// A hazard the crowd refuses (never: blasts are finite).
    pub fn apply_hazards<V: CrowdVector>(
        &self,
        crowd: &mut Crowd<V>,
        lower: impl Fn(Vec3) -> V,
    ) -> Result<(), steerkit::crowd::CrowdError> {
        if !self.hazards.is_empty() || !crowd.hazards().is_empty() {
            let hazards: Vec<Hazard<V>> = self
                .hazards
                .iter()
                .map(|h| Hazard { centre: lower(h.centre), radius: h.radius })
                .collect();
            crowd.set_hazards(&hazards)?;
        }
        Ok(())
    }

    /// The shots in the air, in firing order, each in the recording's shape with its flight so
    /// far: `end` is `step` (the step just taken), `outcome` is `"flying"` and `impact` is
    /// where it is now. What the live playground draws between a shot's firing and its end.
    #[must_use]
    pub fn flying(&self, step: u32) -> Vec<Shot> {
        let mut out: Vec<Shot> = self
            .live
            .iter()
            .map(|l| {
                let mut s = l.record.clone();
                s.end = step;
                s.outcome = "flying".to_owned();
                s.impact = l.position.to_array();
                s
            })
            .collect();
        out.sort_by_key(|s| (s.step, s.turret));
        out
    }

    /// Takes over `old`'s projectiles in the air, counts and firing times, turret by turret
    /// (matched by name: a turret `old` lacks starts afresh, and the shots of a turret this one
    /// lacks are dropped). The live playground rebuilds the world after an edit; its turrets
    /// carry on where they were. Then [`Ballistics::apply_hazards`] gives the new crowd the
    /// grenades' predicted blasts.
    pub fn carry_over(&mut self, old: &Ballistics) {
        let to: Vec<Option<usize>> = old
            .turrets
            .iter()
            .map(|o| self.turrets.iter().position(|t| t.plan.name == o.plan.name))
            .collect();
        for (o, &ni) in old.turrets.iter().zip(&to) {
            if let Some(t) = ni.and_then(|i| self.turrets.get_mut(i)) {
                t.next_shot = o.next_shot;
                t.metrics = o.metrics.clone();
            }
        }
        for l in &old.live {
            if let Some(ni) = to.get(l.turret).copied().flatten() {
                let mut l = l.clone();
                l.turret = ni;
                l.record.turret = ni as u32;
                self.live.push(l);
            }
        }
        self.predict_blasts();
    }

    /// Moves every live projectile one step and ends the ones that hit, land, go off or leave.
    fn fly(&mut self, step: u32, dt: f32, bodies: &[(u32, Vec3, f32)], out: &mut Outcomes) {
        let mut i = 0;
        while i < self.live.len() {
            let l = &mut self.live[i];
            let t = &mut self.turrets[l.turret];
            let (p0, v0) = (l.position, l.velocity);
            let (p1, v1) = t.model.step(p0, v0, dt);
            l.age += dt;
            let mut end: Option<(&'static str, Vec3, Option<u32>)> = None;
            if !(p1.is_finite() && v1.is_finite()) {
                end = Some(("miss", p0, None));
            } else if let Some((fuse, radius)) = t.plan.grenade {
                let landed = p1.y <= 0.0;
                let fused = fuse.is_some_and(|f| l.age >= f);
                if landed || fused {
                    let at = if landed { ground_crossing(p0, p1) } else { p1 };
                    t.metrics.blasts += 1;
                    out.events.push(("blast", None));
                    for &(a, p, r) in bodies {
                        if p.distance(at) <= radius + r {
                            t.metrics.caught += 1;
                            if a == t.target_number {
                                t.metrics.target_caught += 1;
                            }
                            out.events.push(("caught", Some(a)));
                        }
                    }
                    end = Some(("blast", at, None));
                }
            } else {
                // the first body the step's segment passes through
                let mut first: Option<(f32, u32, Vec3)> = None;
                for &(a, p, r) in bodies {
                    let (q, s) = closest_on_segment(p0, p1, p);
                    if q.distance(p) <= t.plan.hit_radius + r && first.is_none_or(|f| s < f.0) {
                        first = Some((s, a, q));
                    }
                }
                if let Some((_, a, q)) = first {
                    t.metrics.hits += 1;
                    if a == t.target_number {
                        t.metrics.target_hits += 1;
                    }
                    out.events.push(("hit", Some(a)));
                    end = Some(("hit", q, Some(a)));
                } else if p1.y <= 0.0 {
                    end = Some(("miss", ground_crossing(p0, p1), None));
                }
            }
            let outside = self.volume.is_some_and(|(lo, hi)| {
                p1.cmplt(lo - Vec3::splat(1e-3)).any() || p1.cmpgt(hi + Vec3::splat(1e-3)).any()
            });
            if end.is_none() && (outside || l.age >= MAX_FLIGHT) {
                end = Some(("miss", p1, None));
            }
            if end.is_some_and(|e| e.0 == "miss") {
                t.metrics.misses += 1;
                out.events.push(("miss", None));
            }
            l.position = p1;
            l.velocity = v1;
            match end {
                Some((outcome, at, hit)) => {
                    let mut l = self.live.swap_remove(i);
                    l.record.end = step;
                    l.record.outcome = outcome.to_owned();
                    l.record.impact = at.to_array();
                    l.record.hit = hit;
                    push_sample(&mut l.record.path, step, at);
                    out.finished.push(l.record);
                }
                None => {
                    push_sample(&mut l.record.path, step, p1);
                    i += 1;
                }
            }
        }
    }

    /// Fires every turret whose time has come.
    fn fire<V: CrowdVector>(
        &mut self,
        step: u32,
        dt: f32,
        crowd: &Crowd<V>,
        lift: &impl Fn(V) -> Vec3,
        out: &mut Outcomes,
    ) {
        let now = f64::from(step) * f64::from(dt);
        for (ti, t) in self.turrets.iter_mut().enumerate() {
            // at most one shot per turret per step, however short the interval
            if now + 1e-9 < t.next_shot {
                continue;
            }
            t.next_shot = (t.next_shot + f64::from(t.plan.interval)).max(now);
            let Some(k) = crowd.kinematic(t.target) else {
                t.metrics.no_solution += 1;
                out.events.push(("no_solution", None));
                continue;
            };
            let (p, v) = (lift(k.position), lift(k.velocity));
            let Ok((direction, time)) = aim(t, p, v) else {
                t.metrics.no_solution += 1;
                out.events.push(("no_solution", Some(t.target_number)));
                continue;
            };
            let start = t.plan.position;
            let velocity = direction * t.plan.muzzle_speed;
            let predicted = (0..=PREDICTED_POINTS)
                .map(|j| {
                    let tj = time * j as f32 / PREDICTED_POINTS as f32;
                    fly_for(&t.aim_model, start, velocity, tj).to_array()
                })
                .collect();
            t.metrics.shots += 1;
            out.events.push(("shot", Some(t.target_number)));
            let arc = match (t.plan.solver, t.plan.arc) {
                (Solver::ClosedForm, BallisticArc::High) => "high",
                _ => "low",
            };
            self.live.push(Live {
                turret: ti,
                position: start,
                velocity,
                age: 0.0,
                record: Shot {
                    turret: ti as u32,
                    step,
                    end: step,
                    target: t.target_number,
                    arc: arc.to_owned(),
                    predicted,
                    path: vec![[step as f32, start.x, start.y, start.z]],
                    outcome: String::new(),
                    impact: start.to_array(),
                    hit: None,
                    blast_radius: t.plan.grenade.map(|g| g.1),
                },
            });
        }
    }
}

/// The firing direction and predicted flight time for a target at `p` moving at `v`.
fn aim(t: &Turret, p: Vec3, v: Vec3) -> Result<(Vec3, f32), AimError> {
    let (start, speed, g) = (t.plan.position, t.plan.muzzle_speed, t.plan.gravity);
    let options = TargetingOptions {
        margin: (0.25 * t.plan.hit_radius).max(0.02),
        sample_interval: 0.02,
        max_flight_time: MAX_FLIGHT,
        ..TargetingOptions::default()
    };
    let lead = MovingTargetOptions::default();
    match (t.plan.aim, t.plan.solver) {
        (Aim::Direct, Solver::ClosedForm) => {
            firing_solution(start, p, speed, g, t.plan.arc).map(|s| (s.direction, s.time))
        }
        (Aim::Lead, Solver::ClosedForm) => {
            aim_at_moving_target(start, p, v, speed, g, t.plan.arc, &lead)
                .map(|s| (s.direction, s.time))
        }
        (Aim::Direct, Solver::Iterative) => {
            refine_targeting(&t.model, start, p, speed, &options).map(|s| (s.direction, s.time))
        }
        (Aim::Lead, Solver::Iterative) => {
            lead_target(&t.model, start, p, v, speed, &options, &lead)
                .map(|s| (s.direction, s.time))
        }
    }
}

/// The position after `time` seconds with `model`, in steps of at most 0.02 s.
fn fly_for(model: &Model, start: Vec3, velocity: Vec3, time: f32) -> Vec3 {
    let n = (time / 0.02).ceil().clamp(1.0, 1e5) as u32;
    let dt = time / n as f32;
    let (mut p, mut v) = (start, velocity);
    for _ in 0..n {
        (p, v) = model.step(p, v, dt);
    }
    p
}

/// Where the segment `a → b` crosses y = 0 (`b` if it does not).
fn ground_crossing(a: Vec3, b: Vec3) -> Vec3 {
    let dy = a.y - b.y;
    if dy > 0.0 && a.y >= 0.0 {
        a + (b - a) * (a.y / dy).clamp(0.0, 1.0)
    } else {
        b
    }
}

/// The point of segment `a → b` nearest `p` and its parameter in [0, 1].
fn closest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> (Vec3, f32) {
    let (q, s) = steerkit::geometry::closest_point_on_segment(p, a, b);
    (q, s)
}

/// Appends a flight sample, keeping at most [`PATH_POINTS`] (every other one is dropped when
/// full, so long flights stay evenly sampled).
fn push_sample(path: &mut Vec<[f32; 4]>, step: u32, p: Vec3) {
    if path.len() >= PATH_POINTS {
        let last = path.len() - 1;
        let mut k = 0;
        path.retain(|_| {
            k += 1;
            k % 2 == 1 || k - 1 == last
        });
    }
    path.push([step as f32, p.x, p.y, p.z]);
}
