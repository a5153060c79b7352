//! The stack-frame tables after the header (`FileNames`, `FunctionNames`, `FileLocations`,
//! `StackFrames`), checked as XLA's parser reads them: all four sections in that order, and
//! each row of the last two holding exactly its fields, each once. The grammar reads any
//! section names and rows; the meaning is given here.

use crate::syntax::ast::{self, Span, Term};

use super::error::ModuleError;

/// The sections, in the order XLA requires them.
const SECTIONS: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// The fields each row of a section holds, all of them and nothing else; `None` for the
/// sections whose rows are strings.
fn fields(section: &str) -> Option<&'static [&'static str]> {
    match section {
        "FileLocations" => Some(&[
            "file_name_id",
            "function_name_id",
            "line",
            "end_line",
            "column",
            "end_column",
        ]),
        "StackFrames" => Some(&["file_location_id", "parent_frame_id"]),
        _ => None,
    }
}

fn invalid(message: String, span: Span) -> ModuleError {
    ModuleError::Invalid { message, span }
}

/// Every way `tables` differs from what XLA reads.
pub fn check(tables: &[ast::Table<'_>]) -> Vec<ModuleError> {
    let keywords: Vec<ast::Word<'_>> = tables.iter().map(|table| table.keyword).collect();
    let mut errors = check_order(&keywords);
    for table in tables {
        errors.extend(check_rows(table));
    }
    errors
}

/// Every way the sections named by `keywords`, in text order, differ from the four XLA
/// reads in its order: the part of [`check`] that needs no rows.
pub fn check_order(keywords: &[ast::Word<'_>]) -> Vec<ModuleError> {
    let mut errors = Vec::new();
    if keywords.is_empty() {
        return errors;
    }
    for (index, expected) in SECTIONS.iter().enumerate() {
        match keywords.get(index) {
            Some(keyword) if keyword.text == *expected => {}
            Some(keyword) => errors.push(invalid(
                format!(
                    "expects '{expected}': the tables come in the order {}",
                    SECTIONS.join(", ")
                ),
                keyword.span,
            )),
            None => {
                let end = keywords.last().map_or(Span::default(), |k| k.span);
                errors.push(invalid(
                    format!("expects '{expected}': all four tables are needed once one is written"),
                    end,
                ));
                break;
            }
        }
    }
    errors
}

/// Every way the rows of `table` differ from what XLA reads: the part of [`check`] that
/// reads one table alone.
pub fn check_rows(table: &ast::Table<'_>) -> Vec<ModuleError> {
    let mut errors = Vec::new();
    if let Some(wanted) = fields(table.keyword.text) {
        for row in &table.rows {
            let Term::List(list) = &row.value else {
                continue;
            };
            let mut seen: Vec<&str> = Vec::new();
            for term in list.item_terms() {
                let Term::Attr { name, .. } = term else {
                    continue;
                };
                if !wanted.contains(&name.text) {
                    errors.push(invalid(
                        format!(
                            "unexpected attribute \"{}\" in {}; allowed: {}",
                            name.text,
                            table.keyword.text,
                            wanted.join(", ")
                        ),
                        name.span,
                    ));
                } else if seen.contains(&name.text) {
                    errors.push(invalid(
                        format!("attribute {} already exists", name.text),
                        name.span,
                    ));
                } else {
                    seen.push(name.text);
                }
            }
            for field in wanted.iter().filter(|f| !seen.contains(f)) {
                errors.push(invalid(
                    format!("sub-attribute {field} is expected but not seen"),
                    list.span,
                ));
            }
        }
    }
    errors
}
