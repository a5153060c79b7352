//! The layout-sensitive verifier checks bitcasts with the exact tiled memory map: equal byte
//! sizes are not enough when tiles put an element at another byte (issue 29).

use hlo_layout::pass::PipelineOptions;
use hlo_layout::passes::parse_pipeline;
use hlo_layout::verify::{verify, VerifyOptions};

fn module(operand: &str, result: &str) -> hlo_layout::ir::Module {
    let text =
        format!("ENTRY e {{\n  p = {operand} parameter(0)\n  ROOT b = {result} bitcast(p)\n}}\n");
    hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn sensitive_errors(operand: &str, result: &str) -> Vec<String> {
    let options = VerifyOptions {
        layout_sensitive: true,
    };
    match verify(&module(operand, result), &options) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn a_bitcast_that_moves_elements_with_equal_sizes_is_rejected() {
    let errors = sensitive_errors("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0:T(1024)}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("Bitcast moves elements"), "{errors:?}");
    // Without layouts XLA's verifier takes any bitcast, and so does ours.
    let plain = module("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0:T(1024)}");
    assert!(verify(&plain, &VerifyOptions::default()).is_ok());
    // The pipeline's verify pass rejects it too.
    let mut plain = plain;
    let spec = parse_pipeline("verify{layout-sensitive}").expect("a pipeline");
    let failure = spec
        .instantiate("test", PipelineOptions::default())
        .run(&mut plain)
        .expect_err("rejected");
    assert!(failure.to_string().contains("verify"), "{failure}");
}

#[test]
fn bitcasts_that_keep_every_element_pass() {
    for (operand, result) in [
        // A reshape of the dims above the tiled pair.
        ("f32[16,128]{1,0:T(8,128)}", "f32[2,8,128]{2,1,0:T(8,128)}"),
        // A transpose that keeps the physical order.
        ("f32[2,3]{1,0}", "f32[3,2]{0,1}"),
        ("f32[8,128]{1,0:T(8,128)}", "f32[128,8]{0,1:T(8,128)}"),
        // The same bytes in another memory space, as real TPU dumps bitcast into S(1).
        (
            "bf16[1024,128]{1,0:T(8,128)(2,1)S(1)}",
            "bf16[1024,128]{1,0:T(8,128)(2,1)}",
        ),
        // A reshape that assignment made a bitcast: row-major element k keeps its bytes,
        // though read in physical order the tiles would not line up.
        (
            "f32[1,1,4,256]{3,2,1,0:T(4,128)}",
            "f32[1,1,4,2,128]{4,2,3,1,0:T(4,128)}",
        ),
        // A degenerate dim added most-major.
        ("f32[16,128]{1,0:T(8,128)}", "f32[16,128,1]{1,0,2:T(8,128)}"),
        // A count-changing bitcast of equal size is XLA's business: only sizes are checked.
        ("u32[10]{0:T(128)}", "u32[5]{0:T(128)}"),
        // Untiled, any equal-size bitcast reads the bytes in physical order: here the
        // transpose-reshape-transpose of XLA's DecomposeBitcast.
        ("f32[2,3]{0,1}", "f32[2,3]{1,0}"),
    ] {
        let errors = sensitive_errors(operand, result);
        assert!(errors.is_empty(), "{operand} -> {result}: {errors:?}");
    }
}
