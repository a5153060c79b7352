//! `hlo-layout opt FILE|-... --passes a,b,fixpoint(c,d) [-o OUT] [--dump-dir D]
//! [--dump-pass-re RE] [--no-verify] [--timing]`: runs a pipeline of passes, as `hlo-opt`.

use std::path::PathBuf;

use hlo_layout::pass::{DumpOptions, PipelineOptions, DEFAULT_FIXPOINT_CAP};
use hlo_layout::passes::parse_pipeline;

use serde_json::{json, Map, Value};

use super::{
    diagnostics, report_errors, run_files, FileOutput, Format, Header, Outcome, OutputArgs, Reading,
};

/// The pipeline name in dump file names.
const PIPELINE: &str = "opt";

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout opt model.hlo --passes 'fixpoint(simplify-layout-ops,dce),verify' --timing\n\n\
Passes: see `hlo-layout passes`. Exit codes: 0 success, 1 invalid \
input or a pass failed or broke the module, 2 usage error (including a bad --passes)."
)]
pub struct Args {
    /// HLO files; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    files: Vec<String>,
    /// The pipeline: pass names separated by commas, `fixpoint(a,b)` groups repeated while
    /// they change the module, `name{flag}` for pass flags.
    #[arg(long, value_name = "PIPELINE")]
    passes: String,
    #[command(flatten)]
    output: OutputArgs,
    /// Write the module between passes to this directory, named as XLA names its dumps
    /// (`module_0000.<name>.0001.opt.after_<pass>.before_<next>.txt`).
    #[arg(long, value_name = "DIR")]
    dump_dir: Option<PathBuf>,
    /// Dump only around passes whose name matches this regex (default `.*`: every pass
    /// that changed the module, as XLA's `--xla_dump_hlo_pass_re`).
    #[arg(long, value_name = "RE", requires = "dump_dir")]
    dump_pass_re: Option<String>,
    /// Do not verify the input and the module after each pass that changed it.
    #[arg(long)]
    no_verify: bool,
    /// Print the time each pass took to standard error.
    #[arg(long)]
    timing: bool,
    /// The most iterations of a `fixpoint(...)` group; past it, a warning and on.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_FIXPOINT_CAP)]
    fixpoint_cap: usize,
    /// Read `// -----` lines as separators between modules, as XLA's tools do.
    #[arg(long)]
    split_input_file: bool,
}

pub fn run(args: Args) -> Outcome {
    let json_wanted = args.output.format == Format::Json;
    let spec = match parse_pipeline(&args.passes) {
        Ok(spec) => spec,
        Err(errors) => {
            report_errors("--passes", &args.passes, errors);
            return Outcome::Usage;
        }
    };
    let dump = match &args.dump_dir {
        None => None,
        Some(dir) => {
            let pattern = args.dump_pass_re.as_deref().unwrap_or(".*");
            match regex::Regex::new(pattern) {
                Ok(re) => Some(DumpOptions::new(dir, re)),
                Err(error) => {
                    eprintln!("error: invalid --dump-pass-re `{pattern}`: {error}");
                    return Outcome::Usage;
                }
            }
        }
    };
    // Dumps are numbered across every module of the run.
    let mut module_id = 0u32;
    run_files(
        "opt",
        &args.files,
        &args.output,
        Header::Comment,
        Reading::Pieces,
        |file, source| {
            let mut modules = Vec::new();
            if args.split_input_file {
                let text = match source.load() {
                    Ok(text) => text,
                    Err(diag) => return FileOutput::failure(vec![diag]),
                };
                let mut errors = Vec::new();
                for range in super::module_ranges(text, true) {
                    match hlo_layout::parse_module_range(text, range) {
                        Ok(module) => modules.push(module),
                        Err(found) => errors.extend(found),
                    }
                }
                if !errors.is_empty() {
                    return FileOutput::failure(diagnostics(file, text, errors));
                }
                // The modules hold all they need of the text; errors read it again.
                source.release();
            } else {
                match super::lower_source(file, source) {
                    Ok(module) => modules.push(module),
                    Err(diagnostics) => return FileOutput::failure(diagnostics),
                }
            }
            let mut notes = String::new();
            let mut warnings = Vec::new();
            let mut timings = Vec::new();
            let mut json_modules = Vec::new();
            for module in modules.iter_mut() {
                let options = PipelineOptions {
                    verify_after_change: !args.no_verify,
                    dump: dump.clone().map(|mut d| {
                        d.module_id = module_id;
                        d
                    }),
                    fixpoint_cap: args.fixpoint_cap,
                    ..PipelineOptions::default()
                };
                module_id = module_id.saturating_add(1);
                let mut pipeline = spec.instantiate(PIPELINE, options);
                match pipeline.run(module) {
                    Ok(report) => {
                        for warning in &report.warnings {
                            notes.push_str(&format!("warning: {warning}\n"));
                            warnings.push(Value::from(warning.to_string()));
                        }
                        if args.timing {
                            notes.push_str(&format!(
                                "timing: module {}, pipeline {}\n{}",
                                module.name,
                                pipeline.describe(),
                                report.timing
                            ));
                            for statistic in &report.statistics {
                                notes.push_str(&format!(
                                    "  {}: {} {}\n",
                                    statistic.pass, statistic.value, statistic.name
                                ));
                            }
                            timings.push(json!({
                                "module": module.name,
                                "passes": report.timing.entries().iter().map(|e| json!({
                                    "name": e.name,
                                    "runs": e.runs,
                                    "changed": e.changed,
                                    "milliseconds": e.total.as_secs_f64() * 1000.0,
                                })).collect::<Vec<_>>(),
                                "statistics": report.statistics,
                            }));
                        }
                    }
                    Err(error) => {
                        let mut output = FileOutput::failure(source.diagnostics(vec![error]));
                        output.notes = notes;
                        return output;
                    }
                }
                if json_wanted {
                    json_modules.push(
                        serde_json::to_value(hlo_layout::analysis::json::module_json(module))
                            .unwrap_or(Value::Null),
                    );
                }
            }
            let mut json = Map::new();
            json.insert("modules".into(), Value::Array(json_modules));
            json.insert("warnings".into(), Value::Array(warnings));
            if args.timing {
                json.insert("timing".into(), Value::Array(timings));
            }
            let mut output = FileOutput::success(String::new(), json);
            output.notes = notes;
            output.write = Some(Box::new(move |to| {
                let mut written = Ok(());
                for (index, module) in modules.iter().enumerate() {
                    if index > 0 {
                        written = written.and_then(|()| to.write_all(b"// -----\n\n"));
                    }
                    written = written.and_then(|()| super::write_module(module, to));
                }
                super::drop_aside(modules);
                written
            }));
            output
        },
    )
}
