//! The example passes under `examples/`, written with the public API only, compiled into
//! this test: their output on a small module is a snapshot, and on every JAX corpus module
//! it verifies and reads back.

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
        run += 1;
    }
    assert_eq!(run, 48, "every JAX corpus module");
}
