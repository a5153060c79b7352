//! A module's preamble: its header (`HloModule name, attributes`) and the stack-frame
//! tables after it, lowered to canonical text apart from the computations, perhaps on
//! another thread.
//!
//! Invariant: the preamble lowers the same alone as within the whole module, so lowering it
//! on another thread changes neither the module nor its errors.

use crate::ir::module::TextAttribute;
use crate::lower::canonical;
use crate::lower::error::ModuleError;
use crate::lower::parser_checks::{check_header_attributes, check_unique_attributes};
use crate::syntax::ast::{self, Span};

/// What a module's header and tables lower to, with their errors.
pub(crate) struct LoweredPreamble {
    pub(super) header_name: Option<String>,
    pub(super) header_span: Option<Span>,
    pub(super) attributes: Vec<TextAttribute>,
    pub(super) tables: String,
    pub(super) errors: Vec<ModuleError>,
}

impl LoweredPreamble {
    pub(crate) fn new(module: &ast::Module<'_>) -> LoweredPreamble {
        let mut errors = Vec::new();
        let (attributes, tables) = header_and_tables(module, &mut errors);
        LoweredPreamble {
            header_name: module.header.as_ref().map(|h| h.name.text.to_string()),
            header_span: module.header.as_ref().map(|h| h.span),
            attributes,
            tables,
            errors,
        }
    }

    /// The header and tables lowered on another thread than the computations, or `None`
    /// when they have an error: the module is then read again in one go, which reports it
    /// among the others in order.
    pub(crate) fn without_errors(module: &ast::Module<'_>) -> Option<LoweredPreamble> {
        let lowered = LoweredPreamble::new(module);
        lowered.errors.is_empty().then_some(lowered)
    }
}

/// The header's attributes as canonical text.
fn header_attributes(
    header: &ast::Header<'_>,
    errors: &mut Vec<ModuleError>,
) -> Vec<TextAttribute> {
    check_unique_attributes(&header.attributes, errors);
    check_header_attributes(&header.attributes, errors);
    let mut attributes = Vec::with_capacity(header.attributes.len());
    for attribute in &header.attributes {
        match canonical::attribute_value_text(attribute, 0) {
            Ok(value) => attributes.push(TextAttribute::new(attribute.name.text, &value)),
            Err(e) => errors.extend(e.into_iter().map(ModuleError::from)),
        }
    }
    attributes
}

/// The header's attributes as canonical text, for a sink that takes the header from the
/// parser as soon as it is read; `None` when it has an error ([`ModuleLowering::finish`]
/// reports it).
pub(crate) fn lower_header(header: &ast::Header<'_>) -> Option<Vec<TextAttribute>> {
    let mut errors = Vec::new();
    let attributes = header_attributes(header, &mut errors);
    errors.is_empty().then_some(attributes)
}

pub(super) fn header_and_tables(
    module: &ast::Module<'_>,
    errors: &mut Vec<ModuleError>,
) -> (Vec<TextAttribute>, String) {
    let attributes = module
        .header
        .as_ref()
        .map(|header| header_attributes(header, errors))
        .unwrap_or_default();
    errors.extend(crate::lower::tables::check(&module.tables));
    let tables = canonical::tables_text(&module.tables).unwrap_or_else(|e| {
        errors.extend(e.into_iter().map(ModuleError::from));
        String::new()
    });
    (attributes, tables)
}
