//! An upload beyond the session's agent cap is refused from its counts, before any agent is
//! placed: the bytes allocated while refusing a 10⁶-agent upload are measured with a counting
//! global allocator (its own test binary; only the thread under test is counted).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn add(bytes: isize) {
    if COUNTED.with(Cell::get) {
        let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now.max(0) as usize, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak bytes held (above the start) while `f` runs on this thread, and its result.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTED.with(|c| c.set(true));
    let out = f();
    COUNTED.with(|c| c.set(false));
    (PEAK.load(Ordering::Relaxed), out)
}

#[test]
fn a_million_agent_upload_is_refused_before_it_is_spawned() {
    let catalogue = steerkit_serve::catalogue(&[]);
    let flocking = steerkit_serve::DEMOS.iter().find(|(n, _)| *n == "flocking").unwrap().1;
    assert!(flocking.contains("count = 400"));
    let mut live = steerkit_serve::protocol::Live::default();
    // the 400-agent demo itself, for scale
    let (demo, ok) = peak_of(|| live.load(&catalogue, None, Some(flocking), Some("flocking.toml")));
    ok.expect("the demo loads");
    let huge = flocking.replace("count = 400", "count = 1000000");
    let (refused, e) = peak_of(|| live.load(&catalogue, None, Some(&huge), Some("huge.toml")));
    let e = e.expect_err("refused");
    println!("peak bytes: loading the 400-agent demo {demo}, refusing the 10^6 upload {refused}");
    assert!(e.contains("huge.toml") && e.contains("count") && e.contains("at most 2000"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    // placing 10⁶ agents alone would hold 8 MB of positions
    assert!(refused < 1 << 20, "refusing took {refused} bytes at its peak");
    // the session still runs the demo
    assert_eq!(live.session.as_ref().map(|s| s.agent_count()), Some(400));
}
