//! Editing a computation: adding instructions, rewiring operands and control
//! dependencies, replacing and removing instructions, and putting the print order back in
//! def-before-use order.
//!
//! Invariant: an edit checks every id it is given before it changes anything, and keeps the
//! name index, the module's names, the print order and the operand slots `0..n` in step;
//! names the API makes up are new in the whole module.

use petgraph::stable_graph::EdgeIndex;
use petgraph::visit::{EdgeIndexable, EdgeRef, NodeIndexable};
use petgraph::Direction;

use super::attribute::set_attribute;
use super::computation::Computation;
use super::edit_error::EditError;
use super::id::{InstrId, Node};
use super::instruction::{Instruction, PrintStyle};
use super::names::name_hash;
use crate::ir::opcode::Opcode;

impl Computation {
    /// Adds edges from `operands`, in slot order, to `user`.
    #[track_caller]
    fn add_operands(&mut self, user: Node, operands: &[InstrId]) {
        for (slot, &operand) in operands.iter().enumerate() {
            let operand = self.node(operand);
            self.graph.add_edge(operand, user, slot as u32);
        }
    }

    /// The style of an instruction placed at `place` with `operands`: `style` when a builder
    /// or a hand set it, else as its neighbours print: with or without `%` as its first
    /// operand (or, with none, `place`), with operand shapes or not as `place`.
    fn neighbours_style(&self, place: Node, style: PrintStyle, operands: &[InstrId]) -> PrintStyle {
        if style != PrintStyle::default() {
            return style;
        }
        // A default `%` among plain lines would print a module in two styles.
        let neighbour = operands.first().map_or(place, |o| o.node());
        let percent = self.graph[neighbour].style;
        PrintStyle {
            percent: percent.percent,
            operand_percent: percent.operand_percent,
            operand_shapes: self.graph[place].style.operand_shapes,
        }
    }

    /// Grows the graph and the print order by an eighth, not twofold, when an edit is about
    /// to add an instruction with `operands` operands and they are full. Lowering sizes each
    /// computation to its instructions, so a pass that adds a few (a copy here and there)
    /// would otherwise double every computation it touches; growing by an eighth still
    /// grows geometrically, so adding stays amortized O(1). A slot a removal left is
    /// taken first and needs no room.
    fn room_for_one_more(&mut self, operands: usize) {
        let more = |room: usize| (room / 8).max(4);
        let (node_room, edge_room) = self.graph.capacity();
        let node_bound = self.graph.node_bound();
        if self.graph.node_count() == node_bound && node_bound == node_room {
            self.graph.reserve_exact_nodes(more(node_room));
            let links = &mut self.order.links;
            if links.len() >= links.capacity() {
                links.reserve_exact(more(links.capacity()));
            }
        }
        let edge_bound = EdgeIndexable::edge_bound(&self.graph);
        let vacant_edges = edge_bound.saturating_sub(self.graph.edge_count());
        let wanted = edge_bound.saturating_add(operands.saturating_sub(vacant_edges));
        if wanted > edge_room {
            let additional = more(edge_room).max(wanted - edge_bound);
            self.graph.reserve_exact_edges(additional);
        }
    }

    /// Checks that every id of `ids` names an instruction of this computation.
    fn check_all(&self, ids: &[InstrId]) -> Result<(), EditError> {
        ids.iter().try_for_each(|&id| self.checked(id).map(drop))
    }

    /// Appends an instruction with its operands at the end of the print order, with the
    /// name and style it has, as a builder of a new computation adds them (see
    /// [`Computation::insert_before`] for one a pass adds to a computation that exists).
    /// A name already taken here is kept, and the verifier reports it. An operand that is
    /// another computation's or was removed is an error, and nothing is added.
    pub fn push(
        &mut self,
        instruction: Instruction,
        operands: &[InstrId],
    ) -> Result<InstrId, EditError> {
        self.check_all(operands)?;
        Ok(self.append(instruction, operands))
    }

    /// [`Computation::push`] for ids known to be valid, as lowering's are.
    #[track_caller]
    pub(crate) fn append(&mut self, instruction: Instruction, operands: &[InstrId]) -> InstrId {
        let node = self.graph.add_node(instruction);
        self.index_name(node, false);
        self.add_operands(node, operands);
        self.order.push_back(node);
        self.id(node)
    }

    /// [`Computation::push`] for an instruction whose name must be new: the instruction
    /// already holding that name when there is one (and nothing is added), hashing the name
    /// once for the lookup and the index both.
    #[track_caller]
    pub(crate) fn push_if_new(
        &mut self,
        instruction: Instruction,
        operands: &[InstrId],
    ) -> Result<InstrId, InstrId> {
        self.index_names();
        let hash = name_hash(&instruction.name);
        let graph = &self.graph;
        let vacant = match self.names.entry(
            hash,
            |&other| graph[other].name == instruction.name,
            |&other| name_hash(&graph[other].name),
        ) {
            hashbrown::hash_table::Entry::Occupied(first) => {
                let node = *first.get();
                return Err(self.id(node));
            }
            hashbrown::hash_table::Entry::Vacant(vacant) => vacant,
        };
        let node = self.graph.add_node(instruction);
        vacant.insert(node);
        self.module_names.with(|names| names.add(hash));
        self.add_operands(node, operands);
        self.order.push_back(node);
        Ok(self.id(node))
    }

    /// Adds an instruction placed just before `before` in print order (XLA's
    /// `AddInstruction`). Its name is made unique in the module (see
    /// [`Computation::unique_name`]). One with the style [`Instruction::new`] gives (the
    /// default) prints as its neighbours do: with or without `%` as its first operand (or,
    /// with none, `before`), with operand shapes or not as `before`; a style set by a
    /// builder or by hand is kept. When `before` or an operand is another computation's or
    /// was removed, nothing is added and the error names the computation.
    pub fn insert_before(
        &mut self,
        before: InstrId,
        instruction: Instruction,
        operands: &[InstrId],
    ) -> Result<InstrId, EditError> {
        self.checked(before)?;
        self.check_all(operands)?;
        Ok(self.add_before(before, instruction, operands))
    }

    /// [`Computation::insert_before`] for ids known to be valid, as a pass's own are.
    #[track_caller]
    pub(crate) fn add_before(
        &mut self,
        before: InstrId,
        mut instruction: Instruction,
        operands: &[InstrId],
    ) -> InstrId {
        let before = self.node(before);
        instruction.name = self.unique_name(&instruction.name).into();
        instruction.style = self.neighbours_style(before, instruction.style, operands);
        self.room_for_one_more(operands.len());
        let node = self.graph.add_node(instruction);
        self.index_name(node, true);
        self.add_operands(node, operands);
        self.order.insert_before(before, node);
        self.id(node)
    }

    /// Puts `instruction` in `id`'s place, using `operands`, and gives back the instruction
    /// that was there. It keeps `id`, its place in the print order and its users (the root
    /// stays the root); its name is made unique in the module and its style follows its
    /// neighbours', as [`Computation::insert_before`] does. Nothing is added to the graph:
    /// a pass that turns one instruction into another (a copy into a bitcast) does so
    /// without growing a computation that lowering sized to its instructions, which adding
    /// the new one before removing the old would double.
    ///
    /// Control dependencies are not carried over, and, as with [`Computation::remove`], an
    /// instruction whose `control-predecessors` name `id` is not looked for: replace in place
    /// an instruction that takes part in none, or use [`Computation::replace_with_new`],
    /// which moves them. An operand that is `id` itself, another computation's or removed is
    /// an error, and nothing changes.
    pub fn replace_in_place(
        &mut self,
        id: InstrId,
        mut instruction: Instruction,
        operands: &[InstrId],
    ) -> Result<Instruction, EditError> {
        let node = self.checked(id)?;
        self.check_all(operands)?;
        if operands.contains(&id) {
            return Err(EditError::UsesItself {
                name: self.graph[node].name.to_string(),
                computation: self.name.to_string(),
            });
        }
        instruction.name = self.unique_name(&instruction.name).into();
        instruction.style = self.neighbours_style(node, instruction.style, operands);
        let operand_edges: Vec<EdgeIndex<u32>> = self
            .graph
            .edges_directed(node, Direction::Incoming)
            .map(|e| e.id())
            .collect();
        for edge in operand_edges {
            self.graph.remove_edge(edge);
        }
        self.unindex_name(node);
        let old = std::mem::replace(&mut self.graph[node], instruction);
        self.index_name(node, true);
        self.add_operands(node, operands);
        Ok(old)
    }

    /// Adds `operand` at `slot` of `user`, for builders that wire operands after creating
    /// instructions. Keeping slots dense is the caller's duty; the verifier checks it.
    pub fn add_operand_edge(
        &mut self,
        operand: InstrId,
        user: InstrId,
        slot: u32,
    ) -> Result<(), EditError> {
        let (operand, user) = (self.checked(operand)?, self.checked(user)?);
        self.graph.add_edge(operand, user, slot);
        Ok(())
    }

    /// [`Computation::add_operand_edge`] for ids known to be valid, as lowering's are.
    #[track_caller]
    pub(crate) fn link_operand(&mut self, operand: InstrId, user: InstrId, slot: u32) {
        let (operand, user) = (self.node(operand), self.node(user));
        self.graph.add_edge(operand, user, slot);
    }

    fn operand_edge(&self, user: Node, slot: u32) -> Option<EdgeIndex<u32>> {
        self.graph
            .edges_directed(user, Direction::Incoming)
            .find(|e| *e.weight() == slot)
            .map(|e| e.id())
    }

    /// Makes operand `slot` of `user` be `new`.
    pub fn replace_operand(
        &mut self,
        user: InstrId,
        slot: u32,
        new: InstrId,
    ) -> Result<(), EditError> {
        let (user, new) = (self.checked(user)?, self.checked(new)?);
        let edge = self
            .operand_edge(user, slot)
            .ok_or_else(|| EditError::NoSuchSlot {
                name: self.graph[user].name.to_string(),
                computation: self.name.to_string(),
                slot,
            })?;
        self.graph.remove_edge(edge);
        self.graph.add_edge(new, user, slot);
        Ok(())
    }

    /// Points every use of `old` at `new`, slot by slot; the root moves too.
    pub fn replace_all_uses(&mut self, old: InstrId, new: InstrId) -> Result<(), EditError> {
        let (old_node, new_node) = (self.checked(old)?, self.checked(new)?);
        for (user, slot) in self.users(old) {
            if user != new {
                self.replace_operand(user, slot, new)?;
            }
        }
        if self.root == Some(old_node) {
            self.root = Some(new_node);
        }
        Ok(())
    }

    /// Makes `id` run after exactly `predecessors`, in that order (none removes the
    /// attribute). Names are written as the instruction writes its own name.
    pub fn set_control_predecessors(
        &mut self,
        id: InstrId,
        predecessors: &[InstrId],
    ) -> Result<(), EditError> {
        let node = self.checked(id)?;
        let percent = if self.graph[node].style.percent {
            "%"
        } else {
            ""
        };
        let mut names = Vec::with_capacity(predecessors.len());
        for &predecessor in predecessors {
            let instruction = self.get(predecessor)?;
            names.push(format!("{percent}{}", instruction.name));
        }
        let attributes = &mut self.graph[node].attributes;
        if names.is_empty() {
            attributes.retain(|a| &*a.name != "control-predecessors");
        } else {
            set_attribute(
                attributes,
                "control-predecessors",
                &format!("{{{}}}", names.join(", ")),
            );
        }
        Ok(())
    }

    /// Makes `after` run after `before` (XLA's `AddControlDependencyTo`); nothing changes if
    /// it already does.
    pub fn add_control_dependency(
        &mut self,
        before: InstrId,
        after: InstrId,
    ) -> Result<(), EditError> {
        self.checked(before)?;
        let mut predecessors = self.control_predecessors(after);
        if !predecessors.contains(&before) {
            predecessors.push(before);
        }
        self.set_control_predecessors(after, &predecessors)
    }

    /// Drops the control dependency of `after` on `before`, if any.
    pub fn remove_control_dependency(
        &mut self,
        before: InstrId,
        after: InstrId,
    ) -> Result<(), EditError> {
        self.checked(before)?;
        let mut predecessors = self.control_predecessors(after);
        predecessors.retain(|&p| p != before);
        self.set_control_predecessors(after, &predecessors)
    }

    /// XLA's `ReplaceInstruction`: every use of `old` becomes a use of `new` (the root too),
    /// `new` takes over `old`'s control dependencies both ways and, where it has none of its
    /// own, its `metadata`, `sharding` and `frontend_attributes` (as `SetupDerivedInstruction`
    /// does), and `old` is removed with the operands that only it used. `new` must not use
    /// `old`, or it could not be removed. Control dependencies are attribute text, so finding
    /// `old`'s successors walks the computation once.
    pub fn replace_instruction(&mut self, old: InstrId, new: InstrId) -> Result<(), EditError> {
        let (old_node, new_node) = (self.checked(old)?, self.checked(new)?);
        if old == new {
            return Ok(());
        }
        for name in ["metadata", "sharding", "frontend_attributes"] {
            let inherited = self.graph[old_node].attribute(name).map(str::to_string);
            if let (Some(value), None) = (inherited, self.graph[new_node].attribute(name)) {
                self.graph[new_node].set_attribute(name, &value);
            }
        }
        let mut predecessors = self.control_predecessors(new);
        for predecessor in self.control_predecessors(old) {
            if predecessor != new && !predecessors.contains(&predecessor) {
                predecessors.push(predecessor);
            }
        }
        self.set_control_predecessors(new, &predecessors)?;
        for successor in self.control_successors(old) {
            self.remove_control_dependency(old, successor)?;
            if successor != new {
                self.add_control_dependency(new, successor)?;
            }
        }
        self.replace_all_uses(old, new)?;
        self.remove_with_unused_operands(old)
    }

    /// XLA's `ReplaceWithNewInstruction`: adds `instruction` with `operands` just before
    /// `old` and replaces `old` with it ([`Computation::replace_instruction`]). It prints as
    /// `old` did (with or without `%`, operand shapes or not), and its name is made unique
    /// in the module.
    pub fn replace_with_new(
        &mut self,
        old: InstrId,
        mut instruction: Instruction,
        operands: &[InstrId],
    ) -> Result<InstrId, EditError> {
        let old_node = self.checked(old)?;
        self.check_all(operands)?;
        instruction.style = self.graph[old_node].style;
        let new = self.add_before(old, instruction, operands);
        self.replace_instruction(old, new)?;
        Ok(new)
    }

    /// Removes `id` and then every operand it leaves without users (not parameters, not
    /// the root, not one with control dependencies), as XLA's
    /// `RemoveInstructionAndUnusedOperands` does.
    pub fn remove_with_unused_operands(&mut self, id: InstrId) -> Result<(), EditError> {
        self.checked(id)?;
        // Every instruction some other names as a control predecessor, found in one walk.
        let mut named: rustc_hash::FxHashSet<InstrId> = Default::default();
        for &other in self.order() {
            named.extend(self.control_predecessors(other));
        }
        let mut stack = vec![id];
        let mut first = true;
        while let Some(next) = stack.pop() {
            let Ok(node) = self.checked(next) else {
                continue;
            };
            let instruction = &self.graph[node];
            let removable = first
                || (!self.has_users(next)
                    && self.root != Some(node)
                    && instruction.opcode != Opcode::Parameter
                    && instruction.attribute("control-predecessors").is_none()
                    && !named.contains(&next));
            if !removable {
                continue;
            }
            let operands = self.operands(next);
            self.remove(next)?;
            first = false;
            stack.extend(operands);
        }
        Ok(())
    }

    /// Removes an instruction that has no users and is not the root.
    pub fn remove(&mut self, id: InstrId) -> Result<Instruction, EditError> {
        let node = self.checked(id)?;
        let name = || self.graph[node].name.to_string();
        if self.root == Some(node) {
            return Err(EditError::RemovingRoot {
                name: name(),
                computation: self.name.to_string(),
            });
        }
        if self.has_users(id) {
            return Err(EditError::HasUsers {
                name: name(),
                computation: self.name.to_string(),
            });
        }
        self.unindex_name(node);
        self.order.unlink(node);
        let index = node.index();
        if self.generations.len() <= index {
            self.generations.resize(index + 1, 0);
        }
        self.generations[index] = self.generations[index].wrapping_add(1);
        self.graph.remove_node(node).ok_or(EditError::Removed {
            id,
            computation: self.name.to_string(),
        })
    }

    /// Sorts the print order so that every operand comes before its users, keeping the
    /// existing order where it already does (used after passes insert instructions).
    pub fn restore_def_before_use(&mut self) {
        // Most computations are already in order; checking is one pass over the edges.
        if self.operands_come_first(true) {
            return;
        }
        let order = &self.order;
        let mut placed = vec![false; self.graph.node_bound()];
        // Set when a node's operands are being placed: meeting it again means a cycle, which
        // lowering reports; here it must only not loop forever.
        let mut entered = vec![false; self.graph.node_bound()];
        let mut out = Vec::with_capacity(order.len);
        for &id in order.slice(self.tag.0, &self.generations) {
            let mut stack = vec![(id, false)];
            while let Some((node, expanded)) = stack.pop() {
                if expanded {
                    if !std::mem::replace(&mut placed[node.index()], true) {
                        out.push(node.node());
                    }
                    continue;
                }
                if placed[node.index()] || std::mem::replace(&mut entered[node.index()], true) {
                    continue;
                }
                stack.push((node, true));
                let mut operands = self.operands(node);
                operands.sort_by_key(|&o| std::cmp::Reverse(order.label(o.node())));
                for operand in operands {
                    if !placed[operand.index()] {
                        stack.push((operand, false));
                    }
                }
            }
        }
        self.order.rebuild(&out);
    }
}
