//! Every behaviour kind of the format loads from a minimal node, becomes the matching crowd
//! recipe, and is documented in the format reference.

use steerkit::crowd::{Recipe, Target};
use steerkit::steering::{Alignment, Cohesion, KinematicArrive};
use steerkit::Vec2;
use steerkit_scenario::{behaviour_fields, behaviour_kinds, Scenario};

fn scenario(behaviour: &str) -> String {
    format!(
        r#"name = "kinds"
dt = 0.05
steps = 20
[world]
neighbour_radius = 2
[[paths]]
name = "line"
points = [[0, 0], [10, 0]]
[[groups]]
name = "other"
agents = [{{ position = [5, 5], velocity = [1, 0] }}]
radius = 0.3
limits = {{ max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }}
behaviour = {{ kind = "seek", target = [0, 0] }}
[[groups]]
name = "g"
agents = [{{ position = [0, 0], goal = [3, 3] }}, {{ position = [1, 0] }}]
radius = 0.3
limits = {{ max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }}
behaviour = {behaviour}
"#
    )
}

const MINIMAL: &[(&str, &str)] = &[
    ("seek", r#"{ kind = "seek", target = [1, 2] }"#),
    ("flee", r#"{ kind = "flee", agent = "other:0", panic_distance = 4 }"#),
    ("arrive", r#"{ kind = "arrive", use_goal = true, braking = true }"#),
    ("pursue", r#"{ kind = "pursue", agent = "other:0", max_prediction = 1 }"#),
    ("evade", r#"{ kind = "evade", agent = "other:0", max_prediction = 1 }"#),
    ("velocity_match", r#"{ kind = "velocity_match", velocity = [1, 0] }"#),
    ("wander", r#"{ kind = "wander", radius = 1, distance = 2, jitter = 3 }"#),
    ("separation", r#"{ kind = "separation", threshold = 1, falloff = "linear" }"#),
    ("cohesion", r#"{ kind = "cohesion", slow_radius = 2 }"#),
    ("alignment", r#"{ kind = "alignment", match = "velocity" }"#),
    ("collision_avoidance", r#"{ kind = "collision_avoidance", margin = 0.1, horizon = 2 }"#),
    ("follow_path", r#"{ kind = "follow_path", path = "line", offset = 1 }"#),
    ("blend", r#"{ kind = "blend", members = [{ kind = "seek", target = [0, 0], weight = 2 }] }"#),
    ("priority", r#"{ kind = "priority", members = [{ kind = "seek", target = [0, 0] }] }"#),
    ("running_sum", r#"{ kind = "running_sum", members = [{ kind = "seek", target = [0, 0] }] }"#),
    (
        "sequence",
        r#"{ kind = "sequence", first = { kind = "follow_path", path = "line", offset = 1 }, then = { kind = "arrive", use_goal = true, slow_radius = 1 } }"#,
    ),
    (
        "obstacle_avoidance",
        r#"{ kind = "obstacle_avoidance", rays = "fan", ray_count = 5, half_angle = 0.4, avoid_distance = 1, lookahead = 3, max_half_angle = 1, commitment = 0.5 }"#,
    ),
    ("wall_feelers", r#"{ kind = "wall_feelers", length = 2, side_angle = 0.6 }"#),
    ("hide", r#"{ kind = "hide", agent = "other:0", distance = 1, threat_range = 10 }"#),
    ("interpose", r#"{ kind = "interpose", agent = "other:0", other_agent = "g:0" }"#),
    ("offset_pursuit", r#"{ kind = "offset_pursuit", agent = "other:0", local_offset = [-1, 1] }"#),
    (
        "dog_on_a_string",
        r#"{ kind = "dog_on_a_string", path = "line", string = 1.5, slow_radius = 2 }"#,
    ),
    (
        "reprojection",
        r#"{ kind = "reprojection", path = "line", path_radius = 0.5, braking = true }"#,
    ),
    (
        "grappling_hooks",
        r#"{ kind = "grappling_hooks", path = "line", closeness = 1, slow_radius = 2 }"#,
    ),
    ("slot", r#"{ kind = "slot", slow_radius = 2 }"#),
    ("kinematic_seek", r#"{ kind = "kinematic_seek", target = [1, 2] }"#),
    ("kinematic_arrive", r#"{ kind = "kinematic_arrive", use_goal = true, radius = 0.5 }"#),
    ("kinematic_wander", r#"{ kind = "kinematic_wander", rate = 1.5 }"#),
    ("cone_check", r#"{ kind = "cone_check", half_angle = 0.5, range = 3 }"#),
    ("detection_box", r#"{ kind = "detection_box", min_length = 2, braking_weight = 0.3 }"#),
    ("repel_obstacle", r#"{ kind = "repel_obstacle", range = 2, contact_gap = 0.2 }"#),
    ("align", r#"{ kind = "align", orientation = 1.5 }"#),
    ("face", r#"{ kind = "face", agent = "other:0", slow_radius = 0.8 }"#),
    ("look_where_youre_going", r#"{ kind = "look_where_youre_going" }"#),
    ("millington_flock", r#"{ kind = "millington_flock", radius = 2, cohesion_weight = 0.5 }"#),
    (
        "buckland_flock",
        r#"{ kind = "buckland_flock", radius = 2, wander = true, wander_weight = 0.7 }"#,
    ),
    (
        "dither",
        r#"{ kind = "dither", members = [{ kind = "seek", target = [1, 2], probability = 0.5, weight = 2 }, { kind = "arrive", use_goal = true, slow_radius = 1 }] }"#,
    ),
    (
        "pipeline",
        r#"{ kind = "pipeline", use_goal = true, grid_min = [-10, -10], grid_max = [10, 10], clearance = 0.5, slow_radius = 1 }"#,
    ),
    ("flee_hazards", r#"{ kind = "flee_hazards", margin = 0.5 }"#),
    ("navigate", r#"{ kind = "navigate", slow_radius = 1 }"#),
];

#[test]
fn every_kind_builds_into_its_recipe() {
    let kinds: Vec<&str> = behaviour_kinds().collect();
    assert_eq!(kinds.len(), MINIMAL.len());
    for (kind, node) in MINIMAL {
        assert!(kinds.contains(kind), "{kind}");
        let s = Scenario::from_toml_str(&scenario(node), "kinds.toml")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut w = s.build().unwrap();
        let other = w.groups[0].agents[0];
        let recipe = w.crowd.group(w.groups[1].id).unwrap().recipe.clone();
        let ok = match (*kind, &recipe) {
            ("seek", Recipe::Seek { target: Target::Point(p), .. }) => *p == Vec2::new(1.0, 2.0),
            ("flee", Recipe::Flee { target: Target::Agent(h), .. }) => *h == other,
            ("arrive", Recipe::Arrive { target: Target::Goal, .. }) => true,
            ("pursue", Recipe::Pursue { target, .. }) => *target == other,
            ("evade", Recipe::Evade { threat, .. }) => *threat == other,
            ("velocity_match", Recipe::VelocityMatch { velocity, .. }) => *velocity == Vec2::X,
            ("wander", Recipe::Wander(w)) => w.parameters() == (1.0, 2.0, 3.0),
            ("flee_hazards", Recipe::FleeHazards { margin, .. }) => *margin == 0.5,
            ("separation", Recipe::Separation(_)) => true,
            ("cohesion", Recipe::Cohesion(Cohesion::Arrive(_))) => true,
            ("alignment", Recipe::Alignment(Alignment::Velocity(_))) => true,
            ("collision_avoidance", Recipe::CollisionAvoidance(_)) => true,
            ("follow_path", Recipe::FollowPath { path, .. }) => path.0 == 0,
            ("blend", Recipe::Blend(m)) => m.len() == 1 && m[0].0 == 2.0,
            ("priority", Recipe::Priority { groups, .. }) => groups.len() == 1,
            ("running_sum", Recipe::RunningSum(m)) => m.len() == 1 && m[0].0 == 1.0,
            ("sequence", Recipe::Sequence { first, then }) => {
                matches!(**first, Recipe::FollowPath { .. })
                    && matches!(**then, Recipe::Arrive { target: Target::Goal, .. })
            }
            ("obstacle_avoidance", Recipe::ObstacleAvoidance(a)) => a.half_angle() == 0.4,
            ("wall_feelers", Recipe::WallFeelers(_)) => true,
            ("hide", Recipe::Hide { hunter, .. }) => *hunter == other,
            ("interpose", Recipe::Interpose { a, b, .. }) => {
                *a == other && *b == w.groups[1].agents[0]
            }
            ("offset_pursuit", Recipe::OffsetPursuit { leader, pursuit }) => {
                *leader == other && pursuit.offset == Vec2::new(-1.0, 1.0)
            }
            ("dog_on_a_string", Recipe::DogOnAString { path, .. })
            | ("reprojection", Recipe::Reprojection { path, .. })
            | ("grappling_hooks", Recipe::GrapplingHooks { path, .. }) => path.0 == 0,
            ("slot", Recipe::Slot(_)) => true,
            ("navigate", Recipe::Navigate { arrive }) => arrive.time_to_target() == 0.1,
            ("kinematic_seek", Recipe::KinematicSeek { target: Target::Point(p) }) => {
                *p == Vec2::new(1.0, 2.0)
            }
            ("kinematic_arrive", Recipe::KinematicArrive { target: Target::Goal, arrive }) => {
                *arrive == KinematicArrive::new(0.5, 0.25).unwrap()
            }
            ("kinematic_wander", Recipe::KinematicWander { rate }) => *rate == 1.5,
            ("cone_check", Recipe::ConeCheck(_)) => true,
            ("detection_box", Recipe::DetectionBox(_)) => true,
            ("repel_obstacle", Recipe::RepelObstacle(_)) => true,
            ("align", Recipe::Align { orientation, .. }) => *orientation == 1.5,
            ("face", Recipe::Face { target: Target::Agent(h), .. }) => *h == other,
            ("look_where_youre_going", Recipe::LookWhereYoureGoing(_)) => true,
            ("millington_flock", Recipe::MillingtonFlock(f)) => f.weights.cohesion == 0.5,
            ("buckland_flock", Recipe::BucklandFlock(f)) => {
                f.wander.is_some() && f.weights.wander == 0.7
            }
            ("dither", Recipe::Dither { members, .. }) => {
                members.len() == 2
                    && (members[0].0, members[0].1) == (2.0, 0.5)
                    && (members[1].0, members[1].1) == (1.0, 1.0)
            }
            (
                "pipeline",
                Recipe::Pipeline {
                    goal: Target::Goal,
                    bounds,
                    cell_size,
                    clearance,
                    margin,
                    constraint_steps,
                    ..
                },
            ) => {
                bounds.min == Vec2::new(-10.0, -10.0)
                    && bounds.max == Vec2::new(10.0, 10.0)
                    && *cell_size == 0.5
                    && *clearance == 0.5
                    && *margin == 1.3
                    && *constraint_steps == 8
            }
            _ => false,
        };
        assert!(ok, "kind {kind} built {recipe:?}");
        for _ in 0..s.steps() {
            w.crowd.step(s.dt()).unwrap();
        }
        assert!(w.crowd.positions().iter().all(|p| p.is_finite()), "{kind}");
    }
}

#[test]
fn every_kind_and_field_is_documented() {
    let doc = include_str!("../../../docs/scenario-format.md");
    for kind in behaviour_kinds() {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{kind}` |")))
            .unwrap_or_else(|| panic!("no row for `{kind}` in docs/scenario-format.md"));
        for field in behaviour_fields(kind).unwrap() {
            let named = row.contains(&format!("`{field}`"))
                || row.contains(&format!("`{field} ="))
                || (["target", "agent", "use_goal"].contains(field) && row.contains("target;"));
            assert!(named, "kind `{kind}`: field `{field}` is not in its row");
        }
    }
}

/// Every kind of the library's recipe is either a scenario kind or on the documented list of
/// kinds a file cannot name, never both; the docs' "not available yet" list is that list.
#[test]
fn every_library_kind_has_a_scenario_kind_or_a_documented_reason() {
    let kinds: Vec<&str> = behaviour_kinds().collect();
    let missing: Vec<(&str, &str)> = steerkit_scenario::kinds_not_in_files().collect();
    for kind in steerkit::crowd::RecipeKind::all() {
        let name = kind.name();
        let in_files = kinds.contains(&name);
        let listed = missing.iter().any(|(k, _)| *k == name);
        assert!(
            in_files != listed,
            "`{name}`: a scenario kind {in_files}, listed as missing {listed}"
        );
    }
    let doc = include_str!("../../../docs/scenario-format.md");
    let not_yet = doc
        .split("**Not available yet.**")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a 'Not available yet' paragraph in docs/scenario-format.md");
    for (name, why) in &missing {
        if *name == "custom" {
            assert!(
                doc.contains("`custom`"),
                "docs/scenario-format.md says nothing of `custom` ({why})"
            );
        } else {
            assert!(not_yet.contains(&format!("`{name}`")), "`{name}` is not in the docs' list");
        }
    }
    for name in &kinds {
        assert!(
            !not_yet.contains(&format!("`{name}`")),
            "`{name}` runs but the docs list it as missing"
        );
    }
}

/// `follow_path`'s `offset` is optional: left out, the rabbit runs 2 m ahead, the same recipe
/// as `offset = 2`; another value makes another recipe.
#[test]
fn follow_paths_offset_defaults_to_two_metres() {
    let recipe = |node: &str| {
        let w = Scenario::from_toml_str(&scenario(node), "kinds.toml").unwrap().build().unwrap();
        w.crowd.group(w.groups[1].id).unwrap().recipe.clone()
    };
    let default = recipe(r#"{ kind = "follow_path", path = "line" }"#);
    assert_eq!(default, recipe(r#"{ kind = "follow_path", path = "line", offset = 2 }"#));
    assert_ne!(default, recipe(r#"{ kind = "follow_path", path = "line", offset = 1 }"#));
}
