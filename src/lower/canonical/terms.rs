//! What the printer reads off the terms of an attribute value: shapes written among them
//! (`f32[2]{0}`, printed straight from the words when that is what lowering them gives),
//! numbers and number lists, a literal's rank, and which neighbours print glued together.
//!
//! Invariant: these only look at terms; a shape printed from its words is exactly what
//! lowering it and printing it give, and any other is left to the general path.

use crate::ir;
use crate::syntax::ast::{self, Delimiter, List, Term, WordKind};

/// `f32` followed by `[2,<=3,?]` (and a layout) in an attribute value, as a shape tree.
pub(super) fn shape_of<'s>(
    element_type: &ast::Word<'s>,
    list: &List<'s>,
) -> Option<ast::Shape<'s>> {
    if !is_shape_of(element_type, list) {
        return None;
    }
    let dims = list.items().map(dim_of).collect::<Option<Vec<_>>>()?;
    Some(ast::Shape::Array {
        element_type: *element_type,
        dims,
        layout: list.layout.clone(),
        span: ast::Span::new(element_type.span.start, list.span.end),
    })
}

/// One item of a shape's dims in an attribute value: `2`, `<=3` or `?`.
fn dim_of<'s>(item: &[Term<'s>]) -> Option<ast::Dim<'s>> {
    match item {
        [Term::Word(size, WordKind::Int)] => Some(ast::Dim {
            kind: ast::DimKind::Static,
            size: Some(*size),
            span: size.span,
        }),
        [Term::Word(leq, WordKind::Punct), Term::Word(size, WordKind::Int)] if leq.text == "<=" => {
            Some(ast::Dim {
                kind: ast::DimKind::Bounded,
                size: Some(*size),
                span: ast::Span::new(leq.span.start, size.span.end),
            })
        }
        [Term::Word(question, WordKind::Punct)] if question.text == "?" => Some(ast::Dim {
            kind: ast::DimKind::Unbounded,
            size: None,
            span: question.span,
        }),
        _ => None,
    }
}

/// Prints `f32[2,3]{1,0}` (or `f32[2,3]`, given its default layout) straight from the words
/// when they are exactly what lowering the shape and printing it give: a canonical element
/// type, static dims written as plain decimals, no layout or one of a permutation alone, and
/// a size surely within the limit. Otherwise prints nothing and returns false, and the
/// caller takes the general path, which also reports what is wrong. A header's
/// `entry_computation_layout` is a thousand such shapes (mixtral 1x8), and lowering each
/// only to print it cost more than reading it.
pub(super) fn push_plain_shape(
    out: &mut String,
    element_type: &ast::Word<'_>,
    list: &List<'_>,
) -> bool {
    /// A number as lowering parses and printing writes it: digits, no leading zero, in i64.
    fn plain_int(word: &ast::Word<'_>) -> Option<i64> {
        let bytes = word.text.as_bytes();
        let canonical = matches!(bytes, [b'0'] | [b'1'..=b'9', ..])
            && bytes.len() <= 18
            && bytes.iter().all(u8::is_ascii_digit);
        canonical.then(|| word.text.parse().ok()).flatten()
    }
    if list.delimiter != Delimiter::Bracket {
        return false;
    }
    let Some(ty) = ir::PrimitiveType::from_name(element_type.text) else {
        return false;
    };
    if !ty.is_array_type() || ty.name() != element_type.text {
        return false;
    }
    let mut rank = 0usize;
    let mut bytes = 16i64;
    for item in list.items() {
        let [Term::Word(size, WordKind::Int)] = item else {
            return false;
        };
        let Some(size) = plain_int(size) else {
            return false;
        };
        match bytes.checked_mul(size.max(1)) {
            Some(product) if product <= crate::lower::shape::MAX_ARRAY_BYTES => bytes = product,
            _ => return false,
        }
        rank += 1;
    }
    if let Some(layout) = &list.layout {
        if !layout.items.is_empty() || layout.minor_to_major.len() != rank || rank > 64 {
            return false;
        }
        let mut seen = 0u64;
        for word in &layout.minor_to_major {
            match plain_int(word).and_then(|d| usize::try_from(d).ok()) {
                Some(d) if d < rank && seen & (1 << d) == 0 => seen |= 1 << d,
                _ => return false,
            }
        }
    }
    out.push_str(element_type.text);
    out.push('[');
    for (i, size) in list.item_terms().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Term::Word(size, _) = size {
            out.push_str(size.text);
        }
    }
    out.push(']');
    if rank > 0 {
        out.push('{');
        match &list.layout {
            Some(layout) => {
                for (i, dim) in layout.minor_to_major.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(dim.text);
                }
            }
            None => {
                let mut digits = itoa::Buffer::new();
                for dim in (0..rank).rev() {
                    out.push_str(digits.format(dim));
                    if dim > 0 {
                        out.push(',');
                    }
                }
            }
        }
        out.push('}');
    }
    true
}

/// Whether [`shape_of`] takes these words, without building the shape.
fn is_shape_of(element_type: &ast::Word<'_>, list: &List<'_>) -> bool {
    list.delimiter == Delimiter::Bracket
        && ir::PrimitiveType::from_name(element_type.text).is_some()
        && list.items().all(|item| dim_of(item).is_some())
}

/// An item that prints as a shape: `f32[2]{0}` or a tuple of them.
pub(super) fn is_shape_like(item: &[Term<'_>]) -> bool {
    match item {
        [Term::Word(word, WordKind::Ident), Term::List(list)] => is_shape_of(word, list),
        [Term::List(list)] => list.delimiter == Delimiter::Paren && list.items().all(is_shape_like),
        _ => false,
    }
}

fn is_number(term: &Term<'_>) -> bool {
    match term {
        Term::Word(_, WordKind::Int | WordKind::Float | WordKind::NegInf) => true,
        Term::Word(word, WordKind::Ident) => matches!(word.text, "true" | "false" | "inf"),
        _ => false,
    }
}

/// A number, or braces holding only such: `{0,1}` in `{{0,1},{2,3}}`.
fn is_numeric(term: &Term<'_>) -> bool {
    match term {
        Term::List(list) => {
            list.delimiter == Delimiter::Brace
                && list
                    .items()
                    .all(|item| matches!(item, [t] if is_numeric(t)))
        }
        other => is_number(other),
    }
}

/// Whether two items of a default-style list are joined by `,` rather than `, `: numbers
/// and number lists are (`{1,0}`, `{{0,1},{2,3}}`, `devices=[2,2]0,1,2,3`), anything with
/// names, strings or shapes is not.
pub(super) fn default_tight(list: &List<'_>, previous: &[Term<'_>], next: &[Term<'_>]) -> bool {
    match list.delimiter {
        Delimiter::Brace => {
            let tail = match previous.last() {
                Some(Term::Attr { value, .. }) => Some(&**value),
                other => other,
            };
            tail.is_some_and(is_numeric) && next.first().is_some_and(is_numeric)
        }
        Delimiter::Paren => list.items().all(|item| matches!(item, [t] if is_number(t))),
        // `[2,4]`, `['a'=2,'b'=4]`, but `[{'a'}, {'b'}]`.
        Delimiter::Bracket => !list.terms.iter().any(|t| {
            matches!(t, Term::List(_))
                || matches!(t, Term::Attr { value, .. } if matches!(**value, Term::List(_)))
        }),
    }
}

/// The rank of an array literal: how deep its braces nest along the first elements.
pub(super) fn literal_rank(term: &Term<'_>) -> usize {
    let mut rank = 0;
    let mut current = term;
    while let Term::List(list) = current {
        if list.delimiter != Delimiter::Brace {
            break;
        }
        rank += 1;
        match list.terms.first() {
            Some(first) => current = first,
            None => break,
        }
    }
    rank
}

/// Whether a word is followed by a term that starts with `=` (`[a, =6]` read as items):
/// juxtaposed, they cannot be printed so as to read back, since `a =` reads as the name an
/// instruction defines and `a=` as an attribute name. Such lists keep their commas.
pub(super) fn word_meets_equals(terms: &[&Term<'_>]) -> bool {
    terms.windows(2).any(|pair| {
        matches!(
            pair,
            [Term::Word(_, WordKind::Ident | WordKind::Name), Term::Word(p, WordKind::Punct)]
                if p.text.starts_with('=')
        )
    })
}

/// Whether XLA writes two juxtaposed terms without a space: `[2,2]<=[4]`, `T(1,0)`,
/// `'b':(2)2`, `->`, but `maximal device=0`, `[8] last_tile_dim_replicate`, `{0}: (1, {})`.
pub(super) fn glued(
    before: Option<&Term<'_>>,
    previous: &Term<'_>,
    next: &Term<'_>,
    after: Option<&Term<'_>>,
) -> bool {
    let punct =
        |t: &Term<'_>, text: &str| matches!(t, Term::Word(w, WordKind::Punct) if w.text == text);
    let list = |t: &Term<'_>, d: Delimiter| matches!(t, Term::List(l) if l.delimiter == d);
    // `devices=[2,2]0,1`: what follows an attribute glues to its value.
    let previous = match previous {
        Term::Attr { value, .. } => &**value,
        other => other,
    };
    if punct(previous, ":") {
        // Aliasing pairs `{0}: (1, {})` have a space after the colon; sub-axes `'b':(2)2`
        // and slices `0:2` do not.
        return !before.is_some_and(|b| list(b, Delimiter::Brace));
    }
    match (previous, next) {
        // A word would take in what follows it: `an ->` glued reads as the word `an-` and a
        // `>`, `a =` as the attribute name `a=`, `1 ...` as the number `1.`.
        (Term::Word(_, WordKind::Ident | WordKind::Name), Term::Word(p, WordKind::Punct))
            if p.text.starts_with(['-', '.', '=', ':']) =>
        {
            false
        }
        (Term::Word(_, WordKind::Int), Term::Word(p, WordKind::Punct))
            if p.text.starts_with('.') =>
        {
            false
        }
        (_, Term::Word(_, WordKind::Punct)) => true,
        (Term::Word(_, WordKind::Punct), _) => true,
        (Term::Word(_, WordKind::NameColon), _) => true,
        (Term::Word(_, WordKind::Ident), Term::List(l)) => l.delimiter != Delimiter::Brace,
        (Term::List(l), Term::Word(_, WordKind::Int | WordKind::Float)) => {
            l.delimiter != Delimiter::Brace
        }
        // `<=[8]T(1,0)`: a word that opens a paren group glues to the bracket before it.
        (Term::List(l), Term::Word(_, WordKind::Ident)) => {
            l.delimiter == Delimiter::Bracket && after.is_some_and(|a| list(a, Delimiter::Paren))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::canonical::printer::set_layouts;
    use crate::lower::shape::lower_shape;

    /// The words of `f32[...]{...}` in a header attribute, as the printer meets them.
    fn header_value(text: &str) -> ast::Module<'_> {
        match crate::syntax::parse_module(text) {
            Ok(module) => module,
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    proptest::proptest! {
        /// The shortcut for plain shapes in attribute values prints what lowering the shape
        /// and printing it do, and is taken for the plain ones.
        #[test]
        fn plain_shapes_print_as_lowered_shapes_do(
            ty in proptest::sample::select(vec![
                "f32", "bf16", "s32", "pred", "u4", "f8e4m3fn", "token", "opaque", "F32", "x",
            ]),
            dims in proptest::collection::vec(proptest::sample::select(vec![
                "0", "1", "2", "128", "007", "<=3", "?", "4294967296", "9223372036854775807",
                "99999999999999999999",
            ]), 0..5),
            layout in proptest::option::of(proptest::collection::vec(
                proptest::sample::select(vec!["0", "1", "2", "3", "4", "00", "7"]), 0..5,
            )),
            tiled in proptest::bool::ANY,
        ) {
            let mut shape = format!("{ty}[{}]", dims.join(","));
            if let Some(layout) = &layout {
                shape.push_str(&format!("{{{}{}}}", layout.join(","), if tiled { ":T(2)" } else { "" }));
            }
            let text = format!("HloModule m, x={{{shape}}}\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n");
            let module = header_value(&text);
            let header = module.header.as_deref().expect("a header");
            let [Term::List(outer)] = header.attributes[0].value.as_slice() else {
                panic!("{text}: not a braced value");
            };
            let (word, list) = match outer.terms.as_slice() {
                [Term::Word(word, WordKind::Ident), Term::List(list)] => (word, list),
                other => panic!("{text}: {other:?}"),
            };
            let mut fast = String::new();
            let taken = push_plain_shape(&mut fast, word, list);
            let general = shape_of(word, list).map(|shape| {
                lower_shape(&shape).map(|mut lowered| {
                    set_layouts(&mut lowered, true);
                    lowered.to_string()
                })
            });
            if taken {
                proptest::prop_assert_eq!(Some(Ok(fast)), general.map(|r| r.map_err(|_| ())), "{}", shape);
            } else {
                proptest::prop_assert!(fast.is_empty());
            }
            let plain = ["f32", "bf16", "s32", "pred", "u4", "f8e4m3fn"].contains(&ty)
                && dims.iter().all(|d| ["0", "1", "2", "128", "4294967296"].contains(d))
                && layout.as_ref().is_none_or(|l| {
                    !tiled && {
                        let mut sorted: Vec<&str> = l.clone();
                        sorted.sort_unstable();
                        sorted == ["0", "1", "2", "3", "4"][..dims.len()]
                    }
                });
            let small = dims
                .iter()
                .try_fold(16u128, |bytes, d| bytes.checked_mul(d.parse::<u128>().ok()?.max(1)))
                .is_some_and(|bytes| bytes <= 1 << 48);
            proptest::prop_assert_eq!(taken, plain && small, "{}", shape);
        }
    }
}
