//! The assigner: walks computations from the entry through their call sites, lays out
//! every instruction (chosen in `choose.rs`, hinted by `hints.rs`) and converts operands
//! with `bitcast` or `copy` where a layout differs.

use crate::ir::bitcast::{is_bitcast, Correspondence};
use crate::ir::module::{Computation, ComputationId, InstrId, Instruction, Module};
use crate::ir::opcode::Opcode;
use crate::ir::permutation::transposed_minor_to_major;
use crate::ir::shape::Shape;
use crate::ir::Target;
use crate::verify::header::entry_layout;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

use super::entry::*;
use super::options::*;
use super::prepare::*;
use super::report::AssignReport;
use super::{cost, groups, hints};

/// Assigns layouts once, under `options.policy`, and reports what it did.
pub(super) fn assign_once(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
) -> Result<AssignReport, AssignError> {
    assign_once_reporting(module, target, options, Reported::Everything)
}

/// What [`assign_once_reporting`] measures of the module it assigned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reported {
    /// The whole report.
    Everything,
    /// Only its cost, for a run whose module is thrown away unless it costs less.
    CostOnly,
}

/// [`assign_once`], measuring the result as `reported` says.
pub(super) fn assign_once_reporting(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
    reported: Reported,
) -> Result<AssignReport, AssignError> {
    let mut assigner = Assigner {
        target,
        options: *options,
        sizes: FxHashMap::default(),
        conversions: FxHashMap::default(),
        loop_preferences: FxHashMap::default(),
        opaque_bitcasts: OpaqueBitcasts::default(),
        names: computation_names(module),
        state: vec![State::Pending; module.computations().len()],
        report: AssignReport::default(),
        shapes: FxHashSet::default(),
        derived: FxHashMap::default(),
        bitcasts: FxHashMap::default(),
        hints: hints::Hints::default(),
    };
    let opaque = check_bitcasts(module, target)?;
    materialize_tuple_paths(module);
    decompose_bitcasts(module, &opaque, &mut |shape| assigner.shared(shape));
    assigner.opaque_bitcasts = opaque;
    let entry = module.entry;
    // The header is read once: the pass changes only the instructions until the end.
    let written = module
        .attribute("entry_computation_layout")
        .and_then(entry_layout);
    let auto = options.entry_layouts == EntryLayouts::Auto;
    let (given, result_layout) = if auto {
        (entry_parameter_shapes(module, None, target, true), None)
    } else {
        (
            entry_parameter_shapes(module, written.as_ref(), target, false),
            given_result_shape(module, written.as_ref(), target),
        )
    };
    let given: Vec<Arc<Shape>> = given
        .into_iter()
        .map(|shape| assigner.shared(shape))
        .collect();
    let mut given = given;
    if options.policy == Policy::MinimizeCost {
        assigner.hints = hints::user_hints(module, entry, &given, result_layout.as_ref());
        if auto {
            given = assigner.auto_tuple_parameters(module, given);
        }
    }
    let wanted_root = result_layout.clone().map(Arc::new);
    assigner.computation(module, entry, given, wanted_root)?;
    // Computations nobody reached through a call site (reducers, comparators) keep their
    // own parameter layouts, tiled.
    for id in module.computation_ids().collect::<Vec<_>>() {
        if assigner.assigned_parameters(id).is_none() {
            let computation = module.computation(id);
            let parameters = computation
                .parameters()
                .iter()
                .map(|&(_, p)| {
                    assigner.shared(complete_tiles(&computation.instruction(p).shape, target))
                })
                .collect();
            assigner.computation(module, id, parameters, None)?;
        }
    }
    if let Some(result) = result_layout {
        let computation = module.computation_mut(entry);
        if let Some(root) = computation.root() {
            let converted = assigner.convert(computation, root, &result, root);
            computation.set_root(converted);
        }
    }
    for computation in module.computations_mut() {
        computation.restore_def_before_use();
    }
    update_entry_computation_layout(module, written);
    assigner.report.cost = cost::module_cost(module, target);
    if reported == Reported::Everything {
        assigner.report.measure(module, target);
        assigner.report.bound_padded_bytes = cost::padding_bound(module, target);
    }
    Ok(assigner.report)
}

/// Computations by name; the first of a duplicated name wins, as in `find_computation`.
pub(super) fn computation_names(
    module: &Module,
) -> std::collections::HashMap<String, ComputationId> {
    let mut names = std::collections::HashMap::with_capacity(module.computations().len());
    for (id, computation) in module.computation_ids().zip(module.computations()) {
        names.entry(computation.name.to_string()).or_insert(id);
    }
    names
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum State {
    Pending,
    InProgress,
    /// Assigned, with the parameter shapes it was assigned for.
    Done(Vec<Arc<Shape>>),
}

/// A computation being assigned: its print order and how far through it the assigner is.
pub(super) struct Frame {
    id: ComputationId,
    /// Shared with `groups`, which numbers the same order.
    order: Arc<[InstrId]>,
    next: usize,
    parameters: Vec<Arc<Shape>>,
    /// The layout groups being chosen, under [`Policy::MinimizeCost`].
    groups: Option<groups::Groups>,
}

/// A callee to assign, for these parameter shapes, before its caller can go on; its root
/// will be converted to `wanted_root` if given (a while body's).
pub(super) struct Callee {
    id: ComputationId,
    parameters: Vec<Arc<Shape>>,
    wanted_root: Option<Arc<Shape>>,
}

/// How an assigned shape is derived from another: from the instruction's own shape, or for
/// `Element` from its tuple operand's. With that shape's address, the key of
/// [`Assigner::derived`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Derivation {
    /// The layout this pass prefers for every array ([`Assigner::free_result`]).
    Free,
    /// Arrays of `rank` take `minor_to_major`; others are free.
    Leader {
        rank: usize,
        minor_to_major: Vec<i64>,
    },
    /// Element `index` of a tuple.
    Element(usize),
}

pub(super) struct Assigner<'t> {
    pub(super) target: &'t Target,
    pub(super) options: AssignOptions,
    /// Padded bytes by the address of a shape, each entry holding its shape.
    pub(super) sizes: FxHashMap<usize, (Arc<Shape>, i64)>,
    /// The conversion made of a value to a shape, by the computation's address, the value
    /// and the shared shape's address (every shared shape lives as long as the assigner).
    pub(super) conversions: FxHashMap<(usize, InstrId, usize), InstrId>,
    /// Bitcasts that keep their written layouts ([`check_bitcasts`]).
    pub(super) opaque_bitcasts: OpaqueBitcasts,
    /// What loop bodies prefer of each element of their state (`choose`).
    pub(super) loop_preferences: FxHashMap<(ComputationId, usize), Vec<cost::OperandPreference>>,
    /// Computations by name (the first of a duplicated name), for callees named by attribute.
    pub(super) names: std::collections::HashMap<String, ComputationId>,
    pub(super) state: Vec<State>,
    pub(super) report: AssignReport,
    /// One allocation per distinct assigned shape, shared by every instruction that has it:
    /// a module has a few hundred distinct shapes for tens of thousands of instructions.
    pub(super) shapes: FxHashSet<Arc<Shape>>,
    /// Assigned shapes already derived, by the address of the shape they were derived from
    /// and how. A module asks the same few hundred questions of its shared shapes tens of
    /// thousands of times. Each entry holds its source, so that no address is reused while
    /// it is a key.
    pub(super) derived: FxHashMap<(usize, Derivation), (Arc<Shape>, Arc<Shape>)>,
    /// [`is_bitcast`] of a reshape or transpose, by the addresses of its operand's and result's
    /// shapes and the transpose's permutation; each entry holds both shapes.
    pub(super) bitcasts: FxHashMap<BitcastQuestion, (Arc<Shape>, Arc<Shape>, bool)>,
    /// The layouts users further down want, which settle ties ([`hints`]).
    pub(super) hints: hints::Hints,
}

/// The addresses of a reshape's or transpose's operand and result shapes, with the
/// transpose's permutation: what [`Assigner::is_bitcast_between`] is asked.
pub(super) type BitcastQuestion = (usize, usize, Option<Vec<i64>>);

/// `derived` as the shape of an instruction whose shape is `current`: `current` itself when
/// they are equal, so that an instruction keeps its allocation when nothing changed.
pub(super) fn kept_if_equal(derived: Arc<Shape>, current: &Arc<Shape>) -> Arc<Shape> {
    if Arc::ptr_eq(&derived, current) || *derived != **current {
        derived
    } else {
        Arc::clone(current)
    }
}

/// Whether `shape` is a tuple with an element at `index`.
pub(super) fn has_element(shape: &Shape, index: usize) -> bool {
    matches!(shape, Shape::Tuple(elements) if index < elements.len())
}

/// For an op that cannot change layout: the rank and minor_to_major its outputs and
/// same-rank operands share, taken from the first operand of the outputs' rank.
pub(super) fn layout_leader(result: &Shape, operands: &[Arc<Shape>]) -> Option<(usize, Vec<i64>)> {
    let result_rank = result.leaves().next().map(|leaf| leaf.rank())?;
    operands
        .iter()
        .filter_map(|operand| operand.as_array())
        .find(|operand| operand.rank() == result_rank)
        .map(|leader| {
            (
                result_rank,
                leader.layout_or_default().minor_to_major.clone(),
            )
        })
}

pub(super) fn minor_to_major(shape: &Shape) -> Option<Vec<i64>> {
    shape
        .as_array()
        .map(|array| array.layout_or_default().minor_to_major.clone())
}

impl Assigner<'_> {
    /// Assigns computation `id` for parameters of `parameters`' shapes, and every callee it
    /// reaches that is not assigned yet; the root's shape is read from the module. Callees
    /// are assigned on an explicit stack, not by recursion, so that a chain of calls
    /// thousands deep cannot overflow the thread's stack.
    pub(super) fn computation(
        &mut self,
        module: &mut Module,
        id: ComputationId,
        parameters: Vec<Arc<Shape>>,
        wanted_root: Option<Arc<Shape>>,
    ) -> Result<(), AssignError> {
        let mut stack: Vec<Frame> = Vec::new();
        stack.extend(self.enter(module, id, parameters, wanted_root)?);
        while let Some(frame) = stack.last_mut() {
            let (comp, next) = (frame.id, frame.order.get(frame.next).copied());
            let Some(instr) = next else {
                if let Some(done) = stack.pop() {
                    self.state[done.id.0 as usize] = State::Done(done.parameters);
                }
                continue;
            };
            match self.instruction(module, comp, instr, frame.groups.as_mut())? {
                // The instruction runs again once its callee is assigned.
                Some(callee) => stack.extend(self.enter(
                    module,
                    callee.id,
                    callee.parameters,
                    callee.wanted_root,
                )?),
                None => {
                    if let Some(frame) = stack.last_mut() {
                        frame.next += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// Starts assigning computation `id`: its parameters get `parameters`' shapes. `None`
    /// when it is already assigned.
    pub(super) fn enter(
        &mut self,
        module: &mut Module,
        id: ComputationId,
        parameters: Vec<Arc<Shape>>,
        wanted_root: Option<Arc<Shape>>,
    ) -> Result<Option<Frame>, AssignError> {
        match &self.state[id.0 as usize] {
            State::InProgress => {
                return Err(AssignError::recursion(module.computation(id)));
            }
            State::Done(_) => return Ok(None),
            State::Pending => {}
        }
        self.state[id.0 as usize] = State::InProgress;
        let computation = module.computation_mut(id);
        for (number, parameter) in computation.parameters() {
            if let Some(shape) = usize::try_from(number).ok().and_then(|n| parameters.get(n)) {
                let current = &computation.instruction(parameter).shape;
                let shape = kept_if_equal(Arc::clone(shape), current);
                computation.instruction_mut(parameter).shape = shape;
            }
        }
        let order: Arc<[InstrId]> = Arc::from(computation.order());
        let groups = (self.options.policy == Policy::MinimizeCost).then(|| {
            let free_parameters =
                computation.is_entry && self.options.entry_layouts == EntryLayouts::Auto;
            let order = Arc::clone(&order);
            groups::Groups::new(computation, order, free_parameters, wanted_root)
        });
        Ok(Some(Frame {
            id,
            order,
            next: 0,
            parameters,
            groups,
        }))
    }

    /// What must be assigned before the caller of `callee` can go on: `callee` itself, for
    /// `parameters`, unless it is assigned already.
    pub(super) fn needs(
        &self,
        module: &Module,
        callee: ComputationId,
        parameters: impl FnOnce() -> Vec<Arc<Shape>>,
    ) -> Result<Option<Callee>, AssignError> {
        match &self.state[callee.0 as usize] {
            State::Pending => Ok(Some(Callee {
                id: callee,
                parameters: parameters(),
                wanted_root: None,
            })),
            State::InProgress => Err(AssignError::recursion(module.computation(callee))),
            State::Done(_) => Ok(None),
        }
    }

    /// The shapes of the parameters computation `id` was assigned for, if it was.
    pub(super) fn assigned_parameters(&self, id: ComputationId) -> Option<&[Arc<Shape>]> {
        match &self.state[id.0 as usize] {
            State::Done(parameters) => Some(parameters),
            _ => None,
        }
    }

    pub(super) fn root_shape(module: &Module, id: ComputationId) -> Option<Arc<Shape>> {
        let computation = module.computation(id);
        computation
            .root()
            .map(|root| Arc::clone(&computation.instruction(root).shape))
    }

    /// The operands' shapes, shared with the operands (a reference count each, no copy).
    pub(super) fn operand_shapes(
        module: &Module,
        computation: ComputationId,
        instr: InstrId,
    ) -> Vec<Arc<Shape>> {
        let c = module.computation(computation);
        c.operands(instr)
            .into_iter()
            .map(|o| Arc::clone(&c.instruction(o).shape))
            .collect()
    }

    /// The shape derived from `source` by `how`, shared: worked out once per source
    /// allocation.
    pub(super) fn derive(&mut self, source: &Arc<Shape>, how: Derivation) -> Arc<Shape> {
        let key = (Arc::as_ptr(source) as usize, how);
        if let Some((_, derived)) = self.derived.get(&key) {
            return Arc::clone(derived);
        }
        let target = self.target;
        let derived = match &key.1 {
            Derivation::Free => self.free_result(source),
            Derivation::Leader {
                rank,
                minor_to_major,
            } => map_arrays(source, &|leaf| {
                if leaf.rank() == *rank {
                    cost::laid_out(leaf, minor_to_major.clone(), target)
                } else {
                    cost::laid_out(leaf, cost::descending_minor_to_major(leaf), target)
                }
            }),
            // Callers ask only for an element the tuple has (`has_element`); any other
            // question derives nothing new.
            Derivation::Element(index) => match &**source {
                Shape::Tuple(elements) if *index < elements.len() => elements[*index].clone(),
                _ => return Arc::clone(source),
            },
        };
        let derived = self.shared(derived);
        self.derived
            .insert(key, (Arc::clone(source), Arc::clone(&derived)));
        derived
    }

    /// [`is_bitcast`] of `from` to `to` under a reshape (`permutation` `None`) or a
    /// transpose, worked out once per pair of allocations.
    pub(super) fn is_bitcast_between(
        &mut self,
        from: &Arc<Shape>,
        to: &Arc<Shape>,
        permutation: Option<Vec<i64>>,
    ) -> bool {
        let key = (
            Arc::as_ptr(from) as usize,
            Arc::as_ptr(to) as usize,
            permutation,
        );
        if let Some(&(_, _, verdict)) = self.bitcasts.get(&key) {
            return verdict;
        }
        let verdict = match (from.as_array(), to.as_array()) {
            (Some(from), Some(to)) => {
                let correspondence = match &key.2 {
                    Some(permutation) => Correspondence::Transpose(permutation),
                    None => Correspondence::Reshape,
                };
                is_bitcast(from, to, correspondence).unwrap_or(false)
            }
            _ => false,
        };
        self.bitcasts
            .insert(key, (Arc::clone(from), Arc::clone(to), verdict));
        verdict
    }

    /// The one allocation of `shape` this assignment has made.
    pub(super) fn shared(&mut self, shape: Shape) -> Arc<Shape> {
        if let Some(shared) = self.shapes.get(&shape) {
            return Arc::clone(shared);
        }
        let shared = Arc::new(shape);
        self.shapes.insert(Arc::clone(&shared));
        shared
    }

    /// Asks for a callee to be assigned for the given operand shapes, or converts the
    /// operands to the shapes it was assigned for (the same ones, if this site asked).
    pub(super) fn call_site(
        &mut self,
        module: &mut Module,
        caller: ComputationId,
        instr: InstrId,
        callee: ComputationId,
        operand_slots: std::ops::Range<usize>,
    ) -> Result<Option<Callee>, AssignError> {
        let operands = Self::operand_shapes(module, caller, instr);
        let wanted = || {
            operands
                .get(operand_slots.clone())
                .map(<[Arc<Shape>]>::to_vec)
                .unwrap_or_default()
        };
        if let Some(needed) = self.needs(module, callee, wanted)? {
            return Ok(Some(needed));
        }
        let assigned = self
            .assigned_parameters(callee)
            .map(<[Arc<Shape>]>::to_vec)
            .unwrap_or_default();
        let computation = module.computation_mut(caller);
        for (offset, shape) in assigned.iter().enumerate() {
            let slot = operand_slots.start + offset;
            // Most call sites pass what the callee was assigned for: the same allocation.
            if operands
                .get(slot)
                .is_some_and(|operand| Arc::ptr_eq(operand, shape))
            {
                continue;
            }
            self.convert_operand(computation, instr, slot as u32, shape);
        }
        Ok(None)
    }

    /// Assigns one instruction; `Some` asks for a callee to be assigned first, after which
    /// the instruction is assigned again from the start (every step before is idempotent).
    pub(super) fn instruction(
        &mut self,
        module: &mut Module,
        comp: ComputationId,
        instr: InstrId,
        groups: Option<&mut groups::Groups>,
    ) -> Result<Option<Callee>, AssignError> {
        let target = self.target;
        let (opcode, shape, called) = {
            let i = module.computation(comp).instruction(instr);
            (i.opcode.clone(), Arc::clone(&i.shape), i.called.clone())
        };
        let chosen = groups.and_then(|groups| self.chosen(groups, module, comp, instr));
        let operands = Self::operand_shapes(module, comp, instr);
        let new_shape = match &opcode {
            _ if chosen.is_some() => {
                let minor_to_major = chosen.clone().unwrap_or_default();
                self.derive(
                    &shape,
                    Derivation::Leader {
                        rank: minor_to_major.len(),
                        minor_to_major,
                    },
                )
            }
            Opcode::Parameter => return Ok(None),
            Opcode::Bitcast if self.opaque_bitcasts.contains_key(&(comp.0, instr)) => {
                let (from, to) = self.opaque_bitcasts[&(comp.0, instr)].clone();
                let computation = module.computation_mut(comp);
                self.convert_operand(computation, instr, 0, &from);
                self.shared(to)
            }
            Opcode::Tuple => self.shared(Shape::Tuple(
                operands.iter().map(|o| Shape::clone(o)).collect(),
            )),
            Opcode::GetTupleElement => {
                let index = module
                    .computation(comp)
                    .instruction(instr)
                    .int_attribute("index")
                    .and_then(|index| usize::try_from(index).ok());
                match (operands.first(), index) {
                    (Some(tuple), Some(index)) if has_element(tuple, index) => {
                        self.derive(tuple, Derivation::Element(index))
                    }
                    _ => Arc::clone(&shape),
                }
            }
            Opcode::Call | Opcode::Fusion | Opcode::AsyncStart if called.len() == 1 => {
                let slots = 0..operands.len();
                if let Some(needed) = self.call_site(module, comp, instr, called[0], slots)? {
                    return Ok(Some(needed));
                }
                match opcode {
                    Opcode::AsyncStart => self.shared(complete_tiles(&shape, target)),
                    _ => Self::root_shape(module, called[0]).unwrap_or_else(|| Arc::clone(&shape)),
                }
            }
            Opcode::While if called.len() == 2 => {
                let init = Arc::clone(operands.first().unwrap_or(&shape));
                // The attribute order is condition, body; resolve by name to be sure.
                let (condition, body) = self.while_parts(module, comp, instr, &called);
                if let Some(mut needed) = self.needs(module, body, || vec![init.clone()])? {
                    needed.wanted_root = Some(Arc::clone(&init));
                    return Ok(Some(needed));
                }
                self.force_root(module, body, &init);
                if let Some(needed) = self.needs(module, condition, || vec![init.clone()])? {
                    return Ok(Some(needed));
                }
                init
            }
            Opcode::Conditional => {
                let mut result: Option<Arc<Shape>> = None;
                for (branch_index, &branch) in called.iter().enumerate() {
                    let slot = branch_index + 1;
                    if let Some(needed) =
                        self.call_site(module, comp, instr, branch, slot..slot + 1)?
                    {
                        return Ok(Some(needed));
                    }
                    match &result {
                        None => result = Self::root_shape(module, branch),
                        Some(first) => self.force_root(module, branch, first),
                    }
                }
                result.unwrap_or_else(|| Arc::clone(&shape))
            }
            Opcode::Transpose => {
                let permutation = module.computation(comp).instruction(instr).dimensions();
                match (
                    shape.as_array(),
                    operands.first().and_then(|o| minor_to_major(o)),
                    permutation,
                ) {
                    (Some(array), Some(operand_m2m), Some(permutation)) => {
                        // Result dim i is operand dim permutation[i]: keep the physical order.
                        match transposed_minor_to_major(&operand_m2m, &permutation) {
                            Some(m2m) if m2m.len() == array.rank() => self.derive(
                                &shape,
                                Derivation::Leader {
                                    rank: array.rank(),
                                    minor_to_major: m2m,
                                },
                            ),
                            _ => self.derive(&shape, Derivation::Free),
                        }
                    }
                    _ => self.derive(&shape, Derivation::Free),
                }
            }
            // A variadic reduce's outputs take its first input's layout without the reduced
            // dims, as XLA forces them to (a single output is chosen with the others).
            Opcode::Reduce
                if matches!(*shape, Shape::Tuple(_))
                    && self.options.policy == Policy::MinimizeCost =>
            {
                let reduced = module
                    .computation(comp)
                    .instruction(instr)
                    .dimensions()
                    .unwrap_or_default();
                match operands.first().and_then(|o| minor_to_major(o)) {
                    Some(m2m) => {
                        let kept: Vec<i64> = m2m
                            .iter()
                            .filter(|d| !reduced.contains(d))
                            .map(|&d| d - reduced.iter().filter(|&&r| r < d).count() as i64)
                            .collect();
                        self.derive(
                            &shape,
                            Derivation::Leader {
                                rank: kept.len(),
                                minor_to_major: kept,
                            },
                        )
                    }
                    None => self.derive(&shape, Derivation::Free),
                }
            }
            op if op.keeps_layout() => match layout_leader(&shape, &operands) {
                // Outputs of the leader's rank take its layout (variadic ops included).
                Some((rank, minor_to_major)) => self.derive(
                    &shape,
                    Derivation::Leader {
                        rank,
                        minor_to_major,
                    },
                ),
                None => self.derive(&shape, Derivation::Free),
            },
            Opcode::CustomCall => self.shared(complete_tiles(&shape, target)),
            _ => self.derive(&shape, Derivation::Free),
        };
        let new_shape = kept_if_equal(new_shape, &shape);
        module.computation_mut(comp).instruction_mut(instr).shape = Arc::clone(&new_shape);

        // Ops that cannot change layout get operands laid out as their result.
        if opcode.keeps_layout() && opcode != Opcode::While {
            let leader = match (&chosen, new_shape.as_array()) {
                (Some(m2m), Some(array)) => Some((array.rank(), m2m.clone())),
                _ => layout_leader(&new_shape, &operands),
            };
            if let Some((rank, m2m)) = leader {
                let computation = module.computation_mut(comp);
                for (slot, operand) in operands.iter().enumerate() {
                    let Some(operand_array) = operand.as_array() else {
                        continue;
                    };
                    if operand_array.rank() != rank || rank == 0 {
                        continue;
                    }
                    if operand_array.layout_or_default().minor_to_major != m2m {
                        let wanted =
                            Shape::Array(cost::laid_out(operand_array, m2m.clone(), target));
                        self.convert_operand(computation, instr, slot as u32, &wanted);
                    }
                }
            }
        }
        // The matrix units read dot and convolution operands in the layouts of
        // `cost::operand_preference`; others are copied to one. (The rule before choosing
        // copied them to descending, size-1 dims most-major.)
        if matches!(opcode, Opcode::Dot | Opcode::Convolution) {
            let computation = module.computation_mut(comp);
            for (slot, operand) in operands.iter().enumerate() {
                let Some(operand_array) = operand.as_array() else {
                    continue;
                };
                let preferred = match self.options.policy {
                    Policy::Descending => cost::descending_minor_to_major(operand_array),
                    Policy::MinimizeCost => {
                        let user = computation.instruction(instr);
                        match cost::operand_preference(user, slot, operand_array.rank()) {
                            Some(preference) if !preference.holds(operand_array) => {
                                preference.wanted_for(operand_array, target)
                            }
                            _ => continue,
                        }
                    }
                };
                if operand_array.layout_or_default().minor_to_major != preferred {
                    let wanted = Shape::Array(cost::laid_out(operand_array, preferred, target));
                    self.convert_operand(computation, instr, slot as u32, &wanted);
                }
            }
        }
        // Reshapes and transposes that move no data are bitcasts.
        if matches!(opcode, Opcode::Reshape | Opcode::Transpose) {
            let computation = module.computation_mut(comp);
            if let Some(from) = operands.first() {
                let permutation = match opcode {
                    Opcode::Transpose => computation.instruction(instr).dimensions(),
                    _ => None,
                };
                if self.is_bitcast_between(from, &new_shape, permutation) {
                    change_opcode(computation.instruction_mut(instr), Opcode::Bitcast);
                    self.report.bitcasts_from_reshapes += 1;
                }
            }
        }
        Ok(None)
    }

    pub(super) fn while_parts(
        &self,
        module: &Module,
        comp: ComputationId,
        instr: InstrId,
        called: &[ComputationId],
    ) -> (ComputationId, ComputationId) {
        let instruction = module.computation(comp).instruction(instr);
        let named = |attribute: &str| {
            instruction
                .attribute(attribute)
                .map(|name| name.trim_start_matches('%'))
                .and_then(|name| self.names.get(name).copied())
        };
        match (named("condition"), named("body")) {
            (Some(condition), Some(body)) => (condition, body),
            _ => (called[0], called[1]),
        }
    }

    /// Converts a computation's root to `shape`.
    pub(super) fn force_root(&mut self, module: &mut Module, id: ComputationId, shape: &Shape) {
        let computation = module.computation_mut(id);
        if let Some(root) = computation.root() {
            let converted = self.convert(computation, root, shape, root);
            if converted != root {
                computation.set_root(converted);
            }
        }
    }

    /// With `auto` entry layouts, a tuple parameter's arrays (which no group chooses) take
    /// what the users of each element want, else the layout this pass prefers.
    pub(super) fn auto_tuple_parameters(
        &mut self,
        module: &Module,
        parameters: Vec<Arc<Shape>>,
    ) -> Vec<Arc<Shape>> {
        let entry = module.entry();
        let mut laid_out = parameters;
        for (number, parameter) in entry.parameters() {
            let Some(slot) = usize::try_from(number).ok().filter(|&n| n < laid_out.len()) else {
                continue;
            };
            let Shape::Tuple(elements) = &*laid_out[slot] else {
                continue;
            };
            let mut elements = elements.clone();
            for (index, element) in elements.iter_mut().enumerate() {
                let wanted = entry.users(parameter).into_iter().find_map(|(user, _)| {
                    let gte = entry.instruction(user);
                    let picks = gte.opcode == Opcode::GetTupleElement
                        && gte.int_attribute("index") == Some(index as i64);
                    picks
                        .then(|| self.hints.get(&(module.entry, user)).cloned())
                        .flatten()
                });
                *element = map_arrays(element, &|array| {
                    let minor_to_major = wanted
                        .clone()
                        .filter(|m| m.len() == array.rank())
                        .unwrap_or_else(|| cost::descending_minor_to_major(array));
                    cost::laid_out(array, minor_to_major, self.target)
                });
            }
            laid_out[slot] = self.shared(Shape::Tuple(elements));
        }
        laid_out
    }

    pub(super) fn free_result(&self, shape: &Shape) -> Shape {
        map_arrays(shape, &|array| {
            cost::laid_out(array, cost::descending_minor_to_major(array), self.target)
        })
    }

    /// Makes operand `slot` of `user` have `shape`, inserting a conversion if needed.
    pub(super) fn convert_operand(
        &mut self,
        computation: &mut Computation,
        user: InstrId,
        slot: u32,
        shape: &Shape,
    ) {
        let Some(&operand) = computation.operands(user).get(slot as usize) else {
            return;
        };
        let converted = self.convert(computation, operand, shape, user);
        if converted != operand {
            let _ = computation.replace_operand(user, slot, converted);
        }
    }

    /// An instruction holding `value`'s data in `shape`: `value` itself when the shapes
    /// agree, else a `bitcast` (same bytes) or `copy`, placed before `before`. Tuples are
    /// converted element by element.
    pub(super) fn convert(
        &mut self,
        computation: &mut Computation,
        value: InstrId,
        shape: &Shape,
        before: InstrId,
    ) -> InstrId {
        let current = Arc::clone(&computation.instruction(value).shape);
        if std::ptr::eq(&*current, shape) || *current == *shape {
            return value;
        }
        match (&*current, shape) {
            (Shape::Array(from), Shape::Array(to)) => {
                // One conversion of a value to a layout serves every user that needs it.
                let shared = self.shared(shape.clone());
                let key = (
                    computation as *const Computation as usize,
                    value,
                    Arc::as_ptr(&shared) as usize,
                );
                if let Some(&made) = self.conversions.get(&key) {
                    return made;
                }
                let bitcast = is_bitcast(from, to, Correspondence::Reshape).unwrap_or(false);
                let (opcode, base) = if bitcast {
                    self.report.bitcasts_inserted += 1;
                    (Opcode::Bitcast, "bitcast")
                } else {
                    self.report.copies_inserted += 1;
                    let bytes = cost::relayout_bytes(from, to);
                    self.report.copy_bytes = self.report.copy_bytes.saturating_add(bytes);
                    (Opcode::Copy, "copy")
                };
                let mut instruction = Instruction::new(base, opcode, shared);
                instruction.style = computation.instruction(value).style;
                instruction.style.operand_shapes =
                    computation.instruction(before).style.operand_shapes;
                let made = computation.add_before(before, instruction, &[value]);
                self.conversions.insert(key, made);
                made
            }
            (Shape::Tuple(from), Shape::Tuple(to)) if from.len() == to.len() => {
                let mut elements = Vec::with_capacity(to.len());
                let style = computation.instruction(value).style;
                for (index, element) in to.iter().enumerate() {
                    let mut gte = Instruction::new(
                        "get-tuple-element",
                        Opcode::GetTupleElement,
                        self.shared(from[index].clone()),
                    );
                    gte.style = style;
                    gte.set_attribute("index", &index.to_string());
                    let gte = computation.add_before(before, gte, &[value]);
                    elements.push(self.convert(computation, gte, element, before));
                }
                let mut tuple =
                    Instruction::new("tuple", Opcode::Tuple, self.shared(shape.clone()));
                tuple.style = style;
                computation.add_before(before, tuple, &elements)
            }
            _ => value,
        }
    }
}
