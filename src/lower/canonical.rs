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

use std::fmt::Write;

use super::shape::{lower_shape, LowerError};
use crate::ir;
use crate::ir::vocabulary::HEADER_ORDER;
use crate::syntax::ast::{
    self, Attribute, Computation, Delimiter, Instruction, List, Module, Name, Operand, Term,
    WordKind,
};

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

/// Parses `source[range]` and prints it as [`print_module`] prints the whole tree, one
/// computation at a time as the parser reads it: the tree of only one computation is held, so
/// formatting takes memory for the text and the output, not for the module's tree (a tree is
/// several times its text). `None` when the text does not parse or print that way (it has an
/// error, or is a lone instruction): the caller then parses the whole tree, which reports
/// every error in order.
pub(crate) fn format_streaming(source: &str, range: std::ops::Range<usize>) -> Option<String> {
    let mut sink = StreamingPrinter {
        printer: Printer {
            out: String::with_capacity(range.len() + range.len() / 8),
            errors: Vec::new(),
        },
        open: false,
        tables_printed: false,
        tables_closed: false,
        last_start: None,
        restarted: false,
    };
    let module = crate::syntax::parse_module_into(source, range, &mut sink).ok()?;
    let complete = module.instruction.is_none()
        && module.header.is_none()
        && module.tables.is_empty()
        && module.computations.is_empty();
    if !complete || sink.restarted || sink.open {
        return None;
    }
    sink.close_tables();
    sink.printer.finish().ok()
}

/// The [`ast::Sink`] of [`format_streaming`]: prints the header and tables as they come, and
/// each instruction line as it is read, then drops it (a computation's tree is several times
/// its text, and one computation can be a quarter of a module).
struct StreamingPrinter {
    printer: Printer,
    /// Inside a computation, whose instructions are printed as they come.
    open: bool,
    tables_printed: bool,
    tables_closed: bool,
    last_start: Option<usize>,
    /// The parser read the text again (its fast attempt failed): what was printed is void.
    restarted: bool,
}

impl StreamingPrinter {
    /// The blank line after the last table, printed before the first computation.
    fn close_tables(&mut self) {
        if self.tables_printed && !self.tables_closed {
            self.printer.out.push('\n');
        }
        self.tables_closed = true;
    }
}

impl<'s> ast::Sink<'s> for StreamingPrinter {
    fn header(&mut self, header: Box<ast::Header<'s>>) -> Option<Box<ast::Header<'s>>> {
        if !self.printer.out.is_empty() {
            self.restarted = true;
        }
        self.printer.header(&header);
        None
    }

    fn table(&mut self, table: ast::Table<'s>) -> Option<ast::Table<'s>> {
        if self.tables_closed {
            self.restarted = true;
        }
        self.printer.tables(std::slice::from_ref(&table));
        // `tables` ends the list with a blank line; it comes once, after the last table.
        self.printer.out.pop();
        self.tables_printed = true;
        None
    }

    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        if self.open || self.last_start.is_some_and(|last| head.start <= last) {
            self.restarted = true;
        }
        self.last_start = Some(head.start);
        self.close_tables();
        self.open = true;
        self.printer
            .computation_head(head.entry, &head.name, &head.signature);
    }

    fn instruction(&mut self, instruction: Instruction<'s>) {
        if self.open {
            self.printer.body(std::slice::from_ref(&instruction), 2);
        }
    }

    fn end_computation(&mut self, attributes: Vec<Attribute<'s>>, _end: usize) {
        if self.open {
            self.printer.computation_end(&attributes);
            self.printer.out.push_str("\n\n");
            self.open = false;
        }
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

/// How the lists of an attribute value are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
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

fn style_for(name: &str, parent: Style) -> Style {
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

/// `metadata={...}` fields in print order (docs/hlo-text.md §5.8); the lexer knows them too.
use crate::ir::vocabulary::METADATA_FIELDS as METADATA_ORDER;

/// `window={...}` fields in print order (docs/hlo-text.md §5.3).
const WINDOW_ORDER: &[&str] = &[
    "size",
    "stride",
    "pad",
    "lhs_dilate",
    "rhs_dilate",
    "rhs_reversal",
];

/// Called computations, printed after the opcode's own attributes (docs/hlo-text.md §5.10
/// step 2).
const CALLED_ORDER: &[&str] = &[
    "condition",
    "body",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
    "branch_computations",
    "to_apply",
    "is_composite",
    "called_computations",
    "calls",
];

/// Attributes any instruction may carry, printed last in this order (docs/hlo-text.md §5.10).
const GENERIC_ORDER: &[&str] = &[
    "sharding",
    "frontend_attributes",
    "control-predecessors",
    "statistics",
    "result_accuracy",
    "origin",
    "metadata",
    "backend_config",
];

/// Opcode-specific attributes in print order (docs/hlo-text.md §5.10).
fn opcode_order(opcode: &str) -> &'static [&'static str] {
    match opcode {
        "all-reduce" | "all-reduce-start" | "collective-reduce" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "use_global_device_ids",
            "has_dynamic_root",
        ],
        "all-gather" | "all-gather-start" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "dimensions",
            "use_global_device_ids",
        ],
        "reduce-scatter" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "use_global_device_ids",
            "dimensions",
        ],
        "all-to-all" | "ragged-all-to-all" => &[
            "channel_id",
            "replica_groups",
            "constrain_layout",
            "dimensions",
        ],
        "collective-broadcast" => &["channel_id", "replica_groups", "has_dynamic_root"],
        "collective-permute" | "collective-permute-start" => {
            &["channel_id", "source_target_pairs", "slice_sizes"]
        }
        "send" | "recv" | "send-done" | "recv-done" => &["channel_id", "is_host_transfer"],
        "convolution" => &[
            "window",
            "dim_labels",
            "feature_group_count",
            "batch_group_count",
            "convolution_kind",
            "operand_precision",
            "sparsity_config",
            "block_scaling_config",
        ],
        "dot" | "scaled-dot" => &[
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_batch_dims",
            "rhs_contracting_dims",
            "operand_precision",
            "algorithm",
            "sparsity_config",
            "block_scaling_config",
        ],
        "ragged-dot" => &[
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_batch_dims",
            "rhs_contracting_dims",
            "lhs_ragged_dims",
            "rhs_group_dims",
            "operand_precision",
        ],
        "custom-call" => &[
            "window",
            "dim_labels",
            "feature_group_count",
            "batch_group_count",
            "operand_precision",
            "padding_type",
            "custom_call_target",
            "operand_layout_constraints",
            "custom_call_has_side_effect",
            "literal",
            "output_to_operand_aliasing",
            "schedule",
            "api_version",
        ],
        "fusion" => &["kind", "output_to_operand_aliasing"],
        "async-start" => &["async_execution_thread", "output_to_operand_aliasing"],
        "gather" => &[
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "index_vector_dim",
            "slice_sizes",
            "indices_are_sorted",
        ],
        "scatter" => &[
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "unique_indices",
        ],
        "sort" => &["dimensions", "is_stable"],
        "scan" => &["dimensions", "num_carries", "is_reverse", "is_associative"],
        "topk" => &["k", "largest", "is_stable"],
        "compare" => &["direction", "type"],
        "triangular-solve" => &["left_side", "lower", "unit_diagonal", "transpose_a"],
        "batch-norm-training" | "batch-norm-inference" | "batch-norm-grad" => {
            &["epsilon", "feature_index"]
        }
        "reduce-precision" => &["exponent_bits", "mantissa_bits"],
        "fft" => &["fft_type", "fft_length"],
        "outfeed" => &["outfeed_shape", "outfeed_config"],
        "reduce-window" | "select-and-scatter" => &["window"],
        "reduce" | "map" => &["dimensions"],
        "parameter" => &["parameter_replication"],
        _ => &[],
    }
}

/// The print rank of an instruction attribute, `None` if the tables do not know it.
pub(crate) fn attribute_rank(opcode: &str, name: &str) -> Option<usize> {
    let rank_in =
        |table: &[&str], base: usize| table.iter().position(|n| *n == name).map(|i| base + i);
    // Async sugar (`custom-call-start`) prints the thread, then the wrapped op's attributes.
    let wrapped = ["-start", "-update", "-done"]
        .iter()
        .find_map(|suffix| opcode.strip_suffix(suffix))
        .filter(|_| opcode_order(opcode).is_empty());
    let own = match wrapped {
        Some(_) if name == "async_execution_thread" => Some(0),
        Some(wrapped) => rank_in(opcode_order(wrapped), 1),
        None => rank_in(opcode_order(opcode), 1),
    };
    own.or_else(|| rank_in(CALLED_ORDER, 100))
        .or_else(|| rank_in(GENERIC_ORDER, 200))
}

/// Sorts items by rank; an item without a rank keeps the rank of the one before it, so it
/// travels with it. The sort is stable, so equal ranks keep their order.
pub(crate) fn in_print_order<T>(items: &[T], rank: impl Fn(&T) -> Option<usize>) -> Vec<&T> {
    let mut keyed: Vec<(usize, &T)> = Vec::with_capacity(items.len());
    let mut previous = 0;
    for item in items {
        let key = rank(item).unwrap_or(previous);
        previous = key;
        keyed.push((key, item));
    }
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, item)| item).collect()
}

struct Printer {
    out: String,
    errors: Vec<LowerError>,
}

impl Printer {
    fn finish(self) -> Result<String, Vec<LowerError>> {
        if self.errors.is_empty() {
            Ok(self.out)
        } else {
            Err(self.errors)
        }
    }

    fn tables(&mut self, tables: &[ast::Table<'_>]) {
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

    fn module(&mut self, module: &Module<'_>) {
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

    fn header(&mut self, header: &ast::Header<'_>) {
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
    fn computation_head(
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
    fn computation_end(&mut self, attributes: &[Attribute<'_>]) {
        self.out.push('}');
        for attribute in attributes {
            self.out.push_str(", ");
            self.attribute(attribute, 0);
        }
    }

    fn body(&mut self, instructions: &[Instruction<'_>], indent: usize) {
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
    fn value(&mut self, name: &str, terms: &[Term<'_>], style: Style, indent: usize) {
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
            "metadata" => Some(METADATA_ORDER),
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
    fn literal(&mut self, term: &Term<'_>, depth: usize, rank: usize, index: usize) {
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
fn set_layouts(shape: &mut ir::Shape, layouts: bool) {
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

/// `f32` followed by `[2,<=3,?]` (and a layout) in an attribute value, as a shape tree.
fn shape_of<'s>(element_type: &ast::Word<'s>, list: &List<'s>) -> Option<ast::Shape<'s>> {
    if !is_shape_of(element_type, list) {
        return None;
    }
    let dims = list.items().map(dim_of).collect::<Option<Vec<_>>>()?;
    Some(ast::Shape::Array {
        element_type: *element_type,
        dims,
        layout: list.layout.clone(),
        span: ast::Span::new(element_type.span.start, list.span.end),
    })
}

/// One item of a shape's dims in an attribute value: `2`, `<=3` or `?`.
fn dim_of<'s>(item: &[Term<'s>]) -> Option<ast::Dim<'s>> {
    match item {
        [Term::Word(size, WordKind::Int)] => Some(ast::Dim {
            kind: ast::DimKind::Static,
            size: Some(*size),
            span: size.span,
        }),
        [Term::Word(leq, WordKind::Punct), Term::Word(size, WordKind::Int)] if leq.text == "<=" => {
            Some(ast::Dim {
                kind: ast::DimKind::Bounded,
                size: Some(*size),
                span: ast::Span::new(leq.span.start, size.span.end),
            })
        }
        [Term::Word(question, WordKind::Punct)] if question.text == "?" => Some(ast::Dim {
            kind: ast::DimKind::Unbounded,
            size: None,
            span: question.span,
        }),
        _ => None,
    }
}

/// Prints `f32[2,3]{1,0}` (or `f32[2,3]`, given its default layout) straight from the words
/// when they are exactly what lowering the shape and printing it give: a canonical element
/// type, static dims written as plain decimals, no layout or one of a permutation alone, and
/// a size surely within the limit. Otherwise prints nothing and returns false, and the
/// caller takes the general path, which also reports what is wrong. A header's
/// `entry_computation_layout` is a thousand such shapes (mixtral 1x8), and lowering each
/// only to print it cost more than reading it.
fn push_plain_shape(out: &mut String, element_type: &ast::Word<'_>, list: &List<'_>) -> bool {
    /// A number as lowering parses and printing writes it: digits, no leading zero, in i64.
    fn plain_int(word: &ast::Word<'_>) -> Option<i64> {
        let bytes = word.text.as_bytes();
        let canonical = matches!(bytes, [b'0'] | [b'1'..=b'9', ..])
            && bytes.len() <= 18
            && bytes.iter().all(u8::is_ascii_digit);
        canonical.then(|| word.text.parse().ok()).flatten()
    }
    if list.delimiter != Delimiter::Bracket {
        return false;
    }
    let Some(ty) = ir::PrimitiveType::from_name(element_type.text) else {
        return false;
    };
    if !ty.is_array_type() || ty.name() != element_type.text {
        return false;
    }
    let mut rank = 0usize;
    let mut bytes = 16i64;
    for item in list.items() {
        let [Term::Word(size, WordKind::Int)] = item else {
            return false;
        };
        let Some(size) = plain_int(size) else {
            return false;
        };
        match bytes.checked_mul(size.max(1)) {
            Some(product) if product <= crate::lower::shape::MAX_ARRAY_BYTES => bytes = product,
            _ => return false,
        }
        rank += 1;
    }
    if let Some(layout) = &list.layout {
        if !layout.items.is_empty() || layout.minor_to_major.len() != rank || rank > 64 {
            return false;
        }
        let mut seen = 0u64;
        for word in &layout.minor_to_major {
            match plain_int(word).and_then(|d| usize::try_from(d).ok()) {
                Some(d) if d < rank && seen & (1 << d) == 0 => seen |= 1 << d,
                _ => return false,
            }
        }
    }
    out.push_str(element_type.text);
    out.push('[');
    for (i, size) in list.item_terms().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Term::Word(size, _) = size {
            out.push_str(size.text);
        }
    }
    out.push(']');
    if rank > 0 {
        out.push('{');
        match &list.layout {
            Some(layout) => {
                for (i, dim) in layout.minor_to_major.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(dim.text);
                }
            }
            None => {
                let mut digits = itoa::Buffer::new();
                for dim in (0..rank).rev() {
                    out.push_str(digits.format(dim));
                    if dim > 0 {
                        out.push(',');
                    }
                }
            }
        }
        out.push('}');
    }
    true
}

/// Whether [`shape_of`] takes these words, without building the shape.
fn is_shape_of(element_type: &ast::Word<'_>, list: &List<'_>) -> bool {
    list.delimiter == Delimiter::Bracket
        && ir::PrimitiveType::from_name(element_type.text).is_some()
        && list.items().all(|item| dim_of(item).is_some())
}

/// An item that prints as a shape: `f32[2]{0}` or a tuple of them.
fn is_shape_like(item: &[Term<'_>]) -> bool {
    match item {
        [Term::Word(word, WordKind::Ident), Term::List(list)] => is_shape_of(word, list),
        [Term::List(list)] => list.delimiter == Delimiter::Paren && list.items().all(is_shape_like),
        _ => false,
    }
}

fn is_number(term: &Term<'_>) -> bool {
    match term {
        Term::Word(_, WordKind::Int | WordKind::Float | WordKind::NegInf) => true,
        Term::Word(word, WordKind::Ident) => matches!(word.text, "true" | "false" | "inf"),
        _ => false,
    }
}

/// A number, or braces holding only such: `{0,1}` in `{{0,1},{2,3}}`.
fn is_numeric(term: &Term<'_>) -> bool {
    match term {
        Term::List(list) => {
            list.delimiter == Delimiter::Brace
                && list
                    .items()
                    .all(|item| matches!(item, [t] if is_numeric(t)))
        }
        other => is_number(other),
    }
}

/// Whether two items of a default-style list are joined by `,` rather than `, `: numbers
/// and number lists are (`{1,0}`, `{{0,1},{2,3}}`, `devices=[2,2]0,1,2,3`), anything with
/// names, strings or shapes is not.
fn default_tight(list: &List<'_>, previous: &[Term<'_>], next: &[Term<'_>]) -> bool {
    match list.delimiter {
        Delimiter::Brace => {
            let tail = match previous.last() {
                Some(Term::Attr { value, .. }) => Some(&**value),
                other => other,
            };
            tail.is_some_and(is_numeric) && next.first().is_some_and(is_numeric)
        }
        Delimiter::Paren => list.items().all(|item| matches!(item, [t] if is_number(t))),
        // `[2,4]`, `['a'=2,'b'=4]`, but `[{'a'}, {'b'}]`.
        Delimiter::Bracket => !list.terms.iter().any(|t| {
            matches!(t, Term::List(_))
                || matches!(t, Term::Attr { value, .. } if matches!(**value, Term::List(_)))
        }),
    }
}

/// The rank of an array literal: how deep its braces nest along the first elements.
fn literal_rank(term: &Term<'_>) -> usize {
    let mut rank = 0;
    let mut current = term;
    while let Term::List(list) = current {
        if list.delimiter != Delimiter::Brace {
            break;
        }
        rank += 1;
        match list.terms.first() {
            Some(first) => current = first,
            None => break,
        }
    }
    rank
}

/// Whether XLA writes two juxtaposed terms without a space: `[2,2]<=[4]`, `T(1,0)`,
/// `'b':(2)2`, `->`, but `maximal device=0`, `[8] last_tile_dim_replicate`, `{0}: (1, {})`.
/// Whether a word is followed by a term that starts with `=` (`[a, =6]` read as items):
/// juxtaposed, they cannot be printed so as to read back, since `a =` reads as the name an
/// instruction defines and `a=` as an attribute name. Such lists keep their commas.
fn word_meets_equals(terms: &[&Term<'_>]) -> bool {
    terms.windows(2).any(|pair| {
        matches!(
            pair,
            [Term::Word(_, WordKind::Ident | WordKind::Name), Term::Word(p, WordKind::Punct)]
                if p.text.starts_with('=')
        )
    })
}

fn glued(
    before: Option<&Term<'_>>,
    previous: &Term<'_>,
    next: &Term<'_>,
    after: Option<&Term<'_>>,
) -> bool {
    let punct =
        |t: &Term<'_>, text: &str| matches!(t, Term::Word(w, WordKind::Punct) if w.text == text);
    let list = |t: &Term<'_>, d: Delimiter| matches!(t, Term::List(l) if l.delimiter == d);
    // `devices=[2,2]0,1`: what follows an attribute glues to its value.
    let previous = match previous {
        Term::Attr { value, .. } => &**value,
        other => other,
    };
    if punct(previous, ":") {
        // Aliasing pairs `{0}: (1, {})` have a space after the colon; sub-axes `'b':(2)2`
        // and slices `0:2` do not.
        return !before.is_some_and(|b| list(b, Delimiter::Brace));
    }
    match (previous, next) {
        // A word would take in what follows it: `an ->` glued reads as the word `an-` and a
        // `>`, `a =` as the attribute name `a=`, `1 ...` as the number `1.`.
        (Term::Word(_, WordKind::Ident | WordKind::Name), Term::Word(p, WordKind::Punct))
            if p.text.starts_with(['-', '.', '=', ':']) =>
        {
            false
        }
        (Term::Word(_, WordKind::Int), Term::Word(p, WordKind::Punct))
            if p.text.starts_with('.') =>
        {
            false
        }
        (_, Term::Word(_, WordKind::Punct)) => true,
        (Term::Word(_, WordKind::Punct), _) => true,
        (Term::Word(_, WordKind::NameColon), _) => true,
        (Term::Word(_, WordKind::Ident), Term::List(l)) => l.delimiter != Delimiter::Brace,
        (Term::List(l), Term::Word(_, WordKind::Int | WordKind::Float)) => {
            l.delimiter != Delimiter::Brace
        }
        // `<=[8]T(1,0)`: a word that opens a paren group glues to the bracket before it.
        (Term::List(l), Term::Word(_, WordKind::Ident)) => {
            l.delimiter == Delimiter::Bracket && after.is_some_and(|a| list(a, Delimiter::Paren))
        }
        _ => false,
    }
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

    /// The words of `f32[...]{...}` in a header attribute, as the printer meets them.
    fn header_value(text: &str) -> ast::Module<'_> {
        match crate::syntax::parse_module(text) {
            Ok(module) => module,
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    proptest::proptest! {
        /// The shortcut for plain shapes in attribute values prints what lowering the shape
        /// and printing it do, and is taken for the plain ones.
        #[test]
        fn plain_shapes_print_as_lowered_shapes_do(
            ty in proptest::sample::select(vec![
                "f32", "bf16", "s32", "pred", "u4", "f8e4m3fn", "token", "opaque", "F32", "x",
            ]),
            dims in proptest::collection::vec(proptest::sample::select(vec![
                "0", "1", "2", "128", "007", "<=3", "?", "4294967296", "9223372036854775807",
                "99999999999999999999",
            ]), 0..5),
            layout in proptest::option::of(proptest::collection::vec(
                proptest::sample::select(vec!["0", "1", "2", "3", "4", "00", "7"]), 0..5,
            )),
            tiled in proptest::bool::ANY,
        ) {
            let mut shape = format!("{ty}[{}]", dims.join(","));
            if let Some(layout) = &layout {
                shape.push_str(&format!("{{{}{}}}", layout.join(","), if tiled { ":T(2)" } else { "" }));
            }
            let text = format!("HloModule m, x={{{shape}}}\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n");
            let module = header_value(&text);
            let header = module.header.as_deref().expect("a header");
            let [Term::List(outer)] = header.attributes[0].value.as_slice() else {
                panic!("{text}: not a braced value");
            };
            let (word, list) = match outer.terms.as_slice() {
                [Term::Word(word, WordKind::Ident), Term::List(list)] => (word, list),
                other => panic!("{text}: {other:?}"),
            };
            let mut fast = String::new();
            let taken = push_plain_shape(&mut fast, word, list);
            let general = shape_of(word, list).map(|shape| {
                lower_shape(&shape).map(|mut lowered| {
                    set_layouts(&mut lowered, true);
                    lowered.to_string()
                })
            });
            if taken {
                proptest::prop_assert_eq!(Some(Ok(fast)), general.map(|r| r.map_err(|_| ())), "{}", shape);
            } else {
                proptest::prop_assert!(fast.is_empty());
            }
            let plain = ["f32", "bf16", "s32", "pred", "u4", "f8e4m3fn"].contains(&ty)
                && dims.iter().all(|d| ["0", "1", "2", "128", "4294967296"].contains(d))
                && layout.as_ref().is_none_or(|l| {
                    !tiled && {
                        let mut sorted: Vec<&str> = l.clone();
                        sorted.sort_unstable();
                        sorted == ["0", "1", "2", "3", "4"][..dims.len()]
                    }
                });
            let small = dims
                .iter()
                .try_fold(16u128, |bytes, d| bytes.checked_mul(d.parse::<u128>().ok()?.max(1)))
                .is_some_and(|bytes| bytes <= 1 << 48);
            proptest::prop_assert_eq!(taken, plain && small, "{}", shape);
        }
    }

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

    #[test]
    fn unknown_attributes_travel_with_the_one_before() {
        assert_eq!(
            in_print_order(&["b", "x", "a"], |n| match *n {
                "a" => Some(0),
                "b" => Some(1),
                _ => None,
            }),
            vec![&"a", &"b", &"x"]
        );
    }
}
