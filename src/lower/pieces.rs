//! Lowering a module whose text arrives in pieces, each one or more whole computations, so
//! that no more than one piece of text is held at a time ([`lower_in_pieces`]). XLA's text
//! defines every computation above its callers, so once a piece is read its computations
//! are complete, calls resolved, and its text can go. A long piece is read on two threads
//! as a long text is: in halves cut between computations, or else with the rest of the
//! piece read ahead (`crate::lower::read_ahead`).
//!
//! A computation longer than a piece (a pre-optimization entry, say) comes in several, cut
//! before instruction lines. A piece that ends inside it is read with a `}` added, which
//! leaves it open; what was lowered of it is carried to the next piece, which is read after
//! its head line again, the head reopening it. Nothing carried borrows text: an operand
//! named below its user, a line that did not lower or a computation written in place before
//! the cut gives `None`, and calls are resolved at the cut.
//!
//! Invariant: whenever it gives a module, it is the module one pass over the whole text
//! gives, spans included (each piece's spans are moved by the piece's offset, less the
//! head line read again). Anything else (a syntax or lowering error, a piece that ends
//! neither where a computation does nor before an instruction line, a computation written
//! in place, a call to a computation below its caller, a lone instruction) gives `None`,
//! and the caller reads the text whole, which reports every error in order.

use super::module::pieces::Carried;
use super::module::{LoweredPreamble, ModuleLowering};
use crate::ir::module::Module;
use crate::syntax::ast;

/// Parses `piece` into `lowering` on two threads, cut at `cut` ([`tail_ahead_cut`]), the
/// rest of the piece read ahead (`crate::lower::read_ahead`), as `crate::parse_module`
/// parses a long text. `None` when it does not parse so; the lowering may then have heard
/// part of it ([`ModuleLowering::rewind`]).
fn parse_piece_with_rest_ahead<'s>(
    piece: &'s str,
    cut: usize,
    lowering: &mut ModuleLowering<'s>,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    let run_bytes = crate::lower::read_ahead::RUN_BYTES;
    crate::lower::read_ahead::parse_with_tail_ahead(piece, 0..piece.len(), cut, run_bytes, lowering)
}

/// Where `piece` is cut to read it on two threads with the rest read ahead: when it is long
/// enough and has an instruction line to cut at.
fn tail_ahead_cut(piece: &str) -> Option<usize> {
    let range = 0..piece.len();
    let min_bytes = crate::parallel::threshold(crate::parallel::PARSE_MIN_BYTES);
    let preamble = || crate::syntax::preamble_end(piece, 0..piece.len()).unwrap_or(0);
    let no_halves = |_| None;
    let cuts = crate::parallel::parse_cuts(piece, range.clone(), min_bytes, preamble, no_halves)?;
    crate::syntax::instruction_line_cut(piece, range, cuts.tail_ahead)
}

/// Parses a piece that goes on with a computation the last piece left open, or leaves one
/// open for the next, into `lowering`, which holds that computation: on two threads with
/// the rest read ahead when it can, else on one, never in halves lowered apart. `None` when
/// it does not parse; `lowering` has then heard part of it and cannot hear it again, and
/// the caller reads the text whole.
fn parse_piece_going_on<'s>(
    piece: &'s str,
    lowering: &mut ModuleLowering<'s>,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    if let Some(cut) = tail_ahead_cut(piece) {
        return parse_piece_with_rest_ahead(piece, cut, lowering);
    }
    let tree = crate::syntax::parse_module_into(piece, 0..piece.len(), lowering).ok()?;
    Some((tree, None))
}

/// Parses `piece` into `lowering` on two threads in two halves, cut between computations
/// near its middle, as `crate::parse_module` parses a long text: each half is lowered on its
/// own, and `lowering` takes both in order ([`ModuleLowering::absorb`]). `None` when it is
/// not parsed so (too short, no computation starts near the middle, a half that does not
/// parse alone); `lowering` is then untouched.
fn parse_piece_in_halves<'s>(
    piece: &'s str,
    lowering: &mut ModuleLowering<'s>,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    let range = 0..piece.len();
    let min_bytes = crate::parallel::threshold(crate::parallel::PARSE_MIN_BYTES);
    let preamble_end = crate::syntax::preamble_end(piece, range.clone());
    let near = |offset| crate::syntax::computation_start_near(piece, range.clone(), offset);
    let preamble = || preamble_end.unwrap_or(0);
    let cuts = crate::parallel::parse_cuts(piece, range.clone(), min_bytes, preamble, near)?;
    let cut = cuts.halves?;
    let preamble = preamble_end.filter(|&end| end < cut).map(|end| {
        let lower = |tree: ast::Module<'_>| LoweredPreamble::without_errors(&tree);
        (end, lower)
    });
    let new_lowering = || ModuleLowering::for_module(piece, range.clone());
    let ((tree, first), (_, second), preamble) =
        crate::syntax::in_two_halves(piece, range.clone(), cut, new_lowering, preamble)?;
    lowering.absorb(first);
    lowering.absorb(second);
    Some((tree, preamble))
}

/// The module of the text the pieces make up, in order, `text_bytes` long in all if that is
/// known; `None` when lowering it piece by piece cannot tell it is the module one pass over
/// the whole text gives (see the module's doc), or when `pieces` gives an error, which is
/// returned as well.
pub(crate) fn lower_in_pieces<E>(
    pieces: impl IntoIterator<Item = Result<String, E>>,
    text_bytes: Option<usize>,
) -> Result<Option<Module>, E> {
    let mut carried = Carried::default();
    let mut computations = Vec::new();
    let mut preamble = None;
    let mut offset = 0usize;
    let mut pieces = pieces.into_iter();
    loop {
        if offset > 0 {
            // What lowering the last piece freed (its text, its second thread's leftovers)
            // goes back before the next is read: left to the allocator, much of it was still
            // held when the entry computation, the largest piece, was lowered.
            crate::memory::release_freed_memory();
        }
        let Some(piece) = pieces.next() else {
            break;
        };
        let mut piece = piece?;
        if piece.is_empty() {
            continue;
        }
        let first = preamble.is_none();
        let reopened_head_bytes = carried.open_head_line().map(str::len);
        if !first && reopened_head_bytes.is_none() && crate::syntax::holds_no_token(&piece) {
            // Blank lines and comments after the last computation, which a parse of them
            // alone refuses.
            offset = offset.saturating_add(piece.len());
            continue;
        }
        let taken = u32::try_from(computations.len()).ok();
        let (Some(taken), false) = (taken, first && headerless(&piece)) else {
            return Ok(None);
        };
        let piece_text_bytes = piece.len();
        // A computation longer than a piece comes in several: a piece that goes on with it
        // is read after its head line again, and one that leaves it open before a `}`
        // that does not close it, so that each reads as whole computations.
        if let Some(head_line) = carried.open_head_line() {
            piece.insert_str(0, head_line);
        }
        let leaves_open = crate::syntax::ends_inside_a_body(&piece);
        if leaves_open {
            piece.push_str("}\n");
        }
        // Spans in the piece as read move by this to be spans in the whole text.
        let Some(shift) = offset.checked_sub(reopened_head_bytes.unwrap_or(0)) else {
            return Ok(None);
        };
        let async_chains = carried.async_chains();
        let mut lowering = ModuleLowering::resume(&piece, std::mem::take(&mut carried), taken);
        let parsed = if reopened_head_bytes.is_some() || leaves_open {
            if leaves_open {
                // Where the `}` added ends, just before its line break.
                let text_after = text_bytes.map_or(0, |all| {
                    all.saturating_sub(offset.saturating_add(piece_text_bytes))
                });
                lowering.hold_open_at(piece.len() - 1, text_after);
            }
            parse_piece_going_on(&piece, &mut lowering)
        } else {
            let on_two_threads = parse_piece_in_halves(&piece, &mut lowering).or_else(|| {
                let cut = tail_ahead_cut(&piece)?;
                parse_piece_with_rest_ahead(&piece, cut, &mut lowering)
            });
            match on_two_threads {
                Some(parsed) => Some(parsed),
                None => {
                    // Read on one thread, as a whole text that cannot be cut is.
                    let carried = lowering.rewind(taken, async_chains);
                    lowering = ModuleLowering::resume(&piece, carried, taken);
                    let tree =
                        crate::syntax::parse_module_into(&piece, 0..piece.len(), &mut lowering);
                    tree.ok().map(|tree| (tree, None))
                }
            }
        };
        let Some((tree, lowered_preamble)) = parsed else {
            return Ok(None);
        };
        let (Some(mut closed), None) = (lowering.take_piece(shift), &tree.instruction) else {
            return Ok(None);
        };
        computations.append(&mut closed);
        if first {
            preamble = Some(lowered_preamble.unwrap_or_else(|| LoweredPreamble::new(&tree)));
        } else if tree.header.is_some() || !tree.tables.is_empty() {
            return Ok(None);
        }
        match lowering.suspend(shift) {
            Some(next) => carried = next,
            None => return Ok(None),
        }
        offset = offset.saturating_add(piece_text_bytes);
    }
    let Some(preamble) = preamble else {
        return Ok(None);
    };
    Ok(ModuleLowering::finish_pieces(
        carried,
        computations,
        preamble,
    ))
}

/// Text XLA reads as one instruction, which [`crate::parse_module`] refuses at once.
fn headerless(piece: &str) -> bool {
    crate::syntax::headerless_signature(piece, 0..piece.len()).is_some()
}
