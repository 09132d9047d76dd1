//! The HTTP and WebSocket side: `GET /` serves the page, `GET /ws` opens a simulation.
//!
//! Each WebSocket connection owns one [`Live`] simulation in its own task; no state is shared
//! between connections but the read-only catalogue and the session cap (a semaphore of
//! [`MAX_SESSIONS`] permits: a connection beyond it gets an `error` and is closed). The task
//! steps the simulation at real time × speed on a 10 ms tick (at most [`MAX_STEPS_PER_TICK`]
//! steps a tick, so a heavy scenario runs slower than real time instead of falling behind for
//! ever), applies the page's messages between steps, and sends a frame at most
//! [`FRAME_HZ`] times a second. A send that does not complete within
//! [`SEND_TIMEOUT`] ends the connection (a stalled tab cannot hold a permit for ever).
//!
//! # Who may talk to it
//! The server answers its own page only. Every request must name the server in `Host` as a
//! loopback name with the server's port (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`):
//! a page of another site that reaches the port through DNS rebinding names its own host and
//! gets 403. The WebSocket upgrade must also come from the server's own origin (`Origin:
//! http://` one of those): browsers send the origin of the page that opens a socket and a page
//! cannot forge it, so another site's page open in the same browser gets 403 and cannot drive a
//! simulation. A missing `Origin` is refused too (browsers always send one). Programs on the
//! same machine can send any header; the server binds to loopback, so those are the user's own
//! or another local user's (see `docs/playground.md`).

use crate::protocol::{error_message, hello_message, Entry, Live, FRAME_HZ, HARD_MESSAGE_LIMIT};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

pub use crate::protocol::MAX_SESSIONS;
/// Steps one tick may take (10 ms of wall time).
pub const MAX_STEPS_PER_TICK: u32 = 8;
/// A message the socket cannot send within this ends the connection.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// What every connection shares.
pub struct App {
    catalogue: Vec<Entry>,
    initial: String,
    page: String,
    slots: Arc<Semaphore>,
    cap: usize,
}

impl App {
    /// The catalogue (built-ins the page lists) and the scenario a new tab opens.
    #[must_use]
    pub fn new(catalogue: Vec<Entry>, initial: String) -> Self {
        App {
            catalogue,
            initial,
            page: crate::page(),
            slots: Arc::new(Semaphore::new(MAX_SESSIONS)),
            cap: MAX_SESSIONS,
        }
    }

    /// The same with another cap on simulations at once (the default is [`MAX_SESSIONS`]).
    #[must_use]
    pub fn with_session_cap(mut self, cap: usize) -> Self {
        self.slots = Arc::new(Semaphore::new(cap));
        self.cap = cap;
        self
    }
}

/// The router: `/` the page, `/ws` the socket, both behind [`guard`] for a server listening on
/// `port`.
pub fn router(app: Arc<App>, port: u16) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/ws", get(socket))
        .with_state(app)
        .layer(axum::middleware::from_fn_with_state(port, guard))
}

/// True when `authority` (a `Host` value, or an origin without its scheme) is a loopback name
/// or address with `port`.
#[must_use]
pub fn is_own_authority(authority: &str, port: u16) -> bool {
    let Some((host, p)) = authority.rsplit_once(':') else { return false };
    p.parse::<u16>().is_ok_and(|p| p == port)
        && (host == "127.0.0.1" || host == "[::1]" || host.eq_ignore_ascii_case("localhost"))
}

/// Refuses (403, one line) a request whose `Host` is not the server's own loopback address, and
/// a WebSocket upgrade whose `Origin` is not the server's own page (see the module docs).
async fn guard(State(port): State<u16>, req: Request, next: Next) -> Response {
    // decided before the await: the request's body is not `Sync`, so no borrow of it may be
    // held across one
    match refusal(&req, port) {
        Some(message) => (StatusCode::FORBIDDEN, message).into_response(),
        None => next.run(req).await,
    }
}

/// Why `req` is refused, if it is.
fn refusal(req: &Request, port: u16) -> Option<String> {
    let value = |name| req.headers().get(name).and_then(|v: &header::HeaderValue| v.to_str().ok());
    let host = value(header::HOST).unwrap_or("");
    if !is_own_authority(host, port) {
        return Some(format!(
            "forbidden: Host {host:?} is not this server (allowed: 127.0.0.1:{port}, \
             localhost:{port}, [::1]:{port})\n"
        ));
    }
    if req.uri().path() == "/ws" {
        let origin = value(header::ORIGIN).unwrap_or("");
        let own = origin.strip_prefix("http://").is_some_and(|a| is_own_authority(a, port));
        if !own {
            return Some(format!(
                "forbidden: Origin {origin:?} is not this server's page (allowed: \
                 http://127.0.0.1:{port}, http://localhost:{port}, http://[::1]:{port})\n"
            ));
        }
    }
    None
}

async fn page(State(app): State<Arc<App>>) -> impl IntoResponse {
    Html(app.page.clone())
}

async fn socket(State(app): State<Arc<App>>, ws: WebSocketUpgrade) -> impl IntoResponse {
    ws.max_message_size(HARD_MESSAGE_LIMIT)
        .max_frame_size(HARD_MESSAGE_LIMIT)
        .on_upgrade(move |socket| connection(socket, app))
}

async fn send(ws: &mut WebSocket, text: String) -> bool {
    matches!(
        tokio::time::timeout(SEND_TIMEOUT, ws.send(Message::Text(text.into()))).await,
        Ok(Ok(()))
    )
}

/// A new page's first messages: the hello, then the initial scenario (or why it did not load).
/// False when the page is gone.
async fn greet(ws: &mut WebSocket, app: &App, live: &mut Live) -> bool {
    if !send(ws, hello_message(&app.catalogue)).await {
        return false;
    }
    let initial = app.initial.clone();
    if let Err(e) = live.load(&app.catalogue, Some(&initial), None, None) {
        if !send(ws, error_message(&e)).await {
            return false;
        }
    }
    match live.scenario_message() {
        Some(m) => send(ws, m).await,
        None => true,
    }
}

async fn connection(mut ws: WebSocket, app: Arc<App>) {
    let Ok(_permit) = app.slots.clone().try_acquire_owned() else {
        let _ = send(
            &mut ws,
            error_message(&format!(
                "the server runs {} simulations at once, its most; close another playground \
                 tab and reload this one",
                app.cap
            )),
        )
        .await;
        let _ = ws.send(Message::Close(None)).await;
        return;
    };
    let mut live = Live::default();
    if !greet(&mut ws, &app, &mut live).await {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let frame_every = Duration::from_secs_f64(1.0 / f64::from(FRAME_HZ));
    // when the next frame is due while running (frames at a steady FRAME_HZ)
    let mut next_frame = Instant::now();
    let mut last_tick = Instant::now();
    // simulated seconds owed to real time
    let mut owed = 0.0f64;
    loop {
        tokio::select! {
            incoming = ws.recv() => {
                let text = match incoming {
                    None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        if !send(&mut ws, error_message("message: binary messages are not understood; send JSON text")).await {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => continue,
                };
                let (replies, effects) = live.handle(text.as_str(), &app.catalogue);
                for r in replies {
                    if !send(&mut ws, r).await {
                        return;
                    }
                }
                if effects.scenario {
                    owed = 0.0;
                    if let Some(m) = live.scenario_message() {
                        if !send(&mut ws, m).await {
                            return;
                        }
                    }
                }
                if effects.params {
                    if let Some(m) = live.params_message() {
                        if !send(&mut ws, m).await {
                            return;
                        }
                    }
                }
                if effects.frame {
                    if let Some(m) = live.frame_message() {
                        if !send(&mut ws, m).await {
                            return;
                        }
                        next_frame = Instant::now() + frame_every;
                    }
                }
            }
            _ = tick.tick() => {
                let now = Instant::now();
                let elapsed = now.duration_since(last_tick).as_secs_f64();
                last_tick = now;
                let Some(s) = live.session.as_mut() else { continue };
                if live.paused {
                    owed = 0.0;
                    continue;
                }
                let dt = f64::from(s.dt());
                owed += elapsed * live.speed;
                let mut steps = 0;
                while owed >= dt && steps < MAX_STEPS_PER_TICK {
                    if let Err(e) = s.step() {
                        live.paused = true;
                        if !send(&mut ws, error_message(&e)).await {
                            return;
                        }
                        break;
                    }
                    owed -= dt;
                    steps += 1;
                }
                // a scenario too heavy for real time runs slower, not ever further behind
                owed = owed.min(dt * f64::from(MAX_STEPS_PER_TICK));
                if now >= next_frame {
                    if let Some(m) = live.frame_message() {
                        if !send(&mut ws, m).await {
                            return;
                        }
                    }
                    // on schedule, or from now when a slow send or tick made it late
                    next_frame += frame_every;
                    if next_frame <= now {
                        next_frame = now + frame_every;
                    }
                }
            }
        }
    }
}

/// Binds `127.0.0.1:port` (0: any free port) and serves until the process ends; calls
/// `ready` with the address once listening.
///
/// # Errors
/// The port cannot be bound.
pub async fn serve(app: App, port: u16, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    ready(addr);
    axum::serve(listener, router(Arc::new(app), addr.port())).await
}
