//! Resource limits (`src/lib.rs`, "Limits"): generated inputs at and beyond each limit, and inputs
//! of a depth or length no limit covers, go through everything the library does without a
//! crash. Each runs on a thread with a 2 MiB stack, the default for test threads, so that a
//! recursion over the input's depth fails here whatever RUST_MIN_STACK says. Every input
//! is generated here; none is committed.

mod common;

use std::fmt::Write;
use std::time::{Duration, Instant};

use common::Reached;
use hlo_layout::lower::shape::MAX_SHAPE_DEPTH;
use hlo_layout::syntax::lexer::MAX_NESTING;

const STACK: usize = 2 << 20;

/// Runs `text` through everything (see `common::run_everything`) on a 2 MiB stack.
fn everything(text: String) -> Reached {
    let thread = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || common::run_everything(&text));
    let result = thread
        .expect("spawn a test thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    result.unwrap_or_else(|problem| panic!("{problem}"))
}

/// The library's errors for `text`, rendered, from the first stage that rejects it.
fn rejection(text: &str) -> String {
    match hlo_layout::parse_module(text) {
        Err(errors) => common::render("input", text, errors),
        Ok(module) => match hlo_layout::verify::verify(&module, &Default::default()) {
            Err(errors) => common::render("input", text, errors),
            Ok(()) => String::new(),
        },
    }
}

fn assert_shape_too_deep(text: String) {
    assert!(
        rejection(&text).contains("shapes nested more than 64 deep"),
        "{}",
        rejection(&text)
    );
    assert_eq!(everything(text), Reached::Rejected);
}

fn assert_too_deep(text: String) {
    assert!(
        rejection(&text).contains("nested too deeply"),
        "{}",
        rejection(&text)
    );
    assert_eq!(everything(text), Reached::Rejected);
}

/// `depth` nested anonymous instructions: `negate(f32[] negate(... p))`.
fn nested_instructions(depth: usize) -> String {
    format!(
        "ENTRY main {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate({}p{})\n}}\n",
        "f32[] negate(".repeat(depth - 1),
        ")".repeat(depth - 1)
    )
}

/// A parameter whose shape is `depth` tuples around one array.
fn nested_tuple_shape(depth: usize) -> String {
    let shape = format!("{}f32[2]{{0}}{}", "(".repeat(depth), ")".repeat(depth));
    format!("ENTRY main {{\n  ROOT p = {shape} parameter(0)\n}}\n")
}

/// A constant of `depth` nested tuples: the shape and the literal both nest.
fn nested_tuple_literal(depth: usize) -> String {
    let shape = format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth));
    let literal = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
    format!("ENTRY main {{\n  ROOT c = {shape} constant({literal})\n}}\n")
}

/// An attribute value of `depth` nested brackets of all three kinds.
fn nested_attribute(depth: usize) -> String {
    let (mut open, mut close) = (String::new(), String::new());
    for i in 0..depth {
        let (o, c) = [("{", "}"), ("(", ")"), ("[", "]")][i % 3];
        open.push_str(o);
        close.insert_str(0, c);
    }
    // A word inside: `{1}` or `[1]` would be one integer-list token, not a bracket.
    format!("ENTRY main {{\n  ROOT p = f32[] parameter(0), custom={open}x{close}\n}}\n")
}

/// Shapes nested inside layouts: `s32[2]{0:P(s32[2]{0:P(...)})}`.
fn nested_layout_shapes(depth: usize) -> String {
    let shape = format!(
        "{}s32[2]{{0}}{}",
        "s32[2]{0:P(".repeat(depth),
        ")}".repeat(depth)
    );
    format!("ENTRY main {{\n  ROOT p = {shape} parameter(0)\n}}\n")
}

/// Bracket depth is counted by the lexer for every bracket: the deepest input it accepts
/// goes through everything (recursion at the limit fits a 2 MiB stack), and one level more
/// is the diagnostic. The enclosing `ENTRY main {` takes one level, an innermost `f32[]`
/// another.
#[test]
fn bracket_nesting_at_the_limit_runs_and_beyond_it_is_a_diagnostic() {
    assert_eq!(
        everything(nested_instructions(MAX_NESTING - 1)),
        Reached::Assigned
    );
    assert_too_deep(nested_instructions(MAX_NESTING));
    // `custom` is no attribute of `parameter`: the verifier rejects it, after lowering.
    assert_eq!(
        everything(nested_attribute(MAX_NESTING - 1)),
        Reached::Lowered
    );
    assert_too_deep(nested_attribute(MAX_NESTING));
}

/// Shapes have their own, lower limit, so that the printer's output, which adds layouts and
/// `entry_computation_layout={(...)}` around them, stays inside the bracket limit.
#[test]
fn shape_nesting_at_the_limit_runs_and_beyond_it_is_a_diagnostic() {
    assert_eq!(MAX_SHAPE_DEPTH, 64);
    // `depth` tuples around an array are depth + 1 shapes.
    let deepest = MAX_SHAPE_DEPTH - 1;
    assert_eq!(everything(nested_tuple_shape(deepest)), Reached::Assigned);
    assert_shape_too_deep(nested_tuple_shape(deepest + 1));
    assert_eq!(everything(nested_tuple_literal(deepest)), Reached::Assigned);
    assert_shape_too_deep(nested_tuple_literal(deepest + 1));
    let reached = everything(nested_layout_shapes(deepest));
    assert!(
        !rejection(&nested_layout_shapes(deepest)).contains("nested"),
        "{reached:?}"
    );
    assert_shape_too_deep(nested_layout_shapes(deepest + 1));
}

#[test]
fn hostile_depths_are_a_diagnostic() {
    assert_too_deep(nested_instructions(100_000));
    assert_too_deep(nested_tuple_shape(100_000));
    assert_too_deep(nested_tuple_literal(100_000));
    assert_too_deep(nested_attribute(100_000));
    assert_too_deep(nested_layout_shapes(100_000));
}

/// Computations calling computations, 100,000 deep, callees first (named `k`: `c64` and
/// `c128` are element types, which XLA refuses as names).
#[test]
fn call_chain_100k_deep() {
    let depth = 100_000;
    let mut text = String::from("HloModule chain\n\nk0 {\n  ROOT p = f32[2]{0} parameter(0)\n}\n");
    for i in 1..depth {
        let _ = write!(
            text,
            "\nk{i} {{\n  p = f32[2]{{0}} parameter(0)\n  ROOT r = f32[2]{{0}} call(p), to_apply=k{}\n}}\n",
            i - 1
        );
    }
    let _ = write!(
        text,
        "\nENTRY main {{\n  p = f32[2]{{0}} parameter(0)\n  ROOT r = f32[2]{{0}} call(p), to_apply=k{}\n}}\n",
        depth - 1
    );
    assert_eq!(everything(text), Reached::Assigned);
}

/// While loops whose bodies hold while loops, 20,000 deep.
#[test]
fn while_bodies_20k_deep() {
    let depth = 20_000;
    let mut text = String::from(
        "HloModule loops\n\ncond {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n\n\
         body0 {\n  ROOT p = s32[] parameter(0)\n}\n",
    );
    for i in 1..depth {
        let _ = write!(
            text,
            "\nbody{i} {{\n  p = s32[] parameter(0)\n  ROOT w = s32[] while(p), condition=cond, body=body{}\n}}\n",
            i - 1
        );
    }
    let _ = write!(
        text,
        "\nENTRY main {{\n  p = s32[] parameter(0)\n  ROOT w = s32[] while(p), condition=cond, body=body{}\n}}\n",
        depth - 1
    );
    assert_eq!(everything(text), Reached::Assigned);
}

/// One computation that is a chain of a million instructions, each using the one before:
/// the stages that walk the graph (lowering, verifying, post-order, assignment, printing),
/// without the repeated rounds of `run_everything`, which a 34 MB text makes slow.
#[test]
fn instruction_chain_of_a_million() {
    let length = 1_000_000;
    let mut text = String::from("ENTRY main {\n  a0 = f32[8,128]{1,0} parameter(0)\n");
    for i in 1..length {
        let _ = writeln!(text, "  a{i} = f32[8,128]{{1,0}} negate(a{})", i - 1);
    }
    let _ = writeln!(
        text,
        "  ROOT r = f32[8,128]{{1,0}} negate(a{})\n}}",
        length - 1
    );
    let thread = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            use hlo_layout::verify::{verify, VerifyOptions};
            let mut module = hlo_layout::parse_module(&text).expect("parses");
            verify(&module, &VerifyOptions::default()).expect("verifies");
            let entry = module.entry();
            assert_eq!(entry.post_order().len(), length + 1);
            let target = hlo_layout::ir::Target::default_tpu();
            hlo_layout::assign::assign_layouts(&mut module, &target).expect("assigns");
            let sensitive = VerifyOptions {
                layout_sensitive: true,
            };
            verify(&module, &sensitive).expect("the assigned module verifies");
            hlo_layout::print::print_ir_module(&module).len()
        });
    let printed = thread
        .expect("spawn")
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p));
    assert!(printed > 30 << 20);
}

/// Generous bound for work that is linear in a few megabytes; quadratic work on the same
/// input would take hours.
const LINEAR: Duration = Duration::from_secs(120);

#[test]
fn a_10mb_name_and_a_4m_element_literal_take_linear_time() {
    let name = "n".repeat(10 << 20);
    let text = format!(
        "ENTRY main {{\n  {name} = f32[2]{{0}} parameter(0)\n  ROOT r = f32[2]{{0}} negate({name})\n}}\n"
    );
    let start = Instant::now();
    assert_eq!(everything(text), Reached::Assigned);
    assert!(start.elapsed() < LINEAR, "{:?}", start.elapsed());

    let elements = 4 << 20;
    let literal = vec!["1.5"; elements].join(",");
    let text =
        format!("ENTRY main {{\n  ROOT c = f32[{elements}]{{0}} constant({{{literal}}})\n}}\n");
    let start = Instant::now();
    assert_eq!(everything(text), Reached::Assigned);
    assert!(start.elapsed() < LINEAR, "{:?}", start.elapsed());
}

fn module_with(shape: &str) -> String {
    format!("ENTRY main {{\n  ROOT p = {shape} parameter(0)\n}}\n")
}

#[test]
fn arrays_over_2_pow_48_bytes_are_a_diagnostic() {
    let limit = hlo_layout::lower::shape::MAX_ARRAY_BYTES;
    assert_eq!(limit, 1 << 48);
    // 2^46 f32 elements take exactly the limit.
    assert_eq!(
        everything(module_with("f32[70368744177664]")),
        Reached::Assigned
    );
    for too_large in [
        "f32[70368744177665]",
        // Tiles pad the minor dim of 1 to 128: 2^49 bytes.
        "f32[1099511627776,1]{1,0:T(8,128)}",
        "f32[4294967296,4294967296]",
        "f32[9223372036854775807,2]{1,0}",
        "(f32[2], f32[70368744177665])",
    ] {
        let text = module_with(too_large);
        let message = rejection(&text);
        assert!(
            message.contains("over the limit") || message.contains("overflows"),
            "{too_large}: {message}"
        );
        assert_eq!(everything(text), Reached::Rejected, "{too_large}");
    }
    // No elements, but two dims whose product overflows: an error or nothing, not a panic.
    let empty = module_with("f32[4611686018427387904,4611686018427387904,0]{0,1,2}");
    let reached = everything(empty.clone());
    assert!(
        reached == Reached::Assigned || rejection(&empty).contains("overflows"),
        "{reached:?}: {}",
        rejection(&empty)
    );
}

/// Mesh sizes are the text's integers; their product may overflow.
#[test]
fn mesh_sizes_whose_product_overflows_are_a_diagnostic() {
    let text = "HloModule m, num_partitions=8\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT a = f32[] add(x, y)\n}\n\n\
                ENTRY main {\n  p = f32[8]{0} parameter(0)\n  ROOT q = f32[8]{0} all-reduce(p), channel_id=1, \
                replica_groups=mesh['x'=4294967296,'y'=4294967296], device_ids=([4294967296,4294967297]T(1,0)) {'y'}, \
                use_global_device_ids=true, to_apply=add\n}\n";
    println!("{:?}", everything(text.to_string()));
    assert!(
        rejection(text).contains("more than 2^63"),
        "{}",
        rejection(text)
    );
}
