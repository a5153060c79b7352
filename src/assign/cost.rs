//! The cost model layout assignment minimizes, public so that a user can price a layout or
//! a whole module the way the pass does.
//!
//! - An array costs its padded bytes under its layout, exactly as [`PhysicalLayout::bytes`]
//!   counts them (every tile, sub-byte packing, `E(n)`, `L(n)`).
//! - A relayout (a `copy`, or a `reshape` or `transpose` that is no bitcast) costs the bytes it
//!   moves: it reads its operand and writes its result, padding included.
//! - A module costs the padded bytes of every buffer its instructions define plus the bytes
//!   its relayouts move ([`module_cost`]).
//! - Some consumers read an operand in a layout of their own ([`OperandPreference`]); an
//!   operand in another layout is copied first, which costs what that copy moves.
//!
//! Only the two most-minor physical dims decide how a TPU tile pads an array, so the
//! candidates for an array's minor_to_major ([`candidates`]) are: the descending layout with
//! size-1 dims moved most-major (the pass's rule before it chose), then each choice of the
//! minor and second-minor dims with the other dims kept descending, size-1 dims most-major.

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::ir::attrs::ConvDimensionNumbers;
use crate::ir::module::{Computation, Instruction, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::ArrayShape;
use crate::ir::{PhysicalLayout, Target};

/// What a module's layouts cost, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ModuleCost {
    /// Every buffer instructions define, padding included.
    pub padded_bytes: i64,
    /// The same buffers without padding.
    pub unpadded_bytes: i64,
    /// What copies, and reshapes and transposes that are not bitcasts, read and write.
    pub moved_bytes: i64,
    /// What the copies would cost (read, write and buffer) that would give each dot and
    /// convolution operand, and each convolution result, the layout its consumer prefers
    /// ([`operand_preference`], [`result_preference`]) where it does not have it.
    pub unmet_preference_bytes: i64,
}

impl ModuleCost {
    /// The quantity layout assignment minimizes: padded bytes, bytes moved and unmet
    /// preferences.
    pub fn total(&self) -> i64 {
        self.padded_bytes
            .saturating_add(self.moved_bytes)
            .saturating_add(self.unmet_preference_bytes)
    }
}

/// Padded bytes of `array` under its own layout; `None` for an array with an unbounded dim
/// or a layout that does not fit it.
pub fn array_bytes(array: &ArrayShape) -> Option<i64> {
    PhysicalLayout::new(array).ok().map(|memory| memory.bytes())
}

/// What a relayout from `from` to `to` moves: both arrays, padding included.
pub fn relayout_bytes(from: &ArrayShape, to: &ArrayShape) -> i64 {
    array_bytes(from)
        .unwrap_or(0)
        .saturating_add(array_bytes(to).unwrap_or(0))
}

/// `array` with `minor_to_major` and the target's tiles for it; other layout attributes
/// (memory space, ...) are kept.
pub fn laid_out(array: &ArrayShape, minor_to_major: Vec<i64>, target: &Target) -> ArrayShape {
    let mut layout = array.layout.clone().unwrap_or_default();
    layout.minor_to_major = minor_to_major;
    layout.tiles.clear();
    layout.element_size_in_bits = 0;
    target.tile(ArrayShape {
        element_type: array.element_type,
        dims: array.dims.clone(),
        layout: Some(layout),
    })
}

/// The descending minor_to_major with size-1 dims moved most-major: a degenerate dim in a
/// tiled position pads to a whole tile, and moved major it costs nothing.
pub fn descending_minor_to_major(array: &ArrayShape) -> Vec<i64> {
    let rank = array.rank() as i64;
    let unit = |d: i64| array.dims.get(d as usize).and_then(|d| d.extent()) == Some(1);
    let mut minor_to_major: Vec<i64> = (0..rank).rev().filter(|&d| !unit(d)).collect();
    minor_to_major.extend((0..rank).rev().filter(|&d| unit(d)));
    minor_to_major
}

/// The minor_to_majors worth considering for `array`, the descending one first: every
/// choice of minor and second-minor dim, the others descending with size-1 dims most-major.
/// Rank 0 and 1 have one layout. Rank r gives at most r(r-1) + 1 candidates.
pub fn candidates(array: &ArrayShape) -> Vec<Vec<i64>> {
    let descending = descending_minor_to_major(array);
    let mut out = vec![descending.clone()];
    if array.rank() < 2 {
        return out;
    }
    for &minor in &descending {
        for &second in &descending {
            if minor == second {
                continue;
            }
            let mut minor_to_major = vec![minor, second];
            minor_to_major.extend(descending.iter().filter(|&&d| d != minor && d != second));
            if !out.contains(&minor_to_major) {
                out.push(minor_to_major);
            }
        }
    }
    out
}

/// The candidate with the fewest padded bytes under `target`, the earliest on ties (so the
/// descending layout whenever nothing pads less).
pub fn best_minor_to_major(array: &ArrayShape, target: &Target) -> Vec<i64> {
    let mut best: Option<(i64, Vec<i64>)> = None;
    for candidate in candidates(array) {
        let bytes = array_bytes(&laid_out(array, candidate.clone(), target)).unwrap_or(i64::MAX);
        if best.as_ref().is_none_or(|(b, _)| bytes < *b) {
            best = Some((bytes, candidate));
        }
    }
    best.map_or_else(|| descending_minor_to_major(array), |(_, m)| m)
}

/// The minor_to_major for an array of `to_dims` that makes a reshape from `from` (with its
/// layout) keep every element's place, ignoring tiles, as XLA's `ShapeUtil::AlignLayouts`
/// finds it: the dims of both sides are matched in groups of equal product (common
/// factors); each group of `from` must be physically contiguous and in logical order, and
/// the matching group of the result takes its place. Size-1 dims go most-major. `None`
/// when no layout does it.
pub fn aligned_minor_to_major(from: &ArrayShape, to_dims: &[i64]) -> Option<Vec<i64>> {
    let from_dims = from.extents()?;
    let from_m2m = from.layout_or_default().minor_to_major.clone();
    let kept = |dims: &[i64]| -> Vec<usize> { (0..dims.len()).filter(|&d| dims[d] != 1).collect() };
    let (a, b) = (kept(&from_dims), kept(to_dims));
    // Common factors: consecutive runs of non-unit dims whose products agree.
    let mut group_of_a = vec![usize::MAX; from_dims.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let (mut pa, mut pb) = (1i64, 1i64);
        let mut group_b = Vec::new();
        loop {
            if pa <= pb && i < a.len() {
                pa = pa.checked_mul(from_dims[a[i]])?;
                group_of_a[a[i]] = groups.len();
                i += 1;
            } else if j < b.len() {
                pb = pb.checked_mul(to_dims[b[j]])?;
                group_b.push(b[j]);
                j += 1;
            } else {
                return None;
            }
            if pa == pb && (i == a.len() || j == b.len() || pa > 1) {
                break;
            }
        }
        if pa != pb {
            return None;
        }
        groups.push(group_b);
    }
    // Walk `from` minor to major: each group must be contiguous and in logical order.
    let physical: Vec<usize> = from_m2m
        .iter()
        .filter_map(|&d| usize::try_from(d).ok())
        .filter(|&d| from_dims.get(d).is_some_and(|&n| n != 1))
        .collect();
    let mut out: Vec<i64> = Vec::with_capacity(to_dims.len());
    let mut k = 0;
    while k < physical.len() {
        let group = group_of_a[physical[k]];
        let members: Vec<usize> = a
            .iter()
            .copied()
            .filter(|&d| group_of_a[d] == group)
            .collect();
        // Minor to major, a group's dims run from its last logical dim to its first.
        for (offset, &d) in members.iter().rev().enumerate() {
            if physical.get(k + offset) != Some(&d) {
                return None;
            }
        }
        k += members.len();
        out.extend(groups.get(group)?.iter().rev().map(|&d| d as i64));
    }
    let rank = to_dims.len() as i64;
    out.extend((0..rank).rev().filter(|&d| to_dims[d as usize] == 1));
    (out.len() == to_dims.len()).then_some(out)
}

/// A layout a consumer needs of one operand: the named dims (ignoring size-1 dims, which
/// any order holds) must be the most-minor physical dims, in any order among themselves.
///
/// - `dot`: an operand's non-batch dims (contracting and free) minor, batch dims major, so
///   that every batch element is a whole number of matrix tiles for the matrix unit. XLA's
///   GPU layout assignment states the same rule for its matmuls (batch dims major, row and
///   column dims minor and consecutive, `gpu_layout_assignment.cc`); XLA's TPU backend is
///   not public, and real TPU dumps agree (`[B,S,H,D]` attention operands laid out
///   `{3,1,2,0}`, batch `B,H` major).
/// - `convolution`: the input's batch and feature dims minor, the kernel's input and output
///   feature dims minor, spatial dims major, as real TPU convolution programs lay them out
///   (`bf16[14,40,100,128]{3,0,2,1}`, `f32[128,256,896,18]{0,3,2,1}`). Among the layouts
///   that hold it, real TPU dumps use one order: feature, then batch (input feature, then
///   output feature for the kernel), then the spatial dims from the last to the first
///   (`bf16[1,20,256,2,1,4,288,1]{2,6,3,1,0,7,5,4}` for the input labels `34f501b2`),
///   which is [`OperandPreference::order`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandPreference {
    /// The dims that must be most minor, in any order among themselves.
    pub minor_dims: Vec<i64>,
    /// The whole minor_to_major a consumer uses when the choice is free (empty when it
    /// states none): ties between layouts that hold the preference go to it.
    pub order: Vec<i64>,
}

impl OperandPreference {
    /// Whether `array`'s layout already holds the preference.
    pub fn holds(&self, array: &ArrayShape) -> bool {
        self.holds_for(array, &array.layout_or_default().minor_to_major)
    }

    /// Whether `minor_to_major` holds the preference for an array of `array`'s dims.
    pub fn holds_for(&self, array: &ArrayShape, minor_to_major: &[i64]) -> bool {
        let unit = |d: i64| array.dims.get(d as usize).and_then(|d| d.extent()) == Some(1);
        let mut seen_major = false;
        for &d in minor_to_major.iter().filter(|&&d| !unit(d)) {
            if self.minor_dims.contains(&d) {
                if seen_major {
                    return false;
                }
            } else {
                seen_major = true;
            }
        }
        true
    }

    /// The layout to copy `array` to when its own does not hold the preference: the
    /// cheapest under `target` of the layouts that hold it, and on a tie its own
    /// minor_to_major with the named dims moved minor, each part in its order. A descending
    /// `[B,S,H,D]` attention operand with batch dims `B,H` becomes `{3,1,2,0}` when `D` fills
    /// the lanes, as XLA lays it out; with `D = 64`, `{1,3,2,0}` pads less.
    pub fn wanted_for(&self, array: &ArrayShape, target: &Target) -> Vec<i64> {
        let (mut moved, major): (Vec<i64>, Vec<i64>) = array
            .layout_or_default()
            .minor_to_major
            .iter()
            .copied()
            .partition(|d| self.minor_dims.contains(d));
        moved.extend(major);
        let mut best: Option<(i64, Vec<i64>)> = None;
        let stated = (self.order.len() == array.rank()).then(|| self.order.clone());
        for candidate in std::iter::once(moved)
            .chain(stated)
            .chain(candidates(array))
        {
            if !self.holds_for(array, &candidate) {
                continue;
            }
            let bytes =
                array_bytes(&laid_out(array, candidate.clone(), target)).unwrap_or(i64::MAX);
            if best.as_ref().is_none_or(|(b, _)| bytes < *b) {
                best = Some((bytes, candidate));
            }
        }
        best.map_or_else(|| descending_minor_to_major(array), |(_, m)| m)
    }
}

/// The layout `user` needs of its operand in `slot` (of rank `rank`), if it needs one.
pub fn operand_preference(
    user: &Instruction,
    slot: usize,
    rank: usize,
) -> Option<OperandPreference> {
    let all = |excluded: &[i64]| -> Vec<i64> {
        (0..rank as i64).filter(|d| !excluded.contains(d)).collect()
    };
    let (minor_dims, spatial) = match user.opcode {
        Opcode::Dot => {
            let batch = match slot {
                0 => user.int_list_attribute("lhs_batch_dims"),
                1 => user.int_list_attribute("rhs_batch_dims"),
                _ => return None,
            }
            .unwrap_or_default();
            (all(&batch), Vec::new())
        }
        Opcode::Convolution => {
            let labels = ConvDimensionNumbers::parse(user.attribute("dim_labels")?).ok()?;
            match slot {
                0 => (
                    vec![labels.input_feature_dimension, labels.input_batch_dimension],
                    labels.input_spatial_dimensions.clone(),
                ),
                1 => (
                    vec![
                        labels.kernel_input_feature_dimension,
                        labels.kernel_output_feature_dimension,
                    ],
                    labels.kernel_spatial_dimensions.clone(),
                ),
                _ => return None,
            }
        }
        _ => return None,
    };
    preference(minor_dims, &spatial, rank)
}

/// A preference for `minor_dims` minor in a layout of `rank`; with `spatial` dims, the order
/// `minor_dims` then the spatial dims from the last to the first.
fn preference(minor_dims: Vec<i64>, spatial: &[i64], rank: usize) -> Option<OperandPreference> {
    let mut order = Vec::new();
    if !spatial.is_empty() {
        order = minor_dims.clone();
        order.extend(spatial.iter().rev());
        if order.len() != rank {
            order.clear();
        }
    }
    (rank >= 2 && minor_dims.len() < rank).then_some(OperandPreference { minor_dims, order })
}

/// The layout a `convolution` writes its result in without a relayout: its batch and
/// feature dims minor, spatial dims major, as real TPU dumps lay out convolution results
/// (`s32[32,2,256]{2,0,1}` for `dim_labels=bf0_i0o->b0f`, `bf16[32,8,2,128]{3,1,2,0}` for
/// `0fb1_io01->0b1f`; the compiled form of a dot is a convolution too). A `dot` states no
/// preference: its result dims already put the batch dims first, and nothing public says the
/// matrix unit cannot write the other orders.
pub fn result_preference(instruction: &Instruction) -> Option<OperandPreference> {
    let rank = instruction.shape.as_array()?.rank();
    if instruction.opcode != Opcode::Convolution {
        return None;
    }
    let labels = ConvDimensionNumbers::parse(instruction.attribute("dim_labels")?).ok()?;
    let minor_dims = vec![
        labels.output_feature_dimension,
        labels.output_batch_dimension,
    ];
    preference(minor_dims, &labels.output_spatial_dimensions, rank)
}

/// Whether `instruction` defines a buffer of its own rather than naming another's: tuples,
/// get-tuple-elements, bitcasts and the parameters of called computations alias buffers
/// defined elsewhere.
pub fn defines_buffer(computation: &Computation, instruction: &Instruction) -> bool {
    let callee_parameter = !computation.is_entry && instruction.opcode == Opcode::Parameter;
    !callee_parameter
        && !matches!(
            instruction.opcode,
            Opcode::Tuple | Opcode::GetTupleElement | Opcode::Bitcast
        )
}

/// What `module`'s layouts cost as it stands.
pub fn module_cost(module: &Module, target: &Target) -> ModuleCost {
    let mut cost = ModuleCost::default();
    let mut sizes: FxHashMap<*const ArrayShape, Option<(i64, i64)>> = FxHashMap::default();
    let mut size = |array: &ArrayShape| {
        *sizes.entry(array as *const ArrayShape).or_insert_with(|| {
            PhysicalLayout::new(array)
                .ok()
                .map(|memory| (memory.bytes(), memory.unpadded_bytes()))
        })
    };
    for computation in module.computations() {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if defines_buffer(computation, instruction) {
                for array in instruction.shape.leaves() {
                    if let Some((padded, unpadded)) = size(array) {
                        cost.padded_bytes = cost.padded_bytes.saturating_add(padded);
                        cost.unpadded_bytes = cost.unpadded_bytes.saturating_add(unpadded);
                    }
                }
            }
            if matches!(
                instruction.opcode,
                Opcode::Copy | Opcode::Reshape | Opcode::Transpose
            ) {
                let operand = computation.operands(id).first().copied();
                let read = operand.and_then(|o| {
                    computation
                        .instruction(o)
                        .shape
                        .as_array()
                        .and_then(&mut size)
                });
                let written = instruction.shape.as_array().and_then(&mut size);
                let moved = read.map_or(0, |r| r.0) + written.map_or(0, |w| w.0);
                cost.moved_bytes = cost.moved_bytes.saturating_add(moved);
            }
            if matches!(instruction.opcode, Opcode::Dot | Opcode::Convolution) {
                let mut unmet = |array: &ArrayShape, preference: Option<OperandPreference>| {
                    let Some(preference) = preference.filter(|p| !p.holds(array)) else {
                        return;
                    };
                    let wanted = laid_out(array, preference.wanted_for(array, target), target);
                    let copy = relayout_bytes(array, &wanted)
                        .saturating_add(array_bytes(&wanted).unwrap_or(0));
                    cost.unmet_preference_bytes = cost.unmet_preference_bytes.saturating_add(copy);
                };
                for (slot, operand) in computation.operands(id).into_iter().enumerate() {
                    if let Some(array) = computation.instruction(operand).shape.as_array() {
                        unmet(array, operand_preference(instruction, slot, array.rank()));
                    }
                }
                if let Some(array) = instruction.shape.as_array() {
                    unmet(array, result_preference(instruction));
                }
            }
        }
    }
    cost
}

/// The padded bytes of `module`'s buffers, copies left out, if each had its own cheapest
/// layout: a lower bound for any assignment of the same instructions. (Only the two
/// most-minor dims decide the padding, and [`candidates`] holds every choice of them.)
pub fn padding_bound(module: &Module, target: &Target) -> i64 {
    let mut memo: FxHashMap<ArrayShape, i64> = FxHashMap::default();
    let mut total = 0i64;
    for computation in module.computations() {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if !defines_buffer(computation, instruction) || instruction.opcode == Opcode::Copy {
                continue;
            }
            for array in instruction.shape.leaves() {
                let key = ArrayShape {
                    layout: None,
                    ..array.clone()
                };
                let bytes = *memo.entry(key).or_insert_with(|| {
                    let best = best_minor_to_major(array, target);
                    array_bytes(&laid_out(array, best, target)).unwrap_or(0)
                });
                total = total.saturating_add(bytes);
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(text: &str) -> ArrayShape {
        crate::parse_array_shape(text).expect("a valid shape")
    }

    #[test]
    fn candidates_start_descending_and_cover_every_minor_pair() {
        let shape = array("f32[2,28,28,3]");
        let all = candidates(&shape);
        assert_eq!(all[0], vec![3, 2, 1, 0]);
        // Twelve ordered pairs of minor and second-minor dims; (3, 2) is the descending one.
        assert_eq!(all.len(), 12);
        assert!(all.contains(&vec![2, 0, 3, 1]));
    }

    #[test]
    fn best_layout_puts_the_long_dim_in_lanes() {
        let target = Target::default_tpu();
        assert_eq!(
            best_minor_to_major(&array("f32[512,3]"), &target),
            vec![0, 1]
        );
        assert_eq!(
            best_minor_to_major(&array("f32[128,8]"), &target),
            vec![0, 1]
        );
        assert_eq!(
            best_minor_to_major(&array("f32[8,128]"), &target),
            vec![1, 0]
        );
        // A size-1 dim goes most-major, not into the tiled pair.
        assert_eq!(
            best_minor_to_major(&array("bf16[128,4096,1]"), &target),
            vec![1, 0, 2]
        );
        // 3 in the lanes pads 128/3; 28 in the lanes and 2 in the sublanes pads 128/28.
        assert_eq!(
            best_minor_to_major(&array("f32[2,28,28,3]"), &target),
            vec![2, 0, 3, 1]
        );
    }

    #[test]
    fn dot_operands_want_batch_dims_major() {
        let module = crate::parse_module(
            "ENTRY e {\n a = f32[2,128,8,64]{3,2,1,0} parameter(0)\n b = f32[2,128,8,64]{3,2,1,0} parameter(1)\n ROOT d = f32[2,8,128,128]{3,2,1,0} dot(a, b), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}\n}\n",
        )
        .expect("parses");
        let entry = module.entry();
        let root = entry.instruction(entry.root().expect("a root"));
        let preference = operand_preference(root, 0, 4).expect("a dot operand");
        assert_eq!(preference.minor_dims, vec![1, 3]);
        let a = array("f32[2,128,8,64]{3,2,1,0}");
        assert!(!preference.holds(&a));
        assert!(preference.holds_for(&a, &[3, 1, 2, 0]));
        let target = Target::default_tpu();
        assert_eq!(preference.wanted_for(&a, &target), vec![1, 3, 2, 0]);
        let full = array("f32[2,128,8,128]{3,2,1,0}");
        assert_eq!(preference.wanted_for(&full, &target), vec![3, 1, 2, 0]);
    }

    #[test]
    fn aligned_layouts_make_reshapes_keep_elements_in_place() {
        // Splitting the minor dim of a transposed matrix keeps its groups where they were.
        let from = array("f32[6,8]{0,1}");
        assert_eq!(
            aligned_minor_to_major(&from, &[2, 3, 8]),
            Some(vec![1, 0, 2])
        );
        // Size-1 dims go most-major.
        let from = array("f32[16,128]{1,0}");
        assert_eq!(
            aligned_minor_to_major(&from, &[16, 128, 1]),
            Some(vec![1, 0, 2])
        );
        // A group split across the physical order has no aligned layout.
        let from = array("f32[4,6]{0,1}");
        assert_eq!(aligned_minor_to_major(&from, &[24]), None);
        // [B,S,H*D]{2,1,0} to [B,S,H,D] is descending.
        let from = array("f32[2,128,512]{2,1,0}");
        assert_eq!(
            aligned_minor_to_major(&from, &[2, 128, 8, 64]),
            Some(vec![3, 2, 1, 0])
        );
        // Merging dims 0 and 1 needs them adjacent and in order in the physical order.
        let from = array("bf16[2,4,288,8,1024,1,1]{4,2,3,1,0,6,5}");
        assert_eq!(
            aligned_minor_to_major(&from, &[8, 288, 8, 1024]),
            Some(vec![3, 1, 2, 0])
        );
        let from = array("bf16[2,4,288,8,1024,1,1]{4,2,0,3,1,6,5}");
        assert_eq!(aligned_minor_to_major(&from, &[8, 288, 8, 1024]), None);
    }

    #[test]
    fn relayouts_cost_both_sides_padded() {
        let from = array("f32[8,3]{1,0:T(8,128)}");
        let to = array("f32[8,3]{0,1:T(4,128)}");
        assert_eq!(relayout_bytes(&from, &to), 8 * 128 * 4 + 4 * 128 * 4);
    }
}
