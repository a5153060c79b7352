//! What the benchmarks share.

// The same allocator as the `hlo-layout` binary, so the figures are what users get.
#[path = "../../src/cli/allocator.rs"]
#[allow(dead_code)] // The command's option setter is not needed here.
mod allocator;

#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

/// How many times each measurement is taken (the best is kept): `HLO_BENCH_REPEATS`, else
/// `default`.
pub fn repeats(default: usize) -> usize {
    std::env::var("HLO_BENCH_REPEATS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}
