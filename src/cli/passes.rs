//! `hlo-layout passes [-o OUT] [--format text|json]`: every registered pass with its
//! one-line description and flags.

use std::fmt::Write;

use serde_json::json;

use super::{finish, json_text, Format, Outcome, OutputArgs, JSON_VERSION};

#[derive(clap::Args, Debug)]
#[command(after_help = "Example:\n  hlo-layout passes --format json | jq -r '.passes[].name'")]
pub struct Args {
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: Args) -> Outcome {
    let passes = hlo_layout::passes::all();
    let out = match args.output.format {
        Format::Json => json_text(&json!({
            "version": JSON_VERSION,
            "command": "passes",
            "ok": true,
            "passes": passes.iter().map(|info| json!({
                "name": info.name,
                "description": info.description,
                "flags": info.flags.iter().map(|(flag, what)| json!({
                    "name": flag,
                    "description": what,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })),
        Format::Text => {
            let width = passes.iter().map(|p| p.name.len()).max().unwrap_or(0);
            let mut out = String::new();
            for info in passes {
                let _ = writeln!(out, "{:<width$}  {}", info.name, info.description);
                for (flag, what) in info.flags {
                    let _ = writeln!(out, "{:<width$}    {{{flag}}}: {what}", "");
                }
            }
            out.push_str("\nRun them with `hlo-layout opt FILE --passes a,b,fixpoint(c,d)`.\n");
            out
        }
    };
    finish(&args.output, &out, 0, false)
}
