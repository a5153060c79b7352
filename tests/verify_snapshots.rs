//! The verifier's diagnostics as a user sees them, for small hand-written bad modules in
//! `tests/inputs/verify/`, and `check` exiting 1 on an error of meaning.

mod common;

use std::path::Path;
use std::process::Command;

use hlo_layout::verify::{verify, VerifyOptions};

/// Lowers and verifies a module; the rendered errors.
fn diagnostics(name: &str, options: VerifyOptions) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/verify")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let module = hlo_layout::parse_module(&text)
        .unwrap_or_else(|errors| panic!("{name}:\n{}", common::render(name, &text, errors)));
    match verify(&module, &options) {
        Ok(()) => panic!("{name} verifies, but it is meant to be rejected"),
        Err(errors) => common::render(name, &text, errors),
    }
}

const PLAIN: VerifyOptions = VerifyOptions {
    layout_sensitive: false,
};

#[test]
fn shape_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_shapes", diagnostics("shapes.hlo", PLAIN));
    });
}

#[test]
fn call_signature_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_calls", diagnostics("calls.hlo", PLAIN));
    });
}

#[test]
fn opcode_attribute_and_literal_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_meaning", diagnostics("meaning.hlo", PLAIN));
    });
}

#[test]
fn layout_errors_only_in_layout_sensitive_mode() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/verify/layouts.hlo");
    let text = std::fs::read_to_string(path).unwrap();
    let module = hlo_layout::parse_module(&text).unwrap();
    assert_eq!(verify(&module, &PLAIN), Ok(()));
    common::settings().bind(|| {
        insta::assert_snapshot!(
            "verify_layouts",
            diagnostics(
                "layouts.hlo",
                VerifyOptions {
                    layout_sensitive: true
                }
            )
        );
    });
}

#[test]
fn check_exits_1_on_errors_of_meaning() {
    let out = Command::new(env!("CARGO_BIN_EXE_hlo-layout"))
        .args(["check", "tests/inputs/verify/shapes.hlo", "--color=never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("shapes.hlo: 3 errors"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hlo::verify"), "{stderr}");
}
