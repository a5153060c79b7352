//! `hlo-layout assign FILE|-... [--target T] [--entry-layouts given|auto] [-o OUT] [--report]
//! [--format text|json]`.

use hlo_layout::assign::{
    assign_verified_lowering_again, AssignAgainFailure, AssignFailure, AssignOptions, EntryLayouts,
};
use hlo_layout::ir::target::TARGET_NAMES;
use hlo_layout::ir::Target;
use serde_json::{Map, Value};

use super::{run_files, FileOutput, Format, Header, Outcome, OutputArgs, Reading};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout assign examples/reshape_degenerate.hlo --target tpu-v5e --report\n\n\
Exit codes: 0 success, 1 invalid input (or an assigned module that does not verify), 2 usage error."
)]
pub struct Args {
    /// HLO modules; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    files: Vec<String>,
    /// The target whose layouts to assign.
    #[arg(long, default_value = "tpu-v5e", value_parser = clap::builder::PossibleValuesParser::new(TARGET_NAMES))]
    target: String,
    /// Where the entry computation's layouts come from: as the module gives them, or chosen
    /// by the pass like every other array (as for JAX's `Layout.AUTO`) and written into
    /// `entry_computation_layout`.
    #[arg(long, value_enum, default_value = "given")]
    entry_layouts: EntryLayoutsArg,
    #[command(flatten)]
    output: OutputArgs,
    /// Summarise copies, bitcasts and padding on stderr (with `--format json` the report is
    /// always in the document).
    #[arg(long)]
    report: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EntryLayoutsArg {
    Given,
    Auto,
}

pub fn run(args: Args) -> Outcome {
    let target = Target::from_name(&args.target).unwrap_or_else(Target::default_tpu);
    let options = AssignOptions {
        entry_layouts: match args.entry_layouts {
            EntryLayoutsArg::Given => EntryLayouts::Given,
            EntryLayoutsArg::Auto => EntryLayouts::Auto,
        },
        ..AssignOptions::default()
    };
    let json_wanted = args.output.format == Format::Json;
    run_files(
        "assign",
        &args.files,
        &args.output,
        Header::Comment,
        Reading::Pieces,
        |file, source| {
            let module = match super::lower_source(file, source) {
                Ok(module) => module,
                Err(diagnostics) => return FileOutput::failure(diagnostics),
            };
            // The input is lowered again from the file rather than copied: one module at a
            // time, never two.
            let again = || source.lower_again();
            let assigned = assign_verified_lowering_again(module, again, &target, &options);
            let (module, report) = match assigned {
                Ok(assigned) => assigned,
                Err(AssignAgainFailure::Again(diag)) => return FileOutput::failure(vec![diag]),
                Err(AssignAgainFailure::Assign(AssignFailure::Input(errors))) => {
                    return FileOutput::failure(source.diagnostics(errors))
                }
                Err(AssignAgainFailure::Assign(AssignFailure::Assign(error))) => {
                    return FileOutput::failure(source.diagnostics(vec![error]))
                }
                Err(AssignAgainFailure::Assign(AssignFailure::Output(errors))) => {
                    let mut output = FileOutput::failure(source.diagnostics(errors));
                    output.notes =
                        "error: the assigned module does not verify; this is a bug in hlo-layout\n"
                            .into();
                    return output;
                }
            };
            let mut json = Map::new();
            // The JSON view of a big module is many times its text; build it only when asked.
            if json_wanted {
                json.insert(
                    "modules".into(),
                    Value::Array(vec![serde_json::to_value(
                        hlo_layout::analysis::json::module_json(&module),
                    )
                    .unwrap_or(Value::Null)]),
                );
            }
            json.insert(
                "report".into(),
                serde_json::to_value(&report).unwrap_or(Value::Null),
            );
            let mut output = FileOutput::success(String::new(), json);
            if args.report {
                output.notes = report.to_text();
            }
            output.write = Some(Box::new(move |to| {
                let written = super::write_module(&module, to);
                super::drop_aside(module);
                written
            }));
            output
        },
    )
}
