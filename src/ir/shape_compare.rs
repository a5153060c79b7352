//! Shapes compared as XLA compares them: with the layouts left out
//! ([`equals_without_layouts`], [`strip_layouts`] for messages) and as `ShapeUtil::Compatible`
//! sees them ([`compatible`]). The verifier, lowering and layout assignment all compare so.

use super::shape::{ArrayShape, Shape};
use super::shape_inference as infer;

/// The same shape with every layout removed.
pub fn strip_layouts(shape: &Shape) -> Shape {
    infer::copy(shape)
}

/// `bare == strip_layouts(shape)`, without building the stripped copy.
pub fn equals_without_layouts(bare: &Shape, shape: &Shape) -> bool {
    let arrays = |bare: &ArrayShape, array: &ArrayShape| {
        bare.layout.is_none() && bare.element_type == array.element_type && bare.dims == array.dims
    };
    match (bare, shape) {
        (Shape::Array(bare), Shape::Array(array)) | (Shape::Buffer(bare), Shape::Buffer(array)) => {
            arrays(bare, array)
        }
        (Shape::Tuple(bare), Shape::Tuple(elements)) => {
            bare.len() == elements.len()
                && bare
                    .iter()
                    .zip(elements)
                    .all(|(bare, element)| equals_without_layouts(bare, element))
        }
        (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
        _ => false,
    }
}

/// Shapes equal as XLA's `ShapeUtil::Compatible` sees them: element types and dim sizes,
/// layouts and dynamism ignored (an unbounded dim matches any size).
pub fn compatible(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) | (Shape::Buffer(x), Shape::Buffer(y)) => {
            x.element_type == y.element_type
                && x.rank() == y.rank()
                && x.dims
                    .iter()
                    .zip(&y.dims)
                    .all(|(p, q)| match (p.extent(), q.extent()) {
                        (Some(m), Some(n)) => m == n,
                        _ => true,
                    })
        }
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| compatible(p, q))
        }
        (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Dim, Layout, PrimitiveType};
    use proptest::prelude::*;

    fn array() -> impl Strategy<Value = ArrayShape> {
        let types = prop::sample::select(vec![PrimitiveType::F32, PrimitiveType::S32]);
        let dim = prop_oneof![
            (1i64..3).prop_map(Dim::Static),
            (1i64..3).prop_map(Dim::Bounded),
            Just(Dim::Unbounded),
        ];
        (types, prop::collection::vec(dim, 0..3), any::<bool>()).prop_map(
            |(element_type, dims, laid_out)| {
                let layout = laid_out.then(|| Layout::descending(dims.len()));
                ArrayShape {
                    element_type,
                    dims,
                    layout,
                }
            },
        )
    }

    fn shape() -> impl Strategy<Value = Shape> {
        let leaf = prop_oneof![
            array().prop_map(Shape::Array),
            array().prop_map(Shape::Buffer),
            Just(Shape::Token),
            Just(Shape::Opaque),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop::collection::vec(inner, 0..3).prop_map(Shape::Tuple)
        })
    }

    proptest! {
        /// The comparison the verifier makes for every instruction agrees with comparing
        /// against the stripped copy it no longer builds; pairs from one strategy are
        /// rarely equal, so a stripped copy of the second is also tried as the first.
        #[test]
        fn equals_without_layouts_is_equality_with_the_stripped_shape(
            a in shape(),
            b in shape(),
        ) {
            prop_assert_eq!(equals_without_layouts(&a, &b), a == strip_layouts(&b));
            let stripped = strip_layouts(&b);
            prop_assert!(equals_without_layouts(&stripped, &b));
            prop_assert_eq!(equals_without_layouts(&b, &b), b == stripped);
        }
    }
}
