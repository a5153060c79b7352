//! Rules of meaning that XLA's parser applies as it reads an instruction's line (or the
//! header's), checked where lowering reads the line, so that each error points at the
//! token XLA points at (a literal's element, an attribute's name or value, an opcode)
//! rather than at the whole line. The verifier keeps the same rules for modules built in
//! code; a module that breaks one here does not lower, so they are never reported twice.
//! Async chains are checked once the module is whole ([`async_chains`]): XLA's parser
//! checks them as it reads, so that a chain it refuses comes before any error of its
//! verifier's (a shape its operands do not give), which it never reaches.

use std::borrow::Cow;

use super::canonical;
use super::error::ModuleError;
use crate::ir::attrs::{AttrError, ConvDimensionNumbers};
use crate::ir::module::Module;
use crate::ir::opcode::Opcode;
use crate::ir::shape::ArrayShape;
use crate::syntax::ast::{self, Attribute, Delimiter, Span, Term, WordKind};
use crate::verify::literals::{self, Piece, Pieces};

/// The problems of a constant's literal `term` (printed as `text`) for an array `shape`,
/// each at the element, list or brace XLA points at. The verdict is the verifier's, made on
/// the same printed text; the syntax tree only says where.
pub(crate) fn literal(text: &str, term: &Term<'_>, shape: &ArrayShape) -> Vec<ModuleError> {
    let messages = literals::check(text, shape);
    if messages.is_empty() {
        return Vec::new();
    }
    let mut pieces = Vec::new();
    literal_pieces(term, &mut pieces);
    let located = literals::check_pieces(&pieces, shape);
    // Both read the same literal; were they ever to differ, the whole literal is the place.
    let agree =
        located.len() == messages.len() && located.iter().zip(&messages).all(|((a, _), b)| a == b);
    messages
        .into_iter()
        .enumerate()
        .map(|(i, message)| {
            let span = located
                .get(i)
                .and_then(|(_, span)| *span)
                .filter(|_| agree)
                .unwrap_or_else(|| term.span());
            ModuleError::Literal { message, span }
        })
        .collect()
}

/// A literal's terms as the pieces [`literals::check_pieces`] reads, with their spans: a
/// braced list opens and closes, anything else (a number, `nan(0x1)`, a complex `(1, 2)`)
/// is one element.
fn literal_pieces<'t>(term: &'t Term<'_>, out: &mut Pieces<'t>) {
    match term {
        Term::List(list) if list.delimiter == Delimiter::Brace && list.layout.is_none() => {
            out.push((Piece::Open, list.span));
            for item in list.item_terms() {
                literal_pieces(item, out);
            }
            let end = list.span.end;
            out.push((Piece::Close, Span::new(end.saturating_sub(1), end)));
        }
        Term::Word(word, kind) if !matches!(kind, WordKind::Name | WordKind::Raw) => {
            out.push((Piece::Atom(Cow::Borrowed(word.text)), word.span));
        }
        other => {
            let text = canonical::literal_text(other).unwrap_or_default();
            out.push((Piece::Atom(Cow::Owned(text)), other.span()));
        }
    }
}

/// An attribute value's tokens joined by spaces, for the checks that read a value's text
/// by a grammar of their own, with where each token is in the source: an offset in the
/// joined text maps back to the token XLA points at.
pub(crate) struct ValueText {
    pub(crate) text: String,
    /// Where each token starts in `text` and in the source, in text order.
    starts: Vec<(usize, usize)>,
}

impl ValueText {
    pub(crate) fn of(terms: &[Term<'_>]) -> ValueText {
        let mut value = ValueText {
            text: String::new(),
            starts: Vec::new(),
        };
        for term in terms {
            value.term(term);
        }
        value
    }

    fn push(&mut self, token: &str, source: usize) {
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        self.starts.push((self.text.len(), source));
        self.text.push_str(token);
    }

    fn term(&mut self, term: &Term<'_>) {
        match term {
            Term::Word(word, WordKind::Name) if word.span.len() > word.text.len() => {
                self.push(&format!("%{}", word.text), word.span.start)
            }
            Term::Word(word, WordKind::NameColon) => {
                self.push(&format!("{}:", word.text), word.span.start)
            }
            Term::Word(word, _) => self.push(word.text, word.span.start),
            Term::Attr { name, value } => {
                self.push(name.text, name.span.start);
                self.push("=", name.span.end);
                self.term(value);
            }
            Term::List(list) => {
                let (open, close) = match list.delimiter {
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Paren => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                };
                self.push(open, list.span.start);
                for term in &list.terms {
                    self.term(term);
                }
                self.push(close, list.span.end.saturating_sub(1));
            }
            Term::Body(_, span) => {
                self.push("{", span.start);
                self.push("}", span.end.saturating_sub(1));
            }
            Term::Separator(span) => self.push(",", span.start),
        }
    }

    /// Where byte `offset` of [`ValueText::text`] is in the source, to the end of its token;
    /// the end of the text is the end of its last token.
    pub(crate) fn source(&self, offset: usize) -> Option<Span> {
        let index = self.starts.partition_point(|&(start, _)| start <= offset);
        let &(start, source) = self.starts.get(index.checked_sub(1)?)?;
        let token_end = self
            .starts
            .get(index)
            .map_or(self.text.len(), |&(next, _)| next.saturating_sub(1));
        let at = source + offset.min(token_end) - start;
        Some(Span::new(at, (source + token_end - start).max(at + 1)))
    }
}

/// `input_output_alias` or `buffer_donor` values outside their grammar, at the token XLA
/// points at: the verdict and message are the verifier's, on the printed `value`.
pub(crate) fn header_grammar(
    name: &str,
    value: &str,
    terms: &[Term<'_>],
    attribute: Span,
) -> Option<ModuleError> {
    let check: fn(&str) -> Result<(), (String, usize)> = match name {
        "input_output_alias" => crate::verify::header::input_output_alias_at,
        "buffer_donor" => crate::verify::header::buffer_donor_at,
        _ => return None,
    };
    let (message, _) = check(value).err()?;
    let tokens = ValueText::of(terms);
    let at = check(&tokens.text)
        .err()
        .and_then(|(_, offset)| tokens.source(offset));
    Some(ModuleError::Invalid {
        message: format!("{name}: {message}"),
        span: at.unwrap_or(attribute),
    })
}

/// The checks XLA's parser makes on the attribute values that have a grammar of their own,
/// as it reads them. (An attribute the opcode does not take is the verifier's to report:
/// newer XLA versions add attributes, and lowering keeps what it does not know.)
pub(crate) fn attributes(
    opcode: &Opcode,
    attributes: &[Attribute<'_>],
    errors: &mut Vec<ModuleError>,
) {
    for (index, attribute) in attributes.iter().enumerate() {
        let name = attribute.name.text;
        // One the opcode does not take is not read by XLA's parser at all.
        if !crate::ir::attribute_rules::allowed(opcode, name) {
            continue;
        }
        let checked = matches!(
            (name, opcode),
            (
                "dim_labels" | "result_accuracy" | "api_version" | "replica_groups",
                _
            ) | ("window", Opcode::Convolution | Opcode::ReduceWindow)
        );
        if !checked {
            continue;
        }
        // A value that does not print is reported where it is lowered.
        let Ok(text) = canonical::attribute_value_text(attribute, 0) else {
            continue;
        };
        let whole = value_span(attribute);
        let problem = match name {
            "dim_labels" => dim_labels(&text).map(|message| (message, whole)),
            "window" => window(&text, &attribute.value).map(|(m, at)| (m, at.unwrap_or(whole))),
            "result_accuracy" => {
                crate::verify::semantic::result_accuracy(&text)
                    .err()
                    .map(|message| {
                        (
                            message,
                            result_accuracy_at(&attribute.value).unwrap_or(whole),
                        )
                    })
            }
            "api_version" => api_version(&text).map(|message| (message, whole)),
            "replica_groups" => mesh_device_ids_inside(attributes, index),
            _ => None,
        };
        if let Some((message, span)) = problem {
            errors.push(ModuleError::AttributeValue { message, span });
        }
    }
}

/// Where an attribute's value is written: all its terms.
fn value_span(attribute: &Attribute<'_>) -> Span {
    match (attribute.value.first(), attribute.value.last()) {
        (Some(first), Some(last)) => Span::new(first.span().start, last.span().end),
        _ => attribute.span,
    }
}

/// `device_ids` right after `replica_groups=mesh[...]` belongs to that value (XLA prints
/// it so), though it reads as an attribute of its own.
fn device_ids_after_a_mesh(attributes: &[Attribute<'_>], index: usize) -> bool {
    let previous = index.checked_sub(1).and_then(|i| attributes.get(i));
    attributes.get(index).map(|a| a.name.text) == Some("device_ids")
        && previous.is_some_and(|p| p.name.text == "replica_groups" && starts_a_mesh(&p.value))
}

fn starts_a_mesh(value: &[Term<'_>]) -> bool {
    matches!(value.first(), Some(Term::Word(word, _)) if word.text == "mesh")
}

/// `device_ids` written inside the mesh's brackets, where XLA expects an axis name (its
/// "expects string"), unless a `device_ids` after the mesh gives them.
fn mesh_device_ids_inside(attributes: &[Attribute<'_>], index: usize) -> Option<(String, Span)> {
    let value = &attributes.get(index)?.value;
    if !starts_a_mesh(value) || device_ids_after_a_mesh(attributes, index + 1) {
        return None;
    }
    let Some(Term::List(list)) = value.get(1) else {
        return None;
    };
    list.item_terms().find_map(|term| match term {
        Term::Attr { name, .. } if name.text == "device_ids" => Some((
            "device_ids goes after the mesh's closing bracket: mesh['a'=2,'b'=2], \
             device_ids=(...) {'a'}"
                .to_string(),
            name.span,
        )),
        _ => None,
    })
}

/// What XLA's parser refuses in convolution dim labels: labels it cannot read, and input,
/// kernel and output labels with different numbers of spatial dimensions.
fn dim_labels(text: &str) -> Option<String> {
    match ConvDimensionNumbers::parse(text.trim()) {
        Err(e) => Some(e.to_string()),
        Ok(dnums) => {
            let spatial = dnums.input_spatial_dimensions.len();
            (dnums.kernel_spatial_dimensions.len() != spatial
                || dnums.output_spatial_dimensions.len() != spatial)
                .then(|| {
                    format!(
                        "dim_labels={dnums} give the input, kernel and output different \
                         numbers of spatial dimensions"
                    )
                })
        }
    }
}

/// A window XLA's parser refuses, and where: the field whose value (or name) is at fault,
/// when one is.
fn window(text: &str, value: &[Term<'_>]) -> Option<(String, Option<Span>)> {
    let error = crate::verify::shapes::window_text(text).err()?;
    let fields: Vec<(&str, Span, Span)> = match value {
        [Term::List(list)] => list
            .item_terms()
            .filter_map(|term| match term {
                Term::Attr { name, value } => Some((name.text, name.span, value.span())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let named = |field: &str, nth: usize| {
        fields
            .iter()
            .filter(|(name, _, _)| *name == field)
            .nth(nth)
            .copied()
    };
    let at = match &error {
        AttrError::BadWindowPadding { .. } => named("pad", 0).map(|(_, _, value)| value),
        AttrError::UnknownWindowField { field } => named(field, 0).map(|(_, name, _)| name),
        AttrError::DuplicateWindowField { field } => named(field, 1).map(|(_, name, _)| name),
        _ => None,
    };
    Some((format!("window: {error}"), at))
}

/// The item of a `result_accuracy` value XLA points at: a value it does not read after a
/// name, or an item that is no `name=value`.
fn result_accuracy_at(value: &[Term<'_>]) -> Option<Span> {
    let [Term::List(list)] = value else {
        return None;
    };
    for term in list.item_terms() {
        let Term::Attr { name, value } = term else {
            return Some(term.span());
        };
        let text = canonical::literal_text(value).unwrap_or_default();
        match name.text {
            "mode" if !matches!(text.to_ascii_lowercase().as_str(), "default" | "highest") => {
                return Some(value.span());
            }
            "mode" | "tolerance" => {}
            _ => return Some(value.span()),
        }
    }
    None
}

/// An API version XLA's parser does not know; `API_VERSION_UNSPECIFIED` it reads, and
/// refuses later.
fn api_version(text: &str) -> Option<String> {
    match text.trim() {
        "API_VERSION_ORIGINAL"
        | "API_VERSION_STATUS_RETURNING"
        | "API_VERSION_STATUS_RETURNING_UNIFIED"
        | "API_VERSION_TYPED_FFI"
        | "API_VERSION_UNSPECIFIED" => None,
        other => Some(format!("Unknown API version: {other}")),
    }
}

/// The async chains XLA's parser refuses as it reads them: an `-update` or `-done` whose
/// operand is no async op, or one of another wrapped op, computation or thread. The
/// verdicts are the verifier's ([`crate::verify::async_chain_problems`]), made once the
/// module is whole, where the computation a chain wraps is known (the other thread may have
/// read it); each is reported at the token after its instruction, where XLA's parser stands
/// once it has read it, with the instruction as a second label. `source` is the module's
/// text, when lowering has it; without it, at the instruction.
pub(crate) fn async_chains(module: &Module, source: Option<&str>) -> Vec<ModuleError> {
    crate::verify::async_chain_problems(module)
        .into_iter()
        .map(|(instruction, problem)| {
            let span = instruction.span;
            let after = source.filter(|_| problem.found == crate::verify::Found::AfterInstruction);
            match after {
                Some(source) => ModuleError::InvalidAfter {
                    message: problem.message,
                    span: crate::syntax::token_after(source, span.end),
                    label: "found once the instruction is read",
                    fault: span,
                    fault_label: "in this instruction",
                },
                None => ModuleError::Invalid {
                    message: problem.message,
                    span,
                },
            }
        })
        .collect()
}

/// XLA's parser takes each attribute once.
pub(super) fn check_unique_attributes(
    attributes: &[ast::Attribute<'_>],
    errors: &mut Vec<ModuleError>,
) {
    for (i, attribute) in attributes.iter().enumerate() {
        if attributes[..i]
            .iter()
            .any(|a| a.name.text == attribute.name.text)
        {
            errors.push(ModuleError::Invalid {
                message: format!("attribute {} already exists", attribute.name.text),
                span: attribute.name.span,
            });
        }
    }
}

/// XLA's parser refuses an opcode it does not know where the opcode is written; it knows
/// its async sugar (`custom-call-start`).
pub(crate) fn unknown_opcode(opcode: &Opcode, word: &ast::Word<'_>) -> Option<ModuleError> {
    match opcode {
        Opcode::Unknown(_) if crate::ir::opcode::async_sugar(opcode).is_none() => {
            Some(ModuleError::UnknownOpcode {
                name: word.text.to_string(),
                span: word.span,
            })
        }
        _ => None,
    }
}

/// XLA's parser reads `frontend_attributes` by its own grammar, and points at the attribute
/// when the value does not follow it.
pub(super) fn check_frontend_attributes(
    attributes: &[ast::Attribute<'_>],
    errors: &mut Vec<ModuleError>,
) {
    for attribute in attributes {
        if attribute.name.text != "frontend_attributes" {
            continue;
        }
        // A value that does not print is reported where it is lowered.
        let Ok(value) = canonical::attribute_value_text(attribute, 0) else {
            continue;
        };
        for message in crate::verify::frontend_attributes_problems(&value) {
            errors.push(ModuleError::Invalid {
                message,
                span: attribute.span,
            });
        }
    }
}

/// The header attributes XLA's parser refuses: names it does not read, and
/// `input_output_alias` or `buffer_donor` values outside their grammar. Each is reported at
/// the attribute, where XLA points.
pub(super) fn check_header_attributes(
    attributes: &[ast::Attribute<'_>],
    errors: &mut Vec<ModuleError>,
) {
    for attribute in attributes {
        let name = attribute.name.text;
        if !crate::ir::vocabulary::HEADER_ORDER.contains(&name) {
            errors.push(ModuleError::UnknownHeaderAttribute {
                name: name.to_string(),
                allowed: crate::ir::vocabulary::HEADER_ORDER.join(", "),
                span: attribute.name.span,
            });
            continue;
        }
        let Ok(value) = canonical::attribute_value_text(attribute, 0) else {
            continue;
        };
        errors.extend(header_grammar(
            name,
            &value,
            &attribute.value,
            attribute.span,
        ));
    }
}

/// XLA reads one value per attribute and refuses what follows it (`channel_id=1x`,
/// `custom_call_target="f"3`); only these attributes are written as several terms:
/// `replica_groups=[2,4]<=[8]`, `mesh[...] {'x'}`, `device_ids=(...) {'x'}` after a mesh,
/// `literal=f32[] 1` and `outfeed_shape=f32[4]{0}`.
pub(super) fn check_single_values(
    attributes: &[ast::Attribute<'_>],
    errors: &mut Vec<ModuleError>,
) {
    for attribute in attributes {
        let Some(extra) = attribute.value.get(1) else {
            continue;
        };
        let several = matches!(
            attribute.name.text,
            "replica_groups" | "device_ids" | "literal" | "outfeed_shape"
        );
        if !several {
            errors.push(ModuleError::Invalid {
                message: format!(
                    "`{}` takes one value; XLA refuses what follows it",
                    attribute.name.text
                ),
                span: extra.span(),
            });
        }
    }
}
