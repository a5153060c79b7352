//! The value of `padding=` on `pad`: [`PaddingConfig`], one [`PaddingDimension`] per
//! dimension.
//!
//! Invariant: every dimension is `low_high` or `low_high_interior`; the interior prints for
//! every dimension exactly when one is not zero.

use std::fmt;

use super::error::AttrError;
use super::text::parse_int;

/// The padding of one dimension of `pad`: edges may be negative, interior may not (shape
/// inference checks that).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PaddingDimension {
    /// Padding before the first element; negative to cut elements.
    pub edge_low: i64,
    /// Padding after the last element; negative to cut elements.
    pub edge_high: i64,
    /// Padding between each two elements.
    pub interior: i64,
}

/// The value of `padding=` on `pad`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PaddingConfig {
    /// One entry per dimension of the operand.
    pub dimensions: Vec<PaddingDimension>,
}

impl PaddingConfig {
    /// Reads `1_1x0_0` or `0_-1_2x3_3_0`: low_high or low_high_interior per dimension,
    /// dimensions joined by `x`.
    pub fn parse(text: &str) -> Result<PaddingConfig, AttrError> {
        let bad = || AttrError::BadPadding { text: text.into() };
        if text.is_empty() {
            return Err(bad());
        }
        let dimensions = text
            .split('x')
            .map(|dim| {
                let parts: Vec<&str> = dim.split('_').collect();
                match parts.as_slice() {
                    [low, high] => Ok(PaddingDimension {
                        edge_low: parse_int(low)?,
                        edge_high: parse_int(high)?,
                        interior: 0,
                    }),
                    [low, high, interior] => Ok(PaddingDimension {
                        edge_low: parse_int(low)?,
                        edge_high: parse_int(high)?,
                        interior: parse_int(interior)?,
                    }),
                    _ => Err(bad()),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(PaddingConfig { dimensions })
    }
}

/// Prints `1_1x0_0`; the interior is printed for every dimension iff one is non-zero.
impl fmt::Display for PaddingConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_interior = self.dimensions.iter().any(|d| d.interior != 0);
        for (i, dim) in self.dimensions.iter().enumerate() {
            if i > 0 {
                f.write_str("x")?;
            }
            write!(f, "{}_{}", dim.edge_low, dim.edge_high)?;
            if with_interior {
                write!(f, "_{}", dim.interior)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_round_trips_and_prints_interior_only_when_needed() {
        for text in [
            "1_1x0_0",
            "0_0_0x2_2_1",
            "0_0_0x0_-10_0x0_-1_0x-2_-2_0x-1_-1_3",
            "0_-1",
        ] {
            assert_eq!(PaddingConfig::parse(text).unwrap().to_string(), text);
        }
        // An all-zero interior is dropped on printing.
        assert_eq!(
            PaddingConfig::parse("1_2_0x3_4_0").unwrap().to_string(),
            "1_2x3_4"
        );
        let config = PaddingConfig::parse("0_-1_2x3_3").unwrap();
        assert_eq!(
            config.dimensions,
            vec![
                PaddingDimension {
                    edge_low: 0,
                    edge_high: -1,
                    interior: 2
                },
                PaddingDimension {
                    edge_low: 3,
                    edge_high: 3,
                    interior: 0
                },
            ]
        );
        assert_eq!(config.to_string(), "0_-1_2x3_3_0");
        for bad in ["", "1", "1_2_3_4", "1_2x", "a_b"] {
            assert!(PaddingConfig::parse(bad).is_err(), "{bad:?}");
        }
    }
}
