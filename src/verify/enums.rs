//! Attribute values that XLA's parser reads as enumerations (`direction=LT`,
//! `fusion kind=kLoop`, `operand_precision={high,default}`) and the keys of `metadata`: a
//! value XLA does not know is an error there, so it is one here. The tables hold exactly
//! what jaxlib 0.10.2's parser accepts, spelling and case included (checked against it).

use crate::ir::Instruction;
// The keys XLA's parser reads in `metadata={...}`, each at most once.
use crate::ir::vocabulary::METADATA_FIELDS as METADATA_KEYS;

/// One enumerated attribute: its name, the opcodes it is read on (`None`: any), the
/// accepted values, whether case is ignored, and what XLA's message calls it.
struct Enumerated {
    attribute: &'static str,
    opcodes: Option<&'static [&'static str]>,
    values: &'static [&'static str],
    ignore_case: bool,
    what: &'static str,
}

const ENUMERATED: &[Enumerated] = &[
    Enumerated {
        attribute: "direction",
        opcodes: None,
        values: &["EQ", "NE", "GE", "GT", "LE", "LT"],
        ignore_case: false,
        what: "comparison direction",
    },
    Enumerated {
        attribute: "type",
        opcodes: Some(&["compare"]),
        values: &["FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"],
        ignore_case: false,
        what: "comparison type",
    },
    Enumerated {
        attribute: "fft_type",
        opcodes: None,
        values: &["FFT", "IFFT", "RFFT", "IRFFT"],
        ignore_case: false,
        what: "fft type",
    },
    Enumerated {
        attribute: "kind",
        opcodes: Some(&["fusion"]),
        values: &["kLoop", "kInput", "kOutput", "kCustom"],
        ignore_case: false,
        what: "fusion kind",
    },
    Enumerated {
        attribute: "distribution",
        opcodes: None,
        values: &["rng_uniform", "rng_normal"],
        ignore_case: false,
        what: "random distribution",
    },
    Enumerated {
        attribute: "algorithm",
        opcodes: Some(&["rng-bit-generator"]),
        values: &["rng_default", "rng_three_fry", "rng_philox"],
        ignore_case: false,
        what: "random algorithm",
    },
    Enumerated {
        attribute: "algorithm",
        opcodes: Some(&["dot"]),
        values: &[
            "unset",
            "dot_any_f8_any_f8_f32",
            "dot_any_f8_any_f8_f32_fast_accum",
            "dot_f16_f16_f16",
            "dot_f16_f16_f32",
            "dot_bf16_bf16_bf16",
            "dot_bf16_bf16_f32",
            "dot_bf16_bf16_f32_x3",
            "dot_bf16_bf16_f32_x6",
            "dot_bf16_bf16_f32_x9",
            "dot_tf32_tf32_f32",
            "dot_tf32_tf32_f32_x3",
            "dot_f32_f32_f32",
            "dot_f64_f64_f64",
        ],
        ignore_case: true,
        what: "algorithm",
    },
    Enumerated {
        attribute: "schedule",
        opcodes: Some(&["custom-call"]),
        values: &["SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"],
        ignore_case: true,
        what: "custom-call schedule",
    },
    Enumerated {
        attribute: "padding_type",
        opcodes: Some(&["custom-call"]),
        values: &["PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"],
        ignore_case: false,
        what: "padding type",
    },
    // Any other value makes jaxlib 0.10.2's parser crash.
    Enumerated {
        attribute: "transpose_a",
        opcodes: Some(&["triangular-solve"]),
        values: &["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
        ignore_case: false,
        what: "transpose",
    },
];

/// `operand_precision` items.
const PRECISIONS: &[&str] = &["default", "high", "highest"];

fn accepts(values: &[&str], value: &str, ignore_case: bool) -> bool {
    values
        .iter()
        .any(|v| *v == value || (ignore_case && v.eq_ignore_ascii_case(value)))
}

/// Every enumerated attribute value and `metadata` key of `instruction` that XLA refuses.
pub fn check(instruction: &Instruction) -> Vec<String> {
    let mut errors = Vec::new();
    for attribute in &instruction.attributes {
        // Trimmed only for the few attributes read here.
        let value = || attribute.value.trim();
        match &*attribute.name {
            "direction" | "type" | "fft_type" | "kind" | "distribution" | "algorithm"
            | "schedule" | "padding_type" | "transpose_a" => {
                let value = value();
                let opcode = instruction.opcode.name();
                for rule in ENUMERATED.iter().filter(|rule| {
                    rule.attribute == &*attribute.name
                        && rule.opcodes.is_none_or(|o| o.contains(&opcode))
                }) {
                    if !accepts(rule.values, value, rule.ignore_case) {
                        errors.push(format!(
                            "expects {} but sees: {value}; known: {}",
                            rule.what,
                            rule.values.join(", ")
                        ));
                    }
                }
            }
            "operand_precision" => {
                let value = value();
                let items = value.strip_prefix('{').and_then(|v| v.strip_suffix('}'));
                for item in items.unwrap_or(value).split(',').map(str::trim) {
                    if !item.is_empty() && !accepts(PRECISIONS, item, true) {
                        errors.push(format!(
                            "expects operand precision but sees: {item}; known: {}",
                            PRECISIONS.join(", ")
                        ));
                    }
                }
            }
            // XLA's flags, read as `true` or `false` and nothing else (not `1`, not `True`).
            "indices_are_sorted"
            | "unique_indices"
            | "is_composite"
            | "custom_call_has_side_effect"
            | "constrain_layout"
            | "use_global_device_ids"
            | "has_dynamic_root"
            | "is_host_transfer"
            | "left_side"
            | "lower"
            | "unit_diagonal"
            | "largest"
            | "is_stable"
            | "is_reverse"
            | "is_associative" => {
                let value = value();
                if value != "true" && value != "false" {
                    errors.push(format!(
                        "{} expects true or false but sees: {value}",
                        attribute.name
                    ));
                }
            }
            // Integers, as XLA's lexer reads them: an optional `-` and decimal digits.
            "channel_id"
            | "k"
            | "num_carries"
            | "index_vector_dim"
            | "feature_group_count"
            | "batch_group_count"
            | "exponent_bits"
            | "mantissa_bits"
            | "iota_dimension"
            | "index" => {
                let value = value();
                let digits = value.strip_prefix('-').unwrap_or(value);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    errors.push(format!(
                        "{} expects an integer but sees: {value}",
                        attribute.name
                    ));
                }
            }
            "metadata" => metadata_keys(value(), &mut errors),
            "frontend_attributes" => frontend_attributes(value(), &mut errors),
            _ => {}
        }
    }
    errors
}

/// `{op_name="a b" source_line=3 profile_type={1}}`: each key known and given once. Every
/// instruction of a dump has metadata, so this reads the bytes once and allocates nothing
/// when all is well.
pub(super) fn metadata_keys(value: &str, errors: &mut Vec<String>) {
    let inner = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    let bytes = inner.as_bytes();
    // A bit per known key, in METADATA_KEYS order.
    let mut seen = 0u32;
    let mut at = 0;
    while at < bytes.len() {
        if matches!(bytes[at], b' ' | b',') {
            at += 1;
            continue;
        }
        let Some(equals) = memchr::memchr(b'=', &bytes[at..]).map(|i| at + i) else {
            break;
        };
        let key = inner[at..equals].trim();
        match METADATA_KEYS.iter().position(|k| *k == key) {
            None => errors.push(format!(
                "unexpected attribute \"{key}\" in metadata. Allowed attributes: {}",
                METADATA_KEYS.join(", ")
            )),
            Some(index) if seen & (1 << index) != 0 => {
                errors.push(format!("metadata attribute {key} already exists"))
            }
            Some(index) => seen |= 1 << index,
        }
        at = value_end(bytes, equals + 1);
    }
}

/// `{a="1",b={x}}`: XLA reads each value as a string or a braced blob, under a bare name.
pub(crate) fn frontend_attributes(value: &str, errors: &mut Vec<String>) {
    let inner = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    for item in crate::ir::vocabulary::split_top_level(inner, ',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let readable = item.split_once('=').is_some_and(|(name, value)| {
            let name = name.trim();
            let value = value.trim_start();
            !name.is_empty()
                && !name.starts_with(['"', '\''])
                && (value.starts_with('"') || value.starts_with('{'))
        });
        if !readable {
            errors.push(format!(
                "frontend_attributes: expects name=\"string\" or name={{...}}, found `{item}`"
            ));
        }
    }
}

/// Where the value starting at `at` ends: after a quoted string (whose `\"` does not end
/// it), after balanced braces, or at the next space.
fn value_end(bytes: &[u8], mut at: usize) -> usize {
    match bytes.get(at) {
        Some(b'"') => {
            at += 1;
            while let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[at..]) {
                at += i;
                if bytes[at] == b'"' {
                    return at + 1;
                }
                at += 2;
            }
            bytes.len()
        }
        Some(b'{') => {
            let mut depth = 0usize;
            for (i, &b) in bytes[at..].iter().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return at + i + 1;
                        }
                    }
                    _ => {}
                }
            }
            bytes.len()
        }
        _ => memchr::memchr(b' ', &bytes[at..]).map_or(bytes.len(), |i| at + i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(attributes: &[(&str, &str)], opcode: &str) -> Vec<String> {
        let mut instruction = Instruction::new(
            "x",
            crate::ir::Opcode::from_name(opcode),
            crate::ir::Shape::Tuple(Vec::new()),
        );
        for (name, value) in attributes {
            instruction.set_attribute(name, value);
        }
        check(&instruction)
    }

    #[test]
    fn values_xla_reads_pass_and_others_do_not() {
        assert!(errors_of(&[("direction", "LT"), ("type", "TOTALORDER")], "compare").is_empty());
        assert_eq!(errors_of(&[("direction", "L")], "compare").len(), 1);
        assert_eq!(errors_of(&[("direction", "lt")], "compare").len(), 1);
        assert_eq!(errors_of(&[("type", "float")], "compare").len(), 1);
        // `type` means nothing enumerated on other opcodes.
        assert!(errors_of(&[("type", "x")], "custom-call").is_empty());
        assert!(errors_of(&[("algorithm", "DOT_F32_F32_F32")], "dot").is_empty());
        assert_eq!(errors_of(&[("algorithm", "dot_bogus")], "dot").len(), 1);
        assert_eq!(
            errors_of(&[("algorithm", "dot_f32_f32_f32")], "rng-bit-generator").len(),
            1
        );
        assert!(errors_of(&[("schedule", "schedule_latest")], "custom-call").is_empty());
        assert!(errors_of(&[("operand_precision", "{HIGHEST,default}")], "dot").is_empty());
        assert_eq!(
            errors_of(&[("operand_precision", "{bogus,high}")], "dot").len(),
            1
        );
        assert_eq!(errors_of(&[("kind", "kBogus")], "fusion").len(), 1);
        assert_eq!(
            errors_of(&[("transpose_a", "no_transpose")], "triangular-solve").len(),
            1
        );
    }

    /// Checked with jaxlib 0.10.2 on sort's `is_stable`, custom-call's
    /// `custom_call_has_side_effect` and collective-permute's `channel_id`.
    #[test]
    fn flags_and_integers_as_xla_reads_them() {
        for flag in ["true", "false"] {
            assert!(errors_of(&[("is_stable", flag)], "sort").is_empty());
        }
        for bad in ["1", "0", "True", "TRUE", "true7", "\"true\"", "{true}"] {
            assert_eq!(errors_of(&[("is_stable", bad)], "sort").len(), 1, "{bad}");
            let side_effect = [("custom_call_has_side_effect", bad)];
            assert_eq!(errors_of(&side_effect, "custom-call").len(), 1, "{bad}");
        }
        for number in ["1", "0", "-1", "01"] {
            assert!(errors_of(&[("channel_id", number)], "collective-permute").is_empty());
        }
        for bad in ["true", "1x", "x3", "+1", "-", "2()"] {
            let channel = [("channel_id", bad)];
            assert_eq!(errors_of(&channel, "collective-permute").len(), 1, "{bad}");
        }
    }

    #[test]
    fn frontend_attribute_values_are_strings_or_braced() {
        let fine = r#"{a="1",b={x},_xla_stream_annotation="1",c="x,y=z"}"#;
        assert!(errors_of(&[("frontend_attributes", fine)], "add").is_empty());
        assert!(errors_of(&[("frontend_attributes", "{}")], "add").is_empty());
        for bad in ["{a=b}", "{a=1}", r#"{"a"="b"}"#, "{a}"] {
            assert_eq!(
                errors_of(&[("frontend_attributes", bad)], "add").len(),
                1,
                "{bad}"
            );
        }
    }

    #[test]
    fn metadata_keys_are_known_and_given_once() {
        let fine = r#"{op_type="a" op_name="b c=d \" e=\\" source_file="f" source_line=3 profile_type={1, 2} stack_frame_id=4}"#;
        assert!(errors_of(&[("metadata", fine)], "add").is_empty());
        assert_eq!(
            errors_of(
                &[("metadata", r#"{op_name="a \" bogus=1" bogus=2}"#)],
                "add"
            )
            .len(),
            1
        );
        assert_eq!(
            errors_of(&[("metadata", r#"{op_nme="x"}"#)], "add").len(),
            1
        );
        assert_eq!(
            errors_of(&[("metadata", r#"{op_name="x" op_name="y"}"#)], "add"),
            ["metadata attribute op_name already exists"]
        );
    }
}
