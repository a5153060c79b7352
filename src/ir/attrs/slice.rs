//! The value of `slice={...}`: [`SliceConfig`], one [`SliceRange`] per dimension.
//!
//! Invariant: every range is `[start:limit]` or `[start:limit:stride]`; strides print for
//! every range exactly when one is not 1.

use std::fmt;

use super::error::AttrError;
use super::text::parse_int;

/// One range of `slice={...}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SliceRange {
    /// The first index taken.
    pub start: i64,
    /// The index the range stops before.
    pub limit: i64,
    /// The step between indices taken.
    pub stride: i64,
}

/// The value of `slice={...}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SliceConfig {
    /// One range per dimension of the operand.
    pub ranges: Vec<SliceRange>,
}

impl SliceConfig {
    /// Builds the config from the `[start:limit(:stride)]` ranges the parser read; a missing
    /// stride is 1, as in XLA. Values are checked by shape inference, not here.
    pub fn from_ranges(ranges: &[(i64, i64, Option<i64>)]) -> SliceConfig {
        SliceConfig {
            ranges: ranges
                .iter()
                .map(|&(start, limit, stride)| SliceRange {
                    start,
                    limit,
                    stride: stride.unwrap_or(1),
                })
                .collect(),
        }
    }

    /// Reads the whole printed value, `{[0:2], [1:3:2]}` or `{}`, for callers holding text.
    pub fn parse(text: &str) -> Result<SliceConfig, AttrError> {
        let bad = || AttrError::BadSlice { text: text.into() };
        let inner = text
            .trim()
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .ok_or_else(bad)?
            .trim();
        if inner.is_empty() {
            return Ok(SliceConfig::default());
        }
        let mut ranges = Vec::new();
        for item in inner.split(',') {
            let body = item
                .trim()
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .ok_or_else(bad)?;
            let numbers: Vec<&str> = body.split(':').map(str::trim).collect();
            let range = match numbers.as_slice() {
                [start, limit] => (parse_int(start)?, parse_int(limit)?, None),
                [start, limit, stride] => (
                    parse_int(start)?,
                    parse_int(limit)?,
                    Some(parse_int(stride)?),
                ),
                _ => return Err(bad()),
            };
            ranges.push(range);
        }
        Ok(SliceConfig::from_ranges(&ranges))
    }
}

/// Prints `{[0:2], [1:3]}`; strides are printed for every range iff one is not 1.
impl fmt::Display for SliceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_stride = self.ranges.iter().any(|r| r.stride != 1);
        f.write_str("{")?;
        for (i, range) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "[{}:{}", range.start, range.limit)?;
            if with_stride {
                write!(f, ":{}", range.stride)?;
            }
            f.write_str("]")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_round_trip_with_strides_for_all_or_none() {
        let config = SliceConfig::from_ranges(&[(0, 2, None), (1, 3, Some(1))]);
        assert_eq!(config.to_string(), "{[0:2], [1:3]}");
        let config = SliceConfig::from_ranges(&[(0, 50, Some(2)), (0, 49, None), (0, 48, Some(4))]);
        assert_eq!(config.to_string(), "{[0:50:2], [0:49:1], [0:48:4]}");
        assert_eq!(SliceConfig::from_ranges(&[]).to_string(), "{}");
        for text in ["{[0:3], [0:4]}", "{[0:50:2], [0:49:1], [0:48:4]}", "{}"] {
            assert_eq!(SliceConfig::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            SliceConfig::parse("{[0:2:1]}").unwrap().to_string(),
            "{[0:2]}"
        );
        for bad in ["[0:2]", "{[0]}", "{[0:1:2:3]}", "{(0:1)}", "{[a:1]}"] {
            assert!(SliceConfig::parse(bad).is_err(), "{bad:?}");
        }
    }
}
