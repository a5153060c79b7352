//! The verifier's diagnostics as a user sees them, for small hand-written bad modules in
//! `tests/inputs/verify/`, and `check` exiting 1 on an error of meaning.

mod common;

use std::path::Path;
use std::process::Command;

use hlo_layout::verify::{verify, VerifyOptions};

/// Lowers and verifies a module; the rendered errors.
fn diagnostics(name: &str, options: VerifyOptions) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/verify")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let module = hlo_layout::parse_module(&text)
        .unwrap_or_else(|errors| panic!("{name}:\n{}", common::render(name, &text, errors)));
    match verify(&module, &options) {
        Ok(()) => panic!("{name} verifies, but it is meant to be rejected"),
        Err(errors) => common::render(name, &text, errors),
    }
}

const PLAIN: VerifyOptions = VerifyOptions {
    layout_sensitive: false,
};

#[test]
fn shape_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_shapes", diagnostics("shapes.hlo", PLAIN));
    });
}

#[test]
fn call_signature_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_calls", diagnostics("calls.hlo", PLAIN));
    });
}

#[test]
fn opcode_attribute_and_literal_errors() {
    common::settings().bind(|| {
        insta::assert_snapshot!("verify_meaning", diagnostics("meaning.hlo", PLAIN));
    });
}

/// A broken async chain written in text is lowering's error, as it is XLA's parser's
/// (`tests/diagnostic_locations.rs`); one a pass builds through the API is the verifier's:
/// here the operand of a `custom-call-done` moved off its `custom-call-start`.
#[test]
fn async_chain_broken_in_code() {
    let text = "HloModule m\n\nENTRY main {\n  p = f32[4] parameter(0)\n  start = ((f32[4]), f32[4], s32[]) custom-call-start(p), custom_call_target=\"foo\"\n  ROOT done = f32[4] custom-call-done(start)\n}\n";
    let mut module = hlo_layout::parse_module(text)
        .unwrap_or_else(|errors| panic!("{}", common::render("chain", text, errors)));
    assert_eq!(verify(&module, &PLAIN), Ok(()));
    let entry = module.entry;
    let computation = module.computation_mut(entry);
    let (done, p) = (computation.find("done"), computation.find("p"));
    let (Some(done), Some(p)) = (done, p) else {
        panic!("the module has `done` and `p`");
    };
    computation
        .replace_operand(done, 0, p)
        .expect("done has operand 0");
    let errors = verify(&module, &PLAIN).expect_err("the chain is broken");
    common::settings().bind(|| {
        insta::assert_snapshot!(
            "verify_async_chain_in_code",
            common::render("chain.hlo", text, errors)
        );
    });
}

#[test]
fn layout_errors_only_in_layout_sensitive_mode() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/verify/layouts.hlo");
    let text = std::fs::read_to_string(path).unwrap();
    let module = hlo_layout::parse_module(&text).unwrap();
    assert_eq!(verify(&module, &PLAIN), Ok(()));
    common::settings().bind(|| {
        insta::assert_snapshot!(
            "verify_layouts",
            diagnostics(
                "layouts.hlo",
                VerifyOptions {
                    layout_sensitive: true
                }
            )
        );
    });
}

#[test]
fn check_exits_1_on_errors_of_meaning() {
    let out = Command::new(env!("CARGO_BIN_EXE_hlo-layout"))
        .args(["check", "tests/inputs/verify/shapes.hlo", "--color=never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("shapes.hlo: 3 errors"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hlo::verify"), "{stderr}");
}

/// Found by the fidelity run on sharded JAX modules: `device_ids=(...) {axes}` right after
/// `replica_groups=mesh[...]` belongs to the replica groups, in each form XLA reads (a list,
/// a one-dimensional iota, a transposed iota). Elsewhere, or in a form XLA refuses, it is
/// an error.
#[test]
fn mesh_device_ids_after_the_mesh_belong_to_the_replica_groups() {
    let text = common::regression_input("mesh_device_ids.hlo");
    let module = hlo_layout::parse_module(&text).expect("lowers");
    if let Err(errors) = verify(&module, &PLAIN) {
        panic!("{}", common::render("mesh_device_ids.hlo", &text, errors));
    }
    let template = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[8]{0} all-reduce(p), channel_id=1, replica_groups=GROUPS, use_global_device_ids=true, to_apply=add\n}\n";
    let refused = [
        // XLA: a syntax error inside the brackets.
        (
            "mesh['a'=2,'b'=4,device_ids=([2,4]T(1,0))] {'b'}",
            "goes after the mesh's closing bracket",
        ),
        // XLA aborts on a count that does not match (a CHECK failure).
        (
            "mesh['a'=2,'b'=4], device_ids=(0,1,2) {'b'}",
            "the mesh has 8 devices but device_ids lists 3",
        ),
        (
            "mesh['a'=2,'b'=4], device_ids=([4,2]) {'b'}",
            "expected 'T('",
        ),
        (
            "mesh['a'=2,'b'=4], device_ids=([8]T(0)) {'b'}",
            "expected ')' to end device_ids",
        ),
        (
            "mesh['a'=2,'b'=4], device_ids=([2,4]T(1,0))",
            "expected the mesh axes in braces",
        ),
        (
            "mesh['a'=2,'b'=4] {'b'}, device_ids=(0,1,2,3,4,5,6,7)",
            "expected the mesh `[...]` right before device_ids",
        ),
        (
            "mesh['a'=2,'b'=4], device_ids=([2,4]T(1,0)) {'c'}",
            "'c' is not a valid axis name or index of the mesh",
        ),
    ];
    for (groups, expected) in refused {
        let text = template.replace("GROUPS", groups);
        // `device_ids` inside the brackets is refused as the value is read, as XLA does.
        let rendered = match hlo_layout::parse_module(&text) {
            Ok(module) => common::render("mesh", &text, verify(&module, &PLAIN).expect_err(groups)),
            Err(errors) => common::render("mesh", &text, errors),
        };
        assert!(rendered.contains(expected), "{groups}:\n{rendered}");
    }
}

/// `device_ids` anywhere but right after a mesh is an attribute the opcode does not take.
#[test]
fn device_ids_away_from_a_mesh_is_an_unexpected_attribute() {
    let text = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[8]{0} all-reduce(p), device_ids=(0,1,2,3,4,5,6,7) {'b'}, channel_id=1, replica_groups=mesh['a'=2,'b'=4], use_global_device_ids=true, to_apply=add\n}\n";
    let module = hlo_layout::parse_module(text).expect("lowers");
    let errors = verify(&module, &PLAIN).expect_err("refused");
    let rendered = common::render("mesh", text, errors);
    assert!(
        rendered.contains("unexpected attribute \"device_ids\""),
        "{rendered}"
    );
}

/// Found by the fidelity run: XLA reads `control-predecessors` names when it reads the
/// instruction ("instruction 'b' is not defined"), so a predecessor comes first.
#[test]
fn control_predecessors_come_before_their_successor() {
    let module_with =
        |body: &str| format!("HloModule m\nENTRY e {{\n  p = f32[4]{{0}} parameter(0)\n{body}}}\n");
    let after = module_with(
        "  a = f32[4]{0} negate(p), control-predecessors={b}\n  ROOT b = f32[4]{0} negate(p)\n",
    );
    let module = hlo_layout::parse_module(&after).expect("lowers");
    let rendered = common::render("after", &after, verify(&module, &PLAIN).expect_err("after"));
    assert!(
        rendered.contains("control predecessor `b` is defined after the instruction it precedes"),
        "{rendered}"
    );
    let before = module_with(
        "  b = f32[4]{0} negate(p)\n  ROOT a = f32[4]{0} negate(p), control-predecessors={b}\n",
    );
    let module = hlo_layout::parse_module(&before).expect("lowers");
    if let Err(errors) = verify(&module, &PLAIN) {
        panic!("{}", common::render("before", &before, errors));
    }
}

/// Found by the fidelity run: XLA reads only its own attributes in the `HloModule` header, so
/// a misspelt one is an error rather than text carried along. XLA's parser refuses it, and so
/// does lowering, at the attribute.
#[test]
fn unknown_header_attributes_are_errors() {
    let text = "HloModule m, entry_computation_layot={()->f32[]}\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n";
    let errors = hlo_layout::parse_module(text).expect_err("refused");
    let rendered = common::render("header", text, errors);
    assert!(
        rendered
            .contains("unexpected attribute \"entry_computation_layot\" in the HloModule header"),
        "{rendered}"
    );
    let known = "HloModule m, is_scheduled=true, replica_count=2, num_partitions=1\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n";
    let module = hlo_layout::parse_module(known).expect("lowers");
    if let Err(errors) = verify(&module, &PLAIN) {
        panic!("{}", common::render("known", known, errors));
    }
}

/// `origin` values: the forms XLA writes are accepted, the ones its parser refuses (or
/// crashes on) are errors, each naming the value (cases checked with jaxlib 0.10.2).
#[test]
fn origin_values_are_read_as_xla_reads_them() {
    let template = "HloModule m\nENTRY e {\n  a = f32[] constant(1)\n  ROOT t = (f32[], f32[]) tuple(a, a), origin=VALUE\n}\n";
    for accepted in [
        r#"{({"a"}, {"b" {0}})}"#,
        r#"{[synthetic_call]}"#,
        r#"{{}}"#,
        r#"{(({"v1"}, {"v2"}), {"v3"})}"#,
    ] {
        assert_verifies("origin", &template.replace("VALUE", accepted));
    }
    for (refused, expected) in [
        (r#"{bogus}"#, "found `bogus`"),
        (r#"{{"a" 0}}"#, "one name and at most one shape index"),
        (r#"{{"a" {0 1}}}"#, "integers between commas"),
        (r#"{[synthetic]}"#, "`[synthetic_call]` alone"),
        (r#"{{"a"}, {"b"}}"#, "a comma outside parentheses"),
    ] {
        let rendered = rendered_errors("origin", &template.replace("VALUE", refused));
        assert!(
            rendered.contains(expected) && rendered.contains("origin="),
            "{refused}:\n{rendered}"
        );
    }
}

/// Classic `sharding` values: real dumps' forms are accepted, the ones XLA's parser refuses
/// are errors naming the value; named (mesh) shardings are left alone (cases checked with
/// jaxlib 0.10.2).
#[test]
fn shardings_are_read_as_xla_reads_them() {
    let template = "HloModule m\nENTRY e {\n  a = f32[8,8] parameter(0), sharding=VALUE\n  ROOT t = (f32[8,8], f32[8,8]) tuple(a, a), sharding={{replicated}, {maximal device=0}}\n}\n";
    for accepted in [
        "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
        "{devices=[2,4]0,1,2,3,4,5,6,7 shard_like 1}",
        "{devices=[8,1]<=[2,4]T(1,0) metadata={op_name=\"x\"}}",
        "{devices=[2,2,2]<=[8] last_tile_dims={manual}}",
        "{manual}",
        "{mesh['a'=2,'b'=4], [{'a'}, {'b'}]}",
    ] {
        assert_verifies("sharding", &template.replace("VALUE", accepted));
    }
    for (refused, expected) in [
        ("{bogus}", "unknown word `bogus`"),
        ("{maximal}", "exactly one device"),
        ("{replicated device=3}", "should not have any"),
        ("{devices=[1,1]0}", "more than one"),
        ("{devices=[2,4]<=[2,4]T(0,2)}", "indices 0 to 1"),
        (
            "{devices=[4]<=[4] last_tile_dims={bogus}}",
            "last_tile_dims takes",
        ),
        ("{replicated, manual}", "unexpected `,`"),
    ] {
        let rendered = rendered_errors("sharding", &template.replace("VALUE", refused));
        assert!(
            rendered.contains(expected) && rendered.contains("sharding="),
            "{refused}:\n{rendered}"
        );
    }
}

/// Lowers and verifies `text`, which must pass; the errors are shown if it does not.
fn assert_verifies(name: &str, text: &str) {
    let module = hlo_layout::parse_module(text).expect("lowers");
    if let Err(errors) = verify(&module, &PLAIN) {
        panic!("{}", common::render(name, text, errors));
    }
}

/// Lowers and verifies `text`, which must fail; returns its errors as the user sees them.
fn rendered_errors(name: &str, text: &str) -> String {
    let module = hlo_layout::parse_module(text).expect("lowers");
    let errors = verify(&module, &PLAIN).expect_err(text);
    common::render(name, text, errors)
}
