//! Front end and layout assignment: a module that verifies assigns without panicking, and
//! the result verifies in layout-sensitive mode.
#![no_main]

use hlo_layout::ir::Target;
use hlo_layout::verify::{verify, VerifyOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut module) = hlo_layout::parse_module(text) else {
        return;
    };
    if verify(&module, &VerifyOptions::default()).is_err() {
        return;
    }
    if hlo_layout::assign::assign_layouts(&mut module, &Target::default_tpu()).is_ok() {
        let result = verify(
            &module,
            &VerifyOptions {
                layout_sensitive: true,
            },
        );
        assert!(
            result.is_ok(),
            "assigned module does not verify: {result:?}"
        );
    }
});
