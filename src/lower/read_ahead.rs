//! Reading and lowering a module on two threads when it cannot be cut between computations
//! near its middle (a pre-optimization dump is mostly its entry computation). The module is
//! cut at an instruction line instead: this thread reads and lowers the text before the cut,
//! while a second reads the text after it and lowers each line as far as it can without
//! its computation ([`Prelowering`]), sending the lines in batches. This thread then places
//! them in the graph, most of them already waiting, as it would have placed the lines it
//! read itself.
//!
//! A line the second thread cannot take as it is (an error, an operand that is not a name,
//! a computation written in place) goes over as it was read and is lowered here, so the
//! module and its errors are what one pass gives, in the same order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::module::{ModuleLowering, Prelowered, Prelowering};
use crate::syntax::ast::{self, Sink};

/// What the second thread reads, lowered as far as it can be there.
enum Event<'s> {
    Begin(ast::ComputationHead<'s>),
    Line(ast::Instruction<'s>),
    Prelowered(Prelowered<'s>),
    End(Vec<ast::Attribute<'s>>, usize),
}

/// Events go over in batches of this many: handing each over alone costs more than lowering
/// it.
const BATCH_EVENTS: usize = 128;

/// The second thread's sink: lowers what it can and sends batches until told to stop.
struct ReadAhead<'s, 'f> {
    prelowering: Prelowering<'s>,
    sender: mpsc::SyncSender<Vec<Event<'s>>>,
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
        if self.sender.send(batch).is_err() {
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
        let event = match self.prelowering.prepare(instruction) {
            Ok(prelowered) => Event::Prelowered(prelowered),
            Err(line) => Event::Line(line),
        };
        self.push(event);
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.push(Event::End(attributes, end));
    }
}

/// Parses `source[range]` cut at `cut`, the start of an instruction line inside a
/// computation body, into `lowering`: the text before the cut on this thread, the text
/// after it on a second one, ahead (see the module's documentation). `lowering` hears what
/// it would have heard from one parse.
///
/// `None` when either part does not parse on its own without an error, or no second thread
/// was to be had: only reading the whole in one go can then tell what the text is, and
/// `lowering`, which may have heard part of it, must be dropped. Each part is read by the
/// happy-path parser alone, as any syntax error sends the caller the long way.
pub(crate) fn parse_with_tail_ahead<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    cut: usize,
    lowering: &mut ModuleLowering<'s>,
) -> Option<ast::Module<'s>> {
    if !(range.start < cut && cut < range.end && source.is_char_boundary(cut)) {
        return None;
    }
    // Room for every batch the tail makes while this thread reads the head (an event takes a
    // line of 16 bytes or more), so the tail waits for nothing; more only makes it wait.
    let batches = (range.end - cut) / (16 * BATCH_EVENTS) + 2;
    let (sender, receiver) = mpsc::sync_channel::<Vec<Event<'s>>>(batches);
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stopped = &stopped;
        let tail = std::thread::Builder::new()
            .name("read-ahead".into())
            .stack_size(crate::SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut read_ahead = ReadAhead {
                    prelowering: Prelowering::new(source),
                    sender,
                    stopped,
                    batch: Vec::with_capacity(BATCH_EVENTS),
                };
                let parsed =
                    crate::syntax::parse_suffix_into(source, cut, range.end, &mut read_ahead);
                read_ahead.flush();
                parsed
            })
            .ok()?;
        let head = crate::syntax::parse_prefix_into(source, range.start, cut, lowering);
        if head.is_some() {
            for batch in &receiver {
                for event in batch {
                    match event {
                        Event::Begin(head) => lowering.begin_computation(head),
                        Event::Line(instruction) => lowering.instruction(instruction),
                        Event::Prelowered(prelowered) => lowering.prelowered(prelowered),
                        Event::End(attributes, end) => lowering.end_computation(attributes, end),
                    }
                }
            }
        } else {
            // The tail's events are of no use: it stops sending them.
            stopped.store(true, Ordering::Relaxed);
        }
        drop(receiver);
        let tail_parsed = tail.join().ok()?;
        tail_parsed.then_some(head?)
    })
}
