//! The `fmt` and `check` commands as a user runs them: outputs, files and exit codes
//! (0 valid, 1 invalid, 2 usage).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hlo-layout"))
        .args(args)
        .arg("--color=never")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("stdin takes the text");
    drop(input);
    child.wait_with_output().expect("the binary finishes")
}

const GOOD: &str = "tests/inputs/fmt/short_style.hlo";
const BAD: &str = "tests/inputs/bad/three_errors.hlo";

#[test]
fn fmt_prints_to_stdout_and_to_a_file() {
    let out = run(&["fmt", GOOD], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("HloModule short_style\n\n"));
    assert_eq!(hlo_layout::format_module(&text).as_ref(), Ok(&text));

    let dir = std::env::temp_dir().join(format!("hlo-layout-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("out.hlo");
    let out = run(&["fmt", GOOD, "-o", target.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fmt_reads_stdin_and_splits_modules() {
    let input = "ENTRY a {\n  ROOT x = f32[2] constant({1, 2})\n}\n// -----\nENTRY b {\n  ROOT y = f32[] constant(2)\n}\n";
    let out = run(&["fmt", "-", "--split-input-file"], Some(input));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "ENTRY a {\n  ROOT x = f32[2]{0} constant({1, 2})\n}\n\n// -----\n\nENTRY b {\n  ROOT y = f32[] constant(2)\n}\n\n"
    );
    // Without the flag the separator is a comment and both computations form one module;
    // that it has two ENTRYs is for the IR to reject.
    let out = run(&["fmt"], Some(input));
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8(out.stdout).unwrap().contains("// -----"));
}

#[test]
fn fmt_reports_errors_and_prints_nothing() {
    let out = run(&["fmt", BAD], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.matches("hlo::syntax::").count(), 3, "{stderr}");
}

#[test]
fn check_exit_codes() {
    assert_eq!(run(&["check", GOOD], None).status.code(), Some(0));
    assert_eq!(run(&["check", GOOD, BAD], None).status.code(), Some(1));
    assert_eq!(
        run(&["check", "no/such/file.hlo"], None).status.code(),
        Some(1)
    );
    assert_eq!(run(&["check"], None).status.code(), Some(2));
    assert_eq!(
        run(&["check", GOOD, "--format", "xml"], None).status.code(),
        Some(2)
    );
}

#[test]
fn check_json_lists_every_error_with_its_position() {
    let out = run(&["check", GOOD, BAD, "--format", "json"], None);
    assert_eq!(out.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reports[0]["valid"], true);
    assert_eq!(reports[1]["valid"], false);
    let errors = reports[1]["errors"].as_array().unwrap();
    let positions: Vec<(u64, u64)> = errors
        .iter()
        .map(|e| (e["line"].as_u64().unwrap(), e["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(positions, vec![(6, 26), (12, 84), (14, 1)]);
    assert_eq!(errors[0]["code"], "hlo::syntax::unexpected_token");
    assert_eq!(errors[0]["help"], "expected one of `,`, `#`, `)`");
}
