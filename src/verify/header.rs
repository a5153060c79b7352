//! Module header attributes whose values have a grammar of their own:
//! `input_output_alias={ {0}: (0, {1}, may-alias), ... }` and `buffer_donor={ (0, {1}), ... }`.

use super::callees::Callee;
use crate::ir::shape::Shape;

use crate::ir::shape_compare::{compatible, strip_layouts};

/// Reads `entry_computation_layout={(a, b)->r}`: the parameter shapes and the result shape.
pub(crate) fn entry_layout(text: &str) -> Option<(Vec<Shape>, Shape)> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let split = inner.rfind(")->")?;
    let parameters = crate::parse_shape(inner.get(..split + 1)?).ok()?;
    let result = crate::parse_shape(inner.get(split + 3..)?).ok()?;
    match parameters {
        Shape::Tuple(parameters) => Some((parameters, result)),
        _ => None,
    }
}

/// `entry_computation_layout` agrees with the entry computation, as XLA's verifier demands
/// (`VerifyEntryComputationLayout`): layout assignment takes the entry's layouts from it.
pub fn entry_computation_layout(layout: Option<&str>, entry: &Callee<'_>) -> Vec<String> {
    let Some(text) = layout else {
        return Vec::new();
    };
    let Some((parameters, result)) = entry_layout(text) else {
        return vec![format!(
            "entry_computation_layout: cannot read `{text}` as `{{(parameter shapes)->result shape}}`"
        )];
    };
    let own = &entry.parameters;
    if own.len() != parameters.len() {
        return vec![format!(
            "Entry computation has {} parameters, but module's entry computation layout has {}",
            own.len(),
            parameters.len()
        )];
    }
    let mut errors = Vec::new();
    for ((number, shape), given) in own.iter().zip(&parameters) {
        if !compatible(shape, given) {
            errors.push(format!(
                "Shape of the entry computation parameter {number} is {} should be compatible \
                 to the one specified in module's entry computation layout {}",
                strip_layouts(shape),
                strip_layouts(given)
            ));
        }
    }
    if let Some((_, root)) = entry.root {
        if !compatible(root, &result) {
            errors.push(format!(
                "Shape of the root instruction of entry computation ({}) should be compatible \
                 to one specified in module's entry computation layout ({})",
                strip_layouts(root),
                strip_layouts(&result)
            ));
        }
    }
    errors
}

/// A problem in header attribute text, with the byte offset in the text where XLA points.
type Problem = (String, usize);

/// A cursor over header attribute text.
struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, position: 0 }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.position..).unwrap_or("")
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.position += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.rest().chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.position += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn require(&mut self, c: char, what: &str) -> Result<(), Problem> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self.found();
            Err((
                format!("expected `{c}` {what}, found `{found}`"),
                self.position,
            ))
        }
    }

    fn found(&mut self) -> String {
        self.skip_space();
        self.rest().chars().take(12).collect()
    }

    /// A word up to a delimiter, and where it starts.
    fn word(&mut self) -> (&'a str, usize) {
        self.skip_space();
        let start = self.position;
        let rest = self.rest();
        let end = rest
            .find(|c: char| c.is_whitespace() || ",:(){}".contains(c))
            .unwrap_or(rest.len());
        self.position += end;
        (rest.get(..end).unwrap_or(""), start)
    }

    fn integer(&mut self, what: &str) -> Result<i64, Problem> {
        let (word, start) = self.word();
        word.parse::<i64>().map_err(|_| {
            (
                format!("expected an integer for {what}, found `{word}`"),
                start,
            )
        })
    }

    /// `{}` or `{0, 1}`.
    fn shape_index(&mut self) -> Result<(), Problem> {
        self.require('{', "at the start of a shape index")?;
        if self.eat('}') {
            return Ok(());
        }
        loop {
            self.integer("a shape index")?;
            if self.eat('}') {
                return Ok(());
            }
            self.require(',', "or `}` at the end of a shape index")?;
        }
    }

    /// Nothing but space is left.
    fn end(&mut self, name: &str) -> Result<(), Problem> {
        match self.peek() {
            None => Ok(()),
            Some(_) => {
                let found = self.found();
                Err((format!("unexpected `{found}` after {name}"), self.position))
            }
        }
    }
}

/// Checks the value of `input_output_alias`.
pub fn input_output_alias(text: &str) -> Result<(), String> {
    input_output_alias_at(text).map_err(|(message, _)| message)
}

/// [`input_output_alias`], with where in `text` XLA points.
pub(crate) fn input_output_alias_at(text: &str) -> Result<(), Problem> {
    let mut cursor = Cursor::new(text);
    alias_value(&mut cursor)?;
    cursor.end("input_output_alias")
}

/// [`input_output_alias_at`] on a text that goes on after the value, as far as the value.
pub(crate) fn input_output_alias_prefix_at(text: &str) -> Result<(), Problem> {
    alias_value(&mut Cursor::new(text))
}

/// Reads an `input_output_alias` value, up to its closing `}`.
fn alias_value(cursor: &mut Cursor<'_>) -> Result<(), Problem> {
    cursor.require('{', "at the start of input_output_alias")?;
    if cursor.eat('}') {
        return Ok(());
    }
    loop {
        cursor.shape_index()?;
        cursor.require(':', "after the output shape index")?;
        cursor.require('(', "before the parameter number")?;
        cursor.integer("the parameter number")?;
        cursor.require(',', "after the parameter number")?;
        cursor.shape_index()?;
        if cursor.eat(',') {
            let (kind, start) = cursor.word();
            if !matches!(kind, "may-alias" | "must-alias") {
                return Err((
                    format!("expected may-alias or must-alias, found `{kind}`"),
                    start,
                ));
            }
        }
        cursor.require(')', "at the end of the aliased parameter")?;
        if cursor.eat('}') {
            break;
        }
        cursor.require(',', "or `}` at the end of aliasing description")?;
    }
    Ok(())
}

/// Checks the value of `buffer_donor`.
pub fn buffer_donor(text: &str) -> Result<(), String> {
    buffer_donor_at(text).map_err(|(message, _)| message)
}

/// [`buffer_donor`], with where in `text` XLA points.
pub(crate) fn buffer_donor_at(text: &str) -> Result<(), Problem> {
    let mut cursor = Cursor::new(text);
    donor_value(&mut cursor)?;
    cursor.end("buffer_donor")
}

/// [`buffer_donor_at`] on a text that goes on after the value, as far as the value.
pub(crate) fn buffer_donor_prefix_at(text: &str) -> Result<(), Problem> {
    donor_value(&mut Cursor::new(text))
}

/// Reads a `buffer_donor` value, up to its closing `}`.
fn donor_value(cursor: &mut Cursor<'_>) -> Result<(), Problem> {
    cursor.require('{', "at the start of buffer_donor")?;
    if cursor.eat('}') {
        return Ok(());
    }
    loop {
        cursor.require('(', "before the parameter number")?;
        cursor.integer("the parameter number")?;
        cursor.require(',', "after the parameter number")?;
        cursor.shape_index()?;
        cursor.require(')', "at the end of the donor")?;
        if cursor.eat('}') {
            break;
        }
        cursor.require(',', "or `}` after a donor")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliasing_forms() {
        assert!(input_output_alias("{ {0}: (0, {0}), {1}: (0, {1}, must-alias) }").is_ok());
        assert!(input_output_alias("{}").is_ok());
        assert!(input_output_alias("{ {0, a}: (0, {0}) }")
            .unwrap_err()
            .contains("integer"));
        assert!(input_output_alias("{ {0, 0}: (0, {0}), (0, {1}) }")
            .unwrap_err()
            .contains("start of a shape index"));
        assert!(input_output_alias("{ {0}: (0, {0}):{0,1}, {1}: (0, {1}) }")
            .unwrap_err()
            .contains("aliasing description"));
        assert!(buffer_donor("{ (0, {0}), (0, {1}) }").is_ok());
        assert!(buffer_donor("{ (zero, {0}) }")
            .unwrap_err()
            .contains("integer"));
    }
}
