//! What lowering has made from a piece of source text, kept by that text: shapes and
//! attribute texts, so that each distinct text is lowered once and every instruction that
//! writes it shares one allocation. It also carries the count that sizes a long
//! computation's graph (`super::line_counter`), which reads the same text.
//!
//! Invariant: the memo only saves time and shares allocations. An entry is what lowering
//! the text gives, only texts that lower without error are kept (each erroneous one
//! reports at its own place), and emptying it changes no result.

use std::sync::Arc;

use arcstr::ArcStr;
use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::line_counter::LineCounter;
use crate::ir::module::TextAttribute;
use crate::ir::shape::Shape;
use crate::lower::canonical;
use crate::lower::shape::{lower_shape, with_default_layouts, LowerError};
use crate::syntax::ast::{self, Term, WordKind};

/// What lowering has made from a piece of source text, by that text. Real modules repeat
/// the same few attribute values (`dimensions={0}`, `kind=kLoop`, `to_apply=%add`) and
/// shapes thousands of times; each is made once, and every instruction that writes the same
/// shape shares one allocation.
#[derive(Default)]
pub(super) struct Memo<'s> {
    /// The module text, when lowering is fed by the parser.
    pub(super) source: Option<&'s str>,
    /// Attribute texts (`name=value` as written) and their canonical values. The memos own
    /// their keys: there are few (a module's distinct attribute texts, names and shapes;
    /// most lines' attributes are read by the lexer's fast path), but they are looked up on
    /// nearly every line, and a key borrowed from the text would read the text where it
    /// first appeared again and again, which a caller that gives the text read back to the
    /// system (`crate::check`) would have to bring back.
    pub(super) printed: FxHashMap<CompactString, ArcStr>,
    pub(super) attribute_names: FxHashMap<CompactString, ArcStr>,
    /// Values written as one word (`metadata={...}`, `backend_config=...`, `kind=kLoop`),
    /// which print as written: the shared text is its own key. Most repeat (a fusion's
    /// lines carry the metadata of the op they came from), and one allocation a line was a
    /// tenth of a module's memory.
    pub(super) words: FxHashSet<ArcStr>,
    pub(super) shapes: FxHashMap<CompactString, Arc<Shape>>,
    /// The last shape looked up, by its text: most lines have the shape of the line before
    /// (63% of mixtral 1x8's, 52% of torax's, 23% of transformer24 opt's), and comparing
    /// two short texts costs less than hashing one. Borrowed: it is the line before.
    pub(super) last_shape: Option<(&'s str, Arc<Shape>)>,
    /// Sizes a computation that grows long ([`ComputationLowering::add`]).
    pub(super) lines: LineCounter,
}

impl<'s> Memo<'s> {
    /// The memo's tables, for lowering the text `source` (none, between the pieces of a
    /// text read piece by piece): what borrows the text lowered so far is left behind.
    pub(super) fn for_source<'t>(self, source: Option<&'t str>) -> Memo<'t> {
        Memo {
            source,
            printed: self.printed,
            attribute_names: self.attribute_names,
            words: self.words,
            shapes: self.shapes,
            last_shape: None,
            lines: LineCounter::default(),
        }
    }

    /// Empties the memo's tables once they grow past a bound, for a lowering that keeps
    /// memory small: a module with a unique attribute on every line would grow them with
    /// every line.
    pub(super) fn trim(&mut self) {
        const MEMO_ENTRIES: usize = 1024;
        if self.printed.len() > MEMO_ENTRIES {
            self.printed = FxHashMap::default();
        }
        if self.words.len() > MEMO_ENTRIES {
            self.words = FxHashSet::default();
        }
        if self.shapes.len() > MEMO_ENTRIES {
            self.shapes = FxHashMap::default();
        }
    }

    /// A shape with XLA's default layout filled in where the text gave none. Only shapes
    /// that lower without error are kept, so each erroneous one reports at its own place.
    pub(super) fn shape(&mut self, shape: &ast::Shape<'s>) -> Result<Arc<Shape>, Vec<LowerError>> {
        let span = shape.span();
        let written = self
            .source
            .and_then(|source| source.get(span.start..span.end));
        let Some(text) = written else {
            return Ok(Arc::new(with_default_layouts(lower_shape(shape)?)));
        };
        if let Some((last, found)) = &self.last_shape {
            if *last == text {
                return Ok(Arc::clone(found));
            }
        }
        let found = match self.shapes.get(text) {
            Some(found) => Arc::clone(found),
            None => {
                let lowered = Arc::new(with_default_layouts(lower_shape(shape)?));
                self.shapes.insert(text.into(), Arc::clone(&lowered));
                lowered
            }
        };
        self.last_shape = Some((text, Arc::clone(&found)));
        Ok(found)
    }

    /// An attribute as canonical text.
    pub(super) fn attribute(
        &mut self,
        attribute: &ast::Attribute<'s>,
    ) -> Result<TextAttribute, Vec<LowerError>> {
        let value = self.attribute_text(attribute)?;
        let name = match self.attribute_names.get(attribute.name.text) {
            Some(name) => name.clone(),
            None => {
                let name = ArcStr::from(attribute.name.text);
                self.attribute_names
                    .insert(attribute.name.text.into(), name.clone());
                name
            }
        };
        Ok(TextAttribute { name, value })
    }

    fn attribute_text(
        &mut self,
        attribute: &ast::Attribute<'s>,
    ) -> Result<ArcStr, Vec<LowerError>> {
        // A lone word (backend_config, metadata) prints as written: shared by its own text,
        // without the printer's string.
        if let [Term::Word(word, kind)] = attribute.value.as_slice() {
            if !matches!(kind, WordKind::Name | WordKind::NameColon) {
                if let Some(text) = self.words.get(word.text) {
                    return Ok(text.clone());
                }
                let text = ArcStr::from(word.text);
                self.words.insert(text.clone());
                return Ok(text);
            }
        }
        let lone_word = matches!(attribute.value.as_slice(), [Term::Word(..)]);
        let Some(written) = self
            .source
            .filter(|_| !lone_word)
            .and_then(|source| source.get(attribute.name.span.start..attribute.span.end))
        else {
            return canonical::attribute_value_text(attribute, 2).map(ArcStr::from);
        };
        if let Some(text) = self.printed.get(written) {
            return Ok(text.clone());
        }
        let text = ArcStr::from(canonical::attribute_value_text(attribute, 2)?);
        self.printed.insert(written.into(), text.clone());
        Ok(text)
    }
}
