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
