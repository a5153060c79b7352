//! Lowering instruction lines ahead of their computation, on another thread than the one
//! that places them (`crate::lower::read_ahead` carries them over): each line is lowered as far as
//! it can be without its computation ([`Prelowered`]), and placing it in the graph is left
//! to the [`ModuleLowering`] whose computation is open when it arrives.
//!
//! Invariant: a line placed so gives the instruction, operand edges and errors that lowering
//! the line there would give. Only lines that lower without an error, whose operands all
//! name instructions and that write no computation in place are taken; any other is handed
//! over as it was read.

use super::callees::holds_body;
use super::computation::{CalleeLists, PendingOperand, PreparedOperand};
use super::computation::{Closed, ComputationLowering, OpenComputation};
use super::memo::Memo;
use super::{ModuleLowering, SpareVecs};
use crate::ir::module::{Computation, InstrId, Instruction};
use crate::syntax::ast::{self, Span};

/// An instruction line lowered as far as it can be without its computation: everything
/// but its place in the graph and the connection of its operands. The read-ahead thread
/// holds one for every line it reads ahead until this thread places them, so it keeps no
/// more than placing needs: the line's span is the instruction's.
pub(crate) struct Prelowered<'s> {
    root: bool,
    name: ast::Name<'s>,
    lowered: Instruction,
    callee_lists: CalleeLists<'s>,
    /// How many of the batch's operands ([`Prelowering::take_operands`]) are this line's:
    /// the next ones, as lines are placed in the order they were lowered.
    operand_count: u32,
}

/// Lowers instruction lines ahead of the computation they belong to, on another thread
/// than the [`ModuleLowering`] that places them ([`crate::lower::read_ahead`]). Only lines
/// that lower without an error, whose operands all name instructions and that write no
/// computation in place are taken: any other is handed over as it was read, so that the
/// lowering that places it reports what it reports, in its order.
pub(crate) struct Prelowering<'s> {
    pub(crate) spare: SpareVecs<'s>,
    memo: Memo<'s>,
    /// A computation to lower into, which nothing reads: lowering a line needs one.
    scratch: OpenComputation<'s>,
    closed: Closed<'s>,
    /// The operands of the lines lowered since they were last taken, in order. One vector
    /// a batch of lines, not one a line: the thread that places the lines frees them, and
    /// freeing what another thread allocated costs several times more.
    operands: Vec<PreparedOperand<'s>>,
}

/// Room for a batch's operands to start with: two for each of its lines.
const MIN_BATCH_OPERANDS: usize = 256;

impl<'s> Prelowering<'s> {
    pub(crate) fn new(source: &'s str) -> Prelowering<'s> {
        let head = ast::ComputationHead {
            entry: false,
            name: ast::Name {
                text: "",
                percent: false,
                span: Span::new(0, 0),
            },
            signature: None,
            start: 0,
        };
        Prelowering {
            spare: SpareVecs::default(),
            memo: Memo {
                source: Some(source),
                ..Memo::default()
            },
            scratch: OpenComputation::new(head, Computation::new("")),
            closed: Closed::default(),
            operands: Vec::with_capacity(MIN_BATCH_OPERANDS),
        }
    }

    /// The operands of the lines lowered since the last call, in order, for the batch
    /// that carries those lines.
    pub(crate) fn take_operands(&mut self) -> Vec<PreparedOperand<'s>> {
        // The room the last batch grew to: batches are alike, and growing copies.
        let capacity = self.operands.capacity().max(MIN_BATCH_OPERANDS);
        std::mem::replace(&mut self.operands, Vec::with_capacity(capacity))
    }

    /// The line lowered as far as it can be, or `None` when it is not taken.
    pub(crate) fn prepare(&mut self, instruction: &ast::Instruction<'s>) -> Option<Prelowered<'s>> {
        let writes_in_place = instruction
            .attributes
            .iter()
            .any(|attribute| holds_body(&attribute.value));
        if writes_in_place {
            return None;
        }
        let mut lowering = ComputationLowering {
            open: &mut self.scratch,
            memo: &mut self.memo,
            closed: &mut self.closed,
        };
        let prepared = lowering.prepare(instruction);
        let Some((lowered, callee_lists, operands)) = prepared else {
            self.closed.errors.clear();
            self.scratch.dropped.clear();
            return None;
        };
        let first = self.operands.len();
        let mut all_names = true;
        for (slot, operand) in (0u32..).zip(operands) {
            match PreparedOperand::new(lowering.memo, slot, operand) {
                Some(prepared) => self.operands.push(prepared),
                None => {
                    all_names = false;
                    break;
                }
            }
        }
        let operand_count = u32::try_from(self.operands.len() - first).ok();
        match operand_count {
            Some(operand_count) if all_names && self.closed.errors.is_empty() => {
                let prelowered = Prelowered {
                    root: instruction.root,
                    name: instruction.name,
                    lowered,
                    callee_lists,
                    operand_count,
                };
                Some(prelowered)
            }
            _ => {
                self.operands.truncate(first);
                self.closed.errors.clear();
                None
            }
        }
    }
}

impl<'s> ModuleLowering<'s> {
    /// Places a line [`Prelowering`] lowered; its operands are the next ones `operands`
    /// gives (those of its batch, in order).
    pub(crate) fn prelowered(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
    ) {
        match self.open_computation() {
            Some(mut lowering) => lowering.prelowered_statement(prelowered, operands),
            // Keeps the next line's operands where they are.
            None => operands
                .by_ref()
                .take(prelowered.operand_count as usize)
                .for_each(drop),
        }
    }
}

impl<'s> ComputationLowering<'_, 's> {
    /// Places one line of the computation that [`Prelowering`] lowered.
    fn prelowered_statement(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
    ) {
        let (root, span) = (prelowered.root, prelowered.lowered.span);
        let mut pending = std::mem::take(&mut self.open.pending);
        let id = self.place(prelowered, operands, &mut pending);
        self.open.pending = pending;
        self.mark_root(root, id, span);
    }

    /// Places an instruction prepared on another thread ([`Prelowering`]), as
    /// [`Self::instruction`] would have from its line.
    fn place(
        &mut self,
        prelowered: Prelowered<'s>,
        operands: &mut std::vec::IntoIter<PreparedOperand<'s>>,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let Prelowered {
            name,
            lowered,
            callee_lists,
            operand_count,
            ..
        } = prelowered;
        let own = operands.by_ref().take(operand_count as usize);
        let span = lowered.span;
        let Some(id) = self.add(lowered, name, span) else {
            own.for_each(drop);
            return None;
        };
        self.register_callees(id, callee_lists);
        for operand in own {
            self.reference(id, operand, pending);
        }
        Some(id)
    }
}
