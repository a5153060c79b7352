//! The token stream lalrpop reads: logos tokens with byte spans, plus the context logos
//! cannot see. XLA's own lexer is steered by its parser; here the adapter looks ahead in the
//! text instead, so that the grammar stays context free and LR(1):
//!
//! - a `{` after `]` that opens a layout becomes [`Token::LayoutBrace`] (or, when the
//!   layout is only integers, the whole of it [`Token::LayoutInts`]);
//! - a `{` followed by an instruction becomes [`Token::BodyOpen`], and its `}`
//!   [`Token::BodyClose`];
//! - a name followed by `=` becomes [`Token::DefName`]/[`Token::DefIdent`], an identifier
//!   followed by `(` [`Token::Call`] and one followed by `[` [`Token::Indexed`];
//! - the value of `backend_config=` and of each key of `frontend_attributes={...}` that starts
//!   with `{` is taken verbatim up to the matching `}` as one [`Token::Raw`] (docs/hlo-text.md
//!   §2.8).
//!
//! For speed, forms that make up most of a real dump are also read whole (`fast_paths.rs`),
//! each only where it is exactly in the form XLA prints it (anything else is lexed token by token and parses to
//! the same tree): an instruction's head, with its attributes when all are plain
//! ([`Token::SimpleHead`]), and where the head is not plain, its result shape without tiles
//! ([`Token::SimpleShape`]) and
//! its operand list when it is only names ([`Token::OperandNames`]); and a `metadata={...}`
//! value already in canonical field order and spacing, and an `input_output_alias={...}`
//! value spaced as XLA prints it ([`Token::Raw`], which then prints as it was written).

use logos::Logos;

use super::fast_paths::{
    canonical_alias_len, canonical_metadata_len, opens_body, opens_buffer, opens_layout,
    operand_names_len, simple_attributes_len, simple_head_rest, simple_shape_len, skip_trivia,
    table_row_len,
};
use super::strings::{balanced_blob_len, refused_escape};
use super::token::{HeadCuts, HeadText, Token};
use crate::span::Span;

/// A token with its byte range, as lalrpop's external-lexer interface wants it.
pub type Spanned<'s> = (usize, Token<'s>, usize);

/// Brackets may nest this deep. The parser itself does not recurse, but dropping, lowering
/// and printing the tree do, so a limit keeps hostile input from overflowing the stack.
pub const MAX_NESTING: usize = 256;

/// The only error that stops the token stream; everything else is a [`Token::Error`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexError {
    /// Brackets nest deeper than [`MAX_NESTING`].
    TooDeep {
        /// The bracket one level too deep.
        span: Span,
    },
}

/// What a `{` opened, to know what its `}` closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Brace {
    Body,
    FrontendAttributes,
    Other,
}

/// The token stream the parser reads, with the context HLO's lexing needs: layouts,
/// verbatim `{...}` values, whole instruction heads and table rows, and bracket depth.
pub struct Lexer<'s> {
    source: &'s str,
    inner: logos::Lexer<'s, Token<'s>>,
    /// The next `{` opens a layout.
    layout_brace_next: bool,
    /// The next token may be a raw `{...}` blob.
    raw_next: bool,
    /// The next `{` opens a `frontend_attributes` value.
    frontend_attributes_next: bool,
    braces: Vec<Brace>,
    /// A raw blob ran to the end of the input once; later ones would too, and scanning
    /// each to the end would take quadratic time, so they are lexed as ordinary tokens.
    raw_failed: bool,
    /// Open `(`, `[` and `{` together.
    depth: usize,
    done: bool,
    /// A token read ahead, given out next.
    queued: Option<Spanned<'s>>,
    /// The previous token was the name an instruction defines.
    after_def: bool,
    /// The next token is where an instruction's result shape starts.
    result_shape_next: bool,
    /// The depth of the instruction whose opcode is still to come.
    opcode_depth: Option<usize>,
    /// The next token starts a `metadata=` value.
    metadata_next: bool,
    /// The next token starts an `input_output_alias=` value.
    alias_next: bool,
    /// Whether common forms are read whole (see the module comment); off only to test that
    /// both ways read the same.
    shortcuts: bool,
    /// Whether an instruction's head is read whole ([`Token::SimpleHead`]); off for the
    /// parser that recovers from errors, so that it reports them as it always has. Table
    /// rows ([`Token::TableRow`]) go with it.
    whole_heads: bool,
    /// After a table's keyword, until something that is not a plain row: the next token
    /// may be a whole row.
    table_rows: bool,
}

impl<'s> Lexer<'s> {
    /// Lexes the whole of `source`.
    pub fn new(source: &'s str) -> Lexer<'s> {
        Lexer::with_range(source, 0, source.len())
    }

    /// Lexes `source[start..end]`, with spans into the whole of `source`. Out-of-range or
    /// non-boundary positions give an empty stream.
    pub fn with_range(source: &'s str, start: usize, end: usize) -> Lexer<'s> {
        let valid = start <= end
            && end <= source.len()
            && source.is_char_boundary(start)
            && source.is_char_boundary(end);
        let (end, start) = if valid { (end, start) } else { (0, 0) };
        let mut inner = Token::lexer(&source[..end]);
        inner.bump(start);
        Lexer {
            source,
            inner,
            layout_brace_next: false,
            raw_next: false,
            frontend_attributes_next: false,
            braces: Vec::new(),
            raw_failed: false,
            depth: 0,
            done: false,
            queued: None,
            after_def: false,
            result_shape_next: false,
            opcode_depth: None,
            metadata_next: false,
            alias_next: false,
            shortcuts: true,
            whole_heads: true,
            table_rows: false,
        }
    }

    /// Lexes `source[start..end]` as the rest of a computation body: `start` is where an
    /// instruction line starts inside a body's braces, so the first unmatched `}` closes the
    /// body ([`Token::BodyClose`]).
    pub fn with_range_in_body(source: &'s str, start: usize, end: usize) -> Lexer<'s> {
        let mut lexer = Lexer::with_range(source, start, end);
        lexer.braces.push(Brace::Body);
        lexer.depth = 1;
        lexer
    }

    /// The same lexer without the whole-form shortcuts: every form token by token.
    pub fn without_shortcuts(mut self) -> Lexer<'s> {
        self.shortcuts = false;
        self
    }

    /// The same lexer without [`Token::SimpleHead`]: heads token by token, the other
    /// shortcuts kept.
    pub fn without_whole_heads(mut self) -> Lexer<'s> {
        self.whole_heads = false;
        self
    }

    /// After a name (`start..end`) that may start an instruction, its whole head as one
    /// [`Token::SimpleHead`] when the rest of it is in the plain form.
    fn simple_head(&mut self, start: usize, end: usize) -> Option<Spanned<'s>> {
        if !(self.shortcuts && self.whole_heads) {
            return None;
        }
        let rest = self.inner.remainder();
        let head = simple_head_rest(rest)?;
        let cuts = HeadCuts::new(
            end - start,
            head.shape_len,
            head.opcode_len,
            head.operands_len,
        )?;
        // The attributes too, when all of them are in a plain form and end the line.
        let attributes = rest
            .get(head.len..)
            .and_then(simple_attributes_len)
            .unwrap_or(0);
        let len = head.len + attributes;
        self.inner.bump(len);
        if head.closing_paren && attributes == 0 {
            // As the `)` read alone would.
            self.layout_brace_next = opens_layout(self.inner.remainder());
        }
        let text = &self.source[start..end + len];
        Some((
            start,
            Token::SimpleHead(HeadText::new(text, cuts)),
            end + len,
        ))
    }

    /// Takes `len` bytes from the current position as one token.
    fn take(&mut self, len: usize, make: impl FnOnce(&'s str) -> Token<'s>) -> Spanned<'s> {
        let start = self.inner.span().end;
        let text = &self.inner.remainder()[..len];
        self.inner.bump(len);
        (start, make(text), start + len)
    }

    /// Classifies a word by the first significant byte after it.
    fn classify_word(&self, word: &'s str, percent: bool) -> Token<'s> {
        let next = skip_trivia(self.inner.remainder()).bytes().next();
        match (next, percent) {
            (Some(b'='), true) => Token::DefName(word),
            (Some(b'='), false) => Token::DefIdent(word),
            (_, true) => Token::Name(word),
            (Some(b'('), false) => Token::Call(word),
            (Some(b'['), false) => Token::Indexed(word),
            _ => Token::Ident(word),
        }
    }

    /// Takes a raw `{...}` blob if one starts at the next significant byte.
    fn raw_blob(&mut self) -> Option<Spanned<'s>> {
        let rest = self.inner.remainder();
        let skipped = rest.len() - skip_trivia(rest).len();
        let blob = rest.get(skipped..)?;
        if self.raw_failed || !blob.starts_with('{') {
            return None;
        }
        let Some(len) = balanced_blob_len(blob) else {
            self.raw_failed = true;
            return None;
        };
        let start = self.inner.span().end + skipped;
        let text = blob.get(..len)?;
        self.inner.bump(skipped + len);
        Some((start, Token::Raw(text), start + len))
    }

    fn open(&mut self, start: usize, end: usize) -> Result<(), LexError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            self.done = true;
            return Err(LexError::TooDeep {
                span: Span::new(start, end),
            });
        }
        Ok(())
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<Spanned<'s>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(queued) = self.queued.take() {
            return Some(Ok(queued));
        }
        if std::mem::take(&mut self.raw_next) {
            if let Some(raw) = self.raw_blob() {
                return Some(Ok(raw));
            }
        }
        if std::mem::take(&mut self.metadata_next) && self.shortcuts {
            if let Some(len) = canonical_metadata_len(self.inner.remainder()) {
                return Some(Ok(self.take(len, Token::Raw)));
            }
        }
        if std::mem::take(&mut self.alias_next) && self.shortcuts {
            if let Some(len) = canonical_alias_len(self.inner.remainder()) {
                return Some(Ok(self.take(len, Token::Raw)));
            }
        }
        if self.table_rows {
            let rest = self.inner.remainder();
            let skipped = rest.len() - skip_trivia(rest).len();
            match table_row_len(&rest[skipped..]) {
                Some(len) => {
                    self.inner.bump(skipped);
                    return Some(Ok(self.take(len, Token::TableRow)));
                }
                // The rest of the table, if any, goes token by token.
                None => self.table_rows = false,
            }
        }
        let token = self.inner.next()?;
        let span = self.inner.span();
        let layout_brace = std::mem::take(&mut self.layout_brace_next);
        let result_shape = std::mem::take(&mut self.result_shape_next);
        let after_def = std::mem::take(&mut self.after_def);
        // Only the token right after `frontend_attributes=` can open its value.
        let frontend_attributes = std::mem::take(&mut self.frontend_attributes_next);
        let token = match token {
            Ok(Token::LBrace) => {
                if let Err(e) = self.open(span.start, span.end) {
                    return Some(Err(e));
                }
                if layout_brace {
                    self.braces.push(Brace::Other);
                    Token::LayoutBrace
                } else if opens_body(self.inner.remainder()) {
                    self.braces.push(Brace::Body);
                    Token::BodyOpen
                } else if frontend_attributes {
                    self.braces.push(Brace::FrontendAttributes);
                    Token::LBrace
                } else {
                    self.braces.push(Brace::Other);
                    Token::LBrace
                }
            }
            Ok(Token::RBrace) => {
                self.depth = self.depth.saturating_sub(1);
                match self.braces.pop() {
                    Some(Brace::Body) => Token::BodyClose,
                    _ => Token::RBrace,
                }
            }
            Ok(token @ (Token::LParen | Token::LSquare)) => {
                if let Err(e) = self.open(span.start, span.end) {
                    return Some(Err(e));
                }
                token
            }
            Ok(token @ (Token::RParen | Token::RSquare)) => {
                self.depth = self.depth.saturating_sub(1);
                if token == Token::RSquare {
                    self.layout_brace_next = opens_layout(self.inner.remainder());
                }
                token
            }
            Ok(Token::IntBracket(text)) => {
                self.layout_brace_next = opens_layout(self.inner.remainder());
                Token::IntBracket(text)
            }
            Ok(Token::IntBrace(text)) if layout_brace => Token::LayoutInts(text),
            Ok(Token::Equal) => {
                if after_def && self.shortcuts {
                    self.result_shape_next = true;
                    self.opcode_depth = Some(self.depth);
                }
                Token::Equal
            }
            Ok(Token::Ident("b")) if opens_buffer(self.inner.remainder()) => Token::Buffer,
            Ok(Token::KwTable(keyword)) => {
                self.table_rows = self.shortcuts && self.whole_heads;
                Token::KwTable(keyword)
            }
            Ok(Token::Ident(word)) => {
                if let Some(head) = self.simple_head(span.start, span.end) {
                    return Some(Ok(head));
                }
                if result_shape {
                    if let Some(len) = simple_shape_len(self.inner.remainder()) {
                        self.inner.bump(len);
                        let text = &self.source[span.start..span.end + len];
                        return Some(Ok((span.start, Token::SimpleShape(text), span.end + len)));
                    }
                }
                let token = self.classify_word(word, false);
                if matches!(token, Token::Call(_)) && self.opcode_depth == Some(self.depth) {
                    self.opcode_depth = None;
                    if let Some(len) = operand_names_len(self.inner.remainder()) {
                        self.queued = Some(self.take(len, Token::OperandNames));
                    }
                }
                if matches!(token, Token::DefIdent(_)) {
                    self.after_def = true;
                }
                token
            }
            Ok(Token::Name(word)) => {
                if let Some(head) = self.simple_head(span.start, span.end) {
                    return Some(Ok(head));
                }
                let token = self.classify_word(word, true);
                self.after_def = matches!(token, Token::DefName(_));
                token
            }
            Ok(Token::AttrName(name)) => {
                let in_frontend_attributes = self.braces.last() == Some(&Brace::FrontendAttributes);
                self.raw_next = name == "backend_config" || in_frontend_attributes;
                self.frontend_attributes_next = name == "frontend_attributes";
                self.metadata_next = name == "metadata";
                self.alias_next = name == "input_output_alias";
                Token::AttrName(name)
            }
            // XLA's lexer refuses the whole string; the parser reports it (see `SyntaxError`).
            Ok(Token::Str(text)) if refused_escape(text).is_some() => Token::Error,
            Ok(token) => token,
            Err(()) => {
                // An unterminated block comment swallows the rest, as in XLA; one error
                // for it is enough.
                if self
                    .source
                    .get(span.start..)
                    .is_some_and(|r| r.starts_with("/*"))
                {
                    self.done = true;
                    return Some(Ok((span.start, Token::Error, self.inner.source().len())));
                }
                Token::Error
            }
        };
        Some(Ok((span.start, token, span.end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuts(name: usize, shape: usize, opcode: usize, operands: usize) -> HeadCuts {
        HeadCuts::new(name, shape, opcode, operands).unwrap_or_else(|| panic!("cuts too long"))
    }

    fn kinds(src: &str) -> Vec<Token<'_>> {
        Lexer::new(src)
            .map(|t| t.map(|(_, t, _)| t).unwrap())
            .collect()
    }

    #[test]
    fn layout_brace_only_after_square_bracket() {
        assert_eq!(
            kinds("f32[2]{0} {1}"),
            vec![
                Token::Indexed("f32"),
                Token::IntBracket("[2]"),
                Token::LayoutInts("{0}"),
                Token::IntBrace("{1}"),
            ]
        );
        assert_eq!(
            kinds("f32[2, <=3]{1,0:T(2)}"),
            vec![
                Token::Indexed("f32"),
                Token::LSquare,
                Token::Int("2"),
                Token::Comma,
                Token::Leq,
                Token::Int("3"),
                Token::RSquare,
                Token::LayoutBrace,
                Token::Int("1"),
                Token::Comma,
                Token::Int("0"),
                Token::Colon,
                Token::Call("T"),
                Token::LParen,
                Token::Int("2"),
                Token::RParen,
                Token::RBrace,
            ]
        );
        assert_eq!(kinds("f32[] {\n ROOT")[2], Token::BodyOpen);
        assert_eq!(kinds("f32[]{:T(256)}")[2], Token::LayoutBrace);
        assert_eq!(kinds("f32[]{:T(256)}")[4], Token::Call("T"));
    }

    #[test]
    fn buffer_only_where_an_array_shape_follows() {
        assert_eq!(kinds("b(f32[2]{0})")[0], Token::Buffer);
        assert_eq!(kinds("b( /* c */ s8 [2])")[0], Token::Buffer);
        // An opcode or computation named `b` stays a word.
        assert_eq!(kinds("b(c)")[0], Token::Call("b"));
        assert_eq!(kinds("b(%c)")[0], Token::Call("b"));
        assert_eq!(kinds("b(p: f32[])")[0], Token::Call("b"));
        assert_eq!(kinds("b((f32[2]))")[0], Token::Call("b"));
        assert_eq!(kinds("bf(f32[2])")[0], Token::Call("bf"));
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

    #[test]
    fn words_are_told_apart_by_what_follows() {
        assert_eq!(
            kinds("{ ROOT %a = f32[] add(x, f32[] y) }"),
            vec![
                Token::BodyOpen,
                Token::KwRoot,
                Token::DefName("a"),
                Token::Equal,
                Token::SimpleShape("f32[]"),
                Token::Call("add"),
                Token::LParen,
                Token::Ident("x"),
                Token::Comma,
                Token::Indexed("f32"),
                Token::IntBracket("[]"),
                Token::Ident("y"),
                Token::RParen,
                Token::BodyClose,
            ]
        );
        // `a=` glued is an attribute name, so `{a=1}` is not a body.
        assert_eq!(kinds("{a=1}")[0], Token::LBrace);
        assert_eq!(kinds("{a = f32[] c(1)}")[0], Token::BodyOpen);
    }

    /// Each case was read by jaxlib 0.10.2's parser: `true` where it accepts the string.
    #[test]
    fn string_escapes_as_xla_reads_them() {
        let cases: &[(&str, bool)] = &[
            (r#""a\\b""#, true),
            (r#""\n\t\r\'\"\?\a\b\f\v""#, true),
            (r#""\0\12\123\0000\3777\08""#, true),
            (r#""\400""#, false),
            (r#""\8""#, false),
            (r#""\x41\X41\x4\x0ff\x00000000000041\x41zz""#, true),
            (r#""\x""#, false),
            (r#""\xg""#, false),
            (r#""\x100""#, false),
            (r#""\x414243""#, false),
            (r#""\u0041\u00411\uE000\u0000\U00000041\U0010FFFF""#, true),
            (r#""\u004""#, false),
            (r#""\uzzzz""#, false),
            (r#""\U0000004""#, false),
            (r#""\uD800""#, false),
            (r#""\U0000DFFF""#, false),
            (r#""\U00110000""#, false),
            (r#""\UFFFFFFFF""#, false),
            (r#""\e""#, false),
            (r#""\ ""#, false),
            (r#""\{""#, false),
            (r#""\é""#, false),
            (r#"'a\e'"#, false),
        ];
        for &(text, accepted) in cases {
            assert_eq!(refused_escape(text).is_none(), accepted, "{text}");
        }
        assert_eq!(
            refused_escape(r#""ab\x100g""#),
            Some((
                3..8,
                "a hex escape is at most \\xff (it takes every hex digit that follows)"
            ))
        );
        assert_eq!(refused_escape(r#""\é""#).map(|(r, _)| r), Some(1..4));
        // The string is an error token; a metadata value holding it is read token by token.
        assert_eq!(kinds(r#""\e""#), vec![Token::Error]);
        assert!(canonical_metadata_len(r#"{op_name="a\eb"}"#).is_none());
        assert_eq!(canonical_metadata_len(r#"{op_name="a[\'b\']"}"#), Some(20));
    }

    #[test]
    fn raw_blobs_after_backend_config_and_in_frontend_attributes() {
        assert_eq!(
            kinds(r#"backend_config={"a":"x}\"{","b":[{}]}, x"#),
            vec![
                Token::AttrName("backend_config"),
                Token::Raw(r#"{"a":"x}\"{","b":[{}]}"#),
                Token::Comma,
                Token::Ident("x"),
            ]
        );
        assert_eq!(
            kinds("frontend_attributes={a={n = 1 : i32},b=\"c\"}"),
            vec![
                Token::AttrName("frontend_attributes"),
                Token::LBrace,
                Token::AttrName("a"),
                Token::Raw("{n = 1 : i32}"),
                Token::Comma,
                Token::AttrName("b"),
                Token::Str("\"c\""),
                Token::RBrace,
            ]
        );
        // Unbalanced: lexed normally, so the parser reports where it goes wrong.
        assert_eq!(kinds("backend_config={")[1], Token::LBrace);
    }

    #[test]
    fn empty_frontend_attributes_do_not_leak_into_the_next_brace() {
        let tokens = kinds("frontend_attributes={}, x={a={b}}");
        assert_eq!(tokens[1], Token::IntBrace("{}"));
        assert_eq!(tokens[5], Token::AttrName("a"));
        assert_eq!(tokens[6], Token::LBrace);
    }

    #[test]
    fn common_forms_are_read_whole_only_when_plain() {
        // With whole heads, the head is one token; `heads_are_read_whole_only_when_plain`.
        let kinds = |src| -> Vec<Token<'_>> {
            Lexer::new(src)
                .without_whole_heads()
                .map(|t| t.map(|(_, t, _)| t).unwrap())
                .collect()
        };
        assert_eq!(
            kinds("%a = f32[2,3]{1,0} add(%x, %y), metadata={op_name=\"n\" source_line=3}"),
            vec![
                Token::DefName("a"),
                Token::Equal,
                Token::SimpleShape("f32[2,3]{1,0}"),
                Token::Call("add"),
                Token::OperandNames("(%x, %y)"),
                Token::Comma,
                Token::AttrName("metadata"),
                Token::Raw("{op_name=\"n\" source_line=3}"),
            ]
        );
        // Tiles, a tuple path, fields out of order: token by token.
        let tiled = kinds("%a = f32[8]{0:T(8)} get-tuple-element(%t#1)");
        assert_eq!(tiled[2], Token::Indexed("f32"));
        assert!(tiled.contains(&Token::LParen));
        let unordered = kinds("metadata={source_line=3 op_name=\"n\"}");
        assert_eq!(unordered[1], Token::LBrace);
        // Operand names with XLA's index comments.
        assert_eq!(
            kinds("b = f32[] t(a, b, c, d, e, /*index=5*/f)")[4],
            Token::OperandNames("(a, b, c, d, e, /*index=5*/f)")
        );
        // Only an instruction's own opcode takes the fast path, not a call in a value.
        assert_eq!(kinds("x=f(a, b)")[2], Token::LParen);
    }

    #[test]
    fn heads_are_read_whole_only_when_plain() {
        // Attributes go with the head when all are plain and end the line.
        assert_eq!(
            kinds("ROOT %a = f32[2,3]{1,0} add(%x, %y), metadata={op_name=\"n\"}"),
            [
                Token::KwRoot,
                Token::SimpleHead(HeadText::new(
                    "%a = f32[2,3]{1,0} add(%x, %y), metadata={op_name=\"n\"}",
                    cuts(2, 13, 3, 8)
                )),
            ]
        );
        for head_alone in [
            "a = f32[] add(x, y), sharding={replicated}",
            "a = f32[] add(x, y), index=1, metadata={source_line=3 op_name=\"n\"}",
            "a = f32[] add(x, y), index=1 // c",
            "a = f32[] add(x, y),index=1",
            "a = f32[] add(x, y), index=1.5",
            "a = f32[] add(x, y), window={size=3x3}",
            "a = f32[] add(x, y), b=nan",
            "a = f32[] add(x, y), to_apply=b",
            "a = f32[] add(x, y), dimensions={0,}",
            // Terms one after another make one value, across lines too (found by fuzzing).
            "a = f32[] add(x, y), to_apply=f\n  ROOOT b = f32[] c()",
            "a = f32[] add(x, y), index=1\n  x=2",
        ] {
            assert_eq!(
                kinds(head_alone)[..2],
                [
                    Token::SimpleHead(HeadText::new("a = f32[] add(x, y)", cuts(1, 5, 3, 6))),
                    Token::Comma
                ],
                "{head_alone}"
            );
        }
        for line in [
            "a = f32[] add(x, y), to_apply=f\n  ROOT b = f32[] c()",
            "a = f32[] add(x, y), to_apply=f\n  %b = f32[] c()",
            "a = f32[] add(x, y), to_apply=f\n  b = f32[] c()",
            "a = f32[] add(x, y), to_apply=f /* c */\n}",
        ] {
            let head = &line[..line.find("=f").unwrap() + 2];
            let whole = matches!(kinds(line)[0], Token::SimpleHead(h) if h.text == head);
            assert_eq!(whole, !line.contains("/*"), "{line}");
        }
        for whole in [
            "a = f32[] add(x, y), index=-1, to_apply=%f, direction=LT, dimensions={}",
            "a = f32[] add(x, y), dimensions={0,1}, metadata={op_name=\"a,b}\"}\r\n",
            "a = f32[] parameter(0)",
            "a = s32[] constant(-12)",
            "a = token[] after-all()",
            "a.1 = bf16[2]{0} negate(b.2)\n",
            "a = f32[] t(a, b, c, d, e, /*index=5*/f)",
        ] {
            assert!(
                matches!(kinds(whole)[0], Token::SimpleHead(h) if h.text == whole.trim_end()),
                "{whole}"
            );
        }
        for by_part in [
            // Spacing other than XLA's, tiles, a tuple path, a literal, a trailing comment,
            // a keyword where a word goes, a shape that is not plain.
            "a=f32[] parameter(0)",
            "a  = f32[] parameter(0)",
            "a = f32[]  parameter(0)",
            "a = f32[8]{0:T(8)} negate(b)",
            "a = f32[] get-tuple-element(%t#1)",
            "a = f32[] constant(0.5)",
            "a = f32[] constant(-)",
            "a = f32[] negate(b) // c",
            "a = f32[] ENTRY(b)",
            "a = f32[] b(c)",
            "a = (f32[], s32[]) tuple(b, c)",
            "a = f32[2] {0} negate(b)",
        ] {
            assert!(
                !kinds(by_part)
                    .iter()
                    .any(|t| matches!(t, Token::SimpleHead(..))),
                "{by_part}"
            );
        }
    }

    #[test]
    fn table_rows_are_read_whole_only_when_plain() {
        let rows = "1 {file_location_id=1 parent_frame_id=1}\n2 \"a.py\"\n3 {}";
        let table = format!("StackFrames\n{rows}");
        assert_eq!(
            kinds(&table),
            [
                Token::KwTable("StackFrames"),
                Token::TableRow("1 {file_location_id=1 parent_frame_id=1}"),
                Token::TableRow("2 \"a.py\""),
                Token::TableRow("3 {}"),
            ]
        );
        // Only after a table's keyword.
        assert!(!kinds(rows).iter().any(|t| matches!(t, Token::TableRow(_))));
        for by_part in [
            "1  {a=1}",
            "1 {a=1,b=2}",
            "1 {a=1  b=2}",
            "1 {a=1 }",
            "1 {a=1.5}",
            "1 {a=1x2}",
            "1 {a=-1}",
            "1 {ENTRY=1}",
            "1 \"a\\\"b\"",
            "1 \"a\nb\"",
            "-1 \"a\"",
        ] {
            let table = format!("FileNames\n{by_part}\n2 \"b\"");
            let tokens = kinds(&table);
            // The row, and every row after it in the table, goes token by token.
            assert!(
                !tokens.iter().any(|t| matches!(t, Token::TableRow(_))),
                "{by_part}: {tokens:?}"
            );
        }
    }

    #[test]
    fn alias_values_are_read_whole_only_when_canonical() {
        let value = "{ {0}: (0, {}, may-alias), {1,2}: (3, {0,1}, must-alias), {}: (12, {}) }";
        let header = format!("HloModule m, input_output_alias={value}, x=1");
        assert!(kinds(&header).contains(&Token::Raw(value)), "{header}");
        for by_part in [
            "{{0}: (0, {}, may-alias)}",
            "{ {0}: (0, {}, may-alias)}",
            "{ {0}:(0, {}, may-alias) }",
            "{ {0}: (0,{}, may-alias) }",
            "{ {0}: (0, {}, may-alias), }",
            "{ {0}: (0, {}, may-alias),{1}: (1, {}) }",
            "{ {0}: (-1, {}) }",
            "{ {0}: (0, {}, maybe-alias) }",
            "{ {0 }: (0, {}) }",
            "{ {,}: (0, {}) }",
            "{ {0}: (0, {}) /*x*/ }",
            "{ }",
        ] {
            let header = format!("HloModule m, input_output_alias={by_part}");
            let tokens = kinds(&header);
            assert!(
                !tokens.iter().any(|t| matches!(t, Token::Raw(_))),
                "{by_part}: {tokens:?}"
            );
        }
        // Elsewhere than after `input_output_alias=`, the same text goes token by token.
        let other = format!("HloModule m, buffer_donor={value}");
        assert!(!kinds(&other).iter().any(|t| matches!(t, Token::Raw(_))));
    }

    proptest::proptest! {
        /// An alias value read whole prints as the token-by-token path prints it, and a
        /// value read whole is one that path prints exactly as written.
        #[test]
        fn alias_values_read_whole_print_as_read_by_parts(
            entries in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["{0}", "{}", "{1,2}", "{00}", "{0 }", "{,}"]),
                    proptest::sample::select(vec!["0", "7", "12", "-1", "1e3"]),
                    proptest::sample::select(vec!["{}", "{0}", "{3,1}", "{ }"]),
                    proptest::sample::select(vec![", may-alias", ", must-alias", "", ", x"]),
                    proptest::sample::select(vec![", ", ",", " , "]),
                ),
                1..5,
            ),
            open in proptest::sample::select(vec!["{ ", "{"]),
            close in proptest::sample::select(vec![" }", "}"]),
        ) {
            let mut value = open.to_string();
            for (n, (output, parameter, index, kind, separator)) in entries.iter().enumerate() {
                if n > 0 {
                    value.push_str(separator);
                }
                value.push_str(&format!("{output}: ({parameter}, {index}{kind})"));
            }
            value.push_str(close);
            let text = format!(
                "HloModule m, input_output_alias={value}\n\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n"
            );
            let range = 0..text.len();
            let fast = crate::syntax::parse_module_range(&text, range.clone());
            let plain = crate::syntax::parse_module_range_without_shortcuts(&text, range);
            let print = |module: Result<crate::syntax::ast::Module<'_>, Vec<crate::syntax::SyntaxError>>| {
                module.map_err(|e| format!("{e:?}")).map(|m| crate::print::print_module(&m).map_err(|e| format!("{e:?}")))
            };
            let (fast, plain) = (print(fast), print(plain));
            proptest::prop_assert_eq!(&fast, &plain, "{}", value);
            if canonical_alias_len(&value) == Some(value.len()) {
                let printed = fast.ok().and_then(Result::ok).unwrap_or_default();
                proptest::prop_assert!(printed.contains(&format!("input_output_alias={value}\n")), "{}", printed);
            }
        }
    }

    #[test]
    fn nesting_is_limited() {
        let deep = "(".repeat(MAX_NESTING + 1);
        let last = Lexer::new(&deep).last();
        assert!(matches!(last, Some(Err(LexError::TooDeep { .. }))));
    }

    #[test]
    fn unterminated_comment_is_one_error_to_the_end() {
        let tokens: Vec<_> = Lexer::new("a /* b c").map(|t| t.unwrap()).collect();
        assert_eq!(
            tokens,
            vec![(0, Token::Ident("a"), 1), (2, Token::Error, 8)]
        );
    }
}
