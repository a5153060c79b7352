//! A pass written outside the crate: `strip-metadata` removes every `metadata={...}`
//! attribute. Registered beside the built-in passes, it is named in pipeline text like them,
//! `dce,strip-metadata`, and the pipeline verifies the module after each pass that changed it.
//!
//! ```text
//! cargo run --example user_pass -- module.hlo [PASSES]
//! ```

use hlo_layout::ir::Module;
use hlo_layout::pass::registry::{PassInfo, Registry};
use hlo_layout::pass::{Changed, Pass, PassContext, PassError, PipelineOptions};

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
        for computation in module.computations_mut() {
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

/// The built-in passes and `strip-metadata`.
pub fn registry() -> Registry {
    let mut registry = Registry::builtin();
    registry
        .register(PassInfo {
            name: "strip-metadata",
            description: "Removes every instruction's metadata attribute.",
            flags: &[],
            create: |_| Box::new(StripMetadata),
        })
        .expect("a new kebab-case name");
    registry
}

/// Parses `text`, runs the pipeline `passes` (e.g. `dce,strip-metadata`) and returns the
/// module as text.
pub fn run_passes(text: &str, passes: &str) -> Result<String, String> {
    let mut module = hlo_layout::parse_module(text).map_err(|e| format!("{e:?}"))?;
    let spec = registry().parse(passes).map_err(|errors| {
        let messages: Vec<String> = errors
            .iter()
            .map(|e| {
                format!(
                    "{e}{}",
                    e.help
                        .as_deref()
                        .map_or(String::new(), |h| format!(" ({h})"))
                )
            })
            .collect();
        messages.join("; ")
    })?;
    spec.instantiate("example", PipelineOptions::default())
        .run(&mut module)
        .map_err(|e| e.to_string())?;
    Ok(hlo_layout::print::print_ir_module(&module))
}

/// Parses `text`, runs `dce,strip-metadata` and returns the module as text.
pub fn run(text: &str) -> Result<String, String> {
    run_passes(text, "dce,strip-metadata")
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
    let passes = std::env::args()
        .nth(2)
        .unwrap_or_else(|| "dce,strip-metadata".to_string());
    match run_passes(&text, &passes) {
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
