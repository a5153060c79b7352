//! Shapes and layouts read and print exactly as XLA prints them; bad ones get diagnostics
//! that point at the offending text.

use hlo_layout::ir::shape::{DimLevel, DimLevelType, SplitConfig};
use hlo_layout::ir::{ArrayShape, Dim, Layout, PrimitiveType, Shape, Tile, TileDim};
use miette::{GraphicalReportHandler, GraphicalTheme};
use proptest::prelude::*;

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

fn reprint(text: &str) -> String {
    match hlo_layout::parse_shape(text) {
        Ok(shape) => shape.to_string(),
        Err(errors) => panic!("{text} does not parse: {errors:?}"),
    }
}

#[test]
fn canonical_text_prints_back_unchanged() {
    for text in [
        "f32[2,3]{1,0}",
        "f32[]",
        "f32[]{:T(256)}",
        "u32[]{:S(2)}",
        "pred[]{:T(128)E(32)}",
        "f32[8,128]{1,0:T(8,128)(2,1)L(2)E(32)S(1)}",
        "f32[2,3,4]{2,1,0:T(2,*,128)}",
        "s4[16]{0:E(4)}",
        "f32[8]{0:SC(0:2,4)(1:3)}",
        "f32[8]{0:T(8)L(4)#(u8)*(u16)E(4)S(1)SC(0:1)M(8)}",
        "f32[8]{0:P(s32[8]{0})}",
        "f32[4,4]{1,0:D(D,C+~)T(2,2)}",
        "f32[<=4,?]{1,0}",
        "bf16[6144]{0:T(1024)(128)(2,1)}",
        "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}",
        "(f32[], (s32[2]{0}, token[]), opaque[])",
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
        "()",
        "f8e4m3b11fnuz[3]{0}",
    ] {
        assert_eq!(reprint(text), text);
    }
}

#[test]
fn non_canonical_text_prints_canonically() {
    for (text, canonical) in [
        ("f32[2,3]", "f32[2,3]"),
        ("f32[]{}", "f32[]"),
        ("f32[2]{0:}", "f32[2]{0}"),
        (
            "f32[2,3,4]{2,1,0:T(2, * , 128)}",
            "f32[2,3,4]{2,1,0:T(2,*,128)}",
        ),
        ("f32[2]{0:L(1)E(0)S(0)M(0)}", "f32[2]{0}"),
        ("f32[ 2 , 3 ]{ 1 , 0 }", "f32[2,3]{1,0}"),
        (
            "(f32[],f32[],f32[],f32[],f32[],f32[])",
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
        ),
        ("f32[2]{/* comment */0}", "f32[2]{0}"),
    ] {
        assert_eq!(reprint(text), canonical, "{text}");
    }
}

#[test]
fn every_primitive_type_reads_back() {
    for ty in PrimitiveType::ALL {
        let text = if ty.is_array_type() {
            format!("{}[2]{{0}}", ty.name())
        } else {
            format!("{}[]", ty.name())
        };
        assert_eq!(reprint(&text), text);
    }
}

#[test]
fn model_values_of_parsed_text() {
    let Ok(Shape::Array(array)) = hlo_layout::parse_shape("bf16[<=4,?,3]{0,2,1:T(8,*,128)L(2)}")
    else {
        panic!("does not parse");
    };
    assert_eq!(array.element_type, PrimitiveType::Bf16);
    assert_eq!(
        array.dims,
        vec![Dim::Bounded(4), Dim::Unbounded, Dim::Static(3)]
    );
    let layout = array.layout.unwrap();
    assert_eq!(layout.minor_to_major, vec![0, 2, 1]);
    assert_eq!(
        layout.tiles,
        vec![Tile {
            dims: vec![TileDim::Size(8), TileDim::Combine, TileDim::Size(128)]
        }]
    );
    assert_eq!(layout.tail_padding_alignment, 2);
}

fn render(text: &str) -> String {
    let errors = match hlo_layout::parse_shape(text) {
        Ok(shape) => panic!("{text} parsed as {shape}"),
        Err(errors) => errors,
    };
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(80);
    let mut out = String::new();
    for error in errors {
        let report = miette::Report::new(error).with_source_code(text.to_string());
        handler
            .render_report(&mut out, report.as_ref())
            .expect("rendering to a String cannot fail");
    }
    out
}

#[test]
fn bad_shapes_get_diagnostics() {
    let cases = [
        ("not_a_permutation", "f32[2,3]{1,1}"),
        ("dim_out_of_range", "f32[2,3]{2,0}"),
        ("rank_mismatch", "f32[2,3]{0}"),
        ("empty_layout_on_array", "f32[2]{}"),
        ("zero_tile", "f32[8,128]{1,0:T(8,0)}"),
        ("negative_tile", "f32[8,128]{1,0:T(-8,128)}"),
        ("combine_last", "f32[8,128]{1,0:T(8,*)}"),
        ("attribute_order", "f32[2]{0:S(1)T(8)}"),
        ("duplicate_attribute", "f32[2]{0:E(4)E(4)}"),
        ("unknown_attribute", "f32[2]{0:Q(4)}"),
        ("unknown_type", "f31[2]{0}"),
        ("bad_index_type", "f32[2]{0:#(int)}"),
        ("negative_dim", "f32[-2]{0}"),
        ("huge_dim", "f32[99999999999999999999]"),
        ("overflow", "f32[4294967296,4294967296]{1,0:T(8,128)}"),
        ("unexpected_eof", "f32[2,3]{1,0"),
        ("unexpected_token", "f32[2,3]]"),
        ("invalid_token", "f32[2@3]"),
        ("token_with_dims", "token[2]"),
        ("several_errors", "f32[2,3]{3,3:T(0,128)}"),
    ];
    let settings = snapshot_settings();
    for (name, text) in cases {
        settings
            .bind(|| insta::assert_snapshot!(format!("shape_error_{name}"), render(text), text));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let depth = 100_000;
    let text = "(".repeat(depth) + "f32[]" + &")".repeat(depth);
    let errors = hlo_layout::parse_shape(&text).expect_err("too deep");
    assert!(
        errors[0].to_string().contains("nested too deeply"),
        "{}",
        errors[0]
    );
    let layout_nesting = "f32[2]{0:P(".repeat(300) + "f32[]" + &")}".repeat(300);
    assert!(hlo_layout::parse_shape(&layout_nesting).is_err());
    // Shapes have their own limit, 64 enclosing shapes, which leaves room for any real one.
    let fine = "(".repeat(63) + "f32[]" + &")".repeat(63);
    assert!(hlo_layout::parse_shape(&fine).is_ok());
    let too_deep = "(".repeat(200) + "f32[]" + &")".repeat(200);
    let errors = hlo_layout::parse_shape(&too_deep).expect_err("too deep");
    assert!(
        errors[0]
            .to_string()
            .contains("shapes nested more than 64 deep"),
        "{}",
        errors[0]
    );
}

fn tile_strategy() -> impl Strategy<Value = Tile> {
    prop::collection::vec(
        prop_oneof![3 => (1i64..300).prop_map(TileDim::Size), 1 => Just(TileDim::Combine)],
        1..4,
    )
    .prop_map(|mut dims| {
        if let Some(last) = dims.last_mut() {
            *last = TileDim::Size(128);
        }
        Tile { dims }
    })
}

fn array_strategy() -> impl Strategy<Value = ArrayShape> {
    let dim = prop_oneof![
        4 => (0i64..5000).prop_map(Dim::Static),
        1 => (0i64..50).prop_map(Dim::Bounded),
        1 => Just(Dim::Unbounded),
    ];
    (
        prop::sample::select(
            PrimitiveType::ALL
                .iter()
                .copied()
                .filter(|t| t.is_array_type())
                .collect::<Vec<_>>(),
        ),
        prop::collection::vec(dim, 0..5),
    )
        .prop_flat_map(|(ty, dims)| {
            let rank = dims.len();
            let layout = (
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(tile_strategy(), 0..3),
                prop_oneof![Just(1i64), 1i64..9],
                prop::option::of(prop::sample::select(vec![
                    PrimitiveType::S32,
                    PrimitiveType::U8,
                ])),
                prop_oneof![Just(0i64), 1i64..64],
                prop_oneof![Just(0i64), 1i64..6],
                prop::collection::vec((0i64..3, prop::collection::vec(0i64..9, 1..3)), 0..2),
                prop_oneof![Just(0i64), 1i64..64],
                prop::collection::vec((0usize..4, any::<bool>(), any::<bool>()), 0..2),
            );
            (Just(ty), Just(dims), prop::option::of(layout))
        })
        .prop_map(|(element_type, dims, layout)| {
            let layout = layout.map(|(m2m, tiles, l, index_ty, e, s, sc, m, dlt)| Layout {
                minor_to_major: m2m,
                dim_level_types: dlt
                    .into_iter()
                    .map(|(level, not_unique, not_ordered)| DimLevelType {
                        level: [
                            DimLevel::Dense,
                            DimLevel::Compressed,
                            DimLevel::Singleton,
                            DimLevel::LooseCompressed,
                        ][level],
                        not_unique,
                        not_ordered,
                    })
                    .collect(),
                tiles,
                tail_padding_alignment: l,
                index_primitive_type: index_ty,
                pointer_primitive_type: index_ty,
                element_size_in_bits: e,
                memory_space: s,
                split_configs: sc
                    .into_iter()
                    .map(|(dimension, split_indices)| SplitConfig {
                        dimension,
                        split_indices,
                    })
                    .collect(),
                physical_shape: None,
                dynamic_shape_metadata_prefix_bytes: m,
            });
            ArrayShape {
                element_type,
                dims,
                layout,
            }
        })
        .prop_filter("sizes must fit in i64", |array| {
            hlo_layout::parse_shape(&array.to_string()).is_ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn printed_shapes_parse_back_to_the_same_value(array in array_strategy()) {
        let text = array.to_string();
        let parsed = hlo_layout::parse_shape(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e:?}")))?;
        let expected = match (&array.layout, array.dims.is_empty()) {
            // A scalar's attribute-free layout prints as nothing and reads back as none.
            (Some(layout), true) if !layout.has_attributes() => ArrayShape { layout: None, ..array.clone() },
            _ => array.clone(),
        };
        prop_assert_eq!(parsed, Shape::Array(expected));
    }
}
