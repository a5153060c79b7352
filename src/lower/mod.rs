//! Syntax tree to the model in `crate::ir`: words get their meaning from Rust tables, and
//! every rule the model states is checked here, with the span of the text that broke it.

pub mod canonical;
mod error;
pub mod module;
mod parser_checks;
pub(crate) mod pieces;
pub(crate) mod read_ahead;
pub mod shape;
pub(crate) mod tables;

pub use error::ModuleError;
pub use module::{lower_module, ModuleLowering};
pub use shape::{lower_shape, LowerError};

/// The errors of meaning each line of `source[range]` shows on its own, for text that has a
/// syntax error and so is not lowered: the shapes written (element types, dims, layouts)
/// and opcodes. They do not depend on the lines the parser had to skip, so they are
/// reported beside the syntax errors, as XLA reports the first of either in text order.
pub(crate) fn line_errors(source: &str, range: std::ops::Range<usize>) -> Vec<ModuleError> {
    let mut sink = LineErrors::default();
    // The parse fails: its syntax errors are the caller's. The parser may hand lines over
    // twice (once before it meets the error, then again as it recovers).
    let _ = crate::syntax::parse_module_into(source, range, &mut sink);
    let mut errors = sink.errors;
    errors.sort_by_key(|e| {
        use miette::Diagnostic;
        e.labels()
            .and_then(|mut labels| labels.next())
            .map(|label| (label.offset(), label.len()))
    });
    errors.dedup();
    errors
}

/// The errors XLA's own grammar finds in a header attribute value it reads by that grammar
/// (`input_output_alias`, `buffer_donor`) before `limit`, where a syntax error is: a value
/// whose brackets do not balance is read on by the generic reader past the header, which
/// fails only later, while XLA stops inside the value. Only the header's line is looked at.
pub(crate) fn unclosed_header_values(
    source: &str,
    range: std::ops::Range<usize>,
    limit: usize,
) -> Vec<ModuleError> {
    use crate::syntax::token::Token;
    let mut errors = Vec::new();
    let mut tokens = crate::syntax::lexer::Lexer::with_range(source, range.start, range.end);
    let Some(Ok((start, Token::KwHloModule, _))) = tokens.next() else {
        return errors;
    };
    let rest = source.get(start..range.end).unwrap_or("");
    let line_end = rest.find('\n').map_or(range.end, |n| start + n).min(limit);
    for token in tokens {
        let Ok((l, token, r)) = token else {
            break;
        };
        if l >= line_end {
            break;
        }
        type Check = fn(&str) -> Result<(), (String, usize)>;
        let (name, check): (&str, Check) = match token {
            Token::AttrName(name @ "input_output_alias") => {
                (name, crate::verify::header::input_output_alias_prefix_at)
            }
            Token::AttrName(name @ "buffer_donor") => {
                (name, crate::verify::header::buffer_donor_prefix_at)
            }
            _ => continue,
        };
        let value = source.get(r..range.end).unwrap_or("");
        if let Err((message, offset)) = check(value) {
            // The grammar stops at a token's start.
            let at = crate::syntax::token_after(source, r + offset);
            if at.start < limit {
                errors.push(ModuleError::Invalid {
                    message: format!("{name}: {message}"),
                    span: at,
                });
            }
        }
    }
    errors
}

/// The sink of [`line_errors`].
#[derive(Default)]
struct LineErrors {
    errors: Vec<ModuleError>,
}

impl LineErrors {
    fn shape(&mut self, shape: &crate::syntax::ast::Shape<'_>) {
        if let Err(errors) = lower_shape(shape) {
            self.errors
                .extend(errors.into_iter().map(ModuleError::from));
        }
    }

    fn operands(&mut self, operands: &[crate::syntax::ast::Operand<'_>]) {
        use crate::syntax::ast::Operand;
        for operand in operands {
            match operand {
                Operand::Ref { shape, .. } => {
                    if let Some(shape) = shape {
                        self.shape(shape);
                    }
                }
                Operand::Nested {
                    shape,
                    opcode,
                    operands,
                    ..
                } => {
                    if let Some(shape) = shape {
                        self.shape(shape);
                    }
                    self.opcode(opcode);
                    self.operands(operands);
                }
                Operand::Shape(shape) => self.shape(shape),
                Operand::Literal(_) => {}
            }
        }
    }

    fn opcode(&mut self, word: &crate::syntax::ast::Word<'_>) {
        let opcode = crate::ir::opcode::Opcode::from_name(word.text);
        self.errors
            .extend(parser_checks::unknown_opcode(&opcode, word));
    }
}

impl<'s> crate::syntax::ast::Sink<'s> for LineErrors {
    fn begin_computation(&mut self, head: crate::syntax::ast::ComputationHead<'s>) {
        if let Some(signature) = &head.signature {
            for (_, shape) in &signature.parameters {
                self.shape(shape);
            }
            self.shape(&signature.result);
        }
    }

    fn instruction(&mut self, instruction: crate::syntax::ast::Instruction<'s>) {
        if let Some(shape) = &instruction.shape {
            self.shape(shape);
        }
        self.opcode(&instruction.opcode);
        self.operands(&instruction.operands);
    }

    fn end_computation(&mut self, _: Vec<crate::syntax::ast::Attribute<'s>>, _: usize) {}
}
