//! `hlo_layout._native`: the library as a Python extension. Every result is the library's own
//! value turned into Python: JSON views through the same functions the command prints with
//! (`analysis::json`, `analysis::stats`, `diagnostic`, `explain`), so that the package and
//! `hlo-layout` never differ. Work on a module releases the GIL.

use std::sync::Arc;

// The command's allocator, the same file: the module's own allocations (not Python's objects)
// go to mimalloc, as they do in `hlo-layout`. Its memory purge is the command's alone.
#[allow(dead_code)]
#[path = "../../src/cli/allocator.rs"]
mod allocator;
mod text;

#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

use hlo_layout::assign::{assign_verified, AssignFailure, AssignOptions, EntryLayouts};
use hlo_layout::ir::target::TARGET_NAMES;
use hlo_layout::ir::Target;
use miette::Diagnostic;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use text::Text;

create_exception!(
    hlo_layout,
    HloError,
    PyValueError,
    "Text that is not valid HLO, or a module a pass cannot handle.\n\n\
`str(error)` is the rendered diagnostics, as `hlo-layout` prints them; `error.diagnostics` is \
a list of dicts with the keys of the command's JSON diagnostics: code, severity, message, \
help and labels (label, offset, length, line, column)."
);

/// The name diagnostics give text passed in from Python.
const SOURCE_NAME: &str = "<string>";

/// A Python object for a JSON value: `json.loads` of its text, so that numbers, nulls and
/// key order are exactly what the command prints.
fn to_python<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|error| PyValueError::new_err(format!("internal: {error}")))?;
    py.import("json")?.call_method1("loads", (text,))
}

fn serialized<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value)
        .map_err(|error| PyValueError::new_err(format!("internal: {error}")))?;
    to_python(py, &value)
}

/// Diagnostics about `source`, as JSON and as rendered text, ready to become an [`HloError`].
struct Failure {
    json: Vec<serde_json::Value>,
    rendered: Vec<String>,
    /// A line before the diagnostics, as the command prints a note.
    note: Option<&'static str>,
}

impl Failure {
    fn new<E>(name: &str, source: &str, errors: Vec<E>) -> Failure
    where
        E: Diagnostic + Send + Sync + 'static,
    {
        let json = errors
            .iter()
            .map(|error| hlo_layout::diagnostic::to_json(error, Some(source)))
            .collect();
        let rendered = errors
            .into_iter()
            .map(|error| hlo_layout::diagnostic::render(error, name, source, false))
            .collect();
        Failure {
            json,
            rendered,
            note: None,
        }
    }

    fn into_error(self, py: Python<'_>) -> PyErr {
        let mut message = self.rendered.join("\n");
        if let Some(note) = self.note {
            message = format!("{note}\n{message}");
        }
        let error = HloError::new_err(message.trim_end().to_string());
        let diagnostics = to_python(py, &serde_json::Value::Array(self.json))
            .and_then(|list| error.value(py).setattr("diagnostics", list));
        match diagnostics {
            Ok(()) => error,
            Err(failed) => failed,
        }
    }
}

/// A parsed HLO module. Modules are values: `assign` and `run_passes` return new ones and
/// leave their argument as it was.
///
/// >>> m = hlo_layout.parse("HloModule m\n\nENTRY e {\n  ROOT p = f32[8] parameter(0)\n}\n")
/// >>> m.name
/// 'm'
/// >>> print(m)  # canonical text, as `hlo-layout fmt` prints it
#[pyclass(frozen, module = "hlo_layout", name = "Module")]
struct Module {
    module: Arc<hlo_layout::ir::Module>,
    /// The text the module was parsed from, Python's own buffer rather than a copy: errors
    /// found later point into it.
    source: Arc<Text>,
}

impl Module {
    fn derived(&self, module: hlo_layout::ir::Module) -> Module {
        Module {
            module: Arc::new(module),
            source: self.source.clone(),
        }
    }
}

#[pymethods]
impl Module {
    /// The module's name, from its `HloModule` line.
    #[getter]
    fn name(&self) -> String {
        self.module.name.clone()
    }

    /// The canonical text, byte for byte what `hlo-layout fmt` prints.
    fn __str__(&self, py: Python<'_>) -> String {
        let module = self.module.clone();
        py.detach(move || hlo_layout::print::print_ir_module(&module))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hlo_layout.Module {:?}: {} computations>",
            self.module.name,
            self.module.computations().len()
        )
    }

    /// The command's JSON view of the module (an element of `modules` in
    /// `hlo-layout fmt --format json`): name, entry, computations and the canonical text.
    ///
    /// >>> m.to_json()["computations"][0]["instructions"][0]["opcode"]
    /// 'parameter'
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let module = self.module.clone();
        let json = py.detach(move || hlo_layout::analysis::json::module_json(&module));
        serialized(py, &json)
    }

    /// The computations in print order, each a dict with `name`, `entry`, `root` and
    /// `instructions`: dicts with `name`, `opcode`, `shape` (its text), `layout` (the
    /// layout's text, None for tuples and arrays without one), `operands` (names, in slot
    /// order) and `called` (computation names).
    ///
    /// >>> import pandas as pd
    /// >>> pd.DataFrame(m.computations[0]["instructions"])
    #[getter]
    fn computations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let module = self.module.clone();
        let computations = py.detach(move || {
            hlo_layout::analysis::json::computations_json(&module)
                .into_iter()
                .map(|computation| {
                    let instructions: Vec<serde_json::Value> = computation
                        .instructions
                        .into_iter()
                        .map(|instruction| {
                            serde_json::json!({
                                "name": instruction.name,
                                "opcode": instruction.opcode,
                                "shape": instruction.shape.text,
                                "layout": instruction.shape.layout.flatten(),
                                "operands": instruction.operands,
                                "called": instruction.called,
                            })
                        })
                        .collect();
                    serde_json::json!({
                        "name": computation.name,
                        "entry": computation.entry,
                        "root": computation.root,
                        "instructions": instructions,
                    })
                })
                .collect::<Vec<_>>()
        });
        let list = to_python(py, &serde_json::Value::Array(computations))?;
        Ok(list.cast_into::<PyList>()?)
    }

    /// Instruction counts, arrays by type, and logical against padded bytes, per module and
    /// computation: the `stats` object of `hlo-layout stats --format json`, for the layouts
    /// the module has.
    ///
    /// >>> m.stats()["module"]["logical_bytes"]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let module = self.module.clone();
        let stats = py.detach(move || hlo_layout::analysis::stats::module_stats(&module));
        serialized(py, &stats)
    }
}

/// Parses HLO text into a module, as `hlo-layout` reads a file. Bad text raises `HloError`
/// with every error found.
///
/// >>> m = hlo_layout.parse(text)
#[pyfunction]
fn parse(py: Python<'_>, text: Text) -> PyResult<Module> {
    let source = Arc::new(text);
    let parsing = source.clone();
    let parsed = py.detach(move || {
        hlo_layout::parse_module(&parsing)
            .map_err(|errors| Failure::new(SOURCE_NAME, &parsing, errors))
    });
    match parsed {
        Ok(module) => Ok(Module {
            module: Arc::new(module),
            source,
        }),
        Err(failure) => Err(failure.into_error(py)),
    }
}

/// Assigns layouts for `target` as `hlo-layout assign` does, and returns the new module with
/// the report of `hlo-layout assign --report --format json`. `m` is left as it was. A module
/// that does not verify raises `HloError`.
///
/// >>> assigned, report = hlo_layout.assign(m, target="tpu-v5e", entry_layouts="given")
/// >>> report["copies_inserted"]
#[pyfunction]
#[pyo3(signature = (module, target = "tpu-v5e", entry_layouts = "given"))]
fn assign<'py>(
    py: Python<'py>,
    module: &Module,
    target: &str,
    entry_layouts: &str,
) -> PyResult<(Module, Bound<'py, PyAny>)> {
    let target = Target::from_name(target).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown target `{target}`; targets: {}",
            TARGET_NAMES.join(", ")
        ))
    })?;
    let entry_layouts = match entry_layouts {
        "given" => EntryLayouts::Given,
        "auto" => EntryLayouts::Auto,
        other => {
            return Err(PyValueError::new_err(format!(
                "entry_layouts is `given` or `auto`, not `{other}`"
            )))
        }
    };
    let options = AssignOptions {
        entry_layouts,
        ..AssignOptions::default()
    };
    let input = module.module.clone();
    let source = module.source.clone();
    let assigned = py.detach(move || {
        let mut assigned = hlo_layout::ir::Module::clone(&input);
        match assign_verified(&mut assigned, &target, &options) {
            Ok(report) => Ok((assigned, report)),
            Err(AssignFailure::Input(errors)) => Err(Failure::new(SOURCE_NAME, &source, errors)),
            Err(AssignFailure::Assign(error)) => {
                Err(Failure::new(SOURCE_NAME, &source, vec![error]))
            }
            Err(AssignFailure::Output(errors)) => {
                let mut failure = Failure::new(SOURCE_NAME, &source, errors);
                failure.note =
                    Some("error: the assigned module does not verify; this is a bug in hlo-layout");
                Err(failure)
            }
        }
    });
    match assigned {
        Ok((assigned, report)) => Ok((module.derived(assigned), serialized(py, &report)?)),
        Err(failure) => Err(failure.into_error(py)),
    }
}

/// The diagnostics of parsing and verifying `text`, as `hlo-layout check --format json`
/// lists them; empty when the module is valid.
///
/// >>> hlo_layout.check(text)
/// []
#[pyfunction]
fn check<'py>(py: Python<'py>, text: Text) -> PyResult<Bound<'py, PyList>> {
    let diagnostics = py.detach(move || {
        let options = hlo_layout::verify::VerifyOptions::default();
        match hlo_layout::check::check_module_range(&text, 0..text.len(), &options) {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .iter()
                .map(|error| hlo_layout::diagnostic::to_json(error, Some(&text)))
                .collect(),
        }
    });
    let list = to_python(py, &serde_json::Value::Array(diagnostics))?;
    Ok(list.cast_into::<PyList>()?)
}

/// Where the elements of an array shape live under its layout: the keys of
/// `hlo-layout explain --format json` (without `command`, `ok` and `version`), and with
/// `index` the element's `linear_index`.
///
/// >>> hlo_layout.explain("f32[3,5]{1,0:T(2,2)}", index=[2, 3])["linear_index"]
/// 17
#[pyfunction]
#[pyo3(signature = (shape, index = None))]
fn explain<'py>(
    py: Python<'py>,
    shape: &str,
    index: Option<Vec<i64>>,
) -> PyResult<Bound<'py, PyAny>> {
    match hlo_layout::explain::explain(shape, index.as_deref(), None) {
        Ok(explained) => to_python(py, &serde_json::Value::Object(explained.to_json())),
        Err(failure) => {
            let name = match failure.source {
                hlo_layout::explain::Source::Shape => "shape",
                hlo_layout::explain::Source::Index => "index",
                hlo_layout::explain::Source::PaddedDimensions => "padded_dimensions",
            };
            Err(Failure::new(name, &failure.text, failure.errors).into_error(py))
        }
    }
}

/// Runs a pipeline of passes as `hlo-layout opt --passes` does (`hlo-layout passes` lists
/// them), verifying after each pass that changed the module, and returns the new module.
/// Warnings (a `fixpoint` that hit its cap) go to Python's `warnings`.
///
/// >>> hlo_layout.run_passes(m, "fixpoint(simplify-layout-ops,dce)")
#[pyfunction]
fn run_passes(py: Python<'_>, module: &Module, passes: &str) -> PyResult<Module> {
    let spec = hlo_layout::passes::parse_pipeline(passes)
        .map_err(|errors| Failure::new("passes", passes, errors).into_error(py))?;
    let input = module.module.clone();
    let source = module.source.clone();
    let ran = py.detach(move || {
        let mut output = hlo_layout::ir::Module::clone(&input);
        let options = hlo_layout::pass::PipelineOptions::default();
        // `opt`'s pipeline name, which only dump file names would show.
        let mut pipeline = spec.instantiate("opt", options);
        match pipeline.run(&mut output) {
            Ok(report) => Ok((output, report.warnings)),
            Err(error) => Err(Failure::new(SOURCE_NAME, &source, vec![error])),
        }
    });
    let (output, warnings) = ran.map_err(|failure| failure.into_error(py))?;
    if !warnings.is_empty() {
        let warn = py.import("warnings")?;
        for warning in warnings {
            warn.call_method1("warn", (warning,))?;
        }
    }
    Ok(module.derived(output))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("HloError", m.py().get_type::<HloError>())?;
    m.add("TARGETS", TARGET_NAMES.to_vec())?;
    m.add_class::<Module>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(assign, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(run_passes, m)?)?;
    Ok(())
}
