//! Front end, lowering and the verifier (both modes): nothing accepted may panic later, and
//! `check`'s pass that reads one computation at a time agrees with parsing the module whole
//! and verifying it whenever it tells.
#![no_main]

use hlo_layout::verify::{verify, VerifyOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let plain = VerifyOptions::default();
    let parsed = hlo_layout::parse_module(text);
    let whole = parsed.as_ref().is_ok_and(|m| verify(m, &plain).is_ok());
    let streamed = hlo_layout::check::check_computation_by_computation(text, 0..text.len(), &plain);
    if let Some(valid) = streamed {
        assert_eq!(valid, whole, "check against the whole module");
    }
    let Ok(module) = parsed else {
        return;
    };
    let printed = hlo_layout::print::print_ir_module(&module);
    let _ = hlo_layout::parse_module(&printed);
    for layout_sensitive in [false, true] {
        let _ = verify(&module, &VerifyOptions { layout_sensitive });
    }
});
