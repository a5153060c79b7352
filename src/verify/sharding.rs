//! `sharding={...}` in its classic forms, read as jaxlib 0.10.2's parser reads them:
//! `{replicated}`, `{manual}`, `{unknown}`, `{unreduced}`, `{maximal device=3}`,
//! `{devices=[2,4]0,1,...}` or `{devices=[2,4]<=[8]}` / `<=[2,4]T(1,0)`, with
//! `last_tile_dim_replicate` or `last_tile_dims={manual, replicated}`, `shard_as N`,
//! `shard_like N` and `metadata=` after it, and tuples of these `{{...}, {...}}`.
//!
//! XLA's reader is lenient about meaning (a device list shorter than the tile is padded, a
//! tuple may list more entries than the shape has leaves), so only what it refuses is an
//! error here: words it does not know, a `maximal` without its device, devices given to a
//! replicated, manual, unknown or unreduced sharding, a tile without devices or with a single
//! device listed, an iota transpose that is not one index per reshape dim, and commas out
//! of place. Named shardings (`{mesh[...], ...}`, `{maximal_mesh[...]}`) are left alone.

use super::pieces::{closing, pieces, Kind, Piece};

/// Subgroup kinds `last_tile_dims={...}` takes.
const SUBGROUP_KINDS: &[&str] = &["manual", "replicated", "unreduced", "maximal"];

/// Checks a `sharding` value; each message says what XLA would not read.
pub fn check(text: &str) -> Result<(), String> {
    let pieces = pieces(text)?;
    let last = pieces.len().checked_sub(1);
    if pieces.first().map(|p| p.kind) != Some(Kind::Open('{')) || closing(&pieces, 0) != last {
        return Err("expects '{' and '}' around the sharding".into());
    }
    let inner = &pieces[1..pieces.len() - 1];
    match inner.first().map(|p| p.kind) {
        // `{}`: an empty tuple.
        None => Ok(()),
        // `{{...}, {...}}`: a tuple, each entry a sharding of its own.
        Some(Kind::Open('{')) => {
            let mut at = 0;
            loop {
                let close = closing(inner, at).ok_or("an entry of the tuple is not closed")?;
                single(text, &inner[at + 1..close])?;
                match inner.get(close + 1).map(|p| p.kind) {
                    None => return Ok(()),
                    Some(Kind::Comma)
                        if inner.get(close + 2).map(|p| p.kind) == Some(Kind::Open('{')) =>
                    {
                        at = close + 2
                    }
                    _ => return Err("expects `{...}` entries separated by commas".into()),
                }
            }
        }
        Some(_) => single(text, inner),
    }
}

/// What one sharding's words set, as XLA's reader keeps them.
#[derive(Default)]
struct Single {
    replicated: bool,
    maximal: bool,
    /// `manual`, `unknown` or `unreduced`, the first one written.
    other_kind: Option<&'static str>,
    /// How many devices `device=N` (one) or an explicit `devices=[..]a,b,..` list gave; the
    /// last one written counts.
    listed: Option<usize>,
    /// `devices=[..]<=[..]`: an iota, which XLA keeps apart from the listed devices.
    iota: bool,
}

/// Checks the pieces between one sharding's braces.
fn single(text: &str, pieces: &[Piece<'_>]) -> Result<(), String> {
    if let Some(Kind::Word("mesh" | "maximal_mesh")) = pieces.first().map(|p| p.kind) {
        return Ok(());
    }
    let kind = |at: usize| pieces.get(at).map(|p| p.kind);
    let mut read = Single::default();
    let mut at = 0;
    while at < pieces.len() {
        let Kind::Word(word) = pieces[at].kind else {
            return Err(format!(
                "unexpected `{}` in the sharding",
                &text[pieces[at].start..pieces[at].end]
            ));
        };
        at += 1;
        match word {
            "replicated" => read.replicated = true,
            "manual" | "unknown" | "unreduced" => {
                read.other_kind = read.other_kind.or(Some(match word {
                    "manual" => "manual",
                    "unknown" => "unknown",
                    _ => "unreduced",
                }))
            }
            "maximal" => read.maximal = true,
            "last_tile_dim_replicate" => {}
            "device" => {
                if kind(at) != Some(Kind::Equal) || !matches!(kind(at + 1), Some(Kind::Int(_))) {
                    return Err("device= attribute must be an integer".into());
                }
                read.listed = Some(1);
                at += 2;
            }
            "shard_as" | "shard_like" => {
                if !matches!(kind(at), Some(Kind::Int(Some(_)))) {
                    return Err(format!("{word} expects an integer group id"));
                }
                at += 1;
            }
            "devices" => {
                if kind(at) != Some(Kind::Equal) {
                    return Err("expects `devices=[...]`".into());
                }
                let (dims, next) = int_list(pieces, at + 1, '[', ']')
                    .ok_or("expected '[' to start sharding devices shape")?;
                if dims == 0 {
                    return Err("the sharding's tile shape `devices=[...]` is empty".into());
                }
                at = next;
                if kind(at) == Some(Kind::LessEqual) {
                    let (rank, next) = int_list(pieces, at + 1, '[', ']')
                        .ok_or("expected '[' to start the iota's reshape dims after `<=`")?;
                    at = next;
                    if rank == 0 {
                        return Err("the iota's reshape dims `<=[...]` are empty".into());
                    }
                    if kind(at) == Some(Kind::Word("T")) {
                        let (_, next) = int_list(pieces, at + 1, '(', ')')
                            .ok_or("expected '(' after `T` in the iota")?;
                        // The pieces between `T(` and `)`.
                        transpose(&pieces[at + 2..next - 1], rank)?;
                        at = next;
                    }
                    read.iota = true;
                } else {
                    let mut count = 0;
                    while let Some(Kind::Int(Some(_))) = kind(at) {
                        count += 1;
                        at += 1;
                        if kind(at) != Some(Kind::Comma) {
                            break;
                        }
                        at += 1;
                        if !matches!(kind(at), Some(Kind::Int(Some(_)))) {
                            return Err("expects a device id after each comma".into());
                        }
                    }
                    if count == 0 {
                        return Err(
                            "expects device ids or an iota `<=[...]` after `devices=[...]`".into(),
                        );
                    }
                    read.listed = Some(count);
                }
            }
            "last_tile_dims" => {
                if kind(at) != Some(Kind::Equal) || kind(at + 1) != Some(Kind::Open('{')) {
                    return Err("expects `last_tile_dims={...}`".into());
                }
                let close = closing(pieces, at + 1).ok_or("last_tile_dims is not closed")?;
                let mut seen = Vec::new();
                for (i, piece) in pieces[at + 2..close].iter().enumerate() {
                    match (i % 2, piece.kind) {
                        (0, Kind::Word(subgroup)) if SUBGROUP_KINDS.contains(&subgroup) => {
                            // jaxlib runs out of memory on a kind given twice.
                            if seen.contains(&subgroup) {
                                return Err(format!("last_tile_dims lists {subgroup} twice"));
                            }
                            seen.push(subgroup);
                        }
                        (1, Kind::Comma) if at + 2 + i + 1 < close => {}
                        _ => {
                            return Err(format!(
                                "last_tile_dims takes {} separated by commas",
                                SUBGROUP_KINDS.join(", ")
                            ))
                        }
                    }
                }
                at = close + 1;
            }
            "metadata" => {
                if kind(at) != Some(Kind::Equal) || kind(at + 1) != Some(Kind::Open('{')) {
                    return Err("expects `metadata={...}`".into());
                }
                let close = closing(pieces, at + 1).ok_or("metadata is not closed")?;
                metadata(text, &pieces[at + 1..=close])?;
                at = close + 1;
            }
            other => return Err(format!("unknown word `{other}` in the sharding")),
        }
    }
    // XLA decides in this order: replicated, maximal, the other kinds, then a tile.
    let no_devices = |kind: &str| format!("{kind} shardings should not have any devices assigned");
    if read.replicated {
        return match read.listed {
            Some(_) => Err(no_devices("replicated")),
            None => Ok(()),
        };
    }
    if read.maximal {
        return match read.listed {
            Some(1) => Ok(()),
            _ => Err(
                "maximal shardings should have exactly one device assigned: \
                      `{maximal device=N}`"
                    .into(),
            ),
        };
    }
    if let Some(kind) = read.other_kind {
        return match read.listed {
            Some(_) => Err(no_devices(kind)),
            None => Ok(()),
        };
    }
    match (read.iota, read.listed) {
        (true, None) => Ok(()),
        // jaxlib crashes on an iota with listed devices.
        (true, Some(_)) => Err("an iota tile `<=[...]` takes no other devices".into()),
        (false, Some(count)) if count > 1 => Ok(()),
        (false, Some(_)) => {
            Err("non-maximal shardings must have more than one device assigned".into())
        }
        (false, None) => {
            Err("non-maximal shardings must have a tile assignment `devices=[...]`".into())
        }
    }
}

/// Checks `{key=value ...}` or `{{key=value ...}, {...}}` (`pieces` from the opening brace to
/// the closing one): known keys, each once, each with a value of its type.
fn metadata(text: &str, pieces: &[Piece<'_>]) -> Result<(), String> {
    let inner = &pieces[1..pieces.len() - 1];
    if inner.first().map(|p| p.kind) != Some(Kind::Open('{')) {
        return metadata_entry(text, pieces);
    }
    let mut at = 0;
    loop {
        let close = closing(inner, at).ok_or("a metadata entry is not closed")?;
        metadata_entry(text, &inner[at..=close])?;
        match (inner.get(close + 1), inner.get(close + 2)) {
            (None, _) => return Ok(()),
            (Some(comma), Some(open))
                if comma.kind == Kind::Comma && open.kind == Kind::Open('{') =>
            {
                at = close + 2
            }
            _ => return Err("expects `{...}` metadata entries separated by commas".into()),
        }
    }
}

/// One `{key=value ...}` entry, keys separated by spaces or commas.
fn metadata_entry(text: &str, pieces: &[Piece<'_>]) -> Result<(), String> {
    let mut errors = Vec::new();
    super::enums::metadata_keys(
        &text[pieces[0].start..pieces[pieces.len() - 1].end],
        &mut errors,
    );
    if let Some(error) = errors.into_iter().next() {
        return Err(error);
    }
    let inner = &pieces[1..pieces.len() - 1];
    let mut at = 0;
    while at < inner.len() {
        let (Kind::Word(key), Some(Kind::Equal)) =
            (inner[at].kind, inner.get(at + 1).map(|p| p.kind))
        else {
            return Err("metadata holds `key=value` fields".into());
        };
        at += 2;
        let value = inner.get(at).map(|p| p.kind);
        let fits = match key {
            "source_line" | "source_end_line" | "source_column" | "source_end_column"
            | "stack_frame_id" => matches!(value, Some(Kind::Int(Some(_)))),
            "profile_type" => value == Some(Kind::Open('{')),
            _ => value == Some(Kind::Str),
        };
        if !fits {
            return Err(format!("metadata {key} has a value of the wrong kind"));
        }
        at = match value {
            Some(Kind::Open(_)) => closing(inner, at).ok_or("metadata is not closed")? + 1,
            _ => at + 1,
        };
        if inner.get(at).map(|p| p.kind) == Some(Kind::Comma) {
            at += 1;
        }
    }
    Ok(())
}

/// Reads `open int (, int)* close` at `pieces[at]`: how many integers and where it ends.
fn int_list(pieces: &[Piece<'_>], at: usize, open: char, close: char) -> Option<(usize, usize)> {
    if pieces.get(at)?.kind != Kind::Open(open) {
        return None;
    }
    let end = closing(pieces, at)?;
    if pieces[end].kind != Kind::Close(close) {
        return None;
    }
    let items = &pieces[at + 1..end];
    let well_formed = items.iter().enumerate().all(|(i, piece)| match i % 2 {
        0 => matches!(piece.kind, Kind::Int(Some(_))),
        _ => piece.kind == Kind::Comma && i + 1 < items.len(),
    });
    well_formed.then_some((items.len().div_ceil(2), end + 1))
}

/// XLA takes `T(...)` only on an iota of two or more reshape dims, one index per dim, each
/// below the rank (repeats are read).
fn transpose(items: &[Piece<'_>], rank: usize) -> Result<(), String> {
    let indices: Vec<Option<i64>> = items
        .iter()
        .filter_map(|p| match p.kind {
            Kind::Int(value) => Some(value),
            _ => None,
        })
        .collect();
    if rank < 2 || indices.len() != rank {
        return Err(format!(
            "the iota's transpose T(...) needs one index per reshape dim ({rank}), and two or \
             more dims"
        ));
    }
    if !indices
        .iter()
        .all(|value| value.is_some_and(|v| (0..rank as i64).contains(&v)))
    {
        return Err(format!(
            "the iota's transpose T(...) takes indices 0 to {}",
            rank - 1
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    /// Each case was read by jaxlib 0.10.2's parser on an `f32[8,8]` parameter (`true`
    /// where it accepts the value).
    #[test]
    fn shardings_as_xla_reads_them() {
        let cases: &[(&str, bool)] = &[
            ("{replicated}", true),
            ("{manual}", true),
            ("{unknown}", true),
            ("{unreduced}", true),
            ("{ replicated }", true),
            ("{}", true),
            ("{maximal device=3}", true),
            ("{maximal device=3 device=4}", true),
            ("{maximal device=-1}", true),
            ("{maximal device=3 shard_like 1}", true),
            ("{maximal device=3 metadata={op_name=\"x\"}}", true),
            ("{replicated manual}", true),
            ("{replicated replicated}", true),
            ("{manual unknown}", true),
            ("{replicated last_tile_dim_replicate}", true),
            ("{manual shard_as 2}", true),
            ("{unknown shard_like 3}", true),
            ("{replicated shard_as -1}", true),
            ("{replicated shard_as 1 shard_like 2}", true),
            (
                "{replicated metadata={{op_name=\"a\"}, {op_name=\"b\"}}}",
                true,
            ),
            (
                "{replicated metadata={op_name=\"a\"} metadata={op_name=\"b\"}}",
                true,
            ),
            ("{replicated metadata={}}", true),
            ("{devices=[2,4]0,1,2,3,4,5,6,7}", true),
            ("{devices=[2,4]0,1,2,3,4,5,6}", true),
            ("{devices=[2,4]0,1,2,3,4,5,6,7,8}", true),
            ("{devices=[2,4]0,1,2,3,4,5,6,9}", true),
            ("{devices=[2]-1,1}", true),
            ("{devices=[2] 0,1}", true),
            ("{devices=[2, 4]0, 1, 2, 3, 4, 5, 6, 7}", true),
            ("{devices=[8]0,1,2,3,4,5,6,7}", true),
            ("{devices=[2,4]0,1,2,3,4,5,6,7 shard_like 1}", true),
            ("{devices=[2]0,1 metadata={op_name=\"a\"}}", true),
            ("{devices=[2,2,2]<=[8] last_tile_dim_replicate}", true),
            ("{devices=[8,1]<=[2,4]T(1,0)}", true),
            ("{devices=[8,1]<=[2,4]T(1,1)}", true),
            ("{devices=[2,4]<=[2,4]T(0,0)}", true),
            ("{devices=[8,1]<=[3,4]T(1,0)}", true),
            ("{devices=[8,1]<=[9]}", true),
            ("{devices=[0,4]<=[0]}", true),
            ("{devices=[2,-4]<=[8]}", true),
            ("{devices=[2]<=[2]}", true),
            ("{devices=[2]<=[1,2]T(1,0)}", true),
            ("{devices=[2,4] <=[8]}", true),
            ("{devices=[2,4]<=[2,4] T(1,0)}", true),
            ("{devices=[2,4]<=[2,4]T(1, 0)}", true),
            ("{devices=[2,2,2]<=[8] last_tile_dims={maximal}}", true),
            ("{devices=[2,2,2]<=[8] last_tile_dims={}}", true),
            (
                "{devices=[2,2,2,2]<=[2,2,4]T(2,1,0) last_tile_dims={manual, replicated}}",
                true,
            ),
            ("{devices=[4]<=[4] last_tile_dims={replicated}}", true),
            ("{{replicated}, {maximal device=0}}", true),
            ("{{replicated}, /*index=1*/{manual}}", true),
            ("{{replicated}, {mesh['a'=2,'b'=4], replicated}}", true),
            ("{mesh['a'=2,'b'=4], [{'a'}, {'b'}, {}]}", true),
            ("{maximal_mesh[device_id=5]}", true),
            ("{bogus}", false),
            ("{maximal}", false),
            ("{replicated device=3}", false),
            ("{manual device=3}", false),
            ("{unknown devices=[2]0,1}", false),
            ("{unreduced device=1}", false),
            ("{maximal devices=[2]0,1}", false),
            ("{maximal devices=[2]<=[2] device=3}", true),
            ("{maximal device=1 replicated}", false),
            ("{maximal replicated}", true),
            ("{maximal device=0 manual}", true),
            ("{unreduced maximal device=1}", true),
            ("{maximal device=0 devices=[2]<=[2]}", true),
            ("{devices=[2]0,1 device=3 maximal}", true),
            ("{maximal devices=[1]0}", true),
            ("{maximal device=0 device=1}", true),
            ("{manual devices=[2]<=[2]}", true),
            ("{devices=[2,2,2]<=[8] unreduced}", true),
            ("{devices=[8,1]<=[2,4]T(1,0) replicated}", true),
            ("{devices=[1]<=[1]}", true),
            ("{replicated metadata={op_name=\"a\" op_type=\"b\"}}", true),
            ("{replicated metadata={op_name=\"a\", op_type=\"b\"}}", true),
            ("{replicated metadata={profile_type={1}}}", true),
            ("{maximal manual}", false),
            ("{maximal unknown}", false),
            ("{replicated devices=[2]0,1}", false),
            ("{manual devices=[2]0,1}", false),
            ("{unknown device=1}", false),
            ("{devices=[2]<=[2] device=3}", false),
            ("{devices=[2]<=[2] devices=[2]0,1}", false),
            ("{devices=[2,1]devices=[2]0,1}", false),
            ("{maximal device=3 metadata={\"x\"}}", false),
            (
                "{replicated metadata={{op_name=\"a\"} {op_name=\"b\"}}}",
                false,
            ),
            ("{replicated metadata={source_line=3 T}}", false),
            ("{replicated metadata={op_name=a}}", false),
            ("{replicated metadata={source_line=\"3\"}}", false),
            ("{devices=[2]0,1 maximal}", false),
            ("{devices=[2]0,1 manual}", false),
            ("{devices=[2]0,1 device=3}", false),
            ("{device=3}", false),
            ("{maximal device=3 device=}", false),
            ("{devices=[1,1]0}", false),
            ("{devices=[]<=[8]}", false),
            ("{devices=[2]0,1,}", false),
            ("{devices=[8,1]<=[2,4]T(1)}", false),
            ("{devices=[2,4]<=[8]T(0)}", false),
            ("{devices=[2,4]<=[2,4]T(0,2)}", false),
            ("{devices=[2,4]<=[2,4]T()}", false),
            ("{devices=[4]<=[2,2]T(1,0,2)}", false),
            ("{devices=[2]<=[2]T(0}", false),
            ("{devices=[2,2,2]<=[8] last_tile_dims={bogus}}", false),
            ("{devices=[2,1]<=[2] last_tile_dims={manual,}}", false),
            ("{devices=[4]<=[4] last_tile_dims={manual, manual}}", false),
            ("{devices=[4]<=[4] last_tile_dims=manual}", false),
            ("{devices=[4]<=[4] last_tile_dim_replicate=true}", false),
            ("{devices=[4]<=[4] shard_like=1}", false),
            ("{last_tile_dim_replicate}", false),
            ("{shard_as 1}", false),
            ("{replicated shard_as}", false),
            ("{replicated shard_as x}", false),
            ("{metadata={op_name=\"a\"}}", false),
            ("{replicated metadata={bogus=\"a\"}}", false),
            ("{replicated metadata={op_name=\"a\"}, }", false),
            ("{replicated, manual}", false),
            ("{maximal device=3, replicated}", false),
            ("{replicated,}", false),
            ("{,replicated}", false),
            ("{{replicated}, {bogus}}", false),
            ("{{replicated} {replicated}}", false),
            ("{{replicated}, }", false),
        ];
        for &(text, accepted) in cases {
            assert_eq!(check(text).is_ok(), accepted, "{text}: {:?}", check(text));
        }
    }
}
