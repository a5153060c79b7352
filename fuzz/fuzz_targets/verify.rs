//! Front end, lowering and the verifier (both modes): nothing accepted may panic later.
#![no_main]

use hlo_layout::verify::{verify, VerifyOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = hlo_layout::parse_module(text) else {
        return;
    };
    let printed = hlo_layout::print::print_ir_module(&module);
    let _ = hlo_layout::parse_module(&printed);
    for layout_sensitive in [false, true] {
        let _ = verify(&module, &VerifyOptions { layout_sensitive });
    }
});
