//! Every file of `../shared/corpus` (skipped, saying so, where it is absent), cut and edited
//! at many points: prefixes (mid-token, mid-character) and seeded random byte edits
//! (deletions, inserted brackets, quotes, digits and multi-byte characters, duplicated and
//! swapped ranges). Each case goes through everything the library does
//! (`common::run_everything`) and must give `Ok` or clean diagnostics, never a panic; a case
//! that runs longer than [`HANG`] stops the test binary, naming the case.
//!
//! The generator is seeded from each file's name, so every failure names a case that
//! reproduces; `HLO_MUTATE=<part of a file name>` runs only the matching files, and
//! `HLO_MUTATE_DUMP=<dir>` writes each failing case's text there.

mod common;

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Bytes of input each file's cases may add up to, roughly: small files get
/// [`MOST_CASES`], the 2–4 MB ones [`FEWEST_CASES`], which keeps the test to about a minute.
const BYTES_PER_FILE: usize = 3 << 20;
const MOST_CASES: usize = 64;
const FEWEST_CASES: usize = 4;

/// Far beyond the slowest case (a whole 4 MB module through every stage, on a loaded
/// machine, takes seconds); past it the case is taken to hang.
const HANG: Duration = Duration::from_secs(300);

/// xorshift64*: tiny and deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform enough in `0..n`; 0 when `n` is 0.
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// FNV-1a of the file name: each file's cases stay the same when other files change.
fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Pieces an edit may insert: brackets, quotes, digits, separators, words that mean
/// something to the parser, and multi-byte characters.
const INSERTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\"",
    "'",
    "0",
    "9",
    "-1",
    "99999999999999999999",
    ",",
    "=",
    ":",
    "%",
    "#",
    "/*",
    "*/",
    "//",
    "\n",
    " ",
    "ROOT ",
    "ENTRY ",
    "{1,0:T(8,128)}",
    "f32[]",
    "tuple(",
    "é",
    "€",
    "😀",
];

#[derive(Clone, Debug)]
enum Edit {
    /// The first `n` bytes.
    Prefix(usize),
    /// A multi-byte character inserted at the offset, and the text cut one byte into it.
    CutInCharacter(usize),
    Delete(usize, usize),
    Insert(usize, &'static str),
    /// `start..end` written again at `at`.
    Duplicate(usize, usize, usize),
    /// The two ranges `a..a+len` and `b..b+len` (`a + len <= b`) exchanged.
    Swap(usize, usize, usize),
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Edit::Prefix(n) => write!(f, "cut after {n} bytes"),
            Edit::CutInCharacter(at) => write!(f, "cut one byte into a `€` inserted at byte {at}"),
            Edit::Delete(a, b) => write!(f, "delete bytes {a}..{b}"),
            Edit::Insert(at, s) => write!(f, "insert {s:?} at byte {at}"),
            Edit::Duplicate(a, b, at) => write!(f, "copy bytes {a}..{b} to byte {at}"),
            Edit::Swap(a, b, len) => write!(f, "swap {len} bytes at {a} and at {b}"),
        }
    }
}

impl Edit {
    fn random(rng: &mut Rng, len: usize) -> Edit {
        let at = rng.below(len + 1);
        let longest = if rng.below(4) == 0 { 256 } else { 8 };
        let span = 1 + rng.below(longest);
        match rng.below(6) {
            0 => Edit::Delete(at, (at + span).min(len)),
            1 | 2 => Edit::Insert(at, INSERTS[rng.below(INSERTS.len())]),
            3 => {
                let start = rng.below(len + 1);
                Edit::Duplicate(start, (start + span).min(len), at)
            }
            4 if len >= 2 * span => {
                let a = rng.below(len - 2 * span + 1);
                let b = a + span + rng.below(len - a - 2 * span + 1);
                Edit::Swap(a, b, span)
            }
            _ => Edit::CutInCharacter(at),
        }
    }

    fn apply(&self, text: &[u8]) -> Vec<u8> {
        let mut out;
        match *self {
            Edit::Prefix(n) => out = text[..n].to_vec(),
            Edit::CutInCharacter(at) => {
                out = text[..at].to_vec();
                out.push("€".as_bytes()[0]);
            }
            Edit::Delete(a, b) => {
                out = text[..a].to_vec();
                out.extend_from_slice(&text[b..]);
            }
            Edit::Insert(at, piece) => {
                out = text[..at].to_vec();
                out.extend_from_slice(piece.as_bytes());
                out.extend_from_slice(&text[at..]);
            }
            Edit::Duplicate(a, b, at) => {
                out = text[..at].to_vec();
                out.extend_from_slice(&text[a..b]);
                out.extend_from_slice(&text[at..]);
            }
            Edit::Swap(a, b, len) => {
                out = text.to_vec();
                let (first, second) = out.split_at_mut(b);
                first[a..a + len].swap_with_slice(&mut second[..len]);
            }
        }
        out
    }
}

/// The cases of one file: evenly spread prefixes (most of them mid-token) and random edits.
fn cases(name: &str, len: usize) -> Vec<Edit> {
    let count = (BYTES_PER_FILE / len.max(1)).clamp(FEWEST_CASES, MOST_CASES);
    let mut rng = Rng::new(seed_of(name));
    let mut edits = Vec::with_capacity(count);
    let prefixes = count / 2;
    for i in 0..prefixes {
        // Jittered so that the cuts do not line up with the text's own period.
        let base = len * i / prefixes;
        let jitter = rng.below(len / prefixes + 1);
        edits.push(Edit::Prefix((base + jitter).min(len)));
    }
    while edits.len() < count {
        edits.push(Edit::random(&mut rng, len));
    }
    edits
}

/// What the watchdog sees: the case running and since when.
type Running = Arc<Mutex<Option<(String, Instant)>>>;

fn watchdog(running: &Running) {
    let running = Arc::clone(running);
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(1));
        let guard = running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((case, since)) = guard.as_ref() {
            if since.elapsed() > HANG {
                eprintln!("hang: {case} has run for more than {HANG:?}");
                std::process::exit(1);
            }
        }
    });
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs every case of every `.hlo` file in `folder`; panics listing the failures.
fn mutate_folder(folder: &str) {
    let Some(dir) = common::corpus_dir(folder) else {
        return;
    };
    let filter = std::env::var("HLO_MUTATE").unwrap_or_default();
    let running: Running = Arc::new(Mutex::new(None));
    watchdog(&running);
    let started = Instant::now();
    let (mut total, mut failures) = (0, Vec::new());
    for path in common::files(&dir, "hlo") {
        let name = format!(
            "{folder}/{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
        );
        if !name.contains(&filter) {
            continue;
        }
        let original = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, edit) in cases(&name, original.len()).into_iter().enumerate() {
            let case = format!("{name} case {k} ({edit})");
            *running.lock().unwrap_or_else(|e| e.into_inner()) =
                Some((case.clone(), Instant::now()));
            let bytes = edit.apply(&original);
            let outcome = std::panic::catch_unwind(|| run_case(&bytes));
            total += 1;
            let failure = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(problem)) => format!("{case}: {problem}"),
                Err(panic) => format!("{case}: panicked: {}", panic_message(&*panic)),
            };
            failures.push(failure);
            if let Ok(dump) = std::env::var("HLO_MUTATE_DUMP") {
                let file = format!("{}.case{k}.hlo", name.replace('/', "__"));
                let _ = std::fs::write(Path::new(&dump).join(file), &bytes);
            }
        }
    }
    *running.lock().unwrap_or_else(|e| e.into_inner()) = None;
    println!(
        "{folder}: {total} cases in {:.1} s, {} failed",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Bytes that are not UTF-8 (a cut inside a character) cannot reach the library as text; the
/// CLI reads files as UTF-8 and reports the error. Their lossy reading, with U+FFFD where
/// the character was cut, is run instead. Files split at `// -----` are run part by part.
fn run_case(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes);
    for range in hlo_layout::syntax::split_modules(&text) {
        let part = text
            .get(range)
            .ok_or("split_modules gave a range off char boundaries")?;
        common::run_everything(part)?;
    }
    Ok(())
}

#[test]
fn mutated_jax_modules() {
    mutate_folder("jax");
}

#[test]
fn mutated_large_modules() {
    mutate_folder("large");
}

#[test]
fn mutated_xla_tests() {
    mutate_folder("xla-tests");
}

#[test]
fn mutated_xla_parser_tests() {
    mutate_folder("xla-parser-tests");
}

#[test]
fn mutated_xla_parser_rejects() {
    mutate_folder("xla-parser-bad");
}

#[test]
fn edits_stay_inside_the_text() {
    // The generator itself: every edit of every length applies without slicing out of range.
    let text = b"ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
    let mut rng = Rng::new(7);
    for len in 0..text.len() {
        for _ in 0..200 {
            let edit = Edit::random(&mut rng, len);
            let _ = edit.apply(&text[..len]);
        }
        for edit in cases("x", len) {
            let _ = edit.apply(&text[..len]);
        }
    }
}

#[test]
fn regression_inputs_go_through_everything() {
    // What fuzzing and real modules found, unedited: each through the same stages as a case.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/regressions");
    let inputs = common::files(&dir, "hlo");
    assert!(
        !inputs.is_empty(),
        "no regression inputs in {}",
        dir.display()
    );
    for path in inputs {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(failure) = run_case(&bytes) {
            panic!("{}: {failure}", path.display());
        }
    }
}
