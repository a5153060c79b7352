//! Layout-sensitive checks: a `bitcast` keeps the physical byte size and, between arrays of
//! one element type and count, every element's bytes; ops that cannot change layout give
//! same-rank array operands their own layout.

use crate::ir::bitcast::{brute_force, symbolic_verdict, Correspondence, SymbolicVerdict};
use crate::ir::opcode::Opcode;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Layout;
use crate::ir::shape::{ArrayShape, Shape};
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
                } else if moves_elements(operand, result) == Some(true) {
                    errors.push(format!(
                        "Bitcast moves elements: {operand} and {result} have the same size, but \
                         neither as a reshape nor read in physical order do their tiles keep \
                         every element's bytes (a copy, not a bitcast)"
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

/// Whether a bitcast of `from` to `to`, of one element type and count, moves an element: it
/// must stand for a reshape (element k in row-major order on both sides keeps its bytes, as
/// assignment makes reshapes bitcasts) or for what XLA's `DecomposeBitcast` reads it as (the
/// k-th element in `from`'s physical order, major to minor, is the k-th in `to`'s: transpose,
/// reshape, transpose), with the exact tiled memory map. XLA checks only the sizes, and with
/// tiles equal sizes can still scramble elements (`f32[16,256]{1,0:T(8,128)}` to
/// `f32[4096]{0:T(1024)}`). Memory spaces do not matter here. `None` when it cannot tell
/// (other element types or counts, dynamic dims, per-dim level types, too many elements for
/// the symbolic answer to be settled by enumeration).
fn moves_elements(from: &ArrayShape, to: &ArrayShape) -> Option<bool> {
    if from.element_type != to.element_type || from.element_count()? != to.element_count()? {
        return None;
    }
    let keeps = |from: &ArrayShape, to: &ArrayShape| -> Option<bool> {
        let from = PhysicalLayout::new(from).ok()?;
        let to = PhysicalLayout::new(to).ok()?;
        match symbolic_verdict(&from, &to, Correspondence::Reshape) {
            SymbolicVerdict::Bitcast => Some(true),
            SymbolicVerdict::Copy => Some(false),
            SymbolicVerdict::Undecided => (to.logical_elements()
                <= crate::ir::bitcast::BRUTE_FORCE_LIMIT)
                .then(|| brute_force(&from, &to, Correspondence::Reshape)),
        }
    };
    let (from, to) = (in_space_zero(from), in_space_zero(to));
    if keeps(&from, &to)? {
        return Some(false);
    }
    Some(!keeps(
        &in_physical_order(&from)?,
        &in_physical_order(&to)?,
    )?)
}

/// `array` in memory space 0, which a bitcast may change.
fn in_space_zero(array: &ArrayShape) -> ArrayShape {
    let mut array = array.clone();
    if let Some(layout) = &mut array.layout {
        layout.memory_space = 0;
    }
    array
}

/// The same bytes as an array whose logical dims are `array`'s in physical order (major
/// first), so its layout is descending with the same tiles.
fn in_physical_order(array: &ArrayShape) -> Option<ArrayShape> {
    let mut layout = array.layout_or_default().into_owned();
    if !layout.dim_level_types.is_empty() || layout.minor_to_major.len() != array.rank() {
        return None;
    }
    let dims = layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| array.dims.get(usize::try_from(d).ok()?).copied())
        .collect::<Option<Vec<_>>>()?;
    layout.minor_to_major = (0..array.rank() as i64).rev().collect();
    Some(ArrayShape {
        element_type: array.element_type,
        dims,
        layout: Some(layout),
    })
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
