//! Parsing and lowering a module on two threads when it cannot be cut between computations
//! near its middle (a pre-optimization dump is mostly its entry computation): it is cut at
//! an instruction line instead. This thread reads and lowers the text before the cut, while
//! a second reads the text after it and lowers each line as far as it can without its
//! computation ([`Prelowering`]), which leaves this thread only to place it in the graph,
//! about half the work of lowering it. The second thread sends what it reads in batches.
//!
//! A line that cannot be taken so (an error, an operand that is not a name, a computation
//! written in place) goes over as it was read and is lowered where it is placed, so the
//! module and its errors are what one pass gives, in the same order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::module::computation::PreparedOperand;
use super::module::prelower::{Prelowered, Prelowering};
use super::module::{LoweredPreamble, ModuleLowering};
use crate::syntax::ast::{self, Sink};

/// What the reading thread reads: a line lowered as far as it goes there
/// ([`Prelowering::prepare`]), or as read when it cannot be.
enum Event<'s> {
    Begin(ast::ComputationHead<'s>),
    Line(ast::Instruction<'s>),
    Lowered(Prelowered<'s>),
    End(Vec<ast::Attribute<'s>>, usize),
}

/// Events go over in batches of this many: handing each over alone costs more than lowering
/// it.
const BATCH_EVENTS: usize = 128;

/// A batch of events, and the operands of its lowered lines in order
/// ([`Prelowering::take_operands`]).
type Batch<'s> = (Vec<Event<'s>>, Vec<PreparedOperand<'s>>);

/// The reading thread's sink: lowers what it can and sends batches until told to stop.
struct ReadAhead<'s, 'f> {
    lines: Prelowering<'s>,
    sender: mpsc::Sender<Batch<'s>>,
    stopped: &'f AtomicBool,
    batch: Vec<Event<'s>>,
}

impl<'s> ReadAhead<'s, '_> {
    fn push(&mut self, event: Event<'s>) {
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
        if self
            .sender
            .send((batch, self.lines.take_operands()))
            .is_err()
        {
            // This thread's reader has gone: nothing more is wanted.
            self.stopped.store(true, Ordering::Relaxed);
        }
    }
}

impl<'s> Sink<'s> for ReadAhead<'s, '_> {
    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        self.push(Event::Begin(head));
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        // Taken by reference, so that a line not taken goes on without having been moved
        // in and back out.
        match self.lines.prepare(&instruction) {
            Some(lowered) => {
                self.lines.spare.keep(instruction);
                self.push(Event::Lowered(lowered));
            }
            None => self.push(Event::Line(instruction)),
        }
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.push(Event::End(attributes, end));
    }

    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        self.lines.spare.operands()
    }

    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        self.lines.spare.attributes()
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
/// `None` when either part does not parse on its own without an error: only reading the
/// whole in one go can then tell what the text is, and `lowering`, which may have heard part
/// of it, must be dropped. Each part is read by the happy-path parser alone, as any syntax
/// error sends the caller the long way; so does an error lowering the preamble.
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
    // The channel has room for all the tail sends: the tail never waits for this thread,
    // and where no second thread is to be had it runs first on this one (`parallel::join`).
    let (sender, receiver) = mpsc::channel::<Batch<'s>>();
    let stopped = AtomicBool::new(false);
    let stopped = &stopped;
    let read_tail = move || {
        let mut read_ahead = ReadAhead {
            lines: Prelowering::new(source),
            sender,
            stopped,
            batch: Vec::with_capacity(BATCH_EVENTS),
        };
        let parsed = crate::syntax::parse_suffix_into(source, cut, range.end, &mut read_ahead);
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
    };
    let read_head_and_place = move || {
        let head_start = preamble_end.unwrap_or(range.start);
        let head = crate::syntax::parse_prefix_into(source, head_start, cut, lowering);
        if head.is_some() {
            for (batch, operands) in &receiver {
                let mut operands = operands.into_iter();
                for event in batch {
                    match event {
                        Event::Begin(head) => lowering.begin_computation(head),
                        Event::Line(instruction) => lowering.instruction(instruction),
                        Event::Lowered(line) => lowering.prelowered(line, &mut operands),
                        Event::End(attributes, end) => lowering.end_computation(attributes, end),
                    }
                }
            }
        } else {
            // The tail's events are of no use: it stops sending them.
            stopped.store(true, Ordering::Relaxed);
        }
        head
    };
    let (head, (tail_parsed, preamble)) = crate::parallel::join(read_head_and_place, read_tail);
    let head = head.filter(|_| tail_parsed)?;
    match preamble {
        // The head must then be computations alone, as the whole would have been read.
        Some(lowered) => {
            let computations_only = head.header.is_none() && head.tables.is_empty();
            Some((head, Some(lowered?))).filter(|_| computations_only)
        }
        None => Some((head, None)),
    }
}
