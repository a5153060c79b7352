//! A command's input text, read into memory, and the modules it holds ([`module_ranges`]).
//!
//! Files are read, never mapped: text borrowed from a mapping can change under the reader
//! when another process rewrites the file, which is undefined behaviour for a `&str`, not
//! only a crash. Reading costs the text's size in memory until the command gives the text
//! back ([`Source::release`]) once it has what it needs of it. A command that only lowers
//! a large file's module reads it in pieces instead ([`Source::lower_in_pieces`]), so that
//! its whole text and its module are never held at once.

use std::io::Read;

use hlo_layout::syntax::pieces::{PieceError, TextPieces};

use super::{plain, CliError, Diag};

/// One input's text, which a command may release once lowered and which is read again only
/// to show diagnostics in it.
pub struct Source {
    file: String,
    /// Empty once released, and before a file left unread is read.
    text: String,
    /// Whether the text was released, or never read, and is to be read again.
    released: bool,
    /// A file left unread for [`Source::lower_in_pieces`], and the size of its pieces.
    unread: Option<usize>,
    /// The length and hash of the text first read, to tell whether the file read again holds
    /// the same text; computed on the first release.
    fingerprint: Option<(usize, u64)>,
    /// The size of the pieces the module was lowered from; 0 when it was lowered whole.
    piece_bytes: usize,
}

impl Source {
    pub fn new(file: &str, text: String) -> Source {
        Source {
            file: file.to_string(),
            text,
            released: false,
            unread: None,
            fingerprint: None,
            piece_bytes: 0,
        }
    }

    /// A file, or standard input for `-`, read whole; a file of at least `piece_bytes`, when
    /// given, is left unread, for [`Source::lower_in_pieces`],
    /// [`Source::format_in_pieces`] or [`Source::load`] to read in pieces of that size.
    pub fn open(file: &str, piece_bytes: Option<usize>) -> Result<Source, Diag> {
        let large =
            |bytes| std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() >= bytes as u64);
        match piece_bytes {
            Some(bytes) if file != "-" && large(bytes) => Ok(Source {
                released: true,
                unread: Some(bytes),
                ..Source::new(file, String::new())
            }),
            _ => read(file).map(|text| Source::new(file, text)),
        }
    }

    /// The text, read whole if the file was left unread.
    pub fn load(&mut self) -> Result<&str, Diag> {
        if self.unread.is_some() {
            self.text = read(&self.file)?;
            self.unread = None;
            self.released = false;
        }
        Ok(&self.text)
    }

    /// The module of a file left unread, lowered from its text read in pieces (whole
    /// computations, or runs of the lines of a longer one: `hlo_layout::parse_module_in_pieces`)
    /// and released: the whole text is never held. `None` when the file was read whole, or when its text cannot be lowered
    /// piece by piece (an error among them): the text is then read whole, [`Source::text`]
    /// holds it, and the caller lowers it, which reports every error.
    pub fn lower_in_pieces(&mut self) -> Result<Option<hlo_layout::ir::Module>, Diag> {
        let Some(piece_bytes) = self.unread else {
            return Ok(None);
        };
        let (module, fingerprint) = self.lower_pieces(piece_bytes)?;
        match module {
            Some(module) => {
                self.unread = None;
                self.piece_bytes = piece_bytes;
                self.fingerprint = Some(fingerprint);
                Ok(Some(module))
            }
            None => self.load().map(|_| None),
        }
    }

    /// The formatted text of a file left unread, formatted from its text read in pieces
    /// and written to `spill` as it is printed (`hlo_layout::format_module_in_pieces_spilling`):
    /// neither its whole text nor its formatted copy is held. `None` when the file was read
    /// whole, or when its text cannot be formatted piece by piece (an error among them): the
    /// text is then read whole, [`Source::text`] holds it, and the caller formats it, which
    /// reports every error.
    pub fn format_in_pieces(
        &mut self,
        spill: &mut std::fs::File,
    ) -> Result<Option<hlo_layout::SpilledText>, Diag> {
        let Some(piece_bytes) = self.unread else {
            return Ok(None);
        };
        let file =
            std::fs::File::open(&self.file).map_err(|error| read_error(&self.file, error))?;
        let pieces = Pieces::new(&self.file, file, piece_bytes);
        match hlo_layout::format_module_in_pieces_spilling(pieces, spill)? {
            Some(formatted) => Ok(Some(formatted)),
            None => self.load().map(|_| None),
        }
    }

    /// The module lowered from the file again, in pieces if it was first lowered so, else
    /// from its text read again; an error if the file no longer holds the text first read.
    pub fn lower_again(&mut self) -> Result<hlo_layout::ir::Module, Diag> {
        if let (true, Some(first), true) = (self.released, self.fingerprint, self.piece_bytes > 0) {
            let (module, fingerprint) = self.lower_pieces(self.piece_bytes)?;
            return match module {
                Some(module) if fingerprint == first => Ok(module),
                _ => Err(self.changed()),
            };
        }
        let lowered = hlo_layout::parse_module(self.read_again()?).map_err(|_| self.changed());
        self.release();
        lowered
    }

    /// The file's module lowered piece by piece, and the fingerprint of the text read.
    #[allow(clippy::type_complexity)]
    fn lower_pieces(
        &self,
        piece_bytes: usize,
    ) -> Result<(Option<hlo_layout::ir::Module>, (usize, u64)), Diag> {
        let file =
            std::fs::File::open(&self.file).map_err(|error| read_error(&self.file, error))?;
        // Only a hint, to size a computation longer than a piece once: the file may change.
        let file_bytes = file.metadata().map_or(0, |m| m.len());
        let mut pieces = Pieces::new(&self.file, file, piece_bytes);
        let file_bytes = usize::try_from(file_bytes).unwrap_or(usize::MAX);
        let module = hlo_layout::parse_module_in_pieces_of(&mut pieces, file_bytes)?;
        Ok((module, pieces.fingerprint()))
    }

    /// The text, empty once released.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Frees the text of a file; diagnostics read it again. Standard input cannot be read
    /// again, so its text is kept.
    pub fn release(&mut self) {
        if self.file == "-" || self.released {
            return;
        }
        // The text read again is the text first read, so it is hashed only once.
        if self.fingerprint.is_none() {
            self.fingerprint = Some(fingerprint(&self.text));
        }
        self.released = true;
        self.text = String::new();
    }

    /// The text, read again if it was released; an error if the file no longer holds the
    /// text read first.
    pub fn read_again(&mut self) -> Result<&str, Diag> {
        if let (true, Some((len, hash))) = (self.released, self.fingerprint) {
            match read(&self.file) {
                Ok(text) if fingerprint(&text) == (len, hash) => {
                    self.text = text;
                    self.released = false;
                }
                Ok(_) => return Err(self.changed()),
                Err(diag) => return Err(diag),
            }
        }
        Ok(&self.text)
    }

    /// The error of a file that no longer holds the text read first.
    pub fn changed(&self) -> Diag {
        plain(CliError::Changed {
            file: self.file.clone(),
        })
    }

    /// Diagnostics about the text, as [`super::diagnostics`] gives them, with the text read
    /// again if it was released. A file that no longer holds the text read first gives them
    /// without snippets or positions, which would point at other text.
    pub fn diagnostics<E>(&mut self, errors: Vec<E>) -> Vec<Diag>
    where
        E: miette::Diagnostic + Send + Sync + 'static,
    {
        if self.read_again().is_err() {
            return errors.into_iter().map(plain).collect();
        }
        super::diagnostics(&self.file, &self.text, errors)
    }
}

/// A file of at least this many bytes is lowered from pieces of about this size by the
/// commands that only need its module: below it, a piece would be the whole text.
pub const PIECES_MIN_BYTES: usize = 8 << 20;

/// A file of at least this many bytes is formatted from pieces of about this size by `fmt`,
/// which reads them on one thread whatever their size.
pub const FORMAT_PIECE_BYTES: usize = 256 << 10;

/// The length and hash of a text, the same however the text is cut as it is fed.
fn fingerprint(text: &str) -> (usize, u64) {
    let mut hash = StreamHash::default();
    hash.write(text.as_bytes());
    hash.finish()
}

/// FxHash's mixing over 8-byte words, with the bytes of a word cut between two writes
/// carried over, so that a text hashes the same whole or in pieces.
#[derive(Default)]
struct StreamHash {
    hash: u64,
    carried: [u8; 8],
    carried_len: usize,
    len: usize,
}

impl StreamHash {
    fn write(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len();
        while self.carried_len > 0 && !bytes.is_empty() {
            self.carried[self.carried_len] = bytes[0];
            self.carried_len += 1;
            bytes = &bytes[1..];
            if self.carried_len == 8 {
                self.mix(u64::from_le_bytes(self.carried));
                self.carried_len = 0;
            }
        }
        if self.carried_len > 0 {
            // Every byte went to the word being carried.
            return;
        }
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(word);
            self.mix(u64::from_le_bytes(bytes));
        }
        let rest = words.remainder();
        self.carried[..rest.len()].copy_from_slice(rest);
        self.carried_len = rest.len();
    }

    fn mix(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(mut self) -> (usize, u64) {
        let mut last = [0; 8];
        last[..self.carried_len].copy_from_slice(&self.carried[..self.carried_len]);
        self.mix(u64::from_le_bytes(last));
        (self.len, self.hash)
    }
}

/// A file's text in pieces for `hlo_layout::parse_module_in_pieces`
/// ([`hlo_layout::syntax::pieces::TextPieces`]), hashed as they are given out and with
/// errors that name the file.
struct Pieces<'f> {
    file_name: &'f str,
    pieces: TextPieces<std::fs::File>,
    hash: StreamHash,
}

impl<'f> Pieces<'f> {
    fn new(file_name: &'f str, file: std::fs::File, piece_bytes: usize) -> Pieces<'f> {
        Pieces {
            file_name,
            pieces: TextPieces::new(file, piece_bytes),
            hash: StreamHash::default(),
        }
    }

    /// The length and hash of the text given out so far.
    fn fingerprint(self) -> (usize, u64) {
        self.hash.finish()
    }
}

impl Iterator for Pieces<'_> {
    type Item = Result<String, Diag>;

    fn next(&mut self) -> Option<Result<String, Diag>> {
        Some(match self.pieces.next()? {
            Ok(piece) => {
                self.hash.write(piece.as_bytes());
                Ok(piece)
            }
            Err(PieceError::Read(error)) => Err(read_error(self.file_name, error)),
            Err(PieceError::NotUtf8 { offset }) => Err(not_utf8(self.file_name, offset)),
        })
    }
}

/// Reads a file, or standard input for `-`, into memory.
pub fn read(file: &str) -> Result<String, Diag> {
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    if let Err(error) = read {
        return Err(read_error(file, error));
    }
    String::from_utf8(bytes).map_err(|error| not_utf8(file, error.utf8_error().valid_up_to()))
}

fn read_error(file: &str, error: std::io::Error) -> Diag {
    plain(CliError::Read {
        file: file.to_string(),
        reason: error.to_string(),
    })
}

fn not_utf8(file: &str, offset: usize) -> Diag {
    plain(CliError::NotUtf8 {
        file: file.to_string(),
        offset,
    })
}

/// The byte ranges of the modules of `text`: split at `// -----` lines with
/// `--split-input-file`, else the whole text.
// One range, the whole text, is meant; the lint takes it for a range of elements.
#[allow(clippy::single_range_in_vec_init)]
pub fn module_ranges(text: &str, split_input_file: bool) -> Vec<std::ops::Range<usize>> {
    if split_input_file {
        hlo_layout::syntax::split_modules(text)
    } else {
        vec![0..text.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that is not UTF-8 is refused with the offset of its first bad byte.
    /// Diagnostics after a release show the text read again, as before it; a file changed
    /// meanwhile gives them without snippets or positions.
    #[test]
    fn a_released_text_is_read_again_for_diagnostics() -> std::io::Result<()> {
        let directory = tempfile::tempdir()?;
        let path = directory.path().join("m.hlo");
        let text = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2] bogus(0)\n}\n";
        std::fs::write(&path, text)?;
        let file = path.to_string_lossy().into_owned();
        let errors = || match hlo_layout::parse_module(text) {
            Err(errors) => errors,
            Ok(_) => panic!("the module has an error"),
        };
        let kept: Vec<String> = super::super::diagnostics(&file, text, errors())
            .iter()
            .map(Diag::render)
            .collect();
        let mut source = Source::new(&file, text.to_string());
        source.release();
        assert_eq!(source.text(), "");
        let again: Vec<String> = source
            .diagnostics(errors())
            .iter()
            .map(Diag::render)
            .collect();
        assert_eq!(again, kept);
        assert!(again[0].contains("bogus"));
        assert_eq!(source.text(), text);
        source.release();
        std::fs::write(&path, text.replace("bogus", "bogux"))?;
        let changed = source.diagnostics(errors());
        assert_eq!(changed.len(), kept.len());
        assert_eq!(changed[0].json()["labels"][0]["offset"], 41);
        assert!(changed[0].json()["labels"][0]["line"].is_null());
        // Lowering again (`assign`) refuses a file that changed.
        let Err(refused) = source.read_again() else {
            panic!("a changed file is not read again");
        };
        assert!(refused.render().contains("changed while it was read"));
        std::fs::write(&path, text)?;
        assert_eq!(source.read_again().ok(), Some(text));
        Ok(())
    }

    /// A module of `count` small computations, each called by the entry.
    fn module_of(count: usize) -> String {
        let mut text = String::from("HloModule m\n\n");
        for index in 0..count {
            text.push_str(&format!(
                "%add.{index} (x: f32[], y: f32[]) -> f32[] {{\n  %x = f32[] parameter(0)\n  \
                 %y = f32[] parameter(1)\n  ROOT %sum = f32[] add(%x, %y)\n}}\n\n"
            ));
        }
        text.push_str("ENTRY %e (p: f32[8]) -> f32[] {\n  %p = f32[8]{0} parameter(0)\n");
        text.push_str("  %zero = f32[] constant(0)\n");
        for index in 0..count {
            text.push_str(&format!(
                "  %r.{index} = f32[] reduce(%p, %zero), dimensions={{0}}, to_apply=%add.{index}\n"
            ));
        }
        text.push_str(&format!("  ROOT %t = f32[] copy(%r.{})\n}}\n", count - 1));
        text
    }

    fn printed(module: &hlo_layout::ir::Module) -> String {
        hlo_layout::print::print_ir_module(module)
    }

    /// The hash of a text is the same fed whole or cut anywhere, and differs when one byte
    /// does.
    #[test]
    fn a_text_hashes_the_same_however_it_is_cut() {
        let text = module_of(3);
        let whole = fingerprint(&text);
        for first in 0..text.len() {
            for second in [first, (first + 7).min(text.len()), text.len()] {
                let mut hash = StreamHash::default();
                hash.write(&text.as_bytes()[..first]);
                hash.write(&text.as_bytes()[first..second]);
                hash.write(&text.as_bytes()[second..]);
                assert_eq!(hash.finish(), whole, "cut at {first} and {second}");
            }
        }
        assert_ne!(fingerprint(&text.replacen("add", "adc", 1)), whole);
        assert_ne!(fingerprint(&format!("{text} ")), whole);
    }

    /// A large file is read in pieces of whole computations, which make up its text, and
    /// lowered to the module its whole text gives; lowering again gives it again, and
    /// refuses a file that changed meanwhile. Diagnostics read the text whole.
    #[test]
    fn a_large_file_is_lowered_in_pieces_as_whole() -> std::io::Result<()> {
        let directory = tempfile::tempdir()?;
        let path = directory.path().join("m.hlo");
        let text = module_of(40);
        std::fs::write(&path, &text)?;
        let file = path.to_string_lossy().into_owned();
        let piece_bytes = 300;

        let mut pieces = Pieces::new(&file, std::fs::File::open(&path)?, piece_bytes);
        let read: Vec<String> = pieces
            .by_ref()
            .collect::<Result<_, _>>()
            .map_err(|_| std::io::Error::other("a piece was refused"))?;
        assert!(read.len() > 10, "{} pieces", read.len());
        assert_eq!(read.concat(), text);
        for piece in &read[..read.len() - 1] {
            // No longer than `piece_bytes` unless one computation is.
            let one_computation = piece.find("\n}\n") == Some(piece.len() - 3);
            assert!(
                piece.ends_with("\n}\n") && (piece.len() <= piece_bytes || one_computation),
                "{piece:?}"
            );
        }
        // The entry, longer than a piece, is one.
        assert!(read[read.len() - 1].trim_start().starts_with("ENTRY"));
        assert!(read[read.len() - 1].len() > piece_bytes);
        assert_eq!(pieces.fingerprint(), fingerprint(&text));

        let whole = match hlo_layout::parse_module(&text) {
            Ok(module) => printed(&module),
            Err(errors) => panic!("{errors:?}"),
        };
        let mut source = Source::open(&file, Some(piece_bytes))
            .map_err(|_| std::io::Error::other("not opened"))?;
        assert_eq!(source.text(), "", "a large file is left unread");
        let module = match source.lower_in_pieces() {
            Ok(Some(module)) => module,
            _ => panic!("the module is lowered in pieces"),
        };
        assert_eq!(printed(&module), whole);
        assert_eq!(source.text(), "", "no text is held");
        match source.lower_again() {
            Ok(again) => assert_eq!(printed(&again), whole),
            Err(diag) => panic!("{}", diag.render()),
        }
        assert_eq!(source.read_again().ok(), Some(text.as_str()));
        source.release();
        std::fs::write(&path, text.replace("%y)", "%x)"))?;
        let Err(refused) = source.lower_again() else {
            panic!("a changed file is not lowered again");
        };
        assert!(refused.render().contains("changed while it was read"));

        // A small file, or pieces not asked for, is read whole.
        std::fs::write(&path, &text)?;
        for source in [
            Source::open(&file, Some(text.len() + 1)),
            Source::open(&file, None),
        ] {
            let Ok(mut source) = source else {
                panic!("not opened");
            };
            assert_eq!(source.text(), text);
            assert!(matches!(source.lower_in_pieces(), Ok(None)));
        }
        Ok(())
    }

    /// A large file with an error is read whole, so that the error is reported as ever; a
    /// byte that is not UTF-8 in a later piece is refused with its offset in the file.
    #[test]
    fn a_large_file_with_an_error_is_read_whole() -> std::io::Result<()> {
        let directory = tempfile::tempdir()?;
        let path = directory.path().join("m.hlo");
        let text = module_of(40).replace("ROOT %t = f32[] copy", "ROOT %t = f32[] cpy");
        std::fs::write(&path, &text)?;
        let file = path.to_string_lossy().into_owned();
        let Ok(mut source) = Source::open(&file, Some(300)) else {
            panic!("not opened");
        };
        assert!(matches!(source.lower_in_pieces(), Ok(None)));
        assert_eq!(source.text(), text);

        let mut bytes = module_of(40).into_bytes();
        let bad = bytes.len() - 20;
        bytes[bad] = 0xff;
        std::fs::write(&path, &bytes)?;
        let Ok(mut source) = Source::open(&file, Some(300)) else {
            panic!("not opened");
        };
        let Err(refused) = source.lower_in_pieces() else {
            panic!("a file that is not UTF-8 is refused");
        };
        assert!(
            refused.render().contains(&format!("offset {bad}")),
            "{}",
            refused.render()
        );
        Ok(())
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused_with_its_offset() -> std::io::Result<()> {
        let directory = tempfile::tempdir()?;
        let path = directory.path().join("m.hlo");
        std::fs::write(&path, b"ok\n\xff")?;
        let Err(diag) = read(&path.to_string_lossy()) else {
            panic!("a file that is not UTF-8 is refused");
        };
        assert!(diag.render().contains("offset 3"), "{}", diag.render());
        std::fs::write(&path, b"")?;
        assert_eq!(read(&path.to_string_lossy()).ok().as_deref(), Some(""));
        Ok(())
    }
}
