//! Shapes and their layouts, as XLA prints them: arrays (static, bounded-dynamic `<=N` and
//! unbounded `?` dims), tuples, token and opaque, and layouts
//! `{minor_to_major:T(..)(..)L(n)#(ty)*(ty)E(n)S(n)SC(..)P(shape)M(n)}`. The two share one
//! file because each contains the other: an array's layout, and a layout's physical shape.
//!
//! A [`Layout`] is plain data; [`Layout::check_for_rank`] states which layouts are valid for
//! an array of a given rank, and `ir::tiling` gives a valid layout its meaning in memory.
//! Their text is written by `ir::shape_text`, which their `Display` impls call.

use std::borrow::Cow;

use super::primitive::PrimitiveType;

/// One array dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A static size, printed `N`.
    Static(i64),
    /// A dynamic size with an upper bound, printed `<=N`.
    Bounded(i64),
    /// A dynamic size with no bound, printed `?`.
    Unbounded,
}

impl Dim {
    /// The size memory must be reserved for: the static size or the bound. `None` when
    /// unbounded, since no layout arithmetic is possible then.
    pub fn extent(self) -> Option<i64> {
        match self {
            Dim::Static(n) | Dim::Bounded(n) => Some(n),
            Dim::Unbounded => None,
        }
    }

    /// Whether the size is dynamic, bounded or not.
    pub fn is_dynamic(self) -> bool {
        !matches!(self, Dim::Static(_))
    }
}

/// An array shape: element type, dims, and the layout if the text gave one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    /// The type of every element.
    pub element_type: PrimitiveType,
    /// The dims, in logical order.
    pub dims: Vec<Dim>,
    /// `None` when the text had no layout; XLA would give such an array the descending
    /// default, see [`ArrayShape::layout_or_default`].
    pub layout: Option<Layout>,
}

/// The shape of an instruction's result: an array, a tuple of shapes, or a value without
/// elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// An array, `f32[2,3]{1,0}`.
    Array(ArrayShape),
    /// A tuple of shapes, `(f32[2], s32[])`, which may nest.
    Tuple(Vec<Shape>),
    /// `token[]`, which orders side effects.
    Token,
    /// `opaque[]`, which only a backend understands.
    Opaque,
    /// `b(f32[2]{0})`: a buffer holding an array. Like XLA, nothing treats it as an array
    /// (it is not among [`Shape::leaves`]); layout assignment leaves it as written.
    Buffer(ArrayShape),
}

/// A dimension number outside `-rank..rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dimension {dim} is out of range for a rank-{rank} array")]
pub struct DimOutOfRange {
    /// The dimension number given.
    pub dim: i64,
    /// The array's rank.
    pub rank: usize,
}

/// Turns a dimension number that may count from the end (`-1` is the last dim) into an
/// index, as XLA's shape utilities accept.
pub fn resolve_dim(dim: i64, rank: usize) -> Result<usize, DimOutOfRange> {
    let rank_i = rank as i64;
    let resolved = if dim < 0 { dim + rank_i } else { dim };
    if (0..rank_i).contains(&resolved) {
        Ok(resolved as usize)
    } else {
        Err(DimOutOfRange { dim, rank })
    }
}

impl ArrayShape {
    /// An array of static dims `dims` without a layout.
    pub fn new(element_type: PrimitiveType, dims: &[i64]) -> ArrayShape {
        ArrayShape {
            element_type,
            dims: dims.iter().map(|&d| Dim::Static(d)).collect(),
            layout: None,
        }
    }

    /// The same array with `layout` written.
    pub fn with_layout(mut self, layout: Layout) -> ArrayShape {
        self.layout = Some(layout);
        self
    }

    /// The number of dims.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The dim at `dim`, which may be negative (counted from the end).
    pub fn dim(&self, dim: i64) -> Result<Dim, DimOutOfRange> {
        Ok(self.dims[resolve_dim(dim, self.rank())?])
    }

    /// The static size or bound of `dim` (negative counts from the end); `Ok(None)` when
    /// unbounded.
    pub fn dim_extent(&self, dim: i64) -> Result<Option<i64>, DimOutOfRange> {
        Ok(self.dim(dim)?.extent())
    }

    /// Whether `dim` (negative counts from the end) is dynamic, bounded or not.
    pub fn is_dynamic_dim(&self, dim: i64) -> Result<bool, DimOutOfRange> {
        Ok(self.dim(dim)?.is_dynamic())
    }

    /// Static sizes or bounds of every dim; `None` if any dim is unbounded.
    pub fn extents(&self) -> Option<Vec<i64>> {
        self.dims.iter().map(|d| d.extent()).collect()
    }

    /// The logical element count, `None` on an unbounded dim or i64 overflow.
    pub fn element_count(&self) -> Option<i64> {
        self.dims
            .iter()
            .try_fold(1i64, |acc, d| acc.checked_mul(d.extent()?))
    }

    /// The layout as written, or XLA's descending default when the text gave none. Borrowed
    /// when written: passes ask for it once per operand, and a layout owns several vectors.
    pub fn layout_or_default(&self) -> Cow<'_, Layout> {
        match &self.layout {
            Some(layout) => Cow::Borrowed(layout),
            None => Cow::Owned(Layout::descending(self.rank())),
        }
    }

    /// Position of logical `dim` in physical order counted from the minor end (0 = minor-most).
    pub fn minor_position(&self, dim: i64) -> Result<Option<usize>, DimOutOfRange> {
        let dim = resolve_dim(dim, self.rank())? as i64;
        Ok(self
            .layout_or_default()
            .minor_to_major
            .iter()
            .position(|&d| d == dim))
    }
}

impl Shape {
    /// The array inside, if this is an array.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(array) => Some(array),
            _ => None,
        }
    }

    /// The element at a tuple index path (`{}` is the shape itself); `None` if the path
    /// leaves the tuple structure.
    pub fn subshape(&self, path: &[i64]) -> Option<&Shape> {
        let mut shape = self;
        for &index in path {
            match shape {
                Shape::Tuple(elements) => shape = elements.get(usize::try_from(index).ok()?)?,
                _ => return None,
            }
        }
        Some(shape)
    }

    /// Every array leaf, depth first, in tuple order. Allocates only for tuples.
    pub fn leaves(&self) -> Leaves<'_> {
        Leaves {
            next: Some(self),
            open_tuples: Vec::new(),
        }
    }
}

/// The iterator of [`Shape::leaves`].
pub struct Leaves<'a> {
    /// The shape to visit next, before the rest of the open tuples.
    next: Option<&'a Shape>,
    /// The elements still to visit of each tuple being walked, innermost last.
    open_tuples: Vec<std::slice::Iter<'a, Shape>>,
}

impl<'a> Iterator for Leaves<'a> {
    type Item = &'a ArrayShape;

    fn next(&mut self) -> Option<&'a ArrayShape> {
        loop {
            let shape = match self.next.take() {
                Some(shape) => shape,
                None => {
                    let innermost = self.open_tuples.last_mut()?;
                    match innermost.next() {
                        Some(shape) => shape,
                        None => {
                            self.open_tuples.pop();
                            continue;
                        }
                    }
                }
            };
            match shape {
                Shape::Array(array) => return Some(array),
                Shape::Tuple(elements) => self.open_tuples.push(elements.iter()),
                Shape::Token | Shape::Opaque | Shape::Buffer(_) => {}
            }
        }
    }
}

/// One entry of a tile: a size, or the combine marker `*` that merges a dim into the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileDim {
    /// A tile size.
    Size(i64),
    /// `*`: this dim merges into the next one before tiling.
    Combine,
}

/// A tile `(a,b,...)`: its entries line up with the minor-most physical dims, major first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tile {
    /// The entries, major first.
    pub dims: Vec<TileDim>,
}

impl Tile {
    /// A tile of the sizes given, without `*`.
    pub fn new(sizes: &[i64]) -> Tile {
        Tile {
            dims: sizes.iter().map(|&s| TileDim::Size(s)).collect(),
        }
    }
}

/// A sparse dim-level type from `D(...)`: a level letter plus the "not unique" (`+`) and
/// "not ordered" (`~`) flags. Current XLA parses and drops these; we keep them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DimLevelType {
    /// The level's storage format.
    pub level: DimLevel,
    /// `+`: the level may hold one coordinate more than once.
    pub not_unique: bool,
    /// `~`: the level's coordinates need not be in order.
    pub not_ordered: bool,
}

/// How a sparse array stores one dim's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimLevel {
    /// `D`: every coordinate is stored.
    Dense,
    /// `C`: only the coordinates with entries are stored.
    Compressed,
    /// `S`: one coordinate per entry of the level above.
    Singleton,
    /// `H`: compressed, with room between the segments.
    LooseCompressed,
}

impl DimLevel {
    /// The letter HLO text writes for the level.
    pub fn letter(self) -> char {
        match self {
            DimLevel::Dense => 'D',
            DimLevel::Compressed => 'C',
            DimLevel::Singleton => 'S',
            DimLevel::LooseCompressed => 'H',
        }
    }

    /// The level a letter names; `None` for anything else.
    pub fn from_letter(letter: &str) -> Option<DimLevel> {
        Some(match letter {
            "D" => DimLevel::Dense,
            "C" => DimLevel::Compressed,
            "S" => DimLevel::Singleton,
            "H" => DimLevel::LooseCompressed,
            _ => return None,
        })
    }
}

/// A split config `(dim:i,j,...)` of `SC(...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SplitConfig {
    /// The dim that is split.
    pub dimension: i64,
    /// Where it is split, in increasing order.
    pub split_indices: Vec<i64>,
}

/// A layout with every attribute XLA prints. Defaults (`L(1)`, `E(0)`, `S(0)`, `M(0)`) are
/// the values that print as nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Logical dims from the fastest-varying to the slowest.
    pub minor_to_major: Vec<i64>,
    /// `D(...)`, printed first when present, as older XLA did.
    pub dim_level_types: Vec<DimLevelType>,
    /// `T(...)(...)`, applied in order.
    pub tiles: Vec<Tile>,
    /// `L(n)`: the element count is rounded up to a multiple of n.
    pub tail_padding_alignment: i64,
    /// `#(type)`.
    pub index_primitive_type: Option<PrimitiveType>,
    /// `*(type)`.
    pub pointer_primitive_type: Option<PrimitiveType>,
    /// `E(n)`: bits per element; 0 means the type's own byte width.
    pub element_size_in_bits: i64,
    /// `S(n)`.
    pub memory_space: i64,
    /// `SC(...)`.
    pub split_configs: Vec<SplitConfig>,
    /// `P(shape)`.
    pub physical_shape: Option<Box<Shape>>,
    /// `M(n)`.
    pub dynamic_shape_metadata_prefix_bytes: i64,
}

impl Default for Layout {
    fn default() -> Layout {
        Layout {
            minor_to_major: Vec::new(),
            dim_level_types: Vec::new(),
            tiles: Vec::new(),
            tail_padding_alignment: 1,
            index_primitive_type: None,
            pointer_primitive_type: None,
            element_size_in_bits: 0,
            memory_space: 0,
            split_configs: Vec::new(),
            physical_shape: None,
            dynamic_shape_metadata_prefix_bytes: 0,
        }
    }
}

/// Why a layout does not fit an array; positions index into the layout's own lists so that
/// a caller holding spans can point at the offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutRuleError {
    /// `minor_to_major` lists another number of dims than the array has.
    #[error("minor_to_major has length {layout_rank} but the array has rank {shape_rank}")]
    RankMismatch {
        /// How many dims `minor_to_major` lists.
        layout_rank: usize,
        /// The array's rank.
        shape_rank: usize,
    },
    /// A `minor_to_major` entry that is no dim of the array.
    #[error("minor_to_major entry {value} is not a dimension of a rank-{rank} array")]
    DimOutOfRange {
        /// The entry's position in `minor_to_major`.
        position: usize,
        /// The entry.
        value: i64,
        /// The array's rank.
        rank: usize,
    },
    /// A dim `minor_to_major` lists twice.
    #[error("minor_to_major lists dimension {value} twice")]
    RepeatedDim {
        /// The second entry's position in `minor_to_major`.
        position: usize,
        /// The dim.
        value: i64,
    },
    /// A tile size that is neither positive nor `*`.
    #[error("tile sizes must be positive or `*`, found {value}")]
    BadTileSize {
        /// Which tile, counting from 0.
        tile: usize,
        /// Which entry of the tile.
        dim: usize,
        /// The size.
        value: i64,
    },
    /// A tile whose last entry is `*`.
    #[error("a tile cannot end with the combine marker `*`: there is no next dim to merge into")]
    CombineAtEnd {
        /// Which tile, counting from 0.
        tile: usize,
        /// Which entry of the tile.
        dim: usize,
    },
    /// A tile without entries.
    #[error("an empty tile `()` has no meaning")]
    EmptyTile {
        /// Which tile, counting from 0.
        tile: usize,
    },
    /// `L(n)` with `n` below 1.
    #[error("L(n) needs n >= 1, found {value}")]
    BadTailPadding {
        /// The `n`.
        value: i64,
    },
    /// `E(n)` with a negative `n`.
    #[error("E(n) needs n >= 0, found {value}")]
    BadElementSize {
        /// The `n`.
        value: i64,
    },
    /// `M(n)` with a negative `n`.
    #[error("M(n) needs n >= 0, found {value}")]
    BadMetadataPrefix {
        /// The `n`.
        value: i64,
    },
}

impl Layout {
    /// The default layout of XLA: descending, `{rank-1,...,1,0}` (row-major).
    pub fn descending(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            ..Layout::default()
        }
    }

    /// A layout with only a minor_to_major.
    pub fn with_minor_to_major(minor_to_major: Vec<i64>) -> Layout {
        Layout {
            minor_to_major,
            ..Layout::default()
        }
    }

    /// The same order with `dim` moved minor-most and the other dims in their order; the
    /// rest of the layout (tiles...) is kept. XLA's `LayoutUtil::MoveDimToMajor`, the other
    /// way round. A `dim` the layout does not hold is added.
    ///
    /// ```
    /// use hlo_layout::ir::Layout;
    /// let layout = Layout::descending(3).move_dim_to_minor(1);
    /// assert_eq!(layout.minor_to_major, [1, 2, 0]);
    /// ```
    pub fn move_dim_to_minor(mut self, dim: i64) -> Layout {
        self.minor_to_major.retain(|&d| d != dim);
        self.minor_to_major.insert(0, dim);
        self
    }

    /// Adds tiles, builder style.
    pub fn tiled(mut self, tiles: Vec<Tile>) -> Layout {
        self.tiles = tiles;
        self
    }

    /// True when the layout carries nothing but minor_to_major (so a scalar prints bare).
    pub fn has_attributes(&self) -> bool {
        !self.dim_level_types.is_empty()
            || !self.tiles.is_empty()
            || self.tail_padding_alignment != 1
            || self.index_primitive_type.is_some()
            || self.pointer_primitive_type.is_some()
            || self.element_size_in_bits != 0
            || self.memory_space != 0
            || !self.split_configs.is_empty()
            || self.physical_shape.is_some()
            || self.dynamic_shape_metadata_prefix_bytes != 0
    }

    /// Layout equality as XLA's layout assignment sees it: minor_to_major only.
    pub fn minor_to_major_equal(&self, other: &Layout) -> bool {
        self.minor_to_major == other.minor_to_major
    }

    /// Checks every rule a layout must satisfy on an array of `rank` dims; all violations
    /// are returned, not just the first.
    pub fn check_for_rank(&self, rank: usize) -> Vec<LayoutRuleError> {
        let mut errors = Vec::new();
        if self.minor_to_major.len() != rank {
            errors.push(LayoutRuleError::RankMismatch {
                layout_rank: self.minor_to_major.len(),
                shape_rank: rank,
            });
        }
        // A bit set on the stack for the usual ranks; a heap vector only past 64 dims.
        let mut small_seen = 0u64;
        let mut large_seen = if rank > 64 {
            vec![false; rank]
        } else {
            Vec::new()
        };
        let mut seen_before = |d: usize| {
            if rank <= 64 {
                let bit = 1u64 << d;
                let seen = small_seen & bit != 0;
                small_seen |= bit;
                seen
            } else {
                std::mem::replace(&mut large_seen[d], true)
            }
        };
        for (position, &value) in self.minor_to_major.iter().enumerate() {
            match usize::try_from(value).ok().filter(|&d| d < rank) {
                None => errors.push(LayoutRuleError::DimOutOfRange {
                    position,
                    value,
                    rank,
                }),
                Some(d) if seen_before(d) => {
                    errors.push(LayoutRuleError::RepeatedDim { position, value })
                }
                Some(_) => {}
            }
        }
        for (t, tile) in self.tiles.iter().enumerate() {
            if tile.dims.is_empty() {
                errors.push(LayoutRuleError::EmptyTile { tile: t });
            }
            for (d, dim) in tile.dims.iter().enumerate() {
                match *dim {
                    TileDim::Size(value) if value <= 0 => {
                        errors.push(LayoutRuleError::BadTileSize {
                            tile: t,
                            dim: d,
                            value,
                        })
                    }
                    TileDim::Combine if d + 1 == tile.dims.len() => {
                        errors.push(LayoutRuleError::CombineAtEnd { tile: t, dim: d })
                    }
                    _ => {}
                }
            }
        }
        if self.tail_padding_alignment < 1 {
            errors.push(LayoutRuleError::BadTailPadding {
                value: self.tail_padding_alignment,
            });
        }
        if self.element_size_in_bits < 0 {
            errors.push(LayoutRuleError::BadElementSize {
                value: self.element_size_in_bits,
            });
        }
        if self.dynamic_shape_metadata_prefix_bytes < 0 {
            errors.push(LayoutRuleError::BadMetadataPrefix {
                value: self.dynamic_shape_metadata_prefix_bytes,
            });
        }
        errors
    }
}

/// The padding of the "Shapes and layout" document, which predates tiles: each logical dim
/// is padded to a width, and the pad cells hold `padding_value`. Today's HLO text cannot
/// express it; `ir::tiling` applies it before any tile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LegacyPadding {
    /// One padded size per logical dim, each at least the dim's size.
    pub padded_dimensions: Vec<i64>,
    /// What the pad cells hold.
    pub padding_value: PaddingValue,
}

/// What the pad cells of a [`LegacyPadding`] contain, as XLA's old `PaddingValue` enum said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PaddingValue {
    /// Zeros.
    #[default]
    Zero,
    /// Ones.
    One,
    /// The element type's lowest value.
    Lowest,
    /// The element type's highest value.
    Highest,
    /// Anything: nothing may read the pad cells.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_dims_count_from_the_end() {
        let shape = ArrayShape::new(PrimitiveType::F32, &[2, 3, 5]);
        assert_eq!(shape.dim(-1), Ok(Dim::Static(5)));
        assert_eq!(shape.dim(-3), Ok(Dim::Static(2)));
        assert_eq!(shape.dim(0), Ok(Dim::Static(2)));
        assert_eq!(shape.dim(3), Err(DimOutOfRange { dim: 3, rank: 3 }));
        assert_eq!(shape.dim(-4), Err(DimOutOfRange { dim: -4, rank: 3 }));
        assert_eq!(shape.minor_position(-1), Ok(Some(0)));
    }

    #[test]
    fn leaves_are_the_arrays_depth_first_in_tuple_order() {
        let array = |n: i64| Shape::Array(ArrayShape::new(PrimitiveType::F32, &[n]));
        let shape = Shape::Tuple(vec![
            Shape::Tuple(vec![array(1), Shape::Tuple(vec![array(2)])]),
            Shape::Token,
            Shape::Tuple(vec![]),
            Shape::Buffer(ArrayShape::new(PrimitiveType::F32, &[9])),
            array(3),
            Shape::Tuple(vec![Shape::Tuple(vec![]), array(4)]),
        ]);
        let sizes: Vec<i64> = shape
            .leaves()
            .map(|leaf| leaf.dims[0].extent().unwrap())
            .collect();
        assert_eq!(sizes, [1, 2, 3, 4]);
        assert_eq!(array(5).leaves().count(), 1);
        assert_eq!(Shape::Token.leaves().count(), 0);
    }

    #[test]
    fn tuples_print_index_comments() {
        let leaf = Shape::Array(ArrayShape::new(PrimitiveType::F32, &[]));
        let tuple = Shape::Tuple(vec![leaf; 6]);
        assert_eq!(
            tuple.to_string(),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])"
        );
    }
}
