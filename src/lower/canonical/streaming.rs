//! Formatting a module as the parser reads it: the header, the tables and each instruction
//! line are printed as they come and dropped, so that only one line's tree is held.
//!
//! Invariant: the text printed is what printing the whole tree gives; whenever the parser
//! reads the text again or the text has an error, what was printed is dropped and the
//! caller prints the whole tree, which reports every error in order.

use super::printer::Printer;
use crate::syntax::ast::{self, Attribute, Instruction};

/// Parses `source[range]` and prints it as [`print_module`] prints the whole tree, one
/// computation at a time as the parser reads it: the tree of only one computation is held, so
/// formatting takes memory for the text and the output, not for the module's tree (a tree is
/// several times its text). `None` when the text does not parse or print that way (it has an
/// error, or is a lone instruction): the caller then parses the whole tree, which reports
/// every error in order.
///
/// [`print_module`]: super::print_module
pub(crate) fn format_streaming(source: &str, range: std::ops::Range<usize>) -> Option<String> {
    format_streaming_flushing(source, range, None, usize::MAX)
}

/// [`format_streaming`], giving `flush` what is printed each time it holds at least
/// `flush_bytes`, at the end of a line: `flush` takes it (and clears it) or leaves it to be
/// held. The text given is what [`format_streaming`] gives, in order, up to what is
/// returned; when `None` is returned, what `flush` was given is void.
pub(crate) fn format_streaming_flushing(
    source: &str,
    range: std::ops::Range<usize>,
    flush: Option<&mut dyn FnMut(&mut String)>,
    flush_bytes: usize,
) -> Option<String> {
    // Room for the whole text unless it is flushed as it goes. Room never written costs no
    // memory (its pages are never touched), while growing would copy everything printed.
    let room = match flush {
        Some(_) => flush_bytes.saturating_add(flush_bytes / 2).min(range.len()),
        None => range.len() + range.len() / 8,
    };
    let mut sink = StreamingPrinter::new(room, flush, flush_bytes);
    let module = crate::syntax::parse_module_into(source, range, &mut sink).ok()?;
    if !all_printed(&module) || sink.restarted || sink.open {
        return None;
    }
    sink.close_tables();
    sink.printer.finish().ok()
}

/// [`format_streaming_flushing`] for a module whose text arrives in pieces, as
/// [`crate::syntax::pieces::TextPieces`] cuts it (whole computations, or runs of the lines
/// of a longer one), so that no more than a piece of the text is held: each is read and
/// printed in turn. `Ok(None)` when it cannot tell that the text prints so (an error, a
/// piece that ends neither after a computation nor before an instruction line); what
/// `flush` was given is then void, and the caller formats the whole text, which reports
/// every error. An error of `pieces` ends the reading and is returned.
pub(crate) fn format_pieces_flushing<E>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
    flush: &mut dyn FnMut(&mut String),
    flush_bytes: usize,
) -> Result<Option<String>, E> {
    let room = flush_bytes.saturating_add(flush_bytes / 2);
    let mut sink = StreamingPrinter::new(room, Some(flush), flush_bytes);
    // Whether the last piece ended inside a computation body, which this one goes on with.
    let mut inside_body = false;
    let mut first = true;
    for piece in pieces {
        let mut piece = piece?;
        if piece.is_empty() {
            continue;
        }
        if !first && !inside_body && crate::syntax::holds_no_token(&piece) {
            // Blank lines and comments after the last computation.
            continue;
        }
        if first && crate::syntax::headerless_signature(&piece, 0..piece.len()).is_some() {
            return Ok(None);
        }
        // A piece that ends inside a body is closed with a `}` that leaves it open.
        let leaves_open = crate::syntax::ends_inside_a_body(&piece);
        if leaves_open {
            piece.push_str("}\n");
        }
        // Offsets are the piece's own: the order of heads is checked within each.
        sink.last_start = None;
        sink.hold_open_at = leaves_open.then(|| piece.len() - 1);
        let read = if inside_body {
            crate::syntax::parse_suffix_into(&piece, 0, piece.len(), &mut sink)
        } else {
            crate::syntax::parse_module_into(&piece, 0..piece.len(), &mut sink)
                .is_ok_and(|module| all_printed(&module))
        };
        if !read || sink.restarted || sink.open != leaves_open {
            return Ok(None);
        }
        inside_body = leaves_open;
        first = false;
    }
    if inside_body {
        return Ok(None);
    }
    sink.close_tables();
    Ok(sink.printer.finish().ok())
}

/// The [`ast::Sink`] of [`format_streaming`]: prints the header and tables as they come, and
/// each instruction line as it is read, then drops it (a computation's tree is several times
/// its text, and one computation can be a quarter of a module).
struct StreamingPrinter<'f> {
    printer: Printer,
    /// What takes the printed text as it grows, if anything does.
    flush: Option<&'f mut dyn FnMut(&mut String)>,
    /// How much printed text is held before `flush` is given it.
    flush_bytes: usize,
    /// Whether `flush` was given text: it then is not in `printer.out`.
    flushed: bool,
    /// Where a `}` added to close a computation the next piece goes on with ends: that
    /// computation stays open, its end unprinted.
    hold_open_at: Option<usize>,
    /// Inside a computation, whose instructions are printed as they come.
    open: bool,
    tables_printed: bool,
    tables_closed: bool,
    last_start: Option<usize>,
    /// The parser read the text again (its fast attempt failed): what was printed is void.
    restarted: bool,
}

/// Whether the sink took every part of `module`: what it hands back (a lone instruction, or
/// parts it refused) it did not print.
fn all_printed(module: &ast::Module<'_>) -> bool {
    module.instruction.is_none()
        && module.header.is_none()
        && module.tables.is_empty()
        && module.computations.is_empty()
}

impl<'f> StreamingPrinter<'f> {
    /// A printer with room for `room` bytes of output, giving it to `flush` each time it
    /// holds `flush_bytes`.
    fn new(
        room: usize,
        flush: Option<&'f mut dyn FnMut(&mut String)>,
        flush_bytes: usize,
    ) -> StreamingPrinter<'f> {
        StreamingPrinter {
            printer: Printer {
                out: String::with_capacity(room),
                errors: Vec::new(),
            },
            flush,
            flush_bytes,
            flushed: false,
            hold_open_at: None,
            open: false,
            tables_printed: false,
            tables_closed: false,
            last_start: None,
            restarted: false,
        }
    }
}

impl StreamingPrinter<'_> {
    /// The blank line after the last table, printed before the first computation.
    fn close_tables(&mut self) {
        if self.tables_printed && !self.tables_closed {
            self.printer.out.push('\n');
        }
        self.tables_closed = true;
    }

    /// Gives `flush` what is printed once it holds `flush_bytes`; called at line ends.
    fn flush_if_long(&mut self) {
        if let Some(flush) = &mut self.flush {
            if self.printer.out.len() >= self.flush_bytes {
                flush(&mut self.printer.out);
                self.flushed = true;
            }
        }
    }
}

impl<'s> ast::Sink<'s> for StreamingPrinter<'_> {
    fn header(&mut self, header: Box<ast::Header<'s>>) -> Option<Box<ast::Header<'s>>> {
        if self.flushed || !self.printer.out.is_empty() {
            self.restarted = true;
        }
        self.printer.header(&header);
        None
    }

    fn table(&mut self, table: ast::Table<'s>) -> Option<ast::Table<'s>> {
        if self.tables_closed {
            self.restarted = true;
        }
        self.printer.tables(std::slice::from_ref(&table));
        // `tables` ends the list with a blank line; it comes once, after the last table.
        self.printer.out.pop();
        self.tables_printed = true;
        None
    }

    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        if self.open || self.last_start.is_some_and(|last| head.start <= last) {
            self.restarted = true;
        }
        self.last_start = Some(head.start);
        self.close_tables();
        self.open = true;
        self.printer
            .computation_head(head.entry, &head.name, &head.signature);
    }

    fn instruction(&mut self, instruction: Instruction<'s>) {
        if self.open {
            self.printer.body(std::slice::from_ref(&instruction), 2);
            self.flush_if_long();
        }
    }

    fn end_computation(&mut self, attributes: Vec<Attribute<'s>>, end: usize) {
        if self.hold_open_at == Some(end) && attributes.is_empty() {
            return;
        }
        if self.open {
            self.printer.computation_end(&attributes);
            self.printer.out.push_str("\n\n");
            self.open = false;
            self.flush_if_long();
        }
    }
}
