//! Lowering on two threads what one parser reads: the reading thread sends what it reads in
//! batches to the lowering thread. It may also lower each line as far as it can without its
//! computation ([`Prelowering`]), which leaves the other only to place it in the graph
//! ([`Places`]), about half the work of lowering it. Two ways use this:
//!
//! - [`parse_handing_over`]: one thread reads the whole module, the other lowers what it
//!   reads and, for `check`, verifies it as it goes.
//! - [`parse_with_tail_ahead`], for a module that cannot be cut between computations near
//!   its middle (a pre-optimization dump is mostly its entry computation): it is cut at an
//!   instruction line instead. This thread reads and lowers the text before the cut, while
//!   a second reads the text after it; then this thread places the lines read ahead, most
//!   of them already waiting.
//!
//! A line that cannot be taken as it is (an error, an operand that is not a name, a
//! computation written in place) goes over as it was read and is lowered where it is
//! placed, so the module and its errors are what one pass gives, in the same order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::module::{ModuleLowering, Prelowered, Prelowering};
use crate::syntax::ast::{self, Sink};
use crate::syntax::SyntaxError;

/// A sink that also places lines [`Prelowering`] lowered on another thread.
pub(crate) trait Places<'s>: Sink<'s> {
    fn prelowered(&mut self, prelowered: Prelowered<'s>);
}

impl<'s> Places<'s> for ModuleLowering<'s> {
    fn prelowered(&mut self, prelowered: Prelowered<'s>) {
        ModuleLowering::prelowered(self, prelowered);
    }
}

/// What the reading thread reads, lowered as far as it can be there.
enum Event<'s> {
    Header(Box<ast::Header<'s>>),
    Begin(ast::ComputationHead<'s>),
    Line(ast::Instruction<'s>),
    Prelowered(Prelowered<'s>),
    End(Vec<ast::Attribute<'s>>, usize),
}

impl<'s> Event<'s> {
    fn replay(self, sink: &mut impl Places<'s>) {
        match self {
            Event::Header(header) => {
                // Only a sink that takes the header has it sent (see `ReadAhead::header`).
                let _ = sink.header(header);
            }
            Event::Begin(head) => sink.begin_computation(head),
            Event::Line(instruction) => sink.instruction(instruction),
            Event::Prelowered(prelowered) => sink.prelowered(prelowered),
            Event::End(attributes, end) => sink.end_computation(attributes, end),
        }
    }
}

/// Events go over in batches of this many: handing each over alone costs more than lowering
/// it.
const BATCH_EVENTS: usize = 128;

/// The reading thread's sink: lowers what it can and sends batches until told to stop.
struct ReadAhead<'s, 'f> {
    /// Lowers lines as far as it can here; `None` hands them over as they were read.
    prelowering: Option<Prelowering<'s>>,
    sender: mpsc::SyncSender<Vec<Event<'s>>>,
    stopped: &'f AtomicBool,
    /// The sink takes the header from the parser ([`Sink::header`] returns `None` for it),
    /// so it goes over too; else it stays in the tree.
    takes_header: bool,
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
        let prepared = match &mut self.prelowering {
            Some(prelowering) => prelowering.prepare(instruction),
            None => Err(instruction),
        };
        let event = match prepared {
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
                    prelowering: Some(Prelowering::new(source)),
                    sender,
                    stopped,
                    takes_header: false,
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
                    event.replay(lowering);
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

/// Parses `source[range]` on this thread, lowering each line as far as it can be here when
/// `prelower`, and hands what it reads to `sink` on a second thread; returns what parsing
/// returned and the sink, or `None` when no second thread was to be had or it failed.
/// After each batch, `stop` tells from the sink whether the rest may go unsent (a checker
/// that has found an error); parsing still goes to the end, for its syntax errors.
/// `takes_header`: the sink takes the header from the parser.
pub(crate) fn parse_handing_over<'s, S>(
    source: &'s str,
    range: std::ops::Range<usize>,
    mut sink: S,
    takes_header: bool,
    prelower: bool,
    stop: impl Fn(&S) -> bool + Send,
) -> Option<(Result<ast::Module<'s>, Vec<SyntaxError>>, S)>
where
    S: Places<'s> + Send,
{
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Room for two batches: the parser stays at most that far ahead.
        let (sender, receiver) = mpsc::sync_channel::<Vec<Event<'s>>>(32);
        let stopped = &stopped;
        let consumer = std::thread::Builder::new()
            .name("lower-handed-over".into())
            .stack_size(crate::SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, move || {
                for batch in receiver {
                    for event in batch {
                        event.replay(&mut sink);
                    }
                    if stop(&sink) {
                        stopped.store(true, Ordering::Relaxed);
                    }
                }
                sink
            })
            .ok()?;
        let mut read_ahead = ReadAhead {
            prelowering: prelower.then(|| Prelowering::new(source)),
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
