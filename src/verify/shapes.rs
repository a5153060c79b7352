//! Shape checks: the result shape of every instruction whose shape follows from its operands
//! and attributes is inferred (see [`crate::ir::shape_inference`]) and compared with the
//! declared one, layouts aside. How shapes compare is `ir::shape_compare`'s; its functions
//! are re-exported here for callers of the public path.

use crate::ir::attrs::{
    parse_int, ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers, PaddingConfig,
    ScatterDimensionNumbers, SliceConfig, Window,
};
use crate::ir::module::{Computation, InstrId, Instruction};
use crate::ir::opcode::{OpKind, Opcode};
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::shape_inference as infer;

pub use crate::ir::shape_compare::{compatible, equals_without_layouts, strip_layouts};

/// The shape of operand `slot` of `id` as the instruction sees it: a compact tuple-element
/// operand (`%t#1`) stands for that element. `None` when the path leads nowhere (reported
/// elsewhere).
pub fn operand_shapes(computation: &Computation, id: InstrId) -> Option<Vec<&Shape>> {
    operand_shapes_of(computation, id, &computation.operands(id))
}

/// [`operand_shapes`], given the operands of `id` in slot order.
pub(crate) fn operand_shapes_of<'c>(
    computation: &'c Computation,
    id: InstrId,
    operands: &[InstrId],
) -> Option<Vec<&'c Shape>> {
    let instruction = computation.instruction(id);
    operands
        .iter()
        .enumerate()
        .map(|(slot, &operand)| {
            let shape: &Shape = &computation.instruction(operand).shape;
            match instruction.tuple_path(slot as u32) {
                [] => Some(shape),
                path => shape.subshape(path),
            }
        })
        .collect()
}

/// An attribute's integer list; `Ok(None)` when absent.
pub fn int_list(instruction: &Instruction, name: &str) -> Result<Option<Vec<i64>>, String> {
    let Some(text) = instruction.attribute(name) else {
        return Ok(None);
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| {
            format!("`{name}` must be an integer list such as {{1,0}}, found `{text}`")
        })?;
    if inner.trim().is_empty() {
        return Ok(Some(Vec::new()));
    }
    inner
        .split(',')
        .map(|item| parse_int(item.trim()).map_err(|e| format!("`{name}`: {e}")))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// An attribute's integer; `Ok(None)` when absent.
pub fn int(instruction: &Instruction, name: &str) -> Result<Option<i64>, String> {
    match instruction.attribute(name) {
        None => Ok(None),
        Some(text) => parse_int(text.trim())
            .map(Some)
            .map_err(|e| format!("`{name}`: {e}")),
    }
}

fn required<T>(value: Result<Option<T>, String>, op: &Opcode, name: &str) -> Result<T, String> {
    value?.ok_or_else(|| format!("`{op}` requires the attribute `{name}`"))
}

/// Reads `window={size=3x3 stride=2x1}`; no attribute is the empty window.
pub fn window(instruction: &Instruction) -> Result<Window, String> {
    let Some(text) = instruction.attribute("window") else {
        return Ok(Window::default());
    };
    window_text(text).map_err(|e| format!("window: {e}"))
}

/// Reads a `window` attribute's value text, `{size=3x3 stride=2x1}`.
pub(crate) fn window_text(text: &str) -> Result<Window, crate::ir::attrs::AttrError> {
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    let fields: Vec<(&str, &str)> = inner
        .split_whitespace()
        .map(|field| field.split_once('=').unwrap_or((field, "")))
        .collect();
    Window::parse(&fields)
}

fn array<'a>(shapes: &[&'a Shape], index: usize, op: &Opcode) -> Result<&'a ArrayShape, String> {
    match shapes.get(index) {
        Some(Shape::Array(array)) => Ok(array),
        Some(other) => Err(format!(
            "operand {index} of `{op}` must be an array, found {other}"
        )),
        None => Err(format!("`{op}` is missing operand {index}")),
    }
}

fn arrays<'a>(shapes: &[&'a Shape], op: &Opcode) -> Result<Vec<&'a ArrayShape>, String> {
    (0..shapes.len()).map(|i| array(shapes, i, op)).collect()
}

fn declared_array(instruction: &Instruction) -> Result<&ArrayShape, String> {
    instruction.shape.as_array().ok_or_else(|| {
        format!(
            "`{}` must have an array shape, found {}",
            instruction.opcode, instruction.shape
        )
    })
}

fn dims_list(list: Option<Vec<i64>>) -> Vec<i64> {
    list.unwrap_or_default()
}

/// Infers the shape of one instruction; `Ok(None)` when its opcode has no rule here.
pub fn infer_instruction(
    instruction: &Instruction,
    operands: &[&Shape],
) -> Result<Option<Shape>, String> {
    let op = &instruction.opcode;
    let shape_error = |e: infer::ShapeError| e.to_string();
    let a = |result: Result<ArrayShape, infer::ShapeError>| {
        result.map(|s| Some(Shape::Array(s))).map_err(shape_error)
    };
    match op {
        Opcode::Tuple => {
            let elements: Vec<Shape> = operands.iter().map(|&s| s.clone()).collect();
            return Ok(Some(infer::tuple(&elements)));
        }
        Opcode::GetTupleElement => {
            let index = required(int(instruction, "index"), op, "index")?;
            let operand = operands
                .first()
                .ok_or("`get-tuple-element` has no operand")?;
            return infer::get_tuple_element(operand, index)
                .map(Some)
                .map_err(shape_error);
        }
        Opcode::Copy => {
            return Ok(operands.first().map(|&s| infer::copy(s)));
        }
        Opcode::Bitcast => return Ok(None),
        _ => {}
    }
    match op {
        Opcode::Convert => a(infer::convert(
            array(operands, 0, op)?,
            declared_array(instruction)?.element_type,
        )),
        Opcode::BitcastConvert => a(infer::bitcast_convert(
            array(operands, 0, op)?,
            declared_array(instruction)?.element_type,
        )),
        Opcode::StochasticConvert => a(infer::stochastic_convert(
            array(operands, 0, op)?,
            array(operands, 1, op)?,
            declared_array(instruction)?.element_type,
        )),
        Opcode::ReducePrecision => a(infer::reduce_precision(
            array(operands, 0, op)?,
            required(int(instruction, "exponent_bits"), op, "exponent_bits")?,
            required(int(instruction, "mantissa_bits"), op, "mantissa_bits")?,
        )),
        Opcode::Select => a(infer::select(
            array(operands, 0, op)?,
            array(operands, 1, op)?,
            array(operands, 2, op)?,
        )),
        Opcode::Clamp => a(infer::clamp(
            array(operands, 0, op)?,
            array(operands, 1, op)?,
            array(operands, 2, op)?,
        )),
        Opcode::Broadcast => {
            let operand = array(operands, 0, op)?;
            let dimensions = match int_list(instruction, "dimensions")? {
                Some(dims) => dims,
                // A scalar needs no mapping; XLA's parser allows leaving it out then.
                None if operand.rank() == 0 => Vec::new(),
                None => {
                    return Err(format!(
                        "`broadcast` of the rank-{} operand requires the attribute `dimensions`",
                        operand.rank()
                    ))
                }
            };
            a(infer::broadcast(
                operand,
                &declared_array(instruction)?.dims,
                &dimensions,
            ))
        }
        Opcode::Reshape => a(infer::reshape(
            array(operands, 0, op)?,
            &declared_array(instruction)?.dims,
        )),
        Opcode::Transpose => a(infer::transpose(
            array(operands, 0, op)?,
            &required(int_list(instruction, "dimensions"), op, "dimensions")?,
        )),
        Opcode::Slice => {
            let text = instruction
                .attribute("slice")
                .ok_or("`slice` requires the attribute `slice`")?;
            let config = SliceConfig::parse(text).map_err(|e| e.to_string())?;
            a(infer::slice(array(operands, 0, op)?, &config))
        }
        Opcode::Concatenate => {
            let dims = required(int_list(instruction, "dimensions"), op, "dimensions")?;
            let [dimension] = dims.as_slice() else {
                return Err(format!(
                    "`concatenate` needs exactly one dimension, found {dims:?}"
                ));
            };
            a(infer::concatenate(&arrays(operands, op)?, *dimension))
        }
        Opcode::Pad => {
            let text = instruction
                .attribute("padding")
                .ok_or("`pad` requires the attribute `padding`")?;
            let config = PaddingConfig::parse(text).map_err(|e| e.to_string())?;
            a(infer::pad(
                array(operands, 0, op)?,
                array(operands, 1, op)?,
                &config,
            ))
        }
        Opcode::Dot => a(infer::dot(
            array(operands, 0, op)?,
            array(operands, 1, op)?,
            &DotDimensionNumbers {
                lhs_batch: dims_list(int_list(instruction, "lhs_batch_dims")?),
                lhs_contracting: dims_list(int_list(instruction, "lhs_contracting_dims")?),
                rhs_batch: dims_list(int_list(instruction, "rhs_batch_dims")?),
                rhs_contracting: dims_list(int_list(instruction, "rhs_contracting_dims")?),
            },
            Some(declared_array(instruction)?.element_type),
        )),
        Opcode::Reduce => {
            let all = arrays(operands, op)?;
            if all.len() % 2 != 0 {
                return Err(format!(
                    "`reduce` needs as many init values as operands, found {} operands in all",
                    all.len()
                ));
            }
            let half = all.len() / 2;
            let dimensions = required(int_list(instruction, "dimensions"), op, "dimensions")?;
            infer::reduce(&all[..half], &all[half..], &dimensions)
                .map(Some)
                .map_err(shape_error)
        }
        Opcode::ReduceWindow => {
            let all = arrays(operands, op)?;
            if all.len() % 2 != 0 {
                return Err(format!(
                    "`reduce-window` needs as many init values as operands, found {} operands in all",
                    all.len()
                ));
            }
            let half = all.len() / 2;
            infer::reduce_window(&all[..half], &all[half..], &window(instruction)?)
                .map(Some)
                .map_err(shape_error)
        }
        Opcode::Convolution => {
            let text = instruction
                .attribute("dim_labels")
                .ok_or("`convolution` requires the attribute `dim_labels`")?;
            let dnums = ConvDimensionNumbers::parse(text).map_err(|e| e.to_string())?;
            a(infer::convolution(
                array(operands, 0, op)?,
                array(operands, 1, op)?,
                int(instruction, "feature_group_count")?.unwrap_or(1),
                int(instruction, "batch_group_count")?.unwrap_or(1),
                &window(instruction)?,
                &dnums,
                Some(declared_array(instruction)?.element_type),
            ))
        }
        Opcode::Gather => a(infer::gather(
            array(operands, 0, op)?,
            array(operands, 1, op)?,
            &GatherDimensionNumbers {
                offset_dims: dims_list(int_list(instruction, "offset_dims")?),
                collapsed_slice_dims: dims_list(int_list(instruction, "collapsed_slice_dims")?),
                start_index_map: dims_list(int_list(instruction, "start_index_map")?),
                operand_batching_dims: dims_list(int_list(instruction, "operand_batching_dims")?),
                start_indices_batching_dims: dims_list(int_list(
                    instruction,
                    "start_indices_batching_dims",
                )?),
                index_vector_dim: required(
                    int(instruction, "index_vector_dim"),
                    op,
                    "index_vector_dim",
                )?,
            },
            &required(int_list(instruction, "slice_sizes"), op, "slice_sizes")?,
        )),
        Opcode::Scatter => {
            let all = arrays(operands, op)?;
            if all.len() % 2 == 0 || all.len() < 3 {
                return Err(format!(
                    "`scatter` needs N operands, the indices and N updates, found {} operands",
                    all.len()
                ));
            }
            let count = all.len() / 2;
            let dnums = ScatterDimensionNumbers {
                update_window_dims: dims_list(int_list(instruction, "update_window_dims")?),
                inserted_window_dims: dims_list(int_list(instruction, "inserted_window_dims")?),
                scatter_dims_to_operand_dims: dims_list(int_list(
                    instruction,
                    "scatter_dims_to_operand_dims",
                )?),
                input_batching_dims: dims_list(int_list(instruction, "input_batching_dims")?),
                scatter_indices_batching_dims: dims_list(int_list(
                    instruction,
                    "scatter_indices_batching_dims",
                )?),
                index_vector_dim: required(
                    int(instruction, "index_vector_dim"),
                    op,
                    "index_vector_dim",
                )?,
            };
            infer::scatter(&all[..count], all[count], &all[count + 1..], &dnums)
                .map(Some)
                .map_err(shape_error)
        }
        Opcode::Iota => a(infer::iota(
            declared_array(instruction)?,
            required(int(instruction, "iota_dimension"), op, "iota_dimension")?,
        )),
        Opcode::DynamicSlice => {
            let all = arrays(operands, op)?;
            a(infer::dynamic_slice(
                array(operands, 0, op)?,
                all.get(1..).unwrap_or(&[]),
                &required(
                    int_list(instruction, "dynamic_slice_sizes"),
                    op,
                    "dynamic_slice_sizes",
                )?,
            ))
        }
        Opcode::DynamicUpdateSlice => {
            let all = arrays(operands, op)?;
            a(infer::dynamic_update_slice(
                array(operands, 0, op)?,
                array(operands, 1, op)?,
                all.get(2..).unwrap_or(&[]),
            ))
        }
        Opcode::Reverse => a(infer::reverse(
            array(operands, 0, op)?,
            &required(int_list(instruction, "dimensions"), op, "dimensions")?,
        )),
        Opcode::Sort => {
            let dims = required(int_list(instruction, "dimensions"), op, "dimensions")?;
            let [dimension] = dims.as_slice() else {
                return Err(format!(
                    "`sort` needs exactly one dimension, found {dims:?}"
                ));
            };
            infer::sort(&arrays(operands, op)?, *dimension)
                .map(Some)
                .map_err(shape_error)
        }
        _ => match op.kind() {
            OpKind::ElementwiseUnary => a(infer::unary(op, array(operands, 0, op)?)),
            OpKind::ElementwiseBinary => a(infer::binary(
                op,
                array(operands, 0, op)?,
                array(operands, 1, op)?,
            )),
            _ => Ok(None),
        },
    }
}
