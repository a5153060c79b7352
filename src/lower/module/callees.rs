//! The computations an instruction calls, as its attributes write them: by name
//! (`to_apply=%add`) or in place (`to_apply=\n  { ... }`), held until every computation of
//! the module is known; what an attribute's value writes (one name, a list, a body), and
//! the text the attribute gets once its in-place callees have names.
//!
//! Invariant: a callee is kept as written (a name, or the id of the computation its
//! in-place text became) until the module's end resolves it; nothing here looks a name up.

use crate::ir::module::{Computation, ComputationId, InstrId};
use crate::syntax::ast::{self, Term, WordKind};

/// A computation an attribute names (`to_apply=%add`) or writes in place
/// (`to_apply=\n  { ... }`), which lowering has already turned into a computation.
#[derive(Clone, Copy)]
pub(super) enum Callee<'s> {
    Named(ast::Word<'s>, WordKind),
    InPlace(ComputationId),
}

/// The callees of one attribute, and whether they were a braced list
/// (`branch_computations={...}`).
pub(super) struct CalleeList<'s> {
    pub(super) callees: Vec<Callee<'s>>,
    pub(super) braced: bool,
}

/// A called computation, resolved once every computation is known.
pub(super) struct PendingCall<'s> {
    pub(super) computation: ComputationId,
    pub(super) instruction: InstrId,
    pub(super) callee: Callee<'s>,
}

/// An attribute that wrote a computation in place, whose text becomes the names the
/// module gives its callees.
pub(super) struct InPlaceAttribute<'s> {
    pub(super) computation: ComputationId,
    pub(super) instruction: InstrId,
    /// The attribute's index in the instruction's attributes.
    pub(super) attribute: usize,
    pub(super) callees: CalleeList<'s>,
}

/// The text of a called-computation attribute once its in-place callees have names:
/// `_` or `{%a, _.1}`. The printer writes in-place callees back in place.
pub(super) fn callee_list_text(list: &CalleeList<'_>, computations: &[Computation]) -> String {
    let mut text = String::new();
    if list.braced {
        text.push('{');
    }
    for (i, callee) in list.callees.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        match callee {
            Callee::Named(word, WordKind::Name) => {
                text.push('%');
                text.push_str(word.text);
            }
            Callee::Named(word, _) => text.push_str(word.text),
            Callee::InPlace(id) => text.push_str(&computations[id.0 as usize].name),
        }
    }
    if list.braced {
        text.push('}');
    }
    text
}

/// The called-computation attributes that take a braced list of computations.
pub(super) fn takes_a_list(attribute: &str) -> bool {
    matches!(attribute, "branch_computations" | "called_computations")
}

/// Whether an attribute value gives exactly one computation: a name or an in-place body.
pub(super) fn names_one(value: &[Term<'_>]) -> bool {
    matches!(
        value,
        [Term::Word(_, WordKind::Name | WordKind::Ident) | Term::Body(..)]
    )
}

/// Whether an attribute value is a list holding more than names: an in-place computation
/// written without instruction names.
pub(super) fn unnamed_body(value: &[Term<'_>]) -> bool {
    matches!(value, [Term::List(list)] if list
        .terms
        .iter()
        .any(|t| matches!(t, Term::List(_) | Term::Attr { .. })))
}

/// Whether an attribute value writes a computation in place, alone or in a list.
pub(super) fn holds_body(value: &[Term<'_>]) -> bool {
    value.iter().any(|term| match term {
        Term::Body(..) => true,
        Term::List(list) => holds_body(&list.terms),
        _ => false,
    })
}
