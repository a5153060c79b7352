//! The verifier's old path to HLO vocabulary that now lives in `ir`: which attributes each
//! opcode accepts ([`crate::ir::attribute_rules`]) and XLA's async sugar
//! ([`crate::ir::opcode::async_sugar`]). Kept so that callers of the public path still build.

pub use crate::ir::attribute_rules::{allowed, allowed_list, opcode_specific};
pub use crate::ir::opcode::{async_sugar, AsyncPart};
