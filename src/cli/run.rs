//! Running a command over its input files, the conventions the module above lists: each
//! file read (from disk or stdin) and handed to the command, a header per file when there
//! are several, continuing past failures, a progress bar, one JSON document for the run, OUT
//! written only when every file succeeded, and the outcome. Also [`drop_aside`], which a
//! file's work uses to free what it leaves behind without waiting for it. Every subcommand
//! that reads files runs through here; `main` only picks the subcommand.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::diagnostic::{plain, CliError, Diag};
use super::output::{json_text, write_output, AtomicFile};
use super::{input, Format, Outcome, OutputArgs, JSON_VERSION};

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

/// How `run_files` hands a file to the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Read whole.
    Whole,
    /// Left unread when large, for the command to lower in pieces
    /// ([`input::Source::lower_in_pieces`]) or read whole ([`input::Source::load`]).
    Pieces,
    /// Left unread when at least [`input::FORMAT_PIECE_BYTES`], for `fmt` to format in
    /// pieces ([`input::Source::format_in_pieces`]) or read whole.
    FormatPieces,
}

/// Runs `each` over `files` (each read from disk or stdin, as `reading` says) and handles
/// the conventions: a header per file when there are several, continuing past failures, a
/// progress bar, the JSON document, and OUT written only when every file succeeded.
pub fn run_files(
    command: &str,
    files: &[String],
    output: &OutputArgs,
    header: Header,
    reading: Reading,
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
        let piece_bytes = match reading {
            Reading::Whole => None,
            Reading::Pieces => Some(input::PIECES_MIN_BYTES),
            Reading::FormatPieces => Some(input::FORMAT_PIECE_BYTES),
        };
        let result = match input::Source::open(file, piece_bytes) {
            Ok(mut source) => each(file, &mut source),
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
