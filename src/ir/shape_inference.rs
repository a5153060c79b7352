//! Result shapes of HLO instructions, computed from operand shapes and attributes the way
//! XLA's `ShapeInference` does (and, for the ops it has no rule for in HLO form, the way the
//! HLO verifier checks them).
//!
//! Every function is pure. It returns the element type and dims of the result; layouts are
//! not inferred, so results carry none. Dynamic dims follow XLA: a result dim taken from an
//! operand dim keeps its dynamism, and an unbounded (`?`) dim is compatible with any size.
//! Dimension numbers never count from the end here, as in XLA's attributes; any number out
//! of range, any overflow and any rule XLA enforces is an error value, never a panic.

use std::fmt::{Display, Formatter};

use super::attrs::{
    ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers, PaddingConfig,
    ScatterDimensionNumbers, SliceConfig, Window,
};
use super::opcode::Opcode;
use super::primitive::PrimitiveType;
use super::shape::{ArrayShape, Dim, Shape};

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

fn invalid(op: &str, message: impl Into<String>) -> ShapeError {
    ShapeError::Invalid {
        op: op.into(),
        message: message.into(),
    }
}

fn overflow(op: &str, what: impl Into<String>) -> ShapeError {
    ShapeError::Overflow {
        op: op.into(),
        what: what.into(),
    }
}

/// Turns a dimension number into an index of an array of `rank` dims.
fn dim_index(
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

fn checked_add(op: &str, what: impl Display, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_add(b)
        .ok_or_else(|| overflow(op, what.to_string()))
}

fn checked_mul(op: &str, what: impl Display, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_mul(b)
        .ok_or_else(|| overflow(op, what.to_string()))
}

/// Message text written only when there is a message: the checks pass on every valid
/// instruction, and formatting their messages up front took a tenth of verifying.
#[derive(Clone, Copy)]
struct Lazy<F>(F);

impl<F: Fn(&mut Formatter<'_>) -> std::fmt::Result> Display for Lazy<F> {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        (self.0)(f)
    }
}

/// `{what} {shape}`, the shape as [`human`] writes it, for a message.
fn described<'a>(what: &'a str, shape: &'a ArrayShape) -> impl Display + Copy + 'a {
    Lazy(move |f: &mut Formatter<'_>| write!(f, "{what} {}", human(shape)))
}

/// Builds a dim from XLA's view of it: a size (`None` when unbounded) and a dynamic flag.
fn dim_from(size: Option<i64>, dynamic: bool) -> Dim {
    match size {
        None => Dim::Unbounded,
        Some(n) if dynamic => Dim::Bounded(n),
        Some(n) => Dim::Static(n),
    }
}

/// XLA's `CompatibleDimensionSizes`: equal sizes, or at least one unbounded.
fn compatible(a: Dim, b: Dim) -> bool {
    match (a.extent(), b.extent()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// XLA's `SameDimensions`: equal ranks and compatible sizes, dynamism ignored.
fn same_dims(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.rank() == b.rank() && a.dims.iter().zip(&b.dims).all(|(&x, &y)| compatible(x, y))
}

/// A dim's size for a message: its number, or `?`.
fn show_size(dim: Dim) -> String {
    dim.extent().map_or_else(|| "?".into(), |n| n.to_string())
}

/// A shape without its layout, as XLA's `HumanString` prints it in messages.
fn human(shape: &ArrayShape) -> String {
    array(shape.element_type, shape.dims.clone()).to_string()
}

fn array(element_type: PrimitiveType, dims: Vec<Dim>) -> ArrayShape {
    ArrayShape {
        element_type,
        dims,
        layout: None,
    }
}

/// The same shape with every layout removed, since layouts are not inferred.
fn without_layouts(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(array(a.element_type, a.dims.clone())),
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(without_layouts).collect()),
        Shape::Token => Shape::Token,
        Shape::Opaque => Shape::Opaque,
        Shape::Buffer(a) => Shape::Buffer(array(a.element_type, a.dims.clone())),
    }
}

/// XLA's `ExpectArray`, plus the sanity of sizes that a hand-built shape may lack.
fn expect_array(op: &str, what: impl Display, shape: &ArrayShape) -> Result<(), ShapeError> {
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

fn is_signed_integral(ty: PrimitiveType) -> bool {
    use PrimitiveType::*;
    matches!(ty, S1 | S2 | S4 | S8 | S16 | S32 | S64)
}

/// XLA's `ElementIsSigned`: signed integers and floating-point types.
fn is_signed(ty: PrimitiveType) -> bool {
    is_signed_integral(ty) || ty.is_floating_point()
}

/// XLA's `SameElementTypeIgnoringFpPrecision`: any two floating-point types match.
fn same_type_ignoring_fp_precision(a: PrimitiveType, b: PrimitiveType) -> bool {
    (a.is_floating_point() && b.is_floating_point()) || a == b
}

/// The real type of a complex type's components.
fn complex_component(ty: PrimitiveType) -> Option<PrimitiveType> {
    match ty {
        PrimitiveType::C64 => Some(PrimitiveType::F32),
        PrimitiveType::C128 => Some(PrimitiveType::F64),
        _ => None,
    }
}

/// A floating-point type's range and precision as `std::numeric_limits` gives them:
/// (`max_exponent`, `digits`).
fn fp_range_and_precision(ty: PrimitiveType) -> Option<(i32, i32)> {
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
fn storage_bit_width(ty: PrimitiveType) -> u32 {
    if ty == PrimitiveType::Pred {
        8
    } else {
        ty.bit_width()
    }
}

/// Checks that `values` ascend strictly: XLA's "sorted" and "must not repeat" rules.
fn check_ascending(op: &str, name: &str, values: &[i64]) -> Result<(), ShapeError> {
    for pair in values.windows(2) {
        let [a, b] = pair else { continue };
        if a > b {
            return Err(invalid(
                op,
                format!("{name} must be sorted, got {{{}}}", join(values)),
            ));
        }
        if a == b {
            return Err(invalid(
                op,
                format!(
                    "{name} must not repeat a dimension, got {{{}}}",
                    join(values)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that no value appears twice, in any order.
fn check_unique(op: &str, name: &str, values: &[i64]) -> Result<(), ShapeError> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted
        .windows(2)
        .any(|pair| matches!(pair, [a, b] if a == b))
    {
        return Err(invalid(
            op,
            format!(
                "{name} must not repeat a dimension, got {{{}}}",
                join(values)
            ),
        ));
    }
    Ok(())
}

/// Checks that every value names a dim of an array of `rank` dims.
fn check_in_range(
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

fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn type_error(op: &str, expected: &str, ty: PrimitiveType) -> ShapeError {
    invalid(op, format!("expected {expected} element type, got {ty}"))
}

/// Elementwise unary ops (`abs`, `exponential`, `is-finite`, `not`, `copy`, ...): the
/// operand's dims, with the result type XLA gives: `abs`, `real` and `imag` of a complex
/// type give its component type, `is-finite` gives pred, every other op keeps the type.
/// `convert` and `bitcast-convert` need the new type: see [`convert`], [`bitcast_convert`].
pub fn unary(opcode: &Opcode, operand: &ArrayShape) -> Result<ArrayShape, ShapeError> {
    use Opcode::*;
    let op = opcode.name();
    expect_array(op, "operand", operand)?;
    let ty = operand.element_type;
    let floating = ty.is_floating_point();
    let result_type = match opcode {
        Copy => ty,
        Floor | Ceil | RoundNearestAfz | RoundNearestEven | Cbrt | Erf | ReducePrecision => {
            if !floating {
                return Err(type_error(op, "a floating-point", ty));
            }
            ty
        }
        Acos | Acosh | Asin | Asinh | Atanh | Cosh | Cosine | Sinh | Sine | Exp | Expm1 | Log
        | Log1p | Logistic | Rsqrt | Sqrt | Tan | Tanh => {
            if !floating && !ty.is_complex() {
                return Err(type_error(op, "a floating-point or complex", ty));
            }
            ty
        }
        Real | Imag => match complex_component(ty) {
            Some(component) => component,
            None if floating => ty,
            None => return Err(type_error(op, "a floating-point or complex", ty)),
        },
        Abs => match complex_component(ty) {
            Some(component) => component,
            None if is_signed(ty) => ty,
            None => return Err(type_error(op, "a signed or complex", ty)),
        },
        CountLeadingZeros | PopulationCount => {
            if !ty.is_integral() {
                return Err(type_error(op, "an integral", ty));
            }
            ty
        }
        Negate => {
            if !ty.is_integral() && !floating && !ty.is_complex() {
                return Err(type_error(op, "an integral, floating-point or complex", ty));
            }
            ty
        }
        Sign => {
            if !is_signed(ty) && !ty.is_complex() {
                return Err(type_error(op, "a signed or complex", ty));
            }
            ty
        }
        Not => {
            if ty != PrimitiveType::Pred && !ty.is_integral() {
                return Err(type_error(op, "a pred or integral", ty));
            }
            ty
        }
        IsFinite => {
            if !floating {
                return Err(type_error(op, "a floating-point", ty));
            }
            PrimitiveType::Pred
        }
        Convert | BitcastConvert => {
            return Err(invalid(
                op,
                "the result element type is an input; use `convert` or `bitcast_convert`",
            ))
        }
        _ => return Err(invalid(op, "not an elementwise unary opcode")),
    };
    Ok(array(result_type, operand.dims.clone()))
}

/// `reduce-precision`: a floating-point operand, at least one exponent bit and no negative
/// mantissa bits.
pub fn reduce_precision(
    operand: &ArrayShape,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<ArrayShape, ShapeError> {
    let op = "reduce-precision";
    let shape = unary(&Opcode::ReducePrecision, operand)?;
    if exponent_bits < 1 {
        return Err(invalid(
            op,
            format!("expected exponent_bits >= 1, got {exponent_bits}"),
        ));
    }
    if mantissa_bits < 0 {
        return Err(invalid(
            op,
            format!("expected mantissa_bits >= 0, got {mantissa_bits}"),
        ));
    }
    Ok(shape)
}

/// The dims of an elementwise op on two operands. HLO has no implicit broadcast, so the
/// dims must match; an unbounded dim matches any size, and the result is as specific as
/// XLA makes it.
fn elementwise_dims(op: &str, lhs: &ArrayShape, rhs: &ArrayShape) -> Result<Vec<Dim>, ShapeError> {
    let mismatch = || {
        invalid(
            op,
            format!(
                "operands must have the same dimensions (HLO has no implicit broadcast), got {} and {}",
                human(lhs),
                human(rhs)
            ),
        )
    };
    if lhs.rank() != rhs.rank() {
        return Err(mismatch());
    }
    let any_unbounded = lhs
        .dims
        .iter()
        .chain(&rhs.dims)
        .any(|&d| d == Dim::Unbounded);
    lhs.dims
        .iter()
        .zip(&rhs.dims)
        .map(|(&l, &r)| match (l.extent(), r.extent()) {
            (Some(x), Some(y)) if x != y => Err(mismatch()),
            // XLA's degenerate-dimension rule, reached only when some dim is unbounded,
            // takes the dim of the side that is not 1.
            (Some(1), _) | (_, Some(1)) if any_unbounded => {
                Ok(if l.extent() == Some(1) { r } else { l })
            }
            (Some(x), Some(_)) => Ok(dim_from(Some(x), l.is_dynamic() || r.is_dynamic())),
            (None, None) => Ok(Dim::Unbounded),
            (None, Some(_)) => Ok(r),
            (Some(_), None) => Ok(l),
        })
        .collect()
}

/// Elementwise binary ops (`add`, `compare`, `complex`, `and`, `shift-left`, ...): equal
/// dims and element types (floating-point types may differ, giving the more precise);
/// `compare` gives pred, `complex` of f32 or f64 pairs gives c64 or c128.
pub fn binary(
    opcode: &Opcode,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
) -> Result<ArrayShape, ShapeError> {
    use Opcode::*;
    let op = opcode.name();
    expect_array(op, "lhs", lhs)?;
    expect_array(op, "rhs", rhs)?;
    let (lt, rt) = (lhs.element_type, rhs.element_type);
    match opcode {
        Add | Maximum | Minimum | Multiply | Mulhi | Compare => {}
        Subtract | Atan2 | Power | Divide | Remainder | ShiftLeft | ShiftRightArithmetic
        | ShiftRightLogical => {
            if lt == PrimitiveType::Pred || rt == PrimitiveType::Pred {
                return Err(invalid(op, "expected an arithmetic element type, got pred"));
            }
        }
        Complex => {
            if !lt.is_floating_point() {
                return Err(type_error(op, "a floating-point", lt));
            }
        }
        And | Or | Xor => {
            if lt != PrimitiveType::Pred && !lt.is_integral() {
                return Err(type_error(op, "a pred or integral", lt));
            }
        }
        StochasticConvert => {
            return Err(invalid(
                op,
                "the result element type is an input; use `stochastic_convert`",
            ))
        }
        _ => return Err(invalid(op, "not an elementwise binary opcode")),
    }
    if !same_type_ignoring_fp_precision(lt, rt) {
        return Err(invalid(
            op,
            format!(
                "operands have different element types: {} and {}",
                human(lhs),
                human(rhs)
            ),
        ));
    }
    if *opcode == Atan2 && !lt.is_floating_point() && !lt.is_complex() {
        return Err(type_error(op, "a floating-point or complex", lt));
    }
    let dims = elementwise_dims(op, lhs, rhs)?;
    let result_type = match opcode {
        Compare => PrimitiveType::Pred,
        Complex => match (lt, rt) {
            (PrimitiveType::F32, PrimitiveType::F32) => PrimitiveType::C64,
            (PrimitiveType::F64, PrimitiveType::F64) => PrimitiveType::C128,
            _ => {
                return Err(invalid(
                    op,
                    format!(
                        "complex of {lt} and {rt} is not implemented; XLA takes f32 or f64 pairs"
                    ),
                ))
            }
        },
        _ => higher_precision_type(lt, rt),
    };
    Ok(array(result_type, dims))
}

/// `stochastic-convert`: a floating-point operand, unsigned random bits of the same width
/// and the same dims; the result has `new_type`.
pub fn stochastic_convert(
    operand: &ArrayShape,
    random: &ArrayShape,
    new_type: PrimitiveType,
) -> Result<ArrayShape, ShapeError> {
    let op = "stochastic-convert";
    expect_array(op, "operand", operand)?;
    expect_array(op, "random", random)?;
    let random_type = random.element_type;
    if !random_type.is_integral() || is_signed_integral(random_type) {
        return Err(type_error(op, "an unsigned integral random", random_type));
    }
    if !operand.element_type.is_floating_point() {
        return Err(type_error(
            op,
            "a floating-point operand",
            operand.element_type,
        ));
    }
    if operand.element_type.bit_width() != random_type.bit_width() {
        return Err(invalid(
            op,
            format!(
                "random bits must be as wide as the operand: {} vs {}",
                human(random),
                human(operand)
            ),
        ));
    }
    if operand.dims != random.dims {
        return Err(invalid(
            op,
            format!(
                "operand {} and random {} must have the same dimensions",
                human(operand),
                human(random)
            ),
        ));
    }
    if !new_type.is_array_type() {
        return Err(invalid(op, format!("cannot convert to {new_type}")));
    }
    Ok(array(new_type, operand.dims.clone()))
}

/// `convert`: the operand's dims with `new_type`.
pub fn convert(operand: &ArrayShape, new_type: PrimitiveType) -> Result<ArrayShape, ShapeError> {
    let op = "convert";
    expect_array(op, "operand", operand)?;
    if !new_type.is_array_type() {
        return Err(invalid(op, format!("cannot convert to {new_type}")));
    }
    Ok(array(new_type, operand.dims.clone()))
}

/// `bitcast-convert`: equal widths keep the dims; a narrower result type adds a minor dim of
/// the width ratio, a wider one removes a minor dim that must be that ratio. Complex and
/// real types do not mix.
pub fn bitcast_convert(
    operand: &ArrayShape,
    new_type: PrimitiveType,
) -> Result<ArrayShape, ShapeError> {
    let op = "bitcast-convert";
    let old_type = operand.element_type;
    if old_type.is_complex() != new_type.is_complex() {
        return Err(invalid(
            op,
            format!(
                "cannot convert between complex and real types: {} => {new_type}",
                human(operand)
            ),
        ));
    }
    expect_array(op, "operand", operand)?;
    if !new_type.is_array_type() {
        return Err(invalid(op, format!("cannot convert to {new_type}")));
    }
    let (input_bits, output_bits) = (storage_bit_width(old_type), storage_bit_width(new_type));
    let (wide, narrow) = (input_bits.max(output_bits), input_bits.min(output_bits));
    if wide % narrow != 0 {
        return Err(invalid(
            op,
            format!("cannot bitcast types whose widths do not divide: {old_type} => {new_type}"),
        ));
    }
    let ratio = i64::from(wide / narrow);
    let mut dims = operand.dims.clone();
    if input_bits > output_bits {
        dims.push(Dim::Static(ratio));
    } else if input_bits < output_bits {
        match dims.last() {
            Some(last) if last.extent() == Some(ratio) => {
                dims.pop();
            }
            _ => {
                return Err(invalid(
                    op,
                    format!(
                        "the minor dimension of {} must be the width ratio {ratio} to convert to {new_type}",
                        human(operand)
                    ),
                ))
            }
        }
    }
    Ok(array(new_type, dims))
}

/// `select`: a pred predicate, scalar or of the branches' dims, and branches of the same
/// dims and element type (floating-point precision may differ).
pub fn select(
    predicate: &ArrayShape,
    on_true: &ArrayShape,
    on_false: &ArrayShape,
) -> Result<ArrayShape, ShapeError> {
    let op = "select";
    expect_array(op, "predicate", predicate)?;
    expect_array(op, "on-true operand", on_true)?;
    expect_array(op, "on-false operand", on_false)?;
    if !same_type_ignoring_fp_precision(on_true.element_type, on_false.element_type)
        || !same_dims(on_true, on_false)
    {
        return Err(invalid(
            op,
            format!(
                "the branches must have the same shape, got {} and {}",
                human(on_true),
                human(on_false)
            ),
        ));
    }
    if predicate.element_type != PrimitiveType::Pred {
        return Err(invalid(
            op,
            format!("the predicate must be pred, got {}", human(predicate)),
        ));
    }
    let scalar_predicate = predicate.rank() == 0;
    if !scalar_predicate && (!same_dims(predicate, on_true) || !same_dims(predicate, on_false)) {
        return Err(invalid(
            op,
            format!(
                "the predicate {} must be a scalar or have the dims of the branches {}",
                human(predicate),
                human(on_true)
            ),
        ));
    }
    let full_rank = if scalar_predicate { on_true } else { predicate };
    let dims = full_rank
        .dims
        .iter()
        .zip(on_true.dims.iter().zip(&on_false.dims))
        .map(|(&base, (&t, &f))| {
            if t == Dim::Unbounded || f == Dim::Unbounded {
                // The most specific of the branches; dynamic only if both are.
                let size = t.extent().or(f.extent());
                dim_from(size, t.is_dynamic() && f.is_dynamic())
            } else {
                let dynamic =
                    (!scalar_predicate && base.is_dynamic()) || t.is_dynamic() || f.is_dynamic();
                dim_from(base.extent(), dynamic)
            }
        })
        .collect();
    let result_type = higher_precision_type(on_true.element_type, on_false.element_type);
    Ok(array(result_type, dims))
}

/// `clamp(min, operand, max)`: bounds that are scalars or of the operand's shape; the result
/// is the operand's shape.
pub fn clamp(
    min: &ArrayShape,
    operand: &ArrayShape,
    max: &ArrayShape,
) -> Result<ArrayShape, ShapeError> {
    let op = "clamp";
    expect_array(op, "min", min)?;
    expect_array(op, "operand", operand)?;
    expect_array(op, "max", max)?;
    let (lo, ty, hi) = (min.element_type, operand.element_type, max.element_type);
    if !same_type_ignoring_fp_precision(lo, ty)
        || !same_type_ignoring_fp_precision(hi, ty)
        || !same_type_ignoring_fp_precision(lo, hi)
    {
        return Err(invalid(
            op,
            format!(
                "incompatible element types: {}, {}, {}",
                human(min),
                human(operand),
                human(max)
            ),
        ));
    }
    let fits = |bound: &ArrayShape| bound.rank() == 0 || same_dims(bound, operand);
    let bounds_agree = min.rank() == 0 || max.rank() == 0 || same_dims(min, max);
    if !fits(min) || !fits(max) || !bounds_agree {
        return Err(invalid(
            op,
            format!(
                "incompatible shapes: {}, {}, {}",
                human(min),
                human(operand),
                human(max)
            ),
        ));
    }
    Ok(array(ty, operand.dims.clone()))
}

/// `broadcast`: operand dim `i` becomes result dim `dimensions[i]` and must have its size;
/// the other result dims come from the declared `result_dims`, which HLO states. The result
/// has the operand's element type, and mapped dims keep the operand's dynamism.
pub fn broadcast(
    operand: &ArrayShape,
    result_dims: &[Dim],
    dimensions: &[i64],
) -> Result<ArrayShape, ShapeError> {
    let op = "broadcast";
    expect_array(op, "operand", operand)?;
    let result_rank = result_dims.len();
    if result_dims
        .iter()
        .any(|d| d.extent().is_some_and(|n| n < 0))
    {
        return Err(invalid(op, "the result has a negative dimension size"));
    }
    if dimensions.len() != operand.rank() {
        return Err(invalid(
            op,
            format!(
                "dimensions={{{}}} must have one entry per operand dimension of {}",
                join(dimensions),
                human(operand)
            ),
        ));
    }
    let mut dims = result_dims.to_vec();
    for (operand_dim, (&dim, &target)) in operand.dims.iter().zip(dimensions).enumerate() {
        let index = dim_index(op, "result dimension", "the result", target, result_rank)?;
        if let Some(slot) = dims.get_mut(index) {
            if slot.extent() != dim.extent() {
                return Err(invalid(
                    op,
                    format!(
                        "operand dimension {operand_dim} has size {} but result dimension {target} has size {}",
                        show_size(dim),
                        show_size(*slot)
                    ),
                ));
            }
            *slot = dim;
        }
    }
    Ok(array(operand.element_type, dims))
}

/// `reshape`: the declared `result_dims` with the operand's element type; element counts must
/// match. An unbounded operand cannot be counted and is accepted; an unbounded result is not
/// supported, as in XLA. Dynamism is taken as declared.
pub fn reshape(operand: &ArrayShape, result_dims: &[Dim]) -> Result<ArrayShape, ShapeError> {
    let op = "reshape";
    expect_array(op, "operand", operand)?;
    let result = array(operand.element_type, result_dims.to_vec());
    expect_array(op, "result", &result)?;
    if result_dims.contains(&Dim::Unbounded) {
        return Err(invalid(
            op,
            format!(
                "reshaping to an unbounded shape {} is not supported",
                human(&result)
            ),
        ));
    }
    let count = |shape: &ArrayShape, what: &str| -> Result<Option<i64>, ShapeError> {
        let mut total = 1i64;
        for dim in &shape.dims {
            match dim.extent() {
                Some(n) => {
                    total = checked_mul(
                        op,
                        format_args!("the element count of the {what}"),
                        total,
                        n,
                    )?
                }
                None => return Ok(None),
            }
        }
        Ok(Some(total))
    };
    if let (Some(from), Some(to)) = (count(operand, "operand")?, count(&result, "result")?) {
        if from != to {
            return Err(invalid(
                op,
                format!(
                    "element counts differ: {from} in {} but {to} in {}",
                    human(operand),
                    human(&result)
                ),
            ));
        }
    }
    Ok(result)
}

/// `transpose`: result dim `i` is operand dim `permutation[i]`.
pub fn transpose(operand: &ArrayShape, permutation: &[i64]) -> Result<ArrayShape, ShapeError> {
    let op = "transpose";
    expect_array(op, "operand", operand)?;
    let not_a_permutation = || {
        invalid(
            op,
            format!(
                "dimensions={{{}}} is not a permutation of the dimensions of {}",
                join(permutation),
                human(operand)
            ),
        )
    };
    if permutation.len() != operand.rank() {
        return Err(not_a_permutation());
    }
    let mut seen = vec![false; operand.rank()];
    let mut dims = Vec::with_capacity(operand.rank());
    for &p in permutation {
        let index = usize::try_from(p).map_err(|_| not_a_permutation())?;
        match (seen.get_mut(index), operand.dims.get(index)) {
            (Some(seen @ false), Some(&dim)) => {
                *seen = true;
                dims.push(dim);
            }
            _ => return Err(not_a_permutation()),
        }
    }
    Ok(array(operand.element_type, dims))
}

/// `slice`: one `[start:limit:stride]` per dim with `0 <= start <= limit <= size` and a
/// positive stride; the result dim is `ceil((limit - start) / stride)`. A bounded dynamic dim
/// stays dynamic unless the slice takes one element.
pub fn slice(operand: &ArrayShape, config: &SliceConfig) -> Result<ArrayShape, ShapeError> {
    let op = "slice";
    expect_array(op, "operand", operand)?;
    if config.ranges.len() != operand.rank() {
        return Err(invalid(
            op,
            format!(
                "{} ranges for an operand of rank {}",
                config.ranges.len(),
                operand.rank()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(operand.rank());
    for (i, (range, &dim)) in config.ranges.iter().zip(&operand.dims).enumerate() {
        if range.start < 0 {
            return Err(invalid(
                op,
                format!("negative start {} in dimension {i}", range.start),
            ));
        }
        if let Some(size) = dim.extent() {
            if range.limit > size {
                return Err(invalid(
                    op,
                    format!(
                        "limit {} is beyond dimension {i} of size {size} in {}",
                        range.limit,
                        human(operand)
                    ),
                ));
            }
        }
        if range.start > range.limit {
            return Err(invalid(
                op,
                format!(
                    "start {} is past limit {} in dimension {i}",
                    range.start, range.limit
                ),
            ));
        }
        if range.stride <= 0 {
            return Err(invalid(
                op,
                format!("stride {} in dimension {i} must be positive", range.stride),
            ));
        }
        // Both are non-negative with start <= limit, so the difference cannot overflow.
        let span = range.limit - range.start;
        let extent = span / range.stride + i64::from(span % range.stride != 0);
        let dynamic = extent != 1 && matches!(dim, Dim::Bounded(_));
        dims.push(dim_from(Some(extent), dynamic));
    }
    Ok(array(operand.element_type, dims))
}

/// A dim as XLA's concatenate rules see it: a size and a bound, each `None` when unknown.
#[derive(Clone, Copy)]
struct SizeAndBound {
    size: Option<i64>,
    bound: Option<i64>,
}

impl SizeAndBound {
    fn of(dim: Dim) -> SizeAndBound {
        SizeAndBound {
            size: dim.extent(),
            bound: match dim {
                Dim::Bounded(n) => Some(n),
                _ => None,
            },
        }
    }

    fn into_dim(self) -> Dim {
        match (self.size, self.bound) {
            (None, _) => Dim::Unbounded,
            (Some(n), Some(_)) => Dim::Bounded(n),
            (Some(n), None) => Dim::Static(n),
        }
    }
}

/// `concatenate` along `dimension`: equal ranks, element types and other dims; the result
/// dim is the sum, bounded if a part is bounded and unbounded if a part is.
pub fn concatenate(operands: &[&ArrayShape], dimension: i64) -> Result<ArrayShape, ShapeError> {
    let op = "concatenate";
    let first = operands
        .first()
        .ok_or_else(|| invalid(op, "needs at least one operand"))?;
    let rank = first.rank();
    let axis = dim_index(op, "dimension", "the operands", dimension, rank)?;
    let mut element_type = first.element_type;
    for (i, shape) in operands.iter().enumerate() {
        expect_array(op, format_args!("operand {i}"), shape)?;
        if shape.rank() != rank {
            return Err(invalid(
                op,
                format!(
                    "operands have different ranks: {} and {}",
                    human(first),
                    human(shape)
                ),
            ));
        }
        if !same_type_ignoring_fp_precision(first.element_type, shape.element_type) {
            return Err(invalid(
                op,
                format!(
                    "operands have different element types: {} and {}",
                    first.element_type, shape.element_type
                ),
            ));
        }
        for (d, (&a, &b)) in first.dims.iter().zip(&shape.dims).enumerate() {
            if d != axis && !compatible(a, b) {
                return Err(invalid(
                    op,
                    format!(
                        "dimension {d} differs between {} and {}; only dimension {axis} may",
                        human(first),
                        human(shape)
                    ),
                ));
            }
        }
        element_type = higher_precision_type(shape.element_type, element_type);
    }
    let mut result: Vec<SizeAndBound> = (0..rank)
        .map(|d| SizeAndBound {
            size: if d == axis { Some(0) } else { None },
            bound: None,
        })
        .collect();
    for shape in operands {
        for (d, (acc, &dim)) in result.iter_mut().zip(&shape.dims).enumerate() {
            let next = SizeAndBound::of(dim);
            *acc = if d == axis {
                concatenated(op, *acc, next)?
            } else {
                most_specific(op, d, *acc, next)?
            };
        }
    }
    Ok(array(
        element_type,
        result.into_iter().map(SizeAndBound::into_dim).collect(),
    ))
}

/// XLA's `InferConcatenatedDimAndBound`: sizes add when both are known; bounds add when one
/// side is bounded and the other is known.
fn concatenated(
    op: &str,
    left: SizeAndBound,
    right: SizeAndBound,
) -> Result<SizeAndBound, ShapeError> {
    let what = "the concatenated dimension";
    let size = match (left.size, right.size) {
        (Some(a), Some(b)) => Some(checked_add(op, what, a, b)?),
        _ => None,
    };
    let bound = if left.bound.is_some() || right.bound.is_some() {
        match (left.bound.or(left.size), right.bound.or(right.size)) {
            (Some(a), Some(b)) => Some(checked_add(op, what, a, b)?),
            _ => None,
        }
    } else {
        None
    };
    Ok(SizeAndBound { size, bound })
}

/// XLA's `InferMostSpecificDimAndBound`: the known size and bound of either side; known ones
/// must agree.
fn most_specific(
    op: &str,
    dim: usize,
    left: SizeAndBound,
    right: SizeAndBound,
) -> Result<SizeAndBound, ShapeError> {
    let bound = match (left.bound, right.bound) {
        (Some(a), Some(b)) if a != b => {
            return Err(invalid(
                op,
                format!("mismatched bounds {a} and {b} in dimension {dim}"),
            ))
        }
        (a, b) => a.or(b),
    };
    let size = match (left.size, right.size) {
        (Some(a), Some(b)) if a != b => {
            return Err(invalid(
                op,
                format!("mismatched sizes {a} and {b} in dimension {dim}"),
            ))
        }
        (a, b) => a.or(b),
    };
    if let (Some(size), Some(bound)) = (size, bound) {
        if size != bound {
            return Err(invalid(
                op,
                format!("mismatched size {size} and bound {bound} in dimension {dim}"),
            ));
        }
    }
    Ok(SizeAndBound { size, bound })
}

/// `pad`: each dim becomes `low + high + size + interior * (size - 1)`; edges may be
/// negative but the result may not. The padding value is a scalar of the operand's type.
pub fn pad(
    operand: &ArrayShape,
    padding_value: &ArrayShape,
    config: &PaddingConfig,
) -> Result<ArrayShape, ShapeError> {
    let op = "pad";
    expect_array(op, "operand", operand)?;
    expect_array(op, "padding value", padding_value)?;
    if padding_value.rank() != 0 {
        return Err(invalid(
            op,
            format!(
                "the padding value must be a scalar, got {}",
                human(padding_value)
            ),
        ));
    }
    if config.dimensions.len() != operand.rank() {
        return Err(invalid(
            op,
            format!(
                "padding={config} has {} dimensions but the operand {} has rank {}",
                config.dimensions.len(),
                human(operand),
                operand.rank()
            ),
        ));
    }
    if !same_type_ignoring_fp_precision(operand.element_type, padding_value.element_type) {
        return Err(invalid(
            op,
            format!(
                "the padding value type {} differs from the operand type {}",
                padding_value.element_type, operand.element_type
            ),
        ));
    }
    if config.dimensions.iter().any(|p| p.interior < 0) {
        return Err(invalid(
            op,
            format!("interior padding cannot be negative: {config}"),
        ));
    }
    let mut dims = Vec::with_capacity(operand.rank());
    for (i, (p, &dim)) in config.dimensions.iter().zip(&operand.dims).enumerate() {
        let Some(size) = dim.extent() else {
            dims.push(Dim::Unbounded);
            continue;
        };
        let what = Lazy(move |f: &mut Formatter<'_>| write!(f, "the padded size of dimension {i}"));
        let interior = checked_mul(op, what, (size - 1).max(0), p.interior)?;
        let mut padded = checked_add(op, what, size, p.edge_low)?;
        padded = checked_add(op, what, padded, p.edge_high)?;
        padded = checked_add(op, what, padded, interior)?;
        if padded < 0 {
            return Err(invalid(
                op,
                format!("padding gives dimension {i} the negative size {padded}"),
            ));
        }
        dims.push(dim_from(Some(padded), dim.is_dynamic()));
    }
    let result_type = higher_precision_type(operand.element_type, padding_value.element_type);
    Ok(array(result_type, dims))
}

/// `dot`: batch dims (from the lhs), then the lhs's free dims, then the rhs's free dims.
/// `preferred_element_type` is the type HLO declares for the result; without it the result
/// has the more precise operand type.
pub fn dot(
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    dnums: &DotDimensionNumbers,
    preferred_element_type: Option<PrimitiveType>,
) -> Result<ArrayShape, ShapeError> {
    let op = "dot";
    expect_array(op, "lhs", lhs)?;
    expect_array(op, "rhs", rhs)?;
    for (side, shape, contracting, batch) in [
        ("lhs", lhs, &dnums.lhs_contracting, &dnums.lhs_batch),
        ("rhs", rhs, &dnums.rhs_contracting, &dnums.rhs_batch),
    ] {
        let array_name = described(if side == "lhs" { "the lhs" } else { "the rhs" }, shape);
        check_in_range(
            op,
            format_args!("{side} contracting dim"),
            array_name,
            contracting,
            shape.rank(),
        )?;
        check_in_range(
            op,
            format_args!("{side} batch dim"),
            array_name,
            batch,
            shape.rank(),
        )?;
        let mut all: Vec<i64> = contracting.iter().chain(batch.iter()).copied().collect();
        all.sort_unstable();
        if let Some([repeated, _]) = all.windows(2).find(|pair| matches!(pair, [a, b] if a == b)) {
            return Err(invalid(
                op,
                format!(
                    "{side} dim {repeated} is listed twice among the contracting and batch dims"
                ),
            ));
        }
    }
    for (kind, lhs_dims, rhs_dims) in [
        (
            "contracting",
            &dnums.lhs_contracting,
            &dnums.rhs_contracting,
        ),
        ("batch", &dnums.lhs_batch, &dnums.rhs_batch),
    ] {
        if lhs_dims.len() != rhs_dims.len() {
            return Err(invalid(
                op,
                format!(
                    "lhs has {} {kind} dims but rhs has {}",
                    lhs_dims.len(),
                    rhs_dims.len()
                ),
            ));
        }
        for (&l, &r) in lhs_dims.iter().zip(rhs_dims.iter()) {
            // Both were checked to be in range above.
            let (Ok(li), Ok(ri)) = (usize::try_from(l), usize::try_from(r)) else {
                continue;
            };
            let (Some(&ld), Some(&rd)) = (lhs.dims.get(li), rhs.dims.get(ri)) else {
                continue;
            };
            if !compatible(ld, rd) {
                return Err(invalid(
                    op,
                    format!(
                        "lhs {kind} dim {l} has size {} but rhs {kind} dim {r} has size {}",
                        show_size(ld),
                        show_size(rd)
                    ),
                ));
            }
        }
    }
    let mut dims: Vec<Dim> = dnums
        .lhs_batch
        .iter()
        .filter_map(|&d| {
            usize::try_from(d)
                .ok()
                .and_then(|d| lhs.dims.get(d).copied())
        })
        .collect();
    let free = |shape: &ArrayShape, contracting: &[i64], batch: &[i64]| -> Vec<Dim> {
        shape
            .dims
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let i = *i as i64;
                !contracting.contains(&i) && !batch.contains(&i)
            })
            .map(|(_, &d)| d)
            .collect()
    };
    dims.extend(free(lhs, &dnums.lhs_contracting, &dnums.lhs_batch));
    dims.extend(free(rhs, &dnums.rhs_contracting, &dnums.rhs_batch));
    let element_type = preferred_element_type
        .unwrap_or_else(|| higher_precision_type(lhs.element_type, rhs.element_type));
    Ok(array(element_type, dims))
}

/// `reduce` of N operands with N scalar init values over `dimensions`: the operand dims that
/// are not reduced. The result types are the init values' types, which XLA requires to be
/// the reducer's result types up to floating-point precision. One operand gives an array,
/// several a tuple.
pub fn reduce(
    operands: &[&ArrayShape],
    init_values: &[&ArrayShape],
    dimensions: &[i64],
) -> Result<Shape, ShapeError> {
    let op = "reduce";
    let first = operands
        .first()
        .ok_or_else(|| invalid(op, "needs at least one operand"))?;
    if init_values.len() != operands.len() {
        return Err(invalid(
            op,
            format!(
                "{} operands need {} init values, got {}",
                operands.len(),
                operands.len(),
                init_values.len()
            ),
        ));
    }
    for (i, (operand, init)) in operands.iter().zip(init_values).enumerate() {
        expect_array(op, format_args!("operand {i}"), operand)?;
        expect_array(op, format_args!("init value {i}"), init)?;
        if !same_dims(first, operand) {
            return Err(invalid(
                op,
                format!(
                    "all operands must have the same dimensions: operand 0 is {} but operand {i} is {}",
                    human(first),
                    human(operand)
                ),
            ));
        }
    }
    check_in_range(
        op,
        "reduced dimension",
        described("the operand", first),
        dimensions,
        first.rank(),
    )?;
    for (i, (operand, init)) in operands.iter().zip(init_values).enumerate() {
        if init.rank() != 0 {
            return Err(invalid(
                op,
                format!("init value {i} must be a scalar, got {}", human(init)),
            ));
        }
        if !same_type_ignoring_fp_precision(init.element_type, operand.element_type) {
            return Err(invalid(
                op,
                format!(
                    "init value {i} has type {} but operand {i} has type {}",
                    init.element_type, operand.element_type
                ),
            ));
        }
    }
    check_unique(op, "dimensions", dimensions)?;
    let kept: Vec<Dim> = first
        .dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !dimensions.contains(&(*i as i64)))
        .map(|(_, &d)| d)
        .collect();
    Ok(one_or_tuple(
        init_values
            .iter()
            .map(|init| array(init.element_type, kept.clone()))
            .collect(),
    ))
}

/// One result as an array, several as a tuple, as variadic reductions return them.
fn one_or_tuple(mut results: Vec<ArrayShape>) -> Shape {
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
fn window_output_dims(op: &str, base: &[Dim], window: &Window) -> Result<Vec<Dim>, ShapeError> {
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

/// `reduce-window` of N operands with N scalar init values: each result is the windowed
/// operand with its init value's type. One operand gives an array, several a tuple.
pub fn reduce_window(
    operands: &[&ArrayShape],
    init_values: &[&ArrayShape],
    window: &Window,
) -> Result<Shape, ShapeError> {
    let op = "reduce-window";
    let first = operands
        .first()
        .ok_or_else(|| invalid(op, "needs at least one operand"))?;
    if init_values.len() != operands.len() {
        return Err(invalid(
            op,
            format!(
                "{} operands need {} init values, got {}",
                operands.len(),
                operands.len(),
                init_values.len()
            ),
        ));
    }
    let mut results = Vec::with_capacity(operands.len());
    for (i, (operand, init)) in operands.iter().zip(init_values).enumerate() {
        expect_array(op, format_args!("operand {i}"), operand)?;
        expect_array(op, format_args!("init value {i}"), init)?;
        if !same_dims(first, operand) {
            return Err(invalid(
                op,
                format!(
                    "all operands must have the same dimensions: operand 0 is {} but operand {i} is {}",
                    human(first),
                    human(operand)
                ),
            ));
        }
        if init.rank() != 0 {
            return Err(invalid(
                op,
                format!("init value {i} must be a scalar, got {}", human(init)),
            ));
        }
        if !same_type_ignoring_fp_precision(init.element_type, operand.element_type) {
            return Err(invalid(
                op,
                format!(
                    "init value {i} has type {} but operand {i} has type {}",
                    init.element_type, operand.element_type
                ),
            ));
        }
    }
    for (operand, init) in operands.iter().zip(init_values) {
        results.push(array(
            init.element_type,
            window_output_dims(op, &operand.dims, window)?,
        ));
    }
    Ok(one_or_tuple(results))
}

/// `convolution`: the window slides over the input's spatial dims; the output batch is the
/// input batch over `batch_group_count` and the output feature is the kernel's output
/// feature. `preferred_element_type` is the declared result type, as for [`dot`].
pub fn convolution(
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    feature_group_count: i64,
    batch_group_count: i64,
    window: &Window,
    dnums: &ConvDimensionNumbers,
    preferred_element_type: Option<PrimitiveType>,
) -> Result<ArrayShape, ShapeError> {
    let op = "convolution";
    expect_array(op, "lhs", lhs)?;
    expect_array(op, "rhs", rhs)?;
    if feature_group_count <= 0 {
        return Err(invalid(
            op,
            format!("feature_group_count must be positive, got {feature_group_count}"),
        ));
    }
    if batch_group_count <= 0 {
        return Err(invalid(
            op,
            format!("batch_group_count must be positive, got {batch_group_count}"),
        ));
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return Err(invalid(
            op,
            format!("feature_group_count {feature_group_count} and batch_group_count {batch_group_count} cannot both be greater than 1"),
        ));
    }
    let spatial = dnums.input_spatial_dimensions.len();
    if dnums.kernel_spatial_dimensions.len() != spatial
        || dnums.output_spatial_dimensions.len() != spatial
    {
        return Err(invalid(
            op,
            format!("dim_labels={dnums} give the input, kernel and output different numbers of spatial dimensions"),
        ));
    }
    if window.rank() != spatial {
        return Err(invalid(
            op,
            format!("the window has {} dimensions but dim_labels={dnums} have {spatial} spatial dimensions", window.rank()),
        ));
    }
    let rank = spatial + 2;
    for (side, shape) in [("lhs", lhs), ("rhs", rhs)] {
        if shape.rank() != rank {
            return Err(invalid(
                op,
                format!(
                    "the {side} {} should have rank {rank} for dim_labels={dnums}",
                    human(shape)
                ),
            ));
        }
    }
    // Each of the three label groups must name every dimension exactly once.
    let groups = [
        (
            "input",
            dnums.input_batch_dimension,
            dnums.input_feature_dimension,
            &dnums.input_spatial_dimensions,
        ),
        (
            "kernel",
            dnums.kernel_input_feature_dimension,
            dnums.kernel_output_feature_dimension,
            &dnums.kernel_spatial_dimensions,
        ),
        (
            "output",
            dnums.output_batch_dimension,
            dnums.output_feature_dimension,
            &dnums.output_spatial_dimensions,
        ),
    ];
    for (name, a, b, rest) in groups {
        let mut all: Vec<i64> = [a, b].into_iter().chain(rest.iter().copied()).collect();
        if all.iter().any(|&d| d < 0 || d as u64 >= rank as u64) {
            return Err(invalid(
                op,
                format!("a dimension number is out of range in dim_labels={dnums}"),
            ));
        }
        all.sort_unstable();
        if all.iter().enumerate().any(|(i, &d)| d != i as i64) {
            return Err(invalid(
                op,
                format!(
                    "{name} dimensions in dim_labels={dnums} must name each dimension exactly once"
                ),
            ));
        }
    }
    // Every number below was checked to be in 0..rank, so these lookups cannot miss.
    let at = |shape: &ArrayShape, d: i64| -> Result<Dim, ShapeError> {
        usize::try_from(d)
            .ok()
            .and_then(|d| shape.dims.get(d).copied())
            .ok_or_else(|| invalid(op, format!("dimension {d} is out of range")))
    };
    let input_batch = at(lhs, dnums.input_batch_dimension)?;
    let input_features = at(lhs, dnums.input_feature_dimension)?;
    let kernel_input_features = at(rhs, dnums.kernel_input_feature_dimension)?;
    let kernel_output_features = at(rhs, dnums.kernel_output_feature_dimension)?;
    let Some(output_features) = kernel_output_features.extent() else {
        return Err(invalid(
            op,
            format!(
                "the kernel output feature dimension of {} cannot be unbounded",
                human(rhs)
            ),
        ));
    };
    if output_features % batch_group_count != 0 {
        return Err(invalid(
            op,
            format!("the kernel output feature size {output_features} must be a multiple of batch_group_count {batch_group_count}"),
        ));
    }
    match (input_features.extent(), kernel_input_features.extent()) {
        (Some(input), Some(kernel)) => {
            if input % feature_group_count != 0 || input / feature_group_count != kernel {
                return Err(invalid(
                    op,
                    format!(
                        "the input feature size {input} must be a multiple of feature_group_count {feature_group_count} and, divided by it, equal the kernel input feature size {kernel}"
                    ),
                ));
            }
        }
        // An unbounded feature dim can only be checked when there are no groups.
        _ if feature_group_count == 1 => {}
        _ => {
            return Err(invalid(
                op,
                format!(
                    "feature_group_count {feature_group_count} needs bounded feature dimensions"
                ),
            ))
        }
    }
    if output_features % feature_group_count != 0 {
        return Err(invalid(
            op,
            format!("the kernel output feature size {output_features} must be a multiple of feature_group_count {feature_group_count}"),
        ));
    }
    let output_batch = match input_batch.extent() {
        Some(batch) if batch % batch_group_count != 0 => {
            return Err(invalid(
                op,
                format!("the input batch size {batch} must be a multiple of batch_group_count {batch_group_count}"),
            ))
        }
        Some(batch) => Some(batch / batch_group_count),
        None if batch_group_count == 1 => None,
        None => {
            return Err(invalid(
                op,
                format!("batch_group_count {batch_group_count} needs a bounded input batch dimension"),
            ))
        }
    };
    let mut base = Vec::with_capacity(spatial);
    for (j, (&input_dim, &kernel_dim)) in dnums
        .input_spatial_dimensions
        .iter()
        .zip(&dnums.kernel_spatial_dimensions)
        .enumerate()
    {
        let kernel = at(rhs, kernel_dim)?;
        let window_size = window.dimensions.get(j).map(|w| w.size);
        if kernel.extent() != window_size {
            return Err(invalid(
                op,
                format!(
                    "window size {} of spatial dimension {j} differs from the kernel's size {}",
                    window_size.map_or_else(|| "?".into(), |s| s.to_string()),
                    show_size(kernel)
                ),
            ));
        }
        base.push(dim_from(at(lhs, input_dim)?.extent(), false));
    }
    let windowed = window_output_dims(op, &base, window)?;
    if kernel_output_features.is_dynamic() {
        return Err(invalid(
            op,
            format!(
                "a dynamic kernel output feature dimension is not supported: {}",
                human(rhs)
            ),
        ));
    }
    let mut dims = vec![Dim::Static(0); rank];
    let mut set = |position: i64, dim: Dim| {
        if let Some(slot) = usize::try_from(position).ok().and_then(|p| dims.get_mut(p)) {
            *slot = dim;
        }
    };
    set(
        dnums.output_batch_dimension,
        dim_from(output_batch, input_batch.is_dynamic()),
    );
    set(dnums.output_feature_dimension, Dim::Static(output_features));
    let spatial_numbers = dnums
        .output_spatial_dimensions
        .iter()
        .zip(&dnums.input_spatial_dimensions)
        .zip(&dnums.kernel_spatial_dimensions);
    for (j, ((&output_dim, &input_dim), &kernel_dim)) in spatial_numbers.enumerate() {
        let dynamic = at(lhs, input_dim)?.is_dynamic() || at(rhs, kernel_dim)?.is_dynamic();
        let size = windowed.get(j).and_then(|d| d.extent());
        set(output_dim, dim_from(size, dynamic));
    }
    let element_type = preferred_element_type
        .unwrap_or_else(|| higher_precision_type(lhs.element_type, rhs.element_type));
    Ok(array(element_type, dims))
}

/// Checks `index_vector_dim` and returns the start-indices dims with the implicit trailing 1
/// XLA adds when `index_vector_dim` equals their rank.
fn expanded_indices(
    op: &str,
    indices: &ArrayShape,
    index_vector_dim: i64,
) -> Result<(Vec<Dim>, usize), ShapeError> {
    let rank = indices.rank();
    let ivd = usize::try_from(index_vector_dim)
        .ok()
        .filter(|&d| d <= rank)
        .ok_or_else(|| {
            invalid(
                op,
                format!(
                    "index_vector_dim {index_vector_dim} must be within [0, {rank}] for indices {}",
                    human(indices)
                ),
            )
        })?;
    let mut expanded = indices.dims.clone();
    if ivd == rank {
        expanded.push(Dim::Static(1));
    }
    Ok((expanded, ivd))
}

/// `gather`: the result has the batch dims of the start indices (all but `index_vector_dim`)
/// and, at `offset_dims`, the slice sizes of the operand dims that are neither collapsed nor
/// batching. Follows XLA's `ValidateGatherDimensionNumbers` and `InferGatherShape`.
pub fn gather(
    operand: &ArrayShape,
    start_indices: &ArrayShape,
    dnums: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<ArrayShape, ShapeError> {
    let op = "gather";
    expect_array(op, "operand", operand)?;
    expect_array(op, "start indices", start_indices)?;
    if !start_indices.element_type.is_integral() {
        return Err(invalid(
            op,
            format!(
                "start indices must be integral, got {}",
                human(start_indices)
            ),
        ));
    }
    let (expanded, ivd) = expanded_indices(op, start_indices, dnums.index_vector_dim)?;
    let operand_rank = operand.rank();
    let operand_name = described("the operand", operand);

    check_ascending(op, "offset_dims", &dnums.offset_dims)?;
    let output_rank = dnums.offset_dims.len() + expanded.len() - 1;
    check_in_range(
        op,
        "offset dim",
        "the result",
        &dnums.offset_dims,
        output_rank,
    )?;
    if let Some(count) = expanded.get(ivd).and_then(|d| d.extent()) {
        if usize::try_from(count).ok() != Some(dnums.start_index_map.len()) {
            return Err(invalid(
                op,
                format!(
                    "start_index_map has {} entries but dimension index_vector_dim={ivd} of the start indices has size {count}",
                    dnums.start_index_map.len()
                ),
            ));
        }
    }
    check_in_range(
        op,
        "start_index_map entry",
        operand_name,
        &dnums.start_index_map,
        operand_rank,
    )?;
    check_unique(op, "start_index_map", &dnums.start_index_map)?;
    check_in_range(
        op,
        "collapsed slice dim",
        operand_name,
        &dnums.collapsed_slice_dims,
        operand_rank,
    )?;
    check_ascending(op, "collapsed_slice_dims", &dnums.collapsed_slice_dims)?;
    if dnums.operand_batching_dims.len() != dnums.start_indices_batching_dims.len() {
        return Err(invalid(
            op,
            format!(
                "operand_batching_dims and start_indices_batching_dims must have the same length, got {} and {}",
                dnums.operand_batching_dims.len(),
                dnums.start_indices_batching_dims.len()
            ),
        ));
    }
    check_in_range(
        op,
        "operand batching dim",
        operand_name,
        &dnums.operand_batching_dims,
        operand_rank,
    )?;
    check_ascending(op, "operand_batching_dims", &dnums.operand_batching_dims)?;
    check_in_range(
        op,
        "start indices batching dim",
        "the start indices",
        &dnums.start_indices_batching_dims,
        expanded.len(),
    )?;
    check_unique(
        op,
        "start_indices_batching_dims",
        &dnums.start_indices_batching_dims,
    )?;

    if slice_sizes.len() != operand_rank {
        return Err(invalid(
            op,
            format!(
                "slice_sizes={{{}}} must have one size per dimension of {}",
                join(slice_sizes),
                human(operand)
            ),
        ));
    }
    let accounted = dnums.offset_dims.len()
        + dnums.collapsed_slice_dims.len()
        + dnums.operand_batching_dims.len();
    if accounted != operand_rank {
        return Err(invalid(
            op,
            format!(
                "every operand dimension must be an offset, collapsed or batching dimension: {} offset_dims, {} collapsed_slice_dims and {} operand_batching_dims for rank {operand_rank}",
                dnums.offset_dims.len(),
                dnums.collapsed_slice_dims.len(),
                dnums.operand_batching_dims.len()
            ),
        ));
    }
    for (i, (&size, &dim)) in slice_sizes.iter().zip(&operand.dims).enumerate() {
        let too_big = dim.extent().is_some_and(|bound| size > bound);
        if size < 0 || too_big {
            return Err(invalid(
                op,
                format!(
                    "slice size {size} at index {i} is out of range for dimension of size {}",
                    show_size(dim)
                ),
            ));
        }
    }
    for (name, dims) in [
        ("collapsed slice dim", &dnums.collapsed_slice_dims),
        ("operand batching dim", &dnums.operand_batching_dims),
    ] {
        for &d in dims.iter() {
            let size = usize::try_from(d)
                .ok()
                .and_then(|d| slice_sizes.get(d))
                .copied()
                .unwrap_or(0);
            if size > 1 {
                return Err(invalid(
                    op,
                    format!("{name} {d} must have slice size 0 or 1, got {size}"),
                ));
            }
        }
    }

    let inconsistent = || {
        invalid(
            op,
            "dimension numbers are inconsistent with the operand ranks",
        )
    };
    let excluded = |d: usize| {
        let d = d as i64;
        dnums.collapsed_slice_dims.contains(&d) || dnums.operand_batching_dims.contains(&d)
    };
    let (mut offset_seen, mut batch_seen) = (0usize, 0usize);
    let mut dims = Vec::with_capacity(output_rank);
    for i in 0..output_rank {
        if dnums.offset_dims.contains(&(i as i64)) {
            while excluded(offset_seen) {
                offset_seen += 1;
            }
            let size = *slice_sizes.get(offset_seen).ok_or_else(inconsistent)?;
            let operand_dim = *operand.dims.get(offset_seen).ok_or_else(inconsistent)?;
            // Gathering a whole dynamic dim keeps it dynamic.
            let dynamic = operand_dim.extent() == Some(size) && operand_dim.is_dynamic();
            dims.push(dim_from(Some(size), dynamic));
            offset_seen += 1;
        } else {
            if batch_seen == ivd {
                batch_seen += 1;
            }
            dims.push(*expanded.get(batch_seen).ok_or_else(inconsistent)?);
            batch_seen += 1;
        }
    }
    Ok(array(operand.element_type, dims))
}

/// `scatter` of N operands with N updates: the result is the operand (a tuple of them for
/// N > 1). Follows XLA's `ValidateScatterDimensionNumbers` and `InferScatterShape`.
pub fn scatter(
    operands: &[&ArrayShape],
    scatter_indices: &ArrayShape,
    updates: &[&ArrayShape],
    dnums: &ScatterDimensionNumbers,
) -> Result<Shape, ShapeError> {
    let op = "scatter";
    if operands.is_empty() || operands.len() != updates.len() {
        return Err(invalid(
            op,
            format!(
                "needs as many updates as operands, and at least one; got {} and {}",
                operands.len(),
                updates.len()
            ),
        ));
    }
    expect_array(op, "scatter indices", scatter_indices)?;
    if !scatter_indices.element_type.is_integral() {
        return Err(invalid(
            op,
            format!(
                "scatter indices must be integral, got {}",
                human(scatter_indices)
            ),
        ));
    }
    let (expanded, ivd) = expanded_indices(op, scatter_indices, dnums.index_vector_dim)?;
    let inconsistent = || {
        invalid(
            op,
            "dimension numbers are inconsistent with the operand ranks",
        )
    };
    for (n, (operand, update)) in operands.iter().zip(updates).enumerate() {
        expect_array(op, format_args!("operand {n}"), operand)?;
        expect_array(op, format_args!("updates {n}"), update)?;
        // The operand dims an update window spans: all but the inserted and batching ones,
        // found the way XLA walks both sorted lists.
        let (mut inserted_seen, mut batching_seen) = (0usize, 0usize);
        let mut window_bounds = Vec::new();
        for (i, &dim) in operand.dims.iter().enumerate() {
            let i = i as i64;
            if dnums.inserted_window_dims.get(inserted_seen) == Some(&i) {
                inserted_seen += 1;
            } else if dnums.input_batching_dims.get(batching_seen) == Some(&i) {
                batching_seen += 1;
            } else {
                window_bounds.push(dim);
            }
        }
        let expected_rank = expanded.len() - 1 + dnums.update_window_dims.len();
        if update.rank() != expected_rank {
            return Err(invalid(
                op,
                format!("updates {} must have rank {expected_rank}", human(update)),
            ));
        }
        validate_scatter_dnums(op, operand, &expanded, ivd, update, dnums)?;
        for (k, &window_dim) in dnums.update_window_dims.iter().enumerate() {
            let update_dim = usize::try_from(window_dim)
                .ok()
                .and_then(|d| update.dims.get(d))
                .copied()
                .ok_or_else(inconsistent)?;
            let bound = *window_bounds.get(k).ok_or_else(inconsistent)?;
            if let (Some(u), Some(b)) = (update_dim.extent(), bound.extent()) {
                if u > b {
                    return Err(invalid(
                        op,
                        format!("update window dimension {window_dim} has size {u}, beyond the operand's {b}"),
                    ));
                }
            }
        }
        let mut scatter_seen = 0usize;
        for (j, &update_dim) in update.dims.iter().enumerate() {
            if dnums.update_window_dims.contains(&(j as i64)) {
                continue;
            }
            if scatter_seen == ivd {
                scatter_seen += 1;
            }
            let index_dim = *expanded.get(scatter_seen).ok_or_else(inconsistent)?;
            if !compatible(update_dim, index_dim) {
                return Err(invalid(
                    op,
                    format!(
                        "update scatter dimension {j} has size {} but the matching scatter indices dimension has size {}",
                        show_size(update_dim),
                        show_size(index_dim)
                    ),
                ));
            }
            scatter_seen += 1;
        }
        if !same_type_ignoring_fp_precision(operand.element_type, update.element_type) {
            return Err(invalid(
                op,
                format!(
                    "updates {n} have type {} but operand {n} has type {}",
                    update.element_type, operand.element_type
                ),
            ));
        }
    }
    Ok(one_or_tuple(
        operands
            .iter()
            .map(|operand| array(operand.element_type, operand.dims.clone()))
            .collect(),
    ))
}

fn validate_scatter_dnums(
    op: &str,
    operand: &ArrayShape,
    expanded: &[Dim],
    ivd: usize,
    update: &ArrayShape,
    dnums: &ScatterDimensionNumbers,
) -> Result<(), ShapeError> {
    let operand_name = described("the operand", operand);
    let rank = operand.rank();
    check_ascending(op, "update_window_dims", &dnums.update_window_dims)?;
    check_in_range(
        op,
        "update window dim",
        described("the updates", update),
        &dnums.update_window_dims,
        update.rank(),
    )?;
    check_ascending(op, "inserted_window_dims", &dnums.inserted_window_dims)?;
    check_in_range(
        op,
        "inserted window dim",
        operand_name,
        &dnums.inserted_window_dims,
        rank,
    )?;
    let window_size = dnums.update_window_dims.len()
        + dnums.inserted_window_dims.len()
        + dnums.input_batching_dims.len();
    if window_size != rank {
        return Err(invalid(
            op,
            format!(
                "the window has {window_size} dimensions but the operand {} has rank {rank}",
                human(operand)
            ),
        ));
    }
    let index_count = expanded.get(ivd).copied().unwrap_or(Dim::Static(0));
    let map_len = i64::try_from(dnums.scatter_dims_to_operand_dims.len()).unwrap_or(i64::MAX);
    if !compatible(Dim::Static(map_len), index_count) {
        return Err(invalid(
            op,
            format!(
                "scatter_dims_to_operand_dims has {map_len} entries but dimension index_vector_dim={ivd} of the scatter indices has size {}",
                show_size(index_count)
            ),
        ));
    }
    check_in_range(
        op,
        "scatter_dims_to_operand_dims entry",
        operand_name,
        &dnums.scatter_dims_to_operand_dims,
        rank,
    )?;
    check_unique(
        op,
        "scatter_dims_to_operand_dims",
        &dnums.scatter_dims_to_operand_dims,
    )?;
    if dnums.input_batching_dims.len() != dnums.scatter_indices_batching_dims.len() {
        return Err(invalid(
            op,
            format!(
                "input_batching_dims and scatter_indices_batching_dims must have the same length, got {} and {}",
                dnums.input_batching_dims.len(),
                dnums.scatter_indices_batching_dims.len()
            ),
        ));
    }
    check_ascending(op, "input_batching_dims", &dnums.input_batching_dims)?;
    check_in_range(
        op,
        "input batching dim",
        operand_name,
        &dnums.input_batching_dims,
        rank,
    )?;
    check_in_range(
        op,
        "scatter indices batching dim",
        "the scatter indices",
        &dnums.scatter_indices_batching_dims,
        expanded.len(),
    )?;
    check_unique(
        op,
        "scatter_indices_batching_dims",
        &dnums.scatter_indices_batching_dims,
    )
}

/// `tuple`: the tuple of the operand shapes.
pub fn tuple(elements: &[Shape]) -> Shape {
    Shape::Tuple(elements.iter().map(without_layouts).collect())
}

/// `get-tuple-element`: element `index` of a tuple.
pub fn get_tuple_element(operand: &Shape, index: i64) -> Result<Shape, ShapeError> {
    let op = "get-tuple-element";
    let Shape::Tuple(elements) = operand else {
        return Err(invalid(op, format!("the operand {operand} is not a tuple")));
    };
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .map(without_layouts)
        .ok_or_else(|| {
            invalid(
                op,
                format!(
                    "index {index} is out of range for a tuple of {} elements",
                    elements.len()
                ),
            )
        })
}

/// `iota`: nothing to infer; the declared shape must be a non-scalar array of an integral,
/// floating-point or complex type, and `iota_dimension` one of its dims.
pub fn iota(shape: &ArrayShape, iota_dimension: i64) -> Result<ArrayShape, ShapeError> {
    let op = "iota";
    expect_array(op, "result", shape)?;
    if shape.rank() == 0 {
        return Err(invalid(op, "iota does not support scalars"));
    }
    dim_index(
        op,
        "iota_dimension",
        described("the result", shape),
        iota_dimension,
        shape.rank(),
    )?;
    let ty = shape.element_type;
    if !ty.is_integral() && !ty.is_floating_point() && !ty.is_complex() {
        return Err(type_error(op, "an integral, floating-point or complex", ty));
    }
    Ok(array(ty, shape.dims.clone()))
}

/// Checks the start indices of `dynamic-slice` and `dynamic-update-slice`: one integral
/// scalar per operand dim, all of one type, or (the old form) one integral vector of them.
fn check_start_indices(
    op: &str,
    operand: &ArrayShape,
    start_indices: &[&ArrayShape],
) -> Result<(), ShapeError> {
    let rank = operand.rank();
    match start_indices.first() {
        Some(first) if first.rank() == 1 => {
            if start_indices.len() != 1 {
                return Err(invalid(
                    op,
                    format!(
                        "a vector of start indices must be the only index operand, got {}",
                        start_indices.len()
                    ),
                ));
            }
            expect_array(op, "start indices", first)?;
            if !first.element_type.is_integral() {
                return Err(invalid(
                    op,
                    format!("start indices must be integral, got {}", human(first)),
                ));
            }
            let count = first.dims.first().and_then(|d| d.extent());
            if count != i64::try_from(rank).ok() {
                return Err(invalid(
                    op,
                    format!(
                        "start indices {} must have one entry per dimension of {}",
                        human(first),
                        human(operand)
                    ),
                ));
            }
        }
        _ => {
            if start_indices.len() != rank {
                return Err(invalid(
                    op,
                    format!(
                        "{} start indices for an operand {} of rank {rank}",
                        start_indices.len(),
                        human(operand)
                    ),
                ));
            }
            if let Some(first) = start_indices.first() {
                expect_array(op, "start index", first)?;
                if first.rank() != 0 {
                    return Err(invalid(
                        op,
                        format!("start indices must be scalars, got {}", human(first)),
                    ));
                }
                if !first.element_type.is_integral() {
                    return Err(invalid(
                        op,
                        format!("start indices must be integral, got {}", human(first)),
                    ));
                }
                for index in start_indices {
                    if index.element_type != first.element_type || !same_dims(index, first) {
                        return Err(invalid(
                            op,
                            format!(
                                "start indices must all have one shape, got {} and {}",
                                human(first),
                                human(index)
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `dynamic-slice`: the result has `slice_sizes`, each at most its operand dim; a slice of a
/// whole dynamic dim (of more than one element) stays dynamic.
pub fn dynamic_slice(
    operand: &ArrayShape,
    start_indices: &[&ArrayShape],
    slice_sizes: &[i64],
) -> Result<ArrayShape, ShapeError> {
    let op = "dynamic-slice";
    expect_array(op, "operand", operand)?;
    check_start_indices(op, operand, start_indices)?;
    if slice_sizes.len() != operand.rank() {
        return Err(invalid(
            op,
            format!(
                "dynamic_slice_sizes={{{}}} must have one size per dimension of {}",
                join(slice_sizes),
                human(operand)
            ),
        ));
    }
    let mut dims = Vec::with_capacity(operand.rank());
    for (i, (&size, &dim)) in slice_sizes.iter().zip(&operand.dims).enumerate() {
        if size < 0 {
            return Err(invalid(
                op,
                format!("negative slice size {size} in dimension {i}"),
            ));
        }
        if dim.extent().is_some_and(|bound| size > bound) {
            return Err(invalid(
                op,
                format!(
                    "slice size {size} is larger than dimension {i} of size {}",
                    show_size(dim)
                ),
            ));
        }
        let dynamic = dim.is_dynamic() && size > 1 && dim.extent() == Some(size);
        dims.push(dim_from(Some(size), dynamic));
    }
    Ok(array(operand.element_type, dims))
}

/// `dynamic-update-slice`: the result is the operand; the update has its rank and type and
/// fits in it. A dynamic update of a whole dim makes that dim dynamic.
pub fn dynamic_update_slice(
    operand: &ArrayShape,
    update: &ArrayShape,
    start_indices: &[&ArrayShape],
) -> Result<ArrayShape, ShapeError> {
    let op = "dynamic-update-slice";
    expect_array(op, "operand", operand)?;
    expect_array(op, "update", update)?;
    check_start_indices(op, operand, start_indices)?;
    if update.rank() != operand.rank() {
        return Err(invalid(
            op,
            format!(
                "the update {} must have the rank of the operand {}",
                human(update),
                human(operand)
            ),
        ));
    }
    if !same_type_ignoring_fp_precision(operand.element_type, update.element_type) {
        return Err(invalid(
            op,
            format!(
                "the update type {} differs from the operand type {}",
                update.element_type, operand.element_type
            ),
        ));
    }
    let mut dims = Vec::with_capacity(operand.rank());
    for (i, (&dim, &update_dim)) in operand.dims.iter().zip(&update.dims).enumerate() {
        if let (Some(u), Some(b)) = (update_dim.extent(), dim.extent()) {
            if u > b {
                return Err(invalid(
                    op,
                    format!("update dimension {i} of size {u} is larger than the operand's {b}"),
                ));
            }
        }
        let whole_dynamic_update = update_dim.is_dynamic() && update_dim.extent() == dim.extent();
        dims.push(dim_from(
            dim.extent(),
            dim.is_dynamic() || whole_dynamic_update,
        ));
    }
    Ok(array(operand.element_type, dims))
}

/// `reverse`: the operand's shape; the dims must be distinct and in range.
pub fn reverse(operand: &ArrayShape, dimensions: &[i64]) -> Result<ArrayShape, ShapeError> {
    let op = "reverse";
    expect_array(op, "operand", operand)?;
    check_unique(op, "dimensions", dimensions)?;
    check_in_range(
        op,
        "reversed dimension",
        described("the operand", operand),
        dimensions,
        operand.rank(),
    )?;
    Ok(array(operand.element_type, operand.dims.clone()))
}

/// `copy`: the operand's shape, whatever it is.
pub fn copy(operand: &Shape) -> Shape {
    without_layouts(operand)
}

/// `sort` along `dimension`: one operand gives its shape, several (keys and values) a tuple;
/// all must have the same dims.
pub fn sort(operands: &[&ArrayShape], dimension: i64) -> Result<Shape, ShapeError> {
    let op = "sort";
    let first = operands
        .first()
        .ok_or_else(|| invalid(op, "needs at least one operand"))?;
    for (i, operand) in operands.iter().enumerate() {
        expect_array(op, format_args!("operand {i}"), operand)?;
        if !same_dims(first, operand) {
            return Err(invalid(
                op,
                format!(
                    "keys {} and values {} (operand {i}) must have the same dimensions",
                    human(first),
                    human(operand)
                ),
            ));
        }
    }
    dim_index(
        op,
        "sort dimension",
        described("the operand", first),
        dimension,
        first.rank(),
    )?;
    Ok(one_or_tuple(
        operands
            .iter()
            .map(|operand| array(operand.element_type, operand.dims.clone()))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::attrs::SliceRange;

    /// A shape from its text; the examples below are instructions of the corpus, given as
    /// result(operands) with their declared shapes.
    fn s(text: &str) -> ArrayShape {
        crate::parse_array_shape(text).unwrap_or_else(|_| over_the_text_limit(text))
    }

    /// `f32[9223372036854775807]` and the like, which text may not describe (arrays take at
    /// most 2^48 bytes there), built directly: inference must still handle them.
    fn over_the_text_limit(text: &str) -> ArrayShape {
        let (ty, dims) = text.trim_end_matches(']').split_once('[').unwrap();
        let dims: Vec<i64> = dims.split(',').map(|d| d.parse().unwrap()).collect();
        ArrayShape::new(crate::ir::PrimitiveType::from_name(ty).unwrap(), &dims)
    }

    fn show<T: std::fmt::Display>(result: Result<T, ShapeError>) -> String {
        match result {
            Ok(shape) => shape.to_string(),
            Err(error) => format!("error: {error}"),
        }
    }

    fn window(text: &str) -> Window {
        let fields: Vec<(&str, &str)> = text
            .split(' ')
            .map(|field| field.split_once('=').unwrap())
            .collect();
        Window::parse(&fields).unwrap()
    }

    fn message(result: Result<impl std::fmt::Debug, ShapeError>) -> String {
        match result {
            Err(error) => error.to_string(),
            Ok(shape) => panic!("expected an error, got {shape:?}"),
        }
    }

    /// Messages whose text is written only when the check fails name what they named when
    /// it was written up front.
    #[test]
    fn messages_written_on_failure_name_the_arrays_and_dims() {
        let dnums = |lhs_contracting: Vec<i64>, rhs_batch: Vec<i64>| DotDimensionNumbers {
            lhs_batch: if rhs_batch.is_empty() {
                vec![]
            } else {
                vec![0]
            },
            lhs_contracting,
            rhs_batch,
            rhs_contracting: vec![0],
        };
        let (lhs, rhs) = (s("f32[2,3]"), s("f32[3,4]"));
        let found = [
            message(dot(&lhs, &rhs, &dnums(vec![5], vec![]), None)),
            message(dot(&lhs, &rhs, &dnums(vec![1], vec![7]), None)),
            message(reduce(&[&lhs], &[&s("f32[]")], &[4])),
            message(reduce(
                &[&lhs],
                &[&array(PrimitiveType::Token, vec![])],
                &[0],
            )),
            message(pad(
                &s("f32[9223372036854775807]"),
                &s("f32[]"),
                &PaddingConfig {
                    dimensions: vec![crate::ir::attrs::PaddingDimension {
                        edge_low: 0,
                        edge_high: 1,
                        interior: 0,
                    }],
                },
            )),
        ];
        let expected = [
            "dot: lhs contracting dim 5 is out of range for the lhs f32[2,3] of rank 2",
            "dot: rhs batch dim 7 is out of range for the rhs f32[3,4] of rank 2",
            "reduce: reduced dimension 4 is out of range for the operand f32[2,3] of rank 2",
            "reduce: init value 0 must be an array, got token[]",
            "pad: the padded size of dimension 0 overflows",
        ];
        for (found, expected) in found.iter().zip(expected) {
            assert!(found.starts_with(expected), "{found}");
        }
    }

    #[test]
    fn unary_result_types() {
        let u = |op: &str, operand: &str| show(unary(&Opcode::from_name(op), &s(operand)));
        // complex_ops, pred_logic, bit_manipulation.
        assert_eq!(u("abs", "c64[16,16]{1,0}"), "f32[16,16]");
        assert_eq!(u("abs", "f32[16,16]{1,0}"), "f32[16,16]");
        assert_eq!(u("real", "c64[16,16]{1,0}"), "f32[16,16]");
        assert_eq!(u("imag", "c128[3]"), "f64[3]");
        assert_eq!(u("real", "bf16[3]"), "bf16[3]");
        assert_eq!(u("is-finite", "f32[32,32]{1,0}"), "pred[32,32]");
        assert_eq!(u("popcnt", "u32[256]{0}"), "u32[256]");
        assert_eq!(u("count-leading-zeros", "u32[256]{0}"), "u32[256]");
        assert_eq!(u("sign", "s32[16]{0}"), "s32[16]");
        assert_eq!(u("sign", "c64[2]"), "c64[2]");
        assert_eq!(u("exponential", "c64[2]"), "c64[2]");
        assert_eq!(u("not", "pred[2]"), "pred[2]");
        assert_eq!(u("negate", "s8[2]"), "s8[2]");
        assert_eq!(
            show(unary(&Opcode::Copy, &array(PrimitiveType::Token, vec![]))),
            "error: copy: operand must be an array, got token[]"
        );
        // Dynamic dims are kept as they are.
        assert_eq!(u("abs", "c64[<=4,?]"), "f32[<=4,?]");
        for (op, operand) in [
            ("abs", "u32[2]"),
            ("imag", "s32[2]"),
            ("is-finite", "s32[2]"),
            ("popcnt", "f32[2]"),
            ("sign", "u8[2]"),
            ("not", "f32[2]"),
            ("negate", "pred[2]"),
            ("floor", "s32[2]"),
            ("erf", "c64[2]"),
            ("sqrt", "s32[2]"),
        ] {
            assert!(
                u(op, operand).starts_with(&format!("error: {op}: expected")),
                "{op}"
            );
        }
        assert!(u("convert", "f32[2]").contains("use `convert`"));
        assert!(u("add", "f32[2]").contains("not an elementwise unary opcode"));
        assert_eq!(show(reduce_precision(&s("f32[2]"), 8, 7)), "f32[2]");
        assert!(reduce_precision(&s("f32[2]"), 0, 7).is_err());
        assert!(reduce_precision(&s("f32[2]"), 8, -1).is_err());
        assert!(reduce_precision(&s("s32[2]"), 8, 7).is_err());
    }

    #[test]
    fn binary_result_types_and_dims() {
        let b = |op: &str, l: &str, r: &str| show(binary(&Opcode::from_name(op), &s(l), &s(r)));
        // complex_ops and bit_manipulation.
        assert_eq!(
            b("complex", "f32[16,16]{1,0}", "f32[16,16]{1,0}"),
            "c64[16,16]"
        );
        assert_eq!(b("complex", "f64[2]", "f64[2]"), "c128[2]");
        assert_eq!(
            b("atan2", "f32[16,16]{1,0}", "f32[16,16]{1,0}"),
            "f32[16,16]"
        );
        assert_eq!(b("compare", "s32[256]{0}", "s32[256]{0}"), "pred[256]");
        assert_eq!(b("compare", "s32[]", "s32[]"), "pred[]");
        assert_eq!(b("add", "f32[2,3]", "f32[2,3]{0,1}"), "f32[2,3]");
        // Mixed floating-point precision gives the more precise type.
        assert_eq!(b("multiply", "bf16[2]", "f32[2]"), "f32[2]");
        assert_eq!(b("shift-left", "u32[4]", "u32[4]"), "u32[4]");
        assert_eq!(b("and", "pred[4]", "pred[4]"), "pred[4]");
        // Dynamic dims: the more specific size wins.
        assert_eq!(b("add", "f32[<=4,3]", "f32[4,3]"), "f32[<=4,3]");
        assert_eq!(b("add", "f32[?,3]", "f32[4,3]"), "f32[4,3]");
        assert_eq!(b("add", "f32[?,3]", "f32[<=4,3]"), "f32[<=4,3]");
        assert_eq!(b("add", "f32[?]", "f32[?]"), "f32[?]");
        // XLA's degenerate rule: 1 against unbounded gives unbounded.
        assert_eq!(b("add", "f32[1]", "f32[?]"), "f32[?]");
        assert_eq!(
            b("add", "f32[2,3]", "f32[2,4]"),
            "error: add: operands must have the same dimensions (HLO has no implicit broadcast), got f32[2,3] and f32[2,4]"
        );
        assert!(b("add", "f32[]", "f32[2]").contains("no implicit broadcast"));
        assert!(b("add", "f32[1]", "f32[2]").contains("no implicit broadcast"));
        assert!(b("add", "s32[2]", "u32[2]").contains("different element types"));
        assert!(b("subtract", "pred[2]", "pred[2]").contains("got pred"));
        assert!(b("and", "f32[2]", "f32[2]").contains("pred or integral"));
        assert!(b("atan2", "s32[2]", "s32[2]").contains("floating-point or complex"));
        assert!(b("complex", "bf16[2]", "bf16[2]").contains("not implemented"));
        assert!(b("complex", "s32[2]", "s32[2]").contains("floating-point"));
        assert!(b("stochastic-convert", "f32[2]", "u32[2]").contains("stochastic_convert"));
        assert!(b("abs", "f32[2]", "f32[2]").contains("not an elementwise binary"));
        assert_eq!(
            show(stochastic_convert(
                &s("f32[2]"),
                &s("u32[2]"),
                PrimitiveType::Bf16
            )),
            "bf16[2]"
        );
        assert!(stochastic_convert(&s("f32[2]"), &s("u16[2]"), PrimitiveType::Bf16).is_err());
        assert!(stochastic_convert(&s("f32[2]"), &s("s32[2]"), PrimitiveType::Bf16).is_err());
        assert!(stochastic_convert(&s("f32[2]"), &s("u32[3]"), PrimitiveType::Bf16).is_err());
    }

    #[test]
    fn higher_precision_follows_range_then_precision_then_width() {
        use PrimitiveType::*;
        assert_eq!(higher_precision_type(Bf16, F32), F32);
        assert_eq!(higher_precision_type(F16, Bf16), Bf16);
        assert_eq!(higher_precision_type(F64, C64), C64);
        assert_eq!(higher_precision_type(F8E4m3fn, F8E5m2), F8E5m2);
        assert_eq!(higher_precision_type(F8E5m2, F16), F16);
        assert_eq!(higher_precision_type(U32, S32), S32);
        assert_eq!(higher_precision_type(S32, U64), U64);
        assert_eq!(higher_precision_type(F4E2m1fn, F6E2m3fn), F6E2m3fn);
    }

    #[test]
    fn convert_and_bitcast_convert() {
        use PrimitiveType::*;
        let bc = |operand: &str, ty| show(bitcast_convert(&s(operand), ty));
        // bit_manipulation.
        assert_eq!(bc("f32[256]{0}", U32), "u32[256]");
        assert_eq!(bc("f32[256]{0}", U16), "u16[256,2]");
        assert_eq!(bc("u16[256,2]", F32), "f32[256]");
        assert_eq!(bc("u8[<=3,4]", F32), "f32[<=3]");
        assert_eq!(bc("pred[4]", S8), "s8[4]");
        assert_eq!(bc("s8[]", S4), "s4[2]");
        assert_eq!(bc("s4[2]", U8), "u8[]");
        assert_eq!(bc("c64[2]", C64), "c64[2]");
        assert!(bc("u16[256,3]", F32).contains("width ratio 2"));
        assert!(bc("u16[]", F32).contains("width ratio 2"));
        assert!(bc("u8[?]", U16).contains("width ratio 2"));
        assert!(bc("c64[2]", F32).contains("complex and real"));
        assert!(bc("f32[2]", C64).contains("complex and real"));
        assert!(bc("f6e2m3fn[2]", S8).contains("do not divide"));
        assert_eq!(show(convert(&s("f32[2,<=3]"), Bf16)), "bf16[2,<=3]");
        assert!(convert(&s("f32[2]"), Token).is_err());
    }

    #[test]
    fn select_and_clamp() {
        // gather_scatter_indexing: select(pred[8,16], s32[8,16], s32[8,16]).
        assert_eq!(
            show(select(
                &s("pred[8,16]{1,0}"),
                &s("s32[8,16]{1,0}"),
                &s("s32[8,16]{1,0}")
            )),
            "s32[8,16]"
        );
        assert_eq!(
            show(select(&s("pred[]"), &s("f32[3]"), &s("f32[3]"))),
            "f32[3]"
        );
        assert_eq!(
            show(select(&s("pred[<=3]"), &s("f32[3]"), &s("f32[3]"))),
            "f32[<=3]"
        );
        assert_eq!(
            show(select(&s("pred[]"), &s("f32[?]"), &s("f32[3]"))),
            "f32[3]"
        );
        assert_eq!(
            show(select(&s("pred[]"), &s("f32[?]"), &s("f32[<=3]"))),
            "f32[<=3]"
        );
        assert_eq!(
            show(select(&s("pred[]"), &s("bf16[2]"), &s("f32[2]"))),
            "f32[2]"
        );
        assert!(message(select(&s("s32[]"), &s("f32[3]"), &s("f32[3]"))).contains("must be pred"));
        assert!(message(select(&s("pred[]"), &s("f32[3]"), &s("f32[4]"))).contains("same shape"));
        assert!(message(select(&s("pred[]"), &s("f32[3]"), &s("s32[3]"))).contains("same shape"));
        assert!(message(select(&s("pred[2]"), &s("f32[3]"), &s("f32[3]")))
            .contains("a scalar or have the dims"));
        // sort_argsort_topk: clamp(f32[], f32[], f32[]); scalar bounds for an array too.
        assert_eq!(show(clamp(&s("f32[]"), &s("f32[]"), &s("f32[]"))), "f32[]");
        assert_eq!(
            show(clamp(&s("f32[]"), &s("f32[2,<=3]"), &s("f32[2,3]"))),
            "f32[2,<=3]"
        );
        assert!(
            message(clamp(&s("f32[3]"), &s("f32[4]"), &s("f32[]"))).contains("incompatible shapes")
        );
        assert!(message(clamp(&s("f32[3]"), &s("f32[3]"), &s("f32[4]")))
            .contains("incompatible shapes"));
        assert!(message(clamp(&s("s32[]"), &s("f32[4]"), &s("f32[]")))
            .contains("incompatible element types"));
    }

    #[test]
    fn broadcast_maps_operand_dims() {
        let result = |dims: &[i64]| s(&format!("f32[{}]", join(dims))).dims;
        // gather_scatter_indexing: s32[50,8] broadcast(s32[8]), dimensions={1}.
        assert_eq!(
            show(broadcast(&s("s32[8]{0}"), &result(&[50, 8]), &[1])),
            "s32[50,8]"
        );
        assert_eq!(
            show(broadcast(&s("f32[]"), &result(&[2, 3]), &[])),
            "f32[2,3]"
        );
        assert_eq!(
            show(broadcast(&s("f32[2,3]"), &result(&[3, 5, 2]), &[2, 0])),
            "f32[3,5,2]"
        );
        // A mapped dim keeps the operand's dynamism.
        assert_eq!(
            show(broadcast(&s("s32[<=8]"), &result(&[50, 8]), &[1])),
            "s32[50,<=8]"
        );
        assert_eq!(
            message(broadcast(&s("s32[8]"), &result(&[50, 9]), &[1])),
            "broadcast: operand dimension 0 has size 8 but result dimension 1 has size 9"
        );
        assert!(message(broadcast(&s("s32[8]"), &result(&[50, 8]), &[]))
            .contains("one entry per operand dimension"));
        assert!(matches!(
            broadcast(&s("s32[8]"), &result(&[50, 8]), &[2]),
            Err(ShapeError::DimOutOfRange {
                dim: 2,
                rank: 2,
                ..
            })
        ));
        assert!(broadcast(&s("s32[8]"), &result(&[50, 8]), &[-1]).is_err());
    }

    #[test]
    fn reshape_counts_elements() {
        let dims = |text: &str| s(text).dims;
        // gather_scatter_indexing: s32[50,3,1] reshape(s32[50,3]).
        assert_eq!(
            show(reshape(&s("s32[50,3]{1,0}"), &dims("f32[50,3,1]"))),
            "s32[50,3,1]"
        );
        assert_eq!(show(reshape(&s("f32[]"), &dims("f32[1,1]"))), "f32[1,1]");
        assert_eq!(show(reshape(&s("f32[?,4]"), &dims("f32[8]"))), "f32[8]");
        assert_eq!(
            message(reshape(&s("s32[50,3]"), &dims("f32[50,4]"))),
            "reshape: element counts differ: 150 in s32[50,3] but 200 in s32[50,4]"
        );
        assert!(message(reshape(&s("f32[8]"), &dims("f32[?]"))).contains("unbounded"));
        assert!(matches!(
            reshape(&s("f32[4611686018427387904,4]"), &dims("f32[2]")),
            Err(ShapeError::Overflow { .. })
        ));
    }

    #[test]
    fn transpose_permutes() {
        // shape_manipulation and transformer_block_fwd.
        assert_eq!(
            show(transpose(&s("f32[4,8,16]{2,1,0}"), &[2, 0, 1])),
            "f32[16,4,8]"
        );
        assert_eq!(
            show(transpose(&s("f32[4,8,32,128]"), &[0, 3, 1, 2])),
            "f32[4,128,8,32]"
        );
        assert_eq!(show(transpose(&s("f32[<=4,8]"), &[1, 0])), "f32[8,<=4]");
        for bad in [
            &[0, 0, 1][..],
            &[0, 1],
            &[0, 1, 3],
            &[-1, 0, 1],
            &[0, 1, 2, 3],
        ] {
            assert!(message(transpose(&s("f32[4,8,16]"), bad)).contains("not a permutation"));
        }
    }

    #[test]
    fn slice_sizes_and_errors() {
        let sl = |operand: &str, ranges: &[(i64, i64, Option<i64>)]| {
            show(slice(&s(operand), &SliceConfig::from_ranges(ranges)))
        };
        // cumulative_ops.
        assert_eq!(
            sl("f32[16,256]", &[(0, 16, Some(1)), (0, 255, Some(2))]),
            "f32[16,128]"
        );
        assert_eq!(
            sl("f32[16,256]", &[(0, 16, Some(1)), (1, 256, Some(2))]),
            "f32[16,128]"
        );
        assert_eq!(
            sl("f32[16,256]", &[(0, 16, None), (0, 1, None)]),
            "f32[16,1]"
        );
        assert_eq!(sl("f32[5]", &[(5, 5, None)]), "f32[0]");
        assert_eq!(sl("f32[]", &[]), "f32[]");
        // A bounded dim stays bounded unless one element is taken; an unbounded one is sliced
        // to a static size.
        assert_eq!(
            sl("f32[<=10,?]", &[(0, 5, None), (0, 5, None)]),
            "f32[<=5,5]"
        );
        assert_eq!(sl("f32[<=10]", &[(2, 3, None)]), "f32[1]");
        assert!(
            sl("f32[16]", &[(0, 17, None)]).contains("limit 17 is beyond dimension 0 of size 16")
        );
        assert!(sl("f32[16]", &[(3, 2, None)]).contains("past limit"));
        assert!(sl("f32[16]", &[(-1, 2, None)]).contains("negative start"));
        assert!(sl("f32[16]", &[(0, 2, Some(0))]).contains("must be positive"));
        assert!(sl("f32[16]", &[]).contains("0 ranges for an operand of rank 1"));
        let huge = SliceConfig {
            ranges: vec![SliceRange {
                start: 0,
                limit: i64::MAX,
                stride: i64::MAX,
            }],
        };
        assert_eq!(show(slice(&s("f32[?]"), &huge)), "f32[1]");
    }

    #[test]
    fn concatenate_sums_and_merges_dynamism() {
        let c = |operands: &[&str], dimension| {
            let shapes: Vec<ArrayShape> = operands.iter().map(|t| s(t)).collect();
            let refs: Vec<&ArrayShape> = shapes.iter().collect();
            show(concatenate(&refs, dimension))
        };
        // cumulative_ops.
        assert_eq!(c(&["f32[16,1]{1,0}", "f32[16,3]{1,0}"], 1), "f32[16,4]");
        assert_eq!(c(&["f32[16,1]", "f32[16,7]"], 1), "f32[16,8]");
        assert_eq!(c(&["f32[3]"], 0), "f32[3]");
        assert_eq!(c(&["f32[<=3]", "f32[4]"], 0), "f32[<=7]");
        assert_eq!(c(&["f32[?]", "f32[4]"], 0), "f32[?]");
        assert_eq!(c(&["f32[?]", "f32[<=4]"], 0), "f32[?]");
        assert_eq!(c(&["f32[2,<=3]", "f32[2,3]"], 0), "f32[4,<=3]");
        assert_eq!(c(&["f32[2,?]", "f32[2,3]"], 0), "f32[4,3]");
        assert_eq!(c(&["bf16[2]", "f32[2]"], 0), "f32[4]");
        assert!(c(&["f32[2,<=3]", "f32[2,<=4]"], 0).contains("dimension 1 differs"));
        assert!(c(&["f32[2,3]", "f32[2,4]"], 0).contains("dimension 1 differs"));
        assert!(c(&["f32[2,3]", "f32[2]"], 0).contains("different ranks"));
        assert!(c(&["f32[2]", "s32[2]"], 0).contains("different element types"));
        assert!(c(&["f32[2]"], 1).contains("out of range"));
        assert!(c(&["f32[2]"], -1).contains("out of range"));
        assert!(c(&[], 0).contains("at least one operand"));
        assert!(c(&["f32[9223372036854775807]", "f32[1]"], 0).contains("overflows"));
    }

    #[test]
    fn pad_with_negative_and_interior_padding() {
        let p = |operand: &str, padding: &str| {
            show(pad(
                &s(operand),
                &s("f32[]"),
                &PaddingConfig::parse(padding).unwrap(),
            ))
        };
        // shape_manipulation and cumulative_ops.
        assert_eq!(p("f32[32,16]{1,0}", "1_2_1x-2_3_0"), "f32[66,17]");
        assert_eq!(p("f32[16,1]", "0_0_0x0_1_1"), "f32[16,2]");
        assert_eq!(p("f32[0]", "1_1_5"), "f32[2]");
        assert_eq!(p("f32[<=4,?]", "1_1x1_1"), "f32[<=6,?]");
        assert_eq!(p("f32[2]", "-2_0"), "f32[0]");
        assert_eq!(
            p("f32[2]", "-2_-1"),
            "error: pad: padding gives dimension 0 the negative size -1"
        );
        assert!(p("f32[2]", "0_0_-1").contains("interior padding cannot be negative"));
        assert!(p("f32[2]", "0_0x0_0").contains("has 2 dimensions"));
        assert!(p("f32[9223372036854775807]", "0_1").contains("overflows"));
        assert!(p("f32[4611686018427387904]", "0_0_4").contains("overflows"));
        let config = PaddingConfig::parse("1_1").unwrap();
        assert!(message(pad(&s("f32[2]"), &s("f32[1]"), &config)).contains("must be a scalar"));
        assert!(message(pad(&s("f32[2]"), &s("s32[]"), &config))
            .contains("differs from the operand type"));
        assert_eq!(show(pad(&s("bf16[2]"), &s("f32[]"), &config)), "f32[4]");
    }

    #[test]
    fn dot_orders_batch_then_free_dims() {
        let dnums = |lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]| DotDimensionNumbers {
            lhs_batch: lb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_batch: rb.to_vec(),
            rhs_contracting: rc.to_vec(),
        };
        let d = |l: &str, r: &str, dn: &DotDimensionNumbers| show(dot(&s(l), &s(r), dn, None));
        // dot_general_batch_dims, cond_branches and complex_ops.
        assert_eq!(
            d("f32[6,5,7]", "f32[6,7,3]", &dnums(&[0], &[2], &[0], &[1])),
            "f32[6,5,3]"
        );
        assert_eq!(
            d(
                "f32[2,4,16,8]",
                "f32[2,4,24,8]",
                &dnums(&[0, 1], &[3], &[0, 1], &[3])
            ),
            "f32[2,4,16,24]"
        );
        assert_eq!(
            d("f32[32,64]", "f32[64,16]", &dnums(&[], &[1], &[], &[0])),
            "f32[32,16]"
        );
        assert_eq!(
            d(
                "c64[16,16]",
                "c64[16,16]{0,1}",
                &dnums(&[], &[1], &[], &[0])
            ),
            "c64[16,16]"
        );
        // A batch dim may come after the free dims; the result still starts with it.
        assert_eq!(
            d("f32[5,7,6]", "f32[6,3,7]", &dnums(&[2], &[1], &[0], &[2])),
            "f32[6,5,3]"
        );
        assert_eq!(
            d("f32[3]", "f32[4]", &dnums(&[], &[], &[], &[])),
            "f32[3,4]"
        );
        assert_eq!(
            d("bf16[2,3]", "f32[3]", &dnums(&[], &[1], &[], &[0])),
            "f32[2]"
        );
        assert_eq!(
            show(dot(
                &s("bf16[2,3]"),
                &s("bf16[3]"),
                &dnums(&[], &[1], &[], &[0]),
                Some(PrimitiveType::F32)
            )),
            "f32[2]"
        );
        assert_eq!(
            d("f32[<=6,?,7]", "f32[6,?,3]", &dnums(&[0], &[2], &[0], &[1])),
            "f32[<=6,?,3]"
        );
        assert_eq!(
            d("f32[2,3]", "f32[4,5]", &dnums(&[], &[1], &[], &[0])),
            "error: dot: lhs contracting dim 1 has size 3 but rhs contracting dim 0 has size 4"
        );
        assert_eq!(
            d("f32[2,3]", "f32[4,3]", &dnums(&[0], &[1], &[0], &[1])),
            "error: dot: lhs batch dim 0 has size 2 but rhs batch dim 0 has size 4"
        );
        assert!(matches!(
            dot(
                &s("f32[2,3]"),
                &s("f32[3]"),
                &dnums(&[], &[2], &[], &[0]),
                None
            ),
            Err(ShapeError::DimOutOfRange {
                dim: 2,
                rank: 2,
                ..
            })
        ));
        assert!(d("f32[2,3]", "f32[3]", &dnums(&[], &[-1], &[], &[0])).contains("out of range"));
        assert!(d("f32[2,3]", "f32[2,3]", &dnums(&[1], &[1], &[1], &[0])).contains("listed twice"));
        assert!(d("f32[2,3]", "f32[3]", &dnums(&[], &[1], &[], &[]))
            .contains("1 contracting dims but rhs has 0"));
        assert!(d("f32[2,3]", "f32[2,3]", &dnums(&[0], &[1], &[], &[1]))
            .contains("1 batch dims but rhs has 0"));
    }

    #[test]
    fn reduce_removes_dims_and_returns_tuples_for_many_operands() {
        let r = |operands: &[&str], inits: &[&str], dims: &[i64]| {
            let operands: Vec<ArrayShape> = operands.iter().map(|t| s(t)).collect();
            let inits: Vec<ArrayShape> = inits.iter().map(|t| s(t)).collect();
            show(reduce(
                &operands.iter().collect::<Vec<_>>(),
                &inits.iter().collect::<Vec<_>>(),
                dims,
            ))
        };
        // gather_scatter_indexing, bit_manipulation, random_threefry, loops_fori_while.
        assert_eq!(r(&["pred[50,3,1]"], &["pred[]"], &[2]), "pred[50,3]");
        assert_eq!(r(&["u32[256]"], &["u32[]"], &[0]), "u32[]");
        assert_eq!(r(&["c64[16,16]"], &["c64[]"], &[0]), "c64[16]");
        assert_eq!(
            r(&["f32[8,50]", "s32[8,50]"], &["f32[]", "s32[]"], &[1]),
            "(f32[8], s32[8])"
        );
        assert_eq!(
            r(&["f32[128]", "s32[128]"], &["f32[]", "s32[]"], &[0]),
            "(f32[], s32[])"
        );
        assert_eq!(r(&["f32[<=8,?,3]"], &["f32[]"], &[2]), "f32[<=8,?]");
        assert_eq!(r(&["f32[2,3]"], &["f32[]"], &[]), "f32[2,3]");
        assert!(r(&["f32[2,3]"], &["f32[]"], &[2]).contains("out of range"));
        assert!(r(&["f32[2,3]"], &["f32[]"], &[1, 1]).contains("must not repeat"));
        assert!(r(&["f32[2,3]"], &["f32[2]"], &[1]).contains("must be a scalar"));
        assert!(r(&["f32[2,3]"], &["s32[]"], &[1]).contains("init value 0 has type s32"));
        assert!(r(&["f32[2,3]", "s32[2,4]"], &["f32[]", "s32[]"], &[1]).contains("same dimensions"));
        assert!(r(&["f32[2,3]", "s32[2,3]"], &["f32[]"], &[1]).contains("need 2 init values"));
        assert!(r(&[], &[], &[0]).contains("at least one operand"));
    }

    #[test]
    fn reduce_window_output_sizes() {
        let rw = |operand: &str, w: &Window| show(reduce_window(&[&s(operand)], &[&s("f32[]")], w));
        // cumulative_ops and the ResNet pooling of large/.
        assert_eq!(
            rw("f32[16,256]", &window("size=1x256 pad=0_0x255_0")),
            "f32[16,256]"
        );
        assert_eq!(
            rw("f32[16,256]", &window("size=16x1 pad=15_0x0_0")),
            "f32[16,256]"
        );
        assert_eq!(
            rw(
                "f32[8,32,32,64]",
                &window("size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0")
            ),
            "f32[8,16,16,64]"
        );
        assert_eq!(
            rw("f32[16,16]", &window("size=1x16 pad=0_0x16_0")),
            "f32[16,17]"
        );
        assert_eq!(
            rw(
                "f32[64,128]",
                &window("size=1x32 stride=1x32 pad=0_0x14_14")
            ),
            "f32[64,4]"
        );
        // Dilations: the base dilates to 19 and the window to 5.
        assert_eq!(
            rw(
                "f32[10]",
                &window("size=3 stride=2 lhs_dilate=2 rhs_dilate=2")
            ),
            "f32[8]"
        );
        assert_eq!(rw("f32[4]", &window("size=3 pad=-1_-1")), "f32[0]");
        assert_eq!(rw("f32[0]", &window("size=1")), "f32[0]");
        assert_eq!(
            rw("f32[<=10,?]", &window("size=2x2 stride=2x2")),
            "f32[<=5,?]"
        );
        assert_eq!(rw("f32[]", &Window::default()), "f32[]");
        assert_eq!(
            show(reduce_window(
                &[&s("f32[8]"), &s("s32[8]")],
                &[&s("f32[]"), &s("s32[]")],
                &window("size=2 stride=2")
            )),
            "(f32[4], s32[4])"
        );
        assert!(rw("f32[2]", &window("size=2x2"))
            .contains("the window has 2 dimensions but the base has 1"));
        assert!(rw("f32[2]", &window("size=0")).contains("non-positive size"));
        assert!(rw("f32[2]", &window("size=1 stride=0")).contains("non-positive stride"));
        assert!(rw("f32[2]", &window("size=1 lhs_dilate=0")).contains("non-positive lhs dilation"));
        assert!(rw("f32[2]", &window("size=1 rhs_dilate=0")).contains("non-positive rhs dilation"));
        assert!(rw("f32[2]", &window("size=1 pad=-2_-1")).contains("negative"));
        assert!(rw("f32[9223372036854775807]", &window("size=1 pad=0_1")).contains("overflows"));
        assert!(
            rw("f32[2]", &window("size=1 lhs_dilate=9223372036854775807")).contains("overflows")
        );
        assert!(message(reduce_window(
            &[&s("f32[2]")],
            &[&s("s32[]")],
            &window("size=1")
        ))
        .contains("type s32"));
    }

    #[test]
    fn convolutions_of_the_corpus() {
        let conv = |lhs: &str, rhs: &str, w: &str, labels: &str, fgc: i64, bgc: i64| {
            show(convolution(
                &s(lhs),
                &s(rhs),
                fgc,
                bgc,
                &window(w),
                &ConvDimensionNumbers::parse(labels).unwrap(),
                None,
            ))
        };
        // Every convolution of conv_variants.
        assert_eq!(
            conv(
                "f32[2,4,17,17]",
                "f32[8,4,3,3]",
                "size=3x3 stride=2x2 pad=1_2x0_1",
                "bf01_oi01->bf01",
                1,
                1
            ),
            "f32[2,8,9,8]"
        );
        assert_eq!(
            conv(
                "f32[2,4,17,17]",
                "f32[8,4,3,3]",
                "size=3x3 pad=2_2x3_1 lhs_dilate=2x2 rhs_dilate=2x2",
                "bf01_oi01->bf01",
                1,
                1
            ),
            "f32[2,8,33,33]"
        );
        assert_eq!(
            conv(
                "f32[2,16,16,8]",
                "f32[3,3,1,8]",
                "size=3x3 pad=1_1x1_1",
                "b01f_01io->b01f",
                8,
                1
            ),
            "f32[2,16,16,8]"
        );
        assert_eq!(
            conv(
                "f32[2,16,16,8]",
                "f32[2,16,16,8]",
                "size=16x16 pad=1_1x1_1",
                "f01b_i01o->01bf",
                1,
                8
            ),
            "f32[3,3,1,8]"
        );
        assert_eq!(
            conv(
                "f32[2,100,6]",
                "f32[5,6,12]",
                "size=5",
                "b0f_0io->b0f",
                1,
                1
            ),
            "f32[2,96,12]"
        );
        assert_eq!(
            conv(
                "f32[1,8,8,8,2]",
                "f32[3,3,3,2,4]",
                "size=3x3x3 pad=1_1x1_1x1_1",
                "b012f_012io->b012f",
                1,
                1
            ),
            "f32[1,8,8,8,4]"
        );
        assert_eq!(
            conv(
                "f32[2,16,16,8]",
                "f32[3,3,8,8]",
                "size=3x3 pad=2_1x2_1 lhs_dilate=2x2",
                "b01f_01io->b01f",
                1,
                1
            ),
            "f32[2,32,32,8]"
        );
        // Dynamism: batch and spatial dims carry it to the output.
        assert_eq!(
            conv(
                "f32[<=2,<=16,16,8]",
                "f32[3,3,8,8]",
                "size=3x3 pad=1_1x1_1",
                "b01f_01io->b01f",
                1,
                1
            ),
            "f32[<=2,<=16,16,8]"
        );
        assert_eq!(
            conv(
                "f32[?,?,16,8]",
                "f32[3,3,8,8]",
                "size=3x3 pad=1_1x1_1",
                "b01f_01io->b01f",
                1,
                1
            ),
            "f32[?,?,16,8]"
        );
        let c = |lhs: &str, rhs: &str, w: &str, fgc: i64, bgc: i64| {
            conv(lhs, rhs, w, "b01f_01io->b01f", fgc, bgc)
        };
        assert!(c("f32[2,16,16,8]", "f32[3,3,1,8]", "size=3x3", 3, 1)
            .contains("multiple of feature_group_count 3"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,2,8]", "size=3x3", 8, 1)
            .contains("equal the kernel input feature size 2"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,8,6]", "size=3x3", 1, 4)
            .contains("multiple of batch_group_count 4"));
        assert!(
            c("f32[3,16,16,8]", "f32[3,3,8,8]", "size=3x3", 1, 2).contains("input batch size 3")
        );
        assert!(c("f32[2,16,16,8]", "f32[3,3,4,8]", "size=3x3", 2, 2)
            .contains("cannot both be greater than 1"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=5x5", 1, 1)
            .contains("window size 5 of spatial dimension 0"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=3", 1, 1)
            .contains("the window has 1 dimensions"));
        assert!(c("f32[2,16,8]", "f32[3,3,8,8]", "size=3x3", 1, 1).contains("should have rank 4"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,8,<=8]", "size=3x3", 1, 1)
            .contains("dynamic kernel output feature"));
        assert!(c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=3x3", 0, 1).contains("must be positive"));
        let mut bad_labels = ConvDimensionNumbers::parse("b01f_01io->b01f").unwrap();
        bad_labels.input_feature_dimension = 0;
        assert!(message(convolution(
            &s("f32[2,16,16,8]"),
            &s("f32[3,3,8,8]"),
            1,
            1,
            &window("size=3x3"),
            &bad_labels,
            None
        ))
        .contains(
            "input dimensions in dim_labels=f01_01io->b01f must name each dimension exactly once"
        ));
        bad_labels.input_feature_dimension = 7;
        assert!(message(convolution(
            &s("f32[2,16,16,8]"),
            &s("f32[3,3,8,8]"),
            1,
            1,
            &window("size=3x3"),
            &bad_labels,
            None
        ))
        .contains("out of range"));
        assert_eq!(
            show(convolution(
                &s("bf16[1,4,2]"),
                &s("bf16[1,2,3]"),
                1,
                1,
                &window("size=1"),
                &ConvDimensionNumbers::parse("b0f_0io->b0f").unwrap(),
                Some(PrimitiveType::F32)
            )),
            "f32[1,4,3]"
        );
    }

    fn gather_dnums(
        offset: &[i64],
        collapsed: &[i64],
        start_index_map: &[i64],
        ivd: i64,
    ) -> GatherDimensionNumbers {
        GatherDimensionNumbers {
            offset_dims: offset.to_vec(),
            collapsed_slice_dims: collapsed.to_vec(),
            start_index_map: start_index_map.to_vec(),
            index_vector_dim: ivd,
            ..Default::default()
        }
    }

    #[test]
    fn gathers_of_the_corpus() {
        let g = |operand: &str, indices: &str, dnums: &GatherDimensionNumbers, sizes: &[i64]| {
            show(gather(&s(operand), &s(indices), dnums, sizes))
        };
        let embedding = gather_dnums(&[2], &[0], &[0], 2);
        // gather_scatter_indexing: an embedding lookup and a batched take_along_axis.
        assert_eq!(
            g("f32[1000,64]", "s32[8,16,1]", &embedding, &[1, 64]),
            "f32[8,16,64]"
        );
        let batched = GatherDimensionNumbers {
            operand_batching_dims: vec![0],
            start_indices_batching_dims: vec![0],
            ..gather_dnums(&[], &[1], &[1], 2)
        };
        assert_eq!(
            g("f32[50,8]", "s32[50,3,1]", &batched, &[1, 1]),
            "f32[50,3]"
        );
        // The opt dumps: gather(f32[150,2]?) with offset dims after the batch dim.
        assert_eq!(
            g(
                "f32[4,5]",
                "s32[150,2]",
                &gather_dnums(&[1, 2], &[], &[0, 1], 1),
                &[1, 1]
            ),
            "f32[150,1,1]"
        );
        // index_vector_dim equal to the indices' rank means an implicit trailing 1.
        assert_eq!(
            g("f32[1000,64]", "s32[8,16]", &embedding, &[1, 64]),
            "f32[8,16,64]"
        );
        assert_eq!(
            g("f32[5]", "s32[]", &gather_dnums(&[0], &[], &[0], 0), &[2]),
            "f32[2]"
        );
        // Dynamism: indices' batch dims carry theirs; a whole dynamic operand dim stays dynamic.
        assert_eq!(
            g("f32[1000,<=64]", "s32[<=8,?,1]", &embedding, &[1, 64]),
            "f32[<=8,?,<=64]"
        );
        assert_eq!(
            g("f32[1000,<=64]", "s32[8,16,1]", &embedding, &[1, 32]),
            "f32[8,16,32]"
        );
        assert_eq!(
            g("f32[1000,?]", "s32[8,16,1]", &embedding, &[1, 32]),
            "f32[8,16,32]"
        );

        let error = |operand: &str,
                     indices: &str,
                     dnums: &GatherDimensionNumbers,
                     sizes: &[i64],
                     expected: &str| {
            let got = g(operand, indices, dnums, sizes);
            assert!(got.contains(expected), "{got}");
        };
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &embedding,
            &[1, 65],
            "slice size 65 at index 1 is out of range",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &embedding,
            &[-1, 64],
            "slice size -1",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &embedding,
            &[2, 64],
            "collapsed slice dim 0 must have slice size 0 or 1, got 2",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &embedding,
            &[1],
            "one size per dimension",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,2]",
            &embedding,
            &[1, 64],
            "start_index_map has 1 entries",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[2], &[0], &[2], 2),
            &[1, 64],
            "start_index_map entry 2 is out of range",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[3], &[0], &[0], 2),
            &[1, 64],
            "offset dim 3 is out of range",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[2, 1], &[], &[0], 2),
            &[1, 64],
            "offset_dims must be sorted",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[2], &[], &[0], 2),
            &[1, 64],
            "every operand dimension must be",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[2], &[0], &[0], 4),
            &[1, 64],
            "index_vector_dim 4 must be within [0, 3]",
        );
        error(
            "f32[1000,64]",
            "s32[8,16,1]",
            &gather_dnums(&[2], &[0], &[0], -1),
            &[1, 64],
            "index_vector_dim -1",
        );
        error(
            "f32[1000,64]",
            "f32[8,16,1]",
            &embedding,
            &[1, 64],
            "must be integral",
        );
        let uneven = GatherDimensionNumbers {
            operand_batching_dims: vec![0],
            ..gather_dnums(&[], &[1], &[1], 2)
        };
        error(
            "f32[50,8]",
            "s32[50,3,1]",
            &uneven,
            &[1, 1],
            "must have the same length",
        );
        let wide_batch = GatherDimensionNumbers {
            start_indices_batching_dims: vec![3],
            ..batched.clone()
        };
        error(
            "f32[50,8]",
            "s32[50,3,1]",
            &wide_batch,
            &[1, 1],
            "start indices batching dim 3 is out of range",
        );
    }

    fn scatter_dnums(
        window: &[i64],
        inserted: &[i64],
        to_operand: &[i64],
        ivd: i64,
    ) -> ScatterDimensionNumbers {
        ScatterDimensionNumbers {
            update_window_dims: window.to_vec(),
            inserted_window_dims: inserted.to_vec(),
            scatter_dims_to_operand_dims: to_operand.to_vec(),
            index_vector_dim: ivd,
            ..Default::default()
        }
    }

    #[test]
    fn scatters_of_the_corpus() {
        let sc = |operand: &str, indices: &str, updates: &str, dnums: &ScatterDimensionNumbers| {
            show(scatter(&[&s(operand)], &s(indices), &[&s(updates)], dnums))
        };
        // gather_scatter_indexing.
        assert_eq!(
            sc(
                "f32[1000,64]",
                "s32[8,16,1]",
                "f32[8,16,64]",
                &scatter_dnums(&[2], &[0], &[0], 2)
            ),
            "f32[1000,64]"
        );
        assert_eq!(
            sc(
                "f32[50,8]",
                "s32[12,1]",
                "f32[12,8]",
                &scatter_dnums(&[1], &[0], &[0], 1)
            ),
            "f32[50,8]"
        );
        assert_eq!(
            sc(
                "f32[50,8]",
                "s32[4,2]",
                "f32[4,2]",
                &scatter_dnums(&[1], &[0], &[0, 1], 1)
            ),
            "f32[50,8]"
        );
        assert_eq!(
            sc(
                "f32[50,8]",
                "s32[12]",
                "f32[12,8]",
                &scatter_dnums(&[1], &[0], &[0], 1)
            ),
            "f32[50,8]"
        );
        let batched = ScatterDimensionNumbers {
            input_batching_dims: vec![0],
            scatter_indices_batching_dims: vec![0],
            ..scatter_dnums(&[], &[1], &[1], 2)
        };
        assert_eq!(
            sc("f32[50,8]", "s32[50,3,1]", "f32[50,3]", &batched),
            "f32[50,8]"
        );
        assert_eq!(
            sc(
                "f32[<=50,8]",
                "s32[?,1]",
                "f32[12,8]",
                &scatter_dnums(&[1], &[0], &[0], 1)
            ),
            "f32[<=50,8]"
        );
        assert_eq!(
            show(scatter(
                &[&s("f32[50,8]"), &s("s32[50,8]")],
                &s("s32[12,1]"),
                &[&s("f32[12,8]"), &s("s32[12,8]")],
                &scatter_dnums(&[1], &[0], &[0], 1)
            )),
            "(f32[50,8], s32[50,8])"
        );

        let error = |operand: &str,
                     indices: &str,
                     updates: &str,
                     dnums: &ScatterDimensionNumbers,
                     expected: &str| {
            let got = sc(operand, indices, updates, dnums);
            assert!(got.contains(expected), "{got}");
        };
        let rows = scatter_dnums(&[1], &[0], &[0], 1);
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,9]",
            &rows,
            "update window dimension 1 has size 9, beyond the operand's 8",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[11,8]",
            &rows,
            "update scatter dimension 0 has size 11",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,8,1]",
            &rows,
            "must have rank 2",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "s32[12,8]",
            &rows,
            "updates 0 have type s32",
        );
        error(
            "f32[50,8]",
            "s32[12,2]",
            "f32[12,8]",
            &rows,
            "scatter_dims_to_operand_dims has 1 entries",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[], &[0], 1),
            "the window has 1 dimensions",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[0], &[2], 1),
            "out of range",
        );
        error(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[0], &[0], 3),
            "index_vector_dim 3",
        );
        error(
            "f32[50,8,2]",
            "s32[12,1]",
            "f32[12]",
            &scatter_dnums(&[], &[1, 0], &[0], 1),
            "inserted_window_dims must be sorted",
        );
        error(
            "f32[50,8]",
            "f32[12,1]",
            "f32[12,8]",
            &rows,
            "must be integral",
        );
        assert!(message(scatter(&[&s("f32[2]")], &s("s32[1]"), &[], &rows))
            .contains("as many updates as operands"));
    }

    #[test]
    fn tuples_iota_and_copies() {
        let t = tuple(&[
            Shape::Array(s("f32[2]{0}")),
            Shape::Tuple(vec![Shape::Token]),
        ]);
        assert_eq!(t.to_string(), "(f32[2], (token[]))");
        assert_eq!(show(get_tuple_element(&t, 1)), "(token[])");
        assert!(
            message(get_tuple_element(&t, 2)).contains("index 2 is out of range for a tuple of 2")
        );
        assert!(get_tuple_element(&t, -1).is_err());
        assert!(message(get_tuple_element(&Shape::Array(s("f32[2]")), 0)).contains("not a tuple"));
        // gather_scatter_indexing: s32[8] iota(), iota_dimension=0.
        assert_eq!(show(iota(&s("s32[8]{0}"), 0)), "s32[8]");
        assert!(message(iota(&s("s32[8]"), 1)).contains("iota_dimension 1 is out of range"));
        assert!(message(iota(&s("s32[]"), 0)).contains("scalars"));
        assert!(message(iota(&s("pred[2]"), 0)).contains("expected an integral"));
        assert_eq!(
            copy(&Shape::Array(s("f32[2,3]{0,1}"))).to_string(),
            "f32[2,3]"
        );
    }

    #[test]
    fn dynamic_slices_of_the_corpus() {
        let scalar = s("s32[]");
        // gather_scatter_indexing, loops_fori_while, scan_lstm_train.
        assert_eq!(
            show(dynamic_slice(&s("f32[50,8]"), &[&scalar, &scalar], &[4, 5])),
            "f32[4,5]"
        );
        assert_eq!(
            show(dynamic_slice(
                &s("f32[20,8,32]"),
                &[&scalar, &scalar, &scalar],
                &[1, 8, 32]
            )),
            "f32[1,8,32]"
        );
        assert_eq!(
            show(dynamic_slice(&s("f32[50,8]"), &[&s("s32[2]")], &[4, 5])),
            "f32[4,5]"
        );
        assert_eq!(
            show(dynamic_slice(
                &s("f32[<=50,<=8]"),
                &[&scalar, &scalar],
                &[50, 4]
            )),
            "f32[<=50,4]"
        );
        assert_eq!(
            show(dynamic_slice(&s("f32[?]"), &[&scalar], &[7])),
            "f32[7]"
        );
        let ds = |sizes: &[i64], indices: &[&ArrayShape]| {
            message(dynamic_slice(&s("f32[50,8]"), indices, sizes))
        };
        assert!(ds(&[4, 9], &[&scalar, &scalar])
            .contains("slice size 9 is larger than dimension 1 of size 8"));
        assert!(ds(&[4, -1], &[&scalar, &scalar]).contains("negative slice size"));
        assert!(ds(&[4], &[&scalar, &scalar]).contains("one size per dimension"));
        assert!(ds(&[4, 5], &[&scalar]).contains("1 start indices for an operand"));
        assert!(ds(&[4, 5], &[&scalar, &s("s64[]")]).contains("one shape"));
        assert!(ds(&[4, 5], &[&s("f32[]"), &s("f32[]")]).contains("integral"));
        assert!(ds(&[4, 5], &[&s("s32[3]")]).contains("one entry per dimension"));
        assert!(ds(&[4, 5], &[&s("s32[2]"), &scalar]).contains("only index operand"));

        // scan_lstm_train and shape_manipulation.
        assert_eq!(
            show(dynamic_update_slice(
                &s("f32[20,8,64]"),
                &s("f32[1,8,64]"),
                &[&scalar, &scalar, &scalar]
            )),
            "f32[20,8,64]"
        );
        assert_eq!(
            show(dynamic_update_slice(
                &s("f32[32,16]"),
                &s("f32[4,8]"),
                &[&scalar, &scalar]
            )),
            "f32[32,16]"
        );
        assert_eq!(
            show(dynamic_update_slice(
                &s("f32[<=32,16]"),
                &s("f32[4,<=16]"),
                &[&scalar, &scalar]
            )),
            "f32[<=32,<=16]"
        );
        let dus = |update: &str| {
            message(dynamic_update_slice(
                &s("f32[32,16]"),
                &s(update),
                &[&scalar, &scalar],
            ))
        };
        assert!(dus("f32[4,17]").contains("update dimension 1 of size 17 is larger"));
        assert!(dus("f32[4]").contains("must have the rank"));
        assert!(dus("s32[4,8]").contains("update type s32"));
    }

    #[test]
    fn reverse_and_sort() {
        // shape_manipulation and gather_scatter_indexing.
        assert_eq!(show(reverse(&s("f32[32,16]"), &[0, 1])), "f32[32,16]");
        assert!(message(reverse(&s("f32[32,16]"), &[1, 1])).contains("must not repeat"));
        assert!(message(reverse(&s("f32[32,16]"), &[2])).contains("out of range"));
        assert_eq!(show(sort(&[&s("f32[64,100]")], 1)), "f32[64,100]");
        assert_eq!(
            show(sort(&[&s("f32[50,8]"), &s("s32[50,8]")], 1)),
            "(f32[50,8], s32[50,8])"
        );
        assert!(message(sort(&[&s("f32[50,8]"), &s("s32[50,9]")], 1)).contains("same dimensions"));
        assert!(message(sort(&[&s("f32[50,8]")], 2)).contains("out of range"));
    }

    mod never_panics {
        use super::*;
        use crate::ir::attrs::{PaddingDimension, WindowDimension};
        use proptest::prelude::*;

        fn dim() -> impl Strategy<Value = Dim> {
            prop_oneof![
                (0i64..6).prop_map(Dim::Static),
                (0i64..6).prop_map(Dim::Bounded),
                Just(Dim::Unbounded),
                Just(Dim::Static(i64::MAX)),
                Just(Dim::Static(-1)),
            ]
        }

        fn shape() -> impl Strategy<Value = ArrayShape> {
            let types = prop::sample::select(vec![
                PrimitiveType::F32,
                PrimitiveType::S32,
                PrimitiveType::Pred,
                PrimitiveType::C64,
                PrimitiveType::U8,
                PrimitiveType::Token,
            ]);
            (types, prop::collection::vec(dim(), 0..4)).prop_map(|(ty, dims)| array(ty, dims))
        }

        fn numbers() -> impl Strategy<Value = Vec<i64>> {
            prop::collection::vec(prop_oneof![-2i64..6, Just(i64::MIN), Just(i64::MAX)], 0..4)
        }

        fn number() -> impl Strategy<Value = i64> {
            prop_oneof![-2i64..6, Just(i64::MIN), Just(i64::MAX)]
        }

        fn window_strategy() -> impl Strategy<Value = Window> {
            prop::collection::vec(
                (number(), number(), number(), number(), number(), number()),
                0..4,
            )
            .prop_map(|dims| Window {
                dimensions: dims
                    .into_iter()
                    .map(|(size, stride, low, high, base, win)| WindowDimension {
                        size,
                        stride,
                        padding_low: low,
                        padding_high: high,
                        base_dilation: base,
                        window_dilation: win,
                        window_reversal: false,
                    })
                    .collect(),
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn every_rule_returns_a_value(
                a in shape(), b in shape(), c in shape(),
                n1 in numbers(), n2 in numbers(), n3 in numbers(), n4 in numbers(), n5 in numbers(),
                k in number(), g in number(), w in window_strategy(),
            ) {
                for op in Opcode::all() {
                    let _ = unary(op, &a);
                    let _ = binary(op, &a, &b);
                }
                let _ = bitcast_convert(&a, b.element_type);
                let _ = select(&a, &b, &c);
                let _ = clamp(&a, &b, &c);
                let _ = broadcast(&a, &b.dims, &n1);
                let _ = reshape(&a, &b.dims);
                let _ = transpose(&a, &n1);
                let ranges: Vec<(i64, i64, Option<i64>)> = n1.iter().zip(&n2).zip(&n3)
                    .map(|((&x, &y), &z)| (x, y, Some(z))).collect();
                let _ = slice(&a, &SliceConfig::from_ranges(&ranges));
                let _ = concatenate(&[&a, &b, &c], k);
                let padding = PaddingConfig {
                    dimensions: n1.iter().zip(&n2).zip(&n3)
                        .map(|((&edge_low, &edge_high), &interior)| PaddingDimension { edge_low, edge_high, interior })
                        .collect(),
                };
                let _ = pad(&a, &b, &padding);
                let dnums = DotDimensionNumbers {
                    lhs_batch: n1.clone(), lhs_contracting: n2.clone(),
                    rhs_batch: n3.clone(), rhs_contracting: n4.clone(),
                };
                let _ = dot(&a, &b, &dnums, None);
                let _ = reduce(&[&a, &b], &[&c, &c], &n1);
                let _ = reduce_window(&[&a], &[&b], &w);
                let conv = ConvDimensionNumbers {
                    input_batch_dimension: k,
                    input_feature_dimension: g,
                    input_spatial_dimensions: n1.clone(),
                    kernel_input_feature_dimension: g,
                    kernel_output_feature_dimension: k,
                    kernel_spatial_dimensions: n2.clone(),
                    output_batch_dimension: k,
                    output_feature_dimension: g,
                    output_spatial_dimensions: n3.clone(),
                };
                let _ = convolution(&a, &b, k, g, &w, &conv, None);
                let gdn = GatherDimensionNumbers {
                    offset_dims: n1.clone(), collapsed_slice_dims: n2.clone(),
                    start_index_map: n3.clone(), operand_batching_dims: n4.clone(),
                    start_indices_batching_dims: n5.clone(), index_vector_dim: k,
                };
                let _ = gather(&a, &b, &gdn, &n5);
                let sdn = ScatterDimensionNumbers {
                    update_window_dims: n1.clone(), inserted_window_dims: n2.clone(),
                    scatter_dims_to_operand_dims: n3.clone(), input_batching_dims: n4.clone(),
                    scatter_indices_batching_dims: n5.clone(), index_vector_dim: k,
                };
                let _ = scatter(&[&a], &b, &[&c], &sdn);
                let _ = iota(&a, k);
                let _ = dynamic_slice(&a, &[&b, &c], &n1);
                let _ = dynamic_update_slice(&a, &b, &[&c]);
                let _ = reverse(&a, &n1);
                let _ = sort(&[&a, &b], k);
                let _ = conv.to_string();
                let _ = w.to_string();
            }
        }
    }
}
