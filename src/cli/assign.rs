//! `hlo-layout assign FILE|- [--target T] [-o OUT] [--report] [--format text|json]`.

use std::path::PathBuf;

use hlo_layout::ir::target::TARGET_NAMES;
use hlo_layout::ir::Target;

use super::{read_input, report_errors, write_output, Format, Outcome};

#[derive(clap::Args, Debug)]
#[command(after_help = "Example:\n  hlo-layout assign examples/mlp.hlo --target tpu-v5e --report")]
pub struct Args {
    /// The HLO module; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    file: String,
    /// The target whose layouts to assign.
    #[arg(long, default_value = "tpu-v5e", value_parser = clap::builder::PossibleValuesParser::new(TARGET_NAMES))]
    target: String,
    /// Write the module to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Summarise copies, bitcasts and padding on stderr (or, with `--format json`, print one
    /// JSON document instead of the module).
    #[arg(long)]
    report: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: Args) -> Outcome {
    let Some(text) = read_input(&args.file) else {
        return Outcome::InvalidInput;
    };
    let mut module = match hlo_layout::parse_module(&text) {
        Ok(module) => module,
        Err(errors) => {
            report_errors(&args.file, &text, errors);
            return Outcome::InvalidInput;
        }
    };
    let target = Target::from_name(&args.target).unwrap_or_else(Target::default_tpu);
    let report = match hlo_layout::assign::assign_layouts(&mut module, &target) {
        Ok(report) => report,
        Err(error) => {
            report_errors(&args.file, &text, vec![error]);
            return Outcome::InvalidInput;
        }
    };
    let printed = hlo_layout::print::print_ir_module(&module);
    let options = hlo_layout::verify::VerifyOptions {
        layout_sensitive: true,
    };
    if let Err(errors) = hlo_layout::verify::verify(&module, &options) {
        eprintln!("error: the assigned module does not verify; this is a bug in hlo-layout");
        report_errors(&args.file, &text, errors);
        return Outcome::InvalidInput;
    }
    let out = match args.format {
        Format::Json => {
            let document = serde_json::json!({
                "version": 1,
                "module": printed,
                "report": report,
            });
            serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
        }
        Format::Text => {
            if args.report {
                eprint!("{}", report.to_text());
            }
            printed
        }
    };
    write_output(args.output.as_deref(), &out)
}
