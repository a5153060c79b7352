//! The input of layout assignment kept as its printed text, compressed, and its spans, so
//! that assignment can run twice on the same input (the descending rule for its cost, then
//! the chosen layouts) without holding a copy of the module beside the one it assigns. The
//! text is compressed as it is printed, a block at a time (to about a fifth of its size),
//! and read back in pieces of whole computations ([`crate::parse_module_in_pieces`]), so
//! neither the printed text nor a second module is ever held whole.
//!
//! The text is what `fmt` prints, which reads back as the same module (the corpus tests
//! check both ways give the same assignment); the spans are put back from the module the
//! snapshot was taken of, so that errors still point into the user's text.

use std::io::Read;

use super::options::AssignError;
use crate::ir::module::{Computation, ComputationId, Module};
use crate::span::Span;
use crate::syntax::pieces::TextPieces;

/// How much text a piece read back holds, about: as a command reads a large file.
const PIECE_BYTES: usize = 8 << 20;

/// A module as its printed text in compressed blocks, with the spans of its computations
/// and of their instructions in print order.
pub(super) struct Snapshot {
    blocks: Vec<Vec<u8>>,
    /// Each computation's span, then its instructions', packed.
    spans: PackedSpans,
    /// How many instructions each computation has.
    sizes: Vec<usize>,
}

impl Snapshot {
    pub(super) fn take(module: &Module) -> Snapshot {
        let mut spans = PackedSpans::default();
        let mut sizes = Vec::with_capacity(module.computations().len());
        for computation in module.computations() {
            spans.push(computation.span);
            for &id in computation.order() {
                spans.push(computation.instruction(id).span);
            }
            sizes.push(computation.len());
        }
        let compress = |blocks: &mut Vec<Vec<u8>>, text: &str| {
            blocks.push(lz4_flex::block::compress_prepend_size(text.as_bytes()));
        };
        let (mut blocks, mut tail) = (Vec::new(), Vec::new());
        crate::print::print_ir_module_handing_out(
            module,
            &mut |text| compress(&mut blocks, text),
            &mut |text| compress(&mut tail, text),
        );
        blocks.append(&mut tail);
        Snapshot {
            blocks,
            spans,
            sizes,
        }
    }

    /// Replaces `module` with the module the snapshot was taken of, freeing it first so that
    /// the two are never held at once.
    pub(super) fn restore(&self, module: &mut Module) -> Result<(), AssignError> {
        self.restore_in_pieces_of(module, PIECE_BYTES)
    }

    /// [`Snapshot::restore`], reading the text back in pieces of about `piece_bytes`.
    fn restore_in_pieces_of(
        &self,
        module: &mut Module,
        piece_bytes: usize,
    ) -> Result<(), AssignError> {
        drop(take_module(module));
        let restore_error = |message: String| AssignError::Restore { message };
        let first_error = |errors: Vec<crate::Error>| {
            errors
                .first()
                .map_or_else(|| "no module".to_string(), ToString::to_string)
        };
        let pieces = TextPieces::new(self.reader(), piece_bytes);
        let read_back =
            crate::parse_module_in_pieces(pieces).map_err(|e| restore_error(e.to_string()))?;
        let mut restored = match read_back {
            Some(restored) => restored,
            // Text that pieces cannot tell of (a computation printed in place) is read
            // whole.
            None => {
                let mut text = String::new();
                self.reader()
                    .read_to_string(&mut text)
                    .map_err(|e| restore_error(e.to_string()))?;
                crate::parse_module(&text).map_err(|errors| restore_error(first_error(errors)))?
            }
        };
        if !self.fits(&restored) {
            return Err(restore_error(
                "it has other computations or instructions".to_string(),
            ));
        }
        let mut spans = self.spans.iter();
        for computation in restored.computations_mut() {
            computation.span = spans.next().unwrap_or_default();
            let order = computation.order().to_vec();
            for id in order {
                computation.instruction_mut(id).span = spans.next().unwrap_or_default();
            }
        }
        *module = restored;
        Ok(())
    }

    /// The printed text, decompressed a block at a time as it is read.
    fn reader(&self) -> Blocks<'_> {
        Blocks {
            blocks: &self.blocks,
            current: Vec::new(),
            read: 0,
        }
    }

    /// Whether `module` has the computations and instructions the spans were taken of.
    fn fits(&self, module: &Module) -> bool {
        module.computations().len() == self.sizes.len()
            && module
                .computations()
                .iter()
                .zip(&self.sizes)
                .all(|(computation, &size)| computation.len() == size)
    }
}

/// Spans in a few bytes each rather than sixteen: each is two variable-length numbers, how
/// far it starts from where the one before ended (zigzag-coded, as it may start before, and
/// wrapping, so that any two offsets give it) and its length. In print order most spans
/// follow the one before on the next line, a step of a few bytes.
#[derive(Default)]
struct PackedSpans {
    bytes: Vec<u8>,
    last_end: usize,
}

impl PackedSpans {
    fn push(&mut self, span: Span) {
        let step = span.start.wrapping_sub(self.last_end) as u64 as i64;
        self.put(((step << 1) ^ (step >> 63)) as u64);
        self.put(span.end.wrapping_sub(span.start) as u64);
        self.last_end = span.end;
    }

    /// Seven bits a byte, the low ones first; the top bit says another byte follows.
    fn put(&mut self, mut number: u64) {
        while number >= 0x80 {
            self.bytes.push(number as u8 | 0x80);
            number >>= 7;
        }
        self.bytes.push(number as u8);
    }

    fn iter(&self) -> UnpackedSpans<'_> {
        UnpackedSpans {
            bytes: &self.bytes,
            last_end: 0,
        }
    }
}

/// The spans of a [`PackedSpans`], in the order pushed.
struct UnpackedSpans<'p> {
    bytes: &'p [u8],
    last_end: usize,
}

impl UnpackedSpans<'_> {
    fn take(&mut self) -> Option<u64> {
        let mut number = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            number |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(number);
            }
        }
        None
    }
}

impl Iterator for UnpackedSpans<'_> {
    type Item = Span;

    fn next(&mut self) -> Option<Span> {
        let zigzag = self.take()?;
        let step = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
        let start = self.last_end.wrapping_add(step as u64 as usize);
        let end = start.wrapping_add(self.take()? as usize);
        self.last_end = end;
        Some(Span { start, end })
    }
}

/// Takes the module out of `module`, leaving an empty one in its place (one computation
/// without instructions, its entry), for a caller that frees it before making the next.
pub(super) fn take_module(module: &mut Module) -> Module {
    let placeholder = Module::new(
        module.name.clone(),
        vec![Computation::new("placeholder")],
        ComputationId(0),
    );
    std::mem::replace(module, placeholder)
}

/// A reader of compressed blocks' text.
struct Blocks<'b> {
    /// The blocks not yet decompressed.
    blocks: &'b [Vec<u8>],
    /// The block being read, and how much of it has been.
    current: Vec<u8>,
    read: usize,
}

impl Read for Blocks<'_> {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        while self.read == self.current.len() {
            let Some((block, rest)) = self.blocks.split_first() else {
                return Ok(0);
            };
            self.current =
                lz4_flex::block::decompress_size_prepended(block).map_err(std::io::Error::other)?;
            self.read = 0;
            self.blocks = rest;
        }
        let n = into.len().min(self.current.len() - self.read);
        into[..n].copy_from_slice(&self.current[self.read..self.read + n]);
        self.read += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_come_back_as_packed() {
        let spans = [
            Span { start: 10, end: 40 },
            Span { start: 41, end: 90 },
            Span::default(),
            Span { start: 5, end: 5 },
            Span {
                start: usize::MAX - 3,
                end: usize::MAX,
            },
            Span {
                start: 0,
                end: usize::MAX,
            },
            Span {
                start: 1 << 40,
                end: (1 << 40) + 200,
            },
        ];
        let mut packed = PackedSpans::default();
        for &span in &spans {
            packed.push(span);
        }
        assert!(packed.bytes.len() < spans.len() * 16);
        assert_eq!(packed.iter().collect::<Vec<_>>(), spans);
    }

    fn spans_of(module: &Module) -> Vec<Span> {
        let mut spans = Vec::new();
        for computation in module.computations() {
            spans.push(computation.span);
            spans.extend(
                computation
                    .order()
                    .iter()
                    .map(|&id| computation.instruction(id).span),
            );
        }
        spans
    }

    /// A module read back from its snapshot prints as it did and keeps its spans, whether
    /// its text comes back in one piece, in many, or whole (a computation written in place,
    /// which pieces cannot tell of).
    #[test]
    fn a_module_comes_back_as_it_was_in_one_piece_or_many() {
        let mut text = String::from("HloModule m\n\n");
        for i in 0..40 {
            text.push_str(&format!(
                "%g{i} (p: f32[4]) -> f32[4] {{\n  %p = f32[4]{{0}} parameter(0)\n  ROOT %n = f32[4]{{0}} negate(%p)\n}}\n\n"
            ));
        }
        text.push_str("ENTRY %e (x: f32[4]) -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n");
        let mut last = "x".to_string();
        for i in 0..40 {
            text.push_str(&format!(
                "  %c{i} = f32[4]{{0}} call(%{last}), to_apply=%g{i}\n"
            ));
            last = format!("c{i}");
        }
        text.push_str(&format!("  ROOT %r = f32[4]{{0}} copy(%{last})\n}}\n"));
        let in_place = "HloModule m\n\nENTRY %e (x: f32[4]) -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n  ROOT %r = f32[4]{0} call(%x), to_apply={\n    %p = f32[4]{0} parameter(0)\n    ROOT %n = f32[4]{0} negate(%p)\n  }\n}\n";
        for text in [text.as_str(), in_place] {
            let module = crate::parse_module(text).unwrap_or_else(|e| panic!("{e:?}"));
            let (printed, spans) = (crate::print::print_ir_module(&module), spans_of(&module));
            let snapshot = Snapshot::take(&module);
            for piece_bytes in [1 << 20, 300, 1] {
                let pieces = TextPieces::new(snapshot.reader(), piece_bytes);
                let in_pieces = crate::parse_module_in_pieces(pieces).ok().flatten();
                assert_eq!(in_pieces.is_some(), text != in_place, "{piece_bytes}");
                let mut restored =
                    crate::parse_module("ENTRY %e {\n  ROOT %p = f32[] parameter(0)\n}\n")
                        .unwrap_or_else(|e| panic!("{e:?}"));
                if let Err(error) = snapshot.restore_in_pieces_of(&mut restored, piece_bytes) {
                    panic!("{error}");
                }
                assert_eq!(crate::print::print_ir_module(&restored), printed);
                assert_eq!(spans_of(&restored), spans);
            }
        }
    }
}
