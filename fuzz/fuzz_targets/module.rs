//! The whole-module front end: parsing and formatting never panic, what formats is a fixed
//! point of formatting, the lexer's whole-line shortcuts give the tree the token-by-token
//! path gives, and reading on two threads (in halves, or the rest read ahead, the header and
//! tables on the other thread) gives the module one pass gives, and so does reading in pieces.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = 0..text.len();
    let with_heads = hlo_layout::syntax::parse_module_range(text, whole.clone());
    let by_part = hlo_layout::syntax::parse_module_range_without_whole_heads(text, whole);
    match (with_heads, by_part) {
        (Ok(a), Ok(b)) => assert!(a == b, "whole heads read a module differently"),
        (Err(a), Err(b)) => assert_eq!(a, b, "whole heads report other errors"),
        (a, b) => panic!("whole heads {:?}, by part {:?}", a.is_ok(), b.is_ok()),
    }
    let outcome = |result: Result<hlo_layout::ir::Module, Vec<hlo_layout::Error>>| match result {
        Ok(module) => hlo_layout::print::print_ir_module(&module),
        Err(errors) => format!("{errors:?}"),
    };
    let one_pass = outcome(hlo_layout::parse_module(text));
    if let Some(cut) =
        hlo_layout::syntax::computation_start_near(text, 0..text.len(), text.len() / 2)
    {
        if let Some(halves) = hlo_layout::parse_module_range_at(text, 0..text.len(), cut) {
            assert_eq!(outcome(halves), one_pass, "halves cut at {cut}");
        }
    }
    for offset in [text.len() / 3, text.len() / 2] {
        if let Some(ahead) = hlo_layout::parse_module_range_tail_ahead(text, 0..text.len(), offset)
        {
            assert_eq!(outcome(ahead), one_pass, "read ahead from {offset}");
        }
    }
    // In pieces, cut before instruction lines as a computation longer than a piece is (or
    // where computations end): the module one pass gives, or none.
    let bytes = text.as_bytes();
    let mut cuts: Vec<usize> = [text.len() / 3, 2 * text.len() / 3]
        .into_iter()
        .filter_map(|offset| hlo_layout::syntax::instruction_line_start(bytes, offset))
        .collect();
    cuts.dedup();
    let mut start = 0;
    let mut pieces = Vec::new();
    for cut in cuts.into_iter().chain([text.len()]) {
        pieces.push(Ok::<String, ()>(text[start..cut].to_string()));
        start = cut;
    }
    if let Ok(Some(module)) = hlo_layout::parse_module_in_pieces(pieces) {
        let printed = hlo_layout::print::print_ir_module(&module);
        assert_eq!(printed, one_pass, "in pieces cut at instruction lines");
    }
    for piece_bytes in [1, text.len() / 3] {
        let pieces = hlo_layout::syntax::pieces::TextPieces::new(bytes, piece_bytes);
        if let Ok(Some(module)) = hlo_layout::parse_module_in_pieces(pieces) {
            let printed = hlo_layout::print::print_ir_module(&module);
            assert_eq!(printed, one_pass, "in text pieces of {piece_bytes}");
        }
    }
    if let Ok(formatted) = hlo_layout::format_module(text) {
        let again = hlo_layout::format_module(&formatted).expect("formatted text parses");
        assert_eq!(again, formatted, "fmt is a fixed point");
    }
});
