//! Large modules are parsed in two halves on two threads, cut at a guessed computation
//! boundary. The halves are taken only when each parses on its own, and then the module must
//! be exactly the one a single pass gives: these tests cut small inputs at every line and
//! compare, and parse the corpus both ways. A module without a cut near its middle is cut
//! at an instruction line instead, the text after it read ahead on the second thread, which
//! must give the same again. Large modules are verified on two threads too, and must give
//! the errors one thread gives, in the same order; and printed on two threads, which must
//! give the text one thread gives.

mod common;

use std::path::{Path, PathBuf};

fn inputs() -> Vec<PathBuf> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inputs");
    let mut files = Vec::new();
    for folder in [
        "cut",
        "fmt",
        "bad",
        "regressions",
        "assign",
        "verify",
        "passes",
    ] {
        files.extend(common::files(&Path::new(root).join(folder), "hlo"));
    }
    files
}

/// What a parse gave, comparable: the printed module, or the errors as the user sees them.
fn ir_outcome(result: Result<hlo_layout::ir::Module, Vec<hlo_layout::Error>>) -> String {
    match result {
        Ok(module) => hlo_layout::print::print_ir_module(&module),
        Err(errors) => format!("{errors:#?}"),
    }
}

/// Every line start is tried as the cut, between computations and at instruction lines
/// (the text after it read ahead); returns how many cuts of each kind were taken.
fn every_cut_agrees(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let whole = 0..text.len();
    let one_pass_ir = ir_outcome(hlo_layout::parse_module(&text));
    let mut taken = 0;
    let mut read_ahead = 0;
    let line_starts = text.match_indices('\n').map(|(i, _)| i + 1);
    for cut in line_starts {
        // The cut is the first instruction line at or after this one.
        if let Some(parts) = hlo_layout::parse_module_range_tail_ahead(&text, whole.clone(), cut) {
            read_ahead += 1;
            assert_eq!(
                ir_outcome(parts),
                one_pass_ir,
                "{} cut at the first instruction line from byte {cut}, the rest read ahead",
                path.display()
            );
        }
        // Runs short enough that the body holding the cut is read in many.
        if let Some(parts) =
            hlo_layout::parse_module_range_tail_ahead_in_runs(&text, whole.clone(), cut, 300)
        {
            read_ahead += 1;
            assert_eq!(
                ir_outcome(parts),
                one_pass_ir,
                "{} cut at the first instruction line from byte {cut}, read in runs",
                path.display()
            );
        }
        if let Some(halves) = hlo_layout::parse_module_range_at(&text, whole.clone(), cut) {
            taken += 1;
            assert_eq!(
                ir_outcome(halves),
                one_pass_ir,
                "{} cut at byte {cut}",
                path.display()
            );
        }
    }
    (taken, read_ahead)
}

#[test]
fn two_halves_give_what_one_pass_gives_at_every_cut() {
    let (mut taken, mut read_ahead) = (0, 0);
    for path in inputs() {
        let (halves, ahead) = every_cut_agrees(&path);
        taken += halves;
        read_ahead += ahead;
    }
    // The inputs have many computation boundaries and instruction lines; the test means
    // nothing if none is taken.
    assert!(taken > 50, "only {taken} cuts gave two halves");
    assert!(
        read_ahead > 200,
        "only {read_ahead} cuts read the rest ahead"
    );
}

#[test]
fn tricky_cuts_fall_back_or_agree() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inputs/cut"));
    // A cut inside the string, the comment or the in-place list must not give halves.
    let text = std::fs::read_to_string(dir.join("valid.hlo")).unwrap();
    for inside in ["\n}\n\nfake {", "\n}\n\nghost {", "  }\n}\n  ROOT s"] {
        let at = text.find(inside).unwrap() + inside.find('}').unwrap() + 2;
        let at = at + text[at..].find(|c: char| c != '\n').unwrap();
        assert!(
            hlo_layout::parse_module_range_at(&text, 0..text.len(), at).is_none(),
            "cut at {at} before {:?}",
            &text[at..at + 8]
        );
    }
    // A header or a table in the second half is an error in one pass, and so never halves.
    for name in ["late_table.hlo", "late_header.hlo"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(hlo_layout::parse_module(&text).is_err());
        assert_eq!(every_cut_agrees(&dir.join(name)), (0, 0), "{name}");
    }
    // Names and ENTRYs given in both halves are reported as one pass reports them.
    assert!(every_cut_agrees(&dir.join("duplicates.hlo")).0 > 0);
    // Lines read ahead that lower with an error, write a computation in place or nest an
    // instruction are lowered where they are placed, and report what one pass reports.
    let (_, read_ahead) = every_cut_agrees(&dir.join("lowering_errors_after_the_cut.hlo"));
    assert!(read_ahead >= 20, "{read_ahead}");
    // An instruction line of a computation written in place is no place to cut.
    let nested = text.find("\n    ").unwrap() + 1;
    let from_nested = hlo_layout::syntax::instruction_line_cut(&text, 0..text.len(), nested);
    assert!(from_nested.is_some_and(|cut| cut > nested && !text[cut..].starts_with("   ")));
}

/// The other thread reads the header and tables when the cut is past them: the module is
/// the one a single pass gives, and a preamble that lowers with an error sends the module
/// the long way, which reports it as one pass does.
#[test]
fn the_preamble_read_on_the_other_thread_gives_what_one_pass_gives() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inputs/cut"));
    let text = std::fs::read_to_string(dir.join("preamble.hlo")).unwrap();
    let whole = 0..text.len();
    let one_pass = ir_outcome(hlo_layout::parse_module(&text));
    assert!(hlo_layout::parse_module(&text).is_ok());
    let after_tables = text.find("%max (").unwrap();
    let halves = hlo_layout::parse_module_range_at(&text, whole.clone(), after_tables);
    assert_eq!(
        ir_outcome(halves.expect("halves after the tables are taken")),
        one_pass
    );
    let in_entry = text.find("  %n = ").unwrap();
    let ahead = hlo_layout::parse_module_range_tail_ahead(&text, whole.clone(), in_entry);
    assert_eq!(
        ir_outcome(ahead.expect("the cut in the entry is taken")),
        one_pass
    );
    let (halves, read_ahead) = every_cut_agrees(&dir.join("preamble.hlo"));
    assert!(
        halves >= 2 && read_ahead >= 8,
        "{halves} halves, {read_ahead} read ahead"
    );

    let text = std::fs::read_to_string(dir.join("preamble_error.hlo")).unwrap();
    let errors = hlo_layout::parse_module(&text).expect_err("frame_kind is no field of XLA's");
    assert_eq!(errors.len(), 1);
    let after_tables = text.find("%max (").unwrap();
    assert!(hlo_layout::parse_module_range_at(&text, 0..text.len(), after_tables).is_none());
    let in_entry = text.find("  %n = ").unwrap();
    assert!(hlo_layout::parse_module_range_tail_ahead(&text, 0..text.len(), in_entry).is_none());
    every_cut_agrees(&dir.join("preamble_error.hlo"));
}

/// Every cut the read-ahead looks for in a valid corpus module is one it can take: a cut it
/// gave up on would cost a wasted read of both parts and then a read on one thread. (A cut
/// at a body's first line once was such a cut: the lexer tells the body's `{` from the text
/// after it.)
#[test]
fn every_instruction_line_cut_in_valid_modules_is_taken() {
    let mut tried = 0;
    for folder in ["large", "xla-tests", "jax"] {
        let Some(dir) = common::corpus_dir(folder) else {
            println!("../shared/corpus not found: skipped");
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            for range in hlo_layout::syntax::split_modules(&text) {
                let valid = hlo_layout::parse_module_range_cut(&text, range.clone(), usize::MAX);
                if range.len() < 100_000 || valid.is_err() {
                    continue;
                }
                for tenths in 1..10 {
                    let offset = range.len() / 10 * tenths;
                    let Some(cut) =
                        hlo_layout::syntax::instruction_line_cut(&text, range.clone(), offset)
                    else {
                        continue;
                    };
                    tried += 1;
                    assert!(
                        hlo_layout::parse_module_range_tail_ahead(&text, range.clone(), offset)
                            .is_some(),
                        "{} cut at {cut}: {:?}",
                        path.display(),
                        &text[cut.saturating_sub(40)..cut]
                    );
                }
            }
        }
    }
    assert!(tried > 100, "only {tried} cuts tried");
}

/// A tail of many short lines, sent in many batches, gives the module a single pass gives. A
/// head that does not parse ends the read-ahead, with no module, however much tail is left
/// to send.
#[test]
fn a_long_tail_of_short_lines_agrees_and_a_bad_head_stops_it() {
    let mut text = String::from("HloModule m\n\nENTRY e {\n");
    for i in 0..2_000 {
        text.push_str(&format!("  p{i} = f32[8,128]{{1,0}} parameter({i})\n"));
    }
    let tail = text.len();
    // Lines of 15 bytes; `%` keeps `name=` from being read as an attribute name.
    text.push_str("  %first = () tuple()\n");
    let digits = "0123456789abcdefghijklmnopqrstuvwxyz".as_bytes();
    for first in "hjkqvwyz".chars() {
        for &second in digits {
            for &third in digits {
                let (second, third) = (second as char, third as char);
                text.push_str(&format!("%{first}{second}{third}=()tuple()\n"));
            }
        }
    }
    text.push_str("  ROOT r = () tuple()\n}\n");
    let whole = 0..text.len();
    let one_pass = ir_outcome(hlo_layout::parse_module_range_cut(
        &text,
        whole.clone(),
        usize::MAX,
    ));
    assert!(!one_pass.starts_with('['), "{}", &one_pass[..200]);
    let parts = hlo_layout::parse_module_range_tail_ahead(&text, whole.clone(), tail)
        .expect("both parts parse");
    assert_eq!(ir_outcome(parts), one_pass);
    // The same body, every line indented as XLA prints it, read in runs of about 4 KB:
    // about 50 of them on each thread.
    let text = text.replace("\n%", "\n  %");
    let one_pass = ir_outcome(hlo_layout::parse_module(&text));
    assert!(!one_pass.starts_with('['), "{}", &one_pass[..200]);
    let cut = text.len() / 3;
    let runs = hlo_layout::parse_module_range_tail_ahead_in_runs(&text, 0..text.len(), cut, 4096)
        .expect("every run parses");
    assert_eq!(ir_outcome(runs), one_pass);
    // A line that does not parse, in runs of both threads: every 677 bytes from 40%.
    for step in 0..40 {
        let at = text.len() * 2 / 5 + step * 677;
        let at = at + text[at..].find('\n').unwrap() + 1;
        let mut bad = text.clone();
        bad.insert(at + 4, '(');
        assert!(hlo_layout::parse_module(&bad).is_err());
        assert!(
            hlo_layout::parse_module_range_tail_ahead_in_runs(&bad, 0..bad.len(), cut, 4096)
                .is_none(),
            "a bad line at {at}"
        );
    }

    let bad_head = text.replacen("parameter(0)", "parameter(0", 1);
    let tail = text.find("  %first").unwrap();
    assert!(hlo_layout::parse_module(&bad_head).is_err());
    assert!(
        hlo_layout::parse_module_range_tail_ahead(&bad_head, 0..bad_head.len(), tail).is_none()
    );
}

/// Reading the rest ahead from a cut at a quarter, half and three quarters of the text
/// gives what one pass gives, module or errors, for every small input and every corpus
/// module, whichever way `parse_module_range` would have read it.
#[test]
fn reading_the_rest_ahead_gives_what_one_pass_gives_with_or_without_errors() {
    let mut files = inputs();
    let mut compared_corpus = 0;
    for folder in [
        "large",
        "xla-tests",
        "jax",
        "xla-parser-tests",
        "xla-parser-bad",
    ] {
        if let Some(dir) = common::corpus_dir(folder) {
            let found = common::files(&dir, "hlo");
            compared_corpus += found.len();
            files.extend(found);
        }
    }
    let (mut compared, mut errors) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for range in hlo_layout::syntax::split_modules(&text) {
            let one_pass = ir_outcome(hlo_layout::parse_module_range_cut(
                &text,
                range.clone(),
                usize::MAX,
            ));
            for quarters in 1..4 {
                let offset = range.len() / 4 * quarters;
                let Some(parts) =
                    hlo_layout::parse_module_range_tail_ahead(&text, range.clone(), offset)
                else {
                    continue;
                };
                compared += 1;
                errors += usize::from(parts.is_err());
                assert_eq!(ir_outcome(parts), one_pass, "{}", path.display());
            }
        }
    }
    // Inputs with errors are compared too, not only valid modules. Without the corpus (the
    // note below says so) only the small inputs are cut.
    let (least_cuts, least_errors) = if compared_corpus > 0 {
        (300, 10)
    } else {
        (100, 1)
    };
    assert!(compared > least_cuts, "only {compared} cuts compared");
    assert!(errors >= least_errors, "only {errors} inputs with errors");
    if compared_corpus == 0 {
        println!("../shared/corpus not found: only tests/inputs were compared");
    }
}

#[test]
fn corpus_modules_parse_the_same_in_two_halves() {
    let mut compared = 0;
    for folder in ["large", "xla-tests", "jax"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            for range in hlo_layout::syntax::split_modules(&text) {
                let Some(cut) = hlo_layout::syntax::computation_start_near(
                    &text,
                    range.clone(),
                    range.len() / 2,
                ) else {
                    continue;
                };
                let halves = hlo_layout::parse_module_range_at(&text, range.clone(), cut)
                    .unwrap_or_else(|| panic!("{}: the cut at {cut} was refused", path.display()));
                let one_pass = hlo_layout::parse_module_range_cut(&text, range, usize::MAX);
                assert_eq!(
                    ir_outcome(halves),
                    ir_outcome(one_pass),
                    "{}",
                    path.display()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "only {compared} modules compared");
}

/// The errors of verifying on one thread and on two (every module, however small, is cut).
fn verify_both_ways(module: &hlo_layout::ir::Module) -> (String, String) {
    let options = hlo_layout::verify::VerifyOptions::default();
    let one = hlo_layout::verify::verify_on(module, &options, usize::MAX);
    let two = hlo_layout::verify::verify_on(module, &options, 0);
    (format!("{one:#?}"), format!("{two:#?}"))
}

#[test]
fn verifying_on_two_threads_gives_what_one_gives() {
    let mut with_errors = 0;
    let mut modules = Vec::new();
    for path in inputs() {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Ok(module) = hlo_layout::parse_module(&text) {
            modules.push((path.display().to_string(), module));
        }
    }
    if let Some(dir) = common::corpus_dir("xla-tests") {
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            for range in hlo_layout::syntax::split_modules(&text) {
                if let Ok(module) = hlo_layout::parse_module_range(&text, range) {
                    modules.push((path.display().to_string(), module));
                }
            }
        }
    }
    for (name, module) in &modules {
        let (one, two) = verify_both_ways(module);
        assert_eq!(one, two, "{name}");
        with_errors += usize::from(one.starts_with("Err"));
    }
    // Errors cut across the threads are what the comparison is for.
    assert!(with_errors >= 5, "only {with_errors} modules with errors");
}

/// `syntax::computation_start_near` from the middle, as first written: a plain scan of every
/// three-byte window, forward from the middle and backward from it. The searches it now
/// makes with memchr must find the same cut.
fn cut_point_by_windows(text: &str) -> Option<usize> {
    if text.len() < 2 {
        return None;
    }
    let middle = text.len() / 2;
    let computation_after = |at: usize| {
        let after = at + 3;
        let rest = &text[after..];
        let blank = rest.len() - rest.trim_start_matches(['\n', '\r', ' ', '\t']).len();
        let line_start = rest[..blank].rfind('\n').map_or(0, |n| n + 1);
        let starts = rest[line_start..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'%');
        starts.then_some(after + line_start)
    };
    let bytes = text.as_bytes();
    let closing = |window: &[u8]| window == b"\n}\n";
    let after_middle = (middle..bytes.len().saturating_sub(2))
        .filter(|&at| closing(&bytes[at..at + 3]))
        .find_map(computation_after);
    let before_middle = (0..middle.min(bytes.len().saturating_sub(2)))
        .rev()
        .filter(|&at| closing(&bytes[at..at + 3]))
        .find_map(computation_after);
    [after_middle, before_middle]
        .into_iter()
        .flatten()
        .min_by_key(|cut| cut.abs_diff(middle))
}

mod cut_point_oracle {
    use proptest::prelude::*;

    /// Texts of pieces that make and break `\n}\n` cuts: closing lines, blank lines,
    /// computation starts, and the braces of layouts and attributes.
    fn pieces() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("\n"),
            Just("}"),
            Just("\n}\n"),
            Just("\n}\n\n"),
            Just("%c {"),
            Just("ENTRY e {"),
            Just("_x {"),
            Just("  a = f32[2]{0} add(b, c)"),
            Just(" "),
            Just("\t"),
            Just("{"),
            Just("1"),
            Just("}}"),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn cut_point_finds_what_a_plain_scan_finds(text in pieces()) {
            prop_assert_eq!(
                hlo_layout::syntax::computation_start_near(&text, 0..text.len(), text.len() / 2),
                super::cut_point_by_windows(&text)
            );
        }
    }
}

#[test]
fn cut_point_finds_what_a_plain_scan_finds_over_the_corpus() {
    let mut compared = 0;
    for folder in ["large", "xla-tests", "jax", "xla-parser-tests"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                hlo_layout::syntax::computation_start_near(&text, 0..text.len(), text.len() / 2),
                cut_point_by_windows(&text),
                "{}",
                path.display()
            );
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} files");
}

/// Printing on two threads, each taking whole computations, gives the text one thread
/// gives: for every module of the inputs and the corpus, as parsed and as assigned.
#[test]
fn printing_on_two_threads_gives_what_one_gives() {
    let mut texts = Vec::new();
    for path in inputs() {
        texts.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
    }
    let inputs_only = texts.len();
    for folder in ["xla-tests", "jax", "xla-parser-tests"] {
        if let Some(dir) = common::corpus_dir(folder) {
            for path in common::files(&dir, "hlo") {
                texts.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let target = hlo_layout::ir::Target::default_tpu();
    let (mut compared, mut cut, mut in_place_cut) = (0, 0, 0);
    for (path, text) in &texts {
        for range in hlo_layout::syntax::split_modules(text) {
            let Ok(mut module) = hlo_layout::parse_module_range(text, range) else {
                continue;
            };
            for assigned in [false, true] {
                if assigned && hlo_layout::assign::assign_layouts(&mut module, &target).is_err() {
                    continue;
                }
                let one = hlo_layout::print::print_ir_module_on(&module, usize::MAX);
                let two = hlo_layout::print::print_ir_module_on(&module, 0);
                assert_eq!(one, two, "{} (assigned: {assigned})", path.display());
                compared += 1;
                let sizes = module.computations().iter().map(|c| c.len());
                if hlo_layout::parallel::print_cut(sizes, 0).is_some() {
                    cut += 1;
                    in_place_cut += usize::from(module.computations().iter().any(|c| c.in_place));
                }
            }
        }
    }
    eprintln!("compared {compared} modules; {cut} printed on two threads, {in_place_cut} of them writing computations in place");
    // Modules must be printed on two threads, and in-place printing must cross the cut, for
    // the comparison to mean anything.
    // Without the corpus (its folders say they are skipped) only the small inputs are.
    let least_cut = if texts.len() > inputs_only { 100 } else { 20 };
    assert!(
        cut >= least_cut,
        "only {cut} modules printed on two threads"
    );
    assert!(
        in_place_cut >= 1,
        "no module printed on two threads writes a computation in place"
    );
}
