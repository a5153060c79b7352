//! Typed builders for new instructions, as XLA's `HloInstruction::Create*` are: each infers
//! the result shape from its operands with [`super::shape_inference`], gives it a layout,
//! writes its attributes as XLA prints them and takes the print style of its first operand.
//! A builder reads the computation and returns a [`New`]; `Computation::insert_before` or
//! `Computation::replace_with_new` adds it.
//!
//! Layouts follow one rule, XLA's shape inference's. A result whose dims are the operand's,
//! in the same order (unary, binary, compare, convert, copy, slice), keeps the first
//! operand's layout, tiles included (a convert to another element width drops the tiles and
//! `E(n)`, which describe the old width). A result with new dims (reshape, broadcast, dot)
//! gets XLA's default, descending and untiled, as `ShapeUtil::MakeShape` gives it; a
//! transpose gets the operand's physical order. [`New::with_layout`] sets another layout,
//! and `Target::tile` gives a target's tiles.
//!
//! ```
//! use hlo_layout::ir::build;
//!
//! let mut module = hlo_layout::parse_module(
//!     "ENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT n = f32[2,3]{1,0} negate(p)\n}\n",
//! )
//! .unwrap();
//! let entry = module.entry;
//! let c = module.computation_mut(entry);
//! let (p, n) = (c.find("p").unwrap(), c.find("n").unwrap());
//! let t = build::transpose(c, p, &[1, 0]).unwrap();
//! assert_eq!(t.instruction.shape.to_string(), "f32[3,2]{0,1}");
//! let t = c.insert_before(n, t.instruction, &t.operands).unwrap();
//! assert_eq!(c.instruction(t).attribute("dimensions"), Some("{1,0}"));
//! let r = build::reshape(c, t, &[6]).unwrap();
//! assert_eq!(r.instruction.shape.to_string(), "f32[6]{0}");
//! ```

use std::sync::Arc;

use super::attrs::{DotDimensionNumbers, SliceConfig};
use super::module::{Computation, EditError, InstrId, Instruction};
use super::opcode::Opcode;
use super::primitive::PrimitiveType;
use super::shape::Layout;
use super::shape::{ArrayShape, Dim, Shape};
use super::shape_inference::{self, ShapeError};

/// An instruction ready to add, with its operands in slot order.
#[derive(Clone, Debug)]
pub struct New {
    /// The instruction, named and shaped, not yet in the computation.
    pub instruction: Instruction,
    /// Its operands in slot order, ids of the computation the builder read.
    pub operands: Vec<InstrId>,
}

impl New {
    /// The same instruction laid out in `layout`, which must fit its array: XLA's
    /// `*mutable_shape()->mutable_layout() = layout`, checked.
    pub fn with_layout(mut self, layout: Layout) -> Result<New, BuildError> {
        let instruction = &mut self.instruction;
        let problem = match instruction.shape.as_array() {
            Some(array) => layout
                .check_for_rank(array.rank())
                .first()
                .map(ToString::to_string),
            None => Some("only an array has a layout".to_string()),
        };
        if let Some(problem) = problem {
            return Err(BuildError::Layout {
                name: instruction.name().to_string(),
                layout: layout.to_string(),
                shape: instruction.shape.to_string(),
                problem,
            });
        }
        if let Shape::Array(array) = Arc::make_mut(&mut instruction.shape) {
            array.layout = Some(layout);
        }
        Ok(self)
    }

    /// The result shape, which every builder makes an array.
    pub fn array_shape(&self) -> Option<&ArrayShape> {
        self.instruction.shape.as_array()
    }
}

/// Why a builder could not make the instruction. Each names the operands and the computation
/// the builder read, or the new instruction whose layout was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum BuildError {
    /// An operand id that is another computation's, or whose instruction was removed.
    #[error("{error}")]
    #[diagnostic(code(hlo::build::no_such_instruction))]
    NoSuchInstruction {
        /// The operand id given.
        id: InstrId,
        /// The computation the builder read.
        computation: String,
        /// Why the computation refused the id.
        error: EditError,
    },
    /// An operand that must be an array is a tuple, token or opaque value.
    #[error("`{name}` in computation `{computation}` is not an array")]
    #[diagnostic(code(hlo::build::not_an_array))]
    NotAnArray {
        /// The operand's name.
        name: String,
        /// The computation the builder read.
        computation: String,
    },
    /// Shape inference refused the operands or attributes.
    #[error("{error} (operands {operands} in computation `{computation}`)")]
    #[diagnostic(code(hlo::build::shape))]
    Shape {
        /// What shape inference said. Not a `source`: the message already says it, and a
        /// report would say it twice. Boxed, as it is the largest payload of a type every
        /// builder returns.
        error: Box<ShapeError>,
        /// The operands' names, `` `a`, `b` ``.
        operands: String,
        /// The computation the builder read.
        computation: String,
    },
    /// A layout given for the new instruction does not fit its shape.
    #[error("layout {layout} does not fit the new `{name}` of shape {shape}: {problem}")]
    #[diagnostic(code(hlo::build::layout))]
    Layout {
        /// The new instruction's name.
        name: String,
        /// The layout given.
        layout: String,
        /// The new instruction's shape.
        shape: String,
        /// Why the layout does not fit.
        problem: String,
    },
}

/// The array shape of operand `id`.
fn array(computation: &Computation, id: InstrId) -> Result<&ArrayShape, BuildError> {
    let instruction = computation
        .get(id)
        .map_err(|error| BuildError::NoSuchInstruction {
            id,
            computation: computation.name.to_string(),
            error,
        })?;
    instruction
        .shape
        .as_array()
        .ok_or_else(|| BuildError::NotAnArray {
            name: instruction.name().to_string(),
            computation: computation.name.to_string(),
        })
}

/// A shape inference error, with the operands and computation it was about.
fn inferred<T>(
    computation: &Computation,
    operands: &[InstrId],
    result: Result<T, ShapeError>,
) -> Result<T, BuildError> {
    result.map_err(|error| {
        let names: Vec<String> = operands
            .iter()
            .filter_map(|&id| computation.get(id).ok())
            .map(|instruction| format!("`{}`", instruction.name()))
            .collect();
        BuildError::Shape {
            error: Box::new(error),
            operands: names.join(", "),
            computation: computation.name.to_string(),
        }
    })
}

fn new(
    computation: &Computation,
    name: &str,
    opcode: Opcode,
    shape: Shape,
    operands: &[InstrId],
) -> New {
    let mut instruction = Instruction::new(name, opcode, Arc::new(shape));
    if let Some(first) = operands.first().and_then(|&o| computation.get(o).ok()) {
        instruction.style = first.style;
    }
    New {
        instruction,
        operands: operands.to_vec(),
    }
}

/// An instruction named after its opcode, of array shape `result`.
fn of_opcode(
    computation: &Computation,
    opcode: Opcode,
    result: ArrayShape,
    operands: &[InstrId],
) -> New {
    let name = opcode.name().to_string();
    new(computation, &name, opcode, Shape::Array(result), operands)
}

fn static_dims(dims: &[i64]) -> Vec<Dim> {
    dims.iter().map(|&d| Dim::Static(d)).collect()
}

/// `transpose(operand), dimensions=permutation`, laid out in the operand's physical order
/// (result dim `i` is operand dim `permutation[i]`), so that it moves nothing where the
/// operand's layout allows: what layout assignment would give it. XLA:
/// `HloInstruction::CreateTranspose(shape, operand, permutation)`.
pub fn transpose(
    computation: &Computation,
    operand: InstrId,
    permutation: &[i64],
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::transpose(from, permutation),
    )?;
    let mut layout = from
        .layout
        .clone()
        .unwrap_or_else(|| Layout::descending(from.rank()));
    if let Some(minor_to_major) =
        super::permutation::transposed_minor_to_major(&layout.minor_to_major, permutation)
            .filter(|m2m| m2m.len() == result.rank())
    {
        layout.minor_to_major = minor_to_major;
        result.layout = Some(layout);
    }
    let mut built = of_opcode(computation, Opcode::Transpose, result, &[operand]);
    built
        .instruction
        .set_int_list_attribute("dimensions", permutation);
    Ok(built)
}

/// An elementwise unary op (`negate`, `exponential`, `copy`...) with the operand's shape and
/// layout. XLA: `HloInstruction::CreateUnary(shape, opcode, operand)`.
pub fn unary(
    computation: &Computation,
    opcode: Opcode,
    operand: InstrId,
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::unary(&opcode, from),
    )?;
    result.layout = from.layout.clone();
    Ok(of_opcode(computation, opcode, result, &[operand]))
}

/// An elementwise binary op (`add`, `multiply`, `and`...) on operands of equal dims, laid
/// out as `lhs`. `compare` needs a direction: [`compare`]. XLA:
/// `HloInstruction::CreateBinary(shape, opcode, lhs, rhs)`.
pub fn binary(
    computation: &Computation,
    opcode: Opcode,
    lhs: InstrId,
    rhs: InstrId,
) -> Result<New, BuildError> {
    let (left, right) = (array(computation, lhs)?, array(computation, rhs)?);
    let result = if opcode == Opcode::Compare {
        Err(ShapeError::Invalid {
            op: "compare".into(),
            message: "a comparison needs a direction; use `build::compare`".into(),
        })
    } else {
        shape_inference::binary(&opcode, left, right)
    };
    let mut result = inferred(computation, &[lhs, rhs], result)?;
    result.layout = left.layout.clone();
    Ok(of_opcode(computation, opcode, result, &[lhs, rhs]))
}

/// How [`compare`] compares: `direction=EQ`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `EQ`: equal.
    Eq,
    /// `NE`: not equal.
    Ne,
    /// `GE`: greater or equal.
    Ge,
    /// `GT`: greater.
    Gt,
    /// `LE`: less or equal.
    Le,
    /// `LT`: less.
    Lt,
}

impl Direction {
    /// The text XLA prints after `direction=`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Eq => "EQ",
            Direction::Ne => "NE",
            Direction::Ge => "GE",
            Direction::Gt => "GT",
            Direction::Le => "LE",
            Direction::Lt => "LT",
        }
    }
}

/// `compare(lhs, rhs), direction=...`: a `pred` array of the operands' dims, laid out as
/// `lhs`. XLA: `HloInstruction::CreateCompare(shape, lhs, rhs, direction)`.
pub fn compare(
    computation: &Computation,
    lhs: InstrId,
    rhs: InstrId,
    direction: Direction,
) -> Result<New, BuildError> {
    let (left, right) = (array(computation, lhs)?, array(computation, rhs)?);
    let mut result = inferred(
        computation,
        &[lhs, rhs],
        shape_inference::binary(&Opcode::Compare, left, right),
    )?;
    result.layout = left.layout.clone();
    let mut built = of_opcode(computation, Opcode::Compare, result, &[lhs, rhs]);
    built
        .instruction
        .set_attribute("direction", direction.name());
    Ok(built)
}

/// `convert(operand)` to `element_type`, laid out as the operand except for the tiles and
/// `E(n)` when the element width changes. XLA:
/// `HloInstruction::CreateConvert(shape, operand)`.
pub fn convert(
    computation: &Computation,
    operand: InstrId,
    element_type: PrimitiveType,
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::convert(from, element_type),
    )?;
    result.layout = from.layout.clone();
    if from.element_type.bit_width() != element_type.bit_width() {
        if let Some(layout) = &mut result.layout {
            layout.tiles.clear();
            layout.element_size_in_bits = 0;
        }
    }
    Ok(of_opcode(computation, Opcode::Convert, result, &[operand]))
}

/// `reshape(operand)` to the static `dims`, of as many elements, in XLA's default layout.
/// XLA: `HloInstruction::CreateReshape(shape, operand)`.
pub fn reshape(
    computation: &Computation,
    operand: InstrId,
    dims: &[i64],
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::reshape(from, &static_dims(dims)),
    )?;
    result.layout = Some(Layout::descending(result.rank()));
    Ok(of_opcode(computation, Opcode::Reshape, result, &[operand]))
}

/// `broadcast(operand), dimensions=dimensions` to the static `dims`: operand dim `i` is
/// result dim `dimensions[i]`. XLA's default layout. XLA:
/// `HloInstruction::CreateBroadcast(shape, operand, dimensions)`.
pub fn broadcast(
    computation: &Computation,
    operand: InstrId,
    dims: &[i64],
    dimensions: &[i64],
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::broadcast(from, &static_dims(dims), dimensions),
    )?;
    result.layout = Some(Layout::descending(result.rank()));
    let mut built = of_opcode(computation, Opcode::Broadcast, result, &[operand]);
    built
        .instruction
        .set_int_list_attribute("dimensions", dimensions);
    Ok(built)
}

/// `slice(operand), slice={[start:limit:stride], ...}`, one range per dim, laid out as the
/// operand. XLA: `HloInstruction::CreateSlice(shape, operand, starts, limits, strides)`.
pub fn slice(
    computation: &Computation,
    operand: InstrId,
    starts: &[i64],
    limits: &[i64],
    strides: &[i64],
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let config = if starts.len() == limits.len() && starts.len() == strides.len() {
        let ranges: Vec<(i64, i64, Option<i64>)> = starts
            .iter()
            .zip(limits)
            .zip(strides)
            .map(|((&start, &limit), &stride)| (start, limit, Some(stride)))
            .collect();
        Ok(SliceConfig::from_ranges(&ranges))
    } else {
        Err(ShapeError::Invalid {
            op: "slice".into(),
            message: format!(
                "{} starts, {} limits and {} strides; each dim needs one of each",
                starts.len(),
                limits.len(),
                strides.len()
            ),
        })
    };
    let config = inferred(computation, &[operand], config)?;
    let mut result = inferred(
        computation,
        &[operand],
        shape_inference::slice(from, &config),
    )?;
    result.layout = from.layout.clone();
    let mut built = of_opcode(computation, Opcode::Slice, result, &[operand]);
    built
        .instruction
        .set_attribute("slice", &config.to_string());
    Ok(built)
}

/// `dot(lhs, rhs)` with `numbers`: batch dims, then the lhs's free dims, then the rhs's, of
/// the more precise operand type, in XLA's default layout. XLA:
/// `HloInstruction::CreateDot(shape, lhs, rhs, dot_dimension_numbers, precision_config)`.
pub fn dot(
    computation: &Computation,
    lhs: InstrId,
    rhs: InstrId,
    numbers: &DotDimensionNumbers,
) -> Result<New, BuildError> {
    let (left, right) = (array(computation, lhs)?, array(computation, rhs)?);
    let mut result = inferred(
        computation,
        &[lhs, rhs],
        shape_inference::dot(left, right, numbers, None),
    )?;
    result.layout = Some(Layout::descending(result.rank()));
    let mut built = of_opcode(computation, Opcode::Dot, result, &[lhs, rhs]);
    built.instruction.set_dot_dimension_numbers(numbers);
    Ok(built)
}

/// `copy(operand)` into `layout` (the operand's own if `None`), which must fit the array: a
/// relayout. XLA: `HloInstruction::CreateUnary(shape_with_layout, HloOpcode::kCopy, operand)`.
pub fn copy(
    computation: &Computation,
    operand: InstrId,
    layout: Option<Layout>,
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let built = of_opcode(computation, Opcode::Copy, from.clone(), &[operand]);
    match layout {
        Some(layout) => built.with_layout(layout),
        None => Ok(built),
    }
}

/// `bitcast(operand)` to `shape`, exactly as given: whether it moves no data is for the
/// caller to know (`ir::bitcast::is_bitcast`) and for the layout-sensitive verifier to check.
/// XLA: `HloInstruction::CreateBitcast(shape, operand)`.
pub fn bitcast(
    computation: &Computation,
    operand: InstrId,
    shape: ArrayShape,
) -> Result<New, BuildError> {
    array(computation, operand)?;
    Ok(of_opcode(computation, Opcode::Bitcast, shape, &[operand]))
}
