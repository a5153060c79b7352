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
//! usual way, which reports every error in order. So a valid module is read once and an
//! invalid one twice. A large module is verified on a second thread while the first reads
//! on, a few computations behind.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::module::{Computation, ComputationId};
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
/// it, which tests check over the corpus. Text of [`crate::syntax::PARALLEL_MIN_BYTES`] or
/// more is verified on a second thread.
#[doc(hidden)]
pub fn check_computation_by_computation(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
) -> Option<bool> {
    check_on(text, range, options, crate::syntax::PARALLEL_MIN_BYTES)
}

/// [`check_computation_by_computation`], verifying on a second thread when the text is at
/// least `min_bytes` long (`usize::MAX`: never), as tests compare.
#[doc(hidden)]
pub fn check_on(
    text: &str,
    range: std::ops::Range<usize>,
    options: &VerifyOptions,
    min_bytes: usize,
) -> Option<bool> {
    let invalid = AtomicBool::new(false);
    let checker = Checker::new(*options, &invalid);
    if range.len() < min_bytes {
        let (verdict, tree, lowering, checker) = read(text, range, Verifier::Inline(checker));
        return conclude(verdict, tree.as_ref(), lowering, checker?);
    }
    std::thread::scope(|scope| {
        // Room for two batches: the reader stays at most that far ahead.
        let (sender, receiver) = mpsc::sync_channel::<Vec<Closed<'_>>>(2);
        let spawned = std::thread::Builder::new()
            .name("check-verify".into())
            .stack_size(crate::SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut checker = checker;
                for batch in receiver {
                    for (id, name, computation) in batch {
                        checker.check(id, name, computation);
                    }
                }
                checker
            });
        let Ok(handle) = spawned else {
            // No thread to be had: this one verifies too.
            let checker = Checker::new(*options, &invalid);
            let (verdict, tree, lowering, checker) = read(text, range, Verifier::Inline(checker));
            return conclude(verdict, tree.as_ref(), lowering, checker?);
        };
        let verifier = Verifier::Thread {
            sender,
            invalid: &invalid,
            batch: Vec::new(),
            instructions: 0,
        };
        let (verdict, tree, lowering, _) = read(text, range, verifier);
        let checker = handle.join().ok()?;
        conclude(verdict, tree.as_ref(), lowering, checker)
    })
}

/// A computation lowering has closed: its id, its name in the text, and it.
type Closed<'s> = (ComputationId, &'s str, Computation);

/// Where computations go to be verified.
enum Verifier<'s, 'f> {
    Inline(Checker<'s, 'f>),
    /// A channel to the thread that verifies them, the flag it raises on an error, and the
    /// batch being gathered: computations go in batches of about [`BATCH_INSTRUCTIONS`]
    /// instructions, as handing over each small computation alone costs more than checking
    /// it.
    Thread {
        sender: mpsc::SyncSender<Vec<Closed<'s>>>,
        invalid: &'f AtomicBool,
        batch: Vec<Closed<'s>>,
        instructions: usize,
    },
}

const BATCH_INSTRUCTIONS: usize = 1024;

/// Parses and lowers `text[range]`, handing each computation to `verifier`; gives what
/// reading found, the syntax tree (header and tables) unless the text has a syntax error,
/// the lowering, and the checker when it verified inline.
fn read<'s, 'f>(
    text: &'s str,
    range: std::ops::Range<usize>,
    verifier: Verifier<'s, 'f>,
) -> (
    Verdict,
    Option<ast::Module<'s>>,
    ModuleLowering<'s>,
    Option<Checker<'s, 'f>>,
) {
    let mut sink = Streaming {
        lowering: ModuleLowering::new(text),
        verifier,
        name: "",
        verdict: Verdict::Valid,
    };
    let tree = crate::syntax::parse_module_into(text, range, &mut sink).ok();
    let checker = match sink.verifier {
        Verifier::Inline(checker) => Some(checker),
        Verifier::Thread { sender, batch, .. } => {
            // Then dropping the sender ends the verifying thread's loop.
            if !batch.is_empty() && sender.send(batch).is_err() {
                sink.verdict = Verdict::Invalid;
            }
            None
        }
    };
    let verdict = match (&tree, sink.verdict) {
        (None, _) => Verdict::Invalid,
        (Some(tree), Verdict::Valid) if tree.instruction.is_some() => Verdict::CannotTell,
        (_, verdict) => verdict,
    };
    (verdict, tree, sink.lowering, checker)
}

/// The verdict on the whole module, once every computation is checked.
fn conclude(
    verdict: Verdict,
    tree: Option<&ast::Module<'_>>,
    lowering: ModuleLowering<'_>,
    checker: Checker<'_, '_>,
) -> Option<bool> {
    match verdict {
        Verdict::Valid => {}
        Verdict::Invalid => return Some(false),
        Verdict::CannotTell => return None,
    }
    if !checker.valid {
        return Some(false);
    }
    let tree = tree.filter(|_| !checker.out_of_step)?;
    let Some((attributes, entry)) = lowering.finish_header(tree) else {
        return Some(false);
    };
    let entry = checker.signatures.get(entry.0 as usize)?;
    Some(verify::header_problems(&attributes, &verify::Callee::from(entry)).is_empty())
}

/// What reading one computation at a time has found so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Valid,
    Invalid,
    /// The text has what this way does not handle, or an error lowering reports at the end.
    CannotTell,
}

/// Lowers computations as the parser hands them over and passes each on to be verified.
struct Streaming<'s, 'f> {
    lowering: ModuleLowering<'s>,
    verifier: Verifier<'s, 'f>,
    /// The name of the computation being read.
    name: &'s str,
    verdict: Verdict,
}

impl<'s> ast::Sink<'s> for Streaming<'s, '_> {
    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        if self.verdict == Verdict::Valid {
            self.name = head.name.text;
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
        let Some((id, computation)) = self.lowering.take_last_closed() else {
            self.verdict = Verdict::CannotTell;
            return;
        };
        match &mut self.verifier {
            Verifier::Inline(checker) => {
                checker.check(id, self.name, computation);
                if !checker.valid {
                    self.verdict = Verdict::Invalid;
                }
            }
            Verifier::Thread {
                sender,
                invalid,
                batch,
                instructions,
            } => {
                *instructions += computation.len();
                batch.push((id, self.name, computation));
                if *instructions >= BATCH_INSTRUCTIONS {
                    *instructions = 0;
                    // A verifier that found an error, or has gone, needs nothing more.
                    if invalid.load(Ordering::Relaxed)
                        || sender.send(std::mem::take(batch)).is_err()
                    {
                        self.verdict = Verdict::Invalid;
                    }
                }
            }
        }
    }
}

/// Verifies computations in the order they are read, keeping each one's signature.
struct Checker<'s, 'f> {
    options: VerifyOptions,
    /// Of the computations checked, by id.
    signatures: Vec<Signature>,
    /// Their names (the first of a duplicated name, as a whole module finds it).
    names: FxHashMap<&'s str, ComputationId>,
    /// The computations `async-start`s call: each may be called by one only.
    async_callees: FxHashSet<String>,
    valid: bool,
    /// A computation came with an id other than the next: this way cannot tell.
    out_of_step: bool,
    /// Raised on the first error, for the reader to stop.
    invalid: &'f AtomicBool,
}

impl<'s, 'f> Checker<'s, 'f> {
    fn new(options: VerifyOptions, invalid: &'f AtomicBool) -> Checker<'s, 'f> {
        Checker {
            options,
            signatures: Vec::new(),
            names: FxHashMap::default(),
            async_callees: FxHashSet::default(),
            valid: true,
            out_of_step: false,
            invalid,
        }
    }

    fn check(&mut self, id: ComputationId, name: &'s str, computation: Computation) {
        if !self.valid || self.out_of_step {
            return;
        }
        if id.0 as usize != self.signatures.len() {
            self.out_of_step = true;
            return;
        }
        let names = &self.names;
        let find = |name: &str| names.get(name).copied();
        self.valid =
            verify::verify_computation(&computation, &self.signatures, &find, &self.options)
                .is_empty();
        for callee in verify::async_start_callees(&computation) {
            self.valid &= self.async_callees.insert(callee.to_string());
        }
        if !self.valid {
            self.invalid.store(true, Ordering::Relaxed);
        }
        self.signatures.push(Signature::of(&computation));
        self.names.entry(name).or_insert(id);
    }
}
