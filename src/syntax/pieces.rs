//! A module's text read from any [`std::io::Read`] in pieces of whole computations, for
//! [`crate::parse_module_in_pieces`]: a file the command reads, or text a pass kept
//! compressed. Only one piece, and what is read past it to find its end, is held at a time.

use std::io::Read;

/// How much is read at a time while looking for the end of a piece.
const READ_BYTES: usize = 1 << 20;

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
/// past it (a guess, which [`crate::parse_module_in_pieces`] checks), or at the end of the
/// text. Together, in order, they are the reader's text.
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

    /// Reads up to [`READ_BYTES`] more onto `buffer`; how many it read.
    fn read_more(&mut self) -> std::io::Result<usize> {
        let room = self.piece_bytes.saturating_add(2 * READ_BYTES);
        if self.buffer.capacity() < room {
            // Room for a piece and the reads that find its end, so that it is not copied
            // as it grows; taken when reading, not while the last piece is still held.
            self.buffer.reserve_exact(room - self.buffer.len());
        }
        let start = self.buffer.len();
        self.buffer.resize(start + READ_BYTES, 0);
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

    fn module_text() -> String {
        let mut text = String::from("HloModule m\n\n");
        for i in 0..30 {
            text.push_str(&format!(
                "%g{i} (p: f32[]) -> f32[] {{\n  ROOT %p = f32[] parameter(0)\n}}\n\n"
            ));
        }
        text.push_str("ENTRY %e {\n");
        for i in 0..40 {
            text.push_str(&format!("  %x{i} = f32[] parameter({i})\n"));
        }
        text.push_str("  ROOT %t = f32[] copy(%x0)\n}\n\n");
        text
    }

    #[test]
    fn pieces_end_where_computations_do_however_the_reader_gives_bytes() {
        let text = module_text();
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
    fn bytes_that_are_not_utf8_are_refused_with_their_offset() {
        let mut bytes = module_text().into_bytes();
        let bad = bytes.len() - 30;
        bytes[bad] = 0xff;
        let refused = TextPieces::new(&bytes[..], 200).find_map(Result::err);
        assert!(matches!(refused, Some(PieceError::NotUtf8 { offset }) if offset == bad));
    }
}
