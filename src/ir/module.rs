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

use compact_str::CompactString;
use std::sync::Arc;

use thin_vec::ThinVec;

use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};
use petgraph::Direction;

use super::opcode::Opcode;
use super::shape::Shape;
use crate::span::Span;

/// An instruction of one computation: its graph index and the tag of the computation that
/// made it. Every lookup compares the tag, so an id used in another computation is an error
/// (or, from the methods that return no `Result`, a panic naming both) rather than whatever
/// instruction has that index there. A clone of a computation, or of a module, gets new tags:
/// it is edited apart from the original, so the original's ids are foreign to it, as an
/// `HloInstruction*` of a cloned XLA computation is; carry an instruction over by name
/// ([`Computation::find`]) or by position in [`Computation::order`]. A graph index freed
/// by a removal may be given to a later addition; the id also carries how many times its
/// index was freed, so the removed instruction's id stays an error rather than naming the
/// newcomer. Side tables indexed by [`InstrId::index`] must still be rebuilt after
/// removals.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct InstrId {
    index: u32,
    tag: u32,
    generation: u32,
}

impl InstrId {
    /// The graph index: dense within its computation, for side tables indexed by it.
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The petgraph node, for reading [`Computation::graph`] directly.
    pub fn node(self) -> NodeIndex<u32> {
        NodeIndex::new(self.index as usize)
    }
}

// The index alone: ids of one computation differ in it, hashing stays one word as for a bare
// index, and maps keyed by ids keep the iteration order they had before ids carried tags.
impl std::hash::Hash for InstrId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl std::fmt::Debug for InstrId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InstrId({}@{}", self.index, self.tag)?;
        if self.generation != 0 {
            write!(f, "/{}", self.generation)?;
        }
        f.write_str(")")
    }
}

/// `#7`: the index, which is what tells ids of one computation apart.
impl std::fmt::Display for InstrId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A computation's tag, which its [`InstrId`]s carry. Tags come from one counter for the
/// process, so two live computations share one only after 2^32 computations were made. A
/// clone takes a new tag (see [`InstrId`]).
#[derive(Debug)]
struct Tag(u32);

impl Tag {
    fn fresh() -> Tag {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        Tag(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Clone for Tag {
    fn clone(&self) -> Tag {
        Tag::fresh()
    }
}

/// The names of every instruction of a module, shared by its computations, so that a name
/// one of them makes up is new in all of them, as XLA's module-wide `NameUniquer` keeps it.
/// Only hashes are kept: a hash that two names share makes a made-up name skip one that was
/// free, which costs nothing, and keeps the table a word or two per instruction.
#[derive(Debug, Default)]
struct ModuleNames {
    /// How many instructions of the module have a name of this hash.
    hashes: rustc_hash::FxHashMap<u64, u32>,
    /// Next suffix to try per name stem, module-wide.
    next_suffix: rustc_hash::FxHashMap<String, u64>,
}

impl ModuleNames {
    fn add(&mut self, hash: u64) {
        *self.hashes.entry(hash).or_insert(0) += 1;
    }

    fn remove(&mut self, hash: u64) {
        if let std::collections::hash_map::Entry::Occupied(mut count) = self.hashes.entry(hash) {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }

    fn holds(&self, hash: u64) -> bool {
        self.hashes.contains_key(&hash)
    }
}

/// A computation's link to its module's [`ModuleNames`]; a clone is not in the module, so it
/// has none (a module that takes it links it anew).
#[derive(Default)]
struct SharedNames(Option<Arc<std::sync::Mutex<ModuleNames>>>);

// A table of every name's hash says nothing to a reader of a module's `Debug` text.
impl std::fmt::Debug for SharedNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.0.is_some() {
            "linked"
        } else {
            "unlinked"
        };
        write!(f, "SharedNames({state})")
    }
}

impl Clone for SharedNames {
    fn clone(&self) -> SharedNames {
        SharedNames(None)
    }
}

impl SharedNames {
    fn with<R>(&self, f: impl FnOnce(&mut ModuleNames) -> R) -> Option<R> {
        let shared = self.0.as_ref()?;
        // A panic while the lock was held cannot leave the counts half updated: each update
        // is one map operation.
        let mut names = shared.lock().unwrap_or_else(|e| e.into_inner());
        Some(f(&mut names))
    }
}

/// A computation's index in [`Module::computations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputationId(pub u32);

/// `name=value`, with the value as canonical text. Both are shared: lowering gives every
/// attribute written with the same name, or the same value text, one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextAttribute {
    /// The attribute's name.
    pub name: Arc<str>,
    /// The value, as canonical text.
    pub value: Arc<str>,
}

impl TextAttribute {
    /// An attribute with its own allocations of `name` and `value`.
    pub fn new(name: &str, value: &str) -> TextAttribute {
        TextAttribute {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// The value text of attribute `name` in `attributes`.
fn find_attribute<'a>(attributes: &'a [TextAttribute], name: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|a| &*a.name == name)
        .map(|a| &*a.value)
}

/// Sets attribute `name` to `value`, adding it at the end when absent.
fn set_attribute<A>(attributes: &mut A, name: &str, value: &str)
where
    A: std::ops::DerefMut<Target = [TextAttribute]> + Extend<TextAttribute>,
{
    match attributes.iter_mut().find(|a| &*a.name == name) {
        Some(attribute) => attribute.value = value.into(),
        None => attributes.extend([TextAttribute::new(name, value)]),
    }
}

/// What an instruction's parentheses hold besides operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Nothing: the parentheses hold operands only.
    None,
    /// `parameter(N)`.
    Parameter(i64),
    /// `constant(...)`: the literal's canonical text, behind a thin pointer so that a graph
    /// node holding an [`Instruction`] is 128 bytes: moves of that size are inlined, larger
    /// ones call `memcpy`.
    Literal(Arc<String>),
}

/// How the text that was read wrote names and operands, so printing keeps its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintStyle {
    /// The instruction's own name is written `%name`.
    pub percent: bool,
    /// Its operands are written `%name`.
    pub operand_percent: bool,
    /// Operands are written with their shapes (XLA's long style).
    pub operand_shapes: bool,
}

impl Default for PrintStyle {
    fn default() -> PrintStyle {
        PrintStyle {
            percent: true,
            operand_percent: true,
            operand_shapes: false,
        }
    }
}

/// One instruction: what it computes, its result shape, its attributes and how the text
/// wrote it. Its operands are the edges of its computation's graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Inline up to 24 bytes (nearly every name XLA prints): no allocation of its own, and a
    /// name lookup reads the graph node alone. Private: the computation's name index and the
    /// module's names follow it, so a name changes through [`Computation::rename`].
    name: CompactString,
    /// What the instruction computes.
    pub opcode: Opcode,
    /// Shared: lowering gives every instruction written with the same shape text one
    /// allocation, and cloning a shape is a reference count. `Arc::make_mut` edits a copy
    /// when others share it.
    pub shape: Arc<Shape>,
    /// False when the text left the result shape for XLA to infer.
    pub shape_written: bool,
    /// How the text wrote this line's names and operands; new instructions take the
    /// module's style.
    pub style: PrintStyle,
    /// A parameter's number or a constant's literal.
    pub payload: Payload,
    /// In text order; the printer puts them in XLA's order. This and the next three are
    /// `ThinVec`s (one pointer, no allocation when empty): most instructions have none or
    /// few, and a smaller instruction is a smaller graph.
    pub attributes: ThinVec<TextAttribute>,
    /// Computations this instruction calls, resolved, in attribute order. Public, as no
    /// index follows it; it must agree with the attribute text that names the callees,
    /// which the verifier checks, and [`Module::retain_computations`] renumbers it.
    pub called: ThinVec<ComputationId>,
    /// Compact tuple-element operands `%t#1#0`: operand slot and index path.
    pub tuple_paths: ThinVec<(u32, Vec<i64>)>,
    /// Operand slots whose `%` the text wrote differently from `style.operand_percent`.
    pub percent_exceptions: ThinVec<u32>,
    /// Where the instruction was in the source; empty for instructions passes created.
    pub span: Span,
}

impl Instruction {
    /// An instruction named `name` with no attributes or payload, printed in the default style,
    /// its shape written.
    pub fn new(
        name: impl Into<CompactString>,
        opcode: Opcode,
        shape: impl Into<Arc<Shape>>,
    ) -> Instruction {
        Instruction {
            name: name.into(),
            opcode,
            shape: shape.into(),
            shape_written: true,
            style: PrintStyle::default(),
            payload: Payload::None,
            attributes: ThinVec::new(),
            called: ThinVec::new(),
            tuple_paths: ThinVec::new(),
            percent_exceptions: ThinVec::new(),
            span: Span::default(),
        }
    }

    /// The instruction's name, without `%`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same instruction named `name`, for one not yet in a computation; one that is
    /// changes its name with [`Computation::rename`].
    pub fn with_name(mut self, name: impl Into<CompactString>) -> Instruction {
        self.name = name.into();
        self
    }

    /// The canonical text of attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        find_attribute(&self.attributes, name)
    }

    /// Sets (or adds) attribute `name` to `value` text.
    pub fn set_attribute(&mut self, name: &str, value: &str) {
        set_attribute(&mut self.attributes, name, value)
    }

    /// The integers of a `{1,0}`-style attribute; `None` if absent or not an integer list.
    pub fn int_list_attribute(&self, name: &str) -> Option<Vec<i64>> {
        let text = self.attribute(name)?;
        let inner = text.strip_prefix('{')?.strip_suffix('}')?;
        if inner.trim().is_empty() {
            return Some(Vec::new());
        }
        inner
            .split(',')
            .map(|s| s.trim().parse::<i64>().ok())
            .collect()
    }

    /// The `dimensions` attribute: a transpose's permutation, a broadcast's operand dims in
    /// the result, the dims a reduce or reverse works on. `None` when absent.
    pub fn dimensions(&self) -> Option<Vec<i64>> {
        self.int_list_attribute("dimensions")
    }

    /// Sets the `dimensions` attribute, as XLA prints it (`{2,0,1}`).
    pub fn set_dimensions(&mut self, dimensions: &[i64]) {
        self.set_int_list_attribute("dimensions", dimensions)
    }

    /// The integer of an `index=1`-style attribute.
    pub fn int_attribute(&self, name: &str) -> Option<i64> {
        self.attribute(name)?.trim().parse().ok()
    }

    /// Sets `name` to the integer list `values`, written as XLA prints it (`{2,0,1}`).
    pub fn set_int_list_attribute(&mut self, name: &str, values: &[i64]) {
        let items: Vec<String> = values.iter().map(i64::to_string).collect();
        self.set_attribute(name, &format!("{{{}}}", items.join(",")));
    }

    /// A `dot`'s dimension numbers (`lhs_batch_dims`, `lhs_contracting_dims`, ...; absent
    /// lists are empty); `None` when one is not an integer list.
    pub fn dot_dimension_numbers(&self) -> Option<crate::ir::attrs::DotDimensionNumbers> {
        let list = |name: &str| match self.attribute(name) {
            None => Some(Vec::new()),
            Some(_) => self.int_list_attribute(name),
        };
        Some(crate::ir::attrs::DotDimensionNumbers {
            lhs_batch: list("lhs_batch_dims")?,
            lhs_contracting: list("lhs_contracting_dims")?,
            rhs_batch: list("rhs_batch_dims")?,
            rhs_contracting: list("rhs_contracting_dims")?,
        })
    }

    /// Writes a `dot`'s dimension numbers as XLA prints them (batch lists only when not
    /// empty).
    pub fn set_dot_dimension_numbers(&mut self, numbers: &crate::ir::attrs::DotDimensionNumbers) {
        for (name, values) in [
            ("lhs_batch_dims", &numbers.lhs_batch),
            ("lhs_contracting_dims", &numbers.lhs_contracting),
            ("rhs_batch_dims", &numbers.rhs_batch),
            ("rhs_contracting_dims", &numbers.rhs_contracting),
        ] {
            if values.is_empty() && name.contains("batch") {
                self.attributes.retain(|a| &*a.name != name);
            } else {
                self.set_int_list_attribute(name, values);
            }
        }
    }

    /// A `convolution`'s `dim_labels`, read; `None` when absent or malformed.
    pub fn convolution_dimension_numbers(&self) -> Option<crate::ir::attrs::ConvDimensionNumbers> {
        crate::ir::attrs::ConvDimensionNumbers::parse(self.attribute("dim_labels")?).ok()
    }

    /// Writes a `convolution`'s `dim_labels` as XLA prints them (`b01f_01io->b01f`).
    pub fn set_convolution_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::ConvDimensionNumbers,
    ) {
        self.set_attribute("dim_labels", &numbers.to_string());
    }

    /// A `gather`'s dimension numbers (the batching lists are empty when absent); `None`
    /// when `index_vector_dim` is absent or a value is malformed. `slice_sizes` is a list
    /// of its own: `int_list_attribute("slice_sizes")`.
    pub fn gather_dimension_numbers(&self) -> Option<crate::ir::attrs::GatherDimensionNumbers> {
        Some(crate::ir::attrs::GatherDimensionNumbers {
            offset_dims: self.dims_or_empty("offset_dims")?,
            collapsed_slice_dims: self.dims_or_empty("collapsed_slice_dims")?,
            start_index_map: self.dims_or_empty("start_index_map")?,
            operand_batching_dims: self.dims_or_empty("operand_batching_dims")?,
            start_indices_batching_dims: self.dims_or_empty("start_indices_batching_dims")?,
            index_vector_dim: self.int_attribute("index_vector_dim")?,
        })
    }

    /// Writes a `gather`'s dimension numbers as XLA prints them (batching lists only when
    /// not empty).
    pub fn set_gather_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::GatherDimensionNumbers,
    ) {
        self.set_dims_lists(&[
            ("offset_dims", &numbers.offset_dims, true),
            ("collapsed_slice_dims", &numbers.collapsed_slice_dims, true),
            ("start_index_map", &numbers.start_index_map, true),
            (
                "operand_batching_dims",
                &numbers.operand_batching_dims,
                false,
            ),
            (
                "start_indices_batching_dims",
                &numbers.start_indices_batching_dims,
                false,
            ),
        ]);
        self.set_attribute("index_vector_dim", &numbers.index_vector_dim.to_string());
    }

    /// A `scatter`'s dimension numbers, read as [`Instruction::gather_dimension_numbers`]
    /// reads a gather's.
    pub fn scatter_dimension_numbers(&self) -> Option<crate::ir::attrs::ScatterDimensionNumbers> {
        Some(crate::ir::attrs::ScatterDimensionNumbers {
            update_window_dims: self.dims_or_empty("update_window_dims")?,
            inserted_window_dims: self.dims_or_empty("inserted_window_dims")?,
            scatter_dims_to_operand_dims: self.dims_or_empty("scatter_dims_to_operand_dims")?,
            input_batching_dims: self.dims_or_empty("input_batching_dims")?,
            scatter_indices_batching_dims: self.dims_or_empty("scatter_indices_batching_dims")?,
            index_vector_dim: self.int_attribute("index_vector_dim")?,
        })
    }

    /// Writes a `scatter`'s dimension numbers as XLA prints them (batching lists only when
    /// not empty).
    pub fn set_scatter_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::ScatterDimensionNumbers,
    ) {
        self.set_dims_lists(&[
            ("update_window_dims", &numbers.update_window_dims, true),
            ("inserted_window_dims", &numbers.inserted_window_dims, true),
            (
                "scatter_dims_to_operand_dims",
                &numbers.scatter_dims_to_operand_dims,
                true,
            ),
            ("input_batching_dims", &numbers.input_batching_dims, false),
            (
                "scatter_indices_batching_dims",
                &numbers.scatter_indices_batching_dims,
                false,
            ),
        ]);
        self.set_attribute("index_vector_dim", &numbers.index_vector_dim.to_string());
    }

    /// An integer-list attribute, empty when absent (as XLA reads dimension numbers);
    /// `None` when present but not an integer list.
    fn dims_or_empty(&self, name: &str) -> Option<Vec<i64>> {
        match self.attribute(name) {
            None => Some(Vec::new()),
            Some(_) => self.int_list_attribute(name),
        }
    }

    /// Sets each `(name, values, always)` list; an empty list that is not `always` printed
    /// is removed, as XLA leaves out empty batching lists.
    fn set_dims_lists(&mut self, lists: &[(&str, &Vec<i64>, bool)]) {
        for &(name, values, always) in lists {
            if values.is_empty() && !always {
                self.attributes.retain(|a| &*a.name != name);
            } else {
                self.set_int_list_attribute(name, values);
            }
        }
    }
}

/// A petgraph node index: what the graph, the order list and the name index hold. An
/// [`InstrId`] is one with its computation's tag.
type Node = NodeIndex<u32>;

/// One computation: a graph of instructions, their print order and the root.
///
/// `name` and the flags below are public: no index of the module follows them. A caller's
/// attribute text names its callees, though, so renaming a called computation means writing
/// its callers' attributes too; the verifier reports a callee name that names nothing.
#[derive(Clone, Debug)]
pub struct Computation {
    /// The computation's name, without `%`.
    pub name: String,
    /// Agrees with [`Module::entry`]; lowering and printing read it.
    pub is_entry: bool,
    /// The text marked it `ENTRY` (a module without one takes its last computation).
    pub entry_written: bool,
    /// The text wrote its name with `%`.
    pub percent: bool,
    /// The text gave a signature `(p: f32[]) -> f32[]`; printing keeps it.
    pub has_signature: bool,
    /// Parameter names the signature gave, when they differ from the instructions'.
    pub signature_names: Vec<String>,
    /// The text marked the root with `ROOT` (without it, the last instruction is root).
    pub root_written: bool,
    /// After the closing brace, e.g. `execution_thread="side"`.
    pub attributes: Vec<TextAttribute>,
    /// The text wrote it in place, as the value of its caller's attribute
    /// (`calls=\n  { ... }`); it prints there, not at the top level.
    pub in_place: bool,
    /// Where the computation was in the source; empty for computations passes created.
    pub span: Span,
    /// What this computation's ids carry; a clone takes a new one.
    tag: Tag,
    /// Per graph index, how many times its instruction was removed: what an id's
    /// `generation` must equal. Empty until the first removal, as most computations have
    /// none.
    generations: Vec<u32>,
    graph: StableDiGraph<Instruction, u32, u32>,
    /// The print order: a doubly linked list through `links`, so that inserting and
    /// removing are O(1) however large the computation.
    order: OrderList,
    root: Option<Node>,
    /// Name -> instruction, kept by every method that adds, removes or renames. The table
    /// holds only node indices and hashes the names the graph holds, so no name is stored
    /// twice.
    names: hashbrown::HashTable<Node>,
    /// Next suffix to try per name stem, so that making names unique stays O(1).
    next_suffix: rustc_hash::FxHashMap<String, u64>,
    /// The module's names, once the module has handed this computation out for editing.
    module_names: SharedNames,
}

/// Why a lookup or a mutation was refused. Each names the computation, and the instruction
/// where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Removing an instruction that others still use.
    #[error("`{name}` in computation `{computation}` still has users and cannot be removed")]
    HasUsers {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
    },
    /// Removing the root, which a computation cannot be without.
    #[error("`{name}` is the root of computation `{computation}` and cannot be removed; set another root first")]
    RemovingRoot {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
    },
    /// Replacing an operand in a slot the instruction does not have.
    #[error("`{name}` in computation `{computation}` has no operand slot {slot}")]
    NoSuchSlot {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
        /// The slot asked for.
        slot: u32,
    },
    /// The id is this computation's, but its instruction was removed.
    #[error("instruction {id} was removed from computation `{computation}`")]
    Removed {
        /// The id given.
        id: InstrId,
        /// The computation's name.
        computation: String,
    },
    /// The id is another computation's (or a clone's: see [`InstrId`]).
    #[error("instruction {id} is not one of computation `{computation}`: the id is another computation's")]
    Foreign {
        /// The id given.
        id: InstrId,
        /// The name of the computation asked.
        computation: String,
    },
    /// A rename to a name the computation, or another computation of its module, already has.
    #[error("cannot rename `{name}` in computation `{computation}` to `{taken}`: the module already has an instruction of that name")]
    NameTaken {
        /// The instruction's name.
        name: String,
        /// The name asked for, which another instruction has.
        taken: String,
        /// The computation's name.
        computation: String,
    },
}

impl Computation {
    /// An empty computation named `name`, without a root, not the entry, printed with `%`
    /// and a signature as XLA prints.
    pub fn new(name: impl Into<String>) -> Computation {
        Computation {
            name: name.into(),
            is_entry: false,
            entry_written: false,
            percent: true,
            has_signature: true,
            signature_names: Vec::new(),
            root_written: true,
            attributes: Vec::new(),
            in_place: false,
            span: Span::default(),
            tag: Tag::fresh(),
            generations: Vec::new(),
            graph: StableDiGraph::default(),
            order: OrderList::default(),
            root: None,
            names: hashbrown::HashTable::new(),
            next_suffix: rustc_hash::FxHashMap::default(),
            module_names: SharedNames::default(),
        }
    }

    /// Makes room for `instructions` more instructions at once, for a builder that knows
    /// about how many it will add: the graph then grows once instead of doubling (and
    /// keeping up to half its room unused).
    pub fn reserve(&mut self, instructions: usize) {
        self.graph.reserve_exact_nodes(instructions);
        // Real modules have 1.3 to 1.7 operands per instruction (the benchmark files); room
        // for two spares nearly every computation a doubling that copies every edge. Room
        // that is never written is only address space, which costs no memory.
        self.graph
            .reserve_exact_edges(instructions.saturating_mul(2));
        self.order.links.reserve_exact(instructions);
        let graph = &self.graph;
        self.names
            .reserve(instructions, |&id| name_hash(&graph[id].name));
    }

    /// The id of graph node `node`.
    fn id(&self, node: Node) -> InstrId {
        InstrId {
            index: node.index() as u32,
            tag: self.tag.0,
            generation: generation(&self.generations, node.index()),
        }
    }

    /// Whether `id` is this computation's and names an instruction that is still here.
    fn is_live(&self, id: InstrId) -> bool {
        id.tag == self.tag.0
            && id.generation == generation(&self.generations, id.index())
            && self.graph.contains_node(id.node())
    }

    /// The id of graph node `node` of [`Computation::graph`], if it holds an instruction.
    pub fn id_of(&self, node: NodeIndex<u32>) -> Option<InstrId> {
        self.graph.contains_node(node).then(|| self.id(node))
    }

    /// The node `id` names, or why it names none here.
    fn checked(&self, id: InstrId) -> Result<Node, EditError> {
        if id.tag != self.tag.0 {
            return Err(EditError::Foreign {
                id,
                computation: self.name.clone(),
            });
        }
        let node = id.node();
        if !self.is_live(id) {
            return Err(EditError::Removed {
                id,
                computation: self.name.clone(),
            });
        }
        Ok(node)
    }

    /// The node `id` names; panics, naming the computation, when it names none here.
    #[track_caller]
    fn node(&self, id: InstrId) -> Node {
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
        self.names
            .find(name_hash(name), |&other| graph[other].name == name)
            .map(|&node| self.id(node))
    }

    /// Makes `find` answer `node` for its name; with `replace` false, an instruction already
    /// holding the name keeps it. The module's names count it either way.
    fn index_name(&mut self, node: Node, replace: bool) {
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
    fn unindex_name(&mut self, node: Node) {
        let hash = name_hash(&self.graph[node].name);
        self.module_names.with(|names| names.remove(hash));
        if let Ok(entry) = self.names.find_entry(hash, |&other| other == node) {
            entry.remove();
        }
    }

    /// Whether an instruction here, or in another computation of the module, is named
    /// `name`.
    fn name_taken(&self, name: &str) -> bool {
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
                computation: self.name.clone(),
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
        let next = |suffixes: &rustc_hash::FxHashMap<String, u64>| {
            suffixes.get(stem).copied().unwrap_or(1)
        };
        let mut n = self
            .module_names
            .with(|names| next(&names.next_suffix))
            .unwrap_or_else(|| next(&self.next_suffix));
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
            self.next_suffix.insert(stem, n);
        }
        name
    }

    /// Adds edges from `operands`, in slot order, to `user`.
    #[track_caller]
    fn add_operands(&mut self, user: Node, operands: &[InstrId]) {
        for (slot, &operand) in operands.iter().enumerate() {
            let operand = self.node(operand);
            self.graph.add_edge(operand, user, slot as u32);
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
        if instruction.style == PrintStyle::default() {
            // A default `%` among plain lines would print a module in two styles.
            let neighbour = operands.first().map_or(before, |o| o.node());
            let percent = self.graph[neighbour].style;
            instruction.style = PrintStyle {
                percent: percent.percent,
                operand_percent: percent.operand_percent,
                operand_shapes: self.graph[before].style.operand_shapes,
            };
        }
        let node = self.graph.add_node(instruction);
        self.index_name(node, true);
        self.add_operands(node, operands);
        self.order.insert_before(before, node);
        self.id(node)
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

    /// Whether every operand precedes its user in the print order (one pass over the
    /// edges); an instruction using itself counts as in order only if `self_uses_allowed`.
    fn operands_come_first(&self, self_uses_allowed: bool) -> bool {
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
                computation: self.name.clone(),
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
        for &operand in operands {
            self.checked(operand)?;
        }
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
                computation: self.name.clone(),
            });
        }
        if self.has_users(id) {
            return Err(EditError::HasUsers {
                name: name(),
                computation: self.name.clone(),
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
            computation: self.name.clone(),
        })
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

    /// Direct graph access for analyses; mutation goes through the methods above. Its node
    /// indices are bare: [`Computation::id_of`] and [`InstrId::node`] convert.
    pub fn graph(&self) -> &StableDiGraph<Instruction, u32, u32> {
        &self.graph
    }
}

/// The panic of a lookup that has no `Result` to return the error in.
#[cold]
#[inline(never)]
#[track_caller]
/// `base` without a numeric suffix (`copy.3` -> `copy`), as XLA's `NameUniquer` reads it.
fn name_stem(base: &str) -> &str {
    match base.rsplit_once('.') {
        Some((stem, suffix))
            if !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => base,
    }
}

/// How many times graph index `index` was freed, from a computation's `generations`.
fn generation(generations: &[u32], index: usize) -> u32 {
    generations.get(index).copied().unwrap_or(0)
}

fn invalid_id(error: EditError) -> ! {
    panic!("{error}")
}

/// No instruction: the end of the print order list.
const NIL: u32 = u32::MAX;
/// The label distance between neighbours when the list is (re)numbered.
const LABEL_GAP: u64 = 1 << 32;

/// One instruction's place in the print order.
#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
    /// Increases along the list, so comparing two labels compares print positions.
    label: u64,
}

/// The print order as a doubly linked list over node indices with order labels (an
/// order-maintenance list): insertion and removal are O(1), comparing positions is O(1), and
/// the contiguous slice `order()` returns is rebuilt lazily, once per batch of edits.
#[derive(Debug, Default)]
struct OrderList {
    /// Indexed by node index; entries of removed nodes are stale until reused.
    links: Vec<Link>,
    head: u32,
    tail: u32,
    len: usize,
    // `OnceLock`, not `OnceCell`: the verifier reads computations from two threads.
    slice: std::sync::OnceLock<Vec<InstrId>>,
}

// Not derived: the slice holds ids with the computation's tag, and a clone has another tag.
impl Clone for OrderList {
    fn clone(&self) -> OrderList {
        OrderList {
            links: self.links.clone(),
            head: self.head,
            tail: self.tail,
            len: self.len,
            slice: std::sync::OnceLock::new(),
        }
    }
}

impl OrderList {
    /// The order as ids with tag `tag`, the computation's, and its `generations`.
    fn slice(&self, tag: u32, generations: &[u32]) -> &[InstrId] {
        self.slice.get_or_init(|| {
            let mut out = Vec::with_capacity(self.len);
            let mut at = if self.len == 0 { NIL } else { self.head };
            while at != NIL {
                out.push(InstrId {
                    index: at,
                    tag,
                    generation: generation(generations, at as usize),
                });
                at = self.links[at as usize].next;
            }
            out
        })
    }

    fn label(&self, id: Node) -> u64 {
        self.links.get(id.index()).map_or(u64::MAX, |l| l.label)
    }

    fn edited(&mut self) {
        self.slice.take();
    }

    fn slot(&mut self, id: Node) -> &mut Link {
        let index = id.index();
        if index >= self.links.len() {
            let blank = Link {
                prev: NIL,
                next: NIL,
                label: 0,
            };
            self.links.resize(index + 1, blank);
        }
        &mut self.links[index]
    }

    fn push_back(&mut self, id: Node) {
        self.edited();
        let index = id.index() as u32;
        let (prev, label) = if self.len == 0 {
            (NIL, LABEL_GAP)
        } else {
            let last = self.links[self.tail as usize].label;
            (self.tail, last.saturating_add(LABEL_GAP))
        };
        *self.slot(id) = Link {
            prev,
            next: NIL,
            label,
        };
        if prev == NIL {
            self.head = index;
        } else {
            self.links[prev as usize].next = index;
        }
        self.tail = index;
        self.len += 1;
        if label == u64::MAX {
            self.relabel_all();
        }
    }

    /// Links `id` just before `before`, which must be in the list.
    fn insert_before(&mut self, before: Node, id: Node) {
        self.edited();
        let (index, next) = (id.index() as u32, before.index() as u32);
        let prev = self.links[next as usize].prev;
        *self.slot(id) = Link {
            prev,
            next,
            label: 0,
        };
        self.links[next as usize].prev = index;
        if prev == NIL {
            self.head = index;
        } else {
            self.links[prev as usize].next = index;
        }
        self.len += 1;
        let low = if prev == NIL {
            0
        } else {
            self.links[prev as usize].label
        };
        let high = self.links[next as usize].label;
        if high - low >= 2 {
            self.links[index as usize].label = low + (high - low) / 2;
        } else {
            self.relabel_around(index);
        }
    }

    /// Spreads the labels of the smallest window around `index` whose label range leaves
    /// a gap of at least the window's size between neighbours; windows double, so repeated
    /// insertions at one place cost O(log n) amortised rather than a renumbering each.
    fn relabel_around(&mut self, index: u32) {
        let (mut first, mut last, mut count) = (index, index, 1u64);
        loop {
            let low = match self.links[first as usize].prev {
                NIL => 0,
                p => self.links[p as usize].label,
            };
            let high = match self.links[last as usize].next {
                NIL => u64::MAX,
                n => self.links[n as usize].label,
            };
            let gap = (high - low) / (count + 1);
            if gap > count {
                let mut at = first;
                let mut label = low;
                loop {
                    label += gap;
                    self.links[at as usize].label = label;
                    if at == last {
                        return;
                    }
                    at = self.links[at as usize].next;
                }
            }
            if self.links[first as usize].prev == NIL && self.links[last as usize].next == NIL {
                self.relabel_all();
                return;
            }
            // Grow the window to twice its size, on whichever sides have room.
            let steps = count;
            for _ in 0..steps {
                if self.links[first as usize].prev != NIL {
                    first = self.links[first as usize].prev;
                    count += 1;
                }
                if self.links[last as usize].next != NIL {
                    last = self.links[last as usize].next;
                    count += 1;
                }
            }
        }
    }

    fn relabel_all(&mut self) {
        let gap = (u64::MAX / (self.len as u64 + 1)).min(LABEL_GAP);
        let mut at = if self.len == 0 { NIL } else { self.head };
        let mut label = 0;
        while at != NIL {
            label += gap;
            self.links[at as usize].label = label;
            at = self.links[at as usize].next;
        }
    }

    fn unlink(&mut self, id: Node) {
        self.edited();
        let Link { prev, next, .. } = self.links[id.index()];
        match prev {
            NIL => self.head = next,
            p => self.links[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.links[n as usize].prev = prev,
        }
        self.len -= 1;
    }

    /// Replaces the whole order with `ids`.
    fn rebuild(&mut self, ids: &[Node]) {
        self.edited();
        self.len = 0;
        for &id in ids {
            self.push_back(id);
        }
    }
}

/// The hash of an instruction name in [`Computation`]'s name index.
fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

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
            computation.name = format!("{stem}.{n}");
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
        let mut names = ModuleNames::default();
        names.hashes.reserve(self.instruction_count());
        for computation in &self.computations {
            for instruction in computation.graph.node_weights() {
                names.add(name_hash(&instruction.name));
            }
        }
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

    /// Where to cut the computations in two shares of whole computations, for two threads:
    /// the index of the second share's first computation, chosen so that the larger share
    /// has as few instructions as whole computations allow.
    pub fn balanced_cut(&self) -> usize {
        let total = self.instruction_count();
        let mut before = 0;
        for (index, computation) in self.computations.iter().enumerate() {
            let after = before + computation.len();
            if after >= total / 2 {
                let cut_after = after.max(total - after);
                let cut_before = before.max(total - before);
                return if cut_after <= cut_before {
                    index + 1
                } else {
                    index
                };
            }
            before = after;
        }
        self.computations.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn a_graph_node_moves_without_a_call_to_memcpy() {
        // Moves of up to 128 bytes are inlined: lowering moves each instruction into the
        // graph (see `Payload::Literal`).
        type Node = petgraph::graph::Node<Option<Instruction>, u32>;
        assert!(std::mem::size_of::<Node>() <= 128);
    }
}
