//! `assign` against XLA's own choices (issue 28): on the real TPU modules of
//! `../shared/corpus/tpu-real` (`real` and `real-in-test` in its SOURCES.tsv), every layout but
//! the entry's is erased and assigned again, then every layout is erased and assigned with
//! `auto` entry layouts; each array XLA tiled is compared (minor_to_major and tiles).

mod common;

use hlo_layout::assign::{assign_layouts_with, quality, AssignOptions, EntryLayouts};
use hlo_layout::ir::Target;

#[test]
fn assign_puts_back_what_xla_chose() {
    let Some(dir) = common::corpus_dir("tpu-real") else {
        return;
    };
    let sources = std::fs::read_to_string(dir.join("SOURCES.tsv")).expect("tpu-real/SOURCES.tsv");
    let mut given = quality::Agreement::default();
    let mut auto = quality::Agreement::default();
    let mut modules = 0;
    for line in sources.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some(file), Some(kind)) = (fields.first(), fields.get(4)) else {
            continue;
        };
        if !matches!(*kind, "real" | "real-in-test") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(file)).expect("a file SOURCES.tsv names");
        let xla = hlo_layout::parse_module(&text).expect("a real TPU module parses");
        let target = quality::dump_target(&xla, &Target::default_tpu());
        for (keep_entry, entry_layouts, total) in [
            (true, EntryLayouts::Given, &mut given),
            (false, EntryLayouts::Auto, &mut auto),
        ] {
            let mut ours = quality::erase_layouts(&xla, keep_entry);
            let options = AssignOptions {
                entry_layouts,
                ..AssignOptions::default()
            };
            assign_layouts_with(&mut ours, &target, &options)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            total.add(quality::agreement(&xla, &ours));
        }
        modules += 1;
    }
    println!(
        "{modules} modules, {} arrays: entry's layouts kept {:.1}% (rank >= 2: {:.1}%), \
         all erased with auto {:.1}% (rank >= 2: {:.1}%)",
        given.compared,
        given.percent(),
        given.percent_rank2(),
        auto.percent(),
        auto.percent_rank2()
    );
    for miss in &given.misses {
        println!(
            "  given: {}/{}: xla {:?} ours {:?}",
            miss.computation, miss.instruction, miss.xla, miss.ours
        );
    }
    assert!(
        modules >= 18 && given.compared >= 500,
        "too few modules compared"
    );
    assert!(
        given.percent() >= 95.0,
        "entry's layouts kept: {:.1}% < 95%",
        given.percent()
    );
    assert!(
        auto.percent() >= 90.0,
        "all erased, auto: {:.1}% < 90%",
        auto.percent()
    );
}

/// Issue 28's padding figures on the 16 JAX programs of `tests/inputs/jax-programs`
/// (pre-optimization dumps with JAX's default layouts, written by `benches/jax_programs.py`
/// and first measured before the pass chose anything): the rank >= 2 arrays the pass lays
/// out take at most 1.85x their logical bytes with the given entry layouts (the given
/// parameters are not the pass's to lay out), at most 1.75x with `auto`, and copies move at
/// most 1.2x what the descending rule's move.
#[test]
fn assign_pads_little_on_jax_programs() {
    use hlo_layout::assign::Policy;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/jax-programs");
    let target = Target::default_tpu();
    // Padded and logical bytes (given without its parameters, auto), and bytes moved
    // (descending, given).
    let (mut given, mut auto, mut moved) = ((0, 0), (0, 0), (0, 0));
    let files = common::files(&dir, "hlo");
    assert_eq!(files.len(), 16);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a JAX program");
        let module = hlo_layout::parse_module(&text).expect("a JAX program parses");
        let run = |entry_layouts, policy| {
            let mut assigned = module.clone();
            let options = AssignOptions {
                entry_layouts,
                policy,
            };
            let report = assign_layouts_with(&mut assigned, &target, &options)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (assigned, report)
        };
        let (descending, report) = run(EntryLayouts::Given, Policy::Descending);
        drop(descending);
        moved.0 += report.cost.moved_bytes;
        let (chosen, report) = run(EntryLayouts::Given, Policy::MinimizeCost);
        moved.1 += report.cost.moved_bytes;
        let (padded, logical) = quality::rank2_bytes(&chosen, true);
        given = (given.0 + padded, given.1 + logical);
        let (chosen, _) = run(EntryLayouts::Auto, Policy::MinimizeCost);
        let (padded, logical) = quality::rank2_bytes(&chosen, false);
        auto = (auto.0 + padded, auto.1 + logical);
    }
    let ratio = |(padded, logical): (i64, i64)| padded as f64 / logical as f64;
    println!(
        "given {:.2}x, auto {:.2}x, moved {} -> {} bytes",
        ratio(given),
        ratio(auto),
        moved.0,
        moved.1
    );
    assert!(ratio(given) <= 1.85, "given: {:.2}x", ratio(given));
    assert!(ratio(auto) <= 1.75, "auto: {:.2}x", ratio(auto));
    assert!(
        moved.1 as f64 <= 1.2 * moved.0 as f64,
        "moved {} > 1.2 x {}",
        moved.1,
        moved.0
    );
}
