//! `fmt` and diagnostics on small inputs in `tests/inputs/`: outputs and rendered errors are
//! snapshotted (in `snapshots/`), and hostile inputs must give errors, never a panic or a hang.

mod common;

use proptest::prelude::*;

#[test]
fn fmt_snapshots_and_fixed_point() {
    common::settings().bind(|| {
        insta::glob!("inputs/fmt/*.hlo", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let once = hlo_layout::format_module(&text).unwrap_or_else(|errors| {
                panic!(
                    "{}:\n{}",
                    path.display(),
                    common::render("input", &text, errors)
                )
            });
            assert_eq!(hlo_layout::format_module(&once).as_ref(), Ok(&once));
            insta::assert_snapshot!(once);
        });
    });
}

#[test]
fn diagnostics_snapshots() {
    common::settings().bind(|| {
        insta::glob!("inputs/bad/*.hlo", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("input");
            let errors = hlo_layout::format_module(&text).expect_err("a bad input was accepted");
            insta::assert_snapshot!(common::render(name, &text, errors));
        });
    });
}

#[test]
fn every_syntax_error_in_a_file_is_reported() {
    let text = include_str!("inputs/bad/three_errors.hlo");
    let errors = hlo_layout::format_module(text).unwrap_err();
    let lines: Vec<usize> = errors
        .iter()
        .map(|e| match e {
            hlo_layout::Error::Syntax(s) => text[..s.span().start].matches('\n').count() + 1,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(lines, vec![6, 12, 14]);
}

#[test]
fn split_input_file_parts() {
    let text = "// header comment\nENTRY a {\n  ROOT x = f32[] constant(1)\n}\n// -----\n\n// -----\nENTRY b {\n  ROOT y = f32[] constant(2)\n}\n";
    let parts = hlo_layout::syntax::split_modules(text);
    assert_eq!(parts.len(), 2, "the empty middle part is dropped");
    let second = hlo_layout::format_module_range(text, parts[1].clone()).unwrap();
    assert_eq!(second, "ENTRY b {\n  ROOT y = f32[] constant(2)\n}\n\n");
    // Spans point into the whole file.
    let bad = "ENTRY a {\n  ROOT x = f32[] constant(1)\n}\n// -----\nENTRY b {\n  ROOT y = f32[] constant(2\n}\n";
    let parts = hlo_layout::syntax::split_modules(bad);
    let errors = hlo_layout::syntax::parse_module_range(bad, parts[1].clone()).unwrap_err();
    assert_eq!(&bad[errors[0].span().range()], "}");
    assert!(errors[0].span().start > parts[1].start);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for (open, close) in [("(", ")"), ("{", "}"), ("[", "]")] {
        let text = format!(
            "ENTRY e {{\n  ROOT c = f32[] constant({}1{})\n}}\n",
            open.repeat(100_000),
            close.repeat(100_000)
        );
        let errors = hlo_layout::format_module(&text).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.to_string().contains("nested too deeply")),
            "{open}: {errors:?}"
        );
    }
    // Deep but within the limit: accepted, and printed back.
    let text = format!(
        "ENTRY e {{\n  ROOT c = f32[] custom-call(), custom_call_target=\"x\", foo={}1{}\n}}\n",
        "{".repeat(200),
        "}".repeat(200)
    );
    assert!(hlo_layout::format_module(&text).is_ok());
}

#[test]
fn long_runs_of_errors_stay_linear() {
    // One bad line repeated: every line is reported, in a time that grows with the input.
    let text = "ENTRY e {\n".to_string() + &"  x = f32[] add(a b)\n".repeat(20_000) + "}\n";
    let start = std::time::Instant::now();
    let errors = hlo_layout::format_module(&text).unwrap_err();
    assert_eq!(errors.len(), 20_000);
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

/// Pieces of HLO text, to build hostile inputs from.
const PIECES: &[&str] = &[
    "HloModule m",
    "ENTRY",
    "ROOT",
    "%x",
    "x",
    " = ",
    "f32[2]",
    "{1,0}",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    "->",
    "<=",
    "...",
    "add(",
    "backend_config=",
    "frontend_attributes=",
    "metadata={op_name=\"a\"}",
    "\"s\\\"",
    "/*",
    "*/",
    "//",
    "\n",
    "1_1x0_0",
    "3x3",
    "b01f_01io->b01f",
    "-inf",
    "nan(0x1)",
    "#",
    "?",
    "@",
    "é",
    "0",
    "-1",
    "99999999999999999999",
    "T(8,128)",
    "FileNames",
    "1 {a=1}",
    "// -----\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn no_input_panics(pieces in proptest::collection::vec(0..PIECES.len(), 0..60)) {
        let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
        for range in hlo_layout::syntax::split_modules(&text) {
            if let Ok(once) = hlo_layout::format_module_range(&text, range) {
                // Whatever is accepted prints to a fixed point.
                let twice = hlo_layout::format_module(&once);
                prop_assert_eq!(twice.as_ref(), Ok(&once));
            }
        }
    }

    #[test]
    fn no_byte_string_panics(text in "\\PC{0,200}") {
        let _ = hlo_layout::format_module(&text);
    }
}

#[test]
fn many_unbalanced_raw_blobs_stay_linear() {
    let text = "ENTRY e {\n".to_string()
        // Each blob's `{` is never closed (the `]` keeps the nesting depth flat), so a scan
        // for its end runs to the end of the input.
        + &"  x = f32[] constant(0), backend_config={\"a\": 1]\n".repeat(50_000)
        + "}\n";
    let start = std::time::Instant::now();
    assert!(hlo_layout::format_module(&text).is_err());
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

/// Found by fuzzing (module target): fmt of a spaced tuple was not a fixed point.
#[test]
fn fmt_of_a_tuple_in_spaced_fields_is_a_fixed_point() {
    let text = common::regression_input("spaced_tuple_index_comment.hlo");
    let once = hlo_layout::format_module(&text).unwrap();
    assert!(!once.contains("/*index="), "{once}");
    assert_eq!(hlo_layout::format_module(&once).unwrap(), once);
}

/// Result shapes the lexer reads whole are lowered from their text; when that fails, the
/// diagnostics must be those of the token-by-token path.
#[test]
fn whole_read_shapes_report_errors_as_the_token_path_does() {
    let shapes = [
        "f32[2,3]{1,0}",
        "f32[2,3]",
        "f32[]",
        "f32[2,3]{0,0}",
        "f32[2,3]{2,0}",
        "f32[2,3]{0}",
        "f32[99999999999999999999]",
        "f32[2]{99999999999999999999}",
        "f32[4294967296,4294967296,4294967296]{2,1,0}",
        "token[2]",
        "opaque[]{}",
        "foo[2]{0}",
        "s4[3,5]{0,1}",
    ];
    for shape in shapes {
        let text = format!("ENTRY e {{\n  ROOT p = {shape} parameter(0)\n}}\n");
        let range = 0..text.len();
        let fast = hlo_layout::syntax::parse_module_range(&text, range.clone()).unwrap();
        let plain = hlo_layout::syntax::parse_module_range_without_shortcuts(&text, range).unwrap();
        let render = |result: Result<String, Vec<hlo_layout::lower::LowerError>>| {
            result.map_err(|errors| common::render("input", &text, errors))
        };
        assert_eq!(
            render(hlo_layout::print::print_module(&fast)),
            render(hlo_layout::print::print_module(&plain)),
            "{shape}"
        );
    }
}

/// Found by fuzzing (module target): a word glued to the punctuation after it lexed as
/// another token (`an->` is the word `an-` and `>`), so fmt's output did not read back.
#[test]
fn fmt_keeps_a_space_where_gluing_would_change_the_tokens() {
    let text = common::regression_input("word_before_arrow.hlo");
    let once = hlo_layout::format_module(&text).unwrap();
    for spaced in ["an ->", "%n ...", "1 ...", "b :"] {
        assert!(once.contains(spaced), "{spaced} in {once}");
    }
    assert_eq!(hlo_layout::format_module(&once).unwrap(), once);
}

/// Found by fuzzing (module target): items of a list in a space-separated value printed with a
/// space before each, which reads back as one item that prints differently.
#[test]
fn fmt_of_a_list_in_spaced_fields_is_a_fixed_point() {
    let text = common::regression_input("spaced_list_items.hlo");
    let once = hlo_layout::format_module(&text).unwrap();
    assert!(once.contains("w[4 2=6 24]"), "{once}");
    assert_eq!(hlo_layout::format_module(&once).unwrap(), once);
}

/// Found by a fidelity sweep against XLA: a constant's lone word inside an in-place called
/// computation (`constant(inf)`, `constant(true)`) is a literal, not an operand name.
#[test]
fn constant_words_inside_an_in_place_computation_are_literals() {
    let text = common::regression_input("nested_constant_words.hlo");
    let module = hlo_layout::parse_module(&text)
        .unwrap_or_else(|errors| panic!("{}", common::render("nested", &text, errors)));
    hlo_layout::verify::verify(&module, &Default::default()).expect("verifies");
    let once = hlo_layout::format_module(&text).unwrap();
    for literal in ["constant(inf)", "constant(true)", "constant(false)"] {
        assert!(once.contains(literal), "{literal} in {once}");
    }
    assert_eq!(hlo_layout::format_module(&once).unwrap(), once);
    // A name that is not defined in the in-place computation is still an error.
    let unknown = text.replace("select(yes, sum, big)", "select(yes, sum, nothing)");
    let errors = hlo_layout::parse_module(&unknown).expect_err("unknown operand");
    assert!(
        errors[0].to_string().contains("`nothing` does not exist"),
        "{errors:?}"
    );
}

/// The regression input without its leading comment lines, which `fmt` drops.
fn without_leading_comments(text: &str) -> String {
    text.lines()
        .skip_while(|line| line.starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Found by a fidelity sweep against XLA: its canonical print writes every called computation
/// in place (`calls=\n  { ... }`), and XLA reads each as a computation of its own. They were
/// kept as attribute text, so a fusion, call, while or conditional written that way did not
/// verify ("requires the attribute `calls`"), and in-place bodies were neither verified nor
/// assigned layouts.
#[test]
fn in_place_computations_are_computations_of_their_own() {
    let text = common::regression_input("in_place_computations.hlo");
    let module = hlo_layout::parse_module(&text)
        .unwrap_or_else(|errors| panic!("{}", common::render("in_place", &text, errors)));
    hlo_layout::verify::verify(&module, &Default::default()).expect("verifies");
    let attribute = |computation: &str, instruction: &str, name: &str| -> String {
        let computation = module.computation(module.find_computation(computation).unwrap());
        let id = computation.find(instruction).unwrap();
        computation
            .instruction(id)
            .attribute(name)
            .unwrap()
            .to_string()
    };
    // XLA's names for them, read off XLA's default print of this file.
    assert_eq!(attribute("b1", "tmp_1", "calls"), "_");
    assert_eq!(
        attribute("f1", "tmp_2", "branch_computations"),
        "{_.2, _.3}"
    );
    assert_eq!(attribute("f1", "tmp_3", "condition"), "_.4");
    assert_eq!(attribute("f1", "tmp_3", "body"), "_.5");
    assert_eq!(attribute("e", "tmp_2", "to_apply"), "_.6");
    assert_eq!(attribute("e", "tmp_3", "called_computations"), "{_.7, _.8}");
    assert_eq!(attribute("e", "tmp_4", "to_apply"), "_.14");
    let outer = module.computation(module.find_computation("_.14").unwrap());
    assert!(outer.in_place);
    assert_eq!(outer.len(), 4);
    // The entry's call resolves to it.
    let entry = module.computation(module.find_computation("e").unwrap());
    let call = entry.instruction(entry.find("tmp_4").unwrap());
    assert_eq!(call.called, vec![module.find_computation("_.14").unwrap()]);

    // XLA's layout comes back byte for byte, from the syntax tree and from the IR alike.
    let xla_printed = without_leading_comments(&text);
    assert_eq!(hlo_layout::format_module(&text).unwrap(), xla_printed);
    assert_eq!(hlo_layout::print::print_ir_module(&module), xla_printed);
}

/// An in-place computation takes the first of `_`, `_.1`, ... that no computation of the
/// module has, wherever that computation is defined.
#[test]
fn in_place_names_skip_names_the_module_uses() {
    let text = "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n  \
                ROOT c = f32[] call(p), to_apply=\n  {\n    ROOT q = f32[] parameter(0)\n  }\n}\n\n\
                _ {\n  ROOT q = f32[] parameter(0)\n}\n";
    let module = hlo_layout::parse_module(text)
        .unwrap_or_else(|errors| panic!("{}", common::render("names", text, errors)));
    let entry = module.computation(module.entry);
    let call = entry.instruction(entry.find("c").unwrap());
    assert_eq!(call.attribute("to_apply"), Some("_.1"));
    assert!(module.computation(call.called[0]).in_place);
    assert!(
        !module
            .computation(module.find_computation("_").unwrap())
            .in_place
    );
}

/// The verifier sees in-place computations: a wrong shape in one is reported there.
#[test]
fn in_place_computations_are_verified() {
    let text = "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  \
                z = f32[] constant(0)\n  \
                ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=\n  {\n    \
                x = f32[] parameter(0)\n    y = f32[] parameter(1)\n    \
                ROOT s = s32[] add(x, y)\n  }\n}\n";
    let module = hlo_layout::parse_module(text)
        .unwrap_or_else(|errors| panic!("{}", common::render("verified", text, errors)));
    let errors = hlo_layout::verify::verify(&module, &Default::default()).expect_err("bad add");
    let message = errors[0].to_string();
    assert!(
        message.contains("s32[]") && message.contains("`_`"),
        "{message}"
    );
}

/// Found while testing in-place computations: XLA's parser takes each attribute once
/// ("attribute to_apply already exists"), and reads a `{` after `to_apply=` as an in-place
/// computation, so `to_apply={}` or `to_apply={%add}` is an error ("expects name").
#[test]
fn xlas_attribute_rules_are_kept() {
    let module = |instruction: &str| {
        format!(
            "HloModule m\n\nadd {{\n  x = f32[] parameter(0)\n  ROOT s = f32[] negate(x)\n}}\n\n\
             ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] {instruction}\n}}\n"
        )
    };
    let first_error = |instruction: &str| {
        let text = module(instruction);
        match hlo_layout::parse_module(&text) {
            Ok(_) => String::from("accepted"),
            Err(errors) => errors[0].to_string(),
        }
    };
    assert_eq!(first_error("call(p), to_apply=add"), "accepted");
    assert_eq!(first_error("call(p), to_apply=%add"), "accepted");
    assert_eq!(
        first_error("call(p), to_apply=add, to_apply=add"),
        "attribute to_apply already exists"
    );
    assert_eq!(
        first_error("negate(p), metadata={op_name=\"a\"}, metadata={}"),
        "attribute metadata already exists"
    );
    for value in ["{}", "{add}", "{%add}"] {
        let message = first_error(&format!("call(p), to_apply={value}"));
        assert!(message.starts_with("expects name"), "{value}: {message}");
    }
    // A list of computations stays a list where the attribute takes one.
    let text = module("custom-call(p), custom_call_target=\"f\", called_computations={}");
    hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{e:?}"));
}

/// Found by fuzzing (module target): a word juxtaposed with an item starting with `=` in a
/// space-separated value printed as `integ =6`, which did not read back.
#[test]
fn a_word_before_an_equals_item_keeps_its_comma() {
    let text = common::regression_input("spaced_word_equals.hlo");
    let once = hlo_layout::format_module(&text)
        .unwrap_or_else(|errors| panic!("{}", common::render("input", &text, errors)));
    let twice = hlo_layout::format_module(&once)
        .unwrap_or_else(|errors| panic!("{}", common::render("fmt output", &once, errors)));
    assert_eq!(twice, once);
    assert!(once.contains("x=f32[4, 2 integ, =6, 24]"), "{once}");
    assert!(once.contains("metadata={a, =6}"), "{once}");
    // Values without the clash keep XLA's spaces.
    assert!(
        once.contains("metadata={op_name=\"x\" source_line=3}"),
        "{once}"
    );
}

/// Lowering gives instructions written with the same shape text one shared shape, and only
/// those: a shape that differs in any layout detail, or that the text leaves to the default
/// layout, is its own. Editing a shared shape through `Arc::make_mut` leaves the others as
/// they were.
#[test]
fn instructions_with_the_same_shape_text_share_one_shape() {
    use std::sync::Arc;
    let text = "HloModule m\n\nENTRY e {\n  \
        p = f32[8,128]{1,0:T(8,128)} parameter(0)\n  \
        a = f32[8,128]{1,0:T(8,128)} negate(p)\n  \
        b = f32[8,128]{1,0:T(8,128)(2,1)} negate(a)\n  \
        c = f32[8,128]{1,0} negate(b)\n  \
        d = f32[8,128] negate(c)\n  \
        e = f32[8,128]{0,1} negate(d)\n  \
        ROOT f = f32[8,128]{1,0:T(8,128)} negate(e)\n}\n";
    let mut module = hlo_layout::parse_module(text).expect("parses");
    let entry = module.entry();
    let shape = |name: &str| Arc::clone(&entry.instruction(entry.find(name).unwrap()).shape);
    assert!(Arc::ptr_eq(&shape("p"), &shape("a")));
    assert!(Arc::ptr_eq(&shape("p"), &shape("f")));
    for other in ["b", "c", "d", "e"] {
        assert!(!Arc::ptr_eq(&shape("p"), &shape(other)), "{other}");
    }
    let printed: Vec<String> = ["p", "b", "c", "d", "e"]
        .iter()
        .map(|name| shape(name).to_string())
        .collect();
    assert_eq!(
        printed,
        [
            "f32[8,128]{1,0:T(8,128)}",
            "f32[8,128]{1,0:T(8,128)(2,1)}",
            "f32[8,128]{1,0}",
            "f32[8,128]{1,0}",
            "f32[8,128]{0,1}",
        ]
    );
    let entry = module.computation_mut(module.entry);
    let a = entry.find("a").unwrap();
    if let hlo_layout::ir::Shape::Array(array) = Arc::make_mut(&mut entry.instruction_mut(a).shape)
    {
        array.layout = Some(hlo_layout::ir::Layout::descending(2));
    }
    let entry = module.entry();
    assert_eq!(entry.instruction(a).shape.to_string(), "f32[8,128]{1,0}");
    assert_eq!(shape_of(entry, "p"), "f32[8,128]{1,0:T(8,128)}");
    assert_eq!(shape_of(entry, "f"), "f32[8,128]{1,0:T(8,128)}");
}

fn shape_of(computation: &hlo_layout::ir::Computation, name: &str) -> String {
    computation
        .instruction(computation.find(name).unwrap())
        .shape
        .to_string()
}

/// Found by the fidelity run: XLA reads an instruction's operands when it reads the
/// instruction, so an operand must be defined above its user ("instruction does not exist"
/// otherwise). An operand above is checked against its declared shape; one defined below, the
/// instruction itself, or an unknown name is an error pointing at the use, from its shape
/// when that is written (and at the definition when there is one); errors come in text order
/// whichever way they were found.
#[test]
fn operands_must_be_defined_above_their_user() {
    let text = "HloModule m\n\nENTRY e {\n  \
        a = f32[2] parameter(0)\n  \
        b = f32[2] add(f32[3] a, later)\n  \
        c = f32[2] add(f32[2] a, c)\n  \
        d = f32[2] add(missing, b)\n  \
        later = f32[2] negate(a)\n  \
        ROOT t = (f32[2], f32[2], f32[2]) tuple(later, c, d)\n}\n";
    let errors: Vec<(Vec<usize>, String)> = hlo_layout::parse_module(text)
        .expect_err("the module has errors")
        .iter()
        .map(|error| {
            use miette::Diagnostic;
            let labels = error
                .labels()
                .map(|labels| labels.map(|l| l.offset()).collect())
                .unwrap_or_default();
            (labels, error.to_string())
        })
        .collect();
    let at = |needle: &str| text.find(needle).unwrap();
    let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(errors.len(), 4, "{messages:#?}");
    // At the operand from its shape, where XLA points.
    assert_eq!(errors[0].0, [at("f32[3] a")], "{messages:#?}");
    assert!(
        errors[0].1.contains("declared operand shape f32[3]"),
        "{messages:#?}"
    );
    assert_eq!(
        errors[1].0,
        [at("later)\n  c"), at("later = ")],
        "{messages:#?}"
    );
    assert_eq!(
        errors[1].1,
        "instruction `later` is used before its definition in computation `e`"
    );
    assert_eq!(errors[2].0, [at("c)\n  d"), at("c = ")], "{messages:#?}");
    assert_eq!(
        errors[2].1,
        "instruction `c` is used before its definition in computation `e`"
    );
    assert_eq!(errors[3].0, [at("missing")], "{messages:#?}");
    assert!(
        errors[3].1.contains("`missing` does not exist"),
        "{messages:#?}"
    );

    // With every operand above its user, no cycle can be written.
    let cyclic = "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  \
        b = f32[] add(a, c)\n  c = f32[] negate(b)\n  ROOT r = f32[] add(c, a)\n}\n";
    assert_eq!(
        lowering_errors(cyclic),
        ["instruction `c` is used before its definition in computation `e`"]
    );

    let fine = "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  \
        later = f32[2] negate(a)\n  s = f32[2] subtract(later, a)\n  \
        ROOT r = f32[2] subtract(a, s)\n}\n";
    let module = hlo_layout::parse_module(fine).unwrap_or_else(|e| panic!("{e:?}"));
    let entry = module.entry();
    let names = |user: &str| -> Vec<String> {
        entry
            .operands(entry.find(user).unwrap())
            .into_iter()
            .map(|id| entry.instruction(id).name().to_string())
            .collect()
    };
    assert_eq!(names("s"), ["later", "a"]);
    assert_eq!(names("r"), ["a", "s"]);
}

/// The messages of the errors lowering `text` gives; it must give some.
fn lowering_errors(text: &str) -> Vec<String> {
    let errors = hlo_layout::parse_module(text).expect_err("the text has errors");
    errors.iter().map(|e| e.to_string()).collect()
}

/// Found by the fidelity run: XLA reads computations in text order, so a computation is
/// called only below its definition, and never by itself.
#[test]
fn computations_must_be_defined_above_their_callers() {
    let later = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  \
        ROOT q = f32[4] call(p), to_apply=c\n}\n\nc {\n  ROOT a = f32[4] parameter(0)\n}\n";
    assert_eq!(
        lowering_errors(later),
        ["computation `c` is called before its definition"]
    );

    let itself = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  \
        ROOT q = f32[4] call(p), to_apply=e\n}\n";
    let errors = hlo_layout::parse_module(itself).expect_err("recursion");
    assert!(errors[0].to_string().contains("calls itself"), "{errors:?}");

    // Written in place, a computation is defined where it is written, before its caller;
    // it may call computations defined above the caller.
    let in_place = "HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  \
        ROOT s = f32[] add(x, y)\n}\n\nENTRY e {\n  p = f32[4] parameter(0)\n  \
        ROOT q = f32[4] call(p), to_apply=\n  {\n    a = f32[4] parameter(0)\n    \
        ROOT r = f32[] reduce(a, f32[] constant(0)), dimensions={0}, to_apply=add\n  }\n}\n";
    if let Err(errors) = hlo_layout::parse_module(in_place) {
        panic!("{errors:?}");
    }
}

/// Found by the fidelity run: the signature's shapes are read as shapes, so a bad element
/// type there is an error for `check` as it is for `fmt` (and for XLA).
#[test]
fn a_bad_shape_in_a_signature_is_an_error() {
    for signature in ["(p: f320[4]) -> f32[4]", "(p: f32[4]) -> f320[4]"] {
        let text = format!(
            "HloModule m\n\nENTRY %e {signature} {{\n  %p = f32[4]{{0}} parameter(0)\n  \
             ROOT %n = f32[4]{{0}} negate(%p)\n}}\n"
        );
        let errors = hlo_layout::parse_module(&text).expect_err(signature);
        assert!(
            errors[0]
                .to_string()
                .contains("unknown element type `f320`"),
            "{signature}: {errors:?}"
        );
    }
}

/// Found by the fidelity run: XLA's lexer reads keywords and element type names as such, so
/// written bare they name nothing ("expects name"); `%` makes a keyword a name, never an
/// element type's name.
#[test]
fn keywords_and_element_types_are_not_names() {
    let module = |name: &str| {
        format!("HloModule m\n\nENTRY e {{\n  {name} = f32[] parameter(0)\n  ROOT r = f32[] negate({name})\n}}\n")
    };
    for (name, expected) in [
        ("inf", Some("expects name: `inf` is a keyword")),
        ("true", Some("expects name: `true` is a keyword")),
        (
            "replicated",
            Some("expects name: `replicated` is a keyword"),
        ),
        ("pred", Some("illegal instruction name: pred")),
        ("%pred", Some("illegal instruction name: pred")),
        ("s2", Some("illegal instruction name: s2")),
        ("%inf", None),
        ("mesh", None),
        ("infinity", None),
        ("last_tile_dims", None),
    ] {
        let result = hlo_layout::parse_module(&module(name));
        match (expected, result) {
            (None, Ok(_)) => {}
            (Some(expected), Err(errors)) => {
                assert!(
                    errors[0].to_string().contains(expected),
                    "{name}: {errors:?}"
                )
            }
            (expected, result) => panic!("{name}: expected {expected:?}, got {result:?}"),
        }
    }
}

/// Found by the fidelity run: an instruction whose shape does not lower is left out, and its
/// errors are all that is reported: not an empty computation, not its uses.
#[test]
fn a_bad_shape_reports_once() {
    for text in [
        "HloModule m\n\nENTRY e {\n  ROOT c = f32[2,3]{0,0} parameter(0)\n}\n",
        "HloModule m\n\nENTRY e {\n  a = f32[2]{1} parameter(0)\n  ROOT b = f32[2]{0} negate(a)\n}\n",
    ] {
        let errors = hlo_layout::parse_module(text).expect_err("a bad layout");
        let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert!(
            messages.iter().all(|m| m.contains("minor_to_major")),
            "{messages:#?}"
        );
    }
}

/// Found by the fidelity run's mutants: XLA reads the four stack-frame tables only all
/// together and in order, and each row of the last two with exactly its fields, each once.
#[test]
fn stack_frame_tables_read_as_xla_reads_them() {
    let files = "FileNames\n1 \"a.py\"\n\n";
    let functions = "FunctionNames\n1 \"f\"\n\n";
    let locations = "FileLocations\n1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=5}\n\n";
    let frames = "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n";
    let module = |tables: String| {
        format!("HloModule m\n\n{tables}ENTRY e {{\n  ROOT c = f32[] constant(1)\n}}\n")
    };
    let all = format!("{files}{functions}{locations}{frames}");
    for (tables, expected) in [
        (all.clone(), None),
        (
            "FileNames\n\nFunctionNames\n\nFileLocations\n\nStackFrames\n\n".to_string(),
            None,
        ),
        (
            all.replacen(" line=10", "", 1),
            Some("sub-attribute line is expected but not seen"),
        ),
        (
            format!("{files}{functions}{locations}"),
            Some("expects 'StackFrames'"),
        ),
        (
            format!("{functions}{files}{locations}{frames}"),
            Some("expects 'FileNames'"),
        ),
        (
            all.replace("line=10 ", "line=10 bogus=1 "),
            Some("unexpected attribute \"bogus\" in FileLocations"),
        ),
        (
            all.replace("line=10 ", "line=10 line=11 "),
            Some("attribute line already exists"),
        ),
        (
            all.replace("parent_frame_id", "parent_frameid"),
            Some("unexpected attribute \"parent_frameid\" in StackFrames"),
        ),
    ] {
        let text = module(tables);
        match (expected, hlo_layout::parse_module(&text)) {
            (None, Ok(_)) => {}
            (Some(expected), Err(errors)) => {
                let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                assert!(
                    messages.iter().any(|m| m.contains(expected)),
                    "{text}\n{messages:#?}"
                );
            }
            (expected, result) => panic!("{text}\nexpected {expected:?}, got {result:?}"),
        }
    }
}

/// Found by a differential run against jaxlib: XLA reads one value per attribute and
/// refuses what follows it, except in the few attributes written as several terms.
#[test]
fn an_attribute_takes_one_value() {
    let module = |attributes: &str| {
        format!(
            "HloModule m\n\nENTRY e {{\n  p = f32[8] parameter(0)\n  ROOT c = f32[8] \
             collective-permute(p), source_target_pairs={{{{0,1}}}}, {attributes}\n}}\n"
        )
    };
    for extra in [
        "channel_id=1x",
        "channel_id=1 2",
        "source_target_pairs={{0,1}}{{1,2}}",
    ] {
        let text = module(extra).replace("source_target_pairs={{0,1}}, source", "source");
        assert_eq!(
            lowering_errors(&text).len(),
            1,
            "{extra}: {:?}",
            lowering_errors(&text)
        );
    }
    assert!(hlo_layout::parse_module(&module("channel_id=-1")).is_ok());
    // The attributes XLA writes as several terms.
    let written = "HloModule m\n\nENTRY e {\n  ROOT c = f32[] custom-call(), \
                   custom_call_target=\"f\", literal=f32[] 0.1\n}\n";
    assert!(hlo_layout::parse_module(written).is_ok());
}

/// `format_module` prints each instruction as the parser reads it (the tree of one line is
/// held, not the module's); it gives exactly what printing the whole tree gives, on every
/// corpus module and on every input of the tests (issue 32).
#[test]
fn streaming_fmt_prints_what_the_whole_tree_prints() {
    let (files, corpus) = formattable_files();
    let mut compared = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(tree) = hlo_layout::syntax::parse_module(&text) else {
            continue;
        };
        let Ok(whole) = hlo_layout::print::print_module(&tree) else {
            continue;
        };
        let streamed = hlo_layout::format_module(&text)
            .unwrap_or_else(|_| panic!("{} prints whole but not streamed", path.display()));
        assert_eq!(streamed, whole, "{}", path.display());
        compared += 1;
    }
    let expected = if corpus { 400 } else { 40 };
    assert!(compared >= expected, "only {compared} modules compared");
}

/// The formatted text written through a spill as it is printed (`fmt`'s way) is the text
/// `format_module` gives, wherever the spill stands and however often it is written, and
/// a module that does not format gives the same errors. A spill that fills up midway gives
/// up spilling, not the text.
#[test]
fn spilled_fmt_gives_what_format_module_gives() {
    let (mut spilled_modules, mut refused, mut filled) = (0, 0, 0);
    let corpus = for_each_input(|path, text, expected, local| {
        let spill_sizes: &[usize] = if local { &[1, 300, 1 << 20] } else { &[4096] };
        for &spill_bytes in spill_sizes {
            // The spill already holds the text of an earlier module.
            let mut spill = std::io::Cursor::new(b"earlier\n".to_vec());
            spill.set_position(8);
            let got = hlo_layout::format_module_range_spilling_every(
                text,
                0..text.len(),
                &mut spill,
                spill_bytes,
            );
            match (&got, expected) {
                (Ok(formatted), Ok(expected)) => {
                    assert!(
                        written_through(formatted, &mut spill) == expected.as_bytes(),
                        "{} every {spill_bytes}",
                        path.display()
                    );
                    assert_eq!(&spill.get_ref()[..8], b"earlier\n", "{}", path.display());
                    spilled_modules += usize::from(formatted.spilled > 0);
                }
                (Err(got), Err(expected)) => {
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{expected:?}"),
                        "{}",
                        path.display()
                    );
                    refused += 1;
                }
                _ => panic!(
                    "{}: spilled {:?}, whole {:?}",
                    path.display(),
                    got.is_ok(),
                    expected.is_ok()
                ),
            }
        }
        let (Ok(expected), true) = (expected, local) else {
            return;
        };
        let room = expected.len() / 2;
        let mut spill = common::FullAfter {
            bytes: std::io::Cursor::new(Vec::new()),
            room,
        };
        let formatted =
            hlo_layout::format_module_range_spilling_every(text, 0..text.len(), &mut spill, 64)
                .unwrap();
        assert!(formatted.spilled <= room as u64, "{}", path.display());
        assert!(
            written_through(&formatted, &mut spill) == expected.as_bytes(),
            "{} with a full spill",
            path.display()
        );
        filled += usize::from(
            formatted.spilled > 0 && !formatted.tail.is_empty() && expected.len() > 256,
        );
    });
    let expected = if corpus { 400 } else { 40 };
    assert!(
        spilled_modules >= expected,
        "only {spilled_modules} modules spilled"
    );
    assert!(
        refused >= 10 && filled >= 20,
        "{refused} refused, {filled} filled their spill"
    );
}

/// A module formatted from its text in pieces (`fmt` on a large file) is the module
/// `format_module` gives, however small the pieces, through computations cut before
/// instruction lines; a text that does not format, or that pieces cannot tell formats so,
/// gives `None` and nothing in the spill.
#[test]
fn fmt_in_pieces_gives_what_format_module_gives() {
    use hlo_layout::syntax::pieces::TextPieces;
    let (mut in_pieces, mut whole, mut refused) = (0, 0, 0);
    let corpus = for_each_input(|path, text, expected, local| {
        let piece_sizes: &[usize] = if local { &[1, 200, 4096] } else { &[64 << 10] };
        for &piece_bytes in piece_sizes {
            let pieces = TextPieces::new(text.as_bytes(), piece_bytes);
            let mut spill = std::io::Cursor::new(Vec::new());
            let got = hlo_layout::format_module_in_pieces_spilling_every(pieces, &mut spill, 100)
                .expect("a slice reads");
            match (got, expected) {
                (Some(formatted), Ok(expected)) => {
                    assert!(
                        written_through(&formatted, &mut spill) == expected.as_bytes(),
                        "{} in pieces of {piece_bytes}",
                        path.display()
                    );
                    in_pieces += 1;
                }
                (Some(_), Err(_)) => panic!("{} formats in pieces only", path.display()),
                (None, Ok(_)) => whole += 1,
                (None, Err(_)) => {
                    assert_eq!(spill.position(), 0, "{}", path.display());
                    refused += 1;
                }
            }
        }
    });
    let expected = if corpus { 400 } else { 100 };
    assert!(
        in_pieces >= expected && in_pieces > 10 * whole && refused >= 10,
        "{in_pieces} in pieces, {whole} left whole, {refused} refused"
    );
}

/// The whole text of `formatted`: what went to `spill`, read back, then its tail.
fn written_through<S>(formatted: &hlo_layout::SpilledText, spill: &mut S) -> Vec<u8>
where
    S: std::io::Read + std::io::Write + std::io::Seek,
{
    let mut written = Vec::new();
    formatted
        .write_to(spill, &mut written)
        .expect("a vector takes anything");
    written
}

/// Calls `check` with each file [`formattable_files`] gives and each of `tests/inputs/bad`:
/// its path, its text, what `format_module` gives for it, and whether it is this
/// checkout's own rather than the corpus's. Whether the corpus was read.
fn for_each_input(
    mut check: impl FnMut(&std::path::Path, &str, &Result<String, Vec<hlo_layout::Error>>, bool),
) -> bool {
    let (mut files, corpus) = formattable_files();
    let bad = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/bad");
    files.extend(common::files(&bad, "hlo"));
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let expected = hlo_layout::format_module(&text);
        let local = path.starts_with(env!("CARGO_MANIFEST_DIR"));
        check(path, &text, &expected, local);
    }
    corpus
}

/// Every `.hlo` file of `tests/inputs` that formats, and the corpus's when it is beside the
/// checkout (and whether it is).
fn formattable_files() -> (Vec<std::path::PathBuf>, bool) {
    let inputs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs");
    let mut files = Vec::new();
    for folder in [
        "fmt",
        "assign",
        "check",
        "passes",
        "examples",
        "jax-programs",
        "opcode-attributes",
    ] {
        files.extend(common::files(&inputs.join(folder), "hlo"));
    }
    let mut corpus = false;
    for folder in ["jax", "large", "xla-tests", "xla-parser-tests", "tpu-real"] {
        if let Some(dir) = common::corpus_dir(folder) {
            files.extend(common::files(&dir, "hlo"));
            corpus = true;
        }
    }
    (files, corpus)
}
