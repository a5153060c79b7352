//! A module's text read from any [`std::io::Read`] in pieces of whole computations (or
//! runs of the lines of one longer than a piece), for
//! [`crate::parse_module_in_pieces`]: a file the command reads, or text a pass kept
//! compressed. Only one piece, and what is read past it to find its end, is held at a time.

use std::io::Read;

/// How much is read at a time while looking for the end of a piece, at most: no more than
/// a piece, so that a piece is at most about two pieces long, however small pieces are.
const READ_BYTES: usize = 1 << 20;

/// How much is read at a time, at least.
const MIN_READ_BYTES: usize = 4 << 10;

/// Why a piece could not be given.
#[derive(Debug, thiserror::Error)]
pub enum PieceError {
    /// Reading failed.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The bytes are not UTF-8, from this offset in the whole text.
    #[error("the text is not UTF-8 at byte offset {offset}")]
    NotUtf8 {
        /// Where the first byte that is not UTF-8 lies in the whole text.
        offset: usize,
    },
}

/// The text of a reader in pieces of whole computations: each ends just after the last line
/// holding only `}` within `piece_bytes`, or, when a computation is longer, the first one
/// past it in what has been read, or else before the first instruction line past it, in
/// that computation's body (guesses, which [`crate::parse_module_in_pieces`] checks), or at
/// the end of the text. Together, in order, they are the reader's text.
pub struct TextPieces<R> {
    reader: R,
    piece_bytes: usize,
    /// Read and not yet given out.
    buffer: Vec<u8>,
    /// Where the search for the end of a piece in `buffer` goes on from.
    searched: usize,
    /// The offset in the text of `buffer`'s first byte.
    offset: usize,
    at_end: bool,
}

impl<R: Read> TextPieces<R> {
    /// Pieces of about `piece_bytes` of `reader`'s text.
    pub fn new(reader: R, piece_bytes: usize) -> TextPieces<R> {
        TextPieces {
            reader,
            piece_bytes,
            buffer: Vec::new(),
            searched: 0,
            offset: 0,
            at_end: false,
        }
    }

    /// Reads up to a piece's bytes, within [`MIN_READ_BYTES`] and [`READ_BYTES`], more onto
    /// `buffer`; how many it read.
    fn read_more(&mut self) -> std::io::Result<usize> {
        let read_bytes = self.piece_bytes.clamp(MIN_READ_BYTES, READ_BYTES);
        let room = self.piece_bytes.saturating_add(2 * read_bytes);
        if self.buffer.capacity() < room {
            // Room for a piece and the reads that find its end, so that it is not copied
            // as it grows; taken when reading, not while the last piece is still held.
            self.buffer.reserve_exact(room - self.buffer.len());
        }
        let start = self.buffer.len();
        self.buffer.resize(start + read_bytes, 0);
        let mut filled = start;
        let read = loop {
            match self.reader.read(&mut self.buffer[filled..]) {
                Ok(0) => break Ok(filled - start),
                Ok(read) if filled + read == self.buffer.len() => {
                    filled += read;
                    break Ok(filled - start);
                }
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => break Err(error),
            }
        };
        self.buffer.truncate(filled);
        read
    }

    /// Where the next piece ends in `buffer`, reading more until it is known.
    fn next_cut(&mut self) -> std::io::Result<Option<usize>> {
        let piece_bytes = self.piece_bytes;
        loop {
            if self.buffer.len() > piece_bytes {
                if self.searched == 0 {
                    // The last computation that ends within `piece_bytes`, so that a long
                    // computation after it (the entry) starts a piece of its own rather
                    // than lengthening this one, whose text is held while it is lowered.
                    let before = super::computation_end_before(&self.buffer, piece_bytes);
                    if let Some(cut) = before.filter(|&cut| cut > 0) {
                        return Ok(Some(cut));
                    }
                }
                let from = self.searched.max(piece_bytes);
                if let Some(cut) = super::computation_end_after(&self.buffer, from) {
                    return Ok(Some(cut));
                }
                // No computation ends in what is read: one longer than a piece (a
                // pre-optimization entry, say) is cut at an instruction line, so that its
                // text is never held whole.
                if let Some(cut) = super::instruction_line_start(&self.buffer, from) {
                    return Ok(Some(cut));
                }
                // A line `}` may start in the last bytes and end in what is read next.
                self.searched = self.buffer.len().saturating_sub(3);
            }
            if self.at_end {
                return Ok((!self.buffer.is_empty()).then_some(self.buffer.len()));
            }
            self.at_end = self.read_more()? == 0;
        }
    }
}

impl<R: Read> Iterator for TextPieces<R> {
    type Item = Result<String, PieceError>;

    fn next(&mut self) -> Option<Result<String, PieceError>> {
        let cut = match self.next_cut() {
            Ok(cut) => cut?,
            Err(error) => return Some(Err(PieceError::Read(error))),
        };
        // The rest starts the next piece; room for the whole of it is made when it is read
        // (`read_more`), once the caller is done with this one.
        let next = self.buffer.get(cut..).unwrap_or_default().to_vec();
        self.buffer.truncate(cut);
        let piece = std::mem::replace(&mut self.buffer, next);
        self.searched = 0;
        let offset = self.offset;
        self.offset += piece.len();
        Some(
            String::from_utf8(piece).map_err(|error| PieceError::NotUtf8 {
                offset: offset + error.utf8_error().valid_up_to(),
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives at most `step` bytes a call.
    struct Trickle<'t> {
        text: &'t [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(into.len()).min(self.text.len());
            into[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            Ok(n)
        }
    }

    fn module_text(entry_lines: usize) -> String {
        let mut text = String::from("HloModule m\n\n");
        for i in 0..30 {
            text.push_str(&format!(
                "%g{i} (p: f32[]) -> f32[] {{\n  ROOT %p = f32[] parameter(0)\n}}\n\n"
            ));
        }
        text.push_str("ENTRY %e {\n");
        for i in 0..entry_lines {
            text.push_str(&format!("  %x{i} = f32[] parameter({i})\n"));
        }
        text.push_str("  ROOT %t = f32[] copy(%x0)\n}\n\n");
        text
    }

    #[test]
    fn pieces_end_where_computations_do_however_the_reader_gives_bytes() {
        let text = module_text(40);
        for step in [1, 7, 64, usize::MAX] {
            let reader = Trickle {
                text: text.as_bytes(),
                step,
            };
            let pieces: Vec<String> = TextPieces::new(reader, 200)
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(pieces.concat(), text, "step {step}");
            assert!(pieces.len() > 5, "step {step}: {} pieces", pieces.len());
            // Each ends where a computation does; what follows the last one is a piece of
            // its own.
            for piece in &pieces[..pieces.len() - 1] {
                assert!(piece.ends_with("\n}\n"), "{piece:?}");
            }
            let modules = crate::parse_module_in_pieces(pieces.into_iter().map(Ok::<_, ()>));
            assert!(matches!(modules, Ok(Some(_))), "step {step}");
        }
    }

    #[test]
    fn a_computation_longer_than_a_piece_and_a_read_is_cut_at_instruction_lines() {
        let text = module_text(4000);
        let piece_bytes = 1000;
        let pieces: Vec<String> = TextPieces::new(text.as_bytes(), piece_bytes)
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pieces.concat(), text);
        // The entry's 120 KB come in pieces no longer than a piece and two reads, each but
        // its last ending before one of its instruction lines.
        let cut_inside = pieces.iter().filter(|p| !p.ends_with("\n}\n")).count();
        assert!(cut_inside > 20, "{cut_inside} of {} pieces", pieces.len());
        for pair in pieces.windows(2) {
            if !pair[0].ends_with("\n}\n") {
                assert!(pair[1].starts_with("  %x") || pair[1].starts_with("  ROOT"));
            }
        }
        let longest = pieces.iter().map(String::len).max().unwrap_or(0);
        assert!(longest <= piece_bytes + 2 * MIN_READ_BYTES, "{longest}");
        let whole = crate::parse_module(&text).unwrap_or_else(|e| panic!("{e:?}"));
        let piecewise = crate::parse_module_in_pieces(pieces.into_iter().map(Ok::<_, ()>));
        let Ok(Some(piecewise)) = piecewise else {
            panic!("not lowered in pieces");
        };
        let print = crate::print::print_ir_module;
        assert_eq!(print(&piecewise), print(&whole));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_with_their_offset() {
        let mut bytes = module_text(40).into_bytes();
        let bad = bytes.len() - 30;
        bytes[bad] = 0xff;
        let refused = TextPieces::new(&bytes[..], 200).find_map(Result::err);
        assert!(matches!(refused, Some(PieceError::NotUtf8 { offset }) if offset == bad));
    }
}
