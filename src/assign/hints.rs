//! Layouts wanted by users, propagated from the computation's result towards its operands
//! before any choice is made: XLA's result constraint, which `PropagateUseConstraintToDefs`
//! and `ChooseOperandLayoutFromOutputLayout` carry back through layout-keeping ops,
//! transposes, reshapes, broadcasts and into fused computations (docs/tiled-layouts.md
//! §8.2, §8.4).
//!
//! The choice itself is [`super::choose`]'s, made forwards in the computation's order. A
//! hint only settles ties there: where candidates cost the same (size-1 dims and major dims
//! pad the same in any order), the layout that a user further down wants wins, so that a
//! chain ending in a given result layout is laid out in that layout from its start, as XLA
//! lays it out, instead of meeting it with a bitcast at the end.
//!
//! The first hint that reaches an array wins, as XLA's first constraint does. Each
//! computation is walked once, from its root up; a fused or called computation is walked
//! when its caller's walk reaches the call, with the call's hint as its root's.

use rustc_hash::FxHashMap;

use super::cost;
use crate::ir::module::{Computation, ComputationId, InstrId, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};

/// A minor_to_major wanted for an instruction's array result.
pub(super) type Hints = FxHashMap<(ComputationId, InstrId), Vec<i64>>;

/// Deeper nesting of fusions and calls than this is walked without hints from its callers:
/// real modules nest a few levels, and the walk must not recurse without bound.
const MAX_DEPTH: usize = 16;

/// The hints of `entry` and what it calls, from `result` (the layout the entry must return)
/// and `parameters` (the entry's parameter shapes, for the layouts they already have).
pub(super) fn user_hints(
    module: &Module,
    entry: ComputationId,
    parameters: &[std::sync::Arc<Shape>],
    result: Option<&Shape>,
) -> Hints {
    let mut walk = Walk {
        module,
        hints: Hints::default(),
        walked: vec![false; module.computations().len()],
    };
    let computation = module.computation(entry);
    for (number, id) in computation.parameters() {
        let given = usize::try_from(number)
            .ok()
            .and_then(|n| parameters.get(n))
            .and_then(|shape| shape.as_array())
            .and_then(|array| array.layout.as_ref());
        if let Some(layout) = given {
            walk.hints
                .insert((entry, id), layout.minor_to_major.clone());
        }
    }
    walk.computation(entry, result.cloned(), 0);
    walk.hints
}

struct Walk<'m> {
    module: &'m Module,
    hints: Hints,
    walked: Vec<bool>,
}

fn array_of(computation: &Computation, id: InstrId) -> Option<&ArrayShape> {
    computation.instruction(id).shape.as_array()
}

impl Walk<'_> {
    fn want(&mut self, comp: ComputationId, id: InstrId, minor_to_major: Vec<i64>) {
        if self.fits(comp, id, &minor_to_major) {
            self.hints.entry((comp, id)).or_insert(minor_to_major);
        }
    }

    /// A consumer's stated layout, which replaces any hint from users.
    fn force(&mut self, comp: ComputationId, id: InstrId, minor_to_major: Vec<i64>) {
        if self.fits(comp, id, &minor_to_major) {
            self.hints.insert((comp, id), minor_to_major);
        }
    }

    /// Whether `minor_to_major` lays out `id`'s array and leaves a choice (rank 2 or more).
    fn fits(&self, comp: ComputationId, id: InstrId, minor_to_major: &[i64]) -> bool {
        let computation = self.module.computation(comp);
        minor_to_major.len() >= 2
            && array_of(computation, id).is_some_and(|a| a.rank() == minor_to_major.len())
    }

    /// Walks the computation a fusion or call `id` calls, with the call's hint as its root's,
    /// and carries what its parameters want to the call's operands.
    fn call(&mut self, comp: ComputationId, id: InstrId, hint: Option<Vec<i64>>, depth: usize) {
        let module = self.module;
        let computation = module.computation(comp);
        let instruction = computation.instruction(id);
        if instruction.called.len() != 1 || depth >= MAX_DEPTH {
            return;
        }
        let callee = instruction.called[0];
        let result = match (&*instruction.shape, hint) {
            (Shape::Array(array), Some(hint)) => {
                let mut layout = array.layout_or_default().into_owned();
                layout.minor_to_major = hint;
                Some(Shape::Array(ArrayShape {
                    layout: Some(layout),
                    ..array.clone()
                }))
            }
            _ => None,
        };
        self.computation(callee, result, depth + 1);
        let operands = computation.operands(id);
        for (number, parameter) in module.computation(callee).parameters() {
            let wanted = self.hints.get(&(callee, parameter)).cloned();
            let operand = usize::try_from(number).ok().and_then(|n| operands.get(n));
            if let (Some(wanted), Some(&operand)) = (wanted, operand) {
                self.want(comp, operand, wanted);
            }
        }
    }

    fn computation(&mut self, comp: ComputationId, result: Option<Shape>, depth: usize) {
        let Some(walked) = self.walked.get_mut(comp.0 as usize) else {
            return;
        };
        if *walked {
            return;
        }
        *walked = true;
        let module = self.module;
        let computation = module.computation(comp);
        if let (Some(root), Some(result)) = (computation.root(), result) {
            match result {
                Shape::Array(array) => {
                    let wanted = array.layout_or_default().minor_to_major.clone();
                    self.want(comp, root, wanted);
                }
                Shape::Tuple(elements) if computation.instruction(root).opcode == Opcode::Tuple => {
                    for (element, operand) in elements.iter().zip(computation.operands(root)) {
                        if let Some(array) = element.as_array() {
                            let wanted = array.layout_or_default().minor_to_major.clone();
                            self.want(comp, operand, wanted);
                        }
                    }
                }
                _ => {}
            }
        }
        for &id in computation.order().iter().rev() {
            self.instruction(comp, id, depth);
        }
    }

    /// Carries the hint of `id`, if it has one, to its operands.
    fn instruction(&mut self, comp: ComputationId, id: InstrId, depth: usize) {
        let module = self.module;
        let computation = module.computation(comp);
        let instruction = computation.instruction(id);
        let operands = computation.operands(id);
        // A variadic reduce reads its inputs in one layout: an input with a layout known
        // lends it to the others (XLA forces the outputs to the inputs' layout).
        if instruction.opcode == Opcode::Reduce && matches!(*instruction.shape, Shape::Tuple(_)) {
            let inputs = &operands[..operands.len() / 2];
            let known = inputs
                .iter()
                .find_map(|&input| self.hints.get(&(comp, input)).cloned());
            if let Some(known) = known {
                for &input in inputs {
                    self.want(comp, input, known.clone());
                }
            }
            return;
        }
        // A convolution's layouts are the backend's, above what users want (XLA's
        // `AddBackendConstraints` makes them mandatory).
        if instruction.opcode == Opcode::Convolution {
            if let Some(result) = cost::result_preference(instruction) {
                self.force(comp, id, result.order);
            }
            for (slot, &operand) in operands.iter().enumerate() {
                let rank = array_of(computation, operand).map_or(0, ArrayShape::rank);
                if let Some(preference) = cost::operand_preference(instruction, slot, rank) {
                    self.force(comp, operand, preference.order);
                }
            }
            return;
        }
        let hint = self.hints.get(&(comp, id)).cloned();
        if matches!(instruction.opcode, Opcode::Fusion | Opcode::Call) {
            self.call(comp, id, hint, depth);
            return;
        }
        let Some(hint) = hint else {
            return;
        };
        let Some(array) = instruction.shape.as_array() else {
            return;
        };
        match &instruction.opcode {
            Opcode::While => {}
            op if op.keeps_layout() => {
                for operand in operands {
                    if array_of(computation, operand).is_some_and(|a| a.rank() == array.rank()) {
                        self.want(comp, operand, hint.clone());
                    }
                }
            }
            Opcode::Transpose => {
                // Result dim d is operand dim permutation[d].
                let permutation = instruction.dimensions();
                let mapped: Option<Vec<i64>> = permutation.and_then(|permutation| {
                    hint.iter()
                        .map(|&d| {
                            usize::try_from(d)
                                .ok()
                                .and_then(|d| permutation.get(d))
                                .copied()
                        })
                        .collect()
                });
                if let (Some(mapped), Some(&operand)) = (mapped, operands.first()) {
                    self.want(comp, operand, mapped);
                }
            }
            Opcode::Reshape => {
                let Some(&operand) = operands.first() else {
                    return;
                };
                let dims = array_of(computation, operand).and_then(ArrayShape::extents);
                let mut layout = array.layout_or_default().into_owned();
                layout.minor_to_major = hint;
                layout.tiles.clear();
                let wanted = ArrayShape {
                    layout: Some(layout),
                    ..array.clone()
                };
                if let Some(aligned) =
                    dims.and_then(|dims| cost::aligned_minor_to_major(&wanted, &dims))
                {
                    self.want(comp, operand, aligned);
                }
            }
            Opcode::Broadcast => {
                // The operand's dims in the order the result lays them out.
                let (Some(dimensions), Some(&operand)) =
                    (instruction.dimensions(), operands.first())
                else {
                    return;
                };
                let filtered: Vec<i64> = hint
                    .iter()
                    .filter_map(|d| dimensions.iter().position(|b| b == d).map(|p| p as i64))
                    .collect();
                self.want(comp, operand, filtered);
            }
            _ => {}
        }
    }
}
