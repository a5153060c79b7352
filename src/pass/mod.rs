//! The pass framework: a [`Pass`] transforms a [`Module`](crate::ir::Module); a [`Pipeline`] runs passes in
//! order and in `fixpoint(...)` groups, verifies the module after every pass that changed it,
//! times each pass and dumps the module between passes with XLA's file names.
//!
//! ```text
//! "dce,fixpoint(simplify-layout-ops,dce)" ──Registry::parse──► Pipeline ──run──► Module
//!                        │ passes::all()                         │ verify after each change
//!                        ▼                                       ▼
//!              PipelineSyntaxError (span)              PipelineError (names the pass)
//! ```
//!
//! A pass is a value with a stable kebab-case name, as XLA's `HloPassInterface` is:
//!
//! ```
//! use hlo_layout::ir::Module;
//! use hlo_layout::pass::{Changed, Pass, PassContext, PassError, Pipeline};
//!
//! /// Counts instructions; changes nothing.
//! struct Count(usize);
//!
//! impl Pass for Count {
//!     fn name(&self) -> &'static str {
//!         "count"
//!     }
//!     fn description(&self) -> &'static str {
//!         "Counts the instructions of every computation."
//!     }
//!     fn run(&mut self, module: &mut Module, _: &mut PassContext) -> Result<Changed, PassError> {
//!         self.0 = module.instruction_count();
//!         Ok(Changed::NO)
//!     }
//! }
//!
//! let mut module = hlo_layout::parse_module("ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n").unwrap();
//! let mut pipeline = Pipeline::new("example");
//! pipeline.add(Count(0));
//! let report = pipeline.run(&mut module).unwrap();
//! assert!(!report.changed);
//! // The pipeline verifies its input first, then times each pass.
//! let names: Vec<&str> = report.timing.entries().iter().map(|e| e.name.as_str()).collect();
//! assert_eq!(names, ["verifier", "count"]);
//! ```
//!
//! Architecture invariants: passes edit the module only through the mutation API of
//! [`crate::ir::module`]; the pipeline never prints anything itself (warnings and timing are
//! values the caller prints); dumps are the only IO, and only when asked for.

mod dump;
mod interface;
mod parse;
mod pipeline;
pub mod registry;

pub use dump::{dump_file_name, DumpOptions, PIPELINE_END, PIPELINE_START};
pub use interface::{rewrite_each, Changed, Pass, PassContext, PassError, Statistic};
pub use parse::{edit_distance, PipelineSpec, PipelineSyntaxError, StepSpec};
pub use pipeline::{
    CapPolicy, Pipeline, PipelineError, PipelineOptions, RunReport, Step, Timing, TimingEntry,
    DEFAULT_FIXPOINT_CAP,
};
