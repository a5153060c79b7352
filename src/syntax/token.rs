//! The logos token set of HLO text (docs/hlo-text.md §2).
//!
//! Tokens borrow from the source; numbers keep their text and are converted where their
//! meaning is known. The lexer never fails: bytes it cannot read become [`Token::Error`], so
//! the parser can recover and report everything at once.

use logos::Logos;

/// One token of HLO text, borrowing its text from the source.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
#[logos(skip(r"//[^\r\n]*", allow_greedy = true))]
pub enum Token<'s> {
    /// `=`, between a name and what it defines or an attribute and its value.
    #[token("=")]
    Equal,
    /// `,`, between list items and attributes.
    #[token(",")]
    Comma,
    /// `:`, between a layout's dims and its other parts, and in labelled values.
    #[token(":")]
    Colon,
    /// `*`, a combined dim in a tile, or a layout's pointer-type part.
    #[token("*")]
    Asterisk,
    /// `?`, an unbounded dim.
    #[token("?")]
    Question,
    /// `#`, before an operand's tuple index, or a layout's index-type part.
    #[token("#")]
    Hash,
    /// `+`, a dim level type's mark in a layout that its dim is not unique: `C+`.
    #[token("+")]
    Plus,
    /// `~`, a dim level type's mark in a layout that its dim is not ordered: `C~`.
    #[token("~")]
    Tilde,
    /// `[`.
    #[token("[")]
    LSquare,
    /// `]`.
    #[token("]")]
    RSquare,
    /// `{` of anything but a layout or a computation body.
    #[token("{")]
    LBrace,
    /// A `{` that opens a layout: it follows `]` and is followed by a digit, `:` or `}`.
    /// The lexer adapter produces it; logos never does. Telling it apart from a computation
    /// body's `{` keeps the grammar LR(1).
    LayoutBrace,
    /// `}`.
    #[token("}")]
    RBrace,
    /// `(`.
    #[token("(")]
    LParen,
    /// `)`.
    #[token(")")]
    RParen,
    /// `->`, between a signature's parameters and its result.
    #[token("->")]
    Arrow,
    /// `<=`, before a bounded dynamic dim's bound.
    #[token("<=")]
    Leq,
    /// `...`, a literal elided in printing.
    #[token("...")]
    Dots,

    /// `HloModule`, which starts a module's header.
    #[token("HloModule")]
    KwHloModule,
    /// `ENTRY`, before the entry computation.
    #[token("ENTRY")]
    KwEntry,
    /// `ROOT`, before a computation's root instruction.
    #[token("ROOT")]
    KwRoot,
    /// The stack-frame table keywords: `FileNames`, `FunctionNames`, `FileLocations`,
    /// `StackFrames`.
    #[token("FileNames", |lex| lex.slice())]
    #[token("FunctionNames", |lex| lex.slice())]
    #[token("FileLocations", |lex| lex.slice())]
    #[token("StackFrames", |lex| lex.slice())]
    KwTable(&'s str),

    /// `%name`; the value excludes the `%`.
    #[regex(r"%[A-Za-z_][A-Za-z0-9_.\-]*", |lex| &lex.slice()[1..])]
    Name(&'s str),
    /// `name:` glued; the value excludes the `:`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_.\-]*:", |lex| { let s = lex.slice(); &s[..s.len() - 1] })]
    NameColon(&'s str),
    /// `name=` glued; the value excludes the `=`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_.\-]*=", |lex| { let s = lex.slice(); &s[..s.len() - 1] })]
    AttrName(&'s str),
    /// Every other word: opcodes, element types, enum values, bare names.
    #[regex(r"[A-Za-z_][A-Za-z0-9_.\-]*", |lex| lex.slice())]
    Ident(&'s str),
    /// An integer, with its sign: `-3`.
    #[regex(r"-?[0-9]+", |lex| lex.slice())]
    Int(&'s str),
    /// A number with a point or an exponent, or `nan` with its payload: `1.5e-3`.
    #[regex(r"-?([0-9]+\.[0-9]*|[0-9]*\.[0-9]+)([eE][+-]?[0-9]+)?", |lex| lex.slice())]
    #[regex(r"-?[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice())]
    #[regex(r"-?nan(\(0x[0-9a-fA-F]+\))?", |lex| lex.slice())]
    Float(&'s str),
    /// `-inf`.
    #[token("-inf")]
    NegInf,
    /// `[2,3]`: a bracketed list of plain integers with nothing else inside, as one token.
    /// Array dims are most of the tokens of real modules; one token each keeps parsing fast.
    #[regex(r"\[([0-9]+(,[0-9]+)*)?\]", |lex| lex.slice())]
    IntBracket(&'s str),
    /// `{1,0}`: a braced list of plain integers, as one token (layouts, `dimensions=`).
    #[regex(r"\{([0-9]+(,[0-9]+)*)?\}", |lex| lex.slice())]
    IntBrace(&'s str),
    /// A quoted string with its quotes; escapes are resolved where the value is used.
    #[regex(r#""([^"\\]|\\[\s\S])*""#, |lex| lex.slice())]
    #[regex(r#"'([^'\\]|\\[\s\S])*'"#, |lex| lex.slice())]
    Str(&'s str),
    /// Window sizes and strides: `3x3`, `1x4x1x1`.
    #[regex(r"[0-9]+(x[0-9]+)+", |lex| lex.slice())]
    DxD(&'s str),
    /// Padding: `1_1x0_0`, `0_-1_2`.
    #[regex(r"-?[0-9]+_-?[0-9]+(_-?[0-9]+)?(x-?[0-9]+_-?[0-9]+(_-?[0-9]+)?)*", |lex| lex.slice())]
    Pad(&'s str),
    /// Convolution dim labels: `b01f_01io->b01f`.
    #[regex(r"[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}", |lex| lex.slice())]
    DimLabels(&'s str),

    /// Bytes no token matches. Kept as a token so that parsing can go on past them.
    Error,

    // The tokens below come from the lexer adapter (`super::lexer`), never from logos: they
    // are words and braces told apart by what follows them, which keeps the grammar LR(1).
    /// `%name` followed by `=`: the name an instruction defines.
    DefName(&'s str),
    /// A bare identifier followed by `=` (with space between): the name an instruction defines.
    DefIdent(&'s str),
    /// An identifier followed by `(`: an opcode, a layout letter, a computation name.
    Call(&'s str),
    /// An identifier followed by `[`: an element type, or a word like `mesh`.
    Indexed(&'s str),
    /// A `{` that opens a computation body (it is followed by an instruction).
    BodyOpen,
    /// The `}` that closes a computation body.
    BodyClose,
    /// A brace-balanced blob taken verbatim: a `backend_config` or frontend attribute value.
    Raw(&'s str),
    /// An [`Token::IntBrace`] that is a layout: `{1,0}` after `f32[2,3]`.
    LayoutInts(&'s str),
    /// An instruction's result shape of the common form `f32[2,3]` or `f32[2,3]{1,0}`, as one
    /// token. Every instruction has one; reading it whole saves the parser most of its work.
    SimpleShape(&'s str),
    /// An instruction's operand list when it is only names, `(%a, %b)`, as one token.
    OperandNames(&'s str),
    /// An instruction's head, `%x = f32[2]{0} add(%a, %b)`, as one token when every part of
    /// it is in the form XLA prints; most lines are. Its attributes are part of it too when
    /// each is plain (`, index=1`, `, dimensions={0}`, a canonical `metadata={...}`) and
    /// they end the line. The lexer tells where its parts end ([`HeadCuts`]).
    SimpleHead(HeadText<'s>),
    /// A stack-frame table row, `1 {file_location_id=1 parent_frame_id=1}` or `1 "a.py"`,
    /// as one token when it is in the form XLA prints: one space after the id, fields of
    /// integers one space apart, a string without escapes. Tables hold thousands of rows.
    TableRow(&'s str),
    /// The `b` of a buffer shape `b(f32[2]{0})`: the word `b` followed by `(` and an array
    /// shape. Told apart from an opcode `b(...)` so that a result shape can start with it.
    Buffer,
}

impl Token<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Token::Equal => "`=`".into(),
            Token::Comma => "`,`".into(),
            Token::Colon => "`:`".into(),
            Token::Asterisk => "`*`".into(),
            Token::Question => "`?`".into(),
            Token::Hash => "`#`".into(),
            Token::Plus => "`+`".into(),
            Token::Tilde => "`~`".into(),
            Token::LSquare => "`[`".into(),
            Token::RSquare => "`]`".into(),
            Token::LBrace | Token::LayoutBrace => "`{`".into(),
            Token::RBrace => "`}`".into(),
            Token::LParen => "`(`".into(),
            Token::RParen => "`)`".into(),
            Token::Arrow => "`->`".into(),
            Token::Leq => "`<=`".into(),
            Token::Dots => "`...`".into(),
            Token::KwHloModule => "`HloModule`".into(),
            Token::KwEntry => "`ENTRY`".into(),
            Token::KwRoot => "`ROOT`".into(),
            Token::Name(s) => format!("name `%{s}`"),
            Token::NameColon(s) => format!("`{s}:`"),
            Token::AttrName(s) => format!("attribute `{s}=`"),
            Token::Ident(s) => format!("`{s}`"),
            Token::Int(s) => format!("integer `{s}`"),
            Token::Float(s) => format!("number `{s}`"),
            Token::NegInf => "`-inf`".into(),
            Token::Str(s) => format!("string {s}"),
            Token::DxD(s) | Token::Pad(s) | Token::DimLabels(s) => format!("`{s}`"),
            Token::Error => "unreadable text".into(),
            Token::KwTable(s) => format!("`{s}`"),
            Token::DefName(s) => format!("name `%{s}`"),
            Token::DefIdent(s) | Token::Call(s) | Token::Indexed(s) => format!("`{s}`"),
            Token::BodyOpen => "`{`".into(),
            Token::BodyClose => "`}`".into(),
            Token::Raw(_) => "a `{...}` blob".into(),
            Token::IntBracket(s) | Token::IntBrace(s) | Token::LayoutInts(s) => format!("`{s}`"),
            Token::SimpleShape(s) => format!("shape `{s}`"),
            Token::OperandNames(s) => format!("operands `{s}`"),
            Token::SimpleHead(head) => format!("instruction `{}`", head.text),
            Token::TableRow(s) => format!("table row `{s}`"),
            Token::Buffer => "`b`".into(),
        }
    }
}

/// A [`Token::SimpleHead`]'s text and where its parts end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadText<'s> {
    /// The whole head, from the name to the last attribute it takes in.
    pub text: &'s str,
    /// Where its parts end.
    pub cuts: HeadCuts,
}

impl<'s> HeadText<'s> {
    /// A head of `text` with the parts `cuts` tells.
    pub fn new(text: &'s str, cuts: HeadCuts) -> HeadText<'s> {
        HeadText { text, cuts }
    }
}

/// The lengths of the parts of a [`Token::SimpleHead`] `%x = f32[2]{0} add(%a, %b), ...`,
/// found as the lexer checked them, so that the tree is built without reading them again:
/// the name (with its `%`), the result shape, the opcode, and the operand list with its
/// parentheses. The attributes follow. Two bytes each keep the token small; a head with a
/// longer part is read token by token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadCuts {
    name: u16,
    shape: u16,
    opcode: u16,
    operands: u16,
}

impl HeadCuts {
    /// `None` when a part is too long to be told here.
    pub fn new(name: usize, shape: usize, opcode: usize, operands: usize) -> Option<HeadCuts> {
        Some(HeadCuts {
            name: u16::try_from(name).ok()?,
            shape: u16::try_from(shape).ok()?,
            opcode: u16::try_from(opcode).ok()?,
            operands: u16::try_from(operands).ok()?,
        })
    }

    /// The name's length in bytes, its `%` included.
    pub fn name_len(self) -> usize {
        usize::from(self.name)
    }

    /// The result shape's length in bytes.
    pub fn shape_len(self) -> usize {
        usize::from(self.shape)
    }

    /// The opcode's length in bytes.
    pub fn opcode_len(self) -> usize {
        usize::from(self.opcode)
    }

    /// The operand list's length in bytes, its parentheses included.
    pub fn operands_len(self) -> usize {
        usize::from(self.operands)
    }
}
