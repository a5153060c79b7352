//! The command line: argument parsing, reading inputs, rendering diagnostics, exit codes.
//!
//! Conventions every subcommand follows (see [`run_files`]):
//! - inputs are files or `-` for standard input; several files are processed in one call,
//!   with a header per file, continuing past failures (and a progress bar on a terminal's
//!   stderr when that takes more than a moment);
//! - results go to stdout or to `-o OUT`, written atomically (a temporary file beside OUT,
//!   renamed over it; an error or Ctrl-C leaves OUT as it was); diagnostics go to stderr;
//! - `--format json` prints one JSON document per invocation, `{"version": 1, ...}`, holding
//!   results and diagnostics alike;
//! - exit codes: 0 success; 1 invalid input, verification failure or a non-empty diff;
//!   2 usage error (clap's own code; with `--format json`, a JSON document saying so).

pub mod allocator;
mod assign;
mod check;
mod color;
mod diagnostic;
mod diff;
mod dot;
mod explain;
mod fmt;
mod input;
mod opt;
mod output;
mod passes;
mod stats;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{json, Map, Value};

use color::{color_for, use_color, Stream, COLOR};
use diagnostic::{diagnostics, install_diagnostic_handler, plain, report_errors, CliError, Diag};
use output::{install_interrupt_handler, json_text, write_atomically, write_output, AtomicFile};

/// The version of every JSON document's schema, `"version"` at its top.
pub const JSON_VERSION: u32 = 1;

#[derive(Parser, Debug)]
#[command(
    name = "hlo-layout",
    version,
    about = "XLA HLO shapes, tiled layouts and TPU layout assignment, without XLA",
    after_help = "Every command takes FILE or `-` (stdin), `-o OUT` (written atomically), \
`--format text|json` (one JSON document with \"version\": 1) and `--color`.\n\
Exit codes: 0 success, 1 invalid input, verification failure or a non-empty diff, 2 usage error.\n\n\
Example:\n  hlo-layout assign examples/reshape_degenerate.hlo --report"
)]
pub struct Cli {
    /// When to colour output; `auto` colours a terminal unless NO_COLOR is set (CLICOLOR_FORCE
    /// forces it).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Text or JSON output.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// `-o OUT` and `--format`, which every command takes.
#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Write the output to OUT instead of stdout: to a temporary file beside it, then renamed
    /// over it. On any error (or Ctrl-C) OUT is left as it was.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// `text` for people; `json` for programs: one document, `{"version": 1, ...}`, with the
    /// results and the diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Assign TPU (or CPU) layouts to every array, with bitcast or copy where they differ.
    Assign(assign::Args),
    /// Show where each element of a tiled array lives in memory.
    ///
    /// Prints a summary, the tiling steps, a grid of linear indices with tile borders, and
    /// memory in linear order (or JSON), and can draw an SVG. Dims are named x; y x; z y x; p z y x (as XLA's shapes document does), and d0 d1 ... from
    /// rank 5 on. Grids show the trailing two dims, at most 16x16 cells and 4 slices.
    Explain(explain::Args),
    /// Print HLO modules in XLA's canonical text.
    Fmt(fmt::Args),
    /// Parse, lower and verify HLO files and report every error.
    Check(check::Args),
    /// Run a pipeline of passes over a module (`--passes dce,fixpoint(a,b)`).
    Opt(opt::Args),
    /// List every registered pass with its description.
    Passes(passes::Args),
    /// Count instructions, arrays and bytes (logical and padded) per computation and module.
    Stats(stats::Args),
    /// Draw a computation, or an instruction's neighbourhood, as Graphviz DOT.
    Dot(dot::Args),
    /// Compare two modules structurally; exit 1 when they differ.
    Diff(diff::Args),
}

/// Outcome of a command, turned into the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// Invalid input, a verification failure or a non-empty diff (exit code 1).
    InvalidInput,
    /// A usage error found after clap's parsing (exit code 2).
    Usage,
}

pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(error),
    };
    let _ = COLOR.set(cli.color);
    install_diagnostic_handler(use_color(cli.color, Stream::Stderr));
    install_interrupt_handler();
    // Every command frees much of what it allocates while it is still far from done: the
    // lines the second parsing thread hands over, the input text, a module's copy, the
    // printer's chunks. Held for a while, those pages add up to the peak.
    allocator::purge_freed_memory_at_once();
    let outcome = match cli.command {
        Command::Assign(args) => assign::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Opt(args) => opt::run(args),
        Command::Passes(args) => passes::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Dot(args) => dot::run(args),
        Command::Diff(args) => diff::run(args),
    };
    match outcome {
        Outcome::Success => std::process::ExitCode::SUCCESS,
        Outcome::InvalidInput => std::process::ExitCode::from(1),
        Outcome::Usage => std::process::ExitCode::from(2),
    }
}

/// A command line clap rejects: its own text, unless the line asks for `--format json`, in
/// which case the one JSON document of the run carries it as a `usage` diagnostic. Help and
/// version requests are not errors and print as clap prints them.
fn usage_error(error: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let wants_json = args
        .windows(2)
        .any(|pair| pair[0] == "--format" && pair[1] == "json")
        || args.iter().any(|arg| arg == "--format=json");
    let informational = matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if informational || !wants_json {
        error.exit();
    }
    let command = args.iter().find(|arg| !arg.starts_with('-')).cloned();
    let message = error.render().to_string();
    let document = json_text(&json!({
        "version": JSON_VERSION,
        "command": command,
        "ok": false,
        "diagnostics": [{
            "code": "usage",
            "severity": "error",
            "message": message.trim_end(),
            "help": null,
            "labels": [],
        }],
    }));
    print!("{document}");
    std::process::ExitCode::from(2)
}

// ---- input and output ----

/// Drops `value` on a thread of its own: freeing a module of half a million instructions
/// takes a noticeable share of a command's time, and nothing needs to wait for it. The process
/// may end before it is done, which frees everything anyway.
pub fn drop_aside<T: Send + 'static>(value: T) {
    // When no thread can be had, the closure holding the value is dropped here instead.
    let _ = std::thread::Builder::new()
        .name("drop".into())
        // As deep as the library's own threads: a shape's drop recurses into its tuples.
        .stack_size(16 << 20)
        .spawn(move || drop(value));
}

/// The byte ranges of the modules of `text`: split at `// -----` lines with
/// `--split-input-file`, else the whole text.
// One range, the whole text, is meant; the lint takes it for a range of elements.
#[allow(clippy::single_range_in_vec_init)]
pub fn module_ranges(text: &str, split_input_file: bool) -> Vec<std::ops::Range<usize>> {
    if split_input_file {
        hlo_layout::syntax::split_modules(text)
    } else {
        vec![0..text.len()]
    }
}

/// Reads a file, or standard input for `-`, into memory.
pub fn read_input(file: &str) -> Result<String, Diag> {
    input::read(file)
}

// ---- running a command over files ----

/// Text-mode output written as it is produced rather than held whole (a printed module).
pub type WriteText = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()> + Send>;

/// What one input file gave.
#[derive(Default)]
pub struct FileOutput {
    pub ok: bool,
    /// Text-mode output (stdout or OUT).
    pub text: String,
    /// Text-mode output that follows `text`, written straight to stdout or OUT.
    pub write: Option<WriteText>,
    /// Text-mode notes for stderr (reports, timings, warnings).
    pub notes: String,
    /// JSON-mode fields of this file's object, beside `file`, `ok` and `diagnostics`.
    pub json: Map<String, Value>,
    pub diagnostics: Vec<Diag>,
}

impl FileOutput {
    pub fn success(text: String, json: Map<String, Value>) -> FileOutput {
        FileOutput {
            ok: true,
            text,
            json,
            ..FileOutput::default()
        }
    }

    pub fn failure(diagnostics: Vec<Diag>) -> FileOutput {
        FileOutput {
            ok: false,
            diagnostics,
            ..FileOutput::default()
        }
    }
}

/// How a file's text output is introduced when several files are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// `// ----- FILE`: a comment in HLO and DOT, and a module separator for
    /// `--split-input-file`, so the output still reads as modules.
    Comment,
    /// `==> FILE <==`, as head(1) does.
    Plain,
    /// The command's own lines name the file.
    None,
}

/// Runs `each` over `files` (each read from disk or stdin) and handles the conventions: a
/// header per file when there are several, continuing past failures, a progress bar, the
/// JSON document, and OUT written only when every file succeeded.
pub fn run_files(
    command: &str,
    files: &[String],
    output: &OutputArgs,
    header: Header,
    mut each: impl FnMut(&str, &mut input::Source) -> FileOutput,
) -> Outcome {
    let several = files.len() > 1;
    let mut progress = Progress::new(files.len());
    // Text for OUT goes to its temporary file as each input gives it; the file is renamed
    // over OUT only once every input succeeded. The first error writing it is kept for then.
    let mut out_file: Option<AtomicFile> = None;
    let mut out_error: Option<Diag> = None;
    let mut objects = Vec::with_capacity(files.len());
    let mut failed = 0;
    // Whether any file has given text output yet.
    let mut any_text = false;
    for file in files {
        progress.start(file);
        let result = match input::read(file) {
            Ok(text) => each(file, &mut input::Source::new(file, text)),
            Err(diag) => FileOutput::failure(vec![diag]),
        };
        if !result.ok {
            failed += 1;
        }
        match output.format {
            Format::Json => {
                let mut object = Map::new();
                object.insert("file".into(), Value::from(file.as_str()));
                object.insert("ok".into(), Value::from(result.ok));
                object.extend(result.json);
                object.insert(
                    "diagnostics".into(),
                    Value::Array(result.diagnostics.iter().map(Diag::json).cloned().collect()),
                );
                objects.push(Value::Object(object));
                if let Some(write) = result.write {
                    drop_aside(write);
                }
            }
            Format::Text => {
                progress.suspend(|| {
                    if several && !result.notes.is_empty() {
                        eprintln!("==> {file} <==");
                    }
                    eprint!("{}", result.notes);
                    for diag in &result.diagnostics {
                        eprintln!("{}", diag.render());
                    }
                });
                let has_text = !result.text.is_empty() || result.write.is_some();
                let introduction = match header {
                    _ if !several || !has_text => String::new(),
                    Header::Comment => format!("// ----- {file}\n"),
                    Header::Plain => {
                        format!("{}==> {file} <==\n", if any_text { "\n" } else { "" })
                    }
                    Header::None => String::new(),
                };
                any_text |= has_text;
                let write_all = |to: &mut dyn Write| {
                    to.write_all(introduction.as_bytes())?;
                    to.write_all(result.text.as_bytes())?;
                    match result.write {
                        Some(write) => write(to),
                        None => Ok(()),
                    }
                };
                match &output.output {
                    // Streamed as it comes, so a long run shows its progress.
                    None => {
                        let written = progress.suspend(|| write_all(&mut std::io::stdout().lock()));
                        if let Err(error) = written {
                            let diag = plain(CliError::Write {
                                file: "standard output".to_string(),
                                reason: error.to_string(),
                            });
                            eprintln!("{}", diag.render());
                            return Outcome::InvalidInput;
                        }
                    }
                    // OUT is left as it was once an input failed: nothing more is written.
                    Some(_) if failed > 0 || out_error.is_some() => out_file = None,
                    Some(path) => {
                        let written = match &mut out_file {
                            Some(file) => write_all(file),
                            None => AtomicFile::create(path).and_then(|mut file| {
                                let written = write_all(&mut file);
                                out_file = Some(file);
                                written
                            }),
                        };
                        if let Err(error) = written {
                            out_file = None;
                            out_error = Some(plain(CliError::Write {
                                file: path.display().to_string(),
                                reason: error.to_string(),
                            }));
                        }
                    }
                }
            }
        }
        progress.finish_one();
    }
    progress.done();
    match (output.format, &output.output) {
        (Format::Json, _) => {
            let document = json_text(&json!({
                "version": JSON_VERSION,
                "command": command,
                "ok": failed == 0,
                "files": objects,
            }));
            finish(output, &document, failed, false)
        }
        (Format::Text, None) => outcome(failed),
        (Format::Text, Some(_)) if failed > 0 => {
            drop(out_file);
            finish(output, "", failed, true)
        }
        (Format::Text, Some(path)) => {
            let committed = match (out_error, out_file) {
                (Some(diag), _) => Err(diag),
                (None, Some(file)) => file.commit().map_err(|error| {
                    plain(CliError::Write {
                        file: path.display().to_string(),
                        reason: error.to_string(),
                    })
                }),
                // No input gave any text: OUT is written empty.
                (None, None) => write_output(Some(path), ""),
            };
            match committed {
                Ok(()) => outcome(failed),
                Err(diag) => {
                    eprintln!("{}", diag.render());
                    Outcome::InvalidInput
                }
            }
        }
    }
}

/// Writes the output of a whole run: to OUT only when nothing failed (else OUT stays as it
/// was; a JSON document then goes to stdout, since it holds the diagnostics); text already
/// streamed to stdout is not written again.
pub fn finish(output: &OutputArgs, out: &str, failed: usize, streamed: bool) -> Outcome {
    let target = match (&output.output, failed) {
        (Some(path), 0) => Some(path.as_path()),
        (Some(path), _) => {
            eprintln!(
                "note: {} left unchanged: {failed} input{} failed",
                path.display(),
                if failed == 1 { "" } else { "s" }
            );
            if output.format == Format::Text {
                return Outcome::InvalidInput;
            }
            None
        }
        (None, _) if streamed => return outcome(failed),
        (None, _) => None,
    };
    if let Err(diag) = write_output(target, out) {
        match output.format {
            // A JSON reader gets the failure as a JSON document too, on stdout.
            Format::Json => {
                let command = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
                print!(
                    "{}",
                    json_text(&json!({
                        "version": JSON_VERSION,
                        "command": command,
                        "ok": false,
                        "diagnostics": [diag.json()],
                    }))
                );
            }
            Format::Text => eprintln!("{}", diag.render()),
        }
        return Outcome::InvalidInput;
    }
    outcome(failed)
}

fn outcome(failed: usize) -> Outcome {
    if failed == 0 {
        Outcome::Success
    } else {
        Outcome::InvalidInput
    }
}

/// A progress bar on stderr for runs over several files, drawn only on a terminal and only
/// once the run has taken more than a moment.
struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    bar: Option<indicatif::ProgressBar>,
    terminal: bool,
    /// [`PROGRESS_DELAY`], or `HLO_LAYOUT_PROGRESS_DELAY_MS` (for tests).
    delay: Duration,
}

/// How long a run goes before it shows a bar.
const PROGRESS_DELAY: Duration = Duration::from_millis(300);

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            started: Instant::now(),
            bar: None,
            terminal: total > 1 && std::io::stderr().is_terminal(),
            delay: std::env::var("HLO_LAYOUT_PROGRESS_DELAY_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .map_or(PROGRESS_DELAY, Duration::from_millis),
        }
    }

    fn start(&mut self, file: &str) {
        if self.bar.is_none() && self.terminal && self.started.elapsed() >= self.delay {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(self.total as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}")
            {
                bar.set_style(style);
            }
            bar.set_position(self.done as u64);
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_message(file.to_string());
        }
    }

    fn finish_one(&mut self) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
        }
    }

    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// "s" unless `n` is 1.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
