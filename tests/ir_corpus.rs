//! Every module of the corpus lowers to the IR graph, and printing the unchanged IR gives
//! exactly what `fmt` prints.

mod common;

use std::path::Path;

/// Lowers and prints each module of a file; returns (modules, failures described).
fn check_file(path: &Path, split: bool) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parts = common::module_ranges(&text, split);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let mut failures = Vec::new();
    for range in &parts {
        let formatted = match hlo_layout::format_module_range(&text, range.clone()) {
            Ok(formatted) => formatted,
            // The front end's own tests cover what does not parse.
            Err(_) => continue,
        };
        match hlo_layout::parse_module_range(&text, range.clone()) {
            Ok(module) => {
                let printed = hlo_layout::print::print_ir_module(&module);
                if printed != formatted {
                    let line = printed
                        .lines()
                        .zip(formatted.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    failures.push(format!(
                        "{name}: IR print differs from fmt at line {}:\n  ir:  {}\n  fmt: {}",
                        line + 1,
                        printed.lines().nth(line).unwrap_or(""),
                        formatted.lines().nth(line).unwrap_or("")
                    ));
                }
            }
            Err(errors) => failures.push(format!(
                "{name}: does not lower:\n{}",
                common::render(name, &text, errors)
            )),
        }
    }
    (parts.len(), failures)
}

fn check_folder(folder: &str, split: bool, allowed: &[&str]) {
    let Some(dir) = common::corpus_dir(folder) else {
        return;
    };
    let mut modules = 0;
    let mut failures = Vec::new();
    for path in common::files(&dir, "hlo") {
        let (count, file_failures) = check_file(&path, split);
        modules += count;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !allowed.contains(&name) {
            failures.extend(file_failures);
        }
    }
    assert!(modules > 0, "no modules in {folder}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Files with nested anonymous instructions (`add(f32[] parameter(0), ...)`): the IR gives
/// each its own line named `opcode.anon`, as XLA does, while `fmt` keeps them in place.
const NESTED: &[&str] = &[
    "176_nrt_SimpleNesting.hlo",
    "177_nrt_AmbiguousNames.hlo",
    "178_nrt_TupleShapeInsideAnonymousInstr.hlo",
    "179_nrt_MixAnonAndNonAnonOperands.hlo",
    "180_nrt_BroadcastOfScalarDoesntNeedDimensionsAttr.hlo",
    "generate_hlo_test_checks_test_input.hlo",
    "generate_hlo_test_checks_test_output.hlo",
];

#[test]
fn jax_modules_lower_and_print_as_fmt() {
    check_folder("jax", false, &[]);
}

#[test]
fn large_modules_lower_and_print_as_fmt() {
    check_folder("large", false, &[]);
}

#[test]
fn xla_test_modules_lower_and_print_as_fmt() {
    check_folder("xla-tests", true, NESTED);
}

#[test]
fn parser_test_modules_lower_and_print_as_fmt() {
    check_folder("xla-parser-tests", false, NESTED);
}

#[test]
fn corpus_modules_pass_the_structural_verifier() {
    let mut checked = 0;
    for folder in ["jax", "large"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            let module =
                hlo_layout::parse_module(&text).unwrap_or_else(|_| panic!("{}", path.display()));
            let options = hlo_layout::verify::VerifyOptions::default();
            if let Err(errors) = hlo_layout::verify::verify(&module, &options) {
                panic!("{}: {:?}", path.display(), errors);
            }
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// Found by fuzzing: an instruction that is its own operand made reordering loop forever.
/// It is now an operand used before its definition, as XLA says.
#[test]
fn self_referencing_instruction_is_an_error_not_a_hang() {
    let text = "ENTRY main {\n  p = f32[2]{0} parameter(0)\n  q = f32[2]{0} negate(q)\n  ROOT r = f32[2]{0} add(p, q)\n}\n";
    let errors = hlo_layout::parse_module(text).expect_err("a self use");
    assert!(
        errors
            .iter()
            .any(|e| e.to_string().contains("`q` is used before its definition")),
        "{errors:?}"
    );
}

/// The typed views of every `gather` and `scatter` in the corpus: each reads, prints as the
/// instruction's own line writes it, and written back onto an instruction stripped of those
/// attributes prints the module unchanged (issue 29: a pass needs no attribute strings).
#[test]
fn gather_and_scatter_dimension_numbers_read_and_write_back() {
    use hlo_layout::ir::Opcode;
    const NAMES: &[&str] = &[
        "offset_dims",
        "collapsed_slice_dims",
        "start_index_map",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "update_window_dims",
        "inserted_window_dims",
        "scatter_dims_to_operand_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "index_vector_dim",
    ];
    let mut seen = [0usize; 2];
    let folders = [
        "jax",
        "large",
        "xla-tests",
        "xla-parser-tests",
        "tpu-real",
        "tpu-real/xla-tests",
    ];
    for folder in folders {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.contains("gather(") && !text.contains("scatter(") {
                continue;
            }
            for range in hlo_layout::syntax::split_modules(&text) {
                // What does not parse is the front end's tests' business.
                let Ok(module) = hlo_layout::parse_module_range(&text, range) else {
                    continue;
                };
                let printed = hlo_layout::print::print_ir_module(&module);
                let mut rewritten = module.clone();
                for c in module.computation_ids() {
                    let computation = module.computation(c);
                    // A clone's ids are its own; the same instruction is at the same place.
                    let copied = rewritten.computation(c).order().to_vec();
                    for (&id, &copy) in computation.order().iter().zip(&copied) {
                        let instruction = computation.instruction(id);
                        let place = format!("{}: `{}`", path.display(), instruction.name());
                        let view = match instruction.opcode {
                            Opcode::Gather => {
                                seen[0] += 1;
                                let numbers = instruction.gather_dimension_numbers();
                                let numbers = numbers.unwrap_or_else(|| panic!("{place}"));
                                let mut stripped = instruction.clone();
                                stripped.attributes.retain(|a| !NAMES.contains(&&*a.name));
                                stripped.set_gather_dimension_numbers(&numbers);
                                *rewritten.computation_mut(c).instruction_mut(copy) = stripped;
                                numbers.to_string()
                            }
                            Opcode::Scatter => {
                                seen[1] += 1;
                                let numbers = instruction.scatter_dimension_numbers();
                                let numbers = numbers.unwrap_or_else(|| panic!("{place}"));
                                let mut stripped = instruction.clone();
                                stripped.attributes.retain(|a| !NAMES.contains(&&*a.name));
                                stripped.set_scatter_dimension_numbers(&numbers);
                                *rewritten.computation_mut(c).instruction_mut(copy) = stripped;
                                numbers.to_string()
                            }
                            _ => continue,
                        };
                        // XLA prints the dimension numbers together, in the view's order.
                        let line = printed
                            .lines()
                            .find(|line| {
                                let name = line.trim_start().trim_start_matches("ROOT ");
                                let name = name.trim_start_matches('%');
                                name.starts_with(&format!("{} = ", instruction.name()))
                            })
                            .unwrap_or_else(|| panic!("{place}: no line"));
                        assert!(line.contains(&view), "{place}: `{view}` not in\n{line}");
                    }
                }
                let again = hlo_layout::print::print_ir_module(&rewritten);
                assert!(
                    again == printed,
                    "{}: differs once written back",
                    path.display()
                );
            }
        }
    }
    println!(
        "{} gathers and {} scatters read and written back",
        seen[0], seen[1]
    );
    assert!(seen[0] > 0 && seen[1] > 0, "gathers and scatters: {seen:?}");
}
