//! What the verifier reports: [`VerifyError`] (what it found, naming the instruction and the
//! computation), the [`Found`] place it points at, the [`Problems`] a check collects, and
//! the [`VerifyOptions`] that choose the checks.

use crate::ir::module::{Computation, InstrId};
use crate::span::Span;

/// What to check beyond the structure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Also check layouts: a bitcast keeps the physical byte size, and ops that cannot
    /// change layout have operands laid out as their result.
    pub layout_sensitive: bool,
}

/// One problem the verifier found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message} ({})", place(.instruction, .computation))]
#[diagnostic(code(hlo::verify))]
pub struct VerifyError {
    /// What is wrong, as XLA's verifier or parser says it.
    pub message: String,
    /// The computation the problem is in.
    pub computation: String,
    /// The instruction at fault; empty for a problem of the computation itself.
    pub instruction: String,
    /// Where the primary label points: the instruction, the computation, or XLA's point.
    #[label(primary, "{label}")]
    pub span: Span,
    /// What the primary label says: "here", or where XLA's parser stood (see [`Found`]).
    pub label: &'static str,
    /// The text at fault, when the primary label is where XLA's parser stood instead.
    #[label("{detail_label}")]
    pub detail: Option<Span>,
    /// What the second label says.
    pub detail_label: &'static str,
    /// Where XLA's parser finds the problem: a caller that has the text (`crate::check`)
    /// points the primary label there.
    pub found: Found,
}

/// Where in an instruction's text XLA's parser stands when it reports a problem. The
/// verifier knows only the instruction's span; [`crate::check`] reads the instruction's
/// text again to point there, and keeps the instruction as a second label when XLA's point
/// is not the fault itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Found {
    /// Nowhere more precise than the instruction: the verifier's own rules.
    #[default]
    Instruction,
    /// The name of the attribute named, or of the header's attribute for a header error.
    Attribute(String),
    /// The token after the instruction: XLA checks this once it has read the attributes.
    AfterInstruction,
    /// The `(` that opens the operands: XLA counts them as it reads them.
    OperandList,
    /// The token after the operands' `)`: XLA checks this before it reads the attributes.
    AfterOperands,
    /// Operand `n`, from its shape when that is written: XLA reports where the operand
    /// starts that it cannot read.
    Operand(usize),
    /// The token after a parameter's number (the `)`).
    AfterParameterNumber,
    /// The token after the result shape (the opcode): XLA checks a layout as it reads it.
    AfterShape,
    /// The token after `name` in the list value of attribute `attribute`.
    AfterName {
        /// The attribute whose list holds the name.
        attribute: &'static str,
        /// The name after which XLA's parser stops.
        name: String,
    },
}

/// One problem a check found, and where XLA's parser finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub message: String,
    /// Where XLA's parser finds it.
    pub found: Found,
}

impl From<String> for Problem {
    fn from(message: String) -> Problem {
        Problem {
            message,
            found: Found::Instruction,
        }
    }
}

impl From<&str> for Problem {
    fn from(message: &str) -> Problem {
        Problem::from(message.to_string())
    }
}

/// The problems of one instruction, in the order found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// Adds a problem; a message alone is one that XLA's parser finds at the instruction.
    pub fn push(&mut self, problem: impl Into<Problem>) {
        self.0.push(problem.into());
    }

    /// A problem that XLA's parser reports at `found`.
    pub fn push_at(&mut self, found: Found, message: impl Into<String>) {
        self.0.push(Problem {
            message: message.into(),
            found,
        });
    }

    /// Adds each of `problems`, in order.
    pub fn extend<P: Into<Problem>>(&mut self, problems: impl IntoIterator<Item = P>) {
        self.0.extend(problems.into_iter().map(Into::into));
    }

    /// Whether no problem was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl IntoIterator for Problems {
    type Item = Problem;
    type IntoIter = std::vec::IntoIter<Problem>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Where a verifier's error is: an instruction of a computation, or a computation itself
/// (the header's errors are about the entry computation).
fn place(instruction: &str, computation: &str) -> String {
    match instruction {
        "" => format!("computation `{computation}`"),
        _ => format!("instruction `{instruction}` in computation `{computation}`"),
    }
}

impl VerifyError {
    /// A problem of instruction `id` of `computation`, or of the computation itself when `id`
    /// is `None` (or no longer names an instruction), labelled "here".
    pub fn new(
        computation: &Computation,
        id: Option<InstrId>,
        message: impl Into<String>,
    ) -> VerifyError {
        let (instruction, span) = match id.and_then(|id| computation.get(id).ok()) {
            Some(instruction) => (instruction.name().to_string(), instruction.span),
            None => (String::new(), computation.span),
        };
        VerifyError {
            message: message.into(),
            computation: computation.name.to_string(),
            instruction,
            span,
            label: "here",
            detail: None,
            detail_label: "",
            found: Found::Instruction,
        }
    }

    /// The error, about attribute `name`.
    pub fn about_attribute(self, name: &str) -> VerifyError {
        self.found_at(Found::Attribute(name.to_string()))
    }

    /// The error, which XLA's parser finds at `found`.
    pub fn found_at(mut self, found: Found) -> VerifyError {
        self.found = found;
        self
    }
}
