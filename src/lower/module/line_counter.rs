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
        let lines = newlines.saturating_sub(1);
        Some(
            lines
                .min(body.len() / Self::MIN_LINE_BYTES)
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
}
