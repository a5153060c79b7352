//! `transpose-folding`, written outside the crate with its public API only: a transpose of
//! a transpose becomes one transpose with the composed permutation, or, where the two undo
//! each other, the original value (a copy where the layouts differ). XLA's
//! `AlgebraicSimplifier` does the same.
//!
//! ```text
//! cargo run --example transpose_folding -- module.hlo
//! ```

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
        let mut changed = Changed::NO;
        for computation in &mut module.computations {
            for outer in computation.order().to_vec() {
                let Some((outer_perm, inner)) = transpose_of(computation, outer) else {
                    continue;
                };
                let Some((inner_perm, x)) = transpose_of(computation, inner) else {
                    continue;
                };
                let composed: Vec<i64> =
                    outer_perm.iter().map(|&d| inner_perm[d as usize]).collect();
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

/// The permutation and operand of `id` if it is a transpose.
fn transpose_of(computation: &Computation, id: InstrId) -> Option<(Vec<i64>, InstrId)> {
    let instruction = computation
        .get(id)
        .filter(|i| i.opcode == Opcode::Transpose)?;
    Some((
        instruction.int_list_attribute("dimensions")?,
        *computation.operands(id).first()?,
    ))
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
