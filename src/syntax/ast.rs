//! The syntax tree: what the text says, with byte spans, borrowing from the source.
//!
//! Nothing here has meaning yet: an element type is a word, a layout is a list of lettered
//! items with parenthesised groups. `crate::lower` gives the words meaning in Rust tables.

use super::token::HeadText;

pub use crate::span::Span;

/// A piece of source text (a word, a number) and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'s> {
    /// The text, borrowed from the source.
    pub text: &'s str,
    /// Where it is.
    pub span: Span,
}

/// A shape as written, before its element type and layout mean anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape<'s> {
    /// `ty[dims]{layout}`; also `token[]` and `opaque[]`.
    Array {
        /// The element type's word, `f32`.
        element_type: Word<'s>,
        /// The dims, in order.
        dims: Vec<Dim<'s>>,
        /// The layout, when written.
        layout: Option<Box<Layout<'s>>>,
        /// Where the shape is written.
        span: Span,
    },
    /// `(f32[2], s32[])`.
    Tuple {
        /// The element shapes, in order.
        elements: Vec<Shape<'s>>,
        /// Where the tuple is written, parentheses included.
        span: Span,
    },
    /// `b(f32[2]{0})`: a buffer holding an array (lowering checks that it is one).
    Buffer {
        /// The array shape inside the `b(...)`.
        array: Box<Shape<'s>>,
        /// Where the buffer shape is written, `b(` and `)` included.
        span: Span,
    },
    /// An instruction's result shape that the lexer read whole; see [`SimpleShape`].
    Simple(SimpleShape<'s>),
}

impl Shape<'_> {
    /// Where the shape is written.
    pub fn span(&self) -> Span {
        match self {
            Shape::Array { span, .. } | Shape::Tuple { span, .. } | Shape::Buffer { span, .. } => {
                *span
            }
            Shape::Simple(simple) => simple.span(),
        }
    }
}

/// How a dim's size is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimKind {
    /// `N`
    Static,
    /// `<=N`
    Bounded,
    /// `?`
    Unbounded,
}

/// One dim of an array shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim<'s> {
    /// Static, bounded or unbounded.
    pub kind: DimKind,
    /// The number, absent for `?`.
    pub size: Option<Word<'s>>,
    /// Where the dim is written, `<=` included.
    pub span: Span,
}

/// `{1,0:T(8,128)(2,1)E(4)}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout<'s> {
    /// The dim numbers before the `:`, most minor first.
    pub minor_to_major: Vec<Word<'s>>,
    /// The lettered items after the `:`, in order.
    pub items: Vec<LayoutItem<'s>>,
    /// Where the layout is written, braces included.
    pub span: Span,
}

/// One lettered item after the `:`: `T(8,128)(2,1)`, `E(4)`, `#(s32)`, `SC(0:2)(1:3)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutItem<'s> {
    /// `T`, `L`, `#`, `*`, `E`, `S`, `SC`, `P`, `M`, `D`, or anything else the text had.
    pub name: Word<'s>,
    /// Its parenthesised groups, in order.
    pub groups: Vec<LayoutGroup<'s>>,
    /// Where the item is written.
    pub span: Span,
}

/// A parenthesised group `( ... )` of a layout item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutGroup<'s> {
    /// The comma-separated arguments.
    pub args: Vec<LayoutArg<'s>>,
    /// Where the group is written, parentheses included.
    pub span: Span,
}

/// One argument of a layout item's group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutArg<'s> {
    /// `128`
    Int(Word<'s>),
    /// `*`
    Star(Span),
    /// A word with `+`/`~` flags: an element type `s32`, a dim level `C+`.
    Word {
        /// The word.
        word: Word<'s>,
        /// The `+` and `~` after it, in order.
        flags: Vec<Word<'s>>,
    },
    /// `0:2`, as in split configs.
    Labeled {
        /// The number before the `:`.
        label: Word<'s>,
        /// The number after the `:`.
        value: Word<'s>,
    },
    /// A whole shape, as in `P(s32[8]{0})`.
    Shape(Box<Shape<'s>>),
}

impl LayoutArg<'_> {
    /// Where the argument is written.
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

/// A name as written: `%add.1` (with `percent`) or `add.1`. `text` excludes the `%`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name<'s> {
    /// The name without its `%`.
    pub text: &'s str,
    /// Whether the name was written with `%`.
    pub percent: bool,
    /// Where the name is written, `%` included.
    pub span: Span,
}

/// A whole module: `HloModule ...` header, stack-frame tables, computations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module<'s> {
    /// Absent in headerless text (`ENTRY main { ... }` alone).
    pub header: Option<Box<Header<'s>>>,
    /// The stack-frame tables, in order.
    pub tables: Vec<Table<'s>>,
    /// The computations, in order. The parser gives them to its [`Sink`] and leaves this
    /// empty; a caller that collected them with [`CollectSink`] puts them here.
    pub computations: Vec<Computation<'s>>,
    /// Text that is one instruction alone, which XLA also reads as a module; then there
    /// is nothing else.
    pub instruction: Option<Box<Instruction<'s>>>,
}

/// `HloModule name, key=value, ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header<'s> {
    /// The module name, without a `%` or the legacy trailing `:`.
    pub name: Word<'s>,
    /// The module's attributes, in order.
    pub attributes: Vec<Attribute<'s>>,
    /// Where the header is written.
    pub span: Span,
}

/// A `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table<'s> {
    /// The keyword that starts the table, which names it.
    pub keyword: Word<'s>,
    /// The rows, in order.
    pub rows: Vec<TableRow<'s>>,
}

/// `1 "file.py"` or `1 {file_location_id=1 parent_frame_id=1}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow<'s> {
    /// The row's number.
    pub id: Word<'s>,
    /// The string or the braced fields after it.
    pub value: Term<'s>,
}

/// A computation: its head, instructions and trailing attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Computation<'s> {
    /// Whether it is marked `ENTRY`.
    pub entry: bool,
    /// Its name.
    pub name: Name<'s>,
    /// Its parameters and result, when written.
    pub signature: Option<Box<Signature<'s>>>,
    /// Its instructions, in order.
    pub instructions: Vec<Instruction<'s>>,
    /// After the closing brace: `, execution_thread="side"`.
    pub attributes: Vec<Attribute<'s>>,
    /// Where the computation is written, from its name (or `ENTRY`) to its `}`.
    pub span: Span,
}

/// What comes before a computation's instructions: `ENTRY %name (p: f32[]) -> f32[] {`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputationHead<'s> {
    /// Whether it is marked `ENTRY`.
    pub entry: bool,
    /// Its name.
    pub name: Name<'s>,
    /// Its parameters and result, when written.
    pub signature: Option<Box<Signature<'s>>>,
    /// Where the computation starts.
    pub start: usize,
}

/// Receives a module's computations while it is parsed, one instruction at a time, so that a
/// consumer (lowering, most of all) never needs the whole tree in memory. The parser calls
/// `begin_computation`, then `instruction` for each line, then `end_computation`; after a
/// syntax error the sequence may be cut short, and the parse as a whole fails.
pub trait Sink<'s> {
    /// The module's header, read before anything else. A sink may take it (and return
    /// `None`): then it is not held, with all its attributes, on the parser's stack until the
    /// module's end. By default it stays in the tree.
    fn header(&mut self, header: Box<Header<'s>>) -> Option<Box<Header<'s>>> {
        Some(header)
    }
    /// A stack-frame table, read after the header and before any computation. A sink may
    /// take it (and return `None`), as it may the header; by default it stays in the tree.
    fn table(&mut self, table: Table<'s>) -> Option<Table<'s>> {
        Some(table)
    }
    /// A computation's head, before its instructions.
    fn begin_computation(&mut self, head: ComputationHead<'s>);
    /// An instruction line. A sink done with it may keep its operand and attribute vectors
    /// to give out again, emptied, from [`Sink::operand_vec`] and [`Sink::attribute_vec`]:
    /// then reading a line allocates neither.
    fn instruction(&mut self, instruction: Instruction<'s>);
    /// An empty vector for the next instruction's operands.
    fn operand_vec(&mut self) -> Vec<Operand<'s>> {
        Vec::new()
    }
    /// An empty vector for the next instruction's attributes.
    fn attribute_vec(&mut self) -> Vec<Attribute<'s>> {
        Vec::new()
    }
    /// `attributes` are those after the closing brace; `end` is where the computation ends.
    fn end_computation(&mut self, attributes: Vec<Attribute<'s>>, end: usize);
}

/// The sink that keeps everything: it builds [`Module::computations`].
#[derive(Debug, Default)]
pub struct CollectSink<'s> {
    /// The computations ended so far, in order.
    pub computations: Vec<Computation<'s>>,
    open: Option<Computation<'s>>,
}

impl<'s> Sink<'s> for CollectSink<'s> {
    fn begin_computation(&mut self, head: ComputationHead<'s>) {
        self.open = Some(Computation {
            entry: head.entry,
            name: head.name,
            signature: head.signature,
            instructions: Vec::new(),
            attributes: Vec::new(),
            span: Span::new(head.start, head.start),
        });
    }

    fn instruction(&mut self, instruction: Instruction<'s>) {
        if let Some(open) = &mut self.open {
            open.instructions.push(instruction);
        }
    }

    fn end_computation(&mut self, attributes: Vec<Attribute<'s>>, end: usize) {
        if let Some(mut computation) = self.open.take() {
            computation.attributes = attributes;
            computation.span.end = end;
            self.computations.push(computation);
        }
    }
}

/// A sink for parses that have no computations (a lone shape).
pub struct NoSink;

impl<'s> Sink<'s> for NoSink {
    fn begin_computation(&mut self, _: ComputationHead<'s>) {}
    fn instruction(&mut self, _: Instruction<'s>) {}
    fn end_computation(&mut self, _: Vec<Attribute<'s>>, _: usize) {}
}

/// `(p0: f32[2], p1: s32[]) -> f32[2]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature<'s> {
    /// Each parameter's name and shape, in order.
    pub parameters: Vec<(Word<'s>, Shape<'s>)>,
    /// The result shape.
    pub result: Shape<'s>,
}

/// `[ROOT ]name = [shape ]opcode(operands)[, attribute]*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction<'s> {
    /// Whether it is marked `ROOT`.
    pub root: bool,
    /// The name it defines.
    pub name: Name<'s>,
    /// Absent where XLA may infer it.
    pub shape: Option<Box<Shape<'s>>>,
    /// The opcode's word, `add`.
    pub opcode: Word<'s>,
    /// The operands, in slot order.
    pub operands: Vec<Operand<'s>>,
    /// The attributes, in the order written.
    pub attributes: Vec<Attribute<'s>>,
    /// Where the instruction is written, from `ROOT` or its name to its last attribute.
    pub span: Span,
}

/// One operand of an instruction, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand<'s> {
    /// `%x`, `f32[2] %x`, or the compact tuple-element form `%t#1#0`.
    Ref {
        /// The operand's shape, when written before it.
        shape: Option<Box<Shape<'s>>>,
        /// The instruction it names.
        name: Name<'s>,
        /// The `#N` suffixes, outermost first.
        indices: Vec<Word<'s>>,
    },
    /// An anonymous instruction written in place: `f32[] multiply(x, y)`.
    Nested {
        /// Its result shape, when written.
        shape: Option<Box<Shape<'s>>>,
        /// Its opcode's word.
        opcode: Word<'s>,
        /// Its operands, in slot order.
        operands: Vec<Operand<'s>>,
        /// Where it is written.
        span: Span,
    },
    /// A shape alone, `add(f32[10], f32[10])`: in XLA's single-instruction form, a new
    /// parameter of that shape.
    Shape(Box<Shape<'s>>),
    /// A literal, as in `constant({1, 2})` or `parameter(0)`.
    Literal(Term<'s>),
}

impl Operand<'_> {
    /// The operand's text, from its shape when that is written.
    pub fn span(&self) -> Span {
        match self {
            Operand::Ref {
                shape,
                name,
                indices,
            } => Span::new(
                shape.as_ref().map_or(name.span.start, |s| s.span().start),
                indices.last().map_or(name.span.end, |index| index.span.end),
            ),
            Operand::Nested { span, .. } => *span,
            Operand::Shape(shape) => shape.span(),
            Operand::Literal(term) => term.span(),
        }
    }
}

/// `name=value`. The value is a sequence of terms because some attribute values are written
/// as several juxtaposed pieces: `replica_groups=[2,4]<=[8]`, `literal=s32[2]{0} {1, 2}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute<'s> {
    /// The attribute's name.
    pub name: Word<'s>,
    /// The value's pieces, in order.
    pub value: Vec<Term<'s>>,
    /// Where the attribute is written, name and value.
    pub span: Span,
}

/// One piece of an attribute value: the generic tree that every attribute value form of
/// docs/hlo-text.md §5 fits. Meaning is given later, by attribute name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term<'s> {
    /// A single token, with its kind.
    Word(Word<'s>, WordKind),
    /// `name=value` nested in a value, as in `{maximal device=3}` or `window={size=3x3}`.
    Attr {
        /// The nested attribute's name.
        name: Word<'s>,
        /// Its value.
        value: Box<Term<'s>>,
    },
    /// A bracketed list of items.
    List(Box<List<'s>>),
    /// A computation written in place (`to_apply={ ... }`, canonical style).
    Body(Vec<Instruction<'s>>, Span),
    /// The comma between two items of a [`List`]; see [`List::items`].
    Separator(Span),
}

/// What kind of token a [`Term::Word`] was; the text is kept as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordKind {
    /// A bare word: an enum value, an element type, a name without `%`.
    Ident,
    /// `%name`; the text excludes the `%`.
    Name,
    /// `name:`; the text excludes the `:`.
    NameColon,
    /// An integer.
    Int,
    /// A number with a point or an exponent, or `nan`.
    Float,
    /// `-inf`.
    NegInf,
    /// A quoted string, quotes and escapes as written.
    Str,
    /// Window sizes or strides, `3x3`.
    DxD,
    /// Padding, `1_1x0_0`.
    Pad,
    /// Convolution dim labels, `b01f_01io->b01f`.
    DimLabels,
    /// A `{...}` blob taken verbatim.
    Raw,
    /// `=`, `:`, `?`, `*`, `#`, `+`, `~`, `<=`, `->`, `...`.
    Punct,
}

/// The brackets around a [`List`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    /// `{...}`.
    Brace,
    /// `(...)`.
    Paren,
    /// `[...]`.
    Bracket,
}

/// `{a, b}`, `(a, b)` or `[a, b]` (the last maybe with a layout, as in a shape
/// `f32[2]{0}`); each item is a sequence of juxtaposed terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List<'s> {
    /// Which brackets enclose the list.
    pub delimiter: Delimiter,
    /// The items' terms, with a [`Term::Separator`] between items. One vector for all items
    /// keeps parsing to one allocation per list.
    pub terms: Vec<Term<'s>>,
    /// The layout after a `[...]` list that is a shape's dims.
    pub layout: Option<Box<Layout<'s>>>,
    /// Where the list is written, brackets (and layout) included.
    pub span: Span,
}

impl<'s> List<'s> {
    /// The items, each the terms between two commas.
    pub fn items(&self) -> impl Iterator<Item = &[Term<'s>]> + '_ {
        let empty = self.terms.is_empty();
        self.terms
            .split(|t| matches!(t, Term::Separator(_)))
            .filter(move |_| !empty)
    }

    /// Every term of every item, without the separators.
    pub fn item_terms(&self) -> impl Iterator<Item = &Term<'s>> + '_ {
        self.terms
            .iter()
            .filter(|t| !matches!(t, Term::Separator(_)))
    }

    /// How many items the list has: one more than its separators, or none.
    pub fn item_count(&self) -> usize {
        match self.terms.is_empty() {
            true => 0,
            false => {
                1 + self
                    .terms
                    .iter()
                    .filter(|t| matches!(t, Term::Separator(_)))
                    .count()
            }
        }
    }
}

impl Term<'_> {
    /// Where the term is written.
    pub fn span(&self) -> Span {
        match self {
            Term::Separator(span) => *span,
            Term::Word(word, _) => word.span,
            Term::Attr { name, value } => Span::new(name.span.start, value.span().end),
            Term::List(list) => list.span,
            Term::Body(_, span) => *span,
        }
    }
}

/// The integers of an integer-list token (`[2,3]`, `{1,0}`) that starts at byte `start`,
/// with their spans. The lexer has checked the token's form, so this only splits it.
pub fn int_words(token: &str, start: usize) -> Vec<Word<'_>> {
    IntWords::new(token, start).collect()
}

/// The terms of an integer-list token, separators included, as [`List::terms`] holds them.
pub fn int_terms(token: &str, start: usize) -> Vec<Term<'_>> {
    // A word and a separator per comma, and the last word: the vector is allocated once.
    let commas = token.bytes().filter(|&b| b == b',').count();
    let mut terms = Vec::with_capacity(2 * commas + 1);
    for (i, word) in IntWords::new(token, start).enumerate() {
        if i > 0 {
            terms.push(Term::Separator(Span::new(
                word.span.start - 1,
                word.span.start,
            )));
        }
        terms.push(Term::Word(word, WordKind::Int));
    }
    terms
}

/// A shape of the plain form `f32[2,3]` or `f32[2,3]{1,0}` (static dims, a layout of integers
/// only) that the lexer read as one [`Token::SimpleShape`](super::token::Token::SimpleShape).
/// Most result shapes are so; the tree keeps the text, and its parts are split when asked
/// for, so parsing builds nothing for them. The lexer has checked the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleShape<'s> {
    /// The shape's text.
    pub text: &'s str,
    /// Where the text starts in the source.
    pub start: usize,
}

impl<'s> SimpleShape<'s> {
    /// Where the shape is written.
    pub fn span(&self) -> Span {
        Span::new(self.start, self.start + self.text.len())
    }

    fn bracket(&self) -> usize {
        self.text.find('[').unwrap_or(self.text.len())
    }

    fn brace(&self) -> usize {
        let bracket = self.bracket();
        self.text[bracket..]
            .find('{')
            .map_or(self.text.len(), |i| bracket + i)
    }

    /// The element type's word, `f32`.
    pub fn element_type(&self) -> Word<'s> {
        let bracket = self.bracket();
        Word {
            text: &self.text[..bracket],
            span: Span::new(self.start, self.start + bracket),
        }
    }

    /// The dims' sizes, in order.
    pub fn dims(&self) -> IntWords<'s> {
        let (bracket, brace) = (self.bracket(), self.brace());
        IntWords::new(&self.text[bracket..brace], self.start + bracket)
    }

    /// The layout's minor_to_major, if a layout is written.
    pub fn minor_to_major(&self) -> Option<IntWords<'s>> {
        let brace = self.brace();
        (brace < self.text.len()).then(|| IntWords::new(&self.text[brace..], self.start + brace))
    }

    /// The same shape as the general tree, as the token-by-token parse builds it.
    pub fn expand(&self) -> Shape<'s> {
        let dims = self
            .dims()
            .map(|size| Dim {
                kind: DimKind::Static,
                size: Some(size),
                span: size.span,
            })
            .collect();
        let brace = self.brace();
        let layout = self.minor_to_major().map(|minor_to_major| {
            Box::new(Layout {
                minor_to_major: minor_to_major.collect(),
                items: Vec::new(),
                span: Span::new(self.start + brace, self.start + self.text.len()),
            })
        });
        Shape::Array {
            element_type: self.element_type(),
            dims,
            layout,
            span: self.span(),
        }
    }
}

/// The integers of an integer-list token (`[2,3]`, `{1,0}`), with their spans.
#[derive(Clone, Debug)]
pub struct IntWords<'s> {
    /// What is left between the brackets.
    rest: &'s str,
    /// Where `rest` starts in the source.
    offset: usize,
}

impl<'s> IntWords<'s> {
    /// `token` is the list with its brackets, starting at byte `start` of the source.
    pub fn new(token: &'s str, start: usize) -> IntWords<'s> {
        IntWords {
            rest: token.get(1..token.len().saturating_sub(1)).unwrap_or(""),
            offset: start + 1,
        }
    }
}

impl<'s> Iterator for IntWords<'s> {
    type Item = Word<'s>;

    fn next(&mut self) -> Option<Word<'s>> {
        if self.rest.is_empty() {
            return None;
        }
        let len = self
            .rest
            .bytes()
            .position(|b| b == b',')
            .unwrap_or(self.rest.len());
        let word = Word {
            text: &self.rest[..len],
            span: Span::new(self.offset, self.offset + len),
        };
        let taken = (len + 1).min(self.rest.len());
        self.rest = &self.rest[taken..];
        self.offset += taken;
        Some(word)
    }
}

/// Where an instruction ends: at its last attribute, or at `end` (its head's) without one.
pub fn end_after(attributes: &[Attribute<'_>], end: usize) -> usize {
    attributes
        .last()
        .map_or(end, |attribute| attribute.span.end)
}

/// The instruction whose head the lexer read whole as a
/// [`Token::SimpleHead`](super::token::Token::SimpleHead) `%x = f32[2]{0} add(%a, %b)` that
/// starts at byte `start`, its parts cut where the lexer found them to end: the tree the
/// token-by-token parse builds. The lexer has checked the form: one space each side of `=`,
/// one after the shape, and operands that are names, one integer or none.
pub fn instruction_from_head<'s>(
    root: bool,
    head: HeadText<'s>,
    start: usize,
    mut operands: Vec<Operand<'s>>,
    attributes: Vec<Attribute<'s>>,
    span: Span,
) -> Instruction<'s> {
    let HeadText {
        text: head, cuts, ..
    } = head;
    // Clamped, so that cuts that do not fit the text give a wrong tree rather than a panic.
    let at = |offset: usize| offset.min(head.len());
    let name_end = at(cuts.name_len());
    let percent = head.starts_with('%');
    let shape_start = at(name_end + 3);
    let shape_end = at(shape_start + cuts.shape_len());
    let opcode_start = at(shape_end + 1);
    let paren = at(opcode_start + cuts.opcode_len());
    let operands_end = at(paren + cuts.operands_len());
    let part = |from: usize, to: usize| head.get(from..to.max(from)).unwrap_or("");
    let operands_text = part(paren, operands_end);
    match operands_text.as_bytes().get(1) {
        None | Some(b')') => {}
        Some(b'-' | b'0'..=b'9') => {
            let digits = operands_text
                .get(1..operands_text.len().saturating_sub(1))
                .unwrap_or("");
            let at = start + paren + 1;
            operands.push(Operand::Literal(Term::Word(
                Word {
                    text: digits,
                    span: Span::new(at, at + digits.len()),
                },
                WordKind::Int,
            )));
        }
        Some(_) => operands = operand_names(operands_text, start + paren, operands),
    }
    let mut attributes = attributes;
    let written = part(operands_end, head.len());
    if !written.is_empty() {
        simple_attributes(written, start + operands_end, &mut attributes);
    }
    Instruction {
        root,
        name: Name {
            text: part(usize::from(percent), name_end),
            percent,
            span: Span::new(start, start + name_end),
        },
        shape: Some(Box::new(Shape::Simple(SimpleShape {
            text: part(shape_start, shape_end),
            start: start + shape_start,
        }))),
        opcode: Word {
            text: part(opcode_start, paren),
            span: Span::new(start + opcode_start, start + paren),
        },
        operands,
        attributes,
        span,
    }
}

/// The row the lexer read whole as a [`Token::TableRow`](super::token::Token::TableRow)
/// that starts at byte `start`: the tree the token-by-token parse builds. The lexer has
/// checked the form: an id, one space, and a string or `{name=digits ...}`.
pub fn table_row_from_text(text: &str, start: usize) -> TableRow<'_> {
    // Byte loops: rows are short, too short for a search to pay.
    let bytes = text.as_bytes();
    let space = bytes.iter().position(|&b| b == b' ').unwrap_or(text.len());
    let id = Word {
        text: &text[..space],
        span: Span::new(start, start + space),
    };
    let value_start = (space + 1).min(text.len());
    let value_text = &text[value_start..];
    let value_span = Span::new(start + value_start, start + text.len());
    if value_text.starts_with('"') {
        let word = Word {
            text: value_text,
            span: value_span,
        };
        return TableRow {
            id,
            value: Term::Word(word, WordKind::Str),
        };
    }
    // The fields of `{name=1 name=2}`, without the braces.
    let inside_end = text.len().saturating_sub(1).max(value_start);
    let fields = bytes.get(value_start + 1..inside_end).unwrap_or_default();
    let mut terms = Vec::with_capacity(fields.iter().filter(|&&b| b == b'=').count());
    let mut i = value_start + 1;
    while i < inside_end {
        let field_end = bytes[i..inside_end]
            .iter()
            .position(|&b| b == b' ')
            .map_or(inside_end, |end| i + end);
        let equals = bytes[i..field_end]
            .iter()
            .position(|&b| b == b'=')
            .map_or(field_end, |at| i + at);
        let value_at = (equals + 1).min(field_end);
        terms.push(Term::Attr {
            name: Word {
                text: &text[i..equals],
                span: Span::new(start + i, start + value_at),
            },
            value: Box::new(Term::Word(
                Word {
                    text: &text[value_at..field_end],
                    span: Span::new(start + value_at, start + field_end),
                },
                WordKind::Int,
            )),
        });
        i = field_end + 1;
    }
    TableRow {
        id,
        value: Term::List(Box::new(List {
            delimiter: Delimiter::Brace,
            terms,
            layout: None,
            span: value_span,
        })),
    }
}

/// The attributes `, name=value, ...` after a head the lexer read whole with them, starting
/// at byte `start`, added to `attributes`: the trees the token-by-token parse builds. The
/// lexer has checked the form (`simple_attributes_len` there): `, ` before each name, `=`
/// after it, and a value that is an integer, a `%name`, a word, integers in braces, or a
/// canonical `metadata={...}`.
fn simple_attributes<'s>(text: &'s str, start: usize, attributes: &mut Vec<Attribute<'s>>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 2 < text.len() {
        let name_start = i + 2;
        let Some(equals) = bytes[name_start..].iter().position(|&b| b == b'=') else {
            return;
        };
        let value_start = name_start + equals + 1;
        let name = &text[name_start..value_start - 1];
        // Other values hold no `,`, and only integers are in other braces.
        let metadata = name == "metadata" && bytes.get(value_start) == Some(&b'{');
        // The lexer has validated the braced forms; here only their end is wanted.
        let value_end = if bytes.get(value_start) == Some(&b'{') {
            value_start + braced_len(&bytes[value_start..])
        } else {
            bytes[value_start..]
                .iter()
                .position(|&b| b == b',')
                .map_or(text.len(), |comma| value_start + comma)
        };
        let value = &text[value_start..value_end];
        let span = Span::new(start + value_start, start + value_end);
        let word = Word { text: value, span };
        let term = match bytes.get(value_start) {
            Some(b'{') if metadata => Term::Word(word, WordKind::Raw),
            Some(b'{') => Term::List(Box::new(List {
                delimiter: Delimiter::Brace,
                terms: int_terms(value, span.start),
                layout: None,
                span,
            })),
            Some(b'%') => Term::Word(
                Word {
                    text: &value[1..],
                    span,
                },
                WordKind::Name,
            ),
            Some(b'-' | b'0'..=b'9') => Term::Word(word, WordKind::Int),
            _ => Term::Word(word, WordKind::Ident),
        };
        attributes.push(Attribute {
            name: Word {
                text: name,
                span: Span::new(start + name_start, start + value_start),
            },
            value: vec![term],
            span: Span::new(start + name_start, start + value_end),
        });
        i = value_end;
    }
}

/// The length of the `{...}` at the start of `bytes`, up to its closing brace outside
/// quotes; all of `bytes` when it has none.
fn braced_len(bytes: &[u8]) -> usize {
    // Jumps from brace to quote to brace: strings are most of a metadata value.
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(at) = bytes
        .get(i..)
        .and_then(|rest| memchr::memchr3(b'"', b'{', b'}', rest))
    {
        i += at;
        match bytes[i] {
            b'"' => match super::strings::closing_quote(bytes, i + 1) {
                Some((close, _)) => i = close + 1,
                None => return bytes.len(),
            },
            b'{' => {
                depth += 1;
                i += 1;
            }
            _ => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
        }
    }
    bytes.len()
}

/// The operands of a [`Token::OperandNames`](super::token::Token::OperandNames)
/// `(%a, %b, /*index=2*/%c)` that starts at byte `start`, added to `operands`.
pub fn operand_names<'s>(
    text: &'s str,
    start: usize,
    mut operands: Vec<Operand<'s>>,
) -> Vec<Operand<'s>> {
    // A byte loop over the form the lexer checked: names end at `,` or the closing `)`, and
    // only spaces and `/*index=N*/` comments come between them.
    let bytes = text.as_bytes();
    let end = text.len().saturating_sub(1);
    operands.reserve(end / 8 + 1);
    let mut i = 1;
    while i < end {
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        if bytes.get(i) == Some(&b'/') {
            i = text[i..].find("*/").map_or(end, |close| i + close + 2);
            while bytes.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        let name_start = i;
        let percent = bytes.get(i) == Some(&b'%');
        let text_start = i + usize::from(percent);
        while i < end && bytes[i] != b',' {
            i += 1;
        }
        operands.push(Operand::Ref {
            shape: None,
            name: Name {
                text: &text[text_start.min(i)..i],
                percent,
                span: Span::new(start + name_start, start + i),
            },
            indices: Vec::new(),
        });
        i += 1;
    }
    operands
}

#[cfg(test)]
mod tests {
    use super::braced_len;

    /// The same end found a byte at a time: `braced_len`, which jumps, must agree with it on
    /// any input.
    fn braced_len_byte_by_byte(bytes: &[u8]) -> usize {
        let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
        for (i, &b) in bytes.iter().enumerate() {
            match (quoted, b) {
                (true, _) if escaped => escaped = false,
                (true, b'\\') => escaped = true,
                (_, b'"') => quoted = !quoted,
                (false, b'{') => depth += 1,
                (false, b'}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        bytes.len()
    }

    proptest::proptest! {
        #[test]
        fn braced_len_ends_where_a_byte_loop_does(
            text in proptest::collection::vec(
                proptest::sample::select(b"{}\"\\a ".to_vec()), 0..40)
        ) {
            proptest::prop_assert_eq!(braced_len(&text), braced_len_byte_by_byte(&text));
        }
    }

    #[test]
    fn braced_len_skips_braces_in_strings() {
        let value = br#"{op_name="a}{b\"}" source_line=3}, x"#;
        assert_eq!(braced_len(value), value.len() - 3);
    }
}
