//! The command line: argument parsing, reading inputs, rendering diagnostics, exit codes.
//!
//! Exit codes: 0 success; 1 invalid input (any diagnostic of severity error); 2 usage error
//! (clap's own code). Results go to stdout, diagnostics to stderr.

mod assign;
mod check;
mod explain;
mod fmt;
mod opt;
mod passes;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "hlo-layout",
    version,
    about = "XLA HLO shapes, tiled layouts and TPU layout assignment, without XLA",
    after_help = "Exit codes: 0 success, 1 invalid input, 2 usage error."
)]
pub struct Cli {
    /// When to colour diagnostics; `auto` honours NO_COLOR and whether stderr is a terminal.
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
    /// Parse HLO files and report every error.
    Check(check::Args),
    /// Run a pipeline of passes over a module (`--passes dce,fixpoint(a,b)`).
    Opt(opt::Args),
    /// List every registered pass with its description.
    Passes(passes::Args),
}

/// Outcome of a command, turned into the exit code.
pub enum Outcome {
    Success,
    InvalidInput,
    /// A usage error found after clap's parsing (exit code 2).
    Usage,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    install_diagnostic_handler(cli.color);
    let outcome = match cli.command {
        Command::Assign(args) => assign::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Opt(args) => opt::run(args),
        Command::Passes(args) => passes::run(args),
    };
    match outcome {
        Outcome::Success => ExitCode::SUCCESS,
        Outcome::InvalidInput => ExitCode::from(1),
        Outcome::Usage => ExitCode::from(2),
    }
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    }
}

fn install_diagnostic_handler(choice: ColorChoice) {
    let color = use_color(choice);
    // Setting the hook only fails if it was already set, which cannot happen here.
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .color(color)
                .unicode(color)
                .terminal_links(false)
                .width(100)
                .build(),
        )
    }));
}

/// Prints each diagnostic to stderr with its source snippet.
pub fn report_errors<E>(source_name: &str, source: &str, errors: Vec<E>)
where
    E: miette::Diagnostic + Send + Sync + 'static,
{
    for error in errors {
        let report = miette::Report::new(error)
            .with_source_code(miette::NamedSource::new(source_name, source.to_string()));
        eprintln!("{report:?}");
    }
}

/// Writes `text` to `output`, or to standard output when there is none. A file is written
/// to a temporary file beside it and renamed, so a failure never leaves it half written.
pub fn write_output(output: Option<&std::path::Path>, text: &str) -> Outcome {
    use std::io::Write;
    let written = match output {
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| ("standard output".to_string(), e)),
        Some(path) => {
            let mut temporary = path.as_os_str().to_owned();
            temporary.push(format!(".tmp{}", std::process::id()));
            let temporary = std::path::PathBuf::from(temporary);
            std::fs::write(&temporary, text.as_bytes())
                .and_then(|()| std::fs::rename(&temporary, path))
                .map_err(|e| {
                    let _ = std::fs::remove_file(&temporary);
                    (path.display().to_string(), e)
                })
        }
    };
    match written {
        Ok(()) => Outcome::Success,
        Err((target, error)) => {
            eprintln!("error: cannot write {target}: {error}");
            Outcome::InvalidInput
        }
    }
}

/// Reads a file, or standard input for `-`. Says why on stderr when it cannot.
pub fn read_input(file: &str) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    if let Err(error) = read {
        eprintln!("error: cannot read {file}: {error}");
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            eprintln!("error: {file} is not UTF-8 text (invalid byte at offset {offset})");
            None
        }
    }
}
