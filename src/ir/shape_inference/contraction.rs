//! Contractions: `dot` and `convolution`.

use crate::ir::attrs::{ConvDimensionNumbers, DotDimensionNumbers, Window};
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim};

use super::common::*;

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
