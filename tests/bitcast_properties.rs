//! The symbolic bitcast predicate agrees with a brute force over all elements.

use hlo_layout::ir::bitcast::{
    brute_force, is_bitcast, symbolic_verdict, Correspondence, SymbolicVerdict,
};
use hlo_layout::ir::{ArrayShape, Layout, PhysicalLayout, PrimitiveType, Tile, TileDim};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn factorize(mut n: i64) -> Vec<i64> {
    let mut factors = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

fn tile_strategy(max_len: usize) -> impl Strategy<Value = Tile> {
    let size = prop::sample::select(vec![1i64, 2, 2, 3, 4, 4, 8, 8, 16]);
    prop::collection::vec(
        prop_oneof![6 => size.prop_map(TileDim::Size), 1 => Just(TileDim::Combine)],
        1..=max_len,
    )
    .prop_map(|mut dims| {
        if let Some(last) = dims.last_mut() {
            if *last == TileDim::Combine {
                *last = TileDim::Size(4);
            }
        }
        Tile { dims }
    })
}

fn layout_strategy(rank: usize) -> impl Strategy<Value = Layout> {
    (
        Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec(tile_strategy(rank.max(1) + 1), 0..=2),
    )
        .prop_map(|(minor_to_major, tiles)| Layout {
            minor_to_major,
            tiles,
            ..Layout::default()
        })
}

/// Two arrays of the same element count, with random dims and layouts; half the time they
/// share their tiles, which makes bitcasts common.
fn reshape_pair() -> impl Strategy<Value = (ArrayShape, ArrayShape)> {
    prop::collection::vec(1i64..9, 1..4)
        .prop_flat_map(|dims| {
            let total: i64 = dims.iter().product();
            let factors = factorize(total);
            let grouping = (
                Just(factors).prop_shuffle(),
                prop::collection::vec(0usize..3, 8),
                0usize..3,
            );
            (Just(dims), grouping)
        })
        .prop_flat_map(|(dims, (factors, cuts, ones))| {
            let mut other: Vec<i64> = Vec::new();
            for (i, f) in factors.iter().enumerate() {
                if i == 0 || cuts.get(i).copied().unwrap_or(0) == 0 {
                    other.push(*f);
                } else if let Some(last) = other.last_mut() {
                    *last *= f;
                }
            }
            other.resize(other.len() + ones, 1);
            if other.is_empty() {
                other.push(1);
            }
            let share = any::<bool>();
            (
                Just(dims.clone()),
                Just(other.clone()),
                layout_strategy(dims.len()),
                layout_strategy(other.len()),
                share,
            )
        })
        .prop_map(|(a_dims, b_dims, a_layout, mut b_layout, share)| {
            if share {
                b_layout.tiles = a_layout.tiles.clone();
            }
            (
                ArrayShape::new(PrimitiveType::F32, &a_dims).with_layout(a_layout),
                ArrayShape::new(PrimitiveType::F32, &b_dims).with_layout(b_layout),
            )
        })
        .prop_filter("valid layouts", |(a, b)| {
            PhysicalLayout::new(a).is_ok() && PhysicalLayout::new(b).is_ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn reshape_verdict_matches_brute_force((from, to) in reshape_pair()) {
        let from_memory = PhysicalLayout::new(&from).unwrap();
        let to_memory = PhysicalLayout::new(&to).unwrap();
        let truth = from_memory.bytes() == to_memory.bytes()
            && brute_force(&from_memory, &to_memory, Correspondence::Reshape);
        let verdict = symbolic_verdict(&from_memory, &to_memory, Correspondence::Reshape);
        match verdict {
            SymbolicVerdict::Bitcast => prop_assert!(truth, "{} -> {} is not a bitcast", from, to),
            SymbolicVerdict::Copy => prop_assert!(!truth, "{} -> {} is a bitcast", from, to),
            SymbolicVerdict::Undecided => {}
        }
        prop_assert_eq!(is_bitcast(&from, &to, Correspondence::Reshape).unwrap(), truth);
    }

    #[test]
    fn transpose_verdict_matches_brute_force(
        dims in prop::collection::vec(1i64..7, 1..4),
        seed in any::<u64>(),
        layouts in (0usize..1).prop_flat_map(|_| (layout_strategy(3), layout_strategy(3))),
    ) {
        let rank = dims.len();
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        let mut state = seed;
        for i in (1..rank).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (state >> 33) as usize % (i + 1));
        }
        let restrict = |layout: &Layout| Layout {
            minor_to_major: layout.minor_to_major.iter().copied().filter(|&d| (d as usize) < rank).collect(),
            tiles: layout.tiles.clone(),
            ..Layout::default()
        };
        let from = ArrayShape::new(PrimitiveType::Bf16, &dims).with_layout(restrict(&layouts.0));
        let to_dims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
        // Half the time the result layout is the operand's, permuted: a bitcast by design.
        let to_layout = if seed % 2 == 0 {
            let inverse: Vec<i64> = (0..rank as i64).map(|d| perm.iter().position(|&p| p == d).unwrap() as i64).collect();
            Layout { minor_to_major: from.layout.as_ref().unwrap().minor_to_major.iter().map(|&d| inverse[d as usize]).collect(), ..restrict(&layouts.0) }
        } else {
            restrict(&layouts.1)
        };
        let to = ArrayShape::new(PrimitiveType::Bf16, &to_dims).with_layout(to_layout);
        let (Ok(from_memory), Ok(to_memory)) = (PhysicalLayout::new(&from), PhysicalLayout::new(&to)) else {
            return Ok(());
        };
        let how = Correspondence::Transpose(&perm);
        let truth = from_memory.bytes() == to_memory.bytes() && brute_force(&from_memory, &to_memory, how);
        match symbolic_verdict(&from_memory, &to_memory, how) {
            SymbolicVerdict::Bitcast => prop_assert!(truth, "{} -> {} is not a bitcast", from, to),
            SymbolicVerdict::Copy => prop_assert!(!truth, "{} -> {} is a bitcast", from, to),
            SymbolicVerdict::Undecided => {}
        }
        if seed % 2 == 0 {
            prop_assert!(truth, "a transpose with the permuted layout must be a bitcast: {} -> {}", from, to);
        }
    }
}

/// Guards against a generator that stops producing interesting cases.
#[test]
fn generator_produces_bitcasts_and_decides_most() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2000));
    let mut total = 0;
    let mut bitcasts = 0;
    let mut decided = 0;
    let strategy = reshape_pair();
    for _ in 0..2000 {
        let (from, to) = strategy.new_tree(&mut runner).unwrap().current();
        let (a, b) = (
            PhysicalLayout::new(&from).unwrap(),
            PhysicalLayout::new(&to).unwrap(),
        );
        total += 1;
        if a.bytes() == b.bytes() && brute_force(&a, &b, Correspondence::Reshape) {
            bitcasts += 1;
        }
        if symbolic_verdict(&a, &b, Correspondence::Reshape) != SymbolicVerdict::Undecided {
            decided += 1;
        }
    }
    assert!(
        bitcasts * 20 >= total,
        "only {bitcasts} of {total} pairs are bitcasts"
    );
    assert!(
        decided * 10 >= total * 9,
        "only {decided} of {total} decided symbolically"
    );
}

/// XLA's `ReshapeIsBitcast` and `TransposeIsBitcast`, exact under tiles: the issue's
/// element-moving reshape of equal byte count is no bitcast, dynamic dims never are, and a
/// permutation that is not one is refused rather than a panic.
#[test]
fn reshape_and_transpose_is_bitcast_are_exact_under_tiles() {
    use hlo_layout::ir::bitcast::{reshape_is_bitcast, transpose_is_bitcast};
    let shape = |text: &str| hlo_layout::parse_array_shape(text).unwrap();
    let one_tile = shape("f32[8,128]{1,0:T(8,128)}");
    assert!(reshape_is_bitcast(
        &one_tile,
        &shape("f32[1024]{0:T(1024)}")
    ));
    assert!(reshape_is_bitcast(
        &one_tile,
        &shape("f32[1,8,128]{2,1,0:T(8,128)}")
    ));
    assert!(!reshape_is_bitcast(
        &shape("f32[16,256]{1,0:T(8,128)}"),
        &shape("f32[4096]{0:T(1024)}")
    ));
    assert!(!reshape_is_bitcast(
        &shape("f32[<=8,128]{1,0:T(8,128)}"),
        &shape("f32[1024]{0:T(1024)}")
    ));
    let transposed = shape("f32[128,8]{0,1:T(8,128)}");
    assert!(transpose_is_bitcast(&one_tile, &transposed, &[1, 0]));
    assert!(!transpose_is_bitcast(
        &one_tile,
        &shape("f32[128,8]{1,0:T(8,128)}"),
        &[1, 0]
    ));
    assert!(!transpose_is_bitcast(&one_tile, &transposed, &[1, 1]));
    assert!(!transpose_is_bitcast(&one_tile, &transposed, &[1, 5]));
}
