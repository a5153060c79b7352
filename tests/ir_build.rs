//! The typed builders of `ir::build` (issue 29): each infers its result shape, lays it out
//! by the module's rule, writes its attributes as XLA prints them, and gives a module that
//! verifies and reads back once added; each mistake is an error that names the operands and
//! the computation.

use hlo_layout::ir::attrs::DotDimensionNumbers;
use hlo_layout::ir::build::{self, BuildError, Direction, New};
use hlo_layout::ir::{Computation, InstrId, Layout, Module, Opcode, PrimitiveType, Tile};
use hlo_layout::verify::{verify, VerifyOptions};

const MODULE: &str = "HloModule m

ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  t = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(2)
  v = f32[3,4]{1,0} parameter(3)
  s = (f32[2,3]{1,0}) parameter(4)
  ROOT r = f32[2,3]{1,0} negate(b)
}
";

fn module() -> Module {
    hlo_layout::parse_module(MODULE).unwrap_or_else(|e| panic!("{e:?}"))
}

fn id(c: &Computation, name: &str) -> InstrId {
    c.find(name).unwrap_or_else(|| panic!("no `{name}`"))
}

/// Adds `built` before the root, checks the module verifies and reads back, and returns the
/// new instruction's line.
fn added(mut module: Module, built: New) -> String {
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let root = c.root().unwrap();
    let new = c
        .insert_before(root, built.instruction, &built.operands)
        .unwrap();
    let name = c.instruction(new).name().to_string();
    verify(&module, &VerifyOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let text = hlo_layout::print::print_ir_module(&module);
    let again = hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    assert_eq!(hlo_layout::print::print_ir_module(&again), text);
    text.lines()
        .find(|line| {
            let line = line.trim_start().trim_start_matches('%');
            line.starts_with(&format!("{name} = "))
        })
        .unwrap()
        .trim()
        .to_string()
}

/// Builds with `f` on the test module and returns the new line, or the error's message.
fn build_with(f: impl Fn(&Computation) -> Result<New, BuildError>) -> Result<String, String> {
    let module = module();
    let built = f(module.entry()).map_err(|e| e.to_string())?;
    Ok(added(module, built))
}

#[test]
fn transpose_takes_the_operand_physical_order() {
    let line = build_with(|c| build::transpose(c, id(c, "a"), &[1, 0]));
    assert_eq!(
        line.unwrap(),
        "transpose = f32[3,2]{1,0} transpose(a), dimensions={1,0}"
    );
    let error = build_with(|c| build::transpose(c, id(c, "a"), &[0, 0])).unwrap_err();
    assert!(
        error.contains("transpose") && error.contains("operands `a` in computation `e`"),
        "{error}"
    );
}

#[test]
fn unary_keeps_the_layout() {
    let line = build_with(|c| build::unary(c, Opcode::Exp, id(c, "a")));
    assert_eq!(line.unwrap(), "exponential = f32[2,3]{0,1} exponential(a)");
    let error = build_with(|c| build::unary(c, Opcode::Add, id(c, "a"))).unwrap_err();
    assert!(error.contains("operands `a` in computation `e`"), "{error}");
}

#[test]
fn binary_is_laid_out_as_its_lhs() {
    let line = build_with(|c| build::binary(c, Opcode::Add, id(c, "a"), id(c, "b")));
    assert_eq!(line.unwrap(), "add = f32[2,3]{0,1} add(a, b)");
    let error = build_with(|c| build::binary(c, Opcode::Add, id(c, "a"), id(c, "v")));
    let error = error.unwrap_err();
    assert!(
        error.starts_with("add: ") && error.contains("operands `a`, `v` in computation `e`"),
        "{error}"
    );
    let error = build_with(|c| build::binary(c, Opcode::Compare, id(c, "a"), id(c, "b")));
    assert!(error.unwrap_err().contains("use `build::compare`"));
}

#[test]
fn compare_writes_its_direction() {
    let line = build_with(|c| build::compare(c, id(c, "b"), id(c, "a"), Direction::Lt));
    assert_eq!(
        line.unwrap(),
        "compare = pred[2,3]{1,0} compare(b, a), direction=LT"
    );
}

#[test]
fn convert_drops_tiles_only_when_the_width_changes() {
    let line = build_with(|c| build::convert(c, id(c, "t"), PrimitiveType::F32));
    assert_eq!(line.unwrap(), "convert = f32[8,128]{1,0} convert(t)");
    let line = build_with(|c| build::convert(c, id(c, "t"), PrimitiveType::F16));
    assert_eq!(
        line.unwrap(),
        "convert = f16[8,128]{1,0:T(8,128)(2,1)} convert(t)"
    );
    let error = build_with(|c| build::convert(c, id(c, "t"), PrimitiveType::Token));
    assert!(error.unwrap_err().contains("cannot convert to token"));
}

#[test]
fn reshape_gets_the_default_layout() {
    let line = build_with(|c| build::reshape(c, id(c, "a"), &[3, 2, 1]));
    assert_eq!(line.unwrap(), "reshape = f32[3,2,1]{2,1,0} reshape(a)");
    let error = build_with(|c| build::reshape(c, id(c, "a"), &[5])).unwrap_err();
    assert!(
        error.contains("element counts differ") && error.contains("`a` in computation `e`"),
        "{error}"
    );
}

#[test]
fn broadcast_maps_operand_dims() {
    let line = build_with(|c| build::broadcast(c, id(c, "b"), &[2, 4, 3], &[0, 2]));
    assert_eq!(
        line.unwrap(),
        "broadcast = f32[2,4,3]{2,1,0} broadcast(b), dimensions={0,2}"
    );
    let error = build_with(|c| build::broadcast(c, id(c, "b"), &[2, 4, 3], &[0, 1]));
    assert!(
        error
            .unwrap_err()
            .contains("has size 3 but result dimension 1 has size 4"),
        "broadcast"
    );
}

#[test]
fn slice_writes_its_ranges() {
    let line = build_with(|c| build::slice(c, id(c, "a"), &[0, 1], &[2, 3], &[1, 1]));
    assert_eq!(
        line.unwrap(),
        "slice = f32[2,2]{0,1} slice(a), slice={[0:2], [1:3]}"
    );
    let line = build_with(|c| build::slice(c, id(c, "b"), &[1, 0], &[2, 3], &[1, 2]));
    assert_eq!(
        line.unwrap(),
        "slice = f32[1,2]{1,0} slice(b), slice={[1:2:1], [0:3:2]}"
    );
    let error = build_with(|c| build::slice(c, id(c, "a"), &[0], &[2, 3], &[1, 1]));
    assert!(error
        .unwrap_err()
        .contains("1 starts, 2 limits and 2 strides"));
    let error = build_with(|c| build::slice(c, id(c, "a"), &[0, 0], &[2, 4], &[1, 1]));
    assert!(error.unwrap_err().contains("`a` in computation `e`"));
}

#[test]
fn dot_writes_typed_dimension_numbers() {
    let numbers = DotDimensionNumbers {
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
        ..DotDimensionNumbers::default()
    };
    let line = build_with(|c| build::dot(c, id(c, "b"), id(c, "v"), &numbers));
    assert_eq!(
        line.unwrap(),
        "dot = f32[2,4]{1,0} dot(b, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    );
    let wrong = DotDimensionNumbers {
        lhs_contracting: vec![0],
        ..numbers
    };
    let error = build_with(|c| build::dot(c, id(c, "b"), id(c, "v"), &wrong)).unwrap_err();
    assert!(
        error.starts_with("dot: ") && error.contains("operands `b`, `v` in computation `e`"),
        "{error}"
    );
}

#[test]
fn copy_and_with_layout_check_the_layout() {
    let line = build_with(|c| build::copy(c, id(c, "a"), Some(Layout::descending(2))));
    assert_eq!(line.unwrap(), "copy = f32[2,3]{1,0} copy(a)");
    let tiled = Layout::descending(2).tiled(vec![Tile::new(&[2, 128])]);
    let line = build_with(|c| build::copy(c, id(c, "b"), Some(tiled.clone())));
    assert_eq!(line.unwrap(), "copy = f32[2,3]{1,0:T(2,128)} copy(b)");
    let error = build_with(|c| build::copy(c, id(c, "a"), Some(Layout::descending(3))));
    let error = error.unwrap_err();
    assert!(
        error.starts_with("layout {2,1,0} does not fit the new `copy` of shape f32[2,3]{0,1}"),
        "{error}"
    );
    let line =
        build_with(|c| build::reshape(c, id(c, "a"), &[6])?.with_layout(Layout::descending(1)));
    assert_eq!(line.unwrap(), "reshape = f32[6]{0} reshape(a)");
}

#[test]
fn bitcast_takes_the_shape_as_given() {
    let shape = hlo_layout::parse_array_shape("f32[3,2]{0,1}").unwrap();
    let line = build_with(|c| build::bitcast(c, id(c, "b"), shape.clone()));
    assert_eq!(line.unwrap(), "bitcast = f32[3,2]{0,1} bitcast(b)");
}

#[test]
fn operands_must_be_arrays_of_this_computation() {
    let error = build_with(|c| build::unary(c, Opcode::Negate, id(c, "s"))).unwrap_err();
    assert_eq!(error, "`s` in computation `e` is not an array");
    let mut module = module();
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let a = id(c, "a");
    let built = build::unary(c, Opcode::Negate, a).unwrap();
    let n = c
        .insert_before(c.root().unwrap(), built.instruction, &built.operands)
        .unwrap();
    c.remove(n).unwrap();
    let error = build::bitcast(c, n, hlo_layout::parse_array_shape("f32[6]{0}").unwrap());
    assert!(matches!(
        error,
        Err(BuildError::NoSuchInstruction { computation, .. }) if computation == "e"
    ));
}

#[test]
fn new_instructions_take_the_print_style_of_their_operand() {
    let text = MODULE.replace(" a = ", " %a = ").replace("(a)", "(%a)");
    let module = hlo_layout::parse_module(&text).unwrap();
    let c = module.entry();
    let built = build::reshape(c, id(c, "a"), &[6]).unwrap();
    assert!(built.instruction.style.percent);
    let line = added(module, built);
    assert_eq!(line, "%reshape = f32[6]{0} reshape(%a)");
}
