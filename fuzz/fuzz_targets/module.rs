//! The whole-module front end: parsing and formatting never panic, what formats is a fixed
//! point of formatting, and the lexer's whole-line shortcuts give the tree the token-by-token
//! path gives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = 0..text.len();
    let with_heads = hlo_layout::syntax::parse_module_range_cut(text, whole.clone(), usize::MAX);
    let by_part = hlo_layout::syntax::parse_module_range_without_whole_heads(text, whole);
    match (with_heads, by_part) {
        (Ok(a), Ok(b)) => assert!(a == b, "whole heads read a module differently"),
        (Err(a), Err(b)) => assert_eq!(a, b, "whole heads report other errors"),
        (a, b) => panic!("whole heads {:?}, by part {:?}", a.is_ok(), b.is_ok()),
    }
    if let Ok(formatted) = hlo_layout::format_module(text) {
        let again = hlo_layout::format_module(&formatted).expect("formatted text parses");
        assert_eq!(again, formatted, "fmt is a fixed point");
    }
});
