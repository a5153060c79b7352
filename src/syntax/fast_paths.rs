//! The lexer's shortcuts: forms that make up most of a real dump (an instruction's head and
//! plain attributes, a plain shape, an operand list of names, a table row, a canonical
//! `metadata` or `input_output_alias` value), each recognised only where it is exactly as
//! XLA prints it, so that reading it whole gives the tree the token-by-token path gives.
//! Each function returns the length of the form at the start of its text, or `None`.

use super::strings::{closing_quote, refused_escape};
use crate::ir::vocabulary::METADATA_FIELDS;

pub(super) fn is_ident_byte(b: u8) -> bool {
    IDENT_BYTES[usize::from(b)]
}

/// Which bytes go on an identifier: a table, as the shortcuts ask for every byte of every
/// name, and one load is cheaper than the comparisons, which took a measurable share of
/// parsing (`docs/performance.md`).
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
pub(super) fn opens_buffer(rest: &str) -> bool {
    let Some(inside) = skip_trivia(rest).strip_prefix('(') else {
        return false;
    };
    let inside = skip_trivia(inside);
    identifier_len(inside).is_some_and(|len| skip_trivia(&inside[len..]).starts_with('['))
}

/// The length of the identifier (a letter or `_`, then identifier bytes) that `text` starts
/// with, if it starts with one.
pub(super) fn identifier_len(text: &str) -> Option<usize> {
    let first = *text.as_bytes().first()?;
    (first.is_ascii_alphabetic() || first == b'_')
        .then(|| text.bytes().take_while(|&b| is_ident_byte(b)).count())
}

/// The length of `[2,3]` or `{1,0}` (digits and commas only, as the integer-list tokens
/// are) at the start of `bytes`, given its brackets.
pub(super) fn int_list_len(bytes: &[u8], open: u8, close: u8) -> Option<usize> {
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
pub(super) fn simple_shape_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let dims = int_list_len(bytes, b'[', b']')?;
    let layout = match bytes.get(dims) {
        Some(b'{') => int_list_len(&bytes[dims..], b'{', b'}')?,
        // A layout after a space would be read as one by the token-by-token path.
        _ if opens_layout(&rest[dims..]) => return None,
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
pub(super) fn operand_names_len(rest: &str) -> Option<usize> {
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
pub(super) fn is_token_word(word: &str) -> bool {
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
pub(super) struct HeadRest {
    /// Up to the end of the operand list.
    pub(super) len: usize,
    pub(super) shape_len: usize,
    pub(super) opcode_len: usize,
    /// With the parentheses.
    pub(super) operands_len: usize,
    /// Whether the token-by-token path would have read the closing `)` alone.
    pub(super) closing_paren: bool,
}

/// After the name an instruction defines, the length of the rest of its head,
/// ` = f32[2]{0} add(%a, %b)`, when every part is in the form XLA prints: one space each
/// side of `=`, a plain result shape ([`simple_shape_len`]), one space, the opcode and an
/// operand list of names ([`operand_names_len`]), of one integer, or empty; and the head
/// ends its line or an attribute follows. `None` for anything else.
pub(super) fn simple_head_rest(rest: &str) -> Option<HeadRest> {
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
pub(super) fn table_row_len(rest: &str) -> Option<usize> {
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
pub(super) fn simple_attributes_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            // No attributes: the head alone is taken, with nothing to look past.
            None | Some(b'\n' | b'\r') if i == 0 => return None,
            None | Some(b'\n' | b'\r') => {
                let next = skip_trivia(&rest[i..]);
                let value_ends = next.is_empty() || next.starts_with('}') || opens_body(next);
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
pub(super) fn simple_value_len(value: &str, metadata: bool) -> Option<usize> {
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
pub(super) fn int_or_no_operand_len(rest: &str) -> Option<usize> {
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

/// The length of a `metadata` value at the start of `rest` that is exactly as the printer
/// would write it: `{key=value ...}` with known keys in order, one space between fields, and
/// each value a string, an integer or a word. `None` sends it down the token-by-token path.
pub(super) fn canonical_metadata_len(rest: &str) -> Option<usize> {
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
pub(super) fn canonical_alias_len(rest: &str) -> Option<usize> {
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

/// After `]`, a `{` whose next significant byte is a digit, `:` or `}` opens a layout; a
/// computation body's `{` is followed by a name or `ROOT`.
pub(super) fn opens_layout(rest: &str) -> bool {
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
pub(super) fn opens_body(after_brace: &str) -> bool {
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
