//! What a pass is and what it works with: the [`Pass`] trait (XLA's `HloPassInterface`),
//! [`Changed`], the [`PassContext`] a pipeline shares with its passes (warnings, statistics,
//! the verifier's options), [`PassError`], and [`rewrite_each`], the visitor most passes are
//! written with.

use crate::ir::module::EditError;
use crate::ir::{Computation, InstrId, Module};
use crate::verify::{VerifyError, VerifyOptions};

/// Whether a pass changed the module. The pipeline verifies only after a change, so a pass
/// that edits the module must say so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct Changed(pub bool);

impl Changed {
    /// The pass changed the module.
    pub const YES: Changed = Changed(true);
    /// The pass left the module as it was.
    pub const NO: Changed = Changed(false);
}

impl From<bool> for Changed {
    fn from(changed: bool) -> Changed {
        Changed(changed)
    }
}

impl std::ops::BitOr for Changed {
    type Output = Changed;
    fn bitor(self, other: Changed) -> Changed {
        Changed(self.0 || other.0)
    }
}

impl std::ops::BitOrAssign for Changed {
    fn bitor_assign(&mut self, other: Changed) {
        self.0 |= other.0;
    }
}

/// A transformation over one module. Implementations must leave the module verifiable; the
/// pipeline checks that after every run that returns [`Changed::YES`].
pub trait Pass {
    /// The stable kebab-case name used by `--passes`, dumps and timing (e.g. `dce`).
    fn name(&self) -> &'static str;
    /// One sentence saying what the pass does, for `hlo-layout passes`.
    fn description(&self) -> &'static str;
    /// Runs the pass; returns whether anything changed.
    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError>;
}

/// Offers every instruction of every computation to `rewrite`, in print order (operands
/// before users), as XLA's `DfsHloRewriteVisitor` offers each to its `Handle...` method:
/// `rewrite` edits the computation through its mutation API and says whether it changed
/// anything. Instructions it adds are not offered; ones it removes are skipped.
///
/// ```
/// use hlo_layout::ir::Opcode;
/// use hlo_layout::pass::{rewrite_each, Changed};
///
/// let mut module = hlo_layout::parse_module(
///     "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n",
/// )
/// .unwrap();
/// let changed = rewrite_each(&mut module, |computation, id| {
///     let negate = computation.instruction(id).opcode == Opcode::Negate;
///     if negate {
///         computation.rename(id, "minus")?;
///     }
///     Ok(negate)
/// });
/// assert_eq!(changed, Ok(Changed::YES));
/// assert!(module.entry().find("minus").is_some());
/// ```
pub fn rewrite_each(
    module: &mut Module,
    mut rewrite: impl FnMut(&mut Computation, InstrId) -> Result<bool, PassError>,
) -> Result<Changed, PassError> {
    let mut changed = Changed::NO;
    for computation in module.computations_mut() {
        for id in computation.order().to_vec() {
            if computation.contains(id) {
                changed |= Changed(rewrite(computation, id)?);
            }
        }
    }
    Ok(changed)
}

/// What a pipeline shares with the passes it runs.
#[derive(Clone, Debug, Default)]
pub struct PassContext {
    /// The checks the pipeline's verifier makes; the `verify` pass adds to them.
    pub verify: VerifyOptions,
    warnings: Vec<String>,
    /// The pass being run, whose counters [`PassContext::count`] adds to.
    current: &'static str,
    statistics: Vec<Statistic>,
}

/// A counter a pass keeps (XLA's and LLVM's pass statistics): which pass, what it counts, and
/// the total over every run of that pass in one pipeline run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Statistic {
    /// The pass that keeps the counter.
    pub pass: &'static str,
    /// What it counts, `instructions removed`.
    pub name: &'static str,
    /// The total.
    pub value: u64,
}

impl PassContext {
    /// A context whose verifier makes the checks `verify` asks for, with no warnings or
    /// counters yet.
    pub fn new(verify: VerifyOptions) -> PassContext {
        PassContext {
            verify,
            warnings: Vec::new(),
            current: "",
            statistics: Vec::new(),
        }
    }

    /// Adds `by` to the running pass's counter `name` (e.g. `instructions removed`); the
    /// pipeline's report gives the totals ([`RunReport::statistics`](super::RunReport::statistics)).
    pub fn count(&mut self, name: &'static str, by: u64) {
        let pass = self.current;
        match self
            .statistics
            .iter_mut()
            .find(|s| s.pass == pass && s.name == name)
        {
            Some(statistic) => statistic.value = statistic.value.saturating_add(by),
            None => self.statistics.push(Statistic {
                pass,
                name,
                value: by,
            }),
        }
    }

    /// The counters so far, in the order they were first counted.
    pub fn statistics(&self) -> &[Statistic] {
        &self.statistics
    }

    pub(crate) fn set_current_pass(&mut self, pass: &'static str) {
        self.current = pass;
    }

    pub(crate) fn take_statistics(&mut self) -> Vec<Statistic> {
        std::mem::take(&mut self.statistics)
    }

    /// Records a warning for the caller to show; passes never print.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }

    /// Warnings in the order they were recorded.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub(crate) fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// Why a pass failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PassError {
    /// The pass gave up, saying why.
    #[error("{0}")]
    #[diagnostic(code(hlo::pass::failed))]
    Message(String),
    /// An edit through the mutation API was refused.
    #[error(transparent)]
    #[diagnostic(code(hlo::pass::edit))]
    Edit(#[from] EditError),
    /// A builder could not make an instruction ([`crate::ir::build`]).
    #[error(transparent)]
    #[diagnostic(code(hlo::pass::build))]
    Build(#[from] crate::ir::build::BuildError),
    /// The verifier found problems (what the `verify` pass returns).
    #[error("the module does not verify ({} error{})", errors.len(), plural(errors.len()))]
    #[diagnostic(code(hlo::pass::verify))]
    Verify {
        /// The verifier's errors, in module order.
        #[related]
        errors: Vec<VerifyError>,
    },
}

impl PassError {
    /// A [`PassError::Message`] saying why the pass gave up.
    pub fn message(message: impl Into<String>) -> PassError {
        PassError::Message(message.into())
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
