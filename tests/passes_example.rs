//! `examples/user_pass.rs`, the documented user-written pass, compiled into this test and
//! run: it must strip metadata, run after `dce`, and leave a module that re-parses.

#[allow(dead_code)]
#[path = "../examples/user_pass.rs"]
mod user_pass;

use hlo_layout::pass::{Pass, PassContext};

#[test]
fn the_example_pass_runs_in_a_pipeline() {
    let input = "ENTRY main {\n  p = f32[4]{0} parameter(0)\n  unused = f32[4]{0} negate(p), metadata={op_name=\"neg\"}\n  ROOT r = f32[4]{0} add(p, p), metadata={op_name=\"add\" source_line=3}\n}\n";
    let output = user_pass::run(input).unwrap();
    assert_eq!(
        output,
        "ENTRY main {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} add(p, p)\n}\n\n"
    );
    assert_eq!(hlo_layout::format_module(&output).as_ref(), Ok(&output));
}

#[test]
fn the_example_pass_reports_no_change_when_there_is_no_metadata() {
    let mut module =
        hlo_layout::parse_module("ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n").unwrap();
    let mut pass = user_pass::StripMetadata;
    let changed = pass.run(&mut module, &mut PassContext::default()).unwrap();
    assert!(!changed.0);
}
