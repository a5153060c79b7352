//! The input of layout assignment kept as its printed text, compressed, and its spans, so
//! that assignment can run twice on the same input (the descending rule for its cost, then
//! the chosen layouts) without holding a copy of the module beside the one it assigns. The
//! text is compressed as it is printed, a block at a time (to about a fifth of its size),
//! put aside in the program's scratch file where it gave one ([`crate::memory`]), and read
//! back in pieces ([`crate::parse_module_in_pieces`]), so neither the printed text nor a
//! second module is ever held whole.
//!
//! The text is what `fmt` prints, which reads back as the same module (the corpus tests
//! check both ways give the same assignment); the spans are put back from the module the
//! snapshot was taken of, so that errors still point into the user's text.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use super::options::AssignError;
use crate::ir::module::{Computation, ComputationId, Module};
use crate::span::Span;
use crate::syntax::pieces::TextPieces;

/// How much text a piece read back holds, about: as a command reads a large file.
const PIECE_BYTES: usize = 8 << 20;

/// A module as its printed text in compressed blocks, with the spans of its computations
/// and of their instructions in print order.
pub(super) struct Snapshot {
    blocks: Vec<Block>,
    /// Where the blocks put aside are.
    aside: Aside,
    /// Each computation's span, then its instructions', packed; put aside with the blocks.
    spans: Block,
    /// How many instructions each computation has.
    sizes: Vec<usize>,
    /// The length of the printed text: a piece read back need not have room for more.
    text_bytes: usize,
}

/// One compressed block of the printed text: held in memory, or put aside in the scratch
/// file.
enum Block {
    Held(Vec<u8>),
    Aside { offset: u64, length: usize },
}

/// The scratch file blocks are put aside in, if the program gave one, and how much of it
/// they take. A block that cannot be written whole (a full disk, say) is held instead, and
/// so is every block after it.
struct Aside {
    file: Option<File>,
    end: u64,
    failed: bool,
}

impl Aside {
    fn put(&mut self, bytes: Vec<u8>) -> Block {
        let Some(file) = self.file.as_mut().filter(|_| !self.failed) else {
            return Block::Held(bytes);
        };
        let written = file
            .seek(SeekFrom::Start(self.end))
            .and_then(|_| file.write_all(&bytes));
        let Ok(()) = written else {
            self.failed = true;
            return Block::Held(bytes);
        };
        let block = Block::Aside {
            offset: self.end,
            length: bytes.len(),
        };
        self.end += bytes.len() as u64;
        block
    }

    /// The bytes of `block`.
    fn get<'b>(&self, block: &'b Block) -> std::io::Result<Cow<'b, [u8]>> {
        match block {
            Block::Held(bytes) => Ok(Cow::Borrowed(bytes)),
            Block::Aside { offset, length } => {
                let mut file = self.file.as_ref().ok_or_else(|| {
                    std::io::Error::other("a block put aside has no scratch file")
                })?;
                file.seek(SeekFrom::Start(*offset))?;
                let mut bytes = vec![0; *length];
                file.read_exact(&mut bytes)?;
                Ok(Cow::Owned(bytes))
            }
        }
    }
}

impl Snapshot {
    pub(super) fn take(module: &Module) -> Snapshot {
        Snapshot::take_aside_in(module, crate::memory::scratch_file())
    }

    /// [`Snapshot::take`], putting the blocks aside in `scratch` if there is one.
    fn take_aside_in(module: &Module, scratch: Option<File>) -> Snapshot {
        let mut spans = PackedSpans::default();
        let mut sizes = Vec::with_capacity(module.computations().len());
        for computation in module.computations() {
            spans.push(computation.span);
            for &id in computation.order() {
                spans.push(computation.instruction(id).span);
            }
            sizes.push(computation.len());
        }
        let compress = |text: &str| lz4_flex::block::compress_prepend_size(text.as_bytes());
        let mut aside = Aside {
            file: scratch,
            end: 0,
            failed: false,
        };
        // The second share's blocks are printed on the other thread, so they are held until
        // the first share's are put aside, in order.
        let (mut blocks, mut tail) = (Vec::new(), Vec::new());
        let (mut head_bytes, mut tail_bytes) = (0usize, 0usize);
        crate::print::print_ir_module_handing_out(
            module,
            &mut |text| {
                head_bytes += text.len();
                blocks.push(aside.put(compress(text)));
            },
            &mut |text| {
                tail_bytes += text.len();
                tail.push(compress(text));
            },
        );
        blocks.extend(tail.into_iter().map(|bytes| aside.put(bytes)));
        Snapshot {
            blocks,
            spans: aside.put(spans.bytes),
            aside,
            sizes,
            text_bytes: head_bytes.saturating_add(tail_bytes),
        }
    }

    /// Replaces `module` with the module the snapshot was taken of, freeing it first so that
    /// the two are never held at once.
    pub(super) fn restore(&self, module: &mut Module) -> Result<(), AssignError> {
        self.restore_in_pieces_of(module, PIECE_BYTES.min(self.text_bytes))
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
        let read_back = crate::parse_module_in_pieces_of(pieces, self.text_bytes)
            .map_err(|e| restore_error(e.to_string()))?;
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
        let spans = self
            .aside
            .get(&self.spans)
            .map_err(|e| restore_error(e.to_string()))?;
        let mut spans = UnpackedSpans::of(&spans);
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
            aside: &self.aside,
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
}

/// The spans of a [`PackedSpans`], in the order pushed.
struct UnpackedSpans<'p> {
    bytes: &'p [u8],
    last_end: usize,
}

impl UnpackedSpans<'_> {
    fn of(bytes: &[u8]) -> UnpackedSpans<'_> {
        UnpackedSpans { bytes, last_end: 0 }
    }

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
    blocks: &'b [Block],
    aside: &'b Aside,
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
            self.current = lz4_flex::block::decompress_size_prepended(&self.aside.get(block)?)
                .map_err(std::io::Error::other)?;
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
        assert_eq!(UnpackedSpans::of(&packed.bytes).collect::<Vec<_>>(), spans);
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
    /// which pieces cannot tell of), and whether it was held, put aside in a scratch file,
    /// or held because the file took no writes.
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
            let scratch = || tempfile::tempfile().unwrap_or_else(|e| panic!("{e}"));
            // A file opened for reading only takes no block: they are all held.
            let unwritable = || {
                let path = tempfile::NamedTempFile::new().unwrap_or_else(|e| panic!("{e}"));
                File::open(path.path()).unwrap_or_else(|e| panic!("{e}"))
            };
            for (scratch, aside) in [
                (None, false),
                (Some(scratch()), true),
                (Some(unwritable()), false),
            ] {
                let snapshot = Snapshot::take_aside_in(&module, scratch);
                let all_aside = |snapshot: &Snapshot| {
                    std::iter::once(&snapshot.spans)
                        .chain(&snapshot.blocks)
                        .all(|block| matches!(block, Block::Aside { .. }))
                };
                assert!(!snapshot.blocks.is_empty());
                assert_eq!(all_aside(&snapshot), aside);
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
}
