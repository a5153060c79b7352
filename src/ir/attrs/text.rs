//! The pieces attribute values are written with: integers (checked to fit `i64`), `DxD`
//! lists, integer lists and `{%a, %b}` name lists, read; integers and `name={1,0}` lists,
//! written.
//!
//! Invariant: an integer that is not one, or does not fit `i64`, is an error, never a wrap.

use std::fmt;
use std::num::IntErrorKind;

use super::error::AttrError;

/// The names of a `{%a, %b}` list attribute (`control-predecessors`, `branch_computations`),
/// without their `%`.
pub fn name_list(text: &str) -> impl Iterator<Item = &str> {
    text.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .map(|name| name.trim().trim_start_matches('%'))
        .filter(|name| !name.is_empty())
}

/// Reads one integer as the lexer gives it (`-?[0-9]+`), rejecting anything outside `i64`.
pub fn parse_int(text: &str) -> Result<i64, AttrError> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AttrError::NotAnInteger { text: text.into() });
    }
    text.parse::<i64>().map_err(|error| match error.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
            AttrError::IntegerOverflow { text: text.into() }
        }
        _ => AttrError::NotAnInteger { text: text.into() },
    })
}

/// Reads a list of integers already split into their texts, e.g. the items of `{1,0}`.
pub fn parse_int_list<S: AsRef<str>>(texts: &[S]) -> Result<Vec<i64>, AttrError> {
    texts.iter().map(|text| parse_int(text.as_ref())).collect()
}

/// Reads `3x3`, `1x4x1x1` or a single `3` (a `DxD` or `Int` token) into one integer per
/// dimension.
pub fn parse_dxd(text: &str) -> Result<Vec<i64>, AttrError> {
    text.split('x').map(parse_int).collect()
}

/// Writes integers joined by `separator`, as XLA's `StrJoin` does.
fn write_ints(f: &mut fmt::Formatter<'_>, values: &[i64], separator: &str) -> fmt::Result {
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(separator)?;
        }
        write!(f, "{value}")?;
    }
    Ok(())
}

/// Writes `name={1,0}`, the form of an int-list attribute.
pub(super) fn write_int_list(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    values: &[i64],
) -> fmt::Result {
    write!(f, "{name}={{")?;
    write_ints(f, values, ",")?;
    f.write_str("}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_checked() {
        assert_eq!(parse_int("-12"), Ok(-12));
        assert_eq!(parse_int("9223372036854775807"), Ok(i64::MAX));
        assert_eq!(parse_int("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(
            parse_int("9223372036854775808"),
            Err(AttrError::IntegerOverflow {
                text: "9223372036854775808".into()
            })
        );
        for bad in ["", "-", "+1", "1.0", "0x1", " 1", "1_2"] {
            assert_eq!(
                parse_int(bad),
                Err(AttrError::NotAnInteger { text: bad.into() }),
                "{bad:?}"
            );
        }
        assert_eq!(parse_int_list(&["1", "0"]), Ok(vec![1, 0]));
        assert!(parse_int_list(&["1", "x"]).is_err());
        assert_eq!(parse_dxd("2x1x3"), Ok(vec![2, 1, 3]));
        assert_eq!(parse_dxd("5"), Ok(vec![5]));
        assert!(parse_dxd("2xx1").is_err());
    }
}
