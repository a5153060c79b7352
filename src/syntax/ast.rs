//! The syntax tree: what the text says, with byte spans, borrowing from the source.
//!
//! Nothing here has meaning yet: an element type is a word, a layout is a list of lettered
//! items with parenthesised groups. `crate::lower` gives the words meaning in Rust tables.

use std::ops::Range;

/// A byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> miette::SourceSpan {
        (span.start, span.len()).into()
    }
}

/// A piece of source text (a word, a number) and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'s> {
    pub text: &'s str,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape<'s> {
    /// `ty[dims]{layout}`; also `token[]` and `opaque[]`.
    Array {
        element_type: Word<'s>,
        dims: Vec<Dim<'s>>,
        layout: Option<Layout<'s>>,
        span: Span,
    },
    Tuple {
        elements: Vec<Shape<'s>>,
        span: Span,
    },
}

impl Shape<'_> {
    pub fn span(&self) -> Span {
        match self {
            Shape::Array { span, .. } | Shape::Tuple { span, .. } => *span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimKind {
    /// `N`
    Static,
    /// `<=N`
    Bounded,
    /// `?`
    Unbounded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim<'s> {
    pub kind: DimKind,
    /// The number, absent for `?`.
    pub size: Option<Word<'s>>,
    pub span: Span,
}

/// `{1,0:T(8,128)(2,1)E(4)}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout<'s> {
    pub minor_to_major: Vec<Word<'s>>,
    pub items: Vec<LayoutItem<'s>>,
    pub span: Span,
}

/// One lettered item after the `:`: `T(8,128)(2,1)`, `E(4)`, `#(s32)`, `SC(0:2)(1:3)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutItem<'s> {
    /// `T`, `L`, `#`, `*`, `E`, `S`, `SC`, `P`, `M`, `D`, or anything else the text had.
    pub name: Word<'s>,
    pub groups: Vec<LayoutGroup<'s>>,
    pub span: Span,
}

/// A parenthesised group `( ... )` of a layout item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutGroup<'s> {
    pub args: Vec<LayoutArg<'s>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutArg<'s> {
    /// `128`
    Int(Word<'s>),
    /// `*`
    Star(Span),
    /// A word with `+`/`~` flags: an element type `s32`, a dim level `C+`.
    Word {
        word: Word<'s>,
        flags: Vec<Word<'s>>,
    },
    /// `0:2`, as in split configs.
    Labeled { label: Word<'s>, value: Word<'s> },
    /// A whole shape, as in `P(s32[8]{0})`.
    Shape(Shape<'s>),
}

impl LayoutArg<'_> {
    pub fn span(&self) -> Span {
        match self {
            LayoutArg::Int(w) => w.span,
            LayoutArg::Star(span) => *span,
            LayoutArg::Word { word, flags } => Span::new(
                word.span.start,
                flags.last().map_or(word.span.end, |f| f.span.end),
            ),
            LayoutArg::Labeled { label, value } => Span::new(label.span.start, value.span.end),
            LayoutArg::Shape(shape) => shape.span(),
        }
    }
}
