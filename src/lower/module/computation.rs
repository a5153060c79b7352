//! One computation's lines to the IR: each instruction line lowered (its shape and
//! attributes through the memo, its opcode's parser rules checked), added to the open
//! computation's graph, and its operands connected by name; at the closing brace, operands
//! still unresolved, the root, parameter numbers, the signature and cycles are checked and
//! missing shapes inferred. A computation written in place is lowered here too, into a
//! computation of its own that closes before its caller.
//!
//! Invariant: an operand named above its user is connected as soon as its line is read;
//! any other waits for the closing brace, where it is an error (defined below its use, or
//! nowhere). A line whose shape does not lower is left out, its name noted, so that neither
//! an empty computation nor a use of that name is reported again.

use std::sync::Arc;

use thin_vec::ThinVec;

use super::callees::{
    holds_body, names_one, takes_a_list, unnamed_body, Callee, CalleeList, InPlaceAttribute,
    PendingCall,
};
use super::memo::Memo;
use super::names::reserved_name;
use crate::ir::module::{
    Computation, ComputationId, InstrId, Instruction, OperandSpelling, Payload, PrintStyle,
    TextAttribute,
};
use crate::ir::opcode::{OpKind, Opcode};
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Shape;
use crate::lower::canonical;
use crate::lower::error::ModuleError;
use crate::lower::parser_checks::{
    check_frontend_attributes, check_single_values, check_unique_attributes, unknown_opcode,
};
use crate::lower::shape::{lower_shape, with_default_layouts};
use crate::syntax::ast::{self, Span, Term, WordKind};

/// The lowering of the open computation's lines: the computation, the memo of what lowering
/// made from text, and what has closed (where errors and calls go).
pub(super) struct ComputationLowering<'a, 's> {
    pub(super) open: &'a mut OpenComputation<'s>,
    pub(super) memo: &'a mut Memo<'s>,
    pub(super) closed: &'a mut Closed<'s>,
}

/// An operand waiting for its name to be resolved.
pub(super) struct PendingOperand<'s> {
    user: InstrId,
    slot: u32,
    name: ast::Name<'s>,
    /// The shape the text declared for the operand (`f32[2] %x`), if any.
    shape: Option<Arc<Shape>>,
    /// The compact tuple-element path (`%t#1`).
    path: ThinVec<i64>,
    /// The operand's text, from its shape when that is written: where XLA reports an
    /// operand it cannot read.
    span: Span,
}

/// The computations an instruction calls, by attribute: the index of an attribute that
/// writes them in place, or `None`. Thin, as most instructions call none and the read-ahead
/// thread holds one for every line it reads ahead.
pub(super) type CalleeLists<'s> = ThinVec<(Option<usize>, CalleeList<'s>)>;

/// An operand by name, with what lowering makes of it before its name is looked up. The
/// read-ahead thread holds one for every operand of the text it reads ahead, so the path is
/// a thin vector: nearly every operand has none.
pub(crate) struct PreparedOperand<'s> {
    slot: u32,
    name: ast::Name<'s>,
    /// The shape the text declared for the operand, if any.
    shape: Option<Arc<Shape>>,
    /// The compact tuple-element path (`%t#1`), as far as its indices are numbers.
    path: ThinVec<i64>,
    /// Whether the text wrote a path at all.
    indexed: bool,
    /// The operand's text, from its shape when that is written.
    span: Span,
}

impl<'s> PreparedOperand<'s> {
    /// `None` unless `operand` names an instruction.
    pub(super) fn new(memo: &mut Memo<'s>, slot: u32, operand: &ast::Operand<'s>) -> Option<Self> {
        let ast::Operand::Ref {
            name,
            indices,
            shape,
        } = operand
        else {
            return None;
        };
        Some(PreparedOperand {
            slot,
            name: *name,
            shape: shape.as_ref().and_then(|s| memo.shape(s).ok()),
            path: indices.iter().filter_map(|i| i.text.parse().ok()).collect(),
            indexed: !indices.is_empty(),
            span: operand.span(),
        })
    }
}

/// A computation whose instructions are still being read.
pub(super) struct OpenComputation<'s> {
    pub(super) head: ast::ComputationHead<'s>,
    pub(super) computation: Computation,
    pub(super) pending: Vec<PendingOperand<'s>>,
    root: Option<InstrId>,
    /// Instructions left out because their shape did not lower (each error is reported, so
    /// an empty computation or a use of their name is not reported again).
    pub(super) dropped: Vec<&'s str>,
    /// An operand edge may run against the order of ids (a nested instruction is added after
    /// its user): only then is there a print order to restore.
    pub(super) out_of_order: bool,
    /// Called computations by instruction, in attribute order.
    pub(super) calls: Vec<(InstrId, Callee<'s>)>,
    /// Attributes (by instruction and index) that wrote computations in place.
    pub(super) in_place: Vec<(InstrId, usize, CalleeList<'s>)>,
    /// The parameters added so far, by number and id, and whether an instruction left its
    /// shape to infer: the computation's end needs both, and finding them would be a pass
    /// over every instruction (a tenth of closing mixtral's computations).
    parameters: Vec<(i64, InstrId)>,
    shapes_to_infer: bool,
    /// Whether an instruction continues an async chain (see [`Closed`]).
    async_chains: bool,
    /// For a computation reopened ([`OpenComputation::resume`]): its graph nodes below this
    /// one have spans in the whole text already.
    pub(super) placed_nodes: Option<usize>,
}

/// What of an open computation lowering keeps when the text read so far goes before its
/// closing brace is read: nothing that borrows the text (`crate::lower::pieces`).
pub(crate) struct SuspendedComputation {
    computation: Computation,
    root: Option<InstrId>,
    out_of_order: bool,
    parameters: Vec<(i64, InstrId)>,
    shapes_to_infer: bool,
    async_chains: bool,
    /// The graph nodes below this one have spans moved into the whole text already.
    pub(super) placed_nodes: usize,
}

impl<'s> OpenComputation<'s> {
    /// What carries on without the text: `None` when anything still names text (an operand
    /// not yet resolved, a line left out, a computation written in place, a callee
    /// `resolve` does not find). Calls are resolved now, each callee pushed on its
    /// instruction's list: an instruction's calls are all on its line, so each list keeps
    /// its attribute order.
    pub(super) fn suspend(
        self,
        resolve: impl Fn(&str) -> Option<ComputationId>,
    ) -> Option<SuspendedComputation> {
        let OpenComputation {
            head: _,
            mut computation,
            pending,
            root,
            dropped,
            out_of_order,
            calls,
            in_place,
            parameters,
            shapes_to_infer,
            async_chains,
            placed_nodes: _,
        } = self;
        if !(pending.is_empty() && dropped.is_empty() && in_place.is_empty()) {
            return None;
        }
        for (instruction, callee) in calls {
            let Callee::Named(name, _) = callee else {
                return None;
            };
            let callee = resolve(name.text)?;
            computation.instruction_mut(instruction).called.push(callee);
        }
        Some(SuspendedComputation {
            placed_nodes: computation.node_bound(),
            computation,
            root,
            out_of_order,
            parameters,
            shapes_to_infer,
            async_chains,
        })
    }

    /// The computation `suspended` reopened under `head`, its head read again.
    pub(super) fn resume(
        head: ast::ComputationHead<'s>,
        suspended: SuspendedComputation,
    ) -> OpenComputation<'s> {
        let SuspendedComputation {
            computation,
            root,
            out_of_order,
            parameters,
            shapes_to_infer,
            async_chains,
            placed_nodes,
        } = suspended;
        OpenComputation {
            placed_nodes: Some(placed_nodes),
            root,
            out_of_order,
            parameters,
            shapes_to_infer,
            async_chains,
            ..OpenComputation::new(head, computation)
        }
    }

    pub(super) fn new(
        head: ast::ComputationHead<'s>,
        computation: Computation,
    ) -> OpenComputation<'s> {
        OpenComputation {
            head,
            computation,
            pending: Vec::new(),
            dropped: Vec::new(),
            root: None,
            out_of_order: false,
            calls: Vec::new(),
            in_place: Vec::new(),
            parameters: Vec::new(),
            shapes_to_infer: false,
            async_chains: false,
            placed_nodes: None,
        }
    }

    /// Adds `instruction` to the computation, noting what its end needs to know of it.
    fn push(&mut self, instruction: Instruction) -> InstrId {
        let noted = Self::to_note(&instruction);
        let id = self.computation.append(instruction, &[]);
        self.note(noted, id);
        id
    }

    /// [`OpenComputation::push`] for an instruction whose name must be new: the instruction
    /// that already has the name, and nothing added, when there is one.
    fn push_if_new(&mut self, instruction: Instruction) -> Result<InstrId, InstrId> {
        let noted = Self::to_note(&instruction);
        let id = self.computation.push_if_new(instruction, &[])?;
        self.note(noted, id);
        Ok(id)
    }

    /// What the computation's end needs to know of an instruction: its parameter number,
    /// whether its shape is left to infer, and whether it continues an async chain.
    fn to_note(instruction: &Instruction) -> (Option<i64>, bool, bool) {
        let parameter = match instruction.payload {
            Payload::Parameter(number) if instruction.opcode == Opcode::Parameter => Some(number),
            _ => None,
        };
        // Only these opcodes, and ones the table does not know (the sugar), can.
        let continues = matches!(
            instruction.opcode,
            Opcode::AsyncUpdate | Opcode::AsyncDone | Opcode::Unknown(_)
        ) && crate::verify::continues_async_chain(instruction);
        (parameter, !instruction.shape_written, continues)
    }

    fn note(&mut self, (parameter, to_infer, continues): (Option<i64>, bool, bool), id: InstrId) {
        self.shapes_to_infer |= to_infer;
        self.async_chains |= continues;
        if let Some(number) = parameter {
            self.parameters.push((number, id));
        }
    }
}

/// What lowering has finished: closed computations, and what waits for the module's end.
#[derive(Default)]
pub(super) struct Closed<'s> {
    /// In the order they closed: a computation written in place closes before its caller.
    pub(super) computations: Vec<Computation>,
    /// Computations closed and taken away before `computations[0]`
    /// ([`ModuleLowering::take_last_closed`]); ids count them.
    pub(super) taken: u32,
    pub(super) errors: Vec<ModuleError>,
    /// Called computations, resolved once every computation is known.
    pub(super) calls: Vec<PendingCall<'s>>,
    /// Attributes that wrote computations in place; their texts are written once those
    /// computations have names.
    pub(super) in_place: Vec<InPlaceAttribute<'s>>,
    /// Whether a computation closed has an `-update` or `-done`, whose async chain is
    /// checked once every computation is known (a chain's wrapped op may be the root of a
    /// computation the other thread read).
    pub(super) async_chains: bool,
}

/// A computation that reaches this many lines is given room for the rest at once, counted
/// in its text, rather than grown as a vector does.
const SIZED_AT: usize = 64;

impl<'s> Closed<'s> {
    /// Adds a computation whose instructions are all read; returns its id.
    pub(super) fn close(&mut self, open: OpenComputation<'s>) -> ComputationId {
        let id = ComputationId(self.taken + self.computations.len() as u32);
        self.calls.extend(
            open.calls
                .into_iter()
                .map(|(instruction, callee)| PendingCall {
                    computation: id,
                    instruction,
                    callee,
                }),
        );
        self.in_place.extend(
            open.in_place
                .into_iter()
                .map(|(instruction, attribute, callees)| InPlaceAttribute {
                    computation: id,
                    instruction,
                    attribute,
                    callees,
                }),
        );
        self.async_chains |= open.async_chains;
        let mut computation = open.computation;
        // A short computation grew by doubling, and its unused room shares the allocator's
        // pages with other data, so it costs memory: it moves to exact room. A long one was
        // given room at once ([`SIZED_AT`]); room it never touched costs no memory, and
        // passes that add instructions to it find it there rather than copying it to grow.
        if computation.len() < SIZED_AT {
            computation.shrink_to_fit();
        }
        self.computations.push(computation);
        id
    }
}

impl<'s> ComputationLowering<'_, 's> {
    /// Lowers one line of the computation.
    pub(super) fn statement(&mut self, instruction: &ast::Instruction<'s>) {
        let mut pending = std::mem::take(&mut self.open.pending);
        let id = self.instruction(instruction, &mut pending);
        self.open.pending = pending;
        self.mark_root(instruction.root, id, instruction.span);
    }

    pub(super) fn mark_root(&mut self, root: bool, id: Option<InstrId>, span: Span) {
        if root {
            if self.open.root.is_some() {
                self.closed.errors.push(ModuleError::MultipleRoots {
                    computation: self.open.head.name.text.to_string(),
                    span,
                });
            }
            self.open.root = self.open.root.or(id);
        }
    }

    /// Lowers a computation written in place (`to_apply=\n  { ... }`) into a computation of
    /// its own, as XLA's parser does, and closes it before its caller. XLA asks more of its
    /// lines than of a named computation's: each is named and names its operands.
    fn in_place_computation(
        &mut self,
        instructions: &[ast::Instruction<'s>],
        span: Span,
    ) -> ComputationId {
        let head = ast::ComputationHead {
            entry: false,
            name: ast::Name {
                text: "_",
                percent: false,
                span,
            },
            signature: None,
            start: span.start,
        };
        let mut computation = Computation::new("_");
        computation.in_place = true;
        computation.percent = false;
        computation.has_signature = false;
        computation.span = span;
        let mut open = OpenComputation::new(head, computation);
        let mut lowering = ComputationLowering {
            open: &mut open,
            memo: self.memo,
            closed: self.closed,
        };
        for instruction in instructions {
            if instruction.name.text.is_empty() {
                lowering.closed.errors.push(ModuleError::Invalid {
                    message: "expects name: an instruction of an in-place computation needs \
                              `name =`"
                        .into(),
                    span: instruction.span,
                });
                // The line has had its error: the computation is not empty for want of it.
                lowering.open.dropped.push(instruction.name.text);
                continue;
            }
            let shape_alone = instruction
                .operands
                .iter()
                .find(|o| matches!(o, ast::Operand::Shape(_)));
            if let Some(operand) = shape_alone {
                // XLA reports the operand it cannot read as a name, where it starts.
                lowering.closed.errors.push(ModuleError::Invalid {
                    message: "expects name: an operand of an in-place computation must name \
                              an instruction"
                        .into(),
                    span: operand.span(),
                });
                lowering.open.dropped.push(instruction.name.text);
                continue;
            }
            lowering.statement(instruction);
        }
        lowering.finish();
        self.closed.close(open)
    }

    /// Makes `id` the operand `operand` names, checking the shape the text declared for it.
    fn connect(&mut self, operand: PendingOperand<'s>, id: InstrId) {
        let computation = &mut self.open.computation;
        if let Some(declared) = &operand.shape {
            let actual = computation.instruction(id);
            let actual = if operand.path.is_empty() {
                Some(&*actual.shape)
            } else {
                actual.shape.subshape(&operand.path)
            };
            if let Some(actual) = actual.filter(|a| {
                computation.instruction(id).shape_written
                    && !crate::ir::shape_compare::compatible(declared, a)
            }) {
                self.closed.errors.push(ModuleError::Invalid {
                    message: format!(
                        "The declared operand shape {declared} is not compatible \
                         with the shape of the operand instruction {actual}."
                    ),
                    span: operand.span,
                });
            }
        }
        // Ids grow in text order; an operand at or after its user may close a cycle.
        if id.index() >= operand.user.index() {
            self.open.out_of_order = true;
        }
        computation.link_operand(id, operand.user, operand.slot);
    }

    /// Resolves operands and checks the computation once its closing brace is read.
    pub(super) fn finish(&mut self) {
        let head = &self.open.head;
        let computation = &mut self.open.computation;
        // A computation whose every line failed to lower has had its errors.
        if computation.is_empty() {
            if self.open.dropped.is_empty() {
                self.closed.errors.push(ModuleError::MissingRoot {
                    name: head.name.text.to_string(),
                    span: head.name.span,
                });
            }
            return;
        }
        // Operands not found when read are defined below their use, or nowhere: both errors.
        for operand in std::mem::take(&mut self.open.pending) {
            match self.open.computation.find(operand.name.text) {
                Some(id) => {
                    let definition = self.open.computation.instruction(id).span;
                    self.closed
                        .errors
                        .push(ModuleError::OperandBeforeDefinition {
                            name: operand.name.text.to_string(),
                            computation: self.open.head.name.text.to_string(),
                            span: operand.span,
                            definition,
                        });
                }
                None if self.open.dropped.contains(&operand.name.text) => {}
                None => self.closed.errors.push(ModuleError::UnknownOperand {
                    name: operand.name.text.to_string(),
                    computation: self.open.head.name.text.to_string(),
                    span: operand.span,
                }),
            }
        }
        // XLA reads the signature's shapes as shapes: a bad one is an error even though only
        // the result's is compared with anything. The memo makes each one lookup per text.
        let mut declared_result = None;
        if let Some(signature) = &self.open.head.signature {
            let shapes = signature.parameters.iter().map(|(_, shape)| shape);
            for shape in shapes.chain([&signature.result]) {
                match self.memo.shape(shape) {
                    Ok(lowered) => declared_result = Some(lowered),
                    Err(e) => {
                        declared_result = None;
                        self.closed
                            .errors
                            .extend(e.into_iter().map(ModuleError::from));
                    }
                }
            }
        }
        let head = &self.open.head;
        let computation = &mut self.open.computation;
        let root = self.open.root;
        let last = computation.last_in_order();
        if let Some(root_id) = root.or(last) {
            computation.set_root(root_id);
            computation.root_written = root.is_some();
        }
        if let (Some(declared), Some(root_id)) = (declared_result, root.or(last)) {
            let root_shape = &computation.instruction(root_id).shape;
            if computation.instruction(root_id).shape_written
                && !crate::ir::shape_compare::compatible(&declared, root_shape)
            {
                self.closed.errors.push(ModuleError::Invalid {
                    message: format!(
                        "Shape of computation {}, {}, is not compatible with that of its \
                         root instruction {}, {}",
                        head.name.text,
                        crate::ir::shape_compare::strip_layouts(&declared),
                        computation.instruction(root_id).name(),
                        crate::ir::shape_compare::strip_layouts(root_shape)
                    ),
                    // XLA points at the result shape the signature declares.
                    span: head
                        .signature
                        .as_ref()
                        .map_or(head.name.span, |s| s.result.span()),
                });
            }
        }
        // (e) Parameter numbers are unique.
        let mut parameters = std::mem::take(&mut self.open.parameters);
        // In the order `Computation::parameters` gives.
        parameters.sort_unstable();
        debug_assert_eq!(parameters, computation.parameters());
        for pair in parameters.windows(2) {
            if let [(a, _), (b, id)] = pair {
                if a == b {
                    let span = computation.instruction(*id).span;
                    let message = format!("Duplicate parameter number {a}");
                    let number = self.memo.source.and_then(|source| {
                        let tree = crate::syntax::parse_module_range(source, span.range()).ok()?;
                        let number = tree.instruction?.operands.first()?.span();
                        Some((crate::syntax::token_after(source, number.end), number))
                    });
                    // XLA checks the number once it has read it, at the `)` after it.
                    self.closed.errors.push(match number {
                        Some((after, number)) => ModuleError::InvalidAfter {
                            message,
                            span: after,
                            label: "found once the number is read",
                            fault: number,
                            fault_label: "this parameter number",
                        },
                        None => ModuleError::Invalid { message, span },
                    });
                }
            }
        }
        if let Some(signature) = &head.signature {
            let differs = signature.parameters.len() != parameters.len()
                || signature
                    .parameters
                    .iter()
                    .zip(&parameters)
                    .any(|((name, _), (_, id))| computation.instruction(*id).name() != name.text);
            if differs {
                computation.signature_names = signature
                    .parameters
                    .iter()
                    .map(|(n, _)| n.text.to_string())
                    .collect();
            }
        }
        if self.open.out_of_order {
            if let Some(id) = computation.find_cycle() {
                let instruction = computation.instruction(id);
                self.closed.errors.push(ModuleError::Cycle {
                    name: instruction.name().to_string(),
                    span: instruction.span,
                });
            }
            // Nested instructions were added after their users; print them before, and
            // infer their shapes before their users' shapes.
            computation.restore_def_before_use();
        }
        self.infer_missing_shapes();
    }

    /// Lowers one instruction (and nested anonymous ones); operands by name are queued.
    fn instruction(
        &mut self,
        instruction: &ast::Instruction<'s>,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let (lowered, callee_lists, operands) = self.prepare(instruction)?;
        let id = self.add(lowered, instruction.name, instruction.span)?;
        self.register_callees(id, callee_lists);
        self.operands(id, operands, pending);
        Some(id)
    }

    /// What lowering makes of an instruction line before it has a place in its
    /// computation: the instruction, the computations it calls, and its operands still to
    /// be connected. `None` when its shape does not lower (reported).
    #[allow(clippy::type_complexity)]
    pub(super) fn prepare<'o>(
        &mut self,
        instruction: &'o ast::Instruction<'s>,
    ) -> Option<(Instruction, CalleeLists<'s>, &'o [ast::Operand<'s>])> {
        let opcode = Opcode::from_name(instruction.opcode.text);
        self.closed
            .errors
            .extend(unknown_opcode(&opcode, &instruction.opcode));
        let (shape, shape_written) = match &instruction.shape {
            Some(shape) => match self.memo.shape(shape) {
                Ok(shape) => (shape, true),
                Err(e) => {
                    self.closed
                        .errors
                        .extend(e.into_iter().map(ModuleError::from));
                    self.open.dropped.push(instruction.name.text);
                    return None;
                }
            },
            None => (Arc::new(Shape::Tuple(Vec::new())), false),
        };
        if let Some(message) = reserved_name(&instruction.name, "instruction") {
            self.closed.errors.push(ModuleError::Invalid {
                message,
                span: instruction.name.span,
            });
        }
        let mut lowered = Instruction::new(instruction.name.text, opcode, shape);
        lowered.shape_written = shape_written;
        lowered.style = style_of(instruction);
        lowered.span = instruction.span;
        check_unique_attributes(&instruction.attributes, &mut self.closed.errors);
        check_single_values(&instruction.attributes, &mut self.closed.errors);
        check_frontend_attributes(&instruction.attributes, &mut self.closed.errors);
        crate::lower::parser_checks::attributes(
            &lowered.opcode,
            &instruction.attributes,
            &mut self.closed.errors,
        );
        let mut callee_lists = CalleeLists::new();
        // Exactly: grown one at a time, the vector would keep room for four.
        lowered
            .attributes
            .reserve_exact(instruction.attributes.len());
        for attribute in &instruction.attributes {
            let calls = crate::ir::vocabulary::calls_computations(attribute.name.text)
                && crate::ir::attribute_rules::allowed(&lowered.opcode, attribute.name.text);
            if calls
                && !takes_a_list(attribute.name.text)
                && !names_one(&attribute.value)
                && !unnamed_body(&attribute.value)
            {
                // XLA reads a `{` there as an in-place computation, which needs names.
                self.closed.errors.push(ModuleError::Invalid {
                    message: format!(
                        "expects name: `{}` takes one computation, by name or written in \
                         place as `{{ name = ... }}`",
                        attribute.name.text
                    ),
                    span: attribute.span,
                });
            }
            if calls && holds_body(&attribute.value) {
                // The text is written once the in-place computations have names.
                let index = lowered.attributes.len();
                lowered
                    .attributes
                    .push(TextAttribute::new(attribute.name.text, ""));
                let braced = matches!(attribute.value.as_slice(), [Term::List(_)]);
                let mut callees = Vec::new();
                self.callees(&attribute.value, &mut callees);
                callee_lists.push((Some(index), CalleeList { callees, braced }));
                continue;
            }
            match self.memo.attribute(attribute) {
                Ok(attribute) => lowered.attributes.push(attribute),
                Err(e) => self
                    .closed
                    .errors
                    .extend(e.into_iter().map(ModuleError::from)),
            }
            if calls {
                let mut callees = Vec::new();
                self.callees(&attribute.value, &mut callees);
                callee_lists.push((
                    None,
                    CalleeList {
                        callees,
                        braced: false,
                    },
                ));
            }
        }
        let operands = self.payload(instruction, &mut lowered);
        Some((lowered, callee_lists, operands))
    }

    /// Records the computations instruction `id` calls, for resolving at the module's end.
    pub(super) fn register_callees(&mut self, id: InstrId, callee_lists: CalleeLists<'s>) {
        for (index, list) in callee_lists {
            self.open
                .calls
                .extend(list.callees.iter().map(|&callee| (id, callee)));
            if let Some(index) = index {
                self.open.in_place.push((id, index, list));
            }
        }
    }

    /// Connects operand `operand` of `user` by name: at once when it is defined above, else
    /// at the computation's end.
    pub(super) fn reference(
        &mut self,
        user: InstrId,
        operand: PreparedOperand<'s>,
        pending: &mut Vec<PendingOperand<'s>>,
    ) {
        let PreparedOperand {
            slot,
            name,
            shape,
            path,
            indexed,
            span,
        } = operand;
        let user_instruction = self.open.computation.instruction_mut(user);
        let percent_differs = name.percent != user_instruction.style.operand_percent;
        if percent_differs || indexed {
            let tuple_path = if indexed { path.to_vec() } else { Vec::new() };
            user_instruction.operand_spellings.push(OperandSpelling {
                slot,
                percent_differs,
                tuple_path,
            });
        }
        let operand = PendingOperand {
            user,
            slot,
            name,
            shape,
            path,
            span,
        };
        // An operand defined above (nearly all are) is connected at once; the rest wait
        // for the end of the computation. An instruction naming itself is read before its
        // own definition.
        match self.open.computation.find(name.text) {
            Some(id) if id != user => self.connect(operand, id),
            _ => pending.push(operand),
        }
    }

    /// Takes `parameter(N)` and `constant(literal)` out of the operand list; returns the
    /// operands that are real.
    fn payload<'o>(
        &mut self,
        instruction: &'o ast::Instruction<'s>,
        lowered: &mut Instruction,
    ) -> &'o [ast::Operand<'s>] {
        match (&lowered.opcode, instruction.operands.as_slice()) {
            (Opcode::Parameter, [ast::Operand::Literal(Term::Word(word, WordKind::Int))]) => {
                match word.text.parse::<i64>() {
                    Ok(n) => lowered.payload = Payload::Parameter(n),
                    Err(_) => self.closed.errors.push(ModuleError::ParameterNumber {
                        span: instruction.span,
                    }),
                }
                &[]
            }
            (Opcode::Parameter, _) => {
                self.closed.errors.push(ModuleError::ParameterNumber {
                    span: instruction.span,
                });
                &[]
            }
            // `constant(inf)`, `constant(true)`: a lone word reads like a name.
            (
                Opcode::Constant,
                [ast::Operand::Ref {
                    shape: None,
                    name,
                    indices,
                }],
            ) if indices.is_empty() && !name.percent => {
                lowered.payload = Payload::Literal(name.text.into());
                &[]
            }
            (_, [ast::Operand::Literal(term)]) => {
                match canonical::literal_text(term) {
                    Ok(text) => {
                        if let (Opcode::Constant, Shape::Array(array)) =
                            (&lowered.opcode, &*lowered.shape)
                        {
                            self.closed
                                .errors
                                .extend(crate::lower::parser_checks::literal(&text, term, array));
                        }
                        lowered.payload = Payload::Literal(text.into());
                    }
                    Err(e) => self
                        .closed
                        .errors
                        .extend(e.into_iter().map(ModuleError::from)),
                }
                &[]
            }
            (_, operands) => operands,
        }
    }

    pub(super) fn add(
        &mut self,
        instruction: Instruction,
        name: ast::Name<'_>,
        span: Span,
    ) -> Option<InstrId> {
        debug_assert_eq!(instruction.span, span);
        let id = match self.open.push_if_new(instruction) {
            Ok(id) => id,
            Err(first) => {
                let computation = &self.open.computation;
                self.closed.errors.push(ModuleError::DuplicateInstruction {
                    name: name.text.to_string(),
                    computation: computation.name.to_string(),
                    span: name.span,
                    first: computation.instruction(first).span,
                });
                return None;
            }
        };
        // A computation that reaches this many lines is given room for the rest at once,
        // counted from here to its `}` line, rather than grown as a vector does; short ones
        // (most computations have a dozen lines) just grow, which costs less than counting
        // the lines of each as it opens.
        if self.open.computation.len() == SIZED_AT {
            if let Some(source) = self.memo.source {
                if let Some(rest) = self.memo.lines.instructions_from(source, span.end) {
                    // And an eighth more, which passes that add instructions (layout
                    // assignment adds a few percent) take rather than copy the graph to
                    // grow it; room never written takes no memory.
                    self.open.computation.reserve(rest.saturating_add(rest / 8));
                }
            }
        }
        Some(id)
    }

    fn operands(
        &mut self,
        user: InstrId,
        operands: &[ast::Operand<'s>],
        pending: &mut Vec<PendingOperand<'s>>,
    ) {
        for (slot, operand) in operands.iter().enumerate() {
            let slot = slot as u32;
            match operand {
                ast::Operand::Ref { .. } => {
                    if let Some(operand) = PreparedOperand::new(self.memo, slot, operand) {
                        self.reference(user, operand, pending);
                    }
                }
                ast::Operand::Nested {
                    shape,
                    opcode,
                    operands,
                    span,
                } => {
                    // XLA names anonymous nested instructions `opcode.anon`.
                    let base = format!("{}.anon", opcode.text);
                    let name = self.open.computation.unique_name(&base);
                    let nested = ast::Instruction {
                        root: false,
                        name: ast::Name {
                            text: "",
                            percent: false,
                            span: *span,
                        },
                        shape: shape.clone(),
                        opcode: *opcode,
                        operands: operands.clone(),
                        attributes: Vec::new(),
                        span: *span,
                    };
                    let mut nested_pending = Vec::new();
                    if let Some(id) = self.nested(&nested, name, &mut nested_pending) {
                        self.open.computation.link_operand(id, user, slot);
                    }
                    pending.extend(nested_pending);
                }
                ast::Operand::Shape(shape) => {
                    // XLA's single-instruction form: a shape alone is a new parameter.
                    if let Ok(shape) = lower_shape(shape).map_err(|e| {
                        self.closed
                            .errors
                            .extend(e.into_iter().map(ModuleError::from))
                    }) {
                        let number = self.open.parameters.len() as i64;
                        let name = self.open.computation.unique_name("parameter.anon");
                        let mut parameter =
                            Instruction::new(name, Opcode::Parameter, with_default_layouts(shape));
                        parameter.payload = Payload::Parameter(number);
                        let id = self.open.push(parameter);
                        self.open.computation.link_operand(id, user, slot);
                    }
                }
                ast::Operand::Literal(term) => {
                    // A literal among operands has no meaning; keep it visible as an error.
                    self.closed.errors.push(ModuleError::CannotInferShape {
                        opcode: "literal operand".into(),
                        span: term.span(),
                    });
                }
            }
        }
    }

    fn nested(
        &mut self,
        instruction: &ast::Instruction<'s>,
        name: String,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let opcode = Opcode::from_name(instruction.opcode.text);
        self.closed
            .errors
            .extend(unknown_opcode(&opcode, &instruction.opcode));
        let (shape, written) = match &instruction.shape {
            Some(shape) => (
                self.memo
                    .shape(shape)
                    .map_err(|e| {
                        self.closed
                            .errors
                            .extend(e.into_iter().map(ModuleError::from))
                    })
                    .ok()?,
                true,
            ),
            None => (Arc::new(Shape::Tuple(Vec::new())), false),
        };
        let mut lowered = Instruction::new(name.clone(), opcode, shape);
        lowered.shape_written = written;
        lowered.style = style_of(instruction);
        lowered.span = instruction.span;
        let operands = self.payload(instruction, &mut lowered);
        let id = self.open.push(lowered);
        // A nested instruction is added after its user: the print order needs restoring.
        self.open.out_of_order = true;
        self.operands(id, operands, pending);
        Some(id)
    }

    /// Collects the computations a called-computation attribute names or writes in place;
    /// those written in place are lowered here.
    fn callees(&mut self, value: &[Term<'s>], callees: &mut Vec<Callee<'s>>) {
        for term in value {
            match term {
                Term::Word(word, kind @ (WordKind::Name | WordKind::Ident)) => {
                    callees.push(Callee::Named(*word, *kind))
                }
                // A list holding more than names is an in-place computation written
                // without instruction names, which XLA's parser rejects where the first
                // instruction starts, as it expects its name there.
                Term::List(list) if unnamed_body(std::slice::from_ref(term)) => {
                    let (first, last) = (list.terms.first(), list.terms.last());
                    let start = first.map_or(list.span.start, |t| t.span().start);
                    let end = last.map_or(list.span.end, |t| t.span().end);
                    self.closed.errors.push(ModuleError::Invalid {
                        message: "expects name: an instruction of an in-place computation \
                                  needs `name =`"
                            .into(),
                        span: Span::new(start, end),
                    })
                }
                Term::List(list) => self.callees(&list.terms, callees),
                Term::Body(instructions, span) => callees.push(Callee::InPlace(
                    self.in_place_computation(instructions, *span),
                )),
                _ => {}
            }
        }
    }

    /// Gives instructions written without a result shape the one XLA would infer, for the
    /// opcodes whose shape follows from their operands alone.
    fn infer_missing_shapes(&mut self) {
        if !self.open.shapes_to_infer {
            return;
        }
        let computation = &self.open.computation;
        let missing: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| !computation.instruction(id).shape_written)
            .collect();
        for id in missing {
            let operands: Vec<Shape> = self
                .open
                .computation
                .operands(id)
                .into_iter()
                .map(|o| self.open.computation.instruction(o).shape.as_ref().clone())
                .collect();
            let instruction = self.open.computation.instruction(id);
            let inferred = infer_from_operands(instruction, &operands);
            match inferred {
                Some(shape) => self.open.computation.instruction_mut(id).shape = shape.into(),
                None => self.closed.errors.push(ModuleError::CannotInferShape {
                    opcode: instruction.opcode.name().to_string(),
                    span: instruction.span,
                }),
            }
        }
    }
}

/// How one line writes names (`%` or not) and operands (with shapes or not).
fn style_of(instruction: &ast::Instruction<'_>) -> PrintStyle {
    // A constant's lone word (`constant(inf)`) is a literal, not an operand.
    let first_ref = instruction
        .operands
        .iter()
        .find_map(|o| match o {
            ast::Operand::Ref { shape, name, .. } => Some((shape.is_some(), name.percent)),
            _ => None,
        })
        .filter(|_| instruction.opcode.text != "constant");
    PrintStyle {
        percent: instruction.name.percent,
        operand_percent: first_ref.map_or(instruction.name.percent, |(_, percent)| percent),
        operand_shapes: first_ref.is_some_and(|(shape, _)| shape),
    }
}

/// The shape of an instruction from its operands, where no attribute is needed.
fn infer_from_operands(instruction: &Instruction, operands: &[Shape]) -> Option<Shape> {
    let first = operands.first();
    match (&instruction.opcode, instruction.opcode.kind()) {
        (Opcode::Compare | Opcode::IsFinite, _) => match first? {
            Shape::Array(array) => Some(Shape::Array(crate::ir::ArrayShape {
                element_type: PrimitiveType::Pred,
                ..array.clone()
            })),
            _ => None,
        },
        (Opcode::Tuple, _) => Some(Shape::Tuple(operands.to_vec())),
        (Opcode::GetTupleElement, _) => match first? {
            Shape::Tuple(elements) => {
                let index = usize::try_from(instruction.int_attribute("index")?).ok()?;
                elements.get(index).cloned()
            }
            _ => None,
        },
        (Opcode::AfterAll, _) => Some(Shape::Token),
        (Opcode::Select, _) => operands.get(1).cloned(),
        (Opcode::Clamp, _) => operands.get(1).cloned(),
        (_, OpKind::ElementwiseUnary | OpKind::ElementwiseBinary)
            if !matches!(instruction.opcode, Opcode::Convert | Opcode::BitcastConvert) =>
        {
            first.cloned()
        }
        _ => None,
    }
}
