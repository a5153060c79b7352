//! Which instructions take part in a control dependency: the built-in passes leave them
//! alone, since removing or replacing one would drop an ordering edge.

use crate::ir::module::{Computation, InstrId};

/// Instructions of `computation` that take part in a control dependency, either way:
/// passes leave them alone, since removing or replacing them would drop an ordering edge.
pub(crate) fn control_dependent(computation: &Computation) -> Vec<bool> {
    let bound = computation
        .graph()
        .node_indices()
        .map(|n| n.index() + 1)
        .max()
        .unwrap_or(0);
    let mut marked = vec![false; bound];
    for &id in computation.order() {
        let Some(text) = computation
            .instruction(id)
            .attribute("control-predecessors")
        else {
            continue;
        };
        marked[id.index()] = true;
        for name in crate::ir::attrs::name_list(text) {
            if let Some(predecessor) = computation.find(name) {
                marked[predecessor.index()] = true;
            }
        }
    }
    marked
}

/// Whether `id` is marked in a table built by [`control_dependent`].
pub(crate) fn is_marked(table: &[bool], id: InstrId) -> bool {
    table.get(id.index()).copied().unwrap_or(true)
}
