//! Lowering a module from its text in pieces (issue 32): `parse_module_in_pieces` gives the
//! module `parse_module` gives, spans included, or `None`, never another module; over the
//! corpus it gives one for the modules XLA writes (no computation written in place).

mod common;

use hlo_layout::ir::Module;
use hlo_layout::syntax::pieces::TextPieces;
use hlo_layout::syntax::{computation_end_after, computation_end_before, instruction_line_start};

/// `text` in pieces of about `size` bytes, each cut after a line holding only `}`.
fn pieces(text: &str, size: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = computation_end_after(&text.as_bytes()[start..], size.max(1))
            .map_or(text.len(), |n| start + n);
        pieces.push(text[start..end].to_string());
        start = end;
    }
    pieces
}

/// `text` in the pieces the command reads a large file in, of about `size` bytes: whole
/// computations, or runs of the lines of one longer than `size`.
fn text_pieces(text: &str, size: usize) -> Vec<String> {
    TextPieces::new(text.as_bytes(), size)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn in_pieces(text: &str, size: usize) -> Option<Module> {
    lowered(pieces(text, size))
}

fn lowered(pieces: Vec<String>) -> Option<Module> {
    match hlo_layout::parse_module_in_pieces(pieces.into_iter().map(Ok::<String, ()>)) {
        Ok(module) => module,
        Err(()) => unreachable!("the pieces given hold no error"),
    }
}

/// Every computation's and instruction's span, in print order.
fn spans(module: &Module) -> Vec<(String, hlo_layout::span::Span)> {
    let mut spans = Vec::new();
    for computation in module.computations() {
        spans.push((computation.name.to_string(), computation.span));
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            spans.push((instruction.name().to_string(), instruction.span));
        }
    }
    spans
}

/// What lowering `text` in pieces of `size` bytes gives against one pass: `Some(true)` the
/// same module, `None` no module; a different module fails.
fn agrees(name: &str, text: &str, size: usize) -> Option<bool> {
    agrees_in(name, text, pieces(text, size), &format!("pieces of {size}"))
}

/// [`agrees`] for `pieces` of `text`, which `how` describes.
fn agrees_in(name: &str, text: &str, pieces: Vec<String>, how: &str) -> Option<bool> {
    let whole = hlo_layout::parse_module(text);
    let piecewise = lowered(pieces)?;
    let whole = match whole {
        Ok(whole) => whole,
        Err(errors) => {
            panic!("{name} ({how}): a module from pieces of text with errors: {errors:?}")
        }
    };
    let print = hlo_layout::print::print_ir_module;
    assert_eq!(print(&piecewise), print(&whole), "{name} ({how})");
    assert_eq!(spans(&piecewise), spans(&whole), "{name} ({how})");
    assert_eq!(piecewise.entry, whole.entry, "{name} ({how})");
    Some(true)
}

#[test]
fn corpus_modules_in_pieces_are_the_modules_one_pass_gives() {
    let mut seen = 0;
    let mut lowered = 0;
    for folder in ["jax", "large", "xla-tests", "tpu-real", "xla-parser-tests"] {
        let Some(dir) = common::corpus_dir(folder) else {
            continue;
        };
        for path in common::files(&dir, "hlo") {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let name = path.display().to_string();
            for range in common::module_ranges(&text, folder == "xla-parser-tests") {
                let text = &text[range];
                seen += 1;
                // Every cut there is, a few, and none.
                let mut results: Vec<_> = [1, 3000, 200_000, usize::MAX]
                    .into_iter()
                    .map(|size| agrees(&name, text, size))
                    .collect();
                // As the command cuts a large file: long computations at instruction lines.
                for size in [3000, 200_000] {
                    let pieces = text_pieces(text, size);
                    let how = format!("{} text pieces of {size}", pieces.len());
                    results.push(agrees_in(&name, text, pieces, &how));
                }
                // Whether it can be lowered in pieces does not depend on where it is cut.
                let whole_ok = hlo_layout::parse_module(text).is_ok();
                if whole_ok && results.iter().all(Option::is_some) {
                    lowered += 1;
                } else if whole_ok && ["jax", "large"].contains(&folder) {
                    panic!("{name}: a module JAX wrote is not lowered in pieces");
                }
            }
        }
    }
    if seen == 0 {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    }
    eprintln!("{lowered} of {seen} corpus modules lowered in pieces");
    // Nearly all are lowered in pieces; the rest (computations written in place, lone
    // instructions, modules with errors) are read whole.
    assert!(lowered * 10 >= seen * 9, "{lowered} of {seen}");
}

#[test]
fn an_error_in_a_later_piece_gives_no_module() {
    let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  c = f32[] constant(0)\n  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=%s\n}\n";
    assert!(hlo_layout::parse_module(text).is_err());
    assert_eq!(pieces(text, 1).len(), 2);
    assert!(in_pieces(text, 1).is_none());
    // The same module without the error is lowered, its call resolved across the pieces.
    let fixed = text.replace("to_apply=%s", "to_apply=%add");
    assert_eq!(agrees("fixed", &fixed, 1), Some(true));
}

#[test]
fn a_cut_inside_a_string_or_a_line_gives_no_module() {
    let text = "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p), metadata={op_name=\"a\n}\nb\"}\n}\n";
    let whole = hlo_layout::parse_module(text);
    let cut = computation_end_after(text.as_bytes(), 1).unwrap_or(text.len());
    let pieces = [text[..cut].to_string(), text[cut..].to_string()];
    let piecewise = hlo_layout::parse_module_in_pieces(pieces.map(Ok::<String, ()>));
    assert!(matches!(piecewise, Ok(None)), "{whole:?}");
    // Pieces cut inside a line.
    let text = "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n";
    let at = text.find("negate").unwrap_or(0);
    let pieces = [text[..at].to_string(), text[at..].to_string()];
    let piecewise = hlo_layout::parse_module_in_pieces(pieces.map(Ok::<String, ()>));
    assert!(matches!(piecewise, Ok(None)));
}

/// A module in three pieces cut at any two places: the module one pass gives, spans
/// included, or none; and the module whenever both cuts are at the start of an instruction
/// line, as a computation longer than a piece is cut.
#[test]
fn any_two_cuts_give_the_module_or_none_and_instruction_lines_the_module() {
    let text = "HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}\n\n%a (x: f32[], y: f32[]) -> f32[] {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  c = f32[] constant(0)\n  q = f32[] reduce(p, c), dimensions={0}, to_apply=%a\n  s = (f32[], f32[]) tuple(q, c)\n  g = f32[] get-tuple-element(s), index=0\n  ROOT t = f32[] reduce(p, g), dimensions={0}, to_apply=%a\n}\n\n// the end\n";
    let whole = hlo_layout::parse_module(text).unwrap_or_else(|e| panic!("{e:?}"));
    let print = hlo_layout::print::print_ir_module;
    // Where a computation longer than a piece is cut: instruction lines but a body's first.
    let line_starts: Vec<usize> = (1..text.len())
        .filter(|&at| instruction_line_start(text.as_bytes(), at - 1) == Some(at))
        .collect();
    assert_eq!(line_starts.len(), 7, "{line_starts:?}");
    let mut lowered = 0;
    for first in 0..=text.len() {
        for second in first..=text.len() {
            let pieces = [&text[..first], &text[first..second], &text[second..]]
                .map(|piece| Ok::<String, ()>(piece.to_string()));
            let Ok(piecewise) = hlo_layout::parse_module_in_pieces(pieces) else {
                unreachable!("the pieces given hold no error")
            };
            let at_lines = [first, second]
                .iter()
                .all(|cut| line_starts.contains(cut) || [0, text.len()].contains(cut));
            let Some(piecewise) = piecewise else {
                assert!(!at_lines, "cut at {first} and {second}: no module");
                continue;
            };
            lowered += 1;
            let cuts = format!("cut at {first} and {second}");
            assert_eq!(print(&piecewise), print(&whole), "{cuts}");
            assert_eq!(spans(&piecewise), spans(&whole), "{cuts}");
            assert_eq!(piecewise.entry, whole.entry, "{cuts}");
        }
    }
    assert!(
        lowered > line_starts.len() * line_starts.len() / 2,
        "{lowered}"
    );
}

#[test]
fn an_error_reading_a_piece_is_returned() {
    let first = "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
    let pieces = [Ok(first.to_string()), Err("disk")];
    assert!(matches!(
        hlo_layout::parse_module_in_pieces(pieces),
        Err("disk")
    ));
}

mod cut_anywhere {
    use proptest::prelude::*;

    /// Computations that call those above them, a string and a comment that hold a line
    /// with only `}`, and a computation written in place.
    const TEXT: &str = "HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}\n\n/* a comment\n}\nthat looks like an end */\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b), metadata={op_name=\"x\n}\ny\"}\n}\n\nmax {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  c = f32[] constant(0)\n  r = f32[] reduce(p, c), dimensions={0}, to_apply=add\n  q = f32[] reduce(p, c), dimensions={0}, to_apply=\n{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}\n  ROOT t = f32[] reduce(p, r), dimensions={0}, to_apply=max\n}\n\n// the end\n";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Cut anywhere, the pieces give the module one pass gives, or none: never another.
        #[test]
        fn pieces_cut_anywhere_give_the_module_or_none(
            cuts in proptest::collection::vec(0..TEXT.len(), 0..6),
            without_in_place in any::<bool>(),
        ) {
            let text = if without_in_place {
                TEXT.replace("to_apply=\n{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}", "to_apply=add")
            } else {
                TEXT.to_string()
            };
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c < text.len()).collect();
            cuts.push(text.len());
            cuts.sort_unstable();
            cuts.dedup();
            let mut pieces = Vec::new();
            let mut start = 0;
            for cut in cuts {
                pieces.push(Ok::<String, ()>(text[start..cut].to_string()));
                start = cut;
            }
            let whole = hlo_layout::parse_module(&text);
            prop_assert!(whole.is_ok(), "{whole:?}");
            let piecewise = hlo_layout::parse_module_in_pieces(pieces);
            if let (Ok(Some(piecewise)), Ok(whole)) = (piecewise, whole) {
                let print = hlo_layout::print::print_ir_module;
                prop_assert_eq!(print(&piecewise), print(&whole));
                prop_assert_eq!(super::spans(&piecewise), super::spans(&whole));
            }
        }
    }

    /// Cut where lines hold only `}`, the text is lowered in pieces once no such line is
    /// inside a string, a comment or a computation written in place; with one, it is not.
    #[test]
    fn cut_where_computations_end_it_is_lowered() {
        let plain = TEXT
            .replace("to_apply=\n{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}", "to_apply=add")
            .replace("/* a comment\n}\nthat looks like an end */", "/* a comment */")
            .replace("x\n}\ny", "x y");
        assert_eq!(
            super::agrees("cut where computations end", &plain, 1),
            Some(true)
        );
        assert_eq!(super::pieces(&plain, 1).len(), 4);
        assert_eq!(super::agrees("a string and a comment", TEXT, 1), None);
    }
}

/// The last cut at or before an offset is the last of the cuts found forward that is.
#[test]
fn the_last_cut_before_an_offset_is_the_last_forward_cut_there() {
    let text = "HloModule m\n\n%a {\n  ROOT %x = f32[] constant(0)\n}\n%b {\r\n  ROOT %y = \
                f32[] constant(1)\r\n}\r\n\n }\n}x\n%c {\n  ROOT %z = f32[] constant(2)\n}";
    let bytes = text.as_bytes();
    let mut cuts = Vec::new();
    let mut from = 1;
    while let Some(cut) = computation_end_after(bytes, from) {
        cuts.push(cut);
        from = cut + 1;
    }
    // After `%a`'s and `%b`'s closing lines; ` }`, `}x` and a last `}` without a line end
    // close nothing.
    assert_eq!(cuts.len(), 2, "{cuts:?}");
    for to in 0..=bytes.len() + 2 {
        let expected = cuts.iter().copied().filter(|&cut| cut <= to).max();
        assert_eq!(computation_end_before(bytes, to), expected, "to {to}");
    }
}
