//! The `opt` and `passes` commands as a user runs them: stdout, stderr and exit code (0
//! success, 1 invalid input or a failed pass, 2 usage), snapshotted in `snapshots/`.

mod common;

use common::hlo_layout;

/// Runs the binary with `stdin`; returns its transcript (command, exit code, stdout, stderr).
fn run(args: &[&str], stdin: &str) -> String {
    hlo_layout(args).stdin(stdin).run().transcript()
}

fn snapshot(name: &str, text: String) {
    common::snapshot(name, &text);
}

const DCE: &str = "tests/inputs/passes/dce_side_effects.hlo";
const TILED: &str = "tests/inputs/passes/simplify_tiled.hlo";

#[test]
fn opt_passes_lists_every_pass() {
    snapshot("opt_passes_list", run(&["passes"], ""));
}

#[test]
fn opt_runs_a_pipeline_with_timing() {
    snapshot(
        "opt_pipeline_timing",
        run(
            &[
                "opt",
                TILED,
                "--passes",
                "fixpoint(simplify-layout-ops,dce),verify{layout-sensitive}",
                "--timing",
            ],
            "",
        ),
    );
}

#[test]
fn opt_reads_stdin_and_splits_modules() {
    let input = "ENTRY a {\n  p = f32[2]{0} parameter(0)\n  d = f32[2]{0} negate(p)\n  ROOT r = f32[2]{0} abs(p)\n}\n// -----\nENTRY b {\n  ROOT c = f32[] constant(1)\n}\n";
    snapshot(
        "opt_stdin_split",
        run(
            &["opt", "-", "--passes", "dce,verify", "--split-input-file"],
            input,
        ),
    );
}

#[test]
fn opt_usage_errors_exit_2() {
    let mut out = String::new();
    for args in [
        &["opt", DCE, "--passes", "dce,fixpoint(simplfy-layout-ops"][..],
        &["opt", DCE, "--passes", "dec"],
        &["opt", DCE, "--passes", "dce", "--dump-pass-re", "dce"],
        &[
            "opt",
            DCE,
            "--passes",
            "dce",
            "--dump-dir",
            "/nonexistent",
            "--dump-pass-re",
            "(",
        ],
        &["opt", DCE],
    ] {
        out.push_str(&run(args, ""));
        out.push('\n');
    }
    snapshot("opt_usage_errors", out);
}

#[test]
fn opt_invalid_input_exits_1() {
    let mut out = run(
        &[
            "opt",
            "tests/inputs/bad/three_errors.hlo",
            "--passes",
            "dce",
        ],
        "",
    );
    out.push('\n');
    let wrong_shape =
        "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[8]{0} negate(p)\n}\n";
    out.push_str(&run(&["opt", "-", "--passes", "dce"], wrong_shape));
    out.push('\n');
    // With --no-verify the module goes through unchecked; `verify` still fails, by name.
    out.push_str(&run(
        &["opt", "-", "--passes", "dce", "--no-verify"],
        wrong_shape,
    ));
    out.push('\n');
    out.push_str(&run(
        &["opt", "-", "--passes", "dce,verify", "--no-verify"],
        wrong_shape,
    ));
    out.push('\n');
    out.push_str(&run(&["opt", "missing.hlo", "--passes", "dce"], ""));
    snapshot("opt_invalid_input", out);
}

#[test]
fn opt_writes_output_and_dumps_to_files() {
    let dir = std::env::temp_dir().join(format!("hlo-layout-opt-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = dir.join("out.hlo");
    let dumps = dir.join("dumps");
    let out = run(
        &[
            "opt",
            TILED,
            "--passes",
            "dce,simplify-layout-ops",
            "-o",
            output.to_str().unwrap(),
            "--dump-dir",
            dumps.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.contains("exit: 0\n--- stdout\n--- stderr\n"), "{out}");
    let written = std::fs::read_to_string(&output).unwrap();
    let stdout = run(&["opt", TILED, "--passes", "dce,simplify-layout-ops"], "");
    assert!(stdout.contains(&written));
    let mut names: Vec<String> = std::fs::read_dir(&dumps)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "module_0000.simplify_tiled.0000.opt.after_pipeline-start.before_dce.txt",
            "module_0000.simplify_tiled.0001.opt.after_simplify-layout-ops.before_pipeline-end.txt"
        ]
    );
    let last = std::fs::read_to_string(dumps.join(&names[1])).unwrap();
    assert_eq!(last, written);
    std::fs::remove_dir_all(&dir).unwrap();
}
