//! The pass framework on small hand-written modules: pass outputs (snapshots in
//! `snapshots/`), pipeline syntax errors, fixed-point caps, XLA dump names, and a verifier
//! failure that names the pass which broke the module.

mod common;

use std::path::Path;

use hlo_layout::ir::{Module, Opcode};
use hlo_layout::pass::{
    CapPolicy, Changed, DumpOptions, Pass, PassContext, PassError, Pipeline, PipelineError,
    PipelineOptions, Step,
};
use hlo_layout::passes::{self as builtin, parse_pipeline};

fn parse(text: &str) -> Module {
    hlo_layout::parse_module(text)
        .unwrap_or_else(|errors| panic!("{}", common::render("input", text, errors)))
}

fn run(
    spec: &str,
    module: &mut Module,
    options: PipelineOptions,
) -> Result<hlo_layout::pass::RunReport, PipelineError> {
    let spec = parse_pipeline(spec).unwrap_or_else(|e| panic!("{e:?}"));
    spec.instantiate("test", options).run(module)
}

/// Each input names its pipeline on its first line (`// passes: ...`); the snapshot is the
/// module after it, which must re-parse to itself.
#[test]
fn passes_outputs() {
    common::settings().bind(|| {
        insta::glob!("inputs/passes/*.hlo", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let spec = text
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("// passes: "))
                .unwrap_or_else(|| panic!("{}: no `// passes:` line", path.display()));
            let mut module = parse(&text);
            let report = run(spec, &mut module, PipelineOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let printed = hlo_layout::print::print_ir_module(&module);
            let again = hlo_layout::print::print_ir_module(&parse(&printed));
            assert_eq!(
                again,
                printed,
                "{}: the output does not re-parse to itself",
                path.display()
            );
            insta::assert_snapshot!(format!(
                "passes: {spec}\nchanged: {}\nwarnings: {:?}\n\n{printed}",
                report.changed, report.warnings
            ));
        });
    });
}

#[test]
fn passes_pipeline_syntax_errors() {
    let cases = [
        "dec",
        "simplify",
        "dce,,verify",
        "fixpoint()",
        "fixpoint(dce",
        "dce)",
        "verify{strict}",
        "dce{x},nope",
        "",
        "dce;verify",
    ];
    let mut out = String::new();
    for case in cases {
        let errors = parse_pipeline(case).expect_err(case);
        out.push_str(&format!("--passes '{case}'\n"));
        out.push_str(&common::render("--passes", case, errors));
    }
    common::settings().bind(|| insta::assert_snapshot!(out));
}

#[test]
fn pipelines_parse_nested_groups_and_flags() {
    let spec = parse_pipeline(
        "dce, fixpoint(simplify-layout-ops, fixpoint(dce)), verify{layout-sensitive}",
    )
    .unwrap();
    let pipeline = spec.instantiate("p", PipelineOptions::default());
    assert_eq!(
        pipeline.describe(),
        "dce,fixpoint(simplify-layout-ops,fixpoint(dce)),verify"
    );
}

#[test]
fn the_registry_is_alphabetical_and_complete() {
    let names: Vec<&str> = builtin::all().iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        ["dce", "layout-assignment", "simplify-layout-ops", "verify"]
    );
}

/// Says it changed the module every time, so a fixed point never comes.
struct Restless;

impl Pass for Restless {
    fn name(&self) -> &'static str {
        "restless"
    }
    fn description(&self) -> &'static str {
        "Reports a change every run."
    }
    fn run(&mut self, _: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
        Ok(Changed::YES)
    }
}

/// Reports a change once, then none.
struct Once(bool);

impl Pass for Once {
    fn name(&self) -> &'static str {
        "once"
    }
    fn description(&self) -> &'static str {
        "Reports a change on its first run only."
    }
    fn run(&mut self, _: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
        Ok(Changed(!std::mem::replace(&mut self.0, true)))
    }
}

const SMALL: &str = "HloModule small\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  %dead = f32[4]{0} negate(%p)\n  ROOT %r = f32[4]{0} abs(%p)\n}\n";

#[test]
fn a_fixpoint_stops_at_its_cap_with_a_warning_or_an_error() {
    let mut module = parse(SMALL);
    let options = PipelineOptions {
        fixpoint_cap: 3,
        ..PipelineOptions::default()
    };
    let mut pipeline = Pipeline::with_options("p", options.clone());
    pipeline.add_fixpoint(vec![Box::new(Restless), Box::new(Once(false))]);
    let report = pipeline.run(&mut module).unwrap();
    assert_eq!(
        report.warnings,
        ["fixpoint(restless,once) still changed the module after 3 iterations; going on"]
    );
    let restless = &report
        .timing
        .entries()
        .iter()
        .find(|e| e.name == "restless")
        .unwrap();
    assert_eq!((restless.runs, restless.changed), (3, 3));

    let mut pipeline = Pipeline::with_options(
        "p",
        PipelineOptions {
            on_cap: CapPolicy::Error,
            ..options
        },
    );
    pipeline.add_fixpoint(vec![Box::new(Restless)]);
    let error = pipeline.run(&mut module).unwrap_err();
    assert_eq!(
        error.to_string(),
        "fixpoint(restless) still changed the module after 3 iterations"
    );

    // A group that settles runs once more than it changes, and warns about nothing.
    let mut pipeline = Pipeline::new("p");
    pipeline.add_fixpoint(vec![Box::new(Once(false))]);
    let report = pipeline.run(&mut module).unwrap();
    assert!(report.warnings.is_empty());
    assert_eq!(report.timing.entries()[1].runs, 2);
}

/// Adds an `add` with one operand and says so: the verifier must catch it and name the pass.
struct Breaker;

impl Pass for Breaker {
    fn name(&self) -> &'static str {
        "breaker"
    }
    fn description(&self) -> &'static str {
        "Adds an add with a single operand."
    }
    fn run(&mut self, module: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
        let entry = module.entry;
        let computation = module.computation_mut(entry);
        let root = computation
            .root()
            .ok_or_else(|| PassError::message("no root"))?;
        let shape = computation.instruction(root).shape.clone();
        let broken = hlo_layout::ir::Instruction::new("broken", Opcode::Add, shape);
        let id = computation.insert_before(root, broken, &[root]).unwrap();
        computation.set_root(id);
        Ok(Changed::YES)
    }
}

#[test]
fn passes_verifier_failure_names_the_pass() {
    let mut module = parse(SMALL);
    let mut pipeline = Pipeline::new("p");
    pipeline
        .add(hlo_layout::passes::dce::Dce)
        .add(Breaker)
        .add(hlo_layout::passes::dce::Dce);
    let error = pipeline.run(&mut module).unwrap_err();
    assert!(matches!(&error, PipelineError::BrokeModule { pass, .. } if pass == "breaker"));
    let rendered = common::render("small.hlo", SMALL, vec![error]);
    common::settings().bind(|| insta::assert_snapshot!(rendered));

    // Without verification the broken module goes through.
    let mut module = parse(SMALL);
    let mut pipeline = Pipeline::with_options(
        "p",
        PipelineOptions {
            verify_after_change: false,
            ..PipelineOptions::default()
        },
    );
    pipeline.add(Breaker);
    assert!(pipeline.run(&mut module).is_ok());

    // The `verify` pass fails in the pipeline's name for it.
    let mut pipeline = Pipeline::with_options(
        "p",
        PipelineOptions {
            verify_after_change: false,
            ..PipelineOptions::default()
        },
    );
    pipeline.add(hlo_layout::passes::verify::Verify::default());
    let error = pipeline.run(&mut module).unwrap_err();
    assert!(matches!(&error, PipelineError::PassFailed { pass, .. } if pass == "verify"));
    // The breaker's add has a wrong shape and uses the root, which comes after it.
    assert_eq!(error.verify_errors().len(), 2);
}

#[test]
fn an_input_that_does_not_verify_is_reported_before_any_pass() {
    let mut module = parse(SMALL);
    let mut pipeline = Pipeline::with_options(
        "p",
        PipelineOptions {
            verify_after_change: false,
            ..PipelineOptions::default()
        },
    );
    pipeline.add(Breaker);
    pipeline.run(&mut module).unwrap();
    let mut pipeline = Pipeline::new("p");
    pipeline.add(hlo_layout::passes::dce::Dce);
    let error = pipeline.run(&mut module).unwrap_err();
    assert!(
        matches!(error, PipelineError::InvalidInput { .. }),
        "{error}"
    );
}

fn dump_names(spec: &str, pattern: &str, text: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!(
        "hlo-layout-dumps-{}-{}",
        std::process::id(),
        pattern.len() * 1000 + spec.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut module = parse(text);
    let options = PipelineOptions {
        dump: Some(DumpOptions::new(&dir, regex::Regex::new(pattern).unwrap())),
        ..PipelineOptions::default()
    };
    let report = run(spec, &mut module, options).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let reported: Vec<String> = report
        .dumps
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_string()))
        .collect();
    assert_eq!(
        reported, names,
        "the report lists the files written, in order"
    );
    for name in &names {
        let dumped = std::fs::read_to_string(dir.join(name)).unwrap();
        parse(&dumped);
    }
    let _ = std::fs::remove_dir_all(&dir);
    names
}

#[test]
fn passes_dump_file_names() {
    let tiled = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/passes/simplify_tiled.hlo"),
    )
    .unwrap();
    let mut out = String::new();
    for (spec, pattern) in [
        // `.*` dumps the start and every pass that changed something.
        ("dce,simplify-layout-ops,verify", ".*"),
        // A dump is written when either neighbour matches.
        ("dce,simplify-layout-ops,verify", "^dce$"),
        ("dce,simplify-layout-ops,verify", "verify"),
        // In a group the next pass is the group's first while it changes the module.
        ("fixpoint(simplify-layout-ops,dce),verify", "."),
        ("dce", "nothing-matches"),
    ] {
        out.push_str(&format!("--passes '{spec}' --dump-pass-re '{pattern}'\n"));
        for name in dump_names(spec, pattern, &tiled) {
            out.push_str(&format!("  {name}\n"));
        }
    }
    common::settings().bind(|| insta::assert_snapshot!(out));
}

#[test]
fn steps_can_be_built_without_the_parser() {
    let mut module = parse(SMALL);
    let mut pipeline = Pipeline::new("p");
    pipeline.add_step(Step::Fixpoint(vec![Step::Pass(Box::new(
        hlo_layout::passes::dce::Dce,
    ))]));
    let report = pipeline.run(&mut module).unwrap();
    assert!(report.changed);
    let printed = hlo_layout::print::print_ir_module(&module);
    assert!(!printed.contains("dead"), "{printed}");
}

/// A computation named only by an attribute the lowering does not read as a call stays, and
/// so does everything it calls; an unreferenced one goes.
#[test]
fn dce_keeps_computations_named_in_unknown_attributes() {
    let text = "HloModule m\n\n%leaf (a: f32[]) -> f32[] {\n  ROOT %a = f32[] parameter(0)\n}\n\n%named (b: f32[]) -> f32[] {\n  %b = f32[] parameter(0)\n  ROOT %c = f32[] call(%b), to_apply=%leaf\n}\n\n%orphan (d: f32[]) -> f32[] {\n  ROOT %d = f32[] parameter(0)\n}\n\nENTRY %e (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0), some_future_attribute=%named\n}\n";
    let mut module = parse(text);
    // The verifier rejects attributes it does not know; this is about `dce` alone.
    let options = PipelineOptions {
        verify_after_change: false,
        ..PipelineOptions::default()
    };
    let report = run("dce", &mut module, options).unwrap();
    assert!(report.changed);
    let names: Vec<&str> = module
        .computations()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["leaf", "named", "e"]);
    let printed = hlo_layout::print::print_ir_module(&module);
    parse(&printed);
}

/// Passes keep counters through their context; the pipeline's report gives each pass's
/// totals over its runs, in the order first counted (issue 29, per-pass statistics).
#[test]
fn pass_statistics_are_read_back_after_a_pipeline() {
    let mut module = parse(
        "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  a = f32[4]{0} negate(p)\n  b = f32[4]{0} negate(a)\n  ROOT r = f32[4]{0} add(p, p)\n}\n",
    );
    let report = run("fixpoint(dce)", &mut module, PipelineOptions::default()).unwrap();
    let removed = report
        .statistics
        .iter()
        .find(|s| s.pass == "dce" && s.name == "instructions removed")
        .expect("dce counts what it removes");
    // Two runs of the group: the first removes both negates, the second nothing.
    assert_eq!(removed.value, 2);

    struct Counting;
    impl Pass for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn description(&self) -> &'static str {
            "Counts instructions."
        }
        fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
            cx.count("instructions seen", module.instruction_count() as u64);
            Ok(Changed::NO)
        }
    }
    let mut pipeline = hlo_layout::pass::Pipeline::new("stats");
    pipeline.add(Counting).add(Counting);
    let report = pipeline.run(&mut module).unwrap();
    assert_eq!(
        report.statistics,
        [hlo_layout::pass::Statistic {
            pass: "counting",
            name: "instructions seen",
            value: 4,
        }]
    );
}
