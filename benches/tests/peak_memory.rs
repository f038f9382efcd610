//! Peak heap memory of one serialization, for every bench family at its
//! first budget-hitting size and at its largest size, measured with a
//! counting global allocator: bounded by the budgets (`PEAK_BOUND`) and the
//! same at both sizes. Inputs are built (and the source made) before the
//! count starts; only allocations of the measuring thread count, so tests
//! running in parallel do not disturb each other.
//!
//! `cargo test -p toolgate-benches --test peak_memory -- --nocapture` prints
//! the numbers.

use toolgate_benches::heap_count::{counted, Counting};
use toolgate_benches::{budget_hit, family};
use toolgate_core::constants::{MAX_DEPTH, MAX_ENTRIES, OUTPUT_CAP};
use toolgate_core::model::Value;
use toolgate_core::JsString;

#[global_allocator]
static ALLOCATOR: Counting = Counting(std::alloc::System);

/// What the walk may hold at once, from the budgets alone:
/// - the output: at most `OUTPUT_CAP` code points of at most 4 bytes, in a
///   `String` that doubles, so while it grows to 32 KiB the 16 KiB it grew
///   from is live too: 3 × 4 × 4096 = 48 KiB;
/// - the kept entries of the objects on the current path: at most
///   `MAX_ENTRIES` in all, in vectors that double (and start at 4) on at most
///   `MAX_DEPTH + 1` open objects, plus the sorted order of each:
///   2 × (256 + 4 × 33) × (entry + index) ≈ 2 × 388 × 48 B ≈ 37 KiB;
/// - the key sort's items and the array it merges them into, kept by the
///   walk and reused by every object: 2 × 256 × 24 B (a position and a
///   cursor each) = 12 KiB;
/// - the path of open containers: 2 × 34 handles, under 1 KiB;
/// - one BigInt below 2^4096 at a time: its 512-byte magnitude, the
///   conversion's scratch and 1236 decimal digits, a few KiB: 16 KiB allowed.
///
/// That is about 114 KiB; rounded up to 128 KiB. Nothing in it grows with
/// the input.
const PEAK_BOUND: i64 = 128 * 1024;

/// Peaks at the two sizes of one family may differ by this factor at most.
/// They are equal for every family but one: `shared_paths` opens 7 nested
/// objects at its first size and 32 at its largest, each holding its kept
/// entries while its children are written; past depth 33 nothing grows.
const SIZE_FACTOR: f64 = 2.0;

#[test]
fn the_bound_covers_its_terms() {
    let entry = std::mem::size_of::<(JsString, Value)>() + std::mem::size_of::<usize>();
    let entries = 2 * (MAX_ENTRIES + 4 * (MAX_DEPTH + 1)) * entry;
    let output = 3 * 4 * OUTPUT_CAP;
    // the key sort's item: an index and a `UnitCursor` (units and own offset)
    let sort_item =
        std::mem::size_of::<usize>() + std::mem::size_of::<toolgate_suite::js_string::UnitCursor>();
    assert_eq!(sort_item, 24);
    let sort = 2 * MAX_ENTRIES * sort_item;
    let derived = output + entries + sort + 2 * (MAX_DEPTH + 2) * 8 + 16 * 1024;
    assert!(derived as i64 <= PEAK_BOUND, "{derived}");
}

struct Measured {
    peak: i64,
    allocations: u64,
    budget: &'static str,
}

/// Peak bytes live during one serialization of `family` at `size`.
fn measure(name: &str, size: u64) -> Measured {
    let family = family(name).unwrap_or_else(|| panic!("no family {name}"));
    let input = (family.build)(size);
    let prepared = input.prepare();
    let (out, count) = counted(|| prepared.run());
    Measured {
        peak: count.peak,
        allocations: count.allocations,
        budget: budget_hit(&out),
    }
}

/// Measures the family at its first size that hits a budget and at its
/// largest, prints both, and checks the bound and the size independence.
fn check(name: &str) {
    let family = family(name).unwrap_or_else(|| panic!("no family {name}"));
    let first = family
        .sizes
        .iter()
        .copied()
        .find(|&size| (family.build)(size).prepare().run().truncated)
        .unwrap_or_else(|| panic!("{name}: no size hits a budget"));
    let largest = family.sizes.last().copied().unwrap_or(first);
    let small = measure(name, first);
    let large = measure(name, largest);
    println!(
        "peak {name:>18}: {:>7} B at {first:>10} ({} allocations, {}), {:>7} B at {largest:>10} ({} allocations)",
        small.peak, small.allocations, small.budget, large.peak, large.allocations
    );
    for (size, m) in [(first, &small), (largest, &large)] {
        assert!(
            m.peak <= PEAK_BOUND,
            "{name} at {size}: peak {} B over {PEAK_BOUND} B",
            m.peak
        );
    }
    let (lo, hi) = (small.peak.min(large.peak), small.peak.max(large.peak));
    assert!(
        hi as f64 <= lo as f64 * SIZE_FACTOR + 256.0,
        "{name}: peak {} B at {first} but {} B at {largest}",
        small.peak,
        large.peak
    );
}

macro_rules! families {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
        #[test]
        fn every_family_is_measured() {
            let measured = [$(stringify!($name)),*];
            for f in toolgate_benches::families() {
                assert!(measured.contains(&f.name), "{} has no memory test", f.name);
            }
        }
    };
}

families!(
    wide_object,
    wide_array,
    sparse_array,
    deep_nest,
    cyclic,
    shared_paths,
    string_ascii,
    string_escapes,
    string_surrogates,
    bigint,
    long_keys,
    json_wide_object,
    json_long_keys,
    worst_mix,
);
