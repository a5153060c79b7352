//! HLO's vocabulary that more than one layer reads: which attributes call computations, the
//! order of the module header's attributes, and how attribute text splits at its top level.
//! Lowering, the verifier, the printers and the analyses ask here rather than each other.

/// Attributes whose values name called computations.
pub fn calls_computations(attribute: &str) -> bool {
    // A `match` compares the length first; searching a list compared every name in it, for
    // every attribute of every line.
    matches!(
        attribute,
        "to_apply"
            | "calls"
            | "condition"
            | "body"
            | "true_computation"
            | "false_computation"
            | "branch_computations"
            | "select"
            | "scatter"
            | "called_computations"
    )
}

/// Header keys in `HloModule::Print` order.
pub const HEADER_ORDER: &[&str] = &[
    "is_scheduled",
    "input_output_alias",
    "buffer_donor",
    "alias_passthrough_params",
    "entry_computation_layout",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "replica_count",
    "num_partitions",
    "frontend_attributes",
    "origin_recovery_table",
    "debug_attributes",
];

/// Splits `text` at `separator` outside brackets and quotes.
pub fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            // `\"` inside a string does not end it.
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if c == separator && depth == 0 => {
                parts.push(text.get(start..i).unwrap_or(""));
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(text.get(start..).unwrap_or(""));
    parts
}

/// Metadata field names in the order XLA prints them (docs/hlo-text.md §5.8): the
/// canonical printer orders them so, and the lexer's shortcut reads them so.
pub const METADATA_FIELDS: &[&str] = &[
    "op_type",
    "op_name",
    "source_file",
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "profile_type",
    "deduplicated_name",
    "scheduling_name",
    "stack_frame_id",
    "metadata_payload",
];
