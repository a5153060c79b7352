//! What a caller chooses and what can go wrong: [`AssignOptions`] ([`EntryLayouts`],
//! [`Policy`]), [`AssignError`] and [`AssignFailure`].

use crate::ir::module::Computation;
use crate::span::Span;

/// Why assignment could not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum AssignError {
    /// Layouts flow from callers into callees, so a call cycle has no order to assign in.
    /// The verifier rejects such modules too; this is for callers that skip it.
    #[error("computation `{computation}` calls itself, directly or through others")]
    #[diagnostic(
        code(hlo::assign::recursion),
        help("HLO computations cannot be recursive; a loop is a `while`")
    )]
    Recursion {
        /// The computation that calls itself.
        computation: String,
        /// Where the computation starts in the text.
        #[label("this computation")]
        span: Span,
    },
    /// A bitcast that is no reshape or transpose (it changes the element type or count)
    /// keeps the layouts it was written with, which must give both sides the same bytes.
    /// (XLA rejects every bitcast that reaches layout assignment.)
    #[error("`{instruction}` in `{computation}` bitcasts {from} to {to}, which differ in bytes")]
    #[diagnostic(
        code(hlo::assign::bitcast),
        help("a bitcast that changes the element type or count keeps its written layouts, so they must give both sides the same padded size; use bitcast-convert to change the type elementwise")
    )]
    Bitcast {
        /// The computation the bitcast is in.
        computation: String,
        /// The bitcast's name.
        instruction: String,
        /// Its operand's shape, layout included.
        from: String,
        /// Its result shape, layout included.
        to: String,
        /// Where the bitcast is written.
        #[label("this bitcast")]
        span: Span,
    },
    /// The input, kept as printed text while the descending rule was assigned, did not read
    /// back as the same module.
    #[error("layout assignment could not read back the module it printed: {message}")]
    #[diagnostic(
        code(hlo::assign::restore),
        help("this is a bug in hlo-layout; `hlo-layout fmt` on the input shows what it prints")
    )]
    Restore {
        /// What went wrong reading it back.
        message: String,
    },
}

impl AssignError {
    pub(super) fn recursion(computation: &Computation) -> AssignError {
        AssignError::Recursion {
            computation: computation.name.to_string(),
            span: computation.span,
        }
    }
}

/// Where the entry computation's parameter and result layouts come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntryLayouts {
    /// As the module gives them (`entry_computation_layout`, else the parameters' own); a
    /// given result layout is enforced with a copy at the root.
    #[default]
    Given,
    /// Chosen by the pass like any other array, as a TPU compiler does for JAX's default
    /// device layouts (`Layout.AUTO`), and written into `entry_computation_layout`.
    Auto,
}

/// How the pass lays out the arrays it is free to lay out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// The layouts that cost least in the model of [`cost`](super::cost): padding plus bytes moved.
    #[default]
    MinimizeCost,
    /// Descending with size-1 dims most-major, ops that cannot change layout following
    /// their first operand, dot and convolution operands copied to descending: the pass's
    /// rule before it chose, kept for comparison (`assign --report`).
    Descending,
}

/// What [`assign_layouts_with`](super::assign_layouts_with) may choose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssignOptions {
    /// Whether the entry's layouts are kept or chosen.
    pub entry_layouts: EntryLayouts,
    /// How the other arrays are laid out.
    pub policy: Policy,
}

/// Why [`assign_verified`](super::assign_verified) gave no module.
#[derive(Debug)]
pub enum AssignFailure {
    /// The input does not verify: bad input, reported as `check` reports it.
    Input(Vec<crate::verify::VerifyError>),
    /// The pass could not assign layouts.
    Assign(AssignError),
    /// The assigned module does not verify in layout-sensitive mode: a bug in the pass.
    Output(Vec<crate::verify::VerifyError>),
}

/// Why [`super::assign_verified_lowering_again`] gave no module: as [`super::assign_verified`], or the
/// caller's own error from lowering the input again.
#[derive(Debug)]
pub enum AssignAgainFailure<E> {
    /// What [`super::assign_verified`] would have failed with.
    Assign(AssignFailure),
    /// The input could not be lowered again (its file changed meanwhile, say).
    Again(E),
}
