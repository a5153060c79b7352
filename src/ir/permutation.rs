//! Permutations as `transpose` writes them: `dimensions={2,0,1}` means result dim `i` is
//! operand dim `dimensions[i]`. XLA's `ComposePermutations`, `InversePermutation` and
//! `IsIdentityPermutation`, for passes that fold transposes.
//!
//! ```
//! use hlo_layout::ir::permutation::{compose, inverse, is_identity};
//!
//! // transpose(transpose(x, {1,2,0}), {2,0,1}) is x.
//! assert_eq!(compose(&[1, 2, 0], &[2, 0, 1]), Some(vec![0, 1, 2]));
//! assert!(is_identity(&[0, 1, 2]));
//! assert_eq!(inverse(&[1, 2, 0]), Some(vec![2, 0, 1]));
//! assert_eq!(compose(&[1, 0], &[0, 1, 2]), None);
//! ```

/// Whether `dims` holds each of `0..dims.len()` once.
pub fn is_permutation(dims: &[i64]) -> bool {
    let mut seen = vec![false; dims.len()];
    dims.iter().all(|&d| {
        usize::try_from(d)
            .ok()
            .and_then(|d| seen.get_mut(d))
            .is_some_and(|seen| !std::mem::replace(seen, true))
    })
}

/// Whether `dims` leaves every dim where it is.
pub fn is_identity(dims: &[i64]) -> bool {
    dims.iter().enumerate().all(|(i, &d)| i as i64 == d)
}

/// The one permutation that does `first`, then `second`: the `dimensions` of the transpose
/// equal to `transpose(transpose(x, first), second)`. `None` unless both are permutations
/// of one rank.
pub fn compose(first: &[i64], second: &[i64]) -> Option<Vec<i64>> {
    if first.len() != second.len() || !is_permutation(first) || !is_permutation(second) {
        return None;
    }
    Some(second.iter().map(|&d| first[d as usize]).collect())
}

/// The permutation that undoes `dims`; `None` unless `dims` is a permutation.
pub fn inverse(dims: &[i64]) -> Option<Vec<i64>> {
    if !is_permutation(dims) {
        return None;
    }
    let mut inverse = vec![0; dims.len()];
    for (i, &d) in dims.iter().enumerate() {
        inverse[d as usize] = i as i64;
    }
    Some(inverse)
}

/// The minor_to_major a transpose's result takes so that it keeps its operand's physical
/// order (a transpose that moves no byte): result dim `i` is operand dim `permutation[i]`, so
/// each operand dim of `operand_minor_to_major` becomes the result dim that reads it. `None`
/// when a dim is not in `permutation`.
pub fn transposed_minor_to_major(
    operand_minor_to_major: &[i64],
    permutation: &[i64],
) -> Option<Vec<i64>> {
    operand_minor_to_major
        .iter()
        .map(|&d| permutation.iter().position(|&p| p == d).map(|i| i as i64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A permutation composed with its inverse, either way round, is the identity.
        #[test]
        fn a_permutation_then_its_inverse_is_the_identity(
            dims in (0usize..7).prop_flat_map(|n| {
                Just((0..n as i64).collect::<Vec<_>>()).prop_shuffle()
            }),
        ) {
            let back = inverse(&dims).unwrap();
            prop_assert!(is_identity(&compose(&dims, &back).unwrap()));
            prop_assert!(is_identity(&compose(&back, &dims).unwrap()));
        }
    }

    #[test]
    fn a_transpose_keeps_its_operands_physical_order() {
        // f32[2,3]{1,0} transposed by {1,0} is f32[3,2]{0,1}.
        assert_eq!(
            transposed_minor_to_major(&[1, 0], &[1, 0]),
            Some(vec![0, 1])
        );
        assert_eq!(
            transposed_minor_to_major(&[2, 1, 0], &[1, 2, 0]),
            Some(vec![1, 0, 2])
        );
        assert_eq!(transposed_minor_to_major(&[1, 0], &[0]), None);
    }

    #[test]
    fn what_is_not_a_permutation_composes_to_nothing() {
        assert!(!is_permutation(&[0, 0]));
        assert!(!is_permutation(&[0, 2]));
        assert!(!is_permutation(&[-1, 0]));
        assert_eq!(compose(&[0, 0], &[1, 0]), None);
        assert_eq!(inverse(&[3]), None);
    }
}
