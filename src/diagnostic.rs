//! Diagnostics as programs and people read them: the JSON object every `--format json`
//! document carries, and (with the `render` feature) the text the command prints on stderr.
//! The command and the Python package both use these, so the two never differ.

use miette::Diagnostic;
use serde_json::{json, Value};

/// A diagnostic as JSON: code, severity, message, help, and every label with its byte
/// offset, length, 1-based line and column (null without `source` to count them in).
pub fn to_json(error: &dyn Diagnostic, source: Option<&str>) -> Value {
    let severity = match error.severity().unwrap_or(miette::Severity::Error) {
        miette::Severity::Advice => "advice",
        miette::Severity::Warning => "warning",
        miette::Severity::Error => "error",
    };
    let labels: Vec<Value> = error
        .labels()
        .into_iter()
        .flatten()
        .map(|label| {
            let offset = label.offset();
            let (line, column) = match source.and_then(|s| s.get(..offset)) {
                Some(before) => {
                    let line = before.matches('\n').count() + 1;
                    let start = before.rfind('\n').map_or(0, |i| i + 1);
                    (Some(line), Some(before[start..].chars().count() + 1))
                }
                None => (None, None),
            };
            json!({
                "label": label.label(),
                "offset": offset,
                "length": label.len(),
                "line": line,
                "column": column,
            })
        })
        .collect();
    json!({
        "code": error.code().map(|c| c.to_string()),
        "severity": severity,
        "message": error.to_string(),
        "help": error.help().map(|h| h.to_string()),
        "labels": labels,
    })
}

/// The handler that renders diagnostics as the command prints them: 100 columns, no
/// terminal links, Unicode and colour only when `color` is set.
#[cfg(feature = "render")]
pub fn handler(color: bool) -> miette::MietteHandler {
    miette::MietteHandlerOpts::new()
        .color(color)
        .unicode(color)
        .terminal_links(false)
        .width(100)
        .build()
}

/// `error` rendered by [`handler`]`(color)` with its snippet of `source`, named `name`, as the
/// command prints it on stderr.
#[cfg(feature = "render")]
pub fn render<E>(error: E, name: &str, source: &str, color: bool) -> String
where
    E: Diagnostic + Send + Sync + 'static,
{
    let report = miette::Report::new(error)
        .with_source_code(miette::NamedSource::new(name, source.to_string()));
    render_report(&report, color)
}

/// A report rendered by [`handler`]`(color)`.
#[cfg(feature = "render")]
pub fn render_report(report: &miette::Report, color: bool) -> String {
    struct Rendered<'a>(&'a miette::Report, miette::MietteHandler);
    impl std::fmt::Display for Rendered<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            use miette::ReportHandler;
            let diagnostic: &dyn Diagnostic = self.0.as_ref();
            self.1.debug(diagnostic, f)
        }
    }
    Rendered(report, handler(color)).to_string()
}
