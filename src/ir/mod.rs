//! The model: element types, shapes, layouts and the tiled-layout memory map.
//!
//! Architecture invariant: this module does no IO and never panics on values built through
//! its public API; arithmetic on dims is checked and overflow is an error value. The one
//! exception is an [`InstrId`] given to a computation it is not an id of (another
//! computation's, or a removed instruction's): `Computation::get` and the editing methods
//! return that as an [`EditError`], and the lookups that return no `Result`
//! (`instruction`, `operands`, `users`...) panic with the same message, naming the
//! computation, as indexing out of bounds does.

pub(crate) mod attribute_order;
pub mod attribute_rules;
pub mod attrs;
pub mod bitcast;
pub mod build;
pub mod module;
pub mod opcode;
pub mod pattern;
pub mod permutation;
pub mod primitive;
pub mod shape;
pub mod shape_compare;
pub mod shape_inference;
pub(crate) mod shape_text;
pub mod target;
pub mod tiling;
pub mod vocabulary;

pub use module::{Computation, ComputationId, EditError, InstrId, Instruction, Module};
pub use opcode::Opcode;
pub use primitive::PrimitiveType;
pub use shape::{ArrayShape, Dim, Shape};
pub use shape::{Layout, LegacyPadding, PaddingValue, Tile, TileDim};
pub use target::Target;
pub use tiling::{PhysicalLayout, TilingError};
