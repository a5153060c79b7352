//! One computation: a graph of instructions, their print order, the root and the name
//! index, and how it is read (lookups, operands and users, orders, parameters). Its edits
//! are in `edit`.
//!
//! Invariant: every lookup checks that the id is this computation's and names an
//! instruction still here; the print order and the graph hold the same instructions, and so
//! does the name index, unless it is empty for a short computation whose names all differ
//! (lookups then read the instructions, and an edit indexes them first).

use compact_str::CompactString;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};
use petgraph::Direction;
use thin_vec::ThinVec;

use super::attribute::TextAttribute;
use super::edit_error::EditError;
use super::id::{generation, InstrId, Node, Tag};
use super::instruction::{Instruction, Payload};
use super::names::{name_hash, name_stem, SharedNames};
use super::order::OrderList;
use crate::ir::opcode::Opcode;
use crate::span::Span;

/// One computation: a graph of instructions, their print order and the root.
///
/// `name` and the flags below are public: no index of the module follows them. A caller's
/// attribute text names its callees, though, so renaming a called computation means writing
/// its callers' attributes too; the verifier reports a callee name that names nothing.
#[derive(Clone, Debug)]
pub struct Computation {
    /// The computation's name, without `%`; inline up to 24 bytes, as most are.
    pub name: CompactString,
    /// Agrees with [`Module::entry`](super::Module::entry); lowering and printing read it.
    pub is_entry: bool,
    /// The text marked it `ENTRY` (a module without one takes its last computation).
    pub entry_written: bool,
    /// The text wrote its name with `%`.
    pub percent: bool,
    /// The text gave a signature `(p: f32[]) -> f32[]`; printing keeps it.
    pub has_signature: bool,
    /// Parameter names the signature gave, when they differ from the instructions'.
    pub signature_names: ThinVec<String>,
    /// The text marked the root with `ROOT` (without it, the last instruction is root).
    pub root_written: bool,
    /// After the closing brace, e.g. `execution_thread="side"`.
    pub attributes: ThinVec<TextAttribute>,
    /// The text wrote it in place, as the value of its caller's attribute
    /// (`calls=\n  { ... }`); it prints there, not at the top level.
    pub in_place: bool,
    /// Where the computation was in the source; empty for computations passes created.
    pub span: Span,
    /// What this computation's ids carry; a clone takes a new one.
    pub(super) tag: Tag,
    /// Per graph index, how many times its instruction was removed: what an id's
    /// `generation` must equal. Empty until the first removal, as most computations have
    /// none.
    pub(super) generations: ThinVec<u32>,
    pub(super) graph: StableDiGraph<Instruction, u32, u32>,
    /// The print order: a doubly linked list through `links`, so that inserting and
    /// removing are O(1) however large the computation.
    pub(super) order: OrderList,
    pub(super) root: Option<Node>,
    /// Name -> instruction, kept by every method that adds, removes or renames. The table
    /// holds only node indices and hashes the names the graph holds, so no name is stored
    /// twice. Empty for a short computation whose names are all different once it is built
    /// ([`Computation::shrink_to_fit`], [`UNINDEXED_AT_MOST`]): a lookup then reads its few
    /// instructions, and an edit indexes them again first.
    pub(super) names: hashbrown::HashTable<Node>,
    /// Next suffix to try per name stem, so that making names unique stays O(1); boxed once
    /// a name is made up here, as most computations never make one.
    pub(super) next_suffix: Option<Box<rustc_hash::FxHashMap<String, u64>>>,
    /// The module's names, once the module has handed this computation out for editing.
    pub(super) module_names: SharedNames,
}

/// A computation of at most this many instructions is read for a name rather than indexed
/// once built: most computations are this short, and the table of each took a small
/// allocation of its own (up to 96 bytes).
pub(super) const UNINDEXED_AT_MOST: usize = 16;

impl Computation {
    /// An empty computation named `name`, without a root, not the entry, printed with `%`
    /// and a signature as XLA prints.
    pub fn new(name: impl Into<CompactString>) -> Computation {
        Computation {
            name: name.into(),
            is_entry: false,
            entry_written: false,
            percent: true,
            has_signature: true,
            signature_names: ThinVec::new(),
            root_written: true,
            attributes: ThinVec::new(),
            in_place: false,
            span: Span::default(),
            tag: Tag::fresh(),
            generations: ThinVec::new(),
            graph: StableDiGraph::default(),
            order: OrderList::default(),
            root: None,
            names: hashbrown::HashTable::new(),
            next_suffix: None,
            module_names: SharedNames::default(),
        }
    }

    /// Makes room for `instructions` more instructions at once, for a builder that knows
    /// about how many it will add: the graph then grows once instead of doubling (and
    /// keeping up to half its room unused).
    pub fn reserve(&mut self, instructions: usize) {
        self.graph.reserve_exact_nodes(instructions);
        // Real modules have fewer than two operands per instruction on average; room for two
        // spares nearly every computation a doubling that copies every edge. Room
        // that is never written is only address space, which costs no memory.
        self.graph
            .reserve_exact_edges(instructions.saturating_mul(2));
        self.order.links.reserve_exact(instructions);
        self.index_names();
        let graph = &self.graph;
        self.names
            .reserve(instructions, |&id| name_hash(&graph[id].name));
    }

    /// Gives the graph, the print order and the name index exactly the room their
    /// instructions take, for a builder that has added every instruction it will. Vectors
    /// grow by doubling, and most computations are short, so up to half their room would
    /// stay unused; shrinking in place does not free it (the allocator keeps a block that
    /// shrinks by less than half), so each part moves to a block of its size. Ids stay valid:
    /// a graph with no removed node keeps every node and edge index, and the edges' order.
    pub fn shrink_to_fit(&mut self) {
        let graph = &self.graph;
        let no_vacancy = graph.node_count() == graph.node_bound()
            && graph.edge_count() == petgraph::visit::EdgeIndexable::edge_bound(graph);
        let roomy =
            graph.capacity().0 > graph.node_count() || graph.capacity().1 > graph.edge_count();
        if no_vacancy && roomy {
            let compact = petgraph::Graph::from(std::mem::take(&mut self.graph));
            self.graph = StableDiGraph::from(compact);
        }
        move_to_exact_room(&mut self.order.links);
        self.generations.shrink_to_fit();
        let graph = &self.graph;
        // With names all different, reading the instructions finds what the table would.
        let all_different = self.names.len() == graph.node_count();
        if all_different && graph.node_count() <= UNINDEXED_AT_MOST {
            self.names = hashbrown::HashTable::new();
        } else {
            self.names.shrink_to_fit(|&id| name_hash(&graph[id].name));
        }
    }

    /// Whether the name table is empty while the computation is not (see `names`).
    fn unindexed(&self) -> bool {
        self.names.is_empty() && self.graph.node_count() > 0
    }

    /// Indexes the names of a computation [`Computation::shrink_to_fit`] left unindexed,
    /// before an edit: its names are all different, so each is its own entry.
    pub(super) fn index_names(&mut self) {
        self.index_names_but(None);
    }

    /// [`Computation::index_names`] but for `skipped`, an instruction just added or renamed
    /// that its caller indexes itself.
    fn index_names_but(&mut self, skipped: Option<Node>) {
        if !self.unindexed() {
            return;
        }
        let graph = &self.graph;
        let mut names = hashbrown::HashTable::with_capacity(graph.node_count());
        for node in graph.node_indices().filter(|&node| Some(node) != skipped) {
            let hash = name_hash(&graph[node].name);
            names.insert_unique(hash, node, |&other| name_hash(&graph[other].name));
        }
        self.names = names;
    }

    /// Moves the spans of the computation and its instructions `by` bytes on, for text
    /// lowered apart from the text before it. Empty spans, which name no text, stay empty.
    pub(crate) fn move_spans(&mut self, by: usize) {
        self.span = moved_span(self.span, by);
        self.move_instruction_spans_from(0, by);
    }

    /// Moves the spans of the instructions at graph node `first` and after (in the order
    /// they were added), not the computation's own, `by` bytes on: for a computation lowered
    /// from text that came in parts, each part's instructions moved by that part's offset.
    pub(crate) fn move_instruction_spans_from(&mut self, first: usize, by: usize) {
        for index in first..self.graph.node_bound() {
            if let Some(instruction) = self.graph.node_weight_mut(Node::new(index)) {
                instruction.span = moved_span(instruction.span, by);
            }
        }
    }

    /// How many graph nodes the computation has used, removed ones included: the node an
    /// instruction added next takes, while none was removed.
    pub(crate) fn node_bound(&self) -> usize {
        self.graph.node_bound()
    }

    /// The id of graph node `node`.
    pub(super) fn id(&self, node: Node) -> InstrId {
        InstrId {
            index: node.index() as u32,
            tag: self.tag.0,
            generation: generation(&self.generations, node.index()),
        }
    }

    /// Whether `id` is this computation's and names an instruction that is still here.
    pub(super) fn is_live(&self, id: InstrId) -> bool {
        id.tag == self.tag.0
            && id.generation == generation(&self.generations, id.index())
            && self.graph.contains_node(id.node())
    }

    /// The id of graph node `node` of [`Computation::graph`], if it holds an instruction.
    pub fn id_of(&self, node: NodeIndex<u32>) -> Option<InstrId> {
        self.graph.contains_node(node).then(|| self.id(node))
    }

    /// The node `id` names, or why it names none here.
    pub(super) fn checked(&self, id: InstrId) -> Result<Node, EditError> {
        if id.tag != self.tag.0 {
            return Err(EditError::Foreign {
                id,
                computation: self.name.to_string(),
            });
        }
        let node = id.node();
        if !self.is_live(id) {
            return Err(EditError::Removed {
                id,
                computation: self.name.to_string(),
            });
        }
        Ok(node)
    }

    /// The node `id` names; panics, naming the computation, when it names none here.
    #[track_caller]
    pub(super) fn node(&self, id: InstrId) -> Node {
        match self.checked(id) {
            Ok(node) => node,
            Err(error) => invalid_id(error),
        }
    }

    /// The instruction `id` names. Panics when `id` is another computation's or was removed,
    /// with a message that says which and names this computation; [`Computation::get`] is
    /// the lookup for an id that may be either.
    #[track_caller]
    pub fn instruction(&self, id: InstrId) -> &Instruction {
        if self.is_live(id) {
            return &self.graph[id.node()];
        }
        self.invalid(id)
    }

    /// [`Computation::instruction`], to edit. The name is not editable here (it is
    /// private; see [`Computation::rename`]); replacing the whole instruction
    /// (`*c.instruction_mut(id) = other`) must keep its name, or the name index goes stale.
    #[track_caller]
    pub fn instruction_mut(&mut self, id: InstrId) -> &mut Instruction {
        if self.is_live(id) {
            return &mut self.graph[id.node()];
        }
        self.invalid(id)
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn invalid(&self, id: InstrId) -> ! {
        match self.checked(id) {
            Err(error) => invalid_id(error),
            Ok(_) => unreachable!("{id:?} is valid in `{}`", self.name),
        }
    }

    /// The instruction `id` names, or an error that names this computation and says whether
    /// the id is another computation's or its instruction was removed.
    pub fn get(&self, id: InstrId) -> Result<&Instruction, EditError> {
        self.checked(id).map(|node| &self.graph[node])
    }

    /// [`Computation::get`], to edit; see [`Computation::instruction_mut`].
    pub fn get_mut(&mut self, id: InstrId) -> Result<&mut Instruction, EditError> {
        self.checked(id).map(|node| &mut self.graph[node])
    }

    /// Whether `id` is one of this computation's and its instruction is still there.
    pub fn contains(&self, id: InstrId) -> bool {
        self.checked(id).is_ok()
    }

    /// How many instructions the computation has.
    pub fn len(&self) -> usize {
        self.order.len
    }

    /// Whether the computation has no instructions.
    pub fn is_empty(&self) -> bool {
        self.order.len == 0
    }

    /// One more than the largest index of an instruction here: the length of a side table
    /// indexed by [`InstrId::index`].
    pub fn index_bound(&self) -> usize {
        self.graph.node_bound()
    }

    /// Instructions in print order (the text's order, with additions placed before their
    /// first user). The slice is built once after a batch of edits, in one pass.
    pub fn order(&self) -> &[InstrId] {
        self.order.slice(self.tag.0, &self.generations)
    }

    /// The last instruction in print order, without building [`Computation::order`].
    pub fn last_in_order(&self) -> Option<InstrId> {
        (self.order.len > 0).then(|| self.id(Node::new(self.order.tail as usize)))
    }

    /// Whether `a` comes before `b` in print order, in O(1).
    #[track_caller]
    pub fn precedes(&self, a: InstrId, b: InstrId) -> bool {
        self.order.label(self.node(a)) < self.order.label(self.node(b))
    }

    /// The root instruction; `None` until [`Computation::set_root`] names one.
    pub fn root(&self) -> Option<InstrId> {
        self.root.map(|node| self.id(node))
    }

    /// Makes `id` the root; it prints with `ROOT`.
    #[track_caller]
    pub fn set_root(&mut self, id: InstrId) {
        self.root = Some(self.node(id));
        self.root_written = true;
    }

    /// The instruction named `name` (without `%`).
    pub fn find(&self, name: &str) -> Option<InstrId> {
        let graph = &self.graph;
        if self.unindexed() {
            return graph
                .node_indices()
                .find(|&node| graph[node].name == name)
                .map(|node| self.id(node));
        }
        self.names
            .find(name_hash(name), |&other| graph[other].name == name)
            .map(|&node| self.id(node))
    }

    /// Makes `find` answer `node` for its name; with `replace` false, an instruction already
    /// holding the name keeps it. The module's names count it either way.
    pub(super) fn index_name(&mut self, node: Node, replace: bool) {
        self.index_names_but(Some(node));
        let graph = &self.graph;
        let name = &graph[node].name;
        let hash = name_hash(name);
        self.module_names.with(|names| names.add(hash));
        match self
            .names
            .find_entry(hash, |&other| graph[other].name == *name)
        {
            Ok(mut entry) if replace => *entry.get_mut() = node,
            Ok(_) => {}
            Err(_) => {
                self.names
                    .insert_unique(hash, node, |&other| name_hash(&graph[other].name));
            }
        }
    }

    /// Forgets `node`'s name, if the index points at `node`, and counts it out of the
    /// module's names.
    pub(super) fn unindex_name(&mut self, node: Node) {
        self.index_names();
        let hash = name_hash(&self.graph[node].name);
        self.module_names.with(|names| names.remove(hash));
        if let Ok(entry) = self.names.find_entry(hash, |&other| other == node) {
            entry.remove();
        }
    }

    /// Whether an instruction here, or in another computation of the module, is named
    /// `name`.
    pub(super) fn name_taken(&self, name: &str) -> bool {
        self.find(name).is_some()
            || self
                .module_names
                .with(|names| names.holds(name_hash(name)))
                .unwrap_or(false)
    }

    /// Renames an instruction (XLA's `SetAndSanitizeName`), keeping the name index, the
    /// module's names and the `control-predecessors` that name it in step. A name another
    /// instruction of the module has is refused, as XLA keeps names unique across a module;
    /// renaming to its own name changes nothing.
    pub fn rename(&mut self, id: InstrId, name: &str) -> Result<(), EditError> {
        let node = self.checked(id)?;
        if self.graph[node].name == name {
            return Ok(());
        }
        if self.name_taken(name) {
            return Err(EditError::NameTaken {
                name: self.graph[node].name.to_string(),
                taken: name.to_string(),
                computation: self.name.to_string(),
            });
        }
        // Control dependencies are names in attribute text: read them before the name goes.
        let successors: Vec<(InstrId, Vec<InstrId>)> = self
            .control_successors(id)
            .into_iter()
            .map(|successor| (successor, self.control_predecessors(successor)))
            .collect();
        self.unindex_name(node);
        self.graph[node].name = name.into();
        self.index_name(node, true);
        for (successor, predecessors) in successors {
            self.set_control_predecessors(successor, &predecessors)?;
        }
        Ok(())
    }

    /// Operands in slot order.
    #[track_caller]
    pub fn operands(&self, id: InstrId) -> Vec<InstrId> {
        let node = self.node(id);
        // Slots are `0..n` once each (the invariant), so each operand goes straight to its
        // place in one walk of the edges; only a graph that breaks the invariant (being
        // built, or for the verifier to report) needs sorting. Edges are listed newest
        // first, so the first one seen usually sizes the list at once.
        let unset = InstrId {
            index: u32::MAX,
            tag: self.tag.0,
            generation: 0,
        };
        let edges = || self.graph.edges_directed(node, Direction::Incoming);
        let mut operands: Vec<InstrId> = Vec::new();
        let mut count = 0;
        let mut in_place = true;
        for edge in edges() {
            count += 1;
            let slot = *edge.weight() as usize;
            // A slot past the number of edges cannot be part of `0..n`.
            if slot >= self.graph.edge_count() {
                in_place = false;
                break;
            }
            if slot >= operands.len() {
                operands.resize(slot + 1, unset);
            }
            if operands[slot] != unset {
                in_place = false;
                break;
            }
            operands[slot] = self.id(edge.source());
        }
        // Distinct slots as many as the edges, all below their number: exactly `0..n`.
        if in_place && count == operands.len() {
            return operands;
        }
        let mut sorted: Vec<(u32, InstrId)> = edges()
            .map(|e| (*e.weight(), self.id(e.source())))
            .collect();
        sorted.sort_unstable_by_key(|(slot, _)| *slot);
        sorted.into_iter().map(|(_, source)| source).collect()
    }

    /// How many operands `id` has.
    #[track_caller]
    pub fn operand_count(&self, id: InstrId) -> usize {
        self.graph
            .edges_directed(self.node(id), Direction::Incoming)
            .count()
    }

    /// Every use of `id`: the user and the operand slot, ordered by the user's print
    /// position, then slot, so the answer is deterministic.
    #[track_caller]
    pub fn users(&self, id: InstrId) -> Vec<(InstrId, u32)> {
        let mut uses: Vec<(InstrId, u32)> = self
            .graph
            .edges_directed(self.node(id), Direction::Outgoing)
            .map(|e| (self.id(e.target()), *e.weight()))
            .collect();
        uses.sort_unstable_by_key(|&(user, slot)| (self.order.label(user.node()), slot));
        uses
    }

    /// Whether any instruction uses `id` as an operand.
    #[track_caller]
    pub fn has_users(&self, id: InstrId) -> bool {
        self.graph
            .edges_directed(self.node(id), Direction::Outgoing)
            .next()
            .is_some()
    }

    /// A name used by no instruction of this computation, nor, once the module has handed
    /// it out for editing, of any other computation of the module, derived from `base` as
    /// XLA's `NameUniquer` does (`base.1`, ...).
    pub fn unique_name(&mut self, base: &str) -> String {
        if !self.name_taken(base) {
            return base.to_string();
        }
        let stem = name_stem(base);
        let next = |suffixes: Option<&rustc_hash::FxHashMap<String, u64>>| {
            suffixes.and_then(|s| s.get(stem)).copied().unwrap_or(1)
        };
        let mut n = self
            .module_names
            .with(|names| next(Some(&names.next_suffix)))
            .unwrap_or_else(|| next(self.next_suffix.as_deref()));
        let name = loop {
            let candidate = format!("{stem}.{n}");
            n += 1;
            if !self.name_taken(&candidate) {
                break candidate;
            }
        };
        let stem = stem.to_string();
        if self
            .module_names
            .with(|names| names.next_suffix.insert(stem.clone(), n))
            .is_none()
        {
            self.next_suffix.get_or_insert_default().insert(stem, n);
        }
        name
    }

    /// Whether every operand precedes its user in the print order (one pass over the
    /// edges); an instruction using itself counts as in order only if `self_uses_allowed`.
    pub(super) fn operands_come_first(&self, self_uses_allowed: bool) -> bool {
        (&self.graph).edge_references().all(|e| {
            (self_uses_allowed && e.source() == e.target())
                || self.order.label(e.source()) < self.order.label(e.target())
        })
    }

    /// An instruction on a cycle, if the operand graph has one.
    pub fn find_cycle(&self) -> Option<InstrId> {
        // A print order in which every operand precedes its users is a topological order,
        // so there is no cycle; checking that is one pass over the edges, and is the case
        // of nearly every computation.
        if self.operands_come_first(false) {
            return None;
        }
        petgraph::algo::toposort(&self.graph, None)
            .err()
            .map(|cycle| self.id(cycle.node_id()))
    }

    /// The instructions `id` must run after (its `control-predecessors`), in written order;
    /// a name that names nothing here is left out (the verifier reports it), and so is an
    /// id that names nothing here.
    pub fn control_predecessors(&self, id: InstrId) -> Vec<InstrId> {
        self.get(id)
            .ok()
            .and_then(|i| i.attribute("control-predecessors"))
            .map(|text| {
                crate::ir::attrs::name_list(text)
                    .filter_map(|name| self.find(name))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The instructions that must run after `id` (that name it among their
    /// `control-predecessors`), in print order.
    pub fn control_successors(&self, id: InstrId) -> Vec<InstrId> {
        self.order()
            .iter()
            .copied()
            .filter(|&other| self.control_predecessors(other).contains(&id))
            .collect()
    }

    /// Instructions reachable from the root, operands before users (slot order), as XLA's
    /// post-order visits them; unreachable instructions are not included.
    pub fn post_order(&self) -> Vec<InstrId> {
        let Some(root) = self.root() else {
            return Vec::new();
        };
        let mut visited = vec![false; self.graph.node_bound()];
        let mut out = Vec::with_capacity(self.order.len);
        // An explicit stack: modules can be deep chains, recursion could overflow.
        let mut stack: Vec<(InstrId, bool)> = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                out.push(id);
                continue;
            }
            if std::mem::replace(&mut visited[id.index()], true) {
                continue;
            }
            stack.push((id, true));
            for operand in self.operands(id).into_iter().rev() {
                if !visited[operand.index()] {
                    stack.push((operand, false));
                }
            }
        }
        out
    }

    /// The parameter instructions, by parameter number.
    pub fn parameters(&self) -> Vec<(i64, InstrId)> {
        let mut parameters: Vec<(i64, InstrId)> = self
            .order()
            .iter()
            .filter_map(|&id| {
                let instruction = &self.graph[id.node()];
                match instruction.payload {
                    Payload::Parameter(n) if instruction.opcode == Opcode::Parameter => {
                        Some((n, id))
                    }
                    _ => None,
                }
            })
            .collect();
        parameters.sort_unstable();
        parameters
    }

    /// Direct graph access for analyses; mutation goes through the editing methods. Its node
    /// indices are bare: [`Computation::id_of`] and [`InstrId::node`] convert.
    pub fn graph(&self) -> &StableDiGraph<Instruction, u32, u32> {
        &self.graph
    }
}

/// The panic of a lookup that has no `Result` to return the error in.
fn invalid_id(error: EditError) -> ! {
    panic!("{error}")
}

/// Moves `items` to a block that holds exactly them, when it has room to spare.
fn move_to_exact_room<T>(items: &mut Vec<T>) {
    if items.capacity() > items.len() {
        let mut exact = Vec::with_capacity(items.len());
        exact.append(items);
        *items = exact;
    }
}

/// `span` moved `by` bytes on; an empty span, which names no text, stays empty.
fn moved_span(span: Span, by: usize) -> Span {
    if span == Span::default() {
        span
    } else {
        Span::new(span.start.saturating_add(by), span.end.saturating_add(by))
    }
}
