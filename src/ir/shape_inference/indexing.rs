//! Indexed access: `gather`, `scatter`, `dynamic-slice` and `dynamic-update-slice`.

use crate::ir::attrs::{GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::ir::shape::{ArrayShape, Dim, Shape};

use super::common::*;

/// Checks `index_vector_dim` and returns the start-indices dims with the implicit trailing 1
/// XLA adds when `index_vector_dim` equals their rank.
pub(super) fn expanded_indices(
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

pub(super) fn validate_scatter_dnums(
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

/// Checks the start indices of `dynamic-slice` and `dynamic-update-slice`: one integral
/// scalar per operand dim, all of one type, or (the old form) one integral vector of them.
pub(super) fn check_start_indices(
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
