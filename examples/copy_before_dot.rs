//! `copy-before-dot`, written outside the crate with its public API only: a dot whose lhs
//! contracting dim is not the minor-most dim of the lhs's layout gets a `copy` of its lhs
//! with that dim made minor-most, so the dot reads the contracted elements contiguously.
//!
//! The copy's layout is the lhs's with the contracting dim moved to the front of
//! `minor_to_major`, the other dims in their order. When the lhs is tiled, the copy takes
//! the tiles the pass's target gives that physical shape (tpu-v5e by default, the
//! `layout-assignment` default); an untiled lhs gives an untiled copy. A dot that contracts
//! several lhs dims is left alone. Each dot gets its own copy.
//!
//! ```text
//! cargo run --example copy_before_dot -- module.hlo
//! ```

use hlo_layout::ir::pattern::{any, op};
use hlo_layout::ir::{build, Computation, InstrId, Layout, Module, Opcode, Target};
use hlo_layout::pass::{rewrite_each, Changed, Pass, PassContext, PassError, Pipeline};
use hlo_layout::pass::{PipelineError, PipelineOptions, RunReport};
use hlo_layout::verify::VerifyOptions;

#[path = "support/mod.rs"]
mod support;

pub struct CopyBeforeDot {
    /// Whose tiles a copy of a tiled lhs takes.
    pub target: Target,
}

impl Pass for CopyBeforeDot {
    fn name(&self) -> &'static str {
        "copy-before-dot"
    }

    fn description(&self) -> &'static str {
        "Copies a dot's lhs into a layout whose minor-most dim is the contracting dim."
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        let dot_of_lhs = op(Opcode::Dot).capture().with_operands([any().capture()]);
        rewrite_each(module, |computation, id| {
            let Some(&[dot, lhs]) = dot_of_lhs.matches(computation, id).as_deref() else {
                return Ok(false);
            };
            let Some(layout) = contracting_minor(computation, dot, lhs, &self.target) else {
                return Ok(false);
            };
            let copy = build::copy(computation, lhs, Some(layout))?;
            let copy = computation.insert_before(dot, copy.instruction, &copy.operands)?;
            computation.replace_operand(dot, 0, copy)?;
            cx.count("copies inserted", 1);
            Ok(true)
        })
    }
}

/// The layout of `lhs` with the one contracting dim of `dot` moved minor-most, tiled for
/// `target` when `lhs` is tiled; `None` when that dim is minor-most already.
fn contracting_minor(
    c: &Computation,
    dot: InstrId,
    lhs: InstrId,
    target: &Target,
) -> Option<Layout> {
    let numbers = c.instruction(dot).dot_dimension_numbers()?;
    let &[contracting] = numbers.lhs_contracting.as_slice() else {
        return None;
    };
    // A compact tuple-element operand (`t#0`) has a tuple shape, and is left alone.
    let mut array = c.instruction(lhs).shape.as_array()?.clone();
    let layout = array.layout_or_default().into_owned();
    if layout.minor_to_major.first() == Some(&contracting) {
        return None;
    }
    let tiled = !layout.tiles.is_empty();
    array.layout = Some(layout.move_dim_to_minor(contracting));
    (if tiled { target.tile(array) } else { array }).layout
}

/// Runs `copy-before-dot` for tpu-v5e on `module`, verified with layouts before and after.
pub fn run_on(module: &mut Module) -> Result<RunReport, PipelineError> {
    let options = PipelineOptions {
        verify: VerifyOptions {
            layout_sensitive: true,
        },
        ..PipelineOptions::default()
    };
    let mut pipeline = Pipeline::with_options("copy-before-dot", options);
    pipeline.add(CopyBeforeDot {
        target: Target::default_tpu(),
    });
    pipeline.run(module)
}

/// Parses `text`, runs `copy-before-dot` and returns the module as text.
pub fn run(text: &str) -> Result<String, String> {
    let mut module = hlo_layout::parse_module(text).map_err(|e| format!("{e:?}"))?;
    run_on(&mut module).map_err(|e| e.to_string())?;
    Ok(hlo_layout::print::print_ir_module(&module))
}

fn main() -> std::process::ExitCode {
    support::main_on_file("copy_before_dot", run)
}
