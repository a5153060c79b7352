//! Layout-sensitive checks: a `bitcast` keeps the physical byte size, and ops that cannot
//! change layout give same-rank array operands their own layout.

use crate::ir::layout::Layout;
use crate::ir::opcode::Opcode;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Shape;
use crate::ir::tiling::PhysicalLayout;

/// Problems with the layouts of one instruction (its opcode, result and operand shapes).
pub fn check(opcode: &Opcode, result: &Shape, operands: &[&Shape]) -> Vec<String> {
    let mut errors = Vec::new();
    if *opcode == Opcode::Bitcast {
        if let (Some(Shape::Array(operand)), Shape::Array(result)) = (operands.first(), result) {
            // Shapes the physical model cannot size (dynamic dims) are left to other checks.
            if let (Ok(from), Ok(to)) = (PhysicalLayout::new(operand), PhysicalLayout::new(result))
            {
                if from.bytes() != to.bytes() {
                    errors.push(format!(
                        "Bitcast cannot have different shape sizes of output ({} bytes, {result}) \
                         and operand ({} bytes, {operand})",
                        to.bytes(),
                        from.bytes()
                    ));
                }
            }
        }
    }
    if opcode.keeps_layout() {
        if let Shape::Array(result) = result {
            let result_layout = result.layout_or_default();
            for (slot, operand) in operands.iter().enumerate() {
                let Shape::Array(operand) = operand else {
                    continue;
                };
                if operand.rank() != result.rank() {
                    continue;
                }
                // XLA ignores the element size where a pred meets a wider type.
                // The element size belongs to the element type, so it may differ wherever the
                // types do (an s32 scatter index beside an s4 result).
                let ignore_element_size = matches!(opcode, Opcode::Convert | Opcode::Compare)
                    || (*opcode == Opcode::Select && operand.element_type == PrimitiveType::Pred)
                    || operand.element_type != result.element_type;
                let operand_layout = operand.layout_or_default();
                if !same_layout(&result_layout, &operand_layout, ignore_element_size) {
                    errors.push(format!(
                        "Instruction shouldn't change layouts: `{opcode}` has the result \
                         {result} but operand {slot} is {operand}"
                    ));
                }
            }
        }
    }
    errors
}

/// XLA's `Layout::Equal().IgnoreTiles().IgnoreMemorySpace()`, optionally ignoring the
/// element size too.
fn same_layout(a: &Layout, b: &Layout, ignore_element_size: bool) -> bool {
    a.minor_to_major == b.minor_to_major
        && a.dim_level_types == b.dim_level_types
        && a.tail_padding_alignment == b.tail_padding_alignment
        && a.index_primitive_type == b.index_primitive_type
        && a.pointer_primitive_type == b.pointer_primitive_type
        && (ignore_element_size || a.element_size_in_bits == b.element_size_in_bits)
        && a.split_configs == b.split_configs
        && a.physical_shape == b.physical_shape
        && a.dynamic_shape_metadata_prefix_bytes == b.dynamic_shape_metadata_prefix_bytes
}
