//! The canonical printer of a syntax tree: HLO text with XLA's spacing and order
//! (docs/hlo-text.md §3, §4.5, §5 and §7). It is lowering's: an attribute's
//! canonical text, which the IR keeps, is what this prints, and a shape prints as it lowers.
//!
//! Shapes are lowered to `crate::ir` and printed by its `Display`, so arrays without a layout
//! get the default one, as XLA's parser gives them. Everything else is printed from the tree:
//! names keep their `%` or lack of it, numbers and strings keep their text, unknown attributes
//! and opcodes are kept. Attributes are put in XLA's print order; an attribute the order
//! tables do not know stays right after the one it followed. Printing the output again gives
//! the same text.
//!
//! The parts have a file each: the printer of a tree (`printer`), the printer that prints
//! a module as the parser reads it (`streaming`), and what the printer reads off a value's
//! terms (`terms`). The print order of attributes is `ir::attribute_order`, which the IR
//! printer reads too.

mod printer;
mod streaming;
mod terms;

pub(crate) use streaming::{format_pieces_flushing, format_streaming, format_streaming_flushing};

use super::shape::LowerError;
use crate::syntax::ast::{self, Attribute, Module, Term, WordKind};
use printer::{style_for, Printer, Style};
use terms::literal_rank;

/// Prints a module. Fails with every shape that does not lower.
pub fn print_module(module: &Module<'_>) -> Result<String, Vec<LowerError>> {
    let mut printer = Printer {
        out: String::new(),
        errors: Vec::new(),
    };
    printer.module(module);
    if printer.errors.is_empty() {
        Ok(printer.out)
    } else {
        Err(printer.errors)
    }
}

/// The canonical text of an attribute's value (what `fmt` prints after `name=`), for an
/// instruction indented by `indent` spaces (inline bodies are indented from there).
pub(crate) fn attribute_value_text(
    attribute: &Attribute<'_>,
    indent: usize,
) -> Result<String, Vec<LowerError>> {
    // A lone word prints as written (a raw blob, a number, a string, a plain name); most
    // attribute values are one, and they need no printer.
    if let [Term::Word(word, kind)] = attribute.value.as_slice() {
        if !matches!(kind, WordKind::Name | WordKind::NameColon) {
            return Ok(word.text.to_string());
        }
    }
    let mut printer = Printer {
        out: String::new(),
        errors: Vec::new(),
    };
    let style = style_for(attribute.name.text, Style::Default);
    printer.value(attribute.name.text, &attribute.value, style, indent);
    printer.finish()
}

/// The canonical text of a constant's literal, as `fmt` prints it between the parentheses.
pub(crate) fn literal_text(term: &Term<'_>) -> Result<String, Vec<LowerError>> {
    let mut printer = Printer {
        out: String::new(),
        errors: Vec::new(),
    };
    printer.literal(term, 0, literal_rank(term), 0);
    printer.finish()
}

/// The `FileNames` ... `StackFrames` tables as `fmt` prints them, blank lines included.
pub(crate) fn tables_text(tables: &[ast::Table<'_>]) -> Result<String, Vec<LowerError>> {
    let mut printer = Printer {
        out: String::new(),
        errors: Vec::new(),
    };
    printer.tables(tables);
    printer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str) -> String {
        let module = crate::syntax::parse_module(text).unwrap();
        print_module(&module).unwrap()
    }

    #[test]
    fn attribute_values_are_spaced_as_xla_prints_them() {
        // `slice` and `replica_groups` mean nothing on a custom-call, so each stays after the
        // attribute it followed.
        let text = "ENTRY e {\n  ROOT %a = f32[2] custom-call(), sharding={devices=[2,1]<=[2] last_tile_dim_replicate metadata={op_name=\"x\"}}, replica_groups=[2,4]<=[4,2]T(1,0), custom_call_target=\"f\", window={pad=0_0 size=3}, metadata={source_line=1, op_name=\"n\"}, frontend_attributes={b=\"1\",a={x}}, backend_config={\"k\": 1}, output_to_operand_aliasing={{0}: (1, {})}, slice={[0:2:1], [1:3]}\n}\n";
        assert_eq!(
            fmt(text),
            "ENTRY e {\n  ROOT %a = f32[2]{0} custom-call(), window={size=3 pad=0_0}, custom_call_target=\"f\", output_to_operand_aliasing={{0}: (1, {})}, slice={[0:2:1], [1:3]}, sharding={devices=[2,1]<=[2] last_tile_dim_replicate metadata={op_name=\"x\"}}, replica_groups=[2,4]<=[4,2]T(1,0), frontend_attributes={a={x},b=\"1\"}, metadata={op_name=\"n\" source_line=1}, backend_config={\"k\": 1}\n}\n\n"
        );
    }
}
