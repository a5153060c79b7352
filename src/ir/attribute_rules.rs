//! Which attributes each opcode accepts besides those every instruction may carry, as XLA's
//! parser lists them (docs/hlo-text.md §6.2, measured on jaxlib 0.10.2). Lowering, the
//! verifier and layout assignment all ask here; an async sugar (`custom-call-start`) takes
//! its wrapped opcode's ([`async_sugar`]).

use super::opcode::{async_sugar, AsyncPart, Opcode};

/// Accepted on every instruction.
const GENERIC: &[&str] = &[
    "backend_config",
    "control-predecessors",
    "frontend_attributes",
    "metadata",
    "origin",
    "parameter_replication",
    "sharding",
    "statistics",
];

const TRANSCENDENTAL: &[&str] = &["result_accuracy"];
const ALL_GATHER: &[&str] = &[
    "channel_id",
    "constrain_layout",
    "dimensions",
    "replica_groups",
    "use_global_device_ids",
];
const ALL_REDUCE: &[&str] = &[
    "channel_id",
    "constrain_layout",
    "mode",
    "replica_groups",
    "to_apply",
    "use_global_device_ids",
];
const COLLECTIVE_PERMUTE: &[&str] = &["channel_id", "slice_sizes", "source_target_pairs"];
const SEND_RECV: &[&str] = &["channel_id", "is_host_transfer"];
const BATCH_NORM: &[&str] = &["epsilon", "feature_index"];
const DOT: &[&str] = &[
    "algorithm",
    "lhs_batch_dims",
    "lhs_contracting_dims",
    "operand_precision",
    "rhs_batch_dims",
    "rhs_contracting_dims",
];
const CUSTOM_CALL: &[&str] = &[
    "api_version",
    "batch_group_count",
    "called_computations",
    "custom_call_has_side_effect",
    "custom_call_target",
    "dim_labels",
    "feature_group_count",
    "literal",
    "operand_layout_constraints",
    "operand_precision",
    "output_to_operand_aliasing",
    "padding_type",
    "schedule",
    "to_apply",
    "window",
];
const DIMENSIONS: &[&str] = &["dimensions"];

/// The opcode-specific attributes of `opcode`; `None` for opcodes without a table row.
fn specific(opcode: &Opcode) -> Option<&'static [&'static str]> {
    use Opcode::*;
    Some(match opcode {
        Acos | Acosh | Asin | Asinh | Atanh | Cbrt | Cosine | Cosh | Erf | Exp | Expm1 | Log
        | Log1p | Logistic | Rsqrt | Sine | Sinh | Sqrt | Tan | Tanh => TRANSCENDENTAL,
        AllGather | AllGatherStart => ALL_GATHER,
        AllReduce | AllReduceStart => ALL_REDUCE,
        AllToAll => &[
            "channel_id",
            "constrain_layout",
            "dimensions",
            "replica_groups",
        ],
        AsyncStart => &[
            "async_execution_thread",
            "calls",
            "output_to_operand_aliasing",
        ],
        AsyncUpdate | AsyncDone => &["async_execution_thread", "calls"],
        BatchNormGrad | BatchNormInference | BatchNormTraining => BATCH_NORM,
        Broadcast | Concatenate | Reverse | Transpose | GetDimensionSize | SetDimensionSize => {
            DIMENSIONS
        }
        Call => &["is_composite", "to_apply"],
        Cholesky => &["lower"],
        CollectiveBroadcast => &["channel_id", "replica_groups"],
        CollectivePermute | CollectivePermuteStart => COLLECTIVE_PERMUTE,
        Compare => &["direction", "type"],
        Conditional => &[
            "true_computation",
            "false_computation",
            "branch_computations",
        ],
        Convolution => &[
            "batch_group_count",
            "convolution_kind",
            "dim_labels",
            "feature_group_count",
            "operand_precision",
            "sparsity_config",
            "window",
        ],
        CopyStart => &["cross_program_prefetch_index"],
        CustomCall => CUSTOM_CALL,
        Domain => &["domain"],
        Dot | ScaledDot => DOT,
        DynamicSlice => &["dynamic_slice_sizes"],
        Fft => &["fft_length", "fft_type"],
        Fusion => &["calls", "kind", "output_to_operand_aliasing"],
        Gather => &[
            "collapsed_slice_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "offset_dims",
            "operand_batching_dims",
            "slice_sizes",
            "start_index_map",
            "start_indices_batching_dims",
        ],
        GetTupleElement => &["index"],
        Infeed => &["infeed_config"],
        Iota => &["iota_dimension"],
        Map => &["dimensions", "to_apply"],
        Outfeed => &["outfeed_config", "outfeed_shape"],
        Pad => &["padding"],
        RaggedAllToAll => &["channel_id", "dimensions", "replica_groups"],
        RaggedDot => &[
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "lhs_ragged_dims",
            "operand_precision",
            "rhs_batch_dims",
            "rhs_contracting_dims",
            "rhs_group_dims",
        ],
        Recv | RecvDone | Send | SendDone => SEND_RECV,
        Reduce => &["dimensions", "to_apply"],
        ReducePrecision => &["exponent_bits", "mantissa_bits"],
        ReduceScatter => &[
            "channel_id",
            "constrain_layout",
            "dimensions",
            "mode",
            "replica_groups",
            "to_apply",
            "use_global_device_ids",
        ],
        ReduceWindow => &["to_apply", "window"],
        Reshape => &["inferred_dimension"],
        Rng => &["distribution"],
        RngBitGenerator => &["algorithm"],
        RngGetAndUpdateState => &["delta"],
        Scan => &[
            "dimensions",
            "is_associative",
            "is_reverse",
            "num_carries",
            "to_apply",
        ],
        Scatter => &[
            "index_vector_dim",
            "indices_are_sorted",
            "input_batching_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "scatter_indices_batching_dims",
            "to_apply",
            "unique_indices",
            "update_window_dims",
        ],
        SelectAndScatter => &["scatter", "select", "window"],
        Slice => &["slice"],
        Sort => &["dimensions", "is_stable", "to_apply"],
        TopK => &["k", "largest"],
        TriangularSolve => &["left_side", "lower", "transpose_a", "unit_diagonal"],
        While => &["body", "condition"],
        Unknown(_) => return None,
        _ => &[],
    })
}

/// The attributes `opcode` accepts besides the generic ones, as XLA's parser lists them
/// (docs/hlo-text.md §6.2). Empty for an opcode that takes none, and for an unknown
/// opcode (its attributes are not checked; an async sugar's are its wrapped opcode's).
/// With [`Opcode::all`], this lets a test cover every (opcode, attribute) pair.
pub fn opcode_specific(opcode: &Opcode) -> &'static [&'static str] {
    specific(opcode).unwrap_or(&[])
}

/// Whether `opcode` accepts the attribute `name`. Unknown opcodes accept everything (they
/// are reported once, as unknown).
pub fn allowed(opcode: &Opcode, name: &str) -> bool {
    if GENERIC.contains(&name) {
        return true;
    }
    if let Some((wrapped, part)) = async_sugar(opcode) {
        let own: &[&str] = match part {
            AsyncPart::Start => &["async_execution_thread", "output_to_operand_aliasing"],
            _ => &["async_execution_thread"],
        };
        return own.contains(&name) || specific(&wrapped).is_some_and(|s| s.contains(&name));
    }
    match specific(opcode) {
        Some(list) => list.contains(&name),
        None => true,
    }
}

/// The names `opcode` accepts besides the generic ones, for messages.
pub fn allowed_list(opcode: &Opcode) -> String {
    let list = match async_sugar(opcode) {
        Some((wrapped, _)) => specific(&wrapped).unwrap_or(&[]),
        None => specific(opcode).unwrap_or(&[]),
    };
    let mut names: Vec<&str> = list.iter().chain(GENERIC).copied().collect();
    names.sort_unstable();
    names.join(", ")
}
