//! The exact, tile-aware bitcast predicate (docs/tiled-layouts.md §7).
//!
//! A reshape or transpose is a bitcast when every element sits at the same physical offset
//! on both sides and the buffers have the same size, element width and memory space. XLA's
//! own `ReshapeIsBitcast`/`TransposeIsBitcast` ignore tiles; this does not.
//!
//! The method is symbolic. Both sides' offsets are written as functions of `k`, the
//! row-major index of the *result* element. Each logical coordinate is a "digit" of `k`,
//! `(k div a) mod n`. Running the tiling algorithm of `ir::tiling` on digits instead of
//! numbers splits digits into smaller digits, so the offset becomes `Σ digit × stride`.
//! Sorting digits by `a` and merging neighbours that are contiguous in both `k` and memory
//! gives a canonical form; equal forms mean equal functions (every rewrite is an identity on
//! `0 <= k < N`), so a "bitcast" answer is never wrong. A split that does not fall on digit
//! boundaries (a ragged dim) becomes an opaque term, which matches only an identical term on
//! the other side. When the forms differ and opaque terms are involved, small arrays are
//! settled by brute force; larger ones are answered "copy", which is safe.

use std::rc::Rc;

use super::shape::ArrayShape;
use super::tiling::{PhysicalLayout, TilingError};

/// Arrays up to this many elements are compared element by element when the symbolic
/// forms cannot decide.
pub const BRUTE_FORCE_LIMIT: i64 = 1 << 20;

/// How result elements correspond to operand elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Correspondence<'a> {
    /// Same row-major logical order (reshape, bitcast-convert of equal width, copy).
    Reshape,
    /// `result[i] = operand[dimensions[i]]`, as HLO's transpose `dimensions={...}`.
    Transpose(&'a [i64]),
}

/// A value computed from `k`: a digit `(k div a) mod n`, or an opaque piece of a ragged split.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Atom {
    Digit { a: i64, n: i64 },
    Opaque(Rc<OpaqueSplit>),
}

/// `coordinate div t` or `coordinate mod t` of a coordinate whose split is not on digit
/// boundaries.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct OpaqueSplit {
    terms: Vec<(Atom, i64)>,
    size: i64,
    t: i64,
    remainder: bool,
}

impl Atom {
    /// An upper bound on the atom's value plus one.
    fn range(&self) -> i64 {
        match self {
            Atom::Digit { n, .. } => *n,
            Atom::Opaque(split) if split.remainder => split.t,
            Atom::Opaque(split) => ceil_div(split.size, split.t),
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// One coordinate of the shape being tiled: `Σ atom × weight`, allocated `size` slots.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Coordinate {
    terms: Vec<(Atom, i64)>,
    size: i64,
}

impl Coordinate {
    fn constant_zero(size: i64) -> Coordinate {
        Coordinate {
            terms: Vec::new(),
            size,
        }
    }

    fn merge(major: Coordinate, minor: Coordinate) -> Coordinate {
        let mut terms: Vec<(Atom, i64)> = major
            .terms
            .into_iter()
            .map(|(atom, w)| (atom, w * minor.size))
            .collect();
        terms.extend(minor.terms);
        Coordinate {
            terms,
            size: major.size * minor.size,
        }
    }

    /// `(self div t, self mod t)` with sizes `⌈size/t⌉` and `t`.
    fn split(self, t: i64, n_total: i64) -> (Coordinate, Coordinate) {
        let count_size = ceil_div(self.size, t);
        if self.size <= t {
            return (
                Coordinate::constant_zero(count_size),
                Coordinate {
                    terms: self.terms,
                    size: t,
                },
            );
        }
        if let Some((count, within)) = self.regular_split(t, n_total) {
            return (
                Coordinate {
                    terms: count,
                    size: count_size,
                },
                Coordinate {
                    terms: within,
                    size: t,
                },
            );
        }
        let opaque = |remainder| {
            Atom::Opaque(Rc::new(OpaqueSplit {
                terms: self.terms.clone(),
                size: self.size,
                t,
                remainder,
            }))
        };
        (
            Coordinate {
                terms: vec![(opaque(false), 1)],
                size: count_size,
            },
            Coordinate {
                terms: vec![(opaque(true), 1)],
                size: t,
            },
        )
    }

    /// Splits on digit boundaries when possible: every term goes wholly to one side, or is a
    /// digit that divides cleanly at `t`, and the remainder side cannot carry into the count.
    #[allow(clippy::type_complexity)]
    fn regular_split(&self, t: i64, n_total: i64) -> Option<(Vec<(Atom, i64)>, Vec<(Atom, i64)>)> {
        let mut count = Vec::new();
        let mut within = Vec::new();
        for (atom, w) in &self.terms {
            let w = *w;
            let range = atom.range();
            if w % t == 0 {
                count.push((atom.clone(), w / t));
            } else if w.checked_mul(range)? <= t {
                within.push((atom.clone(), w));
            } else if t % w == 0 {
                let x = t / w;
                let Atom::Digit { a, n } = *atom else {
                    return None;
                };
                // The top digit of k (k div a < n) may be cut anywhere; others only at divisors.
                let is_top = a.checked_mul(n)? >= n_total;
                if n % x != 0 && !is_top {
                    return None;
                }
                count.push((
                    Atom::Digit {
                        a: a.checked_mul(x)?,
                        n: ceil_div(n, x),
                    },
                    1,
                ));
                within.push((Atom::Digit { a, n: x.min(n) }, w));
            } else {
                return None;
            }
        }
        let carry_bound = within.iter().try_fold(0i64, |acc, (atom, w)| {
            acc.checked_add((atom.range() - 1).checked_mul(*w)?)
        })?;
        (carry_bound < t).then_some((count, within))
    }
}

/// The offset function of `array` as `Σ atom × stride`, canonicalised, with the
/// logical coordinates given as digits of `k`.
fn canonical_offsets(
    memory: &PhysicalLayout,
    logical_digits: &[Atom],
    n_total: i64,
) -> Vec<(Atom, i64)> {
    let mut coordinates: Vec<Coordinate> = memory
        .physical_order()
        .iter()
        .map(|&d| Coordinate {
            terms: vec![(logical_digits[d].clone(), 1)],
            size: memory.logical_dims()[d],
        })
        .collect();
    for step in memory.steps() {
        for _ in 0..step.prepended {
            coordinates.insert(0, Coordinate::constant_zero(1));
        }
        let mut entries = step.tile.dims.clone();
        while let Some(j) = entries
            .iter()
            .position(|d| *d == super::shape::TileDim::Combine)
        {
            let i = coordinates.len() - entries.len() + j;
            let minor = coordinates.remove(i + 1);
            let major = coordinates.remove(i);
            coordinates.insert(i, Coordinate::merge(major, minor));
            entries.remove(j);
        }
        let untouched = coordinates.len() - step.sizes.len();
        let tiled = coordinates.split_off(untouched);
        let mut withins = Vec::with_capacity(tiled.len());
        for (coordinate, &t) in tiled.into_iter().zip(&step.sizes) {
            let (count, within) = coordinate.split(t, n_total);
            coordinates.push(count);
            withins.push(within);
        }
        coordinates.extend(withins);
    }
    // Row-major strides of the final coordinates.
    let mut terms = Vec::new();
    let mut stride = 1i64;
    for coordinate in coordinates.iter().rev() {
        for (atom, w) in &coordinate.terms {
            terms.push((atom.clone(), w * stride));
        }
        stride *= coordinate.size;
    }
    canonicalize(terms, n_total)
}

/// Sorts digits by `a`, merges neighbours contiguous in both `k` and memory, and clamps
/// each digit's range to what `k < n_total` allows (`(k div a) mod n` is `k div a` when
/// `n >= ⌈n_total/a⌉`), so that equal functions get equal forms.
fn canonicalize(terms: Vec<(Atom, i64)>, n_total: i64) -> Vec<(Atom, i64)> {
    let clamp = |atom: Atom| match atom {
        Atom::Digit { a, n } => Atom::Digit {
            a,
            n: n.min(ceil_div(n_total, a)),
        },
        opaque => opaque,
    };
    let mut terms: Vec<(Atom, i64)> = terms
        .into_iter()
        .map(|(atom, stride)| (clamp(atom), stride))
        .filter(|(atom, _)| atom.range() > 1)
        .collect();
    terms.sort();
    let mut out: Vec<(Atom, i64)> = Vec::with_capacity(terms.len());
    for (atom, stride) in terms {
        if let (Some((last, s0)), Atom::Digit { a, n }) = (out.last_mut(), &atom) {
            if let Atom::Digit { a: a0, n: n0 } = *last {
                if *a == a0 * n0 && stride == *s0 * n0 {
                    *last = clamp(Atom::Digit { a: a0, n: n0 * n });
                    continue;
                }
            }
        }
        out.push((atom, stride));
    }
    out
}

/// What the symbolic comparison alone can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolicVerdict {
    /// Sizes, widths, memory spaces and every element's offset agree.
    Bitcast,
    /// Some element moves, or the buffers differ in size, width or memory space.
    Copy,
    /// A ragged split left opaque terms that differ; only enumeration can tell.
    Undecided,
}

/// The symbolic comparison of docs/tiled-layouts.md §7, with no enumeration of elements.
pub fn symbolic_verdict(
    from: &PhysicalLayout,
    to: &PhysicalLayout,
    how: Correspondence<'_>,
) -> SymbolicVerdict {
    if from.bits_per_element() != to.bits_per_element()
        || from.bytes() != to.bytes()
        || from.layout().memory_space != to.layout().memory_space
        || from.logical_elements() != to.logical_elements()
    {
        return SymbolicVerdict::Copy;
    }
    let n_total = to.logical_elements();
    if n_total == 0 {
        return SymbolicVerdict::Bitcast;
    }
    let to_dims = to.logical_dims();
    let from_dims = from.logical_dims();
    let to_digits = row_major_digits(to_dims);
    let from_digits: Vec<Atom> = match how {
        Correspondence::Reshape => row_major_digits(from_dims),
        Correspondence::Transpose(perm) => {
            let rank = from_dims.len();
            if perm.len() != rank || to_dims.len() != rank {
                return SymbolicVerdict::Copy;
            }
            let mut digits = vec![Atom::Digit { a: 1, n: 1 }; rank];
            let mut seen = vec![false; rank];
            for (i, &p) in perm.iter().enumerate() {
                match usize::try_from(p).ok().filter(|&p| p < rank && !seen[p]) {
                    Some(p) if from_dims[p] == to_dims[i] => {
                        seen[p] = true;
                        digits[p] = to_digits[i].clone();
                    }
                    _ => return SymbolicVerdict::Copy,
                }
            }
            digits
        }
    };
    let from_form = canonical_offsets(from, &from_digits, n_total);
    let to_form = canonical_offsets(to, &to_digits, n_total);
    let has_opaque = |form: &[(Atom, i64)]| form.iter().any(|(a, _)| matches!(a, Atom::Opaque(_)));
    if from_form == to_form {
        SymbolicVerdict::Bitcast
    } else if has_opaque(&from_form) || has_opaque(&to_form) {
        SymbolicVerdict::Undecided
    } else {
        SymbolicVerdict::Copy
    }
}

/// Digits `(k div stride) mod size` of a row-major index over `dims`.
fn row_major_digits(dims: &[i64]) -> Vec<Atom> {
    let mut digits = Vec::with_capacity(dims.len());
    let mut stride = 1i64;
    for &d in dims.iter().rev() {
        digits.push(Atom::Digit { a: stride, n: d });
        stride = stride.saturating_mul(d);
    }
    digits.reverse();
    digits
}

/// Whether `to` can be a bitcast of `from` under `how`: identical physical bytes for every
/// element, the same padded size, element width and memory space.
pub fn is_bitcast(
    from: &ArrayShape,
    to: &ArrayShape,
    how: Correspondence<'_>,
) -> Result<bool, TilingError> {
    let from_memory = PhysicalLayout::new(from)?;
    let to_memory = PhysicalLayout::new(to)?;
    Ok(match symbolic_verdict(&from_memory, &to_memory, how) {
        SymbolicVerdict::Bitcast => true,
        SymbolicVerdict::Copy => false,
        SymbolicVerdict::Undecided => {
            to_memory.logical_elements() <= BRUTE_FORCE_LIMIT
                && brute_force(&from_memory, &to_memory, how)
        }
    })
}

/// Whether `reshape` from `from` to `to` moves no byte, tiles included: XLA's
/// `ShapeUtil::ReshapeIsBitcast`, exact under tiles. False for dynamic dims, whose sizes
/// are known only at run time, and for layouts the memory map refuses.
pub fn reshape_is_bitcast(from: &ArrayShape, to: &ArrayShape) -> bool {
    is_static(from) && is_static(to) && is_bitcast(from, to, Correspondence::Reshape) == Ok(true)
}

/// Whether `transpose` of `from` with `permutation` to `to` moves no byte, tiles included:
/// XLA's `ShapeUtil::TransposeIsBitcast`, exact under tiles. False as
/// [`reshape_is_bitcast`] is, and for a `permutation` that is not one of `from`'s dims.
pub fn transpose_is_bitcast(from: &ArrayShape, to: &ArrayShape, permutation: &[i64]) -> bool {
    let how = Correspondence::Transpose(permutation);
    is_static(from) && is_static(to) && is_bitcast(from, to, how) == Ok(true)
}

fn is_static(array: &ArrayShape) -> bool {
    array.dims.iter().all(|d| !d.is_dynamic())
}

/// Compares every element's offset on both sides.
pub fn brute_force(from: &PhysicalLayout, to: &PhysicalLayout, how: Correspondence<'_>) -> bool {
    let to_dims = to.logical_dims();
    let from_dims = from.logical_dims();
    let n_total = to.logical_elements();
    let mut to_index = vec![0i64; to_dims.len()];
    let mut from_index = vec![0i64; from_dims.len()];
    for k in 0..n_total {
        let mut rest = k;
        for (slot, &d) in to_index.iter_mut().zip(to_dims).rev() {
            *slot = rest % d;
            rest /= d;
        }
        match how {
            Correspondence::Reshape => {
                let mut rest = k;
                for (slot, &d) in from_index.iter_mut().zip(from_dims).rev() {
                    *slot = rest % d;
                    rest /= d;
                }
            }
            Correspondence::Transpose(perm) => {
                for (i, &p) in perm.iter().enumerate() {
                    from_index[p as usize] = to_index[i];
                }
            }
        }
        if from.linear_index(&from_index) != to.linear_index(&to_index) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(text: &str) -> ArrayShape {
        crate::parse_array_shape(text).unwrap()
    }

    fn reshape(from: &str, to: &str) -> bool {
        is_bitcast(&array(from), &array(to), Correspondence::Reshape).unwrap()
    }

    fn transpose(from: &str, to: &str, perm: &[i64]) -> bool {
        is_bitcast(&array(from), &array(to), Correspondence::Transpose(perm)).unwrap()
    }

    #[test]
    fn c1_to_c10_reshapes() {
        assert!(reshape(
            "f32[4,6,8,128]{3,2,1,0:T(8,128)}",
            "f32[24,8,128]{2,1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[16,128]{1,0:T(8,128)}",
            "f32[2,8,128]{2,1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[16,128]{1,0:T(8,128)}",
            "f32[4,4,128]{2,1,0:T(4,128)}"
        ));
        assert!(!reshape(
            "f32[16,128]{1,0:T(8,128)}",
            "f32[4,4,128]{2,1,0:T(8,128)}"
        ));
        assert!(!reshape(
            "f32[16,256]{1,0:T(8,128)}",
            "f32[4,4,256]{2,1,0:T(4,128)}"
        ));
        assert!(!reshape(
            "f32[8,1,128]{2,1,0:T(8,128)}",
            "f32[1,8,128]{2,1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[8,1,128]{2,1,0:T(1,128)}",
            "f32[1,8,128]{2,1,0:T(8,128)}"
        ));
        assert!(!reshape(
            "f32[8,1,128]{2,1,0:T(2,128)}",
            "f32[1,8,128]{2,1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[8,1,128]{2,0,1:T(8,128)}"
        ));
        assert!(!reshape(
            "bf16[8,128]{1,0:T(8,128)(2,1)}",
            "bf16[8,1,128]{2,1,0:T(2,128)(2,1)}"
        ));
        assert!(reshape(
            "bf16[8,128]{1,0:T(8,128)(2,1)}",
            "bf16[8,1,128]{2,0,1:T(8,128)(2,1)}"
        ));
        assert!(!reshape(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[8,128,1]{2,1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[8,128,1]{1,0,2:T(8,128)}"
        ));
        assert!(reshape(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[8,128,1]{1,2,0:T(1,128)}"
        ));
    }

    #[test]
    fn c11_c12_transposes() {
        let from = "f32[2,3,8,128]{3,2,1,0:T(8,128)}";
        assert!(transpose(
            from,
            "f32[3,2,8,128]{3,2,0,1:T(8,128)}",
            &[1, 0, 2, 3]
        ));
        assert!(!transpose(
            from,
            "f32[3,2,8,128]{3,2,1,0:T(8,128)}",
            &[1, 0, 2, 3]
        ));
        assert!(transpose(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[128,8]{0,1:T(8,128)}",
            &[1, 0]
        ));
        assert!(!transpose(
            "f32[8,128]{1,0:T(8,128)}",
            "f32[128,8]{1,0:T(8,128)}",
            &[1, 0]
        ));
    }

    #[test]
    fn c13_to_c28_tiles_and_rank_changes() {
        assert!(reshape(
            "bf16[16,128]{1,0:T(8,128)(2,1)}",
            "bf16[2048]{0:T(1024)(128)(2,1)}"
        ));
        assert!(!reshape(
            "bf16[2048]{0:T(1024)(128)(2,1)}",
            "bf16[2048]{0:T(1024)}"
        ));
        assert!(reshape("f32[2048]{0:T(1024)}", "f32[16,128]{1,0:T(8,128)}"));
        assert!(!reshape("f32[1000]{0:T(1024)}", "f32[8,125]{1,0:T(8,128)}"));
        assert!(!reshape("f32[300]{0:T(512)}", "f32[3,100]{1,0:T(4,128)}"));
        assert!(reshape("f32[5,128]{1,0:T(8,128)}", "f32[640]{0:T(1024)}"));
        assert!(reshape("f32[3,128]{1,0:T(4,128)}", "f32[384]{0:T(512)}"));
        assert!(!reshape(
            "f32[2,3,128]{2,1,0:T(4,128)}",
            "f32[6,128]{1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[2,4,128]{2,1,0:T(4,128)}",
            "f32[8,128]{1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[2,8,100]{2,1,0:T(8,128)}",
            "f32[16,100]{1,0:T(8,128)}"
        ));
        assert!(!reshape(
            "f32[2,5,100]{2,1,0:T(8,128)}",
            "f32[10,100]{1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[16,256]{1,0:T(8,128)}",
            "f32[2,8,2,128]{3,1,2,0:T(8,128)}"
        ));
        assert!(!reshape(
            "f32[16,256]{1,0:T(8,128)}",
            "f32[2,8,2,128]{3,2,1,0:T(2,128)}"
        ));
        assert!(reshape(
            "f32[8,256]{1,0:T(8,128)}",
            "f32[8,2,128]{2,0,1:T(8,128)}"
        ));
        assert!(transpose(
            "f32[8,2,128]{2,0,1:T(8,128)}",
            "f32[2,8,128]{2,1,0:T(8,128)}",
            &[1, 0, 2]
        ));
        assert!(reshape(
            "f32[16,256]{1,0:T(8,128)}",
            "f32[16,2,128]{2,1,0:T(8,*,128)}"
        ));
        assert!(!reshape(
            "f32[16,256]{1,0:T(8,128)}",
            "f32[16,2,128]{2,1,0:T(2,128)}"
        ));
        assert!(reshape(
            "s8[32,128]{1,0:T(8,128)(4,1)}",
            "s8[8,4,128]{2,1,0:T(4,128)(4,1)}"
        ));
        assert!(reshape(
            "bf16[256]{0:T(256)(128)(2,1)}",
            "bf16[2,128]{1,0:T(2,128)(2,1)}"
        ));
        assert!(reshape("f32[256]{0:T(256)}", "f32[2,128]{1,0:T(2,128)}"));
        assert!(!reshape("f32[256]{0:T(256)}", "f32[2,128]{1,0:T(8,128)}"));
    }

    #[test]
    fn c29_untiled_xla_cases() {
        assert!(!reshape("f32[3,2,2]{0,1,2}", "f32[6,2]{0,1}"));
        assert!(reshape("f32[1,16,17,3]{3,2,1,0}", "f32[16,51]{1,0}"));
        assert!(transpose(
            "f32[3,7,6,4]{3,2,1,0}",
            "f32[3,6,4,7]{2,1,3,0}",
            &[0, 2, 3, 1]
        ));
        assert!(!reshape("f32[16,17,3]{2,1,0}", "f32[51,16]{0,1}"));
    }

    #[test]
    fn c30_widths_must_match() {
        assert!(reshape(
            "f32[16,128]{1,0:T(8,128)}",
            "s32[16,128]{1,0:T(8,128)}"
        ));
        assert!(!reshape(
            "bf16[16,128]{1,0:T(8,128)(2,1)}",
            "f32[16,128]{1,0:T(8,128)}"
        ));
    }

    #[test]
    fn ragged_dims_kept_unchanged_are_bitcasts() {
        assert!(reshape(
            "f32[2,8,130]{2,1,0:T(8,128)}",
            "f32[16,130]{1,0:T(8,128)}"
        ));
        assert!(reshape(
            "f32[5,130]{1,0:T(8,128)}",
            "f32[5,130]{1,0:T(8,128)}"
        ));
        assert!(!reshape(
            "f32[5,130]{1,0:T(8,128)}",
            "f32[5,130]{1,0:T(8,128)S(1)}"
        ));
    }
}
