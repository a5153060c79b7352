//! The shape rules against XLA's: each family's accepted and rejected forms.

use super::common::*;
use super::*;
use crate::ir::attrs::SliceRange;
use crate::ir::attrs::{
    ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers, PaddingConfig,
    ScatterDimensionNumbers, SliceConfig, Window,
};
use crate::ir::opcode::Opcode;
use crate::ir::primitive::PrimitiveType;
use crate::ir::shape::{ArrayShape, Dim, Shape};

/// A shape from its text; the examples below are instructions of the corpus, given as
/// result(operands) with their declared shapes.
fn s(text: &str) -> ArrayShape {
    crate::parse_array_shape(text).unwrap_or_else(|_| over_the_text_limit(text))
}

/// `f32[9223372036854775807]` and the like, which text may not describe (arrays take at
/// most 2^48 bytes there), built directly: inference must still handle them.
fn over_the_text_limit(text: &str) -> ArrayShape {
    let (ty, dims) = text.trim_end_matches(']').split_once('[').unwrap();
    let dims: Vec<i64> = dims.split(',').map(|d| d.parse().unwrap()).collect();
    ArrayShape::new(crate::ir::PrimitiveType::from_name(ty).unwrap(), &dims)
}

fn show<T: std::fmt::Display>(result: Result<T, ShapeError>) -> String {
    match result {
        Ok(shape) => shape.to_string(),
        Err(error) => format!("error: {error}"),
    }
}

fn window(text: &str) -> Window {
    let fields: Vec<(&str, &str)> = text
        .split(' ')
        .map(|field| field.split_once('=').unwrap())
        .collect();
    Window::parse(&fields).unwrap()
}

fn message(result: Result<impl std::fmt::Debug, ShapeError>) -> String {
    match result {
        Err(error) => error.to_string(),
        Ok(shape) => panic!("expected an error, got {shape:?}"),
    }
}

/// Messages whose text is written only when the check fails name what they named when
/// it was written up front.
#[test]
fn messages_written_on_failure_name_the_arrays_and_dims() {
    let dnums = |lhs_contracting: Vec<i64>, rhs_batch: Vec<i64>| DotDimensionNumbers {
        lhs_batch: if rhs_batch.is_empty() {
            vec![]
        } else {
            vec![0]
        },
        lhs_contracting,
        rhs_batch,
        rhs_contracting: vec![0],
    };
    let (lhs, rhs) = (s("f32[2,3]"), s("f32[3,4]"));
    let found = [
        message(dot(&lhs, &rhs, &dnums(vec![5], vec![]), None)),
        message(dot(&lhs, &rhs, &dnums(vec![1], vec![7]), None)),
        message(reduce(&[&lhs], &[&s("f32[]")], &[4])),
        message(reduce(
            &[&lhs],
            &[&array(PrimitiveType::Token, vec![])],
            &[0],
        )),
        message(pad(
            &s("f32[9223372036854775807]"),
            &s("f32[]"),
            &PaddingConfig {
                dimensions: vec![crate::ir::attrs::PaddingDimension {
                    edge_low: 0,
                    edge_high: 1,
                    interior: 0,
                }],
            },
        )),
    ];
    let expected = [
        "dot: lhs contracting dim 5 is out of range for the lhs f32[2,3] of rank 2",
        "dot: rhs batch dim 7 is out of range for the rhs f32[3,4] of rank 2",
        "reduce: reduced dimension 4 is out of range for the operand f32[2,3] of rank 2",
        "reduce: init value 0 must be an array, got token[]",
        "pad: the padded size of dimension 0 overflows",
    ];
    for (found, expected) in found.iter().zip(expected) {
        assert!(found.starts_with(expected), "{found}");
    }
}

#[test]
fn unary_result_types() {
    let u = |op: &str, operand: &str| show(unary(&Opcode::from_name(op), &s(operand)));
    // complex_ops, pred_logic, bit_manipulation.
    assert_eq!(u("abs", "c64[16,16]{1,0}"), "f32[16,16]");
    assert_eq!(u("abs", "f32[16,16]{1,0}"), "f32[16,16]");
    assert_eq!(u("real", "c64[16,16]{1,0}"), "f32[16,16]");
    assert_eq!(u("imag", "c128[3]"), "f64[3]");
    assert_eq!(u("real", "bf16[3]"), "bf16[3]");
    assert_eq!(u("is-finite", "f32[32,32]{1,0}"), "pred[32,32]");
    assert_eq!(u("popcnt", "u32[256]{0}"), "u32[256]");
    assert_eq!(u("count-leading-zeros", "u32[256]{0}"), "u32[256]");
    assert_eq!(u("sign", "s32[16]{0}"), "s32[16]");
    assert_eq!(u("sign", "c64[2]"), "c64[2]");
    assert_eq!(u("exponential", "c64[2]"), "c64[2]");
    assert_eq!(u("not", "pred[2]"), "pred[2]");
    assert_eq!(u("negate", "s8[2]"), "s8[2]");
    assert_eq!(
        show(unary(&Opcode::Copy, &array(PrimitiveType::Token, vec![]))),
        "error: copy: operand must be an array, got token[]"
    );
    // Dynamic dims are kept as they are.
    assert_eq!(u("abs", "c64[<=4,?]"), "f32[<=4,?]");
    for (op, operand) in [
        ("abs", "u32[2]"),
        ("imag", "s32[2]"),
        ("is-finite", "s32[2]"),
        ("popcnt", "f32[2]"),
        ("sign", "u8[2]"),
        ("not", "f32[2]"),
        ("negate", "pred[2]"),
        ("floor", "s32[2]"),
        ("erf", "c64[2]"),
        ("sqrt", "s32[2]"),
    ] {
        assert!(
            u(op, operand).starts_with(&format!("error: {op}: expected")),
            "{op}"
        );
    }
    assert!(u("convert", "f32[2]").contains("use `convert`"));
    assert!(u("add", "f32[2]").contains("not an elementwise unary opcode"));
    assert_eq!(show(reduce_precision(&s("f32[2]"), 8, 7)), "f32[2]");
    assert!(reduce_precision(&s("f32[2]"), 0, 7).is_err());
    assert!(reduce_precision(&s("f32[2]"), 8, -1).is_err());
    assert!(reduce_precision(&s("s32[2]"), 8, 7).is_err());
}

#[test]
fn binary_result_types_and_dims() {
    let b = |op: &str, l: &str, r: &str| show(binary(&Opcode::from_name(op), &s(l), &s(r)));
    // complex_ops and bit_manipulation.
    assert_eq!(
        b("complex", "f32[16,16]{1,0}", "f32[16,16]{1,0}"),
        "c64[16,16]"
    );
    assert_eq!(b("complex", "f64[2]", "f64[2]"), "c128[2]");
    assert_eq!(
        b("atan2", "f32[16,16]{1,0}", "f32[16,16]{1,0}"),
        "f32[16,16]"
    );
    assert_eq!(b("compare", "s32[256]{0}", "s32[256]{0}"), "pred[256]");
    assert_eq!(b("compare", "s32[]", "s32[]"), "pred[]");
    assert_eq!(b("add", "f32[2,3]", "f32[2,3]{0,1}"), "f32[2,3]");
    // Mixed floating-point precision gives the more precise type.
    assert_eq!(b("multiply", "bf16[2]", "f32[2]"), "f32[2]");
    assert_eq!(b("shift-left", "u32[4]", "u32[4]"), "u32[4]");
    assert_eq!(b("and", "pred[4]", "pred[4]"), "pred[4]");
    // Dynamic dims: the more specific size wins.
    assert_eq!(b("add", "f32[<=4,3]", "f32[4,3]"), "f32[<=4,3]");
    assert_eq!(b("add", "f32[?,3]", "f32[4,3]"), "f32[4,3]");
    assert_eq!(b("add", "f32[?,3]", "f32[<=4,3]"), "f32[<=4,3]");
    assert_eq!(b("add", "f32[?]", "f32[?]"), "f32[?]");
    // XLA's degenerate rule: 1 against unbounded gives unbounded.
    assert_eq!(b("add", "f32[1]", "f32[?]"), "f32[?]");
    assert_eq!(
        b("add", "f32[2,3]", "f32[2,4]"),
        "error: add: operands must have the same dimensions (HLO has no implicit broadcast), got f32[2,3] and f32[2,4]"
    );
    assert!(b("add", "f32[]", "f32[2]").contains("no implicit broadcast"));
    assert!(b("add", "f32[1]", "f32[2]").contains("no implicit broadcast"));
    assert!(b("add", "s32[2]", "u32[2]").contains("different element types"));
    assert!(b("subtract", "pred[2]", "pred[2]").contains("got pred"));
    assert!(b("and", "f32[2]", "f32[2]").contains("pred or integral"));
    assert!(b("atan2", "s32[2]", "s32[2]").contains("floating-point or complex"));
    assert!(b("complex", "bf16[2]", "bf16[2]").contains("not implemented"));
    assert!(b("complex", "s32[2]", "s32[2]").contains("floating-point"));
    assert!(b("stochastic-convert", "f32[2]", "u32[2]").contains("stochastic_convert"));
    assert!(b("abs", "f32[2]", "f32[2]").contains("not an elementwise binary"));
    assert_eq!(
        show(stochastic_convert(
            &s("f32[2]"),
            &s("u32[2]"),
            PrimitiveType::Bf16
        )),
        "bf16[2]"
    );
    assert!(stochastic_convert(&s("f32[2]"), &s("u16[2]"), PrimitiveType::Bf16).is_err());
    assert!(stochastic_convert(&s("f32[2]"), &s("s32[2]"), PrimitiveType::Bf16).is_err());
    assert!(stochastic_convert(&s("f32[2]"), &s("u32[3]"), PrimitiveType::Bf16).is_err());
}

#[test]
fn higher_precision_follows_range_then_precision_then_width() {
    use PrimitiveType::*;
    assert_eq!(higher_precision_type(Bf16, F32), F32);
    assert_eq!(higher_precision_type(F16, Bf16), Bf16);
    assert_eq!(higher_precision_type(F64, C64), C64);
    assert_eq!(higher_precision_type(F8E4m3fn, F8E5m2), F8E5m2);
    assert_eq!(higher_precision_type(F8E5m2, F16), F16);
    assert_eq!(higher_precision_type(U32, S32), S32);
    assert_eq!(higher_precision_type(S32, U64), U64);
    assert_eq!(higher_precision_type(F4E2m1fn, F6E2m3fn), F6E2m3fn);
}

#[test]
fn convert_and_bitcast_convert() {
    use PrimitiveType::*;
    let bc = |operand: &str, ty| show(bitcast_convert(&s(operand), ty));
    // bit_manipulation.
    assert_eq!(bc("f32[256]{0}", U32), "u32[256]");
    assert_eq!(bc("f32[256]{0}", U16), "u16[256,2]");
    assert_eq!(bc("u16[256,2]", F32), "f32[256]");
    assert_eq!(bc("u8[<=3,4]", F32), "f32[<=3]");
    assert_eq!(bc("pred[4]", S8), "s8[4]");
    assert_eq!(bc("s8[]", S4), "s4[2]");
    assert_eq!(bc("s4[2]", U8), "u8[]");
    assert_eq!(bc("c64[2]", C64), "c64[2]");
    assert!(bc("u16[256,3]", F32).contains("width ratio 2"));
    assert!(bc("u16[]", F32).contains("width ratio 2"));
    assert!(bc("u8[?]", U16).contains("width ratio 2"));
    assert!(bc("c64[2]", F32).contains("complex and real"));
    assert!(bc("f32[2]", C64).contains("complex and real"));
    assert!(bc("f6e2m3fn[2]", S8).contains("do not divide"));
    assert_eq!(show(convert(&s("f32[2,<=3]"), Bf16)), "bf16[2,<=3]");
    assert!(convert(&s("f32[2]"), Token).is_err());
}

#[test]
fn select_and_clamp() {
    // gather_scatter_indexing: select(pred[8,16], s32[8,16], s32[8,16]).
    assert_eq!(
        show(select(
            &s("pred[8,16]{1,0}"),
            &s("s32[8,16]{1,0}"),
            &s("s32[8,16]{1,0}")
        )),
        "s32[8,16]"
    );
    assert_eq!(
        show(select(&s("pred[]"), &s("f32[3]"), &s("f32[3]"))),
        "f32[3]"
    );
    assert_eq!(
        show(select(&s("pred[<=3]"), &s("f32[3]"), &s("f32[3]"))),
        "f32[<=3]"
    );
    assert_eq!(
        show(select(&s("pred[]"), &s("f32[?]"), &s("f32[3]"))),
        "f32[3]"
    );
    assert_eq!(
        show(select(&s("pred[]"), &s("f32[?]"), &s("f32[<=3]"))),
        "f32[<=3]"
    );
    assert_eq!(
        show(select(&s("pred[]"), &s("bf16[2]"), &s("f32[2]"))),
        "f32[2]"
    );
    assert!(message(select(&s("s32[]"), &s("f32[3]"), &s("f32[3]"))).contains("must be pred"));
    assert!(message(select(&s("pred[]"), &s("f32[3]"), &s("f32[4]"))).contains("same shape"));
    assert!(message(select(&s("pred[]"), &s("f32[3]"), &s("s32[3]"))).contains("same shape"));
    assert!(message(select(&s("pred[2]"), &s("f32[3]"), &s("f32[3]")))
        .contains("a scalar or have the dims"));
    // sort_argsort_topk: clamp(f32[], f32[], f32[]); scalar bounds for an array too.
    assert_eq!(show(clamp(&s("f32[]"), &s("f32[]"), &s("f32[]"))), "f32[]");
    assert_eq!(
        show(clamp(&s("f32[]"), &s("f32[2,<=3]"), &s("f32[2,3]"))),
        "f32[2,<=3]"
    );
    assert!(message(clamp(&s("f32[3]"), &s("f32[4]"), &s("f32[]"))).contains("incompatible shapes"));
    assert!(
        message(clamp(&s("f32[3]"), &s("f32[3]"), &s("f32[4]"))).contains("incompatible shapes")
    );
    assert!(message(clamp(&s("s32[]"), &s("f32[4]"), &s("f32[]")))
        .contains("incompatible element types"));
}

#[test]
fn broadcast_maps_operand_dims() {
    let result = |dims: &[i64]| s(&format!("f32[{}]", join(dims))).dims;
    // gather_scatter_indexing: s32[50,8] broadcast(s32[8]), dimensions={1}.
    assert_eq!(
        show(broadcast(&s("s32[8]{0}"), &result(&[50, 8]), &[1])),
        "s32[50,8]"
    );
    assert_eq!(
        show(broadcast(&s("f32[]"), &result(&[2, 3]), &[])),
        "f32[2,3]"
    );
    assert_eq!(
        show(broadcast(&s("f32[2,3]"), &result(&[3, 5, 2]), &[2, 0])),
        "f32[3,5,2]"
    );
    // A mapped dim keeps the operand's dynamism.
    assert_eq!(
        show(broadcast(&s("s32[<=8]"), &result(&[50, 8]), &[1])),
        "s32[50,<=8]"
    );
    assert_eq!(
        message(broadcast(&s("s32[8]"), &result(&[50, 9]), &[1])),
        "broadcast: operand dimension 0 has size 8 but result dimension 1 has size 9"
    );
    assert!(message(broadcast(&s("s32[8]"), &result(&[50, 8]), &[]))
        .contains("one entry per operand dimension"));
    assert!(matches!(
        broadcast(&s("s32[8]"), &result(&[50, 8]), &[2]),
        Err(ShapeError::DimOutOfRange {
            dim: 2,
            rank: 2,
            ..
        })
    ));
    assert!(broadcast(&s("s32[8]"), &result(&[50, 8]), &[-1]).is_err());
}

#[test]
fn reshape_counts_elements() {
    let dims = |text: &str| s(text).dims;
    // gather_scatter_indexing: s32[50,3,1] reshape(s32[50,3]).
    assert_eq!(
        show(reshape(&s("s32[50,3]{1,0}"), &dims("f32[50,3,1]"))),
        "s32[50,3,1]"
    );
    assert_eq!(show(reshape(&s("f32[]"), &dims("f32[1,1]"))), "f32[1,1]");
    assert_eq!(show(reshape(&s("f32[?,4]"), &dims("f32[8]"))), "f32[8]");
    assert_eq!(
        message(reshape(&s("s32[50,3]"), &dims("f32[50,4]"))),
        "reshape: element counts differ: 150 in s32[50,3] but 200 in s32[50,4]"
    );
    assert!(message(reshape(&s("f32[8]"), &dims("f32[?]"))).contains("unbounded"));
    assert!(matches!(
        reshape(&s("f32[4611686018427387904,4]"), &dims("f32[2]")),
        Err(ShapeError::Overflow { .. })
    ));
}

#[test]
fn transpose_permutes() {
    // shape_manipulation and transformer_block_fwd.
    assert_eq!(
        show(transpose(&s("f32[4,8,16]{2,1,0}"), &[2, 0, 1])),
        "f32[16,4,8]"
    );
    assert_eq!(
        show(transpose(&s("f32[4,8,32,128]"), &[0, 3, 1, 2])),
        "f32[4,128,8,32]"
    );
    assert_eq!(show(transpose(&s("f32[<=4,8]"), &[1, 0])), "f32[8,<=4]");
    for bad in [
        &[0, 0, 1][..],
        &[0, 1],
        &[0, 1, 3],
        &[-1, 0, 1],
        &[0, 1, 2, 3],
    ] {
        assert!(message(transpose(&s("f32[4,8,16]"), bad)).contains("not a permutation"));
    }
}

#[test]
fn slice_sizes_and_errors() {
    let sl = |operand: &str, ranges: &[(i64, i64, Option<i64>)]| {
        show(slice(&s(operand), &SliceConfig::from_ranges(ranges)))
    };
    // cumulative_ops.
    assert_eq!(
        sl("f32[16,256]", &[(0, 16, Some(1)), (0, 255, Some(2))]),
        "f32[16,128]"
    );
    assert_eq!(
        sl("f32[16,256]", &[(0, 16, Some(1)), (1, 256, Some(2))]),
        "f32[16,128]"
    );
    assert_eq!(
        sl("f32[16,256]", &[(0, 16, None), (0, 1, None)]),
        "f32[16,1]"
    );
    assert_eq!(sl("f32[5]", &[(5, 5, None)]), "f32[0]");
    assert_eq!(sl("f32[]", &[]), "f32[]");
    // A bounded dim stays bounded unless one element is taken; an unbounded one is sliced
    // to a static size.
    assert_eq!(
        sl("f32[<=10,?]", &[(0, 5, None), (0, 5, None)]),
        "f32[<=5,5]"
    );
    assert_eq!(sl("f32[<=10]", &[(2, 3, None)]), "f32[1]");
    assert!(sl("f32[16]", &[(0, 17, None)]).contains("limit 17 is beyond dimension 0 of size 16"));
    assert!(sl("f32[16]", &[(3, 2, None)]).contains("past limit"));
    assert!(sl("f32[16]", &[(-1, 2, None)]).contains("negative start"));
    assert!(sl("f32[16]", &[(0, 2, Some(0))]).contains("must be positive"));
    assert!(sl("f32[16]", &[]).contains("0 ranges for an operand of rank 1"));
    let huge = SliceConfig {
        ranges: vec![SliceRange {
            start: 0,
            limit: i64::MAX,
            stride: i64::MAX,
        }],
    };
    assert_eq!(show(slice(&s("f32[?]"), &huge)), "f32[1]");
}

#[test]
fn concatenate_sums_and_merges_dynamism() {
    let c = |operands: &[&str], dimension| {
        let shapes: Vec<ArrayShape> = operands.iter().map(|t| s(t)).collect();
        let refs: Vec<&ArrayShape> = shapes.iter().collect();
        show(concatenate(&refs, dimension))
    };
    // cumulative_ops.
    assert_eq!(c(&["f32[16,1]{1,0}", "f32[16,3]{1,0}"], 1), "f32[16,4]");
    assert_eq!(c(&["f32[16,1]", "f32[16,7]"], 1), "f32[16,8]");
    assert_eq!(c(&["f32[3]"], 0), "f32[3]");
    assert_eq!(c(&["f32[<=3]", "f32[4]"], 0), "f32[<=7]");
    assert_eq!(c(&["f32[?]", "f32[4]"], 0), "f32[?]");
    assert_eq!(c(&["f32[?]", "f32[<=4]"], 0), "f32[?]");
    assert_eq!(c(&["f32[2,<=3]", "f32[2,3]"], 0), "f32[4,<=3]");
    assert_eq!(c(&["f32[2,?]", "f32[2,3]"], 0), "f32[4,3]");
    assert_eq!(c(&["bf16[2]", "f32[2]"], 0), "f32[4]");
    assert!(c(&["f32[2,<=3]", "f32[2,<=4]"], 0).contains("dimension 1 differs"));
    assert!(c(&["f32[2,3]", "f32[2,4]"], 0).contains("dimension 1 differs"));
    assert!(c(&["f32[2,3]", "f32[2]"], 0).contains("different ranks"));
    assert!(c(&["f32[2]", "s32[2]"], 0).contains("different element types"));
    assert!(c(&["f32[2]"], 1).contains("out of range"));
    assert!(c(&["f32[2]"], -1).contains("out of range"));
    assert!(c(&[], 0).contains("at least one operand"));
    assert!(c(&["f32[9223372036854775807]", "f32[1]"], 0).contains("overflows"));
}

#[test]
fn pad_with_negative_and_interior_padding() {
    let p = |operand: &str, padding: &str| {
        show(pad(
            &s(operand),
            &s("f32[]"),
            &PaddingConfig::parse(padding).unwrap(),
        ))
    };
    // shape_manipulation and cumulative_ops.
    assert_eq!(p("f32[32,16]{1,0}", "1_2_1x-2_3_0"), "f32[66,17]");
    assert_eq!(p("f32[16,1]", "0_0_0x0_1_1"), "f32[16,2]");
    assert_eq!(p("f32[0]", "1_1_5"), "f32[2]");
    assert_eq!(p("f32[<=4,?]", "1_1x1_1"), "f32[<=6,?]");
    assert_eq!(p("f32[2]", "-2_0"), "f32[0]");
    assert_eq!(
        p("f32[2]", "-2_-1"),
        "error: pad: padding gives dimension 0 the negative size -1"
    );
    assert!(p("f32[2]", "0_0_-1").contains("interior padding cannot be negative"));
    assert!(p("f32[2]", "0_0x0_0").contains("has 2 dimensions"));
    assert!(p("f32[9223372036854775807]", "0_1").contains("overflows"));
    assert!(p("f32[4611686018427387904]", "0_0_4").contains("overflows"));
    let config = PaddingConfig::parse("1_1").unwrap();
    assert!(message(pad(&s("f32[2]"), &s("f32[1]"), &config)).contains("must be a scalar"));
    assert!(
        message(pad(&s("f32[2]"), &s("s32[]"), &config)).contains("differs from the operand type")
    );
    assert_eq!(show(pad(&s("bf16[2]"), &s("f32[]"), &config)), "f32[4]");
}

#[test]
fn dot_orders_batch_then_free_dims() {
    let dnums = |lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]| DotDimensionNumbers {
        lhs_batch: lb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_batch: rb.to_vec(),
        rhs_contracting: rc.to_vec(),
    };
    let d = |l: &str, r: &str, dn: &DotDimensionNumbers| show(dot(&s(l), &s(r), dn, None));
    // dot_general_batch_dims, cond_branches and complex_ops.
    assert_eq!(
        d("f32[6,5,7]", "f32[6,7,3]", &dnums(&[0], &[2], &[0], &[1])),
        "f32[6,5,3]"
    );
    assert_eq!(
        d(
            "f32[2,4,16,8]",
            "f32[2,4,24,8]",
            &dnums(&[0, 1], &[3], &[0, 1], &[3])
        ),
        "f32[2,4,16,24]"
    );
    assert_eq!(
        d("f32[32,64]", "f32[64,16]", &dnums(&[], &[1], &[], &[0])),
        "f32[32,16]"
    );
    assert_eq!(
        d(
            "c64[16,16]",
            "c64[16,16]{0,1}",
            &dnums(&[], &[1], &[], &[0])
        ),
        "c64[16,16]"
    );
    // A batch dim may come after the free dims; the result still starts with it.
    assert_eq!(
        d("f32[5,7,6]", "f32[6,3,7]", &dnums(&[2], &[1], &[0], &[2])),
        "f32[6,5,3]"
    );
    assert_eq!(
        d("f32[3]", "f32[4]", &dnums(&[], &[], &[], &[])),
        "f32[3,4]"
    );
    assert_eq!(
        d("bf16[2,3]", "f32[3]", &dnums(&[], &[1], &[], &[0])),
        "f32[2]"
    );
    assert_eq!(
        show(dot(
            &s("bf16[2,3]"),
            &s("bf16[3]"),
            &dnums(&[], &[1], &[], &[0]),
            Some(PrimitiveType::F32)
        )),
        "f32[2]"
    );
    assert_eq!(
        d("f32[<=6,?,7]", "f32[6,?,3]", &dnums(&[0], &[2], &[0], &[1])),
        "f32[<=6,?,3]"
    );
    assert_eq!(
        d("f32[2,3]", "f32[4,5]", &dnums(&[], &[1], &[], &[0])),
        "error: dot: lhs contracting dim 1 has size 3 but rhs contracting dim 0 has size 4"
    );
    assert_eq!(
        d("f32[2,3]", "f32[4,3]", &dnums(&[0], &[1], &[0], &[1])),
        "error: dot: lhs batch dim 0 has size 2 but rhs batch dim 0 has size 4"
    );
    assert!(matches!(
        dot(
            &s("f32[2,3]"),
            &s("f32[3]"),
            &dnums(&[], &[2], &[], &[0]),
            None
        ),
        Err(ShapeError::DimOutOfRange {
            dim: 2,
            rank: 2,
            ..
        })
    ));
    assert!(d("f32[2,3]", "f32[3]", &dnums(&[], &[-1], &[], &[0])).contains("out of range"));
    assert!(d("f32[2,3]", "f32[2,3]", &dnums(&[1], &[1], &[1], &[0])).contains("listed twice"));
    assert!(d("f32[2,3]", "f32[3]", &dnums(&[], &[1], &[], &[]))
        .contains("1 contracting dims but rhs has 0"));
    assert!(d("f32[2,3]", "f32[2,3]", &dnums(&[0], &[1], &[], &[1]))
        .contains("1 batch dims but rhs has 0"));
}

#[test]
fn reduce_removes_dims_and_returns_tuples_for_many_operands() {
    let r = |operands: &[&str], inits: &[&str], dims: &[i64]| {
        let operands: Vec<ArrayShape> = operands.iter().map(|t| s(t)).collect();
        let inits: Vec<ArrayShape> = inits.iter().map(|t| s(t)).collect();
        show(reduce(
            &operands.iter().collect::<Vec<_>>(),
            &inits.iter().collect::<Vec<_>>(),
            dims,
        ))
    };
    // gather_scatter_indexing, bit_manipulation, random_threefry, loops_fori_while.
    assert_eq!(r(&["pred[50,3,1]"], &["pred[]"], &[2]), "pred[50,3]");
    assert_eq!(r(&["u32[256]"], &["u32[]"], &[0]), "u32[]");
    assert_eq!(r(&["c64[16,16]"], &["c64[]"], &[0]), "c64[16]");
    assert_eq!(
        r(&["f32[8,50]", "s32[8,50]"], &["f32[]", "s32[]"], &[1]),
        "(f32[8], s32[8])"
    );
    assert_eq!(
        r(&["f32[128]", "s32[128]"], &["f32[]", "s32[]"], &[0]),
        "(f32[], s32[])"
    );
    assert_eq!(r(&["f32[<=8,?,3]"], &["f32[]"], &[2]), "f32[<=8,?]");
    assert_eq!(r(&["f32[2,3]"], &["f32[]"], &[]), "f32[2,3]");
    assert!(r(&["f32[2,3]"], &["f32[]"], &[2]).contains("out of range"));
    assert!(r(&["f32[2,3]"], &["f32[]"], &[1, 1]).contains("must not repeat"));
    assert!(r(&["f32[2,3]"], &["f32[2]"], &[1]).contains("must be a scalar"));
    assert!(r(&["f32[2,3]"], &["s32[]"], &[1]).contains("init value 0 has type s32"));
    assert!(r(&["f32[2,3]", "s32[2,4]"], &["f32[]", "s32[]"], &[1]).contains("same dimensions"));
    assert!(r(&["f32[2,3]", "s32[2,3]"], &["f32[]"], &[1]).contains("need 2 init values"));
    assert!(r(&[], &[], &[0]).contains("at least one operand"));
}

#[test]
fn reduce_window_output_sizes() {
    let rw = |operand: &str, w: &Window| show(reduce_window(&[&s(operand)], &[&s("f32[]")], w));
    // cumulative_ops and the ResNet pooling of large/.
    assert_eq!(
        rw("f32[16,256]", &window("size=1x256 pad=0_0x255_0")),
        "f32[16,256]"
    );
    assert_eq!(
        rw("f32[16,256]", &window("size=16x1 pad=15_0x0_0")),
        "f32[16,256]"
    );
    assert_eq!(
        rw(
            "f32[8,32,32,64]",
            &window("size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0")
        ),
        "f32[8,16,16,64]"
    );
    assert_eq!(
        rw("f32[16,16]", &window("size=1x16 pad=0_0x16_0")),
        "f32[16,17]"
    );
    assert_eq!(
        rw(
            "f32[64,128]",
            &window("size=1x32 stride=1x32 pad=0_0x14_14")
        ),
        "f32[64,4]"
    );
    // Dilations: the base dilates to 19 and the window to 5.
    assert_eq!(
        rw(
            "f32[10]",
            &window("size=3 stride=2 lhs_dilate=2 rhs_dilate=2")
        ),
        "f32[8]"
    );
    assert_eq!(rw("f32[4]", &window("size=3 pad=-1_-1")), "f32[0]");
    assert_eq!(rw("f32[0]", &window("size=1")), "f32[0]");
    assert_eq!(
        rw("f32[<=10,?]", &window("size=2x2 stride=2x2")),
        "f32[<=5,?]"
    );
    assert_eq!(rw("f32[]", &Window::default()), "f32[]");
    assert_eq!(
        show(reduce_window(
            &[&s("f32[8]"), &s("s32[8]")],
            &[&s("f32[]"), &s("s32[]")],
            &window("size=2 stride=2")
        )),
        "(f32[4], s32[4])"
    );
    assert!(rw("f32[2]", &window("size=2x2"))
        .contains("the window has 2 dimensions but the base has 1"));
    assert!(rw("f32[2]", &window("size=0")).contains("non-positive size"));
    assert!(rw("f32[2]", &window("size=1 stride=0")).contains("non-positive stride"));
    assert!(rw("f32[2]", &window("size=1 lhs_dilate=0")).contains("non-positive lhs dilation"));
    assert!(rw("f32[2]", &window("size=1 rhs_dilate=0")).contains("non-positive rhs dilation"));
    assert!(rw("f32[2]", &window("size=1 pad=-2_-1")).contains("negative"));
    assert!(rw("f32[9223372036854775807]", &window("size=1 pad=0_1")).contains("overflows"));
    assert!(rw("f32[2]", &window("size=1 lhs_dilate=9223372036854775807")).contains("overflows"));
    assert!(message(reduce_window(
        &[&s("f32[2]")],
        &[&s("s32[]")],
        &window("size=1")
    ))
    .contains("type s32"));
}

#[test]
fn convolutions_of_the_corpus() {
    let conv = |lhs: &str, rhs: &str, w: &str, labels: &str, fgc: i64, bgc: i64| {
        show(convolution(
            &s(lhs),
            &s(rhs),
            fgc,
            bgc,
            &window(w),
            &ConvDimensionNumbers::parse(labels).unwrap(),
            None,
        ))
    };
    // Every convolution of conv_variants.
    assert_eq!(
        conv(
            "f32[2,4,17,17]",
            "f32[8,4,3,3]",
            "size=3x3 stride=2x2 pad=1_2x0_1",
            "bf01_oi01->bf01",
            1,
            1
        ),
        "f32[2,8,9,8]"
    );
    assert_eq!(
        conv(
            "f32[2,4,17,17]",
            "f32[8,4,3,3]",
            "size=3x3 pad=2_2x3_1 lhs_dilate=2x2 rhs_dilate=2x2",
            "bf01_oi01->bf01",
            1,
            1
        ),
        "f32[2,8,33,33]"
    );
    assert_eq!(
        conv(
            "f32[2,16,16,8]",
            "f32[3,3,1,8]",
            "size=3x3 pad=1_1x1_1",
            "b01f_01io->b01f",
            8,
            1
        ),
        "f32[2,16,16,8]"
    );
    assert_eq!(
        conv(
            "f32[2,16,16,8]",
            "f32[2,16,16,8]",
            "size=16x16 pad=1_1x1_1",
            "f01b_i01o->01bf",
            1,
            8
        ),
        "f32[3,3,1,8]"
    );
    assert_eq!(
        conv(
            "f32[2,100,6]",
            "f32[5,6,12]",
            "size=5",
            "b0f_0io->b0f",
            1,
            1
        ),
        "f32[2,96,12]"
    );
    assert_eq!(
        conv(
            "f32[1,8,8,8,2]",
            "f32[3,3,3,2,4]",
            "size=3x3x3 pad=1_1x1_1x1_1",
            "b012f_012io->b012f",
            1,
            1
        ),
        "f32[1,8,8,8,4]"
    );
    assert_eq!(
        conv(
            "f32[2,16,16,8]",
            "f32[3,3,8,8]",
            "size=3x3 pad=2_1x2_1 lhs_dilate=2x2",
            "b01f_01io->b01f",
            1,
            1
        ),
        "f32[2,32,32,8]"
    );
    // Dynamism: batch and spatial dims carry it to the output.
    assert_eq!(
        conv(
            "f32[<=2,<=16,16,8]",
            "f32[3,3,8,8]",
            "size=3x3 pad=1_1x1_1",
            "b01f_01io->b01f",
            1,
            1
        ),
        "f32[<=2,<=16,16,8]"
    );
    assert_eq!(
        conv(
            "f32[?,?,16,8]",
            "f32[3,3,8,8]",
            "size=3x3 pad=1_1x1_1",
            "b01f_01io->b01f",
            1,
            1
        ),
        "f32[?,?,16,8]"
    );
    let c = |lhs: &str, rhs: &str, w: &str, fgc: i64, bgc: i64| {
        conv(lhs, rhs, w, "b01f_01io->b01f", fgc, bgc)
    };
    assert!(c("f32[2,16,16,8]", "f32[3,3,1,8]", "size=3x3", 3, 1)
        .contains("multiple of feature_group_count 3"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,2,8]", "size=3x3", 8, 1)
        .contains("equal the kernel input feature size 2"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,8,6]", "size=3x3", 1, 4)
        .contains("multiple of batch_group_count 4"));
    assert!(c("f32[3,16,16,8]", "f32[3,3,8,8]", "size=3x3", 1, 2).contains("input batch size 3"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,4,8]", "size=3x3", 2, 2)
        .contains("cannot both be greater than 1"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=5x5", 1, 1)
        .contains("window size 5 of spatial dimension 0"));
    assert!(
        c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=3", 1, 1).contains("the window has 1 dimensions")
    );
    assert!(c("f32[2,16,8]", "f32[3,3,8,8]", "size=3x3", 1, 1).contains("should have rank 4"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,8,<=8]", "size=3x3", 1, 1)
        .contains("dynamic kernel output feature"));
    assert!(c("f32[2,16,16,8]", "f32[3,3,8,8]", "size=3x3", 0, 1).contains("must be positive"));
    let mut bad_labels = ConvDimensionNumbers::parse("b01f_01io->b01f").unwrap();
    bad_labels.input_feature_dimension = 0;
    assert!(message(convolution(
        &s("f32[2,16,16,8]"),
        &s("f32[3,3,8,8]"),
        1,
        1,
        &window("size=3x3"),
        &bad_labels,
        None
    ))
    .contains(
        "input dimensions in dim_labels=f01_01io->b01f must name each dimension exactly once"
    ));
    bad_labels.input_feature_dimension = 7;
    assert!(message(convolution(
        &s("f32[2,16,16,8]"),
        &s("f32[3,3,8,8]"),
        1,
        1,
        &window("size=3x3"),
        &bad_labels,
        None
    ))
    .contains("out of range"));
    assert_eq!(
        show(convolution(
            &s("bf16[1,4,2]"),
            &s("bf16[1,2,3]"),
            1,
            1,
            &window("size=1"),
            &ConvDimensionNumbers::parse("b0f_0io->b0f").unwrap(),
            Some(PrimitiveType::F32)
        )),
        "f32[1,4,3]"
    );
}

fn gather_dnums(
    offset: &[i64],
    collapsed: &[i64],
    start_index_map: &[i64],
    ivd: i64,
) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: start_index_map.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

#[test]
fn gathers_of_the_corpus() {
    let g = |operand: &str, indices: &str, dnums: &GatherDimensionNumbers, sizes: &[i64]| {
        show(gather(&s(operand), &s(indices), dnums, sizes))
    };
    let embedding = gather_dnums(&[2], &[0], &[0], 2);
    // gather_scatter_indexing: an embedding lookup and a batched take_along_axis.
    assert_eq!(
        g("f32[1000,64]", "s32[8,16,1]", &embedding, &[1, 64]),
        "f32[8,16,64]"
    );
    let batched = GatherDimensionNumbers {
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        ..gather_dnums(&[], &[1], &[1], 2)
    };
    assert_eq!(
        g("f32[50,8]", "s32[50,3,1]", &batched, &[1, 1]),
        "f32[50,3]"
    );
    // The opt dumps: gather(f32[150,2]?) with offset dims after the batch dim.
    assert_eq!(
        g(
            "f32[4,5]",
            "s32[150,2]",
            &gather_dnums(&[1, 2], &[], &[0, 1], 1),
            &[1, 1]
        ),
        "f32[150,1,1]"
    );
    // index_vector_dim equal to the indices' rank means an implicit trailing 1.
    assert_eq!(
        g("f32[1000,64]", "s32[8,16]", &embedding, &[1, 64]),
        "f32[8,16,64]"
    );
    assert_eq!(
        g("f32[5]", "s32[]", &gather_dnums(&[0], &[], &[0], 0), &[2]),
        "f32[2]"
    );
    // Dynamism: indices' batch dims carry theirs; a whole dynamic operand dim stays dynamic.
    assert_eq!(
        g("f32[1000,<=64]", "s32[<=8,?,1]", &embedding, &[1, 64]),
        "f32[<=8,?,<=64]"
    );
    assert_eq!(
        g("f32[1000,<=64]", "s32[8,16,1]", &embedding, &[1, 32]),
        "f32[8,16,32]"
    );
    assert_eq!(
        g("f32[1000,?]", "s32[8,16,1]", &embedding, &[1, 32]),
        "f32[8,16,32]"
    );

    let error = |operand: &str,
                 indices: &str,
                 dnums: &GatherDimensionNumbers,
                 sizes: &[i64],
                 expected: &str| {
        let got = g(operand, indices, dnums, sizes);
        assert!(got.contains(expected), "{got}");
    };
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &embedding,
        &[1, 65],
        "slice size 65 at index 1 is out of range",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &embedding,
        &[-1, 64],
        "slice size -1",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &embedding,
        &[2, 64],
        "collapsed slice dim 0 must have slice size 0 or 1, got 2",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &embedding,
        &[1],
        "one size per dimension",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,2]",
        &embedding,
        &[1, 64],
        "start_index_map has 1 entries",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[2], &[0], &[2], 2),
        &[1, 64],
        "start_index_map entry 2 is out of range",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[3], &[0], &[0], 2),
        &[1, 64],
        "offset dim 3 is out of range",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[2, 1], &[], &[0], 2),
        &[1, 64],
        "offset_dims must be sorted",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[2], &[], &[0], 2),
        &[1, 64],
        "every operand dimension must be",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[2], &[0], &[0], 4),
        &[1, 64],
        "index_vector_dim 4 must be within [0, 3]",
    );
    error(
        "f32[1000,64]",
        "s32[8,16,1]",
        &gather_dnums(&[2], &[0], &[0], -1),
        &[1, 64],
        "index_vector_dim -1",
    );
    error(
        "f32[1000,64]",
        "f32[8,16,1]",
        &embedding,
        &[1, 64],
        "must be integral",
    );
    let uneven = GatherDimensionNumbers {
        operand_batching_dims: vec![0],
        ..gather_dnums(&[], &[1], &[1], 2)
    };
    error(
        "f32[50,8]",
        "s32[50,3,1]",
        &uneven,
        &[1, 1],
        "must have the same length",
    );
    let wide_batch = GatherDimensionNumbers {
        start_indices_batching_dims: vec![3],
        ..batched.clone()
    };
    error(
        "f32[50,8]",
        "s32[50,3,1]",
        &wide_batch,
        &[1, 1],
        "start indices batching dim 3 is out of range",
    );
}

fn scatter_dnums(
    window: &[i64],
    inserted: &[i64],
    to_operand: &[i64],
    ivd: i64,
) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: window.to_vec(),
        inserted_window_dims: inserted.to_vec(),
        scatter_dims_to_operand_dims: to_operand.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

#[test]
fn scatters_of_the_corpus() {
    let sc = |operand: &str, indices: &str, updates: &str, dnums: &ScatterDimensionNumbers| {
        show(scatter(&[&s(operand)], &s(indices), &[&s(updates)], dnums))
    };
    // gather_scatter_indexing.
    assert_eq!(
        sc(
            "f32[1000,64]",
            "s32[8,16,1]",
            "f32[8,16,64]",
            &scatter_dnums(&[2], &[0], &[0], 2)
        ),
        "f32[1000,64]"
    );
    assert_eq!(
        sc(
            "f32[50,8]",
            "s32[12,1]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[0], &[0], 1)
        ),
        "f32[50,8]"
    );
    assert_eq!(
        sc(
            "f32[50,8]",
            "s32[4,2]",
            "f32[4,2]",
            &scatter_dnums(&[1], &[0], &[0, 1], 1)
        ),
        "f32[50,8]"
    );
    assert_eq!(
        sc(
            "f32[50,8]",
            "s32[12]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[0], &[0], 1)
        ),
        "f32[50,8]"
    );
    let batched = ScatterDimensionNumbers {
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        ..scatter_dnums(&[], &[1], &[1], 2)
    };
    assert_eq!(
        sc("f32[50,8]", "s32[50,3,1]", "f32[50,3]", &batched),
        "f32[50,8]"
    );
    assert_eq!(
        sc(
            "f32[<=50,8]",
            "s32[?,1]",
            "f32[12,8]",
            &scatter_dnums(&[1], &[0], &[0], 1)
        ),
        "f32[<=50,8]"
    );
    assert_eq!(
        show(scatter(
            &[&s("f32[50,8]"), &s("s32[50,8]")],
            &s("s32[12,1]"),
            &[&s("f32[12,8]"), &s("s32[12,8]")],
            &scatter_dnums(&[1], &[0], &[0], 1)
        )),
        "(f32[50,8], s32[50,8])"
    );

    let error = |operand: &str,
                 indices: &str,
                 updates: &str,
                 dnums: &ScatterDimensionNumbers,
                 expected: &str| {
        let got = sc(operand, indices, updates, dnums);
        assert!(got.contains(expected), "{got}");
    };
    let rows = scatter_dnums(&[1], &[0], &[0], 1);
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[12,9]",
        &rows,
        "update window dimension 1 has size 9, beyond the operand's 8",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[11,8]",
        &rows,
        "update scatter dimension 0 has size 11",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[12,8,1]",
        &rows,
        "must have rank 2",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "s32[12,8]",
        &rows,
        "updates 0 have type s32",
    );
    error(
        "f32[50,8]",
        "s32[12,2]",
        "f32[12,8]",
        &rows,
        "scatter_dims_to_operand_dims has 1 entries",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[12,8]",
        &scatter_dnums(&[1], &[], &[0], 1),
        "the window has 1 dimensions",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[12,8]",
        &scatter_dnums(&[1], &[0], &[2], 1),
        "out of range",
    );
    error(
        "f32[50,8]",
        "s32[12,1]",
        "f32[12,8]",
        &scatter_dnums(&[1], &[0], &[0], 3),
        "index_vector_dim 3",
    );
    error(
        "f32[50,8,2]",
        "s32[12,1]",
        "f32[12]",
        &scatter_dnums(&[], &[1, 0], &[0], 1),
        "inserted_window_dims must be sorted",
    );
    error(
        "f32[50,8]",
        "f32[12,1]",
        "f32[12,8]",
        &rows,
        "must be integral",
    );
    assert!(message(scatter(&[&s("f32[2]")], &s("s32[1]"), &[], &rows))
        .contains("as many updates as operands"));
}

#[test]
fn tuples_iota_and_copies() {
    let t = tuple(&[
        Shape::Array(s("f32[2]{0}")),
        Shape::Tuple(vec![Shape::Token]),
    ]);
    assert_eq!(t.to_string(), "(f32[2], (token[]))");
    assert_eq!(show(get_tuple_element(&t, 1)), "(token[])");
    assert!(message(get_tuple_element(&t, 2)).contains("index 2 is out of range for a tuple of 2"));
    assert!(get_tuple_element(&t, -1).is_err());
    assert!(message(get_tuple_element(&Shape::Array(s("f32[2]")), 0)).contains("not a tuple"));
    // gather_scatter_indexing: s32[8] iota(), iota_dimension=0.
    assert_eq!(show(iota(&s("s32[8]{0}"), 0)), "s32[8]");
    assert!(message(iota(&s("s32[8]"), 1)).contains("iota_dimension 1 is out of range"));
    assert!(message(iota(&s("s32[]"), 0)).contains("scalars"));
    assert!(message(iota(&s("pred[2]"), 0)).contains("expected an integral"));
    assert_eq!(
        copy(&Shape::Array(s("f32[2,3]{0,1}"))).to_string(),
        "f32[2,3]"
    );
}

#[test]
fn dynamic_slices_of_the_corpus() {
    let scalar = s("s32[]");
    // gather_scatter_indexing, loops_fori_while, scan_lstm_train.
    assert_eq!(
        show(dynamic_slice(&s("f32[50,8]"), &[&scalar, &scalar], &[4, 5])),
        "f32[4,5]"
    );
    assert_eq!(
        show(dynamic_slice(
            &s("f32[20,8,32]"),
            &[&scalar, &scalar, &scalar],
            &[1, 8, 32]
        )),
        "f32[1,8,32]"
    );
    assert_eq!(
        show(dynamic_slice(&s("f32[50,8]"), &[&s("s32[2]")], &[4, 5])),
        "f32[4,5]"
    );
    assert_eq!(
        show(dynamic_slice(
            &s("f32[<=50,<=8]"),
            &[&scalar, &scalar],
            &[50, 4]
        )),
        "f32[<=50,4]"
    );
    assert_eq!(
        show(dynamic_slice(&s("f32[?]"), &[&scalar], &[7])),
        "f32[7]"
    );
    let ds = |sizes: &[i64], indices: &[&ArrayShape]| {
        message(dynamic_slice(&s("f32[50,8]"), indices, sizes))
    };
    assert!(ds(&[4, 9], &[&scalar, &scalar])
        .contains("slice size 9 is larger than dimension 1 of size 8"));
    assert!(ds(&[4, -1], &[&scalar, &scalar]).contains("negative slice size"));
    assert!(ds(&[4], &[&scalar, &scalar]).contains("one size per dimension"));
    assert!(ds(&[4, 5], &[&scalar]).contains("1 start indices for an operand"));
    assert!(ds(&[4, 5], &[&scalar, &s("s64[]")]).contains("one shape"));
    assert!(ds(&[4, 5], &[&s("f32[]"), &s("f32[]")]).contains("integral"));
    assert!(ds(&[4, 5], &[&s("s32[3]")]).contains("one entry per dimension"));
    assert!(ds(&[4, 5], &[&s("s32[2]"), &scalar]).contains("only index operand"));

    // scan_lstm_train and shape_manipulation.
    assert_eq!(
        show(dynamic_update_slice(
            &s("f32[20,8,64]"),
            &s("f32[1,8,64]"),
            &[&scalar, &scalar, &scalar]
        )),
        "f32[20,8,64]"
    );
    assert_eq!(
        show(dynamic_update_slice(
            &s("f32[32,16]"),
            &s("f32[4,8]"),
            &[&scalar, &scalar]
        )),
        "f32[32,16]"
    );
    assert_eq!(
        show(dynamic_update_slice(
            &s("f32[<=32,16]"),
            &s("f32[4,<=16]"),
            &[&scalar, &scalar]
        )),
        "f32[<=32,<=16]"
    );
    let dus = |update: &str| {
        message(dynamic_update_slice(
            &s("f32[32,16]"),
            &s(update),
            &[&scalar, &scalar],
        ))
    };
    assert!(dus("f32[4,17]").contains("update dimension 1 of size 17 is larger"));
    assert!(dus("f32[4]").contains("must have the rank"));
    assert!(dus("s32[4,8]").contains("update type s32"));
}

#[test]
fn reverse_and_sort() {
    // shape_manipulation and gather_scatter_indexing.
    assert_eq!(show(reverse(&s("f32[32,16]"), &[0, 1])), "f32[32,16]");
    assert!(message(reverse(&s("f32[32,16]"), &[1, 1])).contains("must not repeat"));
    assert!(message(reverse(&s("f32[32,16]"), &[2])).contains("out of range"));
    assert_eq!(show(sort(&[&s("f32[64,100]")], 1)), "f32[64,100]");
    assert_eq!(
        show(sort(&[&s("f32[50,8]"), &s("s32[50,8]")], 1)),
        "(f32[50,8], s32[50,8])"
    );
    assert!(message(sort(&[&s("f32[50,8]"), &s("s32[50,9]")], 1)).contains("same dimensions"));
    assert!(message(sort(&[&s("f32[50,8]")], 2)).contains("out of range"));
}

mod never_panics {
    use super::*;
    use crate::ir::attrs::{PaddingDimension, WindowDimension};
    use proptest::prelude::*;

    fn dim() -> impl Strategy<Value = Dim> {
        prop_oneof![
            (0i64..6).prop_map(Dim::Static),
            (0i64..6).prop_map(Dim::Bounded),
            Just(Dim::Unbounded),
            Just(Dim::Static(i64::MAX)),
            Just(Dim::Static(-1)),
        ]
    }

    fn shape() -> impl Strategy<Value = ArrayShape> {
        let types = prop::sample::select(vec![
            PrimitiveType::F32,
            PrimitiveType::S32,
            PrimitiveType::Pred,
            PrimitiveType::C64,
            PrimitiveType::U8,
            PrimitiveType::Token,
        ]);
        (types, prop::collection::vec(dim(), 0..4)).prop_map(|(ty, dims)| array(ty, dims))
    }

    fn numbers() -> impl Strategy<Value = Vec<i64>> {
        prop::collection::vec(prop_oneof![-2i64..6, Just(i64::MIN), Just(i64::MAX)], 0..4)
    }

    fn number() -> impl Strategy<Value = i64> {
        prop_oneof![-2i64..6, Just(i64::MIN), Just(i64::MAX)]
    }

    fn window_strategy() -> impl Strategy<Value = Window> {
        prop::collection::vec(
            (number(), number(), number(), number(), number(), number()),
            0..4,
        )
        .prop_map(|dims| Window {
            dimensions: dims
                .into_iter()
                .map(|(size, stride, low, high, base, win)| WindowDimension {
                    size,
                    stride,
                    padding_low: low,
                    padding_high: high,
                    base_dilation: base,
                    window_dilation: win,
                    window_reversal: false,
                })
                .collect(),
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_rule_returns_a_value(
            a in shape(), b in shape(), c in shape(),
            n1 in numbers(), n2 in numbers(), n3 in numbers(), n4 in numbers(), n5 in numbers(),
            k in number(), g in number(), w in window_strategy(),
        ) {
            for op in Opcode::all() {
                let _ = unary(op, &a);
                let _ = binary(op, &a, &b);
            }
            let _ = bitcast_convert(&a, b.element_type);
            let _ = select(&a, &b, &c);
            let _ = clamp(&a, &b, &c);
            let _ = broadcast(&a, &b.dims, &n1);
            let _ = reshape(&a, &b.dims);
            let _ = transpose(&a, &n1);
            let ranges: Vec<(i64, i64, Option<i64>)> = n1.iter().zip(&n2).zip(&n3)
                .map(|((&x, &y), &z)| (x, y, Some(z))).collect();
            let _ = slice(&a, &SliceConfig::from_ranges(&ranges));
            let _ = concatenate(&[&a, &b, &c], k);
            let padding = PaddingConfig {
                dimensions: n1.iter().zip(&n2).zip(&n3)
                    .map(|((&edge_low, &edge_high), &interior)| PaddingDimension { edge_low, edge_high, interior })
                    .collect(),
            };
            let _ = pad(&a, &b, &padding);
            let dnums = DotDimensionNumbers {
                lhs_batch: n1.clone(), lhs_contracting: n2.clone(),
                rhs_batch: n3.clone(), rhs_contracting: n4.clone(),
            };
            let _ = dot(&a, &b, &dnums, None);
            let _ = reduce(&[&a, &b], &[&c, &c], &n1);
            let _ = reduce_window(&[&a], &[&b], &w);
            let conv = ConvDimensionNumbers {
                input_batch_dimension: k,
                input_feature_dimension: g,
                input_spatial_dimensions: n1.clone(),
                kernel_input_feature_dimension: g,
                kernel_output_feature_dimension: k,
                kernel_spatial_dimensions: n2.clone(),
                output_batch_dimension: k,
                output_feature_dimension: g,
                output_spatial_dimensions: n3.clone(),
            };
            let _ = convolution(&a, &b, k, g, &w, &conv, None);
            let gdn = GatherDimensionNumbers {
                offset_dims: n1.clone(), collapsed_slice_dims: n2.clone(),
                start_index_map: n3.clone(), operand_batching_dims: n4.clone(),
                start_indices_batching_dims: n5.clone(), index_vector_dim: k,
            };
            let _ = gather(&a, &b, &gdn, &n5);
            let sdn = ScatterDimensionNumbers {
                update_window_dims: n1.clone(), inserted_window_dims: n2.clone(),
                scatter_dims_to_operand_dims: n3.clone(), input_batching_dims: n4.clone(),
                scatter_indices_batching_dims: n5.clone(), index_vector_dim: k,
            };
            let _ = scatter(&[&a], &b, &[&c], &sdn);
            let _ = iota(&a, k);
            let _ = dynamic_slice(&a, &[&b, &c], &n1);
            let _ = dynamic_update_slice(&a, &b, &[&c]);
            let _ = reverse(&a, &n1);
            let _ = sort(&[&a, &b], k);
            let _ = conv.to_string();
            let _ = w.to_string();
        }
    }
}
