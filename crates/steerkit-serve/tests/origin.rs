//! The server answers its own page only: a WebSocket from another origin, and any request naming
//! another host (DNS rebinding), get 403.

mod common;
use common::{connect_with, next_of, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Error;

/// The status line and body of `GET path` sent with `host` as the `Host` header.
async fn get_with_host(addr: std::net::SocketAddr, path: &str, host: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn status(e: &Error) -> Option<u16> {
    match e {
        Error::Http(response) => Some(response.status().as_u16()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_from_another_origin_is_refused() {
    let addr = start().await;
    let port = addr.port();
    let other_port = format!("http://127.0.0.1:{}", port.wrapping_add(1));
    let foreign = [
        Some("http://evil.example"),
        Some("null"),
        Some("http://127.0.0.1.evil.example"),
        Some(other_port.as_str()),
        Some("https://127.0.0.1"),
        None,
    ];
    for origin in foreign {
        let e = connect_with(addr, origin, None).await.err();
        assert_eq!(e.as_ref().and_then(status), Some(403), "origin {origin:?}: {e:?}");
    }
    // the server's own origins, under each loopback name
    for own in [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")] {
        let mut ws = connect_with(addr, Some(&own), None).await.expect("own origin accepted");
        next_of(&mut ws, "scenario", 5).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_another_host_is_refused() {
    let addr = start().await;
    let port = addr.port();
    for host in ["evil.example", &format!("evil.example:{port}"), "127.0.0.1", "localhost:1", ""] {
        let r = get_with_host(addr, "/", host).await;
        assert!(r.starts_with("HTTP/1.1 403"), "Host {host:?}: {r:.80}");
        assert!(r.contains("is not this server"), "{r}");
    }
    for host in
        [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("LOCALHOST:{port}")]
    {
        let r = get_with_host(addr, "/", &host).await;
        assert!(r.starts_with("HTTP/1.1 200"), "Host {host:?}: {r:.80}");
    }
    // the socket too, even from the right origin
    let origin = format!("http://127.0.0.1:{port}");
    let e = connect_with(addr, Some(&origin), Some("evil.example")).await.err();
    assert_eq!(e.as_ref().and_then(status), Some(403), "{e:?}");
}
