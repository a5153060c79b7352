//! What layout assignment did and what the layouts cost: copies and the bytes they move,
//! bitcasts, padded against unpadded bytes, and the arrays that waste the most on padding.

use serde::Serialize;

pub use super::cost::defines_buffer;
use crate::ir::module::{Computation, Module};
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::{PhysicalLayout, Target};

/// How many offenders the report lists.
const OFFENDERS: usize = 10;

/// What an assignment did to a module, and what its layouts cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AssignReport {
    /// The target's name, `tpu-v5e`.
    pub target: String,
    /// Copies the pass inserted to change a value's layout.
    pub copies_inserted: usize,
    /// Bytes the inserted copies read and write, padding included.
    pub copy_bytes: i64,
    /// Bitcasts the pass inserted to change a layout without moving data.
    pub bitcasts_inserted: usize,
    /// Reshapes and transposes that became bitcasts because they move no data.
    pub bitcasts_from_reshapes: usize,
    /// All array results of all instructions, padding included.
    pub padded_bytes: i64,
    /// The same arrays' bytes without padding.
    pub unpadded_bytes: i64,
    /// The arrays with the most padding, worst first.
    pub worst_padding: Vec<PaddingOffender>,
    /// What the assigned layouts cost (`cost::module_cost`).
    pub cost: super::cost::ModuleCost,
    /// What the rule before choosing costs on the same module ([`super::Policy::Descending`]),
    /// under [`super::Policy::MinimizeCost`].
    pub descending_cost: Option<super::cost::ModuleCost>,
    /// Whether the descending rule's layouts were kept because the chosen ones cost more
    /// (see [`super::assign_layouts_with`]).
    pub kept_descending: bool,
    /// The padded bytes of the result's buffers but its copies, each at its own cheapest
    /// layout: a lower bound (`cost::padding_bound`).
    pub bound_padded_bytes: i64,
}

/// An array that wastes bytes on padding, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaddingOffender {
    /// The computation the array is in.
    pub computation: String,
    /// The instruction whose result (or a tuple leaf of it) is the array.
    pub instruction: String,
    /// The array's shape, layout included.
    pub shape: String,
    /// Its bytes under its layout, padding included.
    pub padded_bytes: i64,
    /// Its bytes without padding.
    pub unpadded_bytes: i64,
    /// Why the first tile pads the array.
    pub reason: String,
    /// One line on what would avoid the padding.
    pub advice: String,
}

impl AssignReport {
    pub(super) fn measure(&mut self, module: &Module, target: &Target) {
        self.target = target.name().to_string();
        let mut padding = Padding::keeping(OFFENDERS);
        for computation in module.computations() {
            padding.add_computation(computation);
        }
        let padding = padding.finish(OFFENDERS);
        self.padded_bytes = padding.padded_bytes;
        self.unpadded_bytes = padding.unpadded_bytes;
        self.worst_padding = padding.worst_padding;
    }

    /// A few lines for people, for stderr.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "layout assignment for {}: {} copies inserted ({} bytes moved), {} bitcasts inserted, {} reshapes/transposes made bitcasts\n",
            self.target, self.copies_inserted, self.copy_bytes, self.bitcasts_inserted, self.bitcasts_from_reshapes
        );
        let waste = self.padded_bytes - self.unpadded_bytes;
        let percent = if self.padded_bytes > 0 {
            100.0 * waste as f64 / self.padded_bytes as f64
        } else {
            0.0
        };
        out += &format!(
            "arrays: {} bytes padded, {} bytes unpadded ({percent:.1}% padding)\n",
            self.padded_bytes, self.unpadded_bytes
        );
        out += &format!(
            "cost: {} bytes = {} padded + {} moved by copies and relayouting reshapes/transposes + {} for dot/convolution layouts not met\n",
            self.cost.total(),
            self.cost.padded_bytes,
            self.cost.moved_bytes,
            self.cost.unmet_preference_bytes
        );
        if self.kept_descending {
            out += "the descending layouts were kept: the chosen ones cost more\n";
        }
        if let Some(descending) = &self.descending_cost {
            out += &format!(
                "descending layouts (the rule before choosing) would cost {} bytes = {} padded + {} moved + {} not met\n",
                descending.total(),
                descending.padded_bytes,
                descending.moved_bytes,
                descending.unmet_preference_bytes
            );
        }
        out += &format!(
            "bound: {} bytes, every array but the copies at its own cheapest layout\n",
            self.bound_padded_bytes
        );
        if !self.worst_padding.is_empty() {
            out += "worst padding:\n";
            for offender in &self.worst_padding {
                out += &format!(
                    "  {} bytes for {} ({} in {}): {}\n",
                    offender.padded_bytes,
                    offender.shape,
                    offender.instruction,
                    offender.computation,
                    offender.reason
                );
            }
        }
        out
    }
}

/// Padded and unpadded bytes of a set of computations, and the arrays that waste most.
/// Each distinct array shape is measured once (modules repeat a few shapes many times), and
/// only the offenders kept by [`Padding::finish`] are turned into text.
#[derive(Default)]
pub struct Padding<'a> {
    /// The bytes of every array measured, padding included.
    pub padded_bytes: i64,
    /// The same arrays' bytes without padding.
    pub unpadded_bytes: i64,
    /// Worst first (ties by computation, then instruction name), at most the limit given to
    /// [`Padding::finish`]; empty until then.
    pub worst_padding: Vec<PaddingOffender>,
    /// Padded and unpadded bytes by the address of an array: the module is borrowed for
    /// `'a`, so an address names one array, and instructions share their shapes' allocations,
    /// so the few hundred distinct shapes are measured once each without hashing their
    /// contents.
    sizes: rustc_hash::FxHashMap<*const ArrayShape, Option<(i64, i64)>>,
    /// Excess bytes, computation, instruction and array of the padded arrays that may still
    /// be among the worst: every one, or with [`Padding::keeping`] the worst `limit` so far
    /// and those added since they were chosen.
    candidates: Vec<Candidate<'a>>,
    /// How many offenders [`Padding::finish`] will keep, when known from the start.
    limit: Option<usize>,
    /// The most candidates held at once.
    #[cfg(test)]
    most_held: usize,
}

/// A padded array: its excess bytes, computation, instruction and shape.
type Candidate<'a> = (i64, &'a str, &'a str, &'a ArrayShape);

/// The first `limit` of `items` as a stable sort by `order` would give them. Only those are
/// sorted: a module may have a padded array for most of its instructions.
fn first_in_order<T>(
    items: Vec<T>,
    limit: usize,
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    if limit == 0 {
        return Vec::new();
    }
    // The place in the list breaks the remaining ties, as a stable sort would.
    let mut placed: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    let total = |a: &(usize, T), b: &(usize, T)| order(&a.1, &b.1).then(a.0.cmp(&b.0));
    if placed.len() > limit {
        placed.select_nth_unstable_by(limit - 1, total);
        placed.truncate(limit);
    }
    placed.sort_unstable_by(total);
    placed.into_iter().map(|(_, item)| item).collect()
}

/// Worst first; names break ties so the order is deterministic (the leaves of one
/// instruction stay in their order).
fn worse_first(a: &Candidate<'_>, b: &Candidate<'_>) -> std::cmp::Ordering {
    b.0.cmp(&a.0)
        .then_with(|| a.1.cmp(b.1))
        .then_with(|| a.2.cmp(b.2))
}

impl<'a> Padding<'a> {
    /// A measure that will keep `limit` offenders: it holds only those that may still be
    /// among them, not an entry for every padded array of the module.
    pub fn keeping(limit: usize) -> Padding<'a> {
        Padding {
            limit: Some(limit),
            ..Padding::default()
        }
    }

    /// Adds the arrays of every instruction of `computation` that defines a buffer: tuples,
    /// get-tuple-elements, bitcasts and parameters of non-entry computations alias buffers
    /// defined elsewhere and are skipped. Arrays whose layout cannot be laid out (dynamic
    /// dims, overflow) are skipped too.
    pub fn add_computation(&mut self, computation: &'a Computation) {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if !defines_buffer(computation, instruction) {
                continue;
            }
            for array in instruction.shape.leaves() {
                let size = *self
                    .sizes
                    .entry(array as *const ArrayShape)
                    .or_insert_with(|| {
                        PhysicalLayout::new(array)
                            .ok()
                            .map(|memory| (memory.bytes(), memory.unpadded_bytes()))
                    });
                let Some((padded, unpadded)) = size else {
                    continue;
                };
                self.padded_bytes = self.padded_bytes.saturating_add(padded);
                self.unpadded_bytes = self.unpadded_bytes.saturating_add(unpadded);
                if padded > unpadded {
                    self.candidates.push((
                        padded - unpadded,
                        &computation.name,
                        instruction.name(),
                        array,
                    ));
                    self.keep_the_worst();
                }
            }
        }
    }

    /// Keeps the worst `limit` candidates so far, first and in order, so that ties are still
    /// broken by the order they were added in, once there are enough more than `limit` to
    /// make the cut worth it. Cut as they come, not once a computation is done: a long
    /// computation's padded arrays held at once were most of what measuring held.
    fn keep_the_worst(&mut self) {
        #[cfg(test)]
        {
            self.most_held = self.most_held.max(self.candidates.len());
        }
        if let Some(limit) = self.limit {
            if self.candidates.len() >= limit.saturating_mul(2).saturating_add(1024) {
                let candidates = std::mem::take(&mut self.candidates);
                self.candidates = first_in_order(candidates, limit, worse_first);
            }
        }
    }

    /// Sorts the offenders worst first and keeps `limit` of them, as text; no more than a
    /// measure made [`Padding::keeping`] a limit has kept.
    pub fn finish(mut self, limit: usize) -> Padding<'a> {
        let candidates = first_in_order(std::mem::take(&mut self.candidates), limit, worse_first);
        self.worst_padding = candidates
            .into_iter()
            .filter_map(|(_, computation, instruction, array)| {
                let memory = PhysicalLayout::new(array).ok()?;
                let (reason, advice) = padding_reason(array, &memory);
                Some(PaddingOffender {
                    computation: computation.to_string(),
                    instruction: instruction.to_string(),
                    shape: Shape::Array(array.clone()).to_string(),
                    padded_bytes: memory.bytes(),
                    unpadded_bytes: memory.unpadded_bytes(),
                    reason,
                    advice,
                })
            })
            .collect();
        self
    }
}

/// Why the first tile pads this array, in words, and one line of advice on avoiding it.
fn padding_reason(array: &ArrayShape, memory: &PhysicalLayout) -> (String, String) {
    let physical = memory.physical_dims();
    let Some(step) = memory.steps().first() else {
        return (
            "tail padding (L)".to_string(),
            "the L(n) tail rounds the buffer up; nothing to change in the dims".to_string(),
        );
    };
    let tiled = &step.combined_dims[step.combined_dims.len() - step.sizes.len()..];
    if array.rank() == 0 {
        return (
            format!(
                "a scalar takes a whole {}-element tile",
                memory.padded_elements()
            ),
            "batch scalars into one array (or keep them untiled) if there are many".to_string(),
        );
    }
    let mut reasons = Vec::new();
    let mut advice = None;
    let k = tiled.len();
    for (j, (&dim, &size)) in tiled.iter().zip(&step.sizes).enumerate() {
        if dim % size == 0 {
            continue;
        }
        let padded = (dim + size - 1) / size * size;
        let position = match (physical.len(), k - 1 - j) {
            (1, _) => {
                advice.get_or_insert_with(|| {
                    format!("make the length a multiple of {size}, or fold it into a 2-D shape")
                });
                "rank-1 length".to_string()
            }
            (_, 0) => {
                advice.get_or_insert_with(|| minor_dim_advice(&physical, dim, size));
                "minor dim".to_string()
            }
            (_, 1) if dim == 1 => {
                advice.get_or_insert_with(|| {
                    "move the size-1 dim major or reshape it away (a bitcast)".to_string()
                });
                reasons.push("size-1 dim in second-minor position".to_string());
                continue;
            }
            (_, 1) => {
                advice.get_or_insert_with(|| {
                    format!("make the second-minor dim a multiple of {size} (or merge it with a major dim)")
                });
                "second-minor dim".to_string()
            }
            _ => "dim".to_string(),
        };
        reasons.push(format!("{position} {dim} padded to {padded}"));
    }
    if reasons.is_empty() {
        (
            "sub-tile packing".to_string(),
            "narrow elements pack in sub-tiles; a wider minor dim fills them".to_string(),
        )
    } else {
        let advice =
            advice.unwrap_or_else(|| "make the tiled dims multiples of the tile".to_string());
        (reasons.join(", "), advice)
    }
}

/// Advice for a minor dim of `dim` elements that the tile pads to a multiple of `size`.
fn minor_dim_advice(physical: &[i64], dim: i64, size: i64) -> String {
    // A major dim that is a multiple of the tile would not pad if it were minor.
    let major = &physical[..physical.len().saturating_sub(1)];
    match major.iter().rev().find(|&&d| d % size == 0) {
        Some(&other) => format!(
            "a layout with the {other}-element dim minor instead of the {dim}-element one avoids this (transpose, or let assign choose)"
        ),
        None => format!(
            "grow the minor dim from {dim} to a multiple of {size} (e.g. by batching) or merge it with another dim"
        ),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Selecting the first few and sorting only them gives what a stable sort of the
        /// whole list gives, ties included.
        #[test]
        fn first_in_order_is_a_stable_sort_cut_short(
            items in proptest::collection::vec((0i64..4, 0u8..3), 0..40),
            limit in 0usize..45,
        ) {
            let by_key = |a: &(i64, u8), b: &(i64, u8)| b.0.cmp(&a.0);
            let mut sorted = items.clone();
            sorted.sort_by(by_key);
            sorted.truncate(limit);
            prop_assert_eq!(super::first_in_order(items, limit, by_key), sorted);
        }
    }

    /// A measure that keeps only the worst so far finds the offenders, ties included, that
    /// one keeping every padded array finds, across computations and cuts.
    #[test]
    fn keeping_a_limit_finds_the_offenders_keeping_all_finds() {
        // Many arrays share an excess, and names order the ties, so the cuts must keep ties
        // in their order.
        let mut text = String::from("HloModule m\n");
        for computation in 0..3 {
            let entry = if computation == 2 { "ENTRY " } else { "" };
            text.push_str(&format!("{entry}c{computation} {{\n"));
            let mut names = Vec::new();
            for i in 0..1500 {
                let (rows, columns) = (1 + i % 7, 1 + (i * 5) % 11);
                let shape = format!("f32[{rows},{columns}]{{1,0:T(8,128)}}");
                text.push_str(&format!("  p{i} = {shape} parameter({i})\n"));
                text.push_str(&format!("  n{i} = {shape} negate(p{i})\n"));
                names.push(format!("n{i}"));
            }
            text.push_str(&format!("  ROOT t = tuple({})\n}}\n", names.join(", ")));
        }
        let module = match crate::parse_module(&text) {
            Ok(module) => module,
            Err(errors) => panic!("{errors:?}"),
        };
        let mut all = super::Padding::default();
        let mut kept = super::Padding::keeping(super::OFFENDERS);
        for computation in module.computations() {
            all.add_computation(computation);
            kept.add_computation(computation);
        }
        // 6000 padded arrays (the entry's parameters define buffers, the others' do not); no
        // more than the cut's are held at once, however many a computation has.
        assert_eq!(all.most_held, 6000);
        assert!(
            kept.most_held <= 2 * super::OFFENDERS + 1024,
            "{}",
            kept.most_held
        );
        let (all, kept) = (all.finish(super::OFFENDERS), kept.finish(super::OFFENDERS));
        assert_eq!(all.worst_padding.len(), super::OFFENDERS);
        assert_eq!(all.worst_padding, kept.worst_padding);
        assert_eq!(all.padded_bytes, kept.padded_bytes);
    }
}
