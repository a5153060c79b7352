//! `reshape-to-bitcast`, written outside the crate with its public API only: after layout
//! assignment, a `reshape` or `transpose` whose layouts, tiles included, keep every
//! element's bytes in place becomes a `bitcast`. XLA's `AlgebraicSimplifier` does the same
//! with `ShapeUtil::ReshapeIsBitcast` and `TransposeIsBitcast`, which ignore tiles; the
//! crate's functions of those names in `ir::bitcast` are exact under tiles (and false for
//! dynamic dims, whose sizes are known only at run time). The module's layouts are taken as
//! final, so run it on a module whose layouts were assigned (by XLA, or by `hlo-layout
//! assign`).
//!
//! ```text
//! cargo run --example reshape_to_bitcast -- module.hlo
//! ```

use hlo_layout::ir::bitcast::{reshape_is_bitcast, transpose_is_bitcast};
use hlo_layout::ir::{build, ArrayShape, Computation, InstrId, Module, Opcode};
use hlo_layout::pass::{rewrite_each, Changed, Pass, PassContext, PassError, Pipeline};
use hlo_layout::pass::{PipelineError, PipelineOptions, RunReport};
use hlo_layout::verify::VerifyOptions;

#[path = "support/mod.rs"]
mod support;

pub struct ReshapeToBitcast;

impl Pass for ReshapeToBitcast {
    fn name(&self) -> &'static str {
        "reshape-to-bitcast"
    }

    fn description(&self) -> &'static str {
        "Makes each reshape or transpose that moves no byte under its tiled layouts a bitcast."
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        rewrite_each(module, |computation, id| {
            let Some((operand, shape)) = bitcast_of(computation, id) else {
                return Ok(false);
            };
            // The bitcast keeps only what XLA's `SetupDerivedInstruction` carries over
            // (metadata, sharding, frontend attributes), not `dimensions`.
            let new = build::bitcast(computation, operand, shape)?;
            computation.replace_with_new(id, new.instruction, &new.operands)?;
            cx.count("bitcasts made", 1);
            Ok(true)
        })
    }
}

/// The operand and result shape of `id` when it is a reshape or transpose that moves no
/// byte.
fn bitcast_of(computation: &Computation, id: InstrId) -> Option<(InstrId, ArrayShape)> {
    let instruction = computation.instruction(id);
    let &[operand] = computation.operands(id).as_slice() else {
        return None;
    };
    // A compact tuple-element operand (`t#0`) has a tuple shape, and is left alone.
    let from = computation.instruction(operand).shape.as_array()?;
    let to = instruction.shape.as_array()?;
    let moves_nothing = match (&instruction.opcode, instruction.dimensions()) {
        (Opcode::Reshape, _) => reshape_is_bitcast(from, to),
        (Opcode::Transpose, Some(permutation)) => transpose_is_bitcast(from, to, &permutation),
        _ => false,
    };
    moves_nothing.then(|| (operand, to.clone()))
}

/// Runs `reshape-to-bitcast` on `module`, verified with layouts before and after.
pub fn run_on(module: &mut Module) -> Result<RunReport, PipelineError> {
    let options = PipelineOptions {
        verify: VerifyOptions {
            layout_sensitive: true,
        },
        ..PipelineOptions::default()
    };
    let mut pipeline = Pipeline::with_options("reshape-to-bitcast", options);
    pipeline.add(ReshapeToBitcast);
    pipeline.run(module)
}

/// Parses `text`, runs `reshape-to-bitcast` and returns the module as text.
pub fn run(text: &str) -> Result<String, String> {
    let mut module = hlo_layout::parse_module(text).map_err(|e| format!("{e:?}"))?;
    run_on(&mut module).map_err(|e| e.to_string())?;
    Ok(hlo_layout::print::print_ir_module(&module))
}

fn main() -> std::process::ExitCode {
    support::main_on_file("reshape_to_bitcast", run)
}
