//! The entry computation's layouts: the parameter and result layouts a module gives
//! (`entry_computation_layout`, else the parameters' own), tiled for the target, and the
//! header rewritten to the layouts assigned.

use crate::ir::module::Module;
use crate::ir::shape::{ArrayShape, Shape};
use crate::ir::shape_compare::compatible;
use crate::ir::Target;

/// The shapes `entry_computation_layout={(...)->...}` gives the entry's parameters, else
/// the parameters' own; tiled by the target where no tiles were given.
pub(super) fn entry_parameter_shapes(
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

pub(super) fn given_result_shape(
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
pub(super) fn with_layouts(shape: &Shape, layouts: &Shape) -> Shape {
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
pub(super) fn complete_tiles(shape: &Shape, target: &Target) -> Shape {
    map_arrays(shape, &|array| {
        let has_tiles = array.layout.as_ref().is_some_and(|l| !l.tiles.is_empty());
        if has_tiles {
            array.clone()
        } else {
            target.assign_tiles(array)
        }
    })
}

pub(super) fn map_arrays(shape: &Shape, f: &dyn Fn(&ArrayShape) -> ArrayShape) -> Shape {
    match shape {
        Shape::Array(array) => Shape::Array(f(array)),
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(|e| map_arrays(e, f)).collect()),
        other => other.clone(),
    }
}

/// Rewrites `entry_computation_layout` to the layouts assigned. Where the header gave
/// compatible shapes, their dims stay as written (`f32[<=8]`, `f32[?]`) and only the layouts
/// change. `written` is the header's layout as the pass found it.
pub(super) fn update_entry_computation_layout(
    module: &mut Module,
    written: Option<(Vec<Shape>, Shape)>,
) {
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
