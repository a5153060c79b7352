//! `hlo-layout check FILE... [--format text|json]`: parse, lower and verify; report every
//! error.

use miette::Diagnostic;

use super::{read_input, report_errors, Format, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// HLO files to check; `-` reads standard input.
    #[arg(required = true)]
    files: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Read `// -----` lines as separators between modules, as XLA's tools do.
    #[arg(long)]
    split_input_file: bool,
}

/// One file's result, as `--format json` prints it.
#[derive(serde::Serialize)]
struct FileReport {
    file: String,
    valid: bool,
    modules: usize,
    errors: Vec<ErrorReport>,
}

#[derive(serde::Serialize)]
struct ErrorReport {
    code: Option<String>,
    message: String,
    help: Option<String>,
    /// Byte offset and length of the first label, and its 1-based line and column.
    offset: Option<usize>,
    length: Option<usize>,
    line: Option<usize>,
    column: Option<usize>,
}

pub fn run(args: Args) -> Outcome {
    let mut reports = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let report = check_file(file, args.split_input_file, args.format);
        if args.format == Format::Text {
            if report.valid {
                println!(
                    "{file}: ok ({} module{})",
                    report.modules,
                    plural(report.modules)
                );
            } else {
                let n = report.errors.len();
                println!("{file}: {n} error{}", plural(n));
            }
        }
        reports.push(report);
    }
    if args.format == Format::Json {
        match serde_json::to_string_pretty(&reports) {
            Ok(json) => println!("{json}"),
            Err(error) => eprintln!("error: {error}"),
        }
    }
    if reports.iter().all(|r| r.valid) {
        Outcome::Success
    } else {
        Outcome::InvalidInput
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn check_file(file: &str, split: bool, format: Format) -> FileReport {
    let Some(text) = read_input(file) else {
        return FileReport {
            file: file.to_string(),
            valid: false,
            modules: 0,
            errors: vec![ErrorReport {
                code: None,
                message: "cannot read the file".into(),
                help: None,
                offset: None,
                length: None,
                line: None,
                column: None,
            }],
        };
    };
    let parts = if split {
        hlo_layout::syntax::split_modules(&text)
    } else {
        vec![0..text.len()]
    };
    let modules = parts.len();
    let errors: Vec<hlo_layout::Error> = parts
        .into_iter()
        .filter_map(|range| check_module(&text, range).err())
        .flatten()
        .collect();
    let reports: Vec<ErrorReport> = errors.iter().map(|e| error_report(&text, e)).collect();
    if format == Format::Text && !errors.is_empty() {
        report_errors(file, &text, errors);
    }
    FileReport {
        file: file.to_string(),
        valid: reports.is_empty(),
        modules,
        errors: reports,
    }
}

/// Parses, prints, lowers and verifies one module: syntax errors first, then meaning.
fn check_module(text: &str, range: std::ops::Range<usize>) -> Result<(), Vec<hlo_layout::Error>> {
    hlo_layout::format_module_range(text, range.clone())?;
    let module = hlo_layout::parse_module_range(text, range)?;
    hlo_layout::verify::verify(&module, &hlo_layout::verify::VerifyOptions::default())
        .map_err(|errors| errors.into_iter().map(hlo_layout::Error::from).collect())
}

fn error_report(text: &str, error: &hlo_layout::Error) -> ErrorReport {
    let label = error.labels().and_then(|mut labels| labels.next());
    let offset = label.as_ref().map(|l| l.offset());
    let (line, column) = match offset.and_then(|o| text.get(..o)) {
        Some(before) => {
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            (Some(line), Some(before.len() - line_start + 1))
        }
        None => (None, None),
    };
    ErrorReport {
        code: error.code().map(|c| c.to_string()),
        message: error.to_string(),
        help: error.help().map(|h| h.to_string()),
        offset,
        length: label.as_ref().map(|l| l.len()),
        line,
        column,
    }
}
