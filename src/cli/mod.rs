//! The command line: its arguments, `main`, which picks the subcommand, and exit codes.
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
//!
//! The rest has a file each: running a command over its files (`run`), reading them
//! (`input`), writing results (`output`), diagnostics (`diagnostic`), colour (`color`), the
//! allocator (`allocator`), and one file per subcommand.

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
mod run;
mod stats;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

// What `main` uses and what the subcommands share (they name it `super::X`).
use color::{color_for, use_color, Stream, COLOR};
use diagnostic::{diagnostics, install_diagnostic_handler, plain, report_errors, CliError, Diag};
use input::{module_ranges, read as read_input};
use output::{install_interrupt_handler, json_text, write_atomically, write_module, write_output};
use run::{drop_aside, finish, run_files, FileOutput, Header, Reading};

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
    allocator::purge_freed_memory_soon();
    hlo_layout::memory::set_release_freed_memory(allocator::return_freed_memory);
    // Layout assignment's copy of its input waits there, out of the peak, rather than in
    // memory (an unnamed file in `TMPDIR`, gone when closed).
    hlo_layout::memory::set_scratch_file(tempfile::tempfile);
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

/// A file's one module, lowered from its text in pieces when `run_files` left it unread
/// ([`run::Reading::Pieces`]), else from its whole text, which is then released (errors
/// read it again); or the diagnostics of its errors.
fn lower_source(
    file: &str,
    source: &mut input::Source,
) -> Result<hlo_layout::ir::Module, Vec<Diag>> {
    if let Some(module) = source.lower_in_pieces().map_err(|diag| vec![diag])? {
        return Ok(module);
    }
    let lowered = hlo_layout::parse_module(source.text())
        .map_err(|errors| diagnostics(file, source.text(), errors));
    source.release();
    lowered
}
