//! The token stream lalrpop reads: logos tokens with byte spans, plus the context logos
//! cannot see (a `{` that opens a layout).

use logos::Logos;

use super::token::Token;

/// A token with its byte range, as lalrpop's external-lexer interface wants it.
pub type Spanned<'s> = (usize, Token<'s>, usize);

/// Lexer errors never reach lalrpop (they become [`Token::Error`]), so this is uninhabited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Never {}

pub struct Lexer<'s> {
    inner: logos::Lexer<'s, Token<'s>>,
    /// The next `{` opens a layout.
    layout_brace_next: bool,
}

impl<'s> Lexer<'s> {
    pub fn new(source: &'s str) -> Lexer<'s> {
        Lexer {
            inner: Token::lexer(source),
            layout_brace_next: false,
        }
    }

    /// After `]`, a `{` whose next significant byte is a digit, `:` or `}` opens a layout; a
    /// computation body's `{` is followed by a name or `ROOT`.
    fn opens_layout(rest: &str) -> bool {
        let Some(after_brace) = skip_trivia(rest).strip_prefix('{') else {
            return false;
        };
        matches!(
            skip_trivia(after_brace).bytes().next(),
            Some(b'0'..=b'9' | b':' | b'}')
        )
    }
}

/// Skips what the lexer skips: whitespace, `/* */` and `//` comments.
fn skip_trivia(mut rest: &str) -> &str {
    loop {
        rest = rest.trim_start();
        if let Some(comment) = rest.strip_prefix("/*") {
            match comment.find("*/") {
                Some(end) => rest = &comment[end + 2..],
                None => return rest,
            }
        } else if let Some(comment) = rest.strip_prefix("//") {
            rest = comment.find(['\n', '\r']).map_or("", |end| &comment[end..]);
        } else {
            return rest;
        }
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<Spanned<'s>, Never>;

    fn next(&mut self) -> Option<Self::Item> {
        let token = self.inner.next()?;
        let span = self.inner.span();
        let token = match token {
            Ok(Token::LBrace) if std::mem::take(&mut self.layout_brace_next) => Token::LayoutBrace,
            Ok(token) => {
                self.layout_brace_next =
                    token == Token::RSquare && Self::opens_layout(self.inner.remainder());
                token
            }
            Err(()) => {
                self.layout_brace_next = false;
                Token::Error
            }
        };
        Some(Ok((span.start, token, span.end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Token<'_>> {
        Lexer::new(src)
            .map(|t| t.map(|(_, t, _)| t).unwrap())
            .collect()
    }

    #[test]
    fn layout_brace_only_after_square_bracket() {
        assert_eq!(
            kinds("f32[2]{0}"),
            vec![
                Token::Ident("f32"),
                Token::LSquare,
                Token::Int("2"),
                Token::RSquare,
                Token::LayoutBrace,
                Token::Int("0"),
                Token::RBrace
            ]
        );
        assert_eq!(kinds("f32[] {\n %p")[3], Token::LBrace);
        assert_eq!(kinds("f32[]{:T(256)}")[3], Token::LayoutBrace);
    }

    #[test]
    fn hlo_lexing_traps() {
        assert_eq!(
            kinds("dim_labels=b01f_01io->b01f"),
            vec![
                Token::AttrName("dim_labels"),
                Token::DimLabels("b01f_01io->b01f")
            ]
        );
        assert_eq!(
            kinds("3x3 1_1x0_0"),
            vec![Token::DxD("3x3"), Token::Pad("1_1x0_0")]
        );
        assert_eq!(
            kinds("%get-tuple-element.5 /*index=5*/ x: // c\n-inf nan(0x7f)"),
            vec![
                Token::Name("get-tuple-element.5"),
                Token::NameColon("x"),
                Token::NegInf,
                Token::Float("nan(0x7f)")
            ]
        );
        assert_eq!(kinds("@"), vec![Token::Error]);
    }
}
