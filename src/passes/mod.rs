//! The built-in passes, one file each. Each file opens with what the pass does, why, and a
//! before/after example; [`all`] lists them.

mod control;
pub mod dce;
pub mod layout_assignment;
pub mod simplify_layout_ops;
pub mod verify;

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
