//! Checking a module (parse, lower, verify) in memory that stays near the size of its text.
//!
//! [`check_module_range`] gives exactly what [`crate::parse_module_range`] then
//! [`crate::verify::verify`] give, without holding the module. XLA's text defines every
//! computation above its callers, so each computation can be verified as soon as it is read,
//! against the signatures of those above it, and then reduced to its signature (name,
//! parameters, root). Its instructions are checked as they are read too: each one's operands
//! are above it, so it is complete when its line is. Then all but what later checks read of
//! it is dropped (its attributes, literal, ...), which leaves about a graph node per
//! instruction of the computation being read. The header is lowered to text as soon as it is
//! read, and each stack-frame table checked and dropped, rather than left on the parser's
//! stack as a tree many times its size; lowering's memo of shapes and attribute texts is
//! emptied as it grows. A caller whose text is a file mapping can give back the pages read
//! ([`check_module_range_releasing`]): then the text, too, is not held.
//!
//! Nothing is reported from that pass: when it finds any problem, or text it does not
//! handle (a lone instruction, computations written in place), the module is read again the
//! usual way, which reports every error in order. So a valid module is read once and an
//! invalid one twice. It is read on one thread, whatever its size: parsing on one thread
//! while a second lowered and verified what it read was no faster than one thread, on
//! modules of every size (`docs/performance.md`).

use rustc_hash::FxHashSet;

use crate::ir::module::{Computation, ComputationId, InstrId, TextAttribute};
use crate::lower::tables;
use crate::lower::ModuleLowering;
use crate::syntax::ast;
use crate::verify::{self, Found, Signature, VerifyOptions};
use crate::Error;

/// Parses, lowers and verifies `text[range]`; every error is returned, in the order
/// [`crate::parse_module_range`] and [`crate::verify::verify`] give them.
pub fn check_module_range(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
) -> Result<(), Vec<Error>> {
    check_module_range_releasing(text, range, options, &|_| {})
}

/// [`check_module_range`], calling `release(offset)` as the pass that reads one computation
/// at a time leaves the text before `offset` behind, every [`RELEASE_STEP`] bytes or so.
/// That text is read again only when the module must be read whole (it is invalid, or this
/// way cannot tell), or for a few names and the header: a caller whose text is a file mapping
/// can give those pages back to the system, which reads them from the file again if they are
/// touched. Then what `check` holds at its peak is the module's IR, not also its text.
pub fn check_module_range_releasing(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
    release: &dyn Fn(usize),
) -> Result<(), Vec<Error>> {
    if check_on(text, range.clone(), options, release) == Some(true) {
        return Ok(());
    }
    let module = crate::parse_module_range(text, range.clone())?;
    verify::verify(&module, options).map_err(|errors| {
        let mut errors: Vec<verify::VerifyError> = errors
            .into_iter()
            .map(|error| at_xlas_point(text, range.clone(), error))
            .collect();
        // An error XLA finds after an instruction now points past it; the order stays the
        // text's (stable: errors at one place keep the order found).
        errors.sort_by_key(|error| error.span.start);
        errors.into_iter().map(Error::from).collect()
    })
}

/// A verifier's error pointed where XLA's parser finds it ([`verify::Found`]): the
/// instruction's text is read again for the spans. Where that is not the fault itself but
/// the token after it, the fault stays as a second label. Left as it is when that text does
/// not read alone. An error about the module's header (it names no instruction) points at
/// the header's attribute.
fn at_xlas_point(
    text: &str,
    range: std::ops::Range<usize>,
    mut error: verify::VerifyError,
) -> verify::VerifyError {
    match &error.found {
        Found::Instruction => return error,
        Found::Attribute(name) if error.instruction.is_empty() => {
            let mut header = HeaderAttribute { name, span: None };
            // The text parsed before; only the header is wanted of it now.
            let _ = crate::syntax::parse_module_into(text, range, &mut header);
            if let Some(span) = header.span {
                error.span = span;
            }
            return error;
        }
        _ => {}
    }
    let span = error.span;
    if span.is_empty() || text.get(span.range()).is_none() {
        return error;
    }
    let Ok(tree) = crate::syntax::parse_module_range(text, span.range()) else {
        return error;
    };
    let Some(instruction) = &tree.instruction else {
        return error;
    };
    if let Some((point, label, detail)) = xlas_point(text, instruction, &error.found) {
        error.span = point;
        error.label = label;
        if let Some((detail, detail_label)) = detail {
            error.detail = Some(detail);
            error.detail_label = detail_label;
        }
    }
    error
}

/// Where XLA's parser stands when it finds what `found` says in `instruction`, with the
/// primary label's text, and the fault and its label when that is elsewhere.
type Point = (ast::Span, &'static str, Option<(ast::Span, &'static str)>);

fn xlas_point(text: &str, instruction: &ast::Instruction<'_>, found: &Found) -> Option<Point> {
    let whole = Some((instruction.span, "in this instruction"));
    let operand = |n: usize| instruction.operands.get(n).map(ast::Operand::span);
    Some(match found {
        Found::Instruction => return None,
        Found::Attribute(name) => {
            let attribute = instruction
                .attributes
                .iter()
                .find(|attribute| attribute.name.text == name.as_str())?;
            (attribute.name.span, "here", None)
        }
        Found::AfterInstruction => (
            crate::syntax::token_after(text, instruction.span.end),
            "found once the instruction is read",
            whole,
        ),
        Found::OperandList => (
            crate::syntax::token_after(text, instruction.opcode.span.end),
            "operands counted from here",
            None,
        ),
        Found::AfterOperands => {
            // The `)` after the last operand, or after the `(` when there is none.
            let open = crate::syntax::token_after(text, instruction.opcode.span.end);
            let last = instruction
                .operands
                .last()
                .map_or(open.end, |o| o.span().end);
            let close = crate::syntax::token_after(text, last);
            (
                crate::syntax::token_after(text, close.end),
                "found once the operands are read",
                whole,
            )
        }
        Found::Operand(n) => (operand(*n)?, "this operand", None),
        Found::AfterParameterNumber => {
            let number = operand(0)?;
            (
                crate::syntax::token_after(text, number.end),
                "found once the number is read",
                Some((number, "this parameter number")),
            )
        }
        Found::AfterShape => {
            let shape = instruction.shape.as_ref()?.span();
            (
                crate::syntax::token_after(text, shape.end),
                "found once the shape is read",
                Some((shape, "this shape")),
            )
        }
        Found::AfterName { attribute, name } => {
            let attribute = instruction
                .attributes
                .iter()
                .find(|a| a.name.text == *attribute)?;
            let word = words(&attribute.value)
                .find(|word| word.text.trim_start_matches('%') == name.as_str())?;
            (
                crate::syntax::token_after(text, word.span.end),
                "found once the name is read",
                Some((word.span, "this name")),
            )
        }
    })
}

/// Every word of an attribute value, in text order.
fn words<'t, 's>(terms: &'t [ast::Term<'s>]) -> Box<dyn Iterator<Item = &'t ast::Word<'s>> + 't> {
    Box::new(
        terms
            .iter()
            .flat_map(|term| -> Box<dyn Iterator<Item = &'t ast::Word<'s>> + 't> {
                match term {
                    ast::Term::Word(word, _) => Box::new(std::iter::once(word)),
                    ast::Term::Attr { value, .. } => words(std::slice::from_ref(&**value)),
                    ast::Term::List(list) => words(&list.terms),
                    ast::Term::Body(..) | ast::Term::Separator(_) => Box::new(std::iter::empty()),
                }
            }),
    )
}

/// The sink that finds where a header attribute's name is, and keeps nothing else.
struct HeaderAttribute<'n> {
    name: &'n str,
    span: Option<ast::Span>,
}

impl<'s> ast::Sink<'s> for HeaderAttribute<'_> {
    fn header(&mut self, header: Box<ast::Header<'s>>) -> Option<Box<ast::Header<'s>>> {
        self.span = header
            .attributes
            .iter()
            .find(|attribute| attribute.name.text == self.name)
            .map(|attribute| attribute.name.span);
        None
    }
    fn table(&mut self, _: ast::Table<'s>) -> Option<ast::Table<'s>> {
        None
    }
    fn begin_computation(&mut self, _: ast::ComputationHead<'s>) {}
    fn instruction(&mut self, _: ast::Instruction<'s>) {}
    fn end_computation(&mut self, _: Vec<ast::Attribute<'s>>, _: usize) {}
}

/// Checks `text[range]` one computation at a time: `Some(true)` when the module is valid,
/// `Some(false)` when it is not, and `None` when this way cannot tell (see the module's
/// documentation). Whenever it tells, it agrees with parsing the module whole and verifying
/// it, which tests check over the corpus.
#[doc(hidden)]
pub fn check_computation_by_computation(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
) -> Option<bool> {
    check_on(text, range, options, &|_| {})
}

/// How far the reading moves on between two calls of the `release` callback of
/// [`check_module_range_releasing`]: sixteen system calls a megabyte, and no more text held
/// than the system maps in at once when it reads a page (64 KiB on Linux).
pub const RELEASE_STEP: usize = 64 << 10;

/// [`check_computation_by_computation`], calling `release` as
/// [`check_module_range_releasing`] says.
fn check_on(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
    release: &dyn Fn(usize),
) -> Option<bool> {
    // XLA reads such text as one instruction, which the parser here would read as a
    // computation.
    if crate::syntax::headerless_signature(text, range.clone()).is_some() {
        return Some(false);
    }
    let mut sink = Streaming::new(text, *options, release);
    let tree = crate::syntax::parse_module_into(text, range, &mut sink).ok();
    sink.conclude(tree.as_ref())
}

/// What reading one computation at a time has found so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Valid,
    Invalid,
    /// The text has what this way does not handle, or an error lowering reports at the end.
    CannotTell,
}

/// Lowers computations as the parser hands them over, verifies each and keeps only its
/// signature.
struct Streaming<'s, 'r> {
    lowering: ModuleLowering<'s>,
    checker: Checker,
    verdict: Verdict,
    /// The header's attributes, lowered as soon as it is read: its tree, on the parser's
    /// stack to the end, would take up to twenty times its text.
    header: Option<Vec<TextAttribute>>,
    /// The instructions of the computation being read whose index is below this have been
    /// checked: lowering adds instructions with consecutive indices.
    checked_before: usize,
    /// Its instructions are checked as they are read; false once one is not complete when
    /// read (see [`ModuleLowering::visit_open_computation`]), and then the rest wait for
    /// its end.
    one_by_one: bool,
    /// Told where the text read so far ends, every [`RELEASE_STEP`] bytes.
    release: &'r dyn Fn(usize),
    /// Where `release` was last told the text ends.
    released: usize,
    /// The stack-frame tables' names, in text order: each table is checked and dropped as
    /// soon as it is read (its tree takes several times its text, and torax has half a
    /// megabyte of tables), and their order is checked at the end.
    table_keywords: Vec<ast::Word<'s>>,
}

impl<'s, 'r> Streaming<'s, 'r> {
    fn new(text: &'s str, options: VerifyOptions, release: &'r dyn Fn(usize)) -> Streaming<'s, 'r> {
        Streaming {
            lowering: ModuleLowering::new(text),
            checker: Checker::new(options),
            verdict: Verdict::Valid,
            header: None,
            checked_before: 0,
            one_by_one: true,
            release,
            released: 0,
            table_keywords: Vec::new(),
        }
    }

    /// Tells `release` that the text before `offset` is read, when that is at least `step`
    /// bytes beyond what it was last told.
    fn read_up_to(&mut self, offset: usize, step: usize) {
        if offset >= self.released.saturating_add(step) {
            self.released = offset;
            (self.release)(offset);
        }
    }

    /// The verdict on the whole module once the parser is done: `tree` is what it gave, the
    /// header and tables, or `None` on a syntax error.
    fn conclude(self, tree: Option<&ast::Module<'_>>) -> Option<bool> {
        let Some(tree) = tree else {
            return Some(false);
        };
        match self.verdict {
            Verdict::Valid if tree.instruction.is_none() => {}
            Verdict::Invalid => return Some(false),
            _ => return None,
        }
        let checker = self.checker;
        if !checker.valid {
            return Some(false);
        }
        if checker.out_of_step {
            return None;
        }
        if !tables::check_order(&self.table_keywords).is_empty() {
            return Some(false);
        }
        let Some((attributes, entry)) = self.lowering.finish_header(tree, self.header) else {
            return Some(false);
        };
        let entry = checker.signatures.get(entry.0 as usize)?;
        Some(verify::header_problems(&attributes, &verify::Callee::from(entry)).is_empty())
    }
}

impl<'s> ast::Sink<'s> for Streaming<'s, '_> {
    fn header(&mut self, header: Box<ast::Header<'s>>) -> Option<Box<ast::Header<'s>>> {
        self.header = crate::lower::module::lower_header(&header);
        if self.header.is_none() {
            // The whole-module path reports the error.
            self.verdict = Verdict::CannotTell;
        }
        None
    }

    fn table(&mut self, table: ast::Table<'s>) -> Option<ast::Table<'s>> {
        let printed = crate::lower::canonical::tables_text(std::slice::from_ref(&table));
        if printed.is_err() || !tables::check_rows(&table).is_empty() {
            self.verdict = Verdict::Invalid;
        }
        self.table_keywords.push(table.keyword);
        None
    }

    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        if self.verdict == Verdict::Valid {
            self.lowering.begin_computation(head);
            self.checked_before = 0;
            self.one_by_one = true;
        }
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        if self.verdict != Verdict::Valid {
            return;
        }
        self.read_up_to(instruction.span.start, RELEASE_STEP);
        self.lowering.instruction(instruction);
        self.lowering.trim_memo();
        if self.one_by_one {
            self.check_new_instructions();
        }
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        if self.verdict != Verdict::Valid {
            return;
        }
        // Before the checks, which hold the whole computation's IR, whatever the step.
        self.read_up_to(end, 1);
        self.lowering.end_computation(attributes, end);
        if self.lowering.has_errors() {
            // An error lowering finds as it reads (a literal out of range, say) makes the
            // module invalid whatever follows.
            self.verdict = Verdict::Invalid;
            return;
        }
        let Some((id, computation)) = self.lowering.take_last_closed() else {
            self.verdict = Verdict::CannotTell;
            return;
        };
        // The computations above this one, by name, as lowering has them.
        let lowering = &self.lowering;
        let find = |name: &str| lowering.computation_above(name, id);
        self.checker
            .check(id, &computation, &find, self.checked_before);
        if !self.checker.valid {
            self.verdict = Verdict::Invalid;
        }
    }
}

impl Streaming<'_, '_> {
    /// Checks the instructions the last line added, each as soon as it is complete, and
    /// drops what no later check reads of them: a computation that is mostly one then
    /// takes about a graph node per instruction, not its whole IR.
    fn check_new_instructions(&mut self) {
        let (checker, checked_before) = (&mut self.checker, &mut self.checked_before);
        let complete = self
            .lowering
            .visit_open_computation(|id, computation, find| {
                let count = computation.graph().node_count();
                while *checked_before < count {
                    let node = petgraph::graph::NodeIndex::new(*checked_before);
                    let Some(instruction) = computation.id_of(node) else {
                        return false;
                    };
                    // A shape left for lowering to infer is known only at the computation's end.
                    if !computation.instruction(instruction).shape_written {
                        return false;
                    }
                    checker.check_instruction(id, computation, instruction, find);
                    verify::keep_what_later_checks_read(computation.instruction_mut(instruction));
                    *checked_before += 1;
                }
                true
            });
        self.one_by_one = complete == Some(true);
        if !self.checker.valid {
            self.verdict = Verdict::Invalid;
        }
    }
}

/// Verifies computations in the order they are read, keeping each one's signature.
struct Checker {
    options: VerifyOptions,
    /// Of the computations checked, by id.
    signatures: Vec<Signature>,
    /// The computations `async-start`s call: each may be called by one only.
    async_callees: FxHashSet<String>,
    valid: bool,
    /// A computation came with an id other than the next: this way cannot tell.
    out_of_step: bool,
}

impl Checker {
    fn new(options: VerifyOptions) -> Checker {
        Checker {
            options,
            signatures: Vec::new(),
            async_callees: FxHashSet::default(),
            valid: true,
            out_of_step: false,
        }
    }

    /// Verifies computation `id` but its instructions below index `checked_before`, which
    /// [`Checker::check_instruction`] checked; `find` finds the computations above it by
    /// name.
    fn check(
        &mut self,
        id: ComputationId,
        computation: &Computation,
        find: &(dyn Fn(&str) -> Option<ComputationId> + Sync),
        checked_before: usize,
    ) {
        if !self.valid || !self.in_step(id) {
            return;
        }
        self.valid = verify::verify_computation(
            computation,
            &self.signatures,
            find,
            &self.options,
            checked_before,
        )
        .is_empty();
        for callee in verify::async_start_callees(computation) {
            self.valid &= self.async_callees.insert(callee.to_string());
        }
        self.signatures.push(Signature::of(computation));
    }

    /// Verifies `instruction` of computation `id`, which is still being read.
    fn check_instruction(
        &mut self,
        id: ComputationId,
        computation: &Computation,
        instruction: InstrId,
        find: &(dyn Fn(&str) -> Option<ComputationId> + Sync),
    ) {
        if !self.valid || !self.in_step(id) {
            return;
        }
        let errors = verify::verify_instruction(
            computation,
            instruction,
            &self.signatures,
            find,
            &self.options,
        );
        if !errors.is_empty() {
            self.valid = false;
        }
    }

    /// Whether `id` is the next computation; if not, this way cannot tell.
    fn in_step(&mut self, id: ComputationId) -> bool {
        if id.0 as usize != self.signatures.len() {
            self.out_of_step = true;
        }
        !self.out_of_step
    }
}
