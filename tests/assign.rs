//! Layout assignment: snapshots of small modules that each exercise one rule, and every
//! module of the corpus assigned, verified in layout-sensitive mode and read back.

mod common;

use hlo_layout::ir::Target;
use hlo_layout::verify::{verify, VerifyOptions};

fn assign_text(text: &str, target: &str) -> (String, String) {
    let mut module = hlo_layout::parse_module(text).unwrap_or_else(|e| panic!("{e:?}"));
    let target = Target::from_name(target).expect("known target");
    let report = hlo_layout::assign::assign_layouts(&mut module, &target).expect("assigns");
    let options = VerifyOptions {
        layout_sensitive: true,
    };
    if let Err(errors) = verify(&module, &options) {
        panic!("assigned module does not verify: {errors:?}");
    }
    (
        hlo_layout::print::print_ir_module(&module),
        report.to_text(),
    )
}

#[test]
fn assign_snapshots() {
    common::settings().bind(|| {
        insta::glob!("inputs/assign/*.hlo", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let (module, report) = assign_text(&text, "tpu-v5e");
            insta::assert_snapshot!(format!("{report}\n{module}"));
        });
    });
}

#[test]
fn bitcasts_and_copies_follow_the_exact_predicate() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/assign/reshapes.hlo"
    ))
    .unwrap();
    let (module, _) = assign_text(&text, "tpu-v5e");
    // C2: splitting the major dim of f32[16,128]{T(8,128)} moves nothing.
    assert!(
        module.contains("%bitcast_like = f32[2,8,128]{2,1,0:T(8,128)} bitcast(%p)"),
        "{module}"
    );
    // C5: f32[16,256] -> f32[4,4,256] moves element (0,128), so it stays a reshape.
    assert!(module.contains("reshape(%q)"), "{module}");
    // A trailing size-1 dim goes most-major, which makes the reshape a bitcast (C10).
    assert!(
        module.contains("f32[16,128,1]{1,0,2:T(8,128)} bitcast(%p)"),
        "{module}"
    );
}

#[test]
fn while_positions_agree_including_tiles() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/assign/while_loop.hlo"
    ))
    .unwrap();
    let mut module = hlo_layout::parse_module(&text).unwrap();
    hlo_layout::assign::assign_layouts(&mut module, &Target::default_tpu()).unwrap();
    let shape_of = |computation: &str, name: &str| {
        let id = module.find_computation(computation).unwrap();
        let c = module.computation(id);
        c.instruction(c.find(name).unwrap()).shape.to_string()
    };
    let body = module.computation(module.find_computation("body").unwrap());
    let body_root = body.instruction(body.root().unwrap()).shape.to_string();
    let init = shape_of("main", "init");
    for position in [
        shape_of("main", "w"),
        shape_of("body", "b"),
        shape_of("cond", "c"),
        body_root,
    ] {
        assert_eq!(position, init);
    }
}

#[test]
fn cpu_target_assigns_untiled_layouts() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/assign/packing.hlo"
    ))
    .unwrap();
    let (module, _) = assign_text(&text, "cpu");
    assert!(!module.contains(":T("), "{module}");
}

/// Snapshots of real JAX modules (read from ../shared/corpus, skipped without it).
#[test]
fn real_jax_module_snapshots() {
    let Some(dir) = common::corpus_dir("jax") else {
        return;
    };
    for name in [
        "layout_tiled.pre.hlo",
        "cond_branches.pre.hlo",
        "dot_general_batch_dims.pre.hlo",
        "shape_manipulation.pre.hlo",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let (module, report) = assign_text(&text, "tpu-v5e");
        // Metadata and stack frames are noise here; the layouts are what is reviewed.
        let module: String = module
            .lines()
            .map(|line| line.split(", metadata={").next().unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n");
        common::settings().bind(|| {
            insta::assert_snapshot!(format!("assign_real_{name}"), format!("{report}\n{module}"));
        });
    }
}

/// Every jax and large module assigns; the result verifies with layouts and reads back, and
/// is the same when the input is lowered again rather than copied (as `assign` does).
#[test]
fn corpus_modules_assign_verify_and_reparse() {
    use hlo_layout::assign::EntryLayouts;
    let mut assigned = 0;
    for folder in ["jax", "large"] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            let (printed, _) = assign_text(&text, "tpu-v5e");
            chosen_never_costs_more::same_lowering_again(&text, EntryLayouts::Given);
            let reparsed = hlo_layout::parse_module(&printed)
                .unwrap_or_else(|e| panic!("{}: output does not parse: {e:?}", path.display()));
            assert_eq!(
                hlo_layout::print::print_ir_module(&reparsed),
                printed,
                "{}",
                path.display()
            );
            assigned += 1;
        }
    }
    assert_eq!(assigned, 52);
}

/// Issue 33: `assign` writes a module for every input `check` accepts, with the entry's
/// layouts given and with `auto`, and the result verifies with layouts. Over every corpus
/// module that parses and verifies (XLA's tests, its parser's round-trip cases, real TPU
/// dumps whose bitcasts change element counts, JAX dumps, large models). Assigning keeps
/// the input as its printed text, read back for the second assignment: the result is the
/// same as with the input lowered again from the file, as `assign` does.
#[test]
fn every_module_check_accepts_assigns() {
    use hlo_layout::assign::{assign_layouts_with, AssignOptions, EntryLayouts};
    let mut assigned = 0;
    for folder in [
        "jax",
        "xla-tests",
        "xla-parser-tests",
        "tpu-real",
        "tpu-real/xla-tests",
    ] {
        let Some(dir) = common::corpus_dir(folder) else {
            return;
        };
        for path in common::files(&dir, "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(module) = hlo_layout::parse_module(&text) else {
                continue;
            };
            if verify(&module, &VerifyOptions::default()).is_err() {
                continue;
            }
            for entry_layouts in [EntryLayouts::Given, EntryLayouts::Auto] {
                let mut module = module.clone();
                let options = AssignOptions {
                    entry_layouts,
                    ..AssignOptions::default()
                };
                let before = common::name_counts(&module);
                assign_layouts_with(&mut module, &Target::default_tpu(), &options)
                    .unwrap_or_else(|e| panic!("{} ({entry_layouts:?}): {e}", path.display()));
                // The input kept as printed text reads back as the module lowered again.
                chosen_never_costs_more::same_lowering_again(&text, entry_layouts);
                common::assert_made_up_names_unique(&before, &module, &path.display().to_string());
                let sensitive = VerifyOptions {
                    layout_sensitive: true,
                };
                if let Err(errors) = verify(&module, &sensitive) {
                    panic!("{} ({entry_layouts:?}): {errors:?}", path.display());
                }
            }
            assigned += 1;
        }
    }
    // 424 of the corpus's modules parse and verify as of this writing.
    assert!(assigned >= 424, "only {assigned} modules assigned");
}

/// Found by fuzzing (assign target): compact tuple-element operands (`%p0#1#0`) were read as
/// the whole tuple, so the assigned `tuple` did not verify. They become get-tuple-elements
/// named as XLA's parser names them.
#[test]
fn compact_tuple_element_operands_assign_and_verify() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/inputs/assign/compact_tuple_elements.hlo"
    ))
    .unwrap();
    let (module, _) = assign_text(&text, "tpu-v5e");
    assert!(module.contains("  p0_1 = ("), "{module}");
    assert!(
        module.contains("  p0_1_0 = f32[20]{0:T(128)} get-tuple-element("),
        "{module}"
    );
    assert!(!module.contains('#'), "{module}");
}

/// Found by the corpus-mutation test: a header layout that does not fit the entry is the
/// verifier's error (as in XLA), and assign does not take shapes from it.
#[test]
fn entry_layout_that_does_not_fit_the_entry_is_rejected_and_not_used() {
    let text = common::regression_input("entry_layout_mismatch.hlo");
    let mut module = hlo_layout::parse_module(&text).unwrap();
    let errors = verify(&module, &VerifyOptions::default()).expect_err("rejected");
    assert!(
        errors[0].message.contains(
            "Shape of the root instruction of entry computation (s32[1,2,3]) should be \
             compatible to one specified in module's entry computation layout (s32[1,2,39])"
        ),
        "{errors:?}"
    );
    hlo_layout::assign::assign_layouts(&mut module, &Target::default_tpu()).unwrap();
    let printed = hlo_layout::print::print_ir_module(&module);
    assert!(!printed.contains("copy"), "{printed}");
    // The header now describes the assigned entry, so the result verifies.
    let options = VerifyOptions {
        layout_sensitive: true,
    };
    assert_eq!(verify(&module, &options), Ok(()), "{printed}");
}

/// Found by fuzzing the assign target: the header may write the entry's dims differently
/// (`?` for 4), which XLA finds compatible; assign takes only its layouts, and the rewritten
/// header keeps the dims as written.
#[test]
fn entry_layout_gives_layouts_not_dims() {
    let (module, _) = assign_text(
        &common::regression_input("entry_layout_dynamic_dims.hlo"),
        "tpu-v5e",
    );
    assert!(
        module.contains(
            "entry_computation_layout={(f32[?,8]{0,1:T(8,128)}, f32[4]{0:T(128)})->f32[?,8]{0,1:T(8,128)}}"
        ),
        "{module}"
    );
    assert!(
        module.contains("  p0 = f32[4,8]{0,1:T(8,128)} parameter(0)\n"),
        "{module}"
    );
    assert!(
        module.contains("  ROOT m = f32[4,8]{0,1:T(8,128)} map(p0, b)"),
        "{module}"
    );
    assert!(!module.contains("f32[?,8]{0,1:T(8,128)} copy"), "{module}");
}

/// Found by the corpus-mutation test: an s4 scatter with s32 indices of the same rank
/// assigns and verifies in layout-sensitive mode.
#[test]
fn s4_scatter_with_s32_indices_assigns_and_verifies() {
    let (module, _) = assign_text(
        &common::regression_input("scatter_s4_indices.hlo"),
        "tpu-v5e",
    );
    assert!(module.contains("E(4)"), "{module}");
}

/// Found by fuzzing (assign target): a bitcast that changes the element type or count has no
/// reading as reshape and transposes. It keeps its written layouts, tiled by the target when
/// both sides then keep equal bytes (`f32[64,128]` to `f32[8,8,64]`: 32 KiB each under
/// `T(8,128)`); when no layout gives them equal bytes (`f16[8,8,128]` is half the size),
/// assignment refuses it and leaves the module as it was.
#[test]
fn bitcast_that_changes_the_element_type_or_count_is_an_error() {
    let text = common::regression_input("bitcast_changes_type.hlo");
    let count = text.replacen("f16[8,8,128]", "f32[8,8,64]", 1);
    let (module, _) = assign_text(&count, "tpu-v5e");
    assert!(
        module.contains("ROOT b = f32[8,8,64]{2,1,0:T(8,128)} bitcast(n)"),
        "{module}"
    );
    for to in ["f16[8,8,128]", "f16[8,8,64]"] {
        let text = text.replacen("f16[8,8,128]", to, 1);
        let mut module = hlo_layout::parse_module(&text).unwrap();
        verify(&module, &VerifyOptions::default()).expect("XLA's verifier takes any bitcast");
        let before = hlo_layout::print::print_ir_module(&module);
        let error =
            hlo_layout::assign::assign_layouts(&mut module, &Target::from_name("tpu-v5e").unwrap())
                .expect_err("refused");
        assert!(
            error
                .to_string()
                .contains("`b` in `e` bitcasts f32[64,128]"),
            "{error}"
        );
        assert_eq!(hlo_layout::print::print_ir_module(&module), before);
        // The error points into this text, though the pass read its input back from the
        // text it printed.
        let lowered = hlo_layout::parse_module(&text).unwrap();
        let entry = lowered.computation(lowered.entry);
        let bitcast = entry.instruction(entry.find("b").expect("b"));
        let hlo_layout::assign::AssignError::Bitcast { span, .. } = error else {
            panic!("{error:?}");
        };
        assert_eq!(span, bitcast.span);
        assert!(
            text[span.range()].contains("bitcast(n)"),
            "{:?}",
            &text[span.range()]
        );
    }
    // One width, same dims and order: the elementwise reinterpretation XLA calls
    // bitcast-convert, as real dumps have it.
    let reinterpret = text.replacen("f16[8,8,128]", "s32[64,128]", 1);
    let (module, _) = assign_text(&reinterpret, "tpu-v5e");
    assert!(
        module.contains("ROOT b = s32[64,128]{1,0:T(8,128)} bitcast-convert(n)"),
        "{module}"
    );
    let same = text
        .replace("  ROOT b = f16[8,8,128] bitcast(n)\n", "")
        .replace("  same", "  ROOT same");
    let (module, _) = assign_text(&same, "tpu-v5e");
    assert!(
        module.contains("= f32[8,8,128]{2,1,0:T(8,128)} bitcast(n)"),
        "{module}"
    );
}

/// Computations written in place (XLA's canonical print) are assigned layouts like named
/// ones and printed back in place; the output reads back and verifies.
#[test]
fn in_place_computations_are_assigned_and_stay_in_place() {
    let (module, _) = assign_text(
        &common::regression_input("in_place_computations.hlo"),
        "tpu-v5e",
    );
    assert!(
        module
            .contains("dimensions={0}, to_apply=\n  {\n    tmp_0 = f32[]{:T(128)} parameter(0)\n"),
        "{module}"
    );
    assert!(
        module.contains("branch_computations={\n  {\n    tmp_0 = f32[]{:T(128)} parameter(0)\n"),
        "{module}"
    );
    assert!(!module.contains("calls=_"), "{module}");
    let again = hlo_layout::parse_module(&module).unwrap_or_else(|e| panic!("{e:?}"));
    let options = VerifyOptions {
        layout_sensitive: true,
    };
    verify(&again, &options).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(hlo_layout::print::print_ir_module(&again), module);
}

/// The chosen layouts never cost more (`cost::module_cost`: padding plus bytes moved) than
/// the rule before choosing, descending layouts, on random modules of elementwise chains,
/// transposes, broadcasts, reshapes that add a size-1 dim, reductions and dots over small
/// and lane-sized dims, with random given entry layouts.
mod chosen_never_costs_more {
    use hlo_layout::assign::{assign_layouts_with, AssignOptions, EntryLayouts, Policy};
    use hlo_layout::ir::Target;
    use proptest::prelude::*;

    /// A random module as text: `steps` picks ops over the values made so far.
    fn module(dims: &[(i64, i64)], transposed: &[bool], steps: &[(u8, usize, usize)]) -> String {
        let mut values: Vec<(String, Vec<i64>)> = Vec::new();
        let mut lines = Vec::new();
        let mut parameters = Vec::new();
        for (i, (&(a, b), &t)) in dims.iter().zip(transposed).enumerate() {
            let layout = if t { "{0,1}" } else { "{1,0}" };
            lines.push(format!("  p{i} = f32[{a},{b}]{layout} parameter({i})"));
            parameters.push(format!("f32[{a},{b}]{layout}"));
            values.push((format!("p{i}"), vec![a, b]));
        }
        let shape = |d: &[i64]| {
            let dims: Vec<String> = d.iter().map(i64::to_string).collect();
            let m2m: Vec<String> = (0..d.len()).rev().map(|i| i.to_string()).collect();
            format!("f32[{}]{{{}}}", dims.join(","), m2m.join(","))
        };
        for (n, &(op, x, y)) in steps.iter().enumerate() {
            let (xn, xd) = values[x % values.len()].clone();
            let (yn, yd) = values[y % values.len()].clone();
            let name = format!("v{n}");
            let (text, dims) = match op % 7 {
                0 => (format!("exponential({xn})"), xd.clone()),
                1 if xd == yd => (format!("add({xn}, {yn})"), xd.clone()),
                1 => (format!("tanh({xn})"), xd.clone()),
                2 if xd.len() == 2 => (
                    format!("transpose({xn}), dimensions={{1,0}}"),
                    vec![xd[1], xd[0]],
                ),
                2 | 3 if xd.len() == 2 => (format!("reshape({xn})"), vec![xd[0], xd[1], 1]),
                3 | 4 if xd.len() == 3 && xd[2] == 1 => {
                    (format!("reshape({xn})"), vec![xd[0], xd[1]])
                }
                4 if xd.len() == 2 => (
                    format!("broadcast({xn}), dimensions={{0,1}}"),
                    vec![xd[0], xd[1], 3],
                ),
                5 if xd.len() == 2 && yd.len() == 2 && xd[1] == yd[0] => (
                    format!(
                        "dot({xn}, {yn}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"
                    ),
                    vec![xd[0], yd[1]],
                ),
                5 if xd.len() == 2 && yd.len() == 2 && xd[1] == yd[1] => (
                    format!(
                        "dot({xn}, {yn}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}"
                    ),
                    vec![xd[0], yd[0]],
                ),
                _ => (format!("negate({xn})"), xd.clone()),
            };
            lines.push(format!("  {name} = {} {text}", shape(&dims)));
            values.push((name, dims));
        }
        let (last, last_dims) = values[values.len() - 1].clone();
        lines.push(format!("  ROOT r = {} negate({last})", shape(&last_dims)));
        format!(
            "HloModule random, entry_computation_layout={{({})->{}}}\n\nENTRY main {{\n{}\n}}\n",
            parameters.join(", "),
            shape(&last_dims),
            lines.join("\n")
        )
    }

    fn cost(text: &str, policy: Policy, entry_layouts: EntryLayouts) -> i64 {
        let mut module = hlo_layout::parse_module(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let options = AssignOptions {
            entry_layouts,
            policy,
        };
        let report = assign_layouts_with(&mut module, &Target::default_tpu(), &options)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let sensitive = hlo_layout::verify::VerifyOptions {
            layout_sensitive: true,
        };
        if let Err(errors) = hlo_layout::verify::verify(&module, &sensitive) {
            panic!("{errors:?}\n{text}");
        }
        report.cost.total()
    }

    /// Assigns `text` as `assign` does, lowering the input again instead of copying it, and
    /// checks that the module and report are those of [`hlo_layout::assign::assign_verified`].
    /// Returns whether the descending rule's layouts were kept.
    pub(super) fn same_lowering_again(text: &str, entry_layouts: EntryLayouts) -> bool {
        use hlo_layout::assign::{assign_verified, assign_verified_lowering_again};
        let options = AssignOptions {
            entry_layouts,
            ..AssignOptions::default()
        };
        let target = Target::default_tpu();
        let parse = || hlo_layout::parse_module(text);
        let mut copied = parse().unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let report = assign_verified(&mut copied, &target, &options)
            .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let first = parse().unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let mut lowerings = 0;
        let again = || {
            lowerings += 1;
            parse()
        };
        let (module, again_report) =
            assign_verified_lowering_again(first, again, &target, &options)
                .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        assert_eq!(
            hlo_layout::print::print_ir_module(&module),
            hlo_layout::print::print_ir_module(&copied),
            "{text}"
        );
        assert_eq!(again_report, report, "{text}");
        // Once for the chosen layouts, and once more when the descending rule's are kept.
        assert_eq!(lowerings, 1 + usize::from(report.kept_descending), "{text}");
        report.kept_descending
    }

    /// Some random modules keep the descending rule's layouts, so lowering again is tested
    /// on both outcomes.
    #[test]
    fn lowering_again_gives_the_same_module_both_ways() {
        let sizes = [1i64, 3, 8, 32, 128, 300];
        let mut kept = 0;
        let mut tried = 0;
        for seed in 0u64..400 {
            let mut state = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut next = || {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as usize
            };
            let count = 1 + next() % 3;
            let dims: Vec<(i64, i64)> = (0..count)
                .map(|_| (sizes[next() % sizes.len()], sizes[next() % sizes.len()]))
                .collect();
            let transposed: Vec<bool> = (0..4).map(|_| next() % 2 == 1).collect();
            let steps: Vec<(u8, usize, usize)> = (0..1 + next() % 11)
                .map(|_| ((next() % 256) as u8, next(), next()))
                .collect();
            let text = module(&dims, &transposed, &steps);
            for entry_layouts in [EntryLayouts::Given, EntryLayouts::Auto] {
                kept += usize::from(same_lowering_again(&text, entry_layouts));
                tried += 1;
            }
        }
        eprintln!("descending kept on {kept} of {tried}");
        assert!(
            kept > 0,
            "no random module kept the descending rule's layouts"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn on_random_modules(
            dims in proptest::collection::vec(
                (prop_oneof![Just(1i64), Just(3), Just(8), Just(32), Just(128), Just(300)],
                 prop_oneof![Just(1i64), Just(3), Just(8), Just(32), Just(128), Just(300)]),
                1..4),
            transposed in proptest::collection::vec(any::<bool>(), 4),
            steps in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..12),
        ) {
            let text = module(&dims, &transposed, &steps);
            let descending = cost(&text, Policy::Descending, EntryLayouts::Given);
            let chosen = cost(&text, Policy::MinimizeCost, EntryLayouts::Given);
            prop_assert!(chosen <= descending, "chosen {chosen} > descending {descending}\n{text}");
            let auto = cost(&text, Policy::MinimizeCost, EntryLayouts::Auto);
            prop_assert!(auto <= chosen.max(descending), "auto {auto}\n{text}");
        }
    }
}

/// Issue 33: an identity reshape with `inferred_dimension` became a bitcast that kept the
/// attribute, which the final verification refused.
#[test]
fn a_reshape_made_a_bitcast_keeps_no_reshape_attribute() {
    let text = "ENTRY e { p = f32[64,128]{1,0} parameter(0)  ROOT r = f32[64,128]{1,0} reshape(p), inferred_dimension=1 }";
    let (module, _) = assign_text(text, "tpu-v5e");
    assert!(
        module.contains("ROOT r = f32[64,128]{1,0:T(8,128)} bitcast(p)\n"),
        "{module}"
    );
}

/// Every attribute that reshape, transpose, copy and bitcast may carry, alone and all
/// together, through `assign` (which makes reshapes and transposes bitcasts and bitcasts
/// reshapes or transposes) and through `layout-assignment,simplify-layout-ops` (which makes
/// copies, reshapes and transposes bitcasts): the result verifies in layout-sensitive mode
/// and reads back to itself.
#[test]
fn rewritten_opcodes_carry_only_their_own_attributes() {
    use hlo_layout::pass::PipelineOptions;
    use hlo_layout::passes::parse_pipeline;
    let generic = [
        "backend_config={\"x\":1}",
        "frontend_attributes={a=\"b\"}",
        "metadata={op_name=\"f\"}",
        "sharding={replicated}",
        "statistics={visualizing_index=1,stat-1=0.5}",
        "origin={{\"f\"}}",
    ];
    let ops = [
        ("reshape", "f32[64,128]{1,0}", "inferred_dimension=1"),
        ("transpose", "f32[128,64]{0,1}", "dimensions={1,0}"),
        ("copy", "f32[64,128]{1,0}", ""),
        ("bitcast", "f32[64,128]{1,0}", ""),
    ];
    let mut checked = 0;
    for (opcode, shape, own) in ops {
        let mut attribute_sets: Vec<Vec<&str>> = generic.iter().map(|a| vec![*a]).collect();
        attribute_sets.push(generic.to_vec());
        for mut attributes in attribute_sets {
            if !own.is_empty() {
                attributes.insert(0, own);
            }
            let text = format!(
                "ENTRY e {{\n  p = f32[64,128]{{1,0}} parameter(0)\n  ROOT r = {shape} {opcode}(p), {}\n}}\n",
                attributes.join(", ")
            );
            let Ok(module) = hlo_layout::parse_module(&text) else {
                panic!("does not parse:\n{text}");
            };
            if hlo_layout::verify::verify(&module, &VerifyOptions::default()).is_err() {
                // An attribute this opcode does not take here (e.g. `origin` on an
                // instruction XLA gives none): not an input `check` accepts.
                continue;
            }
            let (assigned, _) = assign_text(&text, "tpu-v5e");
            let back = hlo_layout::parse_module(&assigned).expect("assigned text parses");
            assert_eq!(hlo_layout::print::print_ir_module(&back), assigned);
            let mut module = module;
            let spec =
                parse_pipeline("layout-assignment,simplify-layout-ops,verify{layout-sensitive}")
                    .expect("a pipeline");
            spec.instantiate("test", PipelineOptions::default())
                .run(&mut module)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            checked += 1;
        }
    }
    // Every opcode with each generic attribute but `origin`, which only some take.
    assert!(checked >= 4 * 6, "only {checked} modules were valid inputs");
}

/// The small modules of `tests/inputs/opcode-attributes`, one per opcode family, with their
/// texts. Each is also accepted by XLA's parser (jaxlib 0.10.2's `hlo_module_from_text`).
fn opcode_attribute_inputs() -> Vec<(String, String)> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/opcode-attributes");
    let inputs: Vec<(String, String)> = common::files(&dir, "hlo")
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path.display().to_string(), text)
        })
        .collect();
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());
    inputs
}

/// Assigns `module` with the entry's layouts given and with `auto`; each result must verify
/// in layout-sensitive mode and print text that reads back to itself. Then runs
/// `layout-assignment,simplify-layout-ops,verify{layout-sensitive}` on it. `what` names the
/// input in failure messages.
fn assigns_both_ways_and_reads_back(module: &hlo_layout::ir::Module, what: &str) {
    use hlo_layout::assign::{assign_layouts_with, AssignOptions, EntryLayouts};
    use hlo_layout::pass::PipelineOptions;
    use hlo_layout::passes::parse_pipeline;
    let sensitive = VerifyOptions {
        layout_sensitive: true,
    };
    for entry_layouts in [EntryLayouts::Given, EntryLayouts::Auto] {
        let mut assigned = module.clone();
        let options = AssignOptions {
            entry_layouts,
            ..AssignOptions::default()
        };
        assign_layouts_with(&mut assigned, &Target::default_tpu(), &options)
            .unwrap_or_else(|e| panic!("{what} ({entry_layouts:?}): {e}"));
        if let Err(errors) = verify(&assigned, &sensitive) {
            panic!("{what} ({entry_layouts:?}) assigned does not verify: {errors:?}");
        }
        let printed = hlo_layout::print::print_ir_module(&assigned);
        let back = hlo_layout::parse_module(&printed)
            .unwrap_or_else(|e| panic!("{what} ({entry_layouts:?}) output: {e:?}"));
        assert_eq!(
            hlo_layout::print::print_ir_module(&back),
            printed,
            "{what} ({entry_layouts:?})"
        );
    }
    let mut module = module.clone();
    parse_pipeline("layout-assignment,simplify-layout-ops,verify{layout-sensitive}")
        .expect("a pipeline")
        .instantiate("test", PipelineOptions::default())
        .run(&mut module)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Issue 33: `assign` writes a module for every input `check` accepts, here over modules that
/// together carry every opcode-specific attribute (the next test says so). Each assigns with
/// the entry's layouts given and with `auto`, verifies in layout-sensitive mode and prints
/// text that reads back to itself; `layout-assignment,simplify-layout-ops` runs on it too.
#[test]
fn every_opcode_specific_attribute_assigns() {
    for (name, text) in opcode_attribute_inputs() {
        let module = hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        if let Err(errors) = verify(&module, &VerifyOptions::default()) {
            panic!("{name} does not verify: {errors:?}");
        }
        assigns_both_ways_and_reads_back(&module, &name);
    }
}

/// Every (opcode, attribute) pair of the table the verifier reads (`opcode_specific` over
/// `Opcode::all`) is carried by some instruction of `tests/inputs/opcode-attributes`, so
/// that the test above covers it; a pair added to the table needs an input here.
#[test]
fn opcode_attribute_inputs_use_every_pair_of_the_table() {
    use hlo_layout::ir::attribute_rules::opcode_specific;
    use hlo_layout::ir::opcode::Opcode;
    let mut used = std::collections::BTreeSet::new();
    for (name, text) in opcode_attribute_inputs() {
        let module = hlo_layout::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for computation in module.computations() {
            for &id in computation.order() {
                let instruction = computation.instruction(id);
                let specific = opcode_specific(&instruction.opcode);
                for attribute in &instruction.attributes {
                    if specific.contains(&&*attribute.name) {
                        used.insert(format!("{} {}", instruction.opcode, attribute.name));
                    }
                }
            }
        }
    }
    let table: Vec<String> = Opcode::all()
        .flat_map(|opcode| {
            opcode_specific(opcode)
                .iter()
                .map(move |attribute| format!("{opcode} {attribute}"))
        })
        .collect();
    let missing: Vec<&String> = table.iter().filter(|pair| !used.contains(*pair)).collect();
    assert!(missing.is_empty(), "no input uses {missing:#?}");
    // The table's size as of this writing, so that a table that shrank by mistake shows.
    assert!(table.len() >= 200, "{} pairs", table.len());
}

/// Issue 33's property over generated modules: every `tests/inputs/opcode-attributes` input,
/// with the layouts of its arrays (tuple elements and other computations' included) permuted
/// at random, still assigns with the entry's layouts given and with `auto`, verifies in
/// layout-sensitive mode and reads back, and runs `layout-assignment,simplify-layout-ops`.
/// The verifier ignores layouts, so every permuted module is an input `check` accepts.
mod opcode_attribute_inputs_with_any_layouts {
    use hlo_layout::ir::shape::Shape;
    use hlo_layout::verify::{verify, VerifyOptions};
    use proptest::prelude::*;

    /// Permutes the minor-to-major order of every array of rank 2 or more in `shape`, each
    /// by the next seed read as a Lehmer code (so every permutation can come up).
    fn permute_layouts(shape: &mut Shape, seeds: &mut impl Iterator<Item = u64>) {
        match shape {
            Shape::Array(array) => {
                let (Some(layout), Some(mut seed)) = (array.layout.as_mut(), seeds.next()) else {
                    return;
                };
                let order = &mut layout.minor_to_major;
                for i in (1..order.len()).rev() {
                    let j = (seed % (i as u64 + 1)) as usize;
                    order.swap(i, j);
                    seed /= i as u64 + 1;
                }
            }
            Shape::Tuple(elements) => {
                for element in elements {
                    permute_layouts(element, seeds);
                }
            }
            _ => {}
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn assign_verifies_and_reads_back(seeds in proptest::collection::vec(any::<u64>(), 1..64)) {
            for (name, text) in super::opcode_attribute_inputs() {
                let mut module = hlo_layout::parse_module(&text).unwrap();
                let mut cycle = seeds.iter().copied().cycle();
                for computation in module.computations_mut() {
                    for id in computation.order().to_vec() {
                        let instruction = computation.instruction_mut(id);
                        permute_layouts(std::sync::Arc::make_mut(&mut instruction.shape), &mut cycle);
                    }
                }
                let permuted = hlo_layout::print::print_ir_module(&module);
                if let Err(errors) = verify(&module, &VerifyOptions::default()) {
                    panic!("{name}: {errors:?}\n{permuted}");
                }
                super::assigns_both_ways_and_reads_back(&module, &format!("{name}\n{permuted}\n"));
            }
        }
    }
}

/// A bitcast that stands for one reshape under its layouts is read as that reshape in its
/// own place: the computation lowering sized to its instructions does not grow (adding the
/// reshape before the bitcast and removing the bitcast made every such computation grow).
#[test]
fn a_bitcast_read_as_one_reshape_takes_its_place_without_growing_its_computation() {
    let text = "HloModule m\n\nENTRY e {\n  p = f32[4,256]{1,0} parameter(0)\n  \
                b = f32[1024]{0} bitcast(p)\n  ROOT n = f32[1024]{0} negate(b)\n}\n";
    let mut module = hlo_layout::parse_module(text).unwrap();
    let entry = module.entry;
    let before = module.computation(entry).graph().capacity();
    assert_eq!(before, (3, 2));
    let target = hlo_layout::ir::Target::default_tpu();
    hlo_layout::assign::assign_layouts(&mut module, &target).unwrap();
    let computation = module.computation(entry);
    assert_eq!(computation.len(), 3);
    assert_eq!(computation.graph().capacity(), before);
    let printed = hlo_layout::print::print_ir_module(&module);
    assert!(
        printed.contains(" reshape(p)") || printed.contains(" bitcast(p)"),
        "{printed}"
    );
}
