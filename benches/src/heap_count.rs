//! A global allocator that counts the heap of one thread: the bytes live,
//! their peak, and the allocations, while counting is on. The peak-memory
//! test (`tests/peak_memory.rs`) and the workspace bench
//! (`benches/workspace.rs`) install it with `#[global_allocator]` and
//! measure a closure with [`counted`]; only the measuring thread counts, so
//! tests running in parallel do not disturb each other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The counting allocator over `A`, which does the allocating (install it
/// with `#[global_allocator]`): `Counting(System)`, or a faster allocator
/// where the process's own speed matters (the runner's `mimalloc`).
pub struct Counting<A = System>(pub A);

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn grow(bytes: usize) {
    let _ = ACTIVE.try_with(|active| {
        if active.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + bytes as i64);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
    });
}

fn shrink(bytes: usize) {
    let _ = ACTIVE.try_with(|active| {
        if active.get() {
            LIVE.with(|l| l.set(l.get() - bytes as i64));
        }
    });
}

// SAFETY: every call is forwarded to `A` unchanged; the counters are
// const-initialized thread locals without destructors, so touching them never
// allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.0.dealloc(ptr, layout) };
        shrink(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // both blocks may be live while the bytes move: count the new one first
            grow(new_size);
            shrink(layout.size());
        }
        p
    }
}

/// What [`counted`] saw: the peak of the bytes live (above what was live
/// before it started) and the number of allocations.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeapCount {
    pub peak: i64,
    pub allocations: u64,
}

/// Runs `f` with counting on (this thread only; meaningful only where
/// [`Counting`] is the global allocator): its result and the count.
pub fn counted<T>(f: impl FnOnce() -> T) -> (T, HeapCount) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    ALLOCATIONS.with(|a| a.set(0));
    ACTIVE.with(|a| a.set(true));
    let out = f();
    ACTIVE.with(|a| a.set(false));
    let count = HeapCount {
        peak: PEAK.with(Cell::get),
        allocations: ALLOCATIONS.with(Cell::get),
    };
    (out, count)
}
