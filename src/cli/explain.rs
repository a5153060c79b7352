//! `hlo-layout explain SHAPE`: what a tiled layout does, in text, JSON or SVG.
//!
//! Dims are named `x`; `y x`; `z y x`; `p z y x` as XLA's shapes document names them, and
//! `d0 d1 ...` from rank 5 on. Pictures show the trailing two logical dims as 2-D slices, cut
//! to at most 16x16 cells and 4 slices, with a note saying so.

mod picture;
mod render_svg;
mod render_text;

use std::path::PathBuf;

use hlo_layout::explain::{ExplainError, Explained, Source};

use super::{
    diagnostics, finish, json_text, plain, read_input, write_atomically, CliError, Diag, Format,
    Outcome, OutputArgs, JSON_VERSION,
};
use picture::{Grid, MemoryStrip, MAX_GRID_SIDE};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  hlo-layout explain 'bf16[4,8]{1,0:T(2,4)(2,1)}' --index 2,3\n  \
hlo-layout explain 'f32[3,5]{1,0:T(2,2)}' --svg figure.svg\n\n\
Exit codes: 0 success, 1 invalid input (the shape, --index or --padded-dimensions), 2 usage error."
)]
pub struct Args {
    /// An array shape with its layout, e.g. 'bf16[4,8]{1,0:T(2,4)(2,1)}'; `-` reads it from
    /// standard input.
    shape: String,
    /// Show where this element lives, e.g. `--index 2,3`.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "I,J,..",
        // One element per run: a second `--index` is an error, not more coordinates.
        action = clap::ArgAction::Set
    )]
    index: Option<Vec<i64>>,
    #[command(flatten)]
    output: OutputArgs,
    /// Also draw the array coloured by tile, and memory beneath it, as an SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Pad each logical dim to these sizes first, as the legacy `padded_dimensions` of XLA's
    /// "Shapes and layout" document did (pad cells hold zero).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "A,B,.."
    )]
    padded_dimensions: Option<Vec<i64>>,
}

/// The diagnostics of a failure, printed by [`run`] as `--format` asks.
struct Reported(Vec<Diag>);

pub fn run(mut args: Args) -> Outcome {
    let explained = match args.shape.as_str() {
        // The shape from standard input, as every command reads `-`.
        "-" => match read_input("-") {
            Ok(text) => {
                args.shape = text.trim().to_string();
                explain(&args)
            }
            Err(diag) => Err(Reported(vec![diag])),
        },
        _ => explain(&args),
    };
    match explained {
        Ok(out) => finish(&args.output, &out, 0, false),
        Err(Reported(diags)) => match args.output.format {
            Format::Json => {
                let document = json_text(&serde_json::json!({
                    "version": JSON_VERSION,
                    "command": "explain",
                    "ok": false,
                    "diagnostics": diags.iter().map(|d| d.json().clone()).collect::<Vec<_>>(),
                }));
                finish(&args.output, &document, 1, false)
            }
            Format::Text => {
                for diag in &diags {
                    eprintln!("{}", diag.render());
                }
                finish(&args.output, "", 1, true)
            }
        },
    }
}

fn explain(args: &Args) -> Result<String, Reported> {
    let explained = hlo_layout::explain::explain(
        &args.shape,
        args.index.as_deref(),
        args.padded_dimensions.as_deref(),
    )
    .map_err(|failure| {
        let name = match failure.source {
            Source::Shape => "SHAPE",
            Source::Index => "--index",
            Source::PaddedDimensions => "--padded-dimensions",
        };
        Reported(diagnostics(name, &failure.text, failure.errors))
    })?;
    let Explained {
        shape,
        padding,
        memory,
        element,
    } = &explained;
    let element = element
        .as_ref()
        .map(|element| (element.index.as_slice(), &element.traces, element.linear));
    let focus = element.as_ref().map(|(index, _, _)| *index);
    let focus_linear = element.as_ref().map(|(_, _, linear)| *linear);

    if let Some(path) = &args.svg {
        let grid = Grid::build(memory, focus, MAX_GRID_SIDE).map_err(internal)?;
        let strip = MemoryStrip::build(memory, render_svg::MAX_MEMORY_SLOTS, focus_linear)
            .map_err(internal)?;
        let svg = render_svg::render(&render_svg::Drawing {
            shape,
            memory,
            grid: &grid,
            strip: &strip,
            marked_linear: focus_linear,
        });
        write_atomically(path, svg.as_bytes()).map_err(|error| {
            Reported(vec![plain(CliError::Write {
                file: path.display().to_string(),
                reason: error.to_string(),
            })])
        })?;
        eprintln!("wrote {}", path.display());
    }

    match args.output.format {
        Format::Json => {
            let mut json = explained.to_json();
            json.insert("version".into(), JSON_VERSION.into());
            json.insert("command".into(), "explain".into());
            json.insert("ok".into(), true.into());
            Ok(json_text(&serde_json::Value::Object(json)))
        }
        Format::Text => {
            let mut grid = Grid::build(memory, focus, MAX_GRID_SIDE).map_err(internal)?;
            let fitting = render_text::columns_that_fit(&grid);
            if fitting < grid.cols.len {
                // Fewer columns only lower the largest index drawn, so the rebuilt grid fits.
                grid = Grid::build(memory, focus, fitting).map_err(internal)?;
            }
            let strip = MemoryStrip::build(memory, render_text::MAX_MEMORY_SLOTS, focus_linear)
                .map_err(internal)?;
            let text = render_text::render(&render_text::Explanation {
                shape,
                memory,
                padding: padding.as_ref(),
                element: element
                    .as_ref()
                    .map(|(index, traces, linear)| (*index, traces.as_slice(), *linear)),
                grid: &grid,
                strip: &strip,
            });
            Ok(text)
        }
    }
}

/// Reports a failure of the library on input that was already checked: a bug, not bad input.
fn internal(error: impl std::fmt::Display) -> Reported {
    Reported(vec![plain(ExplainError::internal(error))])
}
