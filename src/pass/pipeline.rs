//! Running passes: order, fixed points, verification after changes, timing and dumps, as
//! XLA's `HloPassPipeline` and `HloPassFix` do.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::dump::{dump_file_name, DumpOptions, PIPELINE_END, PIPELINE_START};
use super::interface::{plural, Changed, Pass, PassContext, PassError, Statistic};
use crate::ir::Module;
use crate::verify::{verify, VerifyError, VerifyOptions};

/// XLA's `HloPassFix` iteration limit.
pub const DEFAULT_FIXPOINT_CAP: usize = 25;

/// What happens when a `fixpoint(...)` group still changes the module after the cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CapPolicy {
    /// Record a warning and go on with the next step, as XLA does.
    #[default]
    Warn,
    /// Stop with [`PipelineError::FixpointCap`].
    Error,
}

/// How a pipeline runs its passes.
#[derive(Clone, Debug)]
pub struct PipelineOptions {
    /// Verify the input, and the module after every pass that changed it (XLA's invariant
    /// checkers). On by default.
    pub verify_after_change: bool,
    /// The checks that verification makes; the `verify` pass adds to them.
    pub verify: VerifyOptions,
    /// Where to dump the module between passes, and around which; no dumps when `None`.
    pub dump: Option<DumpOptions>,
    /// The most iterations a `fixpoint(...)` group runs.
    pub fixpoint_cap: usize,
    /// What happens when a fixpoint group reaches the cap.
    pub on_cap: CapPolicy,
}

impl Default for PipelineOptions {
    fn default() -> PipelineOptions {
        PipelineOptions {
            verify_after_change: true,
            verify: VerifyOptions::default(),
            dump: None,
            fixpoint_cap: DEFAULT_FIXPOINT_CAP,
            on_cap: CapPolicy::Warn,
        }
    }
}

/// One step of a pipeline.
pub enum Step {
    /// One pass, run once.
    Pass(Box<dyn Pass>),
    /// Runs its steps again while any of them changes the module, up to the cap.
    Fixpoint(Vec<Step>),
}

impl Step {
    /// The first pass this step runs, if it runs any.
    fn first_pass(&self) -> Option<&'static str> {
        match self {
            Step::Pass(pass) => Some(pass.name()),
            Step::Fixpoint(steps) => first_pass(steps),
        }
    }

    /// `dce` or `fixpoint(a,b)`, for messages.
    fn describe(&self) -> String {
        match self {
            Step::Pass(pass) => pass.name().to_string(),
            Step::Fixpoint(steps) => format!("fixpoint({})", describe(steps)),
        }
    }
}

fn first_pass(steps: &[Step]) -> Option<&'static str> {
    steps.iter().find_map(Step::first_pass)
}

fn describe(steps: &[Step]) -> String {
    steps
        .iter()
        .map(Step::describe)
        .collect::<Vec<_>>()
        .join(",")
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Ordered passes and fixed-point groups with the options they run under.
#[derive(Debug)]
pub struct Pipeline {
    name: String,
    steps: Vec<Step>,
    /// How the passes run.
    pub options: PipelineOptions,
}

/// Why a pipeline stopped.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum PipelineError {
    /// The input does not verify, so no pass ran.
    #[error("the module does not verify before the first pass ({} error{})", errors.len(), plural(errors.len()))]
    #[diagnostic(
        code(hlo::pipeline::invalid_input),
        help("--no-verify skips verification")
    )]
    InvalidInput {
        /// The verifier's errors, in module order.
        #[related]
        errors: Vec<VerifyError>,
    },
    /// A pass returned an error.
    #[error("pass `{pass}` failed: {error}")]
    #[diagnostic(code(hlo::pipeline::pass_failed))]
    PassFailed {
        /// The pass's name.
        pass: String,
        /// What the pass returned; boxed, as it is the largest payload of a type every run
        /// returns.
        error: Box<PassError>,
        /// The verifier's diagnostics when the pass is one that verifies.
        #[related]
        errors: Vec<VerifyError>,
    },
    /// A pass reported a change and the module no longer verifies.
    #[error("pass `{pass}` broke the module: the verifier found {} error{} after it", errors.len(), plural(errors.len()))]
    #[diagnostic(code(hlo::pipeline::broken_by_pass))]
    BrokeModule {
        /// The pass's name.
        pass: String,
        /// The verifier's errors, in module order.
        #[related]
        errors: Vec<VerifyError>,
    },
    /// A fixpoint group still changed the module after the most iterations allowed, under
    /// [`CapPolicy::Error`].
    #[error("{group} still changed the module after {cap} iterations")]
    #[diagnostic(code(hlo::pipeline::fixpoint_cap))]
    FixpointCap {
        /// The group as written, `fixpoint(a,b)`.
        group: String,
        /// The most iterations allowed, all of which it ran.
        cap: usize,
    },
    /// A dump file could not be written.
    #[error("cannot write the dump {path}: {message}")]
    #[diagnostic(code(hlo::pipeline::dump))]
    Dump {
        /// The file that could not be written.
        path: String,
        /// The system's reason.
        message: String,
    },
}

impl PipelineError {
    fn pass_failed(pass: &str, error: PassError) -> PipelineError {
        // A verifier failure keeps its diagnostics (with spans) as related reports.
        let errors = match &error {
            PassError::Verify { errors } => errors.clone(),
            _ => Vec::new(),
        };
        PipelineError::PassFailed {
            pass: pass.to_string(),
            error: Box::new(error),
            errors,
        }
    }

    /// The verifier's diagnostics this error carries.
    pub fn verify_errors(&self) -> &[VerifyError] {
        match self {
            PipelineError::InvalidInput { errors }
            | PipelineError::BrokeModule { errors, .. }
            | PipelineError::PassFailed { errors, .. } => errors,
            _ => &[],
        }
    }
}

/// Wall-clock time per pass, in the order passes first ran.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    entries: Vec<TimingEntry>,
}

/// The time one pass, or the verifier, took over a pipeline run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingEntry {
    /// A pass name, or `verifier` for the checks after changes.
    pub name: String,
    /// How many times it ran.
    pub runs: u32,
    /// Runs that changed the module.
    pub changed: u32,
    /// The wall-clock time of all its runs.
    pub total: Duration,
}

/// The timing entry for the verification the pipeline runs after changes.
pub const VERIFIER_ENTRY: &str = "verifier";

impl Timing {
    /// One entry per pass, in the order the passes first ran.
    pub fn entries(&self) -> &[TimingEntry] {
        &self.entries
    }

    /// The time of every entry together.
    pub fn total(&self) -> Duration {
        self.entries.iter().map(|e| e.total).sum()
    }

    fn record(&mut self, name: &str, elapsed: Duration, changed: bool) {
        let index = match self.entries.iter().position(|e| e.name == name) {
            Some(index) => index,
            None => {
                self.entries.push(TimingEntry {
                    name: name.to_string(),
                    runs: 0,
                    changed: 0,
                    total: Duration::ZERO,
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[index];
        entry.runs += 1;
        entry.changed += u32::from(changed);
        entry.total += elapsed;
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .entries
            .iter()
            .map(|e| e.name.len())
            .chain([5])
            .max()
            .unwrap_or(5);
        writeln!(
            f,
            "{:<width$}  {:>5}  {:>7}  {:>12}",
            "pass", "runs", "changed", "time"
        )?;
        let millis = |d: Duration| format!("{:.3} ms", d.as_secs_f64() * 1e3);
        for e in &self.entries {
            writeln!(
                f,
                "{:<width$}  {:>5}  {:>7}  {:>12}",
                e.name,
                e.runs,
                e.changed,
                millis(e.total)
            )?;
        }
        writeln!(
            f,
            "{:<width$}  {:>5}  {:>7}  {:>12}",
            "total",
            "",
            "",
            millis(self.total())
        )
    }
}

/// What a successful run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Whether any pass changed the module.
    pub changed: bool,
    /// The time each pass took.
    pub timing: Timing,
    /// Warnings from passes and from fixpoint caps, in order.
    pub warnings: Vec<String>,
    /// Dump files written, in order.
    pub dumps: Vec<PathBuf>,
    /// The counters the passes kept, totalled over their runs, in the order first counted.
    pub statistics: Vec<Statistic>,
}

/// What comes after the step being run, so a dump can name the next pass as XLA does.
enum Follow<'a> {
    End,
    Pass(&'static str),
    /// The end of one iteration of a fixpoint body: back to `first` when the iteration
    /// changed something and the cap allows another, else on to `then`.
    Loop {
        first: &'static str,
        changes_at_start: u64,
        can_repeat: bool,
        then: &'a Follow<'a>,
    },
}

impl Follow<'_> {
    fn resolve(&self, changes: u64) -> &'static str {
        match self {
            Follow::End => PIPELINE_END,
            Follow::Pass(name) => name,
            Follow::Loop {
                first,
                changes_at_start,
                can_repeat,
                then,
            } => {
                if *can_repeat && changes > *changes_at_start {
                    first
                } else {
                    then.resolve(changes)
                }
            }
        }
    }
}

struct Runner<'p> {
    pipeline: &'p str,
    options: &'p PipelineOptions,
    cx: PassContext,
    report: RunReport,
    /// How many pass runs have reported a change so far.
    changes: u64,
    step: u32,
}

impl Pipeline {
    /// An empty pipeline named `name`, with the default options.
    pub fn new(name: impl Into<String>) -> Pipeline {
        Pipeline::with_options(name, PipelineOptions::default())
    }

    /// An empty pipeline named `name`, run under `options`.
    pub fn with_options(name: impl Into<String>, options: PipelineOptions) -> Pipeline {
        Pipeline {
            name: name.into(),
            steps: Vec::new(),
            options,
        }
    }

    /// The pipeline's name, used in dump file names.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The steps, in the order they run.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Appends a pass.
    pub fn add(&mut self, pass: impl Pass + 'static) -> &mut Pipeline {
        self.steps.push(Step::Pass(Box::new(pass)));
        self
    }

    /// Appends a step: a boxed pass or a fixpoint group.
    pub fn add_step(&mut self, step: Step) -> &mut Pipeline {
        self.steps.push(step);
        self
    }

    /// Appends a group of passes run again while any changes the module.
    pub fn add_fixpoint(&mut self, passes: Vec<Box<dyn Pass>>) -> &mut Pipeline {
        self.steps
            .push(Step::Fixpoint(passes.into_iter().map(Step::Pass).collect()));
        self
    }

    /// `a,fixpoint(b,c)`.
    pub fn describe(&self) -> String {
        describe(&self.steps)
    }

    /// Runs every step on `module`. On error the module is left as the failing pass left it.
    pub fn run(&mut self, module: &mut Module) -> Result<RunReport, PipelineError> {
        let mut runner = Runner {
            pipeline: &self.name,
            options: &self.options,
            cx: PassContext::new(self.options.verify),
            report: RunReport::default(),
            changes: 0,
            step: 0,
        };
        if self.options.verify_after_change {
            let start = Instant::now();
            let verified = verify(module, &self.options.verify);
            runner
                .report
                .timing
                .record(VERIFIER_ENTRY, start.elapsed(), false);
            verified.map_err(|errors| PipelineError::InvalidInput { errors })?;
        }
        let first = first_pass(&self.steps).unwrap_or(PIPELINE_END);
        runner.dump(module, PIPELINE_START, first, false)?;
        runner.run_steps(&mut self.steps, module, &Follow::End)?;
        runner.report.changed = runner.changes > 0;
        runner.report.warnings.extend(runner.cx.take_warnings());
        runner.report.statistics = runner.cx.take_statistics();
        Ok(runner.report)
    }
}

impl Runner<'_> {
    fn run_steps(
        &mut self,
        steps: &mut [Step],
        module: &mut Module,
        follow: &Follow<'_>,
    ) -> Result<(), PipelineError> {
        for index in 0..steps.len() {
            let next = match first_pass(&steps[index + 1..]) {
                Some(name) => Follow::Pass(name),
                None => Follow::End,
            };
            // Past this step comes the next sibling, or whatever follows this sequence.
            let after = if matches!(next, Follow::End) {
                follow
            } else {
                &next
            };
            match &mut steps[index] {
                Step::Pass(pass) => self.run_pass(pass.as_mut(), module, after)?,
                Step::Fixpoint(body) => self.run_fixpoint(body, module, after)?,
            }
        }
        Ok(())
    }

    fn run_fixpoint(
        &mut self,
        body: &mut [Step],
        module: &mut Module,
        after: &Follow<'_>,
    ) -> Result<(), PipelineError> {
        let Some(first) = first_pass(body) else {
            return Ok(());
        };
        let cap = self.options.fixpoint_cap.max(1);
        for iteration in 1..=cap {
            let changes_at_start = self.changes;
            let follow = Follow::Loop {
                first,
                changes_at_start,
                can_repeat: iteration < cap,
                then: after,
            };
            self.run_steps(body, module, &follow)?;
            if self.changes == changes_at_start {
                return Ok(());
            }
        }
        let group = format!("fixpoint({})", describe(body));
        match self.options.on_cap {
            CapPolicy::Warn => {
                self.cx.warn(format!(
                    "{group} still changed the module after {cap} iterations; going on"
                ));
                Ok(())
            }
            CapPolicy::Error => Err(PipelineError::FixpointCap { group, cap }),
        }
    }

    fn run_pass(
        &mut self,
        pass: &mut dyn Pass,
        module: &mut Module,
        follow: &Follow<'_>,
    ) -> Result<(), PipelineError> {
        let name = pass.name();
        self.cx.set_current_pass(name);
        let start = Instant::now();
        let result = pass.run(module, &mut self.cx);
        let elapsed = start.elapsed();
        let changed = matches!(result, Ok(Changed(true)));
        self.report.timing.record(name, elapsed, changed);
        let _ = result.map_err(|error| PipelineError::pass_failed(name, error))?;
        if changed {
            self.changes += 1;
        }
        // As XLA does, dump before verifying, so a broken module can be inspected.
        let next = follow.resolve(self.changes);
        self.dump(module, name, next, changed)?;
        if changed && self.options.verify_after_change {
            let start = Instant::now();
            let verified = verify(module, &self.cx.verify);
            self.report
                .timing
                .record(VERIFIER_ENTRY, start.elapsed(), false);
            verified.map_err(|errors| PipelineError::BrokeModule {
                pass: name.to_string(),
                errors,
            })?;
        }
        Ok(())
    }

    fn dump(
        &mut self,
        module: &Module,
        after: &str,
        before: &str,
        changed: bool,
    ) -> Result<(), PipelineError> {
        let Some(options) = &self.options.dump else {
            return Ok(());
        };
        if !options.wants(after, before, changed) {
            return Ok(());
        }
        let file = dump_file_name(
            options.module_id,
            &module.name,
            self.step,
            self.pipeline,
            after,
            before,
        );
        self.step += 1;
        let path = options.dir.join(file);
        let text = crate::print::print_ir_module(module);
        std::fs::create_dir_all(&options.dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| PipelineError::Dump {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
        self.report.dumps.push(path);
        Ok(())
    }
}
