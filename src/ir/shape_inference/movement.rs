//! Ops that move elements without computing: `broadcast`, `reshape`, `transpose`, `slice`,
//! `concatenate`, `pad`, `reverse`, `iota` and tuples.

use std::fmt::Formatter;

use crate::ir::attrs::{PaddingConfig, SliceConfig};
use crate::ir::shape::{ArrayShape, Dim, Shape};

use super::common::*;

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
pub(super) struct SizeAndBound {
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
pub(super) fn concatenated(
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
pub(super) fn most_specific(
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
