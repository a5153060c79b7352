//! Modules: the syntax tree to the IR graph. Names are resolved here, each failure reported
//! with the span of the name.
//!
//! Rules, as XLA's parser applies them: a computation without `ROOT` has its last
//! instruction as root; a module without `ENTRY` has its last computation as entry; an
//! operand, a control predecessor (checked by the verifier) and a called computation must be
//! defined above their use, so no cycle and no recursion can be written; instruction names
//! are scoped to their computation. A computation written in
//! place (`to_apply=\n  { ... }`) becomes a computation of its own, closed before its caller
//! and named as XLA's parser names it (`_`, `_.1`, ...); the attribute then names it.

use std::sync::Arc;

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use super::canonical;
use super::error::ModuleError;
use super::shape::{lower_shape, LowerError};
use crate::ir::module::{
    Computation, ComputationId, InstrId, Instruction, Module, Payload, PrintStyle, TextAttribute,
};
use crate::ir::opcode::{OpKind, Opcode};
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Shape;
use crate::syntax::ast::{self, Span, Term, WordKind};

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

/// Counts the lines left in a computation that has grown long, so that its graph is sized
/// once instead of grown: from a line to the next line that starts with `}`, where XLA
/// closes a computation. The count only sizes the graph, so a guess
/// that is off (a computation closed otherwise, comments, blank lines) costs room, never
/// correctness. The cursor only moves forward: the text is read at most twice however the
/// computations end, and the room given is bounded by the text's size.
#[derive(Default)]
struct LineCounter {
    /// Where the last search ended; a computation starting before it is not sized.
    at: usize,
}

impl LineCounter {
    /// No computation is given room for more than this many instructions at once; a larger
    /// one grows as a vector does. Growing doubles the room and, while it copies, holds the
    /// old room too: a computation just past this would take three times the room it needs.
    /// Room never used is only reserved address space, which a process has plenty of.
    const MAX_ROOM: usize = 1 << 22;
    /// An instruction line is longer than this (`  a = f32[] add(b, c)` is 23 bytes), so
    /// that a computation of blank lines is not given room for an instruction per byte.
    const MIN_LINE_BYTES: usize = 16;

    /// How many instructions the computation has after `start` in `text` (the end of a
    /// line, or of its header line), probably.
    fn instructions_from(&mut self, text: &str, start: usize) -> Option<usize> {
        if start < self.at {
            return None;
        }
        let bytes = text.as_bytes();
        // One search finds the `}` line, and the newlines before it are counted in bulk
        // (`memchr`'s count): a search for each newline took 3.6M instructions to size
        // mixtral's entry computation (2.9 MB), this 1.5M (callgrind).
        let Some(found) = memchr::memmem::find(bytes.get(start..)?, b"\n}") else {
            self.at = text.len();
            return None;
        };
        let close = start + found + 1;
        self.at = close;
        let body = &bytes[start..close];
        let newlines = memchr::memchr_iter(b'\n', body).count();
        // Newlines end the header line and each line after it, up to the `}` line.
        let lines = newlines.saturating_sub(1);
        Some(
            lines
                .min(body.len() / Self::MIN_LINE_BYTES)
                .min(Self::MAX_ROOM),
        )
    }
}

/// The computation `names` gives for `name`, if it is above computation `id`.
fn computation_above(
    names: &FxHashMap<CompactString, (ComputationId, Span)>,
    name: &str,
    id: ComputationId,
) -> Option<ComputationId> {
    names
        .get(name)
        .map(|&(callee, _)| callee)
        .filter(|callee| callee.0 < id.0)
}

/// What lowering has finished: closed computations, and what waits for the module's end.
#[derive(Default)]
struct Closed<'s> {
    /// In the order they closed: a computation written in place closes before its caller.
    computations: Vec<Computation>,
    /// Computations closed and taken away before `computations[0]`
    /// ([`ModuleLowering::take_last_closed`]); ids count them.
    taken: u32,
    errors: Vec<ModuleError>,
    /// Called computations, resolved once every computation is known.
    calls: Vec<PendingCall<'s>>,
    /// Attributes that wrote computations in place; their texts are written once those
    /// computations have names.
    in_place: Vec<InPlaceAttribute<'s>>,
    /// Whether a computation closed has an `-update` or `-done`, whose async chain is
    /// checked once every computation is known (a chain's wrapped op may be the root of a
    /// computation the other thread read).
    async_chains: bool,
}

impl<'s> Closed<'s> {
    /// Adds a computation whose instructions are all read; returns its id.
    fn close(&mut self, open: OpenComputation<'s>) -> ComputationId {
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
        self.computations.push(open.computation);
        id
    }
}

/// What lowering has made from a piece of source text, by that text. Real modules repeat
/// the same few attribute values (`dimensions={0}`, `kind=kLoop`, `to_apply=%add`) and
/// shapes thousands of times; each is made once, and every instruction that writes the same
/// shape shares one allocation.
#[derive(Default)]
struct Memo<'s> {
    /// The module text, when lowering is fed by the parser.
    source: Option<&'s str>,
    /// Attribute texts (`name=value` as written) and their canonical values. The memos own
    /// their keys: there are few (a module's distinct attribute texts, names and shapes;
    /// most lines' attributes are read by the lexer's fast path), but they are looked up on
    /// nearly every line, and a key borrowed from the text would read the text where it
    /// first appeared again and again, which a caller that gives the text read back to the
    /// system (`crate::check`) would have to bring back.
    printed: FxHashMap<CompactString, Arc<str>>,
    attribute_names: FxHashMap<CompactString, Arc<str>>,
    shapes: FxHashMap<CompactString, Arc<Shape>>,
    /// The last shape looked up, by its text: most lines have the shape of the line before
    /// (63% of mixtral 1x8's, 52% of torax's, 23% of transformer24 opt's), and comparing
    /// two short texts costs less than hashing one. Borrowed: it is the line before.
    last_shape: Option<(&'s str, Arc<Shape>)>,
    /// Sizes a computation that grows long ([`ComputationLowering::add`]).
    lines: LineCounter,
}

impl<'s> Memo<'s> {
    /// Empties the memo's tables once they grow past a bound, for a lowering that keeps
    /// memory small: a module with a unique attribute on every line would grow them with
    /// every line.
    fn trim(&mut self) {
        const MEMO_ENTRIES: usize = 1024;
        if self.printed.len() > MEMO_ENTRIES {
            self.printed = FxHashMap::default();
        }
        if self.shapes.len() > MEMO_ENTRIES {
            self.shapes = FxHashMap::default();
        }
    }

    /// A shape with XLA's default layout filled in where the text gave none. Only shapes
    /// that lower without error are kept, so each erroneous one reports at its own place.
    fn shape(&mut self, shape: &ast::Shape<'s>) -> Result<Arc<Shape>, Vec<LowerError>> {
        let span = shape.span();
        let written = self
            .source
            .and_then(|source| source.get(span.start..span.end));
        let Some(text) = written else {
            return Ok(Arc::new(with_default_layouts(lower_shape(shape)?)));
        };
        if let Some((last, found)) = &self.last_shape {
            if *last == text {
                return Ok(Arc::clone(found));
            }
        }
        let found = match self.shapes.get(text) {
            Some(found) => Arc::clone(found),
            None => {
                let lowered = Arc::new(with_default_layouts(lower_shape(shape)?));
                self.shapes.insert(text.into(), Arc::clone(&lowered));
                lowered
            }
        };
        self.last_shape = Some((text, Arc::clone(&found)));
        Ok(found)
    }

    /// An attribute as canonical text.
    fn attribute(
        &mut self,
        attribute: &ast::Attribute<'s>,
    ) -> Result<TextAttribute, Vec<LowerError>> {
        let value = self.attribute_text(attribute)?;
        let name = match self.attribute_names.get(attribute.name.text) {
            Some(name) => Arc::clone(name),
            None => {
                let name: Arc<str> = attribute.name.text.into();
                self.attribute_names
                    .insert(attribute.name.text.into(), Arc::clone(&name));
                name
            }
        };
        Ok(TextAttribute { name, value })
    }

    fn attribute_text(
        &mut self,
        attribute: &ast::Attribute<'s>,
    ) -> Result<Arc<str>, Vec<LowerError>> {
        // A lone word prints as written and is often long and unique (backend_config,
        // metadata): made straight into the shared text, without the printer's string.
        if let [Term::Word(word, kind)] = attribute.value.as_slice() {
            if !matches!(kind, WordKind::Name | WordKind::NameColon) {
                return Ok(Arc::from(word.text));
            }
        }
        let lone_word = matches!(attribute.value.as_slice(), [Term::Word(..)]);
        let Some(written) = self
            .source
            .filter(|_| !lone_word)
            .and_then(|source| source.get(attribute.name.span.start..attribute.span.end))
        else {
            return canonical::attribute_value_text(attribute, 2).map(Arc::from);
        };
        if let Some(text) = self.printed.get(written) {
            return Ok(text.clone());
        }
        let text: Arc<str> = canonical::attribute_value_text(attribute, 2)?.into();
        self.printed.insert(written.into(), Arc::clone(&text));
        Ok(text)
    }
}

/// A computation whose instructions are still being read.
struct OpenComputation<'s> {
    head: ast::ComputationHead<'s>,
    computation: Computation,
    pending: Vec<PendingOperand<'s>>,
    root: Option<InstrId>,
    /// Instructions left out because their shape did not lower (each error is reported, so
    /// an empty computation or a use of their name is not reported again).
    dropped: Vec<&'s str>,
    /// An operand edge may run against the order of ids (a nested instruction is added after
    /// its user): only then is there a print order to restore.
    out_of_order: bool,
    /// Called computations by instruction, in attribute order.
    calls: Vec<(InstrId, Callee<'s>)>,
    /// Attributes (by instruction and index) that wrote computations in place.
    in_place: Vec<(InstrId, usize, CalleeList<'s>)>,
    /// The parameters added so far, by number and id, and whether an instruction left its
    /// shape to infer: the computation's end needs both, and finding them would be a pass
    /// over every instruction (a tenth of closing mixtral's computations).
    parameters: Vec<(i64, InstrId)>,
    shapes_to_infer: bool,
    /// Whether an instruction continues an async chain (see [`Closed`]).
    async_chains: bool,
}

impl<'s> OpenComputation<'s> {
    fn new(head: ast::ComputationHead<'s>, computation: Computation) -> OpenComputation<'s> {
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

/// A computation an attribute names (`to_apply=%add`) or writes in place
/// (`to_apply=\n  { ... }`), which lowering has already turned into a computation.
#[derive(Clone, Copy)]
enum Callee<'s> {
    Named(ast::Word<'s>, WordKind),
    InPlace(ComputationId),
}

/// The callees of one attribute, and whether they were a braced list
/// (`branch_computations={...}`).
struct CalleeList<'s> {
    callees: Vec<Callee<'s>>,
    braced: bool,
}

/// A called computation, resolved once every computation is known.
struct PendingCall<'s> {
    computation: ComputationId,
    instruction: InstrId,
    callee: Callee<'s>,
}

/// An attribute that wrote a computation in place, whose text becomes the names the
/// module gives its callees.
struct InPlaceAttribute<'s> {
    computation: ComputationId,
    instruction: InstrId,
    /// The attribute's index in the instruction's attributes.
    attribute: usize,
    callees: CalleeList<'s>,
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

    /// Places a line of the open computation that [`Prelowering`] lowered.
    /// Places a line [`Prelowering`] lowered; its operands are the next ones `operands`
    /// gives (those of its batch, in order).
    pub(crate) fn prelowered(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
    ) {
        match self.open_computation() {
            Some(mut lowering) => lowering.prelowered_statement(prelowered, operands),
            // Keeps the next line's operands where they are.
            None => operands
                .by_ref()
                .take(prelowered.operand_count as usize)
                .for_each(drop),
        }
    }

    fn end(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
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

    /// For a caller that checks each computation as soon as it is read (`crate::check`):
    /// takes away the computation that closed last, with its id and its calls resolved
    /// (they must name computations above it). `None` when what was read so far has an
    /// error, wrote a computation in place, or calls a computation not above its caller:
    /// [`ModuleLowering::finish`] reports those, and the caller must then lower the module
    /// whole. A lowering that gave a computation away ends with
    /// [`ModuleLowering::finish_header`].
    /// Whether lowering has found an error so far; it never takes one back.
    pub(crate) fn has_errors(&self) -> bool {
        !self.closed.errors.is_empty()
    }

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

    /// Empties the memo of shapes, or that of attribute texts, once it holds more than a
    /// thousand or so, for a caller that keeps memory bounded by the text rather than by the
    /// module: the memo only saves time and shares allocations, so emptying it changes no
    /// result. They are emptied apart: metadata, unique to each line, fills the memo of
    /// texts about once per line, while a few hundred shapes, each shared by many lines,
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
        let offset = self.closed.computations.len() as u32;
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

/// What a module's header and tables lower to, with their errors.
pub(crate) struct LoweredPreamble {
    header_name: Option<String>,
    header_span: Option<Span>,
    attributes: Vec<TextAttribute>,
    tables: String,
    errors: Vec<ModuleError>,
}

impl LoweredPreamble {
    pub(crate) fn new(module: &ast::Module<'_>) -> LoweredPreamble {
        let mut errors = Vec::new();
        let (attributes, tables) = header_and_tables(module, &mut errors);
        LoweredPreamble {
            header_name: module.header.as_ref().map(|h| h.name.text.to_string()),
            header_span: module.header.as_ref().map(|h| h.span),
            attributes,
            tables,
            errors,
        }
    }

    /// The header and tables lowered on another thread than the computations, or `None`
    /// when they have an error: the module is then read again in one go, which reports it
    /// among the others in order.
    pub(crate) fn without_errors(module: &ast::Module<'_>) -> Option<LoweredPreamble> {
        let lowered = LoweredPreamble::new(module);
        lowered.errors.is_empty().then_some(lowered)
    }
}

/// The header's attributes as canonical text.
fn header_attributes(
    header: &ast::Header<'_>,
    errors: &mut Vec<ModuleError>,
) -> Vec<TextAttribute> {
    check_unique_attributes(&header.attributes, errors);
    check_header_attributes(&header.attributes, errors);
    let mut attributes = Vec::with_capacity(header.attributes.len());
    for attribute in &header.attributes {
        match canonical::attribute_value_text(attribute, 0) {
            Ok(value) => attributes.push(TextAttribute::new(attribute.name.text, &value)),
            Err(e) => errors.extend(e.into_iter().map(ModuleError::from)),
        }
    }
    attributes
}

/// The header's attributes as canonical text, for a sink that takes the header from the
/// parser as soon as it is read; `None` when it has an error ([`ModuleLowering::finish`]
/// reports it).
pub(crate) fn lower_header(header: &ast::Header<'_>) -> Option<Vec<TextAttribute>> {
    let mut errors = Vec::new();
    let attributes = header_attributes(header, &mut errors);
    errors.is_empty().then_some(attributes)
}

fn header_and_tables(
    module: &ast::Module<'_>,
    errors: &mut Vec<ModuleError>,
) -> (Vec<TextAttribute>, String) {
    let attributes = module
        .header
        .as_ref()
        .map(|header| header_attributes(header, errors))
        .unwrap_or_default();
    errors.extend(super::tables::check(&module.tables));
    let tables = canonical::tables_text(&module.tables).unwrap_or_else(|e| {
        errors.extend(e.into_iter().map(ModuleError::from));
        String::new()
    });
    (attributes, tables)
}

/// Words XLA's lexer reads as keywords: written bare, they cannot name anything.
const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "inf",
    "nan",
    "HloModule",
    "ENTRY",
    "ROOT",
    "maximal",
    "replicated",
    "manual",
    "unknown",
    "unreduced",
    "last_tile_dim_replicate",
    "shard_as",
    "shard_like",
    "FileNames",
    "FunctionNames",
    "FileLocations",
    "StackFrames",
];

/// What a bare word is to XLA's lexer when it is not a name.
#[derive(Clone, Copy, PartialEq)]
enum Reserved {
    Keyword,
    ElementType,
}

/// Keywords and element type names, looked up once per instruction name.
static RESERVED: std::sync::LazyLock<FxHashMap<&'static str, Reserved>> =
    std::sync::LazyLock::new(|| {
        let types = crate::ir::PrimitiveType::ALL
            .iter()
            .map(|t| (t.name(), Reserved::ElementType));
        let keywords = KEYWORDS.iter().map(|&k| (k, Reserved::Keyword));
        keywords.chain(types).collect()
    });

/// Why XLA refuses `name` for an instruction or computation, if it does: a keyword or an
/// element type written bare is not a name to its lexer ("expects name"), and even with `%`
/// an element type's name is illegal.
fn reserved_name(name: &ast::Name<'_>, what: &str) -> Option<String> {
    let text = name.text;
    // No reserved word has a `.` or `-`, and most names have one (`add.5`): looking for
    // them is cheaper than the lookup every line would otherwise make. From the end, where
    // XLA's `.N` suffix is (`convert_element_type.2165`).
    if text.bytes().rev().any(|b| matches!(b, b'.' | b'-')) {
        return None;
    }
    match RESERVED.get(text)? {
        Reserved::ElementType => Some(format!(
            "illegal {what} name: {text}; XLA reserves element type names (suggest renaming \
             to: {text}_)"
        )),
        Reserved::Keyword => (!name.percent).then(|| {
            format!("expects name: `{text}` is a keyword in HLO text; write `%{text}` or rename it")
        }),
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

/// Names each computation written in place as XLA's parser does: `_`, then `_.1`, `_.2`, ...
/// in the order they closed, skipping names the module already uses.
fn name_in_place_computations(
    computations: &mut [Computation],
    named: &FxHashMap<CompactString, (ComputationId, Span)>,
) {
    let mut suffix = 0u64;
    for computation in computations.iter_mut().filter(|c| c.in_place) {
        loop {
            let name = match suffix {
                0 => "_".to_string(),
                n => format!("_.{n}"),
            };
            suffix += 1;
            if !named.contains_key(name.as_str()) {
                computation.name = name;
                break;
            }
        }
    }
}

/// The text of a called-computation attribute once its in-place callees have names:
/// `_` or `{%a, _.1}`. The printer writes in-place callees back in place.
fn callee_list_text(list: &CalleeList<'_>, computations: &[Computation]) -> String {
    let mut text = String::new();
    if list.braced {
        text.push('{');
    }
    for (i, callee) in list.callees.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        match callee {
            Callee::Named(word, WordKind::Name) => {
                text.push('%');
                text.push_str(word.text);
            }
            Callee::Named(word, _) => text.push_str(word.text),
            Callee::InPlace(id) => text.push_str(&computations[id.0 as usize].name),
        }
    }
    if list.braced {
        text.push('}');
    }
    text
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

struct ComputationLowering<'a, 's> {
    open: &'a mut OpenComputation<'s>,
    memo: &'a mut Memo<'s>,
    closed: &'a mut Closed<'s>,
}

/// An operand waiting for its name to be resolved.
struct PendingOperand<'s> {
    user: InstrId,
    slot: u32,
    name: ast::Name<'s>,
    /// The shape the text declared for the operand (`f32[2] %x`), if any.
    shape: Option<Arc<Shape>>,
    /// The compact tuple-element path (`%t#1`).
    path: Vec<i64>,
    /// The operand's text, from its shape when that is written: where XLA reports an
    /// operand it cannot read.
    span: Span,
}

/// An operand by name, with what lowering makes of it before its name is looked up.
pub(crate) struct PreparedOperand<'s> {
    slot: u32,
    name: ast::Name<'s>,
    /// The shape the text declared for the operand, if any.
    shape: Option<Arc<Shape>>,
    /// The compact tuple-element path (`%t#1`), as far as its indices are numbers.
    path: Vec<i64>,
    /// Whether the text wrote a path at all.
    indexed: bool,
    /// The operand's text, from its shape when that is written.
    span: Span,
}

impl<'s> PreparedOperand<'s> {
    /// `None` unless `operand` names an instruction.
    fn new(memo: &mut Memo<'s>, slot: u32, operand: &ast::Operand<'s>) -> Option<Self> {
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

/// An instruction line lowered as far as it can be without its computation: everything
/// but its place in the graph and the connection of its operands.
pub(crate) struct Prelowered<'s> {
    root: bool,
    name: ast::Name<'s>,
    span: Span,
    lowered: Instruction,
    callee_lists: Vec<(Option<usize>, CalleeList<'s>)>,
    /// How many of the batch's operands ([`Prelowering::take_operands`]) are this line's:
    /// the next ones, as lines are placed in the order they were lowered.
    operand_count: u32,
}

/// Lowers instruction lines ahead of the computation they belong to, on another thread
/// than the [`ModuleLowering`] that places them ([`crate::lower::read_ahead`]). Only lines
/// that lower without an error, whose operands all name instructions and that write no
/// computation in place are taken: any other is handed over as it was read, so that the
/// lowering that places it reports what it reports, in its order.
pub(crate) struct Prelowering<'s> {
    pub(crate) spare: SpareVecs<'s>,
    memo: Memo<'s>,
    /// A computation to lower into, which nothing reads: lowering a line needs one.
    scratch: OpenComputation<'s>,
    closed: Closed<'s>,
    /// The operands of the lines lowered since they were last taken, in order. One vector
    /// a batch of lines, not one a line: the thread that places the lines frees them, and
    /// freeing what another thread allocated costs several times more.
    operands: Vec<PreparedOperand<'s>>,
}

/// Room for a batch's operands to start with: two for each of its lines.
const MIN_BATCH_OPERANDS: usize = 256;

impl<'s> Prelowering<'s> {
    pub(crate) fn new(source: &'s str) -> Prelowering<'s> {
        let head = ast::ComputationHead {
            entry: false,
            name: ast::Name {
                text: "",
                percent: false,
                span: Span::new(0, 0),
            },
            signature: None,
            start: 0,
        };
        Prelowering {
            spare: SpareVecs::default(),
            memo: Memo {
                source: Some(source),
                ..Memo::default()
            },
            scratch: OpenComputation::new(head, Computation::new("")),
            closed: Closed::default(),
            operands: Vec::with_capacity(MIN_BATCH_OPERANDS),
        }
    }

    /// The operands of the lines lowered since the last call, in order, for the batch
    /// that carries those lines.
    pub(crate) fn take_operands(&mut self) -> Vec<PreparedOperand<'s>> {
        // The room the last batch grew to: batches are alike, and growing copies.
        let capacity = self.operands.capacity().max(MIN_BATCH_OPERANDS);
        std::mem::replace(&mut self.operands, Vec::with_capacity(capacity))
    }

    /// The line lowered as far as it can be, or `None` when it is not taken.
    pub(crate) fn prepare(&mut self, instruction: &ast::Instruction<'s>) -> Option<Prelowered<'s>> {
        let writes_in_place = instruction
            .attributes
            .iter()
            .any(|attribute| holds_body(&attribute.value));
        if writes_in_place {
            return None;
        }
        let mut lowering = ComputationLowering {
            open: &mut self.scratch,
            memo: &mut self.memo,
            closed: &mut self.closed,
        };
        let prepared = lowering.prepare(instruction);
        let Some((lowered, callee_lists, operands)) = prepared else {
            self.closed.errors.clear();
            self.scratch.dropped.clear();
            return None;
        };
        let first = self.operands.len();
        let mut all_names = true;
        for (slot, operand) in (0u32..).zip(operands) {
            match PreparedOperand::new(lowering.memo, slot, operand) {
                Some(prepared) => self.operands.push(prepared),
                None => {
                    all_names = false;
                    break;
                }
            }
        }
        let operand_count = u32::try_from(self.operands.len() - first).ok();
        match operand_count {
            Some(operand_count) if all_names && self.closed.errors.is_empty() => {
                let prelowered = Prelowered {
                    root: instruction.root,
                    name: instruction.name,
                    span: instruction.span,
                    lowered,
                    callee_lists,
                    operand_count,
                };
                Some(prelowered)
            }
            _ => {
                self.operands.truncate(first);
                self.closed.errors.clear();
                None
            }
        }
    }
}

impl<'s> ComputationLowering<'_, 's> {
    /// Lowers one line of the computation.
    fn statement(&mut self, instruction: &ast::Instruction<'s>) {
        let mut pending = std::mem::take(&mut self.open.pending);
        let id = self.instruction(instruction, &mut pending);
        self.open.pending = pending;
        self.mark_root(instruction.root, id, instruction.span);
    }

    /// Places one line of the computation that [`Prelowering`] lowered.
    fn prelowered_statement(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
    ) {
        let (root, span) = (prelowered.root, prelowered.span);
        let mut pending = std::mem::take(&mut self.open.pending);
        let id = self.place(prelowered, operands, &mut pending);
        self.open.pending = pending;
        self.mark_root(root, id, span);
    }

    fn mark_root(&mut self, root: bool, id: Option<InstrId>, span: Span) {
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
                    && !crate::verify::shapes::compatible(declared, a)
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
    fn finish(&mut self) {
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
                && !crate::verify::shapes::compatible(&declared, root_shape)
            {
                self.closed.errors.push(ModuleError::Invalid {
                    message: format!(
                        "Shape of computation {}, {}, is not compatible with that of its \
                         root instruction {}, {}",
                        head.name.text,
                        crate::verify::shapes::strip_layouts(&declared),
                        computation.instruction(root_id).name(),
                        crate::verify::shapes::strip_layouts(root_shape)
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
    fn prepare<'o>(
        &mut self,
        instruction: &'o ast::Instruction<'s>,
    ) -> Option<(
        Instruction,
        Vec<(Option<usize>, CalleeList<'s>)>,
        &'o [ast::Operand<'s>],
    )> {
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
        super::parser_checks::attributes(
            &lowered.opcode,
            &instruction.attributes,
            &mut self.closed.errors,
        );
        let mut callee_lists = Vec::new();
        // Exactly: grown one at a time, the vector would keep room for four.
        lowered
            .attributes
            .reserve_exact(instruction.attributes.len());
        for attribute in &instruction.attributes {
            let calls = crate::ir::vocabulary::calls_computations(attribute.name.text)
                && crate::verify::attributes::allowed(&lowered.opcode, attribute.name.text);
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
    fn register_callees(
        &mut self,
        id: InstrId,
        callee_lists: Vec<(Option<usize>, CalleeList<'s>)>,
    ) {
        for (index, list) in callee_lists {
            self.open
                .calls
                .extend(list.callees.iter().map(|&callee| (id, callee)));
            if let Some(index) = index {
                self.open.in_place.push((id, index, list));
            }
        }
    }

    /// Places an instruction prepared on another thread ([`Prelowering`]), as
    /// [`Self::instruction`] would have from its line.
    fn place(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let Prelowered {
            name,
            span,
            lowered,
            callee_lists,
            operand_count,
            ..
        } = prelowered;
        let own = operands.by_ref().take(operand_count as usize);
        let Some(id) = self.add(lowered, name, span) else {
            own.for_each(drop);
            return None;
        };
        self.register_callees(id, callee_lists);
        for operand in own {
            self.reference(id, operand, pending);
        }
        Some(id)
    }

    /// Connects operand `operand` of `user` by name: at once when it is defined above, else
    /// at the computation's end.
    fn reference(
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
        if name.percent != user_instruction.style.operand_percent {
            user_instruction.percent_exceptions.push(slot);
        }
        if indexed {
            user_instruction.tuple_paths.push((slot, path.clone()));
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
                lowered.payload = Payload::Literal(Arc::new(name.text.to_string()));
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
                                .extend(super::parser_checks::literal(&text, term, array));
                        }
                        lowered.payload = Payload::Literal(Arc::new(text));
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

    fn add(
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
                    computation: computation.name.clone(),
                    span: name.span,
                    first: computation.instruction(first).span,
                });
                return None;
            }
        };
        // A computation that reaches this many lines is given room for the rest at once,
        // counted from here to its `}` line, rather than grown as a vector does; short ones
        // just grow, which cost less than sizing each as it opened (mixtral has 3,714
        // computations, most a dozen lines: its first thread 176.7M -> 174.5M instructions
        // with the counting below, callgrind).
        const SIZED_AT: usize = 64;
        if self.open.computation.len() == SIZED_AT {
            if let Some(source) = self.memo.source {
                if let Some(rest) = self.memo.lines.instructions_from(source, span.end) {
                    self.open.computation.reserve(rest);
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

/// XLA's parser takes each attribute once.
fn check_unique_attributes(attributes: &[ast::Attribute<'_>], errors: &mut Vec<ModuleError>) {
    for (i, attribute) in attributes.iter().enumerate() {
        if attributes[..i]
            .iter()
            .any(|a| a.name.text == attribute.name.text)
        {
            errors.push(ModuleError::Invalid {
                message: format!("attribute {} already exists", attribute.name.text),
                span: attribute.name.span,
            });
        }
    }
}

/// XLA reads one value per attribute and refuses what follows it (`channel_id=1x`,
/// `custom_call_target="f"3`); only these attributes are written as several terms:
/// `replica_groups=[2,4]<=[8]`, `mesh[...] {'x'}`, `device_ids=(...) {'x'}` after a mesh,
/// `literal=f32[] 1` and `outfeed_shape=f32[4]{0}`.
/// XLA's parser refuses an opcode it does not know where the opcode is written; it knows
/// its async sugar (`custom-call-start`).
pub(crate) fn unknown_opcode(opcode: &Opcode, word: &ast::Word<'_>) -> Option<ModuleError> {
    match opcode {
        Opcode::Unknown(_) if crate::verify::attributes::async_sugar(opcode).is_none() => {
            Some(ModuleError::UnknownOpcode {
                name: word.text.to_string(),
                span: word.span,
            })
        }
        _ => None,
    }
}

/// XLA's parser reads `frontend_attributes` by its own grammar, and points at the attribute
/// when the value does not follow it.
fn check_frontend_attributes(attributes: &[ast::Attribute<'_>], errors: &mut Vec<ModuleError>) {
    for attribute in attributes {
        if attribute.name.text != "frontend_attributes" {
            continue;
        }
        // A value that does not print is reported where it is lowered.
        let Ok(value) = canonical::attribute_value_text(attribute, 0) else {
            continue;
        };
        for message in crate::verify::frontend_attributes_problems(&value) {
            errors.push(ModuleError::Invalid {
                message,
                span: attribute.span,
            });
        }
    }
}

/// The header attributes XLA's parser refuses: names it does not read, and
/// `input_output_alias` or `buffer_donor` values outside their grammar. Each is reported at
/// the attribute, where XLA points.
fn check_header_attributes(attributes: &[ast::Attribute<'_>], errors: &mut Vec<ModuleError>) {
    for attribute in attributes {
        let name = attribute.name.text;
        if !crate::ir::vocabulary::HEADER_ORDER.contains(&name) {
            errors.push(ModuleError::UnknownHeaderAttribute {
                name: name.to_string(),
                allowed: crate::ir::vocabulary::HEADER_ORDER.join(", "),
                span: attribute.name.span,
            });
            continue;
        }
        let Ok(value) = canonical::attribute_value_text(attribute, 0) else {
            continue;
        };
        errors.extend(super::parser_checks::header_grammar(
            name,
            &value,
            &attribute.value,
            attribute.span,
        ));
    }
}

fn check_single_values(attributes: &[ast::Attribute<'_>], errors: &mut Vec<ModuleError>) {
    for attribute in attributes {
        let Some(extra) = attribute.value.get(1) else {
            continue;
        };
        let several = matches!(
            attribute.name.text,
            "replica_groups" | "device_ids" | "literal" | "outfeed_shape"
        );
        if !several {
            errors.push(ModuleError::Invalid {
                message: format!(
                    "`{}` takes one value; XLA refuses what follows it",
                    attribute.name.text
                ),
                span: extra.span(),
            });
        }
    }
}

/// The called-computation attributes that take a braced list of computations.
fn takes_a_list(attribute: &str) -> bool {
    matches!(attribute, "branch_computations" | "called_computations")
}

/// Whether an attribute value gives exactly one computation: a name or an in-place body.
fn names_one(value: &[Term<'_>]) -> bool {
    matches!(
        value,
        [Term::Word(_, WordKind::Name | WordKind::Ident) | Term::Body(..)]
    )
}

/// Whether an attribute value is a list holding more than names: an in-place computation
/// written without instruction names.
fn unnamed_body(value: &[Term<'_>]) -> bool {
    matches!(value, [Term::List(list)] if list
        .terms
        .iter()
        .any(|t| matches!(t, Term::List(_) | Term::Attr { .. })))
}

/// Whether an attribute value writes a computation in place, alone or in a list.
fn holds_body(value: &[Term<'_>]) -> bool {
    value.iter().any(|term| match term {
        Term::Body(..) => true,
        Term::List(list) => holds_body(&list.terms),
        _ => false,
    })
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

/// Gives every array without a layout XLA's default, as XLA's parser does.
fn with_default_layouts(mut shape: Shape) -> Shape {
    fn fill(shape: &mut Shape) {
        match shape {
            Shape::Array(array) | Shape::Buffer(array) if array.layout.is_none() => {
                array.layout = Some(crate::ir::Layout::descending(array.rank()));
            }
            Shape::Tuple(elements) => elements.iter_mut().for_each(fill),
            _ => {}
        }
    }
    fill(&mut shape);
    shape
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

#[cfg(test)]
mod line_counter_tests {
    use super::LineCounter;

    #[test]
    fn counts_the_instruction_lines_up_to_the_closing_brace() {
        let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                    ROOT c = f32[] add(a, b)\n}\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
        let mut counter = LineCounter::default();
        let add = text.find("add {").unwrap();
        let entry = text.find("ENTRY").unwrap();
        assert_eq!(counter.instructions_from(text, add), Some(3));
        assert_eq!(counter.instructions_from(text, entry), Some(1));
        // The cursor only moves forward: a start behind it is not sized.
        assert_eq!(counter.instructions_from(text, add), None);
    }

    #[test]
    fn a_computation_without_a_closing_line_is_not_sized_and_ends_the_search() {
        let text = "a {\n  ROOT p = f32[] parameter(0) }\nb {\n  ROOT q = f32[] parameter(0) }\n";
        let mut counter = LineCounter::default();
        assert_eq!(counter.instructions_from(text, 0), None);
        assert_eq!(
            counter.instructions_from(text, text.find("b {").unwrap()),
            None
        );
    }

    #[test]
    fn blank_lines_do_not_buy_room() {
        let text = format!("e {{{}\n}}\n", "\n".repeat(100_000));
        let room = LineCounter::default().instructions_from(&text, 0).unwrap();
        assert!(room <= text.len() / LineCounter::MIN_LINE_BYTES, "{room}");
        let text = format!(
            "e {{\n{}}}\n",
            "  ROOT p = f32[] parameter(0)\n".repeat(100_000)
        );
        let room = LineCounter::default().instructions_from(&text, 0).unwrap();
        assert_eq!(room, 100_000);
    }
}

#[cfg(test)]
mod tests {
    /// `reserved_name` looks a name up only when it has no `.` or `-`.
    #[test]
    fn reserved_words_have_no_dot_or_dash() {
        for word in super::RESERVED.keys() {
            assert!(!word.contains(['.', '-']), "{word}");
        }
    }
}
