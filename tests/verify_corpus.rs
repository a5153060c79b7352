//! No false positives: every module of `../shared/corpus` that XLA accepts verifies, and the
//! JAX and large dumps also verify in layout-sensitive mode. Skipped, saying so, where the
//! corpus is absent.

mod common;

use std::path::Path;

use hlo_layout::verify::{verify, VerifyOptions};

/// Files XLA's own parser (jaxlib 0.10.2) rejects: newer syntax.
const XLA_REJECTS: &[&str] = &[
    "topk_logits_k10_1x50000_bf16.hlo",
    "105_",
    "106_",
    "107_",
    "108_",
    "109_",
    "124_",
    "125_",
    "153_",
    "154_",
    "181_",
    "182_",
    "183_",
    "184_",
    "185_",
    "186_",
];

/// Inputs of XLA's text tools that parse but that XLA's verifier rejects too: three pass
/// arrays to scalar parameters, one declares an entry layout of another type. They must be
/// rejected.
const VERIFIER_REJECTS: &[(&str, &str)] = &[
    (
        "generate_hlo_test_checks_test_input.hlo",
        "parameter 0 of computation `foo.bar.baz.0` has shape f32[]",
    ),
    (
        "generate_hlo_test_checks_test_output.hlo",
        "parameter 0 of computation `foo.bar.baz.0` has shape f32[]",
    ),
    (
        "print_indexing_test.hlo",
        "parameter 1 of computation `fused_computation` has shape s32[]",
    ),
    // A translation test whose header gives an f16 parameter an f32 layout; XLA's verifier
    // (`VerifyEntryComputationLayout`) rejects it as this one does.
    (
        "layouts_and_names.hlo",
        "Shape of the entry computation parameter 0 is f16[524,524,524] should be compatible",
    ),
];

/// Verifies each module of a file; returns (modules verified, failures described).
fn verify_file(path: &Path, split: bool, options: VerifyOptions) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let parts = common::module_ranges(&text, split);
    let mut failures = Vec::new();
    let mut verified = 0;
    for range in parts {
        let module = match hlo_layout::parse_module_range(&text, range) {
            Ok(module) => module,
            Err(errors) => {
                failures.push(format!(
                    "{name}: does not lower:\n{}",
                    common::render(name, &text, errors)
                ));
                continue;
            }
        };
        match verify(&module, &options) {
            Ok(()) => verified += 1,
            Err(errors) => {
                let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                failures.push(format!("{name}: messages: {}", messages.join("; ")));
                let mut rendered = common::render(name, &text, errors);
                rendered.truncate(4000);
                failures.push(format!("{name}: rejected:\n{rendered}"));
            }
        }
    }
    (verified, failures)
}

fn verify_folder(folder: &str, split: bool, options: VerifyOptions) -> Option<usize> {
    verify_matching(folder, split, options, "")
}

/// Like [`verify_folder`] for the files whose names end with `suffix`.
fn verify_matching(
    folder: &str,
    split: bool,
    options: VerifyOptions,
    suffix: &str,
) -> Option<usize> {
    let dir = common::corpus_dir(folder)?;
    let mut modules = 0;
    let mut failures = Vec::new();
    for path in common::files(&dir, "hlo") {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if XLA_REJECTS.iter().any(|r| name.starts_with(r)) || !name.ends_with(suffix) {
            continue;
        }
        let (count, file_failures) = verify_file(&path, split, options);
        modules += count;
        match VERIFIER_REJECTS.iter().find(|(n, _)| *n == name) {
            Some((_, says)) => assert!(
                file_failures.iter().any(|f| f.contains(says)),
                "{name} must be rejected, saying {says:?}: {file_failures:?}"
            ),
            None => failures.extend(file_failures),
        }
    }
    assert!(
        failures.is_empty(),
        "{} XLA-valid modules of {folder} are rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Some(modules)
}

const PLAIN: VerifyOptions = VerifyOptions {
    layout_sensitive: false,
};
const LAYOUT: VerifyOptions = VerifyOptions {
    layout_sensitive: true,
};

#[test]
fn jax_modules_verify() {
    if let Some(n) = verify_folder("jax", false, PLAIN) {
        assert_eq!(n, 48);
    }
}

/// Layouts mean something only after layout assignment: the `.pre` dumps are as lowered,
/// where a transpose's `{0,1}` feeds a `{1,0}` multiply, which XLA's layout-sensitive
/// verifier rejects too. The optimized dumps are checked.
#[test]
fn jax_optimized_modules_verify_layout_sensitive() {
    if let Some(n) = verify_matching("jax", false, LAYOUT, ".opt.hlo") {
        assert_eq!(n, 24);
    }
}

#[test]
fn large_modules_verify_in_both_modes() {
    if let Some(n) = verify_folder("large", false, PLAIN) {
        assert_eq!(n, 4);
    }
    if let Some(n) = verify_matching("large", false, LAYOUT, ".opt.hlo") {
        assert_eq!(n, 2);
    }
}

#[test]
fn xla_test_modules_verify() {
    if let Some(n) = verify_folder("xla-tests", true, PLAIN) {
        assert!(n >= 190, "{n}");
    }
}

#[test]
fn xla_parser_test_modules_verify() {
    if let Some(n) = verify_folder("xla-parser-tests", false, PLAIN) {
        assert!(n >= 170, "{n}");
    }
}

/// `check` reads a module one computation at a time, keeping only the signatures of those
/// it has checked (`hlo_layout::check`). Over every module of the corpus, valid or not,
/// that way must agree with parsing the module whole and verifying it whenever it gives a
/// verdict, and it must give one for every module of the JAX and large dumps (else `check`
/// would hold whole modules again).
#[test]
fn checking_one_computation_at_a_time_agrees_with_the_whole_module() {
    let folders = [
        ("jax", false),
        ("large", false),
        ("xla-tests", true),
        ("xla-parser-tests", false),
        ("xla-parser-bad", false),
    ];
    let mut disagreements = Vec::new();
    let (mut verdicts, mut modules) = (0, 0);
    for (folder, split) in folders {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            let parts = common::module_ranges(&text, split);
            for range in parts {
                let whole = hlo_layout::parse_module_range(&text, range.clone())
                    .is_ok_and(|module| verify(&module, &PLAIN).is_ok());
                let streamed = hlo_layout::check::check_computation_by_computation(
                    &text,
                    range.clone(),
                    &PLAIN,
                );
                modules += 1;
                match streamed {
                    Some(verdict) if verdict != whole => disagreements.push(format!(
                        "{folder}/{name} at {range:?}: whole {whole}, one at a time {verdict}"
                    )),
                    Some(_) => verdicts += 1,
                    None if matches!(folder, "jax" | "large") => disagreements.push(format!(
                        "{folder}/{name}: checking one computation at a time gave no verdict"
                    )),
                    None => {}
                }
            }
        }
    }
    println!("{verdicts} of {modules} modules checked one computation at a time");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(verdicts * 10 >= modules * 9, "{verdicts} of {modules}");
}

/// Hand-written modules in `tests/inputs/check/` for what checking each instruction as it
/// is read must get right: the async ops a chain continues keep what its later parts
/// compare, a shape left to infer waits for the computation's end, a control predecessor
/// written below is caught, and the header, taken from the parser at once, is still
/// checked against the entry. Each file's name says what parsing it whole and verifying it
/// gives (`valid_`, `invalid_`), and `fallback_` that checking one computation at a time
/// must give no verdict, leaving the module to that whole path.
#[test]
fn checking_instructions_as_they_are_read_agrees_on_hand_written_modules() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/check");
    let files = common::files(&dir, "hlo");
    assert!(
        files.len() >= 9,
        "{} files in {}",
        files.len(),
        dir.display()
    );
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let whole = hlo_layout::parse_module(&text).is_ok_and(|m| verify(&m, &PLAIN).is_ok());
        let expected = if name.starts_with("valid_") {
            Some(true)
        } else if name.starts_with("invalid_") {
            Some(false)
        } else if name.starts_with("fallback_") {
            None
        } else {
            panic!("{name}: the name must start with valid_, invalid_ or fallback_")
        };
        assert_eq!(whole, expected.unwrap_or(false), "{name}: whole module");
        let streamed =
            hlo_layout::check::check_computation_by_computation(&text, 0..text.len(), &PLAIN);
        assert_eq!(streamed, expected, "{name}: one at a time");
        let checked = hlo_layout::check::check_module_range(&text, 0..text.len(), &PLAIN);
        assert_eq!(checked.is_ok(), whole, "{name}: check_module_range");
    }
}

/// `check_module_range_releasing` tells its callback where the text it has read ends: at
/// offsets that only grow, a [`RELEASE_STEP`](hlo_layout::check::RELEASE_STEP) or more
/// apart within a computation, and at the end of each computation. A module it must read
/// again whole (an invalid one) is still judged on all its text after the callback was told.
#[test]
fn checking_tells_where_the_text_read_ends() {
    use hlo_layout::check::{check_module_range_releasing, RELEASE_STEP};
    use std::sync::Mutex;
    let mut text = String::from("HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p0 = f32[64] parameter(0)\n");
    for i in 1..4000 {
        text.push_str(&format!("  p{i} = f32[64] negate(p{})\n", i - 1));
    }
    text.push_str("  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p3999, z), dimensions={0}, to_apply=add\n}\n");
    let end_of_add = text.find("}\n").map(|at| at + 1);
    let end_of_entry = text.rfind('}').map(|at| at + 1);
    let told = Mutex::new(Vec::new());
    let record = |offset: usize| told.lock().expect("not poisoned").push(offset);
    let verdict = check_module_range_releasing(&text, 0..text.len(), &PLAIN, &record);
    assert!(verdict.is_ok(), "{verdict:?}");
    let told = told.into_inner().expect("not poisoned");
    assert!(told.len() > text.len() / RELEASE_STEP, "{told:?}");
    assert!(told.windows(2).all(|pair| pair[0] < pair[1]), "{told:?}");
    assert_eq!(told.first().copied(), end_of_add, "{told:?}");
    assert_eq!(told.last().copied(), end_of_entry, "{told:?}");
    let within_entry = &told[1..told.len() - 1];
    assert!(
        within_entry
            .windows(2)
            .all(|pair| pair[1] - pair[0] >= RELEASE_STEP),
        "{told:?}"
    );

    // The same module with its root's operand misspelt: every error is still found.
    let invalid = text.replace("reduce(p3999, z)", "reduce(p4000, z)");
    let errors = check_module_range_releasing(&invalid, 0..invalid.len(), &PLAIN, &|_| {})
        .expect_err("an unknown operand is an error");
    assert!(
        errors.iter().any(|e| e.to_string().contains("p4000")),
        "{errors:?}"
    );
}
