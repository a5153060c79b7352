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

/// What one sharding's words set.
#[derive(Default)]
struct Single {
    /// `replicated`, `manual`, `unknown` or `unreduced`.
    kind: Option<&'static str>,
    maximal: bool,
    device: bool,
    /// `Some(n)` for an explicit list of n devices, `Some(None)` for an iota.
    devices: Option<Option<usize>>,
    subgroups: bool,
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
            "replicated" | "manual" | "unknown" | "unreduced" => {
                read.kind = read.kind.or(Some(match word {
                    "replicated" => "replicated",
                    "manual" => "manual",
                    "unknown" => "unknown",
                    _ => "unreduced",
                }))
            }
            "maximal" => read.maximal = true,
            "last_tile_dim_replicate" => read.subgroups = true,
            "device" => {
                if kind(at) != Some(Kind::Equal) || !matches!(kind(at + 1), Some(Kind::Int(_))) {
                    return Err("device= attribute must be an integer".into());
                }
                read.device = true;
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
                        let (perm, next) = int_list(pieces, at + 1, '(', ')')
                            .ok_or("expected '(' after `T` in the iota")?;
                        at = next;
                        transpose(pieces, next, perm, rank)?;
                    }
                    read.devices = Some(None);
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
                    read.devices = Some(Some(count));
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
                read.subgroups = true;
                at = close + 1;
            }
            "metadata" => {
                if kind(at) != Some(Kind::Equal) || kind(at + 1) != Some(Kind::Open('{')) {
                    return Err("expects `metadata={...}`".into());
                }
                let close = closing(pieces, at + 1).ok_or("metadata is not closed")?;
                let value = &text[pieces[at + 1].start..pieces[close].end];
                let mut errors = Vec::new();
                if kind(at + 2) == Some(Kind::Open('{')) {
                    let mut entry = at + 2;
                    while let Some(end) = closing(pieces, entry).filter(|&end| end < close) {
                        let entry_text = &text[pieces[entry].start..pieces[end].end];
                        super::enums::metadata_keys(entry_text, &mut errors);
                        entry = end + 2;
                    }
                } else {
                    super::enums::metadata_keys(value, &mut errors);
                }
                if let Some(error) = errors.into_iter().next() {
                    return Err(error);
                }
                at = close + 1;
            }
            other => return Err(format!("unknown word `{other}` in the sharding")),
        }
    }
    if let Some(kind) = read.kind {
        if read.maximal && kind == "replicated" {
            return Err("a sharding is not both maximal and replicated".into());
        }
        if !read.maximal && (read.device || read.devices.is_some()) {
            return Err(format!(
                "{kind} shardings should not have any devices assigned"
            ));
        }
    }
    if read.maximal {
        if read.devices.is_some() || !read.device {
            return Err(
                "maximal shardings should have exactly one device assigned: \
                        `{maximal device=N}`"
                    .into(),
            );
        }
        return Ok(());
    }
    if read.kind.is_none() {
        match read.devices {
            None => {
                return Err(
                    "non-maximal shardings must have a tile assignment `devices=[...]`".into(),
                )
            }
            Some(Some(count)) if count <= 1 => {
                return Err("non-maximal shardings must have more than one device assigned".into())
            }
            _ if read.device => {
                return Err("device= goes with `maximal` only, not with `devices=`".into())
            }
            _ => {}
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
fn transpose(pieces: &[Piece<'_>], end: usize, length: usize, rank: usize) -> Result<(), String> {
    if rank < 2 || length != rank {
        return Err(format!(
            "the iota's transpose T(...) needs one index per reshape dim ({rank}), and two or \
             more dims"
        ));
    }
    // The indices are the integers just before `end` (the piece after the `)`).
    let indices = pieces[..end - 1]
        .iter()
        .rev()
        .take(2 * length - 1)
        .filter_map(|p| match p.kind {
            Kind::Int(value) => Some(value),
            _ => None,
        });
    for value in indices {
        if !value.is_some_and(|v| (0..rank as i64).contains(&v)) {
            return Err(format!(
                "the iota's transpose T(...) takes indices 0 to {}",
                rank - 1
            ));
        }
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
            ("{maximal device=1 replicated}", false),
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
