//! The printer of a syntax tree: a module, its computations and instructions, and
//! attribute values with XLA's spacing for each kind of value ([`Style`]).
//!
//! Invariant: a shape prints as it lowers (through `crate::ir`), everything else as the
//! tree has it (names with or without `%`, numbers and strings as written), so printing
//! the output again gives the same text. A shape that does not lower is an error, kept
//! until the end, and nothing printed is returned then.

use std::fmt::Write;

use super::terms::{
    default_tight, glued, is_shape_like, literal_rank, push_plain_shape, shape_of,
    word_meets_equals,
};
use crate::ir;
use crate::ir::attribute_order::{attribute_rank, in_print_order, WINDOW_ORDER};
use crate::ir::vocabulary::{HEADER_ORDER, METADATA_FIELDS};
use crate::lower::shape::{lower_shape, LowerError};
use crate::syntax::ast::{
    self, Attribute, Computation, Delimiter, Instruction, List, Module, Name, Operand, Term,
    WordKind,
};

/// How the lists of an attribute value are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    /// Numbers joined by `,`, everything else by `, `.
    Default,
    /// Everything joined by `,`: `frontend_attributes={a="1",b="2"}`.
    Tight,
    /// Fields joined by a space: `metadata={op_type="x" op_name="y"}`.
    Spaced,
    /// Literals: `{ { 1, 2 }, { 3, 4 } }`.
    Literal,
    /// Spaces inside the outer braces: `input_output_alias={ {0}: (0, {}, may-alias) }`.
    Padded,
    /// Like the default; a tuple sharding gets index comments: `{{replicated}, ..., /*index=5*/{manual}}`.
    Sharding,
}

pub(super) fn style_for(name: &str, parent: Style) -> Style {
    match name {
        "metadata" | "window" => Style::Spaced,
        "frontend_attributes"
        | "statistics"
        | "result_accuracy"
        | "operand_precision"
        | "replica_groups"
        | "device_ids"
        | "source_target_pairs"
        | "parameter_replication"
        | "allow_spmd_sharding_propagation_to_parameters"
        | "allow_spmd_sharding_propagation_to_output" => Style::Tight,
        "literal" => Style::Literal,
        "input_output_alias" | "buffer_donor" => Style::Padded,
        "sharding" => Style::Sharding,
        _ if parent == Style::Tight => Style::Tight,
        _ => Style::Default,
    }
}

pub(super) struct Printer {
    pub(super) out: String,
    pub(super) errors: Vec<LowerError>,
}

impl Printer {
    pub(super) fn finish(self) -> Result<String, Vec<LowerError>> {
        if self.errors.is_empty() {
            Ok(self.out)
        } else {
            Err(self.errors)
        }
    }

    pub(super) fn tables(&mut self, tables: &[ast::Table<'_>]) {
        for table in tables {
            self.out.push_str(table.keyword.text);
            self.out.push('\n');
            for row in &table.rows {
                self.out.push_str(row.id.text);
                self.out.push(' ');
                self.table_row_value(&row.value);
                self.out.push('\n');
            }
            self.out.push('\n');
        }
        if !tables.is_empty() {
            self.out.push('\n');
        }
    }

    /// A row's value; most are `{name=1 name=2}`, which print as written, without the
    /// general printer's look at neighbouring terms (tables hold thousands of rows).
    fn table_row_value(&mut self, value: &Term<'_>) {
        if let Term::List(list) = value {
            let int_fields = list.delimiter == Delimiter::Brace
                && list.layout.is_none()
                && list.terms.iter().all(|term| {
                    matches!(term, Term::Attr { value, .. }
                        if matches!(**value, Term::Word(_, WordKind::Int)))
                });
            if int_fields {
                self.out.push('{');
                for (i, term) in list.terms.iter().enumerate() {
                    if let Term::Attr { name, value } = term {
                        if i > 0 {
                            self.out.push(' ');
                        }
                        self.out.push_str(name.text);
                        self.out.push('=');
                        if let Term::Word(word, _) = &**value {
                            self.out.push_str(word.text);
                        }
                    }
                }
                self.out.push('}');
                return;
            }
        }
        self.term_seq(std::slice::from_ref(value), Style::Default, 0);
    }

    pub(super) fn module(&mut self, module: &Module<'_>) {
        if let Some(header) = &module.header {
            self.header(header);
        }
        self.tables(&module.tables);
        for computation in &module.computations {
            self.computation(computation);
            self.out.push_str("\n\n");
        }
        if let Some(instruction) = &module.instruction {
            self.instruction(instruction, 0);
            self.out.push('\n');
        }
    }

    pub(super) fn header(&mut self, header: &ast::Header<'_>) {
        self.out.push_str("HloModule ");
        self.out.push_str(header.name.text);
        let rank = |a: &Attribute<'_>| HEADER_ORDER.iter().position(|n| *n == a.name.text);
        for attribute in in_print_order(&header.attributes, rank) {
            self.out.push_str(", ");
            self.attribute(attribute, 0);
        }
        self.out.push_str("\n\n");
    }

    fn name(&mut self, name: &Name<'_>) {
        if name.percent {
            self.out.push('%');
        }
        self.out.push_str(name.text);
    }

    fn computation(&mut self, computation: &Computation<'_>) {
        self.computation_head(computation.entry, &computation.name, &computation.signature);
        self.body(&computation.instructions, 2);
        self.computation_end(&computation.attributes);
    }

    /// `ENTRY name (p: f32[]) -> f32[] {` and its line break.
    pub(super) fn computation_head(
        &mut self,
        entry: bool,
        name: &Name<'_>,
        signature: &Option<Box<ast::Signature<'_>>>,
    ) {
        if entry {
            self.out.push_str("ENTRY ");
        }
        self.name(name);
        if let Some(signature) = signature {
            self.out.push_str(" (");
            for (i, (name, shape)) in signature.parameters.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(name.text);
                self.out.push_str(": ");
                self.shape(shape, false);
            }
            self.out.push_str(") -> ");
            self.shape(&signature.result, false);
        }
        self.out.push_str(" {\n");
    }

    /// The closing brace and the attributes after it.
    pub(super) fn computation_end(&mut self, attributes: &[Attribute<'_>]) {
        self.out.push('}');
        for attribute in attributes {
            self.out.push_str(", ");
            self.attribute(attribute, 0);
        }
    }

    pub(super) fn body(&mut self, instructions: &[Instruction<'_>], indent: usize) {
        for instruction in instructions {
            self.indent(indent);
            self.instruction(instruction, indent);
            self.out.push('\n');
        }
    }

    fn indent(&mut self, indent: usize) {
        self.out.extend(std::iter::repeat_n(' ', indent));
    }

    fn instruction(&mut self, instruction: &Instruction<'_>, indent: usize) {
        if instruction.root {
            self.out.push_str("ROOT ");
        }
        self.name(&instruction.name);
        self.out.push_str(" = ");
        if let Some(shape) = &instruction.shape {
            self.shape(shape, true);
            self.out.push(' ');
        }
        self.out.push_str(instruction.opcode.text);
        // Index comments mark every fifth operand in the `%` styles, not in the short one.
        self.operands(&instruction.operands, instruction.name.percent);
        let opcode = instruction.opcode.text;
        let ordered = in_print_order(&instruction.attributes, |a| {
            attribute_rank(opcode, a.name.text)
        });
        for attribute in ordered {
            self.out.push_str(", ");
            self.attribute(attribute, indent);
        }
    }

    fn operands(&mut self, operands: &[Operand<'_>], index_comments: bool) {
        self.out.push('(');
        for (i, operand) in operands.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
                if index_comments && i % 5 == 0 {
                    let _ = write!(self.out, "/*index={i}*/");
                }
            }
            match operand {
                Operand::Ref {
                    shape,
                    name,
                    indices,
                } => {
                    if let Some(shape) = shape {
                        self.shape(shape, true);
                        self.out.push(' ');
                    }
                    self.name(name);
                    for index in indices {
                        self.out.push('#');
                        self.out.push_str(index.text);
                    }
                }
                Operand::Nested {
                    shape,
                    opcode,
                    operands,
                    ..
                } => {
                    if let Some(shape) = shape {
                        self.shape(shape, true);
                        self.out.push(' ');
                    }
                    self.out.push_str(opcode.text);
                    self.operands(operands, index_comments);
                }
                Operand::Shape(shape) => self.shape(shape, true),
                Operand::Literal(term) => self.literal(term, 0, literal_rank(term), 0),
            }
        }
        self.out.push(')');
    }

    /// Lowers and prints a shape; `layouts` false drops them, as signatures print.
    fn shape(&mut self, shape: &ast::Shape<'_>, layouts: bool) {
        match lower_shape(shape) {
            Ok(mut lowered) => {
                set_layouts(&mut lowered, layouts);
                let _ = write!(self.out, "{lowered}");
            }
            Err(errors) => self.errors.extend(errors),
        }
    }

    fn attribute(&mut self, attribute: &Attribute<'_>, indent: usize) {
        self.out.push_str(attribute.name.text);
        self.out.push('=');
        let style = style_for(attribute.name.text, Style::Default);
        self.value(attribute.name.text, &attribute.value, style, indent);
    }

    /// An attribute value; a few attributes have fields in a fixed order.
    pub(super) fn value(&mut self, name: &str, terms: &[Term<'_>], style: Style, indent: usize) {
        if self.in_place(terms, indent) {
            return;
        }
        if let ("metadata", [Term::List(list)]) = (name, terms) {
            let entries = list.delimiter == Delimiter::Brace
                && list.layout.is_none()
                && list.item_count() > 0
                && list
                    .items()
                    .all(|item| matches!(item, [Term::List(l)] if l.delimiter == Delimiter::Brace));
            if entries && list.item_count() == 1 {
                // XLA prints a list of one entry as the entry alone.
                if let Some(entry) = list.items().next() {
                    self.value(name, entry, style, indent);
                }
                return;
            }
            if entries {
                // A sharding's metadata entries, `metadata={{op_name="a"}, {op_name="b"}}`:
                // XLA reads them only joined by commas; each prints as a metadata value.
                self.out.push('{');
                for (i, entry) in list.items().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value(name, entry, style, indent);
                }
                self.out.push('}');
                return;
            }
        }
        let order: Option<&[&str]> = match name {
            "metadata" => Some(METADATA_FIELDS),
            "window" => Some(WINDOW_ORDER),
            _ => None,
        };
        if let ([Term::List(list)], Some(order)) = (terms, order) {
            if list.delimiter == Delimiter::Brace && list.layout.is_none() {
                // Fields may come comma-separated or in any order; print one space-separated
                // run in the canonical order.
                let fields: Vec<&Term<'_>> = list.item_terms().collect();
                let rank = |t: &&Term<'_>| match t {
                    Term::Attr { name, .. } => order.iter().position(|n| *n == name.text),
                    _ => None,
                };
                let fields: Vec<&Term<'_>> =
                    in_print_order(&fields, rank).into_iter().copied().collect();
                if !word_meets_equals(&fields) {
                    self.fields(&fields, ' ', Style::Default, indent);
                    return;
                }
            }
        }
        if let ("frontend_attributes", [Term::List(list)]) = (name, terms) {
            let all_attrs = list.items().all(|item| matches!(item, [Term::Attr { .. }]));
            if list.delimiter == Delimiter::Brace && all_attrs {
                // XLA keeps frontend attributes in a sorted map.
                let mut fields: Vec<&Term<'_>> = list.item_terms().collect();
                fields.sort_by_key(|field| match field {
                    Term::Attr { name, .. } => name.text,
                    _ => "",
                });
                self.fields(&fields, ',', Style::Tight, indent);
                return;
            }
        }
        self.term_seq(terms, style, indent);
    }

    /// Computations written in place, laid out as XLA's canonical print does: the body on
    /// the lines after `calls=`, its braces at the caller's indentation; or a braced list of
    /// them, one per line, with the list's closing brace at the start of a line.
    fn in_place(&mut self, terms: &[Term<'_>], indent: usize) -> bool {
        match terms {
            [Term::Body(instructions, _)] => {
                self.out.push('\n');
                self.in_place_body(instructions, indent);
                true
            }
            [Term::List(list)]
                if list.delimiter == Delimiter::Brace
                    && list.layout.is_none()
                    && list.terms.iter().any(|t| matches!(t, Term::Body(..))) =>
            {
                self.out.push('{');
                for (i, item) in list.items().enumerate() {
                    self.out.push_str(if i > 0 { ",\n" } else { "\n" });
                    match item {
                        [Term::Body(instructions, _)] => self.in_place_body(instructions, indent),
                        other => {
                            self.indent(indent);
                            self.term_seq(other, Style::Default, indent);
                        }
                    }
                }
                self.out.push_str("\n}");
                true
            }
            _ => false,
        }
    }

    fn in_place_body(&mut self, instructions: &[Instruction<'_>], indent: usize) {
        self.indent(indent);
        self.out.push_str("{\n");
        self.body(instructions, indent + 2);
        self.indent(indent);
        self.out.push('}');
    }

    /// `{a=1 b=2}`: fields in the order given, joined by `separator`.
    fn fields(&mut self, fields: &[&Term<'_>], separator: char, style: Style, indent: usize) {
        self.out.push('{');
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                self.out.push(separator);
            }
            self.term(field, style, indent);
        }
        self.out.push('}');
    }

    /// Juxtaposed terms, with a space between them unless XLA glues them.
    fn term_seq(&mut self, terms: &[Term<'_>], style: Style, indent: usize) {
        let mut i = 0;
        let mut after_shape = false;
        while i < terms.len() {
            if i > 0 {
                let glued = if after_shape {
                    matches!(terms[i], Term::Word(_, WordKind::Punct))
                } else {
                    glued(
                        terms.get(i.wrapping_sub(2)),
                        &terms[i - 1],
                        &terms[i],
                        terms.get(i + 1),
                    )
                };
                if !glued {
                    self.out.push(' ');
                }
            }
            // An element type and its dims: a shape, printed through the model.
            if let (Some(Term::Word(word, WordKind::Ident)), Some(Term::List(list))) =
                (terms.get(i), terms.get(i + 1))
            {
                if push_plain_shape(&mut self.out, word, list) {
                    after_shape = true;
                    i += 2;
                    continue;
                }
                if let Some(shape) = shape_of(word, list) {
                    self.shape(&shape, true);
                    after_shape = true;
                    i += 2;
                    continue;
                }
            }
            after_shape = false;
            match (&terms[i], style) {
                (term @ Term::List(_), Style::Literal) => {
                    self.literal(term, 0, literal_rank(term), 0)
                }
                (term, _) => self.term(term, style, indent),
            }
            i += 1;
        }
    }

    fn term(&mut self, term: &Term<'_>, style: Style, indent: usize) {
        match term {
            Term::Word(word, kind) => match kind {
                WordKind::Name => {
                    self.out.push('%');
                    self.out.push_str(word.text);
                }
                WordKind::NameColon => {
                    self.out.push_str(word.text);
                    self.out.push(':');
                }
                _ => self.out.push_str(word.text),
            },
            Term::Attr { name, value } => {
                self.out.push_str(name.text);
                self.out.push('=');
                let style = style_for(name.text, style);
                self.value(name.text, std::slice::from_ref(value), style, indent);
            }
            Term::List(list) => self.list(list, style, indent),
            // Lists print their separators themselves.
            Term::Separator(_) => self.out.push(','),
            Term::Body(instructions, _) => {
                self.out.push_str("{\n");
                self.body(instructions, indent + 2);
                self.indent(indent);
                self.out.push('}');
            }
        }
    }

    fn list(&mut self, list: &List<'_>, style: Style, indent: usize) {
        let (open, close) = match list.delimiter {
            Delimiter::Brace => ('{', '}'),
            Delimiter::Paren => ('(', ')'),
            Delimiter::Bracket => ('[', ']'),
        };
        let padded = style == Style::Padded && !list.terms.is_empty();
        // Inside, tight lists stay tight; the rest falls back to the default.
        let inner = match style {
            Style::Tight => Style::Tight,
            _ => Style::Default,
        };
        let index_comments = match (list.delimiter, style) {
            // Space-separated items read back as one item, which has no index to comment.
            (_, Style::Spaced) => false,
            (Delimiter::Paren, _) => list.items().all(is_shape_like),
            (Delimiter::Brace, Style::Sharding) => list
                .items()
                .all(|item| matches!(item, [Term::List(l)] if l.delimiter == Delimiter::Brace)),
            _ => false,
        };
        self.out.push(open);
        if padded {
            self.out.push(' ');
        }
        let spaced =
            style == Style::Spaced && !word_meets_equals(&list.item_terms().collect::<Vec<_>>());
        if spaced {
            // Space-separated items read back as one item of juxtaposed terms, so they print
            // as that one item does, or `[2, =6]` would print `[2 =6]` and then `[2=6]`.
            if list.item_count() <= 1 {
                self.term_seq(&list.terms, inner, indent);
            } else {
                let terms: Vec<Term<'_>> = list.item_terms().cloned().collect();
                self.term_seq(&terms, inner, indent);
            }
        } else {
            let mut previous: &[Term<'_>] = &[];
            for (i, item) in list.items().enumerate() {
                if i > 0 {
                    let tight = match style {
                        Style::Tight => true,
                        Style::Spaced | Style::Padded | Style::Literal => false,
                        Style::Default | Style::Sharding => default_tight(list, previous, item),
                    };
                    self.out.push_str(if tight { "," } else { ", " });
                    if index_comments && i % 5 == 0 {
                        let _ = write!(self.out, "/*index={i}*/");
                    }
                }
                self.term_seq(item, inner, indent);
                previous = item;
            }
        }
        if padded {
            self.out.push(' ');
        }
        self.out.push(close);
        if let Some(layout) = &list.layout {
            self.generic_layout(layout);
        }
    }

    /// A literal as XLA prints it inside an instruction (docs/hlo-text.md §5.7): `{1, 2}`,
    /// `{ { 1, 2 }, { 3, 4 } }`, `{ {1}, {2} }`, `( 1, {2, 3} )`, with `/*iK=V*/` comments in
    /// the middle dimensions of arrays of rank 4 and more. `depth` counts the braces around.
    pub(super) fn literal(&mut self, term: &Term<'_>, depth: usize, rank: usize, index: usize) {
        let Term::List(list) = term else {
            self.term(term, Style::Literal, 0);
            return;
        };
        let holds_lists = list.terms.iter().any(|t| matches!(t, Term::List(_)));
        let (open, close, padded) = match list.delimiter {
            Delimiter::Brace => {
                let holds_braces = list
                    .terms
                    .iter()
                    .any(|t| matches!(t, Term::List(l) if l.delimiter == Delimiter::Brace));
                (
                    '{',
                    '}',
                    holds_braces || (depth > 0 && list.item_count() > 1),
                )
            }
            // A tuple `( 1, {2, 3} )`, or a complex number `(1, 2)`.
            Delimiter::Paren => ('(', ')', holds_lists),
            Delimiter::Bracket => {
                self.term(term, Style::Literal, 0);
                return;
            }
        };
        let brace = list.delimiter == Delimiter::Brace;
        self.out.push(open);
        if padded {
            self.out.push(' ');
        }
        if brace && rank >= 4 && depth > 0 && depth + 1 < rank {
            let _ = write!(self.out, "/*i{}={index}*/ ", depth - 1);
        }
        for (i, item) in list.items().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match item {
                [element] if brace => self.literal(element, depth + 1, rank, i),
                // Tuple elements may be shape and literal: `( s32[2]{0} {1, 2}, ... )`.
                _ => self.term_seq(item, Style::Literal, 0),
            }
        }
        if padded {
            self.out.push(' ');
        }
        self.out.push(close);
    }

    /// A layout after a bracket that is not an element type's dims, such as `mesh[2]{0}`:
    /// kept as written, since it has no meaning to lower.
    fn generic_layout(&mut self, layout: &ast::Layout<'_>) {
        self.out.push('{');
        for (i, word) in layout.minor_to_major.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push_str(word.text);
        }
        if !layout.items.is_empty() {
            self.out.push(':');
        }
        for item in &layout.items {
            self.out.push_str(item.name.text);
            for group in &item.groups {
                self.out.push('(');
                for (i, arg) in group.args.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    match arg {
                        ast::LayoutArg::Int(word) => self.out.push_str(word.text),
                        ast::LayoutArg::Star(_) => self.out.push('*'),
                        ast::LayoutArg::Word { word, flags } => {
                            self.out.push_str(word.text);
                            flags.iter().for_each(|f| self.out.push_str(f.text));
                        }
                        ast::LayoutArg::Labeled { label, value } => {
                            let _ = write!(self.out, "{}:{}", label.text, value.text);
                        }
                        ast::LayoutArg::Shape(shape) => self.shape(shape, true),
                    }
                }
                self.out.push(')');
            }
        }
        self.out.push('}');
    }
}

/// Gives every array the default layout if it has none (`layouts`), or drops all layouts.
pub(super) fn set_layouts(shape: &mut ir::Shape, layouts: bool) {
    match shape {
        ir::Shape::Array(array) | ir::Shape::Buffer(array) => {
            if !layouts {
                array.layout = None;
            } else if array.layout.is_none() {
                array.layout = Some(ir::Layout::descending(array.rank()));
            }
        }
        ir::Shape::Tuple(elements) => elements.iter_mut().for_each(|e| set_layouts(e, layouts)),
        ir::Shape::Token | ir::Shape::Opaque => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut for rows of integer fields prints what the general printer does.
    #[test]
    fn table_rows_print_as_the_general_printer_prints_them() {
        let rows = [
            "1 {file_location_id=1 parent_frame_id=1}",
            "2 {file_location_id=1  parent_frame_id=2 }",
            "3 {parent_frame_id=-1\nfile_location_id=007}",
            "4 {}",
            "5 {a=1, b=2}",
            "6 {a=1 b=x}",
            "7 \"a.py\"",
        ];
        let text = format!(
            "StackFrames\n{}\n\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n",
            rows.join("\n")
        );
        let Ok(module) = crate::syntax::parse_module(&text) else {
            panic!("the rows do not parse: {text}");
        };
        for row in &module.tables[0].rows {
            let mut general = Printer {
                out: String::new(),
                errors: Vec::new(),
            };
            general.term_seq(std::slice::from_ref(&row.value), Style::Default, 0);
            let mut shortcut = Printer {
                out: String::new(),
                errors: Vec::new(),
            };
            shortcut.table_row_value(&row.value);
            assert_eq!(shortcut.out, general.out, "row {}", row.id.text);
        }
        assert_eq!(module.tables[0].rows.len(), rows.len());
    }
}
