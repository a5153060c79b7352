//! How close an assignment comes to what XLA's TPU compiler chose: erase the layouts of a
//! module XLA laid out, assign them again, and compare each array's minor_to_major and tiles
//! with XLA's. `examples/assign_quality.rs` prints the figures; a test holds them.
//!
//! ```
//! use hlo_layout::assign::{assign_layouts_with, quality, AssignOptions};
//! use hlo_layout::ir::Target;
//!
//! let text = "HloModule m\n\nENTRY e {\n  p = f32[8,256]{1,0:T(8,128)} parameter(0)\n  \
//!             ROOT n = f32[8,256]{0,1:T(8,128)} negate(p)\n}\n";
//! let xla = hlo_layout::parse_module(text).unwrap();
//! let mut ours = quality::erase_layouts(&xla, true);
//! let target = Target::default_tpu();
//! assign_layouts_with(&mut ours, &target, &AssignOptions::default()).unwrap();
//! let agreement = quality::agreement(&xla, &ours);
//! assert_eq!((agreement.compared, agreement.agreeing), (2, 1));
//! assert_eq!(agreement.misses[0].instruction, "n");
//! ```

use std::sync::Arc;

use crate::ir::module::Module;
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::shape::{Tile, TileDim};
use crate::ir::{PhysicalLayout, Target};

use super::cost;

/// The parts of a layout that layout assignment chooses: minor_to_major and tiles (memory
/// spaces come later, from memory-space assignment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The dims from most minor to most major.
    pub minor_to_major: Vec<i64>,
    /// The tiles, outermost first; empty for an untiled layout.
    pub tiles: Vec<Tile>,
}

impl Choice {
    fn of(array: &ArrayShape) -> Choice {
        let layout = array.layout_or_default();
        Choice {
            minor_to_major: layout.minor_to_major.clone(),
            tiles: layout.tiles.clone(),
        }
    }
}

/// An array whose layout differs from XLA's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Miss {
    /// The computation the array is in.
    pub computation: String,
    /// The instruction whose result (or a tuple leaf of it) is the array.
    pub instruction: String,
    /// The array's rank.
    pub rank: usize,
    /// What XLA chose.
    pub xla: Choice,
    /// What the assignment chose.
    pub ours: Choice,
}

/// How many of the arrays XLA tiled have the same [`Choice`] in both modules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Arrays XLA tiled that both modules have.
    pub compared: usize,
    /// Of those, arrays laid out the same in both.
    pub agreeing: usize,
    /// The same, for arrays of rank 2 or more (where there is a choice to make).
    pub compared_rank2: usize,
    /// Of those, arrays of rank 2 or more laid out the same in both.
    pub agreeing_rank2: usize,
    /// Every array that disagrees, in the order of XLA's module.
    pub misses: Vec<Miss>,
}

impl Agreement {
    /// Adds another module's counts.
    pub fn add(&mut self, other: Agreement) {
        self.compared += other.compared;
        self.agreeing += other.agreeing;
        self.compared_rank2 += other.compared_rank2;
        self.agreeing_rank2 += other.agreeing_rank2;
        self.misses.extend(other.misses);
    }

    /// The share of arrays that agree, in percent (100 when nothing was compared).
    pub fn percent(&self) -> f64 {
        percent(self.agreeing, self.compared)
    }

    /// The same for arrays of rank 2 or more.
    pub fn percent_rank2(&self) -> f64 {
        percent(self.agreeing_rank2, self.compared_rank2)
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn erased(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(array) => Shape::Array(ArrayShape {
            layout: None,
            ..array.clone()
        }),
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(erased).collect()),
        other => other.clone(),
    }
}

/// `module` without the layouts of its instructions. With `keep_entry`, the entry's layouts
/// stay as `entry_computation_layout` (written from the entry's parameters and root when the
/// header has none, which is how a dump without one states them); without, that attribute
/// goes too, for `--entry-layouts auto`.
pub fn erase_layouts(module: &Module, keep_entry: bool) -> Module {
    let mut erased_module = module.clone();
    if keep_entry {
        if erased_module
            .attribute("entry_computation_layout")
            .is_none()
            && module.has_header
        {
            let entry = module.entry();
            let parameters: Vec<String> = entry
                .parameters()
                .iter()
                .map(|&(_, id)| entry.instruction(id).shape.to_string())
                .collect();
            if let Some(root) = entry.root() {
                let text = format!(
                    "{{({})->{}}}",
                    parameters.join(", "),
                    entry.instruction(root).shape
                );
                erased_module.set_attribute("entry_computation_layout", &text);
            }
        }
    } else {
        erased_module
            .attributes
            .retain(|a| &*a.name != "entry_computation_layout");
    }
    let ids: Vec<_> = erased_module.computation_ids().collect();
    for comp in ids {
        let computation = erased_module.computation_mut(comp);
        for id in computation.order().to_vec() {
            let shape = erased(&computation.instruction(id).shape);
            computation.instruction_mut(id).shape = Arc::new(shape);
        }
    }
    erased_module
}

/// Compares every array XLA tiled in `xla` with the same array (same computation and
/// instruction names, same position in a tuple) in `ours`.
pub fn agreement(xla: &Module, ours: &Module) -> Agreement {
    let mut result = Agreement::default();
    let by_name: std::collections::HashMap<&str, _> = ours
        .computation_ids()
        .map(|id| (ours.computation(id).name.as_str(), id))
        .collect();
    for comp in xla.computation_ids() {
        let computation = xla.computation(comp);
        let Some(&mine) = by_name.get(computation.name.as_str()) else {
            continue;
        };
        let mine = ours.computation(mine);
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            let Some(other) = mine.find(instruction.name()) else {
                continue;
            };
            let other = mine.instruction(other);
            for (theirs, ours) in instruction.shape.leaves().zip(other.shape.leaves()) {
                let tiled = theirs.layout.as_ref().is_some_and(|l| !l.tiles.is_empty());
                if !tiled {
                    continue;
                }
                let (theirs_choice, ours_choice) = (Choice::of(theirs), Choice::of(ours));
                let rank2 = theirs.rank() >= 2;
                result.compared += 1;
                result.compared_rank2 += usize::from(rank2);
                if theirs_choice == ours_choice {
                    result.agreeing += 1;
                    result.agreeing_rank2 += usize::from(rank2);
                } else {
                    result.misses.push(Miss {
                        computation: computation.name.to_string(),
                        instruction: instruction.name().to_string(),
                        rank: theirs.rank(),
                        xla: theirs_choice,
                        ours: ours_choice,
                    });
                }
            }
        }
    }
    result
}

/// Padded and logical bytes of the rank >= 2 arrays that instructions define; without the
/// entry's parameters when `skip_parameters` (their layouts are given, not chosen).
pub fn rank2_bytes(module: &Module, skip_parameters: bool) -> (i64, i64) {
    let (mut padded, mut logical) = (0i64, 0i64);
    for computation in module.computations() {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if !cost::defines_buffer(computation, instruction) {
                continue;
            }
            if skip_parameters && instruction.opcode == Opcode::Parameter {
                continue;
            }
            for array in instruction.shape.leaves() {
                if array.rank() < 2 {
                    continue;
                }
                if let Ok(memory) = PhysicalLayout::new(array) {
                    padded += memory.bytes();
                    logical += memory.unpadded_bytes();
                }
            }
        }
    }
    (padded, logical)
}

/// The padded bytes of the rank >= 2 buffers, each at its own cheapest layout.
pub fn rank2_bound(module: &Module, target: &Target) -> i64 {
    let mut total = 0;
    for computation in module.computations() {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if !cost::defines_buffer(computation, instruction) {
                continue;
            }
            for array in instruction.shape.leaves().filter(|a| a.rank() >= 2) {
                let best = cost::best_minor_to_major(array, target);
                total += cost::array_bytes(&cost::laid_out(array, best, target)).unwrap_or(0);
            }
        }
    }
    total
}

/// The TPU generation whose tiles a dump shows: TPUs before v4 double the tiles of scalars
/// (`s32[]{:T(256)}`), later ones are `default`.
pub fn dump_target(module: &Module, default: &Target) -> Target {
    let doubled = module.computation_ids().any(|comp| {
        let computation = module.computation(comp);
        computation.order().iter().any(|&id| {
            let instruction = computation.instruction(id);
            instruction.opcode != Opcode::Tuple
                && instruction.shape.leaves().any(|array| {
                    array.rank() == 0
                        && array.layout.as_ref().is_some_and(|layout| {
                            layout.tiles.first().is_some_and(|tile| {
                                let elements: i64 = tile
                                    .dims
                                    .iter()
                                    .map(|d| match d {
                                        TileDim::Size(size) => *size,
                                        TileDim::Combine => 1,
                                    })
                                    .product();
                                let bits = i64::from(array.element_type.bit_width());
                                elements * bits == 8192
                            })
                        })
                })
        })
    });
    if doubled {
        Target::from_name("tpu-v3").unwrap_or_else(|| default.clone())
    } else {
        default.clone()
    }
}
