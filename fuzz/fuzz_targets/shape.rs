//! Shape and layout text: parsing, printing, and the tiled-layout math must never panic,
//! and what parses must print back to text that parses to the same value.
#![no_main]

use hlo_layout::ir::bitcast::{is_bitcast, Correspondence};
use hlo_layout::ir::{PhysicalLayout, Shape, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(shape) = hlo_layout::parse_shape(text) else {
        return;
    };
    let printed = shape.to_string();
    let reparsed = hlo_layout::parse_shape(&printed).expect("printed shapes parse");
    assert_eq!(printed, reparsed.to_string(), "printing is a fixed point");
    let Shape::Array(array) = shape else {
        return;
    };
    let Ok(memory) = PhysicalLayout::new(&array) else {
        return;
    };
    let _ = (
        memory.bytes(),
        memory.unpadded_bytes(),
        memory.padding_fraction(),
    );
    let n = memory.padded_elements();
    // Probe a few cells of both maps; full enumeration would make big shapes slow.
    for linear in [0, n / 3, n / 2, n.saturating_sub(1)] {
        if let Ok(Some(index)) = memory.element_at(linear) {
            assert_eq!(memory.linear_index(&index), Ok(linear));
        }
    }
    if memory.logical_elements() <= 1 << 16 {
        assert_eq!(
            is_bitcast(&array, &array, Correspondence::Reshape),
            Ok(true)
        );
    }
    for target in ["tpu-v5e", "tpu-v3", "cpu"] {
        if let Some(target) = Target::from_name(target) {
            let _ = PhysicalLayout::new(&target.assign_tiles(&array));
        }
    }
});
