//! A module as JSON (`--format json`): computations, instructions in print order with their
//! opcode, shape (element type, dims, layout), operands in slot order, called computations
//! and attributes, plus the canonical text. Callers wrap it in a document carrying
//! `"version": 1`; this module's shape only ever grows keys within a version.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ir::module::{Module, Payload};
use crate::ir::shape::{Dim, Shape};

/// A module as `--format json` writes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModuleJson {
    /// The module's name, from its `HloModule` line.
    pub name: String,
    /// The entry computation's name.
    pub entry: String,
    /// In print order.
    pub computations: Vec<ComputationJson>,
    /// The module as `print_ir_module` prints it.
    pub text: String,
}

/// One computation with its instructions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComputationJson {
    /// The computation's name.
    pub name: String,
    /// Whether this is the module's entry computation.
    pub entry: bool,
    /// The root instruction's name, if the computation has one.
    pub root: Option<String>,
    /// In print order.
    pub instructions: Vec<InstructionJson>,
}

/// One instruction: what it computes, from what, into which shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstructionJson {
    /// The instruction's name, without `%`.
    pub name: String,
    /// The opcode as HLO text writes it, `add` or `custom-call`.
    pub opcode: String,
    /// The result shape.
    pub shape: ShapeJson,
    /// Operand names, index = operand slot.
    pub operands: Vec<String>,
    /// Names of called computations, in attribute order.
    pub called: Vec<String>,
    /// Attribute name → canonical value text.
    pub attributes: BTreeMap<String, String>,
    /// `parameter(N)`'s number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter_number: Option<i64>,
    /// A constant's literal text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub literal: Option<String>,
}

/// A shape, as text and taken apart; keys that do not apply to its kind are left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShapeJson {
    /// The shape as HLO text, layout included.
    pub text: String,
    /// `array`, `tuple`, `token` or `opaque`.
    pub kind: &'static str,
    /// An array's element type, `f32`; absent for tuples, tokens and opaque shapes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_type: Option<String>,
    /// Static sizes as numbers, `<=N` and `?` as strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dims: Option<Vec<serde_json::Value>>,
    /// The layout's text, `{1,0:T(8,128)}`; null when the array has none written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<Option<String>>,
    /// An array's dims from most minor to most major, descending when no layout is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minor_to_major: Option<Vec<i64>>,
    /// A tuple's element shapes, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<Vec<ShapeJson>>,
}

/// The JSON view of `module`, in its print order.
pub fn module_json(module: &Module) -> ModuleJson {
    ModuleJson {
        name: module.name.clone(),
        entry: module.entry().name.to_string(),
        computations: computations_json(module),
        text: crate::print::print_ir_module(module),
    }
}

/// The computations of [`module_json`], without printing the module.
pub fn computations_json(module: &Module) -> Vec<ComputationJson> {
    module
        .computations()
        .iter()
        .map(|computation| ComputationJson {
            name: computation.name.to_string(),
            entry: computation.is_entry,
            root: computation
                .root()
                .map(|id| computation.instruction(id).name().to_string()),
            instructions: computation
                .order()
                .iter()
                .map(|&id| {
                    let instruction = computation.instruction(id);
                    InstructionJson {
                        name: instruction.name().to_string(),
                        opcode: instruction.opcode.name().to_string(),
                        shape: shape_json(&instruction.shape),
                        operands: computation
                            .operands(id)
                            .into_iter()
                            .map(|o| computation.instruction(o).name().to_string())
                            .collect(),
                        called: instruction
                            .called
                            .iter()
                            .map(|&c| module.computation(c).name.to_string())
                            .collect(),
                        attributes: instruction
                            .attributes
                            .iter()
                            .map(|a| (a.name.to_string(), a.value.to_string()))
                            .collect(),
                        parameter_number: match instruction.payload {
                            Payload::Parameter(n) => Some(n),
                            _ => None,
                        },
                        literal: match &instruction.payload {
                            Payload::Literal(text) => Some(text.to_string()),
                            _ => None,
                        },
                    }
                })
                .collect(),
        })
        .collect()
}

/// The JSON view of one shape.
pub fn shape_json(shape: &Shape) -> ShapeJson {
    let mut json = ShapeJson {
        text: shape.to_string(),
        kind: "array",
        element_type: None,
        dims: None,
        layout: None,
        minor_to_major: None,
        elements: None,
    };
    let array = match shape {
        Shape::Array(array) => Some(array),
        Shape::Buffer(array) => {
            json.kind = "buffer";
            Some(array)
        }
        Shape::Tuple(elements) => {
            json.kind = "tuple";
            json.elements = Some(elements.iter().map(shape_json).collect());
            None
        }
        Shape::Token => {
            json.kind = "token";
            None
        }
        Shape::Opaque => {
            json.kind = "opaque";
            None
        }
    };
    if let Some(array) = array {
        {
            json.element_type = Some(array.element_type.name().to_string());
            json.dims = Some(
                array
                    .dims
                    .iter()
                    .map(|dim| match dim {
                        Dim::Static(n) => serde_json::Value::from(*n),
                        other => serde_json::Value::from(other.to_string()),
                    })
                    .collect(),
            );
            json.layout = Some(array.layout.as_ref().map(|l| l.to_string()));
            json.minor_to_major = Some(array.layout_or_default().minor_to_major.clone());
        }
    }
    json
}
