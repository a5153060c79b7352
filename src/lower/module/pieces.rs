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
        }
    }

    /// What the next piece needs; `None` when this piece left a computation open or
    /// anything unresolved.
    pub(crate) fn suspend(self) -> Option<Carried> {
        let closed = &self.closed;
        let finished = self.open.is_none()
            && closed.computations.is_empty()
            && closed.errors.is_empty()
            && closed.calls.is_empty()
            && closed.in_place.is_empty();
        finished.then(|| Carried {
            computation_ids: self.computation_ids,
            entry: self.entry,
            memo: self.memo.for_source(None),
            async_chains: self.closed.async_chains,
        })
    }
}

impl ModuleLowering<'_> {
    /// Takes away the computations this piece closed, their calls resolved (each must name a
    /// computation above its caller, in this piece or one before); `None` when the piece
    /// left a computation open, has an error, or wrote a computation in place.
    pub(crate) fn take_piece(&mut self) -> Option<Vec<Computation>> {
        let closed = &mut self.closed;
        if self.open.is_some() || !closed.errors.is_empty() || !closed.in_place.is_empty() {
            return None;
        }
        let mut computations = std::mem::take(&mut closed.computations);
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
        }
    }
}

impl Carried {
    /// Whether a computation carried has an async chain to check at the end.
    pub(crate) fn async_chains(&self) -> bool {
        self.async_chains
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
        let whole = ModuleLowering::carrying(carried, None, 0, computations);
        whole.finish_with(preamble).ok()
    }
}
