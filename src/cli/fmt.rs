//! `hlo-layout fmt [FILE|-] [-o OUT] [--split-input-file]`: canonical HLO text.

use std::path::PathBuf;

use super::{read_input, report_errors, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO file to format; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Write the result to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Read `// -----` lines as separators between modules, as XLA's tools do.
    #[arg(long)]
    split_input_file: bool,
}

pub fn run(args: Args) -> Outcome {
    let Some(text) = read_input(&args.file) else {
        return Outcome::InvalidInput;
    };
    let parts = if args.split_input_file {
        hlo_layout::syntax::split_modules(&text)
    } else {
        vec![0..text.len()]
    };
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut errors = Vec::new();
    for (i, range) in parts.into_iter().enumerate() {
        match hlo_layout::format_module_range(&text, range) {
            Ok(module) => {
                if i > 0 {
                    out.push_str("// -----\n\n");
                }
                out.push_str(&module);
            }
            Err(found) => errors.extend(found),
        }
    }
    if !errors.is_empty() {
        report_errors(&args.file, &text, errors);
        return Outcome::InvalidInput;
    }
    let written = match &args.output {
        Some(path) => {
            std::fs::write(path, out.as_bytes()).map_err(|e| (path.display().to_string(), e))
        }
        None => {
            use std::io::Write;
            std::io::stdout()
                .lock()
                .write_all(out.as_bytes())
                .map_err(|e| ("standard output".to_string(), e))
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
