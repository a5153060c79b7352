//! The `origin={...}` attribute (an instruction's original values), read as jaxlib 0.10.2's
//! parser reads it: `{[synthetic_call]}`, or leaves `{"name"}` / `{"name" {0,1}}` / `{}`
//! inside parentheses that mirror a tuple, e.g. `origin={({"x" {0}}, {})}`. XLA's reader is
//! loose about parentheses and commas inside them (`(, {"a"})` and even an unclosed `(` are
//! read), so only what it refuses is an error here: a bare word or number, a second string
//! in a leaf, a malformed shape index, `[...]` other than `[synthetic_call]` alone, and a
//! comma outside parentheses, on which jaxlib crashes instead of reporting.

/// One piece of the value's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece<'t> {
    Open(char),
    Close(char),
    Comma,
    Str,
    Int,
    Word(&'t str),
}

/// Splits `text` into pieces; `Err` names the first character that is none of them.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'(' | b'[' => {
                out.push(Piece::Open(b as char));
                i += 1;
            }
            b'}' | b')' | b']' => {
                out.push(Piece::Close(b as char));
                i += 1;
            }
            b',' => {
                out.push(Piece::Comma);
                i += 1;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    return Err("a string is not closed".into());
                }
                i += 1;
                out.push(Piece::Str);
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let number = &text[start..i];
                if number.parse::<i64>().is_err() {
                    return Err(format!("`{number}` is not an integer"));
                }
                out.push(Piece::Int);
            }
            _ => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if i == start {
                    let c = text[start..].chars().next().unwrap_or(' ');
                    return Err(format!("unexpected `{c}`"));
                }
                out.push(Piece::Word(&text[start..i]));
            }
        }
    }
    Ok(out)
}

/// Checks an `origin` value; the message says what XLA would not read.
pub fn check(text: &str) -> Result<(), String> {
    let pieces = pieces(text)?;
    let inner = match pieces.as_slice() {
        [Piece::Open('{'), inner @ .., Piece::Close('}')] => inner,
        _ => return Err("expects '{' and '}' around the original value".into()),
    };
    if let [Piece::Open('['), ..] = inner {
        return match inner {
            [Piece::Open('['), Piece::Word("synthetic_call"), Piece::Close(']')] => Ok(()),
            _ => Err("expects `[synthetic_call]` alone".into()),
        };
    }
    let mut depth = 0usize;
    let mut at = 0;
    while at < inner.len() {
        match inner[at] {
            Piece::Open('(') => depth += 1,
            Piece::Close(')') => depth = depth.saturating_sub(1),
            Piece::Comma if depth > 0 => {}
            Piece::Comma => {
                return Err("a comma outside parentheses: write a tuple as `(a, b)` \
                            (jaxlib crashes on this text)"
                    .into())
            }
            Piece::Open('{') => {
                at = leaf(inner, at)?;
                continue;
            }
            Piece::Word(word) => {
                return Err(format!("expects a leaf `{{\"name\"}}`, found `{word}`"))
            }
            Piece::Str => return Err("a name must be inside braces: `{\"name\"}`".into()),
            Piece::Int => return Err("a shape index must follow a name: `{\"name\" {0}}`".into()),
            _ => return Err("expects a leaf `{\"name\"}` or a tuple `(...)`".into()),
        }
        at += 1;
    }
    Ok(())
}

/// Reads the leaf `{ STRING? index? }` at `pieces[at]`; returns where it ends.
fn leaf(pieces: &[Piece<'_>], at: usize) -> Result<usize, String> {
    let mut at = at + 1;
    if pieces.get(at) == Some(&Piece::Str) {
        at += 1;
        if pieces.get(at) == Some(&Piece::Open('{')) {
            at += 1;
            // `{}`, `{0}`, `{0,1}` and `{0,1,}`: integers, each followed by at most one comma.
            let mut after_int = false;
            loop {
                match pieces.get(at) {
                    Some(Piece::Int) if !after_int => after_int = true,
                    Some(Piece::Comma) if after_int => after_int = false,
                    Some(Piece::Close('}')) => break,
                    _ => return Err("a shape index is integers between commas: `{0,1}`".into()),
                }
                at += 1;
            }
            at += 1;
        }
    }
    match pieces.get(at) {
        Some(Piece::Close('}')) => Ok(at + 1),
        _ => Err("a leaf holds one name and at most one shape index: `{\"name\" {0}}`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    /// Each case was read by jaxlib 0.10.2's parser: `true` where it accepts the value.
    #[test]
    fn origin_values_as_xla_reads_them() {
        let cases: &[(&str, bool)] = &[
            (r#"{{"a"}}"#, true),
            (r#"{{}}"#, true),
            (r#"{}"#, true),
            (r#"{ }"#, true),
            (r#"{{"a" {0}}}"#, true),
            (r#"{{"a" {0,1}}}"#, true),
            (r#"{{"a" {0,1,}}}"#, true),
            (r#"{{"a" {}}}"#, true),
            (r#"{{"a" { }}}"#, true),
            (r#"{{"a" {-1}}}"#, true),
            (r#"{{"a"{0}}}"#, true),
            (r#"{{'a'}}"#, true),
            (r#"{{"" {0}}}"#, true),
            (r#"{[synthetic_call]}"#, true),
            (r#"{ [ synthetic_call ] }"#, true),
            (r#"{({"a"})}"#, true),
            (r#"{({"a"}, {"b"}, {"c"})}"#, true),
            (r#"{(({"a"}, {"b"}), {"c"})}"#, true),
            (r#"{({"a"},{"b"})}"#, true),
            (r#"{(, )}"#, true),
            (r#"{(,{"a"},,{"b"})}"#, true),
            (r#"{({"a"} {"b"})}"#, true),
            (r#"{({"a"}, ())}"#, true),
            (r#"{{"a"}{"b"}}"#, true),
            (r#"{({"a"}) ({"b"})}"#, true),
            (r#"{(}"#, true),
            (r#"{)}"#, true),
            (r#"{({"a"}}"#, true),
            (r#"{bogus}"#, false),
            (r#"{{a}}"#, false),
            (r#"{{"a" 0}}"#, false),
            (r#"{{"a", "b"}}"#, false),
            (r#"{{"a" "b"}}"#, false),
            (r#"{{"a" {0} {1}}}"#, false),
            (r#"{{"a" {0}{1}}}"#, false),
            (r#"{{"a" {,}}}"#, false),
            (r#"{{"a" {0 1}}}"#, false),
            (r#"{{"a" {1.5}}}"#, false),
            (r#"{{"a" {0x1}}}"#, false),
            (r#"{{"a" {+1}}}"#, false),
            (r#"{"a"}"#, false),
            (r#"{{{"a"}}}"#, false),
            (r#"{{"a"}"#, false),
            (r#"{[synthetic]}"#, false),
            (r#"{[synthetic_call], {"a"}}"#, false),
            (r#"{[synthetic_call],}"#, false),
            (r#"{[synthetic_call] [synthetic_call]}"#, false),
            (r#"{({"a"}) [synthetic_call]}"#, false),
            (r#"{({[synthetic_call]})}"#, false),
            (r#"{([synthetic_call], {"b"})}"#, false),
            // jaxlib crashes on these rather than refusing them.
            (r#"{{"a"}, {"b"}}"#, false),
            (r#"{{"a"},}"#, false),
            (r#"{,}"#, false),
        ];
        for &(text, accepted) in cases {
            assert_eq!(check(text).is_ok(), accepted, "{text}: {:?}", check(text));
        }
    }
}
