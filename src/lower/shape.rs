//! Shapes and layouts: element-type names, dims, and the layout sub-language
//! (`D T L # * E S SC P M`, in that order, as XLA's parser demands).

use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim, Shape};
use crate::ir::shape::{
    DimLevel, DimLevelType, Layout, LayoutRuleError, SplitConfig, Tile, TileDim,
};
use crate::ir::tiling::{PhysicalLayout, TilingError};
use crate::syntax::ast::{self, LayoutArg, Span, Word};

/// A shape or layout that reads well but means nothing valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum LowerError {
    /// A word where an element type should be that names none.
    #[error("unknown element type `{name}`")]
    #[diagnostic(
        code(hlo::shape::unknown_type),
        help("element types are pred, s1-s64, u1-u64, f16, bf16, f32, f64, the f8/f6/f4 variants, c64, c128, token and opaque")
    )]
    UnknownElementType {
        /// The word.
        name: String,
        /// The word.
        #[label("not an element type")]
        span: Span,
    },
    /// A number that does not fit in a 64-bit integer.
    #[error("`{text}` does not fit in a 64-bit integer")]
    #[diagnostic(code(hlo::shape::integer_range))]
    IntegerRange {
        /// The number as written.
        text: String,
        /// The number.
        #[label("too large")]
        span: Span,
    },
    /// A dim with a negative size.
    #[error("dimension sizes cannot be negative")]
    #[diagnostic(code(hlo::shape::negative_dim))]
    NegativeDim {
        /// The size.
        #[label("negative size")]
        span: Span,
    },
    /// `token[2]` or `opaque[]{0}`: a shape that is no array, written with dims or a layout.
    #[error("`{name}[...]` cannot have dimensions or a layout")]
    #[diagnostic(code(hlo::shape::not_an_array), help("write `{name}[]`"))]
    NotAnArray {
        /// `token` or `opaque`.
        name: String,
        /// The shape.
        #[label("here")]
        span: Span,
    },
    /// A tuple, token or opaque shape where an array shape was asked for.
    #[error("expected an array shape, not a tuple, token or opaque")]
    #[diagnostic(code(hlo::shape::not_an_array_shape))]
    NotAnArrayShape {
        /// The shape.
        #[label("this shape")]
        span: Span,
    },
    /// A layout that breaks one of XLA's rules for its array.
    #[error("{message}")]
    #[diagnostic(code(hlo::layout::invalid))]
    Layout {
        /// The rule broken.
        message: String,
        /// The offending part of the layout.
        #[label("here")]
        span: Span,
        /// How to mend it, when there is an obvious way.
        #[help]
        help: Option<String>,
    },
    /// A lettered layout item that XLA does not know.
    #[error("unknown layout attribute `{name}`")]
    #[diagnostic(
        code(hlo::layout::unknown_attribute),
        help("layout attributes are D(..), T(..), L(n), #(type), *(type), E(n), S(n), SC(..), P(shape), M(n), in that order")
    )]
    UnknownLayoutAttribute {
        /// The item's letters.
        name: String,
        /// The item's letters.
        #[label("not a layout attribute")]
        span: Span,
    },
    /// Layout items out of XLA's order.
    #[error("layout attribute `{name}` must come before `{previous}`")]
    #[diagnostic(
        code(hlo::layout::attribute_order),
        help("XLA reads layout attributes only in the order D, T, L, #, *, E, S, SC, P, M, each at most once")
    )]
    AttributeOrder {
        /// The item that comes too late.
        name: String,
        /// The item before it, which should come after it.
        previous: String,
        /// The item that comes too late.
        #[label("out of order")]
        span: Span,
    },
    /// A layout item written twice.
    #[error("layout attribute `{name}` appears twice")]
    #[diagnostic(code(hlo::layout::duplicate_attribute))]
    DuplicateAttribute {
        /// The item's letters.
        name: String,
        /// The second one.
        #[label("second `{name}`")]
        span: Span,
    },
    /// A layout item whose arguments are not what it takes.
    #[error("`{name}` expects {expected}")]
    #[diagnostic(code(hlo::layout::attribute_value))]
    AttributeValue {
        /// The item's letters.
        name: String,
        /// What it takes, in words.
        expected: &'static str,
        /// The item, or the argument at fault.
        #[label("here")]
        span: Span,
    },
    /// A layout whose tiles or padding make sizes overflow, or that the tiling refuses.
    #[error("{reason}")]
    #[diagnostic(code(hlo::layout::size))]
    Size {
        /// What the tiling found wrong.
        reason: TilingError,
        /// The layout, or the shape.
        #[label("this {what}")]
        span: Span,
        /// `layout` when the span is the layout, else `shape`.
        what: &'static str,
    },
    /// Shapes enclose one another deeper than [`MAX_SHAPE_DEPTH`].
    #[error("shapes nested more than {max} deep")]
    #[diagnostic(
        code(hlo::shape::too_deep),
        help("tuples and the shapes inside layouts may enclose one another at most {max} deep")
    )]
    ShapeTooDeep {
        /// The limit.
        max: usize,
        /// The shape one level too deep.
        #[label("one level too many")]
        span: Span,
    },
    /// An array whose bytes with padding exceed [`MAX_ARRAY_BYTES`].
    #[error("the array takes {bytes} bytes with its padding, over the limit of 2^48 (256 TiB)")]
    #[diagnostic(
        code(hlo::shape::too_large),
        help("no device holds an array this large; the limit keeps all size arithmetic exact")
    )]
    TooLarge {
        /// Its bytes with padding.
        bytes: i64,
        /// The layout, or the shape.
        #[label("this {what}")]
        span: Span,
        /// `layout` when the span is the layout, else `shape`.
        what: &'static str,
    },
}

/// Shapes may enclose one another (tuples, and shapes inside layouts) this deep. Real shapes
/// nest a few levels; the limit keeps every text the printer makes of a module, which adds
/// layouts and `entry_computation_layout={(...)}` around shapes, well inside the parser's
/// bracket limit (`syntax::lexer::MAX_NESTING`), so that it reads back.
pub const MAX_SHAPE_DEPTH: usize = 64;

/// The most bytes an array written in text may take, padding included: 2^48 (256 TiB).
/// Nothing real comes near it, and it leaves a factor of 2^14 below `i64::MAX` for the
/// padding of tiles that layout assignment may give it later (a 1-element array padded to
/// a whole tile grows by at most 4096), so sizes of assigned modules cannot overflow either.
pub const MAX_ARRAY_BYTES: i64 = 1 << 48;

/// The layout letters in the only order XLA accepts and prints.
const LAYOUT_ATTRIBUTE_ORDER: [&str; 10] = ["D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"];

/// Gives a shape's syntax tree its meaning and checks it. Returns every error found.
pub fn lower_shape(shape: &ast::Shape<'_>) -> Result<Shape, Vec<LowerError>> {
    let mut errors = Vec::new();
    let lowered = ShapeLowering {
        errors: &mut errors,
        depth: 0,
    }
    .shape(shape);
    match lowered {
        Some(shape) if errors.is_empty() => Ok(shape),
        _ => Err(errors),
    }
}

struct ShapeLowering<'e> {
    errors: &'e mut Vec<LowerError>,
    /// Shapes enclosing the one being lowered.
    depth: usize,
}

/// True when the array's padded size is surely within [`MAX_ARRAY_BYTES`]: no tiles or tail
/// padding, and the element count times the widest element fits. Most shapes are so; they
/// skip building the whole tiling model just to learn that.
fn size_surely_fits(array: &ArrayShape) -> bool {
    let plain = array.layout.as_ref().is_none_or(|layout| {
        layout.tiles.is_empty()
            && layout.tail_padding_alignment <= 1
            && (0..=128).contains(&layout.element_size_in_bits)
    });
    plain
        && array
            .dims
            .iter()
            .try_fold(16i64, |bytes, dim| bytes.checked_mul(dim.extent()?.max(1)))
            .is_some_and(|bytes| bytes <= MAX_ARRAY_BYTES)
}

/// The integers of the list that opens with `open` at `bytes[start]` and closes with `close`
/// (`[2,3]`, `{1,0}`, `[]`), and the index just past it; `None` unless the list is exactly
/// that form with every number within `i64`. Short lists stay on the stack.
fn int_list(bytes: &[u8], start: usize, open: u8, close: u8) -> Option<(IntList, usize)> {
    if bytes.get(start) != Some(&open) {
        return None;
    }
    let mut list = IntList::default();
    let mut i = start + 1;
    if bytes.get(i) == Some(&close) {
        return Some((list, i + 1));
    }
    loop {
        let mut value: i64 = 0;
        let digits_start = i;
        while let Some(digit @ b'0'..=b'9') = bytes.get(i).copied() {
            value = value
                .checked_mul(10)?
                .checked_add(i64::from(digit - b'0'))?;
            i += 1;
        }
        if i == digits_start {
            return None;
        }
        list.push(value);
        match bytes.get(i) {
            Some(&b',') => i += 1,
            Some(&b) if b == close => return Some((list, i + 1)),
            _ => return None,
        }
    }
}

/// Integers collected on the stack while few, as nearly every shape's are.
#[derive(Default)]
struct IntList {
    inline: [i64; 8],
    len: usize,
    spilled: Vec<i64>,
}

impl IntList {
    fn push(&mut self, value: i64) {
        if self.len < self.inline.len() {
            self.inline[self.len] = value;
        } else {
            if self.spilled.is_empty() {
                self.spilled.extend_from_slice(&self.inline);
            }
            self.spilled.push(value);
        }
        self.len += 1;
    }
}

impl std::ops::Deref for IntList {
    type Target = [i64];

    fn deref(&self) -> &[i64] {
        if self.len <= self.inline.len() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

fn parse_i64(word: &Word<'_>) -> Result<i64, LowerError> {
    word.text
        .parse::<i64>()
        .map_err(|_| LowerError::IntegerRange {
            text: word.text.to_string(),
            span: word.span,
        })
}

impl ShapeLowering<'_> {
    fn int(&mut self, word: &Word<'_>) -> Option<i64> {
        parse_i64(word).map_err(|e| self.errors.push(e)).ok()
    }

    fn shape(&mut self, shape: &ast::Shape<'_>) -> Option<Shape> {
        if self.depth >= MAX_SHAPE_DEPTH {
            self.errors.push(LowerError::ShapeTooDeep {
                max: MAX_SHAPE_DEPTH,
                span: shape.span(),
            });
            return None;
        }
        self.depth += 1;
        let lowered = self.shape_here(shape);
        self.depth -= 1;
        lowered
    }

    fn shape_here(&mut self, shape: &ast::Shape<'_>) -> Option<Shape> {
        match shape {
            ast::Shape::Tuple { elements, .. } => {
                let elements: Vec<Option<Shape>> = elements.iter().map(|e| self.shape(e)).collect();
                elements
                    .into_iter()
                    .collect::<Option<Vec<_>>>()
                    .map(Shape::Tuple)
            }
            // A buffer holds an array; `b(token[])` or `b((f32[]))` is not a shape.
            ast::Shape::Buffer { array, .. } => match self.shape(array)? {
                Shape::Array(array) => Some(Shape::Buffer(array)),
                _ => {
                    self.errors
                        .push(LowerError::NotAnArrayShape { span: array.span() });
                    None
                }
            },
            ast::Shape::Simple(simple) => self
                .simple(simple)
                .or_else(|| self.shape_here(&simple.expand())),
            ast::Shape::Array {
                element_type,
                dims,
                layout,
                span,
            } => {
                let Some(ty) = PrimitiveType::from_name(element_type.text) else {
                    self.errors.push(LowerError::UnknownElementType {
                        name: element_type.text.to_string(),
                        span: element_type.span,
                    });
                    return None;
                };
                if !ty.is_array_type() {
                    if !dims.is_empty() || layout.is_some() {
                        self.errors.push(LowerError::NotAnArray {
                            name: ty.name().to_string(),
                            span: *span,
                        });
                        return None;
                    }
                    return Some(if ty == PrimitiveType::Token {
                        Shape::Token
                    } else {
                        Shape::Opaque
                    });
                }
                let mut lowered_dims = Vec::with_capacity(dims.len());
                for dim in dims {
                    let lowered = match (dim.kind, dim.size) {
                        (ast::DimKind::Unbounded, _) | (_, None) => Some(Dim::Unbounded),
                        (kind, Some(size)) => self.int(&size).and_then(|n| {
                            if n < 0 {
                                self.errors.push(LowerError::NegativeDim { span: dim.span });
                                None
                            } else if kind == ast::DimKind::Bounded {
                                Some(Dim::Bounded(n))
                            } else {
                                Some(Dim::Static(n))
                            }
                        }),
                    };
                    lowered_dims.push(lowered?);
                }
                let lowered_layout = match layout {
                    None => None,
                    Some(layout) => Some(self.layout(layout, lowered_dims.len())?),
                };
                let array = ArrayShape {
                    element_type: ty,
                    dims: lowered_dims,
                    layout: lowered_layout,
                };
                // The padded size must be computable and within the limit; unbounded dims
                // have no size yet. Most shapes plainly fit and skip the tiling model.
                let (size_span, what) = layout
                    .as_ref()
                    .map_or((*span, "shape"), |l| (l.span, "layout"));
                if !size_surely_fits(&array) {
                    match PhysicalLayout::new(&array) {
                        Err(reason @ TilingError::Overflow { .. }) => {
                            self.errors.push(LowerError::Size {
                                reason,
                                span: size_span,
                                what,
                            });
                            return None;
                        }
                        Ok(memory) if memory.bytes() > MAX_ARRAY_BYTES => {
                            self.errors.push(LowerError::TooLarge {
                                bytes: memory.bytes(),
                                span: size_span,
                                what,
                            });
                            return None;
                        }
                        _ => {}
                    }
                }
                Some(Shape::Array(array))
            }
        }
    }

    /// A shape the lexer read whole, lowered straight from its text. `None` when anything is
    /// amiss; the general path then lowers it again and says what.
    /// A shape the lexer read whole, `f32[2,3]{1,0}`, lowered in one pass over its text.
    /// `None` for anything this cannot take as it is (an unknown type, a number out of range,
    /// a bad layout, a size over the limit): the general path then says what is wrong.
    fn simple(&mut self, simple: &ast::SimpleShape<'_>) -> Option<Shape> {
        let bytes = simple.text.as_bytes();
        let bracket = bytes.iter().position(|&b| b == b'[')?;
        let element_type =
            PrimitiveType::from_name(&simple.text[..bracket]).filter(|ty| ty.is_array_type())?;
        let (sizes, after_dims) = int_list(bytes, bracket, b'[', b']')?;
        let dims: Vec<Dim> = sizes.iter().map(|&size| Dim::Static(size)).collect();
        let layout = match bytes.get(after_dims) {
            None => None,
            Some(_) => {
                let (minor_to_major, end) = int_list(bytes, after_dims, b'{', b'}')?;
                if end != bytes.len() {
                    return None;
                }
                let layout = Layout {
                    minor_to_major: minor_to_major.to_vec(),
                    ..Layout::default()
                };
                if !layout.check_for_rank(dims.len()).is_empty() {
                    return None;
                }
                Some(layout)
            }
        };
        let array = ArrayShape {
            element_type,
            dims,
            layout,
        };
        size_surely_fits(&array).then_some(Shape::Array(array))
    }

    fn layout(&mut self, layout: &ast::Layout<'_>, rank: usize) -> Option<Layout> {
        let errors_before = self.errors.len();
        let mut lowered = Layout {
            minor_to_major: Vec::with_capacity(layout.minor_to_major.len()),
            ..Layout::default()
        };
        for word in &layout.minor_to_major {
            lowered.minor_to_major.push(self.int(word).unwrap_or(-1));
        }
        // Spans of each tile's entries, to point at a bad one.
        let mut tile_spans: Vec<(Span, Vec<Span>)> = Vec::new();
        let mut last_order: Option<usize> = None;
        for item in &layout.items {
            let name = item.name.text;
            let Some(order) = LAYOUT_ATTRIBUTE_ORDER.iter().position(|n| *n == name) else {
                self.errors.push(LowerError::UnknownLayoutAttribute {
                    name: name.to_string(),
                    span: item.name.span,
                });
                continue;
            };
            if let Some(last) = last_order {
                if order == last {
                    self.errors.push(LowerError::DuplicateAttribute {
                        name: name.to_string(),
                        span: item.name.span,
                    });
                    continue;
                }
                if order < last {
                    self.errors.push(LowerError::AttributeOrder {
                        name: name.to_string(),
                        previous: LAYOUT_ATTRIBUTE_ORDER[last].to_string(),
                        span: item.name.span,
                    });
                    continue;
                }
            }
            last_order = Some(order);
            self.layout_item(item, &mut lowered, &mut tile_spans);
        }
        let entry_span = |position: usize| {
            layout
                .minor_to_major
                .get(position)
                .map_or(layout.span, |w| w.span)
        };
        for rule in lowered.check_for_rank(rank) {
            let (span, help) = match &rule {
                LayoutRuleError::RankMismatch { .. } => (
                    layout.span,
                    Some(format!(
                        "list each of the {rank} dimensions once, minor-most first, e.g. {}",
                        Layout::descending(rank)
                    )),
                ),
                LayoutRuleError::DimOutOfRange { position, .. }
                | LayoutRuleError::RepeatedDim { position, .. } => (
                    entry_span(*position),
                    Some("minor_to_major must be a permutation of the array's dimensions".into()),
                ),
                LayoutRuleError::BadTileSize { tile, dim, .. }
                | LayoutRuleError::CombineAtEnd { tile, dim } => (
                    tile_spans
                        .get(*tile)
                        .and_then(|(_, dims)| dims.get(*dim))
                        .copied()
                        .unwrap_or(layout.span),
                    None,
                ),
                LayoutRuleError::EmptyTile { tile } => {
                    (tile_spans.get(*tile).map_or(layout.span, |t| t.0), None)
                }
                LayoutRuleError::BadTailPadding { .. }
                | LayoutRuleError::BadElementSize { .. }
                | LayoutRuleError::BadMetadataPrefix { .. } => (layout.span, None),
            };
            // An unparsable entry was already reported as an integer error.
            if matches!(rule, LayoutRuleError::DimOutOfRange { value: -1, position, .. }
                if parse_i64(&layout.minor_to_major[position]).is_err())
            {
                continue;
            }
            self.errors.push(LowerError::Layout {
                message: rule.to_string(),
                span,
                help,
            });
        }
        (self.errors.len() == errors_before).then_some(lowered)
    }

    fn bad_value(&mut self, item: &ast::LayoutItem<'_>, expected: &'static str) {
        self.errors.push(LowerError::AttributeValue {
            name: item.name.text.to_string(),
            expected,
            span: item.span,
        });
    }

    /// The single argument of `X(arg)`, or an error saying what was expected.
    fn single_arg<'a, 's>(
        &mut self,
        item: &'a ast::LayoutItem<'s>,
        expected: &'static str,
    ) -> Option<&'a LayoutArg<'s>> {
        match item.groups.as_slice() {
            [group] if group.args.len() == 1 => Some(&group.args[0]),
            _ => {
                self.bad_value(item, expected);
                None
            }
        }
    }

    fn single_int(&mut self, item: &ast::LayoutItem<'_>) -> Option<i64> {
        match self.single_arg(item, "one integer, as in `E(4)`")? {
            LayoutArg::Int(word) => self.int(word),
            _ => {
                self.bad_value(item, "one integer, as in `E(4)`");
                None
            }
        }
    }

    fn single_type(&mut self, item: &ast::LayoutItem<'_>) -> Option<PrimitiveType> {
        const EXPECTED: &str = "one element type, as in `#(s32)`";
        match self.single_arg(item, EXPECTED)? {
            LayoutArg::Word { word, flags } if flags.is_empty() => {
                let ty = PrimitiveType::from_name(word.text);
                if ty.is_none() {
                    self.errors.push(LowerError::UnknownElementType {
                        name: word.text.to_string(),
                        span: word.span,
                    });
                }
                ty
            }
            _ => {
                self.bad_value(item, EXPECTED);
                None
            }
        }
    }

    fn layout_item(
        &mut self,
        item: &ast::LayoutItem<'_>,
        layout: &mut Layout,
        tile_spans: &mut Vec<(Span, Vec<Span>)>,
    ) {
        match item.name.text {
            "T" => {
                for group in &item.groups {
                    let mut tile = Tile::default();
                    let mut spans = Vec::new();
                    for arg in &group.args {
                        let dim = match arg {
                            LayoutArg::Int(word) => self.int(word).map(TileDim::Size),
                            LayoutArg::Star(_) => Some(TileDim::Combine),
                            _ => {
                                self.errors.push(LowerError::AttributeValue {
                                    name: "T".into(),
                                    expected: "tile sizes or `*`, as in `T(8,128)(2,1)`",
                                    span: arg.span(),
                                });
                                None
                            }
                        };
                        // A placeholder keeps positions aligned with spans after an error.
                        tile.dims.push(dim.unwrap_or(TileDim::Size(1)));
                        spans.push(arg.span());
                    }
                    layout.tiles.push(tile);
                    tile_spans.push((group.span, spans));
                }
            }
            "L" => {
                if let Some(n) = self.single_int(item) {
                    layout.tail_padding_alignment = n;
                }
            }
            "E" => {
                if let Some(n) = self.single_int(item) {
                    layout.element_size_in_bits = n;
                }
            }
            "S" => {
                if let Some(n) = self.single_int(item) {
                    layout.memory_space = n;
                }
            }
            "M" => {
                if let Some(n) = self.single_int(item) {
                    layout.dynamic_shape_metadata_prefix_bytes = n;
                }
            }
            "#" => layout.index_primitive_type = self.single_type(item),
            "*" => layout.pointer_primitive_type = self.single_type(item),
            "P" => {
                const EXPECTED: &str = "one shape, as in `P(s32[8]{0})`";
                match self.single_arg(item, EXPECTED) {
                    Some(LayoutArg::Shape(shape)) => {
                        if let Some(shape) = self.shape(shape) {
                            layout.physical_shape = Some(Box::new(shape));
                        }
                    }
                    Some(_) => self.bad_value(item, EXPECTED),
                    None => {}
                }
            }
            "SC" => {
                const EXPECTED: &str = "split configs `(dim:index,...)`, as in `SC(0:2,4)(1:3)`";
                for group in &item.groups {
                    let mut args = group.args.iter();
                    let Some(LayoutArg::Labeled { label, value }) = args.next() else {
                        self.bad_value(item, EXPECTED);
                        continue;
                    };
                    let (Some(dimension), Some(first)) = (self.int(label), self.int(value)) else {
                        continue;
                    };
                    let mut split_indices = vec![first];
                    for arg in args {
                        match arg {
                            LayoutArg::Int(word) => split_indices.extend(self.int(word)),
                            _ => self.bad_value(item, EXPECTED),
                        }
                    }
                    layout.split_configs.push(SplitConfig {
                        dimension,
                        split_indices,
                    });
                }
            }
            "D" => {
                const EXPECTED: &str = "dim level types D, C, S or H with optional + and ~";
                let [group] = item.groups.as_slice() else {
                    self.bad_value(item, EXPECTED);
                    return;
                };
                for arg in &group.args {
                    let LayoutArg::Word { word, flags } = arg else {
                        self.bad_value(item, EXPECTED);
                        continue;
                    };
                    let Some(level) = DimLevel::from_letter(word.text) else {
                        // XLA points at the letter it does not know.
                        self.errors.push(LowerError::AttributeValue {
                            name: item.name.text.to_string(),
                            expected: EXPECTED,
                            span: word.span,
                        });
                        continue;
                    };
                    layout.dim_level_types.push(DimLevelType {
                        level,
                        not_unique: flags.iter().any(|f| f.text == "+"),
                        not_ordered: flags.iter().any(|f| f.text == "~"),
                    });
                }
            }
            // Every other name was reported as unknown before this was called.
            _ => {}
        }
    }
}

/// Gives every array without a layout XLA's default, as XLA's parser does.
pub(super) fn with_default_layouts(mut shape: Shape) -> Shape {
    fn fill(shape: &mut Shape) {
        match shape {
            Shape::Array(array) | Shape::Buffer(array) if array.layout.is_none() => {
                array.layout = Some(crate::ir::Layout::descending(array.rank()));
            }
            Shape::Tuple(elements) => elements.iter_mut().for_each(fill),
            _ => {}
        }
    }
    fill(&mut shape);
    shape
}

#[cfg(test)]
mod tests {
    use super::int_list;

    fn list(text: &str) -> Option<(Vec<i64>, usize)> {
        let open = *text.as_bytes().first()?;
        let close = if open == b'[' { b']' } else { b'}' };
        int_list(text.as_bytes(), 0, open, close).map(|(list, end)| (list.to_vec(), end))
    }

    #[test]
    fn int_lists_take_only_the_plain_form() {
        assert_eq!(list("[]"), Some((vec![], 2)));
        assert_eq!(list("{}x"), Some((vec![], 2)));
        assert_eq!(list("[2,3]{1,0}"), Some((vec![2, 3], 5)));
        assert_eq!(list("{007}"), Some((vec![7], 5)));
        assert_eq!(list("[9223372036854775807]"), Some((vec![i64::MAX], 21)));
        let long: Vec<i64> = (1..=20).collect();
        let text = format!(
            "[{}]",
            long.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(list(&text), Some((long, text.len())));
        for bad in [
            "[9223372036854775808]",
            "[2,,3]",
            "[2,]",
            "[,2]",
            "[2",
            "[-2]",
            "[2 ,3]",
            "{1,0]",
            "(1)",
        ] {
            assert_eq!(list(bad), None, "{bad}");
        }
    }
}
