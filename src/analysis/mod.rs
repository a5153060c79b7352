//! Read-only analyses of a module for people and programs: statistics ([`stats`]), Graphviz
//! drawings ([`dot`]), structural differences between two modules ([`diff`]) and a JSON view
//! of a module ([`json`]).
//!
//! Nothing here does IO or knows the command line: each analysis takes a [`Module`] and
//! returns a value (serialisable with serde) or text, deterministically: maps are
//! `BTreeMap`s and everything else follows the module's own order.
//!
//! [`Module`]: crate::ir::Module

pub mod diff;
pub mod dot;
pub mod json;
pub mod stats;
