//! A convolution's dimension numbers, read from and printed as `dim_labels=b01f_01io->b01f`:
//! [`ConvDimensionNumbers`].
//!
//! Invariant: printing lays each group of labels out as XLA does (`?` where no role names a
//! position) and never panics, whatever the numbers; labels read from XLA's text print back
//! unchanged.

use std::fmt;

use super::error::AttrError;

/// A convolution's dimension numbers, read from `dim_labels=b01f_01io->b01f`.
///
/// Like XLA's proto, a label that does not name a batch or feature dimension leaves it at 0;
/// shape inference then rejects labels that are not a permutation of the operand's dims.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvDimensionNumbers {
    /// The input's batch dim (`b`).
    pub input_batch_dimension: i64,
    /// The input's feature dim (`f`).
    pub input_feature_dimension: i64,
    /// The input's spatial dims, in label order (`0`, `1`, ...).
    pub input_spatial_dimensions: Vec<i64>,
    /// The kernel's input-feature dim (`i`).
    pub kernel_input_feature_dimension: i64,
    /// The kernel's output-feature dim (`o`).
    pub kernel_output_feature_dimension: i64,
    /// The kernel's spatial dims, in label order.
    pub kernel_spatial_dimensions: Vec<i64>,
    /// The output's batch dim (`b`).
    pub output_batch_dimension: i64,
    /// The output's feature dim (`f`).
    pub output_feature_dimension: i64,
    /// The output's spatial dims, in label order.
    pub output_spatial_dimensions: Vec<i64>,
}

/// The roles one group of dim labels (input, kernel or output) can name.
struct LabelGroup {
    /// `b` for input and output, `i` for the kernel.
    first: char,
    /// `f` for input and output, `o` for the kernel.
    second: char,
    name: &'static str,
}

/// One group of labels read: where its two named dims and its spatial dims are.
struct ReadGroup {
    first: i64,
    second: i64,
    spatial: Vec<i64>,
}

impl LabelGroup {
    fn read(&self, labels: &str, whole: &str) -> Result<ReadGroup, AttrError> {
        let bad = |reason: String| AttrError::BadDimLabels {
            text: whole.into(),
            reason,
        };
        let mut seen = Vec::new();
        for c in labels.chars() {
            if seen.contains(&c) {
                return Err(bad(format!("{} labels `{labels}` repeat `{c}`", self.name)));
            }
            seen.push(c);
        }
        let spatial_count = labels
            .chars()
            .filter(|&c| c != self.first && c != self.second && c != '?')
            .count();
        let mut spatial = vec![-1i64; spatial_count];
        let (mut first, mut second) = (0, 0);
        for (position, c) in labels.chars().enumerate() {
            let position = position as i64;
            if c == '?' {
                continue;
            } else if c == self.first {
                first = position;
            } else if c == self.second {
                second = position;
            } else if let Some(digit) = c.to_digit(10) {
                // Spatial labels must number the spatial dims 0..n, each once.
                let slot = spatial.get_mut(digit as usize).ok_or_else(|| {
                    bad(format!(
                        "{} spatial label `{c}` is out of range for {spatial_count} spatial dimensions",
                        self.name
                    ))
                })?;
                *slot = position;
            } else {
                return Err(bad(format!(
                    "{} labels `{labels}` may only contain `{}`, `{}`, `?` and spatial digits, found `{c}`",
                    self.name, self.first, self.second
                )));
            }
        }
        Ok(ReadGroup {
            first,
            second,
            spatial,
        })
    }
}

const INPUT_LABELS: LabelGroup = LabelGroup {
    first: 'b',
    second: 'f',
    name: "input",
};
const KERNEL_LABELS: LabelGroup = LabelGroup {
    first: 'i',
    second: 'o',
    name: "kernel",
};
const OUTPUT_LABELS: LabelGroup = LabelGroup {
    first: 'b',
    second: 'f',
    name: "output",
};

impl ConvDimensionNumbers {
    /// Reads `b01f_01io->b01f`, `bf_io->bf`, `012bf_012io->012bf` or forms with `?` for
    /// unused positions.
    pub fn parse(text: &str) -> Result<ConvDimensionNumbers, AttrError> {
        let bad = |reason: &str| AttrError::BadDimLabels {
            text: text.into(),
            reason: reason.into(),
        };
        let shape_error = "expected input, kernel and output labels as in `b01f_01io->b01f`";
        let (input, rest) = text.split_once('_').ok_or_else(|| bad(shape_error))?;
        let (kernel, output) = rest.split_once("->").ok_or_else(|| bad(shape_error))?;
        if kernel.contains('_') || output.contains('_') || output.contains("->") {
            return Err(bad(shape_error));
        }
        let input = INPUT_LABELS.read(input, text)?;
        let kernel = KERNEL_LABELS.read(kernel, text)?;
        let output = OUTPUT_LABELS.read(output, text)?;
        Ok(ConvDimensionNumbers {
            input_batch_dimension: input.first,
            input_feature_dimension: input.second,
            input_spatial_dimensions: input.spatial,
            kernel_input_feature_dimension: kernel.first,
            kernel_output_feature_dimension: kernel.second,
            kernel_spatial_dimensions: kernel.spatial,
            output_batch_dimension: output.first,
            output_feature_dimension: output.second,
            output_spatial_dimensions: output.spatial,
        })
    }

    /// How many spatial dims the convolution has.
    pub fn spatial_rank(&self) -> usize {
        self.input_spatial_dimensions.len()
    }
}

/// The largest dimension number the label printer will lay out; beyond it a label string
/// would be absurdly long, so such positions are left out rather than printed.
const MAX_LABEL_POSITION: i64 = 1 << 12;

/// Writes one group of labels the way XLA does: a string as long as the largest dimension
/// number plus one, `?` where no role names a position.
fn write_label_group(
    f: &mut fmt::Formatter<'_>,
    first: (char, i64),
    second: (char, i64),
    spatial: &[i64],
) -> fmt::Result {
    let mut named: Vec<(i64, String)> = vec![
        (first.1, first.0.to_string()),
        (second.1, second.0.to_string()),
    ];
    named.extend(spatial.iter().enumerate().map(|(i, &p)| (p, i.to_string())));
    named.retain(|(position, _)| (0..MAX_LABEL_POSITION).contains(position));
    let length = named.iter().map(|(p, _)| p + 1).max().unwrap_or(0);
    let mut labels = vec![String::from("?"); length as usize];
    // Later roles overwrite earlier ones at a shared position, as in XLA's printer.
    for (position, label) in named {
        if let Some(slot) = labels.get_mut(position as usize) {
            *slot = label;
        }
    }
    labels.iter().try_for_each(|label| f.write_str(label))
}

/// Prints `b01f_01io->b01f`.
impl fmt::Display for ConvDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_label_group(
            f,
            ('b', self.input_batch_dimension),
            ('f', self.input_feature_dimension),
            &self.input_spatial_dimensions,
        )?;
        f.write_str("_")?;
        write_label_group(
            f,
            ('i', self.kernel_input_feature_dimension),
            ('o', self.kernel_output_feature_dimension),
            &self.kernel_spatial_dimensions,
        )?;
        f.write_str("->")?;
        write_label_group(
            f,
            ('b', self.output_batch_dimension),
            ('f', self.output_feature_dimension),
            &self.output_spatial_dimensions,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_labels_read_roles_and_round_trip() {
        let dnums = ConvDimensionNumbers::parse("b01f_01io->b01f").unwrap();
        assert_eq!(
            dnums,
            ConvDimensionNumbers {
                input_batch_dimension: 0,
                input_feature_dimension: 3,
                input_spatial_dimensions: vec![1, 2],
                kernel_input_feature_dimension: 2,
                kernel_output_feature_dimension: 3,
                kernel_spatial_dimensions: vec![0, 1],
                output_batch_dimension: 0,
                output_feature_dimension: 3,
                output_spatial_dimensions: vec![1, 2],
            }
        );
        let dnums = ConvDimensionNumbers::parse("f01b_i01o->01bf").unwrap();
        assert_eq!(dnums.input_batch_dimension, 3);
        assert_eq!(dnums.output_spatial_dimensions, vec![0, 1]);
        assert_eq!(dnums.output_batch_dimension, 2);
        let dnums = ConvDimensionNumbers::parse("b102f_210io->b201f").unwrap();
        assert_eq!(dnums.input_spatial_dimensions, vec![2, 1, 3]);
        assert_eq!(dnums.kernel_spatial_dimensions, vec![2, 1, 0]);
        assert_eq!(dnums.output_spatial_dimensions, vec![2, 3, 1]);
        for text in [
            "b01f_01io->b01f",
            "bf_io->bf",
            "b0f_0io->b0f",
            "bf01_oi01->bf01",
            "b012f_012io->b012f",
            "01bf_01io->01bf",
            "?b01f_0?1io->b01?f",
            "b0123456789f_0123456789io->b0123456789f",
        ] {
            assert_eq!(ConvDimensionNumbers::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn dim_labels_errors() {
        for (text, reason) in [
            ("b01f01io->b01f", "expected input, kernel"),
            ("b01f_01io_b01f", "expected input, kernel"),
            ("b01f_01io->b01f->bf", "expected input, kernel"),
            ("b00f_01io->b01f", "repeat `0`"),
            ("b02f_01io->b01f", "spatial label `2` is out of range"),
            ("b01x_01io->b01f", "found `x`"),
            ("b01f_01bf->b01f", "found `b`"),
        ] {
            match ConvDimensionNumbers::parse(text) {
                Err(AttrError::BadDimLabels { reason: got, .. }) => {
                    assert!(got.contains(reason), "{text}: {got}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn label_printing_never_panics_on_odd_numbers() {
        let dnums = ConvDimensionNumbers {
            input_batch_dimension: -1,
            input_feature_dimension: i64::MAX,
            ..Default::default()
        };
        // Positions that cannot be laid out are left out instead of panicking, and roles
        // left at the default 0 share position 0, where the later role wins as in XLA.
        assert_eq!(dnums.to_string(), "_o->f");
    }
}
