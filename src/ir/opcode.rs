//! HLO opcodes: one table gives each its spelling, its operand count and how it treats
//! layouts. Opcodes the table does not know are kept as [`Opcode::Unknown`] and round-trip;
//! [`async_sugar`] reads those that are XLA's async sugar (`custom-call-start`, ...).

use std::fmt;

/// How many operands an opcode takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// This many.
    Exactly(usize),
    /// This many or more.
    AtLeast(usize),
    /// Any number, including none.
    Any,
}

/// What an opcode is, for shape inference and layout rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// Elementwise on one operand; the result has the operand's dims.
    ElementwiseUnary,
    /// Elementwise on two operands of equal dims.
    ElementwiseBinary,
    /// Elementwise on three operands (select, clamp) with scalar broadcasting allowed.
    ElementwiseTernary,
    /// Everything else; rules are per opcode.
    Other,
}

macro_rules! opcodes {
    ($( $variant:ident = $text:literal, $arity:expr, $kind:ident, $keeps_layout:literal; )*) => {
        /// Every opcode of XLA's `HloOpcode` that HLO text can name.
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $text, "`, as HLO text spells it.")]
                $variant,
            )*
            /// An opcode this table does not know, kept as written, by a number
            /// ([`UnknownOpcode`]) so that an opcode is 8 bytes, and a graph node holding an
            /// instruction no larger.
            Unknown(UnknownOpcode),
        }

        const TABLE: &[(Opcode, &str, Arity, OpKind, bool)] = &[
            $( (Opcode::$variant, $text, $arity, OpKind::$kind, $keeps_layout), )*
        ];

        /// The variants without data, so that `as usize` gives each one's table row.
        #[allow(dead_code)]
        #[derive(Clone, Copy)]
        enum Row {
            $( $variant, )*
        }

        impl Opcode {
            /// The opcode's table row, found in constant time.
            fn row(&self) -> Option<&'static (Opcode, &'static str, Arity, OpKind, bool)> {
                let index = match self {
                    $( Opcode::$variant => Row::$variant as usize, )*
                    Opcode::Unknown(_) => return None,
                };
                TABLE.get(index)
            }
        }
    };
}

/// The spelling of an opcode the table does not know, as a number the process gives each
/// spelling the first time it is read; [`UnknownOpcode::as_str`] gives it back.
///
/// The process keeps every such spelling it has read until it ends: real modules have a
/// handful (XLA's async sugar, newer opcodes), and each is kept once however often read.
/// Numbers are equal when spellings are; order and hashing follow the spelling.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UnknownOpcode(u32);

/// Every unknown spelling read so far, by number, and each one's number.
#[derive(Default)]
struct UnknownSpellings {
    by_number: Vec<&'static str>,
    numbers: rustc_hash::FxHashMap<&'static str, u32>,
}

static UNKNOWN_SPELLINGS: std::sync::LazyLock<std::sync::Mutex<UnknownSpellings>> =
    std::sync::LazyLock::new(Default::default);

fn unknown_spellings() -> std::sync::MutexGuard<'static, UnknownSpellings> {
    UNKNOWN_SPELLINGS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl UnknownOpcode {
    /// The number of `spelling`, given it if it has none yet.
    pub fn new(spelling: &str) -> UnknownOpcode {
        let mut spellings = unknown_spellings();
        if let Some(&number) = spellings.numbers.get(spelling) {
            return UnknownOpcode(number);
        }
        // Four billion spellings would take far more memory than a process has; the last
        // number is shared rather than wrapped.
        let number = u32::try_from(spellings.by_number.len()).unwrap_or(u32::MAX);
        let kept: &'static str = Box::leak(spelling.into());
        spellings.by_number.push(kept);
        spellings.numbers.insert(kept, number);
        UnknownOpcode(number)
    }

    /// The spelling, as read.
    pub fn as_str(&self) -> &'static str {
        let spellings = unknown_spellings();
        spellings
            .by_number
            .get(self.0 as usize)
            .copied()
            .unwrap_or("")
    }
}

impl fmt::Debug for UnknownOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for UnknownOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::hash::Hash for UnknownOpcode {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialOrd for UnknownOpcode {
    fn partial_cmp(&self, other: &UnknownOpcode) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for UnknownOpcode {
    fn cmp(&self, other: &UnknownOpcode) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// Spelling -> table row, built once; reading an opcode is a hash lookup, not a scan.
static BY_NAME: std::sync::LazyLock<rustc_hash::FxHashMap<&'static str, usize>> =
    std::sync::LazyLock::new(|| {
        TABLE
            .iter()
            .enumerate()
            .map(|(index, row)| (row.1, index))
            .collect()
    });

use Arity::*;

// Columns: variant, spelling, operand count, kind, and whether the op must keep its
// operands' layout (XLA's `InstructionCanChangeLayout` is false; docs/tiled-layouts.md §8.3).
opcodes! {
    Abs = "abs", Exactly(1), ElementwiseUnary, true;
    Acos = "acos", Exactly(1), ElementwiseUnary, true;
    Acosh = "acosh", Exactly(1), ElementwiseUnary, true;
    Add = "add", Exactly(2), ElementwiseBinary, true;
    AddDependency = "add-dependency", Exactly(2), Other, false;
    AfterAll = "after-all", Any, Other, false;
    AllGather = "all-gather", AtLeast(1), Other, true;
    AllGatherDone = "all-gather-done", Exactly(1), Other, true;
    AllGatherStart = "all-gather-start", AtLeast(1), Other, true;
    AllReduce = "all-reduce", AtLeast(1), Other, true;
    AllReduceDone = "all-reduce-done", Exactly(1), Other, true;
    AllReduceStart = "all-reduce-start", AtLeast(1), Other, true;
    AllToAll = "all-to-all", AtLeast(1), Other, true;
    And = "and", Exactly(2), ElementwiseBinary, true;
    Asin = "asin", Exactly(1), ElementwiseUnary, true;
    Asinh = "asinh", Exactly(1), ElementwiseUnary, true;
    AsyncDone = "async-done", Exactly(1), Other, false;
    AsyncStart = "async-start", Any, Other, false;
    AsyncUpdate = "async-update", Exactly(1), Other, false;
    Atan2 = "atan2", Exactly(2), ElementwiseBinary, true;
    Atanh = "atanh", Exactly(1), ElementwiseUnary, true;
    BatchNormGrad = "batch-norm-grad", Exactly(5), Other, false;
    BatchNormInference = "batch-norm-inference", Exactly(5), Other, false;
    BatchNormTraining = "batch-norm-training", Exactly(3), Other, false;
    Bitcast = "bitcast", Exactly(1), Other, false;
    BitcastConvert = "bitcast-convert", Exactly(1), ElementwiseUnary, true;
    Broadcast = "broadcast", Exactly(1), Other, false;
    Call = "call", Any, Other, false;
    Cbrt = "cbrt", Exactly(1), ElementwiseUnary, true;
    Ceil = "ceil", Exactly(1), ElementwiseUnary, true;
    Cholesky = "cholesky", Exactly(1), Other, true;
    Clamp = "clamp", Exactly(3), ElementwiseTernary, true;
    CollectiveBroadcast = "collective-broadcast", AtLeast(1), Other, true;
    CollectivePermute = "collective-permute", AtLeast(1), Other, true;
    CollectivePermuteDone = "collective-permute-done", Exactly(1), Other, false;
    CollectivePermuteStart = "collective-permute-start", AtLeast(1), Other, false;
    Compare = "compare", Exactly(2), ElementwiseBinary, true;
    Complex = "complex", Exactly(2), ElementwiseBinary, true;
    Concatenate = "concatenate", AtLeast(1), Other, true;
    Conditional = "conditional", AtLeast(1), Other, false;
    Constant = "constant", Exactly(0), Other, false;
    Convert = "convert", Exactly(1), ElementwiseUnary, true;
    Convolution = "convolution", Exactly(2), Other, false;
    Copy = "copy", Exactly(1), ElementwiseUnary, false;
    CopyDone = "copy-done", Exactly(1), Other, false;
    CopyStart = "copy-start", Exactly(1), Other, false;
    Cosh = "cosh", Exactly(1), ElementwiseUnary, true;
    Cosine = "cosine", Exactly(1), ElementwiseUnary, true;
    CountLeadingZeros = "count-leading-zeros", Exactly(1), ElementwiseUnary, true;
    CustomCall = "custom-call", Any, Other, false;
    Divide = "divide", Exactly(2), ElementwiseBinary, true;
    Domain = "domain", Exactly(1), Other, false;
    Dot = "dot", Exactly(2), Other, false;
    DynamicReshape = "dynamic-reshape", AtLeast(1), Other, false;
    DynamicSlice = "dynamic-slice", AtLeast(1), Other, true;
    DynamicUpdateSlice = "dynamic-update-slice", AtLeast(2), Other, true;
    Erf = "erf", Exactly(1), ElementwiseUnary, true;
    Exp = "exponential", Exactly(1), ElementwiseUnary, true;
    Expm1 = "exponential-minus-one", Exactly(1), ElementwiseUnary, true;
    Fft = "fft", Exactly(1), Other, true;
    Floor = "floor", Exactly(1), ElementwiseUnary, true;
    Fusion = "fusion", Any, Other, false;
    Gather = "gather", Exactly(2), Other, false;
    GetDimensionSize = "get-dimension-size", Exactly(1), Other, false;
    GetTupleElement = "get-tuple-element", Exactly(1), Other, false;
    Imag = "imag", Exactly(1), ElementwiseUnary, true;
    Infeed = "infeed", Exactly(1), Other, false;
    Iota = "iota", Exactly(0), Other, false;
    IsFinite = "is-finite", Exactly(1), ElementwiseUnary, true;
    Log = "log", Exactly(1), ElementwiseUnary, true;
    Log1p = "log-plus-one", Exactly(1), ElementwiseUnary, true;
    Logistic = "logistic", Exactly(1), ElementwiseUnary, true;
    Map = "map", AtLeast(1), Other, true;
    Maximum = "maximum", Exactly(2), ElementwiseBinary, true;
    Minimum = "minimum", Exactly(2), ElementwiseBinary, true;
    Mulhi = "mulhi", Exactly(2), ElementwiseBinary, true;
    Multiply = "multiply", Exactly(2), ElementwiseBinary, true;
    Negate = "negate", Exactly(1), ElementwiseUnary, true;
    Not = "not", Exactly(1), ElementwiseUnary, true;
    OptimizationBarrier = "opt-barrier", Exactly(1), Other, true;
    Or = "or", Exactly(2), ElementwiseBinary, true;
    Outfeed = "outfeed", Exactly(2), Other, false;
    Pad = "pad", Exactly(2), Other, true;
    Parameter = "parameter", Exactly(0), Other, false;
    PartitionId = "partition-id", Exactly(0), Other, false;
    PopulationCount = "popcnt", Exactly(1), ElementwiseUnary, true;
    Power = "power", Exactly(2), ElementwiseBinary, true;
    RaggedAllToAll = "ragged-all-to-all", Exactly(6), Other, true;
    RaggedDot = "ragged-dot", Exactly(3), Other, false;
    Real = "real", Exactly(1), ElementwiseUnary, true;
    Recv = "recv", Exactly(1), Other, false;
    RecvDone = "recv-done", Exactly(1), Other, false;
    Reduce = "reduce", AtLeast(2), Other, false;
    ReducePrecision = "reduce-precision", Exactly(1), ElementwiseUnary, true;
    ReduceScatter = "reduce-scatter", AtLeast(1), Other, true;
    ReduceWindow = "reduce-window", AtLeast(2), Other, true;
    Remainder = "remainder", Exactly(2), ElementwiseBinary, true;
    ReplicaId = "replica-id", Exactly(0), Other, false;
    Reshape = "reshape", Exactly(1), Other, false;
    Reverse = "reverse", Exactly(1), Other, true;
    Rng = "rng", AtLeast(1), Other, false;
    RngBitGenerator = "rng-bit-generator", Exactly(1), Other, false;
    RngGetAndUpdateState = "rng-get-and-update-state", Exactly(0), Other, false;
    RoundNearestAfz = "round-nearest-afz", Exactly(1), ElementwiseUnary, true;
    RoundNearestEven = "round-nearest-even", Exactly(1), ElementwiseUnary, true;
    Rsqrt = "rsqrt", Exactly(1), ElementwiseUnary, true;
    ScaledDot = "scaled-dot", Exactly(4), Other, false;
    Scan = "scan", AtLeast(1), Other, true;
    Scatter = "scatter", AtLeast(3), Other, true;
    Select = "select", Exactly(3), ElementwiseTernary, true;
    SelectAndScatter = "select-and-scatter", Exactly(3), Other, true;
    Send = "send", Exactly(2), Other, false;
    SendDone = "send-done", Exactly(1), Other, false;
    SetDimensionSize = "set-dimension-size", Exactly(2), Other, true;
    ShiftLeft = "shift-left", Exactly(2), ElementwiseBinary, true;
    ShiftRightArithmetic = "shift-right-arithmetic", Exactly(2), ElementwiseBinary, true;
    ShiftRightLogical = "shift-right-logical", Exactly(2), ElementwiseBinary, true;
    Sign = "sign", Exactly(1), ElementwiseUnary, true;
    Sine = "sine", Exactly(1), ElementwiseUnary, true;
    Sinh = "sinh", Exactly(1), ElementwiseUnary, true;
    Slice = "slice", Exactly(1), Other, true;
    Sort = "sort", AtLeast(1), Other, true;
    Sqrt = "sqrt", Exactly(1), ElementwiseUnary, true;
    StochasticConvert = "stochastic-convert", Exactly(2), ElementwiseBinary, true;
    Subtract = "subtract", Exactly(2), ElementwiseBinary, true;
    Tan = "tan", Exactly(1), ElementwiseUnary, true;
    Tanh = "tanh", Exactly(1), ElementwiseUnary, true;
    TopK = "topk", Exactly(1), Other, false;
    Transpose = "transpose", Exactly(1), Other, false;
    TriangularSolve = "triangular-solve", Exactly(2), Other, true;
    Tuple = "tuple", Any, Other, false;
    While = "while", Exactly(1), Other, true;
    Xor = "xor", Exactly(2), ElementwiseBinary, true;
}

impl Opcode {
    /// Reads an opcode's spelling; anything unknown is kept as [`Opcode::Unknown`].
    pub fn from_name(name: &str) -> Opcode {
        BY_NAME.get(name).map_or_else(
            || Opcode::Unknown(UnknownOpcode::new(name)),
            |&index| TABLE[index].0.clone(),
        )
    }

    /// The spelling in HLO text.
    pub fn name(&self) -> &str {
        match self {
            Opcode::Unknown(name) => name.as_str(),
            known => known.row().map_or("", |row| row.1),
        }
    }

    /// Whether the opcode is in the table, so not [`Opcode::Unknown`].
    pub fn is_known(&self) -> bool {
        !matches!(self, Opcode::Unknown(_))
    }

    /// How many operands the opcode takes; `Any` for unknown opcodes.
    pub fn arity(&self) -> Arity {
        self.row().map_or(Arity::Any, |row| row.2)
    }

    /// What the opcode is for shape inference and layout rules; `Other` for unknown opcodes.
    pub fn kind(&self) -> OpKind {
        self.row().map_or(OpKind::Other, |row| row.3)
    }

    /// Whether the opcode works element by element on operands of the result's dims.
    pub fn is_elementwise(&self) -> bool {
        self.kind() != OpKind::Other
    }

    /// Whether the op must give same-rank operands its own layout (XLA's
    /// `InstructionCanChangeLayout` returning false). Unknown opcodes are free to change.
    pub fn keeps_layout(&self) -> bool {
        self.row().is_some_and(|row| row.4)
    }

    /// Every known opcode, in table order.
    pub fn all() -> impl Iterator<Item = &'static Opcode> {
        TABLE.iter().map(|row| &row.0)
    }
}

impl Arity {
    /// Whether an instruction may have `count` operands.
    pub fn accepts(self, count: usize) -> bool {
        match self {
            Arity::Exactly(n) => count == n,
            Arity::AtLeast(n) => count >= n,
            Arity::Any => true,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exactly(1) => f.write_str("exactly 1 operand"),
            Arity::Exactly(n) => write!(f, "exactly {n} operands"),
            Arity::AtLeast(1) => f.write_str("at least 1 operand"),
            Arity::AtLeast(n) => write!(f, "at least {n} operands"),
            Arity::Any => f.write_str("any number of operands"),
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of an async chain a sugared opcode is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncPart {
    /// `<op>-start`, which begins the async computation.
    Start,
    /// `<op>-update`, which passes the async state on.
    Update,
    /// `<op>-done`, which waits for the result.
    Done,
}

/// How an opcode the table does not know reads: XLA's async sugar `<op>-start`,
/// `<op>-update`, `<op>-done` wraps a known op that has no async form of its own.
pub fn async_sugar(opcode: &Opcode) -> Option<(Opcode, AsyncPart)> {
    let Opcode::Unknown(name) = opcode else {
        return None;
    };
    let name = name.as_str();
    let (base, part) = if let Some(base) = name.strip_suffix("-start") {
        (base, AsyncPart::Start)
    } else if let Some(base) = name.strip_suffix("-update") {
        (base, AsyncPart::Update)
    } else if let Some(base) = name.strip_suffix("-done") {
        (base, AsyncPart::Done)
    } else {
        return None;
    };
    let wrapped = Opcode::from_name(base);
    // Ops with dedicated async opcodes (all-reduce-start, send-done, copy-start...) cannot
    // be sugared.
    let dedicated = ["start", "done"]
        .iter()
        .any(|suffix| Opcode::from_name(&format!("{base}-{suffix}")).is_known());
    if !wrapped.is_known() || dedicated || matches!(wrapped, Opcode::AsyncStart) {
        return None;
    }
    Some((wrapped, part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique_and_round_trip() {
        let mut names: Vec<&str> = Opcode::all().map(|op| op.name()).collect();
        for (index, op) in Opcode::all().enumerate() {
            assert_eq!(Opcode::from_name(op.name()), *op);
            assert_eq!(op.row().map(|row| row.1), Some(TABLE[index].1));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
    }

    #[test]
    fn unknown_opcodes_are_kept() {
        let op = Opcode::from_name("custom-call-start");
        assert_eq!(op, Opcode::Unknown(UnknownOpcode::new("custom-call-start")));
        assert_eq!(op, Opcode::from_name("custom-call-start"));
        assert_ne!(op, Opcode::from_name("custom-call-done"));
        // Unknown opcodes order by spelling, whichever was read first.
        assert!(Opcode::from_name("zz-op") > Opcode::from_name("aa-op"));
        assert_eq!(std::mem::size_of::<Opcode>(), 8);
        assert_eq!(op.name(), "custom-call-start");
        assert_eq!(op.arity(), Arity::Any);
        assert!(!op.keeps_layout());
    }

    #[test]
    fn layout_rules_follow_xla() {
        for keeps in [
            "add",
            "convert",
            "concatenate",
            "while",
            "all-reduce",
            "sort",
            "select",
        ] {
            assert!(Opcode::from_name(keeps).keeps_layout(), "{keeps}");
        }
        for free in [
            "copy",
            "bitcast",
            "reshape",
            "transpose",
            "dot",
            "broadcast",
            "reduce",
            "tuple",
            "fusion",
        ] {
            assert!(!Opcode::from_name(free).keeps_layout(), "{free}");
        }
    }
}
