//! `hlo-layout stats FILE|-... [--assign [--target T]] [-o OUT] [--format text|json]`:
//! instruction counts, arrays by type, and logical against padded bytes.

use hlo_layout::ir::target::TARGET_NAMES;
use hlo_layout::ir::Target;
use serde_json::{Map, Value};

use super::{run_files, FileOutput, Format, Header, Outcome, OutputArgs, Reading};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout stats examples/reshape_degenerate.hlo --assign --target tpu-v5e\n\n\
Bytes count each buffer once (tuples, get-tuple-elements, bitcasts and callee parameters alias \
other buffers). Without --assign the layouts in the file are measured (no layout: no tiles, no \
padding).\nExit codes: 0 success, 1 invalid input, 2 usage error."
)]
pub struct Args {
    /// HLO modules; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    files: Vec<String>,
    /// Measure the layouts `hlo-layout assign` would give for `--target`, not those written.
    #[arg(long)]
    assign: bool,
    /// The target for `--assign`.
    #[arg(long, default_value = "tpu-v5e", requires = "assign", value_parser = clap::builder::PossibleValuesParser::new(TARGET_NAMES))]
    target: String,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: Args) -> Outcome {
    let target = Target::from_name(&args.target).unwrap_or_else(Target::default_tpu);
    let json_wanted = args.output.format == Format::Json;
    run_files(
        "stats",
        &args.files,
        &args.output,
        Header::Plain,
        Reading::Pieces,
        |file, source| {
            let mut module = match super::lower_source(file, source) {
                Ok(module) => module,
                Err(diagnostics) => return FileOutput::failure(diagnostics),
            };
            if args.assign {
                if let Err(error) = hlo_layout::assign::assign_layouts(&mut module, &target) {
                    return FileOutput::failure(source.diagnostics(vec![error]));
                }
            }
            let stats = hlo_layout::analysis::stats::module_stats(&module);
            super::drop_aside(module);
            let layouts = if args.assign {
                format!("layouts assigned for {}", target.name())
            } else {
                "layouts as written".to_string()
            };
            let mut json = Map::new();
            json.insert("layouts".into(), Value::from(layouts.clone()));
            json.insert(
                "target".into(),
                if args.assign {
                    Value::from(target.name())
                } else {
                    Value::Null
                },
            );
            // The JSON view of a big module's statistics is many times its text; build it
            // only when asked.
            if json_wanted {
                json.insert(
                    "stats".into(),
                    serde_json::to_value(&stats).unwrap_or(Value::Null),
                );
            }
            let text = format!("{layouts}\n{}", stats.to_text());
            FileOutput::success(text, json)
        },
    )
}
