//! The verifier: checks a lowered module and reports every problem, each with the span and
//! name of the instruction at fault.
//!
//! Invariants checked (structural):
//! - every instruction's operand slots are `0..n`, each exactly once;
//! - the operand graph of each computation is acyclic and has a root;
//! - each instruction's operand count fits its opcode.
//!
//!
//! Invariants checked (meaning):
//! - opcodes are known (or XLA's async sugar) and take only their attributes;
//! - result shapes agree with the shapes inferred from operands and attributes;
//! - called computations agree with their callers (parameters, roots, reducer arity);
//! - literals, parameter numbers, async chains and attribute values obey XLA's rules.
//!
//! In layout-sensitive mode, a bitcast keeps the physical byte size and ops that cannot
//! change layout have same-rank operands laid out as their result.

mod asynchronous;
pub mod attributes;
mod callees;
mod calls;
mod enums;
mod error;
pub(crate) mod header;
mod layout;
pub(crate) mod literals;
mod origin;
mod pieces;
pub(crate) mod semantic;
pub mod shapes;
mod sharding;

pub(crate) use callees::{Callee, Indexed, Signature};
pub use error::{Found, Problem, Problems, VerifyError, VerifyOptions};

use crate::ir::attribute_rules;
use crate::ir::module::{
    Computation, ComputationId, InstrId, Instruction, Module, Payload, TextAttribute,
};
use crate::ir::opcode::{async_sugar, AsyncPart, Opcode};
use crate::ir::shape::Shape;
use crate::ir::shape_compare;

/// Checks `module`; every error found is returned. A large module is checked on two threads.
pub fn verify(module: &Module, options: &VerifyOptions) -> Result<(), Vec<VerifyError>> {
    let min_instructions = crate::parallel::threshold(crate::parallel::VERIFY_MIN_INSTRUCTIONS);
    verify_on(module, options, min_instructions)
}

/// [`verify`], on two threads only when the module has at least `min_instructions`
/// instructions (`usize::MAX`: one thread, as benchmarks compare).
#[doc(hidden)]
pub fn verify_on(
    module: &Module,
    options: &VerifyOptions,
    min_instructions: usize,
) -> Result<(), Vec<VerifyError>> {
    let mut errors = in_two_shares(
        module,
        min_instructions,
        false,
        &|computation, _, _, errors| structure(computation, |_| true, errors),
    );
    // Meaning is checked only on a sound graph: a cycle would make it loop.
    if errors.is_empty() {
        let indexed = Indexed::new(module);
        errors = in_two_shares(
            module,
            min_instructions,
            true,
            &|computation, instructions, first, errors| {
                if first {
                    parameters(computation, errors);
                }
                for &id in instructions {
                    instruction(&indexed, computation, id, options, errors);
                }
            },
        );
        asynchronous::shared_computations(module, &mut errors);
        // The header comes before the computations in the text, and so do its errors.
        let mut header = Vec::new();
        header_attributes(module, &mut header);
        errors.splice(0..0, header);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A share of a computation for one thread: some of its instructions in print order, and
/// whether they start at its first instruction.
type Check<'a> = dyn Fn(&Computation, &[InstrId], bool, &mut Vec<VerifyError>) + Sync + 'a;

/// Runs `check` on every computation and returns the errors in print order. A large module is
/// checked on two threads, the first taking the first half of the instructions in print
/// order and the second the rest, cutting one computation in two when `divisible`, else
/// keeping it whole; the errors come out as one thread would give them.
fn in_two_shares(
    module: &Module,
    min_instructions: usize,
    divisible: bool,
    check: &Check<'_>,
) -> Vec<VerifyError> {
    // The first share ends in computation `cut.0` before its instruction `cut.1`.
    let run = |from: (usize, usize), to: (usize, usize)| {
        let mut errors = Vec::new();
        let computations = module.computations().iter().enumerate();
        for (i, computation) in computations.take(to.0 + 1).skip(from.0) {
            let order = computation.order();
            let start = if i == from.0 { from.1 } else { 0 };
            let end = if i == to.0 { to.1 } else { order.len() };
            // A share that ends at a computation's start leaves all of it to the next, and a
            // share that starts past a computation's end has none of it.
            let none_here = (i == to.0 && to.1 == 0) || (start > 0 && start >= end);
            if !none_here {
                check(computation, &order[start..end], start == 0, &mut errors);
            }
        }
        errors
    };
    let last = module.computations().len();
    let total = module.instruction_count();
    if total < min_instructions || last == 0 {
        return run((0, 0), (last, 0));
    }
    let sizes = module.computations().iter().map(Computation::len);
    let cut = if divisible {
        crate::parallel::even_cut(sizes)
    } else {
        (crate::parallel::balanced_cut(sizes), 0)
    };
    let (mut errors, more) = crate::parallel::join(|| run((0, 0), cut), || run(cut, (last, 0)));
    errors.extend(more);
    errors
}

/// Checks `computation` alone, as [`verify`] would check it in a whole module, for a caller
/// that checks computations one at a time as they are read: its callees come before it, and
/// `signatures` holds those above it, by id; `find` finds one by name (the first of a
/// duplicated name). Instructions whose index is below `checked_before` had
/// [`verify_instruction`] as they were read and are not checked again. The meaning of a
/// computation whose structure is unsound is not checked; its structure errors are
/// returned.
pub(crate) fn verify_computation(
    computation: &Computation,
    signatures: &[Signature],
    find: &(dyn Fn(&str) -> Option<ComputationId> + Sync),
    options: &VerifyOptions,
    checked_before: usize,
) -> Vec<VerifyError> {
    let mut errors = Vec::new();
    let unchecked = |id: &&InstrId| id.index() >= checked_before;
    structure(computation, unchecked, &mut errors);
    if errors.is_empty() {
        let indexed = Indexed::of_signatures(signatures, find);
        parameters(computation, &mut errors);
        for &id in computation.order().iter().filter(unchecked) {
            instruction(&indexed, computation, id, options, &mut errors);
        }
    }
    errors
}

/// Checks instruction `id` of a computation still being read, as [`verify_computation`]
/// checks it once the computation is whole, for a caller that checks each instruction as
/// soon as it is read. That gives the same answer only when every operand is already an
/// instruction above it, with its shape, so that `id` is complete: its operands, its
/// attributes and its shape are all its checks read, with the shapes and opcodes of its
/// operands, and the `calls` and thread of the async ops its chain continues.
pub(crate) fn verify_instruction(
    computation: &Computation,
    id: InstrId,
    signatures: &[Signature],
    find: &(dyn Fn(&str) -> Option<ComputationId> + Sync),
    options: &VerifyOptions,
) -> Vec<VerifyError> {
    let mut errors = Vec::new();
    operand_structure(computation, id, &mut errors);
    if errors.is_empty() {
        let indexed = Indexed::of_signatures(signatures, find);
        instruction(&indexed, computation, id, options, &mut errors);
    }
    errors
}

/// Drops from an instruction that [`verify_instruction`] has checked what no check of
/// another instruction, nor its computation's [`Signature`], reads: every attribute but the
/// `calls` and thread that the later parts of an async chain compare with theirs, a
/// constant's literal and the compact tuple-element paths. What stays is about a graph node.
pub(crate) fn keep_what_later_checks_read(instruction: &mut Instruction) {
    if !instruction.attributes.is_empty() {
        instruction.attributes = std::mem::take(&mut instruction.attributes)
            .into_iter()
            .filter(|a| asynchronous::READ_BY_LATER_PARTS.contains(&&*a.name))
            .collect();
    }
    if matches!(instruction.payload, Payload::Literal(_)) {
        instruction.payload = Payload::None;
    }
    instruction.clear_tuple_paths();
}

/// The names the `async-start`s of `computation` call, for the rule that a wrapped
/// computation belongs to one async op (see [`asynchronous::shared_computations`]).
pub(crate) fn async_start_callees(computation: &Computation) -> impl Iterator<Item = &str> {
    asynchronous::async_start_callees(computation)
}

/// Whether `instruction` continues an async chain (`async-update`, `async-done` or their
/// sugar), whose chain lowering checks once the module is read ([`async_chain_problems`]).
pub(crate) fn continues_async_chain(instruction: &Instruction) -> bool {
    asynchronous::continues_a_chain(instruction)
}

/// The problems of `module`'s async chains that XLA's parser finds as it reads them (an
/// `-update` or `-done` whose operand is no async op, or one of another wrapped op,
/// computation or thread), each with its instruction: lowering reports them, before any
/// of the verifier's, as XLA does. [`verify`] checks the same for modules built in code.
pub(crate) fn async_chain_problems(module: &Module) -> Vec<(&Instruction, Problem)> {
    asynchronous::chain_problems(module)
}

/// What is wrong with a `frontend_attributes` value, by XLA's grammar for it; lowering
/// checks it where the text writes it.
pub(crate) fn frontend_attributes_problems(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    enums::frontend_attributes(value, &mut problems);
    problems
}

/// The header's problems ([`verify`] reports them first, as the header comes first), given
/// the module's header attributes and its entry computation, each with the attribute it is
/// about.
pub(crate) fn header_problems<'a>(
    attributes: &'a [TextAttribute],
    entry: &Callee<'_>,
) -> Vec<(&'a str, String)> {
    let attribute = |name: &str| {
        attributes
            .iter()
            .find(|a| &*a.name == name)
            .map(|a| &*a.value)
    };
    let mut problems = Vec::new();
    type Check = fn(&str) -> Result<(), String>;
    let checks: [(&'static str, Check); 2] = [
        ("input_output_alias", header::input_output_alias),
        ("buffer_donor", header::buffer_donor),
    ];
    for (name, check) in checks {
        if let Some(text) = attribute(name) {
            if let Err(message) = check(text) {
                problems.push((name, format!("{name}: {message}")));
            }
        }
    }
    problems.extend(
        header::entry_computation_layout(attribute("entry_computation_layout"), entry)
            .into_iter()
            .map(|message| ("entry_computation_layout", message)),
    );
    for attribute in attributes {
        if !crate::ir::vocabulary::HEADER_ORDER.contains(&&*attribute.name) {
            problems.push((
                &attribute.name,
                format!(
                    "unexpected attribute \"{}\" in the HloModule header; allowed: {}",
                    attribute.name,
                    crate::ir::vocabulary::HEADER_ORDER.join(", ")
                ),
            ));
        }
    }
    problems
}

/// Every check of one instruction.
fn instruction(
    module: &Indexed<'_>,
    computation: &Computation,
    id: InstrId,
    options: &VerifyOptions,
    errors: &mut Vec<VerifyError>,
) {
    let instruction = computation.instruction(id);
    let opcode = &instruction.opcode;
    let sugar = async_sugar(opcode);
    if let (Opcode::Unknown(name), None) = (opcode, &sugar) {
        errors.push(VerifyError::new(
            computation,
            Some(id),
            format!("Unknown opcode: {name}"),
        ));
    }
    let operand_ids = computation.operands(id);
    // XLA's parser reads a conditional on a pred with the attributes of that form alone.
    let on_a_pred = *opcode == Opcode::Conditional
        && operand_ids.first().is_some_and(|&selector| {
            matches!(&*computation.instruction(selector).shape,
                Shape::Array(a) if a.rank() == 0
                    && a.element_type == crate::ir::primitive::PrimitiveType::Pred)
        });
    for (index, attribute) in instruction.attributes.iter().enumerate() {
        let message = if on_a_pred && &*attribute.name == "branch_computations" {
            "unexpected attribute \"branch_computations\": a conditional on a pred takes \
             `true_computation` and `false_computation`"
                .to_string()
        } else if !attribute_rules::allowed(opcode, &attribute.name)
            && semantic::mesh_device_ids(instruction, index).is_none()
        {
            format!(
                "unexpected attribute \"{}\" for `{opcode}`; allowed: {}",
                attribute.name,
                attribute_rules::allowed_list(opcode)
            )
        } else {
            continue;
        };
        errors.push(
            VerifyError::new(computation, Some(id), message).about_attribute(&attribute.name),
        );
    }
    let mut push = |problem: Problem| {
        errors
            .push(VerifyError::new(computation, Some(id), problem.message).found_at(problem.found))
    };
    for problem in semantic::check(computation, id, &operand_ids) {
        push(problem);
    }
    for problem in asynchronous::check(module, computation, id) {
        push(problem);
    }
    let Some(operands) = shapes::operand_shapes_of(computation, id, &operand_ids) else {
        // A compact tuple-element path that leads nowhere is reported above.
        return;
    };
    match shapes::infer_instruction(instruction, &operands) {
        Ok(Some(inferred)) => {
            let counted = tuple_operand_mismatch(instruction, operand_ids.len()).is_some();
            if !counted && !shape_compare::equals_without_layouts(&inferred, &instruction.shape) {
                let declared = shape_compare::strip_layouts(&instruction.shape);
                push(Problem::from(format!(
                    "`{opcode}` has the declared shape {declared} but its operands and attributes \
                     give {inferred}"
                )));
            }
        }
        Ok(None) => {}
        Err(message) => push(Problem::from(message)),
    }
    for problem in calls::check(module, computation, id, &operands) {
        push(problem);
    }
    if options.layout_sensitive {
        for message in layout::check(opcode, &instruction.shape, &operands) {
            push(Problem::from(message));
        }
    }
}

/// Parameter numbers are distinct and count up from 0.
fn parameters(computation: &Computation, errors: &mut Vec<VerifyError>) {
    let parameters = computation.parameters();
    for pair in parameters.windows(2) {
        if let [(a, _), (b, id)] = pair {
            if a == b {
                errors.push(
                    VerifyError::new(
                        computation,
                        Some(*id),
                        format!("Duplicate parameter number {a}"),
                    )
                    .found_at(Found::AfterParameterNumber),
                );
            }
        }
    }
    for (expected, (number, id)) in parameters.iter().enumerate() {
        if *number >= 0
            && *number != expected as i64
            && !parameters.iter().any(|(n, _)| *n == expected as i64)
        {
            errors.push(VerifyError::new(
                computation,
                Some(*id),
                format!(
                    "parameter numbers must be 0..{} without gaps; {expected} is missing",
                    parameters.len()
                ),
            ));
            break;
        }
    }
}

fn header_attributes(module: &Module, errors: &mut Vec<VerifyError>) {
    let entry = module.entry();
    for (attribute, message) in header_problems(&module.attributes, &Callee::of(entry)) {
        errors.push(VerifyError::new(entry, None, message).about_attribute(attribute));
    }
}

/// True when `slots` (there are `count`) are `0..count`, each once.
fn slots_are_dense(slots: impl Iterator<Item = u32>, count: usize) -> bool {
    // Nearly every instruction has at most 64 operands: a bit set on the stack will do.
    if count <= 64 {
        let mut seen = 0u64;
        for slot in slots {
            let bit = 1u64.checked_shl(slot).filter(|_| (slot as usize) < count);
            match bit {
                Some(bit) if seen & bit == 0 => seen |= bit,
                _ => return false,
            }
        }
        return true;
    }
    let mut sorted: Vec<u32> = slots.collect();
    sorted.sort_unstable();
    sorted.iter().enumerate().all(|(i, &slot)| slot == i as u32)
}

/// The structure of `computation`: its root, that it has no cycle, and the operands of the
/// instructions `which` selects.
fn structure(
    computation: &Computation,
    which: impl Fn(&&InstrId) -> bool,
    errors: &mut Vec<VerifyError>,
) {
    let Some(root) = computation.root() else {
        errors.push(VerifyError::new(
            computation,
            None,
            "the computation has no root",
        ));
        return;
    };
    if computation.get(root).is_err() {
        errors.push(VerifyError::new(
            computation,
            None,
            "the root is not an instruction of the computation",
        ));
    }
    if let Some(id) = computation.find_cycle() {
        errors.push(VerifyError::new(
            computation,
            Some(id),
            "the instruction depends on itself",
        ));
    }
    for &id in computation.order().iter().filter(&which) {
        operand_structure(computation, id, errors);
    }
    // What the parser cannot produce but the editing API can: a name used twice, an
    // operand printed below its user. Either prints text no parser reads.
    names_used_twice(computation, errors);
    for &id in computation.order().iter().filter(which) {
        for operand in computation.operands(id) {
            if computation.get(operand).is_ok() && !computation.precedes(operand, id) {
                errors.push(VerifyError::new(
                    computation,
                    Some(id),
                    format!(
                        "operand `{}` comes after its user in the computation's order",
                        computation.instruction(operand).name()
                    ),
                ));
            }
        }
    }
}

/// Reports each instruction whose name an instruction above it in the print order holds.
fn names_used_twice(computation: &Computation, errors: &mut Vec<VerifyError>) {
    // The computation's name index answers one instruction a name. When it answers each
    // instruction for its own name, no name is used twice, and no set of the names is built:
    // on a long computation that set was most of what verifying held beyond the module.
    let each_found_by_its_name = computation.order().iter().all(|&id| {
        let name = computation.instruction(id).name();
        computation.find(name) == Some(id)
    });
    if each_found_by_its_name {
        return;
    }
    let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
    for &id in computation.order() {
        let instruction = computation.instruction(id);
        if !seen.insert(instruction.name()) {
            errors.push(VerifyError::new(
                computation,
                Some(id),
                format!(
                    "the name `{}` is used twice in this computation",
                    instruction.name()
                ),
            ));
        }
    }
}

/// Operand slots are dense and their count fits the opcode; every layout fits its array.
fn operand_structure(computation: &Computation, id: InstrId, errors: &mut Vec<VerifyError>) {
    for array in computation.instruction(id).shape.leaves() {
        if let Some(layout) = &array.layout {
            for rule in layout.check_for_rank(array.rank()) {
                errors.push(VerifyError::new(
                    computation,
                    Some(id),
                    format!("the layout of {array} breaks a rule: {rule}"),
                ));
            }
        }
    }
    let slots = || {
        computation
            .graph()
            .edges_directed(id.node(), petgraph::Direction::Incoming)
            .map(|e| *e.weight())
    };
    let operand_count = slots().count();
    if !slots_are_dense(slots(), operand_count) {
        let mut found: Vec<u32> = slots().collect();
        found.sort_unstable();
        errors.push(VerifyError::new(
            computation,
            Some(id),
            format!("operand slots must be 0..{operand_count} each once, found {found:?}"),
        ));
    }
    let instruction = computation.instruction(id);
    let arity = instruction.opcode.arity();
    let continues_async = matches!(instruction.opcode, Opcode::AsyncUpdate | Opcode::AsyncDone)
        || async_sugar(&instruction.opcode).is_some_and(|(_, part)| part != AsyncPart::Start);
    if continues_async && operand_count == 0 {
        errors.push(
            VerifyError::new(
                computation,
                Some(id),
                format!(
                    "No operand found for AsyncUpdate and AsyncDone: `{}` takes the async op \
                     it continues as its operand",
                    instruction.opcode
                ),
            )
            .found_at(Found::AfterInstruction),
        );
    } else if !arity.accepts(operand_count) {
        // XLA's parser counts a fixed number of operands as it reads them, and checks a
        // least number once it has read the instruction.
        let found = match arity {
            crate::ir::opcode::Arity::Exactly(_) => Found::OperandList,
            _ => Found::AfterInstruction,
        };
        errors.push(
            VerifyError::new(
                computation,
                Some(id),
                format!(
                    "`{}` takes {arity}, found {operand_count}",
                    instruction.opcode
                ),
            )
            .found_at(found),
        );
    } else if let Some(elements) = tuple_operand_mismatch(instruction, operand_count) {
        // XLA's parser takes a tuple's operand count from its declared shape and counts
        // the operands against it as it reads them.
        errors.push(
            VerifyError::new(
                computation,
                Some(id),
                format!(
                    "`tuple` of shape {} takes {elements} operands, found {operand_count}",
                    shape_compare::strip_layouts(&instruction.shape)
                ),
            )
            .found_at(Found::OperandList),
        );
    }
}

/// A `tuple`'s element count when its operand count is not that: its shape then cannot be
/// what its operands give, and the count is the error to report.
fn tuple_operand_mismatch(instruction: &Instruction, operand_count: usize) -> Option<usize> {
    match &*instruction.shape {
        Shape::Tuple(elements)
            if instruction.opcode == Opcode::Tuple && elements.len() != operand_count =>
        {
            Some(elements.len())
        }
        _ => None,
    }
}
