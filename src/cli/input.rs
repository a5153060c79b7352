//! A command's input text: read into memory, or mapped from its file so that the pages a
//! streaming reader has left behind can be given back to the system.
//!
//! `check` reads a module once, front to back, and keeps its IR, not its text; with the text
//! in memory too, a module's text is a third of what `check` holds at its peak. A mapped file
//! costs only the pages being read: the system reads a page again from the file (from its
//! cache, nearly always) if it is touched after it was given back.
//!
//! The price of a mapping is the one every tool that maps its input pays (LLVM's memory
//! buffers, ripgrep): a file truncated by another process while it is mapped ends this one
//! with `SIGBUS`. Standard input, pipes and empty files are always read.

use memmap2::{Mmap, UncheckedAdvice};

use super::{plain, CliError, Diag};

/// How a command wants its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Read into memory.
    Whole,
    /// Mapped when it is a regular file, so that [`Input::release_before`] can give back what
    /// has been read.
    Mapped,
}

/// An input's text, valid UTF-8.
pub enum Input {
    Read(String),
    Mapped(Mmap),
}

/// Pages are given back in units of this size, a multiple of every page size Linux uses
/// (4, 16 and 64 KiB), so the start of the page holding `offset` never needs to be asked.
const RELEASE_UNIT: usize = 64 << 10;

impl Input {
    pub fn text(&self) -> &str {
        match self {
            Input::Read(text) => text,
            // SAFETY: `open` checked that the mapping is UTF-8, and it is mapped read-only.
            Input::Mapped(map) => unsafe { std::str::from_utf8_unchecked(map) },
        }
    }

    /// Tells the system that the text before `offset` is not needed for now: a mapping's
    /// pages before it are given back; text in memory stays as it is.
    pub fn release_before(&self, offset: usize) {
        let Input::Mapped(map) = self else {
            return;
        };
        let end = offset.min(map.len()) / RELEASE_UNIT * RELEASE_UNIT;
        if end == 0 {
            return;
        }
        // SAFETY: the mapping is a shared, read-only mapping of a file: after
        // `MADV_DONTNEED` its pages read what the file holds, as before; nothing here ever
        // writes to it. A failure only means the pages stay.
        let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, 0, end) };
    }
}

/// Reads `file`, or standard input for `-`, as `reading` asks.
pub fn open(file: &str, reading: Reading) -> Result<Input, Diag> {
    if reading == Reading::Mapped && file != "-" {
        if let Some(input) = map(file)? {
            return Ok(input);
        }
    }
    read(file).map(Input::Read)
}

/// Maps `file` when it is a regular, non-empty file (`None` when it is not one).
fn map(file: &str) -> Result<Option<Input>, Diag> {
    let read_error = |error: std::io::Error| {
        plain(CliError::Read {
            file: file.to_string(),
            reason: error.to_string(),
        })
    };
    let opened = std::fs::File::open(file).map_err(read_error)?;
    let metadata = opened.metadata().map_err(read_error)?;
    if !metadata.is_file() || metadata.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the mapping is read-only and nothing in this process writes to the file; the
    // one way it can change under us, another process truncating or rewriting the file, is
    // the risk the module's documentation accepts.
    let map = unsafe { Mmap::map(&opened) }.map_err(read_error)?;
    if let Err(error) = std::str::from_utf8(&map) {
        return Err(not_utf8(file, error.valid_up_to()));
    }
    // Checking the text brought every page in; the reader brings back what it reads.
    let input = Input::Mapped(map);
    input.release_before(usize::MAX);
    Ok(Some(input))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapped file reads as the file's text after its pages are given back, and a file
    /// that is not UTF-8 is refused with the offset of its first bad byte, as when read.
    #[test]
    fn a_mapped_file_reads_its_text_after_its_pages_are_given_back() -> std::io::Result<()> {
        let directory = tempfile::tempdir()?;
        let path = directory.path().join("m.hlo");
        let text: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&path, &text)?;
        let name = path.to_string_lossy().into_owned();
        let input = open(&name, Reading::Mapped)
            .unwrap_or_else(|diag| panic!("the file maps: {}", diag.render()));
        assert!(matches!(input, Input::Mapped(_)));
        assert_eq!(input.text(), text);
        input.release_before(200_000);
        assert_eq!(input.text(), text);
        input.release_before(usize::MAX);
        assert_eq!(input.text(), text);

        std::fs::write(&path, b"ok\n\xff")?;
        for reading in [Reading::Mapped, Reading::Whole] {
            let Err(diag) = open(&name, reading) else {
                panic!("{reading:?}: a file that is not UTF-8 is refused");
            };
            assert!(
                diag.render().contains("offset 3"),
                "{reading:?}: {}",
                diag.render()
            );
        }
        std::fs::write(&path, b"")?;
        let input = open(&name, Reading::Mapped)
            .unwrap_or_else(|diag| panic!("an empty file reads: {}", diag.render()));
        assert!(matches!(input, Input::Read(_)));
        assert_eq!(input.text(), "");
        Ok(())
    }
}
