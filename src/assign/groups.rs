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
    /// Each instruction's position in `order`, by [`InstrId::index`]; `u32::MAX` for none.
    /// A vector, not a map keyed by id: a computation of 250,000 instructions took 13 MB
    /// for the map, 1 MB for this.
    position: Vec<u32>,
    pub(super) order: Arc<[InstrId]>,
    /// Union-find parents, by position; `usize::MAX` for an instruction that is not free.
    pub(super) parent: Vec<usize>,
    /// The members of each group of two or more, by the position of its representative; a
    /// free instruction in no such group is a group of its own. Most are, and a vector and
    /// an entry each took 12 MB in a computation of 250,000 instructions.
    members: FxHashMap<usize, Vec<usize>>,
    /// The minor_to_major chosen for each group decided, by the position of its
    /// representative, as an index into `layouts`; `u32::MAX` for a group not decided.
    decided: Vec<u32>,
    /// The minor_to_majors chosen, each once: a computation has few.
    layouts: Vec<Vec<i64>>,
    layout_index: FxHashMap<Vec<i64>, u32>,
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

/// Where `id` is in `order`, by `position` (see [`Groups::position`]): the id must be the
/// one at that place, as an instruction added later can take a removed one's index.
fn position_in(position: &[u32], order: &[InstrId], id: InstrId) -> Option<usize> {
    let p = *position.get(id.index())? as usize;
    (order.get(p) == Some(&id)).then_some(p)
}

pub(super) fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

impl Groups {
    /// The groups of `computation` as it is when assignment enters it, `order` its
    /// instructions in print order.
    pub(super) fn new(
        computation: &Computation,
        order: Arc<[InstrId]>,
        free_parameters: bool,
        wanted_root: Option<Arc<Shape>>,
    ) -> Groups {
        let mut position = vec![u32::MAX; computation.index_bound()];
        for (p, id) in order.iter().enumerate() {
            // A computation has fewer than u32::MAX instructions: ids' indices are u32s.
            position[id.index()] = p as u32;
        }
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
                let Some(q) = position_in(&position, &order, operand) else {
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
        let mut sizes = vec![0u32; order.len()];
        for p in 0..order.len() {
            if parent[p] != NOT_FREE {
                let root = find(&mut parent, p);
                sizes[root] = sizes[root].saturating_add(1);
            }
        }
        let mut members: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
        for p in 0..order.len() {
            if parent[p] != NOT_FREE {
                let root = find(&mut parent, p);
                if sizes[root] > 1 {
                    members.entry(root).or_default().push(p);
                }
            }
        }
        Groups {
            position,
            decided: vec![u32::MAX; order.len()],
            order,
            parent,
            members,
            layouts: Vec::new(),
            layout_index: FxHashMap::default(),
            wanted_root,
        }
    }

    /// Where `id` is in `order`, if it was in the computation when the groups were made.
    pub(super) fn position(&self, id: InstrId) -> Option<usize> {
        position_in(&self.position, &self.order, id)
    }

    /// The positions of the members of `group` (a representative's position), in order.
    pub(super) fn members(&self, group: usize) -> Vec<usize> {
        self.members
            .get(&group)
            .cloned()
            .unwrap_or_else(|| vec![group])
    }

    /// The minor_to_major decided for `group`, if it is.
    pub(super) fn decided(&self, group: usize) -> Option<&Vec<i64>> {
        let index = *self.decided.get(group)?;
        self.layouts.get(index as usize)
    }

    /// Records `minor_to_major` as decided for `group`.
    pub(super) fn decide(&mut self, group: usize, minor_to_major: Vec<i64>) {
        let Some(slot) = self.decided.get_mut(group) else {
            return;
        };
        let layouts = &mut self.layouts;
        *slot = *self
            .layout_index
            .entry(minor_to_major)
            .or_insert_with_key(|minor_to_major| {
                layouts.push(minor_to_major.clone());
                // Fewer layouts than instructions, whose count fits in u32.
                (layouts.len() - 1) as u32
            });
    }

    pub(super) fn group_of(&mut self, id: InstrId) -> Option<usize> {
        let p = self.position(id)?;
        (self.parent[p] != NOT_FREE).then(|| find(&mut self.parent, p))
    }
}
