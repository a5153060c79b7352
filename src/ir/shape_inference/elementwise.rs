//! Elementwise ops: unary and binary arithmetic, comparisons, conversions, `select`, `clamp`
//! and `copy`: the result has the operands' dims.

use crate::ir::opcode::Opcode;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim, Shape};

use super::common::*;

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
pub(super) fn elementwise_dims(
    op: &str,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
) -> Result<Vec<Dim>, ShapeError> {
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

/// `copy`: the operand's shape, whatever it is.
pub fn copy(operand: &Shape) -> Shape {
    without_layouts(operand)
}
