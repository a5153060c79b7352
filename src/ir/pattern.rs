//! A small composable matcher for instruction trees, as XLA's pattern matcher
//! (`m::Transpose(m::Transpose(m::Op(&x)))`) is: a [`Pattern`] names an opcode (or any
//! instruction) and patterns for some or all of its operands, in slot order; the
//! instructions marked with [`Pattern::capture`] are returned in pre-order (a pattern before
//! its operands), so a match destructures as a slice.
//!
//! ```
//! use hlo_layout::ir::pattern::{any, op};
//! use hlo_layout::ir::Opcode;
//!
//! let module = hlo_layout::parse_module(
//!     "ENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  a = f32[3,2]{1,0} transpose(p), dimensions={1,0}\n  ROOT b = f32[2,3]{1,0} transpose(a), dimensions={1,0}\n}\n",
//! )
//! .unwrap();
//! let c = module.entry();
//! let twice = op(Opcode::Transpose)
//!     .capture()
//!     .with_operands([op(Opcode::Transpose).capture().with_operands([any().capture()])]);
//! let b = c.find("b").unwrap();
//! let Some(&[outer, inner, x]) = twice.matches(c, b).as_deref() else { panic!() };
//! assert_eq!((outer, inner, x), (b, c.find("a").unwrap(), c.find("p").unwrap()));
//! assert!(twice.matches(c, c.find("a").unwrap()).is_none());
//! ```

use super::module::{Computation, InstrId};
use super::opcode::Opcode;

/// What an instruction must be: of an opcode (or any), with its first operands, in slot
/// order, matching the operand patterns (all its operands, with [`Pattern::exact_operands`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    opcode: Option<Opcode>,
    operands: Vec<Pattern>,
    exact: bool,
    capture: bool,
}

/// Any instruction.
pub fn any() -> Pattern {
    Pattern {
        opcode: None,
        operands: Vec::new(),
        exact: false,
        capture: false,
    }
}

/// An instruction of `opcode`.
pub fn op(opcode: Opcode) -> Pattern {
    Pattern {
        opcode: Some(opcode),
        ..any()
    }
}

impl Pattern {
    /// Patterns for the first operands, in slot order.
    pub fn with_operands(mut self, operands: impl IntoIterator<Item = Pattern>) -> Pattern {
        self.operands = operands.into_iter().collect();
        self
    }

    /// The instruction must have exactly as many operands as patterns given.
    pub fn exact_operands(mut self) -> Pattern {
        self.exact = true;
        self
    }

    /// Returns the matched instruction among the captures.
    pub fn capture(mut self) -> Pattern {
        self.capture = true;
        self
    }

    /// The captured instructions, in pre-order, if `id` matches; `None` otherwise (also for
    /// an id that names no instruction of `computation`).
    pub fn matches(&self, computation: &Computation, id: InstrId) -> Option<Vec<InstrId>> {
        let mut captured = Vec::new();
        self.match_into(computation, id, &mut captured)
            .then_some(captured)
    }

    fn match_into(
        &self,
        computation: &Computation,
        id: InstrId,
        captured: &mut Vec<InstrId>,
    ) -> bool {
        let Ok(instruction) = computation.get(id) else {
            return false;
        };
        if self
            .opcode
            .as_ref()
            .is_some_and(|o| *o != instruction.opcode)
        {
            return false;
        }
        if self.capture {
            captured.push(id);
        }
        if self.operands.is_empty() && !self.exact {
            return true;
        }
        let operands = computation.operands(id);
        if operands.len() < self.operands.len()
            || (self.exact && operands.len() != self.operands.len())
        {
            return false;
        }
        self.operands
            .iter()
            .zip(operands)
            .all(|(pattern, operand)| pattern.match_into(computation, operand, captured))
    }
}
