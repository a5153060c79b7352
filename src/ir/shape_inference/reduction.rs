//! Reductions over dims or windows: `reduce`, `reduce-window`, and `sort`, which shares
//! their one-result-or-tuple rule.

use crate::ir::attrs::Window;
use crate::ir::shape::{ArrayShape, Dim, Shape};

use super::common::*;

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
    let first = first_with_init_values(op, operands, init_values)?;
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

/// `reduce-window` of N operands with N scalar init values: each result is the windowed
/// operand with its init value's type. One operand gives an array, several a tuple.
pub fn reduce_window(
    operands: &[&ArrayShape],
    init_values: &[&ArrayShape],
    window: &Window,
) -> Result<Shape, ShapeError> {
    let op = "reduce-window";
    let first = first_with_init_values(op, operands, init_values)?;
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

/// The first of a reduction's operands, when it has some and one init value for each.
fn first_with_init_values<'a>(
    op: &str,
    operands: &[&'a ArrayShape],
    init_values: &[&ArrayShape],
) -> Result<&'a ArrayShape, ShapeError> {
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
    Ok(first)
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
