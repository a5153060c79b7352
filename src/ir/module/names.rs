//! The names of a module's instructions, as its computations share them: a table of their
//! hashes, which every computation handed out to edit is linked to, so that a name one of
//! them makes up is new in the whole module, as XLA's `NameUniquer` keeps it.
//!
//! Invariant: a linked table counts every name of every instruction of the module's
//! computations, once per instruction; a clone of a computation is linked to none.

use std::sync::Arc;

/// The names of every instruction of a module, shared by its computations, so that a name
/// one of them makes up is new in all of them, as XLA's module-wide `NameUniquer` keeps it.
/// Only hashes are kept: a hash that two names share makes a made-up name skip one that was
/// free, which costs nothing. The names counted when the table is made are a sorted vector,
/// eight bytes a name (a hash map of counts took seventeen a slot, most of a graph node's
/// worth of memory for every instruction once a pass edited); the few names edits add or
/// remove afterwards are counts in a map beside it.
#[derive(Debug, Default)]
pub(super) struct ModuleNames {
    /// The hash of every name counted when the table was made, sorted, repeats kept.
    counted: Vec<u64>,
    /// How many names of each hash were added (positive) or removed (negative) since.
    edits: rustc_hash::FxHashMap<u64, i64>,
    /// Next suffix to try per name stem, module-wide.
    pub(super) next_suffix: rustc_hash::FxHashMap<String, u64>,
}

impl ModuleNames {
    /// The table of these names' hashes.
    pub(super) fn counting(mut hashes: Vec<u64>) -> ModuleNames {
        hashes.sort_unstable();
        ModuleNames {
            counted: hashes,
            ..ModuleNames::default()
        }
    }

    pub(super) fn add(&mut self, hash: u64) {
        self.edit(hash, 1);
    }

    pub(super) fn remove(&mut self, hash: u64) {
        self.edit(hash, -1);
    }

    fn edit(&mut self, hash: u64, by: i64) {
        let count = self.edits.entry(hash).or_insert(0);
        *count += by;
        if *count == 0 {
            self.edits.remove(&hash);
        }
    }

    pub(super) fn holds(&self, hash: u64) -> bool {
        let first = self.counted.partition_point(|&h| h < hash);
        let counted = self.counted[first..].partition_point(|&h| h == hash);
        let edited = self.edits.get(&hash).copied().unwrap_or(0);
        i64::try_from(counted)
            .unwrap_or(i64::MAX)
            .saturating_add(edited)
            > 0
    }
}

/// A computation's link to its module's [`ModuleNames`]; a clone is not in the module, so it
/// has none (a module that takes it links it anew).
#[derive(Default)]
pub(super) struct SharedNames(pub(super) Option<Arc<std::sync::Mutex<ModuleNames>>>);

// A table of every name's hash says nothing to a reader of a module's `Debug` text.
impl std::fmt::Debug for SharedNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.0.is_some() {
            "linked"
        } else {
            "unlinked"
        };
        write!(f, "SharedNames({state})")
    }
}

impl Clone for SharedNames {
    fn clone(&self) -> SharedNames {
        SharedNames(None)
    }
}

impl SharedNames {
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut ModuleNames) -> R) -> Option<R> {
        let shared = self.0.as_ref()?;
        // A panic while the lock was held cannot leave the counts half updated: each update
        // is one map operation.
        let mut names = shared.lock().unwrap_or_else(|e| e.into_inner());
        Some(f(&mut names))
    }
}

#[cold]
#[inline(never)]
#[track_caller]
/// `base` without a numeric suffix (`copy.3` -> `copy`), as XLA's `NameUniquer` reads it.
pub(super) fn name_stem(base: &str) -> &str {
    match base.rsplit_once('.') {
        Some((stem, suffix))
            if !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => base,
    }
}

/// The hash of an instruction name in [`Computation`]'s name index.
pub(super) fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

#[cfg(test)]
mod tests {
    use super::ModuleNames;

    #[test]
    fn a_name_is_held_while_any_instruction_has_it() {
        // Two instructions (in different computations) share the hash 7.
        let mut names = ModuleNames::counting(vec![9, 7, 3, 7]);
        assert!(names.holds(7) && names.holds(3) && names.holds(9));
        assert!(!names.holds(5) && !names.holds(0) && !names.holds(u64::MAX));
        names.remove(7);
        assert!(names.holds(7), "one instruction still has it");
        names.remove(7);
        assert!(!names.holds(7));
        names.add(7);
        assert!(names.holds(7));
        names.add(5);
        assert!(names.holds(5));
        names.remove(5);
        assert!(!names.holds(5));
        assert!(
            names.edits.len() == 1,
            "edits that cancel leave nothing behind"
        );
    }
}
