//! Property tests of the tiled-layout math.
//!
//! The oracle here is independent of `ir::tiling`: it materialises the array and performs the
//! document's steps as data movement (pad with holes, reshape, transpose the within-tile dims
//! to the minor end), then reads each element's position off the final buffer.

use hlo_layout::ir::{ArrayShape, Layout, PhysicalLayout, PrimitiveType, Tile, TileDim};
use proptest::prelude::*;

/// A dense row-major buffer of element ids (`None` = padding) with its dims.
struct Buffer {
    dims: Vec<i64>,
    cells: Vec<Option<usize>>,
}

fn strides(dims: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}

fn unravel(mut linear: i64, dims: &[i64]) -> Vec<i64> {
    let mut index = vec![0; dims.len()];
    for i in (0..dims.len()).rev() {
        index[i] = linear % dims[i];
        linear /= dims[i];
    }
    index
}

impl Buffer {
    /// Pads the last dims up to multiples of `sizes`, leaving holes.
    fn pad_suffix(&self, sizes: &[i64]) -> Buffer {
        let k = sizes.len();
        let n = self.dims.len();
        let mut dims = self.dims.clone();
        for j in 0..k {
            let d = dims[n - k + j];
            dims[n - k + j] = (d + sizes[j] - 1) / sizes[j] * sizes[j];
        }
        let total: i64 = dims.iter().product();
        let mut cells = vec![None; total as usize];
        let new_strides = strides(&dims);
        for (old_linear, cell) in self.cells.iter().enumerate() {
            let index = unravel(old_linear as i64, &self.dims);
            let at: i64 = index.iter().zip(&new_strides).map(|(i, s)| i * s).sum();
            cells[at as usize] = *cell;
        }
        Buffer { dims, cells }
    }

    /// Permutes dims: output dim `i` is input dim `perm[i]`.
    fn transpose(&self, perm: &[usize]) -> Buffer {
        let dims: Vec<i64> = perm.iter().map(|&p| self.dims[p]).collect();
        let old_strides = strides(&self.dims);
        let total: i64 = dims.iter().product();
        let mut cells = vec![None; total as usize];
        for (new_linear, cell) in cells.iter_mut().enumerate() {
            let index = unravel(new_linear as i64, &dims);
            let at: i64 = index
                .iter()
                .zip(perm)
                .map(|(i, &p)| i * old_strides[p])
                .sum();
            *cell = self.cells[at as usize];
        }
        Buffer { dims, cells }
    }
}

/// Memory order of every logical element under `layout`, by data movement.
fn oracle(dims: &[i64], layout: &Layout) -> Buffer {
    let rank = dims.len();
    let physical: Vec<usize> = layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect();
    // Element id = logical row-major index; place them in physical row-major order.
    let logical_strides = strides(dims);
    let physical_dims: Vec<i64> = physical.iter().map(|&d| dims[d]).collect();
    let total: i64 = dims.iter().product();
    let mut cells = vec![None; total as usize];
    for (p_linear, cell) in cells.iter_mut().enumerate() {
        let p_index = unravel(p_linear as i64, &physical_dims);
        let mut id = 0;
        for (k, &d) in physical.iter().enumerate() {
            id += p_index[k] * logical_strides[d];
        }
        *cell = Some(id as usize);
    }
    let mut buffer = Buffer {
        dims: physical_dims,
        cells,
    };
    debug_assert_eq!(buffer.dims.len(), rank);
    for tile in &layout.tiles {
        // Leading size-1 dims and merges are reshapes: no data moves in row-major order.
        while buffer.dims.len() < tile.dims.len() {
            buffer.dims.insert(0, 1);
        }
        let mut entries = tile.dims.clone();
        while let Some(j) = entries.iter().position(|d| *d == TileDim::Combine) {
            let i = buffer.dims.len() - entries.len() + j;
            let merged = buffer.dims[i] * buffer.dims[i + 1];
            buffer.dims.splice(i..i + 2, [merged]);
            entries.remove(j);
        }
        let sizes: Vec<i64> = entries
            .iter()
            .map(|d| match d {
                TileDim::Size(s) => *s,
                TileDim::Combine => unreachable!(),
            })
            .collect();
        let padded = buffer.pad_suffix(&sizes);
        // Reshape each padded dim into (count, size), then move every size dim to the end.
        let n = padded.dims.len();
        let k = sizes.len();
        let mut dims = padded.dims[..n - k].to_vec();
        for (&padded_dim, &size) in padded.dims[n - k..].iter().zip(&sizes) {
            dims.push(padded_dim / size);
            dims.push(size);
        }
        let reshaped = Buffer {
            dims,
            cells: padded.cells,
        };
        let major = n - k;
        let mut perm: Vec<usize> = (0..major).collect();
        perm.extend((0..k).map(|j| major + 2 * j));
        perm.extend((0..k).map(|j| major + 2 * j + 1));
        buffer = reshaped.transpose(&perm);
    }
    buffer
}

fn tile_strategy(max_len: usize) -> impl Strategy<Value = Tile> {
    prop::collection::vec(
        prop_oneof![4 => (1i64..6).prop_map(TileDim::Size), 1 => Just(TileDim::Combine)],
        1..=max_len,
    )
    .prop_map(|mut dims| {
        // A tile cannot end with `*`.
        if let Some(last) = dims.last_mut() {
            if *last == TileDim::Combine {
                *last = TileDim::Size(2);
            }
        }
        Tile { dims }
    })
}

fn case_strategy() -> impl Strategy<Value = (Vec<i64>, Layout)> {
    (0usize..=4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0i64..7, rank),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(tile_strategy(rank + 1), 0..=3),
                prop_oneof![Just(1i64), 2i64..5],
            )
        })
        .prop_map(|(dims, minor_to_major, tiles, alignment)| {
            let layout = Layout {
                minor_to_major,
                tiles,
                tail_padding_alignment: alignment,
                ..Layout::default()
            };
            (dims, layout)
        })
        .prop_filter("keep the oracle's buffers small", |(dims, layout)| {
            let shape = ArrayShape::new(PrimitiveType::F32, dims).with_layout(layout.clone());
            PhysicalLayout::new(&shape).is_ok_and(|m| m.padded_elements() <= 20_000)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn linear_index_matches_the_data_movement_oracle((dims, layout) in case_strategy()) {
        let shape = ArrayShape::new(PrimitiveType::F32, &dims).with_layout(layout.clone());
        let memory = PhysicalLayout::new(&shape).unwrap();
        let buffer = oracle(&dims, &layout);
        prop_assert_eq!(memory.tiled_dims(), &buffer.dims[..]);
        let logical_strides = strides(&dims);
        for (position, cell) in buffer.cells.iter().enumerate() {
            let expected = cell.map(|id| unravel(id as i64, &dims));
            prop_assert_eq!(memory.element_at(position as i64).unwrap(), expected.clone());
            if let Some(index) = expected {
                prop_assert_eq!(memory.linear_index(&index).unwrap(), position as i64);
                let id: i64 = index.iter().zip(&logical_strides).map(|(i, s)| i * s).sum();
                prop_assert_eq!(Some(id as usize), *cell);
            }
        }
        // L(n) tail cells beyond the tiled buffer are padding.
        for position in buffer.cells.len() as i64..memory.padded_elements() {
            prop_assert_eq!(memory.element_at(position).unwrap(), None);
        }
    }

    #[test]
    fn map_is_injective_bounded_and_inverted((dims, layout) in case_strategy()) {
        let shape = ArrayShape::new(PrimitiveType::Bf16, &dims).with_layout(layout);
        let memory = PhysicalLayout::new(&shape).unwrap();
        let total: i64 = dims.iter().product();
        let mut seen = std::collections::BTreeSet::new();
        for id in 0..total {
            let index = unravel(id, &dims);
            let linear = memory.linear_index(&index).unwrap();
            prop_assert!((0..memory.padded_elements()).contains(&linear));
            prop_assert!(seen.insert(linear), "two elements at {}", linear);
            prop_assert_eq!(memory.element_at(linear).unwrap(), Some(index));
        }
        let padding = (0..memory.padded_elements())
            .filter(|&i| memory.element_at(i).unwrap().is_none())
            .count() as i64;
        prop_assert_eq!(padding + total, memory.padded_elements());
        prop_assert!(memory.bytes() >= memory.unpadded_bytes());
    }
}
