//! Choosing minor_to_major: the arrays of a computation that the pass is free to lay out
//! are joined into groups that must share one layout (an op that cannot change layout and
//! its operands of equal rank, as XLA's `InstructionCanChangeLayout` says), and each group
//! takes the candidate ([`cost::candidates`]) that costs least in the model of
//! [`super::cost`]: the padded bytes of its arrays, plus what every conversion, relayouting
//! reshape or transpose, and copy for a consumer's preferred operand layout would move
//! between the group and the arrays whose layouts are already known.
//!
//! A group is decided when assignment reaches its first instruction, so every array above it
//! has its final layout, and the operands of its later instructions that are laid out later
//! count when their own group is decided (each relation is counted once, by the group
//! decided second). Each group is priced once per candidate over its own instructions and
//! their relations, so choosing is linear in the computation for a bounded rank.
//!
//! Given layouts are constraints of the highest priority, as in XLA: an entry parameter's
//! layout is fixed (unless entry layouts are `auto`), and a group joined to it pays for a
//! copy of it in every candidate but its own layout. A small parameter copied once is
//! cheaper than padding a chain of large arrays computed from it, and then the group moves.
//!
//! Candidates are tried in an order that settles ties as XLA would: the layouts of known
//! operands of the same rank first (XLA's `ChooseOutputLayoutFromOperandLayout`), then
//! layouts that make a transpose or reshape a bitcast, that a consumer prefers or that the
//! computation must return, then [`cost::candidates`]. A bitcast costs one byte, so that a
//! tie goes to fewer instructions. A loop's initial value also pays for what the body's
//! consumers prefer of that state element, since the state keeps its layout.

use std::sync::Arc;

use super::assigner::Assigner;
use super::cost::{self, OperandPreference};
use super::groups::*;
use crate::ir::module::{Computation, ComputationId, InstrId, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};

/// One side of a relation: a layout already known, or the layout a candidate gives a
/// member's array.
enum Side {
    Known(Arc<Shape>),
    Candidate(Arc<Shape>),
}

/// What a group's choice is charged for, besides its arrays' padding.
enum Charge {
    /// The padded bytes of a member's array.
    Own(Arc<Shape>),
    /// Data moved from one side to the other unless it is a bitcast (`Some` permutation for
    /// a transpose, `None` for a reshape or a conversion between equal dims). When it moves,
    /// `to` is a buffer of its own too: a copy the pass inserts, or a member reshape or
    /// transpose whose own bytes count only when it is no bitcast (`to_is_buffer`).
    Move {
        from: Side,
        to: Side,
        permutation: Option<Vec<i64>>,
        to_is_buffer: bool,
    },
    /// A copy to the layout a consumer prefers, unless the candidate holds it.
    Preference {
        member: Arc<Shape>,
        preference: OperandPreference,
    },
}

impl Assigner<'_> {
    /// The minor_to_major chosen for `id`, deciding its group if it is the group's first
    /// instruction reached; `None` when the pass does not choose it.
    pub(super) fn chosen(
        &mut self,
        groups: &mut Groups,
        module: &Module,
        comp: ComputationId,
        id: InstrId,
    ) -> Option<Vec<i64>> {
        let group = groups.group_of(id)?;
        if let Some(chosen) = groups.decided(group) {
            return Some(chosen.clone());
        }
        let chosen = self.decide(groups, module, comp, group, id)?;
        groups.decide(group, chosen.clone());
        Some(chosen)
    }

    /// The known layout of `id` while group decisions are made at `reached`: its own shape
    /// if assignment has passed it, the laid-out shape if its group is decided, else none.
    fn known_layout(
        &mut self,
        groups: &mut Groups,
        computation: &Computation,
        id: InstrId,
        reached: usize,
    ) -> Option<Arc<Shape>> {
        let shape = Arc::clone(&computation.instruction(id).shape);
        let Some(p) = groups.position(id) else {
            // Added by the pass (a conversion): laid out already.
            return Some(shape);
        };
        if p < reached {
            return Some(shape);
        }
        if groups.parent[p] == NOT_FREE {
            // Parameters are laid out on entry; other instructions below are not yet.
            let parameter = computation.instruction(id).opcode == Opcode::Parameter;
            return parameter.then_some(shape);
        }
        let group = groups.group_of(id)?;
        let chosen = groups.decided(group)?.clone();
        Some(self.laid(&shape, chosen))
    }

    /// What the consumers in a loop body prefer of element `index` of the state, when
    /// `tuple` is the initial value of `while` loops in `comp`: each body's uses of that
    /// element of its parameter (through `get-tuple-element`) that have a preferred operand
    /// layout. Worked out once per body and element.
    fn loop_preferences(
        &mut self,
        module: &Module,
        comp: ComputationId,
        tuple: InstrId,
        index: usize,
        rank: usize,
    ) -> Vec<OperandPreference> {
        let computation = module.computation(comp);
        let mut found = Vec::new();
        for (user, slot) in computation.users(tuple) {
            let instruction = computation.instruction(user);
            if instruction.opcode != Opcode::While || slot != 0 || instruction.called.len() != 2 {
                continue;
            }
            let called = instruction.called.clone();
            let (_, body) = self.while_parts(module, comp, user, &called);
            let key = (body, index);
            if let Some(known) = self.loop_preferences.get(&key) {
                found.extend(known.iter().cloned());
                continue;
            }
            let body_computation = module.computation(body);
            let mut preferences = Vec::new();
            let parameters = body_computation.parameters();
            if let Some(&(_, parameter)) = parameters.iter().find(|(number, _)| *number == 0) {
                for (element, _) in body_computation.users(parameter) {
                    let gte = body_computation.instruction(element);
                    let picks = gte.opcode == Opcode::GetTupleElement
                        && gte.int_attribute("index") == Some(index as i64);
                    if !picks {
                        continue;
                    }
                    for (consumer, slot) in body_computation.users(element) {
                        let consumer = body_computation.instruction(consumer);
                        preferences.extend(cost::operand_preference(consumer, slot as usize, rank));
                    }
                }
            }
            found.extend(preferences.iter().cloned());
            self.loop_preferences.insert(key, preferences);
        }
        found
    }

    /// `source` laid out with `minor_to_major` and the target's tiles, shared.
    fn laid(&mut self, source: &Arc<Shape>, minor_to_major: Vec<i64>) -> Arc<Shape> {
        let rank = minor_to_major.len();
        self.derive(
            source,
            super::assigner::Derivation::Leader {
                rank,
                minor_to_major,
            },
        )
    }

    fn bytes(&mut self, shape: &Arc<Shape>) -> i64 {
        let key = Arc::as_ptr(shape) as usize;
        if let Some((_, bytes)) = self.sizes.get(&key) {
            return *bytes;
        }
        let bytes = shape.as_array().and_then(cost::array_bytes).unwrap_or(0);
        self.sizes.insert(key, (Arc::clone(shape), bytes));
        bytes
    }

    /// What a relayout from `from` to `to` costs: nothing when they are equal, a byte for a
    /// bitcast (so that ties go to fewer instructions), else the bytes it reads and writes,
    /// and the written buffer's bytes too when `to_is_buffer`.
    fn moved(
        &mut self,
        from: &Arc<Shape>,
        to: &Arc<Shape>,
        permutation: Option<Vec<i64>>,
        to_is_buffer: bool,
    ) -> i64 {
        let same = permutation.is_none() && (Arc::ptr_eq(from, to) || from == to);
        if same {
            return 0;
        }
        if self.is_bitcast_between(from, to, permutation) {
            // A bitcast moves nothing, but on a tie no instruction at all is better.
            return 1;
        }
        let written = self.bytes(to);
        let buffer = if to_is_buffer { written } else { 0 };
        self.bytes(from)
            .saturating_add(written)
            .saturating_add(buffer)
    }

    /// Chooses the layout of `group`, reached at its first instruction `first`.
    fn decide(
        &mut self,
        groups: &mut Groups,
        module: &Module,
        comp: ComputationId,
        group: usize,
        first: InstrId,
    ) -> Option<Vec<i64>> {
        let computation = module.computation(comp);
        let members = groups.members(group);
        let reached = groups.position(first)?;
        let first_array = computation.instruction(first).shape.as_array()?.clone();
        // What users further down want goes first: it settles ties as XLA's propagation
        // from the result would.
        let mut candidates: Vec<Vec<i64>> = members
            .iter()
            .rev()
            .filter_map(|&p| self.hints.get(&(comp, groups.order[p])).cloned())
            .collect();
        let mut charges: Vec<Charge> = Vec::new();
        let root = computation.root();
        let mut converted: rustc_hash::FxHashSet<InstrId> = Default::default();
        for &p in &members {
            let id = groups.order[p];
            let instruction = computation.instruction(id);
            let shape = Arc::clone(&instruction.shape);
            let opcode = instruction.opcode.clone();
            let permutation = instruction.dimensions();
            // A reshape or transpose from a known operand is a buffer only when it moves data
            // (its relation below counts it); every other member is one.
            let relayout = matches!(opcode, Opcode::Reshape | Opcode::Transpose);
            let mut counted = false;
            // Operands whose layouts are known: conversions, reshapes and transposes.
            for operand in computation.operands(id) {
                if groups.group_of(operand) == Some(group) {
                    continue;
                }
                let Some(known) = self.known_layout(groups, computation, operand, reached) else {
                    continue;
                };
                let Some(known_array) = known.as_array() else {
                    continue;
                };
                let same_rank = known_array.rank() == first_array.rank();
                if same_rank && opcode != Opcode::Transpose {
                    // On a tie the operand's layout wins, as XLA's
                    // `ChooseOutputLayoutFromOperandLayout` gives a result of the operand's
                    // rank (a copy, a reshape that keeps the rank) the operand's layout.
                    candidates.push(known_array.layout_or_default().minor_to_major.clone());
                }
                let relation = match &opcode {
                    op if op.keeps_layout() && same_rank => Some(None),
                    Opcode::Transpose => permutation.clone().map(|permutation| {
                        let m2m: Option<Vec<i64>> = known_array
                            .layout_or_default()
                            .minor_to_major
                            .iter()
                            .map(|&d| permutation.iter().position(|&q| q == d).map(|i| i as i64))
                            .collect();
                        candidates.extend(m2m);
                        Some(permutation)
                    }),
                    Opcode::Reshape => {
                        let dims = shape.as_array().and_then(ArrayShape::extents);
                        candidates.extend(
                            dims.and_then(|dims| cost::aligned_minor_to_major(known_array, &dims)),
                        );
                        Some(None)
                    }
                    _ => None,
                };
                if let Some(permutation) = relation {
                    // One conversion of an operand serves all its users in the group.
                    if opcode.keeps_layout() && !converted.insert(operand) {
                        continue;
                    }
                    let to = if opcode.keeps_layout() {
                        // The operand is converted to the group's layout, in its own dims.
                        Side::Candidate(Arc::clone(&computation.instruction(operand).shape))
                    } else {
                        Side::Candidate(Arc::clone(&shape))
                    };
                    counted |= relayout;
                    charges.push(Charge::Move {
                        from: Side::Known(known),
                        to,
                        permutation,
                        to_is_buffer: true,
                    });
                }
            }
            if !counted {
                charges.push(Charge::Own(Arc::clone(&shape)));
            }
            // A convolution writes its result in a layout of its own, and consumers read
            // their operands in theirs; another layout costs a relayout.
            let mut preferences: Vec<OperandPreference> =
                cost::result_preference(instruction).into_iter().collect();
            // Users already decided, and consumers with a preferred operand layout.
            for (user, slot) in computation.users(id) {
                let user_instruction = computation.instruction(user);
                let rank = first_array.rank();
                // A loop's state takes its initial value's layout, so what the body's
                // consumers prefer of that state is a preference of the initial value.
                if user_instruction.opcode == Opcode::Tuple {
                    preferences.extend(self.loop_preferences(
                        module,
                        comp,
                        user,
                        slot as usize,
                        rank,
                    ));
                    continue;
                }
                if let Some(preference) =
                    cost::operand_preference(user_instruction, slot as usize, rank)
                {
                    preferences.push(preference);
                    continue;
                }
                let Some(user_group) = groups.group_of(user) else {
                    continue;
                };
                if user_group == group {
                    continue;
                }
                let Some(user_m2m) = groups.decided(user_group).cloned() else {
                    continue;
                };
                let user_shape = Arc::clone(&user_instruction.shape);
                let charge = match &user_instruction.opcode {
                    op if op.keeps_layout() => Some((self.laid(&shape, user_m2m), None)),
                    Opcode::Transpose => user_instruction
                        .dimensions()
                        .map(|permutation| (self.laid(&user_shape, user_m2m), Some(permutation))),
                    Opcode::Reshape => {
                        let known = self.laid(&user_shape, user_m2m);
                        let dims = shape.as_array().and_then(ArrayShape::extents);
                        if let (Some(dims), Some(user_array)) = (dims, known.as_array()) {
                            candidates.extend(cost::aligned_minor_to_major(user_array, &dims));
                        }
                        Some((known, None))
                    }
                    _ => None,
                };
                if let Some((known, permutation)) = charge {
                    // A conversion the pass inserts is a copy (a new buffer); a user reshape or
                    // transpose counted its own buffer when its group was decided.
                    let to_is_buffer = user_instruction.opcode.keeps_layout();
                    charges.push(Charge::Move {
                        from: Side::Candidate(Arc::clone(&shape)),
                        to: Side::Known(known),
                        permutation,
                        to_is_buffer,
                    });
                }
            }
            for preference in preferences {
                if let Some(array) = shape.as_array() {
                    candidates.push(preference.wanted_for(array, self.target));
                }
                charges.push(Charge::Preference {
                    member: Arc::clone(&shape),
                    preference,
                });
            }
            // The root, or an element of a root tuple, is converted to what the computation
            // must return.
            let wanted = match (&groups.wanted_root, root) {
                (Some(wanted), Some(root)) if root == id => Some(Arc::clone(wanted)),
                (Some(wanted), Some(root))
                    if computation.instruction(root).opcode == Opcode::Tuple =>
                {
                    let slots = computation.operands(root);
                    match (&**wanted, slots.iter().position(|&o| o == id)) {
                        (Shape::Tuple(elements), Some(slot)) => {
                            elements.get(slot).cloned().map(|e| self.shared(e))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(wanted) = wanted {
                if let Some(array) = wanted.as_array() {
                    candidates.push(array.layout_or_default().minor_to_major.clone());
                    charges.push(Charge::Move {
                        from: Side::Candidate(Arc::clone(&shape)),
                        to: Side::Known(wanted),
                        permutation: None,
                        to_is_buffer: true,
                    });
                }
            }
        }
        candidates.extend(cost::candidates(&first_array));
        let rank = first_array.rank();
        let mut best: Option<(i64, Vec<i64>)> = None;
        let mut tried: Vec<Vec<i64>> = Vec::new();
        for candidate in candidates {
            if candidate.len() != rank || tried.contains(&candidate) {
                continue;
            }
            tried.push(candidate.clone());
            let mut total = 0i64;
            for charge in &charges {
                let price = match charge {
                    Charge::Own(shape) => {
                        let laid = self.laid(shape, candidate.clone());
                        self.bytes(&laid)
                    }
                    Charge::Move {
                        from,
                        to,
                        permutation,
                        to_is_buffer,
                    } => {
                        let mut resolve = |side: &Side| match side {
                            Side::Known(shape) => Arc::clone(shape),
                            Side::Candidate(source) => self.laid(source, candidate.clone()),
                        };
                        let (from, to) = (resolve(from), resolve(to));
                        self.moved(&from, &to, permutation.clone(), *to_is_buffer)
                    }
                    Charge::Preference { member, preference } => {
                        let laid = self.laid(member, candidate.clone());
                        match laid.as_array() {
                            Some(array) if !preference.holds(array) => {
                                let wanted = preference.wanted_for(array, self.target);
                                let copied = self.laid(member, wanted);
                                // A preference unmet inserts nothing: on a tie with a copy
                                // the pass would insert, fewer instructions win.
                                self.moved(&laid, &copied, None, true).saturating_sub(1)
                            }
                            _ => 0,
                        }
                    }
                };
                total = total.saturating_add(price);
                if best.as_ref().is_some_and(|(b, _)| total >= *b) {
                    break;
                }
            }
            if best.as_ref().is_none_or(|(b, _)| total < *b) {
                best = Some((total, candidate));
            }
        }
        best.map(|(_, m2m)| m2m)
    }
}
