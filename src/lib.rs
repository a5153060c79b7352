//! hlo-layout: XLA's HLO text, its shapes and tiled layouts, and TPU layout assignment,
//! without building XLA.
//!
//! ```text
//! text ──logos──► tokens ──lalrpop (grammar/)──► AST with spans ──lower──► IR
//!                                                   │ miette diagnostics
//!                                                   ▼
//!                                                printer ◄── passes
//! ```
//!
//! # Layers and their invariants
//!
//! Layers, lowest first: `span`, `parallel`, `memory`, `ir`, `syntax`, `verify`, `lower`, `print`, `check`, `assign`, `pass`, `passes`, `analysis`, `explain`, `diagnostic`, `error`.
//!
//! A module imports only from the layers listed before its own, and no source file imports
//! one that imports it back, however long the chain (`tests/architecture.rs` reads the
//! source and fails otherwise). Vocabulary more than one layer reads lives low, in `ir`:
//! [`ir::vocabulary`], which attributes each opcode takes ([`ir::attribute_rules`]), how
//! shapes compare ([`ir::shape_compare`]) and the order attributes print in
//! (`ir::attribute_order`). The command (`cli`, a crate of its own) sits above them all.
//!
//! - [`syntax`] turns text into a syntax tree with byte spans. It never panics, whatever the
//!   input, and gives nothing meaning: element types, opcodes and layout letters are words.
//! - [`lower`] gives the tree meaning from Rust tables and checks every rule of the model,
//!   reporting each violation as a diagnostic with the span of the offending text.
//! - [`ir`] is the model (element types, shapes, layouts, the exact tiled-layout memory map).
//!   It does no IO; arithmetic on dims is checked, and overflow is an error value.
//!   Instruction shapes (`Arc<Shape>`) and attribute texts (`Arc<str>`) are shared values:
//!   lowering gives every instruction that writes the same text one allocation, and a pass
//!   that edits one goes through `Arc::make_mut`, which copies it when it is shared.
//!   An [`ir::InstrId`] carries a tag of the computation that made it, and every lookup
//!   compares it, so an id used in another computation (a clone included) or after its
//!   instruction was removed is an [`ir::EditError`] naming the computation, never another
//!   instruction. Where an index must follow a value, the value is private behind an
//!   accessor: an instruction's name (`Computation::rename`, which refuses a name the
//!   module has) and a module's computations (`Module::computations`,
//!   `computations_mut`, `add_computation`, `retain_computations`). Names the API makes up
//!   (`insert_before`, `replace_with_new`, the builders' instructions once added, the
//!   copies and bitcasts passes insert) are new in the whole module, as XLA keeps them;
//!   names read from text are kept as written.
//! - [`mod@print`] prints the IR as HLO text; the syntax tree's canonical printer
//!   (`lower::canonical`, what `fmt` prints) belongs to lowering, since an attribute's
//!   canonical text is what the IR keeps. It prints each line as the parser reads it, and
//!   can take the text in pieces and give its output away as it grows
//!   ([`format_module_in_pieces_spilling`]), so formatting holds neither a whole text nor
//!   its formatted copy; whatever it cannot tell prints so, it leaves to the whole text.
//! - [`span`] is where text is: byte offsets every layer's reports carry.
//! - [`memory`] holds what a program told the library of its allocator (how to give freed
//!   memory back); the library itself knows no allocator.
//! - [`analysis`] reads a module and answers with values or text: statistics, Graphviz
//!   drawings, structural diffs and the JSON view. It does no IO, never changes the module,
//!   and its output follows the module's order (maps are `BTreeMap`s).
//! - [`diagnostic`] and [`mod@explain`] hold what the command and the Python package
//!   (`python/`) both report: diagnostics as JSON and rendered text, and `explain`'s figures.
//! - `cli` (the binary) alone knows clap, colours, files and exit codes.
//! - Output is deterministic: nothing printed depends on hash-map iteration order.
//! - Large inputs use two threads and give exactly what one thread gives. [`parallel`] owns
//!   the second thread, and no other layer starts one: which stages take it and from what
//!   size of input, where the input is cut (from what `syntax` finds in the text), and the
//!   one function that runs two closures at once, or one after the other where the machine
//!   has one CPU. A module of [`parallel::PARSE_MIN_BYTES`] or more is parsed and lowered
//!   in two halves, cut where a computation starts near the middle; the cut is taken only
//!   when each half parses on its own as computations of one module. Otherwise it is cut at
//!   an instruction line, and the other thread reads the rest ahead, lowering each line as
//!   far as it can without its computation, for this one to place in the same order
//!   (`lower::read_ahead`; `tests/two_threads.rs` cuts small inputs at every line both
//!   ways, and compares). A module of [`parallel::VERIFY_MIN_INSTRUCTIONS`] instructions or
//!   more is verified in two halves, its errors reported in computation order, and one of
//!   [`parallel::PRINT_MIN_INSTRUCTIONS`] or more is printed in two shares of whole
//!   computations, joined in order, when the shares are near even. `check` and parsing to
//!   a syntax tree alone take one thread.
//! - [`check`] verifies a module one instruction and one computation at a time as it is
//!   read, keeping only the signatures of the computations above and what later checks read
//!   of the instructions above, and reads the text again the usual way to report errors; it
//!   agrees with parsing and verifying the whole module (`tests/verify_corpus.rs` compares
//!   the two over the corpus, the mutation tests over broken inputs, the `verify` fuzz target
//!   over generated ones). It tells a caller where the text read ends, so that one whose
//!   text is a file mapping can give those pages back.
//!
//! # Limits
//!
//! Hostile, truncated and hand-edited text gives diagnostics, never a crash, a hang or
//! unbounded work. Where the input can grow something without bound, there is a limit, and
//! going over it is an error with a span:
//!
//! - Brackets `(`, `[`, `{` nest at most [`syntax::lexer::MAX_NESTING`] (256) deep, counted
//!   over everything: tuples, attribute values, literals, nested anonymous instructions.
//! - Shapes enclose one another (tuples, shapes inside layouts) at most
//!   [`lower::shape::MAX_SHAPE_DEPTH`] (64) deep, so that printed output, which adds layouts
//!   and `entry_computation_layout`, stays within the bracket limit and reads back.
//! - An array takes at most [`lower::shape::MAX_ARRAY_BYTES`] (2^48 bytes) with its padding;
//!   any dim product or size that overflows `i64` is an error too, not a wrap or a panic.
//!
//! Everything else is linear in the input and needs no limit: names and literals of any
//! length (a 10 MB name or a 4M-element literal takes seconds), call chains and while
//! nests of any depth (callees are walked on explicit stacks, not by recursion), and
//! computations of millions of instructions. Memory is linear too, at most about 70 bytes
//! per input byte for literal-heavy text (the syntax tree keeps every literal element).
//! `tests/limits.rs` checks each of these with generated inputs on a 2 MiB stack.
//!
//! # Example
//!
//! Parse a module, assign TPU layouts, print it, and ask where an element lives:
//!
//! ```
//! use hlo_layout::assign::assign_layouts;
//! use hlo_layout::ir::Target;
//!
//! let text = "HloModule m\n\nENTRY e {\n  p = f32[512,3] parameter(0)\n  ROOT t = f32[512,3] tanh(p)\n}\n";
//! let mut module = hlo_layout::parse_module(text).map_err(|errors| errors[0].to_string())?;
//! let report = assign_layouts(&mut module, &Target::default_tpu())?;
//! let printed = hlo_layout::print::print_ir_module(&module);
//! assert!(printed.contains("tanh"));
//! assert_eq!(report.copies_inserted, 0);
//! println!("{printed}{} bytes padded", report.cost.padded_bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use hlo_layout::ir::PhysicalLayout;
//!
//! let shape = hlo_layout::parse_array_shape("f32[3,5]{1,0:T(2,2)}").unwrap();
//! let memory = PhysicalLayout::new(&shape).unwrap();
//! assert_eq!(memory.linear_index(&[2, 3]), Ok(17));
//! assert_eq!(memory.tiled_dims(), &[2, 3, 2, 2]);
//! assert_eq!(memory.bytes(), 96);
//! ```

// The library needs no unsafe code; only the command's allocator (`cli/allocator.rs`) has some,
// and it belongs to the binary crate (`main.rs`), which this attribute does not cover.
#![forbid(unsafe_code)]
// Passes and tools are written against this API from rustdoc; CI's clippy run denies warnings.
#![warn(missing_docs)]

pub mod analysis;
pub mod assign;
pub mod check;
pub mod diagnostic;
pub mod error;
pub mod explain;
pub mod ir;
pub mod lower;
pub mod memory;
pub mod parallel;
pub mod pass;
pub mod passes;
pub mod print;
pub mod span;
pub mod syntax;
pub mod verify;

pub use error::Error;

/// Parses and checks one shape, e.g. `bf16[4,8]{1,0:T(2,4)(2,1)}` or `(f32[], s32[2]{0})`.
/// Every error found is returned, each with a span into `text`.
pub fn parse_shape(text: &str) -> Result<ir::Shape, Vec<Error>> {
    let tree = syntax::parse_shape(text).map_err(|e| vec![Error::from(e)])?;
    lower::lower_shape(&tree).map_err(|errors| errors.into_iter().map(Error::from).collect())
}

/// Like [`parse_shape`], for text that must be a single array shape.
pub fn parse_array_shape(text: &str) -> Result<ir::ArrayShape, Vec<Error>> {
    match parse_shape(text)? {
        ir::Shape::Array(array) => Ok(array),
        _ => Err(vec![Error::Lower(lower::LowerError::NotAnArrayShape {
            span: span::Span::new(0, text.len()),
        })]),
    }
}

/// Parses and lowers `text[range.start..cut]` and `text[cut..range.end]` on two threads and
/// joins the halves; `None` when the halves do not each parse on their own as computations
/// of one module, and then only parsing the whole in one go can tell. Whenever it gives a
/// module, it is the module [`parse_module_range`] gives.
#[doc(hidden)]
pub fn parse_module_range_at(
    text: &str,
    range: std::ops::Range<usize>,
    cut: usize,
) -> Option<Result<ir::Module, Vec<Error>>> {
    if let Some(error) = syntax::headerless_signature(text, range.clone()) {
        return Some(Err(vec![Error::from(error)]));
    }
    // The other thread also reads and lowers the header and tables, which are slow to read
    // for their size: this one has the joining of the halves to do after.
    let preamble = syntax::preamble_end(text, range.clone())
        .filter(|&end| end < cut)
        .map(|end| {
            let lower = |tree: syntax::ast::Module<'_>| {
                lower::module::LoweredPreamble::without_errors(&tree)
            };
            (end, lower)
        });
    let whole = range.clone();
    let halves = syntax::in_two_halves(
        text,
        range,
        cut,
        || lower::ModuleLowering::for_module(text, whole.clone()),
        preamble,
    );
    let ((tree, mut lowering), (_, second), preamble) = halves?;
    lowering.absorb(second);
    let preamble = preamble.unwrap_or_else(|| lower::module::LoweredPreamble::new(&tree));
    Some(
        lowering
            .finish_with(preamble)
            .map_err(|errors| errors.into_iter().map(Error::from).collect()),
    )
}

/// Parses and lowers `text[range]` on this thread, cut at the first instruction line
/// `offset` bytes or more into it, while a second thread reads the text after the cut ahead
/// (`lower::read_ahead`); `None` when there is no such line or the parts do not each parse
/// on their own. Whenever it gives a module, it is the module [`parse_module_range`] gives.
#[doc(hidden)]
pub fn parse_module_range_tail_ahead(
    text: &str,
    range: std::ops::Range<usize>,
    offset: usize,
) -> Option<Result<ir::Module, Vec<Error>>> {
    let run_bytes = lower::read_ahead::RUN_BYTES;
    parse_module_range_tail_ahead_in_runs(text, range, offset, run_bytes)
}

/// [`parse_module_range_tail_ahead`] with the body that holds the cut read in runs of
/// about `run_bytes` for both threads together (`lower::read_ahead`), which a test can make
/// short enough that a small module has many.
#[doc(hidden)]
pub fn parse_module_range_tail_ahead_in_runs(
    text: &str,
    range: std::ops::Range<usize>,
    offset: usize,
    run_bytes: usize,
) -> Option<Result<ir::Module, Vec<Error>>> {
    // One pass refuses this before reading anything (see `parse_module_range_cut`); read in
    // parts, each part would read as computations.
    if let Some(error) = syntax::headerless_signature(text, range.clone()) {
        return Some(Err(vec![Error::from(error)]));
    }
    let cut = syntax::instruction_line_cut(text, range.clone(), offset)?;
    let mut lowering = lower::ModuleLowering::for_module(text, range.clone());
    let (tree, preamble) =
        lower::read_ahead::parse_with_tail_ahead(text, range, cut, run_bytes, &mut lowering)?;
    let preamble = preamble.unwrap_or_else(|| lower::module::LoweredPreamble::new(&tree));
    Some(
        lowering
            .finish_with(preamble)
            .map_err(|errors| errors.into_iter().map(Error::from).collect()),
    )
}

/// Parses a module and prints it canonically (see [`mod@print`]). Every error found is returned,
/// each with a span into `text`.
pub fn format_module(text: &str) -> Result<String, Vec<Error>> {
    format_module_range(text, 0..text.len())
}

/// Like [`format_module`] for `text[range]`, one part of a `// -----` split file; spans
/// point into the whole of `text`.
pub fn format_module_range(
    text: &str,
    range: std::ops::Range<usize>,
) -> Result<String, Vec<Error>> {
    if let Some(error) = syntax::headerless_signature(text, range.clone()) {
        return Err(vec![Error::from(error)]);
    }
    if let Some(formatted) = lower::canonical::format_streaming(text, range.clone()) {
        return Ok(formatted);
    }
    format_whole_tree(text, range)
}

/// `text[range]` printed from its whole syntax tree, which reports every error in order.
fn format_whole_tree(text: &str, range: std::ops::Range<usize>) -> Result<String, Vec<Error>> {
    let module = syntax::parse_module_range(text, range)
        .map_err(|errors| errors.into_iter().map(Error::from).collect::<Vec<_>>())?;
    print::print_module(&module).map_err(|errors| errors.into_iter().map(Error::from).collect())
}

/// A module's formatted text as [`format_module_range_spilling`] gives it: its first
/// `spilled` bytes in the spill, the rest in `tail`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SpilledText {
    /// Where the spill stood when the text began.
    start: u64,
    /// How many bytes of the text were written to the spill, from `start`.
    pub spilled: u64,
    /// The text that follows them.
    pub tail: String,
}

impl SpilledText {
    /// Writes the whole text to `writer`: what went to `spill`, read back, then the tail.
    pub fn write_to<S>(&self, spill: &mut S, writer: &mut dyn std::io::Write) -> std::io::Result<()>
    where
        S: std::io::Read + std::io::Write + std::io::Seek,
    {
        print::copy_spilled(spill, self.start, self.spilled, writer)?;
        writer.write_all(self.tail.as_bytes())
    }
}

/// [`format_module_range`], the text written to `spill` (an unnamed temporary file, say)
/// from where it stands as it is printed, rather than held whole: formatting then holds the
/// input and a quarter of a megabyte of output, not the input and its formatted copy. Gives how many
/// bytes went to `spill`, and the rest. A spill that fails (a full disk) is given up, not
/// the formatting: the rest is held. When the module is printed from its whole tree (a text
/// the parser reads again, or one with an error), nothing of it is in `spill`.
pub fn format_module_range_spilling<S: std::io::Read + std::io::Write + std::io::Seek>(
    text: &str,
    range: std::ops::Range<usize>,
    spill: &mut S,
) -> Result<SpilledText, Vec<Error>> {
    format_module_range_spilling_every(text, range, spill, SPILL_BYTES)
}

/// How much formatted text [`format_module_range_spilling`] holds before writing it out.
const SPILL_BYTES: usize = 256 << 10;

/// [`format_module_range_spilling`], writing to `spill` each time `spill_bytes` are held;
/// tests spill small modules every few lines.
#[doc(hidden)]
pub fn format_module_range_spilling_every<S>(
    text: &str,
    range: std::ops::Range<usize>,
    spill: &mut S,
    spill_bytes: usize,
) -> Result<SpilledText, Vec<Error>>
where
    S: std::io::Read + std::io::Write + std::io::Seek,
{
    if let Some(error) = syntax::headerless_signature(text, range.clone()) {
        return Err(vec![Error::from(error)]);
    }
    let mut spilling = Spilling::new(spill);
    let streamed = lower::canonical::format_streaming_flushing(
        text,
        range.clone(),
        Some(&mut |out: &mut String| spilling.take(out)),
        spill_bytes,
    );
    if let Some(tail) = streamed {
        return Ok(spilling.text(tail));
    }
    // What was spilled is void: the whole tree is printed, and held.
    spilling.void();
    let tail = format_whole_tree(text, range)?;
    Ok(Spilling::new(spill).text(tail))
}

/// [`format_module_range_spilling`] for a module whose text arrives in pieces, as
/// [`syntax::pieces::TextPieces`] cuts it: neither the whole text nor its formatted copy
/// is held, only a piece of each. `Ok(None)` when it cannot tell that the text formats
/// so (it has an error, a piece ends neither after a computation nor before an instruction
/// line, it is a lone instruction): nothing of it is then in `spill`, and the caller
/// formats the whole text, which reports every error. An error of `pieces` ends the
/// reading and is returned.
pub fn format_module_in_pieces_spilling<E, S>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
    spill: &mut S,
) -> Result<Option<SpilledText>, E>
where
    S: std::io::Read + std::io::Write + std::io::Seek,
{
    format_module_in_pieces_spilling_every(pieces, spill, SPILL_BYTES)
}

/// [`format_module_in_pieces_spilling`], writing to `spill` each time `spill_bytes` are
/// held; tests spill small modules every few lines.
#[doc(hidden)]
pub fn format_module_in_pieces_spilling_every<E, S>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
    spill: &mut S,
    spill_bytes: usize,
) -> Result<Option<SpilledText>, E>
where
    S: std::io::Read + std::io::Write + std::io::Seek,
{
    let mut spilling = Spilling::new(spill);
    let formatted = lower::canonical::format_pieces_flushing(
        pieces,
        &mut |out: &mut String| spilling.take(out),
        spill_bytes,
    );
    match formatted {
        Ok(Some(tail)) => Ok(Some(spilling.text(tail))),
        Ok(None) => {
            spilling.void();
            Ok(None)
        }
        Err(error) => {
            spilling.void();
            Err(error)
        }
    }
}

/// Formatted text written to a spill as it is printed, from where the spill stood; given
/// up at the first write that fails, the rest then held.
struct Spilling<'s, S> {
    spill: &'s mut S,
    start: u64,
    /// False once a write failed, or when where the spill stands could not be told.
    spilling: bool,
    spilled: u64,
}

impl<'s, S: std::io::Write + std::io::Seek> Spilling<'s, S> {
    fn new(spill: &'s mut S) -> Spilling<'s, S> {
        let position = spill.stream_position();
        Spilling {
            spilling: position.is_ok(),
            start: position.unwrap_or(0),
            spill,
            spilled: 0,
        }
    }

    /// Writes `out` to the spill and clears it, unless spilling was given up.
    fn take(&mut self, out: &mut String) {
        if !self.spilling {
            return;
        }
        if self.spill.write_all(out.as_bytes()).is_ok() {
            self.spilled += out.len() as u64;
            out.clear();
        } else {
            self.spilling = false;
        }
    }

    /// The whole text: what was spilled, then `tail`.
    fn text(self, tail: String) -> SpilledText {
        SpilledText {
            start: self.start,
            spilled: self.spilled,
            tail,
        }
    }

    /// What was spilled is void: the spill goes back to where it stood.
    fn void(self) {
        if self.spilled > 0 {
            // Nothing spilled is read back, whether or not the spill goes back.
            let _ = self.spill.seek(std::io::SeekFrom::Start(self.start));
        }
    }
}

/// Parses and lowers one module to the IR graph; every error is returned, each with a span
/// into `text`.
pub fn parse_module(text: &str) -> Result<ir::Module, Vec<Error>> {
    parse_module_range(text, 0..text.len())
}

/// [`parse_module`] for a module whose text arrives in pieces, so that no more than one
/// piece is held at a time: each piece is whole computations (the first one starts the
/// text, header and all), or ends before an instruction line of a computation that the
/// next piece goes on with ([`syntax::pieces::TextPieces`] cuts so); together, in order,
/// they make up the module's text. Gives the module [`parse_module`] would give, spans into
/// the whole text, or `None` when it cannot tell that it would: when the text has an error,
/// when a piece ends elsewhere, or when it writes a computation in place or is a lone
/// instruction.
/// The caller then reads the text whole, which reports every error. An error of `pieces`
/// ends the reading and is returned.
pub fn parse_module_in_pieces<E>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
) -> Result<Option<ir::Module>, E> {
    lower::pieces::lower_in_pieces(pieces, None)
}

/// [`parse_module_in_pieces`] for a text of `text_bytes` bytes in all (a hint, the size of
/// the file read, say): a computation longer than a piece is given room for its
/// instructions in the rest of the text once, when its first piece is read, rather than
/// grown as later pieces add to it, which copies all of it at each doubling.
pub fn parse_module_in_pieces_of<E>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
    text_bytes: usize,
) -> Result<Option<ir::Module>, E> {
    lower::pieces::lower_in_pieces(pieces, Some(text_bytes))
}

/// Like [`parse_module`] for `text[range]`, one part of a `// -----` split file.
pub fn parse_module_range(
    text: &str,
    range: std::ops::Range<usize>,
) -> Result<ir::Module, Vec<Error>> {
    parse_module_range_cut(text, range, parallel::threshold(parallel::PARSE_MIN_BYTES))
}

/// [`parse_module_range`] on two threads when the text is at least `min_bytes` long: in two
/// halves when it has a place to cut near its middle, else cut inside a computation with the
/// rest read ahead; the result is the same every way, which tests check with a small
/// `min_bytes`.
#[doc(hidden)]
pub fn parse_module_range_cut(
    text: &str,
    range: std::ops::Range<usize>,
    min_bytes: usize,
) -> Result<ir::Module, Vec<Error>> {
    // Text XLA reads as one instruction is not read as a module.
    if let Some(error) = syntax::headerless_signature(text, range.clone()) {
        return Err(vec![Error::from(error)]);
    }
    // The other thread reads the header and tables too, and the cut moves by their length.
    let preamble = || syntax::preamble_end(text, range.clone()).map_or(0, |end| end - range.start);
    let near = |offset| syntax::computation_start_near(text, range.clone(), offset);
    if let Some(cuts) = parallel::parse_cuts(text, range.clone(), min_bytes, preamble, near) {
        if let Some(lowered) =
            (cuts.halves).and_then(|cut| parse_module_range_at(text, range.clone(), cut))
        {
            return lowered;
        }
        if let Some(lowered) = parse_module_range_tail_ahead(text, range.clone(), cuts.tail_ahead) {
            return lowered;
        }
    }
    // Computations are lowered as they are parsed, so the whole syntax tree never exists.
    let mut lowering = lower::ModuleLowering::for_module(text, range.clone());
    let tree = syntax::parse_module_into(text, range.clone(), &mut lowering)
        .map_err(|errors| with_line_errors(text, range, errors))?;
    let lowered = match tree.instruction {
        Some(_) => lower::lower_module(&tree),
        None => lowering.finish(&tree),
    };
    lowered.map_err(|errors| errors.into_iter().map(Error::from).collect())
}

/// Syntax errors, and with them the errors of meaning that the lines without one show on
/// their own (`lower::line_errors`), all in text order: a type error above a syntax error is
/// not lost. One on a line with a syntax error is left out, as the parser's recovery may have
/// read that line wrongly. A header value that XLA reads by a grammar of its own is read by
/// that grammar too, up to the first syntax error (`lower::unclosed_header_values`).
fn with_line_errors(
    text: &str,
    range: std::ops::Range<usize>,
    syntax: Vec<syntax::SyntaxError>,
) -> Vec<Error> {
    let line_of = |offset: usize| {
        let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
        memchr::memchr_iter(b'\n', before).count()
    };
    let syntax_lines: std::collections::BTreeSet<usize> =
        syntax.iter().map(|e| line_of(e.span().start)).collect();
    let start = |error: &Error| {
        use miette::Diagnostic;
        error
            .labels()
            .and_then(|mut labels| labels.next())
            .map_or(0, |label| label.offset())
    };
    let first = syntax.iter().map(|e| e.span().start).min();
    let mut errors: Vec<Error> = syntax.into_iter().map(Error::from).collect();
    if let Some(first) = first {
        errors.extend(
            lower::unclosed_header_values(text, range.clone(), first)
                .into_iter()
                .map(Error::from),
        );
    }
    errors.extend(
        lower::line_errors(text, range)
            .into_iter()
            .map(Error::from)
            .filter(|error| !syntax_lines.contains(&line_of(start(error)))),
    );
    // Stable: a syntax error stays before an error of meaning at the same place.
    errors.sort_by_key(start);
    errors
}
