//! A small tokenizer for the attribute values the verifier reads structurally (`origin`,
//! `sharding`): their stored text is canonical, so brackets, words, integers and strings are
//! all there is. Comments (`/*index=5*/`) and whitespace are skipped.

/// One piece of an attribute value, with its byte range in the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece<'t> {
    pub kind: Kind<'t>,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind<'t> {
    Open(char),
    Close(char),
    Comma,
    Equal,
    LessEqual,
    Colon,
    Question,
    /// A quoted string, single or double quotes, escapes skipped.
    Str,
    /// An integer; `None` when it does not fit `i64`.
    Int(Option<i64>),
    Word(&'t str),
}

/// Splits `text` into pieces; `Err` says what is none of them.
pub fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        let kind = match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = text[i + 2..]
                    .find("*/")
                    .ok_or_else(|| "a comment is not closed".to_string())?;
                i += 2 + close + 2;
                continue;
            }
            b'{' | b'(' | b'[' | b'}' | b')' | b']' | b',' | b'=' | b':' | b'?' => {
                i += 1;
                match b {
                    b'{' | b'(' | b'[' => Kind::Open(b as char),
                    b'}' | b')' | b']' => Kind::Close(b as char),
                    b',' => Kind::Comma,
                    b'=' => Kind::Equal,
                    b':' => Kind::Colon,
                    _ => Kind::Question,
                }
            }
            b'<' if bytes.get(i + 1) == Some(&b'=') => {
                i += 2;
                Kind::LessEqual
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
                Kind::Str
            }
            b'-' | b'0'..=b'9' => {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let number = &text[start..i];
                let digits = number.strip_prefix('-').unwrap_or(number);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("`{number}` is not an integer"));
                }
                Kind::Int(number.parse().ok())
            }
            _ => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.' | b'-'))
                {
                    i += 1;
                }
                if i == start {
                    let c = text[start..].chars().next().unwrap_or(' ');
                    return Err(format!("unexpected `{c}`"));
                }
                Kind::Word(&text[start..i])
            }
        };
        out.push(Piece {
            kind,
            start,
            end: i,
        });
    }
    Ok(out)
}

/// Where the bracket opened at `pieces[open]` closes, counting every bracket kind.
pub fn closing(pieces: &[Piece<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, piece) in pieces.iter().enumerate().skip(open) {
        match piece.kind {
            Kind::Open(_) => depth += 1,
            Kind::Close(_) => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{pieces, Kind};

    #[test]
    fn splits_values_into_pieces() {
        let kinds = |text| {
            pieces(text).map(|pieces| pieces.into_iter().map(|p| p.kind).collect::<Vec<_>>())
        };
        assert_eq!(
            kinds("{devices=[2,2]<=[4]T(1,0) /*index=5*/ 'a':(2)2, ?}"),
            Ok(vec![
                Kind::Open('{'),
                Kind::Word("devices"),
                Kind::Equal,
                Kind::Open('['),
                Kind::Int(Some(2)),
                Kind::Comma,
                Kind::Int(Some(2)),
                Kind::Close(']'),
                Kind::LessEqual,
                Kind::Open('['),
                Kind::Int(Some(4)),
                Kind::Close(']'),
                Kind::Word("T"),
                Kind::Open('('),
                Kind::Int(Some(1)),
                Kind::Comma,
                Kind::Int(Some(0)),
                Kind::Close(')'),
                Kind::Str,
                Kind::Colon,
                Kind::Open('('),
                Kind::Int(Some(2)),
                Kind::Close(')'),
                Kind::Int(Some(2)),
                Kind::Comma,
                Kind::Question,
                Kind::Close('}'),
            ])
        );
        assert!(pieces("0x1").is_err());
        assert!(pieces("-").is_err());
        assert!(pieces("\"open").is_err());
        assert_eq!(kinds("-7"), Ok(vec![Kind::Int(Some(-7))]));
    }
}
