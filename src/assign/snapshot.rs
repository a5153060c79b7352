//! The input of layout assignment kept as its printed text and its spans, about a third of
//! the module's size, so that assignment can run twice on the same input (the descending
//! rule for its cost, then the chosen layouts) without holding a copy of the module beside
//! the one it assigns.
//!
//! The text is what `fmt` prints, which reads back as the same module (the corpus tests
//! check both ways give the same assignment); the spans are put back from the module the
//! snapshot was taken of, so that errors still point into the user's text.

use super::options::AssignError;
use crate::ir::module::{Computation, ComputationId, Module};
use crate::span::Span;

/// A module as text, with the spans of its computations and of their instructions in
/// print order.
pub(super) struct Snapshot {
    text: String,
    spans: Vec<(Span, Vec<Span>)>,
}

impl Snapshot {
    pub(super) fn take(module: &Module) -> Snapshot {
        let spans = module
            .computations()
            .iter()
            .map(|computation| {
                let instructions = computation
                    .order()
                    .iter()
                    .map(|&id| computation.instruction(id).span)
                    .collect();
                (computation.span, instructions)
            })
            .collect();
        Snapshot {
            text: crate::print::print_ir_module(module),
            spans,
        }
    }

    /// Replaces `module` with the module the snapshot was taken of, freeing it first so that
    /// the two are never held at once.
    pub(super) fn restore(&self, module: &mut Module) -> Result<(), AssignError> {
        drop(take_module(module));
        let mut restored =
            crate::parse_module(&self.text).map_err(|errors| AssignError::Restore {
                message: errors
                    .first()
                    .map_or_else(|| "no module".to_string(), ToString::to_string),
            })?;
        if !self.fits(&restored) {
            return Err(AssignError::Restore {
                message: "it has other computations or instructions".to_string(),
            });
        }
        for (computation, (span, instructions)) in restored.computations_mut().zip(&self.spans) {
            computation.span = *span;
            let order = computation.order().to_vec();
            for (id, span) in order.into_iter().zip(instructions) {
                computation.instruction_mut(id).span = *span;
            }
        }
        *module = restored;
        Ok(())
    }

    /// Whether `module` has the computations and instructions the spans were taken of.
    fn fits(&self, module: &Module) -> bool {
        module.computations().len() == self.spans.len()
            && module
                .computations()
                .iter()
                .zip(&self.spans)
                .all(|(computation, (_, spans))| computation.len() == spans.len())
    }
}

/// Takes the module out of `module`, leaving an empty one in its place (one computation
/// without instructions, its entry), for a caller that frees it before making the next.
pub(super) fn take_module(module: &mut Module) -> Module {
    let placeholder = Module::new(
        module.name.clone(),
        vec![Computation::new("placeholder")],
        ComputationId(0),
    );
    std::mem::replace(module, placeholder)
}
