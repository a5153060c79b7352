//! Async chains: `async-start`/`-update`/`-done` and XLA's sugar (`custom-call-start`...).
//! Shapes have the form `((operands...), output, context...)`, update and done take a start
//! or update of the same wrapped op, computation and thread, and a wrapped computation
//! belongs to one async op. Lowering reports the chains of text ([`chain_problems`]), as
//! XLA's parser does; the verifier checks them for modules built in code.

use std::collections::BTreeMap;

use crate::ir::module::{Computation, InstrId, Instruction, Module};
use crate::ir::opcode::{async_sugar, AsyncPart, Opcode};
use crate::ir::shape::Shape;

use super::callees::Indexed;
use super::error::{Found, Problem, Problems, VerifyError};
use crate::ir::shape_compare::{compatible, strip_layouts};

/// The async part an instruction is, and the op it wraps when the text names it.
fn part(instruction: &Instruction) -> Option<(AsyncPart, Option<Opcode>)> {
    match &instruction.opcode {
        Opcode::AsyncStart => Some((AsyncPart::Start, None)),
        Opcode::AsyncUpdate => Some((AsyncPart::Update, None)),
        Opcode::AsyncDone => Some((AsyncPart::Done, None)),
        other => async_sugar(other).map(|(wrapped, part)| (part, Some(wrapped))),
    }
}

const FORM: &str = "AsyncStart and AsyncUpdate expect the shape to be in the form of \
                    ((operand0_shape, operand1_shape, ...), output_shape, ...)";

fn has_async_form(shape: &Shape) -> bool {
    matches!(shape, Shape::Tuple(elements) if elements.len() >= 2
        && matches!(elements.first(), Some(Shape::Tuple(_))))
}

/// The op a chain wraps: the sugar's op, or the root opcode of the called computation.
fn wrapped_op(module: &Indexed<'_>, instruction: &Instruction) -> Option<Opcode> {
    if let Some((_, Some(op))) = part(instruction) {
        return Some(op);
    }
    let callee = module.called_computation(instruction, calls(instruction)?)?;
    module.callee(callee).root.map(|(opcode, _)| opcode.clone())
}

/// The attributes of an async op that the checks of the later parts of its chain read: the
/// computation it wraps and its thread.
pub(super) const READ_BY_LATER_PARTS: [&str; 2] = [CALLS, THREAD];
const CALLS: &str = "calls";
const THREAD: &str = "async_execution_thread";

fn calls(instruction: &Instruction) -> Option<&str> {
    instruction
        .attribute(CALLS)
        .map(|c| c.trim().trim_start_matches('%'))
}

fn thread(instruction: &Instruction) -> Option<&str> {
    instruction
        .attribute(THREAD)
        .map(|t| t.trim().trim_matches('"'))
}

/// The computation the chain `id` belongs to wraps: the first one written, walking back to
/// the start.
fn chain_calls(computation: &Computation, mut id: InstrId) -> Option<&str> {
    // Chains are acyclic (checked before), and each step moves to an operand.
    for _ in 0..computation.len() {
        let instruction = computation.instruction(id);
        if let Some(name) = calls(instruction) {
            return Some(name);
        }
        match computation.operands(id).first() {
            Some(&operand) if part_of(instruction) != Some(AsyncPart::Start) => id = operand,
            _ => break,
        }
    }
    None
}

/// The thread of the chain `id` belongs to: the first one written, walking back to the
/// start; `main` when none is.
fn chain_thread(computation: &Computation, mut id: InstrId) -> &str {
    // Chains are acyclic (checked before), and each step moves to an operand.
    for _ in 0..computation.len() {
        let instruction = computation.instruction(id);
        if let Some(thread) = thread(instruction) {
            return thread;
        }
        match computation.operands(id).first() {
            Some(&operand) if part_of(instruction) != Some(AsyncPart::Start) => id = operand,
            _ => break,
        }
    }
    "main"
}

/// Every problem with one instruction of an async chain.
pub fn check(module: &Indexed<'_>, computation: &Computation, id: InstrId) -> Problems {
    let instruction = computation.instruction(id);
    let Some((part, _)) = part(instruction) else {
        return Problems::default();
    };
    let mut errors = Problems::default();
    let operands = computation.operands(id);
    if part != AsyncPart::Done && !has_async_form(&instruction.shape) {
        errors.push_at(
            Found::AfterOperands,
            format!("{FORM}, found {}", strip_layouts(&instruction.shape)),
        );
    }
    if part == AsyncPart::Start {
        if let (Shape::Tuple(elements), Opcode::AsyncStart) =
            (&*instruction.shape, &instruction.opcode)
        {
            if let Some(callee) =
                calls(instruction).and_then(|c| module.called_computation(instruction, c))
            {
                let callee = module.callee(callee);
                if let (Some((_, root)), Some(output)) = (callee.root, elements.get(1)) {
                    if !compatible(root, output) {
                        errors.push(format!(
                            "the output {} of async-start differs from the root {} of `{}`",
                            strip_layouts(output),
                            strip_layouts(root),
                            callee.name
                        ));
                    }
                }
            }
        }
        return errors;
    }
    let Some(&operand) = operands.first() else {
        errors.push_at(
            Found::AfterInstruction,
            format!(
                "No operand found for AsyncUpdate and AsyncDone: `{}` needs the async op it \
             continues",
                instruction.opcode
            ),
        );
        return errors;
    };
    let previous = computation.instruction(operand);
    errors.extend(chain(module, computation, id, operand));
    // Shapes are compared only with an async op's.
    if !matches!(
        part_of(previous),
        Some(AsyncPart::Start | AsyncPart::Update)
    ) {
        return errors;
    }
    match part {
        AsyncPart::Update => {
            if has_async_form(&instruction.shape)
                && !compatible(&previous.shape, &instruction.shape)
            {
                errors.push_at(
                    Found::AfterOperands,
                    format!(
                        "async-update has shape {} but its operand has {}",
                        strip_layouts(&instruction.shape),
                        strip_layouts(&previous.shape)
                    ),
                );
            }
        }
        AsyncPart::Done => {
            if let Shape::Tuple(elements) = &*previous.shape {
                if let Some(output) = elements.get(1) {
                    if has_async_form(&previous.shape) && !compatible(output, &instruction.shape) {
                        errors.push(format!(
                            "async-done has shape {} but the async output is {}",
                            strip_layouts(&instruction.shape),
                            strip_layouts(output)
                        ));
                    }
                }
            }
        }
        AsyncPart::Start => {}
    }
    errors
}

/// What XLA's parser checks of the chain that instruction `id` (an `-update` or `-done`)
/// continues from its first operand `operand`: that operand is an async op, of the same
/// wrapped op, computation and thread. Lowering reports these for text, as XLA's parser
/// finds them before any of its verifier's ([`chain_problems`]); [`check`] checks them for
/// modules built in code. Empty when the chain is sound.
fn chain(
    module: &Indexed<'_>,
    computation: &Computation,
    id: InstrId,
    operand: InstrId,
) -> Problems {
    let instruction = computation.instruction(id);
    let previous = computation.instruction(operand);
    let mut errors = Problems::default();
    if !matches!(
        part_of(previous),
        Some(AsyncPart::Start | AsyncPart::Update)
    ) {
        errors.push_at(
            Found::AfterInstruction,
            format!(
                "AsyncUpdate and AsyncDone expect an asynchronous operation as their first \
             operand, found `{}` ({})",
                previous.name(),
                previous.opcode
            ),
        );
        return errors;
    }
    if let (Some(expected), Some(found)) = (
        wrapped_op(module, previous),
        wrapped_op(module, instruction),
    ) {
        if expected != found {
            errors.push_at(
                Found::AfterInstruction,
                format!("Expect async wrapped opcode to be {expected}, but got {found}"),
            );
        }
    }
    if let (Some(expected), Some(found)) = (chain_calls(computation, operand), calls(instruction)) {
        if expected != found {
            errors.push_at(
                Found::AfterInstruction,
                format!("Expect async_wrapped_computation to be {expected}, but got {found}"),
            );
        }
    }
    if let Some(found) = thread(instruction) {
        let expected = chain_thread(computation, operand);
        if expected != found {
            errors.push_at(
                Found::AfterInstruction,
                format!("Expect async_execution_thread to be {expected}, but got {found}"),
            );
        }
    }
    errors
}

/// Whether `instruction` continues an async chain: an `async-update` or `async-done`, or
/// their sugar (`custom-call-done`, ...).
pub(crate) fn continues_a_chain(instruction: &Instruction) -> bool {
    matches!(
        part(instruction),
        Some((AsyncPart::Update | AsyncPart::Done, _))
    )
}

/// The problems of every async chain of `module` that XLA's parser finds as it reads the
/// text ([`chain`]), each with the instruction at fault, in computation order. An `-update`
/// or `-done` without operands is left to the verifier's count of operands.
pub(crate) fn chain_problems(module: &Module) -> Vec<(&Instruction, Problem)> {
    let indexed = Indexed::new(module);
    let mut problems = Vec::new();
    for computation in module.computations() {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if !continues_a_chain(instruction) {
                continue;
            }
            if let Some(&operand) = computation.operands(id).first() {
                problems.extend(
                    chain(&indexed, computation, id, operand)
                        .into_iter()
                        .map(|problem| (instruction, problem)),
                );
            }
        }
    }
    problems
}

fn part_of(instruction: &Instruction) -> Option<AsyncPart> {
    part(instruction).map(|(p, _)| p)
}

/// The `async-start` instructions of `computation` that name the computation they call.
fn async_starts(computation: &Computation) -> impl Iterator<Item = (InstrId, &str)> {
    computation.order().iter().filter_map(|&id| {
        let instruction = computation.instruction(id);
        (instruction.opcode == Opcode::AsyncStart)
            .then(|| calls(instruction))
            .flatten()
            .map(|name| (id, name))
    })
}

/// The names the `async-start` instructions of `computation` call, in print order.
pub fn async_start_callees(computation: &Computation) -> impl Iterator<Item = &str> {
    async_starts(computation).map(|(_, name)| name)
}

/// A wrapped computation is called by one `async-start` only.
pub fn shared_computations(module: &Module, errors: &mut Vec<VerifyError>) {
    let mut callers: BTreeMap<&str, Vec<(&Computation, InstrId)>> = BTreeMap::new();
    for computation in module.computations() {
        for (id, name) in async_starts(computation) {
            callers.entry(name).or_default().push((computation, id));
        }
    }
    for (name, users) in callers {
        if let Some(&(computation, id)) = users.get(1) {
            errors.push(VerifyError::new(
                computation,
                Some(id),
                format!("Computation {name} is called by more than one async op"),
            ));
        }
    }
}
