//! The value of `window={...}`: [`Window`], one [`WindowDimension`] per dimension.
//!
//! Invariant: `size` is required and fixes the rank, every other field has one entry per
//! dimension, and printing writes each field only where a dimension differs from its
//! default, in XLA's order, so a window read from XLA's text prints back unchanged.

use std::fmt;

use super::error::AttrError;
use super::text::{parse_dxd, parse_int};

/// One dimension of a window, with XLA's defaults for the fields the text leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowDimension {
    /// The window's extent in this dimension.
    pub size: i64,
    /// How far the window moves between positions.
    pub stride: i64,
    /// Padding before the first element.
    pub padding_low: i64,
    /// Padding after the last element.
    pub padding_high: i64,
    /// `lhs_dilate`, XLA's base dilation.
    pub base_dilation: i64,
    /// `rhs_dilate`, XLA's window dilation.
    pub window_dilation: i64,
    /// `rhs_reversal`.
    pub window_reversal: bool,
}

impl WindowDimension {
    /// A window dimension of `size` with every other field at its default.
    pub fn new(size: i64) -> WindowDimension {
        WindowDimension {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            base_dilation: 1,
            window_dilation: 1,
            window_reversal: false,
        }
    }
}

/// The value of `window={...}`. A window with no dimensions (scalar reduce-window) is what
/// an instruction without a `window` attribute has.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// One entry per dimension of the operand.
    pub dimensions: Vec<WindowDimension>,
}

impl Window {
    /// Reads the fields inside `window={...}`, given as (name, value text) pairs in any
    /// order, e.g. `[("size", "3x3"), ("pad", "0_1x0_1")]`. `size` is required and fixes
    /// the rank; every other field must have one entry per dimension.
    pub fn parse<N: AsRef<str>, V: AsRef<str>>(fields: &[(N, V)]) -> Result<Window, AttrError> {
        let mut size = None;
        let mut stride = None;
        let mut pad = None;
        let mut lhs_dilate = None;
        let mut rhs_dilate = None;
        let mut rhs_reversal = None;
        for (name, value) in fields {
            let (name, value) = (name.as_ref(), value.as_ref());
            let slot = match name {
                "size" => &mut size,
                "stride" => &mut stride,
                "lhs_dilate" => &mut lhs_dilate,
                "rhs_dilate" => &mut rhs_dilate,
                "rhs_reversal" => &mut rhs_reversal,
                "pad" => {
                    if pad.is_some() {
                        return Err(AttrError::DuplicateWindowField { field: name.into() });
                    }
                    pad = Some(parse_window_padding(value)?);
                    continue;
                }
                _ => return Err(AttrError::UnknownWindowField { field: name.into() }),
            };
            if slot.is_some() {
                return Err(AttrError::DuplicateWindowField { field: name.into() });
            }
            *slot = Some(parse_dxd(value)?);
        }
        let size = size.ok_or(AttrError::MissingWindowSize)?;
        let rank = size.len();
        let check_rank = |field: &str, found: usize| {
            if found == rank {
                Ok(())
            } else {
                Err(AttrError::WindowRankMismatch {
                    field: field.into(),
                    expected: rank,
                    found,
                })
            }
        };
        for (field, values) in [
            ("stride", &stride),
            ("lhs_dilate", &lhs_dilate),
            ("rhs_dilate", &rhs_dilate),
            ("rhs_reversal", &rhs_reversal),
        ] {
            if let Some(values) = values {
                check_rank(field, values.len())?;
            }
        }
        if let Some(pad) = &pad {
            check_rank("pad", pad.len())?;
        }
        // Every optional field has been checked to have `rank` entries, so `get` finds one
        // for every dimension; the defaults are XLA's.
        let pick = |values: &Option<Vec<i64>>, i: usize, default: i64| {
            values
                .as_ref()
                .and_then(|v| v.get(i).copied())
                .unwrap_or(default)
        };
        let dimensions = size
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let (padding_low, padding_high) = pad
                    .as_ref()
                    .and_then(|p| p.get(i).copied())
                    .unwrap_or((0, 0));
                WindowDimension {
                    size,
                    stride: pick(&stride, i, 1),
                    padding_low,
                    padding_high,
                    base_dilation: pick(&lhs_dilate, i, 1),
                    window_dilation: pick(&rhs_dilate, i, 1),
                    // XLA stores the parsed integer into a bool, so any non-zero is true.
                    window_reversal: pick(&rhs_reversal, i, 0) != 0,
                }
            })
            .collect();
        Ok(Window { dimensions })
    }

    /// The number of dimensions the window spans.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }
}

/// Reads window padding `0_1x1_0`: exactly low and high per dimension.
fn parse_window_padding(text: &str) -> Result<Vec<(i64, i64)>, AttrError> {
    let bad = || AttrError::BadWindowPadding { text: text.into() };
    text.split('x')
        .map(|dim| {
            let parts: Vec<&str> = dim.split('_').collect();
            match parts.as_slice() {
                [low, high] => Ok((parse_int(low)?, parse_int(high)?)),
                _ => Err(bad()),
            }
        })
        .collect()
}

/// Prints the text inside `window={...}` in XLA's order, each field only where some
/// dimension differs from the default (`size` always): `size=3x3 stride=2x1 pad=0_1x0_1`.
impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = &self.dimensions;
        if dims.is_empty() {
            return Ok(());
        }
        let field = |f: &mut fmt::Formatter<'_>,
                     name: &str,
                     value: &dyn Fn(&WindowDimension) -> String|
         -> fmt::Result {
            write!(f, "{name}=")?;
            for (i, dim) in dims.iter().enumerate() {
                if i > 0 {
                    f.write_str("x")?;
                }
                f.write_str(&value(dim))?;
            }
            Ok(())
        };
        field(f, "size", &|d| d.size.to_string())?;
        if dims.iter().any(|d| d.stride != 1) {
            f.write_str(" ")?;
            field(f, "stride", &|d| d.stride.to_string())?;
        }
        if dims
            .iter()
            .any(|d| d.padding_low != 0 || d.padding_high != 0)
        {
            f.write_str(" ")?;
            field(f, "pad", &|d| {
                format!("{}_{}", d.padding_low, d.padding_high)
            })?;
        }
        if dims.iter().any(|d| d.base_dilation != 1) {
            f.write_str(" ")?;
            field(f, "lhs_dilate", &|d| d.base_dilation.to_string())?;
        }
        if dims.iter().any(|d| d.window_dilation != 1) {
            f.write_str(" ")?;
            field(f, "rhs_dilate", &|d| d.window_dilation.to_string())?;
        }
        if dims.iter().any(|d| d.window_reversal) {
            f.write_str(" ")?;
            field(f, "rhs_reversal", &|d| {
                if d.window_reversal { "1" } else { "0" }.to_string()
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_reads_every_field_and_prints_xla_order() {
        let window = Window::parse(&[
            ("rhs_reversal", "1x0"),
            ("size", "3x3"),
            ("pad", "0_1x-1_1"),
            ("stride", "2x1"),
            ("lhs_dilate", "2x2"),
            ("rhs_dilate", "1x1"),
        ])
        .unwrap();
        assert_eq!(
            window.dimensions[1],
            WindowDimension {
                size: 3,
                stride: 1,
                padding_low: -1,
                padding_high: 1,
                base_dilation: 2,
                window_dilation: 1,
                window_reversal: false,
            }
        );
        assert!(window.dimensions[0].window_reversal);
        // rhs_dilate is all default, so it is not printed.
        assert_eq!(
            window.to_string(),
            "size=3x3 stride=2x1 pad=0_1x-1_1 lhs_dilate=2x2 rhs_reversal=1x0"
        );
    }

    #[test]
    fn window_round_trips_corpus_forms() {
        for text in [
            "size=3x3 pad=1_1x1_1",
            "size=5",
            "size=3x3 stride=2x2 pad=1_2x0_1",
            "size=3x3 pad=2_2x3_1 lhs_dilate=2x2 rhs_dilate=2x2",
            "size=1x1x16 pad=0_0x0_0x15_0",
            "size=32 stride=32 pad=6_6",
            "size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1",
            "size=3 pad=-1_-1",
        ] {
            let fields: Vec<(&str, &str)> = text
                .split(' ')
                .map(|field| field.split_once('=').unwrap())
                .collect();
            assert_eq!(Window::parse(&fields).unwrap().to_string(), text);
        }
        assert_eq!(Window::default().to_string(), "");
    }

    #[test]
    fn window_errors() {
        assert_eq!(
            Window::parse(&[("stride", "2")]),
            Err(AttrError::MissingWindowSize)
        );
        assert_eq!(
            Window::parse(&[("size", "3x3"), ("stride", "2")]),
            Err(AttrError::WindowRankMismatch {
                field: "stride".into(),
                expected: 2,
                found: 1
            })
        );
        assert_eq!(
            Window::parse(&[("size", "3"), ("pad", "1_1x0_0")]),
            Err(AttrError::WindowRankMismatch {
                field: "pad".into(),
                expected: 1,
                found: 2
            })
        );
        assert_eq!(
            Window::parse(&[("size", "3"), ("size", "3")]),
            Err(AttrError::DuplicateWindowField {
                field: "size".into()
            })
        );
        assert_eq!(
            Window::parse(&[("size", "3"), ("window_reversal", "1")]),
            Err(AttrError::UnknownWindowField {
                field: "window_reversal".into()
            })
        );
        assert_eq!(
            Window::parse(&[("size", "3"), ("pad", "0_0_1")]),
            Err(AttrError::BadWindowPadding {
                text: "0_0_1".into()
            })
        );
        assert!(matches!(
            Window::parse(&[("size", "3x99999999999999999999")]),
            Err(AttrError::IntegerOverflow { .. })
        ));
    }
}
