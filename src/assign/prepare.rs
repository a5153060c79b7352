//! Preparing a module for assignment: compact tuple-element operands become
//! `get-tuple-element`s, and bitcasts that are no reshape or transpose are checked and
//! split so that the assigner sees only bitcasts it may relay out.

use crate::ir::module::{ComputationId, InstrId, Instruction, Module, OperandSpelling};
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::{Layout, Target};
use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::cost;
use super::options::*;

/// Compact tuple-element operands (`%t#1#0`) become `get-tuple-element` instructions, named
/// and shared as XLA's parser makes them (`t_1`, `t_1_0`), so that every operand's shape is
/// its producer's: assignment reads and converts operands by their producers' shapes.
pub(super) fn materialize_tuple_paths(module: &mut Module) {
    for computation in module.computations_mut() {
        let users: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| computation.instruction(id).has_tuple_paths())
            .collect();
        // Each (tuple, path prefix) is extracted once, before its first user.
        let mut made: std::collections::HashMap<(InstrId, Vec<i64>), InstrId> =
            std::collections::HashMap::new();
        for user in users {
            let spellings =
                std::mem::take(&mut computation.instruction_mut(user).operand_spellings);
            let mut kept = thin_vec::ThinVec::new();
            for spelling in spellings {
                if spelling.tuple_path.is_empty() {
                    kept.push(spelling);
                    continue;
                }
                let (slot, path) = (spelling.slot, &spelling.tuple_path);
                let tuple = computation.operands(user).get(slot as usize).copied();
                let valid = tuple
                    .is_some_and(|t| computation.instruction(t).shape.subshape(path).is_some());
                let (Some(tuple), true) = (tuple, valid) else {
                    // The verifier reports a path that leads nowhere; leave it as written.
                    kept.push(spelling);
                    continue;
                };
                let mut value = tuple;
                for depth in 1..=path.len() {
                    let prefix = &path[..depth];
                    if let Some(&existing) = made.get(&(tuple, prefix.to_vec())) {
                        value = existing;
                        continue;
                    }
                    let tuple_instruction = computation.instruction(tuple);
                    let Some(shape) = tuple_instruction.shape.subshape(prefix).cloned() else {
                        break;
                    };
                    let suffix: Vec<String> = prefix.iter().map(i64::to_string).collect();
                    let name = format!("{}_{}", tuple_instruction.name(), suffix.join("_"));
                    let mut gte = Instruction::new(name, Opcode::GetTupleElement, shape);
                    gte.style = computation.instruction(user).style;
                    gte.span = computation.instruction(user).span;
                    gte.set_attribute("index", &prefix[depth - 1].to_string());
                    value = computation.add_before(user, gte, &[value]);
                    made.insert((tuple, prefix.to_vec()), value);
                }
                let _ = computation.replace_operand(user, slot, value);
                if spelling.percent_differs {
                    kept.push(OperandSpelling {
                        tuple_path: Vec::new(),
                        ..spelling
                    });
                }
            }
            computation.instruction_mut(user).operand_spellings = kept;
        }
    }
}

/// The bitcasts that are no reshape or transpose, by computation and instruction, with the
/// layouts they keep: their operand's and their own as written, with the target's tiles
/// where the written ones have none and both sides then keep equal bytes.
pub(super) type OpaqueBitcasts = FxHashMap<(u32, InstrId), (Shape, Shape)>;

/// Finds the array-to-array bitcasts that change the element type or count: they cannot be
/// read as a reshape and transposes ([`decompose_bitcasts`]), so they keep their written
/// layouts, which must give both sides the same bytes. Checked before anything changes, so
/// that a module assignment fails on is left as it was.
pub(super) fn check_bitcasts(
    module: &Module,
    target: &Target,
) -> Result<OpaqueBitcasts, AssignError> {
    let mut opaque = OpaqueBitcasts::default();
    for (computation_id, computation) in module.computation_ids().zip(module.computations()) {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if instruction.opcode != Opcode::Bitcast {
                continue;
            }
            let Some(&operand) = computation.operands(id).first() else {
                continue;
            };
            let operand_shape = &computation.instruction(operand).shape;
            let (Some(from), Some(to)) = (operand_shape.as_array(), instruction.shape.as_array())
            else {
                continue;
            };
            let same_count = match (from.element_count(), to.element_count()) {
                (Some(a), Some(b)) => a == b,
                // Dynamic dims: nothing to compare yet.
                _ => true,
            };
            let reads_as_shape_change = from.element_type == to.element_type && same_count;
            if reads_as_shape_change || is_type_reinterpretation(from, to) {
                continue;
            }
            let same_bytes = |a: &ArrayShape, b: &ArrayShape| matches!((cost::array_bytes(a), cost::array_bytes(b)), (Some(x), Some(y)) if x == y);
            let (tiled_from, tiled_to) = (target.assign_tiles(from), target.assign_tiles(to));
            let kept = if from.layout_or_default().tiles.is_empty()
                && to.layout_or_default().tiles.is_empty()
                && same_bytes(&tiled_from, &tiled_to)
            {
                (tiled_from, tiled_to)
            } else if same_bytes(from, to) {
                (from.clone(), to.clone())
            } else {
                return Err(AssignError::Bitcast {
                    computation: computation.name.to_string(),
                    instruction: instruction.name().to_string(),
                    from: from.to_string(),
                    to: to.to_string(),
                    span: instruction.span,
                });
            };
            opaque.insert(
                (computation_id.0, id),
                (Shape::Array(kept.0), Shape::Array(kept.1)),
            );
        }
    }
    Ok(opaque)
}

/// A bitcast between element types of one width that keeps the dims and their order
/// (`f32[2]{0}` to `s32[2]{0}`, as real dumps have) is the elementwise `bitcast-convert`.
pub(super) fn is_type_reinterpretation(from: &ArrayShape, to: &ArrayShape) -> bool {
    from.element_type != to.element_type
        && from.element_type.bit_width() == to.element_type.bit_width()
        && from.dims == to.dims
        && from.layout_or_default().minor_to_major == to.layout_or_default().minor_to_major
}

/// A `bitcast` means "same bytes" only under the layouts it was written with (taken here as
/// untiled; a tiled bitcast in an input is decomposed by its minor_to_major alone). Before new
/// layouts are chosen, each becomes the logical operation it stands for under those layouts
/// (XLA's `DecomposeBitcast`): a transpose of the operand into its physical order, a reshape
/// to the result's physical dims, and a transpose into the result's logical order, leaving
/// out the steps that do nothing. Assignment then makes them bitcasts again where the new
/// layouts move no data.
///
/// The steps' shapes come from `shared` (the assigner's one allocation per shape), as
/// lowering's instructions share theirs: a module may have a bitcast for every tenth
/// instruction, and few distinct shapes among them.
pub(super) fn decompose_bitcasts(
    module: &mut Module,
    opaque: &OpaqueBitcasts,
    shared: &mut dyn FnMut(Shape) -> Arc<Shape>,
) {
    let ids: Vec<ComputationId> = module.computation_ids().collect();
    for (computation_id, computation) in ids.into_iter().zip(module.computations_mut()) {
        let bitcasts: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| computation.instruction(id).opcode == Opcode::Bitcast)
            .filter(|&id| !opaque.contains_key(&(computation_id.0, id)))
            .collect();
        for id in bitcasts {
            let Some(&operand) = computation.operands(id).first() else {
                continue;
            };
            let (Some(from), Some(to)) = (
                computation.instruction(operand).shape.as_array().cloned(),
                computation.instruction(id).shape.as_array().cloned(),
            ) else {
                continue;
            };
            if is_type_reinterpretation(&from, &to) {
                change_opcode(computation.instruction_mut(id), Opcode::BitcastConvert);
                continue;
            }
            let (Some(from_dims), Some(to_dims)) = (from.extents(), to.extents()) else {
                continue;
            };
            let physical = |array: &ArrayShape| -> Vec<usize> {
                array
                    .layout_or_default()
                    .minor_to_major
                    .iter()
                    .rev()
                    .filter_map(|&d| usize::try_from(d).ok())
                    .collect()
            };
            let (from_order, to_order) = (physical(&from), physical(&to));
            let style = computation.instruction(id).style;
            // The steps before the last, which goes in the bitcast's place; at most a
            // transpose and a reshape.
            let mut steps: Vec<Instruction> = Vec::with_capacity(2);
            let mut current_dims = from_dims.clone();
            // Into the operand's physical order.
            if from_order.iter().enumerate().any(|(i, &d)| i != d) {
                let dims: Vec<i64> = from_order
                    .iter()
                    .filter_map(|&d| from_dims.get(d).copied())
                    .collect();
                let shape = shared(Shape::Array(
                    ArrayShape::new(from.element_type, &dims)
                        .with_layout(Layout::descending(dims.len())),
                ));
                let mut transpose = Instruction::new("transpose", Opcode::Transpose, shape);
                transpose.style = style;
                transpose.set_attribute(
                    "dimensions",
                    &int_list(from_order.iter().map(|&d| d as i64)),
                );
                steps.push(transpose);
                current_dims = dims;
            }
            // To the result's physical dims.
            let to_physical_dims: Vec<i64> = to_order
                .iter()
                .filter_map(|&d| to_dims.get(d).copied())
                .collect();
            if current_dims != to_physical_dims {
                let shape = shared(Shape::Array(
                    ArrayShape::new(to.element_type, &to_physical_dims)
                        .with_layout(Layout::descending(to_physical_dims.len())),
                ));
                let mut reshape = Instruction::new("reshape", Opcode::Reshape, shape);
                reshape.style = style;
                steps.push(reshape);
            }
            // Into the result's logical order.
            let permutation: Vec<i64> = (0..to_order.len())
                .filter_map(|d| to_order.iter().position(|&p| p == d).map(|p| p as i64))
                .collect();
            let permutes = permutation.iter().enumerate().any(|(i, &p)| i as i64 != p);
            // Without a last transpose, the last step is the bitcast's replacement: it goes in
            // its place rather than before it, which would grow a computation that lowering
            // sized to its instructions.
            let last = if permutes { None } else { steps.pop() };
            let mut value = operand;
            for step in steps {
                value = computation.add_before(id, step, &[value]);
            }
            if permutes {
                let instruction = computation.instruction_mut(id);
                change_opcode(instruction, Opcode::Transpose);
                instruction.set_attribute("dimensions", &int_list(permutation.into_iter()));
                if value != operand {
                    let _ = computation.replace_operand(id, 0, value);
                }
            } else if let Some(last) = last {
                let _ = computation.replace_in_place(id, last, &[value]);
            } else {
                change_opcode(computation.instruction_mut(id), Opcode::Reshape);
            }
        }
    }
}

/// Changes `instruction`'s opcode, keeping only the attributes the new opcode accepts, as
/// XLA's `SetupDerivedInstruction` keeps metadata, sharding and frontend attributes but
/// nothing that belongs to the old opcode (a reshape's `inferred_dimension`, a transpose's
/// `dimensions` do not ride along onto a bitcast).
pub(super) fn change_opcode(instruction: &mut Instruction, opcode: Opcode) {
    instruction
        .attributes
        .retain(|a| crate::ir::attribute_rules::allowed(&opcode, &a.name));
    instruction.opcode = opcode;
}

pub(super) fn int_list(values: impl Iterator<Item = i64>) -> String {
    let items: Vec<String> = values.map(|v| v.to_string()).collect();
    format!("{{{}}}", items.join(","))
}
