//! TPU layout assignment: a layout (minor_to_major and tiles) on every array, with `bitcast`
//! or `copy` wherever a producer's layout differs from what its user needs.
//!
//! The rules (docs/tiled-layouts.md §9; XLA's own in §8, the TPU tiles in §6):
//! - Entry parameters keep the layout the module gives them (`entry_computation_layout` or
//!   the parameter's own); a layout without tiles fixes minor_to_major only and the target
//!   supplies the tiles, as a TPU compiler does. A given result layout is enforced with a
//!   copy at the root. With [`EntryLayouts::Auto`] the pass chooses them like other arrays.
//! - Every array the pass is free to lay out gets the minor_to_major that costs least in the
//!   model of [`cost`] (padding, bytes moved, layouts that dots and convolutions read),
//!   chosen per group of arrays that must share a layout (`choose.rs`). Ops that cannot change
//!   layout get their operands of equal rank converted to their layout.
//! - Called computations (call, fusion, while body and condition, conditional branches) are
//!   assigned from their call site's operand layouts; a while body's root is converted to its
//!   parameter's layout, so all five while positions agree, tiles included; conditional
//!   branches are converted to the first branch's result.
//! - Tiles come from the [`Target`] for each array's physical shape.
//! - Conversions are `bitcast` only when every element keeps its physical bytes (the exact
//!   predicate of `ir::bitcast`), `copy` otherwise. Reshapes and transposes that are
//!   physically identical become bitcasts.
//! - [`Policy::Descending`] keeps the rule from before the pass chose (descending layouts,
//!   size-1 dims most-major, ops that cannot change layout following their first operand);
//!   under [`Policy::MinimizeCost`] it is assigned too, and kept if it costs less.
//!
//! Before (JAX, default layouts):
//! ```text
//! ENTRY main {
//!   p = bf16[8,128]{1,0} parameter(0)
//!   r = bf16[8,1,128]{2,1,0} reshape(p)
//!   ROOT n = bf16[8,1,128]{2,1,0} negate(r)
//! }
//! ```
//! After (`tpu-v5e`): the size-1 dim goes most-major and the reshape becomes a bitcast.
//! ```text
//! ENTRY main {
//!   p = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)
//!   r = bf16[8,1,128]{2,0,1:T(8,128)(2,1)} bitcast(p)
//!   ROOT n = bf16[8,1,128]{2,0,1:T(8,128)(2,1)} negate(r)
//! }
//! ```

mod choose;
pub mod cost;
mod hints;
pub mod quality;
pub mod report;

pub use cost::ModuleCost;
pub use report::{AssignReport, PaddingOffender};

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::bitcast::{is_bitcast, Correspondence};
use crate::ir::module::{Computation, ComputationId, InstrId, Instruction, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::{Layout, Target};
use crate::span::Span;
use crate::verify::header::entry_layout;
use crate::verify::shapes::compatible;

/// Why assignment could not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum AssignError {
    /// Layouts flow from callers into callees, so a call cycle has no order to assign in.
    /// The verifier rejects such modules too; this is for callers that skip it.
    #[error("computation `{computation}` calls itself, directly or through others")]
    #[diagnostic(
        code(hlo::assign::recursion),
        help("HLO computations cannot be recursive; a loop is a `while`")
    )]
    Recursion {
        /// The computation that calls itself.
        computation: String,
        /// Where the computation starts in the text.
        #[label("this computation")]
        span: Span,
    },
    /// A bitcast that is no reshape or transpose (it changes the element type or count)
    /// keeps the layouts it was written with, which must give both sides the same bytes.
    /// (XLA rejects every bitcast that reaches layout assignment.)
    #[error("`{instruction}` in `{computation}` bitcasts {from} to {to}, which differ in bytes")]
    #[diagnostic(
        code(hlo::assign::bitcast),
        help("a bitcast that changes the element type or count keeps its written layouts, so they must give both sides the same padded size; use bitcast-convert to change the type elementwise")
    )]
    Bitcast {
        /// The computation the bitcast is in.
        computation: String,
        /// The bitcast's name.
        instruction: String,
        /// Its operand's shape, layout included.
        from: String,
        /// Its result shape, layout included.
        to: String,
        /// Where the bitcast is written.
        #[label("this bitcast")]
        span: Span,
    },
}

impl AssignError {
    fn recursion(computation: &Computation) -> AssignError {
        AssignError::Recursion {
            computation: computation.name.clone(),
            span: computation.span,
        }
    }
}

/// Where the entry computation's parameter and result layouts come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntryLayouts {
    /// As the module gives them (`entry_computation_layout`, else the parameters' own); a
    /// given result layout is enforced with a copy at the root.
    #[default]
    Given,
    /// Chosen by the pass like any other array, as a TPU compiler does for JAX's default
    /// device layouts (`Layout.AUTO`), and written into `entry_computation_layout`.
    Auto,
}

/// How the pass lays out the arrays it is free to lay out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// The layouts that cost least in the model of [`cost`]: padding plus bytes moved.
    #[default]
    MinimizeCost,
    /// Descending with size-1 dims most-major, ops that cannot change layout following
    /// their first operand, dot and convolution operands copied to descending: the pass's
    /// rule before it chose, kept for comparison (`assign --report`).
    Descending,
}

/// What [`assign_layouts_with`] may choose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssignOptions {
    /// Whether the entry's layouts are kept or chosen.
    pub entry_layouts: EntryLayouts,
    /// How the other arrays are laid out.
    pub policy: Policy,
}

/// Assigns layouts to every array of `module` for `target`, in place, with the entry
/// layouts given and the cheapest layouts chosen everywhere else.
pub fn assign_layouts(module: &mut Module, target: &Target) -> Result<AssignReport, AssignError> {
    assign_layouts_with(module, target, &AssignOptions::default())
}

/// Assigns layouts to every array of `module` for `target`, in place.
///
/// Under [`Policy::MinimizeCost`] each group of arrays is decided when assignment reaches it,
/// from what is known then, so a constraint far below (a given result layout) can make the
/// whole cost more than the descending rule's. The descending rule is then assigned too and
/// kept if it costs less, so the result never costs more than it
/// ([`AssignReport::kept_descending`] says which was kept).
pub fn assign_layouts_with(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
) -> Result<AssignReport, AssignError> {
    if options.policy == Policy::Descending {
        return assign_once(module, target, options);
    }
    let input = module.clone();
    let mut report = assign_once(module, target, options)?;
    let mut descending = input;
    let descending_options = AssignOptions {
        policy: Policy::Descending,
        ..*options
    };
    let mut other = assign_once(&mut descending, target, &descending_options)?;
    if other.cost.total() < report.cost.total() {
        *module = descending;
        other.kept_descending = true;
        other.descending_cost = Some(other.cost);
        return Ok(other);
    }
    report.descending_cost = Some(other.cost);
    Ok(report)
}

fn assign_once(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
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
    decompose_bitcasts(module, &opaque);
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
    assigner.report.measure(module, target);
    assigner.report.cost = cost::module_cost(module, target);
    assigner.report.bound_padded_bytes = cost::padding_bound(module, target);
    Ok(assigner.report)
}

/// Computations by name; the first of a duplicated name wins, as in `find_computation`.
fn computation_names(module: &Module) -> std::collections::HashMap<String, ComputationId> {
    let mut names = std::collections::HashMap::with_capacity(module.computations().len());
    for (id, computation) in module.computation_ids().zip(module.computations()) {
        names.entry(computation.name.clone()).or_insert(id);
    }
    names
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    Pending,
    InProgress,
    /// Assigned, with the parameter shapes it was assigned for.
    Done(Vec<Arc<Shape>>),
}

/// A computation being assigned: its print order and how far through it the assigner is.
struct Frame {
    id: ComputationId,
    order: Vec<InstrId>,
    next: usize,
    parameters: Vec<Arc<Shape>>,
    /// The layout groups being chosen, under [`Policy::MinimizeCost`].
    groups: Option<choose::Groups>,
}

/// A callee to assign, for these parameter shapes, before its caller can go on; its root
/// will be converted to `wanted_root` if given (a while body's).
struct Callee {
    id: ComputationId,
    parameters: Vec<Arc<Shape>>,
    wanted_root: Option<Arc<Shape>>,
}

/// How an assigned shape is derived from another: from the instruction's own shape, or for
/// `Element` from its tuple operand's. With that shape's address, the key of
/// [`Assigner::derived`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Derivation {
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

struct Assigner<'t> {
    target: &'t Target,
    options: AssignOptions,
    /// Padded bytes by the address of a shape, each entry holding its shape.
    sizes: FxHashMap<usize, (Arc<Shape>, i64)>,
    /// The conversion made of a value to a shape, by the computation's address, the value
    /// and the shared shape's address (every shared shape lives as long as the assigner).
    conversions: FxHashMap<(usize, InstrId, usize), InstrId>,
    /// Bitcasts that keep their written layouts ([`check_bitcasts`]).
    opaque_bitcasts: OpaqueBitcasts,
    /// What loop bodies prefer of each element of their state (`choose`).
    loop_preferences: FxHashMap<(ComputationId, usize), Vec<cost::OperandPreference>>,
    /// Computations by name (the first of a duplicated name), for callees named by attribute.
    names: std::collections::HashMap<String, ComputationId>,
    state: Vec<State>,
    report: AssignReport,
    /// One allocation per distinct assigned shape, shared by every instruction that has it:
    /// a module has a few hundred distinct shapes for tens of thousands of instructions.
    shapes: FxHashSet<Arc<Shape>>,
    /// Assigned shapes already derived, by the address of the shape they were derived from
    /// and how. A module asks the same few hundred questions of its shared shapes tens of
    /// thousands of times. Each entry holds its source, so that no address is reused while
    /// it is a key.
    derived: FxHashMap<(usize, Derivation), (Arc<Shape>, Arc<Shape>)>,
    /// [`is_bitcast`] of a reshape or transpose, by the addresses of its operand's and result's
    /// shapes and the transpose's permutation; each entry holds both shapes.
    bitcasts: FxHashMap<BitcastQuestion, (Arc<Shape>, Arc<Shape>, bool)>,
    /// The layouts users further down want, which settle ties ([`hints`]).
    hints: hints::Hints,
}

/// The addresses of a reshape's or transpose's operand and result shapes, with the
/// transpose's permutation: what [`Assigner::is_bitcast_between`] is asked.
type BitcastQuestion = (usize, usize, Option<Vec<i64>>);

/// The shapes `entry_computation_layout={(...)->...}` gives the entry's parameters, else
/// the parameters' own; tiled by the target where no tiles were given.
fn entry_parameter_shapes(
    module: &Module,
    written: Option<&(Vec<Shape>, Shape)>,
    target: &Target,
    auto: bool,
) -> Vec<Shape> {
    let from_header = written.map(|(parameters, _)| parameters);
    let entry = module.entry();
    let own: Vec<Shape> = entry
        .parameters()
        .iter()
        .map(|&(_, id)| {
            let shape = entry.instruction(id).shape.as_ref();
            // With `auto`, the module's own layouts are no constraint.
            if auto {
                map_arrays(shape, &|array| ArrayShape {
                    layout: None,
                    ..array.clone()
                })
            } else {
                shape.clone()
            }
        })
        .collect();
    // Shapes that do not fit the parameters are the verifier's to report; they are not used.
    let shapes = match from_header {
        Some(parameters)
            if parameters.len() == own.len()
                && parameters.iter().zip(&own).all(|(a, b)| compatible(a, b)) =>
        {
            own.iter()
                .zip(parameters)
                .map(|(own, given)| with_layouts(own, given))
                .collect()
        }
        _ => own,
    };
    shapes.iter().map(|s| complete_tiles(s, target)).collect()
}

fn given_result_shape(
    module: &Module,
    written: Option<&(Vec<Shape>, Shape)>,
    target: &Target,
) -> Option<Shape> {
    let (_, result) = written?;
    let entry = module.entry();
    let root = entry.instruction(entry.root()?);
    compatible(&root.shape, result)
        .then(|| complete_tiles(&with_layouts(&root.shape, result), target))
}

/// `shape` with the layouts of `layouts`, a compatible shape. The header gives the entry
/// layouts only: its dims may be written differently (`f32[?]` for an `f32[4]` root), and
/// the instructions' own dims are what the module computes.
fn with_layouts(shape: &Shape, layouts: &Shape) -> Shape {
    match (shape, layouts) {
        (Shape::Array(array), Shape::Array(given)) => Shape::Array(ArrayShape {
            layout: given.layout.clone(),
            ..array.clone()
        }),
        (Shape::Tuple(elements), Shape::Tuple(given)) => Shape::Tuple(
            elements
                .iter()
                .zip(given)
                .map(|(element, given)| with_layouts(element, given))
                .collect(),
        ),
        _ => shape.clone(),
    }
}

/// Keeps given tiles; an array without tiles gets the target's for its minor_to_major.
fn complete_tiles(shape: &Shape, target: &Target) -> Shape {
    map_arrays(shape, &|array| {
        let has_tiles = array.layout.as_ref().is_some_and(|l| !l.tiles.is_empty());
        if has_tiles {
            array.clone()
        } else {
            target.assign_tiles(array)
        }
    })
}

fn map_arrays(shape: &Shape, f: &dyn Fn(&ArrayShape) -> ArrayShape) -> Shape {
    match shape {
        Shape::Array(array) => Shape::Array(f(array)),
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(|e| map_arrays(e, f)).collect()),
        other => other.clone(),
    }
}

/// `derived` as the shape of an instruction whose shape is `current`: `current` itself when
/// they are equal, so that an instruction keeps its allocation when nothing changed.
fn kept_if_equal(derived: Arc<Shape>, current: &Arc<Shape>) -> Arc<Shape> {
    if Arc::ptr_eq(&derived, current) || *derived != **current {
        derived
    } else {
        Arc::clone(current)
    }
}

/// Whether `shape` is a tuple with an element at `index`.
fn has_element(shape: &Shape, index: usize) -> bool {
    matches!(shape, Shape::Tuple(elements) if index < elements.len())
}

/// For an op that cannot change layout: the rank and minor_to_major its outputs and
/// same-rank operands share, taken from the first operand of the outputs' rank.
fn layout_leader(result: &Shape, operands: &[Arc<Shape>]) -> Option<(usize, Vec<i64>)> {
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

fn minor_to_major(shape: &Shape) -> Option<Vec<i64>> {
    shape
        .as_array()
        .map(|array| array.layout_or_default().minor_to_major.clone())
}

impl Assigner<'_> {
    /// Assigns computation `id` for parameters of `parameters`' shapes, and every callee it
    /// reaches that is not assigned yet; the root's shape is read from the module. Callees
    /// are assigned on an explicit stack, not by recursion, so that a chain of calls
    /// thousands deep cannot overflow the thread's stack.
    fn computation(
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
    fn enter(
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
        let groups = (self.options.policy == Policy::MinimizeCost).then(|| {
            let free_parameters =
                computation.is_entry && self.options.entry_layouts == EntryLayouts::Auto;
            choose::Groups::new(computation, free_parameters, wanted_root)
        });
        Ok(Some(Frame {
            id,
            order: computation.order().to_vec(),
            next: 0,
            parameters,
            groups,
        }))
    }

    /// What must be assigned before the caller of `callee` can go on: `callee` itself, for
    /// `parameters`, unless it is assigned already.
    fn needs(
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
    fn assigned_parameters(&self, id: ComputationId) -> Option<&[Arc<Shape>]> {
        match &self.state[id.0 as usize] {
            State::Done(parameters) => Some(parameters),
            _ => None,
        }
    }

    fn root_shape(module: &Module, id: ComputationId) -> Option<Arc<Shape>> {
        let computation = module.computation(id);
        computation
            .root()
            .map(|root| Arc::clone(&computation.instruction(root).shape))
    }

    /// The operands' shapes, shared with the operands (a reference count each, no copy).
    fn operand_shapes(
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
    fn derive(&mut self, source: &Arc<Shape>, how: Derivation) -> Arc<Shape> {
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
    fn is_bitcast_between(
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
    fn shared(&mut self, shape: Shape) -> Arc<Shape> {
        if let Some(shared) = self.shapes.get(&shape) {
            return Arc::clone(shared);
        }
        let shared = Arc::new(shape);
        self.shapes.insert(Arc::clone(&shared));
        shared
    }

    /// Asks for a callee to be assigned for the given operand shapes, or converts the
    /// operands to the shapes it was assigned for (the same ones, if this site asked).
    fn call_site(
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
    fn instruction(
        &mut self,
        module: &mut Module,
        comp: ComputationId,
        instr: InstrId,
        groups: Option<&mut choose::Groups>,
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
                        let m2m: Option<Vec<i64>> = operand_m2m
                            .iter()
                            .map(|&d| permutation.iter().position(|&p| p == d).map(|i| i as i64))
                            .collect();
                        match m2m {
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

    fn while_parts(
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
    fn force_root(&mut self, module: &mut Module, id: ComputationId, shape: &Shape) {
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
    fn auto_tuple_parameters(
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

    fn free_result(&self, shape: &Shape) -> Shape {
        map_arrays(shape, &|array| {
            cost::laid_out(array, cost::descending_minor_to_major(array), self.target)
        })
    }

    /// Makes operand `slot` of `user` have `shape`, inserting a conversion if needed.
    fn convert_operand(
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
    fn convert(
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

/// Compact tuple-element operands (`%t#1#0`) become `get-tuple-element` instructions, named
/// and shared as XLA's parser makes them (`t_1`, `t_1_0`), so that every operand's shape is
/// its producer's: assignment reads and converts operands by their producers' shapes.
fn materialize_tuple_paths(module: &mut Module) {
    for computation in module.computations_mut() {
        let users: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| !computation.instruction(id).tuple_paths.is_empty())
            .collect();
        // Each (tuple, path prefix) is extracted once, before its first user.
        let mut made: std::collections::HashMap<(InstrId, Vec<i64>), InstrId> =
            std::collections::HashMap::new();
        for user in users {
            let paths = std::mem::take(&mut computation.instruction_mut(user).tuple_paths);
            let mut kept = Vec::new();
            for (slot, path) in paths {
                let tuple = computation.operands(user).get(slot as usize).copied();
                let valid = tuple.is_some_and(|t| {
                    !path.is_empty() && computation.instruction(t).shape.subshape(&path).is_some()
                });
                let (Some(tuple), true) = (tuple, valid) else {
                    // The verifier reports a path that leads nowhere; leave it as written.
                    kept.push((slot, path));
                    continue;
                };
                let mut value = tuple;
                for depth in 1..=path.len() {
                    let prefix = &path[..depth];
                    if let Some(&existing) = made.get(&(tuple, prefix.to_vec())) {
                        value = existing;
                        continue;
                    }
                    let tuple_instruction = computation.instruction(tuple);
                    let Some(shape) = tuple_instruction.shape.subshape(prefix).cloned() else {
                        break;
                    };
                    let suffix: Vec<String> = prefix.iter().map(i64::to_string).collect();
                    let name = format!("{}_{}", tuple_instruction.name(), suffix.join("_"));
                    let mut gte = Instruction::new(name, Opcode::GetTupleElement, shape);
                    gte.style = computation.instruction(user).style;
                    gte.span = computation.instruction(user).span;
                    gte.set_attribute("index", &prefix[depth - 1].to_string());
                    value = computation.add_before(user, gte, &[value]);
                    made.insert((tuple, prefix.to_vec()), value);
                }
                let _ = computation.replace_operand(user, slot, value);
            }
            computation.instruction_mut(user).tuple_paths = kept.into();
        }
    }
}

/// The bitcasts that are no reshape or transpose, by computation and instruction, with the
/// layouts they keep: their operand's and their own as written, with the target's tiles
/// where the written ones have none and both sides then keep equal bytes.
type OpaqueBitcasts = FxHashMap<(u32, InstrId), (Shape, Shape)>;

/// Finds the array-to-array bitcasts that change the element type or count: they cannot be
/// read as a reshape and transposes ([`decompose_bitcasts`]), so they keep their written
/// layouts, which must give both sides the same bytes. Checked before anything changes, so
/// that a module assignment fails on is left as it was.
fn check_bitcasts(module: &Module, target: &Target) -> Result<OpaqueBitcasts, AssignError> {
    let mut opaque = OpaqueBitcasts::default();
    for (computation_id, computation) in module.computation_ids().zip(module.computations()) {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            if instruction.opcode != Opcode::Bitcast {
                continue;
            }
            let Some(&operand) = computation.operands(id).first() else {
                continue;
            };
            let operand_shape = &computation.instruction(operand).shape;
            let (Some(from), Some(to)) = (operand_shape.as_array(), instruction.shape.as_array())
            else {
                continue;
            };
            let same_count = match (from.element_count(), to.element_count()) {
                (Some(a), Some(b)) => a == b,
                // Dynamic dims: nothing to compare yet.
                _ => true,
            };
            let reads_as_shape_change = from.element_type == to.element_type && same_count;
            if reads_as_shape_change || is_type_reinterpretation(from, to) {
                continue;
            }
            let same_bytes = |a: &ArrayShape, b: &ArrayShape| matches!((cost::array_bytes(a), cost::array_bytes(b)), (Some(x), Some(y)) if x == y);
            let (tiled_from, tiled_to) = (target.assign_tiles(from), target.assign_tiles(to));
            let kept = if from.layout_or_default().tiles.is_empty()
                && to.layout_or_default().tiles.is_empty()
                && same_bytes(&tiled_from, &tiled_to)
            {
                (tiled_from, tiled_to)
            } else if same_bytes(from, to) {
                (from.clone(), to.clone())
            } else {
                return Err(AssignError::Bitcast {
                    computation: computation.name.clone(),
                    instruction: instruction.name().to_string(),
                    from: from.to_string(),
                    to: to.to_string(),
                    span: instruction.span,
                });
            };
            opaque.insert(
                (computation_id.0, id),
                (Shape::Array(kept.0), Shape::Array(kept.1)),
            );
        }
    }
    Ok(opaque)
}

/// A bitcast between element types of one width that keeps the dims and their order
/// (`f32[2]{0}` to `s32[2]{0}`, as real dumps have) is the elementwise `bitcast-convert`.
fn is_type_reinterpretation(from: &ArrayShape, to: &ArrayShape) -> bool {
    from.element_type != to.element_type
        && from.element_type.bit_width() == to.element_type.bit_width()
        && from.dims == to.dims
        && from.layout_or_default().minor_to_major == to.layout_or_default().minor_to_major
}

/// A `bitcast` means "same bytes" only under the layouts it was written with (taken here as
/// untiled; a tiled bitcast in an input is decomposed by its minor_to_major alone). Before new
/// layouts are chosen, each becomes the logical operation it stands for under those layouts
/// (XLA's `DecomposeBitcast`): a transpose of the operand into its physical order, a reshape
/// to the result's physical dims, and a transpose into the result's logical order, leaving
/// out the steps that do nothing. Assignment then makes them bitcasts again where the new
/// layouts move no data.
fn decompose_bitcasts(module: &mut Module, opaque: &OpaqueBitcasts) {
    let ids: Vec<ComputationId> = module.computation_ids().collect();
    for (computation_id, computation) in ids.into_iter().zip(module.computations_mut()) {
        let bitcasts: Vec<InstrId> = computation
            .order()
            .iter()
            .copied()
            .filter(|&id| computation.instruction(id).opcode == Opcode::Bitcast)
            .filter(|&id| !opaque.contains_key(&(computation_id.0, id)))
            .collect();
        for id in bitcasts {
            let Some(&operand) = computation.operands(id).first() else {
                continue;
            };
            let (Some(from), Some(to)) = (
                computation.instruction(operand).shape.as_array().cloned(),
                computation.instruction(id).shape.as_array().cloned(),
            ) else {
                continue;
            };
            if is_type_reinterpretation(&from, &to) {
                change_opcode(computation.instruction_mut(id), Opcode::BitcastConvert);
                continue;
            }
            let (Some(from_dims), Some(to_dims)) = (from.extents(), to.extents()) else {
                continue;
            };
            let physical = |array: &ArrayShape| -> Vec<usize> {
                array
                    .layout_or_default()
                    .minor_to_major
                    .iter()
                    .rev()
                    .filter_map(|&d| usize::try_from(d).ok())
                    .collect()
            };
            let (from_order, to_order) = (physical(&from), physical(&to));
            let style = computation.instruction(id).style;
            let mut value = operand;
            // Into the operand's physical order.
            if from_order.iter().enumerate().any(|(i, &d)| i != d) {
                let dims: Vec<i64> = from_order
                    .iter()
                    .filter_map(|&d| from_dims.get(d).copied())
                    .collect();
                let shape = Shape::Array(
                    ArrayShape::new(from.element_type, &dims)
                        .with_layout(Layout::descending(dims.len())),
                );
                let mut transpose = Instruction::new("transpose", Opcode::Transpose, shape);
                transpose.style = style;
                transpose.set_attribute(
                    "dimensions",
                    &int_list(from_order.iter().map(|&d| d as i64)),
                );
                value = computation.add_before(id, transpose, &[value]);
            }
            // To the result's physical dims.
            let to_physical_dims: Vec<i64> = to_order
                .iter()
                .filter_map(|&d| to_dims.get(d).copied())
                .collect();
            let current_dims = computation
                .instruction(value)
                .shape
                .as_array()
                .and_then(ArrayShape::extents);
            if current_dims.as_deref() != Some(&to_physical_dims[..]) {
                let shape = Shape::Array(
                    ArrayShape::new(to.element_type, &to_physical_dims)
                        .with_layout(Layout::descending(to_physical_dims.len())),
                );
                let mut reshape = Instruction::new("reshape", Opcode::Reshape, shape);
                reshape.style = style;
                value = computation.add_before(id, reshape, &[value]);
            }
            // Into the result's logical order.
            let permutation: Vec<i64> = (0..to_order.len())
                .filter_map(|d| to_order.iter().position(|&p| p == d).map(|p| p as i64))
                .collect();
            if permutation.iter().enumerate().any(|(i, &p)| i as i64 != p) {
                let instruction = computation.instruction_mut(id);
                change_opcode(instruction, Opcode::Transpose);
                instruction.set_attribute("dimensions", &int_list(permutation.into_iter()));
                if value != operand {
                    let _ = computation.replace_operand(id, 0, value);
                }
            } else if value != operand {
                // The steps before already give the result's dims in its logical order.
                let _ = computation.replace_all_uses(id, value);
                let _ = computation.remove(id);
            } else {
                change_opcode(computation.instruction_mut(id), Opcode::Reshape);
            }
        }
    }
}

/// Changes `instruction`'s opcode, keeping only the attributes the new opcode accepts, as
/// XLA's `SetupDerivedInstruction` keeps metadata, sharding and frontend attributes but
/// nothing that belongs to the old opcode (a reshape's `inferred_dimension`, a transpose's
/// `dimensions` do not ride along onto a bitcast).
fn change_opcode(instruction: &mut Instruction, opcode: Opcode) {
    instruction
        .attributes
        .retain(|a| crate::verify::attributes::allowed(&opcode, &a.name));
    instruction.opcode = opcode;
}

fn int_list(values: impl Iterator<Item = i64>) -> String {
    let items: Vec<String> = values.map(|v| v.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

/// Rewrites `entry_computation_layout` to the layouts assigned. Where the header gave
/// compatible shapes, their dims stay as written (`f32[<=8]`, `f32[?]`) and only the layouts
/// change. `written` is the header's layout as the pass found it.
fn update_entry_computation_layout(module: &mut Module, written: Option<(Vec<Shape>, Shape)>) {
    let entry = module.entry();
    let mut parameters: Vec<Shape> = entry
        .parameters()
        .iter()
        .map(|&(_, id)| entry.instruction(id).shape.as_ref().clone())
        .collect();
    let Some(root) = entry.root() else { return };
    let mut result = entry.instruction(root).shape.as_ref().clone();
    if let Some((given_parameters, given_result)) = written {
        if given_parameters.len() == parameters.len()
            && given_parameters
                .iter()
                .zip(&parameters)
                .all(|(a, b)| compatible(a, b))
            && compatible(&given_result, &result)
        {
            parameters = given_parameters
                .iter()
                .zip(&parameters)
                .map(|(given, assigned)| with_layouts(given, assigned))
                .collect();
            result = with_layouts(&given_result, &result);
        }
    }
    let text = format!("{{{}->{}}}", Shape::Tuple(parameters), result);
    if module.has_header {
        module.set_attribute("entry_computation_layout", &text);
    }
}

/// Why [`assign_verified`] gave no module.
#[derive(Debug)]
pub enum AssignFailure {
    /// The input does not verify: bad input, reported as `check` reports it.
    Input(Vec<crate::verify::VerifyError>),
    /// The pass could not assign layouts.
    Assign(AssignError),
    /// The assigned module does not verify in layout-sensitive mode: a bug in the pass.
    Output(Vec<crate::verify::VerifyError>),
}

/// What `hlo-layout assign` does to a parsed module: verifies it, assigns layouts with
/// [`assign_layouts_with`], and verifies the result in layout-sensitive mode.
pub fn assign_verified(
    module: &mut Module,
    target: &Target,
    options: &AssignOptions,
) -> Result<AssignReport, AssignFailure> {
    let input_options = crate::verify::VerifyOptions::default();
    crate::verify::verify(module, &input_options).map_err(AssignFailure::Input)?;
    let report = assign_layouts_with(module, target, options).map_err(AssignFailure::Assign)?;
    let output_options = crate::verify::VerifyOptions {
        layout_sensitive: true,
    };
    crate::verify::verify(module, &output_options).map_err(AssignFailure::Output)?;
    Ok(report)
}
