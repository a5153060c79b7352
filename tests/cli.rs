//! Every command as a user runs it, through the real binary: stdout, stderr and the exit code
//! snapshotted for each command (fmt, check, assign, stats, dot, diff, passes) and for each
//! convention they share: FILE or `-`, `-o OUT` written atomically, several files with a
//! header each and continuing past failures, `--format json` as one versioned document,
//! `--color` and NO_COLOR, exit codes 0/1/2, `--help` with an example, determinism.

mod common;

use common::{hlo_layout, scratch_directory, snapshot, Run};

const GOOD: &str = "tests/inputs/fmt/short_style.hlo";
const BAD: &str = "tests/inputs/bad/three_errors.hlo";
const EXAMPLE: &str = "examples/reshape_degenerate.hlo";
const SLOTS: &str = "tests/inputs/cli/slots.hlo";
const SLOTS_CHANGED: &str = "tests/inputs/cli/slots_changed.hlo";
const SLOTS_RENAMED: &str = "tests/inputs/cli/slots_renamed.hlo";

/// Every subcommand, with arguments that make it succeed on `EXAMPLE`-like input.
const COMMANDS: &[&[&str]] = &[
    &["fmt", EXAMPLE],
    &["check", EXAMPLE],
    &["assign", EXAMPLE],
    &["opt", EXAMPLE, "--passes", "dce"],
    &["stats", EXAMPLE],
    &["dot", EXAMPLE],
    &["diff", EXAMPLE, EXAMPLE],
    &["explain", "f32[3,5]{1,0:T(2,2)}"],
    &["passes"],
];

fn run(args: &[&str]) -> Run {
    hlo_layout(args).run()
}

/// Runs each of `runs` and snapshots their transcripts together as `name`.
fn snapshot_runs(name: &str, runs: &[Run]) {
    let text: Vec<String> = runs.iter().map(Run::transcript).collect();
    snapshot(name, &text.join("\n"));
}

// ---- fmt and check ----

#[test]
fn fmt_prints_to_stdout_and_to_a_file() {
    let out = run(&["fmt", GOOD]);
    assert_eq!(out.code, Some(0));
    assert!(out.stdout.starts_with("HloModule short_style\n\n"));
    assert_eq!(
        hlo_layout::format_module(&out.stdout).as_ref(),
        Ok(&out.stdout)
    );

    let dir = scratch_directory("fmt-file");
    let target = dir.join("out.hlo");
    let written = run(&["fmt", GOOD, "-o", target.to_str().unwrap()]);
    assert_eq!(written.code, Some(0));
    assert!(written.stdout.is_empty() && written.stderr.is_empty());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), out.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fmt_reads_stdin_and_splits_modules() {
    let input = "ENTRY a {\n  ROOT x = f32[2] constant({1, 2})\n}\n// -----\nENTRY b {\n  ROOT y = f32[] constant(2)\n}\n";
    let out = hlo_layout(&["fmt", "-", "--split-input-file"])
        .stdin(input)
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "ENTRY a {\n  ROOT x = f32[2]{0} constant({1, 2})\n}\n\n// -----\n\nENTRY b {\n  ROOT y = f32[] constant(2)\n}\n\n"
    );
    // Without the flag the separator is a comment and both computations form one module;
    // that it has two ENTRYs is for the IR to reject.
    let out = hlo_layout(&["fmt"]).stdin(input).run();
    assert_eq!(out.code, Some(0));
    assert!(!out.stdout.contains("// -----"));
}

#[test]
fn fmt_reports_errors_and_prints_nothing() {
    let out = run(&["fmt", BAD]);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr.matches("hlo::syntax::").count(),
        3,
        "{}",
        out.stderr
    );
}

#[test]
fn check_exit_codes() {
    assert_eq!(run(&["check", GOOD]).code, Some(0));
    assert_eq!(run(&["check", GOOD, BAD]).code, Some(1));
    assert_eq!(run(&["check", "no/such/file.hlo"]).code, Some(1));
    assert_eq!(run(&["check"]).code, Some(2));
    assert_eq!(run(&["check", GOOD, "--format", "xml"]).code, Some(2));
}

/// Line and column of each JSON diagnostic's first label.
fn label_positions(errors: &[serde_json::Value]) -> Vec<(u64, u64)> {
    errors
        .iter()
        .map(|e| {
            let label = &e["labels"][0];
            (
                label["line"].as_u64().unwrap(),
                label["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn check_json_lists_every_error_with_its_position() {
    let out = run(&["check", GOOD, BAD, "--format", "json"]);
    assert_eq!(out.code, Some(1));
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(document["version"], 1);
    assert_eq!(document["ok"], false);
    let files = &document["files"];
    assert_eq!(files[0]["ok"], true);
    assert_eq!(files[1]["ok"], false);
    let errors = files[1]["diagnostics"].as_array().unwrap();
    let positions = label_positions(errors);
    // The first at the operand `%y` breaks, where XLA points.
    assert_eq!(positions, vec![(6, 23), (12, 84), (14, 1)]);
    assert_eq!(errors[0]["code"], "hlo::syntax::unexpected_token");
    assert_eq!(errors[0]["severity"], "error");
    assert_eq!(errors[0]["help"], "expected one of `,`, `#`, `)`");
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn check_reports_bad_shapes_inside_attribute_values() {
    // Lowering reads attribute values of instructions and of computations; `check` relies on
    // it alone, so each bad layout there must be an error with its position.
    let input = "tests/inputs/bad/attribute_shapes.hlo";
    let out = run(&["check", input, "--format", "json"]);
    assert_eq!(out.code, Some(1));
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let errors = document["files"][0]["diagnostics"].as_array().unwrap();
    let positions = label_positions(errors);
    assert_eq!(positions, vec![(7, 99), (7, 100), (8, 40), (8, 41)]);
    assert!(errors.iter().all(|e| e["code"] == "hlo::layout::invalid"));
}

// ---- assign ----

#[test]
fn assign_report_and_json() {
    snapshot_runs(
        "cli_assign_report",
        &[run(&["assign", EXAMPLE, "--target", "tpu-v4", "--report"])],
    );
    let out = run(&["assign", EXAMPLE, "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(document["version"], 1);
    assert_eq!(document["command"], "assign");
    let file = &document["files"][0];
    assert_eq!(file["report"]["copies_inserted"], 2);
    let module = &file["modules"][0];
    assert_eq!(module["name"], "reshape_degenerate");
    let copy = module["computations"][0]["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "copy.1")
        .unwrap();
    assert_eq!(copy["opcode"], "copy");
    assert_eq!(copy["operands"], serde_json::json!(["get-tuple-element.1"]));
    assert_eq!(copy["shape"]["layout"], "{1,0:T(8,128)}");
    assert_eq!(copy["shape"]["minor_to_major"], serde_json::json!([1, 0]));
    assert_eq!(copy["shape"]["dims"], serde_json::json!([256, 16]));
    assert!(module["text"]
        .as_str()
        .unwrap()
        .starts_with("HloModule reshape_degenerate"));
}

/// `--entry-layouts auto` chooses the entry's layouts too and writes them into the header:
/// the example's given result layouts cost two copies, which `auto` does without. The JSON
/// report gives the cost, the descending rule's and the bound.
#[test]
fn assign_entry_layouts_auto() {
    let out = run(&[
        "assign",
        EXAMPLE,
        "--entry-layouts",
        "auto",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let file = &document["files"][0];
    assert_eq!(file["report"]["copies_inserted"], 0);
    let cost = &file["report"]["cost"];
    let descending = &file["report"]["descending_cost"];
    let total = |c: &serde_json::Value| {
        ["padded_bytes", "moved_bytes", "unmet_preference_bytes"]
            .iter()
            .map(|k| c[k].as_i64().unwrap())
            .sum::<i64>()
    };
    assert!(total(cost) <= total(descending), "{cost} {descending}");
    assert!(
        file["report"]["bound_padded_bytes"].as_i64().unwrap()
            <= cost["padded_bytes"].as_i64().unwrap()
    );
    let text = file["modules"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("->(bf16[8,1,128]{2,0,1:T(8,128)(2,1)}, f32[256,16]{0,1:T(8,128)})}"),
        "{text}"
    );
    let given = run(&["assign", EXAMPLE, "--entry-layouts", "given"]);
    assert!(given.stdout.contains("copy("), "{}", given.stdout);
    let bad = run(&["assign", EXAMPLE, "--entry-layouts", "chosen"]);
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    // The pass takes the same choice as a flag.
    let pass = run(&["opt", EXAMPLE, "--passes", "layout-assignment{auto}"]);
    assert_eq!(pass.code, Some(0), "{}", pass.stderr);
    assert!(!pass.stdout.contains("copy("), "{}", pass.stdout);
    assert!(
        pass.stdout.contains("f32[256,16]{0,1:T(8,128)})}"),
        "{}",
        pass.stdout
    );
}

// ---- stats ----

#[test]
fn assign_points_at_a_recursive_computation() {
    let out = run(&[
        "assign",
        "tests/inputs/cli/recursive.hlo",
        "--color",
        "never",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    snapshot_runs("cli_assign_recursive", &[out]);
}

/// Found by a fidelity sweep against XLA: an input that parses but does not verify was
/// reported as a module the pass had broken ("this is a bug in hlo-layout").
#[test]
fn assign_reports_an_input_that_does_not_verify_as_bad_input() {
    let out = run(&[
        "assign",
        "tests/inputs/verify/shapes.hlo",
        "--color",
        "never",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(!out.stderr.contains("bug"), "{}", out.stderr);
    let check = run(&[
        "check",
        "tests/inputs/verify/shapes.hlo",
        "--color",
        "never",
    ]);
    assert_eq!(check.code, Some(1));
    // The diagnostics are those `check` gives for the same file.
    let first = |stderr: &str| stderr.lines().take(4).collect::<Vec<_>>().join("\n");
    assert_eq!(first(&out.stderr), first(&check.stderr));
}

#[test]
fn stats_text_per_module_and_computation() {
    snapshot_runs(
        "cli_stats",
        &[
            run(&["stats", SLOTS]),
            run(&["stats", EXAMPLE, "--assign", "--target", "tpu-v5e"]),
        ],
    );
}

#[test]
fn stats_json() {
    let out = run(&["stats", EXAMPLE, "--assign", "--format", "json"]);
    snapshot_runs("cli_stats_json", &[out]);
    let out = run(&["stats", EXAMPLE, "--assign", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let total = &document["files"][0]["stats"]["total"];
    assert_eq!(total["padded_bytes"], 172032);
    assert_eq!(total["logical_bytes"], 55296);
    assert_eq!(total["opcodes"]["copy"], 2);
    assert_eq!(total["element_types"]["f32"]["arrays"], 3);
    let worst = &total["worst_padding"][0];
    assert_eq!(worst["instruction"], "copy.1");
    assert!(worst["advice"]
        .as_str()
        .unwrap()
        .contains("256-element dim minor"));
}

#[test]
fn stats_target_needs_assign() {
    let out = run(&["stats", EXAMPLE, "--target", "tpu-v4"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
}

// ---- dot ----

#[test]
fn dot_draws_operands_in_slot_order() {
    let out = run(&["dot", SLOTS]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // `sub = subtract(b, a)`: b (n1) is slot 0 although a (n0) was defined first, and
    // `add(sub, sub)` has two edges from the same node.
    assert!(out
        .stdout
        .contains("  n1 -> n2 [label=\"0\"];\n  n0 -> n2 [label=\"1\"];\n"));
    assert!(out
        .stdout
        .contains("  n2 -> n3 [label=\"0\"];\n  n2 -> n3 [label=\"1\"];\n"));
    assert!(out.stdout.contains("ordering=in"));
    snapshot_runs(
        "cli_dot",
        &[
            out,
            run(&["dot", SLOTS, "--computation", "add_f32"]),
            run(&["dot", SLOTS, "--around", "twice", "--depth", "1"]),
        ],
    );
}

#[test]
fn dot_highlights_assigned_copies_and_bitcasts() {
    let assigned = run(&["assign", EXAMPLE]);
    let out = hlo_layout(&["dot", "-"]).stdin(&assigned.stdout).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.matches("fillcolor=\"#fdb863\"").count(), 2);
    assert_eq!(out.stdout.matches("fillcolor=\"#92c5de\"").count(), 2);
    assert!(out.stdout.contains("f32[256,16]{1,0:T(8,128)}"));
}

#[test]
fn dot_unknown_names_are_invalid_input() {
    snapshot_runs(
        "cli_dot_errors",
        &[
            run(&["dot", SLOTS, "--computation", "add_f23"]),
            run(&["dot", SLOTS, "--around", "twicee"]),
            run(&["dot", SLOTS, "--depth", "1"]),
        ],
    );
}

// ---- diff ----

#[test]
fn diff_exit_codes_and_text() {
    let equal = run(&["diff", SLOTS, SLOTS]);
    assert_eq!(equal.code, Some(0));
    let renamed = run(&["diff", SLOTS, SLOTS_RENAMED]);
    assert_eq!(renamed.code, Some(1));
    let ignoring = run(&["diff", SLOTS, SLOTS_RENAMED, "--ignore-names"]);
    assert_eq!(ignoring.code, Some(0));
    let changed = run(&["diff", SLOTS, SLOTS_CHANGED, "--ignore-names"]);
    assert_eq!(changed.code, Some(1));
    snapshot_runs("cli_diff", &[equal, renamed, ignoring, changed]);
}

#[test]
fn diff_after_assign() {
    let assigned = run(&["assign", EXAMPLE]);
    let out = hlo_layout(&["diff", EXAMPLE, "-"])
        .stdin(&assigned.stdout)
        .run();
    assert_eq!(out.code, Some(1));
    snapshot_runs("cli_diff_assign", &[out]);
}

#[test]
fn diff_json_and_errors() {
    let json = run(&[
        "diff",
        SLOTS,
        SLOTS_CHANGED,
        "--ignore-names",
        "--format",
        "json",
    ]);
    assert_eq!(json.code, Some(1));
    let document: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(document["version"], 1);
    assert_eq!(document["equal"], false);
    assert_eq!(document["diff"]["summary"]["changed"], 2);
    snapshot_runs(
        "cli_diff_json_errors",
        &[
            json,
            run(&["diff", SLOTS, BAD]),
            run(&["diff", SLOTS, "missing.hlo", "--format", "json"]),
            run(&["diff", SLOTS]),
        ],
    );
}

// ---- conventions ----

#[test]
fn every_command_reads_stdin() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/reshape_degenerate.hlo"
    ))
    .unwrap();
    for args in COMMANDS {
        if args[0] == "passes" {
            continue;
        }
        if args[0] == "explain" {
            // explain reads its SHAPE from stdin.
            let from_stdin = hlo_layout(&["explain", "-"])
                .stdin(&format!("{}\n", args[1]))
                .run();
            assert_eq!(from_stdin.code, Some(0), "{}", from_stdin.stderr);
            assert_eq!(from_stdin.stdout, run(args).stdout);
            continue;
        }
        let from_file = run(args);
        let with_stdin: Vec<&str> = args
            .iter()
            .map(|&a| if a == EXAMPLE { "-" } else { a })
            .collect();
        // diff reads one side from stdin.
        let with_stdin: Vec<&str> = if args[0] == "diff" {
            vec!["diff", "-", EXAMPLE]
        } else {
            with_stdin
        };
        let from_stdin = hlo_layout(&with_stdin).stdin(&text).run();
        assert_eq!(from_file.code, Some(0), "{args:?}: {}", from_file.stderr);
        assert_eq!(
            from_stdin.code,
            Some(0),
            "{with_stdin:?}: {}",
            from_stdin.stderr
        );
        let expected = from_file.stdout.replace(EXAMPLE, "-");
        if args[0] == "diff" {
            assert!(from_stdin
                .stdout
                .ends_with("no differences (7 instructions identical)\n"));
        } else {
            assert_eq!(from_stdin.stdout, expected, "{args:?}");
        }
    }
}

#[test]
fn every_command_writes_output_atomically() {
    let dir = scratch_directory("output");
    for args in COMMANDS {
        let target = dir.join(format!("{}.out", args[0]));
        std::fs::write(&target, "old").unwrap();
        let mut with_output = args.to_vec();
        with_output.extend(["-o", target.to_str().unwrap()]);
        let out = run(&with_output);
        let expected = run(args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            expected.stdout,
            "{args:?}"
        );
    }
    // Nothing but the outputs is left in the directory: the temporary files were renamed.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), COMMANDS.len(), "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failures_leave_output_and_input_untouched() {
    let dir = scratch_directory("untouched");
    let target = dir.join("out.hlo");
    let input = dir.join("bad.hlo");
    std::fs::copy(BAD, &input).unwrap();
    let before_input = std::fs::read(&input).unwrap();
    std::fs::write(&target, "old contents\n").unwrap();
    let target_arg = target.to_str().unwrap();
    let input_arg = input.to_str().unwrap();
    let mut runs = Vec::new();
    for args in [
        &["fmt", input_arg, "-o", target_arg][..],
        &["fmt", EXAMPLE, input_arg, "-o", target_arg],
        &["assign", input_arg, "-o", target_arg],
        &["opt", input_arg, "--passes", "dce", "-o", target_arg],
        &["stats", input_arg, "-o", target_arg],
        &["dot", input_arg, "-o", target_arg],
        &["diff", EXAMPLE, input_arg, "-o", target_arg],
        &["check", input_arg, "-o", target_arg],
        &["explain", "f32[3,x]", "-o", target_arg],
    ] {
        let out = run(args);
        assert_eq!(out.code, Some(1), "{args:?}");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "old contents\n",
            "{args:?}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), before_input);
        if args[0] == "fmt" && args.len() == 5 {
            runs.push(out);
        }
    }
    // An unwritable OUT is an error, and the directory is left clean.
    let missing = dir.join("no-such-dir").join("out.hlo");
    let out = run(&["fmt", EXAMPLE, "-o", missing.to_str().unwrap()]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("hlo::cli::write"), "{}", out.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["bad.hlo", "out.hlo"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(runs.len(), 1);
    // From inside the directory, so the snapshot names no temporary path.
    let dir = scratch_directory("untouched-relative");
    std::fs::copy(BAD, dir.join("bad.hlo")).unwrap();
    std::fs::copy(EXAMPLE, dir.join("good.hlo")).unwrap();
    std::fs::write(dir.join("out.hlo"), "old contents\n").unwrap();
    let out = hlo_layout(&["fmt", "good.hlo", "bad.hlo", "-o", "out.hlo"])
        .current_dir(&dir)
        .run();
    assert_eq!(
        std::fs::read_to_string(dir.join("out.hlo")).unwrap(),
        "old contents\n"
    );
    snapshot("cli_output_kept_on_failure", &out.transcript());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn interrupted_run_leaves_output_untouched() {
    use std::process::{Command, Stdio};
    let dir = scratch_directory("interrupt");
    let target = dir.join("out.hlo");
    std::fs::write(&target, "old\n").unwrap();
    // `fmt -` waits on stdin, which stays open, until it is interrupted.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hlo-layout"))
        .args(["fmt", "-", "-o", target.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Held open until the process has exited: `wait` would close it, and EOF would race the
    // signal.
    let input = child.stdin.take();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    drop(input);
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
    let entries = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(entries, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn several_files_have_headers_and_go_on_past_failures() {
    snapshot_runs(
        "cli_several_files",
        &[
            run(&["fmt", EXAMPLE, BAD, SLOTS]),
            run(&["stats", EXAMPLE, "missing.hlo", SLOTS]),
            run(&["check", EXAMPLE, BAD, SLOTS]),
            run(&["assign", EXAMPLE, SLOTS, "--report"]),
        ],
    );
    // The output of several files reads back as modules with --split-input-file.
    let out = run(&["fmt", EXAMPLE, SLOTS]);
    let again = hlo_layout(&["fmt", "-", "--split-input-file"])
        .stdin(&out.stdout)
        .run();
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    // OUT holds what standard output shows, headers and all.
    let dir = scratch_directory("several");
    for args in [
        &["stats", EXAMPLE, SLOTS, EXAMPLE][..],
        &["assign", EXAMPLE, SLOTS],
        &["fmt", SLOTS],
    ] {
        let target = dir.join(format!("{}.out", args[0]));
        let mut with_output = args.to_vec();
        with_output.extend(["-o", target.to_str().unwrap()]);
        let written = run(&with_output);
        assert_eq!(written.code, Some(0), "{args:?}: {}", written.stderr);
        let shown = run(args);
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            shown.stdout,
            "{args:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
    // Not a terminal: no progress bar, nothing on stderr.
    let many: Vec<&str> = std::iter::once("check")
        .chain(std::iter::repeat_n(SLOTS, 40))
        .collect();
    let out = run(&many);
    assert_eq!(out.code, Some(0));
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn json_is_one_versioned_document_per_invocation() {
    for args in COMMANDS {
        for failing in [false, true] {
            let mut args: Vec<&str> = args.to_vec();
            if failing {
                match args[0] {
                    "passes" => continue,
                    "explain" => args[1] = "f32[3,x]",
                    _ => args[1] = BAD,
                }
            }
            args.extend(["--format", "json"]);
            let out = run(&args);
            let document: serde_json::Value = serde_json::from_str(&out.stdout)
                .unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", out.stdout));
            assert_eq!(document["version"], 1, "{args:?}");
            assert_eq!(document["command"], args[0], "{args:?}");
            assert_eq!(document["ok"], !failing, "{args:?}");
            assert_eq!(out.code, Some(if failing { 1 } else { 0 }), "{args:?}");
            assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
            if failing {
                let text = out.stdout.as_str();
                assert!(text.contains("\"diagnostics\""), "{args:?}");
                assert!(text.contains("\"code\": \"hlo::"), "{args:?}");
            }
        }
    }
    snapshot_runs(
        "cli_json_diagnostics",
        &[run(&["fmt", BAD, "--format", "json"])],
    );
}

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let has_escape = |run: &Run| run.stderr.contains('\u{1b}');
    // Piped stderr under `auto`: plain.
    assert!(!has_escape(
        &hlo_layout(&["check", BAD]).env_remove("NO_COLOR").run()
    ));
    assert!(has_escape(&run(&["check", BAD, "--color", "always"])));
    assert!(!has_escape(&run(&["check", BAD, "--color", "never"])));
    let forced = hlo_layout(&["check", BAD])
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .run();
    assert!(has_escape(&forced));
    // NO_COLOR wins over CLICOLOR_FORCE under `auto`; an explicit flag wins over both.
    let both = hlo_layout(&["check", BAD]).env("CLICOLOR_FORCE", "1").run();
    assert!(!has_escape(&both));
    let never = hlo_layout(&["check", BAD, "--color", "never"])
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .run();
    assert!(!has_escape(&never));
    // diff colours its lines on stdout when asked.
    let diff = hlo_layout(&["diff", SLOTS, SLOTS_CHANGED, "--color", "always"]).run();
    assert!(
        diff.stdout
            .contains("\u{1b}[32m+ n = f32[] negate(total)\u{1b}[0m"),
        "{}",
        diff.stdout
    );
    assert!(diff.stdout.contains("\u{1b}[33m~ lhs"), "{}", diff.stdout);
    assert!(!run(&["diff", SLOTS, SLOTS_CHANGED])
        .stdout
        .contains('\u{1b}'));
}

#[test]
fn usage_errors_exit_2() {
    let mut runs = Vec::new();
    for args in [
        &["fmt", EXAMPLE, "--bogus"][..],
        &["check"],
        &["assign", EXAMPLE, "--target", "tpu-v9"],
        &["opt", EXAMPLE],
        &["stats", EXAMPLE, "--format", "yaml"],
        &["dot", EXAMPLE, "--depth"],
        &["diff", EXAMPLE],
        &["explain"],
        &["passes", "extra"],
        &["frobnicate"],
        &["fmt", EXAMPLE, "--color", "sometimes"],
    ] {
        let out = run(args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}");
        runs.push(out);
    }
    snapshot_runs("cli_usage_errors", &runs[..3]);
}

/// With `--format json` asked for, a usage error is the run's one JSON document, on stdout,
/// still with exit code 2.
#[test]
fn usage_errors_in_json_are_one_document() {
    for args in [
        &["check", "--format", "json", EXAMPLE, "--bogus"][..],
        &["stats", "--format=json", EXAMPLE, "--depth", "3"],
    ] {
        let out = run(args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
        let document: serde_json::Value =
            serde_json::from_str(&out.stdout).expect("one JSON document");
        assert_eq!(document["version"], 1);
        assert_eq!(document["ok"], false);
        assert_eq!(document["command"], args[0]);
        assert_eq!(document["diagnostics"][0]["code"], "usage");
        assert!(document["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unexpected argument")));
    }
}

#[test]
fn every_command_has_help_with_an_example() {
    for args in COMMANDS {
        let out = run(&[args[0], "--help"]);
        assert_eq!(out.code, Some(0), "{args:?}");
        assert!(
            out.stdout.contains("Example"),
            "{}: {}",
            args[0],
            out.stdout
        );
        assert!(out.stdout.contains("hlo-layout "), "{}", args[0]);
    }
    let top = run(&["--help"]);
    assert!(top
        .stdout
        .contains("Exit codes: 0 success, 1 invalid input"));
    snapshot_runs("cli_help_stats", &[run(&["stats", "--help"])]);
}

#[test]
fn output_is_deterministic() {
    for args in [
        &["stats", SLOTS, "--format", "json"][..],
        &["dot", SLOTS],
        &[
            "diff",
            SLOTS,
            SLOTS_CHANGED,
            "--ignore-names",
            "--format",
            "json",
        ],
        &["assign", EXAMPLE, "--format", "json"],
        &["fmt", SLOTS, "--format", "json"],
    ] {
        let first = run(args);
        for _ in 0..3 {
            assert_eq!(run(args).stdout, first.stdout, "{args:?}");
        }
    }
}

/// The progress bar, on a terminal (util-linux `script` gives the run one): shown once a run
/// over several files takes longer than the delay, and not for a run shorter than it. Skips, saying so, where `script` is missing.
#[cfg(unix)]
#[test]
fn progress_bar_only_on_a_terminal_and_only_after_a_moment() {
    use std::process::{Command, Stdio};
    let binary = env!("CARGO_BIN_EXE_hlo-layout");
    let on_terminal = |delay: Option<&str>| -> Option<String> {
        let mut command = Command::new("script");
        command
            .args(["-qec"])
            .arg(format!(
                "{binary} check {SLOTS} {SLOTS} {SLOTS} > /dev/null"
            ))
            .arg("/dev/null")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        match delay {
            Some(ms) => command.env("HLO_LAYOUT_PROGRESS_DELAY_MS", ms),
            None => command.env_remove("HLO_LAYOUT_PROGRESS_DELAY_MS"),
        };
        let output = command.output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let Some(shown) = on_terminal(Some("0")) else {
        println!("skipping: util-linux `script` is not available to give the run a terminal");
        return;
    };
    assert!(shown.contains("3/3"), "{shown:?}");
    assert!(shown.contains(SLOTS), "{shown:?}");
    // A run shorter than the delay (a minute here; 300 ms by default) shows nothing.
    let quick = on_terminal(Some("60000")).expect("script ran before");
    assert!(!quick.contains("/3"), "{quick:?}");
}
