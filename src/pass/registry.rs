//! The passes `--passes` text can name: the built-in table (read by `hlo-layout passes`),
//! and [`Registry`], which a program extends with its own passes so that pipeline text
//! names them like the built-in ones.
//!
//! ```
//! use hlo_layout::ir::Module;
//! use hlo_layout::pass::registry::{PassInfo, Registry};
//! use hlo_layout::pass::{Changed, Pass, PassContext, PassError, PipelineOptions};
//!
//! struct Nothing;
//! impl Pass for Nothing {
//!     fn name(&self) -> &'static str { "nothing" }
//!     fn description(&self) -> &'static str { "Changes nothing." }
//!     fn run(&mut self, _: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
//!         Ok(Changed::NO)
//!     }
//! }
//!
//! let mut registry = Registry::builtin();
//! registry
//!     .register(PassInfo {
//!         name: "nothing",
//!         description: "Changes nothing.",
//!         flags: &[],
//!         create: |_| Box::new(Nothing),
//!     })
//!     .unwrap();
//! let spec = registry.parse("dce,nothing,verify").unwrap();
//! let mut module = hlo_layout::parse_module("ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n").unwrap();
//! spec.instantiate("example", PipelineOptions::default()).run(&mut module).unwrap();
//! ```

use super::interface::Pass;

/// A registered pass: its name, what it does, the flags `name{flag}` it takes, and how to
/// make one.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// The name `--passes` and dumps use, lower-case words joined by `-`.
    pub name: &'static str,
    /// One sentence saying what the pass does, for `hlo-layout passes`.
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

/// The passes a pipeline text may name: the built-in ones and any a program registers.
#[derive(Clone, Debug)]
pub struct Registry {
    /// Sorted by name, names distinct.
    passes: Vec<PassInfo>,
}

/// Why a pass cannot be registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum RegistryError {
    /// A pass of that name is registered already.
    #[error("a pass named `{0}` is registered already")]
    #[diagnostic(code(hlo::pass::registry::duplicate))]
    Duplicate(String),
    /// The name is not lower-case words joined by `-`.
    #[error("`{0}` is not a pass name: names are lower-case words joined by `-`, as `dce`")]
    #[diagnostic(code(hlo::pass::registry::name))]
    BadName(String),
}

impl Registry {
    /// A registry of no passes, for a program that names only its own;
    /// `Registry::builtin()` (in [`crate::passes`]) starts from the built-in ones.
    pub fn new() -> Registry {
        Registry { passes: Vec::new() }
    }

    /// A registry of `passes`, which must be sorted by name with names distinct (the
    /// built-in table is).
    pub(crate) fn of_sorted(passes: &[PassInfo]) -> Registry {
        Registry {
            passes: passes.to_vec(),
        }
    }

    /// Adds a pass; its name must be kebab-case, new, and not `fixpoint`.
    pub fn register(&mut self, info: PassInfo) -> Result<&mut Registry, RegistryError> {
        let kebab = !info.name.is_empty()
            && info.name != "fixpoint"
            && info.name.split('-').all(|word| {
                !word.is_empty()
                    && word
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if !kebab {
            return Err(RegistryError::BadName(info.name.to_string()));
        }
        match self.passes.binary_search_by(|p| p.name.cmp(info.name)) {
            Ok(_) => Err(RegistryError::Duplicate(info.name.to_string())),
            Err(at) => {
                self.passes.insert(at, info);
                Ok(self)
            }
        }
    }

    /// Every registered pass, sorted by name.
    pub fn passes(&self) -> &[PassInfo] {
        &self.passes
    }

    /// The registered pass called `name`.
    pub fn find(&self, name: &str) -> Option<&PassInfo> {
        self.passes
            .binary_search_by(|p| p.name.cmp(name))
            .ok()
            .map(|at| &self.passes[at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes;

    #[test]
    fn registered_names_are_new_kebab_case_words() {
        let info = |name: &'static str| PassInfo {
            name,
            description: "Nothing.",
            flags: &[],
            create: |_| Box::new(passes::dce::Dce),
        };
        let mut registry = Registry::builtin();
        assert!(registry.register(info("my-pass-2")).is_ok());
        assert_eq!(
            registry.register(info("dce")).err(),
            Some(RegistryError::Duplicate("dce".into()))
        );
        for bad in ["", "fixpoint", "My", "a--b", "a_b", "-a"] {
            assert_eq!(
                registry.register(info(bad)).err(),
                Some(RegistryError::BadName(bad.into())),
                "{bad}"
            );
        }
        let names: Vec<&str> = registry.passes().iter().map(|p| p.name).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(registry.find("my-pass-2").is_some());
    }
}
