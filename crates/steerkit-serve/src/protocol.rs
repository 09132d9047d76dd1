//! The playground's messages: JSON objects with a `type` tag, one per WebSocket text message.
//!
//! Client → server: `load {name}` or `load {toml, file?}`, `pause`, `play`, `step`, `reset`,
//! `speed {factor}`, `move_goal {agent | group, x, y}`, `move_target {path, x, y}`,
//! `move_obstacle {id, x, y}`, `move_wall_end {id, end, x, y}`, `move_turret {id, x, y, z}`,
//! `add_agent {group, x, y}`,
//! `remove_agent {id}`, `select {id | null}`, `set_param {path, value}`, `save`.
//!
//! Server → client: `hello {scenarios, limits}` (on connecting), `scenario {name, recording,
//! params, paused, speed}` (after a load, a reset or an edit that changes the world or the
//! agents), `frame {step, time, paused, frame, handles, shots?, turrets?}` (at most
//! [`FRAME_HZ`] a second while
//! running, and after each change while paused), `params {params}` (after a `set_param`: the
//! sliders' values; the world and agents are unchanged), `error {message}`, `saved {name, toml}`.
//!
//! In a 3D scenario every point is `x`, `y` (up) and `z`; `z` is required there and refused in
//! a 2D scenario.
//!
//! Every malformed or out-of-range message is answered with one `error` whose message names the
//! message type, the key, the value and what is allowed; the session carries on as before.
//! `docs/playground.md` documents every field.

pub use crate::session::show;
use crate::session::{AnySession, Point, MAX_COORDINATE};
use serde::Deserialize;
use serde_json::{json, Value};

/// Simulations running at once, at most (one per open tab).
pub const MAX_SESSIONS: usize = 16;

/// Frames sent per second at most while the simulation runs.
pub const FRAME_HZ: u32 = 25;
/// The largest text message answered (bytes); above it, an `error`. (The socket itself closes
/// on messages above [`HARD_MESSAGE_LIMIT`].)
pub const MESSAGE_LIMIT: usize = 512 * 1024;
/// The largest message the socket accepts at all (bytes).
pub const HARD_MESSAGE_LIMIT: usize = 4 * 1024 * 1024;
/// Speed factors allowed (simulated seconds per real second).
pub const SPEED_RANGE: (f64, f64) = (0.05, 8.0);

/// A message from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Load a built-in scenario by name, or scenario TOML text (an uploaded file).
    Load {
        /// A built-in's name.
        name: Option<String>,
        /// TOML text.
        toml: Option<String>,
        /// The uploaded file's name (for error messages).
        file: Option<String>,
    },
    /// Stop stepping.
    Pause,
    /// Step at real time × speed.
    Play,
    /// One step (pauses).
    Step,
    /// Back to the scenario as loaded.
    Reset,
    /// Simulated seconds per real second.
    Speed {
        /// In [`SPEED_RANGE`].
        factor: f64,
    },
    /// Move an agent's goal, or the goals of a group.
    MoveGoal {
        /// The agent's number.
        agent: Option<u64>,
        /// A group's name.
        group: Option<String>,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Send several agents to one place: their goals spread round it, a body apart
    /// ([`Sim::move_goals`](crate::session::Sim::move_goals)).
    MoveGoals {
        /// The agents' numbers (at most [`MAX_AGENTS`](crate::session::MAX_AGENTS)).
        agents: Vec<u64>,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Move a behaviour's or a formation anchor's target point.
    MoveTarget {
        /// The handle's document path.
        path: String,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Move an obstacle's centre.
    MoveObstacle {
        /// Index in the scenario's `obstacles`.
        id: u64,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Move one end of a wall.
    MoveWallEnd {
        /// Index in the scenario's `walls`.
        id: u64,
        /// 0: `from`, 1: `to`.
        end: u64,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Move a turret's muzzle.
    MoveTurret {
        /// Index in the scenario's `turrets`.
        id: u64,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Add an agent.
    AddAgent {
        /// The group's name.
        group: String,
        /// m
        x: f64,
        /// m
        y: f64,
        /// m (3D scenarios only, where it is required; y is up)
        z: Option<f64>,
    },
    /// Remove an agent.
    RemoveAgent {
        /// Its number.
        id: u64,
    },
    /// Select an agent (or none).
    Select {
        /// Its number; `null` for none.
        id: Option<u64>,
    },
    /// Set a slider's parameter.
    SetParam {
        /// The parameter's document path (from the `scenario` message).
        path: String,
        /// The new value.
        value: f64,
    },
    /// Ask for the current state as a scenario file.
    Save,
}

/// The message types, for error messages.
pub const TYPES: &str =
    "load, pause, play, step, reset, speed, move_goal, move_goals, move_target, \
                         move_obstacle, move_wall_end, move_turret, add_agent, remove_agent, \
                         select, set_param, save";

/// A built-in scenario the page can open.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name (`load {name}`).
    pub name: String,
    /// `demo` or `gallery`.
    pub kind: &'static str,
    /// TOML text.
    pub source: String,
}

/// What a message asks of the loop besides replies.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Send a `scenario` message (the world, groups or agents changed).
    pub scenario: bool,
    /// Send a frame now.
    pub frame: bool,
    /// Send a `params` message (a slider's value changed; the world did not).
    pub params: bool,
}

/// One connection's simulation and clock settings, and its message handling (no I/O: the
/// server feeds it text and sends what it returns).
pub struct Live {
    /// The simulation, once one loaded.
    pub session: Option<AnySession>,
    /// Whether stepping is paused.
    pub paused: bool,
    /// Simulated seconds per real second.
    pub speed: f64,
}

impl Default for Live {
    fn default() -> Self {
        Live { session: None, paused: false, speed: 1.0 }
    }
}

/// An `error` message.
#[must_use]
pub fn error_message(message: &str) -> String {
    json!({"type": "error", "message": message}).to_string()
}

fn coordinate(what: &str, key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v.abs() <= MAX_COORDINATE {
        Ok(())
    } else {
        Err(format!(
            "{what}: `{key}` = {} is out of range; allowed -{MAX_COORDINATE} to {MAX_COORDINATE} (m)",
            show(v)
        ))
    }
}

/// A client message, checked: its `type` and its fields, or the one-line reason it is refused.
fn parse(text: &str) -> Result<(String, ClientMessage), String> {
    if text.len() > MESSAGE_LIMIT {
        return Err(format!(
            "message: {} bytes is more than a message may have (at most {MESSAGE_LIMIT})",
            text.len()
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("message: not JSON ({e}); send an object such as {{\"type\":\"pause\"}}")
    })?;
    let kind = match value.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(format!("message: `type` = {other} is not a string; allowed: {TYPES}"))
        }
        None => return Err(format!("message: no `type`; allowed: {TYPES}")),
    };
    // serde ignores extra keys on the variants without fields; they are refused like the
    // others' unknown keys
    if ["pause", "play", "step", "reset", "save"].contains(&kind.as_str()) {
        if let Some(extra) = value.as_object().and_then(|o| o.keys().find(|k| *k != "type")) {
            return Err(format!("{kind}: unknown field `{extra}`; `{kind}` takes no fields"));
        }
    }
    let msg: ClientMessage = serde_json::from_value(value).map_err(|e| {
        let e = e.to_string();
        if e.starts_with("unknown variant") {
            format!("message: `type` = {kind:?} is unknown; allowed: {TYPES}")
        } else {
            format!("{kind}: {e}")
        }
    })?;
    Ok((kind, msg))
}

/// A message's point: `x`, `y` (and `z` in a 3D scenario), each checked.
fn at(what: &str, dims: usize, x: f64, y: f64, z: Option<f64>) -> Result<Point, String> {
    coordinate(what, "x", x)?;
    coordinate(what, "y", y)?;
    match (dims, z) {
        (3, Some(z)) => {
            coordinate(what, "z", z)?;
            Ok([x, y, z])
        }
        (3, None) => Err(format!(
            "{what}: `z` is missing; a 3D scenario's points are `x`, `y` (up) and `z` (m)"
        )),
        (_, Some(z)) => Err(format!(
            "{what}: `z` = {} is for 3D scenarios; this one is 2D (give `x` and `y`)",
            show(z)
        )),
        (_, None) => Ok([x, y, 0.0]),
    }
}

impl Live {
    /// Loads a catalogue entry or TOML text.
    ///
    /// # Errors
    /// An unknown name; the scenario's error.
    pub fn load(
        &mut self,
        catalogue: &[Entry],
        name: Option<&str>,
        toml: Option<&str>,
        file: Option<&str>,
    ) -> Result<(), String> {
        let session = match (name, toml) {
            (Some(n), None) => {
                let e = catalogue.iter().find(|e| e.name == n).ok_or_else(|| {
                    format!(
                        "load: `name` = {n:?} is no built-in scenario; allowed: {}",
                        catalogue.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
                    )
                })?;
                AnySession::from_toml(&e.source, &format!("{}.toml", e.name))?
            }
            (None, Some(text)) => {
                let origin =
                    file.filter(|f| !f.is_empty() && f.len() < 200).unwrap_or("uploaded.toml");
                AnySession::from_toml(text, origin)?
            }
            _ => {
                return Err(
                    "load: give exactly one of `name` (a built-in) or `toml` (file text)".into()
                )
            }
        };
        self.session = Some(session);
        Ok(())
    }

    /// Handles one text message; returns the replies to send now and what else to send.
    pub fn handle(&mut self, text: &str, catalogue: &[Entry]) -> (Vec<String>, Effects) {
        match self.apply(text, catalogue) {
            Ok((replies, effects)) => (replies, effects),
            Err(message) => (vec![error_message(&message)], Effects::default()),
        }
    }

    fn apply(&mut self, text: &str, catalogue: &[Entry]) -> Result<(Vec<String>, Effects), String> {
        let (kind, msg) = parse(text)?;
        let scenario = Effects { scenario: true, frame: true, params: false };
        let frame = Effects { scenario: false, frame: true, params: false };
        let none = Effects::default();
        if let ClientMessage::Load { name, toml, file } = &msg {
            self.load(catalogue, name.as_deref(), toml.as_deref(), file.as_deref())?;
            return Ok((Vec::new(), scenario));
        }
        let Some(s) = self.session.as_mut() else {
            return Err(format!("{kind}: no scenario is loaded; send `load` first"));
        };
        let fail = |e: String| format!("{kind}: {e}");
        let effects = match msg {
            ClientMessage::Load { .. } => none,
            ClientMessage::Pause => {
                self.paused = true;
                frame
            }
            ClientMessage::Play => {
                self.paused = false;
                none
            }
            ClientMessage::Step => {
                self.paused = true;
                if let Err(e) = s.step() {
                    return Err(fail(e));
                }
                frame
            }
            ClientMessage::Reset => {
                s.reset().map_err(fail)?;
                scenario
            }
            ClientMessage::Speed { factor } => {
                let (lo, hi) = SPEED_RANGE;
                if !(factor.is_finite() && (lo..=hi).contains(&factor)) {
                    return Err(format!(
                        "speed: `factor` = {} is out of range; allowed {lo} to {hi}",
                        show(factor)
                    ));
                }
                self.speed = factor;
                none
            }
            ClientMessage::MoveGoal { agent, group, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_goal(agent, group.as_deref(), p).map_err(fail)?;
                frame
            }
            ClientMessage::MoveGoals { agents, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_goals(&agents, p).map_err(fail)?;
                frame
            }
            ClientMessage::MoveTarget { path, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_target(&path, p).map_err(fail)?;
                frame
            }
            ClientMessage::MoveObstacle { id, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_obstacle(id, p).map_err(fail)?;
                scenario
            }
            ClientMessage::MoveWallEnd { id, end, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_wall_end(id, end, p).map_err(fail)?;
                scenario
            }
            ClientMessage::MoveTurret { id, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.move_turret(id, p).map_err(fail)?;
                scenario
            }
            ClientMessage::AddAgent { group, x, y, z } => {
                let p = at(&kind, s.dims(), x, y, z)?;
                s.add_agent(&group, p).map_err(fail)?;
                scenario
            }
            ClientMessage::RemoveAgent { id } => {
                s.remove_agent(id).map_err(fail)?;
                scenario
            }
            ClientMessage::Select { id } => {
                s.select(id).map_err(fail)?;
                frame
            }
            ClientMessage::SetParam { path, value } => {
                s.set_param(&path, value).map_err(fail)?;
                Effects { scenario: false, frame: true, params: true }
            }
            ClientMessage::Save => {
                let toml = s.save_toml()?;
                let reply = json!({"type": "saved", "name": s.name(), "toml": toml}).to_string();
                return Ok((vec![reply], none));
            }
        };
        Ok((Vec::new(), effects))
    }

    /// The `scenario` message for the loaded session.
    #[must_use]
    pub fn scenario_message(&self) -> Option<String> {
        let s = self.session.as_ref()?;
        Some(
            json!({
                "type": "scenario",
                "name": s.name(),
                "recording": s.recording(),
                "params": s.params(),
                "groups": s.group_names(),
                "paused": self.paused,
                "speed": self.speed,
            })
            .to_string(),
        )
    }

    /// The `params` message: the sliders' current values (after a `set_param`).
    #[must_use]
    pub fn params_message(&self) -> Option<String> {
        let s = self.session.as_ref()?;
        Some(json!({"type": "params", "params": s.params()}).to_string())
    }

    /// The `frame` message for the loaded session; with turrets, also `shots` (the recording's
    /// shape: those in the air and those just ended) and `turrets` (each one's counts, as
    /// `metrics.json` gives them).
    #[must_use]
    pub fn frame_message(&self) -> Option<String> {
        let s = self.session.as_ref()?;
        let handles = serde_json::to_string(&s.handles()).unwrap_or_else(|_| "[]".into());
        let time = s.step_count() as f64 * f64::from(s.dt());
        let turrets = if s.has_turrets() {
            format!(
                r#","shots":{},"turrets":{}"#,
                serde_json::to_string(&s.shots()).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&s.turret_metrics()).unwrap_or_else(|_| "[]".into())
            )
        } else {
            String::new()
        };
        Some(format!(
            r#"{{"type":"frame","step":{},"time":{},"paused":{},"speed":{},"selected":{},"handles":{handles}{turrets},"frame":{}}}"#,
            s.step_count(),
            time,
            self.paused,
            self.speed,
            s.selected().map_or_else(|| "null".to_owned(), |k| k.to_string()),
            s.frame_json()
        ))
    }
}

/// The `hello` message: the scenarios the page can open and the server's limits.
#[must_use]
pub fn hello_message(catalogue: &[Entry]) -> String {
    let scenarios: Vec<Value> =
        catalogue.iter().map(|e| json!({"name": e.name, "kind": e.kind})).collect();
    json!({
        "type": "hello",
        "scenarios": scenarios,
        "limits": {
            "max_agents": crate::session::MAX_AGENTS,
            "message_bytes": MESSAGE_LIMIT,
            "speed": [SPEED_RANGE.0, SPEED_RANGE.1],
            "frame_hz": FRAME_HZ,
            "sessions": MAX_SESSIONS,
        }
    })
    .to_string()
}
