//! `hlo-layout check FILE... [--format text|json] [--split-input-file]`: parse, lower and
//! verify; report every error.

use serde_json::{Map, Value};

use super::{diagnostics, run_files, FileOutput, Header, Outcome, OutputArgs, Reading};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout check model.hlo other.hlo --format json | jq '.files[] | select(.ok | not)'\n\n\
Prints one line per file (`FILE: ok (N modules)` or `FILE: N errors`) and the diagnostics on \
stderr.\nExit codes: 0 every file is valid, 1 some file is invalid, 2 usage error."
)]
pub struct Args {
    /// HLO files to check; `-` reads standard input.
    #[arg(required = true)]
    files: Vec<String>,
    #[command(flatten)]
    output: OutputArgs,
    /// Read `// -----` lines as separators between modules, as XLA's tools do.
    #[arg(long)]
    split_input_file: bool,
}

pub fn run(args: Args) -> Outcome {
    run_files(
        "check",
        &args.files,
        &args.output,
        Header::None,
        Reading::Whole,
        |file, source| {
            let text = source.text();
            let parts = super::module_ranges(text, args.split_input_file);
            let modules = parts.len();
            let errors: Vec<hlo_layout::Error> = parts
                .into_iter()
                .filter_map(|range| check_module(text, range).err())
                .flatten()
                .collect();
            let mut json = Map::new();
            json.insert("modules".into(), Value::from(modules));
            if errors.is_empty() {
                let line = format!("{file}: ok ({modules} module{})\n", plural(modules));
                return FileOutput::success(line, json);
            }
            let n = errors.len();
            FileOutput {
                ok: false,
                text: format!("{file}: {n} error{}\n", plural(n)),
                json,
                diagnostics: diagnostics(file, text, errors),
                ..FileOutput::default()
            }
        },
    )
}

/// Parses, lowers and verifies one module: syntax errors first, then meaning.
fn check_module(text: &str, range: std::ops::Range<usize>) -> Result<(), Vec<hlo_layout::Error>> {
    let options = hlo_layout::verify::VerifyOptions::default();
    hlo_layout::check::check_module_range(text, range, &options)
}

/// "s" unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
