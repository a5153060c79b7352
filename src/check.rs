//! Checking a module (parse, lower, verify) in memory that stays near the size of its text.
//!
//! [`check_module_range`] gives exactly what [`crate::parse_module_range`] then
//! [`crate::verify::verify`] give, without holding the module. XLA's text defines every
//! computation above its callers, so each computation can be verified as soon as it is read,
//! against the signatures of those above it, and then reduced to its signature (name,
//! parameters, root). Lowering's memo of shapes and attribute texts is emptied as it grows.
//! What stays is the text, the signatures (about a hundred bytes each) and the computation
//! being read. A module whose instructions are spread over many computations, as in an
//! optimized dump, then takes about its text's size again on top of the text, where the
//! whole IR takes three to four times it; a module that is mostly one computation still
//! needs that computation's IR.
//!
//! Nothing is reported from that pass: when it finds any problem, or text it does not
//! handle (a lone instruction, computations written in place), the module is read again the
//! usual way, which reports every error in order. So a valid module is read once, in one
//! thread, and an invalid one twice.

use crate::lower::ModuleLowering;
use crate::syntax::ast;
use crate::verify::{self, Signature, VerifyOptions};
use crate::Error;

/// Parses, lowers and verifies `text[range]`; every error is returned, in the order
/// [`crate::parse_module_range`] and [`crate::verify::verify`] give them.
pub fn check_module_range(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
) -> Result<(), Vec<Error>> {
    if check_computation_by_computation(text, range.clone(), options) == Some(true) {
        return Ok(());
    }
    let module = crate::parse_module_range(text, range)?;
    verify::verify(&module, options).map_err(|errors| errors.into_iter().map(Error::from).collect())
}

/// Checks `text[range]` one computation at a time: `Some(true)` when the module is valid,
/// `Some(false)` when it is not, and `None` when this way cannot tell (see the module's
/// documentation). Whenever it tells, it agrees with parsing the module whole and verifying
/// it, which tests check over the corpus.
#[doc(hidden)]
pub fn check_computation_by_computation(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
) -> Option<bool> {
    let mut sink = Streaming {
        lowering: ModuleLowering::new(text),
        options: *options,
        signatures: Vec::new(),
        async_callees: rustc_hash::FxHashSet::default(),
        verdict: Verdict::Valid,
    };
    let Ok(tree) = crate::syntax::parse_module_into(text, range, &mut sink) else {
        return Some(false);
    };
    match sink.verdict {
        Verdict::Valid if tree.instruction.is_none() => {}
        Verdict::Invalid => return Some(false),
        _ => return None,
    }
    let Some((attributes, entry)) = sink.lowering.finish_header(&tree) else {
        return Some(false);
    };
    let entry = sink.signatures.get(entry.0 as usize)?;
    Some(verify::header_problems(&attributes, &verify::Callee::from(entry)).is_empty())
}

/// What checking one computation at a time has found so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Valid,
    Invalid,
    /// The text has what this way does not handle, or an error lowering reports at the end.
    CannotTell,
}

/// Lowers computations as the parser hands them over, verifies each and keeps only its
/// signature.
struct Streaming<'s> {
    lowering: ModuleLowering<'s>,
    options: VerifyOptions,
    /// Of the computations read so far, by id.
    signatures: Vec<Signature>,
    /// The computations `async-start`s call: each may be called by one only.
    async_callees: rustc_hash::FxHashSet<String>,
    verdict: Verdict,
}

impl<'s> ast::Sink<'s> for Streaming<'s> {
    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        if self.verdict == Verdict::Valid {
            self.lowering.begin_computation(head);
        }
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        if self.verdict == Verdict::Valid {
            self.lowering.instruction(instruction);
            self.lowering.trim_memo();
        }
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        if self.verdict != Verdict::Valid {
            return;
        }
        self.lowering.end_computation(attributes, end);
        let Streaming {
            lowering,
            options,
            signatures,
            async_callees,
            ..
        } = self;
        let checked = lowering.check_last_closed(|computation, id, find| {
            if id.0 as usize != signatures.len() {
                return None;
            }
            let mut valid =
                verify::verify_computation(&computation, signatures, find, options).is_empty();
            for name in verify::async_start_callees(&computation) {
                valid &= async_callees.insert(name.to_string());
            }
            signatures.push(Signature::of(&computation));
            Some(valid)
        });
        self.verdict = match checked.flatten() {
            Some(true) => Verdict::Valid,
            Some(false) => Verdict::Invalid,
            None => Verdict::CannotTell,
        };
    }
}
