//! What layout assignment did and what the layouts cost: copies and the bytes they move,
//! bitcasts, padded against unpadded bytes, and the arrays that waste the most on padding.

use serde::Serialize;

use crate::ir::module::Module;
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::{PhysicalLayout, Target};

/// How many offenders the report lists.
const OFFENDERS: usize = 10;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AssignReport {
    pub target: String,
    pub copies_inserted: usize,
    /// Bytes the inserted copies write (their padded result sizes).
    pub copy_bytes: i64,
    pub bitcasts_inserted: usize,
    /// Reshapes and transposes that became bitcasts because they move no data.
    pub bitcasts_from_reshapes: usize,
    /// All array results of all instructions, padding included.
    pub padded_bytes: i64,
    pub unpadded_bytes: i64,
    /// The arrays with the most padding, worst first.
    pub worst_padding: Vec<PaddingOffender>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaddingOffender {
    pub computation: String,
    pub instruction: String,
    pub shape: String,
    pub padded_bytes: i64,
    pub unpadded_bytes: i64,
    pub reason: String,
}

impl AssignReport {
    pub(super) fn measure(&mut self, module: &Module, target: &Target) {
        self.target = target.name().to_string();
        // Modules repeat a few shapes many times: each is measured once.
        let mut sizes: rustc_hash::FxHashMap<&ArrayShape, Option<(i64, i64)>> =
            rustc_hash::FxHashMap::default();
        // Candidates stay borrowed; only the few reported are turned into text.
        let mut candidates: Vec<(i64, &str, &str, &ArrayShape)> = Vec::new();
        for computation in &module.computations {
            for &id in computation.order() {
                let instruction = computation.instruction(id);
                // These alias buffers that other instructions define.
                let callee_parameter =
                    !computation.is_entry && instruction.opcode == Opcode::Parameter;
                if callee_parameter
                    || matches!(
                        instruction.opcode,
                        Opcode::Tuple | Opcode::GetTupleElement | Opcode::Bitcast
                    )
                {
                    continue;
                }
                for array in instruction.shape.leaves() {
                    let size = *sizes.entry(array).or_insert_with(|| {
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
                        candidates.push((
                            padded - unpadded,
                            &computation.name,
                            &instruction.name,
                            array,
                        ));
                    }
                }
            }
        }
        // Worst first; names break ties so the order is deterministic (stable for the
        // leaves of one instruction).
        candidates.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.cmp(b.1))
                .then_with(|| a.2.cmp(b.2))
        });
        self.worst_padding = candidates
            .into_iter()
            .take(OFFENDERS)
            .filter_map(|(_, computation, instruction, array)| {
                let memory = PhysicalLayout::new(array).ok()?;
                Some(PaddingOffender {
                    computation: computation.to_string(),
                    instruction: instruction.to_string(),
                    shape: Shape::Array(array.clone()).to_string(),
                    padded_bytes: memory.bytes(),
                    unpadded_bytes: memory.unpadded_bytes(),
                    reason: padding_reason(array, &memory),
                })
            })
            .collect();
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

/// Why the first tile pads this array, in words.
fn padding_reason(array: &ArrayShape, memory: &PhysicalLayout) -> String {
    let physical = memory.physical_dims();
    let Some(step) = memory.steps().first() else {
        return "tail padding (L)".to_string();
    };
    let tiled = &step.combined_dims[step.combined_dims.len() - step.sizes.len()..];
    let mut reasons = Vec::new();
    if array.rank() == 0 {
        return format!(
            "a scalar takes a whole {}-element tile",
            memory.padded_elements()
        );
    }
    let k = tiled.len();
    for (j, (&dim, &size)) in tiled.iter().zip(&step.sizes).enumerate() {
        if dim % size == 0 {
            continue;
        }
        let position = match (physical.len(), k - 1 - j) {
            (1, _) => "rank-1 length".to_string(),
            (_, 0) => "minor dim".to_string(),
            (_, 1) if dim == 1 => {
                reasons.push("size-1 dim in second-minor position".to_string());
                continue;
            }
            (_, 1) => "second-minor dim".to_string(),
            _ => "dim".to_string(),
        };
        let padded = (dim + size - 1) / size * size;
        reasons.push(format!("{position} {dim} padded to {padded}"));
    }
    if reasons.is_empty() {
        "sub-tile packing".to_string()
    } else {
        reasons.join(", ")
    }
}
