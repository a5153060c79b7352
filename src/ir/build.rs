//! Typed builders for new instructions, as XLA's `HloInstruction::CreateTranspose`,
//! `CreateUnary` and `CreateBitcast` are: each infers the result shape from its operands with
//! [`super::shape_inference`], gives it a layout, writes its attributes as XLA prints them
//! and takes the print style of its first operand. A builder reads the computation and
//! returns a [`New`]; `Computation::insert_before` or `Computation::replace_with_new` adds
//! it.
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
//! let t = c.insert_before(n, t.instruction, &t.operands);
//! assert_eq!(c.instruction(t).attribute("dimensions"), Some("{1,0}"));
//! ```

use std::sync::Arc;

use super::layout::Layout;
use super::module::{Computation, InstrId, Instruction};
use super::opcode::Opcode;
use super::shape::{ArrayShape, Shape};
use super::shape_inference::{self, ShapeError};

/// An instruction ready to add, with its operands in slot order.
#[derive(Clone, Debug)]
pub struct New {
    pub instruction: Instruction,
    pub operands: Vec<InstrId>,
}

/// Why a builder could not make the instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum BuildError {
    #[error("no instruction {0:?} in this computation")]
    #[diagnostic(code(hlo::build::no_such_instruction))]
    NoSuchInstruction(InstrId),
    #[error("`{name}` is not an array")]
    #[diagnostic(code(hlo::build::not_an_array))]
    NotAnArray { name: String },
    #[error(transparent)]
    #[diagnostic(code(hlo::build::shape))]
    Shape(#[from] ShapeError),
}

fn array<'c>(computation: &'c Computation, id: InstrId) -> Result<&'c ArrayShape, BuildError> {
    let instruction = computation
        .get(id)
        .ok_or(BuildError::NoSuchInstruction(id))?;
    instruction
        .shape
        .as_array()
        .ok_or_else(|| BuildError::NotAnArray {
            name: instruction.name.to_string(),
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
    if let Some(first) = operands.first().and_then(|&o| computation.get(o)) {
        instruction.style = first.style;
    }
    New {
        instruction,
        operands: operands.to_vec(),
    }
}

fn int_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

/// `transpose(operand), dimensions=permutation`, laid out in the operand's physical order
/// (result dim `i` is operand dim `permutation[i]`), so that it moves nothing where the
/// operand's layout allows: what layout assignment would give it.
pub fn transpose(
    computation: &Computation,
    operand: InstrId,
    permutation: &[i64],
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = shape_inference::transpose(from, permutation)?;
    let mut layout = from
        .layout
        .clone()
        .unwrap_or_else(|| Layout::descending(from.rank()));
    layout.minor_to_major = layout
        .minor_to_major
        .iter()
        .filter_map(|&d| permutation.iter().position(|&p| p == d).map(|i| i as i64))
        .collect();
    if layout.minor_to_major.len() == result.rank() {
        result.layout = Some(layout);
    }
    let mut built = new(
        computation,
        "transpose",
        Opcode::Transpose,
        Shape::Array(result),
        &[operand],
    );
    built
        .instruction
        .set_attribute("dimensions", &int_list(permutation));
    Ok(built)
}

/// An elementwise unary op (`negate`, `exponential`, `copy`...) with the operand's shape and
/// layout.
pub fn unary(
    computation: &Computation,
    opcode: Opcode,
    operand: InstrId,
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let mut result = shape_inference::unary(&opcode, from)?;
    result.layout = from.layout.clone();
    let name = opcode.name().to_string();
    Ok(new(
        computation,
        &name,
        opcode,
        Shape::Array(result),
        &[operand],
    ))
}

/// `copy(operand)` into `layout` (the operand's own if `None`): a relayout.
pub fn copy(
    computation: &Computation,
    operand: InstrId,
    layout: Option<Layout>,
) -> Result<New, BuildError> {
    let from = array(computation, operand)?;
    let result = ArrayShape {
        layout: layout.or_else(|| from.layout.clone()),
        ..from.clone()
    };
    Ok(new(
        computation,
        "copy",
        Opcode::Copy,
        Shape::Array(result),
        &[operand],
    ))
}

/// `bitcast(operand)` to `shape`, exactly as given: whether it moves no data is for the
/// caller to know (`ir::bitcast::is_bitcast`) and for the layout-sensitive verifier to check.
pub fn bitcast(
    computation: &Computation,
    operand: InstrId,
    shape: ArrayShape,
) -> Result<New, BuildError> {
    array(computation, operand)?;
    Ok(new(
        computation,
        "bitcast",
        Opcode::Bitcast,
        Shape::Array(shape),
        &[operand],
    ))
}
