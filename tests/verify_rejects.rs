//! Every input of `../shared/corpus/xla-parser-bad` is rejected by parsing, lowering or the
//! verifier, without a panic, and the message says in substance what XLA's `.err` says.
//! Skipped, saying so, where the corpus is absent.

mod common;

use hlo_layout::verify::{verify, VerifyOptions};

/// Case number -> a phrase our rendered message must contain (XLA's `.err` in substance).
const PHRASES: &[(&str, &str)] = &[
    ("001", "GTE operand must be a tuple"),
    ("002", "GTE index 2 out of bounds"),
    ("003", "expected integer"),
    ("004", "GTE index -1 out of bounds"),
    ("005", "is not a valid axis name or index"),
    ("006", "out of bounds for mesh"),
    ("007", "device_ids"),
    ("008", "unexpected `}`"),
    ("009", "expects nested array in rank 1, but sees larger"),
    ("010", "expects nested array in rank 2, but sees 1"),
    ("011", "expects 3 elements in dimension 1"),
    ("012", "is out of range for literal's primitive type F16"),
    ("013", "out of range"),
    ("014", "is out of range for literal's primitive type U4"),
    ("015", "is out of range for literal's primitive type U4"),
    ("016", "is out of range for literal's primitive type S4"),
    ("017", "is out of range for literal's primitive type S4"),
    ("018", "is out of range for literal's primitive type U32"),
    ("019", "tries to set NaN payload 0x3ff"),
    ("020", "tries to set NaN payload 0x1"),
    ("021", "tries to set NaN payload 0x1"),
    ("022", "input labels `00` repeat `0`"),
    ("023", "different numbers of spatial dimensions"),
    ("024", "dim labels"),
    ("025", "unexpected attribute \"calls\""),
    ("026", "control predecessor `done` is not defined"),
    ("027", "low_high"),
    (
        "028",
        "is not compatible with that of its root instruction foo, f32[1,2,3]",
    ),
    ("029", "unterminated comment"),
    ("030", "more than one ENTRY"),
    ("031", "`}`"),
    ("032", "expected an integer"),
    ("033", "at the start of a shape index"),
    ("034", "at the end of aliasing description"),
    ("035", "expected an integer"),
    ("036", "expected an integer"),
    ("037", "expected an integer"),
    ("038", "more than one ROOT"),
    ("039", "is defined twice"),
    ("040", "`aparam` does not exist"),
    ("041", "takes at least 1 operand"),
    ("042", "infeed must have a non-empty tuple shape"),
    ("043", "expects '=' in instruction"),
    ("044", "Operand had no shape in HLO text"),
    ("045", "`x` does not exist"),
    ("046", "expects name"),
    ("047", "expects name"),
    ("048", "after the end"),
    ("049", "Expected 2 operand layout constraints, 1 given"),
    ("050", "Operand 1 is not compatible with operand shape"),
    ("051", "Unknown API version"),
    ("052", "Invalid API version"),
    (
        "053",
        "The declared operand shape f32[2,5]{1,0} is not compatible with the shape of the operand instruction f32[2,2]{1,0}",
    ),
    ("054", "parameter number must be >= 0"),
    ("055", "Duplicate parameter number 0"),
    (
        "056",
        "parameter has 2 leaf buffers, but parameter_replication has 3 elements",
    ),
    ("057", "The first operand must be a scalar"),
    ("058", "The first operand must be a scalar of PRED or S32"),
    ("059", "unexpected attribute \"branch_computations\""),
    ("060", "`power` does not exist"),
    ("061", "requires the attribute `dimensions`"),
    ("062", "dim level types"),
    (
        "063",
        "Layout has physical shape, but is not for a sparse array",
    ),
    ("064", "expect the shape to be in the form of ((operand0_shape"),
    ("065", "expect the shape to be in the form of ((operand0_shape"),
    ("066", "expect the shape to be in the form of ((operand0_shape"),
    ("067", "expect the shape to be in the form of ((operand0_shape"),
    (
        "068",
        "expect an asynchronous operation as their first operand",
    ),
    (
        "069",
        "expect an asynchronous operation as their first operand",
    ),
    ("070", "No operand found for AsyncUpdate and AsyncDone"),
    ("071", "No operand found for AsyncUpdate and AsyncDone"),
    (
        "072",
        "Expect async wrapped opcode to be custom-call, but got add",
    ),
    (
        "073",
        "Expect async wrapped opcode to be custom-call, but got add",
    ),
    (
        "074",
        "Computation async_wrapped is called by more than one async op",
    ),
    (
        "075",
        "Expect async_wrapped_computation to be async_wrapped.0, but got async_wrapped.1",
    ),
    (
        "076",
        "Expect async_wrapped_computation to be async_wrapped.0, but got async_wrapped.1",
    ),
    (
        "077",
        "Expect async_execution_thread to be main, but got foo_thread",
    ),
    (
        "078",
        "Expect async_execution_thread to be main, but got foo_thread",
    ),
    ("079", "expects ResultAccuracy type but sees: high"),
    ("080", "expects attribute name"),
    ("081", "invalid attribute name"),
    ("082", "unexpected attribute \"result_accuracy\""),
    ("083", "Unknown opcode: all-reduce-update"),
    ("084", "Unknown opcode: all-reduce-update"),
    ("085", "Unknown opcode: all-gather-update"),
    ("086", "Unknown opcode: collective-permute-update"),
    ("087", "Unknown opcode: copy-update"),
    ("088", "Unknown opcode: send-start"),
    ("089", "Unknown opcode: send-update"),
    ("090", "Unknown opcode: recv-start"),
    ("091", "Unknown opcode: recv-update"),
];

/// Text with runs of whitespace and miette's gutter bars made single spaces, so a phrase
/// matches whatever line wrapping the 80-column rendering did.
fn normalize(text: &str) -> String {
    text.split_whitespace()
        .filter(|word| *word != "│")
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses, lowers and verifies; the rendered errors, or `None` when all accept the text.
fn reject(name: &str, text: &str) -> Option<String> {
    let module = match hlo_layout::parse_module(text) {
        Ok(module) => module,
        Err(errors) => return Some(common::render(name, text, errors)),
    };
    match verify(&module, &VerifyOptions::default()) {
        Ok(()) => None,
        Err(errors) => Some(common::render(name, text, errors)),
    }
}

#[test]
fn every_bad_case_is_rejected_with_xlas_message_in_substance() {
    let Some(dir) = common::corpus_dir("xla-parser-bad") else {
        return;
    };
    let files = common::files(&dir, "hlo");
    assert_eq!(files.len(), 91);
    assert_eq!(PHRASES.len(), 91);
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let number = name.get(..3).unwrap_or("");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some((_, phrase)) = PHRASES.iter().find(|(n, _)| *n == number) else {
            failures.push(format!("{name}: no phrase in the table"));
            continue;
        };
        let result = std::panic::catch_unwind(|| reject(name, &text));
        match result {
            Err(_) => failures.push(format!("{name}: panicked")),
            Ok(None) => failures.push(format!("{name}: accepted")),
            Ok(Some(rendered)) => {
                if !normalize(&rendered).contains(&normalize(phrase)) {
                    failures.push(format!("{name}: should say {phrase:?}:\n{rendered}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 91 cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
