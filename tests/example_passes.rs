//! The example passes under `examples/`, written with the public API only, compiled into
//! this test: their output on a small module is a snapshot, and on every JAX corpus module
//! (laid out, for the passes that need layouts) it verifies and reads back.

// Each example is a crate of its own with its own `mod support`; compiled together here, each
// loads that file again, as it must.
#![allow(clippy::duplicate_mod)]

mod common;

#[allow(dead_code)]
#[path = "../examples/transpose_folding.rs"]
mod transpose_folding;

#[test]
fn transpose_folding_snapshot() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/examples/transpose_folding.hlo"
    ))
    .unwrap();
    let output = transpose_folding::run(&text).unwrap_or_else(|e| panic!("{e}"));
    common::settings().bind(|| insta::assert_snapshot!("example_transpose_folding", output));
}

#[test]
fn transpose_folding_on_real_modules_verifies_and_reads_back() {
    let Some(dir) = common::corpus_dir("jax") else {
        return;
    };
    let mut run = 0;
    for path in common::files(&dir, "hlo") {
        let text = std::fs::read_to_string(&path).unwrap();
        let output =
            transpose_folding::run(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let again = hlo_layout::parse_module(&output)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert_eq!(hlo_layout::print::print_ir_module(&again), output);
        let before = common::name_counts(&hlo_layout::parse_module(&text).unwrap());
        common::assert_made_up_names_unique(&before, &again, &path.display().to_string());
        run += 1;
    }
    assert_eq!(run, 48, "every JAX corpus module");
}

#[allow(dead_code)]
#[path = "../examples/reshape_to_bitcast.rs"]
mod reshape_to_bitcast;

#[allow(dead_code)]
#[path = "../examples/copy_before_dot.rs"]
mod copy_before_dot;

/// The example's output on its small input under `tests/inputs/examples/`.
fn output_on_example_input(name: &str, run: fn(&str) -> Result<String, String>) -> String {
    let path = format!(
        "{}/tests/inputs/examples/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    run(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn reshape_to_bitcast_snapshot() {
    let output = output_on_example_input("reshape_to_bitcast", reshape_to_bitcast::run);
    common::settings().bind(|| insta::assert_snapshot!("example_reshape_to_bitcast", output));
}

#[test]
fn copy_before_dot_snapshot() {
    let output = output_on_example_input("copy_before_dot", copy_before_dot::run);
    common::settings().bind(|| insta::assert_snapshot!("example_copy_before_dot", output));
}

/// Each JAX corpus module with its layouts assigned: an `.opt.hlo` as XLA:CPU assigned them,
/// a `.pre.hlo` after this crate's `layout-assignment` (tpu-v5e tiles). `None` when there
/// is no corpus.
fn laid_out_corpus() -> Option<Vec<(String, hlo_layout::ir::Module)>> {
    let dir = common::corpus_dir("jax")?;
    let assign = hlo_layout::pass::registry::Registry::builtin()
        .parse("layout-assignment")
        .unwrap();
    let modules = common::files(&dir, "hlo")
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let mut module =
                hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            if name.ends_with(".pre.hlo") {
                let before = common::name_counts(&module);
                let options = hlo_layout::pass::PipelineOptions::default();
                assign
                    .instantiate("assign", options)
                    .run(&mut module)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                common::assert_made_up_names_unique(&before, &module, &name);
            }
            (name, module)
        })
        .collect();
    Some(modules)
}

/// Runs an example pass over every laid-out JAX module: the result verifies with layouts
/// (so every bitcast keeps each element's bytes under its tiles) and reads back to itself.
/// Returns the total of each counter the pass kept.
fn run_over_corpus(
    run_on: fn(
        &mut hlo_layout::ir::Module,
    ) -> Result<hlo_layout::pass::RunReport, hlo_layout::pass::PipelineError>,
) -> Option<std::collections::BTreeMap<&'static str, u64>> {
    let options = hlo_layout::verify::VerifyOptions {
        layout_sensitive: true,
    };
    let mut totals = std::collections::BTreeMap::new();
    let modules = laid_out_corpus()?;
    assert_eq!(modules.len(), 48, "every JAX corpus module");
    for (name, mut module) in modules {
        let before = common::name_counts(&module);
        let report = run_on(&mut module).unwrap_or_else(|e| panic!("{name}: {e}"));
        common::assert_made_up_names_unique(&before, &module, &name);
        for statistic in report.statistics {
            *totals.entry(statistic.name).or_insert(0) += statistic.value;
        }
        hlo_layout::verify::verify(&module, &options).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let output = hlo_layout::print::print_ir_module(&module);
        let again = hlo_layout::parse_module(&output).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(hlo_layout::print::print_ir_module(&again), output, "{name}");
    }
    println!("{totals:?}");
    Some(totals)
}

#[test]
fn reshape_to_bitcast_on_real_modules_verifies_with_layouts() {
    let Some(totals) = run_over_corpus(reshape_to_bitcast::run_on) else {
        return;
    };
    // XLA:CPU leaves transposes that move nothing inside fusions (conv_variants,
    // dot_general_batch_dims, transformer_block_fwd...).
    assert!(totals.get("bitcasts made") > Some(&0), "{totals:?}");
}

#[test]
fn copy_before_dot_on_real_modules_verifies_with_layouts() {
    let Some(totals) = run_over_corpus(copy_before_dot::run_on) else {
        return;
    };
    assert!(totals.get("copies inserted") > Some(&0), "{totals:?}");
}
