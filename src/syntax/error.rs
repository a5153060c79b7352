//! Syntax errors as miette diagnostics. They carry spans only; the caller attaches the
//! source text when rendering.

use lalrpop_util::ParseError;

use super::ast::Span;
use super::lexer::LexError;
use super::token::Token;

/// Why text does not parse as HLO, with the span of the offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum SyntaxError {
    /// A token the grammar does not allow where it stands.
    #[error("unexpected {found}")]
    #[diagnostic(code(hlo::syntax::unexpected_token))]
    UnexpectedToken {
        /// The token, described for a message: `` integer `8` ``.
        found: String,
        /// The token.
        #[label("unexpected here")]
        span: Span,
        /// What could have stood there, for the help line.
        #[help]
        expected: Option<String>,
    },
    /// A token that breaks an instruction's operand: XLA reports the operand where it starts
    /// ("cannot parse as an instruction name or as a nested instruction"), then the token.
    #[error("unexpected {found} in an operand")]
    #[diagnostic(code(hlo::syntax::unexpected_token))]
    UnexpectedInOperand {
        /// The token, described.
        found: String,
        /// The operand, from where it starts.
        #[label(primary, "XLA cannot read this operand")]
        operand: Span,
        /// The token.
        #[label("unexpected here")]
        span: Span,
        /// What could have stood there, for the help line.
        #[help]
        expected: Option<String>,
    },
    /// The text ends before the module or shape does.
    #[error("unexpected end of input")]
    #[diagnostic(code(hlo::syntax::unexpected_eof))]
    UnexpectedEof {
        /// The last character of the text.
        #[label("the input ends after this")]
        span: Span,
        /// What could have come next, for the help line.
        #[help]
        expected: Option<String>,
    },
    /// Text that is no token of HLO.
    #[error("unreadable text `{text}`")]
    #[diagnostic(
        code(hlo::syntax::invalid_token),
        help("HLO text is made of names, numbers, strings and the punctuation = , : * ? # + ~ [ ] {{ }} ( ) -> <= ...")
    )]
    InvalidToken {
        /// The text, shortened when long.
        text: String,
        /// The text.
        #[label("not a token of HLO text")]
        span: Span,
    },
    /// A `/*` comment without its `*/`.
    #[error("unterminated comment")]
    #[diagnostic(
        code(hlo::syntax::unterminated_comment),
        help("close the comment with `*/`")
    )]
    UnterminatedComment {
        /// The comment's `/*`.
        #[label("this `/*` has no `*/`")]
        span: Span,
    },
    /// A `{...}` attribute value, read verbatim, whose `}` is missing.
    #[error("this `{{...}}` value runs to the end of the input")]
    #[diagnostic(
        code(hlo::syntax::runaway_blob),
        help("a backend_config or frontend attribute value that starts with `{{` is read verbatim up to its matching `}}`; one is missing")
    )]
    RunawayBlob {
        /// From the value's `{` to the end of the text.
        #[label("its `}}` closes only at the end of the input")]
        span: Span,
    },
    /// Brackets nested deeper than [`super::lexer::MAX_NESTING`].
    #[error("brackets nested too deeply")]
    #[diagnostic(
        code(hlo::syntax::too_deep),
        help("at most {max} levels of `(`, `[` and `{{` may be open at once")
    )]
    TooDeep {
        /// The limit.
        max: usize,
        /// The bracket one level too deep.
        #[label("one level too many")]
        span: Span,
    },
    /// An escape in a string that XLA refuses.
    #[error("XLA refuses the escape `{escape}` in this string: {reason}")]
    #[diagnostic(
        code(hlo::syntax::bad_escape),
        help("strings take C escapes: \\n \\t \\r \\\\ \\' \\\" \\? \\a \\b \\f \\v, octal \\0 to \\377, hex \\x0 to \\xff, and \\uXXXX or \\UXXXXXXXX for a character up to U+10FFFF")
    )]
    BadEscape {
        /// The escape as written.
        escape: String,
        /// Why XLA refuses it.
        reason: &'static str,
        /// The escape.
        #[label("refused")]
        span: Span,
    },
    /// XLA reads text as a module only when it starts with `HloModule`, `ENTRY` or a name
    /// and `{`; text that starts `name (` is one instruction to it, which lacks its `=`.
    #[error("expects '=' in instruction: without `HloModule`, XLA reads text that starts with a name and `(` as one instruction")]
    #[diagnostic(
        code(hlo::syntax::headerless_signature),
        help("a module starts with `HloModule <name>`; a lone instruction is `name = shape opcode(operands)`")
    )]
    HeaderlessSignature {
        /// The `(` where XLA expects the `=`.
        #[label("XLA expects `=` here")]
        span: Span,
    },
    /// A token after the end of a complete module or shape.
    #[error("unexpected {found} after the end")]
    #[diagnostic(code(hlo::syntax::extra_token), help("expected the end of the input"))]
    ExtraToken {
        /// The token, described.
        found: String,
        /// The token.
        #[label("nothing may follow here")]
        span: Span,
    },
}

impl SyntaxError {
    /// The span the error is about: its primary label's.
    pub fn span(&self) -> Span {
        match self {
            SyntaxError::UnexpectedToken { span, .. }
            | SyntaxError::UnexpectedEof { span, .. }
            | SyntaxError::InvalidToken { span, .. }
            | SyntaxError::BadEscape { span, .. }
            | SyntaxError::ExtraToken { span, .. }
            | SyntaxError::HeaderlessSignature { span, .. }
            | SyntaxError::UnterminatedComment { span }
            | SyntaxError::RunawayBlob { span }
            | SyntaxError::TooDeep { span, .. } => *span,
            SyntaxError::UnexpectedInOperand { operand, .. } => *operand,
        }
    }

    /// An unexpected token inside an operand after its first token, as
    /// [`SyntaxError::UnexpectedInOperand`] with the operand `operand` gives for the token's
    /// offset; any other error as it is.
    pub(crate) fn in_operand(self, operand: impl FnOnce(usize) -> Option<Span>) -> SyntaxError {
        match self {
            SyntaxError::UnexpectedToken {
                found,
                span,
                expected,
            } => match operand(span.start) {
                Some(operand) => SyntaxError::UnexpectedInOperand {
                    found,
                    operand,
                    span,
                    expected,
                },
                None => SyntaxError::UnexpectedToken {
                    found,
                    span,
                    expected,
                },
            },
            other => other,
        }
    }

    pub(crate) fn from_parse_error(
        source: &str,
        error: ParseError<usize, Token<'_>, LexError>,
    ) -> SyntaxError {
        match error {
            ParseError::InvalidToken { location } => SyntaxError::InvalidToken {
                text: snippet(source, location, location + 1),
                span: Span::new(location, location + 1),
            },
            // A zero-width label does not render, so point at the last character instead.
            ParseError::UnrecognizedEof { location, expected } => SyntaxError::UnexpectedEof {
                span: last_char_before(source, location),
                expected: expected_help(&expected),
            },
            ParseError::UnrecognizedToken {
                token: (l, Token::Error, _),
                ..
            } if source.get(l..).is_some_and(|rest| rest.starts_with("/*")) => {
                SyntaxError::UnterminatedComment {
                    span: Span::new(l, l + 2),
                }
            }
            ParseError::UnrecognizedToken {
                token: (l, Token::Error, r),
                ..
            } => match source.get(l..r).and_then(super::strings::refused_escape) {
                // The lexer turns a string with an escape XLA refuses into an error token.
                Some((escape, reason)) => SyntaxError::BadEscape {
                    escape: snippet(source, l + escape.start, l + escape.end),
                    reason,
                    span: Span::new(l + escape.start, l + escape.end),
                },
                None => SyntaxError::InvalidToken {
                    text: snippet(source, l, r),
                    span: Span::new(l, r),
                },
            },
            // Nothing was expected: the module was complete.
            ParseError::UnrecognizedToken {
                token: (l, token, r),
                expected,
            } if expected.is_empty() => SyntaxError::ExtraToken {
                found: token.describe(),
                span: Span::new(l, r),
            },
            ParseError::UnrecognizedToken {
                token: (l, token, r),
                expected,
            } => SyntaxError::UnexpectedToken {
                found: token.describe(),
                span: Span::new(l, r),
                expected: expected_help(&expected),
            },
            ParseError::ExtraToken {
                token: (l, token, r),
            } => SyntaxError::ExtraToken {
                found: token.describe(),
                span: Span::new(l, r),
            },
            ParseError::User {
                error: LexError::TooDeep { span },
            } => SyntaxError::TooDeep {
                max: super::lexer::MAX_NESTING,
                span,
            },
        }
    }
}

fn last_char_before(source: &str, location: usize) -> Span {
    let mut end = location.min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    match source[..end].char_indices().next_back() {
        Some((start, _)) => Span::new(start, end),
        None => Span::new(end, end),
    }
}

fn snippet(source: &str, start: usize, end: usize) -> String {
    let end = end.min(source.len());
    let mut start = start.min(end);
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = end.max(start);
    while !source.is_char_boundary(end) {
        end += 1;
    }
    source[start..end].chars().take(40).collect()
}

/// "expected one of `,`, `]`" from lalrpop's quoted terminal names.
fn expected_help(expected: &[String]) -> Option<String> {
    let mut names: Vec<String> = expected
        .iter()
        .map(|e| {
            let name = e.trim_matches('"');
            match name {
                "layout {" | "body {" => "`{`".to_string(),
                "body }" => "`}`".to_string(),
                "%name =" | "name =" | "simple head" => "an instruction `name = ...`".to_string(),
                "raw {...}" | "{integers}" | "layout {integers}" => "`{`".to_string(),
                "[integers]" => "`[`".to_string(),
                // Tokens the lexer makes of common forms read like what they stand for.
                "simple shape" | "b" => "shape".to_string(),
                "operand names" => "`(`".to_string(),
                "table keyword" => {
                    "`FileNames`, `FunctionNames`, `FileLocations` or `StackFrames`".to_string()
                }
                "integer" | "identifier" | "number" | "string" | "padding" | "dim labels"
                | "%name" | "name:" | "attribute=" | "NxM" | "unreadable text" | "opcode"
                | "shape" => name.to_string(),
                _ => format!("`{name}`"),
            }
        })
        .filter(|n| n != "unreadable text")
        .collect();
    // Where any value may come, list "a value" rather than every token a value can start with.
    const VALUE_STARTS: &[&str] = &[
        "`=`",
        "`:`",
        "`*`",
        "`?`",
        "`#`",
        "`+`",
        "`~`",
        "`[`",
        "`{`",
        "`(`",
        "`->`",
        "`<=`",
        "`...`",
        "%name",
        "name:",
        "attribute=",
        "identifier",
        "integer",
        "number",
        "`-inf`",
        "string",
        "NxM",
        "padding",
        "dim labels",
        "opcode",
        "shape",
    ];
    let any_value = ["string", "integer", "identifier", "padding"]
        .iter()
        .all(|n| names.iter().any(|m| m == n));
    if any_value {
        let first = names
            .iter()
            .position(|n| VALUE_STARTS.contains(&n.as_str()));
        names.retain(|n| !VALUE_STARTS.contains(&n.as_str()));
        names.insert(first.unwrap_or(0).min(names.len()), "a value".to_string());
    }
    // Keep the first mention of each, in lalrpop's (stable) order.
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    match names.len() {
        0 => None,
        1 => Some(format!("expected {}", names[0])),
        _ => Some(format!("expected one of {}", names.join(", "))),
    }
}
