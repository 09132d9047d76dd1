//! Jumping (Millington §3.6): the jump velocity, jump points, jump/landing-pad pairs, jump links
//! for paths, hole fillers, and the [`Jump`] steering behaviour.
//!
//! 3D, y-up, SI units. A jump is a one-time, failure-sensitive decision: the character must reach
//! the take-off point with the right velocity and leave at the right moment. The behaviour here
//! runs the character up to the take-off point and tells the caller when to jump and with which
//! velocity ([`JumpAction::TakeOff`]); it does not move the character itself, so the game can
//! schedule a jump animation. The jump impulse is vertical and gravity must pull down
//! (`gravity.y < 0`); a horizontal gravity component is allowed and compensated for.
//!
//! Failure policy: an impossible jump (landing too high, run-up too fast for the character, no
//! flight time) is a [`JumpError`]; never NaN, never a panic.

mod flight;
mod holes;
mod points;
mod run_up;

pub use flight::{jump_times, jump_velocity, JumpCapability, JumpSolution};
pub use holes::{HoleFiller, JumpDetector};
pub use points::{next_jump_link, pair_landing_pads, JumpLink, JumpPair, JumpPoint};
pub use run_up::{Jump, JumpAction, JumpState, TakeoffConditions, TakeoffRule};

use crate::error::ParamError;
use crate::predict::finite_vec;
use glam::Vec3;

/// Why a jump cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JumpError {
    /// The landing is higher than the jump's apex: `v_y² − 2·G·Δy < 0`. `max_rise` (m) is the
    /// highest the jump reaches, `v_y²/(2G)`.
    #[error("the landing is too high: this jump rises at most {max_rise} m")]
    TooHigh {
        /// Apex height above the take-off (m).
        max_rise: f32,
    },
    /// Every usable flight time needs a run-up faster than the character can run; `required` is
    /// the slowest run-up that would do (m/s).
    #[error("the jump needs a run-up of {required} m/s, faster than the character can run")]
    TooFast {
        /// The slowest sufficient run-up speed (m/s).
        required: f32,
    },
    /// No positive flight time: e.g. a landing level with the take-off and no jump speed.
    #[error("the jump has no positive flight time")]
    NoFlightTime,
    /// A parameter is invalid (not finite, negative, or gravity not pulling down).
    #[error(transparent)]
    Invalid(#[from] ParamError),
}

fn check_gravity(gravity: Vec3) -> Result<Vec3, ParamError> {
    finite_vec("gravity", gravity)?;
    if gravity.y < 0.0 {
        Ok(gravity)
    } else {
        Err(ParamError::OutOfRange {
            name: "gravity.y",
            value: gravity.y,
            range: "below zero (gravity must pull down)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinematic::{Kinematic3, Limits, SteeringOutput};
    use crate::math::horizontal;
    use crate::predict::{landing_point, trajectory_position, trajectory_velocity, BallisticArc};
    use crate::steering::VelocityMatch;
    use proptest::prelude::*;

    const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    fn limits(max_speed: f32, max_acceleration: f32) -> Limits {
        Limits::new(max_speed, max_acceleration, 1.0, 1.0).unwrap()
    }

    fn vm() -> VelocityMatch {
        VelocityMatch::new(0.1).unwrap()
    }

    // ---- the jump velocity (§3.6.2) ----

    #[test]
    fn jump_times_lecture_vectors_section_14_item_6() {
        // g = −9.81, v_y = 5; tolerance 1e-4 s
        let (a, b) = jump_times(1.0, 5.0, -9.81).unwrap();
        assert!(close(a, 0.2732, 1e-4) && close(b, 0.7461, 1e-4), "{a} {b}");
        let (a, b) = jump_times(0.0, 5.0, -9.81).unwrap();
        assert_eq!(a, 0.0);
        assert!(close(b, 1.0194, 1e-4), "{b}");
        let (a, b) = jump_times(-2.0, 5.0, -9.81).unwrap();
        assert!(a < 0.0 && close(b, 1.3267, 1e-4), "{a} {b}");
        // spec fixture: Δy = 0.5 → 0.112392 / 0.906976
        let (a, b) = jump_times(0.5, 5.0, -9.81).unwrap();
        assert!(close(a, 0.112_392, 1e-5) && close(b, 0.906_976, 1e-5), "{a} {b}");
    }

    #[test]
    fn jump_roots_are_positive_with_negative_gravity() {
        // erratum: the listing's (v_y ∓ √)/g_y negates both roots when g_y < 0
        let (v, dy, gy) = (5.0f32, 1.0f32, -9.81f32);
        let sqrt_term = (2.0 * gy * dy + v * v).sqrt();
        let listing = (v - sqrt_term) / gy;
        assert!(listing < 0.0);
        let sol = jump_velocity(Vec3::ZERO, Vec3::new(2.0, dy, 0.0), v, G, 10.0, BallisticArc::Low)
            .unwrap();
        assert!(close(sol.time, -listing, 1e-5));
        // the run-up points at the landing, not away from it
        assert!(sol.run_up_velocity.x > 0.0);
        let landed = trajectory_position(Vec3::ZERO, sol.launch_velocity(), G, sol.time);
        assert!(landed.distance(Vec3::new(2.0, dy, 0.0)) < 1e-5);
    }

    #[test]
    fn jump_equal_heights_skips_zero_time_root() {
        // erratum: for a level jump t_short = 0 and Δx/t divides by zero. Exercise 3.17:
        // (10, 3, 12) → (12, 3, 20), v_y = 2: t = 0.40775 s, v = (4.905, 0, 19.62), speed 20.224
        let (s, e) = (Vec3::new(10.0, 3.0, 12.0), Vec3::new(12.0, 3.0, 20.0));
        let sol = jump_velocity(s, e, 2.0, G, 25.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, 0.407_75, 1e-5), "{sol:?}");
        // the velocity's z is set (not its y, as one listing has it); tolerance 1e-3 m/s
        let v = sol.run_up_velocity;
        assert!(close(v.x, 4.905, 1e-3) && v.y == 0.0 && close(v.z, 19.62, 1e-3), "{v}");
        assert!(close(sol.run_up_speed(), 20.224, 1e-3));
        // a character slower than that cannot make it (strict, as the book: < max speed)
        assert_eq!(
            jump_velocity(s, e, 2.0, G, 20.0, BallisticArc::Low),
            Err(JumpError::TooFast { required: sol.run_up_speed() })
        );
    }

    #[test]
    fn exercise_3_16_level_jump_time_is_2_vy_over_g() {
        for vy in [1.0f32, 3.0, 7.5] {
            let sol = jump_velocity(Vec3::ZERO, Vec3::X, vy, G, 100.0, BallisticArc::Low).unwrap();
            assert!(close(sol.time, 0.2039 * vy, 1e-3 * vy), "{sol:?}");
        }
    }

    #[test]
    fn jump_down_uses_the_only_positive_root() {
        // erratum: for a jump down t_short < 0; only t_long is a flight
        let e = Vec3::new(4.0, -2.0, 0.0);
        let sol = jump_velocity(Vec3::ZERO, e, 5.0, G, 10.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, 1.3267, 1e-4), "{sol:?}");
        // walking off a ledge: no jump speed at all
        let sol = jump_velocity(Vec3::ZERO, e, 0.0, G, 10.0, BallisticArc::Low).unwrap();
        assert!(close(sol.time, (4.0f32 / 9.81).sqrt(), 1e-5));
    }

    #[test]
    fn jump_to_an_unreachable_height_is_an_error_not_nan() {
        // erratum: v_y² − 2·G·Δy < 0 was fed to sqrt
        let r =
            jump_velocity(Vec3::ZERO, Vec3::new(1.0, 2.0, 0.0), 5.0, G, 10.0, BallisticArc::Low);
        match r {
            Err(JumpError::TooHigh { max_rise }) => assert!(close(max_rise, 25.0 / 19.62, 1e-5)),
            other => panic!("{other:?}"),
        }
        assert_eq!(jump_times(2.0, 5.0, -9.81), None);
        // level with no jump speed: no flight at all
        assert_eq!(
            jump_velocity(Vec3::ZERO, Vec3::X, 0.0, G, 10.0, BallisticArc::Low),
            Err(JumpError::NoFlightTime)
        );
        // invalid input
        for bad in [
            jump_velocity(Vec3::ZERO, Vec3::X, 5.0, Vec3::Y * 9.81, 10.0, BallisticArc::Low),
            jump_velocity(Vec3::ZERO, Vec3::X, -1.0, G, 10.0, BallisticArc::Low),
            jump_velocity(Vec3::ZERO, Vec3::X, 5.0, G, 0.0, BallisticArc::Low),
            jump_velocity(Vec3::NAN, Vec3::X, 5.0, G, 10.0, BallisticArc::Low),
        ] {
            assert!(matches!(bad, Err(JumpError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn jump_falls_back_to_the_long_root_and_high_arc_uses_it() {
        // up 1 m and 3 m across at v_y = 5: the short flight (0.2732 s) needs 10.98 m/s, the
        // long (0.7461 s) 4.02 m/s
        let e = Vec3::new(3.0, 1.0, 0.0);
        let fast = jump_velocity(Vec3::ZERO, e, 5.0, G, 12.0, BallisticArc::Low).unwrap();
        assert!(close(fast.time, 0.2732, 1e-4));
        let slow = jump_velocity(Vec3::ZERO, e, 5.0, G, 8.0, BallisticArc::Low).unwrap();
        assert!(close(slow.time, 0.7461, 1e-4));
        let high = jump_velocity(Vec3::ZERO, e, 5.0, G, 12.0, BallisticArc::High).unwrap();
        assert_eq!(high, slow);
        // the descending landing: vertical velocity negative on arrival
        assert!(trajectory_velocity(slow.launch_velocity(), G, slow.time).y < 0.0);
        assert!(matches!(
            jump_velocity(Vec3::ZERO, e, 5.0, G, 3.0, BallisticArc::Low),
            Err(JumpError::TooFast { required }) if close(required, 3.0 / 0.7461, 1e-3)
        ));
    }

    #[test]
    fn sideways_gravity_is_compensated() {
        let g = Vec3::new(1.5, -9.81, -0.5);
        let e = Vec3::new(3.0, 0.5, 2.0);
        let sol = jump_velocity(Vec3::ZERO, e, 6.0, g, 20.0, BallisticArc::Low).unwrap();
        let landed = trajectory_position(Vec3::ZERO, sol.launch_velocity(), g, sol.time);
        assert!(landed.distance(e) < 1e-4, "{landed}");
        assert_eq!(sol.run_up_velocity.y, 0.0);
    }

    // ---- pairs, links, pads ----

    #[test]
    fn jump_pair_trajectory_lands_on_the_pad_and_adapts_to_the_character() {
        let light = JumpCapability::new(6.0, 8.0, G).unwrap();
        let laden = JumpCapability::new(4.5, 8.0, G).unwrap();
        let (s, e) = (Vec3::ZERO, Vec3::new(4.0, 0.5, 0.0));
        let a = JumpPair::new(s, e, &light, BallisticArc::Low).unwrap();
        let b = JumpPair::new(s, e, &laden, BallisticArc::Low).unwrap();
        assert!(a.position_at(a.flight_time()).distance(e) < 1e-4);
        assert!(b.position_at(b.flight_time()).distance(e) < 1e-4);
        // the laden character jumps lower and needs... the shorter root here is slower
        assert!(a.jump_point().jump_speed() > b.jump_point().jump_speed());
        assert_eq!(a.jump_point().takeoff(), s);
        assert!(close(light.max_rise(), 36.0 / 19.62, 1e-5));
        assert!(JumpCapability::new(1.0, 1.0, Vec3::ZERO).is_err());
    }

    #[test]
    fn offline_pad_pairing_keeps_close_feasible_pairs() {
        let cap = JumpCapability::new(5.0, 7.0, G).unwrap();
        let takeoffs = [Vec3::ZERO, Vec3::new(20.0, 0.0, 0.0)];
        let pads = [
            Vec3::new(3.0, 0.5, 0.0),  // close, reachable
            Vec3::new(3.0, 4.0, 0.0),  // close, too high
            Vec3::new(60.0, 0.0, 0.0), // far
        ];
        let pairs = pair_landing_pads(&takeoffs, &pads, &cap, 10.0);
        let idx: Vec<_> = pairs.iter().map(|(i, j, _)| (*i, *j)).collect();
        assert_eq!(idx, vec![(0, 0)]);
        assert!(pairs[0].2.position_at(pairs[0].2.flight_time()).distance(pads[0]) < 1e-4);
    }

    #[test]
    fn jump_links_along_a_path() {
        let links = [
            JumpLink {
                from: 4,
                to: 5,
                takeoff: Vec3::new(10.0, 0.0, 0.0),
                landing: Vec3::new(13.0, 0.0, 0.0),
            },
            JumpLink {
                from: 2,
                to: 3,
                takeoff: Vec3::new(2.0, 0.0, 0.0),
                landing: Vec3::new(4.0, 1.0, 0.0),
            },
        ];
        let (i, link) = next_jump_link(&[1, 2, 3, 4, 5], &links).unwrap();
        assert_eq!((i, link.from, link.to), (1, 2, 3));
        assert_eq!(next_jump_link(&[3, 2, 1], &links), None);
        let cap = JumpCapability::new(5.0, 7.0, G).unwrap();
        let pair = link.plan(&cap, BallisticArc::Low).unwrap();
        assert!(pair.position_at(pair.flight_time()).distance(link.landing) < 1e-4);
    }

    // ---- the Jump behaviour ----

    /// Runs the behaviour at 60 Hz; returns the character at take-off (if any) and the last action.
    fn run(
        jump: &mut Jump,
        mut k: Kinematic3,
        l: &Limits,
        lateral: Vec3,
    ) -> (Option<Kinematic3>, JumpAction) {
        let dt = 1.0 / 60.0;
        for _ in 0..2000 {
            match jump.steer(&k, l) {
                JumpAction::RunUp(s) => {
                    // equal-weight blend with another behaviour's request (zero: no blend)
                    let blended = if lateral == Vec3::ZERO {
                        s
                    } else {
                        SteeringOutput::linear((s.linear + lateral) * 0.5)
                    };
                    k.integrate(&blended, l, dt);
                }
                a @ JumpAction::TakeOff { .. } => return (Some(k), a),
                a => return (None, a),
            }
        }
        (None, JumpAction::Missed)
    }

    fn scenario() -> (JumpPair, Kinematic3, Limits) {
        let cap = JumpCapability::new(5.0, 8.0, G).unwrap();
        let pair =
            JumpPair::new(Vec3::ZERO, Vec3::new(5.0, 0.5, 2.0), &cap, BallisticArc::Low).unwrap();
        let d = pair.jump_point().direction();
        let side = Vec3::Y.cross(d);
        let start = Kinematic3 { position: -d * 15.0 + side * 2.0, ..Default::default() };
        (pair, start, limits(8.0, 20.0))
    }

    #[test]
    fn jump_runs_up_matches_velocity_and_lands() {
        let (pair, start, l) = scenario();
        for rule in
            [TakeoffRule::MatchVelocity { tolerance: 0.3 }, TakeoffRule::MinimumAlongDirection]
        {
            let cond = TakeoffConditions::new(0.3, rule).unwrap();
            let mut jump = Jump::new(pair.jump_point(), cond, vm());
            let (at, action) = run(&mut jump, start, &l, Vec3::ZERO);
            let at = at.unwrap_or_else(|| panic!("{rule:?}: {action:?}"));
            assert_eq!(jump.state(), JumpState::Airborne);
            assert_eq!(jump.steer(&at, &l), JumpAction::Airborne);
            let JumpAction::TakeOff { velocity, vertical_speed } = action else { unreachable!() };
            assert_eq!(velocity, pair.solution().launch_velocity());
            assert_eq!(vertical_speed, 5.0);
            assert!(at.position.distance(Vec3::ZERO) <= 0.3);
            // flying the character's own run-up plus the jump lands near the pad (it converged
            // onto the line, so much closer than the tolerances allow)
            let own = horizontal(at.velocity) + Vec3::Y * vertical_speed;
            let landed = landing_point(at.position, own, G, 0.5).unwrap();
            assert!(landed.point.distance(pair.landing()) < 0.5, "{rule:?} {landed:?}");
        }
    }

    #[test]
    fn exercise_3_15_run_up_acceleration() {
        // minimum jump velocity (0, 7), current (0, 5), time to target 0.1 → (0, 20) before the
        // clamp; 2D (x, z) here is the ground plane
        let point = JumpPoint::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 7.0), 3.0).unwrap();
        let cond = TakeoffConditions::new(0.2, TakeoffRule::MinimumAlongDirection).unwrap();
        let mut jump = Jump::new(point, cond, vm());
        let k = Kinematic3 {
            position: Vec3::new(0.0, 0.0, -10.0),
            velocity: Vec3::new(0.0, 0.0, 5.0),
            ..Default::default()
        };
        let JumpAction::RunUp(s) = jump.steer(&k, &limits(10.0, 100.0)) else { panic!() };
        assert!((s.linear - Vec3::new(0.0, 0.0, 20.0)).length() < 1e-4, "{}", s.linear);
        let JumpAction::RunUp(s) = jump.steer(&k, &limits(10.0, 8.0)) else { panic!() };
        assert!((s.linear - Vec3::new(0.0, 0.0, 8.0)).length() < 1e-4);
        // run-up length from rest at 8 m/s²: 49/16
        assert!(close(point.run_up_distance(8.0), 49.0 / 16.0, 1e-6));
    }

    #[test]
    fn minimum_component_rule_accepts_an_angled_run_up_that_matching_rejects() {
        let point = JumpPoint::new(Vec3::ZERO, Vec3::new(6.0, 0.0, 0.0), 4.0).unwrap();
        let angled = Kinematic3 { velocity: Vec3::new(7.0, 0.0, 3.0), ..Default::default() };
        let loose = TakeoffConditions::new(0.3, TakeoffRule::MinimumAlongDirection).unwrap();
        let strict =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.5 }).unwrap();
        assert!(loose.hold(&point, &angled));
        assert!(!strict.hold(&point, &angled));
        // the angled jump lands well off a narrow target 4 m ahead, though far enough
        let flight = jump_times(0.0, 4.0, -9.81).unwrap().1;
        let landed = angled.velocity * flight;
        assert!(landed.x >= 4.0 && landed.z.abs() > 2.0, "{landed}");
        // too slow along the direction fails both
        let slow = Kinematic3 { velocity: Vec3::new(5.0, 0.0, 0.0), ..Default::default() };
        assert!(!loose.hold(&point, &slow) && !strict.hold(&point, &slow));
        // and far from the point, neither
        let far = Kinematic3 { position: Vec3::new(-1.0, 0.0, 0.0), ..angled };
        assert!(!loose.hold(&point, &far));
    }

    #[test]
    fn blending_jump_with_a_sideways_force_breaks_it() {
        // an equal-weight blend with "avoid an enemy at a tangent" (a sideways request of 8 or
        // 16 m/s²): the character drifts off the run-up line and passes the take-off point
        // without the conditions ever holding, under either rule. (The other failure, taking
        // off with the wrong velocity, is the angled run-up of the component rule above.)
        let (pair, start, l) = scenario();
        let side = Vec3::Y.cross(pair.jump_point().direction());
        for magnitude in [8.0, 16.0] {
            for (tolerance, rule) in [
                (0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }),
                (1.0, TakeoffRule::MinimumAlongDirection),
            ] {
                let cond = TakeoffConditions::new(tolerance, rule).unwrap();
                let mut jump = Jump::new(pair.jump_point(), cond, vm());
                let (at, action) = run(&mut jump, start, &l, side * magnitude);
                assert!(at.is_none(), "{magnitude} {rule:?}: {action:?}");
                assert_eq!(action, JumpAction::Missed);
                assert_eq!(jump.state(), JumpState::Missed);
                assert_eq!(jump.steer(&start, &l), JumpAction::Missed);
            }
        }
        // the same run-up without the blend takes off
        let cond =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        assert!(run(&mut jump, start, &l, Vec3::ZERO).0.is_some());
    }

    #[test]
    fn jump_point_change_resets_the_cached_target() {
        // erratum: the listing computes its target once and never again
        let (pair, start, l) = scenario();
        let cond =
            TakeoffConditions::new(0.3, TakeoffRule::MatchVelocity { tolerance: 0.3 }).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        let (at, _) = run(&mut jump, start, &l, Vec3::ZERO);
        assert_eq!(jump.state(), JumpState::Airborne);
        let next =
            JumpPoint::new(Vec3::new(0.0, 0.0, -20.0), Vec3::new(0.0, 0.0, -3.0), 4.0).unwrap();
        jump.set_jump_point(next);
        assert_eq!(jump.state(), JumpState::RunUp);
        assert_eq!(jump.point(), &next);
        let at = at.unwrap();
        assert!(matches!(jump.steer(&at, &l), JumpAction::RunUp(_)));
        assert!(jump.desired_velocity(&at).z < 0.0);
        jump.reset();
        assert_eq!(jump.state(), JumpState::RunUp);
    }

    #[test]
    fn starting_past_the_take_off_point_is_a_miss_and_infeasible_jumps_do_not_build() {
        let (pair, _, l) = scenario();
        let cond = TakeoffConditions::new(0.3, TakeoffRule::MinimumAlongDirection).unwrap();
        let mut jump = Jump::new(pair.jump_point(), cond, vm());
        let past =
            Kinematic3 { position: pair.jump_point().direction() * 2.0, ..Default::default() };
        assert_eq!(jump.steer(&past, &l), JumpAction::Missed);
        // the book's canAchieve = false is an error at construction
        let cap = JumpCapability::new(3.0, 8.0, G).unwrap();
        assert!(matches!(
            Jump::to_landing(Vec3::ZERO, Vec3::new(1.0, 3.0, 0.0), &cap, cond, vm()),
            Err(JumpError::TooHigh { .. })
        ));
        let ok = Jump::to_landing(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), &cap, cond, vm()).unwrap();
        assert!(ok.with_correction_time(0.0).is_err());
        assert!(TakeoffConditions::new(-1.0, TakeoffRule::MinimumAlongDirection).is_err());
        assert!(TakeoffConditions::new(1.0, TakeoffRule::MatchVelocity { tolerance: f32::NAN })
            .is_err());
    }

    #[test]
    fn straight_up_jump_point_arrives_and_jumps() {
        let point = JumpPoint::new(Vec3::new(2.0, 0.0, 1.0), Vec3::ZERO, 6.0).unwrap();
        let cond =
            TakeoffConditions::new(0.1, TakeoffRule::MatchVelocity { tolerance: 0.2 }).unwrap();
        let mut jump = Jump::new(point, cond, vm()).with_correction_time(0.4).unwrap();
        let (at, action) = run(&mut jump, Kinematic3::default(), &limits(5.0, 20.0), Vec3::ZERO);
        assert!(at.is_some(), "{action:?}");
        assert_eq!(action, JumpAction::TakeOff { velocity: Vec3::Y * 6.0, vertical_speed: 6.0 });
    }

    // ---- hole fillers (§3.6.3) ----

    fn gap() -> HoleFiller {
        HoleFiller::new(Vec3::new(0.0, 0.0, -5.0), Vec3::new(0.0, 0.0, 5.0), Vec3::X, 3.0).unwrap()
    }

    #[test]
    fn jump_detector_runs_at_the_gap_and_jumps_at_the_lip() {
        let (g, l) = (gap(), limits(8.0, 20.0));
        let det = JumpDetector::new(1.0, 0.15, 4.0, vm()).unwrap();
        let at = |x: f32, z: f32, v: Vec3| Kinematic3 {
            position: Vec3::new(x, 0.0, z),
            velocity: v,
            ..Default::default()
        };
        let run = Vec3::new(5.0, 0.0, 0.0);
        assert_eq!(det.steer(&g, &at(-6.0, 0.0, run), &l), None); // 1.2 s away
        match det.steer(&g, &at(-4.0, 0.0, run), &l) {
            Some(JumpAction::RunUp(s)) => assert!(s.linear.x > 0.0),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            det.steer(&g, &at(-0.1, 0.0, run), &l),
            Some(JumpAction::TakeOff { velocity: Vec3::new(5.0, 4.0, 0.0), vertical_speed: 4.0 })
        );
        // one-directional: from the far side, or moving away, it is not a jump
        assert_eq!(det.steer(&g, &at(4.0, 0.0, -run), &l), None);
        assert_eq!(det.steer(&g, &at(-0.1, 0.0, -run), &l), None);
        // beside the gap, heading past its end
        assert_eq!(det.steer(&g, &at(-1.0, 8.0, run), &l), None);
        // bad gaps
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::Z, 1.0).is_err());
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::Y, 1.0).is_err());
        assert!(HoleFiller::new(Vec3::ZERO, Vec3::Z, Vec3::X, 0.0).is_err());
    }

    #[test]
    fn hole_filler_wide_landing_succeeds_narrow_one_is_overshot() {
        let (g, l) = (gap(), limits(8.0, 20.0));
        let det = JumpDetector::new(1.0, 0.15, 4.0, vm()).unwrap();
        let mut k = Kinematic3 {
            position: Vec3::new(-12.0, 0.0, 1.0),
            velocity: Vec3::new(6.0, 0.0, 0.0),
            ..Default::default()
        };
        let mut launch = None;
        for _ in 0..600 {
            match det.steer(&g, &k, &l) {
                Some(JumpAction::RunUp(s)) => k.integrate(&s, &l, 1.0 / 60.0),
                Some(JumpAction::TakeOff { velocity, .. }) => {
                    launch = Some(velocity);
                    break;
                }
                _ => k.integrate(&SteeringOutput::ZERO, &l, 1.0 / 60.0),
            }
        }
        let launch = launch.expect("never jumped");
        assert!(horizontal(launch).length() > 7.5, "ran at full speed: {launch}");
        let x = landing_point(k.position, launch, G, 0.0).unwrap().point.x;
        // far side starts at x = 3: a wide platform [3, 20] catches it, a pillar [3, 4.5] does not
        assert!((3.0..=20.0).contains(&x), "{x}");
        assert!(!(3.0..=4.5).contains(&x), "{x}");
        assert!(g.clears(8.0, 4.0, -9.81, 0.0));
        assert!(!g.clears(2.0, 4.0, -9.81, 0.0));
        assert!(!g.clears(8.0, 4.0, -9.81, 1.0)); // far side higher than the apex
    }

    // ---- properties ----

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn jump_solutions_land_and_failures_are_truthful(
            takeoff in (-50.0f32..50.0, -10.0f32..10.0, -50.0f32..50.0),
            delta in (-12.0f32..12.0, -6.0f32..4.0, -12.0f32..12.0),
            jump_speed in 0.0f32..10.0,
            max_run in 0.5f32..15.0,
            g in (1.0f32..25.0, -1.0f32..1.0, -1.0f32..1.0),
            high in any::<bool>(),
        ) {
            let s = Vec3::from(takeoff);
            let e = s + Vec3::from(delta);
            let gravity = Vec3::new(g.1, -g.0, g.2);
            let arc = if high { BallisticArc::High } else { BallisticArc::Low };
            match jump_velocity(s, e, jump_speed, gravity, max_run, arc) {
                Ok(sol) => {
                    prop_assert!(sol.time > 0.0 && sol.time.is_finite());
                    prop_assert!(sol.run_up_speed() < max_run);
                    prop_assert_eq!(sol.run_up_velocity.y, 0.0);
                    let landed = trajectory_position(s, sol.launch_velocity(), gravity, sol.time);
                    let t = sol.time;
                    let scale = 1.0 + s.length() + (max_run + jump_speed) * t + g.0 * t * t;
                    prop_assert!(landed.distance(e) <= 2e-5 * scale, "{sol:?} → {landed}");
                }
                Err(JumpError::TooHigh { max_rise }) => {
                    prop_assert!(delta.1 > max_rise * (1.0 - 1e-5));
                }
                Err(JumpError::TooFast { required }) => {
                    prop_assert!(required >= max_run);
                    // every positive flight time on the allowed arc(s) is too fast
                    let (a, b) = jump_times(delta.1, jump_speed, gravity.y).unwrap();
                    let times: &[f32] = if high { &[b] } else { &[a, b] };
                    for &t in times.iter().filter(|&&t| t > 0.0) {
                        let v = (horizontal(e - s) - horizontal(gravity) * (0.5 * t * t)) / t;
                        prop_assert!(v.length() >= max_run * (1.0 - 1e-5));
                    }
                }
                Err(JumpError::NoFlightTime) => {
                    prop_assert!(jump_times(delta.1, jump_speed, gravity.y)
                        .is_some_and(|(_, b)| b <= 0.0));
                }
                Err(e) => prop_assert!(false, "unexpected {e:?}"),
            }
        }
    }
}
