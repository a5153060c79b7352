//! `verify`: runs the verifier and fails the pipeline when the module has a problem; it
//! never changes the module. With `verify{layout-sensitive}` it also checks layouts: a
//! bitcast keeps the physical byte size, and ops that cannot change layout keep their
//! operands' layout.
//!
//! A pipeline already verifies after every pass that changes the module; `verify` is for
//! checking the input or a point of the pipeline explicitly, and for the stricter layout
//! checks:
//!
//! ```text
//! hlo-layout opt module.hlo --passes 'simplify-layout-ops,verify{layout-sensitive}'
//! ```
//!
//! Before and after (unchanged, or an error naming `verify`):
//!
//! ```text
//! ENTRY e {
//!   %p = f32[8,128]{1,0} parameter(0)
//!   ROOT %b = f32[1024]{0} bitcast(%p)
//! }
//! ```

use crate::ir::Module;
use crate::pass::{Changed, Pass, PassContext, PassError};
use crate::verify::verify;

/// The pass's name in `--passes`.
pub const NAME: &str = "verify";
/// What `hlo-layout passes` says the pass does.
pub const DESCRIPTION: &str =
    "Runs the verifier and fails on any problem; `verify{layout-sensitive}` also checks layouts.";
/// The flags the pass takes, each with what it does.
pub const FLAGS: &[(&str, &str)] = &[(
    "layout-sensitive",
    "also check bitcast byte sizes and layout-preserving ops",
)];

/// The `verify` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Verify {
    /// Also check layouts, as [`crate::verify::VerifyOptions::layout_sensitive`] does.
    pub layout_sensitive: bool,
}

pub(crate) fn create(flags: &[&'static str]) -> Box<dyn Pass> {
    Box::new(Verify {
        layout_sensitive: flags.contains(&"layout-sensitive"),
    })
}

impl Pass for Verify {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        let mut options = cx.verify;
        options.layout_sensitive |= self.layout_sensitive;
        verify(module, &options).map_err(|errors| PassError::Verify { errors })?;
        Ok(Changed::NO)
    }
}
