//! The `--passes` language: `a,b{flag},fixpoint(c,d)`.
//!
//! ```text
//! pipeline := step (',' step)*
//! step     := 'fixpoint' '(' pipeline ')' | NAME ('{' NAME (',' NAME)* '}')?
//! NAME     := [A-Za-z0-9_.-]+
//! ```
//!
//! Spaces are allowed between tokens. Pass names and flags are checked against the
//! [registry](super::registry); an unknown name suggests the closest registered one.

use super::pipeline::{Pipeline, PipelineOptions, Step};
use super::registry::{PassInfo, Registry};
use crate::span::Span;

/// A problem in `--passes` text, with the span of the offending part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(hlo::pipeline::syntax))]
pub struct PipelineSyntaxError {
    /// What is wrong.
    pub message: String,
    /// The offending part of the `--passes` text.
    #[label("{label}")]
    pub span: Span,
    /// The label under that part.
    pub label: String,
    /// A suggestion, such as the registered name closest to an unknown one.
    #[help]
    pub help: Option<String>,
}

impl PipelineSyntaxError {
    fn new(span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        PipelineSyntaxError {
            message: message.into(),
            span,
            label: label.into(),
            help: None,
        }
    }

    fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// A parsed and checked pipeline, not yet instantiated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineSpec {
    /// The steps, in order.
    pub steps: Vec<StepSpec>,
}

/// One step of a [`PipelineSpec`], with the span of its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepSpec {
    /// A pass, with the flags written after it.
    Pass {
        /// The registered pass.
        info: PassInfo,
        /// Its flags, in the order written, each one the pass takes.
        flags: Vec<&'static str>,
        /// Where the step is written.
        span: Span,
    },
    /// `fixpoint(...)`: steps run again while any of them changes the module.
    Fixpoint {
        /// The steps of the group.
        steps: Vec<StepSpec>,
        /// Where the group is written.
        span: Span,
    },
}

impl PipelineSpec {
    /// Creates the passes into a pipeline named `name`.
    pub fn instantiate(&self, name: &str, options: PipelineOptions) -> Pipeline {
        let mut pipeline = Pipeline::with_options(name, options);
        for step in &self.steps {
            pipeline.add_step(step.instantiate());
        }
        pipeline
    }
}

impl StepSpec {
    fn instantiate(&self) -> Step {
        match self {
            StepSpec::Pass { info, flags, .. } => Step::Pass((info.create)(flags)),
            StepSpec::Fixpoint { steps, .. } => {
                Step::Fixpoint(steps.iter().map(StepSpec::instantiate).collect())
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    Name(&'a str),
    Open,
    Close,
    OpenBrace,
    CloseBrace,
    Comma,
    End,
}

impl Token<'_> {
    fn describe(self) -> String {
        match self {
            Token::Name(name) => format!("`{name}`"),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
            Token::OpenBrace => "`{`".into(),
            Token::CloseBrace => "`}`".into(),
            Token::Comma => "`,`".into(),
            Token::End => "the end".into(),
        }
    }
}

struct Parser<'a> {
    registry: &'a Registry,
    text: &'a str,
    position: usize,
    errors: Vec<PipelineSyntaxError>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
}

impl<'a> Parser<'a> {
    /// The next token and its span, without consuming it.
    fn peek(&self) -> Result<(Token<'a>, Span), PipelineSyntaxError> {
        let bytes = self.text.as_bytes();
        let mut start = self.position;
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        let Some(&b) = bytes.get(start) else {
            return Ok((Token::End, Span::new(start, start)));
        };
        let single = |token| Ok((token, Span::new(start, start + 1)));
        match b {
            b'(' => single(Token::Open),
            b')' => single(Token::Close),
            b'{' => single(Token::OpenBrace),
            b'}' => single(Token::CloseBrace),
            b',' => single(Token::Comma),
            b if is_name_byte(b) => {
                let mut end = start;
                while end < bytes.len() && is_name_byte(bytes[end]) {
                    end += 1;
                }
                Ok((Token::Name(&self.text[start..end]), Span::new(start, end)))
            }
            _ => {
                let width = self.text[start..].chars().next().map_or(1, char::len_utf8);
                Err(PipelineSyntaxError::new(
                    Span::new(start, start + width),
                    "unexpected character in the pipeline",
                    "not part of a pass name",
                )
                .with_help("pass names are letters, digits, `-`, `_` and `.`"))
            }
        }
    }

    fn next(&mut self) -> Result<(Token<'a>, Span), PipelineSyntaxError> {
        let (token, span) = self.peek()?;
        self.position = span.end;
        Ok((token, span))
    }

    fn require(&mut self, want: Token<'_>, context: &str) -> Result<Span, PipelineSyntaxError> {
        let (token, span) = self.next()?;
        if token == want {
            Ok(span)
        } else {
            Err(PipelineSyntaxError::new(
                span,
                format!(
                    "expected {} {context}, found {}",
                    want.describe(),
                    token.describe()
                ),
                format!("expected {}", want.describe()),
            ))
        }
    }

    /// `step (',' step)*`, up to (not including) `)` or the end.
    fn sequence(&mut self) -> Result<Vec<StepSpec>, PipelineSyntaxError> {
        let mut steps = vec![self.step()?];
        while self.peek()?.0 == Token::Comma {
            self.next()?;
            steps.push(self.step()?);
        }
        Ok(steps)
    }

    fn step(&mut self) -> Result<StepSpec, PipelineSyntaxError> {
        let (token, span) = self.next()?;
        let Token::Name(name) = token else {
            return Err(PipelineSyntaxError::new(
                span,
                format!("expected a pass name, found {}", token.describe()),
                "expected a pass name",
            ));
        };
        if name == "fixpoint" {
            self.require(Token::Open, "after `fixpoint`")
                .map_err(|e| e.with_help("a fixed-point group is written `fixpoint(a,b)`"))?;
            if self.peek()?.0 == Token::Close {
                let (_, close) = self.next()?;
                return Err(PipelineSyntaxError::new(
                    Span::new(span.start, close.end),
                    "a fixpoint group needs at least one pass",
                    "empty group",
                ));
            }
            let steps = self.sequence()?;
            let close = self
                .require(Token::Close, "to close `fixpoint(`")
                .map_err(|e| {
                    if e.span.start == self.text.len() {
                        // Nothing to point at past the end; point at the opener instead.
                        PipelineSyntaxError::new(
                            Span::new(span.start, span.end + 1),
                            "`fixpoint(` is never closed",
                            "opened here",
                        )
                        .with_help("close the group with `)`")
                    } else {
                        e
                    }
                })?;
            return Ok(StepSpec::Fixpoint {
                steps,
                span: Span::new(span.start, close.end),
            });
        }
        let info = self.registry.find(name).copied();
        if info.is_none() {
            let mut error = PipelineSyntaxError::new(
                span,
                format!("unknown pass `{name}`"),
                "not a registered pass",
            );
            error = match closest(self.registry, name) {
                Some(suggestion) => error.with_help(format!(
                    "did you mean `{suggestion}`? (`hlo-layout passes` lists them all)"
                )),
                None => error.with_help("`hlo-layout passes` lists the registered passes"),
            };
            self.errors.push(error);
        }
        let mut flags = Vec::new();
        let mut end = span.end;
        if self.peek()?.0 == Token::OpenBrace {
            self.next()?;
            loop {
                let (token, flag_span) = self.next()?;
                let Token::Name(flag) = token else {
                    return Err(PipelineSyntaxError::new(
                        flag_span,
                        format!("expected a pass option, found {}", token.describe()),
                        "expected an option name",
                    ));
                };
                if let Some(info) = info {
                    match info.flags.iter().find(|(f, _)| *f == flag) {
                        Some((known, _)) => flags.push(*known),
                        None => {
                            let known: Vec<String> =
                                info.flags.iter().map(|(f, _)| format!("`{f}`")).collect();
                            let help = if known.is_empty() {
                                format!("`{}` takes no options", info.name)
                            } else {
                                format!("`{}` takes {}", info.name, known.join(", "))
                            };
                            self.errors.push(
                                PipelineSyntaxError::new(
                                    flag_span,
                                    format!("unknown option `{flag}` for pass `{}`", info.name),
                                    "unknown option",
                                )
                                .with_help(help),
                            );
                        }
                    }
                }
                let (token, separator) = self.next()?;
                match token {
                    Token::Comma => continue,
                    Token::CloseBrace => {
                        end = separator.end;
                        break;
                    }
                    other => {
                        return Err(PipelineSyntaxError::new(
                            separator,
                            format!(
                                "expected `,` or `}}` in options, found {}",
                                other.describe()
                            ),
                            "expected `,` or `}`",
                        ))
                    }
                }
            }
        }
        Ok(match info {
            Some(info) => StepSpec::Pass {
                info,
                flags,
                span: Span::new(span.start, end),
            },
            // A placeholder; the error recorded above stops the parse before it is used.
            None => StepSpec::Fixpoint {
                steps: Vec::new(),
                span,
            },
        })
    }
}

impl Registry {
    /// Parses and checks `--passes` text against these passes; every unknown name is
    /// reported, but the first syntax error stops the parse. `passes::parse_pipeline` does
    /// it for the built-in passes.
    pub fn parse(&self, text: &str) -> Result<PipelineSpec, Vec<PipelineSyntaxError>> {
        parse_pipeline_in(self, text)
    }
}

fn parse_pipeline_in(
    registry: &Registry,
    text: &str,
) -> Result<PipelineSpec, Vec<PipelineSyntaxError>> {
    let mut parser = Parser {
        registry,
        text,
        position: 0,
        errors: Vec::new(),
    };
    let parsed = (|| {
        if parser.peek()?.0 == Token::End {
            return Err(PipelineSyntaxError::new(
                Span::new(0, text.len()),
                "the pipeline is empty",
                "no passes",
            )
            .with_help("write passes separated by commas, e.g. `dce,verify`"));
        }
        let steps = parser.sequence()?;
        let (token, span) = parser.next()?;
        if token != Token::End {
            let help = if token == Token::Close {
                "this `)` closes no `fixpoint(`"
            } else {
                "separate passes with `,`"
            };
            return Err(PipelineSyntaxError::new(
                span,
                format!("expected `,` or the end, found {}", token.describe()),
                "unexpected here",
            )
            .with_help(help));
        }
        Ok(steps)
    })();
    let mut errors = std::mem::take(&mut parser.errors);
    match parsed {
        Ok(steps) if errors.is_empty() => Ok(PipelineSpec { steps }),
        Ok(_) => Err(errors),
        Err(error) => {
            errors.push(error);
            errors.sort_by_key(|e| e.span.start);
            Err(errors)
        }
    }
}

/// The registered pass name closest to `name`: the nearest by edit distance when that is
/// close enough to be a typo, else one that `name` begins (`simplify` for
/// `simplify-layout-ops`).
fn closest(registry: &Registry, name: &str) -> Option<&'static str> {
    let (distance, best) = registry
        .passes()
        .iter()
        .map(|info| (edit_distance(name, info.name), info.name))
        .min()?;
    let limit = (name.chars().count().max(best.len()) / 3).max(1);
    if distance <= limit {
        return Some(best);
    }
    registry
        .passes()
        .iter()
        .map(|info| info.name)
        .find(|candidate| !name.is_empty() && candidate.starts_with(name))
}

/// Edit distance over chars where swapping two neighbours counts as one edit (optimal
/// string alignment), since `dec` for `dce` is the typical typo.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::parse_pipeline;

    fn shape(spec: &[StepSpec]) -> String {
        spec.iter()
            .map(|s| match s {
                StepSpec::Pass { info, flags, .. } if flags.is_empty() => info.name.to_string(),
                StepSpec::Pass { info, flags, .. } => {
                    format!("{}{{{}}}", info.name, flags.join(","))
                }
                StepSpec::Fixpoint { steps, .. } => format!("fixpoint({})", shape(steps)),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    #[test]
    fn nested_groups_and_flags() {
        let spec = parse_pipeline(
            " dce , fixpoint( simplify-layout-ops,fixpoint(dce)),verify{layout-sensitive}",
        )
        .unwrap();
        assert_eq!(
            shape(&spec.steps),
            "dce,fixpoint(simplify-layout-ops,fixpoint(dce)),verify{layout-sensitive}"
        );
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("dec", "dce"), 1);
        assert_eq!(closest(&Registry::builtin(), "dec"), Some("dce"));
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(closest(&Registry::builtin(), "verfy"), Some("verify"));
        assert_eq!(
            closest(&Registry::builtin(), "simplify"),
            Some("simplify-layout-ops")
        );
        assert_eq!(closest(&Registry::builtin(), "zzzzzzzz"), None);
    }
}
