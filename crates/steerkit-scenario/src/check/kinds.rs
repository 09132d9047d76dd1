//! The behaviour kinds of the format: each kind's fields, defaults and builder in one entry of
//! [`KINDS`], keyed by the library's own [`RecipeKind`] (which also gives its name).
//!
//! Adding a kind: one [`Kind`] entry here (fields and a builder function), one row in
//! `docs/scenario-format.md`; a test fails while a library kind has neither an entry nor a
//! place in [`NOT_IN_FILES`].

use super::node::Node;
use super::node_parts::{
    align, arrive, flock_weights, members, obstacle_avoidance, pipeline, prediction, seek_mode,
    separation, sequence,
};
use super::values::{finite, non_negative, one_of, positive, problem};
use super::Result;
use crate::model::FileBehaviour as Behaviour;
use steerkit::combine::Epsilon;
use steerkit::crowd::RecipeKind;
use steerkit::formation::SlotSteering;
use steerkit::steering::{
    Align, Alignment, Approach, Arrive, BucklandFlock, Cohesion, CollisionAvoidance, ConeCheck,
    DetectionBox, DogOnAString, Evade, Face, Flee, FollowPath, GrapplingHooks, Hide, Interpose,
    KinematicArrive, LookWhereYoureGoing, MillingtonFlock, OffsetPursuit, Pursue, RepelObstacle,
    Reprojection, Seek, SeekMode, VelocityMatch, WallFeelers, WorldWander,
};

/// One behaviour kind of the format: the fields it takes (besides `kind`, and `weight` inside
/// `blend` and `running_sum`) and how a node of it is checked and built.
pub(crate) struct Kind {
    /// The library's kind; its name is the file's `kind`.
    pub kind: RecipeKind,
    /// The fields it takes.
    pub fields: &'static [&'static str],
    /// Checks the node's fields and builds the behaviour.
    pub(super) build: fn(&Node<'_>) -> Result<Behaviour>,
}

/// The target fields of seek, flee, arrive and the kinds that go somewhere.
const TARGET: [&str; 3] = ["target", "agent", "use_goal"];

/// Every behaviour kind the format runs, in the order of the format reference.
pub(crate) const KINDS: &[Kind] = &[
    Kind {
        kind: RecipeKind::Seek,
        fields: &["target", "agent", "use_goal", "mode", "time_to_target"],
        build: |x| {
            Ok(Behaviour::Seek {
                target: x.target()?,
                seek: x.lib(Seek::with_mode(seek_mode(x)?))?,
            })
        },
    },
    Kind {
        kind: RecipeKind::Flee,
        fields: &["target", "agent", "use_goal", "mode", "time_to_target", "panic_distance"],
        build: |x| {
            let target = x.target()?;
            let flee = x.lib(Flee::with(seek_mode(x)?, x.n.panic_distance))?;
            Ok(Behaviour::Flee { target, flee })
        },
    },
    Kind {
        kind: RecipeKind::Arrive,
        fields: &[
            "target",
            "agent",
            "use_goal",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
            "stop",
        ],
        build: |x| Ok(Behaviour::Arrive { target: x.target()?, arrive: arrive(x, true)? }),
    },
    Kind {
        kind: RecipeKind::Navigate,
        fields: &[
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
            "stop",
        ],
        build: |x| Ok(Behaviour::Navigate { arrive: arrive(x, true)? }),
    },
    Kind {
        kind: RecipeKind::Pursue,
        fields: &["agent", "max_prediction", "estimate", "head_on_shortcut", "turnaround"],
        build: |x| {
            let target = x.agent("agent")?;
            let prediction = prediction(x, "current_speed")?;
            let mut pursue = x.lib(Pursue::new(x.n.max_prediction.unwrap_or_default()))?;
            pursue.prediction = prediction;
            Ok(Behaviour::Pursue { target, pursue })
        },
    },
    Kind {
        kind: RecipeKind::Evade,
        fields: &[
            "agent",
            "max_prediction",
            "estimate",
            "head_on_shortcut",
            "turnaround",
            "panic_distance",
        ],
        build: |x| {
            let threat = x.agent("agent")?;
            let prediction = prediction(x, "closing_speed")?;
            let mut evade = x.lib(Evade::new(x.n.max_prediction.unwrap_or_default()))?;
            evade.prediction = prediction;
            evade.flee = x.lib(Flee::with(SeekMode::FullAcceleration, x.n.panic_distance))?;
            Ok(Behaviour::Evade { threat, evade })
        },
    },
    Kind {
        kind: RecipeKind::VelocityMatch,
        fields: &["velocity", "time_to_target"],
        build: |x| {
            x.req("velocity", x.n.velocity.is_some())?;
            let velocity = x.point("velocity", x.n.velocity.unwrap_or_default())?;
            let matching = x.lib(VelocityMatch::new(x.n.time_to_target.unwrap_or(0.1)))?;
            Ok(Behaviour::VelocityMatch { velocity, matching })
        },
    },
    Kind {
        kind: RecipeKind::Wander,
        fields: &["radius", "distance", "jitter"],
        build: |x| {
            x.req("radius", x.n.radius.is_some())?;
            x.req("distance", x.n.distance.is_some())?;
            x.req("jitter", x.n.jitter.is_some())?;
            Ok(Behaviour::Wander(x.lib(WorldWander::new(
                non_negative(&x.f("radius"), x.n.radius.unwrap_or_default())?,
                non_negative(&x.f("distance"), x.n.distance.unwrap_or_default())?,
                non_negative(&x.f("jitter"), x.n.jitter.unwrap_or_default())?,
            ))?))
        },
    },
    Kind {
        kind: RecipeKind::KinematicSeek,
        fields: &TARGET,
        build: |x| Ok(Behaviour::KinematicSeek { target: x.target()? }),
    },
    Kind {
        kind: RecipeKind::KinematicArrive,
        fields: &["target", "agent", "use_goal", "radius", "time_to_target"],
        build: |x| {
            let target = x.target()?;
            x.req("radius", x.n.radius.is_some())?;
            let radius = non_negative(&x.f("radius"), x.n.radius.unwrap_or_default())?;
            let time = positive(&x.f("time_to_target"), x.n.time_to_target.unwrap_or(0.25))?;
            Ok(Behaviour::KinematicArrive {
                target,
                arrive: x.lib(KinematicArrive::new(radius, time))?,
            })
        },
    },
    Kind {
        kind: RecipeKind::KinematicWander,
        fields: &["rate"],
        build: |x| {
            x.req("rate", x.n.rate.is_some())?;
            Ok(Behaviour::KinematicWander {
                rate: non_negative(&x.f("rate"), x.n.rate.unwrap_or_default())?,
            })
        },
    },
    Kind {
        kind: RecipeKind::Separation,
        fields: &["threshold", "falloff", "decay", "gather", "buffer"],
        build: separation,
    },
    Kind {
        kind: RecipeKind::Cohesion,
        fields: &["target_radius", "slow_radius", "time_to_target"],
        build: |x| {
            let n = x.n;
            Ok(Behaviour::Cohesion(
                if n.slow_radius.is_some()
                    || n.target_radius.is_some()
                    || n.time_to_target.is_some()
                {
                    Cohesion::Arrive(arrive(x, false)?)
                } else {
                    Cohesion::Seek(Seek::new())
                },
            ))
        },
    },
    Kind {
        kind: RecipeKind::Alignment,
        fields: &["match", "time_to_target"],
        build: |x| {
            let t = x.n.time_to_target.unwrap_or(0.1);
            let m = one_of(
                &x.f("match"),
                x.n.match_.as_deref().unwrap_or("heading"),
                &[("heading", 0), ("velocity", 1)],
            )?;
            Ok(Behaviour::Alignment(if m == 0 {
                x.lib(Alignment::heading(t))?
            } else {
                Alignment::Velocity(x.lib(VelocityMatch::new(t))?)
            }))
        },
    },
    Kind {
        kind: RecipeKind::CollisionAvoidance,
        fields: &["margin", "horizon"],
        build: |x| {
            x.req("margin", x.n.margin.is_some())?;
            x.req("horizon", x.n.horizon.is_some())?;
            let (margin, horizon) =
                (x.n.margin.unwrap_or_default(), x.n.horizon.unwrap_or_default());
            Ok(Behaviour::CollisionAvoidance(x.lib(CollisionAvoidance::new(margin, horizon))?))
        },
    },
    Kind {
        kind: RecipeKind::FollowPath,
        fields: &[
            "path",
            "offset",
            "predict_time",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
        build: |x| {
            let path = x.path()?;
            // the rabbit 2 m ahead unless the node says; a vehicle's path tracker ignores it
            let mut follow = x.lib(FollowPath::new(x.n.offset.unwrap_or(2.0)))?;
            if let Some(t) = x.n.predict_time {
                follow = x.lib(follow.predictive(t))?;
            }
            // an open path's end is arrived at, not orbited: by braking distance unless the
            // node gives its own approach
            let n = x.n;
            let own = n.target_radius.is_some()
                || n.slow_radius.is_some()
                || n.deceleration_time.is_some()
                || n.braking.is_some()
                || n.time_to_target.is_some();
            // the documented defaults fill in what the node leaves out: braking, 5 cm, 0.1 s
            let approach =
                n.slow_radius.is_some() || n.deceleration_time.is_some() || n.braking.is_some();
            let end = if approach {
                arrive(x, true)?
            } else if own {
                let radius = non_negative(&x.f("target_radius"), n.target_radius.unwrap_or(0.05))?;
                let time = positive(&x.f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
                x.lib(Arrive::with_approach(radius, Approach::Braking, time))?
            } else {
                x.lib(Arrive::with_approach(0.05, Approach::Braking, 0.1))?
            };
            Ok(Behaviour::FollowPath { path, follow: follow.arriving_at_end(end) })
        },
    },
    Kind {
        kind: RecipeKind::Blend,
        fields: &["members"],
        build: |x| Ok(Behaviour::Blend(members(x)?)),
    },
    Kind {
        kind: RecipeKind::Priority,
        fields: &["members", "epsilon"],
        build: |x| {
            let groups = members(x)?.into_iter().map(|(_, b)| b).collect();
            let epsilon = x.lib(Epsilon::new(x.n.epsilon.unwrap_or(1e-3)))?;
            Ok(Behaviour::Priority { groups, epsilon })
        },
    },
    Kind {
        kind: RecipeKind::RunningSum,
        fields: &["members"],
        build: |x| Ok(Behaviour::RunningSum(members(x)?)),
    },
    Kind { kind: RecipeKind::Sequence, fields: &["first", "then"], build: sequence },
    Kind {
        kind: RecipeKind::ObstacleAvoidance,
        fields: &[
            "rays",
            "half_angle",
            "whisker_ratio",
            "half_width",
            "ray_count",
            "avoid_distance",
            "lookahead",
            "lookahead_time",
            "max_half_angle",
            "widen_rate",
            "commitment",
            "avoid_target",
        ],
        build: |x| Ok(Behaviour::ObstacleAvoidance(obstacle_avoidance(x.path, x.n)?)),
    },
    Kind {
        kind: RecipeKind::WallFeelers,
        fields: &["length", "side_angle", "side_ratio"],
        build: |x| {
            let n = x.n;
            x.req("length", n.length.is_some())?;
            let mut w = x.lib(WallFeelers::new(n.length.unwrap_or_default()))?;
            if n.side_angle.is_some() || n.side_ratio.is_some() {
                w = x.lib(w.with_sides(
                    n.side_angle.unwrap_or(core::f32::consts::FRAC_PI_4),
                    n.side_ratio.unwrap_or(0.5),
                ))?;
            }
            Ok(Behaviour::WallFeelers(w))
        },
    },
    Kind {
        kind: RecipeKind::Hide,
        fields: &["agent", "distance", "threat_range"],
        build: |x| {
            let hunter = x.agent("agent")?;
            x.req("distance", x.n.distance.is_some())?;
            let mut hide = x.lib(Hide::new(x.n.distance.unwrap_or_default()))?;
            if let Some(r) = x.n.threat_range {
                hide = x.lib(hide.with_threat_range(r))?;
            }
            Ok(Behaviour::Hide { hunter, hide })
        },
    },
    Kind {
        kind: RecipeKind::Interpose,
        fields: &["agent", "other_agent", "ratio", "max_prediction"],
        build: |x| {
            x.req("agent", x.n.agent.is_some())?;
            x.req("other_agent", x.n.other_agent.is_some())?;
            let a = x.agent("agent")?;
            let b = x.agent("other_agent")?;
            let (ratio, t) = (x.n.ratio.unwrap_or(0.5), x.n.max_prediction.unwrap_or(1.0));
            Ok(Behaviour::Interpose { a, b, interpose: x.lib(Interpose::new(ratio, t))? })
        },
    },
    Kind {
        kind: RecipeKind::OffsetPursuit,
        fields: &["agent", "local_offset", "max_prediction"],
        build: |x| {
            let leader = x.agent("agent")?;
            x.req("local_offset", x.n.local_offset.is_some())?;
            let offset = x.point("local_offset", x.n.local_offset.unwrap_or_default())?;
            let t = x.n.max_prediction.unwrap_or(1.0);
            Ok(Behaviour::OffsetPursuit { leader, pursuit: x.lib(OffsetPursuit::new(offset, t))? })
        },
    },
    Kind {
        kind: RecipeKind::DogOnAString,
        fields: &[
            "path",
            "string",
            "leash_speed",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
        build: |x| {
            let path = x.path()?;
            let arrive = arrive(x, true)?;
            x.req("string", x.n.string.is_some())?;
            let mut dog = x.lib(DogOnAString::new(x.n.string.unwrap_or_default(), arrive))?;
            if let Some(v) = x.n.leash_speed {
                dog = x.lib(dog.with_fixed_speed(v))?;
            }
            Ok(Behaviour::DogOnAString { path, dog })
        },
    },
    Kind {
        kind: RecipeKind::Reprojection,
        fields: &[
            "path",
            "predict_time",
            "path_radius",
            "ahead",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
        build: |x| {
            let path = x.path()?;
            let arrive = arrive(x, true)?;
            x.req("path_radius", x.n.path_radius.is_some())?;
            let reprojection = x.lib(Reprojection::new(
                x.n.predict_time.unwrap_or(0.5),
                x.n.path_radius.unwrap_or_default(),
                x.n.ahead.unwrap_or(2.0),
                arrive,
            ))?;
            Ok(Behaviour::Reprojection { path, reprojection })
        },
    },
    Kind {
        kind: RecipeKind::GrapplingHooks,
        fields: &[
            "path",
            "closeness",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
        build: |x| {
            let path = x.path()?;
            let arrive = arrive(x, true)?;
            x.req("closeness", x.n.closeness.is_some())?;
            let hooks = x.lib(GrapplingHooks::new(x.n.closeness.unwrap_or_default(), arrive))?;
            Ok(Behaviour::GrapplingHooks { path, hooks })
        },
    },
    Kind {
        kind: RecipeKind::Slot,
        fields: &["target_radius", "slow_radius", "deceleration_time", "braking", "time_to_target"],
        build: |x| {
            let align = x.lib(Align::new(0.01, 0.5, 0.1))?;
            Ok(Behaviour::Slot(SlotSteering::new(arrive(x, true)?, align)))
        },
    },
    Kind {
        kind: RecipeKind::ConeCheck,
        fields: &["half_angle", "range"],
        build: |x| {
            x.req("half_angle", x.n.half_angle.is_some())?;
            x.req("range", x.n.range.is_some())?;
            let (half, range) = (x.n.half_angle.unwrap_or_default(), x.n.range.unwrap_or_default());
            Ok(Behaviour::ConeCheck(x.lib(ConeCheck::new(half, range))?))
        },
    },
    Kind {
        kind: RecipeKind::DetectionBox,
        fields: &["min_length", "braking_weight"],
        build: |x| {
            x.req("min_length", x.n.min_length.is_some())?;
            let mut b = x.lib(DetectionBox::new(x.n.min_length.unwrap_or_default()))?;
            if let Some(w) = x.n.braking_weight {
                b = x.lib(b.with_braking(w))?;
            }
            Ok(Behaviour::DetectionBox(b))
        },
    },
    Kind {
        kind: RecipeKind::RepelObstacle,
        fields: &["range", "contact_gap"],
        build: |x| {
            x.req("range", x.n.range.is_some())?;
            x.req("contact_gap", x.n.contact_gap.is_some())?;
            let (range, gap) = (x.n.range.unwrap_or_default(), x.n.contact_gap.unwrap_or_default());
            Ok(Behaviour::RepelObstacle(x.lib(RepelObstacle::new(range, gap))?))
        },
    },
    Kind {
        kind: RecipeKind::Align,
        fields: &["orientation", "target_radius", "slow_radius", "time_to_target"],
        build: |x| {
            x.req("orientation", x.n.orientation.is_some())?;
            let orientation = finite(&x.f("orientation"), x.n.orientation.unwrap_or_default())?;
            Ok(Behaviour::Align { orientation, align: align(x)? })
        },
    },
    Kind {
        kind: RecipeKind::Face,
        fields: &["target", "agent", "use_goal", "target_radius", "slow_radius", "time_to_target"],
        build: |x| Ok(Behaviour::Face { target: x.target()?, face: Face::new(align(x)?) }),
    },
    Kind {
        kind: RecipeKind::LookWhereYoureGoing,
        fields: &["target_radius", "slow_radius", "time_to_target"],
        build: |x| Ok(Behaviour::LookWhereYoureGoing(LookWhereYoureGoing::new(align(x)?))),
    },
    Kind {
        kind: RecipeKind::MillingtonFlock,
        fields: &["radius", "separation_weight", "alignment_weight", "cohesion_weight"],
        build: |x| {
            x.req("radius", x.n.radius.is_some())?;
            let mut f = x.lib(MillingtonFlock::new(x.n.radius.unwrap_or_default()))?;
            flock_weights(x, &mut f.weights)?;
            Ok(Behaviour::MillingtonFlock(f))
        },
    },
    Kind {
        kind: RecipeKind::BucklandFlock,
        fields: &[
            "radius",
            "wander",
            "separation_weight",
            "alignment_weight",
            "cohesion_weight",
            "wander_weight",
        ],
        build: |x| {
            x.req("radius", x.n.radius.is_some())?;
            // the crowd draws the wander from each agent's generator: the seed is not used
            let seed = x.n.wander.unwrap_or(false).then_some(0);
            let mut f = x.lib(BucklandFlock::new(x.n.radius.unwrap_or_default(), seed))?;
            flock_weights(x, &mut f.weights)?;
            if let Some(w) = x.n.wander_weight {
                f.weights.wander = finite(&x.f("wander_weight"), w)?;
            }
            Ok(Behaviour::BucklandFlock(f))
        },
    },
    Kind {
        kind: RecipeKind::Dither,
        fields: &["members", "epsilon"],
        build: |x| {
            let epsilon = x.lib(Epsilon::new(x.n.epsilon.unwrap_or(1e-3)))?;
            let probabilities = x.n.members.iter().flatten().map(|m| m.probability);
            let mut out = Vec::new();
            for (i, ((w, b), p)) in members(x)?.into_iter().zip(probabilities).enumerate() {
                let at = format!("{}.members[{i}].probability", x.path);
                let p = finite(&at, p.unwrap_or(1.0))?;
                if !(0.0..=1.0).contains(&p) {
                    return Err(problem(at, format!("must be in [0, 1], got {p}")));
                }
                out.push((w, p, b));
            }
            Ok(Behaviour::Dither { members: out, epsilon })
        },
    },
    Kind {
        kind: RecipeKind::Pipeline,
        fields: &[
            "target",
            "agent",
            "use_goal",
            "grid_min",
            "grid_max",
            "cell_size",
            "clearance",
            "margin",
            "constraint_steps",
            "target_radius",
            "slow_radius",
            "deceleration_time",
            "braking",
            "time_to_target",
        ],
        build: pipeline,
    },
    Kind {
        kind: RecipeKind::FleeHazards,
        fields: &["mode", "time_to_target", "margin"],
        build: |x| {
            let flee = x.lib(Flee::with(seek_mode(x)?, None))?;
            let margin = non_negative(&x.f("margin"), x.n.margin.unwrap_or(1.0))?;
            Ok(Behaviour::FleeHazards { flee, margin })
        },
    },
];

/// Library kinds a file cannot name, each with the reason given to a file that tries.
pub(crate) const NOT_IN_FILES: &[(RecipeKind, &str)] = &[(
    RecipeKind::Custom,
    "is code of a program's own, registered with its crowd in Rust; a file cannot name it",
)];
