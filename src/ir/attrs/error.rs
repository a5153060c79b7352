//! Why an attribute value could not be read: [`AttrError`].
//!
//! Invariant: an error carries the text that was wrong, never a span; the caller knows
//! where the text came from and adds one.

/// Why an attribute value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttrError {
    /// Text where an integer should be that is not one.
    #[error("`{text}` is not an integer")]
    NotAnInteger {
        /// The text.
        text: String,
    },
    /// An integer outside `i64`.
    #[error("`{text}` does not fit in a 64-bit signed integer")]
    IntegerOverflow {
        /// The integer as written.
        text: String,
    },
    /// A window field XLA does not know.
    #[error("unknown window field `{field}`; expected size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal")]
    UnknownWindowField {
        /// The field's name.
        field: String,
    },
    /// A window field written twice.
    #[error("window field `{field}` is given twice")]
    DuplicateWindowField {
        /// The field's name.
        field: String,
    },
    /// A window without `size`, which fixes its rank.
    #[error("a window needs a `size` field")]
    MissingWindowSize,
    /// A window field with another number of dims than `size`.
    #[error("window field `{field}` has {found} dimensions but `size` has {expected}")]
    WindowRankMismatch {
        /// The field's name.
        field: String,
        /// The dims `size` has.
        expected: usize,
        /// The dims the field has.
        found: usize,
    },
    /// A window's `pad` that is not `low_high` per dim.
    #[error("window padding `{text}` must be low_high for every dimension, as in `0_1x1_0`")]
    BadWindowPadding {
        /// The padding as written.
        text: String,
    },
    /// A `padding` that is not `low_high` or `low_high_interior` per dim.
    #[error("padding `{text}` must be low_high or low_high_interior for every dimension, as in `1_1x0_0_1`")]
    BadPadding {
        /// The padding as written.
        text: String,
    },
    /// A `slice` that is not a list of `[start:limit]` or `[start:limit:stride]` ranges.
    #[error("slice `{text}` must be a list of [start:limit] or [start:limit:stride] ranges, as in `{{[0:2], [1:3]}}`")]
    BadSlice {
        /// The slice as written.
        text: String,
    },
    /// Convolution dim labels that XLA cannot read.
    #[error("dim labels `{text}`: {reason}")]
    BadDimLabels {
        /// The labels as written.
        text: String,
        /// What is wrong with them.
        reason: String,
    },
}
