//! Shapes: arrays (static, bounded-dynamic `<=N` and unbounded `?` dims), tuples, token and
//! opaque, printed exactly as XLA prints them.

use std::borrow::Cow;
use std::fmt;

use super::layout::{write_joined, Layout};
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

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => f.write_str(itoa::Buffer::new().format(*n)),
            Dim::Bounded(n) => {
                f.write_str("<=")?;
                f.write_str(itoa::Buffer::new().format(*n))
            }
            Dim::Unbounded => f.write_str("?"),
        }
    }
}

/// `f32[2,3]{1,0}`; a scalar whose layout carries nothing prints as `f32[]`.
impl fmt::Display for ArrayShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Parts are written by calling their `fmt`, not through `write!`, which costs more
        // than printing most shapes does.
        f.write_str(self.element_type.name())?;
        f.write_str("[")?;
        write_joined(f, &self.dims, ",")?;
        f.write_str("]")?;
        if let Some(layout) = &self.layout {
            if !self.dims.is_empty() || layout.has_attributes() {
                fmt::Display::fmt(layout, f)?;
            }
        }
        Ok(())
    }
}

/// Tuples print as `(a, b, c, d, e, /*index=5*/f)`, as XLA does.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(array) => fmt::Display::fmt(array, f),
            Shape::Tuple(elements) => {
                f.write_str("(")?;
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                        if i % 5 == 0 {
                            f.write_str("/*index=")?;
                            f.write_str(itoa::Buffer::new().format(i))?;
                            f.write_str("*/")?;
                        }
                    }
                    fmt::Display::fmt(element, f)?;
                }
                f.write_str(")")
            }
            Shape::Token => f.write_str("token[]"),
            Shape::Opaque => f.write_str("opaque[]"),
            Shape::Buffer(array) => write!(f, "b({array})"),
        }
    }
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
