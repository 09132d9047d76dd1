//! `steerkit serve`: the live playground. A local web server (axum on tokio, bound to
//! 127.0.0.1) serves one page; each tab opens a WebSocket and gets its own simulation (2D or
//! 3D; side views and turrets run with `steerkit run`'s own code), which runs in the server at
//! real time while the page pauses, steps, resets, changes speed, loads built-in or uploaded
//! scenarios, drags targets, goals, obstacles, wall ends and turrets, adds and removes agents,
//! moves sliders generated from the recipes' parameters, and saves the state as a scenario
//! file.
//!
//! - [`session`]: one simulation kept as a scenario document and the crowd built from it;
//! - [`protocol`]: the JSON messages and their handling (no I/O);
//! - [`server`]: HTTP, WebSocket, the session cap and the real-time loop.
//!
//! The page is the replay player itself (`web/replay/`), with `web/live.js` added: the same
//! renderer draws recorded and live frames.
#![warn(missing_docs)]

pub mod protocol;
pub mod server;
pub mod session;

pub use protocol::Entry;
pub use server::{serve, App};

/// The replay player (the shared renderer).
const REPLAY: &str = steerkit_scenario::recording::PLAYER;
/// The playground's controls, added to the player.
const LIVE: &str = include_str!("../../../web/live.js");
/// Where the replay template takes its recording.
const PLACEHOLDER: &str = "__STEERKIT_RECORDING__";

/// The demos: Buckland's set of steering demos, a formation and navigation, one scenario file each
/// (`scenarios/demos/`).
pub const DEMOS: &[(&str, &str)] = &[
    ("seek", include_str!("../../../scenarios/demos/seek.toml")),
    ("flee", include_str!("../../../scenarios/demos/flee.toml")),
    ("arrive", include_str!("../../../scenarios/demos/arrive.toml")),
    ("pursuit", include_str!("../../../scenarios/demos/pursuit.toml")),
    ("evade", include_str!("../../../scenarios/demos/evade.toml")),
    ("wander", include_str!("../../../scenarios/demos/wander.toml")),
    ("obstacle_avoidance", include_str!("../../../scenarios/demos/obstacle_avoidance.toml")),
    ("wall_avoidance", include_str!("../../../scenarios/demos/wall_avoidance.toml")),
    ("interpose", include_str!("../../../scenarios/demos/interpose.toml")),
    ("hide", include_str!("../../../scenarios/demos/hide.toml")),
    ("path_following", include_str!("../../../scenarios/demos/path_following.toml")),
    ("offset_pursuit", include_str!("../../../scenarios/demos/offset_pursuit.toml")),
    ("flocking", include_str!("../../../scenarios/demos/flocking.toml")),
    ("formation", include_str!("../../../scenarios/demos/formation.toml")),
    ("navigation", include_str!("../../../scenarios/demos/navigation.toml")),
];

/// The demos as catalogue entries, followed by `gallery` (name, TOML) as gallery entries
/// (a gallery scenario named like a demo is listed as `gallery/<name>`).
#[must_use]
pub fn catalogue(gallery: &[(&str, &str)]) -> Vec<Entry> {
    let mut out: Vec<Entry> = DEMOS
        .iter()
        .map(|(n, s)| Entry { name: (*n).to_owned(), kind: "demo", source: (*s).to_owned() })
        .collect();
    for (n, s) in gallery {
        let name = if DEMOS.iter().any(|(d, _)| d == n) {
            format!("gallery/{n}")
        } else {
            (*n).to_owned()
        };
        out.push(Entry { name, kind: "gallery", source: (*s).to_owned() });
    }
    out
}

/// The page: the replay player with an empty recording (the socket fills it) and the
/// playground's script. `</script` cannot occur in `live.js` (checked by a test), so inlining
/// it is safe.
#[must_use]
pub fn page() -> String {
    const EMPTY: &str = r#"{"format":"steerkit-replay","version":1,"meta":{"scenario":"connecting…","description":"","seed":0,"dt":0.02,"steps":0,"every":1,"dims":2},"world":{},"groups":[],"agent_groups":[],"frames":[]}"#;
    // an empty icon, so the browser asks the server for no favicon
    let page = REPLAY.replacen(PLACEHOLDER, EMPTY, 1).replacen(
        "<title>steerkit replay</title>",
        "<title>steerkit playground</title>\n<link rel=\"icon\" href=\"data:,\">",
        1,
    );
    match page.rfind("</body>") {
        Some(i) => format!("{}<script>\n{LIVE}\n</script>\n{}", &page[..i], &page[i..]),
        None => page,
    }
}

/// Runs the server on `127.0.0.1:port` (0: a free port) until the process ends, printing
/// `steerkit playground: http://127.0.0.1:<port>/` on one line once it listens.
///
/// # Errors
/// An unknown initial scenario; the runtime or the port cannot be had.
pub fn run(port: u16, initial: &str, gallery: &[(&str, &str)]) -> Result<(), String> {
    let catalogue = catalogue(gallery);
    let initial = match catalogue.iter().find(|e| e.name == initial) {
        Some(e) => e.name.clone(),
        None => {
            return Err(format!(
                "no built-in scenario named `{initial}` (built-ins: {})",
                catalogue.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    let app = App::new(catalogue, initial);
    runtime
        .block_on(serve(app, port, |addr| {
            use std::io::Write as _;
            println!("steerkit playground: http://{addr}/");
            let _ = std::io::stdout().flush();
        }))
        .map_err(|e| format!("cannot serve on 127.0.0.1:{port}: {e}"))
}
