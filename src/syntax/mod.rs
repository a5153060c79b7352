//! Text to syntax tree.
//!
//! Architecture invariant: nothing in this module panics on any input, and nothing here
//! knows what an opcode, an element type or a layout letter means; that is `crate::lower`'s
//! job.

pub mod ast;
pub mod depth;
pub mod error;
pub mod lexer;
pub mod token;

pub use error::SyntaxError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_imports, dead_code, unused_parens)]
    grammar,
    "/hlo.rs"
);

/// Parses one shape, such as `bf16[4,8]{1,0:T(2,4)(2,1)}` or `(f32[], s32[2]{0})`, to a
/// syntax tree. The whole input must be the shape.
pub fn parse_shape(source: &str) -> Result<ast::Shape<'_>, SyntaxError> {
    let too_deep_at = std::cell::Cell::new(None);
    let tokens = depth::DepthLimited::new(lexer::Lexer::new(source), &too_deep_at);
    let parsed = grammar::ShapeParser::new().parse(tokens);
    if let Some(span) = too_deep_at.get() {
        return Err(SyntaxError::TooDeep {
            span,
            limit: depth::MAX_NESTING,
        });
    }
    parsed.map_err(|e| SyntaxError::from_parse_error(source, e))
}
