//! `transpose-folding`, written outside the crate with its public API only: a transpose of
//! a transpose becomes one transpose with the composed permutation, or, where the two undo
//! each other, the original value (a copy where the layouts differ). XLA's
//! `AlgebraicSimplifier` does the same.
//!
//! ```text
//! cargo run --example transpose_folding -- module.hlo
//! ```

use hlo_layout::ir::pattern::{any, op};
use hlo_layout::ir::permutation::{compose, is_identity};
use hlo_layout::ir::{build, Module, Opcode};
use hlo_layout::pass::{rewrite_each, Changed, Pass, PassContext, PassError, Pipeline};

#[path = "support/mod.rs"]
mod support;

pub struct TransposeFolding;

impl Pass for TransposeFolding {
    fn name(&self) -> &'static str {
        "transpose-folding"
    }

    fn description(&self) -> &'static str {
        "Folds a transpose of a transpose into one transpose, or into nothing."
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        let inner = op(Opcode::Transpose)
            .capture()
            .with_operands([any().capture()]);
        let twice = op(Opcode::Transpose).capture().with_operands([inner]);
        rewrite_each(module, |computation, id| {
            let Some(&[outer, inner, x]) = twice.matches(computation, id).as_deref() else {
                return Ok(false);
            };
            let dims = |t| computation.instruction(t).dimensions().unwrap_or_default();
            let Some(composed) = compose(&dims(inner), &dims(outer)) else {
                return Ok(false);
            };
            let shape = computation.instruction(outer).shape.clone();
            if is_identity(&composed) && computation.instruction(x).shape == shape {
                computation.replace_instruction(outer, x)?;
                cx.count("transposes removed", 2);
                return Ok(true);
            }
            let mut new = match is_identity(&composed) {
                true => build::copy(computation, x, None)?,
                false => build::transpose(computation, x, &composed)?,
            };
            // The replacement keeps the folded value's shape and layout.
            new.instruction.shape = shape;
            computation.replace_with_new(outer, new.instruction, &new.operands)?;
            cx.count("transposes folded", 1);
            Ok(true)
        })
    }
}

/// Parses `text`, runs `transpose-folding` (verified after) and returns the module as text.
pub fn run(text: &str) -> Result<String, String> {
    let mut module = hlo_layout::parse_module(text).map_err(|e| format!("{e:?}"))?;
    let mut pipeline = Pipeline::new("transpose-folding");
    pipeline.add(TransposeFolding);
    pipeline.run(&mut module).map_err(|e| e.to_string())?;
    Ok(hlo_layout::print::print_ir_module(&module))
}

fn main() -> std::process::ExitCode {
    support::main_on_file("transpose_folding", run)
}
