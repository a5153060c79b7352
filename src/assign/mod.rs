//! TPU layout assignment: a layout (minor_to_major and tiles) on every array, with `bitcast`
//! or `copy` wherever a producer's layout differs from what its user needs.
//!
//! The rules (docs/tiled-layouts.md §9; XLA's own in §8, the TPU tiles in §6):
//! - Entry parameters keep the layout the module gives them (`entry_computation_layout` or
//!   the parameter's own); a layout without tiles fixes minor_to_major only and the target
//!   supplies the tiles, as a TPU compiler does. A given result layout is enforced with a
//!   copy at the root. With [`EntryLayouts::Auto`] the pass chooses them like other arrays.
//! - Every array the pass is free to lay out gets the minor_to_major that costs least in the
//!   model of [`cost`] (padding, bytes moved, layouts that dots and convolutions read),
//!   chosen per group of arrays that must share a layout (`choose.rs`). Ops that cannot change
//!   layout get their operands of equal rank converted to their layout.
//! - Called computations (call, fusion, while body and condition, conditional branches) are
//!   assigned from their call site's operand layouts; a while body's root is converted to its
//!   parameter's layout, so all five while positions agree, tiles included; conditional
//!   branches are converted to the first branch's result.
//! - Tiles come from the [`Target`] for each array's physical shape.
//! - Conversions are `bitcast` only when every element keeps its physical bytes (the exact
//!   predicate of `ir::bitcast`), `copy` otherwise. Reshapes and transposes that are
//!   physically identical become bitcasts.
//! - [`Policy::Descending`] keeps the rule from before the pass chose (descending layouts,
//!   size-1 dims most-major, ops that cannot change layout following their first operand);
//!   under [`Policy::MinimizeCost`] it is assigned too, and kept if it costs less.
//!
//! Before (JAX, default layouts):
//! ```text
//! ENTRY main {
//!   p = bf16[8,128]{1,0} parameter(0)
//!   r = bf16[8,1,128]{2,1,0} reshape(p)
//!   ROOT n = bf16[8,1,128]{2,1,0} negate(r)
//! }
//! ```
//! After (`tpu-v5e`): the size-1 dim goes most-major and the reshape becomes a bitcast.
//! ```text
//! ENTRY main {
//!   p = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)
//!   r = bf16[8,1,128]{2,0,1:T(8,128)(2,1)} bitcast(p)
//!   ROOT n = bf16[8,1,128]{2,0,1:T(8,128)(2,1)} negate(r)
//! }
//! ```

mod assigner;
mod choose;
pub mod cost;
mod entry;
mod groups;
mod hints;
mod options;
mod prepare;
pub mod quality;
pub mod report;
mod snapshot;

use assigner::{assign_once, assign_once_reporting, Reported};
pub use cost::ModuleCost;
pub use options::{
    AssignAgainFailure, AssignError, AssignFailure, AssignOptions, EntryLayouts, Policy,
};
pub use report::{AssignReport, PaddingOffender};
use snapshot::Snapshot;

use crate::ir::module::Module;
use crate::ir::Target;

/// Assigns layouts to every array of `module` for `target`, in place, with the entry
/// layouts given and the cheapest layouts chosen everywhere else.
pub fn assign_layouts(module: &mut Module, target: &Target) -> Result<AssignReport, AssignError> {
    assign_layouts_with(module, target, &AssignOptions::default())
}

/// Assigns layouts to every array of `module` for `target`, in place.
///
/// Under [`Policy::MinimizeCost`] each group of arrays is decided when assignment reaches it,
/// from what is known then, so a constraint far below (a given result layout) can make the
/// whole cost more than the descending rule's. The descending rule is then assigned too and
/// kept if it costs less, so the result never costs more than it
/// ([`AssignReport::kept_descending`] says which was kept). The input is kept meanwhile as
/// its printed text, not as a copy of the module, and read back when needed.
pub fn assign_layouts_with(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
) -> Result<AssignReport, AssignError> {
    if options.policy == Policy::Descending {
        return assign_once(module, target, options);
    }
    // The input kept as text, not as a copy of the module: a third of its size.
    let snapshot = Snapshot::take(module);
    assign_twice(module, target, options, |module| snapshot.restore(module)).map_err(|failure| {
        match failure {
            Twice::Assign(error) | Twice::Input(error) => error,
        }
    })
}

/// Why [`assign_twice`] failed: assignment did, or getting the input back did.
enum Twice<E> {
    Assign(AssignError),
    Input(E),
}

/// Assigns the chosen layouts, and the descending rule's too, and keeps those that cost less
/// (see [`assign_layouts_with`]), with one module held at a time: the descending rule first,
/// for its cost alone; then `input_again` puts the input back in `module` and the chosen
/// layouts are assigned; then, only if the descending rule's cost less, the input is put
/// back again and they are assigned once more. The errors are those of assigning the chosen
/// layouts first, then the descending rule's.
fn assign_twice<E>(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
    mut input_again: impl FnMut(&mut Module) -> Result<(), E>,
) -> Result<AssignReport, Twice<E>> {
    let descending_options = AssignOptions {
        policy: Policy::Descending,
        ..*options
    };
    let descending = assign_once_reporting(module, target, &descending_options, Reported::CostOnly);
    input_again(module).map_err(Twice::Input)?;
    let chosen = assign_once(module, target, options);
    match (chosen, descending) {
        (Err(error), _) | (Ok(_), Err(error)) => Err(Twice::Assign(error)),
        (Ok(mut chosen), Ok(descending)) => {
            if descending.cost.total() < chosen.cost.total() {
                input_again(module).map_err(Twice::Input)?;
                let mut kept =
                    assign_once(module, target, &descending_options).map_err(Twice::Assign)?;
                kept.kept_descending = true;
                kept.descending_cost = Some(kept.cost);
                Ok(kept)
            } else {
                chosen.descending_cost = Some(descending.cost);
                Ok(chosen)
            }
        }
    }
}

/// [`assign_verified`] for a caller that can lower its input again, from its text, instead
/// of keeping it: `module` is the input as first lowered, and `again` lowers the same input
/// anew each time it is called (once, twice when the descending rule wins). Never more than
/// one module is held, and no printed copy of it either; the result, the report and the
/// errors are the same as [`assign_verified`]'s.
pub fn assign_verified_lowering_again<E>(
    mut module: Module,
    mut again: impl FnMut() -> Result<Module, E>,
    target: &Target,
    options: &AssignOptions,
) -> Result<(Module, AssignReport), AssignAgainFailure<E>> {
    use AssignAgainFailure::{Again, Assign};
    verify_input(&module).map_err(Assign)?;
    let report = if options.policy == Policy::Descending {
        assign_once(&mut module, target, options).map_err(|e| Assign(AssignFailure::Assign(e)))?
    } else {
        let lower_again = |module: &mut Module| {
            // The module assigned is freed, and its memory given back, before the input is
            // lowered again: freed on another thread while lowering filled, much of it was
            // still held when the new module was whole.
            drop(snapshot::take_module(module));
            crate::memory::release_freed_memory();
            *module = again()?;
            Ok(())
        };
        assign_twice(&mut module, target, options, lower_again).map_err(
            |failure| match failure {
                Twice::Assign(error) => Assign(AssignFailure::Assign(error)),
                Twice::Input(error) => Again(error),
            },
        )?
    };
    verify_output(&module).map_err(Assign)?;
    Ok((module, report))
}

/// What `hlo-layout assign` does to a parsed module: verifies it, assigns layouts with
/// [`assign_layouts_with`], and verifies the result in layout-sensitive mode.
pub fn assign_verified(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
) -> Result<AssignReport, AssignFailure> {
    verify_input(module)?;
    let report = assign_layouts_with(module, target, options).map_err(AssignFailure::Assign)?;
    verify_output(module)?;
    Ok(report)
}

/// The input must verify as `check` verifies it.
fn verify_input(module: &Module) -> Result<(), AssignFailure> {
    crate::verify::verify(module, &crate::verify::VerifyOptions::default())
        .map_err(AssignFailure::Input)
}

/// The assigned module must verify with its layouts; if not, the pass has a bug.
fn verify_output(module: &Module) -> Result<(), AssignFailure> {
    let options = crate::verify::VerifyOptions {
        layout_sensitive: true,
    };
    crate::verify::verify(module, &options).map_err(AssignFailure::Output)
}
