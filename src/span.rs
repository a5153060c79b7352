//! Where a piece of text is: byte offsets into the source. Every layer that reports on text
//! (the syntax tree, the model's instructions, diagnostics) carries spans, so this module
//! sits below all of them and knows nothing of HLO.

use std::ops::Range;

/// A byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The offset of the first byte.
    pub start: usize,
    /// The offset just past the last byte.
    pub end: usize,
}

impl Span {
    /// The bytes from `start` up to, not including, `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The span as a range, to slice the source with.
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// How many bytes the span covers.
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> miette::SourceSpan {
        (span.start, span.len()).into()
    }
}
