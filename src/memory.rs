//! The process's allocator, as far as the library needs it. The library knows no allocator;
//! a program may tell it how to give freed memory back to the system at once
//! ([`set_release_freed_memory`]), which it asks for where it has just freed much and is
//! about to allocate as much: between the pieces of a module lowered piece by piece
//! ([`crate::parse_module_in_pieces`]). Left to itself, an allocator may keep those pages
//! for a while, and they add up to the peak.

use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();

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
