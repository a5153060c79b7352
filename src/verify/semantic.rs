//! Rules on attribute values and special ops that XLA's parser and verifier enforce:
//! custom-call API versions and operand layout constraints, infeed shapes, control
//! predecessors, result accuracy, mesh replica groups, parameter replication, physical shapes
//! in layouts, and compact tuple-element operands.

use crate::ir::layout::DimLevel;
use crate::ir::module::{Computation, InstrId, Module};
use crate::ir::opcode::Opcode;
use crate::ir::shape::Shape;

use super::shapes::{compatible, strip_layouts};

/// Splits `text` at `separator` outside brackets and quotes.
pub fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if c == separator && depth == 0 => {
                parts.push(text.get(start..i).unwrap_or(""));
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(text.get(start..).unwrap_or(""));
    parts
}

/// The inside of `{...}`, or the text itself.
fn unbrace(text: &str) -> &str {
    let text = text.trim();
    text.strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text)
}

/// Every problem with one instruction's special rules.
pub fn check(module: &Module, computation: &Computation, id: InstrId) -> Vec<String> {
    let instruction = computation.instruction(id);
    let mut errors = Vec::new();
    let operands = computation.operands(id);

    // Compact tuple-element operands `%t#1#0` must walk into tuples.
    for (slot, path) in &instruction.tuple_paths {
        let Some(&operand) = operands.get(*slot as usize) else {
            continue;
        };
        let mut shape: &Shape = &computation.instruction(operand).shape;
        for &index in path {
            match shape {
                Shape::Tuple(elements) => {
                    match usize::try_from(index).ok().and_then(|i| elements.get(i)) {
                        Some(element) => shape = element,
                        None => {
                            errors.push(format!(
                                "GTE index {index} out of bounds for the {}-element tuple of \
                             operand {slot}",
                                elements.len()
                            ));
                            break;
                        }
                    }
                }
                _ => {
                    errors.push(format!(
                        "GTE operand must be a tuple: operand {slot} has shape {}",
                        strip_layouts(shape)
                    ));
                    break;
                }
            }
        }
    }

    // Sparse layouts alone may carry a physical shape.
    for leaf in instruction.shape.leaves() {
        if let Some(layout) = &leaf.layout {
            let sparse = layout
                .dim_level_types
                .iter()
                .any(|d| d.level != DimLevel::Dense);
            if layout.physical_shape.is_some() && !sparse {
                errors.push(format!(
                    "Layout has physical shape, but is not for a sparse array: {leaf}"
                ));
            }
        }
    }

    if let Some(text) = instruction.attribute("control-predecessors") {
        for name in split_top_level(unbrace(text), ',') {
            let name = name.trim().trim_start_matches('%');
            if !name.is_empty() && computation.find(name).is_none() {
                errors.push(format!(
                    "control predecessor `{name}` is not defined in computation `{}`",
                    computation.name
                ));
            }
        }
    }

    if let Some(text) = instruction.attribute("parameter_replication") {
        let count = split_top_level(unbrace(text), ',')
            .iter()
            .filter(|s| !s.trim().is_empty())
            .count();
        let leaves = leaf_count(&instruction.shape);
        if count != leaves {
            errors.push(format!(
                "parameter has {leaves} leaf buffers, but parameter_replication has {count} \
                 elements"
            ));
        }
    }

    if let Some(text) = instruction.attribute("result_accuracy") {
        if let Err(message) = result_accuracy(text) {
            errors.push(message);
        }
    }

    if let Some(text) = instruction.attribute("replica_groups") {
        if let Some(mesh) = text.trim().strip_prefix("mesh") {
            errors.extend(mesh_replica_groups(mesh));
        }
    }

    match &instruction.opcode {
        Opcode::Parameter => {
            if let crate::ir::module::Payload::Parameter(n) = instruction.payload {
                if n < 0 {
                    errors.push(format!("parameter number must be >= 0, found {n}"));
                }
            }
        }
        Opcode::Infeed => {
            let ok = matches!(&*instruction.shape, Shape::Tuple(e) if e.len() == 2
                && matches!(e.get(1), Some(Shape::Token)));
            if !ok {
                errors.push(format!(
                    "infeed must have a non-empty tuple shape (data, token), found {}",
                    strip_layouts(&instruction.shape)
                ));
            }
        }
        Opcode::CustomCall => {
            errors.extend(custom_call(module, computation, id));
        }
        Opcode::Constant => {
            if let (crate::ir::module::Payload::Literal(text), Shape::Array(shape)) =
                (&instruction.payload, &*instruction.shape)
            {
                errors.extend(super::literals::check(text, shape));
            }
        }
        _ => {}
    }
    errors
}

/// XLA's `ShapeUtil::GetLeafCount`.
fn leaf_count(shape: &Shape) -> usize {
    match shape {
        Shape::Tuple(elements) => elements.iter().map(leaf_count).sum(),
        _ => 1,
    }
}

fn custom_call(module: &Module, computation: &Computation, id: InstrId) -> Vec<String> {
    let _ = module;
    let instruction = computation.instruction(id);
    let mut errors = Vec::new();
    if let Some(version) = instruction.attribute("api_version") {
        match version.trim() {
            "API_VERSION_ORIGINAL"
            | "API_VERSION_STATUS_RETURNING"
            | "API_VERSION_STATUS_RETURNING_UNIFIED"
            | "API_VERSION_TYPED_FFI" => {}
            "API_VERSION_UNSPECIFIED" => {
                errors.push("Invalid API version: API_VERSION_UNSPECIFIED".into())
            }
            other => errors.push(format!("Unknown API version: {other}")),
        }
    }
    if let Some(text) = instruction.attribute("operand_layout_constraints") {
        let items: Vec<&str> = split_top_level(unbrace(text), ',')
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let operands = computation.operands(id);
        if items.len() != operands.len() {
            errors.push(format!(
                "Expected {} operand layout constraints, {} given",
                operands.len(),
                items.len()
            ));
        } else {
            for (i, (item, &operand)) in items.iter().zip(&operands).enumerate() {
                let operand_shape = &computation.instruction(operand).shape;
                match crate::parse_shape(item) {
                    Ok(constraint) if !compatible(&constraint, operand_shape) => {
                        errors.push(format!(
                            "Operand {i} is not compatible with operand shape: the constraint \
                             is {} but the operand is {}",
                            strip_layouts(&constraint),
                            strip_layouts(operand_shape)
                        ))
                    }
                    Ok(_) => {}
                    Err(_) => errors.push(format!(
                        "operand layout constraint {i} `{item}` is not a shape"
                    )),
                }
            }
        }
    }
    errors
}

/// `{mode=highest}` or `{tolerance={atol=F,rtol=F,ulps=N}}`.
fn result_accuracy(text: &str) -> Result<(), String> {
    for item in split_top_level(unbrace(text), ',')
        .into_iter()
        .flat_map(|s| s.split_whitespace())
    {
        let Some((name, value)) = item.split_once('=') else {
            return Err(format!(
                "result_accuracy expects attribute name: found `{item}`, expected mode= or \
                 tolerance="
            ));
        };
        match name {
            "mode" => {
                if !matches!(value.to_ascii_lowercase().as_str(), "default" | "highest") {
                    return Err(format!(
                        "result_accuracy expects ResultAccuracy type but sees: {value} \
                         (expected default or highest)"
                    ));
                }
            }
            "tolerance" => {
                for field in split_top_level(unbrace(value), ',')
                    .into_iter()
                    .flat_map(|s| s.split_whitespace())
                {
                    let Some((key, number)) = field.split_once('=') else {
                        return Err(format!(
                            "result_accuracy tolerance: `{field}` is not key=value"
                        ));
                    };
                    if !matches!(key, "atol" | "rtol" | "ulps") || number.parse::<f64>().is_err() {
                        return Err(format!(
                            "result_accuracy tolerance: invalid attribute name or value `{field}`"
                        ));
                    }
                }
            }
            other => {
                return Err(format!(
                    "result_accuracy: invalid attribute name `{other}`, expected mode or tolerance"
                ))
            }
        }
    }
    Ok(())
}

/// Checks `['a'=2,'b'=2,device_ids=(...)] {'a'}` after `mesh`.
fn mesh_replica_groups(text: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let text = text.trim();
    let Some(rest) = text.strip_prefix('[') else {
        return errors;
    };
    let Some(close) = rest.find(']').and_then(|_| {
        // The declaration ends at the `]` that closes the opening bracket.
        let mut depth = 1i32;
        rest.char_indices().find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
            None
        })
    }) else {
        return errors;
    };
    let declaration = rest.get(..close).unwrap_or("");
    let axes_text = rest.get(close + 1..).unwrap_or("");
    let mut names = Vec::new();
    let mut sizes = Vec::new();
    let mut device_count = None;
    for item in split_top_level(declaration, ',') {
        let item = item.trim();
        if let Some(ids) = item.strip_prefix("device_ids=") {
            let inner = ids.trim().trim_start_matches('(').trim_end_matches(')');
            device_count = Some(if let Some(iota) = inner.strip_prefix('[') {
                let dims = iota.split(']').next().unwrap_or("");
                dims.split(',')
                    .filter_map(|d| d.trim().parse::<i64>().ok())
                    .try_fold(1i64, i64::checked_mul)
            } else {
                let listed = split_top_level(inner, ',')
                    .iter()
                    .filter(|s| !s.trim().is_empty())
                    .count();
                i64::try_from(listed).ok()
            });
        } else if let Some((name, size)) = item.rsplit_once('=') {
            names.push(name.trim().trim_matches(['\'', '"']).to_string());
            sizes.push(size.trim().parse::<i64>().unwrap_or(0));
        }
    }
    // Sizes are the text's integers: their product may overflow, and then no count matches.
    let total = sizes.iter().try_fold(1i64, |acc, &s| acc.checked_mul(s));
    let text = |n: Option<i64>| n.map_or("more than 2^63".to_string(), |n| n.to_string());
    if let Some(count) = device_count {
        if count != total || count.is_none() {
            errors.push(format!(
                "the mesh has {} devices but device_ids lists {}",
                text(total),
                text(count)
            ));
        }
    }
    for axis in split_top_level(unbrace(axes_text), ',') {
        let axis = axis.trim();
        if axis.is_empty() {
            continue;
        }
        // A sub-axis `'a':(1)2` names its axis before the colon.
        let name_part = axis.split(":(").next().unwrap_or(axis);
        let name = name_part.trim().trim_matches(['\'', '"']);
        if names.iter().any(|n| n == name) {
            continue;
        }
        match name.parse::<usize>() {
            Ok(index) if index < names.len() => {}
            Ok(index) => errors.push(format!(
                "axis index {index} is out of bounds for mesh with {} axes",
                names.len()
            )),
            Err(_) => errors.push(format!(
                "'{name}' is not a valid axis name or index of the mesh"
            )),
        }
    }
    errors
}
