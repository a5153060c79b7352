//! A command's input text, read into memory, and the modules it holds ([`module_ranges`]).
//!
//! Files are read, never mapped: text borrowed from a mapping can change under the reader
//! when another process rewrites the file, which is undefined behaviour for a `&str`, not
//! only a crash. Reading costs the text's size in memory until the command gives the text
//! back ([`Source::release`]) once it has what it needs of it.

use std::hash::Hasher;

use super::{plain, CliError, Diag};

/// One input's text, which a command may release once lowered and which is read again only
/// to show diagnostics in it.
pub struct Source {
    file: String,
    /// Empty once released.
    text: String,
    /// Whether the text was released and is to be read again.
    released: bool,
    /// The length and hash of the text first read, to tell whether the file read again holds
    /// the same text; computed on the first release.
    fingerprint: Option<(usize, u64)>,
}

impl Source {
    pub fn new(file: &str, text: String) -> Source {
        Source {
            file: file.to_string(),
            text,
            released: false,
            fingerprint: None,
        }
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
            self.fingerprint = Some((self.text.len(), fingerprint(&self.text)));
        }
        self.released = true;
        self.text = String::new();
    }

    /// The text, read again if it was released; an error if the file no longer holds the
    /// text read first.
    pub fn read_again(&mut self) -> Result<&str, Diag> {
        if let (true, Some((len, hash))) = (self.released, self.fingerprint) {
            match read(&self.file) {
                Ok(text) if text.len() == len && fingerprint(&text) == hash => {
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

fn fingerprint(text: &str) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// Reads a file, or standard input for `-`, into memory.
pub fn read(file: &str) -> Result<String, Diag> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    if let Err(error) = read {
        return Err(plain(CliError::Read {
            file: file.to_string(),
            reason: error.to_string(),
        }));
    }
    String::from_utf8(bytes).map_err(|error| not_utf8(file, error.utf8_error().valid_up_to()))
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
