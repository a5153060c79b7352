//! Call signatures: `call`, `while`, `conditional`, `fusion` and the reducers and comparators
//! of `to_apply` agree with the computations they call (parameters against operands, roots
//! against results).

use crate::ir::module::{Computation, ComputationId, InstrId, Instruction};
use crate::ir::opcode::Opcode;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Shape;

use super::callees::{Callee, Indexed};
use super::error::{Found, Problems};
use crate::ir::shape_compare::{compatible, strip_layouts};

fn pred_scalar() -> Shape {
    Shape::Array(crate::ir::ArrayShape::new(PrimitiveType::Pred, &[]))
}

/// Every problem with the computations `instruction` calls, as messages.
pub fn check(
    module: &Indexed<'_>,
    computation: &Computation,
    id: InstrId,
    operands: &[&Shape],
) -> Problems {
    let instruction = computation.instruction(id);
    let mut errors = Problems::default();
    let called = |name: &str| called_by(module, instruction, name);
    match instruction.opcode {
        Opcode::Call | Opcode::Fusion => {
            let attribute = if instruction.opcode == Opcode::Call {
                "to_apply"
            } else {
                "calls"
            };
            match called(attribute) {
                Some(callee) => {
                    let callee = module.callee(callee);
                    arguments(&callee, operands, &mut errors);
                    result(&callee, &instruction.shape, &mut errors);
                }
                None => errors.push(format!(
                    "`{}` requires the attribute `{attribute}`",
                    instruction.opcode
                )),
            }
        }
        Opcode::While => {
            let (Some(condition), Some(body)) = (called("condition"), called("body")) else {
                errors.push("`while` requires the attributes `condition` and `body`");
                return errors;
            };
            let condition = module.callee(condition);
            let body = module.callee(body);
            arguments(&condition, operands, &mut errors);
            arguments(&body, operands, &mut errors);
            result(&condition, &pred_scalar(), &mut errors);
            if let Some(operand) = operands.first() {
                result(&body, operand, &mut errors);
                if !compatible(operand, &instruction.shape) {
                    errors.push(format!(
                        "the result {} of `while` differs from its operand {}",
                        strip_layouts(&instruction.shape),
                        strip_layouts(operand)
                    ));
                }
            }
        }
        Opcode::Conditional => conditional(module, instruction, operands, &mut errors),
        _ => {}
    }
    reducer_arity(module, instruction, operands.len(), &mut errors);
    errors
}

/// The computation an attribute names, resolved by lowering.
fn called_by(
    module: &Indexed<'_>,
    instruction: &Instruction,
    attribute: &str,
) -> Option<ComputationId> {
    let name = instruction.attribute(attribute)?;
    let name = name.trim().trim_start_matches('%');
    module.find_computation(name)
}

/// The computations of a `{%a, %b}` list attribute.
fn called_list(
    module: &Indexed<'_>,
    instruction: &Instruction,
    attribute: &str,
) -> Vec<ComputationId> {
    let Some(text) = instruction.attribute(attribute) else {
        return Vec::new();
    };
    crate::ir::attrs::name_list(text)
        .filter_map(|name| module.called_computation(instruction, name))
        .collect()
}

fn arguments(callee: &Callee<'_>, operands: &[&Shape], errors: &mut Problems) {
    let parameters = &callee.parameters;
    if parameters.len() != operands.len() {
        errors.push(format!(
            "computation `{}` takes {} parameters but is given {} operands",
            callee.name,
            parameters.len(),
            operands.len()
        ));
        return;
    }
    for (i, ((_, parameter), operand)) in parameters.iter().zip(operands).enumerate() {
        if !compatible(parameter, operand) {
            errors.push(format!(
                "operand {i} has shape {} but parameter {i} of computation `{}` has shape {}",
                strip_layouts(operand),
                callee.name,
                strip_layouts(parameter)
            ));
        }
    }
}

fn result(callee: &Callee<'_>, expected: &Shape, errors: &mut Problems) {
    if let Some((_, root)) = callee.root {
        if !compatible(root, expected) {
            errors.push(format!(
                "the root of computation `{}` has shape {} but {} is expected",
                callee.name,
                strip_layouts(root),
                strip_layouts(expected)
            ));
        }
    }
}

fn conditional(
    module: &Indexed<'_>,
    instruction: &Instruction,
    operands: &[&Shape],
    errors: &mut Problems,
) {
    let Some(selector) = operands.first() else {
        return;
    };
    let selector_type = match selector {
        Shape::Array(array) if array.rank() == 0 => Some(array.element_type),
        _ => None,
    };
    let branches = match selector_type {
        None => {
            errors.push_at(
                Found::AfterOperands,
                format!(
                    "The first operand must be a scalar of PRED or S32, found {}",
                    strip_layouts(selector)
                ),
            );
            return;
        }
        Some(PrimitiveType::Pred) => {
            // The verifier reports `branch_computations` here as an attribute the
            // conditional does not take, at the attribute.
            if instruction.attribute("branch_computations").is_some() {
                return;
            }
            match (
                called_by(module, instruction, "true_computation"),
                called_by(module, instruction, "false_computation"),
            ) {
                (Some(t), Some(f)) => vec![t, f],
                _ => {
                    errors.push(
                        "a conditional on a pred requires `true_computation` and \
                         `false_computation`",
                    );
                    return;
                }
            }
        }
        Some(PrimitiveType::S32) => {
            let branches = called_list(module, instruction, "branch_computations");
            if branches.is_empty() {
                errors.push("a conditional on an s32 index requires `branch_computations`");
                return;
            }
            branches
        }
        Some(other) => {
            errors.push_at(
                Found::AfterOperands,
                format!(
                    "The first operand must be a scalar of PRED or S32, found {}",
                    other.name()
                ),
            );
            return;
        }
    };
    let branch_operands = operands.get(1..).unwrap_or(&[]);
    if branch_operands.len() != branches.len() {
        errors.push(format!(
            "a conditional with {} branches needs {} branch operands after the selector, found {}",
            branches.len(),
            branches.len(),
            branch_operands.len()
        ));
        return;
    }
    for (branch, operand) in branches.iter().zip(branch_operands) {
        let callee = module.callee(*branch);
        arguments(&callee, std::slice::from_ref(operand), errors);
        result(&callee, &instruction.shape, errors);
    }
}

/// Reducers and comparators take as many parameters as their op gives them.
fn reducer_arity(
    module: &Indexed<'_>,
    instruction: &Instruction,
    operand_count: usize,
    errors: &mut Problems,
) {
    let expected = match instruction.opcode {
        // N inputs and N init values: the reducer takes 2N scalars.
        Opcode::Reduce | Opcode::ReduceWindow => operand_count,
        Opcode::AllReduce | Opcode::AllReduceStart | Opcode::ReduceScatter => 2,
        Opcode::Scatter => (operand_count.saturating_sub(1) / 2) * 2,
        Opcode::Sort => 2 * operand_count,
        Opcode::Map => operand_count,
        _ => return,
    };
    // A computation written in place (`to_apply={...}`) is not lowered to one; nothing to
    // compare against.
    if instruction
        .attribute("to_apply")
        .is_some_and(|t| t.trim_start().starts_with('{'))
    {
        return;
    }
    let Some(callee) = called_by(module, instruction, "to_apply") else {
        errors.push(format!(
            "`{}` requires the attribute `to_apply`",
            instruction.opcode
        ));
        return;
    };
    let callee = module.callee(callee);
    let found = callee.parameters.len();
    if found != expected {
        errors.push(format!(
            "the `to_apply` computation `{}` of `{}` must take {expected} parameters, it takes {found}",
            callee.name, instruction.opcode
        ));
    }
    if instruction.opcode == Opcode::Sort {
        result(&callee, &pred_scalar(), errors);
    }
}
