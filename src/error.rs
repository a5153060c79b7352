//! The error type of the library's text entry points: any syntax or meaning error, each a
//! miette diagnostic with a span into the text that was parsed.

use crate::lower::{LowerError, ModuleError};
use crate::syntax::SyntaxError;
use crate::verify::VerifyError;

/// Any error the library's text entry points report, by the stage that found it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum Error {
    /// The text does not parse: a token or bracket out of place.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Syntax(#[from] SyntaxError),
    /// The text parses, but something in it means nothing valid: a shape, a layout, an attribute.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Lower(#[from] LowerError),
    /// The module as a whole is not well formed: a name, a callee or the entry is wrong.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Module(#[from] ModuleError),
    /// The module breaks a rule of XLA's verifier.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Verify(#[from] VerifyError),
}
