//! Writing a command's results: to standard output, or to OUT through a temporary file
//! beside it that is renamed over it only once everything is written ([`AtomicFile`]), so
//! an error or Ctrl-C leaves OUT as it was; and the text of a JSON document. The temporary
//! file and the Ctrl-C handler that removes it share `PENDING`, hence one file for both.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::diagnostic::{plain, CliError, Diag};

/// The temporary file being written, removed if the user interrupts us.
static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);

/// On Ctrl-C, removes the temporary file being written (OUT itself is never partial) and
/// exits with 130, as shells expect.
pub(super) fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if let Ok(mut pending) = PENDING.lock() {
            if let Some(path) = pending.take() {
                let _ = std::fs::remove_file(path);
            }
        }
        std::process::exit(130);
    });
}

/// A file being written atomically: a temporary file beside its path, renamed over it by
/// [`AtomicFile::commit`], so readers never see a half-written file and a failure (or a
/// drop without commit) leaves the old one as it was. The new file keeps the old one's
/// permissions (or gets the usual ones for a new file).
pub struct AtomicFile {
    /// `None` once committed.
    file: Option<tempfile::NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let file_name = path.file_name().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
        })?;
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        let prefix = format!(".{}.", file_name.to_string_lossy());
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        let permissions = match std::fs::metadata(path) {
            Ok(metadata) => metadata.permissions(),
            Err(_) => std::os::unix::fs::PermissionsExt::from_mode(0o666),
        };
        #[cfg(unix)]
        builder.permissions(permissions);
        let file = builder.tempfile_in(directory)?;
        if let Ok(mut pending) = PENDING.lock() {
            *pending = Some(file.path().to_path_buf());
        }
        Ok(AtomicFile {
            file: Some(file),
            path: path.to_path_buf(),
        })
    }

    /// Syncs the file and renames it over its path.
    pub fn commit(mut self) -> std::io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        file.as_file()
            .sync_all()
            .and_then(|()| file.persist(&self.path).map(|_| ()).map_err(|e| e.error))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Uncommitted, the temporary file is removed by its own drop.
        drop(self.file.take());
        if let Ok(mut pending) = PENDING.lock() {
            *pending = None;
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(bytes),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

/// Writes `contents` to a temporary file beside `path`, then renames it over `path`
/// ([`AtomicFile`]).
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(contents)?;
    file.commit()
}

/// Writes `text` to `output`, atomically, or to standard output when there is none.
pub fn write_output(output: Option<&Path>, text: &str) -> Result<(), Diag> {
    let written = match output {
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| ("standard output".to_string(), e)),
        Some(path) => {
            write_atomically(path, text.as_bytes()).map_err(|e| (path.display().to_string(), e))
        }
    };
    written.map_err(|(file, error)| {
        plain(CliError::Write {
            file,
            reason: error.to_string(),
        })
    })
}

/// Serialises a JSON document (never fails for `Value`s) with a final newline.
pub fn json_text(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

/// Prints a module to `to` as it is printed. A large module's second share, printed on the
/// other thread while this one writes the first, goes to an unnamed temporary file (in
/// `TMPDIR`, gone when closed) rather than memory, and is copied out after the first; where
/// no temporary file can be made, it is held in memory.
pub fn write_module(module: &hlo_layout::ir::Module, to: &mut dyn Write) -> std::io::Result<()> {
    match tempfile::tempfile() {
        Ok(mut spill) => hlo_layout::print::write_ir_module_spilling(module, to, &mut spill),
        Err(_) => hlo_layout::print::write_ir_module(module, to),
    }
}
