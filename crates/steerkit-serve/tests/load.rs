//! A small load test: 20 clients on loopback (the server's cap raised to 21) for `STEERKIT_LOAD_SECS` seconds (default 20),
//! each running a demo (the 13 small ones in turn) and counting its frames. The server must
//! keep sending frames to every client (at least 10 a second each, of the 25 it aims for), answer
//! a new client promptly afterwards (its `scenario` within 1 s), and keep its memory flat: the
//! process' resident set (server and clients, from /proc/self/statm) grows by at most 32 MiB
//! between the end of the warm-up (3 s in) and 1 s before the end, every client still running.

mod common;
use common::{connect, next_of, send, start_with_cap};
use futures_util::StreamExt;
use std::time::{Duration, Instant};

const CLIENTS: usize = 20;

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_clients_stay_served_and_memory_stays_flat() {
    let secs: u64 =
        std::env::var("STEERKIT_LOAD_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    // the default cap is 16 tabs; this server takes the 20 clients and one more afterwards
    let addr = start_with_cap(CLIENTS + 1).await;
    let small: Vec<&str> =
        steerkit_serve::DEMOS.iter().map(|(n, _)| *n).filter(|n| *n != "flocking").collect();
    let start_at = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..CLIENTS {
        let demo = small[i % small.len()].to_owned();
        tasks.push(tokio::spawn(async move {
            let mut ws = connect(addr).await;
            next_of(&mut ws, "scenario", 10).await;
            send(&mut ws, &format!(r#"{{"type":"load","name":"{demo}"}}"#)).await;
            next_of(&mut ws, "scenario", 10).await;
            let mut frames = 0u64;
            let end = Instant::now() + Duration::from_secs(secs);
            let mut last = Instant::now();
            let mut longest_gap = Duration::ZERO;
            while let Ok(Some(Ok(m))) = tokio::time::timeout_at(end.into(), ws.next()).await {
                if m.is_text() && m.to_text().is_ok_and(|t| t.starts_with(r#"{"type":"frame""#)) {
                    frames += 1;
                    longest_gap = longest_gap.max(last.elapsed());
                    last = Instant::now();
                }
            }
            (frames, longest_gap)
        }));
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let rss_before = rss_bytes();
    // the resident set again near the end, every client still connected and running
    tokio::time::sleep_until(
        (start_at + Duration::from_secs(secs.saturating_sub(1).max(4))).into(),
    )
    .await;
    let rss_late = rss_bytes();
    let mut total = 0;
    let mut worst_rate = f64::INFINITY;
    let mut worst_gap = Duration::ZERO;
    for t in tasks {
        let (frames, gap) = t.await.expect("client task");
        total += frames;
        worst_rate = worst_rate.min(frames as f64 / secs as f64);
        worst_gap = worst_gap.max(gap);
    }
    let elapsed = start_at.elapsed().as_secs_f64();
    let rss_after = rss_bytes();
    let mib = |b: Option<u64>| b.map_or("?".into(), |b| format!("{:.1}", b as f64 / 1048576.0));
    // a new client afterwards is answered promptly
    let t0 = Instant::now();
    let mut ws = connect(addr).await;
    next_of(&mut ws, "scenario", 5).await;
    let answer = t0.elapsed();
    println!(
        "load: {CLIENTS} clients × {secs} s ({elapsed:.1} s wall): {total} frames, \
         {:.1} frames/s per client on average, slowest client {worst_rate:.1} frames/s, \
         longest gap {:.0} ms; new client answered in {:.0} ms; RSS {} MiB at 3 s, {} MiB \
         at {} s, {} MiB after the clients left",
        total as f64 / CLIENTS as f64 / secs as f64,
        worst_gap.as_secs_f64() * 1000.0,
        answer.as_secs_f64() * 1000.0,
        mib(rss_before),
        mib(rss_late),
        secs.saturating_sub(1).max(4),
        mib(rss_after),
    );
    assert!(worst_rate >= 10.0, "a client got only {worst_rate:.1} frames/s");
    assert!(answer < Duration::from_secs(1), "new client waited {answer:?}");
    if let (Some(a), Some(b)) = (rss_before, rss_late) {
        assert!(b <= a + 32 * 1024 * 1024, "RSS grew from {a} to {b} bytes");
    }
}
