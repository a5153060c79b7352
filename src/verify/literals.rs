//! Constants: the literal's nesting and element counts fit the shape, and every element is in
//! the range of the element type (integer bounds, float overflow, NaN payloads).

use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim};

/// One piece of literal text.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Open,
    Close,
    Atom(&'a str),
}

/// Splits literal text into braces and atoms; commas separate, `(...)` stays one atom.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' => {
                out.push(Piece::Open);
                i += 1;
            }
            b'}' => {
                out.push(Piece::Close);
                i += 1;
            }
            b',' | b' ' | b'\n' | b'\t' | b'\r' => i += 1,
            // Index comments such as `/*i0=1*/` are not values.
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text
                    .get(i + 2..)
                    .and_then(|rest| rest.find("*/"))
                    .map_or(bytes.len(), |at| i + 2 + at + 2);
                i = end;
            }
            _ => {
                let start = i;
                let mut depth = 0i32;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        b'{' | b'}' if depth <= 0 => break,
                        b',' | b' ' | b'\n' | b'\t' | b'\r' if depth <= 0 => break,
                        _ => {}
                    }
                    i += 1;
                }
                out.push(Piece::Atom(text.get(start..i).unwrap_or("")));
            }
        }
    }
    out
}

/// Checks a constant's literal text against its array shape; every problem is returned.
pub fn check(text: &str, shape: &ArrayShape) -> Vec<String> {
    let mut errors = Vec::new();
    // Elided literals (`{...}`) carry no values to check.
    if text.contains("...") {
        return errors;
    }
    let pieces = pieces(text);
    let rank = shape.rank();
    let mut position = 0;
    let mut atoms = Vec::new();
    let bare_scalar = !pieces.iter().any(|p| *p == Piece::Open) && pieces.len() == 1;
    if rank == 0 || bare_scalar {
        // XLA also reads one bare value as every element of an array.
        // A scalar may be written bare or, in older text, in braces.
        let values: Vec<&str> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Atom(a) => Some(*a),
                _ => None,
            })
            .collect();
        if values.len() != 1 {
            errors.push(format!(
                "a scalar literal needs one value, found {}",
                values.len()
            ));
        }
        atoms = values;
    } else {
        nested(
            &pieces,
            &mut position,
            0,
            &shape.dims,
            &mut atoms,
            &mut errors,
        );
        if errors.is_empty() && position != pieces.len() {
            errors.push("unexpected text after the literal".into());
        }
    }
    for atom in atoms {
        if let Err(message) = element(atom, shape.element_type) {
            errors.push(message);
            break;
        }
    }
    errors
}

/// Reads one nesting level `{...}` for dim `depth`.
fn nested<'a>(
    pieces: &[Piece<'a>],
    position: &mut usize,
    depth: usize,
    dims: &[Dim],
    atoms: &mut Vec<&'a str>,
    errors: &mut Vec<String>,
) {
    let rank = dims.len();
    match pieces.get(*position) {
        Some(Piece::Open) => *position += 1,
        Some(Piece::Atom(atom)) => {
            errors.push(format!(
                "expects nested array in rank {rank}, but sees {depth}: found `{atom}` where \
                 dimension {depth} needs a `{{...}}` list"
            ));
            return;
        }
        _ => {
            errors.push("the literal ends too early".into());
            return;
        }
    }
    let mut count: i64 = 0;
    loop {
        match pieces.get(*position) {
            Some(Piece::Close) => {
                *position += 1;
                break;
            }
            Some(Piece::Open) if depth + 1 < rank => {
                nested(pieces, position, depth + 1, dims, atoms, errors);
                if !errors.is_empty() {
                    return;
                }
                count += 1;
            }
            Some(Piece::Open) => {
                errors.push(format!(
                    "expects nested array in rank {rank}, but sees larger: a list nested deeper \
                     than the shape's rank"
                ));
                return;
            }
            Some(Piece::Atom(atom)) if depth + 1 == rank => {
                atoms.push(atom);
                count += 1;
                *position += 1;
            }
            Some(Piece::Atom(atom)) => {
                errors.push(format!(
                    "expects nested array in rank {rank}, but sees {}: found `{atom}` where \
                     dimension {} needs a `{{...}}` list",
                    depth + 1,
                    depth + 1
                ));
                return;
            }
            None => {
                errors.push("the literal ends too early".into());
                return;
            }
        }
    }
    if let Some(expected) = dims.get(depth).and_then(|d| match d {
        Dim::Static(n) => Some(*n),
        _ => None,
    }) {
        if count != expected {
            errors.push(format!(
                "expects {expected} elements in dimension {depth} of the literal, but sees {count}"
            ));
        }
    }
}

/// Mantissa bits and whether the type has IEEE-style NaNs with payloads.
fn nan_payload_bits(ty: PrimitiveType) -> Option<u32> {
    use PrimitiveType::*;
    Some(match ty {
        F16 => 10,
        Bf16 => 7,
        F32 => 23,
        F64 => 52,
        F8E5m2 => 2,
        F8E4m3 => 3,
        F8E3m4 => 4,
        _ => return None,
    })
}

/// The largest finite value and the bound at which rounding reaches infinity.
fn overflow_bound(ty: PrimitiveType) -> Option<f64> {
    // max + half an ulp at the top binade: values at or past it round to infinity.
    let (max_exponent, digits) = match ty {
        PrimitiveType::F16 => (16, 11),
        PrimitiveType::Bf16 => (128, 8),
        PrimitiveType::F32 => (128, 24),
        _ => return None,
    };
    let ulp = 2f64.powi(max_exponent - digits);
    let max = 2f64.powi(max_exponent) - ulp;
    Some(max + ulp / 2.0)
}

fn is_unsigned(ty: PrimitiveType) -> bool {
    use PrimitiveType::*;
    matches!(ty, U1 | U2 | U4 | U8 | U16 | U32 | U64)
}

/// Checks one element's text against the element type.
fn element(atom: &str, ty: PrimitiveType) -> Result<(), String> {
    let out_of_range = || {
        format!(
            "`{atom}` is out of range for literal's primitive type {}",
            ty.name().to_uppercase()
        )
    };
    if ty == PrimitiveType::Pred {
        return match atom {
            "true" | "false" | "0" | "1" => Ok(()),
            _ => Err(format!(
                "`{atom}` is not a pred value (true, false, 0 or 1)"
            )),
        };
    }
    if ty.is_integral() {
        let Ok(value) = atom.parse::<i128>() else {
            // Integers written as floats (`1.0`) or hex are left to the front end.
            return Ok(());
        };
        let bits = ty.bit_width();
        let (low, high) = if is_unsigned(ty) {
            (0i128, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        };
        return if (low..=high).contains(&value) {
            Ok(())
        } else {
            Err(out_of_range())
        };
    }
    if ty.is_floating_point() {
        let body = atom.trim_start_matches(['-', '+']);
        if let Some(payload) = body
            .strip_prefix("nan(")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            let digits = payload.trim_start_matches("0x").trim_start_matches("0X");
            let value = u64::from_str_radix(digits, 16).ok();
            let fits = match (nan_payload_bits(ty), value) {
                (Some(bits), Some(v)) => v != 0 && v < (1u64 << bits),
                _ => false,
            };
            if !fits {
                return Err(format!(
                    "the literal tries to set NaN payload {payload}, which does not fit a \
                     {} NaN",
                    ty.name()
                ));
            }
            return Ok(());
        }
        if let (Some(bound), Ok(value)) = (overflow_bound(ty), atom.parse::<f64>()) {
            if value.is_finite() && value.abs() >= bound {
                return Err(out_of_range());
            }
            if !value.is_finite() && !body.starts_with("inf") && !body.starts_with("nan") {
                return Err(out_of_range());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> ArrayShape {
        crate::parse_array_shape(text).unwrap()
    }

    #[test]
    fn nesting_counts_and_ranges() {
        assert!(check("{{1, 2}, {3, 4}}", &shape("f32[2,2]")).is_empty());
        assert!(check("{1,{2}}", &shape("f32[2]"))[0].contains("sees larger"));
        assert!(check("{1, 2, 3, 4, 5, 6}", &shape("f32[2,3]"))[0].contains("rank 2"));
        assert!(check("{{1, 2}}", &shape("f32[2,2]"))[0].contains("expects 2 elements"));
        assert!(check("-65520", &shape("f16[]"))[0].contains("out of range"));
        assert!(check("65504", &shape("f16[]")).is_empty());
        assert!(check("1e100", &shape("bf16[]"))[0].contains("out of range"));
        assert!(check("-1", &shape("u4[]"))[0].contains("U4"));
        assert!(check("15", &shape("u4[]")).is_empty());
        assert!(check("-8", &shape("s4[]")).is_empty());
        assert!(check("8", &shape("s4[]"))[0].contains("S4"));
        assert!(check("{nan(0x3ff)}", &shape("bf16[1]"))[0].contains("NaN payload 0x3ff"));
        assert!(check("{nan(0x7f)}", &shape("bf16[1]")).is_empty());
        assert!(check("{nan(0x1)}", &shape("f8e4m3fn[1]"))[0].contains("NaN payload"));
        assert!(check("{-inf, inf, nan}", &shape("f32[3]")).is_empty());
        assert!(check("{...}", &shape("f32[3]")).is_empty());
        assert!(check(
            "{ { /*i0=0*/ {1} }, { /*i0=1*/ {2} } }",
            &shape("f32[2,1,1]")
        )
        .is_empty());
        assert!(check("{(1, 2), (3, 4)}", &shape("c64[2]")).is_empty());
    }
}
