//! Rules on attribute values and special ops that XLA's parser and verifier enforce:
//! custom-call API versions and operand layout constraints, infeed shapes, control
//! predecessors, result accuracy, mesh replica groups, parameter replication, physical shapes
//! in layouts, and compact tuple-element operands.

use crate::ir::module::{Computation, InstrId};
use crate::ir::opcode::Opcode;
use crate::ir::shape::DimLevel;
use crate::ir::shape::Shape;
use crate::ir::vocabulary::split_top_level;

use super::error::{Found, Problems};
use crate::ir::shape_compare::{compatible, strip_layouts};

/// The inside of `{...}`, or the text itself.
fn unbrace(text: &str) -> &str {
    let text = text.trim();
    text.strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text)
}

/// Every problem with one instruction's special rules.
pub fn check(computation: &Computation, id: InstrId, operands: &[InstrId]) -> Problems {
    let instruction = computation.instruction(id);
    let mut errors = Problems::default();

    // Compact tuple-element operands `%t#1#0` must walk into tuples.
    for (slot, path) in instruction.tuple_paths() {
        let Some(&operand) = operands.get(slot as usize) else {
            continue;
        };
        let mut shape: &Shape = &computation.instruction(operand).shape;
        for &index in path {
            match shape {
                Shape::Tuple(elements) => {
                    match usize::try_from(index).ok().and_then(|i| elements.get(i)) {
                        Some(element) => shape = element,
                        None => {
                            errors.push_at(
                                Found::Operand(slot as usize),
                                format!(
                                    "GTE index {index} out of bounds for the {}-element tuple of \
                             operand {slot}",
                                    elements.len()
                                ),
                            );
                            break;
                        }
                    }
                }
                _ => {
                    errors.push_at(
                        Found::Operand(slot as usize),
                        format!(
                            "GTE operand must be a tuple: operand {slot} has shape {}",
                            strip_layouts(shape)
                        ),
                    );
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
                errors.push_at(
                    Found::AfterShape,
                    format!("Layout has physical shape, but is not for a sparse array: {leaf}"),
                );
            }
        }
    }

    if let Some(text) = instruction.attribute("control-predecessors") {
        for name in split_top_level(unbrace(text), ',') {
            let name = name.trim().trim_start_matches('%');
            if name.is_empty() {
                continue;
            }
            // XLA looks each name up as it reads it.
            let found = Found::AfterName {
                attribute: "control-predecessors",
                name: name.to_string(),
            };
            match computation.find(name) {
                None => errors.push_at(
                    found,
                    format!(
                        "control predecessor `{name}` is not defined in computation `{}`",
                        computation.name
                    ),
                ),
                // XLA reads the names when it reads the instruction (its message: "instruction
                // 'b' is not defined"), so a predecessor must come first.
                Some(predecessor) if !computation.precedes(predecessor, id) => errors.push_at(
                    found,
                    format!(
                        "control predecessor `{name}` is defined after the instruction it \
                         precedes; XLA reads it only when it comes first"
                    ),
                ),
                Some(_) => {}
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
            errors.push_at(
                Found::AfterInstruction,
                format!(
                    "parameter has {leaves} leaf buffers, but parameter_replication has {count} \
                 elements"
                ),
            );
        }
    }

    errors.extend(super::enums::check(instruction));

    if let Some(text) = instruction.attribute("result_accuracy") {
        if let Err(message) = result_accuracy(text) {
            errors.push(message);
        }
    }

    if let Some(text) = instruction.attribute("sharding") {
        if let Err(message) = super::sharding::check(text) {
            errors.push(format!("sharding={text}: {message}"));
        }
    }

    if let Some(text) = instruction.attribute("origin") {
        if let Err(message) = super::origin::check(text) {
            errors.push(format!("origin={text}: {message}"));
        }
    }

    if let Some(index) = instruction
        .attributes
        .iter()
        .position(|a| &*a.name == "replica_groups")
    {
        let text = &instruction.attributes[index].value;
        if let Some(mesh) = text.trim().strip_prefix("mesh") {
            let device_ids = mesh_device_ids(instruction, index + 1);
            errors.extend(mesh_replica_groups(mesh, device_ids));
        }
    }

    match &instruction.opcode {
        Opcode::Parameter => {
            if let crate::ir::module::Payload::Parameter(n) = instruction.payload {
                if n < 0 {
                    errors.push_at(
                        Found::AfterParameterNumber,
                        format!("parameter number must be >= 0, found {n}"),
                    );
                }
            }
        }
        Opcode::Infeed => {
            let ok = matches!(&*instruction.shape, Shape::Tuple(e) if e.len() == 2
                && matches!(e.get(1), Some(Shape::Token)));
            if !ok {
                errors.push_at(
                    Found::AfterInstruction,
                    format!(
                        "infeed must have a non-empty tuple shape (data, token), found {}",
                        strip_layouts(&instruction.shape)
                    ),
                );
            }
        }
        Opcode::CustomCall => {
            errors.extend(custom_call(computation, id));
        }
        Opcode::Constant => {
            match (&instruction.payload, &*instruction.shape) {
                (crate::ir::module::Payload::Literal(text), Shape::Array(shape)) => {
                    errors.extend(super::literals::check(text, shape));
                }
                // XLA reads a tuple literal only as `(a, b)`; its canonical print `{...}`
                // elides it past reading.
                (crate::ir::module::Payload::Literal(text), Shape::Tuple(_))
                    if !text.trim_start().starts_with('(') =>
                {
                    errors.push("expects '(' in front of tuple elements".to_string());
                }
                _ => {}
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

fn custom_call(computation: &Computation, id: InstrId) -> Problems {
    let instruction = computation.instruction(id);
    let mut errors = Problems::default();
    if let Some(version) = instruction.attribute("api_version") {
        match version.trim() {
            "API_VERSION_ORIGINAL"
            | "API_VERSION_STATUS_RETURNING"
            | "API_VERSION_STATUS_RETURNING_UNIFIED"
            | "API_VERSION_TYPED_FFI" => {}
            "API_VERSION_UNSPECIFIED" => errors.push_at(
                Found::AfterInstruction,
                "Invalid API version: API_VERSION_UNSPECIFIED",
            ),
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
            errors.push_at(
                Found::AfterInstruction,
                format!(
                    "Expected {} operand layout constraints, {} given",
                    operands.len(),
                    items.len()
                ),
            );
        } else {
            for (i, (item, &operand)) in items.iter().zip(&operands).enumerate() {
                let operand_shape = &computation.instruction(operand).shape;
                match crate::parse_shape(item) {
                    Ok(constraint) if !compatible(&constraint, operand_shape) => errors.push_at(
                        Found::AfterInstruction,
                        format!(
                            "Operand {i} is not compatible with operand shape: the constraint \
                             is {} but the operand is {}",
                            strip_layouts(&constraint),
                            strip_layouts(operand_shape)
                        ),
                    ),
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
pub(crate) fn result_accuracy(text: &str) -> Result<(), String> {
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

/// The value of attribute `index` when it is the `device_ids` that XLA prints right after
/// `replica_groups=mesh[...]` as part of that value (`mesh['a'=2,'b'=4],
/// device_ids=([2,4]T(1,0)) {'b'}`): reading the text as attributes splits it there.
pub fn mesh_device_ids(instruction: &crate::ir::Instruction, index: usize) -> Option<&str> {
    let previous = instruction.attributes.get(index.checked_sub(1)?)?;
    let attribute = instruction.attributes.get(index)?;
    (&*attribute.name == "device_ids"
        && &*previous.name == "replica_groups"
        && previous.value.trim_start().starts_with("mesh"))
    .then_some(&*attribute.value)
}

/// Joins `['a'=2,'b'=4]` and the `device_ids` value `([2,4]T(1,0)) {'b'}` into
/// `['a'=2,'b'=4,device_ids=([2,4]T(1,0))] {'b'}` for [`mesh_replica_groups`], after
/// checking the forms XLA reads: a list of ids, a one-dimensional iota `[n]`, or a
/// transposed iota `[d0,d1,..]T(..)`, then the axes in braces.
fn mesh_with_device_ids(mesh: &str, value: &str) -> Result<String, String> {
    let declaration = mesh.trim();
    if !(declaration.starts_with('[') && declaration.ends_with(']')) {
        return Err(format!(
            "expected the mesh `[...]` right before device_ids, found `{declaration}`"
        ));
    }
    let value = value.trim();
    // The parenthesis that closes the opening one (the iota form nests `T(..)` inside).
    let mut depth = 0usize;
    let close = value
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => return false,
            }
            depth == 0
        })
        .map(|(i, _)| i)
        .filter(|_| value.starts_with('('))
        .ok_or_else(|| format!("expected '(' and ')' around device_ids, found `{value}`"))?;
    let ids = value[1..close].trim();
    let axes = value[close + 1..].trim();
    if let Some(iota) = ids.strip_prefix('[') {
        let (dims, transpose) = iota
            .split_once(']')
            .ok_or_else(|| "expected ']' to end the device_ids iota".to_string())?;
        let rank = dims.split(',').count();
        match transpose.trim() {
            "" if rank > 1 => {
                return Err("expected 'T(' to start sharding devices iota_transpose_perm".into())
            }
            "" => {}
            t if t.starts_with("T(") && rank > 1 => {}
            _ => return Err("expected ')' to end device_ids".into()),
        }
    }
    if !(axes.starts_with('{') && axes.ends_with('}')) {
        return Err(format!(
            "expected the mesh axes in braces after device_ids, e.g. {{'a'}}, found `{axes}`"
        ));
    }
    let inner = &declaration[1..declaration.len() - 1];
    let comma = if inner.trim().is_empty() { "" } else { "," };
    Ok(format!("[{inner}{comma}device_ids=({ids})] {axes}"))
}

/// Checks a mesh replica group list after `mesh`: `['a'=2,'b'=2] {'a'}`, or `['a'=2,'b'=2]`
/// with `device_ids` (`(3,2,1,0) {'a'}`, `([4]) {'a'}` or `([2,2]T(1,0)) {'a'}`).
fn mesh_replica_groups(text: &str, device_ids: Option<&str>) -> Vec<String> {
    let mut errors = Vec::new();
    let text = text.trim();
    let (text, device_ids) = match device_ids {
        Some(value) => match mesh_with_device_ids(text, value) {
            Ok(joined) => (joined, true),
            Err(message) => return vec![message],
        },
        None => (text.to_string(), false),
    };
    let text = text.as_str();
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
            if !device_ids {
                errors.push(
                    "device_ids goes after the mesh's closing bracket: \
                     mesh['a'=2,'b'=2], device_ids=(...) {'a'}"
                        .to_string(),
                );
                return errors;
            }
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
