//! Diagnostics as the command shows them: its own errors ([`CliError`]), and any error,
//! the library's or its own, made ready to print ([`Diag`]): the report rendered for stderr
//! with its source snippet, and its JSON form for `--format json`. Every subcommand and the
//! run over files produce them; how they are rendered is set here once, by `main`.

use miette::Diagnostic;
use serde_json::Value;

/// Errors of the command line itself; everything else comes from the library.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum CliError {
    #[error("cannot read {file}: {reason}")]
    #[diagnostic(code(hlo::cli::read))]
    Read { file: String, reason: String },
    #[error("{file} is not UTF-8 text (invalid byte at offset {offset})")]
    #[diagnostic(code(hlo::cli::utf8))]
    NotUtf8 { file: String, offset: usize },
    #[error("{file} changed while it was read")]
    #[diagnostic(code(hlo::cli::changed))]
    Changed { file: String },
    #[error("cannot write {file}: {reason}")]
    #[diagnostic(code(hlo::cli::write))]
    Write { file: String, reason: String },
}

/// A diagnostic ready to print: the report (with its source) for stderr, and its JSON form.
pub struct Diag {
    report: miette::Report,
    json: Value,
}

impl Diag {
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The report as the installed handler renders it (colour per `--color`).
    pub fn render(&self) -> String {
        format!("{:?}", self.report)
    }
}

/// Diagnostics about `source` (named `name`), each with its snippet and its JSON form: code,
/// severity, message, help, and every label with byte offset, length, 1-based line and column.
pub fn diagnostics<E>(name: &str, source: &str, errors: Vec<E>) -> Vec<Diag>
where
    E: Diagnostic + Send + Sync + 'static,
{
    errors
        .into_iter()
        .map(|error| {
            let json = hlo_layout::diagnostic::to_json(&error, Some(source));
            let report = miette::Report::new(error)
                .with_source_code(miette::NamedSource::new(name, source.to_string()));
            Diag { report, json }
        })
        .collect()
}

/// A diagnostic with no source text to point into.
pub fn plain<E>(error: E) -> Diag
where
    E: Diagnostic + Send + Sync + 'static,
{
    let json = hlo_layout::diagnostic::to_json(&error, None);
    Diag {
        report: miette::Report::new(error),
        json,
    }
}

/// Prints each diagnostic to stderr with its source snippet.
pub fn report_errors<E>(source_name: &str, source: &str, errors: Vec<E>)
where
    E: miette::Diagnostic + Send + Sync + 'static,
{
    for diag in diagnostics(source_name, source, errors) {
        eprintln!("{}", diag.render());
    }
}

pub(super) fn install_diagnostic_handler(color: bool) {
    // Setting the hook only fails if it was already set, which cannot happen here.
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(hlo_layout::diagnostic::handler(color))
    }));
}
