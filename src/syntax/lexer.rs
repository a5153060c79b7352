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
//!   with `{` is taken verbatim up to the matching `}` as one [`Token::Raw`] (hlo-grammar.md
//!   §1.9).
//!
//! For speed, forms that make up most of a real dump are also read whole, each only where it
//! is exactly in the form XLA prints it (anything else is lexed token by token and parses to
//! the same tree): an instruction's head, with its attributes when all are plain
//! ([`Token::SimpleHead`]), and where the head is not plain, its result shape without tiles
//! ([`Token::SimpleShape`]) and
//! its operand list when it is only names ([`Token::OperandNames`]); and a `metadata={...}`
//! value already in canonical field order and spacing, and an `input_output_alias={...}`
//! value spaced as XLA prints it ([`Token::Raw`], which then prints as it was written).

use logos::Logos;

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
            self.layout_brace_next = Self::opens_layout(self.inner.remainder());
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

    /// After `]`, a `{` whose next significant byte is a digit, `:` or `}` opens a layout; a
    /// computation body's `{` is followed by a name or `ROOT`.
    fn opens_layout(rest: &str) -> bool {
        let rest = skip_trivia(rest);
        let Some(after_brace) = rest.strip_prefix('{') else {
            return false;
        };
        matches!(
            skip_trivia(after_brace).bytes().next(),
            Some(b'0'..=b'9' | b':' | b'}')
        )
    }

    /// A `{` opens a computation body when an instruction follows: `ROOT`, or a name and `=`.
    /// A bare name must be separated from its `=`, since `name=` is an attribute name.
    fn opens_body(after_brace: &str) -> bool {
        let rest = skip_trivia(after_brace);
        if let Some(after) = rest.strip_prefix("ROOT") {
            return !after.bytes().next().is_some_and(is_ident_byte);
        }
        let (rest, percent) = match rest.strip_prefix('%') {
            Some(rest) => (rest, true),
            None => (rest, false),
        };
        let Some(name_len) = identifier_len(rest) else {
            return false;
        };
        let after_name = rest.get(name_len..).unwrap_or("");
        let after_trivia = skip_trivia(after_name);
        let spaced = after_trivia.len() < after_name.len();
        after_trivia.starts_with('=') && (percent || spaced)
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

fn is_ident_byte(b: u8) -> bool {
    IDENT_BYTES[usize::from(b)]
}

/// Which bytes go on an identifier: a table, as the shortcuts ask for every byte of every
/// name, and one load is cheaper than the comparisons (callgrind: 10.6M of mixtral 1x8's
/// 360M instructions were those comparisons).
static IDENT_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-');
        b += 1;
    }
    table
};

/// Skips whitespace and comments, as the logos skip rules do.
pub(crate) fn skip_trivia(mut rest: &str) -> &str {
    loop {
        // A byte loop: the set is ASCII, and matching chars decodes UTF-8 on every step.
        let blank = rest
            .bytes()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c'))
            .unwrap_or(rest.len());
        let trimmed = &rest[blank..];
        if let Some(comment) = trimmed.strip_prefix("/*") {
            match comment.find("*/") {
                Some(end) => rest = comment.get(end + 2..).unwrap_or(""),
                // An unterminated comment is an error token; stop before it.
                None => return trimmed,
            }
        } else if let Some(comment) = trimmed.strip_prefix("//") {
            rest = match comment.find(['\n', '\r']) {
                Some(end) => comment.get(end..).unwrap_or(""),
                None => "",
            };
        } else {
            return trimmed;
        }
    }
}

/// After the word `b`: `(` and an element type with its `[`, the start of a buffer shape
/// `b(f32[2]{0})`.
fn opens_buffer(rest: &str) -> bool {
    let Some(inside) = skip_trivia(rest).strip_prefix('(') else {
        return false;
    };
    let inside = skip_trivia(inside);
    identifier_len(inside).is_some_and(|len| skip_trivia(&inside[len..]).starts_with('['))
}

/// The length of the identifier (a letter or `_`, then identifier bytes) that `text` starts
/// with, if it starts with one.
fn identifier_len(text: &str) -> Option<usize> {
    let first = *text.as_bytes().first()?;
    (first.is_ascii_alphabetic() || first == b'_')
        .then(|| text.bytes().take_while(|&b| is_ident_byte(b)).count())
}

/// The length of `[2,3]` or `{1,0}` (digits and commas only, as the integer-list tokens
/// are) at the start of `bytes`, given its brackets.
fn int_list_len(bytes: &[u8], open: u8, close: u8) -> Option<usize> {
    if bytes.first() != Some(&open) {
        return None;
    }
    let mut i = 1;
    let mut digits = false;
    loop {
        match *bytes.get(i)? {
            b'0'..=b'9' => digits = true,
            b',' if digits => digits = false,
            c if c == close && (digits || i == 1) => return Some(i + 1),
            _ => return None,
        }
        i += 1;
    }
}

/// After an element type, the length of `[2,3]` or `[2,3]{1,0}`, when the shape is in that
/// plain form and nothing after it could continue it.
fn simple_shape_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let dims = int_list_len(bytes, b'[', b']')?;
    let layout = match bytes.get(dims) {
        Some(b'{') => int_list_len(&bytes[dims..], b'{', b'}')?,
        // A layout after a space would be read as one by the token-by-token path.
        _ if Lexer::opens_layout(&rest[dims..]) => return None,
        _ => 0,
    };
    let end = dims + layout;
    // `f32[2]{0}:` or `f32[2]{0}(` would not be a shape ending here.
    match bytes.get(end) {
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b')') => Some(end),
        _ => None,
    }
}

/// The length of an operand list of plain names, `(%a, %b, /*index=2*/%c)` or `(a, b)`, at
/// the start of `rest`; `None` for anything else (shapes, literals, `%t#1`, `()`).
fn operand_names_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    if bytes.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    loop {
        let start = i;
        if bytes.get(i) == Some(&b'%') {
            i += 1;
        }
        let word_start = i;
        if !bytes.get(i)?.is_ascii_alphabetic() && bytes[i] != b'_' {
            return None;
        }
        while bytes.get(i).is_some_and(|&b| is_ident_byte(b)) {
            i += 1;
        }
        let word = &rest[word_start..i];
        if start == word_start && is_token_word(word) {
            return None;
        }
        match *bytes.get(i)? {
            b')' => return Some(i + 1),
            b',' => i += 1,
            _ => return None,
        }
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        // XLA marks every fifth operand with `/*index=N*/`.
        if rest[i..].starts_with("/*") {
            let close = rest[i..].find("*/")?;
            if rest[i..i + close].contains(',') {
                return None;
            }
            i += close + 2;
            while bytes.get(i) == Some(&b' ') {
                i += 1;
            }
        }
    }
}

/// Words that logos reads as tokens of their own (keywords, `nan`), not as identifiers;
/// a whole-form shortcut that meets one keeps the token-by-token path.
fn is_token_word(word: &str) -> bool {
    matches!(
        word,
        "nan"
            | "HloModule"
            | "ENTRY"
            | "ROOT"
            | "FileNames"
            | "FunctionNames"
            | "FileLocations"
            | "StackFrames"
    )
}

/// What [`simple_head_rest`] found after an instruction's name.
struct HeadRest {
    /// Up to the end of the operand list.
    len: usize,
    shape_len: usize,
    opcode_len: usize,
    /// With the parentheses.
    operands_len: usize,
    /// Whether the token-by-token path would have read the closing `)` alone.
    closing_paren: bool,
}

/// After the name an instruction defines, the length of the rest of its head,
/// ` = f32[2]{0} add(%a, %b)`, when every part is in the form XLA prints: one space each
/// side of `=`, a plain result shape ([`simple_shape_len`]), one space, the opcode and an
/// operand list of names ([`operand_names_len`]), of one integer, or empty; and the head
/// ends its line or an attribute follows. `None` for anything else.
fn simple_head_rest(rest: &str) -> Option<HeadRest> {
    let bytes = rest.as_bytes();
    let mut i = 3;
    if bytes.get(..i)? != b" = " {
        return None;
    }
    let element_type = identifier_len(&rest[i..])?;
    if is_token_word(&rest[i..i + element_type]) {
        return None;
    }
    let shape_len = element_type + simple_shape_len(&rest[i + element_type..])?;
    i += shape_len;
    if bytes.get(i) != Some(&b' ') {
        return None;
    }
    i += 1;
    let opcode = identifier_len(&rest[i..])?;
    // An opcode `b` could read as the start of a buffer shape.
    if matches!(&rest[i..i + opcode], "b") || is_token_word(&rest[i..i + opcode]) {
        return None;
    }
    i += opcode;
    let (operands, closing_paren) = match operand_names_len(&rest[i..]) {
        Some(len) => (len, false),
        None => (int_or_no_operand_len(&rest[i..])?, true),
    };
    i += operands;
    match bytes.get(i) {
        None | Some(b',' | b'\n' | b'\r') => Some(HeadRest {
            len: i,
            shape_len,
            opcode_len: opcode,
            operands_len: operands,
            closing_paren,
        }),
        _ => None,
    }
}

/// The length of the table row at the start of `rest` when it is in the form XLA prints
/// ([`Token::TableRow`]): an id of digits, one space, and a string without escapes or line
/// breaks, or braces holding `name=digits` fields one space apart. Each piece is what the
/// token-by-token path reads as one token (digits followed by a space or a brace are an
/// integer, a name followed by `=` an attribute name). `None` for anything else.
fn table_row_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let id = digits(0);
    if id == 0 || bytes.get(id) != Some(&b' ') {
        return None;
    }
    let mut i = id + 1;
    match bytes.get(i)? {
        b'"' => {
            let text = bytes[i + 1..]
                .iter()
                .position(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))?;
            (bytes[i + 1 + text] == b'"').then_some(i + text + 2)
        }
        b'{' => {
            i += 1;
            if bytes.get(i) == Some(&b'}') {
                return Some(i + 1);
            }
            loop {
                let name = identifier_len(&rest[i..])?;
                if is_token_word(&rest[i..i + name]) || bytes.get(i + name) != Some(&b'=') {
                    return None;
                }
                i += name + 1;
                let value = digits(i);
                if value == 0 {
                    return None;
                }
                i += value;
                match bytes.get(i)? {
                    b' ' => i += 1,
                    b'}' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// After an instruction's head, the length of its attributes `, name=value, ...` up to the
/// end of its line, when each is written as XLA prints it (`, ` before the name, no space
/// around `=`) and its value is one token that the tree keeps as one term: an integer, a
/// `%name`, a word, integers in braces, or a `metadata={...}` in canonical form. Such a
/// line is read whole ([`Token::SimpleHead`]) and its attributes split by
/// `ast::instruction_from_head`. `None` when any attribute is in another form, something
/// other than the end of the line follows them, or what comes next could go on with the last
/// value (terms written one after another make one value, across lines too): only the next
/// instruction, a `}` or the end of the text stop it.
fn simple_attributes_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            // No attributes: the head alone is taken, with nothing to look past.
            None | Some(b'\n' | b'\r') if i == 0 => return None,
            None | Some(b'\n' | b'\r') => {
                let next = skip_trivia(&rest[i..]);
                let value_ends =
                    next.is_empty() || next.starts_with('}') || Lexer::opens_body(next);
                return value_ends.then_some(i);
            }
            Some(b',') if bytes.get(i + 1) == Some(&b' ') => i += 2,
            _ => return None,
        }
        let name = identifier_len(rest.get(i..)?)?;
        let metadata = &rest[i..i + name] == "metadata";
        i += name;
        if bytes.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        i += simple_value_len(rest.get(i..)?, metadata)?;
    }
}

/// The length of an attribute value that [`simple_attributes_len`] takes, which must end
/// where it does: another byte would make it part of a longer token (`1.5`, `3x3`, `f32[2]`)
/// or of a longer value.
fn simple_value_len(value: &str, metadata: bool) -> Option<usize> {
    let bytes = value.as_bytes();
    let len = match *bytes.first()? {
        b'{' if metadata => canonical_metadata_len(value)?,
        b'{' => int_list_len(bytes, b'{', b'}')?,
        b'%' => 1 + identifier_len(&value[1..])?,
        b'-' | b'0'..=b'9' => {
            let sign = usize::from(bytes[0] == b'-');
            let digits = bytes[sign..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            (digits > 0).then_some(sign + digits)?
        }
        _ => {
            let word = identifier_len(value)?;
            // Keywords and `nan` are tokens of their own; `b` may start a buffer shape.
            if is_token_word(&value[..word]) || &value[..word] == "b" {
                return None;
            }
            word
        }
    };
    match bytes.get(len) {
        None | Some(b',' | b'\n' | b'\r') => Some(len),
        _ => None,
    }
}

/// The length of `()` or of `(N)` with `N` an integer, as in `parameter(0)`.
fn int_or_no_operand_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    if bytes.first() != Some(&b'(') {
        return None;
    }
    let sign = usize::from(bytes.get(1) == Some(&b'-'));
    let digits = bytes[1 + sign..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let close = 1 + sign + digits;
    (bytes.get(close) == Some(&b')') && (digits > 0 || sign == 0)).then_some(close + 1)
}

/// Metadata field names in the order XLA prints them (hlo-grammar.md §4.7); `crate::print`
/// orders them by this list.
pub(crate) const METADATA_FIELDS: &[&str] = &[
    "op_type",
    "op_name",
    "source_file",
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "profile_type",
    "deduplicated_name",
    "scheduling_name",
    "stack_frame_id",
    "metadata_payload",
];

/// The length of a `metadata` value at the start of `rest` that is exactly as the printer
/// would write it: `{key=value ...}` with known keys in order, one space between fields, and
/// each value a string, an integer or a word. `None` sends it down the token-by-token path.
fn canonical_metadata_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut i = 1;
    let mut next_rank = 0;
    loop {
        let key_start = i;
        while bytes
            .get(i)
            .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
        {
            i += 1;
        }
        let key = &rest[key_start..i];
        let rank = METADATA_FIELDS.iter().position(|k| *k == key)?;
        if rank < next_rank || bytes.get(i) != Some(&b'=') {
            return None;
        }
        next_rank = rank + 1;
        i += 1;
        match *bytes.get(i)? {
            b'"' => {
                let open = i;
                let (close, escaped) = closing_quote(bytes, i + 1)?;
                i = close + 1;
                // A string XLA refuses is left to the token-by-token path, which reports it.
                if escaped && refused_escape(rest.get(open..i)?).is_some() {
                    return None;
                }
            }
            b'-' | b'0'..=b'9' => {
                i += usize::from(bytes[i] == b'-');
                let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                i += digits;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let word = bytes[i..].iter().take_while(|&&b| is_ident_byte(b)).count();
                // `nan` and `inf`-like words lex as numbers; keep to plain words.
                if matches!(&rest[i..i + word], "nan" | "inf") {
                    return None;
                }
                i += word;
            }
            _ => return None,
        }
        match *bytes.get(i)? {
            b'}' => return Some(i + 1),
            b' ' => i += 1,
            _ => return None,
        }
    }
}

/// The length of an `input_output_alias` value at the start of `rest` that is exactly as the
/// printer would write it: `{ {0}: (0, {}, may-alias), {1,2}: (3, {0}) }`, entries one comma
/// and space apart inside braces padded by a space, each an output index, a parameter number,
/// a parameter index and perhaps a kind. A big model's header holds thousands of entries
/// (mixtral 8x7b: 980 entries, 27 KB), a dozen tokens each; read whole, the value prints as
/// written and the verifier reads its text as before. `None` sends it token by token.
fn canonical_alias_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    let skip = |i: &mut usize, text: &[u8]| -> bool {
        let found = bytes.get(*i..).is_some_and(|rest| rest.starts_with(text));
        if found {
            *i += text.len();
        }
        found
    };
    if !skip(&mut i, b"{ ") {
        return None;
    }
    loop {
        i += int_list_len(bytes.get(i..)?, b'{', b'}')?;
        if !skip(&mut i, b": (") {
            return None;
        }
        let digits = bytes
            .get(i..)?
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        i += digits;
        if !skip(&mut i, b", ") {
            return None;
        }
        i += int_list_len(bytes.get(i..)?, b'{', b'}')?;
        let closed =
            skip(&mut i, b", may-alias)") || skip(&mut i, b", must-alias)") || skip(&mut i, b")");
        if !closed {
            return None;
        }
        if skip(&mut i, b" }") {
            return Some(i);
        }
        if !skip(&mut i, b", ") {
            return None;
        }
    }
}

/// Where the quoted string whose text starts at `from` in `bytes` ends: the index of its
/// closing quote, and whether it holds an escape (a backslash and the byte after it).
/// `None` when it does not end. Jumps from quote or backslash to the next: strings are
/// most of a metadata value.
pub(crate) fn closing_quote(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut i = from;
    let mut escaped = false;
    loop {
        i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[i] == b'"' {
            return Some((i, escaped));
        }
        escaped = true;
        i += 2;
    }
}

/// The first escape in the quoted string `text` (quotes included) that XLA's lexer refuses,
/// as its byte range in `text` and the reason. XLA unescapes every string token as absl's
/// `CUnescape` does; only `{...}` blobs (`backend_config`, frontend attributes) are read
/// verbatim. `None` when every escape is one XLA reads.
pub(crate) fn refused_escape(text: &str) -> Option<(std::ops::Range<usize>, &'static str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let at = from + found;
        let after = &bytes[at + 1..];
        let hex_digits = |skip: usize| {
            after
                .iter()
                .skip(skip)
                .take_while(|b| b.is_ascii_hexdigit())
                .count()
        };
        // Hex digits read greedily; the value only matters up to a bound, so it saturates.
        let value = |digits: &[u8]| {
            digits.iter().fold(0u32, |value, &b| {
                let digit = (b as char).to_digit(16).unwrap_or(0);
                value.saturating_mul(16).saturating_add(digit)
            })
        };
        let surrogate = |v: u32| (0xD800..=0xDFFF).contains(&v);
        let (len, refused) = match after.first().copied() {
            Some(b'n' | b't' | b'r' | b'\\' | b'\'' | b'"' | b'?' | b'a' | b'b' | b'f' | b'v') => {
                (1, None)
            }
            Some(b'0'..=b'7') => {
                let digits = after
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(b))
                    .count();
                let value = after[..digits]
                    .iter()
                    .fold(0u32, |v, &b| v * 8 + u32::from(b - b'0'));
                let refused = (value > 0xff).then_some("an octal escape is at most \\377");
                (digits, refused)
            }
            Some(b'x' | b'X') => match hex_digits(1) {
                0 => (1, Some("`\\x` needs a hex digit after it")),
                digits => {
                    let refused = (value(&after[1..1 + digits]) > 0xff).then_some(
                        "a hex escape is at most \\xff (it takes every hex digit that follows)",
                    );
                    (1 + digits, refused)
                }
            },
            Some(kind @ (b'u' | b'U')) => {
                let wanted = if kind == b'u' { 4 } else { 8 };
                let digits = hex_digits(1).min(wanted);
                let code = value(&after[1..1 + digits]);
                let refused = if digits < wanted {
                    Some(if kind == b'u' {
                        "`\\u` needs exactly 4 hex digits"
                    } else {
                        "`\\U` needs exactly 8 hex digits"
                    })
                } else if code > 0x10FFFF {
                    Some("a code point is at most U+10FFFF")
                } else if surrogate(code) {
                    Some("a surrogate (U+D800 to U+DFFF) is not a character")
                } else {
                    None
                };
                (1 + digits, refused)
            }
            _ => {
                let next = text[at + 1..].chars().next().map_or(0, char::len_utf8);
                (next, Some("not an escape XLA knows"))
            }
        };
        if let Some(reason) = refused {
            return Some((at..at + 1 + len, reason));
        }
        from = at + 1 + len;
    }
    None
}

/// The length of the brace-balanced blob at the start of `text`, skipping `"..."` strings
/// with backslash escapes, as XLA's `LexJsonDict` does. `None` if unbalanced.
fn balanced_blob_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
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
                } else if Self::opens_body(self.inner.remainder()) {
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
                    self.layout_brace_next = Self::opens_layout(self.inner.remainder());
                }
                token
            }
            Ok(Token::IntBracket(text)) => {
                self.layout_brace_next = Self::opens_layout(self.inner.remainder());
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
