//! The groups of arrays that must share a minor_to_major (an op that cannot change layout and
//! its operands of equal rank, with union-find), and what has been decided for each; the
//! choice itself is `choose.rs`'s.

use crate::ir::module::{Computation, InstrId};
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The groups of one computation and what has been decided for them.
pub(super) struct Groups {
    pub(super) position: FxHashMap<InstrId, usize>,
    pub(super) order: Vec<InstrId>,
    /// Union-find parents, by position; `usize::MAX` for an instruction that is not free.
    pub(super) parent: Vec<usize>,
    /// The members of each group, by the position of its representative.
    pub(super) members: FxHashMap<usize, Vec<usize>>,
    /// The minor_to_major chosen for each group decided, by representative.
    pub(super) decided: FxHashMap<usize, Vec<i64>>,
    /// What the computation's root will be converted to, if anything (a given entry result,
    /// a while body's parameter).
    pub(super) wanted_root: Option<Arc<Shape>>,
}

pub(super) const NOT_FREE: usize = usize::MAX;

/// Whether the pass chooses the minor_to_major of `id`'s result: a static array of rank 2 or
/// more that is not a parameter (unless `free_parameters`) and whose layout is not taken from
/// elsewhere (tuples, calls, loops, custom calls, asynchronous ops).
pub(super) fn is_free(computation: &Computation, id: InstrId, free_parameters: bool) -> bool {
    let instruction = computation.instruction(id);
    let Some(array) = instruction.shape.as_array() else {
        return false;
    };
    if array.rank() < 2 || array.extents().is_none() {
        return false;
    }
    match instruction.opcode {
        Opcode::Parameter => free_parameters,
        Opcode::Tuple
        | Opcode::GetTupleElement
        | Opcode::Call
        | Opcode::Fusion
        | Opcode::While
        | Opcode::Conditional
        | Opcode::CustomCall
        | Opcode::Bitcast => false,
        ref op => !op.name().starts_with("async-"),
    }
}

pub(super) fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

impl Groups {
    /// The groups of `computation` as it is when assignment enters it.
    pub(super) fn new(
        computation: &Computation,
        free_parameters: bool,
        wanted_root: Option<Arc<Shape>>,
    ) -> Groups {
        let order = computation.order().to_vec();
        let position: FxHashMap<InstrId, usize> =
            order.iter().enumerate().map(|(p, &id)| (id, p)).collect();
        let mut parent: Vec<usize> = order
            .iter()
            .enumerate()
            .map(|(p, &id)| {
                if is_free(computation, id, free_parameters) {
                    p
                } else {
                    NOT_FREE
                }
            })
            .collect();
        for (p, &id) in order.iter().enumerate() {
            let instruction = computation.instruction(id);
            if parent[p] == NOT_FREE || !instruction.opcode.keeps_layout() {
                continue;
            }
            let rank = instruction.shape.as_array().map_or(0, ArrayShape::rank);
            for operand in computation.operands(id) {
                let Some(&q) = position.get(&operand) else {
                    continue;
                };
                let same_rank = computation
                    .instruction(operand)
                    .shape
                    .as_array()
                    .is_some_and(|a| a.rank() == rank);
                if parent[q] != NOT_FREE && same_rank {
                    let (a, b) = (find(&mut parent, p), find(&mut parent, q));
                    if a != b {
                        // The earlier instruction represents the group.
                        parent[a.max(b)] = a.min(b);
                    }
                }
            }
        }
        let mut members: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
        for p in 0..order.len() {
            if parent[p] != NOT_FREE {
                let root = find(&mut parent, p);
                members.entry(root).or_default().push(p);
            }
        }
        Groups {
            position,
            order,
            parent,
            members,
            decided: FxHashMap::default(),
            wanted_root,
        }
    }

    pub(super) fn group_of(&mut self, id: InstrId) -> Option<usize> {
        let &p = self.position.get(&id)?;
        (self.parent[p] != NOT_FREE).then(|| find(&mut self.parent, p))
    }
}
