//! What lowering carries from one piece of a module's text to the next, for
//! `crate::lower::pieces`, which lowers a text piece by piece: a piece's lowering resumes
//! from what the pieces before it left ([`ModuleLowering::resume`]), gives up the
//! computations it closed ([`ModuleLowering::take_piece`]) and hands on what the next
//! piece needs, nothing that borrows its text ([`ModuleLowering::suspend`]).
//!
//! Invariant: computation ids count the computations of every piece before, so a piece's
//! computations take the ids one pass over the whole text gives them.

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use super::callees::Callee;
use super::computation::SuspendedComputation;
use super::line_counter::LineCounter;
use super::memo::Memo;
use super::preamble::LoweredPreamble;
use super::{Closed, ModuleLowering, SpareVecs};
use crate::ir::module::{Computation, ComputationId, Module};
use crate::syntax::ast::Span;

/// What lowering carries from one piece of text to the next: nothing that borrows a piece.
#[derive(Default)]
pub(crate) struct Carried {
    computation_ids: FxHashMap<CompactString, (ComputationId, Span)>,
    entry: Option<(ComputationId, Span)>,
    /// The memo's tables, which own their keys; its borrowed parts are left behind.
    memo: Memo<'static>,
    async_chains: bool,
    /// The computation the last piece ended inside of, if any.
    open: Option<CarriedOpen>,
}

/// A computation a piece ended inside of: its head line, for the next piece to begin with,
/// and what was lowered of it, to go on with.
struct CarriedOpen {
    head_line: String,
    suspended: SuspendedComputation,
}

impl<'s> ModuleLowering<'s> {
    /// A lowering of the piece `source`, after the computations before it, `taken` of them.
    pub(crate) fn resume(source: &'s str, carried: Carried, taken: u32) -> ModuleLowering<'s> {
        ModuleLowering::carrying(carried, Some(source), taken, Vec::new())
    }

    /// A lowering that carries on from `carried`, `computations` closed and `taken` before
    /// them, reading `source` if any.
    fn carrying(
        carried: Carried,
        source: Option<&'s str>,
        taken: u32,
        computations: Vec<Computation>,
    ) -> ModuleLowering<'s> {
        let Carried {
            computation_ids,
            entry,
            memo,
            async_chains,
            open,
        } = carried;
        ModuleLowering {
            computation_ids,
            entry,
            open: None,
            memo: memo.for_source(source),
            closed: Closed {
                computations,
                taken,
                async_chains,
                ..Closed::default()
            },
            spare: SpareVecs::default(),
            reopened_placed_nodes: None,
            reopen: open.map(|open| open.suspended),
            held_open_at: None,
        }
    }

    /// Keeps open the computation that the `}` ending at `end`, the last of the text, would
    /// close: it was added to close a computation the next piece goes on with, and
    /// `text_after` bytes of text follow (0 when unknown), which it is sized for.
    pub(crate) fn hold_open_at(&mut self, end: usize, text_after: usize) {
        self.held_open_at = Some(end);
        self.memo.lines = LineCounter::followed_by(text_after);
    }

    /// What the next piece needs, once [`Self::take_piece`] took what it closed, with the
    /// spans of a computation held open ([`Self::hold_open_at`]) moved `shift` bytes on, as
    /// `take_piece` moves the others'; `None` when anything is unresolved, or a computation
    /// is open that was not held open or names text (see [`OpenComputation::suspend`]).
    pub(crate) fn suspend(mut self, shift: usize) -> Option<Carried> {
        let closed = &self.closed;
        let finished = closed.computations.is_empty()
            && closed.errors.is_empty()
            && closed.calls.is_empty()
            && closed.in_place.is_empty();
        if !finished {
            return None;
        }
        let open = match self.open.take() {
            None => None,
            Some(mut open) => {
                self.held_open_at?;
                let head_line = head_line(self.memo.source?, open.head.start)?.to_owned();
                let reopened = open.placed_nodes;
                let computation = &mut open.computation;
                computation.move_instruction_spans_from(reopened.unwrap_or(0), shift);
                if reopened.is_none() {
                    // Its span starts in this piece; its end is the last piece's to set.
                    computation.span.start = computation.span.start.checked_add(shift)?;
                }
                let ids = &self.computation_ids;
                let suspended = open.suspend(|name| ids.get(name).map(|&(id, _)| id))?;
                Some(CarriedOpen {
                    head_line,
                    suspended,
                })
            }
        };
        Some(Carried {
            computation_ids: self.computation_ids,
            entry: self.entry,
            memo: self.memo.for_source(None),
            async_chains: self.closed.async_chains,
            open,
        })
    }
}

/// The line of `source` that starts at `start`, a computation's head, through its line
/// break; `None` unless it ends with the body's `{`, as XLA prints a head.
fn head_line(source: &str, start: usize) -> Option<&str> {
    let rest = source.get(start..)?;
    let line = &rest[..rest.find('\n')? + 1];
    line.trim_end().ends_with('{').then_some(line)
}

impl ModuleLowering<'_> {
    /// Takes away the computations this piece closed, their calls resolved (each must name a
    /// computation above its caller, in this piece or one before) and their spans moved
    /// `shift` bytes on, into the whole text; `None` when the piece left a computation open
    /// that was not held open ([`Self::hold_open_at`]), has an error, or wrote a
    /// computation in place.
    pub(crate) fn take_piece(&mut self, shift: usize) -> Option<Vec<Computation>> {
        let closed = &mut self.closed;
        let left_open = self.open.is_some() && self.held_open_at.is_none();
        if left_open || !closed.errors.is_empty() || !closed.in_place.is_empty() {
            return None;
        }
        let mut computations = std::mem::take(&mut closed.computations);
        for (index, computation) in computations.iter_mut().enumerate() {
            match self.reopened_placed_nodes.filter(|_| index == 0) {
                // Reopened by the piece's first head, so the first to close (nothing was
                // written in place): its earlier instructions and its start are placed.
                Some(placed) => {
                    computation.move_instruction_spans_from(placed, shift);
                    computation.span.end = computation.span.end.checked_add(shift)?;
                }
                None => computation.move_spans(shift),
            }
        }
        // In the order the calls were read, as `ModuleLowering::finish` resolves them.
        for call in std::mem::take(&mut closed.calls) {
            let Callee::Named(name, _) = call.callee else {
                return None;
            };
            let &(callee, _) = self.computation_ids.get(name.text)?;
            let index = call.computation.0.checked_sub(closed.taken)?;
            let caller = computations.get_mut(index as usize)?;
            if callee.0 >= call.computation.0 {
                return None;
            }
            caller.instruction_mut(call.instruction).called.push(callee);
        }
        closed.taken = closed
            .taken
            .checked_add(u32::try_from(computations.len()).ok()?)?;
        Some(computations)
    }
}

impl ModuleLowering<'_> {
    /// What was carried into this piece's lowering, the `taken` computations before it,
    /// without what it heard of the piece, to read the piece again.
    pub(crate) fn rewind(self, taken: u32, async_chains: bool) -> Carried {
        let mut computation_ids = self.computation_ids;
        computation_ids.retain(|_, &mut (id, _)| id.0 < taken);
        Carried {
            computation_ids,
            entry: self.entry.filter(|&(id, _)| id.0 < taken),
            memo: self.memo.for_source(None),
            async_chains,
            open: None,
        }
    }
}

impl Carried {
    /// Whether a computation carried has an async chain to check at the end.
    pub(crate) fn async_chains(&self) -> bool {
        self.async_chains
    }

    /// The head line of the computation the last piece ended inside of, which the next
    /// piece must begin with.
    pub(crate) fn open_head_line(&self) -> Option<&str> {
        self.open.as_ref().map(|open| open.head_line.as_str())
    }
}

impl ModuleLowering<'static> {
    /// The module of every piece's computations, in order, with the header and tables the
    /// first piece gave; `None` when it has an error (a whole read reports it).
    pub(crate) fn finish_pieces(
        carried: Carried,
        computations: Vec<Computation>,
        preamble: LoweredPreamble,
    ) -> Option<Module> {
        if carried.open.is_some() {
            return None;
        }
        let whole = ModuleLowering::carrying(carried, None, 0, computations);
        whole.finish_with(preamble).ok()
    }
}
