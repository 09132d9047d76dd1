//! A server on a free loopback port and a small WebSocket client.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Starts a server (demos only, opening `seek`) and returns its address.
pub async fn start() -> SocketAddr {
    start_with_cap(steerkit_serve::server::MAX_SESSIONS).await
}

/// The same with `cap` simulations at once.
pub async fn start_with_cap(cap: usize) -> SocketAddr {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let app = steerkit_serve::App::new(steerkit_serve::catalogue(&[]), "seek".into())
        .with_session_cap(cap);
    tokio::spawn(async move {
        let _ = steerkit_serve::serve(app, 0, move |a| {
            let _ = tx.send(a);
        })
        .await;
    });
    rx.await.expect("the server starts")
}

/// A socket from the server's own page (`Origin: http://<addr>`, as a browser sends it).
pub async fn connect(addr: SocketAddr) -> Socket {
    let origin = format!("http://{addr}");
    connect_with(addr, Some(&origin), None).await.expect("the socket opens")
}

/// A socket with the given `Origin` (none: left out) and `Host` (none: the address).
pub async fn connect_with(
    addr: SocketAddr,
    origin: Option<&str>,
    host: Option<&str>,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/ws").into_client_request()?;
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().expect("a header value"));
    }
    if let Some(h) = host {
        req.headers_mut().insert("host", h.parse().expect("a header value"));
    }
    tokio_tungstenite::connect_async(req).await.map(|(ws, _)| ws)
}

pub async fn send(ws: &mut Socket, text: &str) {
    ws.send(Message::Text(text.into())).await.expect("sent");
}

/// The next message of type `kind` (others skipped), within `secs` seconds.
pub async fn next_of(ws: &mut Socket, kind: &str, secs: u64) -> Value {
    let wait = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("server sends JSON");
                    if v["type"] == kind {
                        return v;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("socket ended waiting for {kind}: {other:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(secs), wait)
        .await
        .unwrap_or_else(|_| panic!("no {kind} within {secs} s"))
}

/// The next text message, within `secs` seconds.
pub async fn next_any(ws: &mut Socket, secs: u64) -> Value {
    let wait = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => {
                    return serde_json::from_str::<Value>(t.as_str()).expect("server sends JSON")
                }
                Some(Ok(_)) => {}
                other => panic!("socket ended: {other:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(secs), wait).await.expect("a message in time")
}
