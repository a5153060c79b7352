//! What the library needs of the process's memory, as far as the program tells it. The
//! library knows no allocator and makes no files; a program may tell it how to give freed
//! memory back to the system at once ([`set_release_freed_memory`]), which it asks for where
//! it has just freed much and is about to allocate as much: between the pieces of a module
//! lowered piece by piece ([`crate::parse_module_in_pieces`]). Left to itself, an allocator
//! may keep those pages for a while, and they add up to the peak. And it may give the
//! library a scratch file ([`set_scratch_file`]) to put aside what it keeps for a while
//! and does not read meanwhile: layout assignment's copy of its input.

use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();
static SCRATCH: OnceLock<fn() -> std::io::Result<std::fs::File>> = OnceLock::new();

/// Sets what gives freed memory back to the system (`mi_collect(true)` under mimalloc, say),
/// once for the process; false if it was already set.
pub fn set_release_freed_memory(release: fn()) -> bool {
    RELEASE.set(release).is_ok()
}

/// Gives freed memory back to the system, if the program said how.
pub(crate) fn release_freed_memory() {
    if let Some(release) = RELEASE.get() {
        release();
    }
}

/// Sets what makes a scratch file: a new, empty file, readable and writable, that nothing
/// else uses and that goes away when closed (`tempfile::tempfile`, say), once for the
/// process; false if it was already set. Without it, what the library puts aside stays in
/// memory.
pub fn set_scratch_file(make: fn() -> std::io::Result<std::fs::File>) -> bool {
    SCRATCH.set(make).is_ok()
}

/// A new scratch file, if the program said how to make one and making it worked.
pub(crate) fn scratch_file() -> Option<std::fs::File> {
    SCRATCH.get().and_then(|make| make().ok())
}
