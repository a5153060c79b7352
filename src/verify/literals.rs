//! Constants: the literal's nesting and element counts fit the shape, and every element is in
//! the range of the element type (integer bounds, float overflow, NaN payloads).

use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim};

use crate::span::Span;

/// One piece of literal text.
#[derive(Debug, PartialEq)]
pub(crate) enum Piece<'a> {
    Open,
    Close,
    Atom(std::borrow::Cow<'a, str>),
}

/// A literal's pieces, each with where it is: in the text checked, or in the module's
/// source when lowering builds them from the syntax tree. An opening brace's span is its
/// whole list, which is what XLA points at when the list is one too many.
pub(crate) type Pieces<'a> = Vec<(Piece<'a>, Span)>;

/// Splits literal text into braces and atoms; commas separate, `(...)` stays one atom.
fn pieces(text: &str) -> Pieces<'_> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' => {
                out.push((Piece::Open, Span::new(i, i + 1)));
                i += 1;
            }
            b'}' => {
                out.push((Piece::Close, Span::new(i, i + 1)));
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
                let atom = text.get(start..i).unwrap_or("");
                out.push((Piece::Atom(atom.into()), Span::new(start, i)));
            }
        }
    }
    out
}

/// Checks a constant's literal text against its array shape; every problem is returned.
pub fn check(text: &str, shape: &ArrayShape) -> Vec<String> {
    // Elided literals (`{...}`) carry no values to check.
    if text.contains("...") {
        return Vec::new();
    }
    check_pieces(&pieces(text), shape)
        .into_iter()
        .map(|(message, _)| message)
        .collect()
}

/// [`check`] on pieces already split, each problem with the piece XLA points at (`None`
/// where it points at no one piece).
pub(crate) fn check_pieces(
    pieces: &[(Piece<'_>, Span)],
    shape: &ArrayShape,
) -> Vec<(String, Option<Span>)> {
    let mut errors = Vec::new();
    let rank = shape.rank();
    let mut position = 0;
    let mut atoms = Vec::new();
    let bare_scalar = !pieces.iter().any(|(p, _)| *p == Piece::Open) && pieces.len() == 1;
    if rank == 0 || bare_scalar {
        // XLA also reads one bare value as every element of an array.
        // A scalar may be written bare or, in older text, in braces.
        let values: Vec<(&str, Span)> = pieces
            .iter()
            .filter_map(|(p, span)| match p {
                Piece::Atom(a) => Some((&**a, *span)),
                _ => None,
            })
            .collect();
        if values.len() != 1 {
            errors.push((
                format!("a scalar literal needs one value, found {}", values.len()),
                values.get(1).map(|(_, span)| *span),
            ));
        }
        atoms = values;
    } else {
        nested(
            pieces,
            &mut position,
            0,
            &shape.dims,
            &mut atoms,
            &mut errors,
        );
        if errors.is_empty() && position != pieces.len() {
            errors.push((
                "unexpected text after the literal".into(),
                pieces.get(position).map(|(_, span)| *span),
            ));
        }
    }
    for (atom, span) in atoms {
        if let Err(message) = element(atom, shape.element_type) {
            errors.push((message, Some(span)));
            break;
        }
    }
    errors
}

/// Reads one nesting level `{...}` for dim `depth`.
fn nested<'a>(
    pieces: &'a [(Piece<'a>, Span)],
    position: &mut usize,
    depth: usize,
    dims: &[Dim],
    atoms: &mut Vec<(&'a str, Span)>,
    errors: &mut Vec<(String, Option<Span>)>,
) {
    let rank = dims.len();
    let at = |position: usize| pieces.get(position).map(|(_, span)| *span);
    match pieces.get(*position) {
        Some((Piece::Open, _)) => *position += 1,
        Some((Piece::Atom(atom), span)) => {
            errors.push((
                format!(
                    "expects nested array in rank {rank}, but sees {depth}: found `{atom}` where \
                     dimension {depth} needs a `{{...}}` list"
                ),
                Some(*span),
            ));
            return;
        }
        _ => {
            errors.push(("the literal ends too early".into(), None));
            return;
        }
    }
    let expected = dims.get(depth).and_then(|d| match d {
        Dim::Static(n) => Some(*n),
        _ => None,
    });
    let mut count: i64 = 0;
    // XLA points at the first element past the dim's size.
    let mut first_extra = None;
    loop {
        if Some(count) == expected && first_extra.is_none() {
            first_extra = at(*position);
        }
        match pieces.get(*position) {
            Some((Piece::Close, _)) => {
                *position += 1;
                break;
            }
            Some((Piece::Open, _)) if depth + 1 < rank => {
                nested(pieces, position, depth + 1, dims, atoms, errors);
                if !errors.is_empty() {
                    return;
                }
                count += 1;
            }
            Some((Piece::Open, span)) => {
                errors.push((
                    format!(
                        "expects nested array in rank {rank}, but sees larger: a list nested \
                         deeper than the shape's rank"
                    ),
                    Some(*span),
                ));
                return;
            }
            Some((Piece::Atom(atom), span)) if depth + 1 == rank => {
                atoms.push((&**atom, *span));
                count += 1;
                *position += 1;
            }
            Some((Piece::Atom(atom), span)) => {
                errors.push((
                    format!(
                        "expects nested array in rank {rank}, but sees {}: found `{atom}` where \
                         dimension {} needs a `{{...}}` list",
                        depth + 1,
                        depth + 1
                    ),
                    Some(*span),
                ));
                return;
            }
            None => {
                errors.push(("the literal ends too early".into(), None));
                return;
            }
        }
    }
    if let Some(expected) = expected {
        if count != expected {
            // Too few: XLA points at the closing brace.
            let span = if count > expected {
                first_extra
            } else {
                at(position.saturating_sub(1))
            };
            errors.push((
                format!(
                    "expects {expected} elements in dimension {depth} of the literal, but sees \
                     {count}"
                ),
                span,
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

/// The largest finite value, the gap between it and the next value up (the unit in the last
/// place of the top binade), and whether its last significand bit is 0: a value halfway past
/// the largest rounds to even, so down to it only when that bit is 0 (f8e4m3fn: 464 is
/// read as 448, while f16's 65520 overflows). XLA refuses what rounds past the largest
/// value; its messages give the range.
fn float_limits(ty: PrimitiveType) -> Option<(f64, f64, bool)> {
    use PrimitiveType::*;
    let top = |max_exponent: i32, digits: i32| {
        let ulp = 2f64.powi(max_exponent - digits);
        (2f64.powi(max_exponent) - ulp, ulp, false)
    };
    Some(match ty {
        F16 => top(16, 11),
        Bf16 => top(128, 8),
        F32 => top(128, 24),
        F8E5m2 | F8E5m2fnuz => (57344.0, 8192.0, false),
        F8E4m3 | F8E4m3fnuz => (240.0, 16.0, false),
        // 480 would be the NaN encoding, so the largest value ends in a 0 bit.
        F8E4m3fn => (448.0, 32.0, true),
        F8E4m3b11fnuz => (30.0, 2.0, false),
        F8E3m4 => (15.5, 0.5, false),
        _ => return None,
    })
}

/// Whether `value` (finite) rounds past the largest finite value of `ty`.
fn overflows(ty: PrimitiveType, value: f64) -> bool {
    let Some((max, ulp, max_is_even)) = float_limits(ty) else {
        return false;
    };
    let magnitude = value.abs();
    let halfway = max + ulp / 2.0;
    magnitude > halfway || (magnitude == halfway && !max_is_even)
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
        // XLA reads any integer, nonzero as true (`constant(2)` prints as `true`).
        return match atom {
            "true" | "false" => Ok(()),
            _ if atom.parse::<i64>().is_ok() => Ok(()),
            _ => Err(format!(
                "`{atom}` is not a pred value (true, false, or an integer: nonzero is true)"
            )),
        };
    }
    if ty.is_integral() {
        let Ok(value) = atom.parse::<i128>() else {
            // XLA's lexer reads `1.0`, `1e3` or `true` as other tokens than an integer.
            return Err("expects integer".to_string());
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
        // XLA's lexer needs a digit before the point, unless a sign comes first (`-.5`).
        if atom.starts_with('.') {
            return Err("unexpected token type in a literal".to_string());
        }
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
        if let (Some(_), Ok(value)) = (float_limits(ty), atom.parse::<f64>()) {
            if value.is_finite() && overflows(ty, value) {
                return Err(out_of_range());
            }
            if !value.is_finite() && !body.starts_with("inf") && !body.starts_with("nan") {
                return Err(out_of_range());
            }
        }
        // f8e8m0fnu holds powers of two only, all positive.
        if let (PrimitiveType::F8E8m0fnu, Ok(value)) = (ty, atom.parse::<f64>()) {
            if value <= 0.0 || value >= 1.5 * 2f64.powi(127) {
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
        // XLA reads any integer as a pred, nonzero as true.
        assert!(check("{2, -1, 0, true}", &shape("pred[4]")).is_empty());
        assert!(!check("1.5", &shape("pred[]")).is_empty());
        // As XLA's lexer reads numbers.
        assert_eq!(check("1.0", &shape("s32[]")), ["expects integer"]);
        assert_eq!(check("true", &shape("u8[]")), ["expects integer"]);
        assert!(!check(".5", &shape("f32[]")).is_empty());
        assert!(check("-.5", &shape("f32[]")).is_empty());
        assert!(check("5.", &shape("f32[]")).is_empty());
    }

    /// The boundaries jaxlib 0.10.2's parser draws: a value rounds to the type, and one
    /// that rounds past the largest finite value is out of range.
    #[test]
    fn float_ranges_as_xla_reads_them() {
        let cases = [
            ("f16", "65519", true),
            ("f16", "65520", false),
            ("f8e5m2", "61439", true),
            ("f8e5m2", "61440", false),
            ("f8e5m2fnuz", "61440", false),
            ("f8e4m3", "247", true),
            ("f8e4m3", "248", false),
            ("f8e4m3fn", "464", true),
            ("f8e4m3fn", "500", false),
            ("f8e4m3fnuz", "248", false),
            ("f8e4m3b11fnuz", "30.9", true),
            ("f8e4m3b11fnuz", "31", false),
            ("f8e3m4", "15.74", true),
            ("f8e3m4", "15.75", false),
            ("f8e8m0fnu", "1.7e38", true),
            ("f8e8m0fnu", "0", false),
            ("f8e8m0fnu", "-1", false),
            ("f8e8m0fnu", "3.4e38", false),
            // XLA does not check these.
            ("f4e2m1fn", "8", true),
            ("f6e3m2fn", "32", true),
        ];
        for (ty, value, accepted) in cases {
            let errors = check(value, &shape(&format!("{ty}[]")));
            assert_eq!(errors.is_empty(), accepted, "{ty} {value}: {errors:?}");
        }
    }
}
