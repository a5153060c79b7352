//! One instruction: what it computes, its shape, its attributes as text with typed views
//! of the common ones, and how the text wrote it. Its operands are the edges of its
//! computation's graph, not part of it.
//!
//! Invariant: the name is private, as the computation's name index and the module's names
//! follow it; it changes through [`Computation::rename`](super::Computation::rename).

use std::sync::Arc;

use arcstr::ArcStr;
use compact_str::CompactString;
use thin_vec::ThinVec;

use super::attribute::{find_attribute, set_attribute, TextAttribute};
use super::id::ComputationId;
use crate::ir::opcode::Opcode;
use crate::ir::shape::Shape;
use crate::span::Span;

/// What an instruction's parentheses hold besides operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Nothing: the parentheses hold operands only.
    None,
    /// `parameter(N)`.
    Parameter(i64),
    /// `constant(...)`: the literal's canonical text, behind a thin pointer so that a graph
    /// node holding an [`Instruction`] stays small (one per instruction, most of a module's
    /// memory).
    Literal(ArcStr),
}

/// How the text that was read wrote names and operands, so printing keeps its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintStyle {
    /// The instruction's own name is written `%name`.
    pub percent: bool,
    /// Its operands are written `%name`.
    pub operand_percent: bool,
    /// Operands are written with their shapes (XLA's long style).
    pub operand_shapes: bool,
}

impl Default for PrintStyle {
    fn default() -> PrintStyle {
        PrintStyle {
            percent: true,
            operand_percent: true,
            operand_shapes: false,
        }
    }
}

/// How the text wrote one operand slot where its line's style does not say: a compact
/// tuple-element operand `%t#1#0`, or a `%` unlike the other operands'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandSpelling {
    /// The operand slot.
    pub slot: u32,
    /// Its `%` is written unlike the line's `style.operand_percent`.
    pub percent_differs: bool,
    /// The index path of a compact tuple-element operand; empty for a plain one.
    pub tuple_path: Vec<i64>,
}

/// One instruction: what it computes, its result shape, its attributes and how the text
/// wrote it. Its operands are the edges of its computation's graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Inline up to 24 bytes (nearly every name XLA prints): no allocation of its own, and a
    /// name lookup reads the graph node alone. Private: the computation's name index and the
    /// module's names follow it, so a name changes through [`Computation::rename`].
    ///
    /// [`Computation::rename`]: super::Computation::rename
    pub(super) name: CompactString,
    /// What the instruction computes.
    pub opcode: Opcode,
    /// Shared: lowering gives every instruction written with the same shape text one
    /// allocation, and cloning a shape is a reference count. `Arc::make_mut` edits a copy
    /// when others share it.
    pub shape: Arc<Shape>,
    /// False when the text left the result shape for XLA to infer.
    pub shape_written: bool,
    /// How the text wrote this line's names and operands; new instructions take the
    /// module's style.
    pub style: PrintStyle,
    /// A parameter's number or a constant's literal.
    pub payload: Payload,
    /// In text order; the printer puts them in XLA's order. This and the next two are
    /// `ThinVec`s (one pointer, no allocation when empty): most instructions have none or
    /// few, and a smaller instruction is a smaller graph.
    pub attributes: ThinVec<TextAttribute>,
    /// Computations this instruction calls, resolved, in attribute order. Public, as no
    /// index follows it; it must agree with the attribute text that names the callees,
    /// which the verifier checks, and [`Module::retain_computations`] renumbers it.
    ///
    /// [`Module::retain_computations`]: super::Module::retain_computations
    pub called: ThinVec<ComputationId>,
    /// Operand slots the text wrote unlike its line's style, in slot order, one entry a
    /// slot: compact tuple-element operands and `%` exceptions, which are rare, in one
    /// vector so that the instruction is a word smaller.
    pub operand_spellings: ThinVec<OperandSpelling>,
    /// Where the instruction was in the source; empty for instructions passes created.
    pub span: Span,
}

impl Instruction {
    /// An instruction named `name` with no attributes or payload, printed in the default style,
    /// its shape written.
    pub fn new(
        name: impl Into<CompactString>,
        opcode: Opcode,
        shape: impl Into<Arc<Shape>>,
    ) -> Instruction {
        Instruction {
            name: name.into(),
            opcode,
            shape: shape.into(),
            shape_written: true,
            style: PrintStyle::default(),
            payload: Payload::None,
            attributes: ThinVec::new(),
            called: ThinVec::new(),
            operand_spellings: ThinVec::new(),
            span: Span::default(),
        }
    }

    /// The instruction's name, without `%`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The index path of operand `slot` when it is written as a compact tuple element
    /// (`%t#1#0`); empty otherwise.
    pub fn tuple_path(&self, slot: u32) -> &[i64] {
        self.operand_spellings
            .iter()
            .find(|spelling| spelling.slot == slot)
            .map_or(&[], |spelling| &spelling.tuple_path)
    }

    /// The compact tuple-element operands: slot and index path, in slot order.
    pub fn tuple_paths(&self) -> impl Iterator<Item = (u32, &[i64])> {
        self.operand_spellings
            .iter()
            .filter(|spelling| !spelling.tuple_path.is_empty())
            .map(|spelling| (spelling.slot, &spelling.tuple_path[..]))
    }

    /// Whether any operand is written as a compact tuple element.
    pub fn has_tuple_paths(&self) -> bool {
        self.tuple_paths().next().is_some()
    }

    /// Forgets every compact tuple-element path, keeping `%` exceptions.
    pub fn clear_tuple_paths(&mut self) {
        self.operand_spellings.retain_mut(|spelling| {
            spelling.tuple_path = Vec::new();
            spelling.percent_differs
        });
    }

    /// Whether operand `slot`'s `%` is written unlike `style.operand_percent`.
    pub fn percent_differs(&self, slot: u32) -> bool {
        self.operand_spellings
            .iter()
            .any(|spelling| spelling.slot == slot && spelling.percent_differs)
    }

    /// The same instruction named `name`, for one not yet in a computation; one that is
    /// changes its name with [`Computation::rename`](super::Computation::rename).
    pub fn with_name(mut self, name: impl Into<CompactString>) -> Instruction {
        self.name = name.into();
        self
    }

    /// The canonical text of attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        find_attribute(&self.attributes, name)
    }

    /// Sets (or adds) attribute `name` to `value` text.
    pub fn set_attribute(&mut self, name: &str, value: &str) {
        set_attribute(&mut self.attributes, name, value)
    }

    /// The integers of a `{1,0}`-style attribute; `None` if absent or not an integer list.
    pub fn int_list_attribute(&self, name: &str) -> Option<Vec<i64>> {
        let text = self.attribute(name)?;
        let inner = text.strip_prefix('{')?.strip_suffix('}')?;
        if inner.trim().is_empty() {
            return Some(Vec::new());
        }
        inner
            .split(',')
            .map(|s| s.trim().parse::<i64>().ok())
            .collect()
    }

    /// The `dimensions` attribute: a transpose's permutation, a broadcast's operand dims in
    /// the result, the dims a reduce or reverse works on. `None` when absent.
    pub fn dimensions(&self) -> Option<Vec<i64>> {
        self.int_list_attribute("dimensions")
    }

    /// Sets the `dimensions` attribute, as XLA prints it (`{2,0,1}`).
    pub fn set_dimensions(&mut self, dimensions: &[i64]) {
        self.set_int_list_attribute("dimensions", dimensions)
    }

    /// The integer of an `index=1`-style attribute.
    pub fn int_attribute(&self, name: &str) -> Option<i64> {
        self.attribute(name)?.trim().parse().ok()
    }

    /// Sets `name` to the integer list `values`, written as XLA prints it (`{2,0,1}`).
    pub fn set_int_list_attribute(&mut self, name: &str, values: &[i64]) {
        let items: Vec<String> = values.iter().map(i64::to_string).collect();
        self.set_attribute(name, &format!("{{{}}}", items.join(",")));
    }

    /// A `dot`'s dimension numbers (`lhs_batch_dims`, `lhs_contracting_dims`, ...; absent
    /// lists are empty); `None` when one is not an integer list.
    pub fn dot_dimension_numbers(&self) -> Option<crate::ir::attrs::DotDimensionNumbers> {
        let list = |name: &str| match self.attribute(name) {
            None => Some(Vec::new()),
            Some(_) => self.int_list_attribute(name),
        };
        Some(crate::ir::attrs::DotDimensionNumbers {
            lhs_batch: list("lhs_batch_dims")?,
            lhs_contracting: list("lhs_contracting_dims")?,
            rhs_batch: list("rhs_batch_dims")?,
            rhs_contracting: list("rhs_contracting_dims")?,
        })
    }

    /// Writes a `dot`'s dimension numbers as XLA prints them (batch lists only when not
    /// empty).
    pub fn set_dot_dimension_numbers(&mut self, numbers: &crate::ir::attrs::DotDimensionNumbers) {
        for (name, values) in [
            ("lhs_batch_dims", &numbers.lhs_batch),
            ("lhs_contracting_dims", &numbers.lhs_contracting),
            ("rhs_batch_dims", &numbers.rhs_batch),
            ("rhs_contracting_dims", &numbers.rhs_contracting),
        ] {
            if values.is_empty() && name.contains("batch") {
                self.attributes.retain(|a| &*a.name != name);
            } else {
                self.set_int_list_attribute(name, values);
            }
        }
    }

    /// A `convolution`'s `dim_labels`, read; `None` when absent or malformed.
    pub fn convolution_dimension_numbers(&self) -> Option<crate::ir::attrs::ConvDimensionNumbers> {
        crate::ir::attrs::ConvDimensionNumbers::parse(self.attribute("dim_labels")?).ok()
    }

    /// Writes a `convolution`'s `dim_labels` as XLA prints them (`b01f_01io->b01f`).
    pub fn set_convolution_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::ConvDimensionNumbers,
    ) {
        self.set_attribute("dim_labels", &numbers.to_string());
    }

    /// A `gather`'s dimension numbers (the batching lists are empty when absent); `None`
    /// when `index_vector_dim` is absent or a value is malformed. `slice_sizes` is a list
    /// of its own: `int_list_attribute("slice_sizes")`.
    pub fn gather_dimension_numbers(&self) -> Option<crate::ir::attrs::GatherDimensionNumbers> {
        Some(crate::ir::attrs::GatherDimensionNumbers {
            offset_dims: self.dims_or_empty("offset_dims")?,
            collapsed_slice_dims: self.dims_or_empty("collapsed_slice_dims")?,
            start_index_map: self.dims_or_empty("start_index_map")?,
            operand_batching_dims: self.dims_or_empty("operand_batching_dims")?,
            start_indices_batching_dims: self.dims_or_empty("start_indices_batching_dims")?,
            index_vector_dim: self.int_attribute("index_vector_dim")?,
        })
    }

    /// Writes a `gather`'s dimension numbers as XLA prints them (batching lists only when
    /// not empty).
    pub fn set_gather_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::GatherDimensionNumbers,
    ) {
        self.set_dims_lists(&[
            ("offset_dims", &numbers.offset_dims, true),
            ("collapsed_slice_dims", &numbers.collapsed_slice_dims, true),
            ("start_index_map", &numbers.start_index_map, true),
            (
                "operand_batching_dims",
                &numbers.operand_batching_dims,
                false,
            ),
            (
                "start_indices_batching_dims",
                &numbers.start_indices_batching_dims,
                false,
            ),
        ]);
        self.set_attribute("index_vector_dim", &numbers.index_vector_dim.to_string());
    }

    /// A `scatter`'s dimension numbers, read as [`Instruction::gather_dimension_numbers`]
    /// reads a gather's.
    pub fn scatter_dimension_numbers(&self) -> Option<crate::ir::attrs::ScatterDimensionNumbers> {
        Some(crate::ir::attrs::ScatterDimensionNumbers {
            update_window_dims: self.dims_or_empty("update_window_dims")?,
            inserted_window_dims: self.dims_or_empty("inserted_window_dims")?,
            scatter_dims_to_operand_dims: self.dims_or_empty("scatter_dims_to_operand_dims")?,
            input_batching_dims: self.dims_or_empty("input_batching_dims")?,
            scatter_indices_batching_dims: self.dims_or_empty("scatter_indices_batching_dims")?,
            index_vector_dim: self.int_attribute("index_vector_dim")?,
        })
    }

    /// Writes a `scatter`'s dimension numbers as XLA prints them (batching lists only when
    /// not empty).
    pub fn set_scatter_dimension_numbers(
        &mut self,
        numbers: &crate::ir::attrs::ScatterDimensionNumbers,
    ) {
        self.set_dims_lists(&[
            ("update_window_dims", &numbers.update_window_dims, true),
            ("inserted_window_dims", &numbers.inserted_window_dims, true),
            (
                "scatter_dims_to_operand_dims",
                &numbers.scatter_dims_to_operand_dims,
                true,
            ),
            ("input_batching_dims", &numbers.input_batching_dims, false),
            (
                "scatter_indices_batching_dims",
                &numbers.scatter_indices_batching_dims,
                false,
            ),
        ]);
        self.set_attribute("index_vector_dim", &numbers.index_vector_dim.to_string());
    }

    /// An integer-list attribute, empty when absent (as XLA reads dimension numbers);
    /// `None` when present but not an integer list.
    fn dims_or_empty(&self, name: &str) -> Option<Vec<i64>> {
        match self.attribute(name) {
            None => Some(Vec::new()),
            Some(_) => self.int_list_attribute(name),
        }
    }

    /// Sets each `(name, values, always)` list; an empty list that is not `always` printed
    /// is removed, as XLA leaves out empty batching lists.
    fn set_dims_lists(&mut self, lists: &[(&str, &Vec<i64>, bool)]) {
        for &(name, values, always) in lists {
            if values.is_empty() && !always {
                self.attributes.retain(|a| &*a.name != name);
            } else {
                self.set_int_list_attribute(name, values);
            }
        }
    }
}
