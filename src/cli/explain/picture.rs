//! What the pictures show, shared by the text and SVG renderers: which cells of the logical
//! array are drawn, each cell's linear index and first-tile tile index, and which element each
//! drawn memory slot holds.
//!
//! Only drawn cells are computed, so a huge array costs no more than a small one.

use hlo_layout::ir::tiling::IndexError;
use hlo_layout::ir::PhysicalLayout;

/// At most this many rows and columns of a 2-D slice are drawn.
pub const MAX_GRID_SIDE: i64 = 16;
/// At most this many 2-D slices of a rank > 2 array are drawn.
pub const MAX_SLICES: usize = 4;

pub use hlo_layout::explain::dim_names;

/// A run of consecutive coordinates of one dim that is drawn: `start..start+len` of `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub len: i64,
    pub size: i64,
}

impl Window {
    /// At most `cap` coordinates; starts at 0 unless that would leave out `focus`, in which
    /// case it starts at the multiple of `cap` below `focus` (kept inside the dim), so that
    /// windows line up with power-of-two tiles.
    pub fn around(size: i64, cap: i64, focus: Option<i64>) -> Window {
        let len = size.clamp(0, cap);
        let start = match focus {
            Some(focus) if focus >= len => (focus / cap * cap).min(size - len),
            _ => 0,
        };
        Window { start, len, size }
    }

    /// The whole of a size-1 dim, for the row of a rank-1 array and the cell of a scalar.
    fn single() -> Window {
        Window {
            start: 0,
            len: 1,
            size: 1,
        }
    }

    pub fn is_cut(&self) -> bool {
        self.len < self.size
    }

    /// The last coordinate drawn; only meaningful when `len > 0`.
    pub fn last(&self) -> i64 {
        self.start + self.len - 1
    }

    pub fn coordinates(&self) -> impl Iterator<Item = i64> {
        self.start..self.start + self.len
    }
}

/// One drawn element of the logical array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub index: Vec<i64>,
    pub linear: i64,
    /// The element's tile index under the first tile; empty when the layout has no tiles.
    pub tile: Vec<i64>,
    /// True for the element given with `--index`.
    pub marked: bool,
}

/// One drawn 2-D slice: the trailing two dims at fixed coordinates of the leading ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Coordinates of the leading dims (all but the trailing two); empty for rank <= 2.
    pub leading: Vec<i64>,
    /// `rows.len` rows of `cols.len` cells.
    pub cells: Vec<Vec<Cell>>,
}

impl Slice {
    /// Whether a tile border runs down the left side of column `col` in `row`; the outer
    /// edges (`col == 0` and `col == number of columns`) always have one.
    pub fn vertical_border(&self, row: usize, col: usize) -> bool {
        let cells = &self.cells[row];
        col == 0 || col == cells.len() || cells[col - 1].tile != cells[col].tile
    }

    /// Whether a tile border runs along the top of `row` in column `col`; the outer edges
    /// (`row == 0` and `row == number of rows`) always have one.
    pub fn horizontal_border(&self, row: usize, col: usize) -> bool {
        row == 0
            || row == self.cells.len()
            || self.cells[row - 1][col].tile != self.cells[row][col].tile
    }
}

/// The drawn part of the logical array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// The logical dim drawn down the rows (the second-minor logical dim); `None` below rank 2.
    pub row_dim: Option<usize>,
    /// The logical dim drawn across (the last logical dim); `None` for a scalar.
    pub col_dim: Option<usize>,
    pub rows: Window,
    pub cols: Window,
    /// Slices drawn, in row-major order of their leading coordinates.
    pub slices: Vec<Slice>,
    /// How many 2-D slices the array has in all (1 for rank <= 2, 0 if any dim is 0).
    pub total_slices: i64,
}

impl Grid {
    /// The row and column windows that were cut, as `y 0..15 of 0..99`, naming dims by
    /// `names`; both renderers say so beside the picture.
    pub fn cut_windows(&self, names: &[String]) -> Vec<String> {
        [(self.row_dim, self.rows), (self.col_dim, self.cols)]
            .into_iter()
            .filter_map(|(dim, window)| match (dim, window.is_cut()) {
                (Some(dim), true) => Some(format!(
                    "{} {}..{} of 0..{}",
                    names.get(dim).map_or("?", String::as_str),
                    window.start,
                    window.last(),
                    window.size - 1
                )),
                _ => None,
            })
            .collect()
    }

    /// The cells to draw: the first [`MAX_SLICES`] slices and the first [`MAX_GRID_SIDE`]
    /// rows and `max_cols` columns of each; with `focus` (an in-range index), only the slice
    /// holding it, with windows that include it.
    pub fn build(
        memory: &PhysicalLayout,
        focus: Option<&[i64]>,
        max_cols: i64,
    ) -> Result<Grid, IndexError> {
        let dims = memory.logical_dims();
        let rank = dims.len();
        let focus_at = |dim: usize| focus.and_then(|index| index.get(dim).copied());
        let (row_dim, col_dim) = match rank {
            0 => (None, None),
            1 => (None, Some(0)),
            _ => (Some(rank - 2), Some(rank - 1)),
        };
        let window_of = |dim: Option<usize>, cap: i64| match dim {
            Some(dim) => Window::around(dims[dim], cap, focus_at(dim)),
            None => Window::single(),
        };
        let rows = window_of(row_dim, MAX_GRID_SIDE);
        let cols = window_of(col_dim, max_cols.clamp(1, MAX_GRID_SIDE));
        let leading_dims = &dims[..rank.saturating_sub(2)];
        // The logical element count was checked against overflow when the layout was built.
        let total_slices = if dims.contains(&0) {
            0
        } else {
            leading_dims.iter().product()
        };
        let leading_coordinates: Vec<Vec<i64>> = if total_slices == 0 {
            Vec::new()
        } else if let Some(index) = focus {
            vec![index[..leading_dims.len()].to_vec()]
        } else {
            first_row_major_indices(leading_dims, MAX_SLICES)
        };
        let mut slices = Vec::with_capacity(leading_coordinates.len());
        for leading in leading_coordinates {
            let mut cells = Vec::with_capacity(rows.len as usize);
            for row in rows.coordinates() {
                let mut cell_row = Vec::with_capacity(cols.len as usize);
                for col in cols.coordinates() {
                    let mut index = leading.clone();
                    index.extend(row_dim.map(|_| row));
                    index.extend(col_dim.map(|_| col));
                    cell_row.push(cell_at(memory, index, focus)?);
                }
                cells.push(cell_row);
            }
            slices.push(Slice { leading, cells });
        }
        Ok(Grid {
            row_dim,
            col_dim,
            rows,
            cols,
            slices,
            total_slices,
        })
    }

    /// The largest linear index among the drawn cells (0 when none are drawn).
    pub fn max_linear(&self) -> i64 {
        self.slices
            .iter()
            .flat_map(|slice| slice.cells.iter().flatten())
            .map(|cell| cell.linear)
            .max()
            .unwrap_or(0)
    }
}

fn cell_at(
    memory: &PhysicalLayout,
    index: Vec<i64>,
    focus: Option<&[i64]>,
) -> Result<Cell, IndexError> {
    let linear = memory.linear_index(&index)?;
    let tile = memory
        .trace(&index)?
        .into_iter()
        .next()
        .map(|first| first.tile_index)
        .unwrap_or_default();
    let marked = focus == Some(index.as_slice());
    Ok(Cell {
        index,
        linear,
        tile,
        marked,
    })
}

/// The first `limit` indices of an array of `dims` in row-major order.
fn first_row_major_indices(dims: &[i64], limit: usize) -> Vec<Vec<i64>> {
    let mut indices = Vec::new();
    let mut index = vec![0i64; dims.len()];
    while indices.len() < limit {
        indices.push(index.clone());
        // Step the index like an odometer; when every digit wraps, all indices were visited.
        let mut position = dims.len();
        loop {
            if position == 0 {
                return indices;
            }
            position -= 1;
            index[position] += 1;
            if index[position] < dims[position] {
                break;
            }
            index[position] = 0;
        }
    }
    indices
}

/// A run of memory, in linear order, with the element each slot holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryStrip {
    pub window: Window,
    /// The logical element in each slot of the window, `None` for padding.
    pub slots: Vec<Option<Vec<i64>>>,
}

impl MemoryStrip {
    /// At most `cap` slots from the start of memory, or around `focus` (a linear index).
    pub fn build(
        memory: &PhysicalLayout,
        cap: i64,
        focus: Option<i64>,
    ) -> Result<MemoryStrip, IndexError> {
        let window = Window::around(memory.padded_elements(), cap, focus);
        let slots = window
            .coordinates()
            .map(|linear| memory.element_at(linear))
            .collect::<Result<_, _>>()?;
        Ok(MemoryStrip { window, slots })
    }
}

/// A number for a first-tile tile index: its row-major position among all tiles, so that
/// neighbouring tiles get different numbers. 0 when the layout has no tiles.
pub fn tile_ordinal(memory: &PhysicalLayout, tile: &[i64]) -> i64 {
    let Some(first) = memory.steps().first() else {
        return 0;
    };
    let count_dims = &first.output_dims[..first.output_dims.len() - first.sizes.len()];
    // The tile counts multiply to at most the padded element count, which fits in an i64.
    tile.iter()
        .zip(count_dims)
        .fold(0i64, |acc, (&i, &d)| acc.wrapping_mul(d).wrapping_add(i))
}

/// `(2,3)`: an index as the text and SVG outputs write it.
pub fn format_index(index: &[i64]) -> String {
    format!("({})", join(index, ","))
}

/// `[2,3]`: a list of dim sizes as the text output writes it.
pub fn format_dims(dims: &[i64]) -> String {
    format!("[{}]", join(dims, ","))
}

pub fn join<T: std::fmt::Display>(items: &[T], separator: &str) -> String {
    items
        .iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_shapes_document() {
        assert_eq!(dim_names(0), Vec::<String>::new());
        assert_eq!(dim_names(2), ["y", "x"]);
        assert_eq!(dim_names(4), ["p", "z", "y", "x"]);
        assert_eq!(dim_names(5), ["d0", "d1", "d2", "d3", "d4"]);
    }

    #[test]
    fn windows_include_the_focus() {
        assert_eq!(Window::around(130, 16, Some(129)).start, 114);
        assert_eq!(Window::around(130, 16, Some(40)).start, 32);
        assert_eq!(Window::around(130, 16, Some(3)).start, 0);
        assert_eq!(Window::around(5, 16, None).len, 5);
        assert_eq!(Window::around(0, 16, None).len, 0);
    }

    #[test]
    fn odometer_stops_at_the_end() {
        assert_eq!(
            first_row_major_indices(&[2, 2], 10),
            vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]
        );
        assert_eq!(first_row_major_indices(&[], 4), vec![Vec::<i64>::new()]);
        assert_eq!(first_row_major_indices(&[3, 5], 2).len(), 2);
    }
}
