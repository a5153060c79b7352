//! The built-in passes, one file each. Each file opens with what the pass does, why, and a
//! before/after example; [`all`] lists them.

pub mod dce;
pub mod layout_assignment;
pub mod simplify_layout_ops;
pub mod verify;

use crate::ir::module::{Computation, InstrId};
use crate::pass::registry::{PassInfo, Registry};
use crate::pass::{PipelineSpec, PipelineSyntaxError};

/// The built-in passes, sorted by name: what `hlo-layout passes` lists and `--passes` names.
static BUILTIN: &[PassInfo] = &[
    PassInfo {
        name: dce::NAME,
        description: dce::DESCRIPTION,
        flags: &[],
        create: |_| Box::new(dce::Dce),
    },
    PassInfo {
        name: layout_assignment::NAME,
        description: layout_assignment::DESCRIPTION,
        flags: layout_assignment::FLAGS,
        create: layout_assignment::create,
    },
    PassInfo {
        name: simplify_layout_ops::NAME,
        description: simplify_layout_ops::DESCRIPTION,
        flags: &[],
        create: |_| Box::new(simplify_layout_ops::SimplifyLayoutOps),
    },
    PassInfo {
        name: verify::NAME,
        description: verify::DESCRIPTION,
        flags: verify::FLAGS,
        create: verify::create,
    },
];

/// Every built-in pass, sorted by name.
pub fn all() -> &'static [PassInfo] {
    BUILTIN
}

/// The built-in pass called `name`.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    BUILTIN.iter().find(|info| info.name == name)
}

/// Parses and checks `--passes` text against the built-in passes ([`Registry::parse`] for a
/// program's own passes too).
pub fn parse_pipeline(text: &str) -> Result<PipelineSpec, Vec<PipelineSyntaxError>> {
    Registry::builtin().parse(text)
}

// The pass framework knows no concrete pass; the registry of the built-in ones is made here,
// where they are.
impl Registry {
    /// The built-in passes; [`Registry::register`] adds a program's own.
    pub fn builtin() -> Registry {
        Registry::of_sorted(BUILTIN)
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::builtin()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_consistent_with_the_passes() {
        assert!(BUILTIN.windows(2).all(|w| w[0].name < w[1].name));
        for info in BUILTIN {
            let pass = (info.create)(&[]);
            assert_eq!(pass.name(), info.name);
            assert_eq!(pass.description(), info.description);
            assert!(info.description.ends_with('.'), "{}", info.name);
        }
    }
}
