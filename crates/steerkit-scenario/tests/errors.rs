//! One test per kind of bad input: each checks that the message names the file, the field path
//! and the line and column of the offending text.

use steerkit::Vec2;
use steerkit_scenario::{Location, Scenario, ScenarioError, MAX_FILE_SIZE};

const BASE: &str = r#"name = "t"
dt = 0.1
steps = 10
[world]
min = [-10, -10]
max = [10, 10]
neighbour_radius = 2.0
[[paths]]
name = "loop"
points = [[0, 0], [5, 0], [5, 5]]
[[groups]]
name = "a"
count = 3
spawn = { shape = "rect", min = [-5, -5], max = [5, 5] }
radius = 0.3
limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "arrive", target = [5, 0], target_radius = 0.2, slow_radius = 2 }
[[groups]]
name = "b"
agents = [{ position = [1, 1] }]
radius = 0.3
limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "blend", members = [{ kind = "seek", target = [0, 0], weight = 1 }, { kind = "pursue", agent = "a:0", max_prediction = 1, weight = 2 }] }
"#;

/// `src` with `from` replaced by `to` (which must occur exactly once).
fn with(from: &str, to: &str) -> String {
    assert_eq!(BASE.matches(from).count(), 1, "`{from}` must occur once in BASE");
    BASE.replacen(from, to, 1)
}

/// 1-based line and column of the first `needle` at or after byte `after` in `src`.
fn at(src: &str, needle: &str) -> Location {
    let i = src.find(needle).unwrap_or_else(|| panic!("`{needle}` not in source"));
    Location::of_offset(src, i)
}

fn toml_error(src: &str) -> ScenarioError {
    Scenario::from_toml_str(src, "bad.toml").expect_err("the scenario should be rejected")
}

/// Asserts the message is `bad.toml:<line>:<col>: <field>: ...<says>...`.
fn assert_located(e: &ScenarioError, loc: Location, field: &str, says: &str) {
    let msg = e.to_string();
    println!("{msg}");
    let head = format!("bad.toml:{}:{}: {field}: ", loc.line, loc.column);
    assert!(msg.starts_with(&head), "message `{msg}` should start with `{head}`");
    assert!(msg.contains(says), "message `{msg}` should say `{says}`");
    assert_eq!(e.field(), field);
    assert_eq!(e.location(), Some(loc));
}

#[test]
fn base_scenario_is_valid() {
    let s = Scenario::from_toml_str(BASE, "good.toml").unwrap();
    assert_eq!(s.agent_count(), 4);
}

#[test]
fn misspelt_key_at_top_level() {
    let src = with("steps = 10\n", "steps = 10\nsed = 3\n");
    let e = toml_error(&src);
    assert_located(&e, at(&src, "sed = 3"), "sed", "unknown field `sed` (did you mean `seed`?)");
}

#[test]
fn misspelt_key_in_a_group() {
    let src = with("radius = 0.3\nlimits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"", "raduis = 0.3\nlimits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "raduis"),
        "groups[0].raduis",
        "unknown field `raduis` (did you mean `radius`?)",
    );
}

#[test]
fn misspelt_key_in_a_behaviour_node() {
    let src = with("max_prediction = 1, weight = 2", "max_predicton = 1, weight = 2");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "max_predicton"),
        "groups[1].behaviour.members[1].max_predicton",
        "unknown field `max_predicton` (did you mean `max_prediction`?)",
    );
}

#[test]
fn wrong_type() {
    let src = with(
        "name = \"b\"\nagents = [{ position = [1, 1] }]\nradius = 0.3",
        "name = \"b\"\nagents = [{ position = [1, 1] }]\nradius = \"big\"",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"big\""),
        "groups[1].radius",
        "invalid type: string \"big\", expected f32",
    );
}

#[test]
fn negative_radius() {
    let src = with(
        "name = \"b\"\nagents = [{ position = [1, 1] }]\nradius = 0.3",
        "name = \"b\"\nagents = [{ position = [1, 1] }]\nradius = -0.3",
    );
    let e = toml_error(&src);
    assert_located(&e, at(&src, "-0.3"), "groups[1].radius", "must not be negative, got -0.3");
}

#[test]
fn nan_is_rejected() {
    let src = with("slow_radius = 2", "slow_radius = nan");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "nan"),
        "groups[0].behaviour.slow_radius",
        "must be a finite number, got NaN",
    );
}

#[test]
fn infinity_is_rejected() {
    let src = with("limits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"blend\"", "limits = { max_speed = inf, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"blend\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "inf,"),
        "groups[1].limits.max_speed",
        "must be a finite number, got inf",
    );
}

#[test]
fn infinity_inside_a_point_names_the_component() {
    let src = with("target = [0, 0]", "target = [0, -inf]");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "-inf"),
        "groups[1].behaviour.members[0].target[1]",
        "must be a finite number, got -inf",
    );
}

#[test]
fn missing_required_field() {
    let src = with(
        "count = 3\nspawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }\nradius = 0.3\n",
        "count = 3\nspawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }\n",
    );
    let e = toml_error(&src);
    // the group's table: its `[[groups]]` header
    assert_located(&e, at(&src, "[[groups]]"), "groups[0]", "missing field `radius`");
}

#[test]
fn missing_parameter_of_a_kind() {
    let src = with(", max_prediction = 1, weight = 2", ", weight = 2");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "{ kind = \"pursue\""),
        "groups[1].behaviour.members[1].max_prediction",
        "kind `pursue` needs `max_prediction`",
    );
}

#[test]
fn reference_to_a_path_that_does_not_exist() {
    let src = with(
        "{ kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2 }",
        "{ kind = \"follow_path\", path = \"lop\", offset = 1 }",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"lop\""),
        "groups[0].behaviour.path",
        "no path named `lop` (paths: loop)",
    );
}

#[test]
fn reference_to_a_group_that_does_not_exist() {
    let src = with("agent = \"a:0\"", "agent = \"c:0\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"c:0\""),
        "groups[1].behaviour.members[1].agent",
        "no group named `c` (groups: a, b)",
    );
}

#[test]
fn reference_to_an_agent_that_does_not_exist() {
    let src = with("agent = \"a:0\"", "agent = \"a:3\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"a:3\""),
        "groups[1].behaviour.members[1].agent",
        "group `a` has 3 agents, so there is no agent 3",
    );
}

#[test]
fn unknown_behaviour_kind() {
    let src = with("kind = \"seek\"", "kind = \"sek\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"sek\""),
        "groups[1].behaviour.members[0].kind",
        "unknown behaviour kind `sek`; expected one of seek, flee, arrive",
    );
}

#[test]
fn a_custom_leaf_cannot_be_named_by_a_file() {
    let src = with("kind = \"seek\", target = [0, 0]", "kind = \"custom\"");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"custom\""),
        "groups[1].behaviour.members[0].kind",
        "`custom` is code of a program's own, registered with its crowd in Rust",
    );
}

#[test]
fn obstacle_avoidance_field_of_another_ray_layout() {
    let src = with(
        "kind = \"seek\", target = [0, 0]",
        "kind = \"obstacle_avoidance\", rays = \"single\", half_width = 0.5, avoid_distance = 1, lookahead = 2",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "0.5, avoid"),
        "groups[1].behaviour.members[0].half_width",
        "applies only to `rays = \"parallel\"`",
    );
}

#[test]
fn new_kinds_name_their_missing_or_bad_field() {
    let cases = [
        ("kind = \"wall_feelers\", length = -7", "length", "-7"),
        ("kind = \"hide\", agent = \"a:9\", distance = 1", "agent", "\"a:9\""),
        ("kind = \"interpose\", agent = \"a:0\"", "other_agent", "{ kind = \"interpose"),
        ("kind = \"offset_pursuit\", agent = \"a:0\"", "local_offset", "{ kind = \"offset_pursuit"),
        (
            "kind = \"grappling_hooks\", path = \"lop\", closeness = 1, slow_radius = 2",
            "path",
            "\"lop\"",
        ),
        (
            "kind = \"dog_on_a_string\", path = \"loop\", string = 0, slow_radius = 2",
            "string",
            "0, slow",
        ),
        (
            "kind = \"reprojection\", path = \"loop\", path_radius = 0.5",
            "slow_radius",
            "{ kind = \"reprojection",
        ),
    ];
    for (node, field, text) in cases {
        let src = with("kind = \"seek\", target = [0, 0]", node);
        let e = toml_error(&src);
        assert_eq!(e.field(), format!("groups[1].behaviour.members[0].{field}"), "{e}");
        assert_eq!(e.location(), Some(at(&src, text)), "{e}");
    }
}

#[test]
fn formation_of_a_group_that_does_not_exist() {
    let src = format!(
        "{BASE}[[formations]]\ngroup = \"c\"\nshape = \"v\"\nspacing = 2\nanchor_position = [0, 0]\nanchor_limits = {{ max_speed = 1, max_acceleration = 1, max_rotation = 1, max_angular_acceleration = 1 }}\nanchor = {{ kind = \"follow_path\", path = \"loop\", offset = 1 }}\n"
    );
    let e = toml_error(&src);
    assert_located(&e, at(&src, "\"c\""), "formations[0].group", "no group named `c`");
    let bad_shape = src.replace("group = \"c\"", "group = \"a\"").replace("\"v\"", "\"u\"");
    let e = toml_error(&bad_shape);
    assert_eq!(e.field(), "formations[0].shape", "{e}");
    assert_eq!(e.location(), Some(at(&bad_shape, "\"u\"")));
    // every accepted shape is offered, `box` too
    assert!(
        e.to_string().ends_with(
            "unknown value `u`; expected one of `line`, `v`, `wedge`, `column`, `circle`, `box`"
        ),
        "{e}"
    );
    let boxed = bad_shape.replace("\"u\"", "\"box\"");
    let e = toml_error(&boxed);
    assert_eq!(e.field(), "formations[0].columns", "{e}");
}

#[test]
fn field_not_applicable_to_the_kind() {
    let src = with(
        "kind = \"seek\", target = [0, 0]",
        "kind = \"seek\", target = [0, 0], slow_radius = 2",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "2, weight = 1"),
        "groups[1].behaviour.members[0].slow_radius",
        "field `slow_radius` does not apply to kind `seek` (its fields are target, agent, use_goal, mode, time_to_target, weight)",
    );
}

#[test]
fn weight_outside_a_weighted_combiner() {
    let src = with("slow_radius = 2 }", "slow_radius = 2, weight = 3 }");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "3 }"),
        "groups[0].behaviour.weight",
        "only members of `blend`, `running_sum` and `dither` take a weight",
    );
}

#[test]
fn empty_combiner() {
    let src = with(
        "{ kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2 }",
        "{ kind = \"priority\", members = [] }",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "[] }"),
        "groups[0].behaviour.members",
        "an empty `priority` has nothing to combine",
    );
}

#[test]
fn contradictory_arrive_radii() {
    let src = with("slow_radius = 2", "slow_radius = 0.1");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "0.1 }"),
        "groups[0].behaviour.slow_radius",
        "`slow_radius` (0.1) must be at least `target_radius` (0.2)",
    );
}

#[test]
fn a_group_with_no_agents() {
    let src = with("count = 3", "count = 0");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "0\nspawn"),
        "groups[0].count",
        "`count` is 0 and there is no `agents` list",
    );
}

#[test]
fn use_goal_in_a_group_without_goals() {
    let src = with("target = [5, 0], target_radius", "use_goal = true, target_radius");
    let e = toml_error(&src);
    assert_eq!(e.field(), "groups[0].goal", "{e}");
    assert!(e.to_string().contains("no agent of the group has one"), "{e}");
    // a group goal, or one agent's own goal, is enough
    Scenario::from_toml_str(&src.replacen("radius = 0.3", "goal = [1, 1]\nradius = 0.3", 1), "t")
        .unwrap();
    let b = with("seek\", target = [0, 0]", "seek\", use_goal = true");
    assert_eq!(toml_error(&b).field(), "groups[1].goal");
    let one = b.replace("[{ position = [1, 1] }]", "[{ position = [1, 1], goal = [2, 2] }]");
    Scenario::from_toml_str(&one, "t").unwrap();
}

#[test]
fn agent_outside_the_world() {
    let src = with("position = [1, 1]", "position = [1, 11]");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "[1, 11]"),
        "groups[1].agents[0].position",
        "outside the world's bounds",
    );
}

#[test]
fn toml_syntax_error() {
    let src = with("dt = 0.1", "dt = 0.1.2");
    let e = toml_error(&src);
    let msg = e.to_string();
    assert_eq!(e.location().map(|l| l.line), Some(2), "{msg}");
    assert!(msg.starts_with("bad.toml:2:"), "{msg}");
}

/// A file in a temporary directory of its own, removed with it when dropped.
struct TempFile(std::path::PathBuf);

impl std::ops::Deref for TempFile {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempFile {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn tmp(name: &str, bytes: &[u8]) -> TempFile {
    let dir =
        std::env::temp_dir().join(format!("steerkit-scenario-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    TempFile(p)
}

#[test]
fn file_too_large() {
    let mut big = BASE.as_bytes().to_vec();
    big.resize(MAX_FILE_SIZE as usize + 1, b'#');
    let p = tmp("big.toml", &big);
    let e = Scenario::load(&p).unwrap_err();
    assert!(matches!(e, ScenarioError::TooLarge { limit, .. } if limit == MAX_FILE_SIZE));
    assert_eq!(
        e.to_string(),
        format!("{}: the file is larger than the limit of 4194304 bytes", p.display())
    );
    // text already in memory is held to the same limit
    let text = String::from_utf8(big).unwrap();
    assert!(matches!(
        Scenario::from_toml_str(&text, "big.toml"),
        Err(ScenarioError::TooLarge { .. })
    ));
}

#[test]
fn not_utf8() {
    let mut bytes = BASE.as_bytes().to_vec();
    let at_byte = BASE.find("\"t\"").unwrap() + 1;
    bytes[at_byte] = 0xff;
    let p = tmp("latin.toml", &bytes);
    let e = Scenario::load(&p).unwrap_err();
    assert_eq!(e.to_string(), format!("{}:1:9: the file is not valid UTF-8 text", p.display()));
}

#[test]
fn unknown_extension() {
    let p = tmp("scenario.yaml", BASE.as_bytes());
    let e = Scenario::load(&p).unwrap_err();
    assert!(e.to_string().ends_with("the file name must end in `.toml` or `.json`"), "{e}");
}

#[test]
fn missing_file() {
    let e = Scenario::load("/nonexistent/steerkit/none.toml").unwrap_err();
    assert!(
        e.to_string().starts_with("/nonexistent/steerkit/none.toml: cannot read the file: "),
        "{e}"
    );
}

const JSON: &str = r#"{
  "name": "j",
  "dt": 0.1,
  "steps": 10,
  "world": { "neighbour_radius": 2.0 },
  "groups": [
    {
      "name": "a",
      "agents": [ { "position": [0, 0] } ],
      "radius": 0.3,
      "limits": { "max_speed": 2, "max_acceleration": 4, "max_rotation": 3, "max_angular_acceleration": 10 },
      "behaviour": { "kind": "seek", "target": [1, 1] }
    }
  ]
}"#;

#[test]
fn json_is_valid() {
    let s = Scenario::from_json_str(JSON, "ok.json").unwrap();
    assert_eq!(s.agent_count(), 1);
}

#[test]
fn json_syntax_error_has_line_and_column() {
    let src = JSON.replace("\"radius\": 0.3,", "\"radius\": 0.3,,");
    let e = Scenario::from_json_str(&src, "bad.json").unwrap_err();
    let loc = at(&src, ",,");
    // serde_json points at the second comma, where a key should be
    assert_eq!(
        e.to_string(),
        format!("bad.json:{}:{}: groups[0]: key must be a string", loc.line, loc.column + 1)
    );
    assert_eq!((loc.line, loc.column + 1), (10, 21));
}

#[test]
fn json_unknown_field_has_field_and_position() {
    let src = JSON.replace("\"radius\": 0.3", "\"raduis\": 0.3");
    let e = Scenario::from_json_str(&src, "bad.json").unwrap_err();
    let loc = at(&src, "\"raduis\"");
    let msg = e.to_string();
    assert!(msg.starts_with(&format!("bad.json:{}:", loc.line)), "{msg}");
    assert!(msg.contains("groups[0].raduis: unknown field `raduis`"), "{msg}");
}

#[test]
fn json_check_errors_carry_the_field_path() {
    let src = JSON.replace("\"radius\": 0.3", "\"radius\": -1");
    let e = Scenario::from_json_str(&src, "bad.json").unwrap_err();
    assert_eq!(e.to_string(), "bad.json: groups[0].radius: must not be negative, got -1");
}

#[test]
fn agent_inside_a_solid_obstacle() {
    let src = with(
        "[[paths]]",
        "[[obstacles]]\nshape = \"circle\"\ncenter = [1, 1]\nradius = 0.5\n[[paths]]",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "[1, 1] }"),
        "groups[1].agents[0].position",
        "inside a solid obstacle",
    );
}

#[test]
fn a_spawn_region_covered_by_an_obstacle() {
    let src = with(
        "[[paths]]",
        "[[obstacles]]\nshape = \"box\"\nmin = [-6, -6]\nmax = [6, 6]\n[[paths]]",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "{ shape = \"rect\""),
        "groups[0].spawn",
        "no free place for agent 0 in 64 tries",
    );
}

#[test]
fn unknown_choice_value() {
    let src = with("slow_radius = 2 }", "slow_radius = 2, stop = \"skid\" }");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"skid\""),
        "groups[0].behaviour.stop",
        "unknown value `skid`; expected one of `brake`, `coast`",
    );
}

#[test]
fn field_not_applicable_to_an_obstacle_shape() {
    let src = with(
        "[[paths]]",
        "[[obstacles]]\nshape = \"box\"\nmin = [7, 7]\nmax = [8, 8]\nradius = 1\n[[paths]]",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "1\n[[paths]]"),
        "obstacles[0].radius",
        "field `radius` does not apply to obstacle shape `box` (its fields are min, max)",
    );
}

#[test]
fn wrap_needs_bounds() {
    let src = with("min = [-10, -10]\nmax = [10, 10]\n", "wrap = true\n");
    let e = toml_error(&src);
    assert_located(&e, at(&src, "true"), "world.wrap", "a wrap-around world needs `min` and `max`");
}

#[test]
fn steps_and_duration_together() {
    let src = with("steps = 10", "steps = 10\nduration = 2.0");
    let e = toml_error(&src);
    assert_located(&e, at(&src, "2.0"), "duration", "give either `steps` or `duration`, not both");
}

#[test]
fn count_and_agents_together() {
    let src = with("name = \"b\"\n", "name = \"b\"\ncount = 2\n");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "2\nagents"),
        "groups[1].count",
        "give either `count` with a `spawn` region or an `agents` list",
    );
}

#[test]
fn spawn_speed_above_max_speed() {
    let src = with("max = [5, 5] }", "max = [5, 5], speed = [1, 3] }");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "3] }"),
        "groups[0].spawn.speed[1]",
        "3 is above the group's max_speed 2",
    );
}

#[test]
fn output_name_cannot_leave_the_output_directory() {
    let src = with("name = \"t\"", "name = \"../../Etc/Passwd\"");
    let s = Scenario::from_toml_str(&src, "odd.toml").unwrap();
    assert_eq!(s.name(), "../../Etc/Passwd");
    assert_eq!(s.output_name(), "______etc_passwd");
}

#[cfg(unix)]
#[test]
fn an_endless_device_or_a_fifo_is_refused_before_reading() {
    // /dev/zero never ends and a FIFO blocks until a writer comes: only regular files are read
    let dir = std::env::temp_dir().join(format!("steerkit-scenario-zero-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("zero.toml");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let e = Scenario::load(&link).unwrap_err();
    assert!(matches!(e, ScenarioError::Io { .. }), "{e}");
    assert!(e.to_string().ends_with("cannot read the file: not a regular file"), "{e}");
    let fifo = dir.join("fifo.toml");
    let _ = std::fs::remove_file(&fifo);
    if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        let e = Scenario::load(&fifo).unwrap_err();
        assert!(e.to_string().ends_with("not a regular file"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spawn_region_larger_than_the_world_is_fine() {
    let src = with("max = [5, 5] }", "max = [500, 500] }").replace("count = 3", "count = 200");
    let s = Scenario::from_toml_str(&src, "big-region.toml").unwrap();
    let agents = &s.plan::<Vec2>().unwrap().groups[0].agents;
    assert_eq!(agents.len(), 200);
    assert!(agents.iter().all(|a| a.position.x.abs() <= 10.0 && a.position.y.abs() <= 10.0));
    // not piled on the faces
    assert!(agents.iter().filter(|a| a.position.x == 10.0 || a.position.y == 10.0).count() == 0);
}

#[test]
fn a_spawn_region_outside_the_world() {
    let src = with("min = [-5, -5], max = [5, 5] }", "min = [20, 20], max = [25, 25] }");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "{ shape = \"rect\""),
        "groups[0].spawn",
        "the spawn region lies outside the world",
    );
}

#[test]
fn kinematic_seek_inside_a_combiner() {
    let src =
        with("kind = \"seek\", target = [0, 0]", "kind = \"kinematic_seek\", target = [0, 0]");
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "\"kinematic_seek\""),
        "groups[1].behaviour.members[0].kind",
        "kind `kinematic_seek` sets the velocity and must be the whole behaviour, not a member of `blend`",
    );
}

#[test]
fn kinematic_arrive_without_its_radius() {
    let src = with(
        "kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2",
        "kind = \"kinematic_arrive\", target = [5, 0], time_to_target = 0.25",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "{ kind = \"kinematic_arrive"),
        "groups[0].behaviour.radius",
        "kind `kinematic_arrive` needs `radius`",
    );
}

#[test]
fn kinematic_wander_with_a_negative_rate() {
    let src = with(
        "kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2",
        "kind = \"kinematic_wander\", rate = -1.5",
    );
    let e = toml_error(&src);
    assert_located(&e, at(&src, "-1.5"), "groups[0].behaviour.rate", "-1.5");
}

#[test]
fn pipeline_with_an_empty_grid() {
    let src = with(
        "kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2",
        "kind = \"pipeline\", target = [5, 0], slow_radius = 2, clearance = 0.5, grid_min = [0, 0], grid_max = [10, -4]",
    );
    let e = toml_error(&src);
    assert_located(
        &e,
        at(&src, "[10, -4]"),
        "groups[0].behaviour.grid_max",
        "`grid_max` ([10, -4]) must exceed `grid_min` ([0, 0]) on both axes",
    );
}

/// Values outside the stated ranges (docs/scenario-format.md, "Ranges") are refused with one
/// line naming the field, the value and the range; none of them reaches the engine.
#[test]
fn values_outside_the_stated_ranges_are_refused_on_one_line() {
    let cases: [(&str, &str, &str, &str); 8] = [
        ("dt = 0.1", "dt = 5", "dt", "at most 1 s, got 5"),
        ("weight = 2", "weight = 3e38", "groups[1].behaviour.members[1].weight", "must be within ±1000000"),
        ("slow_radius = 2 }", "slow_radius = 2, time_to_target = 1e-40 }", "groups[0].behaviour.time_to_target", "must be at least 0.000001"),
        ("max = [10, 10]", "max = [1e38, 10]", "world.max[0]", "must be within ±100000 m"),
        ("max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"", "max_speed = 3e37, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"", "groups[0].limits.max_speed", "must be within ±1000000"),
        ("target = [5, 0]", "target = [5e5, 0]", "groups[0].behaviour.target[0]", "must be within ±100000 m"),
        ("name = \"a\"\ncount", "name = \"a\\nb\"\ncount", "groups[0].name", "must not contain control characters"),
        ("name = \"a\"\ncount", &format!("name = \"{}\"\ncount", "x".repeat(100)), "groups[0].name", "at most 64 characters"),
    ];
    for (from, to, field, says) in cases {
        let e = toml_error(&with(from, to));
        let text = e.to_string();
        assert_eq!(e.field(), field, "{text}");
        assert!(text.contains(says), "{field}: {text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}

/// A field path or message carrying a newline (a hostile key or name) is escaped onto one line.
#[test]
fn a_newline_in_a_key_stays_on_one_line() {
    let e = toml_error(&with("[world]", "[world]\n\"bad\\nkey\" = 1"));
    let text = e.to_string();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("bad\\nkey"), "{text}");
}

/// Bodies piled more than ten deep in their spawn region could never spread out (and every
/// neighbour query in the pile would cost O(n)): refused at load, naming the region.
#[test]
fn a_spawn_too_dense_to_spread_out_is_refused() {
    assert!(Scenario::from_toml_str(&with("count = 3", "count = 3000"), "ok.toml").is_ok());
    let e = toml_error(&with("count = 3", "count = 5000"));
    assert_eq!(e.field(), "groups[0].spawn", "{e}");
    assert!(e.to_string().contains("more than 10 times the spawn region's 100 m²"), "{e}");
}

/// A point with three components in a 2D scenario is an error at that point, not cut to two;
/// a 2D point in a 3D scenario, a point of one or four numbers, and `dimensions = 4` too.
#[test]
fn points_must_match_the_scenario_dimensions() {
    let e = toml_error(&with("target = [5, 0]", "target = [5, 0, 2]"));
    let text = e.to_string();
    assert_eq!(e.field(), "groups[0].behaviour.target", "{text}");
    assert!(text.contains("a 3D point [x, y, z] in a 2D scenario: put `dimensions = 3`"), "{text}");
    let e = toml_error(&with("target = [5, 0]", "target = [5, 0, 2, 1]"));
    assert!(e.to_string().contains("invalid length 4, expected a point or vector"), "{e}");
    let e = toml_error(&with("name = \"t\"", "name = \"t\"\ndimensions = 4"));
    assert_eq!(e.field(), "dimensions", "{e}");
    assert!(e.to_string().ends_with("must be 2 or 3, got 4"), "{e}");
    let e = toml_error(&THREE_D.replace("goal = [0, 5, 0]", "goal = [0, 5]"));
    assert_eq!(e.field(), "groups[0].goal", "{e}");
    assert!(e.to_string().contains("a 2D point [x, y] in a 3D scenario"), "{e}");
}

/// A small 3D scenario: a box world, a sphere spawn, a 3D path and goal.
const THREE_D: &str = r#"name = "birds"
dimensions = 3
dt = 0.05
steps = 20
[world]
min = [-20, 0, -20]
max = [20, 20, 20]
neighbour_radius = 3
[[paths]]
name = "climb"
points = [[0, 1, 0], [10, 10, 0], [10, 10, 10]]
[[groups]]
name = "flock"
count = 30
spawn = { shape = "sphere", center = [0, 10, 0], radius = 5, heading = "random", speed = [0, 1] }
radius = 0.3
goal = [0, 5, 0]
limits = { max_speed = 4, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "blend", members = [
  { kind = "arrive", use_goal = true, slow_radius = 3, weight = 1 },
  { kind = "separation", threshold = 1, falloff = "linear", weight = 2 },
  { kind = "wander", radius = 1, distance = 2, jitter = 1, weight = 0.5 },
] }
[[groups]]
name = "climber"
agents = [{ position = [0, 1, 0], velocity = [0, 1, 0] }]
radius = 0.3
limits = { max_speed = 4, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }
behaviour = { kind = "follow_path", path = "climb", offset = 1 }
"#;

/// A 3D scenario loads, places every agent inside its sphere and the world, and builds into a
/// 3D crowd that runs; it does not build as 2D.
#[test]
fn a_3d_scenario_loads_and_builds_into_a_3d_crowd() {
    use steerkit::Vec3;
    let s = Scenario::from_toml_str(THREE_D, "birds.toml").unwrap();
    assert_eq!(s.dimensions(), 3);
    assert!(s.plan::<Vec2>().is_none());
    let plan = s.plan::<Vec3>().unwrap();
    assert_eq!(plan.groups[0].agents.len(), 30);
    for a in &plan.groups[0].agents {
        assert!((a.position - Vec3::new(0.0, 10.0, 0.0)).length() <= 5.0, "{}", a.position);
        assert!(a.velocity.length() <= 1.0);
    }
    assert_eq!(plan.paths[0].polyline.points()[2], Vec3::new(10.0, 10.0, 10.0));
    let e = s.build().unwrap_err();
    assert_eq!(e.field(), "dimensions", "{e}");
    let mut w = s.build_in::<Vec3>().unwrap();
    for _ in 0..20 {
        w.crowd.step(0.05).unwrap();
    }
    assert!(w.crowd.positions().iter().all(|p| p.is_finite() && p.y >= 0.0));
}

/// What stays 2D is refused in a 3D scenario, naming it.
#[test]
fn planar_parts_are_refused_in_3d() {
    let e = toml_error(&THREE_D.replace(
        "{ kind = \"separation\", threshold = 1, falloff = \"linear\", weight = 2 }",
        "{ kind = \"wall_feelers\", length = 1, weight = 2 }",
    ));
    assert_eq!(e.field(), "groups[0].behaviour.members[1].kind", "{e}");
    assert!(
        e.to_string().ends_with("kind `wall_feelers` works in 2D scenarios only, not in a 3D one"),
        "{e}"
    );
    let e = toml_error(&format!("{THREE_D}[[walls]]\nfrom = [0, 0]\nto = [1, 1]\n"));
    assert_eq!(e.field(), "walls", "{e}");
    let e = toml_error(&THREE_D.replace("shape = \"sphere\"", "shape = \"circle\""));
    assert!(
        e.to_string().contains("unknown spawn shape `circle`; expected `box`, `sphere`"),
        "{e}"
    );
}

/// A dither member's probability outside [0, 1], and a probability outside a dither.
#[test]
fn dither_probability_out_of_range_or_out_of_place() {
    let e = toml_error(&with(
        "kind = \"blend\", members = [{ kind = \"seek\", target = [0, 0], weight = 1 }",
        "kind = \"dither\", members = [{ kind = \"seek\", target = [0, 0], probability = 1.5 }",
    ));
    assert_eq!(e.field(), "groups[1].behaviour.members[0].probability", "{e}");
    assert!(e.to_string().contains("must be in [0, 1], got 1.5"), "{e}");
    let e = toml_error(&with("slow_radius = 2 }", "slow_radius = 2, probability = 0.5 }"));
    assert!(e.to_string().contains("only members of `dither` take a probability"), "{e}");
}

/// Faked rotation axes are 3D only and need a body that faces its motion.
#[test]
fn fake_rotation_only_in_3d_and_facing_motion() {
    let e = toml_error(&with(
        "radius = 0.3\nlimits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"",
        "radius = 0.3\nfake_rotation = { blend_speed = 1, roll_scale = 0.5 }\nlimits = { max_speed = 2, max_acceleration = 4, max_rotation = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"arrive\"",
    ));
    assert_eq!(e.field(), "groups[0].fake_rotation", "{e}");
    assert!(e.to_string().ends_with("only in 3D scenarios"), "{e}");
    let three = THREE_D.replace(
        "name = \"climber\"",
        "name = \"climber\"\nfake_rotation = { blend_speed = 1, roll_scale = -1 }",
    );
    let e = toml_error(&three);
    assert_eq!(e.field(), "groups[1].fake_rotation.roll_scale", "{e}");
    let ok = three.replace("roll_scale = -1", "roll_scale = 0.5");
    Scenario::from_toml_str(&ok, "ok.toml").unwrap();
    let still = ok.replace("name = \"climber\"", "name = \"climber\"\nface_motion = false");
    assert_eq!(toml_error(&still).field(), "groups[1].fake_rotation");
}

/// 3D obstacles: spheres and boxes with 3D points; a 2D shape is refused, and no agent is
/// placed inside a sphere.
#[test]
fn spheres_and_boxes_in_a_3d_scenario() {
    use steerkit::Vec3;
    let with_obstacles = THREE_D.replace(
        "[[paths]]",
        "[[obstacles]]\nshape = \"sphere\"\ncenter = [0, 10, 0]\nradius = 3\n[[obstacles]]\nshape = \"box\"\nmin = [5, 0, 5]\nmax = [8, 4, 8]\n[[paths]]",
    );
    let s = Scenario::from_toml_str(&with_obstacles, "birds.toml").unwrap();
    let plan = s.plan::<Vec3>().unwrap();
    assert_eq!(plan.geometry.obstacles3.len(), 2);
    for a in &plan.groups[0].agents {
        assert!((a.position - Vec3::new(0.0, 10.0, 0.0)).length() > 3.0, "inside the sphere");
    }
    let w = s.build_in::<Vec3>().unwrap();
    assert_eq!(w.crowd.obstacles().map(|o| o.len()), Some(2));
    let circle = with_obstacles.replace("shape = \"sphere\"", "shape = \"circle\"");
    let e = toml_error(&circle);
    assert_eq!(e.field(), "obstacles[0].shape", "{e}");
    assert!(e.to_string().ends_with("expected `sphere` or `box`"), "{e}");
    let flat = with_obstacles.replace("min = [5, 0, 5]", "min = [5, 0]");
    assert_eq!(toml_error(&flat).field(), "obstacles[1].min");
}

/// Spawn patterns place agents exactly: evenly on a ring, along a line, in a grid, over a
/// sphere's surface in 3D; random regions can keep a minimum spacing, and refuse a count the
/// region cannot hold at that spacing.
#[test]
fn spawn_patterns_and_minimum_spacing() {
    let spawn = |s: &str| with("spawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }", s);
    let agents = |src: &str| -> Vec<Vec2> {
        let s = Scenario::from_toml_str(src, "t.toml").unwrap_or_else(|e| panic!("{e}"));
        s.plan::<Vec2>().unwrap().groups[0].agents.iter().map(|a| a.position).collect()
    };
    // ring: 3 agents at 0, 120 and 240 degrees, 4 m round (1, 1)
    let ring = agents(&spawn("spawn = { shape = \"ring\", center = [1, 1], radius = 4 }"));
    for (k, p) in ring.iter().enumerate() {
        let a = std::f32::consts::TAU * k as f32 / 3.0;
        assert!((*p - Vec2::new(1.0 + 4.0 * a.cos(), 1.0 + 4.0 * a.sin())).length() < 1e-5);
    }
    // line: both ends and the middle
    let line = agents(&spawn("spawn = { shape = \"line\", from = [-4, 0], to = [4, 2] }"));
    assert_eq!(line, [Vec2::new(-4.0, 0.0), Vec2::new(0.0, 1.0), Vec2::new(4.0, 2.0)]);
    // grid: rows of 2 along +x, rows along +y
    let grid =
        agents(&spawn("spawn = { shape = \"grid\", min = [-1, -1], spacing = 1.5, columns = 2 }"));
    assert_eq!(grid, [Vec2::new(-1.0, -1.0), Vec2::new(0.5, -1.0), Vec2::new(-1.0, 0.5)]);
    // a pattern outside the world is refused
    let e = toml_error(&spawn("spawn = { shape = \"line\", from = [0, 0], to = [40, 0] }"));
    assert!(e.to_string().contains("agent 1 of the line lies outside the world"), "{e}");
    // random with a minimum spacing: 60 agents at least 1 m apart in 10 m × 10 m
    let spaced = with(
        "count = 3\nspawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }",
        "count = 60\nspawn = { shape = \"rect\", min = [-5, -5], max = [5, 5], min_spacing = 1.0 }",
    );
    let p = agents(&spaced);
    for i in 0..p.len() {
        for j in 0..i {
            assert!((p[i] - p[j]).length() >= 1.0, "{} and {} closer than 1 m", p[i], p[j]);
        }
    }
    // 200 agents 2 m apart cannot fit in 10 m × 10 m (at most about 36)
    let crowded = spaced
        .replace("count = 60", "count = 200")
        .replace("min_spacing = 1.0", "min_spacing = 2.0");
    let e = toml_error(&crowded);
    assert_eq!(e.field(), "groups[0].spawn.min_spacing", "{e}");
    assert!(e.to_string().contains("the region cannot hold 200 at that spacing"), "{e}");
    // a pattern key on a random region is named
    let e = toml_error(&spawn(
        "spawn = { shape = \"rect\", min = [-5, -5], max = [5, 5], columns = 2 }",
    ));
    assert_eq!(e.field(), "groups[0].spawn.columns", "{e}");
    // 3D: a shell of 50 agents, every one on the sphere
    let shell = THREE_D.replace(
        "spawn = { shape = \"sphere\", center = [0, 10, 0], radius = 5, heading = \"random\", speed = [0, 1] }",
        "spawn = { shape = \"shell\", center = [0, 10, 0], radius = 5 }",
    );
    let s = Scenario::from_toml_str(&shell, "t.toml").unwrap();
    for a in &s.plan::<steerkit::Vec3>().unwrap().groups[0].agents {
        assert!(((a.position - steerkit::Vec3::new(0.0, 10.0, 0.0)).length() - 5.0).abs() < 1e-4);
    }
}

/// Goal rules give spawned agents their own goals: the antipode through the ring's centre,
/// the mirror across a line, an offset, a scattered point in a region, and a point per grid
/// row; a rule beside a group goal, or `rows` without a grid, is refused.
#[test]
fn goal_rules_for_spawned_agents() {
    let base = with(
        "spawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }",
        "spawn = { shape = \"ring\", center = [1, 0], radius = 4 }\nGOAL",
    );
    let goals = |rule: &str| -> Vec<(Vec2, Vec2)> {
        let src = base.replace("GOAL", rule);
        let s = Scenario::from_toml_str(&src, "t.toml").unwrap_or_else(|e| panic!("{e}"));
        s.plan::<Vec2>().unwrap().groups[0]
            .agents
            .iter()
            .map(|a| (a.position, a.goal.unwrap()))
            .collect()
    };
    for (p, g) in goals("goal_rule = { rule = \"antipode\" }") {
        assert!((p + g - Vec2::new(2.0, 0.0)).length() < 1e-5, "antipode of {p} is {g}");
    }
    for (p, g) in goals("goal_rule = { rule = \"mirror\", axis = \"x\", at = 3 }") {
        assert_eq!(g, Vec2::new(6.0 - p.x, p.y));
    }
    for (p, g) in goals("goal_rule = { rule = \"offset\", offset = [0, 2] }") {
        assert_eq!(g, p + Vec2::new(0.0, 2.0));
    }
    for (_, g) in goals("goal_rule = { rule = \"scatter\", min = [6, 6], max = [8, 9] }") {
        assert!(g.x >= 6.0 && g.x <= 8.0 && g.y >= 6.0 && g.y <= 9.0, "{g}");
    }
    let grid = with("spawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }", "spawn = { shape = \"grid\", min = [-5, -5], spacing = 1, columns = 2 }\ngoal_rule = { rule = \"rows\", points = [[5, 5], [6, 0]] }");
    let s = Scenario::from_toml_str(&grid, "t.toml").unwrap();
    let g: Vec<Vec2> =
        s.plan::<Vec2>().unwrap().groups[0].agents.iter().map(|a| a.goal.unwrap()).collect();
    assert_eq!(g, [Vec2::new(5.0, 5.0), Vec2::new(6.0, 5.0), Vec2::new(6.0, 0.0)]);
    let both = base.replace("GOAL", "goal = [0, 0]\ngoal_rule = { rule = \"antipode\" }");
    assert_eq!(toml_error(&both).field(), "groups[0].goal_rule");
    let rows = base.replace("GOAL", "goal_rule = { rule = \"rows\", points = [[0, 0]] }");
    assert!(toml_error(&rows).to_string().contains("needs a `grid` spawn"));
    let unknown = base.replace("GOAL", "goal_rule = { rule = \"swap\" }");
    assert_eq!(toml_error(&unknown).field(), "groups[0].goal_rule.rule");
}

/// A path's coherence window must be positive, and a grid spawn needs at least one column.
#[test]
fn search_window_and_grid_columns_are_checked() {
    let e = toml_error(&with("name = \"loop\"", "name = \"loop\"\nsearch_window = 0"));
    assert_eq!(e.field(), "paths[0].search_window", "{e}");
    assert!(e.to_string().ends_with("must be greater than zero, got 0"), "{e}");
    let e = toml_error(&with("name = \"loop\"", "name = \"loop\"\nsearch_window = -3"));
    assert_eq!(e.field(), "paths[0].search_window", "{e}");
    let grid = with(
        "spawn = { shape = \"rect\", min = [-5, -5], max = [5, 5] }",
        "spawn = { shape = \"grid\", min = [-5, -5], spacing = 1, columns = 0 }",
    );
    let e = toml_error(&grid);
    assert_eq!(e.field(), "groups[0].spawn.columns", "{e}");
    assert!(e.to_string().ends_with("must be at least 1"), "{e}");
    let e = toml_error(
        &grid.replace("columns = 0", "columns = 2").replace("spacing = 1", "spacing = 0"),
    );
    assert_eq!(e.field(), "groups[0].spawn.spacing", "{e}");
}

/// Vehicles: the model's own keys only, 2D only, not with a kinematic behaviour; each error
/// names the key and what is allowed.
#[test]
fn vehicle_errors_name_the_key_and_what_is_allowed() {
    let group_b = "name = \"b\"\nagents";
    let e = toml_error(&with(
        group_b,
        "name = \"b\"\nvehicle = { model = \"tank\", wheelbase = 2 }\nagents",
    ));
    assert_eq!(e.field(), "groups[1].vehicle.wheelbase", "{e}");
    assert!(e.to_string().contains("does not apply to vehicle model `tank`"), "{e}");
    assert!(e.to_string().contains("track_width"), "{e}");
    let e = toml_error(&with(group_b, "name = \"b\"\nvehicle = { model = \"boat\" }\nagents"));
    assert_eq!(e.field(), "groups[1].vehicle.model", "{e}");
    assert!(e.to_string().contains("`discrete_car`"), "{e}");
    let e = toml_error(&with(
        group_b,
        "name = \"b\"\nvehicle = { model = \"car\", max_steer = 2 }\nagents",
    ));
    assert_eq!(e.field(), "groups[1].vehicle.max_steer", "{e}");
    let e = toml_error(&with(
        group_b,
        "name = \"b\"\nvehicle = { model = \"car\", drive = \"fly\" }\nagents",
    ));
    assert_eq!(e.field(), "groups[1].vehicle.drive", "{e}");
    // what a 3D group with a vehicle model gets
    let three =
        THREE_D.replace("name = \"climber\"", "name = \"climber\"\nvehicle = { model = \"car\" }");
    let e = toml_error(&three);
    assert_eq!(e.field(), "groups[1].vehicle", "{e}");
    assert!(e.to_string().contains("only in 2D scenarios"), "{e}");
    // a kinematic behaviour sets the velocity itself
    let kin = with(
        "behaviour = { kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2 }",
        "behaviour = { kind = \"kinematic_seek\", target = [5, 0] }\nvehicle = { model = \"human\" }",
    );
    assert_eq!(toml_error(&kin).field(), "groups[0].vehicle");
    // racing in traffic: a positive passing lane, a headway only with it, not for a person
    for (vehicle, field, says) in [
        ("{ model = \"car\", passing_lane = -1 }", "passing_lane", ""),
        ("{ model = \"car\", headway = 1 }", "headway", "needs `passing_lane`"),
        ("{ model = \"car\", passing_lane = 4, headway = 0 }", "headway", ""),
        ("{ model = \"human\", passing_lane = 4 }", "passing_lane", "does not apply"),
    ] {
        let e = toml_error(&with(group_b, &format!("name = \"b\"\nvehicle = {vehicle}\nagents")));
        assert_eq!(e.field(), format!("groups[1].vehicle.{field}"), "{e}");
        assert!(e.to_string().contains(says), "{e}");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
    let ok = with(group_b, "name = \"b\"\nvehicle = { model = \"car\", max_reverse_speed = 0, drive = \"search\" }\nagents");
    let s = Scenario::from_toml_str(&ok, "ok.toml").unwrap();
    assert!(s.plan::<Vec2>().unwrap().groups[1].vehicle.is_some());
}

/// Turrets: 3D only, a target that exists, drag keys that match the model, grenades with a
/// blast radius; each error names the key.
#[test]
fn turret_errors_name_the_key_and_what_is_allowed() {
    let turret = "[[turrets]]\nname = \"gun\"\nposition = [0, 1, -15]\ntarget = \"climber:0\"\nmuzzle_speed = 30\n";
    let ok = format!("{THREE_D}{turret}");
    let s = Scenario::from_toml_str(&ok, "ok.toml").unwrap();
    assert_eq!(s.plan::<steerkit::Vec3>().unwrap().turrets.len(), 1);
    // what a turret without a target gets
    let e = toml_error(&ok.replace("target = \"climber:0\"\n", ""));
    assert!(e.to_string().contains("missing field `target`"), "{e}");
    let e = toml_error(&ok.replace("climber:0", "climber:3"));
    assert_eq!(e.field(), "turrets[0].target", "{e}");
    assert!(e.to_string().contains("has 1 agents"), "{e}");
    let e = toml_error(&format!("{ok}k = 0.2\n"));
    assert_eq!(e.field(), "turrets[0].k", "{e}");
    assert!(e.to_string().contains("drag"), "{e}");
    let e = toml_error(&format!("{ok}drag = \"linear\"\n"));
    assert_eq!(e.field(), "turrets[0].k", "{e}");
    let e = toml_error(&format!("{ok}drag = \"linear\"\nk = 0.2\nwind = [1, 0, 0]\n"));
    assert_eq!(e.field(), "turrets[0].wind", "{e}");
    let e = toml_error(&format!("{ok}solver = \"iterative\"\narc = \"high\"\n"));
    assert_eq!(e.field(), "turrets[0].arc", "{e}");
    let e = toml_error(&format!("{ok}fuse = 2\n"));
    assert_eq!(e.field(), "turrets[0].blast_radius", "{e}");
    let e = toml_error(&format!("{ok}interval = 0.01\n"));
    assert_eq!(e.field(), "turrets[0].interval", "{e}");
    let e = toml_error(&format!("{ok}muzzle_speed = -1\n").replace("muzzle_speed = 30\n", ""));
    assert_eq!(e.field(), "turrets[0].muzzle_speed", "{e}");
    // a turret in a 2D scenario
    let flat = format!("{BASE}[[turrets]]\nname = \"gun\"\nposition = [0, 1]\ntarget = \"b:0\"\nmuzzle_speed = 30\n");
    let e = toml_error(&flat);
    assert_eq!(e.field(), "turrets[0]", "{e}");
    assert!(e.to_string().contains("dimensions = 3"), "{e}");
}

/// Side views: platforms level and in a row, jumpers on a platform and without a behaviour,
/// 2D only. A gap no jumper can clear is not a loading error: it is planned as refused, with
/// the reason, in the run's `jumps` metrics (see the gallery's `platforms`).
#[test]
fn side_view_errors_name_the_key() {
    const SIDE: &str = r#"name = "course"
dt = 0.02
steps = 10
[world]
min = [-2, -5]
max = [30, 5]
neighbour_radius = 1
[side_view]
gravity = 9.81
[[platforms]]
from = [0, 0]
to = [10, 0]
[[platforms]]
from = [12, 1]
to = [20, 1]
[[groups]]
name = "runner"
radius = 0.3
limits = { max_speed = 5, max_acceleration = 8, max_rotation = 3, max_angular_acceleration = 10 }
jump = { jump_speed = 5 }
agents = [{ position = [1, 0] }]
"#;
    let s = Scenario::from_toml_str(SIDE, "ok.toml").unwrap();
    let plan = s.plan::<Vec2>().unwrap();
    assert_eq!(plan.side_view.as_ref().unwrap().platforms.len(), 2);
    assert!(plan.groups[0].jump.is_some());
    // a gap too wide for anyone still loads: it is refused when the course is planned
    Scenario::from_toml_str(
        &SIDE.replace("from = [12, 1]", "from = [29, 1]").replace("to = [20, 1]", "to = [29.5, 1]"),
        "wide.toml",
    )
    .unwrap();
    let e = toml_error(&SIDE.replace("to = [10, 0]", "to = [10, 0.5]"));
    assert_eq!(e.field(), "platforms[0].to", "{e}");
    assert!(e.to_string().contains("level"), "{e}");
    let e = toml_error(&SIDE.replace("from = [12, 1]", "from = [8, 1]"));
    assert_eq!(e.field(), "platforms[1]", "{e}");
    assert!(e.to_string().contains("overlaps"), "{e}");
    let e = toml_error(&SIDE.replace("position = [1, 0]", "position = [1, 0.5]"));
    assert_eq!(e.field(), "groups[0].agents[0].position", "{e}");
    let e = toml_error(&SIDE.replace("[side_view]\ngravity = 9.81\n", ""));
    assert_eq!(e.field(), "platforms", "{e}");
    let e = toml_error(&SIDE.replace(
        "jump = { jump_speed = 5 }",
        "jump = { jump_speed = 5 }\nbehaviour = { kind = \"seek\", target = [5, 0] }",
    ));
    assert_eq!(e.field(), "groups[0].behaviour", "{e}");
    let e = toml_error(&SIDE.replace("jump = { jump_speed = 5 }", "jump = { jump_speed = -1 }"));
    assert_eq!(e.field(), "groups[0].jump.jump_speed", "{e}");
    // a jumper needs a side view; a behaviour-less group needs `jump`
    let e = toml_error(&with(
        "behaviour = { kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2 }",
        "jump = { jump_speed = 5 }",
    ));
    assert_eq!(e.field(), "groups[0].jump", "{e}");
    let e = toml_error(&with("behaviour = { kind = \"arrive\", target = [5, 0], target_radius = 0.2, slow_radius = 2 }\n", ""));
    assert_eq!(e.field(), "groups[0]", "{e}");
    let three = THREE_D.replace("[[paths]]", "[side_view]\ngravity = 9.81\n[[paths]]");
    assert_eq!(toml_error(&three).field(), "side_view");
}

/// ORCA: a positive horizon and at least one neighbour, semi-implicit integration, layers
/// numbered 0 to 31; in 3D too.
#[test]
fn orca_errors_name_the_key() {
    let group_b = "name = \"b\"\nagents";
    let ok = with(group_b, "name = \"b\"\norca = { time_horizon = 5, max_neighbours = 4 }\nagents");
    let s = Scenario::from_toml_str(&ok, "ok.toml").unwrap();
    assert!(s.plan::<Vec2>().unwrap().groups[1].orca.is_some());
    let e = toml_error(&with(group_b, "name = \"b\"\norca = { time_horizon = 0 }\nagents"));
    assert_eq!(e.field(), "groups[1].orca.time_horizon", "{e}");
    let e = toml_error(&with(group_b, "name = \"b\"\norca = { max_neighbours = 0 }\nagents"));
    assert_eq!(e.field(), "groups[1].orca.max_neighbours", "{e}");
    let e = toml_error(&with(group_b, "name = \"b\"\norca = {}\nintegration = \"exact\"\nagents"));
    assert_eq!(e.field(), "groups[1].integration", "{e}");
    assert!(e.to_string().contains("semi_implicit"), "{e}");
    let e = toml_error(&with(group_b, "name = \"b\"\norca = { avoid_layers = [0, 32] }\nagents"));
    assert_eq!(e.field(), "groups[1].orca.avoid_layers[1]", "{e}");
    assert!(e.to_string().contains("0 to 31"), "{e}");
    let e = toml_error(&with(group_b, "name = \"b\"\norca = { priority = -1 }\nagents"));
    assert_eq!(e.field(), "groups[1].orca.priority", "{e}");
    let e =
        toml_error(&with(group_b, "name = \"b\"\norca = { obstacle_time_horizon = 0 }\nagents"));
    assert_eq!(e.field(), "groups[1].orca.obstacle_time_horizon", "{e}");
    for bad in [
        "rest_time_horizon = 0",
        "rest_time_horizon = nan",
        "time_horizon = 2, rest_time_horizon = 3",
    ] {
        let e = toml_error(&with(group_b, &format!("name = \"b\"\norca = {{ {bad} }}\nagents")));
        assert_eq!(e.field(), "groups[1].orca.rest_time_horizon", "{e}");
    }
    let three = THREE_D.replace("name = \"climber\"", "name = \"climber\"\norca = {}");
    let s = Scenario::from_toml_str(&three, "three.toml").unwrap();
    assert!(s.plan::<steerkit::Vec3>().unwrap().groups[1].orca.is_some(), "ORCA in 3D");
}
