//! A nesting limit on brackets, so that hostile input such as a hundred thousand `(` cannot
//! exhaust the stack in the recursive steps after parsing (lowering, printing, dropping).

use std::cell::Cell;

use super::ast::Span;
use super::lexer::{Never, Spanned};
use super::token::Token;

/// Deepest bracket nesting accepted. Real HLO nests tuples, literals and attribute values a
/// few levels deep; this leaves ample room while keeping recursion shallow.
pub const MAX_NESTING: usize = 256;

/// Passes tokens through until the nesting exceeds [`MAX_NESTING`], then ends the stream
/// and remembers where; the caller reports that instead of the parser's complaint.
pub struct DepthLimited<'a, I> {
    tokens: I,
    depth: usize,
    too_deep_at: &'a Cell<Option<Span>>,
}

impl<'a, I> DepthLimited<'a, I> {
    pub fn new(tokens: I, too_deep_at: &'a Cell<Option<Span>>) -> Self {
        DepthLimited {
            tokens,
            depth: 0,
            too_deep_at,
        }
    }
}

impl<'s, I> Iterator for DepthLimited<'_, I>
where
    I: Iterator<Item = Result<Spanned<'s>, Never>>,
{
    type Item = Result<Spanned<'s>, Never>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.too_deep_at.get().is_some() {
            return None;
        }
        let item = self.tokens.next()?;
        let (start, token, end) = match &item {
            Ok(spanned) => spanned,
            Err(never) => match *never {},
        };
        match token {
            Token::LParen | Token::LSquare | Token::LBrace | Token::LayoutBrace => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    self.too_deep_at.set(Some(Span::new(*start, *end)));
                    return None;
                }
            }
            Token::RParen | Token::RSquare | Token::RBrace => {
                self.depth = self.depth.saturating_sub(1);
            }
            _ => {}
        }
        Some(item)
    }
}
