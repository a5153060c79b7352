//! Shape inference agrees with XLA on real HLO: every instruction of the corpus whose opcode
//! has a rule is re-inferred from its operands' declared shapes and attributes, and must give
//! the shape XLA declared for it (layouts aside).
//!
//! The corpus is read from `../shared/corpus`; where it is absent the tests say so and pass.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use hlo_layout::ir::attrs::{
    parse_int, parse_int_list, ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers,
    PaddingConfig, ScatterDimensionNumbers, SliceConfig, Window,
};
use hlo_layout::ir::opcode::OpKind;
use hlo_layout::ir::shape_inference::{self as infer, ShapeError};
use hlo_layout::ir::vocabulary::split_top_level;
use hlo_layout::ir::{ArrayShape, Opcode, Shape};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// One instruction line, split into its parts as text.
struct Instruction<'a> {
    name: &'a str,
    shape: &'a str,
    opcode: &'a str,
    operands: Vec<&'a str>,
    attrs: HashMap<&'a str, &'a str>,
}

/// The index just past the bracket that closes the one opening `text`.
fn matching_close(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reads `[ROOT] name = shape opcode(operands), attr=value, ...`; `None` for other lines.
fn parse_instruction(line: &str) -> Option<Instruction<'_>> {
    let line = line.trim();
    let line = line.strip_prefix("ROOT ").unwrap_or(line);
    let (name, rest) = line.split_once(" = ")?;
    if name.contains(' ') {
        return None;
    }
    let name = name.trim_start_matches('%');
    // The shape ends at the first space outside brackets.
    let mut depth = 0i32;
    let shape_end = rest.char_indices().find_map(|(i, c)| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ' ' if depth == 0 => return Some(i),
            _ => {}
        }
        None
    })?;
    let (shape, rest) = rest.split_at(shape_end);
    let rest = rest.trim_start();
    let open = rest.find('(')?;
    let opcode = &rest[..open];
    if opcode.is_empty() || opcode.contains(' ') {
        return None;
    }
    let close = open + matching_close(&rest[open..])?;
    let inner = &rest[open + 1..close - 1];
    let operands = if inner.trim().is_empty() {
        Vec::new()
    } else {
        // Old dumps write `f32[2] %a`; the name is the last word.
        split_top_level(inner, ',')
            .into_iter()
            .map(|o| {
                o.split_whitespace()
                    .last()
                    .unwrap_or("")
                    .trim_start_matches('%')
            })
            .collect()
    };
    let mut attrs = HashMap::new();
    for attr in split_top_level(&rest[close..], ',').into_iter().skip(1) {
        if let Some((key, value)) = attr.trim().split_once('=') {
            attrs.insert(key, value);
        }
    }
    Some(Instruction {
        name,
        shape,
        opcode,
        operands,
        attrs,
    })
}

fn int_list(text: &str) -> Vec<i64> {
    let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
    let items: Vec<&str> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    parse_int_list(&items).expect("int list")
}

fn window(text: Option<&&str>) -> Window {
    let Some(text) = text else {
        return Window::default();
    };
    let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
    let fields: Vec<(&str, &str)> = inner
        .split_whitespace()
        .map(|field| field.split_once('=').expect("window field"))
        .collect();
    Window::parse(&fields).expect("window")
}

fn array(shape: &Shape) -> Option<&ArrayShape> {
    shape.as_array()
}

/// Re-infers an instruction; `None` when the opcode has no rule here or an operand is not
/// an array where one is needed.
fn infer_instruction(
    inst: &Instruction<'_>,
    operands: &[Shape],
    declared: &Shape,
) -> Option<Result<Shape, ShapeError>> {
    let opcode = Opcode::from_name(inst.opcode);
    let arrays: Option<Vec<&ArrayShape>> = operands.iter().map(array).collect();
    let attr = |name: &str| inst.attrs.get(name).copied();
    let list = |name: &str| attr(name).map(int_list).unwrap_or_default();
    let int = |name: &str| attr(name).map(|t| parse_int(t).expect("int"));
    let a = |result: Result<ArrayShape, ShapeError>| Some(result.map(Shape::Array));
    match inst.opcode {
        "tuple" => return Some(Ok(infer::tuple(operands))),
        "get-tuple-element" => {
            return Some(infer::get_tuple_element(operands.first()?, int("index")?))
        }
        "copy" => return Some(Ok(infer::copy(operands.first()?))),
        _ => {}
    }
    let arrays = arrays?;
    let declared_array = declared.as_array();
    match inst.opcode {
        "convert" => a(infer::convert(
            arrays.first()?,
            declared_array?.element_type,
        )),
        "bitcast-convert" => a(infer::bitcast_convert(
            arrays.first()?,
            declared_array?.element_type,
        )),
        "stochastic-convert" => None,
        "reduce-precision" => a(infer::reduce_precision(
            arrays.first()?,
            int("exponent_bits")?,
            int("mantissa_bits")?,
        )),
        "select" => a(infer::select(
            arrays.first()?,
            arrays.get(1)?,
            arrays.get(2)?,
        )),
        "clamp" => a(infer::clamp(
            arrays.first()?,
            arrays.get(1)?,
            arrays.get(2)?,
        )),
        "broadcast" => a(infer::broadcast(
            arrays.first()?,
            &declared_array?.dims,
            &list("dimensions"),
        )),
        "reshape" => a(infer::reshape(arrays.first()?, &declared_array?.dims)),
        "transpose" => a(infer::transpose(arrays.first()?, &list("dimensions"))),
        "slice" => a(infer::slice(
            arrays.first()?,
            &SliceConfig::parse(attr("slice")?).expect("slice"),
        )),
        "concatenate" => a(infer::concatenate(&arrays, *list("dimensions").first()?)),
        "pad" => a(infer::pad(
            arrays.first()?,
            arrays.get(1)?,
            &PaddingConfig::parse(attr("padding")?).expect("padding"),
        )),
        "dot" => a(infer::dot(
            arrays.first()?,
            arrays.get(1)?,
            &DotDimensionNumbers {
                lhs_batch: list("lhs_batch_dims"),
                lhs_contracting: list("lhs_contracting_dims"),
                rhs_batch: list("rhs_batch_dims"),
                rhs_contracting: list("rhs_contracting_dims"),
            },
            Some(declared_array?.element_type),
        )),
        "reduce" => {
            let half = arrays.len() / 2;
            Some(infer::reduce(
                &arrays[..half],
                &arrays[half..],
                &list("dimensions"),
            ))
        }
        "reduce-window" => {
            let half = arrays.len() / 2;
            Some(infer::reduce_window(
                &arrays[..half],
                &arrays[half..],
                &window(inst.attrs.get("window")),
            ))
        }
        "convolution" => a(infer::convolution(
            arrays.first()?,
            arrays.get(1)?,
            int("feature_group_count").unwrap_or(1),
            int("batch_group_count").unwrap_or(1),
            &window(inst.attrs.get("window")),
            &ConvDimensionNumbers::parse(attr("dim_labels")?).expect("dim labels"),
            Some(declared_array?.element_type),
        )),
        "gather" => a(infer::gather(
            arrays.first()?,
            arrays.get(1)?,
            &GatherDimensionNumbers {
                offset_dims: list("offset_dims"),
                collapsed_slice_dims: list("collapsed_slice_dims"),
                start_index_map: list("start_index_map"),
                operand_batching_dims: list("operand_batching_dims"),
                start_indices_batching_dims: list("start_indices_batching_dims"),
                index_vector_dim: int("index_vector_dim")?,
            },
            &list("slice_sizes"),
        )),
        "scatter" => {
            let count = arrays.len() / 2;
            Some(infer::scatter(
                &arrays[..count],
                arrays.get(count)?,
                &arrays[count + 1..],
                &ScatterDimensionNumbers {
                    update_window_dims: list("update_window_dims"),
                    inserted_window_dims: list("inserted_window_dims"),
                    scatter_dims_to_operand_dims: list("scatter_dims_to_operand_dims"),
                    input_batching_dims: list("input_batching_dims"),
                    scatter_indices_batching_dims: list("scatter_indices_batching_dims"),
                    index_vector_dim: int("index_vector_dim")?,
                },
            ))
        }
        "iota" => a(infer::iota(declared_array?, int("iota_dimension")?)),
        "dynamic-slice" => a(infer::dynamic_slice(
            arrays.first()?,
            &arrays[1..],
            &list("dynamic_slice_sizes"),
        )),
        "dynamic-update-slice" => a(infer::dynamic_update_slice(
            arrays.first()?,
            arrays.get(1)?,
            &arrays[2..],
        )),
        "reverse" => a(infer::reverse(arrays.first()?, &list("dimensions"))),
        "sort" => Some(infer::sort(&arrays, *list("dimensions").first()?)),
        _ => match opcode.kind() {
            OpKind::ElementwiseUnary => a(infer::unary(&opcode, arrays.first()?)),
            OpKind::ElementwiseBinary => a(infer::binary(&opcode, arrays.first()?, arrays.get(1)?)),
            _ => None,
        },
    }
}

/// The shape without layouts, for comparing with an inferred one.
fn strip_layouts(shape: &Shape) -> Shape {
    infer::copy(shape)
}

#[derive(Default)]
struct Sweep {
    checked: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Sweep {
    fn run_file(&mut self, path: &Path) {
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        let mut shapes: HashMap<String, Shape> = HashMap::new();
        for (number, line) in logical_lines(&text) {
            if line.starts_with("HloModule") {
                shapes.clear();
            }
            let Some(inst) = parse_instruction(&line) else {
                continue;
            };
            let Ok(declared) = hlo_layout::parse_shape(inst.shape) else {
                continue;
            };
            let operands: Option<Vec<Shape>> = inst
                .operands
                .iter()
                .map(|name| shapes.get(*name).cloned())
                .collect();
            shapes.insert(inst.name.to_string(), declared.clone());
            let Some(operands) = operands else {
                continue;
            };
            let Some(result) = infer_instruction(&inst, &operands, &declared) else {
                continue;
            };
            *self.checked.entry(inst.opcode.to_string()).or_default() += 1;
            let expected = strip_layouts(&declared);
            match result {
                Ok(inferred) if inferred == expected => {}
                other => self.failures.push(format!(
                    "{}:{}: {}\n  declared {expected}, inferred {other:?}",
                    path.display(),
                    number + 1,
                    line.trim()
                )),
            }
        }
    }

    fn count(&self, opcode: &str) -> usize {
        self.checked.get(opcode).copied().unwrap_or(0)
    }

    fn assert_clean(&self) {
        if !self.failures.is_empty() {
            panic!(
                "{} of {} instructions disagree with XLA:\n{}",
                self.failures.len(),
                self.checked.values().sum::<usize>(),
                self.failures
                    .iter()
                    .take(25)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// The lines of `text` with an instruction's continuation lines (after a trailing comma)
/// joined to it, each with its first line number.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut continues = false;
    for (number, line) in text.lines().enumerate() {
        match lines.last_mut() {
            Some((_, joined)) if continues => {
                joined.push(' ');
                joined.push_str(line.trim());
            }
            _ => lines.push((number, line.to_string())),
        }
        continues = line.trim_end().ends_with(',');
    }
    lines
}

fn hlo_files(folder: &str) -> Option<Vec<PathBuf>> {
    let dir = corpus_dir().join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "hlo"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn instruction_reader_splits_corpus_lines() {
    let line = "  ROOT %gather.9 = f32[128,1,64]{2,1,0} gather(%param_0.15, %bitcast.18), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}, metadata={op_name=\"a, b\"}";
    let inst = parse_instruction(line).unwrap();
    assert_eq!(inst.name, "gather.9");
    assert_eq!(inst.shape, "f32[128,1,64]{2,1,0}");
    assert_eq!(inst.opcode, "gather");
    assert_eq!(inst.operands, vec!["param_0.15", "bitcast.18"]);
    assert_eq!(inst.attrs["slice_sizes"], "{1,64}");
    assert_eq!(inst.attrs["metadata"], "{op_name=\"a, b\"}");
    let tuple = parse_instruction(
        "t = (f32[2]{0}, f32[], f32[], f32[], f32[], /*index=5*/s32[]) tuple(a, b, c, d, e, f)",
    )
    .unwrap();
    assert_eq!(tuple.opcode, "tuple");
    assert_eq!(tuple.operands.len(), 6);
    assert!(parse_instruction("ENTRY main.1 {").is_none());
}

#[test]
fn jax_corpus_shapes_match_xla() {
    let Some(files) = hlo_files("jax") else {
        eprintln!("skipped: no corpus at {}", corpus_dir().display());
        return;
    };
    let mut sweep = Sweep::default();
    for file in &files {
        sweep.run_file(file);
    }
    eprintln!("checked per opcode: {:?}", sweep.checked);
    sweep.assert_clean();
    // The sweep must have reached the rules it is meant to check.
    for (opcode, at_least) in [
        ("convolution", 8),
        ("gather", 7),
        ("scatter", 8),
        ("dot", 40),
        ("reduce-window", 7),
        ("reduce", 40),
        ("pad", 15),
        ("slice", 100),
        ("concatenate", 15),
        ("broadcast", 500),
        ("transpose", 5),
        ("bitcast-convert", 15),
        ("dynamic-slice", 3),
        ("dynamic-update-slice", 2),
        ("select", 100),
        ("compare", 100),
        ("get-tuple-element", 500),
    ] {
        assert!(
            sweep.count(opcode) >= at_least,
            "only {} {opcode} instructions were checked",
            sweep.count(opcode)
        );
    }
}

#[test]
fn xla_test_inputs_shapes_match_xla() {
    let Some(files) = hlo_files("xla-tests") else {
        eprintln!("skipped: no corpus at {}", corpus_dir().display());
        return;
    };
    let mut sweep = Sweep::default();
    for file in &files {
        sweep.run_file(file);
    }
    eprintln!("checked per opcode: {:?}", sweep.checked);
    sweep.assert_clean();
    for (opcode, at_least) in [
        ("gather", 200),
        ("scatter", 500),
        ("convolution", 100),
        ("dot", 5000),
        ("reduce-window", 300),
        ("dynamic-update-slice", 500),
    ] {
        assert!(
            sweep.count(opcode) >= at_least,
            "only {} {opcode} instructions were checked",
            sweep.count(opcode)
        );
    }
}

#[test]
fn large_corpus_shapes_match_xla() {
    let Some(files) = hlo_files("large") else {
        eprintln!("skipped: no corpus at {}", corpus_dir().display());
        return;
    };
    let mut sweep = Sweep::default();
    for file in &files {
        sweep.run_file(file);
    }
    eprintln!("checked per opcode: {:?}", sweep.checked);
    sweep.assert_clean();
    assert!(sweep.count("convolution") >= 50, "{:?}", sweep.checked);
    assert!(sweep.count("dot") >= 50, "{:?}", sweep.checked);
}
