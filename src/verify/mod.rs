//! The verifier: checks a lowered module and reports every problem, each with the span and
//! name of the instruction at fault.
//!
//! Invariants checked (structural):
//! - every instruction's operand slots are `0..n`, each exactly once;
//! - the operand graph of each computation is acyclic and has a root;
//! - each instruction's operand count fits its opcode.
//!
//! Later checks extend [`verify`]: shape inference, call signatures, and in
//! layout-sensitive mode, bitcast sizes and layout-preserving ops.

use crate::ir::module::{Computation, InstrId, Module};
use crate::syntax::ast::Span;

/// What to check beyond the structure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Also check layouts: a bitcast keeps the physical byte size, and ops that cannot
    /// change layout have operands laid out as their result.
    pub layout_sensitive: bool,
}

/// One problem the verifier found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message} (instruction `{instruction}` in computation `{computation}`)")]
#[diagnostic(code(hlo::verify))]
pub struct VerifyError {
    pub message: String,
    pub computation: String,
    pub instruction: String,
    #[label("here")]
    pub span: Span,
}

impl VerifyError {
    pub fn new(
        computation: &Computation,
        id: Option<InstrId>,
        message: impl Into<String>,
    ) -> VerifyError {
        let (instruction, span) = match id.and_then(|id| computation.get(id)) {
            Some(instruction) => (instruction.name.clone(), instruction.span),
            None => (String::new(), computation.span),
        };
        VerifyError {
            message: message.into(),
            computation: computation.name.clone(),
            instruction,
            span,
        }
    }
}

/// Checks `module`; every error found is returned.
pub fn verify(module: &Module, options: &VerifyOptions) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    for computation in &module.computations {
        structure(computation, &mut errors);
    }
    let _ = options;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn structure(computation: &Computation, errors: &mut Vec<VerifyError>) {
    let Some(root) = computation.root() else {
        errors.push(VerifyError::new(
            computation,
            None,
            "the computation has no root",
        ));
        return;
    };
    if computation.get(root).is_none() {
        errors.push(VerifyError::new(
            computation,
            None,
            "the root is not an instruction of the computation",
        ));
    }
    if let Some(id) = computation.find_cycle() {
        errors.push(VerifyError::new(
            computation,
            Some(id),
            "the instruction depends on itself",
        ));
    }
    for &id in computation.order() {
        let mut slots: Vec<u32> = computation
            .graph()
            .edges_directed(id, petgraph::Direction::Incoming)
            .map(|e| *e.weight())
            .collect();
        slots.sort_unstable();
        if slots.iter().enumerate().any(|(i, &slot)| slot != i as u32) {
            errors.push(VerifyError::new(
                computation,
                Some(id),
                format!(
                    "operand slots must be 0..{} each once, found {slots:?}",
                    slots.len()
                ),
            ));
        }
        let instruction = computation.instruction(id);
        let arity = instruction.opcode.arity();
        if !arity.accepts(slots.len()) {
            errors.push(VerifyError::new(
                computation,
                Some(id),
                format!(
                    "`{}` takes {arity}, found {}",
                    instruction.opcode,
                    slots.len()
                ),
            ));
        }
    }
}
