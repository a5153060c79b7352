//! Modules: the syntax tree to the IR graph, computation by computation as the parser
//! hands them over ([`ModuleLowering`], a sink), assembled into a [`Module`] at the end,
//! where names of called computations are resolved, each failure reported with the span of
//! the name.
//!
//! Rules, as XLA's parser applies them: a computation without `ROOT` has its last
//! instruction as root; a module without `ENTRY` has its last computation as entry; an
//! operand, a control predecessor (checked by the verifier) and a called computation must be
//! defined above their use, so no cycle and no recursion can be written; instruction names
//! are scoped to their computation. A computation written in
//! place (`to_apply=\n  { ... }`) becomes a computation of its own, closed before its caller
//! and named as XLA's parser names it (`_`, `_.1`, ...); the attribute then names it.
//!
//! Invariant: computation ids follow the order computations close in, so a call resolves
//! only to a computation with a smaller id; however the computations were handed over (one
//! pass, two halves joined by [`ModuleLowering::absorb`], lines lowered ahead), the module
//! and its errors, in text order, are what one pass over the text gives. The lines of one
//! computation are lowered in `computation`, a part of this module.

mod callees;
pub(super) mod computation;
mod line_counter;
mod memo;
mod names;
pub(crate) mod pieces;
mod preamble;
pub(super) mod prelower;

pub(crate) use preamble::{lower_header, LoweredPreamble};

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use super::canonical;
use super::error::ModuleError;
use super::parser_checks::check_unique_attributes;
use crate::ir::module::{Computation, ComputationId, Module, PrintStyle, TextAttribute};
use crate::syntax::ast::{self, Span, Term, WordKind};
use callees::{callee_list_text, Callee, CalleeList, InPlaceAttribute, PendingCall};
use computation::{Closed, ComputationLowering, OpenComputation, SuspendedComputation};
use memo::Memo;
use names::{computation_above, name_in_place_computations, reserved_name};
use preamble::header_and_tables;

/// Lowers a parsed module; every error is returned. Parsing straight into a
/// [`ModuleLowering`] (see `crate::parse_module`) does the same without the whole tree.
pub fn lower_module(module: &ast::Module<'_>) -> Result<Module, Vec<ModuleError>> {
    if let Some(instruction) = &module.instruction {
        return lower_single_instruction(module, instruction);
    }
    let mut lowering = ModuleLowering::default();
    for computation in &module.computations {
        lowering.begin(ast::ComputationHead {
            entry: computation.entry,
            name: computation.name,
            signature: computation.signature.clone(),
            start: computation.span.start,
        });
        for instruction in &computation.instructions {
            lowering.statement(instruction);
        }
        lowering.end(computation.attributes.clone(), computation.span.end);
    }
    lowering.finish(module)
}

/// Lowers a module computation by computation, instruction by instruction, as the parser
/// reads it: an [`ast::Sink`]. Names of called computations are resolved in
/// [`ModuleLowering::finish`], where a call to a computation defined below is an error.
#[derive(Default)]
pub struct ModuleLowering<'s> {
    computation_ids: FxHashMap<CompactString, (ComputationId, Span)>,
    /// The first computation the text marked `ENTRY`, and where its `ENTRY` is.
    entry: Option<(ComputationId, Span)>,
    /// The computation being read.
    open: Option<OpenComputation<'s>>,
    memo: Memo<'s>,
    closed: Closed<'s>,
    spare: SpareVecs<'s>,
    /// A computation the text before this lowering's left open: the first head this
    /// lowering hears is its head read again, and reopens it (`crate::lower::pieces`).
    reopen: Option<SuspendedComputation>,
    /// The computation reopened: how many of its graph nodes have spans in the whole text.
    reopened_placed_nodes: Option<usize>,
    /// Where the `}` that ends this lowering's text ends, when it was added there to close
    /// a computation the text after goes on with: that computation stays open.
    held_open_at: Option<usize>,
}

/// The operand and attribute vectors of the last line lowered, emptied, for the parser to
/// fill with the next line's: one allocation less for each per line.
#[derive(Default)]
pub(crate) struct SpareVecs<'s> {
    operands: Vec<ast::Operand<'s>>,
    attributes: Vec<ast::Attribute<'s>>,
}

impl<'s> SpareVecs<'s> {
    pub(crate) fn keep(&mut self, instruction: ast::Instruction<'s>) {
        let ast::Instruction {
            mut operands,
            mut attributes,
            ..
        } = instruction;
        operands.clear();
        attributes.clear();
        self.operands = operands;
        self.attributes = attributes;
    }

    pub(crate) fn operands(&mut self) -> Vec<ast::Operand<'s>> {
        std::mem::take(&mut self.operands)
    }

    pub(crate) fn attributes(&mut self) -> Vec<ast::Attribute<'s>> {
        std::mem::take(&mut self.attributes)
    }
}

impl<'s> ast::Sink<'s> for ModuleLowering<'s> {
    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        self.begin(head);
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        self.statement(&instruction);
        self.spare.keep(instruction);
    }

    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        self.spare.operands()
    }

    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        self.spare.attributes()
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.end(attributes, end);
    }
}

impl<'s> ModuleLowering<'s> {
    fn begin(&mut self, head: ast::ComputationHead<'s>) {
        if let Some(suspended) = self.reopen.take() {
            self.reopened_placed_nodes = Some(suspended.placed_nodes);
            self.open = Some(OpenComputation::resume(head, suspended));
            return;
        }
        if let Some(message) = reserved_name(&head.name, "computation") {
            self.closed.errors.push(ModuleError::Invalid {
                message,
                span: head.name.span,
            });
        }
        let name = head.name.text;
        let mut computation = Computation::new(name);
        computation.entry_written = head.entry;
        computation.percent = head.name.percent;
        computation.has_signature = head.signature.is_some();
        computation.span = Span::new(head.start, head.start);
        self.open = Some(OpenComputation::new(head, computation));
    }

    /// The lowering of the computation being read, if one is open.
    fn open_computation(&mut self) -> Option<ComputationLowering<'_, 's>> {
        Some(ComputationLowering {
            open: self.open.as_mut()?,
            memo: &mut self.memo,
            closed: &mut self.closed,
        })
    }

    fn statement(&mut self, instruction: &ast::Instruction<'s>) {
        if let Some(mut lowering) = self.open_computation() {
            lowering.statement(instruction);
        }
    }

    fn end(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        if self.held_open_at == Some(end) && attributes.is_empty() {
            return;
        }
        let Some(mut open) = self.open.take() else {
            return;
        };
        open.computation.span.end = end;
        check_unique_attributes(&attributes, &mut self.closed.errors);
        for attribute in &attributes {
            match canonical::attribute_value_text(attribute, 0) {
                Ok(value) => open
                    .computation
                    .attributes
                    .push(TextAttribute::new(attribute.name.text, &value)),
                Err(e) => self
                    .closed
                    .errors
                    .extend(e.into_iter().map(ModuleError::from)),
            }
        }
        ComputationLowering {
            open: &mut open,
            memo: &mut self.memo,
            closed: &mut self.closed,
        }
        .finish();
        let (name, entry, start) = (open.head.name, open.head.entry, open.head.start);
        // Known only now: the computations it wrote in place closed first and took ids.
        let id = self.closed.close(open);
        self.name_computation(name.text, id, name.span);
        if entry {
            // A second ENTRY is reported at the keyword, as XLA reports it.
            self.mark_entry(id, Span::new(start, start + "ENTRY".len()));
        }
    }
}

impl<'s> ModuleLowering<'s> {
    /// A lowering fed by the parser of `source`; the spans it is given point into it.
    pub fn new(source: &'s str) -> ModuleLowering<'s> {
        let mut lowering = ModuleLowering::default();
        lowering.memo.source = Some(source);
        lowering
    }

    /// The fewest bytes a computation's text takes in real modules, its head, one
    /// instruction and its `}` line (`%c (p: f32[]) -> f32[] {`, a parameter, `}`), rounded
    /// down.
    const MIN_COMPUTATION_BYTES: usize = 32;

    /// [`Self::new`] for lowering the module of `source[range]` whole, with room made at
    /// once for about as many computations as the text ends at a line's start (`\n}`). A
    /// computation is a few hundred bytes, and a module can have tens of thousands: grown by
    /// doubling, the vector would be copied each time, old and new held together; room the
    /// count overestimates is never written, so it takes no memory. A module read in halves
    /// makes room in each, so that the first takes the second's in without growing.
    pub fn for_module(source: &'s str, range: std::ops::Range<usize>) -> ModuleLowering<'s> {
        let mut lowering = ModuleLowering::new(source);
        let text = source.as_bytes().get(range).unwrap_or_default();
        let ends = memchr::memmem::find_iter(text, b"\n}").count();
        // Text that is mostly `}` lines is no module: room is made for one computation in
        // `MIN_COMPUTATION_BYTES` at most, and room the allocator refuses is grown instead.
        let room = ends.min(text.len() / Self::MIN_COMPUTATION_BYTES);
        let _ = lowering
            .closed
            .computations
            .try_reserve_exact(room.saturating_add(1));
        lowering
    }

    /// Records the name of a computation read at the top level; a name given before is an
    /// error.
    fn name_computation(&mut self, name: &str, id: ComputationId, span: Span) {
        if let Some(&(_, first)) = self.computation_ids.get(name) {
            self.closed.errors.push(ModuleError::DuplicateComputation {
                name: name.to_string(),
                span,
                first,
            });
        } else {
            self.computation_ids.insert(name.into(), (id, span));
        }
    }

    /// Records a computation marked `ENTRY`; only the first one is the entry.
    fn mark_entry(&mut self, id: ComputationId, span: Span) {
        if self.entry.is_some() {
            self.closed
                .errors
                .push(ModuleError::MultipleEntries { span });
        } else {
            self.entry = Some((id, span));
        }
    }

    /// Whether lowering has found an error so far; it never takes one back.
    pub(crate) fn has_errors(&self) -> bool {
        !self.closed.errors.is_empty()
    }

    /// For a caller that checks each computation as soon as it is read (`crate::check`):
    /// takes away the computation that closed last, with its id and its calls resolved
    /// (they must name computations above it). `None` when what was read so far has an
    /// error, wrote a computation in place, or calls a computation not above its caller:
    /// [`ModuleLowering::finish`] reports those, and the caller must then lower the module
    /// whole. A lowering that gave a computation away ends with
    /// [`ModuleLowering::finish_header`].
    pub(crate) fn take_last_closed(&mut self) -> Option<(ComputationId, Computation)> {
        let closed = &mut self.closed;
        if !closed.errors.is_empty() || !closed.in_place.is_empty() {
            return None;
        }
        let mut computation = closed.computations.pop()?;
        let id = ComputationId(closed.taken + closed.computations.len() as u32);
        closed.taken += 1;
        for call in std::mem::take(&mut closed.calls) {
            let callee = match call.callee {
                Callee::Named(name, _) => self.computation_ids.get(name.text).map(|&(c, _)| c),
                Callee::InPlace(_) => None,
            };
            match callee {
                Some(callee) if call.computation == id && callee.0 < id.0 => computation
                    .instruction_mut(call.instruction)
                    .called
                    .push(callee),
                _ => return None,
            }
        }
        Some((id, computation))
    }

    /// For a caller that checks each instruction as soon as it is read (`crate::check`):
    /// calls `visit` with the id the computation being read will take when it closes, that
    /// computation as lowered so far, and a lookup of the computations above it by name.
    /// `None`, without calling it, unless everything read so far lowered without error, each
    /// operand named an instruction above its user, and nothing was written in place or
    /// nested: only then is every instruction complete, with its operands, when its line
    /// is read, and only then is the id known. [`ModuleLowering::finish`] reports the rest.
    pub(crate) fn visit_open_computation<R>(
        &mut self,
        visit: impl FnOnce(
            ComputationId,
            &mut Computation,
            &(dyn Fn(&str) -> Option<ComputationId> + Sync),
        ) -> R,
    ) -> Option<R> {
        let closed = &self.closed;
        let open = self.open.as_mut()?;
        let complete = closed.errors.is_empty()
            && closed.in_place.is_empty()
            && open.pending.is_empty()
            && open.dropped.is_empty()
            && open.in_place.is_empty()
            && !open.out_of_order;
        if !complete {
            return None;
        }
        let id = ComputationId(closed.taken + closed.computations.len() as u32);
        let names = &self.computation_ids;
        // Calls are resolved now, as `take_last_closed` would, while the text of their
        // names is at hand: the caller may have given the pages before this line back to
        // the system. A call not resolved now cannot be then either, and is left to fail.
        let computation = &mut open.computation;
        open.calls.retain(|&(instruction, callee)| {
            let Callee::Named(name, _) = callee else {
                return true;
            };
            let Some(callee) = computation_above(names, name.text, id) else {
                return true;
            };
            computation.instruction_mut(instruction).called.push(callee);
            false
        });
        let above = |name: &str| computation_above(names, name, id);
        Some(visit(id, computation, &above))
    }

    /// The computation read at the top level under `name` (the first, if the name was given
    /// twice), if it is above computation `id`.
    pub(crate) fn computation_above(&self, name: &str, id: ComputationId) -> Option<ComputationId> {
        computation_above(&self.computation_ids, name, id)
    }

    /// Empties the memo of shapes, or one of attribute texts, once it holds more than a
    /// thousand or so, for a caller that keeps memory bounded by the text rather than by the
    /// module: the memo only saves time and shares allocations, so emptying it changes no
    /// result. They are emptied apart: values unique to a line (a callee's name) fill a memo of
    /// texts quickly, while a few hundred shapes, each shared by many lines,
    /// are most of a module's.
    pub(crate) fn trim_memo(&mut self) {
        self.memo.trim();
    }

    /// Ends a lowering whose computations [`ModuleLowering::take_last_closed`] took away:
    /// the header attributes as canonical text and the entry's id, or `None` when the
    /// module has an error (which [`ModuleLowering::finish`] would report).
    /// `header` is the header's attributes when the caller took the header from the parser
    /// ([`lower_header`]), and the tree has none.
    pub(crate) fn finish_header(
        self,
        module: &ast::Module<'s>,
        header: Option<Vec<TextAttribute>>,
    ) -> Option<(Vec<TextAttribute>, ComputationId)> {
        let closed = self.closed;
        let count = closed.taken + closed.computations.len() as u32;
        if !closed.errors.is_empty() || !closed.calls.is_empty() || !closed.in_place.is_empty() {
            return None;
        }
        let last = count.checked_sub(1)?;
        let entry = self.entry.map_or(ComputationId(last), |(id, _)| id);
        let mut errors = Vec::new();
        let (attributes, _) = header_and_tables(module, &mut errors);
        let attributes = header.unwrap_or(attributes);
        errors.is_empty().then_some((attributes, entry))
    }

    /// Takes over the computations `later` lowered from the text after this one's (the
    /// second half of a module parsed on two threads), as if this lowering had read them:
    /// their ids follow this one's, and a name or an `ENTRY` given in both halves is an
    /// error here as it would have been in one pass.
    pub fn absorb(&mut self, later: ModuleLowering<'s>) {
        // After the computations taken away too, when lowering a module piece by piece.
        let offset = self.closed.taken + self.closed.computations.len() as u32;
        let shift = |id: ComputationId| ComputationId(id.0 + offset);
        let shift_callee = |callee: Callee<'s>| match callee {
            Callee::InPlace(id) => Callee::InPlace(shift(id)),
            named => named,
        };
        // In id order, so that the errors come out the same on every run.
        let mut named: Vec<(CompactString, (ComputationId, Span))> =
            later.computation_ids.into_iter().collect();
        named.sort_by_key(|(_, (id, _))| id.0);
        for (name, (id, span)) in named {
            self.name_computation(&name, shift(id), span);
        }
        if let Some((id, span)) = later.entry {
            self.mark_entry(shift(id), span);
        }
        let closed = later.closed;
        // A name the later half defined twice may have a first definition in this half.
        self.closed
            .errors
            .extend(closed.errors.into_iter().map(|error| match error {
                ModuleError::DuplicateComputation { name, span, first } => {
                    let first = self
                        .computation_ids
                        .get(name.as_str())
                        .map_or(first, |&(_, span)| span);
                    ModuleError::DuplicateComputation { name, span, first }
                }
                other => other,
            }));
        self.closed
            .calls
            .extend(closed.calls.into_iter().map(|call| PendingCall {
                computation: shift(call.computation),
                instruction: call.instruction,
                callee: shift_callee(call.callee),
            }));
        self.closed
            .in_place
            .extend(closed.in_place.into_iter().map(|attribute| {
                InPlaceAttribute {
                    computation: shift(attribute.computation),
                    instruction: attribute.instruction,
                    attribute: attribute.attribute,
                    callees: CalleeList {
                        callees: attribute
                            .callees
                            .callees
                            .into_iter()
                            .map(shift_callee)
                            .collect(),
                        braced: attribute.callees.braced,
                    },
                }
            }));
        self.closed.async_chains |= closed.async_chains;
        self.closed.computations.extend(closed.computations);
    }

    /// The module, once the parser has handed over every computation; `module` gives the
    /// header and tables.
    pub fn finish(self, module: &ast::Module<'s>) -> Result<Module, Vec<ModuleError>> {
        self.finish_with(LoweredPreamble::new(module))
    }

    /// [`Self::finish`] with the header and tables already lowered, perhaps on another
    /// thread.
    pub(crate) fn finish_with(self, preamble: LoweredPreamble) -> Result<Module, Vec<ModuleError>> {
        // Nothing was taken away (see `take_last_closed`): ids index `computations`.
        let Closed {
            mut computations,
            mut errors,
            calls,
            in_place,
            taken: _,
            async_chains,
        } = self.closed;
        let Some(last) = computations.len().checked_sub(1) else {
            return Err(vec![ModuleError::Empty {
                span: preamble.header_span.unwrap_or_default(),
            }]);
        };
        let entry = self.entry.map_or(ComputationId(last as u32), |(id, _)| id);
        computations[entry.0 as usize].is_entry = true;

        name_in_place_computations(&mut computations, &self.computation_ids);
        for call in &calls {
            let id = match call.callee {
                Callee::InPlace(id) => id,
                Callee::Named(name, _) => match self.computation_ids.get(name.text) {
                    // Ids follow the text's order; a computation written in place closes,
                    // and takes its id, before the computation it is written in.
                    Some(&(id, _)) if id == call.computation => {
                        errors.push(ModuleError::Invalid {
                            message: format!(
                                "computation `{}` calls itself; XLA allows no recursion \
                                 (it reads the name before the computation is defined: \
                                 \"computation does not exist\")",
                                name.text
                            ),
                            span: name.span,
                        });
                        continue;
                    }
                    Some(&(id, definition)) if id.0 > call.computation.0 => {
                        errors.push(ModuleError::ComputationBeforeDefinition {
                            name: name.text.to_string(),
                            span: name.span,
                            definition,
                        });
                        continue;
                    }
                    Some(&(id, _)) => id,
                    None => {
                        errors.push(ModuleError::UnknownComputation {
                            name: name.text.to_string(),
                            span: name.span,
                        });
                        continue;
                    }
                },
            };
            computations[call.computation.0 as usize]
                .instruction_mut(call.instruction)
                .called
                .push(id);
        }
        for attribute in &in_place {
            let text = callee_list_text(&attribute.callees, &computations);
            let caller = &mut computations[attribute.computation.0 as usize];
            if let Some(written) = caller
                .instruction_mut(attribute.instruction)
                .attributes
                .get_mut(attribute.attribute)
            {
                written.value = text.into();
            }
        }

        let entry_computation = &computations[entry.0 as usize];
        let style = entry_computation
            .root()
            .or(entry_computation.order().last().copied())
            .map_or(PrintStyle::default(), |id| {
                entry_computation.instruction(id).style
            });

        let LoweredPreamble {
            header_name,
            header_span,
            attributes,
            tables,
            errors: preamble_errors,
        } = preamble;
        errors.extend(preamble_errors);

        let name = header_name
            .unwrap_or_else(|| format!("module_{}", computations[entry.0 as usize].name));
        if errors.is_empty() {
            let mut module = Module::new(name, computations, entry);
            module.has_header = header_span.is_some();
            module.attributes = attributes;
            module.tables = tables;
            module.style = style;
            // Only of a module that lowers: its every operand is linked and every call
            // resolved, which the chain's checks read.
            if async_chains {
                errors = super::parser_checks::async_chains(&module, self.memo.source);
            }
            if errors.is_empty() {
                return Ok(module);
            }
        }
        // Called computations are resolved last; report in text order all the same.
        errors.sort_by_key(error_start);
        Err(errors)
    }
}

/// Where an error points, to report a module's errors in text order.
fn error_start(error: &ModuleError) -> usize {
    use miette::Diagnostic;
    error
        .labels()
        .and_then(|mut labels| labels.next())
        .map_or(0, |label| label.offset())
}

/// XLA's single-instruction form: operands written with shapes become parameters of an
/// entry computation holding the instruction as its root.
fn lower_single_instruction<'s>(
    module: &ast::Module<'s>,
    instruction: &ast::Instruction<'s>,
) -> Result<Module, Vec<ModuleError>> {
    const NUMBERS: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    let mut errors = Vec::new();
    let mut instructions = Vec::new();
    for operand in &instruction.operands {
        match operand {
            ast::Operand::Ref {
                shape: Some(shape),
                name,
                indices,
            } if indices.is_empty() => {
                let Some(&number) = NUMBERS.get(instructions.len()) else {
                    continue;
                };
                let word = ast::Word {
                    text: number,
                    span: name.span,
                };
                instructions.push(ast::Instruction {
                    root: false,
                    name: *name,
                    shape: Some(shape.clone()),
                    opcode: ast::Word {
                        text: "parameter",
                        span: name.span,
                    },
                    operands: vec![ast::Operand::Literal(Term::Word(word, WordKind::Int))],
                    attributes: Vec::new(),
                    span: name.span,
                });
            }
            ast::Operand::Ref {
                shape: None, name, ..
            } => errors.push(ModuleError::Invalid {
                message: format!(
                    "Operand had no shape in HLO text: `{}` in a lone instruction needs its \
                     shape, as in `f32[2] {}`",
                    name.text, name.text
                ),
                span: name.span,
            }),
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut root = instruction.clone();
    root.root = true;
    for operand in &mut root.operands {
        if let ast::Operand::Ref { shape, indices, .. } = operand {
            if indices.is_empty() {
                *shape = None;
            }
        }
    }
    instructions.push(root);
    let computation = ast::Computation {
        entry: true,
        name: ast::Name {
            text: instruction.name.text,
            percent: false,
            span: instruction.name.span,
        },
        signature: None,
        instructions,
        attributes: Vec::new(),
        span: instruction.span,
    };
    let wrapped = ast::Module {
        header: module.header.clone(),
        tables: module.tables.clone(),
        computations: vec![computation],
        instruction: None,
    };
    lower_module(&wrapped)
}
