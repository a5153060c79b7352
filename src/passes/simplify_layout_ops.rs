//! `simplify-layout-ops`: removes layout operations that move no bytes, and turns the ones
//! that only reinterpret bytes into bitcasts, with the exact tile-aware physical model of
//! [`crate::ir::bitcast`].
//!
//! - `bitcast(bitcast(x))` becomes `bitcast(x)`, and `x` itself when the shapes (layouts
//!   included) are equal.
//! - A `copy`, `reshape` or `transpose` whose result equals its operand's shape and keeps
//!   every element in place is removed.
//! - A `reshape`, `transpose` or `copy` whose every element keeps its physical offset (tiles
//!   and padding included, [`is_bitcast`]) becomes a `bitcast`. Whatever moves a single
//!   byte stays as it is.
//!
//! The pass takes the module's layouts as final, as XLA's passes after layout assignment do
//! (a shape written without a layout has XLA's default one). Run it after layout
//! assignment: XLA's own layout assignment rejects bitcasts it did not create.
//! Left alone: instructions in control dependencies, dynamic shapes, and copies in
//! scheduled modules (`is_scheduled=true`), where copy insertion put them on purpose.
//! Instructions left without users are `dce`'s to remove:
//! `fixpoint(simplify-layout-ops,dce)`.
//!
//! Before (`f32[8,128]` tiled by `(8,128)` is one tile, so the reshape to `f32[1,8,128]`
//! moves nothing, while the transpose moves every element):
//!
//! ```text
//! ENTRY e {
//!   %p = f32[8,128]{1,0:T(8,128)} parameter(0)
//!   %r = f32[1,8,128]{2,1,0:T(8,128)} reshape(%p)
//!   %c = f32[1,8,128]{2,1,0:T(8,128)} copy(%r)
//!   %t = f32[128,8]{1,0:T(8,128)} transpose(%p), dimensions={1,0}
//!   ROOT %tuple = (f32[1,8,128]{2,1,0:T(8,128)}, f32[128,8]{1,0:T(8,128)}) tuple(%c, %t)
//! }
//! ```
//!
//! After:
//!
//! ```text
//! ENTRY e {
//!   %p = f32[8,128]{1,0:T(8,128)} parameter(0)
//!   %bitcast = f32[1,8,128]{2,1,0:T(8,128)} bitcast(%p)
//!   %t = f32[128,8]{1,0:T(8,128)} transpose(%p), dimensions={1,0}
//!   ROOT %tuple = (f32[1,8,128]{2,1,0:T(8,128)}, f32[128,8]{1,0:T(8,128)}) tuple(%bitcast, %t)
//! }
//! ```

use crate::ir::bitcast::{is_bitcast, Correspondence};
use crate::ir::module::{Computation, InstrId, Instruction};
use crate::ir::{ArrayShape, Module, Opcode, Shape};
use crate::pass::{Changed, Pass, PassContext, PassError};

/// The pass's name in `--passes`.
pub const NAME: &str = "simplify-layout-ops";
/// What `hlo-layout passes` says the pass does.
pub const DESCRIPTION: &str = "Folds bitcast chains, removes copies, reshapes and transposes that move no bytes, and makes physically identical ones bitcasts.";

/// The `simplify-layout-ops` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimplifyLayoutOps;

impl Pass for SimplifyLayoutOps {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn run(&mut self, module: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
        let scheduled = module.attribute("is_scheduled") == Some("true");
        let style = module.style;
        let mut changed = Changed::NO;
        for computation in module.computations_mut() {
            let mut rewriter = Rewriter {
                control: super::control::control_dependent(computation),
                computation,
                style,
                scheduled,
            };
            changed |= rewriter.run()?;
        }
        Ok(changed)
    }
}

struct Rewriter<'a> {
    computation: &'a mut Computation,
    control: Vec<bool>,
    style: crate::ir::module::PrintStyle,
    scheduled: bool,
}

/// What to do with one instruction.
enum Action {
    /// Use the operand instead: the instruction is the identity.
    Forward(InstrId),
    /// Point the bitcast at this operand instead (a chain folded).
    Rewire(InstrId),
    /// Replace with `bitcast(source)`, `source` being no bitcast.
    Bitcast(InstrId),
}

impl Rewriter<'_> {
    fn run(&mut self) -> Result<Changed, PassError> {
        let mut changed = Changed::NO;
        // Print order puts operands first, so a chain folds in one sweep.
        for id in self.computation.order().to_vec() {
            if self.computation.get(id).is_err() || super::control::is_marked(&self.control, id) {
                continue;
            }
            if let Some(action) = self.action(id) {
                self.apply(id, action)?;
                changed = Changed::YES;
            }
        }
        Ok(changed)
    }

    fn action(&self, id: InstrId) -> Option<Action> {
        let instruction = self.computation.instruction(id);
        // A compact tuple-element operand (`%t#0`) is not its producer's shape; leave it.
        if instruction.has_tuple_paths() {
            return None;
        }
        let operands = self.computation.operands(id);
        let &[operand] = operands.as_slice() else {
            return None;
        };
        let from = &self.computation.instruction(operand).shape;
        let to = &instruction.shape;
        match instruction.opcode {
            Opcode::Bitcast => {
                let source = self.bitcast_source(operand);
                if same_physical_shape(&self.computation.instruction(source).shape, to) {
                    Some(Action::Forward(source))
                } else if source != operand {
                    Some(Action::Rewire(source))
                } else {
                    None
                }
            }
            Opcode::Copy if self.scheduled => None,
            Opcode::Copy | Opcode::Reshape => {
                if same_physical_shape(from, to) {
                    Some(Action::Forward(operand))
                } else if moves_nothing(from, to, Correspondence::Reshape, &instruction.opcode) {
                    Some(self.bitcast_of(operand, to))
                } else {
                    None
                }
            }
            Opcode::Transpose => {
                let permutation = instruction.dimensions()?;
                let identity = permutation.iter().enumerate().all(|(i, &d)| d == i as i64);
                let bitcast = moves_nothing(
                    from,
                    to,
                    Correspondence::Transpose(&permutation),
                    &Opcode::Transpose,
                );
                if same_physical_shape(from, to) && (identity || bitcast) {
                    Some(Action::Forward(operand))
                } else if bitcast {
                    Some(self.bitcast_of(operand, to))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// `bitcast(operand)` with the bitcast chain below it folded, or the chain's source when
    /// that already has the shape.
    fn bitcast_of(&self, operand: InstrId, shape: &Shape) -> Action {
        let source = self.bitcast_source(operand);
        if same_physical_shape(&self.computation.instruction(source).shape, shape) {
            Action::Forward(source)
        } else {
            Action::Bitcast(source)
        }
    }

    /// The first non-bitcast value of a chain of bitcasts, stopping at control
    /// dependencies.
    fn bitcast_source(&self, mut id: InstrId) -> InstrId {
        loop {
            let instruction = self.computation.instruction(id);
            if instruction.opcode != Opcode::Bitcast || super::control::is_marked(&self.control, id)
            {
                return id;
            }
            match self.computation.operands(id).as_slice() {
                &[operand] => id = operand,
                _ => return id,
            }
        }
    }

    fn apply(&mut self, id: InstrId, action: Action) -> Result<(), PassError> {
        let old_operand = self.computation.operands(id).first().copied();
        match action {
            Action::Forward(source) => {
                self.replace_all_uses(id, source)?;
                self.remove(id)?;
            }
            Action::Rewire(source) => {
                self.computation.replace_operand(id, 0, source)?;
            }
            Action::Bitcast(source) => {
                let old = self.computation.instruction(id);
                // Its name is made new in the whole module, as XLA keeps names:
                // `computations_mut` links every computation to the module's names.
                let mut bitcast = Instruction::new("bitcast", Opcode::Bitcast, old.shape.clone());
                bitcast.style = self.style;
                // As XLA's `SetupDerivedInstruction`, the replacement keeps these.
                for name in ["metadata", "sharding", "frontend_attributes"] {
                    if let Some(value) = old.attribute(name) {
                        bitcast.set_attribute(name, value);
                    }
                }
                // In the old one's place rather than added beside it, which would grow the
                // graph (sized to its instructions when lowered) to twice its size; `id`
                // takes part in no control dependency (`run` leaves those alone).
                self.computation.replace_in_place(id, bitcast, &[source])?;
            }
        }
        // A bitcast the fold bypassed may now be dead; it has no effects, so it goes.
        if let Some(operand) = old_operand {
            self.remove_dead_bitcasts(operand)?;
        }
        Ok(())
    }

    /// Points every use of `old` at `new`. The uses are rewired straight from the graph's
    /// edges (the order of rewiring does not matter), which spares `users()`'s sort by print
    /// position; `replace_all_uses` then only moves the root.
    fn replace_all_uses(&mut self, old: InstrId, new: InstrId) -> Result<(), PassError> {
        use petgraph::visit::EdgeRef;
        let uses: Vec<(InstrId, u32)> = self
            .computation
            .graph()
            .edges_directed(old.node(), petgraph::Direction::Outgoing)
            .filter_map(|e| Some((self.computation.id_of(e.target())?, *e.weight())))
            .collect();
        for (user, slot) in uses {
            self.computation.replace_operand(user, slot, new)?;
        }
        self.computation.replace_all_uses(old, new)?;
        Ok(())
    }

    fn remove(&mut self, id: InstrId) -> Result<(), PassError> {
        self.computation.remove(id)?;
        Ok(())
    }

    /// Removes `id` and the bitcasts it used while they have no users.
    fn remove_dead_bitcasts(&mut self, mut id: InstrId) -> Result<(), PassError> {
        while let Ok(instruction) = self.computation.get(id) {
            if instruction.opcode != Opcode::Bitcast
                || self.computation.has_users(id)
                || self.computation.root() == Some(id)
                || super::control::is_marked(&self.control, id)
            {
                return Ok(());
            }
            let next = self.computation.operands(id).first().copied();
            self.remove(id)?;
            match next {
                Some(next) => id = next,
                None => return Ok(()),
            }
        }
        Ok(())
    }
}

/// Equal shapes with layouts, a missing layout read as XLA's default.
fn same_physical_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(a), Shape::Array(b)) => {
            a.element_type == b.element_type
                && a.dims == b.dims
                && a.layout_or_default() == b.layout_or_default()
        }
        _ => a == b,
    }
}

/// Whether `to` is exactly `from`'s bytes under `how`. Needs layouts, static dims, and
/// for a copy equal dims (a copy does not reshape).
fn moves_nothing(from: &Shape, to: &Shape, how: Correspondence<'_>, opcode: &Opcode) -> bool {
    let (Shape::Array(from), Shape::Array(to)) = (from, to) else {
        return false;
    };
    let fixed = |s: &ArrayShape| s.layout.is_some() && s.dims.iter().all(|d| !d.is_dynamic());
    if !fixed(from) || !fixed(to) || from.element_type != to.element_type {
        return false;
    }
    if *opcode == Opcode::Copy && from.dims != to.dims {
        return false;
    }
    is_bitcast(from, to, how).unwrap_or(false)
}
