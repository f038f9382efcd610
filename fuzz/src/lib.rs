//! What every fuzz target shares besides its oracle: the allocator. With
//! the `fast-alloc` feature (builds without a sanitizer), mimalloc serves
//! the targets' allocations: glibc's malloc and free took 20% to 28% of
//! the fast targets' time (perf, 2026-12-05), the oracles being built of
//! many small JSON values. Each target names this crate (`use
//! toolgate_fuzz as _;`) so that it is linked and its allocator counts.
#![no_std]

#[cfg(feature = "fast-alloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
