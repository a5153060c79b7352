//! What lowering reports about a module: [`ModuleError`], each with the span of the text
//! that broke the rule, so that lowering, the parser's own checks and the tables share it
//! without importing one another.

use crate::span::Span;

use super::shape::LowerError;

/// Why a parsed module is not a module XLA would read: names, calls, roots, opcodes and
/// the rules XLA's parser checks on meaning, each with the span of the offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum ModuleError {
    /// A shape or layout in the module is invalid.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Shape(#[from] LowerError),
    /// The text is one instruction alone where a module was asked for.
    #[error("expected a module, found a single instruction")]
    #[diagnostic(code(hlo::module::not_a_module))]
    NotAModule {
        /// The instruction.
        #[label("a lone instruction")]
        span: Span,
    },
    /// The text holds no computation.
    #[error("the module has no computation")]
    #[diagnostic(code(hlo::module::empty))]
    Empty {
        /// The header, or nothing when there is none.
        #[label("here")]
        span: Span,
    },
    /// Two computations have the same name.
    #[error("computation `{name}` is defined twice")]
    #[diagnostic(code(hlo::module::duplicate_computation))]
    DuplicateComputation {
        /// The name.
        name: String,
        /// The second computation's name.
        #[label("second definition")]
        span: Span,
        /// The first computation's name.
        #[label("first definition")]
        first: Span,
    },
    /// Two instructions of a computation have the same name.
    #[error("instruction `{name}` is defined twice in computation `{computation}`")]
    #[diagnostic(code(hlo::module::duplicate_instruction))]
    DuplicateInstruction {
        /// The name.
        name: String,
        /// The computation.
        computation: String,
        /// The second definition's name.
        #[label("second definition")]
        span: Span,
        /// The first definition's name.
        #[label("first definition")]
        first: Span,
    },
    /// An operand names no instruction of its computation.
    #[error("instruction `{name}` does not exist in computation `{computation}`")]
    #[diagnostic(code(hlo::module::unknown_operand))]
    UnknownOperand {
        /// The name.
        name: String,
        /// The computation.
        computation: String,
        /// The operand.
        #[label("not defined here")]
        span: Span,
    },
    /// An operand names an instruction defined below it.
    #[error("instruction `{name}` is used before its definition in computation `{computation}`")]
    #[diagnostic(
        code(hlo::module::operand_before_definition),
        help("XLA reads an instruction's operands when it reads the instruction, so each must be defined above its first use (XLA: \"instruction does not exist\")")
    )]
    OperandBeforeDefinition {
        /// The operand's name.
        name: String,
        /// The computation.
        computation: String,
        /// The operand.
        #[label("used here")]
        span: Span,
        /// The instruction's definition below.
        #[label("defined here")]
        definition: Span,
    },
    /// A computation is called above its definition, or by itself.
    #[error("computation `{name}` is called before its definition")]
    #[diagnostic(
        code(hlo::module::computation_before_definition),
        help("XLA reads computations in text order, so a computation must be defined above the computations that call it, and cannot call itself (XLA: \"computation does not exist\")")
    )]
    ComputationBeforeDefinition {
        /// The called computation's name.
        name: String,
        /// Where it is called.
        #[label("called here")]
        span: Span,
        /// Where it is defined.
        #[label("defined here")]
        definition: Span,
    },
    /// An attribute names a computation the module does not have.
    #[error("computation `{name}` does not exist")]
    #[diagnostic(code(hlo::module::unknown_computation))]
    UnknownComputation {
        /// The name.
        name: String,
        /// The name in the attribute.
        #[label("no such computation")]
        span: Span,
    },
    /// A computation marks two instructions `ROOT`.
    #[error("computation `{computation}` has more than one ROOT")]
    #[diagnostic(code(hlo::module::multiple_roots))]
    MultipleRoots {
        /// The computation.
        computation: String,
        /// The second `ROOT` instruction.
        #[label("second ROOT")]
        span: Span,
    },
    /// Two computations are marked `ENTRY`.
    #[error("the module has more than one ENTRY computation")]
    #[diagnostic(code(hlo::module::multiple_entries))]
    MultipleEntries {
        /// The second `ENTRY` computation.
        #[label("second ENTRY")]
        span: Span,
    },
    /// A computation has no instructions, so no root.
    #[error("computation `{name}` has no instructions, so no ROOT")]
    #[diagnostic(code(hlo::module::missing_root))]
    MissingRoot {
        /// The computation's name.
        name: String,
        /// Its name where it is defined.
        #[label("empty computation")]
        span: Span,
    },
    /// An instruction depends on itself through its operands.
    #[error("instruction `{name}` depends on itself")]
    #[diagnostic(code(hlo::module::cycle), help("operands must form an acyclic graph"))]
    Cycle {
        /// An instruction on the cycle.
        name: String,
        /// That instruction.
        #[label("on a cycle")]
        span: Span,
    },
    /// An instruction written without a result shape whose shape cannot be inferred.
    #[error("cannot infer the shape of `{opcode}`; write it before the opcode")]
    #[diagnostic(code(hlo::module::cannot_infer_shape))]
    CannotInferShape {
        /// Its opcode, or `literal operand` for a literal among operands.
        opcode: String,
        /// Where the shape is missing.
        #[label("shape needed here")]
        span: Span,
    },
    /// An attribute value outside the grammar XLA's parser reads it by, at the token it
    /// points at.
    #[error("{message}")]
    #[diagnostic(code(hlo::module::attribute_value))]
    AttributeValue {
        /// What XLA's parser says.
        message: String,
        /// The token XLA's parser points at.
        #[label("here")]
        span: Span,
    },
    /// A constant's literal that XLA's parser refuses: nesting, element counts, values out
    /// of the element type's range, NaN payloads.
    #[error("{message}")]
    #[diagnostic(code(hlo::module::literal))]
    Literal {
        /// What XLA's parser says.
        message: String,
        /// The literal's offending part.
        #[label("here")]
        span: Span,
    },
    /// A rule of XLA's parser on meaning: declared operand shapes, signatures, parameter
    /// numbers, in-place computations.
    #[error("{message}")]
    #[diagnostic(code(hlo::module::invalid))]
    Invalid {
        /// What XLA's parser says.
        message: String,
        /// The offending text.
        #[label("here")]
        span: Span,
    },
    /// A rule of XLA's parser that it checks once it has read past the fault, reported at
    /// the token it then stands at, with the fault as a second label.
    #[error("{message}")]
    #[diagnostic(code(hlo::module::invalid))]
    InvalidAfter {
        /// What XLA's parser says.
        message: String,
        /// The token XLA's parser stands at.
        #[label(primary, "{label}")]
        span: Span,
        /// What the label there says.
        label: &'static str,
        /// The text at fault.
        #[label("{fault_label}")]
        fault: Span,
        /// What the label there says.
        fault_label: &'static str,
    },
    /// An opcode XLA does not know; `fmt` keeps it, but XLA's parser refuses it.
    #[error("Unknown opcode: {name}")]
    #[diagnostic(
        code(hlo::module::unknown_opcode),
        help("XLA's parser refuses an opcode it does not know (\"expects opcode\"); `hlo-layout fmt` keeps it")
    )]
    UnknownOpcode {
        /// The opcode as written.
        name: String,
        /// The opcode.
        #[label("not an opcode")]
        span: Span,
    },
    /// An attribute in the `HloModule` line that XLA does not allow there.
    #[error("unexpected attribute \"{name}\" in the HloModule header")]
    #[diagnostic(code(hlo::module::header_attribute), help("allowed: {allowed}"))]
    UnknownHeaderAttribute {
        /// The attribute's name.
        name: String,
        /// The attributes allowed, for the help line.
        allowed: String,
        /// The attribute's name.
        #[label("not a header attribute")]
        span: Span,
    },
    /// A `parameter` without exactly one number.
    #[error("`parameter` needs one parameter number, as in `parameter(0)`")]
    #[diagnostic(code(hlo::module::parameter_number))]
    ParameterNumber {
        /// The parameter instruction.
        #[label("here")]
        span: Span,
    },
}
