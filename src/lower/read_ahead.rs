//! Lowering on two threads what one parser reads: the reading thread sends what it reads in
//! batches to the lowering thread. Two ways use this:
//!
//! - [`parse_handing_over`], for `check`: one thread reads the whole module and sends each
//!   line as read; the other lowers and verifies it as it goes.
//! - [`parse_with_tail_ahead`], for a module that cannot be cut between computations near
//!   its middle (a pre-optimization dump is mostly its entry computation): it is cut at an
//!   instruction line instead. This thread reads and lowers the text before the cut, while
//!   a second reads the text after it and lowers each line as far as it can without its
//!   computation ([`Prelowering`]), which leaves this thread only to place it in the graph,
//!   about half the work of lowering it.
//!
//! A line that cannot be taken so (an error, an operand that is not a name, a computation
//! written in place) goes over as it was read and is lowered where it is placed, so the
//! module and its errors are what one pass gives, in the same order.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::module::computation::PreparedOperand;
use super::module::prelower::{Prelowered, Prelowering};
use super::module::{LoweredPreamble, ModuleLowering};
use crate::syntax::ast::{self, Sink};
use crate::syntax::SyntaxError;

/// What the reading thread makes of a line before sending it: the line lowered as far as it
/// goes there ([`ReadLines::take`]), or the line as read.
trait ReadLines<'s> {
    type Lowered: Send;
    /// What the lines of a batch share, sent with them.
    type Shared: Send + Default;
    /// The line lowered, or `None` to send it as read. Taken by reference, so that a line
    /// not taken goes on without having been moved in and back out.
    fn take(&mut self, line: &ast::Instruction<'s>) -> Option<Self::Lowered>;
    /// Gives back a line [`ReadLines::take`] lowered.
    fn taken(&mut self, _line: ast::Instruction<'s>) {}
    /// What the lines lowered since the last call share.
    fn take_shared(&mut self) -> Self::Shared {
        Self::Shared::default()
    }
    /// See [`Sink::operand_vec`].
    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        Vec::new()
    }
    /// See [`Sink::attribute_vec`].
    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        Vec::new()
    }
}

impl<'s> ReadLines<'s> for Prelowering<'s> {
    type Lowered = Prelowered<'s>;
    /// The lines' operands, in order ([`Prelowering::take_operands`]).
    type Shared = Vec<PreparedOperand<'s>>;
    fn take(&mut self, line: &ast::Instruction<'s>) -> Option<Prelowered<'s>> {
        self.prepare(line)
    }

    fn taken(&mut self, line: ast::Instruction<'s>) {
        self.spare.keep(line);
    }

    fn take_shared(&mut self) -> Vec<PreparedOperand<'s>> {
        self.take_operands()
    }

    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        self.spare.operands()
    }

    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        self.spare.attributes()
    }
}

/// Sends every line as read: lowering on the reading thread made `check` slower
/// (transformer24 opt 83-86 MB/s against 109-115 as read, best of 10).
struct AsRead;

impl<'s> ReadLines<'s> for AsRead {
    type Lowered = Infallible;
    type Shared = ();
    fn take(&mut self, _line: &ast::Instruction<'s>) -> Option<Infallible> {
        None
    }
}

/// What the reading thread reads, lowered as far as it can be there (`L`).
enum Event<'s, L> {
    Header(Box<ast::Header<'s>>),
    Begin(ast::ComputationHead<'s>),
    Line(ast::Instruction<'s>),
    Lowered(L),
    End(Vec<ast::Attribute<'s>>, usize),
}

impl<'s, L> Event<'s, L> {
    /// Hands the event to `sink`; a lowered line goes to `place`.
    fn replay<S: Sink<'s>>(self, sink: &mut S, place: impl FnOnce(&mut S, L)) {
        match self {
            Event::Header(header) => {
                // Only a sink that takes the header has it sent (see `ReadAhead::header`).
                let _ = sink.header(header);
            }
            Event::Begin(head) => sink.begin_computation(head),
            Event::Line(instruction) => sink.instruction(instruction),
            Event::Lowered(lowered) => place(sink, lowered),
            Event::End(attributes, end) => sink.end_computation(attributes, end),
        }
    }
}

/// Events go over in batches of this many: handing each over alone costs more than lowering
/// it.
const BATCH_EVENTS: usize = 128;

/// A batch of events and what its lines share.
type Batch<'s, R> = (
    Vec<Event<'s, <R as ReadLines<'s>>::Lowered>>,
    <R as ReadLines<'s>>::Shared,
);

/// The reading thread's sink: lowers what it can and sends batches until told to stop.
struct ReadAhead<'s, 'f, R: ReadLines<'s>> {
    lines: R,
    sender: mpsc::SyncSender<Batch<'s, R>>,
    stopped: &'f AtomicBool,
    /// The sink takes the header from the parser ([`Sink::header`] returns `None` for it),
    /// so it goes over too; else it stays in the tree.
    takes_header: bool,
    batch: Vec<Event<'s, R::Lowered>>,
}

impl<'s, R: ReadLines<'s>> ReadAhead<'s, '_, R> {
    fn push(&mut self, event: Event<'s, R::Lowered>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        self.batch.push(event);
        if self.batch.len() >= BATCH_EVENTS {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_EVENTS));
        if self.sender.send((batch, self.lines.take_shared())).is_err() {
            // This thread's reader has gone: nothing more is wanted.
            self.stopped.store(true, Ordering::Relaxed);
        }
    }
}

impl<'s, R: ReadLines<'s>> Sink<'s> for ReadAhead<'s, '_, R> {
    fn header(&mut self, header: Box<ast::Header<'s>>) -> Option<Box<ast::Header<'s>>> {
        if !self.takes_header {
            return Some(header);
        }
        self.push(Event::Header(header));
        None
    }

    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        self.push(Event::Begin(head));
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        match self.lines.take(&instruction) {
            Some(lowered) => {
                self.lines.taken(instruction);
                self.push(Event::Lowered(lowered));
            }
            None => self.push(Event::Line(instruction)),
        }
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.push(Event::End(attributes, end));
    }

    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        self.lines.operand_vec()
    }

    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        self.lines.attribute_vec()
    }
}

/// Parses `source[range]` cut at `cut`, the start of an instruction line inside a
/// computation body, into `lowering`: the text before the cut on this thread, the text
/// after it on a second one, ahead (see the module's documentation). `lowering` hears what
/// it would have heard from one parse.
///
/// The second thread, which has less to do, also reads and lowers the header and tables
/// (see [`crate::syntax::preamble_end`]) when the module has them; the lowered preamble is
/// returned with the tree.
///
/// `None` when either part does not parse on its own without an error, or no second thread
/// was to be had: only reading the whole in one go can then tell what the text is, and
/// `lowering`, which may have heard part of it, must be dropped. Each part is read by the
/// happy-path parser alone, as any syntax error sends the caller the long way; so does an
/// error lowering the preamble.
pub(crate) fn parse_with_tail_ahead<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    cut: usize,
    lowering: &mut ModuleLowering<'s>,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    if !(range.start < cut && cut < range.end && source.is_char_boundary(cut)) {
        return None;
    }
    let preamble_end = crate::syntax::preamble_end(source, range.clone())
        .filter(|&end| range.start < end && end < cut && source.is_char_boundary(end));
    // Room for every batch the tail makes while this thread reads the head (an event takes a
    // line of 16 bytes or more), so the tail waits for nothing; more only makes it wait.
    let batches = (range.end - cut) / (16 * BATCH_EVENTS) + 2;
    let (sender, receiver) = mpsc::sync_channel::<Batch<'s, Prelowering<'s>>>(batches);
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stopped = &stopped;
        let tail = std::thread::Builder::new()
            .name("read-ahead".into())
            .stack_size(crate::SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut read_ahead = ReadAhead {
                    lines: Prelowering::new(source),
                    sender,
                    stopped,
                    takes_header: false,
                    batch: Vec::with_capacity(BATCH_EVENTS),
                };
                let parsed =
                    crate::syntax::parse_suffix_into(source, cut, range.end, &mut read_ahead);
                read_ahead.flush();
                drop(read_ahead);
                let preamble = match preamble_end {
                    Some(end) => {
                        let tree = crate::syntax::parse_preamble(source, range.start..end);
                        // `None` inside: the preamble does not read or lower alone.
                        Some(tree.as_ref().and_then(LoweredPreamble::without_errors))
                    }
                    None => None,
                };
                (parsed, preamble)
            })
            .ok()?;
        let head_start = preamble_end.unwrap_or(range.start);
        let head = crate::syntax::parse_prefix_into(source, head_start, cut, lowering);
        if head.is_some() {
            for (batch, operands) in &receiver {
                let mut operands = operands.into_iter();
                for event in batch {
                    event.replay(lowering, |lowering, line| {
                        lowering.prelowered(line, &mut operands)
                    });
                }
            }
        } else {
            // The tail's events are of no use: it stops sending them.
            stopped.store(true, Ordering::Relaxed);
        }
        drop(receiver);
        let (tail_parsed, preamble) = tail.join().ok()?;
        let head = head.filter(|_| tail_parsed)?;
        match preamble {
            // The head must then be computations alone, as the whole would have been read.
            Some(lowered) => {
                let computations_only = head.header.is_none() && head.tables.is_empty();
                Some((head, Some(lowered?))).filter(|_| computations_only)
            }
            None => Some((head, None)),
        }
    })
}

/// Parses `source[range]` on this thread and hands each line, as read, to `sink` on a
/// second thread; returns what parsing returned and the sink, or `None` when no second
/// thread was to be had or it failed. After each batch, `stop` tells from the sink whether
/// the rest may go unsent (a checker that has found an error); parsing still goes to the
/// end, for its syntax errors. `takes_header`: the sink takes the header from the parser.
pub(crate) fn parse_handing_over<'s, S>(
    source: &'s str,
    range: std::ops::Range<usize>,
    mut sink: S,
    takes_header: bool,
    stop: impl Fn(&S) -> bool + Send,
) -> Option<(Result<ast::Module<'s>, Vec<SyntaxError>>, S)>
where
    S: Sink<'s> + Send,
{
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The parser stays at most 32 batches (4,096 lines) ahead, which bounds the memory
        // in flight; with room for one, the threads waited on each other and `check` on two
        // threads was no faster than on one (parse bench: 104.1 against 105.4 MB/s; 116.8 to
        // 123.7 with room for 32, peak RSS of `check` on `large/` as before).
        let (sender, receiver) = mpsc::sync_channel::<Batch<'s, AsRead>>(32);
        let stopped = &stopped;
        let consumer = std::thread::Builder::new()
            .name("lower-handed-over".into())
            .stack_size(crate::SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, move || {
                for (batch, ()) in receiver {
                    for event in batch {
                        event.replay(&mut sink, |_, never| match never {});
                    }
                    if stop(&sink) {
                        stopped.store(true, Ordering::Relaxed);
                    }
                }
                sink
            })
            .ok()?;
        let mut read_ahead = ReadAhead {
            lines: AsRead,
            sender,
            stopped,
            takes_header,
            batch: Vec::with_capacity(BATCH_EVENTS),
        };
        let tree = crate::syntax::parse_module_into(source, range, &mut read_ahead);
        read_ahead.flush();
        // Dropping the sender ends the consumer's loop.
        drop(read_ahead);
        let sink = consumer.join().ok()?;
        Some((tree, sink))
    })
}
