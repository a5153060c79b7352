//! Where diagnostics point, and in which order, as `check` reports them: each names the stage
//! that found it, points at the offending token, and they come in text order (issue 33).
//! Over `../shared/corpus/xla-parser-bad`, the first points where XLA points.

mod common;

use hlo_layout::verify::VerifyOptions;

/// What `check` reports for `text`, rendered as a user sees it.
fn checked(name: &str, text: &str) -> String {
    match hlo_layout::check::check_module_range(text, 0..text.len(), &VerifyOptions::default()) {
        Ok(()) => panic!("{name} checks, but it is meant to be rejected"),
        Err(errors) => common::render(name, text, errors),
    }
}

/// Snapshots what `check` reports for a one-module repro as `diagnostics_<name>`.
fn repro(name: &str, text: &str) {
    common::snapshot(&format!("diagnostics_{name}"), &checked(name, text));
}

/// A type error above a syntax error is reported too, first (XLA: `i32` at 4:7); the syntax
/// error is at the operand it breaks, as XLA reports it (5:22), and at the token.
#[test]
fn type_error_then_syntax_error() {
    repro(
        "type_error_then_syntax_error",
        "HloModule m\n\nENTRY e {\n  p = i32[] parameter(0)\n  ROOT a = s32[] add(p p)\n}\n",
    );
}

/// A token that breaks an operand is reported at the operand, from its shape, where XLA
/// reports an operand it cannot read (5:26), with the token as a second label.
#[test]
fn syntax_error_at_the_operand() {
    repro(
        "syntax_error_in_an_operand",
        "HloModule m\n\nENTRY e {\n  p = (f32[2]) parameter(0)\n  ROOT n = f32[2] negate(f32[2] p#a)\n}\n",
    );
}

/// An unknown opcode (an old name) is lowering's error, at the opcode (XLA: 6:19).
#[test]
fn unknown_opcode_at_the_opcode() {
    repro("unknown_opcode", "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] less-than-or-equal-to(a, b)\n}\n");
}

/// A `frontend_attributes` value outside XLA's grammar is lowering's error, at the attribute
/// (XLA: 5:29).
#[test]
fn frontend_attributes_at_the_attribute() {
    repro("frontend_attributes", "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a), frontend_attributes={x=1}\n}\n");
}

/// A header attribute XLA does not read (a `schedule` naming instructions) is reported at
/// the attribute, before an error below it (XLA: 1:13, the space before it).
#[test]
fn header_attribute_at_the_attribute() {
    repro("header_attribute", "HloModule m, schedule={e={x, y}}\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n  b = s32[] bogus-op(a)\n}\n");
}

/// The verifier's error about the header comes before its errors about the computations,
/// at the header attribute it is about.
#[test]
fn entry_layout_error_before_the_computations() {
    repro("entry_layout_first", "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[3] negate(a)\n}\n");
}

/// An unterminated comment right after a computation's `{` is the one error (XLA: 3:1).
#[test]
fn unterminated_comment_after_an_open_brace() {
    repro(
        "unterminated_comment_first",
        "HloModule m\nENTRY c1 {\n/* unterminated\n  ROOT c = f32[1]{0} constant({1})\n}",
    );
}

/// A literal's element out of the type's range is lowering's error, at the element (XLA:
/// 4:41, the `16`); so is a list one too many in a dimension, at that list.
#[test]
fn literal_errors_at_the_element() {
    repro(
        "literal_out_of_range",
        "HloModule m\n\nENTRY e {\n  ROOT c = u4[2] constant({3, 16})\n}\n",
    );
    repro(
        "literal_too_many_elements",
        "HloModule m\n\nENTRY e {\n  ROOT c = f32[2,1] constant({{1}, {2}, {3}})\n}\n",
    );
}

/// An `input_output_alias` outside its grammar is reported at the token XLA stops at (the
/// `a`), not at the whole attribute.
#[test]
fn header_grammar_at_the_token() {
    repro("input_output_alias_token", "HloModule m, input_output_alias={ {0, a}: (0, {0}) }\n\nENTRY e {\n  ROOT p = (f32[], f32[]) parameter(0)\n}\n");
}

/// An `input_output_alias` whose braces do not balance is reported where XLA's grammar for
/// it stops (XLA: 1:37, the `:`, counting the first line's columns from 0), before the
/// syntax error where the generic reader gives up.
#[test]
fn unbalanced_header_value_where_its_grammar_stops() {
    repro("input_output_alias_unbalanced", "HloModule m, input_output_alias={ {0 : (0, {0}) }\n\nENTRY e {\n  ROOT p = (f32[], f32[]) parameter(0)\n}\n");
}

/// Convolution dim labels XLA's parser refuses are reported at the value, and a window's
/// padding at the `pad` field's value.
#[test]
fn convolution_attributes_at_the_value() {
    repro("dim_labels_value", "HloModule m\n\nENTRY e {\n  a = f32[1,2,1] parameter(0)\n  b = f32[1,1,1] parameter(1)\n  ROOT c = f32[1,2,1] convolution(a, b), window={size=1}, dim_labels=00_01->10\n}\n");
    repro("window_pad_value", "HloModule m\n\nENTRY e {\n  a = f32[1,2,1] parameter(0)\n  b = f32[1,1,1] parameter(1)\n  ROOT c = f32[1,2,1] convolution(a, b), window={size=1 pad=1_1_0}, dim_labels=b0f_0io->b0f\n}\n");
}

/// A second ENTRY is reported at its keyword, and a signature's result shape that the root
/// does not have at that shape (XLA: 5:1 and 3:25 in its tests).
#[test]
fn computation_errors_at_the_keyword_and_the_signature() {
    repro("second_entry", "HloModule m\n\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n");
    repro(
        "signature_result",
        "HloModule m\n\nENTRY e () -> f32[1] {\n  ROOT c = f32[2] constant({1, 2})\n}\n",
    );
}

/// An attribute the opcode does not take is the verifier's error (lowering keeps attributes
/// newer XLA versions add), pointed at the attribute's name as XLA points (5:29).
#[test]
fn unexpected_attribute_at_its_name() {
    repro("unexpected_attribute", "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a), dimensions={0}\n}\n");
}

/// A rule XLA's parser checks once it has read the instruction is reported at the token
/// after it, with the instruction as a second label (XLA: 5:1, the `}`).
#[test]
fn checked_after_the_instruction() {
    repro(
        "after_the_instruction",
        "HloModule m\n\nENTRY e {\n  ROOT r = f32[2] dynamic-reshape()\n}\n",
    );
}

/// An `-update` or `-done` whose operand is no async op is lowering's error, at the token
/// after it (XLA: 7:1, the `}`, and 7:3, the `ROOT`), and comes first: XLA's parser checks
/// the chain as it reads it, and never reaches the tuple above, whose operands do not give
/// the shape it declares (its verifier's error, and ours).
#[test]
fn async_chain_before_a_shape_error_above() {
    repro("async_done_without_start", "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  t = ((f32[2]), f32[2]) tuple(p, p)\n  ROOT d = f32[2] custom-call-done(t)\n}\n");
    repro("async_update_without_start", "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  t = ((f32[2]), f32[2]) tuple(p, p)\n  u = ((f32[2]), f32[2]) custom-call-update(t)\n  ROOT d = f32[2] custom-call-done(u)\n}\n");
}

/// A rule XLA's parser checks once it has read the operands is reported at the token after
/// their `)` (XLA: 11:35, the `,`).
#[test]
fn checked_after_the_operands() {
    repro("after_the_operands", "HloModule m\n\nb0 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\nENTRY e {\n  i = s32[2] parameter(0)\n  a = f32[] parameter(1)\n  ROOT c = f32[] conditional(i, a), branch_computations={b0}\n}\n");
}

/// A fixed operand count is reported at the operands' `(`, where XLA starts counting
/// (XLA: 5:21).
#[test]
fn operand_count_at_the_operand_list() {
    repro(
        "operand_count",
        "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a)\n}\n",
    );
}

/// A `tuple` takes as many operands as its declared shape has elements; XLA's parser counts
/// them against it from the `(` (XLA: 5:34, "expects 2 operands, but has 1 operands").
#[test]
fn tuple_operand_count_at_the_operand_list() {
    repro(
        "tuple_operand_count",
        "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT t = (f32[2], f32[2]) tuple(p)\n}\n",
    );
}

/// A compact tuple-element operand that leads nowhere is reported at the operand, from its
/// shape (XLA: 5:26).
#[test]
fn compact_tuple_element_at_the_operand() {
    repro(
        "compact_tuple_element",
        "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(f32[2] p#0)\n}\n",
    );
}

/// A layout XLA refuses once it has read the shape is reported at the token after the
/// shape, with the shape as a second label (XLA: 4:38, the opcode).
#[test]
fn layout_checked_after_the_shape() {
    repro(
        "physical_shape",
        "HloModule m\n\nENTRY e {\n  ROOT p = f32[4,4]{1,0:P(f32[4,4])} parameter(0)\n}\n",
    );
}

/// A control predecessor that is not defined is reported at the token after its name
/// (XLA: 5:52, the `}`).
#[test]
fn control_predecessor_after_the_name() {
    repro("control_predecessor", "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a), control-predecessors={x}\n}\n");
}

/// A negative parameter number is reported at the token after it (XLA: 4:30, the `)`).
#[test]
fn parameter_number_after_the_number() {
    repro(
        "negative_parameter",
        "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(-1)\n}\n",
    );
}

/// An operand whose declared shape is not its instruction's is reported at the operand,
/// from its shape (XLA: 5:26).
#[test]
fn declared_operand_shape_at_the_operand() {
    repro(
        "declared_operand_shape",
        "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT n = f32[2] negate(f32[3] a)\n}\n",
    );
}

/// A parameter number used twice is reported at the token after the second (XLA: 5:24,
/// the `)`).
#[test]
fn duplicate_parameter_number_after_the_number() {
    repro("duplicate_parameter_number", "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(0)\n  ROOT c = f32[] add(a, b)\n}\n");
}

/// An in-place computation's instruction without `name =` is one error, where the name
/// is expected (XLA: 7:5); an operand written as a shape alone is reported at that shape
/// (XLA: 7:19), and the computation is not also reported empty.
#[test]
fn in_place_computation_where_a_name_is_expected() {
    repro("in_place_without_name", "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply={\n    f32[] add(f32[] x, f32[] y)\n  }\n}\n");
    repro("in_place_operand_without_name", "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply={\n    s = f32[] add(f32[], f32[])\n  }\n}\n");
}

/// Without `HloModule`, XLA reads text that starts `name (` as one instruction and expects
/// its `=` at the `(`: a computation's signature there is refused, and so is an instruction
/// without its name (XLA: 1:2 and 1:8, counting the first line's columns from 0).
#[test]
fn headerless_text_that_starts_with_a_call() {
    repro(
        "headerless_signature",
        "c (p: f32[]) -> f32[] {\n  ROOT p = f32[] parameter(0)\n}\n",
    );
    repro(
        "headerless_call",
        "multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)",
    );
}

/// 1-based line and column of a byte offset, as XLA counts them (bytes).
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

/// The line and column of the character XLA means by `(line, column)`. XLA's parser counts
/// the columns of the first line from 0 and of the others from 1: the same token is at 1:38
/// in `HloModule m, input_output_alias={ {0, a}: ...` and at 2:39 with a blank line above
/// (jaxlib 0.10.2).
fn xla_point((line, column): (usize, usize)) -> (usize, usize) {
    match line {
        1 => (line, column + 1),
        _ => (line, column),
    }
}

/// Where each label of the first diagnostic `check` gives points, first label first.
fn first_diagnostic_points(text: &str) -> Vec<(usize, usize)> {
    use miette::Diagnostic;
    let Err(errors) =
        hlo_layout::check::check_module_range(text, 0..text.len(), &VerifyOptions::default())
    else {
        return Vec::new();
    };
    let Some(first) = errors.first() else {
        return Vec::new();
    };
    first
        .labels()
        .into_iter()
        .flatten()
        .map(|label| line_column(text, label.offset()))
        .collect()
}

/// Where an `.err` file says XLA points: `L:C: error` in the message, or a source line
/// followed by a line holding only a caret, found once in the input.
fn err_location(err: &str, text: &str) -> Option<(usize, usize)> {
    let pattern = regex::Regex::new(r"(\d+):(\d+): error").expect("a valid regex");
    if let Some(found) = pattern.captures(err) {
        return Some(xla_point((found[1].parse().ok()?, found[2].parse().ok()?)));
    }
    let lines: Vec<&str> = err.lines().collect();
    for pair in lines.windows(2) {
        let caret = pair[1];
        if caret.trim_start() == "^" {
            let mut hits = text.lines().enumerate().filter(|(_, l)| *l == pair[0]);
            if let (Some((line, _)), None) = (hits.next(), hits.next()) {
                return Some((line + 1, caret.len()));
            }
        }
    }
    None
}

/// Wherever an `.err` gives XLA's line and column, our first diagnostic points there (with
/// any of its labels: XLA's `.err` for a computation defined twice quotes its note on the
/// first definition, which our first diagnostic labels too).
#[test]
fn first_diagnostic_points_where_xlas_err_does() {
    let Some(dir) = common::corpus_dir("xla-parser-bad") else {
        return;
    };
    let mut located = 0;
    let mut failures = Vec::new();
    for path in common::files(&dir, "hlo") {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let err = std::fs::read_to_string(path.with_extension("err")).unwrap_or_default();
        let Some(expected) = err_location(&err, &text) else {
            continue;
        };
        located += 1;
        let ours = first_diagnostic_points(&text);
        if !ours.contains(&expected) {
            failures.push(format!(
                "{name}: XLA at {expected:?}, our first at {ours:?}"
            ));
        }
    }
    println!("{located} .err files give a location");
    assert!(located >= 3, "only {located} .err files give a location");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How many of XLA's first-error locations (captured with jaxlib 0.10.2 in
/// `tests/inputs/xla_parser_bad_locations.tsv`) our first diagnostic's first label matches;
/// it may grow, never shrink. The verifier's errors that XLA's parser finds point where
/// XLA's parser stands (`verify::Found`), and lowering's at the operand from its shape or
/// past a parameter's number, and a syntax error in an operand at the operand. A broken
/// async chain is lowering's error, as it is XLA's parser's, and so comes before a shape
/// error of the verifier's above it (068 and 069). All 88 agree.
const AGREEING_WITH_XLAS_FIRST_ERROR: usize = 88;

#[test]
fn first_diagnostic_against_xlas_first_error() {
    let Some(dir) = common::corpus_dir("xla-parser-bad") else {
        return;
    };
    let table = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/xla_parser_bad_locations.tsv"
    );
    let table = std::fs::read_to_string(table).expect("the table is in the repository");
    let (mut agree, mut total) = (0, 0);
    let mut differ = Vec::new();
    for row in table.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = row.split('\t').collect();
        let [file, line, column, ..] = fields[..] else {
            panic!("bad row {row:?}");
        };
        let expected = xla_point((
            line.parse().expect("a line number"),
            column.parse().expect("a column"),
        ));
        let text =
            std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        total += 1;
        let ours = first_diagnostic_points(&text);
        if ours.first() == Some(&expected) {
            agree += 1;
        } else {
            differ.push(format!("{file}: XLA {expected:?}, ours {:?}", ours.first()));
        }
    }
    println!(
        "{agree} of {total} agree with XLA's first error; differ:\n{}",
        differ.join("\n")
    );
    assert!(
        agree >= AGREEING_WITH_XLAS_FIRST_ERROR,
        "{agree} of {total} agree, fewer than {AGREEING_WITH_XLAS_FIRST_ERROR}:\n{}",
        differ.join("\n")
    );
}
