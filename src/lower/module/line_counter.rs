//! How many instructions a long computation has left, counted in its text, so that its
//! graph is given room once rather than grown.
//!
//! Invariant: the count only sizes the graph, never decides anything; the cursor only moves
//! forward, so the text is read at most twice, and the room given is bounded by the text's
//! size.

/// Counts the lines left in a computation that has grown long, so that its graph is sized
/// once instead of grown: from a line to the next line that starts with `}`, where XLA
/// closes a computation. The count only sizes the graph, so a guess
/// that is off (a computation closed otherwise, comments, blank lines) costs room, never
/// correctness. The cursor only moves forward: the text is read at most twice however the
/// computations end, and the room given is bounded by the text's size.
#[derive(Default)]
pub(super) struct LineCounter {
    /// Where the last search ended; a computation starting before it is not sized.
    at: usize,
    /// When the text ends inside a computation that more text goes on with (its last line
    /// a `}` added to hold it open, `crate::lower::pieces`): how many bytes follow, so that
    /// the computation is sized for them too, at their density of lines, rather than grown
    /// piece after piece, a copy of the whole graph at each doubling.
    text_after: usize,
}

impl LineCounter {
    /// No computation is given room for more than this many instructions at once; a larger
    /// one grows as a vector does. Growing doubles the room and, while it copies, holds the
    /// old room too: a computation just past this would take three times the room it needs.
    /// Room never used is only reserved address space, which a process has plenty of.
    const MAX_ROOM: usize = 1 << 22;
    /// An instruction line is longer than this (`  a = f32[] add(b, c)` is 23 bytes), so
    /// that a computation of blank lines is not given room for an instruction per byte.
    const MIN_LINE_BYTES: usize = 16;

    /// A counter for a text that ends inside a computation `text_after` more bytes go on
    /// with.
    pub(super) fn followed_by(text_after: usize) -> LineCounter {
        LineCounter { at: 0, text_after }
    }

    /// How many instructions the computation has after `start` in `text` (the end of a
    /// line, or of its header line), probably.
    pub(super) fn instructions_from(&mut self, text: &str, start: usize) -> Option<usize> {
        if start < self.at {
            return None;
        }
        let bytes = text.as_bytes();
        // One search finds the `}` line, and the newlines before it are counted in bulk
        // (`memchr`'s count): searching for each newline in turn costs twice as much.
        let Some(found) = memchr::memmem::find(bytes.get(start..)?, b"\n}") else {
            self.at = text.len();
            return None;
        };
        let close = start + found + 1;
        self.at = close;
        let body = &bytes[start..close];
        let newlines = memchr::memchr_iter(b'\n', body).count();
        // Newlines end the header line and each line after it, up to the `}` line.
        let mut lines = newlines.saturating_sub(1);
        let mut bytes_counted = body.len();
        // The `}` line the text ends with closes nothing when more text follows.
        if self.text_after > 0 && text.len() - close <= "}\r\n".len() {
            let after = self.text_after as u128 * lines as u128 / body.len().max(1) as u128;
            lines = lines.saturating_add(usize::try_from(after).unwrap_or(usize::MAX));
            bytes_counted = bytes_counted.saturating_add(self.text_after);
        }
        Some(
            lines
                .min(bytes_counted / Self::MIN_LINE_BYTES)
                .min(Self::MAX_ROOM),
        )
    }
}

#[cfg(test)]
mod line_counter_tests {
    use super::LineCounter;

    #[test]
    fn counts_the_instruction_lines_up_to_the_closing_brace() {
        let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                    ROOT c = f32[] add(a, b)\n}\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
        let mut counter = LineCounter::default();
        let add = text.find("add {").unwrap();
        let entry = text.find("ENTRY").unwrap();
        assert_eq!(counter.instructions_from(text, add), Some(3));
        assert_eq!(counter.instructions_from(text, entry), Some(1));
        // The cursor only moves forward: a start behind it is not sized.
        assert_eq!(counter.instructions_from(text, add), None);
    }

    #[test]
    fn a_computation_without_a_closing_line_is_not_sized_and_ends_the_search() {
        let text = "a {\n  ROOT p = f32[] parameter(0) }\nb {\n  ROOT q = f32[] parameter(0) }\n";
        let mut counter = LineCounter::default();
        assert_eq!(counter.instructions_from(text, 0), None);
        assert_eq!(
            counter.instructions_from(text, text.find("b {").unwrap()),
            None
        );
    }

    #[test]
    fn blank_lines_do_not_buy_room() {
        let text = format!("e {{{}\n}}\n", "\n".repeat(100_000));
        let room = LineCounter::default().instructions_from(&text, 0).unwrap();
        assert!(room <= text.len() / LineCounter::MIN_LINE_BYTES, "{room}");
        let text = format!(
            "e {{\n{}}}\n",
            "  ROOT p = f32[] parameter(0)\n".repeat(100_000)
        );
        let room = LineCounter::default().instructions_from(&text, 0).unwrap();
        assert_eq!(room, 100_000);
    }

    #[test]
    fn a_computation_that_goes_on_after_the_text_is_sized_for_what_follows() {
        let line = "  p = f32[] parameter(0)\n";
        let text = format!("e {{\n{}}}\n", line.repeat(100));
        // As many bytes again follow, at the same density: twice the lines.
        let room = LineCounter::followed_by(text.len())
            .instructions_from(&text, 0)
            .unwrap();
        assert!((199..=201).contains(&room), "{room}");
        // A `}` line before the text's last closes the computation: nothing follows it.
        let closed = format!("{text}f {{\n{line}}}\n");
        let room = LineCounter::followed_by(text.len())
            .instructions_from(&closed, 0)
            .unwrap();
        assert_eq!(room, 100);
        let room = LineCounter::default().instructions_from(&text, 0).unwrap();
        assert_eq!(room, 100);
    }
}
