//! The order XLA prints attributes in: `window` fields, and an instruction's attributes (its
//! opcode's own, then called computations, then those any instruction may carry).
//! `metadata` fields follow `ir::vocabulary::METADATA_FIELDS`, and a header's
//! `ir::vocabulary::HEADER_ORDER`. Both printers read it: the IR printer (`crate::print`)
//! and the syntax tree's canonical printer (`lower::canonical`).
//!
//! Invariant: an attribute the tables do not know keeps the rank of the one it followed, so
//! it travels with it; equal ranks keep their written order.

/// `window={...}` fields in print order (docs/hlo-text.md §5.3).
pub(crate) const WINDOW_ORDER: &[&str] = &[
    "size",
    "stride",
    "pad",
    "lhs_dilate",
    "rhs_dilate",
    "rhs_reversal",
];

/// Called computations, printed after the opcode's own attributes (docs/hlo-text.md §5.10
/// step 2).
const CALLED_ORDER: &[&str] = &[
    "condition",
    "body",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
    "branch_computations",
    "to_apply",
    "is_composite",
    "called_computations",
    "calls",
];

/// Attributes any instruction may carry, printed last in this order (docs/hlo-text.md §5.10).
const GENERIC_ORDER: &[&str] = &[
    "sharding",
    "frontend_attributes",
    "control-predecessors",
    "statistics",
    "result_accuracy",
    "origin",
    "metadata",
    "backend_config",
];

/// Opcode-specific attributes in print order (docs/hlo-text.md §5.10).
fn opcode_order(opcode: &str) -> &'static [&'static str] {
    match opcode {
        "all-reduce" | "all-reduce-start" | "collective-reduce" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "use_global_device_ids",
            "has_dynamic_root",
        ],
        "all-gather" | "all-gather-start" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "dimensions",
            "use_global_device_ids",
        ],
        "reduce-scatter" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "use_global_device_ids",
            "dimensions",
        ],
        "all-to-all" | "ragged-all-to-all" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "dimensions",
        ],
        "collective-broadcast" => &["channel_id", "replica_groups", "has_dynamic_root"],
        "collective-permute" | "collective-permute-start" => {
            &["channel_id", "source_target_pairs", "slice_sizes"]
        }
        "send" | "recv" | "send-done" | "recv-done" => &["channel_id", "is_host_transfer"],
        "convolution" => &[
            "window",
            "dim_labels",
            "feature_group_count",
            "batch_group_count",
            "convolution_kind",
            "operand_precision",
            "sparsity_config",
            "block_scaling_config",
        ],
        "dot" | "scaled-dot" => &[
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_batch_dims",
            "rhs_contracting_dims",
            "operand_precision",
            "algorithm",
            "sparsity_config",
            "block_scaling_config",
        ],
        "ragged-dot" => &[
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_batch_dims",
            "rhs_contracting_dims",
            "lhs_ragged_dims",
            "rhs_group_dims",
            "operand_precision",
        ],
        "custom-call" => &[
            "window",
            "dim_labels",
            "feature_group_count",
            "batch_group_count",
            "operand_precision",
            "padding_type",
            "custom_call_target",
            "operand_layout_constraints",
            "custom_call_has_side_effect",
            "literal",
            "output_to_operand_aliasing",
            "schedule",
            "api_version",
        ],
        "fusion" => &["kind", "output_to_operand_aliasing"],
        "async-start" => &["async_execution_thread", "output_to_operand_aliasing"],
        "gather" => &[
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "index_vector_dim",
            "slice_sizes",
            "indices_are_sorted",
        ],
        "scatter" => &[
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "unique_indices",
        ],
        "sort" => &["dimensions", "is_stable"],
        "scan" => &["dimensions", "num_carries", "is_reverse", "is_associative"],
        "topk" => &["k", "largest", "is_stable"],
        "compare" => &["direction", "type"],
        "triangular-solve" => &["left_side", "lower", "unit_diagonal", "transpose_a"],
        "batch-norm-training" | "batch-norm-inference" | "batch-norm-grad" => {
            &["epsilon", "feature_index"]
        }
        "reduce-precision" => &["exponent_bits", "mantissa_bits"],
        "fft" => &["fft_type", "fft_length"],
        "outfeed" => &["outfeed_shape", "outfeed_config"],
        "reduce-window" | "select-and-scatter" => &["window"],
        "reduce" | "map" => &["dimensions"],
        "parameter" => &["parameter_replication"],
        _ => &[],
    }
}

/// The print rank of an instruction attribute, `None` if the tables do not know it.
pub(crate) fn attribute_rank(opcode: &str, name: &str) -> Option<usize> {
    let rank_in =
        |table: &[&str], base: usize| table.iter().position(|n| *n == name).map(|i| base + i);
    // Async sugar (`custom-call-start`) prints the thread, then the wrapped op's attributes.
    let wrapped = ["-start", "-update", "-done"]
        .iter()
        .find_map(|suffix| opcode.strip_suffix(suffix))
        .filter(|_| opcode_order(opcode).is_empty());
    let own = match wrapped {
        Some(_) if name == "async_execution_thread" => Some(0),
        Some(wrapped) => rank_in(opcode_order(wrapped), 1),
        None => rank_in(opcode_order(opcode), 1),
    };
    own.or_else(|| rank_in(CALLED_ORDER, 100))
        .or_else(|| rank_in(GENERIC_ORDER, 200))
}

/// Sorts items by rank; an item without a rank keeps the rank of the one before it, so it
/// travels with it. The sort is stable, so equal ranks keep their order.
pub(crate) fn in_print_order<T>(items: &[T], rank: impl Fn(&T) -> Option<usize>) -> Vec<&T> {
    let mut keyed: Vec<(usize, &T)> = Vec::with_capacity(items.len());
    let mut previous = 0;
    for item in items {
        let key = rank(item).unwrap_or(previous);
        previous = key;
        keyed.push((key, item));
    }
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_attributes_travel_with_the_one_before() {
        assert_eq!(
            in_print_order(&["b", "x", "a"], |n| match *n {
                "a" => Some(0),
                "b" => Some(1),
                _ => None,
            }),
            vec![&"a", &"b", &"x"]
        );
    }
}
