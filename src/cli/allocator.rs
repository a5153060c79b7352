//! The global allocator: mimalloc, called so that ordinary Rust allocations take its fast path.
//!
//! `mimalloc::MiMalloc` passes every request to `mi_malloc_aligned`. For a size that is not a
//! power of two (24, 40, 48... bytes, most of what parsing allocates) that path finds no
//! "naturally aligned" block once the current page is used up and over-allocates from a larger
//! size class instead, which is both slower and wasteful. Every mimalloc block is aligned to
//! at least 8 bytes, so requests that need no more go to the plain functions; larger
//! alignments keep the aligned ones.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as ffi;

/// The alignment every mimalloc block has.
const PLAIN_ALIGNMENT: usize = 8;

pub struct Allocator;

// SAFETY: each method forwards to the mimalloc function with the same contract; the plain
// functions are used only where their guaranteed alignment satisfies the layout.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGNMENT {
            ffi::mi_malloc(layout.size()) as *mut u8
        } else {
            ffi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGNMENT {
            ffi::mi_zalloc(layout.size()) as *mut u8
        } else {
            ffi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn dealloc(&self, pointer: *mut u8, _layout: Layout) {
        ffi::mi_free(pointer as *mut c_void)
    }

    #[inline]
    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGNMENT {
            ffi::mi_realloc(pointer as *mut c_void, new_size) as *mut u8
        } else {
            ffi::mi_realloc_aligned(pointer as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (the 16th option in both its v2 and v3 headers;
/// libmimalloc-sys names no constant for it).
const PURGE_DELAY: ffi::mi_option_t = 15;

/// Has memory go back to the system a millisecond after it is freed, not 10 ms later, so
/// that what a command frees is not held while it allocates on: for `check`, what one
/// computation's checks free while the next is read; for the others, what parsing hands
/// between its threads and the text once lowered. Every command sets it: it lowers the peak
/// memory of `check` by a few percent. Not at once (0): a module lowered from pieces of
/// its text leaves pages partly free that its passes then fill and empty again, and giving
/// each back at once made the verifier a half slower (`docs/performance.md`).
pub fn purge_freed_memory_soon() {
    // SAFETY: sets a process-wide option, which mimalloc reads on each purge; any value is
    // valid for this option.
    unsafe { ffi::mi_option_set(PURGE_DELAY, 1) }
}

/// Gives back to the system what the process has freed, now, including what threads that
/// have ended left behind.
pub fn return_freed_memory() {
    // SAFETY: a collection of mimalloc's own state, valid at any time on any thread.
    unsafe { ffi::mi_collect(true) }
}

#[cfg(test)]
mod tests {
    /// Sizes across the small, medium and large size classes, with every alignment Rust types
    /// ask for: each block is aligned and writable, zeroed when asked, and keeps its contents
    /// when it grows or shrinks.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        use super::{Allocator, GlobalAlloc, Layout};
        let layout_of = |size, align| match Layout::from_size_align(size, align) {
            Ok(layout) => layout,
            Err(e) => panic!("{size} bytes aligned to {align}: {e}"),
        };
        let sizes = (1..=512)
            .chain((520..=8192).step_by(72))
            .chain([65_536, 1 << 20]);
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = layout_of(size, align);
                for new_size in [size / 2 + 1, size * 3] {
                    // SAFETY: the layout's size is not zero, and every access stays within
                    // the block's current size.
                    unsafe {
                        let zeroed = Allocator.alloc_zeroed(layout);
                        assert_eq!(zeroed as usize % align, 0, "zeroed {size}, {align}");
                        let bytes = std::slice::from_raw_parts(zeroed, size);
                        assert!(bytes.iter().all(|&b| b == 0), "zeroed {size}, {align}");
                        Allocator.dealloc(zeroed, layout);

                        let block = Allocator.alloc(layout);
                        assert_eq!(block as usize % align, 0, "alloc {size}, {align}");
                        std::ptr::write_bytes(block, 0xa5, size);
                        let moved = Allocator.realloc(block, layout, new_size);
                        assert_eq!(moved as usize % align, 0, "realloc {size}->{new_size}");
                        let kept = std::slice::from_raw_parts(moved, size.min(new_size));
                        assert!(
                            kept.iter().all(|&b| b == 0xa5),
                            "realloc {size}->{new_size}"
                        );
                        Allocator.dealloc(moved, layout_of(new_size, align));
                    }
                }
            }
        }
    }
}
