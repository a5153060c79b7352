//! Helpers shared by the integration tests: snapshot settings, the corpus beside the
//! checkout, and diagnostics rendered the same way everywhere.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme, NamedSource, Report};

/// Snapshots live in the top-level `snapshots/` directory, named without the module path.
pub fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// `../shared/corpus/<folder>` beside the checkout, or `None` after saying why the test skips.
pub fn corpus_dir(folder: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(folder);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipping: ../shared/corpus not found ({} absent)",
            dir.display()
        );
        None
    }
}

/// The files of a corpus folder with the given extension, sorted.
pub fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

/// Renders diagnostics as a user sees them, without colour, 80 columns wide.
pub fn render<E>(name: &str, source: &str, errors: Vec<E>) -> String
where
    E: miette::Diagnostic + Send + Sync + 'static,
{
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(80);
    let mut out = String::new();
    for error in errors {
        let report =
            Report::new(error).with_source_code(NamedSource::new(name, source.to_string()));
        handler
            .render_report(&mut out, report.as_ref())
            .expect("rendering into a String cannot fail");
        out.push('\n');
    }
    out
}
