//! An attribute as the IR keeps it: `name=value`, the value as canonical text, which typed
//! views read when a pass asks for them.
//!
//! Invariant: the text is what the front end's canonical printer gave, or what a pass wrote
//! in the same form; a name occurs once in a list of attributes.

use arcstr::ArcStr;

/// `name=value`, with the value as canonical text. Both are shared: lowering gives every
/// attribute written with the same name, or the same value text, one allocation. An
/// [`ArcStr`] is one pointer (its length lives in the allocation), so an attribute is 16
/// bytes, where a module has about one attribute per instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextAttribute {
    /// The attribute's name.
    pub name: ArcStr,
    /// The value, as canonical text.
    pub value: ArcStr,
}

impl TextAttribute {
    /// An attribute with its own allocations of `name` and `value`.
    pub fn new(name: &str, value: &str) -> TextAttribute {
        TextAttribute {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// The value text of attribute `name` in `attributes`.
pub(super) fn find_attribute<'a>(attributes: &'a [TextAttribute], name: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|a| &*a.name == name)
        .map(|a| &*a.value)
}

/// Sets attribute `name` to `value`, adding it at the end when absent.
pub(super) fn set_attribute<A>(attributes: &mut A, name: &str, value: &str)
where
    A: std::ops::DerefMut<Target = [TextAttribute]> + Extend<TextAttribute>,
{
    match attributes.iter_mut().find(|a| &*a.name == name) {
        Some(attribute) => attribute.value = value.into(),
        None => attributes.extend([TextAttribute::new(name, value)]),
    }
}
