//! The error type of the library's text entry points: any syntax or meaning error, each a
//! miette diagnostic with a span into the text that was parsed.

use crate::lower::{LowerError, ModuleError};
use crate::syntax::SyntaxError;
use crate::verify::VerifyError;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum Error {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Syntax(#[from] SyntaxError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Lower(#[from] LowerError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Module(#[from] ModuleError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Verify(#[from] VerifyError),
}
