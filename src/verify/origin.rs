//! The `origin={...}` attribute (an instruction's original values), read as jaxlib 0.10.2's
//! parser reads it: `{[synthetic_call]}`, or leaves `{"name"}` / `{"name" {0,1}}` / `{}`
//! inside parentheses that mirror a tuple, e.g. `origin={({"x" {0}}, {})}`. XLA's reader is
//! loose about parentheses and commas inside them (`(, {"a"})` and even an unclosed `(` are
//! read), so only what it refuses is an error here: a bare word or number, a second string
//! in a leaf, a malformed shape index, `[...]` other than `[synthetic_call]` alone, and a
//! comma outside parentheses, on which jaxlib crashes instead of reporting.

use super::pieces::{pieces, Kind};

/// Checks an `origin` value; the message says what XLA would not read.
pub fn check(text: &str) -> Result<(), String> {
    let pieces = pieces(text)?;
    let kinds: Vec<Kind<'_>> = pieces.iter().map(|p| p.kind).collect();
    let inner = match kinds.as_slice() {
        [Kind::Open('{'), inner @ .., Kind::Close('}')] => inner,
        _ => return Err("expects '{' and '}' around the original value".into()),
    };
    if let [Kind::Open('['), ..] = inner {
        return match inner {
            [Kind::Open('['), Kind::Word("synthetic_call"), Kind::Close(']')] => Ok(()),
            _ => Err("expects `[synthetic_call]` alone".into()),
        };
    }
    let mut depth = 0usize;
    let mut at = 0;
    while at < inner.len() {
        match inner[at] {
            Kind::Open('(') => depth += 1,
            Kind::Close(')') => depth = depth.saturating_sub(1),
            Kind::Comma if depth > 0 => {}
            Kind::Comma => {
                return Err("a comma outside parentheses: write a tuple as `(a, b)` \
                            (jaxlib crashes on this text)"
                    .into())
            }
            Kind::Open('{') => {
                at = leaf(inner, at)?;
                continue;
            }
            Kind::Word(word) => {
                return Err(format!("expects a leaf `{{\"name\"}}`, found `{word}`"))
            }
            Kind::Str => return Err("a name must be inside braces: `{\"name\"}`".into()),
            Kind::Int(_) => return Err("a shape index must follow a name: `{\"name\" {0}}`".into()),
            _ => return Err("expects a leaf `{\"name\"}` or a tuple `(...)`".into()),
        }
        at += 1;
    }
    Ok(())
}

/// Reads the leaf `{ STRING? index? }` at `kinds[at]`; returns where it ends.
fn leaf(kinds: &[Kind<'_>], at: usize) -> Result<usize, String> {
    let mut at = at + 1;
    if kinds.get(at) == Some(&Kind::Str) {
        at += 1;
        if kinds.get(at) == Some(&Kind::Open('{')) {
            at += 1;
            // `{}`, `{0}`, `{0,1}` and `{0,1,}`: integers, each followed by at most one comma.
            let mut after_int = false;
            loop {
                match kinds.get(at) {
                    Some(Kind::Int(Some(_))) if !after_int => after_int = true,
                    Some(Kind::Comma) if after_int => after_int = false,
                    Some(Kind::Close('}')) => break,
                    _ => return Err("a shape index is integers between commas: `{0,1}`".into()),
                }
                at += 1;
            }
            at += 1;
        }
    }
    match kinds.get(at) {
        Some(Kind::Close('}')) => Ok(at + 1),
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
