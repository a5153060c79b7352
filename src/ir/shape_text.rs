//! Shapes and layouts as HLO text, printed by one writer: `f32[2,<=3]{1,0:T(8,128)}`,
//! tuples `(a, b, c, d, e, /*index=5*/f)`, `token[]`, `opaque[]` and `b(...)`, and layouts
//! with their attributes in XLA's order D, T, L, #, *, E, S, SC, P, M. The writer takes any
//! [`fmt::Write`]: the IR printer (`crate::print`) hands it the `String` it prints into, so
//! that a shape costs no formatter, and the `Display` impls of the shape types hand it their
//! `Formatter`. The IR printer writes its other integers (parameter numbers, operand
//! indices) with the same integer writer ([`push_int`]).
//!
//! Invariant: a shape prints the same bytes whichever way it is reached, the way XLA prints
//! it and lowering reads it back; attributes at their defaults (`L(1)`, `E(0)`, `S(0)`,
//! `M(0)`) print as nothing, and a scalar whose layout carries nothing prints no layout.

use std::fmt::{self, Write};

use super::shape::{ArrayShape, Dim, DimLevelType, Layout, Shape, SplitConfig, Tile, TileDim};

/// Appends `shape` to `out`, with its layouts or without them (as signatures print).
pub(crate) fn push_shape(out: &mut String, shape: &Shape, layouts: bool) {
    // Writing to a `String` cannot fail.
    let _ = write_shape(out, shape, layouts);
}

/// Appends `n` in decimal to `out`.
pub(crate) fn push_int(out: &mut String, n: i64) {
    // Writing to a `String` cannot fail.
    let _ = write_int(out, n);
}

/// Writes `shape`, with its layouts or without them.
fn write_shape<W: Write>(out: &mut W, shape: &Shape, layouts: bool) -> fmt::Result {
    match shape {
        Shape::Array(array) => write_array_shape(out, array, layouts),
        Shape::Tuple(elements) => {
            out.write_char('(')?;
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                    if i % 5 == 0 {
                        out.write_str("/*index=")?;
                        write_int(out, i as i64)?;
                        out.write_str("*/")?;
                    }
                }
                write_shape(out, element, layouts)?;
            }
            out.write_char(')')
        }
        Shape::Token => out.write_str("token[]"),
        Shape::Opaque => out.write_str("opaque[]"),
        Shape::Buffer(array) => {
            out.write_str("b(")?;
            write_array_shape(out, array, layouts)?;
            out.write_char(')')
        }
    }
}

fn write_array_shape<W: Write>(out: &mut W, array: &ArrayShape, layouts: bool) -> fmt::Result {
    out.write_str(array.element_type.name())?;
    out.write_char('[')?;
    for (i, dim) in array.dims.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_dim(out, *dim)?;
    }
    out.write_char(']')?;
    match array.layout.as_ref().filter(|_| layouts) {
        Some(layout) if !array.dims.is_empty() || layout.has_attributes() => {
            write_layout(out, layout)
        }
        _ => Ok(()),
    }
}

fn write_dim<W: Write>(out: &mut W, dim: Dim) -> fmt::Result {
    match dim {
        Dim::Static(n) => write_int(out, n),
        Dim::Bounded(n) => {
            out.write_str("<=")?;
            write_int(out, n)
        }
        Dim::Unbounded => out.write_char('?'),
    }
}

fn write_layout<W: Write>(out: &mut W, layout: &Layout) -> fmt::Result {
    out.write_char('{')?;
    write_ints(out, &layout.minor_to_major)?;
    if layout.has_attributes() {
        out.write_char(':')?;
    }
    if !layout.dim_level_types.is_empty() {
        out.write_str("D(")?;
        for (i, level) in layout.dim_level_types.iter().enumerate() {
            if i > 0 {
                out.write_char(',')?;
            }
            write_dim_level_type(out, level)?;
        }
        out.write_char(')')?;
    }
    if !layout.tiles.is_empty() {
        out.write_char('T')?;
        for tile in &layout.tiles {
            write_tile(out, tile)?;
        }
    }
    if layout.tail_padding_alignment != 1 {
        write_parenthesized(out, "L(", layout.tail_padding_alignment)?;
    }
    if let Some(ty) = layout.index_primitive_type {
        out.write_str("#(")?;
        out.write_str(ty.name())?;
        out.write_char(')')?;
    }
    if let Some(ty) = layout.pointer_primitive_type {
        out.write_str("*(")?;
        out.write_str(ty.name())?;
        out.write_char(')')?;
    }
    if layout.element_size_in_bits != 0 {
        write_parenthesized(out, "E(", layout.element_size_in_bits)?;
    }
    if layout.memory_space != 0 {
        write_parenthesized(out, "S(", layout.memory_space)?;
    }
    if !layout.split_configs.is_empty() {
        out.write_str("SC")?;
        for config in &layout.split_configs {
            write_split_config(out, config)?;
        }
    }
    if let Some(shape) = &layout.physical_shape {
        out.write_str("P(")?;
        write_shape(out, shape, true)?;
        out.write_char(')')?;
    }
    if layout.dynamic_shape_metadata_prefix_bytes != 0 {
        write_parenthesized(out, "M(", layout.dynamic_shape_metadata_prefix_bytes)?;
    }
    out.write_char('}')
}

/// `L(n)`, `E(n)`...: `open` is the letter and its parenthesis.
fn write_parenthesized<W: Write>(out: &mut W, open: &str, n: i64) -> fmt::Result {
    out.write_str(open)?;
    write_int(out, n)?;
    out.write_char(')')
}

fn write_tile<W: Write>(out: &mut W, tile: &Tile) -> fmt::Result {
    out.write_char('(')?;
    for (i, dim) in tile.dims.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_tile_dim(out, *dim)?;
    }
    out.write_char(')')
}

fn write_tile_dim<W: Write>(out: &mut W, dim: TileDim) -> fmt::Result {
    match dim {
        TileDim::Size(n) => write_int(out, n),
        TileDim::Combine => out.write_char('*'),
    }
}

fn write_dim_level_type<W: Write>(out: &mut W, level: &DimLevelType) -> fmt::Result {
    out.write_char(level.level.letter())?;
    if level.not_unique {
        out.write_char('+')?;
    }
    if level.not_ordered {
        out.write_char('~')?;
    }
    Ok(())
}

fn write_split_config<W: Write>(out: &mut W, config: &SplitConfig) -> fmt::Result {
    out.write_char('(')?;
    write_int(out, config.dimension)?;
    out.write_char(':')?;
    write_ints(out, &config.split_indices)?;
    out.write_char(')')
}

fn write_ints<W: Write>(out: &mut W, values: &[i64]) -> fmt::Result {
    for (i, &value) in values.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_int(out, value)?;
    }
    Ok(())
}

/// `n` in decimal, without the formatting machinery, which costs more than the digits do
/// on a path that prints several integers per instruction.
fn write_int<W: Write>(out: &mut W, n: i64) -> fmt::Result {
    if (0..10).contains(&n) {
        return out.write_char(char::from(b'0' + n as u8));
    }
    out.write_str(itoa::Buffer::new().format(n))
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dim(f, *self)
    }
}

/// `f32[2,3]{1,0}`; a scalar whose layout carries nothing prints as `f32[]`.
impl fmt::Display for ArrayShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_array_shape(f, self, true)
    }
}

/// Tuples print as `(a, b, c, d, e, /*index=5*/f)`, as XLA does.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_shape(f, self, true)
    }
}

impl fmt::Display for TileDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tile_dim(f, *self)
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tile(f, self)
    }
}

impl fmt::Display for DimLevelType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dim_level_type(f, self)
    }
}

impl fmt::Display for SplitConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_split_config(f, self)
    }
}

/// Prints `{1,0:T(8,128)}` in XLA's attribute order: D, T, L, #, *, E, S, SC, P, M.
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_layout(f, self)
    }
}
