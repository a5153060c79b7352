//! `transpose-folding`, written outside the crate with its public API only: a transpose of
//! a transpose becomes one transpose with the composed permutation, or, where the two undo
//! each other, the original value (a copy where the layouts differ). XLA's
//! `AlgebraicSimplifier` does the same.
//!
//! ```text
//! cargo run --example transpose_folding -- module.hlo
//! ```

use hlo_layout::ir::pattern::{any, op};
use hlo_layout::ir::{build, Computation, InstrId, Module, Opcode};
use hlo_layout::pass::{Changed, Pass, PassContext, PassError, Pipeline};

pub struct TransposeFolding;

impl Pass for TransposeFolding {
    fn name(&self) -> &'static str {
        "transpose-folding"
    }

    fn description(&self) -> &'static str {
        "Folds a transpose of a transpose into one transpose, or into nothing."
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        let twice = op(Opcode::Transpose)
            .capture()
            .with_operands([op(Opcode::Transpose)
                .capture()
                .with_operands([any().capture()])]);
        let mut changed = Changed::NO;
        for computation in module.computations_mut() {
            for id in computation.order().to_vec() {
                let Some(&[outer, inner, x]) = twice.matches(computation, id).as_deref() else {
                    continue;
                };
                let (Some(outer_perm), Some(inner_perm)) = (
                    dimensions(computation, outer),
                    dimensions(computation, inner),
                ) else {
                    continue;
                };
                let composed: Option<Vec<i64>> = outer_perm
                    .iter()
                    .map(|&d| inner_perm.get(usize::try_from(d).ok()?).copied())
                    .collect();
                let Some(composed) = composed else { continue };
                let shape = computation.instruction(outer).shape.clone();
                let identity = composed.iter().enumerate().all(|(i, &d)| d == i as i64);
                if identity && computation.instruction(x).shape == shape {
                    computation.replace_instruction(outer, x)?;
                    cx.count("transposes removed", 2);
                } else {
                    let mut new = if identity {
                        build::copy(computation, x, None)?
                    } else {
                        build::transpose(computation, x, &composed)?
                    };
                    // The replacement keeps the folded value's shape and layout.
                    new.instruction.shape = shape;
                    computation.replace_with_new(outer, new.instruction, &new.operands)?;
                    cx.count("transposes folded", 1);
                }
                changed = Changed::YES;
            }
        }
        Ok(changed)
    }
}

/// A transpose's permutation.
fn dimensions(computation: &Computation, id: InstrId) -> Option<Vec<i64>> {
    computation.get(id).ok()?.int_list_attribute("dimensions")
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
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: transpose_folding FILE");
        return std::process::ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("error: cannot read {path}: {error}");
            return std::process::ExitCode::from(1);
        }
    };
    match run(&text) {
        Ok(printed) => {
            print!("{printed}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::from(1)
        }
    }
}
