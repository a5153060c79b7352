//! A command's input text, read into memory.
//!
//! Files are read, never mapped: text borrowed from a mapping can change under the reader
//! when another process rewrites the file, which is undefined behaviour for a `&str`, not
//! only a crash. Reading costs the text's size in memory for the length of the command.

use super::{plain, CliError, Diag};

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

    /// A file that is not UTF-8 is refused with the offset of its first bad byte.
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
