//! Two threads: which stages take a second one and from what size of input, where the input
//! is cut between the two, and how they are run and joined (`join`).
//!
//! Every two-thread path gives exactly what one thread gives, module and errors alike; tests
//! compare the two ways with a threshold of 0 (two threads whatever the size) against
//! `usize::MAX` (one thread). This module knows no HLO: where a computation or an instruction
//! line starts in the text is `syntax`'s to find, and the layers above hand what it finds to
//! the arithmetic here.
//!
//! Parsing and lowering a module, verifying one and printing one take a second thread.
//! `check` does not: on modules the benches were not tuned on, it was no faster on two
//! threads than on one, even with the other core free. Nor does parsing to a syntax tree
//! alone, which the commands do whole only for text with errors, which is never cut.
//!
//! A second thread pays only where the other core is free and the input keeps both threads
//! busy far longer than the second costs to start. Where another process keeps the other
//! core busy, the second thread waits for it and the split only adds its own work (finding
//! the cut, joining the shares): a stage on two threads then takes up to about a quarter
//! longer than on one, whatever the input's size. The thresholds below keep inputs whose work is
//! not many times a thread's start on one thread; `docs/performance.md` has the figures.

use std::ops::Range;
use std::sync::{Mutex, OnceLock, PoisonError};

/// The stack of the second thread: as much as a main thread's and more, so that the deepest
/// input the limits allow (recursion in the recursive-ascent parser, in lowering and in
/// printing) fits there even in a debug build, which takes several times the 2 MiB a thread
/// gets by default. Only the pages touched count as memory.
const SPAWNED_STACK_BYTES: usize = 16 << 20;

/// Whether the machine can run a second thread beside this one, asked once: on one CPU, two
/// threads take turns, and the split only adds its own work.
fn second_cpu() -> bool {
    static SECOND_CPU: OnceLock<bool> = OnceLock::new();
    *SECOND_CPU.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// A stage's threshold as the library applies it: `min` where the machine has a second CPU,
/// else `usize::MAX` (one thread, whatever the size). The functions that take a threshold
/// follow the one they are given, so that tests cut small inputs on any machine.
pub(crate) fn threshold(min: usize) -> usize {
    if second_cpu() {
        min
    } else {
        usize::MAX
    }
}

/// Runs `first` on this thread and `second` on a second one, at once, and gives both
/// results. Where no second thread is to be had (the machine has one CPU, or the system
/// refuses one), both run on this thread, `second` first, as the second thread would have
/// started first: so `second` must not wait on `first` (a channel between them has room for
/// all that `second` sends). A panic on the second thread goes on on this one.
pub(crate) fn join<A, B>(first: impl FnOnce() -> A, second: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    if !second_cpu() {
        let second = second();
        return (first(), second);
    }
    // The second thread takes `second` from here; when it cannot be started, this one does.
    let slot = Mutex::new(Some(second));
    let take = || slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    const ONCE: &str = "`second` is taken once, by one thread";
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("second-thread".into())
            .stack_size(SPAWNED_STACK_BYTES)
            .spawn_scoped(scope, || take().map(|second| second()));
        match spawned {
            Ok(handle) => {
                let first = first();
                match handle.join() {
                    Ok(second) => (first, second.expect(ONCE)),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            Err(_) => {
                let second = take().expect(ONCE)();
                (first(), second)
            }
        }
    })
}

/// What starting a second thread and joining it costs (tens of microseconds: a system call
/// to map its stack, the scheduler waking it on the other core, caches it starts cold), in
/// the work one thread does meanwhile: parsing and lowering this many bytes of text...
const START_IN_BYTES_PARSED: usize = 8 << 10;

/// ... or verifying this many instructions...
const START_IN_INSTRUCTIONS_VERIFIED: usize = 160;

/// ... or printing this many.
const START_IN_INSTRUCTIONS_PRINTED: usize = 400;

/// A stage takes a second thread once its input takes one thread this many times what
/// starting the second costs: the start then costs at most a sixteenth of the work, where
/// a second thread with a core of its own saves up to about a third of it.
const WORK_PER_START: usize = 16;

/// Parsing and lowering take a second thread from this many bytes of text.
pub const PARSE_MIN_BYTES: usize = WORK_PER_START * START_IN_BYTES_PARSED;

/// Verifying takes a second thread from this many instructions; it starts one twice, for the
/// module's structure and then for its meaning.
pub const VERIFY_MIN_INSTRUCTIONS: usize = WORK_PER_START * 2 * START_IN_INSTRUCTIONS_VERIFIED;

/// Printing takes a second thread from this many instructions, when its computations make
/// two shares near even ([`print_cut`]).
pub const PRINT_MIN_INSTRUCTIONS: usize = WORK_PER_START * START_IN_INSTRUCTIONS_PRINTED;

/// Where to cut a module's text, `text[range]`, to parse and lower it on two threads, when it
/// has `min_bytes` or more; `None` when it is read on one. Its header and tables (the
/// preamble), which the second thread reads, end `preamble()` bytes into it, and
/// `computation_start_near(offset)` finds the start of the computation nearest `offset`
/// bytes into it (syntax's to find).
pub(crate) fn parse_cuts(
    text: &str,
    range: Range<usize>,
    min_bytes: usize,
    preamble: impl FnOnce() -> usize,
    computation_start_near: impl FnOnce(usize) -> Option<usize>,
) -> Option<ParseCuts> {
    let bytes = text.as_bytes().get(range.clone())?;
    if bytes.len() < min_bytes.max(2) {
        return None;
    }
    let preamble = preamble();
    // The middle, moved later by the preamble, which the second thread reads as well as its
    // half, and earlier by a sixty-fourth of the text, as this thread joins the halves after.
    let middle = (bytes.len() / 2)
        .saturating_add(preamble)
        .saturating_sub(bytes.len() / 64);
    let halves = computation_start_near(middle).filter(|&cut| halves_are_balanced(range, cut));
    Some(ParseCuts {
        halves,
        tail_ahead: tail_ahead_offset(bytes, preamble),
    })
}

/// Where [`parse_cuts`] cuts a module's text, in the order to try: each is given up when the
/// parts do not read on their own.
pub(crate) struct ParseCuts {
    /// In two halves at the start of a computation, when there is one near the middle that
    /// leaves neither thread most of the work.
    pub(crate) halves: Option<usize>,
    /// Else (a module that is mostly one computation) at the first instruction line this
    /// many bytes into the text or after, the rest read ahead on the other thread.
    pub(crate) tail_ahead: usize,
}

/// Whether cutting `range` at `cut` leaves each half at most two thirds of the text. Two
/// halves take as long as the larger; past that share, cutting inside a computation and
/// reading the rest ahead ([`tail_ahead_offset`]) keeps the threads closer to even.
fn halves_are_balanced(range: Range<usize>, cut: usize) -> bool {
    let larger = cut
        .saturating_sub(range.start)
        .max(range.end.saturating_sub(cut));
    at_most_two_thirds(larger, range.len())
}

/// How far into `text`, a module's text whose preamble takes its first `preamble` bytes, to
/// cut it at an instruction line: this thread reads and lowers the text before the cut, then
/// places the lines the other thread has read and lowered as far as it could without their
/// computation. Placing a line takes less than lowering it, so this thread's share is the
/// smaller, by [`tail_ahead_percent`] of the text; the other thread also reads the
/// preamble, which costs about twice what instruction lines of its length do, so the cut
/// moves later by twice its length.
fn tail_ahead_offset(text: &[u8], preamble: usize) -> usize {
    (text.len() / 100 * tail_ahead_percent(text)).saturating_add(preamble.saturating_mul(2))
}

/// The share of [`tail_ahead_offset`]'s text this thread reads, in percent. Reading costs
/// about the same per byte, placing the same per line, so the longer the lines, the less
/// placing the rest costs this thread and the later the cut: 35% for lines of 93 bytes, a
/// sixth of a percent more per byte longer, between 30% and 50%. The lines are measured in
/// a sample from the middle, as counting every line would cost a pass over the text.
fn tail_ahead_percent(text: &[u8]) -> usize {
    const SAMPLE_BYTES: usize = 1 << 16;
    let sample_start = (text.len() / 2).saturating_sub(SAMPLE_BYTES / 2);
    let sample_end = sample_start.saturating_add(SAMPLE_BYTES).min(text.len());
    let sample = &text[sample_start..sample_end];
    let lines = memchr::memchr_iter(b'\n', sample).count().max(1);
    let line_bytes = sample.len() / lines;
    let percent = 35 + (line_bytes as isize - 93) / 6;
    percent.clamp(30, 50) as usize
}

/// Where to cut a module's computations, of `sizes` instructions each in order, in two
/// shares of whole computations: the index of the second share's first computation, chosen
/// so that the larger share has as few instructions as whole computations allow.
pub(crate) fn balanced_cut(sizes: impl Iterator<Item = usize> + Clone) -> usize {
    let total: usize = sizes.clone().sum();
    let mut before = 0;
    for (index, size) in sizes.clone().enumerate() {
        let after = before + size;
        if after >= total / 2 {
            let cut_after = after.max(total - after);
            let cut_before = before.max(total - before);
            return if cut_after <= cut_before {
                index + 1
            } else {
                index
            };
        }
        before = after;
    }
    sizes.count()
}

/// Where to cut a module's computations, of `sizes` instructions each in order, to print
/// them on two threads, each printing whole computations: the index of the second share's
/// first computation (as `balanced_cut` gives it), when they have `min_instructions` or
/// more and neither share has more than two thirds of them; else `None`, as two threads
/// then take about as long as one and add the second's start and the joining of the texts.
pub fn print_cut(
    sizes: impl Iterator<Item = usize> + Clone,
    min_instructions: usize,
) -> Option<usize> {
    let total: usize = sizes.clone().sum();
    if total < min_instructions.max(1) {
        return None;
    }
    let cut = balanced_cut(sizes.clone());
    let first: usize = sizes.take(cut).sum();
    at_most_two_thirds(first.max(total - first), total).then_some(cut)
}

/// Whether a share of `part` out of `whole` is at most two thirds of it.
fn at_most_two_thirds(part: usize, whole: usize) -> bool {
    part.saturating_mul(3) <= whole.saturating_mul(2)
}

/// Where to cut a module's computations, of `sizes` instructions each in order, in two
/// shares of even instructions, cutting a computation where it must: the computation the
/// second share starts in, and how many of its instructions go to the first.
pub(crate) fn even_cut(sizes: impl Iterator<Item = usize> + Clone) -> (usize, usize) {
    let total: usize = sizes.clone().sum();
    let mut before = 0;
    for (index, size) in sizes.enumerate() {
        let after = before + size;
        if after >= total / 2 {
            return (index, total / 2 - before);
        }
        before = after;
    }
    (0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_gives_both_results() {
        let text = "two threads";
        assert_eq!(
            join(|| text.len(), || text.to_uppercase()),
            (11, "TWO THREADS".into())
        );
    }

    #[test]
    fn a_panic_on_the_second_thread_goes_on_on_this_one() {
        let joined = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("second") }));
        assert!(joined.is_err());
    }

    #[test]
    fn shares_of_whole_computations_leave_the_larger_as_small_as_they_can() {
        assert_eq!(balanced_cut([10, 10].into_iter()), 1);
        assert_eq!(balanced_cut([1, 10, 1].into_iter()), 2);
        assert_eq!(balanced_cut([4, 1, 1, 1, 1].into_iter()), 1);
        assert_eq!(balanced_cut([5].into_iter()), 1);
        assert_eq!(balanced_cut([].into_iter()), 0);
        assert_eq!(even_cut([3, 5, 2].into_iter()), (1, 2));
        // Printing takes two threads only for shares near even, from its threshold on.
        assert_eq!(print_cut([10, 10].into_iter(), 0), Some(1));
        assert_eq!(print_cut([10, 10].into_iter(), 21), None);
        assert_eq!(print_cut([1, 10, 1].into_iter(), 0), None);
        assert_eq!(print_cut([4, 1, 1, 1, 1].into_iter(), 0), Some(1));
        assert_eq!(even_cut([10].into_iter()), (0, 5));
    }

    #[test]
    fn halves_are_cut_near_the_middle_moved_for_the_preamble_or_not_at_all() {
        assert!(halves_are_balanced(0..90, 30));
        assert!(!halves_are_balanced(0..90, 29));
        let text = "x".repeat(6400);
        assert!(parse_cuts(&text, 0..6400, 6401, || 0, |_| Some(3200)).is_none());
        // The middle moves later by the preamble and earlier by a sixty-fourth.
        let mut asked = None;
        let cuts = parse_cuts(
            &text,
            0..6400,
            0,
            || 100,
            |at| {
                asked = Some(at);
                Some(at)
            },
        );
        assert_eq!(asked, Some(3200 + 100 - 100));
        assert_eq!(cuts.as_ref().and_then(|cuts| cuts.halves), Some(3200));
        // A cut that leaves one thread most of the text is not taken.
        let cuts = parse_cuts(&text, 0..6400, 0, || 0, |_| Some(500));
        assert_eq!(cuts.and_then(|cuts| cuts.halves), None);
    }

    #[test]
    fn the_longer_the_lines_the_later_the_cut_inside_a_computation() {
        let lines = |bytes: usize| format!("{}\n", "x".repeat(bytes - 1)).repeat(1000);
        assert_eq!(tail_ahead_percent(lines(93).as_bytes()), 35);
        assert_eq!(tail_ahead_percent(lines(132).as_bytes()), 41);
        assert_eq!(tail_ahead_percent(lines(10).as_bytes()), 30);
        assert_eq!(tail_ahead_percent(lines(400).as_bytes()), 50);
        let text = lines(93);
        assert_eq!(
            tail_ahead_offset(text.as_bytes(), 50),
            93_000 / 100 * 35 + 100
        );
    }
}
