//! Modules, computations and instructions: the graph passes work on.
//!
//! Each computation is a petgraph `StableDiGraph` whose edges run from an operand to its user
//! and carry the operand slot. Operand order is the user's and always comes from the slot
//! weights, never from petgraph's adjacency order (which is reverse insertion order).
//! Invariant: the incoming edges of every instruction carry the slots `0..n` exactly once.
//!
//! Attributes are kept as their canonical text, printed by the front end when the module was
//! read, so an unchanged module prints exactly as `fmt` prints it; typed views (dimensions,
//! windows, dot dimension numbers...) are parsed from that text when a pass asks for them.
//!
//! This file holds the [`Module`]: its computations, indexed by [`ComputationId`], and the
//! names of every instruction, shared by its computations once one is handed out to edit.
//! The parts have a file each: ids, instructions, attribute text, a computation and how it
//! is read, how it is edited, the edits' errors, the print order, and the names.

mod attribute;
mod computation;
mod edit;
mod edit_error;
mod id;
mod instruction;
mod names;
mod order;

pub use arcstr::ArcStr;
pub use attribute::TextAttribute;
pub use computation::Computation;
pub use edit_error::EditError;
pub use id::{ComputationId, InstrId};
pub use instruction::{Instruction, OperandSpelling, Payload, PrintStyle};

use std::sync::Arc;

use attribute::{find_attribute, set_attribute};
use names::{name_hash, name_stem, ModuleNames, SharedNames};

/// A whole HLO module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module's name, from its `HloModule` line.
    pub name: String,
    /// False for headerless text (`ENTRY main { ... }` alone).
    pub has_header: bool,
    /// Header attributes in text order, as canonical text.
    pub attributes: Vec<TextAttribute>,
    /// The `FileNames`... `StackFrames` tables, printed verbatim (canonical text).
    pub tables: String,
    /// In print order; a [`ComputationId`] indexes this. Private: instructions' `called`
    /// lists and `entry` hold those indices, and the module's names follow the instructions
    /// of exactly these computations.
    computations: Vec<Computation>,
    /// Public, as lowering and passes read it everywhere: it must index
    /// [`Module::computations`] ([`Module::computation`] panics on another id), and the
    /// computation's `is_entry` goes with it.
    pub entry: ComputationId,
    /// The style passes give the instructions they create: that of the entry's root.
    pub style: PrintStyle,
    /// The names of every instruction, counted on the first call that hands out a
    /// computation to edit (parsing, printing and verifying never pay for it).
    names: SharedNames,
}

impl Module {
    /// A module of `computations` with entry `entry`, which must index them; no header
    /// attributes or tables, and the default style.
    pub fn new(
        name: impl Into<String>,
        computations: Vec<Computation>,
        entry: ComputationId,
    ) -> Module {
        Module {
            name: name.into(),
            has_header: true,
            attributes: Vec::new(),
            tables: String::new(),
            computations,
            entry,
            style: PrintStyle::default(),
            names: SharedNames::default(),
        }
    }

    /// The computation `id`, to read; it panics on an id that indexes no computation.
    pub fn computation(&self, id: ComputationId) -> &Computation {
        &self.computations[id.0 as usize]
    }

    /// The computation `id`, to edit: from here on the names it makes up are new in the
    /// whole module.
    pub fn computation_mut(&mut self, id: ComputationId) -> &mut Computation {
        self.link_names();
        &mut self.computations[id.0 as usize]
    }

    /// Every computation, in print order; [`Module::computation_ids`] gives their ids in
    /// the same order.
    pub fn computations(&self) -> &[Computation] {
        &self.computations
    }

    /// Every computation, to edit, in print order; as with [`Module::computation_mut`],
    /// names they make up are new in the whole module. An iterator rather than a slice, so
    /// that computations cannot be reordered under the ids that index them.
    pub fn computations_mut(&mut self) -> std::slice::IterMut<'_, Computation> {
        self.link_names();
        self.computations.iter_mut()
    }

    /// Adds `computation` at the end (XLA's `AddEmbeddedComputation`) and returns its id. As
    /// XLA does, a computation name or an instruction name the module already has is made
    /// unique (`name.1`); the `control-predecessors` that name a renamed instruction follow
    /// it. From here on, names the computation makes up are new in the whole module.
    pub fn add_computation(&mut self, mut computation: Computation) -> ComputationId {
        if self.find_computation(&computation.name).is_some() {
            let stem = computation.name.clone();
            let mut n = 1u64;
            while self.find_computation(&format!("{stem}.{n}")).is_some() {
                n += 1;
            }
            computation.name = format!("{stem}.{n}").into();
        }
        let shared = self.link_names();
        // Renamed while detached, so that its old names are never counted in the module's.
        computation.module_names = SharedNames::default();
        let taken = |name: &str| {
            let names = shared.lock().unwrap_or_else(|e| e.into_inner());
            names.holds(name_hash(name))
        };
        let clashes: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| taken(computation.instruction(id).name()))
            .collect();
        for id in clashes {
            let name = computation.instruction(id).name().to_string();
            let stem = name_stem(&name);
            let fresh = (1u64..)
                .map(|n| format!("{stem}.{n}"))
                .find(|candidate| !taken(candidate) && computation.find(candidate).is_none())
                .unwrap_or(name);
            // The name is new here and in the module, so the rename cannot be refused.
            let _ = computation.rename(id, &fresh);
        }
        {
            let mut names = shared.lock().unwrap_or_else(|e| e.into_inner());
            for instruction in computation.graph.node_weights() {
                names.add(name_hash(&instruction.name));
            }
        }
        computation.module_names = SharedNames(Some(shared));
        let id = ComputationId(self.computations.len() as u32);
        self.computations.push(computation);
        id
    }

    /// Removes every computation but the entry for which `keep` is false, and renumbers the
    /// ids the rest hold (`called`, `entry`). A call to a removed computation is dropped
    /// from `called`; its attribute text stays, for the verifier to report.
    pub fn retain_computations(
        &mut self,
        mut keep: impl FnMut(ComputationId, &Computation) -> bool,
    ) {
        let entry = self.entry;
        let kept: Vec<bool> = self
            .computation_ids()
            .zip(&self.computations)
            .map(|(id, computation)| id == entry || keep(id, computation))
            .collect();
        if kept.iter().all(|&k| k) {
            return;
        }
        let mut new_ids = Vec::with_capacity(kept.len());
        let mut next = 0u32;
        for &keep in &kept {
            new_ids.push(keep.then_some(ComputationId(next)));
            next += u32::from(keep);
        }
        let mut index = 0;
        self.computations.retain(|_| {
            index += 1;
            kept[index - 1]
        });
        let remap = |id: ComputationId| new_ids.get(id.0 as usize).copied().flatten();
        self.entry = remap(self.entry).unwrap_or(ComputationId(0));
        for computation in &mut self.computations {
            for instruction in computation.graph.node_weights_mut() {
                if !instruction.called.is_empty() {
                    instruction.called = instruction
                        .called
                        .iter()
                        .filter_map(|&c| remap(c))
                        .collect();
                }
            }
        }
        // The removed computations' names are counted still: count again when next needed.
        self.names = SharedNames::default();
        for computation in &mut self.computations {
            computation.module_names = SharedNames::default();
        }
    }

    /// Counts the names of every instruction and links each computation to the count, so
    /// that a name one makes up is new in all; once, until computations are removed.
    /// Counts every name into the table the computations share, once, and returns it.
    fn link_names(&mut self) -> Arc<std::sync::Mutex<ModuleNames>> {
        if let Some(shared) = &self.names.0 {
            return Arc::clone(shared);
        }
        let mut hashes = Vec::with_capacity(self.instruction_count());
        for computation in &self.computations {
            hashes.extend(
                computation
                    .graph
                    .node_weights()
                    .map(|instruction| name_hash(&instruction.name)),
            );
        }
        let names = ModuleNames::counting(hashes);
        let shared = Arc::new(std::sync::Mutex::new(names));
        for computation in &mut self.computations {
            computation.module_names = SharedNames(Some(shared.clone()));
        }
        self.names = SharedNames(Some(Arc::clone(&shared)));
        shared
    }

    /// The entry computation.
    pub fn entry(&self) -> &Computation {
        self.computation(self.entry)
    }

    /// The computation named `name` that `instruction` calls: looked up among the
    /// instruction's resolved callees first, which is O(callees) rather than a scan of every
    /// computation of the module.
    pub fn called_computation(
        &self,
        instruction: &Instruction,
        name: &str,
    ) -> Option<ComputationId> {
        let name = name.trim().trim_start_matches('%');
        instruction
            .called
            .iter()
            .copied()
            .find(|id| {
                self.computations
                    .get(id.0 as usize)
                    .is_some_and(|c| c.name == name)
            })
            .or_else(|| self.find_computation(name))
    }

    /// The first computation named `name` (without `%`).
    pub fn find_computation(&self, name: &str) -> Option<ComputationId> {
        self.computations
            .iter()
            .position(|c| c.name == name)
            .map(|i| ComputationId(i as u32))
    }

    /// Every computation by name, the first of a duplicated name as
    /// [`Module::find_computation`] finds it, for a caller that looks up many names. The
    /// module keeps no such index, as a computation's name is a public field.
    pub(crate) fn computations_by_name(&self) -> rustc_hash::FxHashMap<&str, ComputationId> {
        let mut names = rustc_hash::FxHashMap::with_capacity_and_hasher(
            self.computations.len(),
            Default::default(),
        );
        for (id, computation) in self.computation_ids().zip(&self.computations) {
            names.entry(computation.name.as_str()).or_insert(id);
        }
        names
    }

    /// Every computation's id, in print order.
    pub fn computation_ids(&self) -> impl Iterator<Item = ComputationId> {
        (0..self.computations.len() as u32).map(ComputationId)
    }

    /// The value text of header attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        find_attribute(&self.attributes, name)
    }

    /// Sets header attribute `name` to `value`, adding it at the end when absent.
    pub fn set_attribute(&mut self, name: &str, value: &str) {
        set_attribute(&mut self.attributes, name, value)
    }

    /// How many instructions the module has, over every computation.
    pub fn instruction_count(&self) -> usize {
        self.computations.iter().map(Computation::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::Opcode;
    use crate::ir::shape::Shape;
    use crate::ir::{ArrayShape, PrimitiveType};

    fn scalar() -> Shape {
        Shape::Array(ArrayShape::new(PrimitiveType::F32, &[]))
    }

    #[test]
    fn operands_come_from_slots_not_adjacency_order() {
        let mut c = Computation::new("c");
        let a = c
            .push(Instruction::new("a", Opcode::Parameter, scalar()), &[])
            .unwrap();
        let b = c
            .push(Instruction::new("b", Opcode::Parameter, scalar()), &[])
            .unwrap();
        let sub = c
            .push(Instruction::new("sub", Opcode::Subtract, scalar()), &[a, b])
            .unwrap();
        assert_eq!(c.operands(sub), vec![a, b]);
        c.replace_operand(sub, 0, b).unwrap();
        assert_eq!(c.operands(sub), vec![b, b]);
        assert_eq!(c.users(b), vec![(sub, 0), (sub, 1)]);
        assert!(c.replace_operand(sub, 2, a).is_err());
    }

    proptest::proptest! {
        /// Whatever slots the edges carry (dense, repeated, gapped or huge, added in any
        /// order), the operands are every source once, in slot order.
        #[test]
        fn operands_are_the_sources_in_slot_order(
            slots in proptest::collection::vec(
                proptest::prop_oneof![0u32..6, proptest::strategy::Just(u32::MAX)],
                0..8,
            ),
        ) {
            let mut c = Computation::new("c");
            let user = c.push(Instruction::new("u", Opcode::Tuple, scalar()), &[]).unwrap();
            let mut slot_of = std::collections::BTreeMap::new();
            for (index, &slot) in slots.iter().enumerate() {
                let name = format!("p{index}");
                let source = c.push(Instruction::new(name, Opcode::Parameter, scalar()), &[]).unwrap();
                c.add_operand_edge(source, user, slot).unwrap();
                slot_of.insert(source, slot);
            }
            // Edges elsewhere in the graph, so that a gap in the slots is not given away by a
            // slot past the number of edges.
            let other = c.push(Instruction::new("v", Opcode::Tuple, scalar()), &[]).unwrap();
            for slot in 0..8 {
                c.add_operand_edge(user, other, slot).unwrap();
            }
            let operands = c.operands(user);
            let mut sources: Vec<InstrId> = operands.clone();
            sources.sort_unstable();
            proptest::prop_assert_eq!(sources, slot_of.keys().copied().collect::<Vec<_>>());
            let in_order: Vec<u32> = operands.iter().map(|o| slot_of[o]).collect();
            proptest::prop_assert!(in_order.windows(2).all(|w| w[0] <= w[1]), "{:?}", in_order);
        }
    }

    #[test]
    fn removal_needs_no_users_and_names_stay_unique() {
        let mut c = Computation::new("c");
        let a = c
            .push(Instruction::new("a", Opcode::Parameter, scalar()), &[])
            .unwrap();
        let n = c
            .push(Instruction::new("n", Opcode::Negate, scalar()), &[a])
            .unwrap();
        c.set_root(n);
        assert!(matches!(c.remove(a), Err(EditError::HasUsers { .. })));
        assert!(matches!(c.remove(n), Err(EditError::RemovingRoot { .. })));
        let copy = c
            .insert_before(n, Instruction::new("a", Opcode::Copy, scalar()), &[a])
            .unwrap();
        assert_eq!(c.instruction(copy).name(), "a.1");
        c.replace_operand(n, 0, copy).unwrap();
        assert_eq!(c.order(), &[a, copy, n]);
        assert_eq!(c.post_order(), vec![a, copy, n]);
        assert_eq!(c.unique_name("a.1"), "a.2");
    }

    #[test]
    fn print_order_survives_many_edits_at_one_place() {
        let mut c = Computation::new("c");
        let a = c
            .push(Instruction::new("a", Opcode::Parameter, scalar()), &[])
            .unwrap();
        let root = c
            .push(Instruction::new("r", Opcode::Negate, scalar()), &[a])
            .unwrap();
        c.set_root(root);
        // Far more insertions before one instruction than the label gaps can halve.
        let mut expected = vec![a];
        for _ in 0..200 {
            let copy = c
                .insert_before(root, Instruction::new("c", Opcode::Copy, scalar()), &[a])
                .unwrap();
            expected.push(copy);
        }
        // And each before the previous one, which nests insertions.
        let mut front = root;
        let mut nested = Vec::new();
        for _ in 0..100 {
            front = c
                .insert_before(front, Instruction::new("n", Opcode::Copy, scalar()), &[a])
                .unwrap();
            nested.push(front);
        }
        nested.reverse();
        expected.extend(nested);
        expected.push(root);
        assert_eq!(c.order(), &expected[..]);
        assert!(expected.windows(2).all(|w| c.precedes(w[0], w[1])));
        let users: Vec<InstrId> = c.users(a).into_iter().map(|(u, _)| u).collect();
        assert_eq!(users, expected[1..].to_vec());
        for &id in expected[1..expected.len() - 1].iter().step_by(2) {
            c.remove(id).unwrap();
        }
        let kept: Vec<InstrId> = expected
            .iter()
            .enumerate()
            .filter(|&(i, _)| i == 0 || i == expected.len() - 1 || i % 2 == 0)
            .map(|(_, &id)| id)
            .collect();
        assert_eq!(c.order(), &kept[..]);
        assert_eq!(c.len(), kept.len());
        // A new instruction may reuse a removed one's id and goes where it is put.
        let last = c
            .insert_before(root, Instruction::new("z", Opcode::Copy, scalar()), &[a])
            .unwrap();
        assert_eq!(c.order()[c.len() - 2], last);
    }

    #[test]
    fn a_short_computation_is_read_for_names_once_built_and_indexed_again_to_be_edited() {
        let mut c = Computation::new("c");
        let a = c
            .push(Instruction::new("a", Opcode::Parameter, scalar()), &[])
            .unwrap();
        let b = c
            .push(Instruction::new("b", Opcode::Negate, scalar()), &[a])
            .unwrap();
        c.shrink_to_fit();
        assert!(c.names.is_empty());
        assert_eq!(
            (c.find("a"), c.find("b"), c.find("z")),
            (Some(a), Some(b), None)
        );
        c.rename(b, "d").unwrap();
        assert!(!c.names.is_empty());
        assert_eq!(
            (c.find("a"), c.find("b"), c.find("d")),
            (Some(a), None, Some(b))
        );
        c.shrink_to_fit();
        let e = c
            .push(Instruction::new("e", Opcode::Negate, scalar()), &[b])
            .unwrap();
        assert_eq!(
            (c.find("a"), c.find("d"), c.find("e")),
            (Some(a), Some(b), Some(e))
        );
        c.shrink_to_fit();
        assert!(c.names.is_empty());
        c.remove(e).unwrap();
        assert_eq!(
            (c.find("a"), c.find("d"), c.find("e")),
            (Some(a), Some(b), None)
        );
        // A new instruction's name is made unique against the instructions read, not indexed.
        c.shrink_to_fit();
        let f = c.insert_before(b, Instruction::new("a", Opcode::Negate, scalar()), &[a]);
        let f = f.unwrap();
        assert_ne!(c.instruction(f).name(), "a");
        assert_eq!(
            (c.find("a"), c.find(c.instruction(f).name())),
            (Some(a), Some(f))
        );

        // A longer computation keeps its table.
        let mut long = Computation::new("long");
        for i in 0..=computation::UNINDEXED_AT_MOST {
            let parameter = Instruction::new(format!("p{i}"), Opcode::Parameter, scalar());
            long.push(parameter, &[]).unwrap();
        }
        long.shrink_to_fit();
        assert!(!long.names.is_empty());
        assert!(long.find("p3").is_some());
    }

    #[test]
    fn a_graph_node_is_small() {
        // Graph nodes are most of a module's memory, one per instruction; moves of up to
        // 128 bytes are also inlined, and lowering moves each instruction into the graph.
        // (See `Payload::Literal`, `Opcode::Unknown` and `Instruction::operand_spellings`.)
        type Node = petgraph::graph::Node<Option<Instruction>, u32>;
        assert!(std::mem::size_of::<Node>() <= 112);
    }
}
