//! Why a lookup or an edit of a computation was refused: [`EditError`].
//!
//! Invariant: every error names the computation, and the instruction where there is one, so
//! that an id used in the wrong computation is never taken for another instruction.

use super::id::InstrId;

/// Why a lookup or a mutation was refused. Each names the computation, and the instruction
/// where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Removing an instruction that others still use.
    #[error("`{name}` in computation `{computation}` still has users and cannot be removed")]
    HasUsers {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
    },
    /// Removing the root, which a computation cannot be without.
    #[error("`{name}` is the root of computation `{computation}` and cannot be removed; set another root first")]
    RemovingRoot {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
    },
    /// Replacing an operand in a slot the instruction does not have.
    #[error("`{name}` in computation `{computation}` has no operand slot {slot}")]
    NoSuchSlot {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
        /// The slot asked for.
        slot: u32,
    },
    /// The id is this computation's, but its instruction was removed.
    #[error("instruction {id} was removed from computation `{computation}`")]
    Removed {
        /// The id given.
        id: InstrId,
        /// The computation's name.
        computation: String,
    },
    /// The id is another computation's (or a clone's: see [`InstrId`]).
    #[error("instruction {id} is not one of computation `{computation}`: the id is another computation's")]
    Foreign {
        /// The id given.
        id: InstrId,
        /// The name of the computation asked.
        computation: String,
    },
    /// Replacing an instruction in place with one that uses it.
    #[error("`{name}` in computation `{computation}` cannot be replaced in place by an instruction that uses it")]
    UsesItself {
        /// The instruction's name.
        name: String,
        /// The computation's name.
        computation: String,
    },
    /// A rename to a name the computation, or another computation of its module, already has.
    #[error("cannot rename `{name}` in computation `{computation}` to `{taken}`: the module already has an instruction of that name")]
    NameTaken {
        /// The instruction's name.
        name: String,
        /// The name asked for, which another instruction has.
        taken: String,
        /// The computation's name.
        computation: String,
    },
}
