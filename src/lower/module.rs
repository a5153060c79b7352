//! Modules: the syntax tree to the IR graph. Names are resolved here, each failure reported
//! with the span of the name.
//!
//! Rules, as XLA's parser applies them: a computation without `ROOT` has its last
//! instruction as root; a module without `ENTRY` has its last computation as entry. Unlike
//! XLA, operands and computations may be used before they are defined (a cycle is then an
//! error), and instruction names are scoped to their computation.

use std::collections::HashMap;

use super::shape::{lower_shape, LowerError};
use crate::ir::module::{
    Computation, ComputationId, InstrId, Instruction, Module, Payload, PrintStyle, TextAttribute,
};
use crate::ir::opcode::{OpKind, Opcode};
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::Shape;
use crate::print;
use crate::syntax::ast::{self, Span, Term, WordKind};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum ModuleError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Shape(#[from] LowerError),
    #[error("expected a module, found a single instruction")]
    #[diagnostic(code(hlo::module::not_a_module))]
    NotAModule {
        #[label("a lone instruction")]
        span: Span,
    },
    #[error("the module has no computation")]
    #[diagnostic(code(hlo::module::empty))]
    Empty {
        #[label("here")]
        span: Span,
    },
    #[error("computation `{name}` is defined twice")]
    #[diagnostic(code(hlo::module::duplicate_computation))]
    DuplicateComputation {
        name: String,
        #[label("second definition")]
        span: Span,
        #[label("first definition")]
        first: Span,
    },
    #[error("instruction `{name}` is defined twice in computation `{computation}`")]
    #[diagnostic(code(hlo::module::duplicate_instruction))]
    DuplicateInstruction {
        name: String,
        computation: String,
        #[label("second definition")]
        span: Span,
        #[label("first definition")]
        first: Span,
    },
    #[error("instruction `{name}` does not exist in computation `{computation}`")]
    #[diagnostic(code(hlo::module::unknown_operand))]
    UnknownOperand {
        name: String,
        computation: String,
        #[label("not defined here")]
        span: Span,
    },
    #[error("computation `{name}` does not exist")]
    #[diagnostic(code(hlo::module::unknown_computation))]
    UnknownComputation {
        name: String,
        #[label("no such computation")]
        span: Span,
    },
    #[error("computation `{computation}` has more than one ROOT")]
    #[diagnostic(code(hlo::module::multiple_roots))]
    MultipleRoots {
        computation: String,
        #[label("second ROOT")]
        span: Span,
    },
    #[error("the module has more than one ENTRY computation")]
    #[diagnostic(code(hlo::module::multiple_entries))]
    MultipleEntries {
        #[label("second ENTRY")]
        span: Span,
    },
    #[error("computation `{name}` has no instructions, so no ROOT")]
    #[diagnostic(code(hlo::module::missing_root))]
    MissingRoot {
        name: String,
        #[label("empty computation")]
        span: Span,
    },
    #[error("instruction `{name}` depends on itself")]
    #[diagnostic(code(hlo::module::cycle), help("operands must form an acyclic graph"))]
    Cycle {
        name: String,
        #[label("on a cycle")]
        span: Span,
    },
    #[error("cannot infer the shape of `{opcode}`; write it before the opcode")]
    #[diagnostic(code(hlo::module::cannot_infer_shape))]
    CannotInferShape {
        opcode: String,
        #[label("shape needed here")]
        span: Span,
    },
    /// A rule of XLA's parser on meaning: declared operand shapes, signatures, parameter
    /// numbers, in-place computations.
    #[error("{message}")]
    #[diagnostic(code(hlo::module::invalid))]
    Invalid {
        message: String,
        #[label("here")]
        span: Span,
    },
    #[error("`parameter` needs one parameter number, as in `parameter(0)`")]
    #[diagnostic(code(hlo::module::parameter_number))]
    ParameterNumber {
        #[label("here")]
        span: Span,
    },
}

/// Attributes whose values name called computations.
pub const CALLED_COMPUTATION_ATTRIBUTES: &[&str] = &[
    "to_apply",
    "calls",
    "condition",
    "body",
    "true_computation",
    "false_computation",
    "branch_computations",
    "select",
    "scatter",
    "called_computations",
];

/// Lowers a parsed module; every error is returned.
pub fn lower_module(module: &ast::Module<'_>) -> Result<Module, Vec<ModuleError>> {
    let mut errors = Vec::new();
    if let Some(instruction) = &module.instruction {
        return lower_single_instruction(module, instruction);
    }
    let Some(_) = module.computations.last() else {
        return Err(vec![ModuleError::Empty {
            span: module.header.as_ref().map_or(Span::default(), |h| h.span),
        }]);
    };

    let mut computation_ids: HashMap<&str, (ComputationId, Span)> = HashMap::new();
    for (index, computation) in module.computations.iter().enumerate() {
        let name = computation.name.text;
        let id = ComputationId(index as u32);
        if let Some(&(_, first)) = computation_ids.get(name) {
            errors.push(ModuleError::DuplicateComputation {
                name: name.to_string(),
                span: computation.name.span,
                first,
            });
        } else {
            computation_ids.insert(name, (id, computation.name.span));
        }
    }

    let mut entry = None;
    for (index, computation) in module.computations.iter().enumerate() {
        if computation.entry {
            if entry.is_some() {
                errors.push(ModuleError::MultipleEntries {
                    span: computation.name.span,
                });
            } else {
                entry = Some(ComputationId(index as u32));
            }
        }
    }
    let entry = entry.unwrap_or(ComputationId(module.computations.len() as u32 - 1));

    let entry_text = &module.computations[entry.0 as usize];
    let style = entry_text
        .instructions
        .iter()
        .find(|i| i.root)
        .or(entry_text.instructions.last())
        .map_or(PrintStyle::default(), style_of);

    let mut attributes = Vec::new();
    if let Some(header) = &module.header {
        for attribute in &header.attributes {
            match print::attribute_value_text(attribute, 0) {
                Ok(value) => attributes.push(TextAttribute::new(attribute.name.text, &value)),
                Err(e) => errors.extend(e.into_iter().map(ModuleError::from)),
            }
        }
    }
    let tables = print::tables_text(&module.tables).unwrap_or_else(|e| {
        errors.extend(e.into_iter().map(ModuleError::from));
        String::new()
    });

    let mut computations = Vec::with_capacity(module.computations.len());
    for computation in &module.computations {
        let mut lowering = ComputationLowering {
            computation_ids: &computation_ids,
            errors: &mut errors,
            names: HashMap::new(),
            computation: Computation::new(computation.name.text),
        };
        lowering.lower(
            computation,
            ComputationId(computations.len() as u32) == entry,
        );
        computations.push(lowering.computation);
    }

    let name = module.header.as_ref().map_or_else(
        || format!("module_{}", module.computations[entry.0 as usize].name.text),
        |h| h.name.text.to_string(),
    );
    if errors.is_empty() {
        Ok(Module {
            name,
            has_header: module.header.is_some(),
            attributes,
            tables,
            computations,
            entry,
            style,
        })
    } else {
        Err(errors)
    }
}

/// XLA's single-instruction form: operands written with shapes become parameters of an
/// entry computation holding the instruction as its root.
fn lower_single_instruction<'s>(
    module: &ast::Module<'s>,
    instruction: &ast::Instruction<'s>,
) -> Result<Module, Vec<ModuleError>> {
    const NUMBERS: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    let mut errors = Vec::new();
    let mut instructions = Vec::new();
    for operand in &instruction.operands {
        match operand {
            ast::Operand::Ref {
                shape: Some(shape),
                name,
                indices,
            } if indices.is_empty() => {
                let Some(&number) = NUMBERS.get(instructions.len()) else {
                    continue;
                };
                let word = ast::Word {
                    text: number,
                    span: name.span,
                };
                instructions.push(ast::Instruction {
                    root: false,
                    name: *name,
                    shape: Some(shape.clone()),
                    opcode: ast::Word {
                        text: "parameter",
                        span: name.span,
                    },
                    operands: vec![ast::Operand::Literal(Term::Word(word, WordKind::Int))],
                    attributes: Vec::new(),
                    span: name.span,
                });
            }
            ast::Operand::Ref {
                shape: None, name, ..
            } => errors.push(ModuleError::Invalid {
                message: format!(
                    "Operand had no shape in HLO text: `{}` in a lone instruction needs its \
                     shape, as in `f32[2] {}`",
                    name.text, name.text
                ),
                span: name.span,
            }),
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut root = instruction.clone();
    root.root = true;
    for operand in &mut root.operands {
        if let ast::Operand::Ref { shape, indices, .. } = operand {
            if indices.is_empty() {
                *shape = None;
            }
        }
    }
    instructions.push(root);
    let computation = ast::Computation {
        entry: true,
        name: ast::Name {
            text: instruction.name.text,
            percent: false,
            span: instruction.name.span,
        },
        signature: None,
        instructions,
        attributes: Vec::new(),
        span: instruction.span,
    };
    let wrapped = ast::Module {
        header: module.header.clone(),
        tables: module.tables.clone(),
        computations: vec![computation],
        instruction: None,
    };
    lower_module(&wrapped)
}

struct ComputationLowering<'a, 's> {
    computation_ids: &'a HashMap<&'s str, (ComputationId, Span)>,
    errors: &'a mut Vec<ModuleError>,
    /// Instruction name -> id and the span of its definition.
    names: HashMap<String, (InstrId, Span)>,
    computation: Computation,
}

/// An operand waiting for its name to be resolved.
struct PendingOperand<'s> {
    user: InstrId,
    slot: u32,
    name: ast::Name<'s>,
    /// The shape the text declared for the operand (`f32[2] %x`), if any.
    shape: Option<Shape>,
    /// The compact tuple-element path (`%t#1`).
    path: Vec<i64>,
}

impl<'s> ComputationLowering<'_, 's> {
    fn lower(&mut self, computation: &ast::Computation<'s>, is_entry: bool) {
        self.computation.is_entry = is_entry;
        self.computation.entry_written = computation.entry;
        self.computation.percent = computation.name.percent;
        self.computation.has_signature = computation.signature.is_some();
        self.computation.span = computation.span;
        for attribute in &computation.attributes {
            if let Ok(value) = print::attribute_value_text(attribute, 0) {
                self.computation
                    .attributes
                    .push(TextAttribute::new(attribute.name.text, &value));
            }
        }
        if computation.instructions.is_empty() {
            self.errors.push(ModuleError::MissingRoot {
                name: computation.name.text.to_string(),
                span: computation.name.span,
            });
            return;
        }
        let mut pending = Vec::new();
        let mut root = None;
        for instruction in &computation.instructions {
            let id = self.instruction(instruction, &mut pending);
            if instruction.root {
                if root.is_some() {
                    self.errors.push(ModuleError::MultipleRoots {
                        computation: computation.name.text.to_string(),
                        span: instruction.span,
                    });
                }
                root = root.or(id);
            }
        }
        for operand in pending {
            match self.names.get(operand.name.text) {
                Some(&(id, _)) => {
                    if let Some(declared) = &operand.shape {
                        let actual = self.computation.instruction(id);
                        let actual = if operand.path.is_empty() {
                            Some(&actual.shape)
                        } else {
                            actual.shape.subshape(&operand.path)
                        };
                        if let Some(actual) = actual.filter(|a| {
                            self.computation.instruction(id).shape_written
                                && !crate::verify::shapes::compatible(declared, a)
                        }) {
                            self.errors.push(ModuleError::Invalid {
                                message: format!(
                                    "The declared operand shape {declared} is not compatible \
                                     with the shape of the operand instruction {actual}."
                                ),
                                span: operand.name.span,
                            });
                        }
                    }
                    self.computation
                        .add_operand_edge(id, operand.user, operand.slot);
                }
                None => self.errors.push(ModuleError::UnknownOperand {
                    name: operand.name.text.to_string(),
                    computation: computation.name.text.to_string(),
                    span: operand.name.span,
                }),
            }
        }
        let last = self.computation.order().last().copied();
        if let Some(root_id) = root.or(last) {
            self.computation.set_root(root_id);
            self.computation.root_written = root.is_some();
        }
        if let (Some(signature), Some(root_id)) = (&computation.signature, root.or(last)) {
            if let Ok(declared) = lower_shape(&signature.result) {
                let root_shape = &self.computation.instruction(root_id).shape;
                if self.computation.instruction(root_id).shape_written
                    && !crate::verify::shapes::compatible(&declared, root_shape)
                {
                    self.errors.push(ModuleError::Invalid {
                        message: format!(
                            "Shape of computation {}, {}, is not compatible with that of its \
                             root instruction {}, {}",
                            computation.name.text,
                            crate::verify::shapes::strip_layouts(&declared),
                            self.computation.instruction(root_id).name,
                            crate::verify::shapes::strip_layouts(root_shape)
                        ),
                        span: computation.name.span,
                    });
                }
            }
        }
        // (e) Parameter numbers are unique.
        let parameters = self.computation.parameters();
        for pair in parameters.windows(2) {
            if let [(a, _), (b, id)] = pair {
                if a == b {
                    let span = self.computation.instruction(*id).span;
                    self.errors.push(ModuleError::Invalid {
                        message: format!("Duplicate parameter number {a}"),
                        span,
                    });
                }
            }
        }
        if let Some(signature) = &computation.signature {
            let parameters = self.computation.parameters();
            let differs = signature.parameters.len() != parameters.len()
                || signature
                    .parameters
                    .iter()
                    .zip(&parameters)
                    .any(|((name, _), (_, id))| {
                        self.computation.instruction(*id).name != name.text
                    });
            if differs {
                self.computation.signature_names = signature
                    .parameters
                    .iter()
                    .map(|(n, _)| n.text.to_string())
                    .collect();
            }
        }
        if let Some(id) = self.computation.find_cycle() {
            let instruction = self.computation.instruction(id);
            self.errors.push(ModuleError::Cycle {
                name: instruction.name.clone(),
                span: instruction.span,
            });
        }
        // Nested instructions were added after their users; print them before, and infer
        // their shapes before their users' shapes.
        self.computation.restore_def_before_use();
        self.infer_missing_shapes();
    }

    /// Lowers one instruction (and nested anonymous ones); operands by name are queued.
    fn instruction(
        &mut self,
        instruction: &ast::Instruction<'s>,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let opcode = Opcode::from_name(instruction.opcode.text);
        let (shape, shape_written) = match &instruction.shape {
            Some(shape) => match lower_shape(shape) {
                Ok(shape) => (with_default_layouts(shape), true),
                Err(e) => {
                    self.errors.extend(e.into_iter().map(ModuleError::from));
                    return None;
                }
            },
            None => (Shape::Tuple(Vec::new()), false),
        };
        let mut lowered = Instruction::new(instruction.name.text, opcode, shape);
        lowered.shape_written = shape_written;
        lowered.style = style_of(instruction);
        lowered.span = instruction.span;
        for attribute in &instruction.attributes {
            match print::attribute_value_text(attribute, 2) {
                Ok(value) => lowered
                    .attributes
                    .push(TextAttribute::new(attribute.name.text, &value)),
                Err(e) => self.errors.extend(e.into_iter().map(ModuleError::from)),
            }
            if CALLED_COMPUTATION_ATTRIBUTES.contains(&attribute.name.text)
                && crate::verify::attributes::allowed(&lowered.opcode, attribute.name.text)
            {
                self.called(&attribute.value, &mut lowered.called);
            }
        }
        let operands = self.payload(instruction, &mut lowered);
        let id = self.add(lowered, instruction.name, instruction.span)?;
        self.operands(id, operands, pending);
        Some(id)
    }

    /// Takes `parameter(N)` and `constant(literal)` out of the operand list; returns the
    /// operands that are real.
    fn payload<'o>(
        &mut self,
        instruction: &'o ast::Instruction<'s>,
        lowered: &mut Instruction,
    ) -> &'o [ast::Operand<'s>] {
        match (&lowered.opcode, instruction.operands.as_slice()) {
            (Opcode::Parameter, [ast::Operand::Literal(Term::Word(word, WordKind::Int))]) => {
                match word.text.parse::<i64>() {
                    Ok(n) => lowered.payload = Payload::Parameter(n),
                    Err(_) => self.errors.push(ModuleError::ParameterNumber {
                        span: instruction.span,
                    }),
                }
                &[]
            }
            (Opcode::Parameter, _) => {
                self.errors.push(ModuleError::ParameterNumber {
                    span: instruction.span,
                });
                &[]
            }
            // `constant(inf)`, `constant(true)`: a lone word reads like a name.
            (
                Opcode::Constant,
                [ast::Operand::Ref {
                    shape: None,
                    name,
                    indices,
                }],
            ) if indices.is_empty() && !name.percent => {
                lowered.payload = Payload::Literal(name.text.into());
                &[]
            }
            (_, [ast::Operand::Literal(term)]) => {
                match print::literal_text(term) {
                    Ok(text) => lowered.payload = Payload::Literal(text.into()),
                    Err(e) => self.errors.extend(e.into_iter().map(ModuleError::from)),
                }
                &[]
            }
            (_, operands) => operands,
        }
    }

    fn add(
        &mut self,
        instruction: Instruction,
        name: ast::Name<'_>,
        span: Span,
    ) -> Option<InstrId> {
        if let Some(&(_, first)) = self.names.get(name.text) {
            self.errors.push(ModuleError::DuplicateInstruction {
                name: name.text.to_string(),
                computation: self.computation.name.clone(),
                span: name.span,
                first,
            });
            return None;
        }
        let id = self.computation.push(instruction, &[]);
        self.names.insert(name.text.to_string(), (id, span));
        Some(id)
    }

    fn operands(
        &mut self,
        user: InstrId,
        operands: &[ast::Operand<'s>],
        pending: &mut Vec<PendingOperand<'s>>,
    ) {
        for (slot, operand) in operands.iter().enumerate() {
            let slot = slot as u32;
            match operand {
                ast::Operand::Ref {
                    name,
                    indices,
                    shape,
                } => {
                    let user_instruction = self.computation.instruction_mut(user);
                    if name.percent != user_instruction.style.operand_percent {
                        user_instruction.percent_exceptions.push(slot);
                    }
                    pending.push(PendingOperand {
                        user,
                        slot,
                        name: *name,
                        shape: shape
                            .as_ref()
                            .and_then(|s| lower_shape(s).ok())
                            .map(with_default_layouts),
                        path: indices.iter().filter_map(|i| i.text.parse().ok()).collect(),
                    });
                    if !indices.is_empty() {
                        let path = indices.iter().filter_map(|i| i.text.parse().ok()).collect();
                        self.computation
                            .instruction_mut(user)
                            .tuple_paths
                            .push((slot, path));
                    }
                }
                ast::Operand::Nested {
                    shape,
                    opcode,
                    operands,
                    span,
                } => {
                    // XLA names anonymous nested instructions `opcode.anon`.
                    let base = format!("{}.anon", opcode.text);
                    let name = self.computation.unique_name(&base);
                    let nested = ast::Instruction {
                        root: false,
                        name: ast::Name {
                            text: "",
                            percent: false,
                            span: *span,
                        },
                        shape: shape.clone(),
                        opcode: *opcode,
                        operands: operands.clone(),
                        attributes: Vec::new(),
                        span: *span,
                    };
                    let mut nested_pending = Vec::new();
                    if let Some(id) = self.nested(&nested, name, &mut nested_pending) {
                        self.computation.add_operand_edge(id, user, slot);
                    }
                    pending.extend(nested_pending);
                }
                ast::Operand::Shape(shape) => {
                    // XLA's single-instruction form: a shape alone is a new parameter.
                    if let Ok(shape) = lower_shape(shape)
                        .map_err(|e| self.errors.extend(e.into_iter().map(ModuleError::from)))
                    {
                        let number = self.computation.parameters().len() as i64;
                        let name = self.computation.unique_name("parameter.anon");
                        let mut parameter =
                            Instruction::new(name, Opcode::Parameter, with_default_layouts(shape));
                        parameter.payload = Payload::Parameter(number);
                        let id = self.computation.push(parameter, &[]);
                        self.computation.add_operand_edge(id, user, slot);
                    }
                }
                ast::Operand::Literal(term) => {
                    // A literal among operands has no meaning; keep it visible as an error.
                    self.errors.push(ModuleError::CannotInferShape {
                        opcode: "literal operand".into(),
                        span: term.span(),
                    });
                }
            }
        }
    }

    fn nested(
        &mut self,
        instruction: &ast::Instruction<'s>,
        name: String,
        pending: &mut Vec<PendingOperand<'s>>,
    ) -> Option<InstrId> {
        let opcode = Opcode::from_name(instruction.opcode.text);
        let (shape, written) = match &instruction.shape {
            Some(shape) => (
                with_default_layouts(
                    lower_shape(shape)
                        .map_err(|e| self.errors.extend(e.into_iter().map(ModuleError::from)))
                        .ok()?,
                ),
                true,
            ),
            None => (Shape::Tuple(Vec::new()), false),
        };
        let mut lowered = Instruction::new(name.clone(), opcode, shape);
        lowered.shape_written = written;
        lowered.style = style_of(instruction);
        lowered.span = instruction.span;
        let operands = self.payload(instruction, &mut lowered);
        let id = self.computation.push(lowered, &[]);
        self.names.insert(name, (id, instruction.span));
        self.operands(id, operands, pending);
        Some(id)
    }

    fn called(&mut self, value: &[Term<'_>], called: &mut Vec<ComputationId>) {
        for term in value {
            match term {
                Term::Word(word, WordKind::Name | WordKind::Ident) => {
                    match self.computation_ids.get(word.text) {
                        Some(&(id, _)) => called.push(id),
                        None => self.errors.push(ModuleError::UnknownComputation {
                            name: word.text.to_string(),
                            span: word.span,
                        }),
                    }
                }
                // A list holding more than names is an in-place computation written
                // without instruction names, which XLA's parser rejects.
                Term::List(list)
                    if list
                        .terms
                        .iter()
                        .any(|t| matches!(t, Term::List(_) | Term::Attr { .. })) =>
                {
                    self.errors.push(ModuleError::Invalid {
                        message: "expects name: an instruction of an in-place computation \
                                  needs `name =`"
                            .into(),
                        span: list.span,
                    })
                }
                Term::List(list) => self.called(&list.terms, called),
                Term::Body(instructions, _) => self.errors.extend(check_body(instructions)),
                _ => {}
            }
        }
    }

    /// Gives instructions written without a result shape the one XLA would infer, for the
    /// opcodes whose shape follows from their operands alone.
    fn infer_missing_shapes(&mut self) {
        let order: Vec<InstrId> = self.computation.order().to_vec();
        for id in order {
            if self.computation.instruction(id).shape_written {
                continue;
            }
            let operands: Vec<Shape> = self
                .computation
                .operands(id)
                .into_iter()
                .map(|o| self.computation.instruction(o).shape.clone())
                .collect();
            let instruction = self.computation.instruction(id);
            let inferred = infer_from_operands(instruction, &operands);
            match inferred {
                Some(shape) => self.computation.instruction_mut(id).shape = shape,
                None => self.errors.push(ModuleError::CannotInferShape {
                    opcode: instruction.opcode.name().to_string(),
                    span: instruction.span,
                }),
            }
        }
    }
}

/// Checks a computation written in place (`to_apply={ ... }`): every instruction is named
/// and every operand names an instruction of the body, as XLA's parser requires.
fn check_body(instructions: &[ast::Instruction<'_>]) -> Vec<ModuleError> {
    let mut errors = Vec::new();
    for instruction in instructions {
        if instruction.name.text.is_empty() {
            errors.push(ModuleError::Invalid {
                message: "expects name: an instruction of an in-place computation needs \
                          `name =`"
                    .into(),
                span: instruction.span,
            });
        }
        for operand in &instruction.operands {
            match operand {
                ast::Operand::Ref { name, .. }
                    if !instructions.iter().any(|i| i.name.text == name.text) =>
                {
                    errors.push(ModuleError::Invalid {
                        message: format!("instruction does not exist: {}", name.text),
                        span: name.span,
                    })
                }
                ast::Operand::Shape(_) => errors.push(ModuleError::Invalid {
                    message: "expects name: an operand of an in-place computation must name \
                              an instruction"
                        .into(),
                    span: instruction.span,
                }),
                _ => {}
            }
        }
    }
    errors
}

/// How one line writes names (`%` or not) and operands (with shapes or not).
fn style_of(instruction: &ast::Instruction<'_>) -> PrintStyle {
    // A constant's lone word (`constant(inf)`) is a literal, not an operand.
    let first_ref = instruction
        .operands
        .iter()
        .find_map(|o| match o {
            ast::Operand::Ref { shape, name, .. } => Some((shape.is_some(), name.percent)),
            _ => None,
        })
        .filter(|_| instruction.opcode.text != "constant");
    PrintStyle {
        percent: instruction.name.percent,
        operand_percent: first_ref.map_or(instruction.name.percent, |(_, percent)| percent),
        operand_shapes: first_ref.is_some_and(|(shape, _)| shape),
    }
}

/// Gives every array without a layout XLA's default, as XLA's parser does.
fn with_default_layouts(mut shape: Shape) -> Shape {
    fn fill(shape: &mut Shape) {
        match shape {
            Shape::Array(array) if array.layout.is_none() => {
                array.layout = Some(crate::ir::Layout::descending(array.rank()));
            }
            Shape::Tuple(elements) => elements.iter_mut().for_each(fill),
            _ => {}
        }
    }
    fill(&mut shape);
    shape
}

/// The shape of an instruction from its operands, where no attribute is needed.
fn infer_from_operands(instruction: &Instruction, operands: &[Shape]) -> Option<Shape> {
    let first = operands.first();
    match (&instruction.opcode, instruction.opcode.kind()) {
        (Opcode::Compare | Opcode::IsFinite, _) => match first? {
            Shape::Array(array) => Some(Shape::Array(crate::ir::ArrayShape {
                element_type: PrimitiveType::Pred,
                ..array.clone()
            })),
            _ => None,
        },
        (Opcode::Tuple, _) => Some(Shape::Tuple(operands.to_vec())),
        (Opcode::GetTupleElement, _) => match first? {
            Shape::Tuple(elements) => {
                let index = usize::try_from(instruction.int_attribute("index")?).ok()?;
                elements.get(index).cloned()
            }
            _ => None,
        },
        (Opcode::AfterAll, _) => Some(Shape::Token),
        (Opcode::Select, _) => operands.get(1).cloned(),
        (Opcode::Clamp, _) => operands.get(1).cloned(),
        (_, OpKind::ElementwiseUnary | OpKind::ElementwiseBinary)
            if !matches!(instruction.opcode, Opcode::Convert | Opcode::BitcastConvert) =>
        {
            first.cloned()
        }
        _ => None,
    }
}
