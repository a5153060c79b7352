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

/// The byte ranges of the modules of `text`: split at `// -----` lines when `split`, as the
/// command's `--split-input-file` does, else the whole text.
// One range, the whole text, is meant; the lint takes it for a range of elements.
#[allow(clippy::single_range_in_vec_init)]
pub fn module_ranges(text: &str, split: bool) -> Vec<std::ops::Range<usize>> {
    if split {
        hlo_layout::syntax::split_modules(text)
    } else {
        vec![0..text.len()]
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

/// What one run of the `hlo-layout` binary gave.
#[derive(Debug)]
pub struct Run {
    /// The arguments, for the transcript.
    pub args: Vec<String>,
    /// `None` when a signal ended the process.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Command, exit code, stdout and stderr in one text, the form every CLI snapshot takes.
    /// Times (`1.234 ms`) are replaced by `[time]`, the one thing that differs run to run.
    pub fn transcript(&self) -> String {
        let times = regex::Regex::new(r"\d+\.\d{3} ms").expect("a valid regex");
        format!(
            "$ hlo-layout {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            self.args.join(" "),
            self.code.map_or("signal".to_string(), |c| c.to_string()),
            times.replace_all(&self.stdout, "[time]"),
            times.replace_all(&self.stderr, "[time]"),
        )
    }
}

/// A run of the real `hlo-layout` binary to set up: from the checkout's directory, without
/// colour (`NO_COLOR=1`, no `CLICOLOR_FORCE`) and with empty stdin unless told otherwise.
pub struct Invocation {
    command: std::process::Command,
    args: Vec<String>,
    stdin: Vec<u8>,
}

/// The one way the tests run the binary: `hlo_layout(&["fmt", FILE]).stdin("...").run()`.
pub fn hlo_layout(args: &[&str]) -> Invocation {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hlo-layout"));
    command
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    Invocation {
        command,
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: Vec::new(),
    }
}

impl Invocation {
    pub fn stdin(mut self, text: &str) -> Invocation {
        self.stdin = text.as_bytes().to_vec();
        self
    }

    pub fn current_dir(mut self, directory: &Path) -> Invocation {
        self.command.current_dir(directory);
        self
    }

    pub fn env(mut self, name: &str, value: &str) -> Invocation {
        self.command.env(name, value);
        self
    }

    pub fn env_remove(mut self, name: &str) -> Invocation {
        self.command.env_remove(name);
        self
    }

    pub fn run(mut self) -> Run {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hlo-layout binary runs");
        let mut input = child.stdin.take().expect("stdin is piped");
        // A command that does not read stdin may close it first; that is fine.
        let _ = input.write_all(&self.stdin);
        drop(input);
        let output = child.wait_with_output().expect("the binary finishes");
        Run {
            args: self.args,
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

/// Snapshots `text` as `snapshots/<name>.snap`.
pub fn snapshot(name: &str, text: &str) {
    settings().bind(|| insta::assert_snapshot!(name, text));
}

/// A fresh empty directory for files a test writes.
pub fn scratch_directory(name: &str) -> PathBuf {
    let directory =
        std::env::temp_dir().join(format!("hlo-layout-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("temp dir is writable");
    directory
}

/// How far a text got through [`run_everything`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reached {
    /// Rejected by the parser or lowering.
    Rejected,
    /// Lowered, rejected by the verifier.
    Lowered,
    /// Verified; assignment refused it with an error.
    Verified,
    /// Verified, assigned, verified again in layout-sensitive mode, and the layout passes
    /// ran on the result.
    Assigned,
}

/// Checks that every diagnostic is clean: each label's span lies inside `source` on char
/// boundaries, and the diagnostic renders with miette (the first few, to bound the time).
pub fn clean_diagnostics<'a, E>(
    source: &str,
    errors: impl IntoIterator<Item = &'a E>,
) -> Result<(), String>
where
    E: miette::Diagnostic + 'a,
{
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(80);
    for (i, error) in errors.into_iter().enumerate() {
        let mut labels: Vec<miette::LabeledSpan> = error.labels().into_iter().flatten().collect();
        for related in error.related().into_iter().flatten() {
            labels.extend(related.labels().into_iter().flatten());
        }
        for label in labels {
            let (start, end) = (label.offset(), label.offset() + label.len());
            if end > source.len()
                || !source.is_char_boundary(start)
                || !source.is_char_boundary(end)
            {
                return Err(format!(
                    "diagnostic `{error}` has span {start}..{end} outside the input of {} bytes or \
                     inside a character",
                    source.len()
                ));
            }
        }
        if i < 8 {
            let mut out = String::new();
            handler
                .render_report(&mut out, WithSource { error, source }.as_dyn())
                .map_err(|e| format!("rendering `{error}`: {e}"))?;
        }
    }
    Ok(())
}

/// A diagnostic lent the source text, to render it as the CLI does.
struct WithSource<'a, E: ?Sized> {
    error: &'a E,
    source: &'a str,
}

impl<E: miette::Diagnostic + ?Sized> WithSource<'_, E> {
    fn as_dyn(&self) -> &dyn miette::Diagnostic {
        self
    }
}

impl<E: miette::Diagnostic + ?Sized> std::fmt::Debug for WithSource<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.error.to_string(), f)
    }
}

impl<E: miette::Diagnostic + ?Sized> std::fmt::Display for WithSource<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.error, f)
    }
}

impl<E: miette::Diagnostic + ?Sized> std::error::Error for WithSource<'_, E> {}

impl<E: miette::Diagnostic + ?Sized> miette::Diagnostic for WithSource<'_, E> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.error.code()
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.error.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.error.labels()
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn miette::Diagnostic> + 'b>> {
        self.error.related()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
}

/// Runs `text` through everything the library does with a module: fmt (twice: a fixed
/// point), parse and lower, verify in both modes, print the IR and read it back, and for a
/// module that verifies: assign for tpu-v5e, verify the result in layout-sensitive mode,
/// print and read it back, and run `simplify-layout-ops,dce,verify{layout-sensitive}` on
/// it. Every rejection must be a clean diagnostic ([`clean_diagnostics`]). Panics are the
/// caller's to catch; anything else wrong is the `Err`.
pub fn run_everything(text: &str) -> Result<Reached, String> {
    use hlo_layout::verify::{verify, VerifyOptions};
    // Checking one computation at a time must agree with checking the module whole
    // whenever it gives a verdict.
    let streamed = hlo_layout::check::check_computation_by_computation(
        text,
        0..text.len(),
        &VerifyOptions::default(),
    );
    let agrees = |valid: bool| match streamed {
        Some(verdict) if verdict != valid => Err(format!(
            "checking one computation at a time says {} where the whole module is {}",
            if verdict { "valid" } else { "invalid" },
            if valid { "valid" } else { "invalid" }
        )),
        _ => Ok(()),
    };
    match hlo_layout::format_module(text) {
        Ok(once) => {
            let twice = hlo_layout::format_module(&once)
                .map_err(|e| format!("fmt output does not parse: {e:?}"))?;
            if once != twice {
                return Err("fmt is not a fixed point".into());
            }
        }
        Err(errors) => clean_diagnostics(text, &errors)?,
    }
    let mut module = match hlo_layout::parse_module(text) {
        Ok(module) => module,
        Err(errors) => {
            clean_diagnostics(text, &errors)?;
            agrees(false)?;
            return Ok(Reached::Rejected);
        }
    };
    let sensitive = VerifyOptions {
        layout_sensitive: true,
    };
    if let Err(errors) = verify(&module, &sensitive) {
        clean_diagnostics(text, &errors)?;
    }
    if let Err(errors) = verify(&module, &VerifyOptions::default()) {
        clean_diagnostics(text, &errors)?;
        agrees(false)?;
        return Ok(Reached::Lowered);
    }
    agrees(true)?;
    let printed = hlo_layout::print::print_ir_module(&module);
    if let Err(errors) = hlo_layout::parse_module(&printed) {
        return Err(format!(
            "the printed IR does not parse:\n{}",
            render("printed", &printed, errors)
        ));
    }
    let target = hlo_layout::ir::Target::default_tpu();
    if let Err(error) = hlo_layout::assign::assign_layouts(&mut module, &target) {
        clean_diagnostics(text, [&error])?;
        return Ok(Reached::Verified);
    }
    if let Err(errors) = verify(&module, &sensitive) {
        return Err(format!("the assigned module does not verify: {errors:?}"));
    }
    let assigned = hlo_layout::print::print_ir_module(&module);
    if let Err(errors) = hlo_layout::parse_module(&assigned) {
        return Err(format!(
            "the assigned module's text does not parse:\n{}",
            render("assigned", &assigned, errors)
        ));
    }
    let spec =
        hlo_layout::passes::parse_pipeline("simplify-layout-ops,dce,verify{layout-sensitive}")
            .map_err(|e| format!("{e:?}"))?;
    let options = hlo_layout::pass::PipelineOptions {
        verify: sensitive,
        ..Default::default()
    };
    if let Err(error) = spec.instantiate("reliability", options).run(&mut module) {
        return Err(format!(
            "the layout passes fail on the assigned module: {error}"
        ));
    }
    Ok(Reached::Assigned)
}

/// A regression input from `tests/inputs/regressions` (each says what found it).
pub fn regression_input(name: &str) -> String {
    let path = format!(
        "{}/tests/inputs/regressions/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// How many instructions of `module` have each name, over all its computations.
pub fn name_counts(module: &hlo_layout::ir::Module) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for computation in module.computations() {
        for &id in computation.order() {
            *counts
                .entry(computation.instruction(id).name().to_string())
                .or_insert(0) += 1;
        }
    }
    counts
}

/// Names a pass made up are each used once in the whole module (issue 29), as XLA keeps
/// them: a name `after` has more often than `before` had it is one the pass made up, and
/// may be there once, and only if `before` had it nowhere. A name the input repeats in two
/// computations may stay repeated.
pub fn assert_made_up_names_unique(
    before: &std::collections::BTreeMap<String, usize>,
    after: &hlo_layout::ir::Module,
    what: &str,
) {
    for (name, count) in name_counts(after) {
        let had = before.get(&name).copied().unwrap_or(0);
        assert!(
            count <= had.max(1) && (had == 0 || count <= had),
            "{what}: `{name}` is used {count} times in the module, {had} before"
        );
    }
}

/// A spill that takes `room` bytes and then refuses every write, as a full disk does; the
/// write that crosses the limit takes part of its bytes first.
pub struct FullAfter {
    pub bytes: std::io::Cursor<Vec<u8>>,
    pub room: usize,
}

impl std::io::Write for FullAfter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let left = self.room.saturating_sub(self.bytes.get_ref().len());
        if left == 0 {
            return Err(std::io::Error::other("no space left on the device"));
        }
        self.bytes.write(&bytes[..bytes.len().min(left)])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Read for FullAfter {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        self.bytes.read(into)
    }
}

impl std::io::Seek for FullAfter {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.bytes.seek(to)
    }
}
