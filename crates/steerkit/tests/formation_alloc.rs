//! The formation manager's per-step update allocates nothing once slots are assigned, so a crowd
//! can call it every step. Counted with a counting global allocator (its own test binary) that
//! counts only on the thread under test: the test harness's own thread allocates at times of its
//! choosing (its bookkeeping around the spawned test), which says nothing about the formation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use steerkit::formation::{
    FormationManager, Moderation, Pattern, ScalablePattern, Shape, SlotSteering,
};
use steerkit::prelude::*;

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    // const-initialised without a destructor, so reading it never allocates
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTED.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// 200 steps of a moderated, distance-costed V of 64 members allocate nothing after the first
/// update; a re-assignment at the same size (one member leaves and another joins) allocates
/// nothing either.
#[test]
fn formation_update_does_not_allocate_per_step() {
    let limits = Limits::new(3.0, 6.0, 4.0, 20.0).unwrap();
    let mut m = FormationManager::<Pattern>::new(
        ScalablePattern::new(Shape::V, 1.5).unwrap().into(),
        Kinematic::at_rest(Vec2::ZERO, 0.0),
        limits,
    )
    .with_moderation(Moderation::new(0.5, 1.0).unwrap())
    .with_distance_cost(1.0)
    .unwrap();
    let mut agents: Vec<Kinematic> =
        (0..65).map(|i| Kinematic::at_rest(Vec2::new(-(i as f32), (i % 7) as f32), 0.0)).collect();
    for id in 0..64 {
        m.add_member(id, 0);
    }
    let steer = SlotSteering::new(
        Arrive::new(0.05, 2.0, 0.25).unwrap(),
        Align::new(0.01, 0.5, 0.1).unwrap(),
    );
    let push = SteeringOutput::linear(Vec2::new(1.0, 0.0));
    m.update(1.0 / 60.0, &push, |id| agents[id as usize]);
    COUNTED.with(|c| c.set(true));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for step in 0..200 {
        if step == 100 {
            // same size: the solver's buffers are reused
            assert!(m.remove_member(10));
            assert!(m.add_member(64, 0));
        }
        m.update(1.0 / 60.0, &push, |id| agents[id as usize]);
        for t in m.targets() {
            let k = &mut agents[t.member as usize];
            let out = steer.steer(k, t, &limits).unwrap_or_default();
            k.integrate(&out, &limits, 1.0 / 60.0);
        }
    }
    let during = ALLOCATIONS.load(Ordering::Relaxed) - before;
    COUNTED.with(|c| c.set(false));
    assert_eq!(during, 0, "allocations during 200 steps");
    assert_eq!(m.last_assignment().unassigned, 0);
}
