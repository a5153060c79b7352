//! Parsing and lowering a module on two threads when it cannot be cut between computations
//! near its middle (a pre-optimization dump is mostly its entry computation): it is cut at
//! an instruction line instead. This thread reads and lowers the text before the cut, while
//! a second reads the text after it and lowers each line as far as it can without its
//! computation ([`Prelowering`]), which leaves this thread only to place it in the graph,
//! about half the work of lowering it. The second thread sends what it reads in batches.
//!
//! A long body is not read in two parts but in runs that alternate between the threads
//! (this thread's share of each as large as its share before the cut), so that what the
//! second thread has read and this one not yet placed is never much more than a run: read
//! in two parts, it was most of the body's lines, held at once beside the module.
//!
//! A line that cannot be taken so (an error, an operand that is not a name, a computation
//! written in place) goes over as it was read and is lowered where it is placed, so the
//! module and its errors are what one pass gives, in the same order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex, PoisonError};

use super::module::computation::PreparedOperand;
use super::module::prelower::{Prelowered, Prelowering};
use super::module::{LoweredPreamble, ModuleLowering};
use crate::syntax::ast::{self, Sink};

/// What the reading thread reads: a line lowered as far as it goes there
/// ([`Prelowering::prepare`]), or as read when it cannot be.
enum Event<'s> {
    Begin(ast::ComputationHead<'s>),
    Line(ast::Instruction<'s>),
    Lowered(Prelowered<'s>),
    End(Vec<ast::Attribute<'s>>, usize),
    /// The end of one of its runs of a long body ([`runs`]).
    RunEnd,
}

/// Events go over in batches of this many: handing each over alone costs more than lowering
/// it.
const BATCH_EVENTS: usize = 128;

/// A batch of events, and the operands of its lowered lines in order
/// ([`Prelowering::take_operands`]).
type Batch<'s> = (Vec<Event<'s>>, Vec<PreparedOperand<'s>>);

/// The reading thread's sink: lowers what it can and sends batches until told to stop.
struct ReadAhead<'s, 'f> {
    lines: Prelowering<'s>,
    sender: mpsc::Sender<Batch<'s>>,
    stopped: &'f AtomicBool,
    batch: Vec<Event<'s>>,
}

impl<'s> ReadAhead<'s, '_> {
    fn push(&mut self, event: Event<'s>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        self.batch.push(event);
        if self.batch.len() >= BATCH_EVENTS {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_EVENTS));
        if self
            .sender
            .send((batch, self.lines.take_operands()))
            .is_err()
        {
            // This thread's reader has gone: nothing more is wanted.
            self.stopped.store(true, Ordering::Relaxed);
        }
    }
}

impl<'s> Sink<'s> for ReadAhead<'s, '_> {
    fn begin_computation(&mut self, head: ast::ComputationHead<'s>) {
        self.push(Event::Begin(head));
    }

    fn instruction(&mut self, instruction: ast::Instruction<'s>) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        // Taken by reference, so that a line not taken goes on without having been moved
        // in and back out.
        match self.lines.prepare(&instruction) {
            Some(lowered) => {
                self.lines.spare.keep(instruction);
                self.push(Event::Lowered(lowered));
            }
            None => self.push(Event::Line(instruction)),
        }
    }

    fn end_computation(&mut self, attributes: Vec<ast::Attribute<'s>>, end: usize) {
        self.push(Event::End(attributes, end));
    }

    fn operand_vec(&mut self) -> Vec<ast::Operand<'s>> {
        self.lines.spare.operands()
    }

    fn attribute_vec(&mut self) -> Vec<ast::Attribute<'s>> {
        self.lines.spare.attributes()
    }
}

/// Parses `source[range]` cut at `cut`, the start of an instruction line inside a
/// computation body, into `lowering`: about as much text as comes before the cut on this
/// thread, the rest on a second one, ahead (see the module's documentation). `lowering`
/// hears what it would have heard from one parse.
///
/// The body holding the cut is read in alternating runs ([`runs`]): this thread reads a
/// run while the second reads the next ahead, and places it before reading its own next
/// run. The second thread, which has less to do a run, waits once it is [`RUNS_AHEAD`]
/// runs ahead of what this thread has placed ([`Pace`]), so what it has read and this
/// thread not yet placed stays small however long the body.
///
/// The second thread, which has less to do, also reads and lowers the header and tables
/// (see [`crate::syntax::preamble_end`]) when the module has them; the lowered preamble is
/// returned with the tree.
///
/// `None` when any part does not parse on its own without an error: only reading the
/// whole in one go can then tell what the text is, and `lowering`, which may have heard part
/// of it, must be dropped. Each part is read by the happy-path parser alone, as any syntax
/// error sends the caller the long way; so does an error lowering the preamble.
pub(crate) fn parse_with_tail_ahead<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    cut: usize,
    run_bytes: usize,
    lowering: &mut ModuleLowering<'s>,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    parse_paced(source, range, cut, run_bytes, lowering, &Pace::default())
}

/// [`parse_with_tail_ahead`], the second thread held back by `pace`.
fn parse_paced<'s>(
    source: &'s str,
    range: std::ops::Range<usize>,
    cut: usize,
    run_bytes: usize,
    lowering: &mut ModuleLowering<'s>,
    pace: &Pace,
) -> Option<(ast::Module<'s>, Option<LoweredPreamble>)> {
    if !(range.start < cut && cut < range.end && source.is_char_boundary(cut)) {
        return None;
    }
    let preamble_end = crate::syntax::preamble_end(source, range.clone())
        .filter(|&end| range.start < end && end < cut && source.is_char_boundary(end));
    let head_start = preamble_end.unwrap_or(range.start);
    let runs = runs(source, head_start..range.end, cut, run_bytes);
    // The channel has room for all the tail sends: the tail never waits for this thread,
    // and where no second thread is to be had it runs first on this one (`parallel::join`).
    let (sender, receiver) = mpsc::channel::<Batch<'s>>();
    let stopped = AtomicBool::new(false);
    let stopped = &stopped;
    let (first_run_end, later_runs) = runs.split_first()?;
    let first_run_end = *first_run_end;
    let read_tail = move || {
        let mut read_ahead = ReadAhead {
            lines: Prelowering::new(source),
            sender,
            stopped,
            batch: Vec::with_capacity(BATCH_EVENTS),
        };
        let mut run_start = first_run_end;
        let mut parsed = true;
        for (run, pair) in later_runs.chunks_exact(2).enumerate() {
            let (tail_run_end, head_run_end) = (pair[0], pair[1]);
            pace.wait_to_read(run);
            parsed = crate::syntax::parse_body_lines_into(
                source,
                run_start,
                tail_run_end,
                &mut read_ahead,
            );
            if !parsed {
                break;
            }
            read_ahead.push(Event::RunEnd);
            read_ahead.flush();
            run_start = head_run_end;
            if stopped.load(Ordering::Relaxed) {
                // The other thread failed to read its part: nothing more is wanted.
                break;
            }
        }
        // Not after a failure: this thread's sender must then go, as the other may be
        // waiting for the rest of the run that failed.
        let go_on = || !stopped.load(Ordering::Relaxed);
        parsed = parsed && go_on();
        if parsed {
            pace.wait_to_read(later_runs.len() / 2);
            parsed = go_on()
                && crate::syntax::parse_suffix_into(source, run_start, range.end, &mut read_ahead);
        }
        read_ahead.flush();
        // This thread's runs end here, sent or not: the other stops waiting for them.
        drop(read_ahead);
        let preamble = match preamble_end {
            Some(end) => {
                let tree = crate::syntax::parse_preamble(source, range.start..end);
                // `None` inside: the preamble does not read or lower alone.
                Some(tree.as_ref().and_then(LoweredPreamble::without_errors))
            }
            None => None,
        };
        (parsed, preamble)
    };
    let read_head_and_place = move || {
        let placing = pace.start_placing();
        let head = crate::syntax::parse_prefix_into(source, head_start, first_run_end, lowering);
        let mut batches = receiver.iter();
        let mut read = head.is_some();
        for pair in later_runs.chunks_exact(2) {
            let (tail_run_end, head_run_end) = (pair[0], pair[1]);
            read = read && place_run(&mut batches, lowering);
            if read {
                placing.placed_one();
            }
            read = read
                && crate::syntax::parse_body_lines_into(
                    source,
                    tail_run_end,
                    head_run_end,
                    lowering,
                );
            if !read {
                break;
            }
        }
        if read {
            // The tail's last run: the rest of the text.
            for (batch, operands) in batches {
                place_batch(batch, operands, lowering);
            }
        } else {
            // The tail's events are of no use: it stops sending them.
            stopped.store(true, Ordering::Relaxed);
        }
        // The second thread no longer waits on this one, which may have stopped early.
        drop(placing);
        head.filter(|_| read)
    };
    let (head, (tail_parsed, preamble)) = crate::parallel::join(read_head_and_place, read_tail);
    let head = head.filter(|_| tail_parsed)?;
    match preamble {
        // The head must then be computations alone, as the whole would have been read.
        Some(lowered) => {
            let computations_only = head.header.is_none() && head.tables.is_empty();
            Some((head, Some(lowered?))).filter(|_| computations_only)
        }
        None => Some((head, None)),
    }
}

/// Places a batch of the second thread's events in `lowering`, in order.
fn place_batch<'s>(
    batch: Vec<Event<'s>>,
    operands: Vec<PreparedOperand<'s>>,
    lowering: &mut ModuleLowering<'s>,
) {
    let mut operands = operands.into_iter();
    for event in batch {
        match event {
            Event::Begin(head) => lowering.begin_computation(head),
            Event::Line(instruction) => lowering.instruction(instruction),
            Event::Lowered(line) => lowering.prelowered(line, &mut operands),
            Event::End(attributes, end) => lowering.end_computation(attributes, end),
            Event::RunEnd => {}
        }
    }
}

/// Places the second thread's events up to the end of its current run; false when it
/// stopped before that run ended (it failed to read it).
fn place_run<'s>(
    batches: &mut impl Iterator<Item = Batch<'s>>,
    lowering: &mut ModuleLowering<'s>,
) -> bool {
    for (batch, operands) in batches {
        let run_ended = matches!(batch.last(), Some(Event::RunEnd));
        place_batch(batch, operands, lowering);
        if run_ended {
            return true;
        }
    }
    false
}

/// How many of its runs the second thread may have read that this thread has not yet
/// placed: two, so that the next is ready when this thread turns to it.
const RUNS_AHEAD: usize = 2;

/// Holds the second thread back while it is [`RUNS_AHEAD`] runs ahead of this thread's
/// placing, which is slower (it lowers its own runs in full and places the other's): left
/// free, it read most of the body ahead, and all of it was held at once.
///
/// Only while this thread places: where `parallel::join` runs the second thread's work
/// first on this thread, it must never wait.
#[derive(Default)]
struct Pace {
    state: Mutex<PaceState>,
    moved: Condvar,
}

#[derive(Default)]
struct PaceState {
    placing: bool,
    /// Runs of the second thread this thread has placed.
    placed: usize,
    /// The most runs the second thread had begun and this thread not placed, while it
    /// placed them.
    most_ahead: usize,
}

impl Pace {
    fn lock(&self) -> std::sync::MutexGuard<'_, PaceState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Called by this thread before it reads; placing ends when the guard drops, even by a
    /// panic, so that the second thread is never left waiting.
    fn start_placing(&self) -> Placing<'_> {
        self.lock().placing = true;
        Placing(self)
    }

    /// Called by the second thread before it reads its run `run` (counted from 0).
    fn wait_to_read(&self, run: usize) {
        let mut state = self.lock();
        while state.placing && state.placed + RUNS_AHEAD <= run {
            state = self
                .moved
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if state.placing {
            state.most_ahead = state.most_ahead.max(run + 1 - state.placed);
        }
    }
}

/// This thread placing: see [`Pace`].
struct Placing<'p>(&'p Pace);

impl Placing<'_> {
    /// Counts a run placed.
    fn placed_one(&self) {
        self.0.lock().placed += 1;
        self.0.moved.notify_one();
    }
}

impl Drop for Placing<'_> {
    fn drop(&mut self) {
        self.0.lock().placing = false;
        self.0.moved.notify_one();
    }
}

/// The text both threads read in a cycle of runs of a long body is about this long: short
/// enough that what the second thread reads ahead stays small, long enough that a run takes
/// far longer than handing one over.
pub(crate) const RUN_BYTES: usize = 256 << 10;

/// Where the runs of `source[range]` end, when this thread would read up to `cut` and the
/// second thread the rest: the first run (this thread's, from the start) ends at the first
/// offset; then the runs alternate, the second thread's first, each ending at the next
/// offset, and the second thread's last run is the rest of the text. There is always an
/// odd number of offsets: `[cut]` alone reads the two parts whole, as when the body holding
/// `cut` cannot be cut again.
///
/// The runs of the body that holds `cut` are about `run_bytes` long for this thread and
/// the second together, shared between them as the text before and after `cut` is, so each
/// thread reads as much as with the one cut. Every offset is an [`instruction_line_cut`] of
/// that body; any part that is not one fails to parse, and the caller reads the text whole.
///
/// [`instruction_line_cut`]: crate::syntax::instruction_line_cut
fn runs(source: &str, range: std::ops::Range<usize>, cut: usize, run_bytes: usize) -> Vec<usize> {
    let one_cut = vec![cut];
    let Some(bytes) = source.as_bytes().get(range.clone()) else {
        return one_cut;
    };
    let (Some(relative_cut), true) = (cut.checked_sub(range.start), run_bytes > 0) else {
        return one_cut;
    };
    // The body holding the cut: from after the computation that closes before it to the
    // line that closes it.
    let Some(body_end) = bytes
        .get(relative_cut..)
        .and_then(|rest| closing_lines(rest).next())
    else {
        return one_cut;
    };
    let body_end = relative_cut + body_end;
    let before = bytes.get(..relative_cut).unwrap_or_default();
    let after_previous = closing_lines(before).last().unwrap_or(0);
    let line_cut =
        |offset: usize| crate::syntax::instruction_line_cut(source, range.clone(), offset);
    let Some(body_start) = line_cut(after_previous).filter(|&start| start < cut) else {
        return one_cut;
    };
    let body_start = body_start - range.start;
    let body = body_end - body_start;
    let head_share = relative_cut - body_start;
    let cycles = body / run_bytes;
    if cycles < 2 {
        return one_cut;
    }
    // Divided before multiplied, so that no product can overflow: the few bytes lost fall
    // to the second thread's last run, which reads to the end anyway.
    let (cycle_bytes, head_bytes) = (body / cycles, head_share / cycles);
    let mut offsets = Vec::with_capacity(2 * cycles + 1);
    for cycle in 0..cycles {
        let cycle_start = body_start + cycle_bytes * cycle;
        let head_end = cycle_start + head_bytes;
        let tail_end = cycle_start + cycle_bytes;
        offsets.push(head_end);
        if cycle + 1 < cycles {
            offsets.push(tail_end);
        }
    }
    // Each at the next instruction line, in order and inside the body. Where there is none
    // (the last line of the body is longer than a run: a root tuple of thousands of arrays,
    // say), the cycles stop at the last run of this thread that ends at one, and the second
    // thread's last run reads the rest, if that is short enough to leave the two threads
    // about as much to read as the one cut would; else the one cut.
    let mut snapped = Vec::with_capacity(offsets.len());
    for offset in offsets {
        let at = line_cut(offset).filter(|&at| {
            let in_order = snapped.last().is_none_or(|&last| last < at);
            in_order && at - range.start < body_end
        });
        match at {
            Some(at) => snapped.push(at),
            None => break,
        }
    }
    // This thread's runs end at even places: an odd count ends with one of them.
    if snapped.len() % 2 == 0 {
        snapped.pop();
    }
    let rest = snapped
        .last()
        .map_or(body, |&last| body_end - (last - range.start));
    if rest > body / 4 {
        return one_cut;
    }
    snapped
}

/// Where the lines of `text` that start with `}` start, which close a computation as XLA
/// prints it.
fn closing_lines(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memmem::find_iter(text, b"\n}").map(|at| at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of a short computation and an entry of `lines` parameter lines.
    fn long_body(lines: usize) -> String {
        let mut text = String::from("HloModule m\n\n%add {\n  ROOT %a = f32[] constant(0)\n}\n\n");
        text.push_str("ENTRY %e {\n");
        for i in 0..lines {
            text.push_str(&format!("  %p{i} = f32[8,128]{{1,0}} parameter({i})\n"));
        }
        text.push_str("  ROOT %r = () tuple()\n}\n");
        text
    }

    #[test]
    fn a_long_body_is_cut_into_alternating_runs_at_instruction_lines() {
        let text = long_body(1_000);
        let cut =
            crate::syntax::instruction_line_cut(&text, 0..text.len(), text.len() / 3).unwrap();
        let offsets = runs(&text, 0..text.len(), cut, 4096);
        // 39 KB of body: nine cycles, a run of each thread in each, the last run (the rest of
        // the text) the second thread's.
        assert_eq!(offsets.len(), 17, "{offsets:?}");
        assert!(offsets.windows(2).all(|pair| pair[0] < pair[1]));
        let body_start = text.find("  %p1 ").unwrap();
        let body_end = text.rfind("\n}").unwrap();
        for &offset in &offsets {
            assert!(body_start <= offset && offset < body_end);
            assert!(
                text[offset..].starts_with("  %p"),
                "{:?}",
                &text[offset..offset + 8]
            );
        }
        // This thread reads about as much as up to the cut: the first run and every second.
        let own: usize = std::iter::once(offsets[0] - body_start)
            .chain(offsets[1..].chunks_exact(2).map(|pair| pair[1] - pair[0]))
            .sum();
        let share = own as f64 / (cut - body_start) as f64;
        assert!(
            (0.9..1.1).contains(&share),
            "{own} bytes against {}",
            cut - body_start
        );
    }

    #[test]
    fn the_second_thread_reads_no_more_than_two_runs_ahead_of_the_placing() {
        let text = long_body(4_000);
        let range = 0..text.len();
        let cut =
            crate::syntax::instruction_line_cut(&text, range.clone(), text.len() / 3).unwrap();
        let run_bytes = 2048;
        let second_threads_runs = runs(&text, range.clone(), cut, run_bytes).len() / 2;
        assert!(second_threads_runs > 50, "{second_threads_runs}");
        let pace = Pace::default();
        let mut lowering = ModuleLowering::for_module(&text, range.clone());
        let read = parse_paced(&text, range, cut, run_bytes, &mut lowering, &pace);
        assert!(read.is_some());
        let state = pace.lock();
        // Every run but the last, which is placed as it comes.
        assert_eq!(state.placed, second_threads_runs);
        assert!(!state.placing);
        // Left free, the second thread is tens of runs ahead by the end.
        assert!(state.most_ahead <= RUNS_AHEAD, "{}", state.most_ahead);
    }

    #[test]
    fn a_last_line_longer_than_a_run_ends_the_runs_before_it() {
        // A root tuple of 300 arrays: a line longer than a run, after 39 KB of body.
        let arrays = vec!["f32[8,128]{1,0}"; 300].join(", ");
        let operands = vec!["%p0"; 300].join(", ");
        let text = long_body(1_000).replace(
            "  ROOT %r = () tuple()\n",
            &format!("  ROOT %r = ({arrays}) tuple({operands})\n"),
        );
        let range = 0..text.len();
        let cut =
            crate::syntax::instruction_line_cut(&text, range.clone(), text.len() / 3).unwrap();
        let offsets = runs(&text, range.clone(), cut, 4096);
        assert!(offsets.len() > 9 && offsets.len() % 2 == 1, "{offsets:?}");
        let root = text.find("  ROOT %r").unwrap();
        assert!(offsets.iter().all(|&offset| offset < root), "{offsets:?}");
        // Read in those runs, the module is the one a single pass reads.
        let print = |module: crate::ir::Module| crate::print::print_ir_module(&module);
        let one_pass = crate::parse_module(&text).map(print).ok();
        let in_runs = crate::parse_module_range_tail_ahead_in_runs(&text, range, cut, 4096);
        assert!(one_pass.is_some());
        assert_eq!(in_runs.and_then(Result::ok).map(print), one_pass);
        // A last line longer than a quarter of the body leaves the one cut: the second
        // thread would read much more than the first.
        let long_root = text.replace(&arrays, &[arrays.as_str(); 3].join(", "));
        let cut = crate::syntax::instruction_line_cut(&long_root, 0..long_root.len(), cut);
        let cut = cut.unwrap();
        assert_eq!(runs(&long_root, 0..long_root.len(), cut, 4096), vec![cut]);
    }

    #[test]
    fn a_short_body_or_a_cut_outside_one_keeps_the_one_cut() {
        let text = long_body(50);
        let cut =
            crate::syntax::instruction_line_cut(&text, 0..text.len(), text.len() / 2).unwrap();
        assert_eq!(runs(&text, 0..text.len(), cut, 4096), vec![cut]);
        assert_eq!(runs(&text, 0..text.len(), cut, 0), vec![cut]);
        assert!(runs(&text, 0..text.len(), cut, 256).len() > 3);
    }
}
