//! Called computations as their callers' checks read them: [`Callee`] (name, parameter
//! shapes, root), from a whole module ([`Indexed`]) or from the [`Signature`]s a caller that
//! checks one computation at a time keeps.

use rustc_hash::FxHashMap;

use std::borrow::Cow;
use std::sync::Arc;

use crate::ir::module::{Computation, ComputationId, Instruction, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::Shape;

/// What the checks read of the computations a module's instructions call, looked up by name
/// and id: the module itself, or the signatures of the computations above the one being
/// checked when a caller checks them one at a time as they are read.
pub(crate) struct Indexed<'m> {
    callees: Callees<'m>,
}

enum Callees<'m> {
    /// Names are indexed once per run: the checks look a callee up by name at every call,
    /// and a module may hold 100,000 computations.
    Module {
        module: &'m Module,
        names: FxHashMap<&'m str, ComputationId>,
    },
    Signatures {
        signatures: &'m [Signature],
        find: &'m (dyn Fn(&str) -> Option<ComputationId> + Sync),
    },
}

impl<'m> Indexed<'m> {
    /// The signatures of the computations above the one being checked, by id; `find` finds
    /// one by name.
    pub(crate) fn of_signatures(
        signatures: &'m [Signature],
        find: &'m (dyn Fn(&str) -> Option<ComputationId> + Sync),
    ) -> Indexed<'m> {
        Indexed {
            callees: Callees::Signatures { signatures, find },
        }
    }

    pub(crate) fn new(module: &'m Module) -> Indexed<'m> {
        Indexed {
            callees: Callees::Module {
                module,
                names: module.computations_by_name(),
            },
        }
    }

    /// `Module::find_computation` in O(1).
    pub(crate) fn find_computation(&self, name: &str) -> Option<ComputationId> {
        match &self.callees {
            Callees::Module { names, .. } => names.get(name).copied(),
            Callees::Signatures { find, .. } => find(name),
        }
    }

    /// `Module::called_computation`, with names looked up in O(1).
    pub(crate) fn called_computation(
        &self,
        instruction: &Instruction,
        name: &str,
    ) -> Option<ComputationId> {
        let name = name.trim().trim_start_matches('%');
        let named = |id: &ComputationId| match &self.callees {
            Callees::Module { module, .. } => module
                .computations()
                .get(id.0 as usize)
                .is_some_and(|c| c.name == name),
            Callees::Signatures { signatures, .. } => signatures
                .get(id.0 as usize)
                .is_some_and(|s| &*s.name == name),
        };
        (instruction.called.iter().find(|id| named(id)).copied())
            .or_else(|| self.find_computation(name))
    }

    /// The computation `id` as a caller's checks read it.
    pub(crate) fn callee(&self, id: ComputationId) -> Callee<'_> {
        match &self.callees {
            Callees::Module { module, .. } => Callee::of(module.computation(id)),
            Callees::Signatures { signatures, .. } => Callee::from(&signatures[id.0 as usize]),
        }
    }
}

/// A called computation as its callers' checks read it: its name, its parameter shapes by
/// number and its root.
pub(crate) struct Callee<'a> {
    pub name: &'a str,
    pub parameters: Cow<'a, [(i64, Arc<Shape>)]>,
    pub root: Option<(&'a Opcode, &'a Arc<Shape>)>,
}

impl<'a> Callee<'a> {
    pub(crate) fn of(computation: &'a Computation) -> Callee<'a> {
        let parameters = computation
            .parameters()
            .into_iter()
            .map(|(number, id)| (number, Arc::clone(&computation.instruction(id).shape)))
            .collect();
        let root = computation
            .root()
            .and_then(|root| computation.get(root).ok())
            .map(|root| (&root.opcode, &root.shape));
        Callee {
            name: &computation.name,
            parameters: Cow::Owned(parameters),
            root,
        }
    }

    pub(crate) fn from(signature: &'a Signature) -> Callee<'a> {
        Callee {
            name: &signature.name,
            parameters: Cow::Borrowed(&signature.parameters),
            root: signature
                .root
                .as_ref()
                .map(|(opcode, shape)| (opcode, shape)),
        }
    }
}

/// All that the checks of its callers read of a computation ([`Callee`]), kept by a caller
/// that checks computations one at a time as they are read: about a hundred bytes where the
/// computation takes hundreds per instruction.
pub(crate) struct Signature {
    name: Box<str>,
    parameters: Box<[(i64, Arc<Shape>)]>,
    root: Option<(Opcode, Arc<Shape>)>,
}

impl Signature {
    pub fn of(computation: &Computation) -> Signature {
        let callee = Callee::of(computation);
        Signature {
            name: callee.name.into(),
            parameters: callee.parameters.into_owned().into_boxed_slice(),
            root: callee
                .root
                .map(|(opcode, shape)| (opcode.clone(), Arc::clone(shape))),
        }
    }
}
