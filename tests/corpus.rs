//! Data-driven tests over XLA's own text in `../shared/corpus` (skipped, saying so, where it
//! is absent): every module parses, `fmt` is a fixed point after one round, XLA-printed text
//! prints back byte for byte, and every reject case is rejected without a panic.

mod common;

use std::path::Path;

/// Formats each module of a file (split at `// -----` when `split`); returns how many there
/// were, after checking that the output formats to itself.
fn fmt_fixed_point(path: &Path, split: bool, identical: bool) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parts = common::module_ranges(&text, split);
    for range in &parts {
        let once = hlo_layout::format_module_range(&text, range.clone()).unwrap_or_else(|errors| {
            panic!(
                "{} does not parse:\n{}",
                path.display(),
                common::render("input", &text, errors)
            )
        });
        let twice = hlo_layout::format_module(&once).unwrap_or_else(|errors| {
            panic!(
                "fmt output of {} does not parse:\n{}",
                path.display(),
                common::render("output", &once, errors)
            )
        });
        assert!(
            once == twice,
            "{}: fmt is not a fixed point",
            path.display()
        );
        if identical {
            assert!(
                text.get(range.clone()) == Some(once.as_str()),
                "{}: XLA-printed text does not print back byte for byte",
                path.display()
            );
        }
    }
    parts.len()
}

#[test]
fn jax_and_large_modules_print_back_byte_for_byte() {
    let mut modules = 0;
    for folder in ["jax", "large"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            modules += fmt_fixed_point(&path, false, true);
        }
    }
    assert_eq!(modules, 52, "24 JAX programs pre and opt, 2 large ones");
}

#[test]
fn xla_test_files_parse_split_at_separators() {
    let Some(dir) = common::corpus_dir("xla-tests") else {
        return;
    };
    let files = common::files(&dir, "hlo");
    assert_eq!(files.len(), 150);
    let modules: usize = files
        .iter()
        .map(|path| fmt_fixed_point(path, true, false))
        .sum();
    // 137 single-module files and 13 that hold 70 modules between `// -----` lines.
    assert_eq!(modules, 207);
}

/// Parser round-trip tests whose text XLA does not print back as written: multi-line header
/// attributes, an empty rank-4 literal whose index comments need the shape, and the
/// "nrt" cases (printed as their `.expected`, with layouts added).
const PARSER_TESTS_NOT_IDENTICAL: &[&str] = &[
    "009", "104", "105", "106", "107", "108", "109", "110", "176", "177", "178", "179", "180",
    "181", "182", "183", "184", "185", "186",
];

#[test]
fn xla_parser_tests_print_back_as_xla_does() {
    let Some(dir) = common::corpus_dir("xla-parser-tests") else {
        return;
    };
    let files = common::files(&dir, "hlo");
    assert_eq!(files.len(), 186);
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let identical = !PARSER_TESTS_NOT_IDENTICAL
            .iter()
            .any(|n| name.starts_with(n));
        fmt_fixed_point(&path, false, identical);
    }
}

/// Reject cases whose error is in the syntax or in a shape, which this front end finds, with
/// what our message must say (XLA's `.err` in substance).
const SYNTACTIC: &[(&str, &str)] = &[
    ("003", "expected integer"),           // `%p0#a`: expects integer
    ("008", "unexpected `}`"),             // constant(}...): unexpected '}' token
    ("029", "unterminated comment"),       // /* unterminated
    ("031", "`}`"),                        // `{0 : ...`: expects '}' at the end of ShapeIndex
    ("043", "expects '=' in instruction"), // an instruction without `name =`: expects '='
    ("048", "after the end"),              // two lone instructions: expected eof
    ("062", "dim level types"),            // D(X,C): expected a DimLevelType abbreviation
];

/// Reject cases that read well and mean something invalid: unknown names, operand counts,
/// attribute values, literal ranges, opcodes. They pass the parser; the IR issue (meaning of
/// attributes and opcodes, name resolution, shape checks) rejects them.
const SEMANTIC: &[&str] = &[
    "001", "002", "004", "005", "006", "007", "009", "010", "011", "012", "013", "014", "015",
    "016", "017", "018", "019", "020", "021", "022", "023", "024", "025", "026", "027", "028",
    "030", "032", "033", "034", "035", "036", "037", "038", "039", "040", "041", "042", "044",
    "045", "046", "047", "049", "050", "051", "052", "053", "054", "055", "056", "057", "058",
    "059", "060", "061", "063", "064", "065", "066", "067", "068", "069", "070", "071", "072",
    "073", "074", "075", "076", "077", "078", "079", "080", "081", "082", "083", "084", "085",
    "086", "087", "088", "089", "090", "091",
];

#[test]
fn xla_parser_bad_cases_are_rejected_or_listed_as_semantic() {
    let Some(dir) = common::corpus_dir("xla-parser-bad") else {
        return;
    };
    let files = common::files(&dir, "hlo");
    assert_eq!(files.len(), 91);
    assert_eq!(SYNTACTIC.len() + SEMANTIC.len(), 91);
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let number = name.get(..3).unwrap_or("");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Neither parsing nor printing may panic, whatever the input.
        let result = std::panic::catch_unwind(|| hlo_layout::format_module(&text));
        let result = result.unwrap_or_else(|_| panic!("{name}: panicked"));
        match (SYNTACTIC.iter().find(|(n, _)| *n == number), result) {
            (Some((_, says)), Err(errors)) => {
                let rendered = common::render(name, &text, errors);
                assert!(
                    rendered.contains(says),
                    "{name}: message should say {says:?}:\n{rendered}"
                );
            }
            (Some(_), Ok(_)) => panic!("{name} is syntactically wrong but was accepted"),
            (None, Ok(_)) => assert!(SEMANTIC.contains(&number), "{name} is in neither list"),
            (None, Err(errors)) => panic!(
                "{name} is listed as semantic but the front end rejects it; move it:\n{}",
                common::render(name, &text, errors)
            ),
        }
    }
}

/// The lexer reads most instruction heads whole (`Token::SimpleHead`); the tree, spans
/// included, is the one their parts give, in every corpus module and every small input.
#[test]
fn whole_heads_read_every_module_as_their_parts_do() {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")];
    for folder in [
        "jax",
        "large",
        "xla-tests",
        "xla-parser-tests",
        "xla-parser-bad",
    ] {
        dirs.extend(common::corpus_dir(folder));
    }
    // Without the corpus (the skips say so) only the small inputs are read.
    let (least_modules, least_rejected) = if dirs.len() > 1 { (100, 10) } else { (50, 1) };
    let (mut modules, mut rejected) = (0, 0);
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "hlo") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for range in hlo_layout::syntax::split_modules(&text) {
                let whole = hlo_layout::syntax::parse_module_range(&text, range.clone());
                let by_part = hlo_layout::syntax::parse_module_range_without_whole_heads(
                    &text,
                    range.clone(),
                );
                match (whole, by_part) {
                    (Ok(whole), Ok(by_part)) => {
                        assert!(whole == by_part, "{} at {range:?}", path.display());
                        modules += 1;
                    }
                    (Err(whole), Err(by_part)) => {
                        assert_eq!(whole, by_part, "{} at {range:?}", path.display());
                        rejected += 1;
                    }
                    (whole, by_part) => panic!(
                        "{} at {range:?}: whole heads {:?}, by part {:?}",
                        path.display(),
                        whole.is_ok(),
                        by_part.is_ok()
                    ),
                }
            }
        }
    }
    assert!(
        modules > least_modules && rejected >= least_rejected,
        "{modules} modules, {rejected} rejected"
    );
}

/// The lexer reads plain result shapes, operand name lists and canonical metadata whole, and
/// the happy-path parser (no error recovery) reads text first, for speed; reading token by
/// token with the recovering parser alone must give the same module, printed the same.
#[test]
fn shortcuts_read_every_corpus_module_as_the_token_path_does() {
    let mut modules = 0;
    for folder in ["jax", "large", "xla-tests", "xla-parser-tests"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            for range in hlo_layout::syntax::split_modules(&text) {
                let fast = hlo_layout::syntax::parse_module_range(&text, range.clone());
                let plain =
                    hlo_layout::syntax::parse_module_range_without_shortcuts(&text, range.clone());
                match (fast, plain) {
                    (Ok(fast), Ok(plain)) => {
                        let fast = hlo_layout::print::print_module(&fast).ok();
                        let plain = hlo_layout::print::print_module(&plain).ok();
                        assert_eq!(fast, plain, "{} at {range:?}", path.display());
                        modules += 1;
                    }
                    (Err(fast), Err(plain)) => {
                        let fast: Vec<_> = fast.iter().map(|e| e.to_string()).collect();
                        let plain: Vec<_> = plain.iter().map(|e| e.to_string()).collect();
                        assert_eq!(fast, plain, "{} at {range:?}", path.display());
                    }
                    (fast, plain) => panic!(
                        "{} at {range:?}: with shortcuts {:?}, without {:?}",
                        path.display(),
                        fast.is_ok(),
                        plain.is_ok()
                    ),
                }
            }
        }
    }
    assert!(modules > 400, "only {modules} modules compared");
}
