//! Text to syntax tree.
//!
//! Architecture invariant: nothing in this module panics on any input, and nothing here
//! knows what an opcode, an element type or a layout letter means; that is `crate::lower`'s
//! job.

pub mod ast;
pub mod error;
mod fast_paths;
pub mod lexer;
pub mod pieces;
mod strings;
pub mod token;

pub use error::SyntaxError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_imports, dead_code, unused_parens)]
    grammar,
    "/hlo.rs"
);

// The same grammar without its error-recovery rules, as a recursive-ascent parser (build.rs
// generates it): about a fifth faster. Text it rejects is parsed again by `grammar`, which
// recovers and reports every error.
lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        unused_imports,
        dead_code,
        unused_parens,
        unused_variables
    )]
    happy_path,
    "/hlo_happy_path.rs"
);

/// Parses one shape, such as `bf16[4,8]{1,0:T(2,4)(2,1)}` or `(f32[], s32[2]{0})`, to a
/// syntax tree. The whole input must be the shape.
pub fn parse_shape(source: &str) -> Result<ast::Shape<'_>, SyntaxError> {
    // The shape grammar has no recovery points, so nothing is ever recorded here.
    let mut recovered = Vec::new();
    // The faster parser reads most text (an `entry_computation_layout` may hold thousands of
    // shapes); the table-driven one reads text it rejects, to report the error as it always has.
    if let Ok(shape) = happy_path::ShapeParser::new().parse(
        &mut recovered,
        &mut ast::NoSink,
        lexer::Lexer::new(source),
    ) {
        return Ok(*shape);
    }
    recovered.clear();
    grammar::ShapeParser::new()
        .parse(&mut recovered, &mut ast::NoSink, lexer::Lexer::new(source))
        .map(|shape| *shape)
        .map_err(|e| SyntaxError::from_parse_error(source, e))
}

/// Parses a whole module. Every syntax error is reported, one per line at most: the parser
/// skips a broken instruction up to the next one, and a broken computation up to its `}`.
pub fn parse_module(source: &str) -> Result<ast::Module<'_>, Vec<SyntaxError>> {
    parse_module_range(source, 0..source.len())
}

/// Like [`parse_module`] for `source[range]` (one part of a `// -----` split file), with
/// spans into the whole of `source`. One thread reads it, whatever its size: the commands
/// want a syntax tree whole only for text with errors, which two halves never read, and
/// for an error's span read again.
pub fn parse_module_range(
    source: &str,
    range: std::ops::Range<usize>,
) -> Result<ast::Module<'_>, Vec<SyntaxError>> {
    let (start, end) = (range.start, range.end);
    parse_collecting(source, range, Parsers::HappyPathFirst, || {
        lexer::Lexer::with_range(source, start, end)
    })
}

/// Where a module's text (its bytes, perhaps not all read yet) may be cut into pieces for
/// [`crate::parse_module_in_pieces`]: just after the first line at or after byte `from`
/// that holds only `}`, where XLA ends a
/// computation; `None` when no such line ends before the text does. A guess made without
/// lexing: a cut inside a string, a comment or a computation leaves a piece that does not
/// parse on its own, and the module is then read whole.
pub fn computation_end_after(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from.saturating_sub(1);
    while let Some(found) = memchr::memmem::find(bytes.get(at..)?, b"\n}") {
        let brace = at + found + 1;
        match closing_line_end(bytes, brace) {
            Some(cut) => return Some(cut),
            None => at = brace,
        }
    }
    None
}

/// Just after the line break that follows the `}` at `brace`, when the line holds only it.
fn closing_line_end(bytes: &[u8], brace: usize) -> Option<usize> {
    match (bytes.get(brace + 1), bytes.get(brace + 2)) {
        (Some(b'\n'), _) => Some(brace + 2),
        (Some(b'\r'), Some(b'\n')) => Some(brace + 3),
        _ => None,
    }
}

/// The last place [`computation_end_after`] would cut at that is at or before byte `to`:
/// just after the last line holding only `}` that ends there or earlier; `None` when none
/// does.
pub fn computation_end_before(bytes: &[u8], to: usize) -> Option<usize> {
    let mut end = to.min(bytes.len());
    while let Some(found) = memchr::memmem::rfind(bytes.get(..end)?, b"\n}") {
        let cut = closing_line_end(bytes, found + 1);
        if let Some(cut) = cut.filter(|&cut| cut <= to) {
            return Some(cut);
        }
        end = found;
    }
    None
}

/// Whether `text` holds nothing but blanks and comments.
pub(crate) fn holds_no_token(text: &str) -> bool {
    lexer::Lexer::new(text).next().is_none()
}

/// Where `source[range]` may be cut in two to parse each half on its own thread: the start of
/// a line that begins a computation (a name, `%name` or `ENTRY` at the start of the line)
/// after a line holding only `}`, the one nearest `middle` bytes into the range. It is a
/// guess made without lexing: the halves are taken only when each half parses on its own as
/// XLA's modules do, which a cut inside a string, a comment or a computation never allows.
pub fn computation_start_near(
    source: &str,
    range: std::ops::Range<usize>,
    middle: usize,
) -> Option<usize> {
    let text = source.get(range.clone())?;
    if text.len() < 2 {
        return None;
    }
    let middle = middle.min(text.len());
    // `\n}\n` at `at`: the computation that may follow starts after the blank lines.
    let computation_after = |at: usize| {
        let after = at + 3;
        let rest = &text[after..];
        let blank = rest.len() - rest.trim_start_matches(['\n', '\r', ' ', '\t']).len();
        let line_start = rest[..blank].rfind('\n').map_or(0, |n| n + 1);
        let starts = rest[line_start..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'%');
        starts.then_some(after + line_start)
    };
    let bytes = text.as_bytes();
    // The search runs before either thread starts, over up to half the text each way, so it
    // searches as memchr does rather than byte by byte, which cost a share of the parse.
    let forward = memchr::memmem::Finder::new(b"\n}\n");
    let mut after_middle = None;
    let mut from = middle;
    while let Some(found) = bytes.get(from..).and_then(|rest| forward.find(rest)) {
        if let Some(cut) = computation_after(from + found) {
            after_middle = Some(cut);
            break;
        }
        from += found + 1;
    }
    // Backwards, `\n}\n` wholly before `middle + 2`, nearest first. memchr finds a byte
    // backwards at SIMD speed; its reverse substring search does not.
    let end = (middle + 1).min(bytes.len());
    let before_middle = memchr::memrchr_iter(b'}', &bytes[..end])
        .filter(|&brace| {
            brace > 0 && bytes[brace - 1] == b'\n' && bytes.get(brace + 1) == Some(&b'\n')
        })
        .find_map(|brace| computation_after(brace - 1));
    let distance = |cut: &usize| cut.abs_diff(middle);
    [after_middle, before_middle]
        .into_iter()
        .flatten()
        .min_by_key(distance)
        .map(|cut| range.start + cut)
}

/// Reads `source[start..cut]`, a module's text up to an instruction line inside a
/// computation body, into `sink` with the happy-path parser; the module's header and
/// tables, or `None` at the first error. With [`parse_suffix_into`], a module is read in
/// two parts on two threads (`crate::lower::read_ahead`).
pub(crate) fn parse_prefix_into<'s>(
    source: &'s str,
    start: usize,
    cut: usize,
    sink: &mut dyn ast::Sink<'s>,
) -> Option<ast::Module<'s>> {
    happy_path::ModulePrefixParser::new()
        .parse(
            &mut Vec::new(),
            sink,
            lexer::Lexer::with_range(source, start, cut),
        )
        .ok()
        .map(|module| *module)
}

/// Reads `source[range]`, a module's header and tables without its computations (see
/// [`preamble_end`]), with the happy-path parser; `None` at the first error.
pub(crate) fn parse_preamble(
    source: &str,
    range: std::ops::Range<usize>,
) -> Option<ast::Module<'_>> {
    let (start, end) = (range.start, range.end);
    happy_path::PreambleParser::new()
        .parse(
            &mut Vec::new(),
            &mut ast::NoSink,
            lexer::Lexer::with_range(source, start, end),
        )
        .ok()
        .map(|module| *module)
}

/// Where the computations of `source[range]` start when it has a header: the start of the
/// first line after the `HloModule` line that begins with `%`, `ENTRY` or a name and ends
/// with `{`, as XLA prints a computation's first line (table rows begin with a number).
/// Reading the header and tables (the preamble) is then left to the thread with less to do;
/// they can be long (an `entry_computation_layout` of thousands of shapes, tables of half a
/// megabyte) and are slow to read for their size. Like [`instruction_line_cut`], it is a
/// guess made without lexing: the parts are taken only when the preamble parses as a
/// header and tables alone and the rest as computations alone.
pub(crate) fn preamble_end(source: &str, range: std::ops::Range<usize>) -> Option<usize> {
    let text = source.get(range.clone())?;
    // Split with the memchr crate: the tables can be thousands of short lines, and this runs
    // before the threads that read a module start.
    let mut line_start = 0;
    let mut lines = memchr::memchr_iter(b'\n', text.as_bytes())
        .map(|newline| newline + 1)
        .chain((!text.is_empty() && !text.ends_with('\n')).then_some(text.len()))
        .map(|line_end| {
            let line = &text[line_start..line_end];
            line_start = line_end;
            line
        });
    let mut at = 0;
    // Comments and blank lines may come before the header.
    for line in lines.by_ref() {
        at += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("HloModule") {
            break;
        }
        if !(trimmed.is_empty() || trimmed.starts_with("//")) {
            return None;
        }
    }
    const TABLE_KEYWORDS: [&str; 4] =
        ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];
    for line in lines {
        let starts_a_computation = line
            .bytes()
            .next()
            .is_some_and(|b| b == b'%' || b == b'_' || b.is_ascii_alphabetic())
            && !TABLE_KEYWORDS
                .iter()
                .any(|keyword| line.starts_with(keyword))
            && line.trim_end().ends_with('{');
        if starts_a_computation {
            return Some(range.start + at);
        }
        at += line.len();
    }
    None
}

/// Reads `source[cut..end]`, the rest of a module from an instruction line inside a
/// computation body, into `sink` with the happy-path parser; whether it read without an
/// error.
pub(crate) fn parse_suffix_into<'s>(
    source: &'s str,
    cut: usize,
    end: usize,
    sink: &mut dyn ast::Sink<'s>,
) -> bool {
    happy_path::ModuleSuffixParser::new()
        .parse(
            &mut Vec::new(),
            sink,
            lexer::Lexer::with_range_in_body(source, cut, end),
        )
        .is_ok()
}

/// Reads `source[start..end]`, instruction lines inside one computation body between two
/// cuts ([`instruction_line_cut`]), into `sink` with the happy-path parser; false at the
/// first error, a `}` among them included.
pub(crate) fn parse_body_lines_into<'s>(
    source: &'s str,
    start: usize,
    end: usize,
    sink: &mut dyn ast::Sink<'s>,
) -> bool {
    happy_path::BodyLinesParser::new()
        .parse(
            &mut Vec::new(),
            sink,
            lexer::Lexer::with_range_in_body(source, start, end),
        )
        .is_ok()
}

/// Where `source[range]` may be cut inside a computation body, for
/// `parse_prefix_into` and `parse_suffix_into`: the start of the first line at or after `offset`
/// bytes into the range that is indented by two spaces and begins with a name or `ROOT`, as
/// XLA prints the instructions of a computation, but for a body's first line (the lexer
/// tells a body's `{` from the text after it). It is a guess made without lexing: the
/// parts are taken only when each parses on its own, which a cut inside a string, a comment
/// or a computation written in place never allows.
pub fn instruction_line_cut(
    source: &str,
    range: std::ops::Range<usize>,
    offset: usize,
) -> Option<usize> {
    let bytes = source.get(range.clone())?.as_bytes();
    instruction_line_start(bytes, offset).map(|line| range.start + line)
}

/// [`instruction_line_cut`] of bytes: the start of the first line at or after `offset`
/// that is indented by two spaces and begins with a name or `ROOT`, not the first line of a
/// body.
pub fn instruction_line_start(bytes: &[u8], offset: usize) -> Option<usize> {
    let line_break = memchr::memmem::Finder::new(b"\n  ");
    let mut from = offset.min(bytes.len());
    while let Some(found) = bytes.get(from..).and_then(|rest| line_break.find(rest)) {
        let line = from + found + 1;
        // The lexer tells a body's `{` from the text after it, so a part may not end there.
        let opens_a_body = bytes[..line - 1].trim_ascii_end().ends_with(b"{");
        if is_instruction_line(&bytes[line..]) && !opens_a_body {
            return Some(line);
        }
        from = line;
    }
    None
}

/// Whether `piece` ends with an instruction line of a computation body, as a piece cut
/// inside a computation longer than a piece does
/// ([`pieces::TextPieces`]): its last line is indented by two spaces and
/// begins with a name or `ROOT`.
pub(crate) fn ends_inside_a_body(piece: &str) -> bool {
    let Some(text) = piece.strip_suffix('\n') else {
        return false;
    };
    let last_line = &text[text.rfind('\n').map_or(0, |line_break| line_break + 1)..];
    is_instruction_line(last_line.as_bytes())
}

/// Whether `line` (or the text from a line's start) is indented by two spaces and begins
/// with a name or `ROOT`, as XLA prints a computation's instructions.
pub(crate) fn is_instruction_line(line: &[u8]) -> bool {
    let starts_a_name = |b: u8| b == b'%' || b == b'_' || b.is_ascii_alphabetic();
    line.strip_prefix(b"  ")
        .and_then(|rest| rest.first().copied())
        .is_some_and(starts_a_name)
}

/// Parses `source[range.start..cut]` on this thread and `source[cut..range.end]` on another,
/// each into a sink `new_sink` makes. `None` unless both halves parse without an error and
/// the second is computations only (no header, tables or lone instruction), so that reading
/// the whole in one go would have given the same computations: then the caller does that.
///
/// With `preamble`, a [`preamble_end`] before `cut` and what to make of the header and
/// tables, the first half starts at the computations, and the other thread also reads the
/// preamble and hands it to `preamble`; `None` then also when the preamble does not parse
/// alone or `preamble` gives nothing.
#[allow(clippy::type_complexity)]
pub(crate) fn in_two_halves<'s, S, P>(
    source: &'s str,
    range: std::ops::Range<usize>,
    cut: usize,
    new_sink: impl Fn() -> S + Sync,
    preamble: Option<(usize, impl FnOnce(ast::Module<'s>) -> Option<P> + Send)>,
) -> Option<((ast::Module<'s>, S), (ast::Module<'s>, S), Option<P>)>
where
    S: ast::Sink<'s> + Send,
    P: Send,
{
    if !(range.start < cut && cut < range.end && source.is_char_boundary(cut)) {
        return None;
    }
    let (first_start, preamble) = match preamble {
        Some((end, lower)) if range.start < end && end < cut && source.is_char_boundary(end) => {
            (end, Some((end, lower)))
        }
        Some(_) => return None,
        None => (range.start, None),
    };
    let parse = |range: std::ops::Range<usize>| {
        let mut sink = new_sink();
        parse_module_into(source, range, &mut sink)
            .ok()
            .map(|module| (module, sink))
    };
    let (first, second) = crate::parallel::join(
        || parse(first_start..cut),
        || {
            let half = parse(cut..range.end)?;
            let preamble = match preamble {
                Some((end, lower)) => Some(lower(parse_preamble(source, range.start..end)?)?),
                None => None,
            };
            Some((half, preamble))
        },
    );
    let (first, (second, preamble)) = (first?, second?);
    let tail = &second.0;
    let computations_only =
        tail.header.is_none() && tail.tables.is_empty() && tail.instruction.is_none();
    // The first half holds the header and tables unless the other thread read them.
    let head_only_computations =
        preamble.is_none() || (first.0.header.is_none() && first.0.tables.is_empty());
    (computations_only && head_only_computations && first.0.instruction.is_none())
        .then_some((first, second, preamble))
}

/// Parses `source[range]`, handing each computation to `sink` instruction by instruction as
/// it is read; the returned module holds the header, the tables and a lone instruction, not
/// the computations. On a syntax error, what the sink received is incomplete and the errors
/// are returned.
pub fn parse_module_into<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    sink: &mut dyn ast::Sink<'s>,
) -> Result<ast::Module<'s>, Vec<SyntaxError>> {
    let (start, end) = (range.start, range.end);
    parse_with_lexer(source, range, sink, Parsers::HappyPathFirst, || {
        lexer::Lexer::with_range(source, start, end)
    })
}

/// [`parse_module_range`] with a lexer that reads every form token by token, never whole
/// (see [`lexer`]), and the recovering parser alone, not the happy-path one; both ways must
/// give the same module, which the corpus tests check.
#[doc(hidden)]
pub fn parse_module_range_without_shortcuts(
    source: &str,
    range: std::ops::Range<usize>,
) -> Result<ast::Module<'_>, Vec<SyntaxError>> {
    let (start, end) = (range.start, range.end);
    let plain = || lexer::Lexer::with_range(source, start, end).without_shortcuts();
    parse_collecting(source, range, Parsers::RecoveringOnly, plain)
}

/// [`parse_module_range`] on one thread with a lexer that reads instruction heads token by
/// token ([`lexer::Lexer::without_whole_heads`]): the same tree, spans and all, which the
/// corpus tests check.
#[doc(hidden)]
pub fn parse_module_range_without_whole_heads(
    source: &str,
    range: std::ops::Range<usize>,
) -> Result<ast::Module<'_>, Vec<SyntaxError>> {
    let (start, end) = (range.start, range.end);
    let by_part = || lexer::Lexer::with_range(source, start, end).without_whole_heads();
    parse_collecting(source, range, Parsers::HappyPathFirst, by_part)
}

/// Parses with `parsers` reading the tokens `lexer` makes into a tree that holds its
/// computations.
fn parse_collecting<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    parsers: Parsers,
    lexer: impl Fn() -> lexer::Lexer<'s>,
) -> Result<ast::Module<'s>, Vec<SyntaxError>> {
    let mut sink = ast::CollectSink::default();
    let mut module = parse_with_lexer(source, range, &mut sink, parsers, lexer)?;
    module.computations = sink.computations;
    Ok(module)
}

/// Which generated parsers read the text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parsers {
    /// The happy-path parser, then the recovering one if it finds an error.
    HappyPathFirst,
    /// The recovering parser alone, to check that both read text the same.
    RecoveringOnly,
}

fn parse_with_lexer<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    sink: &mut dyn ast::Sink<'s>,
    parsers: Parsers,
    lexer: impl Fn() -> lexer::Lexer<'s>,
) -> Result<ast::Module<'s>, Vec<SyntaxError>> {
    let mut recovered = Vec::new();
    // Most text has no syntax error: read it with the faster parser, which stops at the first
    // error. Then the recovering one reads it all again to report every error; what the sink
    // heard of the first attempt does not matter, as a syntax error fails the whole parse.
    if parsers == Parsers::HappyPathFirst {
        if let Ok(module) = happy_path::ModuleParser::new().parse(&mut recovered, sink, lexer()) {
            return Ok(*module);
        }
    }
    recovered.clear();
    // Without whole heads, which this parser's error recovery has never seen: errors and
    // their recovery stay what they were.
    let result =
        grammar::ModuleParser::new().parse(&mut recovered, sink, lexer().without_whole_heads());
    let mut errors: Vec<SyntaxError> = recovered
        .into_iter()
        .map(|r| SyntaxError::from_parse_error(source, r.error))
        .collect();
    let module = match result {
        Ok(module) => Some(*module),
        Err(error) => {
            errors.push(SyntaxError::from_parse_error(source, error));
            None
        }
    };
    match module {
        Some(module) if errors.is_empty() => Ok(module),
        _ => {
            explain_runaway_text(source, range.clone(), &mut errors);
            let errors = keep_first_per_line(source, errors).into_iter();
            Err(errors
                .map(|e| e.in_operand(|offset| operand_before(source, range.clone(), offset)))
                .collect())
        }
    }
}

/// An unterminated comment, or a raw `{...}` value whose `}` is missing, takes the rest of the
/// text; the parser then stops at the end without having seen why. Both are found by lexing
/// again (only on this error path) and reported where they start.
fn explain_runaway_text(
    source: &str,
    range: std::ops::Range<usize>,
    errors: &mut Vec<SyntaxError>,
) {
    let end = range.end;
    let mut last = None;
    for (l, token, r) in
        lexer::Lexer::with_range(source, range.start, range.end).filter_map(Result::ok)
    {
        if token == token::Token::Error
            && source.get(l..).is_some_and(|rest| rest.starts_with("/*"))
        {
            last = Some(SyntaxError::UnterminatedComment {
                span: ast::Span::new(l, l + 2),
            });
        } else if matches!(token, token::Token::Raw(_)) {
            let rest = source.get(r..end).unwrap_or("");
            last = fast_paths::skip_trivia(rest)
                .is_empty()
                .then(|| SyntaxError::RunawayBlob {
                    span: ast::Span::new(l, l + 1),
                });
        } else {
            last = None;
        }
    }
    if let Some(error) = last {
        if let SyntaxError::UnterminatedComment { span } = &error {
            // Seeing the comment's error token next, the parser may refuse the token right
            // before it (an empty computation's `{`): that says nothing more either.
            let start = span.start;
            errors.retain(|e| {
                let end = e.span().end;
                let choked_before = matches!(e, SyntaxError::UnexpectedToken { .. })
                    && end <= start
                    && source
                        .get(end..start)
                        .is_some_and(|between| fast_paths::skip_trivia(between).is_empty());
                !choked_before
            });
        }
        if !errors.contains(&error) {
            // The end-of-input error it caused says nothing more.
            errors.retain(|e| !matches!(e, SyntaxError::UnexpectedEof { .. }));
            errors.push(error);
            errors.sort_by_key(|e| e.span().start);
        }
    }
}

/// After an error the parser may stumble a few more times before it finds its feet again;
/// those follow-on errors sit on the same line as the first, so only the first is kept.
fn keep_first_per_line(source: &str, errors: Vec<SyntaxError>) -> Vec<SyntaxError> {
    let newlines: Vec<usize> = source
        .bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
        .collect();
    let line_of = |offset: usize| newlines.partition_point(|&n| n < offset);
    let mut last_line = None;
    let mut kept = Vec::with_capacity(errors.len());
    for error in errors {
        let line = line_of(error.span().start);
        if last_line != Some(line) {
            kept.push(error);
        }
        last_line = Some(line);
    }
    kept
}

/// The error XLA gives text that starts `name (` without `HloModule` before it, as a
/// computation with a signature does: XLA reads text as a module only when it starts with
/// `HloModule` or `ENTRY`, or with a name and `{`, and any other text as one instruction,
/// which then lacks its `=`. `None` for any other text.
pub fn headerless_signature(source: &str, range: std::ops::Range<usize>) -> Option<SyntaxError> {
    use token::Token;
    let mut tokens = lexer::Lexer::with_range(source, range.start, range.end)
        .without_shortcuts()
        .without_whole_heads();
    let (Some(Ok((_, first, _))), Some(Ok((l, Token::LParen, r)))) = (tokens.next(), tokens.next())
    else {
        return None;
    };
    matches!(first, Token::Call(_) | Token::Ident(_) | Token::Name(_)).then_some(
        SyntaxError::HeaderlessSignature {
            span: ast::Span::new(l, r),
        },
    )
}

/// The operand of an instruction that `offset` lies in, from its first token to the token
/// before `offset`, when `offset` is in the instruction's operand list on its line and past
/// the operand's first token: where XLA reports an operand it cannot read. Nested operands
/// belong to the outermost, as XLA reports the outermost first.
fn operand_before(source: &str, range: std::ops::Range<usize>, offset: usize) -> Option<ast::Span> {
    use token::Token;
    let before = source.get(range.start..offset)?;
    let line_start = before
        .rfind('\n')
        .map_or(range.start, |n| range.start + n + 1);
    let tokens = lexer::Lexer::with_range(source, line_start, range.end)
        .without_shortcuts()
        .without_whole_heads();
    let (mut depth, mut defines, mut opcode) = (0usize, false, false);
    // In the operand list: where the operand read so far starts and ends.
    let mut operand: Option<Option<ast::Span>> = None;
    for token in tokens {
        let (l, token, r) = token.ok()?;
        if l >= offset {
            let operand = operand??;
            return (operand.start < offset).then_some(operand);
        }
        let outer = depth;
        match token {
            Token::LParen | Token::LSquare | Token::LBrace | Token::LayoutBrace => depth += 1,
            Token::RParen | Token::RSquare | Token::RBrace => depth = depth.checked_sub(1)?,
            Token::BodyOpen | Token::BodyClose => return None,
            _ => {}
        }
        match operand.as_mut() {
            // The list has closed before `offset`.
            Some(_) if depth == 0 => return None,
            Some(current) if outer == 1 && token == Token::Comma => *current = None,
            Some(current) => {
                let start = current.map_or(l, |span| span.start);
                *current = Some(ast::Span::new(start, r));
            }
            None if outer == 0 => match token {
                Token::Equal | Token::DefName(_) | Token::DefIdent(_) => defines = true,
                Token::Call(_) => opcode = defines,
                Token::LParen if opcode => operand = Some(None),
                _ => opcode = false,
            },
            None => {}
        }
    }
    None
}

/// The first character of the token after `offset` (whitespace and comments skipped), or
/// the empty span at the end of the text: where XLA's parser stands once it has read the
/// text before `offset`, and so where it reports what it checks there.
pub fn token_after(source: &str, offset: usize) -> ast::Span {
    let rest = source.get(offset..).unwrap_or("");
    let start = offset + (rest.len() - fast_paths::skip_trivia(rest).len());
    let width = source
        .get(start..)
        .and_then(|t| t.chars().next())
        .map_or(0, char::len_utf8);
    ast::Span::new(start, start + width)
}

/// Splits text at `// -----` lines, as XLA's `--split-input-file` does. Returns the byte
/// range of each part; a part holding only whitespace and comments is left out.
pub fn split_modules(source: &str) -> Vec<std::ops::Range<usize>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        if line.trim_end().starts_with("// -----") && line.trim_start() == line {
            parts.push(start..offset);
            start = offset + line.len();
        }
        offset += line.len();
    }
    parts.push(start..source.len());
    parts.retain(|range| {
        source
            .get(range.clone())
            .is_some_and(|part| !fast_paths::skip_trivia(part).is_empty())
    });
    parts
}
