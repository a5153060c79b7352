//! `hlo-layout fmt [FILE|-]... [-o OUT] [--split-input-file] [--format text|json]`:
//! canonical HLO text.

use serde_json::{Map, Value};

use super::{diagnostics, run_files, FileOutput, Format, Header, Outcome, OutputArgs, Reading};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout fmt examples/reshape_degenerate.hlo -o formatted.hlo\n\n\
With several files, each file's modules follow a `// ----- FILE` line, so the output reads \
back with --split-input-file.\n\
Exit codes: 0 success, 1 invalid input, 2 usage error."
)]
pub struct Args {
    /// HLO files to format; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    files: Vec<String>,
    #[command(flatten)]
    output: OutputArgs,
    /// Read `// -----` lines as separators between modules, as XLA's tools do.
    #[arg(long)]
    split_input_file: bool,
}

pub fn run(args: Args) -> Outcome {
    let json_wanted = args.output.format == Format::Json;
    // One module printed as text is formatted as it is read, a large file in pieces, and
    // written through a temporary file: neither its whole text nor its formatted copy is
    // held. Several modules, or JSON, take the whole text.
    let reading = match (args.split_input_file, json_wanted) {
        (false, false) => Reading::FormatPieces,
        _ => Reading::Whole,
    };
    run_files(
        "fmt",
        &args.files,
        &args.output,
        Header::Comment,
        reading,
        |file, source| {
            if reading == Reading::FormatPieces {
                if let Ok(mut spill) = tempfile::tempfile() {
                    return match source.format_in_pieces(&mut spill) {
                        Ok(Some(formatted)) => spilled_output(formatted, spill),
                        Ok(None) => {
                            let text = source.text();
                            format_spilling(file, text, 0..text.len(), spill)
                        }
                        Err(diag) => FileOutput::failure(vec![diag]),
                    };
                }
            }
            let text = match source.load() {
                Ok(text) => text,
                Err(diag) => return FileOutput::failure(vec![diag]),
            };
            let parts = super::module_ranges(text, args.split_input_file);
            let mut out = String::new();
            let mut modules = Vec::new();
            let mut errors = Vec::new();
            for (i, range) in parts.into_iter().enumerate() {
                match hlo_layout::format_module_range(text, range.clone()) {
                    Ok(module) => {
                        if i > 0 {
                            out.push_str("// -----\n\n");
                        }
                        // One module's text, the size of its input, is moved rather than
                        // copied.
                        if out.is_empty() && !json_wanted {
                            out = module;
                            continue;
                        }
                        out.push_str(&module);
                        // The JSON view needs the IR; a module that prints but does not lower
                        // is still formatted, with its text alone. Text output needs neither.
                        if json_wanted {
                            let json = match hlo_layout::parse_module_range(text, range) {
                                Ok(ir) => serde_json::to_value(
                                    hlo_layout::analysis::json::module_json(&ir),
                                )
                                .unwrap_or(Value::Null),
                                Err(_) => serde_json::json!({ "text": module }),
                            };
                            modules.push(json);
                        }
                    }
                    Err(found) => errors.extend(found),
                }
            }
            if !errors.is_empty() {
                return FileOutput::failure(diagnostics(file, text, errors));
            }
            let mut json = Map::new();
            json.insert("modules".into(), Value::Array(modules));
            FileOutput::success(out, json)
        },
    )
}

/// One module's formatted text, written to `spill` (a temporary file) as it is printed and
/// copied out from there, so that its input and its formatted copy are not held at once.
fn format_spilling(
    file: &str,
    text: &str,
    range: std::ops::Range<usize>,
    mut spill: std::fs::File,
) -> FileOutput {
    match hlo_layout::format_module_range_spilling(text, range, &mut spill) {
        Ok(formatted) => spilled_output(formatted, spill),
        Err(errors) => FileOutput::failure(diagnostics(file, text, errors)),
    }
}

/// The output of a module formatted through `spill`: copied out from there when written.
fn spilled_output(formatted: hlo_layout::SpilledText, mut spill: std::fs::File) -> FileOutput {
    if formatted.spilled == 0 {
        return FileOutput::success(formatted.tail, Map::new());
    }
    FileOutput {
        ok: true,
        write: Some(Box::new(move |to| formatted.write_to(&mut spill, to))),
        ..FileOutput::default()
    }
}
