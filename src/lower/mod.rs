//! Syntax tree to the model in `crate::ir`: words get their meaning from Rust tables, and
//! every rule the model states is checked here, with the span of the text that broke it.

pub mod module;
pub(crate) mod read_ahead;
pub mod shape;
pub(crate) mod tables;

pub use module::{lower_module, ModuleError, ModuleLowering};
pub use shape::{lower_shape, LowerError};
