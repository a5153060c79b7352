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

/// A registered user pass is named in pipeline text like a built-in one: in groups, with
/// typos answered by a suggestion among all registered passes, and listed by the registry.
#[test]
fn a_registered_user_pass_is_named_in_pipeline_text() {
    let input = "ENTRY main {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} add(p, p), metadata={op_name=\"add\"}\n}\n";
    let output = user_pass::run_passes(input, "fixpoint(strip-metadata,dce),verify").unwrap();
    assert!(!output.contains("metadata"), "{output}");
    let error = user_pass::run_passes(input, "dce,strip-metadat").unwrap_err();
    assert!(error.contains("did you mean `strip-metadata`?"), "{error}");
    // Without the registration the built-in parser does not know it.
    assert!(hlo_layout::passes::parse_pipeline("strip-metadata").is_err());
    let names: Vec<&str> = user_pass::registry()
        .passes()
        .iter()
        .map(|p| p.name)
        .collect();
    assert!(
        names.contains(&"strip-metadata") && names.contains(&"dce"),
        "{names:?}"
    );
}
