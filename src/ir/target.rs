//! Targets: which tiles a backend gives an array, by element width, physical shape, rank
//! and hardware generation (docs/tiled-layouts.md §6).
//!
//! The TPU rule follows the public Mosaic `getTilingFactor` formula, which reproduces the
//! tilings seen in public TPU dumps. With `bits` the storage width and `packing = 32/bits`:
//!
//! - rank >= 2: `R` is the physical second-minor size; rows start at `packing` (doubled
//!   before v4) and double while below `min(R, 8)`; a large-tile option uses 16/32/64 rows
//!   for 16/8/4-bit types when `R` reaches them. Tiles are `T(rows,128)`, plus `(packing,1)`
//!   for packed types.
//! - rank 1: the same rule with `R = ceil(n/128)`, as `T(rows*128)`, plus `(128)(packing,1)`
//!   for packed types.
//! - rank 0: `T(128*packing)` (doubled before v4), no sub-tiles.
//!
//! Where public information ends, this is our documented policy:
//! - `pred` is stored as 8-bit (tiles `(..,128)(4,1)`), as most dumps show; the `pred_32bit`
//!   option stores it as `E(32)` with 32-bit tiles instead.
//! - 6-bit floats are stored a byte per element, like 8-bit types.
//! - 1- and 2-bit integers are widened to 4 bits (`E(4)`): Mosaic refuses narrower types, and
//!   a wider `E(n)` keeps the value in the low bits.
//! - 64-bit types (s64, u64, f64, c64) and c128 take the 32-bit tiles with no packing: no
//!   public TPU layout exists, and a T(8,128) tile of 8- or 16-byte elements keeps the
//!   second-minor and minor rules of 32-bit types.

use std::fmt;

use super::primitive::PrimitiveType;
use super::shape::ArrayShape;
use super::shape::{Layout, Tile};

/// Rows of a lane tile: every TPU generation has 8 sublanes of 128 lanes.
const LANES: i64 = 128;
const SUBLANES: i64 = 8;

/// A compilation target whose layout rules the layout assignment follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Untiled, descending layouts, as XLA's CPU backend assigns.
    Cpu,
    /// A TPU generation, whose tiles depend on element width.
    Tpu(TpuTarget),
}

/// A TPU generation and the options that change its tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpuTarget {
    /// The `--target` name, `tpu-v5e`.
    pub name: &'static str,
    /// 2 for v2, 3 for v3, 4 for v4, 5 for v5e/v5p, 6 for v6e, 7 for TPU7x.
    pub generation: u32,
    /// Use 16-row tiles for 16-bit types when the second-minor dim reaches 16.
    pub large_tiles_16_bit: bool,
    /// Use 32-row tiles for 8-bit types when the second-minor dim reaches 32.
    pub large_tiles_8_bit: bool,
    /// Use 64-row tiles for 4-bit types when the second-minor dim reaches 64.
    pub large_tiles_4_bit: bool,
    /// Store `pred` as 32-bit words (`E(32)`) rather than bytes.
    pub pred_32bit: bool,
}

impl TpuTarget {
    fn new(name: &'static str, generation: u32) -> TpuTarget {
        TpuTarget {
            name,
            generation,
            large_tiles_16_bit: false,
            large_tiles_8_bit: false,
            large_tiles_4_bit: false,
            pred_32bit: false,
        }
    }
}

/// The names `--target` accepts, the default first.
pub const TARGET_NAMES: [&str; 5] = ["tpu-v5e", "tpu-v4", "tpu-v3", "tpu-v6e", "cpu"];

/// The tiles and element size a target gives one array.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TileChoice {
    /// The tiles, outermost first; empty for an untiled array.
    pub tiles: Vec<Tile>,
    /// `E(n)`, 0 for the type's natural size.
    pub element_size_in_bits: i64,
}

impl Target {
    /// The default target, `tpu-v5e`.
    pub fn default_tpu() -> Target {
        Target::Tpu(TpuTarget::new("tpu-v5e", 5))
    }

    /// Looks a target up by its `--target` name.
    pub fn from_name(name: &str) -> Option<Target> {
        Some(match name {
            "cpu" => Target::Cpu,
            "tpu-v3" => Target::Tpu(TpuTarget::new("tpu-v3", 3)),
            "tpu-v4" => Target::Tpu(TpuTarget::new("tpu-v4", 4)),
            "tpu-v5e" => Target::Tpu(TpuTarget::new("tpu-v5e", 5)),
            "tpu-v6e" => Target::Tpu(TpuTarget::new("tpu-v6e", 6)),
            _ => return None,
        })
    }

    /// The target's `--target` name.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Cpu => "cpu",
            Target::Tpu(tpu) => tpu.name,
        }
    }

    /// Whether the target tiles arrays at all.
    pub fn is_tiled(&self) -> bool {
        matches!(self, Target::Tpu(_))
    }

    /// The tiles for an array of `element_type` whose dims, in physical order major first,
    /// are `physical_dims` (static sizes or bounds).
    pub fn tiles_for(&self, element_type: PrimitiveType, physical_dims: &[i64]) -> TileChoice {
        match self {
            Target::Cpu => TileChoice::default(),
            Target::Tpu(tpu) => tpu.tiles_for(element_type, physical_dims),
        }
    }

    /// The array with its minor_to_major kept (the descending default if it had none) and
    /// the target's tiles and element size; other layout attributes are kept. Arrays with
    /// an unbounded dim get no tiles.
    pub fn assign_tiles(&self, array: &ArrayShape) -> ArrayShape {
        self.tile(array.clone())
    }

    /// [`Target::assign_tiles`] on an array the caller gives away, without copying it.
    pub fn tile(&self, mut array: ArrayShape) -> ArrayShape {
        let Some(extents) = array.extents() else {
            return array;
        };
        let layout = array
            .layout
            .get_or_insert_with(|| Layout::descending(extents.len()));
        let physical: Vec<i64> = layout
            .minor_to_major
            .iter()
            .rev()
            .filter_map(|&d| {
                usize::try_from(d)
                    .ok()
                    .and_then(|d| extents.get(d))
                    .copied()
            })
            .collect();
        let choice = self.tiles_for(array.element_type, &physical);
        layout.tiles = choice.tiles;
        layout.element_size_in_bits = choice.element_size_in_bits;
        array
    }

    /// The layout the target prefers for an array nobody constrained: descending.
    pub fn default_layout(&self, rank: usize) -> Layout {
        Layout::descending(rank)
    }
}

impl TpuTarget {
    /// Storage bits per element and the `E(n)` that records a non-natural width.
    fn storage(&self, element_type: PrimitiveType) -> (i64, i64) {
        let bits = element_type.bit_width();
        match element_type {
            PrimitiveType::Pred if self.pred_32bit => (32, 32),
            PrimitiveType::Pred => (8, 0),
            _ if bits <= 4 => (4, 4),
            _ if bits <= 8 => (8, 0),
            _ if bits <= 16 => (16, 0),
            _ => (32, 0),
        }
    }

    fn min_rows(&self, packing: i64) -> i64 {
        if self.generation < 4 {
            packing * 2
        } else {
            packing
        }
    }

    fn large_rows(&self, bits: i64) -> Option<i64> {
        match bits {
            16 if self.large_tiles_16_bit => Some(16),
            8 if self.large_tiles_8_bit => Some(32),
            4 if self.large_tiles_4_bit => Some(64),
            _ => None,
        }
    }

    /// Rows of the tile for a second-minor size `r` (Mosaic's `getTilingFactor`).
    fn rows(&self, bits: i64, r: i64) -> i64 {
        let packing = 32 / bits;
        if let Some(large) = self.large_rows(bits).filter(|&large| large <= r) {
            return large;
        }
        let mut rows = self.min_rows(packing);
        while rows < r.min(SUBLANES) {
            rows *= 2;
        }
        rows
    }

    fn tiles_for(&self, element_type: PrimitiveType, physical_dims: &[i64]) -> TileChoice {
        let (bits, element_size_in_bits) = self.storage(element_type);
        let packing = 32 / bits;
        let packed_sub_tile = (packing > 1).then(|| Tile::new(&[packing, 1]));
        let tiles = match physical_dims {
            [] => vec![Tile::new(&[LANES * self.min_rows(packing)])],
            [n] => {
                let rows = self.rows(bits, n / LANES + i64::from(n % LANES != 0));
                let mut tiles = vec![Tile::new(&[rows * LANES])];
                if let Some(sub) = packed_sub_tile {
                    tiles.push(Tile::new(&[LANES]));
                    tiles.push(sub);
                }
                tiles
            }
            [.., second_minor, _] => {
                let mut tiles = vec![Tile::new(&[self.rows(bits, *second_minor), LANES])];
                tiles.extend(packed_sub_tile);
                tiles
            }
        };
        TileChoice {
            tiles,
            element_size_in_bits,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimitiveType::*;

    fn tiles(target: &str, ty: PrimitiveType, dims: &[i64]) -> String {
        let choice = Target::from_name(target).unwrap().tiles_for(ty, dims);
        let mut text: String = choice.tiles.iter().map(|t| t.to_string()).collect();
        if choice.element_size_in_bits != 0 {
            text += &format!("E({})", choice.element_size_in_bits);
        }
        text
    }

    #[test]
    fn b1_32_bit_second_minor() {
        for (r, want) in [
            (1, "(1,128)"),
            (2, "(2,128)"),
            (3, "(4,128)"),
            (4, "(4,128)"),
            (5, "(8,128)"),
            (100, "(8,128)"),
        ] {
            assert_eq!(tiles("tpu-v5e", F32, &[r, 512]), want, "R={r}");
        }
        assert_eq!(tiles("tpu-v3", F32, &[1, 512]), "(2,128)");
    }

    #[test]
    fn b2_16_bit() {
        for (r, want) in [
            (1, "(2,128)(2,1)"),
            (2, "(2,128)(2,1)"),
            (3, "(4,128)(2,1)"),
            (4, "(4,128)(2,1)"),
            (9, "(8,128)(2,1)"),
        ] {
            assert_eq!(tiles("tpu-v5e", Bf16, &[r, 256]), want, "R={r}");
        }
        let mut large = TpuTarget::new("tpu-v5e", 5);
        large.large_tiles_16_bit = true;
        let choice = Target::Tpu(large).tiles_for(Bf16, &[16, 256]);
        assert_eq!(
            choice.tiles,
            vec![Tile::new(&[16, 128]), Tile::new(&[2, 1])]
        );
        assert_eq!(tiles("tpu-v3", Bf16, &[4, 256]), "(4,128)(2,1)");
        assert_eq!(tiles("tpu-v3", Bf16, &[1, 256]), "(4,128)(2,1)");
        assert_eq!(tiles("tpu-v5e", U16, &[64, 256]), "(8,128)(2,1)");
    }

    #[test]
    fn b3_b4_8_and_4_bit() {
        for ty in [S8, U8, F8E4m3fn, Pred] {
            assert_eq!(tiles("tpu-v5e", ty, &[3, 128]), "(4,128)(4,1)", "{ty}");
            assert_eq!(tiles("tpu-v5e", ty, &[17, 128]), "(8,128)(4,1)", "{ty}");
        }
        let mut large = TpuTarget::new("tpu-v5e", 5);
        large.large_tiles_8_bit = true;
        large.large_tiles_4_bit = true;
        let large = Target::Tpu(large);
        assert_eq!(
            large.tiles_for(S8, &[32, 128]).tiles[0],
            Tile::new(&[32, 128])
        );
        assert_eq!(
            large.tiles_for(S8, &[31, 128]).tiles[0],
            Tile::new(&[8, 128])
        );
        assert_eq!(tiles("tpu-v5e", S4, &[1, 128]), "(8,128)(8,1)E(4)");
        assert_eq!(tiles("tpu-v5e", S4, &[1000, 128]), "(8,128)(8,1)E(4)");
        assert_eq!(
            large.tiles_for(S4, &[64, 128]).tiles[0],
            Tile::new(&[64, 128])
        );
    }

    #[test]
    fn b5_b6_rank_1() {
        for (n, want) in [
            (100, "(128)"),
            (200, "(256)"),
            (300, "(512)"),
            (2048, "(1024)"),
        ] {
            assert_eq!(tiles("tpu-v5e", F32, &[n]), want, "n={n}");
        }
        assert_eq!(tiles("tpu-v3", F32, &[100]), "(256)");
        for (n, want) in [
            (128, "(256)(128)(2,1)"),
            (300, "(512)(128)(2,1)"),
            (6144, "(1024)(128)(2,1)"),
        ] {
            assert_eq!(tiles("tpu-v5e", Bf16, &[n]), want, "n={n}");
        }
        assert_eq!(tiles("tpu-v5e", S8, &[512]), "(512)(128)(4,1)");
        assert_eq!(tiles("tpu-v5e", S8, &[513]), "(1024)(128)(4,1)");
    }

    #[test]
    fn b7_rank_0() {
        assert_eq!(tiles("tpu-v5e", F32, &[]), "(128)");
        assert_eq!(tiles("tpu-v5e", Bf16, &[]), "(256)");
        assert_eq!(tiles("tpu-v5e", S8, &[]), "(512)");
        assert_eq!(tiles("tpu-v5e", Pred, &[]), "(512)");
        assert_eq!(tiles("tpu-v3", F32, &[]), "(256)");
        assert_eq!(tiles("tpu-v3", Bf16, &[]), "(512)");
        assert_eq!(tiles("tpu-v3", Pred, &[]), "(1024)");
    }

    #[test]
    fn b8_second_minor_is_physical() {
        let array = crate::parse_array_shape("s32[20,3,256,133]{2,1,0,3}").unwrap();
        let tiled = Target::default_tpu().assign_tiles(&array);
        assert_eq!(tiled.to_string(), "s32[20,3,256,133]{2,1,0,3:T(4,128)}");
    }

    #[test]
    fn policy_beyond_public_information() {
        assert_eq!(tiles("tpu-v5e", F64, &[16, 128]), "(8,128)");
        assert_eq!(tiles("tpu-v5e", C128, &[2, 128]), "(2,128)");
        assert_eq!(tiles("tpu-v5e", S2, &[16, 128]), "(8,128)(8,1)E(4)");
        assert_eq!(tiles("tpu-v5e", U1, &[]), "(1024)E(4)");
        assert_eq!(tiles("tpu-v5e", F6E2m3fn, &[16, 128]), "(8,128)(4,1)");
        let mut pred32 = TpuTarget::new("tpu-v5e", 5);
        pred32.pred_32bit = true;
        let choice = Target::Tpu(pred32).tiles_for(Pred, &[]);
        assert_eq!(choice.tiles, vec![Tile::new(&[128])]);
        assert_eq!(choice.element_size_in_bits, 32);
        assert_eq!(tiles("cpu", F32, &[8, 128]), "");
    }

    #[test]
    fn every_target_name_resolves() {
        for name in TARGET_NAMES {
            assert_eq!(Target::from_name(name).map(|t| t.name()), Some(name));
        }
        assert_eq!(Target::default_tpu().name(), TARGET_NAMES[0]);
    }
}
