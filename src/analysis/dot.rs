//! Graphviz drawings of a computation, or of the neighbourhood of one instruction, as
//! `interactive_graphviz` draws them: one node per instruction with its name, opcode and
//! shape (layout included), one edge per operand from the operand to its user, declared in
//! operand-slot order (`ordering=in` keeps that order on the page) and labelled with the slot
//! when the user has several operands. Copies and bitcasts, where layouts change, are filled
//! in colour; the root has a double border; a neighbourhood's cut edges show as dashed nodes.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::ir::module::{Computation, InstrId, Module, Payload};
use crate::ir::opcode::Opcode;

/// What to draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotOptions {
    /// The computation by name; the entry computation when `None`.
    pub computation: Option<String>,
    /// Only the instructions within `depth` operand or user edges of this one.
    pub around: Option<String>,
    /// How many operand or user edges from `around` are drawn; unused without it.
    pub depth: usize,
}

/// Why there is nothing to draw: a name that the module does not have.
#[derive(Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum DotError {
    /// `computation` names no computation of the module.
    #[error("the module has no computation named `{name}`")]
    #[diagnostic(code(hlo::dot::no_computation), help("{help}"))]
    NoComputation {
        /// The name asked for.
        name: String,
        /// A hint: the nearest computation name, or the names there are.
        help: String,
    },
    /// `around` names no instruction of the computation drawn.
    #[error("computation `{computation}` has no instruction named `{name}`")]
    #[diagnostic(code(hlo::dot::no_instruction), help("{help}"))]
    NoInstruction {
        /// The name asked for.
        name: String,
        /// The computation drawn.
        computation: String,
        /// A hint: the nearest instruction name, or the names there are.
        help: String,
    },
}

/// The longest literal text shown on a node.
const LITERAL_CHARS: usize = 32;

/// The Graphviz text of the computation `options` chooses, or of the neighbourhood of one of
/// its instructions.
pub fn render_dot(module: &Module, options: &DotOptions) -> Result<String, DotError> {
    let computation = match &options.computation {
        None => module.entry(),
        Some(name) => match module.find_computation(name.trim_start_matches('%')) {
            Some(id) => module.computation(id),
            None => {
                let names: Vec<&str> = module
                    .computations()
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect();
                return Err(DotError::NoComputation {
                    name: name.clone(),
                    help: suggestion("computations", name, &names),
                });
            }
        },
    };
    let (shown, cut) = match &options.around {
        None => (
            computation.order().iter().copied().collect::<BTreeSet<_>>(),
            BTreeSet::new(),
        ),
        Some(name) => {
            let Some(center) = computation.find(name.trim_start_matches('%')) else {
                let names: Vec<&str> = computation
                    .order()
                    .iter()
                    .map(|&id| computation.instruction(id).name())
                    .collect();
                return Err(DotError::NoInstruction {
                    name: name.clone(),
                    computation: computation.name.to_string(),
                    help: suggestion("instructions", name, &names),
                });
            };
            neighbourhood(computation, center, options.depth)
        }
    };
    let mut out = String::new();
    let title = match &options.around {
        Some(name) => format!(
            "{} around {} (depth {})",
            computation.name, name, options.depth
        ),
        None => computation.name.to_string(),
    };
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&title));
    out.push_str("  // copies are orange and bitcasts blue; ROOT has a double border; dashed nodes have neighbours not drawn\n");
    let _ = writeln!(
        out,
        "  graph [label=\"{}\", labelloc=t, ordering=in, rankdir=TB];",
        escape(&title)
    );
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=9];\n");
    let root = computation.root();
    // Node ids are print positions, so the output follows the module's order.
    let positions: std::collections::HashMap<InstrId, usize> = computation
        .order()
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let position = |id: InstrId| positions.get(&id).copied().unwrap_or(usize::MAX);
    for &id in computation.order() {
        if !shown.contains(&id) {
            continue;
        }
        let instruction = computation.instruction(id);
        let mut label = String::new();
        if Some(id) == root {
            label.push_str("ROOT ");
        }
        label.push_str(instruction.name());
        label.push('\n');
        label.push_str(instruction.opcode.name());
        match &instruction.payload {
            Payload::Parameter(n) => {
                let _ = write!(label, "({n})");
            }
            Payload::Literal(text) => {
                let mut text = text.to_string();
                if text.chars().count() > LITERAL_CHARS {
                    text = text.chars().take(LITERAL_CHARS).collect::<String>() + "...";
                }
                let _ = write!(label, "({text})");
            }
            Payload::None => {}
        }
        label.push('\n');
        label.push_str(&instruction.shape.to_string());
        for &called in &instruction.called {
            let _ = write!(label, "\ncalls {}", module.computation(called).name);
        }
        let mut attributes = vec![format!("label=\"{}\"", escape(&label))];
        let mut styles = Vec::new();
        match instruction.opcode {
            Opcode::Copy => {
                styles.push("filled");
                attributes.push("fillcolor=\"#fdb863\"".into());
            }
            Opcode::Bitcast => {
                styles.push("filled");
                attributes.push("fillcolor=\"#92c5de\"".into());
            }
            Opcode::Parameter => attributes.push("shape=ellipse".into()),
            _ => {}
        }
        if cut.contains(&id) {
            styles.push("dashed");
        }
        if !styles.is_empty() {
            attributes.push(format!("style=\"{}\"", styles.join(",")));
        }
        if Some(id) == root {
            attributes.push("peripheries=2".into());
        }
        let _ = writeln!(out, "  n{} [{}];", position(id), attributes.join(", "));
    }
    for &id in computation.order() {
        if !shown.contains(&id) {
            continue;
        }
        let operands = computation.operands(id);
        for (slot, operand) in operands.iter().enumerate() {
            if !shown.contains(operand) {
                continue;
            }
            if operands.len() > 1 {
                let _ = writeln!(
                    out,
                    "  n{} -> n{} [label=\"{slot}\"];",
                    position(*operand),
                    position(id)
                );
            } else {
                let _ = writeln!(out, "  n{} -> n{};", position(*operand), position(id));
            }
        }
    }
    out.push_str("}\n");
    Ok(out)
}

/// The instructions within `depth` edges of `center` (either direction), and those of them
/// with a neighbour left out.
fn neighbourhood(
    computation: &Computation,
    center: InstrId,
    depth: usize,
) -> (BTreeSet<InstrId>, BTreeSet<InstrId>) {
    let neighbours = |id: InstrId| {
        let mut all = computation.operands(id);
        all.extend(computation.users(id).into_iter().map(|(user, _)| user));
        all
    };
    let mut shown = BTreeSet::from([center]);
    let mut frontier = vec![center];
    for _ in 0..depth {
        let mut next = Vec::new();
        for id in frontier {
            for neighbour in neighbours(id) {
                if shown.insert(neighbour) {
                    next.push(neighbour);
                }
            }
        }
        frontier = next;
    }
    let cut = shown
        .iter()
        .copied()
        .filter(|&id| neighbours(id).iter().any(|n| !shown.contains(n)))
        .collect();
    (shown, cut)
}

/// A DOT double-quoted string's content: backslashes and quotes escaped, newlines as `\n`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// "did you mean `x`?" for the closest name, or the list when it is short.
fn suggestion(what: &str, wanted: &str, names: &[&str]) -> String {
    let closest = names
        .iter()
        .map(|name| (crate::pass::edit_distance(wanted, name), *name))
        .min();
    match closest {
        Some((distance, name)) if distance <= wanted.len().max(3) / 3 + 1 => {
            format!("did you mean `{name}`?")
        }
        _ if names.len() <= 8 => format!("the {what} are: {}", names.join(", ")),
        _ => format!(
            "there are {} {what}; `hlo-layout fmt` lists them",
            names.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_escape_quotes_backslashes_and_newlines() {
        assert_eq!(escape("a\"b\\c\nd\r"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn neighbourhoods_follow_operands_and_users() {
        let module = crate::parse_module(
            "ENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0} negate(a)\n  c = f32[2]{0} abs(b)\n  ROOT d = f32[2]{0} copy(c)\n}\n",
        )
        .unwrap();
        let options = DotOptions {
            computation: None,
            around: Some("b".into()),
            depth: 1,
        };
        let dot = render_dot(&module, &options).unwrap();
        assert!(
            dot.contains("n0 [label=\"a\\nparameter(0)\\nf32[2]{0}\", shape=ellipse];"),
            "{dot}"
        );
        assert!(
            dot.contains("n2 [label=\"c\\nabs\\nf32[2]{0}\", style=\"dashed\"];"),
            "{dot}"
        );
        assert!(!dot.contains("n3"), "{dot}");
    }
}
