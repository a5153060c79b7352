//! `hlo-layout explain`, run as a real process: text, JSON and SVG output and every error path,
//! snapshotted with the exit code. Numbers in the snapshots were checked by hand against
//! docs/tiled-layouts.md §5 and XLA's "Tiled layout" and "Shapes and layout" documents.

mod common;

use std::path::Path;

use common::{hlo_layout, scratch_directory, Run};

fn run_in(directory: Option<&Path>, args: &[&str]) -> Run {
    let mut all = vec!["--color", "never", "explain"];
    all.extend_from_slice(args);
    let invocation = hlo_layout(&all);
    match directory {
        Some(directory) => invocation.current_dir(directory).run(),
        None => invocation.run(),
    }
}

fn run(args: &[&str]) -> Run {
    run_in(None, args)
}

/// Snapshots go to the top-level `snapshots/` directory, named `explain_<name>.snap`.
fn snapshot(name: &str, description: &str, text: &str) {
    let mut settings = common::settings();
    settings.set_description(description);
    settings.bind(|| insta::assert_snapshot!(format!("explain_{name}"), text));
}

/// Runs `explain ARGS` and snapshots its transcript.
fn check(name: &str, args: &[&str]) -> Run {
    let result = run(args);
    snapshot(
        name,
        &format!("hlo-layout explain {}", args.join(" ")),
        &result.transcript(),
    );
    result
}

// ---- text ----

#[test]
fn figure_2_grid_shows_packed_row_pairs() {
    let result = check("figure_2", &["f32[4,8]{1,0:T(2,4)(2,1)}"]);
    assert_eq!(result.code, Some(0));
    for row in [
        "  0 |  0    2    4    6 |  8   10   12   14 |",
        "  1 |  1    3    5    7 |  9   11   13   15 |",
        "  2 | 16   18   20   22 | 24   26   28   30 |",
        "  3 | 17   19   21   23 | 25   27   29   31 |",
    ] {
        assert!(result.stdout.contains(row), "missing grid row {row:?}");
    }
}

#[test]
fn doc_example_element_2_3_is_at_17() {
    let result = check(
        "f32_3x5_index_2_3",
        &["f32[3,5]{1,0:T(2,2)}", "--index", "2,3"],
    );
    assert_eq!(result.code, Some(0));
    assert!(result
        .stdout
        .contains("tile index (1,1), within-tile index (0,1)"));
    assert!(result.stdout.contains("linear index    17, at byte 68"));
    assert!(result.stdout.contains("[17]"));
}

#[test]
fn bf16_figure_2() {
    let result = check("bf16_figure_2", &["bf16[4,8]{1,0:T(2,4)(2,1)}"]);
    assert_eq!(result.code, Some(0));
    assert!(result
        .stdout
        .contains("64 padded, 64 unpadded, 0.0% padding"));
}

#[test]
fn rank_2_non_default_layout_tiles_physical_dims() {
    // The tile's 2 covers x (major in memory) and its 3 covers y; (3,5) is at 33.
    let result = check(
        "f32_4x6_column_major",
        &["f32[4,6]{0,1:T(2,3)}", "--index", "3,5"],
    );
    assert_eq!(result.code, Some(0));
    assert!(result.stdout.contains("linear index    33"));
}

#[test]
fn rank_3_non_default_layout_windows_onto_the_element() {
    let result = check(
        "f32_2x3x130_rank_3",
        &["f32[2,3,130]{0,2,1:T(8,128)}", "--index", "1,2,129"],
    );
    assert_eq!(result.code, Some(0));
    assert!(result.stdout.contains("linear index    51329"));
    assert!(result.stdout.contains("(showing x "));
}

#[test]
fn combined_dims_are_merged_before_tiling() {
    let result = check("combine", &["f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"]);
    assert_eq!(result.code, Some(0));
    assert!(result.stdout.contains("combine *     [112,110]"));
    assert!(result
        .stdout
        .contains("(showing the first 4 of 112 slices over d0,d1,d2)"));
    let json = run(&[
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "--index",
        "1,6,7,10,9",
        "--format",
        "json",
    ]);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["linear_index"], 12430);
    assert_eq!(value["padded_elements"], 12432);
    assert_eq!(value["tiles"], serde_json::json!([["*", "*", 2, "*", 3]]));
}

#[test]
fn rank_0_scalar_in_a_256_element_tile() {
    let result = check("rank_0", &["f32[]{:T(256)}"]);
    assert_eq!(result.code, Some(0));
    assert!(result.stdout.contains("1024 padded, 4 unpadded"));
}

#[test]
fn rank_1_borders_and_padding() {
    let result = check("rank_1", &["f32[10]{0:T(4)}"]);
    assert_eq!(result.code, Some(0));
}

#[test]
fn rank_1_bf16_three_tiles() {
    let result = check(
        "rank_1_bf16_6144",
        &["bf16[6144]{0:T(1024)(128)(2,1)}", "--index", "129"],
    );
    assert_eq!(result.code, Some(0));
    assert!(result.stdout.contains("linear index    3, at byte 6"));
}

#[test]
fn legacy_padding_doc_example() {
    // The shapes document: `a b c / d e f` is laid out as `a d 0 b e 0 c f 0 0 0 0 0 0 0`.
    let result = check(
        "legacy_padding",
        &["f32[2,3]{0,1}", "--padded-dimensions", "3,5"],
    );
    assert_eq!(result.code, Some(0));
    assert!(result
        .stdout
        .contains("   0  (0,0) (1,0) .     (0,1) (1,1) .     (0,2) (1,2)\n   8  .     .     .     .     .     .     .\n"));
}

#[test]
fn huge_arrays_draw_only_a_window() {
    let result = run(&["f32[100000,100000]{1,0:T(8,128)}", "--index", "99999,99999"]);
    assert_eq!(result.code, Some(0), "{}", result.stderr);
    assert!(result.stdout.contains("linear index    10009599903"));
    assert!(result.stdout.lines().count() < 80);
    assert!(result.stdout.lines().all(|line| line.len() <= 120));
}

// ---- JSON ----

#[test]
fn json_has_exactly_the_documented_keys() {
    let result = check(
        "json_index",
        &["f32[3,5]{1,0:T(2,2)}", "--index", "2,3", "--format", "json"],
    );
    assert_eq!(result.code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    let object = value.as_object().unwrap();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "bytes",
            "command",
            "dims",
            "element_type",
            "linear_index",
            "minor_to_major",
            "ok",
            "padded_elements",
            "padding_fraction",
            "physical_dims",
            "shape",
            "tiled_dims",
            "tiles",
            "unpadded_bytes",
            "version",
        ]
    );
    assert_eq!(
        value,
        serde_json::json!({
            "version": 1,
            "command": "explain",
            "ok": true,
            "shape": "f32[3,5]{1,0:T(2,2)}",
            "element_type": "f32",
            "dims": [3, 5],
            "minor_to_major": [1, 0],
            "tiles": [[2, 2]],
            "physical_dims": [3, 5],
            "tiled_dims": [2, 3, 2, 2],
            "padded_elements": 24,
            "bytes": 96,
            "unpadded_bytes": 60,
            "padding_fraction": 0.375,
            "linear_index": 17,
        })
    );
}

#[test]
fn json_without_index_has_a_null_linear_index() {
    let result = run(&[
        "f32[2,3]{0,1}",
        "--padded-dimensions",
        "3,5",
        "--format",
        "json",
    ]);
    assert_eq!(result.code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    assert_eq!(value["linear_index"], serde_json::Value::Null);
    assert_eq!(value["physical_dims"], serde_json::json!([5, 3]));
    assert_eq!(value["tiles"], serde_json::json!([]));
    assert_eq!(value["padding_fraction"], 0.6);
}

// ---- SVG ----

#[test]
fn svg_of_the_figure_1_example() {
    let directory = scratch_directory("svg");
    let args = [
        "f32[3,5]{1,0:T(2,2)}",
        "--index",
        "2,3",
        "--svg",
        "figure.svg",
    ];
    let result = run_in(Some(&directory), &args);
    assert_eq!(result.code, Some(0), "{}", result.stderr);
    assert_eq!(result.stderr, "wrote figure.svg\n");
    assert!(result.stdout.contains("linear index    17"));
    let svg = std::fs::read_to_string(directory.join("figure.svg")).unwrap();
    assert!(svg.starts_with("<svg "));
    assert!(svg.ends_with("</svg>\n"));
    // Padding slots are blank and the element is outlined in both pictures.
    assert_eq!(svg.matches(r##"fill="#ffffff" stroke"##).count(), 9);
    assert_eq!(svg.matches("#d62728").count(), 2);
    snapshot(
        "svg_figure_1",
        "hlo-layout explain 'f32[3,5]{1,0:T(2,2)}' --index 2,3 --svg figure.svg",
        &svg,
    );
    // The temporary file was renamed into place, and a second run writes the same bytes.
    let files: Vec<_> = std::fs::read_dir(&directory).unwrap().collect();
    assert_eq!(files.len(), 1);
    run_in(Some(&directory), &args);
    assert_eq!(
        std::fs::read_to_string(directory.join("figure.svg")).unwrap(),
        svg
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn readme_svg_is_current() {
    let directory = scratch_directory("readme");
    let result = run_in(
        Some(&directory),
        &["f32[3,5]{1,0:T(2,2)}", "--svg", "figure.svg"],
    );
    assert_eq!(result.code, Some(0), "{}", result.stderr);
    let fresh = std::fs::read_to_string(directory.join("figure.svg")).unwrap();
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/explain-f32-3x5-T2x2.svg"
    ))
    .unwrap();
    assert_eq!(
        committed, fresh,
        "regenerate docs/explain-f32-3x5-T2x2.svg with docs/commands.md's command"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn unwritable_svg_path_is_an_error() {
    let directory = scratch_directory("unwritable");
    let result = run_in(
        Some(&directory),
        &["f32[3,5]", "--svg", "no-such-directory/figure.svg"],
    );
    assert_eq!(result.code, Some(1));
    assert!(
        result
            .stderr
            .contains("cannot write no-such-directory/figure.svg:"),
        "{}",
        result.stderr
    );
    assert!(result.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&directory);
}

// ---- errors ----

#[test]
fn bad_layout_points_at_the_character() {
    let result = check("error_bad_layout", &["f32[3,5]{1,0:T(2,x)}"]);
    assert_eq!(result.code, Some(1));
    assert!(result.stdout.is_empty());
}

#[test]
fn index_out_of_range() {
    let result = check(
        "error_index_range",
        &["f32[3,5]{1,0:T(2,2)}", "--index", "2,5"],
    );
    assert_eq!(result.code, Some(1));
    let result = check(
        "error_index_negative",
        &["f32[3,5]{1,0:T(2,2)}", "--index", "-1,0"],
    );
    assert_eq!(result.code, Some(1));
}

#[test]
fn index_of_the_wrong_rank() {
    let result = check(
        "error_index_rank",
        &["f32[3,5]{1,0:T(2,2)}", "--index", "1,2,3"],
    );
    assert_eq!(result.code, Some(1));
    let result = run(&["f32[]", "--index", "0"]);
    assert_eq!(result.code, Some(1));
    assert!(result.stderr.contains("a scalar has no coordinates"));
}

#[test]
fn unbounded_dims_have_no_layout() {
    let result = check("error_unbounded", &["f32[3,<=5,?]{2,1,0}"]);
    assert_eq!(result.code, Some(1));
}

#[test]
fn tuples_are_not_arrays() {
    let result = check("error_tuple", &["(f32[2], s32[])"]);
    assert_eq!(result.code, Some(1));
}

#[test]
fn padded_dimensions_must_fit() {
    let result = check(
        "error_padding_too_small",
        &["f32[2,3]{0,1}", "--padded-dimensions", "3,2"],
    );
    assert_eq!(result.code, Some(1));
    let result = run(&["f32[2,3]{0,1}", "--padded-dimensions", "3"]);
    assert_eq!(result.code, Some(1));
    assert!(result.stderr.contains("--padded-dimensions has 1 entry"));
    let result = run(&[
        "f32[2,3]{0,1}",
        "--padded-dimensions",
        "4000000000,5000000000",
    ]);
    assert_eq!(result.code, Some(1));
    assert!(result.stderr.contains("overflows"));
}

#[test]
fn usage_errors_exit_2() {
    let result = check("error_usage_format", &["f32[3,5]", "--format", "xml"]);
    assert_eq!(result.code, Some(2));
    for args in [
        &["f32[3,5]", "--index", "a"][..],
        &[],
        &["f32[3,5]", "--bogus"],
    ] {
        let result = run(args);
        assert_eq!(result.code, Some(2), "{args:?}: {}", result.stderr);
        assert!(result.stdout.is_empty());
    }
}

#[test]
fn nothing_panics_on_odd_input() {
    for shape in [
        "",
        "f32",
        "f32[",
        "f32[0,128]{1,0:T(8,128)}",
        "f32[1]{0:T(*,1)}",
        "s4[7,9]{0,1:T(2,4)(2,1)E(4)}",
        "pred[3]{0:T(128)L(1024)}",
        "f32[9223372036854775807]",
        "f32[9223372036854775807]{0:T(2)}",
        "token[]",
    ] {
        let result = run(&[shape]);
        assert!(
            matches!(result.code, Some(0 | 1)),
            "{shape}: {}",
            result.stderr
        );
        assert!(
            !result.stderr.contains("panicked"),
            "{shape}: {}",
            result.stderr
        );
        let json = run(&[shape, "--format", "json"]);
        assert!(
            !json.stderr.contains("panicked"),
            "{shape}: {}",
            json.stderr
        );
    }
}
