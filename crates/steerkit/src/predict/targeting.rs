//! Iterative targeting: flying shots with a forward model and searching the elevation (and the
//! bearing, in a crosswind) until one hits.

use super::firing::validate_shot;
use super::{firing_solution, AimError, BallisticArc, ForwardModel};
use crate::error::{at_least_one, non_negative, positive, ParamError};
use crate::math::horizontal;
use core::f32::consts::FRAC_PI_2;
use glam::Vec3;

/// Settings of [`refine_targeting`] and [`distance_to_target`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetingOptions {
    /// A shot hits when its closest approach is below this (m), > 0: small for a small target,
    /// large for a big one or an area-damage weapon.
    pub margin: f32,
    /// Time between trajectory samples (s), > 0: about 0.5 for slow simple projectiles, 0.1 for
    /// fast ones or ones with wind and lift. The sampled curve is refined 16-fold around its
    /// closest point, so the chord error `|g|·dt²/8` shrinks by 256.
    pub sample_interval: f32,
    /// Longest flight simulated (s), > 0.
    pub max_flight_time: f32,
    /// A flight stops once it is descending and this far below the target (m), ≥ 0: it will not
    /// come back up (this assumes no lift).
    pub drop_limit: f32,
    /// Cap on the number of simulated shots, ≥ 1.
    pub max_simulations: u32,
    /// Rounds of bearing correction for crosswind, alternating with the elevation search.
    pub bearing_rounds: u32,
}

impl Default for TargetingOptions {
    /// 0.1 m margin, 0.1 s samples, 30 s flights, stop 5 m below the target, 160 shots, 4
    /// bearing rounds.
    fn default() -> Self {
        TargetingOptions {
            margin: 0.1,
            sample_interval: 0.1,
            max_flight_time: 30.0,
            drop_limit: 5.0,
            max_simulations: 160,
            bearing_rounds: 4,
        }
    }
}

impl TargetingOptions {
    fn validate(&self) -> Result<(), ParamError> {
        positive("margin", self.margin)?;
        positive("sample_interval", self.sample_interval)?;
        positive("max_flight_time", self.max_flight_time)?;
        non_negative("drop_limit", self.drop_limit)?;
        at_least_one("max_simulations", self.max_simulations as usize, "at least 1")?;
        Ok(())
    }
}

/// A simulated shot's closest approach to the target, signed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Miss {
    /// Closest distance (m), **positive for an overshoot** (the flight passes above or beyond the
    /// target) and **negative for an undershoot** (it passes below or falls short).
    pub distance: f32,
    /// When the closest approach happens (s).
    pub time: f32,
    /// Where the projectile is then (m).
    pub point: Vec3,
}

impl Miss {
    /// True when `|distance| < margin`.
    #[must_use]
    pub fn hits(&self, margin: f32) -> bool {
        self.distance.abs() < margin
    }
}

/// The point of segment `a→b` closest to `p`, and its parameter `s ∈ [0, 1]`, always as
/// `a + (b − a)·s`. Geometry's
/// [`closest_point_on_segment`](crate::geometry::closest_point_on_segment) returns the end
/// points themselves (`b` rather than `a + (b − a)·1`, and `a` for a NaN parameter), which can
/// differ in the last bit; the measured misses are defined by this form.
pub(super) fn closest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> (Vec3, f32) {
    let ab = b - a;
    let len_sq = ab.length_squared();
    let s = if len_sq > 0.0 { ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * s, s)
}

/// Flies a shot with `model` and measures its signed closest approach to `target` (the book's
/// `distanceToTarget`, §3.5.5).
///
/// The flight is sampled every `sample_interval` seconds until `max_flight_time`, or until it is
/// descending and `drop_limit` below the target; the samples form a piecewise-linear curve whose
/// nearest point to the target is found, then the two samples around it are re-flown at a
/// sixteenth of the interval and searched again. The sign says which side the miss is on: the
/// offset from the target to the closest point, taken along the upward normal of the flight
/// direction there (positive: the shot passes above, i.e. over or beyond; negative: below or
/// short); for a vertical flight direction, along the horizontal bearing from `start` to `target`.
/// Options are not validated here: a non-positive interval measures the start point only, and a
/// flight is cut at 10⁶ samples.
#[must_use]
pub fn distance_to_target<M: ForwardModel + ?Sized>(
    model: &M,
    start: Vec3,
    velocity: Vec3,
    target: Vec3,
    options: &TargetingOptions,
) -> Miss {
    const REFINE: u32 = 16;
    let dt = options.sample_interval;
    // invalid timing options fly nothing: only the start point is measured
    let steps = if dt > 0.0 && options.max_flight_time.is_finite() {
        (options.max_flight_time / dt).ceil().clamp(0.0, 1e6) as u32
    } else {
        0
    };
    let (mut p, mut v) = (start, velocity);
    // (distance, state at the start of the sample before the best segment)
    let mut best = (start.distance(target), (start, velocity, 0.0f32));
    let mut prev = (start, velocity, 0.0f32);
    let mut t = 0.0f32;
    for i in 0..steps {
        let (p1, v1) = model.step(p, v, dt);
        if !(p1.is_finite() && v1.is_finite()) {
            break;
        }
        let (q, _) = closest_on_segment(p, p1, target);
        let dist = q.distance(target);
        if dist < best.0 {
            best = (dist, if i == 0 { (p, v, t) } else { prev });
        }
        prev = (p, v, t);
        p = p1;
        v = v1;
        t = (i + 1) as f32 * dt;
        if p.y < target.y - options.drop_limit && v.y < 0.0 {
            break;
        }
    }
    // re-fly the neighbourhood of the best segment at a finer interval
    let (mut fp, mut fv, mut ft) = best.1;
    let h = dt / REFINE as f32;
    let mut closest = (fp.distance(target), fp, fv, ft);
    for _ in 0..3 * REFINE {
        let (p1, v1) = model.step(fp, fv, h);
        if !(p1.is_finite() && v1.is_finite()) {
            break;
        }
        let (q, s) = closest_on_segment(fp, p1, target);
        let dist = q.distance(target);
        if dist < closest.0 {
            closest = (dist, q, fv.lerp(v1, s), ft + s * h);
        }
        fp = p1;
        fv = v1;
        ft += h;
    }
    let (dist, point, vel, time) = closest;
    let offset = point - target;
    let dir = vel.normalize_or_zero();
    let up = Vec3::Y - dir * dir.y;
    let bearing = {
        let b = horizontal(target - start).normalize_or_zero();
        if b == Vec3::ZERO {
            horizontal(velocity).normalize_or_zero()
        } else {
            b
        }
    };
    let side = if up.length_squared() > 1e-6 { offset.dot(up) } else { offset.dot(bearing) };
    Miss { distance: if side < 0.0 { -dist } else { dist }, time, point }
}

/// The result of [`refine_targeting`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetingSolution {
    /// Unit firing direction.
    pub direction: Vec3,
    /// Time of closest approach to the target (s).
    pub time: f32,
    /// Signed miss distance (m), `|miss| < margin`.
    pub miss: f32,
    /// Shots simulated to find it.
    pub simulations: u32,
}

/// The direction at a horizontal unit `bearing` and an `elevation` (rad): the book's
/// `convertToDirection`, `bearing·cos(elevation) + ŷ·sin(elevation)`.
#[must_use]
#[inline]
pub fn direction_from_elevation(bearing: Vec3, elevation: f32) -> Vec3 {
    let (s, c) = elevation.sin_cos();
    bearing * c + Vec3::Y * s
}

/// The outcome of a bisection on elevation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Bisection {
    /// A probe within the margin, at this angle.
    Hit(f32),
    /// The bracket shrank below the angular resolution without a hit.
    Collapsed,
    /// The probe function refused (budget spent).
    Exhausted,
}

/// Smallest bracket (rad) bisection keeps halving.
const ANGLE_RESOLUTION: f32 = 1e-5;

/// Bisects `[lo, hi]`, an undershoot (`miss < 0`) at `lo` and an overshoot at `hi`, probing the
/// midpoint `(lo + hi)/2` (not the book's `(hi − lo)/2`) and moving a bound **inside** the loop,
/// until a probe is within `margin` or the bracket is narrower than [`ANGLE_RESOLUTION`].
/// `miss(angle)` returns the signed miss or `None` to stop (budget).
pub(super) fn bisect(
    mut lo: f32,
    mut hi: f32,
    margin: f32,
    mut miss: impl FnMut(f32) -> Option<f32>,
) -> Bisection {
    while hi - lo > ANGLE_RESOLUTION {
        let mid = 0.5 * (lo + hi);
        let Some(m) = miss(mid) else {
            return Bisection::Exhausted;
        };
        if m.abs() < margin {
            return Bisection::Hit(mid);
        }
        if m < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Bisection::Collapsed
}

/// One iterative targeting request in progress: what to fire, the shots flown so far (capped
/// at `options.max_simulations`) and the best of them.
struct ShotSearch<'a, M: ?Sized> {
    model: &'a M,
    start: Vec3,
    end: Vec3,
    speed: f32,
    options: &'a TargetingOptions,
    simulations: u32,
    best: Option<(Vec3, Miss)>,
}

enum Elevation {
    Hit(f32, Miss),
    OutOfRange,
    /// No hit on this bearing: the best elevation found.
    Stuck(f32),
    Exhausted,
}

impl<M: ForwardModel + ?Sized> ShotSearch<'_, M> {
    fn shoot(&mut self, direction: Vec3) -> Option<Miss> {
        if self.simulations >= self.options.max_simulations {
            return None;
        }
        self.simulations += 1;
        let miss = distance_to_target(
            self.model,
            self.start,
            direction * self.speed,
            self.end,
            self.options,
        );
        let better = match self.best {
            None => true,
            Some((_, b)) => miss.distance.abs() < b.distance.abs(),
        };
        if better {
            self.best = Some((direction, miss));
        }
        Some(miss)
    }

    fn done(&self, direction: Vec3, miss: Miss) -> TargetingSolution {
        TargetingSolution {
            direction,
            time: miss.time,
            miss: miss.distance,
            simulations: self.simulations,
        }
    }

    fn at(&mut self, bearing: Vec3, elevation: f32) -> Option<Miss> {
        self.shoot(direction_from_elevation(bearing, elevation))
    }

    /// Elevation search on one bearing from the first guess `a0` (§3.5.5 with the errata fixed).
    fn search(&mut self, bearing: Vec3, a0: f32) -> Elevation {
        const TOP: f32 = FRAC_PI_2 - 1e-3;
        const SCAN: u32 = 8;
        let margin = self.options.margin;
        let Some(m0) = self.at(bearing, a0) else {
            return Elevation::Exhausted;
        };
        if m0.hits(margin) {
            return Elevation::Hit(a0, m0);
        }
        let (lo, hi) = if m0.distance > 0.0 {
            // overshoot: the answer is below; straight down always falls short
            let lo = -TOP;
            let Some(m) = self.at(bearing, lo) else {
                return Elevation::Exhausted;
            };
            if m.hits(margin) {
                return Elevation::Hit(lo, m);
            }
            if m.distance > 0.0 {
                return Elevation::Stuck(a0);
            }
            (lo, a0)
        } else {
            // undershoot: find an overshooting elevation above a0. The book tries only π/4, which
            // is the best angle only without drag and for a target level with the start; scan up
            // to vertical instead, then look around the best scanned angle.
            let mut bracket = None;
            let mut scanned = [(a0, m0.distance); SCAN as usize + 1];
            for i in 1..=SCAN {
                let a = a0 + (TOP - a0) * i as f32 / SCAN as f32;
                let Some(m) = self.at(bearing, a) else {
                    return Elevation::Exhausted;
                };
                if m.hits(margin) {
                    return Elevation::Hit(a, m);
                }
                scanned[i as usize] = (a, m.distance);
                if m.distance > 0.0 {
                    bracket = Some((scanned[i as usize - 1].0, a));
                    break;
                }
            }
            match bracket {
                Some(b) => b,
                None => {
                    // every scanned shot undershoots: golden-section search for the least
                    // undershoot between the neighbours of the best scanned elevation
                    let j = (0..scanned.len())
                        .max_by(|&x, &y| scanned[x].1.total_cmp(&scanned[y].1))
                        .unwrap_or(0);
                    let l = scanned[j.saturating_sub(1)].0;
                    let r = scanned[(j + 1).min(SCAN as usize)].0;
                    match self.golden(bearing, l, r) {
                        Golden::Hit(a, m) => return Elevation::Hit(a, m),
                        Golden::Over(a) => (l, a),
                        Golden::Under => {
                            return if self.simulations < self.options.max_simulations {
                                // the highest-reaching shot still falls short: out of range
                                // (this check belongs to the undershoot branch only)
                                Elevation::OutOfRange
                            } else {
                                Elevation::Exhausted
                            };
                        }
                        Golden::Exhausted => return Elevation::Exhausted,
                    }
                }
            }
        };
        let mut last_hit = None;
        let outcome = bisect(lo, hi, margin, |a| {
            let m = self.at(bearing, a)?;
            last_hit = Some((a, m));
            Some(m.distance)
        });
        match (outcome, last_hit) {
            (Bisection::Hit(a), Some((_, m))) => Elevation::Hit(a, m),
            (Bisection::Exhausted, _) => Elevation::Exhausted,
            (_, Some((a, _))) => Elevation::Stuck(a),
            (_, None) => Elevation::Stuck(0.5 * (lo + hi)),
        }
    }

    /// Golden-section search for the elevation in `[l, r]` with the largest signed miss, stopping
    /// early at a hit or an overshoot.
    fn golden(&mut self, bearing: Vec3, mut l: f32, mut r: f32) -> Golden {
        const INV_PHI: f32 = 0.618_034;
        let margin = self.options.margin;
        let probe = |this: &mut Self, a: f32| -> Result<f32, Golden> {
            let m = this.at(bearing, a).ok_or(Golden::Exhausted)?;
            if m.hits(margin) {
                Err(Golden::Hit(a, m))
            } else if m.distance > 0.0 {
                Err(Golden::Over(a))
            } else {
                Ok(m.distance)
            }
        };
        let mut c = r - INV_PHI * (r - l);
        let mut e = l + INV_PHI * (r - l);
        let mut mc = match probe(self, c) {
            Ok(m) => m,
            Err(g) => return g,
        };
        let mut me = match probe(self, e) {
            Ok(m) => m,
            Err(g) => return g,
        };
        while r - l > ANGLE_RESOLUTION {
            if mc > me {
                r = e;
                e = c;
                me = mc;
                c = r - INV_PHI * (r - l);
                mc = match probe(self, c) {
                    Ok(m) => m,
                    Err(g) => return g,
                };
            } else {
                l = c;
                c = e;
                mc = me;
                e = l + INV_PHI * (r - l);
                me = match probe(self, e) {
                    Ok(m) => m,
                    Err(g) => return g,
                };
            }
        }
        Golden::Under
    }
}

enum Golden {
    Hit(f32, Miss),
    Over(f32),
    Under,
    Exhausted,
}

/// Iterative targeting (§3.5.5): a firing direction for any [`ForwardModel`], found by simulation.
///
/// 1. Guess: the drag-free [`firing_solution`] (low arc) under the model's gravity; if that is out
///    of range, the direction of the target, treated as an undershoot.
/// 2. Fly it ([`distance_to_target`]); a hit is `|miss| < margin`.
/// 3. Overshoot: bisect elevation between straight down (which falls short) and the guess.
///    Undershoot: scan elevations above the guess up to vertical for an overshoot, then bisect;
///    if none overshoots, a golden-section search finds the highest-reaching elevation, and if
///    even that falls short the target is **out of range**. (The book checks only π/4 and only
///    after both branches: π/4 is the best angle only without drag and for a level target, and
///    the check wrongly fails every overshoot.)
/// 4. Bisection probes the midpoint `(lo + hi)/2` and updates a bound on every pass, until a hit or
///    the bracket is narrower than 1e-5 rad.
/// 5. Crosswind: if the closest approach is off to the side, the bearing is turned against the
///    lateral miss and the elevation searched again, up to `bearing_rounds` times.
///
/// A purely vertical target is tried straight up (or down) only. Elevation is searched on the
/// low arc: the result has the shorter of the flight times that hit. Cost is
/// `O(flight time / sample_interval)` per shot, and the number of shots is capped by
/// `max_simulations`; memory is `O(1)`.
///
/// # Errors
/// [`AimError::OutOfRange`], [`AimError::TargetAtStart`], [`AimError::Invalid`];
/// [`AimError::NotConverged`] with the best shot when the cap is reached, or when the margin is
/// finer than the sampling can resolve.
pub fn refine_targeting<M: ForwardModel + ?Sized>(
    model: &M,
    start: Vec3,
    end: Vec3,
    muzzle_speed: f32,
    options: &TargetingOptions,
) -> Result<TargetingSolution, AimError> {
    validate_shot(start, end, muzzle_speed, model.gravity())?;
    options.validate()?;
    let delta = end - start;
    if delta == Vec3::ZERO {
        return Err(AimError::TargetAtStart);
    }
    let mut shots =
        ShotSearch { model, start, end, speed: muzzle_speed, options, simulations: 0, best: None };
    let not_converged = |t: &ShotSearch<'_, M>| {
        t.best.map_or(AimError::OutOfRange, |(direction, m)| AimError::NotConverged {
            direction,
            miss: m.distance.abs(),
        })
    };
    let range = horizontal(delta).length();
    if range <= 1e-5 * delta.length() {
        let dir = if delta.y > 0.0 { Vec3::Y } else { -Vec3::Y };
        let m = shots.shoot(dir).ok_or(AimError::OutOfRange)?;
        return if m.hits(options.margin) {
            Ok(shots.done(dir, m))
        } else {
            Err(AimError::OutOfRange)
        };
    }
    let mut bearing = horizontal(delta) / range;
    let mut elevation =
        match firing_solution(start, end, muzzle_speed, model.gravity(), BallisticArc::Low) {
            Ok(s) => s.direction.y.atan2(horizontal(s.direction).length()),
            Err(AimError::OutOfRange) => delta.y.atan2(range),
            Err(e) => return Err(e),
        };
    for round in 0..=options.bearing_rounds {
        match shots.search(bearing, elevation) {
            Elevation::Hit(a, m) => {
                return Ok(shots.done(direction_from_elevation(bearing, a), m));
            }
            Elevation::OutOfRange if round == 0 => return Err(AimError::OutOfRange),
            Elevation::OutOfRange | Elevation::Exhausted => break,
            Elevation::Stuck(a) => {
                elevation = a;
                let Some((dir, m)) = shots.best else { break };
                let side = Vec3::Y.cross(bearing);
                let lateral = (m.point - end).dot(side);
                if lateral.abs() < 0.5 * options.margin {
                    break;
                }
                let aim = horizontal(dir).normalize_or_zero() * range - side * lateral;
                let next = horizontal(aim).normalize_or_zero();
                if next == Vec3::ZERO {
                    break;
                }
                bearing = next;
            }
        }
    }
    Err(not_converged(&shots))
}

/// Leads a target moving at constant velocity through any forward model: the moving-target
/// iteration of [`aim_at_moving_target`](super::aim_at_moving_target) with
/// [`refine_targeting`] in place of the drag-free firing solution (§3.5.3 with §3.5.5), so drag
/// and wind are allowed for.
///
/// ```text
/// t₀ = 0;   aim_k = P + V·t_k;   t_{k+1} = time of the closest approach of
///           refine_targeting(model, start, aim_k)
/// stop when |V|·|t_{k+1} − t_k| ≤ lead.tolerance   (the target's drift between guesses, m)
/// ```
/// The returned direction passes within `options.margin` of `aim_k` at `t_{k+1}`, where the
/// target is within `lead.tolerance` of it. Each iteration costs one [`refine_targeting`].
///
/// # Errors
/// As [`refine_targeting`] for each predicted position; [`AimError::NotConverged`] with the last
/// direction and drift at the iteration cap.
pub fn lead_target<M: ForwardModel + ?Sized>(
    model: &M,
    start: Vec3,
    target_position: Vec3,
    target_velocity: Vec3,
    muzzle_speed: f32,
    options: &TargetingOptions,
    lead: &super::MovingTargetOptions,
) -> Result<super::Interception, AimError> {
    super::finite_vec("target_position", target_position)?;
    super::finite_vec("target_velocity", target_velocity)?;
    positive("tolerance", lead.tolerance)?;
    let speed = target_velocity.length();
    let mut t = 0.0f32;
    let mut last = None;
    for _ in 0..lead.max_iterations.max(1) {
        let aim = target_position + target_velocity * t;
        let s = refine_targeting(model, start, aim, muzzle_speed, options)?;
        let drift = speed * (s.time - t).abs();
        if drift <= lead.tolerance {
            return Ok(super::Interception { direction: s.direction, time: s.time, point: aim });
        }
        last = Some((s.direction, drift));
        t = s.time;
    }
    let (direction, miss) = last.unwrap_or((Vec3::ZERO, f32::INFINITY));
    Err(AimError::NotConverged { direction, miss })
}
