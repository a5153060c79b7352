//! The ids of a module's parts: [`InstrId`], an instruction of one computation, and
//! [`ComputationId`], a computation's index in its module.
//!
//! Invariant: an [`InstrId`] carries the tag of the computation that made it and how many
//! times its graph index was freed, so that a lookup tells an id of another computation, or
//! of a removed instruction, from one it can answer.

use petgraph::stable_graph::NodeIndex;

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
///
/// [`Computation::find`]: super::Computation::find
/// [`Computation::order`]: super::Computation::order
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct InstrId {
    pub(super) index: u32,
    pub(super) tag: u32,
    pub(super) generation: u32,
}

impl InstrId {
    /// The graph index: dense within its computation, for side tables indexed by it.
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The petgraph node, for reading [`Computation::graph`](super::Computation::graph) directly.
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
pub(super) struct Tag(pub(super) u32);

impl Tag {
    pub(super) fn fresh() -> Tag {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        Tag(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Clone for Tag {
    fn clone(&self) -> Tag {
        Tag::fresh()
    }
}

/// A computation's index in [`Module::computations`](super::Module::computations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputationId(pub u32);

/// A petgraph node index: what the graph, the order list and the name index hold. An
/// [`InstrId`] is one with its computation's tag.
pub(super) type Node = NodeIndex<u32>;

/// How many times graph index `index` was freed, from a computation's `generations`.
pub(super) fn generation(generations: &[u32], index: usize) -> u32 {
    generations.get(index).copied().unwrap_or(0)
}
