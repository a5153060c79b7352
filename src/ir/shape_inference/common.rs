//! What every family of shape rules shares: the error type, checked arithmetic on dims, and
//! the checks and messages XLA's `ShapeInference` repeats.

use std::fmt::{Display, Formatter};

use crate::ir::attrs::Window;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim, Shape};

/// Why a shape cannot be inferred; the message names the op and the offending values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The operands or attributes break one of the op's rules.
    #[error("{op}: {message}")]
    Invalid {
        /// The op's name.
        op: String,
        /// The rule broken, with the values that break it.
        message: String,
    },
    /// A dimension number names no dimension of the array it refers to.
    #[error("{op}: {what} {dim} is out of range for {array} of rank {rank}")]
    DimOutOfRange {
        /// The op's name.
        op: String,
        /// What gave the number: an attribute, `result dimension`.
        what: String,
        /// The number.
        dim: i64,
        /// The array it refers to, described.
        array: String,
        /// That array's rank.
        rank: usize,
    },
    /// Arithmetic on dims left the range of a 64-bit integer.
    #[error("{op}: {what} overflows a 64-bit integer")]
    Overflow {
        /// The op's name.
        op: String,
        /// What overflowed.
        what: String,
    },
}

pub(super) fn invalid(op: &str, message: impl Into<String>) -> ShapeError {
    ShapeError::Invalid {
        op: op.into(),
        message: message.into(),
    }
}

pub(super) fn overflow(op: &str, what: impl Into<String>) -> ShapeError {
    ShapeError::Overflow {
        op: op.into(),
        what: what.into(),
    }
}

/// Turns a dimension number into an index of an array of `rank` dims.
pub(super) fn dim_index(
    op: &str,
    what: impl Display,
    array: impl Display,
    dim: i64,
    rank: usize,
) -> Result<usize, ShapeError> {
    match usize::try_from(dim) {
        Ok(index) if index < rank => Ok(index),
        _ => Err(ShapeError::DimOutOfRange {
            op: op.into(),
            what: what.to_string(),
            dim,
            array: array.to_string(),
            rank,
        }),
    }
}

pub(super) fn checked_add(op: &str, what: impl Display, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_add(b)
        .ok_or_else(|| overflow(op, what.to_string()))
}

pub(super) fn checked_mul(op: &str, what: impl Display, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_mul(b)
        .ok_or_else(|| overflow(op, what.to_string()))
}

/// Message text written only when there is a message: the checks pass on every valid
/// instruction, and formatting their messages up front took a tenth of verifying.
#[derive(Clone, Copy)]
pub(super) struct Lazy<F>(pub(super) F);

impl<F: Fn(&mut Formatter<'_>) -> std::fmt::Result> Display for Lazy<F> {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        (self.0)(f)
    }
}

/// `{what} {shape}`, the shape as [`human`] writes it, for a message.
pub(super) fn described<'a>(what: &'a str, shape: &'a ArrayShape) -> impl Display + Copy + 'a {
    Lazy(move |f: &mut Formatter<'_>| write!(f, "{what} {}", human(shape)))
}

/// Builds a dim from XLA's view of it: a size (`None` when unbounded) and a dynamic flag.
pub(super) fn dim_from(size: Option<i64>, dynamic: bool) -> Dim {
    match size {
        None => Dim::Unbounded,
        Some(n) if dynamic => Dim::Bounded(n),
        Some(n) => Dim::Static(n),
    }
}

/// XLA's `CompatibleDimensionSizes`: equal sizes, or at least one unbounded.
pub(super) fn compatible(a: Dim, b: Dim) -> bool {
    match (a.extent(), b.extent()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// XLA's `SameDimensions`: equal ranks and compatible sizes, dynamism ignored.
pub(super) fn same_dims(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.rank() == b.rank() && a.dims.iter().zip(&b.dims).all(|(&x, &y)| compatible(x, y))
}

/// A dim's size for a message: its number, or `?`.
pub(super) fn show_size(dim: Dim) -> String {
    dim.extent().map_or_else(|| "?".into(), |n| n.to_string())
}

/// A shape without its layout, as XLA's `HumanString` prints it in messages.
pub(super) fn human(shape: &ArrayShape) -> String {
    array(shape.element_type, shape.dims.clone()).to_string()
}

pub(super) fn array(element_type: PrimitiveType, dims: Vec<Dim>) -> ArrayShape {
    ArrayShape {
        element_type,
        dims,
        layout: None,
    }
}

/// The same shape with every layout removed, since layouts are not inferred.
pub(super) fn without_layouts(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(array(a.element_type, a.dims.clone())),
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(without_layouts).collect()),
        Shape::Token => Shape::Token,
        Shape::Opaque => Shape::Opaque,
        Shape::Buffer(a) => Shape::Buffer(array(a.element_type, a.dims.clone())),
    }
}

/// XLA's `ExpectArray`, plus the sanity of sizes that a hand-built shape may lack.
pub(super) fn expect_array(
    op: &str,
    what: impl Display,
    shape: &ArrayShape,
) -> Result<(), ShapeError> {
    if !shape.element_type.is_array_type() {
        return Err(invalid(
            op,
            format!("{what} must be an array, got {}", human(shape)),
        ));
    }
    if shape.dims.iter().any(|d| d.extent().is_some_and(|n| n < 0)) {
        return Err(invalid(
            op,
            format!("{what} {} has a negative dimension size", human(shape)),
        ));
    }
    Ok(())
}

pub(super) fn is_signed_integral(ty: PrimitiveType) -> bool {
    use PrimitiveType::*;
    matches!(ty, S1 | S2 | S4 | S8 | S16 | S32 | S64)
}

/// XLA's `ElementIsSigned`: signed integers and floating-point types.
pub(super) fn is_signed(ty: PrimitiveType) -> bool {
    is_signed_integral(ty) || ty.is_floating_point()
}

/// XLA's `SameElementTypeIgnoringFpPrecision`: any two floating-point types match.
pub(super) fn same_type_ignoring_fp_precision(a: PrimitiveType, b: PrimitiveType) -> bool {
    (a.is_floating_point() && b.is_floating_point()) || a == b
}

/// The real type of a complex type's components.
pub(super) fn complex_component(ty: PrimitiveType) -> Option<PrimitiveType> {
    match ty {
        PrimitiveType::C64 => Some(PrimitiveType::F32),
        PrimitiveType::C128 => Some(PrimitiveType::F64),
        _ => None,
    }
}

/// A floating-point type's range and precision as `std::numeric_limits` gives them:
/// (`max_exponent`, `digits`).
pub(super) fn fp_range_and_precision(ty: PrimitiveType) -> Option<(i32, i32)> {
    use PrimitiveType::*;
    Some(match ty {
        F16 => (16, 11),
        Bf16 => (128, 8),
        F32 => (128, 24),
        F64 => (1024, 53),
        F8E5m2 => (16, 3),
        F8E4m3 => (8, 4),
        F8E4m3fn => (9, 4),
        F8E4m3b11fnuz => (5, 4),
        F8E3m4 => (4, 5),
        F8E5m2fnuz => (16, 3),
        F8E4m3fnuz => (8, 4),
        F8E8m0fnu => (128, 1),
        F6E2m3fn => (3, 4),
        F6E3m2fn => (5, 3),
        F4E2m1fn => (3, 2),
        _ => return None,
    })
}

/// XLA's `HigherPrecisionType`: the type of a mixed-precision result. It prefers complex,
/// then more range, then more precision, then more bits, then signed. Types that tie (only
/// distinct fp8 types of equal range and precision do) make XLA abort; `a` is returned.
pub fn higher_precision_type(a: PrimitiveType, b: PrimitiveType) -> PrimitiveType {
    let rank = |ty: PrimitiveType| {
        let component = complex_component(ty).unwrap_or(ty);
        let (range, precision) = fp_range_and_precision(component).unwrap_or((-1, -1));
        (
            ty.is_complex(),
            range,
            precision,
            component.bit_width(),
            is_signed_integral(component),
        )
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The width `bitcast-convert` reinterprets: a pred is stored in a byte.
pub(super) fn storage_bit_width(ty: PrimitiveType) -> u32 {
    if ty == PrimitiveType::Pred {
        8
    } else {
        ty.bit_width()
    }
}

/// Checks that `values` ascend strictly: XLA's "sorted" and "must not repeat" rules.
pub(super) fn check_ascending(op: &str, name: &str, values: &[i64]) -> Result<(), ShapeError> {
    for pair in values.windows(2) {
        let [a, b] = pair else { continue };
        if a > b {
            return Err(invalid(
                op,
                format!("{name} must be sorted, got {{{}}}", join(values)),
            ));
        }
        if a == b {
            return Err(repeated(op, name, values));
        }
    }
    Ok(())
}

/// The error of a dimension list that names a dimension twice.
fn repeated(op: &str, name: &str, values: &[i64]) -> ShapeError {
    invalid(
        op,
        format!(
            "{name} must not repeat a dimension, got {{{}}}",
            join(values)
        ),
    )
}

/// Checks that no value appears twice, in any order.
pub(super) fn check_unique(op: &str, name: &str, values: &[i64]) -> Result<(), ShapeError> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted
        .windows(2)
        .any(|pair| matches!(pair, [a, b] if a == b))
    {
        return Err(repeated(op, name, values));
    }
    Ok(())
}

/// Checks that every value names a dim of an array of `rank` dims.
pub(super) fn check_in_range(
    op: &str,
    what: impl Display + Copy,
    array: impl Display + Copy,
    values: &[i64],
    rank: usize,
) -> Result<(), ShapeError> {
    values
        .iter()
        .try_for_each(|&d| dim_index(op, what, array, d, rank).map(|_| ()))
}

pub(super) fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn type_error(op: &str, expected: &str, ty: PrimitiveType) -> ShapeError {
    invalid(op, format!("expected {expected} element type, got {ty}"))
}

/// One result as an array, several as a tuple, as variadic reductions return them.
pub(super) fn one_or_tuple(mut results: Vec<ArrayShape>) -> Shape {
    if results.len() == 1 {
        if let Some(only) = results.pop() {
            return Shape::Array(only);
        }
    }
    Shape::Tuple(results.into_iter().map(Shape::Array).collect())
}

/// XLA's `InferWindowOutputShape` on the dims of a base: each output dim is the number of
/// window positions in the dilated, padded base; it keeps the base dim's dynamism, and an
/// unbounded base dim gives an unbounded output dim.
pub(super) fn window_output_dims(
    op: &str,
    base: &[Dim],
    window: &Window,
) -> Result<Vec<Dim>, ShapeError> {
    if window.rank() != base.len() {
        return Err(invalid(
            op,
            format!(
                "the window has {} dimensions but the base has {}",
                window.rank(),
                base.len()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(base.len());
    for (i, (w, &dim)) in window.dimensions.iter().zip(base).enumerate() {
        if w.size <= 0 {
            return Err(invalid(
                op,
                format!("window dimension {i} has non-positive size {}", w.size),
            ));
        }
        if w.stride <= 0 {
            return Err(invalid(
                op,
                format!("window dimension {i} has non-positive stride {}", w.stride),
            ));
        }
        if w.base_dilation < 1 {
            return Err(invalid(
                op,
                format!(
                    "window dimension {i} has non-positive lhs dilation {}",
                    w.base_dilation
                ),
            ));
        }
        if w.window_dilation < 1 {
            return Err(invalid(
                op,
                format!(
                    "window dimension {i} has non-positive rhs dilation {}",
                    w.window_dilation
                ),
            ));
        }
        let Some(size) = dim.extent() else {
            dims.push(Dim::Unbounded);
            continue;
        };
        let what =
            Lazy(move |f: &mut Formatter<'_>| write!(f, "the windowed size of dimension {i}"));
        let dilated_base = if size == 0 {
            0
        } else {
            checked_add(
                op,
                what,
                checked_mul(op, what, size - 1, w.base_dilation)?,
                1,
            )?
        };
        let padded = checked_add(
            op,
            what,
            checked_add(op, what, dilated_base, w.padding_low)?,
            w.padding_high,
        )?;
        if padded < 0 {
            return Err(invalid(
                op,
                format!("padding makes base dimension {i} negative ({padded})"),
            ));
        }
        let dilated_window = checked_add(
            op,
            what,
            checked_mul(op, what, w.size - 1, w.window_dilation)?,
            1,
        )?;
        let output = if padded == 0 || dilated_window > padded {
            0
        } else {
            (padded - dilated_window) / w.stride + 1
        };
        dims.push(dim_from(Some(output), dim.is_dynamic()));
    }
    Ok(dims)
}
