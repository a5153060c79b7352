//! A pass written outside the crate: `strip-metadata` removes every `metadata={...}`
//! attribute, then runs in a pipeline after `dce`, with the verifier checking the module
//! after each pass that changed it.
//!
//! ```text
//! cargo run --example user_pass -- module.hlo
//! ```

use hlo_layout::ir::Module;
use hlo_layout::pass::{Changed, Pass, PassContext, PassError, Pipeline};
use hlo_layout::passes::dce::Dce;

/// Removes `metadata` from every instruction.
pub struct StripMetadata;

impl Pass for StripMetadata {
    fn name(&self) -> &'static str {
        "strip-metadata"
    }

    fn description(&self) -> &'static str {
        "Removes every instruction's metadata attribute."
    }

    fn run(&mut self, module: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
        let mut changed = Changed::NO;
        for computation in &mut module.computations {
            for id in computation.order().to_vec() {
                let attributes = &mut computation.instruction_mut(id).attributes;
                let before = attributes.len();
                attributes.retain(|a| &*a.name != "metadata");
                changed |= Changed(attributes.len() != before);
            }
        }
        Ok(changed)
    }
}

/// Parses `text`, runs `dce,strip-metadata` and returns the module as text.
pub fn run(text: &str) -> Result<String, String> {
    let mut module = hlo_layout::parse_module(text).map_err(|e| format!("{e:?}"))?;
    let mut pipeline = Pipeline::new("example");
    pipeline.add(Dce).add(StripMetadata);
    pipeline.run(&mut module).map_err(|e| e.to_string())?;
    Ok(hlo_layout::print::print_ir_module(&module))
}

const DEFAULT: &str = r#"ENTRY main {
  p = f32[4]{0} parameter(0)
  unused = f32[4]{0} negate(p), metadata={op_name="jit(f)/neg"}
  ROOT r = f32[4]{0} add(p, p), metadata={op_name="jit(f)/add" source_line=3}
}
"#;

fn main() -> std::process::ExitCode {
    let text = match std::env::args().nth(1) {
        Some(path) => match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("error: cannot read {path}: {error}");
                return std::process::ExitCode::from(1);
            }
        },
        None => DEFAULT.to_string(),
    };
    match run(&text) {
        Ok(printed) => {
            print!("{printed}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::from(1)
        }
    }
}
