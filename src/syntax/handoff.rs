//! Parsing on one thread while a second consumes what is read: the parser's events
//! (computation begins, instruction, computation ends) go over a channel in batches to a
//! sink that runs on the second thread. A module that is mostly one computation cannot be
//! parsed in two halves, but it can be parsed and lowered at once, each on its own core.
//!
//! The events are replayed in the order the parser gave them, so the sink sees exactly what
//! it would have seen on the parser's thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::ast::{self, Sink};
use super::SyntaxError;

/// What the parser hands a sink, kept to be handed over again on another thread.
enum Event<'s> {
    Header(Box<ast::Header<'s>>),
    Begin(ast::ComputationHead<'s>),
    Instruction(ast::Instruction<'s>),
    End(Vec<ast::Attribute<'s>>, usize),
}

impl<'s> Event<'s> {
    fn replay(self, sink: &mut dyn Sink<'s>) {
        match self {
            Event::Header(header) => {
                // Only a sink that takes the header has it sent (see `HandOff::header`).
                let _ = sink.header(header);
            }
            Event::Begin(head) => sink.begin_computation(head),
            Event::Instruction(instruction) => sink.instruction(instruction),
            Event::End(attributes, end) => sink.end_computation(attributes, end),
        }
    }
}

/// Events go over in batches of this many: handing over each alone costs more than
/// lowering it.
const BATCH_EVENTS: usize = 128;

/// How the sink on the second thread is run.
pub(crate) struct HandOffOptions {
    /// The sink takes the header from the parser ([`Sink::header`] returns `None` for it),
    /// so it goes over too; else it stays in the tree.
    pub takes_header: bool,
}

/// Parses `source[range]` on this thread and hands each event to `sink` on a second thread;
/// returns what parsing returned and the sink, or `None` when no second thread was to be
/// had or it failed. After each batch, `stop` tells from the sink whether the rest may go
/// unsent (a checker that has found an error); parsing still goes to the end, for its
/// syntax errors.
pub(crate) fn parse_handing_over<'s, S>(
    source: &'s str,
    range: std::ops::Range<usize>,
    mut sink: S,
    options: HandOffOptions,
    stop: impl Fn(&S) -> bool + Send,
) -> Option<(Result<ast::Module<'s>, Vec<SyntaxError>>, S)>
where
    S: Sink<'s> + Send,
{
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Room for two batches: the parser stays at most that far ahead.
        let (sender, receiver) = mpsc::sync_channel::<Vec<Event<'s>>>(1);
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
        let mut hand_off = HandOff {
            sender,
            stopped,
            takes_header: options.takes_header,
            batch: Vec::with_capacity(BATCH_EVENTS),
        };
        let tree = super::parse_module_into(source, range, &mut hand_off);
        hand_off.flush();
        // Dropping the sender ends the consumer's loop.
        drop(hand_off);
        let sink = consumer.join().ok()?;
        Some((tree, sink))
    })
}

/// The parsing thread's sink: gathers events and sends them in batches, and stops sending
/// once the consumer has asked it to.
struct HandOff<'s, 'f> {
    sender: mpsc::SyncSender<Vec<Event<'s>>>,
    stopped: &'f AtomicBool,
    takes_header: bool,
    batch: Vec<Event<'s>>,
}

impl<'s> HandOff<'s, '_> {
    /// Sends what is left of the last batch.
    fn flush(&mut self) {
        if !self.batch.is_empty() {
            // A consumer that has gone has failed; the join says.
            let _ = self.sender.send(std::mem::take(&mut self.batch));
        }
    }

    fn push(&mut self, event: Event<'s>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        self.batch.push(event);
        if self.batch.len() >= BATCH_EVENTS {
            let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_EVENTS));
            if self.sender.send(batch).is_err() {
                // The consumer has gone; the join finds out why.
                self.stopped.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl<'s> Sink<'s> for HandOff<'s, '_> {
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
        self.push(Event::Instruction(instruction));
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.push(Event::End(attributes, end));
    }
}
