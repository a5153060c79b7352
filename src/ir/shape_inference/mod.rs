//! Result shapes of HLO instructions, computed from operand shapes and attributes the way
//! XLA's `ShapeInference` does (and, for the ops it has no rule for in HLO form, the way the
//! HLO verifier checks them).
//!
//! Every function is pure. It returns the element type and dims of the result; layouts are
//! not inferred, so results carry none. Dynamic dims follow XLA: a result dim taken from an
//! operand dim keeps its dynamism, and an unbounded (`?`) dim is compatible with any size.
//! Dimension numbers never count from the end here, as in XLA's attributes; any number out
//! of range, any overflow and any rule XLA enforces is an error value, never a panic.
//!
//! One file per family of ops; `common` holds what they share.

mod common;
mod contraction;
mod elementwise;
mod indexing;
mod movement;
mod reduction;
#[cfg(test)]
mod tests;

pub use common::{higher_precision_type, ShapeError};
pub use contraction::{convolution, dot};
pub use elementwise::{
    binary, bitcast_convert, clamp, convert, copy, reduce_precision, select, stochastic_convert,
    unary,
};
pub use indexing::{dynamic_slice, dynamic_update_slice, gather, scatter};
pub use movement::{
    broadcast, concatenate, get_tuple_element, iota, pad, reshape, reverse, slice, transpose, tuple,
};
pub use reduction::{reduce, reduce_window, sort};
