//! Names as lowering gives and reads them: the words XLA's lexer reserves (keywords and
//! element types, refused as names), the names XLA's parser gives computations written in
//! place (`_`, `_.1`, ...), and the lookup of a called computation's name among those
//! defined above its caller.
//!
//! Invariant: a name given a computation written in place is one no computation read at the
//! top level has; a name resolves only to a computation above the one that uses it.

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use crate::ir::module::{Computation, ComputationId};
use crate::syntax::ast::{self, Span};

/// Words XLA's lexer reads as keywords: written bare, they cannot name anything.
const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "inf",
    "nan",
    "HloModule",
    "ENTRY",
    "ROOT",
    "maximal",
    "replicated",
    "manual",
    "unknown",
    "unreduced",
    "last_tile_dim_replicate",
    "shard_as",
    "shard_like",
    "FileNames",
    "FunctionNames",
    "FileLocations",
    "StackFrames",
];

/// What a bare word is to XLA's lexer when it is not a name.
#[derive(Clone, Copy, PartialEq)]
enum Reserved {
    Keyword,
    ElementType,
}

/// Keywords and element type names, looked up once per instruction name.
static RESERVED: std::sync::LazyLock<FxHashMap<&'static str, Reserved>> =
    std::sync::LazyLock::new(|| {
        let types = crate::ir::PrimitiveType::ALL
            .iter()
            .map(|t| (t.name(), Reserved::ElementType));
        let keywords = KEYWORDS.iter().map(|&k| (k, Reserved::Keyword));
        keywords.chain(types).collect()
    });

/// Why XLA refuses `name` for an instruction or computation, if it does: a keyword or an
/// element type written bare is not a name to its lexer ("expects name"), and even with `%`
/// an element type's name is illegal.
pub(super) fn reserved_name(name: &ast::Name<'_>, what: &str) -> Option<String> {
    let text = name.text;
    // No reserved word has a `.` or `-`, and most names have one (`add.5`): looking for
    // them is cheaper than the lookup every line would otherwise make. From the end, where
    // XLA's `.N` suffix is (`convert_element_type.2165`).
    if text.bytes().rev().any(|b| matches!(b, b'.' | b'-')) {
        return None;
    }
    match RESERVED.get(text)? {
        Reserved::ElementType => Some(format!(
            "illegal {what} name: {text}; XLA reserves element type names (suggest renaming \
             to: {text}_)"
        )),
        Reserved::Keyword => (!name.percent).then(|| {
            format!("expects name: `{text}` is a keyword in HLO text; write `%{text}` or rename it")
        }),
    }
}

/// Names each computation written in place as XLA's parser does: `_`, then `_.1`, `_.2`, ...
/// in the order they closed, skipping names the module already uses.
pub(super) fn name_in_place_computations(
    computations: &mut [Computation],
    named: &FxHashMap<CompactString, (ComputationId, Span)>,
) {
    let mut suffix = 0u64;
    for computation in computations.iter_mut().filter(|c| c.in_place) {
        loop {
            let name = match suffix {
                0 => "_".to_string(),
                n => format!("_.{n}"),
            };
            suffix += 1;
            if !named.contains_key(name.as_str()) {
                computation.name = name.into();
                break;
            }
        }
    }
}

/// The computation `names` gives for `name`, if it is above computation `id`.
pub(super) fn computation_above(
    names: &FxHashMap<CompactString, (ComputationId, Span)>,
    name: &str,
    id: ComputationId,
) -> Option<ComputationId> {
    names
        .get(name)
        .map(|&(callee, _)| callee)
        .filter(|callee| callee.0 < id.0)
}

#[cfg(test)]
mod tests {
    /// `reserved_name` looks a name up only when it has no `.` or `-`.
    #[test]
    fn reserved_words_have_no_dot_or_dash() {
        for word in super::RESERVED.keys() {
            assert!(!word.contains(['.', '-']), "{word}");
        }
    }
}
