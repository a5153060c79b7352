//! The whole-module front end: parsing and formatting never panic, and what formats is a
//! fixed point of formatting.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(formatted) = hlo_layout::format_module(text) {
        let again = hlo_layout::format_module(&formatted).expect("formatted text parses");
        assert_eq!(again, formatted, "fmt is a fixed point");
    }
});
