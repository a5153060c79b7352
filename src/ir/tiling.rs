//! Where every element of a tiled array lives in memory.
//!
//! This follows XLA's "Tiled layout" document exactly, for any number of tiles
//! (docs/tiled-layouts.md §3). Start with `S`, the dims in physical order (major to minor),
//! and `E`, an element's index in that order. For each tile `t`, in order:
//!
//! 1. if `t` has more entries than `S`, prepend 1s to `S` (and 0s to `E`);
//! 2. for each `*` in `t`, left to right, merge the dim under it into the next one
//!    (`E[i+1] = E[i]*S[i+1] + E[i+1]`, `S[i+1] = S[i]*S[i+1]`) and drop it from `S`, `E`, `t`;
//! 3. split the last `k = len(t)` dims into tile counts `⌈S/t⌉` (kept in place) and within-tile
//!    parts `t` (appended at the minor end); split `E` the same way (`E div t`, `E mod t`).
//!
//! The linear index is the row-major index of the final `E` in the final `S`, and the padded
//! element count is the product of the final `S`, rounded up to `L(n)`.
//!
//! Unlike XLA's own helpers (`LayoutUtil::LinearIndex` and `ShapeUtil::ArraySize` use only the
//! first tile; `IndexUtil` ignores tiles), every tile counts here, so the answers are exact for
//! TPU layouts such as `T(8,128)(2,1)`.

use super::primitive::PrimitiveType;
use super::shape::ArrayShape;
use super::shape::{Layout, LayoutRuleError, LegacyPadding, Tile, TileDim};

/// Why a [`PhysicalLayout`] cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TilingError {
    /// The layout does not fit the array.
    #[error(transparent)]
    Layout(#[from] LayoutRuleError),
    /// An unbounded dim, which has no size to lay out.
    #[error("dimension {dim} is unbounded (`?`): it has no size to lay out")]
    UnboundedDim {
        /// The dim's number.
        dim: usize,
    },
    /// A dim of negative size.
    #[error("dimension {dim} has negative size {size}")]
    NegativeDim {
        /// The dim's number.
        dim: usize,
        /// Its size.
        size: i64,
    },
    /// A size on the way to the padded size overflows `i64`.
    #[error("the padded size overflows a 64-bit integer ({what})")]
    Overflow {
        /// Which size: `byte size`, `dim rounded up to its tile` and so on.
        what: &'static str,
    },
    /// Legacy padded sizes that number other than the array's rank.
    #[error("padded_dimensions has {given} entries but the array has rank {rank}")]
    PaddingRank {
        /// How many padded sizes were given.
        given: usize,
        /// The array's rank.
        rank: usize,
    },
    /// A legacy padded size smaller than its dim.
    #[error("padded_dimensions[{dim}] = {padded} is smaller than the dimension's size {size}")]
    PaddingTooSmall {
        /// The dim's number.
        dim: usize,
        /// The padded size given.
        padded: i64,
        /// The dim's size.
        size: i64,
    },
    /// A token or opaque type, which has no elements.
    #[error("{ty} has no array elements to lay out")]
    NotAnArrayType {
        /// The type.
        ty: PrimitiveType,
    },
}

/// Why an index query has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// An index with another number of coordinates than the array's rank.
    #[error("the index has {given} coordinates but the array has rank {rank}")]
    Rank {
        /// How many coordinates were given.
        given: usize,
        /// The array's rank.
        rank: usize,
    },
    /// A coordinate outside its dim.
    #[error("coordinate {value} is out of range for dimension {dim} of size {size}")]
    OutOfRange {
        /// The dim's number.
        dim: usize,
        /// The coordinate.
        value: i64,
        /// The dim's size.
        size: i64,
    },
    /// A linear index outside the array's memory.
    #[error("linear index {value} is outside the array's {size} padded elements")]
    LinearOutOfRange {
        /// The linear index.
        value: i64,
        /// The padded elements the array takes.
        size: i64,
    },
}

/// What one tile did to the shape, in the document's three steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileStep {
    /// The tile as written, `*` included.
    pub tile: Tile,
    /// The shape the tile was applied to.
    pub input_dims: Vec<i64>,
    /// Size-1 dims put in front because the tile had more entries than the shape.
    pub prepended: usize,
    /// Each merge, in order: the position `i` (in the shape at that moment) merged into `i+1`,
    /// and the size of dim `i+1` just before the merge.
    merges: Vec<(usize, i64)>,
    /// The shape after prepending and merging `*` dims.
    pub combined_dims: Vec<i64>,
    /// The tile's sizes once `*` entries are gone.
    pub sizes: Vec<i64>,
    /// Step 1: each tiled dim rounded up to a multiple of its tile size.
    pub padded_dims: Vec<i64>,
    /// Step 2: each tiled dim split into (tile count, tile size), side by side.
    pub reshaped_dims: Vec<i64>,
    /// Step 3: tile counts first, then all tile sizes at the minor end.
    pub output_dims: Vec<i64>,
}

impl TileStep {
    /// Number of leading (major) dims the tile does not touch.
    fn untouched(&self) -> usize {
        self.combined_dims.len() - self.sizes.len()
    }
}

/// How one element moves through one tile, for `explain --index`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepTrace {
    /// The index after prepending and merging, before splitting.
    pub combined_index: Vec<i64>,
    /// Which tile the element falls in (the untouched major coordinates, then the tile counts).
    pub tile_index: Vec<i64>,
    /// Where it sits within the tile.
    pub within_tile_index: Vec<i64>,
}

/// The exact memory map of one array shape under its layout (tiles, `E(n)`, `L(n)`) and,
/// optionally, the legacy `padded_dimensions` of the shapes document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhysicalLayout {
    element_type: PrimitiveType,
    layout: Layout,
    /// Logical dim sizes (bounds for bounded-dynamic dims).
    logical_dims: Vec<i64>,
    /// Logical dim sizes after legacy padding.
    storage_dims: Vec<i64>,
    /// Physical position (major first) -> logical dim.
    physical_order: Vec<usize>,
    steps: Vec<TileStep>,
    tiled_dims: Vec<i64>,
    tiled_elements: i64,
    padded_elements: i64,
}

fn checked_product(dims: &[i64], what: &'static str) -> Result<i64, TilingError> {
    dims.iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .ok_or(TilingError::Overflow { what })
}

impl PhysicalLayout {
    /// The memory map of `shape` under its layout (the descending default when it has none).
    pub fn new(shape: &ArrayShape) -> Result<PhysicalLayout, TilingError> {
        Self::build(shape, None)
    }

    /// Like [`PhysicalLayout::new`], with every logical dim first padded to a width, as the
    /// "Shapes and layout" document's `padded_dimensions` did.
    pub fn with_legacy_padding(
        shape: &ArrayShape,
        padding: &LegacyPadding,
    ) -> Result<PhysicalLayout, TilingError> {
        Self::build(shape, Some(padding))
    }

    fn build(
        shape: &ArrayShape,
        padding: Option<&LegacyPadding>,
    ) -> Result<PhysicalLayout, TilingError> {
        if !shape.element_type.is_array_type() {
            return Err(TilingError::NotAnArrayType {
                ty: shape.element_type,
            });
        }
        let layout = shape.layout_or_default().into_owned();
        let rank = shape.rank();
        if let Some(first) = layout.check_for_rank(rank).into_iter().next() {
            return Err(first.into());
        }
        let mut logical_dims = Vec::with_capacity(rank);
        for (dim, d) in shape.dims.iter().enumerate() {
            let size = d.extent().ok_or(TilingError::UnboundedDim { dim })?;
            if size < 0 {
                return Err(TilingError::NegativeDim { dim, size });
            }
            logical_dims.push(size);
        }
        let storage_dims = match padding {
            None => logical_dims.clone(),
            Some(padding) => {
                if padding.padded_dimensions.len() != rank {
                    return Err(TilingError::PaddingRank {
                        given: padding.padded_dimensions.len(),
                        rank,
                    });
                }
                for (dim, (&padded, &size)) in padding
                    .padded_dimensions
                    .iter()
                    .zip(&logical_dims)
                    .enumerate()
                {
                    if padded < size {
                        return Err(TilingError::PaddingTooSmall { dim, padded, size });
                    }
                }
                padding.padded_dimensions.clone()
            }
        };
        checked_product(&storage_dims, "logical dims")?;
        // minor_to_major was checked to be a permutation of 0..rank above.
        let physical_order: Vec<usize> = layout
            .minor_to_major
            .iter()
            .rev()
            .map(|&d| d as usize)
            .collect();
        let mut dims: Vec<i64> = physical_order.iter().map(|&d| storage_dims[d]).collect();
        let mut steps = Vec::with_capacity(layout.tiles.len());
        for tile in &layout.tiles {
            let step = apply_tile_to_dims(&dims, tile)?;
            dims = step.output_dims.clone();
            steps.push(step);
        }
        let tiled_elements = checked_product(&dims, "tiled dims")?;
        let alignment = layout.tail_padding_alignment;
        let padded_elements = tiled_elements
            .checked_add(alignment - 1)
            .map(|n| n / alignment * alignment)
            .ok_or(TilingError::Overflow {
                what: "L(n) alignment",
            })?;
        let physical = PhysicalLayout {
            element_type: shape.element_type,
            layout,
            logical_dims,
            storage_dims,
            physical_order,
            steps,
            tiled_dims: dims,
            tiled_elements,
            padded_elements,
        };
        physical.checked_bits(physical.padded_elements)?;
        Ok(physical)
    }

    /// The array's element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// The layout this memory map follows.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Logical dim sizes (bounds for bounded-dynamic dims).
    pub fn logical_dims(&self) -> &[i64] {
        &self.logical_dims
    }

    /// Dim sizes in physical order, major first (after legacy padding, before tiling).
    pub fn physical_dims(&self) -> Vec<i64> {
        self.physical_order
            .iter()
            .map(|&d| self.storage_dims[d])
            .collect()
    }

    /// Physical position (major first) -> logical dim.
    pub fn physical_order(&self) -> &[usize] {
        &self.physical_order
    }

    /// What each tile did, in order.
    pub fn steps(&self) -> &[TileStep] {
        &self.steps
    }

    /// The final shape after every tile: memory is this shape in row-major order.
    pub fn tiled_dims(&self) -> &[i64] {
        &self.tiled_dims
    }

    /// Elements memory holds, padding included, after `L(n)` alignment.
    pub fn padded_elements(&self) -> i64 {
        self.padded_elements
    }

    /// Logical elements (bounded dims at their bound).
    pub fn logical_elements(&self) -> i64 {
        // With no zero dim this is at most the storage size, which was checked; with one, the
        // other dims' product may overflow in a different order, so it is not formed.
        if self.logical_dims.contains(&0) {
            0
        } else {
            self.logical_dims
                .iter()
                .try_fold(1i64, |acc, &d| acc.checked_mul(d))
                .unwrap_or(i64::MAX)
        }
    }

    /// Bits one element occupies: `E(n)` when set, else 8 × the type's byte width.
    pub fn bits_per_element(&self) -> i64 {
        match self.layout.element_size_in_bits {
            0 => 8 * i64::from(self.element_type.byte_width()),
            bits => bits,
        }
    }

    fn checked_bits(&self, elements: i64) -> Result<i64, TilingError> {
        let bits = i128::from(elements) * i128::from(self.bits_per_element());
        i64::try_from((bits + 7) / 8).map_err(|_| TilingError::Overflow { what: "byte size" })
    }

    /// Bytes the array occupies with all padding: `⌈padded_elements × bits / 8⌉`.
    pub fn bytes(&self) -> i64 {
        // Checked when the layout was built.
        self.checked_bits(self.padded_elements).unwrap_or(i64::MAX)
    }

    /// Bytes without any padding, as XLA's `ShapeUtil::ByteSizeOf`: `⌈n × E / 8⌉` with
    /// `E(n)`, else n × the byte width (so an s4 without `E(4)` takes a byte per element).
    pub fn unpadded_bytes(&self) -> i64 {
        self.checked_bits(self.logical_elements())
            .unwrap_or(i64::MAX)
    }

    /// Share of [`PhysicalLayout::bytes`] that is padding, in `[0, 1]`; 0 for an empty array.
    pub fn padding_fraction(&self) -> f64 {
        let bytes = self.bytes();
        if bytes == 0 {
            0.0
        } else {
            (bytes - self.unpadded_bytes()) as f64 / bytes as f64
        }
    }

    /// XLA's `ShapeUtil::ArrayDataSize` with every tile counted: the bytes up to and including
    /// the last logical element, leaving out trailing padding. 0 for an empty array.
    pub fn array_data_bytes(&self) -> i64 {
        if self.logical_elements() == 0 {
            return 0;
        }
        let last: Vec<i64> = self.logical_dims.iter().map(|d| d - 1).collect();
        let end = self.linear_index(&last).map_or(0, |i| i + 1);
        self.checked_bits(end).unwrap_or(i64::MAX)
    }

    fn check_index(&self, index: &[i64]) -> Result<(), IndexError> {
        if index.len() != self.logical_dims.len() {
            return Err(IndexError::Rank {
                given: index.len(),
                rank: self.logical_dims.len(),
            });
        }
        for (dim, (&value, &size)) in index.iter().zip(&self.logical_dims).enumerate() {
            if !(0..size).contains(&value) {
                return Err(IndexError::OutOfRange { dim, value, size });
            }
        }
        Ok(())
    }

    /// The element's position in memory, counted in elements from the array's start.
    pub fn linear_index(&self, index: &[i64]) -> Result<i64, IndexError> {
        self.check_index(index)?;
        let mut e: Vec<i64> = self.physical_order.iter().map(|&d| index[d]).collect();
        for step in &self.steps {
            forward_step(step, &mut e, None);
        }
        Ok(row_major(&e, &self.tiled_dims))
    }

    /// How the element moves through each tile (combined index, tile index, within-tile index).
    pub fn trace(&self, index: &[i64]) -> Result<Vec<StepTrace>, IndexError> {
        self.check_index(index)?;
        let mut e: Vec<i64> = self.physical_order.iter().map(|&d| index[d]).collect();
        let mut traces = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            let mut trace = StepTrace {
                combined_index: Vec::new(),
                tile_index: Vec::new(),
                within_tile_index: Vec::new(),
            };
            forward_step(step, &mut e, Some(&mut trace));
            traces.push(trace);
        }
        Ok(traces)
    }

    /// The logical element stored at `linear`, or `None` when that cell is padding.
    pub fn element_at(&self, linear: i64) -> Result<Option<Vec<i64>>, IndexError> {
        if !(0..self.padded_elements).contains(&linear) {
            return Err(IndexError::LinearOutOfRange {
                value: linear,
                size: self.padded_elements,
            });
        }
        if linear >= self.tiled_elements {
            return Ok(None);
        }
        let mut e = vec![0i64; self.tiled_dims.len()];
        let mut rest = linear;
        for (slot, &size) in e.iter_mut().zip(&self.tiled_dims).rev() {
            *slot = rest % size;
            rest /= size;
        }
        for step in self.steps.iter().rev() {
            let untouched = step.untouched();
            let k = step.sizes.len();
            let mut combined = e[..untouched].to_vec();
            for j in 0..k {
                let value = e[untouched + j] * step.sizes[j] + e[untouched + k + j];
                if value >= step.combined_dims[untouched + j] {
                    return Ok(None);
                }
                combined.push(value);
            }
            for &(i, next_size) in step.merges.iter().rev() {
                let merged = combined[i];
                combined[i] = merged / next_size;
                combined.insert(i + 1, merged % next_size);
            }
            // Prepended dims have size 1, so the bound check above left 0 in them.
            e = combined.split_off(step.prepended);
        }
        let mut logical = vec![0i64; self.logical_dims.len()];
        for (&value, &dim) in e.iter().zip(&self.physical_order) {
            if value >= self.logical_dims[dim] {
                return Ok(None);
            }
            logical[dim] = value;
        }
        Ok(Some(logical))
    }
}

/// Applies one tile to a shape (major-to-minor dims) and records the three steps.
fn apply_tile_to_dims(dims: &[i64], tile: &Tile) -> Result<TileStep, TilingError> {
    let mut shape = dims.to_vec();
    let prepended = tile.dims.len().saturating_sub(shape.len());
    shape.splice(0..0, std::iter::repeat_n(1, prepended));
    let mut entries = tile.dims.clone();
    let mut merges = Vec::new();
    while let Some(j) = entries.iter().position(|d| *d == TileDim::Combine) {
        let i = shape.len() - entries.len() + j;
        let next_size = shape[i + 1];
        shape[i + 1] = shape[i]
            .checked_mul(next_size)
            .ok_or(TilingError::Overflow {
                what: "combined `*` dims",
            })?;
        shape.remove(i);
        entries.remove(j);
        merges.push((i, next_size));
    }
    // Every `*` was merged away above, so only sizes remain.
    let sizes: Vec<i64> = entries
        .iter()
        .filter_map(|d| match d {
            TileDim::Size(s) => Some(*s),
            TileDim::Combine => None,
        })
        .collect();
    let untouched = shape.len() - sizes.len();
    let mut padded_dims = shape[..untouched].to_vec();
    let mut reshaped_dims = shape[..untouched].to_vec();
    let mut counts = Vec::with_capacity(sizes.len());
    for (&size, &dim) in sizes.iter().zip(&shape[untouched..]) {
        let count = dim / size + i64::from(dim % size != 0);
        let padded = count.checked_mul(size).ok_or(TilingError::Overflow {
            what: "dim rounded up to its tile",
        })?;
        padded_dims.push(padded);
        reshaped_dims.extend([count, size]);
        counts.push(count);
    }
    checked_product(&padded_dims, "tiled dims")?;
    let mut output_dims = shape[..untouched].to_vec();
    output_dims.extend(&counts);
    output_dims.extend(&sizes);
    Ok(TileStep {
        tile: tile.clone(),
        input_dims: dims.to_vec(),
        prepended,
        merges,
        combined_dims: shape,
        sizes,
        padded_dims,
        reshaped_dims,
        output_dims,
    })
}

/// Moves a physical index through one tile; fills `trace` when asked.
fn forward_step(step: &TileStep, e: &mut Vec<i64>, trace: Option<&mut StepTrace>) {
    e.splice(0..0, std::iter::repeat_n(0, step.prepended));
    let mut sizes_at_merge = e.len();
    for &(i, next_size) in &step.merges {
        debug_assert!(i + 1 < sizes_at_merge);
        e[i + 1] += e[i] * next_size;
        e.remove(i);
        sizes_at_merge -= 1;
    }
    let untouched = step.untouched();
    let k = step.sizes.len();
    if let Some(trace) = trace {
        trace.combined_index = e.clone();
        trace.tile_index = e[..untouched].to_vec();
        for j in 0..k {
            trace.tile_index.push(e[untouched + j] / step.sizes[j]);
            trace
                .within_tile_index
                .push(e[untouched + j] % step.sizes[j]);
        }
    }
    for j in 0..k {
        let value = e[untouched + j];
        e[untouched + j] = value / step.sizes[j];
        e.push(value % step.sizes[j]);
    }
}

/// Row-major linear index of `index` within `dims`.
fn row_major(index: &[i64], dims: &[i64]) -> i64 {
    index
        .iter()
        .zip(dims)
        .fold(0i64, |acc, (&i, &d)| acc * d + i)
}
