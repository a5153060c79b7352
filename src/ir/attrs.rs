//! Typed values of the instruction attributes that shape inference needs (docs/hlo-text.md §5):
//! windows, padding, slices, convolution dim labels and the dot, gather and scatter dimension
//! numbers. Each parser reads the text the lexer gives for the value and each `Display`
//! prints exactly XLA's form, so a value read from XLA's output prints back unchanged.
//!
//! Errors carry no spans: the caller knows where the text came from and adds them.

use std::fmt;
use std::num::IntErrorKind;

/// Why an attribute value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttrError {
    /// Text where an integer should be that is not one.
    #[error("`{text}` is not an integer")]
    NotAnInteger {
        /// The text.
        text: String,
    },
    /// An integer outside `i64`.
    #[error("`{text}` does not fit in a 64-bit signed integer")]
    IntegerOverflow {
        /// The integer as written.
        text: String,
    },
    /// A window field XLA does not know.
    #[error("unknown window field `{field}`; expected size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal")]
    UnknownWindowField {
        /// The field's name.
        field: String,
    },
    /// A window field written twice.
    #[error("window field `{field}` is given twice")]
    DuplicateWindowField {
        /// The field's name.
        field: String,
    },
    /// A window without `size`, which fixes its rank.
    #[error("a window needs a `size` field")]
    MissingWindowSize,
    /// A window field with another number of dims than `size`.
    #[error("window field `{field}` has {found} dimensions but `size` has {expected}")]
    WindowRankMismatch {
        /// The field's name.
        field: String,
        /// The dims `size` has.
        expected: usize,
        /// The dims the field has.
        found: usize,
    },
    /// A window's `pad` that is not `low_high` per dim.
    #[error("window padding `{text}` must be low_high for every dimension, as in `0_1x1_0`")]
    BadWindowPadding {
        /// The padding as written.
        text: String,
    },
    /// A `padding` that is not `low_high` or `low_high_interior` per dim.
    #[error("padding `{text}` must be low_high or low_high_interior for every dimension, as in `1_1x0_0_1`")]
    BadPadding {
        /// The padding as written.
        text: String,
    },
    /// A `slice` that is not a list of `[start:limit]` or `[start:limit:stride]` ranges.
    #[error("slice `{text}` must be a list of [start:limit] or [start:limit:stride] ranges, as in `{{[0:2], [1:3]}}`")]
    BadSlice {
        /// The slice as written.
        text: String,
    },
    /// Convolution dim labels that XLA cannot read.
    #[error("dim labels `{text}`: {reason}")]
    BadDimLabels {
        /// The labels as written.
        text: String,
        /// What is wrong with them.
        reason: String,
    },
}

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
fn write_int_list(f: &mut fmt::Formatter<'_>, name: &str, values: &[i64]) -> fmt::Result {
    write!(f, "{name}={{")?;
    write_ints(f, values, ",")?;
    f.write_str("}")
}

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

/// `lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims`, `rhs_contracting_dims`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// The left operand's batch dims, paired in order with `rhs_batch`.
    pub lhs_batch: Vec<i64>,
    /// The left operand's contracting dims, paired in order with `rhs_contracting`.
    pub lhs_contracting: Vec<i64>,
    /// The right operand's batch dims.
    pub rhs_batch: Vec<i64>,
    /// The right operand's contracting dims.
    pub rhs_contracting: Vec<i64>,
}

/// Prints the attributes as XLA does: batch dims only when non-empty, contracting dims
/// always, e.g. `lhs_contracting_dims={1}, rhs_contracting_dims={0}`.
impl fmt::Display for DotDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.lhs_batch.is_empty() {
            write_int_list(f, "lhs_batch_dims", &self.lhs_batch)?;
            f.write_str(", ")?;
        }
        write_int_list(f, "lhs_contracting_dims", &self.lhs_contracting)?;
        if !self.rhs_batch.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "rhs_batch_dims", &self.rhs_batch)?;
        }
        f.write_str(", ")?;
        write_int_list(f, "rhs_contracting_dims", &self.rhs_contracting)
    }
}

/// The dimension numbers of `gather`; `slice_sizes` is a separate attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// The output dims that index within each gathered slice.
    pub offset_dims: Vec<i64>,
    /// The operand dims of slice size 1 that the output leaves out.
    pub collapsed_slice_dims: Vec<i64>,
    /// For each entry of an index vector, the operand dim it starts the slice in.
    pub start_index_map: Vec<i64>,
    /// The operand dims that are batch dims.
    pub operand_batching_dims: Vec<i64>,
    /// The start indices' batch dims, paired in order with `operand_batching_dims`.
    pub start_indices_batching_dims: Vec<i64>,
    /// The dim of the start indices that holds each index vector.
    pub index_vector_dim: i64,
}

/// Prints the attributes in XLA's order; the batching dims only when non-empty.
impl fmt::Display for GatherDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_int_list(f, "offset_dims", &self.offset_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "collapsed_slice_dims", &self.collapsed_slice_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "start_index_map", &self.start_index_map)?;
        if !self.operand_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "operand_batching_dims", &self.operand_batching_dims)?;
        }
        if !self.start_indices_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(
                f,
                "start_indices_batching_dims",
                &self.start_indices_batching_dims,
            )?;
        }
        write!(f, ", index_vector_dim={}", self.index_vector_dim)
    }
}

/// The dimension numbers of `scatter`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// The update dims that index within each window written.
    pub update_window_dims: Vec<i64>,
    /// The operand dims of window size 1 that the updates leave out.
    pub inserted_window_dims: Vec<i64>,
    /// For each entry of an index vector, the operand dim it starts the window in.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// The operand dims that are batch dims.
    pub input_batching_dims: Vec<i64>,
    /// The scatter indices' batch dims, paired in order with `input_batching_dims`.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// The dim of the scatter indices that holds each index vector.
    pub index_vector_dim: i64,
}

/// Prints the attributes in XLA's order; the batching dims only when non-empty.
impl fmt::Display for ScatterDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_int_list(f, "update_window_dims", &self.update_window_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "inserted_window_dims", &self.inserted_window_dims)?;
        f.write_str(", ")?;
        write_int_list(
            f,
            "scatter_dims_to_operand_dims",
            &self.scatter_dims_to_operand_dims,
        )?;
        if !self.input_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "input_batching_dims", &self.input_batching_dims)?;
        }
        if !self.scatter_indices_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(
                f,
                "scatter_indices_batching_dims",
                &self.scatter_indices_batching_dims,
            )?;
        }
        write!(f, ", index_vector_dim={}", self.index_vector_dim)
    }
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

    #[test]
    fn dimension_number_attributes_print_as_xla() {
        let dot = DotDimensionNumbers {
            lhs_batch: vec![0],
            lhs_contracting: vec![2],
            rhs_batch: vec![0],
            rhs_contracting: vec![1],
        };
        assert_eq!(
            dot.to_string(),
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"
        );
        let outer = DotDimensionNumbers::default();
        assert_eq!(
            outer.to_string(),
            "lhs_contracting_dims={}, rhs_contracting_dims={}"
        );
        let gather = GatherDimensionNumbers {
            offset_dims: vec![],
            collapsed_slice_dims: vec![1],
            start_index_map: vec![1],
            operand_batching_dims: vec![0],
            start_indices_batching_dims: vec![0],
            index_vector_dim: 2,
        };
        assert_eq!(
            gather.to_string(),
            "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2"
        );
        let scatter = ScatterDimensionNumbers {
            update_window_dims: vec![1],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        };
        assert_eq!(
            scatter.to_string(),
            "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"
        );
    }
}
