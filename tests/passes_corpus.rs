//! Acceptance: every module of `../shared/corpus/{jax,large}`, and every `// -----` part of
//! `xla-tests` that lowers, runs `dce,verify` (and the layout pipeline) and the result
//! re-parses and prints to itself. Skips when the corpus is absent. Run with `--nocapture`
//! for the counts.

mod common;

use std::path::Path;

use hlo_layout::pass::PipelineOptions;
use hlo_layout::passes::parse_pipeline;

#[derive(Default)]
struct Counts {
    modules: usize,
    skipped: usize,
    instructions_before: usize,
    instructions_after: usize,
    changed: usize,
    /// Modules whose input passes the layout-sensitive verifier, so every step is checked
    /// with it too.
    layout_checked: usize,
    failures: Vec<String>,
}

fn run_file(path: &Path, split: bool, spec: &str, counts: &mut Counts) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parts = common::module_ranges(&text, split);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let spec = parse_pipeline(spec).unwrap();
    for range in parts {
        let Ok(mut module) = hlo_layout::parse_module_range(&text, range.clone()) else {
            // Parts that do not lower are the front end's tests (negative cases).
            assert!(split, "{name} does not lower");
            counts.skipped += 1;
            continue;
        };
        // The verifier's own tests cover inputs it rejects; here the passes are on trial.
        if hlo_layout::verify::verify(&module, &Default::default()).is_err() {
            counts.skipped += 1;
            continue;
        }
        counts.modules += 1;
        counts.instructions_before += module.instruction_count();
        let mut options = PipelineOptions::default();
        let layout_sensitive = hlo_layout::verify::VerifyOptions {
            layout_sensitive: true,
        };
        if hlo_layout::verify::verify(&module, &layout_sensitive).is_ok() {
            // Inputs with consistent layouts must keep them through every pass.
            options.verify = layout_sensitive;
            counts.layout_checked += 1;
        }
        let mut pipeline = spec.instantiate("acceptance", options);
        match pipeline.run(&mut module) {
            Ok(report) => counts.changed += usize::from(report.changed),
            Err(error) => {
                counts.failures.push(format!(
                    "{name} @{}: {}",
                    range.start,
                    common::render(name, &text, vec![error])
                ));
                continue;
            }
        }
        counts.instructions_after += module.instruction_count();
        let printed = hlo_layout::print::print_ir_module(&module);
        match hlo_layout::parse_module(&printed) {
            Ok(again) => {
                let reprinted = hlo_layout::print::print_ir_module(&again);
                if reprinted != printed {
                    counts.failures.push(format!(
                        "{name} @{}: the output does not print to itself",
                        range.start
                    ));
                }
            }
            Err(errors) => counts.failures.push(format!(
                "{name} @{}: the output does not re-parse:\n{}",
                range.start,
                common::render("output", &printed, errors)
            )),
        }
    }
}

fn acceptance(spec: &str) {
    let mut total = Counts::default();
    for (folder, split) in [("jax", false), ("large", false), ("xla-tests", true)] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        let mut counts = Counts::default();
        for path in common::files(&dir, "hlo") {
            run_file(&path, split, spec, &mut counts);
        }
        println!(
            "{spec} on {folder}: {} modules ({} changed, {} verified layout-sensitively), instructions {} -> {}; {} parts skipped (do not lower or verify); {} failures",
            counts.modules,
            counts.changed,
            counts.layout_checked,
            counts.instructions_before,
            counts.instructions_after,
            counts.skipped,
            counts.failures.len()
        );
        if folder != "xla-tests" {
            assert_eq!(
                counts.skipped, 0,
                "every {folder} module lowers and verifies"
            );
        }
        total.modules += counts.modules;
        total.failures.extend(counts.failures);
    }
    assert!(total.modules > 0);
    assert!(
        total.failures.is_empty(),
        "{} failures:\n{}",
        total.failures.len(),
        total.failures.join("\n")
    );
}

#[test]
fn passes_corpus_dce_verify_round_trips() {
    acceptance("dce,verify");
}

#[test]
fn passes_corpus_layout_pipeline_round_trips() {
    acceptance("fixpoint(simplify-layout-ops,dce),verify");
}
