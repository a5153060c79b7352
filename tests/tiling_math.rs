//! The tiled-layout math against every worked answer of XLA's "Tiled layout" document and
//! docs/tiled-layouts.md §5 and §10 (cases A1-A22).

use hlo_layout::ir::{LegacyPadding, PaddingValue, PhysicalLayout};

fn memory(shape: &str) -> PhysicalLayout {
    let array = hlo_layout::parse_array_shape(shape)
        .unwrap_or_else(|e| panic!("{shape} does not parse: {e:?}"));
    PhysicalLayout::new(&array).unwrap_or_else(|e| panic!("{shape}: {e}"))
}

fn linear(shape: &str, index: &[i64]) -> i64 {
    memory(shape).linear_index(index).unwrap()
}

#[test]
fn a1_doc_example_3x5_tile_2x2() {
    let m = memory("f32[3,5]{1,0:T(2,2)}");
    assert_eq!(m.linear_index(&[2, 3]), Ok(17));
    let trace = m.trace(&[2, 3]).unwrap();
    assert_eq!(trace[0].tile_index, vec![1, 1]);
    assert_eq!(trace[0].within_tile_index, vec![0, 1]);
    assert_eq!(m.tiled_dims(), &[2, 3, 2, 2]);
    assert_eq!(m.padded_elements(), 24);
    assert_eq!(m.bytes(), 96);
}

#[test]
fn a2_doc_figure_2_full_table() {
    let m = memory("f32[4,8]{1,0:T(2,4)(2,1)}");
    let expected = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ];
    for (r, row) in expected.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(m.linear_index(&[r as i64, c as i64]), Ok(want), "({r},{c})");
        }
    }
    assert_eq!(m.tiled_dims(), &[2, 2, 1, 4, 2, 1]);
}

#[test]
fn a3_a4_alternative_16_bit_cross_tile() {
    let m = memory("f32[8,8]{1,0:T(2,4)(2,1,1,1)}");
    assert_eq!(m.linear_index(&[6, 5]), Ok(51));
    assert_eq!(m.tiled_dims(), &[2, 2, 2, 4, 2, 1, 1, 1]);
    assert_eq!(m.steps()[0].output_dims, vec![4, 2, 2, 4]);
    let trace = m.trace(&[6, 5]).unwrap();
    assert_eq!(trace[0].tile_index, vec![3, 1]);
    assert_eq!(trace[1].combined_index, vec![3, 1, 0, 1]);
    assert_eq!(
        memory("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}").tiled_dims(),
        &[2, 2, 8, 128, 2, 1, 1, 1]
    );
}

#[test]
fn a5_combined_dims() {
    let shape = "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}";
    let m = memory(shape);
    assert_eq!(m.padded_elements(), 12432);
    assert_eq!(m.bytes(), 49728);
    assert_eq!(m.steps()[0].combined_dims, vec![112, 110]);
    assert_eq!(m.tiled_dims(), &[56, 37, 2, 3]);
    assert_eq!(m.linear_index(&[1, 6, 7, 10, 9]), Ok(12430));
    assert_eq!(m.linear_index(&[0, 0, 0, 0, 1]), Ok(1));
    assert_eq!(m.linear_index(&[0, 0, 0, 0, 3]), Ok(6));
    assert_eq!(m.linear_index(&[0, 0, 1, 0, 0]), Ok(3));
}

#[test]
fn a6_a7_non_default_minor_to_major() {
    let m = memory("f32[4,6]{0,1:T(2,3)}");
    assert_eq!(m.physical_dims(), vec![6, 4]);
    assert_eq!(m.linear_index(&[3, 5]), Ok(33));
    assert_eq!(m.padded_elements(), 36);

    let m = memory("f32[2,3,130]{0,2,1:T(8,128)}");
    assert_eq!(m.physical_dims(), vec![3, 130, 2]);
    assert_eq!(m.tiled_dims(), &[3, 17, 1, 8, 128]);
    assert_eq!(m.linear_index(&[1, 2, 129]), Ok(51329));
    assert_eq!(m.padded_elements(), 52224);
    assert_eq!(m.bytes(), 208_896);
}

#[test]
fn a8_ragged_edge_sizes() {
    let m = memory("f32[5,130]{1,0:T(8,128)}");
    assert_eq!(m.linear_index(&[4, 129]), Ok(1537));
    assert_eq!(m.bytes(), 8192);
    assert_eq!(m.array_data_bytes(), 6152);
    assert_eq!(m.unpadded_bytes(), 2600);
}

#[test]
fn a9_bf16_packed_pairs_of_rows() {
    let shape = "bf16[16,256]{1,0:T(8,128)(2,1)}";
    for (index, want) in [
        ([3, 5], 267),
        ([0, 1], 2),
        ([1, 0], 1),
        ([2, 0], 256),
        ([0, 128], 1024),
        ([8, 0], 2048),
    ] {
        assert_eq!(linear(shape, &index), want, "{index:?}");
    }
    assert_eq!(memory(shape).bytes(), 8192);
    // The closed form of docs/tiled-layouts.md §5 (A9) holds in the first tile.
    let m = memory(shape);
    for r in 0..8 {
        for c in 0..128 {
            assert_eq!(m.linear_index(&[r, c]), Ok((r / 2) * 256 + 2 * c + r % 2));
        }
    }
}

#[test]
fn a10_rank_1_bf16_three_tiles() {
    let shape = "bf16[6144]{0:T(1024)(128)(2,1)}";
    for (i, want) in [
        (0, 0),
        (1, 2),
        (127, 254),
        (128, 1),
        (129, 3),
        (130, 5),
        (255, 255),
        (1024, 1024),
    ] {
        assert_eq!(linear(shape, &[i]), want, "element {i}");
    }
    assert_eq!(memory(shape).bytes(), 12_288);
}

#[test]
fn a11_s8_words_hold_four_rows() {
    let m = memory("s8[8,128]{1,0:T(8,128)(4,1)}");
    // 32-bit word w holds linear indices 4w..4w+3.
    for r in 0..4 {
        assert_eq!(m.linear_index(&[r, 0]).unwrap() / 4, 0);
        assert_eq!(m.linear_index(&[r + 4, 0]).unwrap() / 4, 128);
    }
    assert_eq!(m.linear_index(&[0, 1]).unwrap() / 4, 1);
}

#[test]
fn a12_a14_sub_byte_sizes() {
    let m = memory("s4[64,128]{1,0:T(8,128)(8,1)E(4)}");
    assert_eq!(m.bytes(), 4096);
    for r in 0..8 {
        assert_eq!(
            m.linear_index(&[r, 0]).unwrap() / 8,
            0,
            "word 0 holds rows 0-7"
        );
    }
    assert_eq!(memory("s4[1,128]{1,0:T(8,128)(8,1)E(4)}").bytes(), 512);
    assert_eq!(
        memory("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}").bytes(),
        28_311_552
    );
    assert_eq!(memory("s4[10]{0:E(4)}").bytes(), 5);
    assert_eq!(memory("s4[3]{0:E(4)}").bytes(), 2);
    assert_eq!(memory("s4[10]{0}").bytes(), 10);
}

#[test]
fn a15_a16_a20_scalars_and_rank_1() {
    for (shape, bytes) in [
        ("s32[]{:T(128)}", 512),
        ("bf16[]{:T(256)}", 512),
        ("pred[]{:T(512)}", 512),
        ("pred[]{:T(128)E(32)}", 512),
        ("f32[]{:T(256)}", 1024),
        ("f32[18]{0:T(256)}", 1024),
        ("s32[16]{0:T(128)}", 512),
        ("f32[1000]{0:T(1024)}", 4096),
        ("bf16[128]{0:T(256)(128)(2,1)}", 512),
        ("f32[100]{0:T(2,128)}", 1024),
    ] {
        assert_eq!(memory(shape).bytes(), bytes, "{shape}");
    }
    assert_eq!(memory("f32[100]{0:T(2,128)}").tiled_dims(), &[1, 1, 2, 128]);
}

#[test]
fn a17_a19_second_minor_padding() {
    for (shape, bytes) in [
        ("f32[1,6144]{1,0:T(1,128)}", 24_576),
        ("f32[1,6144]{1,0:T(2,128)}", 49_152),
        ("bf16[1,6144]{1,0:T(2,128)(2,1)}", 24_576),
        ("bf16[2,1024]{1,0:T(4,128)(2,1)}", 8192),
        ("s32[8388608,8,4]{2,1,0:T(8,128)}", 32 << 30),
        ("s32[8388608,8,4]{0,2,1:T(4,128)}", 1 << 30),
        ("s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}", 16 << 30),
    ] {
        assert_eq!(memory(shape).bytes(), bytes, "{shape}");
    }
    assert_eq!(
        memory("s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}").unpadded_bytes(),
        512 << 20
    );
}

#[test]
fn a21_sub_tile_padding_is_counted() {
    // XLA's ArraySize says 256 elements; every tile counts here, so the exact size is 512.
    let m = memory("bf16[1,256]{1,0:T(1,128)(2,1)}");
    assert_eq!(m.padded_elements(), 512);
    assert_eq!(m.bytes(), 1024);
}

#[test]
fn a22_combine_in_first_tile_follows_the_doc() {
    let m = memory("f32[16,2,64]{2,1,0:T(8,*,128)}");
    assert_eq!(m.padded_elements(), 2048);
}

#[test]
fn tail_padding_alignment_rounds_the_count() {
    let m = memory("f32[5]{0:L(8)}");
    assert_eq!(m.padded_elements(), 8);
    assert_eq!(m.element_at(6), Ok(None));
    assert_eq!(m.element_at(4), Ok(Some(vec![4])));
}

#[test]
fn zero_sized_arrays_take_no_space() {
    let m = memory("f32[0,128]{1,0:T(8,128)}");
    assert_eq!(m.bytes(), 0);
    assert_eq!(m.array_data_bytes(), 0);
    assert_eq!(m.padding_fraction(), 0.0);
}

#[test]
fn legacy_padded_dimensions_doc_example() {
    // A [2x3] array `a b c / d e f` with minor_to_major [0,1] and padded_dimensions [3,5]
    // is laid out as `a d 0 b e 0 c f 0 0 0 0 0 0 0`.
    let array = hlo_layout::parse_array_shape("f32[2,3]{0,1}").unwrap();
    let padding = LegacyPadding {
        padded_dimensions: vec![3, 5],
        padding_value: PaddingValue::Zero,
    };
    let m = PhysicalLayout::with_legacy_padding(&array, &padding).unwrap();
    let names = [["a", "b", "c"], ["d", "e", "f"]];
    let cells: Vec<&str> = (0..m.padded_elements())
        .map(|i| match m.element_at(i).unwrap() {
            Some(index) => names[index[0] as usize][index[1] as usize],
            None => "0",
        })
        .collect();
    assert_eq!(cells.join(" "), "a d 0 b e 0 c f 0 0 0 0 0 0 0");
}

#[test]
fn bounded_dims_are_laid_out_at_their_bound() {
    let m = memory("f32[<=5,128]{1,0:T(8,128)}");
    assert_eq!(m.bytes(), 4096);
    let array = hlo_layout::parse_array_shape("f32[?,128]{1,0}").unwrap();
    assert!(PhysicalLayout::new(&array).is_err());
}
