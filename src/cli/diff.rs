//! `hlo-layout diff A B [--ignore-names] [-o OUT] [--format text|json]`: a structural diff
//! of two modules; exit 1 when they differ, as diff(1).

use hlo_layout::analysis::diff::{diff_modules, DiffOptions};
use serde_json::{json, Value};

use super::{
    color_for, diagnostics, json_text, read_input, write_output, Diag, Format, Outcome, OutputArgs,
    Stream, JSON_VERSION,
};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  hlo-layout assign model.hlo -o assigned.hlo\n  \
hlo-layout diff model.hlo assigned.hlo --ignore-names\n\n\
Instructions are matched by name (unless --ignore-names), then bottom-up from the parameters \
(opcode, shape, attributes and matched operands), then top-down from the root, as hlo_diff \
does. Lines: `-` only in A, `+` only in B, `~` in both but different (B's line, then each \
field as `A -> B`).\n\
Exit codes: 0 the modules are equal, 1 they differ or an input is invalid, 2 usage error."
)]
pub struct Args {
    /// The first module (`-` reads standard input).
    a: String,
    /// The second module (`-` reads standard input).
    b: String,
    /// Match and compare without names, so renamed instructions and computations are equal.
    #[arg(long)]
    ignore_names: bool,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: Args) -> Outcome {
    let mut diags: Vec<Diag> = Vec::new();
    let mut modules = Vec::new();
    for file in [&args.a, &args.b] {
        match read_input(file) {
            Err(diag) => diags.push(diag),
            Ok(text) => match hlo_layout::parse_module(&text) {
                Ok(module) => modules.push(module),
                Err(errors) => diags.extend(diagnostics(file, &text, errors)),
            },
        }
    }
    let [left, right] = modules.as_slice() else {
        return match args.output.format {
            Format::Json => {
                let document = json_text(&json!({
                    "version": JSON_VERSION,
                    "command": "diff",
                    "ok": false,
                    "a": args.a,
                    "b": args.b,
                    "diagnostics": diags.iter().map(|d| d.json().clone()).collect::<Vec<Value>>(),
                }));
                if let Some(path) = &args.output.output {
                    eprintln!(
                        "note: {} left unchanged: an input is invalid",
                        path.display()
                    );
                }
                let _ = write_output(None, &document);
                Outcome::InvalidInput
            }
            Format::Text => {
                for diag in &diags {
                    eprintln!("{}", diag.render());
                }
                Outcome::InvalidInput
            }
        };
    };
    let diff = diff_modules(
        left,
        right,
        DiffOptions {
            ignore_names: args.ignore_names,
        },
    );
    let out = match args.output.format {
        Format::Json => json_text(&json!({
            "version": JSON_VERSION,
            "command": "diff",
            "ok": true,
            "a": args.a,
            "b": args.b,
            "ignore_names": args.ignore_names,
            "equal": diff.equal,
            "diff": diff,
            "diagnostics": [],
        })),
        Format::Text => {
            let text = diff.to_text(&args.a, &args.b);
            if args.output.output.is_none() && color_for(Stream::Stdout) {
                colorize(&text)
            } else {
                text
            }
        }
    };
    if let Err(diag) = write_output(args.output.output.as_deref(), &out) {
        eprintln!("{}", diag.render());
        return Outcome::InvalidInput;
    }
    if diff.equal {
        Outcome::Success
    } else {
        Outcome::InvalidInput
    }
}

/// Colours a diff's lines as diff tools do: removed red, added green, changed yellow,
/// computation headers cyan.
fn colorize(text: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for line in text.split_inclusive('\n') {
        let color = if line.starts_with("--- ") || line.starts_with("+++ ") {
            Some(Style::new().bold())
        } else if line.starts_with("- ") {
            Some(AnsiColor::Red.on_default())
        } else if line.starts_with("+ ") {
            Some(AnsiColor::Green.on_default())
        } else if line.starts_with("~ ") {
            Some(AnsiColor::Yellow.on_default())
        } else if line.starts_with("@@ ") {
            Some(AnsiColor::Cyan.on_default())
        } else {
            None
        };
        match color {
            Some(style) => {
                let body = line.trim_end_matches('\n');
                out.push_str(&format!("{style}{body}{style:#}"));
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}
