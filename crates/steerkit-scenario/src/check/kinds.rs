//! The behaviour kinds of the format: each kind's fields, defaults and builder in one entry of
//! [`KINDS`], keyed by the library's own [`RecipeKind`] (which also gives its name).
//!
//! Adding a kind: one [`Kind`] entry here (fields and a builder function), one row in
//! `docs/scenario-format.md`; a test fails while a library kind has neither an entry nor a
//! place in [`NOT_IN_FILES`].

use super::{
    finite, join, lib, non_negative, one_of, point, positive, problem, required, xy, Present, Refs,
    Result, MAX_DEPTH,
};
use crate::model::{FileBehaviour as Behaviour, TargetRef};
use crate::spec::NodeSpec;
use crate::spec::Xy;
use steerkit::combine::Epsilon;
use steerkit::crowd::RecipeKind;
use steerkit::formation::SlotSteering;
use steerkit::geometry::Aabb;
use steerkit::pipeline::HeadFor;
use steerkit::steering::{
    AdaptiveFan, Align, Alignment, Approach, Arrive, AvoidTarget, BucklandFlock, Cohesion,
    CollisionAvoidance, ConeCheck, DetectionBox, DogOnAString, Estimate, Evade, Face, Falloff,
    Flee, FlockWeights, FollowPath, Gather, GrapplingHooks, Hide, Interpose, KinematicArrive,
    LookWhereYoureGoing, MillingtonFlock, ObstacleAvoidance, OffsetPursuit, Prediction, Pursue,
    RayLayout, RepelObstacle, Reprojection, Seek, SeekMode, Separation, Stop, VelocityMatch,
    WallFeelers, WorldWander,
};
use steerkit::ParamError;
use steerkit::{Vec2, Vec3};

/// One behaviour kind of the format: the fields it takes (besides `kind`, and `weight` inside
/// `blend` and `running_sum`) and how a node of it is checked and built.
pub(crate) struct Kind {
    /// The library's kind; its name is the file's `kind`.
    pub kind: RecipeKind,
    /// The fields it takes.
    pub fields: &'static [&'static str],
    /// Checks the node's fields and builds the behaviour.
    build: fn(&Node<'_>) -> Result<Behaviour>,
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
            x.req("offset", x.n.offset.is_some())?;
            let mut follow = x.lib(FollowPath::new(x.n.offset.unwrap_or_default()))?;
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

/// A behaviour node being checked: where it is, what it says, and its kind's fields.
struct Node<'a> {
    path: &'a str,
    n: &'a NodeSpec,
    refs: &'a Refs<'a>,
    depth: usize,
    kind: &'static Kind,
}

impl Node<'_> {
    /// The path of one of the node's fields.
    fn f(&self, name: &str) -> String {
        join(self.path, name)
    }

    /// A point field in the scenario's dimensions, as a 3D vector (`z = 0` in 2D).
    fn point(&self, name: &str, v: Xy) -> Result<Vec3> {
        let at = self.f(name);
        Ok(if self.refs.dims == 3 { point(&at, v)? } else { point::<Vec2>(&at, v)?.extend(0.0) })
    }

    /// An error when a required field is absent.
    fn req(&self, name: &str, present: bool) -> Result<()> {
        required(self.path, "kind", self.kind.kind.name(), name, present.then_some(()))
    }

    /// A library constructor's result, its error pointed at the field it names.
    fn lib<T>(&self, r: core::result::Result<T, ParamError>) -> Result<T> {
        r.map_err(|e| lib(self.path, self.kind.fields, &e))
    }

    /// The required agent reference in `field` (`agent` or `other_agent`).
    fn agent(&self, field: &str) -> Result<crate::model::AgentRef> {
        let v = if field == "agent" { &self.n.agent } else { &self.n.other_agent };
        self.req(field, v.is_some())?;
        self.refs.agent(&self.f(field), v.as_deref().unwrap_or_default())
    }

    /// The required `path`, as an index into the scenario's paths.
    fn path(&self) -> Result<usize> {
        self.req("path", self.n.path.is_some())?;
        self.refs.path(&self.f("path"), self.n.path.as_deref().unwrap_or_default())
    }

    /// Exactly one of `target`, `agent`, `use_goal`.
    fn target(&self) -> Result<TargetRef<Vec3>> {
        let (n, path) = (self.n, self.path);
        let use_goal = n.use_goal.unwrap_or(false);
        match (n.target, &n.agent, use_goal) {
            (Some(p), None, false) => Ok(TargetRef::Point(self.point("target", p)?)),
            (None, Some(a), false) => {
                Ok(TargetRef::Agent(self.refs.agent(&join(path, "agent"), a)?))
            }
            (None, None, true) => Ok(TargetRef::Goal),
            (None, None, false) => Err(problem(
                join(path, "target"),
                format!("kind `{}` needs a target: `target = [x, y]`, `agent = \"group:index\"` or `use_goal = true`", n.kind),
            )),
            _ => Err(problem(
                join(path, if n.target.is_some() { "target" } else { "agent" }),
                "give one target: `target`, `agent` or `use_goal = true`",
            )),
        }
    }
}

/// The fields a node gives, with their numbers (checked finite by `applicable`).
fn node_present(n: &NodeSpec) -> Vec<Present> {
    present!(n;
        nums: weight, epsilon, panic_distance, target_radius, slow_radius, deceleration_time,
              time_to_target, max_prediction, turnaround, radius, distance, jitter, threshold,
              decay, buffer, margin, horizon, offset, predict_time, half_angle, whisker_ratio,
              half_width, avoid_distance, lookahead, lookahead_time, max_half_angle, widen_rate,
              commitment, length, side_angle, side_ratio, threat_range, ratio, string,
              leash_speed, path_radius, ahead, closeness, rate, cell_size, clearance, range,
              min_length, braking_weight, contact_gap, orientation, separation_weight,
              alignment_weight, cohesion_weight, wander_weight, probability;
        xys: target, velocity, local_offset, grid_min, grid_max;
        others: members = "members", first = "first", then = "then", agent = "agent", use_goal = "use_goal", mode = "mode",
                braking = "braking", stop = "stop", estimate = "estimate",
                head_on_shortcut = "head_on_shortcut", falloff = "falloff", gather = "gather",
                match_ = "match", path = "path", rays = "rays", ray_count = "ray_count",
                avoid_target = "avoid_target", other_agent = "other_agent",
                constraint_steps = "constraint_steps", wander = "wander")
}

/// Checks a behaviour node. `parent` is the kind of the combiner holding it (for `weight`).
pub(crate) fn node(
    path: &str,
    n: &NodeSpec,
    parent: Option<RecipeKind>,
    refs: &Refs<'_>,
    depth: usize,
) -> Result<Behaviour> {
    if depth > MAX_DEPTH {
        return Err(problem(path, format!("behaviours nested more than {MAX_DEPTH} deep")));
    }
    let name = n.kind.as_str();
    let Some(kind) = KINDS.iter().find(|k| k.kind.name() == name) else {
        let msg = match NOT_IN_FILES.iter().find(|(k, _)| k.name() == name) {
            Some((_, why)) => format!("behaviour kind `{name}` {why}"),
            None => {
                let names: Vec<&str> = KINDS.iter().map(|k| k.kind.name()).collect();
                format!("unknown behaviour kind `{name}`; expected one of {}", names.join(", "))
            }
        };
        return Err(problem(join(path, "kind"), msg));
    };
    let weighted =
        matches!(parent, Some(RecipeKind::Blend | RecipeKind::RunningSum | RecipeKind::Dither));
    let mut allowed: Vec<&str> = kind.fields.to_vec();
    if weighted {
        allowed.push("weight");
    }
    if parent == Some(RecipeKind::Dither) {
        allowed.push("probability");
    } else if n.probability.is_some() {
        return Err(problem(
            join(path, "probability"),
            "only members of `dither` take a probability",
        ));
    }
    if !weighted && n.weight.is_some() {
        let why = match parent {
            Some(p) => format!(
                "members of `{}` take no weight (only members of `blend`, `running_sum` and \
                 `dither` do)",
                p.name()
            ),
            None => "only members of `blend`, `running_sum` and `dither` take a weight".to_owned(),
        };
        return Err(problem(join(path, "weight"), why));
    }
    if refs.dims == 3 && kind.kind.info().planar {
        return Err(problem(
            join(path, "kind"),
            format!("kind `{name}` works in 2D scenarios only, not in a 3D one"),
        ));
    }
    super::applicable(path, "kind", name, &node_present(n), &allowed)?;
    if let (Some(p), true) = (parent, kind.kind.info().kinematic) {
        return Err(problem(
            join(path, "kind"),
            format!(
                "kind `{name}` sets the velocity and must be the whole behaviour, not a member of `{}`",
                p.name()
            ),
        ));
    }
    (kind.build)(&Node { path, n, refs, depth, kind })
}

/// Align's angular radii (rad) and response time: `target_radius` 0.01, `slow_radius` 0.5,
/// `time_to_target` 0.1 by default.
fn align(x: &Node<'_>) -> Result<Align> {
    let n = x.n;
    let target = non_negative(&x.f("target_radius"), n.target_radius.unwrap_or(0.01))?;
    let slow = non_negative(&x.f("slow_radius"), n.slow_radius.unwrap_or(0.5))?;
    let time = positive(&x.f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
    x.lib(Align::new(target, slow, time))
}

/// The flocking presets' optional weights.
fn flock_weights(x: &Node<'_>, w: &mut FlockWeights) -> Result<()> {
    let n = x.n;
    for (field, given, slot) in [
        ("separation_weight", n.separation_weight, &mut w.separation),
        ("alignment_weight", n.alignment_weight, &mut w.alignment),
        ("cohesion_weight", n.cohesion_weight, &mut w.cohesion),
    ] {
        if let Some(v) = given {
            *slot = finite(&x.f(field), v)?;
        }
    }
    Ok(())
}

/// A combiner's members with their weights (1 by default).
fn members(x: &Node<'_>) -> Result<Vec<(f32, Behaviour)>> {
    let name = x.kind.kind.name();
    let members =
        x.n.members
            .as_ref()
            .ok_or_else(|| problem(x.f("members"), format!("kind `{name}` needs `members`")))?;
    if members.is_empty() {
        return Err(problem(x.f("members"), format!("an empty `{name}` has nothing to combine")));
    }
    let mut out = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let mp = format!("{}.members[{i}]", x.path);
        let b = node(&mp, m, Some(x.kind.kind), x.refs, x.depth + 1)?;
        let w = match m.weight {
            Some(w) => finite(&join(&mp, "weight"), w)?,
            None => 1.0,
        };
        out.push((w, b));
    }
    Ok(out)
}

/// `sequence`: `first` (a route: a path leaf on an open path) until the path is finished, then
/// `then` (no path leaf).
fn sequence(x: &Node<'_>) -> Result<Behaviour> {
    let stage = |field: &str, n: &Option<Box<NodeSpec>>| -> Result<Behaviour> {
        let n = n
            .as_deref()
            .ok_or_else(|| problem(x.f(field), format!("kind `sequence` needs `{field}`")))?;
        node(&x.f(field), n, Some(RecipeKind::Sequence), x.refs, x.depth + 1)
    };
    let (first, then) = (stage("first", &x.n.first)?, stage("then", &x.n.then)?);
    let mut paths = Vec::new();
    first.for_each_leaf(&mut |leaf| paths.extend(leaf_path(leaf)));
    if paths.is_empty() {
        return Err(problem(
            x.f("first"),
            "the first stage of a `sequence` must follow a path (`follow_path`, \
             `dog_on_a_string`, `reprojection` or `grappling_hooks`): finishing it hands over",
        ));
    }
    if paths.iter().all(|&p| x.refs.looping(p)) {
        return Err(problem(
            x.f("first"),
            "the first stage of a `sequence` follows only looping paths, which are never \
             finished: use an open path",
        ));
    }
    let mut more = false;
    then.for_each_leaf(&mut |leaf| more |= leaf_path(leaf).is_some());
    if more {
        return Err(problem(
            x.f("then"),
            "the second stage of a `sequence` follows a path, but the agent's path is already \
             finished when it starts: nest another behaviour (for example `arrive` with \
             `use_goal = true`)",
        ));
    }
    Ok(Behaviour::Sequence { first: Box::new(first), then: Box::new(then) })
}

/// The path a leaf follows, if it follows one.
fn leaf_path(leaf: &Behaviour) -> Option<usize> {
    match leaf {
        Behaviour::FollowPath { path, .. }
        | Behaviour::DogOnAString { path, .. }
        | Behaviour::Reprojection { path, .. }
        | Behaviour::GrapplingHooks { path, .. } => Some(*path),
        _ => None,
    }
}

/// Pursue's and evade's look-ahead: `max_prediction` (required), `estimate`, the head-on
/// shortcut and the turnaround time.
fn prediction(x: &Node<'_>, default: &str) -> Result<Prediction> {
    let n = x.n;
    x.req("max_prediction", n.max_prediction.is_some())?;
    let estimate = one_of(
        &x.f("estimate"),
        n.estimate.as_deref().unwrap_or(default),
        &[
            ("current_speed", Estimate::CurrentSpeed),
            ("max_speed", Estimate::MaxSpeed),
            ("closing_speed", Estimate::ClosingSpeed),
        ],
    )?;
    let mut prediction = x.lib(Prediction::new(n.max_prediction.unwrap_or_default(), estimate))?;
    if let Some(on) = n.head_on_shortcut {
        prediction = prediction.with_head_on_shortcut(on);
    }
    if let Some(t) = n.turnaround {
        prediction = x.lib(prediction.with_turnaround(t))?;
    }
    Ok(prediction)
}

/// `kind = "separation"`: the falloff law and its decay, the gather rule, radius awareness.
fn separation(x: &Node<'_>) -> Result<Behaviour> {
    let n = x.n;
    x.req("threshold", n.threshold.is_some())?;
    let law = n.falloff.as_deref().unwrap_or("inverse_square");
    let falloff = match one_of(
        &x.f("falloff"),
        law,
        &[("inverse_square", 0), ("linear", 1), ("inverse", 2)],
    )? {
        1 => {
            if n.decay.is_some() {
                return Err(problem(
                    x.f("decay"),
                    "field `decay` does not apply to `falloff = \"linear\"`",
                ));
            }
            Falloff::Linear
        }
        law => {
            x.req("decay", n.decay.is_some())?;
            let k = n.decay.unwrap_or_default();
            if law == 0 {
                Falloff::InverseSquare(k)
            } else {
                Falloff::Inverse(k)
            }
        }
    };
    let mut s = x.lib(Separation::new(n.threshold.unwrap_or_default(), falloff))?;
    if let Some(g) = &n.gather {
        s = s.with_gather(one_of(
            &x.f("gather"),
            g,
            &[("sum", Gather::Sum), ("nearest", Gather::Nearest)],
        )?);
    }
    if let Some(b) = n.buffer {
        s = x.lib(s.radius_aware(b))?;
    }
    Ok(Behaviour::Separation(s))
}

/// `kind = "pipeline"`: the planner's grid, clearance, constraint margin and steps, and the
/// arrive toward each sub-goal.
fn pipeline(x: &Node<'_>) -> Result<Behaviour> {
    let n = x.n;
    let goal = x.target()?;
    x.req("grid_min", n.grid_min.is_some())?;
    x.req("grid_max", n.grid_max.is_some())?;
    x.req("clearance", n.clearance.is_some())?;
    let min = xy(&x.f("grid_min"), n.grid_min.unwrap_or_default())?;
    let max = xy(&x.f("grid_max"), n.grid_max.unwrap_or_default())?;
    if max.x <= min.x || max.y <= min.y {
        return Err(problem(
            x.f("grid_max"),
            format!("`grid_max` ({max}) must exceed `grid_min` ({min}) on both axes"),
        ));
    }
    let cell_size = positive(&x.f("cell_size"), n.cell_size.unwrap_or(0.5))?;
    let cells = ((max - min) / cell_size).ceil();
    if cells.x * cells.y > 1.0e6 {
        return Err(problem(
            x.f("cell_size"),
            format!(
                "the grid would have {} cells (at most 1000000): use larger cells",
                cells.x * cells.y
            ),
        ));
    }
    let clearance = non_negative(&x.f("clearance"), n.clearance.unwrap_or_default())?;
    let margin = n.margin.unwrap_or(1.3);
    if margin <= 1.0 {
        return Err(problem(x.f("margin"), format!("`margin` ({margin}) must be above 1")));
    }
    let constraint_steps = n.constraint_steps.unwrap_or(8) as usize;
    let align = x.lib(Align::new(0.02, 0.5, 0.1))?;
    Ok(Behaviour::Pipeline {
        goal,
        bounds: Aabb::new(min, max),
        cell_size,
        clearance,
        margin,
        constraint_steps,
        actuator: HeadFor::new(arrive(x, true)?, align),
    })
}

fn seek_mode(x: &Node<'_>) -> Result<SeekMode> {
    let n = x.n;
    let mode = one_of(
        &x.f("mode"),
        n.mode.as_deref().unwrap_or("full_acceleration"),
        &[("full_acceleration", 0), ("desired_velocity", 1)],
    )?;
    if mode == 0 {
        if n.time_to_target.is_some() {
            return Err(problem(
                x.f("time_to_target"),
                "field `time_to_target` applies only with `mode = \"desired_velocity\"`",
            ));
        }
        Ok(SeekMode::FullAcceleration)
    } else {
        let t = positive(&x.f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
        Ok(SeekMode::DesiredVelocity { time_to_target: t })
    }
}

/// Arrive's parameters. `ramp_choice`: the approach may be `deceleration_time` or `braking`
/// (arrive itself); cohesion only takes `slow_radius`.
fn arrive(x: &Node<'_>, ramp_choice: bool) -> Result<Arrive> {
    let (path, n) = (x.path, x.n);
    let f = |name: &str| join(path, name);
    let target_radius = non_negative(&f("target_radius"), n.target_radius.unwrap_or(0.0))?;
    let time = positive(&f("time_to_target"), n.time_to_target.unwrap_or(0.1))?;
    let braking = n.braking.unwrap_or(false);
    let approach = match (n.slow_radius, n.deceleration_time, braking) {
        (Some(r), None, false) => {
            let r = non_negative(&f("slow_radius"), r)?;
            if r < target_radius {
                return Err(problem(
                    f("slow_radius"),
                    format!(
                        "`slow_radius` ({r}) must be at least `target_radius` ({target_radius})"
                    ),
                ));
            }
            Approach::SlowRadius(r)
        }
        (None, Some(t), false) if ramp_choice => {
            Approach::DecelerationTime(positive(&f("deceleration_time"), t)?)
        }
        (None, None, true) if ramp_choice => Approach::Braking,
        (None, None, false) => {
            let need = if ramp_choice {
                "`slow_radius`, `deceleration_time` or `braking = true`"
            } else {
                "`slow_radius`"
            };
            return Err(problem(f("slow_radius"), format!("arriving needs {need}")));
        }
        _ => {
            let field = if n.slow_radius.is_some() && n.deceleration_time.is_some() {
                "deceleration_time"
            } else {
                "braking"
            };
            return Err(problem(
                f(field),
                "give one approach: `slow_radius`, `deceleration_time` or `braking = true`",
            ));
        }
    };
    let arrive = Arrive::with_approach(target_radius, approach, time).map_err(|e| {
        lib(path, &["target_radius", "slow_radius", "deceleration_time", "time_to_target"], &e)
    })?;
    let stop = match &n.stop {
        Some(s) => one_of(&f("stop"), s, &[("brake", Stop::Brake), ("coast", Stop::Coast)])?,
        None => Stop::Brake,
    };
    Ok(arrive.with_stop(stop))
}

/// `kind = "obstacle_avoidance"`: the ray layout, lengths, the adaptive fan (when
/// `max_half_angle` is given: it widens from `half_angle` at `widen_rate`), the corner
/// commitment and the avoid-target rule.
fn obstacle_avoidance(path: &str, n: &NodeSpec) -> Result<ObstacleAvoidance> {
    let f = |name: &str| join(path, name);
    let fields = &["avoid_distance", "lookahead", "half_angle", "whisker_ratio", "half_width"];
    let lib_err = |e: ParamError| lib(path, fields, &e);
    let rays = n.rays.as_deref().unwrap_or("whiskers");
    let kind =
        one_of(&f("rays"), rays, &[("single", 0u8), ("whiskers", 1), ("parallel", 2), ("fan", 3)])?;
    let only = |name: &str, given: bool, layouts: &str| -> Result<()> {
        if given {
            Err(problem(f(name), format!("field `{name}` applies only to `rays = {layouts}`")))
        } else {
            Ok(())
        }
    };
    only("whisker_ratio", kind != 1 && n.whisker_ratio.is_some(), "\"whiskers\"")?;
    only("half_width", kind != 2 && n.half_width.is_some(), "\"parallel\"")?;
    only("ray_count", kind != 3 && n.ray_count.is_some(), "\"fan\"")?;
    only("half_angle", matches!(kind, 0 | 2) && n.half_angle.is_some(), "\"whiskers\" or \"fan\"")?;
    let half_angle = n.half_angle.unwrap_or(0.5);
    let layout = match kind {
        0 => RayLayout::Single,
        1 => RayLayout::Whiskers { half_angle, whisker_ratio: n.whisker_ratio.unwrap_or(0.5) },
        2 => RayLayout::Parallel { half_width: n.half_width.unwrap_or(0.5) },
        _ => RayLayout::Fan { half_angle, rays: n.ray_count.unwrap_or(3) },
    };
    let avoid = n.avoid_distance.ok_or_else(|| {
        problem(f("avoid_distance"), "kind `obstacle_avoidance` needs `avoid_distance`")
    })?;
    let lookahead = n
        .lookahead
        .ok_or_else(|| problem(f("lookahead"), "kind `obstacle_avoidance` needs `lookahead`"))?;
    let mut a = ObstacleAvoidance::new(layout, avoid, lookahead).map_err(lib_err)?;
    if let Some(t) = n.lookahead_time {
        a = a.with_lookahead_time(t).map_err(lib_err)?;
    }
    match (n.max_half_angle, n.widen_rate) {
        (Some(max), rate) => {
            if matches!(kind, 0 | 2) {
                only("max_half_angle", true, "\"whiskers\" or \"fan\"")?;
            }
            let fan = AdaptiveFan {
                min_half_angle: half_angle,
                max_half_angle: max,
                rate: rate.unwrap_or(2.0),
            };
            a = a.adaptive(fan).map_err(|e| lib(path, &["max_half_angle", "widen_rate"], &e))?;
        }
        (None, Some(_)) => {
            return Err(problem(
                f("widen_rate"),
                "`widen_rate` needs `max_half_angle` (the adaptive fan)",
            ))
        }
        (None, None) => {}
    }
    if let Some(h) = n.commitment {
        a = a.with_commitment(h).map_err(|e| lib(path, &["commitment"], &e))?;
    }
    if let Some(t) = &n.avoid_target {
        a = a.with_target(one_of(
            &f("avoid_target"),
            t,
            &[("lateral", AvoidTarget::Lateral), ("normal", AvoidTarget::Normal)],
        )?);
    }
    Ok(a)
}
