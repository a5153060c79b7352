//! Quoted strings and verbatim blobs as XLA's lexer reads them: where a string ends, which
//! escapes XLA refuses, and where a brace-balanced `{...}` blob ends.

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
pub(super) fn balanced_blob_len(text: &str) -> Option<usize> {
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
