//! What `explain` reports about one array shape under its layout: the shape's memory map,
//! where one element lives, the figures `explain --format json` prints, and a diagnostic
//! pointing into the text it came from for input that cannot be explained. The command draws
//! its pictures from [`Explained`]; the Python package returns [`Explained::to_json`].

use miette::SourceSpan;
use serde_json::{Map, Value};

use crate::ir::tiling::StepTrace;
use crate::ir::{ArrayShape, LegacyPadding, PaddingValue, PhysicalLayout, TileDim, TilingError};
use crate::syntax::ast;

/// Names for the logical dims: `x`; `y x`; `z y x`; `p z y x` as XLA's shapes document names
/// them, and `d0 d1 ...` (the dim numbers) from rank 5 on, where the document has no letters.
pub fn dim_names(rank: usize) -> Vec<String> {
    const LETTERS: [&str; 4] = ["p", "z", "y", "x"];
    if rank <= LETTERS.len() {
        LETTERS[LETTERS.len() - rank..]
            .iter()
            .map(|letter| letter.to_string())
            .collect()
    } else {
        (0..rank).map(|dim| format!("d{dim}")).collect()
    }
}

/// Input that cannot be explained; each points into the text it came from.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ExplainError {
    /// The shape does not parse or is not a valid array shape.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Shape(crate::Error),
    /// A dim is unbounded, so the array has no size to lay out.
    #[error("dimension {dim} ({name}) is unbounded (`?`): it has no size to lay out")]
    #[diagnostic(
        code(hlo::explain::unbounded_dim),
        help("give the dim a static size, or a bound such as `<=8`")
    )]
    UnboundedDim {
        /// The dim's number.
        dim: usize,
        /// The dim's letter ([`dim_names`]).
        name: String,
        /// The dim in the shape's text.
        #[label("unbounded")]
        span: SourceSpan,
    },
    /// The layout does not fit the array.
    #[error("{reason}")]
    #[diagnostic(code(hlo::explain::layout))]
    Layout {
        /// What the tiling found wrong.
        reason: TilingError,
        /// The whole shape.
        #[label("this shape")]
        span: SourceSpan,
    },
    /// The index has a coordinate count other than the array's rank.
    #[error("--index has {given} but the array has rank {rank}")]
    #[diagnostic(code(hlo::explain::index_rank), help("{expected}"))]
    IndexRank {
        /// How many coordinates were given, in words: `3 coordinates`.
        given: String,
        /// The array's rank.
        rank: usize,
        /// What to give instead, for the help line.
        expected: String,
        /// The whole index.
        #[label("{given}")]
        span: SourceSpan,
    },
    /// A coordinate of the index is outside its dim.
    #[error("coordinate {value} is out of range for dimension {dim} ({name}) of size {size}")]
    #[diagnostic(code(hlo::explain::index_range), help("{expected}"))]
    IndexOutOfRange {
        /// The dim's number.
        dim: usize,
        /// The dim's letter ([`dim_names`]).
        name: String,
        /// The coordinate given.
        value: i64,
        /// The dim's size.
        size: i64,
        /// The range the coordinate must be in, for the help line.
        expected: String,
        /// The coordinate in the index's text.
        #[label("out of range")]
        span: SourceSpan,
    },
    /// The padded sizes number other than the array's rank.
    #[error("--padded-dimensions has {given} but the array has rank {rank}")]
    #[diagnostic(
        code(hlo::explain::padding_rank),
        help("give one padded size per logical dim")
    )]
    PaddingRank {
        /// How many sizes were given, in words.
        given: String,
        /// The array's rank.
        rank: usize,
        /// The whole list of padded sizes.
        #[label("{given}")]
        span: SourceSpan,
    },
    /// A padded size is smaller than its dim.
    #[error("padded size {padded} is smaller than dimension {dim} ({name}) of size {size}")]
    #[diagnostic(
        code(hlo::explain::padding_too_small),
        help("each padded size must be at least its dim's size")
    )]
    PaddingTooSmall {
        /// The dim's number.
        dim: usize,
        /// The dim's letter ([`dim_names`]).
        name: String,
        /// The padded size given.
        padded: i64,
        /// The dim's size.
        size: i64,
        /// The padded size in its list.
        #[label("too small")]
        span: SourceSpan,
    },
    /// The padded sizes make the array too large to address.
    #[error("{reason}")]
    #[diagnostic(code(hlo::explain::padding_size))]
    PaddingOverflow {
        /// What the tiling found wrong.
        reason: TilingError,
        /// The whole list of padded sizes.
        #[label("these sizes")]
        span: SourceSpan,
    },
    /// A failure of the library on input that was already checked: a bug, not bad input.
    #[error("internal: {message}")]
    #[diagnostic(code(hlo::explain::internal), help("this is a bug in hlo-layout"))]
    Internal {
        /// What failed, in the library's words.
        message: String,
    },
}

impl ExplainError {
    /// An [`ExplainError::Internal`] saying what failed.
    pub fn internal(error: impl std::fmt::Display) -> ExplainError {
        ExplainError::Internal {
            message: error.to_string(),
        }
    }
}

/// Which input a [`Failure`] points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The array shape.
    Shape,
    /// The element's index, written as `2,3`.
    Index,
    /// The legacy padded sizes, written as `8,128`.
    PaddedDimensions,
}

/// Why a shape cannot be explained: the errors and the text their spans point into (the
/// shape, or the index or padded sizes written as `2,3`).
#[derive(Debug)]
pub struct Failure {
    /// Which input the spans point into.
    pub source: Source,
    /// That input's text.
    pub text: String,
    /// What is wrong with it, in text order.
    pub errors: Vec<ExplainError>,
}

/// An array shape with its memory map, and the element asked about.
#[derive(Clone, Debug)]
pub struct Explained {
    /// The shape as parsed.
    pub shape: ArrayShape,
    /// The legacy padding, applied before the tiles, when given.
    pub padding: Option<LegacyPadding>,
    /// Where every element lives.
    pub memory: PhysicalLayout,
    /// The element asked about, when an index was given.
    pub element: Option<Element>,
}

/// Where one element lives: its index, its path through each tile and its linear index.
#[derive(Clone, Debug)]
pub struct Element {
    /// Its logical index, one coordinate per dim.
    pub index: Vec<i64>,
    /// Its way through each tile in turn, outermost first.
    pub traces: Vec<StepTrace>,
    /// Its position in memory, in elements from the start of the array.
    pub linear: i64,
}

/// Explains the array shape `shape` (with the legacy `padded_dimensions` first, when given),
/// and where the element at `index` lives.
pub fn explain(
    shape: &str,
    index: Option<&[i64]>,
    padded_dimensions: Option<&[i64]>,
) -> Result<Explained, Failure> {
    let parsed = crate::parse_array_shape(shape).map_err(|errors| Failure {
        source: Source::Shape,
        text: shape.to_string(),
        errors: errors.into_iter().map(ExplainError::Shape).collect(),
    })?;
    let padding = padded_dimensions.map(|padded_dimensions| LegacyPadding {
        padded_dimensions: padded_dimensions.to_vec(),
        padding_value: PaddingValue::Zero,
    });
    let built = match &padding {
        None => PhysicalLayout::new(&parsed),
        Some(padding) => PhysicalLayout::with_legacy_padding(&parsed, padding),
    };
    let memory =
        built.map_err(|reason| layout_failure(shape, padded_dimensions, parsed.rank(), reason))?;
    let element = match index {
        Some(index) => {
            check_index(index, memory.logical_dims())?;
            let internal = |error: crate::ir::tiling::IndexError| Failure {
                source: Source::Index,
                text: list_source(index).0,
                errors: vec![ExplainError::internal(error)],
            };
            Some(Element {
                index: index.to_vec(),
                traces: memory.trace(index).map_err(internal)?,
                linear: memory.linear_index(index).map_err(internal)?,
            })
        }
        None => None,
    };
    Ok(Explained {
        shape: parsed,
        padding,
        memory,
        element,
    })
}

impl Explained {
    /// The figures of `explain --format json`, without the document's `version`, `command`
    /// and `ok`: `tiles` writes `*` as `"*"`, `linear_index` is null without an index.
    pub fn to_json(&self) -> Map<String, Value> {
        let memory = &self.memory;
        let tiles: Vec<Vec<Value>> = memory
            .layout()
            .tiles
            .iter()
            .map(|tile| {
                tile.dims
                    .iter()
                    .map(|dim| match dim {
                        TileDim::Size(size) => Value::from(*size),
                        TileDim::Combine => Value::from("*"),
                    })
                    .collect()
            })
            .collect();
        let json = serde_json::json!({
            "shape": self.shape.to_string(),
            "element_type": memory.element_type().to_string(),
            "dims": memory.logical_dims(),
            "minor_to_major": memory.layout().minor_to_major,
            "tiles": tiles,
            "physical_dims": memory.physical_dims(),
            "tiled_dims": memory.tiled_dims(),
            "padded_elements": memory.padded_elements(),
            "bytes": memory.bytes(),
            "unpadded_bytes": memory.unpadded_bytes(),
            "padding_fraction": memory.padding_fraction(),
            "linear_index": self.element.as_ref().map(|element| element.linear),
        });
        match json {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}

/// `2,3` and the span of each entry, so that a diagnostic can point at one coordinate.
pub fn list_source(values: &[i64]) -> (String, Vec<SourceSpan>) {
    let mut text = String::new();
    let mut spans = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let start = text.len();
        text.push_str(&value.to_string());
        spans.push((start, text.len() - start).into());
    }
    (text, spans)
}

/// `1 entry`, `2 entries`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn whole(text: &str) -> SourceSpan {
    (0, text.len()).into()
}

fn check_index(index: &[i64], dims: &[i64]) -> Result<(), Failure> {
    let names = dim_names(dims.len());
    let (source, spans) = list_source(index);
    let error = if index.len() != dims.len() {
        let expected = if dims.is_empty() {
            "a scalar has no coordinates: its one element is at linear index 0".to_string()
        } else {
            format!("give one coordinate per dim: {}", names.join(","))
        };
        Some(ExplainError::IndexRank {
            given: count(index.len(), "coordinate", "coordinates"),
            rank: dims.len(),
            expected,
            span: whole(&source),
        })
    } else {
        index
            .iter()
            .zip(dims)
            .enumerate()
            .find(|(_, (value, size))| !(0..**size).contains(*value))
            .map(|(dim, (&value, &size))| ExplainError::IndexOutOfRange {
                dim,
                name: names[dim].clone(),
                value,
                size,
                expected: if size == 0 {
                    "the dim has size 0, so the array has no elements".to_string()
                } else {
                    format!("coordinates of this dim run from 0 to {}", size - 1)
                },
                span: spans[dim],
            })
    };
    match error {
        None => Ok(()),
        Some(error) => Err(Failure {
            source: Source::Index,
            text: source,
            errors: vec![error],
        }),
    }
}

/// Points a [`TilingError`] at the text it comes from: a dim of the shape or an entry of the
/// padded sizes.
fn layout_failure(
    shape: &str,
    padded_dimensions: Option<&[i64]>,
    rank: usize,
    reason: TilingError,
) -> Failure {
    let names = dim_names(rank);
    let padded = padded_dimensions.unwrap_or_default();
    let (padding_source, padding_spans) = list_source(padded);
    let padding_error = match reason {
        TilingError::PaddingRank { given, rank } => Some(ExplainError::PaddingRank {
            given: count(given, "entry", "entries"),
            rank,
            span: whole(&padding_source),
        }),
        TilingError::PaddingTooSmall { dim, padded, size } => Some(ExplainError::PaddingTooSmall {
            dim,
            name: names.get(dim).cloned().unwrap_or_default(),
            padded,
            size,
            span: padding_spans
                .get(dim)
                .copied()
                .unwrap_or_else(|| whole(&padding_source)),
        }),
        // Without padding the shape's own size was checked when it was parsed, so an overflow
        // here comes from the padded sizes.
        TilingError::Overflow { .. } if !padded.is_empty() => Some(ExplainError::PaddingOverflow {
            reason: reason.clone(),
            span: whole(&padding_source),
        }),
        _ => None,
    };
    if let Some(error) = padding_error {
        return Failure {
            source: Source::PaddedDimensions,
            text: padding_source,
            errors: vec![error],
        };
    }
    let error = match reason {
        TilingError::UnboundedDim { dim } => ExplainError::UnboundedDim {
            dim,
            name: names.get(dim).cloned().unwrap_or_default(),
            span: dim_span(shape, dim).unwrap_or_else(|| whole(shape)),
        },
        reason => ExplainError::Layout {
            reason,
            span: whole(shape),
        },
    };
    Failure {
        source: Source::Shape,
        text: shape.to_string(),
        errors: vec![error],
    }
}

/// Where dim `dim` of the shape is written in `text`.
fn dim_span(text: &str, dim: usize) -> Option<SourceSpan> {
    match crate::syntax::parse_shape(text).ok()? {
        ast::Shape::Array { dims, .. } => dims.get(dim).map(|d| d.span.into()),
        ast::Shape::Simple(simple) => simple.dims().nth(dim).map(|d| d.span.into()),
        ast::Shape::Tuple { .. } | ast::Shape::Buffer { .. } => None,
    }
}
