//! `layout-assignment`: gives every array a layout for a target and inserts `bitcast` or
//! `copy` where a producer's layout differs from what its user needs. The rules are those of
//! [`crate::assign`]; this wraps them as a pass, e.g.
//! `--passes layout-assignment{tpu-v4},simplify-layout-ops,dce,verify{layout-sensitive}`.
//! The flag `auto` lets it choose the entry computation's layouts too
//! (`layout-assignment{tpu-v5e,auto}`).
//!
//! Before:
//! ```text
//! ENTRY main {
//!   p = f32[16,128]{1,0} parameter(0)
//!   ROOT r = f32[2,8,128]{2,1,0} reshape(p)
//! }
//! ```
//! After (`tpu-v5e`, the default):
//! ```text
//! ENTRY main {
//!   p = f32[16,128]{1,0:T(8,128)} parameter(0)
//!   ROOT r = f32[2,8,128]{2,1,0:T(8,128)} bitcast(p)
//! }
//! ```

use crate::assign::{assign_layouts_with, AssignOptions, EntryLayouts};
use crate::ir::target::TARGET_NAMES;
use crate::ir::{Module, Target};
use crate::pass::{Changed, Pass, PassContext, PassError};

/// The pass's name in `--passes`.
pub const NAME: &str = "layout-assignment";
/// What `hlo-layout passes` says the pass does.
pub const DESCRIPTION: &str = "Assigns TPU (default tpu-v5e) or CPU layouts with bitcast or copy where layouts differ; `layout-assignment{tpu-v4}` picks the target, `{auto}` chooses the entry layouts too.";
/// The flags the pass takes, each with what it does: a target's name, or `auto`.
pub const FLAGS: &[(&str, &str)] = &[
    (TARGET_NAMES[0], "TPU v5e tiles (the default)"),
    (TARGET_NAMES[1], "TPU v4 tiles"),
    (TARGET_NAMES[2], "TPU v3 tiles (minimum tiles doubled)"),
    (TARGET_NAMES[3], "TPU v6e tiles"),
    (
        TARGET_NAMES[4],
        "untiled descending layouts, as XLA's CPU backend",
    ),
    (
        "auto",
        "choose the entry parameter and result layouts too (JAX's Layout.AUTO)",
    ),
];

/// The `layout-assignment` pass: [`crate::assign::assign_layouts_with`] as a pass.
pub struct LayoutAssignment {
    /// The target whose tiles the layouts take.
    pub target: Target,
    /// Whether the entry's layouts are chosen too, and how the rest are.
    pub options: AssignOptions,
}

pub(crate) fn create(flags: &[&'static str]) -> Box<dyn Pass> {
    let target = flags
        .iter()
        .find_map(|flag| Target::from_name(flag))
        .unwrap_or_else(Target::default_tpu);
    let entry_layouts = if flags.contains(&"auto") {
        EntryLayouts::Auto
    } else {
        EntryLayouts::Given
    };
    Box::new(LayoutAssignment {
        target,
        options: AssignOptions {
            entry_layouts,
            ..AssignOptions::default()
        },
    })
}

impl Pass for LayoutAssignment {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        // A digest of the text rather than the text: a large module's text is as large as
        // its input, and the pass already holds two modules.
        let before = crate::print::ir_module_digest(module);
        let report = assign_layouts_with(module, &self.target, &self.options)
            .map_err(|e| PassError::message(e.to_string()))?;
        cx.count("copies inserted", report.copies_inserted as u64);
        cx.count("bytes copies move", report.copy_bytes.max(0) as u64);
        cx.count(
            "bitcasts",
            (report.bitcasts_inserted + report.bitcasts_from_reshapes) as u64,
        );
        if report.copies_inserted > 0 {
            cx.warn(format!(
                "{NAME}: {} copies move {} bytes",
                report.copies_inserted, report.copy_bytes
            ));
        }
        Ok(Changed(crate::print::ir_module_digest(module) != before))
    }
}
