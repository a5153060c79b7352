//! `hlo-layout dot FILE|-... [--computation NAME] [--around INSTR --depth N] [-o OUT]`:
//! Graphviz DOT of a computation or an instruction's neighbourhood.

use hlo_layout::analysis::dot::{render_dot, DotOptions};
use serde_json::{Map, Value};

use super::{plain, run_files, FileOutput, Format, Header, Outcome, OutputArgs, Reading};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  hlo-layout dot examples/reshape_degenerate.hlo | dot -Tsvg > main.svg\n  \
hlo-layout dot model.hlo --computation fused_add --around add.3 --depth 2\n\n\
Edges run from operand to user in operand-slot order (labelled with the slot when there are \
several); copies are orange, bitcasts blue, ROOT has a double border, dashed nodes have \
neighbours left out. With --format json the DOT text is the `dot` field.\n\
Exit codes: 0 success, 1 invalid input or an unknown computation/instruction, 2 usage error."
)]
pub struct Args {
    /// HLO modules; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    files: Vec<String>,
    /// The computation to draw (default: the entry computation).
    #[arg(long, value_name = "NAME")]
    computation: Option<String>,
    /// Draw only the instructions within --depth edges of this one.
    #[arg(long, value_name = "INSTR")]
    around: Option<String>,
    /// How many operand/user edges from --around to draw.
    #[arg(long, value_name = "N", default_value_t = 2, requires = "around")]
    depth: usize,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: Args) -> Outcome {
    let options = DotOptions {
        computation: args.computation.clone(),
        around: args.around.clone(),
        depth: args.depth,
    };
    let json_wanted = args.output.format == Format::Json;
    run_files(
        "dot",
        &args.files,
        &args.output,
        Header::Comment,
        Reading::Pieces,
        |file, source| {
            let module = match super::lower_source(file, source) {
                Ok(module) => module,
                Err(diagnostics) => return FileOutput::failure(diagnostics),
            };
            let drawn = render_dot(&module, &options);
            super::drop_aside(module);
            match drawn {
                Ok(dot) => {
                    let mut json = Map::new();
                    if json_wanted {
                        json.insert("dot".into(), Value::from(dot.clone()));
                    }
                    FileOutput::success(dot, json)
                }
                Err(error) => FileOutput::failure(vec![plain(error)]),
            }
        },
    )
}
