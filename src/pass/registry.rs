//! The built-in passes: one alphabetical table, read by `--passes` and `hlo-layout passes`.

use super::Pass;
use crate::passes;

/// A registered pass: its name, what it does, the flags `name{flag}` it takes, and how to
/// make one.
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// `(flag, what it does)`.
    pub flags: &'static [(&'static str, &'static str)],
    /// Makes the pass with the given flags (each one of `flags`).
    pub create: fn(&[&'static str]) -> Box<dyn Pass>,
}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for PassInfo {
    fn eq(&self, other: &PassInfo) -> bool {
        self.name == other.name
    }
}

impl Eq for PassInfo {}

static PASSES: &[PassInfo] = &[
    PassInfo {
        name: passes::dce::NAME,
        description: passes::dce::DESCRIPTION,
        flags: &[],
        create: |_| Box::new(passes::dce::Dce),
    },
    PassInfo {
        name: passes::layout_assignment::NAME,
        description: passes::layout_assignment::DESCRIPTION,
        flags: passes::layout_assignment::FLAGS,
        create: passes::layout_assignment::create,
    },
    PassInfo {
        name: passes::simplify_layout_ops::NAME,
        description: passes::simplify_layout_ops::DESCRIPTION,
        flags: &[],
        create: |_| Box::new(passes::simplify_layout_ops::SimplifyLayoutOps),
    },
    PassInfo {
        name: passes::verify::NAME,
        description: passes::verify::DESCRIPTION,
        flags: passes::verify::FLAGS,
        create: passes::verify::create,
    },
];

/// Every built-in pass, sorted by name.
pub fn all() -> &'static [PassInfo] {
    PASSES
}

/// The built-in pass called `name`.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|info| info.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_consistent_with_the_passes() {
        assert!(PASSES.windows(2).all(|w| w[0].name < w[1].name));
        for info in PASSES {
            let pass = (info.create)(&[]);
            assert_eq!(pass.name(), info.name);
            assert_eq!(pass.description(), info.description);
            assert!(info.description.ends_with('.'), "{}", info.name);
        }
    }
}
