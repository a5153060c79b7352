//! Rewriting through the IR's public API as an XLA pass does (issue 29): replacing an
//! instruction moves its users, its root role and its control dependencies, keeps its
//! metadata, and drops operands only it used; the result prints text that reads back.

use hlo_layout::ir::module::EditError;
use hlo_layout::ir::{Instruction, Opcode};
use hlo_layout::verify::{verify, VerifyOptions};

fn parse(text: &str) -> hlo_layout::ir::Module {
    hlo_layout::parse_module(text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn printed_and_reread(module: &hlo_layout::ir::Module) -> String {
    verify(module, &VerifyOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let text = hlo_layout::print::print_ir_module(module);
    assert_eq!(hlo_layout::print::print_ir_module(&parse(&text)), text);
    text
}

#[test]
fn replace_with_new_moves_users_and_keeps_metadata() {
    let mut module = parse(
        "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  a = f32[4]{0} negate(p)\n  n = f32[4]{0} negate(a), metadata={op_name=\"neg\"}\n  ROOT r = f32[4]{0} exponential(n)\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let n = computation.find("n").unwrap();
    let p = computation.find("p").unwrap();
    let shape = computation.instruction(n).shape.clone();
    // negate(negate(p)) is p's absolute value's... simply p: fold to a copy of p.
    let new = computation
        .replace_with_new(n, Instruction::new("c", Opcode::Copy, shape), &[p])
        .unwrap();
    assert_eq!(
        computation.instruction(new).attribute("metadata"),
        Some("{op_name=\"neg\"}")
    );
    // `a` was used only by `n`, so it went too.
    assert!(computation.find("a").is_none());
    assert!(computation.find("n").is_none());
    let text = printed_and_reread(&module);
    assert!(
        text.contains("c = f32[4]{0} copy(p), metadata={op_name=\"neg\"}"),
        "{text}"
    );
    assert!(text.contains("ROOT r = f32[4]{0} exponential(c)"), "{text}");
}

#[test]
fn replacing_the_root_moves_the_root() {
    let mut module =
        parse("ENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n");
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let n = computation.find("n").unwrap();
    let p = computation.find("p").unwrap();
    let shape = computation.instruction(n).shape.clone();
    let new = computation
        .replace_with_new(n, Instruction::new("t", Opcode::Tanh, shape), &[p])
        .unwrap();
    assert_eq!(computation.root(), Some(new));
    let text = printed_and_reread(&module);
    assert!(text.contains("ROOT t = f32[4]{0} tanh(p)"), "{text}");
}

#[test]
fn control_dependencies_are_relayed() {
    let mut module = parse(
        "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  b = f32[4]{0} negate(p)\n  a = f32[4]{0} exponential(p), control-predecessors={b}\n  c = f32[4]{0} tanh(p), control-predecessors={a}\n  ROOT r = (f32[4]{0}, f32[4]{0}) tuple(a, c)\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let (p, a, b, c) = (
        computation.find("p").unwrap(),
        computation.find("a").unwrap(),
        computation.find("b").unwrap(),
        computation.find("c").unwrap(),
    );
    assert_eq!(computation.control_predecessors(a), [b]);
    assert_eq!(computation.control_successors(a), [c]);
    let shape = computation.instruction(a).shape.clone();
    let new = computation
        .replace_with_new(a, Instruction::new("s", Opcode::Sine, shape), &[p])
        .unwrap();
    // The replacement runs after what `a` ran after, and before what ran after `a`.
    assert_eq!(computation.control_predecessors(new), [b]);
    assert_eq!(computation.control_predecessors(c), [new]);
    computation.remove_control_dependency(new, c).unwrap();
    assert!(computation
        .instruction(c)
        .attribute("control-predecessors")
        .is_none());
    computation.add_control_dependency(b, c).unwrap();
    computation.add_control_dependency(b, c).unwrap();
    assert_eq!(computation.control_predecessors(c), [b]);
    let text = printed_and_reread(&module);
    assert!(
        text.contains("s = f32[4]{0} sine(p), control-predecessors={b}"),
        "{text}"
    );
}

#[test]
fn a_removed_instruction_is_an_error_not_a_panic() {
    let mut module = parse(
        "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  n = f32[4]{0} negate(p)\n  ROOT r = f32[4]{0} negate(p)\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let n = computation.find("n").unwrap();
    let r = computation.find("r").unwrap();
    computation.remove(n).unwrap();
    let removed = EditError::Removed {
        id: n,
        computation: "e".to_string(),
    };
    assert_eq!(computation.replace_instruction(n, r), Err(removed.clone()));
    assert_eq!(computation.replace_instruction(r, n), Err(removed.clone()));
    assert_eq!(
        computation.add_control_dependency(n, r),
        Err(removed.clone())
    );
    assert_eq!(computation.get(n).err(), Some(removed.clone()));
    assert!(!computation.contains(n));
    let shape = computation.instruction(r).shape.clone();
    assert_eq!(
        computation
            .replace_with_new(
                r,
                Instruction::new("x", Opcode::Negate, shape.clone()),
                &[n]
            )
            .err(),
        Some(removed.clone())
    );
    assert_eq!(
        removed.to_string(),
        format!("instruction {n} was removed from computation `e`")
    );
    // Adding with a removed id adds nothing.
    let count = computation.len();
    let negate = Instruction::new("m", Opcode::Negate, shape.clone());
    assert_eq!(
        computation.insert_before(r, negate.clone(), &[n]).err(),
        Some(removed.clone())
    );
    assert_eq!(
        computation.insert_before(n, negate.clone(), &[]).err(),
        Some(removed.clone())
    );
    assert_eq!(
        computation.push(negate.clone(), &[n]).err(),
        Some(removed.clone())
    );
    assert_eq!(computation.add_operand_edge(n, r, 1), Err(removed.clone()));
    assert_eq!(computation.len(), count);
    // A newcomer may take the removed instruction's graph index; the old id still names
    // nothing rather than the newcomer.
    let p = computation.find("p").unwrap();
    let newcomer = computation.insert_before(r, negate, &[p]).unwrap();
    assert_eq!(newcomer.index(), n.index());
    assert_ne!(newcomer, n);
    assert_eq!(computation.get(n).err(), Some(removed.clone()));
    assert_eq!(computation.get(newcomer).unwrap().name(), "m");
    assert_eq!(computation.order().to_vec(), vec![p, newcomer, r]);
    // The panicking lookup says as much, for code that holds an id it did not check.
    let computation = &*computation;
    let panic = std::panic::catch_unwind(|| computation.instruction(n).name().len()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert_eq!(message, &removed.to_string());
}

/// An id is its computation's: used in another one, including a clone, it is an error that
/// names the computation, not whatever instruction has the same index there (issue 29).
#[test]
fn an_id_of_another_computation_is_an_error_naming_the_computation() {
    let mut module = parse(
        "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}\n",
    );
    let add = module.find_computation("add").unwrap();
    let entry = module.entry;
    // `x` of `add` has the index `p` has in the entry.
    let x = module.computation(add).find("x").unwrap();
    let p = module.computation(entry).find("p").unwrap();
    assert_eq!(x.index(), p.index());
    assert_ne!(x, p);
    let foreign = EditError::Foreign {
        id: x,
        computation: "e".to_string(),
    };
    let computation = module.computation_mut(entry);
    assert_eq!(computation.get(x).err(), Some(foreign.clone()));
    assert!(!computation.contains(x));
    let r = computation.root().unwrap();
    assert_eq!(computation.replace_operand(r, 0, x), Err(foreign.clone()));
    assert_eq!(computation.rename(x, "q"), Err(foreign.clone()));
    assert_eq!(computation.remove(x).err(), Some(foreign.clone()));
    assert!(foreign.to_string().contains("computation `e`"), "{foreign}");
    let built = hlo_layout::ir::build::unary(computation, Opcode::Negate, x);
    assert!(
        matches!(&built, Err(hlo_layout::ir::build::BuildError::NoSuchInstruction { computation, .. }) if computation == "e"),
        "{built:?}"
    );
    let computation = &*computation;
    let panic = std::panic::catch_unwind(|| computation.operands(x)).unwrap_err();
    assert_eq!(panic.downcast_ref::<String>(), Some(&foreign.to_string()));

    // A clone is edited apart from the original: the original's ids are foreign to it, and
    // an instruction carries over by name.
    let copy = module.clone();
    assert!(copy.computation(entry).get(p).is_err());
    let same = copy.computation(entry).find("p").unwrap();
    assert_eq!(copy.computation(entry).instruction(same).name(), "p");
    assert!(module.computation(entry).get(same).is_err());
    // Ids keep working in their own computation, and sort by index there.
    let order = module.computation(entry).order().to_vec();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(module.computation(entry).get(p).unwrap().name(), "p");
}

/// A rename keeps the name index right and refuses a name the module already has
/// (issue 29), in the same computation or another.
#[test]
fn rename_refuses_a_name_the_module_has() {
    let mut module = parse(
        "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let p = computation.find("p").unwrap();
    assert_eq!(
        computation.rename(p, "r"),
        Err(EditError::NameTaken {
            name: "p".to_string(),
            taken: "r".to_string(),
            computation: "e".to_string(),
        })
    );
    let error = computation.rename(p, "x").unwrap_err();
    assert!(matches!(&error, EditError::NameTaken { taken, .. } if taken == "x"));
    assert_eq!(
        error.to_string(),
        "cannot rename `p` in computation `e` to `x`: the module already has an instruction of that name"
    );
    computation.rename(p, "p").unwrap();
    computation.rename(p, "input").unwrap();
    assert_eq!(computation.find("input"), Some(p));
    assert_eq!(computation.find("p"), None);
    // The old name is free again, in the module too.
    let add = module.find_computation("add").unwrap();
    let computation = module.computation_mut(add);
    let (x, y, s) = (
        computation.find("x").unwrap(),
        computation.find("y").unwrap(),
        computation.find("s").unwrap(),
    );
    computation.rename(x, "p").unwrap();
    // A control dependency names its predecessor in text, which follows a rename.
    computation.add_control_dependency(y, s).unwrap();
    computation.rename(y, "second").unwrap();
    assert_eq!(computation.control_predecessors(s), [y]);
    let text = printed_and_reread(&module);
    assert!(text.contains("input = f32[4]{0} parameter(0)"), "{text}");
    assert!(text.contains("control-predecessors={second}"), "{text}");
}

/// Names the API makes up are new in the whole module, as XLA's `NameUniquer` keeps them,
/// and a new instruction prints as the line it goes before (issue 29).
#[test]
fn generated_names_are_unique_in_the_module_and_take_the_neighbours_style() {
    let mut module = parse(
        "add {\n  x = f32[] parameter(0)\n  copy = f32[] copy(x)\n  copy.1 = f32[] copy(copy)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(copy.1, y)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let (p, r) = (
        computation.find("p").unwrap(),
        computation.find("r").unwrap(),
    );
    let copy = hlo_layout::ir::build::copy(computation, p, None).unwrap();
    let first = computation
        .insert_before(r, copy.instruction.clone(), &copy.operands)
        .unwrap();
    let second = computation
        .insert_before(r, copy.instruction, &copy.operands)
        .unwrap();
    assert_eq!(computation.instruction(first).name(), "copy.2");
    assert_eq!(computation.instruction(second).name(), "copy.3");
    // The text wrote no `%`, and neither does the new line.
    assert!(!computation.instruction(first).style.percent);
    let percent = Instruction::new("y", Opcode::Copy, computation.instruction(p).shape.clone());
    assert!(percent.style.percent);
    let third = computation.insert_before(r, percent, &[p]).unwrap();
    assert_eq!(computation.instruction(third).name(), "y.1");
    assert!(!computation.instruction(third).style.percent);
    assert_eq!(computation.unique_name("x"), "x.1");
    // A computation on its own knows only its own names.
    let mut alone = hlo_layout::ir::Computation::new("alone");
    let shape = module.computation(entry).instruction(p).shape.clone();
    let a = alone
        .push(Instruction::new("a", Opcode::Parameter, shape.clone()), &[])
        .unwrap();
    let copy = alone
        .insert_before(a, Instruction::new("x", Opcode::Copy, shape), &[])
        .unwrap();
    assert_eq!(alone.instruction(copy).name(), "x");
    let text = printed_and_reread(&module);
    assert!(!text.contains('%'), "{text}");
    assert!(text.contains("y.1 = f32[4]{0} copy(p)"), "{text}");
}

/// A module's computations are reached through accessors that keep their ids and the
/// module's names right; a computation added later takes part in unique names.
#[test]
fn an_added_computation_takes_part_in_unique_names() {
    let mut module =
        parse("ENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n");
    let entry = module.entry;
    let shape = module
        .computation(entry)
        .instruction(module.computation(entry).find("p").unwrap())
        .shape
        .clone();
    let mut side = hlo_layout::ir::Computation::new("e");
    side.is_entry = false;
    let q = side
        .push(Instruction::new("q", Opcode::Parameter, shape.clone()), &[])
        .unwrap();
    let root = side
        .push(Instruction::new("m", Opcode::Negate, shape.clone()), &[q])
        .unwrap();
    side.set_root(root);
    // Linked before the computation is added, and after.
    let computation = module.computation_mut(entry);
    let n = computation.find("n").unwrap();
    let made = computation
        .insert_before(n, Instruction::new("q", Opcode::Copy, shape.clone()), &[])
        .unwrap();
    assert_eq!(computation.instruction(made).name(), "q");
    let id = module.add_computation(side);
    assert_eq!(module.computation(id).name, "e.1");
    assert_eq!(module.computations().len(), 2);
    // Its parameter's name was taken by the entry's copy: it is renamed, as XLA's
    // `AddEmbeddedComputation` does, and the old id still names it.
    assert_eq!(module.computation(id).instruction(q).name(), "q.1");
    assert_eq!(module.computation(id).instruction(root).name(), "m");
    let computation = module.computation_mut(entry);
    let made = computation
        .insert_before(n, Instruction::new("m", Opcode::Copy, shape), &[])
        .unwrap();
    assert_eq!(computation.instruction(made).name(), "m.1");
}

/// Typed views of dimension numbers, and setters that write attributes as XLA prints them,
/// so that a pass needs no attribute strings (issue 29).
#[test]
fn dimension_numbers_are_read_and_written_typed() {
    let mut module = parse(
        "ENTRY e {\n  a = f32[2,3,4]{2,1,0} parameter(0)\n  b = f32[2,4,5]{2,1,0} parameter(1)\n  ROOT d = f32[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let d = computation.find("d").unwrap();
    let mut numbers = computation.instruction(d).dot_dimension_numbers().unwrap();
    assert_eq!(
        (
            numbers.lhs_batch.as_slice(),
            numbers.rhs_contracting.as_slice()
        ),
        (&[0][..], &[1][..])
    );
    numbers.lhs_batch.clear();
    numbers.rhs_batch.clear();
    numbers.lhs_contracting = vec![0, 2];
    numbers.rhs_contracting = vec![0, 1];
    computation
        .instruction_mut(d)
        .set_dot_dimension_numbers(&numbers);
    computation
        .instruction_mut(d)
        .set_int_list_attribute("sparsity_dims", &[2, 0, 1]);
    let instruction = computation.instruction(d);
    assert_eq!(instruction.attribute("lhs_batch_dims"), None);
    assert_eq!(instruction.attribute("lhs_contracting_dims"), Some("{0,2}"));
    assert_eq!(instruction.attribute("sparsity_dims"), Some("{2,0,1}"));
    let conv = parse(
        "ENTRY e {\n  x = f32[1,8,8,3]{3,2,1,0} parameter(0)\n  k = f32[3,3,3,4]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,6,6,4]{3,2,1,0} convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f\n}\n",
    );
    let c = conv.entry();
    let labels = c
        .instruction(c.find("c").unwrap())
        .convolution_dimension_numbers()
        .unwrap();
    assert_eq!(
        (labels.input_batch_dimension, labels.input_feature_dimension),
        (0, 3)
    );
    // Written back, the labels read as they were; swapped, they print as XLA would.
    let mut conv = conv.clone();
    let entry = conv.entry;
    let computation = conv.computation_mut(entry);
    let id = computation.find("c").unwrap();
    let mut swapped = labels.clone();
    std::mem::swap(
        &mut swapped.input_batch_dimension,
        &mut swapped.input_feature_dimension,
    );
    computation
        .instruction_mut(id)
        .set_convolution_dimension_numbers(&swapped);
    assert_eq!(
        computation.instruction(id).attribute("dim_labels"),
        Some("f01b_01io->b01f")
    );
    assert_eq!(
        computation.instruction(id).convolution_dimension_numbers(),
        Some(swapped)
    );
}

/// Mistakes the editing API allows but no parser reads are `verify` errors that name the
/// instruction (issue 29): a layout of another rank, a tile of size 0, a name used twice, an
/// operand below its user.
#[test]
fn verify_names_what_the_api_let_through() {
    use hlo_layout::ir::{Layout, Shape, Tile};
    use std::sync::Arc;
    let base = parse("ENTRY e {\n  p = f32[8,128]{1,0} parameter(0)\n  n = f32[8,128]{1,0} negate(p)\n  ROOT r = f32[8,128]{1,0} negate(n)\n}\n");
    let errors = |module: &hlo_layout::ir::Module| -> Vec<(String, String)> {
        verify(module, &VerifyOptions::default())
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.instruction, e.message))
            .collect()
    };
    let with_layout = |layout: Layout| {
        let mut module = base.clone();
        let entry = module.entry;
        let c = module.computation_mut(entry);
        let n = c.find("n").unwrap();
        let mut shape = c.instruction(n).shape.as_ref().clone();
        if let Shape::Array(array) = &mut shape {
            array.layout = Some(layout);
        }
        c.instruction_mut(n).shape = Arc::new(shape);
        module
    };
    let found = errors(&with_layout(Layout::with_minor_to_major(vec![0])));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].0 == "n" && found[0].1.contains("minor_to_major has length 1"),
        "{found:?}"
    );
    let found = errors(&with_layout(
        Layout::descending(2).tiled(vec![Tile::new(&[0, 128])]),
    ));
    assert!(
        found
            .iter()
            .any(|(i, m)| i == "n" && m.contains("tile sizes must be positive")),
        "{found:?}"
    );

    let mut module = base.clone();
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let n = c.find("n").unwrap();
    // A rename refuses the name; pushing an instruction keeps the name it is given.
    assert!(c.rename(n, "r").is_err());
    let shape = c.instruction(n).shape.clone();
    c.push(Instruction::new("r", Opcode::Negate, shape), &[n])
        .unwrap();
    let found = errors(&module);
    assert!(
        found
            .iter()
            .any(|(_, m)| m.contains("the name `r` is used twice")),
        "{found:?}"
    );

    let mut module = base.clone();
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let (p, n) = (c.find("p").unwrap(), c.find("n").unwrap());
    let shape = c.instruction(p).shape.clone();
    let late = c
        .push(Instruction::new("late", Opcode::Negate, shape), &[p])
        .unwrap();
    c.replace_operand(n, 0, late).unwrap();
    let found = errors(&module);
    assert_eq!(
        found,
        [(
            "n".to_string(),
            "operand `late` comes after its user in the computation's order".to_string()
        )]
    );
}

/// In a computation long enough to keep a name index (which answers one instruction a name),
/// a name pushed a second time is reported once; the same computation without it reports
/// none.
#[test]
fn verify_finds_a_name_used_twice_in_a_long_computation() {
    let mut text = String::from("ENTRY e {\n  p = f32[8] parameter(0)\n");
    for i in 0..40 {
        let operand = if i == 0 {
            "p".to_string()
        } else {
            format!("n{}", i - 1)
        };
        text.push_str(&format!("  n{i} = f32[8] negate({operand})\n"));
    }
    text.push_str("  ROOT r = f32[8] negate(n39)\n}\n");
    let base = parse(&text);
    let twice = |module: &hlo_layout::ir::Module| -> Vec<String> {
        verify(module, &VerifyOptions::default())
            .err()
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.message.contains("used twice"))
            .map(|e| e.instruction)
            .collect()
    };
    assert!(twice(&base).is_empty());
    let mut module = base.clone();
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let n5 = c.find("n5").unwrap();
    let shape = c.instruction(n5).shape.clone();
    c.push(Instruction::new("n5", Opcode::Negate, shape), &[n5])
        .unwrap();
    assert_eq!(c.find("n5"), Some(n5));
    assert_eq!(twice(&module), ["n5"]);
}

/// Gather and scatter dimension numbers: batching lists are empty when absent and written
/// only when not empty; a missing `index_vector_dim` reads as `None`, not as 0.
#[test]
fn gather_and_scatter_dimension_numbers_are_typed() {
    let mut module = parse(
        "ENTRY e {\n  x = f32[5,7,3]{2,1,0} parameter(0)\n  i = s32[4,1]{1,0} parameter(1)\n  ROOT g = f32[4,7,3]{2,1,0} gather(x, i), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7,3}\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let g = computation.find("g").unwrap();
    let mut numbers = computation
        .instruction(g)
        .gather_dimension_numbers()
        .unwrap();
    assert_eq!(numbers.offset_dims, [1, 2]);
    assert_eq!(numbers.collapsed_slice_dims, [0]);
    assert!(numbers.operand_batching_dims.is_empty());
    assert_eq!(numbers.index_vector_dim, 1);
    numbers.operand_batching_dims = vec![2];
    numbers.start_indices_batching_dims = vec![0];
    computation
        .instruction_mut(g)
        .set_gather_dimension_numbers(&numbers);
    let instruction = computation.instruction(g);
    assert_eq!(instruction.attribute("operand_batching_dims"), Some("{2}"));
    assert_eq!(
        instruction.gather_dimension_numbers(),
        Some(numbers.clone())
    );
    numbers.operand_batching_dims.clear();
    numbers.start_indices_batching_dims.clear();
    computation
        .instruction_mut(g)
        .set_gather_dimension_numbers(&numbers);
    let instruction = computation.instruction(g);
    assert_eq!(instruction.attribute("operand_batching_dims"), None);
    let text = printed_and_reread(&module);
    assert!(
        text.contains("offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7,3}"),
        "{text}"
    );

    let mut module = parse(
        "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[5,3]{1,0} parameter(0)\n  i = s32[4]{0} parameter(1)\n  u = f32[4,3]{1,0} parameter(2)\n  ROOT s = f32[5,3]{1,0} scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let s = computation.find("s").unwrap();
    let numbers = computation
        .instruction(s)
        .scatter_dimension_numbers()
        .unwrap();
    assert_eq!(
        (
            numbers.update_window_dims.as_slice(),
            numbers.inserted_window_dims.as_slice(),
            numbers.index_vector_dim
        ),
        (&[1][..], &[0][..], 1)
    );
    computation
        .instruction_mut(s)
        .attributes
        .retain(|a| &*a.name != "index_vector_dim");
    assert_eq!(computation.instruction(s).scatter_dimension_numbers(), None);
    computation
        .instruction_mut(s)
        .set_scatter_dimension_numbers(&numbers);
    printed_and_reread(&module);
}

/// Moving a computation to exact room keeps every id, operand order and the print order,
/// and leaves the computation editable; a graph with a removed node keeps its indices.
#[test]
fn shrinking_to_fit_keeps_ids_operands_and_order() {
    let mut text = String::from("ENTRY e {\n  p = f32[4]{0} parameter(0)\n");
    let mut previous = "p".to_string();
    for i in 0..40 {
        text.push_str(&format!("  d{i} = f32[4]{{0}} subtract({previous}, p)\n"));
        previous = format!("d{i}");
    }
    text.push_str(&format!("  ROOT r = f32[4]{{0}} add(p, {previous})\n}}\n"));
    let mut module = parse(&text);
    let entry = module.entry;
    let before = printed_and_reread(&module);
    let computation = module.computation_mut(entry);
    let ids: Vec<_> = computation.order().to_vec();
    // Room for more, as a builder that reserved too much leaves it.
    computation.reserve(1000);
    computation.shrink_to_fit();
    assert_eq!(computation.graph().capacity().0, computation.len());
    assert_eq!(computation.order(), &ids[..]);
    let r = computation.find("r").unwrap();
    let p = computation.find("p").unwrap();
    let d39 = computation.find("d39").unwrap();
    assert_eq!(computation.operands(r), &[p, d39]);
    assert_eq!(printed_and_reread(&module), before);

    // Still editable: an added instruction takes room anew.
    let computation = module.computation_mut(entry);
    let shape = computation.instruction(p).shape.clone();
    let n = computation
        .insert_before(r, Instruction::new("n", Opcode::Negate, shape), &[p])
        .unwrap();
    computation.replace_operand(r, 0, n).unwrap();
    let text = printed_and_reread(&module);
    assert!(text.contains("ROOT r = f32[4]{0} add(n, d39)"), "{text}");

    // With a removed node the graph keeps its indices (and its room); ids stay valid.
    let computation = module.computation_mut(entry);
    let d0 = computation.find("d0").unwrap();
    let d1 = computation.find("d1").unwrap();
    computation.replace_operand(d1, 0, p).unwrap();
    computation.remove(d0).unwrap();
    let ids: Vec<_> = computation.order().to_vec();
    computation.shrink_to_fit();
    assert_eq!(computation.order(), &ids[..]);
    assert_eq!(computation.operands(d1), &[p, p]);
    printed_and_reread(&module);
}

#[test]
fn replacing_in_place_keeps_the_id_users_and_room() {
    let mut module = parse(
        "ENTRY e {\n  p = f32[8,128]{1,0} parameter(0)\n  c = f32[8,128]{1,0} copy(p), metadata={op_name=\"c\"}\n  n = f32[8,128]{1,0} negate(c)\n  ROOT t = (f32[8,128]{1,0}, f32[8,128]{1,0}) tuple(c, n)\n}\n",
    );
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let (p, c, n) = (
        computation.find("p").unwrap(),
        computation.find("c").unwrap(),
        computation.find("n").unwrap(),
    );
    computation.shrink_to_fit();
    let room = computation.graph().capacity();
    let order = computation.order().to_vec();
    let shape = computation.instruction(c).shape.clone();
    let old = computation
        .replace_in_place(c, Instruction::new("p", Opcode::Bitcast, shape), &[p])
        .unwrap();
    assert_eq!(old.name(), "c");
    assert_eq!(old.attribute("metadata"), Some("{op_name=\"c\"}"));
    // The same id, named anew in the module (`p` is taken), in the same place, with the
    // same users; nothing was added, so the graph kept its room.
    assert_eq!(computation.instruction(c).name(), "p.1");
    assert_eq!(computation.find("p.1"), Some(c));
    assert!(computation.find("c").is_none());
    assert_eq!(computation.order(), &order[..]);
    assert_eq!(computation.operands(c), &[p]);
    assert_eq!(computation.operands(n), &[c]);
    assert_eq!(computation.graph().capacity(), room);
    let text = printed_and_reread(&module);
    assert!(
        text.contains("  p.1 = f32[8,128]{1,0} bitcast(p)\n"),
        "{text}"
    );
    assert!(text.contains("tuple(p.1, n)"), "{text}");

    // An instruction cannot take the place of one it uses, nor use a removed one; either
    // way nothing changes.
    let computation = module.computation_mut(entry);
    let shape = computation.instruction(n).shape.clone();
    let itself = computation.replace_in_place(
        n,
        Instruction::new("m", Opcode::Negate, shape.clone()),
        &[n],
    );
    assert!(
        matches!(itself, Err(EditError::UsesItself { ref name, .. }) if name == "n"),
        "{itself:?}"
    );
    let before = printed_and_reread(&module);
    let computation = module.computation_mut(entry);
    let removed = computation
        .insert_before(
            n,
            Instruction::new("x", Opcode::Negate, shape.clone()),
            &[p],
        )
        .unwrap();
    computation.remove(removed).unwrap();
    let gone =
        computation.replace_in_place(n, Instruction::new("m", Opcode::Negate, shape), &[removed]);
    assert!(matches!(gone, Err(EditError::Removed { .. })), "{gone:?}");
    assert_eq!(printed_and_reread(&module), before);
}

#[test]
fn an_edit_grows_an_exactly_sized_computation_by_an_eighth() {
    let mut text = String::from("ENTRY e {\n  p = f32[4]{0} parameter(0)\n");
    for i in 0..63 {
        text.push_str(&format!("  n{i} = f32[4]{{0}} negate(p)\n"));
    }
    text.push_str("  ROOT r = f32[4]{0} negate(n62)\n}\n");
    let mut module = parse(&text);
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    computation.shrink_to_fit();
    assert_eq!(computation.graph().capacity(), (65, 64));
    let (p, r) = (
        computation.find("p").unwrap(),
        computation.find("r").unwrap(),
    );
    let shape = computation.instruction(p).shape.clone();
    let add = |computation: &mut hlo_layout::ir::module::Computation| {
        let shape = shape.clone();
        computation
            .insert_before(r, Instruction::new("c", Opcode::Copy, shape), &[p])
            .unwrap()
    };
    // Room for an eighth more (8 of 65 nodes, 8 of 64 edges), not for as many again.
    let first = add(computation);
    assert_eq!(computation.graph().capacity(), (73, 72));
    for _ in 0..7 {
        add(computation);
    }
    assert_eq!(computation.graph().capacity(), (73, 72));
    add(computation);
    assert_eq!(computation.graph().capacity(), (73 + 9, 72 + 9));
    // A slot a removal left is taken first.
    computation.remove(first).unwrap();
    let room = computation.graph().capacity();
    add(computation);
    assert_eq!(computation.graph().capacity(), room);
    printed_and_reread(&module);
}
